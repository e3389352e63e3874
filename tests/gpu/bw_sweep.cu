// bw_sweep.cu — standalone DRAM / L2 bandwidth sweep for an H200 (sm_90a).
//
// Build and run (one GPU, nothing else needed but the CUDA runtime):
//   nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -o bw_sweep tests/gpu/bw_sweep.cu
//   ./bw_sweep [--quick]      (--quick: 55 of the 184 configurations; --dry: list them, no GPU)
//   ./bw_sweep --copy2        (only the copy experiments below: 63 configurations; with --dry too)
// Expected run time on an H200: roughly 10-30 s full (184 configurations of ~20 launches of a
// few ms each, plus checks), a few seconds with --quick; well under the 150 s budget.
// --copy2: a few seconds to ~15 s (63 configurations of 18 copies of 2 GiB, ~1-3 ms each, plus
// an 8.5 GiB allocation and fill); needs ~10 GiB of device memory.
//
// What it measures: copy, write and read bandwidth of device memory (HBM) and read bandwidth of
// L2, with techniques the gpudiag roofline kernels (grid-stride uint4 loops) do not use:
//   tma   Hopper bulk copies (cp.async.bulk, 1-D): global->shared ring with mbarrier
//         completion, shared->global bulk stores with bulk groups; one elected thread per CTA.
//   ldg   vector loads/stores with cache hints (L2::256B prefetch size, .nc + L1::no_allocate,
//         .cs, L1::no_allocate, L2 evict_first cache policy), block-contiguous or grid-stride.
//   l2    ld.global.cg loads over a 4-32 MB working set with per-thread precomputed offsets
//         (no division in the loop), and a TMA bulk-load variant.
//
// How: DRAM buffers are 2 GiB each (far beyond the 50-60 MB L2), the source filled with a hash
// of the word index by a kernel. Each configuration: destination poisoned (0xFF), 3 warm-up
// launches, then 15 launches each between two events; the median is reported (min and max in
// brackets). Bytes counted: copy = bytes read + bytes written (2 x size), write = size,
// read = size, L2 = 16 x number of 16-byte loads issued. GB = 1e9 bytes.
// Ratios are against anchors measured in the same run: copy -> cudaMemcpyAsync D2D of the same
// bytes; write -> cudaMemsetAsync of the same bytes (and 4800 GB/s datasheet); read -> the best
// of the simple grid-stride read kernels; L2 -> a 10000 GB/s target.
// Every variant's output is checked (CHECK ok/FAIL): copy -> device compare of dst with src;
// write -> device check of the written pattern; read / L2 -> the kernels' sums of what they
// loaded against a plain reference kernel (so the loads cannot be optimised away).
// Output: one line per configuration, "kind variant params GB/s ratio [...] CHECK ok|FAIL",
// then the best of each kind. Exit status 1 on any CHECK FAIL (2 on a CUDA error).
//
// --copy2: why does no SM kernel copy as fast as cudaMemcpyAsync D2D (sweep 2: best kernel 3951
// GB/s = 0.93 of memcpy's 4258, while reads alone reach 4533 and writes 4450-4487)? Runs only the
// memcpy anchor, the sweep's best copy (ld.nc.na.256B + st.cs, U=4, 2 x 512 threads per SM,
// grid-stride; "ldg" line) and these groups, each timed and checked like every copy above
// (median of 15 after 3 warm-ups, device compare of dst with src, ratio to memcpy of this run):
//   place   read and write streams colliding in DRAM channels/banks? One allocation, src at its
//           start, dst at src + size + {0, 4K, 64K, 1M+4K, 2M+8K, size/2+12K} (and two separate
//           allocations); memcpy D2D and the best kernel at each placement (the kernel's line
//           also gives its ratio to memcpy at the same placement). Offsets are virtual: within a
//           2 MiB page they are physical offsets too; beyond, the driver's page placement decides.
//   pf      L2 prefetch-ahead: a block copies C-byte chunks (32-128K; its chunks interleaved over
//           the grid, or one contiguous range) with 16-byte ld.nc/st.cs, and before chunk k issues
//           cp.async.bulk.prefetch.L2.global for its chunk k+D (D = 0 control, 1, 2, 4), so DRAM
//           reads arrive as large bursts; 1-2 blocks of 512 threads per SM; "ahead" = grid*D*C
//           (configurations with ahead > 72 MB, far beyond the 60 MB L2, are left out).
//   blocks  the best kernel on a grid of 2 x {66, 100, 120, 128, 132} blocks (static grid-stride;
//           the block scheduler spreads them, so this is fewer warps rather than fewer SMs)
//   sms     the best kernel's loop on SMs with %smid < {66, 100, 120, 128, 132} only: 2 x SMs
//           blocks are launched, the others exit at once, and the copying blocks take 4-tile
//           batches from a global counter (a fresh zeroed counter per launch); prints how many
//           distinct SMs copied. DRAM-side contention or SM issue: does 100-120 SMs still copy at
//           the full rate?
//   burst   one block per SM alternating a long read phase and a long write phase through 96,
//           128 or 192 KiB of shared memory: 512 threads ld.global 16 B x 12/16/24 into registers,
//           st.shared, __syncthreads, st.global.cs; or one thread with cp.async.bulk global->shared
//           (32K pieces on an mbarrier), wait, bulk shared->global, wait for the read.
//   lgs     (own idea) cp.async.cg 16-byte (LDGSTS) ring per thread (S stages of U words in
//           shared memory, no block barrier): 96-112 KiB of loads in flight per SM that hold no
//           registers, stores from shared with st.cs. Public material on Ampere/Hopper async
//           copies presents LDGSTS as the way to keep many loads in flight with low register
//           and L1 cost; it tests whether the register path (LSU -> registers -> LSU) is what
//           costs the kernels the last 7 %.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CK(call)                                                                                             \
	do {                                                                                                 \
		cudaError_t e_ = (call);                                                                     \
		if (e_ != cudaSuccess) {                                                                     \
			fprintf(stderr, "bw_sweep: %s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,       \
				cudaGetErrorString(e_));                                                     \
			exit(2);                                                                             \
		}                                                                                            \
	} while (0)

static const size_t BUF_BYTES = (size_t)2 << 30; // 2 GiB per DRAM buffer
static const int WARMUP = 3, REPS = 15;
static const int MAX_BLOCKS = 4096; // partial-result slots
static const double DATASHEET_GBS = 4800.0, L2_TARGET_GBS = 10000.0;
static const double L2_BYTES_PER_LAUNCH = 8e9;

// ---------------------------------------------------------------- data pattern and checks
__host__ __device__ __forceinline__ uint32_t mix32(uint32_t x)
{
	x ^= x >> 16;
	x *= 0x7feb352dU;
	x ^= x >> 15;
	x *= 0x846ca68bU;
	x ^= x >> 16;
	return x;
}
__device__ __forceinline__ uint32_t src_word(uint64_t i)
{
	return mix32((uint32_t)i ^ 0xA5A5F00Du);
}
__device__ __forceinline__ uint32_t tile_word(uint32_t w, uint32_t seed)
{
	return mix32(w ^ seed);
}
__device__ __forceinline__ uint32_t sum4(uint4 v)
{
	return v.x + v.y + v.z + v.w;
}

static __global__ void k_fill(uint32_t *p, uint64_t nwords)
{
	for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < nwords;
	     i += (uint64_t)gridDim.x * blockDim.x)
		p[i] = src_word(i);
}

// plain reference sum (wrapping u32) of nwords words
static __global__ void k_ref_sum(const uint32_t *p, uint64_t nwords, uint32_t *out)
{
	uint32_t s = 0;
	for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < nwords;
	     i += (uint64_t)gridDim.x * blockDim.x)
		s += p[i];
	atomicAdd(out, s);
}

static __global__ void k_cmp(const uint4 *a, const uint4 *b, uint64_t n16, unsigned long long *bad)
{
	unsigned long long n = 0;
	for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n16;
	     i += (uint64_t)gridDim.x * blockDim.x) {
		uint4 x = a[i], y = b[i];
		n += (x.x != y.x) + (x.y != y.y) + (x.z != y.z) + (x.w != y.w);
	}
	if (n)
		atomicAdd(bad, n);
}

// LDG/STG write pattern: word i holds (u32)i ^ seed
static __global__ void k_check_lin(const uint32_t *p, uint64_t nwords, uint32_t seed, unsigned long long *bad)
{
	unsigned long long n = 0;
	for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < nwords;
	     i += (uint64_t)gridDim.x * blockDim.x)
		n += p[i] != ((uint32_t)i ^ seed);
	if (n)
		atomicAdd(bad, n);
}

static __global__ void k_check_const(const uint32_t *p, uint64_t nwords, uint32_t value,
				     unsigned long long *bad)
{
	unsigned long long n = 0;
	for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < nwords;
	     i += (uint64_t)gridDim.x * blockDim.x)
		n += p[i] != value;
	if (n)
		atomicAdd(bad, n);
}

// TMA write pattern: a tile of tile_words words, word w = tile_word(w, seed), repeated
static __global__ void k_check_tile(const uint32_t *p, uint64_t nwords, uint32_t tile_mask, uint32_t seed,
				    unsigned long long *bad)
{
	unsigned long long n = 0;
	for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < nwords;
	     i += (uint64_t)gridDim.x * blockDim.x)
		n += p[i] != tile_word((uint32_t)i & tile_mask, seed);
	if (n)
		atomicAdd(bad, n);
}

// per chunk: the sum of the 32 words the TMA read kernels sample (word lane * C/128, lane 0..31)
static __global__ void k_chunk_samples(const uint32_t *p, uint64_t nchunks, uint32_t chunk_bytes,
				       uint32_t *out)
{
	uint64_t c = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
	if (c >= nchunks)
		return;
	const uint32_t *q = p + c * (chunk_bytes / 4);
	uint32_t s = 0;
	for (uint32_t l = 0; l < 32; l++)
		s += q[l * (chunk_bytes / 128)];
	out[c] = s;
}

__device__ __forceinline__ uint32_t warp_sum(uint32_t s)
{
	for (int o = 16; o; o >>= 1)
		s += __shfl_xor_sync(0xffffffffu, s, o);
	return s;
}

// every thread of the block calls it; thread 0 stores the block's sum in partial[blockIdx.x]
__device__ __forceinline__ void block_sum_store(uint32_t s, uint32_t *partial)
{
	__shared__ uint32_t ws[32];
	s = warp_sum(s);
	if ((threadIdx.x & 31) == 0)
		ws[threadIdx.x >> 5] = s;
	__syncthreads();
	if (threadIdx.x == 0) {
		uint32_t t = 0;
		for (unsigned w = 0; w < (blockDim.x + 31) / 32; w++)
			t += ws[w];
		partial[blockIdx.x] = t;
	}
}

// ---------------------------------------------------------------- PTX wrappers (sm_90)
__device__ __forceinline__ uint32_t smem_addr(const void *p)
{
	return (uint32_t)__cvta_generic_to_shared(p);
}

__device__ __forceinline__ void mbar_init(uint32_t bar, uint32_t count)
{
	asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}
// makes the mbarrier.init visible to the async proxy (the bulk copies' complete_tx)
// (and, belt and braces, a proxy fence so the async proxy sees the initialised barriers)
__device__ __forceinline__ void fence_mbar_init()
{
	asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
	asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}
// orders this thread's generic-proxy shared-memory accesses before later async-proxy ones
__device__ __forceinline__ void fence_async_smem()
{
	asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

__device__ __forceinline__ void mbar_arrive_expect_tx(uint32_t bar, uint32_t bytes)
{
	asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes)
		     : "memory");
}

__device__ __forceinline__ uint64_t globaltimer()
{
	uint64_t t;
	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	return t;
}

// Wait until the phase with the given parity of the mbarrier has completed. try_wait may
// suspend for a system-dependent time and returns false on time-out; we loop. As a guard
// against a logic error (never expected), trap after 2 s so the program fails instead of hanging.
__device__ __forceinline__ void mbar_wait(uint32_t bar, uint32_t parity)
{
	uint64_t t0 = 0;
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
		if (t0 == 0)
			t0 = globaltimer();
		else if (globaltimer() - t0 > 2000000000ull)
			__trap();
	}
}

// global -> shared (this CTA's window of shared::cluster), completion counted on bar
__device__ __forceinline__ void bulk_g2s(uint32_t dst_smem, const void *src, uint32_t bytes, uint32_t bar)
{
	asm volatile(
	    "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
		dst_smem),
	    "l"(src), "r"(bytes), "r"(bar)
	    : "memory");
}
// shared -> global, tracked by bulk groups
__device__ __forceinline__ void bulk_s2g(void *dst, uint32_t src_smem, uint32_t bytes)
{
	asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(dst), "r"(src_smem),
		     "r"(bytes)
		     : "memory");
}
// the same two copies with an L2 cache-policy operand (createpolicy evict_first)
__device__ __forceinline__ void bulk_g2s_hint(uint32_t dst_smem, const void *src, uint32_t bytes,
					      uint32_t bar, uint64_t pol)
{
	asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint [%0], "
		     "[%1], %2, [%3], %4;" ::"r"(dst_smem),
		     "l"(src), "r"(bytes), "r"(bar), "l"(pol)
		     : "memory");
}
__device__ __forceinline__ void bulk_s2g_hint(void *dst, uint32_t src_smem, uint32_t bytes, uint64_t pol)
{
	asm volatile(
	    "cp.async.bulk.global.shared::cta.bulk_group.L2::cache_hint [%0], [%1], %2, %3;" ::"l"(dst),
	    "r"(src_smem), "r"(bytes), "l"(pol)
	    : "memory");
}
__device__ __forceinline__ void bulk_commit()
{
	asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}
// at most N of this thread's committed bulk groups still reading their source
template <int N> __device__ __forceinline__ void bulk_wait_read()
{
	asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(N) : "memory");
}
// at most N of this thread's committed bulk groups not yet complete
template <int N> __device__ __forceinline__ void bulk_wait_all()
{
	asm volatile("cp.async.bulk.wait_group %0;" ::"n"(N) : "memory");
}

// an L2 cache policy: every access it tags is evict_first
__device__ __forceinline__ uint64_t policy_evict_first()
{
	uint64_t pol;
	asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(pol));
	return pol;
}

// ---------------------------------------------------------------- chunk mapping
// map 0: contiguous partition (CTA b owns chunks [b*n/G, (b+1)*n/G));
// map 1: round-robin interleave (chunk b + k*G);
// map 2: round-robin over a small region, wrapping (chunk (b + k*G) mod n), nk given (L2).
struct ChunkMap {
	uint64_t lo, nk, step, n;
	int map;
	__device__ __forceinline__ uint64_t at(uint64_t k) const
	{
		return map == 2 ? (lo + k * step) % n : lo + k * step;
	}
};
__device__ __forceinline__ ChunkMap chunk_map(int map, uint64_t n, uint64_t nk_wrap)
{
	const uint64_t b = blockIdx.x, G = gridDim.x;
	ChunkMap m;
	m.n = n;
	m.map = map;
	if (map == 0) {
		m.lo = b * n / G;
		m.nk = (b + 1) * n / G - m.lo;
		m.step = 1;
	} else if (map == 1) {
		m.lo = b;
		m.nk = n > b ? (n - b + G - 1) / G : 0;
		m.step = G;
	} else {
		m.lo = b;
		m.nk = nk_wrap;
		m.step = G;
	}
	return m;
}

// ---------------------------------------------------------------- TMA kernels
// Copy: one thread per CTA runs a ring of S stages of C bytes. Chunk k is loaded into stage
// k % S (mbarrier of that stage, phase k / S), then stored from there with a bulk group.
// After storing chunk k, the stage of chunk k-L is refilled with chunk k-L+S once at most L
// bulk groups are still reading shared memory (so the store of chunk k-L has read its stage).
// L = 0: refill the stage just stored (S-1 loads stay in flight during the wait);
// L = 1: refill the previous one (the newest store may still be reading).
// H = 1: loads and stores carry an L2 evict_first cache policy (streamed data).
template <int L, int H>
static __global__ void __launch_bounds__(32)
    k_tma_copy(const char *src, char *dst, uint64_t nchunks, uint32_t C, int S, int map)
{
	extern __shared__ __align__(128) unsigned char ring[];
	__shared__ __align__(8) uint64_t bars[4];
	if (threadIdx.x != 0)
		return;
	const ChunkMap m = chunk_map(map, nchunks, 0);
	const uint32_t ring0 = smem_addr(ring), bar0 = smem_addr(bars);
	const uint64_t pol = H ? policy_evict_first() : 0;
	auto load = [&](uint32_t stage, uint64_t chunk) {
		mbar_arrive_expect_tx(bar0 + 8 * stage, C);
		if constexpr (H)
			bulk_g2s_hint(ring0 + stage * C, src + chunk * C, C, bar0 + 8 * stage, pol);
		else
			bulk_g2s(ring0 + stage * C, src + chunk * C, C, bar0 + 8 * stage);
	};
	for (int s = 0; s < S; s++)
		mbar_init(bar0 + 8 * s, 1);
	fence_mbar_init();
	for (int s = 0; s < S && (uint64_t)s < m.nk; s++)
		load(s, m.at(s));
	for (uint64_t k = 0; k < m.nk; k++) {
		const uint32_t st = (uint32_t)(k % S);
		mbar_wait(bar0 + 8 * st, (uint32_t)((k / S) & 1));
		if constexpr (H)
			bulk_s2g_hint(dst + m.at(k) * C, ring0 + st * C, C, pol);
		else
			bulk_s2g(dst + m.at(k) * C, ring0 + st * C, C);
		bulk_commit();
		bool refill = k + S < m.nk + L; // chunk k-L+S exists
		if constexpr (L > 0)
			refill = refill && k >= (uint64_t)L;
		if (refill) {
			const uint64_t kr = k - L;
			const uint32_t s2 = (uint32_t)(kr % S);
			bulk_wait_read<L>();
			load(s2, m.at(kr + S));
		}
	}
	bulk_wait_all<0>();
}

// Write: 128 threads fill one C-byte tile in shared memory once; one thread then stores it to
// every chunk of the CTA with bulk groups, keeping at most D groups reading the tile.
template <int D>
static __global__ void __launch_bounds__(128)
    k_tma_write(char *dst, uint64_t nchunks, uint32_t C, int map, uint32_t seed)
{
	extern __shared__ __align__(128) unsigned char ring[];
	uint32_t *t32 = (uint32_t *)ring;
	for (uint32_t w = threadIdx.x; w < C / 4; w += blockDim.x)
		t32[w] = tile_word(w, seed);
	fence_async_smem(); // generic writes of the tile -> visible to the bulk stores
	__syncthreads();
	if (threadIdx.x != 0)
		return;
	const ChunkMap m = chunk_map(map, nchunks, 0);
	const uint32_t tile = smem_addr(ring);
	for (uint64_t k = 0; k < m.nk; k++) {
		bulk_s2g(dst + m.at(k) * C, tile, C);
		bulk_commit();
		bulk_wait_read<D>();
	}
	bulk_wait_all<0>();
}

// Read (DRAM with map 0/1, L2 with map 2): one warp; lane 0 keeps S bulk loads in flight, all
// lanes wait for a stage, lane l adds word l*C/128 of the chunk, and the stage is refilled.
static __global__ void __launch_bounds__(32) k_tma_read(const char *src, uint64_t nchunks, uint64_t nk_wrap,
							uint32_t C, int S, int map, uint32_t *partial)
{
	extern __shared__ __align__(128) unsigned char ring[];
	__shared__ __align__(8) uint64_t bars[4];
	const uint32_t lane = threadIdx.x;
	const ChunkMap m = chunk_map(map, nchunks, nk_wrap);
	const uint32_t ring0 = smem_addr(ring), bar0 = smem_addr(bars);
	if (lane == 0) {
		for (int s = 0; s < S; s++)
			mbar_init(bar0 + 8 * s, 1);
		fence_mbar_init();
		for (int s = 0; s < S && (uint64_t)s < m.nk; s++) {
			mbar_arrive_expect_tx(bar0 + 8 * s, C);
			bulk_g2s(ring0 + s * C, src + m.at(s) * C, C, bar0 + 8 * s);
		}
	}
	__syncwarp();
	const uint32_t *r32 = (const uint32_t *)ring;
	uint32_t sum = 0;
	for (uint64_t k = 0; k < m.nk; k++) {
		const uint32_t st = (uint32_t)(k % S);
		mbar_wait(bar0 + 8 * st, (uint32_t)((k / S) & 1));
		sum += r32[st * (C / 4) + lane * (C / 128)];
		__syncwarp(); // every lane has read the stage
		if (lane == 0 && k + S < m.nk) {
			fence_async_smem(); // our generic reads of the stage before the async refill
			mbar_arrive_expect_tx(bar0 + 8 * st, C);
			bulk_g2s(ring0 + st * C, src + m.at(k + S) * C, C, bar0 + 8 * st);
		}
	}
	sum = warp_sum(sum);
	if (lane == 0)
		partial[blockIdx.x] = sum;
}

// ---------------------------------------------------------------- LDG/STG kernels
// LD: 0 ld.global.v4 | 1 ld.global.nc.L1::no_allocate.L2::256B | 2 ld.global.L2::256B |
//     3 ld.global.cs | 4 ld.global.cg | 5 ld.global.nc.L1::no_allocate.L2::cache_hint(evict_first).L2::256B
// ST: 0 st.global.v4 | 1 st.global.cs | 2 st.global.L1::no_allocate | 3 st.global.L2::cache_hint(evict_first)
#define V4OUT(v) "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
template <int LD> __device__ __forceinline__ uint4 ldv(const void *p, uint64_t pol)
{
	uint4 v;
	if constexpr (LD == 0)
		asm volatile("ld.global.v4.u32 {%0,%1,%2,%3}, [%4];" : V4OUT(v) : "l"(p));
	else if constexpr (LD == 1)
		asm volatile("ld.global.nc.L1::no_allocate.L2::256B.v4.u32 {%0,%1,%2,%3}, [%4];"
			     : V4OUT(v)
			     : "l"(p));
	else if constexpr (LD == 2)
		asm volatile("ld.global.L2::256B.v4.u32 {%0,%1,%2,%3}, [%4];" : V4OUT(v) : "l"(p));
	else if constexpr (LD == 3)
		asm volatile("ld.global.cs.v4.u32 {%0,%1,%2,%3}, [%4];" : V4OUT(v) : "l"(p));
	else if constexpr (LD == 4)
		asm volatile("ld.global.cg.v4.u32 {%0,%1,%2,%3}, [%4];" : V4OUT(v) : "l"(p));
	else
		asm volatile(
		    "ld.global.nc.L1::no_allocate.L2::cache_hint.L2::256B.v4.u32 {%0,%1,%2,%3}, [%4], %5;"
		    : V4OUT(v)
		    : "l"(p), "l"(pol));
	return v;
}
template <int ST> __device__ __forceinline__ void stv(void *p, uint4 v, uint64_t pol)
{
	if constexpr (ST == 0)
		asm volatile("st.global.v4.u32 [%0], {%1,%2,%3,%4};" ::"l"(p), "r"(v.x), "r"(v.y), "r"(v.z),
			     "r"(v.w)
			     : "memory");
	else if constexpr (ST == 1)
		asm volatile("st.global.cs.v4.u32 [%0], {%1,%2,%3,%4};" ::"l"(p), "r"(v.x), "r"(v.y),
			     "r"(v.z), "r"(v.w)
			     : "memory");
	else if constexpr (ST == 2)
		asm volatile("st.global.L1::no_allocate.v4.u32 [%0], {%1,%2,%3,%4};" ::"l"(p), "r"(v.x),
			     "r"(v.y), "r"(v.z), "r"(v.w)
			     : "memory");
	else
		asm volatile("st.global.L2::cache_hint.v4.u32 [%0], {%1,%2,%3,%4}, %5;" ::"l"(p), "r"(v.x),
			     "r"(v.y), "r"(v.z), "r"(v.w), "l"(pol)
			     : "memory");
}

// Tiles of blockDim*U 16-byte words; inside a tile warp w moves U*512 contiguous bytes
// (word w*32*U + u*32 + lane). map 0: CTA b owns the contiguous tile range [b*T/G, (b+1)*T/G);
// map 1: grid-stride over tiles. n16 is a multiple of the tile (2 GiB buffers, power-of-2 tiles).
struct TileRange {
	uint64_t t0, t1, ts, tile, off;
};
template <int U> __device__ __forceinline__ TileRange tile_range(uint64_t n16, int map)
{
	TileRange r;
	r.tile = (uint64_t)blockDim.x * U;
	const uint64_t T = n16 / r.tile, b = blockIdx.x, G = gridDim.x;
	if (map == 0) {
		r.t0 = b * T / G;
		r.t1 = (b + 1) * T / G;
		r.ts = 1;
	} else {
		r.t0 = b;
		r.t1 = T;
		r.ts = G;
	}
	r.off = (threadIdx.x >> 5) * 32 * U + (threadIdx.x & 31);
	return r;
}

// Launch bounds (NT, MINB) with MINB = the CTAs per SM the configuration launches: without a
// minimum, ptxas kept these kernels near 32 registers and so interleaved loads with their use
// (fewer than U loads in flight); with it, ptxas may use the 65536 / (NT*MINB) registers.
template <int LD, int ST, int U, int NT, int MINB>
static __global__ void __launch_bounds__(NT, MINB)
    k_copy(const uint4 *__restrict__ src, uint4 *__restrict__ dst, uint64_t n16, int map)
{
	const TileRange r = tile_range<U>(n16, map);
	uint64_t pol = 0;
	if constexpr (LD == 5 || ST == 3)
		pol = policy_evict_first();
	for (uint64_t t = r.t0; t < r.t1; t += r.ts) {
		const uint64_t i = t * r.tile + r.off;
		uint4 v[U];
#pragma unroll
		for (int u = 0; u < U; u++)
			v[u] = ldv<LD>(src + i + u * 32, pol);
#pragma unroll
		for (int u = 0; u < U; u++)
			stv<ST>(dst + i + u * 32, v[u], pol);
	}
}

template <int ST, int U, int NT, int MINB>
static __global__ void __launch_bounds__(NT, MINB)
    k_write(uint4 *__restrict__ dst, uint64_t n16, int map, uint32_t seed)
{
	const TileRange r = tile_range<U>(n16, map);
	uint64_t pol = 0;
	if constexpr (ST == 3)
		pol = policy_evict_first();
	for (uint64_t t = r.t0; t < r.t1; t += r.ts) {
		const uint64_t i = t * r.tile + r.off;
#pragma unroll
		for (int u = 0; u < U; u++) {
			const uint32_t w = (uint32_t)(i + u * 32) * 4; // word index (mod 2^32)
			stv<ST>(dst + i + u * 32,
				make_uint4(w ^ seed, (w + 1) ^ seed, (w + 2) ^ seed, (w + 3) ^ seed), pol);
		}
	}
}

template <int LD, int U, int NT, int MINB>
static __global__ void __launch_bounds__(NT, MINB)
    k_read(const uint4 *__restrict__ src, uint64_t n16, int map, uint32_t *partial)
{
	const TileRange r = tile_range<U>(n16, map);
	uint32_t s = 0;
	for (uint64_t t = r.t0; t < r.t1; t += r.ts) {
		const uint64_t i = t * r.tile + r.off;
		uint4 v[U];
#pragma unroll
		for (int u = 0; u < U; u++)
			v[u] = ldv<LD>(src + i + u * 32, 0);
#pragma unroll
		for (int u = 0; u < U; u++)
			s += sum4(v[u]);
	}
	block_sum_store(s, partial);
}

// ---------------------------------------------------------------- L2 kernels
// The region a CTA reads: whole = 1 -> the whole working set (Z = set bytes, P = all threads
// of the grid, t = global thread id); whole = 0 -> the CTA's own slice (Z = slice bytes at
// b*Z, P = blockDim, t = threadIdx). Thread t's load u of step s reads byte offset
// ((t + u*P)*16 + s*D) mod Z with D = (P*U*16) mod Z, kept as U running 32-bit offsets that
// wrap with one compare-and-subtract (no division in the loop). All U loads are issued
// before any is used.
// MINB > 0 asks ptxas for registers that let MINB CTAs of NT threads be resident (full occupancy).
template <int U, int NT, int MINB>
static __global__ void __launch_bounds__(NT, MINB)
    k_l2(const char *base, uint32_t Z, int whole, uint32_t D, int nsteps, uint32_t *partial)
{
	const uint64_t P = whole ? (uint64_t)gridDim.x * NT : NT;
	const uint64_t t = whole ? (uint64_t)blockIdx.x * NT + threadIdx.x : threadIdx.x;
	const char *region = whole ? base : base + (uint64_t)blockIdx.x * Z;
	uint32_t off[U];
#pragma unroll
	for (int u = 0; u < U; u++)
		off[u] = (uint32_t)(((t + (uint64_t)u * P) * 16) % Z);
	uint32_t s = 0;
	for (int step = 0; step < nsteps; step++) {
		uint4 v[U];
#pragma unroll
		for (int u = 0; u < U; u++)
			v[u] = ldv<4>(region + off[u], 0);
#pragma unroll
		for (int u = 0; u < U; u++) {
			const uint32_t o = off[u] + D;
			off[u] = o >= Z ? o - Z : o;
		}
#pragma unroll
		for (int u = 0; u < U; u++)
			s += sum4(v[u]);
	}
	block_sum_store(s, partial);
}

// reference for k_l2: same addresses from the closed form, plain loads, 64-bit modulo
static __global__ void k_l2_ref(const char *base, uint32_t Z, int whole, uint32_t D, int nsteps, int U,
				uint32_t *partial)
{
	const uint64_t P = whole ? (uint64_t)gridDim.x * blockDim.x : blockDim.x;
	const uint64_t t = whole ? (uint64_t)blockIdx.x * blockDim.x + threadIdx.x : threadIdx.x;
	const char *region = whole ? base : base + (uint64_t)blockIdx.x * Z;
	uint32_t s = 0;
	for (int step = 0; step < nsteps; step++)
		for (int u = 0; u < U; u++) {
			const uint64_t o = ((t + (uint64_t)u * P) * 16 + (uint64_t)step * D) % Z;
			s += sum4(*(const uint4 *)(region + o));
		}
	block_sum_store(s, partial);
}

// ---------------------------------------------------------------- --copy2 kernels
// L2 prefetch-ahead copy: block b copies chunks b, b+G, ... (map 1) or a contiguous chunk range
// (map 0) of C bytes; before copying its chunk k it issues cp.async.bulk.prefetch.L2 for its chunk
// k+D (in 16 KiB pieces, one per thread of the first C/16K threads), so the reads reach DRAM as
// large bursts ahead of the loads. D = 0: no prefetch (control). Inside a chunk, load batch u of
// a thread reads word j + u*NT + tid (coalesced); C is a multiple of NT*U*16 (host checks).
static const uint32_t PF_PIECE = 16384;
__device__ __forceinline__ void prefetch_l2(const void *p, uint32_t bytes)
{
	asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(p), "r"(bytes) : "memory");
}
template <int NT, int U, int MINB>
static __global__ void __launch_bounds__(NT, MINB)
    k_pf_copy(const uint4 *__restrict__ src, uint4 *__restrict__ dst, uint64_t nchunks, uint32_t C, int D,
	      int map)
{
	const ChunkMap m = chunk_map(map, nchunks, 0);
	const uint64_t c16 = C / 16;
	auto prefetch = [&](uint64_t k) {
		if (threadIdx.x < C / PF_PIECE)
			prefetch_l2((const char *)src + m.at(k) * C + (uint64_t)threadIdx.x * PF_PIECE, PF_PIECE);
	};
	for (uint64_t k = 0; k < (uint64_t)D && k < m.nk; k++)
		prefetch(k);
	for (uint64_t k = 0; k < m.nk; k++) {
		if (D > 0 && k + D < m.nk)
			prefetch(k + D);
		const uint64_t base = m.at(k) * c16 + threadIdx.x;
		for (uint64_t j = 0; j < c16; j += (uint64_t)NT * U) {
			uint4 v[U];
#pragma unroll
			for (int u = 0; u < U; u++)
				v[u] = ldv<1>(src + base + j + u * NT, 0);
#pragma unroll
			for (int u = 0; u < U; u++)
				stv<1>(dst + base + j + u * NT, v[u], 0);
		}
	}
}

// Fewer SMs: the best copy's tile loop (ld.nc.na.256B / st.cs, tiles of NT*U words, warp w
// moving U*512 contiguous bytes), but a block on an SM with %smid >= nsm exits at once and the
// remaining blocks take batches of 4 tiles from a global counter (ctr, zeroed per launch by the
// host using a fresh slot), so exactly the SMs with %smid < nsm copy everything whatever the
// block placement. Each copying block sets its SM's bit in smmask (256 bits).
static const uint64_t SMS_BATCH = 4;
template <int U, int NT, int MINB>
static __global__ void __launch_bounds__(NT, MINB)
    k_copy_sms(const uint4 *__restrict__ src, uint4 *__restrict__ dst, uint64_t n16, uint32_t nsm,
	       unsigned long long *ctr, uint32_t *smmask)
{
	uint32_t smid;
	asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
	if (smid >= nsm) // the whole block leaves (smid is the same for all its threads)
		return;
	__shared__ unsigned long long tk[2];
	if (threadIdx.x == 0) {
		if (smid < 256)
			atomicOr(&smmask[smid >> 5], 1u << (smid & 31));
		tk[0] = atomicAdd(ctr, 1ull);
	}
	__syncthreads();
	const uint64_t tile = (uint64_t)NT * U, T = n16 / tile;
	const uint64_t off = (threadIdx.x >> 5) * 32 * U + (threadIdx.x & 31);
	for (int it = 0;; it++) {
		const uint64_t t0 = tk[it & 1] * SMS_BATCH;
		if (t0 >= T)
			break; // uniform: every thread read the same ticket
		if (threadIdx.x == 0) // the next ticket, in the other slot (read after the barrier below)
			tk[(it + 1) & 1] = atomicAdd(ctr, 1ull);
		const uint64_t t1 = t0 + SMS_BATCH < T ? t0 + SMS_BATCH : T;
		for (uint64_t t = t0; t < t1; t++) {
			const uint64_t i = t * tile + off;
			uint4 v[U];
#pragma unroll
			for (int u = 0; u < U; u++)
				v[u] = ldv<1>(src + i + u * 32, 0);
#pragma unroll
			for (int u = 0; u < U; u++)
				stv<1>(dst + i + u * 32, v[u], 0);
		}
		__syncthreads(); // all threads have read tk[it & 1] before it is overwritten
	}
}

// Read burst / write burst, one block of 512 threads per SM, staging B = NL*512*16 bytes of
// shared memory: the block reads chunk c (NL loads in flight per thread, ld.nc.na.256B) into
// registers, stores them to shared memory (which waits for every load), __syncthreads, then
// writes the whole chunk out with st.global.cs and synchronises again, so each SM alternates a
// long read phase and a long write phase. Chunks c = b, b+G, ...; the last chunk may be partial
// (2 GiB is not a multiple of 96 or 192 KiB): every word index is bounded by n16.
template <int NL>
static __global__ void __launch_bounds__(512, 1)
    k_burst_ldg(const uint4 *__restrict__ src, uint4 *__restrict__ dst, uint64_t n16)
{
	extern __shared__ __align__(16) uint4 stage[];
	const uint64_t B16 = (uint64_t)NL * 512, nchunks = (n16 + B16 - 1) / B16;
	for (uint64_t c = blockIdx.x; c < nchunks; c += gridDim.x) {
		const uint64_t base = c * B16 + threadIdx.x;
		uint4 v[NL];
#pragma unroll
		for (int u = 0; u < NL; u++)
			v[u] = base + u * 512 < n16 ? ldv<1>(src + base + u * 512, 0) : make_uint4(0, 0, 0, 0);
#pragma unroll
		for (int u = 0; u < NL; u++)
			stage[u * 512 + threadIdx.x] = v[u];
		__syncthreads();
#pragma unroll
		for (int u = 0; u < NL; u++)
			if (base + u * 512 < n16)
				stv<1>(dst + base + u * 512, stage[u * 512 + threadIdx.x], 0);
		__syncthreads();
	}
}

// The same with bulk copies: one thread per block loads chunk c (B bytes, the last chunk
// shorter) into shared memory with cp.async.bulk in 32 KiB pieces on one mbarrier, waits, stores
// it with bulk shared->global copies, and waits until they have read shared memory before the
// next chunk's loads overwrite it.
static __global__ void __launch_bounds__(32) k_burst_tma(const char *src, char *dst, uint64_t bytes, uint32_t B)
{
	extern __shared__ __align__(128) unsigned char buf[];
	__shared__ __align__(8) uint64_t bar[1];
	if (threadIdx.x != 0)
		return;
	const uint32_t s0 = smem_addr(buf), b0 = smem_addr(bar);
	mbar_init(b0, 1);
	fence_mbar_init();
	const uint64_t nchunks = (bytes + B - 1) / B;
	uint32_t phase = 0;
	for (uint64_t c = blockIdx.x; c < nchunks; c += gridDim.x, phase ^= 1) {
		const uint64_t at = c * B;
		const uint32_t n = (uint32_t)(bytes - at < B ? bytes - at : B);
		mbar_arrive_expect_tx(b0, n);
		for (uint32_t o = 0; o < n; o += 32768)
			bulk_g2s(s0 + o, src + at + o, n - o < 32768 ? n - o : 32768, b0);
		mbar_wait(b0, phase);
		for (uint32_t o = 0; o < n; o += 32768)
			bulk_s2g(dst + at + o, s0 + o, n - o < 32768 ? n - o : 32768);
		bulk_commit();
		bulk_wait_read<0>();
	}
	bulk_wait_all<0>();
}

// cp.async (LDGSTS, 16 B, .cg) ring: every thread streams its own words through S private
// stages of U 16-byte slots in shared memory (slot (s*U+u)*NT + tid, so no block barrier is
// needed): tile k+S-1 is requested while tile k (waited with cp.async.wait_group S-1) is stored
// with st.global.cs. Tiles and the in-tile mapping are the best copy's (grid-stride, warp w moves
// U*512 contiguous bytes). Loads need no registers while in flight: (S-1)*U*16 bytes per thread.
template <int S, int U, int NT, int MINB>
static __global__ void __launch_bounds__(NT, MINB)
    k_lgs_copy(const uint4 *__restrict__ src, uint4 *__restrict__ dst, uint64_t n16)
{
	extern __shared__ __align__(16) uint4 ring16[];
	const TileRange r = tile_range<U>(n16, 1);
	const uint64_t nk = r.t0 < r.t1 ? (r.t1 - r.t0 + r.ts - 1) / r.ts : 0;
	auto issue = [&](uint64_t k) {
		if (k < nk) {
			const uint64_t i = (r.t0 + k * r.ts) * r.tile + r.off;
			const int s = (int)(k % S);
#pragma unroll
			for (int u = 0; u < U; u++)
				asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(
						 smem_addr(&ring16[(s * U + u) * NT + threadIdx.x])),
					     "l"(src + i + u * 32)
					     : "memory");
		}
		asm volatile("cp.async.commit_group;" ::: "memory"); // possibly empty: keeps the count
	};
	for (int s = 0; s < S - 1; s++)
		issue((uint64_t)s);
	for (uint64_t k = 0; k < nk; k++) {
		issue(k + S - 1);
		asm volatile("cp.async.wait_group %0;" ::"n"(S - 1) : "memory"); // tile k has landed
		const uint64_t i = (r.t0 + k * r.ts) * r.tile + r.off;
		const int s = (int)(k % S);
#pragma unroll
		for (int u = 0; u < U; u++)
			stv<1>(dst + i + u * 32, ring16[(s * U + u) * NT + threadIdx.x], 0);
	}
	asm volatile("cp.async.wait_group 0;" ::: "memory");
}

// ---------------------------------------------------------------- host harness
struct Timing {
	double med_ms, min_ms, max_ms;
};

static cudaEvent_t ev0, ev1;
static int g_fail = 0;
static bool g_dry = false; // --dry: list the configurations, touch no GPU
static int g_nconf = 0;

template <class F> static Timing time_launches(F launch)
{
	for (int i = 0; i < WARMUP; i++) {
		launch();
		CK(cudaGetLastError());
	}
	CK(cudaDeviceSynchronize());
	std::vector<float> t(REPS);
	for (int i = 0; i < REPS; i++) {
		CK(cudaEventRecord(ev0));
		launch();
		CK(cudaGetLastError());
		CK(cudaEventRecord(ev1));
		CK(cudaEventSynchronize(ev1));
		CK(cudaEventElapsedTime(&t[i], ev0, ev1));
	}
	std::sort(t.begin(), t.end());
	return Timing{t[REPS / 2], t[0], t[REPS - 1]};
}

struct Best {
	double gbs = 0;
	char line[256] = "";
};
static Best best_copy, best_write, best_read, best_l2;

static void report(const char *kind, const char *variant, const char *params, double bytes, Timing tm,
		   double anchor, const char *anchor_name, bool ok, Best *best, double anchor2 = 0,
		   const char *anchor2_name = nullptr)
{
	const double gbs = bytes / (tm.med_ms * 1e-3) / 1e9;
	char line[256];
	int n = snprintf(line, sizeof line, "%-5s %-9s %-40s %8.1f GB/s  ratio %.3f (%s)", kind, variant,
			 params, gbs, gbs / anchor, anchor_name);
	if (anchor2 > 0 && n > 0 && n < (int)sizeof line)
		snprintf(line + n, sizeof line - n, " %.3f (%s)", gbs / anchor2, anchor2_name);
	printf("%s  [ms med %.3f min %.3f max %.3f]  CHECK %s\n", line, tm.med_ms, tm.min_ms, tm.max_ms,
	       ok ? "ok" : "FAIL");
	fflush(stdout);
	if (!ok)
		g_fail = 1;
	if (ok && best && gbs > best->gbs) {
		best->gbs = gbs;
		snprintf(best->line, sizeof best->line, "%s", line);
	}
}

static void report_skip(const char *kind, const char *variant, const char *params, const char *why)
{
	printf("%-5s %-9s %-40s SKIP (%s)\n", kind, variant, params, why);
}

// globals for the harness
static int g_sms;
static char *d_src, *d_dst;
static uint32_t *d_partial, *d_ref;
static unsigned long long *d_bad;
static uint32_t *d_samples;
static uint32_t g_src_sum; // sum of all words of src
static double g_memcpy_gbs, g_memset_gbs, g_read_anchor = 0;

static void poison_dst()
{
	CK(cudaMemset(d_dst, 0xFF, BUF_BYTES));
}

static unsigned long long read_bad()
{
	unsigned long long b;
	CK(cudaDeviceSynchronize());
	CK(cudaMemcpy(&b, d_bad, sizeof b, cudaMemcpyDeviceToHost));
	return b;
}

static bool check_copy()
{
	CK(cudaMemset(d_bad, 0, sizeof(unsigned long long)));
	k_cmp<<<g_sms * 8, 256>>>((const uint4 *)d_src, (const uint4 *)d_dst, BUF_BYTES / 16, d_bad);
	CK(cudaGetLastError());
	return read_bad() == 0;
}

static uint32_t sum_partials(int n)
{
	std::vector<uint32_t> h(n);
	CK(cudaDeviceSynchronize());
	CK(cudaMemcpy(h.data(), d_partial, n * sizeof(uint32_t), cudaMemcpyDeviceToHost));
	uint32_t s = 0;
	for (int i = 0; i < n; i++)
		s += h[i];
	return s;
}

// resident CTAs per SM for a kernel, or 0 on error
static int occupancy(const void *fn, int threads, size_t smem)
{
	int n = 0;
	CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, fn, threads, smem));
	return n;
}

static const char *map_name(int map)
{
	return map == 0 ? "contig" : map == 1 ? "inter" : "wrap";
}

// ---------------------------------------------------------------- TMA sweeps
typedef void (*tma_copy_fn)(const char *, char *, uint64_t, uint32_t, int, int);
typedef void (*tma_write_fn)(char *, uint64_t, uint32_t, int, uint32_t);

// in --dry mode: print the configuration and tell the caller to stop
static bool dry(const char *kind, const char *variant, const char *params)
{
	g_nconf++;
	if (g_dry)
		printf("%-5s %-9s %s\n", kind, variant, params);
	return g_dry;
}

static bool set_smem(const void *fn, size_t smem)
{
	return cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem) ==
	       cudaSuccess;
}

static void tma_copy_one(uint32_t ckb, int S, int L, int cps, int map, int H = 0)
{
	const uint32_t C = ckb << 10;
	const size_t smem = (size_t)S * C;
	tma_copy_fn fn = H ? (L == 0 ? k_tma_copy<0, 1> : k_tma_copy<1, 1>)
			   : (L == 0 ? k_tma_copy<0, 0> : k_tma_copy<1, 0>);
	char params[96];
	snprintf(params, sizeof params, "C=%uK S=%d L=%d cps=%d map=%s%s", ckb, S, L, cps, map_name(map),
		 H ? " L2=evict_first" : "");
	if (dry("copy", "tma", params))
		return;
	if (!set_smem((const void *)fn, smem)) {
		(void)cudaGetLastError();
		report_skip("copy", "tma", params, "smem too large");
		return;
	}
	if (occupancy((const void *)fn, 32, smem) < cps) {
		report_skip("copy", "tma", params, "occupancy");
		return;
	}
	const int grid = g_sms * cps;
	const uint64_t nchunks = BUF_BYTES / C;
	poison_dst();
	Timing tm = time_launches([&] { fn<<<grid, 32, smem>>>(d_src, d_dst, nchunks, C, S, map); });
	report("copy", "tma", params, 2.0 * BUF_BYTES, tm, g_memcpy_gbs, "memcpy", check_copy(), &best_copy);
}

static void tma_write_one(uint32_t ckb, int D, int cps, int map, uint32_t seed)
{
	const uint32_t C = ckb << 10;
	tma_write_fn fn = D == 1 ? k_tma_write<1> : D == 4 ? k_tma_write<4> : k_tma_write<8>;
	char params[96];
	snprintf(params, sizeof params, "C=%uK D=%d cps=%d map=%s", ckb, D, cps, map_name(map));
	if (dry("write", "tma", params))
		return;
	if (!set_smem((const void *)fn, C)) {
		(void)cudaGetLastError();
		report_skip("write", "tma", params, "smem too large");
		return;
	}
	if (occupancy((const void *)fn, 128, C) < cps) {
		report_skip("write", "tma", params, "occupancy");
		return;
	}
	const int grid = g_sms * cps;
	const uint64_t nchunks = BUF_BYTES / C;
	poison_dst();
	Timing tm = time_launches([&] { fn<<<grid, 128, C>>>(d_dst, nchunks, C, map, seed); });
	CK(cudaMemset(d_bad, 0, sizeof(unsigned long long)));
	k_check_tile<<<g_sms * 8, 256>>>((const uint32_t *)d_dst, BUF_BYTES / 4, C / 4 - 1, seed, d_bad);
	CK(cudaGetLastError());
	const bool ok = read_bad() == 0;
	report("write", "tma", params, (double)BUF_BYTES, tm, g_memset_gbs, "memset", ok, &best_write,
	       DATASHEET_GBS, "4800");
}

// expected sum for k_tma_read: per chunk sample sums (device), times the times each chunk is read
static uint32_t tma_read_expected(uint64_t nchunks, uint32_t C, int map, int grid, uint64_t nk_wrap)
{
	k_chunk_samples<<<(unsigned)((nchunks + 255) / 256), 256>>>((const uint32_t *)d_src, nchunks, C,
								    d_samples);
	CK(cudaGetLastError());
	std::vector<uint32_t> w(nchunks);
	CK(cudaMemcpy(w.data(), d_samples, nchunks * sizeof(uint32_t), cudaMemcpyDeviceToHost));
	uint32_t s = 0;
	if (map != 2) {
		for (uint64_t c = 0; c < nchunks; c++)
			s += w[c];
	} else {
		std::vector<uint64_t> cnt(nchunks, 0);
		for (uint64_t b = 0; b < (uint64_t)grid; b++)
			for (uint64_t k = 0; k < nk_wrap; k++)
				cnt[(b + k * grid) % nchunks]++;
		for (uint64_t c = 0; c < nchunks; c++)
			s += (uint32_t)cnt[c] * w[c];
	}
	return s;
}

static void tma_read_one(const char *kind, uint32_t ckb, int S, int cps, int map, size_t region, Best *best)
{
	const uint32_t C = ckb << 10;
	const size_t smem = (size_t)S * C;
	const bool l2 = map == 2;
	char params[96];
	if (l2)
		snprintf(params, sizeof params, "set=%zuMB C=%uK S=%d cps=%d", region >> 20, ckb, S, cps);
	else
		snprintf(params, sizeof params, "C=%uK S=%d cps=%d map=%s", ckb, S, cps, map_name(map));
	if (dry(kind, "tma", params))
		return;
	if (!set_smem((const void *)k_tma_read, smem)) {
		(void)cudaGetLastError();
		report_skip(kind, "tma", params, "smem too large");
		return;
	}
	if (occupancy((const void *)k_tma_read, 32, smem) < cps) {
		report_skip(kind, "tma", params, "occupancy");
		return;
	}
	const int grid = g_sms * cps;
	const uint64_t nchunks = region / C;
	const uint64_t nk = l2 ? (uint64_t)(L2_BYTES_PER_LAUNCH / C / grid) + 1 : 0;
	Timing tm =
	    time_launches([&] { k_tma_read<<<grid, 32, smem>>>(d_src, nchunks, nk, C, S, map, d_partial); });
	const bool ok = sum_partials(grid) == tma_read_expected(nchunks, C, map, grid, nk);
	const double bytes = l2 ? (double)nk * C * grid : (double)region;
	if (l2)
		report(kind, "tma", params, bytes, tm, L2_TARGET_GBS, "10TB/s", ok, best);
	else
		report(kind, "tma", params, bytes, tm, g_read_anchor, "simple-read", ok, best);
}

// ---------------------------------------------------------------- LDG/STG sweeps
typedef void (*copy_fn)(const uint4 *, uint4 *, uint64_t, int);
typedef void (*write_fn)(uint4 *, uint64_t, int, uint32_t);
typedef void (*read_fn)(const uint4 *, uint64_t, int, uint32_t *);

static const char *ld_name[] = {"ld", "ld.nc.na.256B", "ld.256B", "ld.cs", "ld.cg", "ld.nc.ef.256B"};
static const char *st_name[] = {"st", "st.cs", "st.na", "st.ef"};

// the (U, threads, CTAs/SM) shapes the LDG/STG sweeps use; each is its own instantiation
#define SHAPE_PICK(F, ...)                                                                                   \
	do {                                                                                                 \
		if (U == 2 && NT == 256 && cps == 4)                                                         \
			return (void *)F<__VA_ARGS__, 2, 256, 4>;                                            \
		if (U == 4 && NT == 512 && cps == 2)                                                         \
			return (void *)F<__VA_ARGS__, 4, 512, 2>;                                            \
		if (U == 4 && NT == 256 && cps == 4)                                                         \
			return (void *)F<__VA_ARGS__, 4, 256, 4>;                                            \
		if (U == 4 && NT == 512 && cps == 1)                                                         \
			return (void *)F<__VA_ARGS__, 4, 512, 1>;                                            \
		if (U == 8 && NT == 512 && cps == 2)                                                         \
			return (void *)F<__VA_ARGS__, 8, 512, 2>;                                            \
		if (U == 8 && NT == 512 && cps == 1)                                                         \
			return (void *)F<__VA_ARGS__, 8, 512, 1>;                                            \
		if (U == 8 && NT == 256 && cps == 4)                                                         \
			return (void *)F<__VA_ARGS__, 8, 256, 4>;                                            \
		return nullptr;                                                                              \
	} while (0)

template <int LD, int ST> static void *pick_copy_ls(int U, int NT, int cps)
{
	SHAPE_PICK(k_copy, LD, ST);
}
template <int ST> static void *pick_write_s(int U, int NT, int cps)
{
	SHAPE_PICK(k_write, ST);
}
template <int LD> static void *pick_read_l(int U, int NT, int cps)
{
	SHAPE_PICK(k_read, LD);
}

static void *need(void *f, const char *what)
{
	if (!f) {
		fprintf(stderr, "bw_sweep: no %s kernel for this shape (add it to SHAPE_PICK)\n", what);
		exit(2);
	}
	return f;
}
static copy_fn pick_copy(int ld, int st, int U, int NT, int cps)
{
	void *f = nullptr;
	if (ld == 1 && st == 1)
		f = pick_copy_ls<1, 1>(U, NT, cps);
	else if (ld == 1 && st == 2)
		f = pick_copy_ls<1, 2>(U, NT, cps);
	else if (ld == 2 && st == 1)
		f = pick_copy_ls<2, 1>(U, NT, cps);
	else if (ld == 5 && st == 3)
		f = pick_copy_ls<5, 3>(U, NT, cps);
	return (copy_fn)need(f, "copy");
}
static write_fn pick_write(int st, int U, int NT, int cps)
{
	void *f = st == 0   ? pick_write_s<0>(U, NT, cps)
		  : st == 1 ? pick_write_s<1>(U, NT, cps)
		  : st == 2 ? pick_write_s<2>(U, NT, cps)
			    : pick_write_s<3>(U, NT, cps);
	return (write_fn)need(f, "write");
}
static read_fn pick_read(int ld, int U, int NT, int cps)
{
	void *f = ld == 0   ? pick_read_l<0>(U, NT, cps)
		  : ld == 1 ? pick_read_l<1>(U, NT, cps)
		  : ld == 2 ? pick_read_l<2>(U, NT, cps)
			    : pick_read_l<3>(U, NT, cps);
	return (read_fn)need(f, "read");
}

static void ldg_copy_one(int ld, int st, int U, int cps, int threads, int map)
{
	copy_fn fn = pick_copy(ld, st, U, threads, cps);
	char params[96];
	snprintf(params, sizeof params, "%s %s U=%d cps=%d thr=%d map=%s", ld_name[ld], st_name[st], U, cps,
		 threads, map == 0 ? "block" : "gstride");
	if (dry("copy", "ldg", params))
		return;
	if (occupancy((const void *)fn, threads, 0) < cps) {
		report_skip("copy", "ldg", params, "occupancy");
		return;
	}
	const int grid = g_sms * cps;
	poison_dst();
	Timing tm = time_launches(
	    [&] { fn<<<grid, threads>>>((const uint4 *)d_src, (uint4 *)d_dst, BUF_BYTES / 16, map); });
	report("copy", "ldg", params, 2.0 * BUF_BYTES, tm, g_memcpy_gbs, "memcpy", check_copy(), &best_copy);
}

static void ldg_write_one(int st, int U, int cps, int threads, int map, uint32_t seed)
{
	write_fn fn = pick_write(st, U, threads, cps);
	char params[96];
	snprintf(params, sizeof params, "%s U=%d cps=%d thr=%d map=%s", st_name[st], U, cps, threads,
		 map == 0 ? "block" : "gstride");
	if (dry("write", "ldg", params))
		return;
	if (occupancy((const void *)fn, threads, 0) < cps) {
		report_skip("write", "ldg", params, "occupancy");
		return;
	}
	const int grid = g_sms * cps;
	poison_dst();
	Timing tm = time_launches([&] { fn<<<grid, threads>>>((uint4 *)d_dst, BUF_BYTES / 16, map, seed); });
	CK(cudaMemset(d_bad, 0, sizeof(unsigned long long)));
	k_check_lin<<<g_sms * 8, 256>>>((const uint32_t *)d_dst, BUF_BYTES / 4, seed, d_bad);
	CK(cudaGetLastError());
	const bool ok = read_bad() == 0;
	report("write", "ldg", params, (double)BUF_BYTES, tm, g_memset_gbs, "memset", ok, &best_write,
	       DATASHEET_GBS, "4800");
}

// returns GB/s; anchor = 0 means "do not print yet" (the simple reads are the read anchor)
static double ldg_read_one(int ld, int U, int cps, int threads, int map, bool print)
{
	read_fn fn = pick_read(ld, U, threads, cps);
	char params[96];
	snprintf(params, sizeof params, "%s U=%d cps=%d thr=%d map=%s", ld_name[ld], U, cps, threads,
		 map == 0 ? "block" : "gstride");
	if (g_dry && !print)
		return 1;
	if (dry("read", map == 1 && (ld == 0 || ld == 3) ? "simple" : "ldg", params))
		return 0;
	if (occupancy((const void *)fn, threads, 0) < cps) {
		report_skip("read", "ldg", params, "occupancy");
		return 0;
	}
	const int grid = g_sms * cps;
	Timing tm = time_launches(
	    [&] { fn<<<grid, threads>>>((const uint4 *)d_src, BUF_BYTES / 16, map, d_partial); });
	const bool ok = sum_partials(grid) == g_src_sum;
	const double gbs = (double)BUF_BYTES / (tm.med_ms * 1e-3) / 1e9;
	if (print)
		report("read", map == 1 && (ld == 0 || ld == 3) ? "simple" : "ldg", params, (double)BUF_BYTES,
		       tm, g_read_anchor, "simple-read", ok, &best_read);
	else if (!ok) {
		printf("read  simple    %-40s CHECK FAIL\n", params);
		g_fail = 1;
		return 0;
	}
	return gbs;
}

// ---------------------------------------------------------------- L2 sweep
typedef void (*l2_fn)(const char *, uint32_t, int, uint32_t, int, uint32_t *);

static l2_fn pick_l2(int U, int NT, bool full)
{
	if (full) // CTAs of NT threads filling 2048 threads per SM
		return NT == 1024 ? k_l2<8, 1024, 2> : NT == 512 ? k_l2<8, 512, 4> : k_l2<8, 256, 8>;
	if (U == 8)
		return NT == 1024 ? k_l2<8, 1024, 1> : NT == 512 ? k_l2<8, 512, 1> : k_l2<8, 256, 1>;
	return NT == 512 ? k_l2<16, 512, 1> : k_l2<16, 256, 1>;
}

// full: the kernel built with launch bounds for 2048 threads per SM (U = 8, cps = 2048 / NT)
static void l2_one(size_t set_mb, int whole, int U, int NT, int cps, bool full = false)
{
	l2_fn fn = pick_l2(U, NT, full);
	char params[96];
	const int grid = g_sms * cps;
	const size_t set = set_mb << 20;
	uint32_t Z;
	uint64_t P;
	if (whole) {
		Z = (uint32_t)set;
		P = (uint64_t)grid * NT;
	} else {
		Z = (uint32_t)((set / grid) & ~(size_t)511);
		P = NT;
	}
	snprintf(params, sizeof params, "set=%zuMB %s U=%d thr=%d cps=%d%s", set_mb,
		 whole ? "whole" : "slice", U, NT, cps, full ? " lb=full" : "");
	if (dry("l2", "ldg.cg", params))
		return;
	if (occupancy((const void *)fn, NT, 0) < cps) {
		report_skip("l2", "ldg.cg", params, "occupancy");
		return;
	}
	const uint32_t D = (uint32_t)((P * U * 16) % Z);
	const double per_step = (double)grid * NT * U * 16;
	const int nsteps = (int)(L2_BYTES_PER_LAUNCH / per_step) + 1;
	k_l2_ref<<<grid, NT>>>(d_src, Z, whole, D, nsteps, U, d_partial);
	CK(cudaGetLastError());
	const uint32_t expect = sum_partials(grid);
	Timing tm = time_launches([&] { fn<<<grid, NT>>>(d_src, Z, whole, D, nsteps, d_partial); });
	const bool ok = sum_partials(grid) == expect;
	report("l2", "ldg.cg", params, per_step * nsteps, tm, L2_TARGET_GBS, "10TB/s", ok, &best_l2);
}

// ---------------------------------------------------------------- --copy2: copy experiments
// Runs only the memcpy anchor, the best copy of the second sweep and these groups:
//   place  memcpy D2D and the best copy with dst at src + size + offset in one allocation
//   pf     L2 prefetch-ahead copy (k_pf_copy)
//   sms    the best copy on fewer blocks (static grid) or on fewer SMs (k_copy_sms)
//   burst  read-burst / write-burst through 96-192 KiB of shared memory (k_burst_ldg/_tma)
//   lgs    cp.async 16-byte ring (k_lgs_copy)
static char *d_big;			       // src at d_big, dst at d_big + BUF_BYTES + offset
static const size_t BIG_BYTES = 2 * BUF_BYTES + BUF_BYTES / 2 + ((size_t)64 << 10);
static const int NCTR = 64;		       // per-launch tile counters of k_copy_sms
static unsigned long long *d_ctr;
static uint32_t *d_smmask;		       // 256 bits: SMs that copied (k_copy_sms)
static const double PF_L2_LIMIT = 72e6; // prefetched-ahead bytes allowed (L2 is 60 MB: a few beyond it)
static_assert(WARMUP + REPS <= NCTR, "one counter per launch");

// time the copy d_src -> d_dst one launch does, check it, print it; GB/s (0 in --dry or skipped)
template <class F>
static double copy2_time(const char *variant, const char *params, F launch, double anchor2 = 0,
			 const char *anchor2_name = nullptr)
{
	poison_dst();
	const Timing tm = time_launches(launch);
	report("copy", variant, params, 2.0 * BUF_BYTES, tm, g_memcpy_gbs, "memcpy", check_copy(), &best_copy,
	       anchor2, anchor2_name);
	return 2.0 * BUF_BYTES / (tm.med_ms * 1e-3) / 1e9;
}
template <class F>
static double copy2_one(const char *variant, const char *params, F launch, double anchor2 = 0,
			const char *anchor2_name = nullptr)
{
	if (dry("copy", variant, params))
		return 0;
	return copy2_time(variant, params, launch, anchor2, anchor2_name);
}

// the best copy configuration of the second sweep (3951 GB/s = 0.93 of memcpy there)
#define BEST_COPY k_copy<1, 1, 4, 512, 2>
static const char *BEST_PARAMS = "ld.nc.na.256B st.cs U=4 cps=2 thr=512 map=gstride";

static bool smem_ok(const char *variant, const char *params, const void *fn, int threads, size_t smem,
		    int cps)
{
	if (!set_smem(fn, smem)) {
		(void)cudaGetLastError();
		report_skip("copy", variant, params, "smem too large");
		return false;
	}
	if (occupancy(fn, threads, smem) < cps) {
		report_skip("copy", variant, params, "occupancy");
		return false;
	}
	return true;
}

static void copy2_prefetch(int map, int cps, uint32_t ckb, int D)
{
	typedef void (*pf_fn)(const uint4 *, uint4 *, uint64_t, uint32_t, int, int);
	pf_fn fn = cps == 1 ? k_pf_copy<512, 4, 1> : k_pf_copy<512, 4, 2>;
	const uint32_t C = ckb << 10;
	const int grid = g_sms * cps;
	char params[96];
	snprintf(params, sizeof params, "C=%uK D=%d ahead=%.0fMB cps=%d thr=512 U=4 map=%s", ckb, D,
		 (double)grid * D * C / 1e6, cps, map_name(map));
	if (C % (512 * 4 * 16) || C % PF_PIECE || C / PF_PIECE > 512 || BUF_BYTES % C) {
		fprintf(stderr, "bw_sweep: bad prefetch chunk %u\n", C); // a bug in the list below
		exit(2);
	}
	if (dry("copy", "pf", params))
		return;
	if (occupancy((const void *)fn, 512, 0) < cps) {
		report_skip("copy", "pf", params, "occupancy");
		return;
	}
	const uint64_t nchunks = BUF_BYTES / C;
	poison_dst();
	const Timing tm = time_launches(
	    [&] { fn<<<grid, 512>>>((const uint4 *)d_src, (uint4 *)d_dst, nchunks, C, D, map); });
	report("copy", "pf", params, 2.0 * BUF_BYTES, tm, g_memcpy_gbs, "memcpy", check_copy(), &best_copy);
}

static void copy2_sms(int nsm)
{
	char params[96];
	snprintf(params, sizeof params, "%s SMs=%d (smid<%d, dynamic tiles)", "best kernel", nsm, nsm);
	if (dry("copy", "sms", params))
		return;
	if (nsm > g_sms) {
		report_skip("copy", "sms", params, "fewer SMs on this GPU");
		return;
	}
	auto fn = k_copy_sms<4, 512, 2>;
	if (occupancy((const void *)fn, 512, 0) < 2) {
		report_skip("copy", "sms", params, "occupancy");
		return;
	}
	CK(cudaMemset(d_ctr, 0, NCTR * sizeof(unsigned long long)));
	CK(cudaMemset(d_smmask, 0, 8 * sizeof(uint32_t)));
	int slot = 0;
	poison_dst();
	const Timing tm = time_launches([&] {
		fn<<<2 * g_sms, 512>>>((const uint4 *)d_src, (uint4 *)d_dst, BUF_BYTES / 16, (uint32_t)nsm,
				       d_ctr + slot, d_smmask);
		slot++;
	});
	report("copy", "sms", params, 2.0 * BUF_BYTES, tm, g_memcpy_gbs, "memcpy", check_copy(), &best_copy);
	uint32_t mask[8];
	CK(cudaMemcpy(mask, d_smmask, sizeof mask, cudaMemcpyDeviceToHost));
	int used = 0;
	for (uint32_t w : mask)
		used += __builtin_popcount(w);
	printf("#   SMs that copied in the runs above: %d (blocks per copying SM: up to 2)\n", used);
}

static void copy2_burst_ldg(int NL)
{
	typedef void (*b_fn)(const uint4 *, uint4 *, uint64_t);
	b_fn fn = NL == 12 ? k_burst_ldg<12> : NL == 16 ? k_burst_ldg<16> : k_burst_ldg<24>;
	const size_t B = (size_t)NL * 512 * 16;
	char params[96];
	snprintf(params, sizeof params, "ld.nc.na.256B->smem %zuK, sync, st.cs; cps=1 thr=512", B >> 10);
	if (dry("copy", "burst", params))
		return;
	if (!smem_ok("burst", params, (const void *)fn, 512, B, 1))
		return;
	copy2_time("burst", params,
		  [&] { fn<<<g_sms, 512, B>>>((const uint4 *)d_src, (uint4 *)d_dst, BUF_BYTES / 16); });
}

static void copy2_burst_tma(uint32_t bkb)
{
	const uint32_t B = bkb << 10;
	char params[96];
	snprintf(params, sizeof params, "bulk g2s %uK, wait, bulk s2g; cps=1", bkb);
	if (dry("copy", "burst", params))
		return;
	if (!smem_ok("burst", params, (const void *)k_burst_tma, 32, B, 1))
		return;
	copy2_time("burst", params, [&] { k_burst_tma<<<g_sms, 32, B>>>(d_src, d_dst, BUF_BYTES, B); });
}

static void copy2_lgs(int S, int U, int NT, int cps)
{
	typedef void (*l_fn)(const uint4 *, uint4 *, uint64_t);
	l_fn fn = nullptr;
	if (S == 4 && U == 4 && NT == 512 && cps == 1)
		fn = k_lgs_copy<4, 4, 512, 1>;
	else if (S == 4 && U == 2 && NT == 512 && cps == 2)
		fn = k_lgs_copy<4, 2, 512, 2>;
	else if (S == 4 && U == 4 && NT == 256 && cps == 2)
		fn = k_lgs_copy<4, 4, 256, 2>;
	else if (S == 8 && U == 2 && NT == 512 && cps == 1)
		fn = k_lgs_copy<8, 2, 512, 1>;
	need((void *)fn, "cp.async copy");
	const size_t smem = (size_t)NT * S * U * 16;
	char params[96];
	snprintf(params, sizeof params, "cp.async.cg S=%d U=%d cps=%d thr=%d smem=%zuK, st.cs", S, U, cps, NT,
		 smem >> 10);
	if (dry("copy", "lgs", params))
		return;
	if (!smem_ok("lgs", params, (const void *)fn, NT, smem, cps))
		return;
	copy2_time("lgs", params,
		  [&] { fn<<<g_sms * cps, NT, smem>>>((const uint4 *)d_src, (uint4 *)d_dst, BUF_BYTES / 16); });
}

static void run_copy2()
{
	char *sep_src = d_src, *sep_dst = d_dst;
	// ---- anchors: memcpy D2D and the best copy of the second sweep, separate allocations
	if (!dry("copy", "memcpy", "cudaMemcpyAsync D2D (anchor)")) {
		poison_dst();
		const Timing tcp = time_launches(
		    [&] { CK(cudaMemcpyAsync(d_dst, d_src, BUF_BYTES, cudaMemcpyDeviceToDevice)); });
		g_memcpy_gbs = 2.0 * BUF_BYTES / (tcp.med_ms * 1e-3) / 1e9;
		report("copy", "memcpy", "cudaMemcpyAsync D2D (anchor)", 2.0 * BUF_BYTES, tcp, g_memcpy_gbs,
		       "memcpy", check_copy(), nullptr);
	}
	copy2_one("ldg", BEST_PARAMS, [&] {
		BEST_COPY<<<2 * g_sms, 512>>>((const uint4 *)d_src, (uint4 *)d_dst, BUF_BYTES / 16, 1);
	});

	// ---- 1. placement: dst = src + size + offset inside one allocation (and separate again)
	struct Place {
		const char *name;
		size_t off;
	};
	const size_t K = 1024, M = K * K;
	const Place places[] = {{"separate", 0},	 {"src+size+0", 0},	  {"src+size+4K", 4 * K},
				{"src+size+64K", 64 * K}, {"src+size+1M+4K", M + 4 * K},
				{"src+size+2M+8K", 2 * M + 8 * K},
				{"src+size+size/2+12K", BUF_BYTES / 2 + 12 * K}};
	for (const Place &p : places) {
		const bool sep = p.name[0] == 's' && p.name[1] == 'e';
		d_src = sep ? sep_src : d_big;
		d_dst = sep ? sep_dst : d_big + BUF_BYTES + p.off;
		char params[96];
		snprintf(params, sizeof params, "place dst=%s D2D", p.name);
		const double m = copy2_one("memcpy", params, [&] {
			CK(cudaMemcpyAsync(d_dst, d_src, BUF_BYTES, cudaMemcpyDeviceToDevice));
		});
		snprintf(params, sizeof params, "place dst=%s best kernel", p.name);
		copy2_one(
		    "ldg", params,
		    [&] { BEST_COPY<<<2 * g_sms, 512>>>((const uint4 *)d_src, (uint4 *)d_dst, BUF_BYTES / 16, 1); },
		    m, "memcpy same place");
	}
	d_src = sep_src;
	d_dst = sep_dst;

	// ---- 2. L2 prefetch-ahead copy
	for (int map : {1, 0})
		for (int cps : {1, 2})
			for (uint32_t ckb : {32u, 64u, 128u})
				for (int D : {0, 1, 2, 4}) {
					if (map == 0 && !(ckb == 64 && (D == 0 || D == 2)))
						continue;
					if ((double)g_sms * cps * D * (ckb << 10) > PF_L2_LIMIT)
						continue; // the prefetched chunks would not fit in L2
					copy2_prefetch(map, cps, ckb, D);
				}

	// ---- 3. fewer blocks (static grid-stride grid of 2 x N blocks) and fewer SMs (smid < N)
	for (int n : {66, 100, 120, 128, 132}) {
		char params[96];
		snprintf(params, sizeof params, "best kernel grid=2x%d blocks (static)", n);
		if (!g_dry && n > g_sms) {
			report_skip("copy", "blocks", params, "fewer SMs on this GPU");
			continue;
		}
		copy2_one("blocks", params, [&] {
			BEST_COPY<<<2 * n, 512>>>((const uint4 *)d_src, (uint4 *)d_dst, BUF_BYTES / 16, 1);
		});
	}
	for (int n : {66, 100, 120, 128, 132})
		copy2_sms(n);

	// ---- 4. read burst / write burst per SM through shared memory
	for (int NL : {12, 16, 24})
		copy2_burst_ldg(NL);
	for (uint32_t bkb : {96u, 128u, 192u})
		copy2_burst_tma(bkb);

	// ---- 5. cp.async (LDGSTS) ring: loads in flight without registers
	copy2_lgs(4, 4, 512, 1);
	copy2_lgs(4, 2, 512, 2);
	copy2_lgs(4, 4, 256, 2);
	copy2_lgs(8, 2, 512, 1);
}

// ---------------------------------------------------------------- main
struct Occ {
	int cps, thr; // CTAs per SM, threads per CTA
};

int main(int argc, char **argv)
{
	bool quick = false, copy2 = false;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--quick"))
			quick = true;
		else if (!strcmp(argv[i], "--dry"))
			g_dry = true;
		else if (!strcmp(argv[i], "--copy2"))
			copy2 = true;
		else {
			fprintf(stderr,
				"bw_sweep: unknown argument '%s' (usage: bw_sweep [--quick | --copy2] [--dry])\n",
				argv[i]);
			return 2;
		}
	}
	g_sms = 132; // --dry lists the H200's grid sizes
	if (!g_dry) {
		int dev = 0;
		CK(cudaGetDevice(&dev));
		cudaDeviceProp prop;
		CK(cudaGetDeviceProperties(&prop, dev));
		g_sms = prop.multiProcessorCount;
		int smem_optin = 0, drv = 0, rt = 0;
		CK(cudaDeviceGetAttribute(&smem_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
		CK(cudaDriverGetVersion(&drv));
		CK(cudaRuntimeGetVersion(&rt));
		printf("# bw_sweep: %s, cc %d.%d, %d SMs, L2 %d MB, smem opt-in %d KB/block, driver API %d, "
		       "runtime %d%s\n",
		       prop.name, prop.major, prop.minor, g_sms, prop.l2CacheSize >> 20, smem_optin >> 10,
		       drv, rt, copy2 ? ", --copy2" : quick ? ", --quick" : "");
		printf("# buffers 2 x %zu MiB; %d warm-ups, median of %d [min, max]; copy bytes = 2 x size; "
		       "GB = 1e9 B\n",
		       BUF_BYTES >> 20, WARMUP, REPS);
		if (prop.major != 9) {
			fprintf(stderr, "bw_sweep: needs a cc 9.x GPU (built for sm_90a), found %d.%d\n",
				prop.major, prop.minor);
			return 2;
		}
		if (g_sms * 16 > MAX_BLOCKS) {
			fprintf(stderr, "bw_sweep: too many SMs (%d)\n", g_sms);
			return 2;
		}
		CK(cudaMalloc(&d_src, BUF_BYTES));
		CK(cudaMalloc(&d_dst, BUF_BYTES));
		CK(cudaMalloc(&d_partial, MAX_BLOCKS * sizeof(uint32_t)));
		CK(cudaMalloc(&d_ref, sizeof(uint32_t)));
		CK(cudaMalloc(&d_bad, sizeof(unsigned long long)));
		CK(cudaMalloc(&d_samples, (BUF_BYTES / 4096) * sizeof(uint32_t))); // chunks of >= 4 KB
		CK(cudaEventCreate(&ev0));
		CK(cudaEventCreate(&ev1));

		k_fill<<<g_sms * 8, 256>>>((uint32_t *)d_src, BUF_BYTES / 4);
		CK(cudaGetLastError());
		CK(cudaMemset(d_ref, 0, sizeof(uint32_t)));
		k_ref_sum<<<g_sms * 8, 256>>>((const uint32_t *)d_src, BUF_BYTES / 4, d_ref);
		CK(cudaGetLastError());
		CK(cudaMemcpy(&g_src_sum, d_ref, sizeof g_src_sum, cudaMemcpyDeviceToHost));
		if (copy2) { // one buffer for the placement runs: src at its start (same data)
			CK(cudaMalloc(&d_big, BIG_BYTES));
			CK(cudaMalloc(&d_ctr, NCTR * sizeof(unsigned long long)));
			CK(cudaMalloc(&d_smmask, 8 * sizeof(uint32_t)));
			k_fill<<<g_sms * 8, 256>>>((uint32_t *)d_big, BUF_BYTES / 4);
			CK(cudaGetLastError());
			CK(cudaDeviceSynchronize());
			printf("# --copy2: placement runs use one more allocation of %zu MiB (src at its start, "
			       "dst at src + size + offset); every ratio is against memcpy D2D of this run\n",
			       BIG_BYTES >> 20);
		}
	}
	if (copy2) {
		run_copy2();
		if (g_dry) {
			printf("# %d configurations\n", g_nconf);
			return 0;
		}
		printf("BEST %s\n", best_copy.line[0] ? best_copy.line : "copy: none");
		printf("# anchor: memcpy D2D %.1f GB/s (separate allocations)\n", g_memcpy_gbs);
		printf("# %d configurations; %s\n", g_nconf, g_fail ? "SOME CHECKS FAILED" : "all checks ok");
		CK(cudaFree(d_big));
		CK(cudaFree(d_src));
		CK(cudaFree(d_dst));
		return g_fail ? 1 : 0;
	}
	if (!g_dry) {
		// anchors
		poison_dst();
		Timing tcp = time_launches(
		    [&] { CK(cudaMemcpyAsync(d_dst, d_src, BUF_BYTES, cudaMemcpyDeviceToDevice)); });
		g_memcpy_gbs = 2.0 * BUF_BYTES / (tcp.med_ms * 1e-3) / 1e9;
		report("copy", "memcpy", "cudaMemcpyAsync D2D (anchor)", 2.0 * BUF_BYTES, tcp, g_memcpy_gbs,
		       "memcpy", check_copy(), nullptr);
		Timing tms = time_launches([&] { CK(cudaMemsetAsync(d_dst, 0x5A, BUF_BYTES)); });
		g_memset_gbs = (double)BUF_BYTES / (tms.med_ms * 1e-3) / 1e9;
		CK(cudaMemset(d_bad, 0, sizeof(unsigned long long)));
		k_check_const<<<g_sms * 8, 256>>>((const uint32_t *)d_dst, BUF_BYTES / 4, 0x5A5A5A5Au, d_bad);
		CK(cudaGetLastError());
		report("write", "memset", "cudaMemsetAsync (anchor)", (double)BUF_BYTES, tms, g_memset_gbs,
		       "memset", read_bad() == 0, nullptr, DATASHEET_GBS, "4800");
	}

	// ---- read: the simple grid-stride reads first (their best is the read anchor)
	struct RdCfg {
		int ld, U, cps, thr;
	};
	std::vector<RdCfg> simple = {{0, 4, 2, 512}, {0, 8, 2, 512}, {0, 8, 4, 256},
				     {3, 4, 2, 512}, {3, 8, 2, 512}, {3, 8, 4, 256}};
	if (quick)
		simple = {{0, 8, 2, 512}, {3, 8, 4, 256}};
	for (const RdCfg &c : simple)
		g_read_anchor = std::max(g_read_anchor, ldg_read_one(c.ld, c.U, c.cps, c.thr, 1, false));
	if (g_read_anchor <= 0) {
		fprintf(stderr, "bw_sweep: no simple read kernel passed its check\n");
		return 1;
	}
	for (const RdCfg &c : simple) // measured again, now printed with the ratio
		ldg_read_one(c.ld, c.U, c.cps, c.thr, 1, true);
	for (int ld : {1, 2})
		for (int U : {4, 8})
			for (int map : {0, 1})
				for (const Occ &o : {Occ{2, 512}, Occ{4, 256}}) {
					if (quick && (U == 4 || o.cps == 4))
						continue;
					ldg_read_one(ld, U, o.cps, o.thr, map, true);
				}
	for (int ckb : {16, 32})
		for (int S : {3, 4})
			for (int cps : {1, 2})
				for (int map : {1, 0}) {
					if (map == 0 && cps == 2)
						continue;
					if (quick && (cps == 2 || map == 0 || S == 3))
						continue;
					tma_read_one("read", ckb, S, cps, map, BUF_BYTES, &best_read);
				}

	// ---- copy: LDG/STG with hints
	{
		struct CpCfg {
			int ld, st;
		};
		// (U, map, CTAs/SM, threads)
		struct Shape {
			int U, map, cps, thr;
		};
		const CpCfg lds[] = {{1, 1}, {1, 2}, {2, 1}, {5, 3}};
		const Shape shapes[] = {{2, 0, 4, 256}, {4, 0, 2, 512}, {4, 0, 4, 256}, {4, 0, 1, 512},
					{8, 0, 2, 512}, {8, 0, 1, 512}, {4, 1, 2, 512}};
		for (const CpCfg &c : lds)
			for (const Shape &h : shapes) {
				if (quick && !(h.U == 4 && h.map == 0 && h.cps != 1) &&
				    !(h.U == 8 && h.cps == 2))
					continue;
				ldg_copy_one(c.ld, c.st, h.U, h.cps, h.thr, h.map);
			}
	}
	// ---- copy: TMA bulk ring
	for (int cps : {1, 2, 4})
		for (int ckb : {8, 16, 32, 64})
			for (int S : {2, 3, 4})
				for (int L : {0, 1}) {
					if ((size_t)cps * S * (ckb << 10) > (size_t)220 << 10)
						continue; // cannot be resident
					if (L == 1 && S != 4)
						continue;
					if (cps == 4 && (S == 2 || ckb > 16))
						continue;
					for (int map : {1, 0}) {
						if (map == 0 && (L == 1 || S != 4))
							continue;
						if (quick && (map == 0 || S == 3 || ckb == 8 || cps == 4))
							continue;
						tma_copy_one(ckb, S, L, cps, map);
					}
				}

	// the same ring with an L2 evict_first policy on both copies
	for (int ckb : {16, 32})
		for (int L : {0, 1})
			for (int cps : {1, 2}) {
				if ((size_t)cps * 4 * (ckb << 10) > (size_t)220 << 10)
					continue;
				if (quick && (L == 1 || cps == 2))
					continue;
				tma_copy_one(ckb, 4, L, cps, 1, 1);
			}

	// ---- write: STG with hints
	uint32_t seed = 0x5EED0001u;
	{
		struct Shape {
			int U, map, cps, thr;
		};
		const Shape shapes[] = {
		    {2, 0, 4, 256}, {4, 0, 2, 512}, {4, 0, 4, 256}, {8, 0, 2, 512}, {4, 1, 2, 512}};
		for (int st : {1, 2, 3, 0})
			for (const Shape &h : shapes) {
				if (quick && !(h.U == 4 && h.map == 0 && h.cps == 2) && !(h.U == 8))
					continue;
				ldg_write_one(st, h.U, h.cps, h.thr, h.map, seed++);
			}
	}
	// ---- write: TMA bulk stores of one tile
	for (int ckb : {4, 8, 16, 32, 64})
		for (int D : {1, 4, 8})
			for (int cps : {1, 2})
				for (int map : {1, 0}) {
					if (map == 0 && (cps == 2 || D != 4))
						continue;
					if (cps == 2 && D != 4)
						continue;
					if (D == 8 && ckb != 16 && ckb != 64)
						continue;
					if (quick &&
					    (D == 1 || cps == 2 || ckb == 4 || ckb == 64 || map == 0))
						continue;
					tma_write_one(ckb, D, cps, map, seed++);
				}

	// ---- L2
	for (size_t mb : {4, 8, 16, 24, 32}) {
		if (quick && mb != 8 && mb != 24)
			continue;
		for (int whole : {1, 0}) {
			l2_one(mb, whole, 8, 1024, 1);
			l2_one(mb, whole, 8, 256, 8, true);
			if (!quick)
				l2_one(mb, whole, 16, 512, 1);
		}
		for (int ckb : {16, 32})
			if (!quick || ckb == 16)
				tma_read_one("l2", ckb, 4, 1, 2, mb << 20, &best_l2);
	}

	if (g_dry) {
		printf("# %d configurations\n", g_nconf);
		return 0;
	}
	printf("# best of each kind (CHECK ok only):\n");
	printf("BEST %s\n", best_read.line[0] ? best_read.line : "read: none");
	printf("BEST %s\n", best_copy.line[0] ? best_copy.line : "copy: none");
	printf("BEST %s\n", best_write.line[0] ? best_write.line : "write: none");
	printf("BEST %s\n", best_l2.line[0] ? best_l2.line : "l2: none");
	printf("# anchors: memcpy D2D %.1f GB/s, memset %.1f GB/s, simple read %.1f GB/s; datasheet %.0f, L2 "
	       "target %.0f\n",
	       g_memcpy_gbs, g_memset_gbs, g_read_anchor, DATASHEET_GBS, L2_TARGET_GBS);
	printf("# %d configurations; %s\n", g_nconf, g_fail ? "SOME CHECKS FAILED" : "all checks ok");
	CK(cudaFree(d_src));
	CK(cudaFree(d_dst));
	return g_fail ? 1 : 0;
}
