/* Shared by the plain CUDA programs of the accuracy suite (tests/gpu/accuracy/): error checks
 * that name the failing call, and a latency-bound kernel whose time is set by its argument.
 * Programs exit 1 on a CUDA or cuBLAS error so the suite sees a broken program, not a verdict. */
#pragma once
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#define CK(x)                                                                                     \
	do {                                                                                      \
		cudaError_t e_ = (x);                                                             \
		if (e_ != cudaSuccess) {                                                          \
			fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
			exit(1);                                                                  \
		}                                                                                 \
	} while (0)

/* `iters` dependent FMAs per thread. With one 256-thread block per SM the chain is latency-bound
 * (two warps per scheduler), so two such kernels on different streams run side by side at nearly
 * the speed of one: exactly what stream concurrency is for. */
static __global__ void chain_step(float *x, int n, int iters)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float v = x[i];
	for (int k = 0; k < iters; k++)
		v = v * 0.999f + 0.001f;
	x[i] = v;
}

/* The recurrence v = 0.999 v + 0.001 converges to 1 from any start, so after a long chain every
 * element is 1 within rounding: a cheap check that the kernels ran. */
static int chain_check(const float *h, int n)
{
	for (int i = 0; i < n; i++)
		if (!(h[i] > 0.999f && h[i] < 1.001f)) {
			fprintf(stderr, "check failed: x[%d] = %g, want 1\n", i, h[i]);
			return 1;
		}
	return 0;
}
