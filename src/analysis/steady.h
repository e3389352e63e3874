/* The steady state of a profile: where the program's main loop starts and ends, found once
 * from the kernel trace and used by every rule that must tell one-off start-up work (context
 * and library initialisation, model upload, the first iteration's lazy loading) from work the
 * loop repeats. See docs/verdicts.md, "The main loop". */
#ifndef GPUDIAG_STEADY_H
#define GPUDIAG_STEADY_H

#include "analysis/summary.h"
#include "core/safe_int.h"
#include "profile/profile.h"

#include <stdint.h>

struct gd_steady {
	int found;          /* 1: a repeating kernel sequence was found; 0: everything is judged */
	int anchor;         /* name id of the most frequent kernel, whose repetition defines the loop */
	long repeats;       /* how many times the anchor ran */
	long period;        /* kernels in one iteration (launch order); or, when no period repeats,
			       from the anchor's first run to its second */
	long k0, k1;        /* first and last kernel of the loop, indices into p->k */
	int64_t g0, g1;     /* GPU: start of kernel k0, end of kernel k1 */
	int64_t t0, t1;     /* host and GPU: the launch call of kernel k0 (or its start) .. g1 */
};

/* Finds the loop. launch_start[i] is the start of kernel i's launch call, or INT64_MAX when
 * unknown (NULL: none known). Never fails: without a loop, found = 0 and the window is the
 * whole profile. */
void gd_steady_find(const struct gd_profile *p, const int64_t *launch_start, struct gd_steady *st);

/* 1 when an event starting at t belongs to the loop (or no loop was found). */
static inline int gd_steady_in(const struct gd_steady *st, int64_t t)
{
	return !st->found || (t >= st->t0 && t <= st->t1);
}

/* The main loop iteration by iteration, for the HTML page's per-iteration view (a stall that
 * one iteration in fifty takes is invisible in a timeline column of the whole loop), and what
 * NVML read during the loop (beside the trace's GPU busy).
 *
 * An iteration opens with the loop's first kernel (its name: the opener) and lasts until the
 * next iteration opens; the last one ends with the loop. The opener may run more than once per
 * iteration, so an iteration holds as many of its runs as the loop's first `period` kernels of
 * that process do (steady.c's period, counted in that process's launches). Only the opener's
 * runs in the process that launched the loop's first kernel count: another process's runs of
 * the same kernel (the other ranks of a job) are not its iterations. Each iteration's time is split three ways: kernel (at least one kernel ran, on
 * any device), copy (copies or memsets ran and no kernel) and idle (nothing ran), so the three
 * add up to its length. */
struct gd_iter {
	int64_t start, end;           /* GPU time, ns on the profile's clock */
	double kernel_ns, copy_ns, idle_ns;
};

/* An iteration's length, ns (exact for any two times a profile may hold). */
static inline double gd_iter_ns(const struct gd_iter *x) { return gd_i64_diff(x->end, x->start); }

struct gd_loop_view {
	struct gd_iter *it;           /* in time order; NULL and n = 0 without a loop */
	long n;
	int opener;                   /* name id of the kernel that opens an iteration; -1 none */
	long opener_runs;             /* its runs per iteration */
	double median_ns;             /* median iteration length; NaN without iterations */
	long slowest;                 /* index of the longest iteration; -1 none */
	/* The steady window, which the HTML timeline zooms to (ns on the profile's clock): the
	 * main loop [t0, t1]; without one, the GPU active span; in light mode (no kernels), the
	 * steady part of the GPU-metrics samples (pm_steady.h), every device's joined; else the
	 * capture window. window: which of them (GD_WIN_*); GD_WIN_NONE: none (w0 = w1 = 0). */
	int window;
	int64_t w0, w1;
	/* NVML's GPU utilisation (%, every device) in the steady window: the samples whose time
	 * lies in [w0, w1] */
	struct gd_range nvml_util_loop;
};
enum { GD_WIN_NONE = 0, GD_WIN_LOOP, GD_WIN_SPAN, GD_WIN_PM_STEADY, GD_WIN_RUN };

/* Fills lv for the loop of kernels k0..k1 (start order) of period `period` that runs from t0 (its
 * first launch) to t1 (its end on the GPU), as gd_verdicts reports it; found = 0: no loop (no
 * iterations; t0, t1 are then ignored). s is the profile's summary (busy intervals, span).
 * Returns GD_OK, or GD_EFAIL out of memory (lv then holds no iterations). */
int gd_loop_view_compute(const struct gd_profile *p, const struct gd_summary *s, int found, long k0, long k1,
			 long period, int64_t t0, int64_t t1, struct gd_loop_view *lv);
void gd_loop_view_free(struct gd_loop_view *lv);

#endif
