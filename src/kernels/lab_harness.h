/* CUDA runtime calls the lab harness (src/lab/lab.c) needs, behind a C interface so the
 * harness itself stays plain C. Every function returns a cudaError_t as int (0 = success);
 * gd_labk_error names it. All work goes to the legacy default stream, which serialises with
 * the labs' launchers (they launch on stream 0 too). */
#ifndef GPUDIAG_LAB_HARNESS_KERNELS_H
#define GPUDIAG_LAB_HARNESS_KERNELS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

const char *gd_labk_error(int code);
int gd_labk_set_device(int dev);
int gd_labk_malloc(void **p, size_t bytes);
int gd_labk_free(void *p);
int gd_labk_h2d(void *dst, const void *src, size_t bytes);
int gd_labk_d2h(void *dst, const void *src, size_t bytes);
/* Fills with the poison byte on the default stream (asynchronous). */
int gd_labk_poison(void *p, size_t bytes, int byte);
int gd_labk_sync(void);
/* The last launch error (cudaGetLastError), clearing it. */
int gd_labk_last_error(void);
int gd_labk_mem_info(size_t *free_b, size_t *total_b);
/* Events: create n, record one on the default stream, query (0 done, -1 not ready, else error),
 * elapsed ms between two, destroy n. */
int gd_labk_events_create(void **ev, int n);
int gd_labk_event_record(void *ev);
int gd_labk_event_query(void *ev);
int gd_labk_event_sync(void *ev);
int gd_labk_event_elapsed(void *start, void *stop, float *ms);
void gd_labk_events_destroy(void **ev, int n);

#ifdef __cplusplus
}
#endif

#endif
