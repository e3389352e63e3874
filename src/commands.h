/* The command table: one entry per subcommand, each implemented in src/cmd_<name>.c.
 *
 * Adding a command takes three steps:
 *   1. write src/cmd_<name>.c with `int cmd_<name>(struct gd_ctx *, int, char **)` and a
 *      help text,
 *   2. declare both below,
 *   3. add a row to the table in commands.c.
 * main.c parses the common options (--json, --device, --no-color, --help), so no command
 * does. A command that needs a GPU calls gd_need_gpu() once, after its own options are
 * parsed (a usage error is reported before a missing GPU) and only on the path that needs
 * one (`lab` alone lists the labs, `roofline --show` and `occupancy --arch` need none): that
 * one function opens the driver, checks --device and prints the no-GPU error (exit 3). */
#ifndef GPUDIAG_COMMANDS_H
#define GPUDIAG_COMMANDS_H

#include <stdio.h>

struct gd_ctx {
	int json;       /* --json: machine-readable output on stdout */
	int device;     /* --device N (-1 = not given: all devices or device 0) */
	int no_color;   /* --no-color (NO_COLOR is honoured too) */
	const char *argv0;
};

enum gd_cmd_flags {
	GD_RAW_ARGS = 1 << 0, /* common options are not parsed after the first positional (run) */
};

struct gd_cmd {
	const char *name;
	int (*fn)(struct gd_ctx *ctx, int argc, char **argv);
	unsigned flags;
	const char *guide; /* guide sections it covers, e.g. "§6" */
	const char *summary;
	const char *usage; /* full help text, printed by `gpudiag help <name>` */
};

extern const struct gd_cmd gd_commands[];
const struct gd_cmd *gd_find_command(const char *name);

/* The GPU check every GPU command shares: loads the driver and checks that the device
 * --device names (device 0 when not given) exists. Returns GD_OK, or prints one line,
 * "<who>: <why><hint>" or "<who>: no CUDA device N (this machine has M)", and returns
 * GD_ENOGPU. hint (may be NULL) is appended to the driver's reason, e.g. how to do without. */
int gd_need_gpu(const struct gd_ctx *ctx, const char *who, const char *hint);

/* For the commands that read saved profiles (report, export, diff): --device names a GPU of
 * this machine, which such a file has nothing to do with. Returns GD_OK when --device was not
 * given; otherwise prints "<who> reads a saved profile; --device does not apply" and returns
 * GD_EUSAGE. */
int gd_no_device(const struct gd_ctx *ctx, const char *who);

/* Commands (src/cmd_<name>.c), each with its help text. */
int cmd_info(struct gd_ctx *ctx, int argc, char **argv);
int cmd_occupancy(struct gd_ctx *ctx, int argc, char **argv);
int cmd_roofline(struct gd_ctx *ctx, int argc, char **argv);
int cmd_lab(struct gd_ctx *ctx, int argc, char **argv);
int cmd_run(struct gd_ctx *ctx, int argc, char **argv);
int cmd_report(struct gd_ctx *ctx, int argc, char **argv);
int cmd_export(struct gd_ctx *ctx, int argc, char **argv);
int cmd_diff(struct gd_ctx *ctx, int argc, char **argv);
int cmd_monitor(struct gd_ctx *ctx, int argc, char **argv);
int cmd_nccl(struct gd_ctx *ctx, int argc, char **argv);
int cmd___demo(struct gd_ctx *ctx, int argc, char **argv);
/* The no-GPU fallback of `gpudiag run` with no command (src/cmd_demo.c): says there is no GPU
 * and reports the sample profile shipped with gpudiag (found by gd_find_sample,
 * src/core/paths.h: installed under share/gpudiag, or beside the binary in the build tree),
 * which is labelled as recorded elsewhere. */
int gd_demo_sample(const struct gd_ctx *ctx, const char *argv0, FILE *out);
extern const char cmd_info_usage[], cmd_occupancy_usage[], cmd_roofline_usage[], cmd_lab_usage[],
	cmd_run_usage[], cmd_report_usage[], cmd_export_usage[], cmd_diff_usage[], cmd_monitor_usage[],
	cmd_nccl_usage[], cmd___demo_usage[];

#endif
