/* A saved profile read into memory: the arrays the summary, the verdicts, the HTML page and
 * `gpudiag diff` work on. src/profile/ is the only code that knows the SQLite schema
 * (docs/profile-schema.md; the columns read into these structs are declared in columns.h);
 * everything else sees these structures, which is also how the unit tests build profiles
 * without a database.
 *
 * Times are ns on the profile's one clock. Strings are interned: name ids index p->names. */
#ifndef GPUDIAG_PROFILE_H
#define GPUDIAG_PROFILE_H

#include "gpu/arch.h"
#include "gpu/occupancy.h"
#include "profile/kc_metrics.h"
#include "profile/pm_metrics.h"

#include <stdint.h>

/* Field order keeps the structs free of padding holes: a profile holds millions of them. */
struct gd_pkernel {
	int64_t start, end;
	int name;              /* index into names: the name as recorded (mangled) */
	int dname;             /* demangled name, or the same as name */
	int grid[3], block[3];
	int regs;              /* registers per thread */
	int static_smem, dyn_smem;
	int nonblocking;       /* 1: its stream was created non-blocking (streams.flags = 2) */
	int64_t stream;        /* CUPTI stream id (unique within a pid) */
	int legacy;            /* 1: on the legacy default (NULL) stream */
	int device;
	int pid;
	uint32_t corr;         /* correlation id (links the launch API call) */
	int64_t graph_id;      /* CUDA graph the kernel ran in; 0 = none */
};

enum gd_copy_kind { GD_CK_OTHER = 0, GD_CK_HTOD = 1, GD_CK_DTOH = 2, GD_CK_DTOD = 8, GD_CK_PTOP = 10,
		    GD_CK_MEMSET = 100 };
/* CUPTI memory kinds: 1 pageable, 2 pinned, 3 device, 5 managed. */
enum { GD_MK_UNKNOWN = 0, GD_MK_PAGEABLE = 1, GD_MK_PINNED = 2, GD_MK_DEVICE = 3, GD_MK_MANAGED = 5 };

struct gd_pcopy {
	int64_t start, end;
	int64_t bytes;
	int kind;              /* gd_copy_kind; GD_CK_MEMSET for a memset */
	int src_kind, dst_kind;
	int nonblocking;       /* 1: its stream was created non-blocking (streams.flags = 2) */
	int64_t stream;
	int legacy;
	int device, pid;
	uint32_t corr;
};

/* What an API call does, for the rules. */
enum gd_api_cat { GD_API_OTHER = 0, GD_API_LAUNCH, GD_API_SYNC, GD_API_COPY_SYNC, GD_API_COPY_ASYNC,
		  GD_API_ALLOC, GD_API_FREE, GD_API_CAT_COUNT };

struct gd_papi {
	int64_t start, end;
	int name;              /* index into names */
	int cat;               /* gd_api_cat */
	int pid, tid;
	uint32_t corr;
	int ret;               /* the call's return value (CUresult or cudaError_t; 0: success) */
};

/* An NVTX range (push/pop or start/end) or mark (the nvtx table). Thread ids are those of
 * gd_papi.tid (the OS thread id, read as an int as the API calls' are). */
struct gd_pnvtx {
	int64_t start, end;    /* end -1: a mark, or a range never closed */
	int name, domain;      /* index into names; -1 none */
	int pid, tid;
	int mark;              /* 1: a mark (an instant) */
};

struct gd_pnvml {
	int64_t t;
	int device;
	int util_gpu, util_mem;          /* %, -1 unknown */
	double mem_used, mem_total;      /* bytes, NaN unknown */
	double power_w, temp_c;          /* NaN unknown */
	int sm_mhz, mem_mhz;             /* -1 unknown */
	unsigned long long reasons;      /* clock-event reasons, ~0ULL unknown */
};

/* Device memory allocation (1) or release (2); pid and corr name the API call that made it
 * (gd_papi's pid and corr). */
struct gd_pmem {
	int64_t t;
	int op, device, pid;
	uint32_t corr;
	double bytes;
};

/* The ceilings `gpudiag roofline` measured on a GPU (its cache), copied into the profile by
 * `gpudiag run --metrics` (table ceilings, issue 19) so that a report anywhere places kernels
 * against what that card reached. NaN = not measured; measured_at 0 = no ceilings at all. */
struct gd_pceilings {
	double dram_bps, l2_bps;         /* DRAM copy (read + write) and L2 read, bytes/s */
	double cuda_core[GD_P_COUNT];    /* FLOP/s */
	double tensor[GD_P_COUNT];       /* FLOP/s: best of the project's tensor kernels and cuBLASLt */
	double measured_at;              /* unix time */
	int sm_clock_mhz;                /* median SM clock while measuring; -1 unknown */
};

struct gd_pdevice {
	char name[96], uuid[96];
	int major, minor, sm_count;
	double mem_total;                /* bytes, NaN unknown */
	int max_sm_mhz;                  /* -1 unknown */
	int mem_bus_bits, mem_clock_khz; /* memory bus width and clock; -1 unknown */
	struct gd_pceilings ceil;        /* the ceilings table's row, or all NaN / measured_at 0 */
	struct gd_occ_device occ;        /* filled from the profile's properties (or arch table) */
	int occ_ok;
};

/* A process of the run (the processes table). */
struct gd_pprocess {
	int pid, ppid;
	int exit_code;                   /* -1 unknown */
	int exit_signal;                 /* -1 unknown or none */
	int traced;                      /* 1: CUPTI records were taken */
	char status[32];                 /* "ok", or why not traced: "no_cuda", "cupti_busy", ... */
};

/* One launch the range profiler was asked to profile (issue 19, `gpudiag run --metrics`;
 * tables metric_launches and metric_values): profiled (status GD_KL_OK) or skipped, and why. */
struct gd_klaunch {
	int pid;
	uint32_t corr;                   /* correlation id: the kernel record and launch call */
	int device;
	int name;                        /* the kernel's name as recorded (mangled), as gd_pkernel.name */
	long kernel;                     /* index into p->k of its kernel record, -1 when none (set by
					    gd_profile_finish; the replayed launch's times are one pass) */
	int nth;                         /* 0-based launch index of this kernel name in its process */
	int passes;                      /* replay passes; 0 when skipped */
	int status;                      /* enum gd_kl_status */
	int detail;                      /* interned: why skipped / CUPTI's error text; 0 none */
	int replay;                      /* how it was replayed: GD_KL_F_* bits of raw.h (user replay,
					    L2 flushed); -1 unknown (a profile before the columns) */
	int64_t profile_ns;              /* wall time the profiling of this launch took, -1 unknown */
	double q[GD_KC_COUNT];           /* the quantities of kc_metrics.h; NaN = not collected */
	long extra, nextra;              /* other metrics of the launch: p->kx[extra .. extra+nextra) */
};
/* A metric value outside the quantities (a name given with --metrics=a,b). */
struct gd_kextra {
	int metric;                      /* interned CUPTI metric name */
	double value;
};

struct gd_profile {
	char path[1024];
	int schema_version;
	int synthetic;                   /* recorded elsewhere / generated: label it */
	char label[256];                 /* free text from metadata ("sample recorded on ...") */
	char command[1024];
	char driver[80];
	int64_t t_start, t_end;          /* capture window; 0 = unknown (derived from events) */
	long long dropped;               /* records CUPTI dropped; -1 unknown */
	int cupti_ok;                    /* 0: the program ran unprofiled */
	char untraced_status[32];        /* then why: "no_cuda", "cupti_busy", ... (processes.status) */
	char untraced_reason[256];       /* meta.not_traced_reason, "" if none */
	int have_api;                    /* API calls were traced */
	int exit_code;

	char **names;
	int nnames, cap_names;

	struct gd_pkernel *k;
	long nk;
	struct gd_pcopy *c;
	long nc;
	struct gd_papi *a;
	long na;
	struct gd_pnvml *s;
	long ns;
	struct gd_pmem *m;
	long nm;
	struct gd_pnvtx *nv;             /* NVTX ranges and marks, by start */
	long nnv, cap_nv;
	struct gd_pprocess *proc;        /* in pid order */
	long nproc;
	struct gd_pdevice *dev;          /* the devices table in id order; ndev of them */
	int ndev, cap_dev;
	long cap_k, cap_c, cap_a, cap_s, cap_m; /* allocated lengths of the arrays above */
	/* Rows the reader refused as corrupt (docs/profile-schema.md, "Corrupt rows"): kernels,
	 * copies, memsets, API calls, sync records, NVML samples and memory events whose times
	 * are impossible (end before start, negative, beyond 2^62 ns, or more than 10 years from
	 * meta.start_ns). They are left out of every number; say so when it is not 0. */
	long long bad_rows;

	/* The GPU-metrics timeline (issue 18; pm_metrics.h): PM samples of each device in time
	 * order per device, and the per-kernel means of the samples attributed to one kernel. */
	struct gd_pm_sample *pm;
	long npm, cap_pm;
	struct gd_pm_kernel *kpm;
	long nkpm, cap_kpm;
	/* meta.counters: "" when the profile does not say (recorded before counters existed, or
	 * a synthetic profile), "ok", "off" (--no-counters) or "no counters: <reason>" */
	char counters[256];
	long long pm_interval_ns;        /* requested sampling interval; 0 unknown */
	long long pm_lost;               /* samples lost (hardware buffer overflow); -1 unknown */

	/* Per-launch counters (issue 19; kc_metrics.h), in (pid, corr) order after finish. */
	struct gd_klaunch *kl;
	long nkl, cap_kl;
	struct gd_kextra *kx;
	long nkx, cap_kx;
	/* the windows in which batched launches were replayed (overhead rows of kind
	 * GD_OVERHEAD_GPUDIAG_REPLAY), profile clock, in time order */
	struct gd_pwin {
		int64_t start, end;
	} *rw;
	long nrw;
	/* meta.metrics: "" no --metrics run (or not said), else the set asked for ("default",
	 * "basic", or the list); meta.metrics_rejected: CUPTI names this GPU refused, space-
	 * separated; meta.metrics_note: why none were taken ("" when some were) */
	char metrics[512], metrics_rejected[1024], metrics_note[256];
};

/* More devices than this in one profile is refused as corrupt (a node has 8 or 16 GPUs; a
 * merged job of many nodes stays far below). */
#define GD_PROFILE_MAX_DEVICES 4096

/* Opens a profile. Returns GD_OK, or GD_EDATA with a one-line reason in why (the file is
 * missing, not SQLite, not a gpudiag profile, or of an unsupported version). */
int gd_profile_load(const char *path, struct gd_profile *p, char *why, size_t n);
void gd_profile_free(struct gd_profile *p);
/* The longest gd_profile_load (and the export's reading) may take before it stops with
 * GD_EDATA "reading took longer than N s": a backstop against databases built to stall the
 * reader. Default 300 s; <= 0 restores the default. Not thread-safe (set once, early). */
void gd_profile_set_time_limit(double seconds);

/* A few counts of a just-written profile, without loading it (gpudiag run's closing lines).
 * Every count is -1 where the profile could not be opened or the value is unknown (NULL). */
struct gd_profile_facts {
	long long kernels, kernel_ns;    /* kernel count, SUM(end - start) */
	long long copies;                /* memcpy rows */
	long long processes, traced;     /* processes, of them traced */
	long long dropped;               /* SUM(dropped.count) */
	struct gd_pprocess *untraced;    /* untraced processes with a status, in pid order */
	long nuntraced;
	/* per-kernel counters (--metrics): launches profiled, their distinct kernel names and
	 * the fewest / most passes; launches skipped, by gd_kl_status; metric names refused */
	long long kl_ok, kl_kernels, kl_passes_min, kl_passes_max, kl_skipped[GD_KL_STATUS_COUNT];
	long long kl_rejected;
	char metrics_note[256];          /* meta.metrics_note, "" none */
};
/* GD_OK, or GD_EDATA (nothing filled beyond the -1s) when path cannot be opened. Free the
 * list with gd_profile_facts_free. */
int gd_profile_peek(const char *path, struct gd_profile_facts *f);
void gd_profile_facts_free(struct gd_profile_facts *f);

/* Building profiles in memory (tests, the synthetic sample): */
void gd_profile_init(struct gd_profile *p);
int gd_profile_intern(struct gd_profile *p, const char *s);
struct gd_pkernel *gd_profile_add_kernel(struct gd_profile *p);
struct gd_pcopy *gd_profile_add_copy(struct gd_profile *p);
struct gd_papi *gd_profile_add_api(struct gd_profile *p);
struct gd_pnvml *gd_profile_add_nvml(struct gd_profile *p);
struct gd_pmem *gd_profile_add_mem(struct gd_profile *p);
struct gd_pnvtx *gd_profile_add_nvtx(struct gd_profile *p); /* name, domain -1, end -1 */
/* A PM sample / per-kernel counter row appended, every value NaN. */
struct gd_pm_sample *gd_profile_add_pm(struct gd_profile *p);
struct gd_pm_kernel *gd_profile_add_kpm(struct gd_profile *p);
/* The counters of kernel name `name` on `device`, or NULL when none were attributed. */
const struct gd_pm_kernel *gd_profile_kernel_counters(const struct gd_profile *p, int device, int name);
/* A profiled launch appended (every q NaN, kernel -1, profile_ns -1, no extras), and an
 * extra metric value appended to the last launch added. */
struct gd_klaunch *gd_profile_add_klaunch(struct gd_profile *p);
int gd_profile_add_kextra(struct gd_profile *p, int metric, double value);
/* The first profiled launch of call (pid, corr) in p->kl, which gd_profile_finish and the reader
 * leave sorted by (pid, corr); -1 when there is none. */
long gd_profile_find_klaunch(const struct gd_profile *p, int pid, uint32_t corr);
/* A zeroed device appended to p->dev (p->ndev grows by one). */
struct gd_pdevice *gd_profile_add_device(struct gd_profile *p);
/* Sorts events by start time, fills the capture window if unknown, and derives each device's
 * occupancy description. Call once after building or loading. */
void gd_profile_finish(struct gd_profile *p);

/* The category of a CUDA runtime/driver API function name. */
int gd_api_category(const char *name);

#endif
