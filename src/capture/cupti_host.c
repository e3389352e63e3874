/* CUPTI's profiler host API: host objects, metric names, configuration images (cupti_host.h). */
#include "capture/cupti_host.h"

#include <stdlib.h>

CUpti_Profiler_Host_Object *gd_cupti_host_new(const char *chip, const uint8_t *avail, CUptiResult *r)
{
	CUpti_Profiler_Host_Initialize_Params p = {.structSize = CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE};
	p.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
	p.pChipName = chip;
	p.pCounterAvailabilityImage = avail;
	*r = cuptiProfilerHostInitialize(&p);
	return *r == CUPTI_SUCCESS ? p.pHostObject : NULL;
}

void gd_cupti_host_free(CUpti_Profiler_Host_Object *h)
{
	CUpti_Profiler_Host_Deinitialize_Params p = {.structSize = CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE};
	if (!h)
		return;
	p.pHostObject = h;
	cuptiProfilerHostDeinitialize(&p);
}

CUptiResult gd_cupti_host_add(CUpti_Profiler_Host_Object *h, const char **names, size_t n)
{
	CUpti_Profiler_Host_ConfigAddMetrics_Params p = {.structSize = CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE};
	p.pHostObject = h;
	p.ppMetricNames = names;
	p.numMetrics = n;
	return cuptiProfilerHostConfigAddMetrics(&p);
}

CUptiResult gd_cupti_host_config(CUpti_Profiler_Host_Object *h, uint8_t **image, size_t *size, size_t *passes)
{
	CUptiResult r;
	CUpti_Profiler_Host_GetConfigImageSize_Params zp = {.structSize = CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE};
	CUpti_Profiler_Host_GetConfigImage_Params ip = {.structSize = CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE};
	CUpti_Profiler_Host_GetNumOfPasses_Params pp = {.structSize = CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE};
	*image = NULL;
	zp.pHostObject = h;
	if ((r = cuptiProfilerHostGetConfigImageSize(&zp)) != CUPTI_SUCCESS)
		return r;
	if (!(*image = malloc(zp.configImageSize ? zp.configImageSize : 1)))
		return CUPTI_ERROR_OUT_OF_MEMORY;
	ip.pHostObject = h;
	ip.configImageSize = zp.configImageSize;
	ip.pConfigImage = *image;
	pp.configImageSize = zp.configImageSize;
	pp.pConfigImage = *image;
	if ((r = cuptiProfilerHostGetConfigImage(&ip)) != CUPTI_SUCCESS ||
	    (r = cuptiProfilerHostGetNumOfPasses(&pp)) != CUPTI_SUCCESS) {
		free(*image);
		*image = NULL;
		return r;
	}
	*size = zp.configImageSize;
	*passes = pp.numOfPasses;
	return CUPTI_SUCCESS;
}
