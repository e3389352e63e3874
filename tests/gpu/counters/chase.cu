// GPU-metrics agreement workload, the latency-bound kind: one warp per block, four blocks per
// SM, every thread walking its own chain through a random cycle of 64 Mi ints (256 MiB, five
// times the L2). Each step waits for the previous load: the SMs hold warps (SM active high)
// that issue little (issue low) and move few bytes (DRAM low). Prints
// "phase pointer_chase T0 T1 LAUNCHES" (CLOCK_REALTIME ns) like phases.py.
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <vector>
#include <numeric>
#include <random>
#include <algorithm>
#include <cuda_runtime.h>

__global__ void chase(const unsigned *next, unsigned *out, int steps)
{
	unsigned i = (blockIdx.x * 32u + threadIdx.x) * 2654435761u & ((1u << 26) - 1);
	for (int s = 0; s < steps; s++)
		i = next[i];
	out[blockIdx.x * 32 + threadIdx.x] = i;
}

static long long now_ns()
{
	timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 0.4;
	int once = argc > 2; // "chase S once": two launches, for ncu
	const unsigned n = 1u << 26;
	std::vector<unsigned> order(n), next(n);
	std::iota(order.begin(), order.end(), 0u);
	std::shuffle(order.begin(), order.end(), std::mt19937(1));
	for (unsigned k = 0; k < n; k++)
		next[order[k]] = order[(k + 1) % n];
	int sms = 0;
	cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
	unsigned *d_next, *d_out;
	if (cudaMalloc(&d_next, n * sizeof(unsigned)) || cudaMalloc(&d_out, sms * 4 * 32 * sizeof(unsigned))) {
		fprintf(stderr, "chase: cudaMalloc failed\n");
		return 1;
	}
	cudaMemcpy(d_next, next.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice);
	chase<<<sms * 4, 32>>>(d_next, d_out, 1000);
	cudaDeviceSynchronize();
	long long t0 = now_ns();
	long launches = 0;
	while (once ? launches < 2 : now_ns() - t0 < seconds * 1e9) {
		chase<<<sms * 4, 32>>>(d_next, d_out, 20000); // ≈ 10 ms per launch
		launches++;
		cudaDeviceSynchronize();
	}
	long long t1 = now_ns();
	if (cudaGetLastError() != cudaSuccess) {
		fprintf(stderr, "chase: a launch failed\n");
		return 1;
	}
	printf("phase pointer_chase %lld %lld %ld\n", t0, t1, launches);
	return 0;
}
