/* The HTML report: one self-contained page (inline CSS and SVG, no script, no network, a
 * Content-Security-Policy that forbids any load) built from sections (html.h says how to add
 * one): the run at a glance and the verdict, the timeline (html_timeline.c), the kernels, the
 * host's API, NVTX, stream and thread tables, the per-kernel counters and the roofline
 * (html_kcounters.c), NVML. Every string from the profile goes through gd_html_esc: kernel
 * names contain <, >, & and quotes, and a hostile name must stay text. The sections read the
 * analysis and compute none of it (docs/architecture-design.md); docs/html-report.md describes the
 * page. */
#include "render/html.h"
#include "render/report.h"

#include "analysis/analysis.h"
#include "core/fileio.h"
#include "core/out.h"
#include "core/status.h"
#include "core/svg.h"
#include "gpu/nvml.h"
#include "profile/pm_metrics.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define esc gd_html_esc
#define TOP_ROWS 20 /* rows of the kernel table */
#define TOP_HOST 12 /* rows of the API, NVTX, stream and thread tables */

static double frac(double a, double b) { return b > 0 ? a / b : NAN; }

/* ---- helpers for sections (html.h) ---- */
void gd_html_esc(FILE *f, const char *s) { gd_xml_escape(f, s ? s : ""); }

void gd_html_table_open(FILE *f, const char *id, const char *const *heads, int n)
{
	fputs("<div class='tw'><table", f);
	if (id)
		fprintf(f, " id='%s'", id);
	fputs("><tr>", f);
	for (int i = 0; i < n; i++) {
		int num = heads[i][0] == '>';
		fputs(num ? "<th class='r'>" : "<th>", f);
		esc(f, heads[i] + num);
		fputs("</th>", f);
	}
	fputs("</tr>\n", f);
}

void gd_html_table_close(FILE *f) { fputs("</table></div>\n", f); }

static void cell(FILE *f, const char *open, const char *s)
{
	fputs(open, f);
	esc(f, s);
	fputs("</td>", f);
}

void gd_html_text(FILE *f, const char *s) { cell(f, "<td>", s); }
void gd_html_num(FILE *f, const char *s) { cell(f, "<td class='r'>", s); }
void gd_html_prose(FILE *f, const char *s) { cell(f, "<td class='p'>", s); }

void gd_html_name(FILE *f, const char *shown, const char *full)
{
	fputs("<td class='n' title='", f);
	esc(f, full && *full ? full : shown);
	fputs("'>", f);
	esc(f, shown);
	fputs("</td>", f);
}

/* Kinds: blue GEMM, purple attention, green convolution, orange elementwise, ... (Tableau 10,
 * reordered so that the kinds that usually dominate get the strongest colours). */
const char *gd_html_kind_color(int kind)
{
	static const char *const c[GD_KIND_COUNT] = {"#4c78a8", "#b279a2", "#54a24b", "#f58518", "#eeca3b",
						      "#72b7b2", "#ff9da6", "#9d755d", "#e45756", "#a0a0a0"};
	return kind >= 0 && kind < GD_KIND_COUNT ? c[kind] : c[GD_KIND_OTHER];
}

/* Copies, in their own lane: host to device navy, device to host sky blue, device-side in greens,
 * memsets dusty rose, anything else plum (no grey: grey is the kernels of no known kind). */
const char *gd_html_copy_color(int cls)
{
	static const char *const c[GD_CPY_COUNT] = {"#1b4965", "#5fa8d3", "#2d6a4f", "#95d5b2", "#c9ada7", "#6d597a"};
	return cls >= 0 && cls < GD_CPY_COUNT ? c[cls] : c[GD_CPY_OTHER];
}

/* ---- the page's style: a column up to 1480 px, sections as cards; tables never wrap a number
 * (tabular digits, right-aligned) and truncate long names (full name on hover) ---- */
static const char css[] =
	":root{--fg:#1d2330;--mut:#5b6473;--line:#e3e6ec;--bg:#f4f5f8;--card:#fff}"
	"*{box-sizing:border-box}"
	"body{margin:0;background:var(--bg);color:var(--fg);font:15px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,"
	"'Helvetica Neue',Arial,sans-serif}"
	"main{max-width:1480px;margin:0 auto;padding:8px 24px 40px}"
	"header{padding:14px 0 4px}h1{font-size:22px;margin:0 0 4px}"
	"header p{margin:3px 0;color:var(--mut);overflow-wrap:anywhere}"
	"nav{position:sticky;top:0;z-index:2;background:rgba(244,245,248,.96);border-bottom:1px solid var(--line);"
	"padding:7px max(24px,calc((100% - 1432px) / 2));font-size:14px;white-space:nowrap;overflow-x:auto}"
	"nav a{color:var(--fg);text-decoration:none;margin-right:18px}nav a:hover{text-decoration:underline}"
	"section{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:14px 20px 18px;"
	"margin:14px 0;min-width:0}"
	"h2{font-size:18px;margin:0 0 10px}h3{font-size:15px;margin:18px 0 6px}"
	"code{background:#eef0f4;padding:0 3px;border-radius:3px;overflow-wrap:anywhere}"
	".banner{background:#fff3cd;border:1px solid #e0c060;padding:.5em .8em;font-weight:600;color:var(--fg)}"
	".cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(180px,1fr));gap:10px;margin:10px 0}"
	".card{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:9px 14px}"
	".card .k{color:var(--mut);font-size:13px}.card .v{font-size:22px;font-weight:650;white-space:nowrap;"
	"font-variant-numeric:tabular-nums}.card .s{color:var(--mut);font-size:12.5px}"
	".verdict{font-size:1.1em;padding:.7em 1em;border-left:6px solid #2ca02c;background:#f3fbf3;margin:0 0 10px}"
	".verdict.warn{border-color:#e0a000;background:#fffaf0}.verdict.high{border-color:#d62728;background:#fff3f3}"
	".finding{border:1px solid var(--line);border-radius:6px;padding:.4em 1em;margin:.7em 0}"
	".finding ul{margin:.3em 0;padding-left:1.3em}"
	".sev{display:inline-block;padding:0 .5em;border-radius:3px;color:#fff;font-size:.85em}"
	".sev-high{background:#d62728}.sev-warning{background:#e0a000}.sev-info{background:#1f77b4}"
	".advice{background:#f6f8fa;padding:.4em .6em}.note{color:var(--mut);font-size:13.5px}"
	".tw{max-width:100%;overflow-x:auto}"
	"table{border-collapse:collapse;font-size:13.5px;margin:4px 0}"
	"th{text-align:left;font-weight:600;color:var(--mut);border-bottom:2px solid var(--line);padding:4px 9px;"
	"white-space:nowrap}"
	"td{border-bottom:1px solid var(--line);padding:3px 9px;white-space:nowrap;vertical-align:top}"
	"td.r,th.r{text-align:right;font-variant-numeric:tabular-nums}"
	"td.n,td.k{max-width:30ch;overflow:hidden;text-overflow:ellipsis}"
	"td.p{white-space:normal;min-width:14ch;max-width:70ch}td.p.s{max-width:20ch}"
	".pair{display:flex;flex-wrap:wrap;gap:0 40px}"
	"svg{max-width:100%;height:auto}#timeline,#iterations{display:block;width:100%;font:11px system-ui,sans-serif}"
	"#timeline .ln,#iterations .ln{font-size:12px;fill:var(--fg)}"
	".tick{fill:var(--mut);font-size:10.5px}.ys{fill:var(--mut);font-size:10px}.axt{fill:var(--mut);font-size:11px}"
	".legend{display:flex;flex-wrap:wrap;gap:4px 14px;font-size:13px;margin:6px 0 4px 12.5%}"
	".lg{white-space:nowrap}.lg i{display:inline-block;width:12px;height:10px;margin-right:5px;vertical-align:-1px}"
	".lgh{color:var(--mut);font-weight:600}"
	"footer{color:var(--mut);font-size:13px;margin-top:20px}";

/* ---- the page's head, and the run at a glance ---- */
static void page_head(FILE *f, const struct gd_analysis *a)
{
	const struct gd_profile *p = &a->p;
	fputs("<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
	      "<meta name='viewport' content='width=device-width,initial-scale=1'>"
	      "<meta http-equiv='Content-Security-Policy' content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">"
	      "<title>gpudiag report",
	      f);
	if (p->command[0]) {
		fputs(" — ", f);
		esc(f, p->command);
	}
	fprintf(f, "</title><style>%s</style></head><body>\n", css);
}

static void page_header(FILE *f, const struct gd_analysis *a)
{
	const struct gd_profile *p = &a->p;
	char ended[400];
	int failed;
	fputs("<header><h1>gpudiag report</h1>\n", f);
	if (p->label[0] || p->synthetic) {
		fputs("<p class='banner' id='sample-label'>", f);
		esc(f, p->label[0] ? p->label : "SYNTHETIC profile (generated, not recorded on a GPU)");
		fputs("</p>\n", f);
	}
	fputs("<p>", f);
	if (p->path[0]) {
		fputs("Profile <code>", f);
		esc(f, p->path);
		fputs("</code>. ", f);
	}
	if (p->command[0]) {
		fputs("Command <code>", f);
		esc(f, p->command);
		fputs("</code>. ", f);
	}
	if (p->ndev) {
		fputs("GPU ", f);
		esc(f, p->dev[0].name);
		fprintf(f, " (sm_%d%d, %d SMs)", p->dev[0].major, p->dev[0].minor, p->dev[0].sm_count);
		if (p->ndev > 1)
			fprintf(f, " and %d more", p->ndev - 1);
		if (p->driver[0]) {
			fputs(", driver ", f);
			esc(f, p->driver);
		}
		fputs(".", f);
	}
	fputs("</p>\n", f);
	failed = gd_run_exit_text(&a->run, ended, sizeof(ended));
	if (ended[0]) {
		/* the program's end first: a crash changes how every finding below reads */
		fprintf(f, "<p class='%s' id='run-exit'>", failed ? "banner" : "");
		ended[0] = (char)(ended[0] - 'a' + 'A');
		esc(f, ended);
		fputs(".</p>\n", f);
	}
	if (p->bad_rows > 0)
		fprintf(f, "<p class='banner' id='rejected-rows'>%lld rows of this profile were left out as corrupt (an end "
			   "before its start, or a time no clock gives); the figures below are of the rest.</p>\n",
			p->bad_rows);
	fputs("</header>\n", f);
}

static void card(FILE *f, const char *id, const char *key, const char *value, const char *sub, double data)
{
	fprintf(f, "<div class='card'%s%s%s", id ? " id='" : "", id ? id : "", id ? "'" : "");
	if (isfinite(data))
		fprintf(f, " data-value='%.17g'", data);
	fputs("><div class='k'>", f);
	esc(f, key);
	fputs("</div><div class='v'>", f);
	esc(f, value);
	fputs("</div><div class='s'>", f);
	esc(f, sub);
	fputs("</div></div>", f);
}

/* The figures every reader looks for first; GPU busy is the one definition (verdict.h). */
static void page_glance(FILE *f, const struct gd_analysis *a)
{
	const struct gd_summary *s = &a->s;
	const struct gd_verdicts *v = &a->v;
	const struct gd_loop_view *lv = &a->loop;
	char b[4][48], sub[160];
	long nsync = s->api_n[GD_API_SYNC] + s->api_n[GD_API_COPY_SYNC];
	fputs("<div class='cards' id='glance'>", f);
	if (s->replay_cut_ns > 0) /* --metrics: the times are without gpudiag's replays (replaycut.h) */
		snprintf(sub, sizeof(sub), "GPU active span %s; without the %s gpudiag spent replaying",
			 gd_fmt_time(b[1], 48, s->span_ns), gd_fmt_time(b[2], 48, s->replay_cut_ns));
	else
		snprintf(sub, sizeof(sub), "GPU active span %s", gd_fmt_time(b[1], 48, s->span_ns));
	card(f, "wall-time", "wall time", gd_fmt_time(b[0], 48, s->wall_ns), sub, NAN);
	snprintf(sub, sizeof(sub), "%s of the judged %s", gd_fmt_time(b[1], 48, s->busy_ns),
		 gd_fmt_time(b[2], 48, v->judged_ns));
	card(f, "gpu-busy", "GPU busy", gd_fmt_pct(b[0], 48, v->busy_fraction),
	     isfinite(v->busy_fraction) ? sub : "no trace: light mode", v->busy_fraction);
	snprintf(b[0], 48, "%ld", s->nkernels);
	snprintf(sub, sizeof(sub), "%s of kernel time", gd_fmt_time(b[1], 48, s->kernel_ns));
	card(f, "kernels", "kernels", a->p.cupti_ok ? b[0] : "unknown", a->p.cupti_ok ? sub : "not traced", NAN);
	snprintf(b[0], 48, "%ld", s->ncopies);
	snprintf(sub, sizeof(sub), "%s", gd_fmt_time(b[1], 48, s->copy_ns));
	card(f, "copies", "copies and memsets", a->p.cupti_ok ? b[0] : "unknown", a->p.cupti_ok ? sub : "not traced", NAN);
	snprintf(b[0], 48, "%ld", nsync);
	snprintf(sub, sizeof(sub), "%s in them", gd_fmt_time(b[1], 48, s->api_ns[GD_API_SYNC] + s->api_ns[GD_API_COPY_SYNC]));
	card(f, "sync-calls", "synchronising calls", a->p.have_api ? b[0] : "unknown", a->p.have_api ? sub : "API not traced",
	     NAN);
	if (lv->n > 0) {
		snprintf(b[0], 48, "%ld iterations", lv->n);
		snprintf(sub, sizeof(sub), "median %s, slowest #%ld %s", gd_fmt_time(b[1], 48, lv->median_ns), lv->slowest + 1,
			 gd_fmt_time(b[2], 48, gd_iter_ns(&lv->it[lv->slowest])));
		card(f, "main-loop", "main loop", b[0], sub, NAN);
	} else
		card(f, "main-loop", "main loop", v->loop_found ? "1 pass" : "none found",
		     v->loop_found ? "too few iterations to split" : "the whole active span is judged", NAN);
	fputs("</div>\n<p class='note' id='busy-def'><b>GPU busy</b> is the share of the judged span in which a kernel, "
	      "copy or memset ran on the GPU (the union of their intervals). The judged span is the GPU active span less "
	      "the idle gaps of start-up, first launches and tear-down: the time the program was issuing work. It is the "
	      "figure of the terminal report and of <code>gpu_busy_fraction</code> in JSON, and 1 − it is the idle share "
	      "the idle check judges.</p>\n",
	      f);
}

/* ---- the verdict ---- */
static void page_finding(FILE *f, const struct gd_finding *fi)
{
	char b[48];
	fprintf(f, "<div class='finding' id='finding-%s'><p><span class='sev sev-%s'>%s</span> <b>", fi->id,
		gd_sev_name(fi->severity), gd_sev_name(fi->severity));
	esc(f, fi->title);
	fputs("</b> ", f);
	esc(f, fi->guide);
	if (isfinite(fi->share))
		fprintf(f, " — at stake: %s of %s", gd_fmt_pct(b, 48, fi->share), gd_stake_base(fi->rule));
	if (fi->basis == GD_BASIS_NAMES)
		fputs(" <span class='basis'>(from kernel names, not measured)</span>", f);
	fputs("</p><p>", f);
	esc(f, fi->headline);
	fputs("</p><ul>", f);
	for (int e = 0; e < fi->nev; e++) {
		fputs("<li>", f);
		esc(f, fi->ev[e].text);
		fputs("</li>", f);
	}
	fputs("</ul><p class='advice'>", f);
	esc(f, fi->advice);
	fputs("</p></div>\n", f);
}

static void sec_verdict(FILE *f, const struct gd_analysis *a)
{
	const struct gd_verdicts *v = &a->v;
	const struct gd_finding *top = &v->f[v->order[0]];
	static const char *const heads[] = {"check", "state", "why"};
	fprintf(f, "<p class='verdict%s' id='verdict'>", !v->nwarn ? "" : top->severity == GD_SEV_HIGH ? " high" : " warn");
	esc(f, v->top_line); /* the top headline, or "No problem found…" and why (verdict.h) */
	fputs("</p>\n", f);
	for (int i = 0; i < GD_R_COUNT; i++)
		if (v->f[v->order[i]].state == GD_FIRED)
			page_finding(f, &v->f[v->order[i]]);
	fputs("<h3>Not fired</h3>\n", f);
	gd_html_table_open(f, "not-fired", heads, 3);
	for (int i = 0; i < GD_R_COUNT; i++) {
		const struct gd_finding *fi = &v->f[v->order[i]];
		if (fi->state == GD_FIRED || fi->state == GD_NOT_APPLICABLE)
			continue;
		fputs("<tr>", f);
		gd_html_text(f, fi->title);
		gd_html_text(f, gd_state_name(fi->state));
		gd_html_prose(f, fi->headline);
		fputs("</tr>\n", f);
	}
	gd_html_table_close(f);
}

/* ---- kernels ---- */
/* The measured columns of the kernels' counter table (pm_metrics.h), shown when some kernel of
 * the table carries the quantity. */
static const int table_pm[] = {GD_PM_SM_ACTIVE, GD_PM_SM_ISSUE, GD_PM_TENSOR, GD_PM_DRAM, GD_PM_L2, GD_PM_WARPS_ACTIVE};
#define NTABLE_PM ((int)(sizeof(table_pm) / sizeof(table_pm[0])))

static int pm_columns(const struct gd_summary *s, int *cols)
{
	int n = 0;
	for (int c = 0; c < NTABLE_PM; c++) {
		int has = 0;
		for (int i = 0; i < s->nks && i < TOP_ROWS && !has; i++)
			has = s->ks[i].pm_samples > 0 && isfinite(s->ks[i].pm[table_pm[c]]);
		if (has)
			cols[n++] = table_pm[c];
	}
	return n;
}

static void kernel_table(FILE *f, const struct gd_summary *s)
{
	static const char *const heads[] = {"kernel", "kind / library", ">total", ">count", ">mean", ">% kernel time",
					    ">occupancy", "limiter", ">grid × block"};
	char b[3][48], lim[96];
	gd_html_table_open(f, "top-kernels", heads, 9);
	for (int i = 0; i < s->nks && i < TOP_ROWS; i++) {
		const struct gd_kstat *k = &s->ks[i];
		char cnt[32], gb[48], occ[32], kl[96];
		snprintf(cnt, sizeof(cnt), "%ld", k->count);
		snprintf(gb, sizeof(gb), "%lld × %d", k->grid_blocks, k->block_threads);
		snprintf(occ, sizeof(occ), k->occ_ok ? "%.0f %%" : "unknown", 100 * k->occ.occupancy);
		snprintf(kl, sizeof(kl), "%s / %s", gd_kind_name(k->kind), gd_lib_name(k->lib));
		fputs("<tr>", f);
		gd_html_name(f, k->short_name, k->full);
		gd_html_text(f, kl);
		gd_html_num(f, gd_fmt_time(b[0], 48, k->total_ns));
		gd_html_num(f, cnt);
		gd_html_num(f, gd_fmt_time(b[1], 48, k->total_ns / k->count));
		gd_html_num(f, gd_fmt_pct(b[2], 48, frac(k->total_ns, s->kernel_ns)));
		gd_html_num(f, occ);
		cell(f, "<td class='p s'>", k->occ_ok ? gd_occ_limiters_str(k->occ.limiters, lim, sizeof(lim)) : "-");
		gd_html_num(f, gb);
		fputs("</tr>\n", f);
	}
	gd_html_table_close(f);
	if (s->nks > TOP_ROWS)
		fprintf(f, "<p class='note'>and %d more kernels (<code>--json</code> or <code>--format csv</code> lists them "
			   "all)</p>\n",
			s->nks - TOP_ROWS);
	fputs("<p class='note'>% kernel time: of the summed time of every kernel. Occupancy is theoretical, from the launch "
	      "configuration and the recorded device properties. Hover a name for the full one.</p>\n",
	      f);
}

/* The GPU counters of the same kernels (issue 18), as a table of their own so that both fit. */
static void kernel_counter_table(FILE *f, const struct gd_profile *p, const struct gd_summary *s)
{
	int pm[NTABLE_PM], npm = pm_columns(s, pm);
	char iv[48];
	if (!npm)
		return;
	fputs("<h3>Top kernels: GPU counters</h3>\n<div class='tw'><table id='top-kernels-counters'><tr><th>kernel</th>"
	      "<th class='r pm'>samples</th>",
	      f);
	for (int c = 0; c < npm; c++) {
		fputs("<th class='pm'>", f);
		esc(f, gd_pm_metrics[pm[c]].label);
		fputs("</th>", f);
	}
	fputs("</tr>\n", f);
	for (int i = 0; i < s->nks && i < TOP_ROWS; i++) {
		const struct gd_kstat *k = &s->ks[i];
		char cnt[32];
		fputs("<tr>", f);
		gd_html_name(f, k->short_name, k->full);
		snprintf(cnt, sizeof(cnt), "%ld", k->pm_samples);
		gd_html_num(f, k->pm_samples > 0 ? cnt : "-");
		for (int c = 0; c < npm; c++) {
			char v[48];
			if (k->pm_samples <= 0)
				snprintf(v, sizeof(v), "-");
			else if (!isfinite(k->pm[pm[c]]))
				snprintf(v, sizeof(v), "unknown");
			else if (pm[c] == GD_PM_DRAM && isfinite(k->pm_dram_bps)) {
				char r[24];
				snprintf(v, sizeof(v), "%.0f %% · %s", k->pm[pm[c]], gd_fmt_si(r, sizeof(r), k->pm_dram_bps, "B/s"));
			} else
				snprintf(v, sizeof(v), "%.0f %%", k->pm[pm[c]]); /* every table quantity is a % */
			gd_html_num(f, v);
		}
		fputs("</tr>\n", f);
	}
	gd_html_table_close(f);
	fprintf(f, "<p class='note' id='pm-columns'>The mean of the %s%sPM samples in which the kernel ran alone (%.0f %% of "
		   "a sample, at least %d samples), in %% of each unit's peak; '-' = the kernel was too short or always ran "
		   "beside another.</p>\n",
		p->pm_interval_ns > 0 ? gd_fmt_interval(iv, sizeof(iv), p->pm_interval_ns) : "",
		p->pm_interval_ns > 0 ? " " : "", 100 * GD_PM_ATTRIB_COVER, GD_PM_ATTRIB_MIN);
}

/* Kernel time by kind (name = gd_kind_name) or by library (gd_lib_name). */
static void breakdown(FILE *f, const char *id, const char *what, const struct gd_summary *s, int count,
		      const double *ns, const long *n, const char *(*name)(int))
{
	const char *heads[] = {what, ">time", ">kernels", ">% kernel time"};
	char b[2][48];
	gd_html_table_open(f, id, heads, 4);
	for (int k = 0; k < count; k++) {
		char cnt[32];
		if (!n[k])
			continue;
		snprintf(cnt, sizeof(cnt), "%ld", n[k]);
		fputs("<tr>", f);
		gd_html_text(f, name(k));
		gd_html_num(f, gd_fmt_time(b[0], 48, ns[k]));
		gd_html_num(f, cnt);
		gd_html_num(f, gd_fmt_pct(b[1], 48, frac(ns[k], s->kernel_ns)));
		fputs("</tr>\n", f);
	}
	gd_html_table_close(f);
}

static void copies(FILE *f, const struct gd_summary *s)
{
	static const char *const heads[] = {"kind", ">count", ">bytes", ">time", ">bandwidth", ">pageable"};
	char b[3][48];
	fputs("<h3>Copies and memsets</h3>\n", f);
	gd_html_table_open(f, "copies", heads, 6);
	for (int k = 0; k < GD_CPY_COUNT; k++) {
		const struct gd_copystat *c = &s->cp[k];
		char cnt[32], pg[32];
		if (!c->count)
			continue;
		snprintf(cnt, sizeof(cnt), "%ld", c->count);
		snprintf(pg, sizeof(pg), "%ld", c->pageable_count);
		fputs("<tr>", f);
		gd_html_text(f, gd_copy_class_name(k));
		gd_html_num(f, cnt);
		gd_html_num(f, gd_fmt_bytes(b[0], 48, c->bytes));
		gd_html_num(f, gd_fmt_time(b[1], 48, c->ns));
		gd_html_num(f, gd_fmt_si(b[2], 48, c->ns > 0 ? c->bytes / (c->ns * 1e-9) : NAN, "B/s"));
		gd_html_num(f, k == GD_CPY_MEMSET ? "-" : pg);
		fputs("</tr>\n", f);
	}
	gd_html_table_close(f);
	fputs("<p class='note'>Bandwidth = bytes / summed copy time; pageable: copies from or to pageable host "
	      "memory.</p>\n",
	      f);
}

static int has_kernels(const struct gd_analysis *a) { return a->s.nks > 0 || a->s.ncopies > 0; }

static void sec_kernels(FILE *f, const struct gd_analysis *a)
{
	const struct gd_summary *s = &a->s;
	if (s->nks) {
		kernel_table(f, s);
		kernel_counter_table(f, &a->p, s);
		fputs("<h3>By kind and library</h3>\n<div class='pair'>", f);
		breakdown(f, "by-kind", "kind", s, GD_KIND_COUNT, s->kind_ns, s->kind_n, gd_kind_name);
		breakdown(f, "by-library", "library", s, GD_LIB_COUNT, s->lib_ns, s->lib_n, gd_lib_name);
		fputs("</div>\n", f);
	}
	if (s->ncopies)
		copies(f, s);
}

/* ---- the host: API calls, NVTX ranges, streams, threads (analysis/tables.h) ---- */
static const char *pname(const struct gd_profile *p, int id, const char *none)
{
	return id >= 0 && id < p->nnames && p->names[id] ? p->names[id] : none;
}

static void more(FILE *f, long n, const char *what)
{
	if (n > TOP_HOST)
		fprintf(f, "<p class='note'>and %ld more %s (<code>--json</code> or <code>--format csv</code> lists them "
			   "all)</p>\n",
			n - TOP_HOST, what);
}

static void api_table(FILE *f, const struct gd_profile *p, const struct gd_stat_tables *t)
{
	static const char *const heads[] = {"function", ">calls", ">total", ">mean", ">min", ">max", ">% API time"};
	char b[5][48];
	fprintf(f, "<h3>API calls</h3>\n<p class='note'>By name; %% of the summed time of every traced call (%s).</p>\n",
		gd_fmt_time(b[0], 48, t->api_ns));
	gd_html_table_open(f, "api-calls", heads, 7);
	for (long i = 0; i < t->napi && i < TOP_HOST; i++) {
		const struct gd_api_row *r = &t->api[i];
		char cnt[32];
		snprintf(cnt, sizeof(cnt), "%ld", r->count);
		fputs("<tr>", f);
		gd_html_name(f, pname(p, r->name, "(unnamed)"), NULL);
		gd_html_num(f, cnt);
		gd_html_num(f, gd_fmt_time(b[0], 48, r->total_ns));
		gd_html_num(f, gd_fmt_time(b[1], 48, r->mean_ns));
		gd_html_num(f, gd_fmt_time(b[2], 48, r->min_ns));
		gd_html_num(f, gd_fmt_time(b[3], 48, r->max_ns));
		gd_html_num(f, gd_fmt_pct(b[4], 48, r->fraction));
		fputs("</tr>\n", f);
	}
	gd_html_table_close(f);
	more(f, t->napi, "functions");
}

static void nvtx_table(FILE *f, const struct gd_profile *p, const struct gd_stat_tables *t)
{
	static const char *const heads[] = {"range", ">count", ">total", ">mean", ">max", ">GPU ops", ">kernel time",
					    ">GPU projected"};
	char b[6][48];
	long open = 0;
	fputs("<h3>NVTX ranges</h3>\n<p class='note'>By name; GPU: the kernels, copies and memsets launched inside the "
	      "range on its thread, their kernel time, and their projected GPU time (first start to last end).</p>\n",
	      f);
	gd_html_table_open(f, "nvtx-ranges", heads, 8);
	for (long i = 0; i < t->nnvtx; i++)
		open += t->nvtx[i].open;
	for (long i = 0; i < t->nnvtx && i < TOP_HOST; i++) {
		const struct gd_nvtx_row *r = &t->nvtx[i];
		char cnt[32], ops[32], name[512];
		if (r->domain >= 0)
			snprintf(name, sizeof(name), "%s:%s", pname(p, r->domain, ""), pname(p, r->name, "(unnamed)"));
		else
			snprintf(name, sizeof(name), "%s", pname(p, r->name, "(unnamed)"));
		snprintf(cnt, sizeof(cnt), "%ld", r->count);
		snprintf(ops, sizeof(ops), "%ld", r->gpu_ops);
		fputs("<tr>", f);
		gd_html_name(f, name, NULL);
		gd_html_num(f, cnt);
		gd_html_num(f, gd_fmt_time(b[0], 48, r->total_ns));
		gd_html_num(f, gd_fmt_time(b[1], 48, r->mean_ns));
		gd_html_num(f, gd_fmt_time(b[2], 48, r->max_ns));
		gd_html_num(f, ops);
		gd_html_num(f, r->kernels ? gd_fmt_time(b[3], 48, r->kernel_ns) : "-");
		gd_html_num(f, r->gpu_ops ? gd_fmt_time(b[4], 48, r->gpu_proj_ns) : "-");
		fputs("</tr>\n", f);
	}
	gd_html_table_close(f);
	more(f, t->nnvtx, "ranges");
	if (open || t->nvtx_marks)
		fprintf(f, "<p class='note'>%ld range%s never closed (not in the durations), %ld mark%s.</p>\n", open,
			open == 1 ? "" : "s", t->nvtx_marks, t->nvtx_marks == 1 ? "" : "s");
}

static void stream_table(FILE *f, const struct gd_stat_tables *t)
{
	static const char *const heads[] = {">GPU",    ">pid",   ">stream",    "kind", ">kernels",
					    ">kernel time", ">copies", ">copy time", ">busy"};
	char b[3][48];
	fputs("<h3>Streams</h3>\n<p class='note'>Busy: the union of the stream's kernel, copy and memset "
	      "intervals.</p>\n",
	      f);
	gd_html_table_open(f, "streams", heads, 9);
	for (long i = 0; i < t->nstreams && i < TOP_HOST; i++) {
		const struct gd_stream_row *r = &t->streams[i];
		char dev[16], pid[16], st[32], nk[32], nc[32];
		snprintf(dev, sizeof(dev), "%d", r->device);
		snprintf(pid, sizeof(pid), "%d", r->pid);
		snprintf(st, sizeof(st), "%lld", (long long)r->stream);
		snprintf(nk, sizeof(nk), "%ld", r->kernels);
		snprintf(nc, sizeof(nc), "%ld", r->copies);
		fputs("<tr>", f);
		gd_html_num(f, dev);
		gd_html_num(f, pid);
		gd_html_num(f, st);
		gd_html_text(f, r->legacy ? "legacy default" : r->nonblocking ? "non-blocking" : "blocking");
		gd_html_num(f, nk);
		gd_html_num(f, r->kernels ? gd_fmt_time(b[0], 48, r->kernel_ns) : "-");
		gd_html_num(f, nc);
		gd_html_num(f, r->copies ? gd_fmt_time(b[1], 48, r->copy_ns) : "-");
		gd_html_num(f, gd_fmt_time(b[2], 48, r->busy_ns));
		fputs("</tr>\n", f);
	}
	gd_html_table_close(f);
	more(f, t->nstreams, "streams");
}

static void thread_table(FILE *f, const struct gd_stat_tables *t)
{
	static const char *const heads[] = {">pid",     ">thread",        ">API calls", ">API time",
					    ">launches", ">synchronising", ">sync time", ">NVTX ranges"};
	char b[2][48];
	fputs("<h3>Threads</h3>\n<p class='note'>Host threads that made CUDA calls; synchronising: explicit "
	      "synchronisation and synchronous copies.</p>\n",
	      f);
	gd_html_table_open(f, "threads", heads, 8);
	for (long i = 0; i < t->nthreads && i < TOP_HOST; i++) {
		const struct gd_thread_row *r = &t->threads[i];
		char c[6][32];
		snprintf(c[0], 32, "%d", r->pid);
		snprintf(c[1], 32, "%lld", r->tid);
		snprintf(c[2], 32, "%ld", r->api_calls);
		snprintf(c[3], 32, "%ld", r->launches);
		snprintf(c[4], 32, "%ld", r->syncs);
		snprintf(c[5], 32, "%ld", r->nvtx_ranges);
		fputs("<tr>", f);
		gd_html_num(f, c[0]);
		gd_html_num(f, c[1]);
		gd_html_num(f, c[2]);
		gd_html_num(f, gd_fmt_time(b[0], 48, r->api_ns));
		gd_html_num(f, c[3]);
		gd_html_num(f, c[4]);
		gd_html_num(f, gd_fmt_time(b[1], 48, r->sync_ns));
		gd_html_num(f, c[5]);
		fputs("</tr>\n", f);
	}
	gd_html_table_close(f);
	more(f, t->nthreads, "threads");
}

static int has_host(const struct gd_analysis *a)
{
	return (a->p.have_api && (a->t.napi || a->t.nthreads)) || a->t.nnvtx || a->t.nstreams;
}

static void sec_host(FILE *f, const struct gd_analysis *a)
{
	const struct gd_profile *p = &a->p;
	const struct gd_stat_tables *t = &a->t;
	if (p->have_api && t->napi)
		api_table(f, p, t);
	if (t->nnvtx)
		nvtx_table(f, p, t);
	if (t->nstreams)
		stream_table(f, t);
	if (p->have_api && t->nthreads)
		thread_table(f, t);
}

/* ---- NVML ---- */
static void nvml_row(FILE *f, const char *what, const struct gd_range *r, const char *unit, double scale)
{
	char b[3][48];
	fputs("<tr>", f);
	gd_html_text(f, what);
	for (int i = 0; i < 3; i++) {
		double v = (i == 0 ? r->min : i == 1 ? r->mean : r->max) * scale;
		if (!strcmp(unit, "bytes"))
			gd_fmt_bytes(b[i], 48, v);
		else if (isfinite(v))
			snprintf(b[i], 48, "%.0f %s", v, unit);
		else
			snprintf(b[i], 48, "unknown");
		gd_html_num(f, b[i]);
	}
	fputs("</tr>\n", f);
}

static void sec_nvml(FILE *f, const struct gd_analysis *a)
{
	const struct gd_profile *p = &a->p;
	const struct gd_summary *s = &a->s;
	static const char *const heads[] = {"quantity", ">min", ">mean", ">max"};
	char rs[256], b[48];
	if (!p->ns) {
		fputs("<p>No NVML samples in this profile.</p>\n", f);
		return;
	}
	fprintf(f, "<p class='note'>%ld samples taken beside the run by <code>gpudiag run</code>'s parent process, every "
		   "device; over time they are the NVML lanes of the timeline. NVML's utilisation counts kernels only, "
		   "averaged over its own sample period: it is not GPU busy (<a href='#nvml-vs-busy'>why</a>).</p>\n",
		p->ns);
	gd_html_table_open(f, "nvml", heads, 4);
	nvml_row(f, "utilisation (NVML)", &s->util, "%", 1);
	nvml_row(f, "SM clock", &s->sm_mhz, "MHz", 1);
	nvml_row(f, "power", &s->power, "W", 1);
	nvml_row(f, "temperature", &s->temp, "°C", 1);
	nvml_row(f, "memory used", &s->mem_used, "bytes", 1);
	gd_html_table_close(f);
	fprintf(f, "<p id='nvml-reasons'>Memory: %s of device memory. Clock-event reasons seen: ",
		gd_fmt_bytes(b, sizeof(b), s->mem_total));
	esc(f, gd_clock_reasons_str(s->reasons_seen, rs, sizeof(rs)));
	fprintf(f, " (%ld throttled samples).</p>\n", s->throttled_samples);
}

/* ---- the page ---- */
struct section {
	const char *id, *title;
	gd_html_section_fn *write;
	int (*shown)(const struct gd_analysis *a); /* NULL: always */
	int own_heading; /* the function writes its <h2> itself */
};

static int has_framework(const struct gd_analysis *a) { return a->fw.present; }

static const struct section sections[] = {
	{"sec-verdict", "Verdict", sec_verdict, NULL, 0},
	{"sec-timeline", "Timeline", gd_html_timeline, NULL, 0},
	{"sec-ranks", "Ranks", gd_html_ranks, gd_html_has_ranks, 0}, /* issue 22, html_ranks.c */
	{"sec-kernels", "Kernels", sec_kernels, has_kernels, 0},
	{"sec-framework", "Framework", gd_html_framework, has_framework, 1}, /* issue 21, html_framework.c */
	{"sec-host", "Host: API, NVTX, streams, threads", sec_host, has_host, 0},
	{"sec-kernel-counters", "Kernel counters", gd_html_kcounters, gd_html_has_kcounters, 0},
	{"sec-roofline", "Roofline", gd_html_roofline, NULL, 0},
	{"sec-nvml", "NVML", sec_nvml, NULL, 0},
};
#define NSECTIONS ((int)(sizeof(sections) / sizeof(sections[0])))

void gd_report_html_write(const struct gd_analysis *a, FILE *f)
{
	page_head(f, a);
	fputs("<nav id='contents'>", f);
	for (int i = 0; i < NSECTIONS; i++)
		if (!sections[i].shown || sections[i].shown(a))
			fprintf(f, "<a href='#%s'>%s</a>", sections[i].id, sections[i].title);
	fputs("</nav>\n<main>\n", f);
	page_header(f, a);
	page_glance(f, a);
	for (int i = 0; i < NSECTIONS; i++) {
		if (sections[i].shown && !sections[i].shown(a))
			continue;
		fprintf(f, "<section id='%s'>\n", sections[i].id);
		if (!sections[i].own_heading)
			fprintf(f, "<h2>%s</h2>\n", sections[i].title);
		sections[i].write(f, a);
		fputs("</section>\n", f);
	}
	fprintf(f, "<footer>Written by gpudiag %s. Self-contained: no script, no network.</footer>\n</main>\n</body></html>\n",
		GPUDIAG_VERSION);
}

int gd_report_html(const struct gd_analysis *a, const char *path)
{
	struct gd_atomic at;
	FILE *f = gd_atomic_open(&at, path);
	if (!f)
		return GD_EFAIL;
	gd_report_html_write(a, f);
	return gd_atomic_commit(&at);
}
