/* The roofline's measuring kernels (src/kernels/roofline.cu, roofline_wgmma_sm90a.cu).
 *
 * One entry point runs one test: it allocates and fills its buffers with random data,
 * warms up, times `reps` repetitions with CUDA events (each repetition is one or more
 * launches long enough that launch cost is negligible), checks the output against the CPU
 * model of src/roofline/model.h, and frees everything. The caller samples NVML meanwhile. */
#ifndef GPUDIAG_KERNELS_ROOFLINE_H
#define GPUDIAG_KERNELS_ROOFLINE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#include "gpu/blaslt.h"

enum gd_rl_kind {
	GD_RL_DRAM_READ = 0,
	GD_RL_DRAM_WRITE,
	GD_RL_DRAM_COPY,
	GD_RL_L2_READ,
	GD_RL_SMEM_READ,
	GD_RL_L1_READ,
	GD_RL_FMA_FP64,
	GD_RL_FMA_FP32,
	GD_RL_FMA_FP16, /* half2 */
	GD_RL_FMA_BF16, /* bfloat162 */
	GD_RL_SFU_EXP,
	GD_RL_MMA_FP16, /* mma.sync m16n8k16, FP32 accumulate */
	GD_RL_MMA_BF16,
	GD_RL_MMA_TF32, /* m16n8k8 */
	GD_RL_MMA_INT8, /* m16n8k32, s32 accumulate */
	GD_RL_MMA_FP8,  /* m16n8k32 e4m3, FP32 accumulate (sm_89+) */
	GD_RL_MMA_FP64, /* m8n8k4 f64 (DMMA, sm_80+ where the tensor cores take FP64) */
	GD_RL_WGMMA_FP16, /* wgmma m64nNk16 (sm_90a) */
	GD_RL_WGMMA_BF16,
	GD_RL_WGMMA_TF32,
	GD_RL_WGMMA_FP8,
	GD_RL_GEMM_FP32, /* cuBLASLt */
	GD_RL_GEMM_TF32,
	GD_RL_GEMM_FP16,
	GD_RL_GEMM_BF16,
	GD_RL_GEMM_FP8,
	GD_RL_GEMM_INT8,
	GD_RL_KIND_COUNT
};

/* Result codes of gd_rl_measure (enum gd_status values). */
#define GD_RL_MAX_REPS 64

typedef int (*gd_rl_gemm_fn)(const struct gd_gemm *g, char *why, size_t n);

struct gd_rl_dev {
	int device;
	int cc_major, cc_minor;
	int sms, max_threads_sm, l2_bytes, smem_optin;
};

struct gd_rl_run {
	/* in */
	int kind;
	int reps;        /* timed repetitions (≤ GD_RL_MAX_REPS) */
	int quick;       /* smaller buffers / fewer iterations */
	struct gd_rl_dev dev;
	gd_rl_gemm_fn gemm; /* gd_gemm_run, for the GEMM kinds */
	/* out */
	double ms[GD_RL_MAX_REPS]; /* each repetition, milliseconds */
	int n;
	double work;       /* bytes, FLOP or SFU results per repetition */
	double footprint;  /* bytes of the working set */
	double max_err;    /* largest |got − model| / tolerance seen by the check (≤ 1 passes) */
	char how[200];     /* what ran: sizes, launch shape, instruction */
	char msg[256];     /* why it failed or is unsupported */
};

/* Runs one test. Returns 0 (GD_OK), 1 (GD_EFAIL: CUDA error, msg says which), 3 (GD_ENOGPU:
 * unsupported on this device/library, msg says why), 4 (GD_ECHECK: output wrong). */
int gd_rl_measure(struct gd_rl_run *r);
/* Short name of a kind ("dram_read", "mma_bf16", ...). */
const char *gd_rl_kind_name(int kind);

/* sm_90a part (roofline_wgmma_sm90a.cu); only called when the device is cc 9.0. */
int gd_rl_wgmma(struct gd_rl_run *r);
/* Non-zero when the sm_90a kernels are compiled into this binary. */
int gd_rl_wgmma_built(void);

#ifdef __cplusplus
}
#endif

#endif
