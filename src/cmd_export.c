/* placeholder, replaced below */
#include "commands.h"
#include "core/status.h"
const char cmd_export_usage[] = "usage: gpudiag export FILE --perfetto OUT.json\n";
int cmd_export(struct gd_ctx *ctx, int argc, char **argv) { return gd_error(GD_EFAIL, "export: not yet"); }
