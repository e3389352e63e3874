/* CPU references of `gpudiag lab precision`, exposed for the CPU-tier tests. */
#ifndef GPUDIAG_LAB_PRECISION_H
#define GPUDIAG_LAB_PRECISION_H

#include "lab/lab.h"

#include <stddef.h>

/* The kernel's y[i] = T(a · float(x[i])): one FP32 multiply, rounded to t (nearest even;
 * e4m3 saturating). */
double gd_labprec_scale_ref(const void *in, size_t i, enum gd_lab_dtype t, float a);
/* C[i][j] of A (m×k row-major) times B in FP64 from inputs of type t; B is n×k row-major
 * (C = A·Bᵀ) when ldb_nk, else k×n row-major. *scale (if not NULL) receives Σ_p |a·b|. */
double gd_labprec_gemm_ref(const void *a, const void *b, enum gd_lab_dtype t, int k, int i, int j, int ldb_nk,
			   int n, double *scale);

#endif
