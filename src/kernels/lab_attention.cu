/* Attention forward kernels for `gpudiag lab attention`: a FlashAttention-style kernel
 * (online softmax, tensor cores through mma.sync) and the pieces of the naive path
 * (softmax over a materialised S, a transpose, CUDA-core fallbacks for the products).
 *
 * The flash kernel, per block of 64 query rows of one head (4 warps, 16 rows each):
 *   Q tile → shared → registers (A fragments, once);
 *   for each 64-key tile j (K_j, V_j double-buffered with cp.async, prefetching j+1):
 *     S = Q·K_jᵀ            mma.sync m16n8k16, K fragments by ldmatrix (no transpose)
 *     causal mask, running max m, rescale α = 2^(m_old − m_new) of l and O
 *     P = 2^(S·scale·log2e − m)   stays in registers, re-packed as BF16 A fragments
 *     O += P·V_j            V fragments by ldmatrix.trans
 *   O /= l, written once.
 * Shared memory rows are D BF16 values; 16-byte chunks are XOR-swizzled with (row & 7) so
 * the eight row addresses of every ldmatrix land in eight different bank groups.
 * BF16 mma.sync and cp.async need sm_80; on older devices the entry returns GD_ENOGPU and
 * the device code compiles to nothing. On Hopper mma.sync cannot reach the wgmma peak
 * (docs/measuring.md pitfall 9): figures from this kernel are labelled "mma.sync". */
#include "kernels/lab_attention.h"

#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "kernels/cuda_why.cuh"

typedef __nv_bfloat16 bf16;

#define FA_CK(call) GD_CUDA_WHY(call)

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define FA_DEVICE_OK 1
#else
#define FA_DEVICE_OK 0
#endif

/* ---------------------------------------------------------------- PTX wrappers */

__device__ __forceinline__ unsigned smem_u32(const void *p)
{
	return (unsigned)__cvta_generic_to_shared(p);
}

__device__ __forceinline__ void cp_async16(void *dst, const void *src)
{
#if FA_DEVICE_OK
	asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(smem_u32(dst)), "l"(src));
#endif
}
__device__ __forceinline__ void cp_commit(void)
{
#if FA_DEVICE_OK
	asm volatile("cp.async.commit_group;\n" ::);
#endif
}
template <int N> __device__ __forceinline__ void cp_wait(void)
{
#if FA_DEVICE_OK
	asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
#endif
}

__device__ __forceinline__ void ldsm_x4(unsigned &r0, unsigned &r1, unsigned &r2, unsigned &r3,
					const void *p)
{
#if FA_DEVICE_OK
	asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
		     : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
		     : "r"(smem_u32(p)));
#endif
}
__device__ __forceinline__ void ldsm_x4_t(unsigned &r0, unsigned &r1, unsigned &r2, unsigned &r3,
					  const void *p)
{
#if FA_DEVICE_OK
	asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
		     : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
		     : "r"(smem_u32(p)));
#endif
}

/* d[0..3] += A(16×16, row) · B(16×8, col); FP32 accumulate. */
__device__ __forceinline__ void mma_bf16(float *d, const unsigned *a, unsigned b0, unsigned b1)
{
#if FA_DEVICE_OK
	asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
		     "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
		     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
		     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
#endif
}

__device__ __forceinline__ unsigned pack_bf16(float lo, float hi)
{
	__nv_bfloat162 v = __floats2bfloat162_rn(lo, hi); /* .x (low 16 bits) = lo */
	return *reinterpret_cast<unsigned *>(&v);
}

/* 2^x by the SFU alone (ex2.approx.ftz: ≤ 2 ulp, results below 2^-126 are 0, 2^-inf = 0).
 * exp2f without -use_fast_math is ex2.approx without ftz, which adds a range test and two
 * multiplies around every MUFU.EX2: on the softmax path that is most of the non-tensor work
 * per score. A probability below 2^-126 contributes nothing visible in BF16 either way. */
__device__ __forceinline__ float fa_exp2(float x)
{
	float r;
	asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
	return r;
}

/* ---------------------------------------------------------------- flash kernel */

#define FA_BC 64
#define FA_THREADS 128

/* Element offset of (row, 16-byte chunk) in a swizzled tile whose rows hold D values. */
template <int D> __device__ __forceinline__ int swz(int row, int chunk)
{
	return row * D + ((chunk ^ (row & 7)) << 3);
}

/* Copies a rows × D tile from global (row stride D) to swizzled shared memory. */
template <int D>
__device__ __forceinline__ void load_tile(bf16 *dst, const bf16 *src, int rows, int tid)
{
	constexpr int CH = D / 8;
	for (int c = tid; c < rows * CH; c += FA_THREADS) {
		int r = c / CH, ch = c % CH;
		cp_async16(dst + swz<D>(r, ch), src + (size_t)r * D + ch * 8);
	}
}

/* MT = m16 row tiles per warp: 1 → 16 rows per warp, 64 per block, Q kept in registers;
 * 2 → 32 rows per warp, 128 per block, Q in registers at D = 64 (223 registers) and re-read
 * from shared memory each key tile at D = 128 (no registers left), every K
 * and V fragment used twice (half the shared-memory traffic per mma). */
template <int D, int MT>
__global__ void __launch_bounds__(FA_THREADS)
	fa_fwd_kernel(const bf16 *__restrict__ Q, const bf16 *__restrict__ K,
		      const bf16 *__restrict__ V, bf16 *__restrict__ O, int L, int causal,
		      float scale_log2)
{
#if FA_DEVICE_OK
	constexpr int BR = 64 * MT;       /* query rows per block */
	constexpr int WR = 16 * MT;       /* query rows per warp */
	constexpr bool QREG = MT == 1 || D == 64; /* Q fragments live in registers */
	extern __shared__ __align__(128) unsigned char fa_smem[];
	bf16 *sQ = reinterpret_cast<bf16 *>(fa_smem);
	bf16 *sK = sQ + BR * D;        /* two buffers of FA_BC × D */
	bf16 *sV = sK + 2 * FA_BC * D; /* two buffers of FA_BC × D */

	const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31;
	const int g = lane >> 2, t = lane & 3;
	const int nqb = L / BR;
	/* Causal blocks near the end have the most work: start them first. */
	const int qb = causal ? (nqb - 1 - (int)blockIdx.x) : (int)blockIdx.x;
	const size_t head = (size_t)blockIdx.y * (size_t)L * D;
	const bf16 *q = Q + head + (size_t)qb * BR * D;
	const bf16 *k = K + head;
	const bf16 *v = V + head;
	bf16 *o = O + head + (size_t)qb * BR * D;
	const int nkb = causal ? (qb * BR + BR + FA_BC - 1) / FA_BC : L / FA_BC;
	const int row0 = qb * BR + warp * WR; /* first query row of this warp */

	load_tile<D>(sQ, q, BR, tid);
	load_tile<D>(sK, k, FA_BC, tid);
	load_tile<D>(sV, v, FA_BC, tid);
	cp_commit();

	unsigned qf[QREG ? MT : 1][QREG ? D / 16 : 1][4];
	float oacc[MT][D / 8][4];
#pragma unroll
	for (int mt = 0; mt < MT; mt++)
#pragma unroll
		for (int i = 0; i < D / 8; i++)
			oacc[mt][i][0] = oacc[mt][i][1] = oacc[mt][i][2] = oacc[mt][i][3] = 0.f;
	float m_r[MT][2], l_r[MT][2]; /* running max of S·scale·log2e (rows g, g+8), this thread's sum */
#pragma unroll
	for (int mt = 0; mt < MT; mt++) {
		m_r[mt][0] = m_r[mt][1] = -INFINITY;
		l_r[mt][0] = l_r[mt][1] = 0.f;
	}

	for (int j = 0; j < nkb; j++) {
		const int buf = j & 1;
		if (j + 1 < nkb) {
			load_tile<D>(sK + (buf ^ 1) * FA_BC * D, k + (size_t)(j + 1) * FA_BC * D, FA_BC, tid);
			load_tile<D>(sV + (buf ^ 1) * FA_BC * D, v + (size_t)(j + 1) * FA_BC * D, FA_BC, tid);
		}
		cp_commit();
		cp_wait<1>(); /* everything but the prefetch just issued has landed */
		__syncthreads();
		if (QREG && j == 0) {
#pragma unroll
			for (int mt = 0; mt < (QREG ? MT : 1); mt++)
#pragma unroll
				for (int kk = 0; kk < (QREG ? D / 16 : 1); kk++) {
					int r = warp * WR + mt * 16 + (lane & 15), ch = kk * 2 + (lane >> 4);
					ldsm_x4(qf[mt][kk][0], qf[mt][kk][1], qf[mt][kk][2], qf[mt][kk][3],
						sQ + swz<D>(r, ch));
				}
		}
		const bf16 *cK = sK + buf * FA_BC * D, *cV = sV + buf * FA_BC * D;
		const int kv0 = j * FA_BC;
		if (!(causal && kv0 > row0 + WR - 1)) {
			float s[MT][FA_BC / 8][4];
#pragma unroll
			for (int mt = 0; mt < MT; mt++)
#pragma unroll
				for (int i = 0; i < FA_BC / 8; i++)
					s[mt][i][0] = s[mt][i][1] = s[mt][i][2] = s[mt][i][3] = 0.f;
			/* S = Q·Kᵀ: B(k = head dim, n = key) is K read row-wise, so no transpose. */
#pragma unroll
			for (int kk = 0; kk < D / 16; kk++) {
				unsigned qa[MT][4];
				if constexpr (QREG) {
#pragma unroll
					for (int mt = 0; mt < MT; mt++)
#pragma unroll
						for (int e = 0; e < 4; e++)
							qa[mt][e] = qf[mt][kk][e];
				} else {
#pragma unroll
					for (int mt = 0; mt < MT; mt++) {
						int r = warp * WR + mt * 16 + (lane & 15), ch = kk * 2 + (lane >> 4);
						ldsm_x4(qa[mt][0], qa[mt][1], qa[mt][2], qa[mt][3], sQ + swz<D>(r, ch));
					}
				}
#pragma unroll
				for (int nb = 0; nb < FA_BC / 16; nb++) {
					int r = nb * 16 + (lane & 7) + ((lane >> 4) << 3);
					int ch = kk * 2 + ((lane >> 3) & 1);
					unsigned b0, b1, b2, b3;
					ldsm_x4(b0, b1, b2, b3, cK + swz<D>(r, ch));
#pragma unroll
					for (int mt = 0; mt < MT; mt++) {
						mma_bf16(s[mt][2 * nb], qa[mt], b0, b1);
						mma_bf16(s[mt][2 * nb + 1], qa[mt], b2, b3);
					}
				}
			}
#pragma unroll
			for (int mt = 0; mt < MT; mt++) {
				const int rb = row0 + mt * 16; /* first row of this m16 tile */
				if (causal && kv0 + FA_BC - 1 > rb) {
#pragma unroll
					for (int i = 0; i < FA_BC / 8; i++)
#pragma unroll
						for (int e = 0; e < 4; e++) {
							int col = kv0 + i * 8 + 2 * t + (e & 1);
							int row = rb + g + (e >> 1) * 8;
							if (col > row)
								s[mt][i][e] = -INFINITY;
						}
				}
				/* Online softmax, in the log2 domain. */
#pragma unroll
				for (int h = 0; h < 2; h++) {
					float mx = -INFINITY;
#pragma unroll
					for (int i = 0; i < FA_BC / 8; i++)
						mx = fmaxf(mx, fmaxf(s[mt][i][2 * h], s[mt][i][2 * h + 1]));
					mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
					mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
					float mnew = fmaxf(m_r[mt][h], mx * scale_log2);
					/* A row with nothing unmasked yet keeps m = -inf; subtracting 0
					 * then keeps every exp2 at exactly 0 instead of NaN. */
					float msafe = mnew == -INFINITY ? 0.f : mnew;
					float alpha = fa_exp2(m_r[mt][h] - msafe);
					m_r[mt][h] = mnew;
					float rs = 0.f;
#pragma unroll
					for (int i = 0; i < FA_BC / 8; i++) {
						float p0 = fa_exp2(fmaf(s[mt][i][2 * h], scale_log2, -msafe));
						float p1 = fa_exp2(fmaf(s[mt][i][2 * h + 1], scale_log2, -msafe));
						s[mt][i][2 * h] = p0;
						s[mt][i][2 * h + 1] = p1;
						rs += p0 + p1;
					}
					l_r[mt][h] = l_r[mt][h] * alpha + rs;
#pragma unroll
					for (int i = 0; i < D / 8; i++) {
						oacc[mt][i][2 * h] *= alpha;
						oacc[mt][i][2 * h + 1] *= alpha;
					}
				}
			}
			/* O += P·V: the S accumulators of two adjacent n8 tiles are exactly one
			 * m16k16 A fragment; V fragments come from ldmatrix.trans. */
#pragma unroll
			for (int kc = 0; kc < FA_BC / 16; kc++) {
				unsigned a[MT][4];
#pragma unroll
				for (int mt = 0; mt < MT; mt++) {
					a[mt][0] = pack_bf16(s[mt][2 * kc][0], s[mt][2 * kc][1]);
					a[mt][1] = pack_bf16(s[mt][2 * kc][2], s[mt][2 * kc][3]);
					a[mt][2] = pack_bf16(s[mt][2 * kc + 1][0], s[mt][2 * kc + 1][1]);
					a[mt][3] = pack_bf16(s[mt][2 * kc + 1][2], s[mt][2 * kc + 1][3]);
				}
#pragma unroll
				for (int dn = 0; dn < D / 16; dn++) {
					int r = kc * 16 + (lane & 7) + (((lane >> 3) & 1) << 3);
					int ch = dn * 2 + (lane >> 4);
					unsigned b0, b1, b2, b3;
					ldsm_x4_t(b0, b1, b2, b3, cV + swz<D>(r, ch));
#pragma unroll
					for (int mt = 0; mt < MT; mt++) {
						mma_bf16(oacc[mt][2 * dn], a[mt], b0, b1);
						mma_bf16(oacc[mt][2 * dn + 1], a[mt], b2, b3);
					}
				}
			}
		}
		__syncthreads(); /* the next iteration overwrites the other buffer */
	}
#pragma unroll
	for (int mt = 0; mt < MT; mt++)
#pragma unroll
		for (int h = 0; h < 2; h++) {
			float l = l_r[mt][h];
			l += __shfl_xor_sync(0xffffffffu, l, 1);
			l += __shfl_xor_sync(0xffffffffu, l, 2);
			float inv = l > 0.f ? 1.f / l : 0.f;
			bf16 *orow = o + (size_t)(warp * WR + mt * 16 + g + h * 8) * D;
#pragma unroll
			for (int i = 0; i < D / 8; i++)
				*reinterpret_cast<unsigned *>(orow + i * 8 + 2 * t) =
					pack_bf16(oacc[mt][i][2 * h] * inv, oacc[mt][i][2 * h + 1] * inv);
		}
#endif
}

extern "C" size_t gd_attn_flash_smem(int d, int rows_per_warp)
{
	int br = 4 * (rows_per_warp == 32 ? 32 : 16);
	return (size_t)(br * d + 4 * FA_BC * d) * sizeof(bf16);
}

template <int D, int MT>
static int fa_launch(const void *q, const void *k, const void *v, void *o, int bh, int l,
		     int causal, float scale, cudaStream_t st, char *why, size_t n)
{
	size_t smem = gd_attn_flash_smem(D, 16 * MT);
	/* Above 48 KB needs the opt-in; set once per device (the host code uses one device). */
	static int opted_in_dev = -1;
	int dev;
	FA_CK(cudaGetDevice(&dev));
	if (opted_in_dev != dev) {
		FA_CK(cudaFuncSetAttribute(fa_fwd_kernel<D, MT>, cudaFuncAttributeMaxDynamicSharedMemorySize,
					   (int)smem));
		opted_in_dev = dev;
	}
	dim3 grid(l / (64 * MT), bh);
	fa_fwd_kernel<D, MT><<<grid, FA_THREADS, smem, st>>>(
		(const bf16 *)q, (const bf16 *)k, (const bf16 *)v, (bf16 *)o, l, causal,
		scale * 1.4426950408889634f);
	FA_CK(cudaGetLastError());
	return GD_OK;
}

extern "C" int gd_attn_flash(const void *q, const void *k, const void *v, void *o, int bh, int l,
			     int d, int causal, float scale, int rows_per_warp, void *stream,
			     char *why, size_t n)
{
	int dev, major = 0;
	FA_CK(cudaGetDevice(&dev));
	FA_CK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
	if (major < 8) {
		snprintf(why, n, "the flash kernel needs BF16 mma.sync and cp.async (compute capability 8.0 or newer)");
		return GD_ENOGPU;
	}
	if (rows_per_warp != 16 && rows_per_warp != 32) {
		snprintf(why, n, "flash kernel: %d rows per warp not built (16 or 32)", rows_per_warp);
		return GD_EUSAGE;
	}
	const int br = 4 * rows_per_warp;
	if (l <= 0 || l % br || bh <= 0 || bh > 65535) {
		snprintf(why, n, "flash kernel: L must be a positive multiple of %d and B·H ≤ 65535", br);
		return GD_EUSAGE;
	}
	cudaStream_t st = (cudaStream_t)stream;
	if (d == 64)
		return rows_per_warp == 16 ? fa_launch<64, 1>(q, k, v, o, bh, l, causal, scale, st, why, n)
					   : fa_launch<64, 2>(q, k, v, o, bh, l, causal, scale, st, why, n);
	if (d == 128)
		return rows_per_warp == 16 ? fa_launch<128, 1>(q, k, v, o, bh, l, causal, scale, st, why, n)
					   : fa_launch<128, 2>(q, k, v, o, bh, l, causal, scale, st, why, n);
	snprintf(why, n, "flash kernel: head dim %d not built (64 or 128)", d);
	return GD_EUSAGE;
}

/* ---------------------------------------------------------------- naive path */

/* One block per row; the row (≤ 32 KB for L = 16k) is read three times: max, sum, write.
 * Re-reads hit L1/L2. 16-byte vector accesses; L % 8 == 0. */
#define SM_THREADS 256

__device__ __forceinline__ float block_reduce(float v, int is_max, float *red)
{
#pragma unroll
	for (int o = 16; o; o >>= 1) {
		float w = __shfl_xor_sync(0xffffffffu, v, o);
		v = is_max ? fmaxf(v, w) : v + w;
	}
	int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
	__syncthreads(); /* red may still be read from the previous reduction */
	if (lane == 0)
		red[warp] = v;
	__syncthreads();
	v = red[0];
	for (int i = 1; i < (int)(blockDim.x >> 5); i++)
		v = is_max ? fmaxf(v, red[i]) : v + red[i];
	return v;
}

__global__ void __launch_bounds__(SM_THREADS)
	softmax_rows_kernel(bf16 *S, int L, int causal, float scale_log2)
{
	__shared__ float red[SM_THREADS / 32];
	const size_t rowi = blockIdx.x;
	const int qrow = (int)(rowi % (size_t)L); /* query index within the head */
	uint4 *row = reinterpret_cast<uint4 *>(S + rowi * (size_t)L);
	const int nvec = L / 8;
	const int lim = causal ? qrow : L - 1; /* last column kept */
	float mx = -INFINITY;
	for (int i = threadIdx.x; i < nvec; i += blockDim.x) {
		uint4 u = row[i];
		const bf16 *e = reinterpret_cast<const bf16 *>(&u);
#pragma unroll
		for (int c = 0; c < 8; c++)
			if (i * 8 + c <= lim)
				mx = fmaxf(mx, __bfloat162float(e[c]));
	}
	mx = block_reduce(mx, 1, red) * scale_log2;
	float sum = 0.f;
	for (int i = threadIdx.x; i < nvec; i += blockDim.x) {
		uint4 u = row[i];
		const bf16 *e = reinterpret_cast<const bf16 *>(&u);
#pragma unroll
		for (int c = 0; c < 8; c++)
			if (i * 8 + c <= lim)
				sum += exp2f(fmaf(__bfloat162float(e[c]), scale_log2, -mx));
	}
	float inv = 1.f / block_reduce(sum, 0, red);
	for (int i = threadIdx.x; i < nvec; i += blockDim.x) {
		uint4 u = row[i];
		bf16 *e = reinterpret_cast<bf16 *>(&u);
#pragma unroll
		for (int c = 0; c < 8; c++) {
			float p = i * 8 + c <= lim ? exp2f(fmaf(__bfloat162float(e[c]), scale_log2, -mx)) * inv : 0.f;
			e[c] = __float2bfloat16(p);
		}
		row[i] = u;
	}
}

extern "C" int gd_attn_softmax_rows(void *s, int bh, int l, int causal, float scale, void *stream,
				    char *why, size_t n)
{
	if (l <= 0 || l % 8 || bh <= 0) {
		snprintf(why, n, "softmax: L must be a positive multiple of 8");
		return GD_EUSAGE;
	}
	size_t rows = (size_t)bh * (size_t)l;
	if (rows > 0x7fffffffu) {
		snprintf(why, n, "softmax: too many rows (%zu)", rows);
		return GD_EUSAGE;
	}
	softmax_rows_kernel<<<(unsigned)rows, SM_THREADS, 0, (cudaStream_t)stream>>>(
		(bf16 *)s, l, causal, scale * 1.4426950408889634f);
	FA_CK(cudaGetLastError());
	return GD_OK;
}

/* 32×32 tile transpose through shared memory (+1 column of padding against bank
 * conflicts), one head per grid z. */
__global__ void transpose_kernel(const bf16 *__restrict__ in, bf16 *__restrict__ out, int L, int D)
{
	__shared__ bf16 tile[32][33];
	const size_t head = (size_t)blockIdx.z * (size_t)L * D;
	int x = blockIdx.x * 32 + threadIdx.x; /* column in [0, D) */
	for (int yy = threadIdx.y; yy < 32; yy += blockDim.y) {
		int y = blockIdx.y * 32 + yy; /* row in [0, L) */
		if (x < D && y < L)
			tile[yy][threadIdx.x] = in[head + (size_t)y * D + x];
	}
	__syncthreads();
	int ox = blockIdx.y * 32 + threadIdx.x; /* column of out = row of in */
	for (int yy = threadIdx.y; yy < 32; yy += blockDim.y) {
		int oy = blockIdx.x * 32 + yy; /* row of out = column of in */
		if (ox < L && oy < D)
			out[head + (size_t)oy * L + ox] = tile[threadIdx.x][yy];
	}
}

extern "C" int gd_attn_transpose(const void *v, void *vt, int bh, int l, int d, void *stream,
				 char *why, size_t n)
{
	if (bh <= 0 || bh > 65535 || l <= 0 || d <= 0) {
		snprintf(why, n, "transpose: bad shape");
		return GD_EUSAGE;
	}
	dim3 grid((d + 31) / 32, (l + 31) / 32, bh), block(32, 8);
	transpose_kernel<<<grid, block, 0, (cudaStream_t)stream>>>((const bf16 *)v, (bf16 *)vt, l, d);
	FA_CK(cudaGetLastError());
	return GD_OK;
}

/* C[i][j] = Σ_k A[i][k]·B[j][k] per head, FP32 accumulate, BF16 out; 16×16 tiles. Used as
 * S = Q·Kᵀ (m = n = L, k = d) when cuBLASLt is unavailable. */
__global__ void gemm_abt_simt(const bf16 *__restrict__ A, const bf16 *__restrict__ B,
			      bf16 *__restrict__ C, int M, int N, int Kd, size_t sa, size_t sb, size_t sc)
{
	__shared__ float ta[16][17], tb[16][17];
	A += blockIdx.z * sa;
	B += blockIdx.z * sb;
	C += blockIdx.z * sc;
	int i = blockIdx.y * 16 + threadIdx.y, j = blockIdx.x * 16 + threadIdx.x;
	float acc = 0.f;
	for (int k0 = 0; k0 < Kd; k0 += 16) {
		int ka = k0 + threadIdx.x;
		int ib = blockIdx.x * 16 + threadIdx.y;
		ta[threadIdx.y][threadIdx.x] = (i < M && ka < Kd) ? __bfloat162float(A[(size_t)i * Kd + ka]) : 0.f;
		tb[threadIdx.y][threadIdx.x] = (ib < N && ka < Kd) ? __bfloat162float(B[(size_t)ib * Kd + ka]) : 0.f;
		__syncthreads();
#pragma unroll
		for (int kk = 0; kk < 16; kk++)
			acc = fmaf(ta[threadIdx.y][kk], tb[threadIdx.x][kk], acc);
		__syncthreads();
	}
	if (i < M && j < N)
		C[(size_t)i * N + j] = __float2bfloat16(acc);
}

extern "C" int gd_attn_qk_simt(const void *q, const void *k, void *s, int bh, int l, int d,
			       void *stream, char *why, size_t n)
{
	if (bh <= 0 || bh > 65535 || l <= 0 || d <= 0) {
		snprintf(why, n, "qk: bad shape");
		return GD_EUSAGE;
	}
	dim3 grid((l + 15) / 16, (l + 15) / 16, bh), block(16, 16);
	gemm_abt_simt<<<grid, block, 0, (cudaStream_t)stream>>>(
		(const bf16 *)q, (const bf16 *)k, (bf16 *)s, l, l, d, (size_t)l * d, (size_t)l * d,
		(size_t)l * l);
	FA_CK(cudaGetLastError());
	return GD_OK;
}

/* O = P·V with Vᵀ given ([d][L]): C = P·(Vᵀ)ᵀ, the same A·Bᵀ kernel with n = d, k = L. */
extern "C" int gd_attn_pv_simt(const void *p, const void *vt, void *o, int bh, int l, int d,
			       void *stream, char *why, size_t n)
{
	if (bh <= 0 || bh > 65535 || l <= 0 || d <= 0) {
		snprintf(why, n, "pv: bad shape");
		return GD_EUSAGE;
	}
	dim3 grid((d + 15) / 16, (l + 15) / 16, bh), block(16, 16);
	gemm_abt_simt<<<grid, block, 0, (cudaStream_t)stream>>>(
		(const bf16 *)p, (const bf16 *)vt, (bf16 *)o, l, d, l, (size_t)l * l, (size_t)d * l,
		(size_t)l * d);
	FA_CK(cudaGetLastError());
	return GD_OK;
}
