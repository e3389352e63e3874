/* Kernels of `gpudiag lab memory`: the bandwidth staircase (a read over working sets from
 * 16 KB to GBs) and the pointer chase (one dependent load at a time). See lab_memory.h. */
#include "kernels/lab_hash.h"
#include "kernels/lab_memory.h"

#include <cuda_runtime.h>

static __global__ void k_fill(uint32_t *p, size_t n, uint32_t seed)
{
	size_t stride = (size_t)gridDim.x * blockDim.x;
	for (size_t j = (size_t)blockIdx.x * blockDim.x + threadIdx.x; j < n; j += stride)
		p[j] = gd_hash32(j, seed);
}

extern "C" int gd_labk_mem_fill(uint32_t *p, size_t n, uint32_t seed)
{
	k_fill<<<4096, 256>>>(p, n, seed);
	return (int)cudaGetLastError();
}

/* Block-wide u32 sum, written by thread 0. blockDim.x is a multiple of 32, at most 1024. */
static __device__ void block_sum_store(uint32_t s, uint32_t *dst)
{
	__shared__ uint32_t warp_sums[32];
	for (int o = 16; o > 0; o >>= 1)
		s += __shfl_down_sync(0xffffffffu, s, o);
	if ((threadIdx.x & 31) == 0)
		warp_sums[threadIdx.x >> 5] = s;
	__syncthreads();
	if (threadIdx.x < 32) {
		s = threadIdx.x < (blockDim.x >> 5) ? warp_sums[threadIdx.x] : 0;
		for (int o = 16; o > 0; o >>= 1)
			s += __shfl_down_sync(0xffffffffu, s, o);
		if (threadIdx.x == 0)
			*dst = s;
	}
}

/* Warp w (of T/32) reads the contiguous chunk j = (w·iters + i)·32 + lane, i < iters, modulo
 * n16: each load instruction is one coalesced 512-byte run, and the j cover [0, T·iters) once
 * each, so the CPU knows the total. Because a warp's chunk (512 B × iters) spans megabytes,
 * every SM sweeps the whole working set (up to that span): a set larger than L1 really comes
 * from L2, and a set beyond L2 from VRAM. */
static __global__ void k_read(const uint4 *__restrict__ buf, unsigned long long n16, int iters,
			      uint32_t *partials)
{
	unsigned long long w = ((unsigned long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
	unsigned long long idx = ((w * (unsigned long long)iters) * 32 + (threadIdx.x & 31)) % n16;
	uint32_t s = 0;
#pragma unroll 8
	for (int i = 0; i < iters; i++) {
		uint4 v = buf[idx];
		s += v.x + v.y + v.z + v.w;
		idx += 32; /* n16 >= 32, so one subtraction keeps idx < n16 */
		if (idx >= n16)
			idx -= n16;
	}
	block_sum_store(s, &partials[blockIdx.x]);
}

extern "C" int gd_labk_mem_read(const void *buf, size_t n16, int iters, int blocks, int threads,
				uint32_t *partials)
{
	if (n16 < 32 || threads % 32 || threads > 1024)
		return (int)cudaErrorInvalidValue;
	k_read<<<blocks, threads>>>((const uint4 *)buf, n16, iters, partials);
	return (int)cudaGetLastError();
}

static __global__ void k_link(uint32_t *buf, const uint32_t *order, size_t n, uint32_t stride)
{
	size_t gs = (size_t)gridDim.x * blockDim.x;
	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gs)
		buf[(size_t)order[i] * stride] = order[i + 1 == n ? 0 : i + 1] * stride;
}

extern "C" int gd_labk_mem_link(uint32_t *buf, const uint32_t *order, size_t n, uint32_t stride)
{
	k_link<<<1024, 256>>>(buf, order, n, stride);
	return (int)cudaGetLastError();
}

static __device__ __forceinline__ unsigned long long global_ns(void)
{
	unsigned long long t;
	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	return t;
}

static __global__ void k_chase(const uint32_t *buf, uint32_t start, long warm, long steps,
			       unsigned long long *out)
{
	uint32_t p = start;
	long long c0, c1;
	unsigned long long g0, g1;
	for (long i = 0; i < warm; i++)
		p = __ldca(&buf[p]);
	/* at most the warm walk's last load overlaps the timed region: noise over 10^4 steps */
	c0 = clock64();
	g0 = global_ns();
	for (long i = 0; i < steps; i++)
		p = __ldca(&buf[p]); /* cache at all levels: L1 hits count as L1 */
	out[0] = p;		     /* the store depends on the last load, so the clocks below follow it */
	__threadfence_block();
	c1 = clock64();
	g1 = global_ns();
	out[1] = (unsigned long long)(c1 - c0);
	out[2] = g1 - g0;
}

extern "C" int gd_labk_mem_chase(const uint32_t *buf, uint32_t start, long warm, long steps,
				 unsigned long long *out)
{
	k_chase<<<1, 1>>>(buf, start, warm, steps, out);
	return (int)cudaGetLastError();
}
