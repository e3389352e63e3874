/* CUPTI PM sampling from the `gpudiag run` parent (pmsample.h). The sequence is CUPTI's
 * (Usage §2.10; ../shared/docs/cupti-notes.md §4): profiler initialise → chip name → counter
 * availability → a host object with the metrics → config image (must be one pass) → enable
 * per device → set config → counter-data image → start → decode from this thread → stop →
 * final decode → disable.
 *
 * cupti_profiler_host.h includes <string> although it declares only C: the build puts an
 * empty file of that name first on this file's include path (src/gpu/cupti_c/). */
#include "gpu/pmsample.h"

#include "gpu/cudrv.h"

#include <cupti_pmsampling.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_result.h>
#include <cupti_target.h>
#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define GD_PM_DECODE_MS 10         /* decode period: at 100 µs, 100 samples a round */
#define GD_PM_HW_BUFFER (64u << 20) /* hardware buffer per device, bytes */
#define GD_PM_IMAGE_SAMPLES 4000   /* counter-data image per device: 40 rounds at the default */
#define GD_PM_MAX_DEV 64

/* Each quantity's CUPTI metric names in order of preference, and how each name's value becomes
 * the column's unit: as is (percent), per second → MHz, bytes in the sample → bytes per
 * second, or a fraction → percent. The first name the GPU accepts is used, unless the set then
 * needs more than one pass and a later accepted name makes it fit (build_config). */
enum { AS_IS = 0, HZ_TO_MHZ, BYTES_TO_BPS, FRACTION_TO_PCT };
#define GD_PM_ALTS 3
static const struct {
	const char *names[GD_PM_ALTS];
	int conv[GD_PM_ALTS];
} want[GD_PM_COUNT] = {
	[GD_PM_GPC_MHZ] = {{"gpc__cycles_elapsed.avg.per_second"}, {HZ_TO_MHZ}},
	[GD_PM_GR_ACTIVE] = {{"gr__cycles_active.sum.pct_of_peak_sustained_elapsed"}, {AS_IS}},
	[GD_PM_SM_ACTIVE] = {{"sm__cycles_active.avg.pct_of_peak_sustained_elapsed"}, {AS_IS}},
	[GD_PM_SM_ISSUE] = {{"sm__inst_executed_realtime.avg.pct_of_peak_sustained_elapsed"}, {AS_IS}},
	[GD_PM_TENSOR] = {{"sm__pipe_tensor_cycles_active_realtime.avg.pct_of_peak_sustained_elapsed"}, {AS_IS}},
	[GD_PM_DRAM] = {{"dram__throughput.avg.pct_of_peak_sustained_elapsed"}, {AS_IS}},
	/* dramc__ reads as a fraction: read 0.785 + write 0.073 beside dram__throughput 82.3 %
	 * in one sample on the H200 (cupti-notes §4); the counters area checks read + write
	 * against the total */
	[GD_PM_DRAM_READ] = {{"dram__read_throughput.avg.pct_of_peak_sustained_elapsed",
			      "dramc__read_throughput.avg.pct_of_peak_sustained_elapsed"},
			     {AS_IS, FRACTION_TO_PCT}},
	[GD_PM_DRAM_WRITE] = {{"dram__write_throughput.avg.pct_of_peak_sustained_elapsed",
			       "dramc__write_throughput.avg.pct_of_peak_sustained_elapsed"},
			      {AS_IS, FRACTION_TO_PCT}},
	[GD_PM_L2] = {{"lts__throughput.avg.pct_of_peak_sustained_elapsed",
		       "lts__t_sectors.avg.pct_of_peak_sustained_elapsed"},
		      {AS_IS, AS_IS}},
	[GD_PM_WARPS_ACTIVE] = {{"tpc__warps_active_realtime.avg.pct_of_peak_sustained_elapsed",
				 "sm__warps_active_realtime.avg.pct_of_peak_sustained_elapsed",
				 "sm__warps_active.avg.pct_of_peak_sustained_elapsed"},
				{AS_IS, AS_IS, AS_IS}},
	[GD_PM_WARPS_UNUSED] = {{"tpc__warps_inactive_sm_active_realtime.avg.pct_of_peak_sustained_elapsed"}, {AS_IS}},
	[GD_PM_PCIE_READ] = {{"pcie__read_bytes.sum"}, {BYTES_TO_BPS}},
	[GD_PM_PCIE_WRITE] = {{"pcie__write_bytes.sum"}, {BYTES_TO_BPS}},
};
/* When no choice of names fits one pass (or there are more than PM_MAX_METRICS), quantities
 * are dropped in this order: L2 ("if it fits", issue 18) and free warp slots (warps active
 * says the same from the other side) first, then GPU active (light mode's idle verdict reads
 * it, else SM active), then the read/write split (the DRAM total stays), then the warp and
 * PCIe figures the verdicts use least. */
static const int drop_order[] = {GD_PM_L2, GD_PM_WARPS_UNUSED, GD_PM_GR_ACTIVE, GD_PM_DRAM_WRITE,
				 GD_PM_DRAM_READ, GD_PM_WARPS_ACTIVE, GD_PM_PCIE_WRITE, GD_PM_PCIE_READ};
/* The most metrics one configuration is given, whatever the pass count says. On the H200
 * (2026-12-03, tests/gpu/counters/subsets.sh) every set of 9 or 10 sampled correctly, while
 * all 13 — which cuptiProfilerHostGetNumOfPasses called one pass — decoded as zeros for SM
 * active, issue, tensor and warps while a GEMM ran, and decoding then failed with
 * CUPTI_ERROR_OUT_OF_MEMORY. Ten is the most seen to work. */
#define PM_MAX_METRICS 10

/* DRAM read and write are both % of the one DRAM peak and dram__throughput is their sum
 * (H200: means 1.441 + 1.047 = 2.488 %, maxima 45.05 + 44.93 vs 89.62 %, over 67 732
 * samples): with both sampled, the total is computed, not sampled, and its slot goes to a
 * quantity that needs one. */

/* ---- libcupti, loaded at run time */
static struct {
	void *lib;
	CUptiResult (*init)(CUpti_Profiler_Initialize_Params *);
	CUptiResult (*chip)(CUpti_Device_GetChipName_Params *);
	CUptiResult (*avail)(CUpti_PmSampling_GetCounterAvailability_Params *);
	CUptiResult (*host_init)(CUpti_Profiler_Host_Initialize_Params *);
	CUptiResult (*host_deinit)(CUpti_Profiler_Host_Deinitialize_Params *);
	CUptiResult (*add)(CUpti_Profiler_Host_ConfigAddMetrics_Params *);
	CUptiResult (*cfg_size)(CUpti_Profiler_Host_GetConfigImageSize_Params *);
	CUptiResult (*cfg)(CUpti_Profiler_Host_GetConfigImage_Params *);
	CUptiResult (*passes)(CUpti_Profiler_Host_GetNumOfPasses_Params *);
	CUptiResult (*eval)(CUpti_Profiler_Host_EvaluateToGpuValues_Params *);
	CUptiResult (*enable)(CUpti_PmSampling_Enable_Params *);
	CUptiResult (*disable)(CUpti_PmSampling_Disable_Params *);
	CUptiResult (*set_config)(CUpti_PmSampling_SetConfig_Params *);
	CUptiResult (*data_size)(CUpti_PmSampling_GetCounterDataSize_Params *);
	CUptiResult (*data_init)(CUpti_PmSampling_CounterDataImage_Initialize_Params *);
	CUptiResult (*start)(CUpti_PmSampling_Start_Params *);
	CUptiResult (*stop)(CUpti_PmSampling_Stop_Params *);
	CUptiResult (*decode)(CUpti_PmSampling_DecodeData_Params *);
	CUptiResult (*data_info)(CUpti_PmSampling_GetCounterDataInfo_Params *);
	CUptiResult (*sample_info)(CUpti_PmSampling_CounterData_GetSampleInfo_Params *);
	CUptiResult (*result_string)(CUptiResult, const char **);
} cu;

struct dev {
	int id, on;
	CUpti_PmSampling_Object *obj;
	uint8_t *image;
	size_t image_size, done; /* samples of the current image already taken */
	int first;               /* the next sample is the session's first: discarded */
	long long overflows;
	char why[200];           /* why this device is not sampled */
};

struct gd_pm {
	pthread_t thread;
	int started, stop_flag, ndev;
	pthread_mutex_t lock;
	long interval_ns;
	CUpti_Profiler_Host_Object *host;
	uint8_t *config;
	size_t config_size;
	const char *names[GD_PM_COUNT]; /* the metric in use for each quantity, NULL = none */
	int alt[GD_PM_COUNT];           /* its index in want[q].names */
	unsigned char ok[GD_PM_COUNT][GD_PM_ALTS]; /* names the GPU accepts */
	const char *eval_names[GD_PM_COUNT];
	int eval_q[GD_PM_COUNT], neval;
	int dram_sum;                   /* DRAM total = read + write, not sampled */
	struct dev dev[GD_PM_MAX_DEV];
	struct gd_pm_sample *s;
	long n, cap;
	long long lost, started_ns;
	char status[300], note[600], metric_list[1400];
};

/* Appends one clause to pm->note ("; " between clauses). */
static void note(struct gd_pm *pm, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(struct gd_pm *pm, const char *fmt, ...)
{
	size_t len = strlen(pm->note);
	va_list ap;
	if (len && len + 2 < sizeof(pm->note))
		len += (size_t)snprintf(pm->note + len, sizeof(pm->note) - len, "; ");
	va_start(ap, fmt);
	vsnprintf(pm->note + len, sizeof(pm->note) - len, fmt, ap);
	va_end(ap);
}

static const char *err_name(CUptiResult r)
{
	const char *s = NULL;
	if (cu.result_string && cu.result_string(r, &s) == CUPTI_SUCCESS && s)
		return s;
	return "CUPTI_ERROR_UNKNOWN";
}

/* A refusal in words a user can act on. */
static void refusal(char *out, size_t n, const char *what, CUptiResult r)
{
	const char *hint = "";
	switch ((int)r) {
	case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
		hint = "profiling is restricted to admin users: run as root, or load the driver with "
		       "NVreg_RestrictProfilingToAdminUsers=0; ";
		break;
	case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED:
	case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
		hint = "this virtual GPU does not expose its counters; ";
		break;
	case CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED: hint = "a MIG instance has no PM sampling; "; break;
	case CUPTI_ERROR_HARDWARE_BUSY:
		hint = "another profiler (Nsight, DCGM, a second gpudiag) holds the counters; ";
		break;
	case CUPTI_ERROR_NOT_SUPPORTED:
	case CUPTI_ERROR_NOT_COMPATIBLE:
	case CUPTI_ERROR_INVALID_CHIP_NAME: hint = "this GPU or driver has no PM sampling; "; break;
	default: break;
	}
	snprintf(out, n, "%s%s failed: %s", hint, what, err_name(r));
}

static long long now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void *sym(const char *name) { return dlsym(cu.lib, name); }

#define LOAD(field, name)                                          \
	do {                                                       \
		*(void **)&cu.field = sym(name);                   \
		if (!cu.field) {                                   \
			snprintf(why, n, "%s lacks %s", path, name); \
			return -1;                                 \
		}                                                  \
	} while (0)

/* Loads libcupti (pmsample.h says which); 0 or -1 with why. */
static int load_cupti(char *why, size_t n)
{
	const char *path = getenv("GPUDIAG_CUPTI");
	if (path && *path) {
		cu.lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	} else {
		path = "libcupti.so.13";
		cu.lib = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
		if (!cu.lib)
			cu.lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	}
	if (!cu.lib) {
		snprintf(why, n, "libcupti could not be loaded (%s)", dlerror());
		return -1;
	}
	*(void **)&cu.result_string = sym("cuptiGetResultString");
	LOAD(init, "cuptiProfilerInitialize");
	LOAD(chip, "cuptiDeviceGetChipName");
	LOAD(avail, "cuptiPmSamplingGetCounterAvailability");
	LOAD(host_init, "cuptiProfilerHostInitialize");
	LOAD(host_deinit, "cuptiProfilerHostDeinitialize");
	LOAD(add, "cuptiProfilerHostConfigAddMetrics");
	LOAD(cfg_size, "cuptiProfilerHostGetConfigImageSize");
	LOAD(cfg, "cuptiProfilerHostGetConfigImage");
	LOAD(passes, "cuptiProfilerHostGetNumOfPasses");
	LOAD(eval, "cuptiProfilerHostEvaluateToGpuValues");
	LOAD(enable, "cuptiPmSamplingEnable");
	LOAD(disable, "cuptiPmSamplingDisable");
	LOAD(set_config, "cuptiPmSamplingSetConfig");
	LOAD(data_size, "cuptiPmSamplingGetCounterDataSize");
	LOAD(data_init, "cuptiPmSamplingCounterDataImageInitialize");
	LOAD(start, "cuptiPmSamplingStart");
	LOAD(stop, "cuptiPmSamplingStop");
	LOAD(decode, "cuptiPmSamplingDecodeData");
	LOAD(data_info, "cuptiPmSamplingGetCounterDataInfo");
	LOAD(sample_info, "cuptiPmSamplingCounterDataGetSampleInfo");
	return 0;
}

static CUpti_Profiler_Host_Object *host_new(const char *chip, const uint8_t *avail, CUptiResult *r)
{
	CUpti_Profiler_Host_Initialize_Params hp = {.structSize = CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE};
	hp.profilerType = CUPTI_PROFILER_TYPE_PM_SAMPLING;
	hp.pChipName = chip;
	hp.pCounterAvailabilityImage = avail;
	*r = cu.host_init(&hp);
	return *r == CUPTI_SUCCESS ? hp.pHostObject : NULL;
}

static void host_free(CUpti_Profiler_Host_Object *h)
{
	CUpti_Profiler_Host_Deinitialize_Params dp = {.structSize = CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE};
	if (!h)
		return;
	dp.pHostObject = h;
	cu.host_deinit(&dp);
}

/* One attempt: a host object holding the names in use and its config image. The passes it
 * needs, or 0 with why on an error (pm->host is then NULL). */
static size_t try_config(struct gd_pm *pm, const char *chip, const uint8_t *avail, char *why, size_t n)
{
	CUptiResult r;
	const char *list[GD_PM_COUNT];
	int nl = 0;
	host_free(pm->host);
	pm->host = NULL;
	for (int q = 0; q < GD_PM_COUNT; q++)
		if (pm->names[q])
			list[nl++] = pm->names[q];
	if (!nl) {
		snprintf(why, n, "this GPU accepts none of the metrics gpudiag samples");
		return 0;
	}
	pm->host = host_new(chip, avail, &r);
	if (!pm->host) {
		refusal(why, n, "cuptiProfilerHostInitialize", r);
		return 0;
	}
	CUpti_Profiler_Host_ConfigAddMetrics_Params ap = {.structSize = CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE};
	ap.pHostObject = pm->host;
	ap.ppMetricNames = list;
	ap.numMetrics = (size_t)nl;
	CUpti_Profiler_Host_GetConfigImageSize_Params sp = {.structSize = CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE};
	sp.pHostObject = pm->host;
	if ((r = cu.add(&ap)) != CUPTI_SUCCESS || (r = cu.cfg_size(&sp)) != CUPTI_SUCCESS) {
		refusal(why, n, "adding the metrics", r);
		return 0;
	}
	free(pm->config);
	pm->config = malloc(sp.configImageSize);
	if (!pm->config) {
		snprintf(why, n, "out of memory");
		return 0;
	}
	pm->config_size = sp.configImageSize;
	CUpti_Profiler_Host_GetConfigImage_Params ip = {.structSize = CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE};
	ip.pHostObject = pm->host;
	ip.configImageSize = pm->config_size;
	ip.pConfigImage = pm->config;
	CUpti_Profiler_Host_GetNumOfPasses_Params pp = {.structSize = CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE};
	pp.configImageSize = pm->config_size;
	pp.pConfigImage = pm->config;
	if ((r = cu.cfg(&ip)) != CUPTI_SUCCESS || (r = cu.passes(&pp)) != CUPTI_SUCCESS) {
		refusal(why, n, "building the counter configuration", r);
		return 0;
	}
	return pp.numOfPasses ? pp.numOfPasses : 1;
}

/* Later accepted names that make the set fit one pass: one quantity's alone, else every
 * quantity on its last accepted name, then each put back on its preferred name where the set
 * still fits. 1 when found (and in use), 0 when not (the names are as before). */
static int swap_to_fit(struct gd_pm *pm, const char *chip, const uint8_t *avail, char *why, size_t n)
{
	int was[GD_PM_COUNT], last[GD_PM_COUNT], any = 0;
	for (int q = 0; q < GD_PM_COUNT; q++) {
		was[q] = last[q] = pm->alt[q];
		for (int a = was[q] + 1; pm->names[q] && a < GD_PM_ALTS && want[q].names[a]; a++)
			if (pm->ok[q][a])
				last[q] = a;
		any |= last[q] != was[q];
	}
	if (!any)
		return 0;
#define USE(q, a) (pm->alt[q] = (a), pm->names[q] = want[q].names[a])
	for (int q = 0; q < GD_PM_COUNT; q++) {
		if (!pm->names[q])
			continue;
		for (int a = was[q] + 1; a <= last[q]; a++)
			if (pm->ok[q][a] && (USE(q, a), try_config(pm, chip, avail, why, n) == 1))
				return 1;
		USE(q, was[q]);
	}
	for (int q = 0; q < GD_PM_COUNT; q++)
		if (pm->names[q])
			USE(q, last[q]);
	if (try_config(pm, chip, avail, why, n) == 1) {
		for (int q = 0; q < GD_PM_COUNT; q++)
			if (pm->names[q] && last[q] != was[q] &&
			    (USE(q, was[q]), try_config(pm, chip, avail, why, n) != 1))
				USE(q, last[q]);
		return try_config(pm, chip, avail, why, n) == 1;
	}
	for (int q = 0; q < GD_PM_COUNT; q++)
		if (pm->names[q])
			USE(q, was[q]);
#undef USE
	return 0;
}

/* A host object and config image of one pass: the preferred names; else one quantity on a
 * later accepted name; else quantities dropped in drop_order, trying the names again after
 * each. 0, or -1 with why. */
static int nnames(const struct gd_pm *pm)
{
	int c = 0;
	for (int q = 0; q < GD_PM_COUNT; q++)
		c += pm->names[q] != NULL;
	return c;
}

static int build_config(struct gd_pm *pm, const char *chip, const uint8_t *avail, char *why, size_t n)
{
	size_t first = 0;
	if (pm->names[GD_PM_DRAM] && pm->names[GD_PM_DRAM_READ] && pm->names[GD_PM_DRAM_WRITE]) {
		pm->names[GD_PM_DRAM] = NULL;
		pm->dram_sum = 1;
	}
	while (nnames(pm) > PM_MAX_METRICS && first < sizeof(drop_order) / sizeof(drop_order[0])) {
		int q = drop_order[first++];
		if (!pm->names[q])
			continue;
		note(pm, "%s left out (PM sampling is given at most %d metrics)", gd_pm_metrics[q].label, PM_MAX_METRICS);
		pm->names[q] = NULL;
	}
	for (size_t next = first;; next++) {
		size_t passes = try_config(pm, chip, avail, why, n);
		if (passes == 0)
			return -1;
		if (passes == 1 || swap_to_fit(pm, chip, avail, why, n))
			return 0;
		while (next < sizeof(drop_order) / sizeof(drop_order[0]) && !pm->names[drop_order[next]])
			next++;
		if (next == sizeof(drop_order) / sizeof(drop_order[0])) {
			snprintf(why, n, "the metrics need %zu passes; PM sampling has one", passes);
			return -1;
		}
		note(pm, "%s left out (more than one pass)", gd_pm_metrics[drop_order[next]].label);
		pm->names[drop_order[next]] = NULL;
	}
}

/* Tries every metric name alone on a scratch host object (an unknown name must not spoil the
 * real configuration) and picks each quantity's first accepted one. */
/* 1 when quantity q is wanted: every one, unless $GPUDIAG_PM_ONLY lists the columns to ask
 * for (comma-separated, e.g. "sm_active_pct,dram_pct"; a knob for finding which metric a
 * GPU mis-samples, docs/gpu-metrics.md). */
static int wanted(int q)
{
	const char *only = getenv("GPUDIAG_PM_ONLY"), *c = gd_pm_metrics[q].column;
	size_t len = strlen(c);
	if (!only || !*only)
		return 1;
	for (const char *s = only; (s = strstr(s, c)) != NULL; s += len)
		if ((s == only || s[-1] == ',') && (s[len] == ',' || s[len] == '\0'))
			return 1;
	return 0;
}

static int choose_metrics(struct gd_pm *pm, const char *chip, const uint8_t *avail, char *why, size_t n)
{
	for (int q = 0; q < GD_PM_COUNT; q++) {
		pm->names[q] = NULL;
		if (!wanted(q))
			continue;
		for (int a = 0; a < GD_PM_ALTS && want[q].names[a]; a++) {
			CUptiResult r;
			CUpti_Profiler_Host_Object *h = host_new(chip, avail, &r);
			if (!h) {
				refusal(why, n, "cuptiProfilerHostInitialize", r);
				return -1;
			}
			CUpti_Profiler_Host_ConfigAddMetrics_Params ap = {
				.structSize = CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE};
			ap.pHostObject = h;
			const char *one = want[q].names[a];
			ap.ppMetricNames = &one;
			ap.numMetrics = 1;
			pm->ok[q][a] = cu.add(&ap) == CUPTI_SUCCESS;
			host_free(h);
			if (pm->ok[q][a] && !pm->names[q]) {
				pm->names[q] = want[q].names[a];
				pm->alt[q] = a;
			}
		}
		if (!pm->names[q]) {
			note(pm, "%s not offered by this GPU", gd_pm_metrics[q].label);
		}
	}
	return 0;
}

/* Empties d's counter-data image (at the start, and whenever its samples are taken). */
static CUptiResult image_reset(struct dev *d)
{
	CUpti_PmSampling_CounterDataImage_Initialize_Params ip = {
		.structSize = CUpti_PmSampling_CounterDataImage_Initialize_Params_STRUCT_SIZE};
	ip.pPmSamplingObject = d->obj;
	ip.counterDataSize = d->image_size;
	ip.pCounterData = d->image;
	d->done = 0;
	return cu.data_init(&ip);
}

/* Enables, configures and starts one device; 0 or -1 with d->why. */
static int dev_start(struct gd_pm *pm, struct dev *d)
{
	CUptiResult r;
	CUpti_PmSampling_Enable_Params ep = {.structSize = CUpti_PmSampling_Enable_Params_STRUCT_SIZE};
	ep.deviceIndex = (size_t)d->id;
	if ((r = cu.enable(&ep)) != CUPTI_SUCCESS) {
		refusal(d->why, sizeof(d->why), "cuptiPmSamplingEnable", r);
		return -1;
	}
	d->obj = ep.pPmSamplingObject;
	CUpti_PmSampling_SetConfig_Params cp = {.structSize = CUpti_PmSampling_SetConfig_Params_STRUCT_SIZE};
	cp.pPmSamplingObject = d->obj;
	cp.configSize = pm->config_size;
	cp.pConfig = pm->config;
	cp.hardwareBufferSize = GD_PM_HW_BUFFER;
	cp.samplingInterval = (uint64_t)pm->interval_ns;
	cp.triggerMode = CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_TIME_INTERVAL;
	cp.hwBufferAppendMode = CUPTI_PM_SAMPLING_HARDWARE_BUFFER_APPEND_MODE_KEEP_OLDEST;
	CUpti_PmSampling_GetCounterDataSize_Params sp = {.structSize = CUpti_PmSampling_GetCounterDataSize_Params_STRUCT_SIZE};
	sp.pPmSamplingObject = d->obj;
	sp.pMetricNames = pm->eval_names;
	sp.numMetrics = (size_t)pm->neval;
	sp.maxSamples = GD_PM_IMAGE_SAMPLES;
	if ((r = cu.set_config(&cp)) != CUPTI_SUCCESS || (r = cu.data_size(&sp)) != CUPTI_SUCCESS) {
		refusal(d->why, sizeof(d->why), "configuring PM sampling", r);
		return -1;
	}
	d->image_size = sp.counterDataSize;
	d->image = malloc(d->image_size);
	if (!d->image) {
		snprintf(d->why, sizeof(d->why), "out of memory for the counter-data image");
		return -1;
	}
	CUpti_PmSampling_Start_Params stp = {.structSize = CUpti_PmSampling_Start_Params_STRUCT_SIZE};
	stp.pPmSamplingObject = d->obj;
	if ((r = image_reset(d)) != CUPTI_SUCCESS || (r = cu.start(&stp)) != CUPTI_SUCCESS) {
		refusal(d->why, sizeof(d->why), "starting PM sampling", r);
		return -1;
	}
	d->first = 1;
	d->on = 1;
	return 0;
}

static void dev_release(struct dev *d)
{
	if (d->obj) {
		CUpti_PmSampling_Disable_Params dp = {.structSize = CUpti_PmSampling_Disable_Params_STRUCT_SIZE};
		dp.pPmSamplingObject = d->obj;
		cu.disable(&dp);
		d->obj = NULL;
	}
	free(d->image);
	d->image = NULL;
	d->on = 0;
}

static void store(struct gd_pm *pm, const struct gd_pm_sample *s)
{
	if (pm->n == pm->cap) {
		long nc = pm->cap ? pm->cap * 2 : 4096;
		struct gd_pm_sample *ns = realloc(pm->s, (size_t)nc * sizeof(*ns));
		if (!ns) {
			pm->lost++;
			return;
		}
		pm->s = ns;
		pm->cap = nc;
	}
	pm->s[pm->n++] = *s;
}

/* Takes the completed samples of d's image that were not taken yet. */
static void take(struct gd_pm *pm, struct dev *d)
{
	CUpti_PmSampling_GetCounterDataInfo_Params ip = {.structSize = CUpti_PmSampling_GetCounterDataInfo_Params_STRUCT_SIZE};
	ip.pCounterDataImage = d->image;
	ip.counterDataImageSize = d->image_size;
	if (cu.data_info(&ip) != CUPTI_SUCCESS)
		return;
	for (; d->done < ip.numCompletedSamples; d->done++) {
		CUpti_PmSampling_CounterData_GetSampleInfo_Params sp = {.structSize = CUpti_PmSampling_CounterData_GetSampleInfo_Params_STRUCT_SIZE};
		sp.pPmSamplingObject = d->obj;
		sp.pCounterDataImage = d->image;
		sp.counterDataImageSize = d->image_size;
		sp.sampleIndex = d->done;
		double val[GD_PM_COUNT];
		CUpti_Profiler_Host_EvaluateToGpuValues_Params ep = {.structSize = CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE};
		ep.pHostObject = pm->host;
		ep.pCounterDataImage = d->image;
		ep.counterDataImageSize = d->image_size;
		ep.rangeIndex = d->done;
		ep.ppMetricNames = pm->eval_names;
		ep.numMetrics = (size_t)pm->neval;
		ep.pMetricValues = val;
		if (cu.sample_info(&sp) != CUPTI_SUCCESS || cu.eval(&ep) != CUPTI_SUCCESS)
			continue;
		if (d->first) { /* spans set-up to start (cupti-notes §4) */
			d->first = 0;
			continue;
		}
		struct gd_pm_sample s;
		s.device = d->id;
		s.t_start = (int64_t)sp.startTimestamp;
		s.t_end = (int64_t)sp.endTimestamp;
		double dt = (double)(s.t_end - s.t_start) * 1e-9;
		for (int q = 0; q < GD_PM_COUNT; q++)
			s.v[q] = NAN;
		for (int i = 0; i < pm->neval; i++) {
			int q = pm->eval_q[i];
			double v = val[i];
			if (!isfinite(v))
				continue;
			int conv = want[q].conv[pm->alt[q]];
			if (conv == HZ_TO_MHZ)
				v *= 1e-6;
			else if (conv == BYTES_TO_BPS)
				v = dt > 0 ? v / dt : NAN;
			else if (conv == FRACTION_TO_PCT)
				v *= 100.0;
			s.v[q] = v;
		}
		if (pm->dram_sum)
			s.v[GD_PM_DRAM] = s.v[GD_PM_DRAM_READ] + s.v[GD_PM_DRAM_WRITE]; /* NaN if either is */
		if (s.t_end > s.t_start)
			store(pm, &s);
	}
}

/* One decode round of one device; at_end: after Stop, until the records end. */
static void decode(struct gd_pm *pm, struct dev *d, int at_end)
{
	for (int round = 0; round < 1000; round++) {
		CUpti_PmSampling_DecodeData_Params dp = {.structSize = CUpti_PmSampling_DecodeData_Params_STRUCT_SIZE};
		dp.pPmSamplingObject = d->obj;
		dp.pCounterDataImage = d->image;
		dp.counterDataImageSize = d->image_size;
		CUptiResult r = cu.decode(&dp);
		if (dp.overflow)
			d->overflows++;
		if (r != CUPTI_SUCCESS) {
			/* an overflowed hardware buffer comes back as OUT_OF_MEMORY (cupti-notes §4):
			 * what was decoded is kept, the device is not sampled further */
			take(pm, d);
			if (!d->why[0])
				refusal(d->why, sizeof(d->why), "decoding PM samples", r);
			d->on = 0;
			return;
		}
		take(pm, d);
		int full = dp.decodeStopReason == CUPTI_PM_SAMPLING_DECODE_STOP_REASON_COUNTER_DATA_FULL;
		/* Start the image again once half of it is taken, so a decode round never finds it
		 * full: on the H200, samples decoded into a full image were lost (7-60 ms gaps
		 * after every 4000 samples, docs/gpu-tier.md, sixth session). */
		if ((full || d->done >= GD_PM_IMAGE_SAMPLES / 2) && image_reset(d) != CUPTI_SUCCESS) {
			d->on = 0;
			return;
		}
		if (!full && (!at_end || dp.decodeStopReason == CUPTI_PM_SAMPLING_DECODE_STOP_REASON_END_OF_RECORDS))
			return;
	}
}

/* Everything before the first sample; 0 when at least one device is sampling. */
static int setup(struct gd_pm *pm)
{
	char why[256] = "", cuwhy[256];
	CUptiResult r;
	int want_dev = pm->ndev;
	pm->ndev = 0; /* no device set up yet: what gd_pm_stop reports on */
	if (gd_cu_open(cuwhy, sizeof(cuwhy)) != 0) {
		snprintf(pm->status, sizeof(pm->status), "no counters: %s", cuwhy);
		return -1;
	}
	if (load_cupti(why, sizeof(why))) {
		snprintf(pm->status, sizeof(pm->status), "no counters: %s", why);
		return -1;
	}
	CUpti_Profiler_Initialize_Params ip = {.structSize = CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
	if ((r = cu.init(&ip)) != CUPTI_SUCCESS) {
		refusal(why, sizeof(why), "cuptiProfilerInitialize", r);
		snprintf(pm->status, sizeof(pm->status), "no counters: %s", why);
		return -1;
	}
	int ndev = want_dev < gd_cu_count() ? want_dev : gd_cu_count();
	if (ndev > GD_PM_MAX_DEV)
		ndev = GD_PM_MAX_DEV;
	/* one configuration for every device: the first device's chip (a node of mixed GPUs
	 * gets its other chips refused by the config and said per device) */
	CUpti_Device_GetChipName_Params cp = {.structSize = CUpti_Device_GetChipName_Params_STRUCT_SIZE};
	cp.deviceIndex = 0;
	if ((r = cu.chip(&cp)) != CUPTI_SUCCESS || !cp.pChipName) {
		refusal(why, sizeof(why), "cuptiDeviceGetChipName", r);
		snprintf(pm->status, sizeof(pm->status), "no counters: %s", why);
		return -1;
	}
	CUpti_PmSampling_GetCounterAvailability_Params ap = {.structSize = CUpti_PmSampling_GetCounterAvailability_Params_STRUCT_SIZE};
	ap.deviceIndex = 0;
	uint8_t *avail = NULL;
	if ((r = cu.avail(&ap)) == CUPTI_SUCCESS && ap.counterAvailabilityImageSize > 0 &&
	    (avail = malloc(ap.counterAvailabilityImageSize)) != NULL) {
		ap.pCounterAvailabilityImage = avail;
		r = cu.avail(&ap);
	}
	if (r != CUPTI_SUCCESS || !avail) {
		refusal(why, sizeof(why), "cuptiPmSamplingGetCounterAvailability", r);
		snprintf(pm->status, sizeof(pm->status), "no counters: %s", why);
		free(avail);
		return -1;
	}
	int rc = choose_metrics(pm, cp.pChipName, avail, why, sizeof(why));
	if (!rc)
		rc = build_config(pm, cp.pChipName, avail, why, sizeof(why));
	free(avail);
	if (rc) {
		snprintf(pm->status, sizeof(pm->status), "no counters: %s", why);
		return -1;
	}
	pm->neval = 0;
	for (int q = 0; q < GD_PM_COUNT; q++)
		if (pm->names[q]) {
			size_t len = strlen(pm->metric_list);
			snprintf(pm->metric_list + len, sizeof(pm->metric_list) - len, "%s%s", len ? "," : "",
				 pm->names[q]);
			pm->eval_q[pm->neval] = q;
			pm->eval_names[pm->neval++] = pm->names[q];
		}
	int on = 0;
	for (int i = 0; i < ndev; i++) {
		pm->dev[i].id = i;
		if (dev_start(pm, &pm->dev[i]) == 0)
			on++;
		pm->ndev = i + 1;
	}
	if (!on) {
		snprintf(pm->status, sizeof(pm->status), "no counters: %s", ndev ? pm->dev[0].why : "no device");
		for (int i = 0; i < ndev; i++)
			dev_release(&pm->dev[i]);
		return -1;
	}
	pm->started_ns = now_ns();
	snprintf(pm->status, sizeof(pm->status), "ok");
	return 0;
}

static void *thread_main(void *arg)
{
	struct gd_pm *pm = arg;
	if (setup(pm))
		return NULL;
	for (;;) {
		pthread_mutex_lock(&pm->lock);
		int stop = pm->stop_flag;
		pthread_mutex_unlock(&pm->lock);
		if (stop)
			break;
		for (int i = 0; i < pm->ndev; i++)
			if (pm->dev[i].on)
				decode(pm, &pm->dev[i], 0);
		struct timespec ts = {0, GD_PM_DECODE_MS * 1000000L};
		while (nanosleep(&ts, &ts) && errno == EINTR)
			;
	}
	for (int i = 0; i < pm->ndev; i++) {
		struct dev *d = &pm->dev[i];
		if (d->on) {
			CUpti_PmSampling_Stop_Params sp = {.structSize = CUpti_PmSampling_Stop_Params_STRUCT_SIZE};
			sp.pPmSamplingObject = d->obj;
			if (cu.stop(&sp) == CUPTI_SUCCESS)
				decode(pm, d, 1);
		}
		dev_release(d);
	}
	return NULL;
}

struct gd_pm *gd_pm_start(int ndev, long interval_ns, char *why, size_t whyn)
{
	struct gd_pm *pm = calloc(1, sizeof(*pm));
	if (!pm) {
		snprintf(why, whyn, "out of memory");
		return NULL;
	}
	pm->ndev = ndev;
	pm->interval_ns = interval_ns;
	pthread_mutex_init(&pm->lock, NULL);
	snprintf(pm->status, sizeof(pm->status), "no counters: sampling did not start");
	if (pthread_create(&pm->thread, NULL, thread_main, pm) != 0) {
		snprintf(why, whyn, "cannot start the GPU-metrics thread");
		pthread_mutex_destroy(&pm->lock);
		free(pm);
		return NULL;
	}
	pm->started = 1;
	return pm;
}

static int cmp_sample(const void *a, const void *b)
{
	const struct gd_pm_sample *x = a, *y = b;
	if (x->device != y->device)
		return x->device < y->device ? -1 : 1;
	return x->t_start < y->t_start ? -1 : x->t_start > y->t_start;
}

void gd_pm_stop(struct gd_pm *pm)
{
	if (!pm || !pm->started)
		return;
	pthread_mutex_lock(&pm->lock);
	pm->stop_flag = 1;
	pthread_mutex_unlock(&pm->lock);
	pthread_join(pm->thread, NULL);
	pm->started = 0;
	if (pm->n > 1)
		qsort(pm->s, (size_t)pm->n, sizeof(*pm->s), cmp_sample);
	/* lost: overflows, and gaps of more than half an interval between samples of one device */
	for (int i = 0; i < pm->ndev; i++)
		pm->lost += pm->dev[i].overflows;
	for (long i = 1; i < pm->n; i++) {
		const struct gd_pm_sample *a = &pm->s[i - 1], *b = &pm->s[i];
		double gap = (double)(b->t_start - a->t_end);
		if (a->device == b->device && pm->interval_ns > 0 && gap > 0.5 * (double)pm->interval_ns)
			pm->lost += (long long)(gap / (double)pm->interval_ns + 0.5);
	}
	for (int i = 0; i < pm->ndev; i++)
		if (pm->dev[i].why[0])
			note(pm, "GPU %d: %s", pm->dev[i].id, pm->dev[i].why);
}

void gd_pm_free(struct gd_pm *pm)
{
	if (!pm)
		return;
	gd_pm_stop(pm);
	if (pm->host)
		host_free(pm->host);
	free(pm->config);
	free(pm->s);
	pthread_mutex_destroy(&pm->lock);
	free(pm);
}

long gd_pm_count(const struct gd_pm *pm) { return pm ? pm->n : 0; }
const struct gd_pm_sample *gd_pm_get(const struct gd_pm *pm, long i) { return &pm->s[i]; }
const char *gd_pm_status(const struct gd_pm *pm) { return pm ? pm->status : "no counters: not started"; }
const char *gd_pm_note(const struct gd_pm *pm) { return pm ? pm->note : ""; }
long long gd_pm_lost(const struct gd_pm *pm) { return pm ? pm->lost : 0; }
const char *gd_pm_metric_names(const struct gd_pm *pm) { return pm ? pm->metric_list : ""; }
long long gd_pm_started_ns(const struct gd_pm *pm) { return pm ? pm->started_ns : 0; }
