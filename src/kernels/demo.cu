// The demo workload: one "bad" half committing the guide's classic mistakes and one "good"
// half doing the same work well, so that `gpudiag run` (no command) shows each verdict on a
// program whose source is known. Build: part of gpudiag_kernels; run: `gpudiag __demo`.
//
// Bad half, per iteration:  (1) 200 tiny launches of a one-block kernel (launch-bound, §2/§9),
// (2) a 16 MiB copy from pageable malloc memory (§11), (3) work on the legacy default stream
// between two blocking streams (serialisation, §11), (4) a strided, uncoalesced kernel (§5),
// (5) cudaDeviceSynchronize at the end of every iteration (§11).
// Good half: the 200 additions fused into one kernel, pinned memory with cudaMemcpyAsync on
// non-blocking streams, a coalesced kernel, one synchronisation at the end.
#include "kernels/demo.h"

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CK(call)                                                                                  \
	do {                                                                                      \
		cudaError_t e_ = (call);                                                          \
		if (e_ != cudaSuccess) {                                                          \
			snprintf(why, n, "%s: %s", #call, cudaGetErrorString(e_));               \
			rc = -1;                                                                  \
			goto out;                                                                 \
		}                                                                                 \
	} while (0)

static const int N = 1 << 22;          // 4 Mi floats = 16 MiB per buffer
static const int TINY = 200;           // tiny launches per iteration

static __global__ void demo_tiny_add(float *x, float v)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < 32)
		x[i] += v;
}

static __global__ void demo_fused_add(float *x, float v, int times)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < 32)
		x[i] += v * times;
}

// Uncoalesced: consecutive threads touch addresses 32 floats apart (one 32-byte sector per
// thread instead of one per 8 threads).
static __global__ void demo_strided_scale(const float *in, float *out, int n)
{
	long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (t >= n)
		return;
	long long j = (t * 32) % n + (t * 32) / n;
	out[j] = 2.0f * in[j];
}

static __global__ void demo_coalesced_scale(const float *in, float *out, int n)
{
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
		out[i] = 2.0f * in[i];
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

extern "C" int gd_demo_run(int device, int iters, struct gd_demo_times *t, char *why, size_t n)
{
	int rc = 0;
	float *h_page = NULL, *h_pin = NULL, *d_in = NULL, *d_out = NULL, *d_acc = NULL;
	cudaStream_t s1 = NULL, s2 = NULL, n1 = NULL, n2 = NULL;
	float acc[32];
	double t0;
	const size_t bytes = (size_t)N * sizeof(float);
	memset(t, 0, sizeof(*t));

	CK(cudaSetDevice(device));
	h_page = (float *)malloc(bytes);
	if (!h_page) {
		snprintf(why, n, "out of host memory");
		return -1;
	}
	for (int i = 0; i < N; i++)
		h_page[i] = (float)(i % 1000);
	CK(cudaMallocHost((void **)&h_pin, bytes));
	memcpy(h_pin, h_page, bytes);
	CK(cudaMalloc((void **)&d_in, bytes));
	CK(cudaMalloc((void **)&d_out, bytes));
	CK(cudaMalloc((void **)&d_acc, 32 * sizeof(float)));
	CK(cudaMemset(d_acc, 0, 32 * sizeof(float)));
	CK(cudaStreamCreate(&s1)); // blocking streams: they synchronise with the legacy stream
	CK(cudaStreamCreate(&s2));
	CK(cudaStreamCreateWithFlags(&n1, cudaStreamNonBlocking));
	CK(cudaStreamCreateWithFlags(&n2, cudaStreamNonBlocking));

	// ---- the bad half ----
	t0 = now_ms();
	for (int it = 0; it < iters; it++) {
		for (int k = 0; k < TINY; k++)
			demo_tiny_add<<<1, 32>>>(d_acc, 1.0f);
		CK(cudaGetLastError());
		CK(cudaMemcpy(d_in, h_page, bytes, cudaMemcpyHostToDevice)); // pageable, synchronous
		demo_coalesced_scale<<<264, 256, 0, s1>>>(d_in, d_out, N / 2);
		demo_strided_scale<<<(N + 255) / 256, 256>>>(d_in, d_out, N); // legacy stream between s1 and s2
		demo_coalesced_scale<<<264, 256, 0, s2>>>(d_in, d_out, N / 2);
		CK(cudaGetLastError());
		CK(cudaDeviceSynchronize());
	}
	t->bad_ms = now_ms() - t0;
	CK(cudaMemcpy(acc, d_acc, sizeof(acc), cudaMemcpyDeviceToHost));
	t->checked = acc[0] == (float)(TINY * iters) && acc[31] == (float)(TINY * iters);

	// ---- the good half ----
	CK(cudaMemset(d_acc, 0, 32 * sizeof(float)));
	t0 = now_ms();
	for (int it = 0; it < iters; it++) {
		demo_fused_add<<<1, 32, 0, n1>>>(d_acc, 1.0f, TINY);
		CK(cudaMemcpyAsync(d_in, h_pin, bytes, cudaMemcpyHostToDevice, n2));
		demo_coalesced_scale<<<264 * 4, 256, 0, n2>>>(d_in, d_out, N);
		CK(cudaGetLastError());
	}
	CK(cudaStreamSynchronize(n1));
	CK(cudaStreamSynchronize(n2));
	t->good_ms = now_ms() - t0;
	CK(cudaMemcpy(acc, d_acc, sizeof(acc), cudaMemcpyDeviceToHost));
	t->checked = t->checked && acc[0] == (float)(TINY * iters);
out:
	if (s1) cudaStreamDestroy(s1);
	if (s2) cudaStreamDestroy(s2);
	if (n1) cudaStreamDestroy(n1);
	if (n2) cudaStreamDestroy(n2);
	cudaFree(d_in);
	cudaFree(d_out);
	cudaFree(d_acc);
	cudaFreeHost(h_pin);
	free(h_page);
	return rc;
}
