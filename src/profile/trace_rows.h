/* A saved profile's rows for the timeline export (render/perfetto.c), read straight from the
 * database one at a time: the export needs every API call, kernel, copy, memset, NVTX range
 * and NVML sample with fields the in-memory profile does not keep, in its own track order.
 * The SQL lives here so the profile module stays the only code that knows the schema.
 *
 * Usage: gd_trace_open → for each kind gd_trace_query, then gd_trace_next_<kind> until it
 * returns 0, gd_trace_done → gd_trace_close. Strings in a row are valid until the next call
 * on the same query ("" where the database has NULL). */
#ifndef GPUDIAG_PROFILE_TRACE_ROWS_H
#define GPUDIAG_PROFILE_TRACE_ROWS_H

#include "profile/pm_metrics.h"

#include <limits.h>
#include <stddef.h>

struct gd_trace;
struct gd_trace_q;

/* Opens a profile. GD_OK, or GD_EDATA with a reason in why: "cannot open 'P': ...",
 * "'P' is not a gpudiag profile (...)", "'P' has profile schema version ...", "'P' is corrupt: ..."
 * (the checks of dbcheck.h: real tables, exact version, a time limit). t0: meta.start_ns, or
 * the first kernel or API start, or 0. api_n: one more than the largest api.id (1 if none). */
int gd_trace_open(const char *path, struct gd_trace **t, long long *t0, long long *api_n, char *why, size_t n);
void gd_trace_close(struct gd_trace *t);

enum gd_trace_kind {
	GD_TQ_PROCESSES, /* ORDER BY pid */
	GD_TQ_API,       /* ORDER BY pid, tid, start */
	GD_TQ_GPU,       /* kernels, copies, memsets: ORDER BY pid, stream, start */
	GD_TQ_NVTX,      /* ORDER BY pid, tid, start, end DESC */
	GD_TQ_NVML,      /* ORDER BY device, t */
	GD_TQ_PM,        /* gpu_metrics (pm_metrics.h): ORDER BY device, t_start; no rows when the
			    profile has no such table (recorded before counters existed) */
	/* The same rows in time order, for the native trace (render/perfetto_pb.c), which
	 * delta-encodes timestamps and keeps every track's state at once: */
	GD_TQ_NVTX_T,    /* ORDER BY start, end DESC; names as string ids */
	GD_TQ_NVML_T,    /* ORDER BY t */
	GD_TQ_PM_T,      /* ORDER BY t_start */
};
/* GD_OK, or GD_EDATA with SQLite's message in why. */
int gd_trace_query(struct gd_trace *t, enum gd_trace_kind kind, struct gd_trace_q **q, char *why, size_t n);
/* Ends a query read to its end: GD_OK, or GD_EDATA with the reason in why (one line) when
 * the rows stopped at an error (a malformed database, the time limit) rather than the end. */
int gd_trace_end(struct gd_trace_q *q, char *why, size_t n);
/* Ends a query without asking how it ended. */
void gd_trace_done(struct gd_trace_q *q);
/* Rows skipped so far for impossible times (rule of the reader: docs/profile-schema.md,
 * "Corrupt rows"); the gd_trace_next_* functions never return them. */
long long gd_trace_bad_rows(const struct gd_trace *t);

struct gd_trace_process {
	long long pid;
	const char *command; /* "" unknown */
	int traced;
};

struct gd_trace_api {
	long long id, pid, tid, start, end;
	const char *name;    /* the function, or "api <cbid>" */
	long long correlation, return_value;
};

enum { GD_TG_KERNEL = 0, GD_TG_MEMCPY = 1, GD_TG_MEMSET = 2 };
struct gd_trace_gpu {
	int kind;            /* GD_TG_* */
	long long pid, stream, start, end, correlation, device;
	const char *name;    /* kernels: short name, else the recorded name, else "?" */
	/* kernels */
	const char *grid, *block, *full_name; /* "x,y,z"; full_name demangled, else recorded */
	long long regs, static_smem, dyn_smem;
	int has_graph;
	long long graph_id;
	/* copies (copy_kind, src_kind, dst_kind, bytes, is_async) and memsets (bytes, value) */
	int copy_kind, src_kind, dst_kind, is_async;
	long long bytes, value;
	int has_null_stream; /* the context's legacy default stream is known: null_stream */
	long long null_stream;
	int has_api;         /* the API call with the same correlation id */
	long long api_id, api_tid, api_start;
};

struct gd_trace_nvtx {
	long long pid, tid, start, end; /* end = start when unknown */
	int mark, has_end;
	const char *name, *domain;      /* GD_TQ_NVTX; "" from GD_TQ_NVTX_T */
	long long name_id, domain_id;   /* GD_TQ_NVTX_T: string ids (gd_trace_string) */
};

/* One NVML sample: the counters in the export's order, has[i] 0 where unknown. */
enum { GD_TN_UTIL_GPU, GD_TN_UTIL_MEM, GD_TN_SM_MHZ, GD_TN_MEM_MHZ, GD_TN_POWER_MW, GD_TN_TEMP_C,
       GD_TN_MEM_USED, GD_TN_PCIE_TX, GD_TN_PCIE_RX, GD_TN_CLOCK_REASONS, GD_TN_COUNT };
struct gd_trace_nvml {
	long long t, device;
	long long v[GD_TN_COUNT];
	int has[GD_TN_COUNT];
};

/* A PM sample is the contract's struct gd_pm_sample: v[m] NaN where the column is NULL, not
 * finite, or absent from the table (a quantity added to the contract after the profile was
 * written). */

/* ---- The native export's time-ordered queries (render/perfetto_pb.c) ----
 * Kernels, copies and memsets merged in start order (three index scans, no sort), each saying
 * whether its API call is in the profile, and API calls in start order, each with the GPU
 * work it launched (matched by (pid, correlation): trace_rows.c says how), so that the two
 * passes can run on two connections at once (gd_trace_open once per thread) and still agree
 * on every flow.
 * Strings come as ids of the strings table: the export interns them by id and reads a text
 * once (gd_trace_string). */
#define GD_TRACE_NO_STRING LLONG_MIN /* a string id that was NULL */
struct gd_trace_op {
	int kind;            /* GD_TG_* */
	long long rowid, pid, stream, start, end, correlation, device, context;
	long long name, short_name, demangled; /* string ids */
	long long grid[3], block[3], regs, static_smem, dyn_smem;
	int has_graph;
	long long graph_id;
	int copy_kind, src_kind, dst_kind, is_async;
	long long bytes, value;
	int has_api;         /* an API call of the same (pid, correlation > 0) is in the profile */
};
struct gd_trace_call {
	long long pid, tid, start, end;
	long long name;      /* string id; GD_TRACE_NO_STRING: "api <cbid>" */
	long long cbid, correlation, return_value;
	/* the rowids of the kernels, copies and memsets ([GD_TG_*]) with this call's (pid,
	 * correlation > 0); valid until the next row */
	const long long *ops[3];
	size_t nops[3];
};
struct gd_trace_ops;
/* GD_OK, or GD_EDATA with SQLite's message in why. */
int gd_trace_ops_open(struct gd_trace *t, struct gd_trace_ops **q, char *why, size_t n);
int gd_trace_ops_next(struct gd_trace_ops *q, struct gd_trace_op *r);
/* As gd_trace_end; also frees q. */
int gd_trace_ops_end(struct gd_trace_ops *q, char *why, size_t n);
struct gd_trace_calls;
int gd_trace_calls_open(struct gd_trace *t, struct gd_trace_calls **q, char *why, size_t n);
int gd_trace_calls_next(struct gd_trace_calls *q, struct gd_trace_call *r);
int gd_trace_calls_end(struct gd_trace_calls *q, char *why, size_t n);
/* The text of string id (NULL when there is none, or for GD_TRACE_NO_STRING), valid until
 * the next call. */
const char *gd_trace_string(struct gd_trace *t, long long id);
/* The legacy default stream of (pid, context): 1 with *stream set, 0 when unknown. */
int gd_trace_null_stream(struct gd_trace *t, long long pid, long long context, long long *stream);
/* 1 when a string of the profile matches one of the SQL LIKE patterns in like (NULL-ended);
 * 0 when none does or when the query fails. */
int gd_trace_has_string_like(struct gd_trace *t, const char *const *like);
/* The bounds of gd_time_ok for this profile: an event is kept when lo <= start <= end <= hi. */
void gd_trace_time_bounds(const struct gd_trace *t, long long *lo, long long *hi);

/* 1 with a row filled, 0 at the end or on an error (gd_trace_end tells which). */
int gd_trace_next_process(struct gd_trace_q *q, struct gd_trace_process *r);
int gd_trace_next_api(struct gd_trace_q *q, struct gd_trace_api *r);
int gd_trace_next_gpu(struct gd_trace_q *q, struct gd_trace_gpu *r);
int gd_trace_next_nvtx(struct gd_trace_q *q, struct gd_trace_nvtx *r);
int gd_trace_next_nvml(struct gd_trace_q *q, struct gd_trace_nvml *r);
int gd_trace_next_pm(struct gd_trace_q *q, struct gd_pm_sample *r);

#endif
