/* The CUDA driver API through dlopen; see cudrv.h. Only the handful of entry points that
 * describe devices are resolved here; kernels are launched through the statically linked
 * CUDA runtime, which finds the same driver on its own. */
#include "gpu/cudrv.h"

#include "core/status.h"

#include <cuda.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct {
	int tried, status, count;
	char why[512];
	void *lib;
	CUresult (*init)(unsigned);
	CUresult (*driver_version)(int *);
	CUresult (*device_get)(CUdevice *, int);
	CUresult (*device_count)(int *);
	CUresult (*attr)(int *, CUdevice_attribute, CUdevice);
	CUresult (*name)(char *, int, CUdevice);
	CUresult (*uuid)(CUuuid *, CUdevice);
	CUresult (*total_mem)(size_t *, CUdevice);
	CUresult (*pci)(char *, int, CUdevice);
	CUresult (*err_name)(CUresult, const char **);
} drv;

static void *sym(const char *name)
{
	return dlsym(drv.lib, name);
}

const char *gd_cu_error_name(int code)
{
	const char *s = NULL;
	if (drv.err_name && drv.err_name((CUresult)code, &s) == CUDA_SUCCESS && s)
		return s;
	return "CUDA_ERROR_UNKNOWN";
}

static int fail(const char *what, const char *a, const char *b)
{
	snprintf(drv.why, sizeof(drv.why), "%s%s%s", what, a, b);
	drv.status = GD_ENOGPU;
	return drv.status;
}

static int load(void)
{
	const char *path = getenv("GPUDIAG_LIBCUDA");
	CUresult r;
	if (!path || !*path)
		path = "libcuda.so.1";
	drv.lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!drv.lib)
		return fail("no NVIDIA driver: ", dlerror(), "");
	drv.init = (CUresult(*)(unsigned))sym("cuInit");
	drv.driver_version = (CUresult(*)(int *))sym("cuDriverGetVersion");
	drv.device_get = (CUresult(*)(CUdevice *, int))sym("cuDeviceGet");
	drv.device_count = (CUresult(*)(int *))sym("cuDeviceGetCount");
	drv.attr = (CUresult(*)(int *, CUdevice_attribute, CUdevice))sym("cuDeviceGetAttribute");
	drv.name = (CUresult(*)(char *, int, CUdevice))sym("cuDeviceGetName");
	drv.uuid = (CUresult(*)(CUuuid *, CUdevice))sym("cuDeviceGetUuid_v2");
	if (!drv.uuid)
		drv.uuid = (CUresult(*)(CUuuid *, CUdevice))sym("cuDeviceGetUuid");
	drv.total_mem = (CUresult(*)(size_t *, CUdevice))sym("cuDeviceTotalMem_v2");
	drv.pci = (CUresult(*)(char *, int, CUdevice))sym("cuDeviceGetPCIBusId");
	drv.err_name = (CUresult(*)(CUresult, const char **))sym("cuGetErrorName");
	if (!drv.init || !drv.device_get || !drv.device_count || !drv.attr)
		return fail("no usable NVIDIA driver: ", path, " lacks the CUDA driver API");
	r = drv.init(0);
	if (r != CUDA_SUCCESS)
		return fail(r == CUDA_ERROR_NO_DEVICE ? "no CUDA device: cuInit failed: "
						      : "the NVIDIA driver cannot start: cuInit failed: ",
			    gd_cu_error_name(r),
			    r == CUDA_ERROR_NO_DEVICE ? "" : " (is the kernel module loaded and the device visible?)");
	if (drv.device_count(&drv.count) != CUDA_SUCCESS || drv.count <= 0)
		return fail("no CUDA device: the driver reports none", "", "");
	drv.status = GD_OK;
	return GD_OK;
}

static void load_once(void)
{
	drv.tried = 1;
	load();
}

/* Once per process, whichever thread asks first (the NVML sampler's and the GPU-metrics
 * sampler's threads both do in `gpudiag run`). */
int gd_cu_open(char *why, size_t n)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, load_once);
	if (drv.status != GD_OK && why)
		snprintf(why, n, "%s", drv.why);
	return drv.status;
}

int gd_cu_count(void) { return drv.status == GD_OK ? drv.count : 0; }

int gd_cu_attr(int dev, int attr)
{
	CUdevice d;
	int v;
	if (drv.status != GD_OK || drv.device_get(&d, dev) != CUDA_SUCCESS)
		return -1;
	if (drv.attr(&v, (CUdevice_attribute)attr, d) != CUDA_SUCCESS)
		return -1;
	return v;
}

int gd_cu_name(int dev, char *buf, size_t n)
{
	CUdevice d;
	if (drv.status != GD_OK || !drv.name || drv.device_get(&d, dev) != CUDA_SUCCESS ||
	    drv.name(buf, (int)n, d) != CUDA_SUCCESS) {
		snprintf(buf, n, "unknown");
		return -1;
	}
	return 0;
}

int gd_cu_uuid(int dev, char *buf, size_t n)
{
	CUdevice d;
	CUuuid u;
	const unsigned char *b = (const unsigned char *)u.bytes;
	if (drv.status != GD_OK || !drv.uuid || drv.device_get(&d, dev) != CUDA_SUCCESS ||
	    drv.uuid(&u, d) != CUDA_SUCCESS) {
		snprintf(buf, n, "unknown");
		return -1;
	}
	snprintf(buf, n, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1],
		 b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
	return 0;
}

int gd_cu_pci_bus_id(int dev, char *buf, size_t n)
{
	CUdevice d;
	if (drv.status != GD_OK || !drv.pci || drv.device_get(&d, dev) != CUDA_SUCCESS ||
	    drv.pci(buf, (int)n, d) != CUDA_SUCCESS) {
		snprintf(buf, n, "unknown");
		return -1;
	}
	return 0;
}

unsigned long long gd_cu_total_mem(int dev)
{
	CUdevice d;
	size_t b = 0;
	if (drv.status != GD_OK || !drv.total_mem || drv.device_get(&d, dev) != CUDA_SUCCESS ||
	    drv.total_mem(&b, d) != CUDA_SUCCESS)
		return 0;
	return b;
}

int gd_cu_driver_version(void)
{
	int v;
	if (drv.status != GD_OK || !drv.driver_version || drv.driver_version(&v) != CUDA_SUCCESS)
		return -1;
	return v;
}
