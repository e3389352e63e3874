/* A stand-in for libnvidia-ml.so.1 for the CPU tier: one H200 under a software power cap.
 * PCIe and NVLink queries answer NOT_SUPPORTED (as in the VM the notes were taken in), so
 * the "unknown, with the reason" path is exercised too. */
#include <stdlib.h>
#include <string.h>

typedef int nvmlReturn_t;
typedef void *nvmlDevice_t;
/* MOCK_GPUS=2: two H200s, which NVML lists in the other order than CUDA (as it does when
 * CUDA_DEVICE_ORDER=FASTEST_FIRST or PCI order differs): NVML 0 is CUDA device 1 (UUID ...1e20,
 * 71 °C), NVML 1 is CUDA device 0 (UUID ...1e1f, 61 °C). Unset: one GPU, CUDA device 0. */
static int dev_token[2];
static unsigned ngpus(void) { return getenv("MOCK_GPUS") && atoi(getenv("MOCK_GPUS")) == 2 ? 2 : 1; }
/* 1 when handle d is CUDA device 1 */
static int is_cuda1(nvmlDevice_t d) { return ngpus() == 2 && d == &dev_token[0]; }

#define NOT_SUPPORTED 3

nvmlReturn_t nvmlInit_v2(void);
const char *nvmlErrorString(nvmlReturn_t r);
nvmlReturn_t nvmlDeviceGetCount_v2(unsigned *n);
nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned i, nvmlDevice_t *d);
nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t d, char *b, unsigned n);
nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t d, char *b, unsigned n);
nvmlReturn_t nvmlSystemGetDriverVersion(char *b, unsigned n);
nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t d, unsigned *u);
nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t d, void *m);
nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t d, unsigned *mw);
nvmlReturn_t nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t d, unsigned *mw);
nvmlReturn_t nvmlDeviceGetTemperatureV(nvmlDevice_t d, void *t);
nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t d, int type, unsigned *mhz);
nvmlReturn_t nvmlDeviceGetMaxClockInfo(nvmlDevice_t d, int type, unsigned *mhz);
nvmlReturn_t nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_t d, unsigned long long *m);
nvmlReturn_t nvmlDeviceGetMemoryBusWidth(nvmlDevice_t d, unsigned *w);
nvmlReturn_t nvmlDeviceGetComputeMode(nvmlDevice_t d, int *m);
nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t d, unsigned *c, unsigned *p);
nvmlReturn_t nvmlDeviceGetCurrPcieLinkGeneration(nvmlDevice_t d, unsigned *g);
nvmlReturn_t nvmlDeviceGetNvLinkState(nvmlDevice_t d, unsigned l, int *s);
nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t d, unsigned *n, void *p);

nvmlReturn_t nvmlInit_v2(void) { return 0; }
const char *nvmlErrorString(nvmlReturn_t r) { return r == NOT_SUPPORTED ? "Not Supported" : "Mock Error"; }
nvmlReturn_t nvmlDeviceGetCount_v2(unsigned *n)
{
	*n = ngpus();
	return 0;
}
nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned i, nvmlDevice_t *d)
{
	if (i >= ngpus())
		return 2;
	*d = &dev_token[i];
	return 0;
}
nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t d, char *b, unsigned n)
{
	strncpy(b, "NVIDIA H200 (mock)", n);
	return 0;
}
nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t d, char *b, unsigned n)
{
	strncpy(b, is_cuda1(d) ? "GPU-10111213-1415-1617-1819-1a1b1c1d1e20" : "GPU-10111213-1415-1617-1819-1a1b1c1d1e1f", n);
	return 0;
}
nvmlReturn_t nvmlSystemGetDriverVersion(char *b, unsigned n)
{
	strncpy(b, "580.159.04", n);
	return 0;
}
nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t d, unsigned *u)
{
	u[0] = 97;
	u[1] = 41;
	return 0;
}
nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t d, void *m)
{
	unsigned long long *v = (unsigned long long *)((char *)m + 8);
	v[0] = 150754820096ULL; /* total */
	v[1] = 0;               /* reserved */
	v[2] = 100000000000ULL; /* free */
	v[3] = 50754820096ULL;  /* used */
	return 0;
}
nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t d, unsigned *mw)
{
	*mw = 690123;
	return 0;
}
nvmlReturn_t nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t d, unsigned *mw)
{
	*mw = 700000;
	return 0;
}
nvmlReturn_t nvmlDeviceGetTemperatureV(nvmlDevice_t d, void *t)
{
	((int *)t)[2] = is_cuda1(d) ? 71 : 61;
	return 0;
}
nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t d, int type, unsigned *mhz)
{
	*mhz = type == 2 ? 3201 : 1755;
	return 0;
}
nvmlReturn_t nvmlDeviceGetMaxClockInfo(nvmlDevice_t d, int type, unsigned *mhz)
{
	*mhz = type == 2 ? 3201 : 1980;
	return 0;
}
nvmlReturn_t nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_t d, unsigned long long *m)
{
	*m = 0x4; /* software power cap */
	return 0;
}
nvmlReturn_t nvmlDeviceGetMemoryBusWidth(nvmlDevice_t d, unsigned *w)
{
	*w = 6016;
	return 0;
}
nvmlReturn_t nvmlDeviceGetComputeMode(nvmlDevice_t d, int *m)
{
	*m = 0;
	return 0;
}
nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t d, unsigned *c, unsigned *p)
{
	*c = 0;
	*p = 0;
	return 0;
}
nvmlReturn_t nvmlDeviceGetCurrPcieLinkGeneration(nvmlDevice_t d, unsigned *g) { return NOT_SUPPORTED; }
/* MOCK_NVML_NVLINK=K (issue 22, gpudiag nccl's links): K active NVLink links on each GPU, all to
 * an NVSwitch, and NVLink peer-to-peer between the GPUs; unset: NVLink not supported. */
static int nvlinks(void) { return getenv("MOCK_NVML_NVLINK") ? atoi(getenv("MOCK_NVML_NVLINK")) : 0; }
nvmlReturn_t nvmlDeviceGetNvLinkState(nvmlDevice_t d, unsigned l, int *s)
{
	if (!nvlinks())
		return NOT_SUPPORTED;
	if (l >= 18)
		return 2; /* NVML_ERROR_INVALID_ARGUMENT: no such link */
	*s = (int)l < nvlinks();
	return 0;
}
nvmlReturn_t nvmlDeviceGetNvLinkRemoteDeviceType(nvmlDevice_t d, unsigned l, int *t);
nvmlReturn_t nvmlDeviceGetNvLinkRemoteDeviceType(nvmlDevice_t d, unsigned l, int *t)
{
	if (!nvlinks())
		return NOT_SUPPORTED;
	*t = 2; /* NVML_NVLINK_DEVICE_TYPE_SWITCH */
	return 0;
}
nvmlReturn_t nvmlDeviceGetHandleByUUID(const char *uuid, nvmlDevice_t *d);
nvmlReturn_t nvmlDeviceGetHandleByUUID(const char *uuid, nvmlDevice_t *d)
{
	char b[96];
	for (unsigned i = 0; i < ngpus(); i++) {
		nvmlDeviceGetUUID(&dev_token[i], b, sizeof(b));
		if (!strcmp(b, uuid)) {
			*d = &dev_token[i];
			return 0;
		}
	}
	return 6; /* NVML_ERROR_NOT_FOUND */
}
/* the two mock GPUs: PCIe across host bridges of one NUMA node (NODE); NVLink P2P with MOCK_NVML_NVLINK */
nvmlReturn_t nvmlDeviceGetTopologyCommonAncestor(nvmlDevice_t a, nvmlDevice_t b, int *level);
nvmlReturn_t nvmlDeviceGetTopologyCommonAncestor(nvmlDevice_t a, nvmlDevice_t b, int *level)
{
	*level = a == b ? 0 : 40;
	return 0;
}
nvmlReturn_t nvmlDeviceGetP2PStatus(nvmlDevice_t a, nvmlDevice_t b, int index, int *status);
nvmlReturn_t nvmlDeviceGetP2PStatus(nvmlDevice_t a, nvmlDevice_t b, int index, int *status)
{
	*status = index == 2 && nvlinks() ? 0 : 5; /* NVLINK index: OK, else NOT_SUPPORTED */
	return 0;
}
nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t d, unsigned *n, void *p)
{
	*n = 0;
	return 0;
}
