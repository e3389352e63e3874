/* Kernels of `gpudiag lab sfu` (guide §3, the SFU row): fast intrinsics that run on the
 * special-function unit against the accurate library functions, and GELU in its erf form
 * against the tanh approximation.
 *
 * Throughput: each thread evaluates the function `iters` times on 4 independent arguments
 * that walk slowly through the function's domain, summing the results (one FADD per
 * evaluation besides the argument step, the same for every variant). Accuracy: the function
 * on n given arguments, compared by the host with an FP64 reference. */
#ifndef GPUDIAG_KERNELS_LAB_SFU_H
#define GPUDIAG_KERNELS_LAB_SFU_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

enum gd_sfu_fn {
	GD_SFU_EXP_FAST = 0,   /* __expf */
	GD_SFU_EXP,	       /* expf */
	GD_SFU_SIN_FAST,       /* __sinf */
	GD_SFU_SIN,	       /* sinf */
	GD_SFU_RSQRT_FAST,     /* rsqrtf */
	GD_SFU_RSQRT,	       /* 1.0f / sqrtf(x), IEEE-rounded sqrt and division */
	GD_SFU_GELU_ERF,       /* 0.5 x (1 + erff(x / sqrt 2)) */
	GD_SFU_GELU_TANH,      /* 0.5 x (1 + tanhf(sqrt(2/pi) (x + 0.044715 x^3))) */
	GD_SFU_GELU_TANH_FAST, /* the same with tanh.approx.f32 (the SFU's tanh, sm_75+) */
	GD_SFU_NFN
};

/* Domain [lo, hi] of the throughput kernel's arguments and of the accuracy sweep. */
int gd_sfu_domain(int fn, double *lo, double *hi);

/* The throughput kernel's arguments, exactly as each thread forms them (for the CPU
 * reference), every operation rounded to float on its own: thread t of nt, w = hi - lo,
 * h = w / (4·iters), x_0 = lo + (w·0.5)·(t/nt), x_j = x_{j-1} + w·0.0625 (j = 1..3); each
 * of the iters steps adds fn(x_j) to a_j and then x_j ← x_j + h; out = (a_0+a_1)+(a_2+a_3). */

/* Enqueue on the legacy default stream; return the launch's cudaError_t as int.
 * Throughput: out[blocks·256] = per-thread sum of 4·iters evaluations. */
int gd_labk_sfu_throughput(int fn, float *out, int blocks, int iters);
/* Accuracy: y[i] = fn(x[i]) for i < n. */
int gd_labk_sfu_eval(int fn, const float *x, float *y, size_t n);

#ifdef __cplusplus
}
#endif
#endif
