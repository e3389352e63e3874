/* CPU-tier check of the --metrics sets (src/profile/kc_metrics.c) against CUPTI's own metric
 * tables, with no GPU: CUPTI's profiler host API (cupti_profiler_host.h) builds each set's
 * configuration image for a chip by name and says how many replay passes it takes, as the
 * injection library's range profiler would on that GPU, with the same code (cupti_host.c;
 * rangeprof.c gives it the GPU's counter availability, this check none).
 *
 * For GH100 (H100, H200) every name of every set must be one the chip takes (a misspelt name
 * fails here, not on the first GPU run), and the sets keep the pass counts the docs, --help
 * and the cost measurements state: default 10, basic 9, full 17 (docs/kernel-metrics.md,
 * "Where the passes go"). The names go in the table's order, as `gpudiag run --metrics=SET`
 * sends them: CUPTI schedules passes greedily in that order, so the order is checked too.
 *
 * Exit 0 when all hold, 1 when one does not, 77 (skipped) when this CUPTI cannot initialise
 * its host API for GH100 (an older toolkit). */
#include "capture/cupti_host.h"
#include "profile/kc_metrics.h"

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

/* The passes the names of set `bits` take on `chip`, in table order; -1 with why said, -2
 * when the host API cannot start for that chip. */
static long passes_of(const char *chip, unsigned bits, int *count, char *why, size_t n)
{
	const char *names[GD_KC_COUNT];
	size_t k = 0, size = 0, passes = 0;
	uint8_t *img = NULL;
	CUptiResult r;
	CUpti_Profiler_Host_Object *h;
	for (int m = 0; m < GD_KC_COUNT; m++)
		if (gd_kc_metrics[m].sets & bits)
			names[k++] = gd_kc_metrics[m].cupti;
	*count = (int)k;
	if (!(h = gd_cupti_host_new(chip, NULL, &r))) {
		snprintf(why, n, "cuptiProfilerHostInitialize(%s): %s", chip, cupti_text(r));
		return -2;
	}
	if ((r = gd_cupti_host_add(h, names, k)) != CUPTI_SUCCESS) {
		/* one at a time, each in a host object of its own, to name the one the chip refuses */
		snprintf(why, n, "the chip refuses the set: %s", cupti_text(r));
		for (size_t i = 0; i < k; i++) {
			CUpti_Profiler_Host_Object *one = gd_cupti_host_new(chip, NULL, &r);
			int refused = one && gd_cupti_host_add(one, &names[i], 1) != CUPTI_SUCCESS;
			gd_cupti_host_free(one);
			if (refused) {
				snprintf(why, n, "%s refuses %s", chip, names[i]);
				break;
			}
		}
		gd_cupti_host_free(h);
		return -1;
	}
	r = gd_cupti_host_config(h, &img, &size, &passes);
	gd_cupti_host_free(h);
	free(img);
	if (r != CUPTI_SUCCESS) {
		snprintf(why, n, "the configuration image or its pass count: %s", cupti_text(r));
		return -1;
	}
	return (long)passes;
}

int main(void)
{
	static const struct {
		const char *set;
		long passes;
	} want[] = {{"default", 10}, {"basic", 9}, {"full", 17}};
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
