/* gpudiag lab coalescing — placeholder until the lab lands. */
#include "core/status.h"
#include "lab/lab.h"

static int run(struct gd_lab_run *r)
{
	return gd_error(GD_EFAIL, "lab %s: not implemented yet", r->lab->name);
}

const struct gd_lab gd_lab_coalescing = {"coalescing", "§4", "placeholder", "", run};
