/* gpudiag lab streams — guide §11 (CUDA Streams: the default-stream trap, copy/compute
 * overlap, events for timing).
 *
 * Part 1: kernels A and B, each on fewer than half the SMs (so they can share the GPU), and
 * a short "norm" kernel on A's output, as in the guide's `out_default = norm(out_a)`.
 *   serial  A, norm, B on one stream: no concurrency by construction;
 *   good    non-blocking streams, norm after A on A's stream, B on its own stream;
 *   bad     streams created with default flags and norm on the legacy default stream, which
 *           waits for A and makes B wait for it: the guide's trap.
 * Concurrency = (A + norm + B alone) / pattern time: 2 would be perfect here, 1 is serial.
 * Part 2: a host buffer copied to the GPU in 8 chunks, each followed by a compute kernel as
 * long as one pinned chunk copy (calibrated), serial on one stream vs pipelined (copies on
 * one stream, kernels on another waiting on per-chunk events), from pinned (cudaMallocHost)
 * and pageable (malloc) memory. Overlap = (copies + kernels − pipelined) / min(copies,
 * kernels): the share of the shorter activity hidden under the longer (1 = ideal).
 * All spans are CUDA events; spans over two streams run from an event the second stream
 * waits for to the later of both streams' final events (lab_streams.cu). */
#include "core/status.h"
#include "kernels/lab_streams.h"
#include "lab/lab.h"
#include "lab/lab_exec.h"
#include "lab/lab_key.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SAMPLE_STRIDE 4099

double gd_lx_overlap(double a, double b, double both)
{
	double m = a < b ? a : b;
	if (!(a > 0) || !(b > 0) || !(both > 0))
		return NAN;
	return (a + b - both) / m;
}

float gd_lx_streams_chain(float c, int iters)
{
	for (int k = 0; k < iters; k++)
		c = fmaf(c, GD_STREAMS_MUL, GD_STREAMS_ADD);
	return c;
}

float gd_lx_streams_seed(int i)
{
	return (float)(i & 1023) * (1.0f / 1024.0f);
}

static int is_poison(float f)
{
	unsigned u;
	memcpy(&u, &f, sizeof(u));
	return u == 0xFFFFFFFFu;
}

/* A's output: threads whose seed is one of 64 spread seeds are compared with the CPU chain;
 * every other thread must equal the thread 0..1023 that shares its seed (same computation). */
static void check_a(const float *y, int nthr, int iters, struct gd_lab_check *c)
{
	double *ref = malloc(sizeof(double) * (size_t)nthr);
	double exact[64];
	memset(c, 0, sizeof(*c));
	if (!ref)
		return;
	for (int s = 0; s < 64; s++)
		exact[s] = gd_lx_streams_chain(gd_lx_streams_seed(s * 16), iters);
	for (int i = 0; i < nthr; i++) {
		int seed = i & 1023;
		ref[i] = seed % 16 == 0 ? exact[seed / 16] : (seed < nthr ? (double)y[seed] : NAN);
	}
	gd_lab_cmp(y, ref, (size_t)nthr, GD_DT_F32, 0, 0, c);
	snprintf(c->note, sizeof(c->note), "64 seeds vs the CPU chain, every thread vs its seed's");
	free(ref);
}

/* The chunk kernel's output: every element written, every SAMPLE_STRIDE-th one exact. */
static void check_chunks(const float *y, const float *x, size_t n, int iters, struct gd_lab_check *c)
{
	size_t ns = (n + SAMPLE_STRIDE - 1) / SAMPLE_STRIDE;
	double *ref = malloc(sizeof(double) * ns);
	float *got = malloc(sizeof(float) * ns);
	long long unwritten = 0, first = -1;
	memset(c, 0, sizeof(*c));
	/* ns is never 0 (--size is at least 64 KiB), but GCC cannot see that once this is
	 * inlined, and would warn that the samples may be read unset */
	if (!ref || !got || ns == 0) {
		free(ref);
		free(got);
		return;
	}
	for (size_t k = 0; k < ns; k++) {
		got[k] = y[k * SAMPLE_STRIDE];
		ref[k] = gd_lx_streams_chain(x[k * SAMPLE_STRIDE], iters);
	}
	gd_lab_cmp(got, ref, ns, GD_DT_F32, 0, 0, c);
	for (size_t i = 0; i < n; i++)
		if (i % SAMPLE_STRIDE && is_poison(y[i])) {
			unwritten++;
			if (first < 0)
				first = (long long)i;
		}
	c->unwritten += unwritten;
	c->bad += unwritten;
	c->checked += (long long)(n - ns);
	if (first >= 0 && c->first_bad < 0)
		c->first_bad = first;
	c->ok = c->bad == 0 && c->checked > 0;
	snprintf(c->note, sizeof(c->note), "all written; every %dth element vs the CPU", SAMPLE_STRIDE);
	free(ref);
	free(got);
}

#define G1 "default-stream trap: A and B on < half the SMs each, norm(out_a) between"
#define G2 "host-to-device copy overlapped with compute (8 chunks)"

/* The rows' stable keys: the figures and verdicts look rows up by these, never by labels. */
enum {
	K_A = 1,
	K_NORM,
	K_B,
	K_SERIAL,
	K_BAD,
	K_GOOD,
	K_COPY_PINNED,
	K_COPY_PAGEABLE,
	K_KERNELS,
	K_SERIAL_PINNED,
	K_PIPE_PINNED,
	K_SERIAL_PAGEABLE,
	K_PIPE_PAGEABLE,
};

static struct gd_lab_result *record(struct gd_lab_run *r, int key, const char *group, const char *name,
				    double x, double bytes, const double *us, int n,
				    const struct gd_lab_check *c, double t0, double t1)
{
	struct gd_lab_variant v;
	struct gd_lab_result *res;
	double s[64];
	n = n > 64 ? 64 : n;
	for (int i = 0; i < n; i++)
		s[i] = us[i] * 1e-6;
	memset(&v, 0, sizeof(v));
	v.group = group;
	v.name = name;
	v.x = x;
	v.bytes = bytes;
	v.formula = bytes > 0 ? "the host buffer's bytes, copied once" : NULL;
	v.reps = 1;
	res = gd_lab_set_key(gd_lab_record(r, &v, s, n, c), key);
	if (res)
		gd_lab_sample_window(r, res, t0, t1);
	return res;
}

struct streams_run {
	struct gd_streams_cfg cfg;
	struct gd_streams_raw raw;
	int reps, nthr;
	size_t n;
	double *buf, t0, t1;
	float *hx, *ya, *yp, *yg; /* the host buffer; A's output, the pinned and pageable pipelines' */
	struct gd_lab_check ca, cp, cg;
};

/* The configuration, the host buffers and the random host data. */
static int streams_prepare(struct gd_lab_run *r, struct streams_run *s)
{
	struct gd_streams_cfg *cfg = &s->cfg;
	struct gd_streams_raw *raw = &s->raw;
	int reps = s->reps = r->runs > 64 ? 64 : r->runs;
	uint64_t seed = 11;
	memset(cfg, 0, sizeof(*cfg));
	cfg->reps = reps;
	cfg->blocks = r->dev.sms > 4 ? r->dev.sms * 2 / 5 : 1;
	cfg->block = 128;
	cfg->target_us = r->quick ? 500 : 2000;
	cfg->norm_div = 20;
	cfg->copy_bytes = r->size > 0 ? (size_t)r->size : (size_t)(r->quick ? 32 : 128) << 20;
	cfg->chunks = 8;
	if (cfg->copy_bytes < (1 << 16) || cfg->copy_bytes > (8ULL << 30))
		return gd_error(GD_EUSAGE, "lab streams: --size must be between 64 KiB and 8 GiB");
	s->n = cfg->copy_bytes / 4;
	s->nthr = cfg->blocks * cfg->block;
	s->buf = calloc((size_t)reps * 13, sizeof(double));
	s->hx = malloc(s->n * sizeof(float));
	s->ya = malloc((size_t)s->nthr * sizeof(float));
	s->yp = malloc(s->n * sizeof(float));
	s->yg = malloc(s->n * sizeof(float));
	if (!s->buf || !s->hx || !s->ya || !s->yp || !s->yg)
		return gd_error(GD_EFAIL, "lab streams: out of host memory");
	{
		double **p[] = {&raw->a_us,	      &raw->norm_us,
				&raw->b_us,	      &raw->serial_us,
				&raw->good_us,	      &raw->bad_us,
				&raw->copy_pinned_us, &raw->copy_pageable_us,
				&raw->kern_us,	      &raw->serial_pinned_us,
				&raw->ovl_pinned_us,  &raw->serial_pageable_us,
				&raw->ovl_pageable_us};
		for (int i = 0; i < 13; i++)
			*p[i] = s->buf + (size_t)i * reps;
	}
	gd_lab_rand_fill(s->hx, s->n, GD_DT_F32, -1, 1, &seed);
	return GD_OK;
}

/* Both parts, every pattern interleaved in each repetition (lab_streams.cu). */
static int streams_measure(struct gd_lab_run *r, struct streams_run *s)
{
	char err[512] = "";
	s->t0 = gd_lab_now_ns();
	if (gd_streams_measure(r->dev.index, &s->cfg, s->hx, &s->raw, s->ya, s->yp, s->yg, err, sizeof(err)))
		return gd_error(GD_EFAIL, "lab streams: %s", err);
	s->t1 = gd_lab_now_ns();
	return GD_OK;
}

/* Part 1: the rows, their concurrency and the default-stream verdict. */
static void streams_trap(struct gd_lab_run *r, const struct streams_run *s)
{
	const struct gd_streams_raw *raw = &s->raw;
	int reps = s->reps;
	double t0 = s->t0, t1 = s->t1;
	record(r, K_A, G1, "A alone", NAN, 0, raw->a_us, reps, &s->ca, t0, t1);
	record(r, K_NORM, G1, "norm alone", NAN, 0, raw->norm_us, reps, NULL, t0, t1);
	record(r, K_B, G1, "B alone", NAN, 0, raw->b_us, reps, NULL, t0, t1);
	record(r, K_SERIAL, G1, "serial: A, norm, B on one stream", 1, 0, raw->serial_us, reps, NULL, t0, t1);
	record(r, K_BAD, G1, "bad: norm on the legacy default stream", 2, 0, raw->bad_us, reps, NULL, t0, t1);
	record(r, K_GOOD, G1, "good: non-blocking streams", 3, 0, raw->good_us, reps, NULL, t0, t1);
	{
		const struct gd_lab_result *a = gd_lab_find_key(r, K_A), *nm = gd_lab_find_key(r, K_NORM),
					   *b = gd_lab_find_key(r, K_B);
		double work = a && nm && b ? a->t_median + nm->t_median + b->t_median : NAN;
		double conc[3] = {NAN, NAN, NAN};
		const int keys[3] = {K_SERIAL, K_BAD, K_GOOD};
		for (int i = 0; i < 3; i++) {
			struct gd_lab_result *res = gd_lab_find_key(r, keys[i]);
			if (!res || !a || !nm || !b)
				continue;
			conc[i] = work / res->t_median;
			gd_lab_result_metric(res, "concurrency", conc[i], "×");
			gd_lab_result_metric(
			    res, "overlap_of_ideal",
			    gd_lx_overlap(a->t_median + nm->t_median, b->t_median, res->t_median), "");
		}
		if (isfinite(conc[1]) && isfinite(conc[2]))
			gd_lab_verdict(
			    r, "§11",
			    "On explicit non-blocking streams A and B ran side by side: %.2f× concurrency "
			    "(2 is ideal here); with norm(out_a) on the legacy default stream the same work "
			    "ran "
			    "at %.2f×: the default stream waited for A and B waited for it, serialising "
			    "everything, as the guide warns.",
			    conc[2], conc[1]);
	}
}

/* Part 2: the rows, their overlap and the pinned-memory verdict. */
static void streams_overlap(struct gd_lab_run *r, const struct streams_run *s)
{
	const struct gd_streams_raw *raw = &s->raw;
	int reps = s->reps;
	double t0 = s->t0, t1 = s->t1, bytes = (double)s->cfg.copy_bytes;
	record(r, K_COPY_PINNED, G2, "copies alone, pinned", NAN, bytes, raw->copy_pinned_us, reps, NULL, t0,
	       t1);
	record(r, K_COPY_PAGEABLE, G2, "copies alone, pageable", NAN, bytes, raw->copy_pageable_us, reps,
	       NULL, t0, t1);
	record(r, K_KERNELS, G2, "kernels alone", NAN, 0, raw->kern_us, reps, NULL, t0, t1);
	record(r, K_SERIAL_PINNED, G2, "serial, pinned", NAN, 0, raw->serial_pinned_us, reps, NULL, t0, t1);
	record(r, K_PIPE_PINNED, G2, "pipelined, pinned", NAN, 0, raw->ovl_pinned_us, reps, &s->cp, t0, t1);
	record(r, K_SERIAL_PAGEABLE, G2, "serial, pageable", NAN, 0, raw->serial_pageable_us, reps, NULL, t0,
	       t1);
	record(r, K_PIPE_PAGEABLE, G2, "pipelined, pageable", NAN, 0, raw->ovl_pageable_us, reps, &s->cg, t0,
	       t1);
	{
		const struct gd_lab_result *cpn = gd_lab_find_key(r, K_COPY_PINNED),
					   *cpg = gd_lab_find_key(r, K_COPY_PAGEABLE),
					   *k = gd_lab_find_key(r, K_KERNELS);
		double ov[2] = {NAN, NAN};
		for (int pg = 0; pg < 2; pg++) {
			const struct gd_lab_result *cc = pg ? cpg : cpn,
						   *ser = gd_lab_find_key(r, pg ? K_SERIAL_PAGEABLE
										: K_SERIAL_PINNED);
			struct gd_lab_result *res = gd_lab_find_key(r, pg ? K_PIPE_PAGEABLE : K_PIPE_PINNED);
			if (!cc || !k || !res || !ser)
				continue;
			ov[pg] = gd_lx_overlap(cc->t_median, k->t_median, res->t_median);
			gd_lab_result_metric(res, "overlap_of_ideal", ov[pg], "");
			gd_lab_result_metric(res, "vs_serial", ser->t_median / res->t_median, "×");
		}
		{
			const struct gd_lab_result *ppn = gd_lab_find_key(r, K_PIPE_PINNED),
						   *ppg = gd_lab_find_key(r, K_PIPE_PAGEABLE);
			if (cpn && cpg && ppn && ppg && isfinite(ov[0]) && isfinite(ov[1]))
				gd_lab_verdict(
				    r, "§11",
				    "Copying in chunks on one stream while kernels ran on another hid %.0f "
				    "%% of the "
				    "ideal overlap from pinned memory and %.0f %% from pageable memory; but "
				    "pageable "
				    "copies ran at %.1f GB/s against %.1f GB/s pinned, so the pageable "
				    "pipeline took "
				    "%.1f× as long: the CPU stages pageable copies, so pin host buffers "
				    "(pin_memory=True) for non_blocking copies.",
				    ov[0] * 100, ov[1] * 100, cpg->gbps, cpn->gbps,
				    ppg->t_median / ppn->t_median);
		}
	}
}

static void streams_notes(struct gd_lab_run *r, const struct streams_run *s)
{
	const struct gd_streams_cfg *cfg = &s->cfg;
	gd_lab_note(
	    r,
	    "part 1: A and B are %d blocks × %d threads (of %d SMs), %d-step FMA chains calibrated to "
	    "about %.0f µs; norm runs %d steps; %d repetitions, patterns interleaved",
	    cfg->blocks, cfg->block, r->dev.sms, s->raw.iters, cfg->target_us, s->raw.norm_iters, s->reps);
	gd_lab_note(r,
		    "part 2: %zu MiB in %d chunks; chunk kernel %d FMA steps per element (calibrated to the "
		    "pinned copy time); overlap = (copies + kernels − pipelined) / min(copies, kernels)",
		    cfg->copy_bytes >> 20, cfg->chunks, s->raw.chunk_iters);
}

static void streams_chart(struct gd_lab_run *r)
{
	struct gd_lab_chart ch;
	memset(&ch, 0, sizeof(ch));
	ch.title = "Streams: concurrency of two half-GPU kernels";
	ch.xlabel = "1 = one stream   2 = norm on the legacy default stream   3 = non-blocking streams";
	ch.ylabel = "concurrency (work alone / pattern time)";
	ch.y = GD_LAB_Y_METRIC;
	ch.metric = "concurrency";
	ch.groups[0] = G1;
	ch.ngroups = 1;
	gd_lab_set_chart(r, &ch);
}

static int run(struct gd_lab_run *r)
{
	struct streams_run s;
	int rc;
	memset(&s, 0, sizeof(s));
	if ((rc = streams_prepare(r, &s)) == GD_OK && (rc = streams_measure(r, &s)) == GD_OK) {
		/* A's output and both pipelines' against the CPU */
		check_a(s.ya, s.nthr, s.raw.iters, &s.ca);
		check_chunks(s.yp, s.hx, s.n, s.raw.chunk_iters, &s.cp);
		check_chunks(s.yg, s.hx, s.n, s.raw.chunk_iters, &s.cg);
		streams_trap(r, &s);
		streams_overlap(r, &s);
		streams_notes(r, &s);
		streams_chart(r);
	}
	free(s.buf);
	free(s.hx);
	free(s.ya);
	free(s.yp);
	free(s.yg);
	return rc;
}

const struct gd_lab gd_lab_streams = {
    "streams",
    "§11",
    "the default-stream trap, and copy/compute overlap with pinned vs pageable memory",
    "Part 1: two kernels each on fewer than half the SMs, with a short norm(out_a) between, run on\n"
    "one stream, on non-blocking streams, and with norm on the legacy default stream (the guide's\n"
    "trap); 'concurrency' = work alone / pattern time (2 ideal, 1 serial). Part 2: a host buffer\n"
    "copied in 8 chunks while a kernel processes each chunk, from pinned and pageable memory;\n"
    "'overlap_of_ideal' = (copies + kernels − pipelined) / min(copies, kernels). CUDA events time\n"
    "everything. --size BYTES sets part 2's buffer (default 128 MiB).\n",
    run,
    NULL, /* no --shape */
    64LL << 10, 8LL << 30, 0, /* --size: the range (and step) the run itself requires */
    " (bytes: part 2's buffer)",
};
