// NVTX: "step" ranges (push/pop) around 10 kernels each, 3 steps, one nested "inner" range,
// a mark, and a start/end range. Also cudaProfilerStart/Stop around step 2 only, for
// --capture-range=cudaProfilerApi. Exit 0. Argument "name-thread" also calls
// nvtxNameOsThreadA (crashed CUPTI 13.0.0's NVTX injection, NVIDIA/NVTX#125).
#include "common.h"
#include <cuda_profiler_api.h>
#include <nvtx3/nvToolsExt.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	float *d;
	if (argc > 1 && !strcmp(argv[1], "name-thread"))
		nvtxNameOsThreadA((uint32_t)syscall(SYS_gettid), "main thread");
	CK(cudaMalloc(&d, 1 << 20));
	for (int s = 0; s < 3; s++) {
		if (s == 1)
			CK(cudaProfilerStart());
		nvtxRangePushA("step");
		burst(d, 1 << 18, 5, 0);
		nvtxRangePushA("inner");
		burst(d, 1 << 18, 5, 0);
		nvtxRangePop();
		nvtxRangePop();
		if (s == 1)
			CK(cudaProfilerStop());
	}
	nvtxMarkA("done");
	nvtxRangeId_t r = nvtxRangeStartA("tail");
	burst(d, 1 << 18, 2, 0);
	nvtxRangeEnd(r);
	return 0;
}
