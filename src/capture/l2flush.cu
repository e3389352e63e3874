/* The L2 flush of user replay (src/capture/replay.c), compiled to PTX for compute_75 at build
 * time and embedded in the injection library as text (l2flush_ptx.h), then JIT-compiled by the
 * driver in the profiled program's context: the library links no CUDA runtime and runs on any
 * GPU from Turing on.
 *
 * Why a read: before each counter pass the L2 must hold nothing dirty, or the write-back of
 * lines that the memory restore (or the previous pass) left dirty lands in the pass and is
 * counted as the kernel's DRAM writes (ncu flushes its caches before each pass by default,
 * --cache-control all). Reading a buffer twice the size of the L2 evicts every line, writing
 * back the dirty ones during the flush, and leaves only clean lines of the flush buffer: the
 * kernel then starts cold, as under ncu. A write-based flush would leave dirty lines of its
 * own. The loads go through L2 only (ld.global.cg); the one store is never taken (the buffer
 * is zeroed once, so the xor of its words is 0), but the compiler cannot know that, so the
 * loads stay. */
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
