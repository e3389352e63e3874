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

/* The recording kernel's real attributes (cudaFuncGetAttributes). */
int gd_grid_func_attr(int dev, int *regs, size_t *static_smem, int *max_threads, char *err, size_t errn);

/* Runs c = a + b over n floats with `block` threads per block (grid = ceil(n / block)):
 * reps times timed (events) into rec_us[reps], each followed by the same add without
 * recording, timed into plain_us[reps]; then once more on a C and a record buffer poisoned
 * with 0xFF bytes, whose output lands in c[n] and whose block records land in rec[grid].
 * Returns 0 or 1 with err. */
int gd_grid_run(int dev, int n, int block, int reps, const float *a, const float *b, float *c,
		struct gd_grid_rec *rec, double *rec_us, double *plain_us, char *err, size_t errn);

#ifdef __cplusplus
}
#endif
#endif
