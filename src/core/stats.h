/* Summary statistics of repeated measurements: median for throughput, min for latency,
 * with the spread (min, max, p10, p90) always reported beside them. */
#ifndef GPUDIAG_STATS_H
#define GPUDIAG_STATS_H

struct gd_stats {
	int n;
	double min, max, mean, median, p10, p90, stdev;
};

/* Computes over v[0..n) (not modified). n == 0 gives NaNs. */
void gd_stats_compute(const double *v, int n, struct gd_stats *s);
/* Linear-interpolated quantile q in [0,1] of sorted[0..n). */
double gd_quantile_sorted(const double *sorted, int n, double q);

#endif
