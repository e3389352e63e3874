// GPU tier, area "metrics" (issue 19): four kernels of known counter character, each launched
// REPS times (default 4) in turn, so that `--launch-skip 1 --launch-count 1` (gpudiag and ncu)
// and gpudiag's default (the first 3 launches of each name) find the same launches.
//   k_strided     out[i] = in[32 i]: the 32 threads of a warp read 32 different 32-byte sectors
//                 (32 sectors per load request, 4 of each sector's 32 bytes used: 12.5 %)
//   k_coalesced   its twin, out[i] = in[i]: 4 sectors per request, every byte used
//   k_divergent   lanes 0-15 run a long FMA loop, lanes 16-31 one add: about 16 threads per
//                 executed instruction (ncu's rule flags < 24 of 32)
//   k_reglimited  128 live accumulators per thread under __launch_bounds__(256, 1): over 128
//                 registers, so one 256-thread block per SM, theoretical occupancy 12.5 %
// Footprints are larger than the H200's 50 MB L2 so that DRAM bytes depend little on what the
// cache held before the launch. nvcc -O2 -arch=sm_90 -o kernels kernels.cu
// usage: kernels [REPS]
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CK(x)                                                                                      \
	do {                                                                                       \
		cudaError_t e_ = (x);                                                              \
		if (e_ != cudaSuccess) {                                                           \
			fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));                   \
			exit(1);                                                                   \
		}                                                                                  \
	} while (0)

__global__ void k_strided(const float *__restrict__ in, float *__restrict__ out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = in[(size_t)i * 32];
}

__global__ void k_coalesced(const float *__restrict__ in, float *__restrict__ out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = in[i];
}

__global__ void k_divergent(float *x, int n, int iters)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float v = x[i];
	if ((threadIdx.x & 31) < 16) {
		for (int k = 0; k < iters; k++)
			v = v * 0.9999f + 0.5f;
	} else {
		v = v + 1.0f;
	}
	x[i] = v;
}

#define NACC 128
__global__ void __launch_bounds__(256, 1) k_reglimited(const float *__restrict__ in, float *__restrict__ out, int n,
						       int iters)
{
	float a[NACC];
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
#pragma unroll
	for (int j = 0; j < NACC; j++)
		a[j] = in[(i + j * 4099) % n];
	for (int k = 0; k < iters; k++) {
#pragma unroll
		for (int j = 0; j < NACC; j++)
			a[j] = a[j] * 0.999f + a[(j + 1) % NACC] * 0.001f;
	}
	float s = 0.0f;
#pragma unroll
	for (int j = 0; j < NACC; j++)
		s += a[j];
	out[i] = s;
}

int main(int argc, char **argv)
{
	int reps = argc > 1 ? atoi(argv[1]) : 4;
	const int n = 16 << 20;                 // 16 Mi outputs: 64 MB written by each gather
	const int nreg = 132 * 256 * 8;         // 8 blocks per SM of the H200
	float *in, *out, *x;
	CK(cudaMalloc(&in, (size_t)n * 32 * sizeof(float))); // 2 GiB: the strided gather's range
	CK(cudaMalloc(&out, (size_t)n * sizeof(float)));
	CK(cudaMalloc(&x, (size_t)n * sizeof(float)));
	CK(cudaMemset(in, 0, (size_t)n * 32 * sizeof(float)));
	CK(cudaMemset(x, 0, (size_t)n * sizeof(float)));
	{
		cudaFuncAttributes fa;
		int blocks = 0;
		CK(cudaFuncGetAttributes(&fa, k_reglimited));
		CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, k_reglimited, 256, 0));
		printf("k_reglimited: %d registers per thread, %d block(s) of 256 per SM: theoretical occupancy %.1f %%\n",
		       fa.numRegs, blocks, 100.0 * blocks * 256 / 2048);
	}
	for (int r = 0; r < reps; r++) {
		k_strided<<<n / 256, 256>>>(in, out, n);
		k_coalesced<<<n / 256, 256>>>(in, out, n);
		k_divergent<<<n / 256, 256>>>(x, n, 256);
		k_reglimited<<<nreg / 256, 256>>>(in, out, nreg, 16);
		CK(cudaGetLastError());
	}
	CK(cudaDeviceSynchronize());
	printf("kernels: %d rounds of 4 kernels\n", reps);
	return 0;
}
