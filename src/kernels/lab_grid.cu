/* Kernels and timing of `gpudiag lab grid`; see lab_grid.h. */
#include "kernels/lab_grid.h"
#include "kernels/lab_exec_cuda.cuh"

#include <stdint.h>

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

extern "C" int gd_grid_func_attr(int dev, int *regs, size_t *static_smem, int *max_threads, char *err, size_t errn)
{
	int rc = 0;
	struct cudaFuncAttributes fa;
	LX_CHECK(cudaSetDevice(dev));
	LX_CHECK(cudaFuncGetAttributes(&fa, add_rec));
	*regs = fa.numRegs;
	*static_smem = fa.sharedSizeBytes;
	*max_threads = fa.maxThreadsPerBlock;
out:
	return rc;
}

extern "C" int gd_grid_run(int dev, int n, int block, int reps, const float *a, const float *b, float *c,
			   struct gd_grid_rec *rec, double *rec_us, double *plain_us, char *err, size_t errn)
{
	int rc = 0;
	int grid = (n + block - 1) / block;
	size_t bytes = (size_t)n * sizeof(float);
	float *dA = NULL, *dB = NULL, *dC = NULL;
	struct gd_grid_rec *dR = NULL;
	cudaStream_t s = NULL;
	cudaEvent_t e0 = NULL, e1 = NULL;
	float ms;

	LX_CHECK(cudaSetDevice(dev));
	LX_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	LX_CHECK(cudaEventCreate(&e0));
	LX_CHECK(cudaEventCreate(&e1));
	LX_CHECK(cudaMalloc(&dA, bytes));
	LX_CHECK(cudaMalloc(&dB, bytes));
	LX_CHECK(cudaMalloc(&dC, bytes));
	LX_CHECK(cudaMalloc(&dR, (size_t)grid * sizeof(*dR)));
	LX_CHECK(cudaMemcpy(dA, a, bytes, cudaMemcpyHostToDevice));
	LX_CHECK(cudaMemcpy(dB, b, bytes, cudaMemcpyHostToDevice));
	/* warm-up */
	add_rec<<<grid, block, 0, s>>>(dA, dB, dC, n, dR);
	LX_LAUNCHED();
	add_plain<<<grid, block, 0, s>>>(dA, dB, dC, n);
	LX_LAUNCHED();
	LX_CHECK(cudaStreamSynchronize(s));

	for (int r = 0; r < reps; r++) {
		/* 0xFF bytes are NaN floats and an impossible record: unwritten output shows. */
		LX_CHECK(cudaMemsetAsync(dC, 0xFF, bytes, s));
		LX_CHECK(cudaMemsetAsync(dR, 0xFF, (size_t)grid * sizeof(*dR), s));
		LX_CHECK(cudaEventRecord(e0, s));
		add_rec<<<grid, block, 0, s>>>(dA, dB, dC, n, dR);
		LX_LAUNCHED();
		LX_CHECK(cudaEventRecord(e1, s));
		LX_CHECK(cudaEventSynchronize(e1));
		LX_CHECK(cudaEventElapsedTime(&ms, e0, e1));
		rec_us[r] = ms * 1e3;

		LX_CHECK(cudaEventRecord(e0, s));
		add_plain<<<grid, block, 0, s>>>(dA, dB, dC + 0, n);
		LX_LAUNCHED();
		LX_CHECK(cudaEventRecord(e1, s));
		LX_CHECK(cudaEventSynchronize(e1));
		LX_CHECK(cudaEventElapsedTime(&ms, e0, e1));
		plain_us[r] = ms * 1e3;
	}
	/* The output checked is the recording kernel's: run it once more on a poisoned C. */
	LX_CHECK(cudaMemsetAsync(dC, 0xFF, bytes, s));
	LX_CHECK(cudaMemsetAsync(dR, 0xFF, (size_t)grid * sizeof(*dR), s));
	add_rec<<<grid, block, 0, s>>>(dA, dB, dC, n, dR);
	LX_LAUNCHED();
	LX_CHECK(cudaStreamSynchronize(s));
	LX_CHECK(cudaMemcpy(c, dC, bytes, cudaMemcpyDeviceToHost));
	LX_CHECK(cudaMemcpy(rec, dR, (size_t)grid * sizeof(*dR), cudaMemcpyDeviceToHost));
out:
	if (e0)
		cudaEventDestroy(e0);
	if (e1)
		cudaEventDestroy(e1);
	if (s)
		cudaStreamDestroy(s);
	cudaFree(dA);
	cudaFree(dB);
	cudaFree(dC);
	cudaFree(dR);
	return rc;
}
