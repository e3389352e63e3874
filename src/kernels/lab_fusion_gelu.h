/* GeLU (erf form, PyTorch's default) as the fusion lab's kernels evaluate it, shared by the
 * CUDA kernels and the CPU-tier test (C11 and CUDA).
 *
 * gelu(x) = x·Φ(x), Φ(x) = 1 − ½·erfc(x/√2) for x ≥ 0 and ½·erfc(|x|/√2) below 0 (no
 * cancellation for negative x). erfc(a) = t·(a1 + a2·t + … + a5·t⁴)·e^(−a²), t = 1/(1 + p·a)
 * (Abramowitz & Stegun 7.1.26, |error in erf| ≤ 1.5e-7, four orders below a BF16 ulp at 1).
 * Branch-free, two special-function ops (reciprocal, exp2) and eleven FP32 ops per value,
 * against ~25 ops and a divergent branch for the library's erff: the fused LayerNorm+GeLU
 * kernel was limited by instruction issue, not by memory, with erff. */
#ifndef GPUDIAG_KERNELS_LAB_FUSION_GELU_H
#define GPUDIAG_KERNELS_LAB_FUSION_GELU_H

#ifdef __CUDACC__
#define GD_FU_HD static __host__ __device__ __forceinline__
#else
#include <math.h>
#define GD_FU_HD static inline
#endif

GD_FU_HD float gd_fu_rcp(float d)
{
#ifdef __CUDA_ARCH__
	float r; /* d ≥ 1 here: no denormal or overflow case */
	asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(d));
	return r;
#else
	return 1.f / d;
#endif
}

GD_FU_HD float gd_fu_exp2(float x)
{
#ifdef __CUDA_ARCH__
	float r; /* ≤ 2 ulp; results below 2^-126 flush to 0 (GeLU's tail, far below BF16's atol) */
	asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
	return r;
#else
	return exp2f(x);
#endif
}

GD_FU_HD float gd_fu_gelu_as(float x)
{
	/* coefficients of A&S 7.1.26 with ½ folded in; p/√2 since a = |x|/√2 */
	const float p = 0.3275911f * 0.70710678118654752f;
	const float c1 = 0.5f * 0.254829592f, c2 = 0.5f * -0.284496736f, c3 = 0.5f * 1.421413741f,
		    c4 = 0.5f * -1.453152027f, c5 = 0.5f * 1.061405429f;
	const float t = gd_fu_rcp(fmaf(p, fabsf(x), 1.f));
	/* e^(−x²/2) = 2^(−x²·log2(e)/2) */
	const float e = gd_fu_exp2(x * (x * -0.72134752044448170f));
	float q = fmaf(c5, t, c4);
	q = fmaf(q, t, c3);
	q = fmaf(q, t, c2);
	q = fmaf(q, t, c1);
	/* gelu = ½x + |x|(½ − h), h = ½·erfc(|x|/√2): x(1 − h) for x ≥ 0, x·h below 0, with no
	 * select; ½ − h is one rounding (|error| ≤ 2^-25·|x|, and exactly 0 once h < 2^-25) */
	const float s = fmaf(-(q * t), e, 0.5f);
	return fmaf(fabsf(x), s, 0.5f * x);
}

#endif
