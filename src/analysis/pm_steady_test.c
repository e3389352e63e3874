/* The steady part of PM samples (analysis/pm_steady.h) on timelines built in memory: start-up
 * then a loop, a loop that idles every iteration, a start-up longer than the loop, a busy
 * stretch followed by a quiet one, grids too small for the SM test, and degenerate input. */
#include "analysis/pm_steady.h"
#include "core/test.h"

#include <math.h>

#define N_MAX 20000
static struct gd_pm_sample S[N_MAX];
static long n;

static void reset(void) { n = 0; }

/* one 100 us sample, SM and GR active in % (NaN: not sampled) */
static void add(double sm, double gr)
{
	struct gd_pm_sample *x = &S[n];
	for (int m = 0; m < GD_PM_COUNT; m++)
		x->v[m] = NAN;
	x->device = 0;
	x->t_start = 1000000000LL + n * 100000LL;
	x->t_end = x->t_start + 100000;
	x->v[GD_PM_SM_ACTIVE] = sm;
	x->v[GD_PM_GR_ACTIVE] = gr;
	n++;
}

static void run(struct gd_pm_window *w) { CHECK_INT(gd_pm_window(S, 0, n, w), 0); }

int main(void)
{
	struct gd_pm_window w;

	/* a steady loop at 95 %: no step, the whole active span judged */
	reset();
	for (int i = 0; i < 3000; i++)
		add(90, 95);
	run(&w);
	CHECK_INT(w.steps, 0);
	CHECK_INT(w.start, 0);
	CHECK_INT(w.n, 3000);
	CHECK_NEAR(w.busy, 0.95, 1e-9);
	CHECK_NEAR(w.sm_busy, 0.90, 1e-9);
	CHECK(w.gr);
	CHECK(isnan(w.warm_busy));

	/* start-up (a burst every 10 samples: library set-up, first iterations) for 2000
	 * samples, then the loop at 95 % for 3000: the start-up is not judged */
	reset();
	add(0, 0); /* before the first work: outside the active span */
	for (int i = 0; i < 2000; i++)
		add(i % 10 == 0 ? 80 : 0, i % 10 == 0 ? 100 : 0);
	for (int i = 0; i < 3000; i++)
		add(90, 95);
	run(&w);
	CHECK_INT(w.first, 1);
	CHECK_INT(w.steps, 1);
	CHECK(w.start >= 1995 && w.start <= 2001);
	CHECK_NEAR(w.busy, 0.95, 0.002);
	CHECK_NEAR(w.warm_busy, 0.10, 0.002);
	CHECK_NEAR(w.warm_ns, (double)(w.start - 1) * 100000, 1);
	CHECK(w.step_r2 >= GD_PM_STEP_R2 && w.step_r2 <= 1);

	/* a loop that idles 80 % of every iteration (2 busy samples, 8 idle): its idle stays
	 * judged, whatever split is tried */
	reset();
	for (int i = 0; i < 5000; i++)
		add(i % 10 < 2 ? 90 : 0, i % 10 < 2 ? 100 : 0);
	run(&w);
	CHECK_INT(w.steps, 0);
	CHECK_NEAR(w.busy, 0.2, 0.001);
	CHECK_INT(w.nidle, 4000 - 8); /* the idle samples after the last busy one are outside */

	/* slow iterations (200 samples busy, 800 idle): the period is long, no split is a step */
	reset();
	for (int i = 0; i < 10000; i++)
		add(i % 1000 < 200 ? 90 : 0, i % 1000 < 200 ? 100 : 0);
	run(&w);
	CHECK_INT(w.steps, 0);

	/* start-up nine times longer than the loop (model built on the host between a few
	 * kernels): still start-up */
	reset();
	for (int i = 0; i < 9000; i++)
		add(i % 100 == 0 ? 50 : 0, i % 100 == 0 ? 60 : 0);
	for (int i = 0; i < 1000; i++)
		add(95, 99);
	run(&w);
	CHECK_INT(w.steps, 1);
	CHECK_NEAR(w.busy, 0.99, 0.002);

	/* busy, then a quiet stretch with some work: not start-up, all of it judged */
	reset();
	for (int i = 0; i < 3000; i++)
		add(90, 95);
	for (int i = 0; i < 3000; i++)
		add(10, 10);
	run(&w);
	CHECK_INT(w.steps, 0);
	CHECK_NEAR(w.busy, 0.525, 1e-9);

	/* GR not sampled on one sample: the span reads SM active */
	reset();
	for (int i = 0; i < 300; i++)
		add(60, i == 100 ? NAN : 97);
	run(&w);
	CHECK(!w.gr);
	CHECK_NEAR(w.busy, 0.60, 1e-9);

	/* grids of a block: SM active never reaches the line, the engine does */
	reset();
	for (int i = 0; i < 500; i++)
		add(0.3, 0);
	for (int i = 0; i < 1000; i++)
		add(0.3, 40);
	for (int i = 0; i < 500; i++)
		add(0.3, 0);
	run(&w);
	CHECK_INT(w.first, 500);
	CHECK_INT(w.last, 1499);
	CHECK_NEAR(w.busy, 0.40, 1e-9);
	CHECK_INT(w.nidle, 1000);

	/* too few samples for a step (50 each side) */
	reset();
	for (int i = 0; i < 40; i++)
		add(1, 0);
	for (int i = 0; i < 40; i++)
		add(95, 99);
	add(0, 0);
	run(&w);
	CHECK_INT(w.steps, 0);

	/* nothing worked; nothing sampled; no sample at all */
	reset();
	for (int i = 0; i < 100; i++)
		add(1, 2);
	run(&w);
	CHECK_INT(w.first, -1);
	reset();
	for (int i = 0; i < 10; i++)
		add(NAN, NAN);
	CHECK_INT(gd_pm_window(S, 0, n, &w), -1);
	CHECK_INT(gd_pm_window(S, 0, 0, &w), -1);
	CHECK_INT(w.first, -1);
	return TEST_DONE();
}
