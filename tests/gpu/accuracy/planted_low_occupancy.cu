// Accuracy suite, PLANTED low_occupancy: an 8-channel signal (8 rows of 4 Mi samples) smoothed
// with a 3-tap filter, 400 passes, by a kernel that gives each row one block — a grid of 8
// blocks on a 132-SM H200, so 124 SMs sit idle during the hot kernel. Everything else is sound:
// buffers made once, no copies or syncs in the loop, one stream.
// Planted: a hot kernel whose grid (8 blocks) is far smaller than the SM count.
// Expected verdict: top finding low_occupancy.
// Runtime on an H200: ~2 s (~3 ms per pass with 8 SMs' bandwidth; 400 passes ≈ 1.2 s).
// Build: nvcc -O2 -arch=sm_90 planted_low_occupancy.cu -o planted_low_occupancy
#include "common.h"

/* one block per row: the block strides over its row (the planted mistake is the grid, not the
 * access pattern, which is coalesced) */
static __global__ void smooth_rows(const float *x, float *y, int len)
{
	const float *r = x + (size_t)blockIdx.x * len;
	float *o = y + (size_t)blockIdx.x * len;
	for (int i = threadIdx.x; i < len; i += blockDim.x) {
		float l = i > 0 ? r[i - 1] : r[i], c = r[i], h = i + 1 < len ? r[i + 1] : r[i];
		o[i] = 0.25f * l + 0.5f * c + 0.25f * h;
	}
}

static __global__ void init_rows(float *x, size_t n)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
		x[i] = 1.0f; /* a constant signal stays constant under the filter: the check below */
}

int main(void)
{
	const int rows = 8, len = 4 << 20, passes = 400;
	const size_t n = (size_t)rows * len;
	float *a, *b, *h;
	CK(cudaMalloc(&a, n * sizeof(float)));
	CK(cudaMalloc(&b, n * sizeof(float)));
	CK(cudaMallocHost(&h, 1024 * sizeof(float)));
	init_rows<<<132 * 8, 256>>>(a, n);
	CK(cudaGetLastError());
	for (int p = 0; p < passes; p++) {
		smooth_rows<<<rows, 1024>>>(a, b, len);
		float *t = a;
		a = b;
		b = t;
	}
	CK(cudaGetLastError());
	CK(cudaMemcpy(h, a + n - 1024, 1024 * sizeof(float), cudaMemcpyDeviceToHost));
	for (int i = 0; i < 1024; i++)
		if (h[i] < 0.999f || h[i] > 1.001f) {
			fprintf(stderr, "check failed: y[%d] = %g, want 1\n", i, h[i]);
			return 1;
		}
	printf("planted_low_occupancy: %d passes over %d x %d, result ok\n", passes, rows, len);
	CK(cudaFree(a));
	CK(cudaFree(b));
	CK(cudaFreeHost(h));
	return 0;
}
