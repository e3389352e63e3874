/* Kernels and timing of `gpudiag lab sfu`; see lab_sfu.h. */
#include "kernels/lab_sfu.h"
#include <cuda_runtime.h>

static __device__ __forceinline__ float tanh_approx(float x)
{
	float y;
	asm("tanh.approx.f32 %0, %1;" : "=f"(y) : "f"(x));
	return y;
}

template <int F> static __device__ __forceinline__ float fn(float x)
{
	switch (F) {
	case GD_SFU_EXP_FAST:
		return __expf(x);
	case GD_SFU_EXP:
		return expf(x);
	case GD_SFU_SIN_FAST:
		return __sinf(x);
	case GD_SFU_SIN:
		return sinf(x);
	case GD_SFU_RSQRT_FAST:
		return rsqrtf(x);
	case GD_SFU_RSQRT:
		return 1.0f / sqrtf(x);
	case GD_SFU_GELU_ERF:
		return 0.5f * x * (1.0f + erff(x * 0.70710678118654752f));
	case GD_SFU_GELU_TANH:
		return 0.5f * x * (1.0f + tanhf(0.79788456080286536f * (x + 0.044715f * x * x * x)));
	case GD_SFU_GELU_TANH_FAST:
		return 0.5f * x * (1.0f + tanh_approx(0.79788456080286536f * (x + 0.044715f * x * x * x)));
	default:
		return 0.0f;
	}
}

template <int F> static __global__ void sfu_throughput(float *out, int iters, float lo, float width)
{
	int t = blockIdx.x * blockDim.x + threadIdx.x;
	int nt = gridDim.x * blockDim.x;
	/* Arguments spread over the domain; all steps together move them by width / 4,
	 * so with starts in the first 11/16 of the domain they stay inside [lo, lo + width]. */
	float h = __fdiv_rn(width, __fmul_rn(4.0f, (float)iters));
	float w16 = __fmul_rn(width, 0.0625f);
	float x0 = __fadd_rn(lo, __fmul_rn(__fmul_rn(width, 0.5f), __fdiv_rn((float)t, (float)nt)));
	float x1 = __fadd_rn(x0, w16), x2 = __fadd_rn(x1, w16), x3 = __fadd_rn(x2, w16);
	float a0 = 0, a1 = 0, a2 = 0, a3 = 0;
	for (int k = 0; k < iters; k++) {
		a0 += fn<F>(x0);
		a1 += fn<F>(x1);
		a2 += fn<F>(x2);
		a3 += fn<F>(x3);
		x0 = __fadd_rn(x0, h);
		x1 = __fadd_rn(x1, h);
		x2 = __fadd_rn(x2, h);
		x3 = __fadd_rn(x3, h);
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
#define C(k)                                                                                                 \
	case k:                                                                                              \
		return sfu_throughput<k>;
		GD_SFU_TABLE(C)
#undef C
	default:
		return NULL;
	}
}

static eval_fn eval_of(int f)
{
	switch (f) {
#define C(k)                                                                                                 \
	case k:                                                                                              \
		return sfu_eval<k>;
		GD_SFU_TABLE(C)
#undef C
	default:
		return NULL;
	}
}

extern "C" int gd_sfu_domain(int f, double *lo, double *hi)
{
	switch (f) {
	case GD_SFU_EXP_FAST:
	case GD_SFU_EXP:
		*lo = -10;
		*hi = 10;
		return 0;
	case GD_SFU_SIN_FAST:
	case GD_SFU_SIN:
		*lo = -3.14159;
		*hi = 3.14159;
		return 0; /* inside [-π, π] once rounded to float */
	case GD_SFU_RSQRT_FAST:
	case GD_SFU_RSQRT:
		*lo = 0.01;
		*hi = 100;
		return 0;
	case GD_SFU_GELU_ERF:
	case GD_SFU_GELU_TANH:
	case GD_SFU_GELU_TANH_FAST:
		*lo = -8;
		*hi = 8;
		return 0;
	default:
		return -1;
	}
}

extern "C" int gd_labk_sfu_throughput(int f, float *out, int blocks, int iters)
{
	double lo, hi;
	tput_fn k = tput_of(f);
	if (!k || gd_sfu_domain(f, &lo, &hi) || blocks <= 0 || iters <= 0)
		return (int)cudaErrorInvalidValue;
	k<<<blocks, 256>>>(out, iters, (float)lo, (float)(hi - lo));
	return (int)cudaGetLastError();
}

extern "C" int gd_labk_sfu_eval(int f, const float *x, float *y, size_t n)
{
	eval_fn k = eval_of(f);
	if (!k || n == 0)
		return (int)cudaErrorInvalidValue;
	k<<<(unsigned)((n + 255) / 256), 256>>>(x, y, n);
	return (int)cudaGetLastError();
}
