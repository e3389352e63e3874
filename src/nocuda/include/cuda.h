/* Stand-in for the toolkit's <cuda.h> in a build without the CUDA toolkit: on the include
 * path only then (CMakeLists.txt). It declares what the host code names — the types of the
 * driver entry points that src/gpu/cudrv.c resolves at run time and the device attributes
 * it asks for — and nothing else, so a use of anything more fails to compile rather than
 * passing unnoticed. CUDA_VERSION is not defined: this build was made with no toolkit. */
#ifndef GPUDIAG_NOCUDA_CUDA_H
#define GPUDIAG_NOCUDA_CUDA_H

#include "nocuda/cuda_abi.h"

typedef int CUdevice;

#define GD_CU_ATTR_ENUM(name, value) CU_DEVICE_ATTRIBUTE_##name = value,
typedef enum CUdevice_attribute_enum { GD_CU_DEVICE_ATTRIBUTES(GD_CU_ATTR_ENUM) } CUdevice_attribute;
#undef GD_CU_ATTR_ENUM

#define GD_CU_RESULT_ENUM(name, value) CUDA_##name = value,
typedef enum cudaError_enum { GD_CU_RESULTS(GD_CU_RESULT_ENUM) } CUresult;
#undef GD_CU_RESULT_ENUM

typedef struct CUuuid_st {
	char bytes[GD_CU_UUID_BYTES];
} CUuuid;

#endif
