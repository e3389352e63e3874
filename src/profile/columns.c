/* The table descriptors of columns.h: names and types of each declared column, for the
 * INSERT and SELECT texts and for columns_test.c's check against schema.sql. */
#include "profile/columns.h"

#include <stdio.h>
#include <string.h>

#define GD_RD_NO 0
#define GD_RD_INT 1
#define GD_RD_I64 1
#define GD_RD_U32 1
#define GD_RD_U64 1
#define GD_RD_DBL 1
#define GD_RD_I64D 1
#define GD_RD_TXT 1
#define GD_RD_STR 1
#define GD_RD_NUM 1
#define DESC(col, type, write, read, field, dflt) {#col, #type, GD_RD_##read},

#define COLS(var, list) static const struct gd_col var[] = {list(DESC)};
COLS(kernels, GD_KERNELS_COLUMNS)
COLS(memcpy_, GD_MEMCPY_COLUMNS)
COLS(memset_, GD_MEMSET_COLUMNS)
COLS(api, GD_API_COLUMNS)
COLS(sync_, GD_SYNC_COLUMNS)
COLS(nvtx, GD_NVTX_COLUMNS)
COLS(memory, GD_MEMORY_COLUMNS)
COLS(overhead, GD_OVERHEAD_COLUMNS)
COLS(contexts, GD_CONTEXTS_COLUMNS)
COLS(streams, GD_STREAMS_COLUMNS)
COLS(dropped, GD_DROPPED_COLUMNS)
COLS(strings, GD_STRINGS_COLUMNS)
COLS(nvml, GD_NVML_COLUMNS)
COLS(procdev, GD_PROCDEV_COLUMNS)
COLS(devices, GD_DEVICES_COLUMNS)
COLS(processes, GD_PROCESSES_COLUMNS)
COLS(gpu_metrics, GD_GPU_METRICS_COLUMNS)
COLS(kernel_metrics, GD_KERNEL_METRICS_COLUMNS)
COLS(metric_launches, GD_METRIC_LAUNCHES_COLUMNS)
COLS(metric_values, GD_METRIC_VALUES_COLUMNS)
COLS(ceilings, GD_CEILINGS_COLUMNS)

#define N(a) (int)(sizeof(a) / sizeof(a[0]))
#define LIVE " WHERE start IS NOT NULL AND end IS NOT NULL"

const struct gd_table gd_tables[GD_T_COUNT] = {
	[GD_T_KERNELS] = {"kernels", "INSERT", LIVE, kernels, N(kernels)},
	[GD_T_MEMCPY] = {"memcpy", "INSERT", LIVE, memcpy_, N(memcpy_)},
	[GD_T_MEMSET] = {"memset", "INSERT", LIVE, memset_, N(memset_)},
	[GD_T_API] = {"api", "INSERT", LIVE, api, N(api)},
	[GD_T_SYNC] = {"sync", "INSERT", LIVE " AND type IN (1, 3, 4)", sync_, N(sync_)},
	[GD_T_NVTX] = {"nvtx", "INSERT", " WHERE start IS NOT NULL ORDER BY start", nvtx, N(nvtx)},
	[GD_T_MEMORY] = {"memory", "INSERT", " WHERE time IS NOT NULL ORDER BY time", memory, N(memory)},
	[GD_T_OVERHEAD] = {"overhead", "INSERT", NULL, overhead, N(overhead)},
	[GD_T_CONTEXTS] = {"contexts", "INSERT OR REPLACE", " WHERE null_stream IS NOT NULL", contexts, N(contexts)},
	/* flags 2: CUPTI_ACTIVITY_STREAM_CREATE_FLAG_NON_BLOCKING */
	[GD_T_STREAMS] = {"streams", "INSERT OR REPLACE", " WHERE flags = 2 ORDER BY pid, stream", streams, N(streams)},
	[GD_T_DROPPED] = {"dropped", "INSERT", NULL, dropped, N(dropped)},
	[GD_T_STRINGS] = {"strings", "INSERT", "", strings, N(strings)},
	[GD_T_NVML] = {"nvml_samples", "INSERT", " ORDER BY t", nvml, N(nvml)},
	[GD_T_PROCDEV] = {"process_devices", "INSERT OR REPLACE", NULL, procdev, N(procdev)},
	[GD_T_DEVICES] = {"devices", "INSERT OR REPLACE", " ORDER BY id", devices, N(devices)},
	[GD_T_PROCESSES] = {"processes", "INSERT OR REPLACE", " ORDER BY pid", processes, N(processes)},
	/* per device in time order: the index gpu_metrics_t */
	[GD_T_GPU_METRICS] = {"gpu_metrics", "INSERT", " ORDER BY device, t_start", gpu_metrics, N(gpu_metrics)},
	[GD_T_KERNEL_METRICS] = {"kernel_metrics", "INSERT OR REPLACE", " ORDER BY device, name", kernel_metrics,
				 N(kernel_metrics)},
	/* per-launch counters (issue 19): launches and values in (pid, correlation) order, the
	 * order the reader attaches values to launches in */
	[GD_T_METRIC_LAUNCHES] = {"metric_launches", "INSERT", " ORDER BY pid, correlation", metric_launches,
				  N(metric_launches)},
	[GD_T_METRIC_VALUES] = {"metric_values", "INSERT", " ORDER BY pid, correlation", metric_values,
				N(metric_values)},
	[GD_T_CEILINGS] = {"ceilings", "INSERT OR REPLACE", " ORDER BY device", ceilings, N(ceilings)},
};

int gd_table_insert_sql(const struct gd_table *t, char *buf, size_t n)
{
	size_t k = 0;
	int w = snprintf(buf, n, "%s INTO %s(", t->insert, t->name);
	if (w < 0 || (size_t)w >= n)
		return -1;
	k = (size_t)w;
	for (int i = 0; i < t->ncols; i++) {
		w = snprintf(buf + k, n - k, "%s%s", i ? "," : "", t->cols[i].name);
		if (w < 0 || (size_t)w >= n - k)
			return -1;
		k += (size_t)w;
	}
	for (int i = 0; i < t->ncols; i++) {
		w = snprintf(buf + k, n - k, "%s", i ? ",?" : ") VALUES(?");
		if (w < 0 || (size_t)w >= n - k)
			return -1;
		k += (size_t)w;
	}
	w = snprintf(buf + k, n - k, ")");
	if (w < 0 || (size_t)w >= n - k)
		return -1;
	return (int)(k + 1);
}

int gd_table_select_sql(const struct gd_table *t, char *buf, size_t n)
{
	size_t k;
	int w = snprintf(buf, n, "SELECT"), any = 0;
	if (w < 0 || (size_t)w >= n)
		return -1;
	k = (size_t)w;
	for (int i = 0; i < t->ncols; i++) {
		if (!t->cols[i].read)
			continue;
		w = snprintf(buf + k, n - k, "%s %s", any ? "," : "", t->cols[i].name);
		if (w < 0 || (size_t)w >= n - k)
			return -1;
		k += (size_t)w;
		any = 1;
	}
	w = snprintf(buf + k, n - k, " FROM %s%s", t->name, t->read_tail ? t->read_tail : "");
	if (w < 0 || (size_t)w >= n - k)
		return -1;
	return (int)(k + (size_t)w);
}
