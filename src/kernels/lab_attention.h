/* Attention forward kernels for `gpudiag lab attention` (guide §9 FlashAttention, §4).
 *
 * Layout of Q, K, V, O: [B·H][L][d] BF16, contiguous (one head after another).
 * Every entry returns GD_OK, or GD_EFAIL / GD_EUSAGE / GD_ENOGPU with a one-line reason in
 * why. Nothing here allocates device memory; the lab owns every buffer so that its memory
 * accounting is exact. C-compatible. */
#ifndef GPUDIAG_KERNELS_LAB_ATTENTION_H
#define GPUDIAG_KERNELS_LAB_ATTENTION_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The flash kernel: 4 warps per block, each owning rows_per_warp (16 or 32) query rows, so a
 * block holds 64 or 128 rows; K/V tiles of 64 keys. L must be a multiple of the block's rows. */

/* Shared memory bytes one flash block uses (Q tile + double-buffered K and V tiles). */
size_t gd_attn_flash_smem(int d, int rows_per_warp);

/* Flash-style forward: tiled over keys with an online softmax (running max and sum in
 * FP32), S and P live only in registers, tensor cores through mma.sync.m16n8k16 (BF16 in,
 * FP32 accumulate), ldmatrix from XOR-swizzled shared memory, cp.async double buffering of
 * K and V. d ∈ {64, 128}; needs compute capability ≥ 8.0 (BF16 mma.sync, cp.async).
 * scale is applied to Q·Kᵀ (usually 1/sqrt(d)). Writes no L×L matrix and no extra memory.
 * rows_per_warp 16: Q fragments stay in registers; 32: two m16 tiles per warp share every
 * K and V fragment (half the shared-memory reads per mma), Q re-read from shared memory. */
int gd_attn_flash(const void *q, const void *k, const void *v, void *o, int bh, int l, int d,
		  int causal, float scale, int rows_per_warp, void *stream, char *why, size_t n);

/* The Hopper flash kernel (lab_attention_sm90a.cu, kernels in lab_attention_wgmma.cuh):
 * wgmma.mma_async m64nNk16 (BF16 in, FP32 accumulate), 128 query rows per block. The lab's
 * configuration (fwg::lab_cfg) is warp-specialised: a producer warpgroup copies Q once and
 * 128-key K/V tiles through cp.async into 128B-swizzled shared-memory rings guarded by
 * mbarriers; two consumer warpgroups of 64 rows compute S = Q·Kᵀ with both operands from
 * shared memory, keep P in registers as the A operand of O += P·V (V read N-major) and
 * overlap the softmax of one tile with the previous tile's P·V. Online softmax as
 * gd_attn_flash. The environment variable GPUDIAG_FLASH_WGMMA_CFG=<0…21> picks another
 * built configuration (diagnostics).
 * Only for compute capability 9.0 (GD_ENOGPU otherwise); d ∈ {64, 128}; L a multiple of
 * GD_ATTN_WGMMA_L_MULTIPLE (GD_EUSAGE otherwise: use gd_attn_flash). Allocates nothing. */
#define GD_ATTN_WGMMA_L_MULTIPLE 128
int gd_attn_flash_wgmma(const void *q, const void *k, const void *v, void *o, int bh, int l, int d,
			int causal, float scale, void *stream, char *why, size_t n);
/* Shared memory bytes one block of it uses (0 for a head dim not built). */
size_t gd_attn_flash_wgmma_smem(int d);
/* Non-zero when the sm_90a code is compiled into this binary. */
int gd_attn_flash_wgmma_built(void);
/* The configuration it runs at head dim d, e.g. "BN128 ws2" (key tile, kernel, stages; fwg::cfg_info). */
const char *gd_attn_flash_wgmma_config(int d);

/* Naive path, step 2: row softmax of S (bh·L rows of L BF16 values) in place, scaled by
 * scale; with causal, entries with column > row become 0. Reductions in FP32. L % 8 == 0. */
int gd_attn_softmax_rows(void *s, int bh, int l, int causal, float scale, void *stream,
			 char *why, size_t n);

/* Naive path, helper: V [bh][L][d] → Vᵀ [bh][d][L] so that P·V is an A·Bᵀ GEMM. */
int gd_attn_transpose(const void *v, void *vt, int bh, int l, int d, void *stream, char *why,
		      size_t n);

/* Naive path without cuBLASLt (fallback, and a cross-check): S = scale·Q·Kᵀ for one head,
 * FP32 accumulate, BF16 out, plain CUDA cores (16×16 shared-memory tiles). */
int gd_attn_qk_simt(const void *q, const void *k, void *s, int bh, int l, int d, void *stream,
		    char *why, size_t n);
/* O = P·V for every head from Vᵀ ([bh][d][L], see gd_attn_transpose), FP32 accumulate,
 * CUDA cores. */
int gd_attn_pv_simt(const void *p, const void *vt, void *o, int bh, int l, int d, void *stream,
		    char *why, size_t n);

#ifdef __cplusplus
}
#endif

#endif
