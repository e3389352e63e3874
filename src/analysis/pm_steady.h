/* The steady part of a device's GPU-metrics timeline (PM samples), for the light mode, which
 * has no kernel trace to find the main loop from (steady.h does that from the kernels).
 *
 * The active span runs from the first to the last sample with work: SM active at least
 * GD_PM_WORK_PCT, or, on a device where no sample reaches that (grids of a block or two), GR
 * active at least GD_PM_WORK_PCT. Start-up inside it (library and model set-up between the first kernels,
 * autotuning, the first iterations) shows as a leading stretch of lower activity followed by
 * a step up; the steady part begins after the last such step. A step is a split of the
 * samples into a before and an after whose two means explain at least GD_PM_STEP_R2 of the
 * variance of the samples' activity, the after being the busier. The fluctuation of a steady
 * loop (a busy burst, then an idle gap, every iteration) explains far less at any split, so a
 * loop that idles every iteration keeps its idle in the judged part. See docs/verdicts.md,
 * "Light mode". */
#ifndef GPUDIAG_PM_STEADY_H
#define GPUDIAG_PM_STEADY_H

#include "profile/pm_metrics.h"

#define GD_PM_WORK_PCT 5.0 /* a sample whose SMs held warps < 5 % of their cycles had no work to
			      speak of (a launch or two): it neither opens nor closes the active
			      span */
#define GD_PM_STEP_R2 0.5  /* a step explains at least half of the variance of the samples'
			      activity. What it separates, on the GPU tier's accuracy suite in
			      light mode and traced (docs/gpu-tier.md, 2026-12-04): start-up
			      followed by the loop explained 0.68-0.998 in every program that had
			      one; the best split of a loop with idle gaps in every iteration
			      (planted_gpu_idle, planted_pageable) explained 0.02-0.05 */
#define GD_PM_STEP_MIN 50  /* samples on each side of a step (5 ms at the default 100 us): a
			      shorter stretch says nothing about a loop */
#define GD_PM_MAX_STEPS 4  /* start-up steps removed at most (set-up, autotuning, warm-up
			      iterations); the search stops at the first split that is no step */

struct gd_pm_window {
	int device;
	long first, last;   /* the active span, indices into the samples; first = -1: no work */
	long start;         /* first sample of the steady part (= first when no step was found) */
	int steps;          /* start-up steps removed */
	int gr;             /* activity read from GR active (every sample of the active span has
			       it), else from SM active */
	long n, nidle;      /* samples of the steady part; those with SM active < GD_PM_WORK_PCT */
	double span_ns;     /* sample time of the steady part (sum of the samples' lengths) */
	double busy;        /* duration-weighted mean activity of the steady part, fraction */
	double sm_busy;     /* the same of SM active */
	double warm_ns;     /* start-up removed: from the first sample with work to the steady part */
	double warm_busy;   /* its mean activity, fraction; NaN when no step was removed */
	double step_r2;     /* the share of variance the last step removed explained; NaN none */
};

/* The window of samples pm[lo, hi) (one device, in time order). Returns 0, or -1 when no sample
 * carries SM activity (w->first = -1 then, as when none has work). Allocates nothing. */
int gd_pm_window(const struct gd_pm_sample *pm, long lo, long hi, struct gd_pm_window *w);

#endif
