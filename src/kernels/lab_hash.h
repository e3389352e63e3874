/* Deterministic "random" data shared by the memory labs' kernels and their CPU references:
 * element j of a buffer is a hash of (j, seed), so multi-GB inputs are generated on the GPU
 * in microseconds and the CPU reference recomputes any element without a copy. The hash is
 * lowbias32 (a well-mixed 32-bit integer hash); C and CUDA compile the same code. */
#ifndef GPUDIAG_LAB_HASH_H
#define GPUDIAG_LAB_HASH_H

#include <stdint.h>

#ifdef __CUDACC__
#define GD_HD static __host__ __device__ __forceinline__
#else
#define GD_HD static inline
#endif

GD_HD uint32_t gd_hash32(uint64_t j, uint32_t seed)
{
	/* the seed is added after a multiply, not XORed: XOR with a small seed would only permute
	 * the values of an aligned power-of-two range, leaving sums over it unchanged */
	uint32_t x = (uint32_t)j ^ ((uint32_t)(j >> 32) * 0x9e3779b9u);
	x += seed * 0x85ebca6bu + 0x6a09e667u;
	x ^= x >> 16;
	x *= 0x7feb352du;
	x ^= x >> 15;
	x *= 0x846ca68bu;
	x ^= x >> 16;
	return x;
}

/* A float in [-1, 1) with 24 significant bits or fewer: exact in FP32 on both sides. */
GD_HD float gd_hashf(uint64_t j, uint32_t seed)
{
	return (float)(gd_hash32(j, seed) >> 8) * (1.0f / 8388608.0f) - 1.0f;
}

#endif
