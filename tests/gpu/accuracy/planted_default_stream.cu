// Accuracy suite, PLANTED default_stream: two BLOCKING streams (cudaStreamCreate, default flags)
// each run 300 latency-bound kernels of ~0.2 ms that could run side by side; a 1-thread
// bookkeeping kernel (a step counter, ~10 µs) is launched on the legacy default stream after
// every long kernel, except in every fourth iteration. Each legacy-stream kernel waits for all
// work on both blocking streams and holds back everything launched after it, so the two streams
// are serialised: the loop takes ~1.7× as long as with non-blocking streams
// (`planted_default_stream nonblocking` runs the same loop on non-blocking streams and prints
// its time for comparison; the suite profiles the default, blocking, mode).
// Planted: legacy default-stream work between two blocking streams.
// Expected verdict: top finding default_stream.
// Runtime on an H200: ~1 s (0.1 s of GPU work plus CUDA start-up).
// Build: nvcc -O2 -arch=sm_90 planted_default_stream.cu -o planted_default_stream
#include "common.h"
#include <string.h>
#include <time.h>

/* a serial loop in one thread: a step counter and a running statistic, as bookkeeping code does */
static __global__ void step_counter(int *step, float *stat, const float *x)
{
	float a = *stat;
	for (int k = 0; k < 4096; k++)
		a = a * 0.999f + x[k & 255] * 0.001f;
	*stat = a;
	*step += 1;
}

int main(int argc, char **argv)
{
	const int sms = 132, threads = 256, n = sms * threads, iters = 100000, reps = 300;
	int nonblocking = argc > 1 && !strcmp(argv[1], "nonblocking");
	cudaStream_t s[2];
	float *d[2], *stat, *h;
	int *step;
	struct timespec t0, t1;
	for (int k = 0; k < 2; k++) {
		if (nonblocking)
			CK(cudaStreamCreateWithFlags(&s[k], cudaStreamNonBlocking));
		else
			CK(cudaStreamCreate(&s[k])); /* blocking: synchronises with the legacy default stream */
		CK(cudaMalloc(&d[k], n * sizeof(float)));
		CK(cudaMemset(d[k], 0, n * sizeof(float)));
	}
	CK(cudaMalloc(&stat, sizeof(float)));
	CK(cudaMalloc(&step, sizeof(int)));
	CK(cudaMemset(stat, 0, sizeof(float)));
	CK(cudaMemset(step, 0, sizeof(int)));
	CK(cudaMallocHost(&h, 2 * n * sizeof(float)));
	CK(cudaDeviceSynchronize());
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int r = 0; r < reps; r++) {
		int serial = r % 4 != 3;
		chain_step<<<sms, threads, 0, s[0]>>>(d[0], n, iters);
		if (serial)
			step_counter<<<1, 1>>>(step, stat, d[0]);
		chain_step<<<sms, threads, 0, s[1]>>>(d[1], n, iters);
		step_counter<<<1, 1>>>(step, stat, d[1]);
	}
	CK(cudaGetLastError());
	CK(cudaDeviceSynchronize());
	clock_gettime(CLOCK_MONOTONIC, &t1);
	for (int k = 0; k < 2; k++)
		CK(cudaMemcpy(h + k * n, d[k], n * sizeof(float), cudaMemcpyDeviceToHost));
	if (chain_check(h, 2 * n))
		return 1;
	printf("planted_default_stream (%s streams): %d x 2 kernels in %.1f ms\n", nonblocking ? "non-blocking" : "blocking",
	       reps, (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) * 1e-6);
	for (int k = 0; k < 2; k++) {
		CK(cudaFree(d[k]));
		CK(cudaStreamDestroy(s[k]));
	}
	CK(cudaFree(stat));
	CK(cudaFree(step));
	CK(cudaFreeHost(h));
	return 0;
}
