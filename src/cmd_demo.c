/* gpudiag __demo (hidden): the embedded demo workload, run by `gpudiag run` with no command
 * under the profiler; and the no-GPU fallback that shows the shipped sample profile. */
#include "commands.h"
#include "core/cli.h"
#include "core/paths.h"
#include "core/status.h"
#include "gpu/cudrv.h"
#include "kernels/demo.h"
#include "render/report.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char cmd___demo_usage[] =
	"usage: gpudiag __demo [--iters N]\n"
	"\n"
	"The built-in demo workload that 'gpudiag run' (with no command) profiles: a half that commits the\n"
	"guide's classic mistakes (tiny launches in a loop, pageable copies, default-stream serialisation,\n"
	"an uncoalesced kernel, a synchronisation per iteration) and a half doing the same work well.\n"
	"Run it through 'gpudiag run' to see the verdicts.\n";

/* The demo workload itself; `gpudiag run` with no command execs `gpudiag __demo` under the
 * profiler, then reports the profile as usual. */
static int demo_main(int argc, char **argv)
{
	int iters = 20, npos = 0, rc;
	char *pos[1], why[512];
	struct gd_demo_times t;
	const struct gd_opt opts[] = {
		{"iters", GD_OPT_INT, &iters, "N", "iterations of each half (default 20)"},
		{NULL, 0, NULL, NULL, NULL},
	};
	rc = gd_parse_opts("__demo", argc, argv, opts, pos, 0, &npos, 0);
	if (rc != GD_OK)
		return rc;
	if ((rc = gd_opt_check_int("__demo", "iters", iters, 1, 100000, NULL)) != GD_OK)
		return rc;
	if ((rc = gd_cu_open(why, sizeof(why))) != GD_OK)
		return gd_error(rc, "__demo: %s", why);
	if (gd_demo_run(0, iters, &t, why, sizeof(why)) != 0)
		return gd_error(GD_EFAIL, "__demo: %s", why);
	printf("gpudiag demo: %d iterations; mistakes half %.1f ms, well-written half %.1f ms (host wall time); "
	       "results %s\n",
	       iters, t.bad_ms, t.good_ms, t.checked ? "correct" : "WRONG");
	return t.checked ? GD_OK : GD_ECHECK;
}

int cmd___demo(struct gd_ctx *ctx, int argc, char **argv)
{
	(void)ctx;
	return demo_main(argc, argv);
}

int gd_demo_sample(const struct gd_ctx *ctx, const char *argv0, FILE *out)
{
	char cand[PATH_MAX], where[2 * PATH_MAX];
	(void)argv0;
	/* where it is looked for: src/core/paths.h */
	if (gd_find_sample(cand, sizeof(cand)) != 0) {
		gd_sample_where(where, sizeof(where));
		return gd_error(GD_ENOGPU, "run: no GPU here, and the sample profile shipped with gpudiag was not found (%s)",
				where);
	}
	if (!ctx->json)
		fprintf(out, "No GPU here, so the demo cannot run. Showing instead a sample profile shipped with gpudiag "
			     "(%s); see its label below.\n\n",
			cand);
	return gd_report_print(cand, ctx, out);
}
