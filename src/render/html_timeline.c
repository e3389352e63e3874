/* The HTML page's timeline (html.h): one SVG with the whole run as an overview strip and, under
 * it on its own time axis, the steady window the analysis found (the main loop, steady.h) with
 * its lanes: kernels by kind, copies by kind, the host in synchronising calls, NVML's samples
 * and the GPU-metrics counter tracks; then the legend, what NVML's utilisation is beside
 * gpudiag's GPU busy, and the main loop iteration by iteration.
 *
 * Everything is drawn from columns: each lane is NB columns of the window, each column the
 * share of its time some activity covered (or the time-weighted mean of the samples in it), so
 * a page of a million kernels is as large as one of ten. The columns are drawing, not figures:
 * every number in the text comes from the analysis. */
#include "render/html.h"

#include "analysis/analysis.h"
#include "core/out.h"
#include "core/safe_int.h"
#include "core/svg.h"
#include "gpu/nvml.h"
#include "profile/pm_metrics.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define W 1200   /* the SVG's width (viewBox units; the page scales it to its column) */
#define L 150    /* the lanes' names */
#define PW 970   /* the plot */
#define NB 485   /* columns: 2 units each */
#define GAP 6    /* between lanes */
#define OV_H 40  /* the lanes' heights: the whole-run strip */
#define K_H 84   /* kernels */
#define C_H 40   /* copies */
#define S_H 26   /* host in synchronising calls */
#define NV_H 40  /* NVML utilisation; the other NVML lanes are S_H */
#define MAX_DEV 8 /* devices drawn (NVML lanes, counter tracks); more are named in a note */

#define esc gd_html_esc

/* ---- the time axis ---- */
struct axis {
	int64_t t0; /* the window's start, ns on the profile's clock: tick labels count from it */
	double len; /* its length, ns */
};

static double ax_x(const struct axis *ax, int64_t t)
{
	double v = gd_i64_diff(t, ax->t0) / ax->len;
	v = v < 0 ? 0 : v > 1 ? 1 : v;
	return L + PW * v;
}

/* 1, 2 or 5 × 10^k: about `want` steps over `range` */
static double nice_step(double range, int want)
{
	double raw = range / (want > 0 ? want : 1), mag, r;
	if (!(raw > 0))
		return 1;
	mag = pow(10, floor(log10(raw)));
	r = raw / mag;
	return (r < 1.5 ? 1 : r < 3.5 ? 2 : r < 7.5 ? 5 : 10) * mag;
}

/* The unit of an axis of times up to `range` ns. */
static double time_unit(double range, const char **name)
{
	static const struct {
		double ns;
		const char *name;
	} u[] = {{60e9, "min"}, {1e9, "s"}, {1e6, "ms"}, {1e3, "µs"}, {1, "ns"}};
	for (int i = 0; i < 5; i++)
		if (range >= (i == 0 ? 600e9 : u[i].ns) || i == 4) {
			*name = u[i].name;
			return u[i].ns;
		}
	*name = "ns";
	return 1;
}

/* Ticks of a time axis over [0, range] ns: their step (ns) and how to print them. */
struct ticks {
	double step, unit;
	const char *uname;
	int decimals;
};

static struct ticks time_ticks(double range, int want)
{
	struct ticks t;
	t.unit = time_unit(range, &t.uname);
	t.step = nice_step(range / t.unit, want) * t.unit;
	t.decimals = t.step / t.unit >= 1 ? 0 : (int)ceil(-log10(t.step / t.unit) - 1e-9);
	t.decimals = t.decimals > 6 ? 6 : t.decimals;
	return t;
}

static char *tick_label(char *b, size_t n, const struct ticks *t, double v)
{
	if (fabs(v) < t->step * 1e-6)
		snprintf(b, n, "0");
	else
		snprintf(b, n, "%.*f %s", t->decimals, v / t->unit, t->uname);
	return b;
}

/* Grid lines over [ytop, ybot] and tick labels under ybot (above ytop when `above`). */
static void x_axis(FILE *f, const struct axis *ax, int ytop, int ybot, int above, int want)
{
	struct ticks t = time_ticks(ax->len, want);
	char b[48];
	fputs("<g class='x-axis'>", f);
	for (long k = 0;; k++) {
		double v = (double)k * t.step, x;
		if (v > ax->len * (1 + 1e-9))
			break;
		x = L + PW * v / ax->len;
		fprintf(f, "<line x1='%.1f' y1='%d' x2='%.1f' y2='%d' stroke='#d5d9e0' stroke-width='0.6'/>", x, ytop, x,
			ybot + (above ? 0 : 4));
		fprintf(f, "<text class='tick' x='%.1f' y='%d' text-anchor='middle'>%s</text>", x,
			above ? ytop - 5 : ybot + 16, tick_label(b, sizeof(b), &t, v));
	}
	fputs("</g>\n", f);
}

/* ---- columns ---- */
/* Adds to each column the share of it that [a, b) covers, times v; with w, also the share
 * alone into w (the weights of a time-weighted mean). */
static void add(double *col, double *w, const struct axis *ax, int64_t a, int64_t b, double v)
{
	double width = ax->len / NB, x0, x1;
	if (b <= a || !(width > 0))
		return;
	/* exact differences (a profile's times may be anywhere in int64), columns clamped before
	 * the conversion to int so a far-away event cannot overflow it */
	x0 = gd_i64_diff(a, ax->t0) / width;
	x1 = gd_i64_diff(b, ax->t0) / width;
	if (!(x0 < NB) || !(x1 > 0))
		return;
	x0 = x0 < 0 ? 0 : x0;
	x1 = x1 > NB ? NB : x1;
	for (int i = (int)floor(x0); i < NB && i < x1; i++) {
		double lo = x0 > i ? x0 : i, hi = x1 < i + 1 ? x1 : i + 1;
		if (hi > lo) {
			col[i] += (hi - lo) * v;
			if (w)
				w[i] += hi - lo;
		}
	}
}

/* The union of start-sorted intervals, merged on the fly, added as coverage (0..1). */
struct merge {
	int64_t a, b;
	int open;
};

static void merge_add(struct merge *m, double *col, const struct axis *ax, int64_t a, int64_t b)
{
	if (b < a)
		return;
	if (m->open && a <= m->b) {
		if (b > m->b)
			m->b = b;
		return;
	}
	if (m->open)
		add(col, NULL, ax, m->a, m->b, 1);
	m->a = a, m->b = b, m->open = 1;
}

static void merge_end(struct merge *m, double *col, const struct axis *ax)
{
	if (m->open)
		add(col, NULL, ax, m->a, m->b, 1);
	m->open = 0;
}

/* The activity lanes of one window. */
struct lanes {
	double busy[NB];                  /* union of kernels, copies and memsets (the summary's) */
	double kern[NB];                  /* union of kernels */
	double kind[GD_KIND_COUNT][NB];   /* summed kernel time per kind (concurrent kernels add) */
	double copy[NB];                  /* union of copies and memsets */
	double cls[GD_CPY_COUNT][NB];     /* summed copy time per class */
	double sync[NB];                  /* union of synchronising calls */
};

static void fill_lanes(const struct gd_analysis *a, const int *kind_of, const struct axis *ax, struct lanes *ln)
{
	const struct gd_profile *p = &a->p;
	const struct gd_summary *s = &a->s;
	struct merge m = {0};
	memset(ln, 0, sizeof(*ln));
	for (long i = 0; i < s->nbusy; i++)
		add(ln->busy, NULL, ax, s->busy[i].start, s->busy[i].end, 1);
	for (long i = 0; i < p->nk; i++) {
		const struct gd_pkernel *k = &p->k[i];
		int kd = k->name >= 0 && k->name < p->nnames ? kind_of[k->name] : GD_KIND_OTHER;
		merge_add(&m, ln->kern, ax, k->start, k->end);
		add(ln->kind[kd], NULL, ax, k->start, k->end, 1);
	}
	merge_end(&m, ln->kern, ax);
	for (long i = 0; i < p->nc; i++) {
		merge_add(&m, ln->copy, ax, p->c[i].start, p->c[i].end);
		add(ln->cls[gd_copy_class(p->c[i].kind)], NULL, ax, p->c[i].start, p->c[i].end, 1);
	}
	merge_end(&m, ln->copy, ax);
	for (long i = 0; i < p->na; i++)
		if (p->a[i].cat == GD_API_SYNC || p->a[i].cat == GD_API_COPY_SYNC)
			merge_add(&m, ln->sync, ax, p->a[i].start, p->a[i].end);
	merge_end(&m, ln->sync, ax);
	for (int i = 0; i < NB; i++) {
		ln->busy[i] = ln->busy[i] > 1 ? 1 : ln->busy[i];
		ln->kern[i] = ln->kern[i] > 1 ? 1 : ln->kern[i];
		ln->copy[i] = ln->copy[i] > 1 ? 1 : ln->copy[i];
		ln->sync[i] = ln->sync[i] > 1 ? 1 : ln->sync[i];
	}
}

/* Each kind's part of a lane h units high: the covered share split in proportion to the kinds'
 * summed time in the column (sum: the kinds' arrays; cover: the union). A column with any
 * activity is drawn at least two units high, so that a microsecond kernel in a millisecond
 * column still shows (the legend says so). */
static void split(const double (*sum)[NB], int nsum, const double *cover, int which, int h, double *out)
{
	for (int i = 0; i < NB; i++) {
		double tot = 0, c = cover[i] > 0 && cover[i] * h < 2 ? 2.0 / h : cover[i];
		for (int k = 0; k < nsum; k++)
			tot += sum[k][i];
		out[i] = tot > 0 ? c * sum[which][i] / tot : 0;
	}
}

/* ---- drawing ---- */
static void lane_frame(FILE *f, int y, int h, const char *id, const char *name, const char *top, const char *bottom)
{
	fprintf(f, "<g class='lane' id='lane-%s'><rect x='%d' y='%d' width='%d' height='%d' fill='#f3f4f7'/>", id, L, y,
		PW, h);
	fprintf(f, "<text class='ln' x='4' y='%d'>", y + (h > 24 ? 14 : h / 2 + 4));
	esc(f, name);
	fputs("</text>", f);
	if (top) {
		fprintf(f, "<text class='ys' x='%d' y='%d'>", L + PW + 5, y + 9);
		esc(f, top);
		fputs("</text>", f);
	}
	if (bottom) {
		fprintf(f, "<text class='ys' x='%d' y='%d'>", L + PW + 5, y + h);
		esc(f, bottom);
		fputs("</text>", f);
	}
	fputs("</g>\n", f);
}

/* A filled area between base[i] and base[i] + v[i] (fractions of the lane) in each column, one
 * sub-path per run of columns at least 0.15 units high; base then advances by v. */
static void area(FILE *f, int y, int h, double *base, const double *v, const char *color, const char *cls)
{
	int any = 0;
	for (int i = 0; i < NB;) {
		int j;
		if (!(v[i] * h >= 0.15)) {
			i++;
			continue;
		}
		if (!any++)
			fprintf(f, "<path class='%s' fill='%s' d='", cls, color);
		fprintf(f, "M%.1f,%.1f", L + (double)PW * i / NB, y + h - base[i] * h);
		for (j = i; j < NB && v[j] * h >= 0.15; j++)
			fprintf(f, "V%.1fH%.1f", y + h - (base[j] + v[j]) * h, L + (double)PW * (j + 1) / NB);
		for (int q = j - 1; q >= i; q--)
			fprintf(f, "V%.1fH%.1f", y + h - base[q] * h, L + (double)PW * q / NB);
		fputc('Z', f);
		i = j;
	}
	if (any)
		fputs("'/>\n", f);
	for (int i = 0; i < NB; i++)
		base[i] += v[i];
}

/* A step line through the columns' values (fractions of the lane; NaN: a gap). */
static void line(FILE *f, int y, int h, const double *v, const char *color, const char *cls, const char *dash)
{
	int pen = 0;
	fprintf(f, "<path class='%s' fill='none' stroke='%s' stroke-width='1.2'%s%s%s d='", cls, color,
		dash ? " stroke-dasharray='" : "", dash ? dash : "", dash ? "'" : "");
	for (int i = 0; i < NB; i++) {
		double u;
		if (!isfinite(v[i])) {
			pen = 0;
			continue;
		}
		u = v[i] < 0 ? 0 : v[i] > 1 ? 1 : v[i];
		if (!pen)
			fprintf(f, "M%.1f,%.1f", L + (double)PW * i / NB, y + h - u * h);
		else
			fprintf(f, "V%.1f", y + h - u * h);
		fprintf(f, "H%.1f", L + (double)PW * (i + 1) / NB);
		pen = 1;
	}
	fputs("'/>\n", f);
}

/* ---- NVML lanes: utilisation, SM clock, power, memory used, per device ---- */
enum { NV_UTIL, NV_CLOCK, NV_POWER, NV_MEM, NV_COUNT };

static double nvml_value(const struct gd_pnvml *m, int q)
{
	switch (q) {
	case NV_UTIL: return m->util_gpu >= 0 ? m->util_gpu : NAN;
	case NV_CLOCK: return m->sm_mhz >= 0 ? m->sm_mhz : NAN;
	case NV_POWER: return m->power_w;
	default: return m->mem_used / 1073741824.0;
	}
}

/* Device ids with NVML samples, in order of first sample; how many (at most MAX_DEV) and, in
 * *more, how many were left out. */
static int nvml_devices(const struct gd_profile *p, int *dev, int *more)
{
	int n = 0;
	*more = 0;
	for (long i = 0; i < p->ns; i++) {
		int j = 0;
		while (j < n && dev[j] != p->s[i].device)
			j++;
		if (j < n)
			continue;
		if (n == MAX_DEV) {
			int seen = 0; /* count each left-out device once: a short scan is enough */
			for (long q = 0; q < i && !seen; q++)
				seen = p->s[q].device == p->s[i].device;
			*more += !seen;
			continue;
		}
		dev[n++] = p->s[i].device;
	}
	return n;
}

/* One device's quantity as columns: utilisation is the share of NVML's last period in which a
 * kernel ran, so a sample stands for the time since the previous one; the others are
 * readings at an instant, held until the next sample. Returns the largest column mean. */
static double nvml_columns(const struct gd_profile *p, int dev, int q, const struct axis *ax, double *mean)
{
	static double sum[NB], w[NB];
	double top = 0, prev_v = NAN;
	int64_t prev_t = 0;
	int have = 0;
	memset(sum, 0, sizeof(sum));
	memset(w, 0, sizeof(w));
	for (long i = 0; i < p->ns; i++) {
		double v;
		if (p->s[i].device != dev)
			continue;
		v = nvml_value(&p->s[i], q);
		if (have) {
			double seg = q == NV_UTIL ? v : prev_v;
			if (isfinite(seg))
				add(sum, w, ax, prev_t, p->s[i].t, seg);
		}
		prev_t = p->s[i].t, prev_v = v, have = 1;
	}
	for (int i = 0; i < NB; i++) {
		mean[i] = w[i] > 0 ? sum[i] / w[i] : NAN;
		if (isfinite(mean[i]) && mean[i] > top)
			top = mean[i];
	}
	return top;
}

/* ---- GPU-metrics counter tracks (issue 18, pm_metrics.h): one per device and quantity ---- */
static const int track_pm[] = {GD_PM_SM_ACTIVE, GD_PM_SM_ISSUE,      GD_PM_TENSOR,    GD_PM_DRAM,
			       GD_PM_L2,        GD_PM_WARPS_ACTIVE, GD_PM_PCIE_READ, GD_PM_PCIE_WRITE};
#define NTRACK_PM ((int)(sizeof(track_pm) / sizeof(track_pm[0])))
#define MAX_TRACKS (MAX_DEV * NTRACK_PM)

struct pm_track {
	int device, m;
};

static int is_pct(int m) { return !strcmp(gd_pm_metrics[m].unit, "%"); }

/* The tracks to draw: devices in the order of their first sample, each with the quantities
 * some sample of it carries. Returns how many; *ndev the devices drawn. */
static int pm_tracks(const struct gd_profile *p, struct pm_track *t, int *ndev)
{
	int n = 0, seen[MAX_DEV], nseen = 0;
	int has[MAX_DEV][NTRACK_PM];
	memset(has, 0, sizeof(has));
	for (long i = 0; i < p->npm; i++) {
		int d = p->pm[i].device, j = 0;
		while (j < nseen && seen[j] != d)
			j++;
		if (j == nseen) {
			if (nseen == MAX_DEV)
				continue;
			seen[nseen++] = d;
		}
		for (int q = 0; q < NTRACK_PM; q++)
			has[j][q] |= isfinite(p->pm[i].v[track_pm[q]]);
	}
	*ndev = nseen;
	for (int j = 0; j < nseen; j++)
		for (int q = 0; q < NTRACK_PM; q++)
			if (has[j][q])
				t[n++] = (struct pm_track){seen[j], track_pm[q]};
	return n;
}

#define TRACK_H 30

/* One track: each column's time-weighted mean of the samples in it, as an area; a column
 * without a sample is a gap, not a zero. Percentages on 0..100, rates on 0..their largest. */
static void pm_track_svg(FILE *f, const struct gd_profile *p, const struct pm_track *tr, int ndev,
			 const struct axis *ax, int y)
{
	static double sum[NB], w[NB], v[NB], base[NB];
	const struct gd_pm_metric_desc *d = &gd_pm_metrics[tr->m];
	double top = is_pct(tr->m) ? 100 : 0;
	char b[48], lab[96], id[96];
	memset(sum, 0, sizeof(sum));
	memset(w, 0, sizeof(w));
	memset(base, 0, sizeof(base));
	for (long i = 0; i < p->npm; i++)
		if (p->pm[i].device == tr->device && isfinite(p->pm[i].v[tr->m]))
			add(sum, w, ax, p->pm[i].t_start, p->pm[i].t_end, p->pm[i].v[tr->m]);
	for (int i = 0; i < NB; i++)
		if (w[i] > 0 && !is_pct(tr->m) && sum[i] / w[i] > top)
			top = sum[i] / w[i];
	for (int i = 0; i < NB; i++)
		v[i] = w[i] > 0 && top > 0 ? fmax(0, fmin(1, sum[i] / w[i] / top)) : 0;
	if (ndev > 1)
		snprintf(lab, sizeof(lab), "GPU %d %s %s", tr->device, d->label, d->unit);
	else
		snprintf(lab, sizeof(lab), "%s %s", d->label, d->unit);
	if (is_pct(tr->m))
		snprintf(b, sizeof(b), "100 %%");
	else
		gd_fmt_si(b, sizeof(b), top, d->unit);
	snprintf(id, sizeof(id), "pm-%d-%s", tr->device, d->column);
	fprintf(f, "<g class='pm-track' id='pm-track-%d-%s'>", tr->device, d->column);
	lane_frame(f, y, TRACK_H, id, lab, b, "0");
	area(f, y, TRACK_H, base, v, gd_palette(tr->m), "pm");
	fputs("</g>\n", f);
}

/* The whole-run strip without a trace (light mode): the first device's GPU active (GR active,
 * else SM active) from its PM samples. */
static void pm_overview(FILE *f, const struct gd_profile *p, const struct axis *ax, int y)
{
	static double sum[NB], w[NB], v[NB], base[NB];
	int m = GD_PM_GR_ACTIVE, dev = p->pm[0].device;
	char lab[64];
	for (long i = 0; i < p->npm && m == GD_PM_GR_ACTIVE; i++)
		if (p->pm[i].device == dev && !isfinite(p->pm[i].v[GD_PM_GR_ACTIVE]) && isfinite(p->pm[i].v[GD_PM_SM_ACTIVE]))
			m = GD_PM_SM_ACTIVE;
	memset(sum, 0, sizeof(sum));
	memset(w, 0, sizeof(w));
	memset(base, 0, sizeof(base));
	for (long i = 0; i < p->npm; i++)
		if (p->pm[i].device == dev && isfinite(p->pm[i].v[m]))
			add(sum, w, ax, p->pm[i].t_start, p->pm[i].t_end, p->pm[i].v[m]);
	for (int i = 0; i < NB; i++)
		v[i] = w[i] > 0 ? fmax(0, fmin(1, sum[i] / w[i] / 100)) : 0;
	snprintf(lab, sizeof(lab), "whole run: %s", gd_pm_metrics[m].label);
	lane_frame(f, y, OV_H, "overview", lab, "100 %", "0");
	area(f, y, OV_H, base, v, gd_palette(m), "pm");
}

/* ---- the timeline SVG ---- */
static const char *const nv_name[NV_COUNT] = {"NVML utilisation", "NVML SM clock", "NVML power", "NVML memory used"};
static const char *const nv_unit[NV_COUNT] = {"%", "MHz", "W", "GiB"};
static const char *const nv_color[NV_COUNT] = {"#9ecae9", "#bcbddc", "#fdd0a2", "#c7e9c0"};


/* Copies stacked by copy kind over `cover` (a share of each column), from base up. */
static void draw_copy_kinds(FILE *f, const struct lanes *ln, const double *cover, int y, int h, double *base,
			    const char *cls)
{
	double v[NB];
	for (int c = 0; c < GD_CPY_COUNT; c++) {
		char name[48];
		split(ln->cls, GD_CPY_COUNT, cover, c, h, v);
		snprintf(name, sizeof(name), "%s copy-%d", cls, c);
		area(f, y, h, base, v, gd_html_copy_color(c), name);
	}
}

/* The kernels by kind; in the whole-run strip (copies_too), what copies alone kept busy on top. */
static void draw_kernels(FILE *f, const struct lanes *ln, int y, int h, int copies_too)
{
	double base[NB], v[NB];
	memset(base, 0, sizeof(base));
	for (int k = 0; k < GD_KIND_COUNT; k++) {
		char cls[48];
		split(ln->kind, GD_KIND_COUNT, ln->kern, k, h, v);
		snprintf(cls, sizeof(cls), "kind kind-%d", k);
		area(f, y, h, base, v, gd_html_kind_color(k), cls);
	}
	if (copies_too) {
		for (int i = 0; i < NB; i++)
			v[i] = ln->busy[i] > ln->kern[i] ? ln->busy[i] - ln->kern[i] : 0;
		draw_copy_kinds(f, ln, v, y, h, base, "copy-only");
	}
}

static void draw_copies(FILE *f, const struct lanes *ln, int y, int h)
{
	double base[NB];
	memset(base, 0, sizeof(base));
	draw_copy_kinds(f, ln, ln->copy, y, h, base, "copy");
}

/* The height of the zoomed lanes, to size the SVG. */
static int zoom_height(const struct gd_profile *p, int nnv, int ntr)
{
	int h = p->nk || p->nc ? K_H + GAP : 0;
	if (p->nc)
		h += C_H + GAP;
	if (p->have_api)
		h += S_H + GAP;
	h += nnv * (NV_H + GAP + 3 * (S_H + GAP));
	h += ntr * (TRACK_H + GAP);
	return h;
}

static void timeline_svg(FILE *f, const struct gd_analysis *a, const int *kind_of, struct lanes *ln)
{
	const struct gd_profile *p = &a->p;
	const struct gd_loop_view *lv = &a->loop;
	struct axis run = {p->t_start, gd_i64_diff(p->t_end, p->t_start)};
	struct axis zoom = {lv->w0, gd_i64_diff(lv->w1, lv->w0)};
	int overview = lv->window != GD_WIN_RUN && run.len > 0 && zoom.len < run.len;
	int dev[MAX_DEV], more, nnv = nvml_devices(p, dev, &more), ndev_pm;
	struct pm_track tr[MAX_TRACKS];
	int ntr = pm_tracks(p, tr, &ndev_pm);
	int y = 6, height, top0;
	char b1[48], b2[48];
	double col[NB], base[NB];

	height = 6 + (overview ? 20 + OV_H + 34 : 0) + zoom_height(p, nnv, ntr) + 44;
	fprintf(f, "<svg id='timeline' xmlns='http://www.w3.org/2000/svg' viewBox='0 0 %d %d' role='img' "
		   "aria-label='timeline'>\n",
		W, height);
	if (overview) {
		/* the whole run, the window marked, and two lines down to the zoomed lanes */
		double x0 = ax_x(&run, lv->w0), x1 = ax_x(&run, lv->w1);
		y += 20;
		if (p->nk || p->nc || !p->npm) {
			fill_lanes(a, kind_of, &run, ln);
			lane_frame(f, y, OV_H, "overview", "whole run", "100 %", "0");
			draw_kernels(f, ln, y, OV_H, 1);
		} else /* light mode: no trace, the counters say where the GPU worked */
			pm_overview(f, p, &run, y);
		x_axis(f, &run, y, y + OV_H, 1, 10);
		if (x1 - x0 < 3)
			x1 = x0 + 3;
		fprintf(f, "<rect x='%d' y='%d' width='%.1f' height='%d' fill='#fff' fill-opacity='0.6'/>", L, y, x0 - L,
			OV_H);
		fprintf(f, "<rect x='%.1f' y='%d' width='%.1f' height='%d' fill='#fff' fill-opacity='0.6'/>", x1, y,
			L + PW - x1, OV_H);
		fprintf(f, "<rect id='zoom-mark' x='%.1f' y='%d' width='%.1f' height='%d' fill='none' stroke='#1d2330' "
			   "stroke-width='1.5'/>",
			x0, y - 1, x1 - x0, OV_H + 2);
		y += OV_H;
		fprintf(f, "<path d='M%.1f,%dL%d,%dM%.1f,%dL%d,%d' stroke='#1d2330' stroke-width='0.8' fill='none' "
			   "stroke-dasharray='3 2'/>\n",
			x0, y + 1, L, y + 30, x1, y + 1, L + PW, y + 30);
		y += 34;
	}
	top0 = y;
	fill_lanes(a, kind_of, &zoom, ln);
	if (p->nk || p->nc) {
		lane_frame(f, y, K_H, "kernels", "kernels", "100 %", "0");
		draw_kernels(f, ln, y, K_H, 0);
		y += K_H + GAP;
	}
	if (p->nc) {
		lane_frame(f, y, C_H, "copies", "copies, memsets", "100 %", "0");
		draw_copies(f, ln, y, C_H);
		y += C_H + GAP;
	}
	if (p->have_api) {
		memset(base, 0, sizeof(base));
		for (int i = 0; i < NB; i++)
			col[i] = ln->sync[i] > 0 && ln->sync[i] * S_H < 2 ? 2.0 / S_H : ln->sync[i];
		lane_frame(f, y, S_H, "sync", "host in sync calls", "100 %", "0");
		area(f, y, S_H, base, col, "#c0392b", "sync");
		y += S_H + GAP;
	}
	for (int d = 0; d < nnv; d++)
		for (int q = 0; q < NV_COUNT; q++) {
			int h = q == NV_UTIL ? NV_H : S_H;
			double top = nvml_columns(p, dev[d], q, &zoom, col), v[NB];
			char name[64], id[32];
			int any = 0;
			for (int i = 0; i < NB; i++)
				any |= isfinite(col[i]);
			if (q == NV_UTIL)
				top = 100;
			if (nnv > 1)
				snprintf(name, sizeof(name), "GPU %d %s %s", dev[d], nv_name[q], nv_unit[q]);
			else
				snprintf(name, sizeof(name), "%s %s", nv_name[q], nv_unit[q]);
			snprintf(id, sizeof(id), "nvml-%d-%d", dev[d], q);
			if (q == NV_MEM)
				gd_fmt_bytes(b1, sizeof(b1), top * 1073741824.0);
			else
				snprintf(b1, sizeof(b1), "%.0f %s", top, nv_unit[q]);
			lane_frame(f, y, h, id, name, !any ? "no sample" : top > 0 ? b1 : NULL, any ? "0" : NULL);
			memset(base, 0, sizeof(base));
			for (int i = 0; i < NB; i++)
				v[i] = isfinite(col[i]) && top > 0 ? fmax(0, fmin(1, col[i] / top)) : 0;
			area(f, y, h, base, v, nv_color[q], "nvml");
			for (int i = 0; i < NB; i++)
				v[i] = isfinite(col[i]) && top > 0 ? col[i] / top : NAN;
			line(f, y, h, v, "#3b5b8c", "nvml-line", NULL);
			if (q == NV_UTIL && p->nk) /* the trace's kernel share, to compare */
				line(f, y, h, ln->kern, "#1d2330", "trace-kernels", "4 2");
			y += h + GAP;
		}
	for (int i = 0; i < ntr; i++) {
		pm_track_svg(f, p, &tr[i], ndev_pm, &zoom, y);
		y += TRACK_H + GAP;
	}
	x_axis(f, &zoom, top0, y - GAP, 0, 10);
	fprintf(f, "<text class='axt' x='%d' y='%d' text-anchor='end'>", L + PW, y - GAP + 34);
	switch (lv->window) {
	case GD_WIN_LOOP: fputs("time since the main loop began", f); break;
	case GD_WIN_SPAN: fputs("time since the first GPU work", f); break;
	case GD_WIN_PM_STEADY: fputs("time since the steady part began", f); break;
	default: fputs("time since the capture began", f);
	}
	if (lv->window != GD_WIN_RUN)
		fprintf(f, " (%s into the run)", gd_fmt_time(b2, sizeof(b2), gd_i64_diff(lv->w0, p->t_start)));
	fputs("</text>\n</svg>\n", f);
	if (more)
		fprintf(f, "<p class='note'>NVML lanes of %d more GPUs are left out (the first %d are drawn).</p>\n", more,
			MAX_DEV);
}

/* ---- the legend: every kind, copy class and lane drawn ---- */
static void swatch(FILE *f, const char *attr, const char *val, const char *color, const char *label, int line_style)
{
	fprintf(f, "<span class='lg' %s='", attr);
	esc(f, val);
	if (line_style)
		fprintf(f, "'><i style='height:0;border-top:2px dashed %s'></i>", color);
	else
		fprintf(f, "'><i style='background:%s'></i>", color);
	esc(f, label);
	fputs("</span>", f);
}

static void legend(FILE *f, const struct gd_analysis *a)
{
	const struct gd_summary *s = &a->s;
	const struct gd_profile *p = &a->p;
	int any = 0;
	fputs("<div class='legend' id='timeline-legend'>", f);
	for (int k = 0; k < GD_KIND_COUNT; k++)
		if (s->kind_n[k]) {
			if (!any++)
				fputs("<span class='lgh'>kernels</span>", f);
			swatch(f, "data-kind", gd_kind_name(k), gd_html_kind_color(k), gd_kind_name(k), 0);
		}
	any = 0;
	for (int c = 0; c < GD_CPY_COUNT; c++)
		if (s->cp[c].count) {
			if (!any++)
				fputs("<span class='lgh'>copies</span>", f);
			swatch(f, "data-copy", gd_copy_class_name(c), gd_html_copy_color(c), gd_copy_class_name(c), 0);
		}
	if (p->have_api)
		swatch(f, "data-lane", "sync", "#c0392b", "host in synchronising calls", 0);
	if (p->ns) {
		swatch(f, "data-lane", "nvml", nv_color[NV_UTIL], "NVML samples (column mean)", 0);
		if (p->nk)
			swatch(f, "data-lane", "trace-kernels", "#1d2330", "trace: share of the column a kernel ran", 1);
	}
	fputs("<span class='lg note'>(a column with any activity is at least 2 units high)</span></div>\n", f);
}

/* What NVML's utilisation counts, beside gpudiag's GPU busy, with both figures of the window. */
static void nvml_vs_busy(FILE *f, const struct gd_analysis *a)
{
	const struct gd_loop_view *lv = &a->loop;
	char b1[48];
	if (!a->p.ns)
		return;
	fputs("<p class='note' id='nvml-vs-busy'><b>NVML utilisation is not GPU busy.</b> NVML's utilisation is the "
	      "share of its last sample period (1/6 s to 1 s, by GPU model) in which at least one kernel ran: kernels "
	      "only (a copy or memset is not counted), averaged over that period, and read by <code>gpudiag run</code> "
	      "from time to time, so a burst shorter than the period reads low and the value lags the work. gpudiag's "
	      "GPU busy is measured from the trace: the union of kernel, copy and memset intervals, to the nanosecond",
	      f);
	if (lv->nvml_util_loop.n > 0)
		fprintf(f, ". In the window above NVML read %.0f %% on average (%d sample%s, %.0f to %.0f %%), ",
			lv->nvml_util_loop.mean, lv->nvml_util_loop.n, lv->nvml_util_loop.n == 1 ? "" : "s",
			lv->nvml_util_loop.min, lv->nvml_util_loop.max);
	else
		fputs(". No NVML sample fell inside the window above (it is shorter than NVML's sampling), ", f);
	if (isfinite(a->v.busy_fraction))
		fprintf(f, "where the trace has the GPU busy %s of the judged span (the dashed line is the trace's kernel "
			   "share of each column).</p>\n",
			gd_fmt_pct(b1, sizeof(b1), a->v.busy_fraction));
	else
		fputs("and no trace to compare it with (light mode): the GPU counters' tracks are the measured activity, "
		      "cycle by cycle.</p>\n",
		      f);
}

/* The legend of the counter tracks: what each quantity counted, in which unit. */
static void pm_legend(FILE *f, const struct gd_profile *p)
{
	struct pm_track tr[MAX_TRACKS];
	int ndev, ntr = pm_tracks(p, tr, &ndev);
	char b[48];
	static const char *const heads[] = {"track", "unit", "what was counted"};
	if (!ntr)
		return;
	fputs("<p class='note' id='pm-legend'>GPU counters (CUPTI PM sampling", f);
	if (p->pm_interval_ns > 0)
		fprintf(f, ", a sample every %s", gd_fmt_interval(b, sizeof(b), p->pm_interval_ns));
	fputs("): each column of a track is the time-weighted mean of the samples in it; a gap is a column without a "
	      "sample. Percentages are of the unit's sustained peak (0 to 100 %), rates on 0 to the track's largest "
	      "column (right).</p>\n",
	      f);
	gd_html_table_open(f, "pm-quantities", heads, 3);
	for (int i = 0; i < ntr; i++) {
		int dup = 0;
		for (int j = 0; j < i; j++)
			dup |= tr[j].m == tr[i].m;
		if (dup)
			continue;
		fputs("<tr>", f);
		gd_html_text(f, gd_pm_metrics[tr[i].m].label);
		gd_html_text(f, gd_pm_metrics[tr[i].m].unit);
		gd_html_prose(f, gd_pm_metrics[tr[i].m].what);
		fputs("</tr>\n", f);
	}
	gd_html_table_close(f);
}

/* Why no counter tracks: counters off or refused (the reason, from the profile, escaped). */
static void pm_note(FILE *f, const struct gd_profile *p)
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

/* ---- the main loop iteration by iteration ---- */
#define IT_H 170 /* the bars' height */


static void iterations(FILE *f, const struct gd_analysis *a)
{
	const struct gd_loop_view *lv = &a->loop;
	const struct gd_summary *s = &a->s;
	long n = lv->n;
	int ncol = n < NB ? (int)n : NB, T = 24;
	double top = gd_iter_ns(&lv->it[lv->slowest]) * 1.08, colw = (double)PW / ncol;
	if (!(top > 0))
		return; /* iterations of no length (concurrent openers): nothing to draw */
	double bw = colw >= 3 ? colw * 0.78 : colw;
	struct ticks yt = time_ticks(top, 4);
	const char *opener = "";
	char b1[48], b2[48], b3[48], b4[48];
	static const char *const part[3] = {"kernel", "copy", "idle"};
	static const char *const color[3] = {"#4c78a8", "#59a14f", "#e8a0a0"};
	for (int i = 0; i < s->nks; i++)
		if (s->ks[i].name == lv->opener)
			opener = s->ks[i].short_name;
	fputs("<h3 id='iterations-title'>The main loop, iteration by iteration</h3>\n<p>", f);
	fprintf(f, "%ld iterations of %ld kernel%s each (an iteration opens with ", n, a->v.loop_period,
		a->v.loop_period == 1 ? "" : "s");
	if (lv->opener_runs > 1)
		fprintf(f, "every %ld%s run of ", lv->opener_runs,
			lv->opener_runs % 10 == 1 && lv->opener_runs % 100 != 11   ? "st"
			: lv->opener_runs % 10 == 2 && lv->opener_runs % 100 != 12 ? "nd"
			: lv->opener_runs % 10 == 3 && lv->opener_runs % 100 != 13 ? "rd"
										   : "th");
	fputs("<code>", f);
	esc(f, opener);
	fprintf(f, "</code>); median <b>%s</b>, slowest <b>#%ld: %s</b>. Each bar is %s: the time a kernel ran, the time "
		   "only copies or memsets ran, and idle time, when nothing ran on the GPU.</p>\n",
		gd_fmt_time(b1, sizeof(b1), lv->median_ns), lv->slowest + 1,
		gd_fmt_time(b2, sizeof(b2), gd_iter_ns(&lv->it[lv->slowest])),
		n > ncol ? "a group of iterations (their mean; the dark tick is the group's slowest)" : "one iteration");
	fprintf(f, "<svg id='iterations' xmlns='http://www.w3.org/2000/svg' viewBox='0 0 %d %d' role='img' "
		   "aria-label='iterations'>\n",
		W, T + IT_H + 46);
	fprintf(f, "<rect x='%d' y='%d' width='%d' height='%d' fill='#f3f4f7'/>", L, T, PW, IT_H);
	fprintf(f, "<text class='ln' x='4' y='%d'>iteration time</text>\n", T + 14);
	/* y grid and labels (right, as the timeline's) */
	for (long k = 0;; k++) {
		double v = (double)k * yt.step, y = T + IT_H - IT_H * v / top;
		if (v > top)
			break;
		fprintf(f, "<line x1='%d' y1='%.1f' x2='%d' y2='%.1f' stroke='#d5d9e0' stroke-width='0.6'/>"
			   "<text class='tick ytick' x='%d' y='%.1f'>%s</text>",
			L, y, L + PW, y, L + PW + 5, y + 4, tick_label(b1, sizeof(b1), &yt, v));
	}
	fputc('\n', f);
	for (int c = 0; c < ncol; c++) {
		long i0 = (long)((double)c * n / ncol), i1 = (long)((double)(c + 1) * n / ncol);
		double v[3] = {0, 0, 0}, mx = 0, x = L + colw * c + (colw - bw) / 2, y = T + IT_H;
		if (i1 <= i0)
			continue;
		for (long i = i0; i < i1; i++) {
			v[0] += lv->it[i].kernel_ns, v[1] += lv->it[i].copy_ns, v[2] += lv->it[i].idle_ns;
			mx = fmax(mx, gd_iter_ns(&lv->it[i]));
		}
		fputs("<g class='it'>", f);
		if (i1 - i0 == 1) {
			fprintf(f, "<title>iteration %ld: %s (kernel %s, copy %s, idle %s)</title>", i0 + 1,
				gd_fmt_time(b1, sizeof(b1), gd_iter_ns(&lv->it[i0])), gd_fmt_time(b2, sizeof(b2), v[0]),
				gd_fmt_time(b3, sizeof(b3), v[1]), gd_fmt_time(b4, sizeof(b4), v[2]));
		} else {
			fprintf(f, "<title>iterations %ld to %ld: slowest %s</title>", i0 + 1, i1,
				gd_fmt_time(b1, sizeof(b1), mx));
		}
		for (int q = 0; q < 3; q++) {
			double h = IT_H * v[q] / (double)(i1 - i0) / top;
			if (h < 0.05)
				continue;
			fprintf(f, "<rect x='%.2f' y='%.2f' width='%.2f' height='%.2f' fill='%s'/>", x, y - h, bw, h, color[q]);
			y -= h;
		}
		if (i1 - i0 > 1)
			fprintf(f, "<rect x='%.2f' y='%.2f' width='%.2f' height='1.2' fill='#1d2330'/>", x,
				T + IT_H - IT_H * mx / top, bw);
		fputs("</g>", f);
	}
	fputc('\n', f);
	/* the median, and the slowest iteration marked above the plot */
	{
		double ym = T + IT_H - IT_H * lv->median_ns / top;
		double xs = L + colw * ((double)lv->slowest * ncol / n) + colw / 2;
		double ys = T + IT_H - IT_H * gd_iter_ns(&lv->it[lv->slowest]) / top;
		fprintf(f, "<line id='it-median' x1='%d' y1='%.1f' x2='%d' y2='%.1f' stroke='#1d2330' stroke-width='1' "
			   "stroke-dasharray='5 3'/>\n",
			L, ym, L + PW, ym);
		fprintf(f, "<path id='it-slowest' d='M%.1f,%.1fl-5,-7h10z' fill='#c0392b'/><text class='ys' x='%.1f' y='%d' "
			   "text-anchor='%s'>slowest: #%ld, %s</text>\n",
			xs, ys - 1, xs, T - 6, xs > L + PW - 100 ? "end" : xs < L + 100 ? "start" : "middle", lv->slowest + 1,
			gd_fmt_time(b2, sizeof(b2), gd_iter_ns(&lv->it[lv->slowest])));
	}
	/* iteration numbers */
	{
		double step = nice_step((double)n, 10);
		step = step < 1 ? 1 : step;
		fputs("<g class='x-axis'>", f);
		for (double v = step > 1 ? 0 : 1; v <= n + 1e-9; v += step) {
			double iv = v < 1 ? 1 : v, xv = L + colw * ((iv - 1) * ncol / n) + colw / 2;
			if (v >= 1 && step > 1 && v < 1 + step * 0.75)
				continue; /* too close to the 1 */
			fprintf(f, "<text class='tick' x='%.1f' y='%d' text-anchor='middle'>%.0f</text>", xv, T + IT_H + 16, iv);
		}
		fprintf(f, "</g><text class='axt' x='%d' y='%d' text-anchor='end'>iteration</text>\n", L + PW, T + IT_H + 36);
	}
	fputs("</svg>\n<div class='legend' id='iterations-legend'>", f);
	for (int q = 0; q < 3; q++)
		swatch(f, "data-part", part[q], color[q], q == 0 ? "kernel ran" : q == 1 ? "only copies ran" : "idle", 0);
	snprintf(b1, sizeof(b1), "median %s", gd_fmt_time(b2, sizeof(b2), lv->median_ns));
	swatch(f, "data-part", "median", "#1d2330", b1, 1);
	fputs("</div>\n", f);
}

/* ---- the section ---- */
void gd_html_timeline(FILE *f, const struct gd_analysis *a)
{
	const struct gd_profile *p = &a->p;
	const struct gd_loop_view *lv = &a->loop;
	struct lanes *ln;
	int *kind_of;
	char b1[48], b2[48], b3[48];
	if (lv->window == GD_WIN_NONE || !(lv->w1 > lv->w0)) {
		fputs("<p id='timeline-empty'>Nothing to draw: no GPU activity, and no samples over time.</p>\n", f);
		pm_note(f, p);
		return;
	}
	ln = malloc(sizeof(*ln));
	kind_of = malloc(((size_t)p->nnames + 1) * sizeof(int));
	if (!ln || !kind_of) {
		free(ln);
		free(kind_of);
		fputs("<p>The timeline could not be drawn: out of memory.</p>\n", f);
		return;
	}
	for (int i = 0; i < p->nnames; i++)
		kind_of[i] = GD_KIND_OTHER;
	for (int i = 0; i < a->s.nks; i++)
		kind_of[a->s.ks[i].name] = a->s.ks[i].kind;
	fputs("<p id='timeline-window'>", f);
	gd_fmt_time(b1, sizeof(b1), gd_i64_diff(lv->w0, p->t_start));
	gd_fmt_time(b2, sizeof(b2), gd_i64_diff(lv->w1, p->t_start));
	gd_fmt_time(b3, sizeof(b3), gd_i64_diff(lv->w1, lv->w0));
	switch (lv->window) {
	case GD_WIN_LOOP:
		fprintf(f, "Zoomed to the <b>main loop</b>, %s to %s into the run (%s), the part every verdict judges; the "
			   "strip at the top is the whole run, the loop framed.",
			b1, b2, b3);
		break;
	case GD_WIN_SPAN:
		fprintf(f, "No repeating loop was found: zoomed to the <b>GPU active span</b>, %s to %s into the run (%s), "
			   "from the first GPU work to the last.",
			b1, b2, b3);
		break;
	case GD_WIN_PM_STEADY:
		fprintf(f, "Light mode (no trace): zoomed to the <b>steady part</b> of the GPU counters, %s to %s into the "
			   "run (%s), after start-up.",
			b1, b2, b3);
		break;
	default: fprintf(f, "The whole capture (%s): no GPU work was traced.", b3);
	}
	fputs(" A column's height is the share of its time the activity covered.</p>\n", f);
	timeline_svg(f, a, kind_of, ln);
	legend(f, a);
	nvml_vs_busy(f, a);
	pm_legend(f, p);
	pm_note(f, p);
	if (lv->n >= 2)
		iterations(f, a);
	free(ln);
	free(kind_of);
}
