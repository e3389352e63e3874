/* The part of the CUDA driver API that gpudiag's host code names, for a build without the
 * CUDA toolkit (include/cuda.h declares it from these lists). The driver itself is loaded at
 * run time (src/gpu/cudrv.c), so a build without the toolkit still reads a GPU's properties
 * where a driver is installed; only the declarations are needed to compile.
 *
 * The numbers are the driver's ABI; cuda_abi_test.c, built with the toolkit, checks each one
 * against the toolkit's cuda.h. A new attribute used in src/ goes here too (the build without
 * the toolkit fails to compile until it does). */
#ifndef GPUDIAG_NOCUDA_CUDA_ABI_H
#define GPUDIAG_NOCUDA_CUDA_ABI_H

/* X(name without CU_DEVICE_ATTRIBUTE_, value) */
#define GD_CU_DEVICE_ATTRIBUTES(X)                   \
	X(MAX_THREADS_PER_BLOCK, 1)                  \
	X(MAX_BLOCK_DIM_X, 2)                        \
	X(MAX_BLOCK_DIM_Y, 3)                        \
	X(MAX_BLOCK_DIM_Z, 4)                        \
	X(MAX_GRID_DIM_X, 5)                         \
	X(MAX_GRID_DIM_Y, 6)                         \
	X(MAX_GRID_DIM_Z, 7)                         \
	X(MAX_SHARED_MEMORY_PER_BLOCK, 8)            \
	X(WARP_SIZE, 10)                             \
	X(MAX_REGISTERS_PER_BLOCK, 12)               \
	X(CLOCK_RATE, 13)                            \
	X(MULTIPROCESSOR_COUNT, 16)                  \
	X(CONCURRENT_KERNELS, 31)                    \
	X(ECC_ENABLED, 32)                           \
	X(MEMORY_CLOCK_RATE, 36)                     \
	X(GLOBAL_MEMORY_BUS_WIDTH, 37)               \
	X(L2_CACHE_SIZE, 38)                         \
	X(MAX_THREADS_PER_MULTIPROCESSOR, 39)        \
	X(ASYNC_ENGINE_COUNT, 40)                    \
	X(COMPUTE_CAPABILITY_MAJOR, 75)              \
	X(COMPUTE_CAPABILITY_MINOR, 76)              \
	X(MAX_SHARED_MEMORY_PER_MULTIPROCESSOR, 81)  \
	X(MAX_REGISTERS_PER_MULTIPROCESSOR, 82)      \
	X(MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, 97)     \
	X(MAX_BLOCKS_PER_MULTIPROCESSOR, 106)        \
	X(MAX_PERSISTING_L2_CACHE_SIZE, 108)         \
	X(RESERVED_SHARED_MEMORY_PER_BLOCK, 111)     \
	X(MPS_ENABLED, 133)

/* X(name without CUDA_, value): the results the host code tests for */
#define GD_CU_RESULTS(X)          \
	X(SUCCESS, 0)             \
	X(ERROR_NO_DEVICE, 100)   \
	X(ERROR_UNKNOWN, 999)

#define GD_CU_UUID_BYTES 16

#endif
