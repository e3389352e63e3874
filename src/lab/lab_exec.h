/* The execution labs (launch, grid, divergence, occupancy, streams, sfu; guide §2, §3, §5,
 * §6, §8, §11): their CPU references and accounting, exposed so the CPU-tier test
 * (lab_exec_test.c) can check them without a GPU. Each lab's run function lives in
 * src/lab/lab_<name>.c and is reached through the lab table. */
#ifndef GPUDIAG_LAB_EXEC_H
#define GPUDIAG_LAB_EXEC_H

#include "gpu/occupancy.h"
#include "kernels/lab_grid.h"

#include <stddef.h>

/* ---- launch ------------------------------------------------------------------------------ */
/* x after n_ops steps of x = fmaf(x, a, b) (the small op, and the fused kernel). */
float gd_lx_launch_ref(float x, int n_ops, float a, float b);
/* Share of the bad pattern's time that is not the work itself: 1 - fused / bad (0 when
 * bad <= fused), NaN when unknown. */
double gd_lx_launch_share(double bad_s, double fused_s);

/* ---- grid -------------------------------------------------------------------------------- */
struct gd_lx_grid_stats {
	int blocks, sms_used;	    /* blocks recorded, distinct SMs that ran at least one */
	int per_sm_min, per_sm_max; /* blocks per SM over the SMs used */
	double per_sm_mean;
	int max_concurrent;   /* most blocks resident on one SM at one instant */
	double makespan_ns;   /* first start to last end */
	double last_start_ns; /* last block's start, from the first start */
	double tail_ns;	      /* from the moment fewer than half the SMs are busy to the end */
	double resolution_ns; /* smallest nonzero gap between distinct timestamps */
	int bad;	      /* records that are impossible (smid >= sms, t1 < t0, poison) */
};
/* Counts blocks per SM, concurrency and the tail from the block records (n = grid). */
void gd_lx_grid_stats(const struct gd_grid_rec *rec, int n, int sms, struct gd_lx_grid_stats *st);
struct gd_lab_run;
/* Makes the run's --svg chart the timeline of these records: one segment per block on its
 * SM, one colour per wave (the block's rank on its SM ÷ resident blocks per SM). 0 on success. */
int gd_lx_grid_timeline(struct gd_lab_run *r, const struct gd_grid_rec *rec, int n, int sms, int resident,
			double resolution_ns, const char *title);

/* ---- divergence -------------------------------------------------------------------------- */
/* The sign pattern: g = 0 all positive (path A), g < 0 all negative (path B), else the sign
 * changes every g consecutive threads (g = 1: odd/even lanes; g = 32: whole warps). */
int gd_lx_div_positive(int g, long i);
/* The two expensive paths, bit-exact with the kernel. */
float gd_lx_div_path_a(float v, int iters);
float gd_lx_div_path_b(float v, int iters);
/* The guide's cheap pair: x > 0 ? x*2 : x-1 (both kernels compute exactly this). */
float gd_lx_div_cheap(float v);
/* The lab's variants in the order they run (kernel: enum gd_div_kernel). key: the row's
 * stable id (lab_key.h), which the summary looks it up by; ratios: the row gets vs_uniform
 * and vs_sum_of_paths; sweep: a point of the granularity sweep. */
struct gd_lx_div_variant {
	int key, kernel, g;
	const char *group, *name;
	double x;
	int ratios, sweep;
};
extern const struct gd_lx_div_variant gd_lx_div_variants[];
extern const int gd_lx_div_nvariants;
/* The note, the ratio metrics and the verdicts, from the results recorded under the
 * variants' keys (needs no GPU). regs and occ are indexed by kernel. */
void gd_lx_div_summarise(struct gd_lab_run *r, int n, int block, int iters, const int *regs, const double *occ);

/* ---- occupancy --------------------------------------------------------------------------- */
/* Dynamic shared memory that leaves exactly `blocks` blocks of the kernel resident per SM
 * (smem-limited), or 0 when no padding is needed; -1 when impossible. `k` gives the
 * kernel's block size, registers and static shared memory; max_dyn_smem and carveout_pct
 * are set by this function the way the lab launches it. */
long long gd_lx_occ_padding(const struct gd_occ_device *d, struct gd_occ_kernel *k, int blocks);
/* The compute kernel's item i: two chains of iters FMAs (bit-exact with the kernel). */
float gd_lx_occ_compute_ref(size_t i, int iters);

/* ---- streams ----------------------------------------------------------------------------- */
/* Overlap of two activities of lengths a and b that took `both` together: the fraction of the
 * shorter one hidden under the longer, (a + b - both) / min(a, b); 1 = perfect, 0 = none.
 * NaN when unknown. Not clamped: below 0 means running them together cost extra. */
double gd_lx_overlap(double a, double b, double both);
/* c after iters steps of c = fmaf(c, MUL, ADD) (every chain of the streams lab). */
float gd_lx_streams_chain(float c, int iters);
/* The seed of thread i of kernel A/B. */
float gd_lx_streams_seed(int i);

/* ---- sfu --------------------------------------------------------------------------------- */
/* FP64 references. fn is enum gd_sfu_fn. */
double gd_lx_sfu_ref(int fn, double x);
/* The throughput kernel's output for thread t of nt, in FP64 with float arguments; the sum
 * of |terms| into *abs_sum and the summed per-evaluation error allowance into *allow (either
 * may be NULL). */
double gd_lx_sfu_throughput_ref(int fn, int t, int nt, int iters, double *abs_sum, double *allow);
/* Error of a float result against an FP64 reference, in units in the last place of the
 * float nearest the reference (ulp of |ref|; at zero, of the smallest normal). */
double gd_lx_ulp_err(float got, double ref);

#endif
