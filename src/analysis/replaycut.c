/* The replays of `gpudiag run --metrics` cut out of the analysed timeline (replaycut.h). */
#include "analysis/replaycut.h"

#include "core/status.h"

#include <stdlib.h>
#include <string.h>

static int cmp_iv(const void *x, const void *y)
{
	const struct gd_interval *a = x, *b = y;
	return a->start < b->start ? -1 : a->start > b->start;
}

/* The first of n disjoint intervals in time order whose end (by_end) or start is after t: their
 * starts and ends both ascend. */
static long first_after(const struct gd_interval *iv, long n, int64_t t, int by_end)
{
	long lo = 0, hi = n;
	while (lo < hi) {
		long mid = lo + (hi - lo) / 2;
		if ((by_end ? iv[mid].end : iv[mid].start) <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Adds to *iv the parts of [cur, end) in which nothing of the trace ran (s->busy); 0, or
 * GD_EFAIL (out of memory: *iv freed). *added: whether any part was. */
static int add_idle(const struct gd_summary *s, int64_t cur, int64_t stop, struct gd_interval **iv, long *n,
		    long *cap, int *added)
{
	*added = 0;
	for (long b = first_after(s->busy, s->nbusy, cur, 1);; b++) {
		int64_t end = b < s->nbusy && s->busy[b].start < stop ? s->busy[b].start : stop;
		if (end > cur) {
			if (*n == *cap) {
				long nc = *cap ? 2 * *cap : 16;
				struct gd_interval *t = realloc(*iv, (size_t)nc * sizeof(**iv));
				if (!t) {
					free(*iv);
					*iv = NULL;
					return GD_EFAIL;
				}
				*iv = t, *cap = nc;
			}
			(*iv)[*n].start = cur, (*iv)[*n].end = end;
			(*n)++;
			*added = 1;
		}
		if (!(b < s->nbusy && s->busy[b].start < stop))
			break;
		if (s->busy[b].end > cur)
			cur = s->busy[b].end;
		if (cur >= stop)
			break;
	}
	return GD_OK;
}

int gd_replay_cut_find(const struct gd_profile *p, const struct gd_summary *s, struct gd_replay_cut *c)
{
	long cap = 0, n = 0, m = 0;
	struct gd_interval *iv = NULL;
	int added;
	memset(c, 0, sizeof(*c));
	if (!p->nkl && !p->nrw)
		return GD_OK;
	for (long i = 0; i < p->na; i++) {
		const struct gd_papi *a = &p->a[i];
		long k = a->corr ? gd_profile_find_klaunch(p, a->pid, a->corr) : -1;
		int64_t cur = a->start, prof;
		if (k < 0 || (p->kl[k].status != GD_KL_OK && p->kl[k].status != GD_KL_ERROR) || a->end <= a->start)
			continue;
		/* the profiling's own wall time, when longer than the call: a profile recorded before
		 * the call's start was taken ahead of the memory save (direct driver launches) */
		prof = p->kl[k].profile_ns;
		if (prof > 0 && prof < a->end && a->end - prof < cur)
			cur = a->end - prof;
		/* the call less the busy time inside it */
		if (add_idle(s, cur, a->end, &iv, &n, &cap, &added) != GD_OK)
			return GD_EFAIL;
		c->launches += added;
	}
	/* the windows of batched replays (--metrics-batch), wherever they ran: in a launch's call,
	 * a synchronisation or a free */
	for (long i = 0; i < p->nrw; i++)
		if (add_idle(s, p->rw[i].start, p->rw[i].end, &iv, &n, &cap, &added) != GD_OK)
			return GD_EFAIL;
	if (!n) {
		free(iv);
		c->launches = 0;
		return GD_OK;
	}
	/* calls of several threads may overlap: merge */
	qsort(iv, (size_t)n, sizeof(*iv), cmp_iv);
	for (long i = 1; i < n; i++) {
		if (iv[i].start <= iv[m].end) {
			if (iv[i].end > iv[m].end)
				iv[m].end = iv[i].end;
		} else {
			iv[++m] = iv[i];
		}
	}
	n = m + 1;
	c->before = malloc((size_t)n * sizeof(*c->before));
	if (!c->before) {
		free(iv);
		memset(c, 0, sizeof(*c));
		return GD_EFAIL;
	}
	for (long i = 0; i < n; i++) {
		c->before[i] = c->total_ns;
		c->total_ns += iv[i].end - iv[i].start;
	}
	c->iv = iv;
	c->n = n;
	return GD_OK;
}

int64_t gd_replay_cut_map(const struct gd_replay_cut *c, int64_t t)
{
	long lo = first_after(c->iv, c->n, t, 0); /* then lo - 1: the last cut that starts at or before t */
	if (lo == 0)
		return t;
	lo--;
	if (t < c->iv[lo].end)
		return c->iv[lo].start - c->before[lo];
	return t - c->before[lo] - (c->iv[lo].end - c->iv[lo].start);
}

/* Every timestamp the profile holds: the trace's kernels, copies (and memsets), API calls,
 * NVTX ranges (an open end, -1, stays), NVML samples, memory events, PM samples and the
 * capture window (0: unknown, stays). */
void gd_replay_cut_apply(struct gd_profile *p, const struct gd_replay_cut *c)
{
#define MAP(x) ((x) = gd_replay_cut_map(c, (x)))
	if (!c->n)
		return;
	for (long i = 0; i < p->nk; i++)
		MAP(p->k[i].start), MAP(p->k[i].end);
	for (long i = 0; i < p->nc; i++)
		MAP(p->c[i].start), MAP(p->c[i].end);
	for (long i = 0; i < p->na; i++)
		MAP(p->a[i].start), MAP(p->a[i].end);
	for (long i = 0; i < p->nnv; i++) {
		MAP(p->nv[i].start);
		if (p->nv[i].end >= 0)
			MAP(p->nv[i].end);
	}
	for (long i = 0; i < p->ns; i++)
		MAP(p->s[i].t);
	for (long i = 0; i < p->nm; i++)
		MAP(p->m[i].t);
	for (long i = 0; i < p->npm; i++)
		MAP(p->pm[i].t_start), MAP(p->pm[i].t_end);
	if (p->t_start)
		MAP(p->t_start);
	if (p->t_end)
		MAP(p->t_end);
#undef MAP
}

void gd_replay_cut_free(struct gd_replay_cut *c)
{
	free(c->iv);
	free(c->before);
	memset(c, 0, sizeof(*c));
}
