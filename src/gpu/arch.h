/* Per-architecture facts that the device does not report: the occupancy tables (the same
 * facts CUDA's occupancy calculator uses), the tensor-core generation and its precisions
 * (guide §3), and the per-SM per-clock throughput used for theoretical peaks.
 *
 * Sources (also in docs/gpu-facts-sources.md): CUDA C++ Programming Guide, "Compute
 * Capabilities" tables and "Arithmetic Instructions" throughput table; cuda_occupancy.h of
 * CUDA 13.0; NVIDIA architecture whitepapers (Turing, A100, GA102, Ada, H100, Blackwell)
 * for dense tensor-core FLOP/clock/SM. */
#ifndef GPUDIAG_ARCH_H
#define GPUDIAG_ARCH_H

#include <stddef.h>

/* Precisions, as bits so a set of them fits one int. */
enum gd_prec {
	GD_P_FP64 = 0,
	GD_P_FP32,
	GD_P_TF32,
	GD_P_FP16,
	GD_P_BF16,
	GD_P_FP8,  /* e4m3 and e5m2 share a rate */
	GD_P_INT8,
	GD_P_INT4,
	GD_P_FP4,
	GD_P_COUNT
};
const char *gd_prec_name(enum gd_prec p); /* "FP64", "TF32", ... */

struct gd_arch {
	int major, minor;
	const char *sm;        /* "sm_90" */
	const char *family;    /* "Hopper" */
	const char *examples;  /* "H100, H200, GH200" */
	/* occupancy tables */
	int max_threads_per_sm, max_threads_per_block, max_blocks_per_sm, warp_size;
	int regs_per_sm, regs_per_block, max_regs_per_thread;
	int reg_alloc_unit;          /* registers per warp are rounded up to this */
	int subpartitions;           /* warp schedulers (register file quarters) */
	int smem_per_sm;             /* bytes usable as shared memory per SM */
	int smem_per_block;          /* default per-block limit (48 KB) */
	int smem_per_block_optin;    /* with cudaFuncAttributeMaxDynamicSharedMemorySize */
	int smem_reserved_per_block; /* the driver's own per-block reservation (cc >= 8) */
	int smem_alloc_unit;
	int l1_smem_total_kb;        /* unified L1/shared SRAM per SM */
	const int *carveouts_kb;     /* shared-memory sizes the SM can be configured to */
	int ncarveouts;
	int barriers_per_block_slot; /* hardware named barriers per resident block slot (1 or 2) */
	int virtual_resources;       /* per-SM virtual resource count (cc >= 10), 0 = none */
	/* tensor cores (guide §3) */
	const char *tensor_gen;      /* "4th generation (Hopper)", or NULL when absent */
	unsigned tensor_precs;       /* bit (1u << gd_prec) for each precision the tensor cores take */
	int has_wgmma;               /* peak reachable only with wgmma (sm_90a) */
	/* dense FLOP (or OP) per clock per SM; 0 = not supported on that unit */
	double cuda_core_flops_clk_sm[GD_P_COUNT];
	double tensor_flops_clk_sm[GD_P_COUNT];
	const char *peak_source;     /* where the per-clock figures come from */
};

/* The entry for a compute capability, or NULL when gpudiag has no table for it. */
const struct gd_arch *gd_arch_find(int major, int minor);
/* Accepts "sm_90", "sm90", "90", "9.0", "compute_90", and the arch- and family-specific
 * targets "sm_90a", "sm_100f" (the same compute capability, the same limits). NULL if unknown. */
const struct gd_arch *gd_arch_parse(const char *s);
/* All known entries (terminated by major == 0). */
const struct gd_arch *gd_arch_all(void);
/* Comma-separated list of known sm_XX names, for error messages. */
const char *gd_arch_known_list(void);

/* Theoretical peak in FLOP/s for `sms` SMs at `clock_mhz`; NaN when unsupported.
 * tensor != 0 selects the tensor-core rate. */
double gd_arch_peak(const struct gd_arch *a, enum gd_prec p, int tensor, int sms, double clock_mhz);

#endif
