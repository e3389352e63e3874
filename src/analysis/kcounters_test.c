/* The per-kernel counter view (kcounters.c) on an in-memory profile with hand-computed values:
 * medians over launches (NaN-aware), FLOPs by precision, the HFMA2.MMA trap, DRAM B/s, sectors
 * per request, the roofline against datasheet and measured ceilings (their source text),
 * memory / compute / latency / unknown, the top stalls, theoretical occupancy and its limiter
 * from the summary, skipped launches, time shares and the order. */
#include "analysis/kcounters.h"
#include "analysis/summary.h"
#include "core/status.h"
#include "core/test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define US 1000LL
#define DRAM_PEAK (2.0 * 3201000e3 * 6016 / 8)     /* 4.814304e12 B/s: the H200's datasheet DRAM */
#define FP32_PEAK (256.0 * 132 * 1980e6)           /* sm_90: 128 FFMA/clk/SM × 2 */
#define BF16_TENSOR_PEAK (4096.0 * 132 * 1980e6)   /* sm_90 dense */

static void device(struct gd_profile *p)
{
	struct gd_pdevice *d = gd_profile_add_device(p);
	snprintf(d->name, sizeof(d->name), "NVIDIA H200");
	d->major = 9, d->minor = 0, d->sm_count = 132, d->max_sm_mhz = 1980;
	d->mem_bus_bits = 6016, d->mem_clock_khz = 3201000;
}

static int64_t t_next = 1000000;

static void kernel(struct gd_profile *p, int dev, uint32_t corr, int name, int64_t dur, int block, int regs)
{
	struct gd_pkernel *k = gd_profile_add_kernel(p);
	k->start = t_next, k->end = t_next + dur;
	t_next += dur + 10 * US;
	k->name = k->dname = name;
	k->grid[0] = 264, k->grid[1] = k->grid[2] = 1;
	k->block[0] = block, k->block[1] = k->block[2] = 1;
	k->regs = regs, k->device = dev, k->pid = 7, k->corr = corr, k->stream = 13;
}

static struct gd_klaunch *launch(struct gd_profile *p, int dev, uint32_t corr, int name, int status, int passes)
{
	struct gd_klaunch *l = gd_profile_add_klaunch(p);
	l->pid = 7, l->corr = corr, l->device = dev, l->name = name, l->status = status, l->passes = passes;
	return l;
}

/* Every tensor-family counter known and 0 (a kernel without tensor math), HMMA/HFMA2 as given. */
static void no_tensor(struct gd_klaunch *l, double hmma, double hfma2)
{
	l->q[GD_KC_TENSOR_HMMA] = hmma, l->q[GD_KC_TENSOR_HFMA2] = hfma2;
	l->q[GD_KC_TENSOR_GMMA] = l->q[GD_KC_TENSOR_IMMA] = l->q[GD_KC_TENSOR_DMMA] = 0;
	l->q[GD_KC_TENSOR_ACTIVE] = 0.5;
}

static void fp(struct gd_klaunch *l, double fadd, double fmul, double ffma, double dadd, double dmul, double dfma,
	       double hadd, double hmul, double hfma)
{
	l->q[GD_KC_FADD] = fadd, l->q[GD_KC_FMUL] = fmul, l->q[GD_KC_FFMA] = ffma;
	l->q[GD_KC_DADD] = dadd, l->q[GD_KC_DMUL] = dmul, l->q[GD_KC_DFMA] = dfma;
	l->q[GD_KC_HADD] = hadd, l->q[GD_KC_HMUL] = hmul, l->q[GD_KC_HFMA] = hfma;
}

static const struct gd_kc_kernel *find(const struct gd_kc_view *v, const struct gd_profile *p, const char *name,
				       int dev)
{
	for (int i = 0; i < v->nk; i++)
		if (!strcmp(p->names[v->k[i].name], name) && v->k[i].device == dev)
			return &v->k[i];
	return NULL;
}

/* tests/fixtures/gen_profile.py's "metrics" scenario through the reader and the view: the kernels
 * other tests rely on have the values the scenario states. */
static void test_fixture(void)
{
	char path[] = "/tmp/gd_kcounters_test.XXXXXX", db[128], cmd[512], why[512];
	struct gd_profile p;
	struct gd_summary s;
	const struct gd_kc_kernel *k;
	if (!mkdtemp(path)) {
		CHECK(0);
		return;
	}
	snprintf(db, sizeof(db), "%s/metrics.sqlite", path);
	snprintf(cmd, sizeof(cmd), "python3 tests/fixtures/gen_profile.py metrics '%s'", db);
	CHECK_INT(system(cmd), 0);
	CHECK_INT(gd_profile_load(db, &p, why, sizeof(why)), GD_OK);
	CHECK_INT(gd_summary_compute(&p, &s), GD_OK);
	CHECK_INT(s.kc.nk, 6);
	CHECK_INT(s.kc.profiled, 15);
	CHECK_INT(s.kc.skipped, 1);
	CHECK_INT(s.kc.max_passes, 14);
	CHECK_STR(p.metrics, "default");
	CHECK_INT(s.kc.nceil, 1);
	if (s.kc.nceil == 1) {
		CHECK_INT(s.kc.ceil[0].measured, 1);
		CHECK_STR(s.kc.ceil[0].source, "measured by gpudiag roofline on 2025-11-17 (datasheet where not measured)");
	}
	if (s.kc.nk > 0)
		CHECK_STR(p.names[s.kc.k[0].name], "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x256x64_"
						   "warpgroupsize2x1x1_execute_segment_k_off_kernel__5x_cublas");
	k = find(&s.kc, &p, "_Z14strided_gatherPKfPfi", 0);
	CHECK(k && k->sm_busy == GD_KC_SM_PCT && k->sm_busy_pct == 12.1); /* a profile with the SM speed of light */
	CHECK(k && k->mem_busy == GD_KC_MEM_PCT && k->mem_busy_pct == 78.9); /* ... and the memory one */
	CHECK(k && k->ld_sectors_per_req == 32 && k->ld_used_pct == 12.5 && k->bound == GD_KB_MEMORY &&
	      k->tensor_inst == 0 && k->q[GD_KC_DURATION] == 161600 && k->launches == 3); /* median of 1.08, 1, 1.01 × 160 µs */
	k = find(&s.kc, &p, "_Z14coalesced_copyPKfPfi", 0);
	CHECK(k && k->ld_sectors_per_req == 4 && k->ld_used_pct == 100 && k->bound == GD_KB_MEMORY);
	k = find(&s.kc, &p, "_Z16divergent_branchPfi", 0);
	CHECK(k && k->threads_per_inst == 13.05 && k->bound == GD_KB_LATENCY && k->stall[0] == GD_KC_STALL_BRANCH_RESOLVING);
	k = find(&s.kc, &p, "_Z14register_heavyPfi", 0);
	CHECK(k && fabs(k->theoretical_occ_pct - 25) < 1e-9 && k->occ_limiter && !strcmp(k->occ_limiter, "registers") &&
	      k->achieved_occ_pct == 23.4 && k->bound == GD_KB_LATENCY);
	k = s.kc.nk > 0 ? &s.kc.k[0] : NULL;
	CHECK(k && k->tensor_inst == 4 * (1 << 21) && k->prec == GD_P_BF16 && k->bound == GD_KB_COMPUTE);
	if (k)
		CHECK_NEAR(k->roof_pct, 62.3 + (3.3e7 + 2 * 6.7e7) / 1.717e-3 / 7.2e14 * 100, 1e-6);
	k = find(&s.kc, &p, "_Z16cooperative_syncPfi", 0);
	CHECK(k && k->launches == 0 && k->skipped == 1 && k->bound == GD_KB_UNKNOWN);
	gd_summary_free(&s);
	gd_profile_free(&p);
	unlink(db);
	rmdir(path);
}

int main(void)
{
	struct gd_profile p;
	struct gd_summary s;
	struct gd_kc_view *v;
	const struct gd_kc_kernel *k;
	int gather, divergent, gemm, regheavy, coop;
	gd_profile_init(&p);
	device(&p);
	device(&p);
	/* device 1 carries what `gpudiag roofline` measured on it (2025-12-03 00:00 UTC); the
	 * figures it did not measure come from the datasheet */
	p.dev[1].ceil.measured_at = 1764720000;
	p.dev[1].ceil.dram_bps = 4.15e12;
	p.dev[1].ceil.cuda_core[GD_P_FP32] = 6.1e13;
	p.dev[1].ceil.tensor[GD_P_BF16] = 7.2e14;
	p.dev[1].ceil.sm_clock_mhz = 1980;
	gather = gd_profile_intern(&p, "_Z14strided_gatherPKfPfi");
	divergent = gd_profile_intern(&p, "_Z9divergentPfi");
	gemm = gd_profile_intern(&p, "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x256x64_kernel");
	regheavy = gd_profile_intern(&p, "_Z8regheavyPf");
	coop = gd_profile_intern(&p, "_Z9grid_syncPf");

	/* the kernel records: 5000 µs of kernel time in all */
	for (uint32_t c = 1; c <= 4; c++)
		kernel(&p, 0, c, gather, 400 * US, 256, 32); /* 1600 µs: 0.32 */
	kernel(&p, 0, 10, divergent, 100 * US, 256, 32);     /* 0.02 */
	kernel(&p, 0, 20, gemm, 1000 * US, 384, 168);        /* 2000 µs over both devices: 0.4 */
	kernel(&p, 1, 21, gemm, 1000 * US, 384, 168);
	kernel(&p, 0, 30, regheavy, 1000 * US, 256, 128);    /* 0.2 */
	kernel(&p, 0, 40, coop, 300 * US, 256, 32);          /* 0.06 */

	/* the gather, profiled three times (one value missing in one launch each), then over budget */
	{
		static const double dur[] = {400000, 600000, 390000}, rd[] = {1.5e9, 1.6e9, 1.0e9},
				    tpi[] = {32, 31, NAN}, used[] = {12.5, 12.5, NAN};
		for (int i = 0; i < 3; i++) {
			struct gd_klaunch *l = launch(&p, 0, (uint32_t)(i + 1), gather, GD_KL_OK, 11);
			l->q[GD_KC_DURATION] = dur[i];
			l->q[GD_KC_DRAM_READ] = rd[i];
			l->q[GD_KC_DRAM_WRITE] = 1.25e8;
			fp(l, 0, 0, i == 1 ? NAN : 16777216, 0, 0, 0, 0, 0, 0);
			/* a pure FP32 kernel: nvcc's HFMA2.MMA idiom, one per warp, and nothing else */
			no_tensor(l, 524288, 524288);
			l->q[GD_KC_LD_SECTORS] = 16777216, l->q[GD_KC_LD_REQUESTS] = 524288;
			l->q[GD_KC_LD_USED_PCT] = used[i];
			l->q[GD_KC_THREADS_PER_INST] = tpi[i];
			l->q[GD_KC_WARPS_ACTIVE] = 80;
			l->q[GD_KC_STALL_LONG_SCOREBOARD] = 85, l->q[GD_KC_STALL_LG_THROTTLE] = 5;
			l->q[GD_KC_STALL_WAIT] = 3, l->q[GD_KC_STALL_NOT_SELECTED] = 1;
		}
		launch(&p, 0, 4, gather, GD_KL_SKIP_LIMIT, 0);
	}
	/* divergent: DRAM writes not collected; half precision does most of its FLOPs */
	{
		struct gd_klaunch *l = launch(&p, 0, 10, divergent, GD_KL_OK, 11);
		l->q[GD_KC_DURATION] = 100000;
		l->q[GD_KC_DRAM_READ] = 4e8;
		fp(l, 1e6, 1e6, 1e6, 1e5, 0, 1e5, 0, 0, 3e6);
		no_tensor(l, 0, NAN); /* HFMA2 refused: tensor use unknown, however few HMMA */
		l->q[GD_KC_THREADS_PER_INST] = 13.05;
		l->q[GD_KC_STALL_BRANCH_RESOLVING] = 20, l->q[GD_KC_STALL_WAIT] = 30;
	}
	/* the bf16 GEMM on both devices: wgmma, the tensor pipe 70 % active */
	for (int d = 0; d < 2; d++) {
		struct gd_klaunch *l = launch(&p, d, (uint32_t)(20 + d), gemm, GD_KL_OK, 14);
		l->q[GD_KC_DURATION] = 1e6;
		l->q[GD_KC_DRAM_READ] = 1.0e9, l->q[GD_KC_DRAM_WRITE] = 0.25e9;
		fp(l, 1e6, 0, 0, 0, 0, 0, 0, 0, 0);
		l->q[GD_KC_TENSOR_HMMA] = 0, l->q[GD_KC_TENSOR_HFMA2] = 0, l->q[GD_KC_TENSOR_GMMA] = 2e6;
		l->q[GD_KC_TENSOR_IMMA] = l->q[GD_KC_TENSOR_DMMA] = 0;
		l->q[GD_KC_TENSOR_ACTIVE] = 70;
		l->q[GD_KC_WARPS_ACTIVE] = 12;
	}
	/* register-limited and latency-bound: little DRAM traffic, little math */
	{
		struct gd_klaunch *l = launch(&p, 0, 30, regheavy, GD_KL_OK, 11);
		l->q[GD_KC_DURATION] = 1e6;
		l->q[GD_KC_DRAM_READ] = 0.5e8, l->q[GD_KC_DRAM_WRITE] = 0.5e8;
		fp(l, 0, 0, 1e8, 0, 0, 0, 0, 0, 0);
		no_tensor(l, 0, 0);
		l->q[GD_KC_WARPS_ACTIVE] = 23.5;
		/* the default set's SM units, no SM speed of light: the FMA pipe is the busiest */
		l->q[GD_KC_ISSUE_PCT] = 31, l->q[GD_KC_ALU_PCT] = 12, l->q[GD_KC_FMA_PCT] = 44, l->q[GD_KC_LSU_PCT] = 5;
		/* and the memory units, no memory speed of light: L2 data above DRAM % */
		l->q[GD_KC_DRAM_PCT] = 2, l->q[GD_KC_L2_DATA_PCT] = 27, l->q[GD_KC_L1_WAVE_PCT] = 19;
	}
	launch(&p, 0, 40, coop, GD_KL_SKIP_COOPERATIVE, 0);
	gd_profile_finish(&p);
	CHECK_INT(gd_summary_compute(&p, &s), GD_OK);
	v = &s.kc;

	CHECK_INT(v->nk, 6); /* gather, divergent, gemm ×2 devices, regheavy, grid_sync */
	CHECK_INT(v->profiled, 7);
	CHECK_INT(v->skipped, 2);
	CHECK_INT(v->max_passes, 14);
	CHECK_INT(v->nceil, 2);
	/* the order: time share, then device */
	if (v->nk == 6) {
		CHECK_INT(v->k[0].name, gemm);
		CHECK_INT(v->k[0].device, 0);
		CHECK_INT(v->k[1].name, gemm);
		CHECK_INT(v->k[1].device, 1);
		CHECK_INT(v->k[2].name, gather);
		CHECK_INT(v->k[3].name, regheavy);
		CHECK_INT(v->k[4].name, coop);
		CHECK_INT(v->k[5].name, divergent);
	}

	/* ceilings: the datasheet on device 0, the measurement on device 1 */
	CHECK_INT(v->ceil[0].measured, 0);
	CHECK_STR(v->ceil[0].source, "datasheet (sm_90, 132 SMs, 1980 MHz)");
	CHECK_NEAR(v->ceil[0].dram_bps, DRAM_PEAK, 1);
	CHECK_NEAR(v->ceil[0].cuda_core[GD_P_FP32], FP32_PEAK, 1);
	CHECK_NEAR(v->ceil[0].tensor[GD_P_BF16], BF16_TENSOR_PEAK, 1);
	CHECK(isnan(v->ceil[0].l2_bps));
	CHECK_INT(v->ceil[1].measured, 1);
	CHECK_STR(v->ceil[1].source, "measured by gpudiag roofline on 2025-12-03 (datasheet where not measured)");
	CHECK_NEAR(v->ceil[1].dram_bps, 4.15e12, 0);
	CHECK_NEAR(v->ceil[1].tensor[GD_P_BF16], 7.2e14, 0);
	CHECK_NEAR(v->ceil[1].cuda_core[GD_P_FP64], 128.0 * 132 * 1980e6, 1); /* not measured: datasheet */

	/* the gather: medians, the HFMA2 trap, memory-bound */
	k = find(v, &p, "_Z14strided_gatherPKfPfi", 0);
	CHECK(k != NULL);
	if (k) {
		double bps = (1.5e9 + 1.25e8) / 400e-6;
		CHECK_INT(k->launches, 3);
		CHECK_INT(k->skipped, 1);
		CHECK_INT(k->passes, 11);
		CHECK_NEAR(k->q[GD_KC_DURATION], 400000, 0);      /* median of 400, 600, 390 µs; the mean is 463 */
		CHECK_NEAR(k->q[GD_KC_DRAM_READ], 1.5e9, 0);
		CHECK_NEAR(k->q[GD_KC_FFMA], 16777216, 0);        /* the NaN left out */
		CHECK_NEAR(k->q[GD_KC_THREADS_PER_INST], 31.5, 0); /* median of two */
		CHECK_NEAR(k->ld_used_pct, 12.5, 0);
		CHECK_NEAR(k->ld_sectors_per_req, 32, 0);
		CHECK(isnan(k->st_sectors_per_req));
		CHECK_NEAR(k->tensor_inst, 0, 0); /* HMMA = HFMA2.MMA: no tensor math */
		CHECK_NEAR(k->flops[GD_P_FP32], 2 * 16777216.0, 0);
		CHECK_NEAR(k->flops[GD_P_FP64], 0, 0);
		CHECK(isnan(k->flops[GD_P_TF32]));
		CHECK_NEAR(k->dram_bytes, 1.625e9, 0);
		CHECK_NEAR(k->dram_bps, bps, 1);
		CHECK_NEAR(k->flop_s, 2 * 16777216.0 / 400e-6, 1e-3);
		CHECK_NEAR(k->intensity, 2 * 16777216.0 / 1.625e9, 1e-12);
		CHECK_INT(k->prec, GD_P_FP32);
		CHECK_NEAR(k->dram_roof_pct, bps / DRAM_PEAK * 100, 1e-9); /* 84.4 % */
		CHECK_NEAR(k->roof_pct, k->dram_roof_pct, 1e-9);
		CHECK_NEAR(k->ceiling, k->intensity * DRAM_PEAK, 1);
		CHECK_INT(k->bound, GD_KB_MEMORY);
		CHECK_STR(gd_kc_bound_name(k->bound), "memory");
		CHECK_INT(k->stall[0], GD_KC_STALL_LONG_SCOREBOARD);
		CHECK_INT(k->stall[1], GD_KC_STALL_LG_THROTTLE);
		CHECK_INT(k->stall[2], GD_KC_STALL_WAIT);
		CHECK_NEAR(k->stall_pct[0], 85, 0);
		CHECK_NEAR(k->stall_pct[2], 3, 0);
		CHECK_NEAR(k->achieved_occ_pct, 80, 0);
		CHECK_NEAR(k->theoretical_occ_pct, 100, 0); /* 256 threads × 32 regs: 8 blocks fill 64 warps */
		CHECK_NEAR(k->time_share, 0.32, 1e-12);
	}

	/* divergent: a missing counter stays unknown, and so does its place on the roofline */
	k = find(v, &p, "_Z9divergentPfi", 0);
	CHECK(k != NULL);
	if (k) {
		CHECK_NEAR(k->threads_per_inst, 13.05, 0);
		CHECK(isnan(k->dram_bytes) && isnan(k->dram_bps) && isnan(k->intensity) && isnan(k->dram_roof_pct));
		CHECK(isnan(k->tensor_inst));
		CHECK_NEAR(k->flops[GD_P_FP16], 6e6, 0);
		CHECK_NEAR(k->flops[GD_P_FP64], 3e5, 0);
		CHECK_INT(k->prec, GD_P_FP16);
		CHECK_NEAR(k->flop_s, (4e6 + 3e5 + 6e6) / 100e-6, 1e-3);
		CHECK_INT(k->bound, GD_KB_UNKNOWN);
		CHECK(isnan(k->roof_pct) && isnan(k->ceiling));
		CHECK_INT(k->stall[0], GD_KC_STALL_WAIT);
		CHECK_INT(k->stall[1], GD_KC_STALL_BRANCH_RESOLVING);
		CHECK_INT(k->stall[2], -1);
		CHECK(isnan(k->stall_pct[2]));
		CHECK(isnan(k->achieved_occ_pct));
		CHECK(k->sm_busy == -1 && isnan(k->sm_busy_pct)); /* no SM unit measured */
		CHECK(k->mem_busy == -1 && isnan(k->mem_busy_pct)); /* nor a memory one */
	}

	/* the GEMM: on the tensor roof; datasheet on device 0, measured on device 1 */
	k = find(v, &p, "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x256x64_kernel", 0);
	CHECK(k != NULL);
	if (k) {
		double work = 1e6 + 0.70 * BF16_TENSOR_PEAK * 1e-3;
		CHECK_NEAR(k->tensor_inst, 2e6, 0);
		CHECK_INT(k->prec, GD_P_BF16);
		CHECK_NEAR(k->flop_s, work / 1e-3, 1e3);
		CHECK_NEAR(k->intensity, work / 1.25e9, 1e-9); /* 599.5 FLOP/B: right of the ridge (222) */
		CHECK_NEAR(k->ceiling, BF16_TENSOR_PEAK, 1);
		CHECK_NEAR(k->roof_pct, work / 1e-3 / BF16_TENSOR_PEAK * 100, 1e-9); /* 70.0001 % */
		CHECK_NEAR(k->dram_roof_pct, 1.25e12 / DRAM_PEAK * 100, 1e-9);
		CHECK_INT(k->bound, GD_KB_COMPUTE);
		CHECK_NEAR(k->time_share, 0.4, 1e-12);
		CHECK_NEAR(k->achieved_occ_pct, 12, 0);
	}
	k = find(v, &p, "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x256x64_kernel", 1);
	CHECK(k != NULL);
	if (k) {
		double work = 1e6 + 0.70 * 7.2e14 * 1e-3;
		CHECK_NEAR(k->flop_s, work / 1e-3, 1e3);
		CHECK_NEAR(k->ceiling, 7.2e14, 0);
		CHECK_NEAR(k->roof_pct, work / 1e-3 / 7.2e14 * 100, 1e-9);
		CHECK_NEAR(k->dram_roof_pct, 1.25e12 / 4.15e12 * 100, 1e-9);
		CHECK_INT(k->bound, GD_KB_COMPUTE);
	}

	/* register-limited, latency-bound */
	k = find(v, &p, "_Z8regheavyPf", 0);
	CHECK(k != NULL);
	if (k) {
		CHECK_NEAR(k->theoretical_occ_pct, 25, 1e-9); /* 128 regs × 256 threads: 2 blocks, 16 of 64 warps */
		CHECK_STR(k->occ_limiter, "registers");
		CHECK_NEAR(k->achieved_occ_pct, 23.5, 0);
		CHECK_NEAR(k->intensity, 2e8 / 1e8, 0); /* 2 FLOP/B: left of the ridge (13.9) */
		CHECK_NEAR(k->dram_roof_pct, 1e11 / DRAM_PEAK * 100, 1e-9); /* 2 % */
		CHECK_INT(k->bound, GD_KB_LATENCY);
		CHECK_STR(gd_kc_bound_name(k->bound), "latency");
		CHECK_INT(k->sm_busy, GD_KC_FMA_PCT); /* XU unknown: the highest of the four known */
		CHECK_NEAR(k->sm_busy_pct, 44, 0);
		CHECK_INT(k->mem_busy, GD_KC_L2_DATA_PCT);
		CHECK_NEAR(k->mem_busy_pct, 27, 0);
	}

	/* a kernel whose only launch was skipped is listed, with nothing measured */
	k = find(v, &p, "_Z9grid_syncPf", 0);
	CHECK(k != NULL);
	if (k) {
		CHECK_INT(k->launches, 0);
		CHECK_INT(k->skipped, 1);
		CHECK(isnan(k->q[GD_KC_DURATION]) && isnan(k->flop_s));
		CHECK_INT(k->bound, GD_KB_UNKNOWN);
		CHECK_NEAR(k->time_share, 0.06, 1e-12);
	}
	gd_summary_free(&s);
	CHECK_INT(s.kc.nk, 0);

	/* how the launches were replayed: counted from each launch (replay -1: a profile before the
	 * columns), and the one phrase the renderers show */
	{
		struct gd_profile e;
		struct gd_kc_view ev;
		char how[256];
		int a;
		static const int modes[] = {(int)(GD_KL_F_USER | GD_KL_F_FLUSH), (int)(GD_KL_F_USER | GD_KL_F_FLUSH),
					    (int)GD_KL_F_USER, 0, -1};
		gd_profile_init(&e);
		device(&e);
		a = gd_profile_intern(&e, "_Z1av");
		for (uint32_t c = 1; c <= 5; c++) {
			kernel(&e, 0, c, a, 10 * US, 256, 32);
			launch(&e, 0, c, a, GD_KL_OK, 11)->replay = modes[c - 1];
		}
		launch(&e, 0, 6, a, GD_KL_SKIP_LIMIT, 0)->replay = (int)GD_KL_F_USER; /* skipped: not counted */
		gd_profile_finish(&e);
		CHECK_INT(gd_kc_view_build(&e, NULL, &ev), GD_OK);
		CHECK(ev.replay_flushed == 2 && ev.replay_user == 1 && ev.replay_kernel == 1 && ev.replay_unknown == 1);
		CHECK_STR(gd_kc_replay_text(&ev, how, sizeof(how)),
			  "2 by user replay, L2 flushed before each pass, 1 by user replay without an L2 flush, 1 by CUPTI "
			  "kernel replay, L2 not flushed between passes");
		ev.replay_user = ev.replay_kernel = 0;
		CHECK_STR(gd_kc_replay_text(&ev, how, sizeof(how)), "user replay, L2 flushed before each pass");
		ev.replay_flushed = 0, ev.replay_kernel = 3;
		CHECK_STR(gd_kc_replay_text(&ev, how, sizeof(how)), "CUPTI kernel replay, L2 not flushed between passes");
		ev.replay_kernel = 0; /* only unknown: nothing to say */
		CHECK_STR(gd_kc_replay_text(&ev, how, sizeof(how)), "");
		gd_kc_view_free(&ev);
		gd_profile_free(&e);
	}
	/* a profile without launches: an empty view */
	{
		struct gd_profile e;
		struct gd_kc_view ev;
		gd_profile_init(&e);
		device(&e);
		gd_profile_finish(&e);
		CHECK_INT(gd_kc_view_build(&e, NULL, &ev), GD_OK);
		CHECK_INT(ev.nk, 0);
		CHECK(ev.k == NULL && ev.ceil == NULL);
		gd_kc_view_free(&ev);
		gd_profile_free(&e);
	}
	/* profiled launches the trace has no kernel record of (kernel replay gave them none on the
	 * H200): their measured durations join the kernel time the shares are of */
	{
		struct gd_profile e;
		struct gd_summary es;
		int a = 0, b = 0;
		gd_profile_init(&e);
		device(&e);
		a = gd_profile_intern(&e, "_Z1av");
		b = gd_profile_intern(&e, "_Z1bv");
		kernel(&e, 0, 1, a, 1000 * US, 256, 32); /* the 4th launch of a, unprofiled: 1 ms */
		kernel(&e, 0, 2, b, 3000 * US, 256, 32); /* b, unprofiled: 3 ms */
		for (uint32_t corr = 10; corr < 13; corr++) /* a's 3 profiled launches: 2 ms each, no record */
			launch(&e, 0, corr, a, GD_KL_OK, 17)->q[GD_KC_DURATION] = 2000 * US;
		gd_profile_finish(&e);
		CHECK_INT(gd_summary_compute(&e, &es), GD_OK);
		CHECK_NEAR(es.kc.kernel_ns, 10000.0 * US, 1e-6); /* 1 + 3 + 3 × 2 ms */
		CHECK_INT(es.kc.nk, 1);
		if (es.kc.nk == 1)
			CHECK_NEAR(es.kc.k[0].time_share, 0.7, 1e-12); /* (1 + 6) / 10 */
		gd_summary_free(&es);
		gd_profile_free(&e);
	}
	CHECK_STR(gd_kc_bound_name(GD_KB_UNKNOWN), "unknown");
	CHECK_STR(gd_kc_bound_name(GD_KB_COMPUTE), "compute");
	gd_profile_free(&p);
	test_fixture();
	return TEST_DONE();
}
