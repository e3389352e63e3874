/* The main loop (analysis/steady.h) on kernel sequences built in memory: where it starts when
 * the first pass differs (autotuning), when the program has phases, when streams interleave,
 * and when nothing repeats in order. */
#include "analysis/steady.h"
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

	gd_profile_free(&P);
	return TEST_DONE();
}
