/* gpudiag monitor — a live view of each GPU, like `nvidia-smi dmon`, with the clock-event
 * (throttle) reasons decoded into words (guide §14). One line per GPU per interval on a
 * terminal, or one JSON object per line with --json (JSON Lines), so it can be piped into
 * anything. Read-only: it samples NVML and changes nothing. */
#include "commands.h"
#include "core/cli.h"
#include "core/json.h"
#include "core/out.h"
#include "core/status.h"
#include "gpu/nvml.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

const char cmd_monitor_usage[] =
	"usage: gpudiag monitor [--interval S] [--count N] [--device N] [--json]\n"
	"\n"
	"Samples every GPU (or --device N, NVML numbering) through NVML and prints one line per\n"
	"GPU per interval: utilisation, memory used, power against its limit, temperature, SM\n"
	"and memory clocks, PCIe traffic, and the clock-event reasons in words (idle, software\n"
	"power cap, thermal slowdown, …). Throttling reasons are highlighted. Stops after\n"
	"--count samples or on Ctrl-C.\n"
	"\n"
	"options:\n"
	"  --interval S   seconds between samples (default 1, minimum 0.05)\n"
	"  --count N      stop after N samples per GPU (default: until interrupted)\n"
	"  --device N     only NVML device N\n"
	"  --json         one JSON object per line (keys in docs/json.md)\n";

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

static void print_json(int idx, const struct gd_nvml_sample *s)
{
	struct gd_json j;
	char reasons[160];
	gd_json_init(&j, stdout, 0);
	gd_json_obj(&j, NULL);
	gd_json_num(&j, "t", s->t_ns / 1e9);
	gd_json_int(&j, "gpu", idx);
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

int cmd_monitor(struct gd_ctx *ctx, int argc, char **argv)
{
	double interval = 1.0;
	int count = GD_UNSET_INT, rc, n, first, last;
	char why[512];
	struct gd_opt opts[] = {
		{"interval", GD_OPT_DOUBLE, &interval, "S", NULL},
		{"count", GD_OPT_INT, &count, "N", NULL},
		{NULL, 0, NULL, NULL, NULL},
	};
	struct sigaction sa;

	if ((rc = gd_parse_opts("monitor", argc, argv, opts, NULL, 0, NULL, 0)) != GD_OK)
		return rc;
	if ((rc = gd_opt_check_double("monitor", "interval", interval, 0.05, 3600, " seconds")) != GD_OK)
		return rc;
	/* left out: until interrupted; given, at least one sample (0 used to mean "forever") */
	if (count != GD_UNSET_INT &&
	    (rc = gd_opt_check_int("monitor", "count", count, 1, MONITOR_MAX_COUNT, NULL)) != GD_OK)
		return rc;
	if (gd_nvml_open(why, sizeof(why)) != GD_OK)
		return gd_error(GD_ENOGPU, "monitor: %s", why);
	n = gd_nvml_count();
	if (ctx->device >= n)
		return gd_error(GD_ENOGPU, "monitor: no NVML device %d (this machine has %d)", ctx->device, n);
	first = ctx->device >= 0 ? ctx->device : 0;
	last = ctx->device >= 0 ? ctx->device : n - 1;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	for (int k = 0; !stop && (count == GD_UNSET_INT || k < count); k++) {
		struct timespec ts;
		for (int i = first; i <= last; i++) {
			struct gd_nvml_sample s;
			gd_nvml_sample(i, &s);
			if (ctx->json)
				print_json(i, &s);
			else
				print_line(i, &s, k % 20 == 0 && i == first);
		}
		fflush(stdout);
		if (count != GD_UNSET_INT && k + 1 >= count)
			break;
		ts.tv_sec = (time_t)interval;
		ts.tv_nsec = (long)((interval - (double)ts.tv_sec) * 1e9);
		nanosleep(&ts, NULL); /* a signal ends the sleep early; the loop then stops */
	}
	return GD_OK; /* Ctrl-C is the normal way to stop */
}
