/* CPU-tier test of libgpudiag_inject.so against a fake libcupti (fake_cupti.c): a child
 * process loads the library as the driver would, gets synthetic CUPTI records delivered
 * through its buffer callbacks (one periodic flush, one at exit), forks a child that exits
 * without exec (it must not flush), and exits; the parent merges the raw file with the real
 * writer and checks every field that matters. Also: another CUPTI subscriber present
 * (cupti_busy) and a different libcupti version (cupti_version) → unprofiled, said so.
 * Range profiling (GPUDIAG_METRICS, rangeprof.c): a child makes a fixed sequence of launches
 * (rp_seq) through the fake's launch callbacks under each configuration; the parent reads the
 * KLAUNCH/KREJECT records straight from the raw file and checks status, nth, passes,
 * correlation, device, context and every value (the fake's values say which decode made them).
 * usage: inject_check INJECT_SO FAKE_CUPTI_DIR
 *        inject_check bench INJECT_SO FAKE_CUPTI_DIR  (not a test: prints the CPU cost per
 *        record of the buffer-completed callback, kernel + runtime API records) */
#include "core/status.h"
#include "core/test.h"
#include "profile/kc_metrics.h"
#include "profile/raw.h"
#include "profile/writer.h"

#include <cupti.h>
#include <dirent.h>
#include <dlfcn.h>
#include "profile/test_sql.h"

#include <pthread.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define T0 1800000000000000000ull
static char gate_end[64];
static const char hostile[] = "_Z6kernelIiEvPKc<\"&\n\xff";

static double mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The callback path's CPU cost: rounds of (kernel + cudaLaunchKernel API) record pairs, 64
 * distinct kernel names of 300 characters (PyTorch-like templated names), delivered by one
 * flush per round, as CUPTI's worker thread would. Prints ns per record (min over rounds). */
static int bench(void (*emit)(const void *, size_t), CUptiResult (*flush)(uint32_t))
{
	enum { NAMES = 64, PAIRS = 12000, ROUNDS = 30 }; /* fits a 4 MB buffer too */
	static char names[NAMES][301];
	double best = 1e30, t;
	uint64_t ts = T0;
	for (int n = 0; n < NAMES; n++) {
		memset(names[n], 'a' + n % 26, 300);
		memcpy(names[n], "_ZN2at6native", 13);
		snprintf(names[n] + 280, 21, "_kernel_%06d_v", n);
		names[n][300] = 0;
	}
	for (int r = 0; r < ROUNDS; r++) {
		for (int i = 0; i < PAIRS; i++) {
			CUpti_ActivityKernel10 k;
			CUpti_ActivityAPI a;
			memset(&a, 0, sizeof(a));
			a.kind = CUPTI_ACTIVITY_KIND_RUNTIME, a.cbid = 211, a.start = ts, a.end = ts + 2000;
			a.threadId = 42, a.correlationId = (uint32_t)i;
			emit(&a, sizeof(a));
			memset(&k, 0, sizeof(k));
			k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, k.start = ts + 3000, k.end = ts + 4000;
			k.contextId = 1, k.streamId = 7, k.correlationId = (uint32_t)i, k.name = names[i % NAMES];
			k.gridX = k.gridY = k.gridZ = k.blockX = k.blockY = k.blockZ = 1;
			emit(&k, sizeof(k));
			ts += 5000;
		}
		t = mono();
		flush(0);
		t = mono() - t;
		if (t < best)
			best = t;
	}
	printf("inject bench: %d records per flush (%d kernels + %d runtime API), %d rounds: "
	       "%.1f ns per record (min over rounds; callback path incl. write(2))\n",
	       2 * PAIRS, PAIRS, PAIRS, ROUNDS, best * 1e9 / (2.0 * PAIRS));
	{
		/* the application thread's cost of one traced API call (enter + exit callbacks,
		 * timestamps from the fake, the per-thread buffer; draining included) */
		uint32_t (*call)(int, uint32_t, int, void (*)(void)) =
			(uint32_t(*)(int, uint32_t, int, void (*)(void)))dlsym(RTLD_DEFAULT, "fake_cupti_call");
		enum { CALLS = 1000000 };
		if (!call || !call(0, 211, 0, NULL))
			return 1;
		best = 1e30;
		for (int r = 0; r < 5; r++) {
			t = mono();
			for (int i = 0; i < CALLS; i++)
				call(0, 211, 0, NULL);
			t = mono() - t;
			best = t < best ? t : best;
		}
		printf("inject bench: %.1f ns per traced API call on the application's thread "
		       "(1 M cudaLaunchKernel callbacks through the fake, min of 5)\n", best * 1e9 / CALLS);
	}
	return 0;
}

static void nested_driver_launch(void)
{
	uint32_t (*call)(int, uint32_t, int, void (*)(void)) =
		(uint32_t(*)(int, uint32_t, int, void (*)(void)))dlsym(RTLD_DEFAULT, "fake_cupti_call");
	if (call)
		call(1, 307, 0, NULL);
}

/* ---- range profiling: the child's launches */

#define CTX_A ((uintptr_t)0x00001)  /* context id 1, device 0 (the fake's encoding) */
#define CTX_B ((uintptr_t)0x10002)  /* context id 2, device 1 */
#define RP_EXIT 40                  /* the child's own exit code, kept by the library */
enum { EX_NONE, EX_COOP, EX_OTHER };
static const struct {
	uint32_t cbid;
	const char *name;
	uintptr_t ctx;
	int runtime, ex;
} rp_seq[] = {
	{CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, "_Z4gemmPf", CTX_A, 1, EX_NONE},              /* 0 */
	{CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, "_Z4gemmPf", CTX_A, 1, EX_NONE},              /* 1 */
	{CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, "_Z4gemmPf", CTX_A, 1, EX_NONE},              /* 2 */
	{CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, "_Z4gemmPf", CTX_A, 1, EX_NONE},              /* 3 */
	{CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, "_Z4gemmPf", CTX_A, 1, EX_NONE},              /* 4 */
	{CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, "_Z4axpyfPfS_", CTX_A, 0, EX_NONE},           /* 5 */
	{CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, "_Z4axpyfPfS_", CTX_A, 0, EX_NONE},           /* 6 */
	{CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, "_Z4gridv", CTX_A, 0, EX_COOP},             /* 7 */
	{CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel, "_Z4gridv", CTX_A, 0, EX_NONE},    /* 8 */
	{CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch, NULL, CTX_A, 0, EX_NONE},                      /* 9 */
	{CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, "_Z23ncclDevKernel_AllReducev", CTX_A, 0, EX_NONE}, /* 10 */
	{CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz, "_Z4axpyfPfS_", CTX_B, 0, EX_OTHER},   /* 11 */
	{CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz, "_Z4gemmPf", CTX_A, 1, EX_NONE},         /* 12 */
	/* here context B is destroyed */
	{CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, "_Z4axpyfPfS_", CTX_A, 0, EX_NONE},           /* 13 */
};
#define RP_N ((int)(sizeof(rp_seq) / sizeof(rp_seq[0])))

/* The correlation id the kernel of launch i carries: the fake numbers each launch's runtime
 * and driver calls 500001 + 2i and 500002 + 2i; a runtime launch's kernel has the runtime's. */
static uint32_t rp_corr(int i) { return 500001u + 2u * (uint32_t)i + (rp_seq[i].runtime ? 0u : 1u); }

typedef uint32_t (*launch_fn)(uint32_t, const char *, uintptr_t, const void *, int);

static void *rp_thread(void *arg)
{
	launch_fn launch = (launch_fn)dlsym(RTLD_DEFAULT, "fake_cupti_launch");
	int t = (int)(intptr_t)arg;
	for (int i = 0; i < 60 && launch; i++) {
		char name[16];
		snprintf(name, sizeof(name), "_Z2k%dv", (i + t) % 10);
		launch(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, name, CTX_A, NULL, i % 2);
	}
	return NULL;
}

static int rp_child(void)
{
	launch_fn launch = (launch_fn)dlsym(RTLD_DEFAULT, "fake_cupti_launch");
	void (*destroy)(uintptr_t) = (void (*)(uintptr_t))dlsym(RTLD_DEFAULT, "fake_cupti_destroy_ctx");
	int (*calls)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "fake_cupti_rp_calls");
	int (*inside)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "fake_cupti_rp_launches");
	int (*disabled)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "fake_cupti_rp_disabled");
	char path[300];
	FILE *f;
	if (!launch || !destroy || !calls || !inside || !disabled)
		return 52;
	if (getenv("CHECK_RP_CAPTURE")) {
		/* stream captures: a launch while one is in progress is recorded into a graph, not
		 * run, and must not be profiled (the session would invalidate the capture); a begin
		 * that failed starts none; an end that found the capture invalidated ends it */
		uint32_t (*call)(int, uint32_t, int, void (*)(void)) =
			(uint32_t(*)(int, uint32_t, int, void (*)(void)))dlsym(RTLD_DEFAULT, "fake_cupti_call");
		const uint32_t L = CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel;
		if (!call)
			return 52;
		CHECK(call(1, CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2, CUDA_SUCCESS, NULL) != 0);
		launch(L, "_Z4gemmPf", CTX_A, NULL, 0);               /* captured */
		launch(L, "_Z4axpyfPfS_", CTX_A, NULL, 0);            /* captured */
		CHECK(call(1, CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture, CUDA_SUCCESS, NULL) != 0);
		launch(L, "_Z4gemmPf", CTX_A, NULL, 0);               /* profiled */
		call(1, CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2, CUDA_ERROR_INVALID_VALUE, NULL);
		launch(L, "_Z4gemmPf", CTX_A, NULL, 0);               /* profiled: no capture began */
		call(1, CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph_ptsz, CUDA_SUCCESS, NULL);
		launch(L, "_Z4gemmPf", CTX_A, NULL, 0);               /* captured */
		call(1, CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture_ptsz, CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, NULL);
		launch(L, "_Z4gemmPf", CTX_A, NULL, 0);               /* profiled: that capture is over */
		launch(L, "_Z4gemmPf", CTX_A, NULL, 0);               /* the 4th run: over the 3 per name */
	} else if (getenv("CHECK_RP_USER")) {
		/* user replay: three launches, each followed by its kernel record as CUPTI would
		 * give it (the launch's correlation id, a start after the launch began), then one
		 * synchronisation of the program's own; the replays', flushes' and syncs' records
		 * the fake gives must not reach the profile */
		void (*emit)(const void *, size_t) = (void (*)(const void *, size_t))dlsym(RTLD_DEFAULT, "fake_cupti_emit");
		CUptiResult (*ts)(uint64_t *) = (CUptiResult(*)(uint64_t *))dlsym(RTLD_DEFAULT, "cuptiGetTimestamp");
		void (*counts)(int *) = (void (*)(int *))dlsym(RTLD_DEFAULT, "fake_cupti_replay_counts");
		static const struct {
			uint32_t cbid;
			const char *name;
			int runtime;
		} u[] = {{CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, "_Z4gemmPf", 1},
			 {CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, "_Z4axpyfPfS_", 0},
			 {CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, "_Z4gemmPf", 1}};
		int rc[11];
		if (!emit || !ts || !counts)
			return 52;
		static uint64_t arg0;
		for (int i = 0; i < 3; i++) {
			static const void *args[1];
			cuLaunchKernel_params lp;
			if (getenv("CHECK_RP_ARG")) /* the kernel's one argument, which a batch must keep */
				arg0 = strtoull(getenv("CHECK_RP_ARG"), NULL, 10), args[0] = &arg0;
			CUpti_ActivityKernel10 k;
			memset(&lp, 0, sizeof(lp));
			lp.f = (CUfunction)(uintptr_t)(0x100 + i), lp.gridDimX = lp.gridDimY = lp.gridDimZ = 1;
			lp.blockDimX = lp.blockDimY = lp.blockDimZ = 1, lp.kernelParams = (void **)args;
			if (getenv("CHECK_RP_EXTRA")) { /* the arguments as one buffer through `extra` */
				static void *extra[] = {CU_LAUNCH_PARAM_END};
				lp.kernelParams = NULL, lp.extra = extra;
			}
			memset(&k, 0, sizeof(k));
			k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
			if (getenv("CHECK_RP_EX") && i == 1) {
				/* cuLaunchKernelEx with a priority: its configuration and attribute are
				 * the program's, scribbled over after the call (static: the stores stay),
				 * so a later replay must use its own copy */
				static CUlaunchAttribute attr;
				static CUlaunchConfig lc;
				cuLaunchKernelEx_params ex;
				memset(&attr, 0, sizeof(attr));
				memset(&lc, 0, sizeof(lc));
				attr.id = CU_LAUNCH_ATTRIBUTE_PRIORITY, attr.value.priority = 7;
				lc.gridDimX = lc.gridDimY = lc.gridDimZ = lc.blockDimX = lc.blockDimY = lc.blockDimZ = 1;
				lc.attrs = &attr, lc.numAttrs = 1;
				ex.config = &lc, ex.f = lp.f, ex.kernelParams = (void **)args, ex.extra = NULL;
				k.correlationId = launch(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, u[i].name, CTX_A, &ex, 0);
				attr.value.priority = 0, lc.numAttrs = 0, lc.attrs = NULL;
			} else {
				k.correlationId = launch(u[i].cbid, u[i].name, CTX_A, &lp, u[i].runtime);
			}
			if (getenv("FAKE_CUPTI_NESTED_CORR") && !strcmp(getenv("FAKE_CUPTI_NESTED_CORR"), "2"))
				k.correlationId += u[i].runtime; /* the driver call's id (the fake's pairs) */
			ts(&k.start);
			if (getenv("CHECK_RP_USER_SKEW"))
				k.start = 5; /* a GPU clock behind the host's: the program's kernel seems to
					      * begin before its replays; the count tells them apart */
			k.end = k.start + 5;
			k.name = u[i].name, k.contextId = 1, k.streamId = 7;
			k.gridX = k.gridY = k.gridZ = k.blockX = k.blockY = k.blockZ = 1;
			emit(&k, sizeof(k));
		}
		if (getenv("CHECK_RP_SYNC") && !strcmp(getenv("CHECK_RP_SYNC"), "1")) {
			/* the program waits for its work (a batch's passes run first) */
			CUresult (*sync)(void) = (CUresult(*)(void))dlsym(RTLD_DEFAULT, "cuCtxSynchronize");
			if (!sync || sync() != CUDA_SUCCESS)
				return 53;
		} else if (getenv("CHECK_RP_SYNC")) {
			/* copy: the program copies its results back (a synchronous copy: a batch's
			 * passes run first); alloc: it allocates (the batch's checkpoints must not be
			 * in the way: its passes run first); async: an asynchronous copy, which leaves a
			 * batch waiting */
			uint32_t (*call)(int, uint32_t, int, void (*)(void)) =
				(uint32_t(*)(int, uint32_t, int, void (*)(void)))dlsym(RTLD_DEFAULT, "fake_cupti_call");
			if (!call)
				return 53;
			const char *how = getenv("CHECK_RP_SYNC");
			call(1,
			     !strcmp(how, "copy")    ? CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2
			     : !strcmp(how, "alloc") ? CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2
						     : CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2,
			     CUDA_SUCCESS, NULL);
		}
		{
			CUpti_ActivitySynchronization2 y;
			memset(&y, 0, sizeof(y));
			y.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
			y.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE;
			ts(&y.start);
			y.end = y.start + 5, y.correlationId = 999, y.contextId = 1;
			emit(&y, sizeof(y));
		}
		counts(rc);
		snprintf(path, sizeof(path), "%s/fake_replay", getenv("GPUDIAG_RAW_DIR"));
		if ((f = fopen(path, "w"))) {
			fprintf(f, "%d %d %d %d %d %d %d %d %d %d %d\n", rc[0], rc[1], rc[2], rc[3], rc[4], rc[5], rc[6],
				rc[7], rc[8], rc[9], rc[10]);
			fclose(f);
		}
	} else if (getenv("CHECK_RP_THREADS")) {
		pthread_t th[4];
		for (int t = 0; t < 4; t++)
			CHECK_INT(pthread_create(&th[t], NULL, rp_thread, (void *)(intptr_t)t), 0);
		for (int t = 0; t < 4; t++)
			pthread_join(th[t], NULL);
	} else {
		for (int i = 0; i < RP_N; i++) {
			CUlaunchAttribute attr;
			CUlaunchConfig lc;
			cuLaunchKernelEx_params ex;
			memset(&attr, 0, sizeof(attr));
			memset(&lc, 0, sizeof(lc));
			attr.id = rp_seq[i].ex == EX_COOP ? CU_LAUNCH_ATTRIBUTE_COOPERATIVE : CU_LAUNCH_ATTRIBUTE_PRIORITY;
			attr.value.cooperative = 1; /* the priority of EX_OTHER shares the union */
			lc.attrs = &attr, lc.numAttrs = 1;
			ex.config = &lc, ex.f = NULL, ex.kernelParams = NULL, ex.extra = NULL;
			CHECK_INT(launch(rp_seq[i].cbid, rp_seq[i].name, rp_seq[i].ctx, rp_seq[i].ex ? &ex : NULL,
					 rp_seq[i].runtime),
				  rp_corr(i));
			if (i == 12)
				destroy(CTX_B);
		}
	}
	/* what the fake saw, for the parent: profiler calls, launches inside a session, Disables */
	snprintf(path, sizeof(path), "%s/fake_counts", getenv("GPUDIAG_RAW_DIR"));
	f = fopen(path, "w");
	CHECK(f != NULL);
	if (f) {
		fprintf(f, "%d %d %d\n", calls(), inside(), disabled());
		fclose(f);
	}
	return gd_t_fail ? 53 : RP_EXIT; /* exit(): the library's exit handler runs */
}

static int child(const char *inject)
{
	void *h = dlopen(inject, RTLD_NOW | RTLD_GLOBAL);
	int (*init)(void), (*nvtx)(const void *), (*api_enabled)(void), (*nvtx_called)(void);
	void (*emit)(const void *, size_t), (*drop)(size_t);
	CUptiResult (*flush)(uint32_t);
	if (!h) {
		fprintf(stderr, "dlopen: %s\n", dlerror());
		return 50;
	}
	init = (int (*)(void))dlsym(h, "InitializeInjection");
	nvtx = (int (*)(const void *))dlsym(h, "InitializeInjectionNvtx2");
	emit = (void (*)(const void *, size_t))dlsym(RTLD_DEFAULT, "fake_cupti_emit");
	drop = (void (*)(size_t))dlsym(RTLD_DEFAULT, "fake_cupti_drop");
	flush = (CUptiResult(*)(uint32_t))dlsym(RTLD_DEFAULT, "cuptiActivityFlushAll");
	api_enabled = (int (*)(void))dlsym(RTLD_DEFAULT, "fake_cupti_api_enabled");
	nvtx_called = (int (*)(void))dlsym(RTLD_DEFAULT, "fake_cupti_nvtx_called");
	if (!init || !nvtx || !emit || !flush || !drop || !api_enabled || !nvtx_called)
		return 51;
	CHECK_INT(init(), 1);
	CHECK_INT(nvtx(NULL), 1);
	CHECK_INT(nvtx_called(), 1);
	if (getenv("CHECK_RP"))
		return gd_t_fail ? 54 : rp_child();
	if (getenv("FAKE_CUPTI_BUSY") || getenv("FAKE_CUPTI_VERSION"))
		return gd_t_fail;
	if (getenv("GPUDIAG_CAPTURE_START_NS")) { /* --delay 0.4 --duration 0.6 */
		int (*on)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "fake_cupti_kernel_enabled");
		CHECK_INT(on(), 0);
		usleep(700000);
		CHECK_INT(on(), 1);
		usleep(800000);
		CHECK_INT(on(), 0);
		return gd_t_fail;
	}
	CHECK(api_enabled() >= 2); /* the subset: cudaLaunchKernel and cudaMemcpy of the fake */
	{
		int (*lat)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "fake_cupti_latency_enabled");
		int (*kind)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "fake_cupti_api_kind_enabled");
		CHECK(lat && kind);
		if (lat && kind) {
			/* latency timestamps only with GPUDIAG_LATENCY=1 (gpudiag run --latency); the
			 * subset is enabled per cbid, never as the whole RUNTIME/DRIVER kind */
			CHECK_INT(lat(), getenv("GPUDIAG_LATENCY") ? 1 : 0);
			CHECK_INT(kind(), 0);
		}
	}
	if (getenv("INJECT_BENCH"))
		return bench(emit, flush);
	if (getenv("CHECK_CALLBACKS")) {
		/* API calls through the callback path: a runtime launch with its nested driver
		 * launch (one record), a driver launch of its own, a failing cudaMemcpy, a VMM
		 * allocation (cuMemCreate: memory_pressure checks it against the allocation records),
		 * and a call outside the subset (its callback is never enabled) */
		uint32_t (*call)(int, uint32_t, int, void (*)(void)) =
			(uint32_t(*)(int, uint32_t, int, void (*)(void)))dlsym(RTLD_DEFAULT, "fake_cupti_call");
		CHECK(call != NULL);
		if (call) {
			CHECK(call(0, 211, 0, nested_driver_launch) > 0);
			CHECK(call(1, 307, 0, NULL) > 0);
			CHECK(call(0, 31, 2, NULL) > 0);
			CHECK(call(1, CUPTI_DRIVER_TRACE_CBID_cuMemCreate, 0, NULL) > 0);
			CHECK_INT((int)call(0, 5, 0, NULL), 0);
		}
	}
	{
		CUpti_ActivityDevice5 d;
		CUpti_ActivityContext3 c;
		CUpti_ActivityStream s;
		memset(&d, 0, sizeof(d));
		d.kind = CUPTI_ACTIVITY_KIND_DEVICE, d.id = 0, d.numMultiprocessors = 132, d.computeCapabilityMajor = 9;
		d.numThreadsPerWarp = 32, d.maxWarpsPerMultiprocessor = 64, d.name = "Fake H200";
		for (int i = 0; i < 16; i++)
			d.uuid.bytes[i] = (char)(0x10 + i);
		emit(&d, sizeof(d));
		memset(&c, 0, sizeof(c));
		c.kind = CUPTI_ACTIVITY_KIND_CONTEXT, c.contextId = 1, c.deviceId = 0, c.nullStreamId = 7;
		emit(&c, sizeof(c));
		memset(&s, 0, sizeof(s));
		s.kind = CUPTI_ACTIVITY_KIND_STREAM, s.contextId = 1, s.streamId = 7, s.flag = CUPTI_ACTIVITY_STREAM_CREATE_FLAG_NULL;
		emit(&s, sizeof(s));
	}
	for (int i = 0; i < 3; i++) {
		CUpti_ActivityKernel10 k;
		CUpti_ActivityAPI a;
		char *name = malloc(64); /* a fresh pointer each time: interning is by content */
		snprintf(name, 64, "%s", i == 2 ? hostile : "_ZN2ns3fooEv");
		memset(&a, 0, sizeof(a));
		a.kind = CUPTI_ACTIVITY_KIND_RUNTIME, a.cbid = 211, a.start = T0 + i * 10000ull, a.end = a.start + 2000;
		a.processId = (uint32_t)getpid(), a.threadId = 42, a.correlationId = (uint32_t)(100 + i);
		emit(&a, sizeof(a));
		memset(&k, 0, sizeof(k));
		k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, k.start = T0 + i * 10000ull + 3000, k.end = k.start + 1500;
		k.queued = k.start - 2500, k.submitted = k.start - 1000;
		k.deviceId = 0, k.contextId = 1, k.streamId = 7, k.correlationId = (uint32_t)(100 + i);
		k.gridX = 120, k.gridY = k.gridZ = 1, k.blockX = 256, k.blockY = k.blockZ = 1, k.registersPerThread = 40;
		k.staticSharedMemory = 1024, k.dynamicSharedMemory = 2048, k.name = name, k.launchType = 1;
		emit(&k, sizeof(k));
	}
	{
		CUpti_ActivityMemcpy6 m;
		CUpti_ActivityMarker2 mk;
		CUpti_ActivitySynchronization2 y;
		memset(&m, 0, sizeof(m));
		m.kind = CUPTI_ACTIVITY_KIND_MEMCPY, m.copyKind = 1, m.srcKind = 1, m.dstKind = 3, m.bytes = 1 << 20;
		m.start = T0 + 50000, m.end = T0 + 60000, m.contextId = 1, m.streamId = 7, m.correlationId = 200;
		emit(&m, sizeof(m));
		memset(&mk, 0, sizeof(mk));
		mk.kind = CUPTI_ACTIVITY_KIND_MARKER, mk.flags = CUPTI_ACTIVITY_FLAG_MARKER_START, mk.id = 9;
		mk.timestamp = T0, mk.objectKind = CUPTI_ACTIVITY_OBJECT_THREAD, mk.objectId.pt.threadId = 42;
		mk.name = "step", mk.domain = NULL;
		emit(&mk, sizeof(mk));
		mk.flags = CUPTI_ACTIVITY_FLAG_MARKER_END, mk.timestamp = T0 + 40000, mk.name = NULL;
		emit(&mk, sizeof(mk));
		memset(&y, 0, sizeof(y));
		y.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, y.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE;
		y.start = T0 + 40000, y.end = T0 + 45000, y.contextId = 1, y.streamId = 0xFFFFFFFFu, y.correlationId = 300;
		emit(&y, sizeof(y));
	}
	drop(5);
	flush(0); /* what the periodic thread does */
	{
		CUpti_ActivityKernel10 k;
		memset(&k, 0, sizeof(k));
		k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, k.start = T0 + 70000, k.end = T0 + 71000;
		k.contextId = 1, k.streamId = 7, k.correlationId = 400, k.name = "last_kernel_flushed_at_exit";
		emit(&k, sizeof(k));
	}
	fflush(NULL);
	{
		pid_t p = fork();
		int st;
		if (p == 0)
			exit(0); /* inherited exit handler: must not flush */
		waitpid(p, &st, 0);
		CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
	return gd_t_fail; /* exit(): the library's exit handler flushes the last kernel */
}


/* Runs the child with the environment `extra` (NULL-terminated "NAME=value" list), checks it
 * exited with `want`, merges its raw files into dir/p.sqlite; returns the number of raw files. */
static int run_env(const char *self, const char *inject, const char *fake, const char *const *extra, int want,
		   char *dir, char *db)
{
	pid_t p;
	int st, nraw = 0;
	struct gd_pw *w;
	DIR *d;
	struct dirent *de;
	strcpy(dir, "/tmp/gd_inject_check.XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	p = fork();
	if (p == 0) {
		setenv("GPUDIAG_RAW_DIR", dir, 1);
		setenv("LD_LIBRARY_PATH", fake, 1);
		for (int i = 0; extra && extra[i]; i++) {
			if (!strcmp(extra[i], "GPUDIAG_INJECT_DEBUG=1")) { /* its lines kept in DIR/stderr */
				char path[600];
				snprintf(path, sizeof(path), "%s/stderr", dir);
				if (!freopen(path, "w", stderr))
					_exit(61);
			}
			putenv((char *)extra[i]);
			if (gate_end[0] && !strncmp(extra[i], "GPUDIAG_CAPTURE_START_NS=", 25))
				putenv(gate_end);
		}
		execl(self, self, "child", inject, (char *)NULL);
		_exit(60);
	}
	waitpid(p, &st, 0);
	CHECK_INT(WIFEXITED(st) ? WEXITSTATUS(st) : 100 + WTERMSIG(st), want);
	sprintf(db, "%s/p.sqlite", dir);
	if (gd_pw_open(&w, db))
		return -1;
	d = opendir(dir);
	while (d && (de = readdir(d))) {
		char path[600], err[256];
		struct gd_raw_stats rs;
		if (strncmp(de->d_name, "raw.", 4))
			continue;
		nraw++;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		CHECK_INT(gd_pw_add_raw(w, path, &rs, err, sizeof(err)), GD_OK);
		CHECK_INT(rs.truncated, 0);
	}
	closedir(d);
	gd_pw_capture(w, "all", 0, 1LL << 62, 0, 0);
	CHECK_INT(gd_pw_close(w, 1), GD_OK);
	return nraw;
}

static int run(const char *self, const char *inject, const char *fake, const char *extra, char *dir, char *db)
{
	const char *env[2] = {extra, NULL};
	return run_env(self, inject, fake, env, 0, dir, db);
}

static void remove_dir(const char *dir);

/* ---- the range profiler's records, read from the raw file itself */

struct kl {
	uint32_t status, nth, passes, corr, dev, ctx, nvalues, flags;
	uint64_t profile_ns;
	char name[64], detail[200], metric[4][32];
	double val[4];
};
struct rpsum {
	int nkl, nrej, calls, inside, disabled;
	int replay[11]; /* user replay (CHECK_RP_USER): the fake's fake_cupti_replay_counts */
	struct kl kl[64];
	char rej[8][2][200];
};

static void copy_str(char *dst, size_t n, char **strs, uint32_t nstr, uint32_t id)
{
	snprintf(dst, n, "%s", id && id < nstr && strs[id] ? strs[id] : "");
}

/* Reads dir's raw file(s) and fake_counts into s. */
static void read_rp(const char *dir, struct rpsum *s)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char path[600];
	FILE *f;
	memset(s, 0, sizeof(*s));
	s->calls = s->inside = s->disabled = -1;
	while (d && (de = readdir(d))) {
		static unsigned char buf[1 << 20];
		char *strs[512] = {0};
		size_t len, off = sizeof(struct gd_raw_header);
		if (strncmp(de->d_name, "raw.", 4))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		f = fopen(path, "rb");
		len = f ? fread(buf, 1, sizeof(buf), f) : 0;
		if (f)
			fclose(f);
		while (off + sizeof(struct gd_raw_rec) <= len) {
			struct gd_raw_rec r;
			memcpy(&r, buf + off, sizeof(r));
			if (r.size < sizeof(r) || off + r.size > len)
				break;
			if (r.type == GD_RAW_STRING) {
				struct gd_raw_string st;
				memcpy(&st, buf + off, sizeof(st));
				if (st.id < 512 && !strs[st.id])
					strs[st.id] = strndup((const char *)buf + off + sizeof(st), st.len);
			} else if (r.type == GD_RAW_KLAUNCH && s->nkl < 64) {
				struct gd_raw_klaunch k;
				struct kl *o = &s->kl[s->nkl++];
				memcpy(&k, buf + off, sizeof(k));
				CHECK_INT(r.size, sizeof(k) + k.nvalues * sizeof(struct gd_raw_kvalue));
				o->status = k.status, o->nth = k.nth, o->passes = k.passes, o->corr = k.correlation;
				o->dev = k.device, o->ctx = k.context, o->nvalues = k.nvalues, o->profile_ns = k.profile_ns;
				o->flags = k.flags;
				copy_str(o->name, sizeof(o->name), strs, 512, k.name);
				copy_str(o->detail, sizeof(o->detail), strs, 512, k.detail);
				for (uint32_t i = 0; i < k.nvalues && i < 4; i++) {
					struct gd_raw_kvalue v;
					memcpy(&v, buf + off + sizeof(k) + i * sizeof(v), sizeof(v));
					copy_str(o->metric[i], sizeof(o->metric[i]), strs, 512, v.metric);
					o->val[i] = v.value;
				}
			} else if (r.type == GD_RAW_KREJECT && s->nrej < 8) {
				struct gd_raw_kreject k;
				memcpy(&k, buf + off, sizeof(k));
				copy_str(s->rej[s->nrej][0], 200, strs, 512, k.metric);
				copy_str(s->rej[s->nrej][1], 200, strs, 512, k.reason);
				s->nrej++;
			}
			off += r.size;
		}
		for (int i = 0; i < 512; i++)
			free(strs[i]);
	}
	if (d)
		closedir(d);
	snprintf(path, sizeof(path), "%s/fake_counts", dir);
	if ((f = fopen(path, "r"))) {
		CHECK_INT(fscanf(f, "%d %d %d", &s->calls, &s->inside, &s->disabled), 3);
		fclose(f);
	}
	memset(s->replay, 0, sizeof(s->replay));
	snprintf(path, sizeof(path), "%s/fake_replay", dir);
	if ((f = fopen(path, "r"))) {
		CHECK_INT(fscanf(f, "%d %d %d %d %d %d %d %d %d %d %d", &s->replay[0], &s->replay[1], &s->replay[2],
				 &s->replay[3], &s->replay[4], &s->replay[5], &s->replay[6], &s->replay[7], &s->replay[8],
				 &s->replay[9], &s->replay[10]),
			  11);
		fclose(f);
	}
}

static const struct kl *kl_at(const struct rpsum *s, uint32_t corr)
{
	for (int i = 0; i < s->nkl; i++)
		if (s->kl[i].corr == corr)
			return &s->kl[i];
	return NULL;
}

static int kl_count(const struct rpsum *s, uint32_t status)
{
	int n = 0;
	for (int i = 0; i < s->nkl; i++)
		n += s->kl[i].status == status;
	return n;
}

/* Launch i of rp_seq was profiled: nth, passes, device/context and values (the fake's value
 * of metric "fake__mK.sum" in the d-th decode is 1000 d + K). ms: the K of each value. */
static void check_ok(const struct rpsum *s, int i, uint32_t nth, int decode, const int *ms, int nm)
{
	const struct kl *k = kl_at(s, rp_corr(i));
	CHECK(k != NULL);
	if (!k)
		return;
	CHECK_INT(k->status, GD_KL_OK);
	CHECK_STR(k->name, rp_seq[i].name);
	CHECK_INT(k->nth, nth);
	CHECK_INT(k->passes, 3);
	CHECK_INT(k->ctx, rp_seq[i].ctx & 0xffff);
	CHECK_INT(k->dev, rp_seq[i].ctx >> 16);
	CHECK(k->profile_ns > 0);
	CHECK_INT(k->nvalues, nm);
	for (int j = 0; j < nm && j < 4; j++) {
		char m[32];
		snprintf(m, sizeof(m), "fake__m%d.sum", ms[j]);
		CHECK_STR(k->metric[j], m);
		CHECK_NEAR(k->val[j], 1000.0 * decode + ms[j], 0);
	}
}

static void check_skip(const struct rpsum *s, int i, uint32_t status, const char *name, uint32_t nth)
{
	const struct kl *k = kl_at(s, rp_corr(i));
	CHECK(k != NULL);
	if (!k)
		return;
	CHECK_INT(k->status, status);
	CHECK_STR(k->name, name);
	CHECK_INT(k->nth, nth);
	CHECK_INT(k->passes, 0);
	CHECK_INT(k->nvalues, 0);
	CHECK(k->detail[0] != 0);
}

#define M3 "GPUDIAG_METRICS=fake__m1.sum, fake__m2.sum,fake__m3.sum,fake__m1.sum"

/* User replay (replay.c, the default --metrics-replay): the fake stands in for the driver and
 * CUPTI's checkpoint library. Per profiled launch of 3 passes: one save, the program's own
 * launch unprofiled, 3 replays after it on gpudiag's replay thread, none with CUPTI's kernel
 * records on, each after a restore (3 restores), 3 flushes (before every pass, none inside
 * one), one free. The profile holds the program's 3 kernels and its 1 sync only, none of the
 * replay's API calls and not the WaitNs kernel the fake's Enable runs with the first profiled
 * launch's id. With FAKE_CUPTI_NESTED_CORR the
 * replay's calls and records carry the launch's own
 * id (as CUPTI does inside a runtime launch call); with CHECK_RP_USER_SKEW as well, the
 * program's kernel record also seems to begin before the replays' (a skewed GPU clock); with
 * FAKE_CUPTI_NESTED_CORR=2 the replays' calls and records and the program's kernel record all
 * carry the program's driver call's id. Kernels are told by the replay window, not by ids. */
static void user_replay_checks(const char *self, const char *inject, const char *fake)
{
	static char cu[300], ck[300];
	char dir[64], db[128];
	struct rpsum s;
	static const int m123[] = {1, 2, 3};
	/* the correlation ids of the child's three launches: the runtime call's, the driver's, the
	 * runtime's (fake_cupti_launch numbers them in pairs from 500001; the fake's own driver
	 * calls take ids in between) */
	snprintf(cu, sizeof(cu), "GPUDIAG_INJECT_LIBCUDA=%s/libcupti.so.13", fake);
	snprintf(ck, sizeof(ck), "GPUDIAG_INJECT_LIBCHECKPOINT=%s/libcupti.so.13", fake);
	for (int nested = 0; nested < 4; nested++) {
		const char *env[] = {"CHECK_RP=1", "CHECK_RP_USER=1", M3, cu, ck,
				     nested == 3 ? "FAKE_CUPTI_NESTED_CORR=2" : nested ? "FAKE_CUPTI_NESTED_CORR=1" : "GPUDIAG_API=subset",
				     nested == 2 ? "CHECK_RP_USER_SKEW=1" : NULL, NULL};
		CHECK_INT(run_env(self, inject, fake, env, RP_EXIT, dir, db), 1);
		read_rp(dir, &s);
		CHECK_INT(s.nkl, 3);
		CHECK_INT(kl_count(&s, GD_KL_OK), 3);
		for (int i = 0; i < s.nkl; i++) {
			CHECK_INT(s.kl[i].flags, GD_KL_F_USER | GD_KL_F_FLUSH);
			CHECK_INT(s.kl[i].passes, 3);
			CHECK_INT(s.kl[i].nvalues, 3);
			CHECK_STR(s.kl[i].detail, "");
			for (int j = 0; j < 3; j++) /* the i-th decode's values */
				CHECK_NEAR(s.kl[i].val[j], 1000.0 * (i + 1) + m123[j], 0);
		}
		CHECK_INT(s.replay[0], 3); /* saves */
		CHECK_INT(s.replay[1], 9); /* restores */
		CHECK_INT(s.replay[2], 3); /* frees */
		CHECK_INT(s.replay[3], 9); /* replayed launches */
		CHECK_INT(s.replay[4], 9); /* flushes */
		CHECK_INT(s.replay[5], 0); /* flushes inside a pass */
		CHECK_INT(s.replay[6], 0); /* passes launched while kernel records were on */
		CHECK_INT(s.replay[7], 9); /* discards (sm_90): one per flush */
		CHECK_INT(s.replay[8], 0); /* a discard not right after its flush's read */
		CHECK_INT(s.replay[9], 0); /* a restore inside a session */
		CHECK_INT(s.inside, 9);    /* 3 passes × 3 launches, each alone in its pass */
		CHECK_INT(gd_test_q1(db, "SELECT COUNT(*) FROM kernels"), 3);
		CHECK_INT(gd_test_q1(db, "SELECT COUNT(*) FROM kernels k JOIN strings s ON s.id = k.name WHERE s.value "
					 "IN ('_Z4gemmPf', '_Z4axpyfPfS_')"), 3);
		CHECK_INT(gd_test_q1(db, "SELECT COUNT(*) FROM sync"), 1);
		CHECK_INT(gd_test_q1(db, "SELECT correlation FROM sync"), 999);
		CHECK_INT(gd_test_q1(db, "SELECT COUNT(*) FROM memset"), 0);
		CHECK_INT(gd_test_q1(db, "SELECT COUNT(*) FROM memory"), 0);
		/* the program's three launch calls only: two runtime, one driver */
		CHECK_INT(gd_test_q1(db, "SELECT COUNT(*) FROM api"), 3);
		/* each call's time holds its memory save (1 ms in the fake), taken in its enter
		 * callback: the analysis cuts a replay out of the timeline by the call's interval */
		CHECK_INT(gd_test_q1(db, "SELECT COUNT(*) FROM api WHERE end - start >= 1000000"), 3);
		CHECK_INT(gd_test_q1(db, "SELECT COUNT(*) FROM metric_launches WHERE replay = 'user' AND l2_flushed = 1"), 3);
		remove_dir(dir);
	}
	{ /* a GPU before sm_80: the compute_75 PTX, the read alone, no discard */
		const char *env[] = {"CHECK_RP=1", "CHECK_RP_USER=1", M3, cu, ck, "FAKE_CUPTI_CC_MAJOR=7", NULL};
		CHECK_INT(run_env(self, inject, fake, env, RP_EXIT, dir, db), 1);
		read_rp(dir, &s);
		CHECK_INT(kl_count(&s, GD_KL_OK), 3);
		CHECK(s.replay[4] == 9 && s.replay[7] == 0 && s.replay[5] == 0);
		CHECK_INT(gd_test_q1(db, "SELECT COUNT(*) FROM metric_launches WHERE replay = 'user' AND l2_flushed = 1"), 3);
		remove_dir(dir);
	}
	{ /* GPUDIAG_INJECT_DEBUG: a line per profiled launch with where its time went */
		const char *env[] = {"CHECK_RP=1", "CHECK_RP_USER=1", M3, cu, ck, "GPUDIAG_INJECT_DEBUG=1", NULL};
		char path[600], line[1024];
		int n = 0, steps = 0, pairs = 0;
		FILE *f;
		CHECK_INT(run_env(self, inject, fake, env, RP_EXIT, dir, db), 1);
		snprintf(path, sizeof(path), "%s/stderr", dir);
		CHECK((f = fopen(path, "r")) != NULL);
		while (f && fgets(line, sizeof(line), f)) {
			const char *b = strstr(line, "range profiler: profiled ");
			if (!b || !strstr(b, ": 3 passes, user replay, "))
				continue;
			n++;
			steps += strstr(b, " ms (save ") && strstr(b, ", restore ") && strstr(b, ", flush ") &&
				 strstr(b, ", start ") && strstr(b, ", launch ") && strstr(b, ", stop ") &&
				 strstr(b, ", sync ") && strstr(b, ", decode ") && strstr(b, ", evaluate ") &&
				 strstr(b, " ms); by pass, start/whole ms: ");
			{ /* then each of the 3 passes: its start's time / the whole pass's */
				const char *p = strstr(b, "start/whole ms: ");
				double a[3], w[3];
				char end = 0;
				pairs += p && sscanf(p + 16, "%lf/%lf %lf/%lf %lf/%lf%c", &a[0], &w[0], &a[1], &w[1], &a[2],
						     &w[2], &end) == 7 && end == '\n' && a[0] <= w[0] && a[2] <= w[2];
			}
		}
		if (f)
			fclose(f);
		CHECK_INT(n, 3);
		CHECK_INT(steps, 3);
		CHECK_INT(pairs, 3);
		remove_dir(dir);
	}
	{ /* batches of 2 (GPUDIAG_METRICS_BATCH): launches 1 and 2 share each pass's session, their
	   * passes run in launch 2's exit callback; launch 3 waits until the program's own
	   * synchronisation, whose enter callback runs its passes from its kept call (its one
	   * argument copied) and puts the memory back from a checkpoint taken first */
		const char *env[] = {"CHECK_RP=1", "CHECK_RP_USER=1", M3, cu, ck, "GPUDIAG_METRICS_BATCH=2",
				     "FAKE_CUPTI_PARAMS=1", "FAKE_CUPTI_ARG0=42", "CHECK_RP_ARG=42", "CHECK_RP_SYNC=1",
				     "GPUDIAG_INJECT_DEBUG=1", NULL};
		char path[600], line[1024];
		int batched = 0;
		FILE *f;
		CHECK_INT(run_env(self, inject, fake, env, RP_EXIT, dir, db), 1);
		read_rp(dir, &s);
		CHECK_INT(s.nkl, 3);
		CHECK_INT(kl_count(&s, GD_KL_OK), 3);
		for (int i = 0; i < s.nkl; i++) {
			CHECK_INT(s.kl[i].passes, 3);
			CHECK_INT(s.kl[i].nvalues, 3);
			/* decode 1: ranges 2 and 5 (each launch after its flush and discard); decode
			 * 2: range 0 (a launch alone, its flush before the session) */
			for (int j = 0; j < 3; j++)
				CHECK_NEAR(s.kl[i].val[j], i < 2 ? 1200.0 + 300.0 * i + m123[j] : 2000.0 + m123[j], 0);
		}
		CHECK_INT(s.replay[0], 4);  /* saves: one per launch, one before the last batch's passes */
		CHECK_INT(s.replay[1], 10); /* restores: 2 × 3 passes, 1 × 3, and the memory back */
		CHECK_INT(s.replay[2], 4);  /* frees */
		CHECK_INT(s.replay[3], 9);  /* replayed launches: 3 passes each */
		CHECK_INT(s.replay[4], 9);  /* a flush before each */
		CHECK_INT(s.replay[5], 12); /* each launch's flush and discard, inside its pass's session */
		CHECK_INT(s.replay[6], 0);
		CHECK_INT(s.replay[7], 9);
		CHECK_INT(s.replay[8], 0);
		CHECK_INT(s.replay[9], 6);  /* launch 1's and 2's restores, inside the session */
		CHECK_INT(s.replay[10], 0); /* every replay of launch 3 had its argument, 42 */
		CHECK_INT(s.inside, 21);    /* 3 passes × 2 × (flush, discard, launch) + 3 × launch 3 */
		CHECK_INT(gd_test_q1(db, "SELECT COUNT(*) FROM kernels"), 3);
		CHECK_INT(gd_test_q1(db, "SELECT COUNT(*) FROM sync"), 2); /* the program's two, no replay's */
		/* each batch's window, for the analysis to cut out of the timeline */
		CHECK_INT(gd_test_q1(db, "SELECT COUNT(*) FROM overhead WHERE kind = 2130706433 AND end > start"), 2);
		CHECK_INT(gd_test_q1(db, "SELECT COUNT(*) FROM metric_launches WHERE replay = 'user' AND l2_flushed = 1"), 3);
		snprintf(path, sizeof(path), "%s/stderr", dir);
		CHECK((f = fopen(path, "r")) != NULL);
		while (f && fgets(line, sizeof(line), f))
			batched += strstr(line, "range profiler: profiled ") && strstr(line, " in a batch of 2, ");
		if (f)
			fclose(f);
		CHECK_INT(batched, 2);
		remove_dir(dir);
	}
	{ /* batches of 2 where launch 2 (the batch's last, replayed from its exit callback) is a
	   * cuLaunchKernelEx and launch 3 waits for the program's synchronisation: every replay of
	   * the Ex launch carries its priority attribute, of the others their argument */
		const char *env[] = {"CHECK_RP=1", "CHECK_RP_USER=1", M3, cu, ck, "GPUDIAG_METRICS_BATCH=2",
				     "FAKE_CUPTI_PARAMS=1", "FAKE_CUPTI_ARG0=42", "CHECK_RP_ARG=42", "CHECK_RP_SYNC=1",
				     "CHECK_RP_EX=1", "FAKE_CUPTI_WANT_PRIORITY=7", NULL};
		CHECK_INT(run_env(self, inject, fake, env, RP_EXIT, dir, db), 1);
		read_rp(dir, &s);
		CHECK_INT(kl_count(&s, GD_KL_OK), 3);
		CHECK_INT(s.replay[3], 9);
		CHECK_INT(s.replay[10], 0); /* no replay without its argument or its attribute */
		remove_dir(dir);
	}
	{ /* batches of 3, launch 2 a cuLaunchKernelEx kept for later: launches 1 and 2 wait, launch 3
	   * ends the batch; the Ex launch is replayed from its copy, with its priority */
		const char *env[] = {"CHECK_RP=1", "CHECK_RP_USER=1", M3, cu, ck, "GPUDIAG_METRICS_BATCH=3",
				     "FAKE_CUPTI_PARAMS=1", "FAKE_CUPTI_ARG0=42", "CHECK_RP_ARG=42", "CHECK_RP_EX=1",
				     "FAKE_CUPTI_WANT_PRIORITY=7", NULL};
		CHECK_INT(run_env(self, inject, fake, env, RP_EXIT, dir, db), 1);
		read_rp(dir, &s);
		CHECK_INT(kl_count(&s, GD_KL_OK), 3);
		CHECK_INT(s.replay[3], 9);
		CHECK_INT(s.replay[10], 0);
		remove_dir(dir);
	}
	{ /* a batch whose session records a range more than its launches and flushes: no launch of
	   * it can be told from the others, so all of it is an error, none is given another's values */
		const char *env[] = {"CHECK_RP=1", "CHECK_RP_USER=1", M3, cu, ck, "GPUDIAG_METRICS_BATCH=2",
				     "FAKE_CUPTI_PARAMS=1", "CHECK_RP_ARG=42", "FAKE_CUPTI_RP_EXTRA_RANGE=1", NULL};
		CHECK_INT(run_env(self, inject, fake, env, RP_EXIT, dir, db), 1);
		read_rp(dir, &s);
		CHECK_INT(s.nkl, 3); /* the batch of 2 and launch 3, left waiting at the end */
		CHECK_INT(kl_count(&s, GD_KL_ERROR), 3);
		CHECK_INT(kl_count(&s, GD_KL_OK), 0);
		for (int i = 0; i < 2; i++)
			CHECK(strstr(s.kl[i].detail, "the batch's session recorded 7 ranges, not the 6 of its 2 launches") ==
			      s.kl[i].detail);
		remove_dir(dir);
	}
	{ /* batches of 2, then a call of the program's: a synchronous copy or an allocation runs
	   * launch 3's passes first, as a synchronisation does; an asynchronous copy leaves it
	   * waiting */
		static const char *const how[] = {"CHECK_RP_SYNC=async", "CHECK_RP_SYNC=copy", "CHECK_RP_SYNC=alloc"};
		for (int sync = 0; sync < 3; sync++) {
			const char *env[] = {"CHECK_RP=1", "CHECK_RP_USER=1", M3, cu, ck, "GPUDIAG_METRICS_BATCH=2",
					     "FAKE_CUPTI_PARAMS=1", "FAKE_CUPTI_ARG0=42", "CHECK_RP_ARG=42", how[sync], NULL};
			CHECK_INT(run_env(self, inject, fake, env, RP_EXIT, dir, db), 1);
			read_rp(dir, &s);
			CHECK_INT(s.nkl, 3);
			CHECK_INT(kl_count(&s, GD_KL_OK), sync ? 3 : 2);
			CHECK_INT(s.replay[3], sync ? 9 : 6); /* replayed launches: 3 passes each */
			CHECK(sync || strstr(s.kl[2].detail, "not profiled: the process ended while the launch waited") ==
					      s.kl[2].detail);
			remove_dir(dir);
		}
	}
	{ /* batches of 4: the three launches still wait when the process ends (no CUDA call then) */
		const char *env[] = {"CHECK_RP=1", "CHECK_RP_USER=1", M3, cu, ck, "GPUDIAG_METRICS_BATCH=4", NULL};
		CHECK_INT(run_env(self, inject, fake, env, RP_EXIT, dir, db), 1);
		read_rp(dir, &s);
		CHECK_INT(s.nkl, 3);
		CHECK_INT(kl_count(&s, GD_KL_ERROR), 3);
		for (int i = 0; i < s.nkl; i++)
			CHECK(strstr(s.kl[i].detail, "not profiled: the process ended while the launch waited") == s.kl[i].detail);
		CHECK_INT(s.replay[0], 3); /* saved */
		CHECK_INT(s.replay[1], 0); /* never replayed */
		CHECK_INT(s.replay[3], 0);
		CHECK_INT(gd_test_q1(db, "SELECT COUNT(*) FROM kernels"), 3);
		remove_dir(dir);
	}
	{ /* batches of 4, but the launch's call cannot be kept (its argument cannot be read; its
	   * arguments passed through `extra`): each launch's passes run at once in its own exit
	   * callback, from the program's own arguments, as unbatched, and the debug line says why */
		static const char *const cause[][2] = {{"FAKE_CUPTI_PARAMS=1", "argument 0 of the kernel could not be read"},
						       {"CHECK_RP_EXTRA=1", "arguments passed through 'extra' are not kept"}};
		for (int k = 0; k < 2; k++) {
			const char *env[] = {"CHECK_RP=1", "CHECK_RP_USER=1", M3, cu, ck, "GPUDIAG_METRICS_BATCH=4",
					     "GPUDIAG_INJECT_DEBUG=1", cause[k][0], NULL};
			char path[600], line[1024];
			int said = 0;
			FILE *f;
			CHECK_INT(run_env(self, inject, fake, env, RP_EXIT, dir, db), 1);
			read_rp(dir, &s);
			CHECK_INT(kl_count(&s, GD_KL_OK), 3);
			for (int i = 0; i < s.nkl; i++)
				for (int j = 0; j < 3; j++)
					CHECK_NEAR(s.kl[i].val[j], 1000.0 * (i + 1) + m123[j], 0);
			CHECK_INT(s.replay[1], 9);
			CHECK_INT(s.replay[5], 0);
			CHECK_INT(s.replay[9], 0);
			snprintf(path, sizeof(path), "%s/stderr", dir);
			CHECK((f = fopen(path, "r")) != NULL);
			while (f && fgets(line, sizeof(line), f))
				said += strstr(line, cause[k][1]) && strstr(line, "its batch is replayed now");
			if (f)
				fclose(f);
			CHECK_INT(said, 3);
			remove_dir(dir);
		}
	}
	{ /* batches of 4 on an 80 GiB device with 30000 MiB free and 4000 MiB a checkpoint: a
	   * quarter of the device (20480 MiB) stays free beyond the next checkpoint, so launches 1
	   * and 2 share a batch (26000 free before launch 2's save, 24480 wanted) and launch 3's
	   * save waits for their passes (22000 free); it is replayed at the program's sync */
		const char *env[] = {"CHECK_RP=1", "CHECK_RP_USER=1", M3, cu, ck, "GPUDIAG_METRICS_BATCH=4",
				     "FAKE_CUPTI_PARAMS=1", "FAKE_CUPTI_ARG0=42", "CHECK_RP_ARG=42", "CHECK_RP_SYNC=1",
				     "FAKE_CUPTI_MEM_FREE_MB=30000", "FAKE_CUPTI_CKPT_MB=4000", NULL};
		CHECK_INT(run_env(self, inject, fake, env, RP_EXIT, dir, db), 1);
		read_rp(dir, &s);
		CHECK_INT(kl_count(&s, GD_KL_OK), 3);
		for (int i = 0; i < s.nkl; i++)
			for (int j = 0; j < 3; j++) /* as the batch of 2 above: 1 and 2 together, 3 alone */
				CHECK_NEAR(s.kl[i].val[j], i < 2 ? 1200.0 + 300.0 * i + m123[j] : 2000.0 + m123[j], 0);
		CHECK_INT(s.replay[5], 12); /* both launches' flush and discard inside the session, 3 passes */
		remove_dir(dir);
	}
	{ /* batches of 4, but the device keeps no room for a second checkpoint (2600 MiB free,
	   * 600 MiB a checkpoint: 2000 left after one, under the 1 GiB reserve and another 1 GiB
	   * wanted): each launch's batch is replayed before the next launch's memory is saved,
	   * memory put back from a checkpoint each time */
		const char *env[] = {"CHECK_RP=1", "CHECK_RP_USER=1", M3, cu, ck, "GPUDIAG_METRICS_BATCH=4",
				     "FAKE_CUPTI_MEM_FREE_MB=2600", "FAKE_CUPTI_CKPT_MB=600", "CHECK_RP_SYNC=1", NULL};
		CHECK_INT(run_env(self, inject, fake, env, RP_EXIT, dir, db), 1);
		read_rp(dir, &s);
		CHECK_INT(kl_count(&s, GD_KL_OK), 3);
		for (int i = 0; i < s.nkl; i++)
			for (int j = 0; j < 3; j++) /* each alone in its decode: range 0 */
				CHECK_NEAR(s.kl[i].val[j], 1000.0 * (i + 1) + m123[j], 0);
		CHECK_INT(s.replay[0], 6); /* saves: 3 launches, and 3 before passes outside a launch's exit */
		CHECK_INT(s.replay[2], 6); /* all freed */
		CHECK_INT(s.replay[5], 0); /* never more than one launch in a session */
		CHECK_INT(gd_test_q1(db, "SELECT COUNT(*) FROM overhead WHERE kind = 2130706433"), 3);
		remove_dir(dir);
	}
	{ /* GPUDIAG_METRICS_BATCH out of range: configuration error, nothing profiled */
		const char *env[] = {"CHECK_RP=1", "CHECK_RP_USER=1", M3, cu, ck, "GPUDIAG_METRICS_BATCH=33", NULL};
		CHECK_INT(run_env(self, inject, fake, env, RP_EXIT, dir, db), 1);
		read_rp(dir, &s);
		CHECK_INT(s.nkl, 0);
		CHECK(s.nrej == 1 && !strcmp(s.rej[0][0], "GPUDIAG_METRICS_BATCH"));
		remove_dir(dir);
	}
	{ /* one pass by default: saved, restored and replayed once per launch */
		const char *env[] = {"CHECK_RP=1", "CHECK_RP_USER=1", M3, cu, ck, "FAKE_CUPTI_RP_PASSES=1", NULL};
		CHECK_INT(run_env(self, inject, fake, env, RP_EXIT, dir, db), 1);
		read_rp(dir, &s);
		CHECK_INT(kl_count(&s, GD_KL_OK), 3);
		CHECK(s.replay[0] == 3 && s.replay[1] == 3 && s.replay[3] == 3 && s.replay[4] == 3 && s.replay[5] == 0);
		CHECK_INT(gd_test_q1(db, "SELECT COUNT(*) FROM kernels"), 3);
		remove_dir(dir);
	}
	{ /* no checkpoint optimisation: CUPTI's transfer option failed every launch on an H100; and
	   * the copy leaves an eighth of the host's memory free, at least 2 GiB (replay.c) */
		char host[64];
		long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
		long long mb = pages > 0 && page > 0 ? (long long)pages * page / (8LL << 20) : 0;
		snprintf(host, sizeof(host), "FAKE_CUPTI_CKPT_WANT_HOST_MB=%lld", mb > 2048 ? mb : 2048);
		const char *env[] = {"CHECK_RP=1", "CHECK_RP_USER=1", M3, cu, ck, "FAKE_CUPTI_CKPT_WANT_OPT=0", host, NULL};
		CHECK_INT(run_env(self, inject, fake, env, RP_EXIT, dir, db), 1);
		read_rp(dir, &s);
		CHECK_INT(kl_count(&s, GD_KL_OK), 3);
		remove_dir(dir);
	}
	/* the memory cannot be saved: an error with CUPTI's text, no replay, the context profiles
	 * no more, the program's kernels and exit code as ever. Out of memory (o = 0) says which
	 * reserves the save kept; another refusal (o = 1: a host reserve the fake does not expect,
	 * an invalid parameter) says no word of room */
	for (int o = 0; o < 2; o++) {
		const char *env[] = {"CHECK_RP=1",
				     "CHECK_RP_USER=1",
				     M3,
				     cu,
				     ck,
				     o ? "FAKE_CUPTI_CKPT_WANT_HOST_MB=1" : "FAKE_CUPTI_CKPT_FAIL=save",
				     NULL};
		CHECK_INT(run_env(self, inject, fake, env, RP_EXIT, dir, db), 1);
		read_rp(dir, &s);
		CHECK_INT(s.nkl, 1);
		CHECK(s.kl[0].status == GD_KL_ERROR && strstr(s.kl[0].detail, "cuptiCheckpointSave") == s.kl[0].detail);
		CHECK_INT(strstr(s.kl[0].detail, "MiB of host memory free") != NULL, !o);
		CHECK_INT(strstr(s.kl[0].detail, "CUPTI_ERROR_INVALID_PARAMETER") != NULL, o);
		CHECK(s.replay[3] == 0 && s.replay[2] == 0);
		CHECK_INT(gd_test_q1(db, "SELECT COUNT(*) FROM kernels"), 3);
		remove_dir(dir);
	}
	{ /* the memory cannot be restored for a replay: said; nothing was replayed, so the
	   * program's memory is as its own launch left it (nothing "may be affected") */
		const char *env[] = {"CHECK_RP=1", "CHECK_RP_USER=1", M3, cu, ck, "FAKE_CUPTI_CKPT_FAIL=restore", NULL};
		CHECK_INT(run_env(self, inject, fake, env, RP_EXIT, dir, db), 1);
		read_rp(dir, &s);
		CHECK_INT(s.nkl, 1);
		CHECK(s.kl[0].status == GD_KL_ERROR && strstr(s.kl[0].detail, "cuptiCheckpointRestore") == s.kl[0].detail &&
		      !strstr(s.kl[0].detail, "may be affected"));
		CHECK_INT(s.replay[3], 0);
		CHECK_INT(s.replay[2], 1); /* freed all the same */
		CHECK_INT(gd_test_q1(db, "SELECT COUNT(*) FROM kernels"), 3);
		remove_dir(dir);
	}
	{ /* a replay fails after the memory was restored: the kernel is run once more, unprofiled,
	   * so that the program sees its launch's effect; said in the record */
		const char *env[] = {"CHECK_RP=1", "CHECK_RP_USER=1", M3, cu, ck, "FAKE_CUPTI_REPLAY_FAIL=1", NULL};
		CHECK_INT(run_env(self, inject, fake, env, RP_EXIT, dir, db), 1);
		read_rp(dir, &s);
		CHECK_INT(s.nkl, 1);
		CHECK(s.kl[0].status == GD_KL_ERROR &&
		      strstr(s.kl[0].detail, "launching the kernel again for pass 1: ") == s.kl[0].detail &&
		      !strstr(s.kl[0].detail, "may be affected"));
		CHECK_INT(s.replay[3], 2); /* the failed one and the run that follows it */
		CHECK_INT(gd_test_q1(db, "SELECT COUNT(*) FROM kernels"), 3);
		remove_dir(dir);
	}
	{ /* ... and when that run fails too, the record says what it may mean */
		const char *env[] = {"CHECK_RP=1", "CHECK_RP_USER=1", M3, cu, ck, "FAKE_CUPTI_REPLAY_FAIL=all", NULL};
		CHECK_INT(run_env(self, inject, fake, env, RP_EXIT, dir, db), 1);
		read_rp(dir, &s);
		CHECK(s.nkl == 1 && strstr(s.kl[0].detail, "the program's results may be affected"));
		remove_dir(dir);
	}
	{ /* no L2 flush (its module does not load): user replay without it, said on every launch */
		const char *env[] = {"CHECK_RP=1", "CHECK_RP_USER=1", M3, cu, ck, "FAKE_CUPTI_MODULE_FAIL=1", NULL};
		CHECK_INT(run_env(self, inject, fake, env, RP_EXIT, dir, db), 1);
		read_rp(dir, &s);
		CHECK_INT(kl_count(&s, GD_KL_OK), 3);
		for (int i = 0; i < s.nkl; i++)
			CHECK(s.kl[i].flags == GD_KL_F_USER &&
			      strstr(s.kl[i].detail, "user replay without an L2 flush between passes (") == s.kl[i].detail);
		CHECK(s.replay[4] == 0 && s.replay[7] == 0 && s.replay[1] == 9 && s.replay[3] == 9);
		CHECK_INT(gd_test_q1(db, "SELECT COUNT(*) FROM metric_launches WHERE replay = 'user' AND l2_flushed = 0"), 3);
		remove_dir(dir);
	}
	{ /* no checkpoint library: kernel replay, said on every launch */
		const char *env[] = {"CHECK_RP=1", "CHECK_RP_USER=1", M3, cu,
				     "GPUDIAG_INJECT_LIBCHECKPOINT=/nonexistent/libcheckpoint.so", NULL};
		CHECK_INT(run_env(self, inject, fake, env, RP_EXIT, dir, db), 1);
		read_rp(dir, &s);
		CHECK_INT(kl_count(&s, GD_KL_OK), 3);
		CHECK(s.kl[0].flags == 0 && strstr(s.kl[0].detail, "kernel replay: user replay is not available here "
								   "(CUPTI's checkpoint library could not be loaded") == s.kl[0].detail);
		CHECK(s.replay[0] == 0 && s.replay[3] == 0 && s.replay[4] == 0);
		CHECK_INT(gd_test_q1(db, "SELECT COUNT(*) FROM metric_launches WHERE replay = 'kernel' AND l2_flushed = 0"), 3);
		remove_dir(dir);
	}
	{ /* no thread for the replays: kernel replay, said on every launch */
		const char *env[] = {"CHECK_RP=1", "CHECK_RP_USER=1", M3, cu, ck, "GPUDIAG_INJECT_NO_REPLAY_THREAD=1", NULL};
		CHECK_INT(run_env(self, inject, fake, env, RP_EXIT, dir, db), 1);
		read_rp(dir, &s);
		CHECK_INT(kl_count(&s, GD_KL_OK), 3);
		CHECK(s.kl[0].flags == 0 && !strcmp(s.kl[0].detail, "kernel replay: user replay is not available here "
								    "(no thread for the replays could be started)"));
		CHECK(s.replay[0] == 0 && s.replay[3] == 0 && s.replay[4] == 0);
		remove_dir(dir);
	}
	{ /* kernel replay asked for: no driver call of ours, no note */
		const char *env[] = {"CHECK_RP=1", "CHECK_RP_USER=1", M3, cu, ck, "GPUDIAG_METRICS_REPLAY=kernel", NULL};
		CHECK_INT(run_env(self, inject, fake, env, RP_EXIT, dir, db), 1);
		read_rp(dir, &s);
		CHECK_INT(kl_count(&s, GD_KL_OK), 3);
		CHECK(s.kl[0].flags == 0 && s.kl[0].detail[0] == 0);
		CHECK(s.replay[0] == 0 && s.replay[3] == 0 && s.replay[4] == 0);
		remove_dir(dir);
	}
	{ /* a replay mode it does not know: the variable named, range profiling off */
		const char *env[] = {"CHECK_RP=1", "CHECK_RP_USER=1", M3, cu, ck, "GPUDIAG_METRICS_REPLAY=application", NULL};
		CHECK_INT(run_env(self, inject, fake, env, RP_EXIT, dir, db), 1);
		read_rp(dir, &s);
		CHECK_INT(s.nkl, 0);
		CHECK(s.nrej == 1 && !strcmp(s.rej[0][0], "GPUDIAG_METRICS_REPLAY"));
		remove_dir(dir);
	}
}

/* Every configuration of issue 19's selection against the same launch sequence. */
static void range_profiler_checks(const char *self, const char *inject, const char *fake)
{
	char dir[64], db[128];
	struct rpsum s;
	static const int m123[] = {1, 2, 3}, m13[] = {1, 3};

	{ /* default: the first 3 launches of each name; skips of what cannot be replayed */
		const char *env[] = {"CHECK_RP=1", M3, NULL};
		CHECK_INT(run_env(self, inject, fake, env, RP_EXIT, dir, db), 1);
		read_rp(dir, &s);
		CHECK_INT(s.nkl, 10);
		CHECK_INT(s.nrej, 0);
		CHECK_INT(kl_count(&s, GD_KL_OK), 6);
		check_ok(&s, 0, 0, 1, m123, 3);
		CHECK_INT(rp_corr(0), 500001); /* the runtime call's id, as on the kernel record */
		check_ok(&s, 1, 1, 2, m123, 3);
		check_ok(&s, 2, 2, 3, m123, 3);
		check_ok(&s, 5, 0, 4, m123, 3);
		check_ok(&s, 6, 1, 5, m123, 3);
		check_ok(&s, 11, 2, 6, m123, 3); /* another context, on device 1 */
		CHECK(!kl_at(&s, rp_corr(3)) && !kl_at(&s, rp_corr(4)) && !kl_at(&s, rp_corr(12)) &&
		      !kl_at(&s, rp_corr(13))); /* the 4th launch of a name and later: nothing */
		check_skip(&s, 7, GD_KL_SKIP_COOPERATIVE, "_Z4gridv", 0); /* cuLaunchKernelEx, cooperative */
		check_skip(&s, 8, GD_KL_SKIP_COOPERATIVE, "_Z4gridv", 1);
		check_skip(&s, 9, GD_KL_SKIP_GRAPH, "(graph)", 0);
		check_skip(&s, 10, GD_KL_SKIP_COMM, "_Z23ncclDevKernel_AllReducev", 0);
		CHECK_INT(s.inside, 6);   /* no other launch ran inside a session */
		CHECK_INT(s.disabled, 1); /* context B's profiler released when it was destroyed */
		CHECK_INT(gd_test_q1(db, "SELECT COUNT(*) FROM processes WHERE traced=1 AND status='ok'"), 1);
		remove_dir(dir);
	}
	{ /* stream captures (rp_child's CHECK_RP_CAPTURE sequence) */
		const char *env[] = {"CHECK_RP=1", "CHECK_RP_CAPTURE=1", M3, NULL};
		CHECK_INT(run_env(self, inject, fake, env, RP_EXIT, dir, db), 1);
		read_rp(dir, &s);
		CHECK_INT(kl_count(&s, GD_KL_OK), 3);
		CHECK_INT(kl_count(&s, GD_KL_SKIP_GRAPH), 3);
		CHECK_INT(s.nkl, 6);
		CHECK_INT(s.inside, 3);
		for (int i = 0; i < s.nkl; i++)
			if (s.kl[i].status == GD_KL_SKIP_GRAPH)
				CHECK(strstr(s.kl[i].detail, "stream capture") != NULL);
		remove_dir(dir);
	}
	{ /* the regex sees demangled names: "^axpy\(" cannot match "_Z4axpyfPfS_" */
		const char *env[] = {"CHECK_RP=1", M3, "GPUDIAG_METRICS_KERNELS=^axpy\\(", NULL};
		CHECK_INT(run_env(self, inject, fake, env, RP_EXIT, dir, db), 1);
		read_rp(dir, &s);
		CHECK_INT(s.nkl, 4);
		check_ok(&s, 5, 0, 1, m123, 3);
		check_ok(&s, 6, 1, 2, m123, 3);
		check_ok(&s, 11, 2, 3, m123, 3);
		check_skip(&s, 9, GD_KL_SKIP_GRAPH, "(graph)", 0); /* graphs are listed whatever the filter */
		remove_dir(dir);
	}
	{ /* a names file (--metrics-from): exact mangled names, CRLF and empty lines */
		static char names_env[128];
		const char *env[] = {"CHECK_RP=1", M3, names_env, NULL};
		FILE *f;
		snprintf(names_env, sizeof(names_env), "GPUDIAG_METRICS_NAMES=/tmp/gd_inject_names.%d", (int)getpid());
		f = fopen(names_env + 22, "w");
		CHECK(f != NULL);
		if (f) {
			fputs("_Z4gemmPf\r\n\n_Z4gridv\n_Z4gemm\n", f);
			fclose(f);
		}
		CHECK_INT(run_env(self, inject, fake, env, RP_EXIT, dir, db), 1);
		unlink(names_env + 22);
		read_rp(dir, &s);
		CHECK_INT(s.nkl, 6);
		check_ok(&s, 0, 0, 1, m123, 3);
		check_ok(&s, 1, 1, 2, m123, 3);
		check_ok(&s, 2, 2, 3, m123, 3);
		check_skip(&s, 7, GD_KL_SKIP_COOPERATIVE, "_Z4gridv", 0);
		check_skip(&s, 8, GD_KL_SKIP_COOPERATIVE, "_Z4gridv", 1);
		CHECK(!kl_at(&s, rp_corr(5)));
		remove_dir(dir);
	}
	{ /* skip/count over the matching launches of the process (PER_KERNEL then ignored) */
		const char *env[] = {"CHECK_RP=1", M3, "GPUDIAG_METRICS_SKIP=2", "GPUDIAG_METRICS_COUNT=3",
				     "GPUDIAG_METRICS_PER_KERNEL=1", NULL};
		CHECK_INT(run_env(self, inject, fake, env, RP_EXIT, dir, db), 1);
		read_rp(dir, &s);
		CHECK_INT(s.nkl, 4);
		check_ok(&s, 2, 2, 1, m123, 3);
		check_ok(&s, 3, 3, 2, m123, 3);
		check_ok(&s, 4, 4, 3, m123, 3);
		check_skip(&s, 9, GD_KL_SKIP_GRAPH, "(graph)", 0);
		remove_dir(dir);
	}
	{ /* the budget: one SKIP_LIMIT per name once it is spent */
		const char *env[] = {"CHECK_RP=1", M3, "GPUDIAG_METRICS_MAX=2", NULL};
		CHECK_INT(run_env(self, inject, fake, env, RP_EXIT, dir, db), 1);
		read_rp(dir, &s);
		CHECK_INT(s.nkl, 8);
		CHECK_INT(kl_count(&s, GD_KL_OK), 2);
		check_ok(&s, 0, 0, 1, m123, 3);
		check_ok(&s, 1, 1, 2, m123, 3);
		CHECK_INT(kl_count(&s, GD_KL_SKIP_LIMIT), 2);
		check_skip(&s, 2, GD_KL_SKIP_LIMIT, "_Z4gemmPf", 2);
		check_skip(&s, 5, GD_KL_SKIP_LIMIT, "_Z4axpyfPfS_", 0);
		CHECK_INT(kl_count(&s, GD_KL_SKIP_COOPERATIVE), 2); /* skips cost no budget */
		CHECK_INT(s.inside, 2);
		remove_dir(dir);
	}
	{ /* a metric the counters refuse: one KREJECT for the process, the others collected */
		const char *env[] = {"CHECK_RP=1", M3, "FAKE_CUPTI_RP_REJECT=fake__m2.sum", NULL};
		CHECK_INT(run_env(self, inject, fake, env, RP_EXIT, dir, db), 1);
		read_rp(dir, &s);
		CHECK_INT(s.nrej, 1); /* two devices, one record */
		CHECK_STR(s.rej[0][0], "fake__m2.sum");
		CHECK_STR(s.rej[0][1], "CUPTI_ERROR_INVALID_METRIC_NAME");
		CHECK_INT(kl_count(&s, GD_KL_OK), 6);
		check_ok(&s, 0, 0, 1, m13, 2);
		check_ok(&s, 11, 2, 6, m13, 2);
		remove_dir(dir);
	}
	{ /* every metric refused: one error per device, then nothing tried there */
		const char *env[] = {"CHECK_RP=1", M3, "FAKE_CUPTI_RP_REJECT=fake__m1.sum,fake__m3.sum,fake__m2.sum", NULL};
		const struct kl *k;
		CHECK_INT(run_env(self, inject, fake, env, RP_EXIT, dir, db), 1);
		read_rp(dir, &s);
		CHECK_INT(s.nrej, 3);
		CHECK_INT(kl_count(&s, GD_KL_OK), 0);
		CHECK_INT(kl_count(&s, GD_KL_ERROR), 2);
		CHECK((k = kl_at(&s, rp_corr(0))) && strstr(k->detail, "accept none of the 3 metrics"));
		CHECK((k = kl_at(&s, rp_corr(11))) && k->status == GD_KL_ERROR && k->dev == 1);
		CHECK_INT(s.inside, 0);
		remove_dir(dir);
	}
	{ /* CUPTI fails on a launch: GD_KL_ERROR with its text, once per context; the program
	   * goes on and exits with its own code (run_env checks RP_EXIT) */
		const char *env[] = {"CHECK_RP=1", M3, "FAKE_CUPTI_RP_FAIL=decode", NULL};
		const struct kl *k;
		CHECK_INT(run_env(self, inject, fake, env, RP_EXIT, dir, db), 1);
		read_rp(dir, &s);
		CHECK_INT(s.nkl, 6);
		CHECK_INT(kl_count(&s, GD_KL_ERROR), 2);
		CHECK((k = kl_at(&s, rp_corr(0))) && k->status == GD_KL_ERROR && k->passes == 3 &&
		      strstr(k->detail, "cuptiRangeProfilerDecodeData: CUPTI_ERROR_INSUFFICIENT_PRIVILEGES") == k->detail);
		CHECK((k = kl_at(&s, rp_corr(11))) && k->status == GD_KL_ERROR && k->ctx == 2);
		CHECK_INT(kl_count(&s, GD_KL_SKIP_COMM), 1);
		CHECK_INT(gd_test_q1(db, "SELECT COUNT(*) FROM processes WHERE end_ns IS NOT NULL"), 1);
		remove_dir(dir);
	}
	{ /* the process-wide initialisation fails: one error, no session ever */
		const char *env[] = {"CHECK_RP=1", M3, "FAKE_CUPTI_RP_FAIL=init", NULL};
		const struct kl *k;
		CHECK_INT(run_env(self, inject, fake, env, RP_EXIT, dir, db), 1);
		read_rp(dir, &s);
		CHECK_INT(kl_count(&s, GD_KL_ERROR), 1);
		CHECK((k = kl_at(&s, rp_corr(0))) && k->status == GD_KL_ERROR &&
		      strstr(k->detail, "cuptiProfilerInitialize: CUPTI_ERROR_INSUFFICIENT_PRIVILEGES (profiling is restricted"));
		CHECK_INT(s.inside, 0);
		remove_dir(dir);
	}
	{ /* GPUDIAG_METRICS unset: no record and not one profiler call */
		const char *env[] = {"CHECK_RP=1", NULL};
		CHECK_INT(run_env(self, inject, fake, env, RP_EXIT, dir, db), 1);
		read_rp(dir, &s);
		CHECK_INT(s.nkl, 0);
		CHECK_INT(s.nrej, 0);
		CHECK_INT(s.calls, 0);
		CHECK_INT(s.inside, 0);
		remove_dir(dir);
	}
	{ /* API recording off: the launch callbacks are enabled all the same, none is recorded */
		const char *env[] = {"CHECK_RP=1", M3, "GPUDIAG_API=none", NULL};
		CHECK_INT(run_env(self, inject, fake, env, RP_EXIT, dir, db), 1);
		read_rp(dir, &s);
		CHECK_INT(kl_count(&s, GD_KL_OK), 6);
		check_ok(&s, 0, 0, 1, m123, 3);
		CHECK_INT(gd_test_q1(db, "SELECT COUNT(*) FROM api"), 0);
		remove_dir(dir);
	}
	{ /* with the callback subset the launch calls are recorded as before */
		const char *env[] = {"CHECK_RP=1", M3, NULL};
		CHECK_INT(run_env(self, inject, fake, env, RP_EXIT, dir, db), 1);
		CHECK_INT(gd_test_q1(db, "SELECT COUNT(*) FROM api WHERE correlation=500001"), 1);
		remove_dir(dir);
	}
	{ /* launches from 4 threads: one session at a time, nothing else inside it */
		const char *env[] = {"CHECK_RP=1", "CHECK_RP_THREADS=1", "FAKE_CUPTI_LAUNCH_US=50", M3, NULL};
		int bad = 0;
		CHECK_INT(run_env(self, inject, fake, env, RP_EXIT, dir, db), 1);
		read_rp(dir, &s);
		CHECK_INT(s.nkl, 30); /* 10 names × 3 */
		CHECK_INT(kl_count(&s, GD_KL_OK), 30);
		CHECK_INT(s.inside, 30);
		for (int i = 0; i < s.nkl; i++)
			bad += s.kl[i].nth >= 3 || s.kl[i].val[0] < 1001 || s.kl[i].val[0] > 30001;
		CHECK_INT(bad, 0);
		remove_dir(dir);
	}
	user_replay_checks(self, inject, fake);
	{ /* configuration backstops (cmd_run validates first): a KREJECT naming the variable,
	   * range profiling off, no profiler call */
		static const char *const bad[][2] = {
			{"GPUDIAG_METRICS_KERNELS=(", "GPUDIAG_METRICS_KERNELS"},
			{"GPUDIAG_METRICS_NAMES=/nonexistent/gd_names", "GPUDIAG_METRICS_NAMES"},
			{"GPUDIAG_METRICS_PER_KERNEL=three", "GPUDIAG_METRICS_PER_KERNEL"},
		};
		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			const char *env[] = {"CHECK_RP=1", M3, bad[i][0], NULL};
			CHECK_INT(run_env(self, inject, fake, env, RP_EXIT, dir, db), 1);
			read_rp(dir, &s);
			CHECK_INT(s.nkl, 0);
			CHECK_INT(s.nrej, 1);
			CHECK_STR(s.rej[0][0], bad[i][1]);
			CHECK(s.rej[0][1][0] != 0);
			CHECK_INT(s.calls, 0);
			remove_dir(dir);
		}
		{
			const char *env[] = {"CHECK_RP=1", "GPUDIAG_METRICS=,", NULL};
			CHECK_INT(run_env(self, inject, fake, env, RP_EXIT, dir, db), 1);
			read_rp(dir, &s);
			CHECK_INT(s.nrej, 1);
			CHECK_STR(s.rej[0][0], "GPUDIAG_METRICS");
			remove_dir(dir);
		}
	}
}

static void remove_dir(const char *dir)
{
	char cmd[200];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	CHECK_INT(system(cmd), 0);
}

int main(int argc, char **argv)
{
	char dir[64], db[128], path[200];
	if (argc == 3 && !strcmp(argv[1], "child"))
		return child(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "bench")) {
		gd_set_quiet(1);
		return run(argv[0], argv[2], argv[3], "INJECT_BENCH=1", dir, db) == 1 ? 0 : 1;
	}
	if (argc != 3) {
		fprintf(stderr, "usage: inject_check INJECT_SO FAKE_CUPTI_DIR\n");
		return 2;
	}
	gd_set_quiet(1);

	CHECK_INT(run(argv[0], argv[1], argv[2], NULL, dir, db), 1); /* the forked child left no file */
	CHECK_INT(gd_test_q1(db, "SELECT COUNT(*) FROM kernels"), 4);
	CHECK_INT(gd_test_q1(db, "SELECT COUNT(*) FROM kernels_v WHERE name_str='last_kernel_flushed_at_exit'"), 1);
	CHECK_INT(gd_test_q1(db, "SELECT COUNT(*) FROM kernels_v WHERE short_name_str='foo' AND demangled_str='ns::foo()'"), 2);
	CHECK_INT(gd_test_q1(db, "SELECT COUNT(*) FROM kernels k JOIN strings s ON s.id=k.name WHERE s.value=CAST(X'5F5A366B65726E656C49694576504B633C22260AFF' AS TEXT)"), 1);
	CHECK_INT(gd_test_q1(db, "SELECT COUNT(*) FROM strings WHERE value='_ZN2ns3fooEv'"), 1);
	CHECK_INT(gd_test_q1(db, "SELECT regs*1000000 + static_smem*100 + dyn_smem/1024 FROM kernels WHERE correlation=100"), 40102402);
	CHECK_INT(gd_test_q1(db, "SELECT submitted-queued FROM kernels WHERE correlation=101"), 1500);
	CHECK_INT(gd_test_q1(db, "SELECT launch_type FROM kernels WHERE correlation=102"), 1);
	CHECK_INT(gd_test_q1(db, "SELECT COUNT(*) FROM api_v a JOIN kernels k ON k.pid=a.pid AND k.correlation=a.correlation "
			 "WHERE a.name_str='cudaLaunchKernel_v7000' AND k.start-a.start=3000 AND a.tid=42"),
		  3);
	CHECK_INT(gd_test_q1(db, "SELECT src_kind*10+copy_kind FROM memcpy"), 11);
	CHECK_INT(gd_test_q1(db, "SELECT end-start FROM nvtx n JOIN strings s ON s.id=n.name WHERE s.value='step' AND n.tid=42"), 40000);
	CHECK_INT(gd_test_q1(db, "SELECT COUNT(*) FROM sync WHERE type=4 AND stream IS NULL"), 1);
	CHECK_INT(gd_test_q1(db, "SELECT count FROM dropped WHERE source='cupti'"), 5);
	CHECK_INT(gd_test_q1(db, "SELECT null_stream FROM contexts"), 7);
	CHECK_INT(gd_test_q1(db, "SELECT flags FROM streams WHERE stream=7"), 3);
	CHECK_INT(gd_test_q1(db, "SELECT sm_count FROM devices WHERE uuid='GPU-10111213-1415-1617-1819-1a1b1c1d1e1f'"), 132);
	CHECK_INT(gd_test_q1(db, "SELECT traced FROM processes WHERE status='ok' AND end_ns IS NOT NULL AND ppid>0"), 1);
	snprintf(path, sizeof(path), "%s/FLUSH_IN_CHILD", dir);
	CHECK(access(path, F_OK) != 0); /* the fork-without-exec child never flushed */
	remove_dir(dir);

	/* API calls recorded through callbacks (the default): one record per call, the nested
	 * driver call of a runtime call skipped, OS thread ids, return values kept, cuMemCreate in
	 * the subset */
	CHECK_INT(run(argv[0], argv[1], argv[2], "CHECK_CALLBACKS=1", dir, db), 1);
	CHECK_INT(gd_test_q1(db, "SELECT COUNT(*) FROM api WHERE correlation > 500000"), 4);
	CHECK_INT(gd_test_q1(db, "SELECT COUNT(*) FROM api_v WHERE correlation > 500000 AND domain=2 AND name_str='cuLaunchKernel'"), 1);
	CHECK_INT(gd_test_q1(db, "SELECT COUNT(*) FROM api_v WHERE correlation > 500000 AND domain=2 AND name_str='cuMemCreate'"), 1);
	CHECK_INT(gd_test_q1(db, "SELECT return_value FROM api_v WHERE correlation > 500000 AND name_str='cudaMemcpy_v3020'"), 2);
	CHECK_INT(gd_test_q1(db, "SELECT COUNT(*) FROM api WHERE correlation > 500000 AND (end <= start OR tid = 42 OR tid = 0)"), 0);
	CHECK_INT(gd_test_q1(db, "SELECT COUNT(*) FROM api_v WHERE name_str LIKE '%Other%'"), 0);
	remove_dir(dir);

	/* --latency: the child checks that latency timestamps were switched on */
	CHECK_INT(run(argv[0], argv[1], argv[2], "GPUDIAG_LATENCY=1", dir, db), 1);
	CHECK_INT(gd_test_q1(db, "SELECT COUNT(*) FROM kernels WHERE queued IS NOT NULL"), 3);
	remove_dir(dir);

	CHECK_INT(run(argv[0], argv[1], argv[2], "FAKE_CUPTI_BUSY=1", dir, db), 1);
	CHECK_INT(gd_test_q1(db, "SELECT COUNT(*) FROM processes WHERE traced=0 AND status='cupti_busy'"), 1);
	CHECK_INT(gd_test_q1(db, "SELECT COUNT(*) FROM kernels"), 0);
	remove_dir(dir);

	{
		static char gate[64];
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		long long now = (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
		/* START and END are passed together: END through a second putenv in the child. */
		snprintf(gate, sizeof(gate), "GPUDIAG_CAPTURE_START_NS=%lld", now + 400000000LL);
		snprintf(gate_end, sizeof(gate_end), "GPUDIAG_CAPTURE_END_NS=%lld", now + 1000000000LL);
		CHECK_INT(run(argv[0], argv[1], argv[2], gate, dir, db), 1);
		remove_dir(dir);
	}

	CHECK_INT(run(argv[0], argv[1], argv[2], "FAKE_CUPTI_VERSION=130100", dir, db), 1);
	CHECK_INT(gd_test_q1(db, "SELECT COUNT(*) FROM processes WHERE traced=0 AND status='cupti_version' AND cupti_version=130100"), 1);
	remove_dir(dir);

	range_profiler_checks(argv[0], argv[1], argv[2]);
	return TEST_DONE();
}
