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
			(struct gd_delta){gd_kind_name(k), a->kind_ns[k], b->kind_ns[k], a->kind_n[k], b->kind_n[k], NULL, NULL};
	}
	qsort(c->kinds, (size_t)c->nkinds, sizeof(*c->kinds), by_delta);
	return GD_OK;
}

/* The row named `name` (and, for a module, of class cls) in r[0..*n), appended when new. A
 * linear search: a model has hundreds of ops and modules, and this runs once per diff. */
static struct gd_delta *fw_row(struct gd_delta *r, long *n, const char *name, const char *path, const char *cls)
{
	for (long q = 0; q < *n; q++)
		if (path ? r[q].path && !strcmp(r[q].path, path) && (r[q].cls == cls || (r[q].cls && cls && !strcmp(r[q].cls, cls)))
			 : name && r[q].name && !strcmp(r[q].name, name))
			return &r[q];
	r[*n] = (struct gd_delta){name, 0, 0, 0, 0, path, cls};
	return &r[(*n)++];
}

static int fw_modules(const struct gd_framework *x, int is_b, struct gd_compare *c)
{
	for (long i = 0; i < x->nmodules; i++) {
		const struct gd_fw_module *m = &x->modules[i];
		long before = c->nmodules;
		struct gd_delta *r = fw_row(c->modules, &c->nmodules, NULL, m->path, m->cls);
		if (c->nmodules > before) {
			char label[512], *own;
			gd_fw_module_label(label, sizeof(label), m);
			if (!(own = strdup(label))) {
				c->nmodules--;
				return GD_EFAIL;
			}
			r->name = own;
		}
		if (is_b) {
			r->b += m->self_ns;
			r->nb += m->calls;
		} else {
			r->a += m->self_ns;
			r->na += m->calls;
		}
	}
	return GD_OK;
}

int gd_compare_framework(const struct gd_framework *a, const struct gd_framework *b, struct gd_compare *c)
{
	if (!a->present && !b->present)
		return GD_OK;
	c->framework = 1;
	c->ops = calloc((size_t)(a->nops + b->nops) + 1, sizeof(*c->ops));
	c->modules = calloc((size_t)(a->nmodules + b->nmodules) + 1, sizeof(*c->modules));
	if (!c->ops || !c->modules)
		return GD_EFAIL;
	for (int side = 0; side < 2; side++) {
		const struct gd_framework *x = side ? b : a;
		for (long i = 0; i < x->nops; i++) {
			struct gd_delta *r = fw_row(c->ops, &c->nops, x->ops[i].name, NULL, NULL);
			if (side) {
				r->b += x->ops[i].self_ns;
				r->nb += x->ops[i].calls;
			} else {
				r->a += x->ops[i].self_ns;
				r->na += x->ops[i].calls;
			}
		}
		if (fw_modules(x, side, c))
			return GD_EFAIL;
	}
	qsort(c->ops, (size_t)c->nops, sizeof(*c->ops), by_delta);
	qsort(c->modules, (size_t)c->nmodules, sizeof(*c->modules), by_delta);
	return GD_OK;
}

void gd_compare_free(struct gd_compare *c)
{
	for (long i = 0; i < c->nmodules; i++)
		free((char *)c->modules[i].name);
	free(c->ops);
	free(c->modules);
	free(c->kernels);
	memset(c, 0, sizeof(*c));
}
