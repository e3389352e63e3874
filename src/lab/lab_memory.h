/* CPU references of `gpudiag lab memory`, exposed for the CPU-tier tests. */
#ifndef GPUDIAG_LAB_MEMORY_H
#define GPUDIAG_LAB_MEMORY_H

#include "lab/lab.h"

#include <stddef.h>
#include <stdint.h>

/* The u32 sum gd_labk_mem_read's block partials must add up to: `loads` 16-byte loads of
 * indices j mod n16 (j < loads) over data u32[k] = gd_hash32(k, seed). */
uint32_t gd_labmem_read_total(uint64_t n16, uint64_t loads, uint32_t seed);
/* The same for n (n16, loads) pairs in one pass over the data. */
void gd_labmem_read_totals(const uint64_t *n16, const uint64_t *loads, int n, uint32_t seed,
			   uint32_t *totals);
/* A random permutation of 0..n-1 (the chase visits nodes in this order, cyclically). */
void gd_labmem_chase_order(uint32_t *order, size_t n, uint64_t *rng);
/* Where the walk from order[0]·stride is after `steps` steps. */
uint32_t gd_labmem_chase_end(const uint32_t *order, size_t n, uint32_t stride, uint64_t steps);
/* The first index i with ws[i] >= from whose bandwidth is below the geometric mean of lo_bw
 * and hi_bw (the end of the hi plateau), or -1. */
int gd_labmem_edge(const double *ws, const double *bw, int n, double lo_bw, double hi_bw, double from);

#endif
