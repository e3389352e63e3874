/* CPU-tier check of the --metrics sets (src/profile/kc_metrics.c) against CUPTI's own metric
 * tables, with no GPU: CUPTI's profiler host API (cupti_profiler_host.h) builds each set's
 * configuration image for a chip by name and says how many replay passes it takes, as the
 * injection library's range profiler would on that GPU (src/capture/rangeprof.c asks the same
 * API for the GPU it runs on).
 *
 * For GH100 (H100, H200) every name of every set must be one the chip takes (a misspelt name
 * fails here, not on the first GPU run), and the sets keep the pass counts the docs, --help
 * and the cost measurements state: default 11, basic 9, full 17 (docs/kernel-metrics.md,
 * "Where the passes go"). The names go in the table's order, as `gpudiag run --metrics=SET`
 * sends them: CUPTI schedules passes greedily in that order, so the order is checked too.
 *
 * Exit 0 when all hold, 1 when one does not, 77 (skipped) when this CUPTI cannot initialise
 * its host API for GH100 (an older toolkit). */
#include "profile/kc_metrics.h"

#include <cupti_profiler_host.h>
#include <cupti_result.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SKIP 77

static const char *cupti_text(CUptiResult r)
{
	const char *s = NULL;
	cuptiGetResultString(r, &s);
	return s ? s : "?";
}

static void *host_new(const char *chip, CUptiResult *r)
{
	CUpti_Profiler_Host_Initialize_Params ip = {.structSize = CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE};
	ip.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
	ip.pChipName = chip;
	*r = cuptiProfilerHostInitialize(&ip);
	return *r == CUPTI_SUCCESS ? ip.pHostObject : NULL;
}

static void host_free(void *h)
{
	CUpti_Profiler_Host_Deinitialize_Params dp = {.structSize = CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE};
	dp.pHostObject = h;
	cuptiProfilerHostDeinitialize(&dp);
}

static CUptiResult host_add(void *h, const char **names, size_t k)
{
	CUpti_Profiler_Host_ConfigAddMetrics_Params ap = {.structSize = CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE};
	ap.pHostObject = h;
	ap.ppMetricNames = names;
	ap.numMetrics = k;
	return cuptiProfilerHostConfigAddMetrics(&ap);
}

/* The passes the names of set `bits` take on `chip`, in table order; -1 with why said, -2
 * when the host API cannot start for that chip. */
static long passes_of(const char *chip, unsigned bits, int *count, char *why, size_t n)
{
	const char *names[GD_KC_COUNT];
	size_t k = 0;
	long passes = -1;
	unsigned char *img = NULL;
	CUptiResult r;
	void *h;
	for (int m = 0; m < GD_KC_COUNT; m++)
		if (gd_kc_metrics[m].sets & bits)
			names[k++] = gd_kc_metrics[m].cupti;
	*count = (int)k;
	if (!(h = host_new(chip, &r))) {
		snprintf(why, n, "cuptiProfilerHostInitialize(%s): %s", chip, cupti_text(r));
		return -2;
	}
	if ((r = host_add(h, names, k)) != CUPTI_SUCCESS) {
		/* one at a time, each in a host object of its own, to name the one the chip refuses */
		snprintf(why, n, "the chip refuses the set: %s", cupti_text(r));
		for (size_t i = 0; i < k; i++) {
			void *one = host_new(chip, &r);
			int refused = one && host_add(one, &names[i], 1) != CUPTI_SUCCESS;
			if (one)
				host_free(one);
			if (refused) {
				snprintf(why, n, "%s refuses %s", chip, names[i]);
				break;
			}
		}
		goto out;
	}
	CUpti_Profiler_Host_GetConfigImageSize_Params zp = {.structSize = CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE};
	zp.pHostObject = h;
	if ((r = cuptiProfilerHostGetConfigImageSize(&zp)) != CUPTI_SUCCESS || !(img = malloc(zp.configImageSize))) {
		snprintf(why, n, "configuration image size: %s", cupti_text(r));
		goto out;
	}
	CUpti_Profiler_Host_GetConfigImage_Params gp = {.structSize = CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE};
	gp.pHostObject = h;
	gp.configImageSize = zp.configImageSize;
	gp.pConfigImage = img;
	CUpti_Profiler_Host_GetNumOfPasses_Params pp = {.structSize = CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE};
	pp.configImageSize = zp.configImageSize;
	pp.pConfigImage = img;
	if ((r = cuptiProfilerHostGetConfigImage(&gp)) != CUPTI_SUCCESS ||
	    (r = cuptiProfilerHostGetNumOfPasses(&pp)) != CUPTI_SUCCESS) {
		snprintf(why, n, "configuration image or its pass count: %s", cupti_text(r));
		goto out;
	}
	passes = (long)pp.numOfPasses;
out:
	free(img);
	host_free(h);
	return passes;
}

int main(void)
{
	static const struct {
		const char *set;
		long passes;
	} want[] = {{"default", 11}, {"basic", 9}, {"full", 17}};
	int bad = 0;
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		char why[300] = "";
		int count = 0;
		long got = passes_of("GH100", gd_kc_set_bits(want[i].set), &count, why, sizeof(why));
		if (got == -2) {
			printf("SKIP %s (this CUPTI cannot count passes offline)\n", why);
			return SKIP;
		}
		if (got != want[i].passes) {
			printf("FAIL --metrics=%s on GH100: %d names, %ld passes, want %ld%s%s\n", want[i].set, count, got,
			       want[i].passes, why[0] ? ": " : "", why);
			bad++;
		} else
			printf("ok   --metrics=%s on GH100: %d names, %ld passes\n", want[i].set, count, got);
	}
	return bad ? 1 : 0;
}
