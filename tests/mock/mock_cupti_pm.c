/* A stand-in for libcupti's PM-sampling entry points, for the CPU tier of the GPU-metrics
 * sampler (src/gpu/pmsample.c; loaded through GPUDIAG_CUPTI). It hands out one synthetic
 * sample per interval of wall time between decodes, with CLOCK_REALTIME stamps, and values
 * that depend only on the metric name (listed below), so a test can assert them.
 *
 * MOCK_PM selects a refusal: "privileges" (counter availability → INSUFFICIENT_PRIVILEGES),
 * "busy" (enable → HARDWARE_BUSY), "nochip" (chip name → NOT_SUPPORTED), "overflow" (the
 * third decode reports a full hardware buffer), "passes" (more than 8 metrics need two
 * passes), "passes_dramc" (the dram__read/write_throughput names are accepted but need a
 * second pass; the dramc__ ones fit). MOCK_PM_REJECT=SUBSTR refuses metric names containing SUBSTR. */
#define _GNU_SOURCE /* clock_gettime */
#include <cupti_pmsampling.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_result.h>
#include <cupti_target.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define API __attribute__((visibility("default")))

static const char *mode(void)
{
	const char *m = getenv("MOCK_PM");
	return m ? m : "";
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

struct CUpti_Profiler_Host_Object {
	int nmetrics, dram_split;
};
struct CUpti_PmSampling_Object {
	uint64_t interval, last;
	int decodes;
};
struct image {
	size_t max, n;
	uint64_t t[][2];
};

API CUptiResult cuptiGetResultString(CUptiResult r, const char **s)
{
	*s = r == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES ? "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES"
	     : r == CUPTI_ERROR_HARDWARE_BUSY        ? "CUPTI_ERROR_HARDWARE_BUSY"
	     : r == CUPTI_ERROR_NOT_SUPPORTED        ? "CUPTI_ERROR_NOT_SUPPORTED"
	     : r == CUPTI_ERROR_OUT_OF_MEMORY        ? "CUPTI_ERROR_OUT_OF_MEMORY"
						     : "CUPTI_ERROR_UNKNOWN";
	return CUPTI_SUCCESS;
}

API CUptiResult cuptiProfilerInitialize(CUpti_Profiler_Initialize_Params *p)
{
	(void)p;
	return CUPTI_SUCCESS;
}

API CUptiResult cuptiDeviceGetChipName(CUpti_Device_GetChipName_Params *p)
{
	if (!strcmp(mode(), "nochip"))
		return CUPTI_ERROR_NOT_SUPPORTED;
	p->pChipName = "GH100";
	return CUPTI_SUCCESS;
}

API CUptiResult cuptiPmSamplingGetCounterAvailability(CUpti_PmSampling_GetCounterAvailability_Params *p)
{
	if (!strcmp(mode(), "privileges"))
		return CUPTI_ERROR_INSUFFICIENT_PRIVILEGES;
	if (!p->pCounterAvailabilityImage)
		p->counterAvailabilityImageSize = 64;
	else
		memset(p->pCounterAvailabilityImage, 0, p->counterAvailabilityImageSize);
	return CUPTI_SUCCESS;
}

API CUptiResult cuptiProfilerHostInitialize(CUpti_Profiler_Host_Initialize_Params *p)
{
	p->pHostObject = calloc(1, sizeof(*p->pHostObject));
	return p->pHostObject ? CUPTI_SUCCESS : CUPTI_ERROR_OUT_OF_MEMORY;
}

API CUptiResult cuptiProfilerHostDeinitialize(CUpti_Profiler_Host_Deinitialize_Params *p)
{
	free(p->pHostObject);
	return CUPTI_SUCCESS;
}

API CUptiResult cuptiProfilerHostConfigAddMetrics(CUpti_Profiler_Host_ConfigAddMetrics_Params *p)
{
	const char *rej = getenv("MOCK_PM_REJECT");
	for (size_t i = 0; i < p->numMetrics; i++) {
		/* names the real GH100 has (cupti-notes §4): accept them; invent nothing else */
		if (rej && *rej && strstr(p->ppMetricNames[i], rej))
			return CUPTI_ERROR_INVALID_METRIC_NAME;
		int split = strstr(p->ppMetricNames[i], "dram__read") || strstr(p->ppMetricNames[i], "dram__write");
		if ((split && strcmp(mode(), "passes_dramc")) || strstr(p->ppMetricNames[i], "tpc__warps_active") ||
		    strstr(p->ppMetricNames[i], "sm__warps_active_realtime"))
			return CUPTI_ERROR_INVALID_METRIC_NAME;
		p->pHostObject->dram_split |= split;
	}
	p->pHostObject->nmetrics += (int)p->numMetrics;
	return CUPTI_SUCCESS;
}

API CUptiResult cuptiProfilerHostGetConfigImageSize(CUpti_Profiler_Host_GetConfigImageSize_Params *p)
{
	p->configImageSize = 16;
	return CUPTI_SUCCESS;
}

API CUptiResult cuptiProfilerHostGetConfigImage(CUpti_Profiler_Host_GetConfigImage_Params *p)
{
	memset(p->pConfigImage, 0, p->configImageSize);
	p->pConfigImage[0] = (uint8_t)p->pHostObject->nmetrics; /* read back by GetNumOfPasses */
	p->pConfigImage[1] = (uint8_t)p->pHostObject->dram_split;
	return CUPTI_SUCCESS;
}

API CUptiResult cuptiProfilerHostGetNumOfPasses(CUpti_Profiler_Host_GetNumOfPasses_Params *p)
{
	p->numOfPasses = (!strcmp(mode(), "passes") && p->pConfigImage[0] > 8) ||
				 (!strcmp(mode(), "passes_dramc") && p->pConfigImage[1])
			 ? 2
			 : 1;
	return CUPTI_SUCCESS;
}

/* The value of a metric, by name. */
static double value_of(const char *n)
{
	if (strstr(n, "per_second"))
		return 1.98e9;
	if (strstr(n, "pcie__read_bytes"))
		return 2000.0; /* per 100 µs sample: 20 MB/s */
	if (strstr(n, "pcie__write_bytes"))
		return 1000.0;
	if (strstr(n, "sm__cycles_active"))
		return 90.0;
	if (strstr(n, "sm__inst_executed"))
		return 20.0;
	if (strstr(n, "tensor"))
		return 5.0;
	if (strstr(n, "dramc__read"))
		return 0.6; /* a fraction, as the real counter reads (cupti-notes §4) */
	if (strstr(n, "dramc__write"))
		return 0.2;
	if (strstr(n, "dram__throughput"))
		return 80.0;
	if (strstr(n, "lts__"))
		return 40.0;
	if (strstr(n, "warps_active"))
		return 55.0;
	if (strstr(n, "warps_inactive"))
		return 30.0;
	if (strstr(n, "gr__cycles_active"))
		return 99.0;
	return 50.0;
}

API CUptiResult cuptiProfilerHostEvaluateToGpuValues(CUpti_Profiler_Host_EvaluateToGpuValues_Params *p)
{
	const struct image *im = (const struct image *)p->pCounterDataImage;
	if (p->rangeIndex >= im->n)
		return CUPTI_ERROR_INVALID_PARAMETER;
	for (size_t i = 0; i < p->numMetrics; i++)
		p->pMetricValues[i] = value_of(p->ppMetricNames[i]);
	return CUPTI_SUCCESS;
}

API CUptiResult cuptiPmSamplingEnable(CUpti_PmSampling_Enable_Params *p)
{
	if (!strcmp(mode(), "busy"))
		return CUPTI_ERROR_HARDWARE_BUSY;
	p->pPmSamplingObject = calloc(1, sizeof(*p->pPmSamplingObject));
	return p->pPmSamplingObject ? CUPTI_SUCCESS : CUPTI_ERROR_OUT_OF_MEMORY;
}

API CUptiResult cuptiPmSamplingDisable(CUpti_PmSampling_Disable_Params *p)
{
	free(p->pPmSamplingObject);
	return CUPTI_SUCCESS;
}

API CUptiResult cuptiPmSamplingSetConfig(CUpti_PmSampling_SetConfig_Params *p)
{
	if (p->triggerMode != CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_TIME_INTERVAL || p->samplingInterval == 0)
		return CUPTI_ERROR_INVALID_PARAMETER;
	p->pPmSamplingObject->interval = p->samplingInterval;
	return CUPTI_SUCCESS;
}

API CUptiResult cuptiPmSamplingGetCounterDataSize(CUpti_PmSampling_GetCounterDataSize_Params *p)
{
	p->counterDataSize = sizeof(struct image) + (size_t)p->maxSamples * 2 * sizeof(uint64_t);
	return CUPTI_SUCCESS;
}

API CUptiResult cuptiPmSamplingCounterDataImageInitialize(CUpti_PmSampling_CounterDataImage_Initialize_Params *p)
{
	struct image *im = (struct image *)p->pCounterData;
	im->max = (p->counterDataSize - sizeof(struct image)) / (2 * sizeof(uint64_t));
	im->n = 0;
	return CUPTI_SUCCESS;
}

API CUptiResult cuptiPmSamplingStart(CUpti_PmSampling_Start_Params *p)
{
	p->pPmSamplingObject->last = now_ns() - p->pPmSamplingObject->interval; /* the first sample */
	return CUPTI_SUCCESS;
}

API CUptiResult cuptiPmSamplingStop(CUpti_PmSampling_Stop_Params *p)
{
	(void)p;
	return CUPTI_SUCCESS;
}

API CUptiResult cuptiPmSamplingDecodeData(CUpti_PmSampling_DecodeData_Params *p)
{
	struct CUpti_PmSampling_Object *o = p->pPmSamplingObject;
	struct image *im = (struct image *)p->pCounterDataImage;
	uint64_t t = now_ns();
	if (!strcmp(mode(), "overflow") && ++o->decodes >= 3) {
		p->overflow = 1;
		return CUPTI_ERROR_OUT_OF_MEMORY;
	}
	while (o->last + o->interval <= t && im->n < im->max) {
		im->t[im->n][0] = o->last;
		im->t[im->n][1] = o->last + o->interval;
		o->last += o->interval;
		im->n++;
	}
	p->decodeStopReason = im->n == im->max ? CUPTI_PM_SAMPLING_DECODE_STOP_REASON_COUNTER_DATA_FULL
					       : CUPTI_PM_SAMPLING_DECODE_STOP_REASON_END_OF_RECORDS;
	return CUPTI_SUCCESS;
}

API CUptiResult cuptiPmSamplingGetCounterDataInfo(CUpti_PmSampling_GetCounterDataInfo_Params *p)
{
	const struct image *im = (const struct image *)p->pCounterDataImage;
	p->numTotalSamples = im->max;
	p->numPopulatedSamples = p->numCompletedSamples = im->n;
	return CUPTI_SUCCESS;
}

API CUptiResult cuptiPmSamplingCounterDataGetSampleInfo(CUpti_PmSampling_CounterData_GetSampleInfo_Params *p)
{
	const struct image *im = (const struct image *)p->pCounterDataImage;
	if (p->sampleIndex >= im->n)
		return CUPTI_ERROR_INVALID_PARAMETER;
	p->startTimestamp = im->t[p->sampleIndex][0];
	p->endTimestamp = im->t[p->sampleIndex][1];
	return CUPTI_SUCCESS;
}
