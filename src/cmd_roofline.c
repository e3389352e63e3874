/* gpudiag roofline — the GPU's measured ceilings (guide §10, §3, §4).
 *
 * Runs gpudiag's own bandwidth, FMA, SFU and tensor-core kernels (src/kernels/roofline*.cu)
 * and the cuBLASLt GEMM line, each: random data, warm-up, CUDA events, median of ≥ 10
 * repetitions with min and max, output checked against a CPU model, NVML sampled by a
 * thread during the measurement. Prints a table, ridge points and a roofline chart; caches
 * the ceilings per GPU for the labs and `gpudiag run`; --show prints the cache without a GPU. */
#include "commands.h"
#include "core/cli.h"
#include "core/fileio.h"
#include "core/json.h"
#include "core/table.h"
#include "core/out.h"
#include "core/stats.h"
#include "core/status.h"
#include "core/svg.h"
#include "gpu/arch.h"
#include "gpu/blaslt.h"
#include "gpu/cudrv.h"
#include "gpu/facts.h"
#include "gpu/nvml.h"
#include "gpu/sampler.h"
#include "kernels/roofline.h"
#include "roofline/ceilings.h"
#include "roofline/model.h"
#include "roofline/render.h"

#include <cuda.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

const char cmd_roofline_usage[] =
	"usage: gpudiag roofline [--quick] [--only LIST] [--svg FILE] [--format F] [--device N] [--no-cache]\n"
	"       gpudiag roofline --show [--svg FILE] [--format F]\n"
	"\n"
	"Measures this GPU's ceilings with gpudiag's own kernels: DRAM read/write/copy, L2, shared\n"
	"memory and L1 bandwidth; FP64/FP32/FP16x2/BF16x2 FMA peaks and the SFU (__expf) rate;\n"
	"tensor-core peaks per precision with mma.sync (and wgmma on Hopper, sm_90a); and the\n"
	"cuBLASLt 8192³ GEMM rate per precision (the 'achievable by a real GEMM' line). Each figure\n"
	"is the median of ≥ 10 timed repetitions (min and max shown) on random data, checked against\n"
	"a CPU model, with the SM clock, power and throttle reasons sampled during it, next to the\n"
	"datasheet value. Ridge points (FLOP/byte) are computed against the measured DRAM copy\n"
	"bandwidth. Results are cached per GPU in $XDG_CACHE_HOME/gpudiag (or ~/.cache/gpudiag).\n"
	"\n"
	"options:\n"
	"  --quick        smaller buffers and fewer repetitions (< 20 s); the full run takes < 2 min\n"
	"  --only LIST    comma-separated groups: dram,l2,smem,l1,fma,sfu,mma,wgmma,gemm\n"
	"  --reps N       timed repetitions per test (10..64; default 10 quick, 20 full)\n"
	"  --svg FILE     write the log-log roofline chart (ceilings and ridge points) as SVG\n"
	"  --show         print the cached ceilings of every GPU measured before (no GPU needed)\n"
	"  --no-cache     do not write the cache\n"
	"  --format F     terminal (default), json, csv or tsv; csv and tsv write the tables\n"
	"                 ceilings (one row per figure) and, for a run, tests (docs/scripting.md)\n"
	"  --table NAME   with csv/tsv: only that table\n"
	"  --json         machine-readable output (keys in docs/json.md, section roofline);\n"
	"                 the same as --format json\n"
	"\n"
	"Bytes: DRAM read and write count the buffer once; copy counts read + write (2 × buffer);\n"
	"L2/L1/shared memory count every 16-byte load. FLOP: an FMA is 2 FLOP (4 for half2); an\n"
	"m×n×k MMA or GEMM is 2·m·n·k. GB = 10^9 bytes. Method and sources: docs/roofline.md.\n"
	"exit: 0 ok, 1 a CUDA error, 3 no GPU, 4 a kernel's output failed its check.\n";

enum unit { U_BYTES, U_FLOPS, U_RESULTS };
enum field { F_DRAM_R, F_DRAM_W, F_DRAM_C, F_L2, F_SMEM, F_L1, F_CORE, F_TENSOR, F_LIB, F_SFU };

struct test_def {
	int kind;
	const char *group, *label;
	enum unit unit;
	enum field field;
	enum gd_prec prec;
};

static const struct test_def tests[] = {
	{GD_RL_DRAM_READ, "dram", "DRAM read", U_BYTES, F_DRAM_R, GD_P_COUNT},
	{GD_RL_DRAM_WRITE, "dram", "DRAM write", U_BYTES, F_DRAM_W, GD_P_COUNT},
	{GD_RL_DRAM_COPY, "dram", "DRAM copy (read+write)", U_BYTES, F_DRAM_C, GD_P_COUNT},
	{GD_RL_L2_READ, "l2", "L2 read", U_BYTES, F_L2, GD_P_COUNT},
	{GD_RL_SMEM_READ, "smem", "shared memory read", U_BYTES, F_SMEM, GD_P_COUNT},
	{GD_RL_L1_READ, "l1", "L1 read", U_BYTES, F_L1, GD_P_COUNT},
	{GD_RL_FMA_FP64, "fma", "FP64 FMA", U_FLOPS, F_CORE, GD_P_FP64},
	{GD_RL_FMA_FP32, "fma", "FP32 FMA", U_FLOPS, F_CORE, GD_P_FP32},
	{GD_RL_FMA_FP16, "fma", "FP16x2 FMA", U_FLOPS, F_CORE, GD_P_FP16},
	{GD_RL_FMA_BF16, "fma", "BF16x2 FMA", U_FLOPS, F_CORE, GD_P_BF16},
	{GD_RL_SFU_EXP, "sfu", "SFU __expf", U_RESULTS, F_SFU, GD_P_COUNT},
	{GD_RL_MMA_FP16, "mma", "FP16 mma.sync", U_FLOPS, F_TENSOR, GD_P_FP16},
	{GD_RL_MMA_BF16, "mma", "BF16 mma.sync", U_FLOPS, F_TENSOR, GD_P_BF16},
	{GD_RL_MMA_TF32, "mma", "TF32 mma.sync", U_FLOPS, F_TENSOR, GD_P_TF32},
	{GD_RL_MMA_INT8, "mma", "INT8 mma.sync", U_FLOPS, F_TENSOR, GD_P_INT8},
	{GD_RL_MMA_FP8, "mma", "FP8 e4m3 mma.sync", U_FLOPS, F_TENSOR, GD_P_FP8},
	{GD_RL_MMA_FP64, "mma", "FP64 mma.sync", U_FLOPS, F_TENSOR, GD_P_FP64},
	{GD_RL_WGMMA_FP16, "wgmma", "FP16 wgmma", U_FLOPS, F_TENSOR, GD_P_FP16},
	{GD_RL_WGMMA_BF16, "wgmma", "BF16 wgmma", U_FLOPS, F_TENSOR, GD_P_BF16},
	{GD_RL_WGMMA_TF32, "wgmma", "TF32 wgmma", U_FLOPS, F_TENSOR, GD_P_TF32},
	{GD_RL_WGMMA_FP8, "wgmma", "FP8 e4m3 wgmma", U_FLOPS, F_TENSOR, GD_P_FP8},
	{GD_RL_GEMM_FP32, "gemm", "FP32 cuBLASLt", U_FLOPS, F_LIB, GD_P_FP32},
	{GD_RL_GEMM_TF32, "gemm", "TF32 cuBLASLt", U_FLOPS, F_LIB, GD_P_TF32},
	{GD_RL_GEMM_FP16, "gemm", "FP16 cuBLASLt", U_FLOPS, F_LIB, GD_P_FP16},
	{GD_RL_GEMM_BF16, "gemm", "BF16 cuBLASLt", U_FLOPS, F_LIB, GD_P_BF16},
	{GD_RL_GEMM_FP8, "gemm", "FP8 e4m3 cuBLASLt", U_FLOPS, F_LIB, GD_P_FP8},
	{GD_RL_GEMM_INT8, "gemm", "INT8 cuBLASLt", U_FLOPS, F_LIB, GD_P_INT8},
};
#define NTESTS ((int)(sizeof tests / sizeof tests[0]))

enum outcome { O_SKIPPED = 0, O_OK, O_UNSUPPORTED, O_ERROR, O_CHECK };
static const char *const outcome_name[] = {"skipped", "ok", "unsupported", "error", "check failed"};

struct result {
	enum outcome outcome;
	struct gd_rl_run run;
	struct gd_stats st;           /* of the rate (work / time) */
	double datasheet;             /* at the max clock; NaN unknown */
	double peak_at_clock;         /* the same per-clock figure at the median sampled clock */
	double sm_mhz, power_w;       /* medians of the NVML samples taken during the test */
	unsigned long long reasons;   /* OR of the clock-event reasons seen */
	int nsamples;
};

/* Medians of the NVML samples [from, to) (gpu/sampler.h) into the result. */
static void sample_summary(struct gd_sampler *sp, size_t from, size_t to, struct result *res)
{
	struct gd_sampler_summary sum;
	gd_sampler_summary(sp, from, to, &sum);
	/* no known reason is shown as unknown, not as "none" */
	res->reasons = sum.nreasons ? sum.reasons : GD_NVML_UNKNOWN64;
	res->nsamples = sum.n;
	res->sm_mhz = sum.sm_mhz_median;
	res->power_w = sum.power_w_median;
}

static int group_selected(const char *only, const char *group)
{
	if (!only)
		return 1;
	size_t gl = strlen(group);
	for (const char *p = only; *p;) {
		const char *e = strchr(p, ',');
		size_t l = e ? (size_t)(e - p) : strlen(p);
		if (l == gl && !strncmp(p, group, l))
			return 1;
		if (!e)
			break;
		p = e + 1;
	}
	return 0;
}

static int check_only(const char *only)
{
	static const char *const groups[] = {"dram", "l2", "smem", "l1", "fma", "sfu", "mma", "wgmma", "gemm"};
	for (const char *p = only; *p;) {
		const char *e = strchr(p, ',');
		size_t l = e ? (size_t)(e - p) : strlen(p);
		int ok = 0;
		if (!l || (e && !e[1])) /* "dram,,l2", ",dram", "dram,": a slip, not a group */
			return gd_error(GD_EUSAGE, "roofline: --only needs group names between the commas, not '%s' "
					"(dram,l2,smem,l1,fma,sfu,mma,wgmma,gemm)", only);
		for (size_t g = 0; g < sizeof groups / sizeof groups[0]; g++)
			if (strlen(groups[g]) == l && !strncmp(groups[g], p, l))
				ok = 1;
		if (!ok)
			return gd_error(GD_EUSAGE, "roofline: --only: unknown group '%.*s' (dram,l2,smem,l1,fma,sfu,mma,wgmma,gemm)",
					(int)l, p);
		if (!e)
			break;
		p = e + 1;
	}
	return GD_OK;
}

/* Datasheet figure of a test at clock_mhz (SM) — NaN when gpudiag has no source for it. */
static double datasheet(const struct test_def *t, const struct gd_arch *a, int sms, double clock_mhz, double dram_ds)
{
	switch (t->field) {
	case F_DRAM_R:
	case F_DRAM_W:
	case F_DRAM_C: return dram_ds;
	case F_SMEM:
	case F_L1: /* 32 banks × 4 bytes per clock per SM (CUDA C++ Programming Guide, shared memory) */
		return clock_mhz > 0 && sms > 0 ? 128.0 * sms * clock_mhz * 1e6 : NAN;
	case F_SFU: /* 16 results per clock per SM for exp2/log2/sin/cos (Programming Guide, arithmetic throughput) */
		return a && clock_mhz > 0 && sms > 0 ? 16.0 * sms * clock_mhz * 1e6 : NAN;
	case F_CORE: return gd_arch_peak(a, t->prec, 0, sms, clock_mhz);
	case F_TENSOR: return gd_arch_peak(a, t->prec, 1, sms, clock_mhz);
	case F_LIB:
		return t->prec == GD_P_FP32 ? gd_arch_peak(a, GD_P_FP32, 0, sms, clock_mhz)
					    : gd_arch_peak(a, t->prec, 1, sms, clock_mhz);
	default: return NAN;
	}
}

/* Does the arch table say this precision is missing? (unknown arch: try it) */
static const char *lacks(const struct test_def *t, const struct gd_arch *a)
{
	if (!a || t->prec == GD_P_COUNT)
		return NULL;
	if ((t->field == F_TENSOR || (t->field == F_LIB && t->prec != GD_P_FP32)) && !(a->tensor_precs & (1u << t->prec)))
		return "the tensor cores of this architecture do not take this precision";
	if (t->field == F_CORE && !(a->cuda_core_flops_clk_sm[t->prec] > 0))
		return "the CUDA cores of this architecture have no such FMA";
	if (t->kind >= GD_RL_WGMMA_FP16 && t->kind <= GD_RL_WGMMA_FP8 && !a->has_wgmma)
		return "wgmma exists only on Hopper (sm_90a)";
	return NULL;
}

static void store(struct gd_ceilings *c, const struct test_def *t, double v)
{
	switch (t->field) {
	case F_DRAM_R: c->dram_read = v; break;
	case F_DRAM_W: c->dram_write = v; break;
	case F_DRAM_C: c->dram_copy = v; break;
	case F_L2: c->l2 = v; break;
	case F_SMEM: c->smem = v; break;
	case F_L1: c->l1 = v; break;
	case F_SFU: c->sfu = v; break;
	case F_CORE: c->cuda_core[t->prec] = v; break;
	case F_TENSOR:
		if (!(c->tensor[t->prec] >= v))
			c->tensor[t->prec] = v;
		break;
	case F_LIB: c->gemm_lib[t->prec] = v; break;
	}
}

static const char *unit_str(enum unit u) { return u == U_BYTES ? "B/s" : u == U_FLOPS ? "FLOP/s" : "/s"; }

static void progress(int done, int total, const char *what)
{
	int w = 30, fill = total ? done * w / total : w;
	fprintf(stderr, "\r  [");
	for (int i = 0; i < w; i++)
		fputs(i < fill ? "#" : " ", stderr);
	fprintf(stderr, "] %2d/%d %-28s", done, total, what);
	fflush(stderr);
}

/* ---- --show */
/* ---- CSV / TSV (docs/scripting.md): the ceilings in long form, one row per figure ---- */
static const char *const rl_tables[] = {"ceilings", "tests", NULL};
static const char *const ceil_cols[] = {"uuid", "gpu_name", "driver", "measured_at", "sm_clock_mhz", "ceiling",
					"precision", "value", "unit"};

static void ceil_row(struct gd_tw *w, const struct gd_ceilings *c, const char *name, const char *prec, double v,
		     const char *unit)
{
	gd_tw_row(w);
	gd_tw_str(w, c->uuid);
	gd_tw_str(w, c->gpu_name);
	gd_tw_str(w, c->driver);
	gd_tw_num(w, c->measured_at);
	if (c->sm_clock_mhz > 0)
		gd_tw_int(w, c->sm_clock_mhz);
	else
		gd_tw_null(w);
	gd_tw_str(w, name);
	gd_tw_str(w, prec);
	gd_tw_num(w, v);
	gd_tw_str(w, unit);
	gd_tw_row_end(w);
}

/* Every figure of c, NaN (not measured) included, so each GPU has the same rows. */
static void tw_ceilings(struct gd_tw *w, const struct gd_ceilings *c)
{
	const char *bw[] = {"dram_read", "dram_write", "dram_copy", "l2", "smem", "l1"};
	const double bwv[] = {c->dram_read, c->dram_write, c->dram_copy, c->l2, c->smem, c->l1};
	const char *groups[3] = {"cuda_core", "tensor", "gemm_lib"};
	const double *vals[3] = {c->cuda_core, c->tensor, c->gemm_lib};
	for (int i = 0; i < 6; i++)
		ceil_row(w, c, bw[i], NULL, bwv[i], "B/s");
	for (int g = 0; g < 3; g++)
		for (int p = 0; p < GD_P_COUNT; p++)
			ceil_row(w, c, groups[g], gd_prec_name((enum gd_prec)p), vals[g][p], "FLOP/s");
	ceil_row(w, c, "sfu", NULL, c->sfu, "/s");
}

static int show(struct gd_ctx *ctx, const char *svg, int fmt, const char *table)
{
	struct gd_tw w;
	int tabular = fmt == GD_FMT_CSV || fmt == GD_FMT_TSV;
	static char paths[64][4096];
	int n = gd_ceilings_list(paths, 64), shown = 0;
	char dir[4096] = "";
	gd_cache_dir_name(dir, sizeof dir);
	struct gd_json j;
	if (table && strcmp(table, "ceilings"))
		return gd_error(GD_EUSAGE, "roofline --show: shows only the table ceilings (tests are a run's)");
	if (tabular) {
		gd_tw_init(&w, stdout, fmt, NULL, table, 0);
		gd_tw_begin(&w, "ceilings", NULL, ceil_cols, 9);
	}
	if (fmt == GD_FMT_JSON) {
		gd_json_init(&j, stdout, 1);
		gd_json_obj(&j, NULL);
		gd_json_str(&j, "cache_dir", dir);
		gd_json_arr(&j, "gpus");
	}
	for (int i = 0; i < n; i++) {
		size_t len;
		char *text = gd_read_file(paths[i], &len);
		struct gd_ceilings c;
		if (!text)
			continue;
		int bad = gd_ceilings_parse(text, &c);
		free(text);
		if (bad) {
			gd_warn("roofline: ignoring unreadable cache file '%s'", paths[i]);
			continue;
		}
		shown++;
		if (tabular) {
			tw_ceilings(&w, &c);
		} else if (fmt == GD_FMT_JSON) {
			gd_rl_json_ceilings(&j, NULL, &c);
		} else {
			char when[64] = "unknown time";
			if (isfinite(c.measured_at)) {
				time_t tt = (time_t)c.measured_at;
				struct tm tm;
				gmtime_r(&tt, &tm);
				strftime(when, sizeof when, "%Y-%m-%d %H:%M UTC", &tm);
			}
			printf("%s%s%s  %s, driver %s, measured %s", gd_bold(), c.gpu_name, gd_reset(), c.uuid, c.driver, when);
			if (c.sm_clock_mhz > 0)
				printf(", median SM clock %d MHz", c.sm_clock_mhz);
			printf("\n  (cached in %s)\n\n", paths[i]);
			gd_rl_print_ceilings(&c, stdout);
			printf("\n");
			gd_rl_chart_text(&c, stdout, 64, 18, gd_is_tty());
			printf("\n");
		}
		if (svg && shown == 1) {
			struct gd_chart ch;
			static struct gd_rl_chart_store st;
			gd_rl_chart_svg(&c, &ch, &st);
			if (gd_chart_write(&ch, svg) != GD_OK)
				return GD_EFAIL;
		}
	}
	(void)ctx;
	if (fmt == GD_FMT_JSON) {
		gd_json_arr_end(&j);
		gd_json_obj_end(&j);
		gd_json_end(&j);
	}
	if (!shown)
		return gd_error(GD_EDATA, "roofline --show: no cached ceilings in %s (run 'gpudiag roofline' on a GPU first)",
				dir[0] ? dir : "the cache directory");
	return GD_OK;
}

/* ---- one measuring run, step by step: parse → open the device → warm up → measure →
 * finish sampling → cache → report. Everything a step leaves for the next is in the job. */
struct job {
	/* options */
	int quick, do_show, no_cache, reps, fmt;
	const char *svg, *only, *format, *table;
	/* the device */
	int dev, nvml_idx, bus, have_lt;
	struct gd_facts fa;           /* fa.nvml: NVML's fixed facts, when nvml_idx >= 0 */
	struct gd_rl_dev d;
	const struct gd_arch *arch;
	double max_clk, mem_mhz, dram_ds;
	char lt_why[512];
	struct gd_sampler *sampling;  /* NULL without NVML */
	/* results */
	struct gd_ceilings c;
	struct result res[NTESTS];
	int nfail, nerr, nok, throttled, saved;
	char cache_path[4096];
};

static int parse_options(const struct gd_ctx *ctx, struct job *jb, int argc, char **argv)
{
	int npos = 0;
	char *pos[4];
	jb->reps = GD_UNSET_INT; /* told apart from `--reps 0`, which is refused */
	const struct gd_opt opts[] = {
		{"quick", GD_OPT_FLAG, &jb->quick, NULL, "smaller, faster run (< 20 s)"},
		{"only", GD_OPT_STR, &jb->only, "LIST", "groups to run"},
		{"reps", GD_OPT_INT, &jb->reps, "N", "timed repetitions per test"},
		{"svg", GD_OPT_STR, &jb->svg, "FILE", "write the roofline chart as SVG"},
		{"show", GD_OPT_FLAG, &jb->do_show, NULL, "print the cached ceilings (no GPU needed)"},
		{"no-cache", GD_OPT_FLAG, &jb->no_cache, NULL, "do not write the cache"},
		{"format", GD_OPT_STR, &jb->format, "F", "terminal, json, csv or tsv"},
		{"table", GD_OPT_STR, &jb->table, "NAME", "with csv/tsv: only this table"},
		{NULL, 0, NULL, NULL, NULL},
	};
	int rc = gd_parse_opts("roofline", argc, argv, opts, pos, 4, &npos, 0);
	if (rc != GD_OK)
		return rc;
	if (npos)
		return gd_error(GD_EUSAGE, "roofline: unexpected argument '%s'", pos[0]);
	if ((rc = gd_format_pick("roofline", jb->format, ctx->json, rl_tables, jb->table, &jb->fmt)) != GD_OK)
		return rc;
	if (jb->only && check_only(jb->only) != GD_OK)
		return GD_EUSAGE;
	if (jb->reps == GD_UNSET_INT)
		jb->reps = jb->quick ? 10 : 20;
	else if ((rc = gd_opt_check_int("roofline", "reps", jb->reps, 10, GD_RL_MAX_REPS, NULL)) != GD_OK)
		return rc;
	for (int i = 0; i < NTESTS; i++)
		if (tests[i].kind != i || NTESTS != GD_RL_KIND_COUNT)
			return gd_error(GD_EFAIL, "roofline: internal error: test table out of order at %d", i);
	return GD_OK;
}

/* The GPU check, the device's facts and datasheet figures, NVML, cuBLASLt, and the sampler. */
static int open_device(const struct gd_ctx *ctx, struct job *jb)
{
	char why[512];
	int rc;
	if ((rc = gd_need_gpu(ctx, "roofline", " (use --show to print cached ceilings)")) != GD_OK)
		return rc;
	jb->dev = ctx->device < 0 ? 0 : ctx->device;
	gd_facts_read(jb->dev, &jb->fa);
	jb->d.device = jb->dev;
	jb->d.cc_major = jb->fa.cc_major;
	jb->d.cc_minor = jb->fa.cc_minor;
	jb->d.sms = jb->fa.sms;
	jb->d.max_threads_sm = jb->fa.max_threads_per_sm;
	jb->d.l2_bytes = jb->fa.l2_bytes;
	jb->d.smem_optin = jb->fa.smem_per_block_optin;
	jb->arch = gd_arch_find(jb->d.cc_major, jb->d.cc_minor);
	gd_ceilings_clear(&jb->c);
	snprintf(jb->c.gpu_name, sizeof jb->c.gpu_name, "%s", jb->fa.name);
	snprintf(jb->c.uuid, sizeof jb->c.uuid, "%s", jb->fa.uuid);

	/* NVML: clocks, bus width, driver, and the sampler */
	const struct gd_nvml_static *ns = &jb->fa.nvml;
	jb->nvml_idx = -1;
	if (gd_facts_read_nvml(&jb->fa, why, sizeof why) == GD_OK)
		jb->nvml_idx = jb->fa.nvml_index;
	else
		gd_warn("roofline: NVML unavailable (%s): clocks, power and throttle reasons will show as unknown", why);
	if (ns->driver[0])
		snprintf(jb->c.driver, sizeof jb->c.driver, "%s", ns->driver);
	else
		snprintf(jb->c.driver, sizeof jb->c.driver, "cuda-%d", gd_cu_driver_version());
	jb->max_clk = ns->max_sm_mhz > 0 ? ns->max_sm_mhz : jb->fa.sm_clock_khz / 1000.0;
	int mem_khz = jb->fa.mem_clock_khz;
	jb->bus = jb->fa.mem_bus_width_bits;
	jb->mem_mhz = mem_khz > 0 ? mem_khz / 1000.0 : ns->max_mem_mhz;
	if (jb->bus <= 0)
		jb->bus = ns->mem_bus_width;
	jb->dram_ds = gd_rl_dram_datasheet(jb->mem_mhz, jb->bus);

	if (!jb->arch)
		gd_warn("roofline: compute capability %d.%d is not in gpudiag's tables (known: %s): no datasheet figures; "
			"measuring what can be measured",
			jb->d.cc_major, jb->d.cc_minor, gd_arch_known_list());
	if (jb->nvml_idx >= 0) {
		struct gd_nvml_sample s0;
		gd_nvml_sample(jb->nvml_idx, &s0);
		if (ns->compute_procs > 0 || s0.util_gpu > 10)
			gd_warn("roofline: the GPU is busy (%d compute process%s, %d %% utilisation): the ceilings will read low",
				ns->compute_procs, ns->compute_procs == 1 ? "" : "es", s0.util_gpu);
	}
	jb->have_lt = gd_blaslt_open(why, sizeof why) == GD_OK;
	snprintf(jb->lt_why, sizeof jb->lt_why, "%s", jb->have_lt ? "" : why);

	/* NVML every 20 ms during the tests */
	jb->sampling = jb->nvml_idx >= 0 ? gd_sampler_start(20 * 1000 * 1000L, &jb->nvml_idx, 1, NULL, NULL) : NULL;
	return GD_OK;
}

static void warm_up(struct job *jb)
{
	/* clock ramp-up: an idle GPU sits at a low clock and takes a moment to boost, so a
	 * compute kernel runs for ~0.3 s before the first measurement (results discarded). */
	static struct gd_rl_run warm;
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int k = 0; k < 100; k++) {
		memset(&warm, 0, sizeof warm);
		warm.kind = GD_RL_FMA_FP32;
		warm.reps = 10;
		warm.quick = 1;
		warm.dev = jb->d;
		if (gd_rl_measure(&warm) != 0)
			break; /* the first test will report the problem */
		clock_gettime(CLOCK_MONOTONIC, &t1);
		if ((t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9 > 0.3)
			break;
	}
}

/* Measures test i (or says why it cannot) into jb->res[i]. */
static void measure_one(struct job *jb, int i)
{
	const struct test_def *t = &tests[i];
	struct result *r = &jb->res[i];
	r->datasheet = datasheet(t, jb->arch, jb->d.sms, jb->max_clk, jb->dram_ds);
	const char *no = lacks(t, jb->arch);
	if (no) {
		r->outcome = O_UNSUPPORTED;
		snprintf(r->run.msg, sizeof r->run.msg, "%s", no);
		return;
	}
	if (t->field == F_LIB && !jb->have_lt) {
		r->outcome = O_UNSUPPORTED;
		snprintf(r->run.msg, sizeof r->run.msg, "%.255s", jb->lt_why);
		return;
	}
	r->run.kind = t->kind;
	r->run.reps = jb->reps;
	r->run.quick = jb->quick;
	r->run.dev = jb->d;
	r->run.gemm = gd_gemm_run;
	size_t s0 = jb->sampling ? gd_sampler_count(jb->sampling) : 0;
	int mrc = gd_rl_measure(&r->run);
	if (jb->sampling) {
		/* make sure at least one sample falls inside short tests */
		struct timespec ts = {0, 25 * 1000 * 1000};
		if (gd_sampler_count(jb->sampling) == s0)
			nanosleep(&ts, NULL);
		sample_summary(jb->sampling, s0, gd_sampler_count(jb->sampling), r);
	}
	r->outcome = mrc == 0 ? O_OK : mrc == 3 ? O_UNSUPPORTED : mrc == 4 ? O_CHECK : O_ERROR;
	if (r->run.n > 0) {
		double rates[GD_RL_MAX_REPS];
		for (int k = 0; k < r->run.n; k++)
			rates[k] = r->run.work / (r->run.ms[k] * 1e-3);
		gd_stats_compute(rates, r->run.n, &r->st);
	}
	if (r->outcome == O_OK)
		store(&jb->c, t, r->st.median);
	if (jb->arch && r->sm_mhz > 0 && t->field != F_DRAM_R && t->field != F_DRAM_W && t->field != F_DRAM_C)
		r->peak_at_clock = datasheet(t, jb->arch, jb->d.sms, r->sm_mhz, jb->dram_ds);
	if (r->outcome == O_CHECK || r->outcome == O_ERROR)
		gd_warn("roofline: %s: %s", t->label, r->run.msg);
}

/* Every selected test, with a progress bar on a terminal. */
static void measure(const struct gd_ctx *ctx, struct job *jb)
{
	int total = 0, done = 0, tty = gd_is_tty() && isatty(2) && !ctx->json && jb->fmt == GD_FMT_TERMINAL;
	for (int i = 0; i < NTESTS; i++)
		if (group_selected(jb->only, tests[i].group))
			total++;
	/* wgmma runs last: a faulting sm_90a kernel would take the CUDA context (and every later
	 * test) with it. */
	for (int i = 0; i < NTESTS; i++)
		jb->res[i].outcome = O_SKIPPED;
	for (int ord = 0; ord < NTESTS; ord++) {
		int i = ord < GD_RL_WGMMA_FP16 ? ord : ord < NTESTS - 4 ? ord + 4 : ord - (NTESTS - 4) + GD_RL_WGMMA_FP16;
		struct result *r = &jb->res[i];
		memset(r, 0, sizeof *r);
		r->datasheet = r->peak_at_clock = r->sm_mhz = r->power_w = NAN;
		gd_stats_compute(NULL, 0, &r->st);
		if (!group_selected(jb->only, tests[i].group))
			continue;
		if (tty)
			progress(done, total, tests[i].label);
		measure_one(jb, i);
		done++;
	}
	if (tty) {
		progress(done, total, "done");
		fprintf(stderr, "\n");
	}
}

/* Stops the sampler (its median clock goes into the ceilings) and counts the outcomes. */
static void finish(struct job *jb)
{
	double all_clk = NAN;
	if (jb->sampling) {
		gd_sampler_stop(jb->sampling);
		struct result tmp;
		sample_summary(jb->sampling, 0, gd_sampler_count(jb->sampling), &tmp);
		all_clk = tmp.sm_mhz;
		gd_sampler_free(jb->sampling);
		jb->sampling = NULL;
	}
	jb->c.sm_clock_mhz = isfinite(all_clk) ? (int)lround(all_clk) : -1;
	jb->c.measured_at = (double)time(NULL);
	gd_blaslt_close();

	for (int i = 0; i < NTESTS; i++) {
		jb->nok += jb->res[i].outcome == O_OK;
		jb->nfail += jb->res[i].outcome == O_CHECK;
		jb->nerr += jb->res[i].outcome == O_ERROR;
		jb->throttled |= jb->res[i].outcome == O_OK && gd_clock_reasons_throttling(jb->res[i].reasons);
	}
}

static void save_cache(struct job *jb)
{
	/* Cache every figure that passed its check (a failed or erroneous test is not stored, so
	 * its figure stays NaN = not measured, and its name goes into c.failed), whenever
	 * something was measured; the exit status still reports the failure. */
	for (int i = 0; i < NTESTS; i++) {
		if (jb->res[i].outcome != O_CHECK && jb->res[i].outcome != O_ERROR)
			continue;
		size_t n = strlen(jb->c.failed);
		snprintf(jb->c.failed + n, sizeof jb->c.failed - n, "%s%s", n ? " " : "", gd_rl_kind_name(tests[i].kind));
	}
	if (!jb->no_cache && jb->nok) {
		if (!jb->only) {
			jb->saved = gd_ceilings_save(&jb->c) == GD_OK;
		} else {
			/* a partial run updates the cached figures it measured */
			struct gd_ceilings old;
			if (gd_ceilings_load(jb->c.uuid, jb->c.driver, &old) == 0) {
				/* keep the old failures of tests this run did not select */
				char *save = NULL;
				for (char *tok = strtok_r(old.failed, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
					for (int i = 0; i < NTESTS; i++)
						if (!strcmp(tok, gd_rl_kind_name(tests[i].kind)) && !group_selected(jb->only, tests[i].group)) {
							size_t n = strlen(jb->c.failed);
							snprintf(jb->c.failed + n, sizeof jb->c.failed - n, "%s%s", n ? " " : "", tok);
						}
				for (int i = 0; i < NTESTS; i++)
					if (!group_selected(jb->only, tests[i].group)) {
						/* keep the old value */
						const struct test_def *t = &tests[i];
						double v = NAN;
						switch (t->field) {
						case F_DRAM_R: v = old.dram_read; break;
						case F_DRAM_W: v = old.dram_write; break;
						case F_DRAM_C: v = old.dram_copy; break;
						case F_L2: v = old.l2; break;
						case F_SMEM: v = old.smem; break;
						case F_L1: v = old.l1; break;
						case F_SFU: v = old.sfu; break;
						case F_CORE: v = old.cuda_core[t->prec]; break;
						case F_TENSOR: v = old.tensor[t->prec]; break;
						case F_LIB: v = old.gemm_lib[t->prec]; break;
						}
						if (isfinite(v))
							store(&jb->c, t, v);
					}
			}
			jb->saved = gd_ceilings_save(&jb->c) == GD_OK;
		}
		if (jb->saved)
			gd_ceilings_path(jb->c.uuid, jb->cache_path, sizeof jb->cache_path);
	}
}

static void report_json(const struct job *jb)
{
	struct gd_json j;
	gd_json_init(&j, stdout, 1);
	gd_json_obj(&j, NULL);
	gd_json_obj(&j, "gpu");
	gd_json_int(&j, "device", jb->dev);
	gd_json_str(&j, "name", jb->c.gpu_name);
	gd_json_str(&j, "uuid", jb->c.uuid);
	gd_json_str(&j, "driver", jb->c.driver);
	gd_json_str(&j, "sm", jb->arch ? jb->arch->sm : NULL);
	gd_json_int(&j, "cc_major", jb->d.cc_major);
	gd_json_int(&j, "cc_minor", jb->d.cc_minor);
	gd_json_int(&j, "sms", jb->d.sms);
	gd_json_num(&j, "l2_bytes", jb->d.l2_bytes > 0 ? jb->d.l2_bytes : NAN);
	gd_json_num(&j, "max_sm_clock_mhz", jb->max_clk > 0 ? jb->max_clk : NAN);
	gd_json_num(&j, "memory_clock_mhz", jb->mem_mhz > 0 ? jb->mem_mhz : NAN);
	gd_json_num(&j, "memory_bus_bits", jb->bus > 0 ? jb->bus : NAN);
	gd_json_num(&j, "dram_datasheet_bytes_per_s", jb->dram_ds);
	gd_json_obj_end(&j);
	gd_json_bool(&j, "quick", jb->quick);
	gd_json_int(&j, "reps", jb->reps);
	gd_json_arr(&j, "tests");
	for (int i = 0; i < NTESTS; i++) {
		const struct result *r = &jb->res[i];
		if (!group_selected(jb->only, tests[i].group))
			continue;
		gd_json_obj(&j, NULL);
		gd_json_str(&j, "name", gd_rl_kind_name(tests[i].kind));
		gd_json_str(&j, "label", tests[i].label);
		gd_json_str(&j, "status", outcome_name[r->outcome]);
		gd_json_str(&j, "unit", unit_str(tests[i].unit));
		gd_json_num(&j, "median", r->st.median);
		gd_json_num(&j, "min", r->st.min);
		gd_json_num(&j, "max", r->st.max);
		gd_json_num(&j, "p10", r->st.p10);
		gd_json_num(&j, "p90", r->st.p90);
		gd_json_int(&j, "n", r->run.n);
		gd_json_num(&j, "work_per_rep", r->run.n ? r->run.work : NAN);
		gd_json_num(&j, "datasheet", r->datasheet);
		gd_json_num(&j, "fraction_of_datasheet", r->st.median / r->datasheet);
		gd_json_num(&j, "peak_at_measured_clock", r->peak_at_clock);
		gd_json_num(&j, "fraction_at_measured_clock", r->st.median / r->peak_at_clock);
		gd_json_num(&j, "sm_clock_mhz_median", r->sm_mhz);
		gd_json_num(&j, "power_w_median", r->power_w);
		char rs[256];
		if (r->nsamples > 0)
			gd_json_str(&j, "clock_event_reasons", gd_clock_reasons_str(r->reasons, rs, sizeof rs));
		else
			gd_json_null(&j, "clock_event_reasons");
		gd_json_num(&j, "check_max_error", r->run.max_err);
		gd_json_str(&j, "how", r->run.how[0] ? r->run.how : NULL);
		gd_json_str(&j, "message", r->run.msg[0] ? r->run.msg : NULL);
		gd_json_obj_end(&j);
	}
	gd_json_arr_end(&j);
	gd_rl_json_ceilings(&j, "ceilings", &jb->c);
	gd_json_str(&j, "cache_file", jb->cache_path[0] ? jb->cache_path : NULL);
	gd_json_obj_end(&j);
	gd_json_end(&j);
}

static const char *const test_cols[] = {"name", "label", "status", "unit", "median", "min", "max", "p10", "p90",
					"n", "datasheet", "fraction_of_datasheet", "peak_at_measured_clock",
					"fraction_at_measured_clock", "sm_clock_mhz_median", "power_w_median",
					"clock_event_reasons", "message"};

static void report_tables(const struct job *jb)
{
	struct gd_tw w;
	char rs[256];
	gd_tw_init(&w, stdout, jb->fmt, NULL, jb->table, 1);
	if (gd_tw_begin(&w, "ceilings", NULL, ceil_cols, 9))
		tw_ceilings(&w, &jb->c);
	gd_tw_end(&w);
	if (gd_tw_begin(&w, "tests", NULL, test_cols, 18))
		for (int i = 0; i < NTESTS; i++) {
			const struct result *r = &jb->res[i];
			if (!group_selected(jb->only, tests[i].group))
				continue;
			gd_tw_row(&w);
			gd_tw_str(&w, gd_rl_kind_name(tests[i].kind));
			gd_tw_str(&w, tests[i].label);
			gd_tw_str(&w, outcome_name[r->outcome]);
			gd_tw_str(&w, unit_str(tests[i].unit));
			gd_tw_num(&w, r->st.median);
			gd_tw_num(&w, r->st.min);
			gd_tw_num(&w, r->st.max);
			gd_tw_num(&w, r->st.p10);
			gd_tw_num(&w, r->st.p90);
			gd_tw_int(&w, r->run.n);
			gd_tw_num(&w, r->datasheet);
			gd_tw_num(&w, r->st.median / r->datasheet);
			gd_tw_num(&w, r->peak_at_clock);
			gd_tw_num(&w, r->st.median / r->peak_at_clock);
			gd_tw_num(&w, r->sm_mhz);
			gd_tw_num(&w, r->power_w);
			gd_tw_str(&w, r->nsamples > 0 ? gd_clock_reasons_str(r->reasons, rs, sizeof rs) : NULL);
			gd_tw_str(&w, r->run.msg[0] ? r->run.msg : NULL);
			gd_tw_row_end(&w);
		}
	gd_tw_end(&w);
}

static void report_text(const struct job *jb)
{
	const char *which = NULL;
	double bw = gd_rl_dram_roof(&jb->c, &which);
	char a[48], b[48], e[48], f[48], g[48], k[48], rs[160];
	printf("%s%s%s  sm_%d%d, %d SMs, L2 %s, max SM clock %s, DRAM datasheet %s (2 × %.0f MHz × %d bit)\n",
	       gd_bold(), jb->c.gpu_name, gd_reset(), jb->d.cc_major, jb->d.cc_minor, jb->d.sms,
	       gd_fmt_bytes(a, sizeof a, jb->d.l2_bytes),
	       jb->max_clk > 0 ? (snprintf(b, sizeof b, "%.0f MHz", jb->max_clk), b) : "unknown",
	       gd_fmt_si(e, sizeof e, jb->dram_ds, "B/s"), jb->mem_mhz, jb->bus);
	printf("  median of %d repetitions each (min … max), random data, outputs checked against CPU models;\n"
	       "  SM clock / power / clock-event reasons: NVML medians sampled every 20 ms during each test\n\n",
	       jb->reps);
	struct gd_table t;
	gd_table_init(&t, 10);
	for (int col = 1; col <= 7; col++)
		gd_table_align_right(&t, col);
	gd_table_rowv(&t, "ceiling", "median", "min … max", "datasheet", "reached", "at clock", "SM MHz", "power",
		      "throttle", "check");
	for (int i = 0; i < NTESTS; i++) {
		const struct result *r = &jb->res[i];
		const char *u = unit_str(tests[i].unit);
		char range[100], mhz[32], pw[32], chk[64];
		if (!group_selected(jb->only, tests[i].group))
			continue;
		if (r->outcome == O_UNSUPPORTED || (r->outcome == O_ERROR && !r->run.n)) {
			gd_table_rowv(&t, tests[i].label, r->outcome == O_UNSUPPORTED ? "unsupported" : "error", "",
				      isfinite(r->datasheet) ? gd_fmt_si(f, sizeof f, r->datasheet, u) : "—", "", "", "", "",
				      "", "");
			continue;
		}
		snprintf(range, sizeof range, "%s … %s", gd_fmt_si(a, sizeof a, r->st.min, u),
			 gd_fmt_si(b, sizeof b, r->st.max, u));
		if (isfinite(r->sm_mhz))
			snprintf(mhz, sizeof mhz, "%.0f", r->sm_mhz);
		else
			snprintf(mhz, sizeof mhz, "?");
		if (isfinite(r->power_w))
			snprintf(pw, sizeof pw, "%.0f W", r->power_w);
		else
			snprintf(pw, sizeof pw, "?");
		if (r->nsamples > 0)
			gd_clock_reasons_str(r->reasons, rs, sizeof rs);
		else
			snprintf(rs, sizeof rs, "?");
		snprintf(chk, sizeof chk, "%s", r->outcome == O_OK ? "ok" : outcome_name[r->outcome]);
		gd_table_rowv(&t, tests[i].label, gd_fmt_si(e, sizeof e, r->st.median, u), range,
			      isfinite(r->datasheet) ? gd_fmt_si(f, sizeof f, r->datasheet, u) : "—",
			      isfinite(r->datasheet) ? gd_fmt_pct(g, sizeof g, r->st.median / r->datasheet) : "—",
			      isfinite(r->peak_at_clock) ? gd_fmt_pct(k, sizeof k, r->st.median / r->peak_at_clock) : "—",
			      mhz, pw, rs, chk);
	}
	gd_table_print(&t, stdout, 2);
	gd_table_free(&t);
	printf("\n  %sunsupported%s = this card or library lacks it (not zero); \"reached\" = median / datasheet at the max\n"
	       "  clock; \"at clock\" = median / the same per-clock figure at the SM clock sampled during the test.\n",
	       gd_dim(), gd_reset());
	for (int i = 0; i < NTESTS; i++)
		if (group_selected(jb->only, tests[i].group) && jb->res[i].outcome != O_OK && jb->res[i].run.msg[0])
			printf("  %s: %s\n", tests[i].label, jb->res[i].run.msg);
	if (bw > 0) {
		struct gd_rl_roof roofs[26];
		int n = gd_rl_roofs(&jb->c, roofs, 26);
		printf("\n%sRidge points%s (FLOP per DRAM byte where the compute ceiling meets DRAM %s = %s):\n", gd_bold(),
		       gd_reset(), which, gd_fmt_si(a, sizeof a, bw, "B/s"));
		for (int i = 0; i < n; i++)
			printf("  %-18s %12s  →  %6.0f FLOP/byte\n", roofs[i].label,
			       gd_fmt_si(a, sizeof a, roofs[i].flops, "FLOP/s"), roofs[i].ridge);
		printf("\n");
		gd_rl_chart_text(&jb->c, stdout, 64, 18, gd_is_tty());
	}
	if (jb->throttled)
		printf("\n  %swarning:%s clocks were slowed (power/thermal) during some tests: those figures are this "
		       "card's limits under that condition\n",
		       gd_yellow(), gd_reset());
	if (jb->saved)
		printf("\n  cached in %s (gpudiag roofline --show)%s\n", jb->cache_path,
		       jb->c.failed[0] ? "; the failed tests are cached as not measured" : "");
}

int cmd_roofline(struct gd_ctx *ctx, int argc, char **argv)
{
	static struct job job; /* large (every repetition of every test): off the stack */
	struct job *jb = &job;
	int rc;
	memset(jb, 0, sizeof *jb);
	if ((rc = parse_options(ctx, jb, argc, argv)) != GD_OK)
		return rc;
	gd_out_init(stdout, ctx->no_color || jb->fmt != GD_FMT_TERMINAL);
	if (jb->do_show)
		return show(ctx, jb->svg, jb->fmt, jb->table);
	if ((rc = open_device(ctx, jb)) != GD_OK)
		return rc;
	warm_up(jb);
	measure(ctx, jb);
	finish(jb);
	save_cache(jb);
	if (jb->fmt == GD_FMT_JSON)
		report_json(jb);
	else if (jb->fmt == GD_FMT_CSV || jb->fmt == GD_FMT_TSV)
		report_tables(jb);
	else
		report_text(jb);
	if (jb->svg) {
		struct gd_chart ch;
		static struct gd_rl_chart_store st;
		gd_rl_chart_svg(&jb->c, &ch, &st);
		if (gd_chart_write(&ch, jb->svg) != GD_OK)
			return GD_EFAIL;
	}
	if (jb->nfail)
		return gd_error(GD_ECHECK, "roofline: %d test%s failed the output check (see above)", jb->nfail,
				jb->nfail == 1 ? "" : "s");
	if (jb->nerr)
		return gd_error(GD_EFAIL, "roofline: %d test%s hit a CUDA error (see above)", jb->nerr, jb->nerr == 1 ? "" : "s");
	return GD_OK;
}
