/* libgpudiag_inject.so: the CUPTI activity recorder loaded into every profiled process.
 *
 * `gpudiag run` sets CUDA_INJECTION64_PATH to this library; the CUDA driver dlopens it in
 * cuInit and calls InitializeInjection on the thread making the first CUDA call. NVTX loads
 * it through NVTX_INJECTION64_PATH and calls InitializeInjectionNvtx2, which is forwarded to
 * the libcupti this library is linked with (CUPTI records NVTX only when injected so).
 *
 * Rules, because this code lives inside the user's program (docs/profiling.md):
 *   - setup is cheap and never touches the GPU; every failure leaves the program running
 *     unprofiled and says why in the raw file's status (gpudiag run prints it);
 *   - no stdio, no sqlite, nothing beyond libc, pthread, dl and libcupti;
 *   - API calls of the subset are recorded through CUPTI callbacks into per-thread buffers;
 *     other records are converted into the compact format of src/profile/raw.h and appended to
 *     "$GPUDIAG_RAW_DIR/raw.<pid>" with write(2), so they survive SIGKILL once written; a
 *     thread flushes CUPTI every 500 ms, and an exit handler flushes the rest;
 *   - a fork-without-exec child must not flush (CUPTI's worker thread is gone and the flush
 *     blocks forever): pid guard plus a pthread_atfork child handler.
 * Environment: GPUDIAG_RAW_DIR (required), GPUDIAG_API=subset|all|none (default subset),
 * GPUDIAG_LATENCY=1 (kernels' queued/submitted timestamps; off by default, costly per launch),
 * GPUDIAG_CAPTURE_START_NS / GPUDIAG_CAPTURE_END_NS (CLOCK_REALTIME; --delay/--duration),
 * GPUDIAG_API_VIA=activity (the subset as CUPTI API activity records instead of callbacks),
 * GPUDIAG_API_LIST=prefix,... and GPUDIAG_KINDS=kernel[,memcpy,...] (diagnostics for measuring
 * what each part costs; docs/profiling.md),
 * GPUDIAG_INJECT_DEBUG=1 (one line per problem on stderr), GPUDIAG_CUPTI_ANY_VERSION=1 (trace
 * even when the process's libcupti has another API version than ours: at your own risk, the
 * record layouts may differ), GPUDIAG_METRICS and GPUDIAG_METRICS_* (per-launch counters with
 * CUPTI's range profiler, rangeprof.c: the launch callbacks are then enabled whatever the API
 * mode, and their calls are recorded only as that mode says). */
#include "capture/rangeprof.h"
#include "profile/raw.h"

#include <cupti.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/syscall.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))
#define BUF_SIZE (8u << 20) /* fewer completion callbacks; CUPTI advises 1-10 MB */
#define FLUSH_PERIOD_MS 500

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER; /* strings, output buffer, fd */
static int g_fd = -1;
static pid_t g_pid;
static atomic_int g_disabled;   /* set in a forked child, or when setup failed */
static atomic_int g_stop;
static int g_inited;
static int g_debug;
static CUpti_SubscriberHandle g_sub;
static uint64_t g_lost;         /* records we failed to write */
static int g_rp;                /* range profiling on (rangeprof.c): its callbacks are enabled */

static void dbg(const char *msg, int code)
{
	char line[256];
	int n;
	if (!g_debug)
		return;
	n = snprintf(line, sizeof(line), "gpudiag-inject[%d]: %s (%d)\n", (int)getpid(), msg, code);
	if (n > 0 && write(2, line, (size_t)n) < 0)
		return;
}

/* ---- output: records are assembled in `out` under g_lock and written in one write(2) */

static unsigned char *out;
static size_t out_len, out_cap;

static void *out_reserve(size_t n)
{
	if (out_len + n > out_cap) {
		size_t cap = out_cap ? out_cap * 2 : (1u << 20);
		unsigned char *p;
		while (cap < out_len + n)
			cap *= 2;
		p = realloc(out, cap);
		if (!p)
			return NULL;
		out = p;
		out_cap = cap;
	}
	memset(out + out_len, 0, n);
	out_len += n;
	return out + out_len - n;
}

/* For rangeprof.c (rangeprof.h): the same buffer, strings and lock. */
void gd_inj_lock(void) { pthread_mutex_lock(&g_lock); }
void gd_inj_unlock(void) { pthread_mutex_unlock(&g_lock); }
void *gd_inj_reserve(size_t n)
{
	void *p = out_reserve(n);
	if (!p)
		g_lost++;
	return p;
}
int gd_inj_disabled(void) { return atomic_load_explicit(&g_disabled, memory_order_relaxed); }

/* the flush thread's work and the exit handler's flush; the kernel-record switches */
static pthread_mutex_t g_flush_lock = PTHREAD_MUTEX_INITIALIZER;
/* Kernel records wanted (the capture window is open) and paused (user replay's passes run:
 * gd_inj_kernels_pause); under g_flush_lock once the flush thread runs. */
static int g_kern_want, g_kern_paused;

void gd_inj_kernels_pause(int pause)
{
	pthread_mutex_lock(&g_flush_lock);
	if (pause != g_kern_paused && g_kern_want) {
		if ((pause ? cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)
			   : cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)) != CUPTI_SUCCESS)
			dbg("the kernel records could not be switched for user replay", pause);
	}
	g_kern_paused = pause;
	pthread_mutex_unlock(&g_flush_lock);
}

#define REC(var, T, TYPE)                                            \
	T *var = out_reserve(sizeof(T));                             \
	if (!var) {                                                  \
		g_lost++;                                            \
		break;                                               \
	}                                                            \
	var->h.type = (TYPE);                                        \
	var->h.size = (uint32_t)sizeof(T)

static void write_all(const void *p, size_t n)
{
	const unsigned char *b = p;
	while (n > 0 && g_fd >= 0) {
		ssize_t w = write(g_fd, b, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			dbg("write to raw file failed", errno);
			close(g_fd);
			g_fd = -1;
			return;
		}
		b += w;
		n -= (size_t)w;
	}
}

static void out_flush(void)
{
	if (out_len && g_fd >= 0)
		write_all(out, out_len);
	out_len = 0;
}

void gd_inj_flush(void) { out_flush(); }

/* ---- strings: interned by content (CUPTI's name pointers may be reused after a module
 * unload), ids local to this file; the writer merges them across processes. */

struct str_slot {
	uint64_t hash;
	char *s;
	uint32_t id;
};
static struct str_slot *str_tab;
static size_t str_cap, str_count;
static uint32_t str_next = 1;
static uint32_t api_name_id[2][1024]; /* runtime, driver cbid -> string id */

static uint64_t fnv(const char *s, size_t *len)
{
	uint64_t h = 1469598103934665603ull;
	size_t n = 0;
	for (; s[n]; n++)
		h = (h ^ (unsigned char)s[n]) * 1099511628211ull;
	*len = n;
	return h | 1; /* 0 marks an empty slot */
}

static int str_grow(void)
{
	size_t cap = str_cap ? str_cap * 2 : 1024;
	struct str_slot *t = calloc(cap, sizeof(*t));
	if (!t)
		return -1;
	for (size_t i = 0; i < str_cap; i++) {
		if (!str_tab[i].hash)
			continue;
		size_t j = str_tab[i].hash & (cap - 1);
		while (t[j].hash)
			j = (j + 1) & (cap - 1);
		t[j] = str_tab[i];
	}
	free(str_tab);
	str_tab = t;
	str_cap = cap;
	return 0;
}

/* Returns the id of s, emitting a GD_RAW_STRING record the first time. 0 for NULL.
 * *stored (if given) receives our copy of the string. */
static uint32_t intern_at(const char *s, const char **stored)
{
	size_t len, j;
	uint64_t h;
	struct gd_raw_string *r;
	if (!s)
		return 0;
	if ((str_count + 1) * 2 > str_cap && str_grow() < 0)
		return 0;
	h = fnv(s, &len);
	for (j = h & (str_cap - 1); str_tab[j].hash; j = (j + 1) & (str_cap - 1))
		if (str_tab[j].hash == h && !strcmp(str_tab[j].s, s)) {
			if (stored)
				*stored = str_tab[j].s;
			return str_tab[j].id;
		}
	if (len > (1u << 24))
		len = 1u << 24; /* a 16 MB name is corrupt; keep the file bounded */
	r = out_reserve(sizeof(*r) + ((len + 7) & ~(size_t)7));
	if (!r)
		return 0;
	str_tab[j].s = strdup(s);
	if (!str_tab[j].s)
		return 0;
	str_tab[j].hash = h;
	str_tab[j].id = str_next++;
	str_count++;
	r->h.type = GD_RAW_STRING;
	r->h.size = (uint32_t)(sizeof(*r) + ((len + 7) & ~(size_t)7));
	r->id = str_tab[j].id;
	r->len = (uint32_t)len;
	memcpy(r + 1, s, len);
	if (stored)
		*stored = str_tab[j].s;
	return str_tab[j].id;
}

static uint32_t intern(const char *s) { return intern_at(s, NULL); }
uint32_t gd_inj_intern(const char *s) { return intern(s); }

/* Kernel and NVTX names: CUPTI hands the same pointer for every record of one function, so a
 * small cache keyed by the pointer skips hashing a (often several hundred byte) name per
 * record. The pointer may be reused after a module unload, so a hit is confirmed by comparing
 * the text with our copy (strcmp runs at memory speed; the byte-wise hash does not). */
#define NAME_CACHE 4096
static struct {
	const char *p, *s;
	uint32_t id;
} name_cache[NAME_CACHE];

static uint32_t intern_name(const char *s)
{
	size_t i;
	const char *stored = NULL;
	uint32_t id;
	if (!s)
		return 0;
	i = (size_t)(((uint64_t)(uintptr_t)s * 0x9E3779B97F4A7C15ull) >> 52) & (NAME_CACHE - 1);
	if (name_cache[i].p == s && !strcmp(name_cache[i].s, s))
		return name_cache[i].id;
	id = intern_at(s, &stored);
	if (id && stored) {
		name_cache[i].p = s;
		name_cache[i].s = stored;
		name_cache[i].id = id;
	}
	return id;
}

/* CUPTI's names of the API callbacks, read once at setup so that no CUPTI call is made
 * under our lock in the buffer callback. */
static const char *cb_names[2][1024];

static void load_cb_names(void)
{
	for (int drv = 0; drv < 2; drv++)
		for (uint32_t cb = 1; cb < 1024; cb++)
			if (cuptiGetCallbackName(drv ? CUPTI_CB_DOMAIN_DRIVER_API : CUPTI_CB_DOMAIN_RUNTIME_API, cb,
						 &cb_names[drv][cb]) != CUPTI_SUCCESS)
				cb_names[drv][cb] = NULL;
}

static uint32_t api_name(int driver, uint32_t cbid)
{
	if (cbid >= 1024)
		return 0;
	if (!api_name_id[driver][cbid])
		api_name_id[driver][cbid] = intern(cb_names[driver][cbid]);
	return api_name_id[driver][cbid];
}

/* ---- CUPTI buffers */

static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
	*buffer = aligned_alloc(8, BUF_SIZE);
	*size = *buffer ? BUF_SIZE : 0;
	*max_records = 0;
}

/* User replay's own GPU work (rangeprof.c, "user replay's own work"): never in the profile. */
static int replay_record(const CUpti_Activity *a)
{
	switch (a->kind) {
	case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
		const CUpti_ActivityKernel10 *k = (const CUpti_ActivityKernel10 *)a;
		return gd_rp_drop(GD_RP_REC_KERNEL, k->correlationId, k->contextId, k->start, k->name);
	}
	case CUPTI_ACTIVITY_KIND_MEMCPY:
		return gd_rp_drop(GD_RP_REC_OTHER, ((const CUpti_ActivityMemcpy6 *)a)->correlationId, 0, 0, NULL);
	case CUPTI_ACTIVITY_KIND_MEMCPY2:
		return gd_rp_drop(GD_RP_REC_OTHER, ((const CUpti_ActivityMemcpyPtoP4 *)a)->correlationId, 0, 0, NULL);
	case CUPTI_ACTIVITY_KIND_MEMSET:
		return gd_rp_drop(GD_RP_REC_OTHER, ((const CUpti_ActivityMemset4 *)a)->correlationId, 0, 0, NULL);
	case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
		return gd_rp_drop(GD_RP_REC_OTHER, ((const CUpti_ActivitySynchronization2 *)a)->correlationId, 0, 0, NULL);
	case CUPTI_ACTIVITY_KIND_MEMORY2:
		return gd_rp_drop(GD_RP_REC_OTHER, ((const CUpti_ActivityMemory4 *)a)->correlationId, 0, 0, NULL);
	case CUPTI_ACTIVITY_KIND_RUNTIME:
	case CUPTI_ACTIVITY_KIND_DRIVER:
		return gd_rp_drop(GD_RP_REC_API, ((const CUpti_ActivityAPI *)a)->correlationId, 0, 0, NULL);
	default: return 0;
	}
}

static void convert(CUpti_Activity *a)
{
	if (g_rp && replay_record(a))
		return;
	switch (a->kind) {
	case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
		CUpti_ActivityKernel10 *k = (CUpti_ActivityKernel10 *)a;
		uint32_t name = intern_name(k->name);
		REC(r, struct gd_raw_kernel, GD_RAW_KERNEL);
		r->start = k->start;
		r->end = k->end;
		r->queued = k->queued;
		r->submitted = k->submitted;
		r->graph_node_id = k->graphNodeId;
		r->device = k->deviceId;
		r->context = k->contextId;
		r->stream = k->streamId;
		r->correlation = k->correlationId;
		r->name = name;
		r->grid[0] = k->gridX, r->grid[1] = k->gridY, r->grid[2] = k->gridZ;
		r->block[0] = k->blockX, r->block[1] = k->blockY, r->block[2] = k->blockZ;
		r->cluster[0] = k->clusterX, r->cluster[1] = k->clusterY, r->cluster[2] = k->clusterZ;
		r->regs = k->registersPerThread;
		r->static_smem = (uint32_t)k->staticSharedMemory;
		r->dyn_smem = (uint32_t)k->dynamicSharedMemory;
		r->smem_executed = k->sharedMemoryExecuted;
		r->local_mem_per_thread = k->localMemoryPerThread;
		r->graph_id = k->graphId;
		r->channel_id = k->channelID;
		r->launch_type = k->launchType;
		r->cache_config = k->cacheConfig.both;
		r->shmem_limit_config = (uint8_t)k->shmemLimitConfig;
		r->is_device_launched = k->isDeviceLaunched;
		r->channel_type = (uint8_t)k->channelType;
		break;
	}
	case CUPTI_ACTIVITY_KIND_MEMCPY: {
		CUpti_ActivityMemcpy6 *m = (CUpti_ActivityMemcpy6 *)a;
		REC(r, struct gd_raw_memcpy, GD_RAW_MEMCPY);
		r->start = m->start, r->end = m->end, r->bytes = m->bytes, r->copy_count = m->copyCount;
		r->graph_node_id = m->graphNodeId;
		r->device = m->deviceId, r->context = m->contextId, r->stream = m->streamId;
		r->correlation = m->correlationId, r->graph_id = m->graphId, r->channel_id = m->channelID;
		r->src_device = r->dst_device = UINT32_MAX;
		r->copy_kind = m->copyKind, r->src_kind = m->srcKind, r->dst_kind = m->dstKind;
		r->flags = m->flags, r->channel_type = (uint8_t)m->channelType;
		break;
	}
	case CUPTI_ACTIVITY_KIND_MEMCPY2: {
		CUpti_ActivityMemcpyPtoP4 *m = (CUpti_ActivityMemcpyPtoP4 *)a;
		REC(r, struct gd_raw_memcpy, GD_RAW_MEMCPY);
		r->start = m->start, r->end = m->end, r->bytes = m->bytes, r->copy_count = 1;
		r->graph_node_id = m->graphNodeId;
		r->device = m->deviceId, r->context = m->contextId, r->stream = m->streamId;
		r->correlation = m->correlationId, r->graph_id = m->graphId, r->channel_id = m->channelID;
		r->src_device = m->srcDeviceId, r->dst_device = m->dstDeviceId;
		r->copy_kind = m->copyKind, r->src_kind = m->srcKind, r->dst_kind = m->dstKind;
		r->flags = m->flags, r->channel_type = (uint8_t)m->channelType;
		break;
	}
	case CUPTI_ACTIVITY_KIND_MEMSET: {
		CUpti_ActivityMemset4 *m = (CUpti_ActivityMemset4 *)a;
		REC(r, struct gd_raw_memset, GD_RAW_MEMSET);
		r->start = m->start, r->end = m->end, r->bytes = m->bytes, r->graph_node_id = m->graphNodeId;
		r->device = m->deviceId, r->context = m->contextId, r->stream = m->streamId;
		r->correlation = m->correlationId, r->value = m->value, r->graph_id = m->graphId;
		r->flags = m->flags, r->mem_kind = m->memoryKind;
		break;
	}
	case CUPTI_ACTIVITY_KIND_RUNTIME:
	case CUPTI_ACTIVITY_KIND_DRIVER: {
		CUpti_ActivityAPI *p = (CUpti_ActivityAPI *)a;
		int drv = a->kind == CUPTI_ACTIVITY_KIND_DRIVER;
		uint32_t name = api_name(drv, p->cbid);
		REC(r, struct gd_raw_api, GD_RAW_API);
		r->start = p->start, r->end = p->end;
		r->domain = drv ? 2 : 1, r->cbid = p->cbid, r->tid = p->threadId;
		r->correlation = p->correlationId, r->return_value = p->returnValue, r->name = name;
		break;
	}
	case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: {
		CUpti_ActivitySynchronization2 *s = (CUpti_ActivitySynchronization2 *)a;
		REC(r, struct gd_raw_sync, GD_RAW_SYNC);
		r->start = s->start, r->end = s->end, r->type = s->type, r->context = s->contextId;
		r->stream = s->streamId, r->correlation = s->correlationId, r->cuda_event = s->cudaEventId;
		r->return_value = s->returnValue;
		break;
	}
	case CUPTI_ACTIVITY_KIND_MARKER: {
		CUpti_ActivityMarker2 *m = (CUpti_ActivityMarker2 *)a;
		uint32_t name = intern_name(m->name), domain = intern_name(m->domain);
		REC(r, struct gd_raw_marker, GD_RAW_MARKER);
		r->timestamp = m->timestamp, r->flags = m->flags, r->id = m->id;
		r->object_kind = m->objectKind;
		r->pid = m->objectId.pt.processId, r->tid = m->objectId.pt.threadId;
		r->name = name, r->domain = domain;
		break;
	}
	case CUPTI_ACTIVITY_KIND_MARKER_DATA: {
		CUpti_ActivityMarkerData2 *m = (CUpti_ActivityMarkerData2 *)a;
		REC(r, struct gd_raw_marker_data, GD_RAW_MARKER_DATA);
		r->flags = m->flags, r->id = m->id, r->payload_kind = m->payloadKind;
		r->color = m->color, r->category = m->category, r->has_payload = 1;
		switch ((int)m->payloadKind) {
		case CUPTI_METRIC_VALUE_KIND_DOUBLE:
		case CUPTI_METRIC_VALUE_KIND_PERCENT:
			r->payload = m->payload.metricValueDouble;
			break;
		case CUPTI_METRIC_VALUE_KIND_UINT64:
		case CUPTI_METRIC_VALUE_KIND_THROUGHPUT:
			r->payload = (double)m->payload.metricValueUint64;
			break;
		case CUPTI_METRIC_VALUE_KIND_INT64:
			r->payload = (double)m->payload.metricValueInt64;
			break;
		default:
			r->has_payload = 0;
		}
		break;
	}
	case CUPTI_ACTIVITY_KIND_MEMORY2: {
		CUpti_ActivityMemory4 *m = (CUpti_ActivityMemory4 *)a;
		REC(r, struct gd_raw_memory, GD_RAW_MEMORY);
		r->timestamp = m->timestamp, r->address = m->address, r->bytes = m->bytes;
		r->operation = m->memoryOperationType, r->mem_kind = m->memoryKind;
		r->correlation = m->correlationId, r->device = m->deviceId, r->context = m->contextId;
		r->stream = m->streamId, r->is_async = m->isAsync;
		r->pool_type = m->memoryPoolConfig.memoryPoolType;
		break;
	}
	case CUPTI_ACTIVITY_KIND_OVERHEAD: {
		CUpti_ActivityOverhead3 *o = (CUpti_ActivityOverhead3 *)a;
		REC(r, struct gd_raw_overhead, GD_RAW_OVERHEAD);
		r->start = o->start, r->end = o->end, r->kind = o->overheadKind;
		r->object_kind = o->objectKind, r->correlation = o->correlationId;
		r->object_id = o->objectKind == CUPTI_ACTIVITY_OBJECT_THREAD ? o->objectId.pt.threadId
			     : o->objectKind == CUPTI_ACTIVITY_OBJECT_PROCESS ? o->objectId.pt.processId
									     : o->objectId.dcs.deviceId;
		break;
	}
	case CUPTI_ACTIVITY_KIND_CONTEXT: {
		CUpti_ActivityContext3 *c = (CUpti_ActivityContext3 *)a;
		REC(r, struct gd_raw_context, GD_RAW_CONTEXT);
		r->context = c->contextId, r->device = c->deviceId, r->null_stream = c->nullStreamId;
		break;
	}
	case CUPTI_ACTIVITY_KIND_STREAM: {
		CUpti_ActivityStream *s = (CUpti_ActivityStream *)a;
		REC(r, struct gd_raw_stream, GD_RAW_STREAM);
		r->context = s->contextId, r->stream = s->streamId, r->priority = s->priority;
		r->flags = s->flag, r->correlation = s->correlationId;
		break;
	}
	case CUPTI_ACTIVITY_KIND_DEVICE: {
		CUpti_ActivityDevice5 *d = (CUpti_ActivityDevice5 *)a;
		uint32_t name = intern(d->name);
		REC(r, struct gd_raw_device, GD_RAW_DEVICE);
		r->global_mem_bytes = d->globalMemorySize, r->mem_bandwidth_kbps = d->globalMemoryBandwidth;
		memcpy(r->uuid, &d->uuid, sizeof(r->uuid));
		r->ordinal = d->id, r->name = name;
		r->cc_major = d->computeCapabilityMajor, r->cc_minor = d->computeCapabilityMinor;
		r->sm_count = d->numMultiprocessors, r->warp_size = d->numThreadsPerWarp;
		r->max_threads_per_block = d->maxThreadsPerBlock;
		r->max_warps_per_sm = d->maxWarpsPerMultiprocessor;
		r->max_blocks_per_sm = d->maxBlocksPerMultiprocessor;
		r->regs_per_sm = d->maxRegistersPerMultiprocessor, r->regs_per_block = d->maxRegistersPerBlock;
		r->smem_per_sm = d->maxSharedMemoryPerMultiprocessor;
		r->smem_per_block = d->maxSharedMemoryPerBlock;
		r->l2_bytes = d->l2CacheSize, r->sm_clock_khz = d->coreClockRate;
		r->async_engines = d->numMemcpyEngines;
		break;
	}
	default:
		break;
	}
}

/* Records we failed to keep since the last call, as one DROPPED record. Caller holds g_lock. */
static void lost_record(void)
{
	struct gd_raw_dropped *r;
	if (!g_lost || !(r = out_reserve(sizeof(*r))))
		return;
	r->h.type = GD_RAW_DROPPED, r->h.size = sizeof(*r);
	r->count = g_lost, r->source = 1;
	g_lost = 0;
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size,
				      size_t valid)
{
	CUpti_Activity *a = NULL;
	size_t dropped = 0;
	/* In a fork-without-exec child nothing may be written: the file belongs to the parent. */
	if (getpid() != g_pid || atomic_load(&g_disabled)) {
		free(buffer);
		return;
	}
	/* Asked before taking our lock: CUPTI may deliver buffers from its worker thread while a
	 * flush in another thread holds CUPTI's own locks and waits for ours. */
	if (cuptiActivityGetNumDroppedRecords(ctx, stream, &dropped) != CUPTI_SUCCESS)
		dropped = 0;
	pthread_mutex_lock(&g_lock);
	while (valid && cuptiActivityGetNextRecord(buffer, valid, &a) == CUPTI_SUCCESS)
		convert(a);
	if (dropped) {
		struct gd_raw_dropped *r = out_reserve(sizeof(*r));
		if (r) {
			r->h.type = GD_RAW_DROPPED, r->h.size = sizeof(*r);
			r->count = dropped, r->source = 0, r->stream = stream;
			r->context = 0; /* the CUcontext pointer is not CUPTI's context id */
		}
	}
	lost_record();
	out_flush();
	pthread_mutex_unlock(&g_lock);
	free(buffer);
}

/* ---- flushing: a background thread, and the exit handler */

static uint64_t now_ns(void);
static int set_heavy(int on);
static void tbuf_drain_all(void);
static int g_api_cb;
static void status_record(uint32_t status, uint32_t detail);

/* --delay/--duration: the heavy record kinds are on only inside [g_gate_start, g_gate_end)
 * (CLOCK_REALTIME ns, 0 = open), switched by the flush thread; records outside are also
 * dropped by the writer, so a late switch costs overhead, never correctness. */
static uint64_t g_gate_start, g_gate_end;
static int g_gate; /* 0 waiting for the start, 1 on, 2 past the end */

static void *flush_thread(void *arg)
{
	struct timespec ts = {0, 100 * 1000000L};
	unsigned tick = 0;
	while (!atomic_load(&g_stop)) {
		nanosleep(&ts, NULL);
		if (atomic_load(&g_stop) || atomic_load(&g_disabled) || getpid() != g_pid)
			break;
		tick++;
		pthread_mutex_lock(&g_flush_lock);
		if (!atomic_load(&g_stop)) { /* the exit handler may have run meanwhile */
			uint64_t t = now_ns();
			int flush = tick % (FLUSH_PERIOD_MS / 100) == 0;
			if (g_gate == 0 && t >= g_gate_start) {
				int r = set_heavy(1);
				if (r != CUPTI_SUCCESS)
					status_record(GD_RAW_ST_CUPTI_ERROR, (uint32_t)r);
				g_gate = 1;
			}
			if (g_gate == 1 && g_gate_end && t >= g_gate_end) {
				set_heavy(0);
				g_gate = 2;
				flush = 1;
			}
			if (flush) {
				if (g_api_cb)
					tbuf_drain_all();
				cuptiActivityFlushAll(0);
			}
		}
		pthread_mutex_unlock(&g_flush_lock);
	}
	return NULL;
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void at_exit(void)
{
	struct gd_raw_end e;
	if (getpid() != g_pid || atomic_load(&g_disabled))
		return;
	atomic_store(&g_stop, 1);
	if (g_rp)
		gd_rp_exit();
	pthread_mutex_lock(&g_flush_lock);
	cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
	if (g_api_cb)
		tbuf_drain_all();
	pthread_mutex_unlock(&g_flush_lock);
	pthread_mutex_lock(&g_lock);
	lost_record(); /* what the last drains could not keep */
	out_flush();
	memset(&e, 0, sizeof(e));
	e.h.type = GD_RAW_END, e.h.size = sizeof(e), e.end_ns = now_ns();
	write_all(&e, sizeof(e));
	pthread_mutex_unlock(&g_lock);
}

/* The child of fork() without exec: CUPTI's threads did not come along, so never call
 * CUPTI here, and never write into the parent's file. (An exec'd child loads its own copy
 * of this library and gets its own raw.<pid>.) */
static void atfork_child(void)
{
	atomic_store(&g_disabled, 1);
	g_fd = -1; /* the inherited descriptor is the parent's; closed by exec or exit */
}

/* ---- API calls recorded through CUPTI callbacks (GPUDIAG_API_VIA=callback)
 *
 * Instead of CUPTI's RUNTIME/DRIVER activity records, the subset's callback ids are enabled on
 * our subscriber and each call is recorded here: a timestamp on entry (kept in CUPTI's
 * per-call correlationData slot), the record on exit. Records go to a per-thread buffer (its
 * own mutex, uncontended except when the flush thread drains it), so the application's thread
 * never waits for the buffer-completed callback's work. A runtime call's internal driver calls
 * also reach the driver callback; they are skipped (per-thread nesting depth), so the records
 * are the same calls the activity path reports. */

#define TBUF_BYTES (64u << 10)
struct tbuf {
	pthread_mutex_t mu;
	struct tbuf *next;
	size_t len;
	unsigned char data[TBUF_BYTES];
};
static struct tbuf *g_tbufs; /* every thread's buffer; pushed under g_lock, never freed */
static _Thread_local struct tbuf *t_buf;
static _Thread_local uint32_t t_tid;
static _Thread_local int t_rt_depth;
static int g_api_cb; /* 1: API calls via callbacks */
/* runtime, driver callback ids whose calls are recorded: an enabled callback may be there for
 * the range profiler only (GPUDIAG_API=none, the activity path, outside --delay/--duration) */
static unsigned char g_rec[2][1024];

/* Caller holds b->mu. */
static void tbuf_drain(struct tbuf *b)
{
	if (!b->len)
		return;
	pthread_mutex_lock(&g_lock);
	{
		unsigned char *dst = out_reserve(b->len);
		if (dst)
			memcpy(dst, b->data, b->len);
		else
			g_lost += b->len / sizeof(struct gd_raw_api);
		out_flush();
	}
	pthread_mutex_unlock(&g_lock);
	b->len = 0;
}

static void tbuf_drain_all(void)
{
	struct tbuf *b;
	pthread_mutex_lock(&g_lock);
	b = g_tbufs;
	pthread_mutex_unlock(&g_lock);
	for (; b; b = b->next) {
		pthread_mutex_lock(&b->mu);
		tbuf_drain(b);
		pthread_mutex_unlock(&b->mu);
	}
}

static struct tbuf *tbuf_get(void)
{
	struct tbuf *b = t_buf;
	if (b)
		return b;
	b = calloc(1, sizeof(*b));
	if (!b)
		return NULL;
	pthread_mutex_init(&b->mu, NULL);
	t_tid = (uint32_t)syscall(SYS_gettid);
	pthread_mutex_lock(&g_lock);
	b->next = g_tbufs;
	g_tbufs = b;
	pthread_mutex_unlock(&g_lock);
	t_buf = b;
	return b;
}

static void CUPTIAPI api_callback(void *ud, CUpti_CallbackDomain dom, CUpti_CallbackId cbid, const void *data)
{
	const CUpti_CallbackData *cb = data;
	const int drv = dom == CUPTI_CB_DOMAIN_DRIVER_API;
	uint64_t t = 0;
	(void)ud;
	if (dom == CUPTI_CB_DOMAIN_RESOURCE) {
		if (g_rp)
			gd_rp_resource(cbid, data);
		return;
	}
	if (dom != CUPTI_CB_DOMAIN_RUNTIME_API && !drv)
		return;
	/* the call's start, taken before the range profiler's enter callback: user replay saves
	 * the launch's memory there, and the call's time must hold that (the analysis cuts a
	 * replay out of the timeline by its call: replaycut.h) */
	if (cb->callbackSite == CUPTI_API_ENTER && cbid < 1024 && g_rec[drv][cbid] && cb->correlationData &&
	    cuptiGetTimestamp(&t) == CUPTI_SUCCESS)
		*cb->correlationData = t;
	if (g_rp) {
		gd_rp_api(dom, cbid, cb);
		if (gd_rp_internal())
			return; /* user replay's own call (rangeprof.c): not the program's */
	}
	if (cbid >= 1024 || !g_rec[drv][cbid])
		return;
	if (cb->callbackSite == CUPTI_API_ENTER) {
		if (!drv)
			t_rt_depth++;
		return;
	}
	if (!drv && t_rt_depth > 0)
		t_rt_depth--;
	else if (drv && t_rt_depth > 0)
		return; /* inside a runtime call: the runtime record stands for it */
	/* g_disabled covers a fork-without-exec child (atfork handler); no getpid() here: it is a
	 * system call on every traced call (≈ 1.3 µs in a VM, measured by inject_check bench) */
	if (atomic_load_explicit(&g_disabled, memory_order_relaxed) || cbid >= 1024)
		return;
	{
		struct tbuf *b = tbuf_get();
		struct gd_raw_api *r;
		if (!b) { /* no memory for this thread's buffer: counted, never silent */
			pthread_mutex_lock(&g_lock);
			g_lost++;
			pthread_mutex_unlock(&g_lock);
			return;
		}
		cuptiGetTimestamp(&t);
		pthread_mutex_lock(&b->mu);
		if (b->len + sizeof(*r) > TBUF_BYTES)
			tbuf_drain(b);
		r = (struct gd_raw_api *)(void *)(b->data + b->len);
		memset(r, 0, sizeof(*r));
		r->h.type = GD_RAW_API, r->h.size = sizeof(*r);
		r->start = cb->correlationData ? *cb->correlationData : t, r->end = t;
		r->domain = drv ? 2 : 1, r->cbid = cbid, r->tid = t_tid;
		r->correlation = cb->correlationId;
		r->return_value = cb->functionReturnValue ? (uint32_t)*(const int *)cb->functionReturnValue : 0;
		r->name = api_name_id[drv][cbid];
		b->len += sizeof(*r);
		pthread_mutex_unlock(&b->mu);
	}
}

/* ---- setup */

static const char *const rt_subset[] = {
	"cudaLaunch", "__cudaLaunch", "cudaMemcpy", "cudaMemset", "cudaMalloc", "cudaFree",
	"cudaHostAlloc", "cudaHostRegister", "cudaDeviceSynchronize", "cudaStreamSynchronize",
	"cudaEventSynchronize", "cudaStreamWaitEvent", "cudaGraphLaunch", "cudaProfilerStart",
	"cudaProfilerStop", "cudaDeviceReset", NULL};
static const char *const drv_subset[] = {
	"cuLaunch", "cuMemcpy", "cuMemset", "cuMemAlloc", "cuMemFree", "cuMemHostAlloc", "cuMemCreate",
	"cuMemRelease", "cuCtxSynchronize", "cuStreamSynchronize", "cuEventSynchronize", "cuStreamWaitEvent",
	"cuGraphLaunch", "cuProfilerStart", "cuProfilerStop", NULL};

static int prefix_in(const char *name, const char *const *list)
{
	for (; *list; list++)
		if (!strncmp(name, *list, strlen(*list)))
			return 1;
	return 0;
}

/* Switches only the API calls worth their cost (launches, copies, syncs, allocations): a
 * framework calls cudaGetDevice and friends thousands of times per step. The whole RUNTIME and
 * DRIVER kinds are never enabled in this mode: CUPTI then instruments every API entry point and
 * filters afterwards, so each of those thousands of calls would pay for tracing it does not
 * keep. Per-cbid enabling without the kind is CUPTI's documented way to trace a small set
 * (cupti_activity.h, cuptiActivityEnableRuntimeApi). A runtime call's internal driver calls
 * are not reported as DRIVER records (checked on the H200 profiles of run 3), so tracing
 * cuLaunchKernel etc. adds records only for programs that call the driver themselves (Triton). */
static const char *const *g_rt_list = rt_subset, *const *g_drv_list = drv_subset;
static const char *g_api_list[64]; /* GPUDIAG_API_LIST: name prefixes replacing both subsets */

static void parse_api_list(const char *env)
{
	static char copy[1024];
	size_t n = 0;
	char *save = NULL, *tok;
	snprintf(copy, sizeof(copy), "%s", env);
	for (tok = strtok_r(copy, ",", &save); tok && n + 1 < sizeof(g_api_list) / sizeof(g_api_list[0]);
	     tok = strtok_r(NULL, ",", &save))
		if (*tok)
			g_api_list[n++] = tok;
	g_api_list[n] = NULL;
	g_rt_list = g_drv_list = g_api_list;
}

static void enable_api_subset(int on)
{
	for (int drv = 0; drv < 2; drv++) {
		uint32_t size = drv ? CUPTI_DRIVER_TRACE_CBID_SIZE : CUPTI_RUNTIME_TRACE_CBID_SIZE;
		for (uint32_t cb = 1; cb < size && cb < 1024; cb++) {
			if (!cb_names[drv][cb] || !prefix_in(cb_names[drv][cb], drv ? g_drv_list : g_rt_list))
				continue;
			if (g_api_cb) {
				CUpti_CallbackDomain dom = drv ? CUPTI_CB_DOMAIN_DRIVER_API : CUPTI_CB_DOMAIN_RUNTIME_API;
				if (on && !api_name_id[drv][cb]) {
					pthread_mutex_lock(&g_lock);
					api_name(drv, cb);
					pthread_mutex_unlock(&g_lock);
				}
				g_rec[drv][cb] = (unsigned char)on;
				/* a launch callback stays on for the range profiler, unrecorded */
				if (on || !(g_rp && gd_rp_wants(dom, cb, cb_names[drv][cb])))
					cuptiEnableCallback((uint32_t)on, g_sub, dom, cb);
			} else if (drv) {
				cuptiActivityEnableDriverApi(cb, (uint8_t)on);
			} else {
				cuptiActivityEnableRuntimeApi(cb, (uint8_t)on);
			}
		}
	}
}

static uint32_t g_api_mode;

/* The launch callbacks (both API domains) and context destruction, for rangeprof.c. */
static void enable_rp_callbacks(void)
{
	for (int drv = 0; drv < 2; drv++) {
		CUpti_CallbackDomain dom = drv ? CUPTI_CB_DOMAIN_DRIVER_API : CUPTI_CB_DOMAIN_RUNTIME_API;
		uint32_t size = drv ? CUPTI_DRIVER_TRACE_CBID_SIZE : CUPTI_RUNTIME_TRACE_CBID_SIZE;
		for (uint32_t cb = 1; cb < size && cb < 1024; cb++)
			if (gd_rp_wants(dom, cb, cb_names[drv][cb]) && cuptiEnableCallback(1, g_sub, dom, cb) != CUPTI_SUCCESS)
				dbg("a launch callback for the range profiler could not be enabled", (int)cb);
	}
	if (cuptiEnableCallback(1, g_sub, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING) !=
	    CUPTI_SUCCESS)
		dbg("the context-destruction callback could not be enabled", 0);
}

/* The record kinds that cost: on for the capture window (the whole run by default). */
static int set_heavy(int on)
{
	static const struct {
		CUpti_ActivityKind kind;
		const char *name;
	} heavy[] = {
		{CUPTI_ACTIVITY_KIND_MEMCPY, "memcpy"}, {CUPTI_ACTIVITY_KIND_MEMCPY2, "memcpy"},
		{CUPTI_ACTIVITY_KIND_MEMSET, "memset"}, {CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, "sync"},
		{CUPTI_ACTIVITY_KIND_MEMORY2, "memory"}, {CUPTI_ACTIVITY_KIND_OVERHEAD, "overhead"},
	};
	/* GPUDIAG_KINDS=kernel[,memcpy,memset,sync,memory,overhead]: only the kinds listed besides
	 * kernels (a diagnostic for measuring what each kind costs; tests/gpu/overhead.sh) */
	const char *only = getenv("GPUDIAG_KINDS");
	CUptiResult r = CUPTI_SUCCESS;
	g_kern_want = on;
	if (!g_kern_paused)
		r = on ? cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)
		       : cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
	for (size_t i = 0; i < sizeof(heavy) / sizeof(heavy[0]); i++) {
		if (only && !strstr(only, heavy[i].name))
			continue;
		if ((on ? cuptiActivityEnable(heavy[i].kind) : cuptiActivityDisable(heavy[i].kind)) != CUPTI_SUCCESS)
			dbg("an optional activity kind could not be switched", (int)heavy[i].kind);
	}
	if (g_api_mode == 2 && on) {
		cuptiActivityEnable(CUPTI_ACTIVITY_KIND_RUNTIME);
		cuptiActivityEnable(CUPTI_ACTIVITY_KIND_DRIVER);
	} else if (g_api_mode == 2) {
		cuptiActivityDisable(CUPTI_ACTIVITY_KIND_RUNTIME);
		cuptiActivityDisable(CUPTI_ACTIVITY_KIND_DRIVER);
	} else if (g_api_mode == 1) {
		enable_api_subset(on);
	}
	return (int)r;
}

static void read_cmdline(char *buf, size_t n)
{
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	ssize_t len = 0, r;
	buf[0] = 0;
	if (fd < 0)
		return;
	while ((size_t)len < n - 1 && (r = read(fd, buf + len, n - 1 - (size_t)len)) > 0)
		len += r;
	close(fd);
	if (len < 0)
		len = 0;
	buf[len] = 0;
	for (ssize_t i = 0; i + 1 < len; i++)
		if (!buf[i])
			buf[i] = ' ';
	while (len > 0 && (buf[len - 1] == ' ' || !buf[len - 1]))
		buf[--len] = 0;
}

static void write_header(uint32_t status, uint32_t cupti_version, uint32_t api_mode)
{
	struct gd_raw_header h;
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, GD_RAW_MAGIC, 8);
	h.version = GD_RAW_VERSION;
	h.bom = GD_RAW_BOM;
	h.pid = (uint32_t)getpid();
	h.ppid = (uint32_t)getppid();
	h.status = status;
	h.cupti_version = cupti_version;
	h.start_ns = now_ns();
	h.built_cupti_version = CUPTI_API_VERSION;
	h.api_mode = api_mode;
	write_all(&h, sizeof(h));
}

static void write_process(void)
{
	char cmd[8192];
	struct gd_raw_process *p;
	read_cmdline(cmd, sizeof(cmd));
	pthread_mutex_lock(&g_lock);
	{
		uint32_t id = intern(cmd);
		p = out_reserve(sizeof(*p));
		if (p) {
			p->h.type = GD_RAW_PROCESS, p->h.size = sizeof(*p);
			p->start_ns = now_ns(), p->ppid = (uint32_t)getppid(), p->command_line = id;
		}
	}
	out_flush();
	pthread_mutex_unlock(&g_lock);
}

static void status_record(uint32_t status, uint32_t detail)
{
	struct gd_raw_status_rec s;
	memset(&s, 0, sizeof(s));
	s.h.type = GD_RAW_STATUS, s.h.size = sizeof(s), s.status = status, s.detail = detail;
	pthread_mutex_lock(&g_lock);
	write_all(&s, sizeof(s));
	pthread_mutex_unlock(&g_lock);
}

/* Subscribing claims CUPTI (one subscriber per process) so that another tool's failure to
 * subscribe, or ours, is detected. No callback domain is enabled unless API calls are recorded
 * through callbacks (api_callback). */
EXPORT int InitializeInjection(void);
EXPORT int InitializeInjection(void)
{
	const char *dir = getenv("GPUDIAG_RAW_DIR"), *api = getenv("GPUDIAG_API");
	char path[4096];
	uint32_t version = 0, api_mode = 1;
	CUptiResult r;
	pthread_t th;
	static const CUpti_ActivityKind always[] = {
		CUPTI_ACTIVITY_KIND_MARKER, CUPTI_ACTIVITY_KIND_MARKER_DATA, CUPTI_ACTIVITY_KIND_CONTEXT,
		CUPTI_ACTIVITY_KIND_STREAM, CUPTI_ACTIVITY_KIND_DEVICE,
	};

	if (g_inited)
		return 1;
	g_inited = 1;
	g_debug = getenv("GPUDIAG_INJECT_DEBUG") != NULL;
	g_pid = getpid();
	if (!dir || !*dir)
		return 1; /* not started by gpudiag run: do nothing, harm nothing */
	if (api && !strcmp(api, "none"))
		api_mode = 0;
	else if (api && !strcmp(api, "all"))
		api_mode = 2;
	/* A process that exec'd another CUDA program keeps its pid: the new image gets
	 * raw.<pid>.1, .2, ... so the first one's records are not overwritten. */
	snprintf(path, sizeof(path), "%s/raw.%d", dir, (int)g_pid);
	for (int i = 1; i < 1000; i++) {
		g_fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0600);
		if (g_fd >= 0 || errno != EEXIST)
			break;
		snprintf(path, sizeof(path), "%s/raw.%d.%d", dir, (int)g_pid, i);
	}
	if (g_fd < 0) {
		dbg("cannot create the raw file", errno);
		return 1;
	}

	/* The record layouts are those of the header we were compiled with; a process that
	 * already loaded another libcupti.so.13 (a framework's wheel) gets that one. */
	if (cuptiGetVersion(&version) != CUPTI_SUCCESS ||
	    (version != CUPTI_API_VERSION && !getenv("GPUDIAG_CUPTI_ANY_VERSION"))) {
		write_header(GD_RAW_ST_CUPTI_VERSION, version, api_mode);
		write_process();
		atomic_store(&g_disabled, 1);
		return 1;
	}
	r = cuptiSubscribe(&g_sub, api_callback, NULL);
	if (r != CUPTI_SUCCESS) {
		write_header(r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED ? GD_RAW_ST_CUPTI_BUSY
										  : GD_RAW_ST_CUPTI_ERROR,
			     version, api_mode);
		write_process();
		dbg("cuptiSubscribe failed", (int)r);
		atomic_store(&g_disabled, 1);
		return 1;
	}
	write_header(GD_RAW_ST_OK, version, api_mode);
	write_process();
	load_cb_names();
	/* GPUDIAG_METRICS: reads the environment only; no profiler call before a selected launch */
	g_rp = gd_rp_init(g_debug);
	/* OS thread ids (gettid) in every record, the ids the callback path records too */
	if (cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM) != CUPTI_SUCCESS)
		dbg("thread id type not set", 0);
	if (getenv("GPUDIAG_API_LIST") && *getenv("GPUDIAG_API_LIST"))
		parse_api_list(getenv("GPUDIAG_API_LIST"));
	/* the subset is recorded through callbacks unless GPUDIAG_API_VIA=activity (CUPTI's API
	 * records; measured ×1.61 vs ×1.30 step time on a PyTorch step, docs/profiling.md) */
	g_api_cb = !(getenv("GPUDIAG_API_VIA") && !strcmp(getenv("GPUDIAG_API_VIA"), "activity"));

	/* queued/submitted cost the driver extra work on every launch; only on request
	 * (gpudiag run --latency). The kernels table then has NULL there. */
	if (getenv("GPUDIAG_LATENCY") && !strcmp(getenv("GPUDIAG_LATENCY"), "1"))
		cuptiActivityEnableLatencyTimestamps(1);
	{
		/* Device buffers for GPU timestamps: 8 MB (≈ 250 000 kernels/copies) instead of
		 * CUPTI's 3.2 MB. CUPTI allocates a new one on the application's thread when the
		 * pool runs dry (a stall in the launch path) and drops timestamps when it cannot:
		 * launch-bound programs fill 3.2 MB in half a flush period. Costs 3 × 8 MB of
		 * device memory per context (CUPTI preallocates 3). */
		size_t sz = sizeof(size_t), dev_buf = 8u << 20;
		if (cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_SIZE, &sz, &dev_buf) != CUPTI_SUCCESS)
			dbg("device buffer size not set", 0);
	}
	r = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
	if (r != CUPTI_SUCCESS) {
		status_record(GD_RAW_ST_CUPTI_ERROR, (uint32_t)r);
		dbg("cuptiActivityRegisterCallbacks failed", (int)r);
		atomic_store(&g_disabled, 1);
		return 1;
	}
	/* Cheap, structural kinds always (the legacy default stream, devices, NVTX ranges that
	 * define capture windows); the rest from the capture start. */
	for (size_t i = 0; i < sizeof(always) / sizeof(always[0]); i++)
		if ((r = cuptiActivityEnable(always[i])) != CUPTI_SUCCESS)
			dbg("an optional activity kind could not be enabled", (int)always[i]);
	g_api_mode = api_mode;
	if (g_rp)
		enable_rp_callbacks();
	if (getenv("GPUDIAG_CAPTURE_START_NS"))
		g_gate_start = strtoull(getenv("GPUDIAG_CAPTURE_START_NS"), NULL, 10);
	if (getenv("GPUDIAG_CAPTURE_END_NS"))
		g_gate_end = strtoull(getenv("GPUDIAG_CAPTURE_END_NS"), NULL, 10);
	if (g_gate_start > now_ns()) {
		g_gate = 0;
	} else {
		g_gate = 1;
		r = (CUptiResult)set_heavy(1);
		if (r != CUPTI_SUCCESS) {
			status_record(GD_RAW_ST_CUPTI_ERROR, (uint32_t)r);
			dbg("enabling kernel records failed", (int)r);
			atomic_store(&g_disabled, 1);
			return 1;
		}
	}

	pthread_atfork(NULL, NULL, atfork_child);
	atexit(at_exit);
	{
		pthread_attr_t at;
		pthread_attr_init(&at);
		pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
		if (pthread_create(&th, &at, flush_thread, NULL) != 0)
			dbg("no flush thread; records are written at exit only", 0);
		pthread_attr_destroy(&at);
	}
	return 1;
}

/* NVTX calls this when NVTX_INJECTION64_PATH names this library. Forwarding to libcupti's
 * own entry point lets CUPTI see NVTX ranges and marks (MARKER records). */
EXPORT int InitializeInjectionNvtx2(const void *get_export_table);
EXPORT int InitializeInjectionNvtx2(const void *get_export_table)
{
	typedef int (*fn_t)(const void *);
	Dl_info info;
	void *h;
	fn_t fn;
	if (!getenv("GPUDIAG_RAW_DIR"))
		return 0;
	if (!dladdr((void *)cuptiGetVersion, &info) || !info.dli_fname)
		return 0;
	h = dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD);
	if (!h)
		return 0;
	fn = (fn_t)dlsym(h, "InitializeInjectionNvtx2");
	return fn ? fn(get_export_table) : 0;
}
