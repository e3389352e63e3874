/* Kernels and timing of `gpudiag lab divergence`; see lab_divergence.h. */
#include "kernels/lab_divergence.h"
#include "kernels/lab_exec_cuda.cuh"

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
	case GD_DIV_BRANCH: return branch_kernel;
	case GD_DIV_MASK: return mask_kernel;
	case GD_DIV_CHEAP_BRANCH: return cheap_branch_kernel;
	case GD_DIV_CHEAP_MASK: return cheap_mask_kernel;
	default: return NULL;
	}
}

extern "C" int gd_div_attr(int dev, int kernel, int *regs, size_t *static_smem, char *err, size_t errn)
{
	int rc = 0;
	struct cudaFuncAttributes fa;
	div_fn f = kernel_of(kernel);
	if (!f) {
		snprintf(err, errn, "unknown divergence kernel %d", kernel);
		return 1;
	}
	LX_CHECK(cudaSetDevice(dev));
	LX_CHECK(cudaFuncGetAttributes(&fa, f));
	*regs = fa.numRegs;
	*static_smem = fa.sharedSizeBytes;
out:
	return rc;
}

extern "C" int gd_div_run(int dev, int n, int iters, int block, int reps, struct gd_div_variant *v, int nv, char *err,
			  size_t errn)
{
	int rc = 0;
	size_t bytes = (size_t)n * sizeof(float);
	int grid = (n + block - 1) / block;
	float **dx = NULL, *dy = NULL;
	cudaStream_t s = NULL;
	cudaEvent_t e0 = NULL, e1 = NULL;
	float ms;

	dx = (float **)calloc((size_t)nv, sizeof(*dx));
	if (!dx) {
		snprintf(err, errn, "out of host memory");
		return 1;
	}
	for (int k = 0; k < nv; k++)
		if (!kernel_of(v[k].kernel)) {
			snprintf(err, errn, "unknown divergence kernel %d", v[k].kernel);
			free(dx);
			return 1;
		}
	LX_CHECK(cudaSetDevice(dev));
	LX_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	LX_CHECK(cudaEventCreate(&e0));
	LX_CHECK(cudaEventCreate(&e1));
	LX_CHECK(cudaMalloc(&dy, bytes));
	for (int k = 0; k < nv; k++) {
		LX_CHECK(cudaMalloc(&dx[k], bytes));
		LX_CHECK(cudaMemcpy(dx[k], v[k].x, bytes, cudaMemcpyHostToDevice));
	}
	for (int k = 0; k < nv; k++) { /* warm-up */
		kernel_of(v[k].kernel)<<<grid, block, 0, s>>>(dx[k], dy, n, iters);
		LX_LAUNCHED();
	}
	LX_CHECK(cudaStreamSynchronize(s));
	for (int r = 0; r < reps; r++)
		for (int k = 0; k < nv; k++) {
			LX_CHECK(cudaMemsetAsync(dy, 0xFF, bytes, s));
			LX_CHECK(cudaEventRecord(e0, s));
			kernel_of(v[k].kernel)<<<grid, block, 0, s>>>(dx[k], dy, n, iters);
			LX_LAUNCHED();
			LX_CHECK(cudaEventRecord(e1, s));
			LX_CHECK(cudaEventSynchronize(e1));
			LX_CHECK(cudaEventElapsedTime(&ms, e0, e1));
			v[k].us[r] = ms * 1e3;
			if (r == reps - 1)
				LX_CHECK(cudaMemcpy(v[k].y, dy, bytes, cudaMemcpyDeviceToHost));
		}
out:
	if (e0)
		cudaEventDestroy(e0);
	if (e1)
		cudaEventDestroy(e1);
	if (s)
		cudaStreamDestroy(s);
	for (int k = 0; k < nv; k++)
		cudaFree(dx[k]);
	free(dx);
	cudaFree(dy);
	return rc;
}
