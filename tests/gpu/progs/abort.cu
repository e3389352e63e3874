// 100 kernels and a pinned and a pageable copy, a 1.5 s pause (the periodic flush writes
// them), then abort(): exit 134 (SIGABRT); the records written before must be in the profile.
#include "common.h"
#include <unistd.h>

int main(void)
{
	float *d, *hp, *hq;
	const size_t bytes = 8 << 20;
	CK(cudaMalloc(&d, bytes));
	CK(cudaMallocHost(&hp, bytes));
	hq = (float *)calloc(1, bytes);
	CK(cudaMemcpy(d, hp, bytes, cudaMemcpyHostToDevice));
	CK(cudaMemcpy(d, hq, bytes, cudaMemcpyHostToDevice));
	burst(d, 1 << 18, 100, 0);
	usleep(1500000);
	abort();
}
