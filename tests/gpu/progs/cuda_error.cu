// A kernel writes through a null pointer: cudaErrorIllegalAddress (sticky). The program
// reports it and exits 5; the profile must still be readable.
#include "common.h"

static __global__ void k_bad(float *p) { p[threadIdx.x] = 1.0f; }

int main(void)
{
	float *d;
	CK(cudaMalloc(&d, 1 << 20));
	burst(d, 1 << 18, 10, 0);
	k_bad<<<1, 32>>>(NULL);
	cudaError_t e = cudaDeviceSynchronize();
	fprintf(stderr, "expected error: %s\n", cudaGetErrorString(e));
	return e == cudaErrorIllegalAddress ? 5 : 97;
}
