/* The raw record file the injection library writes inside each profiled process.
 *
 * One file per process, "<dir>/raw.<pid>": a fixed header, then records. Every record starts
 * with struct gd_raw_rec {type, size}; size counts the header and is a multiple of 8, so a
 * reader can skip a type it does not know and can tell a file cut short (process killed) from
 * a corrupt one. Strings travel once as GD_RAW_STRING records and are referred to by a
 * per-file id (0 = no string). Times are ns on CLOCK_REALTIME, as CUPTI gives them.
 *
 * The file is written and read on the same machine, so fields are in native byte order; the
 * header's magic and byte-order mark reject anything else. This header is shared by the
 * injection library (src/capture/, plain C, no sqlite) and the writer (src/profile/writer.c). */
#ifndef GPUDIAG_PROFILE_RAW_H
#define GPUDIAG_PROFILE_RAW_H

#include <stdint.h>

#define GD_RAW_MAGIC "GDRAW\r\n\032"   /* 8 bytes, like PNG's: catches text-mode mangling */
#define GD_RAW_VERSION 1
#define GD_RAW_BOM 0x01020304u

/* Process status in the header and in GD_RAW_STATUS records. */
enum gd_raw_status {
	GD_RAW_ST_OK = 0,
	GD_RAW_ST_CUPTI_BUSY = 1,     /* another CUPTI subscriber (nsys, ncu, PyTorch profiler) */
	GD_RAW_ST_CUPTI_VERSION = 2,  /* libcupti loaded in the process differs from ours */
	GD_RAW_ST_CUPTI_ERROR = 3,    /* a CUPTI call failed during setup */
};

struct gd_raw_header {
	char magic[8];
	uint32_t version, bom;
	uint32_t pid, ppid;
	uint32_t status;              /* enum gd_raw_status at the time the header was written */
	uint32_t cupti_version;       /* cuptiGetVersion() in the process */
	uint64_t start_ns;            /* when the injection library initialised */
	uint32_t built_cupti_version; /* CUPTI_API_VERSION it was compiled with */
	uint32_t api_mode;            /* 0 none, 1 subset, 2 all */
};

enum gd_raw_type {
	GD_RAW_STRING = 1,
	GD_RAW_KERNEL = 2,
	GD_RAW_MEMCPY = 3,
	GD_RAW_MEMSET = 4,
	GD_RAW_API = 5,
	GD_RAW_SYNC = 6,
	GD_RAW_MARKER = 7,
	GD_RAW_MARKER_DATA = 8,
	GD_RAW_MEMORY = 9,
	GD_RAW_OVERHEAD = 10,
	GD_RAW_CONTEXT = 11,
	GD_RAW_STREAM = 12,
	GD_RAW_DEVICE = 13,
	GD_RAW_DROPPED = 14,
	GD_RAW_PROCESS = 15,
	GD_RAW_END = 16,
	GD_RAW_STATUS = 17,
	GD_RAW_KLAUNCH = 18,
	GD_RAW_KREJECT = 19,
	GD_RAW_TYPE_MAX = 20,
};

struct gd_raw_rec {
	uint32_t type, size;
};

/* Followed by len bytes (no NUL) and padding to 8. */
struct gd_raw_string {
	struct gd_raw_rec h;
	uint32_t id, len;
};

struct gd_raw_kernel {
	struct gd_raw_rec h;
	uint64_t start, end, queued, submitted, graph_node_id;
	uint32_t device, context, stream, correlation, name;
	int32_t grid[3], block[3];
	uint32_t cluster[3];
	uint32_t regs, static_smem, dyn_smem, smem_executed, local_mem_per_thread, graph_id, channel_id;
	uint8_t launch_type, cache_config, shmem_limit_config, is_device_launched, channel_type, pad[3];
};

struct gd_raw_memcpy {
	struct gd_raw_rec h;
	uint64_t start, end, bytes, copy_count, graph_node_id;
	uint32_t device, context, stream, correlation, graph_id, channel_id;
	uint32_t src_device, dst_device;   /* peer copies; else UINT32_MAX */
	uint8_t copy_kind, src_kind, dst_kind, flags, channel_type, pad[3];
};

struct gd_raw_memset {
	struct gd_raw_rec h;
	uint64_t start, end, bytes, graph_node_id;
	uint32_t device, context, stream, correlation, value, graph_id;
	uint16_t flags, mem_kind;
	uint32_t pad;
};

struct gd_raw_api {
	struct gd_raw_rec h;
	uint64_t start, end;
	uint32_t domain, cbid, tid, correlation, return_value, name;
};

struct gd_raw_sync {
	struct gd_raw_rec h;
	uint64_t start, end;
	uint32_t type, context, stream, correlation, cuda_event, return_value;
};

/* One NVTX marker record as CUPTI gives it: flags 1 instantaneous, 2 start, 4 end. Ranges
 * are paired (start with end, by id) in the writer. */
struct gd_raw_marker {
	struct gd_raw_rec h;
	uint64_t timestamp;
	uint32_t flags, id, object_kind, pid, tid, name, domain, pad;
};

struct gd_raw_marker_data {
	struct gd_raw_rec h;
	double payload;
	uint32_t flags, id, payload_kind, color, category, has_payload;
};

struct gd_raw_memory {
	struct gd_raw_rec h;
	uint64_t timestamp, address, bytes;
	uint32_t operation, mem_kind, correlation, device, context, stream, is_async, pool_type;
};

struct gd_raw_overhead {
	struct gd_raw_rec h;
	uint64_t start, end, object_id;
	uint32_t kind, object_kind, correlation, pad;
};
/* An overhead record of kind GD_OVERHEAD_GPUDIAG_REPLAY (kc_metrics.h) is gpudiag's own: the
 * window in which a batch of profiled launches was replayed. */

struct gd_raw_context {
	struct gd_raw_rec h;
	uint32_t context, device, null_stream, pad;
};

struct gd_raw_stream {
	struct gd_raw_rec h;
	uint32_t context, stream, priority, flags, correlation, pad;
};

struct gd_raw_device {
	struct gd_raw_rec h;
	uint64_t global_mem_bytes, mem_bandwidth_kbps;
	uint8_t uuid[16];
	uint32_t ordinal, name, cc_major, cc_minor, sm_count, warp_size, max_threads_per_block,
		max_warps_per_sm, max_blocks_per_sm, regs_per_sm, regs_per_block, smem_per_sm,
		smem_per_block, l2_bytes, sm_clock_khz, async_engines;
};

/* source: 0 CUPTI's count for (context, stream), 1 records this library failed to write. */
struct gd_raw_dropped {
	struct gd_raw_rec h;
	uint64_t count;
	uint32_t source, context, stream, pad;
};

struct gd_raw_process {
	struct gd_raw_rec h;
	uint64_t start_ns;
	uint32_t ppid, command_line; /* string id: arguments joined by spaces */
};

/* Written by the exit handler: the process ended normally and everything was flushed. */
struct gd_raw_end {
	struct gd_raw_rec h;
	uint64_t end_ns;
};

/* The status changed after the header was written (e.g. a failure found later). */
struct gd_raw_status_rec {
	struct gd_raw_rec h;
	uint32_t status, detail;
};

/* One launch the range profiler was asked about (issue 19, kc_metrics.h): profiled
 * (status GD_KL_OK, nvalues values follow) or skipped. size = sizeof + nvalues * 16. */
struct gd_raw_klaunch {
	struct gd_raw_rec h;
	uint64_t api_start;            /* when the launch call entered, ns */
	uint64_t profile_ns;           /* wall time spent profiling it (set-up to decode), ns */
	uint32_t correlation, device, context, name; /* name: string id, the kernel's (mangled) name */
	uint32_t nth;                  /* 0-based launch index of this name in the process */
	uint32_t passes;               /* replay passes (0 when skipped) */
	uint32_t status;               /* enum gd_kl_status */
	uint32_t detail;               /* string id: why skipped / CUPTI's error text; 0 none */
	uint32_t nvalues;
	uint32_t flags;                /* GD_KL_F_* (kc_metrics.h): how it was replayed (0 in files
	                                * before them: kernel replay, no flush, which it was) */
};
struct gd_raw_kvalue {
	uint32_t metric;               /* string id: the CUPTI metric name */
	uint32_t pad;
	double value;                  /* as CUPTI evaluated it (NaN when it gave none) */
};

/* A metric name this GPU's counters refused (once per process and name). */
struct gd_raw_kreject {
	struct gd_raw_rec h;
	uint32_t metric, reason;       /* string ids: the name, CUPTI's text (0 none) */
};

#endif
