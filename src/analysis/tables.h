/* The statistics tables of a profile (issue 20), computed once into its gd_analysis: API
 * calls by name, NVTX ranges by name (nsys's nvtx_sum, with the GPU work launched inside each
 * range as nsys's nvtx_gpu_proj projects it), streams and threads. The terminal, JSON and
 * CSV/TSV reports (render/report.c) and the HTML page read them and compute nothing.
 *
 * How each figure is counted:
 *   api      every traced API call (runtime and driver, as the profile recorded them) by name:
 *            calls, summed / mean / min / max / standard deviation of their durations, and
 *            the share of the summed duration of every call. Nested calls (a runtime call and
 *            the driver call it makes) each count, as nsys's cuda_api_sum counts them.
 *   nvtx     closed ranges by (domain, name): count, summed / mean / min / max / standard
 *            deviation of their durations; ranges never closed are counted apart (open) and
 *            marks are not ranges. PyTorch's op ranges (emit_nvtx's "<op>, seq = N, op_id = M",
 *            framework.h) are counted by op name, since op_id makes every message unique. The GPU work of a range: the kernels, copies and memsets
 *            whose launching API call (same process and thread, joined by correlation id)
 *            began inside it: their number, their summed kernel time, and the projected GPU
 *            time: from the first one's start to the last one's end on the GPU, summed over
 *            the range's instances (nsys nvtx_gpu_proj's "projected duration"). A nested
 *            range counts the work launched in it, and so does every range around it.
 *   streams  per (device, process, stream): kernels and their summed time, copies/memsets,
 *            their bytes and summed time, and the busy time (the union of the stream's
 *            operations' intervals; a stream runs one at a time, so this is their sum less
 *            any overlap the timestamps show).
 *   threads  per (process, thread) that made API calls: calls, their summed duration, and of
 *            them launches and synchronising calls (explicit synchronisation and synchronous
 *            copies) with their time; NVTX ranges the thread opened. */
#ifndef GPUDIAG_TABLES_H
#define GPUDIAG_TABLES_H

#include "profile/profile.h"

#include <stdint.h>

struct gd_api_row {
	int name;              /* index into the profile's names; -1 unnamed */
	int cat;               /* gd_api_cat */
	long count;
	double total_ns, mean_ns, min_ns, max_ns, std_ns;
	double fraction;       /* of the summed duration of every API call */
};

struct gd_nvtx_row {
	int name, domain;      /* names; -1 none */
	char *label;           /* PyTorch's op ranges ("aten::addmm, seq = 812, op_id = 4410": every
				  call's message differs) are one row per op name: that name, owned;
				  NULL for every other row, named by `name` */
	long count;            /* closed ranges */
	long open;             /* ranges never closed (not in the durations) */
	double total_ns, mean_ns, min_ns, max_ns, std_ns;
	long gpu_ops;          /* kernels, copies and memsets launched inside */
	long kernels;
	double kernel_ns;      /* summed GPU time of those kernels */
	double gpu_proj_ns;    /* projected GPU time, summed over instances (NaN: no GPU work) */
};

struct gd_stream_row {
	int device, pid;
	int64_t stream;
	int legacy;            /* the legacy default (NULL) stream */
	int nonblocking;       /* created with cudaStreamNonBlocking */
	long kernels, copies;  /* copies include memsets */
	double kernel_ns, copy_ns, copy_bytes;
	double busy_ns;        /* union of the stream's operation intervals */
	int64_t first, last;   /* first start, last end */
};

struct gd_thread_row {
	int pid;
	long long tid;         /* as the OS numbers it (unsigned) */
	long api_calls, launches, syncs;
	double api_ns, launch_ns, sync_ns;
	long nvtx_ranges;
};

struct gd_stat_tables {
	struct gd_api_row *api;        /* by summed time, largest first */
	long napi;
	double api_ns;                 /* summed duration of every API call */
	struct gd_nvtx_row *nvtx;      /* by summed time, largest first */
	long nnvtx;
	long nvtx_marks;
	struct gd_stream_row *streams; /* by busy time, largest first */
	long nstreams;
	struct gd_thread_row *threads; /* by time in API calls, largest first */
	long nthreads;
};

/* CUPTI's kinds in words, the names the profile's views memcpy_v and memset_v give
 * (schema.sql): a copy kind (CUpti_ActivityMemcpyKind: "HtoD", "DtoH", "DtoD", "PtoP", ...) and a
 * memory kind (CUpti_ActivityMemoryKind: "pageable", "pinned", "device", "managed", ...);
 * "unknown" for any other number. */
const char *gd_copy_kind_name(int kind);
const char *gd_memory_kind_name(int kind);

/* For each kernel of p (p->k order), then each copy and memset (p->c order), the index in p->a
 * of the API call that launched it (same process, same correlation id), or -1 when that call
 * is not in the profile. out holds p->nk + p->nc entries. GD_OK, or GD_EFAIL out of memory.
 * The NVTX table and the framework view (framework.h) place GPU work in ranges through it. */
int gd_launch_calls(const struct gd_profile *p, long *out);

/* Fills t from a finished profile. GD_OK, or GD_EFAIL out of memory (t is then freed). */
int gd_stat_tables_compute(const struct gd_profile *p, struct gd_stat_tables *t);
void gd_stat_tables_free(struct gd_stat_tables *t);

#endif
