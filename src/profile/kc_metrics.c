/* The per-launch counter quantities (kc_metrics.h): CUPTI names, labels, units, sets. */
#include "profile/kc_metrics.h"

#include <string.h>

#define B GD_KC_SET_BASIC
#define D (GD_KC_SET_DEFAULT | GD_KC_SET_FULL)
#define F GD_KC_SET_FULL
#define PIPE(id, k, c, l, w)                                                                       \
	[id] = {k, c ".avg.pct_of_peak_sustained_elapsed", l, "%", w ", of its peak sustained rate", B | D}
#define STALL(id, r, l)                                                                            \
	[id] = {"stall_" r, "smsp__warp_issue_stalled_" r "_per_warp_active.pct", l, "%",         \
		"active warp cycles stalled on " l ", of active warp cycles", D}

const struct gd_kc_metric_desc gd_kc_metrics[GD_KC_COUNT] = {
	[GD_KC_DURATION] = {"duration_ns", "gpu__time_duration.sum", "Duration", "ns",
			    "GPU time of the launch (one replay pass)", B | D},
	[GD_KC_CLOCK] = {"sm_clock_hz", "sm__cycles_elapsed.avg.per_second", "SM clock", "Hz",
			 "SM cycles elapsed per second during the launch", B | D},
	[GD_KC_DRAM_READ] = {"dram_read_bytes", "dram__bytes_read.sum", "DRAM read", "B", "bytes read from DRAM", B | D},
	[GD_KC_DRAM_WRITE] = {"dram_write_bytes", "dram__bytes_write.sum", "DRAM write", "B", "bytes written to DRAM",
			      B | D},
	[GD_KC_L2_BYTES] = {"l2_bytes", "lts__t_bytes.sum", "L2", "B", "bytes through the L2 slices (all requests)", B | D},
	[GD_KC_L1_BYTES] = {"l1_bytes", "l1tex__t_bytes.sum", "L1", "B", "bytes through L1/TEX (all requests)", B | D},
	[GD_KC_FADD] = {"fadd", "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum", "FADD", "inst",
			"FP32 add thread instructions executed (predicate on)", B | D},
	[GD_KC_FMUL] = {"fmul", "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum", "FMUL", "inst",
			"FP32 multiply thread instructions executed", B | D},
	[GD_KC_FFMA] = {"ffma", "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", "FFMA", "inst",
			"FP32 fused multiply-add thread instructions executed (2 FLOPs each)", B | D},
	[GD_KC_DADD] = {"dadd", "smsp__sass_thread_inst_executed_op_dadd_pred_on.sum", "DADD", "inst",
			"FP64 add thread instructions executed", B | D},
	[GD_KC_DMUL] = {"dmul", "smsp__sass_thread_inst_executed_op_dmul_pred_on.sum", "DMUL", "inst",
			"FP64 multiply thread instructions executed", B | D},
	[GD_KC_DFMA] = {"dfma", "smsp__sass_thread_inst_executed_op_dfma_pred_on.sum", "DFMA", "inst",
			"FP64 fused multiply-add thread instructions executed (2 FLOPs each)", B | D},
	[GD_KC_HADD] = {"hadd", "smsp__sass_thread_inst_executed_op_hadd_pred_on.sum", "HADD", "inst",
			"FP16 add thread instructions executed", B | D},
	[GD_KC_HMUL] = {"hmul", "smsp__sass_thread_inst_executed_op_hmul_pred_on.sum", "HMUL", "inst",
			"FP16 multiply thread instructions executed", B | D},
	[GD_KC_HFMA] = {"hfma", "smsp__sass_thread_inst_executed_op_hfma_pred_on.sum", "HFMA", "inst",
			"FP16 fused multiply-add thread instructions executed (2 FLOPs each)", B | D},
	[GD_KC_TENSOR_HMMA] = {"tensor_hmma_inst", "sm__inst_executed_pipe_tensor_op_hmma.sum", "HMMA", "inst",
			       "warp-level tensor-pipe HMMA instructions (mma.sync), including HFMA2.MMA", B | D},
	[GD_KC_TENSOR_HFMA2] = {"tensor_hfma2_inst", "sm__inst_executed_pipe_tensor_op_hmma_type_hfma2.sum",
				"HFMA2.MMA", "inst",
				"HFMA2.MMA instructions: nvcc's constant idiom on the tensor pipe, not tensor math", B | D},
	[GD_KC_TENSOR_GMMA] = {"tensor_gmma_inst", "sm__inst_executed_pipe_tensor_op_gmma.sum", "GMMA", "inst",
			       "warpgroup tensor instructions (wgmma, Hopper)", B | D},
	[GD_KC_TENSOR_IMMA] = {"tensor_imma_inst", "sm__inst_executed_pipe_tensor_op_imma.sum", "IMMA", "inst",
			       "integer tensor instructions", B | D},
	[GD_KC_TENSOR_DMMA] = {"tensor_dmma_inst", "sm__inst_executed_pipe_tensor_op_dmma.sum", "DMMA", "inst",
			       "FP64 tensor instructions", B | D},
	[GD_KC_TENSOR_ACTIVE] = {"tensor_active_pct", "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed",
				 "Tensor active", "%", "cycles the tensor pipe was active, of peak sustained", B | D},
	[GD_KC_WARPS_ACTIVE] = {"warps_active_pct", "sm__warps_active.avg.pct_of_peak_sustained_active",
				"Achieved occupancy", "%", "resident warps per active cycle, of the SM's warp slots",
				B | D},
	[GD_KC_LD_SECTORS] = {"ld_sectors", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "Load sectors", "sectors",
			      "32-byte sectors requested by global loads", B | D},
	[GD_KC_LD_REQUESTS] = {"ld_requests", "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "Load requests",
			       "requests", "global load requests (one per warp instruction)", B | D},
	[GD_KC_ST_SECTORS] = {"st_sectors", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", "Store sectors",
			      "sectors", "32-byte sectors written by global stores", B | D},
	[GD_KC_ST_REQUESTS] = {"st_requests", "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", "Store requests",
			       "requests", "global store requests (one per warp instruction)", B | D},
	[GD_KC_LD_USED_PCT] = {"ld_bytes_used_pct", "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct",
			       "Load bytes used", "%", "bytes of each loaded sector a thread asked for, of 32", D},
	[GD_KC_ST_USED_PCT] = {"st_bytes_used_pct", "smsp__sass_average_data_bytes_per_sector_mem_global_op_st.pct",
			       "Store bytes used", "%", "bytes of each stored sector a thread wrote, of 32", D},
	[GD_KC_THREADS_PER_INST] = {"threads_per_inst", "smsp__thread_inst_executed_per_inst_executed.ratio",
				    "Threads/inst", "ratio", "active threads per executed warp instruction (32 = none idle)",
				    B | D},
	[GD_KC_SM_PCT] = {"sm_throughput_pct", "sm__throughput.avg.pct_of_peak_sustained_elapsed", "SM SOL", "%",
			  "the busiest SM unit's throughput, of its peak (compute speed of light)", F},
	[GD_KC_MEM_PCT] = {"mem_throughput_pct", "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
			   "Memory SOL", "%", "the busiest memory unit's throughput, of its peak", F},
	[GD_KC_DRAM_PCT] = {"dram_pct", "dram__throughput.avg.pct_of_peak_sustained_elapsed", "DRAM", "%",
			    "DRAM throughput, of peak sustained", B | D},
	STALL(GD_KC_STALL_LONG_SCOREBOARD, "long_scoreboard", "long scoreboard (global/local memory)"),
	STALL(GD_KC_STALL_SHORT_SCOREBOARD, "short_scoreboard", "short scoreboard (shared memory, MUFU)"),
	STALL(GD_KC_STALL_BARRIER, "barrier", "barrier (__syncthreads)"),
	STALL(GD_KC_STALL_MEMBAR, "membar", "memory barrier"),
	STALL(GD_KC_STALL_MIO_THROTTLE, "mio_throttle", "MIO throttle"),
	STALL(GD_KC_STALL_LG_THROTTLE, "lg_throttle", "LG throttle (global/local queue)"),
	STALL(GD_KC_STALL_MATH_PIPE_THROTTLE, "math_pipe_throttle", "math pipe throttle"),
	STALL(GD_KC_STALL_WAIT, "wait", "fixed-latency wait"),
	STALL(GD_KC_STALL_NOT_SELECTED, "not_selected", "not selected (another warp issued)"),
	STALL(GD_KC_STALL_NO_INSTRUCTION, "no_instruction", "no instruction (instruction cache)"),
	STALL(GD_KC_STALL_DISPATCH_STALL, "dispatch_stall", "dispatch stall"),
	STALL(GD_KC_STALL_BRANCH_RESOLVING, "branch_resolving", "branch resolving"),
	STALL(GD_KC_STALL_TEX_THROTTLE, "tex_throttle", "texture throttle"),
	STALL(GD_KC_STALL_DRAIN, "drain", "drain (stores at exit)"),
	STALL(GD_KC_STALL_SLEEPING, "sleeping", "sleeping"),
	STALL(GD_KC_STALL_IMC_MISS, "imc_miss", "immediate constant cache miss"),
	STALL(GD_KC_STALL_MISC, "misc", "miscellaneous"),
	PIPE(GD_KC_ISSUE_PCT, "issue_active_pct", "smsp__issue_active", "Issue",
	     "cycles a warp scheduler issued an instruction"),
	PIPE(GD_KC_ALU_PCT, "alu_pipe_pct", "sm__pipe_alu_cycles_active", "ALU pipe",
	     "cycles the ALU pipe (integer, logic, FP32 compare) was active"),
	PIPE(GD_KC_FMA_PCT, "fma_pipe_pct", "sm__pipe_fma_cycles_active", "FMA pipe",
	     "cycles the FMA pipe (FP32 add, multiply, FMA; integer multiply) was active"),
	PIPE(GD_KC_LSU_PCT, "lsu_pipe_pct", "sm__inst_executed_pipe_lsu", "LSU pipe",
	     "warp instructions issued to the LSU pipe (loads, stores, shared memory)"),
	PIPE(GD_KC_XU_PCT, "xu_pipe_pct", "sm__inst_executed_pipe_xu", "XU pipe",
	     "warp instructions issued to the XU pipe (transcendentals, conversions)"),
	PIPE(GD_KC_L2_TAG_PCT, "l2_tag_pct", "lts__t_sectors", "L2 tag", "sectors looked up in the L2 tags"),
	PIPE(GD_KC_L2_DATA_PCT, "l2_data_pct", "lts__d_sectors", "L2 data", "sectors read or written in the L2 data banks"),
	PIPE(GD_KC_L2_REQ_PCT, "l2_requests_pct", "lts__t_tag_requests", "L2 requests", "requests to the L2 tags"),
	PIPE(GD_KC_L2_XBAR_PCT, "l2_xbar_pct", "lts__xbar2lts_cycles_active", "XBAR to L2",
	     "cycles the crossbar delivered to the L2"),
	PIPE(GD_KC_L2_OUT_PCT, "l2_to_xbar_pct", "lts__lts2xbar_cycles_active", "L2 to XBAR",
	     "cycles the L2 delivered to the crossbar"),
	PIPE(GD_KC_L1_WAVE_PCT, "l1_wavefronts_pct", "l1tex__data_pipe_lsu_wavefronts", "L1 data pipe",
	     "wavefronts of the L1 data pipe (global, local and shared memory)"),
	PIPE(GD_KC_L1_BANK_RD_PCT, "l1_bank_reads_pct", "l1tex__data_bank_reads", "L1 bank reads",
	     "reads of the L1/shared-memory data banks"),
	PIPE(GD_KC_L1_BANK_WR_PCT, "l1_bank_writes_pct", "l1tex__data_bank_writes", "L1 bank writes",
	     "writes to the L1/shared-memory data banks"),
	PIPE(GD_KC_L1_WB_PCT, "l1_writeback_pct", "l1tex__lsu_writeback_active", "L1 writeback",
	     "cycles L1 wrote results back to registers"),
	PIPE(GD_KC_L1_F_PCT, "l1_miss_pct", "l1tex__f_wavefronts", "L1 miss path", "wavefronts of L1's miss processing"),
	PIPE(GD_KC_XBAR_RD_PCT, "xbar_to_l1_pct", "l1tex__m_xbar2l1tex_read_bytes", "XBAR to L1",
	     "bytes the crossbar returned to L1"),
	PIPE(GD_KC_XBAR_WR_PCT, "l1_to_xbar_pct", "l1tex__m_l1tex2xbar_write_bytes", "L1 to XBAR",
	     "bytes L1 wrote to the crossbar"),
};

const char *const gd_kl_status_names[GD_KL_STATUS_COUNT] = {
	[GD_KL_OK] = "ok",
	[GD_KL_SKIP_COOPERATIVE] = "cooperative",
	[GD_KL_SKIP_GRAPH] = "graph",
	[GD_KL_SKIP_COMM] = "communication",
	[GD_KL_SKIP_LIMIT] = "over budget",
	[GD_KL_ERROR] = "error",
};

int gd_kc_by_cupti(const char *cupti)
{
	for (int m = 0; cupti && m < GD_KC_COUNT; m++)
		if (!strcmp(gd_kc_metrics[m].cupti, cupti))
			return m;
	return -1;
}

unsigned gd_kc_set_bits(const char *name)
{
	if (!name)
		return 0;
	if (!strcmp(name, "basic"))
		return GD_KC_SET_BASIC;
	if (!strcmp(name, "default"))
		return GD_KC_SET_DEFAULT;
	if (!strcmp(name, "full"))
		return GD_KC_SET_FULL;
	return 0;
}
