/* gpudiag occupancy — placeholder until the command lands. */
#include "commands.h"
#include "core/status.h"

const char cmd_occupancy_usage[] = "usage: gpudiag occupancy --threads T --regs R\n";

int cmd_occupancy(struct gd_ctx *ctx, int argc, char **argv)
{
	return gd_error(GD_EFAIL, "occupancy: not implemented yet");
}
