/* gpudiag info — placeholder until the command lands. */
#include "commands.h"
#include "core/status.h"

const char cmd_info_usage[] = "usage: gpudiag info [--json] [--device N]\n";

int cmd_info(struct gd_ctx *ctx, int argc, char **argv)
{
	return gd_error(GD_EFAIL, "info: not implemented yet");
}
