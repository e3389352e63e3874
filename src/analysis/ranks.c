/* Ranks, collectives, exposed communication and stragglers of a profile; see ranks.h. */
#include "analysis/ranks.h"

#include "analysis/names.h"
#include "analysis/verdict.h" /* gd_overlap */
#include "core/safe_int.h"
#include "core/status.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- kernel names ---------------------------------------------------------------------- */

/* One word of a name against a table: the canonical spelling, or NULL. */
struct word {
	const char *in, *out;
};
static const struct word ops[] = {
	{"AllReduce", "AllReduce"}, {"AllGather", "AllGather"}, {"ReduceScatter", "ReduceScatter"},
	{"Broadcast", "Broadcast"}, {"Reduce", "Reduce"},       {"SendRecv", "SendRecv"},
	{"AllToAll", "AllToAll"},   {NULL, NULL}};
static const struct word redops[] = {
	{"Sum", "sum"}, {"Prod", "prod"}, {"Min", "min"}, {"Max", "max"}, {"MinMax", "minmax"}, {"Avg", "avg"},
	{"PreMulSum", "premulsum"}, {"SumPostDiv", "sumpostdiv"}, {NULL, NULL}};
/* data types: NCCL ≥ 2.19's short names, and the C type names of older kernels */
static const struct word dtypes[] = {
	{"i8", "i8"}, {"u8", "u8"}, {"i32", "i32"}, {"u32", "u32"}, {"i64", "i64"}, {"u64", "u64"},
	{"f16", "f16"}, {"f32", "f32"}, {"f64", "f64"}, {"bf16", "bf16"}, {"f8e4m3", "f8e4m3"}, {"f8e5m2", "f8e5m2"},
	{"int8", "i8"}, {"uint8", "u8"}, {"int32", "i32"}, {"uint32", "u32"}, {"int64", "i64"}, {"uint64", "u64"},
	{"half", "f16"}, {"float", "f32"}, {"double", "f64"}, {"bfloat16", "bf16"}, {NULL, NULL}};
static const struct word protos[] = {{"LL", "LL"}, {"LL128", "LL128"}, {"SIMPLE", "Simple"}, {NULL, NULL}};

static const char *lookup(const struct word *w, const char *s, size_t n)
{
	for (; w->in; w++)
		if (strlen(w->in) == n && !strncmp(w->in, s, n))
			return w->out;
	return NULL;
}

static void put(char *dst, size_t n, const char *s)
{
	if (!dst[0] && s)
		snprintf(dst, n, "%s", s);
}

int gd_nccl_parse(const char *name, struct gd_nccl_op *o)
{
	const char *s;
	char tok[8][40];
	int nt = 0;
	memset(o, 0, sizeof(*o));
	if (!name)
		return 0;
	/* the name may be "void ncclDevKernel_...(args)" or carry a namespace: find the entry */
	s = strstr(name, "ncclDevKernel_");
	if (!s)
		s = strstr(name, "ncclKernel_");
	if (!s)
		return 0;
	s = strchr(s, '_') + 1;
	/* words between '_' up to the parameter list or a template */
	while (*s && *s != '(' && *s != '<' && !isspace((unsigned char)*s) && nt < 8) {
		size_t n = strcspn(s, "_(< \t");
		if (n >= sizeof(tok[0]))
			n = sizeof(tok[0]) - 1;
		memcpy(tok[nt], s, n);
		tok[nt][n] = 0;
		nt++;
		s += strcspn(s, "_(< \t");
		if (*s == '_')
			s++;
	}
	for (int i = 0; i < nt; i++) {
		const char *t = tok[i], *w;
		size_t n = strlen(t);
		/* old kernels spell C types: int8_t, __nv_bfloat16 (the '_' split them) */
		if (!strcmp(t, "t") || !strcmp(t, "") || !strcmp(t, "nv"))
			continue;
		if ((w = lookup(ops, t, n))) {
			put(o->op, sizeof(o->op), w);
		} else if ((w = lookup(redops, t, n))) {
			put(o->redop, sizeof(o->redop), w);
		} else if ((w = lookup(dtypes, t, n))) {
			put(o->dtype, sizeof(o->dtype), w);
		} else if ((w = lookup(protos, t, n))) {
			put(o->proto, sizeof(o->proto), w);
		} else if (!strcmp(t, "RING") || !strcmp(t, "TREE") || !strcmp(t, "PAT")) {
			put(o->algo, sizeof(o->algo), !strcmp(t, "RING") ? "ring" : !strcmp(t, "TREE") ? "tree" : "pat");
		} else if (!strcmp(t, "COLLNET") || !strcmp(t, "NVLS")) {
			/* two-word algorithms: COLLNET_DIRECT, COLLNET_CHAIN, NVLS_TREE; NVLS alone */
			const char *next = i + 1 < nt ? tok[i + 1] : "";
			char b[24];
			if (!strcmp(next, "DIRECT") || !strcmp(next, "CHAIN") || !strcmp(next, "TREE")) {
				snprintf(b, sizeof(b), "%s_%s", !strcmp(t, "NVLS") ? "nvls" : "collnet",
					 !strcmp(next, "DIRECT") ? "direct" : !strcmp(next, "CHAIN") ? "chain" : "tree");
				i++;
			} else {
				snprintf(b, sizeof(b), "%s", !strcmp(t, "NVLS") ? "nvls" : "collnet");
			}
			put(o->algo, sizeof(o->algo), b);
		}
		/* anything else ("Generic", a channel count, a version suffix) says nothing we use */
	}
	return 1;
}

char *gd_nccl_op_text(const struct gd_nccl_op *o, char *buf, size_t n)
{
	int w = snprintf(buf, n, "%s", o->op[0] ? o->op : "NCCL kernel (operation not in its name)");
	if (o->redop[0] && w >= 0 && (size_t)w < n)
		w += snprintf(buf + w, n - (size_t)w, " %s", o->redop);
	if (o->dtype[0] && w >= 0 && (size_t)w < n)
		w += snprintf(buf + w, n - (size_t)w, " %s", o->dtype);
	if ((o->algo[0] || o->proto[0]) && w >= 0 && (size_t)w < n)
		snprintf(buf + w, n - (size_t)w, ", %s%s%s", o->algo[0] ? o->algo : "?", "/", o->proto[0] ? o->proto : "?");
	return buf;
}

static uint32_t fnv(uint32_t h, const void *data, size_t n)
{
	const unsigned char *b = data;
	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 16777619u;
	return h;
}

static uint32_t op_hash(const struct gd_nccl_op *o)
{
	uint32_t h = fnv(2166136261u, o, sizeof(*o)); /* zero-filled: the bytes are the text */
	return h ? h : 1;
}

/* ---- intervals ------------------------------------------------------------------------- */

static int cmp_iv(const void *x, const void *y)
{
	const struct gd_interval *a = x, *b = y;
	return a->start < b->start ? -1 : a->start > b->start;
}

long gd_interval_merge(struct gd_interval *v, long n)
{
	long m = 0;
	for (long i = 1; i < n; i++)
		if (v[i].start < v[i - 1].start) {
			qsort(v, (size_t)n, sizeof(*v), cmp_iv);
			break;
		}
	for (long i = 0; i < n; i++) {
		if (v[i].end < v[i].start)
			continue;
		if (m && v[i].start <= v[m - 1].end) {
			if (v[i].end > v[m - 1].end)
				v[m - 1].end = v[i].end;
		} else {
			v[m++] = v[i];
		}
	}
	return m;
}

static double length(const struct gd_interval *v, long n)
{
	double t = 0;
	for (long i = 0; i < n; i++)
		t += gd_dur_ns(v[i].start, v[i].end);
	return t;
}

/* A growing list of intervals. */
struct ivl {
	struct gd_interval *v;
	long n, cap;
};

static int ivl_add(struct ivl *l, int64_t start, int64_t end)
{
	if (l->n == l->cap) {
		long cap = l->cap ? 2 * l->cap : 64;
		void *v = realloc(l->v, (size_t)cap * sizeof(*l->v));
		if (!v)
			return -1;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n].start = start;
	l->v[l->n].end = end;
	l->n++;
	return 0;
}

/* ---- the analysis ---------------------------------------------------------------------- */

struct rkey {
	int node, device, pid; /* pid as in the profile (the merged pid) */
};

static int cmp_rkey(const void *x, const void *y)
{
	const struct rkey *a = x, *b = y;
	if (a->node != b->node)
		return a->node < b->node ? -1 : 1;
	if (a->device != b->device)
		return a->device < b->device ? -1 : 1;
	return a->pid < b->pid ? -1 : a->pid > b->pid;
}

/* One rank's NCCL kernels on one stream, in time order. */
struct seq {
	uint64_t key;      /* signature hash and ordinal */
	int rank;
	int64_t stream, first;
	long *k, n;        /* kernel indices */
};

static int cmp_seq(const void *x, const void *y)
{
	const struct seq *a = x, *b = y;
	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return a->rank - b->rank;
}

/* What the passes share. */
struct work {
	const struct gd_profile *p;
	int nnodes;
	int *opid;              /* name id → index into op[] (-1: not NCCL) */
	struct gd_nccl_op *op;
	uint32_t *ophash;
	int nop, capop;
	struct rkey *keys;      /* the ranks */
	int nr;
	int *krank, *crank;     /* kernel / copy → rank */
	struct seq *seqs;
	long nseqs;
	long *seqk;             /* the kernel indices every seq points into */
};

static int node_of(const struct work *w, int pid)
{
	return w->nnodes > 1 && pid >= 0 ? pid / GD_NODE_PID_STRIDE : 0;
}

static int find_rank(const struct work *w, int pid, int device)
{
	struct rkey key = {node_of(w, pid), device, pid};
	const struct rkey *e = bsearch(&key, w->keys, (size_t)w->nr, sizeof(key), cmp_rkey);
	return e ? (int)(e - w->keys) : -1;
}

static void work_free(struct work *w)
{
	free(w->opid);
	free(w->op);
	free(w->ophash);
	free(w->keys);
	free(w->krank);
	free(w->crank);
	free(w->seqs);
	free(w->seqk);
}

/* The NCCL operation of every kernel name used (gd_nccl_parse on the demangled name, else the
 * recorded one; names the kind table does not call NCCL are not parsed). */
static int build_ops(struct work *w)
{
	const struct gd_profile *p = w->p;
	w->opid = malloc(((size_t)p->nnames + 1) * sizeof(int));
	if (!w->opid)
		return -1;
	for (int i = 0; i < p->nnames; i++)
		w->opid[i] = -2; /* not looked at yet */
	for (long i = 0; i < p->nk; i++) {
		const struct gd_pkernel *k = &p->k[i];
		int id = k->name;
		struct gd_nccl_op o;
		const char *full;
		if (id < 0 || id >= p->nnames || w->opid[id] != -2)
			continue;
		w->opid[id] = -1;
		full = k->dname >= 0 && k->dname < p->nnames && p->names[k->dname] ? p->names[k->dname] : p->names[id];
		if (!full || gd_kernel_kind(full) != GD_KIND_NCCL)
			continue;
		if (!gd_nccl_parse(full, &o) && !gd_nccl_parse(p->names[id], &o))
			memset(&o, 0, sizeof(o)); /* NCCL by the kind table, but a name we cannot read */
		for (int j = 0; j < w->nop; j++)
			if (!memcmp(&w->op[j], &o, sizeof(o))) {
				w->opid[id] = j;
				break;
			}
		if (w->opid[id] >= 0)
			continue;
		if (w->nop == w->capop) {
			int cap = w->capop ? 2 * w->capop : 16;
			void *a = realloc(w->op, (size_t)cap * sizeof(*w->op));
			void *b = a ? realloc(w->ophash, (size_t)cap * sizeof(*w->ophash)) : NULL;
			if (a)
				w->op = a;
			if (!b)
				return -1;
			w->ophash = b;
			w->capop = cap;
		}
		w->op[w->nop] = o;
		w->ophash[w->nop] = op_hash(&o);
		w->opid[id] = w->nop++;
	}
	return 0;
}

static int kop(const struct work *w, long i)
{
	int id = w->p->k[i].name;
	return id >= 0 && id < w->p->nnames ? w->opid[id] : -1;
}

/* The ranks: distinct (pid, device) of kernels and copies, by (node, device, pid). */
static int build_ranks(struct work *w)
{
	const struct gd_profile *p = w->p;
	long n = 0;
	struct rkey *all = malloc(((size_t)p->nk + (size_t)p->nc + 1) * sizeof(*all));
	if (!all)
		return -1;
	for (long i = 0; i < p->nk; i++)
		all[n++] = (struct rkey){node_of(w, p->k[i].pid), p->k[i].device, p->k[i].pid};
	for (long i = 0; i < p->nc; i++)
		all[n++] = (struct rkey){node_of(w, p->c[i].pid), p->c[i].device, p->c[i].pid};
	qsort(all, (size_t)n, sizeof(*all), cmp_rkey);
	w->nr = 0;
	for (long i = 0; i < n; i++)
		if (!w->nr || cmp_rkey(&all[i], &all[w->nr - 1]))
			all[w->nr++] = all[i];
	w->keys = all;
	w->krank = malloc(((size_t)p->nk + 1) * sizeof(int));
	w->crank = malloc(((size_t)p->nc + 1) * sizeof(int));
	if (!w->krank || !w->crank)
		return -1;
	/* kernels of one rank come in long runs: remember the last hit */
	for (long i = 0, last = -1; i < p->nk; i++) {
		const struct gd_pkernel *k = &p->k[i];
		if (last < 0 || w->keys[last].pid != k->pid || w->keys[last].device != k->device)
			last = find_rank(w, k->pid, k->device);
		w->krank[i] = (int)last;
	}
	for (long i = 0, last = -1; i < p->nc; i++) {
		const struct gd_pcopy *c = &p->c[i];
		if (last < 0 || w->keys[last].pid != c->pid || w->keys[last].device != c->device)
			last = find_rank(w, c->pid, c->device);
		w->crank[i] = (int)last;
	}
	return 0;
}

/* The NCCL sequences: per rank and stream, keyed by the signature of their first collective
 * names and the ordinal among the rank's streams of that signature (by first start). */
static int build_seqs(struct work *w)
{
	const struct gd_profile *p = w->p;
	long nn = 0, *cnt;
	w->seqk = malloc(((size_t)p->nk + 1) * sizeof(long));
	cnt = calloc((size_t)w->nr + 1, sizeof(long));
	if (!w->seqk || !cnt) {
		free(cnt);
		return -1;
	}
	/* the NCCL kernels, by (rank, stream, start): kernels are start-sorted, so a counting pass
	 * by rank then a stable sort by stream within each rank */
	for (long i = 0; i < p->nk; i++)
		if (kop(w, i) >= 0 && w->krank[i] >= 0)
			cnt[w->krank[i]]++, nn++;
	long *pos = malloc(((size_t)w->nr + 1) * sizeof(long));
	if (!pos) {
		free(cnt);
		return -1;
	}
	{
		long acc = 0;
		for (int r = 0; r < w->nr; r++) {
			pos[r] = acc;
			acc += cnt[r];
		}
	}
	for (long i = 0; i < p->nk; i++)
		if (kop(w, i) >= 0 && w->krank[i] >= 0)
			w->seqk[pos[w->krank[i]]++] = i;
	/* each rank's block is in time order; split it by stream (insertion into per-stream runs) */
	w->seqs = NULL;
	w->nseqs = 0;
	long cap = 0, base = 0;
	for (int r = 0; r < w->nr; r++) {
		long *blk = w->seqk + base, m = cnt[r];
		/* stable sort by stream: merge sort through a scratch copy keeps time order within a stream */
		if (m > 1) {
			long *tmp = malloc((size_t)m * sizeof(long));
			if (!tmp) {
				free(cnt);
				free(pos);
				return -1;
			}
			for (long width = 1; width < m; width *= 2) {
				for (long lo = 0; lo < m; lo += 2 * width) {
					long mid = lo + width < m ? lo + width : m, hi = lo + 2 * width < m ? lo + 2 * width : m;
					long a = lo, b = mid, o = lo;
					while (a < mid && b < hi)
						tmp[o++] = p->k[blk[b]].stream < p->k[blk[a]].stream ? blk[b++] : blk[a++];
					while (a < mid)
						tmp[o++] = blk[a++];
					while (b < hi)
						tmp[o++] = blk[b++];
				}
				memcpy(blk, tmp, (size_t)m * sizeof(long));
			}
			free(tmp);
		}
		long first_seq = w->nseqs;
		for (long i = 0; i < m;) {
			long j = i;
			while (j < m && p->k[blk[j]].stream == p->k[blk[i]].stream)
				j++;
			if (w->nseqs == cap) {
				long nc = cap ? 2 * cap : 16;
				void *v = realloc(w->seqs, (size_t)nc * sizeof(*w->seqs));
				if (!v) {
					free(cnt);
					free(pos);
					return -1;
				}
				w->seqs = v;
				cap = nc;
			}
			struct seq *s = &w->seqs[w->nseqs++];
			uint32_t h = 2166136261u;
			s->rank = r;
			s->stream = p->k[blk[i]].stream;
			s->first = p->k[blk[i]].start;
			s->k = blk + i;
			s->n = j - i;
			for (long q = 0; q < s->n && q < GD_RANKS_SIGNATURE; q++)
				h = fnv(h, &w->ophash[kop(w, s->k[q])], sizeof(uint32_t));
			s->key = (uint64_t)h << 32;
			i = j;
		}
		/* the ordinal among this rank's streams of one signature, by first start */
		for (long a = first_seq; a < w->nseqs; a++) {
			uint64_t ord = 0;
			for (long b = first_seq; b < w->nseqs; b++)
				if (b != a && (w->seqs[b].key >> 32) == (w->seqs[a].key >> 32) &&
				    (w->seqs[b].first < w->seqs[a].first ||
				     (w->seqs[b].first == w->seqs[a].first && w->seqs[b].stream < w->seqs[a].stream)))
					ord++;
			w->seqs[a].key |= ord;
		}
		base += m;
	}
	free(cnt);
	free(pos);
	if (w->nseqs)
		qsort(w->seqs, (size_t)w->nseqs, sizeof(*w->seqs), cmp_seq);
	return 0;
}

static int cmp_i64(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
	return a < b ? -1 : a > b;
}

static int cmp_dbl(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return a < b ? -1 : a > b;
}

/* A rank's compute kernels in launch order (correlation ids grow with each API call of a
 * process) with the latest end among them and every earlier launch. */
struct cend {
	uint32_t corr;
	int64_t end;
};

/* When the compute a collective can depend on was done: the latest end among the rank's compute
 * kernels launched before it (a smaller correlation id), INT64_MIN when none. Not the last
 * compute kernel to end before the collective's kernel started: a collective queued behind the
 * previous one on its stream starts late on every rank that was ready early, and the compute
 * those ranks ran meanwhile is not what it waited for. */
static int64_t ready_before(const struct cend *v, long n, uint32_t corr)
{
	long lo = 0, hi = n; /* first index with v.corr >= corr */
	while (lo < hi) {
		long mid = lo + (hi - lo) / 2;
		if (v[mid].corr < corr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > 0 ? v[lo - 1].end : INT64_MIN;
}

static int cmp_cend(const void *x, const void *y)
{
	const struct cend *a = x, *b = y;
	return a->corr < b->corr ? -1 : a->corr > b->corr;
}

static int work_init(struct work *w, const struct gd_profile *p, int nnodes)
{
	memset(w, 0, sizeof(*w));
	w->p = p;
	w->nnodes = nnodes;
	if (build_ops(w) || build_ranks(w) || build_seqs(w))
		return -1;
	return 0;
}

char *gd_rank_label(const struct gd_ranks *r, int i, char *buf, size_t n)
{
	const struct gd_rank *x = &r->r[i];
	if (r->nnodes > 1)
		snprintf(buf, n, "rank %d (node %d, pid %d, GPU %d)", i, x->node, x->pid, x->gpu);
	else
		snprintf(buf, n, "rank %d (pid %d, GPU %d)", i, x->pid, x->device);
	return buf;
}

int gd_ranks_shown(const struct gd_ranks *r)
{
	return r && (r->nr >= 2 || r->nccl_ranks > 0 || r->nnodes > 1);
}

void gd_ranks_free(struct gd_ranks *r)
{
	free(r->r);
	free(r->ops);
	free(r->nodes);
	memset(r, 0, sizeof(*r));
}

/* Per rank interval lists. */
struct rlists {
	struct ivl comp, comm, copy, all, wait;
	struct cend *ce;   /* by corr; end = the running maximum */
	long nce;
};

static void rlists_free(struct rlists *l, int n)
{
	if (!l)
		return;
	for (int i = 0; i < n; i++) {
		free(l[i].comp.v);
		free(l[i].comm.v);
		free(l[i].copy.v);
		free(l[i].all.v);
		free(l[i].wait.v);
		free(l[i].ce);
	}
	free(l);
}

/* The collectives of every group: matching, waiting and lateness. */
static int judge_groups(struct work *w, struct gd_ranks *R, struct rlists *L)
{
	const struct gd_profile *p = w->p;
	double *ready = NULL, *others = NULL;
	int64_t *rdv = NULL;
	int cap = 0, rc = -1;
	for (long a = 0; a < w->nseqs;) {
		long b = a;
		while (b < w->nseqs && w->seqs[b].key == w->seqs[a].key)
			b++;
		int m = (int)(b - a);
		const struct seq *g = &w->seqs[a];
		long len = g[0].n;
		for (int i = 1; i < m; i++)
			len = g[i].n < len ? g[i].n : len;
		for (int i = 0; i < m; i++)
			R->unmatched += m < 2 ? g[i].n : g[i].n - len;
		if (m < 2) {
			a = b;
			continue;
		}
		R->groups++;
		if (m > cap) {
			cap = m;
			free(ready);
			free(others);
			free(rdv);
			ready = malloc((size_t)cap * sizeof(double));
			others = malloc((size_t)cap * sizeof(double));
			rdv = malloc((size_t)cap * sizeof(int64_t));
			if (!ready || !others || !rdv)
				goto out;
		}
		for (long k = 0; k < len; k++) {
			int agree = 1, judged = 1, last_start = 0, last_ready = 0;
			int64_t start_last = INT64_MIN;
			for (int i = 1; i < m; i++)
				agree &= kop(w, g[i].k[k]) == kop(w, g[0].k[k]);
			if (!agree) {
				R->mismatched++;
				continue;
			}
			R->matched++;
			for (int i = 0; i < m; i++) {
				const struct gd_pkernel *x = &p->k[g[i].k[k]];
				struct rlists *l = &L[g[i].rank];
				int64_t prev = k ? ready_before(l->ce, l->nce, p->k[g[i].k[k - 1]].corr) : INT64_MIN;
				int64_t rd = ready_before(l->ce, l->nce, x->corr);
				R->r[g[i].rank].collectives++;
				if (x->start > start_last) {
					start_last = x->start;
					last_start = i;
				}
				/* judged only when every rank launched compute since its previous collective of
				 * this group: back-to-back collectives say nothing of who was late */
				if (rd == INT64_MIN || rd <= prev)
					judged = 0;
				rdv[i] = rd;
			}
			/* the others waited from their start until the last rank started */
			for (int i = 0; i < m; i++) {
				const struct gd_pkernel *x = &p->k[g[i].k[k]];
				int64_t until = x->end < start_last ? x->end : start_last;
				if (i == last_start || until <= x->start)
					continue;
				if (ivl_add(&L[g[i].rank].wait, x->start, until))
					goto out;
				R->r[g[last_start].rank].waited_for_ns += gd_dur_ns(x->start, until);
			}
			if (!judged)
				continue;
			R->judged++;
			/* relative to one rank's: absolute times near 2^61 ns have 256 ns steps as doubles */
			for (int i = 0; i < m; i++)
				ready[i] = (double)(rdv[i] - rdv[0]);
			for (int i = 0; i < m; i++) {
				R->r[g[i].rank].judged++;
				if (ready[i] > ready[last_ready])
					last_ready = i;
			}
			int no = 0;
			for (int i = 0; i < m; i++)
				if (i != last_ready)
					others[no++] = ready[i];
			qsort(others, (size_t)no, sizeof(double), cmp_dbl);
			double med = no % 2 ? others[no / 2] : 0.5 * (others[no / 2 - 1] + others[no / 2]);
			double late = ready[last_ready] - med;
			if (late > 0) {
				struct gd_rank *x = &R->r[g[last_ready].rank];
				x->last++;
				x->late_sum_ns += late;
				x->late_max_ns = late > x->late_max_ns ? late : x->late_max_ns;
			}
		}
		a = b;
	}
	rc = 0;
out:
	free(ready);
	free(others);
	free(rdv);
	return rc;
}

static int cmp_ops(const void *x, const void *y)
{
	const struct gd_coll_stat *a = x, *b = y;
	if (a->total_ns != b->total_ns)
		return a->total_ns < b->total_ns ? 1 : -1;
	return strcmp(a->op.op, b->op.op);
}

static int op_stats(struct work *w, struct gd_ranks *R)
{
	const struct gd_profile *p = w->p;
	char *seen;
	if (!w->nop)
		return 0;
	R->ops = calloc((size_t)w->nop, sizeof(*R->ops));
	seen = calloc((size_t)w->nop * (size_t)(w->nr ? w->nr : 1), 1);
	if (!R->ops || !seen) {
		free(seen);
		return -1;
	}
	R->nops = w->nop;
	for (int j = 0; j < w->nop; j++) {
		R->ops[j].op = w->op[j];
		R->ops[j].min_ns = INFINITY;
		R->ops[j].bytes = NAN; /* neither the name nor CUPTI gives the message size */
	}
	for (long i = 0; i < p->nk; i++) {
		int j = kop(w, i);
		struct gd_coll_stat *o;
		double d;
		if (j < 0)
			continue;
		o = &R->ops[j];
		d = gd_dur_ns(p->k[i].start, p->k[i].end);
		o->kernels++;
		o->total_ns += d;
		o->min_ns = d < o->min_ns ? d : o->min_ns;
		o->max_ns = d > o->max_ns ? d : o->max_ns;
		if (w->krank[i] >= 0 && !seen[(size_t)j * (size_t)w->nr + (size_t)w->krank[i]]) {
			seen[(size_t)j * (size_t)w->nr + (size_t)w->krank[i]] = 1;
			o->ranks++;
		}
	}
	for (int j = 0; j < w->nop; j++)
		R->ops[j].mean_ns = R->ops[j].kernels ? R->ops[j].total_ns / (double)R->ops[j].kernels : NAN;
	qsort(R->ops, (size_t)R->nops, sizeof(*R->ops), cmp_ops);
	free(seen);
	return 0;
}

/* Interval lists per rank, and the compute union of each device (any process on it). */
static int fill_lists(struct work *w, struct rlists *L, struct ivl *dev, int ndev)
{
	const struct gd_profile *p = w->p;
	for (long i = 0; i < p->nk; i++) {
		const struct gd_pkernel *k = &p->k[i];
		int r = w->krank[i];
		struct rlists *l;
		if (r < 0)
			continue;
		l = &L[r];
		if (ivl_add(&l->all, k->start, k->end))
			return -1;
		if (kop(w, i) >= 0) {
			if (ivl_add(&l->comm, k->start, k->end))
				return -1;
		} else {
			if (ivl_add(&l->comp, k->start, k->end))
				return -1;
			if (k->device >= 0 && k->device < ndev && ivl_add(&dev[k->device], k->start, k->end))
				return -1;
		}
	}
	for (long i = 0; i < p->nc; i++) {
		const struct gd_pcopy *c = &p->c[i];
		int r = w->crank[i];
		if (r < 0)
			continue;
		if (ivl_add(&L[r].all, c->start, c->end) || ivl_add(&L[r].copy, c->start, c->end))
			return -1;
	}
	for (int r = 0; r < w->nr; r++) {
		L[r].ce = malloc(((size_t)L[r].comp.n + 1) * sizeof(*L[r].ce));
		if (!L[r].ce)
			return -1;
	}
	for (long i = 0; i < p->nk; i++) {
		int r = w->krank[i];
		if (r >= 0 && kop(w, i) < 0)
			L[r].ce[L[r].nce++] = (struct cend){p->k[i].corr, p->k[i].end};
	}
	for (int r = 0; r < w->nr; r++) {
		struct rlists *l = &L[r];
		qsort(l->ce, (size_t)l->nce, sizeof(*l->ce), cmp_cend);
		for (long i = 1; i < l->nce; i++)
			if (l->ce[i].end < l->ce[i - 1].end)
				l->ce[i].end = l->ce[i - 1].end;
	}
	for (int d = 0; d < ndev; d++)
		dev[d].n = gd_interval_merge(dev[d].v, dev[d].n);
	return 0;
}

/* |a ∩ b ∩ c| of three merged lists. */
static double overlap3(const struct ivl *a, const struct ivl *b, const struct ivl *c)
{
	struct gd_interval *x = malloc(((size_t)a->n + (size_t)b->n + 1) * sizeof(*x));
	long n = 0, i = 0, j = 0;
	double t;
	if (!x)
		return NAN;
	while (i < a->n && j < b->n) {
		int64_t lo = a->v[i].start > b->v[j].start ? a->v[i].start : b->v[j].start;
		int64_t hi = a->v[i].end < b->v[j].end ? a->v[i].end : b->v[j].end;
		if (hi > lo)
			x[n++] = (struct gd_interval){lo, hi};
		if (a->v[i].end < b->v[j].end)
			i++;
		else
			j++;
	}
	t = gd_overlap(x, n, c->v, c->n);
	free(x);
	return t;
}

int gd_ranks_compute(const struct gd_profile *p, const struct gd_node *nodes, int nnodes, struct gd_ranks *R)
{
	struct work w;
	struct rlists *L = NULL;
	struct ivl *dev = NULL;
	int ndev = p->ndev > 0 ? p->ndev : 0, rc = GD_EFAIL;
	memset(R, 0, sizeof(*R));
	R->straggler = -1;
	if (nnodes < 1)
		nnodes = 1;
	if (work_init(&w, p, nnodes))
		goto out;
	/* the compute union per GPU covers the devices table's GPUs (at most GD_PROFILE_MAX_DEVICES):
	 * a kernel naming another device (a profile without the table, or an edited one) has no
	 * compute to overlap its NCCL time with, and is sized by no untrusted number */
	R->nodes = calloc((size_t)nnodes, sizeof(*R->nodes));
	R->r = calloc((size_t)w.nr + 1, sizeof(*R->r));
	L = calloc((size_t)w.nr + 1, sizeof(*L));
	dev = calloc((size_t)ndev + 1, sizeof(*dev));
	if (!R->nodes || !R->r || !L || !dev)
		goto out;
	R->nnodes = nnodes;
	if (nodes)
		memcpy(R->nodes, nodes, (size_t)nnodes * sizeof(*nodes));
	else
		snprintf(R->nodes[0].path, sizeof(R->nodes[0].path), "%s", p->path);
	R->nr = w.nr;
	for (int r = 0; r < w.nr; r++) {
		R->r[r].node = w.keys[r].node;
		R->r[r].pid = w.keys[r].pid - (nnodes > 1 ? w.keys[r].node * GD_NODE_PID_STRIDE : 0);
		R->r[r].device = w.keys[r].device;
		R->r[r].gpu = w.keys[r].device - (nnodes > 1 && w.keys[r].node < nnodes ? R->nodes[w.keys[r].node].dev0 : 0);
		R->r[r].start = INT64_MAX;
		R->r[r].end = INT64_MIN;
	}
	for (long i = 0; i < p->nk; i++) {
		struct gd_rank *x;
		if (w.krank[i] < 0)
			continue;
		x = &R->r[w.krank[i]];
		x->kernels++;
		x->nccl_kernels += kop(&w, i) >= 0;
		x->start = p->k[i].start < x->start ? p->k[i].start : x->start;
		x->end = p->k[i].end > x->end ? p->k[i].end : x->end;
	}
	for (long i = 0; i < p->nc; i++) {
		struct gd_rank *x;
		if (w.crank[i] < 0)
			continue;
		x = &R->r[w.crank[i]];
		x->copies++;
		x->start = p->c[i].start < x->start ? p->c[i].start : x->start;
		x->end = p->c[i].end > x->end ? p->c[i].end : x->end;
	}
	if (fill_lists(&w, L, dev, ndev) || judge_groups(&w, R, L) || op_stats(&w, R))
		goto out;
	for (int r = 0; r < w.nr; r++) {
		struct gd_rank *x = &R->r[r];
		struct rlists *l = &L[r];
		const struct ivl *dc = x->device >= 0 && x->device < ndev ? &dev[x->device] : NULL;
		static const struct ivl none = {0};
		l->comp.n = gd_interval_merge(l->comp.v, l->comp.n);
		l->comm.n = gd_interval_merge(l->comm.v, l->comm.n);
		l->copy.n = gd_interval_merge(l->copy.v, l->copy.n);
		l->all.n = gd_interval_merge(l->all.v, l->all.n);
		l->wait.n = gd_interval_merge(l->wait.v, l->wait.n);
		if (!dc)
			dc = &none;
		x->span_ns = x->end > x->start ? gd_dur_ns(x->start, x->end) : 0;
		x->busy_ns = length(l->all.v, l->all.n);
		x->compute_ns = length(l->comp.v, l->comp.n);
		x->comm_ns = length(l->comm.v, l->comm.n);
		x->copy_ns = length(l->copy.v, l->copy.n);
		x->idle_ns = x->span_ns - x->busy_ns > 0 ? x->span_ns - x->busy_ns : 0;
		x->comm_overlap_ns = gd_overlap(l->comm.v, l->comm.n, dc->v, dc->n);
		x->comm_exposed_ns = x->comm_ns - x->comm_overlap_ns;
		/* the waiting intervals lie inside NCCL kernels: their exposed part is the wait less
		 * what compute on the GPU covered */
		x->comm_wait_ns = length(l->wait.v, l->wait.n) - overlap3(&l->wait, &l->comm, dc);
		if (!(x->comm_wait_ns > 0))
			x->comm_wait_ns = 0;
		R->nccl_ranks += x->nccl_kernels > 0;
		if (x->start == INT64_MAX) /* nothing ran (cannot happen: a rank has a record) */
			x->start = x->end = 0;
	}
	/* the straggler: the rank with the most lateness summed over the collectives it was last for */
	for (int r = 0; r < w.nr; r++)
		if (R->r[r].last > 0 && (R->straggler < 0 || R->r[r].late_sum_ns > R->r[R->straggler].late_sum_ns))
			R->straggler = r;
	if (R->straggler >= 0) {
		R->others_wait_ns = R->r[R->straggler].waited_for_ns;
		for (int r = 0; r < w.nr; r++)
			if (r != R->straggler && R->r[r].nccl_kernels > 0) {
				R->others_comm_ns += R->r[r].comm_ns;
				R->others_span_ns += R->r[r].span_ns;
			}
	}
	rc = GD_OK;
out:
	rlists_free(L, w.nr);
	if (dev)
		for (int d = 0; d < ndev; d++)
			free(dev[d].v);
	free(dev);
	work_free(&w);
	if (rc != GD_OK)
		gd_ranks_free(R);
	return rc;
}

/* ---- collective timelines, for aligning the clocks of several profiles -------------------- */

int gd_coll_timelines(const struct gd_profile *p, struct gd_coll_timelines *t)
{
	struct work w;
	int rc = GD_EFAIL;
	int64_t *ends = NULL;
	int cap = 0;
	memset(t, 0, sizeof(*t));
	if (work_init(&w, p, 1))
		goto out;
	for (long a = 0; a < w.nseqs;) {
		long b = a;
		while (b < w.nseqs && w.seqs[b].key == w.seqs[a].key)
			b++;
		int m = (int)(b - a);
		const struct seq *g = &w.seqs[a];
		long len = g[0].n;
		struct gd_coll_timeline *x;
		void *v;
		for (int i = 1; i < m; i++)
			len = g[i].n < len ? g[i].n : len;
		v = realloc(t->g, ((size_t)t->ng + 1) * sizeof(*t->g));
		if (!v)
			goto out;
		t->g = v;
		x = &t->g[t->ng++];
		memset(x, 0, sizeof(*x));
		x->key = g[0].key;
		x->end = malloc(((size_t)len + 1) * sizeof(int64_t));
		x->op = malloc(((size_t)len + 1) * sizeof(uint32_t));
		if (!x->end || !x->op)
			goto out;
		x->n = len;
		if (m > cap) {
			free(ends);
			cap = m;
			if (!(ends = malloc((size_t)cap * sizeof(int64_t))))
				goto out;
		}
		for (long k = 0; k < len; k++) {
			int agree = 1;
			for (int i = 0; i < m; i++) {
				ends[i] = p->k[g[i].k[k]].end;
				agree &= kop(&w, g[i].k[k]) == kop(&w, g[0].k[k]);
			}
			qsort(ends, (size_t)m, sizeof(int64_t), cmp_i64);
			x->end[k] = m % 2 ? ends[m / 2] : ends[m / 2 - 1] + (ends[m / 2] - ends[m / 2 - 1]) / 2;
			x->op[k] = agree ? w.ophash[kop(&w, g[0].k[k])] : 0;
		}
		a = b;
	}
	rc = GD_OK;
out:
	free(ends);
	work_free(&w);
	if (rc != GD_OK)
		gd_coll_timelines_free(t);
	return rc;
}

void gd_coll_timelines_free(struct gd_coll_timelines *t)
{
	for (int i = 0; i < t->ng; i++) {
		free(t->g[i].end);
		free(t->g[i].op);
	}
	free(t->g);
	memset(t, 0, sizeof(*t));
}
