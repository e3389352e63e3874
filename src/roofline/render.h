/* Rendering the measured ceilings: the ridge points, the terminal roofline chart, the SVG
 * chart and the JSON object. Shared by `gpudiag roofline` (after measuring, and --show). */
#ifndef GPUDIAG_ROOFLINE_RENDER_H
#define GPUDIAG_ROOFLINE_RENDER_H

#include "core/json.h"
#include "core/svg.h"
#include "roofline/ceilings.h"

#include <stdio.h>

/* One compute ceiling of the chart and its ridge point against a bandwidth ceiling. */
struct gd_rl_roof {
	char label[48];   /* "BF16 tensor", "FP32 FMA", "BF16 cuBLASLt" */
	double flops;     /* FLOP/s */
	double ridge;     /* FLOP/byte where flops = ridge × dram; NaN when unknown */
};

/* The DRAM figure the ridge points use: the copy bandwidth (read + write counted), else read,
 * else write; NaN when none was measured. *which names it ("copy"). */
double gd_rl_dram_roof(const struct gd_ceilings *c, const char **which);
/* The compute ceilings that were measured (tensor best, cuda-core FMA, library), at most max,
 * sorted by falling FLOP/s. Returns the count. */
int gd_rl_roofs(const struct gd_ceilings *c, struct gd_rl_roof *out, int max);

/* Log-log terminal chart (UTF-8 when utf8, else ASCII): x = FLOP/byte 1/4 … 4096,
 * y = FLOP/s, one letter per roof; a legend below. */
void gd_rl_chart_text(const struct gd_ceilings *c, FILE *f, int width, int height, int utf8);
/* Fills an SVG chart with the roofs (each min(peak, AI·DRAM)), the L2 roof and the ridge
 * points. The arrays live in *store, which must outlive the chart. */
struct gd_rl_chart_store {
	double x[16][64], y[16][64];
	double rx[16], ry[16];
	char labels[16][96];
	char note[256];
};
void gd_rl_chart_svg(const struct gd_ceilings *c, struct gd_chart *ch, struct gd_rl_chart_store *store);
/* The "ceilings" JSON object (keys documented in docs/json.md). */
void gd_rl_json_ceilings(struct gd_json *j, const char *key, const struct gd_ceilings *c);
/* The measured ceilings as a table (for --show): figure, value, and ridge points. */
void gd_rl_print_ceilings(const struct gd_ceilings *c, FILE *f);

#endif
