/* The main loop of a profile; see steady.h.
 *
 * A training or inference loop launches the same kernels in the same order every iteration.
 * The kernel that ran most often (the anchor) certainly ran inside that loop. The kernels are
 * put in the order the host launched them (correlation ids of the process that launched the
 * most kernels; start times would interleave concurrent streams differently each iteration),
 * and the iteration is the period P of that name sequence: for candidate periods taken from
 * the distances between the anchor's last run and its earlier runs, the sequence is walked
 * back from the anchor's last run while name[j] == name[j + P], and forward while
 * name[j] == name[j - P]; the candidate whose periodic stretch covers the most kernels wins
 * (the shortest such period on a tie). The loop starts at the earliest copy of one iteration
 * of that stretch (a program with phases, training with an evaluation every N steps, repeats
 * its iteration in several stretches). That leaves out what ran once (initialisation, weights
 * generated on the GPU), and also a first pass that differs from the rest: cuDNN's
 * autotuning, torch.compile's or a JIT's first call, lazy module loading, which all run the
 * loop's own kernels too, so the anchor's first run cannot tell them apart. The loop ends
 * with the last kernel whose name ran more than once: what follows (a checksum, results copied
 * back) is tear-down.
 *
 * When no candidate repeats at least twice (a program whose kernels do not recur in a fixed
 * order), the loop starts at the anchor's first run, walked back while the sequence matches
 * itself one anchor-distance later.
 * When no kernel ran at least LOOP_MIN_REPEATS times there is no loop to speak of and nothing
 * is set aside: a program whose every kernel runs once is judged whole. */
#include "analysis/steady.h"

#include "analysis/pm_steady.h"
#include "core/stats.h"
#include "core/status.h"

#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* An anchor that ran twice may be two initialisation kernels (fill A, fill B); three runs of
 * the most frequent kernel separate a loop from a pair of set-up calls. */
#define LOOP_MIN_REPEATS 3

/* Candidate periods tried: distances from the anchor's last run to its 1st, 2nd … earlier
 * runs. An iteration of a deep model holds one anchor per layer (ResNet-50: 53 batch norms),
 * so this must exceed the anchors per iteration of real models; 512 covers a 170-layer
 * transformer with three normalisations a layer. */
#define MAX_CANDIDATES 512
/* Name comparisons spent on candidates, per kernel of the profile: a wrong period fails
 * within one iteration, the right one and its multiples walk the whole loop; 64 walks of the
 * whole profile is far more than real profiles need and bounds a hostile one. */
#define BUDGET_PER_KERNEL 64
/* Processes told apart when choosing the one whose launch order is used. */
#define MAX_PROCS 64

struct lk {
	long idx; /* index into p->k (start order) */
	uint32_t corr;
	int64_t start;
};

static int cmp_launch(const void *x, const void *y)
{
	const struct lk *a = x, *b = y;
	if (a->corr != b->corr)
		return a->corr < b->corr ? -1 : 1;
	return a->start < b->start ? -1 : a->start > b->start ? 1 : (a->idx > b->idx) - (a->idx < b->idx);
}

/* The periodic stretch of seq around position `at` (an anchor, so seq[at] == seq[at - P] when
 * P is a distance between two of its runs) for period P: the widest [*lo, *hi] holding at in
 * which seq[j] == seq[j + P] for every j in [*lo, *hi - P]. Returns its length; spends
 * comparisons from *budget. */
static long stretch(const int *seq, long n, long at, long P, long *lo, long *hi, long *budget)
{
	long a = at - P, b = at;
	if (at - P < 0)
		return 0;
	while (a > 0 && *budget > 0 && seq[a - 1] == seq[a - 1 + P])
		a--, (*budget)--;
	while (b + 1 < n && *budget > 0 && seq[b + 1] == seq[b + 1 - P])
		b++, (*budget)--;
	*lo = a;
	*hi = b;
	return b - a + 1;
}

/* The process that launched the most kernels: its launch order is one host's program order. */
static int main_pid(const struct gd_profile *p)
{
	struct {
		int pid;
		long n;
	} pc[MAX_PROCS];
	int npc = 0, pid = p->nk ? p->k[0].pid : 0;
	long bestn = -1;
	for (long i = 0; i < p->nk; i++) {
		int j = 0;
		while (j < npc && pc[j].pid != p->k[i].pid)
			j++;
		if (j == npc) {
			if (npc == MAX_PROCS)
				continue; /* more processes than that: the first ones are considered */
			pc[npc].pid = p->k[i].pid, pc[npc].n = 0, npc++;
		}
		pc[j].n++;
	}
	for (int j = 0; j < npc; j++)
		if (pc[j].n > bestn)
			bestn = pc[j].n, pid = pc[j].pid;
	return pid;
}

/* The period rule: the loop's first kernel (start order), or -1 when no candidate period
 * repeats twice. The stretch found from the anchor's last run may begin late: a program with
 * phases (training steps, an evaluation every N steps, more steps) repeats its iteration in
 * several stretches. So the loop starts at the EARLIEST copy of one iteration of that stretch
 * (P names compared exactly): the first time the program ran an iteration identical to its
 * steady ones. */
static long period_rule(const struct gd_profile *p, int best, long *period)
{
	struct lk *o = malloc((size_t)p->nk * sizeof(*o));
	int *seq = malloc((size_t)p->nk * sizeof(*seq));
	long *anch = malloc((size_t)p->nk * sizeof(*anch));
	long n = 0, na = 0, budget, best_len = 0, best_lo = 0, best_P = 0, first, k0 = -1;
	int pid = main_pid(p);
	if (!o || !seq || !anch)
		goto out;
	for (long i = 0; i < p->nk; i++)
		if (p->k[i].pid == pid)
			o[n++] = (struct lk){i, p->k[i].corr, p->k[i].start};
	qsort(o, (size_t)n, sizeof(*o), cmp_launch);
	for (long i = 0; i < n; i++) {
		seq[i] = p->k[o[i].idx].name;
		if (seq[i] == best)
			anch[na++] = i;
	}
	if (na < LOOP_MIN_REPEATS)
		goto out;
	budget = BUDGET_PER_KERNEL * n + 1000000;
	for (long c = 1; c < na && c <= MAX_CANDIDATES && budget > 0; c++) {
		long P = anch[na - 1] - anch[na - 1 - c], lo = 0, hi = 0, len;
		if (P <= 0 || P == best_P)
			continue;
		len = stretch(seq, n, anch[na - 1], P, &lo, &hi, &budget);
		if (len >= 2 * P && len > best_len)
			best_len = len, best_lo = lo, best_P = P;
	}
	if (!best_len)
		goto out;
	first = best_lo;
	for (long i = 0; i < best_lo && budget > 0; i++) {
		long j = 0;
		while (j < best_P && seq[i + j] == seq[best_lo + j])
			j++;
		budget -= j + 1;
		if (j == best_P) {
			first = i;
			break;
		}
	}
	/* back to start order: the loop begins with the earliest-starting kernel launched from
	 * there on */
	{
		int64_t g0 = INT64_MAX;
		for (long i = first; i < n; i++)
			if (p->k[o[i].idx].start < g0)
				g0 = p->k[o[i].idx].start, k0 = o[i].idx;
	}
	*period = best_P;
out:
	free(o);
	free(seq);
	free(anch);
	return k0;
}

/* The older rule (see the file's comment), on start order: the loop's first kernel. */
static long first_run_start(const struct gd_profile *p, int best, long *period)
{
	long p1 = -1, p2 = -1, k0;
	for (long i = 0; i < p->nk && p2 < 0; i++)
		if (p->k[i].name == best) {
			if (p1 < 0)
				p1 = i;
			else
				p2 = i;
		}
	*period = p2 - p1;
	k0 = p1;
	while (k0 > 0 && k0 - 1 + *period < p->nk && p->k[k0 - 1].name == p->k[k0 - 1 + *period].name)
		k0--;
	return k0;
}

void gd_steady_find(const struct gd_profile *p, const int64_t *launch_start, struct gd_steady *st)
{
	long *count;
	int best = -1;
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
	st->found = 1;
	st->anchor = best;
	st->repeats = count[best];
	st->k0 = period_rule(p, best, &st->period);
	if (st->k0 < 0)
		st->k0 = first_run_start(p, best, &st->period);
	/* the loop ends with the last kernel whose name ran more than once: what follows (a
	 * checksum, results copied back) is tear-down */
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

/* ---- the loop iteration by iteration (steady.h, gd_loop_view) ---- */

/* Adds the part of [a, b) that falls in each iteration to its field at offset `off`; *j is the
 * first iteration that may still overlap (intervals come in time order, so it only moves on). */
static void spread(struct gd_iter *it, long n, long *j, int64_t a, int64_t b, size_t off)
{
	while (*j < n && it[*j].end <= a)
		(*j)++;
	for (long q = *j; q < n && it[q].start < b; q++) {
		int64_t lo = a > it[q].start ? a : it[q].start, hi = b < it[q].end ? b : it[q].end;
		if (hi > lo)
			*(double *)((char *)&it[q] + off) += gd_i64_diff(hi, lo);
	}
}

static void nvml_range(const struct gd_profile *p, int64_t t0, int64_t t1, struct gd_range *r)
{
	memset(r, 0, sizeof(*r));
	for (long i = 0; i < p->ns; i++)
		if (p->s[i].util_gpu >= 0 && p->s[i].t >= t0 && p->s[i].t <= t1)
			gd_range_add(r, p->s[i].util_gpu);
	gd_range_end(r);
}

/* The steady window (steady.h, gd_loop_view.window). */
static void steady_window(const struct gd_profile *p, const struct gd_summary *s, int found, int64_t t0, int64_t t1,
			  struct gd_loop_view *lv)
{
	lv->window = GD_WIN_NONE;
	if (found && t1 > t0) {
		lv->window = GD_WIN_LOOP, lv->w0 = t0, lv->w1 = t1;
		return;
	}
	if (s->nbusy > 0 && s->span_end > s->span_start) {
		lv->window = GD_WIN_SPAN, lv->w0 = s->span_start, lv->w1 = s->span_end;
		return;
	}
	/* light mode: each device's steady part (the samples are in device, then time order) */
	for (long lo = 0, hi; !p->nk && lo < p->npm; lo = hi) {
		struct gd_pm_window w;
		for (hi = lo + 1; hi < p->npm && p->pm[hi].device == p->pm[lo].device; hi++)
			;
		if (gd_pm_window(p->pm, lo, hi, &w) < 0 || w.first < 0 || w.start < 0)
			continue;
		if (lv->window != GD_WIN_PM_STEADY || p->pm[w.start].t_start < lv->w0)
			lv->w0 = p->pm[w.start].t_start;
		if (lv->window != GD_WIN_PM_STEADY || p->pm[w.last].t_end > lv->w1)
			lv->w1 = p->pm[w.last].t_end;
		lv->window = GD_WIN_PM_STEADY;
	}
	if (lv->window == GD_WIN_NONE && p->t_end > p->t_start)
		lv->window = GD_WIN_RUN, lv->w0 = p->t_start, lv->w1 = p->t_end;
}

/* The iterations' boundaries: each run of the opener (in its process) that begins an iteration. */
static long iter_bounds(const struct gd_profile *p, long k0, long k1, long period, int64_t end, struct gd_loop_view *lv)
{
	int opener = p->k[k0].name, pid = p->k[k0].pid;
	long per = 0, runs = 0, n = 0, seen = 0;
	/* the period counts the kernels of the process whose launch order found it: the first
	 * `period` of them from k0 (other ranks' kernels interleave in start order) */
	for (long i = k0; i <= k1 && seen < period; i++)
		if (p->k[i].pid == pid) {
			seen++;
			per += p->k[i].name == opener;
		}
	for (long i = k0; i <= k1; i++)
		runs += p->k[i].name == opener && p->k[i].pid == pid;
	if (per < 1 || runs / per < 2)
		return 0; /* one iteration is no view of iterations */
	lv->it = calloc((size_t)(runs / per + 1), sizeof(*lv->it));
	if (!lv->it)
		return -1;
	runs = 0;
	for (long i = k0; i <= k1; i++)
		if (p->k[i].name == opener && p->k[i].pid == pid && runs++ % per == 0) {
			if (n)
				lv->it[n - 1].end = p->k[i].start;
			lv->it[n++].start = p->k[i].start;
		}
	lv->it[n - 1].end = end > lv->it[n - 1].start ? end : lv->it[n - 1].start;
	lv->opener = opener;
	lv->opener_runs = per;
	return n;
}

int gd_loop_view_compute(const struct gd_profile *p, const struct gd_summary *s, int found, long k0, long k1,
			 long period, int64_t t0, int64_t t1, struct gd_loop_view *lv)
{
	long n, j;
	memset(lv, 0, sizeof(*lv));
	lv->opener = -1;
	lv->slowest = -1;
	lv->median_ns = NAN;
	steady_window(p, s, found, t0, t1, lv);
	nvml_range(p, lv->w0, lv->w1, &lv->nvml_util_loop);
	if (!found || period < 1 || k0 < 0 || k1 >= p->nk || k0 > k1)
		return GD_OK;
	n = iter_bounds(p, k0, k1, period, t1, lv);
	if (n < 0) {
		gd_loop_view_free(lv);
		return GD_EFAIL;
	}
	if (n == 0)
		return GD_OK;
	lv->n = n;
	/* kernel time: the union of the kernels' intervals, merged on the fly (start order) */
	{
		int64_t a = 0, b = 0;
		int open = 0;
		j = 0;
		for (long i = 0; i < p->nk; i++) {
			if (p->k[i].end < p->k[i].start)
				continue;
			if (open && p->k[i].start <= b) {
				if (p->k[i].end > b)
					b = p->k[i].end;
				continue;
			}
			if (open)
				spread(lv->it, n, &j, a, b, offsetof(struct gd_iter, kernel_ns));
			a = p->k[i].start, b = p->k[i].end, open = 1;
		}
		if (open)
			spread(lv->it, n, &j, a, b, offsetof(struct gd_iter, kernel_ns));
	}
	/* busy time (kernels, copies, memsets): the summary's union; copy = busy less kernel */
	j = 0;
	for (long i = 0; i < s->nbusy; i++)
		spread(lv->it, n, &j, s->busy[i].start, s->busy[i].end, offsetof(struct gd_iter, copy_ns));
	double *len = malloc((size_t)n * sizeof(*len));
	if (!len) {
		gd_loop_view_free(lv);
		return GD_EFAIL;
	}
	for (long i = 0; i < n; i++) {
		struct gd_iter *x = &lv->it[i];
		double L = gd_iter_ns(x), busy = x->copy_ns;
		x->copy_ns = busy > x->kernel_ns ? busy - x->kernel_ns : 0;
		x->idle_ns = L > busy ? L - busy : 0;
		len[i] = L;
		if (lv->slowest < 0 || L > gd_iter_ns(&lv->it[lv->slowest]))
			lv->slowest = i;
	}
	{
		struct gd_stats st;
		gd_stats_compute(len, n < INT_MAX ? (int)n : INT_MAX, &st);
		lv->median_ns = st.median;
	}
	free(len);
	return GD_OK;
}

void gd_loop_view_free(struct gd_loop_view *lv)
{
	free(lv->it);
	lv->it = NULL;
	lv->n = 0;
}
