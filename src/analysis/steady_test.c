/* The main loop (analysis/steady.h) on kernel sequences built in memory: where it starts when
 * the first pass differs (autotuning), when the program has phases, when streams interleave,
 * and when nothing repeats in order. */
#include "analysis/steady.h"
#include "core/status.h"
#include "core/test.h"

#include <stdint.h>

static struct gd_profile P;
static int64_t T;
static uint32_t CORR;

static void reset(void)
{
	gd_profile_free(&P);
	gd_profile_init(&P);
	T = 1000000;
	CORR = 1;
}

/* One kernel launched now: names are launched in call order (correlation ids grow). */
static void k(const char *name, int64_t start_skew)
{
	struct gd_pkernel *x = gd_profile_add_kernel(&P);
	x->start = T + start_skew;
	x->end = x->start + 5000;
	x->name = x->dname = gd_profile_intern(&P, name);
	x->corr = CORR++;
	x->pid = 7;
	T += 10000;
}

/* One inference pass of a small "network": three layers, a normalisation after each. */
static void pass(void)
{
	k("conv_a", 0), k("bn", 0), k("conv_b", 0), k("bn", 0), k("conv_c", 0), k("bn", 0), k("head", 0);
}

static void nvml_at(int64_t t, int util)
{
	struct gd_pnvml *m = gd_profile_add_nvml(&P);
	m->t = t;
	m->util_gpu = util;
}

static void memset_at(int64_t a, int64_t b)
{
	struct gd_pcopy *c = gd_profile_add_copy(&P);
	c->start = a, c->end = b, c->kind = GD_CK_MEMSET, c->pid = 7;
}

/* The loop iteration by iteration (gd_loop_view): ten iterations of a, bn, b, bn (5 us each,
 * one every 10 us, so 20 us of kernels in 40 us), a 50 us stall after the seventh, a memset in
 * an idle stretch of the fourth and one overlapping a kernel in the fifth. */
static void loop_view(void)
{
	struct gd_steady st;
	struct gd_summary s;
	struct gd_loop_view lv;
	int64_t it0[10];
	reset();
	k("upload", 0);
	for (int i = 0; i < 10; i++) {
		if (i == 7)
			T += 50000;
		it0[i] = T;
		k("a", 0), k("bn", 0), k("b", 0), k("bn", 0);
	}
	k("checksum", 0);
	memset_at(it0[3] + 6000, it0[3] + 9000);
	memset_at(it0[4] + 2000, it0[4] + 7000);
	nvml_at(1000000, 0);
	nvml_at(it0[2], 50);
	nvml_at(it0[5], 70);
	nvml_at(T + 1000000, 0);
	gd_profile_finish(&P);
	gd_steady_find(&P, NULL, &st);
	CHECK_INT(st.k0, 1);
	CHECK_INT(st.period, 4);
	CHECK_INT(gd_summary_compute(&P, &s), GD_OK);
	CHECK_INT(gd_loop_view_compute(&P, &s, st.found, st.k0, st.k1, st.period, st.t0, st.t1, &lv), GD_OK);
	CHECK_INT(lv.n, 10);
	CHECK_INT(lv.opener_runs, 1);
	CHECK(lv.opener == P.k[1].name);
	if (lv.n == 10) {
		for (int i = 0; i < 10; i++)
			CHECK_INT(lv.it[i].start, it0[i]);
		CHECK_INT(lv.it[0].end - lv.it[0].start, 40000);
		CHECK_NEAR(lv.it[0].kernel_ns, 20000, 0);
		CHECK_NEAR(lv.it[0].copy_ns, 0, 0);
		CHECK_NEAR(lv.it[0].idle_ns, 20000, 0);
		CHECK_NEAR(lv.it[3].copy_ns, 3000, 0); /* in an idle stretch */
		CHECK_NEAR(lv.it[3].idle_ns, 17000, 0);
		CHECK_NEAR(lv.it[4].copy_ns, 2000, 0); /* 5 us, 3 of them beside kernel a */
		CHECK_NEAR(lv.it[4].idle_ns, 18000, 0);
		CHECK_INT(lv.it[6].end - lv.it[6].start, 90000); /* the stall */
		CHECK_NEAR(lv.it[6].idle_ns, 70000, 0);
		CHECK_INT(lv.it[9].end, st.g1); /* the last ends with the loop: 35 us */
		CHECK_NEAR(lv.it[9].idle_ns, 15000, 0);
		CHECK_INT(lv.slowest, 6);
		CHECK_NEAR(lv.median_ns, 40000, 0);
	}
	/* NVML in the loop: the two samples inside it */
	CHECK_INT(lv.nvml_util_loop.n, 2);
	CHECK_NEAR(lv.nvml_util_loop.mean, 60, 1e-9);
	CHECK_NEAR(lv.nvml_util_loop.min, 50, 0);
	gd_loop_view_free(&lv);
	CHECK_INT(lv.window, GD_WIN_LOOP);
	CHECK_INT(lv.w0, it0[0]);
	CHECK_INT(lv.w1, st.g1);
	/* no loop: no iterations; the window is the GPU active span (upload .. checksum), which
	 * holds the same two samples and the one at the upload's start */
	CHECK_INT(gd_loop_view_compute(&P, &s, 0, 0, 0, 0, 0, 0, &lv), GD_OK);
	CHECK_INT(lv.n, 0);
	CHECK_INT(lv.slowest, -1);
	CHECK_INT(lv.window, GD_WIN_SPAN);
	CHECK_INT(lv.w0, P.k[0].start);
	CHECK_INT(lv.w1, P.k[P.nk - 1].end);
	CHECK_INT(lv.nvml_util_loop.n, 3);
	gd_loop_view_free(&lv);
	gd_summary_free(&s);

	/* light mode (no kernels): the PM samples' steady part, from the first sample with work */
	reset();
	for (int i = 0; i < 200; i++) {
		struct gd_pm_sample *x = gd_profile_add_pm(&P);
		x->t_start = 1000000 + 100000 * (int64_t)i, x->t_end = x->t_start + 100000;
		x->v[GD_PM_SM_ACTIVE] = i < 100 ? 0 : 80;
	}
	gd_profile_finish(&P);
	CHECK_INT(gd_summary_compute(&P, &s), GD_OK);
	CHECK_INT(gd_loop_view_compute(&P, &s, 0, 0, 0, 0, 0, 0, &lv), GD_OK);
	CHECK_INT(lv.window, GD_WIN_PM_STEADY);
	CHECK_INT(lv.w0, 1000000 + 100 * 100000);
	CHECK_INT(lv.w1, 1000000 + 200 * 100000);
	gd_loop_view_free(&lv);
	gd_summary_free(&s);

	/* two ranks (pids 7 and 8) run the same step, a b a c, side by side: rank 8's kernels start
	 * 2 us after rank 7's, so start order interleaves them (a7 a8 b7 b8 a7 ...). The step is
	 * rank 7's four kernels, two runs of a: counted in start order, its first four would hold
	 * one, and the loop would split into 12 half-steps */
	reset();
	for (int i = 0; i < 6; i++) {
		static const char *const nm[4] = {"a_kernel", "b_kernel", "a_kernel", "c_kernel"};
		for (int q = 0; q < 4; q++) {
			for (int r = 0; r < 2; r++) {
				struct gd_pkernel *x = gd_profile_add_kernel(&P);
				x->start = T + 2000 * r;
				x->end = x->start + 5000;
				x->name = x->dname = gd_profile_intern(&P, nm[q]);
				x->corr = CORR++;
				x->pid = 7 + r;
				x->device = r;
			}
			T += 10000;
		}
	}
	gd_profile_finish(&P);
	gd_steady_find(&P, NULL, &st);
	CHECK_INT(st.period, 4);
	CHECK_INT(gd_summary_compute(&P, &s), GD_OK);
	CHECK_INT(gd_loop_view_compute(&P, &s, st.found, st.k0, st.k1, st.period, st.t0, st.t1, &lv), GD_OK);
	CHECK_INT(lv.opener_runs, 2);
	CHECK_INT(lv.n, 6);
	if (lv.n == 6)
		CHECK_INT(gd_iter_ns(&lv.it[1]), 40000);
	gd_loop_view_free(&lv);
	gd_summary_free(&s);

	/* the opener runs twice per iteration (x y x z): every second run opens one */
	reset();
	for (int i = 0; i < 5; i++)
		k("x", 0), k("y", 0), k("x", 0), k("z", 0);
	gd_profile_finish(&P);
	gd_steady_find(&P, NULL, &st);
	CHECK_INT(gd_summary_compute(&P, &s), GD_OK);
	CHECK_INT(gd_loop_view_compute(&P, &s, st.found, st.k0, st.k1, st.period, st.t0, st.t1, &lv), GD_OK);
	CHECK_INT(lv.opener_runs, 2);
	CHECK_INT(lv.n, 5);
	if (lv.n == 5)
		CHECK_INT(lv.it[1].start, P.k[4].start);
	gd_loop_view_free(&lv);
	gd_summary_free(&s);
}

int main(void)
{
	struct gd_steady st;

	/* cuDNN-style autotuning: the first pass tries candidate kernels around the loop's own
	 * (bn, the most frequent, runs in it too); the loop is the passes after it */
	reset();
	k("init_fill", 0);
	k("try_conv_1", 0), k("try_conv_2", 0), k("conv_a", 0), k("bn", 0), k("try_conv_3", 0), k("conv_b", 0),
		k("bn", 0), k("try_conv_4", 0), k("conv_c", 0), k("bn", 0), k("head", 0);
	for (int i = 0; i < 10; i++)
		pass();
	k("checksum", 0);
	gd_profile_finish(&P);
	gd_steady_find(&P, NULL, &st);
	CHECK_INT(st.found, 1);
	CHECK_INT(st.period, 7);
	/* right after the last kernel that differs from the steady passes: the autotuning pass's
	 * tail (conv_c, bn, head) already is the loop's */
	CHECK_INT(st.k0, 9);
	CHECK_INT(st.k1, (long)P.nk - 2); /* the checksum after the loop is tear-down */
	CHECK_INT(st.repeats, 33);

	/* phases: 5 steps, an evaluation, 5 more steps: the loop starts at the first step, not
	 * after the evaluation where the last stretch begins */
	reset();
	k("upload", 0);
	for (int i = 0; i < 5; i++)
		pass();
	k("eval_metric", 0), k("eval_reduce", 0);
	for (int i = 0; i < 5; i++)
		pass();
	gd_profile_finish(&P);
	gd_steady_find(&P, NULL, &st);
	CHECK_INT(st.period, 7);
	CHECK_INT(st.k0, 1);
	CHECK_INT(st.k1, (long)P.nk - 1);

	/* two streams whose kernels start in a different order each iteration: launch order (the
	 * correlation ids) is what repeats */
	reset();
	k("setup", 0);
	for (int i = 0; i < 8; i++) {
		int64_t skew = (i % 2) ? 3000 : -3000; /* s2's kernel starts before or after s1's */
		k("s1_kernel", 0), k("s2_kernel", skew - 10000), k("bn", 0);
	}
	gd_profile_finish(&P);
	gd_steady_find(&P, NULL, &st);
	CHECK_INT(st.period, 3);
	CHECK(st.k0 >= 1 && st.k0 <= 2); /* the first iteration's first-starting kernel */
	CHECK(st.g0 > P.k[0].end);

	/* no fixed order (every iteration a different sequence): the older rule, from the
	 * anchor's first run */
	reset();
	k("once", 0);
	k("bn", 0), k("x1", 0), k("bn", 0), k("x2", 0), k("x3", 0), k("bn", 0), k("x4", 0), k("bn", 0);
	gd_profile_finish(&P);
	gd_steady_find(&P, NULL, &st);
	CHECK_INT(st.found, 1);
	CHECK_INT(st.k0, 1);

	/* nothing ran three times: no loop, everything judged */
	reset();
	k("a", 0), k("b", 0), k("a", 0), k("b", 0);
	gd_profile_finish(&P);
	gd_steady_find(&P, NULL, &st);
	CHECK_INT(st.found, 0);
	CHECK(gd_steady_in(&st, 0));

	loop_view();
	gd_profile_free(&P);
	return TEST_DONE();
}
