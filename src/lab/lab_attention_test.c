/* CPU tier: the attention lab's FP64 reference, online-softmax recurrence, FLOPs, memory
 * model and length parser. */
#include "core/test.h"
#include "lab/lab_attention.h"

#include <stdlib.h>

static void test_flops_and_memory(void)
{
	struct gd_attn_shape s = {1, 16, 4096, 128, 0};
	CHECK_NEAR(gd_attn_flops(&s), 4.0 * 16 * 4096.0 * 4096 * 128, 0);
	s.causal = 1;
	CHECK_NEAR(gd_attn_flops(&s), 2.0 * 16 * 4096.0 * 4096 * 128, 0);
	s = (struct gd_attn_shape){2, 8, 1024, 64, 0};
	unsigned long long io = 4ull * 2 * 2 * 8 * 1024 * 64;
	CHECK_INT(gd_attn_bytes_io(&s), io);
	CHECK_INT(gd_attn_bytes_flash(&s), io);
	CHECK_INT(gd_attn_bytes_naive(&s), io + 2ull * 16 * 1024 * 1024 + 2ull * 16 * 1024 * 64);
	/* 16 heads at L = 16k: S alone is 8 GiB */
	s = (struct gd_attn_shape){1, 16, 16384, 128, 1};
	CHECK(gd_attn_bytes_naive(&s) - gd_attn_bytes_flash(&s) >= 8ull << 30);
	/* the largest length is exact at the boundary */
	s = (struct gd_attn_shape){1, 16, 8192, 128, 0};
	unsigned long long need = gd_attn_bytes_naive(&s);
	CHECK_INT(gd_attn_max_len(1, 1, 16, 128, need), 8192);
	CHECK_INT(gd_attn_max_len(1, 1, 16, 128, need - 1), 8192 - 64);
	need = gd_attn_bytes_flash(&s);
	CHECK_INT(gd_attn_max_len(0, 1, 16, 128, need), 8192);
	CHECK_INT(gd_attn_max_len(0, 1, 16, 128, need - 1), 8192 - 64);
	CHECK_INT(gd_attn_max_len(0, 1, 16, 128, 100), 0);
	/* flash grows linearly, naive quadratically: 140 GB holds ~30x longer sequences flash */
	long long ln = gd_attn_max_len(1, 1, 16, 128, 140000000000ull);
	long long lf = gd_attn_max_len(0, 1, 16, 128, 140000000000ull);
	CHECK(ln > 60000 && ln < 70000);
	CHECK(lf > 30 * ln);
}

static void test_ref_by_hand(void)
{
	/* d = 1, scale 1: q = 1, k = {0, ln 3}, v = {0, 1}: weights 1 : 3 → 0.75 */
	float q[2] = {1, 1}, k[2] = {0, (float)log(3.0)}, v[2] = {0, 1};
	double o[2];
	gd_attn_ref(q, k, v, o, 1, 2, 1, 0, 1.0);
	CHECK_NEAR(o[0], 0.75, 1e-7);
	CHECK_NEAR(o[1], 0.75, 1e-7);
	gd_attn_ref(q, k, v, o, 1, 2, 1, 1, 1.0);
	CHECK_NEAR(o[0], 0.0, 0);      /* causal row 0 sees key 0 only */
	CHECK_NEAR(o[1], 0.75, 1e-7);
	/* scale multiplies the logits: scale 2 → weights 1 : 9 */
	gd_attn_ref(q, k, v, o, 1, 2, 1, 0, 2.0);
	CHECK_NEAR(o[1], 0.9, 1e-6);
	/* large logits do not overflow (max subtracted) */
	float kb[2] = {1000, 1000};
	gd_attn_ref(q, kb, v, o, 1, 2, 1, 0, 1.0);
	CHECK_NEAR(o[0], 0.5, 1e-15);
}

static float frand(unsigned *s)
{
	*s = *s * 1664525u + 1013904223u;
	return (float)(*s >> 8) / (float)(1 << 24) * 2.0f - 1.0f;
}

static void test_online_softmax(void)
{
	enum { BH = 2, L = 37, D = 8 };
	float *q = malloc(sizeof(float) * BH * L * D), *k = malloc(sizeof(float) * BH * L * D),
	      *v = malloc(sizeof(float) * BH * L * D);
	double *o1 = malloc(sizeof(double) * BH * L * D), *o2 = malloc(sizeof(double) * BH * L * D);
	unsigned s = 7;
	for (int i = 0; i < BH * L * D; i++) {
		q[i] = 3 * frand(&s);
		k[i] = 3 * frand(&s);
		v[i] = frand(&s);
	}
	for (int causal = 0; causal < 2; causal++) {
		gd_attn_ref(q, k, v, o1, BH, L, D, causal, 0.5);
		for (int tile = 1; tile <= 64; tile *= 4) {
			gd_attn_tiled_ref(q, k, v, o2, BH, L, D, causal, 0.5, tile);
			double worst = 0;
			for (int i = 0; i < BH * L * D; i++)
				worst = fmax(worst, fabs(o1[i] - o2[i]));
			CHECK(worst < 1e-12);
		}
	}
	/* the causal output of row 0 is v[0]; outputs are convex combinations of v */
	gd_attn_tiled_ref(q, k, v, o2, BH, L, D, 1, 0.5, 16);
	for (int c = 0; c < D; c++)
		CHECK_NEAR(o2[c], v[c], 1e-15);
	int inside = 1;
	for (int i = 0; i < BH * L * D; i++)
		if (fabs(o2[i]) > 1.0)
			inside = 0;
	CHECK(inside);
	free(q);
	free(k);
	free(v);
	free(o1);
	free(o2);
}

static void test_parse_lens(void)
{
	long long l[16];
	char why[128];
	CHECK_INT(gd_attn_parse_lens("512..16k", l, 16, why, sizeof why), 6);
	CHECK_INT(l[0], 512);
	CHECK_INT(l[5], 16384);
	CHECK_INT(gd_attn_parse_lens("64,4k,8192", l, 16, why, sizeof why), 3);
	CHECK_INT(l[1], 4096);
	CHECK_INT(gd_attn_parse_lens("100", l, 16, why, sizeof why), -1);
	CHECK(strstr(why, "multiple of 64") != NULL);
	CHECK_INT(gd_attn_parse_lens("abc", l, 16, why, sizeof why), -1);
	CHECK_INT(gd_attn_parse_lens("1k..512", l, 16, why, sizeof why), -1);
	CHECK_INT(gd_attn_parse_lens("", l, 16, why, sizeof why), -1);
	CHECK_INT(gd_attn_parse_lens("64..1M", l, 4, why, sizeof why), -1);
}

static void test_cfg(void)
{
	struct gd_attn_cfg c = {1, 16, {512}, 1, {64, 128}, 2, {0, 1}, 2};
	char why[160];
	CHECK_INT(gd_attn_parse_cfg(NULL, &c, why, sizeof why), 0);
	CHECK_INT(gd_attn_parse_cfg("lens=1k..4k;heads=8;batch=2;dims=128;causal=yes", &c, why, sizeof why), 0);
	CHECK_INT(c.nlens, 3);
	CHECK_INT(c.lens[2], 4096);
	CHECK_INT(c.heads, 8);
	CHECK_INT(c.batch, 2);
	CHECK_INT(c.ndims, 1);
	CHECK_INT(c.dims[0], 128);
	CHECK_INT(c.ncausal, 1);
	CHECK_INT(c.causal[0], 1);
	CHECK_INT(gd_attn_parse_cfg("dims=64,128;causal=both", &c, why, sizeof why), 0);
	CHECK_INT(c.ndims, 2);
	CHECK_INT(c.ncausal, 2);
	CHECK_INT(gd_attn_parse_cfg("dims=96", &c, why, sizeof why), -1);
	CHECK(strstr(why, "dims") != NULL);
	CHECK_INT(gd_attn_parse_cfg("causal=maybe", &c, why, sizeof why), -1);
	CHECK_INT(gd_attn_parse_cfg("heads=0", &c, why, sizeof why), -1);
	CHECK_INT(gd_attn_parse_cfg("heads=4096;batch=17", &c, why, sizeof why), -1);
	CHECK(strstr(why, "65535") != NULL);
	CHECK_INT(gd_attn_parse_cfg("lens=100", &c, why, sizeof why), -1);
	CHECK_INT(gd_attn_parse_cfg("foo=1", &c, why, sizeof why), -1);
	CHECK(strstr(why, "unknown key 'foo'") != NULL);
}

int main(void)
{
	test_flops_and_memory();
	test_ref_by_hand();
	test_online_softmax();
	test_parse_lens();
	test_cfg();
	return TEST_DONE();
}
