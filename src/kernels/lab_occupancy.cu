/* Kernels and timing of `gpudiag lab occupancy`; see lab_occupancy.h. */
#include "kernels/lab_occupancy.h"
#include "kernels/lab_exec_cuda.cuh"

#include <stdlib.h>

struct gd_occlab {
	int dev, kernel, iters;
	size_t n;
	float *x, *y;
	cudaStream_t s;
	cudaEvent_t e0, e1;
};

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

static void launch(struct gd_occlab *h, int block, const struct gd_occlab_level *lv)
{
	if (h->kernel == GD_OCCLAB_MEMORY)
		occ_memory<<<lv->grid, block, lv->dyn_smem, h->s>>>(h->x, h->y, h->n, GD_OCCLAB_SCALE);
	else
		occ_compute<<<lv->grid, block, lv->dyn_smem, h->s>>>(h->y, h->n, h->iters);
}

extern "C" int gd_occlab_attr(int dev, int kernel, int *regs, size_t *static_smem, char *err, size_t errn)
{
	int rc = 0;
	struct cudaFuncAttributes fa;
	LX_CHECK(cudaSetDevice(dev));
	LX_CHECK(cudaFuncGetAttributes(&fa, fn_of(kernel)));
	*regs = fa.numRegs;
	*static_smem = fa.sharedSizeBytes;
out:
	return rc;
}

extern "C" int gd_occlab_open(struct gd_occlab **hp, int dev, int kernel, size_t n, int iters, const float *x,
			      size_t max_dyn, char *err, size_t errn)
{
	int rc = 0;
	struct gd_occlab *h = (struct gd_occlab *)calloc(1, sizeof(*h));
	*hp = NULL;
	if (!h) {
		snprintf(err, errn, "out of host memory");
		return 1;
	}
	h->dev = dev;
	h->kernel = kernel;
	h->n = n;
	h->iters = iters;
	LX_CHECK(cudaSetDevice(dev));
	LX_CHECK(cudaFuncSetAttribute(fn_of(kernel), cudaFuncAttributeMaxDynamicSharedMemorySize, (int)max_dyn));
	LX_CHECK(cudaFuncSetAttribute(fn_of(kernel), cudaFuncAttributePreferredSharedMemoryCarveout, 100));
	LX_CHECK(cudaStreamCreateWithFlags(&h->s, cudaStreamNonBlocking));
	LX_CHECK(cudaEventCreate(&h->e0));
	LX_CHECK(cudaEventCreate(&h->e1));
	LX_CHECK(cudaMalloc(&h->y, n * sizeof(float)));
	if (kernel == GD_OCCLAB_MEMORY) {
		LX_CHECK(cudaMalloc(&h->x, n * sizeof(float)));
		LX_CHECK(cudaMemcpy(h->x, x, n * sizeof(float), cudaMemcpyHostToDevice));
	}
	*hp = h;
	return 0;
out:
	gd_occlab_close(h);
	return rc;
}

extern "C" int gd_occlab_runtime_blocks(struct gd_occlab *h, int block, size_t dyn_smem, int *blocks, char *err,
					size_t errn)
{
	int rc = 0;
	LX_CHECK(cudaSetDevice(h->dev));
	LX_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, fn_of(h->kernel), block, dyn_smem));
out:
	return rc;
}

extern "C" int gd_occlab_time(struct gd_occlab *h, int block, const struct gd_occlab_level *lv, int nl, int reps,
			      double *us, char *err, size_t errn)
{
	int rc = 0;
	float ms;
	LX_CHECK(cudaSetDevice(h->dev));
	for (int l = 0; l < nl; l++) { /* warm-up, and the launch configuration is checked once */
		launch(h, block, &lv[l]);
		LX_LAUNCHED();
	}
	LX_CHECK(cudaStreamSynchronize(h->s));
	for (int r = 0; r < reps; r++)
		for (int l = 0; l < nl; l++) {
			LX_CHECK(cudaEventRecord(h->e0, h->s));
			launch(h, block, &lv[l]);
			LX_LAUNCHED();
			LX_CHECK(cudaEventRecord(h->e1, h->s));
			LX_CHECK(cudaEventSynchronize(h->e1));
			LX_CHECK(cudaEventElapsedTime(&ms, h->e0, h->e1));
			us[(size_t)l * reps + r] = ms * 1e3;
		}
out:
	return rc;
}

extern "C" int gd_occlab_output(struct gd_occlab *h, int block, const struct gd_occlab_level *lv, float *y, char *err,
				size_t errn)
{
	int rc = 0;
	LX_CHECK(cudaSetDevice(h->dev));
	LX_CHECK(cudaMemsetAsync(h->y, 0xFF, h->n * sizeof(float), h->s));
	launch(h, block, lv);
	LX_LAUNCHED();
	LX_CHECK(cudaStreamSynchronize(h->s));
	LX_CHECK(cudaMemcpy(y, h->y, h->n * sizeof(float), cudaMemcpyDeviceToHost));
out:
	return rc;
}

extern "C" void gd_occlab_close(struct gd_occlab *h)
{
	if (!h)
		return;
	if (h->e0)
		cudaEventDestroy(h->e0);
	if (h->e1)
		cudaEventDestroy(h->e1);
	if (h->s)
		cudaStreamDestroy(h->s);
	cudaFree(h->x);
	cudaFree(h->y);
	free(h);
}
