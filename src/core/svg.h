/* SVG charts drawn by gpudiag itself (no plotting library): line/point series on linear or
 * logarithmic axes, labelled horizontal reference lines (ceilings), text annotations.
 * All text is XML-escaped. Used by occupancy, roofline, labs and reports. */
#ifndef GPUDIAG_SVG_H
#define GPUDIAG_SVG_H

#include <stdio.h>

#define GD_CHART_MAX_SERIES 16
#define GD_CHART_MAX_LINES 16

enum gd_series_style { GD_LINE = 0, GD_POINTS = 1, GD_LINE_POINTS = 2, GD_STEP = 3 };

struct gd_series {
	const char *label;
	const double *x, *y;
	int n;
	enum gd_series_style style;
	const char *color; /* NULL: palette */
};

struct gd_refline {
	double y;          /* horizontal line at y (data units) */
	const char *label; /* drawn at the right end */
	const char *color;
};

struct gd_chart {
	const char *title, *xlabel, *ylabel;
	int logx, logy;
	double xmin, xmax, ymin, ymax; /* NAN (or equal min/max) = from data */
	int width, height;             /* 0 = 800 × 480 */
	struct gd_series series[GD_CHART_MAX_SERIES];
	int nseries;
	struct gd_refline lines[GD_CHART_MAX_LINES];
	int nlines;
	const char *note; /* one line under the plot: how it was measured */
};

void gd_chart_init(struct gd_chart *c, const char *title, const char *xlabel, const char *ylabel);
void gd_chart_add(struct gd_chart *c, const char *label, const double *x, const double *y, int n,
		  enum gd_series_style style);
void gd_chart_hline(struct gd_chart *c, double y, const char *label);
/* Writes a complete standalone SVG document (or an inline <svg> element for HTML). */
void gd_chart_svg(const struct gd_chart *c, FILE *f);
/* Writes the chart to `path` atomically. Returns GD_OK or an error code (printed). */
int gd_chart_write(const struct gd_chart *c, const char *path);

/* XML-escapes s (&, <, >, ", ') to f; invalid UTF-8 bytes become U+FFFD. */
void gd_xml_escape(FILE *f, const char *s);
/* A palette colour by index. */
const char *gd_palette(int i);

#endif
