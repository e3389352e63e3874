// Small CUDA programs for tests/gpu/verdicts.sh, one mode per verdict rule, each planting one
// problem in an otherwise sound program; "clean" is a cuBLAS BF16 GEMM loop that must raise
// no warning. Build: nvcc -O2 -arch=sm_90 verdicts_progs.cu -lcublas -o verdicts_progs
// Run:   gpudiag run -o X.sqlite -- ./verdicts_progs MODE
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CK(x)                                                                              \
	do {                                                                               \
		cudaError_t e_ = (x);                                                      \
		if (e_ != cudaSuccess) {                                                   \
			fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
			exit(1);                                                           \
		}                                                                          \
	} while (0)
#define CB(x)                                                                              \
	do {                                                                               \
		cublasStatus_t s_ = (x);                                                   \
		if (s_ != CUBLAS_STATUS_SUCCESS) {                                         \
			fprintf(stderr, "%s:%d: %s: cuBLAS status %d\n", __FILE__, __LINE__, #x, (int)s_); \
			exit(1);                                                           \
		}                                                                          \
	} while (0)

static void spin_us(double us)
{
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	do
		clock_gettime(CLOCK_MONOTONIC, &b);
	while ((b.tv_sec - a.tv_sec) * 1e6 + (b.tv_nsec - a.tv_nsec) * 1e-3 < us);
}

// ~`iters` dependent FMAs per thread: a compute kernel whose time is set by iters.
static __global__ void work_kernel(float *x, int n, int iters)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float v = x[i];
	for (int k = 0; k < iters; k++)
		v = v * 0.999f + 0.001f;
	x[i] = v;
}

static __global__ void tiny_add(float *x) { x[threadIdx.x] += 1.0f; }

static __global__ void scale_add_kernel(const float *a, float *b, int n)
{
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
		b[i] = 2.0f * a[i] + b[i];
}

static __global__ void sgemm_naive(const float *A, const float *B, float *C, int n)
{
	int r = blockIdx.y * 16 + threadIdx.y, c = blockIdx.x * 16 + threadIdx.x;
	if (r >= n || c >= n)
		return;
	float acc = 0;
	for (int k = 0; k < n; k++)
		acc += A[(size_t)r * n + k] * B[(size_t)k * n + c];
	C[(size_t)r * n + c] = acc;
}

static __global__ void fill_bf16(__nv_bfloat16 *x, size_t n)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
		x[i] = __float2bfloat16((float)(i % 17) * 0.01f);
}

int main(int argc, char **argv)
{
	const char *m = argc > 1 ? argv[1] : "";
	const int N = 132 * 8 * 256; // one full wave of 256-thread blocks at 8 blocks/SM on H200
	float *d;
	if (!strcmp(m, "none")) { // never touches CUDA
		puts("no CUDA");
		return 0;
	}
	CK(cudaMalloc(&d, (size_t)64 << 20));
	CK(cudaMemset(d, 0, (size_t)64 << 20));
	if (!strcmp(m, "idle")) { // host busy 1 ms between 200 µs kernels
		for (int i = 0; i < 300; i++) {
			work_kernel<<<N / 256, 256>>>(d, N, 20000);
			CK(cudaGetLastError());
			spin_us(1000);
		}
	} else if (!strcmp(m, "launch")) { // 20000 tiny kernels back to back
		for (int i = 0; i < 20000; i++)
			tiny_add<<<1, 32>>>(d);
		CK(cudaGetLastError());
	} else if (!strcmp(m, "sync")) { // sync after every kernel, then 100 µs of host work
		for (int i = 0; i < 400; i++) {
			work_kernel<<<N / 256, 256>>>(d, N, 30000);
			CK(cudaGetLastError());
			CK(cudaDeviceSynchronize());
			spin_us(100);
		}
	} else if (!strcmp(m, "pageable")) { // 64 MiB copies from malloc'd memory
		size_t bytes = (size_t)64 << 20;
		float *h = (float *)malloc(bytes);
		memset(h, 1, bytes);
		for (int i = 0; i < 20; i++) {
			CK(cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice));
			work_kernel<<<N / 256, 256>>>(d, N, 2000);
			CK(cudaGetLastError());
		}
		free(h);
	} else if (!strcmp(m, "default_stream")) { // legacy-stream work between two blocking streams
		cudaStream_t s1, s2;
		float *d2, *d3;
		CK(cudaStreamCreate(&s1));
		CK(cudaStreamCreate(&s2));
		CK(cudaMalloc(&d2, (size_t)N * 4));
		CK(cudaMalloc(&d3, (size_t)N * 4));
		for (int i = 0; i < 200; i++) {
			work_kernel<<<N / 256, 256, 0, s1>>>(d, N, 30000);
			work_kernel<<<N / 256, 256, 0, s2>>>(d2, N, 30000);
			work_kernel<<<N / 256, 256>>>(d3, N, 20000);
		}
		CK(cudaGetLastError());
	} else if (!strcmp(m, "occupancy")) { // 64 blocks on 132 SMs
		for (int i = 0; i < 300; i++)
			work_kernel<<<64, 256>>>(d, 64 * 256, 100000);
		CK(cudaGetLastError());
	} else if (!strcmp(m, "membound")) { // chains of elementwise kernels
		float *a = d, *b = d + ((size_t)8 << 20);
		for (int i = 0; i < 300; i++) {
			scale_add_kernel<<<132 * 8, 256>>>(a, b, 8 << 20);
			scale_add_kernel<<<132 * 8, 256>>>(b, a, 8 << 20);
		}
		CK(cudaGetLastError());
	} else if (!strcmp(m, "tensor")) { // FP32 GEMM on CUDA cores
		const int n = 1024;
		float *A = d, *B = d + (size_t)n * n, *C = d + 2 * (size_t)n * n;
		for (int i = 0; i < 20; i++)
			sgemm_naive<<<dim3(n / 16, n / 16), dim3(16, 16)>>>(A, B, C, n);
		CK(cudaGetLastError());
	} else if (!strcmp(m, "memory")) { // fill device memory to 98 % and keep working
		size_t fr, tot;
		void *big;
		CK(cudaMemGetInfo(&fr, &tot));
		size_t want = fr - (size_t)(0.015 * tot);
		CK(cudaMalloc(&big, want));
		CK(cudaMemset(big, 0, want));
		for (int i = 0; i < 3000; i++)
			work_kernel<<<N / 256, 256>>>(d, N, 20000);
		CK(cudaGetLastError());
		CK(cudaDeviceSynchronize());
		CK(cudaFree(big));
	} else if (!strcmp(m, "oom")) { // every step first tries a workspace larger than the device,
		// then falls back: an allocation that fails in the loop, with little memory in use
		size_t fr, tot;
		CK(cudaMemGetInfo(&fr, &tot));
		for (int i = 0; i < 300; i++) {
			void *ws = NULL;
			if (cudaMalloc(&ws, 2 * tot) == cudaSuccess) // never: twice the device's memory
				CK(cudaFree(ws));
			(void)cudaGetLastError(); // the failure cleared, as a fallback path does
			work_kernel<<<N / 256, 256>>>(d, N, 20000);
		}
		CK(cudaGetLastError());
	} else if (!strcmp(m, "clean")) { // large BF16 GEMMs back to back on one stream
		const int n = 8192;
		__nv_bfloat16 *A, *B, *C;
		cublasHandle_t h;
		float one = 1, zero = 0;
		CK(cudaMalloc(&A, (size_t)n * n * 2));
		CK(cudaMalloc(&B, (size_t)n * n * 2));
		CK(cudaMalloc(&C, (size_t)n * n * 2));
		CB(cublasCreate(&h));
		fill_bf16<<<1056, 256>>>(A, (size_t)n * n);
		fill_bf16<<<1056, 256>>>(B, (size_t)n * n);
		CK(cudaGetLastError());
		for (int i = 0; i < 100; i++)
			CB(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, A, CUDA_R_16BF, n, B, CUDA_R_16BF, n, &zero, C,
					CUDA_R_16BF, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
		CK(cudaDeviceSynchronize());
		CB(cublasDestroy(h));
	} else {
		fprintf(stderr, "usage: %s none|idle|launch|sync|pageable|default_stream|occupancy|membound|tensor|memory|oom|clean\n",
			argv[0]);
		return 2;
	}
	CK(cudaDeviceSynchronize());
	CK(cudaFree(d));
	printf("%s: done\n", m);
	return 0;
}
