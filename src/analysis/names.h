/* Kernel names: a short readable name from a mangled (Itanium C++ ABI) or demangled one,
 * and what the kernel is — its kind (GEMM, attention, elementwise...) and the library that
 * ships it — from the name alone. The rules are keyword heuristics, written down in
 * docs/verdicts.md; a kernel nobody recognises is "other" / "user", never guessed further. */
#ifndef GPUDIAG_NAMES_H
#define GPUDIAG_NAMES_H

#include <stddef.h>

enum gd_kkind {
	GD_KIND_GEMM = 0, GD_KIND_ATTENTION, GD_KIND_CONV, GD_KIND_ELEMENTWISE, GD_KIND_REDUCTION,
	GD_KIND_NORM, GD_KIND_SOFTMAX, GD_KIND_COPY, GD_KIND_NCCL, GD_KIND_OTHER, GD_KIND_COUNT
};
enum gd_klib {
	GD_LIB_CUBLAS = 0, GD_LIB_CUDNN, GD_LIB_ATEN, GD_LIB_TRITON, GD_LIB_FLASH, GD_LIB_NCCL,
	GD_LIB_USER, GD_LIB_COUNT
};

const char *gd_kind_name(int kind);   /* "GEMM", "attention", ... */
const char *gd_lib_name(int lib);     /* "cuBLAS/cuBLASLt", ... */

/* Writes a short name: the function's qualified name without return type, template
 * arguments and parameters ("at::native::vectorized_elementwise_kernel"), at most n-1
 * bytes. Unparseable mangled names are returned as they are (truncated). */
char *gd_kernel_short_name(const char *name, char *buf, size_t n);
int gd_kernel_kind(const char *name);
int gd_kernel_lib(const char *name);
/* Tensor-core use judged from the name: 1 uses tensor cores, 0 runs on CUDA cores (FP32
 * SIMT GEMM such as "sgemm" without a tensor-op marker), -1 cannot tell. */
int gd_kernel_tensor_cores(const char *name);
/* Kinds whose kernels are memory-bound by construction (elementwise, reduction,
 * normalisation, softmax, copy). */
int gd_kind_memory_bound(int kind);

/* An API function's name as a user wrote it: CUPTI's version suffix dropped
 * ("cudaLaunchKernel_v7000" → "cudaLaunchKernel", "cudaMemcpyAsync_ptsz_v7000" →
 * "cudaMemcpyAsync_ptsz"), at most n-1 bytes. Returns buf. */
char *gd_api_display_name(const char *name, char *buf, size_t n);

#endif
