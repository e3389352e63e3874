/* User replay for the range profiler (rangeprof.c; `gpudiag run --metrics`, the default
 * --metrics-replay user): what gpudiag does itself instead of CUPTI's kernel replay, so that
 * every counter pass starts from the same memory AND from a clean L2, as under ncu's default
 * --cache-control all. Kernel replay restores memory but leaves L2 lines dirty, whose
 * write-back lands in the next pass: DRAM write bytes read up to +31 % high (H200, 2026-12-03,
 * docs/kernel-metrics.md).
 *
 * Per profiled launch (rangeprof.c drives it): in the launch's enter callback, synchronise
 * the context and save its device memory with CUPTI's checkpoint API (libcheckpoint.so:
 * device, pinned and managed allocations); the program's own launch then runs unprofiled,
 * undisturbed; in its exit callback, gpudiag's replay thread (gd_worker_call) runs every pass
 * with CUPTI's kernel records off (on, they zero the SASS metrics): restore, flush L2, start,
 * launch the kernel again with the program's own parameters, stop. Every
 * replay starts from the memory the program's launch started from and leaves what it left:
 * the program sees exactly one effective launch.
 *
 * Everything is loaded at run time: the driver that the program already loaded
 * (libcuda.so.1, RTLD_NOLOAD) and CUPTI's libcheckpoint.so (found through the injection
 * library's run path, beside the toolkit's libcupti). GPUDIAG_INJECT_LIBCUDA and
 * GPUDIAG_INJECT_LIBCHECKPOINT name other files (the CPU tier points both at its fake);
 * GPUDIAG_INJECT_NO_REPLAY_THREAD makes the replay thread's start fail (the CPU tier's test of
 * that fallback).
 * Nothing here exits or aborts; every failure is a CUresult/CUptiResult and a sentence. */
#ifndef GPUDIAG_CAPTURE_REPLAY_H
#define GPUDIAG_CAPTURE_REPLAY_H

#include <cuda.h>
#include <cupti.h>
#include <stddef.h>

/* Loads the driver's entry points and the checkpoint library, once per process. 0, or -1 with
 * why (then the caller falls back to kernel replay). */
int gd_replay_load(char *why, size_t n);

/* The L2 flush of one context: module, kernels and a buffer of twice the L2. */
struct gd_flush {
	int state;          /* 0 not set up, 1 ready, -1 unavailable (why said once) */
	CUmodule mod;
	CUfunction fn;
	CUfunction discard; /* drops the buffer's lines after the read (sm_80 on), or NULL */
	CUdeviceptr buf;
	size_t bytes;
	unsigned blocks;
};
/* Sets f up in the context current on this thread. 0, or -1 with why. */
int gd_flush_setup(struct gd_flush *f, char *why, size_t n);
/* Launches the flush (the read, then the discard where there is one) and waits for it.
 * CUDA_SUCCESS or the error. */
CUresult gd_flush_run(const struct gd_flush *f);

/* The context's memory, saved for the passes of one launch. */
struct gd_ckpt {
	void *priv;         /* CUpti_Checkpoint, allocated here */
	int saved;
};
CUptiResult gd_ckpt_save(struct gd_ckpt *k, CUcontext ctx);
/* Device memory a checkpoint leaves free for the program (beyond it CUPTI spills to host
 * memory), bytes. */
size_t gd_ckpt_reserve(void);
/* Host memory a checkpoint leaves free (replay.c says why), MiB: CUPTI spills the rest to
 * files, and returns CUPTI_ERROR_OUT_OF_MEMORY when those have no room either. */
size_t gd_ckpt_host_reserve_mb(void);
/* The device's free and (total not NULL) total memory (cuMemGetInfo, in the current context),
 * bytes; CUDA's error when it cannot be read (also when this driver lacks the entry point). */
CUresult gd_mem_info(size_t *free, size_t *total);
CUptiResult gd_ckpt_restore(struct gd_ckpt *k);
void gd_ckpt_free(struct gd_ckpt *k);

/* The launch of callback cbid (cuLaunchKernel, cuLaunchKernelEx or their _ptsz forms) again,
 * with the same parameters (cb->functionParams). */
CUresult gd_replay_launch(CUpti_CallbackId cbid, const void *params);

/* A launch kept to be made again after the program's call has returned (batched replay,
 * rangeprof.c): its own copy of everything the call's parameters point to, since the
 * argument array lives only as long as the call. The arguments' sizes come from the driver
 * (cuFuncGetParamInfo, else cuKernelGetParamInfo for the runtime's CUkernel handles; CUDA 12.4
 * on); arguments passed through `extra` are not copied. */
struct gd_relaunch {
	CUpti_CallbackId cbid;
	CUfunction f;
	unsigned grid[3], block[3], smem;
	CUstream stream;
	CUlaunchConfig config;      /* cuLaunchKernelEx: its attrs point into attrs */
	CUlaunchAttribute *attrs;
	void **params;              /* nparams pointers into args; NULL when there are none */
	unsigned char *args;
	size_t nparams;
};
/* 0, or -1 with why (r is then empty). */
int gd_relaunch_copy(struct gd_relaunch *r, CUpti_CallbackId cbid, const void *params, char *why, size_t n);
CUresult gd_relaunch_run(const struct gd_relaunch *r);
void gd_relaunch_free(struct gd_relaunch *r);
CUresult gd_ctx_sync(void);
/* Runs fn(arg) on gpudiag's replay thread, which is inside no CUPTI callback, and waits for it
 * (replay.c says why; gd_replay_load starts the thread, and fails when it cannot). 0, or -1
 * when this process has no such thread (a fork's child): nothing ran. */
int gd_worker_call(void (*fn)(void *), void *arg);
/* Makes ctx current on this thread if it is not; *pushed says whether to pop. */
CUresult gd_ctx_enter(CUcontext ctx, int *pushed);
void gd_ctx_leave(int pushed);
const char *gd_cu_text(CUresult r);

#endif
