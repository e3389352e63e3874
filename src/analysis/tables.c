/* The statistics tables of a profile: API calls, NVTX ranges, streams, threads (tables.h says
 * what each figure counts). One pass over each event array, groups found through a small
 * hash of their keys, so a profile of a million calls costs well under a second. */
#include "analysis/tables.h"

#include "analysis/framework.h"
#include "core/safe_int.h"
#include "core/status.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *gd_copy_kind_name(int k)
{
	static const char *const n[] = {"unknown", "HtoD", "DtoH", "HtoA", "AtoH", "AtoA",
					"AtoD",    "DtoA", "DtoD", "HtoH", "PtoP"};
	return k >= 0 && k <= 10 ? n[k] : "unknown";
}

const char *gd_memory_kind_name(int k)
{
	static const char *const n[] = {"unknown", "pageable", "pinned",        "device",
					"array",   "managed",  "device static", "managed static"};
	return k >= 0 && k <= 7 ? n[k] : "unknown";
}

/* ---- a hash of up to three integer keys → a row index ---- */
struct hkey {
	int64_t a, b, c;
};

struct hmap {
	struct hkey *k;
	long *v;       /* row index, -1 empty */
	long cap, n;   /* cap: a power of two */
};

static uint64_t hash3(struct hkey k)
{
	uint64_t h = 1469598103934665603ULL;
	h = (h ^ (uint64_t)k.a) * 1099511628211ULL;
	h = (h ^ (uint64_t)k.b) * 1099511628211ULL;
	h = (h ^ (uint64_t)k.c) * 1099511628211ULL;
	return h ^ (h >> 29);
}

static int hmap_grow(struct hmap *m)
{
	long ncap = m->cap ? m->cap * 2 : 64;
	struct hkey *nk = malloc((size_t)ncap * sizeof(*nk));
	long *nv = malloc((size_t)ncap * sizeof(*nv));
	if (!nk || !nv) {
		free(nk);
		free(nv);
		return -1;
	}
	for (long i = 0; i < ncap; i++)
		nv[i] = -1;
	for (long i = 0; i < m->cap; i++) {
		uint64_t h;
		if (m->v[i] < 0)
			continue;
		h = hash3(m->k[i]) & (uint64_t)(ncap - 1);
		while (nv[h] >= 0)
			h = (h + 1) & (uint64_t)(ncap - 1);
		nk[h] = m->k[i];
		nv[h] = m->v[i];
	}
	free(m->k);
	free(m->v);
	m->k = nk;
	m->v = nv;
	m->cap = ncap;
	return 0;
}

/* The row of key k; when absent, `next` is stored for it and *added set. -1: out of memory. */
static long hmap_get(struct hmap *m, struct hkey k, long next, int *added)
{
	uint64_t h;
	*added = 0;
	if ((m->n + 1) * 2 > m->cap && hmap_grow(m))
		return -1;
	h = hash3(k) & (uint64_t)(m->cap - 1);
	while (m->v[h] >= 0) {
		if (m->k[h].a == k.a && m->k[h].b == k.b && m->k[h].c == k.c)
			return m->v[h];
		h = (h + 1) & (uint64_t)(m->cap - 1);
	}
	m->k[h] = k;
	m->v[h] = next;
	m->n++;
	*added = 1;
	return next;
}

static void hmap_free(struct hmap *m)
{
	free(m->k);
	free(m->v);
	memset(m, 0, sizeof(*m));
}

/* Rows appended one at a time; *cap doubles. */
static void *row_add(void *arr, long *n, long *cap, size_t size)
{
	void *na = arr;
	if (*n >= *cap) {
		long nc = *cap ? *cap * 2 : 16;
		na = realloc(arr, (size_t)nc * size);
		if (!na)
			return NULL;
		*cap = nc;
	}
	memset((char *)na + (size_t)*n * size, 0, size);
	(*n)++;
	return na;
}

/* Welford's running mean and squared deviations: stable where mean ≫ spread. */
struct run {
	long n;
	double sum, mean, m2, min, max;
};

static void run_add(struct run *r, double x)
{
	double d;
	if (!r->n || x < r->min)
		r->min = x;
	if (!r->n || x > r->max)
		r->max = x;
	r->n++;
	r->sum += x;
	d = x - r->mean;
	r->mean += d / (double)r->n;
	r->m2 += d * (x - r->mean);
}

/* The population standard deviation, as nsys's StdDev (0 for one value). */
static double run_std(const struct run *r) { return r->n ? sqrt(r->m2 / (double)r->n) : NAN; }

/* ---- API calls by name ---- */
static int cmp_api(const void *x, const void *y)
{
	const struct gd_api_row *a = x, *b = y;
	if (a->total_ns != b->total_ns)
		return a->total_ns > b->total_ns ? -1 : 1;
	return a->name < b->name ? -1 : a->name > b->name;
}

static int api_table(const struct gd_profile *p, struct gd_stat_tables *t)
{
	/* by name id: nnames slots, and one for calls whose name is unknown */
	long nslots = (long)p->nnames + 1, cap = 0;
	long *slot = malloc((size_t)nslots * sizeof(*slot));
	struct run *rs = NULL;
	if (!slot)
		return GD_EFAIL;
	for (long i = 0; i < nslots; i++)
		slot[i] = -1;
	for (long i = 0; i < p->na; i++) {
		const struct gd_papi *c = &p->a[i];
		long s = c->name >= 0 && c->name < p->nnames ? c->name : nslots - 1;
		/* exact: the difference is taken in 64 bits, then made a double (a hostile file may hold
		 * any int64, and (double)end - (double)start would round each CLOCK_REALTIME time to
		 * 256 ns: a 4 µs call read as 3.84) */
		double d = gd_i64_diff(c->end, c->start);
		if (slot[s] < 0) {
			void *na = row_add(t->api, &t->napi, &cap, sizeof(*t->api));
			struct run *nr;
			if (!na)
				goto oom;
			t->api = na;
			nr = realloc(rs, (size_t)cap * sizeof(*rs));
			if (!nr)
				goto oom;
			rs = nr;
			slot[s] = t->napi - 1;
			memset(&rs[slot[s]], 0, sizeof(*rs));
			t->api[slot[s]].name = s == nslots - 1 ? -1 : (int)s;
			t->api[slot[s]].cat = c->cat;
		}
		run_add(&rs[slot[s]], d);
		t->api_ns += d;
	}
	for (long i = 0; i < t->napi; i++) {
		struct gd_api_row *r = &t->api[i];
		r->count = rs[i].n;
		r->total_ns = rs[i].sum;
		r->mean_ns = rs[i].mean;
		r->min_ns = rs[i].min;
		r->max_ns = rs[i].max;
		r->std_ns = run_std(&rs[i]);
		r->fraction = t->api_ns > 0 ? r->total_ns / t->api_ns : NAN;
	}
	if (t->napi > 1)
		qsort(t->api, (size_t)t->napi, sizeof(*t->api), cmp_api);
	free(slot);
	free(rs);
	return GD_OK;
oom:
	free(slot);
	free(rs);
	return GD_EFAIL;
}

/* ---- threads ---- */
static int cmp_thread(const void *x, const void *y)
{
	const struct gd_thread_row *a = x, *b = y;
	if (a->api_ns != b->api_ns)
		return a->api_ns > b->api_ns ? -1 : 1;
	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	return a->tid < b->tid ? -1 : a->tid > b->tid;
}

static struct gd_thread_row *thread_row(struct gd_stat_tables *t, struct hmap *m, long *cap, int pid, int tid)
{
	int added;
	long r = hmap_get(m, (struct hkey){pid, tid, 0}, t->nthreads, &added);
	if (r < 0)
		return NULL;
	if (added) {
		void *na = row_add(t->threads, &t->nthreads, cap, sizeof(*t->threads));
		if (!na)
			return NULL;
		t->threads = na;
		t->threads[r].pid = pid;
		t->threads[r].tid = (long long)(uint32_t)tid; /* read as an int, numbered unsigned */
	}
	return &t->threads[r];
}

static int thread_table(const struct gd_profile *p, struct gd_stat_tables *t)
{
	struct hmap m = {0};
	long cap = 0;
	for (long i = 0; i < p->na; i++) {
		const struct gd_papi *c = &p->a[i];
		struct gd_thread_row *r = thread_row(t, &m, &cap, c->pid, c->tid);
		double d = gd_i64_diff(c->end, c->start);
		if (!r)
			goto oom;
		r->api_calls++;
		r->api_ns += d;
		if (c->cat == GD_API_LAUNCH) {
			r->launches++;
			r->launch_ns += d;
		} else if (c->cat == GD_API_SYNC || c->cat == GD_API_COPY_SYNC) {
			r->syncs++;
			r->sync_ns += d;
		}
	}
	for (long i = 0; i < p->nnv; i++) {
		struct gd_thread_row *r;
		if (p->nv[i].mark)
			continue;
		if (!(r = thread_row(t, &m, &cap, p->nv[i].pid, p->nv[i].tid)))
			goto oom;
		r->nvtx_ranges++;
	}
	if (t->nthreads > 1)
		qsort(t->threads, (size_t)t->nthreads, sizeof(*t->threads), cmp_thread);
	hmap_free(&m);
	return GD_OK;
oom:
	hmap_free(&m);
	return GD_EFAIL;
}

/* ---- streams ---- */
static int cmp_stream(const void *x, const void *y)
{
	const struct gd_stream_row *a = x, *b = y;
	if (a->busy_ns != b->busy_ns)
		return a->busy_ns > b->busy_ns ? -1 : 1;
	if (a->device != b->device)
		return a->device < b->device ? -1 : 1;
	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	return a->stream < b->stream ? -1 : a->stream > b->stream;
}

static int stream_table(const struct gd_profile *p, struct gd_stat_tables *t)
{
	struct hmap m = {0};
	long cap = 0, ik = 0, ic = 0;
	int64_t *cur = NULL; /* per row: the end of the union so far */
	/* kernels and copies each come in start order: merged, every stream's operations are seen
	 * in start order, and the union of their intervals grows by what each adds past the end */
	while (ik < p->nk || ic < p->nc) {
		int is_k = ic >= p->nc || (ik < p->nk && p->k[ik].start <= p->c[ic].start);
		int64_t st = is_k ? p->k[ik].start : p->c[ic].start, en = is_k ? p->k[ik].end : p->c[ic].end;
		int dev = is_k ? p->k[ik].device : p->c[ic].device, pid = is_k ? p->k[ik].pid : p->c[ic].pid;
		int64_t stream = is_k ? p->k[ik].stream : p->c[ic].stream;
		int added;
		long r = hmap_get(&m, (struct hkey){dev, pid, stream}, t->nstreams, &added);
		struct gd_stream_row *s;
		if (r < 0)
			goto oom;
		if (added) {
			void *na = row_add(t->streams, &t->nstreams, &cap, sizeof(*t->streams));
			int64_t *nc;
			if (!na)
				goto oom;
			t->streams = na;
			if (!(nc = realloc(cur, (size_t)cap * sizeof(*cur))))
				goto oom;
			cur = nc;
			s = &t->streams[r];
			s->device = dev, s->pid = pid, s->stream = stream;
			s->legacy = is_k ? p->k[ik].legacy : p->c[ic].legacy;
			s->nonblocking = is_k ? p->k[ik].nonblocking : p->c[ic].nonblocking;
			s->first = st;
			s->last = en;
			cur[r] = st;
		}
		s = &t->streams[r];
		if (is_k) {
			s->kernels++;
			s->kernel_ns += gd_i64_diff(en, st);
			ik++;
		} else {
			s->copies++;
			s->copy_ns += gd_i64_diff(en, st);
			s->copy_bytes += (double)p->c[ic].bytes;
			ic++;
		}
		if (en > cur[r]) {
			s->busy_ns += gd_i64_diff(en, st > cur[r] ? st : cur[r]);
			cur[r] = en;
		}
		if (en > s->last)
			s->last = en;
	}
	if (t->nstreams > 1)
		qsort(t->streams, (size_t)t->nstreams, sizeof(*t->streams), cmp_stream);
	free(cur);
	hmap_free(&m);
	return GD_OK;
oom:
	free(cur);
	hmap_free(&m);
	return GD_EFAIL;
}

/* ---- NVTX ranges ---- */
/* A GPU operation by the thread and time of the API call that launched it. */
struct launch {
	int pid, tid;
	int64_t t;             /* the launching call's start */
	int64_t start, end;    /* on the GPU */
	int kernel;
};

static int cmp_launch(const void *x, const void *y)
{
	const struct launch *a = x, *b = y;
	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	return a->t < b->t ? -1 : a->t > b->t;
}

/* API calls by (pid, correlation id), to find the call that launched a GPU operation. */
struct corr {
	int pid;
	uint32_t corr;
	long api;
};

static int cmp_corr(const void *x, const void *y)
{
	const struct corr *a = x, *b = y;
	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	return a->corr < b->corr ? -1 : a->corr > b->corr;
}

int gd_launch_calls(const struct gd_profile *p, long *out)
{
	struct corr *c = malloc(((size_t)p->na + 1) * sizeof(*c));
	long nc = 0;
	if (!c)
		return GD_EFAIL;
	for (long i = 0; i < p->na; i++)
		if (p->a[i].corr)
			c[nc++] = (struct corr){p->a[i].pid, p->a[i].corr, i};
	qsort(c, (size_t)nc, sizeof(*c), cmp_corr);
	for (long i = 0; i < p->nk + p->nc; i++) {
		int is_k = i < p->nk;
		struct corr want = {is_k ? p->k[i].pid : p->c[i - p->nk].pid, is_k ? p->k[i].corr : p->c[i - p->nk].corr, 0};
		const struct corr *hit = want.corr ? bsearch(&want, c, (size_t)nc, sizeof(*c), cmp_corr) : NULL;
		out[i] = hit ? hit->api : -1;
	}
	free(c);
	return GD_OK;
}

/* The GPU operations whose launching call is known, by (pid, tid, launch time); *n set. */
static struct launch *launches(const struct gd_profile *p, long *n)
{
	long *call = malloc(((size_t)p->nk + (size_t)p->nc + 1) * sizeof(*call));
	struct launch *l = malloc(((size_t)p->nk + (size_t)p->nc + 1) * sizeof(*l));
	long nl = 0;
	*n = 0;
	if (!call || !l || gd_launch_calls(p, call) != GD_OK) {
		free(call);
		free(l);
		return NULL;
	}
	for (long i = 0; i < p->nk + p->nc; i++) {
		int is_k = i < p->nk;
		const struct gd_papi *a = call[i] >= 0 ? &p->a[call[i]] : NULL;
		if (!a)
			continue;
		l[nl++] = (struct launch){a->pid, a->tid, a->start, is_k ? p->k[i].start : p->c[i - p->nk].start,
					  is_k ? p->k[i].end : p->c[i - p->nk].end, is_k};
	}
	free(call);
	qsort(l, (size_t)nl, sizeof(*l), cmp_launch);
	*n = nl;
	return l;
}

static int cmp_nvtx(const void *x, const void *y)
{
	const struct gd_nvtx_row *a = x, *b = y;
	if (a->total_ns != b->total_ns)
		return a->total_ns > b->total_ns ? -1 : 1;
	if (a->name != b->name)
		return a->name < b->name ? -1 : 1;
	return a->domain < b->domain ? -1 : a->domain > b->domain;
}

static void free_labels(int *group, char **labels, long n)
{
	for (long i = 0; i < n; i++)
		free(labels[i]);
	free(labels);
	free(group);
}

static int nvtx_table(const struct gd_profile *p, struct gd_stat_tables *t)
{
	struct hmap m = {0};
	struct run *rs = NULL;
	struct launch *l = NULL;
	long cap = 0, nl = 0;
	int any_closed = 0, *group = NULL;
	char **labels = NULL;
	long nlabels = 0;
	for (long i = 0; i < p->nnv; i++)
		any_closed |= !p->nv[i].mark && p->nv[i].end >= 0;
	if (any_closed && !(l = launches(p, &nl)))
		return GD_EFAIL;
	/* PyTorch's op ranges by op name: their messages differ in every call (op_id) */
	if (p->nnv && (!(group = malloc(((size_t)p->nnames + 1) * sizeof(*group))) ||
		       gd_fw_op_name_groups(p, group, &labels, &nlabels) != GD_OK)) {
		free(group);
		group = NULL;
		goto oom;
	}
	for (long i = 0; i < p->nnv; i++) {
		const struct gd_pnvtx *v = &p->nv[i];
		struct gd_nvtx_row *r;
		int added, g;
		long ri;
		if (v->mark) {
			t->nvtx_marks++;
			continue;
		}
		g = v->name >= 0 && v->name < p->nnames ? group[v->name] : -1;
		ri = hmap_get(&m, g >= 0 ? (struct hkey){v->domain, g, 1} : (struct hkey){v->domain, v->name, 0}, t->nnvtx,
			      &added);
		if (ri < 0)
			goto oom;
		if (added) {
			void *na = row_add(t->nvtx, &t->nnvtx, &cap, sizeof(*t->nvtx));
			struct run *nr;
			if (!na)
				goto oom;
			t->nvtx = na;
			if (!(nr = realloc(rs, (size_t)cap * sizeof(*rs))))
				goto oom;
			rs = nr;
			memset(&rs[ri], 0, sizeof(*rs));
			t->nvtx[ri].name = v->name;
			t->nvtx[ri].domain = v->domain;
			t->nvtx[ri].gpu_proj_ns = NAN;
			if (g >= 0 && !(t->nvtx[ri].label = strdup(labels[g])))
				goto oom;
		}
		r = &t->nvtx[ri];
		if (v->end < 0) {
			r->open++;
			continue;
		}
		run_add(&rs[ri], gd_i64_diff(v->end, v->start));
		{
			/* the first launch of this thread at or after the range's start */
			struct launch want = {v->pid, v->tid, v->start, 0, 0, 0};
			long lo = 0, hi = nl;
			int64_t first = INT64_MAX, last = INT64_MIN;
			while (lo < hi) {
				long mid = lo + (hi - lo) / 2;
				if (cmp_launch(&l[mid], &want) < 0)
					lo = mid + 1;
				else
					hi = mid;
			}
			for (; lo < nl && l[lo].pid == v->pid && l[lo].tid == v->tid && l[lo].t <= v->end; lo++) {
				r->gpu_ops++;
				if (l[lo].kernel) {
					r->kernels++;
					r->kernel_ns += gd_i64_diff(l[lo].end, l[lo].start);
				}
				first = l[lo].start < first ? l[lo].start : first;
				last = l[lo].end > last ? l[lo].end : last;
			}
			if (last > first)
				r->gpu_proj_ns = (isnan(r->gpu_proj_ns) ? 0 : r->gpu_proj_ns) + gd_i64_diff(last, first);
		}
	}
	for (long i = 0; i < t->nnvtx; i++) {
		struct gd_nvtx_row *r = &t->nvtx[i];
		r->count = rs[i].n;
		r->total_ns = rs[i].sum;
		r->mean_ns = rs[i].n ? rs[i].mean : NAN;
		r->min_ns = rs[i].n ? rs[i].min : NAN;
		r->max_ns = rs[i].n ? rs[i].max : NAN;
		r->std_ns = run_std(&rs[i]);
	}
	if (t->nnvtx > 1)
		qsort(t->nvtx, (size_t)t->nnvtx, sizeof(*t->nvtx), cmp_nvtx);
	free_labels(group, labels, nlabels);
	free(rs);
	free(l);
	hmap_free(&m);
	return GD_OK;
oom:
	free_labels(group, labels, nlabels);
	free(rs);
	free(l);
	hmap_free(&m);
	return GD_EFAIL;
}

int gd_stat_tables_compute(const struct gd_profile *p, struct gd_stat_tables *t)
{
	memset(t, 0, sizeof(*t));
	if (api_table(p, t) || thread_table(p, t) || stream_table(p, t) || nvtx_table(p, t)) {
		gd_stat_tables_free(t);
		return GD_EFAIL;
	}
	return GD_OK;
}

void gd_stat_tables_free(struct gd_stat_tables *t)
{
	free(t->api);
	for (long i = 0; i < t->nnvtx; i++)
		free(t->nvtx[i].label);
	free(t->nvtx);
	free(t->streams);
	free(t->threads);
	memset(t, 0, sizeof(*t));
}
