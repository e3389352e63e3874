// Accuracy suite, CLEAN: a cuBLAS BF16 GEMM loop on a non-blocking stream — a stack of 4096²
// layers applied to a 4096-row batch, 2000 GEMMs (FP32 accumulation).
//
// Why it is well written: one cuBLAS handle made once, bound to a stream created with
// cudaStreamNonBlocking; inputs initialised on the GPU (no host upload); BF16 inputs so the
// GEMMs run on tensor cores; no synchronisation or copy inside the loop; one asynchronous copy
// of a few result values into pinned memory at the end.
// Expected verdict: none. (cublasCreate and the first GEMM's heuristics are one-off warm-up.)
// Runtime on an H200: ~2–3 s (≈0.2 ms per GEMM, 0.4 s of GPU work, plus cuBLAS start-up).
// Build: nvcc -O2 -arch=sm_90 clean_cublas_stream.cu -lcublas -o clean_cublas_stream
#include "common.h"
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <math.h>

#define CB(x)                                                                                     \
	do {                                                                                      \
		cublasStatus_t s_ = (x);                                                          \
		if (s_ != CUBLAS_STATUS_SUCCESS) {                                                \
			fprintf(stderr, "%s:%d: %s: cuBLAS status %d\n", __FILE__, __LINE__, #x, (int)s_); \
			exit(1);                                                                  \
		}                                                                                 \
	} while (0)

/* deterministic values in [-0.5, 0.5): a hash of the index, so no host data is needed */
static __global__ void init_matrix(__nv_bfloat16 *x, size_t n, unsigned seed)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
		unsigned h = (unsigned)i * 2654435761u ^ seed;
		h ^= h >> 15;
		h *= 2246822519u;
		h ^= h >> 13;
		x[i] = __float2bfloat16((float)(h & 0xffff) / 65536.0f - 0.5f);
	}
}

int main(void)
{
	const int n = 4096, layers = 8, reps = 250; // 8 layers x 250 passes = 2000 GEMMs
	const size_t nn = (size_t)n * n;
	cudaStream_t st;
	cublasHandle_t hb;
	__nv_bfloat16 *W, *X[2];
	float *h;
	/* alpha keeps the activations' scale: entries of W are ~U(-0.5, 0.5), variance 1/12 */
	const float alpha = 1.0f / sqrtf((float)n / 12.0f), beta = 0;
	CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
	CK(cudaMalloc(&W, layers * nn * sizeof(*W)));
	CK(cudaMalloc(&X[0], nn * sizeof(*W)));
	CK(cudaMalloc(&X[1], nn * sizeof(*W)));
	CK(cudaMallocHost(&h, 16 * sizeof(float))); /* holds 16 BF16 values (and room to spare) */
	init_matrix<<<132 * 8, 256, 0, st>>>(W, layers * nn, 1);
	init_matrix<<<132 * 8, 256, 0, st>>>(X[0], nn, 2);
	CK(cudaGetLastError());
	CB(cublasCreate(&hb));
	CB(cublasSetStream(hb, st));
	int cur = 0;
	for (int r = 0; r < reps; r++)
		for (int l = 0; l < layers; l++, cur ^= 1)
			CB(cublasGemmEx(hb, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, W + l * nn, CUDA_R_16BF, n, X[cur],
					CUDA_R_16BF, n, &beta, X[cur ^ 1], CUDA_R_16BF, n, CUBLAS_COMPUTE_32F,
					CUBLAS_GEMM_DEFAULT));
	CK(cudaMemcpyAsync(h, X[cur], 16 * sizeof(__nv_bfloat16), cudaMemcpyDeviceToHost, st));
	CK(cudaStreamSynchronize(st));
	const __nv_bfloat16 *r16 = (const __nv_bfloat16 *)h;
	float v0 = __bfloat162float(r16[0]);
	if (!isfinite(v0)) {
		fprintf(stderr, "check failed: result %g is not finite\n", v0);
		return 1;
	}
	printf("clean_cublas_stream: %d GEMMs of %d^3, x[0] = %g\n", reps * layers, n, v0);
	CB(cublasDestroy(hb));
	CK(cudaFree(W));
	CK(cudaFree(X[0]));
	CK(cudaFree(X[1]));
	CK(cudaFreeHost(h));
	CK(cudaStreamDestroy(st));
	return 0;
}
