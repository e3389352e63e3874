/* gpudiag lab launch — guide §2 "Kernel Launch overhead" and §9 (why fusion matters).
 *
 * What one launch costs, measured four ways with an empty kernel:
 *   round trip  launch + cudaStreamSynchronize, host clock, min of 20 per sample (latency);
 *   API call    host time to issue one launch (1000 issued, divided);
 *   back to back  1000 launches on one stream, each ordered after the previous, CUDA events
 *               over the batch ÷ 1000 (the "per dependent launch" figure);
 *   graph node  the same 1000 launches captured in a CUDA Graph and replayed, events ÷ 1000.
 * Then the guide's bad pattern, `for _ in range(1000): small_op(x)` with small_op
 * x = fmaf(x, a, b) over a small vector, against one fused kernel doing the 1000 steps in
 * registers, and against the 1000 launches replayed as one CUDA Graph. Each pattern's output
 * is checked bit for bit against the CPU (fmaf, 1000 steps per element).
 * All variants are interleaved inside each repetition (lab_launch.cu) and recorded through
 * the harness with the NVML samples of the whole measurement. */
#include "core/status.h"
#include "kernels/lab_launch.h"
#include "lab/lab.h"
#include "lab/lab_exec.h"
#include "lab/lab_key.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

float gd_lx_launch_ref(float x, int n_ops, float a, float b)
{
	for (int k = 0; k < n_ops; k++)
		x = fmaf(x, a, b);
	return x;
}

double gd_lx_launch_share(double bad_s, double fused_s)
{
	if (!(bad_s > 0) || !(fused_s >= 0))
		return NAN;
	return bad_s > fused_s ? 1.0 - fused_s / bad_s : 0.0;
}

#define GE "empty kernel: what one launch costs"
#define GP "the guide's 1000 small ops"

/* The rows' stable keys: the verdicts look rows up by these, never by their labels. */
enum { K_ROUNDTRIP = 1, K_API, K_B2B, K_GRAPH_NODE, K_BAD, K_GRAPH_OPS, K_FUSED };

static struct gd_lab_result *record(struct gd_lab_run *r, int key, const char *group, const char *name,
				    double x, const double *us, int n, double scale,
				    const struct gd_lab_check *c, double t0, double t1)
{
	struct gd_lab_variant v;
	struct gd_lab_result *res;
	double *s = malloc(sizeof(double) * (size_t)n);
	if (!s)
		return NULL;
	for (int i = 0; i < n; i++)
		s[i] = us[i] * 1e-6 * scale;
	memset(&v, 0, sizeof(v));
	v.group = group;
	v.name = name;
	v.x = x;
	v.reps = 1;
	res = gd_lab_set_key(gd_lab_record(r, &v, s, n, c), key);
	free(s);
	if (res)
		gd_lab_sample_window(r, res, t0, t1);
	return res;
}

struct launch_run {
	struct gd_launch_cfg cfg;
	struct gd_launch_raw raw;
	int reps;
	double *buf;
	float *x0, *ob, *of, *og; /* the input; the bad pattern's, fused and graph outputs */
	double *ref, t0, t1;
	struct gd_lab_check cb, cf, cg;
};

/* The configuration, the host buffers and the random input. */
static int launch_prepare(struct gd_lab_run *r, struct launch_run *s)
{
	struct gd_launch_cfg *cfg = &s->cfg;
	struct gd_launch_raw *raw = &s->raw;
	int reps = s->reps = r->runs;
	uint64_t seed = 1;
	memset(cfg, 0, sizeof(*cfg));
	cfg->reps = reps;
	cfg->n_launch = r->quick ? 200 : 1000;
	cfg->n_ops = 1000;
	cfg->n_elems = r->size > 0 ? (int)(r->size / 4) : 1 << 16;
	cfg->a = 0.999f;
	cfg->b = 0.001f;
	if (cfg->n_elems < 1 || r->size > (1LL << 30))
		return gd_error(GD_EUSAGE, "lab launch: --size must be between 4 bytes and 1 GiB");
	s->buf = calloc((size_t)reps * 7, sizeof(double));
	s->x0 = malloc(sizeof(float) * (size_t)cfg->n_elems);
	s->ob = malloc(sizeof(float) * (size_t)cfg->n_elems);
	s->of = malloc(sizeof(float) * (size_t)cfg->n_elems);
	s->og = malloc(sizeof(float) * (size_t)cfg->n_elems);
	s->ref = malloc(sizeof(double) * (size_t)cfg->n_elems);
	if (!s->buf || !s->x0 || !s->ob || !s->of || !s->og || !s->ref)
		return gd_error(GD_EFAIL, "lab launch: out of host memory");
	raw->roundtrip_us = s->buf;
	raw->api_us = s->buf + reps;
	raw->b2b_us = s->buf + 2 * reps;
	raw->graph_node_us = s->buf + 3 * reps;
	raw->bad_us = s->buf + 4 * reps;
	raw->fused_us = s->buf + 5 * reps;
	raw->graph_ops_us = s->buf + 6 * reps;
	gd_lab_rand_fill(s->x0, (size_t)cfg->n_elems, GD_DT_F32, -1, 1, &seed);
	return GD_OK;
}

/* Every variant, interleaved in each repetition (lab_launch.cu), under one NVML window. */
static int launch_measure(struct gd_lab_run *r, struct launch_run *s)
{
	char err[512] = "";
	s->t0 = gd_lab_now_ns();
	if (gd_launch_measure(r->dev.index, &s->cfg, s->x0, &s->raw, s->ob, s->of, s->og, err, sizeof(err)))
		return gd_error(GD_EFAIL, "lab launch: %s", err);
	s->t1 = gd_lab_now_ns();
	return GD_OK;
}

/* The three patterns' outputs against the CPU, bit for bit. */
static void launch_check(struct launch_run *s)
{
	size_t n = (size_t)s->cfg.n_elems;
	for (int i = 0; i < s->cfg.n_elems; i++)
		s->ref[i] = gd_lx_launch_ref(s->x0[i], s->cfg.n_ops, s->cfg.a, s->cfg.b);
	memset(&s->cb, 0, sizeof(s->cb));
	memset(&s->cf, 0, sizeof(s->cf));
	memset(&s->cg, 0, sizeof(s->cg));
	gd_lab_cmp(s->ob, s->ref, n, GD_DT_F32, 0, 0, &s->cb);
	gd_lab_cmp(s->of, s->ref, n, GD_DT_F32, 0, 0, &s->cf);
	gd_lab_cmp(s->og, s->ref, n, GD_DT_F32, 0, 0, &s->cg);
}

static void launch_record_empty(struct gd_lab_run *r, const struct launch_run *s)
{
	struct gd_lab_result *res;
	int reps = s->reps;
	record(r, K_ROUNDTRIP, GE, "launch + sync round trip (host clock, min of 20)", 1, s->raw.roundtrip_us,
	       reps, 1, NULL, s->t0, s->t1);
	record(r, K_API, GE, "launch API call (host clock)", 2, s->raw.api_us, reps, 1, NULL, s->t0, s->t1);
	res = record(r, K_B2B, GE, "back to back on one stream (per dependent launch)", 3, s->raw.b2b_us,
		     reps, 1, NULL, s->t0, s->t1);
	if (res)
		gd_lab_result_metric(res, "launches_per_s", 1.0 / res->t_median, "/s");
	res = record(r, K_GRAPH_NODE, GE, "CUDA Graph replay (per node)", 4, s->raw.graph_node_us, reps, 1,
		     NULL, s->t0, s->t1);
	if (res)
		gd_lab_result_metric(res, "launches_per_s", 1.0 / res->t_median, "/s");
}

static void launch_record_patterns(struct gd_lab_run *r, const struct launch_run *s)
{
	char nb[96], nf[96], ng[96];
	struct gd_lab_result *rb, *rg, *rf;
	int reps = s->reps, n_ops = s->cfg.n_ops;
	snprintf(nb, sizeof(nb), "bad: %d launches of small_op", n_ops);
	snprintf(ng, sizeof(ng), "the %d launches as one CUDA Graph", n_ops);
	snprintf(nf, sizeof(nf), "good: one fused kernel (%d steps)", n_ops);
	record(r, K_BAD, GP, nb, 1, s->raw.bad_us, reps, 1, &s->cb, s->t0, s->t1);
	record(r, K_GRAPH_OPS, GP, ng, 2, s->raw.graph_ops_us, reps, 1, &s->cg, s->t0, s->t1);
	record(r, K_FUSED, GP, nf, 3, s->raw.fused_us, reps, 1, &s->cf, s->t0, s->t1);
	rb = gd_lab_find_key(r, K_BAD);
	rg = gd_lab_find_key(r, K_GRAPH_OPS);
	rf = gd_lab_find_key(r, K_FUSED);
	if (rb && rg && rf) {
		struct gd_lab_result *all[3] = {rb, rg, rf};
		for (int i = 0; i < 3; i++) {
			gd_lab_result_metric(all[i], "per_op_us", all[i]->t_median * 1e6 / n_ops, "µs");
			gd_lab_result_metric(all[i], "launch_share_pct",
					     gd_lx_launch_share(all[i]->t_median, rf->t_median) * 100, "%");
			gd_lab_result_metric(all[i], "vs_fused", all[i]->t_median / rf->t_median, "×");
		}
	}
}

static void launch_summarise(struct gd_lab_run *r, const struct launch_run *s)
{
	const struct gd_launch_cfg *cfg = &s->cfg;
	const struct gd_lab_result *b2b = gd_lab_find_key(r, K_B2B), *gn = gd_lab_find_key(r, K_GRAPH_NODE);
	const struct gd_lab_result *rt = gd_lab_find_key(r, K_ROUNDTRIP), *api = gd_lab_find_key(r, K_API);
	const struct gd_lab_result *rb = gd_lab_find_key(r, K_BAD), *rg = gd_lab_find_key(r, K_GRAPH_OPS),
				   *rf = gd_lab_find_key(r, K_FUSED);
	gd_lab_note(
	    r,
	    "small_op: x = fmaf(x, %g, %g) over %d floats, 256 threads per block; each pattern restarts "
	    "from the same x (the reset is outside the timed span); %d repetitions, all variants "
	    "interleaved in each",
	    cfg->a, cfg->b, cfg->n_elems, s->reps);
	gd_lab_note(
	    r,
	    "empty-kernel batches: %d launches (the API figure includes any wait for a full launch queue); "
	    "'launch share' = 1 − fused time / pattern time, the part "
	    "of the pattern that is not the work itself",
	    cfg->n_launch);
	if (b2b && gn && rt && api)
		gd_lab_verdict(r, "§2",
			       "One launch of an empty kernel cost %.2f µs back to back on a stream "
			       "(median; min "
			       "%.2f) and %.2f µs as a CUDA Graph node; issuing it took the CPU %.2f "
			       "µs and a launch "
			       "the host waits for %.2f µs round trip (min). Work shorter than that "
			       "is dominated by "
			       "the launch.",
			       b2b->t_median * 1e6, b2b->t_min * 1e6, gn->t_median * 1e6, api->t_median * 1e6,
			       rt->t_min * 1e6);
	if (rb && rg && rf)
		gd_lab_verdict(r, "§2 §9",
			       "The guide's bad pattern took %.2f µs per op against %.3f µs fused "
			       "(%.0f× slower): "
			       "%.0f %% of its time was launch cost. Replaying the same launches as "
			       "a CUDA Graph "
			       "took %.2f µs per op (%.0f %% launch share): a graph cuts the CPU's "
			       "cost per launch "
			       "but still runs %d kernels; fusion removes them.",
			       rb->t_median * 1e6 / cfg->n_ops, rf->t_median * 1e6 / cfg->n_ops,
			       rb->t_median / rf->t_median,
			       gd_lx_launch_share(rb->t_median, rf->t_median) * 100,
			       rg->t_median * 1e6 / cfg->n_ops,
			       gd_lx_launch_share(rg->t_median, rf->t_median) * 100, cfg->n_ops);
}

static void launch_chart(struct gd_lab_run *r)
{
	struct gd_lab_chart ch;
	memset(&ch, 0, sizeof(ch));
	ch.title = "Launch overhead: time per small op";
	ch.xlabel = "1 = 1000 launches   2 = CUDA Graph of them   3 = one fused kernel";
	ch.ylabel = "µs per op (median)";
	ch.logy = 1;
	ch.y = GD_LAB_Y_METRIC;
	ch.metric = "per_op_us";
	ch.groups[0] = GP;
	ch.ngroups = 1;
	gd_lab_set_chart(r, &ch);
}

static int run(struct gd_lab_run *r)
{
	struct launch_run s;
	int rc;
	memset(&s, 0, sizeof(s));
	if ((rc = launch_prepare(r, &s)) == GD_OK && (rc = launch_measure(r, &s)) == GD_OK) {
		launch_check(&s);
		launch_record_empty(r, &s);
		launch_record_patterns(r, &s);
		launch_summarise(r, &s);
		launch_chart(r);
	}
	free(s.buf);
	free(s.x0);
	free(s.ob);
	free(s.of);
	free(s.og);
	free(s.ref);
	return rc;
}

const struct gd_lab gd_lab_launch = {
    "launch",
    "§2 §9",
    "kernel launch overhead: empty-kernel cost, 1000 small launches vs fused vs CUDA Graph",
    "Measures an empty kernel's launch: host round trip (launch + sync, min), API call cost, back to\n"
    "back on one stream (per dependent launch, events), and per node of a replayed CUDA Graph. Then\n"
    "the guide's bad pattern (1000 launches of a small elementwise op) against one fused kernel\n"
    "doing the same 1000 steps and against the 1000 launches replayed as a CUDA Graph, with time per\n"
    "op and the launch cost as a share of the total ('launch_share_pct'). Outputs are checked bit\n"
    "for bit against the CPU. --size BYTES sets the small op's vector (default 256 KiB).\n",
    run,
    NULL, /* no --shape */
    4, 1LL << 30, 0, /* --size: the range (and step) the run itself requires */
    " (bytes: the small op's vector)",
};
