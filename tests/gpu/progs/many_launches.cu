// 1,000,000 empty kernel launches on one stream (a launch-bound program), then exit 0.
#include "common.h"

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	for (long i = 0; i < n; i++)
		k_empty<<<1, 1>>>();
	CK(cudaGetLastError());
	CK(cudaDeviceSynchronize());
	return 0;
}
