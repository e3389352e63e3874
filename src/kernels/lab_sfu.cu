/* Kernels and timing of `gpudiag lab sfu`; see lab_sfu.h. */
#include "kernels/lab_sfu.h"
#include "kernels/lab_exec_cuda.cuh"

#include <stdlib.h>

static __device__ __forceinline__ float tanh_approx(float x)
{
	float y;
	asm("tanh.approx.f32 %0, %1;" : "=f"(y) : "f"(x));
	return y;
}

template <int F> static __device__ __forceinline__ float fn(float x)
{
	switch (F) {
	case GD_SFU_EXP_FAST: return __expf(x);
	case GD_SFU_EXP: return expf(x);
	case GD_SFU_SIN_FAST: return __sinf(x);
	case GD_SFU_SIN: return sinf(x);
	case GD_SFU_RSQRT_FAST: return rsqrtf(x);
	case GD_SFU_RSQRT: return 1.0f / sqrtf(x);
	case GD_SFU_GELU_ERF: return 0.5f * x * (1.0f + erff(x * 0.70710678118654752f));
	case GD_SFU_GELU_TANH:
		return 0.5f * x * (1.0f + tanhf(0.79788456080286536f * (x + 0.044715f * x * x * x)));
	case GD_SFU_GELU_TANH_FAST:
		return 0.5f * x * (1.0f + tanh_approx(0.79788456080286536f * (x + 0.044715f * x * x * x)));
	default: return 0.0f;
	}
}

template <int F> static __global__ void sfu_throughput(float *out, int iters, float lo, float width)
{
	int t = blockIdx.x * blockDim.x + threadIdx.x;
	int nt = gridDim.x * blockDim.x;
	/* Arguments spread over the domain; all steps together move them by width / 4,
	 * so with starts in the first 11/16 of the domain they stay inside [lo, lo + width]. */
	float h = width / (4.0f * (float)iters);
	float x0 = lo + width * 0.5f * ((float)t / (float)nt);
	float x1 = x0 + 0.25f * width * 0.25f, x2 = x1 + 0.25f * width * 0.25f, x3 = x2 + 0.25f * width * 0.25f;
	float a0 = 0, a1 = 0, a2 = 0, a3 = 0;
	for (int k = 0; k < iters; k++) {
		a0 += fn<F>(x0);
		a1 += fn<F>(x1);
		a2 += fn<F>(x2);
		a3 += fn<F>(x3);
		x0 += h;
		x1 += h;
		x2 += h;
		x3 += h;
	}
	out[t] = (a0 + a1) + (a2 + a3);
}

template <int F> static __global__ void sfu_eval(const float *x, float *y, size_t n)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = fn<F>(x[i]);
}

typedef void (*tput_fn)(float *, int, float, float);
typedef void (*eval_fn)(const float *, float *, size_t);

#define GD_SFU_TABLE(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8)

static tput_fn tput_of(int f)
{
	switch (f) {
#define C(k) case k: return sfu_throughput<k>;
	GD_SFU_TABLE(C)
#undef C
	default: return NULL;
	}
}

static eval_fn eval_of(int f)
{
	switch (f) {
#define C(k) case k: return sfu_eval<k>;
	GD_SFU_TABLE(C)
#undef C
	default: return NULL;
	}
}

extern "C" int gd_sfu_domain(int f, double *lo, double *hi)
{
	switch (f) {
	case GD_SFU_EXP_FAST:
	case GD_SFU_EXP: *lo = -10; *hi = 10; return 0;
	case GD_SFU_SIN_FAST:
	case GD_SFU_SIN: *lo = -3.14159265358979; *hi = 3.14159265358979; return 0;
	case GD_SFU_RSQRT_FAST:
	case GD_SFU_RSQRT: *lo = 0.01; *hi = 100; return 0;
	case GD_SFU_GELU_ERF:
	case GD_SFU_GELU_TANH:
	case GD_SFU_GELU_TANH_FAST: *lo = -8; *hi = 8; return 0;
	default: return -1;
	}
}

extern "C" int gd_sfu_time(int dev, const int *fns, int nf, int blocks, int iters, int reps, double *us, double *sums,
			   char *err, size_t errn)
{
	int rc = 0;
	int nt = blocks * 256;
	float *d = NULL, *h = NULL;
	cudaStream_t s = NULL;
	cudaEvent_t e0 = NULL, e1 = NULL;
	float ms;
	for (int f = 0; f < nf; f++)
		if (!tput_of(fns[f])) {
			snprintf(err, errn, "unknown sfu function %d", fns[f]);
			return 1;
		}
	h = (float *)malloc((size_t)nt * sizeof(float));
	if (!h) {
		snprintf(err, errn, "out of host memory");
		return 1;
	}
	LX_CHECK(cudaSetDevice(dev));
	LX_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	LX_CHECK(cudaEventCreate(&e0));
	LX_CHECK(cudaEventCreate(&e1));
	LX_CHECK(cudaMalloc(&d, (size_t)nt * sizeof(float)));
	for (int f = 0; f < nf; f++) {
		double lo, hi;
		gd_sfu_domain(fns[f], &lo, &hi);
		tput_of(fns[f])<<<blocks, 256, 0, s>>>(d, 1, (float)lo, (float)(hi - lo));
		LX_LAUNCHED();
	}
	LX_CHECK(cudaStreamSynchronize(s));
	for (int r = 0; r < reps; r++)
		for (int f = 0; f < nf; f++) {
			double lo, hi;
			gd_sfu_domain(fns[f], &lo, &hi);
			LX_CHECK(cudaEventRecord(e0, s));
			tput_of(fns[f])<<<blocks, 256, 0, s>>>(d, iters, (float)lo, (float)(hi - lo));
			LX_LAUNCHED();
			LX_CHECK(cudaEventRecord(e1, s));
			LX_CHECK(cudaEventSynchronize(e1));
			LX_CHECK(cudaEventElapsedTime(&ms, e0, e1));
			us[(size_t)f * reps + r] = ms * 1e3;
			if (r == reps - 1) {
				double sum = 0;
				LX_CHECK(cudaMemcpy(h, d, (size_t)nt * sizeof(float), cudaMemcpyDeviceToHost));
				for (int i = 0; i < nt; i++)
					sum += h[i];
				sums[f] = sum;
			}
		}
out:
	if (e0)
		cudaEventDestroy(e0);
	if (e1)
		cudaEventDestroy(e1);
	if (s)
		cudaStreamDestroy(s);
	cudaFree(d);
	free(h);
	return rc;
}

extern "C" int gd_sfu_eval(int dev, int f, const float *x, float *y, size_t n, char *err, size_t errn)
{
	int rc = 0;
	float *dx = NULL, *dy = NULL;
	eval_fn k = eval_of(f);
	if (!k) {
		snprintf(err, errn, "unknown sfu function %d", f);
		return 1;
	}
	LX_CHECK(cudaSetDevice(dev));
	LX_CHECK(cudaMalloc(&dx, n * sizeof(float)));
	LX_CHECK(cudaMalloc(&dy, n * sizeof(float)));
	LX_CHECK(cudaMemcpy(dx, x, n * sizeof(float), cudaMemcpyHostToDevice));
	LX_CHECK(cudaMemset(dy, 0xFF, n * sizeof(float)));
	k<<<(unsigned)((n + 255) / 256), 256>>>(dx, dy, n);
	LX_LAUNCHED();
	LX_CHECK(cudaDeviceSynchronize());
	LX_CHECK(cudaMemcpy(y, dy, n * sizeof(float), cudaMemcpyDeviceToHost));
out:
	cudaFree(dx);
	cudaFree(dy);
	return rc;
}
