/* Kernels of `gpudiag lab coalescing` (src/lab/lab_coalescing.c). Launchers enqueue on the
 * default stream and return a cudaError_t as int (0 = ok). Data are generated on the GPU with
 * gd_hashf / gd_hash32 (kernels/lab_hash.h) so the CPU reference can recompute any element. */
#ifndef GPUDIAG_LAB_COALESCING_KERNELS_H
#define GPUDIAG_LAB_COALESCING_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* p[i] = gd_hashf(i·stride + offset, seed), i < n. */
int gd_labk_co_fill_f32(float *p, size_t n, size_t stride, size_t offset, uint32_t seed);
/* p[i] = gd_hash32(i, seed), i < n. */
int gd_labk_co_fill_u32(uint32_t *p, size_t n, uint32_t seed);
/* out[i] = in[i] for n4 16-byte elements (grid-stride, float4). */
int gd_labk_co_copy(const void *in, void *out, size_t n4, int blocks);
/* Strided read: thread t of T = blocks·256 sums in[(base + i·stride) & mask] (u32) for
 * i = t, t+T, ... < n; block b writes its sum to partials[b]. */
int gd_labk_co_stride_sum(const uint32_t *in, size_t n, unsigned stride, size_t base, size_t mask,
			  int blocks, uint32_t *partials);
/* Embedding lookup: out[b·d + k] = table[idx[b]·d + k] for b < nb, k < d (d a power of two). */
int gd_labk_co_gather(const float *table, const uint32_t *idx, size_t nb, unsigned d, float *out);
/* Particles: AoS records of 8 floats {x,y,z,vx,vy,vz,m,pad}; out[i] = x + vx·dt. */
int gd_labk_co_aos(const float *aos, size_t n, float dt, float *out);
int gd_labk_co_soa(const float *x, const float *vx, size_t n, float dt, float *out);
/* Transpose of an m×m row-major matrix: out[c·m + r] = in[r·m + c] (m a multiple of 32).
 * kind 0: naive; 1: 32×32 shared tile; 2: shared tile padded to 33 columns. */
int gd_labk_co_transpose(const float *in, float *out, int m, int kind);
/* x is [b][s][d]. permuted != 0: out[b][k][j] = 2·x[b][j][k] (the op on x.permute(0,2,1),
 * reading with stride d); 0: out[b][j][k] = 2·x[b][j][k] (the op on a contiguous tensor). */
int gd_labk_co_scale2(const float *x, float *out, int b, int s, int d, int permuted);

#ifdef __cplusplus
}
#endif

#endif
