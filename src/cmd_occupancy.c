/* gpudiag occupancy — theoretical occupancy of a launch configuration (guide §6).
 *
 * Answers the guide's question "how many warps can this SM keep in flight for my kernel,
 * and what stops it from keeping more?" from the architecture tables (no GPU needed) or
 * from the device's own attributes, then sweeps the block size as the classic occupancy
 * calculator does. */
#include "commands.h"
#include "core/cli.h"
#include "core/json.h"
#include "core/out.h"
#include "core/status.h"
#include "core/svg.h"
#include "core/table.h"
#include "gpu/arch.h"
#include "gpu/cudrv.h"
#include "gpu/occupancy.h"

#include <cuda.h>

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

const char cmd_occupancy_usage[] =
	"usage: gpudiag occupancy --threads T --regs R [options]\n"
	"\n"
	"Theoretical occupancy of one kernel launch configuration (guide §6): active blocks and\n"
	"warps per SM, the resource that limits them and by how much, and the sweep over block\n"
	"sizes 32…1024. Works with no GPU from built-in tables (--arch), or from a GPU's own\n"
	"attributes (--device, the default when a GPU is present).\n"
	"\n"
	"options:\n"
	"  --threads T        threads per block (required)\n"
	"  --regs R           registers per thread, as `nvcc -Xptxas -v` or ncu report (required)\n"
	"  --smem S           static shared memory per block in bytes (K/Ki suffixes accepted)\n"
	"  --dyn-smem D       dynamic shared memory per block at launch\n"
	"  --max-dyn-smem M   the kernel's cudaFuncAttributeMaxDynamicSharedMemorySize (opt-in\n"
	"                     above 48 KB); default: what the launch needs\n"
	"  --carveout P       cudaFuncAttributePreferredSharedMemoryCarveout in percent (default: none)\n"
	"  --barriers B       named barriers per block (default 1)\n"
	"  --grid N           blocks in the grid: adds waves and the tail of the last wave\n"
	"  --sms N            SMs of the GPU, for the waves with --arch (a GPU's own count is\n"
	"                     read with --device); e.g. 132 for an H100/H200 SXM\n"
	"  --arch sm_XX       use the built-in table for this architecture (sm_75 … sm_121;\n"
	"                     sm_90a, sm_100f: the same limits as sm_90, sm_100)\n"
	"  --device N         use GPU N's attributes\n"
	"  --svg FILE         write the block-size sweep as an SVG chart\n"
	"  --format F         terminal (default), json, csv or tsv; csv and tsv write the tables\n"
	"                     result and sweep (docs/scripting.md)\n"
	"  --table NAME       with csv/tsv: only that table (result or sweep)\n"
	"  --json             machine-readable output (docs/json.md); = --format json\n"
	"\n"
	"example: gpudiag occupancy --threads 256 --regs 128 --arch sm_90 --grid 1000 --sms 132\n";

static const char *const occ_tables[] = {"result", "sweep", NULL};

/* "registers + warps per SM" as the JSON's limited_by lists them, joined by '+' (CSV). */
static const char *limiters_csv(unsigned l, char *b, size_t n)
{
	size_t o = 0;
	const char *nm[] = {"registers", "shared_memory", "warps", "blocks", "barriers"};
	const unsigned bit[] = {GD_LIM_REGS, GD_LIM_SMEM, GD_LIM_WARPS, GD_LIM_BLOCKS, GD_LIM_BARRIERS};
	b[0] = 0;
	for (int i = 0; i < 5 && o < n; i++)
		if (l & bit[i])
			o += (size_t)snprintf(b + o, n - o, "%s%s", o ? "+" : "", nm[i]);
	return b;
}

struct advice {
	const char *resource;
	char text[256];
	int blocks_after;
	double occupancy_after;
};

/* What change to the limiting resource would admit one more block (or, for warps, what
 * block size would use the SM fully). At most one piece of advice per limiter. */
static int make_advice(const struct gd_occ_device *d, const struct gd_occ_kernel *k, const struct gd_occ_result *r,
		       struct advice *out, int max)
{
	int n = 0;
	struct gd_occ_result t;
	if (r->blocks_per_sm <= 0 || r->occupancy >= 0.999)
		return 0;
	if ((r->limiters & GD_LIM_REGS) && n < max) {
		struct gd_occ_kernel kk = *k;
		for (int regs = k->regs_per_thread - 1; regs >= 16; regs--) {
			kk.regs_per_thread = regs;
			if (gd_occupancy(d, &kk, &t) == 0 && t.blocks_per_sm > r->blocks_per_sm) {
				out[n].resource = "registers";
				snprintf(out[n].text, sizeof(out[n].text),
					 "use at most %d registers per thread (now %d): __launch_bounds__(%d, %d) or "
					 "-maxrregcount=%d; watch for spills",
					 regs, k->regs_per_thread, k->block_threads, t.blocks_per_sm, regs);
				out[n].blocks_after = t.blocks_per_sm;
				out[n].occupancy_after = t.occupancy;
				n++;
				break;
			}
		}
	}
	if ((r->limiters & GD_LIM_SMEM) && n < max) {
		/* The largest per-block total (static + dynamic) that fits one more block. */
		size_t need = r->smem_per_block_alloc, best = 0;
		struct gd_occ_kernel kk = *k;
		size_t unit = (size_t)d->smem_alloc_unit;
		for (size_t total = need; total >= unit; total -= unit) {
			size_t dyn_total = total > k->static_smem + d->smem_reserved_per_block
						   ? total - k->static_smem - d->smem_reserved_per_block
						   : 0;
			kk.dyn_smem = dyn_total;
			if (gd_occupancy(d, &kk, &t) == 0 && t.blocks_per_sm > r->blocks_per_sm) {
				best = total;
				break;
			}
		}
		if (best) {
			out[n].resource = "shared memory";
			snprintf(out[n].text, sizeof(out[n].text),
				 "use at most %zu bytes of shared memory per block including the %zu-byte reservation "
				 "(now %zu): smaller tiles, or fewer pipeline stages",
				 best, d->smem_reserved_per_block, need);
			out[n].blocks_after = t.blocks_per_sm;
			out[n].occupancy_after = t.occupancy;
			n++;
		}
	}
	if ((r->limiters & (GD_LIM_BLOCKS | GD_LIM_WARPS)) && n < max) {
		/* Small blocks hit the blocks-per-SM slot limit before the warp limit. */
		int want = d->max_threads_per_sm / d->max_blocks_per_sm;
		if ((r->limiters & GD_LIM_BLOCKS) && k->block_threads < want) {
			out[n].resource = "blocks per SM";
			snprintf(out[n].text, sizeof(out[n].text),
				 "blocks of %d threads hit the limit of %d resident blocks per SM; use at least %d "
				 "threads per block",
				 k->block_threads, d->max_blocks_per_sm, want);
			out[n].blocks_after = -1;
			out[n].occupancy_after = 1.0;
			n++;
		} else if (r->limiters & GD_LIM_WARPS) {
			out[n].resource = "warps per SM";
			snprintf(out[n].text, sizeof(out[n].text),
				 "%d threads per block leaves %d of %d warp slots unusable; a block size that divides "
				 "%d threads fills the SM",
				 k->block_threads, r->max_warps - r->active_warps, r->max_warps, d->max_threads_per_sm);
			out[n].blocks_after = -1;
			out[n].occupancy_after = 1.0;
			n++;
		}
	}
	return n;
}

static const char *lim_text(int v, char *buf, size_t n)
{
	if (v == INT_MAX)
		snprintf(buf, n, "no limit");
	else
		snprintf(buf, n, "%d", v);
	return buf;
}

static void json_limiters(struct gd_json *j, const char *key, unsigned l)
{
	gd_json_arr(j, key);
	if (l & GD_LIM_REGS)
		gd_json_str(j, NULL, "registers");
	if (l & GD_LIM_SMEM)
		gd_json_str(j, NULL, "shared_memory");
	if (l & GD_LIM_WARPS)
		gd_json_str(j, NULL, "warps");
	if (l & GD_LIM_BLOCKS)
		gd_json_str(j, NULL, "blocks");
	if (l & GD_LIM_BARRIERS)
		gd_json_str(j, NULL, "barriers");
	gd_json_arr_end(j);
}

static void json_limit(struct gd_json *j, const char *key, int v)
{
	if (v == INT_MAX)
		gd_json_null(j, key);
	else
		gd_json_int(j, key, v);
}

#define SWEEP_MAX 32

/* cuLaunchKernel's sharedMemBytes is an unsigned int: no shared memory size beyond it exists */
#define SMEM_ARG_MAX 4294967295LL
/* gridDim's limits (x, y, z) multiplied: the most blocks one grid may hold */
#define GRID_MAX (2147483647LL * 65535 * 65535)

/* The options' ranges, checked before any GPU is looked for (a usage error is found without
 * one). The block size and registers are checked against --arch's table when it names a known
 * architecture, else against the most any known architecture allows; a GPU's own limits are
 * applied again once its attributes are read (the r.invalid check below). */
static int check_options(const char *arch_name, int threads, int regs, long long smem, long long dyn,
			 long long max_dyn, int carveout, int barriers, long long grid, int sms)
{
	const char *who = "occupancy";
	const struct gd_arch *a = arch_name ? gd_arch_parse(arch_name) : NULL;
	int max_threads = a ? a->max_threads_per_block : 0, max_regs = a ? a->max_regs_per_thread : 0, rc;
	char what[64];
	for (const struct gd_arch *t = gd_arch_all(); !a && t && t->major; t++) {
		if (t->max_threads_per_block > max_threads)
			max_threads = t->max_threads_per_block;
		if (t->max_regs_per_thread > max_regs)
			max_regs = t->max_regs_per_thread;
	}
	if (threads == GD_UNSET_INT)
		return gd_error(GD_EUSAGE, "occupancy: --threads T is required (threads per block, 1…%d)", max_threads);
	snprintf(what, sizeof what, " (the block size%s%s)", a ? " on " : "", a ? a->sm : "");
	if ((rc = gd_opt_check_int(who, "threads", threads, 1, max_threads, what)) != GD_OK)
		return rc;
	if (regs == GD_UNSET_INT)
		return gd_error(GD_EUSAGE, "occupancy: --regs R is required (registers per thread; see nvcc -Xptxas -v)");
	snprintf(what, sizeof what, " (registers per thread%s%s)", a ? " on " : "", a ? a->sm : "");
	if ((rc = gd_opt_check_int(who, "regs", regs, 0, max_regs, what)) != GD_OK ||
	    (rc = gd_opt_check_size(who, "smem", smem, 0, SMEM_ARG_MAX, " bytes")) != GD_OK ||
	    (rc = gd_opt_check_size(who, "dyn-smem", dyn, 0, SMEM_ARG_MAX, " bytes")) != GD_OK ||
	    (max_dyn != GD_UNSET_LONG &&
	     (rc = gd_opt_check_size(who, "max-dyn-smem", max_dyn, 1, SMEM_ARG_MAX, " bytes")) != GD_OK) ||
	    (carveout != GD_UNSET_INT &&
	     (rc = gd_opt_check_int(who, "carveout", carveout, 0, 100, " (percent)")) != GD_OK) ||
	    (rc = gd_opt_check_int(who, "barriers", barriers, 0, 16, " (named barriers per block)")) != GD_OK ||
	    (grid != GD_UNSET_LONG &&
	     (rc = gd_opt_check_int(who, "grid", grid, 1, GRID_MAX, " (blocks in the grid)")) != GD_OK) ||
	    (sms != GD_UNSET_INT && (rc = gd_opt_check_int(who, "sms", sms, 1, 4096, " (SMs of the GPU)")) != GD_OK))
		return rc;
	if (sms != GD_UNSET_INT && !arch_name)
		return gd_error(GD_EUSAGE, "occupancy: --sms goes with --arch (with a GPU, its own SM count is used)");
	return GD_OK;
}

int cmd_occupancy(struct gd_ctx *ctx, int argc, char **argv)
{
	int threads = GD_UNSET_INT, regs = GD_UNSET_INT, carveout = GD_UNSET_INT, barriers = 0, sms = GD_UNSET_INT, fmt;
	long long smem = 0, dyn = 0, max_dyn = GD_UNSET_LONG, grid = GD_UNSET_LONG;
	const char *arch_name = NULL, *svg = NULL, *format = NULL, *table = NULL;
	struct gd_opt opts[] = {
		{"threads", GD_OPT_INT, &threads, "T", NULL},
		{"regs", GD_OPT_INT, &regs, "R", NULL},
		{"smem", GD_OPT_LONG, &smem, "S", NULL},
		{"dyn-smem", GD_OPT_LONG, &dyn, "D", NULL},
		{"max-dyn-smem", GD_OPT_LONG, &max_dyn, "M", NULL},
		{"carveout", GD_OPT_INT, &carveout, "P", NULL},
		{"barriers", GD_OPT_INT, &barriers, "B", NULL},
		{"grid", GD_OPT_LONG, &grid, "N", NULL},
		{"sms", GD_OPT_INT, &sms, "N", NULL},
		{"format", GD_OPT_STR, &format, "F", NULL},
		{"table", GD_OPT_STR, &table, "NAME", NULL},
		{"arch", GD_OPT_STR, &arch_name, "sm_XX", NULL},
		{"svg", GD_OPT_STR, &svg, "FILE", NULL},
		{NULL, 0, NULL, NULL, NULL},
	};
	struct gd_occ_device dev;
	struct gd_occ_kernel k;
	struct gd_occ_result r;
	const struct gd_arch *arch = NULL;
	char source[160], name[128] = "", buf[256];
	struct advice adv[3];
	int nadv, rc, dev_index = ctx->device < 0 ? 0 : ctx->device;
	int sweep_threads[SWEEP_MAX], nsweep = 0;
	struct gd_occ_result sweep[SWEEP_MAX];

	if ((rc = gd_parse_opts("occupancy", argc, argv, opts, NULL, 0, NULL, 0)) != GD_OK)
		return rc;
	rc = check_options(arch_name, threads, regs, smem, dyn, max_dyn, carveout, barriers, grid, sms);
	if (rc == GD_OK)
		rc = gd_format_pick("occupancy", format, ctx->json, occ_tables, table, &fmt);
	if (rc != GD_OK)
		return rc;
	if (carveout == GD_UNSET_INT)
		carveout = -1; /* the calculator's "no preference" */
	if (max_dyn == GD_UNSET_LONG)
		max_dyn = 0; /* the calculator's "what the launch needs", below */
	if (grid == GD_UNSET_LONG)
		grid = 0; /* no grid: no waves */
	if (arch_name && ctx->device >= 0)
		return gd_error(GD_EUSAGE, "occupancy: give --arch or --device, not both");

	if (arch_name) {
		arch = gd_arch_parse(arch_name);
		if (!arch)
			return gd_error(GD_EUSAGE, "occupancy: unknown architecture '%s' (known: %s)", arch_name,
					gd_arch_known_list());
		gd_occ_device_from_arch(arch, &dev);
		if (sms != GD_UNSET_INT)
			dev.sm_count = sms;
		{
			/* "sm_90a": the arch-specific target, said so, with sm_90's limits */
			size_t L = strlen(arch_name);
			int variant = L > 1 && (arch_name[L - 1] == 'a' || arch_name[L - 1] == 'f');
			snprintf(source, sizeof(source), "built-in table for %s (%s)%s%s%s", arch->sm, arch->family,
				 variant ? "; " : "", variant ? arch_name : "", variant ? " has the same limits" : "");
			if (sms != GD_UNSET_INT)
				snprintf(source + strlen(source), sizeof(source) - strlen(source), ", %d SMs (--sms)", sms);
		}
	} else {
		char hint[384];
		snprintf(hint, sizeof(hint), "; name an architecture with --arch sm_XX (known: %s)", gd_arch_known_list());
		if ((rc = gd_need_gpu(ctx, "occupancy", hint)) != GD_OK)
			return rc;
		if (gd_occ_device_from_cuda(dev_index, &dev))
			return gd_error(GD_ENOGPU,
					"occupancy: device %d has compute capability %d.%d, for which gpudiag has no "
					"occupancy table",
					dev_index, gd_cu_attr(dev_index, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR),
					gd_cu_attr(dev_index, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR));
		arch = gd_arch_find(dev.major, dev.minor);
		gd_cu_name(dev_index, name, sizeof(name));
		snprintf(source, sizeof(source), "device %d: %s (%s)", dev_index, name, arch->sm);
	}

	memset(&k, 0, sizeof(k));
	k.block_threads = threads;
	k.regs_per_thread = regs;
	k.static_smem = (size_t)smem;
	k.dyn_smem = (size_t)dyn;
	k.carveout_pct = carveout;
	k.barriers = barriers;
	/* Without an explicit maximum, assume the kernel was given what the launch needs, as a
	 * program launching with that much dynamic shared memory must have done. */
	k.max_dyn_smem = max_dyn ? (size_t)max_dyn : ((size_t)(dyn + smem) > dev.smem_per_block ? (size_t)dyn : 0);

	gd_occupancy(&dev, &k, &r);
	if (r.invalid && r.blocks_per_sm == 0 && (k.block_threads > dev.max_threads_per_block ||
						  regs > dev.max_regs_per_thread))
		return gd_error(GD_EUSAGE, "occupancy: %s (%s)", r.invalid, source);

	for (int t = 32; t <= dev.max_threads_per_block && nsweep < SWEEP_MAX; t += 32) {
		struct gd_occ_kernel kk = k;
		kk.block_threads = t;
		gd_occupancy(&dev, &kk, &sweep[nsweep]);
		sweep_threads[nsweep++] = t;
	}
	nadv = make_advice(&dev, &k, &r, adv, 3);

	if (svg) {
		struct gd_chart c;
		static double xs[SWEEP_MAX], ys[SWEEP_MAX], cur_x[1], cur_y[1];
		char title[200];
		for (int i = 0; i < nsweep; i++) {
			xs[i] = sweep_threads[i];
			ys[i] = sweep[i].occupancy * 100.0;
		}
		cur_x[0] = threads;
		cur_y[0] = r.occupancy * 100.0;
		snprintf(title, sizeof(title), "Occupancy vs block size — %d regs/thread, %lld B shared — %s", regs,
			 smem + dyn, arch->sm);
		gd_chart_init(&c, title, "threads per block", "theoretical occupancy (%)");
		c.ymin = 0;
		c.ymax = 100;
		c.xmin = 0;
		c.xmax = dev.max_threads_per_block;
		gd_chart_add(&c, "occupancy", xs, ys, nsweep, GD_STEP);
		gd_chart_add(&c, "this launch", cur_x, cur_y, 1, GD_POINTS);
		c.note = source;
		if ((rc = gd_chart_write(&c, svg)) != GD_OK)
			return rc;
	}

	if (fmt == GD_FMT_CSV || fmt == GD_FMT_TSV) {
		static const char *const rcols[] = {
			"arch", "source", "device", "sms", "threads_per_block", "registers_per_thread", "static_smem_bytes",
			"dynamic_smem_bytes", "blocks_per_sm", "warps_per_block", "active_warps_per_sm", "max_warps_per_sm",
			"occupancy", "limited_by", "grid_blocks", "waves", "last_wave_fill", "invalid"};
		static const char *const scols[] = {"threads_per_block", "blocks_per_sm", "active_warps_per_sm",
						    "occupancy", "limited_by"};
		struct gd_tw w;
		char lb[96];
		gd_tw_init(&w, stdout, fmt, NULL, table, 1);
		if (gd_tw_begin(&w, "result", NULL, rcols, 18)) {
			double fill = NAN, waves = grid > 0 && dev.sm_count > 0 ? gd_occ_waves(&dev, &r, grid, &fill) : NAN;
			gd_tw_row(&w);
			gd_tw_str(&w, arch->sm);
			gd_tw_str(&w, arch_name ? "table" : "device");
			if (arch_name)
				gd_tw_null(&w);
			else
				gd_tw_int(&w, dev_index);
			if (dev.sm_count > 0)
				gd_tw_int(&w, dev.sm_count);
			else
				gd_tw_null(&w);
			gd_tw_int(&w, threads);
			gd_tw_int(&w, regs);
			gd_tw_int(&w, smem);
			gd_tw_int(&w, dyn);
			gd_tw_int(&w, r.blocks_per_sm);
			gd_tw_int(&w, r.warps_per_block);
			gd_tw_int(&w, r.active_warps);
			gd_tw_int(&w, r.max_warps);
			gd_tw_num(&w, r.occupancy);
			gd_tw_str(&w, limiters_csv(r.limiters, lb, sizeof lb));
			if (grid > 0)
				gd_tw_int(&w, grid);
			else
				gd_tw_null(&w);
			gd_tw_num(&w, waves);
			gd_tw_num(&w, fill);
			gd_tw_str(&w, r.invalid);
			gd_tw_row_end(&w);
		}
		gd_tw_end(&w);
		if (gd_tw_begin(&w, "sweep", NULL, scols, 5))
			for (int i = 0; i < nsweep; i++) {
				gd_tw_row(&w);
				gd_tw_int(&w, sweep_threads[i]);
				gd_tw_int(&w, sweep[i].blocks_per_sm);
				gd_tw_int(&w, sweep[i].active_warps);
				gd_tw_num(&w, sweep[i].occupancy);
				gd_tw_str(&w, limiters_csv(sweep[i].limiters, lb, sizeof lb));
				gd_tw_row_end(&w);
			}
		gd_tw_end(&w);
		return GD_OK;
	}
	if (fmt == GD_FMT_JSON) {
		struct gd_json j;
		double waves, fill;
		gd_json_init(&j, stdout, 1);
		gd_json_obj(&j, NULL);
		gd_json_str(&j, "arch", arch->sm);
		gd_json_str(&j, "source", arch_name ? "table" : "device");
		if (!arch_name)
			gd_json_int(&j, "device", dev_index);
		if (dev.sm_count > 0)
			gd_json_int(&j, "sms", dev.sm_count);
		else
			gd_json_null(&j, "sms");
		gd_json_obj(&j, "kernel");
		gd_json_int(&j, "threads_per_block", threads);
		gd_json_int(&j, "registers_per_thread", regs);
		gd_json_int(&j, "static_smem_bytes", smem);
		gd_json_int(&j, "dynamic_smem_bytes", dyn);
		gd_json_int(&j, "max_dynamic_smem_bytes", (long long)k.max_dyn_smem);
		if (carveout >= 0)
			gd_json_int(&j, "carveout_pct", carveout);
		else
			gd_json_null(&j, "carveout_pct");
		gd_json_obj_end(&j);
		gd_json_obj(&j, "result");
		gd_json_int(&j, "blocks_per_sm", r.blocks_per_sm);
		gd_json_int(&j, "warps_per_block", r.warps_per_block);
		gd_json_int(&j, "active_warps_per_sm", r.active_warps);
		gd_json_int(&j, "max_warps_per_sm", r.max_warps);
		gd_json_num(&j, "occupancy", r.occupancy);
		json_limiters(&j, "limited_by", r.limiters);
		gd_json_obj(&j, "limits");
		json_limit(&j, "warps", r.lim_warps);
		json_limit(&j, "registers", r.lim_regs);
		json_limit(&j, "shared_memory", r.lim_smem);
		json_limit(&j, "blocks", r.lim_blocks);
		json_limit(&j, "barriers", r.lim_barriers);
		gd_json_obj_end(&j);
		gd_json_int(&j, "registers_per_block", r.regs_per_block_alloc);
		gd_json_int(&j, "smem_per_block_bytes", (long long)r.smem_per_block_alloc);
		gd_json_int(&j, "smem_sm_config_bytes", (long long)r.smem_sm_config);
		gd_json_str(&j, "invalid", r.invalid);
		if (grid > 0 && dev.sm_count > 0) {
			waves = gd_occ_waves(&dev, &r, grid, &fill);
			gd_json_num(&j, "waves", waves);
			gd_json_num(&j, "last_wave_fill", fill);
		}
		gd_json_obj_end(&j);
		gd_json_arr(&j, "advice");
		for (int i = 0; i < nadv; i++) {
			gd_json_obj(&j, NULL);
			gd_json_str(&j, "resource", adv[i].resource);
			gd_json_str(&j, "text", adv[i].text);
			if (adv[i].blocks_after > 0)
				gd_json_int(&j, "blocks_per_sm_after", adv[i].blocks_after);
			gd_json_num(&j, "occupancy_after", adv[i].occupancy_after);
			gd_json_obj_end(&j);
		}
		gd_json_arr_end(&j);
		gd_json_arr(&j, "sweep");
		for (int i = 0; i < nsweep; i++) {
			gd_json_obj(&j, NULL);
			gd_json_int(&j, "threads_per_block", sweep_threads[i]);
			gd_json_int(&j, "blocks_per_sm", sweep[i].blocks_per_sm);
			gd_json_int(&j, "active_warps_per_sm", sweep[i].active_warps);
			gd_json_num(&j, "occupancy", sweep[i].occupancy);
			json_limiters(&j, "limited_by", sweep[i].limiters);
			gd_json_obj_end(&j);
		}
		gd_json_arr_end(&j);
		gd_json_obj_end(&j);
		gd_json_end(&j);
		return GD_OK;
	}

	printf("%sOccupancy%s — %s\n", gd_bold(), gd_reset(), source);
	printf("  kernel: %d threads/block, %d registers/thread, %lld B static + %lld B dynamic shared memory\n\n",
	       threads, regs, smem, dyn);
	if (r.blocks_per_sm == 0) {
		printf("  %sthis launch cannot run%s: %s\n", gd_red(), gd_reset(), r.invalid ? r.invalid : "no block fits");
	} else {
		printf("  active blocks per SM  %d\n", r.blocks_per_sm);
		printf("  active warps per SM   %d of %d\n", r.active_warps, r.max_warps);
		printf("  occupancy             %s%s%s\n", gd_bold(), gd_fmt_pct(buf, sizeof(buf), r.occupancy),
		       gd_reset());
		printf("  limited by            %s\n", gd_occ_limiters_str(r.limiters, buf, sizeof(buf)));
		if (grid > 0 && dev.sm_count > 0) {
			double fill, waves = gd_occ_waves(&dev, &r, grid, &fill);
			printf("  grid of %lld blocks   %.2f waves over %d SMs; the last wave fills %.0f %% of them\n",
			       grid, waves, dev.sm_count, fill * 100);
		} else if (grid > 0) {
			printf("  grid                  waves need an SM count: give --sms N (132 on an H100/H200 SXM) or use --device\n");
		}
	}
	{
		struct gd_table t;
		char a[96], b[96], c[64], lim[32];
		gd_table_init(&t, 4);
		gd_table_align_right(&t, 1);
		gd_table_rowv(&t, "resource", "blocks/SM", "one block takes", "the SM has");
		snprintf(a, sizeof(a), "%d warps", r.warps_per_block);
		snprintf(b, sizeof(b), "%d warps", r.max_warps);
		gd_table_rowv(&t, "warps", lim_text(r.lim_warps, lim, sizeof(lim)), a, b);
		snprintf(a, sizeof(a), "%d registers", r.regs_per_block_alloc);
		snprintf(b, sizeof(b), "%d registers", dev.regs_per_sm);
		gd_table_rowv(&t, "registers", lim_text(r.lim_regs, lim, sizeof(lim)), a, b);
		snprintf(a, sizeof(a), "%zu B (incl. %zu B reserved)", r.smem_per_block_alloc, dev.smem_reserved_per_block);
		gd_fmt_bytes(c, sizeof(c), (double)r.smem_sm_config);
		snprintf(b, sizeof(b), "%s configured", c);
		gd_table_rowv(&t, "shared memory", lim_text(r.lim_smem, lim, sizeof(lim)), a, b);
		snprintf(b, sizeof(b), "%d block slots", dev.max_blocks_per_sm);
		gd_table_rowv(&t, "blocks", lim_text(r.lim_blocks, lim, sizeof(lim)), "1 slot", b);
		if (r.lim_barriers != INT_MAX) {
			snprintf(a, sizeof(a), "%d barrier%s", barriers > 0 ? barriers : 1, barriers > 1 ? "s" : "");
			snprintf(b, sizeof(b), "%d barriers", dev.max_blocks_per_sm * dev.barriers_per_block_slot);
			gd_table_rowv(&t, "barriers", lim_text(r.lim_barriers, lim, sizeof(lim)), a, b);
		}
		putchar('\n');
		gd_table_print(&t, stdout, 2);
		gd_table_free(&t);
	}
	if (nadv) {
		printf("\n  %sto raise it%s\n", gd_bold(), gd_reset());
		for (int i = 0; i < nadv; i++) {
			if (adv[i].blocks_after > 0)
				printf("  - %s → %d blocks, %s\n", adv[i].text, adv[i].blocks_after,
				       gd_fmt_pct(buf, sizeof(buf), adv[i].occupancy_after));
			else
				printf("  - %s\n", adv[i].text);
		}
		printf("  %sHigher occupancy hides memory latency; a compute-bound kernel may not need it (guide §6).%s\n",
		       gd_dim(), gd_reset());
	}
	{
		struct gd_table t;
		gd_table_init(&t, 5);
		for (int c = 0; c < 4; c++)
			gd_table_align_right(&t, c);
		gd_table_rowv(&t, "threads", "blocks/SM", "warps/SM", "occupancy", "limited by");
		for (int i = 0; i < nsweep; i++) {
			char a[16], b[16], c[16], d[16], e[96];
			snprintf(a, sizeof(a), "%d", sweep_threads[i]);
			snprintf(b, sizeof(b), "%d", sweep[i].blocks_per_sm);
			snprintf(c, sizeof(c), "%d", sweep[i].active_warps);
			gd_fmt_pct(d, sizeof(d), sweep[i].occupancy);
			if (sweep[i].blocks_per_sm == 0)
				snprintf(e, sizeof(e), "cannot launch: %s", sweep[i].invalid ? sweep[i].invalid : "");
			else
				gd_occ_limiters_str(sweep[i].limiters, e, sizeof(e));
			if (sweep_threads[i] == threads) {
				char mark[32];
				snprintf(mark, sizeof(mark), "%s ◀", a);
				gd_table_rowv(&t, mark, b, c, d, e);
			} else {
				gd_table_rowv(&t, a, b, c, d, e);
			}
		}
		printf("\n  %sblock-size sweep%s (same registers and shared memory per block)\n", gd_bold(), gd_reset());
		gd_table_print(&t, stdout, 2);
		gd_table_free(&t);
	}
	if (svg)
		printf("\n  chart written to %s\n", svg);
	return GD_OK;
}
