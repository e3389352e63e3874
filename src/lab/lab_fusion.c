/* `gpudiag lab fusion` — the guide's LayerNorm → GeLU → Linear (§9), measured three ways:
 *   1. three kernels, each intermediate written to VRAM and read back (the "six trips");
 *   2. LayerNorm+GeLU fused in one kernel (one read, one write), then the GEMM (cuBLASLt);
 *   3. the fused kernel run on row chunks small enough to stay in L2, each followed at once
 *      by its GEMM, so the GEMM reads the activations from L2 instead of HBM;
 * plus a four-op elementwise chain, op by op against fused.
 *
 * This part: CPU references and the accounting (no GPU). */
#include "lab/lab_fusion.h"

#include <math.h>
#include <stdint.h>
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

unsigned short gd_fu_f2bf(float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	if ((u & 0x7fffffffu) > 0x7f800000u)
		return (unsigned short)((u >> 16) | 0x40); /* quiet NaN */
	u += 0x7fffu + ((u >> 16) & 1u);
	return (unsigned short)(u >> 16);
}

float gd_fu_bf2f(unsigned short h)
{
	uint32_t u = (uint32_t)h << 16;
	float f;
	memcpy(&f, &u, 4);
	return f;
}

static double round_bf16(double v)
{
	return gd_fu_bf2f(gd_fu_f2bf((float)v));
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
