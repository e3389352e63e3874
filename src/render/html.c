/* The HTML report: one self-contained page (inline CSS and SVG, no script, no network), with
 * the verdicts, a timeline overview, the roofline when measured ceilings exist, the kernel
 * tables and the NVML charts. Every string from the profile goes through gd_xml_escape:
 * kernel names contain <, >, & and quotes, and a hostile name must stay text. */
#include "render/report.h"

#include "analysis/analysis.h"
#include "core/fileio.h"
#include "core/safe_int.h"
#include "core/out.h"
#include "core/status.h"
#include "core/svg.h"
#include "gpu/arch.h"
#include "gpu/nvml.h"
#include "profile/kc_metrics.h"
#include "profile/pm_metrics.h"
#include "roofline/ceilings.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The roofline module may not be linked into every build of this library (tests); a weak
 * reference lets the page say "no measured ceilings" then. */
extern int gd_ceilings_load(const char *uuid, const char *driver, struct gd_ceilings *c) __attribute__((weak));

#define esc gd_xml_escape



static double frac(double a, double b) { return b > 0 ? a / b : NAN; }

static void td(FILE *f, const char *s, int right)
{
	fputs(right ? "<td class='r'>" : "<td>", f);
	esc(f, s);
	fputs("</td>", f);
}

/* ---- timeline overview: GPU busy fraction per time bin, coloured by the kind that took
 * most of the bin; copies and host sync time as thinner rows ---- */
#define BINS 400
#define TOP_KC 10

/* Adds to each bin the share of it that [a, b) covers, times v; with w, also the share alone
 * into w (the weights of a time-weighted mean). */
static void add_bins_v(double *bins, double *w, int64_t t0, double width, int64_t a, int64_t b, double v)
{
	if (b <= a || width <= 0)
		return;
	/* exact differences (a profile's times may be anywhere in int64), bins clamped before
	 * the conversion to int so a far-away event cannot overflow it */
	double x0 = gd_i64_diff(a, t0) / width, x1 = gd_i64_diff(b, t0) / width;
	if (!(x0 < BINS + 1) || !(x1 >= -1))
		return;
	if (x0 < -1)
		x0 = -1;
	if (x1 > BINS + 1)
		x1 = BINS + 1;
	int i0 = (int)floor(x0), i1 = (int)floor(x1);
	if (i0 < 0)
		i0 = 0;
	if (i1 >= BINS)
		i1 = BINS - 1;
	for (int i = i0; i <= i1; i++) {
		double lo = x0 > i ? x0 : i, hi = x1 < i + 1 ? x1 : i + 1;
		if (hi > lo) {
			bins[i] += (hi - lo) * v;
			if (w)
				w[i] += hi - lo;
		}
	}
}

static void add_bins(double *bins, int64_t t0, double width, int64_t a, int64_t b)
{
	add_bins_v(bins, NULL, t0, width, a, b, 1);
}

/* ---- measured counter tracks under the timeline's rows (issue 18, pm_metrics.h): one per
 * device and quantity collected, on the timeline's x axis ---- */
static const int track_pm[] = {GD_PM_SM_ACTIVE, GD_PM_SM_ISSUE,      GD_PM_TENSOR,    GD_PM_DRAM,
			       GD_PM_L2,        GD_PM_WARPS_ACTIVE, GD_PM_PCIE_READ, GD_PM_PCIE_WRITE};
#define NTRACK_PM ((int)(sizeof(track_pm) / sizeof(track_pm[0])))
#define MAX_TRACKS 32
#define TRACK_H 34

struct pm_track {
	int device, m;
};

static int is_pct(int m) { return !strcmp(gd_pm_metrics[m].unit, "%"); }

/* The tracks to draw: devices in the order of their first sample, each with the quantities
 * some sample of it carries. Returns how many; *ndev the devices with samples. */
static int pm_tracks(const struct gd_profile *p, struct pm_track *t, int *ndev)
{
	int n = 0, seen[MAX_TRACKS], nseen = 0;
	*ndev = 0;
	for (long i = 0; i < p->npm; i++) {
		int d = p->pm[i].device, j = 0;
		while (j < nseen && seen[j] != d)
			j++;
		if (j < nseen || nseen == MAX_TRACKS)
			continue;
		seen[nseen++] = d;
	}
	*ndev = nseen;
	for (int j = 0; j < nseen; j++)
		for (int q = 0; q < NTRACK_PM; q++) {
			int has = 0;
			for (long i = 0; i < p->npm && !has; i++)
				has = p->pm[i].device == seen[j] && isfinite(p->pm[i].v[track_pm[q]]);
			if (has && n < MAX_TRACKS)
				t[n++] = (struct pm_track){seen[j], track_pm[q]};
		}
	return n;
}

/* One track: each bin's time-weighted mean of the samples in it, as a step area; a bin
 * without a sample is a gap, not a zero. Percentages on 0..100, rates on 0..their maximum. */
static void pm_track_svg(const struct gd_profile *p, const struct pm_track *tr, int ndev, int64_t t0, double width,
			 int L, int PW, int y, FILE *f)
{
	static double sum[BINS], w[BINS];
	const struct gd_pm_metric_desc *d = &gd_pm_metrics[tr->m];
	double top = is_pct(tr->m) ? 100 : 0, h = TRACK_H - 8;
	char b[48], lab[96];
	memset(sum, 0, sizeof(sum));
	memset(w, 0, sizeof(w));
	for (long i = 0; i < p->npm; i++)
		if (p->pm[i].device == tr->device && isfinite(p->pm[i].v[tr->m]))
			add_bins_v(sum, w, t0, width, p->pm[i].t_start, p->pm[i].t_end, p->pm[i].v[tr->m]);
	for (int i = 0; i < BINS; i++)
		if (w[i] > 0 && !is_pct(tr->m) && sum[i] / w[i] > top)
			top = sum[i] / w[i];
	if (ndev > 1)
		snprintf(lab, sizeof(lab), "GPU %d %s %s", tr->device, d->label, d->unit);
	else
		snprintf(lab, sizeof(lab), "%s %s", d->label, d->unit);
	fprintf(f, "<g class='pm-track' id='pm-track-%d-%s'><text x='4' y='%d' font-size='10'>", tr->device, d->column,
		y + TRACK_H / 2);
	esc(f, lab);
	fprintf(f, "</text><rect x='%d' y='%d' width='%d' height='%d' fill='#f4f4f4'/>\n", L, y, PW, TRACK_H - 8);
	for (int i = 0; i < BINS;) {
		if (!(w[i] > 0)) {
			i++;
			continue;
		}
		fprintf(f, "<path fill='%s' fill-opacity='0.8' d='M%.1f,%.1f", gd_palette(tr->m), L + (double)PW * i / BINS,
			y + h);
		for (; i < BINS && w[i] > 0; i++) {
			double v = top > 0 ? sum[i] / w[i] / top : 0;
			v = v < 0 ? 0 : v > 1 ? 1 : v;
			fprintf(f, "V%.1fH%.1f", y + h * (1 - v), L + (double)PW * (i + 1) / BINS);
		}
		fprintf(f, "V%.1fZ'/>", y + h);
	}
	if (is_pct(tr->m))
		snprintf(b, sizeof(b), "100 %%");
	else
		gd_fmt_si(b, sizeof(b), top, d->unit);
	fprintf(f, "<text x='%d' y='%d' font-size='9' fill='#666' text-anchor='end'>", L + PW - 2, y + 9);
	esc(f, b);
	fputs("</text></g>\n", f);
}

/* The legend of the counter tracks: what each quantity counted, in which unit. */
static void pm_legend(const struct gd_profile *p, const struct pm_track *tr, int ntr, FILE *f)
{
	char b[48];
	fputs("<p class='note' id='pm-legend'>GPU counters (CUPTI PM sampling", f);
	if (p->pm_interval_ns > 0)
		fprintf(f, ", a sample every %s", gd_fmt_interval(b, sizeof(b), p->pm_interval_ns));
	fputs("): each column of a track is the time-weighted mean of the samples in it; a gap is a column without a "
	      "sample. Percentages are of the unit's sustained peak (0 to 100 %), rates on 0 to the track's maximum "
	      "(top right).</p>\n<table class='note' id='pm-quantities'><tr><th>track</th><th>unit</th><th>what was "
	      "counted</th></tr>\n",
	      f);
	for (int i = 0; i < ntr; i++) {
		int dup = 0;
		for (int j = 0; j < i; j++)
			dup |= tr[j].m == tr[i].m;
		if (dup)
			continue;
		fputs("<tr>", f);
		td(f, gd_pm_metrics[tr[i].m].label, 0);
		td(f, gd_pm_metrics[tr[i].m].unit, 0);
		td(f, gd_pm_metrics[tr[i].m].what, 0);
		fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);
}

/* Why no counter tracks: counters off or refused (the reason, from the profile, escaped). */
static void pm_note(const struct gd_profile *p, FILE *f)
{
	static const char refused[] = "no counters: ";
	if (!strcmp(p->counters, "off"))
		fputs("<p class='note' id='counters-note'>GPU counters were off for this run (gpudiag run "
		      "--no-counters): no counter tracks.</p>\n",
		      f);
	else if (!strncmp(p->counters, refused, strlen(refused))) {
		fputs("<p class='note' id='counters-note'>GPU counters were not collected: ", f);
		esc(f, p->counters + strlen(refused));
		fputs(". The timeline has no counter tracks and the kernels no measured columns.</p>\n", f);
	} else if (!strcmp(p->counters, "ok") && !p->npm)
		fputs("<p class='note' id='counters-note'>GPU counters were on, but no sample was recorded.</p>\n", f);
}

static void timeline(const struct gd_profile *p, const struct gd_summary *s, FILE *f)
{
	static double kb[GD_KIND_COUNT][BINS], cb[BINS], sb[BINS], ub[BINS];
	int64_t t0 = s->span_start;
	double width = s->span_ns / BINS;
	int *kind;
	char b1[32];
	if (!(s->nbusy > 0 && width > 0)) {
		fputs("<p>No GPU activity to draw.</p>\n", f);
		return;
	}
	memset(kb, 0, sizeof(kb));
	memset(cb, 0, sizeof(cb));
	memset(sb, 0, sizeof(sb));
	memset(ub, 0, sizeof(ub));
	kind = malloc(((size_t)p->nnames + 1) * sizeof(int));
	if (!kind)
		return;
	for (int i = 0; i < p->nnames; i++)
		kind[i] = GD_KIND_OTHER;
	for (int i = 0; i < s->nks; i++)
		kind[s->ks[i].name] = s->ks[i].kind;
	for (long i = 0; i < p->nk; i++)
		add_bins(kb[kind[p->k[i].name]], t0, width, p->k[i].start, p->k[i].end);
	free(kind);
	for (long i = 0; i < p->nc; i++)
		add_bins(cb, t0, width, p->c[i].start, p->c[i].end);
	for (long i = 0; i < p->na; i++)
		if (p->a[i].cat == GD_API_SYNC || p->a[i].cat == GD_API_COPY_SYNC)
			add_bins(sb, t0, width, p->a[i].start, p->a[i].end);
	for (long i = 0; i < s->nbusy; i++)
		add_bins(ub, t0, width, s->busy[i].start, s->busy[i].end);

	const int W = 900, L = 110, PW = W - L - 20, RH = 60;
	struct pm_track tr[MAX_TRACKS];
	int ndev, ntr = pm_tracks(p, tr, &ndev);
	const int RB = 3 * RH + ntr * TRACK_H; /* the rows' bottom: lanes, then counter tracks */
	fprintf(f, "<svg xmlns='http://www.w3.org/2000/svg' width='%d' height='%d' viewBox='0 0 %d %d' "
		   "font-family='sans-serif' font-size='11' role='img' aria-label='timeline'>\n",
		W, RB + 60, W, RB + 60);
	fputs("<rect width='100%' height='100%' fill='white'/>\n", f);
	const char *rows[3] = {"GPU busy", "copies", "host in sync"};
	for (int r = 0; r < 3; r++) {
		int y = 10 + r * RH;
		fprintf(f, "<text x='4' y='%d'>%s</text>", y + RH / 2, rows[r]);
		fprintf(f, "<rect x='%d' y='%d' width='%d' height='%d' fill='#f4f4f4'/>\n", L, y, PW, RH - 8);
	}
	for (int i = 0; i < BINS; i++) {
		double x = L + (double)PW * i / BINS, w = (double)PW / BINS + 0.3;
		int best = GD_KIND_OTHER;
		double bv = -1;
		for (int k = 0; k < GD_KIND_COUNT; k++)
			if (kb[k][i] > bv) {
				bv = kb[k][i];
				best = k;
			}
		double u = ub[i] > 1 ? 1 : ub[i];
		if (u > 0) /* grey: the bin was busy with copies only */
			fprintf(f, "<rect x='%.1f' y='%.1f' width='%.2f' height='%.1f' fill='%s'/>", x, 10 + (RH - 8) * (1 - u), w,
				(RH - 8) * u, bv > 0 ? gd_palette(best) : "#999");
		double c = cb[i] > 1 ? 1 : cb[i];
		if (c > 0)
			fprintf(f, "<rect x='%.1f' y='%.1f' width='%.2f' height='%.1f' fill='#555'/>", x,
				10 + RH + (RH - 8) * (1 - c), w, (RH - 8) * c);
		double sy = sb[i] > 1 ? 1 : sb[i];
		if (sy > 0)
			fprintf(f, "<rect x='%.1f' y='%.1f' width='%.2f' height='%.1f' fill='#d62728'/>", x,
				10 + 2 * RH + (RH - 8) * (1 - sy), w, (RH - 8) * sy);
	}
	fputc('\n', f);
	for (int i = 0; i < ntr; i++)
		pm_track_svg(p, &tr[i], ndev, t0, width, L, PW, 10 + 3 * RH + i * TRACK_H, f);
	int ly = RB + 25, lx = L;
	for (int k = 0; k < GD_KIND_COUNT; k++) {
		if (!s->kind_n[k])
			continue;
		fprintf(f, "<rect x='%d' y='%d' width='10' height='10' fill='%s'/><text x='%d' y='%d'>%s</text>", lx, ly - 9,
			gd_palette(k), lx + 13, ly, gd_kind_name(k));
		lx += 20 + 7 * (int)strlen(gd_kind_name(k));
	}
	fprintf(f, "<text x='%d' y='%d'>0</text><text x='%d' y='%d' text-anchor='end'>%s</text>\n", L, RB + 45,
		L + PW, RB + 45, gd_fmt_time(b1, sizeof(b1), s->span_ns));
	fputs("</svg>\n", f);
	fprintf(f, "<p class='note'>Each column is %s of the GPU's active span: its height is the share of that time the "
		   "GPU was busy (union of kernels and copies), its colour the kernel kind that took most of it.</p>\n",
		gd_fmt_time(b1, sizeof(b1), width));
	if (ntr)
		pm_legend(p, tr, ntr, f);
}

static void nvml_charts(const struct gd_profile *p, FILE *f)
{
	double *x, *y[4];
	if (p->ns < 2) {
		fputs("<p>No NVML samples in this profile.</p>\n", f);
		return;
	}
	x = malloc((size_t)p->ns * sizeof(double));
	for (int i = 0; i < 4; i++)
		y[i] = malloc((size_t)p->ns * sizeof(double));
	if (!x || !y[0] || !y[1] || !y[2] || !y[3])
		goto out;
	for (long i = 0; i < p->ns; i++) {
		x[i] = gd_i64_diff(p->s[i].t, p->s[0].t) * 1e-9;
		y[0][i] = p->s[i].util_gpu >= 0 ? p->s[i].util_gpu : NAN;
		y[1][i] = p->s[i].sm_mhz >= 0 ? p->s[i].sm_mhz : NAN;
		y[2][i] = p->s[i].power_w;
		y[3][i] = p->s[i].mem_used / 1073741824.0;
	}
	const char *titles[4] = {"GPU utilisation (NVML)", "SM clock (NVML)", "Power (NVML)", "Device memory used (NVML)"};
	const char *ylab[4] = {"%", "MHz", "W", "GiB"};
	for (int i = 0; i < 4; i++) {
		struct gd_chart c;
		gd_chart_init(&c, titles[i], "seconds since the first sample", ylab[i]);
		c.width = 440;
		c.height = 260;
		c.ymin = 0;
		gd_chart_add(&c, ylab[i], x, y[i], (int)p->ns, GD_STEP);
		c.note = "sampled by gpudiag run's parent process";
		gd_chart_svg(&c, f);
	}
out:
	free(x);
	for (int i = 0; i < 4; i++)
		free(y[i]);
}

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

/* Numbers never wrap: the table may be wider than the page's 1000 px column, up to the window
 * (1240 px at most), centred on it; past that it scrolls inside its box. */
static const char kc_css[] = "<style>#kc-wrap{overflow-x:auto;width:min(1240px,100vw - 32px);"
			     "margin-left:calc((100% - min(1240px,100vw - 32px)) / 2)}"
			     "#kernel-counters{font-size:.85em;margin:.5em auto}"
			     "#kernel-counters td,#kernel-counters th{white-space:nowrap;padding:2px 5px}"
			     "#kernel-counters td.k{white-space:normal;max-width:22em;overflow-wrap:break-word}</style>\n";

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

static void kc_table(const struct gd_profile *p, const struct gd_kc_view *v, FILE *f)
{
	static char cell[GD_REPORT_KC_COLS][GD_REPORT_KC_CELL];
	fputs("<div id='kc-wrap'><table id='kernel-counters'><tr>", f);
	for (int c = 0; c < GD_REPORT_KC_COLS; c++) {
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
		for (int c = 1; c < GD_REPORT_KC_COLS; c++)
			td(f, cell[c], c != 5 && c != 7 && c != 13);
		fputs("</tr>\n", f);
	}
	fputs("</table></div>\n", f);
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
			fputs("<h3>Skipped launches</h3><table id='kc-skipped'><tr><th>kernel</th><th>launch</th><th>status</th>"
			      "<th>why</th></tr>\n",
			      f);
		if (l->kernel >= 0 && l->kernel < p->nk && p->k[l->kernel].dname > 0)
			id = p->k[l->kernel].dname;
		gd_kernel_short_name(id >= 0 && id < p->nnames && p->names[id] ? p->names[id] : "", name, sizeof(name));
		snprintf(who, sizeof(who), "#%d of pid %d", l->nth + 1, l->pid);
		fputs("<tr>", f);
		td(f, name, 0);
		td(f, who, 0);
		td(f, kl_status(l->status), 0);
		td(f, l->detail > 0 && l->detail < p->nnames ? p->names[l->detail] : "-", 0);
		fputs("</tr>\n", f);
	}
	if (shown)
		fputs("</table>\n", f);
	if (left)
		fprintf(f, "<p class='note'>and %ld more skipped launches (<code>--json</code> lists them all)</p>\n", left);
}

static void page_kcounters(const struct gd_profile *p, const struct gd_summary *s, FILE *f)
{
	if (!has_kc(p))
		return;
	fputs("<h2>Kernel counters</h2>\n", f);
	fputs(kc_css, f);
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

static const char css[] =
	"body{font-family:system-ui,sans-serif;margin:2em auto;max-width:1000px;color:#222}"
	"h1{font-size:1.5em}h2{margin-top:1.6em;border-bottom:1px solid #ccc}"
	".banner{background:#fff3cd;border:1px solid #e0c060;padding:.6em;font-weight:bold}"
	".verdict{font-size:1.15em;padding:.8em;border-left:6px solid #2ca02c;background:#f3fbf3}"
	".verdict.warn{border-color:#e0a000;background:#fffaf0}.verdict.high{border-color:#d62728;background:#fff3f3}"
	".finding{border:1px solid #ddd;border-radius:4px;padding:.5em 1em;margin:.8em 0}"
	".sev{display:inline-block;padding:0 .5em;border-radius:3px;color:#fff;font-size:.85em}"
	".sev-high{background:#d62728}.sev-warning{background:#e0a000}.sev-info{background:#1f77b4}"
	".advice{background:#f6f8fa;padding:.4em}.note{color:#666;font-size:.85em}"
	"table{border-collapse:collapse;margin:.5em 0}td,th{border-bottom:1px solid #eee;padding:2px 8px;text-align:left}"
	"td.r{text-align:right}code{background:#f3f3f3}svg{max-width:100%;height:auto}";

/* ---- the page, section by section ---- */
static void page_head(const struct gd_analysis *a, FILE *f)
{
	const struct gd_profile *p = &a->p;
	char ended[400];
	int failed;
	fputs("<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
	      "<meta http-equiv='Content-Security-Policy' content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">"
	      "<title>gpudiag report",
	      f);
	if (p->command[0]) {
		fputs(" — ", f);
		esc(f, p->command);
	}
	fprintf(f, "</title><style>%s</style></head><body>\n<h1>gpudiag report</h1>\n", css);
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
}

static void page_finding(const struct gd_finding *fi, FILE *f)
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

static void page_verdicts(const struct gd_verdicts *v, FILE *f)
{
	const struct gd_finding *top = &v->f[v->order[0]];
	fputs("<h2>Verdict</h2>\n", f);
	fprintf(f, "<p class='verdict%s' id='verdict'>",
		!v->nwarn ? "" : top->severity == GD_SEV_HIGH ? " high" : " warn");
	esc(f, v->top_line); /* the top headline, or "No problem found…" and why (verdict.h) */
	fputs("</p>\n", f);
	for (int i = 0; i < GD_R_COUNT; i++)
		if (v->f[v->order[i]].state == GD_FIRED)
			page_finding(&v->f[v->order[i]], f);
	fputs("<h3>Not fired</h3><table><tr><th>check</th><th>state</th><th>why</th></tr>\n", f);
	for (int i = 0; i < GD_R_COUNT; i++) {
		const struct gd_finding *fi = &v->f[v->order[i]];
		if (fi->state == GD_FIRED || fi->state == GD_NOT_APPLICABLE)
			continue;
		fputs("<tr>", f);
		td(f, fi->title, 0);
		td(f, gd_state_name(fi->state), 0);
		td(f, fi->headline, 0);
		fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);
}

static void page_totals(const struct gd_summary *s, FILE *f)
{
	char b[48];
	fputs("<h2>Summary</h2>\n<table>", f);
	fprintf(f, "<tr><td>wall time</td><td class='r'>%s</td></tr>", gd_fmt_time(b, 48, s->wall_ns));
	fprintf(f, "<tr><td>GPU active span</td><td class='r'>%s</td></tr>", gd_fmt_time(b, 48, s->span_ns));
	fprintf(f, "<tr><td>GPU busy (union of kernels and copies) / wall</td><td class='r'>%s</td></tr>",
		gd_fmt_pct(b, 48, frac(s->busy_ns, s->wall_ns)));
	fprintf(f, "<tr><td>kernels</td><td class='r'>%ld (%s)</td></tr>", s->nkernels, gd_fmt_time(b, 48, s->kernel_ns));
	fprintf(f, "<tr><td>copies and memsets</td><td class='r'>%ld (%s)</td></tr>", s->ncopies,
		gd_fmt_time(b, 48, s->copy_ns));
	fprintf(f, "<tr><td>synchronising calls</td><td class='r'>%ld (%s)</td></tr></table>\n",
		s->api_n[GD_API_SYNC] + s->api_n[GD_API_COPY_SYNC],
		gd_fmt_time(b, 48, s->api_ns[GD_API_SYNC] + s->api_ns[GD_API_COPY_SYNC]));
}

/* The measured columns of the top-kernels table (pm_metrics.h), shown when some kernel of the
 * table carries the quantity. */
static const int table_pm[] = {GD_PM_SM_ACTIVE, GD_PM_SM_ISSUE, GD_PM_TENSOR, GD_PM_DRAM, GD_PM_L2, GD_PM_WARPS_ACTIVE};
#define NTABLE_PM ((int)(sizeof(table_pm) / sizeof(table_pm[0])))
#define TOP_ROWS 20

static int page_pm_columns(const struct gd_summary *s, int *cols)
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

static void page_top_kernels(const struct gd_profile *p, const struct gd_summary *s, FILE *f)
{
	char b[3][48], lim[96];
	int pm[NTABLE_PM], npm = page_pm_columns(s, pm);
	fputs("<h3>Top kernels</h3><table id='top-kernels'><tr><th>kernel</th><th>kind</th><th>library</th><th>total</th>"
	      "<th>count</th><th>mean</th><th>% GPU</th><th>occupancy</th><th>limiter</th><th>grid × block</th>",
	      f);
	if (npm)
		fputs("<th class='pm'>samples</th>", f);
	for (int c = 0; c < npm; c++) {
		fputs("<th class='pm'>", f);
		esc(f, gd_pm_metrics[pm[c]].label);
		fputs("</th>", f);
	}
	fputs("</tr>\n", f);
	for (int i = 0; i < s->nks && i < TOP_ROWS; i++) {
		const struct gd_kstat *k = &s->ks[i];
		char cnt[32], gb[48], occ[32];
		snprintf(cnt, sizeof(cnt), "%ld", k->count);
		snprintf(gb, sizeof(gb), "%lld × %d", k->grid_blocks, k->block_threads);
		snprintf(occ, sizeof(occ), k->occ_ok ? "%.0f %%" : "unknown", 100 * k->occ.occupancy);
		fputs("<tr><td title='", f);
		esc(f, k->full);
		fputs("'>", f);
		esc(f, k->short_name);
		fputs("</td>", f);
		td(f, gd_kind_name(k->kind), 0);
		td(f, gd_lib_name(k->lib), 0);
		td(f, gd_fmt_time(b[0], 48, k->total_ns), 1);
		td(f, cnt, 1);
		td(f, gd_fmt_time(b[1], 48, k->total_ns / k->count), 1);
		td(f, gd_fmt_pct(b[2], 48, frac(k->total_ns, s->kernel_ns)), 1);
		td(f, occ, 1);
		td(f, k->occ_ok ? gd_occ_limiters_str(k->occ.limiters, lim, sizeof(lim)) : "-", 0);
		td(f, gb, 1);
		if (npm) {
			snprintf(cnt, sizeof(cnt), "%ld", k->pm_samples);
			td(f, k->pm_samples > 0 ? cnt : "-", 1);
		}
		for (int c = 0; c < npm; c++) {
			char v[32];
			if (k->pm_samples <= 0)
				snprintf(v, sizeof(v), "-");
			else if (!isfinite(k->pm[pm[c]]))
				snprintf(v, sizeof(v), "unknown");
			else if (pm[c] == GD_PM_DRAM && isfinite(k->pm_dram_bps)) {
				char r[24];
				snprintf(v, sizeof(v), "%.0f %% · %s", k->pm[pm[c]], gd_fmt_si(r, sizeof(r), k->pm_dram_bps, "B/s"));
			} else
				snprintf(v, sizeof(v), "%.0f %%", k->pm[pm[c]]); /* every table quantity is a % */
			td(f, v, 1);
		}
		fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);
	if (npm) {
		char iv[48];
		fprintf(f, "<p class='note' id='pm-columns'>Measured columns: the mean of the %s%sPM samples in which the "
			   "kernel ran alone (%.0f %% of a sample, at least %d samples), in %% of each unit's peak; "
			   "'-' = the kernel was too short or always ran beside another.</p>\n",
			p->pm_interval_ns > 0 ? gd_fmt_interval(iv, sizeof(iv), p->pm_interval_ns) : "",
			p->pm_interval_ns > 0 ? " " : "", 100 * GD_PM_ATTRIB_COVER, GD_PM_ATTRIB_MIN);
	}
}

/* The rows of kernel time by kind (name = gd_kind_name) or by library (gd_lib_name). */
static void page_breakdown(const struct gd_summary *s, int count, const double *ns, const long *n,
			   const char *(*name)(int), FILE *f)
{
	char b[2][48];
	for (int k = 0; k < count; k++) {
		char cnt[32];
		if (!n[k])
			continue;
		snprintf(cnt, sizeof(cnt), "%ld", n[k]);
		fputs("<tr>", f);
		td(f, name(k), 0);
		td(f, gd_fmt_time(b[0], 48, ns[k]), 1);
		td(f, cnt, 1);
		td(f, gd_fmt_pct(b[1], 48, frac(ns[k], s->kernel_ns)), 1);
		fputs("</tr>", f);
	}
}

static void page_kinds(const struct gd_summary *s, FILE *f)
{
	fputs("<h3>By kind and library</h3><table><tr><th>kind</th><th>time</th><th>kernels</th><th>% GPU</th></tr>", f);
	page_breakdown(s, GD_KIND_COUNT, s->kind_ns, s->kind_n, gd_kind_name, f);
	fputs("</table><table><tr><th>library</th><th>time</th><th>kernels</th><th>% GPU</th></tr>", f);
	page_breakdown(s, GD_LIB_COUNT, s->lib_ns, s->lib_n, gd_lib_name, f);
	fputs("</table>\n", f);
}

static void page_copies(const struct gd_summary *s, FILE *f)
{
	char b[3][48];
	fputs("<h3>Copies</h3><table><tr><th>kind</th><th>count</th><th>bytes</th><th>time</th><th>bandwidth</th>"
	      "<th>pageable</th></tr>",
	      f);
	for (int k = 0; k < GD_CPY_COUNT; k++) {
		const struct gd_copystat *c = &s->cp[k];
		char cnt[32], pg[32];
		if (!c->count)
			continue;
		snprintf(cnt, sizeof(cnt), "%ld", c->count);
		snprintf(pg, sizeof(pg), "%ld", c->pageable_count);
		fputs("<tr>", f);
		td(f, gd_copy_class_name(k), 0);
		td(f, cnt, 1);
		td(f, gd_fmt_bytes(b[0], 48, c->bytes), 1);
		td(f, gd_fmt_time(b[1], 48, c->ns), 1);
		td(f, gd_fmt_si(b[2], 48, c->ns > 0 ? c->bytes / (c->ns * 1e-9) : NAN, "B/s"), 1);
		td(f, pg, 1);
		fputs("</tr>", f);
	}
	fputs("</table>\n", f);
}

void gd_report_html_write(const struct gd_analysis *a, FILE *f)
{
	const struct gd_profile *p = &a->p;
	const struct gd_summary *s = &a->s;
	page_head(a, f);
	page_verdicts(&a->v, f);
	fputs("<h2>Timeline overview</h2>\n", f);
	timeline(p, s, f);
	pm_note(p, f);
	page_totals(s, f);
	page_top_kernels(p, s, f);
	page_kinds(s, f);
	page_copies(s, f);
	gd_html_framework(f, a);
	page_kcounters(p, s, f);
	fputs("<h2>Roofline</h2>\n", f);
	if (!(s->kc.nk > 0 && kc_rooflines(p, &s->kc, f)))
		roofline(p, f);
	fputs("<h2>NVML</h2>\n", f);
	nvml_charts(p, f);
	fprintf(f, "<p class='note'>Written by gpudiag %s. Self-contained: no script, no network.</p>\n</body></html>\n",
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
