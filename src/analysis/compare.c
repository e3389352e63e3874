/* The comparison behind `gpudiag diff` (see compare.h). */
#include "analysis/compare.h"

#include "core/status.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *gd_ratio_text(char *buf, size_t n, double a, double b)
{
	double r;
	if (isnan(a) || isnan(b))
		snprintf(buf, n, "unknown");
	else if (a == 0 && b == 0)
		snprintf(buf, n, "=");
	else if (a == 0)
		snprintf(buf, n, "new");
	else if (b == 0)
		snprintf(buf, n, "gone");
	else if ((r = b / a) < 0.1)
		/* "÷" and the inverse: 0.0045× reads worse than ÷222 */
		snprintf(buf, n, 1 / r >= 99.5 ? "÷%.0f" : "÷%.1f", 1 / r);
	else
		snprintf(buf, n, r >= 99.5 ? "%.0f×" : r >= 9.995 ? "%.1f×" : r >= 0.9995 ? "%.2f×" : "%.3f×", r);
	return buf;
}

static int by_delta(const void *x, const void *y)
{
	const struct gd_delta *p = x, *q = y;
	double dp = fabs(p->b - p->a), dq = fabs(q->b - q->a);
	return dp < dq ? 1 : dp > dq ? -1 : strcmp(p->name, q->name);
}

/* The row of short_name, appended when new (a linear search: a profile has tens to hundreds
 * of kernel names). */
static struct gd_delta *row_of(struct gd_compare *c, const char *short_name)
{
	for (int q = 0; q < c->nkernels; q++)
		if (!strcmp(c->kernels[q].name, short_name))
			return &c->kernels[q];
	struct gd_delta *r = &c->kernels[c->nkernels++];
	r->name = short_name;
	return r;
}

int gd_compare_compute(const struct gd_summary *a, const struct gd_summary *b, struct gd_compare *c)
{
	memset(c, 0, sizeof(*c));
	c->kernels = calloc((size_t)(a->nks + b->nks) + 1, sizeof(*c->kernels));
	if (!c->kernels)
		return GD_EFAIL;
	for (int i = 0; i < a->nks; i++) {
		struct gd_delta *r = row_of(c, a->ks[i].short_name);
		r->a += a->ks[i].total_ns;
		r->na += a->ks[i].count;
	}
	for (int i = 0; i < b->nks; i++) {
		struct gd_delta *r = row_of(c, b->ks[i].short_name);
		r->b += b->ks[i].total_ns;
		r->nb += b->ks[i].count;
	}
	qsort(c->kernels, (size_t)c->nkernels, sizeof(*c->kernels), by_delta);

	for (int k = 0; k < GD_KIND_COUNT; k++) {
		if (!a->kind_n[k] && !b->kind_n[k])
			continue;
		c->kinds[c->nkinds++] =
			(struct gd_delta){gd_kind_name(k), a->kind_ns[k], b->kind_ns[k], a->kind_n[k], b->kind_n[k]};
	}
	qsort(c->kinds, (size_t)c->nkinds, sizeof(*c->kinds), by_delta);
	return GD_OK;
}

void gd_compare_free(struct gd_compare *c)
{
	free(c->kernels);
	memset(c, 0, sizeof(*c));
}
