// Accuracy suite, CLEAN: two non-blocking streams, each running a 128-block latency-bound
// kernel, side by side, 1000 times each.
//
// Why it is well written: both streams are created with cudaStreamNonBlocking, nothing runs on
// the legacy default stream, the host never synchronises inside the loop (one
// cudaDeviceSynchronize at the end, then one pinned asynchronous copy of the result). Each grid
// is 128 blocks, below the 132 SMs of an H200, but the two kernels run at the same time (256
// blocks resident over 132 SMs), so no SM is left without work: a verdict that judges each
// grid alone would call this low occupancy.
// Expected verdict: none (no finding at warning or high).
// Runtime on an H200: ~1 s (0.2 ms kernels, ~0.4 s of GPU work, plus CUDA start-up).
// Build: nvcc -O2 -arch=sm_90 clean_two_streams.cu -o clean_two_streams
#include "common.h"

int main(void)
{
	const int blocks = 128, threads = 256, n = blocks * threads, iters = 100000, reps = 1000;
	cudaStream_t s[2];
	float *d[2], *h;
	for (int k = 0; k < 2; k++) {
		CK(cudaStreamCreateWithFlags(&s[k], cudaStreamNonBlocking));
		CK(cudaMalloc(&d[k], n * sizeof(float)));
		CK(cudaMemsetAsync(d[k], 0, n * sizeof(float), s[k]));
	}
	CK(cudaMallocHost(&h, 2 * n * sizeof(float)));
	for (int r = 0; r < reps; r++)
		for (int k = 0; k < 2; k++)
			chain_step<<<blocks, threads, 0, s[k]>>>(d[k], n, iters);
	CK(cudaGetLastError());
	for (int k = 0; k < 2; k++)
		CK(cudaMemcpyAsync(h + k * n, d[k], n * sizeof(float), cudaMemcpyDeviceToHost, s[k]));
	CK(cudaDeviceSynchronize());
	if (chain_check(h, 2 * n))
		return 1;
	printf("clean_two_streams: %d x 2 kernels, result ok\n", reps);
	for (int k = 0; k < 2; k++) {
		CK(cudaFree(d[k]));
		CK(cudaStreamDestroy(s[k]));
	}
	CK(cudaFreeHost(h));
	return 0;
}
