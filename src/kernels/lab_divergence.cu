/* Kernels and timing of `gpudiag lab divergence`; see lab_divergence.h. */
#include "kernels/lab_divergence.h"
#include <cuda_runtime.h>

/* Four independent chains per path so the FMA pipe, not one chain's latency, sets the pace.
 * fmaf and the explicit summation order keep results bit-identical to the CPU reference. */
static __device__ __forceinline__ float path_a(float v, int iters)
{
	float c0 = v, c1 = v + 1.0f, c2 = v + 2.0f, c3 = v + 3.0f;
	for (int k = 0; k < iters; k++) {
		c0 = fmaf(c0, GD_DIV_A_MUL, GD_DIV_A_ADD);
		c1 = fmaf(c1, GD_DIV_A_MUL, GD_DIV_A_ADD);
		c2 = fmaf(c2, GD_DIV_A_MUL, GD_DIV_A_ADD);
		c3 = fmaf(c3, GD_DIV_A_MUL, GD_DIV_A_ADD);
	}
	return (c0 + c1) + (c2 + c3);
}

static __device__ __forceinline__ float path_b(float v, int iters)
{
	float c0 = v, c1 = v - 1.0f, c2 = v - 2.0f, c3 = v - 3.0f;
	for (int k = 0; k < iters; k++) {
		c0 = fmaf(c0, GD_DIV_B_MUL, GD_DIV_B_ADD);
		c1 = fmaf(c1, GD_DIV_B_MUL, GD_DIV_B_ADD);
		c2 = fmaf(c2, GD_DIV_B_MUL, GD_DIV_B_ADD);
		c3 = fmaf(c3, GD_DIV_B_MUL, GD_DIV_B_ADD);
	}
	return (c0 + c1) + (c2 + c3);
}

static __global__ void branch_kernel(const float *x, float *y, int n, int iters)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		float v = x[i];
		float r;
		if (v > 0.0f)
			r = path_a(v, iters);
		else
			r = path_b(v, iters);
		y[i] = r;
	}
}

static __global__ void mask_kernel(const float *x, float *y, int n, int iters)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		float v = x[i];
		float a = path_a(v, iters), b = path_b(v, iters);
		y[i] = (float)(v > 0.0f) * a + (float)(v <= 0.0f) * b;
	}
}

static __global__ void cheap_branch_kernel(const float *x, float *y, int n, int iters)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		float v = x[i];
		if (v > 0.0f)
			y[i] = v * 2.0f;
		else
			y[i] = v - 1.0f;
	}
}

static __global__ void cheap_mask_kernel(const float *x, float *y, int n, int iters)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		float v = x[i];
		y[i] = (float)(v > 0.0f) * (v * 2.0f) + (float)(v <= 0.0f) * (v - 1.0f);
	}
}

typedef void (*div_fn)(const float *, float *, int, int);

static div_fn kernel_of(int k)
{
	switch (k) {
	case GD_DIV_BRANCH:
		return branch_kernel;
	case GD_DIV_MASK:
		return mask_kernel;
	case GD_DIV_CHEAP_BRANCH:
		return cheap_branch_kernel;
	case GD_DIV_CHEAP_MASK:
		return cheap_mask_kernel;
	default:
		return NULL;
	}
}

extern "C" int gd_labk_div_attr(int kernel, int *regs, size_t *static_smem)
{
	struct cudaFuncAttributes fa;
	cudaError_t e;
	div_fn f = kernel_of(kernel);
	if (!f)
		return (int)cudaErrorInvalidValue;
	if ((e = cudaFuncGetAttributes(&fa, f)) != cudaSuccess)
		return (int)e;
	*regs = fa.numRegs;
	*static_smem = fa.sharedSizeBytes;
	return 0;
}

extern "C" int gd_labk_div_launch(int kernel, const float *x, float *y, int n, int iters, int block)
{
	div_fn f = kernel_of(kernel);
	if (!f || block <= 0 || n <= 0)
		return (int)cudaErrorInvalidValue;
	f<<<(n + block - 1) / block, block>>>(x, y, n, iters);
	return (int)cudaGetLastError();
}
