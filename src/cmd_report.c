/* gpudiag report FILE [--html OUT.html]: the verdicts and the summary of a saved profile,
 * in the terminal, as JSON (--json) or as a self-contained HTML page. No GPU needed. */
#include "commands.h"
#include "core/cli.h"
#include "core/fileio.h"
#include "core/status.h"
#include "core/table.h"
#include "analysis/analysis.h"
#include "render/report.h"

#include <limits.h>
#include <stdio.h>

const char cmd_report_usage[] =
	"usage: gpudiag report FILE... [--html OUT.html] [--top N] [--format terminal|json|csv|tsv [--table NAME]]\n"
	"\n"
	"Reads a profile written by 'gpudiag run' and prints the verdicts (the guide's checklist, §16:\n"
	"idle GPU, launch-bound, syncs in the loop, pageable copies, default-stream serialisation,\n"
	"occupancy, memory-bound kernels, tensor cores, throttling, memory pressure, communication,\n"
	"profiler limits, stragglers) followed by the summary. No GPU is needed.\n"
	"\n"
	"The summary's tables: top kernels, kernels by kind and library, copies, API calls by name,\n"
	"NVTX ranges (with the GPU work launched inside each), streams and host threads. A profile of\n"
	"a PyTorch program recorded with the framework view (gpudiag run --torch) adds a FRAMEWORK\n"
	"section: the top ops and nn.Modules by GPU time (self and total, calls, kernels per call,\n"
	"forward and backward) and torch.compile's fused kernels, and the verdicts name the op and\n"
	"module behind their kernels (docs/framework-view.md). With several ranks (torchrun, mpirun)\n"
	"or NCCL kernels, the ranks (compute, communication, exposed and waiting, copies, idle per\n"
	"process and GPU) and the NCCL collectives (docs/nccl.md).\n"
	"\n"
	"Several FILEs are the profiles of one job, one per node: their clocks are put on the first\n"
	"one's by the collectives they share (each ends at nearly the same moment on every rank; the\n"
	"offset applied and its uncertainty are printed) and they are judged together as one job.\n"
	"\n"
	"options:\n"
	"  --html FILE   also write a self-contained HTML report (no network needed to view it)\n"
	"  --top N       rows of the ranked tables (kernels, API calls, NVTX ranges, streams,\n"
	"                threads, ops, modules, fused kernels, ranks, collectives); default 10 in\n"
	"                the terminal and\n"
	"                JSON (ops, modules and fused: every row in JSON), every row in CSV/TSV\n"
	"  --format F    terminal (default), json, csv or tsv; csv and tsv write the tables\n"
	"                (docs/scripting.md): summary, findings, kernels, kinds, libraries, copies,\n"
	"                api, nvtx, streams, threads, ops, modules, fused (with the framework view),\n"
	"                ranks, collectives, nodes (where the profile has several ranks or NCCL\n"
	"                kernels), each after a line '# table: NAME'\n"
	"  --table NAME  with csv/tsv: only that table, as a plain CSV file (header + rows)\n"
	"  --json        the verdicts and summary as JSON (keys in docs/json.md, \"report\");\n"
	"                the same as --format json\n"
	"\n"
	"exit status: 0, or 5 when a FILE is not a readable gpudiag profile of a known version.\n";

int cmd_report(struct gd_ctx *ctx, int argc, char **argv)
{
	const char *html = NULL, *format = NULL, *table = NULL;
	char *pos[GD_MAX_NODES + 1], why[1200];
	int npos = 0, rc, top = GD_UNSET_INT, fmt;
	struct gd_analysis a;
	struct gd_render_opts ro = {.json = ctx->json};
	const struct gd_opt opts[] = {
		{"html", GD_OPT_STR, &html, "FILE", "write a self-contained HTML report"},
		{"top", GD_OPT_INT, &top, "N", "rows of the ranked tables"},
		{"format", GD_OPT_STR, &format, "F", "terminal, json, csv or tsv"},
		{"table", GD_OPT_STR, &table, "NAME", "with csv/tsv: only this table"},
		{NULL, 0, NULL, NULL, NULL},
	};
	rc = gd_parse_opts("report", argc, argv, opts, pos, GD_MAX_NODES + 1, &npos, 0);
	if (rc == GD_OK)
		rc = gd_no_device(ctx, "report");
	if (rc == GD_OK)
		rc = gd_format_pick("report", format, ctx->json, gd_report_tables, table, &fmt);
	if (rc == GD_OK && top != GD_UNSET_INT)
		rc = gd_opt_check_int("report", "top", top, 1, INT_MAX, " (rows of each ranked table)");
	if (rc != GD_OK)
		return rc;
	ro.format = fmt;
	ro.json = fmt == GD_FMT_JSON;
	ro.table = table;
	ro.top = top == GD_UNSET_INT ? 0 : top;
	if (npos < 1)
		return gd_error(GD_EUSAGE, "report: expected a profile file (see 'gpudiag help report')");
	if (npos > GD_MAX_NODES)
		return gd_error(GD_EUSAGE, "report: %d profiles given; one job of at most %d nodes is read", npos,
				GD_MAX_NODES);
	for (int i = 0; i < npos; i++)
		if (html && gd_same_file(html, pos[i]))
			return gd_error(GD_EUSAGE, "report: the output '%s' is %s; name another file", html,
					npos > 1 ? "one of the input profiles" : "the input profile");

	/* analysed once; the terminal (or JSON) report and the page are two views of it */
	rc = gd_analysis_load_many((const char *const *)pos, npos, &a, why, sizeof(why));
	if (rc != GD_OK)
		return gd_error(rc, "report: %s", why);
	gd_report_render(&a, &ro, stdout);
	if (html) {
		rc = gd_report_html(&a, html);
		if (rc == GD_OK && fmt == GD_FMT_TERMINAL)
			printf("\nHTML report written to %s\n", html);
	}
	gd_analysis_free(&a);
	return rc;
}
