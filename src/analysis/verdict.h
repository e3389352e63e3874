/* The verdicts (issue 9): the guide's diagnosis checklist (§16) walked over one profile.
 * Seventeen rules, each ending in one of three states — clear, fired (with a severity, the
 * evidence numbers, the share of time at stake, the guide section and advice) or
 * "insufficient signal" (with what was missing). The three rules of per-kernel counters
 * (issue 19: uncoalesced, divergence, roofline) are "not applicable" in a profile recorded
 * without `gpudiag run --metrics`, so that its report reads as before; the straggler rule
 * (issue 22) is not applicable to a profile of fewer than two ranks running NCCL. Thresholds are the named
 * constants in verdict.c and are listed in docs/verdicts.md. */
#ifndef GPUDIAG_VERDICT_H
#define GPUDIAG_VERDICT_H

#include "profile/profile.h"
#include "analysis/ranks.h"
#include "analysis/summary.h"

enum gd_rule {
	GD_R_IDLE = 0, GD_R_LAUNCH, GD_R_SYNC, GD_R_PAGEABLE, GD_R_DEFAULT_STREAM, GD_R_OCCUPANCY,
	GD_R_MEMBOUND, GD_R_TENSOR, GD_R_LATENCY, GD_R_THROTTLE, GD_R_MEMORY, GD_R_COMM, GD_R_PROFILER,
	/* per-kernel counters (issue 19), after the older rules so that ties keep their order */
	GD_R_UNCOALESCED, GD_R_DIVERGENCE, GD_R_ROOFLINE,
	/* several ranks (issue 22): not applicable to a profile of one rank */
	GD_R_STRAGGLER,
	GD_R_COUNT
};
/* GD_NOT_APPLICABLE: the rule judges a kind of record the run was not asked to collect (the
 * per-kernel counters of --metrics); renderers leave it out, and the verdict line does not
 * count it among the checks. */
enum gd_state { GD_CLEAR = 0, GD_FIRED, GD_INSUFFICIENT, GD_NOT_APPLICABLE };
enum gd_sev { GD_SEV_NONE = 0, GD_SEV_INFO, GD_SEV_WARN, GD_SEV_HIGH };
/* What a fired finding rests on. A measured cause outranks a guess from kernel names at the
 * same severity: the ranking is severity, then the run's timeline before a kernel's insides
 * (the guide's §14 order), then basis (kernel counters, then the trace and PM counters alike,
 * then kernel names), then time at stake. */
enum gd_basis {
	GD_BASIS_TRACE = 0, /* measured: the trace's timings (kernels, copies, API calls, NVML) */
	GD_BASIS_COUNTERS,  /* measured: the GPU's performance counters, sampled (PM sampling) */
	GD_BASIS_NAMES,     /* inferred from kernel names, not measured */
	GD_BASIS_KCOUNTERS  /* measured: per-launch counters of the kernel itself (range profiler,
			       gpudiag run --metrics; s->kc) */
};

#define GD_MAX_EVIDENCE 12

struct gd_evidence {
	char key[40];          /* stable JSON key */
	double value;          /* NaN when the evidence is text only */
	char unit[12];         /* "ns", "bytes", "fraction", "count", "B/s", "MHz", "" */
	char text[200];        /* the evidence in words, for the terminal and the page */
};

struct gd_finding {
	int rule;
	const char *id;        /* stable: "gpu_idle", "launch_bound", ... */
	const char *title;
	const char *guide;     /* "§2 §9" */
	int state, severity;
	int basis;             /* enum gd_basis */
	double share;          /* fraction of the active GPU span at stake; NaN unknown */
	double rank_share;     /* share used for ranking (idle time already explained by a more
				  specific rule is not counted twice) */
	char headline[300];    /* one sentence */
	char advice[600];
	char kernel[160];      /* the kernel most concerned, or "" */
	struct gd_evidence ev[GD_MAX_EVIDENCE];
	int nev;
};

struct gd_verdicts {
	struct gd_finding f[GD_R_COUNT];
	int order[GD_R_COUNT]; /* fired findings first, by severity then share */
	int nfired, nwarn;     /* fired; fired at warning or high severity */
	/* The verdict in one sentence, for every renderer: the top finding's headline when one
	 * warns; else "No problem found." and, when the GPU was idle much of the wall time, why
	 * that is no problem (start-up before the main loop, tear-down after it). */
	char top_line[600];
	/* The main loop (analysis/steady.h) that every rule judges; found = 0: the whole run. */
	int loop_found;
	long loop_first_kernel, loop_last_kernel; /* indices into the profile's kernels */
	long loop_repeats;                         /* runs of its most frequent kernel */
	int64_t loop_start, loop_end;              /* ns on the profile's clock */
	long loop_period;                          /* kernels in one iteration (steady.h); 0 no loop */
	/* GPU busy, the one figure every renderer shows (terminal, JSON gpu_busy_fraction, HTML):
	 * the share of the judged span in which a kernel, copy or memset ran on the GPU, i.e. the
	 * summary's busy_ns over judged_ns. The judged span is the GPU active span less the idle
	 * gaps of start-up, first launches and tear-down (docs/verdicts.md, "The main loop"): the
	 * time in which the program was issuing work. The idle rule judges 1 - busy_fraction.
	 * NaN when nothing was traced (light mode: the PM counters' GPU active is another
	 * measure, named as such). */
	double judged_ns, busy_fraction;
};

int gd_verdicts_compute(const struct gd_profile *p, const struct gd_summary *s, struct gd_verdicts *v);
/* The same with the rank analysis of p (ranks.h) that the communication and straggler rules
 * read; gd_verdicts_compute computes it itself. */
int gd_verdicts_compute_ranks(const struct gd_profile *p, const struct gd_summary *s, const struct gd_ranks *r,
			      struct gd_verdicts *v);
/* Adds the framework view (framework.h) to the evidence of fired findings, after both are
 * computed: for launch-bound, the module and op that launch the short kernels, with their
 * kernels per call (keys module_kernels_per_call, op_kernels_per_call); for a finding that
 * names a kernel, the op and module that launched most of its time (key op_module). Repeated
 * layers of one class are named once ("transformer.h.*.ln_1"). Nothing when the profile has
 * no framework ranges; which rule fires and its other evidence are unchanged. */
struct gd_framework;
void gd_verdicts_add_framework(const struct gd_profile *p, const struct gd_summary *s, const struct gd_framework *fw,
			       struct gd_verdicts *v);
const char *gd_sev_name(int sev);     /* "info", "warning", "high" */
const char *gd_state_name(int state); /* "clear", "fired", "insufficient signal", "not applicable" */
const char *gd_basis_name(int basis); /* "trace", "counters", "kernel names", "kernel counters" */
/* What a rule's share at stake is a fraction of: "the judged span" (idle, sync), "kernel time"
 * (the kernel-counter rules: kernel replay inflates a --metrics run's span), else "the GPU span". */
const char *gd_stake_base(int rule);

/* Total length of the intersection of two sorted lists of disjoint intervals. */
double gd_overlap(const struct gd_interval *a, long na, const struct gd_interval *b, long nb);

#endif
