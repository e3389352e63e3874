/* gpudiag lab precision — the guide's "Mixed Precision" (§4) and tensor cores (§3) measured:
 *
 * 1. one memory-bound op, y = 1.5·x, in FP32, FP16, BF16 and FP8-e4m3: the bytes halve with
 *    each step, and a memory-bound op's time should follow them;
 * 2. a GEMM through cuBLASLt (gd_gemm_run) in FP32, TF32, BF16 and FP8: the tensor-core jump,
 *    with the accuracy of each against an FP64 reference beside its speed.
 *
 * Accuracy of the GEMM: every output element is checked for being written and finite; 1024
 * sampled elements are compared with an FP64 dot product of the same (already rounded) inputs.
 * The error is normalised by Σ_k |a_ik·b_kj| (the scale rounding errors grow with), so it
 * reads as "relative to the size of the products", independent of cancellation. */
#include "lab/lab_precision.h"

#include "core/status.h"
#include "gpu/blaslt.h"
#include "kernels/lab_precision.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define ALPHA 1.5f

/* ---------------------------------------------------------------- CPU references */

double gd_labprec_scale_ref(const void *in, size_t i, enum gd_lab_dtype t, float a)
{
	float x = (float)gd_lab_get(in, i, t), y = a * x; /* one FP32 multiply, as on the GPU */
	switch (t) {
	case GD_DT_F16:
		return gd_f16_to_f32(gd_f32_to_f16(y));
	case GD_DT_BF16:
		return gd_bf16_to_f32(gd_f32_to_bf16(y));
	case GD_DT_FP8E4M3:
		return gd_e4m3_to_f32(gd_f32_to_e4m3(y));
	default:
		return y;
	}
}

double gd_labprec_gemm_ref(const void *a, const void *b, enum gd_lab_dtype t, int k, int i, int j, int ldb_nk,
			   int n, double *scale)
{
	double s = 0, sa = 0;
	for (int p = 0; p < k; p++) {
		double x = gd_lab_get(a, (size_t)i * k + p, t);
		double y = gd_lab_get(b, ldb_nk ? (size_t)j * k + p : (size_t)p * n + j, t);
		s += x * y;
		sa += fabs(x * y);
	}
	if (scale)
		*scale = sa;
	return s;
}

/* ---------------------------------------------------------------- 1. memory-bound op */

struct sc {
	int ktype;
	enum gd_lab_dtype t;
	void *in, *out;
	size_t set_bytes; /* bytes of one input copy (= one output copy) */
	int rot, blocks;
	const void *host_in;
	size_t n;
};

static int sc_launch(void *arg, long iter, char *why, size_t n)
{
	struct sc *s = arg;
	size_t off = (size_t)(iter % s->rot) * s->set_bytes;
	return gd_lab_cuda(gd_labk_prec_scale(s->ktype, (char *)s->in + off, (char *)s->out + off,
					      s->set_bytes / 16, ALPHA, s->blocks),
			   why, n);
}

static double sc_ref(const void *ctx, size_t i)
{
	const struct sc *s = ctx;
	return gd_labprec_scale_ref(s->host_in, i, s->t, ALPHA);
}

static int sc_check(void *arg, const void *out, size_t bytes, struct gd_lab_check *c)
{
	struct sc *s = arg;
	double atol, rtol;
	gd_lab_tolerance(s->t, &atol, &rtol);
	gd_lab_cmp_fn(out, s->n, s->t, sc_ref, s, atol, rtol, c);
	return GD_OK;
}

/* ---------------------------------------------------------------- 2. GEMM */

struct gm {
	struct gd_gemm g;
	enum gd_lab_dtype in_t, out_t;
	const void *ha, *hb;
	int m, n, k;
	double tol;
	double max_err, rms_err;
};

static int gm_launch(void *arg, long iter, char *why, size_t n)
{
	struct gm *g = arg;
	return gd_gemm_run(&g->g, why, n);
}

static int gm_check(void *arg, const void *out, size_t bytes, struct gd_lab_check *c)
{
	struct gm *g = arg;
	size_t total = (size_t)g->m * g->n, osz = gd_lab_dtype_size(g->out_t);
	uint64_t rng = 0x67656d6dull;
	double se = 0, sr = 0;
	c->done = 1;
	c->first_bad = -1;
	c->rtol = g->tol;
	/* every element: written and finite */
	for (size_t i = 0; i < total; i++) {
		const unsigned char *p = (const unsigned char *)out + i * osz;
		int poison = 1;
		for (size_t q = 0; q < osz; q++)
			poison &= p[q] == GD_LAB_POISON;
		if (poison || !isfinite(gd_lab_get(out, i, g->out_t))) {
			c->bad++;
			c->unwritten += poison;
			if (c->first_bad < 0)
				c->first_bad = (long long)i;
		}
	}
	c->checked = (long long)total;
	/* 1024 sampled elements against FP64 */
	for (int s = 0; s < 1024; s++) {
		int i = (int)(gd_lab_rand_u64(&rng) % (uint64_t)g->m),
		    j = (int)(gd_lab_rand_u64(&rng) % (uint64_t)g->n);
		double scale, ref = gd_labprec_gemm_ref(g->ha, g->hb, g->in_t, g->k, i, j, 1, g->n, &scale);
		double got = gd_lab_get(out, (size_t)i * g->n + j, g->out_t),
		       err = fabs(got - ref) / (scale > 0 ? scale : 1);
		if (!(err <= g->tol)) {
			c->bad++;
			if (c->first_bad < 0)
				c->first_bad = (long long)i * g->n + j;
		}
		if (err > c->max_rel_err || isnan(err))
			c->max_rel_err = err;
		if (fabs(got - ref) > c->max_abs_err)
			c->max_abs_err = fabs(got - ref);
		se += (got - ref) * (got - ref);
		sr += ref * ref;
	}
	g->max_err = c->max_rel_err;
	g->rms_err = sr > 0 ? sqrt(se / sr) : NAN;
	c->ok = c->bad == 0;
	snprintf(c->note, sizeof(c->note),
		 "all %zu written and finite; 1024 sampled vs FP64 (error / Σ|a·b|)", total);
	return GD_OK;
}

/* ---------------------------------------------------------------- the lab */

/* ---- 1. the memory-bound op, one type after the other */

static const struct {
	int ktype;
	enum gd_lab_dtype t;
	const char *name;
} scale_types[4] = {
    {GD_LABK_F32, GD_DT_F32, "FP32"},
    {GD_LABK_F16, GD_DT_F16, "FP16"},
    {GD_LABK_BF16, GD_DT_BF16, "BF16"},
    {GD_LABK_E4M3, GD_DT_FP8E4M3, "FP8 (e4m3)"},
};

/* Elements per type: --size's FP32 bytes (or the default), halved until inputs and outputs
 * of the widest type, twice over, fit in half the free memory. */
static int scale_count(struct gd_lab_run *r, size_t *count)
{
	size_t n = r->quick ? (size_t)1 << 24 : (size_t)1 << 26;
	size_t freeb = gd_lab_mem_free();
	if (r->size > 0 && r->size < (1 << 20))
		return gd_error(GD_EUSAGE, "lab precision: --size (the FP32 bytes) must be at least 1 MiB");
	if (r->size > 0)
		n = (size_t)r->size / 4 & ~(size_t)63;
	while (freeb && n * 4 * 2 * 2 > freeb / 2 && n > 4096)
		n >>= 1;
	*count = n;
	return GD_OK;
}

/* scale_types[k]: n inputs drawn (the next ones from rng), uploaded to every rotating copy,
 * then checked and timed; tt[k] gets its median, tt[0] (FP32's) must be set before. */
static int scale_type(struct gd_lab_run *r, int k, size_t n, void *host, uint64_t *rng, double *tt)
{
	struct sc s;
	struct gd_lab_variant v;
	size_t es = gd_lab_dtype_size(scale_types[k].t);
	char name[64];
	int rc;
	memset(&s, 0, sizeof(s));
	s.ktype = scale_types[k].ktype;
	s.t = scale_types[k].t;
	s.n = n;
	s.set_bytes = n * es;
	s.rot = gd_lab_rotation(r, 2 * s.set_bytes, 16);
	s.blocks = (r->dev.sms > 0 ? r->dev.sms : 80) * 8;
	s.host_in = host;
	gd_lab_rand_fill(host, n, scale_types[k].t, -2.0, 2.0, rng);
	if ((rc = gd_lab_alloc(r, &s.in, s.set_bytes * (size_t)s.rot, "the inputs")) != GD_OK ||
	    (rc = gd_lab_alloc(r, &s.out, s.set_bytes * (size_t)s.rot, "the outputs")) != GD_OK)
		return rc;
	for (int c = 0; c < s.rot && rc == GD_OK; c++)
		rc = gd_lab_upload((char *)s.in + (size_t)c * s.set_bytes, host, s.set_bytes);
	if (rc != GD_OK)
		return rc;
	memset(&v, 0, sizeof(v));
	snprintf(name, sizeof(name), "%s (%zu B per element)", scale_types[k].name, es);
	v.group = "y = 1.5·x (memory-bound)";
	v.name = name;
	v.x = (double)es;
	v.bytes = 2.0 * (double)s.set_bytes;
	v.formula = "N·size read + N·size written";
	v.roof = GD_ROOF_DRAM_COPY;
	v.launch = sc_launch;
	v.arg = &s;
	v.out = s.out;
	v.out_bytes = s.set_bytes;
	v.check = sc_check;
	if ((rc = gd_lab_measure(r, &v)) != GD_OK)
		return rc;
	tt[k] = r->res[r->nres - 1].t_median;
	gd_lab_result_metric(&r->res[r->nres - 1], "time_vs_fp32", tt[k] / tt[0], "×");
	gd_lab_result_metric(&r->res[r->nres - 1], "g_elements_per_s", (double)n / tt[k] / 1e9, "G/s");
	gd_lab_result_metric(&r->res[r->nres - 1], "rotating_copies", s.rot, "");
	return GD_OK;
}

static void scale_verdict(struct gd_lab_run *r, const double *tt)
{
	if (isfinite(tt[0]) && isfinite(tt[1]) && isfinite(tt[3]))
		gd_lab_verdict(
		    r, "§4",
		    "halving the bytes per element cut the time of a memory-bound op to %.2f× (FP16) and "
		    "%.2f× "
		    "(FP8) of FP32's (ideal 0.50× and 0.25×): mixed precision speeds up bandwidth-bound work "
		    "by moving fewer bytes, not by faster arithmetic.",
		    tt[1] / tt[0], tt[3] / tt[0]);
}

static int scale_part(struct gd_lab_run *r)
{
	uint64_t rng = 0x70726563ull;
	double tt[4] = {NAN, NAN, NAN, NAN};
	size_t n = 0;
	int rc;
	void *host;
	if ((rc = scale_count(r, &n)) != GD_OK)
		return rc;
	host = malloc(n * 4);
	if (!host)
		return gd_error(GD_EFAIL, "lab precision: out of host memory");
	for (int k = 0; k < 4; k++)
		if ((rc = scale_type(r, k, n, host, &rng, tt)) != GD_OK)
			break;
	free(host);
	if (rc == GD_OK)
		scale_verdict(r, tt);
	return rc;
}

/* ---- 2. the GEMM, one precision after the other */

static const struct {
	enum gd_prec p;
	enum gd_lab_dtype in_t, out_t;
	enum gd_lab_roof roof;
	double tol;
	const char *name;
} gemm_types[4] = {
    {GD_P_FP32, GD_DT_F32, GD_DT_F32, GD_ROOF_FLOPS_CUDA, 1e-5, "FP32 (CUDA cores)"},
    {GD_P_TF32, GD_DT_F32, GD_DT_F32, GD_ROOF_FLOPS_TENSOR, 4e-3, "TF32 (tensor cores, FP32 data)"},
    {GD_P_BF16, GD_DT_BF16, GD_DT_BF16, GD_ROOF_FLOPS_TENSOR, 1.6e-2, "BF16 (tensor cores)"},
    {GD_P_FP8, GD_DT_FP8E4M3, GD_DT_BF16, GD_ROOF_FLOPS_TENSOR, 1.6e-2, "FP8 e4m3 → BF16 (tensor cores)"},
};

struct gemm_run {
	int m;
	void *da, *db, *dc, *ws;
	size_t ws_bytes;
	float *fa, *fb; /* the FP32 inputs, drawn once */
	void *ha, *hb;	/* the same, rounded to the type under test */
	double tf[4], err[4];
};

/* Host inputs drawn (A then B, one rng) and the device buffers. */
static int gemm_prepare(struct gd_lab_run *r, struct gemm_run *s)
{
	const int m = s->m;
	uint64_t rng = 0x67656d6d31ull;
	int rc;
	s->fa = malloc(sizeof(float) * (size_t)m * m);
	s->fb = malloc(sizeof(float) * (size_t)m * m);
	s->ha = malloc(sizeof(float) * (size_t)m * m);
	s->hb = malloc(sizeof(float) * (size_t)m * m);
	if (!s->fa || !s->fb || !s->ha || !s->hb)
		return gd_error(GD_EFAIL, "lab precision: out of host memory");
	gd_lab_rand_fill(s->fa, (size_t)m * m, GD_DT_F32, -1, 1, &rng);
	gd_lab_rand_fill(s->fb, (size_t)m * m, GD_DT_F32, -1, 1, &rng);
	if ((rc = gd_lab_alloc(r, &s->da, sizeof(float) * (size_t)m * m, "GEMM A")) != GD_OK ||
	    (rc = gd_lab_alloc(r, &s->db, sizeof(float) * (size_t)m * m, "GEMM B")) != GD_OK ||
	    (rc = gd_lab_alloc(r, &s->dc, sizeof(float) * (size_t)m * m, "GEMM C")) != GD_OK ||
	    (rc = gd_lab_alloc(r, &s->ws, s->ws_bytes, "GEMM workspace")) != GD_OK)
		return rc;
	return GD_OK;
}

/* inputs rounded to the input type once on the host; the reference uses the same bits */
static void gemm_round(struct gemm_run *s, enum gd_lab_dtype in_t)
{
	const int m = s->m;
	const float *fa = s->fa, *fb = s->fb;
	void *ha = s->ha, *hb = s->hb;
	for (size_t i = 0; i < (size_t)m * m; i++) {
		switch (in_t) {
		case GD_DT_BF16:
			((uint16_t *)ha)[i] = gd_f32_to_bf16(fa[i]);
			((uint16_t *)hb)[i] = gd_f32_to_bf16(fb[i]);
			break;
		case GD_DT_FP8E4M3:
			((uint8_t *)ha)[i] = gd_f32_to_e4m3(fa[i]);
			((uint8_t *)hb)[i] = gd_f32_to_e4m3(fb[i]);
			break;
		default:
			((float *)ha)[i] = fa[i];
			((float *)hb)[i] = fb[i];
			break;
		}
	}
}

/* gemm_types[k]: inputs rounded and uploaded, one untimed call, then checked and timed. */
static int gemm_type(struct gd_lab_run *r, struct gemm_run *s, int k)
{
	const int m = s->m;
	struct gm g;
	struct gd_lab_variant v;
	size_t es = gd_lab_dtype_size(gemm_types[k].in_t);
	struct gd_lab_result *res;
	char why[256];
	int rc;
	gemm_round(s, gemm_types[k].in_t);
	if ((rc = gd_lab_upload(s->da, s->ha, es * (size_t)m * m)) != GD_OK ||
	    (rc = gd_lab_upload(s->db, s->hb, es * (size_t)m * m)) != GD_OK)
		return rc;
	memset(&g, 0, sizeof(g));
	g.g = (struct gd_gemm){gemm_types[k].p, m, m, m, s->da, s->db, s->dc, s->ws, s->ws_bytes, NULL};
	g.in_t = gemm_types[k].in_t;
	g.out_t = gemm_types[k].out_t;
	g.ha = s->ha;
	g.hb = s->hb;
	g.m = g.n = g.k = m;
	g.tol = gemm_types[k].tol;
	/* one untimed call: a precision this device or library lacks is a note, not an error */
	{
		int e = gd_gemm_run(&g.g, why, sizeof(why));
		if (e == GD_ENOGPU) {
			gd_lab_note(r, "GEMM %s skipped: %s", gemm_types[k].name, why);
			return GD_OK;
		}
		if (e != GD_OK)
			return gd_error(e, "lab precision: GEMM %s: %s", gemm_types[k].name, why);
	}
	memset(&v, 0, sizeof(v));
	v.group = "GEMM (cuBLASLt)";
	v.name = gemm_types[k].name;
	v.x = (double)es;
	v.flops = 2.0 * m * (double)m * m;
	v.formula = "2·m·n·k";
	v.roof = gemm_types[k].roof;
	v.prec = gemm_types[k].p;
	v.launch = gm_launch;
	v.arg = &g;
	v.out = s->dc;
	v.out_bytes = gd_lab_dtype_size(gemm_types[k].out_t) * (size_t)m * m;
	v.check = gm_check;
	if ((rc = gd_lab_measure(r, &v)) != GD_OK)
		return rc;
	res = &r->res[r->nres - 1];
	s->tf[k] = res->gflops;
	s->err[k] = g.max_err;
	gd_lab_result_metric(res, "max_err_vs_fp64", g.max_err, "");
	gd_lab_result_metric(res, "rms_rel_err_vs_fp64", g.rms_err, "");
	return GD_OK;
}

static void gemm_verdict(struct gd_lab_run *r, const struct gemm_run *s)
{
	const double *tf = s->tf, *err = s->err;
	if (isfinite(tf[0]) && (isfinite(tf[2]) || isfinite(tf[3])))
		gd_lab_verdict(
		    r, "§3",
		    "the same %d³ GEMM ran at %.1f TFLOP/s in FP32, %.1f in TF32, %.1f in BF16 and %.1f in "
		    "FP8 "
		    "(tensor cores); the price is accuracy: worst error vs FP64 %.1e, %.1e, %.1e, %.1e "
		    "(relative to Σ|a·b|).",
		    s->m, tf[0] / 1e3, tf[1] / 1e3, tf[2] / 1e3, tf[3] / 1e3, err[0], err[1], err[2], err[3]);
}

static int gemm_part(struct gd_lab_run *r)
{
	struct gemm_run s;
	char why[256];
	int rc;
	if (gd_blaslt_open(why, sizeof(why)) != GD_OK) {
		gd_lab_note(r, "GEMM part skipped: %s", why);
		return GD_OK;
	}
	memset(&s, 0, sizeof(s));
	s.m = r->quick ? 2048 : 4096;
	s.ws_bytes = (size_t)32 << 20;
	for (int k = 0; k < 4; k++)
		s.tf[k] = s.err[k] = NAN;
	if ((rc = gemm_prepare(r, &s)) == GD_OK) {
		for (int k = 0; k < 4 && rc == GD_OK; k++)
			rc = gemm_type(r, &s, k);
		if (rc == GD_OK)
			gemm_verdict(r, &s);
	}
	free(s.fa);
	free(s.fb);
	free(s.ha);
	free(s.hb);
	return rc;
}

static int run(struct gd_lab_run *r)
{
	int rc = scale_part(r);
	if (rc != GD_OK)
		return rc;
	rc = gemm_part(r);
	{
		struct gd_lab_chart ch = {"Memory-bound op: time vs bytes per element",
					  "bytes per element",
					  "median time per launch (µs)",
					  1,
					  1,
					  GD_LAB_Y_TIME_US,
					  NULL,
					  {"y = 1.5·x (memory-bound)"},
					  1,
					  0};
		gd_lab_set_chart(r, &ch);
	}
	return rc;
}

const struct gd_lab gd_lab_precision = {
    "precision",
    "§4 §3",
    "FP32 → FP16/BF16 → FP8: bytes, time and tensor-core GEMM speed vs accuracy",
    "The same memory-bound op (y = 1.5·x, 64 Mi elements; --quick 16 Mi; --size sets the FP32\n"
    "bytes) in FP32, FP16, BF16 and FP8-e4m3: the bytes halve at each step and the time should\n"
    "follow. Then a square GEMM (4096³; --quick 2048³) through cuBLASLt in FP32, TF32, BF16\n"
    "and FP8, each with its error against an FP64 reference (1024 sampled elements; every\n"
    "element checked for being written and finite).\n",
    run,
    NULL, /* no --shape */
    1LL << 20, 1024LL << 30, 0, /* --size: the top is a sanity bound; the run halves n to fit free memory */
    " (bytes: the FP32 input)",
};
