/* The lab harness: every `gpudiag lab <name>` is a set of kernel variants, each checked
 * against a CPU reference and then timed, all through this one harness.
 *
 * ---------------------------------------------------------------------------------------
 * ADDING A LAB (one .cu, one .c, one table row)
 *   1. src/kernels/lab_<name>.cu + src/kernels/lab_<name>.h: `static` kernels behind narrow
 *      extern "C" launchers (e.g. `int gd_labk_<name>_copy(..., void *stream)` returning a
 *      cudaError_t as int, 0 = ok). Launchers only enqueue; they never synchronise.
 *   2. src/lab/lab_<name>.c: the CPU references, the byte/FLOP formulas, and
 *          const struct gd_lab gd_lab_<name> = {"<name>", "§N", "one line", help, run_fn};
 *      where run_fn(struct gd_lab_run *r) allocates with gd_lab_alloc, fills inputs with
 *      random data (gd_lab_rand_*), describes each variant in a struct gd_lab_variant and calls
 *      gd_lab_measure(r, &v), then adds a chart (gd_lab_chart_*) and verdicts (gd_lab_verdict).
 *      Everything it allocates through gd_lab_alloc is freed by the harness.
 *   3. one row in src/lab/lab_table.c (an `extern` line and a pointer in the table).
 * The harness then gives the lab: option parsing (--quick --runs --csv --svg --json --device),
 * the no-GPU error, device facts (struct gd_lab_device), ceilings (measured or datasheet),
 * NVML clock/power/throttle sampling during every variant, the terminal table, JSON, CSV,
 * SVG and the exit status (4 when any variant fails its check).
 *
 * WHAT gd_lab_measure DOES WITH ONE VARIANT
 *   check:  poison v->out (every byte 0xFF: NaN for FP32/FP16/BF16/FP8-e4m3, 0xFFFFFFFF for
 *           u32), launch(iter = 0), synchronise, copy v->out back, call v->check, which
 *           compares every element with the CPU reference (gd_lab_cmp: tolerance per
 *           precision, poison = "unwritten"). A failed check is reported and not timed.
 *   warm-up: GD_LAB_WARMUP launches; then one launch is timed to choose `reps` (launches per
 *           timed sample) so one sample lasts ≥ ~1 ms and launch overhead does not dominate
 *           (v->reps > 0 forces it).
 *   timing: r->runs samples (≥ 10); before each sample v->out is poisoned again (outside the
 *           events), then cudaEvent start, `reps` launches, cudaEvent stop; sample = elapsed /
 *           reps. `iter` counts every launch since the check (1, 2, 3, ...), so a launcher
 *           that indexes buffers by iter % nbuf rotates through them (gd_lab_rotation says
 *           how many copies keep the rotation out of L2).
 *   record: median/min/max of the samples; GB/s = v->bytes / median (GB = 1e9 B); FLOP/s =
 *           v->flops / median; % of the ceiling named by v->roof, measured when
 *           `gpudiag roofline` cached one for this GPU and driver, else the datasheet figure,
 *           labelled "datasheet"; NVML samples taken in the variant's time window give the
 *           SM clock range, peak power and the throttle reasons seen.
 *
 * Test hook: GPUDIAG_LAB_INJECT_FAULT=<part of a variant name>[|<another>...] re-poisons the
 * last 8 bytes of each matching variant's output after its check run, so the GPU tier can
 * prove that a skipped element is caught (exit 4, "unwritten").
 *
 * Everything here except gd_lab_measure/gd_lab_alloc/gd_lab_open/gd_lab_execute runs
 * without a GPU, so the CPU-tier tests exercise the statistics, checks and renderers
 * (gd_lab_record takes ready-made samples).
 *
 * WHICH FILE HOLDS WHAT (this header declares all of it)
 *   src/lab/lab.c         the harness: table lookup, device facts, ceilings, checks, the run,
 *                         NVML sampling windows (gpu/sampler.h), recording, device memory,
 *                         gd_lab_measure, gd_lab_open/gd_lab_execute
 *   src/lab/lab_format.c  number formats: element types, FP16/BF16/FP8 conversions, random inputs
 *   src/lab/lab_render.c  output: the listing, terminal table, JSON, CSV, SVG
 *   src/lab/lab_table.c   the table of labs
 *   src/lab/lab_<name>.c  one lab each
 *   src/cmd_lab.c         the `gpudiag lab` command: options, GPU check, outputs
 * --------------------------------------------------------------------------------------- */
#ifndef GPUDIAG_LAB_H
#define GPUDIAG_LAB_H

#include "gpu/arch.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct gd_lab_run;
struct gd_chart;
struct gd_sampler;

/* ---- a lab ------------------------------------------------------------------------------ */
struct gd_lab {
	const char *name;    /* `gpudiag lab <name>` */
	const char *guide;   /* guide sections, "§4" */
	const char *summary; /* one line for the listing */
	const char *help;    /* what it measures and how to read it (printed by --help) */
	int (*run)(struct gd_lab_run *r); /* GD_OK or an error code (printed by the lab) */
	/* --shape SPEC: checks SPEC before any GPU work (0, or −1 with why); NULL: the lab takes
	 * no --shape. The lab reads r->shape itself. */
	int (*check_shape)(const char *spec, char *why, size_t n);
	/* --size: the range it may take, checked (by the command) before any GPU work, so a bad
	 * size is a usage error even without a GPU; a size must also be a multiple of size_step
	 * when that is above 1. size_max 0: the lab takes no --size. size_what names what the
	 * size sets, for the message: " (the largest working set)". */
	long long size_min, size_max, size_step;
	const char *size_what;
};

/* The table (src/lab/lab_table.c), terminated by NULL. */
extern const struct gd_lab *const gd_labs[];
const struct gd_lab *gd_lab_find(const char *name);

/* ---- the device, as the lab sees it --------------------------------------------------- */
struct gd_lab_device {
	int index;                  /* CUDA device index */
	char name[96], uuid[96], driver[80];
	int cc_major, cc_minor, sms;
	long long l2_bytes;         /* reported L2 size, -1 unknown */
	long long smem_per_sm;      /* bytes, -1 unknown */
	long long smem_optin;       /* max dynamic shared memory per block, -1 unknown */
	unsigned long long mem_total;
	int mem_clock_khz, bus_width_bits, sm_clock_khz; /* -1 unknown */
	const struct gd_arch *arch; /* NULL when gpudiag has no table for it */
	int nvml_index;             /* -1 when NVML is missing */
};
/* Datasheet DRAM bandwidth, 2 × memory clock × bus width / 8 (B/s); NaN when unknown. */
double gd_lab_datasheet_dram(const struct gd_lab_device *d);

/* ---- ceilings a variant is compared against --------------------------------------------- */
enum gd_lab_roof {
	GD_ROOF_NONE = 0,
	GD_ROOF_DRAM_COPY,  /* bytes counted read + write */
	GD_ROOF_DRAM_READ,
	GD_ROOF_DRAM_WRITE,
	GD_ROOF_L2,
	GD_ROOF_SMEM,
	GD_ROOF_FLOPS_CUDA, /* cuda-core FLOP/s for v->prec */
	GD_ROOF_FLOPS_TENSOR,
	GD_ROOF_FLOPS_GEMM, /* cuBLASLt-achievable FLOP/s for v->prec (measured only) */
};
struct gd_lab_ceiling {
	double value;       /* B/s or FLOP/s; NaN = unknown */
	const char *source; /* "measured", "datasheet", or "unknown" */
	const char *name;   /* "DRAM copy", "FP32 tensor", ... */
	int is_flops;
};
/* The ceiling for roof/prec from the measured set when present, else the datasheet. */
void gd_lab_ceiling(const struct gd_lab_run *r, enum gd_lab_roof roof, enum gd_prec prec,
		    struct gd_lab_ceiling *out);

/* ---- correctness ---------------------------------------------------------------------- */
enum gd_lab_dtype { GD_DT_F64, GD_DT_F32, GD_DT_F16, GD_DT_BF16, GD_DT_FP8E4M3, GD_DT_U32, GD_DT_U64 };
size_t gd_lab_dtype_size(enum gd_lab_dtype t);
const char *gd_lab_dtype_name(enum gd_lab_dtype t);

struct gd_lab_check {
	int done;           /* a check ran */
	int ok;
	long long checked;  /* elements compared */
	long long bad;      /* outside tolerance (unwritten included) */
	long long unwritten;/* still holding the poison pattern */
	long long first_bad;/* index, -1 none */
	double max_abs_err, max_rel_err;
	double atol, rtol;  /* the tolerance used: |got-ref| <= atol + rtol·|ref| */
	char note[96];      /* free text ("sum of 1024 partials"), may be empty */
};
/* Default tolerance for results computed in dtype from exact inputs: one rounding of the
 * type (rtol = 2^-mantissa bits; F64/U32/U64 exact). Accumulated results need more: pass
 * your own. */
void gd_lab_tolerance(enum gd_lab_dtype t, double *atol, double *rtol);
/* Compares n elements of `got` (device output copied back, type t) with ref (double).
 * Accumulates into c (so several arrays can be checked into one result); sets c->done and
 * c->ok = (bad == 0 && checked > 0). The poison pattern (all bytes 0xFF) counts as
 * unwritten even where NaN would be "close". */
void gd_lab_cmp(const void *got, const double *ref, size_t n, enum gd_lab_dtype t, double atol,
		double rtol, struct gd_lab_check *c);
/* The same with the reference computed per element by ref(ctx, i), for outputs too large
 * for an n-sized double array. */
void gd_lab_cmp_fn(const void *got, size_t n, enum gd_lab_dtype t, double (*ref)(const void *ctx, size_t i),
		   const void *ctx, double atol, double rtol, struct gd_lab_check *c);
/* Exact integer comparison (u32), same bookkeeping. */
void gd_lab_cmp_u32(const uint32_t *got, const uint32_t *ref, size_t n, struct gd_lab_check *c);
/* The poison byte. */
#define GD_LAB_POISON 0xFF

/* Host conversions used by CPU references (round to nearest even; e4m3 saturates to ±448). */
uint16_t gd_f32_to_f16(float f);
float gd_f16_to_f32(uint16_t h);
uint16_t gd_f32_to_bf16(float f);
float gd_bf16_to_f32(uint16_t h);
uint8_t gd_f32_to_e4m3(float f);
float gd_e4m3_to_f32(uint8_t v);
/* Value of element i of a typed array, as double. */
double gd_lab_get(const void *p, size_t i, enum gd_lab_dtype t);

/* ---- random inputs (deterministic per seed: the same run checks the same data) ---------- */
uint64_t gd_lab_rand_u64(uint64_t *state);
/* Uniform in [lo, hi). */
double gd_lab_rand_uniform(uint64_t *state, double lo, double hi);
/* Fills n elements of type t uniformly in [lo, hi) (rounded to the type; integers truncated). */
void gd_lab_rand_fill(void *p, size_t n, enum gd_lab_dtype t, double lo, double hi, uint64_t *state);

/* ---- a variant ------------------------------------------------------------------------ */
#define GD_LAB_MAX_METRICS 6
#define GD_LAB_WARMUP 3
#define GD_LAB_MIN_RUNS 10

struct gd_lab_metric {
	const char *key;  /* stable JSON key, e.g. "bytes_per_useful_byte" */
	double value;     /* NaN = unknown */
	const char *unit; /* "cycles", "ns", "×", "" */
};

struct gd_lab_variant {
	const char *group;   /* experiment within the lab: "stride sweep" (copied) */
	const char *name;    /* the variant: "stride 4" (copied) */
	double x;            /* numeric parameter for charts (stride, bytes); NaN if none */
	double bytes;        /* bytes moved per launch, by bytes_formula; 0 = not a bandwidth test */
	double flops;        /* FLOPs per launch; 0 = none */
	const char *formula; /* how bytes/FLOPs were counted, e.g. "N·4 read + N·4 write" */
	enum gd_lab_roof roof;
	enum gd_prec prec;   /* for FLOP roofs */
	int reps;            /* launches per timed sample; 0 = calibrate to ≥ ~1 ms */
	/* Enqueue one run (no synchronisation). iter: 0 for the check, then 1, 2, ... Returns
	 * GD_OK, or an error code with why filled (e.g. the CUDA error string). */
	int (*launch)(void *arg, long iter, char *why, size_t n);
	void *arg;
	/* Output poisoned before each run and copied back for the check; may be NULL/0 when
	 * check reads something else (it is then responsible for it). */
	void *out;
	size_t out_bytes;
	/* Compares the copied-back output with the CPU reference; fills c via gd_lab_cmp. NULL:
	 * not checked (shown as "n/a"; use only for variants without an output). */
	int (*check)(void *arg, const void *out_host, size_t out_bytes, struct gd_lab_check *c);
	struct gd_lab_metric metrics[GD_LAB_MAX_METRICS]; /* extra figures shown beside it */
	int nmetrics;
};

/* One recorded result (the harness fills it). */
struct gd_lab_result {
	/* names longer than these are cut at a UTF-8 character boundary, both when recorded and
	 * when looked up by gd_lab_find_result, so a long name still finds its result */
	char group[128], name[128], formula[128];
	/* the lab's own stable id for this row (an enum of the lab's, 0 = none): set after
	 * recording and looked up by gd_lab_find_key (lab_key.h), so renaming a display label
	 * cannot silently break a verdict that reads the row; never printed */
	int key;
	double x, bytes, flops;
	int reps, runs;
	double t_median, t_min, t_max; /* seconds per launch; NaN when not timed */
	double gbps, gflops;           /* from the median; NaN when bytes/flops are 0 or untimed */
	struct gd_lab_ceiling ceiling;
	double pct_of_ceiling;         /* 0..1+; NaN unknown */
	struct gd_lab_check check;
	char metric_keys[GD_LAB_MAX_METRICS][48], metric_units[GD_LAB_MAX_METRICS][16];
	double metric_values[GD_LAB_MAX_METRICS];
	int nmetrics;
	/* NVML during the timed runs: -1 / NaN unknown */
	int sm_mhz_min, sm_mhz_max, nsamples;
	double power_w_max;
	unsigned long long throttle; /* OR of the clock-event reasons seen */
};

/* Checks, warms up, times and records one variant. Returns GD_OK (also when the check
 * failed: that is a result, recorded and turned into exit status 4 at the end), or an error
 * code when a CUDA call failed (printed). */
int gd_lab_measure(struct gd_lab_run *r, const struct gd_lab_variant *v);
/* For launchers: GD_OK when cuda_err (a cudaError_t from a gd_labk_* launcher) is 0, else
 * GD_EFAIL with the CUDA error string in why. */
int gd_lab_cuda(int cuda_err, char *why, size_t n);
/* Records a variant from ready samples (seconds per launch; n may be 0 = untimed) and a
 * check result (NULL = unchecked). Used by gd_lab_measure and by tests; also by labs whose
 * figure is not a launch time (latency from clock64 inside the kernel: pass n = 0 and give
 * the figures as metrics). Returns the stored result. */
struct gd_lab_result *gd_lab_record(struct gd_lab_run *r, const struct gd_lab_variant *v,
				    const double *samples, int n, const struct gd_lab_check *c);
/* For labs that time outside gd_lab_measure (host clocks, several streams, graphs): the
 * CLOCK_REALTIME time in ns, and the NVML samples taken between t0_ns and t1_ns attached to
 * a recorded result (SM clock range, peak power, throttle reasons), as gd_lab_measure does. */
double gd_lab_now_ns(void);
/* Test hook GPUDIAG_LAB_INJECT_FAULT=<spec>: whether one of the '|'-separated parts of spec
 * occurs in the variant name (a substring: "stride 4 " also matches "... read stride 4 KB";
 * a part must name one variant exactly enough). Matching variants get their last output
 * bytes re-poisoned after the check run, so their check must fail as "unwritten". */
int gd_lab_fault_matches(const char *spec, const char *name);
void gd_lab_sample_window(struct gd_lab_run *r, struct gd_lab_result *res, double t0_ns, double t1_ns);
/* Adds (or replaces) a metric on the last recorded result. */
void gd_lab_result_metric(struct gd_lab_result *res, const char *key, double value, const char *unit);
/* The first recorded result with this group and name, or NULL. */
const struct gd_lab_result *gd_lab_find_result(const struct gd_lab_run *r, const char *group,
					       const char *name);

/* ---- device memory (freed by the harness when the lab returns) --------------------------- */
/* Allocates device memory; GD_OK or GD_EFAIL (printed, naming `what`). */
int gd_lab_alloc(struct gd_lab_run *r, void **p, size_t bytes, const char *what);
int gd_lab_upload(void *dev, const void *host, size_t bytes);   /* synchronous */
int gd_lab_download(void *host, const void *dev, size_t bytes); /* synchronous */
/* Free device memory now (bytes). */
size_t gd_lab_mem_free(void);
/* How many copies of a `set_bytes` working set to rotate through so consecutive launches
 * do not find their data in L2: enough to span ≥ 3 × L2, at least 1, at most max_copies,
 * and no more than ~1/4 of free memory. */
int gd_lab_rotation(const struct gd_lab_run *r, size_t set_bytes, int max_copies);

/* ---- charts and verdicts -------------------------------------------------------------- */
enum gd_lab_yval { GD_LAB_Y_GBPS, GD_LAB_Y_GFLOPS, GD_LAB_Y_TIME_US, GD_LAB_Y_METRIC };
#define GD_LAB_MAX_CHART_GROUPS 8
struct gd_lab_chart {
	const char *title, *xlabel, *ylabel;
	int logx, logy;
	enum gd_lab_yval y;
	const char *metric;  /* for GD_LAB_Y_METRIC */
	const char *groups[GD_LAB_MAX_CHART_GROUPS]; /* each group is one series over x */
	int ngroups;
	int ceiling_line;    /* draw the first plotted result's ceiling as a line */
};
/* Sets the chart written by --svg (the last call wins). */
void gd_lab_set_chart(struct gd_lab_run *r, const struct gd_lab_chart *c);
/* A picture that is not series over x (a timeline): after gd_lab_set_chart, the harness
 * calls draw on the initialised chart (title and labels from the lab chart) instead of adding
 * the groups. The series' arrays must outlive the lab's run function (the SVG is written
 * after it returns). */
void gd_lab_set_chart_draw(struct gd_lab_run *r, void (*draw)(const struct gd_lab_run *r, struct gd_chart *ch, void *arg),
			   void *arg);
/* Adds a verdict: one plain sentence about what the numbers show, tied to a guide section. */
void gd_lab_verdict(struct gd_lab_run *r, const char *section, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Adds a line to the lab's notes (how something was measured, what was skipped). */
void gd_lab_note(struct gd_lab_run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- the run ------------------------------------------------------------------------- */
struct gd_lab_verdict_line {
	char section[16];
	char text[512];
};

struct gd_lab_run {
	const struct gd_lab *lab;
	struct gd_lab_device dev;
	int quick;           /* --quick: smaller sizes, for a fast look and for CI smoke runs */
	int runs;            /* timed samples per variant (≥ GD_LAB_MIN_RUNS) */
	long long size;      /* --size: the lab's main size parameter, 0 = the lab's default */
	const char *shape;   /* --shape: the lab's own key=value shapes, NULL = none given */
	double target_sample_s; /* a timed sample lasts at least this (reps calibration) */
	int has_measured;    /* a measured ceiling set was loaded */
	void *ceilings;      /* struct gd_ceilings * (opaque here) */
	struct gd_lab_result *res;
	int nres, cap;
	struct gd_lab_verdict_line *verdicts;
	int nverdicts;
	char **notes;
	int nnotes;
	struct gd_lab_chart chart;
	int has_chart;
	void (*chart_draw)(const struct gd_lab_run *r, struct gd_chart *ch, void *arg); /* or NULL */
	void *chart_draw_arg;
	void **allocs;
	int nallocs;
	int check_failed;
	struct gd_sampler *sampler; /* NVML sampling thread (gpu/sampler.h) */
};

/* Prepares a run without a GPU (tests; device facts zeroed / unknown, datasheet roofs). */
void gd_lab_run_init(struct gd_lab_run *r, const struct gd_lab *lab);
void gd_lab_run_free(struct gd_lab_run *r);

/* ---- output --------------------------------------------------------------------------- */
void gd_lab_print_table(const struct gd_lab_run *r, FILE *f);
void gd_lab_write_json(const struct gd_lab_run *r, FILE *f);
void gd_lab_write_csv(const struct gd_lab_run *r, FILE *f);
/* The results table as CSV or TSV (format: core/table.h's GD_FMT_CSV or GD_FMT_TSV). */
void gd_lab_write_table(const struct gd_lab_run *r, FILE *f, int format);
/* Builds the SVG of the lab's chart; returns 0 when the lab set none. */
int gd_lab_write_svg(const struct gd_lab_run *r, FILE *f);
/* `gpudiag lab` alone: one line per lab. */
void gd_lab_list(FILE *f);

/* ---- one run on the GPU (for cmd_lab.c) ------------------------------------------------- */
/* Reads the facts of CUDA device `device` into r->dev, makes it current and loads its cached
 * ceilings. GD_OK, or GD_ENOGPU with the CUDA error in why. */
int gd_lab_open(struct gd_lab_run *r, int device, char *why, size_t n);
/* Runs r->lab with NVML sampled beside it; the lab's status. */
int gd_lab_execute(struct gd_lab_run *r);

/* Copies src into dst[n], cut (if it must be) at a UTF-8 character boundary: how names are
 * stored in a result, so lookups (and chart groups) cut theirs the same way. */
void gd_lab_copy_name(char *dst, size_t n, const char *src);

#endif
