/* Checked CUDA calls for .cu entry points that take (char *why, size_t n): on failure the
 * failing call and CUDA's error text go into `why` and the function returns GD_EFAIL, so the
 * error climbs to the command as a status code with a one-line reason, never an exit.
 * (The execution labs use lab_exec_cuda.cuh, whose entry points clean up through a label.) */
#ifndef GPUDIAG_CUDA_WHY_CUH
#define GPUDIAG_CUDA_WHY_CUH

#include <cuda_runtime.h>
#include <stdio.h>

extern "C" {
#include "core/status.h"
}

#define GD_CUDA_WHY(call)                                                               \
	do {                                                                            \
		cudaError_t e_ = (call);                                                \
		if (e_ != cudaSuccess) {                                                \
			snprintf(why, n, "%s: %s", #call, cudaGetErrorString(e_));     \
			return GD_EFAIL;                                                \
		}                                                                       \
	} while (0)

#endif
