/* gpudiag export FILE --perfetto OUT.json: a saved profile as a trace for ui.perfetto.dev
 * (the writer is src/render/perfetto.c). */
#include "commands.h"
#include "core/cli.h"
#include "core/fileio.h"
#include "core/status.h"
#include "render/perfetto.h"

const char cmd_export_usage[] =
	"usage: gpudiag export FILE --perfetto OUT.json\n"
	"\n"
	"Writes a saved profile (from gpudiag run) as Chrome-trace JSON for ui.perfetto.dev:\n"
	"a track per process, CPU thread and GPU stream (overlapping events on extra lanes),\n"
	"arrows from API calls to the kernels and copies they launched, NVTX ranges and marks,\n"
	"and NVML samples (utilisation, clocks, power, temperature, memory) as counter tracks.\n"
	"OUT.json '-' writes to stdout.\n";

int cmd_export(struct gd_ctx *ctx, int argc, char **argv)
{
	const char *perfetto = NULL;
	char *pos[2];
	int npos = 0, rc;
	const struct gd_opt opts[] = {
		{"perfetto", GD_OPT_STR, &perfetto, "OUT.json", "Chrome-trace JSON for ui.perfetto.dev"},
		{NULL, 0, NULL, NULL, NULL},
	};
	rc = gd_parse_opts("export", argc, argv, opts, pos, 1, &npos, 0);
	if (rc == GD_OK)
		rc = gd_no_device(ctx, "export");
	if (rc)
		return rc;
	if (npos != 1)
		return gd_error(GD_EUSAGE, "export: give one profile (usage: gpudiag export FILE --perfetto OUT.json)");
	if (!perfetto)
		return gd_error(GD_EUSAGE, "export: say what to write: --perfetto OUT.json");
	if (gd_same_file(perfetto, pos[0]))
		return gd_error(GD_EUSAGE, "export: the output '%s' is the input profile; name another file", perfetto);
	return gd_export_perfetto(pos[0], perfetto);
}
