/* Kernels of `gpudiag lab divergence` (guide §5, §8).
 *
 * One branch kernel does y = x > 0 ? path_a(x) : path_b(x), where each path is a loop of
 * `iters` × 4 independent FMAs, long enough that running both paths one after the other is
 * measurable. The variants differ only in the signs of x (all positive, all negative, signs
 * changing every g lanes), so the kernel, its registers and its occupancy are the same for
 * every branch variant. The mask kernel computes both paths for every thread and combines
 * them as the guide's rewrite does: y = (x>0)*a + (x<=0)*b. The cheap pair is the guide's
 * literal example: y = x>0 ? x*2 : x-1 against y = (x>0)*(x*2) + (x<=0)*(x-1).
 * The CPU references live in the host lab (src/lab/lab_divergence.c). */
#ifndef GPUDIAG_KERNELS_LAB_DIVERGENCE_H
#define GPUDIAG_KERNELS_LAB_DIVERGENCE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

enum gd_div_kernel {
	GD_DIV_BRANCH = 0,   /* if/else on x > 0, expensive paths */
	GD_DIV_MASK,	     /* both expensive paths, mask arithmetic */
	GD_DIV_CHEAP_BRANCH, /* the guide's if/else: x*2 or x-1 */
	GD_DIV_CHEAP_MASK,   /* the guide's (x>0)*(x*2) + (x<=0)*(x-1) */
	GD_DIV_NKERNELS
};

/* The constants of the two paths (shared with the CPU reference). */
#define GD_DIV_A_MUL 0.999f
#define GD_DIV_A_ADD 0.01f
#define GD_DIV_B_MUL (-0.999f)
#define GD_DIV_B_ADD 0.02f

/* Registers and static shared memory of a kernel (cudaFuncGetAttributes). Returns a
 * cudaError_t as int (0 = ok). */
int gd_labk_div_attr(int kernel, int *regs, size_t *static_smem);

/* Enqueues one run on the legacy default stream (the lab harness's stream): `block` threads
 * per block over n elements. Returns the launch's cudaError_t as int. */
int gd_labk_div_launch(int kernel, const float *x, float *y, int n, int iters, int block);

#ifdef __cplusplus
}
#endif
#endif
