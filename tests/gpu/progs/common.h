/* Shared by the GPU-tier test programs of `gpudiag run` (tests/gpu/profiler.sh). Each program
 * exits with a documented code so the script can check it comes back through gpudiag. */
#pragma once
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#define CK(call)                                                                                  \
	do {                                                                                      \
		cudaError_t e_ = (call);                                                          \
		if (e_ != cudaSuccess) {                                                          \
			fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
			exit(90);                                                                 \
		}                                                                                 \
	} while (0)

static __global__ void k_add(float *x, int n, float v)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] += v;
}

static __global__ void k_empty(void) {}

/* n launches of k_add on `s` over a buffer of m floats, then a sync. */
static void burst(float *d, int m, int n, cudaStream_t s)
{
	for (int i = 0; i < n; i++) {
		k_add<<<(m + 255) / 256, 256, 0, s>>>(d, m, 1.0f);
		CK(cudaGetLastError());
	}
	CK(cudaStreamSynchronize(s));
}
