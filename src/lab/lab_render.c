/* The lab renderers: the listing of the labs, the terminal table, JSON, CSV and the SVG
 * chart of a finished run. They read only the recorded results (struct gd_lab_run), so they
 * run without a GPU (the CPU-tier tests feed them gd_lab_record'ed samples). */
#include "lab/lab.h"

#include "core/json.h"
#include "core/out.h"
#include "core/svg.h"
#include "core/table.h"
#include "gpu/nvml.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ======================================================================== the listing */

void gd_lab_list(FILE *f)
{
	size_t nw = 0, gw = 0;
	/* columns padded by display width: "§" is one column but two bytes, so printf's %-8s
	 * (which counts bytes) would misalign the rows */
	for (int i = 0; gd_labs[i]; i++) {
		size_t a = gd_display_width(gd_labs[i]->name), b = gd_display_width(gd_labs[i]->guide);
		nw = a > nw ? a : nw;
		gw = b > gw ? b : gw;
	}
	fprintf(f, "labs (gpudiag lab <name> [--quick] [--json|--csv FILE|--svg FILE]):\n");
	for (int i = 0; gd_labs[i]; i++) {
		size_t a = gd_display_width(gd_labs[i]->name), b = gd_display_width(gd_labs[i]->guide);
		fprintf(f, "  %s%*s %s%*s %s\n", gd_labs[i]->name, (int)(nw + 1 - a), "", gd_labs[i]->guide,
			(int)(gw + 2 - b), "", gd_labs[i]->summary);
	}
}


/* ======================================================================== output: table */

static const char *fmt_num(char *b, size_t n, double v, int prec)
{
	if (!isfinite(v))
		snprintf(b, n, "–");
	else
		snprintf(b, n, "%.*f", prec, v);
	return b;
}

static void check_str(const struct gd_lab_check *c, char *b, size_t n)
{
	if (!c->done)
		snprintf(b, n, "n/a");
	else if (c->ok)
		snprintf(b, n, "ok");
	else if (c->unwritten)
		snprintf(b, n, "FAIL %lld/%lld (%lld unwritten)", c->bad, c->checked, c->unwritten);
	else
		snprintf(b, n, "FAIL %lld/%lld", c->bad, c->checked);
}

static void metrics_str(const struct gd_lab_result *res, char *b, size_t n)
{
	size_t o = 0;
	b[0] = 0;
	for (int i = 0; i < res->nmetrics && o < n; i++) {
		char num[32];
		double v = res->metric_values[i];
		if (!isfinite(v))
			snprintf(num, sizeof(num), "unknown");
		else if (fabs(v) >= 100 || v == floor(v))
			snprintf(num, sizeof(num), "%.0f", v);
		else
			snprintf(num, sizeof(num), "%.3g", v);
		o += (size_t)snprintf(b + o, n - o, "%s%s %s%s%s", i ? ", " : "", res->metric_keys[i], num,
				      res->metric_units[i][0] ? " " : "", res->metric_units[i]);
	}
}

void gd_lab_print_table(const struct gd_lab_run *r, FILE *f)
{
	char b[16][160];
	fprintf(f, "%sgpudiag lab %s%s — %s (guide %s)\n", gd_bold(), r->lab->name, gd_reset(),
		r->lab->summary, r->lab->guide);
	fprintf(f, "%s%s, cc %d.%d, %d SMs, L2 %s%s; %d timed runs per variant%s\n", gd_dim(), r->dev.name,
		r->dev.cc_major, r->dev.cc_minor, r->dev.sms,
		r->dev.l2_bytes > 0 ? gd_fmt_bytes(b[0], sizeof(b[0]), (double)r->dev.l2_bytes) : "unknown",
		gd_reset(), r->runs, r->quick ? " (--quick)" : "");
	for (int i = 0; i < r->nres;) {
		int j = i, any_b = 0, any_f = 0, any_m = 0, any_clk = 0, cols = 0;
		struct gd_table t;
		const char *hdr[GD_TABLE_MAX_COLS];
		while (j < r->nres && !strcmp(r->res[j].group, r->res[i].group)) {
			any_b |= isfinite(r->res[j].gbps);
			any_f |= isfinite(r->res[j].gflops);
			any_m |= r->res[j].nmetrics > 0;
			any_clk |= r->res[j].sm_mhz_max > 0;
			j++;
		}
		fprintf(f, "\n%s%s%s\n", gd_cyan(), r->res[i].group, gd_reset());
		hdr[cols++] = "variant";
		hdr[cols++] = "median";
		hdr[cols++] = "min … max";
		if (any_b)
			hdr[cols++] = "GB/s";
		if (any_f)
			hdr[cols++] = "TFLOP/s";
		hdr[cols++] = "% of roof";
		hdr[cols++] = "check";
		if (any_clk)
			hdr[cols++] = "SM MHz";
		if (any_m)
			hdr[cols++] = "figures";
		gd_table_init(&t, cols);
		for (int c = 1; c < cols; c++)
			gd_table_align_right(&t, c);
		if (any_m)
			t.right[cols - 1] = 0;
		gd_table_row(&t, hdr);
		for (int k = i; k < j; k++) {
			const struct gd_lab_result *res = &r->res[k];
			const char *cell[GD_TABLE_MAX_COLS];
			char tb[2][32], met[400];
			int c = 0;
			cell[c++] = res->name;
			cell[c++] = isfinite(res->t_median) ? gd_fmt_time(b[1], sizeof(b[1]), res->t_median * 1e9) : "–";
			if (isfinite(res->t_min))
				snprintf(b[2], sizeof(b[2]), "%s … %s", gd_fmt_time(tb[0], sizeof(tb[0]), res->t_min * 1e9),
					 gd_fmt_time(tb[1], sizeof(tb[1]), res->t_max * 1e9));
			else
				snprintf(b[2], sizeof(b[2]), "–");
			cell[c++] = b[2];
			if (any_b)
				cell[c++] = fmt_num(b[3], sizeof(b[3]), res->gbps, res->gbps < 100 ? 1 : 0);
			if (any_f)
				cell[c++] = fmt_num(b[4], sizeof(b[4]), res->gflops / 1e3, 1);
			if (isfinite(res->pct_of_ceiling))
				snprintf(b[5], sizeof(b[5]), "%.0f %% %s%s", res->pct_of_ceiling * 100,
					 res->ceiling.name, strcmp(res->ceiling.source, "datasheet") ? "" : " (datasheet)");
			else
				snprintf(b[5], sizeof(b[5]), "–");
			cell[c++] = b[5];
			check_str(&res->check, b[6], sizeof(b[6]));
			cell[c++] = b[6];
			if (any_clk) {
				if (res->sm_mhz_max > 0)
					snprintf(b[7], sizeof(b[7]), res->sm_mhz_min == res->sm_mhz_max ? "%d" : "%d–%d",
						 res->sm_mhz_min, res->sm_mhz_max);
				else
					snprintf(b[7], sizeof(b[7]), "unknown");
				cell[c++] = b[7];
			}
			if (any_m) {
				metrics_str(res, met, sizeof(met));
				cell[c++] = met;
			}
			gd_table_row(&t, cell);
		}
		gd_table_print(&t, f, 2);
		gd_table_free(&t);
		i = j;
	}
	{
		unsigned long long thr = 0;
		for (int i = 0; i < r->nres; i++)
			thr |= r->res[i].throttle;
		if (gd_clock_reasons_throttling(thr)) {
			char rb[256];
			fprintf(f, "\n%sclocks were held back during the lab: %s%s\n", gd_yellow(),
				gd_clock_reasons_str(thr, rb, sizeof(rb)), gd_reset());
		}
	}
	if (r->nnotes) {
		fprintf(f, "\n");
		for (int i = 0; i < r->nnotes; i++)
			fprintf(f, "%snote: %s%s\n", gd_dim(), r->notes[i], gd_reset());
	}
	if (r->nverdicts) {
		fprintf(f, "\n");
		for (int i = 0; i < r->nverdicts; i++)
			fprintf(f, "%s%s%s %s\n", gd_bold(), r->verdicts[i].section, gd_reset(), r->verdicts[i].text);
	}
	if (r->check_failed)
		fprintf(f, "\n%sa variant failed its correctness check: its speed is not shown%s\n", gd_red(), gd_reset());
}

/* ======================================================================== output: JSON */

void gd_lab_write_json(const struct gd_lab_run *r, FILE *f)
{
	struct gd_json j;
	gd_json_init(&j, f, 1);
	gd_json_obj(&j, NULL);
	gd_json_str(&j, "lab", r->lab->name);
	gd_json_str(&j, "guide", r->lab->guide);
	gd_json_str(&j, "summary", r->lab->summary);
	gd_json_obj(&j, "device");
	gd_json_int(&j, "index", r->dev.index);
	gd_json_str(&j, "name", r->dev.name);
	gd_json_str(&j, "uuid", r->dev.uuid[0] ? r->dev.uuid : NULL);
	if (r->dev.cc_major > 0) {
		char cc[16];
		snprintf(cc, sizeof(cc), "%d.%d", r->dev.cc_major, r->dev.cc_minor);
		gd_json_str(&j, "compute_capability", cc);
	} else {
		gd_json_null(&j, "compute_capability");
	}
	gd_json_num(&j, "sms", r->dev.sms > 0 ? r->dev.sms : NAN);
	gd_json_num(&j, "l2_bytes", r->dev.l2_bytes > 0 ? (double)r->dev.l2_bytes : NAN);
	gd_json_num(&j, "datasheet_dram_bytes_per_s", gd_lab_datasheet_dram(&r->dev));
	gd_json_obj_end(&j);
	gd_json_obj(&j, "options");
	gd_json_bool(&j, "quick", r->quick);
	gd_json_int(&j, "runs", r->runs);
	gd_json_int(&j, "warmup_launches", GD_LAB_WARMUP);
	gd_json_obj_end(&j);
	gd_json_str(&j, "ceilings", r->has_measured ? "measured" : "datasheet");
	gd_json_arr(&j, "results");
	for (int i = 0; i < r->nres; i++) {
		const struct gd_lab_result *res = &r->res[i];
		gd_json_obj(&j, NULL);
		gd_json_str(&j, "group", res->group);
		gd_json_str(&j, "variant", res->name);
		gd_json_num(&j, "x", res->x);
		gd_json_num(&j, "bytes", res->bytes > 0 ? res->bytes : NAN);
		gd_json_num(&j, "flops", res->flops > 0 ? res->flops : NAN);
		gd_json_str(&j, "formula", res->formula[0] ? res->formula : NULL);
		gd_json_int(&j, "runs", res->runs);
		gd_json_int(&j, "reps", res->reps);
		gd_json_num(&j, "time_s_median", res->t_median);
		gd_json_num(&j, "time_s_min", res->t_min);
		gd_json_num(&j, "time_s_max", res->t_max);
		gd_json_num(&j, "gb_per_s", res->gbps);
		gd_json_num(&j, "gflop_per_s", res->gflops);
		gd_json_obj(&j, "ceiling");
		gd_json_str(&j, "name", res->ceiling.name);
		gd_json_str(&j, "source", res->ceiling.source);
		gd_json_num(&j, "value", res->ceiling.value);
		gd_json_num(&j, "fraction", res->pct_of_ceiling);
		gd_json_obj_end(&j);
		gd_json_obj(&j, "check");
		if (res->check.done) {
			gd_json_bool(&j, "ok", res->check.ok);
			gd_json_int(&j, "checked", res->check.checked);
			gd_json_int(&j, "bad", res->check.bad);
			gd_json_int(&j, "unwritten", res->check.unwritten);
			gd_json_num(&j, "max_abs_err", res->check.max_abs_err);
			gd_json_num(&j, "max_rel_err", res->check.max_rel_err);
			gd_json_num(&j, "atol", res->check.atol);
			gd_json_num(&j, "rtol", res->check.rtol);
			gd_json_str(&j, "note", res->check.note[0] ? res->check.note : NULL);
		} else {
			gd_json_null(&j, "ok");
		}
		gd_json_obj_end(&j);
		gd_json_obj(&j, "metrics");
		for (int m = 0; m < res->nmetrics; m++)
			gd_json_num(&j, res->metric_keys[m], res->metric_values[m]);
		gd_json_obj_end(&j);
		gd_json_obj(&j, "clocks");
		gd_json_int(&j, "samples", res->nsamples);
		gd_json_num(&j, "sm_mhz_min", res->sm_mhz_min > 0 ? res->sm_mhz_min : NAN);
		gd_json_num(&j, "sm_mhz_max", res->sm_mhz_max > 0 ? res->sm_mhz_max : NAN);
		gd_json_num(&j, "power_w_max", res->power_w_max);
		if (res->nsamples > 0) {
			char rb[256];
			gd_json_str(&j, "clock_event_reasons", gd_clock_reasons_str(res->throttle, rb, sizeof(rb)));
			gd_json_bool(&j, "throttled", gd_clock_reasons_throttling(res->throttle));
		} else {
			gd_json_null(&j, "clock_event_reasons");
			gd_json_null(&j, "throttled");
		}
		gd_json_obj_end(&j);
		gd_json_obj_end(&j);
	}
	gd_json_arr_end(&j);
	gd_json_arr(&j, "notes");
	for (int i = 0; i < r->nnotes; i++)
		gd_json_str(&j, NULL, r->notes[i]);
	gd_json_arr_end(&j);
	gd_json_arr(&j, "verdicts");
	for (int i = 0; i < r->nverdicts; i++) {
		gd_json_obj(&j, NULL);
		gd_json_str(&j, "section", r->verdicts[i].section);
		gd_json_str(&j, "text", r->verdicts[i].text);
		gd_json_obj_end(&j);
	}
	gd_json_arr_end(&j);
	gd_json_bool(&j, "check_failed", r->check_failed);
	gd_json_obj_end(&j);
	gd_json_end(&j);
}

/* ======================================================================== output: CSV */

/* Through the program's one table writer (core/table.h): RFC 4180 quoting, unknown = empty. */
static const char *const csv_cols[] = {
	"lab", "group", "variant", "x", "bytes", "flops", "runs", "reps", "time_s_median", "time_s_min", "time_s_max",
	"gb_per_s", "gflop_per_s", "ceiling", "ceiling_source", "ceiling_value", "fraction_of_ceiling", "check",
	"max_abs_err", "max_rel_err", "sm_mhz_min", "sm_mhz_max", "power_w_max", "metrics", "formula"};

void gd_lab_write_table(const struct gd_lab_run *r, FILE *f, int format)
{
	struct gd_tw w;
	gd_tw_init(&w, f, format, NULL, NULL, 0);
	gd_tw_begin(&w, "results", NULL, csv_cols, (int)(sizeof(csv_cols) / sizeof(csv_cols[0])));
	for (int i = 0; i < r->nres; i++) {
		const struct gd_lab_result *res = &r->res[i];
		char met[400];
		size_t o = 0;
		gd_tw_row(&w);
		gd_tw_str(&w, r->lab->name);
		gd_tw_str(&w, res->group);
		gd_tw_str(&w, res->name);
		gd_tw_num(&w, res->x);
		gd_tw_num(&w, res->bytes > 0 ? res->bytes : NAN);
		gd_tw_num(&w, res->flops > 0 ? res->flops : NAN);
		gd_tw_int(&w, res->runs);
		gd_tw_int(&w, res->reps);
		gd_tw_num(&w, res->t_median);
		gd_tw_num(&w, res->t_min);
		gd_tw_num(&w, res->t_max);
		gd_tw_num(&w, res->gbps);
		gd_tw_num(&w, res->gflops);
		gd_tw_str(&w, res->ceiling.name);
		gd_tw_str(&w, res->ceiling.source);
		gd_tw_num(&w, res->ceiling.value);
		gd_tw_num(&w, res->pct_of_ceiling);
		gd_tw_str(&w, !res->check.done ? "n/a" : res->check.ok ? "ok" : "fail");
		gd_tw_num(&w, res->check.done ? res->check.max_abs_err : NAN);
		gd_tw_num(&w, res->check.done ? res->check.max_rel_err : NAN);
		gd_tw_num(&w, res->sm_mhz_min > 0 ? res->sm_mhz_min : NAN);
		gd_tw_num(&w, res->sm_mhz_max > 0 ? res->sm_mhz_max : NAN);
		gd_tw_num(&w, res->power_w_max);
		met[0] = 0;
		for (int m = 0; m < res->nmetrics && o < sizeof(met); m++)
			o += (size_t)snprintf(met + o, sizeof(met) - o, "%s%s=%.6g", m ? ";" : "", res->metric_keys[m],
					      res->metric_values[m]);
		gd_tw_str(&w, met);
		gd_tw_str(&w, res->formula);
		gd_tw_row_end(&w);
	}
	gd_tw_end(&w);
}

void gd_lab_write_csv(const struct gd_lab_run *r, FILE *f) { gd_lab_write_table(r, f, GD_FMT_CSV); }

/* ======================================================================== output: SVG */

static double yval(const struct gd_lab_chart *c, const struct gd_lab_result *res)
{
	switch (c->y) {
	case GD_LAB_Y_GBPS: return res->gbps;
	case GD_LAB_Y_GFLOPS: return res->gflops;
	case GD_LAB_Y_TIME_US: return res->t_median * 1e6;
	case GD_LAB_Y_METRIC:
		for (int m = 0; m < res->nmetrics; m++)
			if (c->metric && !strcmp(res->metric_keys[m], c->metric))
				return res->metric_values[m];
		return NAN;
	}
	return NAN;
}

int gd_lab_write_svg(const struct gd_lab_run *r, FILE *f)
{
	const struct gd_lab_chart *lc = &r->chart;
	struct gd_chart ch;
	double *xs, *ys;
	int used = 0, line_done = 0;
	char note[256], lbl[128];
	if (!r->has_chart)
		return 0;
	xs = calloc((size_t)r->nres + 1, sizeof(double));
	ys = calloc((size_t)r->nres + 1, sizeof(double));
	if (!xs || !ys) {
		free(xs);
		free(ys);
		return 0;
	}
	gd_chart_init(&ch, lc->title, lc->xlabel, lc->ylabel);
	ch.logx = lc->logx;
	ch.logy = lc->logy;
	if (r->chart_draw)
		r->chart_draw(r, &ch, r->chart_draw_arg);
	for (int g = 0; !r->chart_draw && g < lc->ngroups && ch.nseries < GD_CHART_MAX_SERIES; g++) {
		int start = used;
		for (int i = 0; i < r->nres; i++) {
			const struct gd_lab_result *res = &r->res[i];
			double y;
			char want[sizeof(res->group)];
			gd_lab_copy_name(want, sizeof(want), lc->groups[g]); /* compared as stored */
			if (strcmp(res->group, want))
				continue;
			y = yval(lc, res);
			if (!isfinite(res->x) || !isfinite(y))
				continue;
			if ((lc->logx && res->x <= 0) || (lc->logy && y <= 0))
				continue;
			xs[used] = res->x;
			ys[used] = y;
			used++;
			if (lc->ceiling_line && !line_done && isfinite(res->ceiling.value)) {
				double cv = res->ceiling.is_flops ? res->ceiling.value / 1e9 : res->ceiling.value / 1e9;
				if ((lc->y == GD_LAB_Y_GBPS && !res->ceiling.is_flops) ||
				    (lc->y == GD_LAB_Y_GFLOPS && res->ceiling.is_flops)) {
					snprintf(lbl, sizeof(lbl), "%s (%s)", res->ceiling.name, res->ceiling.source);
					gd_chart_hline(&ch, cv, lbl);
					line_done = 1;
				}
			}
		}
		if (used > start)
			gd_chart_add(&ch, lc->groups[g], xs + start, ys + start, used - start, GD_LINE_POINTS);
	}
	snprintf(note, sizeof(note), "gpudiag lab %s on %s: median of %d timed runs per point (CUDA events)",
		 r->lab->name, r->dev.name, r->runs);
	if (!ch.note) /* a draw hook may say how its picture was made */
		ch.note = note;
	gd_chart_svg(&ch, f);
	free(xs);
	free(ys);
	return 1;
}

