// GPU tier, area "metrics" (issue 19): the launches kernel replay must leave alone, in one
// CUDA program, each checked against the CPU:
//   ncclDevKernel_AllReduce_Sum_f32_RING_LL  a kernel named as NCCL names its kernels (extern
//        "C", so the name is the symbol): skipped as 'communication' by its name, as a real
//        NCCL kernel would be (a real one needs two GPUs: issue 22)
//   k_coop   a cooperative launch with a grid-wide sync (cudaLaunchCooperativeKernel): skipped
//            as 'cooperative'
//   k_step   captured into a CUDA graph (cudaStreamBeginCapture .. EndCapture) and launched
//            5 times with cudaGraphLaunch: the captured launches and the graph launches are
//            skipped as 'graph', and the capture must still succeed
//   k_step   also launched 2 times eagerly, before the capture: profiled ('ok')
// Exits 3 when every result is right (so the area sees the exit code kept), 1 otherwise.
// nvcc -O2 -arch=sm_90 -o skips skips.cu
#include <cooperative_groups.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

namespace cg = cooperative_groups;

#define CK(x)                                                                                      \
	do {                                                                                       \
		cudaError_t e_ = (x);                                                              \
		if (e_ != cudaSuccess) {                                                           \
			fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));                   \
			exit(1);                                                                   \
		}                                                                                  \
	} while (0)

extern "C" __global__ void ncclDevKernel_AllReduce_Sum_f32_RING_LL(float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] = x[i] * 2.0f;
}

// out[i] = in[i] + in[(i + 1) % n], read only after every block has written in[]: a grid sync
__global__ void k_coop(float *in, float *out, int n)
{
	cg::grid_group g = cg::this_grid();
	for (int i = g.thread_rank(); i < n; i += g.size())
		in[i] = (float)(i % 7);
	g.sync();
	for (int i = g.thread_rank(); i < n; i += g.size())
		out[i] = in[i] + in[(i + 1) % n];
}

__global__ void k_step(float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] = x[i] + 1.0f;
}

int main()
{
	const int n = 1 << 20;
	float *a, *b, *c;
	float *h = (float *)malloc(n * sizeof(float));
	int bad = 0, dev = 0, coop = 0, sms = 0, per_sm = 0;
	CK(cudaMalloc(&a, n * sizeof(float)));
	CK(cudaMalloc(&b, n * sizeof(float)));
	CK(cudaMalloc(&c, n * sizeof(float)));
	CK(cudaMemset(a, 0, n * sizeof(float)));
	CK(cudaMemset(c, 0, n * sizeof(float)));

	// the NCCL-named kernel, 3 times: 1 -> 8
	for (int i = 0; i < n; i++)
		h[i] = 1.0f;
	CK(cudaMemcpy(a, h, n * sizeof(float), cudaMemcpyHostToDevice));
	for (int r = 0; r < 3; r++)
		ncclDevKernel_AllReduce_Sum_f32_RING_LL<<<n / 256, 256>>>(a, n);
	CK(cudaMemcpy(h, a, n * sizeof(float), cudaMemcpyDeviceToHost));
	for (int i = 0; i < n; i++)
		bad += h[i] != 8.0f;
	printf("nccl-named kernel: %s\n", bad ? "WRONG" : "right");

	// the cooperative kernel, as many blocks as can be resident
	CK(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev));
	CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
	CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k_coop, 256, 0));
	if (coop && per_sm > 0) {
		int nb = 0;
		void *args[] = {&b, &c, (void *)&n};
		CK(cudaLaunchCooperativeKernel((void *)k_coop, sms * per_sm, 256, args, 0, 0));
		CK(cudaMemcpy(h, c, n * sizeof(float), cudaMemcpyDeviceToHost));
		for (int i = 0; i < n; i++)
			nb += h[i] != (float)(i % 7) + (float)(((i + 1) % n) % 7);
		printf("cooperative kernel: %s\n", nb ? "WRONG" : "right");
		bad += nb;
	} else {
		printf("cooperative kernel: not supported here (not launched)\n");
	}

	// k_step: 2 eager launches, then a graph of 2 captured launches replayed 5 times: 12
	cudaStream_t s;
	cudaGraph_t g;
	cudaGraphExec_t ge;
	CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	CK(cudaMemsetAsync(c, 0, n * sizeof(float), s));
	for (int r = 0; r < 2; r++)
		k_step<<<n / 256, 256, 0, s>>>(c, n);
	CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
	k_step<<<n / 256, 256, 0, s>>>(c, n);
	k_step<<<n / 256, 256, 0, s>>>(c, n);
	CK(cudaStreamEndCapture(s, &g));
	CK(cudaGraphInstantiate(&ge, g, 0));
	for (int r = 0; r < 5; r++)
		CK(cudaGraphLaunch(ge, s));
	CK(cudaStreamSynchronize(s));
	CK(cudaMemcpy(h, c, n * sizeof(float), cudaMemcpyDeviceToHost));
	int ng = 0;
	for (int i = 0; i < n; i++)
		ng += h[i] != 12.0f;
	printf("graph: %s (%.0f, want 12)\n", ng ? "WRONG" : "right", h[0]);
	bad += ng;
	CK(cudaGetLastError());
	return bad ? 1 : 3;
}
