/* Per-launch hardware counters inside the injection library (issue 19: `gpudiag run
 * --metrics`): CUPTI's range profiler, auto range + kernel replay, around the launches the
 * environment selects (src/capture/rangeprof.c says how and why).
 *
 * Environment (set by cmd_run; COMMON contract): GPUDIAG_METRICS (comma-separated CUPTI metric
 * names; unset or empty = this module does nothing at all, not one profiler call),
 * GPUDIAG_METRICS_KERNELS (POSIX ERE on the demangled name), GPUDIAG_METRICS_NAMES (file of
 * exact mangled names), GPUDIAG_METRICS_PER_KERNEL (default 3), GPUDIAG_METRICS_SKIP /
 * GPUDIAG_METRICS_COUNT (ncu-like over the matching launches; COUNT set = PER_KERNEL ignored),
 * GPUDIAG_METRICS_MAX (budget of profiled launches per process, default 100),
 * GPUDIAG_METRICS_REPLAY (`user`, the default: gpudiag replays each pass itself with a clean
 * L2, replay.h; `kernel`: CUPTI's kernel replay, which is also the fallback when user replay
 * cannot be set up, said in the launch's detail), GPUDIAG_METRICS_BATCH (user replay: launches
 * whose passes share one profiling session each, 1 to 32, default 1; rangeprof.c, "batched user
 * replay").
 *
 * What it writes into the raw file (src/profile/raw.h):
 *   - GD_RAW_KLAUNCH per selected launch: GD_KL_OK with the values, or a skip status
 *     (cooperative, graph, communication kernel), or GD_KL_ERROR with CUPTI's text; one
 *     GD_KL_SKIP_LIMIT per kernel name once the budget is spent.
 *   - GD_RAW_KREJECT per metric name the GPU's counters refuse (metric = the name, reason =
 *     CUPTI's text), once per process and name.
 *   - Configuration backstop (cmd_run validates these before starting, so this is rare): a
 *     GD_RAW_KREJECT whose metric string is the NAME OF THE ENVIRONMENT VARIABLE
 *     ("GPUDIAG_METRICS_KERNELS", "GPUDIAG_METRICS_NAMES", "GPUDIAG_METRICS") and whose
 *     reason says what was wrong; range profiling is then off for the whole process and no
 *     KLAUNCH is written. A reader tells these from metric names by the "GPUDIAG_" prefix
 *     (CUPTI metric names contain "__" and never start so).
 *   - Graph launches (cuGraphLaunch*) are recorded with the kernel name "(graph)": the
 *     kernels inside a graph never reach a launch callback, so their names are unknown here.
 *
 * Threading: one profiled launch at a time per process. Selection state sits behind a mutex
 * taken briefly on every launch callback while metrics are on; the session behind a
 * reader-writer lock that a profiled launch holds for writing from its enter to its exit
 * callback and every other launch for reading over the same span, so no kernel of another
 * thread runs inside a session (auto range would count it). Lock order: either of these,
 * then inject.c's g_lock; never the two of this module at once.
 */
#ifndef GPUDIAG_CAPTURE_RANGEPROF_H
#define GPUDIAG_CAPTURE_RANGEPROF_H

#include <cupti.h>
#include <stdint.h>

/* Provided by inject.c for this module (hidden symbols inside the library): the raw file's
 * output buffer and string table, under inject.c's lock. The record pointer from reserve is
 * valid until the next reserve or intern. */
void gd_inj_lock(void);
void gd_inj_unlock(void);
uint32_t gd_inj_intern(const char *s);   /* caller holds the lock */
void *gd_inj_reserve(size_t n);          /* zeroed; NULL when out of memory (counted lost) */
void gd_inj_flush(void);                 /* write(2) what is buffered; caller holds the lock */
int gd_inj_disabled(void);               /* a forked child, or setup failed */
/* 1: CUPTI's kernel records off while user replay's passes run (with them on, every
 * smsp__sass_* metric of a user-replay pass read 0: H100, 2026-12-06, replay_probe.cu
 * user-act); 0: back on if the capture window wants them */
void gd_inj_kernels_pause(int pause);

/* Reads the environment; 1 when range profiling is on for this process (GPUDIAG_METRICS set
 * and usable), 0 when off. Cheap, no GPU work, no profiler call; a configuration error is
 * recorded as described above. Call once, after the raw file's header is written. */
int gd_rp_init(int debug);
/* Whether the callback (domain, cbid) must be enabled for range profiling. */
int gd_rp_wants(CUpti_CallbackDomain dom, CUpti_CallbackId cbid, const char *name);
/* Every enabled runtime/driver API callback, both sites, before anything else the library does
 * with it; returns at once when the call is not a launch. */
void gd_rp_api(CUpti_CallbackDomain dom, CUpti_CallbackId cbid, const CUpti_CallbackData *cb);
/* Resource callbacks (context destruction: the profiler object of that context is released). */
void gd_rp_resource(CUpti_CallbackId cbid, const void *data);
/* At the process's end, before the raw file's last record: the launches still waiting for
 * their batch's passes (GPUDIAG_METRICS_BATCH) are recorded as not profiled. No CUDA call. */
void gd_rp_exit(void);
/* User replay (replay.h): 1 while this thread makes the replay's own driver calls (inject.c
 * records none of them). gd_rp_drop: whether an activity record is the replay's own work
 * (rangeprof.c, "user replay's own work", says how it tells); inject.c leaves it out. kind:
 * GD_RP_REC_*; ctx: CUPTI's context id of a kernel record; start: a kernel's start (CUPTI ns;
 * 0 unknown); kernel_name: a kernel's name, else NULL. Cheap when nothing was replayed. */
enum { GD_RP_REC_KERNEL, GD_RP_REC_OTHER, GD_RP_REC_API };
#define GD_L2_FLUSH_KERNEL "gpudiag_l2_flush"
#define GD_L2_DISCARD_KERNEL "gpudiag_l2_discard"
int gd_rp_internal(void);
int gd_rp_drop(int kind, uint32_t correlation, uint32_t ctx, uint64_t start, const char *kernel_name);

#endif
