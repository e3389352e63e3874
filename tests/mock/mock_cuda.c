/* A stand-in for libcuda.so.1 for the CPU tier: answers the driver calls gpudiag's device
 * module makes with the values an H200 reported (see cupti-notes.md §8), so `gpudiag info`
 * and `gpudiag occupancy --device` can be tested end to end on a machine with no GPU.
 * MOCK_CUDA_INIT_ERROR=N makes cuInit fail with CUresult N (100 = no device);
 * MOCK_CUDA_CC=M.N reports another compute capability (an architecture gpudiag has no table for);
 * MOCK_GPUS=2 gives two devices (UUIDs ...1e1f and ...1e20; mock_nvml.c lists them swapped);
 * MOCK_GPUS=3..8 gives that many (NVML's mock knows two at most).
 * For `gpudiag nccl` (issue 22, with tests/mock/mock_nccl.c): primary contexts, streams and
 * "device" memory, which is host memory (mock_nccl.c reads and writes it directly); an
 * allocation above MOCK_CUDA_MEM bytes (default 1 GiB) fails with CUDA_ERROR_OUT_OF_MEMORY. */
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef int CUdevice;
typedef struct {
	char bytes[16];
} CUuuid;

CUresult cuInit(unsigned flags);
CUresult cuDriverGetVersion(int *v);
CUresult cuDeviceGetCount(int *n);
CUresult cuDeviceGet(CUdevice *d, int i);
CUresult cuDeviceGetAttribute(int *v, int attr, CUdevice d);
CUresult cuDeviceGetName(char *name, int len, CUdevice d);
CUresult cuDeviceGetUuid_v2(CUuuid *u, CUdevice d);
CUresult cuDeviceTotalMem_v2(size_t *b, CUdevice d);
CUresult cuDeviceGetPCIBusId(char *buf, int len, CUdevice d);
CUresult cuGetErrorName(CUresult r, const char **s);

CUresult cuInit(unsigned flags)
{
	const char *e = getenv("MOCK_CUDA_INIT_ERROR");
	(void)flags;
	return e ? atoi(e) : 0;
}

CUresult cuDriverGetVersion(int *v)
{
	*v = 13000;
	return 0;
}

/* MOCK_GPUS=2: two devices (the NVML mock lists them in the other order); up to 8 */
static int ngpus(void)
{
	int n = getenv("MOCK_GPUS") ? atoi(getenv("MOCK_GPUS")) : 1;
	return n >= 2 && n <= 8 ? n : 1;
}

CUresult cuDeviceGetCount(int *n)
{
	*n = ngpus();
	return 0;
}

CUresult cuDeviceGet(CUdevice *d, int i)
{
	if (i < 0 || i >= ngpus())
		return 101; /* CUDA_ERROR_INVALID_DEVICE */
	*d = i;
	return 0;
}

static const struct {
	int attr, value;
} attrs[] = {
	{1, 1024},	{2, 1024},	{3, 1024},	{4, 64},	{5, 2147483647}, {6, 65535}, {7, 65535},
	{8, 49152},	{10, 32},	{12, 65536},	{13, 1980000},	{16, 132},	{31, 1},    {32, 1},
	{36, 3201000},	{37, 6016},	{38, 62914560}, {39, 2048},	{40, 3},	{75, 9},    {76, 0},
	{81, 233472},	{82, 65536},	{97, 232448},	{106, 32},	{108, 78643200}, {111, 1024}, {133, 0},
};

CUresult cuDeviceGetAttribute(int *v, int attr, CUdevice d)
{
	const char *cc = getenv("MOCK_CUDA_CC");
	(void)d;
	if (cc && (attr == 75 || attr == 76)) { /* COMPUTE_CAPABILITY_MAJOR / _MINOR */
		*v = attr == 75 ? atoi(cc) : (strchr(cc, '.') ? atoi(strchr(cc, '.') + 1) : 0);
		return 0;
	}
	for (size_t i = 0; i < sizeof(attrs) / sizeof(*attrs); i++)
		if (attrs[i].attr == attr) {
			*v = attrs[i].value;
			return 0;
		}
	return 1; /* CUDA_ERROR_INVALID_VALUE */
}

CUresult cuDeviceGetName(char *name, int len, CUdevice d)
{
	(void)d;
	strncpy(name, "NVIDIA H200 (mock)", (size_t)len);
	name[len - 1] = 0;
	return 0;
}

CUresult cuDeviceGetUuid_v2(CUuuid *u, CUdevice d)
{
	for (int i = 0; i < 16; i++)
		u->bytes[i] = (char)(0x10 + i);
	u->bytes[15] = (char)(0x1f + d); /* device 1: ...1e20 */
	return 0;
}

CUresult cuDeviceTotalMem_v2(size_t *b, CUdevice d)
{
	(void)d;
	*b = 150754820096ULL;
	return 0;
}

CUresult cuDeviceGetPCIBusId(char *buf, int len, CUdevice d)
{
	(void)d;
	strncpy(buf, "00000000:19:00.0", (size_t)len);
	buf[len - 1] = 0;
	return 0;
}

CUresult cuGetErrorName(CUresult r, const char **s)
{
	*s = r == 100 ? "CUDA_ERROR_NO_DEVICE" : r == 999 ? "CUDA_ERROR_UNKNOWN" : r == 2 ? "CUDA_ERROR_OUT_OF_MEMORY"
	     : "CUDA_ERROR_MOCK";
	return 0;
}

/* ---- memory, contexts and streams (gpudiag nccl) ---- */
typedef unsigned long long CUdeviceptr;
static int ctx_token[8], stream_token;
CUresult cuDevicePrimaryCtxRetain(void **ctx, CUdevice d);
CUresult cuDevicePrimaryCtxRelease_v2(CUdevice d);
CUresult cuCtxSetCurrent(void *ctx);
CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t bytes);
CUresult cuMemFree_v2(CUdeviceptr p);
CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t bytes);
CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t bytes);
CUresult cuMemsetD8_v2(CUdeviceptr dst, unsigned char v, size_t n);
CUresult cuStreamCreate(void **s, unsigned flags);
CUresult cuStreamSynchronize(void *s);
CUresult cuStreamDestroy_v2(void *s);

CUresult cuDevicePrimaryCtxRetain(void **ctx, CUdevice d)
{
	if (d < 0 || d >= ngpus())
		return 101;
	*ctx = &ctx_token[d];
	return 0;
}
CUresult cuDevicePrimaryCtxRelease_v2(CUdevice d) { return d < 0 || d >= ngpus() ? 101 : 0; }
CUresult cuCtxSetCurrent(void *ctx) { return ctx ? 0 : 201; /* CUDA_ERROR_INVALID_CONTEXT */ }
CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t bytes)
{
	const char *lim = getenv("MOCK_CUDA_MEM");
	size_t max = lim ? (size_t)strtoull(lim, NULL, 10) : (size_t)1 << 30;
	void *m;
	if (bytes > max || !(m = malloc(bytes ? bytes : 1)))
		return 2; /* CUDA_ERROR_OUT_OF_MEMORY */
	*p = (CUdeviceptr)(size_t)m;
	return 0;
}
CUresult cuMemFree_v2(CUdeviceptr p)
{
	free((void *)(size_t)p);
	return 0;
}
CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t bytes)
{
	memcpy((void *)(size_t)dst, src, bytes);
	return 0;
}
CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t bytes)
{
	memcpy(dst, (const void *)(size_t)src, bytes);
	return 0;
}
CUresult cuMemsetD8_v2(CUdeviceptr dst, unsigned char v, size_t n)
{
	memset((void *)(size_t)dst, v, n);
	return 0;
}
CUresult cuStreamCreate(void **s, unsigned flags)
{
	(void)flags;
	*s = &stream_token;
	return 0;
}
CUresult cuStreamSynchronize(void *s) { return s ? 0 : 400; /* CUDA_ERROR_INVALID_HANDLE */ }
CUresult cuStreamDestroy_v2(void *s)
{
	(void)s;
	return 0;
}
