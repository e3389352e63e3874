// Hopper (sm_90a) FlashAttention forward with wgmma, for `gpudiag lab attention` ("flash
// wgmma") and tests/gpu/flash_sweep.cu, which include this same file. Device code and a
// host launcher only; the extern "C" entry is in lab_attention_sm90a.cu.
//
// Q, K, V, O: [B·H][L][d] BF16 row-major; O = softmax(scale·Q·Kᵀ [causal: key j ≤ query i])·V.
// Template <D, BN, NWG>: head dim D ∈ {64, 128}; BN keys per K/V tile (64 or 128); NWG
// consumer warpgroups (1 or 2), each owning 64 query rows, so a block holds BM = 64·NWG rows.
// L must be a multiple of 128 (of both BM and BN); the host falls back to mma.sync otherwise.
//
// Per block (one per SM at these sizes): Q tile BM×D, K and V tiles BN×D double-buffered,
// all in the 128B-swizzle layout of lab_attention_wgmma_layout.h, filled with cp.async by
// every thread (tile t+1 is in flight while tile t is computed). Per key tile and warpgroup:
//   S = Q·Kᵀ        wgmma m64nBNk16, A = Q and B = K from shared memory (K-major), D/16 k-steps
//   online softmax  FP32 on the accumulator fragments, log2 domain (ex2.approx.ftz), row max
//                   and sum over the 4 threads of a quad (shfl_xor 1, 2), O rescaled by 2^(m_old−m_new)
//   P               the S accumulator converted to BF16: for 16-bit A the f32 accumulator of
//                   two adjacent n8 blocks is exactly the A register fragment of one k16 slice
//   O += P·V        wgmma m64nDk16, A = P from registers, B = V from shared memory, MN-major
//                   (transpose bit), BN/16 k-steps
// Causal: query blocks run longest first (fwg_block), key tiles past the diagonal are skipped
// per block (fwd_kernel: also per warpgroup), the diagonal tile is masked element by element.
// Two kernels: fwd_kernel waits for S before each softmax; fwd_kernel_ov (the lab's) runs the
// softmax of tile t while the tensor cores compute P_{t−1}·V_{t−1} (see there).
// Shared-memory writes (cp.async, generic proxy) are made visible to wgmma (async proxy) by
// cp.async.wait_group + fence.proxy.async.shared::cta + __syncthreads before the wgmmas.
#pragma once

#include "lab_attention_wgmma_layout.h"

#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>
#include <type_traits>

namespace fwg {

typedef __nv_bfloat16 bf16;

// ---- the wgmma instructions, operand lists written out by a script (one "+f" per accumulator):
// fwg_ss_nN: D(64×N f32) = or += A·B, A and B from shared-memory descriptors, both K-major.
// fwg_rs_nN: D += A·B, A (64×16 BF16) from four registers, B from a descriptor, N-major (transposed).
__device__ __forceinline__ void fwg_ss_n64(float *d, uint64_t da, uint64_t db, int acc)
{
	asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
		     "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 "
		     "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, %32, %33, p, 1, 1, 0, 0;\n}\n"
		     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
		     : "l"(da), "l"(db), "r"(acc));
}

__device__ __forceinline__ void fwg_ss_n128(float *d, uint64_t da, uint64_t db, int acc)
{
	asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
		     "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 "
		     "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, %64, %65, p, 1, 1, 0, 0;\n}\n"
		     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
		     : "l"(da), "l"(db), "r"(acc));
}

__device__ __forceinline__ void fwg_rs_n64(float *d, const uint32_t *a, uint64_t db)
{
	asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %37, 0;\n"
		     "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 "
		     "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, {%32, %33, %34, %35}, %36, p, 1, 1, 1;\n}\n"
		     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
		     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(1));
}

__device__ __forceinline__ void fwg_rs_n128(float *d, const uint32_t *a, uint64_t db)
{
	asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %69, 0;\n"
		     "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 "
		     "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, {%64, %65, %66, %67}, %68, p, 1, 1, 1;\n}\n"
		     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
		     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(1));
}


__device__ __forceinline__ void wg_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wg_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wg_wait0() { asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory"); }
__device__ __forceinline__ void wg_wait1() { asm volatile("wgmma.wait_group.sync.aligned 1;\n" ::: "memory"); }
// Keeps the compiler from moving accesses of an accumulator across the wgmma issue/wait.
__device__ __forceinline__ void fence_reg(float &r) { asm volatile("" : "+f"(r)::"memory"); }
__device__ __forceinline__ void fence_reg(uint32_t &r) { asm volatile("" : "+r"(r)::"memory"); }

template <int N> __device__ __forceinline__ void wg_ss(float *d, uint64_t da, uint64_t db, int acc)
{
	if (N == 64)
		fwg_ss_n64(d, da, db, acc);
	else
		fwg_ss_n128(d, da, db, acc);
}
template <int N> __device__ __forceinline__ void wg_rs(float *d, const uint32_t *a, uint64_t db)
{
	if (N == 64)
		fwg_rs_n64(d, a, db);
	else
		fwg_rs_n128(d, a, db);
}

__device__ __forceinline__ void cp_async16(uint32_t dst, const void *src)
{
	asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(src) : "memory");
}
__device__ __forceinline__ void cp_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int N> __device__ __forceinline__ void cp_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory"); }

__device__ __forceinline__ float ex2(float x)
{
	float r;
	asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
	return r;
}
__device__ __forceinline__ uint32_t pack_bf16(float lo, float hi)
{
	__nv_bfloat162 v = __floats2bfloat162_rn(lo, hi); // .x (low half) = lo
	return *reinterpret_cast<uint32_t *>(&v);
}

// Copies an R × D tile (global row stride D) into the swizzled layout at sdst, THREADS threads.
template <int R, int D, int THREADS>
__device__ __forceinline__ void load_tile(uint32_t sdst, const bf16 *__restrict__ g, int tid)
{
	constexpr int CH = D / 8, N = R * CH;
	static_assert(N % THREADS == 0, "tile chunks must split evenly over the threads");
#pragma unroll
	for (int i = 0; i < N / THREADS; i++) {
		int c = tid + i * THREADS, row = c / CH, ch = c % CH;
		cp_async16(sdst + fwg_chunk_off(R, row, ch), g + (size_t)row * D + ch * 8);
	}
}

// O = acc / l for a thread's two rows (r0, r0 + 8), the row sums completed over the quad;
// shared by both kernels' epilogues.
template <int D>
__device__ __forceinline__ void store_o(const float *o, const float *l, bf16 *__restrict__ O, size_t head, int r0,
					int c0)
{
	float inv[2];
#pragma unroll
	for (int h = 0; h < 2; h++) {
		float v = l[h];
		v += __shfl_xor_sync(0xffffffffu, v, 1);
		v += __shfl_xor_sync(0xffffffffu, v, 2);
		inv[h] = v > 0.0f ? 1.0f / v : 0.0f;
	}
#pragma unroll
	for (int j = 0; j < D / 8; j++)
#pragma unroll
		for (int h = 0; h < 2; h++) {
			const size_t at = head + (size_t)(r0 + 8 * h) * D + 8 * j + c0;
			*reinterpret_cast<uint32_t *>(O + at) = pack_bf16(o[4 * j + 2 * h] * inv[h], o[4 * j + 2 * h + 1] * inv[h]);
		}
}

// ---- per-tile steps shared by the overlapped kernels (fwd_kernel_ov, fwd_kernel_ws); each
// thread holds its two rows' S fragments s (BN/2), the O accumulator o (D/2) and P as A
// fragments p (BN/16 k-slices × 4 registers).

// Compiler fences on a fragment array (it is read/written by wgmma behind the compiler's back).
template <int N> __device__ __forceinline__ void fence_regs(float (&r)[N])
{
#pragma unroll
	for (int i = 0; i < N; i++)
		fence_reg(r[i]);
}
template <int N> __device__ __forceinline__ void fence_regs(uint32_t (&r)[N][4])
{
#pragma unroll
	for (int kk = 0; kk < N; kk++)
#pragma unroll
		for (int q = 0; q < 4; q++)
			fence_reg(r[kk][q]);
}

// Softmax of the S tile at key k0 in place: the causal mask when `mask` (a diagonal tile), the
// running row max m (log2 domain, scale folded into the exponent), exponentials (EX of every
// 8 by fwg_ex2_poly on the FP32/integer pipes, the rest by ex2.approx on the SFU), row sums l;
// alpha = 2^(m_old − m_new) rescales O.
template <int BN, int EX>
__device__ __forceinline__ void tile_softmax(float (&s)[BN / 2], float (&m)[2], float (&l)[2], float (&alpha)[2],
					     bool mask, int r0, int c0, int k0, float scale_log2)
{
	fence_regs(s);
	if (mask) {
#pragma unroll
		for (int i = 0; i < BN / 2; i++) {
			int row = r0 + 8 * ((i & 3) >> 1), col = k0 + 8 * (i >> 2) + c0 + (i & 1);
			if (col > row)
				s[i] = -INFINITY;
		}
	}
	float mx[2] = {-INFINITY, -INFINITY}, mu[2], sum[2] = {0.0f, 0.0f};
#pragma unroll
	for (int i = 0; i < BN / 2; i++)
		mx[(i & 3) >> 1] = fmaxf(mx[(i & 3) >> 1], s[i]);
#pragma unroll
	for (int h = 0; h < 2; h++) {
		mx[h] = fmaxf(mx[h], __shfl_xor_sync(0xffffffffu, mx[h], 1));
		mx[h] = fmaxf(mx[h], __shfl_xor_sync(0xffffffffu, mx[h], 2));
		mx[h] = fmaxf(m[h], mx[h] * scale_log2);
		mu[h] = mx[h] == -INFINITY ? 0.0f : mx[h];
		alpha[h] = ex2(m[h] - mu[h]);
		m[h] = mx[h];
	}
#pragma unroll
	for (int i = 0; i < BN / 2; i++) {
		const int h = (i & 3) >> 1;
		const float x = fmaf(s[i], scale_log2, -mu[h]);
		s[i] = (i & 7) < EX ? fwg_ex2_poly(x) : ex2(x);
		sum[h] += s[i];
	}
#pragma unroll
	for (int h = 0; h < 2; h++)
		l[h] = l[h] * alpha[h] + sum[h];
}

// O ·= alpha, then P = BF16(S) packed as A fragments (two adjacent n8 blocks of the f32
// accumulator are one k16 slice of A).
template <int D, int BN>
__device__ __forceinline__ void rescale_pack(float (&o)[D / 2], uint32_t (&p)[BN / 16][4], const float (&s)[BN / 2],
					     const float (&alpha)[2])
{
#pragma unroll
	for (int i = 0; i < D / 2; i++)
		o[i] *= alpha[(i & 3) >> 1];
#pragma unroll
	for (int kk = 0; kk < BN / 16; kk++)
#pragma unroll
		for (int q = 0; q < 4; q++)
			p[kk][q] = pack_bf16(s[fwg_p_src(kk, q, 0)], s[fwg_p_src(kk, q, 1)]);
}

template <int D, int BN, int NWG, int ST = 2> struct Cfg {
	static constexpr int BM = 64 * NWG, THREADS = 128 * NWG;
	static constexpr int Q_BYTES = BM * D * 2, KV_BYTES = BN * D * 2;
	// Q, K[ST], V[ST], and up to 1023 bytes to align the base to 1024.
	static constexpr int SMEM = Q_BYTES + 2 * ST * KV_BYTES + 1024;
	static_assert(SMEM <= 227 * 1024, "more shared memory than an SM has");
};

template <int D, int BN, int NWG>
__global__ void __launch_bounds__(128 * NWG, 1)
	fwd_kernel(const bf16 *__restrict__ Q, const bf16 *__restrict__ K, const bf16 *__restrict__ V,
		   bf16 *__restrict__ O, int L, int causal, float scale_log2)
{
	static_assert(D == 64 || D == 128, "head dim 64 or 128");
	static_assert(BN == 64 || BN == 128, "key tile 64 or 128");
	static_assert(NWG == 1 || NWG == 2, "one or two warpgroups");
	typedef Cfg<D, BN, NWG> C;
	constexpr int BM = C::BM, THREADS = C::THREADS;
	extern __shared__ uint8_t smem_raw[];
	const uint32_t sraw = (uint32_t)__cvta_generic_to_shared(smem_raw);
	const uint32_t sQ = (sraw + 1023u) & ~1023u, sK = sQ + C::Q_BYTES, sV = sK + 2 * C::KV_BYTES;

	const int tid = threadIdx.x, wg = tid >> 7, wt = tid & 127, lane = tid & 31;
	int hd, qb;
	fwg_block((int)blockIdx.x, (int)(gridDim.x / (unsigned)(L / BM)), L / BM, causal, &hd, &qb);
	const size_t head = (size_t)hd * (size_t)L * D;
	const int q0 = qb * BM;
	const int ntiles = causal ? (q0 + BM - 1) / BN + 1 : L / BN;
	const int wrow0 = q0 + 64 * wg; // first query row of this warpgroup
	const int ntiles_wg = causal ? (wrow0 + 63) / BN + 1 : ntiles;
	// rows of this thread: r0 (accumulator halves r>>1 = 0) and r0 + 8
	const int r0 = wrow0 + 16 * (wt >> 5) + (lane >> 2);
	const int c0 = 2 * (lane & 3); // column of register 4j within block j (plus 8j)

	load_tile<BM, D, THREADS>(sQ, Q + head + (size_t)q0 * D, tid);
	load_tile<BN, D, THREADS>(sK, K + head, tid);
	load_tile<BN, D, THREADS>(sV, V + head, tid);
	cp_commit();

	float o[D / 2];
#pragma unroll
	for (int i = 0; i < D / 2; i++)
		o[i] = 0.0f;
	float m[2] = {-INFINITY, -INFINITY}, l[2] = {0.0f, 0.0f};

	for (int t = 0; t < ntiles; t++) {
		const int buf = t & 1;
		if (t + 1 < ntiles) {
			const size_t off = head + (size_t)(t + 1) * BN * D;
			load_tile<BN, D, THREADS>(sK + (buf ^ 1) * C::KV_BYTES, K + off, tid);
			load_tile<BN, D, THREADS>(sV + (buf ^ 1) * C::KV_BYTES, V + off, tid);
		}
		cp_commit();
		cp_wait<1>(); // everything but the group just committed has landed
		asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
		__syncthreads();
		if (t < ntiles_wg) {
			const uint32_t kt = sK + buf * C::KV_BYTES, vt = sV + buf * C::KV_BYTES;
			float s[BN / 2];
			wg_fence();
#pragma unroll
			for (int k = 0; k < D / 16; k++)
				wg_ss<BN>(s, fwg_desc_k(sQ, BM, 64 * wg, k), fwg_desc_k(kt, BN, 0, k), k > 0);
			wg_commit();
			wg_wait0();
#pragma unroll
			for (int i = 0; i < BN / 2; i++)
				fence_reg(s[i]);

			const int k0 = t * BN;
			if (causal && k0 + BN - 1 > wrow0) { // the tile reaches past some row's diagonal
#pragma unroll
				for (int i = 0; i < BN / 2; i++) {
					int row = r0 + 8 * ((i & 3) >> 1), col = k0 + 8 * (i >> 2) + c0 + (i & 1);
					if (col > row)
						s[i] = -INFINITY;
				}
			}
			// raw row max of the tile; m and mu are in the scaled log2 domain, so that
			// p = 2^(s·scale_log2 − mu) is one FFMA and one MUFU.EX2 per score
			float mx[2] = {-INFINITY, -INFINITY};
#pragma unroll
			for (int i = 0; i < BN / 2; i++)
				mx[(i & 3) >> 1] = fmaxf(mx[(i & 3) >> 1], s[i]);
			float alpha[2], mu[2], sum[2] = {0.0f, 0.0f};
#pragma unroll
			for (int h = 0; h < 2; h++) {
				mx[h] = fmaxf(mx[h], __shfl_xor_sync(0xffffffffu, mx[h], 1));
				mx[h] = fmaxf(mx[h], __shfl_xor_sync(0xffffffffu, mx[h], 2));
				mx[h] = fmaxf(m[h], mx[h] * scale_log2);   // the running max after this tile
				mu[h] = mx[h] == -INFINITY ? 0.0f : mx[h]; // a row with nothing unmasked yet
				alpha[h] = ex2(m[h] - mu[h]);              // 2^-inf = 0 on the first tile
				m[h] = mx[h];
			}
			uint32_t p[BN / 16][4];
#pragma unroll
			for (int kk = 0; kk < BN / 16; kk++) {
#pragma unroll
				for (int q = 0; q < 4; q++) {
					const int i = 8 * kk + 2 * q, h = q & 1; // registers 8kk+2q, +1: row half q&1
					float a = ex2(fmaf(s[i], scale_log2, -mu[h])), b = ex2(fmaf(s[i + 1], scale_log2, -mu[h]));
					sum[h] += a + b;
					p[kk][q] = pack_bf16(a, b);
				}
			}
#pragma unroll
			for (int h = 0; h < 2; h++)
				l[h] = l[h] * alpha[h] + sum[h];
#pragma unroll
			for (int i = 0; i < D / 2; i++)
				o[i] *= alpha[(i & 3) >> 1];

#pragma unroll
			for (int i = 0; i < D / 2; i++)
				fence_reg(o[i]);
#pragma unroll
			for (int kk = 0; kk < BN / 16; kk++)
#pragma unroll
				for (int q = 0; q < 4; q++)
					fence_reg(p[kk][q]);
			wg_fence();
#pragma unroll
			for (int kk = 0; kk < BN / 16; kk++)
				wg_rs<D>(o, p[kk], fwg_desc_mn(vt, BN, kk));
			wg_commit();
			wg_wait0();
#pragma unroll
			for (int i = 0; i < D / 2; i++)
				fence_reg(o[i]);
		}
		__syncthreads(); // every warpgroup is done with buffer buf before it is refilled
	}

	store_o<D>(o, l, O, head, r0, c0);
}

// The same computation with the softmax of tile t overlapping the P·V product of tile t−1
// (FA3's intra-warpgroup overlap). Per warpgroup, iteration t = 1 … ntiles−1:
//   issue S_t = Q·K_tᵀ;  issue O += P_{t−1}·V_{t−1};  wait for S_t only (wait_group 1);
//   softmax of S_t (exp2 into the S registers, max and sum) while the tensor cores run
//   P_{t−1}·V_{t−1};  wait_group 0;  O ·= 2^(m_{t−1} − m_t);  P_t = bf16(S_t).
// Iteration 0 computes S_0 alone, iteration ntiles P_{ntiles−1}·V_{ntiles−1} alone. Every
// condition around a wgmma depends on t and the block only, never on the thread: ptxas
// serialises wgmmas whose issue and wait sit on paths it cannot prove warpgroup-uniform.
// So a warpgroup whose rows all lie above a causal tile (possible when BN < 64·NWG) computes
// that tile fully masked (P = 0, alpha = 1) instead of skipping it.
// Loads, ST buffers each for K and V (ST = 2 or 3), one barrier per iteration: iteration t
// waits for the cp.async group holding K_t and V_{t−1} (cp.async.wait_group ST−2; the
// prologue issues Q, K_0 and, for ST = 3, K_1, V_0), fences, passes the barrier, and only then
// issues K_{t+ST−1} (K buffer (t+ST−1) % ST) and V_{t+ST−2} (V buffer (t+ST−2) % ST) as one
// group: the tiles they replace, K_{t−1} and V_{t−2}, were read by wgmmas every thread waited
// for before it reached this barrier.
template <int D, int BN, int NWG, int ST>
__global__ void __launch_bounds__(128 * NWG, NWG == 1 ? 2 : 1)
	fwd_kernel_ov(const bf16 *__restrict__ Q, const bf16 *__restrict__ K, const bf16 *__restrict__ V,
		      bf16 *__restrict__ O, int L, int causal, float scale_log2)
{
	static_assert(D == 64 || D == 128, "head dim 64 or 128");
	static_assert(BN == 64 || BN == 128, "key tile 64 or 128");
	static_assert(NWG == 1 || NWG == 2, "one or two warpgroups");
	static_assert(ST == 2 || ST == 3, "two or three K/V buffers");
	typedef Cfg<D, BN, NWG, ST> C;
	constexpr int BM = C::BM, THREADS = C::THREADS;
	extern __shared__ uint8_t smem_raw[];
	const uint32_t sraw = (uint32_t)__cvta_generic_to_shared(smem_raw);
	const uint32_t sQ = (sraw + 1023u) & ~1023u, sK = sQ + C::Q_BYTES, sV = sK + ST * C::KV_BYTES;

	const int tid = threadIdx.x, wg = tid >> 7, wt = tid & 127, lane = tid & 31;
	int hd, qb;
	fwg_block((int)blockIdx.x, (int)(gridDim.x / (unsigned)(L / BM)), L / BM, causal, &hd, &qb);
	const size_t head = (size_t)hd * (size_t)L * D;
	const int q0 = qb * BM;
	const int ntiles = causal ? (q0 + BM - 1) / BN + 1 : L / BN;
	const int wrow0 = q0 + 64 * wg;
	const int r0 = wrow0 + 16 * (wt >> 5) + (lane >> 2);
	const int c0 = 2 * (lane & 3);

	float o[D / 2], s[BN / 2];
	uint32_t p[BN / 16][4];
	float m[2] = {-INFINITY, -INFINITY}, l[2] = {0.0f, 0.0f}, alpha[2];
#pragma unroll
	for (int i = 0; i < D / 2; i++)
		o[i] = 0.0f;

	// wait for K_t and V_{t-1}, publish them to the async proxy and every thread, then start
	// the loads of iteration t (see above)
	auto stage = [&](int t) {
		cp_wait<ST - 2>();
		asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
		__syncthreads();
		const int tk = t + ST - 1, tv = t + ST - 2;
		if (tk < ntiles)
			load_tile<BN, D, THREADS>(sK + (tk % ST) * C::KV_BYTES, K + head + (size_t)tk * BN * D, tid);
		if (tv < ntiles)
			load_tile<BN, D, THREADS>(sV + (tv % ST) * C::KV_BYTES, V + head + (size_t)tv * BN * D, tid);
		cp_commit();
	};
	auto issue_s = [&](int t) {
		const uint32_t kt = sK + (t % ST) * C::KV_BYTES;
#pragma unroll
		for (int k = 0; k < D / 16; k++)
			wg_ss<BN>(s, fwg_desc_k(sQ, BM, 64 * wg, k), fwg_desc_k(kt, BN, 0, k), k > 0);
		wg_commit();
	};
	auto issue_pv = [&](int t) { // P_t · V_t
		const uint32_t vt = sV + (t % ST) * C::KV_BYTES;
#pragma unroll
		for (int kk = 0; kk < BN / 16; kk++)
			wg_rs<D>(o, p[kk], fwg_desc_mn(vt, BN, kk));
		wg_commit();
	};
	// softmax of S_t in place: mask, running max, exp2, row sums; alpha for O
	auto softmax = [&](int t) {
		tile_softmax<BN, 0>(s, m, l, alpha, causal && t * BN + BN - 1 > wrow0, r0, c0, t * BN, scale_log2);
	};

	load_tile<BM, D, THREADS>(sQ, Q + head + (size_t)q0 * D, tid);
	load_tile<BN, D, THREADS>(sK, K + head, tid);
	cp_commit();
	if (ST == 3) {
		if (1 < ntiles)
			load_tile<BN, D, THREADS>(sK + C::KV_BYTES, K + head + (size_t)BN * D, tid);
		load_tile<BN, D, THREADS>(sV, V + head, tid);
		cp_commit();
	}

	// t = 0: S_0 alone
	stage(0);
	wg_fence();
	issue_s(0);
	wg_wait0();
	softmax(0);
	rescale_pack<D, BN>(o, p, s, alpha); // O = 0: the rescale is a no-op
	// t = 1 … ntiles−1: S_t overlapped with P_{t−1}·V_{t−1}
#pragma unroll 1
	for (int t = 1; t < ntiles; t++) {
		stage(t);
		fence_regs(o);
		fence_regs(p);
		wg_fence();
		issue_s(t);
		issue_pv(t - 1);
		wg_wait1(); // S_t done; P_{t-1}·V_{t-1} may still run
		softmax(t);
		wg_wait0();
		fence_regs(o);
		rescale_pack<D, BN>(o, p, s, alpha);
	}
	// t = ntiles: the last P·V
	stage(ntiles);
	fence_regs(o);
	fence_regs(p);
	wg_fence();
	issue_pv(ntiles - 1);
	wg_wait0();
	fence_regs(o);

	store_o<D>(o, l, O, head, r0, c0);
}

// ---- warp-specialised kernel (FA3-style): a producer warpgroup and two consumer warpgroups.
// 384 threads, one block per SM, BM = 128 query rows:
//   WG0, producer (setmaxnreg.dec to 24 registers): cp.async 16-byte copies by its 128
//     threads, Q once, then K_t and V_t into rings of ST stages each (same swizzled layout as
//     the other kernels). After issuing a tile each producer thread executes
//     cp.async.mbarrier.arrive.noinc on the stage's "full" mbarrier (init count 128): the
//     phase completes when every producer thread's copies so far have landed. Before refilling
//     stage s for round r ≥ 1 it waits for the stage's "empty" mbarrier, phase r−1.
//   WG1, WG2, consumers of query rows q0 … q0+63 and q0+64 … q0+127 (setmaxnreg.inc to 240):
//     the schedule of fwd_kernel_ov (phase k: issue S_k = Q·K_kᵀ and O += P_{k−1}·V_{k−1},
//     wait for S_k, softmax of S_k while P_{k−1}·V_{k−1} runs, wait, rescale O, pack P_k),
//     with K_k and V_{k−1} taken from the rings: wait full (try_wait.parity, round & 1),
//     fence.proxy.async, issue. Once the wgmmas that read a stage have completed
//     (wgmma.wait_group), lane 0 of every consumer warp arrives on the stage's empty mbarrier
//     (init count 8: 4 warps × 2 warpgroups; every warp waited for the wgmma itself, so no
//     assumption on one warp's wait covering the warpgroup's other warps).
//   PP = 1, ping-pong: named barriers 1 and 2 (bar.sync / bar.arrive, 256 threads) make the two
//     consumers issue their wgmma phases alternately, C0 phase 0, C1 phase 0, C0 phase 1, …:
//     consumer c waits on barrier 1+c before issuing and, after issuing, arrives on the other's
//     barrier, so one consumer's softmax runs while the other's GEMMs do (FA3's warpgroup
//     ping-pong). Counts balance per block: C1 waits n+1 times (phases 0 … n) and C0 arrives
//     n+1 times; C0 waits n times (phases 1 … n) and C1 arrives n times (it does not arrive
//     after its last phase).
// Proxies: cp.async writes shared memory through the generic proxy, wgmma reads it through the
// async proxy. The consumer's wait on the full mbarrier acquires the producer's completed
// writes (cp.async.mbarrier.arrive triggers only when the copies have completed); the consumer
// then executes fence.proxy.async.shared::cta before its wgmmas, so the writes, ordered before
// the fence by that synchronisation, are ordered before the async-proxy reads after it (PTX ISA,
// memory consistency model, "proxy causality order": a fence.proxy.async between two accesses
// of different proxies orders them when the first precedes the fence in causality order).
// PF = 1 (a hedge, configuration 18): the pattern the other kernels use and the H200 has
// passed, moved into the producer: each producer thread commits every tile as a cp.async group,
// waits for its previous group (cp.async.wait_group 1), executes fence.proxy.async and then a
// plain mbarrier.arrive (release) on that tile's full barrier; the last group is drained at the
// end. Its own copies are then complete and fenced by the thread that wrote them, at the cost of
// the producer blocking on its copies (two groups in flight per thread). The consumers still
// fence (harmless). If configurations 12–17 fail their checks and 18 passes, the consumer-side
// fence is the suspect.
// Overwrites (generic) after wgmma reads (async): the producer writes a stage only after every
// consumer warp passed wgmma.wait_group for the wgmmas reading it, then arrived (release) on
// empty, which the producer's wait acquires; the same order the other kernels rely on.
// Every wgmma sits on a path ptxas can see is warpgroup-uniform: the role test uses the warp
// index broadcast from lane 0 (__shfl_sync), every other condition depends on the block only.
// Every mbarrier wait traps after ~2 s (4·10⁹ clocks) instead of hanging.
template <int D, int BN, int ST> struct WsCfg {
	static constexpr int BM = 128, THREADS = 384;
	static constexpr int Q_BYTES = BM * D * 2, KV_BYTES = BN * D * 2;
	static constexpr int BAR_OFF = Q_BYTES + 2 * ST * KV_BYTES; // after the 1024-aligned base
	static constexpr int NBAR = 1 + 4 * ST;                      // Q full; K full/empty, V full/empty
	static constexpr int SMEM = BAR_OFF + 8 * NBAR + 1024;
	static_assert(SMEM <= 227 * 1024, "more shared memory than an SM has");
};
// The register split (setmaxnreg): the block starts with 168 per thread (65536/384, rounded
// down to 8) and hands the producer's surplus to the consumers: 24·128 + 240·256 = 168·384.
// -DFWG_WS_NO_SETMAXNREG builds without it (diagnostic: every role at 168, the d = 128 consumers
// then spill), should setmaxnreg.inc ever wait for registers that never come.
constexpr int WS_PRODUCER_REGS = 24, WS_CONSUMER_REGS = 240;

// The producer's copy of an R × D tile (fwg_ws_copy): R·D/1024 cp.async of 16 bytes per thread,
// offsets linear in the step.
template <int R, int D> __device__ __forceinline__ void ws_load_tile(uint32_t sdst, const bf16 *__restrict__ g, int wt)
{
	uint32_t so, go;
	fwg_ws_copy(R, D, wt, 0, &so, &go);
	const uint32_t d0 = sdst + so;
	const bf16 *s0 = g + go;
#pragma unroll
	for (int i = 0; i < R * D / 1024; i++)
		cp_async16(d0 + (uint32_t)i * (1024u / D) * 128u, s0 + i * 1024);
}

__device__ __forceinline__ void mbar_init(uint32_t bar, uint32_t count)
{
	asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}
__device__ __forceinline__ void mbar_arrive(uint32_t bar)
{
	asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
}
// Arrive on bar (one of its expected arrivals, no pending-count increment) once all of this
// thread's earlier cp.async copies have completed.
__device__ __forceinline__ void cp_arrive_noinc(uint32_t bar)
{
	asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];\n" ::"r"(bar) : "memory");
}
// Waits until the phase of parity `parity` of bar has completed; traps after ~2 s of clocks
// (a lost arrival would otherwise hang the GPU).
__device__ __forceinline__ void mbar_wait(uint32_t bar, uint32_t parity)
{
	long long t0 = 0;
	for (;;) {
		uint32_t done;
		asm volatile("{\n\t.reg .pred p;\n\t"
			     "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\t"
			     "selp.u32 %0, 1, 0, p;\n\t}"
			     : "=r"(done)
			     : "r"(bar), "r"(parity)
			     : "memory");
		if (done)
			return;
		if (!t0)
			t0 = clock64();
		else if (clock64() - t0 > 4000000000ll)
			__trap();
	}
}
__device__ __forceinline__ void named_sync(int id, int n) { asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(n) : "memory"); }
__device__ __forceinline__ void named_arrive(int id, int n)
{
	asm volatile("bar.arrive %0, %1;\n" ::"r"(id), "r"(n) : "memory");
}

template <int D, int BN, int ST, int PP, int PF, int EX>
__global__ void __launch_bounds__(384, 1)
	fwd_kernel_ws(const bf16 *__restrict__ Q, const bf16 *__restrict__ K, const bf16 *__restrict__ V,
		      bf16 *__restrict__ O, int L, int causal, float scale_log2)
{
	static_assert(D == 64 || D == 128, "head dim 64 or 128");
	static_assert(BN == 64 || BN == 128, "key tile 64 or 128");
	static_assert(ST >= 2 && ST <= 4, "two to four stages");
	typedef WsCfg<D, BN, ST> C;
	constexpr int BM = C::BM;
	extern __shared__ uint8_t smem_raw[];
	const uint32_t sraw = (uint32_t)__cvta_generic_to_shared(smem_raw);
	const uint32_t sQ = (sraw + 1023u) & ~1023u, sK = sQ + C::Q_BYTES, sV = sK + ST * C::KV_BYTES;
	// mbarriers: [0] Q full, [1+s] K full, [1+ST+s] K empty, [1+2ST+s] V full, [1+3ST+s] V empty
	const uint32_t bQ = sQ + C::BAR_OFF, bKf = bQ + 8, bKe = bKf + 8 * ST, bVf = bKe + 8 * ST, bVe = bVf + 8 * ST;

	const int tid = threadIdx.x, wt = tid & 127, lane = tid & 31;
	const int wg = __shfl_sync(0xffffffffu, tid >> 7, 0); // warp-uniform for ptxas
	int hd, qb;
	fwg_block((int)blockIdx.x, (int)(gridDim.x / (unsigned)(L / BM)), L / BM, causal, &hd, &qb);
	const size_t head = (size_t)hd * (size_t)L * D;
	const int q0 = qb * BM;
	const int ntiles = causal ? (q0 + BM - 1) / BN + 1 : L / BN;

	if (tid == 0) {
		mbar_init(bQ, 128);
		for (int s = 0; s < ST; s++) {
			mbar_init(bKf + 8 * s, 128);
			mbar_init(bVf + 8 * s, 128);
			mbar_init(bKe + 8 * s, 8);
			mbar_init(bVe + 8 * s, 8);
		}
	}
	__syncthreads(); // the only block-wide barrier: the inits are visible to every thread

	if (wg == 0) {
		// ---- producer
#ifndef FWG_WS_NO_SETMAXNREG
		asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(WS_PRODUCER_REGS));
#endif
		// the tile just issued signals `bar` full: PF = 0 when the copies land (noinc arrive);
		// PF = 1 after the thread's previous group landed (wait, fence, arrive on `prev`)
		uint32_t prev = 0;
		auto signal = [&](uint32_t bar) {
			if constexpr (PF) {
				cp_commit();
				if (prev) {
					cp_wait<1>();
					asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
					mbar_arrive(prev);
				}
				prev = bar;
			} else {
				cp_arrive_noinc(bar);
			}
		};
		ws_load_tile<BM, D>(sQ, Q + head + (size_t)q0 * D, wt);
		signal(bQ);
		const bf16 *kg = K + head, *vg = V + head;
		int s = 0;
		uint32_t ph = 1; // parity of the empty phase to wait for (round − 1)
#pragma unroll 1
		for (int t = 0; t < ntiles; t++) {
			if (t >= ST)
				mbar_wait(bKe + 8 * s, ph);
			ws_load_tile<BN, D>(sK + s * C::KV_BYTES, kg, wt);
			signal(bKf + 8 * s);
			if (t >= ST)
				mbar_wait(bVe + 8 * s, ph);
			ws_load_tile<BN, D>(sV + s * C::KV_BYTES, vg, wt);
			signal(bVf + 8 * s);
			kg += BN * D;
			vg += BN * D;
			if (++s == ST) {
				s = 0;
				ph ^= 1u;
			}
		}
		asm volatile("cp.async.wait_all;\n" ::: "memory"); // no copy outlives its thread
		if constexpr (PF) {
			asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
			mbar_arrive(prev); // the last tile
		}
		return;
	}

	// ---- consumers
#ifndef FWG_WS_NO_SETMAXNREG
	asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(WS_CONSUMER_REGS));
#endif
	const int c = wg - 1;
	const int wrow0 = q0 + 64 * c;
	const int r0 = wrow0 + 16 * (wt >> 5) + (lane >> 2);
	const int c0 = 2 * (lane & 3);

	float o[D / 2], s[BN / 2];
	uint32_t p[BN / 16][4];
	float m[2] = {-INFINITY, -INFINITY}, l[2] = {0.0f, 0.0f}, alpha[2];
#pragma unroll
	for (int i = 0; i < D / 2; i++)
		o[i] = 0.0f;

	// softmax of S_t in place: mask, running max, exp2, row sums; alpha for O
	auto softmax = [&](int t) {
		tile_softmax<BN, EX>(s, m, l, alpha, causal && t * BN + BN - 1 > wrow0, r0, c0, t * BN, scale_log2);
	};
	auto release = [&](uint32_t bar) {
		if (lane == 0)
			mbar_arrive(bar);
	};

	// Phase k = 0 … ntiles: S_k (k < ntiles) and P_{k−1}·V_{k−1} (k ≥ 1), peeled into
	// phase 0 (S alone), 1 … ntiles−1 (both) and ntiles (P·V alone) so that no branch around a
	// wgmma or its wait remains (ptxas serialises wgmmas otherwise). Stage of tile t: t % ST,
	// parity of its fill: (t / ST) & 1; tracked incrementally (ks/kph: K_k, vs/vph: V_{k−1}).
	int ks = 0, vs = 0;
	uint32_t kph = 0, vph = 0;
	auto phase = [&](int k, auto do_s_t, auto do_pv_t) {
		constexpr bool do_s = decltype(do_s_t)::value, do_pv = decltype(do_pv_t)::value;
		if (do_s)
			mbar_wait(bKf + 8 * ks, kph);
		if (do_pv)
			mbar_wait(bVf + 8 * vs, vph);
		asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
		if (PP && (do_pv || c == 1))
			named_sync(1 + c, 256); // the other consumer issued its phase k−1 (C1: phase k)
		fence_regs(o);
		if constexpr (do_pv)
			fence_regs(p); // P_{k−1} (phase 0 has none yet)
		wg_fence();
		if constexpr (do_s) {
			const uint32_t kt = sK + ks * C::KV_BYTES;
#pragma unroll
			for (int kk = 0; kk < D / 16; kk++)
				wg_ss<BN>(s, fwg_desc_k(sQ, BM, 64 * c, kk), fwg_desc_k(kt, BN, 0, kk), kk > 0);
			wg_commit();
		}
		if constexpr (do_pv) {
			const uint32_t vt = sV + vs * C::KV_BYTES;
#pragma unroll
			for (int kk = 0; kk < BN / 16; kk++)
				wg_rs<D>(o, p[kk], fwg_desc_mn(vt, BN, kk));
			wg_commit();
		}
		if (PP && (do_s || c == 0))
			named_arrive(2 - c, 256); // the other consumer may issue
		if constexpr (do_s) {
			if constexpr (do_pv)
				wg_wait1(); // S_k done; P_{k−1}·V_{k−1} may still run
			else
				wg_wait0();
			release(bKe + 8 * ks);
			if (++ks == ST) {
				ks = 0;
				kph ^= 1u;
			}
			softmax(k);
		}
		if constexpr (do_pv) {
			wg_wait0();
			release(bVe + 8 * vs);
			if (++vs == ST) {
				vs = 0;
				vph ^= 1u;
			}
		}
		fence_regs(o);
		if constexpr (do_s)
			rescale_pack<D, BN>(o, p, s, alpha); // phase 0: O = 0, the rescale is a no-op
	};
	typedef std::integral_constant<bool, true> yes;
	typedef std::integral_constant<bool, false> no;

	mbar_wait(bQ, 0);
	phase(0, yes(), no());
#pragma unroll 1
	for (int k = 1; k < ntiles; k++)
		phase(k, yes(), yes());
	phase(ntiles, no(), yes());

	store_o<D>(o, l, O, head, r0, c0);
}

// Checks the shape, opts the kernel into its shared memory (above 48 KB needs it, once per
// device: one device at a time) and launches one block per BM query rows of every head.
// Returns the first CUDA error (launch included), cudaSuccess, or cudaErrorInvalidValue when
// L or B·H do not fit.
typedef void (*FwdKernel)(const bf16 *, const bf16 *, const bf16 *, bf16 *, int, int, float);
template <int BM, int BN, int THREADS, int SMEM>
inline cudaError_t launch_kernel(FwdKernel kern, int &opted_in_dev, const void *q, const void *k, const void *v,
				 void *o, int bh, int L, int causal, float scale, cudaStream_t st)
{
	if (bh <= 0 || L <= 0 || L % BM || L % BN || (long long)bh * (L / BM) > 0x7fffffff)
		return cudaErrorInvalidValue;
	int dev;
	cudaError_t e = cudaGetDevice(&dev);
	if (e != cudaSuccess)
		return e;
	if (opted_in_dev != dev) {
		e = cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM);
		if (e != cudaSuccess)
			return e;
		opted_in_dev = dev;
	}
	dim3 grid(bh * (L / BM));
	kern<<<grid, THREADS, SMEM, st>>>((const bf16 *)q, (const bf16 *)k, (const bf16 *)v, (bf16 *)o, L, causal,
					  scale * 1.4426950408889634f);
	return cudaGetLastError();
}

// Launches one configuration (the contract of launch_kernel; L % 128, d ∈ {64, 128}).
// OV = 0: fwd_kernel (two K/V buffers); OV = 2 or 3: fwd_kernel_ov with that many buffers.
template <int D, int BN, int NWG, int OV>
inline cudaError_t launch_cfg(const void *q, const void *k, const void *v, void *o, int bh, int L, int causal,
			      float scale, cudaStream_t st)
{
	typedef Cfg<D, BN, NWG, OV ? OV : 2> C;
	FwdKernel kern;
	if constexpr (OV != 0)
		kern = fwd_kernel_ov<D, BN, NWG, OV ? OV : 2>;
	else
		kern = fwd_kernel<D, BN, NWG>;
	static int opted_in_dev = -1;
	return launch_kernel<C::BM, BN, C::THREADS, C::SMEM>(kern, opted_in_dev, q, k, v, o, bh, L, causal, scale, st);
}

// Launches fwd_kernel_ws<D, BN, ST, PP, PF, EX> (384 threads, BM = 128); the contract of launch_kernel.
template <int D, int BN, int ST, int PP, int PF = 0, int EX = 0>
inline cudaError_t launch_ws(const void *q, const void *k, const void *v, void *o, int bh, int L, int causal,
			     float scale, cudaStream_t st)
{
	typedef WsCfg<D, BN, ST> C;
	static int opted_in_dev = -1;
	return launch_kernel<C::BM, BN, C::THREADS, C::SMEM>(fwd_kernel_ws<D, BN, ST, PP, PF, EX>, opted_in_dev, q, k, v, o,
							      bh, L, causal, scale, st);
}

// The configuration `gpudiag lab attention` runs per head dim (GPUDIAG_FLASH_WGMMA_CFG overrides
// it there): cfg 14, "BN128 ws2" (fwd_kernel_ws: a producer warpgroup and two consumer
// warpgroups on two-stage mbarrier rings, 128-key tiles, no ping-pong), at both d. H200,
// 2026-12-03 00:42 UTC, flash_sweep --quick: 606 / 539 TFLOP/s at L 4096 d 128 (causal 0 / 1),
// 641 / 604 at L 8192, 459 / 428 at L 8192 d 64; the ping-pong and three-stage variants were
// within ±2 % of it at d = 128 and slower at d = 64; the best kernel before it, cfg 4 (d 128)
// and cfg 7 (d 64), ran 446 / 413, 470 / 459 and 408 / 389 in the same processes.
constexpr int LAB_CFG_D128 = 14, LAB_CFG_D64 = 14;
inline int lab_cfg(int d) { return d == 64 ? LAB_CFG_D64 : LAB_CFG_D128; }

// The configurations built. "ov": fwd_kernel_ov (softmax overlapped
// with P·V), "ov3": the same with three K/V buffers.
// "1wg ov": one warpgroup (64 query rows) per block, so two or three blocks share an SM when
// shared memory allows and one block's softmax runs while another's wgmmas do (the
// scheduler's ping-pong, without FA3's named barriers).
// "wsN": fwd_kernel_ws, a producer warpgroup and two consumer warpgroups, N-stage K and V
// rings; "pp": with the consumers' named-barrier ping-pong; "pf": the producer fences its own
// completed copies before arriving (PF = 1, a hedge; ws = 2 in the table); "eK": K of every
// 8 softmax exponentials computed by fwg_ex2_poly on the FP32/integer pipes, not the SFU.
enum { NCFG = 22 };
struct CfgInfo {
	const char *name;
	int bn, nwg, ov; // ov: 0, or the buffer count of fwd_kernel_ov (fwd_kernel_ws: its stage count)
	int ws, pp;      // fwd_kernel_ws (nwg = consumer warpgroups; 2: PF = 1), with ping-pong
};
inline const CfgInfo &cfg_info(int c)
{
	static const CfgInfo t[NCFG + 1] = {
		{"BN128 2wg", 128, 2, 0, 0, 0},      {"BN64 2wg", 64, 2, 0, 0, 0},        {"BN128 1wg", 128, 1, 0, 0, 0},
		{"BN64 1wg", 64, 1, 0, 0, 0},        {"BN128 2wg ov", 128, 2, 2, 0, 0},   {"BN64 2wg ov", 64, 2, 2, 0, 0},
		{"BN128 2wg ov3", 128, 2, 3, 0, 0},  {"BN64 2wg ov3", 64, 2, 3, 0, 0},    {"BN64 1wg ov", 64, 1, 2, 0, 0},
		{"BN128 1wg ov", 128, 1, 2, 0, 0},   {"BN64 1wg ov3", 64, 1, 3, 0, 0},    {"BN128 1wg ov3", 128, 1, 3, 0, 0},
		{"BN128 ws2 pp", 128, 2, 2, 1, 1},   {"BN128 ws3 pp", 128, 2, 3, 1, 1},   {"BN128 ws2", 128, 2, 2, 1, 0},
		{"BN128 ws3", 128, 2, 3, 1, 0},      {"BN64 ws4 pp", 64, 2, 4, 1, 1},     {"BN64 ws4", 64, 2, 4, 1, 0},
		{"BN128 ws2 pp pf", 128, 2, 2, 2, 1}, {"BN128 ws2 e2", 128, 2, 2, 1, 0},  {"BN128 ws2 e3", 128, 2, 2, 1, 0},
		{"BN128 ws2 e4", 128, 2, 2, 1, 0},   {"?", 0, 0, 0, 0, 0}};
	return t[c >= 0 && c < NCFG ? c : NCFG];
}
inline const char *cfg_name(int c) { return cfg_info(c).name; }
inline size_t cfg_smem(int c, int d)
{
	const CfgInfo &i = cfg_info(c);
	if ((d != 64 && d != 128) || !i.bn)
		return 0;
	if (i.ws) // Q, K and V rings, the mbarriers (1 + 4·stages), alignment
		return (size_t)(128 * d * 2 + 2 * i.ov * i.bn * d * 2 + 8 * (1 + 4 * i.ov) + 1024);
	return (size_t)(64 * i.nwg * d * 2 + 2 * (i.ov == 3 ? 3 : 2) * i.bn * d * 2 + 1024);
}

template <int D>
inline cudaError_t launch_d(int c, const void *q, const void *k, const void *v, void *o, int bh, int L, int causal,
			    float scale, cudaStream_t st)
{
	switch (c) {
	case 0: return launch_cfg<D, 128, 2, 0>(q, k, v, o, bh, L, causal, scale, st);
	case 1: return launch_cfg<D, 64, 2, 0>(q, k, v, o, bh, L, causal, scale, st);
	case 2: return launch_cfg<D, 128, 1, 0>(q, k, v, o, bh, L, causal, scale, st);
	case 3: return launch_cfg<D, 64, 1, 0>(q, k, v, o, bh, L, causal, scale, st);
	case 4: return launch_cfg<D, 128, 2, 2>(q, k, v, o, bh, L, causal, scale, st);
	case 5: return launch_cfg<D, 64, 2, 2>(q, k, v, o, bh, L, causal, scale, st);
	case 6: return launch_cfg<D, 128, 2, 3>(q, k, v, o, bh, L, causal, scale, st);
	case 7: return launch_cfg<D, 64, 2, 3>(q, k, v, o, bh, L, causal, scale, st);
	case 8: return launch_cfg<D, 64, 1, 2>(q, k, v, o, bh, L, causal, scale, st);
	case 9: return launch_cfg<D, 128, 1, 2>(q, k, v, o, bh, L, causal, scale, st);
	case 10: return launch_cfg<D, 64, 1, 3>(q, k, v, o, bh, L, causal, scale, st);
	case 11: return launch_cfg<D, 128, 1, 3>(q, k, v, o, bh, L, causal, scale, st);
	case 12: return launch_ws<D, 128, 2, 1>(q, k, v, o, bh, L, causal, scale, st);
	case 13: return launch_ws<D, 128, 3, 1>(q, k, v, o, bh, L, causal, scale, st);
	case 14: return launch_ws<D, 128, 2, 0>(q, k, v, o, bh, L, causal, scale, st);
	case 15: return launch_ws<D, 128, 3, 0>(q, k, v, o, bh, L, causal, scale, st);
	case 16: return launch_ws<D, 64, 4, 1>(q, k, v, o, bh, L, causal, scale, st);
	case 17: return launch_ws<D, 64, 4, 0>(q, k, v, o, bh, L, causal, scale, st);
	case 18: return launch_ws<D, 128, 2, 1, 1>(q, k, v, o, bh, L, causal, scale, st);
	case 19: return launch_ws<D, 128, 2, 0, 0, 2>(q, k, v, o, bh, L, causal, scale, st);
	case 20: return launch_ws<D, 128, 2, 0, 0, 3>(q, k, v, o, bh, L, causal, scale, st);
	case 21: return launch_ws<D, 128, 2, 0, 0, 4>(q, k, v, o, bh, L, causal, scale, st);
	default: return cudaErrorInvalidValue;
	}
}

// Attention forward with configuration c (0 … NCFG-1), d ∈ {64, 128}.
inline cudaError_t launch(int c, const void *q, const void *k, const void *v, void *o, int bh, int L, int d,
			  int causal, float scale, cudaStream_t st)
{
	if (d == 64)
		return launch_d<64>(c, q, k, v, o, bh, L, causal, scale, st);
	if (d == 128)
		return launch_d<128>(c, q, k, v, o, bh, L, causal, scale, st);
	return cudaErrorInvalidValue;
}

} // namespace fwg
