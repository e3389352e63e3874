/* Stable keys for lab result rows (lab_key.h). */
#include "lab/lab_key.h"

#include <math.h>

int gd_lab_measure_key(struct gd_lab_run *r, const struct gd_lab_variant *v, int key)
{
	/* gd_lab_measure records at most one result, as the last one; it may record none (an
	 * error before the check, or gd_lab_record out of memory), hence the count */
	int before = r->nres, rc = gd_lab_measure(r, v);
	if (r->nres == before + 1)
		gd_lab_set_key(&r->res[r->nres - 1], key);
	return rc;
}

struct gd_lab_result *gd_lab_set_key(struct gd_lab_result *res, int key)
{
	if (res)
		res->key = key;
	return res;
}

struct gd_lab_result *gd_lab_find_key(const struct gd_lab_run *r, int key)
{
	if (key <= 0)
		return NULL;
	for (int i = 0; i < r->nres; i++)
		if (r->res[i].key == key)
			return &r->res[i];
	return NULL;
}

double gd_lab_key_median(const struct gd_lab_run *r, int key)
{
	const struct gd_lab_result *res = gd_lab_find_key(r, key);
	return res ? res->t_median : NAN;
}
