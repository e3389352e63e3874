/* The ranks of a job (issue 22; analysis/ranks.h) in the terminal report, JSON and CSV/TSV:
 * the job's profiles and the clock offsets applied, a row per rank (process and GPU), and the
 * NCCL collectives by kind. Shown where the profile has several ranks, NCCL kernels or several
 * nodes (gd_ranks_shown); a one-GPU report reads as before. Computes nothing: the figures are
 * the analysis's. */
#include "render/report.h"

#include "analysis/analysis.h"
#include "core/json.h"
#include "core/out.h"
#include "core/table.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define NCOLS(a) ((int)(sizeof(a) / sizeof(a[0])))

static double frac(double a, double b) { return b > 0 ? a / b : NAN; }

/* "+40.000 ms" with the sign, for an offset. */
static char *signed_time(char *b, size_t n, double ns)
{
	char t[48];
	snprintf(b, n, "%s%s", ns < 0 ? "−" : "+", gd_fmt_time(t, sizeof(t), fabs(ns)));
	return b;
}

char *gd_report_node_clock(const struct gd_ranks *r, int i, char *buf, size_t n)
{
	const struct gd_node *d = &r->nodes[i];
	char b[2][48];
	if (i == 0)
		snprintf(buf, n, "the reference clock");
	else if (d->aligned)
		snprintf(buf, n, "offset %s ± %s (%ld collectives)%s%s", signed_time(b[0], 48, d->offset_ns),
			 gd_fmt_time(b[1], 48, d->uncertainty_ns), d->matched, d->note[0] ? "; " : "", d->note);
	else
		snprintf(buf, n, "clock taken as recorded: %s", d->note);
	return buf;
}

void gd_report_nodes_text(const struct gd_analysis *a, FILE *out)
{
	const struct gd_ranks *R = &a->r;
	char b[400];
	if (R->nnodes < 2)
		return;
	fprintf(out, "job: %d profiles, one per node, judged together; each clock put on node 0's by the collectives "
		     "they share (the median of the per-collective offsets, ± their median absolute deviation)\n",
		R->nnodes);
	for (int i = 0; i < R->nnodes; i++) {
		const struct gd_node *n = &R->nodes[i];
		int warn = i > 0 && !n->aligned;
		fprintf(out, "  node %d  %s  %s%s%s\n", i, gd_tty(n->path), warn ? gd_yellow() : "",
			gd_report_node_clock(R, i, b, sizeof(b)), warn ? gd_reset() : "");
	}
}

void gd_report_ranks_text(const struct gd_analysis *a, int top, FILE *out)
{
	const struct gd_ranks *R = &a->r;
	const struct gd_profile *p = &a->p;
	struct gd_table t;
	char b[12][64];
	int multi = R->nnodes > 1, nc = multi ? 13 : 12;
	if (!gd_ranks_shown(R))
		return;
	fprintf(out, "\n  %sRanks%s (a process and its GPU; times are unions of intervals over each rank's GPU span, %% of "
		     "it; exposed: NCCL time not overlapped by compute kernels on its GPU, waiting included; waiting: "
		     "before the last rank of the collective had started; last: judged collectives where its compute "
		     "ended last)\n",
		gd_bold(), gd_reset());
	gd_table_init(&t, nc);
	for (int c = multi ? 4 : 3; c < nc; c++)
		gd_table_align_right(&t, c);
	if (multi)
		gd_table_rowv(&t, "rank", "node", "pid", "GPU", "span", "compute", "NCCL", "exposed", "waiting", "copies",
			      "idle", "last", "lateness");
	else
		gd_table_rowv(&t, "rank", "pid", "GPU", "span", "compute", "NCCL", "exposed", "waiting", "copies", "idle",
			      "last", "lateness");
	for (int i = 0; i < R->nr && i < top; i++) {
		const struct gd_rank *x = &R->r[i];
		char rk[16], node[16], pid[16], gpu[16], last[32];
		snprintf(rk, sizeof(rk), "%d", i);
		snprintf(node, sizeof(node), "%d", x->node);
		snprintf(pid, sizeof(pid), "%d", x->pid);
		snprintf(gpu, sizeof(gpu), "%d", x->gpu);
		snprintf(last, sizeof(last), "%ld/%ld", x->last, x->judged);
		gd_fmt_time_pct(b[1], 64, x->compute_ns, x->span_ns);
		gd_fmt_time_pct(b[2], 64, x->comm_ns, x->span_ns);
		gd_fmt_time_pct(b[3], 64, x->comm_exposed_ns, x->span_ns);
		gd_fmt_time_pct(b[4], 64, x->comm_wait_ns, x->span_ns);
		gd_fmt_time_pct(b[5], 64, x->copy_ns, x->span_ns);
		gd_fmt_time_pct(b[6], 64, x->idle_ns, x->span_ns);
		gd_fmt_time(b[0], 64, x->span_ns);
		if (x->last)
			gd_fmt_time(b[7], 64, x->late_sum_ns / (double)x->last);
		else
			snprintf(b[7], 64, "—");
		if (multi)
			gd_table_rowv(&t, rk, node, pid, gpu, b[0], b[1], b[2], b[3], b[4], b[5], b[6], x->nccl_kernels ? last : "—",
				      b[7]);
		else
			gd_table_rowv(&t, rk, pid, gpu, b[0], b[1], b[2], b[3], b[4], b[5], b[6], x->nccl_kernels ? last : "—",
				      b[7]);
	}
	gd_table_print(&t, out, 4);
	gd_table_free(&t);
	if (R->nr > top)
		fprintf(out, "    … %d more ranks (--top N, or --format csv --table ranks)\n", R->nr - top);
	if (R->nccl_ranks >= 2)
		fprintf(out, "    collectives matched across ranks by order: %ld (%d communicator stream%s), %ld judged for "
			     "lateness%s%s\n",
			R->matched, R->groups, R->groups == 1 ? "" : "s", R->judged,
			R->mismatched ? "; positions where the ranks disagreed left out: " : "",
			R->mismatched ? (snprintf(b[8], 64, "%ld", R->mismatched), b[8]) : "");
	if (R->unmatched)
		fprintf(out, "    %ld NCCL kernels matched no other rank's (a stream of one rank, or past the end of the "
			     "shortest rank's sequence)\n",
			R->unmatched);
	if (!R->nops)
		return;
	fprintf(out, "\n  %sNCCL collectives%s (from the kernel names: operation, reduction, type, algorithm/protocol; "
		     "message sizes are not recorded: unknown)\n",
		gd_bold(), gd_reset());
	gd_table_init(&t, 7);
	for (int c = 1; c < 7; c++)
		gd_table_align_right(&t, c);
	gd_table_rowv(&t, "collective", "kernels", "ranks", "total", "mean", "min", "max");
	for (int i = 0; i < R->nops && i < top; i++) {
		const struct gd_coll_stat *o = &R->ops[i];
		char name[96], n[24], r[16];
		gd_nccl_op_text(&o->op, name, sizeof(name));
		snprintf(n, sizeof(n), "%ld", o->kernels);
		snprintf(r, sizeof(r), "%d", o->ranks);
		gd_table_rowv(&t, name, n, r, gd_fmt_time(b[0], 64, o->total_ns), gd_fmt_time(b[1], 64, o->mean_ns),
			      gd_fmt_time(b[2], 64, o->min_ns), gd_fmt_time(b[3], 64, o->max_ns));
	}
	gd_table_print(&t, out, 4);
	gd_table_free(&t);
	(void)p;
}

/* ---- tables: JSON arrays and CSV/TSV (docs/json.md, docs/scripting.md) ---- */
static const char *const ranks_cols[] = {
	"rank", "node", "pid", "device", "node_device", "gpu_name", "kernels", "nccl_kernels", "copies", "start", "end", "span_ns",
	"busy_ns", "compute_ns", "comm_ns", "comm_overlap_ns", "comm_exposed_ns", "comm_wait_ns", "copy_ns",
	"idle_ns", "idle_fraction", "collectives", "judged", "last", "lateness_mean_ns", "lateness_max_ns",
	"waited_for_ns"};

static void tw_ranks(struct gd_tw *w, const struct gd_analysis *a, int top)
{
	const struct gd_ranks *R = &a->r;
	const struct gd_profile *p = &a->p;
	if (!gd_tw_begin(w, "ranks", NULL, ranks_cols, NCOLS(ranks_cols)))
		return;
	for (int i = 0; i < R->nr && i < top; i++) {
		const struct gd_rank *x = &R->r[i];
		gd_tw_row(w);
		gd_tw_int(w, i);
		gd_tw_int(w, x->node);
		gd_tw_int(w, x->pid);
		gd_tw_int(w, x->device);
		gd_tw_int(w, x->gpu);
		gd_tw_str(w, x->device >= 0 && x->device < p->ndev ? p->dev[x->device].name : NULL);
		gd_tw_int(w, x->kernels);
		gd_tw_int(w, x->nccl_kernels);
		gd_tw_int(w, x->copies);
		gd_tw_int(w, x->start);
		gd_tw_int(w, x->end);
		gd_tw_num(w, x->span_ns);
		gd_tw_num(w, x->busy_ns);
		gd_tw_num(w, x->compute_ns);
		gd_tw_num(w, x->comm_ns);
		gd_tw_num(w, x->comm_overlap_ns);
		gd_tw_num(w, x->comm_exposed_ns);
		gd_tw_num(w, x->comm_wait_ns);
		gd_tw_num(w, x->copy_ns);
		gd_tw_num(w, x->idle_ns);
		gd_tw_num(w, frac(x->idle_ns, x->span_ns));
		gd_tw_int(w, x->collectives);
		gd_tw_int(w, x->judged);
		gd_tw_int(w, x->last);
		gd_tw_num(w, x->last ? x->late_sum_ns / (double)x->last : NAN);
		gd_tw_num(w, x->last ? x->late_max_ns : NAN);
		gd_tw_num(w, x->waited_for_ns);
		gd_tw_row_end(w);
	}
	gd_tw_end(w);
}

static const char *const coll_cols[] = {"collective", "op", "redop", "dtype", "algorithm", "protocol", "kernels",
					"ranks", "total_ns", "mean_ns", "min_ns", "max_ns", "bytes"};

static void tw_str_or_null(struct gd_tw *w, const char *s) { gd_tw_str(w, s && *s ? s : NULL); }

static void tw_collectives(struct gd_tw *w, const struct gd_analysis *a, int top)
{
	const struct gd_ranks *R = &a->r;
	if (!gd_tw_begin(w, "collectives", NULL, coll_cols, NCOLS(coll_cols)))
		return;
	for (int i = 0; i < R->nops && i < top; i++) {
		const struct gd_coll_stat *o = &R->ops[i];
		char name[96];
		gd_tw_row(w);
		gd_tw_str(w, gd_nccl_op_text(&o->op, name, sizeof(name)));
		tw_str_or_null(w, o->op.op);
		tw_str_or_null(w, o->op.redop);
		tw_str_or_null(w, o->op.dtype);
		tw_str_or_null(w, o->op.algo);
		tw_str_or_null(w, o->op.proto);
		gd_tw_int(w, o->kernels);
		gd_tw_int(w, o->ranks);
		gd_tw_num(w, o->total_ns);
		gd_tw_num(w, o->mean_ns);
		gd_tw_num(w, o->min_ns);
		gd_tw_num(w, o->max_ns);
		gd_tw_num(w, o->bytes);
		gd_tw_row_end(w);
	}
	gd_tw_end(w);
}

static const char *const nodes_cols[] = {"node", "profile", "aligned", "offset_ns", "uncertainty_ns",
					 "collectives", "note"};

static void tw_nodes(struct gd_tw *w, const struct gd_analysis *a)
{
	const struct gd_ranks *R = &a->r;
	if (!gd_tw_begin(w, "nodes", NULL, nodes_cols, NCOLS(nodes_cols)))
		return;
	for (int i = 0; i < R->nnodes; i++) {
		const struct gd_node *n = &R->nodes[i];
		gd_tw_row(w);
		gd_tw_int(w, i);
		gd_tw_str(w, n->path[0] ? n->path : NULL);
		gd_tw_bool(w, i == 0 || n->aligned);
		gd_tw_num(w, n->offset_ns);
		gd_tw_num(w, i == 0 ? 0 : n->uncertainty_ns);
		if (i == 0)
			gd_tw_null(w);
		else
			gd_tw_int(w, n->matched);
		tw_str_or_null(w, n->note);
		gd_tw_row_end(w);
	}
	gd_tw_end(w);
}

void gd_report_ranks_tw(struct gd_tw *w, const struct gd_analysis *a, int top)
{
	const struct gd_ranks *R = &a->r;
	/* every table only where the profile has ranks to show, unless --table asks for it */
	if (!gd_ranks_shown(R) && !w->want)
		return;
	if (w->format == GD_FMT_JSON) {
		gd_json_obj(w->j, "job");
		gd_json_int(w->j, "ranks", R->nr);
		gd_json_int(w->j, "nccl_ranks", R->nccl_ranks);
		gd_json_int(w->j, "communicator_streams", R->groups);
		gd_json_int(w->j, "collectives_matched", R->matched);
		gd_json_int(w->j, "collectives_judged", R->judged);
		gd_json_int(w->j, "collectives_mismatched", R->mismatched);
		gd_json_int(w->j, "nccl_kernels_unmatched", R->unmatched);
		if (R->straggler >= 0)
			gd_json_int(w->j, "straggler", R->straggler);
		else
			gd_json_null(w->j, "straggler");
		tw_nodes(w, a);
		gd_json_obj_end(w->j);
	} else {
		tw_nodes(w, a);
	}
	tw_ranks(w, a, top);
	tw_collectives(w, a, top);
}
