/* Kernels of `gpudiag lab coalescing` (§7): coalesced vs strided access, gathers, AoS vs SoA,
 * transposes, and the permute() case. See lab_coalescing.h; the CPU references are in
 * src/lab/lab_coalescing.c. All grids are fixed by the sizes, not by the device, except the
 * grid-stride kernels whose block count the caller passes (and the references know). */
#include "kernels/lab_coalescing.h"
#include "kernels/lab_hash.h"

#include <cuda_runtime.h>

#define GS_LOOP(i, n)                                                                                        \
	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < (n);                              \
	     i += (size_t)gridDim.x * blockDim.x)

static __global__ void k_fill_f32(float *p, size_t n, size_t stride, size_t offset, uint32_t seed)
{
	GS_LOOP(i, n) p[i] = gd_hashf(i * stride + offset, seed);
}

static __global__ void k_fill_u32(uint32_t *p, size_t n, uint32_t seed)
{
	GS_LOOP(i, n) p[i] = gd_hash32(i, seed);
}

extern "C" int gd_labk_co_fill_f32(float *p, size_t n, size_t stride, size_t offset, uint32_t seed)
{
	k_fill_f32<<<4096, 256>>>(p, n, stride, offset, seed);
	return (int)cudaGetLastError();
}

extern "C" int gd_labk_co_fill_u32(uint32_t *p, size_t n, uint32_t seed)
{
	k_fill_u32<<<4096, 256>>>(p, n, seed);
	return (int)cudaGetLastError();
}

/* Four independent 16-byte loads in flight per thread before the stores (each of the four is
 * still one coalesced 512-byte run per warp): enough bytes in flight per SM to cover HBM
 * latency, which one load per loop iteration is not. */
static __global__ void k_copy(const float4 *__restrict__ in, float4 *__restrict__ out, size_t n4)
{
	size_t T = (size_t)gridDim.x * blockDim.x, i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	for (; i + 3 * T < n4; i += 4 * T) {
		float4 a = in[i], b = in[i + T], c = in[i + 2 * T], d = in[i + 3 * T];
		out[i] = a;
		out[i + T] = b;
		out[i + 2 * T] = c;
		out[i + 3 * T] = d;
	}
	for (; i < n4; i += T)
		out[i] = in[i];
}

extern "C" int gd_labk_co_copy(const void *in, void *out, size_t n4, int blocks)
{
	k_copy<<<blocks, 256>>>((const float4 *)in, (float4 *)out, n4);
	return (int)cudaGetLastError();
}

static __global__ void k_stride_sum(const uint32_t *__restrict__ in, size_t n, unsigned stride, size_t base,
				    size_t mask, uint32_t *partials)
{
	__shared__ uint32_t ws[8];
	uint32_t s = 0;
#pragma unroll 4
	GS_LOOP(i, n) s += in[(base + i * stride) & mask];
	for (int o = 16; o > 0; o >>= 1)
		s += __shfl_down_sync(0xffffffffu, s, o);
	if ((threadIdx.x & 31) == 0)
		ws[threadIdx.x >> 5] = s;
	__syncthreads();
	if (threadIdx.x == 0) {
		uint32_t t = 0;
		for (int w = 0; w < 8; w++)
			t += ws[w];
		partials[blockIdx.x] = t;
	}
}

extern "C" int gd_labk_co_stride_sum(const uint32_t *in, size_t n, unsigned stride, size_t base, size_t mask,
				     int blocks, uint32_t *partials)
{
	k_stride_sum<<<blocks, 256>>>(in, n, stride, base, mask, partials);
	return (int)cudaGetLastError();
}

static __global__ void k_gather(const float *__restrict__ table, const uint32_t *__restrict__ idx, size_t nb,
				unsigned dshift, float *__restrict__ out)
{
	size_t total = nb << dshift, dmask = ((size_t)1 << dshift) - 1;
	GS_LOOP(o, total) out[o] = table[((size_t)idx[o >> dshift] << dshift) + (o & dmask)];
}

extern "C" int gd_labk_co_gather(const float *table, const uint32_t *idx, size_t nb, unsigned d, float *out)
{
	unsigned sh = 0;
	while ((1u << sh) < d)
		sh++;
	if ((1u << sh) != d)
		return (int)cudaErrorInvalidValue;
	k_gather<<<4096, 256>>>(table, idx, nb, sh, out);
	return (int)cudaGetLastError();
}

static __global__ void k_aos(const float *__restrict__ aos, size_t n, float dt, float *__restrict__ out)
{
	GS_LOOP(i, n) out[i] = aos[8 * i] + aos[8 * i + 3] * dt;
}

static __global__ void k_soa(const float *__restrict__ x, const float *__restrict__ vx, size_t n, float dt,
			     float *__restrict__ out)
{
	GS_LOOP(i, n) out[i] = x[i] + vx[i] * dt;
}

extern "C" int gd_labk_co_aos(const float *aos, size_t n, float dt, float *out)
{
	k_aos<<<4096, 256>>>(aos, n, dt, out);
	return (int)cudaGetLastError();
}

extern "C" int gd_labk_co_soa(const float *x, const float *vx, size_t n, float dt, float *out)
{
	k_soa<<<4096, 256>>>(x, vx, n, dt, out);
	return (int)cudaGetLastError();
}

/* 32×8 threads per 32×32 tile, each thread 4 rows of the tile. */
#define TILE 32
#define ROWS 8

static __global__ void k_transpose_naive(const float *__restrict__ in, float *__restrict__ out, int m)
{
	int c = blockIdx.x * TILE + threadIdx.x, r0 = blockIdx.y * TILE + threadIdx.y;
	for (int k = 0; k < TILE; k += ROWS)
		out[(size_t)c * m + r0 + k] = in[(size_t)(r0 + k) * m + c]; /* write stride m */
}

template <int PAD>
static __global__ void k_transpose_tiled(const float *__restrict__ in, float *__restrict__ out, int m)
{
	__shared__ float tile[TILE][TILE + PAD];
	int c = blockIdx.x * TILE + threadIdx.x, r = blockIdx.y * TILE + threadIdx.y;
	for (int k = 0; k < TILE; k += ROWS)
		tile[threadIdx.y + k][threadIdx.x] = in[(size_t)(r + k) * m + c];
	__syncthreads();
	/* write the transposed tile: row (blockIdx.x·32 + y) of out, columns from blockIdx.y */
	c = blockIdx.y * TILE + threadIdx.x;
	r = blockIdx.x * TILE + threadIdx.y;
	for (int k = 0; k < TILE; k += ROWS)
		out[(size_t)(r + k) * m + c] = tile[threadIdx.x][threadIdx.y + k]; /* column read */
}

extern "C" int gd_labk_co_transpose(const float *in, float *out, int m, int kind)
{
	dim3 grid(m / TILE, m / TILE), block(TILE, ROWS);
	if (m % TILE)
		return (int)cudaErrorInvalidValue;
	if (kind == 0)
		k_transpose_naive<<<grid, block>>>(in, out, m);
	else if (kind == 1)
		k_transpose_tiled<0><<<grid, block>>>(in, out, m);
	else
		k_transpose_tiled<1><<<grid, block>>>(in, out, m);
	return (int)cudaGetLastError();
}

static __global__ void k_scale2(const float *__restrict__ x, float *__restrict__ out, unsigned b, unsigned s,
				unsigned d, int permuted)
{
	unsigned total = b * s * d;
	for (unsigned o = blockIdx.x * blockDim.x + threadIdx.x; o < total; o += gridDim.x * blockDim.x) {
		/* both variants decompose o = (bi·d + k)·s + j, so they execute the same integer work
		 * and differ only in where they read */
		unsigned j = o % s, k = (o / s) % d, bi = o / (s * d);
		unsigned src = permuted ? (bi * s + j) * d + k	/* x[bi][j][k]: stride d between threads */
					: (bi * d + k) * s + j; /* == o: contiguous */
		out[o] = 2.0f * x[src];
	}
}

extern "C" int gd_labk_co_scale2(const float *x, float *out, int b, int s, int d, int permuted)
{
	if ((unsigned long long)b * s * d >= (1ull << 31))
		return (int)cudaErrorInvalidValue;
	k_scale2<<<4096, 256>>>(x, out, b, s, d, permuted);
	return (int)cudaGetLastError();
}
