/* `gpudiag lab attention` — attention forward, naive (S and P materialised in VRAM) against
 * a FlashAttention-style kernel (online softmax, nothing L×L in memory) (guide §9, §4).
 *
 * Naive: Vᵀ by a transpose kernel; per head S = Q·Kᵀ (cuBLASLt, BF16 out) into one
 * [B·H][L][L] buffer; softmax in place (scale, causal mask → 0); per head O = P·(Vᵀ)ᵀ.
 * Flash: src/kernels/lab_attention.cu (mma.sync m16n8k16, ldmatrix, cp.async); on cc 9.0
 * also "flash wgmma": src/kernels/lab_attention_wgmma.cuh (wgmma.mma_async, sm_90a).
 * Shapes: GPUDIAG_LAB_ATTENTION="lens=512..16k;heads=16;batch=1;dims=64,128;causal=both";
 * --size sets the largest L. The harness owns the command line, hence the variable. */
#include "lab/lab_attention.h"

#include "core/out.h"
#include "core/status.h"
#include "gpu/blaslt.h"
#include "kernels/lab_attention.h"
#include "kernels/lab_harness.h"
#include "lab/lab.h"

#include <stdint.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

double gd_attn_flops(const struct gd_attn_shape *s)
{
	double f = 4.0 * s->b * s->h * (double)s->l * (double)s->l * s->d;
	return s->causal ? f / 2 : f;
}

unsigned long long gd_attn_bytes_io(const struct gd_attn_shape *s)
{
	return 4ull * 2ull * (unsigned long long)s->b * s->h * s->l * s->d;
}

unsigned long long gd_attn_bytes_naive(const struct gd_attn_shape *s)
{
	unsigned long long bh = (unsigned long long)s->b * s->h;
	return gd_attn_bytes_io(s) + 2ull * bh * s->l * s->l + 2ull * bh * s->l * s->d;
}

unsigned long long gd_attn_bytes_flash(const struct gd_attn_shape *s)
{
	return gd_attn_bytes_io(s);
}

long long gd_attn_max_len(int naive, int b, int h, int d, unsigned long long free_bytes)
{
	/* Both models grow with L, so a binary search over multiples of 64 is exact. */
	long long lo = 0, hi = 1;
	struct gd_attn_shape s = {b, h, 64, d, 0};
	for (;;) { /* find hi (in units of 64) that does not fit */
		s.l = (int)(hi * 64 > 0x7fffffff ? 0x7fffffff : hi * 64);
		unsigned long long need = naive ? gd_attn_bytes_naive(&s) : gd_attn_bytes_flash(&s);
		if (need > free_bytes || hi * 64 >= (1ll << 30))
			break;
		lo = hi;
		hi *= 2;
	}
	while (hi - lo > 1) {
		long long mid = (lo + hi) / 2;
		s.l = (int)(mid * 64);
		unsigned long long need = naive ? gd_attn_bytes_naive(&s) : gd_attn_bytes_flash(&s);
		if (need <= free_bytes)
			lo = mid;
		else
			hi = mid;
	}
	return lo * 64;
}

void gd_attn_ref_row(const float *q, const float *k, const float *v, double *o, int l, int d,
		     int causal, double scale, int hd, int i, double *p)
{
	const float *qh = q + (size_t)hd * l * d, *kh = k + (size_t)hd * l * d, *vh = v + (size_t)hd * l * d;
	int last = causal ? i : l - 1;
	double mx = -INFINITY, sum = 0;
	for (int j = 0; j <= last; j++) {
		double s = 0;
		for (int c = 0; c < d; c++)
			s += (double)qh[(size_t)i * d + c] * kh[(size_t)j * d + c];
		p[j] = s * scale;
		if (p[j] > mx)
			mx = p[j];
	}
	for (int j = 0; j <= last; j++) {
		p[j] = exp(p[j] - mx);
		sum += p[j];
	}
	for (int c = 0; c < d; c++)
		o[c] = 0;
	for (int j = 0; j <= last; j++)
		for (int c = 0; c < d; c++)
			o[c] += p[j] * vh[(size_t)j * d + c];
	for (int c = 0; c < d; c++)
		o[c] /= sum;
}

void gd_attn_ref(const float *q, const float *k, const float *v, double *o, int bh, int l, int d,
		 int causal, double scale)
{
	double *p = malloc(sizeof(double) * (size_t)l);
	if (!p)
		return;
	for (int hd = 0; hd < bh; hd++)
		for (int i = 0; i < l; i++)
			gd_attn_ref_row(q, k, v, o + ((size_t)hd * l + i) * d, l, d, causal, scale, hd, i, p);
	free(p);
}

void gd_attn_tiled_ref(const float *q, const float *k, const float *v, double *o, int bh, int l,
		       int d, int causal, double scale, int tile)
{
	double *acc = malloc(sizeof(double) * (size_t)d);
	double *s = malloc(sizeof(double) * (size_t)tile);
	if (!acc || !s) {
		free(acc);
		free(s);
		return;
	}
	for (int hd = 0; hd < bh; hd++) {
		const float *qh = q + (size_t)hd * l * d, *kh = k + (size_t)hd * l * d,
			    *vh = v + (size_t)hd * l * d;
		for (int i = 0; i < l; i++) {
			double m = -INFINITY, sum = 0;
			memset(acc, 0, sizeof(double) * (size_t)d);
			for (int j0 = 0; j0 < l; j0 += tile) {
				int n = l - j0 < tile ? l - j0 : tile;
				double tmax = -INFINITY;
				for (int j = 0; j < n; j++) {
					int key = j0 + j;
					if (causal && key > i) {
						s[j] = -INFINITY;
						continue;
					}
					double dot = 0;
					for (int c = 0; c < d; c++)
						dot += (double)qh[(size_t)i * d + c] * kh[(size_t)key * d + c];
					s[j] = dot * scale;
					if (s[j] > tmax)
						tmax = s[j];
				}
				double mnew = m > tmax ? m : tmax;
				if (mnew == -INFINITY)
					continue; /* nothing unmasked yet */
				double alpha = exp(m - mnew); /* 0 on the first tile (m = -inf) */
				sum *= alpha;
				for (int c = 0; c < d; c++)
					acc[c] *= alpha;
				for (int j = 0; j < n; j++) {
					double p = exp(s[j] - mnew);
					sum += p;
					if (p != 0)
						for (int c = 0; c < d; c++)
							acc[c] += p * vh[(size_t)(j0 + j) * d + c];
				}
				m = mnew;
			}
			for (int c = 0; c < d; c++)
				o[((size_t)hd * l + i) * d + c] = acc[c] / sum;
		}
	}
	free(acc);
	free(s);
}

/* "4096", "4k" or "4K": sequence lengths count k as 1024 (4k = 4096), as papers do. */
static int parse_len(const char *s, long long *out)
{
	char *end;
	long long v = strtoll(s, &end, 10);
	if (end == s || v <= 0)
		return -1;
	if (*end == 'k' || *end == 'K') {
		v *= 1024;
		end++;
	}
	if (*end)
		return -1;
	*out = v;
	return 0;
}

int gd_attn_parse_lens(const char *s, long long *lens, int max, char *why, size_t n)
{
	char buf[256];
	if (!s || !*s || strlen(s) >= sizeof buf) {
		snprintf(why, n, "empty or too long length list");
		return -1;
	}
	strcpy(buf, s);
	char *dots = strstr(buf, "..");
	int cnt = 0;
	if (dots) {
		*dots = 0;
		long long a, b;
		if (parse_len(buf, &a) || parse_len(dots + 2, &b)) {
			snprintf(why, n, "'%s' is not a range like 512..16k", s);
			return -1;
		}
		if (a < 64 || b < a) {
			snprintf(why, n, "range '%s' must go up from at least 64", s);
			return -1;
		}
		for (long long x = a; x <= b; x *= 2) {
			if (cnt == max) {
				snprintf(why, n, "too many lengths in '%s' (at most %d)", s, max);
				return -1;
			}
			lens[cnt++] = x;
		}
	} else {
		char *save = NULL;
		for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			long long x;
			if (parse_len(tok, &x)) {
				snprintf(why, n, "'%s' is not a length", tok);
				return -1;
			}
			if (cnt == max) {
				snprintf(why, n, "too many lengths in '%s' (at most %d)", s, max);
				return -1;
			}
			lens[cnt++] = x;
		}
	}
	for (int i = 0; i < cnt; i++)
		if (lens[i] < 64 || lens[i] % 64 || lens[i] > (1 << 20)) {
			snprintf(why, n, "length %lld must be a multiple of 64 between 64 and 1M", lens[i]);
			return -1;
		}
	if (!cnt) {
		snprintf(why, n, "empty length list");
		return -1;
	}
	return cnt;
}

/* ------------------------------------------------------------------ configuration */

int gd_attn_parse_cfg(const char *s, struct gd_attn_cfg *cfg, char *why, size_t n)
{
	char buf[512];
	if (!s || !*s)
		return 0;
	if (strlen(s) >= sizeof buf) {
		snprintf(why, n, "the shape is too long");
		return -1;
	}
	strcpy(buf, s);
	char *save = NULL;
	for (char *tok = strtok_r(buf, ";", &save); tok; tok = strtok_r(NULL, ";", &save)) {
		char *eq = strchr(tok, '='), *end;
		if (!eq) {
			snprintf(why, n, "'%s' is not key=value (keys: lens, heads, batch, dims, causal)", tok);
			return -1;
		}
		*eq = 0;
		const char *val = eq + 1;
		if (!strcmp(tok, "lens")) {
			int c = gd_attn_parse_lens(val, cfg->lens, GD_ATTN_MAX_LENS, why, n);
			if (c < 0)
				return -1;
			cfg->nlens = c;
		} else if (!strcmp(tok, "heads") || !strcmp(tok, "batch")) {
			long v = strtol(val, &end, 10);
			if (end == val || *end || v < 1 || v > 4096) {
				snprintf(why, n, "%s: '%s' is not a count between 1 and 4096", tok, val);
				return -1;
			}
			*(tok[0] == 'h' ? &cfg->heads : &cfg->batch) = (int)v;
		} else if (!strcmp(tok, "dims")) {
			if (!strcmp(val, "64") || !strcmp(val, "128")) {
				cfg->dims[0] = atoi(val);
				cfg->ndims = 1;
			} else if (!strcmp(val, "64,128") || !strcmp(val, "128,64")) {
				cfg->dims[0] = 64;
				cfg->dims[1] = 128;
				cfg->ndims = 2;
			} else {
				snprintf(why, n, "dims: '%s' is not 64, 128 or 64,128 (the head dims the kernels are built for)", val);
				return -1;
			}
		} else if (!strcmp(tok, "causal")) {
			if (!strcmp(val, "yes") || !strcmp(val, "no")) {
				cfg->causal[0] = val[0] == 'y';
				cfg->ncausal = 1;
			} else if (!strcmp(val, "both")) {
				cfg->causal[0] = 0;
				cfg->causal[1] = 1;
				cfg->ncausal = 2;
			} else {
				snprintf(why, n, "causal: '%s' is not yes, no or both", val);
				return -1;
			}
		} else {
			snprintf(why, n, "unknown key '%s' (keys: lens, heads, batch, dims, causal)", tok);
			return -1;
		}
	}
	if ((long long)cfg->batch * cfg->heads > 65535) {
		snprintf(why, n, "batch × heads = %lld is more than 65535", (long long)cfg->batch * cfg->heads);
		return -1;
	}
	return 0;
}

/* ------------------------------------------------------------------ the lab */

#define FLASH32 "flash 2×m16"
#define FLASHWG "flash wgmma"
#define AT_NFLASH 3 /* flash, flash 2×m16, flash wgmma */
#define AT_REF_FULL_L 1024 /* up to this L the checked heads are compared on every row */
#define AT_REF_ROWS 64     /* beyond it, this many rows per checked head */

struct at {
	struct gd_lab_run *r;
	struct gd_attn_shape s;
	int bh;
	float scale;
	void *q, *k, *v, *o, *S, *vt, *ws;
	size_t ws_bytes;
	int use_blaslt;
	/* host */
	uint16_t *qh, *kh, *vh, *naive_out;
	float *qf, *kf, *vf;
	int naive_ok;            /* naive_out holds a checked naive result of this shape */
	int nref, ref_heads[2];  /* reference rows: (head, row) pairs */
	int *ref_rows;
	double *ref;             /* [nref][d] */
};

static int at_gemm(struct at *a, int m, int nn, int kk, const void *A, const void *B, void *C, char *why,
		   size_t n)
{
	struct gd_gemm g = {GD_P_BF16, m, nn, kk, A, B, C, a->ws, a->ws_bytes, NULL};
	return gd_gemm_run(&g, why, n);
}

static int launch_naive(void *arg, long iter, char *why, size_t n)
{
	struct at *a = arg;
	const int L = a->s.l, D = a->s.d;
	const size_t hs = (size_t)L * D; /* elements per head of Q, K, V, O */
	int rc;
	if ((rc = gd_attn_transpose(a->v, a->vt, a->bh, L, D, NULL, why, n)))
		return rc;
	if (a->use_blaslt) {
		for (int h = 0; h < a->bh; h++)
			if ((rc = at_gemm(a, L, L, D, (const uint16_t *)a->q + h * hs, (const uint16_t *)a->k + h * hs,
					  (uint16_t *)a->S + (size_t)h * L * L, why, n)))
				return rc;
	} else if ((rc = gd_attn_qk_simt(a->q, a->k, a->S, a->bh, L, D, NULL, why, n))) {
		return rc;
	}
	if ((rc = gd_attn_softmax_rows(a->S, a->bh, L, a->s.causal, a->scale, NULL, why, n)))
		return rc;
	if (a->use_blaslt) {
		for (int h = 0; h < a->bh; h++)
			if ((rc = at_gemm(a, L, D, L, (const uint16_t *)a->S + (size_t)h * L * L,
					  (const uint16_t *)a->vt + h * hs, (uint16_t *)a->o + h * hs, why, n)))
				return rc;
		return GD_OK;
	}
	return gd_attn_pv_simt(a->S, a->vt, a->o, a->bh, L, D, NULL, why, n);
}

static int launch_flash(void *arg, long iter, char *why, size_t n)
{
	struct at *a = arg;
	return gd_attn_flash(a->q, a->k, a->v, a->o, a->bh, a->s.l, a->s.d, a->s.causal, a->scale, 16, NULL, why, n);
}

static int launch_flash32(void *arg, long iter, char *why, size_t n)
{
	struct at *a = arg;
	return gd_attn_flash(a->q, a->k, a->v, a->o, a->bh, a->s.l, a->s.d, a->s.causal, a->scale, 32, NULL, why, n);
}

static int launch_flash_wgmma(void *arg, long iter, char *why, size_t n)
{
	struct at *a = arg;
	return gd_attn_flash_wgmma(a->q, a->k, a->v, a->o, a->bh, a->s.l, a->s.d, a->s.causal, a->scale, NULL, why, n);
}

/* The FP64 reference on the chosen rows of the first and last head. */
/* Naive's S is BF16 (as a BF16 framework's naive attention): a logit of |q·k| ≈ 50 carries
 * an absolute rounding error of ≈ 0.1 before scaling, ~1 % in its probability, so naive's
 * tolerance is wider than flash's, whose S stays in FP32. */
#define AT_ATOL_FLASH 2e-3
#define AT_ATOL_NAIVE 1e-2

static void cmp_ref(struct at *a, const uint16_t *out, double atol, struct gd_lab_check *c)
{
	const int D = a->s.d;
	for (int i = 0; i < a->nref; i++) {
		int hd = a->ref_heads[i / (a->nref / 2)], row = a->ref_rows[i];
		gd_lab_cmp(out + ((size_t)hd * a->s.l + row) * D, a->ref + (size_t)i * D, (size_t)D, GD_DT_BF16,
			   atol, 1.0 / 64, c);
	}
}

static int check_naive(void *arg, const void *out, size_t bytes, struct gd_lab_check *c)
{
	struct at *a = arg;
	const uint16_t *o = out;
	size_t cnt = (size_t)a->bh * a->s.l * a->s.d;
	cmp_ref(a, o, AT_ATOL_NAIVE, c);
	long long unw = 0;
	for (size_t i = 0; i < cnt; i++)
		unw += o[i] == 0xFFFF;
	if (unw) {
		c->unwritten += unw;
		c->bad += unw;
		c->ok = 0;
	}
	memcpy(a->naive_out, o, cnt * 2);
	a->naive_ok = c->ok;
	snprintf(c->note, sizeof c->note, "%d rows vs FP64 (S in BF16); all checked for unwritten", a->nref);
	return GD_OK;
}

static int check_flash(void *arg, const void *out, size_t bytes, struct gd_lab_check *c)
{
	struct at *a = arg;
	size_t cnt = (size_t)a->bh * a->s.l * a->s.d;
	cmp_ref(a, out, AT_ATOL_FLASH, c);
	if (a->naive_ok) {
		double *ref = malloc(sizeof(double) * (1 << 16));
		if (!ref)
			return GD_EFAIL;
		for (size_t i0 = 0; i0 < cnt; i0 += 1 << 16) {
			size_t m = cnt - i0 < (1 << 16) ? cnt - i0 : (1 << 16);
			for (size_t i = 0; i < m; i++)
				ref[i] = gd_bf16_to_f32(a->naive_out[i0 + i]);
			gd_lab_cmp((const uint16_t *)out + i0, ref, m, GD_DT_BF16, AT_ATOL_NAIVE, 1.0 / 32, c);
		}
		free(ref);
		snprintf(c->note, sizeof c->note, "%d rows vs FP64, every element vs naive", a->nref);
	} else {
		const uint16_t *o = out;
		long long unw = 0;
		for (size_t i = 0; i < cnt; i++)
			unw += o[i] == 0xFFFF;
		if (unw) {
			c->unwritten += unw;
			c->bad += unw;
			c->ok = 0;
		}
		snprintf(c->note, sizeof c->note, "%d rows vs FP64 (no naive result to compare)", a->nref);
	}
	return GD_OK;
}

static void at_free_dev(void **p)
{
	if (*p)
		gd_labk_free(*p);
	*p = NULL;
}

static void at_release(struct at *a)
{
	at_free_dev(&a->q);
	at_free_dev(&a->k);
	at_free_dev(&a->v);
	at_free_dev(&a->o);
	at_free_dev(&a->S);
	at_free_dev(&a->vt);
	free(a->qh);
	free(a->kh);
	free(a->vh);
	free(a->qf);
	free(a->kf);
	free(a->vf);
	free(a->naive_out);
	free(a->ref_rows);
	free(a->ref);
	a->qh = a->kh = a->vh = a->naive_out = NULL;
	a->qf = a->kf = a->vf = NULL;
	a->ref_rows = NULL;
	a->ref = NULL;
}

static int at_malloc(struct at *a, void **p, size_t bytes, const char *what)
{
	int e = gd_labk_malloc(p, bytes);
	char b[32];
	if (e) {
		*p = NULL;
		return gd_error(GD_EFAIL, "lab attention: cannot allocate %s for %s: %s",
				gd_fmt_bytes(b, sizeof b, (double)bytes), what, gd_labk_error(e));
	}
	return GD_OK;
}

/* Inputs and the reference for one shape. */
static int at_prepare(struct at *a)
{
	const size_t cnt = (size_t)a->bh * a->s.l * a->s.d, bytes = cnt * 2;
	const int L = a->s.l, D = a->s.d;
	uint64_t seed = 0xa77e0000u + (uint64_t)L * 131 + (uint64_t)D * 7 + (uint64_t)a->s.causal;
	int rc;
	if ((rc = at_malloc(a, &a->q, bytes, "Q")) || (rc = at_malloc(a, &a->k, bytes, "K")) ||
	    (rc = at_malloc(a, &a->v, bytes, "V")) || (rc = at_malloc(a, &a->o, bytes, "O")))
		return rc;
	a->qh = malloc(bytes);
	a->kh = malloc(bytes);
	a->vh = malloc(bytes);
	a->naive_out = malloc(bytes);
	/* the reference reads only the first and last head: keep floats of those */
	a->qf = malloc(sizeof(float) * 2 * (size_t)L * D);
	a->kf = malloc(sizeof(float) * 2 * (size_t)L * D);
	a->vf = malloc(sizeof(float) * 2 * (size_t)L * D);
	int per_head = L <= AT_REF_FULL_L ? L : AT_REF_ROWS;
	a->nref = 2 * per_head;
	a->ref_rows = malloc(sizeof(int) * (size_t)a->nref);
	a->ref = malloc(sizeof(double) * (size_t)a->nref * D);
	double *p = malloc(sizeof(double) * (size_t)L);
	if (!a->qh || !a->kh || !a->vh || !a->naive_out || !a->qf || !a->kf || !a->vf || !a->ref_rows || !a->ref || !p) {
		free(p);
		return gd_error(GD_EFAIL, "lab attention: out of host memory");
	}
	/* q, k ~ U(-2, 2) so the softmax is far from uniform; v ~ U(-1, 1) */
	gd_lab_rand_fill(a->qh, cnt, GD_DT_BF16, -2, 2, &seed);
	gd_lab_rand_fill(a->kh, cnt, GD_DT_BF16, -2, 2, &seed);
	gd_lab_rand_fill(a->vh, cnt, GD_DT_BF16, -1, 1, &seed);
	a->ref_heads[0] = 0;
	a->ref_heads[1] = a->bh - 1;
	for (int hh = 0; hh < 2; hh++) {
		size_t src = (size_t)a->ref_heads[hh] * L * D, dst = (size_t)hh * L * D;
		for (size_t i = 0; i < (size_t)L * D; i++) {
			a->qf[dst + i] = gd_bf16_to_f32(a->qh[src + i]);
			a->kf[dst + i] = gd_bf16_to_f32(a->kh[src + i]);
			a->vf[dst + i] = gd_bf16_to_f32(a->vh[src + i]);
		}
	}
	for (int i = 0; i < a->nref; i++) {
		int hh = i / per_head, j = i % per_head;
		int row = per_head == L ? j : (int)((long long)j * (L - 1) / (per_head - 1));
		a->ref_rows[i] = row;
		gd_attn_ref_row(a->qf, a->kf, a->vf, a->ref + (size_t)i * D, L, D, a->s.causal, a->scale, hh, row, p);
	}
	free(p);
	a->naive_ok = 0;
	if ((rc = gd_lab_upload(a->q, a->qh, bytes)) || (rc = gd_lab_upload(a->k, a->kh, bytes)) ||
	    (rc = gd_lab_upload(a->v, a->vh, bytes)))
		return rc;
	return GD_OK;
}

/* Runs every kernel once on a tiny shape before anything is measured: CUDA loads kernels
 * lazily, and a first launch inside a measurement would show the loaded code as that
 * variant's VRAM. */
static int at_warm(struct at *a, const struct gd_attn_cfg *cfg, int flash_ok, int wgmma_ok)
{
	struct at w = *a;
	char why[256] = "";
	int rc = GD_OK;
	const size_t bytes = 128 * 128 * 2;
	w.q = w.k = w.v = w.o = w.S = w.vt = NULL;
	if ((rc = at_malloc(&w, &w.q, bytes, "warm-up")) || (rc = at_malloc(&w, &w.k, bytes, "warm-up")) ||
	    (rc = at_malloc(&w, &w.v, bytes, "warm-up")) || (rc = at_malloc(&w, &w.o, bytes, "warm-up")) ||
	    (rc = at_malloc(&w, &w.S, bytes, "warm-up")) || (rc = at_malloc(&w, &w.vt, bytes, "warm-up")))
		goto out;
	gd_labk_poison(w.q, bytes, 0);
	gd_labk_poison(w.k, bytes, 0);
	gd_labk_poison(w.v, bytes, 0);
	w.bh = 1;
	w.scale = 0.125f;
	for (int di = 0; di < cfg->ndims && rc == GD_OK; di++)
		for (int ci = 0; ci < cfg->ncausal && rc == GD_OK; ci++) {
			w.s = (struct gd_attn_shape){1, 1, 128, cfg->dims[di], cfg->causal[ci]};
			rc = launch_naive(&w, 0, why, sizeof why);
			if (rc == GD_OK && flash_ok)
				rc = launch_flash(&w, 0, why, sizeof why);
			if (rc == GD_OK && flash_ok)
				rc = launch_flash32(&w, 0, why, sizeof why);
			if (rc == GD_OK && wgmma_ok)
				rc = launch_flash_wgmma(&w, 0, why, sizeof why);
		}
	if (rc == GD_OK && gd_labk_sync())
		snprintf(why, sizeof why, "%s", gd_labk_error(gd_labk_sync()));
	if (rc != GD_OK)
		rc = gd_error(rc, "lab attention: warm-up: %s", why);
out:
	at_release(&w);
	return rc;
}

static void group_name(char *b, size_t n, const char *variant, int d, int causal)
{
	snprintf(b, n, "%s d=%d%s", variant, d, causal ? " causal" : "");
}

static int at_shape(struct at *a, int flash_ok, int wgmma_ok, unsigned long long avail)
{
	struct gd_lab_run *r = a->r;
	const int L = a->s.l, D = a->s.d;
	char gn[64], name[32], fm[128], b1[32], b2[32];
	int rc;
	size_t free0 = gd_lab_mem_free();
	if ((rc = at_prepare(a)))
		return rc;
	size_t free_io = gd_lab_mem_free();
	group_name(gn, sizeof gn, "naive", D, a->s.causal);
	snprintf(name, sizeof name, "L=%d", L);
	snprintf(fm, sizeof fm, "4·B·H·L²·d%s (B=%d, H=%d)", a->s.causal ? "/2" : "", a->s.b, a->s.h);
	double flops = gd_attn_flops(&a->s);
	unsigned long long need_naive = gd_attn_bytes_naive(&a->s), io = gd_attn_bytes_io(&a->s);

	/* naive: only when its model fits, with 10 % to spare */
	if ((double)(need_naive - io) < 0.9 * (double)free_io) {
		if ((rc = at_malloc(a, &a->S, (size_t)a->bh * L * L * 2, "S")) ||
		    (rc = at_malloc(a, &a->vt, (size_t)a->bh * L * D * 2, "Vᵀ")))
			return rc;
		struct gd_lab_variant v = {gn, name, L, 0, flops, fm, GD_ROOF_FLOPS_TENSOR, GD_P_BF16, 0,
					   launch_naive, a, a->o, (size_t)a->bh * L * D * 2, check_naive, {{0}}, 0};
		if ((rc = gd_lab_measure(r, &v)))
			return rc;
		size_t free_after = gd_lab_mem_free();
		struct gd_lab_result *x = &r->res[r->nres - 1];
		gd_lab_result_metric(x, "vram_measured_bytes", (double)(free0 - free_after), "B");
		gd_lab_result_metric(x, "vram_model_bytes", (double)need_naive, "B");
		gd_lab_result_metric(x, "max_len_computed", (double)gd_attn_max_len(1, a->s.b, a->s.h, D, avail), "");
		at_free_dev(&a->S);
		at_free_dev(&a->vt);
	} else {
		gd_lab_note(r, "naive d=%d%s L=%d skipped: S and Vᵀ need %s, %s free", D, a->s.causal ? " causal" : "",
			    L, gd_fmt_bytes(b1, sizeof b1, (double)(need_naive - io)),
			    gd_fmt_bytes(b2, sizeof b2, (double)free_io));
	}
	static const char *const fnames[AT_NFLASH] = {"flash", FLASH32, FLASHWG};
	int (*const fns[AT_NFLASH])(void *, long, char *, size_t) = {launch_flash, launch_flash32, launch_flash_wgmma};
	for (int fv = 0; fv < AT_NFLASH && flash_ok; fv++) {
		char gx[64];
		if (fv == 2 && !wgmma_ok)
			continue;
		if (fv == 1 && L % 128) {
			gd_lab_note(r, "%s L=%d skipped: 32 rows per warp needs L a multiple of 128", FLASH32, L);
			continue;
		}
		if (fv == 2 && L % GD_ATTN_WGMMA_L_MULTIPLE) {
			gd_lab_note(r, "%s L=%d skipped: it needs L a multiple of %d (the mma.sync kernels ran)", FLASHWG, L,
				    GD_ATTN_WGMMA_L_MULTIPLE);
			continue;
		}
		group_name(gx, sizeof gx, fnames[fv], D, a->s.causal);
		size_t before = gd_lab_mem_free();
		struct gd_lab_variant v = {gx, name, L, 0, flops, fm, GD_ROOF_FLOPS_TENSOR, GD_P_BF16, 0,
					   fns[fv], a, a->o, (size_t)a->bh * L * D * 2,
					   check_flash, {{0}}, 0};
		if ((rc = gd_lab_measure(r, &v)))
			return rc;
		size_t after = gd_lab_mem_free();
		struct gd_lab_result *x = &r->res[r->nres - 1];
		/* io as allocated, plus whatever appeared while it ran (nothing: it allocates none) */
		gd_lab_result_metric(x, "vram_measured_bytes", (double)(free0 - free_io) + (double)(before - after), "B");
		gd_lab_result_metric(x, "vram_model_bytes", (double)gd_attn_bytes_flash(&a->s), "B");
		gd_lab_result_metric(x, "max_len_computed", (double)gd_attn_max_len(0, a->s.b, a->s.h, D, avail), "");
		const struct gd_lab_result *nv = gd_lab_find_result(r, gn, name);
		if (nv && isfinite(nv->t_median) && isfinite(x->t_median))
			gd_lab_result_metric(x, "speedup_vs_naive", nv->t_median / x->t_median, "×");
	}
	at_release(a);
	return GD_OK;
}

/* Naive and flash run shape by shape (flash is checked against that shape's naive output),
 * so their results alternate; the table reads better with each group's lengths together.
 * A stable reorder by each group's first appearance. */
struct order {
	int key, idx;
};
static int cmp_order(const void *a, const void *b)
{
	const struct order *x = a, *y = b;
	return x->key != y->key ? (x->key < y->key ? -1 : 1) : (x->idx < y->idx ? -1 : x->idx > y->idx);
}
static void group_results(struct gd_lab_run *r)
{
	struct order *o = malloc(sizeof *o * (size_t)(r->nres ? r->nres : 1));
	struct gd_lab_result *tmp = malloc(sizeof *tmp * (size_t)(r->nres ? r->nres : 1));
	if (!o || !tmp) {
		free(o);
		free(tmp);
		return;
	}
	for (int i = 0; i < r->nres; i++) {
		int k = i;
		for (int j = 0; j < i; j++)
			if (!strcmp(r->res[j].group, r->res[i].group)) {
				k = j;
				break;
			}
		o[i] = (struct order){k, i};
	}
	qsort(o, (size_t)r->nres, sizeof *o, cmp_order);
	for (int i = 0; i < r->nres; i++)
		tmp[i] = r->res[o[i].idx];
	memcpy(r->res, tmp, sizeof *tmp * (size_t)r->nres);
	free(o);
	free(tmp);
}

/* batch 1, 16 heads, L 512 … 16k, d 64 and 128, causal and not */
static const struct gd_attn_cfg attn_default = {1, 16, {512, 1024, 2048, 4096, 8192, 16384}, 6, {64, 128}, 2, {0, 1}, 2};

/* The shapes: --quick, --size (the largest L) and --shape or the variable on top of cfg. */
static int attention_config(struct gd_lab_run *r, struct gd_attn_cfg *cfg)
{
	char why[256] = "";
	if (r->quick) {
		cfg->heads = 4;
		cfg->nlens = 2;
	}
	if (r->size > 0) {
		long long lim = r->size;
		cfg->nlens = 0;
		for (long long l = 512; l <= lim && cfg->nlens < GD_ATTN_MAX_LENS; l *= 2)
			cfg->lens[cfg->nlens++] = l;
		if (!cfg->nlens || lim % 64)
			return gd_error(GD_EUSAGE, "lab attention: --size (the largest L) must be a multiple of 64, at least 512");
	}
	if (gd_attn_parse_cfg(r->shape ? r->shape : getenv("GPUDIAG_LAB_ATTENTION"), cfg, why, sizeof why))
		return gd_error(GD_EUSAGE, "lab attention: %s", why);
	return GD_OK;
}

/* What this device and binary can run (cuBLASLt for naive's products, the mma.sync flash
 * kernels, the wgmma one); each thing missing is a note. */
static void attention_caps(struct gd_lab_run *r, struct at *a, int *flash_ok, int *wgmma_ok)
{
	char why[256] = "";
	a->use_blaslt = gd_blaslt_open(why, sizeof why) == GD_OK;
	if (!a->use_blaslt)
		gd_lab_note(r, "cuBLASLt unavailable (%s): the naive path's two products run on CUDA cores", why);
	*flash_ok = r->dev.cc_major >= 8;
	if (!*flash_ok)
		gd_lab_note(r, "the flash kernel needs compute capability 8.0 (BF16 mma.sync, cp.async): not run");
	/* wgmma exists only on sm_90a code, which runs on cc 9.0 alone */
	*wgmma_ok = *flash_ok && r->dev.cc_major == 9 && r->dev.cc_minor == 0 && gd_attn_flash_wgmma_built();
	if (!*wgmma_ok)
		gd_lab_note(r, "%s not available: %s", FLASHWG,
			    !gd_attn_flash_wgmma_built() ? "this binary holds no sm_90a code"
							 : "wgmma needs compute capability 9.0 (sm_90a code)");
}

/* What the variants are, how VRAM is counted (avail: free memory at the start), the checks. */
static void attention_notes(struct gd_lab_run *r, const struct gd_attn_cfg *cfg, int wgmma_ok,
			    unsigned long long avail)
{
	char b1[32], cfgs[96] = "";
	if (wgmma_ok)
		snprintf(cfgs, sizeof cfgs, "%s at d = 64, %s at d = 128", gd_attn_flash_wgmma_config(64),
			 gd_attn_flash_wgmma_config(128));
	gd_lab_note(r, "B=%d, H=%d, BF16, scale 1/√d; naive = transpose V, per-head cuBLASLt S = Q·Kᵀ (BF16 S for "
		       "all heads in VRAM), softmax in place, per-head P·V; flash = one kernel, mma.sync m16n8k16, "
		       "64 query rows × 64-key tiles (128 rows for flash 2×m16), online softmax in FP32%s%s",
		    cfg->batch, cfg->heads,
		    wgmma_ok ? "; flash wgmma = one kernel, wgmma.mma_async (sm_90a), P·V with P from registers, "
			       "configuration (key tile; wg: consumer warpgroups; ov: softmax overlapped with the previous "
			       "tile's P·V; wsN: warp-specialised, a producer warpgroup feeding N-stage mbarrier rings, "
			       "overlapped; pp: consumer ping-pong) "
			     : "",
		    wgmma_ok ? cfgs : "");
	gd_lab_note(r, "VRAM: measured = free memory (cudaMemGetInfo) before the shape's buffers minus after the "
		       "variant ran; model = Q,K,V,O (+ S and Vᵀ for naive); max_len_computed = largest L (multiple "
		       "of 64) whose model fits in the %s free at the start (computed, not run)",
		    gd_fmt_bytes(b1, sizeof b1, (double)avail));
	gd_lab_note(r, "checks: FP64 CPU reference on every row of the first and last head up to L=%d, on %d rows "
		       "of each beyond; flash also against naive on every element",
		    AT_REF_FULL_L, AT_REF_ROWS);
}

/* Every shape, head dim by causal by length, until one fails. */
static int attention_shapes(struct at *a, const struct gd_attn_cfg *cfg, int flash_ok, int wgmma_ok,
			    unsigned long long avail)
{
	int rc = GD_OK;
	for (int di = 0; di < cfg->ndims && rc == GD_OK; di++)
		for (int ci = 0; ci < cfg->ncausal && rc == GD_OK; ci++)
			for (int li = 0; li < cfg->nlens && rc == GD_OK; li++) {
				a->s = (struct gd_attn_shape){cfg->batch, cfg->heads, (int)cfg->lens[li], cfg->dims[di], cfg->causal[ci]};
				a->bh = cfg->batch * cfg->heads;
				a->scale = (float)(1.0 / sqrt((double)a->s.d));
				rc = at_shape(a, flash_ok, wgmma_ok, avail);
				at_release(a);
			}
	return rc;
}

/* chart: TFLOP/s against L, one series per variant and shape */
static void attention_chart(struct gd_lab_run *r, const struct gd_attn_cfg *cfg, int wgmma_ok)
{
	struct gd_lab_chart ch = {"Attention forward: naive vs flash", "sequence length L", "GFLOP/s", 1, 0,
				  GD_LAB_Y_GFLOPS, NULL, {0}, 0, 0};
	static char names[GD_LAB_MAX_CHART_GROUPS][64];
	static const char *const kinds[1 + AT_NFLASH] = {"naive", "flash", FLASH32, FLASHWG};
	for (int di = cfg->ndims - 1; di >= 0; di--) /* the larger head dim first */
		for (int ci = 0; ci < cfg->ncausal; ci++)
			for (int f = 0; f < 1 + AT_NFLASH && ch.ngroups < GD_LAB_MAX_CHART_GROUPS; f++) {
				if (f == 3 && !wgmma_ok)
					continue;
				group_name(names[ch.ngroups], sizeof names[0], kinds[f], cfg->dims[di], cfg->causal[ci]);
				ch.groups[ch.ngroups] = names[ch.ngroups];
				ch.ngroups++;
			}
	gd_lab_set_chart(r, &ch);
}

/* Below the 5× the guide's table suggests: say what bounds it. Naive's
 * L²-sized traffic (S written, read and written by the softmax, read by
 * P·V: 8·B·H·L² bytes) runs at the copy ceiling at best and its GEMMs are
 * cuBLASLt's; flash at the BF16 tensor peak is the most it could gain. */
static void attention_verdict_bound(struct gd_lab_run *r, const struct gd_attn_cfg *cfg, int li,
				    const struct gd_lab_result *nv, const struct gd_lab_result *fl)
{
	const double ratio = nv->t_median / fl->t_median;
	if (ratio < 5 && fl->flops > 0) {
		struct gd_lab_ceiling cc, tc;
		gd_lab_ceiling(r, GD_ROOF_DRAM_COPY, GD_P_BF16, &cc);
		gd_lab_ceiling(r, GD_ROOF_FLOPS_TENSOR, GD_P_BF16, &tc);
		const double l2b = 8.0 * cfg->batch * cfg->heads * (double)cfg->lens[li] * (double)cfg->lens[li];
		char lb[32], t3[32], t4[32];
		gd_fmt_bytes(lb, sizeof lb, l2b);
		if (isfinite(cc.value) && cc.value > 0)
			gd_fmt_time(t3, sizeof t3, l2b / cc.value * 1e9);
		else
			snprintf(t3, sizeof t3, "unknown");
		if (isfinite(tc.value) && tc.value > 0)
			snprintf(t4, sizeof t4, "%.1f×", nv->t_median / (fl->flops / tc.value));
		else
			snprintf(t4, sizeof t4, "unknown");
		gd_lab_verdict(r, "§9",
			       "%s, L=%lld: %.1f× is below 5×: 5× would need flash at %.3g TFLOP/s. Naive's "
			       "O(L²) traffic is %s (≥ %s at the %s DRAM copy ceiling) and its two GEMMs are "
			       "cuBLASLt's, near the tensor peak; even flash at the %s BF16 tensor peak would "
			       "be only %s faster than this naive run.",
			       fl->group, cfg->lens[li], ratio, 5 * fl->flops / nv->t_median / 1e12, lb, t3,
			       cc.source, tc.source, t4);
	}
}

/* verdicts for one head dim and causality: the longest L naive and a flash variant both ran
 * at; the faster flash variant that passed its check speaks */
static void attention_verdict_shape(struct gd_lab_run *r, const struct gd_attn_cfg *cfg, int di, int ci)
{
	char gn[64], gf[64], name[32];
	static const char *const fk[AT_NFLASH] = {"flash", FLASH32, FLASHWG};
	group_name(gn, sizeof gn, "naive", cfg->dims[di], cfg->causal[ci]);
	for (int li = cfg->nlens - 1; li >= 0; li--) {
		snprintf(name, sizeof name, "L=%lld", cfg->lens[li]);
		const struct gd_lab_result *nv = gd_lab_find_result(r, gn, name), *fl = NULL;
		for (int f = 0; f < AT_NFLASH; f++) {
			group_name(gf, sizeof gf, fk[f], cfg->dims[di], cfg->causal[ci]);
			const struct gd_lab_result *x = gd_lab_find_result(r, gf, name);
			if (x && x->check.ok && isfinite(x->t_median) && (!fl || x->t_median < fl->t_median))
				fl = x;
		}
		if (!nv || !fl || !isfinite(nv->t_median))
			continue;
		char t1[32], t2[32], m1[32], m2[32];
		double mn = NAN, mf = NAN;
		for (int k = 0; k < nv->nmetrics; k++)
			if (!strcmp(nv->metric_keys[k], "vram_measured_bytes"))
				mn = nv->metric_values[k];
		for (int k = 0; k < fl->nmetrics; k++)
			if (!strcmp(fl->metric_keys[k], "vram_measured_bytes"))
				mf = fl->metric_values[k];
		gd_lab_verdict(r, "§9",
			       "%s, L=%lld: %s vs naive %s (%.1f× faster, %.0f vs %.0f TFLOP/s, %s); VRAM %s vs %s "
			       "— naive keeps the B·H·L² score matrix, flash only Q, K, V, O.",
			       fl->group, cfg->lens[li], gd_fmt_time(t1, sizeof t1, fl->t_median * 1e9),
			       gd_fmt_time(t2, sizeof t2, nv->t_median * 1e9), nv->t_median / fl->t_median,
			       fl->gflops / 1e3, nv->gflops / 1e3, strstr(fl->group, "wgmma") ? "wgmma" : "mma.sync",
			       gd_fmt_bytes(m1, sizeof m1, mf),
			       gd_fmt_bytes(m2, sizeof m2, mn));
		attention_verdict_bound(r, cfg, li, nv, fl);
		break;
	}
}

static int attention_run(struct gd_lab_run *r)
{
	struct at a;
	struct gd_attn_cfg cfg = attn_default;
	int rc = GD_OK, flash_ok, wgmma_ok;
	memset(&a, 0, sizeof a);
	a.r = r;
	if ((rc = attention_config(r, &cfg)))
		return rc;
	attention_caps(r, &a, &flash_ok, &wgmma_ok);
	a.ws_bytes = 32u << 20;
	if ((rc = gd_lab_alloc(r, &a.ws, a.ws_bytes, "cuBLASLt workspace")))
		return rc;
	if ((rc = at_warm(&a, &cfg, flash_ok, wgmma_ok)))
		return rc;
	unsigned long long avail = gd_lab_mem_free();
	attention_notes(r, &cfg, wgmma_ok, avail);
	rc = attention_shapes(&a, &cfg, flash_ok, wgmma_ok, avail);

	group_results(r);
	attention_chart(r, &cfg, wgmma_ok);
	for (int di = 0; di < cfg.ndims; di++)
		for (int ci = 0; ci < cfg.ncausal; ci++)
			attention_verdict_shape(r, &cfg, di, ci);
	return rc;
}

static int attention_check_shape(const char *spec, char *why, size_t n)
{
	struct gd_attn_cfg cfg = attn_default;
	return gd_attn_parse_cfg(spec, &cfg, why, n) ? -1 : 0;
}

const struct gd_lab gd_lab_attention = {
	"attention", "§9 §4", "attention forward: naive (L×L in VRAM) vs a FlashAttention-style kernel",
	"Attention forward in BF16 (B=1, 16 heads, L 512…16k, head dim 64 and 128, causal and not):\n"
	"  naive: S = Q·Kᵀ (cuBLASLt) and P = softmax(S) written to VRAM, then O = P·V;\n"
	"  flash: one kernel, 64×64 tiles, online softmax, tensor cores through mma.sync, never\n"
	"         writing the L×L matrix;\n"
	"  flash wgmma (compute capability 9.0 only): the same algorithm with Hopper's wgmma,\n"
	"         warp-specialised (a producer warpgroup feeds two consumer warpgroups through\n"
	"         mbarrier rings), 128 query rows × 128-key tiles, L a multiple of 128.\n"
	"Reports time, TFLOP/s (4·B·H·L²·d, halved when causal), VRAM measured with cudaMemGetInfo\n"
	"and from the memory model, and the largest L each fits in this card's free memory\n"
	"(computed). Checks: FP64 CPU reference on rows of the first and last head; flash against\n"
	"naive on every element.\n"
	"Shapes: --size sets the largest L; --shape \"lens=512..16k;heads=16;batch=1;dims=64,128;\n"
	"causal=both\" sets any of them (also read from GPUDIAG_LAB_ATTENTION when --shape is absent).\n",
	attention_run,
	attention_check_shape,
	512, 16LL << 20, 64, /* --size: the range (and step) the run itself requires */
	" (the largest L)",
};
