/* NVML, loaded at run time without nvml.h.
 *
 * Only the types and functions gpudiag reads are declared (in nvml.c); every symbol is
 * resolved with dlsym and may be missing on an older driver, in which case the field reads
 * as unknown. Nothing here changes GPU state: no Set* function is declared at all.
 * GPUDIAG_LIBNVML overrides the library path (tests point it at a missing file). */
#ifndef GPUDIAG_NVML_H
#define GPUDIAG_NVML_H

#include <stddef.h>

/* Unknown integer fields are -1 (GD_NVML_UNKNOWN); unknown 64-bit ones are ~0ULL. */
#define GD_NVML_UNKNOWN (-1)
#define GD_NVML_UNKNOWN64 (~0ULL)

/* One sample of the live state, as `gpudiag monitor` and `gpudiag run` record it. */
struct gd_nvml_sample {
	double t_ns;                 /* CLOCK_REALTIME ns when taken */
	int util_gpu, util_mem;      /* % over the driver's last sample period */
	unsigned long long mem_used, mem_total; /* bytes */
	int power_mw, power_limit_mw;
	int temp_c;
	int sm_mhz, mem_mhz;
	unsigned long long clock_reasons; /* nvmlClocksEventReasons bit mask */
	int pcie_tx_kbps, pcie_rx_kbps;
};

/* The fixed facts `gpudiag info` shows. */
struct gd_nvml_static {
	char name[96], uuid[96], pci_bus_id[32], driver[80];
	int cuda_driver_version;     /* e.g. 13000 */
	int max_sm_mhz, max_mem_mhz;
	int mem_bus_width;           /* bits */
	int compute_mode;            /* 0 default, 2 prohibited, 3 exclusive process */
	int mig_current, mig_pending;/* 0 disabled, 1 enabled */
	int mig_instances;           /* MIG devices present, or -1 */
	int pcie_gen, pcie_width, pcie_gen_max, pcie_width_max;
	int nvlink_active;           /* active NVLink links, or -1 */
	int compute_procs, mps_procs;/* processes using the GPU; MPS server clients */
};

/* Loads NVML and calls nvmlInit_v2. On failure writes the reason into why and returns
 * GD_ENOGPU. */
int gd_nvml_open(char *why, size_t n);
int gd_nvml_count(void);
/* NVML's index for a device UUID ("GPU-..."), or -1. CUDA and NVML order may differ. */
int gd_nvml_index_by_uuid(const char *uuid);
/* Fill the structures for NVML device `idx`; fields that cannot be read stay unknown. */
int gd_nvml_static_info(int idx, struct gd_nvml_static *s);
int gd_nvml_sample(int idx, struct gd_nvml_sample *s);
/* Why the last unknown was unknown is not tracked per field; this names NVML's error text. */
const char *gd_nvml_error(int code);

/* Decodes a clocks-event mask into words ("idle, software power cap"). "none" for 0. */
char *gd_clock_reasons_str(unsigned long long mask, char *buf, size_t n);
/* Non-zero when the mask holds a reason that slows clocks under load (power, thermal,
 * hardware slowdown), as opposed to idle or application-clock settings. */
int gd_clock_reasons_throttling(unsigned long long mask);

#endif
