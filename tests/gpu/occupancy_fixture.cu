// GPU tier: records what the CUDA runtime says about occupancy for real kernels on this GPU,
// as a fixture the CPU tier checks gpudiag's calculator against (src/gpu/occupancy_test.c).
//
// Kernels differ in register count (capped with __maxnreg__ on a register-hungry body, the
// real count read back with cudaFuncGetAttributes) and static shared memory; each is asked
// about many block sizes, dynamic shared-memory sizes (up to the opt-in maximum) and carveout
// preferences. Output: CSV on stdout,
//   regs,static_smem,max_dyn_smem,carveout,threads,dyn_smem,blocks_per_sm
// Build: part of the CMake build (target gpudiag_occ_fixture). Run: ./build/gpudiag_occ_fixture
#include <cstdio>
#include <cuda_runtime.h>

#define CK(x)                                                                                \
	do {                                                                                 \
		cudaError_t e_ = (x);                                                        \
		if (e_ != cudaSuccess) {                                                     \
			fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x,           \
				cudaGetErrorString(e_));                                     \
			return 1;                                                            \
		}                                                                            \
	} while (0)

// A body that keeps many values live so the register cap decides the count.
template <int R, int S>
__global__ void __maxnreg__(R) occ_kernel(const float *in, float *out, int n)
{
	__shared__ float tile[S > 0 ? S / 4 : 1];
	float v[128];
	int i = blockIdx.x * blockDim.x + threadIdx.x;
#pragma unroll
	for (int k = 0; k < 128; k++)
		v[k] = in[(i * 128 + k) % n];
#pragma unroll
	for (int r = 0; r < 4; r++)
#pragma unroll
		for (int k = 0; k < 128; k++)
			v[k] = fmaf(v[k], v[(k + 7) % 128], v[(k + 13) % 128]);
	if (S > 0) {
		tile[threadIdx.x % (S > 0 ? S / 4 : 1)] = v[0];
		__syncthreads();
		v[1] += tile[(threadIdx.x + 1) % (S > 0 ? S / 4 : 1)];
	}
	float s = 0;
#pragma unroll
	for (int k = 0; k < 128; k++)
		s += v[k];
	out[i % n] = s;
}

typedef void (*kfn)(const float *, float *, int);

template <int R> static void add_regs(kfn *k, int *st, int *n)
{
	k[*n] = occ_kernel<R, 0>; st[(*n)++] = 0;
	k[*n] = occ_kernel<R, 4096>; st[(*n)++] = 4096;
	k[*n] = occ_kernel<R, 20000>; st[(*n)++] = 20000;
	k[*n] = occ_kernel<R, 40960>; st[(*n)++] = 40960;
}

int main()
{
	kfn kernels[64];
	int statics[64], nk = 0;
	add_regs<24>(kernels, statics, &nk);
	add_regs<32>(kernels, statics, &nk);
	add_regs<40>(kernels, statics, &nk);
	add_regs<64>(kernels, statics, &nk);
	add_regs<72>(kernels, statics, &nk);
	add_regs<96>(kernels, statics, &nk);
	add_regs<128>(kernels, statics, &nk);
	add_regs<168>(kernels, statics, &nk);
	add_regs<255>(kernels, statics, &nk);
	const int threads[] = {32, 64, 96, 128, 192, 256, 320, 384, 512, 640, 768, 1024};
	const int carve[] = {-1, 0, 50, 100};
	int optin = 0, smem_block = 0;
	CK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
	CK(cudaDeviceGetAttribute(&smem_block, cudaDevAttrMaxSharedMemoryPerBlock, 0));
	printf("# regs,static_smem,max_dyn_smem,carveout,threads,dyn_smem,blocks_per_sm\n");
	long rows = 0;
	for (int ki = 0; ki < nk; ki++) {
		for (int phase = 0; phase < 2; phase++) {
			int max_dyn = phase ? optin - statics[ki] : smem_block - statics[ki];
			CK(cudaFuncSetAttribute((const void *)kernels[ki], cudaFuncAttributeMaxDynamicSharedMemorySize,
						max_dyn));
			for (int ci = 0; ci < 4; ci++) {
				if (carve[ci] >= 0)
					CK(cudaFuncSetAttribute((const void *)kernels[ki],
								cudaFuncAttributePreferredSharedMemoryCarveout, carve[ci]));
				else
					CK(cudaFuncSetAttribute((const void *)kernels[ki],
								cudaFuncAttributePreferredSharedMemoryCarveout, -1));
				cudaFuncAttributes fa;
				CK(cudaFuncGetAttributes(&fa, (const void *)kernels[ki]));
				const int dyns[] = {0, 1000, 16384, max_dyn / 2, max_dyn};
				for (int ti = 0; ti < 12; ti++)
					for (int di = 0; di < 5; di++) {
						int blocks = -1;
						if (threads[ti] > fa.maxThreadsPerBlock)
							continue;
						CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernels[ki],
												  threads[ti], dyns[di]));
						printf("%d,%zu,%d,%d,%d,%d,%d\n", fa.numRegs, fa.sharedSizeBytes,
						       fa.maxDynamicSharedSizeBytes, carve[ci], threads[ti], dyns[di], blocks);
						rows++;
					}
			}
		}
	}
	fprintf(stderr, "occupancy fixture: %ld rows\n", rows);
	return rows >= 500 ? 0 : 1;
}
