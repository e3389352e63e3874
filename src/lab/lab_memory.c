/* gpudiag lab memory — the guide's memory hierarchy (§4) measured: read bandwidth against
 * working-set size (the L1 / L2 / VRAM staircase) and the latency of one dependent load at
 * each level (pointer chase), with where L2 ends read from the curve.
 *
 * Bandwidth: gd_labk_mem_read makes T = blocks·threads threads each load `iters` 16-byte
 * elements, each warp a contiguous chunk of 32·iters elements (modulo the set). The loads
 * issued are exactly the indices j mod n16 for j < T·iters, so
 *   bytes = T · iters · 16   (loads issued; a cache hit counts like a miss)
 *   total = q · P(4·n16) + P(4·rem)   with q, rem = divmod(T·iters, n16), P(m) = Σ_{j<m} h(j)
 * where h is the data's hash; the per-block sums must add up to that total (u32, wrapping).
 * Small working sets are read many times per launch (iters ≥ 256) and every warp's chunk
 * (≥ 128 KB) wraps around the whole set, so each SM re-reads all of it: the smallest level
 * that holds the set sets the speed; sets beyond L2 stream from VRAM.
 *
 * Latency: one thread walks a random cyclic permutation of 128-byte-spaced nodes
 * (p = buf[p]), so every load depends on the previous one and the prefetcher cannot guess;
 * clock64 gives cycles and %globaltimer nanoseconds over the timed steps. */
#include "lab/lab_memory.h"

#include "core/out.h"
#include "core/status.h"
#include "kernels/lab_hash.h"
#include "kernels/lab_memory.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SEED 0x6d656d31u /* "mem1" */

/* ---------------------------------------------------------------- CPU references */

uint32_t gd_labmem_read_total(uint64_t n16, uint64_t loads, uint32_t seed)
{
	uint64_t q = loads / n16, rem = loads % n16;
	uint32_t full = 0, part = 0;
	for (uint64_t j = 0; j < 4 * n16; j++) {
		uint32_t h = gd_hash32(j, seed);
		full += h;
		if (j < 4 * rem)
			part += h;
	}
	return (uint32_t)(q * full) + part;
}

void gd_labmem_read_totals(const uint64_t *n16, const uint64_t *loads, int n, uint32_t seed, uint32_t *totals)
{
	/* one sweep over the largest set: P(m) at every point needed, in increasing m */
	uint64_t *pts = malloc(sizeof(uint64_t) * 2 * (size_t)n);
	uint32_t *val = malloc(sizeof(uint32_t) * 2 * (size_t)n);
	int np = 0;
	if (!pts || !val) {
		for (int i = 0; i < n; i++)
			totals[i] = gd_labmem_read_total(n16[i], loads[i], seed);
		free(pts);
		free(val);
		return;
	}
	for (int i = 0; i < n; i++) {
		pts[np++] = 4 * n16[i];
		pts[np++] = 4 * (loads[i] % n16[i]);
	}
	{
		/* sort indices of pts by value (insertion sort: n is small) */
		int *ord = malloc(sizeof(int) * (size_t)np);
		uint64_t j = 0;
		uint32_t acc = 0;
		if (!ord) {
			free(pts);
			free(val);
			for (int i = 0; i < n; i++)
				totals[i] = gd_labmem_read_total(n16[i], loads[i], seed);
			return;
		}
		for (int i = 0; i < np; i++) {
			int k = i;
			while (k > 0 && pts[ord[k - 1]] > pts[i]) {
				ord[k] = ord[k - 1];
				k--;
			}
			ord[k] = i;
		}
		for (int i = 0; i < np; i++) {
			uint64_t m = pts[ord[i]];
			for (; j < m; j++)
				acc += gd_hash32(j, seed);
			val[ord[i]] = acc;
		}
		free(ord);
	}
	for (int i = 0; i < n; i++)
		totals[i] = (uint32_t)((loads[i] / n16[i]) * val[2 * i]) + val[2 * i + 1];
	free(pts);
	free(val);
}

void gd_labmem_chase_order(uint32_t *order, size_t n, uint64_t *rng)
{
	/* a random permutation: the walk order[0] → order[1] → ... → order[n-1] → order[0] is
	 * one cycle through every node */
	for (size_t i = 0; i < n; i++)
		order[i] = (uint32_t)i;
	for (size_t i = n - 1; i > 0; i--) {
		size_t k = (size_t)(gd_lab_rand_u64(rng) % (i + 1));
		uint32_t t = order[i];
		order[i] = order[k];
		order[k] = t;
	}
}

uint32_t gd_labmem_chase_end(const uint32_t *order, size_t n, uint32_t stride, uint64_t steps)
{
	return order[steps % n] * stride;
}

int gd_labmem_edge(const double *ws, const double *bw, int n, double lo_bw, double hi_bw, double from)
{
	double mid = sqrt(lo_bw * hi_bw);
	if (!(lo_bw > 0) || !(hi_bw > lo_bw))
		return -1;
	for (int i = 0; i < n; i++)
		if (ws[i] >= from && isfinite(bw[i]) && bw[i] < mid)
			return i;
	return -1;
}

/* ---------------------------------------------------------------- bandwidth */

struct read_arg {
	const void *buf;
	size_t n16;
	int iters, blocks, threads;
	uint32_t *partials;
	uint32_t expect;
};

static int read_launch(void *arg, long iter, char *why, size_t n)
{
	struct read_arg *a = arg;
	(void)iter;
	return gd_lab_cuda(gd_labk_mem_read(a->buf, a->n16, a->iters, a->blocks, a->threads, a->partials),
			   why, n);
}

static int read_check(void *arg, const void *out, size_t bytes, struct gd_lab_check *c)
{
	struct read_arg *a = arg;
	const uint32_t *p = out;
	uint32_t sum = 0;
	long long unwritten = 0;
	for (int b = 0; b < a->blocks; b++) {
		if (p[b] == 0xffffffffu)
			unwritten++;
		sum += p[b];
	}
	gd_lab_cmp_u32(&sum, &a->expect, 1, c);
	if (unwritten) { /* a block that wrote nothing spoils the sum; say so */
		c->unwritten += unwritten;
		c->ok = 0;
	}
	snprintf(c->note, sizeof(c->note), "sum of %d block partials (u32) vs CPU", a->blocks);
	return GD_OK;
}

/* ---------------------------------------------------------------- latency */

struct chase_arg {
	const uint32_t *buf;
	uint32_t start, stride;
	long warm, steps;
	const uint32_t *order;
	size_t n;
	unsigned long long *out;
	unsigned long long host[3];
};

static int chase_launch(void *arg, long iter, char *why, size_t n)
{
	struct chase_arg *a = arg;
	(void)iter;
	return gd_lab_cuda(gd_labk_mem_chase(a->buf, a->start, a->warm, a->steps, a->out), why, n);
}

static int chase_check(void *arg, const void *out, size_t bytes, struct gd_lab_check *c)
{
	struct chase_arg *a = arg;
	const unsigned long long *o = out;
	uint32_t got = (uint32_t)o[0],
		 want = gd_labmem_chase_end(a->order, a->n, a->stride, (uint64_t)(a->warm + a->steps));
	if (o[0] > 0xffffffffull)
		got = 0xffffffffu; /* poison */
	gd_lab_cmp_u32(&got, &want, 1, c);
	if (o[1] == ~0ull || o[2] == ~0ull) {
		c->unwritten++;
		c->ok = 0;
	}
	memcpy(a->host, o, sizeof(a->host));
	snprintf(c->note, sizeof(c->note), "end of the walk after %ld steps vs CPU", a->warm + a->steps);
	return GD_OK;
}

/* ---------------------------------------------------------------- the lab */

struct mem_run {
	int threads, blocks;	/* of the bandwidth kernel */
	long long T, l2;	/* threads in flight; the reported L2 (-1 unknown) */
	size_t maxw, freeb;	/* the largest working set; free device memory */
	double ws[80], bwv[80]; /* working sets and their measured GB/s */
	uint64_t n16s[80], loads[80];
	uint32_t totals[80];
	int nw, lat[3]; /* working sets; the latency rows' indices (-1 none) */
	void *buf, *partials;
};

/* The working sets (16 KB … the largest that fits, two points per octave), the device
 * buffer filled once, and the CPU's expected sums. */
static int mem_prepare(struct gd_lab_run *r, struct mem_run *s)
{
	double *ws = s->ws;
	uint64_t *n16s = s->n16s, *loads = s->loads;
	int nw = 0, rc;
	long long T;
	size_t maxw, freeb;
	s->threads = 256;
	s->blocks = (r->dev.sms > 0 ? r->dev.sms : 80) * 8; /* 2048 threads per SM */
	T = s->T = (long long)s->blocks * s->threads;
	s->l2 = r->dev.l2_bytes;
	maxw = r->size > 0 ? (size_t)r->size : (r->quick ? (size_t)512 << 20 : (size_t)4 << 30);
	freeb = s->freeb = gd_lab_mem_free();
	s->lat[0] = s->lat[1] = s->lat[2] = -1;

	if (freeb && maxw > freeb / 2)
		maxw = freeb / 2;
	maxw &= ~(size_t)((1 << 20) - 1);
	s->maxw = maxw;
	if (maxw < ((size_t)1 << 20))
		return r->size > 0 && r->size < (1 << 20)
			   ? gd_error(GD_EUSAGE,
				      "lab memory: --size (the largest working set) must be at least 1 MiB")
			   : gd_error(GD_EFAIL, "lab memory: not enough free device memory");

	/* working sets: 16 KB … maxw, two points per octave (×1, ×1.5) */
	for (double w = 16384; w <= (double)maxw && nw < 78; w *= 2) {
		ws[nw++] = w;
		if (w * 1.5 <= (double)maxw)
			ws[nw++] = w * 1.5;
	}
	s->nw = nw;
	for (int i = 0; i < nw; i++) {
		long long iters;
		n16s[i] = (uint64_t)ws[i] / 16;
		iters = ((long long)n16s[i] + T - 1) / T;
		if (iters < 256)
			iters = 256;
		loads[i] = (uint64_t)(T * iters);
	}
	if ((rc = gd_lab_alloc(r, &s->buf, maxw, "the working sets")) != GD_OK ||
	    (rc = gd_lab_alloc(r, &s->partials, sizeof(uint32_t) * (size_t)s->blocks, "block sums")) != GD_OK)
		return rc;
	if (gd_labk_mem_fill(s->buf, maxw / 4, SEED))
		return gd_error(GD_EFAIL, "lab memory: filling the buffer failed");
	gd_labmem_read_totals(n16s, loads, nw, SEED, s->totals);
	return GD_OK;
}

/* ---- bandwidth per working set */
static int mem_bandwidth(struct gd_lab_run *r, struct mem_run *s)
{
	const int threads = s->threads, blocks = s->blocks, nw = s->nw;
	const long long T = s->T;
	const double *ws = s->ws;
	double *bwv = s->bwv;
	const uint64_t *n16s = s->n16s, *loads = s->loads;
	const uint32_t *totals = s->totals;
	void *buf = s->buf, *partials = s->partials;
	int rc;
	for (int i = 0; i < nw; i++) {
		struct read_arg a = {buf,      (size_t)n16s[i], (int)(loads[i] / (uint64_t)T),
				     blocks,   threads,		partials,
				     totals[i]};
		struct gd_lab_variant v = {0};
		char name[64];
		gd_fmt_bytes(name, sizeof(name), ws[i]);
		v.group = "bandwidth vs working set";
		v.name = name;
		v.x = ws[i];
		v.bytes = (double)loads[i] * 16;
		v.formula = "threads · loads per thread · 16 B (loads issued, hits and misses alike)";
		v.roof = GD_ROOF_DRAM_READ;
		v.launch = read_launch;
		v.arg = &a;
		v.out = partials;
		v.out_bytes = sizeof(uint32_t) * (size_t)blocks;
		v.check = read_check;
		if ((rc = gd_lab_measure(r, &v)) != GD_OK)
			return rc;
		bwv[i] = r->res[r->nres - 1].gbps;
	}
	return GD_OK;
}

/* ---- latency per level: one thread's pointer chase in L1-, L2- and VRAM-sized sets */
static int mem_latency(struct gd_lab_run *r, struct mem_run *s)
{
	const long long l2 = s->l2;
	const size_t freeb = s->freeb;
	int *lat = s->lat, rc;
	char b1[32];
	struct {
		const char *name;
		size_t bytes;
		long steps;
		int warm;
	} lv[3] = {
	    {"L1", 16 << 10, 100000, 1},
	    {"L2", 0, 50000, 1},
	    {"VRAM", r->quick ? (size_t)128 << 20 : (size_t)512 << 20, 20000, 0},
	};
	const uint32_t stride = 32; /* 128 B between nodes: one node per cache line */
	void *cbuf, *dorder, *dout;
	size_t maxc;
	uint64_t rng = 0x636861736532ull;
	lv[1].bytes = l2 > 0 ? (size_t)(l2 / 4) : (size_t)4 << 20;
	if (lv[1].bytes > ((size_t)8 << 20))
		lv[1].bytes = (size_t)8 << 20;
	if (l2 > 0 && lv[2].bytes < (size_t)(8 * l2))
		lv[2].bytes = (size_t)(8 * l2);
	if (freeb && lv[2].bytes > freeb / 4)
		lv[2].bytes = freeb / 4;
	maxc = lv[2].bytes;
	if ((rc = gd_lab_alloc(r, &cbuf, maxc, "the pointer chase")) != GD_OK ||
	    (rc = gd_lab_alloc(r, &dorder, maxc / 128 * 4, "the chase order")) != GD_OK ||
	    (rc = gd_lab_alloc(r, &dout, 3 * sizeof(unsigned long long), "chase results")) != GD_OK)
		return rc;
	for (int l = 0; l < 3; l++) {
		size_t n = lv[l].bytes / 128;
		uint32_t *order = malloc(n * sizeof(uint32_t));
		struct chase_arg a;
		struct gd_lab_variant v = {0};
		struct gd_lab_result *res;
		char name[64];
		if (!order)
			return gd_error(GD_EFAIL, "lab memory: out of host memory");
		gd_labmem_chase_order(order, n, &rng);
		if ((rc = gd_lab_upload(dorder, order, n * sizeof(uint32_t))) != GD_OK ||
		    gd_labk_mem_link(cbuf, dorder, n, stride)) {
			free(order);
			return rc ? rc : gd_error(GD_EFAIL, "lab memory: linking the chase failed");
		}
		a = (struct chase_arg){cbuf,
				       order[0] * stride,
				       stride,
				       lv[l].warm ? (long)(2 * n) : 0,
				       r->quick ? lv[l].steps / 2 : lv[l].steps,
				       order,
				       n,
				       dout,
				       {0}};
		snprintf(name, sizeof(name), "%s (%s set)", lv[l].name,
			 gd_fmt_bytes(b1, sizeof(b1), (double)lv[l].bytes));
		v.group = "latency (pointer chase)";
		v.name = name;
		v.x = (double)lv[l].bytes;
		v.formula = "one dependent 4-byte load per step; cycles from clock64, ns from %globaltimer";
		v.reps = 1;
		v.launch = chase_launch;
		v.arg = &a;
		v.out = dout;
		v.out_bytes = sizeof(a.host);
		v.check = chase_check;
		rc = gd_lab_measure(r, &v);
		free(order);
		if (rc != GD_OK)
			return rc;
		res = &r->res[r->nres - 1];
		lat[l] = r->nres - 1;
		if (res->check.ok) {
			double cyc = (double)a.host[1] / (double)a.steps,
			       ns = (double)a.host[2] / (double)a.steps;
			gd_lab_result_metric(res, "cycles_per_load", cyc, "cycles");
			gd_lab_result_metric(res, "ns_per_load", ns, "ns");
			gd_lab_result_metric(res, "sm_clock_mhz_in_kernel", ns > 0 ? cyc / ns * 1e3 : NAN,
					     "MHz");
		}
	}
	return GD_OK;
}

/* ---- reading the staircase: plateaus, the L2 edge, latency per level */
static void mem_staircase(struct gd_lab_run *r, const struct mem_run *s)
{
	const long long l2 = s->l2;
	const double *ws = s->ws, *bwv = s->bwv;
	const int nw = s->nw, *lat = s->lat;
	char b1[32], b2[32], b3[32];
	double l1 = NAN, l2bw = NAN, dram = NAN;
	double l2hi = l2 > 0 ? (double)l2 / 2 : 16e6;
	int e1, e2;
	for (int i = 0; i < nw; i++) {
		if (ws[i] <= 64 * 1024 && !(bwv[i] <= l1))
			l1 = bwv[i];
		if (ws[i] >= 1 << 20 && ws[i] <= l2hi && !(bwv[i] <= l2bw))
			l2bw = bwv[i];
	}
	dram = bwv[nw - 1];
	e1 = gd_labmem_edge(ws, bwv, nw, l2bw, l1, 16384);
	e2 = gd_labmem_edge(ws, bwv, nw, dram, l2bw, 1 << 20);
	if (isfinite(l1) && isfinite(l2bw) && isfinite(dram)) {
		gd_lab_verdict(r, "§4",
			       "reads that stay in L1 ran at %.0f GB/s, in L2 at %.0f GB/s, from "
			       "VRAM at %.0f GB/s: "
			       "VRAM is %.1f× slower than L2 and %.1f× slower than L1 — what is "
			       "reused should be "
			       "kept close (fusion, tiling, shared memory).",
			       l1, l2bw, dram, l2bw / dram, l1 / dram);
	}
	if (e2 > 0) {
		gd_lab_verdict(r, "§4",
			       "the curve leaves L2 between %s and %s; the device reports an L2 of %s.",
			       gd_fmt_bytes(b1, sizeof(b1), ws[e2 - 1]), gd_fmt_bytes(b2, sizeof(b2), ws[e2]),
			       l2 > 0 ? gd_fmt_bytes(b3, sizeof(b3), (double)l2) : "unknown size");
	} else {
		gd_lab_note(r, "no clear L2 edge in the curve (largest set %s)",
			    gd_fmt_bytes(b1, sizeof(b1), ws[nw - 1]));
	}
	if (e1 > 0)
		gd_lab_note(r,
			    "the L1 plateau ends between %s and %s (per SM; L1 and shared memory share %s)",
			    gd_fmt_bytes(b1, sizeof(b1), ws[e1 - 1]), gd_fmt_bytes(b2, sizeof(b2), ws[e1]),
			    r->dev.arch ? gd_fmt_bytes(b3, sizeof(b3), r->dev.arch->l1_smem_total_kb * 1024.0)
					: "an unknown size");
	if (lat[0] >= 0 && lat[1] >= 0 && lat[2] >= 0 && r->res[lat[0]].nmetrics >= 2 &&
	    r->res[lat[1]].nmetrics >= 2 && r->res[lat[2]].nmetrics >= 2)
		gd_lab_verdict(r, "§4",
			       "one dependent load costs %.0f cycles (%.0f ns) from L1, %.0f cycles "
			       "(%.0f ns) from L2 "
			       "and %.0f cycles (%.0f ns) from VRAM: latency is hidden only by many "
			       "warps in flight.",
			       r->res[lat[0]].metric_values[0], r->res[lat[0]].metric_values[1],
			       r->res[lat[1]].metric_values[0], r->res[lat[1]].metric_values[1],
			       r->res[lat[2]].metric_values[0], r->res[lat[2]].metric_values[1]);
}

static void mem_chart(struct gd_lab_run *r, const struct mem_run *s)
{
	const int threads = s->threads, blocks = s->blocks;
	{
		struct gd_lab_chart ch = {"Read bandwidth vs working set (the memory staircase)",
					  "working set (bytes)",
					  "GB/s (loads issued × 16 B / median time)",
					  1,
					  1,
					  GD_LAB_Y_GBPS,
					  NULL,
					  {"bandwidth vs working set"},
					  1,
					  1};
		gd_lab_set_chart(r, &ch);
	}
	gd_lab_note(
	    r, "bandwidth: %d blocks × %d threads, 16-byte loads, ≥ 256 per thread per launch; GB = 1e9 B",
	    blocks, threads);
}

static int run(struct gd_lab_run *r)
{
	struct mem_run s;
	int rc;
	memset(&s, 0, sizeof(s));
	if ((rc = mem_prepare(r, &s)) != GD_OK || (rc = mem_bandwidth(r, &s)) != GD_OK ||
	    (rc = mem_latency(r, &s)) != GD_OK)
		return rc;
	mem_staircase(r, &s);
	mem_chart(r, &s);
	return GD_OK;
}

const struct gd_lab gd_lab_memory = {
    "memory",
    "§4",
    "the memory staircase: bandwidth vs working set (L1/L2/VRAM), latency per level",
    "Reads working sets from 16 KB to several GB (--size sets the largest; --quick: 512 MiB)\n"
    "and plots GB/s against size: the plateaus are L1, L2 and VRAM, and where the L2 plateau\n"
    "ends is compared with the L2 size the device reports. Then one thread follows a random\n"
    "pointer chain inside L1, L2 and VRAM-sized sets: cycles and ns per dependent load.\n"
    "Percentages are of the DRAM read ceiling, so L1 and L2 show above 100 %.\n",
    run,
    NULL, /* no --shape */
    /* --size: the top is a sanity bound; the run cuts the set to half the free memory */
    1LL << 20, 1024LL << 30, 0,
    " (bytes: the largest working set)",
};
