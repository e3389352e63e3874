/* Theoretical occupancy (guide §6): how many blocks of a kernel fit on one SM, and which
 * resource stops the next one. The rules are those of the CUDA occupancy calculator
 * (registers allocated per warp in units of 256 and held per scheduler quarter, shared
 * memory in 128-byte units plus the driver's per-block reservation, the SM's carveout
 * steps, the block and warp slots, named barriers); the GPU tier checks the result against
 * cudaOccupancyMaxActiveBlocksPerMultiprocessor on the H200 for every configuration of a
 * recorded fixture. The profiler calls gd_occupancy() for every traced kernel. */
#ifndef GPUDIAG_OCCUPANCY_H
#define GPUDIAG_OCCUPANCY_H

#include "gpu/arch.h"

#include <stddef.h>

/* The SM's resources; from the device's attributes or from the built-in table. */
struct gd_occ_device {
	int major, minor;
	int warp_size;
	int max_threads_per_sm, max_threads_per_block, max_blocks_per_sm;
	int regs_per_sm, regs_per_block, max_regs_per_thread;
	int reg_alloc_unit, subpartitions;
	size_t smem_per_sm, smem_per_block, smem_per_block_optin, smem_reserved_per_block;
	int smem_alloc_unit;
	const int *carveouts_kb;
	int ncarveouts;
	int barriers_per_block_slot;
	int virtual_resources;
	int sm_count; /* 0 when unknown (no GPU): waves are then not computed */
};

struct gd_occ_kernel {
	int block_threads;
	int regs_per_thread;
	size_t static_smem;     /* bytes declared __shared__ in the kernel */
	size_t dyn_smem;        /* bytes passed at launch */
	size_t max_dyn_smem;    /* the kernel's cudaFuncAttributeMaxDynamicSharedMemorySize;
				   0 = default (48 KB less static) */
	int carveout_pct;       /* cudaFuncAttributePreferredSharedMemoryCarveout, -1 = default */
	int barriers;           /* named barriers the kernel uses (0 = unknown/none) */
};

enum gd_occ_limit {
	GD_LIM_WARPS = 1 << 0,
	GD_LIM_REGS = 1 << 1,
	GD_LIM_SMEM = 1 << 2,
	GD_LIM_BLOCKS = 1 << 3,
	GD_LIM_BARRIERS = 1 << 4,
	GD_LIM_VIRTUAL = 1 << 5,
};

struct gd_occ_result {
	int blocks_per_sm;        /* active blocks per SM (0: the kernel cannot launch) */
	int warps_per_block;
	int active_warps, max_warps;
	double occupancy;         /* active_warps / max_warps */
	unsigned limiters;        /* every resource whose limit equals blocks_per_sm */
	int lim_warps, lim_regs, lim_smem, lim_blocks, lim_barriers, lim_virtual; /* INT_MAX = none */
	int regs_per_block_alloc; /* registers the block really takes */
	size_t smem_per_block_alloc; /* shared memory the block really takes (with reservation) */
	size_t smem_sm_config;    /* shared memory the SM is configured with for this kernel */
	const char *invalid;      /* why the launch is impossible, or NULL */
};

/* Fills a device description from the built-in table (no GPU needed). */
int gd_occ_device_from_arch(const struct gd_arch *a, struct gd_occ_device *d);
/* Fills it from the CUDA device's own attributes (needs gd_cu_open). */
int gd_occ_device_from_cuda(int dev, struct gd_occ_device *d);
/* Shared memory beyond which a size (per SM, per block, of a launch) is not believed: far
 * above any GPU, small enough that sums of a few of them cannot wrap. */
#define GD_OCC_SMEM_MAX ((size_t)1 << 30)
/* Checks that every field of a description lies in a range where the calculator's
 * arithmetic is exact (descriptions read from a profile come from another machine).
 * GD_OK, or GD_EDATA with *why = "device properties out of range (<the field>)". */
int gd_occ_device_check(const struct gd_occ_device *d, const char **why);
/* Computes occupancy. Returns 0, or -1 with r->invalid set for impossible input: a device
 * description that gd_occ_device_check rejects, a block size, register count, shared memory
 * or carveout that no launch can have. Never divides by zero or overflows, for any input. */
int gd_occupancy(const struct gd_occ_device *d, const struct gd_occ_kernel *k, struct gd_occ_result *r);
/* "registers", "shared memory", "warps per SM", "blocks per SM", "barriers", joined by " + ". */
char *gd_occ_limiters_str(unsigned limiters, char *buf, size_t n);
/* Waves of a grid: blocks / (SMs × blocks_per_sm), and the fill of the last wave in (0,1]. */
double gd_occ_waves(const struct gd_occ_device *d, const struct gd_occ_result *r, long long grid_blocks,
		    double *last_wave_fill);

#endif
