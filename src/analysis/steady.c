/* The main loop of a profile; see steady.h.
 *
 * A training or inference loop runs the same kernels in the same order every iteration. The
 * kernel that ran most often (the anchor) certainly ran inside that loop; the distance from its
 * first run to its second is one repetition (or one layer of a repeated block, which is as
 * good: that too repeats only inside the loop). The loop starts where the kernel name
 * sequence first matches itself one repetition later: walking back from the anchor's first
 * run while name[j] == name[j + period]. Kernels before that point ran once (initialisation,
 * weights generated on the GPU, a warm-up pass that differs from the loop) and so does
 * everything the host did before launching the loop's first kernel: model.cuda() uploads,
 * cudaMalloc of the parameters, library handles. The loop ends with the last kernel whose name
 * ran more than once; what follows (a checksum, results copied back) is tear-down.
 *
 * When no kernel ran at least LOOP_MIN_REPEATS times there is no loop to speak of and nothing
 * is set aside: a program whose every kernel runs once is judged whole, as before. */
#include "analysis/steady.h"

#include <stdlib.h>
#include <string.h>

/* An anchor that ran twice may be two initialisation kernels (fill A, fill B); three runs of
 * the most frequent kernel separate a loop from a pair of set-up calls. */
#define LOOP_MIN_REPEATS 3

void gd_steady_find(const struct gd_profile *p, const int64_t *launch_start, struct gd_steady *st)
{
	long *count;
	long best = -1, p1 = -1, p2 = -1;
	memset(st, 0, sizeof(*st));
	st->anchor = -1;
	st->t0 = st->g0 = INT64_MIN;
	st->t1 = st->g1 = INT64_MAX;
	if (p->nk < LOOP_MIN_REPEATS || p->nnames <= 0)
		return;
	count = calloc((size_t)p->nnames, sizeof(*count));
	if (!count)
		return;
	for (long i = 0; i < p->nk; i++)
		if (p->k[i].name >= 0 && p->k[i].name < p->nnames)
			count[p->k[i].name]++;
	/* the most frequent name; ties go to the one that ran first */
	for (long i = 0; i < p->nk; i++) {
		int n = p->k[i].name;
		if (n >= 0 && n < p->nnames && (best < 0 || count[n] > count[best]))
			best = n;
	}
	if (best < 0 || count[best] < LOOP_MIN_REPEATS) {
		free(count);
		return;
	}
	for (long i = 0; i < p->nk && p2 < 0; i++)
		if (p->k[i].name == best) {
			if (p1 < 0)
				p1 = i;
			else
				p2 = i;
		}
	st->found = 1;
	st->anchor = (int)best;
	st->repeats = count[best];
	st->period = p2 - p1;
	st->k0 = p1;
	while (st->k0 > 0 && st->k0 - 1 + st->period < p->nk &&
	       p->k[st->k0 - 1].name == p->k[st->k0 - 1 + st->period].name)
		st->k0--;
	st->k1 = p->nk - 1;
	while (st->k1 > st->k0 && !(p->k[st->k1].name >= 0 && p->k[st->k1].name < p->nnames &&
				    count[p->k[st->k1].name] > 1))
		st->k1--;
	free(count);
	st->g0 = p->k[st->k0].start;
	/* kernels are start-sorted, not end-sorted: the loop's GPU end is the latest end */
	st->g1 = p->k[st->k0].end;
	for (long i = st->k0; i <= st->k1; i++)
		if (p->k[i].end > st->g1)
			st->g1 = p->k[i].end;
	st->t0 = st->g0;
	if (launch_start && launch_start[st->k0] < st->t0)
		st->t0 = launch_start[st->k0];
	st->t1 = st->g1;
}
