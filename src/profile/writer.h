/* Writing the profile database: raw files of the injection library (raw.h) plus what the
 * `gpudiag run` parent knows (devices, NVML samples, exit status, run facts) → one SQLite
 * file in the schema of schema.sql (docs/profile-schema.md).
 *
 * Usage: gd_pw_open → gd_pw_meta / gd_pw_device / gd_pw_nvml / gd_pw_add_raw (any order,
 * any number) → gd_pw_child → gd_pw_capture → gd_pw_close. Everything goes into one
 * transaction; the caller writes to a temporary path and renames (gd_pw_close does both). */
#ifndef GPUDIAG_PROFILE_WRITER_H
#define GPUDIAG_PROFILE_WRITER_H

#include "gpu/nvml.h"
#include "profile/pm_metrics.h"

#include <stddef.h>
#include <stdint.h>

struct gd_pw;

/* Creates "<path>.tmp.<pid>" with the schema and meta.schema_version. Returns GD_OK or
 * GD_EFAIL (printed). */
int gd_pw_open(struct gd_pw **w, const char *path);
int gd_pw_meta(struct gd_pw *w, const char *key, const char *value);
int gd_pw_meta_int(struct gd_pw *w, const char *key, long long value);
/* Runs SQL inside the profile's transaction (derived meta values). */
int gd_pw_sql(struct gd_pw *w, const char *sql);

/* A device as the parent sees it (driver attributes); fields < 0 are unknown. */
struct gd_pw_device {
	int id;
	char uuid[64], name[128], pci_bus_id[32];
	int nvml_index, cc_major, cc_minor, sm_count, warp_size, max_threads_per_block,
	    max_threads_per_sm, max_blocks_per_sm, regs_per_sm, regs_per_block, smem_per_sm,
	    smem_per_block, smem_per_block_optin, reserved_smem_per_block, mem_bus_width_bits,
	    mem_clock_khz, sm_clock_khz, async_engines;
	long long l2_bytes, global_mem_bytes;
};
int gd_pw_device(struct gd_pw *w, const struct gd_pw_device *d);
int gd_pw_nvml(struct gd_pw *w, int device, const struct gd_nvml_sample *s);
/* One PM sample (the GPU-metrics timeline, pm_metrics.h) into gpu_metrics; NaN values are
 * NULL. */
int gd_pw_pm(struct gd_pw *w, const struct gd_pm_sample *s);
/* Fills kernel_metrics from the kernels and gpu_metrics rows written so far (the attribution
 * rule of pm_metrics.h); call after the raw files and gd_pw_capture, before gd_pw_close.
 * Returns the rows written, or -1 on a database error. */
long gd_pw_kernel_metrics(struct gd_pw *w);
/* The ceilings measured on device `device` (gd_pceilings, profile.h) into the ceilings table
 * (issue 19); NaN figures are NULL. */
struct gd_pceilings;
int gd_pw_ceilings(struct gd_pw *w, int device, const struct gd_pceilings *c);

/* Per-file results of gd_pw_add_raw. */
struct gd_raw_stats {
	uint32_t pid, status;
	long long records, kernels;
	int truncated;     /* the file ends inside a record: the process died mid-write */
	int ended;         /* the exit handler ran (GD_RAW_END seen) */
	long long bad_records; /* records skipped as corrupt, the rest of the file read: a
				  GD_RAW_KLAUNCH whose nvalues disagrees with its size */
};

/* Merges one raw file. GD_OK (also for a truncated file: what was complete is kept), or
 * GD_EDATA with a one-line reason in err for a file that is not a raw file or is corrupt;
 * records before the corruption are kept. */
int gd_pw_add_raw(struct gd_pw *w, const char *raw_path, struct gd_raw_stats *st, char *err,
		  size_t errn);

/* The process gpudiag run started: exit status (signal 0 when it exited normally) and
 * command line; inserted if it left no raw file (status 'no_cuda'). */
int gd_pw_child(struct gd_pw *w, int pid, const char *command_line, long long start_ns,
		long long end_ns, int exit_code, int exit_signal);

/* Capture range: keeps only records starting inside the windows. mode: "all",
 * "delay" (window [t0+delay, t0+delay+duration], duration <= 0 = to the end),
 * "cudaProfilerApi", or "nvtx:NAME". Returns the number of windows found (0 = nothing kept,
 * the caller warns), or -1 on a database error. */
int gd_pw_capture(struct gd_pw *w, const char *mode, long long t0_ns, long long t1_ns,
		  double delay_s, double duration_s);

/* Commits and renames into place (commit=1), or removes the temporary file. */
int gd_pw_close(struct gd_pw *w, int commit);

/* The function name of a kernel: demangles (when libstdc++'s demangler is linked) and strips
 * return type, namespaces, template and call arguments. "void ns::k<int>(float*)" → "k".
 * Writes at most n bytes (NUL included) to short_out and the demangled form to full_out. */
void gd_kernel_names(const char *name, char *full_out, size_t full_n, char *short_out, size_t short_n);

/* Writes a synthetic raw file (tests, benchmarks): one process `pid`, n kernels on two
 * streams with `names` cycled (NULL = built-in list incl. hostile names), one API record per
 * kernel, memcpys, an NVTX range, a context and a device. Returns 0 on success. */
int gd_raw_synth(const char *path, uint32_t pid, long n, const char *const *names, int nnames,
		 uint64_t t0_ns);

#endif
