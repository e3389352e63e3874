/* `gpudiag lab fusion` (guide §9, kernel fusion): the parts that need no GPU — CPU
 * references for LayerNorm and GeLU, the byte and FLOP accounting of every variant — and
 * the lab entry point. */
#ifndef GPUDIAG_LAB_FUSION_H
#define GPUDIAG_LAB_FUSION_H

#include <stddef.h>

/* Exact GeLU, 0.5·x·(1 + erf(x/√2)). */
double gd_gelu_ref(double x);

/* y[r][c] = (x − mean_r)/sqrt(var_r + eps)·gamma[c] + beta[c], then GeLU when gelu != 0.
 * Population variance (divide by hidden), as torch.nn.LayerNorm. FP64 throughout. */
void gd_layernorm_ref(const float *x, const float *gamma, const float *beta, int rows, int hidden,
		      double eps, int gelu, double *y);

/* The chain y = GeLU(x·a + b)·c; `rounded` rounds to BF16 after each op as the unfused
 * kernels do (their intermediates are BF16 tensors). */
double gd_chain_ref(double x, double a, double b, double c, int rounded);

/* Bytes each kernel must move (each tensor read or written once; GB = 1e9), for tokens T,
 * hidden H, GEMM output width N (Linear H → N), BF16 activations, FP32 gamma/beta. */
struct gd_fusion_acct {
	double ln, gelu, ln_gelu;   /* the row kernels */
	double gemm, gemm_flops;    /* Linear: X[T×H]·W[N×H]ᵀ → Y[T×N]; 2·T·N·H FLOPs */
	double v1, v2, v3;          /* per variant: 1 unfused, 2 LN+GeLU fused, 3 chunked (HBM
	                             * if the chunk of activations stays in L2) */
	double chain_unfused, chain_fused; /* the 4-op elementwise chain over `count` values */
};
void gd_fusion_account(long long t, long long h, long long n, long long count,
		       struct gd_fusion_acct *a);


/* Sizes of one run. Defaults: tokens 8192, hidden 4096, out 4096 (Linear hidden → out),
 * chain 2^27 elements; --quick: 2048, 1024, 1024, 2^24. */
struct gd_fusion_cfg {
	long long tokens, hidden, out, chain;
};
/* Applies "tokens=8192,hidden=4096,out=4096,chain=134217728" (any subset, in any order;
 * K/M/G and Ki/Mi/Gi suffixes) to cfg, and checks the result (hidden and out multiples of
 * 8 up to GD_FU_MAX_HIDDEN = 16384, chain a multiple of 8). 0, or -1 with a reason in why.
 * The lab reads it from the environment variable GPUDIAG_LAB_FUSION (the lab harness owns
 * the command-line options). */
int gd_fusion_parse_cfg(const char *s, struct gd_fusion_cfg *cfg, char *why, size_t n);

#endif
