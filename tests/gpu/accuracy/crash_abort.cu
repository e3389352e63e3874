// Accuracy suite, CRASH: an iterative solver whose update diverges (each step multiplies the
// state by 1.5); every 50 steps the host checks the state (pinned asynchronous copy, then a
// stream synchronisation), and when it has overflowed to infinity after ~220 steps the program
// reports the divergence and calls abort(), dying of SIGABRT after real GPU work.
// Planted: a crash (SIGABRT). Expected result: `gpudiag run` exits 134 (128 + 6) and the JSON
// report says run.exit_signal = 6 — not a rule.
// Runtime on an H200: < 1 s after CUDA start-up.
// Build: nvcc -O2 -arch=sm_90 crash_abort.cu -o crash_abort
#include "common.h"
#include <math.h>

static __global__ void solver_update(float *x, int n)
{
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
		x[i] = x[i] * 1.5f + 0.01f * sinf((float)i);
}

static __global__ void set_one(float *x, int n)
{
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
		x[i] = 1.0f;
}

int main(void)
{
	const int n = 1 << 22;
	cudaStream_t s;
	float *d, *h;
	CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	CK(cudaMalloc(&d, n * sizeof(float)));
	CK(cudaMallocHost(&h, sizeof(float)));
	set_one<<<132 * 4, 256, 0, s>>>(d, n);
	for (int epoch = 0; epoch < 100; epoch++) {
		for (int k = 0; k < 50; k++)
			solver_update<<<132 * 4, 256, 0, s>>>(d, n);
		CK(cudaGetLastError());
		CK(cudaMemcpyAsync(h, d, sizeof(float), cudaMemcpyDeviceToHost, s));
		CK(cudaStreamSynchronize(s));
		if (!isfinite(*h)) {
			fprintf(stderr, "crash_abort: solver diverged at step %d (x[0] = %g); aborting\n", (epoch + 1) * 50,
				*h);
			abort();
		}
	}
	printf("crash_abort: did not diverge (unexpected)\n");
	return 0;
}
