/* The HTML page's kernel-counter and roofline sections (html.h): the per-kernel counters of
 * `gpudiag run --metrics` (issue 19, analysis/kcounters.h) — the table, the skipped launches and
 * each device's roofline with its kernels as points — and, without them, the roofs of the
 * `gpudiag roofline` cache for this GPU. */
#include "render/html.h"
#include "render/report.h"

#include "analysis/analysis.h"
#include "core/out.h"
#include "core/svg.h"
#include "gpu/arch.h"
#include "profile/kc_metrics.h"
#include "roofline/ceilings.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The roofline module may not be linked into every build of this library (tests); a weak
 * reference lets the page say "no measured ceilings" then. */
extern int gd_ceilings_load(const char *uuid, const char *driver, struct gd_ceilings *c) __attribute__((weak));

#define esc gd_html_esc
#define TOP_KC 10

static void roofline(const struct gd_profile *p, FILE *f)
{
	struct gd_ceilings ce;
	if (!p->ndev || !gd_ceilings_load || gd_ceilings_load(p->dev[0].uuid, p->driver, &ce) != 0) {
		fputs("<p>No measured ceilings for this GPU in the cache (run <code>gpudiag roofline</code> on it), and this "
		      "profile holds no per-kernel counters (FLOPs, bytes): the hot kernels cannot be placed on a roofline. "
		      "Their kinds (above) tell memory-bound from compute-bound work.</p>\n",
		      f);
		return;
	}
	/* the measured roofs: bandwidth × intensity up to each compute ceiling */
	static double xs[64], ys[GD_P_COUNT + 1][64];
	struct gd_chart c;
	int n = 64, ns = 0;
	gd_chart_init(&c, "Measured roofline of this GPU (gpudiag roofline cache)", "arithmetic intensity (FLOP/byte)",
		      "FLOP/s");
	c.logx = c.logy = 1;
	for (int i = 0; i < n; i++)
		xs[i] = pow(10, -2 + 5.0 * i / (n - 1));
	const enum gd_prec show[3] = {GD_P_FP32, GD_P_BF16, GD_P_FP8};
	for (int q = 0; q < 3 && isfinite(ce.dram_read); q++) {
		double peak = isfinite(ce.tensor[show[q]]) ? ce.tensor[show[q]] : ce.cuda_core[show[q]];
		if (!isfinite(peak))
			continue;
		for (int i = 0; i < n; i++)
			ys[ns][i] = fmin(peak, ce.dram_read * xs[i]);
		gd_chart_add(&c, gd_prec_name(show[q]), xs, ys[ns], n, GD_LINE);
		ns++;
	}
	c.note = "kernels are not placed: this profile holds no per-kernel FLOP/byte counters";
	gd_chart_svg(&c, f);
}

/* ---- per-kernel counters of `gpudiag run --metrics` (issue 19, analysis/kcounters.h): the
 * table, the skipped launches, and each device's roofline with its kernels as points ---- */
static int has_kc(const struct gd_profile *p) { return p->nkl > 0 || p->metrics[0]; }

static const char *bound_name(int b) { return gd_kc_bound_name(b); }

static const char *bound_color(int b)
{
	return b == GD_KB_MEMORY ? "#1f77b4" : b == GD_KB_COMPUTE ? "#d62728" : b == GD_KB_LATENCY ? "#e0a000" : "#888";
}

static const char *kl_status(int st) { return st >= 0 && st < GD_KL_STATUS_COUNT ? gd_kl_status_names[st] : "unknown"; }

static void kc_header(const struct gd_profile *p, const struct gd_kc_view *v, FILE *f)
{
	long n[GD_KL_STATUS_COUNT] = {0};
	int first = 1;
	for (long i = 0; i < p->nkl; i++)
		if (p->kl[i].status >= 0 && p->kl[i].status < GD_KL_STATUS_COUNT)
			n[p->kl[i].status]++;
	fputs("<p id='kc-launches'>gpudiag run --metrics", f);
	if (p->metrics[0]) {
		fputc('=', f);
		esc(f, p->metrics);
	}
	fprintf(f, ": %ld launch%s profiled", v->profiled, v->profiled == 1 ? "" : "es");
	if (v->profiled > 0) {
		char how[256];
		fprintf(f, " (up to %d replay pass%s each", v->max_passes, v->max_passes == 1 ? "" : "es");
		if (gd_kc_replay_text(v, how, sizeof(how))[0])
			fprintf(f, "; %s", how); /* fixed words of kcounters.c: nothing to escape */
		fputc(')', f);
	}
	fprintf(f, ", %ld skipped", v->skipped);
	for (int st = 1; st < GD_KL_STATUS_COUNT; st++)
		if (n[st]) {
			fprintf(f, "%s%ld %s", first ? ": " : ", ", n[st], gd_kl_status_names[st]);
			first = 0;
		}
	fputs(".</p>\n", f);
	if (p->metrics_rejected[0]) {
		fputs("<p class='note' id='kc-rejected'>Metrics this GPU refused (unknown below): <code>", f);
		esc(f, p->metrics_rejected);
		fputs("</code></p>\n", f);
	}
	if (p->metrics_note[0]) {
		fputs("<p class='note' id='kc-note'>", f);
		esc(f, p->metrics_note);
		fputs("</p>\n", f);
	}
}

/* 1 when the view's kernels ran on more than one device: each row then names its GPU. */
static int kc_devices_differ(const struct gd_kc_view *v)
{
	for (int i = 1; i < v->nk; i++)
		if (v->k[i].device != v->k[0].device)
			return 1;
	return 0;
}

/* The view's columns in two tables that each fit the page: where each kernel sits on the
 * roofline (columns 1-8), then how it uses the SMs and memory (9 on). */
static void kc_table_part(const struct gd_profile *p, const struct gd_kc_view *v, const char *tid, int c0, int c1, FILE *f)
{
	static char cell[GD_REPORT_KC_COLS][GD_REPORT_KC_CELL];
	fprintf(f, "<div class='tw'><table id='%s'><tr><th>kernel</th>", tid);
	for (int c = c0; c < c1; c++) {
		fputs(gd_report_kc_what[c] ? "<th title='" : "<th>", f);
		if (gd_report_kc_what[c]) {
			esc(f, gd_report_kc_what[c]);
			fputs("'>", f);
		}
		esc(f, gd_report_kc_head[c]);
		fputs("</th>", f);
	}
	fputs("</tr>\n", f);
	for (int i = 0; i < v->nk && i < TOP_KC; i++) {
		const struct gd_kc_kernel *k = &v->k[i];
		int id = k->dname >= 0 && k->dname < p->nnames && p->names[k->dname] ? k->dname : k->name;
		gd_report_kc_row(p, k, cell);
		fputs("<tr><td class='k' title='", f);
		esc(f, id >= 0 && id < p->nnames ? p->names[id] : "");
		fputs("'>", f);
		esc(f, cell[0]);
		if (kc_devices_differ(v))
			fprintf(f, " (GPU %d)", k->device);
		fputs("</td>", f);
		for (int c = c0; c < c1; c++)
			(c != 5 && c != 7 && c != 13 ? gd_html_num : gd_html_text)(f, cell[c]);
		fputs("</tr>\n", f);
	}
	fputs("</table></div>\n", f);
}

static void kc_table(const struct gd_profile *p, const struct gd_kc_view *v, FILE *f)
{
	fputs("<h3>On the roofline</h3>\n", f);
	kc_table_part(p, v, "kernel-counters", 1, 9, f);
	fputs("<h3>Occupancy, memory access, divergence and stalls</h3>\n", f);
	kc_table_part(p, v, "kernel-counters-sm", 9, GD_REPORT_KC_COLS, f);
	if (v->nk > TOP_KC)
		fprintf(f, "<p class='note'>and %d more kernels (<code>--json</code> lists them all)</p>\n", v->nk - TOP_KC);
	fputs("<p class='note' id='kc-columns'>Medians over each kernel's profiled launches. ", f);
	for (int c = 1; c < GD_REPORT_KC_COLS; c++) {
		fputs(c > 1 ? "; <b>" : "<b>", f);
		esc(f, gd_report_kc_head[c]);
		fputs("</b> = ", f);
		esc(f, gd_report_kc_what[c]);
	}
	fputs(".</p>\n", f);
}

static void kc_skipped(const struct gd_profile *p, FILE *f)
{
	long shown = 0, left = 0;
	for (long i = 0; i < p->nkl; i++) {
		const struct gd_klaunch *l = &p->kl[i];
		int id = l->name;
		char name[128], who[48];
		if (l->status == GD_KL_OK)
			continue;
		if (shown == TOP_KC) {
			left++;
			continue;
		}
		if (!shown++)
			fputs("<h3>Skipped launches</h3><div class='tw'><table id='kc-skipped'><tr><th>kernel</th><th>launch</th>"
			      "<th>status</th><th>why</th></tr>\n",
			      f);
		if (l->kernel >= 0 && l->kernel < p->nk && p->k[l->kernel].dname > 0)
			id = p->k[l->kernel].dname;
		gd_kernel_short_name(id >= 0 && id < p->nnames && p->names[id] ? p->names[id] : "", name, sizeof(name));
		snprintf(who, sizeof(who), "#%d of pid %d", l->nth + 1, l->pid);
		fputs("<tr>", f);
		gd_html_name(f, name, name);
		gd_html_text(f, who);
		gd_html_text(f, kl_status(l->status));
		gd_html_prose(f, l->detail > 0 && l->detail < p->nnames ? p->names[l->detail] : "-");
		fputs("</tr>\n", f);
	}
	if (shown)
		fputs("</table></div>\n", f);
	if (left)
		fprintf(f, "<p class='note'>and %ld more skipped launches (<code>--json</code> lists them all)</p>\n", left);
}

int gd_html_has_kcounters(const struct gd_analysis *a) { return has_kc(&a->p); }

void gd_html_kcounters(FILE *f, const struct gd_analysis *a)
{
	const struct gd_profile *p = &a->p;
	const struct gd_summary *s = &a->s;
	kc_header(p, &s->kc, f);
	if (s->kc.nk > 0)
		kc_table(p, &s->kc, f);
	kc_skipped(p, f);
}

/* The roofline of one device: log-log, intensity (FLOP/B) against FLOP/s, the DRAM roof and
 * the compute roofs of the precisions its kernels are placed at, each kernel a point. The
 * axes span whole decades around the points and the ridges. */
struct kc_plot {
	int L, T, PW, PH;
	double xlo, xhi, ylo, yhi; /* decades */
};

static double kc_px(const struct kc_plot *pl, double x) { return pl->L + (log10(x) - pl->xlo) / (pl->xhi - pl->xlo) * pl->PW; }
static double kc_py(const struct kc_plot *pl, double y)
{
	return pl->T + pl->PH - (log10(y) - pl->ylo) / (pl->yhi - pl->ylo) * pl->PH;
}

static int kc_placed(const struct gd_kc_kernel *k)
{
	return k->launches > 0 && isfinite(k->intensity) && k->intensity > 0 && isfinite(k->flop_s) && k->flop_s > 0;
}

/* A roof: the DRAM slope up to `flops`, then flat. */
struct kc_roof {
	double flops;
	char label[64];
};

static int kc_roofs(const struct gd_kc_view *v, int d, struct kc_roof *r, int max)
{
	const struct gd_kc_ceilings *c = &v->ceil[d];
	char x[32];
	int n = 0;
	for (int q = 0; q < GD_P_COUNT; q++) {
		int used = 0;
		for (int i = 0; i < v->nk && !used; i++)
			used = v->k[i].device == d && v->k[i].prec == q && isfinite(v->k[i].ceiling);
		if (!used)
			continue;
		if (isfinite(c->tensor[q]) && c->tensor[q] > 0 && n < max) {
			r[n].flops = c->tensor[q];
			snprintf(r[n].label, sizeof(r[n].label), "%s tensor %s", gd_prec_name((enum gd_prec)q),
				 gd_fmt_si(x, sizeof(x), c->tensor[q], "FLOP/s"));
			n++;
		}
		if (isfinite(c->cuda_core[q]) && c->cuda_core[q] > 0 && n < max) {
			r[n].flops = c->cuda_core[q];
			snprintf(r[n].label, sizeof(r[n].label), "%s CUDA cores %s", gd_prec_name((enum gd_prec)q),
				 gd_fmt_si(x, sizeof(x), c->cuda_core[q], "FLOP/s"));
			n++;
		}
	}
	return n;
}

/* A decade's tick label: 0.01, 0.1, 1, 10, 100, 1k ... for x; 1 G, 10 G ... for y. */
static void kc_tick(char *b, size_t n, int e, int si)
{
	static const char *const pre[] = {"", "k", "M", "G", "T", "P", "E"};
	if (si && e >= 0 && e < 21)
		snprintf(b, n, "%.0f %s", pow(10, e % 3), pre[e / 3]);
	else if (e >= 0 && e < 4)
		snprintf(b, n, "%.0f", pow(10, e));
	else if (e >= 4 && e < 21)
		snprintf(b, n, "%.0f%s", pow(10, e % 3), pre[e / 3]);
	else if (e < 0 && e > -7)
		snprintf(b, n, "%.*f", -e, pow(10, e));
	else
		snprintf(b, n, "1e%d", e);
}

static void kc_roofline_svg(const struct gd_profile *p, const struct gd_kc_view *v, int d, FILE *f)
{
	const struct gd_kc_ceilings *c = &v->ceil[d];
	struct kc_roof roof[2 * GD_P_COUNT];
	int nr = kc_roofs(v, d, roof, 2 * GD_P_COUNT), npts = 0;
	double bw = c->dram_bps, xmin = INFINITY, xmax = -INFINITY, ymin = INFINITY, ymax = -INFINITY;
	struct kc_plot pl = {.L = 90, .T = 34, .PW = 780, .PH = 380};
	const int W = 900, H = pl.T + pl.PH + 90;
	char b[96], t[96];
	for (int i = 0; i < v->nk; i++) {
		const struct gd_kc_kernel *k = &v->k[i];
		if (k->device != d || !kc_placed(k))
			continue;
		xmin = fmin(xmin, k->intensity), xmax = fmax(xmax, k->intensity);
		ymin = fmin(ymin, k->flop_s), ymax = fmax(ymax, k->flop_s);
		npts++;
	}
	for (int r = 0; r < nr; r++) {
		ymax = fmax(ymax, roof[r].flops);
		if (bw > 0) /* the ridge */
			xmin = fmin(xmin, roof[r].flops / bw), xmax = fmax(xmax, roof[r].flops / bw);
	}
	if (!(npts > 0 || (nr > 0 && bw > 0))) {
		fprintf(f, "<p class='note' id='kc-roofline-%d-none'>GPU %d: no kernel has both a FLOP and a DRAM byte count, "
			   "and no roof is known: nothing to place on a roofline.</p>\n",
			d, d);
		return;
	}
	pl.xlo = floor(log10(xmin)) - 1, pl.xhi = ceil(log10(xmax)) + 1;
	if (pl.xhi - pl.xlo < 4)
		pl.xhi = pl.xlo + 4;
	if (bw > 0)
		ymin = fmin(ymin, bw * pow(10, pl.xlo));
	pl.ylo = floor(log10(ymin)), pl.yhi = floor(log10(ymax)) + 1;
	if (log10(ymax) > pl.yhi - 0.25) /* room above the highest roof for its label */
		pl.yhi++;
	if (pl.yhi - pl.ylo > 12) /* a far-away point must not flatten the roofs */
		pl.ylo = pl.yhi - 12;
	fprintf(f, "<svg xmlns='http://www.w3.org/2000/svg' width='%d' height='%d' viewBox='0 0 %d %d' "
		   "font-family='sans-serif' font-size='11' role='img' aria-label='roofline of GPU %d' id='kc-roofline-%d' "
		   "data-decades='%.0f %.0f %.0f %.0f' data-plot='%d %d %d %d'>\n",
		W, H, W, H, d, d, pl.xlo, pl.xhi, pl.ylo, pl.yhi, pl.L, pl.T, pl.PW, pl.PH);
	fputs("<rect width='100%' height='100%' fill='white'/>\n", f);
	snprintf(t, sizeof(t), "Roofline of GPU %d", d);
	fprintf(f, "<text x='%d' y='18' font-size='14' font-weight='bold'>", pl.L);
	esc(f, t);
	if (d < p->ndev && p->dev[d].name[0]) {
		fputs(" (", f);
		esc(f, p->dev[d].name);
		fputs(")", f);
	}
	fprintf(f, ": ceilings %s</text>\n", c->measured ? "measured on this GPU" : "datasheet");
	fprintf(f, "<defs><clipPath id='kc-clip-%d'><rect x='%d' y='%d' width='%d' height='%d'/></clipPath></defs>\n", d, pl.L,
		pl.T, pl.PW, pl.PH);
	fprintf(f, "<rect x='%d' y='%d' width='%d' height='%d' fill='none' stroke='#999'/>\n", pl.L, pl.T, pl.PW, pl.PH);
	/* decade grid and ticks */
	for (int e = (int)pl.xlo; e <= (int)pl.xhi; e++) {
		double x = kc_px(&pl, pow(10, e));
		kc_tick(b, sizeof(b), e, 0);
		fprintf(f, "<line x1='%.1f' y1='%d' x2='%.1f' y2='%d' stroke='#eee'/><text x='%.1f' y='%d' text-anchor='middle'>%s</text>\n",
			x, pl.T, x, pl.T + pl.PH, x, pl.T + pl.PH + 15, b);
	}
	for (int e = (int)pl.ylo; e <= (int)pl.yhi; e++) {
		double y = kc_py(&pl, pow(10, e));
		kc_tick(b, sizeof(b), e, 1);
		fprintf(f, "<line x1='%d' y1='%.1f' x2='%d' y2='%.1f' stroke='#eee'/><text x='%d' y='%.1f' text-anchor='end'>%s</text>\n",
			pl.L, y, pl.L + pl.PW, y, pl.L - 5, y + 4, b);
	}
	fprintf(f, "<text x='%d' y='%d' text-anchor='middle'>arithmetic intensity (CUDA-core FLOP per DRAM byte)</text>\n",
		pl.L + pl.PW / 2, pl.T + pl.PH + 34);
	fprintf(f, "<text x='16' y='%d' text-anchor='middle' transform='rotate(-90 16 %d)'>FLOP/s</text>\n", pl.T + pl.PH / 2,
		pl.T + pl.PH / 2);
	/* the roofs, clipped to the plot */
	fprintf(f, "<g clip-path='url(#kc-clip-%d)' fill='none' stroke-width='2'>\n", d);
	double top = nr ? roof[0].flops : NAN;
	for (int r = 1; r < nr; r++)
		top = fmax(top, roof[r].flops);
	if (bw > 0) {
		double x0 = pow(10, pl.xlo), x1 = isfinite(top) ? top / bw : pow(10, pl.xhi);
		fprintf(f, "<line id='kc-dram-roof-%d' x1='%.2f' y1='%.2f' x2='%.2f' y2='%.2f' stroke='#333'/>\n", d, kc_px(&pl, x0),
			kc_py(&pl, bw * x0), kc_px(&pl, x1), kc_py(&pl, bw * x1));
	}
	if (isfinite(c->l2_bps) && c->l2_bps > 0) {
		double x0 = pow(10, pl.xlo), x1 = isfinite(top) ? top / c->l2_bps : pow(10, pl.xhi);
		fprintf(f, "<line id='kc-l2-roof-%d' x1='%.2f' y1='%.2f' x2='%.2f' y2='%.2f' stroke='#aaa' stroke-dasharray='5,4'/>\n",
			d, kc_px(&pl, x0), kc_py(&pl, c->l2_bps * x0), kc_px(&pl, x1), kc_py(&pl, c->l2_bps * x1));
	}
	for (int r = 0; r < nr; r++) {
		double x0 = bw > 0 ? roof[r].flops / bw : pow(10, pl.xlo);
		fprintf(f, "<line class='kc-roof' x1='%.2f' y1='%.2f' x2='%d' y2='%.2f' stroke='%s'/>\n", kc_px(&pl, x0),
			kc_py(&pl, roof[r].flops), pl.L + pl.PW, kc_py(&pl, roof[r].flops), gd_palette(r + 2));
	}
	fputs("</g>\n", f);
	for (int r = 0; r < nr; r++) {
		fprintf(f, "<text x='%d' y='%.1f' text-anchor='end' fill='%s'>", pl.L + pl.PW - 4, kc_py(&pl, roof[r].flops) - 5,
			gd_palette(r + 2));
		esc(f, roof[r].label);
		fputs("</text>\n", f);
	}
	if (bw > 0) {
		/* the DRAM label along its line, a decade right of the left edge */
		double lx = pow(10, pl.xlo + 1), ly = bw * lx;
		if (log10(ly) < pl.yhi && log10(ly) > pl.ylo) {
			fprintf(f, "<text x='%.1f' y='%.1f'>DRAM %s</text>\n", kc_px(&pl, lx) + 6, kc_py(&pl, ly) + 14,
				gd_fmt_si(b, sizeof(b), bw, "B/s"));
		}
	}
	if (isfinite(c->l2_bps) && c->l2_bps > 0) {
		double lx = pow(10, pl.xlo + 1), ly = c->l2_bps * lx;
		if (log10(ly) < pl.yhi - 0.3 && log10(ly) > pl.ylo)
			fprintf(f, "<text x='%.1f' y='%.1f' fill='#888' text-anchor='end'>L2 %s</text>\n", kc_px(&pl, lx) - 6,
				kc_py(&pl, ly) - 4, gd_fmt_si(b, sizeof(b), c->l2_bps, "B/s"));
	}
	/* the kernels */
	for (int i = 0; i < v->nk; i++) {
		const struct gd_kc_kernel *k = &v->k[i];
		char nm[128], fl[32], rp[32];
		if (k->device != d || !kc_placed(k))
			continue;
		gd_kernel_short_name(k->name >= 0 && k->name < p->nnames && p->names[k->name] ? p->names[k->name] : "", nm,
				     sizeof(nm));
		fprintf(f, "<circle class='kc-point' cx='%.2f' cy='%.2f' r='6' fill='%s' fill-opacity='0.85' stroke='#222'><title>",
			kc_px(&pl, k->intensity), kc_py(&pl, k->flop_s), bound_color(k->bound));
		esc(f, nm);
		if (isfinite(k->roof_pct))
			snprintf(rp, sizeof(rp), "%.0f %%", k->roof_pct);
		else
			snprintf(rp, sizeof(rp), "unknown");
		snprintf(b, sizeof(b), ": %.3g FLOP/B, %s, %s of the roof, %s-bound", k->intensity,
			 gd_fmt_si(fl, sizeof(fl), k->flop_s, "FLOP/s"), rp, bound_name(k->bound));
		esc(f, b);
		fputs("</title></circle>\n", f);
	}
	/* the legend: colour by bound */
	int lx = pl.L, ly = pl.T + pl.PH + 58;
	for (int bnd = GD_KB_MEMORY; bnd <= GD_KB_LATENCY + 1; bnd++) {
		int bb = bnd > GD_KB_LATENCY ? GD_KB_UNKNOWN : bnd;
		fprintf(f, "<circle cx='%d' cy='%d' r='5' fill='%s' stroke='#222'/><text x='%d' y='%d'>%s%s</text>", lx + 5,
			ly - 4, bound_color(bb), lx + 14, ly, bb ? bound_name(bb) : "bound unknown", bb ? "-bound" : "");
		lx += 130;
	}
	fputs("\n</svg>\n", f);
	fprintf(f, "<p class='note' id='kc-roofline-%d-note'>Each profiled kernel of GPU %d is a point at its median "
		   "intensity and CUDA-core FLOP/s (hover for its figures); ceilings: ",
		d, d);
	/* the source says it: "measured by gpudiag roofline on …" or "datasheet (sm_90, …)" */
	esc(f, c->source[0] ? c->source : c->measured ? "measured on this GPU" : "datasheet");
	fputs(".", f);
	int first = 1;
	for (int i = 0; i < v->nk; i++) {
		const struct gd_kc_kernel *k = &v->k[i];
		char nm[128];
		if (k->device != d || k->launches <= 0 || kc_placed(k))
			continue;
		gd_kernel_short_name(k->name >= 0 && k->name < p->nnames && p->names[k->name] ? p->names[k->name] : "", nm,
				     sizeof(nm));
		fputs(first ? " Not placed (no FLOP or no DRAM byte counted): " : ", ", f);
		esc(f, nm);
		first = 0;
	}
	fputs("</p>\n", f);
}

/* One roofline per device a profiled kernel ran on; how many were drawn. */
static int kc_rooflines(const struct gd_profile *p, const struct gd_kc_view *v, FILE *f)
{
	int n = 0;
	for (int d = 0; d < v->nceil; d++) {
		int used = 0;
		for (int i = 0; i < v->nk && !used; i++)
			used = v->k[i].device == d && v->k[i].launches > 0;
		if (used) {
			kc_roofline_svg(p, v, d, f);
			n++;
		}
	}
	return n;
}

void gd_html_roofline(FILE *f, const struct gd_analysis *a)
{
	if (!(a->s.kc.nk > 0 && kc_rooflines(&a->p, &a->s.kc, f)))
		roofline(&a->p, f);
}
