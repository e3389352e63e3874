/* A stand-in for libcupti.so.13, for the CPU-tier test of the injection library
 * (inject_check.c): it accepts the setup calls, hands out buffers through the registered
 * callbacks, and delivers records the test emits (fake_cupti_emit) on cuptiActivityFlushAll,
 * exactly as CUPTI's record iterator would present them. Controls: FAKE_CUPTI_BUSY=1 makes
 * cuptiSubscribe fail like under Nsight; FAKE_CUPTI_VERSION=N changes cuptiGetVersion.
 * A flush in a process other than the one that registered (a fork-without-exec child, where
 * real CUPTI blocks forever) creates "$GPUDIAG_RAW_DIR/FLUSH_IN_CHILD".
 *
 * Range profiler (the second half of this file): the profiler-host and range-profiler calls
 * rangeprof.c makes, checking the parameters that matter (auto range, kernel replay, one range
 * per pass, one nesting level, the image given to SetConfig) and the order (Start before the
 * launch, Stop after it: a launch made while a session is started becomes its range). A metric's
 * value is 1000 × (the number of the decode that produced it, from 1) + the first number in
 * its name ("fake__m12.sum" → 12 in the first profiled launch: 1012). Controls:
 * FAKE_CUPTI_RP_REJECT=name[,name] (ConfigAddMetrics refuses them), FAKE_CUPTI_RP_PASSES=N
 * (default 3), FAKE_CUPTI_RP_FAIL=init|avail|enable|start|stop|decode|evaluate (that call
 * fails every time), FAKE_CUPTI_LAUNCH_US=N (each launch takes N µs between its callbacks, so
 * that launches of several threads overlap). fake_cupti_launch fires the launch callbacks;
 * fake_cupti_rp_calls counts every profiler call made.
 *
 * User replay (the third part): SetConfig also takes user replay; then every Start..Stop with
 * one launch inside is a pass and Stop says all passes were submitted after the last, Decode
 * only then fills the image. The driver entry points rangeprof.c/replay.c load (cuLaunchKernel,
 * cuCtxSynchronize, cuMemAlloc_v2, ...) and CUPTI's checkpoint functions are here too, so the
 * test points GPUDIAG_INJECT_LIBCUDA and GPUDIAG_INJECT_LIBCHECKPOINT at this library. Each
 * driver call fires its callback (when enabled) with a fresh correlation id and gives the
 * activity record the real one would: a kernel record per launch (the L2 flush's named
 * gpudiag_l2_flush, a replay named "(replayed)"), a SYNCHRONIZATION record per
 * cuCtxSynchronize, a MEMSET record, a MEMORY2 record of the allocation. FAKE_CUPTI_NESTED_CORR=1
 * gives those calls (their callbacks and records) the correlation id of the launch call they
 * were made inside, as CUPTI does for driver calls inside a runtime call, instead of their own;
 * FAKE_CUPTI_NESTED_CORR=2 gives them that launch's driver call's id (and the test gives the
 * program's kernel record that id too): ids alone cannot tell the replays from the program.
 * Enabling the range profiler inside a launch call gives a kernel record named WaitNs with
 * that call's id (a CUPTI kernel with the launch's id, as seen on an H100). FAKE_CUPTI_CKPT_FAIL=save|restore
 * makes that checkpoint call fail (FAKE_CUPTI_CKPT_WANT_OPT=N: a save whose optimizations field
 * is not N fails; FAKE_CUPTI_CKPT_WANT_HOST_MB=N: one whose reserveHostMB is not N);
 * FAKE_CUPTI_REPLAY_FAIL=N|all makes the Nth (every) launch of the kernel again fail.
 * fake_cupti_replay_counts: saves, restores, frees, replayed launches, flushes, flushes made
 * inside a session (0 unless batched), kernels of a user-replay pass launched while kernel
 * records were on (must be 0: on a GPU their SASS metrics read 0),
 * discards of the flush buffer's L2 lines (compute capability FAKE_CUPTI_CC_MAJOR, 9 unless
 * set: 8 and on load the compute_80 PTX, the one whose discard kernel has the instruction),
 * discards not right after a flush's read (must be 0), restores made inside a session (0
 * unless batched), replayed launches whose first argument was not FAKE_CUPTI_ARG0 (when set) or,
 * for cuLaunchKernelEx, whose one attribute was not the priority FAKE_CUPTI_WANT_PRIORITY.
 * A session of user replay records as many ranges as its last pass launched kernels, at most
 * SetConfig's maxRangesPerPass (the rest dropped; FAKE_CUPTI_RP_EXTRA_RANGE=1: one more, as if a
 * kernel the tool did not launch ran in the session); range r's values add 100 r. FAKE_CUPTI_MODULE_FAIL=1 makes
 * cuModuleLoadData fail (no L2 flush can be set up). */
#include <cupti.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>
#include <ctype.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define API __attribute__((visibility("default")))

static CUpti_BuffersCallbackRequestFunc g_req;
static CUpti_BuffersCallbackCompleteFunc g_done;
static uint8_t *g_buf;
static size_t g_size, g_valid, g_dropped;
static pid_t g_owner;
static int g_enabled_api, g_nvtx;
static char g_names[2][1024][40];

API void fake_cupti_emit(const void *rec, size_t size);
API void fake_cupti_drop(size_t n);
API int fake_cupti_api_enabled(void);
API int fake_cupti_nvtx_called(void);

static size_t rec_size(const CUpti_Activity *a)
{
	switch (a->kind) {
	case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: return sizeof(CUpti_ActivityKernel10);
	case CUPTI_ACTIVITY_KIND_MEMCPY: return sizeof(CUpti_ActivityMemcpy6);
	case CUPTI_ACTIVITY_KIND_MEMSET: return sizeof(CUpti_ActivityMemset4);
	case CUPTI_ACTIVITY_KIND_RUNTIME:
	case CUPTI_ACTIVITY_KIND_DRIVER: return sizeof(CUpti_ActivityAPI);
	case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: return sizeof(CUpti_ActivitySynchronization2);
	case CUPTI_ACTIVITY_KIND_MARKER: return sizeof(CUpti_ActivityMarker2);
	case CUPTI_ACTIVITY_KIND_OVERHEAD: return sizeof(CUpti_ActivityOverhead3);
	case CUPTI_ACTIVITY_KIND_CONTEXT: return sizeof(CUpti_ActivityContext3);
	case CUPTI_ACTIVITY_KIND_STREAM: return sizeof(CUpti_ActivityStream);
	case CUPTI_ACTIVITY_KIND_DEVICE: return sizeof(CUpti_ActivityDevice5);
	case CUPTI_ACTIVITY_KIND_MEMORY2: return sizeof(CUpti_ActivityMemory4);
	default: return 8;
	}
}

API CUptiResult cuptiGetVersion(uint32_t *v)
{
	*v = getenv("FAKE_CUPTI_VERSION") ? (uint32_t)atoi(getenv("FAKE_CUPTI_VERSION")) : CUPTI_API_VERSION;
	return CUPTI_SUCCESS;
}
static CUpti_CallbackFunc g_cb;
static unsigned char g_cb_on[2][1024]; /* runtime, driver callback ids enabled on the subscriber */

static unsigned char g_res_on[1024];   /* resource callback ids */
static uint64_t g_clock = 1000;
static uint32_t g_corr = 500000;
API CUptiResult cuptiSubscribe(CUpti_SubscriberHandle *s, CUpti_CallbackFunc f, void *ud)
{
	if (getenv("FAKE_CUPTI_BUSY"))
		return CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
	g_cb = f;
	return CUPTI_SUCCESS;
}
API CUptiResult cuptiEnableCallback(uint32_t enable, CUpti_SubscriberHandle s, CUpti_CallbackDomain d,
				    CUpti_CallbackId cbid)
{
	if (d == CUPTI_CB_DOMAIN_RESOURCE && cbid < 1024) {
		g_res_on[cbid] = (unsigned char)enable;
		return CUPTI_SUCCESS;
	}
	if ((d != CUPTI_CB_DOMAIN_RUNTIME_API && d != CUPTI_CB_DOMAIN_DRIVER_API) || cbid >= 1024)
		return CUPTI_ERROR_INVALID_PARAMETER;
	g_enabled_api += enable && !g_cb_on[d == CUPTI_CB_DOMAIN_DRIVER_API][cbid];
	g_cb_on[d == CUPTI_CB_DOMAIN_DRIVER_API][cbid] = (unsigned char)enable;
	return CUPTI_SUCCESS;
}
API CUptiResult cuptiGetTimestamp(uint64_t *t)
{
	*t = g_clock += 10;
	return CUPTI_SUCCESS;
}
API CUptiResult cuptiSetThreadIdType(CUpti_ActivityThreadIdType t)
{
	return CUPTI_SUCCESS;
}
/* One API call as the callback API presents it (enter, then exit with the return value), on
 * the calling thread; `inner` runs between them (a runtime call's nested driver call).
 * Returns the correlation id given to the call, or 0 when its callback id is not enabled. */
API uint32_t fake_cupti_call(int driver, uint32_t cbid, int rv, void (*inner)(void));
API uint32_t fake_cupti_call(int driver, uint32_t cbid, int rv, void (*inner)(void))
{
	CUpti_CallbackData d;
	uint64_t scratch = 0;
	CUpti_CallbackDomain dom = driver ? CUPTI_CB_DOMAIN_DRIVER_API : CUPTI_CB_DOMAIN_RUNTIME_API;
	if (!g_cb || cbid >= 1024 || !g_cb_on[driver != 0][cbid])
		return 0;
	memset(&d, 0, sizeof(d));
	d.callbackSite = CUPTI_API_ENTER, d.correlationId = ++g_corr, d.correlationData = &scratch;
	d.functionReturnValue = &rv;
	g_cb(NULL, dom, cbid, &d);
	if (inner)
		inner();
	d.callbackSite = CUPTI_API_EXIT;
	g_cb(NULL, dom, cbid, &d);
	return d.correlationId;
}
static int g_latency, g_api_kind;
API int fake_cupti_latency_enabled(void);
API int fake_cupti_latency_enabled(void) { return g_latency; }
/* whether the whole RUNTIME or DRIVER kind is on (it should not be in the subset mode) */
API int fake_cupti_api_kind_enabled(void);
API int fake_cupti_api_kind_enabled(void) { return g_api_kind; }
API CUptiResult cuptiActivityEnableLatencyTimestamps(uint8_t e)
{
	g_latency = e;
	return CUPTI_SUCCESS;
}
API CUptiResult cuptiActivitySetAttribute(CUpti_ActivityAttribute a, size_t *size, void *value)
{
	return *size == sizeof(size_t) ? CUPTI_SUCCESS : CUPTI_ERROR_INVALID_PARAMETER;
}
API CUptiResult cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc r, CUpti_BuffersCallbackCompleteFunc d)
{
	g_req = r, g_done = d, g_owner = getpid();
	return CUPTI_SUCCESS;
}
static int g_kernel_on;
API int fake_cupti_kernel_enabled(void);
API int fake_cupti_kernel_enabled(void) { return g_kernel_on; }
API CUptiResult cuptiActivityEnable(CUpti_ActivityKind k)
{
	if (k == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)
		g_kernel_on = 1;
	if (k == CUPTI_ACTIVITY_KIND_RUNTIME || k == CUPTI_ACTIVITY_KIND_DRIVER)
		g_api_kind = 1;
	return CUPTI_SUCCESS;
}
API CUptiResult cuptiActivityDisable(CUpti_ActivityKind k)
{
	if (k == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)
		g_kernel_on = 0;
	if (k == CUPTI_ACTIVITY_KIND_RUNTIME || k == CUPTI_ACTIVITY_KIND_DRIVER)
		g_api_kind = 0;
	return CUPTI_SUCCESS;
}
API CUptiResult cuptiGetCallbackName(CUpti_CallbackDomain d, uint32_t cbid, const char **name)
{
	int i = d == CUPTI_CB_DOMAIN_DRIVER_API;
	if (cbid >= 1024)
		return CUPTI_ERROR_INVALID_PARAMETER;
	/* the names the tests need; the others are made up */
	static const struct {
		int driver;
		uint32_t cbid;
		const char *name;
	} known[] = {{0, 211, "cudaLaunchKernel_v7000"},
		     {0, 31, "cudaMemcpy_v3020"},
		     {1, 307, "cuLaunchKernel"},
		     {1, CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize, "cuCtxSynchronize"},
		     {1, CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2, "cuMemcpyDtoH_v2"},
		     {1, CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2, "cuMemAlloc_v2"},
		     {1, CUPTI_DRIVER_TRACE_CBID_cuMemCreate, "cuMemCreate"},
		     {1, CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2, "cuMemcpyDtoHAsync_v2"}};
	if (!g_names[i][cbid][0]) {
		snprintf(g_names[i][cbid], 40, "%sOther%u", i ? "cu" : "cuda", cbid);
		for (size_t k = 0; k < sizeof(known) / sizeof(known[0]); k++)
			if (known[k].driver == i && known[k].cbid == cbid)
				snprintf(g_names[i][cbid], 40, "%s", known[k].name);
	}
	*name = g_names[i][cbid];
	return CUPTI_SUCCESS;
}
API CUptiResult cuptiActivityEnableRuntimeApi(CUpti_CallbackId cbid, uint8_t e)
{
	g_enabled_api += e;
	return CUPTI_SUCCESS;
}
API CUptiResult cuptiActivityEnableDriverApi(CUpti_CallbackId cbid, uint8_t e)
{
	g_enabled_api += e;
	return CUPTI_SUCCESS;
}
API CUptiResult cuptiActivityGetNextRecord(uint8_t *buf, size_t valid, CUpti_Activity **rec)
{
	uint8_t *p = *rec ? (uint8_t *)*rec + ((rec_size(*rec) + 7) & ~(size_t)7) : buf;
	if (p >= buf + valid)
		return CUPTI_ERROR_MAX_LIMIT_REACHED;
	*rec = (CUpti_Activity *)p;
	return CUPTI_SUCCESS;
}
API CUptiResult cuptiActivityGetNumDroppedRecords(CUcontext c, uint32_t s, size_t *n)
{
	*n = g_dropped;
	g_dropped = 0;
	return CUPTI_SUCCESS;
}
API CUptiResult cuptiActivityFlushAll(uint32_t flag)
{
	if (getpid() != g_owner) {
		char p[4096];
		snprintf(p, sizeof(p), "%s/FLUSH_IN_CHILD", getenv("GPUDIAG_RAW_DIR") ? getenv("GPUDIAG_RAW_DIR") : "/tmp");
		close(open(p, O_CREAT | O_WRONLY, 0600));
		return CUPTI_SUCCESS;
	}
	if (g_buf && g_done) {
		uint8_t *b = g_buf;
		g_buf = NULL;
		g_done(NULL, 0, b, g_size, g_valid);
	}
	return CUPTI_SUCCESS;
}
API int InitializeInjectionNvtx2(const void *t)
{
	g_nvtx = 1;
	return 1;
}
API void fake_cupti_emit(const void *rec, size_t size)
{
	size_t max;
	if (!g_buf) {
		g_req(&g_buf, &g_size, &max);
		g_valid = 0;
	}
	memcpy(g_buf + g_valid, rec, size);
	g_valid += (size + 7) & ~(size_t)7;
}
API void fake_cupti_drop(size_t n) { g_dropped += n; }
API int fake_cupti_api_enabled(void) { return g_enabled_api; }
API int fake_cupti_nvtx_called(void) { return g_nvtx; }

/* ---- range profiler */

static int g_rp_calls, g_rp_disabled, g_rp_started, g_rp_pending, g_decodes, g_launches;
/* the launch call in progress on this thread (its correlation id; 0 none) and the context the
 * driver has current on it (the launch's, while in a launch) */
static _Thread_local uint32_t t_outer_corr, t_outer_drv; /* ... and its driver call's id */
static _Thread_local CUcontext t_cur_ctx;

struct CUpti_Profiler_Host_Object {
	char names[64][128];
	int n;
};
struct CUpti_RangeProfiler_Object {
	uintptr_t ctx;
	uint8_t *image;
	size_t image_size;
	int configured;
	int user;        /* user replay */
	int passes_done; /* user replay: passes with their launch, since the last decode */
	size_t max_ranges; /* SetConfig's maxRangesPerPass */
};
static size_t fake_passes(void)
{
	return getenv("FAKE_CUPTI_RP_PASSES") ? (size_t)atoi(getenv("FAKE_CUPTI_RP_PASSES")) : 3;
}

API int fake_cupti_rp_calls(void);
API int fake_cupti_rp_calls(void) { return g_rp_calls; }
API int fake_cupti_rp_disabled(void);
API int fake_cupti_rp_disabled(void) { return g_rp_disabled; }
/* launches that ran inside a started session (each should be the only one of its session) */
API int fake_cupti_rp_launches(void);
API int fake_cupti_rp_launches(void) { return g_launches; }

static int fails(const char *stage)
{
	const char *f = getenv("FAKE_CUPTI_RP_FAIL");
	g_rp_calls++;
	return f && !strcmp(f, stage);
}

API CUptiResult cuptiGetResultString(CUptiResult r, const char **str)
{
	static char buf[64];
	switch ((int)r) {
	case CUPTI_SUCCESS: *str = "CUPTI_SUCCESS"; break;
	case CUPTI_ERROR_INVALID_PARAMETER: *str = "CUPTI_ERROR_INVALID_PARAMETER"; break;
	case CUPTI_ERROR_INVALID_OPERATION: *str = "CUPTI_ERROR_INVALID_OPERATION"; break;
	case CUPTI_ERROR_INVALID_METRIC_NAME: *str = "CUPTI_ERROR_INVALID_METRIC_NAME"; break;
	case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES: *str = "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES"; break;
	default:
		snprintf(buf, sizeof(buf), "CUPTI_ERROR_%d", (int)r);
		*str = buf;
	}
	return CUPTI_SUCCESS;
}
/* A fake context "pointer" v: context id v & 0xffff, device (v >> 16) & 0xff. */
API CUptiResult cuptiGetContextId(CUcontext c, uint32_t *id)
{
	*id = (uint32_t)((uintptr_t)c & 0xffff);
	return c ? CUPTI_SUCCESS : CUPTI_ERROR_INVALID_PARAMETER;
}
API CUptiResult cuptiGetDeviceId(CUcontext c, uint32_t *id)
{
	*id = (uint32_t)(((uintptr_t)c >> 16) & 0xff);
	return c ? CUPTI_SUCCESS : CUPTI_ERROR_INVALID_PARAMETER;
}
API CUptiResult cuptiProfilerInitialize(CUpti_Profiler_Initialize_Params *p)
{
	if (fails("init"))
		return CUPTI_ERROR_INSUFFICIENT_PRIVILEGES;
	return p->structSize == CUpti_Profiler_Initialize_Params_STRUCT_SIZE ? CUPTI_SUCCESS : CUPTI_ERROR_INVALID_PARAMETER;
}
API CUptiResult cuptiProfilerDeviceSupported(CUpti_Profiler_DeviceSupported_Params *p)
{
	g_rp_calls++;
	if (p->api != CUPTI_PROFILER_RANGE_PROFILING)
		return CUPTI_ERROR_INVALID_PARAMETER;
	p->isSupported = p->architecture = p->sli = p->vGpu = p->confidentialCompute = p->cmp = p->wsl =
		CUPTI_PROFILER_CONFIGURATION_SUPPORTED;
	return CUPTI_SUCCESS;
}
API CUptiResult cuptiDeviceGetChipName(CUpti_Device_GetChipName_Params *p)
{
	g_rp_calls++;
	p->pChipName = "GH100";
	return CUPTI_SUCCESS;
}
API CUptiResult cuptiProfilerGetCounterAvailability(CUpti_Profiler_GetCounterAvailability_Params *p)
{
	if (fails("avail"))
		return CUPTI_ERROR_INSUFFICIENT_PRIVILEGES;
	if (!p->ctx)
		return CUPTI_ERROR_INVALID_PARAMETER;
	if (p->pCounterAvailabilityImage) {
		if (p->counterAvailabilityImageSize < 64)
			return CUPTI_ERROR_INVALID_PARAMETER;
		memset(p->pCounterAvailabilityImage, 'A', 64);
	}
	p->counterAvailabilityImageSize = 64;
	return CUPTI_SUCCESS;
}
API CUptiResult cuptiProfilerHostInitialize(CUpti_Profiler_Host_Initialize_Params *p)
{
	g_rp_calls++;
	if (p->profilerType != CUPTI_PROFILER_TYPE_RANGE_PROFILER || !p->pChipName || strcmp(p->pChipName, "GH100") ||
	    !p->pCounterAvailabilityImage || p->pCounterAvailabilityImage[0] != 'A')
		return CUPTI_ERROR_INVALID_PARAMETER;
	p->pHostObject = calloc(1, sizeof(*p->pHostObject));
	return p->pHostObject ? CUPTI_SUCCESS : CUPTI_ERROR_OUT_OF_MEMORY;
}
API CUptiResult cuptiProfilerHostDeinitialize(CUpti_Profiler_Host_Deinitialize_Params *p)
{
	g_rp_calls++;
	free(p->pHostObject);
	return CUPTI_SUCCESS;
}
static int rejected(const char *name)
{
	const char *r = getenv("FAKE_CUPTI_RP_REJECT");
	size_t n = strlen(name);
	for (const char *p = r; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (!strncmp(p, name, n) && (p[n] == ',' || !p[n]))
			return 1;
	return 0;
}
API CUptiResult cuptiProfilerHostConfigAddMetrics(CUpti_Profiler_Host_ConfigAddMetrics_Params *p)
{
	struct CUpti_Profiler_Host_Object *h = p->pHostObject;
	g_rp_calls++;
	if (!h || !p->numMetrics)
		return CUPTI_ERROR_INVALID_PARAMETER;
	for (size_t i = 0; i < p->numMetrics; i++)
		if (rejected(p->ppMetricNames[i]) || !strstr(p->ppMetricNames[i], "__"))
			return CUPTI_ERROR_INVALID_METRIC_NAME;
	for (size_t i = 0; i < p->numMetrics && h->n < 64; i++)
		snprintf(h->names[h->n++], 128, "%s", p->ppMetricNames[i]);
	return CUPTI_SUCCESS;
}
API CUptiResult cuptiProfilerHostGetConfigImageSize(CUpti_Profiler_Host_GetConfigImageSize_Params *p)
{
	g_rp_calls++;
	if (!p->pHostObject || !p->pHostObject->n)
		return CUPTI_ERROR_INVALID_OPERATION;
	p->configImageSize = 32;
	return CUPTI_SUCCESS;
}
API CUptiResult cuptiProfilerHostGetConfigImage(CUpti_Profiler_Host_GetConfigImage_Params *p)
{
	g_rp_calls++;
	if (p->configImageSize != 32 || !p->pConfigImage)
		return CUPTI_ERROR_INVALID_PARAMETER;
	memset(p->pConfigImage, 'C', 32);
	return CUPTI_SUCCESS;
}
API CUptiResult cuptiProfilerHostGetNumOfPasses(CUpti_Profiler_Host_GetNumOfPasses_Params *p)
{
	g_rp_calls++;
	if (p->configImageSize != 32 || !p->pConfigImage || p->pConfigImage[0] != 'C')
		return CUPTI_ERROR_INVALID_PARAMETER;
	p->numOfPasses = fake_passes();
	return CUPTI_SUCCESS;
}
/* A kernel of CUPTI's own run from inside a launch call, whose record carries that call's id:
 * on an H100, starting a user-replay session inside a launch callback ran one (WaitNs). The fake
 * runs it when the range profiler is enabled inside a launch call (gpudiag sets a context up in
 * the callback of its first profiled launch). */
static void emit_kernel(uint32_t corr, const char *name)
{
	CUpti_ActivityKernel10 k;
	memset(&k, 0, sizeof(k));
	k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
	k.start = g_clock += 10;
	k.end = g_clock += 10;
	k.correlationId = corr, k.contextId = (uint32_t)((uintptr_t)t_cur_ctx & 0xffff), k.streamId = 7;
	k.name = name, k.gridX = k.gridY = k.gridZ = k.blockX = k.blockY = k.blockZ = 1;
	fake_cupti_emit(&k, sizeof(k));
}
static void fake_wait_kernel(void) { emit_kernel(t_outer_corr, "WaitNs"); }
API CUptiResult cuptiRangeProfilerEnable(CUpti_RangeProfiler_Enable_Params *p)
{
	if (fails("enable"))
		return CUPTI_ERROR_INSUFFICIENT_PRIVILEGES;
	if (!p->ctx)
		return CUPTI_ERROR_INVALID_PARAMETER;
	p->pRangeProfilerObject = calloc(1, sizeof(*p->pRangeProfilerObject));
	p->pRangeProfilerObject->ctx = (uintptr_t)p->ctx;
	if (t_outer_corr)
		fake_wait_kernel();
	return CUPTI_SUCCESS;
}
API CUptiResult cuptiRangeProfilerDisable(CUpti_RangeProfiler_Disable_Params *p)
{
	g_rp_calls++;
	g_rp_disabled++;
	free(p->pRangeProfilerObject);
	return CUPTI_SUCCESS;
}
#define IMAGE_SIZE(n) (128 + 8 * (n))
API CUptiResult cuptiRangeProfilerGetCounterDataSize(CUpti_RangeProfiler_GetCounterDataSize_Params *p)
{
	g_rp_calls++;
	if (!p->pRangeProfilerObject || !p->numMetrics || !p->pMetricNames || p->maxNumOfRanges < 1 ||
	    p->maxNumRangeTreeNodes < p->maxNumOfRanges)
		return CUPTI_ERROR_INVALID_PARAMETER;
	p->counterDataSize = IMAGE_SIZE(p->numMetrics);
	return CUPTI_SUCCESS;
}
/* The fake's image: byte 0 = ranges held, bytes 8..15 = the decode that filled it. */
API CUptiResult cuptiRangeProfilerCounterDataImageInitialize(CUpti_RangeProfiler_CounterDataImage_Initialize_Params *p)
{
	g_rp_calls++;
	if (!p->pRangeProfilerObject || !p->pCounterData || p->counterDataSize < 128)
		return CUPTI_ERROR_INVALID_PARAMETER;
	memset(p->pCounterData, 0, p->counterDataSize);
	return CUPTI_SUCCESS;
}
API CUptiResult cuptiRangeProfilerSetConfig(CUpti_RangeProfiler_SetConfig_Params *p)
{
	struct CUpti_RangeProfiler_Object *o = p->pRangeProfilerObject;
	g_rp_calls++;
	if (!o || !p->pConfig || p->configSize != 32 || p->pConfig[0] != 'C' || !p->pCounterDataImage ||
	    p->counterDataImageSize < 128 || p->range != CUPTI_AutoRange ||
	    (p->replayMode != CUPTI_KernelReplay && p->replayMode != CUPTI_UserReplay) ||
	    p->maxRangesPerPass < 1 || p->numNestingLevels != 1 || p->minNestingLevel != 1 || p->passIndex != 0 ||
	    p->targetNestingLevel != 1)
		return CUPTI_ERROR_INVALID_PARAMETER;
	o->image = p->pCounterDataImage;
	o->image_size = p->counterDataImageSize;
	o->configured = 1;
	o->user = p->replayMode == CUPTI_UserReplay;
	o->max_ranges = p->maxRangesPerPass;
	return CUPTI_SUCCESS;
}
API CUptiResult cuptiRangeProfilerStart(CUpti_RangeProfiler_Start_Params *p)
{
	if (fails("start"))
		return CUPTI_ERROR_INSUFFICIENT_PRIVILEGES;
	if (!p->pRangeProfilerObject || !p->pRangeProfilerObject->configured || g_rp_started)
		return CUPTI_ERROR_INVALID_OPERATION;
	g_rp_started = 1;
	return CUPTI_SUCCESS;
}
API CUptiResult cuptiRangeProfilerStop(CUpti_RangeProfiler_Stop_Params *p)
{
	if (fails("stop"))
		return CUPTI_ERROR_INSUFFICIENT_PRIVILEGES;
	if (!p->pRangeProfilerObject || !g_rp_started)
		return CUPTI_ERROR_INVALID_OPERATION;
	g_rp_started = 0;
	if (p->pRangeProfilerObject->user) {
		/* a pass is a Start..Stop with the launches of its ranges in it (one, or a batch's
		 * launches and flushes); the ranges are those of the last pass */
		if (g_rp_pending > 0)
			p->pRangeProfilerObject->passes_done++;
		p->isAllPassSubmitted = (size_t)p->pRangeProfilerObject->passes_done >= fake_passes();
		if (!p->isAllPassSubmitted)
			g_rp_pending = 0;
		return CUPTI_SUCCESS;
	}
	p->isAllPassSubmitted = 1;
	return CUPTI_SUCCESS;
}
API CUptiResult cuptiRangeProfilerDecodeData(CUpti_RangeProfiler_DecodeData_Params *p)
{
	struct CUpti_RangeProfiler_Object *o = p->pRangeProfilerObject;
	uint64_t no;
	if (fails("decode"))
		return CUPTI_ERROR_INSUFFICIENT_PRIVILEGES;
	if (!o || g_rp_started || !o->image)
		return CUPTI_ERROR_INVALID_OPERATION;
	{
		size_t cap = o->max_ranges ? o->max_ranges : 1;
		p->numOfRangeDropped = (size_t)g_rp_pending > cap ? (size_t)g_rp_pending - cap : 0;
		if (o->user && (size_t)o->passes_done < fake_passes())
			g_rp_pending = 0; /* not every pass yet: no range */
		o->passes_done = 0;
		if (g_rp_pending > 0) {
			no = (uint64_t)++g_decodes;
			o->image[0] = (uint8_t)((size_t)g_rp_pending < cap ? (size_t)g_rp_pending : cap);
			if (getenv("FAKE_CUPTI_RP_EXTRA_RANGE")) /* a kernel the tool did not launch */
				o->image[0]++;
			memcpy(o->image + 8, &no, 8);
		}
	}
	g_rp_pending = 0;
	return CUPTI_SUCCESS;
}
API CUptiResult cuptiRangeProfilerGetCounterDataInfo(CUpti_RangeProfiler_GetCounterDataInfo_Params *p)
{
	g_rp_calls++;
	if (!p->pCounterDataImage || p->counterDataImageSize < 128)
		return CUPTI_ERROR_INVALID_PARAMETER;
	p->numTotalRanges = p->pCounterDataImage[0];
	return CUPTI_SUCCESS;
}
API CUptiResult cuptiProfilerHostEvaluateToGpuValues(CUpti_Profiler_Host_EvaluateToGpuValues_Params *p)
{
	uint64_t no;
	if (fails("evaluate"))
		return CUPTI_ERROR_INVALID_OPERATION;
	if (!p->pHostObject || !p->pCounterDataImage || p->counterDataImageSize < 128 ||
	    p->rangeIndex >= p->pCounterDataImage[0] || !p->numMetrics)
		return CUPTI_ERROR_INVALID_PARAMETER;
	memcpy(&no, p->pCounterDataImage + 8, 8);
	for (size_t i = 0; i < p->numMetrics; i++) {
		const char *d = p->ppMetricNames[i];
		int found = 0;
		for (int j = 0; j < p->pHostObject->n && !found; j++)
			found = !strcmp(p->pHostObject->names[j], d);
		if (!found)
			return CUPTI_ERROR_INVALID_METRIC_NAME;
		while (*d && !isdigit((unsigned char)*d))
			d++;
		p->pMetricValues[i] = 1000.0 * (double)no + 100.0 * (double)p->rangeIndex + atoi(d);
	}
	return CUPTI_SUCCESS;
}

/* One kernel launch through the driver callback `cbid` (enter, the kernel, exit), nested in a
 * runtime cudaLaunchKernel when `runtime`. Returns the correlation id the kernel's activity
 * record would carry: the runtime call's when nested, else the driver call's. */
API uint32_t fake_cupti_launch(uint32_t cbid, const char *symbol, uintptr_t ctx, const void *params, int runtime);
API uint32_t fake_cupti_launch(uint32_t cbid, const char *symbol, uintptr_t ctx, const void *params, int runtime)
{
	CUpti_CallbackData r, d;
	uint64_t s1 = 0, s2 = 0;
	int rv = 0;
	uint32_t outer_before = t_outer_corr, drv_before = t_outer_drv;
	CUcontext cur_before = t_cur_ctx;
	memset(&r, 0, sizeof(r));
	memset(&d, 0, sizeof(d));
	r.functionName = "cudaLaunchKernel_v7000", r.correlationData = &s1;
	r.correlationId = __atomic_add_fetch(&g_corr, 2, __ATOMIC_RELAXED) - 1; /* threads: one pair each */
	r.functionReturnValue = &rv, r.symbolName = symbol, r.context = (CUcontext)ctx;
	r.contextUid = (uint32_t)(ctx & 0xffff);
	d = r;
	d.functionName = "cuLaunchKernel", d.correlationId = r.correlationId + 1, d.correlationData = &s2;
	d.functionParams = params;
	/* the driver calls made inside this launch (user replay's) are made inside it */
	t_outer_corr = runtime ? r.correlationId : d.correlationId;
	t_outer_drv = d.correlationId;
	t_cur_ctx = (CUcontext)ctx;
	if (runtime && g_cb && g_cb_on[0][211]) {
		r.callbackSite = CUPTI_API_ENTER;
		g_cb(NULL, CUPTI_CB_DOMAIN_RUNTIME_API, 211, &r);
	}
	if (g_cb && cbid < 1024 && g_cb_on[1][cbid]) {
		d.callbackSite = CUPTI_API_ENTER;
		g_cb(NULL, CUPTI_CB_DOMAIN_DRIVER_API, cbid, &d);
	}
	{ /* the kernel runs (FAKE_CUPTI_LAUNCH_US long): a range of a session started meanwhile */
		int in = g_rp_started;
		if (getenv("FAKE_CUPTI_LAUNCH_US")) {
			usleep((useconds_t)atoi(getenv("FAKE_CUPTI_LAUNCH_US")));
			in |= g_rp_started;
		}
		if (in) {
			__atomic_add_fetch(&g_rp_pending, 1, __ATOMIC_RELAXED);
			__atomic_add_fetch(&g_launches, 1, __ATOMIC_RELAXED);
		}
	}
	if (g_cb && cbid < 1024 && g_cb_on[1][cbid]) {
		d.callbackSite = CUPTI_API_EXIT;
		g_cb(NULL, CUPTI_CB_DOMAIN_DRIVER_API, cbid, &d);
	}
	if (runtime && g_cb && g_cb_on[0][211]) {
		r.callbackSite = CUPTI_API_EXIT;
		g_cb(NULL, CUPTI_CB_DOMAIN_RUNTIME_API, 211, &r);
	}
	t_outer_corr = outer_before, t_outer_drv = drv_before;
	t_cur_ctx = cur_before;
	return runtime ? r.correlationId : d.correlationId;
}

/* cuCtxDestroy of a fake context: the resource callback, when enabled. */
API void fake_cupti_destroy_ctx(uintptr_t ctx);
API void fake_cupti_destroy_ctx(uintptr_t ctx)
{
	CUpti_ResourceData rd;
	memset(&rd, 0, sizeof(rd));
	rd.context = (CUcontext)ctx;
	if (g_cb && g_res_on[CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING])
		g_cb(NULL, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING, &rd);
}

/* ---- user replay: the driver's entry points and CUPTI's checkpoint functions */

#define FLUSH_FN ((CUfunction)(uintptr_t)0xf1a5)
#define FLUSH_MOD ((CUmodule)(uintptr_t)0x40d)
#define FLUSH_BUF ((CUdeviceptr)0x7f0000000000ull)
#define DISCARD_FN ((CUfunction)(uintptr_t)0xd15c)
static int g_saves, g_restores, g_frees, g_replays, g_flushes, g_flush_inside, g_pass_kact;
static int g_discards, g_discard_alone, g_mod_discard, g_last_flush, g_restore_inside, g_bad_args;

API void fake_cupti_replay_counts(int *out);
API void fake_cupti_replay_counts(int *out)
{
	out[0] = g_saves, out[1] = g_restores, out[2] = g_frees;
	out[3] = g_replays, out[4] = g_flushes, out[5] = g_flush_inside, out[6] = g_pass_kact;
	out[7] = g_discards, out[8] = g_discard_alone, out[9] = g_restore_inside, out[10] = g_bad_args;
}

/* The kernels' arguments (cuFuncGetParamInfo): FAKE_CUPTI_PARAMS of 8 bytes each (default
 * none); a replayed launch's first must then hold FAKE_CUPTI_ARG0 (else it is counted bad). */
API CUresult cuFuncGetParamInfo(CUfunction f, size_t i, size_t *off, size_t *size);
API CUresult cuFuncGetParamInfo(CUfunction f, size_t i, size_t *off, size_t *size)
{
	size_t n = getenv("FAKE_CUPTI_PARAMS") ? (size_t)atoi(getenv("FAKE_CUPTI_PARAMS")) : 0;
	(void)f;
	if (i >= n)
		return CUDA_ERROR_INVALID_VALUE;
	*off = 8 * i, *size = 8;
	return CUDA_SUCCESS;
}

/* One driver call: its callback (enter/exit when enabled), the correlation id its records
 * carry (FAKE_CUPTI_NESTED_CORR: the launch call it is made in, when in one). */
static uint32_t drv_call(uint32_t cbid, const char *symbol, const void *params, void (*body)(uint32_t))
{
	CUpti_CallbackData d;
	uint64_t scratch = 0;
	int rv = 0;
	uint32_t own = __atomic_add_fetch(&g_corr, 1, __ATOMIC_RELAXED), rec;
	if (getenv("FAKE_CUPTI_NESTED_CORR") && t_outer_corr)
		rec = !strcmp(getenv("FAKE_CUPTI_NESTED_CORR"), "2") ? t_outer_drv : t_outer_corr;
	else
		rec = own;
	memset(&d, 0, sizeof(d));
	/* nested: the callback gets the outer call's id too, as CUPTI gave it on an H100 */
	d.correlationId = rec, d.correlationData = &scratch, d.functionReturnValue = &rv;
	d.symbolName = symbol, d.functionParams = params, d.context = t_cur_ctx;
	d.functionName = "(driver)";
	if (g_cb && cbid < 1024 && g_cb_on[1][cbid]) {
		d.callbackSite = CUPTI_API_ENTER;
		g_cb(NULL, CUPTI_CB_DOMAIN_DRIVER_API, cbid, &d);
	}
	if (body)
		body(rec);
	if (g_cb && cbid < 1024 && g_cb_on[1][cbid]) {
		d.callbackSite = CUPTI_API_EXIT;
		g_cb(NULL, CUPTI_CB_DOMAIN_DRIVER_API, cbid, &d);
	}
	return rec;
}

static const char *g_kname;
static void kernel_body(uint32_t corr)
{
	if (g_rp_started) {
		__atomic_add_fetch(&g_rp_pending, 1, __ATOMIC_RELAXED);
		__atomic_add_fetch(&g_launches, 1, __ATOMIC_RELAXED);
		if (g_kernel_on) /* on a GPU its SASS metrics would read 0 */
			__atomic_add_fetch(&g_pass_kact, 1, __ATOMIC_RELAXED);
	}
	emit_kernel(corr, g_kname);
}

static void **fake_args(CUpti_CallbackId cbid, const void *params)
{
	if (cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel || cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz)
		return ((const cuLaunchKernel_params *)params)->kernelParams;
	return ((const cuLaunchKernelEx_params *)params)->kernelParams;
}

static CUresult fake_launch(CUpti_CallbackId cbid, CUfunction f, const void *params)
{
	if (f == FLUSH_FN) {
		g_flushes++;
		g_flush_inside += g_rp_started;
		g_kname = "gpudiag_l2_flush";
	} else if (f == DISCARD_FN) {
		g_discards++;
		g_flush_inside += g_rp_started;
		g_discard_alone += !g_last_flush; /* must come right after a read */
		g_kname = "gpudiag_l2_discard";
	} else {
		const char *f = getenv("FAKE_CUPTI_REPLAY_FAIL"); /* N: the Nth replay fails; "all" */
		const char *a0 = getenv("FAKE_CUPTI_ARG0");
		void **args = fake_args(cbid, params);
		g_replays++;
		const char *pr = getenv("FAKE_CUPTI_WANT_PRIORITY"); /* an Ex launch's, when set */
		if (a0 && (!args || !args[0] || *(const uint64_t *)args[0] != strtoull(a0, NULL, 10)))
			g_bad_args++;
		if (pr && (cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx ||
			   cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz)) {
			const CUlaunchConfig *lc = ((const cuLaunchKernelEx_params *)params)->config;
			if (!lc || lc->numAttrs != 1 || !lc->attrs || lc->attrs[0].id != CU_LAUNCH_ATTRIBUTE_PRIORITY ||
			    lc->attrs[0].value.priority != atoi(pr))
				g_bad_args++;
		}
		if (f && (!strcmp(f, "all") || atoi(f) == g_replays))
			return CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES;
		g_kname = "(replayed)";
	}
	g_last_flush = f == FLUSH_FN;
	drv_call(cbid, g_kname, params, kernel_body);
	return CUDA_SUCCESS;
}

API CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
			    unsigned bz, unsigned smem, CUstream s, void **args, void **extra)
{
	cuLaunchKernel_params p = {f, gx, gy, gz, bx, by, bz, smem, s, args, extra};
	if (f == FLUSH_FN && (!args || !args[0] || *(const CUdeviceptr *)args[0] != FLUSH_BUF || !args[1] ||
			      *(const unsigned long long *)args[1] != (2ull * 60 * 1024 * 1024) / 16))
		return CUDA_ERROR_INVALID_VALUE; /* the flush covers twice the L2 (60 MiB here) in 16-byte words */
	if (f == DISCARD_FN && (!args || !args[0] || *(const CUdeviceptr *)args[0] != FLUSH_BUF || !args[1] ||
				*(const unsigned long long *)args[1] != (2ull * 60 * 1024 * 1024) / 128))
		return CUDA_ERROR_INVALID_VALUE; /* ... and its discard in 128-byte lines */
	return fake_launch(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, f, &p);
}
API CUresult cuLaunchKernel_ptsz(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
				 unsigned bz, unsigned smem, CUstream s, void **args, void **extra)
{
	cuLaunchKernel_params p = {f, gx, gy, gz, bx, by, bz, smem, s, args, extra};
	return fake_launch(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz, f, &p);
}
API CUresult cuLaunchKernelEx(const CUlaunchConfig *c, CUfunction f, void **args, void **extra)
{
	cuLaunchKernelEx_params p = {c, f, args, extra};
	return fake_launch(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, f, &p);
}
API CUresult cuLaunchKernelEx_ptsz(const CUlaunchConfig *c, CUfunction f, void **args, void **extra)
{
	cuLaunchKernelEx_params p = {c, f, args, extra};
	return fake_launch(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz, f, &p);
}

static void sync_body(uint32_t corr)
{
	CUpti_ActivitySynchronization2 y;
	memset(&y, 0, sizeof(y));
	y.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
	y.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE;
	y.start = g_clock += 10;
	y.end = g_clock += 10;
	y.correlationId = corr, y.contextId = (uint32_t)((uintptr_t)t_cur_ctx & 0xffff);
	fake_cupti_emit(&y, sizeof(y));
}
API CUresult cuCtxSynchronize(void)
{
	drv_call(CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize, NULL, NULL, sync_body);
	return CUDA_SUCCESS;
}
API CUresult cuCtxGetCurrent(CUcontext *c)
{
	*c = t_cur_ctx;
	return CUDA_SUCCESS;
}
static _Thread_local CUcontext t_pushed[8];
static _Thread_local int t_npushed;
API CUresult cuCtxPushCurrent_v2(CUcontext c)
{
	if (t_npushed == 8)
		return CUDA_ERROR_INVALID_VALUE;
	t_pushed[t_npushed++] = t_cur_ctx;
	t_cur_ctx = c;
	return CUDA_SUCCESS;
}
API CUresult cuCtxPopCurrent_v2(CUcontext *c)
{
	if (!t_npushed)
		return CUDA_ERROR_INVALID_CONTEXT;
	*c = t_cur_ctx;
	t_cur_ctx = t_pushed[--t_npushed];
	return CUDA_SUCCESS;
}
API CUresult cuCtxGetDevice(CUdevice *d)
{
	*d = (CUdevice)(((uintptr_t)t_cur_ctx >> 16) & 0xff);
	return t_cur_ctx ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
}
API CUresult cuDeviceGetAttribute(int *v, CUdevice_attribute a, CUdevice d)
{
	(void)d;
	if (a == CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE)
		*v = 60 * 1024 * 1024;
	else if (a == CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
		*v = 132;
	else if (a == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR) /* FAKE_CUPTI_CC_MAJOR, else 9 */
		*v = getenv("FAKE_CUPTI_CC_MAJOR") ? atoi(getenv("FAKE_CUPTI_CC_MAJOR")) : 9;
	else
		return CUDA_ERROR_INVALID_VALUE;
	return CUDA_SUCCESS;
}
/* The flush's PTX, as the driver would take it: text naming its entry point. */
API CUresult cuModuleLoadData(CUmodule *m, const void *image)
{
	const char *t = image;
	drv_call(CUPTI_DRIVER_TRACE_CBID_cuModuleLoadData, NULL, NULL, NULL);
	if (getenv("FAKE_CUPTI_MODULE_FAIL"))
		return CUDA_ERROR_OUT_OF_MEMORY;
	if (!t || !strstr(t, ".entry gpudiag_l2_flush(") || !strstr(t, "ld.global.cg"))
		return CUDA_ERROR_INVALID_IMAGE;
	/* as the driver: PTX for a newer target than the GPU does not load */
	if (strstr(t, ".target sm_80") && (getenv("FAKE_CUPTI_CC_MAJOR") ? atoi(getenv("FAKE_CUPTI_CC_MAJOR")) : 9) < 8)
		return CUDA_ERROR_NO_BINARY_FOR_GPU;
	/* the compute_80 PTX: its discard kernel has the instruction (compute_75's is empty) */
	g_mod_discard = strstr(t, ".entry gpudiag_l2_discard(") && strstr(t, "discard.global.L2");
	*m = FLUSH_MOD;
	return CUDA_SUCCESS;
}
API CUresult cuModuleGetFunction(CUfunction *f, CUmodule m, const char *name)
{
	drv_call(CUPTI_DRIVER_TRACE_CBID_cuModuleGetFunction, NULL, NULL, NULL);
	if (m == FLUSH_MOD && g_mod_discard && !strcmp(name, "gpudiag_l2_discard")) {
		*f = DISCARD_FN;
		return CUDA_SUCCESS;
	}
	if (m != FLUSH_MOD || strcmp(name, "gpudiag_l2_flush"))
		return CUDA_ERROR_NOT_FOUND;
	*f = FLUSH_FN;
	return CUDA_SUCCESS;
}
static size_t g_alloc_bytes;
static void alloc_body(uint32_t corr)
{
	CUpti_ActivityMemory4 m;
	memset(&m, 0, sizeof(m));
	m.kind = CUPTI_ACTIVITY_KIND_MEMORY2;
	m.memoryOperationType = CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION;
	m.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
	m.timestamp = g_clock += 10;
	m.address = FLUSH_BUF, m.bytes = g_alloc_bytes, m.correlationId = corr;
	m.contextId = (uint32_t)((uintptr_t)t_cur_ctx & 0xffff);
	fake_cupti_emit(&m, sizeof(m));
}
API CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t bytes)
{
	g_alloc_bytes = bytes;
	drv_call(CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2, NULL, NULL, alloc_body);
	*p = FLUSH_BUF;
	return CUDA_SUCCESS;
}
static void memset_body(uint32_t corr)
{
	CUpti_ActivityMemset4 m;
	memset(&m, 0, sizeof(m));
	m.kind = CUPTI_ACTIVITY_KIND_MEMSET;
	m.start = g_clock += 10;
	m.end = g_clock += 10;
	m.bytes = g_alloc_bytes, m.correlationId = corr;
	m.contextId = (uint32_t)((uintptr_t)t_cur_ctx & 0xffff), m.streamId = 7;
	fake_cupti_emit(&m, sizeof(m));
}
API CUresult cuMemsetD8_v2(CUdeviceptr p, unsigned char v, size_t n)
{
	(void)p, (void)v, (void)n;
	drv_call(CUPTI_DRIVER_TRACE_CBID_cuMemsetD8_v2, NULL, NULL, memset_body);
	return CUDA_SUCCESS;
}
API CUresult cuGetErrorString(CUresult r, const char **s)
{
	*s = r == CUDA_SUCCESS ? "no error" : "a fake CUDA error";
	return CUDA_SUCCESS;
}

/* The device's memory (cuMemGetInfo): FAKE_CUPTI_MEM_FREE_MB free (default 80 GiB), less
 * FAKE_CUPTI_CKPT_MB for each checkpoint alive (default 0). */
static int g_ckpt_live;
API CUresult cuMemGetInfo_v2(size_t *free, size_t *total);
API CUresult cuMemGetInfo_v2(size_t *free, size_t *total)
{
	const char *f = getenv("FAKE_CUPTI_MEM_FREE_MB"), *k = getenv("FAKE_CUPTI_CKPT_MB");
	size_t mb = f ? (size_t)atol(f) : 81920, used = k ? (size_t)atol(k) * (size_t)g_ckpt_live : 0;
	*total = (size_t)81920 << 20;
	*free = (mb > used ? mb - used : 0) << 20;
	return CUDA_SUCCESS;
}

/* CUPTI's checkpoint API (cupti_checkpoint.h), with the layout replay.c declares. */
struct fake_ckpt {
	size_t structSize;
	CUcontext ctx;
	size_t reserveDeviceMB, reserveHostMB;
	uint8_t allowOverwrite, optimizations;
	void *pPriv;
};
static int ckpt_fails(const char *what)
{
	const char *f = getenv("FAKE_CUPTI_CKPT_FAIL");
	return f && !strcmp(f, what);
}
API CUptiResult cuptiCheckpointSave(struct fake_ckpt *c)
{
	const char *opt = getenv("FAKE_CUPTI_CKPT_WANT_OPT"); /* the optimisations the test expects */
	const char *host = getenv("FAKE_CUPTI_CKPT_WANT_HOST_MB"); /* ... and host reserve */
	if (!c || c->structSize != sizeof(*c) || !c->ctx || !c->allowOverwrite)
		return CUPTI_ERROR_INVALID_PARAMETER;
	if (opt && c->optimizations != atoi(opt))
		return CUPTI_ERROR_INVALID_PARAMETER;
	if (host && c->reserveHostMB != (size_t)atoll(host))
		return CUPTI_ERROR_INVALID_PARAMETER;
	if (ckpt_fails("save"))
		return CUPTI_ERROR_OUT_OF_MEMORY;
	g_saves++;
	g_ckpt_live++;
	g_clock += 1000000; /* a save takes time (1 ms here): the launch call's record must hold it */
	return CUPTI_SUCCESS;
}
API CUptiResult cuptiCheckpointRestore(struct fake_ckpt *c)
{
	if (!c || c->structSize != sizeof(*c))
		return CUPTI_ERROR_INVALID_PARAMETER;
	g_restore_inside += g_rp_started; /* a batch's later launches: inside their pass's session */
	if (ckpt_fails("restore"))
		return CUPTI_ERROR_UNKNOWN;
	g_restores++;
	return CUPTI_SUCCESS;
}
API CUptiResult cuptiCheckpointFree(struct fake_ckpt *c)
{
	if (!c || c->structSize != sizeof(*c))
		return CUPTI_ERROR_INVALID_PARAMETER;
	g_frees++;
	g_ckpt_live--;
	return CUPTI_SUCCESS;
}
