/* Several profiles of one job, judged together (issue 22): `gpudiag report A B ...` and
 * `gpudiag diff` with several profiles a side. A job over several nodes writes one profile per
 * node (each `gpudiag run` sees only its own processes); this file puts them on one clock and
 * merges them into one in-memory profile, which the ordinary analysis then reads.
 *
 * Clocks. Each node's times are on its own CLOCK_REALTIME, which NTP keeps within milliseconds
 * at best. The collectives give a far better reference: a collective completes on every rank at
 * nearly the same moment (the last data arrives everywhere together; a late rank delays the
 * start of the others' kernels, not their ends). For node k, each collective it shares with
 * node 0 (matched by communicator signature and order, ranks.h) gives one estimate, the median
 * end on node 0 less the median end on node k; the offset applied is the median of those
 * estimates and its uncertainty their median absolute deviation. One constant offset is
 * assumed: a drift between the clocks over the capture shows up as a larger uncertainty. */
#include "analysis/analysis.h"

#include "analysis/ranks.h"
#include "core/fileio.h"
#include "core/status.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_dbl(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return a < b ? -1 : a > b;
}

static double median(double *v, long n)
{
	qsort(v, (size_t)n, sizeof(double), cmp_dbl);
	return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Node k's clock against node 0's (see the top of the file). */
static int align(const struct gd_coll_timelines *t0, const struct gd_profile *pk, struct gd_node *nd)
{
	struct gd_coll_timelines tk;
	double *d = NULL;
	long n = 0, cap = 0;
	int differ = 0;
	nd->aligned = 0;
	nd->offset_ns = 0;
	nd->uncertainty_ns = NAN;
	nd->matched = 0;
	if (gd_coll_timelines(pk, &tk) != GD_OK)
		return GD_EFAIL;
	for (int a = 0; a < t0->ng; a++)
		for (int b = 0; b < tk.ng; b++) {
			const struct gd_coll_timeline *x = &t0->g[a], *y = &tk.g[b];
			long len;
			if (x->key != y->key)
				continue;
			len = x->n < y->n ? x->n : y->n;
			differ |= x->n != y->n;
			if (n + len > cap) {
				long nc = 2 * (n + len) + 64;
				void *v = realloc(d, (size_t)nc * sizeof(double));
				if (!v) {
					free(d);
					gd_coll_timelines_free(&tk);
					return GD_EFAIL;
				}
				d = v;
				cap = nc;
			}
			for (long k = 0; k < len; k++)
				if (x->op[k] && x->op[k] == y->op[k])
					d[n++] = (double)(x->end[k] - y->end[k]); /* in int64: times near 2^61 ns
											  have 256 ns steps as doubles */
		}
	gd_coll_timelines_free(&tk);
	if (n == 0) {
		snprintf(nd->note, sizeof(nd->note),
			 "no collective in common with the first profile: its clock is taken as recorded");
		free(d);
		return GD_OK;
	}
	nd->offset_ns = median(d, n);
	for (long i = 0; i < n; i++)
		d[i] = fabs(d[i] - nd->offset_ns);
	nd->uncertainty_ns = median(d, n);
	nd->matched = n;
	nd->aligned = 1;
	if (differ)
		snprintf(nd->note, sizeof(nd->note),
			 "the profiles hold different numbers of collectives: matched in order from the first of each "
			 "(captures that began at different collectives misalign; the uncertainty then grows)");
	free(d);
	return GD_OK;
}

/* ---- merging ------------------------------------------------------------------------------ */

/* The merged profile's names, hashed, so that a million names merge in linear time
 * (gd_profile_intern searches linearly). */
struct names {
	int *slot; /* name id + 1, 0 empty */
	size_t cap;
};

static uint64_t str_hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

static int names_put(struct names *t, struct gd_profile *p, const char *s, int id_if_new)
{
	size_t i = (size_t)str_hash(s) & (t->cap - 1);
	for (; t->slot[i]; i = (i + 1) & (t->cap - 1))
		if (!strcmp(p->names[t->slot[i] - 1], s))
			return t->slot[i] - 1;
	t->slot[i] = id_if_new + 1;
	return -1;
}

/* (Re)builds the table for the profile's names with room for `more` (at most half full). */
static int names_init(struct names *t, struct gd_profile *p, long more)
{
	size_t cap = 64;
	while (cap < 2 * ((size_t)p->nnames + (size_t)more) + 2)
		cap *= 2;
	if (t->slot && cap <= t->cap)
		return 0;
	free(t->slot);
	t->cap = cap;
	t->slot = calloc(t->cap, sizeof(int));
	if (!t->slot)
		return -1;
	for (int i = 0; i < p->nnames; i++)
		if (p->names[i])
			names_put(t, p, p->names[i], i);
	return 0;
}

/* The merged id of each of q's names (-1 for a missing one). */
static int *names_map(struct names *t, struct gd_profile *p, const struct gd_profile *q)
{
	int *map = malloc(((size_t)q->nnames + 1) * sizeof(int));
	if (!map)
		return NULL;
	for (int i = 0; i < q->nnames; i++) {
		int id;
		map[i] = -1;
		if (!q->names[i])
			continue;
		if (p->nnames == p->cap_names) {
			int cap = p->cap_names ? 2 * p->cap_names : 256;
			void *v = realloc(p->names, (size_t)cap * sizeof(char *));
			if (!v) {
				free(map);
				return NULL;
			}
			p->names = v;
			p->cap_names = cap;
		}
		id = names_put(t, p, q->names[i], p->nnames);
		if (id < 0) {
			if (!(p->names[p->nnames] = strdup(q->names[i]))) {
				free(map);
				return NULL;
			}
			id = p->nnames++;
		}
		map[i] = id;
	}
	return map;
}

static int mapped(const int *map, int n, int id) { return id >= 0 && id < n ? map[id] : -1; }

/* Room for `more` elements in an array of the profile. */
static int room(void **arr, long *cap, long n, long more, size_t size)
{
	if (n + more <= *cap)
		return 0;
	long nc = *cap ? *cap : 256;
	while (nc < n + more)
		nc *= 2;
	void *v = realloc(*arr, (size_t)nc * size);
	if (!v)
		return -1;
	*arr = v;
	*cap = nc;
	return 0;
}

#define ROOM(p, arr, n, cap, more) room((void **)&(p)->arr, &(p)->cap, (p)->n, (more), sizeof(*(p)->arr))

/* Appends node k's profile q (its times shifted by off) to the merged profile p. */
static int append(struct gd_profile *p, struct names *nt, const struct gd_profile *q, int k, int64_t off)
{
	int *nm = names_map(nt, p, q);
	int pid0 = k * GD_NODE_PID_STRIDE, dev0 = p->ndev, nq = q->nnames;
	long kx0 = p->nkx, cap_proc = p->nproc, cap_dev = p->cap_dev;
	if (!nm)
		return -1;
	if (ROOM(p, k, nk, cap_k, q->nk) || ROOM(p, c, nc, cap_c, q->nc) || ROOM(p, a, na, cap_a, q->na) ||
	    ROOM(p, s, ns, cap_s, q->ns) || ROOM(p, m, nm, cap_m, q->nm) || ROOM(p, nv, nnv, cap_nv, q->nnv) ||
	    ROOM(p, pm, npm, cap_pm, q->npm) || ROOM(p, kpm, nkpm, cap_kpm, q->nkpm) ||
	    ROOM(p, kl, nkl, cap_kl, q->nkl) || ROOM(p, kx, nkx, cap_kx, q->nkx) ||
	    room((void **)&p->proc, &cap_proc, p->nproc, q->nproc, sizeof(*p->proc)) ||
	    room((void **)&p->dev, &cap_dev, p->ndev, q->ndev, sizeof(*p->dev))) {
		free(nm);
		return -1;
	}
	p->cap_dev = (int)cap_dev;
	for (int i = 0; i < q->ndev; i++)
		p->dev[p->ndev++] = q->dev[i];
	for (long i = 0; i < q->nproc; i++) {
		struct gd_pprocess *o = &p->proc[p->nproc++];
		*o = q->proc[i];
		o->pid += pid0;
		if (o->ppid > 0)
			o->ppid += pid0;
	}
	for (long i = 0; i < q->nk; i++) {
		struct gd_pkernel *o = &p->k[p->nk++];
		*o = q->k[i];
		o->start += off;
		o->end += off;
		o->name = mapped(nm, nq, o->name);
		o->dname = mapped(nm, nq, o->dname);
		if (o->dname < 0)
			o->dname = o->name;
		o->device += dev0;
		o->pid += pid0;
	}
	for (long i = 0; i < q->nc; i++) {
		struct gd_pcopy *o = &p->c[p->nc++];
		*o = q->c[i];
		o->start += off;
		o->end += off;
		o->device += dev0;
		o->pid += pid0;
	}
	for (long i = 0; i < q->na; i++) {
		struct gd_papi *o = &p->a[p->na++];
		*o = q->a[i];
		o->start += off;
		o->end += off;
		o->name = mapped(nm, nq, o->name);
		o->pid += pid0;
	}
	for (long i = 0; i < q->ns; i++) {
		struct gd_pnvml *o = &p->s[p->ns++];
		*o = q->s[i];
		o->t += off;
		o->device += dev0;
	}
	for (long i = 0; i < q->nm; i++) {
		struct gd_pmem *o = &p->m[p->nm++];
		*o = q->m[i];
		o->t += off;
		o->device += dev0;
		o->pid += pid0;
	}
	for (long i = 0; i < q->nnv; i++) {
		struct gd_pnvtx *o = &p->nv[p->nnv++];
		*o = q->nv[i];
		o->start += off;
		if (o->end >= 0)
			o->end += off;
		o->name = mapped(nm, nq, o->name);
		o->domain = mapped(nm, nq, o->domain);
		o->pid += pid0;
	}
	for (long i = 0; i < q->npm; i++) {
		struct gd_pm_sample *o = &p->pm[p->npm++];
		*o = q->pm[i];
		o->t_start += off;
		o->t_end += off;
		o->device += dev0;
	}
	for (long i = 0; i < q->nkpm; i++) {
		struct gd_pm_kernel *o = &p->kpm[p->nkpm++];
		*o = q->kpm[i];
		o->device += dev0;
		o->name = mapped(nm, nq, o->name);
	}
	for (long i = 0; i < q->nkl; i++) {
		struct gd_klaunch *o = &p->kl[p->nkl++];
		*o = q->kl[i];
		o->pid += pid0;
		o->device += dev0;
		o->name = mapped(nm, nq, o->name);
		o->detail = o->detail ? mapped(nm, nq, o->detail) : 0;
		o->kernel = -1; /* relinked by gd_profile_finish */
		o->extra += kx0;
	}
	for (long i = 0; i < q->nkx; i++) {
		struct gd_kextra *o = &p->kx[p->nkx++];
		*o = q->kx[i];
		o->metric = mapped(nm, nq, o->metric);
	}
	/* the run's facts: the first profile's, with counts summed and unknowns kept unknown */
	if (q->t_start && (!p->t_start || q->t_start + off < p->t_start))
		p->t_start = q->t_start + off;
	if (q->t_end && (!p->t_end || q->t_end + off > p->t_end))
		p->t_end = q->t_end + off;
	p->dropped = p->dropped < 0 || q->dropped < 0 ? -1 : p->dropped + q->dropped;
	p->pm_lost = p->pm_lost < 0 || q->pm_lost < 0 ? -1 : p->pm_lost + q->pm_lost;
	p->bad_rows += q->bad_rows;
	p->synthetic |= q->synthetic;
	p->cupti_ok |= q->cupti_ok;
	p->have_api &= q->have_api;
	if (!p->label[0])
		snprintf(p->label, sizeof(p->label), "%s", q->label);
	free(nm);
	return 0;
}

int gd_analysis_load_many(const char *const *paths, int n, struct gd_analysis *a, char *why, size_t wn)
{
	struct gd_profile q;
	struct gd_coll_timelines t0;
	struct gd_node *nodes;
	struct names nt = {0};
	int rc;
	if (n == 1)
		return gd_analysis_load(paths[0], a, why, wn);
	memset(a, 0, sizeof(*a));
	if (n < 1 || n > GD_MAX_NODES) {
		snprintf(why, wn, "%d profiles given; one job of 1 to %d nodes is read", n, GD_MAX_NODES);
		return GD_EUSAGE;
	}
	for (int i = 0; i < n; i++)
		for (int j = 0; j < i; j++)
			if (gd_same_file(paths[i], paths[j])) {
				snprintf(why, wn, "'%s' is given twice: each profile of a job once", paths[i]);
				return GD_EUSAGE;
			}
	nodes = calloc((size_t)n, sizeof(*nodes));
	if (!nodes) {
		snprintf(why, wn, "out of memory");
		return GD_EFAIL;
	}
	rc = gd_profile_load(paths[0], &a->p, why, wn);
	if (rc != GD_OK) {
		free(nodes);
		return rc;
	}
	for (long i = 0; i < a->p.nproc; i++)
		if (a->p.proc[i].pid >= GD_NODE_PID_STRIDE) {
			snprintf(why, wn, "'%s' holds process id %d, above what a merged job can number", paths[0],
				 a->p.proc[i].pid);
			gd_profile_free(&a->p);
			free(nodes);
			return GD_EDATA;
		}
	snprintf(nodes[0].path, sizeof(nodes[0].path), "%s", paths[0]);
	nodes[0].aligned = 1;
	nodes[0].uncertainty_ns = 0;
	if (gd_coll_timelines(&a->p, &t0) != GD_OK) {
		gd_profile_free(&a->p);
		free(nodes);
		snprintf(why, wn, "out of memory");
		return GD_EFAIL;
	}
	rc = GD_OK;
	for (int i = 1; i < n && rc == GD_OK; i++) {
		rc = gd_profile_load(paths[i], &q, why, wn);
		if (rc != GD_OK)
			break;
		for (long j = 0; j < q.nproc && rc == GD_OK; j++)
			if (q.proc[j].pid >= GD_NODE_PID_STRIDE) {
				snprintf(why, wn, "'%s' holds process id %d, above what a merged job can number", paths[i],
					 q.proc[j].pid);
				rc = GD_EDATA;
			}
		snprintf(nodes[i].path, sizeof(nodes[i].path), "%s", paths[i]);
		if (rc == GD_OK && align(&t0, &q, &nodes[i]) != GD_OK)
			rc = GD_EFAIL;
		nodes[i].dev0 = a->p.ndev;
		if (rc == GD_OK && names_init(&nt, &a->p, q.nnames))
			rc = GD_EFAIL;
		if (rc == GD_OK && append(&a->p, &nt, &q, i, (int64_t)llround(nodes[i].offset_ns)))
			rc = GD_EFAIL;
		if (rc == GD_EFAIL)
			snprintf(why, wn, "out of memory");
		gd_profile_free(&q);
	}
	free(nt.slot);
	gd_coll_timelines_free(&t0);
	if (rc != GD_OK) {
		gd_profile_free(&a->p);
		free(nodes);
		return rc;
	}
	gd_profile_finish(&a->p);
	rc = gd_analysis_of_nodes(a, nodes, n);
	free(nodes);
	if (rc != GD_OK) {
		gd_profile_free(&a->p);
		snprintf(why, wn, "out of memory");
	}
	return rc;
}
