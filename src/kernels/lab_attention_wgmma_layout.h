/* Shared-memory layout and wgmma matrix descriptors of the Hopper flash kernel
 * (lab_attention_wgmma.cuh). Plain C, so that the CPU test (src/lab/lab_attention_wgmma_test.c)
 * checks the very functions the kernel uses.
 *
 * Every tile (Q: BM × D, K and V: BN × D, BF16, rows as in global memory) is stored in the
 * 128-byte-swizzle layout: the D columns split into blocks of 64 (128 bytes); block b is a
 * contiguous region of R rows × 128 bytes; inside it, 16-byte chunk c of row r sits at chunk
 * position c ^ (r % 8). Regions start 1024-byte aligned, so the XOR uses the same address
 * bits [7:9] the hardware's 128B swizzle uses (bits [4:6] ^= bits [7:9] of the address).
 *
 * Descriptors (PTX ISA, wgmma "Matrix Descriptor Format"): start address >> 4 in bits 0–13,
 * leading-dimension byte offset >> 4 in 16–29, stride-dimension byte offset >> 4 in 32–45,
 * base offset 0 (bits 49–51; the regions are 1024-aligned), layout type 1 = 128B swizzle in
 * bits 62–63. Canonical layouts (as CUTLASS documents them, in units of 16-byte chunks T):
 *   K-major,  128B swizzle: ((8,m),(T,2)) : ((8T,SBO),(1,T))        LBO unused
 *   MN-major, 128B swizzle: ((T,8,m),(8,k)) : ((1,T,LBO),(8T,SBO))
 * so for Q and K (K-major, the reduction dim d is contiguous): SBO = 1024 (8 rows of 128 B),
 * k-step s (16 columns = 32 bytes) starts at region s/4, byte 32·(s%4) of row 0;
 * for V (B of P·V, N = d contiguous: MN-major, transpose bit set): k-step s (keys 16s…16s+15)
 * starts at row 16s of region 0, SBO = 1024 (next 8 keys), LBO = R·128 (next 64 columns). */
#ifndef GPUDIAG_KERNELS_LAB_ATTENTION_WGMMA_LAYOUT_H
#define GPUDIAG_KERNELS_LAB_ATTENTION_WGMMA_LAYOUT_H

#include <stdint.h>
#include <string.h>

#if defined(__CUDACC__)
#define FWG_HD __host__ __device__ __forceinline__
#else
#define FWG_HD static inline
#endif

/* Byte offset of element (row, col) in a swizzled tile of R rows (col < D, D a multiple of 64). */
FWG_HD uint32_t fwg_off(int R, int row, int col)
{
	uint32_t byte = (uint32_t)(col & 63) * 2u, chunk = byte >> 4;
	return (uint32_t)(col >> 6) * (uint32_t)R * 128u + (uint32_t)row * 128u +
	       ((chunk ^ ((uint32_t)row & 7u)) << 4) + (byte & 15u);
}

/* Byte offset of 16-byte chunk c (columns 8c…8c+7) of row `row` (the cp.async destination). */
FWG_HD uint32_t fwg_chunk_off(int R, int row, int c)
{
	return (uint32_t)(c >> 3) * (uint32_t)R * 128u + (uint32_t)row * 128u +
	       ((((uint32_t)c & 7u) ^ ((uint32_t)row & 7u)) << 4);
}

/* A descriptor with 128B swizzle for the shared-memory byte address addr. */
FWG_HD uint64_t fwg_desc(uint32_t addr, uint32_t lbo, uint32_t sbo)
{
	return (uint64_t)((addr & 0x3FFFFu) >> 4) | ((uint64_t)((lbo >> 4) & 0x3FFFu) << 16) |
	       ((uint64_t)((sbo >> 4) & 0x3FFFu) << 32) | (1ull << 62);
}

/* Descriptor of k-step s (16 columns) of a K-major tile of R rows at tile (1024-aligned),
 * starting at row row0 (a multiple of 8). */
FWG_HD uint64_t fwg_desc_k(uint32_t tile, int R, int row0, int s)
{
	return fwg_desc(tile + (uint32_t)(s >> 2) * (uint32_t)R * 128u + (uint32_t)row0 * 128u +
				(uint32_t)(s & 3) * 32u,
			16u, 1024u);
}

/* Descriptor of k-step s (rows 16s…16s+15) of an MN-major tile of R rows (V: R = keys). */
FWG_HD uint64_t fwg_desc_mn(uint32_t tile, int R, int s)
{
	return fwg_desc(tile + (uint32_t)s * 2048u, (uint32_t)R * 128u, 1024u);
}

/* Accumulator fragment of wgmma m64nN with f32 D (PTX ISA figure "WGMMA .m64nNk16 register
 * fragment layout for accumulator matrix D"): thread th of the warpgroup, register i = 4j + r
 * holds row 16·(th/32) + (th%32)/4 + 8·(r>>1), column 8j + 2·(th%4) + (r&1). */
FWG_HD void fwg_acc_pos(int th, int i, int *row, int *col)
{
	int w = th >> 5, lane = th & 31, j = i >> 2, r = i & 3;
	*row = 16 * w + (lane >> 2) + 8 * (r >> 1);
	*col = 8 * j + 2 * (lane & 3) + (r & 1);
}

/* A fragment of wgmma m64nNk16 with 16-bit A in registers (PTX ISA figure "WGMMA .m64nNk16
 * register fragment layout for matrix A"): thread th, 32-bit register q (0…3), half h (0 low,
 * 1 high) holds row 16·(th/32) + (th%32)/4 + 8·(q&1), column 2·(th%4) + 8·(q>>1) + h. */
FWG_HD void fwg_afrag_pos(int th, int q, int h, int *row, int *col)
{
	int w = th >> 5, lane = th & 31;
	*row = 16 * w + (lane >> 2) + 8 * (q & 1);
	*col = 2 * (lane & 3) + 8 * (q >> 1) + h;
}

/* Which accumulator register of S (64 × BN) feeds half h of A register q of k-slice kk of P:
 * P[kk] register q = pack(S[8kk + 2q], S[8kk + 2q + 1]) (low half = first). */
FWG_HD int fwg_p_src(int kk, int q, int h) { return 8 * kk + 2 * q + h; }

/* The producer warpgroup's copy of an R × D tile (fwd_kernel_ws): in step i (0 … R·D/1024 − 1)
 * producer thread wt (0 … 127) copies the 16-byte chunk at element offset *goff of the tile in
 * global memory (row stride D) to byte offset *soff of the swizzled tile: row wt/(D/8) + i·(1024/D),
 * chunk wt % (D/8). The 1024/D rows of a step are a multiple of 8, so a thread's swizzle phase
 * row % 8 is the same in every step and both offsets grow linearly in i (no per-chunk index
 * arithmetic, few registers in the producer). */
FWG_HD void fwg_ws_copy(int R, int D, int wt, int i, uint32_t *soff, uint32_t *goff)
{
	const int ch = D / 8, row = wt / ch, c = wt % ch;
	(void)R;
	*soff = fwg_chunk_off(R, row, c) + (uint32_t)i * (1024u / (uint32_t)D) * 128u;
	*goff = (uint32_t)(row * D + c * 8) + (uint32_t)i * 1024u;
}

/* Block order: blockIdx.x = idx ∈ [0, bh·nqb). Not causal: head-major (the q-blocks of one
 * head run together and share its K/V in L2). Causal: the longest rows first (the last
 * q-block of every head, then the one before, …), as the mma.sync kernel does. */
FWG_HD void fwg_block(int idx, int bh, int nqb, int causal, int *head, int *qb)
{
	if (causal) {
		*qb = nqb - 1 - idx / bh;
		*head = idx % bh;
	} else {
		*head = idx / nqb;
		*qb = idx % nqb;
	}
}

/* 2^x for x ≤ 0 on the FP32 and integer pipes instead of the special-function unit
 * (ex2.approx, 16 results per clock per SM against 128 FP32 operations): at d = 64 the
 * softmax's exp2 is as much work for the SFU as the two GEMMs are for the tensor cores, so the
 * kernel sends a fraction of its exponentials here (FA4 does the same on Blackwell).
 * x is clamped to −125 (the result then is 2^-125 ≈ 2.4e-38 instead of ex2.approx.ftz's 0:
 * nothing next to a row maximum of 1); j = round(x) by the 1.5·2^23 trick (two FP32 adds, no
 * conversion instruction), f = x − j ∈ [−½, ½], 2^f by a cubic through the Chebyshev nodes
 * (relative error ≤ 1.0e-4 in FP32, checked by the CPU test; P is rounded to BF16, 3.9e-3,
 * afterwards), and j added to the exponent field as an integer. */
FWG_HD float fwg_ex2_poly(float x)
{
	const float M = 12582912.0f; /* 1.5·2^23: x + M rounds x to an integer in its low bits */
	x = x > -125.0f ? x : -125.0f;
#if defined(__CUDA_ARCH__)
	const float t = __fadd_rn(x, M), j = __fadd_rn(t, -M), f = __fadd_rn(x, -j);
#else
	const float t = x + M, j = t - M, f = x - j;
#endif
	const float p = fmaf(fmaf(fmaf(0.055838283f, f, 0.24263948f), f, 0.69313673f), f, 0.99992456f);
	uint32_t tb, pb;
	memcpy(&tb, &t, 4);
	memcpy(&pb, &p, 4);
	pb += tb << 23; /* the low mantissa bits of t hold 2^22 + j; shifted by 23 only j·2^23 is left */
	float r;
	memcpy(&r, &pb, 4);
	return r;
}

#endif
