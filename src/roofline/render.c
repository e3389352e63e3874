/* Rendering of the measured ceilings (see render.h). */
#include "roofline/render.h"

#include "core/out.h"
#include "roofline/model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define AI_MIN 0.25
#define AI_MAX 4096.0

double gd_rl_dram_roof(const struct gd_ceilings *c, const char **which)
{
	const char *w = NULL;
	double v = NAN;
	if (c->dram_copy > 0) {
		v = c->dram_copy;
		w = "copy";
	} else if (c->dram_read > 0) {
		v = c->dram_read;
		w = "read";
	} else if (c->dram_write > 0) {
		v = c->dram_write;
		w = "write";
	}
	if (which)
		*which = w;
	return v;
}

static int cmp_roof(const void *a, const void *b)
{
	double x = ((const struct gd_rl_roof *)a)->flops, y = ((const struct gd_rl_roof *)b)->flops;
	return x < y ? 1 : x > y ? -1 : 0;
}

int gd_rl_roofs(const struct gd_ceilings *c, struct gd_rl_roof *out, int max)
{
	int n = 0;
	double bw = gd_rl_dram_roof(c, NULL);
	for (int p = 0; p < GD_P_COUNT; p++) {
		const char *name = gd_prec_name((enum gd_prec)p);
		struct {
			double v;
			const char *what;
		} kinds[3] = {{c->tensor[p], "tensor"}, {c->gemm_lib[p], "cuBLASLt"}, {c->cuda_core[p], "FMA"}};
		for (int k = 0; k < 3; k++) {
			if (!(kinds[k].v > 0) || n >= max)
				continue;
			if (k == 2 && (p == GD_P_FP16 || p == GD_P_BF16))
				snprintf(out[n].label, sizeof out[n].label, "%sx2 %s", name, kinds[k].what);
			else
				snprintf(out[n].label, sizeof out[n].label, "%s %s", name, kinds[k].what);
			out[n].flops = kinds[k].v;
			out[n].ridge = gd_rl_ridge(kinds[k].v, bw);
			n++;
		}
	}
	qsort(out, (size_t)n, sizeof *out, cmp_roof);
	return n;
}

void gd_rl_chart_text(const struct gd_ceilings *c, FILE *f, int width, int height, int utf8)
{
	struct gd_rl_roof roofs[26];
	int n = gd_rl_roofs(c, roofs, 26);
	double bw = gd_rl_dram_roof(c, NULL);
	char buf[32];
	if (n == 0 || !(bw > 0)) {
		fprintf(f, "  (no roofline chart: needs a DRAM bandwidth and at least one compute ceiling)\n");
		return;
	}
	if (width < 20)
		width = 20;
	if (height < 6)
		height = 6;
	if (width > 200)
		width = 200;
	if (height > 60)
		height = 60;
	double ymax = roofs[0].flops * 1.5, ymin = AI_MIN * bw;
	for (int i = 0; i < n; i++)
		if (roofs[i].flops / 2 < ymin)
			ymin = roofs[i].flops / 2;
	double lx0 = log2(AI_MIN), lx1 = log2(AI_MAX), ly0 = log10(ymin), ly1 = log10(ymax);
	char grid[60][200];
	memset(grid, ' ', sizeof grid);
	/* lowest roof first, so higher roofs overwrite shared slope cells */
	for (int i = n - 1; i >= 0; i--) {
		for (int col = 0; col < width; col++) {
			double ai = exp2(lx0 + (lx1 - lx0) * (col + 0.5) / width);
			double y = gd_rl_attainable(ai, roofs[i].flops, bw);
			int row = (int)floor((log10(y) - ly0) / (ly1 - ly0) * height);
			if (row < 0 || row >= height)
				continue;
			grid[height - 1 - row][col] = ai * bw < roofs[i].flops ? '/' : (char)('A' + i);
		}
	}
	for (int r = 0; r < height; r++) {
		double yv = pow(10, ly0 + (ly1 - ly0) * (height - r - 0.5) / height);
		if (r % 3 == 0)
			fprintf(f, "  %12s %s", gd_fmt_si(buf, sizeof buf, yv, "FLOP/s"), utf8 ? "┤" : "|");
		else
			fprintf(f, "  %12s %s", "", utf8 ? "│" : "|");
		fwrite(grid[r], 1, (size_t)width, f);
		fputc('\n', f);
	}
	fprintf(f, "  %12s %s", "", utf8 ? "└" : "+");
	for (int col = 0; col < width; col++)
		fputs(utf8 ? "─" : "-", f);
	fputc('\n', f);
	/* x labels at powers of 4 */
	char xl[256];
	memset(xl, ' ', sizeof xl);
	for (double ai = AI_MIN; ai <= AI_MAX; ai *= 4) {
		int col = (int)((log2(ai) - lx0) / (lx1 - lx0) * width);
		char lab[16];
		if (ai < 1)
			snprintf(lab, sizeof lab, "1/%g", 1 / ai);
		else
			snprintf(lab, sizeof lab, "%g", ai);
		for (size_t k = 0; lab[k] && col + (int)k < width + 8 && col + (int)k < (int)sizeof xl - 1; k++)
			xl[col + k] = lab[k];
	}
	int last = width + 8 < (int)sizeof xl - 1 ? width + 8 : (int)sizeof xl - 1;
	xl[last] = 0;
	fprintf(f, "  %12s  %s\n", "", xl);
	fprintf(f, "  %12s  arithmetic intensity (FLOP per DRAM byte), log scale; '/' = DRAM-bound\n", "");
	for (int i = 0; i < n; i++) {
		char v[32], rd[32];
		if (isfinite(roofs[i].ridge))
			snprintf(rd, sizeof rd, "ridge %.0f FLOP/B", roofs[i].ridge);
		else
			snprintf(rd, sizeof rd, "ridge unknown");
		int seen = 0;
		for (int r = 0; r < height && !seen; r++)
			seen = memchr(grid[r], 'A' + i, (size_t)width) != NULL;
		fprintf(f, "    %c  %-16s %12s  %s%s\n", 'A' + i, roofs[i].label, gd_fmt_si(v, sizeof v, roofs[i].flops, "FLOP/s"),
			rd, seen ? "" : "  (hidden: same row as a higher roof)");
	}
}

void gd_rl_chart_svg(const struct gd_ceilings *c, struct gd_chart *ch, struct gd_rl_chart_store *st)
{
	struct gd_rl_roof roofs[14];
	int n = gd_rl_roofs(c, roofs, 14);
	const char *which = NULL;
	double bw = gd_rl_dram_roof(c, &which);
	char v[32];
	memset(st, 0, sizeof *st);
	gd_chart_init(ch, "Roofline: measured ceilings", "arithmetic intensity (FLOP per DRAM byte)", "FLOP/s");
	ch->logx = ch->logy = 1;
	ch->xmin = AI_MIN;
	ch->xmax = AI_MAX;
	if (!(bw > 0) || n == 0)
		return;
	int nr = 0;
	for (int i = 0; i < n && i < 14; i++) {
		for (int k = 0; k < 64; k++) {
			double ai = exp2(log2(AI_MIN) + (log2(AI_MAX) - log2(AI_MIN)) * k / 63.0);
			st->x[i][k] = ai;
			st->y[i][k] = gd_rl_attainable(ai, roofs[i].flops, bw);
		}
		snprintf(st->labels[i], sizeof st->labels[i], "%.47s %.31s (ridge %.0f)", roofs[i].label,
			 gd_fmt_si(v, sizeof v, roofs[i].flops, "FLOP/s"), roofs[i].ridge);
		gd_chart_add(ch, st->labels[i], st->x[i], st->y[i], 64, GD_LINE);
		st->rx[nr] = roofs[i].ridge;
		st->ry[nr] = roofs[i].flops;
		nr++;
	}
	if (c->l2 > 0) {
		int i = n < 14 ? n : 13;
		for (int k = 0; k < 64; k++) {
			double ai = exp2(log2(AI_MIN) + (log2(AI_MAX) - log2(AI_MIN)) * k / 63.0);
			st->x[14][k] = ai;
			st->y[14][k] = gd_rl_attainable(ai, roofs[0].flops, c->l2);
		}
		(void)i;
		snprintf(st->labels[14], sizeof st->labels[14], "L2 roof %s", gd_fmt_si(v, sizeof v, c->l2, "B/s"));
		gd_chart_add(ch, st->labels[14], st->x[14], st->y[14], 64, GD_LINE);
	}
	gd_chart_add(ch, "ridge points", st->rx, st->ry, nr, GD_POINTS);
	snprintf(st->note, sizeof st->note, "%s; DRAM %s %s (bytes read + written); medians; gpudiag roofline",
		 c->gpu_name[0] ? c->gpu_name : "GPU", which ? which : "", gd_fmt_si(v, sizeof v, bw, "B/s"));
	ch->note = st->note;
}

void gd_rl_json_ceilings(struct gd_json *j, const char *key, const struct gd_ceilings *c)
{
	const char *which = NULL;
	double bw = gd_rl_dram_roof(c, &which);
	gd_json_obj(j, key);
	gd_json_str(j, "uuid", c->uuid);
	gd_json_str(j, "gpu_name", c->gpu_name);
	gd_json_str(j, "driver", c->driver);
	gd_json_num(j, "measured_at", c->measured_at);
	if (c->sm_clock_mhz > 0)
		gd_json_int(j, "sm_clock_mhz", c->sm_clock_mhz);
	else
		gd_json_null(j, "sm_clock_mhz");
	gd_json_num(j, "dram_read_bytes_per_s", c->dram_read);
	gd_json_num(j, "dram_write_bytes_per_s", c->dram_write);
	gd_json_num(j, "dram_copy_bytes_per_s", c->dram_copy);
	gd_json_num(j, "l2_bytes_per_s", c->l2);
	gd_json_num(j, "smem_bytes_per_s", c->smem);
	gd_json_num(j, "l1_bytes_per_s", c->l1);
	gd_json_num(j, "sfu_per_s", c->sfu);
	gd_json_str(j, "failed_checks", c->failed[0] ? c->failed : NULL);
	const char *groups[3] = {"cuda_core_flops", "tensor_flops", "gemm_lib_flops"};
	const double *vals[3] = {c->cuda_core, c->tensor, c->gemm_lib};
	for (int g = 0; g < 3; g++) {
		gd_json_obj(j, groups[g]);
		for (int p = 0; p < GD_P_COUNT; p++)
			gd_json_num(j, gd_prec_name((enum gd_prec)p), vals[g][p]);
		gd_json_obj_end(j);
	}
	gd_json_str(j, "ridge_dram", which);
	gd_json_arr(j, "ridge_points");
	struct gd_rl_roof roofs[26];
	int n = gd_rl_roofs(c, roofs, 26);
	for (int i = 0; i < n; i++) {
		gd_json_obj(j, NULL);
		gd_json_str(j, "ceiling", roofs[i].label);
		gd_json_num(j, "flops", roofs[i].flops);
		gd_json_num(j, "dram_bytes_per_s", bw);
		gd_json_num(j, "flop_per_byte", roofs[i].ridge);
		gd_json_obj_end(j);
	}
	gd_json_arr_end(j);
	gd_json_obj_end(j);
}

void gd_rl_print_ceilings(const struct gd_ceilings *c, FILE *f)
{
	struct gd_table t;
	char v[64];
	gd_table_init(&t, 2);
	gd_table_align_right(&t, 1);
	gd_table_rowv(&t, "ceiling", "measured (median)");
	struct {
		const char *name;
		double v;
		const char *unit;
	} bws[] = {{"DRAM read", c->dram_read, "B/s"},   {"DRAM write", c->dram_write, "B/s"},
		   {"DRAM copy (read+write)", c->dram_copy, "B/s"}, {"L2 read", c->l2, "B/s"},
		   {"shared memory", c->smem, "B/s"},   {"L1", c->l1, "B/s"},
		   {"SFU __expf", c->sfu, "/s"}};
	for (size_t i = 0; i < sizeof bws / sizeof bws[0]; i++)
		gd_table_rowv(&t, bws[i].name, isfinite(bws[i].v) ? gd_fmt_si(v, sizeof v, bws[i].v, bws[i].unit) : "not measured");
	for (int p = 0; p < GD_P_COUNT; p++) {
		char name[64];
		if (isfinite(c->cuda_core[p])) {
			snprintf(name, sizeof name, "%s%s FMA (CUDA cores)", gd_prec_name((enum gd_prec)p),
				 p == GD_P_FP16 || p == GD_P_BF16 ? "x2" : "");
			gd_table_rowv(&t, name, gd_fmt_si(v, sizeof v, c->cuda_core[p], "FLOP/s"));
		}
		if (isfinite(c->tensor[p])) {
			snprintf(name, sizeof name, "%s tensor (own kernel)", gd_prec_name((enum gd_prec)p));
			gd_table_rowv(&t, name, gd_fmt_si(v, sizeof v, c->tensor[p], "FLOP/s"));
		}
		if (isfinite(c->gemm_lib[p])) {
			snprintf(name, sizeof name, "%s cuBLASLt GEMM", gd_prec_name((enum gd_prec)p));
			gd_table_rowv(&t, name, gd_fmt_si(v, sizeof v, c->gemm_lib[p], "FLOP/s"));
		}
	}
	gd_table_print(&t, f, 2);
	gd_table_free(&t);
	if (c->failed[0])
		fprintf(f, "  failed in that run (not measured, not cached): %s\n", c->failed);
}
