/* Kernels of `gpudiag lab fusion`: LayerNorm (optionally with GeLU fused), GeLU, and a
 * four-op elementwise chain, op by op or fused.
 *
 * The row kernel keeps one row in registers: each thread loads up to VPT 16-byte vectors
 * (8 BF16 values each), so HBM is read once and written once. Mean first, then the sum of
 * squared deviations over the same registers (two-pass in registers: no cancellation as in
 * E[x²] − E[x]²), FP32 warp shuffles then one shared-memory step across warps. */
#include "kernels/lab_fusion.h"

#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>

extern "C" {
#include "core/status.h"
}

typedef __nv_bfloat16 bf16;

#define FU_CK(call)                                                                     \
	do {                                                                            \
		cudaError_t e_ = (call);                                                \
		if (e_ != cudaSuccess) {                                                \
			snprintf(why, n, "%s: %s", #call, cudaGetErrorString(e_));     \
			return GD_EFAIL;                                                \
		}                                                                       \
	} while (0)

/* GeLU, exact form 0.5·x·(1 + erf(x/√2)), as PyTorch's default. */
__device__ __forceinline__ float gelu_f(float x)
{
	return 0.5f * x * (1.f + erff(x * 0.70710678118654752f));
}

__device__ __forceinline__ void unpack8(const uint4 &u, float *f)
{
	const __nv_bfloat162 *h = reinterpret_cast<const __nv_bfloat162 *>(&u);
#pragma unroll
	for (int i = 0; i < 4; i++) {
		float2 p = __bfloat1622float2(h[i]);
		f[2 * i] = p.x;
		f[2 * i + 1] = p.y;
	}
}

__device__ __forceinline__ uint4 pack8(const float *f)
{
	uint4 u;
	__nv_bfloat162 *h = reinterpret_cast<__nv_bfloat162 *>(&u);
#pragma unroll
	for (int i = 0; i < 4; i++)
		h[i] = __floats2bfloat162_rn(f[2 * i], f[2 * i + 1]);
	return u;
}

/* Sum over the block; every thread gets the result. red holds one float per warp. */
__device__ __forceinline__ float block_sum(float v, float *red)
{
#pragma unroll
	for (int o = 16; o; o >>= 1)
		v += __shfl_xor_sync(0xffffffffu, v, o);
	const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
	if (lane == 0)
		red[warp] = v;
	__syncthreads();
	float s = 0.f;
	for (int i = 0; i < (int)(blockDim.x >> 5); i++)
		s += red[i];
	return s;
}

#define LN_MAX_THREADS 256

template <int VPT, bool GELU>
__global__ void __launch_bounds__(LN_MAX_THREADS)
	layernorm_kernel(const bf16 *__restrict__ x, const float *__restrict__ gamma,
			 const float *__restrict__ beta, bf16 *__restrict__ y, int hidden, float eps)
{
	__shared__ float red0[LN_MAX_THREADS / 32], red1[LN_MAX_THREADS / 32];
	const size_t row = blockIdx.x;
	const uint4 *xr = reinterpret_cast<const uint4 *>(x + row * (size_t)hidden);
	uint4 *yr = reinterpret_cast<uint4 *>(y + row * (size_t)hidden);
	const int nvec = hidden / 8;
	float v[VPT][8];
	float sum = 0.f;
#pragma unroll
	for (int i = 0; i < VPT; i++) {
		int idx = threadIdx.x + i * blockDim.x;
		if (idx < nvec) {
			uint4 u = __ldcs(xr + idx); /* streamed: read once */
			unpack8(u, v[i]);
#pragma unroll
			for (int c = 0; c < 8; c++)
				sum += v[i][c];
		} else {
#pragma unroll
			for (int c = 0; c < 8; c++)
				v[i][c] = 0.f;
		}
	}
	const float mean = block_sum(sum, red0) / (float)hidden;
	float sq = 0.f;
#pragma unroll
	for (int i = 0; i < VPT; i++) {
		int idx = threadIdx.x + i * blockDim.x;
		if (idx < nvec)
#pragma unroll
			for (int c = 0; c < 8; c++) {
				float d = v[i][c] - mean;
				sq = fmaf(d, d, sq);
			}
	}
	const float rstd = rsqrtf(block_sum(sq, red1) / (float)hidden + eps);
#pragma unroll
	for (int i = 0; i < VPT; i++) {
		int idx = threadIdx.x + i * blockDim.x;
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
				o[c] = GELU ? gelu_f(r) : r;
			}
			yr[idx] = pack8(o);
		}
	}
}

template <bool GELU>
static void ln_launch(int vpt, int threads, const bf16 *x, const float *g, const float *b, bf16 *y,
		      int rows, int hidden, float eps, cudaStream_t st)
{
	switch (vpt) {
	case 1: layernorm_kernel<1, GELU><<<rows, threads, 0, st>>>(x, g, b, y, hidden, eps); break;
	case 2: layernorm_kernel<2, GELU><<<rows, threads, 0, st>>>(x, g, b, y, hidden, eps); break;
	case 4: layernorm_kernel<4, GELU><<<rows, threads, 0, st>>>(x, g, b, y, hidden, eps); break;
	default: layernorm_kernel<8, GELU><<<rows, threads, 0, st>>>(x, g, b, y, hidden, eps); break;
	}
}

extern "C" int gd_fu_layernorm(const void *x, const float *gamma, const float *beta, void *y,
			       int rows, int hidden, float eps, int gelu, void *stream, char *why,
			       size_t n)
{
	if (rows <= 0 || hidden <= 0 || hidden % 8 || hidden > GD_FU_MAX_HIDDEN) {
		snprintf(why, n, "layernorm: hidden must be a multiple of 8 in [8, %d]", GD_FU_MAX_HIDDEN);
		return GD_EUSAGE;
	}
	const int nvec = hidden / 8;
	int threads = nvec < LN_MAX_THREADS ? (nvec + 31) / 32 * 32 : LN_MAX_THREADS;
	int need = (nvec + threads - 1) / threads, vpt = 1;
	while (vpt < need)
		vpt *= 2;
	if (gelu)
		ln_launch<true>(vpt, threads, (const bf16 *)x, gamma, beta, (bf16 *)y, rows, hidden, eps,
				(cudaStream_t)stream);
	else
		ln_launch<false>(vpt, threads, (const bf16 *)x, gamma, beta, (bf16 *)y, rows, hidden, eps,
				 (cudaStream_t)stream);
	FU_CK(cudaGetLastError());
	return GD_OK;
}

/* Grid-stride elementwise kernel over 16-byte vectors. */
template <int OP>
__global__ void elementwise_kernel(const uint4 *__restrict__ x, uint4 *__restrict__ y, size_t nvec,
				   float a, float b, float c)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < nvec;
	     i += (size_t)gridDim.x * blockDim.x) {
		float f[8];
		unpack8(__ldcs(x + i), f);
#pragma unroll
		for (int k = 0; k < 8; k++) {
			float v = f[k];
			if (OP == GD_FU_MUL_A)
				v = v * a;
			else if (OP == GD_FU_ADD_B)
				v = v + b;
			else if (OP == GD_FU_GELU)
				v = gelu_f(v);
			else if (OP == GD_FU_MUL_C)
				v = v * c;
			else
				v = gelu_f(fmaf(v, a, b)) * c;
			f[k] = v;
		}
		y[i] = pack8(f);
	}
}

static int ew_launch(const void *x, void *y, long long count, int op, float a, float b, float c,
		     cudaStream_t st, char *why, size_t n)
{
	if (count <= 0 || count % 8) {
		snprintf(why, n, "elementwise: the element count must be a positive multiple of 8");
		return GD_EUSAGE;
	}
	size_t nvec = (size_t)count / 8;
	int dev, sms = 0;
	FU_CK(cudaGetDevice(&dev));
	FU_CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
	/* Enough blocks to fill every SM many times over; the loop covers the rest. */
	size_t want = (nvec + 255) / 256, cap = (size_t)sms * 32;
	unsigned blocks = (unsigned)(want < cap ? want : cap);
	const uint4 *xi = (const uint4 *)x;
	uint4 *yo = (uint4 *)y;
	switch (op) {
	case GD_FU_MUL_A: elementwise_kernel<GD_FU_MUL_A><<<blocks, 256, 0, st>>>(xi, yo, nvec, a, b, c); break;
	case GD_FU_ADD_B: elementwise_kernel<GD_FU_ADD_B><<<blocks, 256, 0, st>>>(xi, yo, nvec, a, b, c); break;
	case GD_FU_GELU: elementwise_kernel<GD_FU_GELU><<<blocks, 256, 0, st>>>(xi, yo, nvec, a, b, c); break;
	case GD_FU_MUL_C: elementwise_kernel<GD_FU_MUL_C><<<blocks, 256, 0, st>>>(xi, yo, nvec, a, b, c); break;
	case GD_FU_CHAIN: elementwise_kernel<GD_FU_CHAIN><<<blocks, 256, 0, st>>>(xi, yo, nvec, a, b, c); break;
	default:
		snprintf(why, n, "elementwise: unknown op %d", op);
		return GD_EUSAGE;
	}
	FU_CK(cudaGetLastError());
	return GD_OK;
}

extern "C" int gd_fu_gelu(const void *x, void *y, long long count, void *stream, char *why, size_t n)
{
	return ew_launch(x, y, count, GD_FU_GELU, 0.f, 0.f, 0.f, (cudaStream_t)stream, why, n);
}

extern "C" int gd_fu_elementwise(const void *x, void *y, long long count, int op, float a, float b,
				 float c, void *stream, char *why, size_t n)
{
	return ew_launch(x, y, count, op, a, b, c, (cudaStream_t)stream, why, n);
}
