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

#define GD_OCCLAB_SCALE 1.5f         /* the memory kernel's a */
#define GD_OCCLAB_MUL 0.9995f        /* the compute kernel's chain: c = fmaf(c, MUL, ADD) */
#define GD_OCCLAB_ADD 0.0005f

struct gd_occlab_level {
	int grid;        /* blocks launched */
	size_t dyn_smem; /* bytes of dynamic shared memory per block */
};

struct gd_occlab; /* opaque: device buffers of one kernel */

/* Registers and static shared memory of a kernel (cudaFuncGetAttributes). */
int gd_occlab_attr(int dev, int kernel, int *regs, size_t *static_smem, char *err, size_t errn);
/* Allocates and fills the kernel's buffers: for MEMORY, x[n] is copied to the device; for
 * COMPUTE, x is unused and n is the number of items. Sets the kernel's maximum dynamic
 * shared memory to max_dyn and its carveout preference to 100 % shared memory. */
int gd_occlab_open(struct gd_occlab **h, int dev, int kernel, size_t n, int iters, const float *x,
		   size_t max_dyn, char *err, size_t errn);
/* The CUDA runtime's resident blocks per SM for this kernel (cross-check of the calculator). */
int gd_occlab_runtime_blocks(struct gd_occlab *h, int block, size_t dyn_smem, int *blocks, char *err,
			     size_t errn);
/* Times every level once per repetition, interleaved: us[l * reps + r], events. */
int gd_occlab_time(struct gd_occlab *h, int block, const struct gd_occlab_level *lv, int nl, int reps,
		   double *us, char *err, size_t errn);
/* Runs one level on an output poisoned with NaN and copies it to y[n]. */
int gd_occlab_output(struct gd_occlab *h, int block, const struct gd_occlab_level *lv, float *y, char *err,
		     size_t errn);
void gd_occlab_close(struct gd_occlab *h);

#ifdef __cplusplus
}
#endif
#endif
