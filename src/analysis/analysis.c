/* One profile's analysis: load → summary → verdicts (see analysis.h). */
#include "analysis/analysis.h"

#include "core/status.h"

#include <stdio.h>
#include <string.h>

int gd_analysis_of(struct gd_analysis *a)
{
	int rc = gd_summary_compute(&a->p, &a->s);
	if (rc == GD_OK)
		rc = gd_verdicts_compute(&a->p, &a->s, &a->v);
	if (rc != GD_OK) {
		/* a failed summary may hold some of its arrays; the caller frees only a->p then */
		gd_summary_free(&a->s);
		return rc;
	}
	return GD_OK;
}

int gd_analysis_load(const char *path, struct gd_analysis *a, char *why, size_t n)
{
	int rc;
	memset(a, 0, sizeof(*a));
	rc = gd_profile_load(path, &a->p, why, n);
	if (rc != GD_OK)
		return rc;
	rc = gd_analysis_of(a);
	if (rc != GD_OK) {
		gd_profile_free(&a->p);
		snprintf(why, n, "out of memory");
	}
	return rc;
}

void gd_analysis_free(struct gd_analysis *a)
{
	gd_summary_free(&a->s);
	gd_profile_free(&a->p);
}
