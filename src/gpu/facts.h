/* Device facts: what the driver (and NVML) say about one GPU, read in one place.
 *
 * `info`, `roofline`, `lab` and `run` each need a subset of the same device attributes;
 * gd_facts_read gathers them all into one struct so each command picks what it shows and
 * none repeats the attribute list. Values are as the driver reports them: -1 when it did not
 * answer (old driver, unknown attribute), 0 bytes of memory when unknown. Each command keeps
 * its own rules for turning unknowns into text. */
#ifndef GPUDIAG_FACTS_H
#define GPUDIAG_FACTS_H

#include "gpu/arch.h"
#include "gpu/nvml.h"

#include <stddef.h>

struct gd_facts {
	int index; /* CUDA device index */
	char name[128], uuid[96], pci_bus_id[32];
	int cc_major, cc_minor;
	const struct gd_arch *arch; /* NULL when gpudiag has no table for it */
	int sms, warp_size;
	int max_threads_per_block, max_threads_per_sm, max_blocks_per_sm;
	int max_block_dim[3], max_grid_dim[3];
	int regs_per_sm, regs_per_block;
	int smem_per_sm, smem_per_block, smem_per_block_optin, smem_reserved_per_block;
	int l2_bytes, l2_persisting_max_bytes;
	int mem_bus_width_bits, mem_clock_khz, sm_clock_khz; /* maxima the driver reports */
	int async_engines, concurrent_kernels, ecc_enabled, mps_enabled;
	unsigned long long mem_total; /* bytes, 0 unknown */

	/* filled by gd_facts_read_nvml */
	int nvml_index;             /* NVML's index of this GPU, -1 when NVML is missing or does not list it */
	int nvml_static_ok;         /* nvml below was read */
	struct gd_nvml_static nvml; /* fixed NVML facts (driver, max clocks, bus width, ...) */
};

/* The driver's facts about CUDA device dev (gd_cu_open must have succeeded). NVML fields are
 * left unknown: nvml_index -1, nvml zeroed with max_sm_mhz/max_mem_mhz/mem_bus_width -1. */
void gd_facts_read(int dev, struct gd_facts *f);
/* Adds the NVML side: opens NVML, finds the device by UUID (CUDA and NVML order may differ)
 * and reads its fixed facts. GD_OK, or GD_ENOGPU with the reason in why. */
int gd_facts_read_nvml(struct gd_facts *f, char *why, size_t n);

#endif
