/* The GPU-metrics timeline (issue 18): what the GPU's performance monitors are sampled for
 * during `gpudiag run`, one list shared by the sampler (src/gpu/pmsample.c), the profile
 * (tables gpu_metrics and kernel_metrics, docs/profile-schema.md) and every renderer.
 *
 * Each quantity is one column of gpu_metrics and of kernel_metrics. The sampler asks CUPTI's
 * PM sampling for the first of its metric names that this GPU's counters accept; a quantity
 * none of whose names is accepted (or that does not fit the one pass PM sampling allows) is
 * NULL in the profile and NaN in memory, and is reported as unknown. Values are stored in the
 * unit of the column's suffix: _pct = percent of the unit's sustained peak over the sample's
 * elapsed time (0..100), _bps = bytes per second, _mhz = MHz. */
#ifndef GPUDIAG_PM_METRICS_H
#define GPUDIAG_PM_METRICS_H

#include <stdint.h>

enum gd_pm_metric {
	GD_PM_GPC_MHZ = 0,  /* GPC (SM) clock */
	GD_PM_GR_ACTIVE,    /* graphics/compute engine busy: any work on the GPU */
	GD_PM_SM_ACTIVE,    /* SMs with at least one warp resident, averaged over SMs */
	GD_PM_SM_ISSUE,     /* instructions issued, of the SMs' peak issue rate */
	GD_PM_TENSOR,       /* tensor pipe active cycles */
	GD_PM_DRAM,         /* DRAM throughput (read + write) */
	GD_PM_DRAM_READ,    /* DRAM read throughput */
	GD_PM_DRAM_WRITE,   /* DRAM write throughput */
	GD_PM_L2,           /* L2 (LTS) throughput */
	GD_PM_WARPS_ACTIVE, /* resident warps, of the warp slots (achieved occupancy) */
	GD_PM_WARPS_UNUSED, /* unallocated warp slots on SMs that are active */
	GD_PM_PCIE_READ,    /* PCIe bytes read by the GPU (host → device), per second */
	GD_PM_PCIE_WRITE,   /* PCIe bytes written by the GPU (device → host), per second */
	GD_PM_COUNT
};

struct gd_pm_metric_desc {
	const char *column; /* the profile column: "sm_active_pct" */
	const char *label;  /* short label for tables and tracks: "SM active" */
	const char *unit;   /* "%", "B/s", "MHz" */
	const char *what;   /* one line: what was counted and how */
};
extern const struct gd_pm_metric_desc gd_pm_metrics[GD_PM_COUNT];

/* One sample of one device: counters over [t_start, t_end) ns on the profile's clock
 * (CUPTI's, CLOCK_REALTIME); v[m] NaN when quantity m was not collected. */
struct gd_pm_sample {
	int device; /* CUDA device ordinal, as the devices table's id */
	int64_t t_start, t_end;
	double v[GD_PM_COUNT];
};

/* The mean of the samples attributed to one kernel name on one device (kernel_metrics): a
 * sample is attributed to a kernel when instances of that kernel (one name) ran for at least
 * GD_PM_ATTRIB_COVER of the sample's interval and no other kernel ran more than
 * 1 - GD_PM_ATTRIB_COVER of it; a kernel gets a row when at least GD_PM_ATTRIB_MIN samples were
 * attributed to it. Shorter kernels, and kernels that always overlap others, get none:
 * their counters are unknown, not guessed. */
#define GD_PM_ATTRIB_COVER 0.9
#define GD_PM_ATTRIB_MIN 3 /* one or two samples at the default 100 µs are within the noise of a
			      kernel's start and end; three are 300 µs of the kernel alone */
struct gd_pm_kernel {
	int device;
	int name;         /* the kernel's interned name (profile strings), as gd_pkernel.name */
	long samples;     /* samples attributed */
	double v[GD_PM_COUNT];
	double dram_bps;  /* derived: dram_pct of the device's DRAM peak (gd_pm_dram_peak_bps),
			     bytes/s; NaN when either is unknown */
};

/* A device's DRAM peak from its memory clock and bus width (two transfers per clock, as HBM
 * and GDDR are quoted): the peak PM sampling's DRAM % is read against, bytes/s; NaN when
 * either is unknown (<= 0). H200: 3.201 GHz × 6016 bits → 4.81 TB/s, the figure
 * dram__bytes.sum.peak_sustained × dram__cycles_elapsed gave there (cupti-notes §5). */
double gd_pm_dram_peak_bps(int mem_clock_khz, int bus_bits);

#endif
