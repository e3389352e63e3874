/* The NVML sampler thread (see sampler.h). */
#include "gpu/sampler.h"

#include "core/stats.h"
#include "core/status.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct gd_sampler {
	pthread_t th;
	pthread_mutex_t mu; /* guards s, slot, n, cap, sweeps */
	atomic_int stop;
	long period_ns;
	int (*setup)(void *arg, int *idx, int max);
	void *arg;
	int idx[GD_SAMPLER_MAX_SLOTS], nslots;
	struct gd_nvml_sample *s;
	int *slot;
	size_t n, cap;
	int sweeps;
};

static void add(struct gd_sampler *sp, int slot, const struct gd_nvml_sample *s)
{
	pthread_mutex_lock(&sp->mu);
	if (sp->n == sp->cap) {
		size_t cap = sp->cap ? sp->cap * 2 : 1024;
		struct gd_nvml_sample *ns = realloc(sp->s, cap * sizeof(*ns));
		int *nsl = ns ? realloc(sp->slot, cap * sizeof(*nsl)) : NULL;
		if (ns)
			sp->s = ns;
		if (nsl)
			sp->slot = nsl;
		if (ns && nsl)
			sp->cap = cap;
	}
	if (sp->n < sp->cap) { /* out of memory: the sample is dropped */
		sp->s[sp->n] = *s;
		sp->slot[sp->n++] = slot;
	}
	pthread_mutex_unlock(&sp->mu);
}

static void *sampler_main(void *arg)
{
	struct gd_sampler *sp = arg;
	struct timespec next;
	if (sp->setup)
		sp->nslots = sp->setup(sp->arg, sp->idx, GD_SAMPLER_MAX_SLOTS);
	if (sp->nslots <= 0 || sp->period_ns <= 0)
		return NULL;
	clock_gettime(CLOCK_MONOTONIC, &next);
	while (!atomic_load(&sp->stop)) {
		for (int d = 0; d < sp->nslots; d++) {
			struct gd_nvml_sample s;
			if (sp->idx[d] >= 0 && gd_nvml_sample(sp->idx[d], &s) == GD_OK)
				add(sp, d, &s);
		}
		pthread_mutex_lock(&sp->mu);
		sp->sweeps++;
		pthread_mutex_unlock(&sp->mu);
		next.tv_nsec += sp->period_ns;
		while (next.tv_nsec >= 1000000000L) {
			next.tv_nsec -= 1000000000L;
			next.tv_sec++;
		}
		/* A sweep slower than the period (PCIe counters block ~20 ms) just runs late. */
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR)
			if (atomic_load(&sp->stop))
				break;
	}
	return NULL;
}

struct gd_sampler *gd_sampler_start(long period_ns, const int *nvml_idx, int nslots,
				    int (*setup)(void *arg, int *idx, int max), void *arg)
{
	struct gd_sampler *sp = calloc(1, sizeof(*sp));
	if (!sp)
		return NULL;
	sp->period_ns = period_ns;
	sp->setup = setup;
	sp->arg = arg;
	if (nslots > GD_SAMPLER_MAX_SLOTS)
		nslots = GD_SAMPLER_MAX_SLOTS;
	for (int i = 0; nvml_idx && i < nslots; i++)
		sp->idx[i] = nvml_idx[i];
	sp->nslots = nvml_idx ? nslots : 0;
	atomic_init(&sp->stop, 0);
	pthread_mutex_init(&sp->mu, NULL);
	if (pthread_create(&sp->th, NULL, sampler_main, sp)) {
		pthread_mutex_destroy(&sp->mu);
		free(sp);
		return NULL;
	}
	return sp;
}

void gd_sampler_stop(struct gd_sampler *s)
{
	if (!s || atomic_exchange(&s->stop, 1))
		return;
	pthread_join(s->th, NULL);
}

void gd_sampler_free(struct gd_sampler *s)
{
	if (!s)
		return;
	gd_sampler_stop(s);
	pthread_mutex_destroy(&s->mu);
	free(s->s);
	free(s->slot);
	free(s);
}

size_t gd_sampler_count(struct gd_sampler *s)
{
	size_t n;
	pthread_mutex_lock(&s->mu);
	n = s->n;
	pthread_mutex_unlock(&s->mu);
	return n;
}

int gd_sampler_sweeps(struct gd_sampler *s)
{
	int n;
	pthread_mutex_lock(&s->mu);
	n = s->sweeps;
	pthread_mutex_unlock(&s->mu);
	return n;
}

const struct gd_nvml_sample *gd_sampler_get(const struct gd_sampler *s, size_t i, int *slot)
{
	if (i >= s->n)
		return NULL;
	if (slot)
		*slot = s->slot[i];
	return &s->s[i];
}

/* ---- summaries (called with the lock held) */

struct acc {
	double *clk, *pw;
	size_t nc, np;
};

static void summary_init(struct gd_sampler_summary *o)
{
	memset(o, 0, sizeof(*o));
	o->sm_mhz_min = o->sm_mhz_max = -1;
	o->sm_mhz_median = o->power_w_max = o->power_w_median = NAN;
}

static void summary_add(struct gd_sampler_summary *o, struct acc *a, const struct gd_nvml_sample *s)
{
	o->n++;
	if (s->sm_mhz >= 0) {
		if (o->sm_mhz_min < 0 || s->sm_mhz < o->sm_mhz_min)
			o->sm_mhz_min = s->sm_mhz;
		if (s->sm_mhz > o->sm_mhz_max)
			o->sm_mhz_max = s->sm_mhz;
	}
	if (s->power_mw >= 0 && !(s->power_mw / 1e3 <= o->power_w_max))
		o->power_w_max = s->power_mw / 1e3;
	/* medians leave zero out too: a 0 MHz or 0 W reading is no reading */
	if (s->sm_mhz > 0 && a->clk)
		a->clk[a->nc++] = s->sm_mhz;
	if (s->power_mw > 0 && a->pw)
		a->pw[a->np++] = s->power_mw / 1000.0;
	if (s->clock_reasons != GD_NVML_UNKNOWN64) {
		o->reasons |= s->clock_reasons;
		o->nreasons++;
	}
}

static void summary_end(struct gd_sampler_summary *o, struct acc *a)
{
	struct gd_stats st;
	if (a->nc) {
		gd_stats_compute(a->clk, (int)a->nc, &st);
		o->sm_mhz_median = st.median;
	}
	if (a->np) {
		gd_stats_compute(a->pw, (int)a->np, &st);
		o->power_w_median = st.median;
	}
	free(a->clk);
	free(a->pw);
}

void gd_sampler_summary(struct gd_sampler *s, size_t from, size_t to, struct gd_sampler_summary *out)
{
	struct acc a = {0};
	summary_init(out);
	pthread_mutex_lock(&s->mu);
	if (to > s->n)
		to = s->n;
	if (to > from) {
		a.clk = malloc((to - from) * sizeof(double));
		a.pw = malloc((to - from) * sizeof(double));
	}
	for (size_t i = from; i < to; i++)
		summary_add(out, &a, &s->s[i]);
	pthread_mutex_unlock(&s->mu);
	summary_end(out, &a);
}

void gd_sampler_window(struct gd_sampler *s, double t0_ns, double t1_ns, double max_gap_ns,
		       struct gd_sampler_summary *out)
{
	struct acc a = {0};
	double nd = INFINITY, mid = 0.5 * (t0_ns + t1_ns);
	size_t nearest = (size_t)-1;
	summary_init(out);
	pthread_mutex_lock(&s->mu);
	if (s->n) {
		a.clk = malloc(s->n * sizeof(double));
		a.pw = malloc(s->n * sizeof(double));
	}
	for (size_t i = 0; i < s->n; i++) {
		double d = fabs(s->s[i].t_ns - mid);
		if (d < nd) {
			nd = d;
			nearest = i;
		}
		if (s->s[i].t_ns >= t0_ns && s->s[i].t_ns <= t1_ns)
			summary_add(out, &a, &s->s[i]);
	}
	if (out->n == 0 && nearest != (size_t)-1 && nd <= max_gap_ns)
		summary_add(out, &a, &s->s[nearest]);
	pthread_mutex_unlock(&s->mu);
	summary_end(out, &a);
}
