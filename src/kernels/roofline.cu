// The roofline's own measuring kernels: DRAM/L2/L1/shared-memory bandwidth, CUDA-core FMA
// peaks, the SFU rate, mma.sync tensor-core peaks, and the cuBLASLt library line.
// See roofline.h for the contract and src/roofline/model.h for the CPU models every output is
// checked against. Compiles for sm_75 … sm_120; instructions an architecture lacks are
// compiled out there and the host reports the test as unsupported.
#include "kernels/roofline.h"

#include "roofline/model.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector>

namespace {

// ---------------------------------------------------------------- helpers (host)

struct Scope {
	std::vector<void *> bufs;
	std::vector<cudaEvent_t> evs;
	~Scope()
	{
		for (void *p : bufs)
			cudaFree(p);
		for (cudaEvent_t e : evs)
			cudaEventDestroy(e);
	}
};

int fail(gd_rl_run *r, const char *what, cudaError_t e)
{
	snprintf(r->msg, sizeof r->msg, "%s failed: %s%s", what, cudaGetErrorString(e),
		 e == cudaErrorMemoryAllocation ? " (not enough free GPU memory for this test)" : "");
	cudaGetLastError();
	return 1;
}

#define CK(x)                                                   \
	do {                                                    \
		cudaError_t e_ = (x);                           \
		if (e_ != cudaSuccess)                          \
			return fail(r, #x, e_);                 \
	} while (0)

template <class T> int dalloc(gd_rl_run *r, Scope &s, T **p, size_t bytes)
{
	void *v = nullptr;
	cudaError_t e = cudaMalloc(&v, bytes);
	if (e != cudaSuccess)
		return fail(r, "cudaMalloc", e);
	s.bufs.push_back(v);
	*p = (T *)v;
	return 0;
}

// Warm-up, then r->reps repetitions, each bracketed by its own pair of events (all
// recorded back to back, one synchronisation at the end).
template <class F> int timed(gd_rl_run *r, Scope &s, F launch, int warm)
{
	int reps = r->reps < 1 ? 1 : (r->reps > GD_RL_MAX_REPS ? GD_RL_MAX_REPS : r->reps);
	for (int i = 0; i < warm; i++)
		CK(launch());
	CK(cudaDeviceSynchronize());
	std::vector<cudaEvent_t> ev(reps + 1);
	for (int i = 0; i <= reps; i++) {
		CK(cudaEventCreate(&ev[i]));
		s.evs.push_back(ev[i]);
	}
	CK(cudaEventRecord(ev[0]));
	for (int i = 0; i < reps; i++) {
		CK(launch());
		CK(cudaEventRecord(ev[i + 1]));
	}
	CK(cudaEventSynchronize(ev[reps]));
	for (int i = 0; i < reps; i++) {
		float ms = 0;
		CK(cudaEventElapsedTime(&ms, ev[i], ev[i + 1]));
		r->ms[i] = ms;
	}
	r->n = reps;
	return 0;
}

int blocks_full(const gd_rl_run *r, int threads)
{
	int per = r->dev.max_threads_sm > 0 ? r->dev.max_threads_sm / threads : 1;
	return (r->dev.sms > 0 ? r->dev.sms : 1) * (per > 0 ? per : 1);
}

// ---------------------------------------------------------------- bandwidth kernels

__device__ __forceinline__ uint32_t sum4(uint4 v) { return v.x + v.y + v.z + v.w; }

__device__ __forceinline__ uint4 ld_cg(const uint4 *p)
{
	uint4 v;
	asm volatile("ld.global.cg.v4.u32 {%0,%1,%2,%3}, [%4];"
		     : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
		     : "l"(p));
	return v;
}
__device__ __forceinline__ uint4 ld_ca(const uint4 *p)
{
	uint4 v;
	asm volatile("ld.global.ca.v4.u32 {%0,%1,%2,%3}, [%4];"
		     : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
		     : "l"(p));
	return v;
}
__device__ __forceinline__ uint4 ld_shared(const uint4 *p)
{
	uint4 v;
	unsigned a = (unsigned)__cvta_generic_to_shared(p);
	asm volatile("ld.shared.v4.u32 {%0,%1,%2,%3}, [%4];"
		     : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
		     : "r"(a));
	return v;
}

// Block-wide sum; thread 0 writes it to out[blockIdx.x].
__device__ void block_sum_store(uint32_t s, uint32_t *out)
{
	__shared__ uint32_t ws[32];
	for (int o = 16; o > 0; o >>= 1)
		s += __shfl_xor_sync(0xffffffffu, s, o);
	if ((threadIdx.x & 31) == 0)
		ws[threadIdx.x >> 5] = s;
	__syncthreads();
	if (threadIdx.x == 0) {
		uint32_t t = 0;
		for (unsigned w = 0; w < (blockDim.x + 31) / 32; w++)
			t += ws[w];
		out[blockIdx.x] = t;
	}
}

__global__ void k_fill(uint4 *p, size_t n16, uint32_t seed)
{
	size_t stride = (size_t)gridDim.x * blockDim.x;
	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n16; i += stride)
		p[i] = make_uint4(gd_rl_word(4 * i, seed), gd_rl_word(4 * i + 1, seed), gd_rl_word(4 * i + 2, seed),
				  gd_rl_word(4 * i + 3, seed));
}

// Read-back check of the DRAM tests: every 16-byte word once, four loads in flight per thread.
__global__ void k_read(const uint4 *__restrict__ p, size_t n16, uint32_t *partial)
{
	size_t stride = (size_t)gridDim.x * blockDim.x;
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	uint32_t s = 0;
	for (; i + 3 * stride < n16; i += 4 * stride) {
		uint4 a = __ldcs(p + i), b = __ldcs(p + i + stride), c = __ldcs(p + i + 2 * stride),
		      d = __ldcs(p + i + 3 * stride);
		s += sum4(a) + sum4(b) + sum4(c) + sum4(d);
	}
	for (; i < n16; i += stride)
		s += sum4(__ldcs(p + i));
	block_sum_store(s, partial);
}

// Tiled bandwidth kernels (the timed ones). Block b handles tiles b, b + grid, b + 2·grid, …
// of blockDim·U 16-byte words; in a tile thread t touches words t, t + blockDim, …,
// t + (U−1)·blockDim (each warp access 512 contiguous bytes), issuing all U loads before
// using any, so U × 16 bytes per thread are in flight and the blocks resident at one time
// sweep one contiguous region. A partial last tile is guarded per word.
__device__ __forceinline__ uint4 pattern16(size_t i, uint32_t seed)
{
	return make_uint4(gd_rl_word(4 * i, seed), gd_rl_word(4 * i + 1, seed), gd_rl_word(4 * i + 2, seed),
			  gd_rl_word(4 * i + 3, seed));
}

template <int U> __global__ void __launch_bounds__(256) k_read_t(const uint4 *__restrict__ p, size_t n16, uint32_t *partial)
{
	const size_t tile = (size_t)blockDim.x * U, step = (size_t)gridDim.x * tile;
	uint32_t s = 0;
	for (size_t base = (size_t)blockIdx.x * tile; base < n16; base += step) {
		const size_t i = base + threadIdx.x;
		if (base + tile <= n16) {
			uint4 v[U];
#pragma unroll
			for (int u = 0; u < U; u++)
				v[u] = __ldcs(p + i + (size_t)u * blockDim.x);
#pragma unroll
			for (int u = 0; u < U; u++)
				s += sum4(v[u]);
		} else {
			for (int u = 0; u < U; u++)
				if (i + (size_t)u * blockDim.x < n16)
					s += sum4(__ldcs(p + i + (size_t)u * blockDim.x));
		}
	}
	block_sum_store(s, partial);
}

template <int U> __global__ void __launch_bounds__(256) k_write_t(uint4 *__restrict__ p, size_t n16, uint32_t seed)
{
	const size_t tile = (size_t)blockDim.x * U, step = (size_t)gridDim.x * tile;
	for (size_t base = (size_t)blockIdx.x * tile; base < n16; base += step) {
		const size_t i = base + threadIdx.x;
		if (base + tile <= n16) {
#pragma unroll
			for (int u = 0; u < U; u++)
				__stcs(p + i + (size_t)u * blockDim.x, pattern16(i + (size_t)u * blockDim.x, seed));
		} else {
			for (int u = 0; u < U; u++)
				if (i + (size_t)u * blockDim.x < n16)
					__stcs(p + i + (size_t)u * blockDim.x, pattern16(i + (size_t)u * blockDim.x, seed));
		}
	}
}

template <int U>
__global__ void __launch_bounds__(256) k_copy_t(const uint4 *__restrict__ src, uint4 *__restrict__ dst, size_t n16)
{
	const size_t tile = (size_t)blockDim.x * U, step = (size_t)gridDim.x * tile;
	for (size_t base = (size_t)blockIdx.x * tile; base < n16; base += step) {
		const size_t i = base + threadIdx.x;
		if (base + tile <= n16) {
			uint4 v[U];
#pragma unroll
			for (int u = 0; u < U; u++)
				v[u] = __ldcs(src + i + (size_t)u * blockDim.x);
#pragma unroll
			for (int u = 0; u < U; u++)
				__stcs(dst + i + (size_t)u * blockDim.x, v[u]);
		} else {
			for (int u = 0; u < U; u++)
				if (i + (size_t)u * blockDim.x < n16)
					__stcs(dst + i + (size_t)u * blockDim.x, __ldcs(src + i + (size_t)u * blockDim.x));
		}
	}
}

// L2: `passes` sweeps over the working set with ld.global.cg (L2 only, bypassing L1). The
// host sizes the working set as a whole number of grid × tile rounds, so every thread issues
// its U loads together on every tile (no serial remainder loads).
template <int U>
__global__ void __launch_bounds__(256) k_l2_t(const uint4 *__restrict__ p, size_t n16, int passes, uint32_t *partial)
{
	const size_t tile = (size_t)blockDim.x * U, step = (size_t)gridDim.x * tile;
	uint32_t s = 0;
	for (int pass = 0; pass < passes; pass++)
		for (size_t base = (size_t)blockIdx.x * tile; base < n16; base += step) {
			const size_t i = base + threadIdx.x;
			if (base + tile <= n16) {
				uint4 v[U];
#pragma unroll
				for (int u = 0; u < U; u++)
					v[u] = ld_cg(p + i + (size_t)u * blockDim.x);
#pragma unroll
				for (int u = 0; u < U; u++)
					s += sum4(v[u]);
			} else {
				for (int u = 0; u < U; u++)
					if (i + (size_t)u * blockDim.x < n16)
						s += sum4(ld_cg(p + i + (size_t)u * blockDim.x));
			}
		}
	block_sum_store(s, partial);
}

// L2 through the Hopper bulk-copy engine (cc 9.x; cp.async.bulk, the TMA's 1-D form): one
// warp per block, one block per SM, a ring of S stages of C bytes in shared memory. Block b
// reads chunks (b + k·grid) mod nchunks of the working set for k < nk; lane 0 keeps S bulk
// loads in flight, each completing on its stage's mbarrier; once a stage has landed, every
// lane adds one word of it (lane l: word l·C/128), so the data must really arrive, and lane 0
// refills the stage. Loads of this form go L2 → shared memory without L1. On the H200 the
// rate follows the bytes in flight per SM (16 KB stages: half the rate of 32 KB ones), which
// is why this beats ld.global.cg at U ≤ 16 (128 KB+ in flight vs ~64 KB). Bytes counted:
// grid · nk · C. Sum check: if grid·nk is a multiple of nchunks, every chunk is read
// grid·nk / nchunks times.
#define RL_TMA_MAX_STAGES 8
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
// Waits for the mbarrier phase of the given parity. A phase that never completes would be a
// bug; after 2 s of waiting the kernel traps, so `roofline` reports a launch failure instead
// of hanging.
__device__ __forceinline__ void rl_mbar_wait(uint32_t bar, uint32_t parity)
{
	uint64_t t0 = 0, t;
	for (;;) {
		uint32_t ok;
		asm volatile("{\n\t.reg .pred p;\n\t"
			     "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\t"
			     "selp.u32 %0, 1, 0, p;\n\t}"
			     : "=r"(ok)
			     : "r"(bar), "r"(parity)
			     : "memory");
		if (ok)
			return;
		asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
		if (!t0)
			t0 = t;
		else if (t - t0 > 2000000000ull)
			__trap();
	}
}
__device__ __forceinline__ void rl_bulk_load(uint32_t dst, const void *src, uint32_t bytes, uint32_t bar)
{
	asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
	asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(dst),
		     "l"(src), "r"(bytes), "r"(bar)
		     : "memory");
}
#endif
__global__ void __launch_bounds__(32) k_l2_tma(const unsigned char *__restrict__ p, uint32_t nchunks, uint32_t C,
					       int S, uint32_t nk, uint32_t *partial)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
	extern __shared__ __align__(128) unsigned char ring[];
	__shared__ __align__(8) uint64_t bars[RL_TMA_MAX_STAGES];
	const uint32_t lane = threadIdx.x, G = gridDim.x;
	const uint32_t ring0 = (uint32_t)__cvta_generic_to_shared(ring), bar0 = (uint32_t)__cvta_generic_to_shared(bars);
	auto chunk = [&](uint32_t k) { return (const void *)(p + (size_t)((blockIdx.x + (uint64_t)k * G) % nchunks) * C); };
	if (lane == 0) {
		for (int s = 0; s < S; s++)
			asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar0 + 8 * s) : "memory");
		asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
		asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
		for (uint32_t s = 0; s < (uint32_t)S && s < nk; s++)
			rl_bulk_load(ring0 + s * C, chunk(s), C, bar0 + 8 * s);
	}
	__syncwarp();
	const uint32_t *r32 = (const uint32_t *)ring;
	uint32_t sum = 0;
	for (uint32_t k = 0; k < nk; k++) {
		const uint32_t st = k % (uint32_t)S;
		rl_mbar_wait(bar0 + 8 * st, (k / (uint32_t)S) & 1);
		sum += r32[st * (C / 4) + lane * (C / 128)];
		__syncwarp(); // every lane has read the stage before it is refilled
		if (lane == 0 && k + S < nk) {
			asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
			rl_bulk_load(ring0 + st * C, chunk(k + S), C, bar0 + 8 * st);
		}
	}
	for (int o = 16; o > 0; o >>= 1)
		sum += __shfl_xor_sync(0xffffffffu, sum, o);
	if (lane == 0)
		partial[blockIdx.x] = sum;
#endif
}

// Shared memory (src == NULL) or L1 (src = a 16 KiB global buffer read with .ca): each block
// holds 1024 16-byte words; load k of thread t reads word (t + 32·k) mod 1024, so a warp's 32
// loads are 512 consecutive bytes (conflict-free), and the address changes with every load.
// (The first version read (t + 256·k) mod 1024, which repeats every 4 loads: ptxas hoisted the
// loop-invariant loads and the H200 "measured" 127 TB/s, 3.8× the 32-bank physical limit.)
// Over 32 loads thread t reads every word ≡ t (mod 32) once, and 8 threads share each residue,
// so for iters a multiple of 32: block sum = iters/4 · Σ pattern(4096 words).
#define RL_TILE16 1024
__global__ void __launch_bounds__(256) k_onchip(const uint4 *__restrict__ src, int iters, uint32_t seed,
						  uint32_t *partial)
{
	__shared__ uint4 tile[RL_TILE16];
	uint4 acc = make_uint4(0, 0, 0, 0);
	const unsigned t = threadIdx.x;
	if (!src) {
		for (unsigned j = t; j < RL_TILE16; j += blockDim.x)
			tile[j] = make_uint4(gd_rl_word(4 * j, seed), gd_rl_word(4 * j + 1, seed),
					     gd_rl_word(4 * j + 2, seed), gd_rl_word(4 * j + 3, seed));
		__syncthreads();
		for (int it = 0; it < iters; it += 4) {
#pragma unroll
			for (int u = 0; u < 4; u++) {
				uint4 v = ld_shared(&tile[(t + 32u * (unsigned)(it + u)) & (RL_TILE16 - 1)]);
				acc.x += v.x + v.y; /* 3-input adds: the integer pipe is not the limit */
				acc.y += v.z + v.w;
			}
		}
	} else {
		for (int it = 0; it < iters; it += 4) {
#pragma unroll
			for (int u = 0; u < 4; u++) {
				uint4 v = ld_ca(&src[(t + 32u * (unsigned)(it + u)) & (RL_TILE16 - 1)]);
				acc.x += v.x + v.y; /* 3-input adds: the integer pipe is not the limit */
				acc.y += v.z + v.w;
			}
		}
	}
	block_sum_store(sum4(acc), partial);
}

uint32_t host_sum(const std::vector<uint32_t> &v)
{
	uint32_t s = 0;
	for (uint32_t x : v)
		s += x;
	return s;
}

int check_sum(gd_rl_run *r, uint32_t got, uint32_t want, const char *what)
{
	if (got != want) {
		snprintf(r->msg, sizeof r->msg, "%s: checksum 0x%08x, CPU model 0x%08x", what, got, want);
		r->max_err = INFINITY;
		return 4;
	}
	r->max_err = 0;
	return 0;
}

// Launch shapes tried for a bandwidth kernel (256 threads per block): U = 4, 8, 16 words in
// flight per thread at the most blocks per SM the kernel's registers admit, and U = 8 at 2
// blocks per SM. Each is timed briefly (min of 3 after a warm-up); the fastest is then
// measured with the normal warm-up and repetitions. Every shape moves the same bytes.
struct Shape {
	int u, per_sm, blocks;
};
enum BwKind { BW_READ, BW_WRITE, BW_COPY, BW_L2 };

template <class F> int occ_of(F fn, int *per_sm)
{
	*per_sm = 0;
	cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(per_sm, fn, 256, 0);
	if (e != cudaSuccess)
		return (int)e;
	if (*per_sm < 1)
		*per_sm = 1;
	return 0;
}

int bw_occ(BwKind k, int u, int *per_sm)
{
#define RL_OCC(K)                                                              \
	(u == 4 ? occ_of(K<4>, per_sm) : u == 8 ? occ_of(K<8>, per_sm) : occ_of(K<16>, per_sm))
	switch (k) {
	case BW_READ: return RL_OCC(k_read_t);
	case BW_WRITE: return RL_OCC(k_write_t);
	case BW_COPY: return RL_OCC(k_copy_t);
	default: return RL_OCC(k_l2_t);
	}
#undef RL_OCC
}

struct BwArgs {
	BwKind kind;
	const uint4 *src;
	uint4 *dst;
	size_t n16;
	int passes;
	uint32_t seed;
	uint32_t *partial;
};

cudaError_t bw_launch(const BwArgs &a, const Shape &sh)
{
#define RL_GO(U)                                                                                        \
	do {                                                                                            \
		if (a.kind == BW_READ)                                                                  \
			k_read_t<U><<<sh.blocks, 256>>>(a.src, a.n16, a.partial);                       \
		else if (a.kind == BW_WRITE)                                                            \
			k_write_t<U><<<sh.blocks, 256>>>(a.dst, a.n16, a.seed);                         \
		else if (a.kind == BW_COPY)                                                             \
			k_copy_t<U><<<sh.blocks, 256>>>(a.src, a.dst, a.n16);                           \
		else                                                                                    \
			k_l2_t<U><<<sh.blocks, 256>>>(a.src, a.n16, a.passes, a.partial);               \
	} while (0)
	if (sh.u == 4)
		RL_GO(4);
	else if (sh.u == 8)
		RL_GO(8);
	else
		RL_GO(16);
#undef RL_GO
	return cudaGetLastError();
}

// Fills sh[] with the candidate shapes; returns their count or −1 (r->msg set).
int bw_shapes(gd_rl_run *r, BwKind k, Shape *sh)
{
	const int sms = r->dev.sms > 0 ? r->dev.sms : 1;
	const int us[3] = {4, 8, 16};
	int n = 0;
	for (int i = 0; i < 3; i++) {
		int per = 0, e = bw_occ(k, us[i], &per);
		if (e)
			return fail(r, "cudaOccupancyMaxActiveBlocksPerMultiprocessor", (cudaError_t)e), -1;
		sh[n++] = Shape{us[i], per, sms * per};
	}
	int per8 = sh[1].per_sm < 2 ? sh[1].per_sm : 2;
	if (per8 != sh[1].per_sm)
		sh[n++] = Shape{8, per8, sms * per8};
	return n;
}

// A brief timing for choosing between shapes: one launch to warm up, then the minimum of 3
// event-timed launches.
template <class F> cudaError_t brief_ms(cudaEvent_t e0, cudaEvent_t e1, F launch, float *best_ms)
{
	cudaError_t e = launch();
	*best_ms = INFINITY;
	for (int k = 0; k < 3 && e == cudaSuccess; k++) {
		float ms = 0;
		if ((e = cudaEventRecord(e0)) != cudaSuccess || (e = launch()) != cudaSuccess ||
		    (e = cudaEventRecord(e1)) != cudaSuccess || (e = cudaEventSynchronize(e1)) != cudaSuccess ||
		    (e = cudaEventElapsedTime(&ms, e0, e1)) != cudaSuccess)
			break;
		*best_ms = ms < *best_ms ? ms : *best_ms;
	}
	return e;
}

// Times each shape briefly (the L2 caller sizes a.n16 per shape through `resize`); returns
// the index of the fastest, or −1 on a CUDA error (r->msg set).
template <class Resize> int bw_pick(gd_rl_run *r, Scope &s, BwArgs a, const Shape *sh, int n, Resize resize)
{
#define CKP(x)                                                  \
	do {                                                    \
		cudaError_t e_ = (x);                           \
		if (e_ != cudaSuccess)                          \
			return fail(r, #x, e_), -1;             \
	} while (0)
	cudaEvent_t e0, e1;
	CKP(cudaEventCreate(&e0));
	s.evs.push_back(e0);
	CKP(cudaEventCreate(&e1));
	s.evs.push_back(e1);
	int best = 0;
	double best_rate = -1;
	for (int c = 0; c < n; c++) {
		double bytes = resize(a, sh[c]);
		float mn = INFINITY;
		CKP(brief_ms(e0, e1, [&] { return bw_launch(a, sh[c]); }, &mn));
		double rate = bytes / mn;
		if (rate > best_rate) {
			best_rate = rate;
			best = c;
		}
	}
#undef CKP
	return best;
}

int run_dram(gd_rl_run *r)
{
	Scope s;
	size_t free_b = 0, total_b = 0;
	CK(cudaMemGetInfo(&free_b, &total_b));
	// Large buffers, so that a repetition lasts ~1 ms or more (H200: a 4 GiB read ≈ 0.9 ms,
	// a 4 GiB copy ≈ 2 ms) and the few µs between back-to-back kernels do not count.
	double want = r->quick ? 1024.0 * (1 << 20) : 4096.0 * (1 << 20);
	double l2x = (r->quick ? 8.0 : 16.0) * (r->dev.l2_bytes > 0 ? r->dev.l2_bytes : 0);
	if (l2x > want)
		want = l2x;
	int nbuf = r->kind == GD_RL_DRAM_COPY ? 2 : 1;
	if (want * nbuf > 0.8 * (double)free_b)
		want = 0.8 * (double)free_b / nbuf;
	size_t bytes = ((size_t)want) & ~(size_t)((1 << 20) - 1);
	if (bytes < (size_t)(1 << 20) || (r->dev.l2_bytes > 0 && bytes < 2 * (size_t)r->dev.l2_bytes)) {
		snprintf(r->msg, sizeof r->msg, "only %zu MiB free GPU memory: too little for a DRAM test (needs > 2 × L2)",
			 free_b >> 20);
		return 1;
	}
	size_t n16 = bytes / 16, nwords = bytes / 4;
	uint4 *a = nullptr, *b = nullptr;
	uint32_t *partial = nullptr;
	int threads = 256, blocks = blocks_full(r, threads);
	const uint32_t seed_src = 0x5eed0001u, seed_wr = 0x5eed0002u;
	const BwKind kind = r->kind == GD_RL_DRAM_READ ? BW_READ : r->kind == GD_RL_DRAM_WRITE ? BW_WRITE : BW_COPY;
	Shape sh[4];
	int nsh = bw_shapes(r, kind, sh);
	if (nsh < 0)
		return 1;
	int pblocks = blocks;
	for (int i = 0; i < nsh; i++)
		pblocks = sh[i].blocks > pblocks ? sh[i].blocks : pblocks;
	if (dalloc(r, s, &a, bytes) || (nbuf == 2 && dalloc(r, s, &b, bytes)) ||
	    dalloc(r, s, &partial, pblocks * sizeof(uint32_t)))
		return 1;
	k_fill<<<blocks, threads>>>(a, n16, seed_src);
	CK(cudaGetLastError());
	r->footprint = (double)bytes * nbuf;
	const char *what = kind == BW_READ ? "read" : kind == BW_WRITE ? "write" : "copy";
	r->work = kind == BW_READ ? gd_rl_bytes_read((double)bytes)
				  : kind == BW_WRITE ? gd_rl_bytes_write((double)bytes) : gd_rl_bytes_copy((double)bytes);
	BwArgs args{kind, a, kind == BW_WRITE ? a : b, n16, 1, seed_wr, partial};
	int best = bw_pick(r, s, args, sh, nsh, [&](BwArgs &, const Shape &) { return r->work; });
	if (best < 0)
		return 1;
	int rc = timed(r, s, [&] { return bw_launch(args, sh[best]); }, 2);
	if (rc)
		return rc;
	snprintf(r->how, sizeof r->how,
		 "%s of %zu MiB%s, %d blocks × 256 threads (%d/SM), %d × 16-byte %s in flight per thread (fastest of %d shapes)",
		 what, bytes >> 20, nbuf == 2 ? " into another buffer" : "", sh[best].blocks, sh[best].per_sm, sh[best].u,
		 kind == BW_WRITE ? "streaming stores" : "loads", nsh);
	// Check: read back (sum) what the buffer that was read/written now holds.
	const uint4 *chk = r->kind == GD_RL_DRAM_COPY ? b : a;
	k_read<<<blocks, threads>>>(chk, n16, partial);
	CK(cudaGetLastError());
	std::vector<uint32_t> h(blocks);
	CK(cudaMemcpy(h.data(), partial, blocks * sizeof(uint32_t), cudaMemcpyDeviceToHost));
	uint32_t want_sum = gd_rl_pattern_sum(nwords, r->kind == GD_RL_DRAM_WRITE ? seed_wr : seed_src);
	return check_sum(r, host_sum(h), want_sum, what);
}

// cc 9.x: the bulk-copy L2 reader (k_l2_tma) over working sets of 4 MiB, 8 MiB and the
// ld.global.cg path's set, 32 KiB stages, 4 or 6 stages; each timed briefly (min of 3) against
// the best ld.global.cg shape. Returns −1 when ld.global.cg stays the faster (the caller
// measures it), else the result of measuring and checking the fastest bulk configuration.
int run_l2_tma(gd_rl_run *r, Scope &s, uint4 *a, size_t cap, uint32_t seed, uint32_t *partial, int pblocks,
	       const BwArgs &ldg_args, const Shape &ldg_shape, double total)
{
	const int sms = r->dev.sms > 0 ? r->dev.sms : 1;
	const uint32_t C = 32768;
	if (pblocks < sms)
		return -1; // partial[] too small (never on a real GPU: the ldg shapes use ≥ 1 block/SM)
	struct Cfg {
		size_t set;
		int S;
		uint32_t nchunks, nk;
	} cfg[6];
	int nc = 0;
	const size_t sets[3] = {(size_t)4 << 20, (size_t)8 << 20, ldg_args.n16 * 16};
	for (int i = 0; i < 3; i++) {
		uint32_t nchunks = (uint32_t)(sets[i] / C);
		if (nchunks < 1 || sets[i] > cap)
			continue;
		// nk so that sms·nk is a whole number of sweeps (every chunk read equally often)
		uint64_t sweeps = (uint64_t)(total / ((double)nchunks * C));
		if (sweeps < 4)
			sweeps = 4;
		uint64_t reads = sweeps * nchunks;
		while (reads % (uint64_t)sms)
			reads += nchunks;
		for (int S : {4, 6})
			cfg[nc++] = Cfg{(size_t)nchunks * C, S, nchunks, (uint32_t)(reads / (uint64_t)sms)};
	}
	if (!nc)
		return -1;
	int optin = 0, dev = 0;
	if (cudaGetDevice(&dev) != cudaSuccess ||
	    cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev) != cudaSuccess ||
	    optin < (int)(6 * C) + 1024 ||
	    cudaFuncSetAttribute(k_l2_tma, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)(6 * C)) != cudaSuccess) {
		(void)cudaGetLastError();
		return -1; // not enough shared memory for the ring: the ld.global.cg path
	}
	cudaEvent_t e0, e1;
	CK(cudaEventCreate(&e0));
	s.evs.push_back(e0);
	CK(cudaEventCreate(&e1));
	s.evs.push_back(e1);
	auto go = [&](const Cfg &c) {
		k_l2_tma<<<sms, 32, (size_t)c.S * C>>>((const unsigned char *)a, c.nchunks, C, c.S, c.nk, partial);
		return cudaGetLastError();
	};
	float ms = 0;
	CK(brief_ms(e0, e1, [&] { return bw_launch(ldg_args, ldg_shape); }, &ms));
	double best_rate = (double)ldg_args.n16 * 16 * ldg_args.passes / ms;
	int best = -1;
	for (int i = 0; i < nc; i++) {
		CK(brief_ms(e0, e1, [&] { return go(cfg[i]); }, &ms));
		double rate = (double)sms * cfg[i].nk * C / ms;
		if (rate > best_rate)
			best_rate = rate, best = i;
	}
	if (best < 0)
		return -1;
	const Cfg c = cfg[best];
	int rc = timed(r, s, [&] { return go(c); }, 2);
	if (rc)
		return rc;
	const double reads = (double)sms * c.nk;
	r->work = reads * C;
	r->footprint = (double)c.set;
	snprintf(r->how, sizeof r->how,
		 "cp.async.bulk L2->shared (no L1): %u KiB chunks over %.0f MiB (L2 %.0f MiB), %d in flight/SM, %d warps (best of %d bulk configs + ld.cg)",
		 C / 1024, c.set / 1048576.0, r->dev.l2_bytes / 1048576.0, c.S, sms, nc);
	std::vector<uint32_t> h(sms);
	CK(cudaMemcpy(h.data(), partial, h.size() * sizeof(uint32_t), cudaMemcpyDeviceToHost));
	uint32_t per_chunks = 0;
	for (uint32_t ch = 0; ch < c.nchunks; ch++)
		for (uint32_t l = 0; l < 32; l++)
			per_chunks += gd_rl_word((uint64_t)ch * (C / 4) + l * (C / 128), seed);
	const uint32_t times = (uint32_t)((uint64_t)sms * c.nk / c.nchunks);
	return check_sum(r, host_sum(h), times * per_chunks, "L2 read (bulk copies)");
}

int run_l2(gd_rl_run *r)
{
	Scope s;
	if (r->dev.l2_bytes <= 0) {
		snprintf(r->msg, sizeof r->msg, "the device does not report its L2 size");
		return 3;
	}
	// Working set: about 0.4 × L2 (H200: ≈ 24 MiB of 60), rounded down to whole rounds of
	// grid × tile (at least one, up to 0.5 × L2) so that every thread's U loads go out
	// together; one buffer of 0.5 × L2 holds the pattern, each shape reads its leading n16
	// words.
	const size_t cap = ((size_t)((double)r->dev.l2_bytes * 0.5)) & ~(size_t)4095;
	const size_t target16 = (size_t)((double)r->dev.l2_bytes * 0.4) / 16;
	const double total = r->quick ? 4e9 : 16e9; // bytes read per repetition (≈ 0.4 / 1.6 ms at 10 TB/s)
	Shape sh[4];
	int nsh = bw_shapes(r, BW_L2, sh);
	if (nsh < 0)
		return 1;
	int pblocks = 1;
	for (int i = 0; i < nsh; i++)
		pblocks = sh[i].blocks > pblocks ? sh[i].blocks : pblocks;
	uint4 *a = nullptr;
	uint32_t *partial = nullptr;
	const uint32_t seed = 0x5eed0003u;
	if (dalloc(r, s, &a, cap) || dalloc(r, s, &partial, pblocks * sizeof(uint32_t)))
		return 1;
	k_fill<<<blocks_full(r, 256), 256>>>(a, cap / 16, seed);
	CK(cudaGetLastError());
	auto size_for = [&](BwArgs &x, const Shape &sh1) {
		size_t round = (size_t)sh1.blocks * 256 * sh1.u; // words per round
		size_t rounds = target16 / round;
		x.n16 = (rounds < 1 ? 1 : rounds) * round;
		if (x.n16 > cap / 16)
			x.n16 = cap / 16; // one partial round (tiny L2): guarded loads
		x.passes = (int)(total / (double)(x.n16 * 16));
		if (x.passes < 4)
			x.passes = 4;
		return (double)x.n16 * 16 * x.passes;
	};
	BwArgs args{BW_L2, a, nullptr, cap / 16, 4, 0, partial};
	int best = bw_pick(r, s, args, sh, nsh, size_for);
	if (best < 0)
		return 1;
	size_for(args, sh[best]);
	if (r->dev.cc_major == 9) { // verified on the H200; Blackwell's opt-in shared memory differs
		int t = run_l2_tma(r, s, a, cap, seed, partial, pblocks, args, sh[best], total);
		if (t != -1)
			return t; // the bulk-copy path was faster (measured and checked), or failed
	}
	int rc = timed(r, s, [&] { return bw_launch(args, sh[best]); }, 2);
	if (rc)
		return rc;
	const size_t bytes = args.n16 * 16;
	const int passes = args.passes;
	r->work = gd_rl_bytes_repeated((double)bytes, passes);
	r->footprint = (double)bytes;
	snprintf(r->how, sizeof r->how,
		 "%d passes over %.1f MiB (L2 %.0f MiB), ld.global.cg (bypasses L1), %d blocks × 256 (%d/SM), %d loads in flight per thread (fastest of %d shapes)",
		 passes, bytes / 1048576.0, r->dev.l2_bytes / 1048576.0, sh[best].blocks, sh[best].per_sm, sh[best].u, nsh);
	std::vector<uint32_t> h(sh[best].blocks);
	CK(cudaMemcpy(h.data(), partial, h.size() * sizeof(uint32_t), cudaMemcpyDeviceToHost));
	return check_sum(r, host_sum(h), (uint32_t)passes * gd_rl_pattern_sum(bytes / 4, seed), "L2 read");
}

int run_onchip(gd_rl_run *r)
{
	Scope s;
	int threads = 256, blocks = blocks_full(r, threads);
	int iters = r->quick ? 2048 : 8192;
	const uint32_t seed = 0x5eed0004u;
	uint4 *src = nullptr;
	uint32_t *partial = nullptr;
	int l1 = r->kind == GD_RL_L1_READ;
	if (dalloc(r, s, &partial, blocks * sizeof(uint32_t)))
		return 1;
	if (l1) {
		if (dalloc(r, s, &src, RL_TILE16 * 16))
			return 1;
		k_fill<<<4, 256>>>(src, RL_TILE16, seed);
		CK(cudaGetLastError());
	}
	int rc = timed(r, s, [&] { k_onchip<<<blocks, threads>>>(src, iters, seed, partial); return cudaGetLastError(); }, 2);
	if (rc)
		return rc;
	r->work = (double)blocks * threads * (double)iters * 16.0;
	r->footprint = RL_TILE16 * 16.0;
	snprintf(r->how, sizeof r->how, "%s: %d blocks × %d threads × %d 16-byte loads from a 16 KiB tile, conflict-free",
		 l1 ? "ld.global.ca (L1 hits)" : "ld.shared.v4", blocks, threads, iters);
	std::vector<uint32_t> h(blocks);
	CK(cudaMemcpy(h.data(), partial, blocks * sizeof(uint32_t), cudaMemcpyDeviceToHost));
	uint32_t want = (uint32_t)(iters / 4) * gd_rl_pattern_sum(RL_TILE16 * 4, seed);
	for (int b = 0; b < blocks; b++)
		if (h[b] != want)
			return check_sum(r, h[b], want, l1 ? "L1 read (a block)" : "shared-memory read (a block)");
	r->max_err = 0;
	return 0;
}

// ---------------------------------------------------------------- FMA peaks

struct OpF64 {
	typedef double T;
	static const int lanes = 1;
	static __device__ __forceinline__ T fma(T x, T a, T b) { return __fma_rn(x, a, b); }
	static __device__ __forceinline__ T add(T x, T y) { return __dadd_rn(x, y); }
	static __device__ __forceinline__ T seed(uint32_t tid, int c) { return gd_rl_fma_seed(tid, c); }
	static __device__ __forceinline__ double out(T x) { return x; }
};
struct OpF32 {
	typedef float T;
	static const int lanes = 1;
	static __device__ __forceinline__ T fma(T x, T a, T b) { return __fmaf_rn(x, a, b); }
	static __device__ __forceinline__ T add(T x, T y) { return __fadd_rn(x, y); }
	static __device__ __forceinline__ T seed(uint32_t tid, int c) { return (float)gd_rl_fma_seed(tid, c); }
	static __device__ __forceinline__ double out(T x) { return x; }
};
struct OpF16 {
	typedef __half2 T;
	static const int lanes = 2;
	static __device__ __forceinline__ T fma(T x, T a, T b) { return __hfma2(x, a, b); }
	static __device__ __forceinline__ T add(T x, T y) { return __hadd2(x, y); }
	static __device__ __forceinline__ T seed(uint32_t tid, int c)
	{
		return __halves2half2(__float2half_rn((float)gd_rl_fma_seed(tid, 2 * c)),
				      __float2half_rn((float)gd_rl_fma_seed(tid, 2 * c + 1)));
	}
	static __device__ __forceinline__ double out(T x) { return __half2float(__hadd(__low2half(x), __high2half(x))); }
};
struct OpBF16 {
	typedef __nv_bfloat162 T;
	static const int lanes = 2;
	static __device__ __forceinline__ T fma(T x, T a, T b)
	{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
		return __hfma2(x, a, b);
#else
		return x; // not run: bfloat162 FMA needs sm_80 (the host reports it unsupported)
#endif
	}
	static __device__ __forceinline__ T add(T x, T y)
	{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
		return __hadd2(x, y);
#else
		return x;
#endif
	}
	static __device__ __forceinline__ T seed(uint32_t tid, int c)
	{
		return __halves2bfloat162(__float2bfloat16_rn((float)gd_rl_fma_seed(tid, 2 * c)),
					  __float2bfloat16_rn((float)gd_rl_fma_seed(tid, 2 * c + 1)));
	}
	static __device__ __forceinline__ double out(T x)
	{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
		return __bfloat162float(__hadd(__low2bfloat16(x), __high2bfloat16(x)));
#else
		return 0;
#endif
	}
};

template <class O> __global__ void k_fma(int iters, typename O::T a, typename O::T b, double *out)
{
	typedef typename O::T T;
	uint32_t tid = blockIdx.x * blockDim.x + threadIdx.x;
	T x[GD_RL_CHAINS];
#pragma unroll
	for (int c = 0; c < GD_RL_CHAINS; c++)
		x[c] = O::seed(tid, c);
	// 32 steps per loop trip: FP32 and FP16x2 peaks are issue-bound on Hopper (every issue slot
	// must be an FMA), so the loop's own counter/branch must be < 1 % of the instructions.
#pragma unroll 32
	for (int i = 0; i < iters; i++) {
#pragma unroll
		for (int c = 0; c < GD_RL_CHAINS; c++)
			x[c] = O::fma(x[c], a, b);
	}
	T s = x[0];
#pragma unroll
	for (int c = 1; c < GD_RL_CHAINS; c++)
		s = O::add(s, x[c]);
	out[tid] = O::out(s);
}

template <class O> int run_fma_t(gd_rl_run *r, enum gd_rl_fp fmt, typename O::T a, typename O::T b, int iters,
				 const char *instr)
{
	Scope s;
	int threads = 256, blocks = blocks_full(r, threads);
	size_t nthreads = (size_t)blocks * threads;
	double *out = nullptr;
	if (dalloc(r, s, &out, nthreads * sizeof(double)))
		return 1;
	CK(cudaMemset(out, 0xff, nthreads * sizeof(double))); // NaN poison
	int rc = timed(r, s, [&] { k_fma<O><<<blocks, threads>>>(iters, a, b, out); return cudaGetLastError(); }, 2);
	if (rc)
		return rc;
	r->work = gd_rl_fma_flops((double)nthreads, GD_RL_CHAINS, iters, O::lanes);
	r->footprint = 0;
	snprintf(r->how, sizeof r->how, "%s: %d blocks × %d threads, %d independent chains × %d steps each, 2 FLOP per FMA%s",
		 instr, blocks, threads, GD_RL_CHAINS * O::lanes, iters, O::lanes == 2 ? " per lane" : "");
	// Check 16 threads at each end against the CPU model of the chains.
	std::vector<double> h(nthreads);
	CK(cudaMemcpy(h.data(), out, nthreads * sizeof(double), cudaMemcpyDeviceToHost));
	r->max_err = 0;
	for (int q = 0; q < 32; q++) {
		uint32_t tid = q < 16 ? (uint32_t)q : (uint32_t)(nthreads - 32 + q);
		double want = gd_rl_fma_model(fmt, tid, iters);
		if (!(h[tid] == want)) {
			snprintf(r->msg, sizeof r->msg, "FMA chain of thread %u: GPU %.17g, CPU model %.17g", tid, h[tid], want);
			r->max_err = INFINITY;
			return 4;
		}
	}
	return 0;
}

int run_fma(gd_rl_run *r)
{
	int q = r->quick ? 4 : 1;
	switch (r->kind) {
	case GD_RL_FMA_FP64:
		return run_fma_t<OpF64>(r, GD_RL_F64, GD_RL_FMA_A, GD_RL_FMA_B, 8192 / q, "DFMA (fma.rn.f64)");
	case GD_RL_FMA_FP32:
		return run_fma_t<OpF32>(r, GD_RL_F32, (float)GD_RL_FMA_A, (float)GD_RL_FMA_B, 16384 / q, "FFMA (fma.rn.f32)");
	case GD_RL_FMA_FP16: {
		__half2 a = __float2half2_rn((float)GD_RL_FMA_A), b = __float2half2_rn((float)GD_RL_FMA_B);
		return run_fma_t<OpF16>(r, GD_RL_F16, a, b, 16384 / q, "HFMA2 (fma.rn.f16x2)");
	}
	default: {
		if (r->dev.cc_major < 8) {
			snprintf(r->msg, sizeof r->msg, "bfloat162 FMA needs compute capability 8.0 or newer");
			return 3;
		}
		// b is rounded to BF16 through float: 0.0123 is far from a BF16 tie, so this equals the
		// model's direct rounding.
		__nv_bfloat162 a = __float2bfloat162_rn((float)GD_RL_FMA_A), b = __float2bfloat162_rn((float)GD_RL_FMA_B);
		return run_fma_t<OpBF16>(r, GD_RL_BF16, a, b, 16384 / q, "HFMA2.BF16 (fma.rn.bf16x2)");
	}
	}
}

// ---------------------------------------------------------------- SFU

__global__ void k_sfu(int iters, float *out)
{
	uint32_t tid = blockIdx.x * blockDim.x + threadIdx.x;
	float x[GD_RL_CHAINS];
#pragma unroll
	for (int c = 0; c < GD_RL_CHAINS; c++)
		x[c] = gd_rl_sfu_seed(tid, c);
#pragma unroll 4
	for (int i = 0; i < iters; i++) {
#pragma unroll
		for (int c = 0; c < GD_RL_CHAINS; c++)
			x[c] = __expf(-x[c]);
	}
	float s = 0;
#pragma unroll
	for (int c = 0; c < GD_RL_CHAINS; c++)
		s += x[c];
	out[tid] = s;
}

int run_sfu(gd_rl_run *r)
{
	Scope s;
	int threads = 256, blocks = blocks_full(r, threads);
	size_t nthreads = (size_t)blocks * threads;
	int iters = r->quick ? 512 : 2048;
	float *out = nullptr;
	if (dalloc(r, s, &out, nthreads * sizeof(float)))
		return 1;
	CK(cudaMemset(out, 0xff, nthreads * sizeof(float)));
	int rc = timed(r, s, [&] { k_sfu<<<blocks, threads>>>(iters, out); return cudaGetLastError(); }, 2);
	if (rc)
		return rc;
	r->work = (double)nthreads * GD_RL_CHAINS * iters;
	snprintf(r->how, sizeof r->how, "__expf (MUFU.EX2 + FMUL): %d blocks × %d threads, %d chains × %d; counts __expf results",
		 blocks, threads, GD_RL_CHAINS, iters);
	std::vector<float> h(nthreads);
	CK(cudaMemcpy(h.data(), out, nthreads * sizeof(float), cudaMemcpyDeviceToHost));
	r->max_err = 0;
	for (int q = 0; q < 32; q++) {
		uint32_t tid = q < 16 ? (uint32_t)q : (uint32_t)(nthreads - 32 + q);
		double want = gd_rl_sfu_model(tid, iters), err = fabs(h[tid] - want) / 1e-4;
		if (!(err <= 1)) {
			snprintf(r->msg, sizeof r->msg, "__expf chain of thread %u: GPU %.9g, CPU model %.9g", tid, h[tid], want);
			r->max_err = INFINITY;
			return 4;
		}
		if (err > r->max_err)
			r->max_err = err;
	}
	return 0;
}

// ---------------------------------------------------------------- mma.sync

// Fragment layouts of mma.sync.m16n8kK (PTX ISA, "Matrix fragments for mma.m16n8k*"), with
// g = lane/4, t = lane%4 and e = elements per 32-bit register (4/bytes):
//   A reg r (0..3): row g + 8·(r&1), columns (r>>1)·K/2 + t·e … + e−1
//   B reg r (0..1): column n = g, rows k = r·K/2 + t·e … + e−1   (B given as Bᵀ[n][k])
//   C reg r (0..3): row g + 8·(r>>1), column 2t + (r&1)
enum MmaT { M_F16 = 0, M_BF16, M_TF32, M_INT8, M_FP8 };
template <int P> struct MmaShape {
	static const int K = (P == M_TF32) ? 8 : (P == M_INT8 || P == M_FP8) ? 32 : 16;
	static const int bytes = (P == M_TF32) ? 4 : (P == M_INT8 || P == M_FP8) ? 1 : 2;
};
#define RL_NACC 8

template <int P> __device__ __forceinline__ void mma_op(float *d, const uint32_t *a, const uint32_t *b)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
	if (P == M_F16)
		asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
			     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
			     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
	else if (P == M_BF16)
		asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
			     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
			     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
	else if (P == M_TF32)
		asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
			     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
			     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
	else if (P == M_INT8)
		asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
			     : "+r"(*(int *)&d[0]), "+r"(*(int *)&d[1]), "+r"(*(int *)&d[2]), "+r"(*(int *)&d[3])
			     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#if __CUDA_ARCH__ >= 890
	else if (P == M_FP8)
		asm volatile("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
			     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
			     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#endif
#endif
}

// Each warp multiplies the same A (16×K) and B (K×8) `iters` times into RL_NACC independent
// accumulators, then stores the accumulators' sum as doubles (warp w: out[w·128 + row·8 + col]).
template <int P> __global__ void __launch_bounds__(256) k_mma(const uint8_t *A, const uint8_t *Bt, int iters, double *out)
{
	typedef MmaShape<P> S;
	const int lane = threadIdx.x & 31, e = 4 / S::bytes;
	uint32_t a[4], b[2];
#pragma unroll
	for (int r = 0; r < 4; r++) {
		int row, col;
		gd_rl_mma_a_pos(lane, r, S::K, e, &row, &col);
		a[r] = *(const uint32_t *)(A + (row * S::K + col) * S::bytes);
	}
#pragma unroll
	for (int r = 0; r < 2; r++) {
		int n, k;
		gd_rl_mma_b_pos(lane, r, S::K, e, &n, &k);
		b[r] = *(const uint32_t *)(Bt + (n * S::K + k) * S::bytes);
	}
	float acc[RL_NACC][4];
#pragma unroll
	for (int j = 0; j < RL_NACC; j++)
#pragma unroll
		for (int r = 0; r < 4; r++)
			acc[j][r] = 0.0f; // all-zero bits: 0.0f and int 0 alike
	for (int i = 0; i < iters; i++) {
#pragma unroll
		for (int j = 0; j < RL_NACC; j++)
			mma_op<P>(acc[j], a, b);
	}
	size_t w = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
#pragma unroll
	for (int r = 0; r < 4; r++) {
		double v = 0;
		int row, col;
#pragma unroll
		for (int j = 0; j < RL_NACC; j++)
			v += P == M_INT8 ? (double)__float_as_int(acc[j][r]) : (double)acc[j][r];
		gd_rl_mma_c_pos(lane, r, &row, &col);
		out[w * 128 + row * 8 + col] = v;
	}
}

// Encodes value v in the tile element type (host side).
void encode(int p, double v, uint8_t *dst)
{
	if (p == M_F16) {
		__half h = __float2half_rn((float)v);
		memcpy(dst, &h, 2);
	} else if (p == M_BF16) {
		__nv_bfloat16 h = __float2bfloat16_rn((float)v);
		memcpy(dst, &h, 2);
	} else if (p == M_TF32) {
		float f = (float)v;
		memcpy(dst, &f, 4);
	} else if (p == M_INT8) {
		int8_t c = (int8_t)v;
		memcpy(dst, &c, 1);
	} else {
		__nv_fp8_e4m3 f((float)v);
		memcpy(dst, &f, 1);
	}
}

template <int P> int run_mma_t(gd_rl_run *r, const char *instr)
{
	typedef MmaShape<P> S;
	Scope s;
	const int K = S::K, integer = P == M_INT8;
	int threads = 256;
	int blocks = (r->dev.sms > 0 ? r->dev.sms : 1) * (r->dev.max_threads_sm >= 1024 ? 1024 : r->dev.max_threads_sm) / threads;
	if (blocks < 1)
		blocks = 1;
	int iters = r->quick ? 1024 : 4096;
	size_t warps = (size_t)blocks * threads / 32;
	std::vector<double> av(16 * K), bv(8 * K);
	std::vector<uint8_t> ab(16 * K * S::bytes), bb(8 * K * S::bytes);
	for (int i = 0; i < 16 * K; i++) {
		av[i] = gd_rl_tile_value(i, 0xA11CEu, integer);
		encode(P, av[i], &ab[i * S::bytes]);
	}
	for (int i = 0; i < 8 * K; i++) {
		bv[i] = gd_rl_tile_value(i, 0xB0Bu, integer);
		encode(P, bv[i], &bb[i * S::bytes]);
	}
	uint8_t *dA = nullptr, *dB = nullptr;
	double *out = nullptr;
	if (dalloc(r, s, &dA, ab.size()) || dalloc(r, s, &dB, bb.size()) || dalloc(r, s, &out, warps * 128 * sizeof(double)))
		return 1;
	CK(cudaMemcpy(dA, ab.data(), ab.size(), cudaMemcpyHostToDevice));
	CK(cudaMemcpy(dB, bb.data(), bb.size(), cudaMemcpyHostToDevice));
	CK(cudaMemset(out, 0xff, warps * 128 * sizeof(double)));
	int rc = timed(r, s, [&] { k_mma<P><<<blocks, threads>>>(dA, dB, iters, out); return cudaGetLastError(); }, 2);
	if (rc)
		return rc;
	r->work = (double)warps * iters * RL_NACC * gd_rl_mma_flops(16, 8, K);
	snprintf(r->how, sizeof r->how, "mma.sync %s: %zu warps × %d × %d independent MMAs (2·16·8·%d FLOP each)", instr,
		 warps, iters, RL_NACC, K);
	std::vector<double> want(128), bound(128), got(128);
	gd_rl_mma_model(av.data(), bv.data(), 16, 8, K, (double)iters * RL_NACC, want.data(), bound.data());
	r->max_err = 0;
	size_t check_warps[2] = {0, warps - 1};
	for (int cw = 0; cw < 2; cw++) {
		CK(cudaMemcpy(got.data(), out + check_warps[cw] * 128, 128 * sizeof(double), cudaMemcpyDeviceToHost));
		for (int i = 0; i < 128; i++) {
			double tol = integer ? 0.5 : 1e-3 * bound[i] + 1e-6;
			double err = fabs(got[i] - want[i]) / tol;
			if (!(err <= 1)) {
				snprintf(r->msg, sizeof r->msg, "mma.sync %s: warp %zu D[%d][%d] = %.9g, CPU model %.9g", instr,
					 check_warps[cw], i / 8, i % 8, got[i], want[i]);
				r->max_err = INFINITY;
				return 4;
			}
			if (err > r->max_err)
				r->max_err = err;
		}
	}
	return 0;
}

int run_mma(gd_rl_run *r)
{
	if (r->dev.cc_major < 8) {
		snprintf(r->msg, sizeof r->msg, "gpudiag's mma.sync kernels use the m16n8k* shapes of compute capability 8.0+");
		return 3;
	}
	switch (r->kind) {
	case GD_RL_MMA_FP16: return run_mma_t<M_F16>(r, "m16n8k16 f16→f32");
	case GD_RL_MMA_BF16: return run_mma_t<M_BF16>(r, "m16n8k16 bf16→f32");
	case GD_RL_MMA_TF32: return run_mma_t<M_TF32>(r, "m16n8k8 tf32→f32");
	case GD_RL_MMA_INT8: return run_mma_t<M_INT8>(r, "m16n8k32 s8→s32");
	default:
		if (r->dev.cc_major * 10 + r->dev.cc_minor < 89) {
			snprintf(r->msg, sizeof r->msg, "FP8 (e4m3) tensor cores need compute capability 8.9 or newer");
			return 3;
		}
		return run_mma_t<M_FP8>(r, "m16n8k32 e4m3→f32");
	}
}


// FP64 tensor cores: mma.sync.m8n8k4 f64 (A 8×4: lane holds (g, t); B: (k = t, n = g);
// C 8×8: c0, c1 at row g, columns 2t, 2t+1).
__global__ void __launch_bounds__(256) k_dmma(const double *A, const double *Bt, int iters, double *out)
{
	const int lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
	const double a = A[g * 4 + t], b = Bt[g * 4 + t];
#endif
	double acc[RL_NACC][2];
#pragma unroll
	for (int j = 0; j < RL_NACC; j++)
		acc[j][0] = acc[j][1] = 0.0;
	for (int i = 0; i < iters; i++) {
#pragma unroll
		for (int j = 0; j < RL_NACC; j++) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
			asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};"
				     : "+d"(acc[j][0]), "+d"(acc[j][1])
				     : "d"(a), "d"(b));
#endif
		}
	}
	size_t w = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
#pragma unroll
	for (int r = 0; r < 2; r++) {
		double v = 0;
#pragma unroll
		for (int j = 0; j < RL_NACC; j++)
			v += acc[j][r];
		out[w * 64 + g * 8 + 2 * t + r] = v;
	}
}

int run_dmma(gd_rl_run *r)
{
	Scope s;
	if (r->dev.cc_major < 8) {
		snprintf(r->msg, sizeof r->msg, "FP64 mma.sync needs compute capability 8.0 or newer");
		return 3;
	}
	int threads = 256;
	int blocks = (r->dev.sms > 0 ? r->dev.sms : 1) * (r->dev.max_threads_sm >= 1024 ? 1024 : r->dev.max_threads_sm) / threads;
	if (blocks < 1)
		blocks = 1;
	int iters = r->quick ? 1024 : 4096;
	size_t warps = (size_t)blocks * threads / 32;
	std::vector<double> av(32), bv(32);
	for (int i = 0; i < 32; i++) {
		av[i] = gd_rl_tile_value(i, 0xA11CEu, 0);
		bv[i] = gd_rl_tile_value(i, 0xB0Bu, 0);
	}
	double *dA = nullptr, *dB = nullptr, *out = nullptr;
	if (dalloc(r, s, &dA, 32 * sizeof(double)) || dalloc(r, s, &dB, 32 * sizeof(double)) ||
	    dalloc(r, s, &out, warps * 64 * sizeof(double)))
		return 1;
	CK(cudaMemcpy(dA, av.data(), 32 * sizeof(double), cudaMemcpyHostToDevice));
	CK(cudaMemcpy(dB, bv.data(), 32 * sizeof(double), cudaMemcpyHostToDevice));
	CK(cudaMemset(out, 0xff, warps * 64 * sizeof(double)));
	int rc = timed(r, s, [&] { k_dmma<<<blocks, threads>>>(dA, dB, iters, out); return cudaGetLastError(); }, 2);
	if (rc)
		return rc;
	r->work = (double)warps * iters * RL_NACC * gd_rl_mma_flops(8, 8, 4);
	snprintf(r->how, sizeof r->how, "mma.sync m8n8k4 f64: %zu warps × %d × %d independent MMAs (512 FLOP each)", warps,
		 iters, RL_NACC);
	std::vector<double> want(64), bound(64), got(64);
	gd_rl_mma_model(av.data(), bv.data(), 8, 8, 4, (double)iters * RL_NACC, want.data(), bound.data());
	r->max_err = 0;
	size_t check_warps[2] = {0, warps - 1};
	for (int cw = 0; cw < 2; cw++) {
		CK(cudaMemcpy(got.data(), out + check_warps[cw] * 64, 64 * sizeof(double), cudaMemcpyDeviceToHost));
		for (int i = 0; i < 64; i++) {
			double err = fabs(got[i] - want[i]) / (1e-9 * bound[i] + 1e-12);
			if (!(err <= 1)) {
				snprintf(r->msg, sizeof r->msg, "mma.sync f64: warp %zu D[%d][%d] = %.17g, CPU model %.17g",
					 check_warps[cw], i / 8, i % 8, got[i], want[i]);
				r->max_err = INFINITY;
				return 4;
			}
			if (err > r->max_err)
				r->max_err = err;
		}
	}
	return 0;
}

// ---------------------------------------------------------------- cuBLASLt library line

// Element i of a GEMM operand: uniform in [−1, 1] (integers in [−127, 127] for INT8).
__host__ __device__ double gemm_value(size_t i, uint32_t seed, int integer)
{
	uint32_t h = gd_rl_word(i, seed);
	return integer ? (double)((int)(h % 255u) - 127) : ((double)(h % 2001u) - 1000.0) / 1000.0;
}

template <class T> __host__ __device__ T to_t(double v);
template <> __host__ __device__ float to_t<float>(double v) { return (float)v; }
template <> __host__ __device__ __half to_t<__half>(double v) { return __float2half_rn((float)v); }
template <> __host__ __device__ __nv_bfloat16 to_t<__nv_bfloat16>(double v) { return __float2bfloat16_rn((float)v); }
template <> __host__ __device__ __nv_fp8_e4m3 to_t<__nv_fp8_e4m3>(double v) { return __nv_fp8_e4m3((float)v); }
template <> __host__ __device__ int8_t to_t<int8_t>(double v) { return (int8_t)v; }

double to_d(float v) { return v; }
double to_d(__half v) { return __half2float(v); }
double to_d(__nv_bfloat16 v) { return __bfloat162float(v); }
double to_d(__nv_fp8_e4m3 v) { return (float)v; }
double to_d(int8_t v) { return v; }
double to_d(int32_t v) { return v; }

template <class T> __global__ void k_gemm_fill(T *p, size_t n, uint32_t seed, int integer)
{
	size_t stride = (size_t)gridDim.x * blockDim.x;
	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
		p[i] = to_t<T>(gemm_value(i, seed, integer));
}

const char *prec_label(enum gd_prec p)
{
	switch (p) {
	case GD_P_FP32: return "FP32";
	case GD_P_TF32: return "TF32";
	case GD_P_FP16: return "FP16";
	case GD_P_BF16: return "BF16";
	case GD_P_FP8: return "FP8";
	case GD_P_INT8: return "INT8";
	default: return "?";
	}
}

template <class TI, class TO> int run_gemm_t(gd_rl_run *r, enum gd_prec prec)
{
	Scope s;
	if (!r->gemm) {
		snprintf(r->msg, sizeof r->msg, "no GEMM library");
		return 3;
	}
	const int n = r->quick ? 4096 : 8192;
	const int integer = prec == GD_P_INT8;
	size_t nn = (size_t)n * n;
	TI *A = nullptr, *B = nullptr;
	TO *C = nullptr;
	void *ws = nullptr;
	const size_t ws_bytes = 32u << 20;
	if (dalloc(r, s, &A, nn * sizeof(TI)) || dalloc(r, s, &B, nn * sizeof(TI)) || dalloc(r, s, &C, nn * sizeof(TO)) ||
	    dalloc(r, s, &ws, ws_bytes))
		return 1;
	int blocks = blocks_full(r, 256);
	k_gemm_fill<TI><<<blocks, 256>>>(A, nn, 0x6e331u, integer);
	k_gemm_fill<TI><<<blocks, 256>>>(B, nn, 0x6e332u, integer);
	CK(cudaGetLastError());
	CK(cudaMemset(C, 0xff, nn * sizeof(TO)));
	struct gd_gemm g;
	memset(&g, 0, sizeof g);
	g.prec = prec;
	g.m = g.n = g.k = n;
	g.a = A;
	g.b = B;
	g.c = C;
	g.workspace = ws;
	g.workspace_bytes = ws_bytes;
	char why[256] = "";
	int grc = 0;
	int rc = timed(r, s, [&]() -> cudaError_t {
		if (grc)
			return cudaSuccess;
		grc = r->gemm(&g, why, sizeof why);
		return cudaGetLastError();
	}, 2);
	if (grc) {
		snprintf(r->msg, sizeof r->msg, "%s", why);
		r->n = 0;
		return grc == 3 ? 3 : 1;
	}
	if (rc)
		return rc;
	r->work = gd_rl_mma_flops(n, n, n);
	r->footprint = 2.0 * nn * sizeof(TI) + nn * sizeof(TO);
	snprintf(r->how, sizeof r->how, "cuBLASLt %d³, C = A·Bᵀ (TN), random data, heuristic algorithm, 32 MiB workspace", n);
	// Check 8 entries against a double-precision dot product of the same (rounded) inputs.
	std::vector<TI> ar(n), br(n);
	std::vector<double> ad(n), bd(n);
	r->max_err = 0;
	for (int q = 0; q < 8; q++) {
		size_t i = (size_t)(q * 1237u) % n, j = (size_t)(q * 3571u + 17) % n;
		TO cv;
		CK(cudaMemcpy(ar.data(), A + i * n, n * sizeof(TI), cudaMemcpyDeviceToHost));
		CK(cudaMemcpy(br.data(), B + j * n, n * sizeof(TI), cudaMemcpyDeviceToHost));
		CK(cudaMemcpy(&cv, C + i * n + j, sizeof(TO), cudaMemcpyDeviceToHost));
		for (int l = 0; l < n; l++) {
			ad[l] = to_d(ar[l]);
			bd[l] = to_d(br[l]);
		}
		double bound, want = gd_rl_dot(ad.data(), bd.data(), n, &bound), got = to_d(cv);
		double tol = integer ? 0.5 : 2e-3 * bound + 1e-2 * fabs(want) + 1e-3;
		double err = fabs(got - want) / tol;
		if (!(err <= 1)) {
			snprintf(r->msg, sizeof r->msg, "cuBLASLt %s C[%zu][%zu] = %.9g, CPU dot product %.9g", prec_label(prec), i,
				 j, got, want);
			r->max_err = INFINITY;
			return 4;
		}
		if (err > r->max_err)
			r->max_err = err;
	}
	return 0;
}

int run_gemm(gd_rl_run *r)
{
	switch (r->kind) {
	case GD_RL_GEMM_FP32: return run_gemm_t<float, float>(r, GD_P_FP32);
	case GD_RL_GEMM_TF32: return run_gemm_t<float, float>(r, GD_P_TF32);
	case GD_RL_GEMM_FP16: return run_gemm_t<__half, __half>(r, GD_P_FP16);
	case GD_RL_GEMM_BF16: return run_gemm_t<__nv_bfloat16, __nv_bfloat16>(r, GD_P_BF16);
	case GD_RL_GEMM_FP8:
		if (r->dev.cc_major * 10 + r->dev.cc_minor < 89) {
			snprintf(r->msg, sizeof r->msg, "FP8 GEMMs need compute capability 8.9 or newer");
			return 3;
		}
		return run_gemm_t<__nv_fp8_e4m3, __nv_bfloat16>(r, GD_P_FP8);
	default: return run_gemm_t<int8_t, int32_t>(r, GD_P_INT8);
	}
}

} // namespace

extern "C" const char *gd_rl_kind_name(int kind)
{
	static const char *const names[GD_RL_KIND_COUNT] = {
		"dram_read", "dram_write", "dram_copy", "l2_read", "smem_read", "l1_read", "fma_fp64",
		"fma_fp32", "fma_fp16x2", "fma_bf16x2", "sfu_exp", "mma_fp16", "mma_bf16", "mma_tf32",
		"mma_int8", "mma_fp8", "mma_fp64", "wgmma_fp16", "wgmma_bf16", "wgmma_tf32", "wgmma_fp8", "gemm_fp32",
		"gemm_tf32", "gemm_fp16", "gemm_bf16", "gemm_fp8", "gemm_int8"};
	return kind >= 0 && kind < GD_RL_KIND_COUNT ? names[kind] : "?";
}

extern "C" int gd_rl_measure(struct gd_rl_run *r)
{
	r->n = 0;
	r->work = r->footprint = 0;
	r->max_err = NAN;
	r->how[0] = r->msg[0] = 0;
	cudaError_t e = cudaSetDevice(r->dev.device);
	if (e != cudaSuccess)
		return fail(r, "cudaSetDevice", e);
	switch (r->kind) {
	case GD_RL_DRAM_READ:
	case GD_RL_DRAM_WRITE:
	case GD_RL_DRAM_COPY: return run_dram(r);
	case GD_RL_L2_READ: return run_l2(r);
	case GD_RL_SMEM_READ:
	case GD_RL_L1_READ: return run_onchip(r);
	case GD_RL_FMA_FP64:
	case GD_RL_FMA_FP32:
	case GD_RL_FMA_FP16:
	case GD_RL_FMA_BF16: return run_fma(r);
	case GD_RL_SFU_EXP: return run_sfu(r);
	case GD_RL_MMA_FP16:
	case GD_RL_MMA_BF16:
	case GD_RL_MMA_TF32:
	case GD_RL_MMA_INT8:
	case GD_RL_MMA_FP8: return run_mma(r);
	case GD_RL_MMA_FP64: return run_dmma(r);
	case GD_RL_WGMMA_FP16:
	case GD_RL_WGMMA_BF16:
	case GD_RL_WGMMA_TF32:
	case GD_RL_WGMMA_FP8:
		if (r->dev.cc_major != 9 || r->dev.cc_minor != 0) {
			snprintf(r->msg, sizeof r->msg, "wgmma exists only on compute capability 9.0 (sm_90a)");
			return 3;
		}
		return gd_rl_wgmma(r);
	default:
		if (r->kind >= GD_RL_GEMM_FP32 && r->kind <= GD_RL_GEMM_INT8)
			return run_gemm(r);
		snprintf(r->msg, sizeof r->msg, "unknown test %d", r->kind);
		return 1;
	}
}
