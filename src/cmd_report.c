/* gpudiag report FILE [--html OUT.html]: the verdicts and the summary of a saved profile,
 * in the terminal, as JSON (--json) or as a self-contained HTML page. No GPU needed. */
#include "commands.h"
#include "core/cli.h"
#include "core/fileio.h"
#include "core/status.h"
#include "analysis/analysis.h"
#include "render/report.h"

#include <stdio.h>

const char cmd_report_usage[] =
	"usage: gpudiag report FILE [--html OUT.html] [--json]\n"
	"\n"
	"Reads a profile written by 'gpudiag run' and prints the verdicts (the guide's checklist, §16:\n"
	"idle GPU, launch-bound, syncs in the loop, pageable copies, default-stream serialisation,\n"
	"occupancy, memory-bound kernels, tensor cores, throttling, memory pressure, communication,\n"
	"profiler limits) followed by the summary. No GPU is needed.\n"
	"\n"
	"options:\n"
	"  --html FILE   also write a self-contained HTML report (no network needed to view it)\n"
	"  --json        the verdicts and summary as JSON (keys in docs/json.md, \"report\")\n"
	"\n"
	"exit status: 0, or 5 when FILE is not a readable gpudiag profile of a known version.\n";

int cmd_report(struct gd_ctx *ctx, int argc, char **argv)
{
	const char *html = NULL;
	char *pos[2], why[1200];
	int npos = 0, rc;
	struct gd_analysis a;
	const struct gd_render_opts ro = {.json = ctx->json};
	const struct gd_opt opts[] = {
		{"html", GD_OPT_STR, &html, "FILE", "write a self-contained HTML report"},
		{NULL, 0, NULL, NULL, NULL},
	};
	rc = gd_parse_opts("report", argc, argv, opts, pos, 2, &npos, 0);
	if (rc == GD_OK)
		rc = gd_no_device(ctx, "report");
	if (rc != GD_OK)
		return rc;
	if (npos != 1)
		return gd_error(GD_EUSAGE, "report: expected one profile file (see 'gpudiag help report')");
	if (html && gd_same_file(html, pos[0]))
		return gd_error(GD_EUSAGE, "report: the output '%s' is the input profile; name another file", html);

	/* analysed once; the terminal (or JSON) report and the page are two views of it */
	rc = gd_analysis_load(pos[0], &a, why, sizeof(why));
	if (rc != GD_OK)
		return gd_error(rc, "report: %s", why);
	gd_report_render(&a, &ro, stdout);
	if (html) {
		rc = gd_report_html(&a, html);
		if (rc == GD_OK && !ctx->json)
			printf("\nHTML report written to %s\n", html);
	}
	gd_analysis_free(&a);
	return rc;
}
