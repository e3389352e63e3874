/* The HTML page's framework section (issue 21): the top PyTorch ops, the nn.Module tree as
 * nested <details> (no script: the page's Content-Security-Policy allows none) with a bar of each
 * module's total GPU time, and torch.compile's fused kernels. It reads the analysis's framework
 * view (analysis/framework.h) and computes none of it; html.c calls it once. Every string from
 * the profile goes through gd_xml_escape. */
#include "render/report.h"

#include "analysis/analysis.h"
#include "core/out.h"
#include "core/svg.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define esc gd_xml_escape
#define TOP_OPS 15
#define TOP_FUSED 15
/* A model of a few thousand modules is shown whole; beyond this the page says how many are left
 * out (the JSON and CSV have every row). */
#define MAX_TREE_NODES 3000
#define BAR_PX 240

static const char fw_css[] =
	"<style>.fwt{font-size:.92em}.fwt details>summary{cursor:pointer;list-style-position:outside}"
	".fwt details details,.fwt details .fwleaf{margin-left:1.4em}.fwt .fwleaf{padding-left:1.1em}"
	".fwbar{display:inline-block;height:.75em;background:#4c78a8;vertical-align:middle;margin-right:.4em}"
	".fwbar.bwd{background:#f58518}.fwt .cls{color:#666}.fwt .num{color:#444}</style>\n";

static double frac(double a, double b) { return b > 0 ? a / b : NAN; }

static void td(FILE *f, const char *s, int right)
{
	fputs(right ? "<td class='r'>" : "<td>", f);
	esc(f, s);
	fputs("</td>", f);
}

static void ops_table(const struct gd_framework *fw, FILE *f)
{
	char cell[GD_REPORT_FW_OP_COLS][GD_REPORT_FW_CELL];
	fputs("<h3>Top ops</h3><p class='note'>By self time: the kernels the op launched itself; total: with the "
	      "ops it called (torch.profiler's self and total device time).</p>\n<table><tr>",
	      f);
	for (int c = 0; c < GD_REPORT_FW_OP_COLS; c++)
		fprintf(f, "<th>%s</th>", gd_report_fw_op_head[c]);
	fputs("</tr>\n", f);
	for (long i = 0; i < fw->nops && i < TOP_OPS; i++) {
		gd_report_fw_op_row(fw, &fw->ops[i], cell);
		fputs("<tr><td><code>", f);
		esc(f, cell[0]);
		fputs("</code></td>", f);
		for (int c = 1; c < GD_REPORT_FW_OP_COLS; c++)
			td(f, cell[c], c < GD_REPORT_FW_OP_COLS - 1);
		fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);
	if (fw->nops > TOP_OPS)
		fprintf(f, "<p class='note'>and %ld more ops (gpudiag report --format csv --table ops lists every one)</p>\n",
			fw->nops - TOP_OPS);
}

/* One module's line: a bar of its total (forward, then backward), its path below its parent's
 * ("layers.0" under the root when the ModuleList "layers" has no forward of its own), its class,
 * the figures. */
static void tree_label(const struct gd_framework *fw, const struct gd_fw_module *m, double scale, FILE *f)
{
	char b[6][48];
	const char *rel = m->path;
	double kernel_ns = fw->kernel_ns;
	if (m->parent >= 0 && fw->modules[m->parent].path[0])
		rel += strlen(fw->modules[m->parent].path) + 1; /* the parent's path is a dotted prefix */
	int fw_px = (int)lround(m->fwd_ns * scale), bw_px = (int)lround(m->bwd_ns * scale);
	if (fw_px > 0)
		fprintf(f, "<span class='fwbar' style='width:%dpx'></span>", fw_px);
	if (bw_px > 0)
		fprintf(f, "<span class='fwbar bwd' style='width:%dpx'></span>", bw_px);
	fputs("<code title='", f);
	esc(f, m->path);
	/* where its sampled calls came from (--python-stack): a line each, in the title */
	for (long e = 0; e < m->nfrom; e++) {
		const struct gd_fw_loc *l = &fw->locs[m->from[e].loc];
		fputs(e ? "&#10;" : "&#10;called from:&#10;", f);
		esc(f, l->file);
		fprintf(f, ":%ld (", l->line);
		esc(f, l->func);
		fprintf(f, "), %ld sampled call%s", m->from[e].calls, m->from[e].calls == 1 ? "" : "s");
	}
	fputs("'>", f);
	if (m->none)
		fputs("(no module)", f);
	else if (!m->path[0])
		fputs("(root)", f);
	else
		esc(f, rel);
	fputs("</code>", f);
	if (m->cls) {
		fputs(" <span class='cls'>", f);
		esc(f, m->cls);
		fputs("</span>", f);
	}
	snprintf(b[5], 48, "%ld", m->calls);
	fprintf(f, " <span class='num'>— total %s (%s), self %s, %s call%s; forward %s, backward %s</span>",
		gd_fmt_time(b[0], 48, m->total_ns), gd_fmt_pct(b[1], 48, frac(m->total_ns, kernel_ns)),
		gd_fmt_time(b[2], 48, m->self_ns), b[5], m->calls == 1 ? "" : "s", gd_fmt_time(b[3], 48, m->fwd_ns),
		gd_fmt_time(b[4], 48, m->bwd_ns));
}

/* The tree in pre-order (fw->tree), each module with children a <details>, open two levels deep. */
static void module_tree(const struct gd_framework *fw, FILE *f)
{
	double top = 0, scale;
	long shown = 0;
	int open = 0;
	for (long i = 0; i < fw->ntree; i++)
		if (fw->modules[fw->tree[i]].total_ns > top)
			top = fw->modules[fw->tree[i]].total_ns;
	scale = top > 0 ? BAR_PX / top : 0;
	fputs("<h3>Module tree</h3><p class='note'>Each module's total GPU time (its kernels and its submodules', "
	      "backward kernels by the seq of the forward op that made them): the bar is forward (blue) then "
	      "backward (orange), scaled to the largest. Click a module to open it.</p>\n<div class='fwt' id='module-tree'>\n",
	      f);
	for (long i = 0; i < fw->ntree && shown < MAX_TREE_NODES; i++, shown++) {
		const struct gd_fw_module *m = &fw->modules[fw->tree[i]];
		int kids = i + 1 < fw->ntree && fw->modules[fw->tree[i + 1]].depth == m->depth + 1;
		while (open > m->depth) {
			fputs("</details>\n", f);
			open--;
		}
		if (kids && shown + 1 < MAX_TREE_NODES) {
			fprintf(f, "<details%s><summary>", m->depth < 2 ? " open" : "");
			tree_label(fw, m, scale, f);
			fputs("</summary>\n", f);
			open++;
		} else {
			fputs("<div class='fwleaf'>", f);
			tree_label(fw, m, scale, f);
			fputs("</div>\n", f);
		}
	}
	while (open-- > 0)
		fputs("</details>\n", f);
	fputs("</div>\n", f);
	if (fw->ntree > shown)
		fprintf(f, "<p class='note'>and %ld more modules (gpudiag report --format csv --table modules lists every "
			   "one)</p>\n",
			fw->ntree - shown);
}

static void fused_table(const struct gd_framework *fw, FILE *f)
{
	char b[2][48];
	fputs("<h3>Inductor kernels</h3><p class='note'>torch.compile's Triton kernels and the ops each fused, read "
	      "from its name.</p>\n<table><tr><th>kernel</th><th>kind</th><th>fused ops</th><th>count</th><th>time</th></tr>\n",
	      f);
	for (long i = 0; i < fw->nfused && i < TOP_FUSED; i++) {
		const struct gd_fw_fused *x = &fw->fused[i];
		snprintf(b[0], 48, "%ld", x->kernels);
		fputs("<tr><td><code>", f);
		esc(f, x->kernel);
		fputs("</code></td>", f);
		td(f, x->kind, 0);
		td(f, x->ops[0] ? x->ops : "(none named)", 0);
		td(f, b[0], 1);
		td(f, gd_fmt_time(b[1], 48, x->ns), 1);
		fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);
}

void gd_html_framework(FILE *f, const struct gd_analysis *a)
{
	const struct gd_framework *fw = &a->fw;
	char b[48];
	if (!fw->present)
		return;
	fputs(fw_css, f);
	fputs("<h2 id='framework'>Framework</h2>\n<p>", f);
	if (fw->mode[0]) {
		fputs("PyTorch ", f);
		esc(f, fw->torch);
		fputs(", instrumented by <code>gpudiag run --torch ", f);
		esc(f, fw->mode);
		fputs("</code>. ", f);
	}
	fprintf(f, "GPU time is the durations of the kernels each op or module launched (%s of kernel time in all; "
		   "copies and memsets not counted).</p>\n",
		gd_fmt_time(b, 48, fw->kernel_ns));
	if (fw->nops)
		ops_table(fw, f);
	if (fw->ntree)
		module_tree(fw, f);
	if (fw->nfused)
		fused_table(fw, f);
}
