/* gpudiag export FILE --perfetto OUT: a saved profile as a trace for ui.perfetto.dev, in
 * Perfetto's native protobuf format (src/render/perfetto_pb.c) or as Chrome-trace JSON
 * (src/render/perfetto.c). */
#include "commands.h"
#include "core/cli.h"
#include "core/fileio.h"
#include "core/status.h"
#include "render/perfetto.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

const char cmd_export_usage[] =
	"usage: gpudiag export FILE --perfetto OUT.pftrace [--format protobuf|json]\n"
	"\n"
	"Writes a saved profile (from gpudiag run) as a trace for ui.perfetto.dev and Perfetto's\n"
	"trace_processor: a track per process, CPU thread and GPU stream (overlapping events on\n"
	"extra lanes), arrows from API calls to the kernels and copies they launched, NVTX ranges\n"
	"and marks, and NVML samples (utilisation, clocks, power, temperature, memory) and GPU\n"
	"counters as counter tracks (docs/perfetto.md).\n"
	"\n"
	"options:\n"
	"  --perfetto OUT  the trace to write ('-': standard output); name it .pftrace or\n"
	"                  .perfetto-trace\n"
	"  --format F      protobuf (default): Perfetto's native trace, a fifth of the JSON's\n"
	"                  size, written several times faster; json: Chrome-trace JSON (also\n"
	"                  chrome://tracing). Without --format, an OUT ending in .json gets JSON\n"
	"  --json          the same as --format json\n"
	"\n"
	"exit status: 0; 1 when OUT cannot be written; 2 for a bad option or an OUT that is the\n"
	"input profile; 5 when FILE is not a readable gpudiag profile of a known version (no file\n"
	"is left behind).\n";

enum { FMT_PROTOBUF, FMT_JSON };

/* The trace's format: --format, else --json, else the name ("x.json" is JSON). */
static int pick_format(const char *format, int json, const char *out, int *fmt)
{
	size_t n = strlen(out);
	if (format) {
		if (!strcmp(format, "protobuf") || !strcmp(format, "proto"))
			*fmt = FMT_PROTOBUF;
		else if (!strcmp(format, "json"))
			*fmt = FMT_JSON;
		else
			return gd_error(GD_EUSAGE, "export: --format must be protobuf or json, not '%s'", format);
		if (json && *fmt != FMT_JSON)
			return gd_error(GD_EUSAGE, "export: --json and --format %s ask for two formats; give one", format);
		return GD_OK;
	}
	*fmt = json || (n >= 5 && !strcasecmp(out + n - 5, ".json")) ? FMT_JSON : FMT_PROTOBUF;
	return GD_OK;
}

int cmd_export(struct gd_ctx *ctx, int argc, char **argv)
{
	const char *perfetto = NULL, *format = NULL;
	char *pos[2];
	int npos = 0, rc, fmt;
	const struct gd_opt opts[] = {
		{"perfetto", GD_OPT_STR, &perfetto, "OUT", "the trace to write"},
		{"format", GD_OPT_STR, &format, "F", "protobuf or json"},
		{NULL, 0, NULL, NULL, NULL},
	};
	rc = gd_parse_opts("export", argc, argv, opts, pos, 1, &npos, 0);
	if (rc == GD_OK)
		rc = gd_no_device(ctx, "export");
	if (rc)
		return rc;
	if (npos != 1)
		return gd_error(GD_EUSAGE, "export: give one profile (usage: gpudiag export FILE --perfetto OUT.pftrace)");
	if (!perfetto)
		return gd_error(GD_EUSAGE, "export: say what to write: --perfetto OUT.pftrace");
	if ((rc = pick_format(format, ctx->json, perfetto, &fmt)) != GD_OK)
		return rc;
	if (gd_same_file(perfetto, pos[0]))
		return gd_error(GD_EUSAGE, "export: the output '%s' is the input profile; name another file", perfetto);
	/* binary on a terminal is unreadable and can upset it */
	if (fmt == FMT_PROTOBUF && !strcmp(perfetto, "-") && isatty(STDOUT_FILENO))
		return gd_error(GD_EUSAGE,
				"export: standard output is a terminal and the protobuf trace is binary; redirect it, or "
				"use --format json");
	return fmt == FMT_JSON ? gd_export_perfetto(pos[0], perfetto) : gd_export_perfetto_pb(pos[0], perfetto);
}
