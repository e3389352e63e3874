// Accuracy suite, PLANTED uncoalesced (judged only with kernel counters: run.sh --metrics): a
// feature-scaling pass over a row-major table of 1 Mi samples × 64 features (256 MB), each row
// divided by its own sum, 200 passes. The kernel gives each thread one row and walks the row's
// features: neighbouring threads of a warp read addresses 256 B apart, so every warp-wide load
// touches 32 sectors where 4 would do, and with 2048 rows in flight per SM the rows do not stay
// in L1 between a thread's loads. Everything else is sound: buffers made once, one stream, no
// copies or syncs in the loop, a full grid.
// Planted: one thread per row of a row-major matrix (the fix: a warp per row, or the table
// transposed, so that a warp's loads are consecutive).
// Expected verdict (with --metrics): top finding uncoalesced. Without counters the rule cannot
// judge, so it must not fire (score.py).
// Runtime: 200 passes of a few ms (measured: docs/gpu-tier.md).
// Build: nvcc -O2 -arch=sm_90 planted_uncoalesced.cu -o planted_uncoalesced
#include "common.h"

#define FEATURES 64

/* the planted access: thread i walks row i, a warp's 32 loads of one step 256 B apart */
static __global__ void scale_rows(const float *x, float *y, int rows)
{
	int r = blockIdx.x * blockDim.x + threadIdx.x;
	if (r >= rows)
		return;
	const float *in = x + (size_t)r * FEATURES;
	float s = 0.f;
	for (int j = 0; j < FEATURES; j++)
		s += in[j];
	float inv = s != 0.f ? 1.f / s : 0.f;
	for (int j = 0; j < FEATURES; j++)
		y[(size_t)r * FEATURES + j] = in[j] * inv;
}

/* x[r][j] = 1 + (r + j) % 7: every row sums to a known value (a check that needs no CPU copy) */
static __global__ void init_table(float *x, size_t n)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
		x[i] = 1.0f + (float)((i / FEATURES + i % FEATURES) % 7);
}

int main(void)
{
	const int rows = 1 << 20, passes = 200, check_rows = 256;
	const size_t n = (size_t)rows * FEATURES;
	float *x, *y, *h;
	CK(cudaMalloc(&x, n * sizeof(float)));
	CK(cudaMalloc(&y, n * sizeof(float)));
	CK(cudaMallocHost(&h, (size_t)check_rows * FEATURES * sizeof(float)));
	init_table<<<132 * 8, 256>>>(x, n);
	CK(cudaGetLastError());
	for (int p = 0; p < passes; p++)
		scale_rows<<<(rows + 255) / 256, 256>>>(x, y, rows);
	CK(cudaGetLastError());
	/* the last rows: each scaled row sums to 1, and y[r][j] is x[r][j] over the row's sum */
	CK(cudaMemcpy(h, y + n - (size_t)check_rows * FEATURES, (size_t)check_rows * FEATURES * sizeof(float),
		      cudaMemcpyDeviceToHost));
	for (int k = 0; k < check_rows; k++) {
		size_t r = (size_t)rows - check_rows + k;
		double sum = 0;
		for (int j = 0; j < FEATURES; j++)
			sum += 1.0 + (double)((r + j) % 7);
		for (int j = 0; j < FEATURES; j++) {
			double want = (1.0 + (double)((r + j) % 7)) / sum;
			if (h[k * FEATURES + j] < 0.999 * want || h[k * FEATURES + j] > 1.001 * want) {
				fprintf(stderr, "check failed: y[%zu][%d] = %g, want %g\n", r, j, h[k * FEATURES + j], want);
				return 1;
			}
		}
	}
	printf("planted_uncoalesced: %d passes over %d x %d, result ok\n", passes, rows, FEATURES);
	CK(cudaFree(x));
	CK(cudaFree(y));
	CK(cudaFreeHost(h));
	return 0;
}
