/* Per-launch hardware counters from CUPTI's range profiler (issue 19: `gpudiag run --metrics`),
 * the one list shared by the capture (src/capture/rangeprof.c, inside each profiled process),
 * the profile (tables metric_launches and metric_values, docs/profile-schema.md), the analysis
 * (src/analysis/kcounters.c: derived values and verdicts) and every renderer.
 *
 * Each quantity has one CUPTI metric name (range profiler, auto range, user or kernel replay; names
 * checked on GH100 in ../shared/docs/cupti-notes.md §5) and belongs to one or more sets
 * (`--metrics=SET`). A name the GPU's counters reject is left out, recorded as rejected, and
 * the quantity is unknown (NaN) — never 0. Besides the quantities, `--metrics=a,b,...` may
 * name any CUPTI metric (a name containing "__"); those are stored too, by name, and shown
 * as collected, but no rule reads them. */
#ifndef GPUDIAG_KC_METRICS_H
#define GPUDIAG_KC_METRICS_H

#include <stdint.h>

enum gd_kc_metric {
	GD_KC_DURATION = 0, /* gpu__time_duration.sum, ns */
	GD_KC_CLOCK,        /* sm__cycles_elapsed.avg.per_second, Hz */
	GD_KC_DRAM_READ,    /* dram__bytes_read.sum, B */
	GD_KC_DRAM_WRITE,   /* dram__bytes_write.sum, B */
	GD_KC_L2_BYTES,     /* lts__t_bytes.sum, B */
	GD_KC_L1_BYTES,     /* l1tex__t_bytes.sum, B */
	GD_KC_FADD,         /* smsp__sass_thread_inst_executed_op_fadd_pred_on.sum, thread instructions */
	GD_KC_FMUL,
	GD_KC_FFMA,
	GD_KC_DADD,
	GD_KC_DMUL,
	GD_KC_DFMA,
	GD_KC_HADD,
	GD_KC_HMUL,
	GD_KC_HFMA,
	GD_KC_TENSOR_HMMA,  /* sm__inst_executed_pipe_tensor_op_hmma.sum, warp instructions */
	GD_KC_TENSOR_HFMA2, /* sm__inst_executed_pipe_tensor_op_hmma_type_hfma2.sum: nvcc's HFMA2.MMA
			       constant idiom, counted on the tensor pipe but not tensor math */
	GD_KC_TENSOR_GMMA,  /* sm__inst_executed_pipe_tensor_op_gmma.sum (Hopper wgmma) */
	GD_KC_TENSOR_IMMA,
	GD_KC_TENSOR_DMMA,
	GD_KC_TENSOR_ACTIVE, /* tensor pipe active cycles, % of peak sustained elapsed */
	GD_KC_WARPS_ACTIVE,  /* sm__warps_active.avg.pct_of_peak_sustained_active: achieved occupancy % */
	GD_KC_LD_SECTORS,    /* l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum */
	GD_KC_LD_REQUESTS,   /* l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum */
	GD_KC_ST_SECTORS,
	GD_KC_ST_REQUESTS,
	GD_KC_LD_USED_PCT,   /* smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct */
	GD_KC_ST_USED_PCT,
	GD_KC_THREADS_PER_INST, /* smsp__thread_inst_executed_per_inst_executed.ratio (32 = no divergence) */
	GD_KC_SM_PCT,        /* sm__throughput.avg.pct_of_peak_sustained_elapsed (compute SOL; set full
				only: it alone costs 7 passes on GH100, docs/kernel-metrics.md) */
	GD_KC_MEM_PCT,       /* gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed (memory
				SOL; set full only: one pass of its own on GH100) */
	GD_KC_DRAM_PCT,      /* dram__throughput.avg.pct_of_peak_sustained_elapsed */
	/* warp stall reasons: smsp__warp_issue_stalled_<reason>_per_warp_active.pct, % of active
	 * warp cycles spent stalled on that reason; keep them consecutive */
	GD_KC_STALL_FIRST,
	GD_KC_STALL_LONG_SCOREBOARD = GD_KC_STALL_FIRST,
	GD_KC_STALL_SHORT_SCOREBOARD,
	GD_KC_STALL_BARRIER,
	GD_KC_STALL_MEMBAR,
	GD_KC_STALL_MIO_THROTTLE,
	GD_KC_STALL_LG_THROTTLE,
	GD_KC_STALL_MATH_PIPE_THROTTLE,
	GD_KC_STALL_WAIT,
	GD_KC_STALL_NOT_SELECTED,
	GD_KC_STALL_NO_INSTRUCTION,
	GD_KC_STALL_DISPATCH_STALL,
	GD_KC_STALL_BRANCH_RESOLVING,
	GD_KC_STALL_TEX_THROTTLE,
	GD_KC_STALL_DRAIN,
	GD_KC_STALL_SLEEPING,
	GD_KC_STALL_IMC_MISS,
	GD_KC_STALL_MISC,
	GD_KC_STALL_LAST = GD_KC_STALL_MISC,
	/* the SM units the default set measures instead of the SM speed of light, each % of its
	 * peak sustained rate over the elapsed cycles; keep them consecutive, and after the stall
	 * reasons: CUPTI schedules passes greedily in the order the names come (this table's),
	 * and on GH100 the default set takes 11 passes in this order, 12 with the units before
	 * the stalls (unit.kc_passes counts them with CUPTI's host API) */
	GD_KC_SM_UNIT_FIRST,
	GD_KC_ISSUE_PCT = GD_KC_SM_UNIT_FIRST, /* smsp__issue_active: instruction issue slots */
	GD_KC_ALU_PCT,       /* sm__pipe_alu_cycles_active: integer, logic, FP32 compare */
	GD_KC_FMA_PCT,       /* sm__pipe_fma_cycles_active: FP32 add/mul/FMA, integer multiply */
	GD_KC_LSU_PCT,       /* sm__inst_executed_pipe_lsu: load, store, shared-memory instructions */
	GD_KC_XU_PCT,        /* sm__inst_executed_pipe_xu: transcendentals, conversions */
	GD_KC_SM_UNIT_LAST = GD_KC_XU_PCT,
	/* the memory units the default set measures instead of the memory speed of light (a
	 * maximum over them with a pass of its own), each % of its peak sustained rate over the
	 * elapsed cycles; with DRAM % (GD_KC_DRAM_PCT) they are the memory side of the roofline's
	 * busiest-unit check. Keep them consecutive. */
	GD_KC_MEM_UNIT_FIRST,
	GD_KC_L2_TAG_PCT = GD_KC_MEM_UNIT_FIRST, /* lts__t_sectors: L2 tag lookups (sectors) */
	GD_KC_L2_DATA_PCT,   /* lts__d_sectors: L2 data-bank sectors */
	GD_KC_L2_REQ_PCT,    /* lts__t_tag_requests: L2 tag requests */
	GD_KC_L2_XBAR_PCT,   /* lts__xbar2lts_cycles_active: crossbar into L2 */
	GD_KC_L2_OUT_PCT,    /* lts__lts2xbar_cycles_active: L2 out to the crossbar */
	GD_KC_L1_WAVE_PCT,   /* l1tex__data_pipe_lsu_wavefronts: L1 data pipe (global, local, shared) */
	GD_KC_L1_BANK_RD_PCT, /* l1tex__data_bank_reads: L1/shared-memory bank reads */
	GD_KC_L1_BANK_WR_PCT, /* l1tex__data_bank_writes: L1/shared-memory bank writes */
	GD_KC_L1_WB_PCT,     /* l1tex__lsu_writeback_active: L1 writeback to registers */
	GD_KC_L1_F_PCT,      /* l1tex__f_wavefronts: L1 miss-processing wavefronts */
	GD_KC_XBAR_RD_PCT,   /* l1tex__m_xbar2l1tex_read_bytes: crossbar to L1 (reads) */
	GD_KC_XBAR_WR_PCT,   /* l1tex__m_l1tex2xbar_write_bytes: L1 to crossbar (writes) */
	GD_KC_MEM_UNIT_LAST = GD_KC_XBAR_WR_PCT,
	GD_KC_COUNT
};

/* The sets `--metrics=SET` names (a quantity's set bits). `default` is what `--metrics`
 * alone collects; `basic` leaves out the stall reasons and the SASS-patched per-sector
 * averages, for fewer passes; `full` is every quantity, the SM speed of light included. The
 * pass count of each on GH100 is in docs/kernel-metrics.md. */
enum { GD_KC_SET_BASIC = 1, GD_KC_SET_DEFAULT = 2, GD_KC_SET_FULL = 4 };

struct gd_kc_metric_desc {
	const char *key;    /* stable short key for JSON/CSV and the docs: "dram_read_bytes" */
	const char *cupti;  /* the CUPTI metric name */
	const char *label;  /* short label for tables: "DRAM read" */
	const char *unit;   /* "ns", "Hz", "B", "inst", "%", "ratio" */
	const char *what;   /* one line: what was counted and how */
	unsigned sets;      /* GD_KC_SET_* bits */
};
extern const struct gd_kc_metric_desc gd_kc_metrics[GD_KC_COUNT];
/* The quantity whose CUPTI name is `cupti`, or -1. */
int gd_kc_by_cupti(const char *cupti);
/* Bits of the set called `name` ("basic", "default", "full"), 0 when there is none by that name. */
unsigned gd_kc_set_bits(const char *name);

/* Why a launch has no counters (metric_launches.status). */
enum gd_kl_status {
	GD_KL_OK = 0,             /* profiled: every pass replayed and decoded */
	GD_KL_SKIP_COOPERATIVE,   /* a cooperative launch: kernel replay cannot save/restore its grid sync */
	GD_KL_SKIP_GRAPH,         /* launched as part of a CUDA graph (cudaGraphLaunch): not replayable per kernel */
	GD_KL_SKIP_COMM,          /* a communication kernel (NCCL...): replaying it alone deadlocks its peers */
	GD_KL_SKIP_LIMIT,         /* selected but over the launch budget */
	GD_KL_ERROR,              /* CUPTI failed on it; detail has CUPTI's text */
	GD_KL_STATUS_COUNT
};
extern const char *const gd_kl_status_names[GD_KL_STATUS_COUNT]; /* "ok", "cooperative", ... */
/* How a launch was replayed (gd_raw_klaunch.flags, metric_launches.replay/l2_flushed). */
#define GD_KL_F_USER 1u  /* user replay: gpudiag saved/restored the memory (CUPTI checkpoint) and
			    replayed each pass itself (src/capture/replay.h); else CUPTI's kernel replay */
#define GD_KL_F_FLUSH 2u /* L2 flushed before every pass (user replay only) */

/* The overhead table's kind for gpudiag's own windows (not one of CUpti_ActivityOverheadKind's
 * values; raw record GD_RAW_OVERHEAD): the passes of a batch of profiled launches (`run
 * --metrics-batch`), start to end, with the correlation id of the driver call they ran in (a
 * launch, a synchronisation, a free). The trace shows the GPU idle then (the replays' kernels
 * are left out of it); the analysis cuts these windows out of the timeline as it cuts a
 * profiled launch's own call (src/analysis/replaycut.c). */
#define GD_OVERHEAD_GPUDIAG_REPLAY 0x7f000001u

#endif
