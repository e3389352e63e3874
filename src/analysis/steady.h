/* The steady state of a profile: where the program's main loop starts and ends, found once
 * from the kernel trace and used by every rule that must tell one-off start-up work (context
 * and library initialisation, model upload, the first iteration's lazy loading) from work the
 * loop repeats. See docs/verdicts.md, "The main loop". */
#ifndef GPUDIAG_STEADY_H
#define GPUDIAG_STEADY_H

#include "profile/profile.h"

#include <stdint.h>

struct gd_steady {
	int found;          /* 1: a repeating kernel sequence was found; 0: everything is judged */
	int anchor;         /* name id of the most frequent kernel, whose repetition defines the loop */
	long repeats;       /* how many times the anchor ran */
	long period;        /* kernels in one iteration (launch order); or, when no period repeats,
			       from the anchor's first run to its second */
	long k0, k1;        /* first and last kernel of the loop, indices into p->k */
	int64_t g0, g1;     /* GPU: start of kernel k0, end of kernel k1 */
	int64_t t0, t1;     /* host and GPU: the launch call of kernel k0 (or its start) .. g1 */
};

/* Finds the loop. launch_start[i] is the start of kernel i's launch call, or INT64_MAX when
 * unknown (NULL: none known). Never fails: without a loop, found = 0 and the window is the
 * whole profile. */
void gd_steady_find(const struct gd_profile *p, const int64_t *launch_start, struct gd_steady *st);

/* 1 when an event starting at t belongs to the loop (or no loop was found). */
static inline int gd_steady_in(const struct gd_steady *st, int64_t t)
{
	return !st->found || (t >= st->t0 && t <= st->t1);
}

#endif
