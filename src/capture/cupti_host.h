/* CUPTI's profiler host API, the few calls gpudiag makes of it: a host object for a chip (by
 * name; with the GPU's counter availability image, or none to ask offline), metric names
 * added to it, and the configuration image those give with its replay pass count. Used by the
 * range profiler (rangeprof.c, in the profiled process), by unit.kc_passes (kc_passes_check.c,
 * offline), so the check counts passes with the code the capture runs, and by the GPU tier's
 * CUPTI-alone probe (tests/gpu/metrics/replay_probe.cu). */
#ifndef GPUDIAG_CAPTURE_CUPTI_HOST_H
#define GPUDIAG_CAPTURE_CUPTI_HOST_H

#include <cupti_profiler_host.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" { /* tests/gpu/metrics/replay_probe.cu links it too */
#endif

/* A range-profiler host object for `chip` ("GH100"); avail NULL: every counter of the chip. NULL
 * with *r set when CUPTI refuses. */
CUpti_Profiler_Host_Object *gd_cupti_host_new(const char *chip, const uint8_t *avail, CUptiResult *r);
void gd_cupti_host_free(CUpti_Profiler_Host_Object *h);
/* Adds n metric names; CUPTI's result (a refused name fails the whole call). */
CUptiResult gd_cupti_host_add(CUpti_Profiler_Host_Object *h, const char **names, size_t n);
/* The configuration image of the names added (malloc'd into *image, *size bytes) and its replay
 * passes. CUPTI_SUCCESS, CUPTI_ERROR_OUT_OF_MEMORY, or CUPTI's error (*image NULL then). */
CUptiResult gd_cupti_host_config(CUpti_Profiler_Host_Object *h, uint8_t **image, size_t *size, size_t *passes);

#ifdef __cplusplus
}
#endif

#endif
