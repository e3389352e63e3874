/* The HTML page's ranks section (issue 22; analysis/ranks.h): where the profile has several
 * ranks, NCCL kernels or several nodes, what the terminal's ranks and collectives tables say
 * (render/ranks_render.c), as a page: each rank's GPU span as one bar split into compute,
 * communication no compute hid (the part spent waiting for a late rank apart), copies alone and
 * idle; the ranks table; the job's nodes and their clock offsets; the collectives by kind.
 * Computes nothing: the figures are the analysis's. */
#include "render/html.h"
#include "render/report.h"

#include "analysis/analysis.h"
#include "core/out.h"

#include <math.h>
#include <stdio.h>

#define esc gd_html_esc
/* Ranks drawn and listed; the JSON and CSV tables hold every one (--table ranks). */
#define TOP_RANKS 64

int gd_html_has_ranks(const struct gd_analysis *a) { return gd_ranks_shown(&a->r); }

/* "12.3 ms 45.6 %" of the span, in a numeric cell. */
static void time_pct(FILE *f, double ns, double span)
{
	char b[112];
	gd_html_num(f, gd_fmt_time_pct(b, sizeof(b), ns, span));
}

/* The parts of a rank's span, in the order drawn. The unions overlap (ranks.h): compute ∪ NCCL
 * is compute plus the exposed NCCL time, so copies alone are what the rest of the busy time
 * leaves, and idle completes the span. */
enum { P_COMPUTE, P_EXPOSED, P_WAIT, P_COPY, P_IDLE, NPART };
static const char *const part_name[NPART] = {"compute", "NCCL, not hidden by compute", "NCCL, waiting for a late rank",
					     "copies alone", "idle"};
static const char *const part_color[NPART] = {"#4c78a8", "#f58518", "#e45756", "#72b7b2", "#d9d9d9"};

static void parts(const struct gd_rank *x, double v[NPART])
{
	v[P_COMPUTE] = x->compute_ns;
	v[P_WAIT] = fmax(0, fmin(x->comm_wait_ns, x->comm_exposed_ns));
	v[P_EXPOSED] = fmax(0, x->comm_exposed_ns - v[P_WAIT]);
	v[P_COPY] = fmax(0, x->busy_ns - x->compute_ns - x->comm_exposed_ns);
	v[P_IDLE] = fmax(0, x->idle_ns);
}

#define BAR_W 1000 /* the viewBox's width; the label column takes LABEL_W of it */
#define LABEL_W 310
#define ROW_H 20

/* One bar per rank, all on the scale of the longest span, so a rank that ran shorter shows shorter. */
static void bars(FILE *f, const struct gd_ranks *R, int n)
{
	char lab[96], t[112];
	int h = n * ROW_H + 6;
	double longest = 0;
	for (int i = 0; i < n; i++) {
		double v[NPART], sum = 0;
		parts(&R->r[i], v);
		for (int k = 0; k < NPART; k++)
			sum += v[k];
		longest = fmax(longest, fmax(sum, R->r[i].span_ns));
	}
	fprintf(f, "<svg id='ranks-bars' xmlns='http://www.w3.org/2000/svg' viewBox='0 0 %d %d' role='img' "
		   "aria-label='each rank&#39;s GPU span by part'>\n",
		BAR_W, h);
	for (int i = 0; i < n; i++) {
		const struct gd_rank *x = &R->r[i];
		double v[NPART], at = LABEL_W, w = BAR_W - LABEL_W - 4;
		int y = 3 + i * ROW_H;
		parts(x, v);
		fprintf(f, "<text x='%d' y='%d' font-size='12' text-anchor='end'%s>", LABEL_W - 6, y + 13,
			i == R->straggler ? " font-weight='700' fill='#d62728'" : "");
		esc(f, gd_rank_label(R, i, lab, sizeof(lab)));
		if (i == R->straggler)
			esc(f, " straggler");
		fputs("</text>", f);
		for (int k = 0; k < NPART && longest > 0; k++) {
			double bw = w * v[k] / longest;
			if (bw <= 0)
				continue;
			fprintf(f, "<rect data-part='%d' x='%.2f' y='%d' width='%.2f' height='%d' fill='%s'><title>", k, at, y,
				bw, ROW_H - 5, part_color[k]);
			esc(f, part_name[k]);
			fprintf(f, ": %s of the span</title></rect>", gd_fmt_time_pct(t, sizeof(t), v[k], x->span_ns));
			at += bw;
		}
		fputc('\n', f);
	}
	fputs("</svg>\n<div class='legend' id='ranks-legend'>", f);
	for (int k = 0; k < NPART; k++) {
		fprintf(f, "<span class='lg' data-part='%d'><i style='background:%s'></i>", k, part_color[k]);
		esc(f, part_name[k]);
		fputs("</span>", f);
	}
	fputs("</div>\n", f);
}

static void nodes(FILE *f, const struct gd_ranks *R)
{
	static const char *const heads[] = {"node", "profile", "clock"};
	char t[48], clock[400];
	if (R->nnodes < 2)
		return;
	fprintf(f, "<h3>Nodes</h3>\n<p class='note'>%d profiles, one per node, judged together; each clock put on node "
		   "0's by the collectives they share (the median of the per-collective offsets, ± their median absolute "
		   "deviation).</p>\n",
		R->nnodes);
	gd_html_table_open(f, "nodes", heads, 3);
	for (int i = 0; i < R->nnodes; i++) {
		snprintf(t, sizeof(t), "%d", i);
		fputs("<tr>", f);
		gd_html_num(f, t);
		gd_html_name(f, R->nodes[i].path, R->nodes[i].path);
		gd_html_prose(f, gd_report_node_clock(R, i, clock, sizeof(clock)));
		fputs("</tr>\n", f);
	}
	gd_html_table_close(f);
}

static void ranks_table(FILE *f, const struct gd_ranks *R, int n)
{
	static const char *const heads[] = {">rank", ">node", ">pid", ">GPU", ">span", ">compute", ">NCCL",
					    ">exposed", ">waiting", ">copies", ">idle", ">last", ">lateness"};
	const char *shown[13];
	int multi = R->nnodes > 1, nshown = 0;
	char b[6][48];
	/* one node: no node column (the heads and cells skip it alike) */
	for (int c = 0; c < 13; c++)
		if (c != 1 || multi)
			shown[nshown++] = heads[c];
	gd_html_table_open(f, "ranks", shown, nshown);
	for (int i = 0; i < n; i++) {
		const struct gd_rank *x = &R->r[i];
		fprintf(f, "<tr%s>", i == R->straggler ? " class='straggler'" : "");
		snprintf(b[0], 48, "%d", i);
		gd_html_num(f, b[0]);
		if (multi) {
			snprintf(b[1], 48, "%d", x->node);
			gd_html_num(f, b[1]);
		}
		snprintf(b[2], 48, "%d", x->pid);
		gd_html_num(f, b[2]);
		snprintf(b[3], 48, "%d", x->gpu);
		gd_html_num(f, b[3]);
		gd_html_num(f, gd_fmt_time(b[4], 48, x->span_ns));
		time_pct(f, x->compute_ns, x->span_ns);
		time_pct(f, x->comm_ns, x->span_ns);
		time_pct(f, x->comm_exposed_ns, x->span_ns);
		time_pct(f, x->comm_wait_ns, x->span_ns);
		time_pct(f, x->copy_ns, x->span_ns);
		time_pct(f, x->idle_ns, x->span_ns);
		if (x->nccl_kernels)
			snprintf(b[5], 48, "%ld/%ld", x->last, x->judged);
		else
			snprintf(b[5], 48, "—");
		gd_html_num(f, b[5]);
		if (x->last)
			gd_html_num(f, gd_fmt_time(b[5], 48, x->late_sum_ns / (double)x->last));
		else
			gd_html_num(f, "—");
		fputs("</tr>\n", f);
	}
	gd_html_table_close(f);
}

static void collectives(FILE *f, const struct gd_ranks *R)
{
	static const char *const heads[] = {"collective", ">kernels", ">ranks", ">total", ">mean", ">min", ">max"};
	char b[7][96];
	if (!R->nops)
		return;
	fputs("<h3>NCCL collectives</h3>\n<p class='note'>From the kernel names: operation, reduction, type, "
	      "algorithm/protocol. Message sizes are not recorded: unknown.</p>\n",
	      f);
	gd_html_table_open(f, "collectives", heads, 7);
	for (int i = 0; i < R->nops && i < TOP_RANKS; i++) {
		const struct gd_coll_stat *o = &R->ops[i];
		fputs("<tr>", f);
		gd_html_text(f, gd_nccl_op_text(&o->op, b[0], sizeof(b[0])));
		snprintf(b[1], sizeof(b[1]), "%ld", o->kernels);
		gd_html_num(f, b[1]);
		snprintf(b[2], sizeof(b[2]), "%d", o->ranks);
		gd_html_num(f, b[2]);
		gd_html_num(f, gd_fmt_time(b[3], sizeof(b[3]), o->total_ns));
		gd_html_num(f, gd_fmt_time(b[4], sizeof(b[4]), o->mean_ns));
		gd_html_num(f, gd_fmt_time(b[5], sizeof(b[5]), o->min_ns));
		gd_html_num(f, gd_fmt_time(b[6], sizeof(b[6]), o->max_ns));
		fputs("</tr>\n", f);
	}
	gd_html_table_close(f);
	if (R->nops > TOP_RANKS)
		fprintf(f, "<p class='note'>… %d more kinds (<code>gpudiag report --format csv --table collectives</code>).</p>\n",
			R->nops - TOP_RANKS);
}

void gd_html_ranks(FILE *f, const struct gd_analysis *a)
{
	const struct gd_ranks *R = &a->r;
	int n = R->nr < TOP_RANKS ? R->nr : TOP_RANKS;
	char lab[96];
	fputs("<p class='note'>A rank is a process and its GPU. Times are unions of intervals over each rank's GPU span, "
	      "% of it. Exposed: NCCL time no compute kernel on its GPU overlapped, waiting included; waiting: before "
	      "the last rank of the collective had started; last: judged collectives where its compute ended last; "
	      "lateness: by how much, on average.</p>\n",
	      f);
	if (R->straggler >= 0) {
		fputs("<p id='straggler'>Straggler: <b>", f);
		esc(f, gd_rank_label(R, R->straggler, lab, sizeof(lab)));
		fputs("</b> — the verdict above says what it cost the others.</p>\n", f);
	}
	if (n)
		bars(f, R, n);
	nodes(f, R);
	if (n) {
		fputs("<h3>Ranks</h3>\n", f);
		ranks_table(f, R, n);
	}
	if (R->nr > n)
		fprintf(f, "<p class='note'>… %d more ranks (<code>gpudiag report --format csv --table ranks</code>).</p>\n",
			R->nr - n);
	if (R->nccl_ranks >= 2) {
		fprintf(f, "<p class='note'>Collectives matched across ranks by order: %ld (%d communicator stream%s), %ld "
			   "judged for lateness",
			R->matched, R->groups, R->groups == 1 ? "" : "s", R->judged);
		if (R->mismatched)
			fprintf(f, "; positions where the ranks disagreed, left out: %ld", R->mismatched);
		fputs(".</p>\n", f);
	}
	if (R->unmatched)
		fprintf(f, "<p class='note'>%ld NCCL kernels matched no other rank's (a stream of one rank, or past the end "
			   "of the shortest rank's sequence).</p>\n",
			R->unmatched);
	collectives(f, R);
}
