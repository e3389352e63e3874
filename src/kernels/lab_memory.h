/* Kernels of `gpudiag lab memory` (src/lab/lab_memory.c). Each launcher enqueues on the
 * default stream and returns a cudaError_t as int (0 = ok). */
#ifndef GPUDIAG_LAB_MEMORY_KERNELS_H
#define GPUDIAG_LAB_MEMORY_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* p[j] = gd_hash32(j, seed) for j < n. */
int gd_labk_mem_fill(uint32_t *p, size_t n, uint32_t seed);
/* Bandwidth read: `blocks` × `threads` threads (threads a multiple of 32, n16 >= 32); lane l
 * of global warp w loads 16-byte element ((w·iters + i)·32 + l) mod n16 of buf for i < iters
 * and adds the four u32 lanes; each block writes its sum (u32, wrapping) to partials[block].
 * Every index j < T·iters (T = blocks·threads) is loaded once as j mod n16, so the total is
 * known on the CPU. */
int gd_labk_mem_read(const void *buf, size_t n16, int iters, int blocks, int threads, uint32_t *partials);
/* Links a pointer chase: buf[order[i]·stride] = order[(i+1) mod n]·stride (u32 indices). */
int gd_labk_mem_link(uint32_t *buf, const uint32_t *order, size_t n, uint32_t stride);
/* One thread walks p = buf[p] from `start`: `warm` steps, then `steps` timed ones.
 * out[0] = final p, out[1] = SM cycles (clock64) of the timed steps, out[2] = ns (globaltimer). */
int gd_labk_mem_chase(const uint32_t *buf, uint32_t start, long warm, long steps, unsigned long long *out);

#ifdef __cplusplus
}
#endif

#endif
