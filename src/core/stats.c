/* Summary statistics; see stats.h. */
#include "core/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

double gd_quantile_sorted(const double *s, int n, double q)
{
	double pos;
	int i;
	if (n <= 0)
		return NAN;
	if (q <= 0)
		return s[0];
	if (q >= 1)
		return s[n - 1];
	pos = q * (n - 1);
	i = (int)pos;
	if (i + 1 >= n)
		return s[n - 1];
	return s[i] + (pos - i) * (s[i + 1] - s[i]);
}

void gd_stats_compute(const double *v, int n, struct gd_stats *s)
{
	double *t, sum = 0, sq = 0;
	memset(s, 0, sizeof(*s));
	s->n = n;
	if (n <= 0 || !(t = malloc(sizeof(double) * (size_t)n))) {
		s->min = s->max = s->mean = s->median = s->p10 = s->p90 = s->stdev = NAN;
		return;
	}
	memcpy(t, v, sizeof(double) * (size_t)n);
	qsort(t, (size_t)n, sizeof(double), cmp_double);
	for (int i = 0; i < n; i++)
		sum += t[i];
	s->mean = sum / n;
	for (int i = 0; i < n; i++)
		sq += (t[i] - s->mean) * (t[i] - s->mean);
	s->stdev = n > 1 ? sqrt(sq / (n - 1)) : 0;
	s->min = t[0];
	s->max = t[n - 1];
	s->median = gd_quantile_sorted(t, n, 0.5);
	s->p10 = gd_quantile_sorted(t, n, 0.1);
	s->p90 = gd_quantile_sorted(t, n, 0.9);
	free(t);
}
