// GPU-tier probe (issue 19): how CUPTI's range profiler treats the SASS-patched metrics
// (smsp__sass_*) under user replay, outside gpudiag's injection library. One strided gather
// (32 sectors per request, 12.5 % of each sector used, no FFMA; a second, FMA kernel) is
// profiled from main(), never from inside a callback:
//   replay_probe kernel        CUPTI's kernel replay (the reference: ncu's values)
//   replay_probe user          user replay, every pass a Start / launch / Stop from main();
//                              the kernel's module loaded before the profiler is enabled
//   replay_probe user-early    user replay, the profiler enabled and configured before the
//                              kernel's module is loaded (lazy loading: at its first launch)
//   replay_probe switch        kernel replay, then SetConfig again on the same object with
//                              user replay (may one object change its replay mode?)
//   replay_probe split         the SASS metrics alone by kernel replay, the others by user
//                              replay, one object, SetConfig between them
// User replay as gpudiag's injection library does it, one difference at a time:
//   user-ckpt    the memory saved before and restored before every pass (CUPTI's checkpoint)
//   user-drv     launched by cuLaunchKernel with the CUfunction of the context
//   user-handle  launched by cuLaunchKernel with the runtime's CUkernel handle
//   user-act     CUPTI's kernel activity records enabled
//   user-cb      passes run on another thread while main() sits in the exit callback of the
//                kernel's own runtime launch (a CUPTI subscriber)
//   user-thread  passes run on another thread, main() waiting outside any callback
// Memory is not saved or restored (the kernels are idempotent). Prints one line per metric:
// case, metric, value. Exit 0 when every CUPTI call succeeded.
// DRAM writes a pass counts that its kernel did not make (issue 19: user replay reads 1-2 %
// high on kernels that sweep L2, the GEMM 4-5 %), on a read-only sweep of 256 MB (0 bytes
// written: anything counted is someone else's write-back) and a 64 MB copy, 16 MB of lines made
// dirty before each pass (as a memory restore does), the L2 flushed by gpudiag's own kernels
// (src/capture/l2flush.cu, included: a read of twice the L2, then discard.global.L2 of it):
//   dram-kernel        CUPTI's kernel replay, no flush
//   dram-auto          auto range, user replay: flush, Start, launch, Stop (gpudiag's order)
//   dram-auto-in       auto range, three ranges a pass: Start, flush (its read and its discard,
//                      two ranges), launch (the third, printed), Stop
//   dram-noflush       the same without the flush
//   dram-user          user range, user replay: Start, flush, PushRange, launch, PopRange, Stop
//                      (the flush inside the session, outside the range)
//   dram-user-before   user range: flush, Start, PushRange, launch, PopRange, Stop
// Several launches in one pass (the cost of a profiled launch is CUPTI's per pass, issue 19):
//   batch              PROBE_K launches (default 8, k_gather and k_fma in turn), each with its
//                      own checkpoint saved before it, profiled first one at a time as gpudiag
//                      does (restore, flush, Start, launch, Stop, per pass), then all together:
//                      per pass restore 1, flush, Start, launch 1, then for each next launch
//                      restore (inside the session), flush (two ranges of their own), launch,
//                      and one Stop. Metrics: the names in the file PROBE_NAMES (one per line;
//                      gpudiag's default set), else the seven above. Prints the time per launch
//                      of each way, where it goes (Start, Stop, restores), the ranges recorded,
//                      and every metric of the first two launches both ways, side by side.
// On an H100 (2026-12-06) dram-auto and dram-user-before counted 3.0-3.1 MB of writes for the
// sweep, dram-user 14-17 KB, dram-auto-in 40 KB: Start leaves dirty lines. gpudiag keeps
// dram-auto's order all the same, the one ncu's counts agree with (rangeprof.c, run_passes).
#include "capture/cupti_host.h" /* built from src/capture/cupti_host.c (run.sh) */
#include "capture/l2flush.cu"     /* gpudiag's L2 flush: gpudiag_l2_flush, gpudiag_l2_discard */

#include <cuda.h>
#include <cuda_runtime.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>
#include <cupti_callbacks.h>
#include <cupti_activity.h>
#include <cupti_checkpoint.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <string>
#include <time.h>
#include <vector>

#define CK(x)                                                                              \
	do {                                                                               \
		CUptiResult r_ = (x);                                                      \
		if (r_ != CUPTI_SUCCESS) {                                                 \
			const char *s_ = "?";                                              \
			cuptiGetResultString(r_, &s_);                                     \
			printf("FAIL %s: %s (line %d)\n", #x, s_, __LINE__);               \
			exit(1);                                                           \
		}                                                                          \
	} while (0)

__global__ void k_gather(const float *in, float *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = in[(size_t)i * 32 % ((size_t)n * 32)];
}

__global__ void k_fma(float *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	float a = out[i < n ? i : 0], b = 1.0001f;
	for (int k = 0; k < 64; k++)
		a = fmaf(a, b, 0.5f);
	if (i < n)
		out[i] = a;
}

__global__ void k_sweep(const float4 *in, float *sink, size_t n)
{
	float4 a = make_float4(0, 0, 0, 0);
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
		float4 v = __ldcg(in + i);
		a.x += v.x, a.y += v.y, a.z += v.z, a.w += v.w;
	}
	if (a.x + a.y + a.z + a.w == 12345.0f) /* never: the input is 0 */
		*sink = 1;
}

__global__ void k_copy(const float4 *in, float4 *out, size_t n)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
		out[i] = in[i];
}

__global__ void k_dirty(float4 *p, size_t n, float v)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
		p[i] = make_float4(v, v, v, v);
}

static const char *SASS[] = {"smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct",
			     "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum"};
static const char *HW[] = {"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
			   "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", "dram__bytes_read.sum",
			   "dram__bytes_write.sum", "smsp__thread_inst_executed_per_inst_executed.ratio"};

struct cfgimg {
	std::vector<const char *> names;
	std::vector<uint8_t> img;
	size_t passes;
	CUpti_Profiler_Host_Object *host;
};

static std::vector<uint8_t> g_avail;
static char g_chip[64];

/* the configuration image of names and its passes, by gpudiag's own host calls (cupti_host.c) */
static void build(cfgimg &c, std::vector<const char *> names)
{
	uint8_t *img = NULL;
	size_t size = 0;
	CUptiResult r;
	c.names = names;
	if (!(c.host = gd_cupti_host_new(g_chip, g_avail.data(), &r)))
		CK(r);
	CK(gd_cupti_host_add(c.host, c.names.data(), c.names.size()));
	CK(gd_cupti_host_config(c.host, &img, &size, &c.passes));
	c.img.assign(img, img + size);
	free(img);
}

static CUpti_RangeProfiler_Object *g_obj;
static std::vector<uint8_t> g_data;

static void image_init(void)
{
	CUpti_RangeProfiler_CounterDataImage_Initialize_Params ip = {
		CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE};
	ip.pRangeProfilerObject = g_obj;
	ip.counterDataSize = g_data.size();
	ip.pCounterData = g_data.data();
	CK(cuptiRangeProfilerCounterDataImageInitialize(&ip));
}

static CUpti_ProfilerRange g_range = CUPTI_AutoRange;
/* ranges a pass holds (dram-auto-in: the flush's two kernels, then the kernel) and the one
 * printed */
static size_t g_ranges = 1, g_eval = 0;

static void set_config(const cfgimg &c, CUpti_ProfilerReplayMode mode)
{
	CUpti_RangeProfiler_GetCounterDataSize_Params sp = {CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE};
	sp.pRangeProfilerObject = g_obj;
	sp.pMetricNames = const_cast<const char **>(c.names.data());
	sp.numMetrics = c.names.size();
	sp.maxNumOfRanges = g_ranges;
	sp.maxNumRangeTreeNodes = g_ranges;
	CK(cuptiRangeProfilerGetCounterDataSize(&sp));
	g_data.assign(sp.counterDataSize, 0);
	image_init();
	CUpti_RangeProfiler_SetConfig_Params cp = {CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE};
	cp.pRangeProfilerObject = g_obj;
	cp.configSize = c.img.size();
	cp.pConfig = c.img.data();
	cp.counterDataImageSize = g_data.size();
	cp.pCounterDataImage = g_data.data();
	cp.range = g_range;
	cp.replayMode = mode;
	cp.maxRangesPerPass = g_ranges;
	cp.numNestingLevels = 1;
	cp.minNestingLevel = 1;
	cp.targetNestingLevel = 1;
	CK(cuptiRangeProfilerSetConfig(&cp));
}

static float *g_in, *g_out;
static const int N = 1 << 22;
static int g_launch_mode; /* 0 runtime, 1 driver with CUfunction, 2 driver with CUkernel */
static NV::Cupti::Checkpoint::CUpti_Checkpoint g_ck;
static int g_use_ck;

static void launch(int which)
{
	if (g_launch_mode == 0) {
		if (which == 0)
			k_gather<<<N / 256, 256>>>(g_in, g_out, N);
		else
			k_fma<<<N / 256, 256>>>(g_out, N);
		return;
	}
	int n = N;
	void *ga[] = {&g_in, &g_out, &n}, *fa[] = {&g_out, &n};
	CUfunction f = NULL;
	if (g_launch_mode == 1) {
		cudaGetFuncBySymbol(&f, which ? (const void *)k_fma : (const void *)k_gather);
	} else {
		cudaKernel_t k;
		cudaGetKernel(&k, which ? (const void *)k_fma : (const void *)k_gather);
		f = (CUfunction)k;
	}
	CUresult r = cuLaunchKernel(f, N / 256, 1, 1, 256, 1, 1, 0, 0, which ? fa : ga, NULL);
	if (r != CUDA_SUCCESS)
		printf("FAIL cuLaunchKernel: %d\n", (int)r);
}

static void print_values(const char *label, const cfgimg &c, const char *mode, const char *kernel, size_t pass);

static void profile(const char *label, const cfgimg &c, CUpti_ProfilerReplayMode mode, int which)
{
	CUpti_RangeProfiler_Start_Params st = {CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
	CUpti_RangeProfiler_Stop_Params sp = {CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
	st.pRangeProfilerObject = g_obj;
	sp.pRangeProfilerObject = g_obj;
	size_t pass = 0;
	do {
		if (g_use_ck)
			CK(NV::Cupti::Checkpoint::cuptiCheckpointRestore(&g_ck));
		CK(cuptiRangeProfilerStart(&st));
		launch(which);
		CK(cuptiRangeProfilerStop(&sp));
		cudaDeviceSynchronize();
		pass++;
	} while (!sp.isAllPassSubmitted && pass < 64);
	print_values(label, c, mode == CUPTI_UserReplay ? "user" : "kernel", which ? "k_fma   " : "k_gather", pass);
}

/* Every metric's value of one range of the decoded image. */
static std::vector<double> eval_range(const cfgimg &c, size_t range)
{
	std::vector<double> v(c.names.size(), -1);
	CUpti_Profiler_Host_EvaluateToGpuValues_Params ep = {CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE};
	ep.pHostObject = c.host;
	ep.pCounterDataImage = g_data.data();
	ep.counterDataImageSize = g_data.size();
	ep.rangeIndex = range;
	ep.ppMetricNames = const_cast<const char **>(c.names.data());
	ep.numMetrics = c.names.size();
	ep.pMetricValues = v.data();
	CK(cuptiProfilerHostEvaluateToGpuValues(&ep));
	return v;
}

/* Decodes the passes' counters, prints each metric's value of range g_eval, clears the image. */
static void print_values(const char *label, const cfgimg &c, const char *mode, const char *kernel, size_t pass)
{
	CUpti_RangeProfiler_DecodeData_Params dp = {CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE};
	dp.pRangeProfilerObject = g_obj;
	CK(cuptiRangeProfilerDecodeData(&dp));
	if (g_ranges > 1) {
		CUpti_RangeProfiler_GetCounterDataInfo_Params ip = {CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE};
		ip.pCounterDataImage = g_data.data();
		ip.counterDataImageSize = g_data.size();
		CK(cuptiRangeProfilerGetCounterDataInfo(&ip));
		printf("%s: %zu ranges recorded, %zu dropped; range %zu printed\n", label, ip.numTotalRanges,
		       dp.numOfRangeDropped, g_eval);
	}
	std::vector<double> v = eval_range(c, g_eval);
	for (size_t i = 0; i < v.size(); i++)
		printf("%-10s %-6s %s passes %zu/%zu  %-62s %.6g\n", label, mode, kernel, pass, c.passes, c.names[i], v[i]);
	image_init();
}

struct job {
	const char *label;
	const cfgimg *c;
	int which;
};
static void *job_thread(void *a)
{
	job *j = (job *)a;
	CUcontext ctx;
	cuDevicePrimaryCtxRetain(&ctx, 0);
	cuCtxSetCurrent(ctx);
	profile(j->label, *j->c, CUPTI_UserReplay, j->which);
	return NULL;
}
static void on_thread(const char *label, const cfgimg &c, int which)
{
	pthread_t t;
	job j = {label, &c, which};
	pthread_create(&t, NULL, job_thread, &j);
	pthread_join(t, NULL);
}

/* user-cb: the kernel's own runtime launch; in its driver exit callback, the passes on another
 * thread, as gpudiag's injection library does */
static const cfgimg *g_cb_cfg;
static int g_cb_which, g_cb_armed;
static void CUPTIAPI on_api(void *, CUpti_CallbackDomain dom, CUpti_CallbackId cbid, const void *data)
{
	const CUpti_CallbackData *cb = (const CUpti_CallbackData *)data;
	if (dom != CUPTI_CB_DOMAIN_DRIVER_API || cb->callbackSite != CUPTI_API_EXIT || !g_cb_armed)
		return;
	g_cb_armed = 0;
	cudaDeviceSynchronize();
	printf("user-cb: in the exit callback of driver call %u (%s)\n", (unsigned)cbid, cb->functionName);
	on_thread("user-cb", *g_cb_cfg, g_cb_which);
}

static uint8_t g_actbuf[1 << 20];
static void CUPTIAPI buf_req(uint8_t **b, size_t *sz, size_t *max)
{
	*b = g_actbuf, *sz = sizeof(g_actbuf), *max = 0;
}
static void CUPTIAPI buf_done(CUcontext, uint32_t, uint8_t *, size_t, size_t) {}

/* ---- the DRAM-write probe (dram-* modes) */
static const char *DRAM[] = {"dram__bytes_write.sum", "dram__bytes_read.sum", "gpu__time_duration.sum"};
static float4 *g_big, *g_copy_out, *g_dirty;
static char *g_flush;
static size_t g_flush_bytes;
static unsigned *g_sink;
static const size_t BIG = (size_t)256 << 20, COPY = (size_t)64 << 20;
/* lines made dirty before each pass (PROBE_DIRTY_MB, default 16; a restore of a large program
 * leaves the whole L2 dirty) and the flush's read in L2 sizes (PROBE_FLUSH_X, default 2, as
 * gpudiag) */
static size_t DIRTY = (size_t)16 << 20;

static void flush_l2(void)
{
	gpudiag_l2_flush<<<132 * 8, 256>>>((const uint4 *)g_flush, g_flush_bytes / 16, g_sink);
	gpudiag_l2_discard<<<132 * 8, 256>>>(g_flush, g_flush_bytes / 128);
	cudaDeviceSynchronize();
}

static void dram_launch(int which)
{
	if (which == 0)
		k_sweep<<<132 * 8, 256>>>(g_big, (float *)g_sink, BIG / 16);
	else
		k_copy<<<132 * 8, 256>>>(g_big, g_copy_out, COPY / 16);
}

static void dram_case(const char *mode, const cfgimg &c, int which)
{
	CUpti_RangeProfiler_Start_Params st = {CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
	CUpti_RangeProfiler_Stop_Params sp = {CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
	CUpti_RangeProfiler_PushRange_Params pu = {CUpti_RangeProfiler_PushRange_Params_STRUCT_SIZE};
	CUpti_RangeProfiler_PopRange_Params po = {CUpti_RangeProfiler_PopRange_Params_STRUCT_SIZE};
	st.pRangeProfilerObject = sp.pRangeProfilerObject = pu.pRangeProfilerObject = po.pRangeProfilerObject = g_obj;
	pu.pRangeName = "probe";
	int user = !strncmp(mode, "dram-user", 9), before = !strcmp(mode, "dram-user-before");
	int in = !strcmp(mode, "dram-auto-in"); /* auto range, the flush inside the session */
	int kernel = !strcmp(mode, "dram-kernel"), flush = strcmp(mode, "dram-noflush") && !kernel;
	size_t pass = 0;
	do {
		k_dirty<<<132 * 8, 256>>>(g_dirty, DIRTY / 16, (float)pass); /* as a restore would */
		cudaDeviceSynchronize();
		if (flush && (!user || before) && !in)
			flush_l2();
		CK(cuptiRangeProfilerStart(&st));
		if (flush && ((user && !before) || in))
			flush_l2(); /* inside the session: outside the range, or ranges of their own */
		if (user)
			CK(cuptiRangeProfilerPushRange(&pu));
		dram_launch(which);
		if (user)
			CK(cuptiRangeProfilerPopRange(&po));
		CK(cuptiRangeProfilerStop(&sp));
		cudaDeviceSynchronize();
		pass++;
	} while (!sp.isAllPassSubmitted && pass < 64);
	print_values(mode, c, kernel ? "kernel" : "user", which ? "k_copy  " : "k_sweep ", pass);
}

static void dram_probe(const char *mode, CUcontext ctx)
{
	int dev = 0, l2 = 0;
	cuCtxGetDevice(&dev);
	cuDeviceGetAttribute(&l2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, dev);
	if (getenv("PROBE_DIRTY_MB"))
		DIRTY = (size_t)atoi(getenv("PROBE_DIRTY_MB")) << 20;
	g_flush_bytes = ((size_t)l2 * (getenv("PROBE_FLUSH_X") ? atoi(getenv("PROBE_FLUSH_X")) : 2) + 127) & ~(size_t)127;
	printf("%s: %zu MB made dirty before each pass, the flush reads %zu MB\n", mode, DIRTY >> 20, g_flush_bytes >> 20);
	if (cudaMalloc(&g_big, BIG) || cudaMalloc(&g_copy_out, COPY) || cudaMalloc(&g_dirty, DIRTY) ||
	    cudaMalloc(&g_flush, g_flush_bytes) || cudaMalloc(&g_sink, 64)) {
		printf("FAIL cudaMalloc\n");
		exit(1);
	}
	cudaMemset(g_big, 0, BIG);
	cudaMemset(g_flush, 0, g_flush_bytes);
	cudaMemset(g_sink, 0, 64);
	dram_launch(0); /* the kernels' code loaded before the profiler is set up */
	dram_launch(1);
	flush_l2();
	(void)ctx;
	cfgimg c;
	build(c, std::vector<const char *>(DRAM, DRAM + 3));
	g_range = strncmp(mode, "dram-user", 9) ? CUPTI_AutoRange : CUPTI_UserRange;
	if (!strcmp(mode, "dram-auto-in"))
		g_ranges = 3, g_eval = 2;
	set_config(c, strcmp(mode, "dram-kernel") ? CUPTI_UserReplay : CUPTI_KernelReplay);
	dram_case(mode, c, 0);
	dram_case(mode, c, 1);
}

/* ---- several launches in one pass (batch) */
static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}


static size_t decode_ranges(void)
{
	CUpti_RangeProfiler_DecodeData_Params dp = {CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE};
	CUpti_RangeProfiler_GetCounterDataInfo_Params ip = {CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE};
	dp.pRangeProfilerObject = g_obj;
	CK(cuptiRangeProfilerDecodeData(&dp));
	ip.pCounterDataImage = g_data.data();
	ip.counterDataImageSize = g_data.size();
	CK(cuptiRangeProfilerGetCounterDataInfo(&ip));
	if (dp.numOfRangeDropped)
		printf("batch: %zu ranges dropped\n", dp.numOfRangeDropped);
	return ip.numTotalRanges;
}

static void ckpt_save(NV::Cupti::Checkpoint::CUpti_Checkpoint &k, CUcontext ctx)
{
	memset(&k, 0, sizeof(k));
	{ using namespace NV::Cupti::Checkpoint; k.structSize = CUpti_Checkpoint_STRUCT_SIZE; }
	k.ctx = ctx;
	k.allowOverwrite = 1;
	k.reserveDeviceMB = 1024;
	CK(NV::Cupti::Checkpoint::cuptiCheckpointSave(&k));
}

/* Every pass of one session over `count` launches (k_gather and k_fma in turn from launch
 * `first`), each from its own checkpoint: restore, flush, (the first) Start, launch; Stop.
 * Adds the time in Start, Stop and the restores; returns the passes. */
static size_t session(NV::Cupti::Checkpoint::CUpti_Checkpoint *ck, int first, int count, double *t_start,
		      double *t_stop, double *t_rest)
{
	CUpti_RangeProfiler_Start_Params st = {CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
	CUpti_RangeProfiler_Stop_Params sp = {CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
	size_t passes = 0;
	double t;
	st.pRangeProfilerObject = sp.pRangeProfilerObject = g_obj;
	do {
		for (int i = 0; i < count; i++) {
			t = now_ms();
			CK(NV::Cupti::Checkpoint::cuptiCheckpointRestore(&ck[i]));
			cudaDeviceSynchronize();
			*t_rest += now_ms() - t;
			flush_l2();
			if (i == 0) {
				t = now_ms();
				CK(cuptiRangeProfilerStart(&st));
				*t_start += now_ms() - t;
			}
			launch((first + i) % 2);
			cudaDeviceSynchronize(); /* before the next restore */
		}
		t = now_ms();
		CK(cuptiRangeProfilerStop(&sp));
		*t_stop += now_ms() - t;
		cudaDeviceSynchronize();
		passes++;
	} while (!sp.isAllPassSubmitted && passes < 64);
	return passes;
}

static void batch_probe(CUcontext ctx)
{
	int K = getenv("PROBE_K") ? atoi(getenv("PROBE_K")) : 8, dev = 0, l2 = 0;
	std::vector<const char *> names;
	std::vector<std::string> keep;
	if (K < 2 || K > 32)
		K = 8;
	if (getenv("PROBE_NAMES")) {
		FILE *f = fopen(getenv("PROBE_NAMES"), "r");
		char line[256];
		while (f && fgets(line, sizeof(line), f)) {
			line[strcspn(line, "\r\n")] = 0;
			if (line[0])
				keep.push_back(line);
		}
		if (f)
			fclose(f);
		for (auto &k : keep)
			names.push_back(k.c_str());
	}
	if (names.empty()) {
		names.assign(SASS, SASS + 2);
		names.insert(names.end(), HW, HW + 5);
	}
	cuCtxGetDevice(&dev);
	cuDeviceGetAttribute(&l2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, dev);
	g_flush_bytes = ((size_t)l2 * 2 + 127) & ~(size_t)127;
	if (cudaMalloc(&g_flush, g_flush_bytes) || cudaMalloc(&g_sink, 64)) {
		printf("FAIL cudaMalloc\n");
		exit(1);
	}
	cudaMemset(g_flush, 0, g_flush_bytes);
	flush_l2();
	cfgimg c;
	build(c, names);
	printf("batch: %zu metrics, %zu passes, %d launches\n", c.names.size(), c.passes, K);
	std::vector<NV::Cupti::Checkpoint::CUpti_Checkpoint> ck(K);
	std::vector<std::vector<double>> one(2), all(2);
	double t_start = 0, t_stop = 0, t_rest = 0, t0, t;
	size_t passes = 0;

	/* one at a time, as gpudiag profiles a launch by default */
	g_ranges = 1, g_eval = 0;
	set_config(c, CUPTI_UserReplay);
	t0 = now_ms();
	for (int i = 0; i < K; i++) {
		ckpt_save(ck[i], ctx);
		launch(i % 2); /* the program's launch */
		cudaDeviceSynchronize();
		passes = session(ck.data() + i, i, 1, &t_start, &t_stop, &t_rest);
		if (decode_ranges() != 1)
			printf("batch: one at a time, launch %d: not one range\n", i);
		if (i < 2)
			one[i] = eval_range(c, 0);
		image_init();
		CK(NV::Cupti::Checkpoint::cuptiCheckpointFree(&ck[i]));
	}
	t = now_ms() - t0;
	printf("batch: one at a time: %.1f ms a launch (%zu passes: Start %.2f, Stop %.2f, restore+sync %.2f ms a pass)\n",
	       t / K, passes, t_start / (K * passes), t_stop / (K * passes), t_rest / (K * passes));

	/* all K in one session: ranges launch 0, then (flush, discard, launch) for each next */
	g_ranges = 1 + (size_t)(K - 1) * 3;
	set_config(c, CUPTI_UserReplay);
	t_start = t_stop = t_rest = 0;
	t0 = now_ms();
	for (int i = 0; i < K; i++) {
		ckpt_save(ck[i], ctx);
		launch(i % 2);
		cudaDeviceSynchronize();
	}
	passes = session(ck.data(), 0, K, &t_start, &t_stop, &t_rest);
	size_t nr = decode_ranges();
	t = now_ms() - t0;
	printf("batch: all %d in one session: %.1f ms a launch (%zu passes: Start %.2f, Stop %.2f ms a pass, "
	       "restore+sync %.2f ms a launch and pass); %zu ranges recorded, %zu expected\n",
	       K, t / K, passes, t_start / passes, t_stop / passes, t_rest / (K * passes), nr, g_ranges);
	if (nr == g_ranges) {
		all[0] = eval_range(c, 0);
		all[1] = eval_range(c, 3);
		for (int w = 0; w < 2; w++)
			for (size_t m = 0; m < c.names.size(); m++)
				printf("batch %s %-62s one %.6g  batched %.6g  %+.2f%%\n", w ? "k_fma   " : "k_gather",
				       c.names[m], one[w][m], all[w][m],
				       one[w][m] != 0 ? 100.0 * (all[w][m] - one[w][m]) / one[w][m] : 0.0);
	}
	image_init();
	for (int i = 0; i < K; i++)
		CK(NV::Cupti::Checkpoint::cuptiCheckpointFree(&ck[i]));
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "kernel";
	cudaFree(0);
	CUcontext ctx;
	cuCtxGetCurrent(&ctx);
	cudaMalloc(&g_in, (size_t)N * 32 * sizeof(float));
	cudaMalloc(&g_out, (size_t)N * sizeof(float));
	cudaMemset(g_in, 0, (size_t)N * 32 * sizeof(float));
	cudaMemset(g_out, 0, (size_t)N * sizeof(float));
	int early = !strcmp(mode, "user-early");
	if (!early) { // load both kernels' code before the profiler is set up
		launch(0);
		launch(1);
		cudaDeviceSynchronize();
	}
	CUpti_Profiler_Initialize_Params pi = {CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
	CK(cuptiProfilerInitialize(&pi));
	CUpti_Device_GetChipName_Params cn = {CUpti_Device_GetChipName_Params_STRUCT_SIZE};
	cn.deviceIndex = 0;
	CK(cuptiDeviceGetChipName(&cn));
	snprintf(g_chip, sizeof(g_chip), "%s", cn.pChipName);
	CUpti_Profiler_GetCounterAvailability_Params av = {CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE};
	av.ctx = ctx;
	CK(cuptiProfilerGetCounterAvailability(&av));
	g_avail.resize(av.counterAvailabilityImageSize);
	av.pCounterAvailabilityImage = g_avail.data();
	CK(cuptiProfilerGetCounterAvailability(&av));
	cfgimg all, sass, hw;
	std::vector<const char *> an(SASS, SASS + 2);
	an.insert(an.end(), HW, HW + 5);
	build(all, an);
	build(sass, std::vector<const char *>(SASS, SASS + 2));
	build(hw, std::vector<const char *>(HW, HW + 5));
	printf("passes: all %zu, sass alone %zu, hardware alone %zu\n", all.passes, sass.passes, hw.passes);
	CUpti_RangeProfiler_Enable_Params en = {CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE};
	en.ctx = ctx;
	CK(cuptiRangeProfilerEnable(&en));
	g_obj = en.pRangeProfilerObject;
	if (!strncmp(mode, "dram-", 5)) {
		dram_probe(mode, ctx);
	} else if (!strcmp(mode, "batch")) {
		batch_probe(ctx);
	} else if (!strcmp(mode, "kernel")) {
		set_config(all, CUPTI_KernelReplay);
		profile("kernel", all, CUPTI_KernelReplay, 0);
		profile("kernel", all, CUPTI_KernelReplay, 1);
	} else if (!strncmp(mode, "user-", 5) && !early) {
		set_config(all, CUPTI_UserReplay);
		for (int w = 0; w < 2; w++) {
			if (!strcmp(mode, "user-ckpt")) {
				memset(&g_ck, 0, sizeof(g_ck));
				{ using namespace NV::Cupti::Checkpoint; g_ck.structSize = CUpti_Checkpoint_STRUCT_SIZE; }
				g_ck.ctx = ctx;
				g_ck.allowOverwrite = 1;
				CK(NV::Cupti::Checkpoint::cuptiCheckpointSave(&g_ck));
				g_use_ck = 1;
				profile(mode, all, CUPTI_UserReplay, w);
				g_use_ck = 0;
				CK(NV::Cupti::Checkpoint::cuptiCheckpointFree(&g_ck));
			} else if (!strcmp(mode, "user-drv") || !strcmp(mode, "user-handle")) {
				g_launch_mode = mode[5] == 'd' ? 1 : 2;
				profile(mode, all, CUPTI_UserReplay, w);
				g_launch_mode = 0;
			} else if (!strcmp(mode, "user-act")) {
				static int on;
				if (!on++) {
					CK(cuptiActivityRegisterCallbacks(buf_req, buf_done));
					CK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
				}
				profile(mode, all, CUPTI_UserReplay, w);
			} else if (!strcmp(mode, "user-thread")) {
				on_thread(mode, all, w);
			} else if (!strcmp(mode, "user-cb")) {
				static CUpti_SubscriberHandle sub;
				if (!sub) {
					CK(cuptiSubscribe(&sub, on_api, NULL));
					CK(cuptiEnableDomain(1, sub, CUPTI_CB_DOMAIN_DRIVER_API));
				}
				g_cb_cfg = &all, g_cb_which = w, g_cb_armed = 0;
				cudaDeviceSynchronize();
				g_cb_armed = 1;
				launch(w); /* the program's launch: the passes run from its exit callback */
				cudaDeviceSynchronize();
			} else {
				printf("unknown mode %s\n", mode);
				return 2;
			}
		}
	} else if (!strcmp(mode, "user") || early) {
		set_config(all, CUPTI_UserReplay);
		profile(mode, all, CUPTI_UserReplay, 0);
		profile(mode, all, CUPTI_UserReplay, 1);
	} else if (!strcmp(mode, "switch")) {
		set_config(all, CUPTI_KernelReplay);
		profile("switch", all, CUPTI_KernelReplay, 0);
		set_config(all, CUPTI_UserReplay);
		profile("switch", all, CUPTI_UserReplay, 0);
		set_config(all, CUPTI_KernelReplay);
		profile("switch", all, CUPTI_KernelReplay, 1);
	} else if (!strcmp(mode, "split")) {
		for (int w = 0; w < 2; w++) {
			set_config(sass, CUPTI_KernelReplay);
			profile("split", sass, CUPTI_KernelReplay, w);
			set_config(hw, CUPTI_UserReplay);
			profile("split", hw, CUPTI_UserReplay, w);
		}
	} else {
		printf("unknown mode %s\n", mode);
		return 2;
	}
	CUpti_RangeProfiler_Disable_Params dp = {CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE};
	dp.pRangeProfilerObject = g_obj;
	CK(cuptiRangeProfilerDisable(&dp));
	return 0;
}
