/* What changed between two analysed profiles (`gpudiag diff A B`): kernel time by kind, and
 * each kernel's total time matched by short name, each list sorted by the size of the
 * change; with the framework view (framework.h) in either, each op's and each module's self
 * GPU time, matched by op name and by (path, class). The rendering is cmd_diff.c's. */
#ifndef GPUDIAG_COMPARE_H
#define GPUDIAG_COMPARE_H

#include "analysis/framework.h"
#include "analysis/names.h"
#include "analysis/summary.h"

struct gd_delta {
	const char *name;  /* a kind name, a short kernel name owned by one of the summaries, an op
			      name owned by a framework view, or a module's label owned by the
			      comparison ("layers.0.fc (Linear)", gd_fw_module_label) */
	double a, b;       /* total ns in A and in B (0 where absent); ops and modules: self GPU ns */
	long na, nb;       /* counts; ops and modules: calls */
	const char *path, *cls; /* a module row's path and class (cls NULL for "(no module)");
				   NULL for every other row */
};

struct gd_compare {
	struct gd_delta kinds[GD_KIND_COUNT]; /* kinds present in A or B */
	int nkinds;
	struct gd_delta *kernels; /* every short name of A, then those only B has */
	int nkernels;
	int framework;            /* A or B has the framework view: ops and modules below */
	struct gd_delta *ops;     /* every op of A, then those only B has */
	long nops;
	struct gd_delta *modules; /* every module of A, then those only B has; name owned */
	long nmodules;
};

/* Both lists sorted by |b − a| descending, then by name. The names point into a and b,
 * which must outlive c. Returns GD_OK or GD_EFAIL (out of memory; nothing to free then). */
int gd_compare_compute(const struct gd_summary *a, const struct gd_summary *b, struct gd_compare *c);
/* The ops and modules of two framework views into c (after gd_compare_compute), each list
 * sorted as above. Nothing when neither has the view. GD_OK or GD_EFAIL (out of memory; c's
 * other lists stay, gd_compare_free frees all). */
int gd_compare_framework(const struct gd_framework *a, const struct gd_framework *b, struct gd_compare *c);
void gd_compare_free(struct gd_compare *c);

/* B / A as `gpudiag diff` writes it, with three significant figures (more above 1000): "1.78×",
 * "0.903×", "12.4×", "1500×"; a ratio below 0.1 as a division, "÷222" (B is 222 times smaller:
 * 309.8 µs against 68.6 ms is "÷221", never "0.00×"); "new" when A is 0 and B is not, "gone"
 * when B is 0 and A is not, "=" when both are 0; "unknown" for NaN. Returns buf. */
char *gd_ratio_text(char *buf, size_t n, double a, double b);

#endif
