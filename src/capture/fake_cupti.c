/* A stand-in for libcupti.so.13, for the CPU-tier test of the injection library
 * (inject_check.c): it accepts the setup calls, hands out buffers through the registered
 * callbacks, and delivers records the test emits (fake_cupti_emit) on cuptiActivityFlushAll,
 * exactly as CUPTI's record iterator would present them. Controls: FAKE_CUPTI_BUSY=1 makes
 * cuptiSubscribe fail like under Nsight; FAKE_CUPTI_VERSION=N changes cuptiGetVersion.
 * A flush in a process other than the one that registered (a fork-without-exec child, where
 * real CUPTI blocks forever) creates "$GPUDIAG_RAW_DIR/FLUSH_IN_CHILD". */
#include <cupti.h>
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
	if (!g_names[i][cbid][0]) {
		if (!i && cbid == 211)
			snprintf(g_names[i][cbid], 40, "cudaLaunchKernel_v7000");
		else if (!i && cbid == 31)
			snprintf(g_names[i][cbid], 40, "cudaMemcpy_v3020");
		else if (i && cbid == 307)
			snprintf(g_names[i][cbid], 40, "cuLaunchKernel");
		else
			snprintf(g_names[i][cbid], 40, "%sOther%u", i ? "cu" : "cuda", cbid);
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
