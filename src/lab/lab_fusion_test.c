/* CPU tier: the fusion lab's references and accounting. */
#include "core/test.h"
#include "kernels/lab_fusion_gelu.h"
#include "lab/lab.h"
#include "lab/lab_fusion.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static void test_gelu(void)
{
	CHECK_NEAR(gd_gelu_ref(0.0), 0.0, 0);
	CHECK_NEAR(gd_gelu_ref(1.0), 0.8413447460685429, 1e-15);
	CHECK_NEAR(gd_gelu_ref(-1.0), -0.15865525393145707, 1e-15);
	CHECK_NEAR(gd_gelu_ref(2.0), 1.9544997361036416, 1e-15);
	CHECK_NEAR(gd_gelu_ref(10.0), 10.0, 1e-12);
	CHECK_NEAR(gd_gelu_ref(-10.0), 0.0, 1e-12);
}

/* The kernels' branch-free GeLU (A&S 7.1.26 erfc) against the FP64 erf form on every finite
 * BF16 input: within 2e-7·max(1, |x|) before rounding, and inside the lab's GPU check (atol 1e-6,
 * rtol 1/128) after rounding to BF16. */
static void test_gelu_kernel_formula(void)
{
	double worst = 0, worst_x = 0;
	int fails = 0, checked = 0;
	for (unsigned p = 0; p < 65536; p++) {
		float x = gd_bf16_to_f32((uint16_t)p);
		if (!isfinite(x))
			continue;
		double ref = gd_gelu_ref(x);
		float got = gd_fu_gelu_as(x);
		double err = fabs((double)got - ref) / (fabs(x) > 1 ? fabs(x) : 1);
		if (err > worst)
			worst = err, worst_x = x;
		double r = gd_bf16_to_f32(gd_f32_to_bf16(got));
		if (fabs(r - ref) > 1e-6 + fabs(ref) / 128)
			fails++;
		checked++;
	}
	printf("gelu formula: %d inputs, max |err|/max(1,|x|) %.3g at x = %g\n", checked, worst, worst_x);
	CHECK(checked > 65000);
	CHECK(worst < 2e-7); /* ½·1.5e-7 from A&S, plus FP32 rounding of the last products */
	CHECK(fails == 0);
	/* hand values */
	CHECK_NEAR(gd_fu_gelu_as(0.f), 0.0, 0);
	CHECK_NEAR(gd_fu_gelu_as(1.f), 0.8413447460685429, 2e-7);
	CHECK_NEAR(gd_fu_gelu_as(-1.f), -0.15865525393145707, 2e-7);
	CHECK_NEAR(gd_fu_gelu_as(-10.f), 0.0, 1e-12);
	CHECK_NEAR(gd_fu_gelu_as(30.f), 30.0, 0);
}

static void test_layernorm(void)
{
	/* mean 2.5, population variance 1.25 */
	float x[8] = {1, 2, 3, 4, -3, -3, -3, -3};
	float g[4] = {1, 1, 2, 1}, b[4] = {0, 0, 1, -1};
	double y[8];
	gd_layernorm_ref(x, g, b, 2, 4, 0.0, 0, y);
	double r = 1 / sqrt(1.25);
	CHECK_NEAR(y[0], -1.5 * r, 1e-15);
	CHECK_NEAR(y[1], -0.5 * r, 1e-15);
	CHECK_NEAR(y[2], 2 * 0.5 * r + 1, 1e-15);
	CHECK_NEAR(y[3], 1.5 * r - 1, 1e-15);
	/* a constant row normalises to beta (variance 0, eps keeps it finite) */
	gd_layernorm_ref(x, g, b, 2, 4, 1e-5, 0, y);
	CHECK_NEAR(y[4], 0, 1e-12);
	CHECK_NEAR(y[6], 1, 1e-12);
	CHECK_NEAR(y[7], -1, 1e-12);
	/* with GeLU the output is GeLU of the plain output */
	double z[8];
	gd_layernorm_ref(x, g, b, 2, 4, 1e-5, 1, z);
	for (int i = 0; i < 8; i++)
		CHECK_NEAR(z[i], gd_gelu_ref(y[i]), 1e-15);
	/* statistics of a random row: mean 0, variance 1 with gamma 1, beta 0 */
	enum { H = 4096 };
	float *xr = malloc(sizeof(float) * H), *gg = malloc(sizeof(float) * H), *bb = malloc(sizeof(float) * H);
	double *yr = malloc(sizeof(double) * H);
	unsigned s = 12345;
	for (int i = 0; i < H; i++) {
		s = s * 1664525u + 1013904223u;
		xr[i] = 3.0f + (float)(s >> 8) / (float)(1 << 24) * 4.0f;
		gg[i] = 1;
		bb[i] = 0;
	}
	gd_layernorm_ref(xr, gg, bb, 1, H, 0.0, 0, yr);
	double m = 0, v = 0;
	for (int i = 0; i < H; i++)
		m += yr[i];
	m /= H;
	for (int i = 0; i < H; i++)
		v += (yr[i] - m) * (yr[i] - m);
	CHECK_NEAR(m, 0, 1e-12);
	CHECK_NEAR(v / H, 1, 1e-12);
	free(xr);
	free(gg);
	free(bb);
	free(yr);
}

static void test_chain(void)
{
	CHECK_NEAR(gd_chain_ref(1.0, 2.0, -1.0, 3.0, 0), 3 * 0.8413447460685429, 1e-15);
	/* rounding after each op stays within a few BF16 ulps of the exact chain */
	for (double x = -4; x <= 4; x += 0.37) {
		double e = gd_chain_ref(x, 1.5, 0.25, 0.75, 0), r = gd_chain_ref(x, 1.5, 0.25, 0.75, 1);
		CHECK(fabs(e - r) <= 4 * (1.0 / 128) * (fabs(e) + 1e-2));
	}
	/* and the rounded chain really rounds: 1/3 is not a BF16 value */
	CHECK(gd_chain_ref(1.0 / 3, 1, 0, 1, 1) != gd_chain_ref(1.0 / 3, 1, 0, 1, 0));
}

static void test_accounting(void)
{
	struct gd_fusion_acct a;
	gd_fusion_account(8192, 4096, 4096, 1 << 20, &a);
	const double act = 8192.0 * 4096 * 2; /* 64 MiB */
	CHECK_NEAR(a.ln, 2 * act + 32768, 0);
	CHECK_NEAR(a.gelu, 2 * act, 0);
	CHECK_NEAR(a.ln_gelu, 2 * act + 32768, 0);
	CHECK_NEAR(a.gemm, 2.5 * act, 0); /* X, Y, and W (4096², half of X) */
	CHECK_NEAR(a.gemm_flops, 2.0 * 8192 * 4096 * 4096, 0);
	CHECK_NEAR(a.v1, a.ln + a.gelu + a.gemm, 0);
	CHECK_NEAR(a.v2, a.ln_gelu + a.gemm, 0);
	CHECK_NEAR(a.v1 - a.v2, 2 * act, 0);       /* fusion saves one write and one read */
	CHECK_NEAR(a.v2 - a.v3, 2 * act, 0);       /* the chunked one saves the L2 round trip */
	CHECK_NEAR(a.chain_unfused, 16.0 * (1 << 20), 0);
	CHECK_NEAR(a.chain_fused, 4.0 * (1 << 20), 0);
	gd_fusion_account(10, 8, 16, 8, &a);
	CHECK_NEAR(a.gemm, 2.0 * (10 * 8 + 16 * 8 + 10 * 16), 0);
}

static void test_cfg(void)
{
	struct gd_fusion_cfg c = {8192, 4096, 4096, 1 << 27};
	char why[160];
	CHECK_INT(gd_fusion_parse_cfg(NULL, &c, why, sizeof why), 0);
	CHECK_INT(c.tokens, 8192);
	CHECK_INT(gd_fusion_parse_cfg("tokens=1Ki,hidden=2048,out=1024,chain=16Mi", &c, why, sizeof why), 0);
	CHECK_INT(c.tokens, 1024);
	CHECK_INT(c.hidden, 2048);
	CHECK_INT(c.out, 1024);
	CHECK_INT(c.chain, 16 << 20);
	CHECK_INT(gd_fusion_parse_cfg("hidden=4100", &c, why, sizeof why), -1);
	CHECK(strstr(why, "multiple of 8") != NULL);
	c.hidden = 4096;
	CHECK_INT(gd_fusion_parse_cfg("hidden=32768", &c, why, sizeof why), -1);
	c.hidden = 4096;
	CHECK_INT(gd_fusion_parse_cfg("width=3", &c, why, sizeof why), -1);
	CHECK(strstr(why, "unknown key 'width'") != NULL);
	CHECK_INT(gd_fusion_parse_cfg("tokens", &c, why, sizeof why), -1);
	CHECK_INT(gd_fusion_parse_cfg("tokens=-5", &c, why, sizeof why), -1);
	CHECK_INT(gd_fusion_parse_cfg("tokens=abc", &c, why, sizeof why), -1);
	CHECK_INT(gd_fusion_parse_cfg("chain=12", &c, why, sizeof why), -1);
}

int main(void)
{
	test_gelu();
	test_gelu_kernel_formula();
	test_layernorm();
	test_chain();
	test_accounting();
	test_cfg();
	return TEST_DONE();
}
