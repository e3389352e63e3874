/* The GPU-metrics quantities (pm_metrics.h): columns, labels, units and what each counts.
 * The CUPTI metric names behind each are in src/gpu/pmsample.c. */
#include "profile/pm_metrics.h"

#include <math.h>

const struct gd_pm_metric_desc gd_pm_metrics[GD_PM_COUNT] = {
	[GD_PM_GPC_MHZ] = {"gpc_mhz", "SM clock", "MHz", "GPC clock cycles elapsed per second (PM sampling)"},
	[GD_PM_GR_ACTIVE] = {"gr_active_pct", "GPU active", "%",
			     "cycles the graphics/compute engine had work, of cycles elapsed"},
	[GD_PM_SM_ACTIVE] = {"sm_active_pct", "SM active", "%",
			     "cycles with at least one warp resident on an SM, averaged over SMs"},
	[GD_PM_SM_ISSUE] = {"sm_issue_pct", "SM issue", "%",
			    "warp instructions issued, of the SMs' peak sustained issue rate"},
	[GD_PM_TENSOR] = {"tensor_active_pct", "Tensor active", "%", "cycles the tensor pipe was active, of its peak"},
	[GD_PM_DRAM] = {"dram_pct", "DRAM", "%", "DRAM throughput (read + write), of peak sustained"},
	[GD_PM_DRAM_READ] = {"dram_read_pct", "DRAM read", "%", "DRAM read throughput, of peak sustained"},
	[GD_PM_DRAM_WRITE] = {"dram_write_pct", "DRAM write", "%", "DRAM write throughput, of peak sustained"},
	[GD_PM_L2] = {"l2_pct", "L2", "%", "L2 cache (LTS) throughput, of peak sustained"},
	[GD_PM_WARPS_ACTIVE] = {"warps_active_pct", "Warps active", "%",
				"resident warps, of the warp slots of all SMs (achieved occupancy)"},
	[GD_PM_WARPS_UNUSED] = {"warps_unused_pct", "Warp slots free", "%",
				"unallocated warp slots on SMs that had work, of all warp slots"},
	[GD_PM_PCIE_READ] = {"pcie_read_bps", "PCIe read", "B/s", "bytes the GPU read over PCIe, per second"},
	[GD_PM_PCIE_WRITE] = {"pcie_write_bps", "PCIe write", "B/s", "bytes the GPU wrote over PCIe, per second"},
};

double gd_pm_dram_peak_bps(int mem_clock_khz, int bus_bits)
{
	if (mem_clock_khz <= 0 || bus_bits <= 0)
		return NAN;
	return 2.0 * mem_clock_khz * 1e3 * bus_bits / 8.0;
}
