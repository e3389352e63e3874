/* The GPU-metrics sampler (issue 18): CUPTI PM sampling of every GPU the program can see,
 * from the `gpudiag run` parent, one session per device (as DCGM does: independent of how
 * many processes the job has, and possible without tracing the program at all — the light
 * mode). docs/gpu-metrics.md says why it runs here and what each quantity counts.
 *
 * libcupti is loaded at run time: $GPUDIAG_CUPTI when set (the CPU tier points it at a fake),
 * else the libcupti.so.13 the injection library already loaded into this process, else the
 * loader's search path. One thread sets the sessions up (off the program's critical path),
 * starts them and decodes every GD_PM_DECODE_MS, so the hardware buffer never fills; the first
 * sample of each session (it spans set-up to start) is discarded.
 *
 * Refusals are normal: no driver, a GPU older than the API, profiling restricted to admin
 * users, a virtual GPU or MIG instance, another profiler holding the counters. Then no sample
 * is taken and the status says why in one line ("no counters: ..."); the run goes on. */
#ifndef GPUDIAG_PMSAMPLE_H
#define GPUDIAG_PMSAMPLE_H

#include "profile/pm_metrics.h"

#include <stddef.h>

#define GD_PM_DEFAULT_INTERVAL_NS 100000L /* 100 µs: docs/gpu-metrics.md has the measured cost */
#define GD_PM_MIN_INTERVAL_NS 50000L      /* at 20 µs the H200's hardware buffer overflowed after
					     3380 samples (docs/gpu-tier.md, sixth session) */
#define GD_PM_MAX_INTERVAL_NS 1000000000L

struct gd_pm;

/* Starts sampling devices 0..ndev-1 (CUDA ordinals) every interval_ns in a new thread and
 * returns at once. NULL only when out of memory or the thread cannot start (why says so). */
struct gd_pm *gd_pm_start(int ndev, long interval_ns, char *why, size_t whyn);
/* Stops every session, decodes what is left and joins the thread; NULL is ignored. */
void gd_pm_stop(struct gd_pm *pm);
void gd_pm_free(struct gd_pm *pm);

/* After gd_pm_stop: the samples of every device (in time order per device). */
long gd_pm_count(const struct gd_pm *pm);
const struct gd_pm_sample *gd_pm_get(const struct gd_pm *pm, long i);
/* "ok" when at least one device was sampled, else "no counters: <reason>". */
const char *gd_pm_status(const struct gd_pm *pm);
/* What else a user should know, "" if nothing: devices refused while others were sampled,
 * quantities this GPU did not accept, a hardware buffer that overflowed. */
const char *gd_pm_note(const struct gd_pm *pm);
/* Samples lost: hardware-buffer overflows, and gaps between consecutive samples of one
 * device longer than half an interval, counted in intervals (rounded). */
long long gd_pm_lost(const struct gd_pm *pm);
/* The CUPTI metric names in use, comma-separated ("" when none). */
const char *gd_pm_metric_names(const struct gd_pm *pm);
/* When sampling began (CLOCK_REALTIME ns, 0 = it never did). */
long long gd_pm_started_ns(const struct gd_pm *pm);

#endif
