/* ln_sweep: a standalone sweep of fused LayerNorm+GeLU kernel designs for the H200, to pick the
 * one `gpudiag lab fusion` should port (src/kernels/lab_fusion.cu is not touched).
 *
 *   nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -o ln_sweep tests/gpu/ln_sweep.cu
 *   ./ln_sweep [KINDS|all [ROWS]]   (about 10 s; KINDS, e.g. RT, runs only those variant kinds;
 *                                   ROWS, default 8192, a larger x: 65536 = 512 MiB each way)
 *
 * What it measures. Shape: x BF16 [ROWS x 4096] (ROWS 8192 unless given: 64 MiB), gamma/beta
 * FP32 [4096], y BF16, eps 1e-5, y = GeLU(LayerNorm(x)) with the erf-form GeLU (PyTorch's
 * default), or plain LayerNorm for the variants marked gelu=none. Bytes per launch =
 * read x + write y = 2 x the bytes of x (gamma/beta, 32 KB, are not counted); GB = 1e9 bytes.
 * Anchors in the same run: cudaMemcpyAsync device to device x -> y and a 16-byte-vector copy
 * kernel, bytes counted the same way;
 * ratio_to_copy divides by the faster of the two anchors' medians.
 *
 * How. Four x buffers (identical content) and four y buffers are used in rotation, so a launch
 * never finds its input in the 50 MB L2 from the launch before. Per variant: every y buffer is
 * poisoned (0xFF bytes = BF16 NaN), 3 warm-up launches, then 20 launches each between its own
 * pair of events; the median, min and max of the 20 are printed (time_us is the median).
 * Data: a hash kernel; x ~ N(0,1)-ish (Irwin-Hall sum of four uniforms) times a per-row scale
 * in [0.5, 2] plus a per-row offset in [-1, 1], and every row r with r % 37 == 5 has offset 100
 * and scale 10 (the statistics must not cancel). gamma in [0.8, 1.2], beta in [-0.1, 0.1].
 *
 * Check. A reference GPU kernel written for clarity (one row per block, FP32 two-pass mean and
 * variance, 1/sqrtf, GeLU as 0.5*v*erfcf(-v/sqrt2), output FP32) is compared with every element
 * of every y buffer of every variant: maxerr = max |y - ref|, n>1ulp = count of elements with
 * |y - ref| > ulp_bf16(ref) + 1e-3, maxulp = max |y - ref| / ulp_bf16(ref) over |ref| >= 1/64,
 * NaN/Inf (unwritten) counted as failures. CHECK FAIL if any element exceeds 2 ulp + 1e-3.
 * The reference kernel and every variant are also compared on a few rows (including offset
 * rows) with a CPU FP64 reference (cpuerr column; the same 2 ulp + 1e-3 rule).
 *
 * Variants (params column says which):
 *   A  the current lab kernel (layernorm_kernel<VPT,GELU> of src/kernels/lab_fusion.cu, copied
 *      so it is the baseline): block per row, persistent grid, Chan merge, one barrier per row.
 *   R  block per row with the thread's columns fixed: T threads x V uint4 (T*V = 512), PF rows
 *      loaded ahead, gamma/beta reloaded (gb=ldg), held in registers as FP32 (gb=reg32) or as
 *      packed BF16 (gb=regbf16, which rounds gamma/beta: see its error). T=512/V=1 is the
 *      brief's variant E.
 *   W  warp per row: a lane holds 16 uint4 (128 values) of its row packed, statistics by warp
 *      shuffles only (no shared memory, no barrier), rows round robin over the warps of a
 *      persistent grid, pf = rows whose loads are issued before the current row is computed;
 *      gamma/beta read per vector through the L1 (gb=ldg32 / ldgbf16) or from a shared copy
 *      made once per block (gb=smem32). A row is 64 registers per lane, so pf=1 needs 128 for
 *      the rows alone: ptxas (CUDA 13.0) spills 0.2-3 KB in every pf>=1 warp variant and uses
 *      254/255 registers (no spill) at pf=0; see the lmem column.
 *   T  warp per row, rows brought into shared memory by the TMA (cp.async.bulk, 8 KiB per row,
 *      one mbarrier per slot): wpb warps per block, one block per SM, `slots` rows per warp in
 *      flight; reg=1 keeps the row in registers and refills its slot at once, reg=0 reads the
 *      slot three times (sum, squares, output) and refills it after the row; dyn=1 takes rows
 *      from a global counter (balanced), dyn=0 round robin. gamma/beta FP32 in shared memory.
 *   B  block per row as R (T=128, V=4, gamma/beta FP32 in registers, nrm=fma) with rows brought
 *      into `slots` shared-memory slots per block by cp.async.bulk (as T) instead of register
 *      prefetch; minb = __launch_bounds__ minimum blocks per SM; sms = grid over that many SMs.
 *   st=2pass: exact two-pass mean/variance; st=shift: one pass of sums of (x-K) and (x-K)^2
 *      with K = the row's first element (4 instead of 5 ops per value; cancellation is bounded
 *      by ((x0 - mean)/std)^2, harmless unless x0 is a far outlier).
 *   nrm=sub: (x - mean)*rstd then fma(., gamma, beta); nrm=fma: fma(x, rstd, -mean*rstd) then
 *      fma(., gamma, beta), one op fewer, loses |mean|/std * 2^-24 (bad only for rows whose
 *      |mean| is many thousand times their std).
 *   gelu=as: the lab's gd_fu_gelu_as; gelu=as2: the same A&S 7.1.26 erfc, assembled as
 *      fma(|x|, 0.5 - P(t)*t*e, 0.5*x) instead of x*(x >= 0 ? 1-h : h): 11 FP32 ops + 2 MUFU
 *      instead of 13 + 2; gelu=none: plain LayerNorm.
 *   ld=cs: __ldcs; ld=cs256: ld.global.cs.L2::256B; ld=nc256: ld.global.nc.L1::no_allocate.L2::256B.
 *   All stores are __stcs. fma.rn.f32x2 is sm_100+ (ptxas refuses it for sm_90a), so not used.
 * Each line also prints the kernel's registers per thread, local memory (spills) and the
 * resident blocks per SM chosen by the occupancy API (grid = SMs x that). */
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <string>
#include <vector>

#include "../../src/kernels/lab_fusion_gelu.h"

typedef __nv_bfloat16 bf16;

#define CK(call)                                                                                  \
	do {                                                                                      \
		cudaError_t e_ = (call);                                                          \
		if (e_ != cudaSuccess) {                                                          \
			fprintf(stderr, "ln_sweep: %s:%d: %s: %s\n", __FILE__, __LINE__, #call,     \
				cudaGetErrorString(e_));                                          \
			exit(2);                                                                  \
		}                                                                                 \
	} while (0)

static const int H = 4096, NV = H / 8; /* NV: 16-byte vectors per row */
static int ROWS = 8192; /* argv[2] (LN_ROWS): rows of x, ≥ 8192 */
static const float EPS = 1e-5f;
static const int NBUF = 4, WARMUP = 3, TIMED = 20;
static size_t XBYTES = (size_t)8192 * H * sizeof(bf16); /* ROWS × H × 2, set in main */
#define FULL 0xffffffffu

struct LnArgs {
	const bf16 *x;
	const float *gamma, *beta;
	const uint4 *gh, *bh; /* gamma, beta rounded to BF16, 8 per vector */
	bf16 *y;
	int rows;
	int *ctr; /* T variants with dyn=1: this launch's row counter, zero before the launch */
};

/* ------------------------------------------------------------------ data and references */

__host__ __device__ static inline uint32_t hash32(uint32_t v)
{
	v ^= v >> 16;
	v *= 0x7feb352du;
	v ^= v >> 15;
	v *= 0x846ca68bu;
	v ^= v >> 16;
	return v;
}

__device__ static inline float u01(uint32_t a, uint32_t salt)
{
	return (float)(hash32(a * 0x9e3779b9u ^ hash32(salt)) >> 8) * (1.f / 16777216.f);
}

__global__ void init_x(bf16 *x, int rows)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < (size_t)rows * H;
	     i += (size_t)gridDim.x * blockDim.x) {
		const uint32_t r = (uint32_t)(i / H), k = (uint32_t)i;
		const float n = (u01(k, 1) + u01(k, 2) + u01(k, 3) + u01(k, 4) - 2.f) * 1.7320508f;
		float v;
		if (r % 37 == 5)
			v = 100.f + 10.f * n;
		else
			v = (u01(r, 12) - 0.5f) * 2.f + (0.5f + 1.5f * u01(r, 11)) * n;
		x[i] = __float2bfloat16_rn(v);
	}
}

__global__ void init_gb(float *g, float *b, bf16 *gh, bf16 *bh)
{
	const int c = blockIdx.x * blockDim.x + threadIdx.x;
	if (c < H) {
		g[c] = 0.8f + 0.4f * u01(c, 21);
		b[c] = 0.2f * (u01(c, 22) - 0.5f);
		gh[c] = __float2bfloat16_rn(g[c]);
		bh[c] = __float2bfloat16_rn(b[c]);
	}
}

__device__ static float block_sum(float v, float *red)
{
	red[threadIdx.x] = v;
	__syncthreads();
	for (int s = blockDim.x / 2; s > 0; s >>= 1) {
		if ((int)threadIdx.x < s)
			red[threadIdx.x] += red[threadIdx.x + s];
		__syncthreads();
	}
	const float r = red[0];
	__syncthreads();
	return r;
}

/* Reference for the check: plain and clear, one row per block of 256 threads. */
__global__ void __launch_bounds__(256) ref_kernel(const bf16 *x, const float *g, const float *b,
						  float *yln, float *ygelu)
{
	__shared__ float red[256];
	const size_t r = blockIdx.x;
	const bf16 *xr = x + r * H;
	float s = 0.f;
	for (int c = threadIdx.x; c < H; c += 256)
		s += __bfloat162float(xr[c]);
	const float mean = block_sum(s, red) / (float)H;
	float q = 0.f;
	for (int c = threadIdx.x; c < H; c += 256) {
		const float d = __bfloat162float(xr[c]) - mean;
		q += d * d;
	}
	const float var = block_sum(q, red) / (float)H;
	const float rstd = 1.f / sqrtf(var + EPS);
	for (int c = threadIdx.x; c < H; c += 256) {
		const float v = (__bfloat162float(xr[c]) - mean) * rstd * g[c] + b[c];
		yln[r * H + c] = v;
		ygelu[r * H + c] = 0.5f * v * erfcf(-v * 0.70710678118654752f); /* x * Phi(x) */
	}
}

__device__ __host__ static inline float bf16_ulp(float r)
{
	int e;
	frexpf(fabsf(r), &e); /* |r| = m * 2^e, m in [0.5, 1): BF16 spacing there is 2^(e-8) */
	return ldexpf(1.f, e - 8);
}

struct CmpOut {
	unsigned long long gt1, gt2, bad; /* > 1 ulp + 1e-3, > 2 ulp + 1e-3, NaN/Inf */
	unsigned int maxerr, maxulp;      /* float bit patterns of non-negative values */
};

__global__ void cmp_kernel(const bf16 *y, const float *ref, size_t n, CmpOut *out)
{
	unsigned long long g1 = 0, g2 = 0, bad = 0;
	float me = 0.f, mu = 0.f;
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x) {
		const float o = __bfloat162float(y[i]), r = ref[i];
		if (!isfinite(o)) {
			bad++;
			continue;
		}
		const float d = fabsf(o - r), u = bf16_ulp(r);
		g1 += d > u + 1e-3f;
		g2 += d > 2.f * u + 1e-3f;
		me = fmaxf(me, d);
		if (fabsf(r) >= 1.f / 64.f)
			mu = fmaxf(mu, d / u);
	}
	for (int o = 16; o; o >>= 1) {
		g1 += __shfl_xor_sync(FULL, g1, o);
		g2 += __shfl_xor_sync(FULL, g2, o);
		bad += __shfl_xor_sync(FULL, bad, o);
		me = fmaxf(me, __shfl_xor_sync(FULL, me, o));
		mu = fmaxf(mu, __shfl_xor_sync(FULL, mu, o));
	}
	if ((threadIdx.x & 31) == 0) {
		atomicAdd(&out->gt1, g1);
		atomicAdd(&out->gt2, g2);
		atomicAdd(&out->bad, bad);
		atomicMax(&out->maxerr, __float_as_uint(me));
		atomicMax(&out->maxulp, __float_as_uint(mu));
	}
}

/* ------------------------------------------------------------------ shared device helpers */

__device__ __forceinline__ float lo_f(uint32_t u) { return __uint_as_float(u << 16); }
__device__ __forceinline__ float hi_f(uint32_t u) { return __uint_as_float(u & 0xffff0000u); }

__device__ __forceinline__ void unpack8f(const uint4 &u, float *f)
{
	f[0] = lo_f(u.x), f[1] = hi_f(u.x), f[2] = lo_f(u.y), f[3] = hi_f(u.y);
	f[4] = lo_f(u.z), f[5] = hi_f(u.z), f[6] = lo_f(u.w), f[7] = hi_f(u.w);
}

__device__ __forceinline__ uint32_t pack2(float a, float b)
{
	__nv_bfloat162 h = __floats2bfloat162_rn(a, b); /* a in the low half: lower address */
	uint32_t r;
	memcpy(&r, &h, 4);
	return r;
}

__device__ __forceinline__ uint4 pack8f(const float *f)
{
	return make_uint4(pack2(f[0], f[1]), pack2(f[2], f[3]), pack2(f[4], f[5]), pack2(f[6], f[7]));
}

template <int LD> __device__ __forceinline__ uint4 ldx(const uint4 *p)
{
	uint4 u;
	if (LD == 0)
		u = __ldcs(p);
	else if (LD == 1)
		asm("ld.global.cs.L2::256B.v4.u32 {%0, %1, %2, %3}, [%4];"
		    : "=r"(u.x), "=r"(u.y), "=r"(u.z), "=r"(u.w) : "l"(p));
	else
		asm("ld.global.nc.L1::no_allocate.L2::256B.v4.u32 {%0, %1, %2, %3}, [%4];"
		    : "=r"(u.x), "=r"(u.y), "=r"(u.z), "=r"(u.w) : "l"(p));
	return u;
}

/* A&S 7.1.26 erfc as in lab_fusion_gelu.h, with the final select replaced by
 * gelu = 0.5x + |x|(0.5 - h), h = ½erfc(|x|/√2): for x >= 0 that is x(1 - h), below 0 it is x·h
 * (the sum cancels to within |x|·2^-25 absolute, far below the check's 1e-3 floor). */
__device__ __forceinline__ float gelu_as2(float x)
{
	const float p = 0.3275911f * 0.70710678118654752f;
	const float c1 = 0.5f * 0.254829592f, c2 = 0.5f * -0.284496736f, c3 = 0.5f * 1.421413741f,
		    c4 = 0.5f * -1.453152027f, c5 = 0.5f * 1.061405429f;
	const float ax = fabsf(x);
	const float t = gd_fu_rcp(fmaf(p, ax, 1.f));
	const float e = gd_fu_exp2(x * (x * -0.72134752044448170f));
	float q = fmaf(c5, t, c4);
	q = fmaf(q, t, c3);
	q = fmaf(q, t, c2);
	q = fmaf(q, t, c1);
	const float s = fmaf(-(q * t), e, 0.5f); /* 0.5 - h */
	return fmaf(ax, s, 0.5f * x);
}

template <int G> __device__ __forceinline__ float act(float v)
{
	if (G == 0)
		return gd_fu_gelu_as(v);
	if (G == 1)
		return gelu_as2(v);
	return v;
}

/* 0, but the compiler cannot see it: added to the gamma/beta index once per row, it stops the
 * compiler from hoisting the (loop-invariant) gamma/beta loads out of the row loop, which for
 * the warp-per-row kernel means 256 live registers and heavy spilling. */
__device__ __forceinline__ int opaque_zero(void)
{
	int z;
	asm volatile("mov.u32 %0, 0;" : "=r"(z));
	return z;
}

/* gamma/beta of the 8 columns of vector j: FP32 (GB 0) or BF16 (GB 1) through the L1 */
template <int GB>
__device__ __forceinline__ void gb_fetch(const LnArgs &a, int j, float *g, float *b)
{
	if (GB == 0) {
		const float4 *g4 = reinterpret_cast<const float4 *>(a.gamma) + 2 * j;
		const float4 *b4 = reinterpret_cast<const float4 *>(a.beta) + 2 * j;
		const float4 g0 = __ldg(g4), g1 = __ldg(g4 + 1), b0 = __ldg(b4), b1 = __ldg(b4 + 1);
		g[0] = g0.x, g[1] = g0.y, g[2] = g0.z, g[3] = g0.w;
		g[4] = g1.x, g[5] = g1.y, g[6] = g1.z, g[7] = g1.w;
		b[0] = b0.x, b[1] = b0.y, b[2] = b0.z, b[3] = b0.w;
		b[4] = b1.x, b[5] = b1.y, b[6] = b1.z, b[7] = b1.w;
	} else {
		unpack8f(__ldg(a.gh + j), g);
		unpack8f(__ldg(a.bh + j), b);
	}
}

/* ------------------------------------------------------------------ A: the current lab kernel */
/* Copied from src/kernels/lab_fusion.cu (layernorm_kernel, stat_merge, unpack8, pack8) with
 * the argument list folded into LnArgs, hidden = 4096 and eps = 1e-5: the baseline. */

__device__ __forceinline__ void a_unpack8(const uint4 &u, float *f)
{
	const __nv_bfloat162 *h = reinterpret_cast<const __nv_bfloat162 *>(&u);
#pragma unroll
	for (int i = 0; i < 4; i++) {
		float2 p = __bfloat1622float2(h[i]);
		f[2 * i] = p.x;
		f[2 * i + 1] = p.y;
	}
}

__device__ __forceinline__ uint4 a_pack8(const float *f)
{
	uint4 u;
	__nv_bfloat162 *h = reinterpret_cast<__nv_bfloat162 *>(&u);
#pragma unroll
	for (int i = 0; i < 4; i++)
		h[i] = __floats2bfloat162_rn(f[2 * i], f[2 * i + 1]);
	return u;
}

__device__ __forceinline__ void stat_merge(float &na, float &ma, float &qa, float nb, float mb,
					   float qb)
{
	const float n = __fadd_rn(na, nb);
	if (n > 0.f) {
		const float inv = __fdividef(1.f, n);
		const float d = __fsub_rn(mb, ma);
		const float mean = __fmul_rn(__fadd_rn(__fmul_rn(na, ma), __fmul_rn(nb, mb)), inv);
		qa = __fadd_rn(__fadd_rn(qa, qb), __fmul_rn(__fmul_rn(d, d), __fmul_rn(__fmul_rn(na, nb), inv)));
		ma = mean;
	}
	na = n;
}

#define LN_MAX_THREADS 256

template <int VPT>
__device__ __forceinline__ void a_load(uint4 (&u)[VPT], const bf16 *x, size_t row, int hidden)
{
	const uint4 *xr = reinterpret_cast<const uint4 *>(x + row * (size_t)hidden);
	const int nvec = hidden >> 3;
#pragma unroll
	for (int i = 0; i < VPT; i++) {
		const int idx = threadIdx.x + i * blockDim.x;
		if (idx < nvec)
			u[i] = __ldcs(xr + idx);
	}
}

template <int VPT, bool GELU>
__global__ void __launch_bounds__(LN_MAX_THREADS) ln_base(LnArgs a)
{
	const bf16 *__restrict__ x = a.x;
	const float *__restrict__ gamma = a.gamma, *__restrict__ beta = a.beta;
	bf16 *__restrict__ y = a.y;
	const int rows = a.rows, hidden = H;
	const float eps = EPS;
	__shared__ float red[2][LN_MAX_THREADS / 32][3];
	const int nvec = hidden >> 3;
	const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, nwarps = blockDim.x >> 5;
	const float inv_h = 1.f / (float)hidden;
	uint4 nx[VPT];
#pragma unroll
	for (int i = 0; i < VPT; i++)
		nx[i] = make_uint4(0u, 0u, 0u, 0u);
	int row = blockIdx.x;
	if (row < rows)
		a_load<VPT>(nx, x, (size_t)row, hidden);
	for (int par = 0; row < rows; row += gridDim.x, par ^= 1) {
		float v[VPT][8];
		int cnt = 0;
		float sum = 0.f;
#pragma unroll
		for (int i = 0; i < VPT; i++) {
			a_unpack8(nx[i], v[i]);
			if (threadIdx.x + i * blockDim.x < nvec) {
				cnt += 8;
#pragma unroll
				for (int c = 0; c < 8; c++)
					sum += v[i][c];
			}
		}
		const int next = row + gridDim.x;
		if (next < rows)
			a_load<VPT>(nx, x, (size_t)next, hidden);
		float n = (float)cnt, m = cnt ? sum / (float)cnt : 0.f, q = 0.f;
#pragma unroll
		for (int i = 0; i < VPT; i++)
			if (threadIdx.x + i * blockDim.x < nvec)
#pragma unroll
				for (int c = 0; c < 8; c++) {
					const float d = v[i][c] - m;
					q = fmaf(d, d, q);
				}
#pragma unroll
		for (int o = 16; o; o >>= 1) {
			const float nb = __shfl_xor_sync(FULL, n, o);
			const float mb = __shfl_xor_sync(FULL, m, o);
			const float qb = __shfl_xor_sync(FULL, q, o);
			stat_merge(n, m, q, nb, mb, qb);
		}
		if (lane == 0) {
			red[par][warp][0] = n;
			red[par][warp][1] = m;
			red[par][warp][2] = q;
		}
		__syncthreads();
		n = red[par][0][0];
		m = red[par][0][1];
		q = red[par][0][2];
		for (int w = 1; w < nwarps; w++)
			stat_merge(n, m, q, red[par][w][0], red[par][w][1], red[par][w][2]);
		const float mean = m;
		const float rstd = rsqrtf(q * inv_h + eps);
		uint4 *yr = reinterpret_cast<uint4 *>(y + (size_t)row * (size_t)hidden);
#pragma unroll
		for (int i = 0; i < VPT; i++) {
			const int idx = threadIdx.x + i * blockDim.x;
			if (idx < nvec) {
				const float4 *g4 = reinterpret_cast<const float4 *>(gamma + idx * 8);
				const float4 *b4 = reinterpret_cast<const float4 *>(beta + idx * 8);
				float4 ga = __ldg(g4), gb = __ldg(g4 + 1), ba = __ldg(b4), bb = __ldg(b4 + 1);
				float gg[8] = {ga.x, ga.y, ga.z, ga.w, gb.x, gb.y, gb.z, gb.w};
				float bt[8] = {ba.x, ba.y, ba.z, ba.w, bb.x, bb.y, bb.z, bb.w};
				float o[8];
#pragma unroll
				for (int c = 0; c < 8; c++) {
					float r = fmaf((v[i][c] - mean) * rstd, gg[c], bt[c]);
					o[c] = GELU ? gd_fu_gelu_as(r) : r;
				}
				yr[idx] = a_pack8(o);
			}
		}
	}
}

/* ------------------------------------------------------------------ R: block per row, fixed columns */

/* Merge two halves of equal count n (mean m, sum of squared deviations q): symmetric in the
 * two operands, so both lanes of a shuffle pair end with bit-identical values. */
__device__ __forceinline__ void merge_eq(float &m, float &q, float n, float mo, float qo)
{
	const float d = mo - m;
	q = (q + qo) + (d * d) * (0.5f * n);
	m = 0.5f * (m + mo);
}

/* Per-thread two-pass mean and sum of squared deviations over its 8V values, merged over the
 * warp by shuffles (equal counts: bit-identical on every lane); n = the warp's value count.
 * Used by the block-per-row kernels (R, B). */
template <int V> __device__ __forceinline__ void warp_stats(const float (&v)[V][8], float &m, float &q, float &n)
{
	float s4[4] = {0.f, 0.f, 0.f, 0.f};
#pragma unroll
	for (int i = 0; i < V; i++)
#pragma unroll
		for (int c = 0; c < 8; c++)
			s4[c & 3] += v[i][c];
	m = ((s4[0] + s4[1]) + (s4[2] + s4[3])) * (1.f / (8 * V));
	float q4[4] = {0.f, 0.f, 0.f, 0.f};
#pragma unroll
	for (int i = 0; i < V; i++)
#pragma unroll
		for (int c = 0; c < 8; c++) {
			const float d = v[i][c] - m;
			q4[c & 3] = fmaf(d, d, q4[c & 3]);
		}
	q = (q4[0] + q4[1]) + (q4[2] + q4[3]);
	n = 8.f * V;
#pragma unroll
	for (int o = 1; o < 32; o <<= 1, n *= 2.f)
		merge_eq(m, q, n, __shfl_xor_sync(FULL, m, o), __shfl_xor_sync(FULL, q, o));
}

template <int T, int V, int PF, int GB, int G, int N, int LD>
__global__ void __launch_bounds__(T) ln_rows(LnArgs a)
{
	constexpr int NW = T / 32;
	static_assert(T * V == NV, "a block covers one row");
	__shared__ float2 red[2][NW];
	const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
	const int grid = gridDim.x, rows = a.rows;
	/* GB 0: gamma/beta reloaded per row; 1: FP32 in registers; 2: BF16 in registers */
	float gr[GB == 1 ? V : 1][8], br[GB == 1 ? V : 1][8];
	uint4 ghr[GB == 2 ? V : 1], bhr[GB == 2 ? V : 1];
#pragma unroll
	for (int i = 0; i < V; i++) {
		if (GB == 1)
			gb_fetch<0>(a, tid + i * T, gr[i], br[i]);
		if (GB == 2) {
			ghr[i] = a.gh[tid + i * T];
			bhr[i] = a.bh[tid + i * T];
		}
	}
	uint4 nx[PF][V];
#pragma unroll
	for (int k = 0; k < PF; k++) {
		const int r = blockIdx.x + k * grid;
		if (r < rows)
#pragma unroll
			for (int i = 0; i < V; i++)
				nx[k][i] = ldx<LD>(reinterpret_cast<const uint4 *>(a.x) + (size_t)r * NV + tid + i * T);
	}
	int par = 0;
	for (int base = blockIdx.x; base < rows; base += PF * grid) {
#pragma unroll
		for (int j = 0; j < PF; j++) {
			const int r = base + j * grid;
			if (r >= rows)
				return; /* uniform over the block */
			float v[V][8];
#pragma unroll
			for (int i = 0; i < V; i++)
				unpack8f(nx[j][i], v[i]);
			const int rn = r + PF * grid; /* the row this slot holds next */
			if (rn < rows)
#pragma unroll
				for (int i = 0; i < V; i++)
					nx[j][i] = ldx<LD>(reinterpret_cast<const uint4 *>(a.x) + (size_t)rn * NV + tid + i * T);
			float m, q, n;
			warp_stats<V>(v, m, q, n);
			if (NW > 1) {
				if (lane == 0)
					red[par][warp] = make_float2(m, q);
				__syncthreads(); /* one per row: see the parity note in ln_base */
				const float2 e = red[par][lane % NW];
				m = e.x;
				q = e.y;
#pragma unroll
				for (int o = 1; o < NW; o <<= 1, n *= 2.f)
					merge_eq(m, q, n, __shfl_xor_sync(FULL, m, o), __shfl_xor_sync(FULL, q, o));
				par ^= 1;
			}
			const float mean = m, rstd = rsqrtf(q * (1.f / H) + EPS), nmr = -mean * rstd;
			const int t0 = tid + (GB == 0 ? opaque_zero() : 0); /* GB 0: really reload */
			uint4 *yr = reinterpret_cast<uint4 *>(a.y) + (size_t)r * NV;
#pragma unroll
			for (int i = 0; i < V; i++) {
				float gl[8], bl[8], o[8];
				const float *g = gl, *b = bl;
				if (GB == 0)
					gb_fetch<0>(a, t0 + i * T, gl, bl);
				else if (GB == 1)
					g = gr[i], b = br[i];
				else {
					unpack8f(ghr[i], gl);
					unpack8f(bhr[i], bl);
				}
#pragma unroll
				for (int c = 0; c < 8; c++) {
					const float t = N ? fmaf(v[i][c], rstd, nmr) : (v[i][c] - mean) * rstd;
					o[c] = act<G>(fmaf(t, g[c], b[c]));
				}
				__stcs(yr + tid + i * T, pack8f(o));
			}
		}
	}
}

/* The warp's sum of (x − mean)² over a row of which each lane holds N 16-byte vectors (vec(i)),
 * unrolled UNR at a time; used by the warp-per-row kernels (W, T). */
template <int N, int UNR, class F> __device__ __forceinline__ float warp_m2(F vec, float mean)
{
	float q4[4] = {0.f, 0.f, 0.f, 0.f};
#pragma unroll(UNR)
	for (int i = 0; i < N; i++) {
		float f[8];
		unpack8f(vec(i), f);
#pragma unroll
		for (int c = 0; c < 8; c++) {
			const float d = f[c] - mean;
			q4[c & 3] = fmaf(d, d, q4[c & 3]);
		}
	}
	float q = (q4[0] + q4[1]) + (q4[2] + q4[3]);
#pragma unroll
	for (int o = 16; o; o >>= 1)
		q += __shfl_xor_sync(FULL, q, o);
	return q;
}

/* ------------------------------------------------------------------ W: warp per row */

#define WV (NV / 32) /* 16 vectors per lane */

template <int LD>
__device__ __forceinline__ void w_load(uint4 (&u)[WV], const bf16 *x, int r, int lane)
{
	const uint4 *xr = reinterpret_cast<const uint4 *>(x) + (size_t)r * NV + lane;
#pragma unroll
	for (int i = 0; i < WV; i++)
		u[i] = ldx<LD>(xr + 32 * i);
}

template <int S, int N, int G, int GB>
__device__ __forceinline__ void w_row(const uint4 (&u)[WV], int r, const LnArgs &a, int lane,
				     const float4 *sgb)
{
	float mean, rstd;
	if (S == 1) {
		/* shifted sums: K is the row's first value, the same in every lane */
		const float K = __shfl_sync(FULL, lo_f(u[0].x), 0);
		float s4[4] = {0.f, 0.f, 0.f, 0.f}, q4[4] = {0.f, 0.f, 0.f, 0.f};
#pragma unroll
		for (int i = 0; i < WV; i++) {
			float f[8];
			unpack8f(u[i], f);
#pragma unroll
			for (int c = 0; c < 8; c++) {
				const float d = f[c] - K;
				s4[c & 3] += d;
				q4[c & 3] = fmaf(d, d, q4[c & 3]);
			}
		}
		float s = (s4[0] + s4[1]) + (s4[2] + s4[3]), q = (q4[0] + q4[1]) + (q4[2] + q4[3]);
#pragma unroll
		for (int o = 16; o; o >>= 1) {
			s += __shfl_xor_sync(FULL, s, o);
			q += __shfl_xor_sync(FULL, q, o);
		}
		const float ms = s * (1.f / H); /* mean - K */
		mean = K + ms;
		rstd = rsqrtf(fmaxf(fmaf(-ms, s, q) * (1.f / H), 0.f) + EPS);
	} else {
		float s4[4] = {0.f, 0.f, 0.f, 0.f};
#pragma unroll
		for (int i = 0; i < WV; i++) {
			float f[8];
			unpack8f(u[i], f);
#pragma unroll
			for (int c = 0; c < 8; c++)
				s4[c & 3] += f[c];
		}
		float s = (s4[0] + s4[1]) + (s4[2] + s4[3]);
#pragma unroll
		for (int o = 16; o; o >>= 1)
			s += __shfl_xor_sync(FULL, s, o);
		mean = s * (1.f / H);
		rstd = rsqrtf(warp_m2<WV, WV>([&](int i) { return u[i]; }, mean) * (1.f / H) + EPS);
	}
	const float nmr = -mean * rstd;
	const int j0 = lane + opaque_zero(); /* see opaque_zero */
	uint4 *yr = reinterpret_cast<uint4 *>(a.y) + (size_t)r * NV + lane;
#pragma unroll
	for (int i = 0; i < WV; i++) {
		float f[8], g[8], b[8], o[8];
		unpack8f(u[i], f);
		if (GB == 2) {
			/* shared copy, split in 16-byte quarters so a warp's LDS.128 is conflict-free */
			const float4 g0 = sgb[0 * NV + j0 + 32 * i], g1 = sgb[1 * NV + j0 + 32 * i];
			const float4 b0 = sgb[2 * NV + j0 + 32 * i], b1 = sgb[3 * NV + j0 + 32 * i];
			g[0] = g0.x, g[1] = g0.y, g[2] = g0.z, g[3] = g0.w;
			g[4] = g1.x, g[5] = g1.y, g[6] = g1.z, g[7] = g1.w;
			b[0] = b0.x, b[1] = b0.y, b[2] = b0.z, b[3] = b0.w;
			b[4] = b1.x, b[5] = b1.y, b[6] = b1.z, b[7] = b1.w;
		} else
			gb_fetch<GB>(a, j0 + 32 * i, g, b);
#pragma unroll
		for (int c = 0; c < 8; c++) {
			const float t = N ? fmaf(f[c], rstd, nmr) : (f[c] - mean) * rstd;
			o[c] = act<G>(fmaf(t, g[c], b[c]));
		}
		__stcs(yr + 32 * i, pack8f(o));
	}
}

template <int WPC, int PF, int S, int N, int G, int GB, int LD>
__global__ void __launch_bounds__(WPC * 32) ln_warp(LnArgs a)
{
	static_assert(PF >= 0 && PF <= 2, "0, 1 or 2 rows ahead");
	const int lane = threadIdx.x & 31;
	const int gw = blockIdx.x * WPC + (threadIdx.x >> 5), nw = gridDim.x * WPC, rows = a.rows;
	/* GB 2: gamma/beta staged once per block in shared memory, as quarters
	 * [gamma 0-3 | gamma 4-7 | beta 0-3 | beta 4-7] of each vector (32 KB) */
	__shared__ float4 sgb_[GB == 2 ? 4 * NV : 1];
	const float4 *sgb = sgb_;
	if (GB == 2) {
		for (int j = threadIdx.x; j < NV; j += WPC * 32) {
			const float4 *g4 = reinterpret_cast<const float4 *>(a.gamma) + 2 * j;
			const float4 *b4 = reinterpret_cast<const float4 *>(a.beta) + 2 * j;
			sgb_[0 * NV + j] = g4[0];
			sgb_[1 * NV + j] = g4[1];
			sgb_[2 * NV + j] = b4[0];
			sgb_[3 * NV + j] = b4[1];
		}
		__syncthreads();
	}
	/* PF + 1 named slots (no indexed array of slots, so they stay in registers): the slot
	 * being computed and PF slots whose loads are in flight. */
	uint4 b0[WV], b1[WV], b2[WV];
	if (PF == 0) {
		for (int r = gw; r < rows; r += nw) {
			w_load<LD>(b0, a.x, r, lane);
			w_row<S, N, G, GB>(b0, r, a, lane, sgb);
		}
	} else if (PF == 1) {
		if (gw < rows)
			w_load<LD>(b0, a.x, gw, lane);
		for (int r = gw; r < rows; r += 2 * nw) {
			const int r1 = r + nw, r2 = r1 + nw;
			if (r1 < rows)
				w_load<LD>(b1, a.x, r1, lane);
			w_row<S, N, G, GB>(b0, r, a, lane, sgb);
			if (r1 >= rows)
				break;
			if (r2 < rows)
				w_load<LD>(b0, a.x, r2, lane);
			w_row<S, N, G, GB>(b1, r1, a, lane, sgb);
		}
	} else {
		if (gw < rows)
			w_load<LD>(b0, a.x, gw, lane);
		if (gw + nw < rows)
			w_load<LD>(b1, a.x, gw + nw, lane);
		for (int r = gw; r < rows; r += 3 * nw) {
			const int r1 = r + nw, r2 = r1 + nw, r3 = r2 + nw, r4 = r3 + nw;
			if (r2 < rows)
				w_load<LD>(b2, a.x, r2, lane);
			w_row<S, N, G, GB>(b0, r, a, lane, sgb);
			if (r1 >= rows)
				break;
			if (r3 < rows)
				w_load<LD>(b0, a.x, r3, lane);
			w_row<S, N, G, GB>(b1, r1, a, lane, sgb);
			if (r2 >= rows)
				break;
			if (r4 < rows)
				w_load<LD>(b1, a.x, r4, lane);
			w_row<S, N, G, GB>(b2, r2, a, lane, sgb);
		}
	}
}


/* ------------------------------------------------------------------ T: warp per row, TMA rows */
/* Each warp owns D row slots of 8 KiB in shared memory; a row arrives by one cp.async.bulk
 * (the TMA's 1-D copy, no load instructions, no registers) completing on the slot's mbarrier.
 * reg=1: the warp copies the row into registers (16 uint4 per lane) and re-issues the slot's
 * bulk load at once; reg=0: the statistics and the output read the slot again, and the slot is
 * refilled after the row is written. Statistics: two passes (mean, then squares of x - mean),
 * warp shuffles only, no block barrier. gamma/beta: FP32 in shared memory, split into the low
 * and high four columns of each 8-column vector so that a warp's float4 reads are contiguous.
 * dyn=0: warp w of the grid takes rows w, w + W, ...; dyn=1: lane 0 takes the next row from a
 * global counter (rows in increasing order per warp, so the first row past the end ends it). */
#define T_ROWB (H * 2)
__device__ __forceinline__ void t_wait(uint32_t bar, uint32_t parity)
{
	uint32_t done = 0;
	long long t0 = clock64();
	for (;;) {
		asm volatile("{\n\t.reg .pred p;\n\t"
			     "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\t"
			     "selp.u32 %0, 1, 0, p;\n\t}"
			     : "=r"(done) : "r"(bar), "r"(parity) : "memory");
		if (done)
			return;
		if (clock64() - t0 > 4000000000ll)
			__trap(); /* a lost bulk copy: fail the launch instead of hanging */
	}
}

__device__ __forceinline__ void t_load(uint32_t dst, const void *src, uint32_t bar)
{
	asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(T_ROWB) : "memory");
	asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(dst),
		     "l"(src), "r"(T_ROWB), "r"(bar)
		     : "memory");
}

template <int DYN> __device__ __forceinline__ int t_next(const LnArgs &a, int &k, int lane)
{
	if (!DYN)
		return (int)(blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5)) + (k++) * (int)(gridDim.x * (blockDim.x >> 5));
	int r = 0;
	if (lane == 0)
		r = atomicAdd(a.ctr, 1);
	return __shfl_sync(FULL, r, 0);
}

template <int WPB, int D, int REG, int DYN, int G>
__global__ void __launch_bounds__(WPB * 32, 1) ln_tma(LnArgs a)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
	extern __shared__ __align__(128) unsigned char sm[];
	__shared__ __align__(8) uint64_t bars[WPB * D];
	float4 *sgl = reinterpret_cast<float4 *>(sm), *sgh = sgl + NV, *sbl = sgh + NV, *sbh = sbl + NV;
	unsigned char *ring = sm + 4 * NV * sizeof(float4);
	const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, rows = a.rows;
	const float4 *g4 = reinterpret_cast<const float4 *>(a.gamma), *b4 = reinterpret_cast<const float4 *>(a.beta);
	for (int j = threadIdx.x; j < NV; j += blockDim.x) {
		sgl[j] = g4[2 * j], sgh[j] = g4[2 * j + 1];
		sbl[j] = b4[2 * j], sbh[j] = b4[2 * j + 1];
	}
	const uint32_t ring0 = (uint32_t)__cvta_generic_to_shared(ring) + warp * D * T_ROWB;
	const uint32_t bar0 = (uint32_t)__cvta_generic_to_shared(bars) + warp * D * 8;
	const uint4 *wring = reinterpret_cast<const uint4 *>(ring + warp * D * T_ROWB);
	const uint4 *x = reinterpret_cast<const uint4 *>(a.x);
	uint4 *y = reinterpret_cast<uint4 *>(a.y);
	int k = 0, rw[D];
	if (lane == 0) {
		for (int j = 0; j < D; j++)
			asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar0 + 8 * j) : "memory");
		asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
		asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
	}
	__syncthreads(); /* gamma/beta in shared memory, barriers initialised */
#pragma unroll
	for (int j = 0; j < D; j++) {
		rw[j] = t_next<DYN>(a, k, lane);
		if (lane == 0 && rw[j] < rows)
			t_load(ring0 + j * T_ROWB, x + (size_t)rw[j] * NV, bar0 + 8 * j);
	}
	uint32_t phase = 0;
	for (;;) {
#pragma unroll
		for (int j = 0; j < D; j++) {
			const int r = rw[j];
			if (r >= rows)
				return; /* warp-uniform; no bulk copy is left in flight */
			t_wait(bar0 + 8 * j, phase);
			const uint4 *row = wring + j * NV;
			uint4 u[REG ? 16 : 1];
			float s = 0.f;
#pragma unroll
			for (int i = 0; i < 16; i++) {
				const uint4 v = row[lane + 32 * i];
				if (REG)
					u[i] = v;
				float f[8];
				unpack8f(v, f);
				s += ((f[0] + f[1]) + (f[2] + f[3])) + ((f[4] + f[5]) + (f[6] + f[7]));
			}
			if (REG) { /* the row is in registers: refill the slot now */
				__syncwarp();
				rw[j] = t_next<DYN>(a, k, lane);
				if (lane == 0 && rw[j] < rows) {
					asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
					t_load(ring0 + j * T_ROWB, x + (size_t)rw[j] * NV, bar0 + 8 * j);
				}
			}
#pragma unroll
			for (int o = 16; o; o >>= 1)
				s += __shfl_xor_sync(FULL, s, o);
			const float mean = s * (1.f / H);
			const float rstd = rsqrtf(warp_m2<16, REG ? 16 : 4>([&](int i) { return REG ? u[i] : row[lane + 32 * i]; },
								     mean) * (1.f / H) + EPS),
				    nmr = -mean * rstd;
			uint4 *yr = y + (size_t)r * NV;
#pragma unroll(REG ? 16 : 2)
			for (int i = 0; i < 16; i++) {
				const int jv = lane + 32 * i;
				float f[8], o[8];
				unpack8f(REG ? u[i] : row[jv], f);
				const float4 gl = sgl[jv], gh = sgh[jv], bl = sbl[jv], bh = sbh[jv];
				const float g[8] = {gl.x, gl.y, gl.z, gl.w, gh.x, gh.y, gh.z, gh.w};
				const float b[8] = {bl.x, bl.y, bl.z, bl.w, bh.x, bh.y, bh.z, bh.w};
#pragma unroll
				for (int c = 0; c < 8; c++)
					o[c] = act<G>(fmaf(fmaf(f[c], rstd, nmr), g[c], b[c]));
				__stcs(yr + jv, pack8f(o));
			}
			if (!REG) {
				__syncwarp();
				rw[j] = t_next<DYN>(a, k, lane);
				if (lane == 0 && rw[j] < rows) {
					asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
					t_load(ring0 + j * T_ROWB, x + (size_t)rw[j] * NV, bar0 + 8 * j);
				}
			}
		}
		phase ^= 1;
	}
#endif
}

/* ------------------------------------------------------------------ B: block per row, TMA row ring */
/* R's block-per-row arithmetic (T=128 threads x 4 uint4, gamma/beta FP32 in registers, nrm=fma)
 * with the rows brought in by cp.async.bulk into S row slots of 8 KiB per block instead of
 * register prefetch: S rows per block are in flight without costing registers (R pf=2 holds
 * one row ahead in 32 registers). Row k of a block (r = blockIdx.x + k*grid) is in slot k % S;
 * thread 0 refills the slot with row k + S right after the per-row barrier, which every thread
 * passes only after it has read the slot into registers. */
template <int S, int G, int MINB>
__global__ void __launch_bounds__(128, MINB) ln_bulk(LnArgs a)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
	constexpr int T = 128, V = 4, NW = T / 32;
	extern __shared__ __align__(128) unsigned char sm[];
	__shared__ __align__(8) uint64_t bars[S];
	__shared__ float2 red[2][NW];
	const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
	const int grid = gridDim.x, rows = a.rows;
	float gr[V][8], br[V][8];
#pragma unroll
	for (int i = 0; i < V; i++)
		gb_fetch<0>(a, tid + i * T, gr[i], br[i]);
	const uint32_t ring0 = (uint32_t)__cvta_generic_to_shared(sm), bar0 = (uint32_t)__cvta_generic_to_shared(bars);
	const uint4 *x = reinterpret_cast<const uint4 *>(a.x);
	if (tid == 0) {
		for (int j = 0; j < S; j++)
			asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar0 + 8 * j) : "memory");
		asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
		asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
		for (int j = 0; j < S; j++) {
			const int r = blockIdx.x + j * grid;
			if (r < rows)
				t_load(ring0 + j * T_ROWB, x + (size_t)r * NV, bar0 + 8 * j);
		}
	}
	__syncthreads(); /* barriers initialised */
	int par = 0;
#pragma unroll 1
	for (int k = 0;; k++) {
		const int r = blockIdx.x + k * grid;
		if (r >= rows)
			return; /* every bulk copy issued was for a row this loop waited for */
		const int j = k % S;
		t_wait(bar0 + 8 * j, (uint32_t)(k / S) & 1u);
		const uint4 *row = reinterpret_cast<const uint4 *>(sm + j * T_ROWB);
		float v[V][8];
#pragma unroll
		for (int i = 0; i < V; i++)
			unpack8f(row[tid + i * T], v[i]);
		float m, q, n;
		warp_stats<V>(v, m, q, n);
		if (lane == 0)
			red[par][warp] = make_float2(m, q);
		__syncthreads(); /* the slot is read by every thread; red[par] written */
		if (tid == 0) {
			const int rn = r + S * grid;
			if (rn < rows) {
				asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
				t_load(ring0 + j * T_ROWB, x + (size_t)rn * NV, bar0 + 8 * j);
			}
		}
		const float2 e = red[par][lane % NW];
		m = e.x;
		q = e.y;
#pragma unroll
		for (int o = 1; o < NW; o <<= 1, n *= 2.f)
			merge_eq(m, q, n, __shfl_xor_sync(FULL, m, o), __shfl_xor_sync(FULL, q, o));
		par ^= 1;
		const float rstd = rsqrtf(q * (1.f / H) + EPS), nmr = -m * rstd;
		uint4 *yr = reinterpret_cast<uint4 *>(a.y) + (size_t)r * NV;
#pragma unroll
		for (int i = 0; i < V; i++) {
			float o[8];
#pragma unroll
			for (int c = 0; c < 8; c++)
				o[c] = act<G>(fmaf(fmaf(v[i][c], rstd, nmr), gr[i][c], br[i][c]));
			__stcs(yr + tid + i * T, pack8f(o));
		}
	}
#endif
}

/* ------------------------------------------------------------------ copy anchor */

template <int CS>
__global__ void __launch_bounds__(256) copy_kernel(const uint4 *__restrict__ s, uint4 *__restrict__ d, size_t n)
{
	const size_t i0 = blockIdx.x * (size_t)blockDim.x * 4 + threadIdx.x;
	uint4 u[4];
#pragma unroll
	for (int k = 0; k < 4; k++)
		if (i0 + k * blockDim.x < n)
			u[k] = CS ? __ldcs(s + i0 + k * blockDim.x) : s[i0 + k * blockDim.x];
#pragma unroll
	for (int k = 0; k < 4; k++)
		if (i0 + k * blockDim.x < n) {
			if (CS)
				__stcs(d + i0 + k * blockDim.x, u[k]);
			else
				d[i0 + k * blockDim.x] = u[k];
		}
}

/* ------------------------------------------------------------------ host */

typedef void (*LnKernel)(LnArgs);

struct Variant {
	std::string name, params;
	LnKernel k;
	int threads, gelu;
	int smem, dyn; /* T variants: dynamic shared memory bytes, row counter used */
	int gsm;       /* grid over this many SMs only (0: all) */
};

static std::vector<Variant> g_vars;

static void add(const char *name, std::string params, LnKernel k, int threads, int gelu)
{
	g_vars.push_back(Variant{name, params, k, threads, gelu, 0, 0, 0});
}

static const char *GB_R[] = {"ldg", "reg32", "regbf16"}, *GB_W[] = {"ldg32", "ldgbf16", "smem32"},
		  *GE[] = {"as", "as2", "none"}, *LDN[] = {"cs", "cs256", "nc256"},
		  *ST[] = {"2pass", "shift"}, *NR[] = {"sub", "fma"};

static std::string fmt_r(int T, int V, int PF, int GB, int G, int N, int LD)
{
	char b[160];
	snprintf(b, sizeof b, "T=%d,V=%d,pf=%d,gb=%s,gelu=%s,nrm=%s,ld=%s", T, V, PF, GB_R[GB], GE[G],
		 NR[N], LDN[LD]);
	return b;
}

static std::string fmt_w(int WPC, int PF, int S, int N, int G, int GB, int LD)
{
	char b[160];
	snprintf(b, sizeof b, "wpc=%d,pf=%d,st=%s,nrm=%s,gelu=%s,gb=%s,ld=%s", WPC, PF, ST[S], NR[N],
		 GE[G], GB_W[GB], LDN[LD]);
	return b;
}

#define ADD_R(T, V, PF, GB, G, N, LD) \
	add("R", fmt_r(T, V, PF, GB, G, N, LD), ln_rows<T, V, PF, GB, G, N, LD>, T, G != 2)
#define ADD_T(WPB, D, REG, DYN, G)                                                                      \
	do {                                                                                          \
		char b_[96];                                                                          \
		snprintf(b_, sizeof b_, "wpb=%d,slots=%d,reg=%d,dyn=%d,gelu=%s (TMA rows)", WPB, D, REG, DYN, GE[G]); \
		add("T", b_, ln_tma<WPB, D, REG, DYN, G>, (WPB) * 32, G != 2);                      \
		g_vars.back().smem = 4 * NV * 16 + (WPB) * (D) * T_ROWB;                              \
		g_vars.back().dyn = DYN;                                                              \
	} while (0)
#define ADD_B(S, G, MINB, GSM)                                                                        \
	do {                                                                                          \
		char b_[96];                                                                          \
		snprintf(b_, sizeof b_, "T=128,V=4,slots=%d,minb=%d,gelu=%s,sms=%d (TMA rows)", S, MINB, GE[G], GSM); \
		add("B", b_, ln_bulk<S, G, MINB>, 128, G != 2);                                       \
		g_vars.back().smem = (S) * T_ROWB;                                                    \
		g_vars.back().gsm = GSM;                                                              \
	} while (0)
/* R with its grid over GSM SMs only (fewer SMs helped the copy kernels: bw_sweep --copy2) */
#define ADD_RG(T, V, PF, GB, G, N, LD, GSM)                                                            \
	do {                                                                                          \
		add("R", fmt_r(T, V, PF, GB, G, N, LD) + ",sms=" + std::to_string(GSM), ln_rows<T, V, PF, GB, G, N, LD>, T, \
		    G != 2);                                                                          \
		g_vars.back().gsm = GSM;                                                              \
	} while (0)
#define ADD_W(WPC, PF, S, N, G, GB, LD) \
	add("W", fmt_w(WPC, PF, S, N, G, GB, LD), ln_warp<WPC, PF, S, N, G, GB, LD>, (WPC) * 32, G != 2)

static void build_variants(void)
{
#ifdef QUICK
	ADD_W(8, 0, 1, 1, 1, 0, 0);
	ADD_W(8, 1, 1, 1, 1, 0, 0);
	ADD_W(8, 2, 1, 1, 1, 0, 0);
	ADD_W(16, 1, 1, 1, 1, 0, 0);
	return;
#endif
	/* B: block per row, TMA row ring (S, G, MINB, GSM) */
	ADD_B(2, 1, 3, 0);
	ADD_B(3, 1, 3, 0);
	ADD_B(4, 1, 3, 0);
	ADD_B(6, 1, 3, 0);
	ADD_B(1, 1, 3, 0);
	ADD_B(2, 1, 2, 0);
	ADD_B(1, 1, 4, 0);
	ADD_B(2, 1, 4, 0);
	ADD_B(3, 1, 4, 0);
	ADD_B(2, 1, 3, 120);
	ADD_B(2, 1, 3, 100);
	ADD_B(2, 1, 3, 66);
	ADD_B(2, 2, 3, 0);
	ADD_B(1, 2, 3, 0);
	/* R (the lab's choice) on fewer SMs */
	ADD_RG(128, 4, 2, 1, 1, 1, 0, 120);
	ADD_RG(128, 4, 2, 1, 1, 1, 0, 100);
	ADD_RG(128, 4, 2, 1, 1, 1, 0, 66);
	/* T: warp per row, TMA rows (WPB, D, REG, DYN, G) */
	ADD_T(16, 1, 1, 0, 1);
	ADD_T(16, 1, 1, 1, 1);
	ADD_T(8, 2, 1, 0, 1);
	ADD_T(8, 2, 1, 1, 1);
	ADD_T(8, 3, 1, 1, 1);
	ADD_T(12, 2, 1, 1, 1);
	ADD_T(8, 1, 1, 1, 1);
	ADD_T(16, 1, 0, 1, 1);
	ADD_T(24, 1, 0, 1, 1);
	ADD_T(8, 3, 0, 1, 1);
	ADD_T(12, 2, 0, 1, 1);
	ADD_T(16, 1, 0, 0, 1);
	ADD_T(16, 1, 0, 1, 2);
	ADD_T(24, 1, 0, 1, 2);
	ADD_T(12, 2, 1, 1, 2);
	add("A", "VPT=4,T=128,gelu=as (lab kernel)", ln_base<4, true>, 128, 1);
	add("A", "VPT=2,T=256,gelu=as", ln_base<2, true>, 256, 1);
	add("A", "VPT=8,T=64,gelu=as", ln_base<8, true>, 64, 1);
	add("A", "VPT=4,T=128,gelu=none (lab LayerNorm)", ln_base<4, false>, 128, 0);
	/* R: block per row (T, V, PF, GB, G, N, LD) */
	ADD_R(128, 4, 1, 0, 0, 0, 0);
	ADD_R(128, 4, 1, 1, 0, 0, 0);
	ADD_R(128, 4, 1, 1, 1, 1, 0);
	ADD_R(128, 4, 2, 1, 1, 1, 0);
	ADD_R(128, 4, 1, 2, 1, 1, 0);
	ADD_R(128, 4, 2, 2, 1, 1, 0);
	ADD_R(256, 2, 1, 1, 1, 1, 0);
	ADD_R(256, 2, 2, 1, 1, 1, 0);
	ADD_R(512, 1, 1, 1, 1, 1, 0);
	ADD_R(512, 1, 2, 1, 1, 1, 0); /* E */
	ADD_R(128, 4, 2, 1, 1, 1, 1);
	ADD_R(128, 4, 1, 1, 1, 0, 0);
	ADD_R(256, 2, 1, 2, 1, 1, 0);
	ADD_R(128, 4, 1, 1, 1, 1, 2);
	ADD_R(256, 2, 2, 1, 1, 1, 1);
	ADD_R(128, 4, 1, 1, 2, 1, 0);
	ADD_R(128, 4, 2, 1, 2, 1, 0);
	ADD_R(512, 1, 2, 1, 2, 1, 0);
	ADD_R(256, 2, 2, 1, 2, 1, 0);
	/* W: warp per row (WPC, PF, S, N, G, GB, LD) */
	ADD_W(8, 1, 0, 0, 0, 0, 0);
	ADD_W(4, 0, 1, 1, 1, 0, 0);
	ADD_W(8, 0, 1, 1, 1, 0, 0);
	ADD_W(16, 0, 1, 1, 1, 0, 0);
	ADD_W(4, 1, 1, 1, 1, 0, 0);
	ADD_W(8, 1, 1, 1, 1, 0, 0);
	ADD_W(16, 1, 1, 1, 1, 0, 0);
	ADD_W(4, 2, 1, 1, 1, 0, 0);
	ADD_W(8, 2, 1, 1, 1, 0, 0);
	ADD_W(16, 2, 1, 1, 1, 0, 0);
	ADD_W(8, 1, 0, 1, 1, 0, 0);
	ADD_W(8, 1, 1, 0, 1, 0, 0);
	ADD_W(8, 1, 1, 1, 0, 0, 0);
	ADD_W(8, 1, 1, 1, 1, 1, 0);
	ADD_W(8, 0, 1, 1, 1, 2, 0);
	ADD_W(8, 1, 1, 1, 1, 2, 0);
	ADD_W(8, 1, 1, 1, 1, 0, 1);
	ADD_W(8, 1, 1, 1, 1, 0, 2);
	ADD_W(8, 2, 1, 1, 1, 0, 1);
	ADD_W(8, 1, 1, 1, 2, 0, 0);
	ADD_W(8, 2, 1, 1, 2, 0, 0);
	ADD_W(16, 1, 1, 1, 2, 0, 0);
}

struct Bufs {
	bf16 *x[NBUF], *y[NBUF];
	float *gamma, *beta, *ref_ln, *ref_gelu;
	bf16 *gh, *bh;
	CmpOut *cmp;
	int *ctr; /* one row counter per launch of a variant (T, dyn=1) */
};
#define NCTR 64

struct Timing {
	double med, mn, mx;
};

static cudaEvent_t g_ev0[TIMED], g_ev1[TIMED];

template <class F> static Timing time_it(F launch)
{
	for (int w = 0; w < WARMUP; w++)
		launch(w % NBUF);
	for (int i = 0; i < TIMED; i++) {
		CK(cudaEventRecord(g_ev0[i]));
		launch((WARMUP + i) % NBUF);
		CK(cudaEventRecord(g_ev1[i]));
	}
	CK(cudaDeviceSynchronize());
	std::vector<double> t(TIMED);
	for (int i = 0; i < TIMED; i++) {
		float ms;
		CK(cudaEventElapsedTime(&ms, g_ev0[i], g_ev1[i]));
		t[i] = ms * 1e3;
	}
	std::sort(t.begin(), t.end());
	return Timing{(t[TIMED / 2 - 1] + t[TIMED / 2]) / 2, t[0], t[TIMED - 1]};
}

static float bf2f(uint16_t h)
{
	uint32_t u = (uint32_t)h << 16;
	float f;
	memcpy(&f, &u, 4);
	return f;
}

static const int CPU_ROWS[] = {0, 5, 42, 1000, 4097, 6666, 8191};
#define NCPU ((int)(sizeof CPU_ROWS / sizeof CPU_ROWS[0]))

/* FP64 reference of the CPU rows: [NCPU][H], gelu or plain */
static void cpu_ref(const std::vector<uint16_t> &xh, const std::vector<float> &g,
		    const std::vector<float> &b, int gelu, std::vector<double> &out)
{
	out.assign((size_t)NCPU * H, 0.0);
	for (int k = 0; k < NCPU; k++) {
		const uint16_t *xr = &xh[(size_t)k * H];
		double mean = 0, var = 0;
		for (int c = 0; c < H; c++)
			mean += bf2f(xr[c]);
		mean /= H;
		for (int c = 0; c < H; c++)
			var += (bf2f(xr[c]) - mean) * (bf2f(xr[c]) - mean);
		var /= H;
		const double rstd = 1.0 / sqrt(var + (double)EPS);
		for (int c = 0; c < H; c++) {
			const double v = (bf2f(xr[c]) - mean) * rstd * g[c] + b[c];
			out[(size_t)k * H + c] = gelu ? 0.5 * v * erfc(-v / sqrt(2.0)) : v;
		}
	}
}

/* CPU rows of a device buffer vs the FP64 reference: max abs error, count over 2 ulp + 1e-3 */
template <class T>
static void cpu_cmp(const T *dev, const std::vector<double> &ref, double *maxerr, long *bad)
{
	std::vector<T> h(H);
	*maxerr = 0;
	*bad = 0;
	for (int k = 0; k < NCPU; k++) {
		CK(cudaMemcpy(h.data(), dev + (size_t)CPU_ROWS[k] * H, H * sizeof(T), cudaMemcpyDeviceToHost));
		for (int c = 0; c < H; c++) {
			double o;
			if (sizeof(T) == 2) {
				uint16_t u;
				memcpy(&u, &h[c], 2);
				o = bf2f(u);
			} else {
				float f;
				memcpy(&f, &h[c], 4);
				o = f;
			}
			const double r = ref[(size_t)k * H + c], d = fabs(o - r);
			if (!(d <= 2.0 * bf16_ulp((float)r) + 1e-3))
				(*bad)++;
			if (d > *maxerr || d != d)
				*maxerr = d;
		}
	}
}

int main(int argc, char **argv)
{
	const char *only = argc > 1 && strcmp(argv[1], "all") ? argv[1] : NULL; /* e.g. "RT": only these kinds */
	if (argc > 2) { /* rows of x (default 8192): a bigger shape shows the launch ramp's share */
		ROWS = atoi(argv[2]);
		if (ROWS < 8192 || ROWS > (1 << 20)) {
			fprintf(stderr, "ln_sweep: rows must be 8192 … 1048576, got '%s'\n", argv[2]);
			return 2;
		}
	}
	XBYTES = (size_t)ROWS * H * sizeof(bf16);
	int dev = 0, sms = 0;
	cudaDeviceProp prop;
	CK(cudaGetDevice(&dev));
	CK(cudaGetDeviceProperties(&prop, dev));
	CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
	printf("# ln_sweep: %s, %d SMs, cc %d.%d, L2 %d MB; x BF16 [%d x %d], bytes/launch = 2 x %zu\n",
	       prop.name, sms, prop.major, prop.minor, prop.l2CacheSize >> 20, ROWS, H, XBYTES);
	printf("# time: median of %d launches (own event pair each) after %d warm-ups, %d rotating buffers;"
	       " GB/s = 2 x bytes of x / median\n", TIMED, WARMUP, NBUF);

	Bufs B;
	for (int i = 0; i < NBUF; i++) {
		CK(cudaMalloc(&B.x[i], XBYTES));
		CK(cudaMalloc(&B.y[i], XBYTES));
	}
	CK(cudaMalloc(&B.gamma, H * sizeof(float)));
	CK(cudaMalloc(&B.beta, H * sizeof(float)));
	CK(cudaMalloc(&B.gh, H * sizeof(bf16)));
	CK(cudaMalloc(&B.bh, H * sizeof(bf16)));
	CK(cudaMalloc(&B.ref_ln, (size_t)ROWS * H * sizeof(float)));
	CK(cudaMalloc(&B.ref_gelu, (size_t)ROWS * H * sizeof(float)));
	CK(cudaMalloc(&B.cmp, sizeof(CmpOut)));
	CK(cudaMalloc(&B.ctr, NCTR * sizeof(int)));
	for (int i = 0; i < TIMED; i++) {
		CK(cudaEventCreate(&g_ev0[i]));
		CK(cudaEventCreate(&g_ev1[i]));
	}
	init_x<<<sms * 8, 256>>>(B.x[0], ROWS);
	CK(cudaGetLastError());
	init_gb<<<H / 256, 256>>>(B.gamma, B.beta, B.gh, B.bh);
	CK(cudaGetLastError());
	for (int i = 1; i < NBUF; i++)
		CK(cudaMemcpy(B.x[i], B.x[0], XBYTES, cudaMemcpyDeviceToDevice));
	ref_kernel<<<ROWS, 256>>>(B.x[0], B.gamma, B.beta, B.ref_ln, B.ref_gelu);
	CK(cudaGetLastError());
	CK(cudaDeviceSynchronize());

	/* CPU FP64 reference of a few rows, and the GPU reference checked against it */
	std::vector<uint16_t> xh((size_t)NCPU * H);
	std::vector<float> gh(H), bh(H);
	for (int k = 0; k < NCPU; k++)
		CK(cudaMemcpy(&xh[(size_t)k * H], B.x[0] + (size_t)CPU_ROWS[k] * H, H * 2, cudaMemcpyDeviceToHost));
	CK(cudaMemcpy(gh.data(), B.gamma, H * 4, cudaMemcpyDeviceToHost));
	CK(cudaMemcpy(bh.data(), B.beta, H * 4, cudaMemcpyDeviceToHost));
	std::vector<double> cref[2];
	cpu_ref(xh, gh, bh, 0, cref[0]);
	cpu_ref(xh, gh, bh, 1, cref[1]);
	int ref_bad = 0;
	for (int gl = 0; gl < 2; gl++) {
		std::vector<float> h((size_t)NCPU * H);
		double me = 0;
		for (int k = 0; k < NCPU; k++)
			CK(cudaMemcpy(&h[(size_t)k * H], (gl ? B.ref_gelu : B.ref_ln) + (size_t)CPU_ROWS[k] * H,
				      H * 4, cudaMemcpyDeviceToHost));
		for (size_t i = 0; i < h.size(); i++) {
			const double d = fabs(h[i] - cref[gl][i]);
			if (!(d <= 1e-4 * (1.0 + fabs(cref[gl][i]))))
				ref_bad++;
			me = d > me || d != d ? d : me;
		}
		printf("# GPU reference (%s) vs CPU FP64 on %d rows: max abs err %.3g (limit 1e-4*(1+|v|))\n",
		       gl ? "LN+GeLU" : "LN", NCPU, me);
	}
	if (ref_bad)
		printf("# REFERENCE FAIL: %d elements of the GPU reference disagree with FP64\n", ref_bad);

	const double bytes = 2.0 * (double)XBYTES;
	printf("%-4s %-58s %4s %5s %4s %8s %8s %8s %7s %6s %9s %9s %7s %9s CHECK\n", "var", "params",
	       "regs", "lmem", "b/SM", "time_us", "min_us", "max_us", "GB/s", "ratio", "maxerr", "n>1ulp",
	       "maxulp", "cpuerr");

	/* anchors */
	Timing tm = time_it([&](int bi) {
		CK(cudaMemcpyAsync(B.y[bi], B.x[bi], XBYTES, cudaMemcpyDeviceToDevice, 0));
	});
	const size_t nv = XBYTES / 16;
	const unsigned cblocks = (unsigned)((nv + 1023) / 1024);
	Timing tk = time_it([&](int bi) {
		copy_kernel<0><<<cblocks, 256>>>((const uint4 *)B.x[bi], (uint4 *)B.y[bi], nv);
		CK(cudaGetLastError());
	});
	Timing tkc = time_it([&](int bi) {
		copy_kernel<1><<<cblocks, 256>>>((const uint4 *)B.x[bi], (uint4 *)B.y[bi], nv);
		CK(cudaGetLastError());
	});
	const double copy_best = std::min(tm.med, std::min(tk.med, tkc.med));
	const double copy_gbs = bytes / (copy_best * 1e-6) / 1e9;
	struct {
		const char *n;
		Timing t;
	} anchors[] = {{"cudaMemcpyAsync D2D (x -> y)", tm}, {"copy kernel uint4 x4/thread, 256 thr", tk},
		       {"copy kernel uint4, __ldcs/__stcs", tkc}};
	for (auto &an : anchors)
		printf("%-4s %-58s %4s %5s %4s %8.2f %8.2f %8.2f %7.0f %6.3f %9s %9s %7s %9s CHECK -\n", "copy",
		       an.n, "-", "-", "-", an.t.med, an.t.mn, an.t.mx, bytes / (an.t.med * 1e-6) / 1e9,
		       copy_best / an.t.med, "-", "-", "-", "-");

	build_variants();
	int fails = 0, best[2] = {-1, -1};
	double best_gbs[2] = {0, 0};
	for (size_t vi = 0; vi < g_vars.size(); vi++) {
		const Variant &v = g_vars[vi];
		cudaFuncAttributes fa;
		int per_sm = 0;
		if (only && !strchr(only, v.name[0]))
			continue;
		if (v.smem > 0) /* dynamic shared memory: with the static part it may pass 48 KiB */
			CK(cudaFuncSetAttribute((const void *)v.k, cudaFuncAttributeMaxDynamicSharedMemorySize, v.smem));
		CK(cudaFuncGetAttributes(&fa, (const void *)v.k));
		CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, (const void *)v.k, v.threads, v.smem));
		const bool warp_kernel = v.name == "W";
		int grid = (v.gsm > 0 && v.gsm < sms ? v.gsm : sms) * (per_sm > 0 ? per_sm : 1);
		const int max_grid = warp_kernel ? ROWS / (v.threads / 32) : ROWS;
		grid = std::min(grid, max_grid);
		for (int i = 0; i < NBUF; i++)
			CK(cudaMemsetAsync(B.y[i], 0xFF, XBYTES));
		LnArgs a{nullptr, B.gamma, B.beta, (const uint4 *)B.gh, (const uint4 *)B.bh, nullptr, ROWS, nullptr};
		CK(cudaMemset(B.ctr, 0, NCTR * sizeof(int)));
		int launch_no = 0;
		Timing t = time_it([&](int bi) {
			a.x = B.x[bi];
			a.y = B.y[bi];
			a.ctr = B.ctr + launch_no++;
			v.k<<<grid, v.threads, v.smem>>>(a);
			CK(cudaGetLastError());
		});
		/* every element of every buffer against the GPU reference */
		CmpOut c;
		memset(&c, 0, sizeof c);
		CK(cudaMemcpy(B.cmp, &c, sizeof c, cudaMemcpyHostToDevice));
		for (int i = 0; i < NBUF; i++) {
			cmp_kernel<<<sms * 8, 256>>>(B.y[i], v.gelu ? B.ref_gelu : B.ref_ln, (size_t)ROWS * H, B.cmp);
			CK(cudaGetLastError());
		}
		CK(cudaMemcpy(&c, B.cmp, sizeof c, cudaMemcpyDeviceToHost));
		double cerr = 0;
		long cbad = 0;
		for (int i = 0; i < NBUF; i++) {
			double e;
			long bb;
			cpu_cmp(B.y[i], cref[v.gelu], &e, &bb);
			cerr = std::max(cerr, e);
			cbad += bb;
		}
		float maxerr, maxulp;
		memcpy(&maxerr, &c.maxerr, 4);
		memcpy(&maxulp, &c.maxulp, 4);
		const bool ok = c.gt2 == 0 && c.bad == 0 && cbad == 0;
		fails += !ok;
		const double gbs = bytes / (t.med * 1e-6) / 1e9;
		char errs[32];
		if (c.bad)
			snprintf(errs, sizeof errs, "%lluNaN", c.bad);
		else
			snprintf(errs, sizeof errs, "%.3g", maxerr);
		printf("%-4s %-58s %4d %5zu %4d %8.2f %8.2f %8.2f %7.0f %6.3f %9s %9llu %7.2f %9.3g CHECK %s\n",
		       v.name.c_str(), v.params.c_str(), fa.numRegs, (size_t)fa.localSizeBytes, per_sm, t.med,
		       t.mn, t.mx, gbs, copy_best / t.med, errs, c.gt1, maxulp, cerr, ok ? "ok" : "FAIL");
		fflush(stdout);
		if (ok && gbs > best_gbs[v.gelu]) {
			best_gbs[v.gelu] = gbs;
			best[v.gelu] = (int)vi;
		}
	}
	printf("# copy reference: %.0f GB/s (fastest anchor median)\n", copy_gbs);
	for (int gl = 1; gl >= 0; gl--)
		if (best[gl] >= 0)
			printf("BEST %s: %s %s  %.0f GB/s = %.3f of copy\n", gl ? "LN+GeLU" : "LN",
			       g_vars[best[gl]].name.c_str(), g_vars[best[gl]].params.c_str(), best_gbs[gl],
			       best_gbs[gl] / copy_gbs);
	printf("# %d variant(s) FAIL the check%s\n", fails, ref_bad ? "; the GPU reference itself FAILED" : "");
	for (int i = 0; i < NBUF; i++) {
		CK(cudaFree(B.x[i]));
		CK(cudaFree(B.y[i]));
	}
	return fails || ref_bad ? 1 : 0;
}
