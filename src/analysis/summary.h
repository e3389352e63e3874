/* The summary of a profile (issue 8): wall time, GPU busy time, top kernels with their
 * occupancy, kernels by kind and library, copies by kind (pageable flagged), time in
 * synchronising calls, NVML ranges. Computed once from a loaded profile, as part of its
 * gd_analysis (analysis/analysis.h); the verdicts, the terminal/JSON/HTML reports and
 * `gpudiag diff` read it. */
#ifndef GPUDIAG_SUMMARY_H
#define GPUDIAG_SUMMARY_H

#include "gpu/occupancy.h"
#include "analysis/kcounters.h"
#include "analysis/names.h"
#include "profile/profile.h"

/* Per kernel name. */
struct gd_kstat {
	int name;              /* string id (as recorded) */
	char short_name[128];
	const char *full;      /* demangled (or recorded) name, owned by the profile */
	int kind, lib, tc;     /* gd_kkind, gd_klib, gd_kernel_tensor_cores */
	long count;
	double total_ns, min_ns, max_ns;
	/* launch configuration of the first instance, and its theoretical occupancy */
	long long grid_blocks;
	int block_threads, regs, static_smem, dyn_smem, device;
	int occ_ok;
	struct gd_occ_result occ;
	double waves, last_wave_fill;  /* NaN when the SM count is unknown */
	/* measured counters (issue 18): the mean of the PM samples attributed to this kernel
	 * over every device, weighted by samples (pm_metrics.h); pm_samples 0 and pm[] NaN when
	 * none were attributed */
	long pm_samples;
	double pm[GD_PM_COUNT];
	double pm_dram_bps;    /* pm[GD_PM_DRAM] in bytes/s (gd_pm_kernel.dram_bps), NaN unknown */
};

enum { GD_CPY_HTOD, GD_CPY_DTOH, GD_CPY_DTOD, GD_CPY_PTOP, GD_CPY_MEMSET, GD_CPY_OTHER, GD_CPY_COUNT };
const char *gd_copy_class_name(int c);
int gd_copy_class(int cupti_kind);

struct gd_copystat {
	long count, pageable_count;
	double bytes, ns, pageable_bytes, pageable_ns;
};

struct gd_range {
	int n;
	double min, mean, max;
};
/* A range built one value at a time: add every value (NaN is skipped), then end it (mean
 * divided; min, mean and max NaN when no value came). Start from a zeroed range. */
void gd_range_add(struct gd_range *r, double v);
void gd_range_end(struct gd_range *r);

struct gd_interval {
	int64_t start, end;
};

struct gd_summary {
	double wall_ns;        /* capture window (meta start..end, or first..last event) */
	double span_ns;        /* first GPU activity start .. last GPU activity end */
	int64_t span_start, span_end;
	double busy_ns;        /* union of kernel, copy and memset intervals */
	double kernel_ns, copy_ns;
	long nkernels, ncopies;

	struct gd_kstat *ks;   /* sorted by total time, descending */
	int nks;
	double kind_ns[GD_KIND_COUNT], lib_ns[GD_LIB_COUNT];
	long kind_n[GD_KIND_COUNT], lib_n[GD_LIB_COUNT];
	struct gd_copystat cp[GD_CPY_COUNT];

	long api_n[GD_API_CAT_COUNT];
	double api_ns[GD_API_CAT_COUNT];

	/* NVML, over every sample of every device */
	struct gd_range util, mem_used, power, temp, sm_mhz;
	double mem_total;
	unsigned long long reasons_seen; /* OR of every known mask */
	long throttled_samples;

	/* the GPU-metrics timeline (issue 18): devices with samples, the quantities some sample or
	 * kernel row carries, and each quantity's mean over the GPU-busy time (NaN none) */
	int pm_devices;
	int pm_collected[GD_PM_COUNT];
	double pm_busy[GD_PM_COUNT];

	/* merged busy intervals, in time order */
	struct gd_interval *busy;
	long nbusy;
	/* gpudiag's own replays (`run --metrics`) cut out of the timeline before this summary was
	 * taken (replaycut.h; gd_analysis_of): their length and the profiled launches that held
	 * them; 0 when nothing was cut, or when the summary was computed alone */
	double replay_cut_ns;
	long replay_cut_launches;
	/* per-launch counters of `gpudiag run --metrics` (issue 19), by kernel: built last by
	 * gd_summary_compute (gd_kc_view_build), freed with the summary; nk = 0 without them */
	struct gd_kc_view kc;
};

int gd_summary_compute(const struct gd_profile *p, struct gd_summary *s);
void gd_summary_free(struct gd_summary *s);
/* The kstat of a name id, or NULL. */
const struct gd_kstat *gd_summary_find(const struct gd_summary *s, const char *short_name);

#endif
