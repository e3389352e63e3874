/* `gpudiag lab fusion` — the guide's LayerNorm → GeLU → Linear (§9), measured three ways:
 *   1. three kernels, each intermediate written to VRAM and read back (the "six trips");
 *   2. LayerNorm+GeLU fused in one kernel (one read, one write), then the GEMM (cuBLASLt);
 *   3. the fused kernel run on row chunks small enough to stay in L2, each followed at once
 *      by its GEMM, so the GEMM reads the activations from L2 instead of HBM;
 * plus a four-op elementwise chain, op by op against fused.
 *
 * Sizes: GPUDIAG_LAB_FUSION="tokens=8192,hidden=4096,out=4096,chain=134217728" (any
 * subset); --size sets tokens. The harness owns the command line, hence the variable. */
#include "lab/lab_fusion.h"

#include "core/cli.h"
#include "core/out.h"
#include "core/status.h"
#include "gpu/blaslt.h"
#include "kernels/lab_fusion.h"
#include "kernels/lab_harness.h"
#include "lab/lab.h"
#include "lab/lab_key.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ references */

double gd_gelu_ref(double x)
{
	return 0.5 * x * (1.0 + erf(x / sqrt(2.0)));
}

void gd_layernorm_ref(const float *x, const float *gamma, const float *beta, int rows, int hidden,
		      double eps, int gelu, double *y)
{
	for (int r = 0; r < rows; r++) {
		const float *xr = x + (size_t)r * hidden;
		double mean = 0, var = 0;
		for (int c = 0; c < hidden; c++)
			mean += xr[c];
		mean /= hidden;
		for (int c = 0; c < hidden; c++)
			var += (xr[c] - mean) * (xr[c] - mean);
		var /= hidden;
		double rstd = 1.0 / sqrt(var + eps);
		for (int c = 0; c < hidden; c++) {
			double v = (xr[c] - mean) * rstd * gamma[c] + beta[c];
			y[(size_t)r * hidden + c] = gelu ? gd_gelu_ref(v) : v;
		}
	}
}

static double round_bf16(double v)
{
	return gd_bf16_to_f32(gd_f32_to_bf16((float)v));
}

double gd_chain_ref(double x, double a, double b, double c, int rounded)
{
	if (!rounded)
		return gd_gelu_ref(x * a + b) * c;
	double v = round_bf16(x * a);
	v = round_bf16(v + b);
	v = round_bf16(gd_gelu_ref(v));
	return round_bf16(v * c);
}

/* ------------------------------------------------------------------ accounting */

void gd_fusion_account(long long t, long long h, long long n, long long count,
		       struct gd_fusion_acct *a)
{
	const double act = 2.0 * (double)t * (double)h; /* one BF16 activation tensor */
	const double params = 2.0 * 4.0 * (double)h;     /* gamma and beta, FP32 */
	a->ln = 2 * act + params;                        /* read x, write y */
	a->gelu = 2 * act;
	a->ln_gelu = 2 * act + params;
	a->gemm = act + 2.0 * (double)n * (double)h + 2.0 * (double)t * (double)n;
	a->gemm_flops = 2.0 * (double)t * (double)n * (double)h;
	a->v1 = a->ln + a->gelu + a->gemm;
	a->v2 = a->ln_gelu + a->gemm;
	/* Variant 3: x read once, the GeLU'd chunk written to and re-read from L2 only, W read
	 * once (it stays in L2 across chunks when it fits), Y written once. */
	a->v3 = act + params + 2.0 * (double)n * (double)h + 2.0 * (double)t * (double)n;
	a->chain_unfused = 4 * 2 * 2.0 * (double)count;
	a->chain_fused = 2 * 2.0 * (double)count;
}

/* ------------------------------------------------------------------ configuration */

int gd_fusion_parse_cfg(const char *s, struct gd_fusion_cfg *cfg, char *why, size_t n)
{
	char buf[256];
	if (s && *s) {
		if (strlen(s) >= sizeof buf) {
			snprintf(why, n, "the shape is too long");
			return -1;
		}
		strcpy(buf, s);
		char *save = NULL;
		for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			char *eq = strchr(tok, '=');
			long long v;
			if (!eq) {
				snprintf(why, n, "'%s' is not key=value (keys: tokens, hidden, out, chain)", tok);
				return -1;
			}
			*eq = 0;
			if (gd_parse_size(eq + 1, &v) || v <= 0) {
				snprintf(why, n, "%s: '%s' is not a positive size", tok, eq + 1);
				return -1;
			}
			if (!strcmp(tok, "tokens"))
				cfg->tokens = v;
			else if (!strcmp(tok, "hidden"))
				cfg->hidden = v;
			else if (!strcmp(tok, "out"))
				cfg->out = v;
			else if (!strcmp(tok, "chain"))
				cfg->chain = v;
			else {
				snprintf(why, n, "unknown key '%s' (keys: tokens, hidden, out, chain)", tok);
				return -1;
			}
		}
	}
	if (cfg->hidden % 8 || cfg->hidden > GD_FU_MAX_HIDDEN) {
		snprintf(why, n, "hidden %lld must be a multiple of 8 up to %d", cfg->hidden, GD_FU_MAX_HIDDEN);
		return -1;
	}
	if (cfg->out % 8 || cfg->out > 65536) {
		snprintf(why, n, "out %lld must be a multiple of 8 up to 65536", cfg->out);
		return -1;
	}
	if (cfg->tokens > (1 << 24)) {
		snprintf(why, n, "tokens %lld is more than 16Mi", cfg->tokens);
		return -1;
	}
	if (cfg->chain % 8 || cfg->chain > (1ll << 32)) {
		snprintf(why, n, "chain %lld must be a multiple of 8 up to 4Gi", cfg->chain);
		return -1;
	}
	return 0;
}

/* ------------------------------------------------------------------ the lab */

#define FU_MAX_ROT 4
#define FU_SAMPLE_ROWS 24 /* GEMM outputs checked in full on this many rows */
#define FU_LN_EPS 1e-5f

struct fu {
	struct gd_lab_run *r;
	struct gd_fusion_cfg cfg;
	struct gd_fusion_acct acct;
	int t, h, no, nrot, chunk_rows;
	void *x[FU_MAX_ROT], *y1[FU_MAX_ROT], *y2[FU_MAX_ROT];
	float *gamma, *beta;
	void *w, *out, *chunk, *ws;
	size_t ws_bytes;
	void *cx, *ca, *cb, *cy; /* the chain: input, two temporaries, output */
	float a, b, c;
	/* host copies */
	uint16_t *xh, *wh, *cxh;
	float *gh, *bh;
	double *lnref, *lngeluref; /* [t][h] */
	double gelu_lut[65536], chain_lut[2][65536], ident_lut[65536]; /* by BF16 bit pattern */
	int rows[FU_SAMPLE_ROWS];
	double *gemm_ref_x, *gemm_ref_act; /* [FU_SAMPLE_ROWS][no]: A = x, A = GeLU(LN(x)) */
};

static int fu_gemm(struct fu *f, const void *a, void *c, int m, char *why, size_t n)
{
	struct gd_gemm g = {GD_P_BF16, m, f->no, f->h, a, f->w, c, f->ws, f->ws_bytes, NULL};
	return gd_gemm_run(&g, why, n);
}

static int launch_ln(void *arg, long iter, char *why, size_t n)
{
	struct fu *f = arg;
	int i = (int)(iter % f->nrot);
	return gd_fu_layernorm(f->x[i], f->gamma, f->beta, f->y1[i], f->t, f->h, FU_LN_EPS, 0, NULL, why, n);
}

static int launch_copy(void *arg, long iter, char *why, size_t n)
{
	struct fu *f = arg;
	int i = (int)(iter % f->nrot);
	return gd_fu_copy(f->x[i], f->y1[i], (size_t)f->t * f->h * 2, NULL, why, n);
}

static int launch_gelu(void *arg, long iter, char *why, size_t n)
{
	struct fu *f = arg;
	int i = (int)(iter % f->nrot);
	return gd_fu_gelu(f->x[i], f->y2[i], (long long)f->t * f->h, NULL, why, n);
}

static int launch_ln_gelu(void *arg, long iter, char *why, size_t n)
{
	struct fu *f = arg;
	int i = (int)(iter % f->nrot);
	return gd_fu_layernorm(f->x[i], f->gamma, f->beta, f->y2[i], f->t, f->h, FU_LN_EPS, 1, NULL, why, n);
}

static int launch_gemm(void *arg, long iter, char *why, size_t n)
{
	struct fu *f = arg;
	return fu_gemm(f, f->x[0], f->out, f->t, why, n);
}

static int launch_v1(void *arg, long iter, char *why, size_t n)
{
	struct fu *f = arg;
	int i = (int)(iter % f->nrot), rc;
	if ((rc = gd_fu_layernorm(f->x[i], f->gamma, f->beta, f->y1[i], f->t, f->h, FU_LN_EPS, 0, NULL, why, n)))
		return rc;
	if ((rc = gd_fu_gelu(f->y1[i], f->y2[i], (long long)f->t * f->h, NULL, why, n)))
		return rc;
	return fu_gemm(f, f->y2[i], f->out, f->t, why, n);
}

static int launch_v2(void *arg, long iter, char *why, size_t n)
{
	struct fu *f = arg;
	int i = (int)(iter % f->nrot), rc;
	if ((rc = gd_fu_layernorm(f->x[i], f->gamma, f->beta, f->y2[i], f->t, f->h, FU_LN_EPS, 1, NULL, why, n)))
		return rc;
	return fu_gemm(f, f->y2[i], f->out, f->t, why, n);
}

/* Variant 3: row chunks sized to stay in L2; each chunk's GeLU(LN(x)) goes to one small
 * buffer and is consumed by its GEMM right away. */
static int launch_v3(void *arg, long iter, char *why, size_t n)
{
	struct fu *f = arg;
	int i = (int)(iter % f->nrot), rc;
	for (int r0 = 0; r0 < f->t; r0 += f->chunk_rows) {
		int m = f->t - r0 < f->chunk_rows ? f->t - r0 : f->chunk_rows;
		const uint16_t *xs = (const uint16_t *)f->x[i] + (size_t)r0 * f->h;
		uint16_t *os = (uint16_t *)f->out + (size_t)r0 * f->no;
		if ((rc = gd_fu_layernorm(xs, f->gamma, f->beta, f->chunk, m, f->h, FU_LN_EPS, 1, NULL, why, n)))
			return rc;
		if ((rc = fu_gemm(f, f->chunk, os, m, why, n)))
			return rc;
	}
	return GD_OK;
}

static int launch_chain_unfused(void *arg, long iter, char *why, size_t n)
{
	struct fu *f = arg;
	long long cnt = f->cfg.chain;
	int rc;
	if ((rc = gd_fu_elementwise(f->cx, f->ca, cnt, GD_FU_MUL_A, f->a, f->b, f->c, NULL, why, n)) ||
	    (rc = gd_fu_elementwise(f->ca, f->cb, cnt, GD_FU_ADD_B, f->a, f->b, f->c, NULL, why, n)) ||
	    (rc = gd_fu_elementwise(f->cb, f->ca, cnt, GD_FU_GELU, f->a, f->b, f->c, NULL, why, n)) ||
	    (rc = gd_fu_elementwise(f->ca, f->cy, cnt, GD_FU_MUL_C, f->a, f->b, f->c, NULL, why, n)))
		return rc;
	return GD_OK;
}

static int launch_chain_fused(void *arg, long iter, char *why, size_t n)
{
	struct fu *f = arg;
	return gd_fu_elementwise(f->cx, f->cy, f->cfg.chain, GD_FU_CHAIN, f->a, f->b, f->c, NULL, why, n);
}

/* ---- checks */

static int check_ln(void *arg, const void *out, size_t bytes, struct gd_lab_check *c)
{
	struct fu *f = arg;
	gd_lab_cmp(out, f->lnref, (size_t)f->t * f->h, GD_DT_BF16, 1e-3, 1.0 / 128, c);
	snprintf(c->note, sizeof c->note, "vs FP64 LayerNorm, every element");
	return GD_OK;
}

static int check_ln_gelu(void *arg, const void *out, size_t bytes, struct gd_lab_check *c)
{
	struct fu *f = arg;
	gd_lab_cmp(out, f->lngeluref, (size_t)f->t * f->h, GD_DT_BF16, 1e-3, 1.0 / 128, c);
	snprintf(c->note, sizeof c->note, "vs FP64 GeLU(LayerNorm), every element");
	return GD_OK;
}

/* Compares `out` element by element with a reference computed per BF16 input pattern. */
static void cmp_lut(const uint16_t *in, const void *out, size_t cnt, const double *lut, double atol,
		    double rtol, struct gd_lab_check *c)
{
	enum { CH = 1 << 16 };
	double *ref = malloc(sizeof(double) * CH);
	if (!ref)
		return;
	for (size_t i0 = 0; i0 < cnt; i0 += CH) {
		size_t m = cnt - i0 < CH ? cnt - i0 : CH;
		for (size_t i = 0; i < m; i++)
			ref[i] = lut[in[i0 + i]];
		gd_lab_cmp((const uint16_t *)out + i0, ref, m, GD_DT_BF16, atol, rtol, c);
	}
	free(ref);
}

static int check_copy(void *arg, const void *out, size_t bytes, struct gd_lab_check *c)
{
	struct fu *f = arg;
	cmp_lut(f->xh, out, (size_t)f->t * f->h, f->ident_lut, 0, 0, c);
	snprintf(c->note, sizeof c->note, "equal to x, every element");
	return GD_OK;
}

static int check_gelu(void *arg, const void *out, size_t bytes, struct gd_lab_check *c)
{
	struct fu *f = arg;
	cmp_lut(f->xh, out, (size_t)f->t * f->h, f->gelu_lut, 1e-6, 1.0 / 128, c);
	snprintf(c->note, sizeof c->note, "vs FP64 GeLU, every element");
	return GD_OK;
}

static int check_chain_unfused(void *arg, const void *out, size_t bytes, struct gd_lab_check *c)
{
	struct fu *f = arg;
	cmp_lut(f->cxh, out, (size_t)f->cfg.chain, f->chain_lut[1], 1e-5, 1.0 / 64, c);
	snprintf(c->note, sizeof c->note, "vs FP64 chain rounded to BF16 after each op");
	return GD_OK;
}

static int check_chain_fused(void *arg, const void *out, size_t bytes, struct gd_lab_check *c)
{
	struct fu *f = arg;
	cmp_lut(f->cxh, out, (size_t)f->cfg.chain, f->chain_lut[0], 1e-5, 1.0 / 128, c);
	snprintf(c->note, sizeof c->note, "vs FP64 chain, one rounding");
	return GD_OK;
}

/* GEMM outputs: FU_SAMPLE_ROWS rows compared in full with an FP64 product (the whole
 * product on the CPU would take minutes); every other element is checked for the poison
 * pattern so an unwritten tile cannot pass. */
static void check_gemm_rows(struct fu *f, const void *out, const double *ref, struct gd_lab_check *c)
{
	const uint16_t *o = out;
	for (int s = 0; s < FU_SAMPLE_ROWS; s++)
		gd_lab_cmp(o + (size_t)f->rows[s] * f->no, ref + (size_t)s * f->no, (size_t)f->no,
			   GD_DT_BF16, 2e-2, 1.0 / 64, c);
	long long unw = 0;
	for (size_t i = 0; i < (size_t)f->t * f->no; i++)
		if (o[i] == 0xFFFF)
			unw++;
	if (unw) {
		c->unwritten += unw;
		c->bad += unw;
		c->ok = 0;
	}
	snprintf(c->note, sizeof c->note, "%d rows vs FP64, all %lld for unwritten", FU_SAMPLE_ROWS,
		 (long long)f->t * f->no);
}

static int check_gemm_x(void *arg, const void *out, size_t bytes, struct gd_lab_check *c)
{
	struct fu *f = arg;
	check_gemm_rows(f, out, f->gemm_ref_x, c);
	return GD_OK;
}

static int check_gemm_act(void *arg, const void *out, size_t bytes, struct gd_lab_check *c)
{
	struct fu *f = arg;
	check_gemm_rows(f, out, f->gemm_ref_act, c);
	return GD_OK;
}

/* ref[s][j] = Σ_k A(rows[s], k) · W[j][k] in FP64; A is x (act == NULL) or act. W is
 * converted once so the inner loop is a plain dot product. */
static int gemm_ref(struct fu *f, const double *act, double *ref)
{
	float *wf = malloc(sizeof(float) * (size_t)f->no * f->h);
	double *arow = malloc(sizeof(double) * (size_t)f->h);
	if (!wf || !arow) {
		free(wf);
		free(arow);
		return -1;
	}
	for (size_t i = 0; i < (size_t)f->no * f->h; i++)
		wf[i] = gd_bf16_to_f32(f->wh[i]);
	for (int s = 0; s < FU_SAMPLE_ROWS; s++) {
		int r = f->rows[s];
		for (int k = 0; k < f->h; k++)
			arow[k] = act ? act[(size_t)r * f->h + k] : gd_bf16_to_f32(f->xh[(size_t)r * f->h + k]);
		for (int j = 0; j < f->no; j++) {
			const float *wr = wf + (size_t)j * f->h;
			double acc = 0;
			for (int k = 0; k < f->h; k++)
				acc += arow[k] * wr[k];
			ref[(size_t)s * f->no + j] = acc;
		}
	}
	free(wf);
	free(arow);
	return 0;
}

#define G_PARTS "parts"
#define G_CHAIN3 "LN → GeLU → Linear"
#define G_EW "elementwise chain"
#define V_COPY "copy, same bytes (driver D2D)"
#define V_LN "LayerNorm"
#define V_GELU "GeLU"
#define V_LNGELU "LayerNorm+GeLU fused"
#define V_GEMM "Linear (cuBLASLt GEMM)"
#define V_1 "1 three kernels"
#define V_2 "2 LN+GeLU fused, GEMM"
#define V_3 "3 L2-chunked LN+GeLU→GEMM"
#define V_EW4 "4 kernels"
#define V_EW1 "1 fused kernel"

/* Each row's key is what the speed-ups and verdicts look it up by; the labels are display
 * text only. */
enum {
	K_COPY = 1,
	K_LN,
	K_GELU,
	K_LNGELU,
	K_GEMM,
	K_V1,
	K_V2,
	K_V3,
	K_EW4,
	K_EW1,
};

/* Device buffers: rotating copies of x and of both intermediates, γ, β, W, the Linear's
 * output, the cuBLASLt workspace, the L2-sized chunk and the chain's four buffers. */
static int fu_alloc(struct fu *f)
{
	struct gd_lab_run *r = f->r;
	const size_t act = (size_t)f->t * f->h * 2, outb = (size_t)f->t * f->no * 2;
	int rc;

	f->nrot = gd_lab_rotation(r, 2 * act, FU_MAX_ROT);
	for (int i = 0; i < f->nrot; i++)
		if ((rc = gd_lab_alloc(r, &f->x[i], act, "x")) || (rc = gd_lab_alloc(r, &f->y1[i], act, "LN out")) ||
		    (rc = gd_lab_alloc(r, &f->y2[i], act, "GeLU out")))
			return rc;
	f->ws_bytes = 32u << 20;
	if ((rc = gd_lab_alloc(r, (void **)&f->gamma, (size_t)f->h * 4, "gamma")) ||
	    (rc = gd_lab_alloc(r, (void **)&f->beta, (size_t)f->h * 4, "beta")) ||
	    (rc = gd_lab_alloc(r, &f->w, (size_t)f->no * f->h * 2, "W")) ||
	    (rc = gd_lab_alloc(r, &f->out, outb, "Linear out")) ||
	    (rc = gd_lab_alloc(r, &f->ws, f->ws_bytes, "cuBLASLt workspace")))
		return rc;
	/* chunk: a quarter of L2 (the GEMM also wants W there), a multiple of 64 rows */
	long long l2 = r->dev.l2_bytes > 0 ? r->dev.l2_bytes : 40ll << 20;
	long long rows = l2 / 4 / ((long long)f->h * 2) / 64 * 64;
	if (rows < 64)
		rows = 64;
	f->chunk_rows = rows > f->t ? f->t : (int)rows;
	if ((rc = gd_lab_alloc(r, &f->chunk, (size_t)f->chunk_rows * f->h * 2, "chunk")))
		return rc;
	size_t cb = (size_t)f->cfg.chain * 2;
	if ((rc = gd_lab_alloc(r, &f->cx, cb, "chain in")) || (rc = gd_lab_alloc(r, &f->ca, cb, "chain tmp")) ||
	    (rc = gd_lab_alloc(r, &f->cb, cb, "chain tmp")) || (rc = gd_lab_alloc(r, &f->cy, cb, "chain out")))
		return rc;
	return GD_OK;
}

/* Host inputs, drawn from one seed in a fixed order (x, γ and β, W, the chain: a change of
 * order changes every input), and the FP64 LayerNorm of x. */
static int fu_inputs(struct fu *f, char *why, size_t n)
{
	const size_t act = (size_t)f->t * f->h * 2, cb = (size_t)f->cfg.chain * 2;
	uint64_t seed = 0x5eed0f05u;

	/* host data: x ~ U(-2, 2) + a per-row offset (LayerNorm must remove it), gamma ~ U(0.5,
	 * 1.5), beta ~ U(-0.5, 0.5), W ~ U(-1, 1)/sqrt(hidden) so Linear outputs are O(1) */
	f->xh = malloc(act);
	f->wh = malloc((size_t)f->no * f->h * 2);
	f->cxh = malloc(cb);
	f->gh = malloc((size_t)f->h * 4);
	f->bh = malloc((size_t)f->h * 4);
	float *xf = malloc((size_t)f->t * f->h * 4);
	f->lnref = malloc(sizeof(double) * (size_t)f->t * f->h);
	f->lngeluref = malloc(sizeof(double) * (size_t)f->t * f->h);
	f->gemm_ref_x = malloc(sizeof(double) * FU_SAMPLE_ROWS * (size_t)f->no);
	f->gemm_ref_act = malloc(sizeof(double) * FU_SAMPLE_ROWS * (size_t)f->no);
	if (!f->xh || !f->wh || !f->cxh || !f->gh || !f->bh || !xf || !f->lnref || !f->lngeluref ||
	    !f->gemm_ref_x || !f->gemm_ref_act) {
		free(xf);
		snprintf(why, n, "out of host memory");
		return GD_EFAIL;
	}
	for (int row = 0; row < f->t; row++) {
		double off = gd_lab_rand_uniform(&seed, -4, 4);
		for (int k = 0; k < f->h; k++) {
			size_t i = (size_t)row * f->h + k;
			f->xh[i] = gd_f32_to_bf16((float)(off + gd_lab_rand_uniform(&seed, -2, 2)));
			xf[i] = gd_bf16_to_f32(f->xh[i]);
		}
	}
	for (int k = 0; k < f->h; k++) {
		f->gh[k] = (float)gd_lab_rand_uniform(&seed, 0.5, 1.5);
		f->bh[k] = (float)gd_lab_rand_uniform(&seed, -0.5, 0.5);
	}
	gd_lab_rand_fill(f->wh, (size_t)f->no * f->h, GD_DT_BF16, -1 / sqrt(f->h), 1 / sqrt(f->h), &seed);
	gd_lab_rand_fill(f->cxh, (size_t)f->cfg.chain, GD_DT_BF16, -3, 3, &seed);
	gd_layernorm_ref(xf, f->gh, f->bh, f->t, f->h, FU_LN_EPS, 0, f->lnref);
	free(xf);
	return GD_OK;
}

/* The references that follow from the inputs: GeLU(LN(x)), the per-BF16-pattern tables, the
 * sampled rows and the two GEMM references on them. */
static int fu_references(struct fu *f, char *why, size_t n)
{
	for (size_t i = 0; i < (size_t)f->t * f->h; i++)
		f->lngeluref[i] = gd_gelu_ref(f->lnref[i]);
	f->a = 1.5f;
	f->b = 0.25f;
	f->c = 0.75f;
	for (int p = 0; p < 65536; p++) {
		double v = gd_bf16_to_f32((uint16_t)p);
		f->gelu_lut[p] = gd_gelu_ref(v);
		f->ident_lut[p] = v;
		f->chain_lut[0][p] = gd_chain_ref(v, f->a, f->b, f->c, 0);
		f->chain_lut[1][p] = gd_chain_ref(v, f->a, f->b, f->c, 1);
	}
	for (int s = 0; s < FU_SAMPLE_ROWS; s++)
		f->rows[s] = (int)((long long)s * (f->t - 1) / (FU_SAMPLE_ROWS - 1));
	/* the GEMM after LN(+GeLU) sees the activation rounded to BF16 */
	double *act_b = malloc(sizeof(double) * (size_t)f->t * f->h);
	if (!act_b) {
		snprintf(why, n, "out of host memory");
		return GD_EFAIL;
	}
	for (size_t i = 0; i < (size_t)f->t * f->h; i++)
		act_b[i] = gd_bf16_to_f32(gd_f32_to_bf16((float)f->lngeluref[i]));
	int bad = gemm_ref(f, NULL, f->gemm_ref_x) || gemm_ref(f, act_b, f->gemm_ref_act);
	free(act_b);
	if (bad) {
		snprintf(why, n, "out of host memory");
		return GD_EFAIL;
	}
	return GD_OK;
}

/* x into every rotating copy, then γ, β, W and the chain's input. */
static int fu_upload(struct fu *f)
{
	const size_t act = (size_t)f->t * f->h * 2, cb = (size_t)f->cfg.chain * 2;
	int rc;
	for (int i = 0; i < f->nrot; i++)
		if ((rc = gd_lab_upload(f->x[i], f->xh, act)))
			return rc;
	if ((rc = gd_lab_upload(f->gamma, f->gh, (size_t)f->h * 4)) ||
	    (rc = gd_lab_upload(f->beta, f->bh, (size_t)f->h * 4)) ||
	    (rc = gd_lab_upload(f->w, f->wh, (size_t)f->no * f->h * 2)) ||
	    (rc = gd_lab_upload(f->cx, f->cxh, cb)))
		return rc;
	return GD_OK;
}

static int fusion_setup(struct fu *f, char *why, size_t n)
{
	int rc;
	if ((rc = fu_alloc(f)) || (rc = fu_inputs(f, why, n)) || (rc = fu_references(f, why, n)) ||
	    (rc = fu_upload(f)))
		return rc;
	return GD_OK;
}

static void fu_free(struct fu *f)
{
	free(f->xh);
	free(f->wh);
	free(f->cxh);
	free(f->gh);
	free(f->bh);
	free(f->lnref);
	free(f->lngeluref);
	free(f->gemm_ref_x);
	free(f->gemm_ref_act);
}

/* Every part and variant, checked and timed, in the order they are listed. */
static int fu_measure_all(struct fu *f)
{
	struct gd_lab_run *r = f->r;
	const struct gd_fusion_acct *a = &f->acct;
	const size_t act = (size_t)f->t * f->h * 2, outb = (size_t)f->t * f->no * 2;
	char fm[5][128];
	int rc;
	snprintf(fm[0], sizeof fm[0], "T·H·2 read + T·H·2 write + γ,β (T=%d, H=%d)", f->t, f->h);
	snprintf(fm[1], sizeof fm[1], "X T·H·2 + W N·H·2 + Y T·N·2; 2·T·N·H FLOP (N=%d)", f->no);
	snprintf(fm[2], sizeof fm[2], "LN 2·T·H·2 + GeLU 2·T·H·2 + GEMM (X, W, Y once)");
	snprintf(fm[3], sizeof fm[3], "X read + chunk in L2 + W once + Y (%d-row chunks)", f->chunk_rows);
	snprintf(fm[4], sizeof fm[4], "ops × (read + write) × %lld × 2 B", f->cfg.chain);

	struct {
		int key;
		struct gd_lab_variant v;
	} parts[] = {
		{K_COPY, {G_PARTS, V_COPY, NAN, 2.0 * (double)act, 0, "T·H·2 read + T·H·2 write", GD_ROOF_DRAM_COPY, GD_P_BF16, 0, launch_copy, f, f->y1[0], act, check_copy, {{0}}, 0}},
		{K_LN, {G_PARTS, V_LN, NAN, a->ln, 0, fm[0], GD_ROOF_DRAM_COPY, GD_P_BF16, 0, launch_ln, f, f->y1[0], act, check_ln, {{0}}, 0}},
		{K_GELU, {G_PARTS, V_GELU, NAN, a->gelu, 0, "T·H·2 read + T·H·2 write", GD_ROOF_DRAM_COPY, GD_P_BF16, 0, launch_gelu, f, f->y2[0], act, check_gelu, {{0}}, 0}},
		{K_LNGELU, {G_PARTS, V_LNGELU, NAN, a->ln_gelu, 0, fm[0], GD_ROOF_DRAM_COPY, GD_P_BF16, 0, launch_ln_gelu, f, f->y2[0], act, check_ln_gelu, {{0}}, 0}},
		{K_GEMM, {G_PARTS, V_GEMM, NAN, a->gemm, a->gemm_flops, fm[1], GD_ROOF_FLOPS_TENSOR, GD_P_BF16, 0, launch_gemm, f, f->out, outb, check_gemm_x, {{0}}, 0}},
		{K_V1, {G_CHAIN3, V_1, 1, a->v1, a->gemm_flops, fm[2], GD_ROOF_NONE, GD_P_BF16, 0, launch_v1, f, f->out, outb, check_gemm_act, {{0}}, 0}},
		{K_V2, {G_CHAIN3, V_2, 2, a->v2, a->gemm_flops, "LN+GeLU 2·T·H·2 + GEMM (X, W, Y once)", GD_ROOF_NONE, GD_P_BF16, 0, launch_v2, f, f->out, outb, check_gemm_act, {{0}}, 0}},
		{K_V3, {G_CHAIN3, V_3, 3, a->v3, a->gemm_flops, fm[3], GD_ROOF_NONE, GD_P_BF16, 0, launch_v3, f, f->out, outb, check_gemm_act, {{0}}, 0}},
		{K_EW4, {G_EW, V_EW4, 4, a->chain_unfused, 0, fm[4], GD_ROOF_DRAM_COPY, GD_P_BF16, 0, launch_chain_unfused, f, f->cy, (size_t)f->cfg.chain * 2, check_chain_unfused, {{0}}, 0}},
		{K_EW1, {G_EW, V_EW1, 1, a->chain_fused, 0, fm[4], GD_ROOF_DRAM_COPY, GD_P_BF16, 0, launch_chain_fused, f, f->cy, (size_t)f->cfg.chain * 2, check_chain_fused, {{0}}, 0}},
	};
	for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
		if ((rc = gd_lab_measure_key(r, &parts[i].v, parts[i].key)) != GD_OK)
			return rc;
	return GD_OK;
}

/* The speed-ups over the unfused variant of each group. */
static void fu_speedups(struct gd_lab_run *r)
{
	double t1 = gd_lab_key_median(r, K_V1);
	const int keys[3] = {K_V1, K_V2, K_V3};
	for (int i = 0; i < 3; i++) {
		struct gd_lab_result *x = gd_lab_find_key(r, keys[i]);
		if (x)
			gd_lab_result_metric(x, "speedup_vs_unfused", t1 / x->t_median, "×");
	}
	double e4 = gd_lab_key_median(r, K_EW4), e1 = gd_lab_key_median(r, K_EW1);
	struct gd_lab_result *xe = gd_lab_find_key(r, K_EW1);
	if (xe)
		gd_lab_result_metric(xe, "speedup_vs_unfused", e4 / e1, "×");
}

/* The copy of the same bytes timed in this run, in GB/s; NaN when it is missing or failed. */
static double fu_copy_gbps(const struct gd_lab_run *r)
{
	const struct gd_lab_result *cp = gd_lab_find_key(r, K_COPY);
	return cp && cp->check.ok && cp->gbps > 0 ? cp->gbps : NAN;
}

/* the memory-bound kernels against the copy of the same bytes in this run: a ceiling
 * measured on a large buffer flatters nothing at this size, where launch ramp and tail
 * are part of every kernel's time (docs/labs-fusion.md) */
static void fu_copy_fractions(struct gd_lab_run *r)
{
	const double cp_gbps = fu_copy_gbps(r);
	const int mem_parts[] = {K_LN, K_GELU, K_LNGELU};
	for (int i = 0; i < 3 && isfinite(cp_gbps); i++) {
		struct gd_lab_result *x = gd_lab_find_key(r, mem_parts[i]);
		if (x && x->gbps > 0)
			gd_lab_result_metric(x, "fraction_of_same_bytes_copy", x->gbps / cp_gbps, "");
	}
}

/* LayerNorm+GeLU fused against its two kernels, placed against its ceiling and the copy. */
static void fu_verdict_fused(struct fu *f)
{
	struct gd_lab_run *r = f->r;
	const size_t act = (size_t)f->t * f->h * 2;
	const struct gd_lab_result *cp = gd_lab_find_key(r, K_COPY);
	const double cp_gbps = fu_copy_gbps(r);
	const struct gd_lab_result *lg = gd_lab_find_key(r, K_LNGELU);
	const struct gd_lab_result *ln = gd_lab_find_key(r, K_LN);
	const struct gd_lab_result *ge = gd_lab_find_key(r, K_GELU);
	char b1[32], b2[32], b3[32], fm[3][128];
	if (lg && ln && ge && isfinite(lg->t_median)) {
		char roof[320];
		int k;
		if (isfinite(lg->pct_of_ceiling))
			k = snprintf(roof, sizeof roof, "%s of the %s %s ceiling", gd_fmt_pct(fm[1], sizeof fm[1], lg->pct_of_ceiling),
				     lg->ceiling.source, lg->ceiling.name);
		else
			k = snprintf(roof, sizeof roof, "no %s ceiling known to compare with", lg->ceiling.name ? lg->ceiling.name : "DRAM");
		if (isfinite(cp_gbps) && k > 0 && (size_t)k < sizeof roof)
			snprintf(roof + k, sizeof roof - (size_t)k, ", and %.3f of the driver's copy of the same bytes (%s, %s)",
				 lg->gbps / cp_gbps, gd_fmt_time(b1, sizeof b1, cp->t_median * 1e9),
				 gd_fmt_si(fm[2], sizeof fm[2], cp_gbps * 1e9, "B/s"));
		gd_lab_verdict(r, "§9",
			       "LayerNorm+GeLU in one kernel takes %s against %s for the two kernels (%.2f× faster): "
			       "the intermediate (%s) is no longer written to and read back from VRAM; the fused "
			       "kernel moves %s, %s.",
			       gd_fmt_time(b1, sizeof b1, lg->t_median * 1e9),
			       gd_fmt_time(b2, sizeof b2, (ln->t_median + ge->t_median) * 1e9),
			       (ln->t_median + ge->t_median) / lg->t_median, gd_fmt_bytes(b3, sizeof b3, (double)act),
			       gd_fmt_si(fm[0], sizeof fm[0], lg->gbps * 1e9, "B/s"), roof);
	}
}

/* The whole layer, the L2-chunked variant and the pointwise chain. */
static void fu_verdicts_layer(struct fu *f)
{
	struct gd_lab_run *r = f->r;
	double t1 = gd_lab_key_median(r, K_V1), t2 = gd_lab_key_median(r, K_V2),
	       t3 = gd_lab_key_median(r, K_V3);
	double e4 = gd_lab_key_median(r, K_EW4), e1 = gd_lab_key_median(r, K_EW1);
	char b1[32], b2[32];
	if (isfinite(t1) && isfinite(t2))
		gd_lab_verdict(r, "§9",
			       "Whole layer: fusing LN+GeLU saves %s of %s (%.1f %%); the GEMM dominates, so the "
			       "end-to-end gain is smaller than the memory-bound part's.",
			       gd_fmt_time(b1, sizeof b1, (t1 - t2) * 1e9), gd_fmt_time(b2, sizeof b2, t1 * 1e9),
			       100 * (t1 - t2) / t1);
	if (isfinite(t2) && isfinite(t3))
		gd_lab_verdict(r, "§9",
			       t3 < t2 * 0.99
				       ? "Going further wins: LN+GeLU in %d-row chunks that stay in L2, each consumed at once "
					 "by its GEMM, takes %s against %s for variant 2."
				       : "Going further does not win here: LN+GeLU in %d-row chunks kept in L2 takes %s "
					 "against %s for variant 2 (the smaller GEMMs lose more than the saved HBM round trip).",
			       f->chunk_rows, gd_fmt_time(b1, sizeof b1, t3 * 1e9), gd_fmt_time(b2, sizeof b2, t2 * 1e9));
	if (isfinite(e4) && isfinite(e1))
		gd_lab_verdict(r, "§9",
			       "Four pointwise ops as four kernels take %s; fused into one, %s (%.2f×): each op on its "
			       "own is memory-bound, fusion keeps the values in registers.",
			       gd_fmt_time(b1, sizeof b1, e4 * 1e9), gd_fmt_time(b2, sizeof b2, e1 * 1e9), e4 / e1);
}

static int fusion_measure(struct fu *f)
{
	int rc;
	if ((rc = fu_measure_all(f)) != GD_OK)
		return rc;
	fu_speedups(f->r);
	fu_copy_fractions(f->r);
	fu_verdict_fused(f);
	fu_verdicts_layer(f);
	return GD_OK;
}

/* tokens, hidden, out, chain */
static const struct gd_fusion_cfg fusion_default = {8192, 4096, 4096, 1ll << 27},
				  fusion_quick = {2048, 1024, 1024, 1ll << 24};

static int fusion_run(struct gd_lab_run *r)
{
	struct fu *f = calloc(1, sizeof *f);
	char why[256] = "";
	int rc;
	if (!f)
		return gd_error(GD_EFAIL, "lab fusion: out of host memory");
	f->r = r;
	f->cfg = r->quick ? fusion_quick : fusion_default;
	if (r->size > 0)
		f->cfg.tokens = r->size;
	if (gd_fusion_parse_cfg(r->shape ? r->shape : getenv("GPUDIAG_LAB_FUSION"), &f->cfg, why, sizeof why)) {
		free(f);
		return gd_error(GD_EUSAGE, "lab fusion: %s", why);
	}
	if ((rc = gd_blaslt_open(why, sizeof why)) != GD_OK) {
		free(f);
		return gd_error(rc, "lab fusion: the Linear needs cuBLASLt: %s", why);
	}
	f->t = (int)f->cfg.tokens;
	f->h = (int)f->cfg.hidden;
	f->no = (int)f->cfg.out;
	gd_fusion_account(f->t, f->h, f->no, f->cfg.chain, &f->acct);
	gd_lab_note(r, "sizes: tokens %d × hidden %d → Linear to %d, BF16; elementwise chain over %lld BF16 values "
		       "(--shape tokens=…,hidden=…,out=…,chain=… changes them)",
		    f->t, f->h, f->no, f->cfg.chain);
	rc = fusion_setup(f, why, sizeof why);
	if (rc == GD_OK) {
		gd_lab_note(r, "%d rotating copies of x and of each intermediate keep consecutive launches out of L2; "
			       "variant 3 uses %d-row chunks (%.1f MiB)",
			    f->nrot, f->chunk_rows, (double)f->chunk_rows * f->h * 2 / 1048576.0);
		gd_lab_note(r, "bytes are what each kernel must read and write once (GB = 1e9 B); the GEMM's are "
			       "its compulsory traffic, its figure of merit is FLOP/s");
		rc = fusion_measure(f);
	} else if (why[0]) {
		rc = gd_error(rc, "lab fusion: %s", why);
	}
	struct gd_lab_chart ch = {"LN → GeLU → Linear and the elementwise chain", "variant", "time per run (µs)",
				  0, 0, GD_LAB_Y_TIME_US, NULL, {G_CHAIN3, G_EW}, 2, 0};
	gd_lab_set_chart(r, &ch);
	fu_free(f);
	free(f);
	return rc;
}

static int fusion_check_shape(const char *spec, char *why, size_t n)
{
	struct gd_fusion_cfg cfg = fusion_default;
	return gd_fusion_parse_cfg(spec, &cfg, why, n) ? -1 : 0;
}

const struct gd_lab gd_lab_fusion = {
	"fusion", "§9", "kernel fusion: LayerNorm → GeLU → Linear unfused, fused, L2-chunked; a pointwise chain",
	"Runs the guide's LayerNorm → GeLU → Linear (BF16, 8192 tokens × 4096 hidden by default):\n"
	"  1. three kernels, each intermediate written to VRAM and read back;\n"
	"  2. LayerNorm+GeLU fused in one kernel (one read, one write), then the cuBLASLt GEMM;\n"
	"  3. the fused kernel over row chunks that stay in L2, each feeding its GEMM at once;\n"
	"and four pointwise ops (x·a, +b, GeLU, ·c) as four kernels against one fused kernel.\n"
	"Each part is also timed alone: GB/s of the memory-bound kernels against the HBM copy\n"
	"ceiling and against the driver's copy of the same bytes timed in the same run, FLOP/s\n"
	"of the GEMM. Every output is checked against an FP64 CPU reference\n"
	"(GEMMs: 24 full rows, and every element for the poison pattern).\n"
	"Sizes: --size sets tokens; --shape tokens=N,hidden=N,out=N,chain=N sets any of them\n"
	"(hidden and out multiples of 8; also read from GPUDIAG_LAB_FUSION when --shape is absent).\n",
	fusion_run,
	fusion_check_shape,
	1, 1LL << 24, 0, /* --size: the range (and step) the run itself requires */
	" (tokens)",
};
