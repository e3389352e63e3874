/* Kernels of `gpudiag lab precision` (src/lab/lab_precision.c). Launchers enqueue on the
 * default stream and return a cudaError_t as int (0 = ok). */
#ifndef GPUDIAG_LAB_PRECISION_KERNELS_H
#define GPUDIAG_LAB_PRECISION_KERNELS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Element types of the memory-bound op (values match enum gd_lab_dtype for F32..FP8E4M3). */
enum { GD_LABK_F32 = 1, GD_LABK_F16 = 2, GD_LABK_BF16 = 3, GD_LABK_E4M3 = 4 };

/* out[i] = T(a · float(in[i])) for the n16 16-byte vectors of in (n16·16/sizeof(T) elements),
 * rounded to nearest even; e4m3 saturates to ±448 (__NV_SATFINITE). */
int gd_labk_prec_scale(int type, const void *in, void *out, size_t n16, float a, int blocks);

/* CUDA's own conversion of f to `type` (raw bits), run on the host (cuda_fp16.h, cuda_bf16.h
 * and cuda_fp8.h are host-callable): the CPU tier checks the labs' C conversions against it. */
unsigned gd_labk_cvt_host(int type, float f);
/* CUDA's e4m3 → float, on the host. */
float gd_labk_e4m3_to_f32_host(unsigned char v);

#ifdef __cplusplus
}
#endif

#endif
