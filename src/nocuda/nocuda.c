/* What a build without the CUDA toolkit puts in place of the parts that need it (the list is
 * in CMakeLists.txt; docs/install.md, "Without the CUDA toolkit"):
 *   - `lab` and `roofline`, whose kernels need nvcc: the commands say so and exit 3;
 *   - the demo workload of `gpudiag run` (kernels/demo.h): refused the same way; with no GPU,
 *     `run` shows the sample profile as in every build;
 *   - the GPU-metrics sampler (src/gpu/pmsample.c needs CUPTI's headers): a sampler that
 *     takes no sample and says why, so `run --light` records NVML alone.
 * Everything else is the same code as in a build with the toolkit. */
#include "commands.h"
#include "core/status.h"
#include "gpu/pmsample.h"
#include "kernels/demo.h"

#include <stdio.h>
#include <stdlib.h>

#define NO_TOOLKIT "this gpudiag was built without the CUDA toolkit"
#define REBUILD "rebuild it on a machine with the toolkit (nvcc) to get them: docs/install.md"

const char cmd_lab_usage[] =
	"usage: gpudiag lab [<name>] [options]\n"
	"\n"
	"Not in this build: " NO_TOOLKIT ", and the labs are GPU kernels\n"
	"compiled by nvcc. Rebuild on a machine with the toolkit to get them (docs/install.md).\n";

const char cmd_roofline_usage[] =
	"usage: gpudiag roofline [options]\n"
	"\n"
	"Not in this build: " NO_TOOLKIT ", and the roofline is measured by GPU\n"
	"kernels compiled by nvcc. Rebuild on a machine with the toolkit to get it (docs/install.md).\n";

int cmd_lab(struct gd_ctx *ctx, int argc, char **argv)
{
	(void)ctx, (void)argc, (void)argv;
	return gd_error(GD_ENOGPU, "lab: %s, so it has no labs (GPU kernels); %s", NO_TOOLKIT, REBUILD);
}

int cmd_roofline(struct gd_ctx *ctx, int argc, char **argv)
{
	(void)ctx, (void)argc, (void)argv;
	return gd_error(GD_ENOGPU, "roofline: %s, so it has no roofline kernels; %s", NO_TOOLKIT, REBUILD);
}

int gd_demo_run(int device, int iters, struct gd_demo_times *t, char *why, size_t n)
{
	(void)device, (void)iters, (void)t;
	snprintf(why, n, "%s, so it has no demo workload (GPU kernels)", NO_TOOLKIT);
	return -1;
}

/* ---- the GPU-metrics sampler: never samples */
struct gd_pm {
	int unused;
};

struct gd_pm *gd_pm_start(int ndev, long interval_ns, char *why, size_t whyn)
{
	struct gd_pm *pm = calloc(1, sizeof(*pm));
	(void)ndev, (void)interval_ns;
	if (!pm)
		snprintf(why, whyn, "out of memory");
	return pm;
}

void gd_pm_stop(struct gd_pm *pm)
{
	(void)pm;
}

void gd_pm_free(struct gd_pm *pm)
{
	free(pm);
}

long gd_pm_count(const struct gd_pm *pm)
{
	(void)pm;
	return 0;
}

const struct gd_pm_sample *gd_pm_get(const struct gd_pm *pm, long i)
{
	(void)pm, (void)i;
	return NULL;
}

const char *gd_pm_status(const struct gd_pm *pm)
{
	(void)pm;
	return "no counters: " NO_TOOLKIT " (CUPTI PM sampling needs it)";
}

const char *gd_pm_note(const struct gd_pm *pm)
{
	(void)pm;
	return "";
}

long long gd_pm_lost(const struct gd_pm *pm)
{
	(void)pm;
	return 0;
}

const char *gd_pm_metric_names(const struct gd_pm *pm)
{
	(void)pm;
	return "";
}

long long gd_pm_started_ns(const struct gd_pm *pm)
{
	(void)pm;
	return 0;
}
