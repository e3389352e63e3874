/* gpudiag monitor — a live view of each GPU, like `nvidia-smi dmon`, with the clock-event
 * (throttle) reasons decoded into words (guide §14). One line per GPU per interval on a
 * terminal, or one JSON object per line with --json (JSON Lines), so it can be piped into
 * anything. Read-only: it samples NVML and changes nothing. */
#include "commands.h"
#include "core/cli.h"
#include "core/json.h"
#include "core/out.h"
#include "core/status.h"
#include "core/table.h"
#include "gpu/cudrv.h"
#include "gpu/nvml.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const char cmd_monitor_usage[] =
	"usage: gpudiag monitor [--interval S] [--count N] [--device N] [--format terminal|json|csv|tsv]\n"
	"\n"
	"Samples every GPU (or --device N) through NVML and prints one line per\n"
	"GPU per interval: utilisation, memory used, power against its limit, temperature, SM\n"
	"and memory clocks, PCIe traffic, and the clock-event reasons in words (idle, software\n"
	"power cap, thermal slowdown, …). Throttling reasons are highlighted. Stops after\n"
	"--count samples or on Ctrl-C.\n"
	"\n"
	"options:\n"
	"  --interval S   seconds between samples (default 1, minimum 0.05)\n"
	"  --count N      stop after N samples per GPU (default: until interrupted)\n"
	"  --device N     only GPU N, numbered as CUDA numbers them (as every gpudiag command;\n"
	"                 NVML's own order may differ: the GPUs are matched by UUID)\n"
	"  --format F     terminal (default), json (one JSON object per line, keys in\n"
	"                 docs/json.md), csv or tsv (a header, then one row per GPU per sample)\n"
	"  --json         the same as --format json\n";

/* One sample's fields: the JSON Lines keys and the CSV/TSV columns. */
static const char *const cols[] = {"t", "gpu", "nvml_index", "util_gpu_pct", "util_mem_pct", "mem_used_bytes",
				   "mem_total_bytes", "power_w", "power_limit_w", "temperature_c", "sm_clock_mhz",
				   "mem_clock_mhz", "pcie_rx_bytes_per_s", "pcie_tx_bytes_per_s", "clock_event_mask",
				   "clock_event_reasons", "throttling"};
#define NCOLS ((int)(sizeof(cols) / sizeof(cols[0])))

/* A GPU to sample: its CUDA ordinal (-1 when the CUDA driver is not there) and NVML index. */
struct mon_gpu {
	int cuda, nvml;
};

/* --count's limit: 10^9 samples is 1.6 years at the shortest interval, and k + 1 stays an int */
#define MONITOR_MAX_COUNT 1000000000

static volatile sig_atomic_t stop;

static void on_signal(int sig) { stop = sig; }

static void print_line(int idx, const struct gd_nvml_sample *s, int header)
{
	char reasons[160], mem[32], rx[24], tx[24], pw[24];
	if (header)
		printf("%s%-4s %5s %5s %10s %13s %5s %6s %6s %9s %9s  %s%s\n", gd_bold(), "gpu", "sm%", "mem%",
		       "mem used", "power", "temp", "smMHz", "memMHz", "pcie rx", "pcie tx", "clock-event reasons",
		       gd_reset());
	gd_clock_reasons_str(s->clock_reasons, reasons, sizeof(reasons));
	if (s->mem_used != GD_NVML_UNKNOWN64)
		gd_fmt_bytes(mem, sizeof(mem), (double)s->mem_used);
	else
		snprintf(mem, sizeof(mem), "-");
	/* unknown fields print as "-", never as a number */
	if (s->pcie_rx_kbps >= 0)
		snprintf(rx, sizeof(rx), "%.1f GB/s", s->pcie_rx_kbps * 1e3 / 1e9);
	else
		snprintf(rx, sizeof(rx), "-");
	if (s->pcie_tx_kbps >= 0)
		snprintf(tx, sizeof(tx), "%.1f GB/s", s->pcie_tx_kbps * 1e3 / 1e9);
	else
		snprintf(tx, sizeof(tx), "-");
	if (s->power_mw >= 0 && s->power_limit_mw >= 0)
		snprintf(pw, sizeof(pw), "%.0f/%.0f W", s->power_mw / 1000.0, s->power_limit_mw / 1000.0);
	else if (s->power_mw >= 0)
		snprintf(pw, sizeof(pw), "%.0f W", s->power_mw / 1000.0);
	else
		snprintf(pw, sizeof(pw), "-");
	printf("%-4d %5d %5d %10s %13s %3d C %6d %6d %9s %9s  %s%s%s\n", idx, s->util_gpu, s->util_mem, mem, pw,
	       s->temp_c, s->sm_mhz, s->mem_mhz, rx, tx,
	       gd_clock_reasons_throttling(s->clock_reasons) ? gd_red() : "", reasons,
	       gd_clock_reasons_throttling(s->clock_reasons) ? gd_reset() : "");
}

static void json_int_or_null(struct gd_json *j, const char *k, long long v, int known)
{
	if (known)
		gd_json_int(j, k, v);
	else
		gd_json_null(j, k);
}

static void print_json(const struct mon_gpu *g, const struct gd_nvml_sample *s)
{
	struct gd_json j;
	char reasons[160];
	gd_json_init(&j, stdout, 0);
	gd_json_obj(&j, NULL);
	gd_json_num(&j, "t", s->t_ns / 1e9);
	gd_json_int(&j, "gpu", g->cuda >= 0 ? g->cuda : g->nvml);
	gd_json_int(&j, "nvml_index", g->nvml);
	json_int_or_null(&j, "util_gpu_pct", s->util_gpu, s->util_gpu >= 0);
	json_int_or_null(&j, "util_mem_pct", s->util_mem, s->util_mem >= 0);
	json_int_or_null(&j, "mem_used_bytes", (long long)s->mem_used, s->mem_used != GD_NVML_UNKNOWN64);
	json_int_or_null(&j, "mem_total_bytes", (long long)s->mem_total, s->mem_total != GD_NVML_UNKNOWN64);
	gd_json_num(&j, "power_w", s->power_mw >= 0 ? s->power_mw / 1000.0 : NAN);
	gd_json_num(&j, "power_limit_w", s->power_limit_mw >= 0 ? s->power_limit_mw / 1000.0 : NAN);
	json_int_or_null(&j, "temperature_c", s->temp_c, s->temp_c != GD_NVML_UNKNOWN);
	json_int_or_null(&j, "sm_clock_mhz", s->sm_mhz, s->sm_mhz >= 0);
	json_int_or_null(&j, "mem_clock_mhz", s->mem_mhz, s->mem_mhz >= 0);
	gd_json_num(&j, "pcie_rx_bytes_per_s", s->pcie_rx_kbps >= 0 ? s->pcie_rx_kbps * 1e3 : NAN);
	gd_json_num(&j, "pcie_tx_bytes_per_s", s->pcie_tx_kbps >= 0 ? s->pcie_tx_kbps * 1e3 : NAN);
	json_int_or_null(&j, "clock_event_mask", (long long)s->clock_reasons, s->clock_reasons != GD_NVML_UNKNOWN64);
	gd_json_str(&j, "clock_event_reasons",
		    s->clock_reasons != GD_NVML_UNKNOWN64 ? gd_clock_reasons_str(s->clock_reasons, reasons, sizeof(reasons))
							  : NULL);
	gd_json_bool(&j, "throttling", gd_clock_reasons_throttling(s->clock_reasons));
	gd_json_obj_end(&j);
	gd_json_end(&j);
}

static void tw_int_or_null(struct gd_tw *w, long long v, int known)
{
	if (known)
		gd_tw_int(w, v);
	else
		gd_tw_null(w);
}

/* One CSV/TSV row: the JSON line's fields, in its order. */
static void print_row(struct gd_tw *w, const struct mon_gpu *g, const struct gd_nvml_sample *s)
{
	char reasons[160];
	gd_tw_row(w);
	gd_tw_num(w, s->t_ns / 1e9);
	gd_tw_int(w, g->cuda >= 0 ? g->cuda : g->nvml);
	gd_tw_int(w, g->nvml);
	tw_int_or_null(w, s->util_gpu, s->util_gpu >= 0);
	tw_int_or_null(w, s->util_mem, s->util_mem >= 0);
	tw_int_or_null(w, (long long)s->mem_used, s->mem_used != GD_NVML_UNKNOWN64);
	tw_int_or_null(w, (long long)s->mem_total, s->mem_total != GD_NVML_UNKNOWN64);
	gd_tw_num(w, s->power_mw >= 0 ? s->power_mw / 1000.0 : NAN);
	gd_tw_num(w, s->power_limit_mw >= 0 ? s->power_limit_mw / 1000.0 : NAN);
	tw_int_or_null(w, s->temp_c, s->temp_c != GD_NVML_UNKNOWN);
	tw_int_or_null(w, s->sm_mhz, s->sm_mhz >= 0);
	tw_int_or_null(w, s->mem_mhz, s->mem_mhz >= 0);
	gd_tw_num(w, s->pcie_rx_kbps >= 0 ? s->pcie_rx_kbps * 1e3 : NAN);
	gd_tw_num(w, s->pcie_tx_kbps >= 0 ? s->pcie_tx_kbps * 1e3 : NAN);
	tw_int_or_null(w, (long long)s->clock_reasons, s->clock_reasons != GD_NVML_UNKNOWN64);
	gd_tw_str(w, s->clock_reasons != GD_NVML_UNKNOWN64 ? gd_clock_reasons_str(s->clock_reasons, reasons, sizeof(reasons))
							 : NULL);
	gd_tw_bool(w, gd_clock_reasons_throttling(s->clock_reasons));
	gd_tw_row_end(w);
}

/* The GPUs to sample, numbered as CUDA numbers them: each CUDA device is found in NVML by its
 * UUID (as src/gpu/facts.c does), since NVML's order need not be CUDA's (CUDA_DEVICE_ORDER,
 * CUDA_VISIBLE_DEVICES). Without the CUDA driver every NVML GPU is sampled under its NVML
 * index, and --device is refused (it counts CUDA devices). Returns GD_OK or an error (printed). */
static int pick_gpus(const struct gd_ctx *ctx, struct mon_gpu **out, int *nout)
{
	char why[512], uuid[96];
	int nn = gd_nvml_count(), nc, n = 0;
	struct mon_gpu *g;
	*out = NULL;
	*nout = 0;
	if (gd_cu_open(why, sizeof(why)) != GD_OK) {
		if (ctx->device >= 0)
			return gd_error(GD_ENOGPU, "monitor: --device counts CUDA devices, and %s", why);
		gd_warn("monitor: %s; the GPUs are numbered as NVML numbers them", why);
		if (!(g = calloc((size_t)nn + 1, sizeof(*g))))
			return gd_error(GD_EFAIL, "monitor: out of memory");
		for (int i = 0; i < nn; i++)
			g[n++] = (struct mon_gpu){-1, i};
		*out = g;
		*nout = n;
		return GD_OK;
	}
	nc = gd_cu_count();
	if (ctx->device >= nc)
		return gd_error(GD_ENOGPU, "monitor: no CUDA device %d (this machine has %d)", ctx->device, nc);
	if (!(g = calloc((size_t)nc + 1, sizeof(*g))))
		return gd_error(GD_EFAIL, "monitor: out of memory");
	for (int d = ctx->device >= 0 ? ctx->device : 0; d < (ctx->device >= 0 ? ctx->device + 1 : nc); d++) {
		int idx = gd_cu_uuid(d, uuid, sizeof(uuid)) == 0 ? gd_nvml_index_by_uuid(uuid) : -1;
		if (idx < 0) {
			if (ctx->device >= 0) {
				free(g);
				return gd_error(GD_ENOGPU, "monitor: NVML does not list CUDA device %d (UUID %s)", d, uuid);
			}
			gd_warn("monitor: NVML does not list CUDA device %d (UUID %s); not sampled", d, uuid);
			continue;
		}
		g[n++] = (struct mon_gpu){d, idx};
	}
	*out = g;
	*nout = n;
	return GD_OK;
}

int cmd_monitor(struct gd_ctx *ctx, int argc, char **argv)
{
	double interval = 1.0;
	int count = GD_UNSET_INT, rc, ng, fmt;
	const char *format = NULL;
	char why[512];
	struct gd_opt opts[] = {
		{"interval", GD_OPT_DOUBLE, &interval, "S", NULL},
		{"count", GD_OPT_INT, &count, "N", NULL},
		{"format", GD_OPT_STR, &format, "F", NULL},
		{NULL, 0, NULL, NULL, NULL},
	};
	struct sigaction sa;
	struct mon_gpu *g;
	struct gd_tw w;

	if ((rc = gd_parse_opts("monitor", argc, argv, opts, NULL, 0, NULL, 0)) != GD_OK)
		return rc;
	if ((rc = gd_format_pick("monitor", format, ctx->json, NULL, NULL, &fmt)) != GD_OK)
		return rc;
	if ((rc = gd_opt_check_double("monitor", "interval", interval, 0.05, 3600, " seconds")) != GD_OK)
		return rc;
	/* left out: until interrupted; given, at least one sample (0 used to mean "forever") */
	if (count != GD_UNSET_INT &&
	    (rc = gd_opt_check_int("monitor", "count", count, 1, MONITOR_MAX_COUNT, NULL)) != GD_OK)
		return rc;
	if (gd_nvml_open(why, sizeof(why)) != GD_OK)
		return gd_error(GD_ENOGPU, "monitor: %s", why);
	if ((rc = pick_gpus(ctx, &g, &ng)) != GD_OK)
		return rc;
	if (!ng) {
		free(g);
		return gd_error(GD_ENOGPU, "monitor: NVML lists none of the CUDA devices");
	}
	if (fmt == GD_FMT_CSV || fmt == GD_FMT_TSV) {
		gd_tw_init(&w, stdout, fmt, NULL, NULL, 0);
		gd_tw_begin(&w, "samples", NULL, cols, NCOLS);
	}

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	for (int k = 0; !stop && (count == GD_UNSET_INT || k < count); k++) {
		struct timespec ts;
		for (int i = 0; i < ng; i++) {
			struct gd_nvml_sample s;
			gd_nvml_sample(g[i].nvml, &s);
			if (fmt == GD_FMT_JSON)
				print_json(&g[i], &s);
			else if (fmt == GD_FMT_CSV || fmt == GD_FMT_TSV)
				print_row(&w, &g[i], &s);
			else
				print_line(g[i].cuda >= 0 ? g[i].cuda : g[i].nvml, &s, k % 20 == 0 && i == 0);
		}
		fflush(stdout);
		if (count != GD_UNSET_INT && k + 1 >= count)
			break;
		ts.tv_sec = (time_t)interval;
		ts.tv_nsec = (long)((interval - (double)ts.tv_sec) * 1e9);
		nanosleep(&ts, NULL); /* a signal ends the sleep early; the loop then stops */
	}
	free(g);
	return GD_OK; /* Ctrl-C is the normal way to stop */
}
