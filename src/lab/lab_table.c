/* The lab table: adding a lab is one `extern` line and one pointer below (see lab.h).
 * Order here is the order of `gpudiag lab`. */
#include "lab/lab.h"

#include <stddef.h>

extern const struct gd_lab gd_lab_memory, gd_lab_coalescing, gd_lab_precision;
extern const struct gd_lab gd_lab_launch, gd_lab_grid, gd_lab_divergence, gd_lab_occupancy, gd_lab_streams,
	gd_lab_sfu;
extern const struct gd_lab gd_lab_fusion, gd_lab_attention;

const struct gd_lab *const gd_labs[] = {
	&gd_lab_memory,
	&gd_lab_coalescing,
	&gd_lab_precision,
	&gd_lab_launch,
	&gd_lab_grid,
	&gd_lab_divergence,
	&gd_lab_occupancy,
	&gd_lab_streams,
	&gd_lab_sfu,
	&gd_lab_fusion,
	&gd_lab_attention,
	NULL,
};
