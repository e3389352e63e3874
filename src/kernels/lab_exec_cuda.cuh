/* Shared by the execution labs' .cu files (launch, grid, divergence, occupancy, streams,
 * sfu): checked CUDA calls that record the failing call and return GD_EFAIL, so an error
 * climbs to the command as a status code with a one-line reason, never an exit. */
#ifndef GPUDIAG_LAB_EXEC_CUDA_CUH
#define GPUDIAG_LAB_EXEC_CUDA_CUH

#include <cuda_runtime.h>
#include <stdio.h>

/* Every entry point takes (char *err, size_t errn); LX_CHECK writes
 * "<call> failed: <CUDA error text>" there and jumps to `out` with rc = 1 (GD_EFAIL). */
#define LX_CHECK(call)                                                                                       \
	do {                                                                                                 \
		cudaError_t e_ = (call);                                                                     \
		if (e_ != cudaSuccess) {                                                                     \
			if (err && errn)                                                                     \
				snprintf(err, errn, "%s failed: %s (%s:%d)", #call, cudaGetErrorString(e_),  \
					 __FILE__, __LINE__);                                                \
			rc = 1;                                                                              \
			goto out;                                                                            \
		}                                                                                            \
	} while (0)

/* A launch is checked twice: the configuration (cudaGetLastError right after) here, and
 * faults inside the kernel at the next synchronising call, which is itself checked. */
#define LX_LAUNCHED() LX_CHECK(cudaGetLastError())

#endif
