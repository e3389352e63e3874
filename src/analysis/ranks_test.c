/* Ranks, collectives, stragglers and exposed communication (ranks.c) and the two rules that read
 * them (verdict.c: communication, straggler), on profiles built in memory with hand-worked
 * figures. tests/cli/multigpu.sh runs the same through the SQLite reader on generated 4-rank and
 * 2-node profiles. */
#include "analysis/ranks.h"

#include "analysis/summary.h"
#include "analysis/verdict.h"
#include "core/status.h"
#include "core/test.h"
#include "profile/profile.h"

#include <math.h>
#include <string.h>

#define US 1000LL
#define T0 1764000000000000000LL /* near 2^61 ns: a double of it has 256 ns steps */

static const char *const GEMM = "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x256x64_cublas";
static const char *const AR = "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)";
static const char *const AG = "ncclDevKernel_AllGather_RING_LL128(ncclDevKernelArgsStorage<4096ul>)";

static void setup(struct gd_profile *p, int ndev)
{
	gd_profile_init(p);
	for (int d = 0; d < ndev; d++) {
		struct gd_pdevice *x = gd_profile_add_device(p);
		snprintf(x->name, sizeof(x->name), "NVIDIA H200");
		x->major = 9;
		x->sm_count = 132;
	}
}

static uint32_t corr;

static int64_t kern(struct gd_profile *p, int pid, int dev, int64_t stream, int64_t t, int64_t dur, const char *name)
{
	struct gd_pkernel *k = gd_profile_add_kernel(p);
	k->start = t;
	k->end = t + dur;
	k->name = k->dname = gd_profile_intern(p, name);
	k->grid[0] = 132;
	k->grid[1] = k->grid[2] = k->block[1] = k->block[2] = 1;
	k->block[0] = 256;
	k->regs = 32;
	k->stream = stream;
	k->nonblocking = 1;
	k->device = dev;
	k->pid = pid;
	k->corr = ++corr;
	return t + dur;
}

static void test_parse(void)
{
	struct gd_nccl_op o;
	char b[96];
	CHECK_INT(gd_nccl_parse(AR, &o), 1);
	CHECK_STR(o.op, "AllReduce");
	CHECK_STR(o.redop, "sum");
	CHECK_STR(o.dtype, "bf16");
	CHECK_STR(o.algo, "ring");
	CHECK_STR(o.proto, "LL");
	CHECK_STR(gd_nccl_op_text(&o, b, sizeof(b)), "AllReduce sum bf16, ring/LL");
	CHECK_INT(gd_nccl_parse(AG, &o), 1);
	CHECK_STR(o.op, "AllGather");
	CHECK_STR(o.redop, "");
	CHECK_STR(o.proto, "LL128");
	CHECK_INT(gd_nccl_parse("ncclDevKernel_ReduceScatter_Sum_f32_NVLS_TREE_SIMPLE", &o), 1);
	CHECK_STR(o.op, "ReduceScatter");
	CHECK_STR(o.algo, "nvls_tree");
	CHECK_STR(o.proto, "Simple");
	CHECK_INT(gd_nccl_parse("ncclDevKernel_AllReduce_MinMax_f16_COLLNET_DIRECT_SIMPLE", &o), 1);
	CHECK_STR(o.redop, "minmax");
	CHECK_STR(o.dtype, "f16");
	CHECK_STR(o.algo, "collnet_direct");
	CHECK_INT(gd_nccl_parse("ncclDevKernel_AllReduce_Sum_f32_NVLS_SIMPLE", &o), 1);
	CHECK_STR(o.algo, "nvls");
	/* NCCL before 2.19: algorithm and protocol before the reduction, C type names */
	CHECK_INT(gd_nccl_parse("void ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)", &o), 1);
	CHECK_STR(gd_nccl_op_text(&o, b, sizeof(b)), "AllReduce sum f32, ring/LL");
	CHECK_INT(gd_nccl_parse("ncclKernel_Broadcast_RING_SIMPLE_Sum_int8_t", &o), 1);
	CHECK_STR(o.op, "Broadcast");
	CHECK_STR(o.dtype, "i8");
	CHECK_INT(gd_nccl_parse("ncclKernel_AllReduce_TREE_LL128_Prod___nv_bfloat16", &o), 1);
	CHECK_STR(o.dtype, "bf16");
	CHECK_STR(o.redop, "prod");
	CHECK_STR(o.algo, "tree");
	/* the generic kernel does not say its operation */
	CHECK_INT(gd_nccl_parse("ncclDevKernel_Generic_4(ncclDevKernelArgsStorage<4096ul>)", &o), 1);
	CHECK_STR(o.op, "");
	CHECK_STR(gd_nccl_op_text(&o, b, sizeof(b)), "NCCL kernel (operation not in its name)");
	CHECK_INT(gd_nccl_parse("ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)", &o), 1);
	CHECK_STR(o.op, "SendRecv");
	CHECK_INT(gd_nccl_parse("_Z13my_stencil_2dPKfPfii", &o), 0);
	CHECK_INT(gd_nccl_parse(NULL, &o), 0);
}

/* Two ranks (pid 100 on GPU 0, pid 200 on GPU 1), 12 steps of 1800 µs: compute 1000 µs, then an
 * all-reduce of 200 µs on stream 20. Rank 1 starts each step `late` µs after rank 0; both ranks'
 * all-reduce ends 200 µs after the later one started (T + 1000 + late + 200). */
static void two_ranks(struct gd_profile *p, int64_t late, int steps, int back_to_back)
{
	int64_t t = T0;
	setup(p, 2);
	for (int s = 0; s < steps; s++) {
		int64_t end = t + 1000 * US + late + 200 * US;
		kern(p, 100, 0, 13, t, 1000 * US, GEMM);
		kern(p, 100, 0, 20, t + 1000 * US, end - (t + 1000 * US), AR);
		if (back_to_back)
			kern(p, 100, 0, 20, end, 100 * US, AR);
		kern(p, 200, 1, 13, t + late, 1000 * US, GEMM);
		kern(p, 200, 1, 20, t + late + 1000 * US, 200 * US, AR);
		if (back_to_back)
			kern(p, 200, 1, 20, end, 100 * US, AR);
		t += 1800 * US + (back_to_back ? 100 * US : 0);
	}
	gd_profile_finish(p);
}

static const struct gd_evidence *evk(const struct gd_finding *f, const char *key)
{
	for (int i = 0; i < f->nev; i++)
		if (!strcmp(f->ev[i].key, key))
			return &f->ev[i];
	return NULL;
}

static double evv(const struct gd_finding *f, const char *key)
{
	const struct gd_evidence *e = evk(f, key);
	return e ? e->value : NAN;
}

static void test_straggler(void)
{
	struct gd_profile p;
	struct gd_summary s;
	struct gd_ranks r;
	struct gd_verdicts v;
	two_ranks(&p, 500 * US, 12, 0);
	CHECK_INT(gd_ranks_compute(&p, NULL, 1, &r), GD_OK);
	CHECK_INT(r.nr, 2);
	CHECK_INT(r.nccl_ranks, 2);
	CHECK_INT(r.groups, 1);
	CHECK_INT(r.matched, 12);
	CHECK_INT(r.judged, 12);
	CHECK_INT(r.mismatched, 0);
	CHECK_INT(r.unmatched, 0);
	CHECK_INT(r.r[0].pid, 100);
	CHECK_INT(r.r[1].device, 1);
	/* rank 0: waits 500 µs in each all-reduce (700 µs long), nothing covers it on GPU 0 */
	CHECK_NEAR(r.r[0].span_ns, (11 * 1800 + 1700) * US, 0);
	CHECK_NEAR(r.r[0].compute_ns, 12 * 1000 * US, 0);
	CHECK_NEAR(r.r[0].comm_ns, 12 * 700 * US, 0);
	CHECK_NEAR(r.r[0].comm_overlap_ns, 0, 0);
	CHECK_NEAR(r.r[0].comm_exposed_ns, 12 * 700 * US, 0);
	CHECK_NEAR(r.r[0].comm_wait_ns, 12 * 500 * US, 0);
	CHECK_NEAR(r.r[0].idle_ns, 11 * 100 * US, 0);
	/* rank 1: its span starts 500 µs later; 600 µs idle between steps */
	CHECK_NEAR(r.r[1].span_ns, (11 * 1800 + 1200) * US, 0);
	CHECK_NEAR(r.r[1].comm_ns, 12 * 200 * US, 0);
	CHECK_NEAR(r.r[1].comm_wait_ns, 0, 0);
	CHECK_NEAR(r.r[1].idle_ns, 11 * 600 * US, 0);
	/* rank 1 is last before every collective, 500 µs after rank 0 (exact despite T0 near 2^61) */
	CHECK_INT(r.straggler, 1);
	CHECK_INT(r.r[1].last, 12);
	CHECK_INT(r.r[0].last, 0);
	CHECK_NEAR(r.r[1].late_sum_ns / 12, 500 * US, 0);
	CHECK_NEAR(r.r[1].late_max_ns, 500 * US, 0);
	CHECK_NEAR(r.others_wait_ns, 12 * 500 * US, 0);
	CHECK_NEAR(r.others_comm_ns, 12 * 700 * US, 0);
	CHECK_NEAR(r.others_span_ns, (11 * 1800 + 1700) * US, 0);
	gd_ranks_free(&r);

	CHECK_INT(gd_summary_compute(&p, &s), GD_OK);
	CHECK_INT(gd_verdicts_compute(&p, &s, &v), GD_OK);
	{
		const struct gd_finding *f = &v.f[GD_R_STRAGGLER];
		char who[64];
		CHECK_INT(f->state, GD_FIRED);
		/* 6000 µs of waiting over rank 0's 21 500 µs: between the 10 % and 30 % lines */
		CHECK_NEAR(f->share, 6000.0 / 21500.0, 1e-12);
		CHECK_INT(f->severity, GD_SEV_WARN);
		CHECK_NEAR(evv(f, "straggler_rank"), 1, 0);
		CHECK_NEAR(evv(f, "lateness_mean_ns"), 500 * US, 0);
		CHECK_NEAR(evv(f, "lateness_max_ns"), 500 * US, 0);
		CHECK_NEAR(evv(f, "wait_fraction"), 500.0 / 700.0, 1e-12);
		CHECK_NEAR(evv(f, "last_fraction"), 1, 0);
		CHECK_NEAR(evv(f, "straggler_pid"), 200, 0);
		snprintf(who, sizeof(who), "%.6s", f->headline);
		CHECK_STR(who, "Rank 1");
		CHECK(v.order[0] == GD_R_STRAGGLER);
	}
	{
		/* communication: the waiting is the straggler's; 200 µs a step exposed on each rank */
		const struct gd_finding *f = &v.f[GD_R_COMM];
		CHECK_INT(f->state, GD_FIRED);
		CHECK_NEAR(evv(f, "exposed_ns"), 24 * 200 * US, 0);
		CHECK_NEAR(evv(f, "wait_ns"), 12 * 500 * US, 0);
		CHECK_NEAR(f->share, 4800.0 / (21500.0 + 21000.0), 1e-12);
		CHECK_NEAR(evv(f, "overlap_fraction"), 0, 0);
	}
	gd_summary_free(&s);
	gd_profile_free(&p);

	/* no lateness: nobody is last, the rule is clear */
	two_ranks(&p, 0, 12, 0);
	CHECK_INT(gd_ranks_compute(&p, NULL, 1, &r), GD_OK);
	CHECK_INT(r.straggler, -1);
	CHECK_NEAR(r.others_wait_ns, 0, 0);
	CHECK_NEAR(r.r[0].comm_wait_ns, 0, 0);
	gd_ranks_free(&r);
	CHECK_INT(gd_summary_compute(&p, &s), GD_OK);
	CHECK_INT(gd_verdicts_compute(&p, &s, &v), GD_OK);
	CHECK_INT(v.f[GD_R_STRAGGLER].state, GD_CLEAR);
	gd_summary_free(&s);
	gd_profile_free(&p);

	/* fewer than 10 judged collectives: not judged */
	two_ranks(&p, 500 * US, 9, 0);
	CHECK_INT(gd_summary_compute(&p, &s), GD_OK);
	CHECK_INT(gd_verdicts_compute(&p, &s, &v), GD_OK);
	CHECK_INT(v.f[GD_R_STRAGGLER].state, GD_INSUFFICIENT);
	gd_summary_free(&s);
	gd_profile_free(&p);
}

/* A second all-reduce right after the first, with no compute launched between: matched, its
 * waiting counted, not judged for lateness. */
static void test_back_to_back(void)
{
	struct gd_profile p;
	struct gd_ranks r;
	two_ranks(&p, 500 * US, 12, 1);
	CHECK_INT(gd_ranks_compute(&p, NULL, 1, &r), GD_OK);
	CHECK_INT(r.matched, 24);
	CHECK_INT(r.judged, 12);
	CHECK_INT(r.r[1].last, 12);
	CHECK_NEAR(r.r[1].late_sum_ns, 12 * 500 * US, 0);
	gd_ranks_free(&r);
	gd_profile_free(&p);
}

/* 20 collectives a rank; at position 17 (past the 16 names of the signature) rank 1 ran an
 * all-gather where rank 0 ran an all-reduce: one position left out. A third rank's stream
 * with a different sequence matches no one. */
static void test_mismatch(void)
{
	struct gd_profile p;
	struct gd_ranks r;
	int64_t t = T0;
	setup(&p, 3);
	for (int s = 0; s < 20; s++) {
		kern(&p, 100, 0, 13, t, 100 * US, GEMM);
		kern(&p, 100, 0, 20, t + 100 * US, 50 * US, AR);
		kern(&p, 200, 1, 13, t, 100 * US, GEMM);
		kern(&p, 200, 1, 20, t + 100 * US, 50 * US, s == 17 ? AG : AR);
		kern(&p, 300, 2, 20, t + 100 * US, 50 * US, AG);
		t += 200 * US;
	}
	gd_profile_finish(&p);
	CHECK_INT(gd_ranks_compute(&p, NULL, 1, &r), GD_OK);
	CHECK_INT(r.nr, 3);
	CHECK_INT(r.groups, 1);
	CHECK_INT(r.matched, 19);
	CHECK_INT(r.mismatched, 1);
	CHECK_INT(r.unmatched, 20);
	CHECK_INT(r.nops, 2);
	/* by total time: 39 all-reduce kernels (1.95 ms), 21 all-gather (1.05 ms) */
	CHECK_STR(r.ops[0].op.op, "AllReduce");
	CHECK_INT(r.ops[0].kernels, 39);
	CHECK_INT(r.ops[0].ranks, 2);
	CHECK_NEAR(r.ops[0].total_ns, 39 * 50 * US, 0);
	CHECK(isnan(r.ops[0].bytes));
	CHECK_STR(r.ops[1].op.op, "AllGather");
	CHECK_INT(r.ops[1].kernels, 21);
	CHECK_INT(r.ops[1].ranks, 2);
	gd_ranks_free(&r);
	gd_profile_free(&p);
}

/* Compute on GPU 0 does not hide NCCL on GPU 1: exposure is per GPU. One rank runs NCCL: the
 * straggler rule does not apply, the communication rule speaks as for one GPU. */
static void test_per_gpu(void)
{
	struct gd_profile p;
	struct gd_summary s;
	struct gd_verdicts v;
	int64_t t = T0;
	setup(&p, 2);
	for (int i = 0; i < 100; i++) {
		kern(&p, 100, 0, 13, t, 1000 * US, GEMM);
		kern(&p, 200, 1, 20, t, 500 * US, AR);
		kern(&p, 200, 1, 13, t + 500 * US, 500 * US, GEMM);
		t += 1000 * US;
	}
	gd_profile_finish(&p);
	CHECK_INT(gd_summary_compute(&p, &s), GD_OK);
	CHECK_INT(gd_verdicts_compute(&p, &s, &v), GD_OK);
	CHECK_INT(v.f[GD_R_STRAGGLER].state, GD_NOT_APPLICABLE);
	CHECK_INT(v.f[GD_R_COMM].state, GD_FIRED);
	CHECK_NEAR(evv(&v.f[GD_R_COMM], "overlap_fraction"), 0, 0);
	CHECK_NEAR(v.f[GD_R_COMM].share, 0.5, 1e-12);
	CHECK_INT(v.f[GD_R_COMM].severity, GD_SEV_HIGH);
	CHECK(evk(&v.f[GD_R_COMM], "wait_ns") == NULL);
	gd_summary_free(&s);
	gd_profile_free(&p);
}

static void test_timelines(void)
{
	struct gd_profile p;
	struct gd_coll_timelines tl;
	two_ranks(&p, 500 * US, 12, 0);
	CHECK_INT(gd_coll_timelines(&p, &tl), GD_OK);
	CHECK_INT(tl.ng, 1);
	CHECK_INT(tl.g[0].n, 12);
	CHECK_INT(tl.g[0].end[0], T0 + 1700 * US);
	CHECK_INT(tl.g[0].end[11], T0 + (11 * 1800 + 1700) * US);
	CHECK(tl.g[0].op[0] != 0 && tl.g[0].op[0] == tl.g[0].op[11]);
	gd_coll_timelines_free(&tl);
	gd_profile_free(&p);
}

static void test_labels(void)
{
	struct gd_rank rk[2] = {{.pid = 100, .device = 0, .gpu = 0}, {.node = 1, .pid = 100, .device = 2, .gpu = 0}};
	struct gd_ranks r = {.r = rk, .nr = 2, .nnodes = 1};
	char b[64];
	CHECK_STR(gd_rank_label(&r, 0, b, sizeof(b)), "rank 0 (pid 100, GPU 0)");
	r.nnodes = 2;
	CHECK_STR(gd_rank_label(&r, 1, b, sizeof(b)), "rank 1 (node 1, pid 100, GPU 0)");
	CHECK(gd_ranks_shown(&r));
	r.nr = 1;
	r.nnodes = 1;
	CHECK(!gd_ranks_shown(&r));
}

int main(void)
{
	test_parse();
	test_straggler();
	test_back_to_back();
	test_mismatch();
	test_per_gpu();
	test_timelines();
	test_labels();
	return TEST_DONE();
}
