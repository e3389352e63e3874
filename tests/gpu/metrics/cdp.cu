// GPU tier, area "metrics" (issue 19: "device-launched" kernels, check whether they can be
// replayed): a parent kernel that launches child kernels from the device (CUDA dynamic
// parallelism). The children never reach a host launch callback, so gpudiag can only see, and
// replay, the parent, whose replay launches the children again. The program checks its
// results against the CPU: every x[i] = i + 1 after the parent's one effective launch (a
// replay left half-done, or applied twice, reads wrong); the area prints how the parent's
// launch was profiled. Exits 3 when right, 1 otherwise.
// nvcc -O2 -arch=sm_90 -rdc=true -o cdp cdp.cu -lcudadevrt
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void k_child(float *x, int base, int n)
{
	int i = base + blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] += 1.0f;
}

// one child grid per chunk of 64 Ki elements, launched by thread 0 of each parent block
__global__ void k_parent(float *x, int n)
{
	const int chunk = 1 << 16;
	int base = blockIdx.x * chunk;
	if (threadIdx.x == 0 && base < n)
		k_child<<<chunk / 256, 256>>>(x, base, n);
}

int main()
{
	const int n = 1 << 22, chunk = 1 << 16;
	float *x = nullptr, *h = (float *)malloc(n * sizeof(float));
	int bad = 0;
	for (int i = 0; i < n; i++)
		h[i] = (float)i;
	if (!h || cudaMalloc(&x, n * sizeof(float)) != cudaSuccess ||
	    cudaMemcpy(x, h, n * sizeof(float), cudaMemcpyHostToDevice) != cudaSuccess) {
		fprintf(stderr, "cdp: setup failed\n");
		return 1;
	}
	k_parent<<<n / chunk, 32>>>(x, n);
	cudaError_t e = cudaDeviceSynchronize();
	if (e == cudaSuccess)
		e = cudaMemcpy(h, x, n * sizeof(float), cudaMemcpyDeviceToHost);
	for (int i = 0; i < n && e == cudaSuccess; i++)
		bad += h[i] != (float)i + 1.0f;
	printf("device-launched children: %s\n", e != cudaSuccess ? cudaGetErrorString(e) : bad ? "WRONG" : "right");
	return e == cudaSuccess && !bad ? 3 : 1;
}
