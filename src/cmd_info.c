/* gpudiag info — everything about each GPU on one screen (guide §1, §3, §4, §13).
 *
 * Facts come from three places, and each line says which when it matters: the driver's
 * device attributes (loaded at run time), NVML for the live state (loaded at run time), and
 * gpudiag's architecture table for what no API reports (tensor-core precisions, per-clock
 * throughput, carveout steps). A value that cannot be read is shown as unknown with the
 * reason; nothing is invented.
 *
 * Every value is first collected into a list of fields, then rendered either as the
 * terminal view or as JSON, so both always show the same facts. */
#include "commands.h"
#include "core/cli.h"
#include "core/json.h"
#include "core/table.h"
#include "core/out.h"
#include "core/status.h"
#include "gpu/arch.h"
#include "gpu/cudrv.h"
#include "gpu/facts.h"
#include "gpu/nvml.h"

#include <cuda.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

const char cmd_info_usage[] =
	"usage: gpudiag info [--device N] [--format terminal|json|csv|tsv [--table NAME]]\n"
	"\n"
	"Everything about each visible GPU (guide §1, §3, §4, §13): identity and architecture;\n"
	"SMs, warps, blocks, registers and shared memory limits; L1/shared carve-out; L2; memory\n"
	"size, bus, clock and theoretical bandwidth; tensor-core generation and precisions, and\n"
	"which precisions fall back to CUDA cores; theoretical peak FLOP/s per precision at the\n"
	"maximum SM clock; live state from NVML (utilisation, memory, power, temperature,\n"
	"clocks, clock-event reasons in words); compute mode, MIG, MPS; PCIe and NVLink.\n"
	"\n"
	"options:\n"
	"  --device N   only GPU N (CUDA numbering)\n"
	"  --format F   terminal (default), json, csv or tsv; csv and tsv write two tables\n"
	"               (docs/scripting.md): fields (one row per device and field: section, key,\n"
	"               label, value, why unknown) and peaks (per device and precision)\n"
	"  --table NAME with csv/tsv: only that table (fields or peaks)\n"
	"  --json       machine-readable output (docs/json.md); = --format json\n"
	"\n"
	"Nothing is changed on the GPU: gpudiag only reads.\n";

/* ---- the field list ------------------------------------------------------------------- */

enum fkind { F_STR, F_INT, F_NUM, F_BOOL };

struct field {
	const char *section; /* JSON object key and terminal heading */
	const char *key;     /* JSON key */
	const char *label;   /* terminal label */
	enum fkind kind;
	int known;
	long long i;
	double d;
	char s[200];  /* string value, or the terminal rendering of a number */
	char why[160];/* why unknown */
};

#define MAX_FIELDS 96

struct fields {
	struct field f[MAX_FIELDS];
	int n;
};

static struct field *add(struct fields *fs, const char *sec, const char *key, const char *label, enum fkind k)
{
	struct field *f = &fs->f[fs->n < MAX_FIELDS - 1 ? fs->n++ : fs->n];
	memset(f, 0, sizeof(*f));
	f->section = sec;
	f->key = key;
	f->label = label;
	f->kind = k;
	return f;
}

static void add_str(struct fields *fs, const char *sec, const char *key, const char *label, const char *v,
		    const char *why)
{
	struct field *f = add(fs, sec, key, label, F_STR);
	if (v && strcmp(v, "unknown")) {
		f->known = 1;
		snprintf(f->s, sizeof(f->s), "%s", v);
	} else {
		snprintf(f->why, sizeof(f->why), "%s", why ? why : "not reported");
	}
}

/* An integer with a terminal rendering; v < 0 means unknown. */
static void add_int(struct fields *fs, const char *sec, const char *key, const char *label, long long v,
		    const char *shown, const char *why)
{
	struct field *f = add(fs, sec, key, label, F_INT);
	if (v >= 0) {
		f->known = 1;
		f->i = v;
		if (shown)
			snprintf(f->s, sizeof(f->s), "%s", shown);
		else
			snprintf(f->s, sizeof(f->s), "%lld", v);
	} else {
		snprintf(f->why, sizeof(f->why), "%s", why ? why : "not reported");
	}
}

static void add_num(struct fields *fs, const char *sec, const char *key, const char *label, double v,
		    const char *shown, const char *why)
{
	struct field *f = add(fs, sec, key, label, F_NUM);
	if (isfinite(v)) {
		f->known = 1;
		f->d = v;
		snprintf(f->s, sizeof(f->s), "%s", shown ? shown : "");
	} else {
		snprintf(f->why, sizeof(f->why), "%s", why ? why : "not reported");
	}
}

static void add_bool(struct fields *fs, const char *sec, const char *key, const char *label, int v,
		     const char *why)
{
	struct field *f = add(fs, sec, key, label, F_BOOL);
	if (v >= 0) {
		f->known = 1;
		f->i = v;
		snprintf(f->s, sizeof(f->s), "%s", v ? "yes" : "no");
	} else {
		snprintf(f->why, sizeof(f->why), "%s", why ? why : "not reported");
	}
}

/* ---- collecting ----------------------------------------------------------------------- */

static const char *bytes(char *buf, size_t n, long long v)
{
	return v < 0 ? NULL : gd_fmt_bytes(buf, n, (double)v);
}

static const char *compute_mode_name(int m)
{
	switch (m) {
	case 0: return "default (shared by processes)";
	case 1: return "exclusive thread";
	case 2: return "prohibited";
	case 3: return "exclusive process";
	default: return "unknown";
	}
}

/* The guide's §3 point: a precision without tensor-core support runs on CUDA cores
 * (or is not supported at all), which is much slower. */
static void fallback_text(const struct gd_arch *a, enum gd_prec p, char *buf, size_t n)
{
	int tc = a && (a->tensor_precs & (1u << p));
	if (tc) {
		snprintf(buf, n, "tensor cores");
		return;
	}
	switch (p) {
	case GD_P_FP8:
		snprintf(buf, n, "no FP8 tensor cores (needs sm_89+): FP8 is converted and run in higher precision");
		break;
	case GD_P_BF16:
		snprintf(buf, n, a && a->major >= 8 ? "CUDA cores only"
						    : "no BF16 tensor cores (needs sm_80+): runs on CUDA cores, much slower");
		break;
	case GD_P_TF32:
		snprintf(buf, n, "no TF32 tensor cores (needs sm_80+): FP32 matmuls run on CUDA cores");
		break;
	default:
		snprintf(buf, n, "CUDA cores only");
	}
}

/* Turns one device's facts (gd_facts_read, and NVML's when nvml_index >= 0) and a live NVML
 * sample into the field list. */
static void collect(const struct gd_facts *f, struct fields *fs, const char *nvml_why, int *out_sms, double *out_clock,
		    const struct gd_arch **out_arch)
{
	char buf[200], b2[64];
	int dev = f->index, major = f->cc_major, minor = f->cc_minor;
	const struct gd_arch *a = f->arch;
	const char *no_table = "gpudiag has no table for this architecture";
	int sms = f->sms, warp = f->warp_size, tpsm = f->max_threads_per_sm;
	int clk_khz = f->sm_clock_khz, mclk_khz = f->mem_clock_khz, bus = f->mem_bus_width_bits;
	unsigned long long mem = f->mem_total;
	struct gd_nvml_sample smp;
	int have_nvml = f->nvml_index >= 0;
	double max_clock_mhz;

	if (have_nvml)
		gd_nvml_sample(f->nvml_index, &smp);

	/* identity */
	add_int(fs, "identity", "index", "CUDA device", dev, NULL, NULL);
	add_str(fs, "identity", "name", "name", f->name, "driver did not answer");
	add_str(fs, "identity", "uuid", "UUID", f->uuid, "driver did not answer");
	add_str(fs, "identity", "pci_bus_id", "PCI bus id", f->pci_bus_id, "driver did not answer");
	snprintf(buf, sizeof(buf), "%d.%d", major, minor);
	add_str(fs, "identity", "compute_capability", "compute capability", major >= 0 ? buf : NULL, NULL);
	add_str(fs, "identity", "arch", "architecture", a ? a->sm : NULL, no_table);
	add_str(fs, "identity", "family", "family", a ? a->family : NULL, no_table);
	add_str(fs, "identity", "family_examples", "same family", a ? a->examples : NULL, no_table);
	add_str(fs, "identity", "vendor_terms", "guide §1 (NVIDIA)",
		"CUDA Core / Tensor Core; Warp = 32 threads; SM (Streaming Multiprocessor); CUDA", NULL);

	/* execution (§2, §3) */
	add_int(fs, "execution", "sm_count", "SMs", sms, NULL, NULL);
	add_int(fs, "execution", "warp_size", "warp size", warp, NULL, NULL);
	add_int(fs, "execution", "max_threads_per_sm", "max threads per SM", tpsm, NULL, NULL);
	add_int(fs, "execution", "max_warps_per_sm", "max warps per SM", tpsm > 0 && warp > 0 ? tpsm / warp : -1, NULL,
		NULL);
	add_int(fs, "execution", "max_blocks_per_sm", "max blocks per SM", f->max_blocks_per_sm, NULL, NULL);
	add_int(fs, "execution", "max_threads_per_block", "max threads per block", f->max_threads_per_block, NULL,
		NULL);
	snprintf(buf, sizeof(buf), "%d × %d × %d", f->max_block_dim[0], f->max_block_dim[1], f->max_block_dim[2]);
	add_str(fs, "execution", "max_block_dims", "max block dims", buf, NULL);
	snprintf(buf, sizeof(buf), "%d × %d × %d", f->max_grid_dim[0], f->max_grid_dim[1], f->max_grid_dim[2]);
	add_str(fs, "execution", "max_grid_dims", "max grid dims", buf, NULL);
	add_int(fs, "execution", "registers_per_sm", "registers per SM", f->regs_per_sm, NULL, NULL);
	add_int(fs, "execution", "registers_per_block", "registers per block", f->regs_per_block, NULL, NULL);
	add_int(fs, "execution", "max_registers_per_thread", "max registers per thread", a ? a->max_regs_per_thread : -1,
		NULL, no_table);
	add_bool(fs, "execution", "concurrent_kernels", "concurrent kernels",
		 f->concurrent_kernels, NULL);
	add_int(fs, "execution", "copy_engines", "copy engines", f->async_engines, NULL, NULL);

	/* memory (§4) */
	{
		long long v;
		v = f->smem_per_sm;
		add_int(fs, "memory", "smem_per_sm_bytes", "shared memory per SM", v, bytes(buf, sizeof(buf), v), NULL);
		v = f->smem_per_block;
		add_int(fs, "memory", "smem_per_block_bytes", "shared memory per block", v, bytes(buf, sizeof(buf), v), NULL);
		v = f->smem_per_block_optin;
		if (v >= 0)
			snprintf(b2, sizeof(b2), "%s (cudaFuncSetAttribute)", gd_fmt_bytes(buf, sizeof(buf), (double)v));
		add_int(fs, "memory", "smem_per_block_optin_bytes", "… opt-in maximum", v, v >= 0 ? b2 : NULL, NULL);
		v = f->smem_reserved_per_block;
		add_int(fs, "memory", "smem_reserved_per_block_bytes", "… reserved per block", v, bytes(buf, sizeof(buf), v),
			NULL);
		if (a) {
			size_t used = 0;
			used += (size_t)snprintf(buf + used, sizeof(buf) - used, "%d KB SRAM per SM; shared memory can be",
						 a->l1_smem_total_kb);
			for (int i = 0; i < a->ncarveouts && used < sizeof(buf); i++)
				used += (size_t)snprintf(buf + used, sizeof(buf) - used, "%s%d", i ? "/" : " ",
							 a->carveouts_kb[i]);
			if (used < sizeof(buf))
				snprintf(buf + used, sizeof(buf) - used, " KB, the rest is L1");
		}
		add_str(fs, "memory", "l1_shared_carveout", "L1 / shared carve-out", a ? buf : NULL, no_table);
		add_int(fs, "memory", "l1_smem_total_kb", "L1 + shared SRAM per SM (KB)", a ? a->l1_smem_total_kb : -1, NULL,
			no_table);
		v = f->l2_bytes;
		add_int(fs, "memory", "l2_bytes", "L2 cache", v, bytes(buf, sizeof(buf), v), NULL);
		v = f->l2_persisting_max_bytes;
		add_int(fs, "memory", "l2_persisting_max_bytes", "… persisting maximum", v, bytes(buf, sizeof(buf), v), NULL);
		add_int(fs, "memory", "memory_bytes", "device memory", mem ? (long long)mem : -1,
			mem ? gd_fmt_bytes(buf, sizeof(buf), (double)mem) : NULL, NULL);
		if (bus <= 0 && have_nvml && f->nvml.mem_bus_width > 0)
			bus = f->nvml.mem_bus_width;
		snprintf(b2, sizeof(b2), "%d bits", bus);
		add_int(fs, "memory", "bus_width_bits", "memory bus width", bus, b2, NULL);
		snprintf(b2, sizeof(b2), "%d MHz", mclk_khz / 1000);
		add_int(fs, "memory", "memory_clock_max_mhz", "memory clock (max)", mclk_khz > 0 ? mclk_khz / 1000 : -1, b2,
			NULL);
		if (mclk_khz > 0 && bus > 0) {
			/* double data rate: two transfers per clock on each of `bus` bits */
			double bw = 2.0 * mclk_khz * 1e3 * bus / 8.0;
			snprintf(b2, sizeof(b2), "%s (2 × clock × bus width)", gd_fmt_si(buf, sizeof(buf), bw, "B/s"));
			add_num(fs, "memory", "theoretical_bandwidth_bytes_per_s", "theoretical bandwidth", bw, b2, NULL);
		} else {
			add_num(fs, "memory", "theoretical_bandwidth_bytes_per_s", "theoretical bandwidth", NAN, NULL,
				"memory clock or bus width unknown");
		}
		add_bool(fs, "memory", "ecc", "ECC", f->ecc_enabled, NULL);
	}

	/* clocks, power, live state (§14) */
	max_clock_mhz = clk_khz > 0 ? clk_khz / 1000.0 : NAN;
	if (have_nvml && f->nvml.max_sm_mhz > 0)
		max_clock_mhz = f->nvml.max_sm_mhz;
	snprintf(b2, sizeof(b2), "%.0f MHz", max_clock_mhz);
	add_int(fs, "live", "sm_clock_max_mhz", "SM clock (max)", isfinite(max_clock_mhz) ? (long long)max_clock_mhz : -1,
		b2, NULL);
	{
		const char *w = have_nvml ? "NVML did not answer" : nvml_why;
		snprintf(b2, sizeof(b2), "%d MHz", have_nvml ? smp.sm_mhz : -1);
		add_int(fs, "live", "sm_clock_mhz", "SM clock (now)", have_nvml ? smp.sm_mhz : -1, b2, w);
		snprintf(b2, sizeof(b2), "%d MHz", have_nvml ? smp.mem_mhz : -1);
		add_int(fs, "live", "memory_clock_mhz", "memory clock (now)", have_nvml ? smp.mem_mhz : -1, b2, w);
		snprintf(b2, sizeof(b2), "%d %%", have_nvml ? smp.util_gpu : -1);
		add_int(fs, "live", "utilization_gpu_pct", "GPU utilisation", have_nvml ? smp.util_gpu : -1, b2, w);
		snprintf(b2, sizeof(b2), "%d %%", have_nvml ? smp.util_mem : -1);
		add_int(fs, "live", "utilization_memory_pct", "memory-controller utilisation", have_nvml ? smp.util_mem : -1,
			b2, w);
		if (have_nvml && smp.mem_used != GD_NVML_UNKNOWN64) {
			char u[32], t[32];
			snprintf(buf, sizeof(buf), "%s of %s", gd_fmt_bytes(u, sizeof(u), (double)smp.mem_used),
				 gd_fmt_bytes(t, sizeof(t), (double)smp.mem_total));
			add_int(fs, "live", "memory_used_bytes", "memory used", (long long)smp.mem_used, buf, NULL);
		} else {
			add_int(fs, "live", "memory_used_bytes", "memory used", -1, NULL, w);
		}
		snprintf(b2, sizeof(b2), "%.1f W", (have_nvml ? smp.power_mw : -1) / 1000.0);
		add_num(fs, "live", "power_w", "power", have_nvml && smp.power_mw >= 0 ? smp.power_mw / 1000.0 : NAN, b2, w);
		snprintf(b2, sizeof(b2), "%.0f W", (have_nvml ? smp.power_limit_mw : -1) / 1000.0);
		add_num(fs, "live", "power_limit_w", "power limit",
			have_nvml && smp.power_limit_mw >= 0 ? smp.power_limit_mw / 1000.0 : NAN, b2, w);
		snprintf(b2, sizeof(b2), "%d °C", have_nvml ? smp.temp_c : -1);
		add_int(fs, "live", "temperature_c", "temperature", have_nvml ? smp.temp_c : -1, b2, w);
		if (have_nvml && smp.clock_reasons != GD_NVML_UNKNOWN64) {
			char words[160];
			gd_clock_reasons_str(smp.clock_reasons, words, sizeof(words));
			snprintf(buf, sizeof(buf), "%s%s", words,
				 gd_clock_reasons_throttling(smp.clock_reasons) ? " — clocks are being held down" : "");
			add_str(fs, "live", "clock_event_reasons", "clock-event reasons", buf, NULL);
			add_int(fs, "live", "clock_event_mask", "clock-event mask", (long long)smp.clock_reasons, NULL, NULL);
		} else {
			add_str(fs, "live", "clock_event_reasons", "clock-event reasons", NULL, w);
			add_int(fs, "live", "clock_event_mask", "clock-event mask", -1, NULL, w);
		}
	}

	/* sharing (§13) and links (§12) */
	{
		const char *w = have_nvml ? "NVML did not answer" : nvml_why;
		int mps = f->mps_enabled;
		add_str(fs, "sharing", "compute_mode", "compute mode",
			have_nvml && f->nvml.compute_mode >= 0 ? compute_mode_name(f->nvml.compute_mode) : NULL, w);
		if (have_nvml && f->nvml.mig_current >= 0)
			snprintf(buf, sizeof(buf), "%s%s", f->nvml.mig_current ? "enabled" : "disabled",
				 f->nvml.mig_pending != f->nvml.mig_current ? (f->nvml.mig_pending ? " (enable pending reboot/reset)"
										    : " (disable pending)")
								  : "");
		add_str(fs, "sharing", "mig_mode", "MIG mode",
			have_nvml && f->nvml.mig_current >= 0 ? buf : NULL, have_nvml ? "not supported on this GPU" : w);
		add_int(fs, "sharing", "mig_instances", "MIG devices", have_nvml ? f->nvml.mig_instances : -1, NULL,
			have_nvml ? "not supported on this GPU" : w);
		if (mps < 0 && have_nvml && f->nvml.mps_procs >= 0)
			mps = f->nvml.mps_procs > 0;
		add_bool(fs, "sharing", "mps", "MPS in use", mps, "neither the driver nor NVML says");
		add_int(fs, "sharing", "compute_processes", "processes using the GPU", have_nvml ? f->nvml.compute_procs : -1, NULL,
			w);
		if (have_nvml && f->nvml.pcie_gen > 0)
			snprintf(buf, sizeof(buf), "gen %d ×%d (max gen %d ×%d)", f->nvml.pcie_gen, f->nvml.pcie_width, f->nvml.pcie_gen_max,
				 f->nvml.pcie_width_max);
		add_str(fs, "links", "pcie", "PCIe link", have_nvml && f->nvml.pcie_gen > 0 ? buf : NULL,
			have_nvml ? "NVML does not report it for this device" : w);
		add_int(fs, "links", "pcie_gen", "PCIe generation", have_nvml ? f->nvml.pcie_gen : -1, NULL, w);
		add_int(fs, "links", "pcie_width", "PCIe width", have_nvml ? f->nvml.pcie_width : -1, NULL, w);
		add_int(fs, "links", "nvlink_active", "NVLink links active", have_nvml ? f->nvml.nvlink_active : -1, NULL,
			have_nvml ? "NVML reports no NVLink on this device" : w);
	}

	/* tensor cores (§3) */
	add_str(fs, "tensor_cores", "generation", "generation", a ? (a->tensor_gen ? a->tensor_gen : "none") : NULL,
		no_table);
	if (a) {
		size_t used = 0;
		buf[0] = 0;
		for (int p = 0; p < GD_P_COUNT; p++)
			if (a->tensor_precs & (1u << p))
				used += (size_t)snprintf(buf + used, used < sizeof(buf) ? sizeof(buf) - used : 0, "%s%s",
							 used ? ", " : "", gd_prec_name((enum gd_prec)p));
	}
	add_str(fs, "tensor_cores", "precisions", "precisions", a ? buf : NULL, no_table);
	add_bool(fs, "tensor_cores", "wgmma", "peak needs wgmma (sm_90a)", a ? a->has_wgmma : -1, no_table);
	fallback_text(a, GD_P_TF32, buf, sizeof(buf));
	add_str(fs, "tensor_cores", "tf32", "TF32", a ? buf : NULL, no_table);
	fallback_text(a, GD_P_BF16, buf, sizeof(buf));
	add_str(fs, "tensor_cores", "bf16", "BF16", a ? buf : NULL, no_table);
	fallback_text(a, GD_P_FP8, buf, sizeof(buf));
	add_str(fs, "tensor_cores", "fp8", "FP8", a ? buf : NULL, no_table);

	/* system */
	{
		int dv = gd_cu_driver_version();
		add_str(fs, "system", "driver_version", "driver", have_nvml ? f->nvml.driver : NULL,
			have_nvml ? "NVML did not answer" : nvml_why);
		snprintf(buf, sizeof(buf), "%d.%d", dv / 1000, (dv % 1000) / 10);
		add_str(fs, "system", "cuda_driver_version", "CUDA (driver)", dv > 0 ? buf : NULL, NULL);
#ifdef CUDA_VERSION
		snprintf(buf, sizeof(buf), "%d.%d", CUDA_VERSION / 1000, (CUDA_VERSION % 1000) / 10);
		add_str(fs, "system", "cuda_build_version", "CUDA (gpudiag built with)", buf, NULL);
#else /* a build without the toolkit (src/nocuda/include/cuda.h defines no CUDA_VERSION) */
		add_str(fs, "system", "cuda_build_version", "CUDA (gpudiag built with)", NULL,
			"built without the CUDA toolkit");
#endif
	}
	*out_sms = sms;
	*out_clock = max_clock_mhz;
	*out_arch = a;
}

/* ---- rendering ------------------------------------------------------------------------ */

static const char *section_title(const char *s)
{
	if (!strcmp(s, "identity")) return "identity (§1)";
	if (!strcmp(s, "execution")) return "execution: grid, blocks, warps, SMs (§2, §3)";
	if (!strcmp(s, "memory")) return "memory hierarchy (§4)";
	if (!strcmp(s, "live")) return "live state (NVML)";
	if (!strcmp(s, "sharing")) return "sharing: MIG / MPS (§13)";
	if (!strcmp(s, "links")) return "links (§12)";
	if (!strcmp(s, "tensor_cores")) return "tensor cores (§3)";
	if (!strcmp(s, "system")) return "driver";
	return s;
}

static void print_terminal(const struct fields *fs, const struct gd_arch *a, int sms, double clock_mhz)
{
	const char *sec = NULL;
	for (int i = 0; i < fs->n; i++) {
		const struct field *f = &fs->f[i];
		if (!strcmp(f->key, "clock_event_mask") || !strcmp(f->key, "pcie_gen") || !strcmp(f->key, "pcie_width") ||
		    !strcmp(f->key, "l1_smem_total_kb"))
			continue; /* shown in words elsewhere; JSON keeps the raw values */
		if (!sec || strcmp(sec, f->section)) {
			sec = f->section;
			printf("\n  %s%s%s\n", gd_bold(), section_title(sec), gd_reset());
		}
		printf("    %s%*s ", f->label, (int)(30 - gd_display_width(f->label)), "");
		if (f->known)
			printf("%s\n", f->s);
		else
			printf("%sunknown%s (%s)\n", gd_yellow(), gd_reset(), f->why);
	}
	printf("\n  %stheoretical peaks%s (dense, per-clock rate × SMs × max SM clock %.0f MHz)\n", gd_bold(), gd_reset(),
	       clock_mhz);
	if (!a) {
		printf("    unknown: gpudiag has no table for this architecture\n");
		return;
	}
	{
		struct gd_table t;
		gd_table_init(&t, 3);
		gd_table_align_right(&t, 1);
		gd_table_align_right(&t, 2);
		gd_table_rowv(&t, "precision", "CUDA cores", "tensor cores");
		for (int p = 0; p < GD_P_COUNT; p++) {
			char c1[32], c2[32];
			double cc = gd_arch_peak(a, (enum gd_prec)p, 0, sms, clock_mhz);
			double tc = gd_arch_peak(a, (enum gd_prec)p, 1, sms, clock_mhz);
			int ops = p == GD_P_INT8 || p == GD_P_INT4;
			if (!isfinite(cc) && !isfinite(tc))
				continue;
			if (isfinite(cc))
				gd_fmt_si(c1, sizeof(c1), cc, ops ? "OP/s" : "FLOP/s");
			else
				snprintf(c1, sizeof(c1), "—");
			if (isfinite(tc))
				gd_fmt_si(c2, sizeof(c2), tc, ops ? "OP/s" : "FLOP/s");
			else
				snprintf(c2, sizeof(c2), (a->tensor_precs & (1u << p)) ? "unknown" : "—");
			gd_table_rowv(&t, gd_prec_name((enum gd_prec)p), c1, c2);
		}
		gd_table_print(&t, stdout, 4);
		gd_table_free(&t);
	}
	printf("    %ssource: %s%s\n", gd_dim(), a->peak_source, gd_reset());
	printf("    %sDatasheets may quote tensor peaks at a lower sustained clock; `gpudiag roofline` measures what "
	       "this card reaches.%s\n",
	       gd_dim(), gd_reset());
}

static void print_json_device(struct gd_json *j, const struct fields *fs, const struct gd_arch *a, int sms,
			      double clock_mhz)
{
	const char *sec = NULL;
	gd_json_obj(j, NULL);
	for (int i = 0; i < fs->n; i++) {
		const struct field *f = &fs->f[i];
		if (!sec || strcmp(sec, f->section)) {
			if (sec)
				gd_json_obj_end(j);
			sec = f->section;
			gd_json_obj(j, sec);
		}
		if (!f->known)
			gd_json_null(j, f->key);
		else if (f->kind == F_STR)
			gd_json_str(j, f->key, f->s);
		else if (f->kind == F_INT)
			gd_json_int(j, f->key, f->i);
		else if (f->kind == F_BOOL)
			gd_json_bool(j, f->key, (int)f->i);
		else
			gd_json_num(j, f->key, f->d);
	}
	if (sec)
		gd_json_obj_end(j);
	gd_json_obj(j, "unknown_reasons");
	for (int i = 0; i < fs->n; i++)
		if (!fs->f[i].known) {
			char k[96];
			snprintf(k, sizeof(k), "%s.%s", fs->f[i].section, fs->f[i].key);
			gd_json_str(j, k, fs->f[i].why);
		}
	gd_json_obj_end(j);
	gd_json_obj(j, "peaks_flops");
	gd_json_num(j, "clock_mhz", clock_mhz);
	for (int p = 0; p < GD_P_COUNT; p++) {
		char key[16];
		size_t k;
		snprintf(key, sizeof(key), "%s", gd_prec_name((enum gd_prec)p));
		for (k = 0; key[k]; k++)
			key[k] = (char)(key[k] >= 'A' && key[k] <= 'Z' ? key[k] - 'A' + 'a' : key[k]);
		gd_json_obj(j, key);
		gd_json_num(j, "cuda_cores", gd_arch_peak(a, (enum gd_prec)p, 0, sms, clock_mhz));
		gd_json_num(j, "tensor_cores", gd_arch_peak(a, (enum gd_prec)p, 1, sms, clock_mhz));
		gd_json_bool(j, "tensor_core_support", a && (a->tensor_precs & (1u << p)));
		gd_json_obj_end(j);
	}
	gd_json_str(j, "source", a ? a->peak_source : NULL);
	gd_json_obj_end(j);
	gd_json_obj_end(j);
}

static const char *const info_tables[] = {"fields", "peaks", NULL};
static const char *const field_cols[] = {"device", "section", "key", "label", "value", "unknown_reason"};
static const char *const peak_cols[] = {"device", "precision", "cuda_cores_flops", "tensor_cores_flops",
					"tensor_core_support", "clock_mhz"};

static void tw_fields(struct gd_tw *w, int d, const struct fields *fs)
{
	for (int i = 0; i < fs->n; i++) {
		const struct field *f = &fs->f[i];
		gd_tw_row(w);
		gd_tw_int(w, d);
		gd_tw_str(w, f->section);
		gd_tw_str(w, f->key);
		gd_tw_str(w, f->label);
		if (!f->known)
			gd_tw_null(w);
		else if (f->kind == F_STR)
			gd_tw_str(w, f->s);
		else if (f->kind == F_INT)
			gd_tw_int(w, f->i);
		else if (f->kind == F_BOOL)
			gd_tw_bool(w, (int)f->i);
		else
			gd_tw_num(w, f->d);
		gd_tw_str(w, f->known ? NULL : f->why);
		gd_tw_row_end(w);
	}
}

static void tw_peaks(struct gd_tw *w, int d, const struct gd_arch *a, int sms, double clock_mhz)
{
	for (int p = 0; p < GD_P_COUNT; p++) {
		gd_tw_row(w);
		gd_tw_int(w, d);
		gd_tw_str(w, gd_prec_name((enum gd_prec)p));
		gd_tw_num(w, gd_arch_peak(a, (enum gd_prec)p, 0, sms, clock_mhz));
		gd_tw_num(w, gd_arch_peak(a, (enum gd_prec)p, 1, sms, clock_mhz));
		gd_tw_bool(w, a && (a->tensor_precs & (1u << p)));
		gd_tw_num(w, clock_mhz);
		gd_tw_row_end(w);
	}
}

int cmd_info(struct gd_ctx *ctx, int argc, char **argv)
{
	char nvml_why[512] = "";
	int rc, first, last, nv, fmt;
	static struct fields fs; /* large: keep off the stack */
	struct gd_json j;
	const char *format = NULL, *table = NULL;
	const struct gd_opt opts[] = {
		{"format", GD_OPT_STR, &format, "F", NULL},
		{"table", GD_OPT_STR, &table, "NAME", NULL},
		{NULL, 0, NULL, NULL, NULL},
	};

	if ((rc = gd_parse_opts("info", argc, argv, opts, NULL, 0, NULL, 0)) != GD_OK)
		return rc;
	if ((rc = gd_format_pick("info", format, ctx->json, info_tables, table, &fmt)) != GD_OK)
		return rc;
	if ((rc = gd_need_gpu(ctx, "info", NULL)) != GD_OK)
		return rc;
	nv = gd_nvml_open(nvml_why, sizeof(nvml_why)) == GD_OK;
	first = ctx->device >= 0 ? ctx->device : 0;
	last = ctx->device >= 0 ? ctx->device : gd_cu_count() - 1;

	if (fmt == GD_FMT_CSV || fmt == GD_FMT_TSV) {
		/* table by table, so each device is read once per table */
		struct gd_tw w;
		gd_tw_init(&w, stdout, fmt, NULL, table, 1);
		for (int t = 0; t < 2; t++) {
			if (!gd_tw_begin(&w, info_tables[t], NULL, t ? peak_cols : field_cols, 6))
				continue;
			for (int d = first; d <= last; d++) {
				struct gd_facts f;
				char nwhy[128];
				int sms;
				double clk;
				const struct gd_arch *a;
				memset(&fs, 0, sizeof(fs));
				gd_facts_read(d, &f);
				if (nv)
					gd_facts_read_nvml(&f, nwhy, sizeof(nwhy));
				collect(&f, &fs, nv ? "NVML does not list this device" : nvml_why, &sms, &clk, &a);
				if (t)
					tw_peaks(&w, d, a, sms, clk);
				else
					tw_fields(&w, d, &fs);
			}
			gd_tw_end(&w);
		}
		return GD_OK;
	}

	if (fmt == GD_FMT_JSON) {
		gd_json_init(&j, stdout, 1);
		gd_json_obj(&j, NULL);
		gd_json_str(&j, "gpudiag_version", GPUDIAG_VERSION);
		gd_json_str(&j, "nvml", nv ? "ok" : nvml_why);
		gd_json_arr(&j, "devices");
	}
	for (int d = first; d <= last; d++) {
		struct gd_facts f;
		char nwhy[128];
		int sms;
		double clk;
		const struct gd_arch *a;
		memset(&fs, 0, sizeof(fs));
		gd_facts_read(d, &f);
		if (nv)
			gd_facts_read_nvml(&f, nwhy, sizeof(nwhy));
		collect(&f, &fs, nv ? "NVML does not list this device" : nvml_why, &sms, &clk, &a);
		if (fmt == GD_FMT_JSON) {
			print_json_device(&j, &fs, a, sms, clk);
		} else {
			printf("%sGPU %d%s: %s\n", gd_bold(), d, gd_reset(), fs.f[1].known ? fs.f[1].s : "unknown");
			print_terminal(&fs, a, sms, clk);
			if (d < last)
				putchar('\n');
		}
	}
	if (fmt == GD_FMT_JSON) {
		gd_json_arr_end(&j);
		gd_json_obj_end(&j);
		gd_json_end(&j);
	} else if (!nv) {
		printf("\n  %snote%s: live fields are unknown because %s\n", gd_yellow(), gd_reset(), nvml_why);
	}
	return GD_OK;
}
