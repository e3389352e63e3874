// GPU tier, area "metrics" (issue 19), for information: how many DRAM bytes each tool counts as
// written by a kernel that writes nothing to DRAM. k_sweep reads 256 MB and writes only when
// its sum comes out at an impossible value; before each launch k_dirty leaves 16 MB of dirty
// L2 lines, as a program's own work would. Whatever a tool counts for the second k_sweep is
// write-back that is not the kernel's: what its flush left, and what the profiler's own start
// dirtied (replay_probe.cu, "dram-*": CUPTI's cuptiRangeProfilerStart leaves about 3 MB). The
// metrics area profiles it with gpudiag and with ncu and prints both (run.sh, "probe").
#include <cstdio>
#include <cuda_runtime.h>

__global__ void k_sweep(const float4 *in, float *sink, size_t n)
{
	float acc = 0.f;
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
		float4 v = in[i];
		acc += v.x + v.y + v.z + v.w;
	}
	if (acc == 1234.5f) // the input is zeros: never
		*sink = acc;
}

__global__ void k_dirty(float4 *p, size_t n, float v)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
		p[i] = make_float4(v, v, v, v);
}

int main()
{
	const size_t big = (size_t)256 << 20, dirty = (size_t)16 << 20;
	float4 *in = nullptr, *d = nullptr;
	float *sink = nullptr;
	int sms = 0;
	cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
	if (cudaMalloc(&in, big) || cudaMalloc(&d, dirty) || cudaMalloc(&sink, sizeof(float)) ||
	    cudaMemset(in, 0, big)) {
		std::printf("FAIL cudaMalloc/cudaMemset\n");
		return 1;
	}
	for (int i = 0; i < 3; i++) {
		k_dirty<<<sms * 8, 256>>>(d, dirty / 16, (float)i);
		k_sweep<<<sms * 8, 256>>>(in, sink, big / 16);
	}
	cudaError_t e = cudaDeviceSynchronize();
	std::printf("sweep: %s\n", e == cudaSuccess ? "ok" : cudaGetErrorString(e));
	return e == cudaSuccess ? 0 : 1;
}
