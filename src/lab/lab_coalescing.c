/* gpudiag lab coalescing — the guide's §7 measured: a coalesced copy, the stride sweep
 * (thread i reading element i·stride: the guide's 128-byte example is stride 32), random
 * gathers as in an embedding lookup, array-of-structs vs struct-of-arrays, a matrix transpose
 * naive / shared-tiled / tiled with padding, and the permute()-vs-contiguous() case.
 *
 * Bytes counted are the *useful* bytes each variant's program asks for (read + written once);
 * the "sector" figures add what the hardware has to move at 32-byte sector granularity,
 * assuming aligned data: a 4-byte element read with stride s costs min(s, 8) × 4 bytes. */
#include "lab/lab_coalescing.h"

#include "core/status.h"
#include "kernels/lab_coalescing.h"
#include "kernels/lab_hash.h"
#include "lab/lab_key.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SEED_A 0x636f3161u
#define SEED_B 0x636f3162u
#define DT 0.01f

/* ---------------------------------------------------------------- CPU references */

double gd_labco_sector_factor(unsigned stride, unsigned elem_bytes)
{
	/* aligned elements of elem_bytes read every `stride` elements: bytes moved in 32-byte
	 * sectors per useful byte */
	double span = (double)stride * elem_bytes;
	if (span >= 32)
		return 32.0 / elem_bytes;
	return (double)stride;
}

void gd_labco_stride_ref(size_t n, unsigned stride, size_t base, size_t mask, int blocks, uint32_t seed,
			 uint32_t *partials)
{
	size_t T = (size_t)blocks * 256;
	memset(partials, 0, sizeof(uint32_t) * (size_t)blocks);
	for (size_t i = 0; i < n; i++)
		partials[(i % T) / 256] += gd_hash32((base + i * stride) & mask, seed);
}

double gd_labco_transpose_ref(size_t m, size_t i, uint32_t seed)
{
	size_t r = i / m, c = i % m; /* out[r][c] = in[c][r] */
	return gd_hashf(c * m + r, seed);
}

size_t gd_labco_permute_src(size_t o, size_t b, size_t s, size_t d)
{
	size_t j = o % s, k = (o / s) % d, bi = o / (s * d);
	(void)b;
	return (bi * s + j) * d + k;
}

double gd_labco_aos_ref(size_t i, uint32_t seed)
{
	float x = gd_hashf(8 * i, seed), vx = gd_hashf(8 * i + 3, seed);
	return (double)x + (double)vx * (double)DT;
}

/* ---------------------------------------------------------------- variants */

struct co {
	/* shared by every variant of one lab run */
	void *in, *out, *partials, *idx;
	size_t n; /* elements in the current variant's output */
	int blocks;
	/* per variant */
	int kind;
	unsigned stride, d;
	size_t nin, mask, nb, m, pb, ps, pd;
	const uint32_t *host_idx;
	int permuted;
};

static int co_copy(void *arg, long iter, char *why, size_t n)
{
	struct co *c = arg;
	return gd_lab_cuda(gd_labk_co_copy(c->in, c->out, c->n / 4, c->blocks), why, n);
}

static double ref_copy(const void *ctx, size_t i)
{
	return gd_hashf(i, SEED_A);
}

static int chk_copy(void *arg, const void *out, size_t bytes, struct gd_lab_check *ck)
{
	struct co *c = arg;
	gd_lab_cmp_fn(out, c->n, GD_DT_F32, ref_copy, c, 0, 0, ck);
	return GD_OK;
}

static int co_stride(void *arg, long iter, char *why, size_t n)
{
	struct co *c = arg;
	/* each launch reads its own region, so even stride 1 comes from VRAM, not from L2 */
	size_t base = ((size_t)iter * c->n * c->stride) & c->mask;
	return gd_lab_cuda(
	    gd_labk_co_stride_sum(c->in, c->n, c->stride, base, c->mask, c->blocks, c->partials), why, n);
}

static int chk_stride(void *arg, const void *out, size_t bytes, struct gd_lab_check *ck)
{
	struct co *c = arg;
	uint32_t *ref = malloc(sizeof(uint32_t) * (size_t)c->blocks);
	if (!ref)
		return gd_error(GD_EFAIL, "lab coalescing: out of host memory");
	gd_labco_stride_ref(c->n, c->stride, 0, c->mask, c->blocks, SEED_B, ref);
	gd_lab_cmp_u32(out, ref, (size_t)c->blocks, ck);
	snprintf(ck->note, sizeof(ck->note), "%d block sums (u32) vs CPU", c->blocks);
	free(ref);
	return GD_OK;
}

static int co_gather(void *arg, long iter, char *why, size_t n)
{
	struct co *c = arg;
	return gd_lab_cuda(gd_labk_co_gather(c->in, c->idx, c->nb, c->d, c->out), why, n);
}

static double ref_gather(const void *ctx, size_t o)
{
	const struct co *c = ctx;
	return gd_hashf((size_t)c->host_idx[o / c->d] * c->d + o % c->d, SEED_A);
}

static int chk_gather(void *arg, const void *out, size_t bytes, struct gd_lab_check *ck)
{
	struct co *c = arg;
	gd_lab_cmp_fn(out, c->nb * c->d, GD_DT_F32, ref_gather, c, 0, 0, ck);
	return GD_OK;
}

static int co_aos(void *arg, long iter, char *why, size_t n)
{
	struct co *c = arg;
	const float *in = c->in;
	if (c->kind == 0)
		return gd_lab_cuda(gd_labk_co_aos(in, c->n, DT, c->out), why, n);
	return gd_lab_cuda(gd_labk_co_soa(in + 8 * c->n, in + 9 * c->n, c->n, DT, c->out), why, n);
}

static double ref_aos(const void *ctx, size_t i)
{
	return gd_labco_aos_ref(i, SEED_A);
}

static int chk_aos(void *arg, const void *out, size_t bytes, struct gd_lab_check *ck)
{
	struct co *c = arg;
	/* x + vx·dt in FP32 (the GPU may fuse it into one FMA): within 2 roundings of FP32 */
	gd_lab_cmp_fn(out, c->n, GD_DT_F32, ref_aos, c, 1e-7, ldexp(1, -22), ck);
	return GD_OK;
}

static int co_transpose(void *arg, long iter, char *why, size_t n)
{
	struct co *c = arg;
	return gd_lab_cuda(gd_labk_co_transpose(c->in, c->out, (int)c->m, c->kind), why, n);
}

static double ref_transpose(const void *ctx, size_t i)
{
	const struct co *c = ctx;
	return gd_labco_transpose_ref(c->m, i, SEED_A);
}

static int chk_transpose(void *arg, const void *out, size_t bytes, struct gd_lab_check *ck)
{
	struct co *c = arg;
	gd_lab_cmp_fn(out, c->m * c->m, GD_DT_F32, ref_transpose, c, 0, 0, ck);
	return GD_OK;
}

static int co_scale(void *arg, long iter, char *why, size_t n)
{
	struct co *c = arg;
	return gd_lab_cuda(gd_labk_co_scale2(c->in, c->out, (int)c->pb, (int)c->ps, (int)c->pd, c->permuted),
			   why, n);
}

static double ref_scale(const void *ctx, size_t o)
{
	const struct co *c = ctx;
	return 2.0 * gd_hashf(c->permuted ? gd_labco_permute_src(o, c->pb, c->ps, c->pd) : o, SEED_A);
}

static int chk_scale(void *arg, const void *out, size_t bytes, struct gd_lab_check *ck)
{
	struct co *c = arg;
	gd_lab_cmp_fn(out, c->pb * c->ps * c->pd, GD_DT_F32, ref_scale, c, 0, 0, ck);
	return GD_OK;
}

/* ---------------------------------------------------------------- the lab */

static struct gd_lab_result *last(struct gd_lab_run *r)
{
	return &r->res[r->nres - 1];
}

/* The rows the verdicts read, by stable key (never by their labels). */
enum {
	K_COPY = 1,
	K_STRIDE1,
	K_STRIDE32,
	K_GATHER_ROWS,
	K_GATHER_VALUES,
	K_AOS,
	K_SOA,
	K_T_NAIVE,
	K_T_TILE,
	K_T_PADDED,
	K_PERMUTED,
	K_CONTIGUOUS,
};

static double gbps_of(const struct gd_lab_run *r, int key)
{
	const struct gd_lab_result *x = gd_lab_find_key(r, key);
	return x ? x->gbps : NAN;
}

static int fill_f32(void *p, size_t n, size_t stride, size_t offset, uint32_t seed)
{
	if (gd_labk_co_fill_f32(p, n, stride, offset, seed))
		return gd_error(GD_EFAIL, "lab coalescing: filling the input failed");
	return GD_OK;
}

struct co_run {
	struct co c;
	size_t copy_bytes, nin; /* the copy's bytes; u32 elements of the stride buffer */
	size_t in_bytes, out_bytes;
	uint64_t rng;
	double copy_gbps; /* the coalesced copy's, which later rows are held against */
};

/* Buffer sizes that fit free memory, and the device buffers. */
static int co_prepare(struct gd_lab_run *r, struct co_run *s)
{
	struct co *c = &s->c;
	int rc, sms = r->dev.sms > 0 ? r->dev.sms : 80;
	size_t freeb = gd_lab_mem_free();
	s->copy_bytes = r->size > 0 ? (size_t)r->size : (r->quick ? (size_t)256 << 20 : (size_t)1 << 30);
	s->nin = r->quick ? (size_t)1 << 28 : (size_t)1 << 30;
	s->rng = 0x636f616c6573ull;
	if (r->size > 0 && r->size < (16 << 20))
		return gd_error(GD_EUSAGE,
				"lab coalescing: --size (the copy's bytes) must be at least 16 MiB");
	while (freeb && (s->nin * 4 + 2 * s->copy_bytes) > freeb * 3 / 4 && s->nin > ((size_t)1 << 24))
		s->nin >>= 1;
	while (freeb && s->copy_bytes * 3 > freeb && s->copy_bytes > ((size_t)64 << 20))
		s->copy_bytes >>= 1;
	s->copy_bytes &= ~(size_t)15;
	s->in_bytes = s->nin * 4 > s->copy_bytes ? s->nin * 4 : s->copy_bytes;
	s->out_bytes = s->copy_bytes;
	memset(c, 0, sizeof(*c));
	c->blocks = sms * 8;
	if ((rc = gd_lab_alloc(r, &c->in, s->in_bytes, "the inputs")) != GD_OK ||
	    (rc = gd_lab_alloc(r, &c->out, s->out_bytes, "the outputs")) != GD_OK ||
	    (rc = gd_lab_alloc(r, &c->partials, sizeof(uint32_t) * (size_t)c->blocks, "block sums")) != GD_OK)
		return rc;
	return GD_OK;
}

/* 1. the coalesced copy: the reference every other figure is held against */
static int co_copy_step(struct gd_lab_run *r, struct co_run *s)
{
	struct co *c = &s->c;
	struct gd_lab_variant v;
	int rc;
	if ((rc = fill_f32(c->in, s->copy_bytes / 4, 1, 0, SEED_A)) != GD_OK)
		return rc;
	c->n = s->copy_bytes / 4;
	memset(&v, 0, sizeof(v));
	v.group = "coalesced copy";
	v.name = "float4 copy (16 B per thread)";
	v.x = NAN;
	v.bytes = 2.0 * (double)s->copy_bytes;
	v.formula = "N·4 read + N·4 written";
	v.roof = GD_ROOF_DRAM_COPY;
	v.launch = co_copy;
	v.arg = c;
	v.out = c->out;
	v.out_bytes = s->copy_bytes;
	v.check = chk_copy;
	if ((rc = gd_lab_measure_key(r, &v, K_COPY)) != GD_OK)
		return rc;
	s->copy_gbps = last(r)->gbps;
	return GD_OK;
}

/* 2. the stride sweep (read-only, u32): same useful elements for every stride */
static int co_stride_sweep(struct gd_lab_run *r, struct co_run *s)
{
	struct co *c = &s->c;
	struct gd_lab_variant v;
	char name[96];
	int rc;
	if (gd_labk_co_fill_u32(c->in, s->nin, SEED_B))
		return gd_error(GD_EFAIL, "lab coalescing: filling the input failed");
	c->n = s->nin / 64;
	c->mask = s->nin - 1;
	for (unsigned st = 1; st <= 64; st *= 2) {
		double f = gd_labco_sector_factor(st, 4);
		c->stride = st;
		memset(&v, 0, sizeof(v));
		snprintf(name, sizeof(name), "stride %u (%u B apart)", st, 4 * st);
		v.group = "stride sweep";
		v.name = name;
		v.x = st;
		v.bytes = 4.0 * (double)c->n;
		v.formula = "useful bytes: N·4 read (N fixed); sectors moved: N·4·min(stride, 8)";
		v.roof = GD_ROOF_DRAM_READ;
		v.launch = co_stride;
		v.arg = c;
		v.out = c->partials;
		v.out_bytes = sizeof(uint32_t) * (size_t)c->blocks;
		v.check = chk_stride;
		v.metrics[0] = (struct gd_lab_metric){"sector_bytes_per_useful_byte", f, "×"};
		v.nmetrics = 1;
		if ((rc = gd_lab_measure_key(r, &v,
					     st == 1	? K_STRIDE1
					     : st == 32 ? K_STRIDE32
							: 0)) != GD_OK)
			return rc;
		gd_lab_result_metric(last(r), "sector_gb_per_s", last(r)->gbps * f, "GB/s");
	}
	return GD_OK;
}

/* 3. gathers (embedding lookup): table of 256-byte rows */
static int co_gathers(struct gd_lab_run *r, struct co_run *s)
{
	struct co *c = &s->c;
	struct gd_lab_variant v;
	int rc;
	size_t table_bytes = s->copy_bytes, rows64 = table_bytes / 256,
	       nb = r->quick ? (size_t)1 << 18 : (size_t)1 << 20;
	size_t nb1, maxidx;
	uint32_t *h;
	const char *names[3] = {"256-byte rows, random ids", "256-byte rows, consecutive ids",
				"4-byte values, random ids"};
	const int keys[3] = {K_GATHER_ROWS, 0, K_GATHER_VALUES};
	/* outputs must fit the output buffer: rows of 256 B, and 4-byte values */
	if (nb * 256 > s->out_bytes)
		nb = s->out_bytes / 256;
	nb1 = nb * 16;
	if (nb1 * 4 > s->out_bytes)
		nb1 = s->out_bytes / 4;
	maxidx = nb1 > nb ? nb1 : nb;
	h = malloc(sizeof(uint32_t) * maxidx);
	if (!h)
		return gd_error(GD_EFAIL, "lab coalescing: out of host memory");
	if ((rc = fill_f32(c->in, table_bytes / 4, 1, 0, SEED_A)) != GD_OK ||
	    (rc = gd_lab_alloc(r, &c->idx, sizeof(uint32_t) * maxidx, "lookup ids")) != GD_OK) {
		free(h);
		return rc;
	}
	for (int k = 0; k < 3; k++) {
		size_t cnt = k == 2 ? nb1 : nb, nrows = k == 2 ? table_bytes / 4 : rows64;
		for (size_t i = 0; i < cnt; i++)
			h[i] = k == 1 ? (uint32_t)(i % nrows) : (uint32_t)(gd_lab_rand_u64(&s->rng) % nrows);
		if ((rc = gd_lab_upload(c->idx, h, sizeof(uint32_t) * cnt)) != GD_OK) {
			free(h);
			return rc;
		}
		c->nb = cnt;
		c->d = k == 2 ? 1 : 64;
		c->host_idx = h;
		memset(&v, 0, sizeof(v));
		v.group = "gather (embedding lookup)";
		v.name = names[k];
		v.x = NAN;
		v.bytes = (double)cnt * c->d * 8 + (double)cnt * 4;
		v.formula = "ids·4 + rows·row bytes read + rows·row bytes written";
		v.roof = GD_ROOF_DRAM_COPY;
		v.launch = co_gather;
		v.arg = c;
		v.out = c->out;
		v.out_bytes = cnt * c->d * 4;
		v.check = chk_gather;
		v.metrics[0] =
		    (struct gd_lab_metric){"sector_bytes_per_useful_byte", k == 2 ? 8.0 : 1.0, "×"};
		v.nmetrics = 1;
		if ((rc = gd_lab_measure_key(r, &v, keys[k])) != GD_OK) {
			free(h);
			return rc;
		}
		gd_lab_result_metric(last(r), "fraction_of_copy", last(r)->gbps / s->copy_gbps, "");
	}
	free(h);
	return GD_OK;
}

/* 4. AoS vs SoA: x += vx·dt over particles of 8 floats */
static int co_aos_soa(struct gd_lab_run *r, struct co_run *s)
{
	struct co *c = &s->c;
	struct gd_lab_variant v;
	int rc;
	size_t np = r->quick ? (size_t)1 << 22 : (size_t)1 << 24;
	while (np * 40 > s->in_bytes || np * 4 > s->out_bytes)
		np >>= 1;
	if ((rc = fill_f32(c->in, 8 * np, 1, 0, SEED_A)) != GD_OK ||
	    (rc = fill_f32((float *)c->in + 8 * np, np, 8, 0, SEED_A)) != GD_OK ||
	    (rc = fill_f32((float *)c->in + 9 * np, np, 8, 3, SEED_A)) != GD_OK)
		return rc;
	c->n = np;
	for (int k = 0; k < 2; k++) {
		c->kind = k;
		memset(&v, 0, sizeof(v));
		v.group = "AoS vs SoA (x + vx·dt)";
		v.name = k ? "struct of arrays (x[], vx[])" : "array of 32-byte structs";
		v.x = NAN;
		v.bytes = 12.0 * (double)np;
		v.formula = "useful: x and vx read (8 B) + result written (4 B) per particle";
		v.roof = GD_ROOF_DRAM_COPY;
		v.launch = co_aos;
		v.arg = c;
		v.out = c->out;
		v.out_bytes = np * 4;
		v.check = chk_aos;
		v.metrics[0] =
		    (struct gd_lab_metric){"sector_bytes_per_useful_byte", k ? 1.0 : 36.0 / 12.0, "×"};
		v.nmetrics = 1;
		if ((rc = gd_lab_measure_key(r, &v, k ? K_SOA : K_AOS)) != GD_OK)
			return rc;
	}
	return GD_OK;
}

/* 5. transpose */
static int co_transposes(struct gd_lab_run *r, struct co_run *s)
{
	struct co *c = &s->c;
	struct gd_lab_variant v;
	char name[96];
	int rc;
	size_t m = r->quick ? 4096 : 8192;
	const char *names[3] = {"naive (coalesced read, strided write)", "shared-memory tile 32×32",
				"shared-memory tile 32×33 (padded)"};
	const int keys[3] = {K_T_NAIVE, K_T_TILE, K_T_PADDED};
	while (m * m * 4 > s->out_bytes || m * m * 4 > s->in_bytes)
		m /= 2;
	if ((rc = fill_f32(c->in, m * m, 1, 0, SEED_A)) != GD_OK)
		return rc;
	c->m = m;
	for (int k = 0; k < 3; k++) {
		c->kind = k;
		memset(&v, 0, sizeof(v));
		snprintf(name, sizeof(name), "%s", names[k]);
		v.group = "transpose";
		v.name = name;
		v.x = NAN;
		v.bytes = 8.0 * (double)(m * m);
		v.formula = "m²·4 read + m²·4 written";
		v.roof = GD_ROOF_DRAM_COPY;
		v.launch = co_transpose;
		v.arg = c;
		v.out = c->out;
		v.out_bytes = m * m * 4;
		v.check = chk_transpose;
		if ((rc = gd_lab_measure_key(r, &v, keys[k])) != GD_OK)
			return rc;
		gd_lab_result_metric(last(r), "fraction_of_copy", last(r)->gbps / s->copy_gbps, "");
	}
	return GD_OK;
}

/* 6. permute(0,2,1) vs contiguous */
static int co_permute(struct gd_lab_run *r, struct co_run *s)
{
	struct co *c = &s->c;
	struct gd_lab_variant v;
	int rc;
	size_t pb = r->quick ? 4 : 16, ps = 4096, pd = 1024;
	while (pb > 1 && pb * ps * pd * 4 > s->out_bytes)
		pb /= 2;
	if ((rc = fill_f32(c->in, pb * ps * pd, 1, 0, SEED_A)) != GD_OK)
		return rc;
	c->pb = pb;
	c->ps = ps;
	c->pd = pd;
	for (int k = 0; k < 2; k++) {
		c->permuted = !k;
		memset(&v, 0, sizeof(v));
		v.group = "permute() vs contiguous()";
		v.name = k ? "2·x on a contiguous tensor" : "2·x on x.permute(0,2,1) (read stride 4 KB)";
		v.x = NAN;
		v.bytes = 8.0 * (double)(pb * ps * pd);
		v.formula = "B·S·D·4 read + B·S·D·4 written";
		v.roof = GD_ROOF_DRAM_COPY;
		v.launch = co_scale;
		v.arg = c;
		v.out = c->out;
		v.out_bytes = pb * ps * pd * 4;
		v.check = chk_scale;
		if ((rc = gd_lab_measure_key(r, &v, k ? K_CONTIGUOUS : K_PERMUTED)) != GD_OK)
			return rc;
		gd_lab_result_metric(last(r), "fraction_of_copy", last(r)->gbps / s->copy_gbps, "");
	}
	return GD_OK;
}

static void co_verdicts(struct gd_lab_run *r, const struct co_run *s)
{
	double copy_gbps = s->copy_gbps;
	double s1 = gbps_of(r, K_STRIDE1);
	double s32 = gbps_of(r, K_STRIDE32);
	double g_r = gbps_of(r, K_GATHER_ROWS);
	double g_1 = gbps_of(r, K_GATHER_VALUES);
	double aos = gbps_of(r, K_AOS);
	double soa = gbps_of(r, K_SOA);
	double tn = gbps_of(r, K_T_NAIVE);
	double tt = gbps_of(r, K_T_TILE);
	double tp = gbps_of(r, K_T_PADDED);
	double pp = gbps_of(r, K_PERMUTED);
	double pc = gbps_of(r, K_CONTIGUOUS);
	const struct gd_lab_result *cp = gd_lab_find_key(r, K_COPY);
	if (isfinite(s1) && isfinite(s32))
		gd_lab_verdict(r, "§7",
			       "consecutive threads reading consecutive floats delivered %.0f GB/s "
			       "of useful data; "
			       "128 bytes apart (the guide's strided example) only %.0f GB/s — %.1f× "
			       "slower, because "
			       "every 4-byte value then costs its own 32-byte sector.",
			       s1, s32, s1 / s32);
	if (cp && isfinite(cp->gbps))
		gd_lab_verdict(r, "§7", "the coalesced copy moved %.0f GB/s, %.0f %% of the %s %s ceiling.",
			       cp->gbps, cp->pct_of_ceiling * 100, cp->ceiling.source, cp->ceiling.name);
	if (isfinite(g_r) && isfinite(g_1))
		gd_lab_verdict(r, "§7",
			       "an embedding lookup of whole 256-byte rows ran at %.0f %% of the copy, "
			       "scattered 4-byte "
			       "lookups at %.0f %%: random rows are fine when each row is read coalesced.",
			       100 * g_r / copy_gbps, 100 * g_1 / copy_gbps);
	if (isfinite(aos) && isfinite(soa))
		gd_lab_verdict(
		    r, "§7",
		    "reading 2 fields of a 32-byte struct (AoS) took %.1f× as long as reading them "
		    "from "
		    "separate arrays (SoA): the rest of each struct's sector is moved for nothing.",
		    soa / aos);
	if (isfinite(tn) && isfinite(tt) && isfinite(tp))
		gd_lab_verdict(r, "§7",
			       "transpose: naive %.0f %%, shared tile %.0f %%, padded tile %.0f %% "
			       "of the copy — the "
			       "tile makes both sides coalesced, the padding column removes its "
			       "32-way bank conflict.",
			       100 * tn / copy_gbps, 100 * tt / copy_gbps, 100 * tp / copy_gbps);
	if (isfinite(pp) && isfinite(pc))
		gd_lab_verdict(r, "§7",
			       "an op on x.permute(0,2,1) read strided and took %.1f× as long as on "
			       "a contiguous tensor; "
			       ".contiguous() costs one transpose, worth it when the tensor is used "
			       "more than once.",
			       pc / pp);
}

static void co_chart(struct gd_lab_run *r, const struct co_run *s)
{
	struct gd_lab_chart ch = {"Useful bandwidth vs stride (4-byte elements)",
				  "stride (elements)",
				  "GB/s of useful data (median)",
				  1,
				  1,
				  GD_LAB_Y_GBPS,
				  NULL,
				  {"stride sweep"},
				  1,
				  1};
	gd_lab_set_chart(r, &ch);
	gd_lab_note(r,
		    "stride sweep: %zu useful elements per launch out of a %zu MiB buffer; each launch reads "
		    "its own region so consecutive launches do not find data in L2",
		    s->nin / 64, s->nin * 4 >> 20);
}

static int run(struct gd_lab_run *r)
{
	struct co_run s;
	int rc;
	memset(&s, 0, sizeof(s));
	if ((rc = co_prepare(r, &s)) != GD_OK || (rc = co_copy_step(r, &s)) != GD_OK ||
	    (rc = co_stride_sweep(r, &s)) != GD_OK || (rc = co_gathers(r, &s)) != GD_OK ||
	    (rc = co_aos_soa(r, &s)) != GD_OK || (rc = co_transposes(r, &s)) != GD_OK ||
	    (rc = co_permute(r, &s)) != GD_OK)
		return rc;
	co_verdicts(r, &s);
	co_chart(r, &s);
	return GD_OK;
}

const struct gd_lab gd_lab_coalescing = {
    "coalescing",
    "§7",
    "coalesced vs strided: stride sweep, gathers, AoS/SoA, transpose, permute()",
    "A coalesced float4 copy first (the reference, --size sets its bytes; --quick: 256 MiB),\n"
    "then: a stride sweep 1…64 of 4-byte reads with the useful GB/s and the 32-byte sectors\n"
    "moved per useful byte; an embedding-style gather (random 256-byte rows, consecutive rows,\n"
    "random 4-byte values); AoS vs SoA; a transpose naive / shared tile / padded tile; and an\n"
    "elementwise op on x.permute(0,2,1) vs a contiguous tensor.\n",
    run,
    NULL, /* no --shape */
    /* --size: the top is a sanity bound; the run cuts the copy to fit the free memory */
    16LL << 20, 1024LL << 30, 0,
    " (bytes: the copy)",
};
