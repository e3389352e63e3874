/* CPU tier: the whole host flow of `lab fusion` and `lab attention` — allocation, rotation,
 * chunking, the harness's check/time loop, the checks' tolerances, VRAM accounting, metrics
 * and verdicts — run against CPU stand-ins for every GPU entry point they call.
 *
 * This file defines the kernels' and the harness's extern "C" entry points itself (device
 * memory = host memory, kernels = plain C in FP32 with BF16 storage, events = the host
 * clock), so the linker takes these instead of the CUDA objects. The stand-ins compute the
 * same thing the kernels do at FP32 precision; a deliberately corrupted stand-in shows the
 * checks catch a wrong element. */
#include "core/status.h"
#include "core/test.h"
#include "gpu/blaslt.h"
#include "kernels/lab_attention.h"
#include "kernels/lab_fusion.h"
#include "kernels/lab_harness.h"
#include "lab/lab.h"
#include "lab/lab_attention.h"
#include "lab/lab_fusion.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ------------------------------------------------------------ harness stand-ins */

static size_t sim_total = 64ull << 30, sim_used;
struct blk {
	void *p;
	size_t n;
};
static struct blk blks[256];
static int nblks;

const char *gd_labk_error(int code) { return code ? "simulated error" : "no error"; }
int gd_labk_set_device(int dev) { return 0; }
int gd_labk_malloc(void **p, size_t bytes)
{
	if (nblks == 256 || sim_used + bytes > sim_total)
		return 2;
	*p = malloc(bytes);
	if (!*p)
		return 2;
	blks[nblks++] = (struct blk){*p, bytes};
	sim_used += bytes;
	return 0;
}
int gd_labk_free(void *p)
{
	for (int i = 0; i < nblks; i++)
		if (blks[i].p == p) {
			sim_used -= blks[i].n;
			blks[i] = blks[--nblks];
			free(p);
			return 0;
		}
	return 1;
}
int gd_labk_h2d(void *dst, const void *src, size_t bytes) { memcpy(dst, src, bytes); return 0; }
int gd_labk_d2h(void *dst, const void *src, size_t bytes) { memcpy(dst, src, bytes); return 0; }
int gd_labk_poison(void *p, size_t bytes, int byte) { memset(p, byte, bytes); return 0; }
int gd_labk_sync(void) { return 0; }
int gd_labk_last_error(void) { return 0; }
int gd_labk_mem_info(size_t *free_b, size_t *total_b)
{
	*free_b = sim_total - sim_used;
	*total_b = sim_total;
	return 0;
}
static double host_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}
int gd_labk_events_create(void **ev, int n)
{
	for (int i = 0; i < n; i++)
		ev[i] = calloc(1, sizeof(double));
	return 0;
}
int gd_labk_event_record(void *ev) { *(double *)ev = host_s(); return 0; }
int gd_labk_event_query(void *ev) { return 0; }
int gd_labk_event_sync(void *ev) { return 0; }
int gd_labk_event_elapsed(void *start, void *stop, float *ms)
{
	*ms = (float)((*(double *)stop - *(double *)start) * 1e3);
	return 0;
}
void gd_labk_events_destroy(void **ev, int n)
{
	for (int i = 0; i < n; i++)
		free(ev[i]);
}

/* ------------------------------------------------------------ kernel stand-ins */

static float bf(uint16_t v) { return gd_bf16_to_f32(v); }
static uint16_t tobf(float f) { return gd_f32_to_bf16(f); }
static float gelu_f(float x) { return 0.5f * x * (1.f + erff(x * 0.70710678f)); }
static int corrupt;      /* 1: the next kernel output gets one wrong element */
static int corrupt_skip; /* ... after this many corruptible calls have passed */
static void maybe_corrupt(uint16_t *o, size_t n)
{
	if (corrupt && corrupt_skip > 0) {
		corrupt_skip--;
		return;
	}
	if (corrupt) {
		o[n / 2] = tobf(bf(o[n / 2]) + 1.0f);
		corrupt = 0;
	}
}

int gd_fu_layernorm(const void *x, const float *gamma, const float *beta, void *y, int rows,
		    int hidden, float eps, int gelu, void *stream, char *why, size_t n)
{
	const uint16_t *xi = x;
	uint16_t *yo = y;
	if (hidden % 8 || hidden > GD_FU_MAX_HIDDEN)
		return GD_EUSAGE;
	for (int r = 0; r < rows; r++) {
		float mean = 0, var = 0;
		for (int c = 0; c < hidden; c++)
			mean += bf(xi[(size_t)r * hidden + c]);
		mean /= hidden;
		for (int c = 0; c < hidden; c++) {
			float d = bf(xi[(size_t)r * hidden + c]) - mean;
			var += d * d;
		}
		float rstd = 1.f / sqrtf(var / hidden + eps);
		for (int c = 0; c < hidden; c++) {
			float v = (bf(xi[(size_t)r * hidden + c]) - mean) * rstd * gamma[c] + beta[c];
			yo[(size_t)r * hidden + c] = tobf(gelu ? gelu_f(v) : v);
		}
	}
	maybe_corrupt(yo, (size_t)rows * hidden);
	return GD_OK;
}

int gd_fu_elementwise(const void *x, void *y, long long count, int op, float a, float b, float c,
		      void *stream, char *why, size_t n)
{
	const uint16_t *xi = x;
	uint16_t *yo = y;
	for (long long i = 0; i < count; i++) {
		float v = bf(xi[i]);
		switch (op) {
		case GD_FU_MUL_A: v *= a; break;
		case GD_FU_ADD_B: v += b; break;
		case GD_FU_GELU: v = gelu_f(v); break;
		case GD_FU_MUL_C: v *= c; break;
		default: v = gelu_f(v * a + b) * c; break;
		}
		yo[i] = tobf(v);
	}
	maybe_corrupt(yo, (size_t)count);
	return GD_OK;
}

static int corrupt_copy; /* 1: the next copy gets one wrong element */
int gd_fu_copy(const void *x, void *y, size_t bytes, void *stream, char *why, size_t n)
{
	memcpy(y, x, bytes);
	if (corrupt_copy) {
		((uint16_t *)y)[bytes / 4] ^= 1;
		corrupt_copy = 0;
	}
	return GD_OK;
}

int gd_fu_gelu(const void *x, void *y, long long count, void *stream, char *why, size_t n)
{
	return gd_fu_elementwise(x, y, count, GD_FU_GELU, 0, 0, 0, stream, why, n);
}

static int gemms;
int gd_blaslt_open(char *why, size_t n) { return GD_OK; }
void gd_blaslt_close(void) {}
int gd_gemm_run(const struct gd_gemm *g, char *why, size_t n)
{
	const uint16_t *a = g->a, *b = g->b;
	uint16_t *c = g->c;
	if (g->prec != GD_P_BF16)
		return GD_ENOGPU;
	gemms++;
	for (int i = 0; i < g->m; i++)
		for (int j = 0; j < g->n; j++) {
			float acc = 0;
			for (int k = 0; k < g->k; k++)
				acc += bf(a[(size_t)i * g->k + k]) * bf(b[(size_t)j * g->k + k]);
			c[(size_t)i * g->n + j] = tobf(acc);
		}
	return GD_OK;
}

size_t gd_attn_flash_smem(int d, int rows_per_warp) { return 0; }

static int flash_calls;
int gd_attn_flash(const void *q, const void *k, const void *v, void *o, int bh, int l, int d,
		  int causal, float scale, int rows_per_warp, void *stream, char *why, size_t n)
{
	const uint16_t *Q = q, *K = k, *V = v;
	uint16_t *O = o;
	float *p = malloc(sizeof(float) * (size_t)l), *acc = malloc(sizeof(float) * (size_t)d);
	if (l % (4 * rows_per_warp)) {
		free(p);
		free(acc);
		snprintf(why, n, "L not a multiple of the block rows");
		return GD_EUSAGE;
	}
	flash_calls++;
	for (int h = 0; h < bh; h++)
		for (int i = 0; i < l; i++) {
			int last = causal ? i : l - 1;
			float mx = -INFINITY, sum = 0;
			for (int j = 0; j <= last; j++) {
				float s = 0;
				for (int c = 0; c < d; c++)
					s += bf(Q[((size_t)h * l + i) * d + c]) * bf(K[((size_t)h * l + j) * d + c]);
				p[j] = s * scale;
				mx = fmaxf(mx, p[j]);
			}
			for (int c = 0; c < d; c++)
				acc[c] = 0;
			for (int j = 0; j <= last; j++) {
				float e = expf(p[j] - mx);
				sum += e;
				float eb = bf(tobf(e)); /* P is BF16 for the second mma */
				for (int c = 0; c < d; c++)
					acc[c] += eb * bf(V[((size_t)h * l + j) * d + c]);
			}
			for (int c = 0; c < d; c++)
				O[((size_t)h * l + i) * d + c] = tobf(acc[c] / sum);
		}
	free(p);
	free(acc);
	maybe_corrupt(O, (size_t)bh * l * d);
	return GD_OK;
}

/* The Hopper kernel's stand-in: its own length rule, then the same CPU attention (and the
 * same corruption counter) as gd_attn_flash. */
static int wgmma_calls;
int gd_attn_flash_wgmma(const void *q, const void *k, const void *v, void *o, int bh, int l, int d, int causal,
			float scale, void *stream, char *why, size_t n)
{
	if (l % GD_ATTN_WGMMA_L_MULTIPLE) {
		snprintf(why, n, "L not a multiple of %d", GD_ATTN_WGMMA_L_MULTIPLE);
		return GD_EUSAGE;
	}
	wgmma_calls++;
	return gd_attn_flash(q, k, v, o, bh, l, d, causal, scale, 16, stream, why, n);
}
size_t gd_attn_flash_wgmma_smem(int d) { return 0; }
int gd_attn_flash_wgmma_built(void) { return 1; }
const char *gd_attn_flash_wgmma_config(int d) { return d == 64 ? "sim64" : "sim"; }

int gd_attn_softmax_rows(void *s, int bh, int l, int causal, float scale, void *stream, char *why, size_t n)
{
	uint16_t *S = s;
	for (size_t r = 0; r < (size_t)bh * l; r++) {
		uint16_t *row = S + r * l;
		int last = causal ? (int)(r % l) : l - 1;
		float mx = -INFINITY, sum = 0;
		for (int j = 0; j <= last; j++)
			mx = fmaxf(mx, bf(row[j]) * scale);
		for (int j = 0; j <= last; j++)
			sum += expf(bf(row[j]) * scale - mx);
		for (int j = 0; j < l; j++)
			row[j] = tobf(j <= last ? expf(bf(row[j]) * scale - mx) / sum : 0.f);
	}
	return GD_OK;
}

int gd_attn_transpose(const void *v, void *vt, int bh, int l, int d, void *stream, char *why, size_t n)
{
	const uint16_t *V = v;
	uint16_t *T = vt;
	for (int h = 0; h < bh; h++)
		for (int i = 0; i < l; i++)
			for (int c = 0; c < d; c++)
				T[(size_t)h * l * d + (size_t)c * l + i] = V[(size_t)h * l * d + (size_t)i * d + c];
	return GD_OK;
}

int gd_attn_qk_simt(const void *q, const void *k, void *s, int bh, int l, int d, void *stream, char *why, size_t n)
{
	return GD_EFAIL; /* not reached: cuBLASLt "is present" */
}
int gd_attn_pv_simt(const void *p, const void *vt, void *o, int bh, int l, int d, void *stream, char *why, size_t n)
{
	return GD_EFAIL;
}

/* ------------------------------------------------------------ the tests */

extern const struct gd_lab gd_lab_fusion, gd_lab_attention;

static double metric(const struct gd_lab_result *x, const char *key)
{
	for (int i = 0; x && i < x->nmetrics; i++)
		if (!strcmp(x->metric_keys[i], key))
			return x->metric_values[i];
	return NAN;
}

static void test_fusion(void)
{
	struct gd_lab_run r;
	gd_lab_run_init(&r, &gd_lab_fusion);
	r.runs = 10;
	r.target_sample_s = 1e-9; /* one launch per sample: the stand-ins are slow */
	/* an "L2" of 128 rows × 4: variant 3 runs a 128-row chunk and a 64-row tail */
	r.dev.l2_bytes = 128 * 264 * 2 * 4;
	/* --shape wins over the variable (which here would be a usage error) */
	r.shape = "tokens=192,hidden=264,out=72,chain=4000";
	setenv("GPUDIAG_LAB_FUSION", "hidden=12", 1);
	int rc = gd_lab_fusion.run(&r);
	CHECK_INT(rc, GD_OK);
	CHECK_INT(r.nres, 10);
	for (int i = 0; i < r.nres; i++) {
		if (!r.res[i].check.ok)
			fprintf(stderr, "fusion %s/%s: check failed, %lld bad of %lld, max abs %g (%s)\n", r.res[i].group,
				r.res[i].name, r.res[i].check.bad, r.res[i].check.checked, r.res[i].check.max_abs_err,
				r.res[i].check.note);
		CHECK(r.res[i].check.ok);
		CHECK(isfinite(r.res[i].t_median));
	}
	const struct gd_lab_result *lg = gd_lab_find_result(&r, "parts", "LayerNorm+GeLU fused");
	CHECK(lg != NULL);
	if (lg)
		CHECK_NEAR(lg->bytes, 2.0 * 192 * 264 * 2 + 2 * 264 * 4, 0);
	/* the same-bytes copy anchor: counted as LN's bytes less γ, β; the memory-bound parts carry
	 * their fraction of it, and the LN+GeLU verdict names it */
	const struct gd_lab_result *cp = gd_lab_find_result(&r, "parts", "copy, same bytes (driver D2D)");
	CHECK(cp != NULL);
	if (cp && lg) {
		CHECK_NEAR(cp->bytes, 2.0 * 192 * 264 * 2, 0);
		CHECK_NEAR(metric(lg, "fraction_of_same_bytes_copy"), lg->gbps / cp->gbps, 1e-12);
		int named = 0;
		for (int i = 0; i < r.nverdicts; i++)
			named += strstr(r.verdicts[i].text, "of the driver's copy of the same bytes") != NULL;
		CHECK_INT(named, 1);
	}
	const struct gd_lab_result *v3 = gd_lab_find_result(&r, "LN → GeLU → Linear", "3 L2-chunked LN+GeLU→GEMM");
	CHECK(v3 && isfinite(metric(v3, "speedup_vs_unfused")));
	CHECK(r.nverdicts >= 4);
	CHECK_INT(r.check_failed, 0);
	if (getenv("SIM_SHOW")) {
		gd_lab_print_table(&r, stdout);
		gd_lab_write_json(&r, stdout);
	}
	gd_lab_run_free(&r);
	CHECK_INT(sim_used, 0); /* the harness freed everything */

	/* one wrong element in the fused LN+GeLU output fails exactly that check */
	gd_lab_run_init(&r, &gd_lab_fusion);
	r.runs = 10;
	r.target_sample_s = 1e-9; /* one launch per sample: the stand-ins are slow */
	setenv("GPUDIAG_LAB_FUSION", "tokens=64,hidden=64,out=64,chain=800", 1);
	corrupt = 0;
	/* corrupt the third kernel call of the run: LN (check), ... is fragile; instead corrupt
	 * on the first call, which is the LayerNorm variant's check run */
	corrupt = 1;
	rc = gd_lab_fusion.run(&r);
	CHECK_INT(rc, GD_OK);
	const struct gd_lab_result *ln = gd_lab_find_result(&r, "parts", "LayerNorm");
	CHECK(ln && !ln->check.ok && ln->check.bad == 1);
	lg = gd_lab_find_result(&r, "parts", "LayerNorm+GeLU fused");
	CHECK(lg && lg->check.ok);
	CHECK_INT(r.check_failed, 1);
	gd_lab_run_free(&r);

	/* a copy that changes one element fails its own check, and then no fraction of it is given */
	gd_lab_run_init(&r, &gd_lab_fusion);
	r.runs = 10;
	r.target_sample_s = 1e-9;
	corrupt_copy = 1;
	rc = gd_lab_fusion.run(&r);
	CHECK_INT(rc, GD_OK);
	cp = gd_lab_find_result(&r, "parts", "copy, same bytes (driver D2D)");
	CHECK(cp && !cp->check.ok && cp->check.bad == 1);
	lg = gd_lab_find_result(&r, "parts", "LayerNorm+GeLU fused");
	CHECK(lg && lg->check.ok && !isfinite(metric(lg, "fraction_of_same_bytes_copy")));
	CHECK_INT(r.check_failed, 1);
	gd_lab_run_free(&r);

	/* bad sizes are a usage error naming the key */
	gd_set_quiet(1);
	gd_lab_run_init(&r, &gd_lab_fusion);
	setenv("GPUDIAG_LAB_FUSION", "hidden=12", 1);
	CHECK_INT(gd_lab_fusion.run(&r), GD_EUSAGE);
	gd_lab_run_free(&r);
	unsetenv("GPUDIAG_LAB_FUSION");
}

static void test_attention(void)
{
	struct gd_lab_run r;
	gd_lab_run_init(&r, &gd_lab_attention);
	r.runs = 10;
	r.target_sample_s = 1e-9; /* one launch per sample: the stand-ins are slow */
	r.dev.cc_major = 9;
	r.dev.cc_minor = 0; /* an H100/H200: the wgmma variant runs too */
	setenv("GPUDIAG_LAB_ATTENTION", "lens=64,128;heads=2;batch=1;dims=64,128;causal=both", 1);
	int rc = gd_lab_attention.run(&r);
	CHECK_INT(rc, GD_OK);
	/* per (d, causal): naive + flash at 2 lengths, flash 2×m16 and flash wgmma at L = 128 only */
	CHECK_INT(r.nres, 4 * (2 + 2 + 1 + 1));
	CHECK(gd_lab_find_result(&r, "flash wgmma d=128 causal", "L=128") != NULL);
	CHECK(gd_lab_find_result(&r, "flash wgmma d=64", "L=64") == NULL);
	CHECK(wgmma_calls > 0);
	for (int i = 0; i < r.nres; i++) {
		if (!r.res[i].check.ok)
			fprintf(stderr, "attention %s/%s: check failed, %lld bad of %lld, max abs %g (%s)\n",
				r.res[i].group, r.res[i].name, r.res[i].check.bad, r.res[i].check.checked,
				r.res[i].check.max_abs_err, r.res[i].check.note);
		CHECK(r.res[i].check.ok);
	}
	struct gd_attn_shape s = {1, 2, 128, 128, 1};
	const struct gd_lab_result *nv = gd_lab_find_result(&r, "naive d=128 causal", "L=128");
	const struct gd_lab_result *fl = gd_lab_find_result(&r, "flash d=128 causal", "L=128");
	CHECK(nv && fl);
	/* the simulated allocator makes the measured VRAM exactly the model */
	CHECK_NEAR(metric(nv, "vram_measured_bytes"), (double)gd_attn_bytes_naive(&s), 0);
	CHECK_NEAR(metric(nv, "vram_model_bytes"), (double)gd_attn_bytes_naive(&s), 0);
	CHECK_NEAR(metric(fl, "vram_measured_bytes"), (double)gd_attn_bytes_flash(&s), 0);
	CHECK(metric(fl, "max_len_computed") > metric(nv, "max_len_computed"));
	CHECK(isfinite(metric(fl, "speedup_vs_naive")));
	CHECK_NEAR(fl ? fl->flops : 0, gd_attn_flops(&s), 0);
	CHECK(gd_lab_find_result(&r, "flash 2×m16 d=64", "L=128") != NULL);
	CHECK(gd_lab_find_result(&r, "flash 2×m16 d=64", "L=64") == NULL);
	/* one verdict per (d, causal) at L = 128, plus the "below 5×" bound wherever the faster
	 * flash variant is under 5× naive */
	int main_v = 0, bound_v = 0, below = 0;
	for (int i = 0; i < r.nverdicts; i++) {
		if (strstr(r.verdicts[i].text, "vs naive"))
			main_v++;
		if (strstr(r.verdicts[i].text, "is below 5×: 5× would need flash at"))
			bound_v++;
	}
	static const char *const shapes[4] = {"d=64", "d=64 causal", "d=128", "d=128 causal"};
	for (int k = 0; k < 4; k++) {
		char gn[64], g1[64], g2[64], g3[64];
		snprintf(gn, sizeof gn, "naive %s", shapes[k]);
		snprintf(g1, sizeof g1, "flash %s", shapes[k]);
		snprintf(g2, sizeof g2, "flash 2×m16 %s", shapes[k]);
		snprintf(g3, sizeof g3, "flash wgmma %s", shapes[k]);
		const struct gd_lab_result *a = gd_lab_find_result(&r, gn, "L=128");
		const struct gd_lab_result *b1 = gd_lab_find_result(&r, g1, "L=128");
		const struct gd_lab_result *b2 = gd_lab_find_result(&r, g2, "L=128");
		const struct gd_lab_result *b3 = gd_lab_find_result(&r, g3, "L=128");
		CHECK(a && b1 && b2 && b3);
		if (a && b1 && b2 && b3) {
			double best = b1->t_median < b2->t_median ? b1->t_median : b2->t_median;
			best = b3->t_median < best ? b3->t_median : best;
			below += a->t_median / best < 5;
		}
	}
	CHECK_INT(main_v, 4);
	CHECK_INT(bound_v, below);
	CHECK_INT(r.nverdicts, main_v + bound_v);
	CHECK_INT(r.check_failed, 0);
	if (getenv("SIM_SHOW"))
		gd_lab_print_table(&r, stdout);
	gd_lab_run_free(&r);
	CHECK_INT(sim_used, 0);

	/* a wrong element in the flash output fails its check (vs FP64 and vs naive) */
	gd_lab_run_init(&r, &gd_lab_attention);
	r.runs = 10;
	r.target_sample_s = 1e-9; /* one launch per sample: the stand-ins are slow */
	r.dev.cc_major = 9;
	r.dev.cc_minor = 0;
	setenv("GPUDIAG_LAB_ATTENTION", "lens=64;heads=1;dims=64;causal=no", 1);
	int before = flash_calls;
	(void)before;
	/* naive runs first (its kernels do not corrupt); arm the corruption for flash only */
	rc = 0;
	{
		/* naive's stand-ins never corrupt; the lab's warm-up runs flash three times (16 and
		 * 32 rows per warp, wgmma) before anything is measured; the fourth call is the check
		 * (L = 64 is no multiple of 128: the wgmma variant is skipped there) */
		corrupt = 1;
		corrupt_skip = 3;
		rc = gd_lab_attention.run(&r);
	}
	CHECK_INT(rc, GD_OK);
	fl = gd_lab_find_result(&r, "flash d=64", "L=64");
	nv = gd_lab_find_result(&r, "naive d=64", "L=64");
	CHECK(nv && nv->check.ok);
	CHECK(fl && !fl->check.ok && fl->check.bad >= 1);
	CHECK_INT(r.check_failed, 1);
	gd_lab_run_free(&r);
	unsetenv("GPUDIAG_LAB_ATTENTION");
}

int main(void)
{
	test_fusion();
	test_attention();
	printf("simulated GEMMs: %d, flash calls: %d\n", gemms, flash_calls);
	return TEST_DONE();
}
