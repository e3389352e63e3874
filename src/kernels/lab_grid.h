/* Kernels of `gpudiag lab grid` (guide §2, §3): the guide's add<<<3907, 256>>>(A, B, C, N)
 * with every block recording which SM ran it (%smid) and when it started and finished
 * (%globaltimer, ns), so the host can count blocks per SM, waves, and the tail. */
#ifndef GPUDIAG_KERNELS_LAB_GRID_H
#define GPUDIAG_KERNELS_LAB_GRID_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One block's record. t0 is read by thread 0 before the block's loads, t1 after a
 * __syncthreads() that follows every thread's store. */
struct gd_grid_rec {
	unsigned long long t0, t1; /* %globaltimer, ns */
	unsigned smid;
	unsigned pad_;
};

/* Both return a cudaError_t as int (0 = ok). */
/* The recording kernel's real attributes (cudaFuncGetAttributes). */
int gd_labk_grid_attr(int *regs, size_t *static_smem, int *max_threads);
/* Enqueues c = a + b over n floats with `block` threads per block (grid = ceil(n / block))
 * on the legacy default stream; with rec != NULL the recording kernel writes one record per
 * block into rec[grid], otherwise the guide's plain add runs. */
int gd_labk_grid_launch(const float *a, const float *b, float *c, int n, int block, struct gd_grid_rec *rec);

#ifdef __cplusplus
}
#endif
#endif
