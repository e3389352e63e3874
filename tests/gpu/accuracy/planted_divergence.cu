// Accuracy suite, PLANTED divergence (judged only with kernel counters: run.sh --metrics): a
// Monte Carlo estimate of the variance of a normal distribution truncated to [-2, 2], drawn by
// rejection: each thread draws its own samples, and for each one loops until a candidate is
// accepted (acceptance about 0.6). A warp's loop runs until its unluckiest thread is accepted,
// with the lucky threads masked off meanwhile, so most instructions run with well under 32
// active threads. Everything else is sound: one launch per batch on one stream, a full grid, no
// copies or syncs in the loop, the sums reduced in the block before one atomic per block.
// Planted: a data-dependent loop trip count per thread (the fix: sample by the inverse CDF, or
// let the warp's threads share accepted candidates, so every lane does useful work).
// Expected verdict (with --metrics): top finding divergence. Without counters the rule cannot
// judge, so it must not fire (score.py).
// Runtime: 50 batches of a few ms (measured: docs/gpu-tier.md).
// Build: nvcc -O2 -arch=sm_90 planted_divergence.cu -o planted_divergence
#include "common.h"

#define PER_THREAD 4096

static __device__ unsigned xorshift(unsigned *s)
{
	unsigned x = *s;
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return *s = x;
}

static __device__ float uniform(unsigned *s) /* in [0, 1) */
{
	return (xorshift(s) >> 8) * (1.0f / 16777216.0f);
}

/* PER_THREAD accepted draws per thread; the block's sums of x and x² added to acc[0], acc[1] */
static __global__ void draw(double *acc, unsigned seed)
{
	__shared__ float sx[256], sxx[256];
	/* a seed per thread, its bits mixed (a finaliser of a hash) so neighbouring threads' first
	 * draws are not alike */
	unsigned s = seed ^ (0x9e3779b9u * (blockIdx.x * blockDim.x + threadIdx.x + 1));
	s ^= s >> 16;
	s *= 0x85ebca6bu;
	s ^= s >> 13;
	s *= 0xc2b2ae35u;
	s ^= s >> 16;
	s |= 1u; /* xorshift never leaves 0 */
	float ax = 0.f, axx = 0.f;
	for (int k = 0; k < PER_THREAD; k++) {
		float x;
		for (;;) { /* the planted loop: each thread's trip count is its own luck */
			x = 4.f * uniform(&s) - 2.f;
			if (uniform(&s) < __expf(-0.5f * x * x))
				break;
		}
		ax += x;
		axx += x * x;
	}
	sx[threadIdx.x] = ax;
	sxx[threadIdx.x] = axx;
	__syncthreads();
	for (int h = blockDim.x / 2; h > 0; h /= 2) {
		if (threadIdx.x < h) {
			sx[threadIdx.x] += sx[threadIdx.x + h];
			sxx[threadIdx.x] += sxx[threadIdx.x + h];
		}
		__syncthreads();
	}
	if (threadIdx.x == 0) {
		atomicAdd(&acc[0], (double)sx[0]);
		atomicAdd(&acc[1], (double)sxx[0]);
	}
}

int main(void)
{
	const int blocks = 132 * 16, threads = 256, batches = 50;
	double *acc, h[2];
	CK(cudaMalloc(&acc, 2 * sizeof(double)));
	CK(cudaMemset(acc, 0, 2 * sizeof(double)));
	for (int b = 0; b < batches; b++)
		draw<<<blocks, threads>>>(acc, 12345u + 7919u * (unsigned)b);
	CK(cudaGetLastError());
	CK(cudaMemcpy(h, acc, sizeof(h), cudaMemcpyDeviceToHost));
	/* the truncated normal on [-2, 2]: mean 0, variance 1 - 4 φ(2) / (2 Φ(2) - 1) = 0.7737 */
	double n = (double)blocks * threads * PER_THREAD * batches, mean = h[0] / n, var = h[1] / n - mean * mean;
	if (mean < -0.01 || mean > 0.01 || var < 0.765 || var > 0.782) {
		fprintf(stderr, "check failed: mean %g (want 0), variance %g (want 0.7737)\n", mean, var);
		return 1;
	}
	printf("planted_divergence: %.0f samples, mean %.4f, variance %.4f, result ok\n", n, mean, var);
	CK(cudaFree(acc));
	return 0;
}
