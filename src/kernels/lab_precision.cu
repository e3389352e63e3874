/* Kernels of `gpudiag lab precision`: one memory-bound op (y = a·x) in FP32, FP16, BF16 and
 * FP8-e4m3. Every type moves 16-byte vectors per thread, so the instruction stream per byte is
 * comparable and the time should follow the bytes. See lab_precision.h. */
#include "kernels/lab_precision.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>
#include <stdint.h>

template <int T> struct elem;
template <> struct elem<GD_LABK_F32> {
	typedef uint32_t raw;
	static __device__ __forceinline__ float get(raw v) { return __uint_as_float(v); }
	static __device__ __forceinline__ raw put(float f) { return __float_as_uint(f); }
};
template <> struct elem<GD_LABK_F16> {
	typedef unsigned short raw;
	static __device__ __forceinline__ float get(raw v) { return __half2float(__ushort_as_half(v)); }
	static __device__ __forceinline__ raw put(float f) { return __half_as_ushort(__float2half_rn(f)); }
};
template <> struct elem<GD_LABK_BF16> {
	typedef unsigned short raw;
	static __device__ __forceinline__ float get(raw v)
	{
		return __bfloat162float(__ushort_as_bfloat16(v));
	}
	static __device__ __forceinline__ raw put(float f)
	{
		return __bfloat16_as_ushort(__float2bfloat16_rn(f));
	}
};
template <> struct elem<GD_LABK_E4M3> {
	typedef unsigned char raw;
	static __device__ __forceinline__ float get(raw v)
	{
		return __half2float(__half(__nv_cvt_fp8_to_halfraw((__nv_fp8_storage_t)v, __NV_E4M3)));
	}
	static __device__ __forceinline__ raw put(float f)
	{
		return (raw)__nv_cvt_float_to_fp8(f, __NV_SATFINITE, __NV_E4M3);
	}
};

template <int T> static __device__ __forceinline__ uint4 scale16(uint4 u, float a)
{
	typedef typename elem<T>::raw raw;
	const int per = 16 / sizeof(raw);
	raw x[per], y[per];
	uint4 w;
	memcpy(x, &u, 16);
#pragma unroll
	for (int k = 0; k < per; k++)
		y[k] = elem<T>::put(a * elem<T>::get(x[k]));
	memcpy(&w, y, 16);
	return w;
}

/* Two independent 16-byte loads in flight per thread (as many bytes per thread for every type,
 * so the types differ only in how many elements those bytes hold). */
template <int T>
static __global__ void k_scale(const uint4 *__restrict__ in, uint4 *__restrict__ out, size_t n16, float a)
{
	size_t G = (size_t)gridDim.x * blockDim.x, i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	for (; i + G < n16; i += 2 * G) {
		uint4 u0 = in[i], u1 = in[i + G];
		out[i] = scale16<T>(u0, a);
		out[i + G] = scale16<T>(u1, a);
	}
	for (; i < n16; i += G)
		out[i] = scale16<T>(in[i], a);
}

extern "C" int gd_labk_prec_scale(int type, const void *in, void *out, size_t n16, float a, int blocks)
{
	const uint4 *i4 = (const uint4 *)in;
	uint4 *o4 = (uint4 *)out;
	switch (type) {
	case GD_LABK_F32:
		k_scale<GD_LABK_F32><<<blocks, 256>>>(i4, o4, n16, a);
		break;
	case GD_LABK_F16:
		k_scale<GD_LABK_F16><<<blocks, 256>>>(i4, o4, n16, a);
		break;
	case GD_LABK_BF16:
		k_scale<GD_LABK_BF16><<<blocks, 256>>>(i4, o4, n16, a);
		break;
	case GD_LABK_E4M3:
		k_scale<GD_LABK_E4M3><<<blocks, 256>>>(i4, o4, n16, a);
		break;
	default:
		return (int)cudaErrorInvalidValue;
	}
	return (int)cudaGetLastError();
}

extern "C" unsigned gd_labk_cvt_host(int type, float f)
{
	switch (type) {
	case GD_LABK_F32: {
		unsigned u;
		memcpy(&u, &f, 4);
		return u;
	}
	case GD_LABK_F16:
		return __half_as_ushort(__float2half_rn(f));
	case GD_LABK_BF16:
		return __bfloat16_as_ushort(__float2bfloat16_rn(f));
	case GD_LABK_E4M3:
		return (unsigned)__nv_cvt_float_to_fp8(f, __NV_SATFINITE, __NV_E4M3);
	default:
		return 0;
	}
}

extern "C" float gd_labk_e4m3_to_f32_host(unsigned char v)
{
	return __half2float(__half(__nv_cvt_fp8_to_halfraw((__nv_fp8_storage_t)v, __NV_E4M3)));
}
