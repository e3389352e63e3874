/* The time gpudiag's own replays added to a `gpudiag run --metrics` profile, cut out of its
 * timeline before the timeline is judged (issue 19).
 *
 * A profiled launch is replayed inside its own launch call: user replay saves the memory
 * before the launch, waits for the kernel, then runs it once per pass (10 passes of the
 * default set, about 150 ms on an H100); kernel replay does the same inside CUPTI. The
 * replays' kernels are not recorded, so the trace shows the GPU idle for that long, with the
 * host inside a launch call: idle, launch and sync rules would judge gpudiag, not the program.
 *
 * What is cut: the parts of each profiled launch's call (metric_launches rows that were
 * replayed: status ok or error, found by (pid, correlation id) among the API calls; the call
 * taken back to its end less metric_launches.profile_ns where that is longer, as in profiles
 * whose call start came after the memory save) during which no kernel, copy or memset of the
 * trace ran on any device. Every timestamp of the
 * profile after a cut moves earlier by its length, one inside it moves to its start: the
 * kernels, copies and memsets keep their durations and order (they lie outside the cuts),
 * while the profiled launch's call, the NVTX ranges and the capture window around a cut
 * shrink by it. The export (Perfetto) keeps the real clock: only the analysis sees the cut. */
#ifndef GPUDIAG_REPLAYCUT_H
#define GPUDIAG_REPLAYCUT_H

#include "analysis/summary.h"
#include "profile/profile.h"

#include <stdint.h>

struct gd_replay_cut {
	struct gd_interval *iv; /* disjoint, in time order */
	long n;
	int64_t *before;        /* before[i]: the summed length of iv[0 .. i) */
	int64_t total_ns;       /* their summed length */
	long launches;          /* profiled launches whose call held some of it */
};

/* The cuts of p, whose summary s gives the busy intervals. GD_OK (c->n may be 0) or GD_EFAIL
 * (out of memory; c left empty). */
int gd_replay_cut_find(const struct gd_profile *p, const struct gd_summary *s, struct gd_replay_cut *c);
/* A time on the cut clock. */
int64_t gd_replay_cut_map(const struct gd_replay_cut *c, int64_t t);
/* Every timestamp of p moved to the cut clock (the list of what is moved: replaycut.c). */
void gd_replay_cut_apply(struct gd_profile *p, const struct gd_replay_cut *c);
void gd_replay_cut_free(struct gd_replay_cut *c);

#endif
