/* User replay's driver, checkpoint and L2-flush calls (replay.h says what and why). */
#include "capture/replay.h"
#include "capture/rangeprof.h" /* the flush kernels' names */

#include "l2flush80_ptx.h" /* gd_l2flush80_ptx: the same for compute_80, with the discard */
#include "l2flush_ptx.h"   /* gd_l2flush_ptx: src/capture/l2flush.cu as PTX, made at build time */

#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* CUPTI's checkpoint API (cupti_checkpoint.h) is declared in a C++ namespace with C linkage;
 * a C file cannot include it, so the one struct and three functions are declared here with the
 * header's layout (CUDA 13.0): the struct size is the offset of pPriv plus a pointer. */
struct gd_cupti_checkpoint {
	size_t structSize;
	CUcontext ctx;
	size_t reserveDeviceMB;
	size_t reserveHostMB;
	uint8_t allowOverwrite;
	uint8_t optimizations;
	void *pPriv;
};
#define GD_CHECKPOINT_STRUCT_SIZE (offsetof(struct gd_cupti_checkpoint, pPriv) + sizeof(void *))
/* Device memory the checkpoint must leave free: the program's other threads may allocate while
 * a launch is being replayed (CUPTI falls back to host memory for the rest). */
#define GD_CHECKPOINT_RESERVE_MB 1024
/* Host memory it must leave free, where the device's copy spills: 1/8 of the machine's, at least
 * this many MiB. A device close to full has more memory than some hosts (an H200's 141 GB
 * beside the 128 GiB of the lent machine): without a reserve the copy could take what the
 * program's other processes need (data-loader workers) and bring the kernel's OOM killer onto
 * the program. Beyond it CUPTI writes the rest to files (libcheckpoint.so: "Beginning to use
 * file storage"); a copy that fits nowhere fails the save, and that launch is not profiled. */
#define GD_CHECKPOINT_HOST_RESERVE_MIN_MB 2048
#define GD_CHECKPOINT_HOST_RESERVE_SHARE 8

typedef CUptiResult (*ckpt_fn)(struct gd_cupti_checkpoint *);

static struct {
	CUresult (*launch)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
			   CUstream, void **, void **);
	CUresult (*launch_ptsz)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
				CUstream, void **, void **);
	CUresult (*launch_ex)(const CUlaunchConfig *, CUfunction, void **, void **);
	CUresult (*launch_ex_ptsz)(const CUlaunchConfig *, CUfunction, void **, void **);
	CUresult (*ctx_sync)(void);
	CUresult (*ctx_get_current)(CUcontext *);
	CUresult (*ctx_push)(CUcontext);
	CUresult (*ctx_pop)(CUcontext *);
	CUresult (*ctx_get_device)(CUdevice *);
	CUresult (*dev_attr)(int *, CUdevice_attribute, CUdevice);
	CUresult (*mod_load)(CUmodule *, const void *);
	CUresult (*mod_fn)(CUfunction *, CUmodule, const char *);
	CUresult (*mem_alloc)(CUdeviceptr *, size_t);
	CUresult (*memset8)(CUdeviceptr, unsigned char, size_t);
	CUresult (*err_string)(CUresult, const char **);
	CUresult (*mem_info)(size_t *, size_t *); /* optional: a batch's memory bound */
	/* optional (CUDA 12.4 on): a kept launch's argument sizes */
	CUresult (*func_param_info)(CUfunction, size_t, size_t *, size_t *);
	CUresult (*kernel_param_info)(CUkernel, size_t, size_t *, size_t *);
	ckpt_fn save, restore, free;
} drv;
static int g_loaded; /* 0 not tried, 1 loaded, -1 failed */
static char g_load_why[256];
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static void *sym(void *h, const char *name, int *missing)
{
	void *p = dlsym(h, name);
	if (!p && !*missing) {
		*missing = 1;
		snprintf(g_load_why, sizeof(g_load_why), "%s not found", name);
	}
	return p;
}

#define SYM(h, field, name) (*(void **)&drv.field = sym(h, name, &missing))

/* ---- the worker thread
 *
 * The passes run on a thread of gpudiag's own, in no CUPTI callback and in no driver call,
 * while the program's thread waits in its launch's exit callback: the arrangement checked on
 * an H100 to give ncu's values for every metric, the SASS-patched ones included
 * (tests/gpu/metrics/replay_probe.cu, user-cb, 2026-12-06; passes made inside the callback
 * itself were only ever tried with CUPTI's kernel records on, which alone zeroes those
 * metrics: rangeprof.h, gd_inj_kernels_pause). One job at a time (the caller holds the
 * profiling session's lock); the thread lives until the process ends, blocking every signal so
 * that the program's own handlers never run on it. */
static pthread_mutex_t g_wk_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_wk_cv = PTHREAD_COND_INITIALIZER;
static void (*g_wk_fn)(void *);
static void *g_wk_arg;
static unsigned long g_wk_posted, g_wk_done;
static int g_wk_state; /* 0 not started, 1 running (started by gd_replay_load) */
static pid_t g_wk_pid;  /* the process that started it */

static void *worker(void *unused)
{
	(void)unused;
	pthread_mutex_lock(&g_wk_mu);
	for (;;) {
		while (g_wk_done == g_wk_posted)
			pthread_cond_wait(&g_wk_cv, &g_wk_mu);
		void (*fn)(void *) = g_wk_fn;
		void *arg = g_wk_arg;
		pthread_mutex_unlock(&g_wk_mu);
		fn(arg);
		pthread_mutex_lock(&g_wk_mu);
		g_wk_done = g_wk_posted;
		pthread_cond_broadcast(&g_wk_cv);
	}
	return NULL;
}

/* Once, from load_once: 0, or -1 (user replay is then unavailable and kernel replay is used). */
static int worker_start(void)
{
	pthread_t t;
	pthread_attr_t a;
	sigset_t all, old;
	int rc;
	if (pthread_attr_init(&a) != 0)
		return -1;
	pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old); /* the thread inherits the full mask */
	rc = pthread_create(&t, &a, worker, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&a);
	if (rc != 0)
		return -1;
	g_wk_state = 1, g_wk_pid = getpid();
	return 0;
}

int gd_worker_call(void (*fn)(void *), void *arg)
{
	pthread_mutex_lock(&g_wk_mu);
	if (g_wk_state <= 0 || g_wk_pid != getpid()) { /* a fork's child has no such thread */
		pthread_mutex_unlock(&g_wk_mu);
		return -1;
	}
	g_wk_fn = fn, g_wk_arg = arg;
	g_wk_posted++;
	pthread_cond_broadcast(&g_wk_cv);
	while (g_wk_done != g_wk_posted)
		pthread_cond_wait(&g_wk_cv, &g_wk_mu);
	pthread_mutex_unlock(&g_wk_mu);
	return 0;
}

static void load_once(void)
{
	const char *cu = getenv("GPUDIAG_INJECT_LIBCUDA"), *ck = getenv("GPUDIAG_INJECT_LIBCHECKPOINT");
	void *h, *hc;
	int missing = 0;
	if (!cu || !*cu)
		cu = "libcuda.so.1";
	if (!ck || !*ck)
		ck = "libcheckpoint.so";
	/* the driver the program loaded; never a second copy */
	h = dlopen(cu, RTLD_NOW | RTLD_NOLOAD);
	if (!h) {
		snprintf(g_load_why, sizeof(g_load_why), "the CUDA driver (%s) is not loaded in this process", cu);
		g_loaded = -1;
		return;
	}
	SYM(h, launch, "cuLaunchKernel");
	SYM(h, launch_ptsz, "cuLaunchKernel_ptsz");
	SYM(h, launch_ex, "cuLaunchKernelEx");
	SYM(h, launch_ex_ptsz, "cuLaunchKernelEx_ptsz");
	SYM(h, ctx_sync, "cuCtxSynchronize");
	SYM(h, ctx_get_current, "cuCtxGetCurrent");
	SYM(h, ctx_push, "cuCtxPushCurrent_v2");
	SYM(h, ctx_pop, "cuCtxPopCurrent_v2");
	SYM(h, ctx_get_device, "cuCtxGetDevice");
	SYM(h, dev_attr, "cuDeviceGetAttribute");
	SYM(h, mod_load, "cuModuleLoadData");
	SYM(h, mod_fn, "cuModuleGetFunction");
	SYM(h, mem_alloc, "cuMemAlloc_v2");
	SYM(h, memset8, "cuMemsetD8_v2");
	SYM(h, err_string, "cuGetErrorString");
	*(void **)&drv.mem_info = dlsym(h, "cuMemGetInfo_v2");
	*(void **)&drv.func_param_info = dlsym(h, "cuFuncGetParamInfo");
	*(void **)&drv.kernel_param_info = dlsym(h, "cuKernelGetParamInfo");
	if (missing) {
		g_loaded = -1;
		return;
	}
	/* libcheckpoint.so sits beside libcupti in the toolkit; the library's run path finds it */
	hc = dlopen(ck, RTLD_NOW | RTLD_LOCAL);
	if (!hc) {
		const char *e = dlerror();
		snprintf(g_load_why, sizeof(g_load_why), "CUPTI's checkpoint library could not be loaded (%s)",
			 e ? e : ck);
		g_loaded = -1;
		return;
	}
	SYM(hc, save, "cuptiCheckpointSave");
	SYM(hc, restore, "cuptiCheckpointRestore");
	SYM(hc, free, "cuptiCheckpointFree");
	if (missing) {
		g_loaded = -1;
		return;
	}
	if (getenv("GPUDIAG_INJECT_NO_REPLAY_THREAD") || worker_start() < 0) { /* the variable: a test's */
		snprintf(g_load_why, sizeof(g_load_why), "no thread for the replays could be started");
		g_loaded = -1;
		return;
	}
	g_loaded = 1;
}

int gd_replay_load(char *why, size_t n)
{
	pthread_once(&g_once, load_once);
	if (g_loaded > 0)
		return 0;
	snprintf(why, n, "%s", g_load_why);
	return -1;
}

const char *gd_cu_text(CUresult r)
{
	const char *s = NULL;
	if (!drv.err_string || drv.err_string(r, &s) != CUDA_SUCCESS || !s)
		return "unknown CUDA error";
	return s;
}

CUresult gd_ctx_sync(void) { return drv.ctx_sync(); }

CUresult gd_ctx_enter(CUcontext ctx, int *pushed)
{
	CUcontext cur = NULL;
	CUresult r;
	*pushed = 0;
	if ((r = drv.ctx_get_current(&cur)) != CUDA_SUCCESS)
		return r;
	if (cur == ctx || !ctx)
		return CUDA_SUCCESS;
	if ((r = drv.ctx_push(ctx)) == CUDA_SUCCESS)
		*pushed = 1;
	return r;
}

void gd_ctx_leave(int pushed)
{
	CUcontext c;
	if (pushed)
		drv.ctx_pop(&c);
}

/* ---- the L2 flush */

int gd_flush_setup(struct gd_flush *f, char *why, size_t n)
{
	CUdevice dev;
	int l2 = 0, sms = 0, major = 0;
	CUresult r;
	if ((r = drv.ctx_get_device(&dev)) != CUDA_SUCCESS ||
	    (r = drv.dev_attr(&l2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, dev)) != CUDA_SUCCESS ||
	    (r = drv.dev_attr(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev)) != CUDA_SUCCESS) {
		snprintf(why, n, "the L2 size could not be read: %s", gd_cu_text(r));
		return -1;
	}
	if (l2 <= 0) {
		snprintf(why, n, "the driver gives no L2 size");
		return -1;
	}
	/* twice the L2, in whole 128-byte lines (read in 16-byte words, discarded by line) */
	f->bytes = ((size_t)l2 * 2 + 127) & ~(size_t)127;
	f->blocks = (unsigned)(sms > 0 ? sms * 8 : 256);
	/* sm_80 on: the PTX with the discard (l2flush.cu says why); a major version the driver
	 * does not give counts as older */
	if (drv.dev_attr(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev) != CUDA_SUCCESS)
		major = 0;
	if ((r = drv.mod_load(&f->mod, major >= 8 ? gd_l2flush80_ptx : gd_l2flush_ptx)) != CUDA_SUCCESS) {
		snprintf(why, n, "the L2-flush kernel could not be loaded: %s", gd_cu_text(r));
		return -1;
	}
	f->discard = NULL;
	if (major >= 8 && (r = drv.mod_fn(&f->discard, f->mod, GD_L2_DISCARD_KERNEL)) != CUDA_SUCCESS) {
		snprintf(why, n, "the L2 discard kernel could not be found: %s", gd_cu_text(r));
		return -1;
	}
	if ((r = drv.mod_fn(&f->fn, f->mod, GD_L2_FLUSH_KERNEL)) != CUDA_SUCCESS ||
	    (r = drv.mem_alloc(&f->buf, f->bytes)) != CUDA_SUCCESS) {
		snprintf(why, n, "the L2 flush could not be set up (%zu MB of device memory): %s", f->bytes >> 20,
			 gd_cu_text(r));
		return -1;
	}
	/* zeroed once, so the kernel's never-taken store stays untaken (l2flush.cu) */
	if ((r = drv.memset8(f->buf, 0, f->bytes)) != CUDA_SUCCESS || (r = drv.ctx_sync()) != CUDA_SUCCESS) {
		snprintf(why, n, "the L2-flush buffer could not be cleared: %s", gd_cu_text(r));
		return -1;
	}
	f->state = 1;
	return 0;
}

CUresult gd_flush_run(const struct gd_flush *f)
{
	unsigned long long words = f->bytes / 16;
	CUdeviceptr sink = f->buf; /* its own first word: a store there harms nothing */
	unsigned long long lines = f->bytes / 128;
	void *args[] = {(void *)&f->buf, &words, &sink};
	void *dargs[] = {(void *)&f->buf, &lines};
	CUresult r = drv.launch(f->fn, f->blocks, 1, 1, 256, 1, 1, 0, NULL, args, NULL);
	if (r == CUDA_SUCCESS && f->discard) /* same stream: after the read */
		r = drv.launch(f->discard, f->blocks, 1, 1, 256, 1, 1, 0, NULL, dargs, NULL);
	return r == CUDA_SUCCESS ? drv.ctx_sync() : r;
}

/* ---- the checkpoint */

size_t gd_ckpt_host_reserve_mb(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
	size_t mb = pages > 0 && page > 0 ? ((size_t)pages * (size_t)page >> 20) / GD_CHECKPOINT_HOST_RESERVE_SHARE : 0;
	return mb > GD_CHECKPOINT_HOST_RESERVE_MIN_MB ? mb : GD_CHECKPOINT_HOST_RESERVE_MIN_MB;
}

CUptiResult gd_ckpt_save(struct gd_ckpt *k, CUcontext ctx)
{
	struct gd_cupti_checkpoint *c = k->priv;
	CUptiResult r;
	if (!c) {
		if (!(c = calloc(1, sizeof(*c))))
			return CUPTI_ERROR_OUT_OF_MEMORY;
		k->priv = c;
	}
	memset(c, 0, sizeof(*c));
	c->structSize = GD_CHECKPOINT_STRUCT_SIZE;
	c->ctx = ctx;
	c->reserveDeviceMB = GD_CHECKPOINT_RESERVE_MB;
	c->reserveHostMB = gd_ckpt_host_reserve_mb();
	c->allowOverwrite = 1;
	/* no optimisation: with CUPTI_CHECKPOINT_OPT_TRANSFER (restore only the blocks that
	 * changed) every profiled launch failed on an H100 (2026-12-06) */
	r = drv.save(c);
	k->saved = r == CUPTI_SUCCESS;
	return r;
}

size_t gd_ckpt_reserve(void) { return (size_t)GD_CHECKPOINT_RESERVE_MB << 20; }

CUresult gd_mem_info(size_t *free, size_t *total)
{
	size_t t = 0;
	*free = 0;
	if (total)
		*total = 0;
	return drv.mem_info ? drv.mem_info(free, total ? total : &t) : CUDA_ERROR_NOT_SUPPORTED;
}

CUptiResult gd_ckpt_restore(struct gd_ckpt *k)
{
	return k->saved ? drv.restore(k->priv) : CUPTI_ERROR_NOT_INITIALIZED;
}

void gd_ckpt_free(struct gd_ckpt *k)
{
	if (k->saved)
		drv.free(k->priv);
	k->saved = 0;
	free(k->priv);
	k->priv = NULL;
}

/* ---- the launch again */

CUresult gd_replay_launch(CUpti_CallbackId cbid, const void *params)
{
	switch (cbid) {
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz: {
		const cuLaunchKernel_params *p = params;
		return (cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel ? drv.launch : drv.launch_ptsz)(
			p->f, p->gridDimX, p->gridDimY, p->gridDimZ, p->blockDimX, p->blockDimY, p->blockDimZ,
			p->sharedMemBytes, p->hStream, p->kernelParams, p->extra);
	}
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz: {
		/* the _ptsz parameters have the same layout */
		const cuLaunchKernelEx_params *p = params;
		return (cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx ? drv.launch_ex : drv.launch_ex_ptsz)(
			p->config, p->f, p->kernelParams, p->extra);
	}
	default: return CUDA_ERROR_NOT_SUPPORTED;
	}
}

/* ---- a launch kept for later */

/* Argument i's offset and size in the function's argument list, by the entry point that knows
 * the handle: a CUfunction, or the runtime's CUkernel handle passed as one. */
static CUresult param_info(CUfunction f, size_t i, size_t *off, size_t *size)
{
	CUresult r = drv.func_param_info ? drv.func_param_info(f, i, off, size) : CUDA_ERROR_NOT_SUPPORTED;
	if (r != CUDA_SUCCESS && r != CUDA_ERROR_INVALID_VALUE && drv.kernel_param_info)
		r = drv.kernel_param_info((CUkernel)(void *)f, i, off, size);
	return r;
}

int gd_relaunch_copy(struct gd_relaunch *r, CUpti_CallbackId cbid, const void *params, char *why, size_t n)
{
	void **args, **extra;
	size_t count = 0, total = 0, off, size;
	CUresult cr;
	memset(r, 0, sizeof(*r));
	r->cbid = cbid;
	switch (cbid) {
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz: {
		const cuLaunchKernel_params *p = params;
		r->f = p->f, r->smem = p->sharedMemBytes, r->stream = p->hStream;
		r->grid[0] = p->gridDimX, r->grid[1] = p->gridDimY, r->grid[2] = p->gridDimZ;
		r->block[0] = p->blockDimX, r->block[1] = p->blockDimY, r->block[2] = p->blockDimZ;
		args = p->kernelParams, extra = p->extra;
		break;
	}
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz: {
		const cuLaunchKernelEx_params *p = params; /* the _ptsz parameters have the same layout */
		if (!p->config) {
			snprintf(why, n, "a launch without its configuration");
			return -1;
		}
		r->f = p->f, r->config = *p->config;
		if (r->config.numAttrs) {
			r->attrs = malloc(r->config.numAttrs * sizeof(*r->attrs));
			if (!r->attrs || !p->config->attrs) {
				snprintf(why, n, "%s", r->attrs ? "launch attributes without their list" : "out of memory");
				goto fail;
			}
			memcpy(r->attrs, p->config->attrs, r->config.numAttrs * sizeof(*r->attrs));
		}
		r->config.attrs = r->attrs;
		args = p->kernelParams, extra = p->extra;
		break;
	}
	default: snprintf(why, n, "not a kernel launch the replay can make again"); return -1;
	}
	if (extra) {
		snprintf(why, n, "arguments passed through 'extra' are not kept for a later replay");
		goto fail;
	}
	/* the argument list's layout, from the driver */
	while ((cr = param_info(r->f, count, &off, &size)) == CUDA_SUCCESS) {
		if (off + size > total)
			total = off + size;
		if (++count > 4096)
			break;
	}
	if (cr != CUDA_ERROR_INVALID_VALUE || count > 4096) {
		snprintf(why, n, "the kernel's argument sizes are unknown (%s)",
			 count > 4096 ? "over 4096 arguments" : drv.func_param_info ? gd_cu_text(cr)
											: "no cuFuncGetParamInfo in this driver");
		goto fail;
	}
	if (count && !args) {
		snprintf(why, n, "a kernel with %zu arguments launched without them", count);
		goto fail;
	}
	if (count) {
		r->params = calloc(count, sizeof(*r->params));
		r->args = malloc(total ? total : 1);
		if (!r->params || !r->args) {
			snprintf(why, n, "out of memory");
			goto fail;
		}
		for (size_t i = 0; i < count; i++) {
			if (param_info(r->f, i, &off, &size) != CUDA_SUCCESS || !args[i]) {
				snprintf(why, n, "argument %zu of the kernel could not be read", i);
				goto fail;
			}
			memcpy(r->args + off, args[i], size);
			r->params[i] = r->args + off;
		}
	}
	r->nparams = count;
	return 0;
fail:
	gd_relaunch_free(r);
	return -1;
}

CUresult gd_relaunch_run(const struct gd_relaunch *r)
{
	switch (r->cbid) {
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz:
		return (r->cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel ? drv.launch : drv.launch_ptsz)(
			r->f, r->grid[0], r->grid[1], r->grid[2], r->block[0], r->block[1], r->block[2], r->smem,
			r->stream, r->params, NULL);
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz:
		return (r->cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx ? drv.launch_ex : drv.launch_ex_ptsz)(
			&r->config, r->f, r->params, NULL);
	default: return CUDA_ERROR_NOT_SUPPORTED;
	}
}

void gd_relaunch_free(struct gd_relaunch *r)
{
	free(r->attrs);
	free(r->params);
	free(r->args);
	memset(r, 0, sizeof(*r));
}
