/* CPU references of `gpudiag lab coalescing`, exposed for the CPU-tier tests. */
#ifndef GPUDIAG_LAB_COALESCING_H
#define GPUDIAG_LAB_COALESCING_H

#include "lab/lab.h"

#include <stddef.h>
#include <stdint.h>

/* Bytes moved in 32-byte sectors per useful byte when aligned elem_bytes-sized elements are
 * read every `stride` elements: stride for spans under 32 B, 32/elem_bytes beyond. */
double gd_labco_sector_factor(unsigned stride, unsigned elem_bytes);
/* The block sums gd_labk_co_stride_sum must produce (blocks of 256 threads, grid-stride),
 * over data u32[k] = gd_hash32(k, seed). */
void gd_labco_stride_ref(size_t n, unsigned stride, size_t base, size_t mask, int blocks,
			 uint32_t seed, uint32_t *partials);
/* Element i of the transpose of an m×m matrix of gd_hashf(k, seed). */
double gd_labco_transpose_ref(size_t m, size_t i, uint32_t seed);
/* Source index in x[b][s][d] of element o of x.permute(0,2,1) laid out contiguously. */
size_t gd_labco_permute_src(size_t o, size_t b, size_t s, size_t d);
/* x + vx·dt of particle i (x = gd_hashf(8i), vx = gd_hashf(8i+3), dt = 0.01f). */
double gd_labco_aos_ref(size_t i, uint32_t seed);

#endif
