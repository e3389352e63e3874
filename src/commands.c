/* The one table of subcommands. Order here is the order of `gpudiag help`. */
#include "commands.h"

#include "core/status.h"
#include "gpu/cudrv.h"

#include <stdio.h>
#include <string.h>

const struct gd_cmd gd_commands[] = {
	{"info", cmd_info, 0, "§1 §3 §4 §13",
	 "everything about each GPU: limits, memory, tensor cores, peaks, live state", cmd_info_usage},
	{"occupancy", cmd_occupancy, 0, "§6",
	 "theoretical occupancy, its limiter, and the block-size sweep", cmd_occupancy_usage},
	{"roofline", cmd_roofline, 0, "§10 §3 §4",
	 "the GPU's measured ceilings: bandwidths, FMA/tensor/GEMM peaks, ridge points", cmd_roofline_usage},
	{"lab", cmd_lab, 0, "§2–§11",
	 "the guide's lessons as experiments: memory, coalescing, precision, ...", cmd_lab_usage},
	{"run", cmd_run, GD_RAW_ARGS, "§14 §16",
	 "profile any program (python, CUDA binaries, torchrun...) into one SQLite file", cmd_run_usage},
	{"export", cmd_export, 0, "§14",
	 "export a saved profile as a Perfetto trace (protobuf or JSON)", cmd_export_usage},
	{"report", cmd_report, 0, "§14 §16",
	 "verdicts and summary of a saved profile: terminal, --json, --html", cmd_report_usage},
	{"diff", cmd_diff, 0, "§14",
	 "what got faster or slower between two profiles, by kernel and by kind", cmd_diff_usage},
	{"monitor", cmd_monitor, 0, "§14",
	 "live utilisation, memory, power, clocks and decoded throttle reasons (JSON Lines with --json)",
	 cmd_monitor_usage},
	{"nccl", cmd_nccl, 0, "§12",
	 "collective bandwidth (algbw/busbw) over this machine's GPUs through NCCL, checked", cmd_nccl_usage},
	/* hidden: the embedded demo workload that `gpudiag run` with no command profiles */
	{"__demo", cmd___demo, 0, NULL, NULL, cmd___demo_usage},
	{NULL, NULL, 0, NULL, NULL, NULL},
};

const struct gd_cmd *gd_find_command(const char *name)
{
	for (const struct gd_cmd *c = gd_commands; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

int gd_need_gpu(const struct gd_ctx *ctx, const char *who, const char *hint)
{
	char why[512];
	int dev = ctx->device < 0 ? 0 : ctx->device;
	if (gd_cu_open(why, sizeof(why)) != GD_OK)
		return gd_error(GD_ENOGPU, "%s: %s%s", who, why, hint ? hint : "");
	if (dev >= gd_cu_count()) /* gd_cu_open fails when there is no device at all */
		return gd_error(GD_ENOGPU, "%s: no CUDA device %d (this machine has %d)", who, dev, gd_cu_count());
	return GD_OK;
}

int gd_no_device(const struct gd_ctx *ctx, const char *who)
{
	if (ctx->device < 0)
		return GD_OK;
	return gd_error(GD_EUSAGE, "%s reads a saved profile; --device does not apply", who);
}
