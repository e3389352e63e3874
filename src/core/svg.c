/* SVG charts; see svg.h. */
#include "core/svg.h"

#include "core/fileio.h"
#include "core/out.h"
#include "core/status.h"

#include <math.h>
#include <string.h>

static const char *palette[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
				"#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};

const char *gd_palette(int i) { return palette[(unsigned)i % (sizeof(palette) / sizeof(*palette))]; }

void gd_xml_escape(FILE *f, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
		switch (*p) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default:
			if (*p < 0x20 && *p != '\n' && *p != '\t')
				fputs("&#xFFFD;", f);
			else
				fputc(*p, f);
		}
	}
}

void gd_chart_init(struct gd_chart *c, const char *title, const char *xlabel, const char *ylabel)
{
	memset(c, 0, sizeof(*c));
	c->title = title;
	c->xlabel = xlabel;
	c->ylabel = ylabel;
	c->xmin = c->xmax = c->ymin = c->ymax = NAN;
}

void gd_chart_add(struct gd_chart *c, const char *label, const double *x, const double *y, int n,
		  enum gd_series_style style)
{
	struct gd_series *s;
	if (c->nseries >= GD_CHART_MAX_SERIES)
		return;
	s = &c->series[c->nseries++];
	memset(s, 0, sizeof(*s));
	s->label = label;
	s->x = x;
	s->y = y;
	s->n = n;
	s->style = style;
}

void gd_chart_hline(struct gd_chart *c, double y, const char *label)
{
	if (c->nlines >= GD_CHART_MAX_LINES)
		return;
	c->lines[c->nlines].y = y;
	c->lines[c->nlines].label = label;
	c->lines[c->nlines].color = NULL;
	c->nlines++;
}

struct frame {
	double x0, x1, y0, y1; /* data range (log10 if log) */
	int logx, logy;
	double px, py, pw, ph; /* plot area in pixels */
};

static int usable(double v, int lg) { return isfinite(v) && (!lg || v > 0); }
static double tr(double v, int lg) { return lg ? log10(v) : v; }

static double sx(const struct frame *fr, double x)
{
	return fr->px + (tr(x, fr->logx) - fr->x0) / (fr->x1 - fr->x0) * fr->pw;
}

static double sy(const struct frame *fr, double y)
{
	return fr->py + fr->ph - (tr(y, fr->logy) - fr->y0) / (fr->y1 - fr->y0) * fr->ph;
}

static void range(const struct gd_chart *c, int axis, double *lo, double *hi)
{
	int lg = axis ? c->logy : c->logx;
	double mn = INFINITY, mx = -INFINITY;
	double fmin = axis ? c->ymin : c->xmin, fmax = axis ? c->ymax : c->xmax;
	for (int i = 0; i < c->nseries; i++)
		for (int k = 0; k < c->series[i].n; k++) {
			double v = axis ? c->series[i].y[k] : c->series[i].x[k];
			if (usable(v, lg)) {
				mn = v < mn ? v : mn;
				mx = v > mx ? v : mx;
			}
		}
	if (axis)
		for (int i = 0; i < c->nlines; i++)
			if (usable(c->lines[i].y, lg)) {
				mn = c->lines[i].y < mn ? c->lines[i].y : mn;
				mx = c->lines[i].y > mx ? c->lines[i].y : mx;
			}
	if (usable(fmin, lg))
		mn = fmin;
	if (usable(fmax, lg))
		mx = fmax;
	if (!isfinite(mn) || !isfinite(mx)) {
		mn = lg ? 1 : 0;
		mx = lg ? 10 : 1;
	}
	mn = tr(mn, lg);
	mx = tr(mx, lg);
	if (mx - mn < 1e-12) {
		mx += lg ? 0.5 : (fabs(mx) > 0 ? fabs(mx) * 0.1 : 1);
		mn -= lg ? 0.5 : 0;
	}
	if (!lg && !usable(fmin, lg) && mn > 0 && axis)
		mn = 0; /* linear value axes start at zero unless told otherwise */
	if (lg) {
		mn = floor(mn);
		mx = ceil(mx);
	} else if (!usable(fmax, lg)) {
		mx += (mx - mn) * 0.05;
	}
	*lo = mn;
	*hi = mx;
}

static void tick_label(char *buf, size_t n, double v)
{
	double a = fabs(v);
	if (a >= 1e12)
		snprintf(buf, n, "%gT", v / 1e12);
	else if (a >= 1e9)
		snprintf(buf, n, "%gG", v / 1e9);
	else if (a >= 1e6)
		snprintf(buf, n, "%gM", v / 1e6);
	else if (a >= 1e4)
		snprintf(buf, n, "%gk", v / 1e3);
	else
		snprintf(buf, n, "%g", v);
}

static void axis_ticks(FILE *f, const struct frame *fr, int yaxis)
{
	double lo = yaxis ? fr->y0 : fr->x0, hi = yaxis ? fr->y1 : fr->x1;
	int lg = yaxis ? fr->logy : fr->logx;
	double step;
	char buf[32];
	if (lg) {
		step = hi - lo > 12 ? 2 : 1;
	} else {
		double raw = (hi - lo) / 6, mag = pow(10, floor(log10(raw)));
		step = raw / mag < 2 ? 2 * mag : raw / mag < 5 ? 5 * mag : 10 * mag;
		if (raw / mag < 1.5)
			step = mag;
	}
	for (double t = ceil(lo / step) * step; t <= hi + 1e-9; t += step) {
		double v = lg ? pow(10, t) : t;
		tick_label(buf, sizeof(buf), fabs(v) < 1e-12 ? 0 : v);
		if (yaxis) {
			double y = sy(fr, v);
			fprintf(f, "<line x1='%.1f' y1='%.1f' x2='%.1f' y2='%.1f' stroke='#e5e5e5'/>\n", fr->px, y,
				fr->px + fr->pw, y);
			fprintf(f, "<text x='%.1f' y='%.1f' text-anchor='end' font-size='11'>%s</text>\n", fr->px - 6,
				y + 4, buf);
		} else {
			double x = sx(fr, v);
			fprintf(f, "<line x1='%.1f' y1='%.1f' x2='%.1f' y2='%.1f' stroke='#e5e5e5'/>\n", x, fr->py, x,
				fr->py + fr->ph);
			fprintf(f, "<text x='%.1f' y='%.1f' text-anchor='middle' font-size='11'>%s</text>\n", x,
				fr->py + fr->ph + 16, buf);
		}
	}
}

void gd_chart_svg(const struct gd_chart *c, FILE *f)
{
	int W = c->width ? c->width : 800, H = c->height ? c->height : 480;
	/* The plot keeps its width; the picture grows to the right so that the longest legend
	 * or ceiling label, and the note under the plot, are never cut off (~6.5 px per
	 * character at 11 px, ~5.8 at 10 px). */
	double side = 170, need;
	for (int i = 0; i < c->nseries; i++)
		if ((need = 34 + 6.5 * (double)gd_display_width(c->series[i].label ? c->series[i].label : "")) > side)
			side = need;
	for (int i = 0; i < c->nlines; i++)
		if ((need = 12 + 6.5 * (double)gd_display_width(c->lines[i].label ? c->lines[i].label : "")) > side)
			side = need;
	if (side > 600)
		side = 600;
	W += (int)(side - 170);
	if (c->note && (need = 80 + 5.8 * (double)gd_display_width(c->note)) > W)
		W = (int)need < 2400 ? (int)need : 2400;
	struct frame fr;
	fr.logx = c->logx;
	fr.logy = c->logy;
	range(c, 0, &fr.x0, &fr.x1);
	range(c, 1, &fr.y0, &fr.y1);
	fr.px = 70;
	fr.py = 40;
	fr.pw = (c->width ? c->width : 800) - 70 - 170;
	fr.ph = H - 40 - 60 - (c->note ? 14 : 0);

	fprintf(f, "<svg xmlns='http://www.w3.org/2000/svg' width='%d' height='%d' viewBox='0 0 %d %d' "
		   "font-family='sans-serif'>\n", W, H, W, H);
	fprintf(f, "<rect width='100%%' height='100%%' fill='white'/>\n");
	if (c->title) {
		fprintf(f, "<text x='%d' y='22' text-anchor='middle' font-size='15' font-weight='bold'>", W / 2);
		gd_xml_escape(f, c->title);
		fputs("</text>\n", f);
	}
	axis_ticks(f, &fr, 0);
	axis_ticks(f, &fr, 1);
	fprintf(f, "<rect x='%.1f' y='%.1f' width='%.1f' height='%.1f' fill='none' stroke='#333'/>\n", fr.px,
		fr.py, fr.pw, fr.ph);
	if (c->xlabel) {
		fprintf(f, "<text x='%.1f' y='%.1f' text-anchor='middle' font-size='12'>", fr.px + fr.pw / 2,
			fr.py + fr.ph + 36);
		gd_xml_escape(f, c->xlabel);
		fputs("</text>\n", f);
	}
	if (c->ylabel) {
		fprintf(f, "<text transform='translate(16,%.1f) rotate(-90)' text-anchor='middle' font-size='12'>",
			fr.py + fr.ph / 2);
		gd_xml_escape(f, c->ylabel);
		fputs("</text>\n", f);
	}
	fprintf(f, "<clipPath id='plot'><rect x='%.1f' y='%.1f' width='%.1f' height='%.1f'/></clipPath>\n",
		fr.px, fr.py, fr.pw, fr.ph);
	for (int i = 0; i < c->nlines; i++) {
		const struct gd_refline *l = &c->lines[i];
		double y;
		if (!usable(l->y, c->logy))
			continue;
		y = sy(&fr, l->y);
		fprintf(f, "<line x1='%.1f' y1='%.1f' x2='%.1f' y2='%.1f' stroke='%s' stroke-dasharray='6 3'/>\n",
			fr.px, y, fr.px + fr.pw, y, l->color ? l->color : "#555");
		fprintf(f, "<text x='%.1f' y='%.1f' font-size='11' fill='%s'>", fr.px + fr.pw + 4, y + 4,
			l->color ? l->color : "#555");
		gd_xml_escape(f, l->label);
		fputs("</text>\n", f);
	}
	for (int i = 0; i < c->nseries; i++) {
		const struct gd_series *s = &c->series[i];
		const char *col = s->color ? s->color : gd_palette(i);
		int started = 0;
		if (s->style != GD_POINTS) {
			fprintf(f, "<path clip-path='url(#plot)' fill='none' stroke='%s' stroke-width='2' d='", col);
			for (int k = 0; k < s->n; k++) {
				if (!usable(s->x[k], c->logx) || !usable(s->y[k], c->logy)) {
					started = 0;
					continue;
				}
				if (s->style == GD_STEP && started)
					fprintf(f, " H%.1f", sx(&fr, s->x[k]));
				fprintf(f, "%s%.1f,%.1f", started ? " L" : " M", sx(&fr, s->x[k]), sy(&fr, s->y[k]));
				started = 1;
			}
			fputs("'/>\n", f);
		}
		if (s->style == GD_POINTS || s->style == GD_LINE_POINTS)
			for (int k = 0; k < s->n; k++)
				if (usable(s->x[k], c->logx) && usable(s->y[k], c->logy))
					fprintf(f, "<circle cx='%.1f' cy='%.1f' r='3.5' fill='%s'/>\n", sx(&fr, s->x[k]),
						sy(&fr, s->y[k]), col);
		/* legend */
		fprintf(f, "<rect x='%.1f' y='%.1f' width='12' height='12' fill='%s'/>", fr.px + fr.pw + 10,
			fr.py + fr.ph - 16.0 * (c->nseries - i), col);
		fprintf(f, "<text x='%.1f' y='%.1f' font-size='11'>", fr.px + fr.pw + 26,
			fr.py + fr.ph - 16.0 * (c->nseries - i) + 10);
		gd_xml_escape(f, s->label);
		fputs("</text>\n", f);
	}
	if (c->note) {
		fprintf(f, "<text x='%.1f' y='%d' font-size='10' fill='#555'>", fr.px, H - 8);
		gd_xml_escape(f, c->note);
		fputs("</text>\n", f);
	}
	fputs("</svg>\n", f);
}

int gd_chart_write(const struct gd_chart *c, const char *path)
{
	struct gd_atomic a;
	FILE *f = gd_atomic_open(&a, path);
	if (!f)
		return GD_EFAIL;
	gd_chart_svg(c, f);
	return gd_atomic_commit(&a);
}
