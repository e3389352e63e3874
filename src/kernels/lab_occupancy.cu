/* Kernels and timing of `gpudiag lab occupancy`; see lab_occupancy.h. */
#include "kernels/lab_occupancy.h"
#include <cuda_runtime.h>

/* Dynamic shared memory is declared so the launch can reserve it; it is never read. */
static __global__ void occ_memory(const float *x, float *y, size_t n, float a)
{
	extern __shared__ float pad_[];
	size_t n4 = n / 4, stride = (size_t)gridDim.x * blockDim.x;
	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride) {
		float4 v = reinterpret_cast<const float4 *>(x)[i];
		v.x *= a;
		v.y *= a;
		v.z *= a;
		v.w *= a;
		reinterpret_cast<float4 *>(y)[i] = v;
	}
	/* the tail that is not a whole float4 */
	for (size_t i = n4 * 4 + (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
		y[i] = x[i] * a;
}

static __global__ void occ_compute(float *y, size_t n, int iters)
{
	extern __shared__ float pad_[];
	size_t stride = (size_t)gridDim.x * blockDim.x;
	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
		float c0 = (float)(i & 1023) * (1.0f / 1024.0f), c1 = c0 + 1.0f;
		for (int k = 0; k < iters; k++) {
			c0 = fmaf(c0, GD_OCCLAB_MUL, GD_OCCLAB_ADD);
			c1 = fmaf(c1, GD_OCCLAB_MUL, GD_OCCLAB_ADD);
		}
		y[i] = c0 + c1;
	}
}

static const void *fn_of(int kernel)
{
	return kernel == GD_OCCLAB_MEMORY ? (const void *)occ_memory : (const void *)occ_compute;
}

extern "C" int gd_labk_occ_attr(int kernel, int *regs, size_t *static_smem)
{
	struct cudaFuncAttributes fa;
	cudaError_t e = cudaFuncGetAttributes(&fa, fn_of(kernel));
	if (e != cudaSuccess)
		return (int)e;
	*regs = fa.numRegs;
	*static_smem = fa.sharedSizeBytes;
	return 0;
}

extern "C" int gd_labk_occ_prepare(int kernel, size_t max_dyn)
{
	cudaError_t e =
	    cudaFuncSetAttribute(fn_of(kernel), cudaFuncAttributeMaxDynamicSharedMemorySize, (int)max_dyn);
	if (e == cudaSuccess)
		e = cudaFuncSetAttribute(fn_of(kernel), cudaFuncAttributePreferredSharedMemoryCarveout, 100);
	return (int)e;
}

extern "C" int gd_labk_occ_runtime_blocks(int kernel, int block, size_t dyn_smem, int *blocks)
{
	return (int)cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, fn_of(kernel), block, dyn_smem);
}

extern "C" int gd_labk_occ_launch(int kernel, const float *x, float *y, size_t n, int iters, int grid,
				  int block, size_t dyn_smem)
{
	if (grid <= 0 || block <= 0)
		return (int)cudaErrorInvalidValue;
	if (kernel == GD_OCCLAB_MEMORY)
		occ_memory<<<grid, block, dyn_smem>>>(x, y, n, GD_OCCLAB_SCALE);
	else
		occ_compute<<<grid, block, dyn_smem>>>(y, n, iters);
	return (int)cudaGetLastError();
}
