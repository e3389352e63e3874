/* Kernels of `gpudiag lab occupancy` (guide §6).
 *
 * Two kernels with the same block size run at occupancy forced from low to full by padding
 * each block with dynamic shared memory (the kernels never touch it; the launch still
 * reserves it, so fewer blocks fit on an SM). Each launch is one full wave: grid = SMs ×
 * the blocks per SM the padding admits, each thread striding over the whole problem, so the
 * work is the same at every level and only the warps available to hide latency change.
 *   memory:  y = a * x over n floats, one float4 load in flight per thread (no unrolling
 *            across the stride: y may alias x), so latency is hidden only by more warps;
 *   compute: per item, 2 independent chains of `iters` dependent FMAs, no memory traffic
 *            beyond one store per item. */
#ifndef GPUDIAG_KERNELS_LAB_OCCUPANCY_H
#define GPUDIAG_KERNELS_LAB_OCCUPANCY_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

enum gd_occlab_kernel { GD_OCCLAB_MEMORY = 0, GD_OCCLAB_COMPUTE = 1 };

#define GD_OCCLAB_SCALE 1.5f  /* the memory kernel's a */
#define GD_OCCLAB_MUL 0.9995f /* the compute kernel's chain: c = fmaf(c, MUL, ADD) */
#define GD_OCCLAB_ADD 0.0005f

/* All return a cudaError_t as int (0 = ok). */
/* Registers and static shared memory of a kernel (cudaFuncGetAttributes). */
int gd_labk_occ_attr(int kernel, int *regs, size_t *static_smem);
/* Lets the kernel take up to max_dyn bytes of dynamic shared memory and asks for the
 * largest shared-memory carveout (100 %), so the padding alone sets the blocks per SM. */
int gd_labk_occ_prepare(int kernel, size_t max_dyn);
/* The CUDA runtime's resident blocks per SM (cross-check of gpudiag's calculator). */
int gd_labk_occ_runtime_blocks(int kernel, int block, size_t dyn_smem, int *blocks);
/* Enqueues one run on the legacy default stream. MEMORY: y = SCALE * x over n floats;
 * COMPUTE: y[i] = chain(i) for n items (x unused). */
int gd_labk_occ_launch(int kernel, const float *x, float *y, size_t n, int iters, int grid, int block,
		       size_t dyn_smem);

#ifdef __cplusplus
}
#endif
#endif
