/* Kernels of `gpudiag lab fusion` (guide §9: kernel fusion): LayerNorm, GeLU, the two fused,
 * and an elementwise chain run op by op or fused. BF16 tensors, FP32 arithmetic.
 * Every entry returns GD_OK, or GD_EFAIL / GD_EUSAGE with a one-line reason in why.
 * C-compatible; the lab owns every buffer. */
#ifndef GPUDIAG_KERNELS_LAB_FUSION_H
#define GPUDIAG_KERNELS_LAB_FUSION_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Largest hidden size the row kernels hold in registers (8 vectors of 8 values × 256
 * threads). hidden must be a multiple of 8 (16-byte vectors). */
#define GD_FU_MAX_HIDDEN 16384

/* y[r][:] = LayerNorm(x[r][:]) · gamma + beta, and GeLU(·) after it when gelu != 0.
 * Persistent blocks, one row per block at a time; the row is read once into registers
 * (16-byte loads, the next row's issued before this one is computed), mean and variance in
 * FP32 (per-thread two-pass, merged across the block), written once (16-byte stores).
 * gamma, beta: FP32 [hidden]. */
int gd_fu_layernorm(const void *x, const float *gamma, const float *beta, void *y, int rows,
		    int hidden, float eps, int gelu, void *stream, char *why, size_t n);

/* y = x, bytes of device memory, by the driver's device-to-device copy (cudaMemcpyAsync): the
 * lab's anchor for the memory-bound kernels, moving the same bytes in the same run. */
int gd_fu_copy(const void *x, void *y, size_t bytes, void *stream, char *why, size_t n);

/* y = GeLU(x) over count BF16 values (count % 8 == 0), erf form (lab_fusion_gelu.h). */
int gd_fu_gelu(const void *x, void *y, long long count, void *stream, char *why, size_t n);

/* The elementwise chain: y = GeLU(x·a + b)·c as four ops. op 0: y = x·a, 1: y = x + b,
 * 2: y = GeLU(x), 3: y = x·c (each one kernel, BF16 round trip through memory);
 * op 4: all four in one kernel (FP32 in registers, one rounding). count % 8 == 0. */
enum gd_fu_ew_op { GD_FU_MUL_A = 0, GD_FU_ADD_B, GD_FU_GELU, GD_FU_MUL_C, GD_FU_CHAIN };
int gd_fu_elementwise(const void *x, void *y, long long count, int op, float a, float b, float c,
		      void *stream, char *why, size_t n);

#ifdef __cplusplus
}
#endif

#endif
