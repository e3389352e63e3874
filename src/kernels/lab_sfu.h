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
	GD_SFU_EXP_FAST = 0, /* __expf */
	GD_SFU_EXP,          /* expf */
	GD_SFU_SIN_FAST,     /* __sinf */
	GD_SFU_SIN,          /* sinf */
	GD_SFU_RSQRT_FAST,   /* rsqrtf */
	GD_SFU_RSQRT,        /* 1.0f / sqrtf(x), IEEE-rounded sqrt and division */
	GD_SFU_GELU_ERF,     /* 0.5 x (1 + erff(x / sqrt 2)) */
	GD_SFU_GELU_TANH,    /* 0.5 x (1 + tanhf(sqrt(2/pi) (x + 0.044715 x^3))) */
	GD_SFU_GELU_TANH_FAST, /* the same with tanh.approx.f32 (the SFU's tanh, sm_75+) */
	GD_SFU_NFN
};

/* Domain [lo, hi] of the throughput kernel's arguments. */
int gd_sfu_domain(int fn, double *lo, double *hi);

/* Throughput of every function in fns[nf], interleaved per repetition: us[f * reps + r]
 * (events) for a grid of `blocks` × 256 threads, each doing 4 × iters evaluations.
 * sums[f] receives the sum of all threads' results of the last repetition (so nothing is
 * optimised away; the host only checks it is finite). */
int gd_sfu_time(int dev, const int *fns, int nf, int blocks, int iters, int reps, double *us, double *sums,
		char *err, size_t errn);

/* y[i] = fn(x[i]) for i < n. */
int gd_sfu_eval(int dev, int fn, const float *x, float *y, size_t n, char *err, size_t errn);

#ifdef __cplusplus
}
#endif
#endif
