/* NVML through dlopen; see nvml.h. Values from the NVML API reference (nvml.h of the
 * driver's SDK); the structures below mirror the versioned layouts NVML expects. */
#include "gpu/nvml.h"

#include "core/status.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef void *nvml_dev;
typedef int nvml_ret;

struct nvml_memory_v2 {
	unsigned int version;
	unsigned long long total, reserved, free, used;
};
struct nvml_utilization {
	unsigned int gpu, memory;
};
struct nvml_temperature_v1 {
	unsigned int version;
	int sensor_type;
	int temperature;
};
struct nvml_process_info {
	unsigned int pid;
	unsigned long long used_gpu_memory;
	unsigned int gpu_instance_id, compute_instance_id;
};

#define NVML_STRUCT_VERSION(s, v) ((unsigned int)(sizeof(s) | ((v) << 24)))

static struct {
	int tried, status, count;
	char why[512];
	void *lib;
	nvml_ret (*init)(void);
	const char *(*err)(nvml_ret);
	nvml_ret (*count_fn)(unsigned int *);
	nvml_ret (*by_index)(unsigned int, nvml_dev *);
	nvml_ret (*name)(nvml_dev, char *, unsigned int);
	nvml_ret (*uuid)(nvml_dev, char *, unsigned int);
	nvml_ret (*pci)(nvml_dev, void *);
	nvml_ret (*driver)(char *, unsigned int);
	nvml_ret (*cuda_ver)(int *);
	nvml_ret (*util)(nvml_dev, struct nvml_utilization *);
	nvml_ret (*mem_v2)(nvml_dev, struct nvml_memory_v2 *);
	nvml_ret (*power)(nvml_dev, unsigned int *);
	nvml_ret (*power_limit)(nvml_dev, unsigned int *);
	nvml_ret (*temp_v)(nvml_dev, struct nvml_temperature_v1 *);
	nvml_ret (*temp_old)(nvml_dev, int, unsigned int *);
	nvml_ret (*clock)(nvml_dev, int, unsigned int *);
	nvml_ret (*max_clock)(nvml_dev, int, unsigned int *);
	nvml_ret (*reasons)(nvml_dev, unsigned long long *);
	nvml_ret (*reasons_old)(nvml_dev, unsigned long long *);
	nvml_ret (*pcie_tp)(nvml_dev, int, unsigned int *);
	nvml_ret (*pcie_gen)(nvml_dev, unsigned int *);
	nvml_ret (*pcie_width)(nvml_dev, unsigned int *);
	nvml_ret (*pcie_gen_max)(nvml_dev, unsigned int *);
	nvml_ret (*pcie_width_max)(nvml_dev, unsigned int *);
	nvml_ret (*bus_width)(nvml_dev, unsigned int *);
	nvml_ret (*compute_mode)(nvml_dev, int *);
	nvml_ret (*mig_mode)(nvml_dev, unsigned int *, unsigned int *);
	nvml_ret (*mig_max)(nvml_dev, unsigned int *);
	nvml_ret (*mig_handle)(nvml_dev, unsigned int, nvml_dev *);
	nvml_ret (*nvlink_state)(nvml_dev, unsigned int, int *);
	nvml_ret (*procs)(nvml_dev, unsigned int *, struct nvml_process_info *);
	nvml_ret (*mps_procs)(nvml_dev, unsigned int *, struct nvml_process_info *);
} nv;

const char *gd_nvml_error(int code)
{
	return nv.err ? nv.err(code) : "NVML not loaded";
}

static void *sym2(const char *a, const char *b)
{
	void *p = dlsym(nv.lib, a);
	return p || !b ? p : dlsym(nv.lib, b);
}

#define SYM(field, a, b) (*(void **)&nv.field = sym2(a, b))

static int load(void)
{
	const char *path = getenv("GPUDIAG_LIBNVML");
	nvml_ret r;
	unsigned int c = 0;
	if (!path || !*path)
		path = "libnvidia-ml.so.1";
	nv.lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!nv.lib) {
		snprintf(nv.why, sizeof(nv.why), "NVML absent: %s", dlerror());
		return GD_ENOGPU;
	}
	SYM(init, "nvmlInit_v2", "nvmlInit");
	SYM(err, "nvmlErrorString", NULL);
	SYM(count_fn, "nvmlDeviceGetCount_v2", "nvmlDeviceGetCount");
	SYM(by_index, "nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex");
	SYM(name, "nvmlDeviceGetName", NULL);
	SYM(uuid, "nvmlDeviceGetUUID", NULL);
	SYM(driver, "nvmlSystemGetDriverVersion", NULL);
	SYM(cuda_ver, "nvmlSystemGetCudaDriverVersion_v2", "nvmlSystemGetCudaDriverVersion");
	SYM(util, "nvmlDeviceGetUtilizationRates", NULL);
	SYM(mem_v2, "nvmlDeviceGetMemoryInfo_v2", NULL);
	SYM(power, "nvmlDeviceGetPowerUsage", NULL);
	SYM(power_limit, "nvmlDeviceGetEnforcedPowerLimit", NULL);
	SYM(temp_v, "nvmlDeviceGetTemperatureV", NULL);
	SYM(temp_old, "nvmlDeviceGetTemperature", NULL);
	SYM(clock, "nvmlDeviceGetClockInfo", NULL);
	SYM(max_clock, "nvmlDeviceGetMaxClockInfo", NULL);
	SYM(reasons, "nvmlDeviceGetCurrentClocksEventReasons", NULL);
	SYM(reasons_old, "nvmlDeviceGetCurrentClocksThrottleReasons", NULL);
	SYM(pcie_tp, "nvmlDeviceGetPcieThroughput", NULL);
	SYM(pcie_gen, "nvmlDeviceGetCurrPcieLinkGeneration", NULL);
	SYM(pcie_width, "nvmlDeviceGetCurrPcieLinkWidth", NULL);
	SYM(pcie_gen_max, "nvmlDeviceGetMaxPcieLinkGeneration", NULL);
	SYM(pcie_width_max, "nvmlDeviceGetMaxPcieLinkWidth", NULL);
	SYM(bus_width, "nvmlDeviceGetMemoryBusWidth", NULL);
	SYM(compute_mode, "nvmlDeviceGetComputeMode", NULL);
	SYM(mig_mode, "nvmlDeviceGetMigMode", NULL);
	SYM(mig_max, "nvmlDeviceGetMaxMigDeviceCount", NULL);
	SYM(mig_handle, "nvmlDeviceGetMigDeviceHandleByIndex", NULL);
	SYM(nvlink_state, "nvmlDeviceGetNvLinkState", NULL);
	SYM(procs, "nvmlDeviceGetComputeRunningProcesses_v3", "nvmlDeviceGetComputeRunningProcesses_v2");
	SYM(mps_procs, "nvmlDeviceGetMPSComputeRunningProcesses_v3", "nvmlDeviceGetMPSComputeRunningProcesses_v2");
	if (!nv.init || !nv.count_fn || !nv.by_index) {
		snprintf(nv.why, sizeof(nv.why), "NVML unusable: %s lacks nvmlInit/nvmlDeviceGetCount", path);
		return GD_ENOGPU;
	}
	r = nv.init();
	if (r != 0) {
		snprintf(nv.why, sizeof(nv.why), "NVML cannot start: nvmlInit: %s", gd_nvml_error(r));
		return GD_ENOGPU;
	}
	if (nv.count_fn(&c) != 0 || c == 0) {
		snprintf(nv.why, sizeof(nv.why), "NVML sees no GPU");
		return GD_ENOGPU;
	}
	nv.count = (int)c;
	return GD_OK;
}

int gd_nvml_open(char *why, size_t n)
{
	if (!nv.tried) {
		nv.tried = 1;
		nv.status = load();
	}
	if (nv.status != GD_OK && why)
		snprintf(why, n, "%s", nv.why);
	return nv.status;
}

int gd_nvml_count(void) { return nv.status == GD_OK ? nv.count : 0; }

static nvml_dev handle(int idx)
{
	nvml_dev d = NULL;
	if (nv.status != GD_OK || idx < 0 || idx >= nv.count || nv.by_index((unsigned)idx, &d) != 0)
		return NULL;
	return d;
}

int gd_nvml_index_by_uuid(const char *uuid)
{
	char buf[96];
	for (int i = 0; i < gd_nvml_count(); i++) {
		nvml_dev d = handle(i);
		if (d && nv.uuid && nv.uuid(d, buf, sizeof(buf)) == 0 && !strcmp(buf, uuid))
			return i;
	}
	return -1;
}

static int u32(nvml_ret (*fn)(nvml_dev, unsigned int *), nvml_dev d)
{
	unsigned int v;
	return fn && fn(d, &v) == 0 ? (int)v : GD_NVML_UNKNOWN;
}

static int clk(nvml_ret (*fn)(nvml_dev, int, unsigned int *), nvml_dev d, int type)
{
	unsigned int v;
	return fn && fn(d, type, &v) == 0 ? (int)v : GD_NVML_UNKNOWN;
}

static int count_procs(nvml_ret (*fn)(nvml_dev, unsigned int *, struct nvml_process_info *), nvml_dev d)
{
	struct nvml_process_info p[64];
	unsigned int n = 64;
	nvml_ret r;
	if (!fn)
		return GD_NVML_UNKNOWN;
	r = fn(d, &n, p);
	return r == 0 ? (int)n : GD_NVML_UNKNOWN;
}

int gd_nvml_static_info(int idx, struct gd_nvml_static *s)
{
	nvml_dev d = handle(idx);
	unsigned int cur, pend;
	memset(s, 0, sizeof(*s));
	snprintf(s->name, sizeof(s->name), "unknown");
	snprintf(s->uuid, sizeof(s->uuid), "unknown");
	snprintf(s->driver, sizeof(s->driver), "unknown");
	s->cuda_driver_version = s->max_sm_mhz = s->max_mem_mhz = s->mem_bus_width = GD_NVML_UNKNOWN;
	s->compute_mode = s->mig_current = s->mig_pending = s->mig_instances = GD_NVML_UNKNOWN;
	s->pcie_gen = s->pcie_width = s->pcie_gen_max = s->pcie_width_max = GD_NVML_UNKNOWN;
	s->nvlink_active = s->compute_procs = s->mps_procs = GD_NVML_UNKNOWN;
	if (!d)
		return GD_ENOGPU;
	if (nv.name)
		nv.name(d, s->name, sizeof(s->name));
	if (nv.uuid)
		nv.uuid(d, s->uuid, sizeof(s->uuid));
	if (nv.driver)
		nv.driver(s->driver, sizeof(s->driver));
	if (nv.cuda_ver && nv.cuda_ver(&s->cuda_driver_version) != 0)
		s->cuda_driver_version = GD_NVML_UNKNOWN;
	s->max_sm_mhz = clk(nv.max_clock, d, 1);
	s->max_mem_mhz = clk(nv.max_clock, d, 2);
	s->mem_bus_width = u32(nv.bus_width, d);
	if (!nv.compute_mode || nv.compute_mode(d, &s->compute_mode) != 0)
		s->compute_mode = GD_NVML_UNKNOWN;
	if (nv.mig_mode && nv.mig_mode(d, &cur, &pend) == 0) {
		s->mig_current = (int)cur;
		s->mig_pending = (int)pend;
		if (cur == 1 && nv.mig_max && nv.mig_handle) {
			unsigned int max = 0;
			s->mig_instances = 0;
			if (nv.mig_max(d, &max) == 0)
				for (unsigned int i = 0; i < max; i++) {
					nvml_dev m;
					if (nv.mig_handle(d, i, &m) == 0)
						s->mig_instances++;
				}
		} else {
			s->mig_instances = 0;
		}
	}
	s->pcie_gen = u32(nv.pcie_gen, d);
	s->pcie_width = u32(nv.pcie_width, d);
	s->pcie_gen_max = u32(nv.pcie_gen_max, d);
	s->pcie_width_max = u32(nv.pcie_width_max, d);
	if (nv.nvlink_state) {
		int active = 0, any = 0;
		for (unsigned int l = 0; l < 36; l++) {
			int st;
			if (nv.nvlink_state(d, l, &st) == 0) {
				any = 1;
				active += st == 1;
			}
		}
		s->nvlink_active = any ? active : GD_NVML_UNKNOWN; /* NOT_SUPPORTED on every link */
	}
	s->compute_procs = count_procs(nv.procs, d);
	s->mps_procs = count_procs(nv.mps_procs, d);
	return GD_OK;
}

int gd_nvml_sample(int idx, struct gd_nvml_sample *s)
{
	nvml_dev d = handle(idx);
	struct timespec ts;
	struct nvml_utilization u;
	struct nvml_memory_v2 m;
	struct nvml_temperature_v1 t;
	unsigned int v;
	clock_gettime(CLOCK_REALTIME, &ts);
	s->t_ns = (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
	s->util_gpu = s->util_mem = s->power_mw = s->power_limit_mw = s->temp_c = GD_NVML_UNKNOWN;
	s->sm_mhz = s->mem_mhz = s->pcie_tx_kbps = s->pcie_rx_kbps = GD_NVML_UNKNOWN;
	s->mem_used = s->mem_total = s->clock_reasons = GD_NVML_UNKNOWN64;
	if (!d)
		return GD_ENOGPU;
	if (nv.util && nv.util(d, &u) == 0) {
		s->util_gpu = (int)u.gpu;
		s->util_mem = (int)u.memory;
	}
	m.version = NVML_STRUCT_VERSION(struct nvml_memory_v2, 2);
	if (nv.mem_v2 && nv.mem_v2(d, &m) == 0) {
		s->mem_used = m.used;
		s->mem_total = m.total;
	}
	s->power_mw = u32(nv.power, d);
	s->power_limit_mw = u32(nv.power_limit, d);
	t.version = NVML_STRUCT_VERSION(struct nvml_temperature_v1, 1);
	t.sensor_type = 0;
	if (nv.temp_v && nv.temp_v(d, &t) == 0)
		s->temp_c = t.temperature;
	else if (nv.temp_old && nv.temp_old(d, 0, &v) == 0)
		s->temp_c = (int)v;
	s->sm_mhz = clk(nv.clock, d, 1);
	s->mem_mhz = clk(nv.clock, d, 2);
	if (!(nv.reasons && nv.reasons(d, &s->clock_reasons) == 0) &&
	    !(nv.reasons_old && nv.reasons_old(d, &s->clock_reasons) == 0))
		s->clock_reasons = GD_NVML_UNKNOWN64;
	s->pcie_tx_kbps = clk(nv.pcie_tp, d, 0);
	s->pcie_rx_kbps = clk(nv.pcie_tp, d, 1);
	return GD_OK;
}

static const struct {
	unsigned long long bit;
	const char *word;
} reason_words[] = {
	{0x1ULL, "idle"},
	{0x2ULL, "application clocks setting"},
	{0x4ULL, "software power cap"},
	{0x8ULL, "hardware slowdown"},
	{0x10ULL, "sync boost"},
	{0x20ULL, "software thermal slowdown"},
	{0x40ULL, "hardware thermal slowdown"},
	{0x80ULL, "hardware power brake"},
	{0x100ULL, "display clock setting"},
};

char *gd_clock_reasons_str(unsigned long long mask, char *buf, size_t n)
{
	size_t used = 0;
	if (mask == GD_NVML_UNKNOWN64) {
		snprintf(buf, n, "unknown");
		return buf;
	}
	buf[0] = 0;
	if (mask == 0) {
		snprintf(buf, n, "none");
		return buf;
	}
	for (size_t i = 0; i < sizeof(reason_words) / sizeof(*reason_words); i++) {
		if (!(mask & reason_words[i].bit))
			continue;
		used += (size_t)snprintf(buf + used, used < n ? n - used : 0, "%s%s", used ? ", " : "",
					 reason_words[i].word);
		mask &= ~reason_words[i].bit;
	}
	if (mask && used < n)
		snprintf(buf + used, n - used, "%sother (0x%llx)", used ? ", " : "", mask);
	return buf;
}

int gd_clock_reasons_throttling(unsigned long long mask)
{
	if (mask == GD_NVML_UNKNOWN64)
		return 0;
	return (mask & (0x4ULL | 0x8ULL | 0x20ULL | 0x40ULL | 0x80ULL)) != 0;
}
