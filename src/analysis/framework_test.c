/* CPU-tier tests of the framework view (analysis/framework.h) on a profile built in memory:
 * every figure below is worked out by hand from the ranges and launches of build(). Also the
 * message parsers, the NVTX table's op rows, the verdicts' evidence and the diff by op/module.
 *
 * The profile (times in ns; pid 1 unless said; every kernel's launch call lasts 3 ns):
 *   main thread 10, in a program's own range "step" [50, 1200] (not the framework's):
 *     Model ""            [100, 1000]
 *       Encoder enc       [105, 505]
 *         Linear enc.layers.0.proj [110, 300]
 *           aten::linear seq 5 [120, 290]
 *             aten::addmm seq 6 [130, 280]    launch 140 → K1 100 ns
 *             (after addmm)                  launch 285 → K2  20 ns  (self of linear)
 *         Linear enc.layers.1.proj [310, 500]
 *           aten::linear seq 7 [320, 490]
 *             aten::addmm seq 8 [330, 480]    launch 340 → K3 100 ns
 *       ReLU act          [510, 550]   aten::relu seq 9  [512, 548]  launch 520 → K4 10
 *       ReLU act (again)  [560, 600]   aten::relu seq 10 [562, 598]  launch 570 → K5 10
 *       Head head         [700, 800] and aten::mul [700, 790] (same start: the longer encloses)
 *                                                             launch 700 → K6 5
 *         Dropout enc.drop [710, 720] (inside head: its tree parent is enc, by path)
 *       (in Model only: no op)                                launch 1000 → K7 1 (end inclusive)
 *     outside every framework range                           launch 1100 → K8 50
 *   autograd thread 20:
 *     eval AddmmBackward0 seq 8 [2000, 2100] > AddmmBackward0 seq 8 > aten::mm seq 500
 *                                                             launch 2020 → K9 80
 *     eval ReluBackward0 seq 9 [2200, 2300]                   launch 2250 → K10 10
 *     eval CopySlices [2310, 2390] > CopySlices seq 10 (PyTorch's form: the engine's range
 *       without a seq, the node's with it)                    launch 2330 → K16 4
 *     eval XBackward0 seq 999 (no forward op has it)          launch 2450 → K11 7
 *     eval AddmmBackward0 seq 6 [2600, never closed]          launch 2650 → K12 30
 *   pid 2: aten::addmm seq 8 (no module) thread 10            launch 150 → K13 40
 *          eval AddmmBackward0 seq 8, thread 30               launch 3050 → K14 20
 *            (seq 8 of pid 2, not pid 1's enc.layers.1.proj)
 *   pid 1: K15 3 ns whose launch call is not in the profile.
 * Kernel time in all: 490 ns. "eval X" is "autograd::engine::evaluate_function: X". */
#include "analysis/analysis.h"
#include "analysis/compare.h"
#include "analysis/framework.h"
#include "core/status.h"
#include "core/test.h"
#include "profile/profile.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define GEMM "ampere_sgemm_128x64_nn"
#define EVAL "autograd::engine::evaluate_function: "

static uint32_t g_corr;

static void range(struct gd_profile *p, int pid, int tid, const char *name, int64_t start, int64_t end)
{
	struct gd_pnvtx *v = gd_profile_add_nvtx(p);
	v->pid = pid, v->tid = tid, v->start = start, v->end = end;
	v->name = gd_profile_intern(p, name);
}

/* A launch call at t on (pid, tid) and its kernel, which runs dur ns from 5000 + t. */
static void launch(struct gd_profile *p, int pid, int tid, int64_t t, int64_t dur, const char *name)
{
	struct gd_papi *a = gd_profile_add_api(p);
	struct gd_pkernel *k = gd_profile_add_kernel(p);
	a->pid = pid, a->tid = tid, a->start = t, a->end = t + 3, a->corr = ++g_corr;
	a->name = gd_profile_intern(p, "cudaLaunchKernel_v7000");
	a->cat = GD_API_LAUNCH;
	k->pid = pid, k->corr = g_corr, k->start = 5000 + t, k->end = 5000 + t + dur, k->stream = 13;
	k->name = k->dname = gd_profile_intern(p, name);
	k->grid[0] = k->grid[1] = k->grid[2] = k->block[0] = k->block[1] = k->block[2] = 1;
}

static void build(struct gd_profile *p)
{
	struct gd_pnvtx *m;
	struct gd_pkernel *k;
	gd_profile_init(p);
	g_corr = 0;
	m = gd_profile_add_nvtx(p);
	m->pid = 1, m->tid = 10, m->start = 0, m->mark = 1;
	m->name = gd_profile_intern(p, "gpudiag.torch:2.11.0:ops");
	range(p, 1, 10, "step", 50, 1200);
	range(p, 1, 10, "gpudiag.module:Model:", 100, 1000);
	range(p, 1, 10, "gpudiag.module:Encoder:enc", 105, 505);
	range(p, 1, 10, "gpudiag.module:Linear:enc.layers.0.proj", 110, 300);
	range(p, 1, 10, "aten::linear, seq = 5, op_id = 1", 120, 290);
	range(p, 1, 10, "aten::addmm, seq = 6, op_id = 2", 130, 280);
	launch(p, 1, 10, 140, 100, GEMM);                 /* K1 */
	launch(p, 1, 10, 285, 20, "bias_add");            /* K2 */
	range(p, 1, 10, "gpudiag.module:Linear:enc.layers.1.proj", 310, 500);
	range(p, 1, 10, "aten::linear, seq = 7, op_id = 3", 320, 490);
	range(p, 1, 10, "aten::addmm, seq = 8, op_id = 4", 330, 480);
	launch(p, 1, 10, 340, 100, GEMM);                 /* K3 */
	range(p, 1, 10, "gpudiag.module:ReLU:act", 510, 550);
	range(p, 1, 10, "aten::relu, seq = 9, op_id = 5", 512, 548);
	launch(p, 1, 10, 520, 10, "relu_kernel");         /* K4 */
	range(p, 1, 10, "gpudiag.module:ReLU:act", 560, 600);
	range(p, 1, 10, "aten::relu, seq = 10, op_id = 6", 562, 598);
	launch(p, 1, 10, 570, 10, "relu_kernel");         /* K5 */
	range(p, 1, 10, "aten::mul, op_id = 7", 700, 790); /* recorded before its module: ties by length */
	range(p, 1, 10, "gpudiag.module:Head:head", 700, 800);
	range(p, 1, 10, "gpudiag.module:Dropout:enc.drop", 710, 720);
	launch(p, 1, 10, 700, 5, "mul_kernel");           /* K6 */
	launch(p, 1, 10, 1000, 1, "tail_kernel");         /* K7 */
	launch(p, 1, 10, 1100, 50, "optimizer_kernel");   /* K8 */
	range(p, 1, 20, EVAL "AddmmBackward0, seq = 8, op_id = 10", 2000, 2100);
	range(p, 1, 20, "AddmmBackward0, seq = 8, op_id = 11", 2005, 2095);
	range(p, 1, 20, "aten::mm, seq = 500, op_id = 12", 2010, 2090);
	launch(p, 1, 20, 2020, 80, GEMM);                 /* K9 */
	range(p, 1, 20, EVAL "ReluBackward0, seq = 9, op_id = 13", 2200, 2300);
	launch(p, 1, 20, 2250, 10, "relu_bwd");           /* K10 */
	/* as PyTorch records it: the engine's range without a seq, the node's (any name) with it */
	range(p, 1, 20, EVAL "torch::autograd::CopySlices, op_id = 16", 2310, 2390);
	range(p, 1, 20, "torch::autograd::CopySlices, seq = 10, op_id = 17", 2320, 2380);
	launch(p, 1, 20, 2330, 4, "copy_slices");         /* K16 */
	range(p, 1, 20, EVAL "XBackward0, seq = 999, op_id = 14", 2400, 2500);
	launch(p, 1, 20, 2450, 7, "x_bwd");               /* K11 */
	range(p, 1, 20, EVAL "AddmmBackward0, seq = 6, op_id = 15", 2600, -1);
	launch(p, 1, 20, 2650, 30, "addmm_bwd");          /* K12 */
	range(p, 2, 10, "aten::addmm, seq = 8, op_id = 1", 100, 200);
	launch(p, 2, 10, 150, 40, "p2_gemm");             /* K13 */
	range(p, 2, 30, EVAL "AddmmBackward0, seq = 8, op_id = 2", 3000, 3100);
	launch(p, 2, 30, 3050, 20, "p2_bwd");             /* K14 */
	k = gd_profile_add_kernel(p);                     /* K15: its launch call is not traced */
	k->pid = 1, k->corr = 999, k->start = 9000, k->end = 9003, k->stream = 13;
	k->name = k->dname = gd_profile_intern(p, "orphan");
	gd_profile_finish(p);
}

static const struct gd_fw_op *op(const struct gd_framework *fw, const char *name)
{
	for (long i = 0; i < fw->nops; i++)
		if (!strcmp(fw->ops[i].name, name))
			return &fw->ops[i];
	return NULL;
}

static long mod(const struct gd_framework *fw, const char *path)
{
	for (long i = 0; i < fw->nmodules; i++)
		if (!strcmp(fw->modules[i].path, path))
			return i;
	return -1;
}

/* The kernel of p launched with correlation id corr. */
static long kidx(const struct gd_profile *p, int pid, uint32_t corr)
{
	for (long i = 0; i < p->nk; i++)
		if (p->k[i].pid == pid && p->k[i].corr == corr)
			return i;
	return -1;
}

static void check_op(const struct gd_framework *fw, const char *name, long calls, long kernels, double self,
		     double total, int dir)
{
	const struct gd_fw_op *o = op(fw, name);
	CHECK(o != NULL);
	if (!o) {
		fprintf(stderr, "  no op row '%s'\n", name);
		return;
	}
	CHECK_INT(o->calls, calls);
	CHECK_INT(o->kernels, kernels);
	CHECK_NEAR(o->self_ns, self, 0);
	CHECK_NEAR(o->total_ns, total, 0);
	CHECK_INT(gd_fw_op_dir(o), dir);
}

static void check_mod(const struct gd_framework *fw, const char *path, const char *cls, long calls, long kernels,
		      double self, double total, double bwd, const char *parent, int depth)
{
	long i = mod(fw, path);
	const struct gd_fw_module *m = i >= 0 ? &fw->modules[i] : NULL;
	CHECK(m != NULL);
	if (!m) {
		fprintf(stderr, "  no module row '%s'\n", path);
		return;
	}
	if (cls)
		CHECK_STR(m->cls, cls);
	else
		CHECK(m->cls == NULL);
	CHECK_INT(m->calls, calls);
	CHECK_INT(m->kernels, kernels);
	CHECK_NEAR(m->self_ns, self, 0);
	CHECK_NEAR(m->total_ns, total, 0);
	CHECK_NEAR(m->bwd_ns, bwd, 0);
	CHECK_NEAR(m->fwd_ns, total - bwd, 0);
	if (parent)
		CHECK(m->parent >= 0 && !strcmp(fw->modules[m->parent].path, parent));
	else
		CHECK_INT(m->parent, -1);
	CHECK_INT(m->depth, depth);
}

static void test_attribution(void)
{
	struct gd_profile p;
	struct gd_framework fw;
	/* per kernel in launch order (correlation ids 1..15): op, module, backward */
	static const struct {
		int pid;
		const char *op, *mod;
		int bwd;
	} want[] = {
		{1, "aten::addmm", "enc.layers.0.proj", 0},
		{1, "aten::linear", "enc.layers.0.proj", 0},
		{1, "aten::addmm", "enc.layers.1.proj", 0},
		{1, "aten::relu", "act", 0},
		{1, "aten::relu", "act", 0},
		{1, "aten::mul", "head", 0},
		{1, NULL, "", 0},
		{1, NULL, NULL, 0},
		{1, "aten::mm", "enc.layers.1.proj", 1},
		{1, EVAL "ReluBackward0", "act", 1},
		{1, "torch::autograd::CopySlices", "act", 1}, /* K16: seq 10, the second act call's relu */
		{1, EVAL "XBackward0", NULL, 1},
		{1, EVAL "AddmmBackward0", "enc.layers.0.proj", 1},
		{2, "aten::addmm", NULL, 0},
		{2, EVAL "AddmmBackward0", NULL, 1},
	};
	build(&p);
	CHECK_INT(gd_framework_compute(&p, &fw), GD_OK);
	CHECK_INT(fw.present, 1);
	CHECK_STR(fw.mode, "ops");
	CHECK_STR(fw.torch, "2.11.0");
	CHECK_INT(fw.op_ranges, 17);
	CHECK_INT(fw.module_ranges, 8);
	CHECK_INT(fw.bwd_ranges, 8); /* the engine's and the node's ranges; not aten::mm inside them */
	CHECK_INT(fw.kernels, 16);
	CHECK_INT(fw.no_launcher, 1);
	CHECK_NEAR(fw.kernel_ns, 490, 0);

	for (int i = 0; i < (int)(sizeof(want) / sizeof(want[0])); i++) {
		long k = kidx(&p, want[i].pid, (uint32_t)(i + 1));
		CHECK(k >= 0);
		if (k < 0)
			continue;
		if (want[i].op)
			CHECK(fw.k_op[k] >= 0 && !strcmp(fw.ops[fw.k_op[k]].name, want[i].op));
		else
			CHECK_INT(fw.k_op[k], -1);
		if (want[i].mod)
			CHECK(fw.k_mod[k] >= 0 && !strcmp(fw.modules[fw.k_mod[k]].path, want[i].mod));
		else
			CHECK_INT(fw.k_mod[k], -1);
		CHECK_INT(fw.k_bwd[k], want[i].bwd);
		if ((want[i].op && (fw.k_op[k] < 0 || strcmp(fw.ops[fw.k_op[k]].name, want[i].op))) ||
		    (want[i].mod && (fw.k_mod[k] < 0 || strcmp(fw.modules[fw.k_mod[k]].path, want[i].mod))))
			fprintf(stderr, "  K%d attributed wrongly\n", i + 1);
	}
	{
		long k = kidx(&p, 1, 999);
		CHECK(k >= 0 && fw.k_op[k] == -1 && fw.k_mod[k] == -1);
	}

	/* ops, by self time (ties: total): self = innermost op's kernels, total = every kernel
	 * inside each of its ranges; calls = its ranges (the never-closed one too) */
	CHECK_INT(fw.nops, 12);
	CHECK_STR(fw.ops[0].name, "aten::addmm");
	CHECK_STR(fw.ops[1].name, "aten::mm");
	CHECK_STR(fw.ops[2].name, "(no op)");
	CHECK_STR(fw.ops[3].name, EVAL "AddmmBackward0");
	CHECK_STR(fw.ops[4].name, "aten::linear"); /* self 20 like relu; total 220 > 20 */
	CHECK_STR(fw.ops[5].name, "aten::relu");
	CHECK_STR(fw.ops[9].name, "torch::autograd::CopySlices");
	CHECK_STR(fw.ops[10].name, "AddmmBackward0"); /* self 0: by total, 80 */
	CHECK_STR(fw.ops[11].name, EVAL "torch::autograd::CopySlices");
	check_op(&fw, "aten::addmm", 3, 3, 240, 240, GD_FW_FORWARD);
	check_op(&fw, "aten::linear", 2, 1, 20, 220, GD_FW_FORWARD); /* (100 + 20) + 100 */
	CHECK_INT(op(&fw, "aten::linear")->total_kernels, 3);
	check_op(&fw, "aten::relu", 2, 2, 20, 20, GD_FW_FORWARD);
	check_op(&fw, "aten::mul", 1, 1, 5, 5, GD_FW_FORWARD);
	check_op(&fw, "aten::mm", 1, 1, 80, 80, GD_FW_BACKWARD);
	check_op(&fw, "AddmmBackward0", 1, 0, 0, 80, GD_FW_BACKWARD);
	check_op(&fw, EVAL "AddmmBackward0", 3, 2, 50, 130, GD_FW_BACKWARD); /* 80 + 30 + 20 */
	check_op(&fw, EVAL "ReluBackward0", 1, 1, 10, 10, GD_FW_BACKWARD);
	check_op(&fw, EVAL "XBackward0", 1, 1, 7, 7, GD_FW_BACKWARD);
	check_op(&fw, "(no op)", 0, 3, 54, 54, GD_FW_DIR_UNKNOWN); /* K7, K8, K15 */
	check_op(&fw, "torch::autograd::CopySlices", 1, 1, 4, 4, GD_FW_BACKWARD);
	check_op(&fw, EVAL "torch::autograd::CopySlices", 1, 0, 0, 4, GD_FW_BACKWARD);
	CHECK(op(&fw, "step") == NULL);                                /* not a framework range */

	/* modules, by self time; backward kernels by their forward op's seq in the same process */
	CHECK_INT(fw.nmodules, 8);
	CHECK_STR(fw.modules[0].path, "enc.layers.1.proj");
	CHECK_STR(fw.modules[1].path, "enc.layers.0.proj");
	CHECK_STR(fw.modules[2].path, "(no module)");
	CHECK_STR(fw.modules[6].path, "enc"); /* self 0, total 330 */
	check_mod(&fw, "enc.layers.1.proj", "Linear", 1, 2, 180, 180, 80, "enc", 2);
	check_mod(&fw, "enc.layers.0.proj", "Linear", 1, 3, 150, 150, 30, "enc", 2);
	check_mod(&fw, "act", "ReLU", 2, 4, 34, 34, 14, "", 1); /* called twice */
	check_mod(&fw, "head", "Head", 1, 1, 5, 5, 0, "", 1);
	check_mod(&fw, "", "Model", 1, 1, 1, 370, 124, NULL, 0);
	check_mod(&fw, "enc", "Encoder", 1, 0, 0, 330, 110, "", 1);
	check_mod(&fw, "enc.drop", "Dropout", 1, 0, 0, 0, 0, "enc", 2); /* inside head, under enc by path */
	check_mod(&fw, "(no module)", NULL, 0, 5, 120, 120, 27, NULL, 0); /* K8, K11, K13, K14, K15 */
	CHECK_INT(fw.modules[mod(&fw, "enc.layers.1.proj")].total_kernels, 2);
	CHECK_INT(fw.modules[mod(&fw, "")].total_kernels, 11);

	/* the tree, pre-order, children by total: Model > enc > (1.proj, 0.proj, drop), act, head;
	 * then (no module) */
	{
		static const char *const order[] = {"", "enc", "enc.layers.1.proj", "enc.layers.0.proj", "enc.drop",
						    "act", "head", "(no module)"};
		CHECK_INT(fw.ntree, 8);
		for (int i = 0; i < 8 && i < fw.ntree; i++)
			CHECK_STR(fw.modules[fw.tree[i]].path, order[i]);
	}
	gd_framework_free(&fw);
	gd_profile_free(&p);
}

/* Without framework ranges there is no view; with only module ranges (--torch modules) no op
 * rows, not even "(no op)". */
static void test_absent_and_modules_only(void)
{
	struct gd_profile p;
	struct gd_framework fw;
	gd_profile_init(&p);
	g_corr = 0;
	range(&p, 1, 10, "step", 0, 100);
	range(&p, 1, 10, "gpudiag.module:bad", 0, 100); /* not <Class>:<path>: a program's own */
	launch(&p, 1, 10, 10, 5, "k");
	gd_profile_finish(&p);
	CHECK_INT(gd_framework_compute(&p, &fw), GD_OK);
	CHECK_INT(fw.present, 0);
	CHECK(fw.ops == NULL && fw.modules == NULL && fw.k_op == NULL);
	gd_framework_free(&fw);
	gd_profile_free(&p);

	gd_profile_init(&p);
	g_corr = 0;
	range(&p, 1, 10, "gpudiag.module:Net:", 0, 100);
	launch(&p, 1, 10, 10, 5, "k");
	launch(&p, 1, 10, 200, 7, "k");
	gd_profile_finish(&p);
	CHECK_INT(gd_framework_compute(&p, &fw), GD_OK);
	CHECK_INT(fw.present, 1);
	CHECK_STR(fw.mode, "");
	CHECK_INT(fw.nops, 0);
	CHECK_INT(fw.nmodules, 2);
	check_mod(&fw, "", "Net", 1, 1, 5, 5, 0, NULL, 0);
	check_mod(&fw, "(no module)", NULL, 0, 1, 7, 7, 0, NULL, 0);
	gd_framework_free(&fw);
	gd_profile_free(&p);
}

/* JAX/XLA's own ranges (domain "TSL", as JAX 0.11 emits them): "XlaModule:#hlo_module=..#"
 * a module (its '.' shown as '_'), "Thunk:#hlo_op=..#" an op; its compile passes and ranges of
 * other domains are not framework ranges. */
static void test_xla(void)
{
	struct gd_profile p;
	struct gd_framework fw;
	struct gd_pnvtx *v;
	int tsl, other;
	gd_profile_init(&p);
	g_corr = 0;
	tsl = gd_profile_intern(&p, "TSL");
	other = gd_profile_intern(&p, "MyLib");
	range(&p, 1, 10, "XlaModule:#hlo_module=jit_train_step.1,program_id=7#", 0, 1000);
	range(&p, 1, 10, "Thunk:#hlo_op=gemm_fusion_dot.1#", 10, 100);
	range(&p, 1, 10, "Thunk:#hlo_op=wrapped_subtract#", 200, 300);
	range(&p, 1, 10, "XlaPass:#name=algsimp,module=jit_train_step#", 400, 500); /* compile: not an op */
	range(&p, 1, 10, "Thunk:#hlo_op=not_xla#", 600, 700);                  /* another domain */
	for (long i = 0; i < p.nnv; i++)
		p.nv[i].domain = i == 4 ? other : tsl;
	v = gd_profile_add_nvtx(&p); /* the default domain's "Thunk:..." is a program's own name */
	v->pid = 1, v->tid = 10, v->start = 800, v->end = 900, v->name = gd_profile_intern(&p, "Thunk:#hlo_op=mine#");
	launch(&p, 1, 10, 20, 40, "gemm_fusion_dot_1");
	launch(&p, 1, 10, 30, 60, "gemm_fusion_dot_1");
	launch(&p, 1, 10, 250, 5, "wrapped_subtract");
	launch(&p, 1, 10, 450, 7, "loop_kernel");
	launch(&p, 1, 10, 650, 9, "k2");
	gd_profile_finish(&p);
	CHECK_INT(gd_framework_compute(&p, &fw), GD_OK);
	CHECK_INT(fw.present, 1);
	CHECK_STR(fw.mode, "");
	CHECK_INT(fw.xla_ranges, 3);
	CHECK_INT(fw.op_ranges, 2);
	CHECK_INT(fw.module_ranges, 1);
	check_op(&fw, "gemm_fusion_dot.1", 1, 2, 100, 100, GD_FW_FORWARD);
	check_op(&fw, "wrapped_subtract", 1, 1, 5, 5, GD_FW_FORWARD);
	check_op(&fw, "(no op)", 0, 2, 16, 16, GD_FW_DIR_UNKNOWN);
	CHECK(op(&fw, "not_xla") == NULL && op(&fw, "mine") == NULL);
	check_mod(&fw, "jit_train_step_1", "XlaModule", 1, 5, 121, 121, 0, NULL, 0);
	gd_framework_free(&fw);
	gd_profile_free(&p);
}

static void test_parsers(void)
{
	size_t n;
	long long seq;
	char kind[64], ops[256], b[128];
	struct gd_fw_module m = {0};

	CHECK_INT(gd_fw_parse_op("aten::addmm, seq = 812, op_id = 4410", &n, &seq), 1);
	CHECK_INT(n, 11);
	CHECK_INT(seq, 812);
	CHECK_INT(gd_fw_parse_op("## forward ##, op_id = 3", &n, &seq), 1);
	CHECK_INT(n, 13);
	CHECK_INT(seq, -1);
	CHECK_INT(gd_fw_parse_op("aten::cat, seq = 3, op_id = 4, sizes = [[1, 2], [3]], input_op_ids = [(1, 0)]", &n, &seq), 1);
	CHECK_INT(n, 9);
	CHECK_INT(seq, 3);
	CHECK_INT(gd_fw_parse_op("a, b, seq = 5", &n, &seq), 1); /* ", b" is no key: the name has a comma */
	CHECK_INT(n, 4);
	CHECK_INT(gd_fw_parse_op("aten::empty", &n, &seq), 0); /* a name alone: a program's own range */
	CHECK_INT(gd_fw_parse_op("load, batch = 3", &n, &seq), 0);
	CHECK_INT(n, 4);

	CHECK_INT(gd_fw_parse_fused("triton_poi_fused_add_gelu_0", kind, sizeof(kind), ops, sizeof(ops)), 1);
	CHECK_STR(kind, "pointwise");
	CHECK_STR(ops, "add, gelu");
	CHECK_INT(gd_fw_parse_fused("triton_per_fused__to_copy_native_layer_norm_12", kind, sizeof(kind), ops, sizeof(ops)), 1);
	CHECK_STR(kind, "persistent reduction");
	CHECK_STR(ops, "_to_copy, native_layer_norm");
	CHECK_INT(gd_fw_parse_fused("triton_red_fused__log_softmax_max_pool2d_with_indices_backward_7", kind, sizeof(kind), ops,
				    sizeof(ops)),
		  1);
	CHECK_STR(kind, "reduction");
	CHECK_STR(ops, "_log_softmax, max_pool2d_with_indices_backward");
	CHECK_INT(gd_fw_parse_fused("triton_tem_fused_0", kind, sizeof(kind), ops, sizeof(ops)), 1);
	CHECK_STR(kind, "template");
	CHECK_STR(ops, "");
	CHECK_INT(gd_fw_parse_fused("triton_red_fused_sum_foo_bar_3", kind, sizeof(kind), ops, sizeof(ops)), 1);
	CHECK_STR(ops, "sum, foo, bar"); /* unknown words: one op each */
	CHECK_INT(gd_fw_parse_fused("triton_xyz_fused_mul_1", kind, sizeof(kind), ops, sizeof(ops)), 1);
	CHECK_STR(kind, "xyz");
	CHECK_INT(gd_fw_parse_fused("triton_poi_fused_add", kind, sizeof(kind), ops, sizeof(ops)), 0); /* no index */
	CHECK_INT(gd_fw_parse_fused("triton_poi_0", kind, sizeof(kind), ops, sizeof(ops)), 0);
	CHECK_INT(gd_fw_parse_fused("_Z3fooPf", kind, sizeof(kind), ops, sizeof(ops)), 0);
	CHECK_INT(gd_fw_parse_fused("triton_poi_fusedadd_0", kind, sizeof(kind), ops, sizeof(ops)), 0);
	/* a short buffer cuts, never overflows */
	CHECK_INT(gd_fw_parse_fused("triton_poi_fused_add_gelu_0", kind, 4, ops, 6), 1);
	CHECK_STR(kind, "poi");
	CHECK_STR(ops, "add, ");

	CHECK_STR(gd_fw_collapse_path(b, sizeof(b), "transformer.h.11.ln_1"), "transformer.h.*.ln_1");
	CHECK_STR(gd_fw_collapse_path(b, sizeof(b), "0.1"), "*.*");
	CHECK_STR(gd_fw_collapse_path(b, sizeof(b), "layers.a1"), "layers.a1");
	CHECK_STR(gd_fw_collapse_path(b, sizeof(b), ""), "");
	m.path = "a.b", m.cls = "Linear";
	CHECK_STR(gd_fw_module_label(b, sizeof(b), &m), "a.b (Linear)");
	m.path = "";
	CHECK_STR(gd_fw_module_label(b, sizeof(b), &m), "Linear (root)");
	m.none = 1;
	CHECK_STR(gd_fw_module_label(b, sizeof(b), &m), "(no module)");
}

/* The NVTX table counts PyTorch's op ranges by op name, every other range by its message. */
static void test_nvtx_table(void)
{
	struct gd_profile p;
	struct gd_stat_tables t;
	const struct gd_nvtx_row *addmm = NULL, *eval = NULL, *step = NULL;
	build(&p);
	CHECK_INT(gd_stat_tables_compute(&p, &t), GD_OK);
	for (long i = 0; i < t.nnvtx; i++) {
		const struct gd_nvtx_row *r = &t.nvtx[i];
		if (r->label && !strcmp(r->label, "aten::addmm"))
			addmm = r;
		if (r->label && !strcmp(r->label, EVAL "AddmmBackward0"))
			eval = r;
		if (!r->label && r->name >= 0 && !strcmp(p.names[r->name], "step"))
			step = r;
	}
	CHECK(addmm && eval && step);
	if (addmm && eval && step) {
		CHECK_INT(addmm->count, 3);
		CHECK_INT(addmm->kernels, 3);
		CHECK_NEAR(addmm->kernel_ns, 240, 0);
		CHECK_INT(eval->count, 2);
		CHECK_INT(eval->open, 1);
		CHECK_INT(step->count, 1);
		CHECK_INT(step->kernels, 8); /* K1..K8: launched on thread 10 inside [50, 1200] */
	}
	gd_stat_tables_free(&t);
	gd_profile_free(&p);
}

/* The verdicts' evidence: a fired finding that names a kernel gets its op and module; a fired
 * launch-bound finding gets the module and op of its short kernels. */
static void test_evidence(void)
{
	struct gd_analysis a;
	struct gd_verdicts v;
	const struct gd_kstat *ks = NULL;
	struct gd_finding *f;
	memset(&a, 0, sizeof(a));
	build(&a.p);
	CHECK_INT(gd_analysis_of(&a), GD_OK);
	for (int i = 0; i < a.s.nks; i++)
		if (!strcmp(a.p.names[a.s.ks[i].name], GEMM))
			ks = &a.s.ks[i];
	CHECK(ks != NULL);
	memset(&v, 0, sizeof(v));
	f = &v.f[GD_R_TENSOR];
	f->state = GD_FIRED;
	snprintf(f->kernel, sizeof(f->kernel), "%s", ks ? ks->short_name : "?");
	f = &v.f[GD_R_LAUNCH];
	f->state = GD_FIRED;
	f->nev = 1;
	snprintf(f->ev[0].key, sizeof(f->ev[0].key), "launch_api_median_ns");
	f->ev[0].value = 15; /* short: K4, K5, K6, K7, K10, K11, K15, K16 */
	v.f[GD_R_MEMBOUND].state = GD_CLEAR;
	snprintf(v.f[GD_R_MEMBOUND].kernel, sizeof(v.f[GD_R_MEMBOUND].kernel), "%s", "relu_kernel");
	gd_verdicts_add_framework(&a.p, &a.s, &a.fw, &v);

	/* K1, K3 (addmm, 200 ns) and K9 (mm, 80): the two proj layers are one group */
	f = &v.f[GD_R_TENSOR];
	CHECK_INT(f->nev, 1);
	CHECK_STR(f->ev[0].key, "op_module");
	CHECK_NEAR(f->ev[0].value, 200.0 / 280, 1e-12);
	CHECK_STR(f->ev[0].text, "launched by op `aten::addmm` (71.4 % of its time); in `enc.layers.*.proj` (Linear) "
				 "(100.0 % of its time)");
	/* act: K4, K5, K10, K16 of the 8 short kernels; 4 kernels in 2 calls. aten::relu: K4, K5 */
	f = &v.f[GD_R_LAUNCH];
	CHECK_INT(f->nev, 3);
	CHECK_STR(f->ev[1].key, "module_kernels_per_call");
	CHECK_NEAR(f->ev[1].value, 2, 1e-12);
	CHECK_STR(f->ev[1].text, "launch-bound: `act` (ReLU) launches 2 kernels per call (4 of the 8 short kernels)");
	CHECK_STR(f->ev[2].key, "op_kernels_per_call");
	CHECK_STR(f->ev[2].text, "op `aten::relu` launches 1 kernel per call (2 of the short kernels)");
	CHECK_INT(v.f[GD_R_MEMBOUND].nev, 0); /* not fired: nothing added */
	gd_analysis_free(&a);
}

/* `gpudiag diff` by op and module: B's addmm twice as long in enc.layers.1.proj. */
static void test_compare(void)
{
	struct gd_analysis a, b;
	struct gd_compare c;
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	build(&a.p);
	build(&b.p);
	for (long i = 0; i < b.p.nk; i++)
		if (b.p.k[i].corr == 3 && b.p.k[i].pid == 1)
			b.p.k[i].end += 100;
	CHECK_INT(gd_analysis_of(&a), GD_OK);
	CHECK_INT(gd_analysis_of(&b), GD_OK);
	CHECK_INT(gd_compare_compute(&a.s, &b.s, &c), GD_OK);
	CHECK_INT(gd_compare_framework(&a.fw, &b.fw, &c), GD_OK);
	CHECK_INT(c.framework, 1);
	CHECK_INT(c.nops, 12);
	CHECK_STR(c.ops[0].name, "aten::addmm");
	CHECK_NEAR(c.ops[0].a, 240, 0);
	CHECK_NEAR(c.ops[0].b, 340, 0);
	CHECK_INT(c.ops[0].na, 3);
	CHECK_NEAR(c.ops[1].b - c.ops[1].a, 0, 0);
	CHECK_INT(c.nmodules, 8);
	CHECK_STR(c.modules[0].name, "enc.layers.1.proj (Linear)");
	CHECK_STR(c.modules[0].path, "enc.layers.1.proj");
	CHECK_STR(c.modules[0].cls, "Linear");
	CHECK_NEAR(c.modules[0].b - c.modules[0].a, 100, 0);
	gd_compare_free(&c);
	gd_analysis_free(&a);
	gd_analysis_free(&b);
}

/* --python-stack's source marks: each belongs to the innermost module range around it on its
 * own thread (ns):
 *   thread 10: Model "" [100, 1000]        mark 101  train.py:20
 *                Block b.0 [110, 300]      mark 111  proj/models.py:55
 *                  Linear b.0.fc [120, 200] mark 121  a/models.py:12 (another models.py)
 *                Block b.1 [310, 500]      mark 311  proj/models.py:55
 *                  Linear b.1.fc [320, 400] mark 321  a/models.py:12
 *                Act act [510, 550], [560, 600], [610, 650]: marks 510 (at the range's start),
 *                  561, 611: lines 60, 61, 60
 *              marks 1100 (train.py:7) and 1200 ("b:c:d", a file name with colons): in no module
 *   thread 20: a mark at 150, while thread 10's Model is open: in no module of its thread
 *   malformed: no line digits, an empty file, a ten-digit line: not source marks */
static void test_sources(void)
{
	struct gd_profile p;
	struct gd_framework fw;
	struct gd_pnvtx *v;
	static const struct {
		int tid;
		int64_t t;
		const char *msg;
	} marks[] = {
		{10, 101, "gpudiag.src:20:<module>:/home/u/proj/train.py"},
		{10, 111, "gpudiag.src:55:Model.forward:/home/u/proj/models.py"},
		{10, 121, "gpudiag.src:12:Block.forward:/x/lib/a/models.py"},
		{10, 311, "gpudiag.src:55:Model.forward:/home/u/proj/models.py"},
		{10, 321, "gpudiag.src:12:Block.forward:/x/lib/a/models.py"},
		{10, 510, "gpudiag.src:60:Model.forward:/home/u/proj/models.py"},
		{10, 561, "gpudiag.src:61:Model.forward:/home/u/proj/models.py"},
		{10, 611, "gpudiag.src:60:Model.forward:/home/u/proj/models.py"},
		{10, 1100, "gpudiag.src:7:main:/home/u/proj/train.py"},
		{10, 1200, "gpudiag.src:5:f:b:c:d"},
		{20, 150, "gpudiag.src:20:<module>:/home/u/proj/train.py"},
		{10, 130, "gpudiag.src:x:f:/a.py"},
		{10, 131, "gpudiag.src:5:f:"},
		{10, 132, "gpudiag.src:1234567890:f:/a.py"},
	};
	long m;
	char b[128];
	gd_profile_init(&p);
	g_corr = 0;
	range(&p, 1, 10, "gpudiag.module:Model:", 100, 1000);
	range(&p, 1, 10, "gpudiag.module:Block:b.0", 110, 300);
	range(&p, 1, 10, "gpudiag.module:Linear:b.0.fc", 120, 200);
	launch(&p, 1, 10, 150, 10, "k");
	range(&p, 1, 10, "gpudiag.module:Block:b.1", 310, 500);
	range(&p, 1, 10, "gpudiag.module:Linear:b.1.fc", 320, 400);
	launch(&p, 1, 10, 350, 10, "k");
	range(&p, 1, 10, "gpudiag.module:Act:act", 510, 550);
	range(&p, 1, 10, "gpudiag.module:Act:act", 560, 600);
	range(&p, 1, 10, "gpudiag.module:Act:act", 610, 650);
	for (size_t i = 0; i < sizeof(marks) / sizeof(marks[0]); i++) {
		v = gd_profile_add_nvtx(&p);
		v->pid = 1, v->tid = marks[i].tid, v->start = marks[i].t, v->mark = 1;
		v->name = gd_profile_intern(&p, marks[i].msg);
	}
	gd_profile_finish(&p);
	CHECK_INT(gd_framework_compute(&p, &fw), GD_OK);
	CHECK_INT(fw.present, 1);
	CHECK_INT(fw.src_marks, 11);
	CHECK_INT(fw.src_outside, 3);
	CHECK_INT(fw.nlocs, 7);
	/* in order of first mark (p->nv is by start: 101, 111, 121, 150 (train.py:20 again), ...) */
	CHECK_STR(fw.locs[0].file, "/home/u/proj/train.py");
	CHECK_STR(fw.locs[0].func, "<module>");
	CHECK_INT(fw.locs[0].line, 20);
	CHECK_STR(fw.locs[0].shown, "train.py");
	CHECK_STR(fw.locs[1].shown, "proj/models.py"); /* two models.py: the shortest tails that differ */
	CHECK_STR(fw.locs[2].shown, "a/models.py");
	CHECK_STR(fw.locs[2].func, "Block.forward");
	CHECK_STR(fw.locs[6].file, "b:c:d"); /* the file is last: its colons are its own */
	CHECK_STR(fw.locs[6].func, "f");
	CHECK_INT(fw.locs[6].line, 5);
	CHECK_STR(gd_fw_loc_label(b, sizeof(b), &fw.locs[2]), "a/models.py:12");

	CHECK((m = mod(&fw, "")) >= 0);
	CHECK_INT(fw.modules[m].nfrom, 1);
	CHECK_INT(fw.modules[m].from[0].loc, 0);
	CHECK_INT(fw.modules[m].from[0].calls, 1); /* thread 20's mark is not in it */
	CHECK((m = mod(&fw, "b.1")) >= 0);
	CHECK_INT(fw.modules[m].nfrom, 1);
	CHECK_STR(fw.locs[fw.modules[m].from[0].loc].shown, "proj/models.py");
	CHECK_INT(fw.locs[fw.modules[m].from[0].loc].line, 55);
	CHECK((m = mod(&fw, "b.0.fc")) >= 0);
	CHECK_INT(fw.modules[m].nfrom, 1);
	CHECK_INT(fw.locs[fw.modules[m].from[0].loc].line, 12);
	/* act: line 60 twice (the mark at its range's start too), then 61 */
	CHECK((m = mod(&fw, "act")) >= 0);
	CHECK_INT(fw.modules[m].calls, 3);
	CHECK_INT(fw.modules[m].nfrom, 2);
	CHECK_INT(fw.modules[m].sampled, 3);
	if (fw.modules[m].nfrom == 2) {
		CHECK_INT(fw.locs[fw.modules[m].from[0].loc].line, 60);
		CHECK_INT(fw.modules[m].from[0].calls, 2);
		CHECK_INT(fw.locs[fw.modules[m].from[1].loc].line, 61);
		CHECK_INT(fw.modules[m].from[1].calls, 1);
	}
	CHECK_INT(mod(&fw, "(no module)"), -1); /* both kernels are in a module: no such row */
	{
		/* the verdicts' origin: the b.*.fc group, called from a/models.py:12 */
		unsigned char sel[2] = {1, 1};
		struct gd_fw_origin o;
		CHECK_INT(gd_fw_origin(&p, &fw, sel, 0, &o), GD_OK);
		CHECK_STR(o.module, "b.*.fc");
		CHECK(o.loc >= 0 && !strcmp(gd_fw_loc_label(b, sizeof(b), &fw.locs[o.loc]), "a/models.py:12"));
	}
	gd_framework_free(&fw);
	gd_profile_free(&p);

	/* source marks alone (no torch mark, no range): no view */
	gd_profile_init(&p);
	v = gd_profile_add_nvtx(&p);
	v->pid = 1, v->tid = 10, v->start = 5, v->mark = 1;
	v->name = gd_profile_intern(&p, "gpudiag.src:1:f:/a.py");
	gd_profile_finish(&p);
	CHECK_INT(gd_framework_compute(&p, &fw), GD_OK);
	CHECK_INT(fw.present, 0);
	CHECK(fw.locs == NULL && fw.nlocs == 0);
	gd_framework_free(&fw);
	gd_profile_free(&p);
}

static void test_src_parser(void)
{
	long line;
	const char *func, *file;
	size_t fl;
	CHECK_INT(gd_fw_parse_src("gpudiag.src:389:GPT2Model.forward:/usr/lib/x/modeling_gpt2.py", &line, &func, &fl, &file), 1);
	CHECK_INT(line, 389);
	CHECK_INT(fl, 17);
	CHECK(!strncmp(func, "GPT2Model.forward", fl));
	CHECK_STR(file, "/usr/lib/x/modeling_gpt2.py");
	CHECK_INT(gd_fw_parse_src("gpudiag.src:1::C:\\x.py", &line, &func, &fl, &file), 1); /* empty function */
	CHECK_INT(fl, 0);
	CHECK_STR(file, "C:\\x.py");
	CHECK_INT(gd_fw_parse_src("gpudiag.src:12:f", &line, &func, &fl, &file), 0);        /* no file */
	CHECK_INT(gd_fw_parse_src("gpudiag.src::f:/a.py", &line, &func, &fl, &file), 0);    /* no line */
	CHECK_INT(gd_fw_parse_src("gpudiag.src:-1:f:/a.py", &line, &func, &fl, &file), 0);
	CHECK_INT(gd_fw_parse_src("gpudiag.srcx:1:f:/a.py", &line, &func, &fl, &file), 0);
	CHECK_INT(gd_fw_parse_src("gpudiag.src:999999999:f:/a.py", &line, &func, &fl, &file), 1);
	CHECK_INT(gd_fw_parse_src("gpudiag.src:1000000000:f:/a.py", &line, &func, &fl, &file), 0);
}

/* Profiles come from anywhere: many ranges with one start, a path of thousands of dots, odd
 * messages. The figures stay right and the work stays O(n log n). */
static void test_hostile(void)
{
	struct gd_profile p;
	struct gd_framework fw;
	char name[64], *path;
	const long n = 10000; /* gd_profile_intern is linear: more would time the test helper */
	gd_profile_init(&p);
	g_corr = 0;
	/* n op ranges starting together, the later recorded the shorter: the kernel's innermost op
	 * is the shortest, and every one of them holds it */
	for (long i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "aten::x, op_id = %ld", i + 1);
		range(&p, 1, 10, name, 0, 100000 - i);
	}
	range(&p, 1, 10, "aten::inner, seq = 99999999999999999999999, op_id = 1", 0, 10);
	range(&p, 1, 10, "gpudiag.module::", 0, 200000); /* empty class, the root */
	path = malloc(20002);
	for (int i = 0; i < 10000; i++)
		path[2 * i] = 'a', path[2 * i + 1] = '.';
	path[19999] = 0;
	{
		char *msg = malloc(20100);
		snprintf(msg, 20100, "gpudiag.module:Deep:%s", path);
		range(&p, 1, 10, msg, 300000, 300100);
		free(msg);
	}
	launch(&p, 1, 10, 1, 7, "k");
	launch(&p, 1, 10, 300050, 3, "k");
	gd_profile_finish(&p);
	CHECK_INT(gd_framework_compute(&p, &fw), GD_OK);
	check_op(&fw, "aten::inner", 1, 1, 7, 7, GD_FW_FORWARD);
	check_op(&fw, "aten::x", n, 0, 0, 7.0 * n, GD_FW_FORWARD);
	check_op(&fw, "(no op)", 0, 1, 3, 3, GD_FW_DIR_UNKNOWN);
	CHECK_INT(fw.nmodules, 2);
	check_mod(&fw, "", "", 1, 1, 7, 7, 0, NULL, 0);
	check_mod(&fw, path, "Deep", 1, 1, 3, 3, 0, NULL, 0); /* not inside the root: a root itself */
	gd_framework_free(&fw);
	gd_profile_free(&p);
	free(path);
}

/* gd_fw_krefs_load: each kernel's op and module by (pid, correlation), for the streaming
 * exports, on the recorded GPT-2 fixture (--torch ops); a profile without the view gives none;
 * a file the reader refuses gives its reason and nothing to free */
static struct gd_trace *open_trace(const char *path)
{
	struct gd_trace *t = NULL;
	long long t0, api_n;
	char why[512];
	CHECK_INT(gd_trace_open(path, &t, &t0, &api_n, why, sizeof(why)), GD_OK);
	return t;
}

static void test_krefs(void)
{
	static const char gpt2[] = "tests/fixtures/h200_torch_gpt2.gpudiag.sqlite";
	struct gd_fw_krefs k;
	const struct gd_fw_kref *r;
	struct gd_trace *t = open_trace(gpt2), *plain = open_trace("tests/fixtures/sample.gpudiag.sqlite");
	char why[512] = "";
	long bwd = 0, withmod = 0;
	if (!t || !plain)
		return;
	CHECK_INT(gd_fw_krefs_load(gpt2, t, &k, why, sizeof(why)), GD_OK);
	CHECK_INT(k.n, 3144);
	for (long i = 0; i < k.n; i++) {
		bwd += k.r[i].bwd;
		withmod += k.r[i].mod >= 0;
		if (i)
			CHECK(k.r[i - 1].pid < k.r[i].pid || (k.r[i - 1].pid == k.r[i].pid && k.r[i - 1].corr < k.r[i].corr));
	}
	CHECK_INT(bwd, 1887);
	CHECK_INT(withmod, 2673);
	/* every row found by its own key, and a key that is no kernel's not */
	r = k.n ? gd_fw_krefs_find(&k, k.r[k.n / 2].pid, k.r[k.n / 2].corr) : NULL;
	CHECK(r == (k.n ? &k.r[k.n / 2] : NULL));
	CHECK(gd_fw_krefs_find(&k, -1, 1) == NULL);
	CHECK(k.n && gd_fw_krefs_find(&k, k.r[0].pid, 0) == NULL);
	if (r && r->op >= 0 && r->op < k.nops)
		CHECK(strlen(k.ops[r->op]) > 0);
	gd_fw_krefs_free(&k);
	/* no framework strings: nothing loaded (the path is not even opened) */
	CHECK_INT(gd_fw_krefs_load("tests/fixtures/no-such-profile.sqlite", plain, &k, why, sizeof(why)), GD_OK);
	CHECK(k.n == 0 && k.r == NULL && k.nops == 0 && k.nmods == 0);
	gd_fw_krefs_free(&k);
	/* framework strings, and a profile the reader refuses: its reason, nothing to free */
	CHECK_INT(gd_fw_krefs_load("tests/fixtures/no-such-profile.sqlite", t, &k, why, sizeof(why)), GD_EDATA);
	CHECK(strstr(why, "no-such-profile.sqlite") != NULL);
	CHECK(k.n == 0 && k.r == NULL);
	gd_trace_close(t);
	gd_trace_close(plain);
}

/* The strings test: a pattern of the list matches (the last, as a JAX profile's executables
 * alone would), none of a list does not */
static void test_string_like(void)
{
	struct gd_trace *t = open_trace("tests/fixtures/h200_torch_gpt2.gpudiag.sqlite");
	static const char *const none[] = {"no string is like this%", NULL};
	static const char *const last[] = {"no string is like this%", "gpudiag.torch:%", NULL};
	if (!t)
		return;
	CHECK_INT(gd_trace_has_string_like(t, none), 0);
	CHECK_INT(gd_trace_has_string_like(t, last), 1);
	gd_trace_close(t);
}

int main(void)
{
	test_attribution();
	test_absent_and_modules_only();
	test_xla();
	test_parsers();
	test_nvtx_table();
	test_evidence();
	test_compare();
	test_hostile();
	test_sources();
	test_src_parser();
	test_krefs();
	test_string_like();
	return TEST_DONE();
}
