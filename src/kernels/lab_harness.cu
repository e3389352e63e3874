/* CUDA runtime calls for the lab harness; see lab_harness.h. */
#include "kernels/lab_harness.h"

#include <cuda_runtime.h>

extern "C" const char *gd_labk_error(int code)
{
	return cudaGetErrorString((cudaError_t)code);
}
extern "C" int gd_labk_set_device(int dev)
{
	return (int)cudaSetDevice(dev);
}
extern "C" int gd_labk_malloc(void **p, size_t bytes)
{
	return (int)cudaMalloc(p, bytes);
}
extern "C" int gd_labk_free(void *p)
{
	return (int)cudaFree(p);
}

extern "C" int gd_labk_h2d(void *dst, const void *src, size_t bytes)
{
	return (int)cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice);
}

extern "C" int gd_labk_d2h(void *dst, const void *src, size_t bytes)
{
	return (int)cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost);
}

extern "C" int gd_labk_poison(void *p, size_t bytes, int byte)
{
	return (int)cudaMemsetAsync(p, byte, bytes, 0);
}

extern "C" int gd_labk_sync(void)
{
	return (int)cudaDeviceSynchronize();
}
extern "C" int gd_labk_last_error(void)
{
	return (int)cudaGetLastError();
}

extern "C" int gd_labk_mem_info(size_t *free_b, size_t *total_b)
{
	return (int)cudaMemGetInfo(free_b, total_b);
}

extern "C" int gd_labk_events_create(void **ev, int n)
{
	for (int i = 0; i < n; i++) {
		cudaEvent_t e;
		cudaError_t err = cudaEventCreate(&e);
		if (err != cudaSuccess) {
			gd_labk_events_destroy(ev, i);
			return (int)err;
		}
		ev[i] = (void *)e;
	}
	return 0;
}

extern "C" int gd_labk_event_record(void *ev)
{
	return (int)cudaEventRecord((cudaEvent_t)ev, 0);
}

extern "C" int gd_labk_event_query(void *ev)
{
	cudaError_t e = cudaEventQuery((cudaEvent_t)ev);
	if (e == cudaSuccess)
		return 0;
	if (e == cudaErrorNotReady)
		return -1;
	return (int)e;
}

extern "C" int gd_labk_event_sync(void *ev)
{
	return (int)cudaEventSynchronize((cudaEvent_t)ev);
}

extern "C" int gd_labk_event_elapsed(void *start, void *stop, float *ms)
{
	return (int)cudaEventElapsedTime(ms, (cudaEvent_t)start, (cudaEvent_t)stop);
}

extern "C" void gd_labk_events_destroy(void **ev, int n)
{
	for (int i = 0; i < n; i++)
		if (ev[i]) {
			cudaEventDestroy((cudaEvent_t)ev[i]);
			ev[i] = NULL;
		}
}
