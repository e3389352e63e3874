/* Kernels and timing of `gpudiag lab grid`; see lab_grid.h. */
#include "kernels/lab_grid.h"
#include <cuda_runtime.h>

static __device__ __forceinline__ unsigned long long gtimer(void)
{
	unsigned long long t;
	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	return t;
}

static __device__ __forceinline__ unsigned smid(void)
{
	unsigned s;
	asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
	return s;
}

/* The guide's add, instrumented. */
static __global__ void add_rec(const float *A, const float *B, float *C, int n, struct gd_grid_rec *rec)
{
	__shared__ unsigned long long t0;
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (threadIdx.x == 0)
		t0 = gtimer();
	__syncthreads();
	if (i < n)
		C[i] = A[i] + B[i];
	__syncthreads();
	if (threadIdx.x == 0) {
		struct gd_grid_rec r;
		r.t0 = t0;
		r.t1 = gtimer();
		r.smid = smid();
		r.pad_ = 0;
		rec[blockIdx.x] = r;
	}
}

/* The guide's add exactly, for the cost of the instrumentation. */
static __global__ void add_plain(const float *A, const float *B, float *C, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		C[i] = A[i] + B[i];
}

extern "C" int gd_labk_grid_attr(int *regs, size_t *static_smem, int *max_threads)
{
	struct cudaFuncAttributes fa;
	cudaError_t e = cudaFuncGetAttributes(&fa, add_rec);
	if (e != cudaSuccess)
		return (int)e;
	*regs = fa.numRegs;
	*static_smem = fa.sharedSizeBytes;
	*max_threads = fa.maxThreadsPerBlock;
	return 0;
}

extern "C" int gd_labk_grid_launch(const float *a, const float *b, float *c, int n, int block,
				   struct gd_grid_rec *rec)
{
	int grid;
	if (n <= 0 || block <= 0)
		return (int)cudaErrorInvalidValue;
	grid = (n + block - 1) / block;
	if (rec)
		add_rec<<<grid, block>>>(a, b, c, n, rec);
	else
		add_plain<<<grid, block>>>(a, b, c, n);
	return (int)cudaGetLastError();
}
