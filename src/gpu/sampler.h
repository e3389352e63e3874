/* The NVML sampler: one thread that samples one or more GPUs at a fixed period into a
 * growing buffer, while the main thread measures (roofline, lab) or waits for a program
 * (run). The main thread reads the samples back by index range or time window, as medians,
 * minima and maxima, or one by one once the thread has stopped.
 *
 * Slots: the sampler samples "slots" 0..n-1, each naming an NVML index (-1 = skip that
 * slot); every sample is stored with its slot, so a caller that numbers slots by CUDA
 * device gets CUDA device numbers back. Only samples NVML answered are stored. */
#ifndef GPUDIAG_SAMPLER_H
#define GPUDIAG_SAMPLER_H

#include "gpu/nvml.h"

#include <stddef.h>

#define GD_SAMPLER_MAX_SLOTS 64

struct gd_sampler;

/* Starts the thread. Every period_ns (scheduled on absolute times, so a slow sweep makes the
 * next one late rather than shifting every later one) it samples each slot. The slots are
 * nvml_idx[0..nslots), or, when setup is not NULL, what setup(arg, idx, max) writes into idx
 * from the thread itself before the first sweep (so slow driver queries happen off the
 * caller's path); setup returns the number of slots, ≤ 0 (or period_ns ≤ 0) = sample
 * nothing and end the thread. Returns NULL when the thread cannot be started. */
struct gd_sampler *gd_sampler_start(long period_ns, const int *nvml_idx, int nslots,
				    int (*setup)(void *arg, int *idx, int max), void *arg);
/* Stops and joins the thread (the samples stay readable); NULL is ignored. */
void gd_sampler_stop(struct gd_sampler *s);
/* Stops if needed and frees everything; NULL is ignored. */
void gd_sampler_free(struct gd_sampler *s);

/* Samples stored so far, and sweeps attempted so far (answered or not). */
size_t gd_sampler_count(struct gd_sampler *s);
int gd_sampler_sweeps(struct gd_sampler *s);
/* Sample i and its slot; only after gd_sampler_stop (no lock is taken). */
const struct gd_nvml_sample *gd_sampler_get(const struct gd_sampler *s, size_t i, int *slot);

/* What a set of samples says. Unknown readings (-1) are left out of each figure. */
struct gd_sampler_summary {
	int n;                       /* samples summarised */
	int sm_mhz_min, sm_mhz_max;  /* over readings ≥ 0; -1 none */
	double sm_mhz_median;        /* over readings > 0; NaN none */
	double power_w_max;          /* over readings ≥ 0; NaN none */
	double power_w_median;       /* over readings > 0; NaN none */
	unsigned long long reasons;  /* OR of the known clock-event reason masks (0 when none known) */
	int nreasons;                /* samples whose reasons were known */
};
/* The samples [from, to) in storage order (a one-slot sampler: time order). */
void gd_sampler_summary(struct gd_sampler *s, size_t from, size_t to, struct gd_sampler_summary *out);
/* The samples taken between t0_ns and t1_ns (CLOCK_REALTIME, as gd_nvml_sample stamps
 * them); when there is none, the one sample nearest the window's middle if it is within
 * max_gap_ns of it (a window shorter than the period still gets its clock). */
void gd_sampler_window(struct gd_sampler *s, double t0_ns, double t1_ns, double max_gap_ns,
		       struct gd_sampler_summary *out);

#endif
