/* The L2 flush of user replay (src/capture/replay.c), compiled to PTX twice at build time —
 * for compute_75 (l2flush_ptx.h) and compute_80 (l2flush80_ptx.h, with the discard) — and
 * embedded in the injection library as text, then JIT-compiled by the driver in the profiled
 * program's context: the library links no CUDA runtime and runs on any GPU from Turing on.
 *
 * Why a read: before each counter pass the L2 must hold nothing dirty, or the write-back of
 * lines that the memory restore (or the previous pass) left dirty lands in the pass and is
 * counted as the kernel's DRAM writes (ncu flushes its caches before each pass by default,
 * --cache-control all). Reading a buffer twice the size of the L2 evicts every line, writing
 * back the dirty ones during the flush, and leaves only clean lines of the flush buffer. A
 * write-based flush would leave dirty lines of its own. The loads go through L2 only
 * (ld.global.cg); the one store is never taken in practice (the buffer is zeroed once, so the
 * xor of its words is 0; after a discard its words are indeterminate and the store lands in
 * the buffer, whose lines the next discard drops), but the compiler cannot know that, so the
 * loads stay.
 *
 * Why the discard (sm_80 on): ncu's cache control invalidates L2, so a pass starts with empty
 * lines; after the read the L2 is full of clean lines instead, which the kernel's own lines
 * must displace, and the replacement can evict some of the kernel's dirty lines earlier than
 * on an empty cache (a register-limited kernel counted 256 B of DRAM writes against ncu's 0;
 * with the discard, 0 — H100, docs/kernel-metrics.md). discard.global.L2 drops the flush
 * buffer's lines without writing them back, leaving the L2 as ncu's invalidation does. (What
 * remains of a GEMM's +4 % DRAM writes is the profiler's own start: rangeprof.c, run_passes.) */
extern "C" __global__ void gpudiag_l2_flush(const uint4 *__restrict__ p, unsigned long long n, unsigned *sink)
{
	uint4 acc = make_uint4(0, 0, 0, 0);
	for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
	     i += (unsigned long long)gridDim.x * blockDim.x) {
		uint4 v = __ldcg(p + i);
		acc.x ^= v.x, acc.y ^= v.y, acc.z ^= v.z, acc.w ^= v.w;
	}
	if ((acc.x ^ acc.y ^ acc.z ^ acc.w) == 0x9e3779b9u)
		*sink = 1u;
}

/* Drops every 128-byte line of the flush buffer from L2, without a write-back (the buffer's
 * contents become indeterminate, which nothing reads for its value). Empty below sm_80, where
 * the instruction does not exist: replay.c launches it only from the compute_80 PTX. */
extern "C" __global__ void gpudiag_l2_discard(const char *__restrict__ p, unsigned long long lines)
{
#if __CUDA_ARCH__ >= 800
	for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < lines;
	     i += (unsigned long long)gridDim.x * blockDim.x)
		asm volatile("discard.global.L2 [%0], 128;" ::"l"(p + i * 128) : "memory");
#else
	(void)p, (void)lines;
#endif
}
