/* The per-kernel view of `gpudiag run --metrics` (issue 19): the profiled launches of a profile
 * (p->kl, kc_metrics.h) grouped by kernel name and device, with what the guide derives from
 * them — FLOPs by precision, bytes per level, arithmetic intensity, achieved FLOP/s and B/s
 * placed against the GPU's ceilings, coalescing, divergence, achieved vs theoretical occupancy,
 * the top stall reasons. Computed once per profile (gd_analysis: s->kc) and read by the
 * verdicts and every renderer; nothing here is computed twice.
 *
 * Every value is NaN when a counter it needs was not collected. */
#ifndef GPUDIAG_KCOUNTERS_H
#define GPUDIAG_KCOUNTERS_H

#include "gpu/arch.h"
#include "profile/profile.h"

struct gd_summary;

/* Where a kernel sits against the ceilings (guide §10). */
enum gd_kc_bound {
	GD_KB_UNKNOWN = 0, /* a figure it needs is missing */
	GD_KB_MEMORY,      /* its intensity is left of the ridge and it reaches most of the memory roof */
	GD_KB_COMPUTE,     /* right of the ridge and reaches most of the compute roof */
	GD_KB_LATENCY,     /* reaches neither roof: latency/parallelism-bound */
};

/* The ceilings one device's kernels are placed against: from `gpudiag roofline` on this GPU
 * (the profile's ceilings table, copied from the cache when `run` started) or the datasheet. */
struct gd_kc_ceilings {
	double dram_bps, l2_bps;        /* bytes/s */
	double cuda_core[GD_P_COUNT];   /* FLOP/s on the CUDA cores */
	double tensor[GD_P_COUNT];      /* FLOP/s on the tensor cores */
	int measured;                   /* 1: measured on this GPU, 0: datasheet */
	char source[160];               /* "measured by gpudiag roofline 2026-12-03" / "datasheet (sm_90, 132 SMs, 1980 MHz)" */
};

#define GD_KC_TOP_STALLS 3

struct gd_kc_kernel {
	int device;
	int name;                       /* interned (mangled) name, as gd_pkernel.name */
	int dname;                      /* demangled, or = name */
	int launches;                   /* launches profiled (status ok) */
	int skipped;                    /* launches asked for and skipped (any reason) */
	int passes;                     /* replay passes of its profiled launches (max) */
	double q[GD_KC_COUNT];          /* median over its profiled launches; NaN none */

	/* derived, per launch (from the medians) */
	double flops[GD_P_COUNT];       /* FP64, FP32, FP16 from the CUDA-core instruction counts
					   (FMA = 2); tensor FLOPs are not counted by instruction */
	double tensor_inst;             /* tensor-math instructions: HMMA - HFMA2.MMA + GMMA + IMMA + DMMA */
	double dram_bytes, dram_bps;    /* read + write, and per second of its duration */
	double flop_s;                  /* CUDA-core FLOP/s of all precisions; for a kernel placed on a
					   tensor roof, tensor-pipe active % × that tensor ceiling (an
					   estimate: tensor FLOPs are not counted by instruction) */
	double intensity;               /* those FLOPs per DRAM byte */
	double ld_sectors_per_req, st_sectors_per_req; /* 4 ideal for 4-byte unit-stride accesses */
	double ld_used_pct, st_used_pct;  /* bytes used per sector fetched, % */
	double threads_per_inst;        /* 32 = no divergence */
	double achieved_occ_pct;        /* measured */
	double theoretical_occ_pct;     /* the occupancy calculator on its launch configuration */
	const char *occ_limiter;        /* what limits theoretical occupancy: "registers", ... or NULL */
	/* the busiest SM unit measured, % of its peak: the SM speed of light (GD_KC_SM_PCT) when
	 * the profile has it (--metrics=full, or a profile from before it left the default set),
	 * else the highest of the default set's unit metrics (GD_KC_SM_UNIT_FIRST..LAST) — a lower
	 * bound of the speed of light, which also counts units those miss (FP64, uniform, MIO) */
	double sm_busy_pct;             /* NaN when none is known */
	int sm_busy;                    /* the quantity it is (GD_KC_SM_PCT or a unit), -1 none */
	/* the busiest memory unit measured, the same way: the memory speed of light
	 * (GD_KC_MEM_PCT) when the profile has it, else the highest of DRAM % and the default
	 * set's memory units (GD_KC_MEM_UNIT_FIRST..LAST) */
	double mem_busy_pct;
	int mem_busy;

	/* the roofline (guide §10) */
	int bound;                      /* enum gd_kc_bound */
	int prec;                       /* the precision its compute ceiling is taken at (enum gd_prec) */
	double ceiling;                 /* the roof at its intensity: min(compute, intensity × DRAM), FLOP/s */
	double roof_pct;                /* achieved / that roof, % */
	double dram_roof_pct;           /* dram_bps / the DRAM ceiling, % */

	int stall[GD_KC_TOP_STALLS];    /* quantities (GD_KC_STALL_*) by share, -1 none */
	double stall_pct[GD_KC_TOP_STALLS];
	double time_share;              /* of v->kernel_ns, this kernel name's (all launches) */
};

struct gd_kc_view {
	struct gd_kc_kernel *k;         /* by time_share, descending */
	int nk;
	long profiled, skipped;         /* launches */
	int max_passes;
	/* the profiled launches by how they were replayed: user replay with L2 flushed before
	 * each pass (as ncu's default --cache-control all), user replay without a flush,
	 * CUPTI's kernel replay (caches as the previous pass left them), not said (a profile
	 * before metric_launches.replay) */
	long replay_flushed, replay_user, replay_kernel, replay_unknown;
	/* the kernel time the shares are of: the trace's kernel time plus the measured duration
	 * of each profiled launch the trace has no timed record of (under kernel replay CUPTI gave
	 * the profiled launches' kernel records no timestamps on the H200, CUDA 13.0: they are
	 * stored with NULL start/end and read as not run); the verdicts
	 * weigh kernel-counter findings by it, since replay inflates the run's GPU span */
	double kernel_ns;
	struct gd_kc_ceilings *ceil;    /* per device, p->ndev of them */
	int nceil;
};

/* Builds the view of p (whose summary s gives the kernel time shares). Returns GD_OK, or
 * GD_EFAIL (out of memory) with v empty. A profile without profiled launches gives nk = 0. */
int gd_kc_view_build(const struct gd_profile *p, const struct gd_summary *s, struct gd_kc_view *v);
void gd_kc_view_free(struct gd_kc_view *v);
const char *gd_kc_bound_name(int bound); /* "unknown", "memory", "compute", "latency" */
/* How v's launches were replayed, one phrase every renderer shows: "user replay, L2 flushed
 * before each pass", "CUPTI kernel replay, L2 not flushed between passes", a count of each when
 * mixed, "" when no launch says (a profile before the replay columns). Returns buf. */
const char *gd_kc_replay_text(const struct gd_kc_view *v, char *buf, size_t n);

#endif
