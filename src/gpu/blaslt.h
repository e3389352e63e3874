/* cuBLASLt, loaded at run time (libcublasLt.so.13, or GPUDIAG_LIBCUBLASLT).
 *
 * The "achievable by a real GEMM" line of the roofline, the precision lab's GEMMs and the
 * fusion lab's Linear all go through this one module. Owned by the roofline module
 * (src/gpu/blaslt.c). Row-major C[m×n] = A[m×k] · B[k×n]ᵀ conventions are documented in
 * blaslt.c; callers pass device pointers. */
#ifndef GPUDIAG_BLASLT_H
#define GPUDIAG_BLASLT_H

#include "gpu/arch.h"

#include <stddef.h>

/* Loads the library. GD_OK, or GD_ENOGPU with the reason in why. */
int gd_blaslt_open(char *why, size_t n);

/* One GEMM description. Precisions: GD_P_FP32 (plain FP32), GD_P_TF32 (FP32 data, TF32
 * tensor cores), GD_P_FP16, GD_P_BF16 (FP32 accumulate, output in the same type),
 * GD_P_FP8 (e4m3 inputs, BF16 output, unit scales), GD_P_INT8 (int32 output). */
struct gd_gemm {
	enum gd_prec prec;
	int m, n, k;
	const void *a, *b; /* device pointers */
	void *c;
	void *workspace;   /* device pointer, may be NULL */
	size_t workspace_bytes;
	void *stream;      /* cudaStream_t, NULL = default */
};

/* Prepares (heuristic algorithm choice) and runs one GEMM; the plan is cached by shape and
 * precision so repeated calls cost one launch. Returns GD_OK, GD_EFAIL with why set, or
 * GD_ENOGPU when the precision is not supported on this device/library. */
int gd_gemm_run(const struct gd_gemm *g, char *why, size_t n);
/* Frees cached plans and handles. */
void gd_blaslt_close(void);

#endif
