/* Reading a profile database (docs/profile-schema.md, version 1) into memory; see profile.h.
 *
 * Speed matters (a million kernels in well under the 3 s budget of `gpudiag report`): each
 * table is read with one prepared statement in start order (the schema indexes start), the
 * strings table once into an array indexed by id, and nothing is joined in SQL that a
 * small in-memory lookup can do. */
#include "profile/profile.h"

#include "core/status.h"
#include "gpu/arch.h"
#include "profile/columns.h"
#include "profile/dbcheck.h"
#include "profile/schema.h"

#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- building -------------------------------------------------------------------------- */
void gd_profile_init(struct gd_profile *p)
{
	memset(p, 0, sizeof(*p));
	p->schema_version = GD_PROFILE_SCHEMA_VERSION;
	p->dropped = 0;
	p->cupti_ok = 1;
	p->have_api = 1;
	p->exit_code = -1;
	p->pm_lost = -1;
}

static void *grow(void *arr, long n, long *cap, size_t size)
{
	if (n < *cap)
		return arr;
	long nc = *cap ? *cap * 2 : 256;
	void *na = realloc(arr, (size_t)nc * size);
	if (!na) {
		fprintf(stderr, "gpudiag: out of memory\n");
		abort(); /* only reached when malloc fails; nothing sensible to return */
	}
	*cap = nc;
	return na;
}

int gd_profile_intern(struct gd_profile *p, const char *s)
{
	for (int i = 0; i < p->nnames; i++)
		if (p->names[i] && !strcmp(p->names[i], s))
			return i;
	long cap = p->cap_names;
	p->names = grow(p->names, p->nnames, &cap, sizeof(char *));
	p->cap_names = (int)cap;
	p->names[p->nnames] = strdup(s);
	return p->nnames++;
}

#define ADD(fn, type, arr, count, cap)                                        \
	type *fn(struct gd_profile *p)                                        \
	{                                                                     \
		p->arr = grow(p->arr, p->count, &p->cap, sizeof(type));       \
		type *e = &p->arr[p->count++];                                \
		memset(e, 0, sizeof(*e));                                     \
		return e;                                                     \
	}
ADD(gd_profile_add_kernel, struct gd_pkernel, k, nk, cap_k)
ADD(gd_profile_add_copy, struct gd_pcopy, c, nc, cap_c)
ADD(gd_profile_add_api, struct gd_papi, a, na, cap_a)
ADD(gd_profile_add_nvml, struct gd_pnvml, s, ns, cap_s)
ADD(gd_profile_add_mem, struct gd_pmem, m, nm, cap_m)

struct gd_pnvtx *gd_profile_add_nvtx(struct gd_profile *p)
{
	struct gd_pnvtx *e;
	p->nv = grow(p->nv, p->nnv, &p->cap_nv, sizeof(*p->nv));
	e = &p->nv[p->nnv++];
	memset(e, 0, sizeof(*e));
	e->name = e->domain = -1;
	e->end = -1;
	return e;
}

struct gd_pm_sample *gd_profile_add_pm(struct gd_profile *p)
{
	p->pm = grow(p->pm, p->npm, &p->cap_pm, sizeof(*p->pm));
	struct gd_pm_sample *e = &p->pm[p->npm++];
	memset(e, 0, sizeof(*e));
	for (int m = 0; m < GD_PM_COUNT; m++)
		e->v[m] = NAN;
	return e;
}

struct gd_pm_kernel *gd_profile_add_kpm(struct gd_profile *p)
{
	p->kpm = grow(p->kpm, p->nkpm, &p->cap_kpm, sizeof(*p->kpm));
	struct gd_pm_kernel *e = &p->kpm[p->nkpm++];
	memset(e, 0, sizeof(*e));
	for (int m = 0; m < GD_PM_COUNT; m++)
		e->v[m] = NAN;
	e->dram_bps = NAN;
	return e;
}

const struct gd_pm_kernel *gd_profile_kernel_counters(const struct gd_profile *p, int device, int name)
{
	for (long i = 0; i < p->nkpm; i++)
		if (p->kpm[i].name == name && p->kpm[i].device == device)
			return &p->kpm[i];
	return NULL;
}

struct gd_klaunch *gd_profile_add_klaunch(struct gd_profile *p)
{
	p->kl = grow(p->kl, p->nkl, &p->cap_kl, sizeof(*p->kl));
	struct gd_klaunch *e = &p->kl[p->nkl++];
	memset(e, 0, sizeof(*e));
	for (int m = 0; m < GD_KC_COUNT; m++)
		e->q[m] = NAN;
	e->kernel = -1;
	e->profile_ns = -1;
	e->replay = -1; /* not said */
	e->extra = p->nkx;
	return e;
}

int gd_profile_add_kextra(struct gd_profile *p, int metric, double value)
{
	struct gd_klaunch *l = p->nkl ? &p->kl[p->nkl - 1] : NULL;
	/* a launch's extras are one run of p->kx: only the last launch can grow its run */
	if (!l || l->extra + l->nextra != p->nkx)
		return GD_EFAIL;
	p->kx = grow(p->kx, p->nkx, &p->cap_kx, sizeof(*p->kx));
	p->kx[p->nkx].metric = metric;
	p->kx[p->nkx].value = value;
	p->nkx++;
	l->nextra++;
	return GD_OK;
}

struct gd_pdevice *gd_profile_add_device(struct gd_profile *p)
{
	long cap = p->cap_dev;
	struct gd_pdevice *e;
	p->dev = grow(p->dev, p->ndev, &cap, sizeof(*p->dev));
	p->cap_dev = (int)cap;
	e = &p->dev[p->ndev++];
	memset(e, 0, sizeof(*e));
	e->max_sm_mhz = e->mem_bus_bits = e->mem_clock_khz = -1;
	e->ceil.dram_bps = e->ceil.l2_bps = NAN;
	for (int i = 0; i < GD_P_COUNT; i++)
		e->ceil.cuda_core[i] = e->ceil.tensor[i] = NAN;
	e->ceil.sm_clock_mhz = -1;
	return e;
}

/* Sizes an event array once from the table's row count, so a million rows cost no
 * reallocations. */
static void reserve(void **arr, long *cap, long n, size_t size)
{
	void *na;
	if (n <= *cap)
		return;
	na = realloc(*arr, (size_t)n * size);
	if (na) {
		*arr = na;
		*cap = n;
	}
}


void gd_profile_free(struct gd_profile *p)
{
	for (int i = 0; i < p->nnames; i++)
		free(p->names[i]);
	free(p->names);
	free(p->k);
	free(p->c);
	free(p->a);
	free(p->s);
	free(p->m);
	free(p->nv);
	free(p->proc);
	free(p->dev);
	free(p->pm);
	free(p->kpm);
	free(p->kl);
	free(p->kx);
	free(p->rw);
	memset(p, 0, sizeof(*p));
}

int gd_api_category(const char *n)
{
	if (!n)
		return GD_API_OTHER;
	if (strstr(n, "Synchronize") || strstr(n, "cudaStreamQuery") == n)
		return strstr(n, "Query") ? GD_API_OTHER : GD_API_SYNC;
	if (strstr(n, "Launch"))
		return GD_API_LAUNCH;
	if (!strncmp(n, "cudaMemcpy", 10) || !strncmp(n, "cuMemcpy", 8) || !strncmp(n, "cudaMemset", 10) ||
	    !strncmp(n, "cuMemset", 8))
		return strstr(n, "Async") ? GD_API_COPY_ASYNC : GD_API_COPY_SYNC;
	if (!strncmp(n, "cudaMalloc", 10) || !strncmp(n, "cuMemAlloc", 10) || !strncmp(n, "cudaHostAlloc", 13) ||
	    !strncmp(n, "cuMemCreate", 11) || !strncmp(n, "cuMemHostAlloc", 14))
		return GD_API_ALLOC;
	if (!strncmp(n, "cudaFree", 8) || !strncmp(n, "cuMemFree", 9) || !strncmp(n, "cuMemRelease", 12))
		return GD_API_FREE;
	return GD_API_OTHER;
}

#define SORTER(name, type)                                                            \
	static int name(const void *x, const void *y)                                 \
	{                                                                             \
		const type *a = x, *b = y;                                            \
		return a->start < b->start ? -1 : a->start > b->start ? 1 : 0;        \
	}
SORTER(cmp_k, struct gd_pkernel)
SORTER(cmp_c, struct gd_pcopy)
SORTER(cmp_a, struct gd_papi)
SORTER(cmp_nv, struct gd_pnvtx)

static int cmp_s(const void *x, const void *y)
{
	const struct gd_pnvml *a = x, *b = y;
	return a->t < b->t ? -1 : a->t > b->t;
}
static int cmp_m(const void *x, const void *y)
{
	const struct gd_pmem *a = x, *b = y;
	return a->t < b->t ? -1 : a->t > b->t;
}
static int cmp_pm(const void *x, const void *y)
{
	const struct gd_pm_sample *a = x, *b = y;
	if (a->device != b->device)
		return a->device < b->device ? -1 : 1;
	return a->t_start < b->t_start ? -1 : a->t_start > b->t_start;
}

/* Profiled launches in (pid, corr) order; equal keys (a damaged file) by launch index. */
static int cmp_kl(const void *x, const void *y)
{
	const struct gd_klaunch *a = x, *b = y;
	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	if (a->corr != b->corr)
		return a->corr < b->corr ? -1 : 1;
	return a->nth < b->nth ? -1 : a->nth > b->nth;
}

/* (pid, corr) → kernel record: a sorted key list, searched once per launch. */
struct kkey {
	int pid;
	uint32_t corr;
	long idx;
};
static int cmp_kkey(const void *x, const void *y)
{
	const struct kkey *a = x, *b = y;
	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	if (a->corr != b->corr)
		return a->corr < b->corr ? -1 : 1;
	return a->idx < b->idx ? -1 : a->idx > b->idx; /* the first kernel of a key wins */
}

/* Sorts the launches and links each to the kernel record of its (pid, corr), -1 when none
 * (the kernel fell outside the capture window, or its record was lost). */
static void link_klaunches(struct gd_profile *p)
{
	struct kkey *keys;
	if (!p->nkl)
		return;
	for (long i = 1; i < p->nkl; i++)
		if (cmp_kl(&p->kl[i - 1], &p->kl[i]) > 0) {
			qsort(p->kl, (size_t)p->nkl, sizeof(*p->kl), cmp_kl);
			break;
		}
	for (long i = 0; i < p->nkl; i++)
		p->kl[i].kernel = -1;
	keys = p->nk ? malloc((size_t)p->nk * sizeof(*keys)) : NULL;
	if (!keys)
		return; /* no kernels (or no memory): every launch stays unlinked */
	for (long i = 0; i < p->nk; i++)
		keys[i] = (struct kkey){p->k[i].pid, p->k[i].corr, i};
	qsort(keys, (size_t)p->nk, sizeof(*keys), cmp_kkey);
	for (long i = 0; i < p->nkl; i++) {
		long lo = 0, hi = p->nk;
		struct kkey want = {p->kl[i].pid, p->kl[i].corr, -1};
		while (lo < hi) { /* the first key >= want */
			long mid = lo + (hi - lo) / 2;
			if (cmp_kkey(&keys[mid], &want) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < p->nk && keys[lo].pid == want.pid && keys[lo].corr == want.corr)
			p->kl[i].kernel = keys[lo].idx;
	}
	free(keys);
}

#define SORT_IF_NEEDED(arr, n, key, cmp)                                             \
	do {                                                                         \
		for (long i_ = 1; i_ < (n); i_++)                                    \
			if ((arr)[i_].key < (arr)[i_ - 1].key) {                     \
				qsort((arr), (size_t)(n), sizeof(*(arr)), cmp);      \
				break;                                               \
			}                                                            \
	} while (0)

void gd_profile_finish(struct gd_profile *p)
{
	SORT_IF_NEEDED(p->k, p->nk, start, cmp_k);
	SORT_IF_NEEDED(p->c, p->nc, start, cmp_c);
	SORT_IF_NEEDED(p->a, p->na, start, cmp_a);
	SORT_IF_NEEDED(p->s, p->ns, t, cmp_s);
	SORT_IF_NEEDED(p->m, p->nm, t, cmp_m);
	SORT_IF_NEEDED(p->nv, p->nnv, start, cmp_nv);
	link_klaunches(p); /* after the kernels are in their final order */
	/* DRAM B/s of the per-kernel counters: their % of the device's peak */
	for (long i = 0; i < p->nkpm; i++) {
		struct gd_pm_kernel *r = &p->kpm[i];
		double peak = r->device >= 0 && r->device < p->ndev
				      ? gd_pm_dram_peak_bps(p->dev[r->device].mem_clock_khz, p->dev[r->device].mem_bus_bits)
				      : NAN;
		r->dram_bps = isfinite(r->v[GD_PM_DRAM]) ? r->v[GD_PM_DRAM] / 100.0 * peak : NAN;
	}
	/* PM samples: per device, in time order (as the reader selects them) */
	for (long i = 1; i < p->npm; i++)
		if (cmp_pm(&p->pm[i - 1], &p->pm[i]) > 0) {
			qsort(p->pm, (size_t)p->npm, sizeof(*p->pm), cmp_pm);
			break;
		}
	if (!p->t_start || !p->t_end) {
		int64_t lo = INT64_MAX, hi = INT64_MIN;
		for (long i = 0; i < p->nk; i++) {
			lo = p->k[i].start < lo ? p->k[i].start : lo;
			hi = p->k[i].end > hi ? p->k[i].end : hi;
		}
		for (long i = 0; i < p->nc; i++) {
			lo = p->c[i].start < lo ? p->c[i].start : lo;
			hi = p->c[i].end > hi ? p->c[i].end : hi;
		}
		for (long i = 0; i < p->na; i++) {
			lo = p->a[i].start < lo ? p->a[i].start : lo;
			hi = p->a[i].end > hi ? p->a[i].end : hi;
		}
		if (lo < hi) {
			if (!p->t_start)
				p->t_start = lo;
			if (!p->t_end)
				p->t_end = hi;
		}
	}
	for (int d = 0; d < p->ndev; d++) {
		struct gd_pdevice *dv = &p->dev[d];
		if (!dv->occ_ok) {
			const struct gd_arch *a = gd_arch_find(dv->major, dv->minor);
			if (a && gd_occ_device_from_arch(a, &dv->occ) == 0) {
				dv->occ.sm_count = dv->sm_count > 0 ? dv->sm_count : 0;
				dv->occ_ok = 1;
			}
		}
	}
}

/* ---- loading --------------------------------------------------------------------------- */
static int64_t col_i64(sqlite3_stmt *s, int i, int64_t dflt)
{
	return sqlite3_column_type(s, i) == SQLITE_NULL ? dflt : sqlite3_column_int64(s, i);
}
static int col_int(sqlite3_stmt *s, int i, int dflt)
{
	return sqlite3_column_type(s, i) == SQLITE_NULL ? dflt : sqlite3_column_int(s, i);
}
static unsigned long long col_u64(sqlite3_stmt *s, int i, unsigned long long dflt)
{
	return sqlite3_column_type(s, i) == SQLITE_NULL ? dflt : (unsigned long long)sqlite3_column_int64(s, i);
}
static double col_dbl(sqlite3_stmt *s, int i)
{
	return sqlite3_column_type(s, i) == SQLITE_NULL ? NAN : sqlite3_column_double(s, i);
}
/* A stored number; text or a blob is not one (sqlite3_column_double would read 'abc' as 0). */
static double col_num(sqlite3_stmt *s, int i)
{
	int ty = sqlite3_column_type(s, i);
	return ty == SQLITE_INTEGER || ty == SQLITE_FLOAT ? sqlite3_column_double(s, i) : NAN;
}
static void col_txt(sqlite3_stmt *s, int i, char *buf, size_t n)
{
	const char *t = (const char *)sqlite3_column_text(s, i);
	if (t)
		snprintf(buf, n, "%s", t);
}

/* The read conversions of columns.h. READ_ROW(list) fills the current row of statement `s`
 * (prepared from the same list by select(), so the i-th read column is SELECT column i) into
 * `o` and `t`. The calls unroll at compile time: no per-row lookup of names or indexes. */
#define RD_NO(lv, d)
#define RD_INT(lv, d) lv = col_int(s, i_++, d);
#define RD_I64(lv, d) lv = col_i64(s, i_++, d);
#define RD_U32(lv, d) lv = (uint32_t)col_i64(s, i_++, d);
#define RD_U64(lv, d) lv = col_u64(s, i_++, d);
#define RD_DBL(lv, d) lv = col_dbl(s, i_++);
#define RD_I64D(lv, d) lv = (double)col_i64(s, i_++, d);
#define RD_TXT(lv, d) col_txt(s, i_++, lv, sizeof(lv));
#define RD_STR(lv, d) lv = (const char *)sqlite3_column_text(s, i_++);
#define RD_NUM(lv, d) lv = col_num(s, i_++);
#define FILL(col, type, write, read, field, dflt) RD_##read(field, dflt)
#define READ_ROW(list)              \
	do {                        \
		int i_ = 0;         \
		list(FILL)(void) i_; \
	} while (0)

static int meta(sqlite3 *db, const char *key, char *buf, size_t n)
{
	sqlite3_stmt *s;
	int found = 0;
	buf[0] = 0;
	if (sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE key = ?", -1, &s, NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_text(s, 1, key, -1, SQLITE_STATIC);
	if (sqlite3_step(s) == SQLITE_ROW && sqlite3_column_text(s, 0)) {
		snprintf(buf, n, "%s", (const char *)sqlite3_column_text(s, 0));
		found = 1;
	}
	sqlite3_finalize(s);
	return found;
}

static int has_table(sqlite3 *db, const char *t)
{
	sqlite3_stmt *s;
	int r = 0;
	if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE name = ?", -1, &s, NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_text(s, 1, t, -1, SQLITE_STATIC);
	r = sqlite3_step(s) == SQLITE_ROW;
	sqlite3_finalize(s);
	return r;
}

/* The legacy NULL stream of each (pid, context): a small table searched linearly. */
struct nullst {
	int64_t pid, ctx, stream;
};

static int cmp_nullst(const void *x, const void *y)
{
	const struct nullst *a = x, *b = y;
	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	return a->ctx < b->ctx ? -1 : a->ctx > b->ctx;
}

/* ns: sorted by (pid, ctx); a profile may hold any number of contexts (one per process and
 * device: a merged multi-node job has thousands). */
static int is_legacy(const struct nullst *ns, long nn, int64_t pid, int64_t ctx, int64_t stream)
{
	struct nullst key = {pid, ctx, 0};
	const struct nullst *e = nn ? bsearch(&key, ns, (size_t)nn, sizeof(key), cmp_nullst) : NULL;
	return e && e->stream == stream;
}

/* A stream created non-blocking, identified by (pid, stream). */
struct pstream {
	int64_t pid, stream;
};

static int cmp_pstream(const void *x, const void *y)
{
	const struct pstream *a = x, *b = y;
	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	return a->stream < b->stream ? -1 : a->stream > b->stream;
}

/* One gd_profile_load in progress: the database, the statement of the step running, where
 * the reason goes, and the lookups the event steps share. */
struct loader {
	sqlite3 *db;
	sqlite3_stmt *s;
	struct gd_profile *p;
	const char *path;
	char *why;
	size_t n;
	struct gd_db_guard guard;
	struct nullst *ns;  /* legacy default streams, sorted */
	long nn;
	struct pstream *nb; /* non-blocking streams, sorted */
	long nnb;
	signed char *cat;   /* name id → gd_api_category, -1 = not computed yet */
};

static int is_nonblocking(const struct loader *L, int64_t pid, int64_t stream)
{
	struct pstream key = {pid, stream};
	return L->nnb && bsearch(&key, L->nb, (size_t)L->nnb, sizeof(key), cmp_pstream) != NULL;
}

/* Prepares sql as the current statement. */
static int query(struct loader *L, const char *sql)
{
	if (L->s)
		sqlite3_finalize(L->s);
	L->s = NULL;
	if (sqlite3_prepare_v2(L->db, sql, -1, &L->s, NULL) != SQLITE_OK) {
		char m[256];
		snprintf(L->why, L->n, "'%s' is corrupt or not a gpudiag profile: %s", L->path,
			 gd_db_errmsg(L->db, &L->guard, m, sizeof(m)));
		return GD_EDATA;
	}
	return GD_OK;
}

/* Prepares the reader's SELECT of a table of columns.h. */
static int query_table(struct loader *L, int table)
{
	char sql[2048];
	if (gd_table_select_sql(&gd_tables[table], sql, sizeof(sql)) < 0) {
		snprintf(L->why, L->n, "'%s': internal error: the query of table %s is too long", L->path,
			 gd_tables[table].name);
		return GD_EDATA;
	}
	return query(L, sql);
}

static int step_done(struct loader *L, int r)
{
	if (r != SQLITE_DONE) {
		char m[256];
		snprintf(L->why, L->n, "'%s' is corrupt: %s", L->path, gd_db_errmsg(L->db, &L->guard, m, sizeof(m)));
		return GD_EDATA;
	}
	return GD_OK;
}

static long count_rows(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *s;
	long n = 0;
	if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
		return 0;
	if (sqlite3_step(s) == SQLITE_ROW)
		n = (long)sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return n;
}

/* The file is an SQLite database holding a gpudiag profile of the version this code reads. */
static int load_open(struct loader *L)
{
	FILE *probe = fopen(L->path, "rb");
	if (!probe) {
		snprintf(L->why, L->n, "cannot open '%s'", L->path);
		return GD_EDATA;
	}
	{
		char head[16] = {0};
		size_t got = fread(head, 1, 16, probe);
		fclose(probe);
		if (got < 16 || memcmp(head, "SQLite format 3", 16)) {
			snprintf(L->why, L->n, "'%s' is not a gpudiag profile (not an SQLite database)", L->path);
			return GD_EDATA;
		}
	}
	if (sqlite3_open_v2(L->path, &L->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		snprintf(L->why, L->n, "cannot open '%s': %s", L->path, L->db ? sqlite3_errmsg(L->db) : "out of memory");
		return GD_EDATA;
	}
	gd_db_harden(L->db, &L->guard);
	/* Reading a large profile is a few sequential table scans, which reuse no page: a small
	 * page cache, and the file not memory-mapped. Mapping it saved about 5 % of the time on
	 * the 1 M-kernel benchmark, but every page read stayed in the process's resident set
	 * beside the loaded arrays (peak RSS 321 against 252 MB; 580 against 406 MB with a
	 * framework range per kernel; tests/bench/report_1m.sh, 2026-12-06). */
	sqlite3_exec(L->db, "PRAGMA mmap_size = 0; PRAGMA cache_size = -8192;", NULL, NULL, NULL);
	if (gd_db_check_version(L->db, &L->guard, L->path, L->why, L->n))
		return GD_EDATA;
	L->p->schema_version = GD_PROFILE_SCHEMA_VERSION;
	/* Every table read must be what the schema declares before a query touches it: a view
	 * of the same name could compute anything (an unbounded recursive query). The process
	 * and stream tables are optional facts, so only their kind is checked. */
	{
		static const int full[] = {GD_T_STRINGS, GD_T_DEVICES, GD_T_CONTEXTS,    GD_T_KERNELS,
					   GD_T_MEMCPY,  GD_T_MEMSET,  GD_T_API,         GD_T_SYNC,
					   GD_T_NVML,    GD_T_MEMORY,  GD_T_GPU_METRICS, GD_T_KERNEL_METRICS,
					   GD_T_METRIC_LAUNCHES, GD_T_METRIC_VALUES, GD_T_CEILINGS};
		static const int kind[] = {GD_T_STREAMS, GD_T_DROPPED, GD_T_PROCESSES};
		if (gd_db_check_tables(L->db, &L->guard, L->path, full, (int)(sizeof(full) / sizeof(full[0])), 1, L->why,
				       L->n) ||
		    gd_db_check_tables(L->db, &L->guard, L->path, kind, (int)(sizeof(kind) / sizeof(kind[0])), 0, L->why,
				       L->n))
			return GD_EDATA;
	}
	if (!has_table(L->db, "kernels") || !has_table(L->db, "strings") || !has_table(L->db, "devices")) {
		snprintf(L->why, L->n, "'%s' is not a gpudiag profile (tables missing)", L->path);
		return GD_EDATA;
	}
	return GD_OK;
}

/* A meta count: the decimal digits of a number in [0, 2^62), else -1 ("12abc", "-3", "" and
 * "1e9" are not counts). */
static long long meta_count(const char *v)
{
	long long x = 0;
	if (!*v)
		return -1;
	for (; *v; v++) {
		if (*v < '0' || *v > '9' || x > (GD_TIME_MAX - 9) / 10)
			return -1;
		x = x * 10 + (*v - '0');
	}
	return x;
}

static int load_meta(struct loader *L)
{
	struct gd_profile *p = L->p;
	char v[1024];
	if (meta(L->db, "command_line", v, sizeof(v)))
		snprintf(p->command, sizeof(p->command), "%s", v);
	if (meta(L->db, "driver_version", v, sizeof(v)))
		snprintf(p->driver, sizeof(p->driver), "%.79s", v);
	if (meta(L->db, "sample_label", v, sizeof(v)))
		snprintf(p->label, sizeof(p->label), "%.255s", v);
	if (meta(L->db, "synthetic", v, sizeof(v)))
		p->synthetic = atoi(v);
	if (meta(L->db, "start_ns", v, sizeof(v)))
		p->t_start = strtoll(v, NULL, 10);
	if (meta(L->db, "end_ns", v, sizeof(v)))
		p->t_end = strtoll(v, NULL, 10);
	/* An impossible capture window is unknown (derived from the events), as if not recorded;
	 * it also anchors the plausibility window of every event (gd_time_ok). */
	if (p->t_start < 0 || p->t_start >= GD_TIME_MAX)
		p->t_start = 0;
	if (p->t_end < 0 || p->t_end >= GD_TIME_MAX || (p->t_start && p->t_end && p->t_end < p->t_start))
		p->t_end = 0;
	if (meta(L->db, "exit_code", v, sizeof(v)))
		p->exit_code = atoi(v);
	if (meta(L->db, "traced", v, sizeof(v)))
		p->cupti_ok = atoi(v) != 0;
	if (meta(L->db, "api_trace", v, sizeof(v)))
		p->have_api = strcmp(v, "none") != 0;
	/* the GPU-metrics timeline: whether counters were taken, at what interval, how many lost */
	if (meta(L->db, "counters", v, sizeof(v)))
		snprintf(p->counters, sizeof(p->counters), "%.255s", v);
	if (meta(L->db, "counters_interval_ns", v, sizeof(v))) {
		long long x = meta_count(v);
		p->pm_interval_ns = x > 0 ? x : 0; /* 0: unknown */
	}
	if (meta(L->db, "counters_lost_samples", v, sizeof(v)))
		p->pm_lost = meta_count(v); /* -1: unknown */
	/* per-launch counters (issue 19): the set asked for, the names refused, why none */
	if (meta(L->db, "metrics", v, sizeof(v)))
		snprintf(p->metrics, sizeof(p->metrics), "%.511s", v);
	if (meta(L->db, "metrics_rejected", v, sizeof(v)))
		snprintf(p->metrics_rejected, sizeof(p->metrics_rejected), "%.1023s", v);
	if (meta(L->db, "metrics_note", v, sizeof(v)))
		snprintf(p->metrics_note, sizeof(p->metrics_note), "%.255s", v);
	return GD_OK;
}

/* One row of a single-row query: 1 a row, 0 none, -1 an error (the reason in L->why). */
static int step1(struct loader *L)
{
	int r = sqlite3_step(L->s);
	if (r == SQLITE_ROW)
		return 1;
	return step_done(L, r) ? -1 : 0;
}

/* The index into p->names of string id `id` read from an event, or -1 when the id names no
 * string (negative, beyond the strings table, or a gap in it). */
static int sid(const struct gd_profile *p, int64_t id)
{
	return id >= 0 && id < p->nnames && p->names[id] ? (int)id : -1;
}

/* An event row whose times are impossible is left out and counted (gd_time_ok). */
static int bad_time(struct loader *L, int64_t start, int64_t end)
{
	if (gd_time_ok(L->p->t_start, start, end))
		return 0;
	L->p->bad_rows++;
	return 1;
}

/* strings: ids are dense in practice (the writer numbers them from 1), but do not rely on
 * it; ids so sparse that the lookup array would dwarf the table are refused as corrupt. */
static int load_strings(struct loader *L)
{
	struct gd_profile *p = L->p;
	struct {
		int64_t id;
		const char *value;
	} t;
	int r;
	int64_t maxid = -1, count = 0;
	sqlite3_stmt *s;
	if (query(L, "SELECT MAX(id), COUNT(*) FROM strings"))
		return GD_EDATA;
	if ((r = step1(L)) < 0)
		return GD_EDATA;
	if (r) {
		maxid = col_i64(L->s, 0, -1);
		count = col_i64(L->s, 1, 0);
	}
	if (maxid < 0) /* no string with a usable id: every event is unnamed */
		maxid = -1;
	if (maxid > 50000000 || maxid > 16 * count + 65536) {
		snprintf(L->why, L->n, "'%s' is corrupt: string id %lld", L->path, (long long)maxid);
		return GD_EDATA;
	}
	p->nnames = p->cap_names = (int)(maxid + 1);
	p->names = calloc((size_t)(maxid + 2), sizeof(char *));
	L->cat = malloc((size_t)(maxid + 2));
	if (!p->names) {
		p->nnames = p->cap_names = 0;
		snprintf(L->why, L->n, "'%s': out of memory for %lld strings", L->path, (long long)maxid + 1);
		return GD_EDATA;
	}
	if (L->cat)
		memset(L->cat, -1, (size_t)(maxid + 2));
	if (query_table(L, GD_T_STRINGS))
		return GD_EDATA;
	s = L->s;
	while ((r = sqlite3_step(s)) == SQLITE_ROW) {
		READ_ROW(GD_STRINGS_COLUMNS);
		if (t.id >= 0 && t.id <= maxid && !p->names[t.id])
			p->names[t.id] = strdup(t.value ? t.value : "");
	}
	return step_done(L, r);
}

static int load_devices(struct loader *L)
{
	struct gd_profile *p = L->p;
	sqlite3_stmt *s;
	int r;
	int64_t count = 0;
	if (query(L, "SELECT COUNT(*) FROM devices"))
		return GD_EDATA;
	if ((r = step1(L)) < 0)
		return GD_EDATA;
	if (r)
		count = col_i64(L->s, 0, 0);
	if (count > GD_PROFILE_MAX_DEVICES) {
		snprintf(L->why, L->n, "'%s' is corrupt: %lld devices (gpudiag reads at most %d)", L->path,
			 (long long)count, GD_PROFILE_MAX_DEVICES);
		return GD_EDATA;
	}
	if (query_table(L, GD_T_DEVICES))
		return GD_EDATA;
	s = L->s;
	while ((r = sqlite3_step(s)) == SQLITE_ROW) {
		struct gd_pdevice *o;
		struct {
			int warp_size, max_threads_per_block, max_threads_per_sm, max_blocks_per_sm, regs_per_sm,
			    regs_per_block, smem_per_sm, smem_per_block, smem_per_block_optin, smem_reserved,
			    sm_clock_khz;
		} t;
		const struct gd_arch *a;
		if (p->ndev >= GD_PROFILE_MAX_DEVICES) { /* rows appeared since the count: not a file */
			snprintf(L->why, L->n, "'%s' is corrupt: more than %d devices", L->path, GD_PROFILE_MAX_DEVICES);
			return GD_EDATA;
		}
		o = gd_profile_add_device(p);
		READ_ROW(GD_DEVICES_COLUMNS);
		o->max_sm_mhz = t.sm_clock_khz / 1000;
		a = gd_arch_find(o->major, o->minor);
		if (a && gd_occ_device_from_arch(a, &o->occ) == 0) {
			/* the recorded properties win over the table where present */
			if (t.warp_size > 0) o->occ.warp_size = t.warp_size;
			if (t.max_threads_per_block > 0) o->occ.max_threads_per_block = t.max_threads_per_block;
			if (t.max_threads_per_sm > 0) o->occ.max_threads_per_sm = t.max_threads_per_sm;
			if (t.max_blocks_per_sm > 0) o->occ.max_blocks_per_sm = t.max_blocks_per_sm;
			if (t.regs_per_sm > 0) o->occ.regs_per_sm = t.regs_per_sm;
			if (t.regs_per_block > 0) o->occ.regs_per_block = t.regs_per_block;
			if (t.smem_per_sm > 0) o->occ.smem_per_sm = (size_t)t.smem_per_sm;
			if (t.smem_per_block > 0) o->occ.smem_per_block = (size_t)t.smem_per_block;
			if (t.smem_per_block_optin > 0) o->occ.smem_per_block_optin = (size_t)t.smem_per_block_optin;
			if (t.smem_reserved >= 0) o->occ.smem_reserved_per_block = (size_t)t.smem_reserved;
			o->occ.sm_count = o->sm_count;
			o->occ_ok = 1;
		}
	}
	return step_done(L, r);
}

/* legacy default streams: every row, sorted for the per-event lookup */
static int load_contexts(struct loader *L)
{
	sqlite3_stmt *s;
	int r;
	long cap = 0;
	if (!has_table(L->db, "contexts"))
		return GD_OK;
	if (query_table(L, GD_T_CONTEXTS))
		return GD_EDATA;
	s = L->s;
	while ((r = sqlite3_step(s)) == SQLITE_ROW) {
		struct nullst *o;
		if (L->nn == cap) {
			long nc = cap ? cap * 2 : 64;
			struct nullst *ns = realloc(L->ns, (size_t)nc * sizeof(*ns));
			if (!ns) {
				snprintf(L->why, L->n, "'%s': out of memory for %ld contexts", L->path, nc);
				return GD_EDATA;
			}
			L->ns = ns;
			cap = nc;
		}
		o = &L->ns[L->nn];
		READ_ROW(GD_CONTEXTS_COLUMNS);
		L->nn++;
	}
	if (L->nn > 1)
		qsort(L->ns, (size_t)L->nn, sizeof(*L->ns), cmp_nullst);
	return step_done(L, r);
}

/* Non-blocking streams. Optional facts: a damaged or missing table leaves every stream
 * "not non-blocking" rather than refusing a profile the rest of the reader accepts. */
static int load_streams(struct loader *L)
{
	sqlite3_stmt *s;
	long cap = 0;
	char sql[512];
	if (!has_table(L->db, "streams") || gd_table_select_sql(&gd_tables[GD_T_STREAMS], sql, sizeof(sql)) < 0 ||
	    sqlite3_prepare_v2(L->db, sql, -1, &s, NULL) != SQLITE_OK)
		return GD_OK;
	while (sqlite3_step(s) == SQLITE_ROW) {
		struct pstream *o;
		if (L->nnb == cap) {
			long nc = cap ? cap * 2 : 64;
			struct pstream *nb = realloc(L->nb, (size_t)nc * sizeof(*nb));
			if (!nb)
				break;
			L->nb = nb;
			cap = nc;
		}
		o = &L->nb[L->nnb++];
		READ_ROW(GD_STREAMS_COLUMNS);
	}
	sqlite3_finalize(s);
	if (L->nnb > 1)
		qsort(L->nb, (size_t)L->nnb, sizeof(*L->nb), cmp_pstream);
	return GD_OK; /* had the time limit stopped this scan, the next statement reports it */
}

/* kernels, in table order (gd_profile_finish sorts if the writer did not) */
static int load_kernels(struct loader *L)
{
	struct gd_profile *p = L->p;
	struct {
		int64_t context, name, dname;
	} t;
	sqlite3_stmt *s;
	int r;
	reserve((void **)&p->k, &p->cap_k, count_rows(L->db, "SELECT COUNT(*) FROM kernels"), sizeof(*p->k));
	if (query_table(L, GD_T_KERNELS))
		return GD_EDATA;
	s = L->s;
	while ((r = sqlite3_step(s)) == SQLITE_ROW) {
		struct gd_pkernel *o = gd_profile_add_kernel(p);
		int64_t named;
		READ_ROW(GD_KERNELS_COLUMNS);
		if (bad_time(L, o->start, o->end)) {
			p->nk--;
			continue;
		}
		/* A kernel needs one usable name: the recorded one, else the demangled one. */
		named = sid(p, t.name) >= 0 ? t.name : t.dname;
		o->name = sid(p, named);
		o->dname = sid(p, t.dname) >= 0 ? (int)t.dname : o->name;
		if (o->name < 0) {
			snprintf(L->why, L->n, "'%s' is corrupt: a kernel names string id %lld, which is missing", L->path,
				 (long long)named);
			return GD_EDATA;
		}
		o->legacy = is_legacy(L->ns, L->nn, o->pid, t.context, o->stream);
		o->nonblocking = is_nonblocking(L, o->pid, o->stream);
	}
	return step_done(L, r);
}

/* copies, then memsets (as copies of kind GD_CK_MEMSET) */
static int load_copies(struct loader *L)
{
	struct gd_profile *p = L->p;
	struct {
		int64_t context;
	} t;
	sqlite3_stmt *s;
	int r;
	if (query_table(L, GD_T_MEMCPY))
		return GD_EDATA;
	s = L->s;
	while ((r = sqlite3_step(s)) == SQLITE_ROW) {
		struct gd_pcopy *o = gd_profile_add_copy(p);
		READ_ROW(GD_MEMCPY_COLUMNS);
		if (bad_time(L, o->start, o->end)) {
			p->nc--;
			continue;
		}
		o->legacy = is_legacy(L->ns, L->nn, o->pid, t.context, o->stream);
		o->nonblocking = is_nonblocking(L, o->pid, o->stream);
	}
	if (step_done(L, r) || query_table(L, GD_T_MEMSET))
		return GD_EDATA;
	s = L->s;
	while ((r = sqlite3_step(s)) == SQLITE_ROW) {
		struct gd_pcopy *o = gd_profile_add_copy(p);
		READ_ROW(GD_MEMSET_COLUMNS);
		if (bad_time(L, o->start, o->end)) {
			p->nc--;
			continue;
		}
		o->kind = GD_CK_MEMSET;
		o->dst_kind = o->src_kind;
		o->legacy = is_legacy(L->ns, L->nn, o->pid, t.context, o->stream);
		o->nonblocking = is_nonblocking(L, o->pid, o->stream);
	}
	return step_done(L, r);
}

/* API calls; synchronisation records stand in for sync API calls when those were not traced.
 * An API call whose name id names no string is kept, unnamed (name -1, category other): the
 * call's time still counts, only its function is unknown. */
static int load_api(struct loader *L)
{
	struct gd_profile *p = L->p;
	struct {
		int64_t name;
	} t;
	sqlite3_stmt *s;
	int r, nsync = 0;
	reserve((void **)&p->a, &p->cap_a, count_rows(L->db, "SELECT COUNT(*) FROM api") + 16, sizeof(*p->a));
	if (query_table(L, GD_T_API))
		return GD_EDATA;
	s = L->s;
	while ((r = sqlite3_step(s)) == SQLITE_ROW) {
		struct gd_papi *o = gd_profile_add_api(p);
		READ_ROW(GD_API_COLUMNS);
		if (bad_time(L, o->start, o->end)) {
			p->na--;
			continue;
		}
		o->name = sid(p, t.name);
		if (o->name >= 0) {
			/* the category of each name is worked out once, not per call */
			if (!L->cat)
				o->cat = gd_api_category(p->names[o->name]);
			else if ((o->cat = L->cat[o->name]) < 0)
				o->cat = L->cat[o->name] = (signed char)gd_api_category(p->names[o->name]);
		} else {
			o->cat = 0;
		}
		nsync += o->cat == GD_API_SYNC;
	}
	if (step_done(L, r))
		return GD_EDATA;
	if (p->na == 0 && p->have_api) /* the table is empty: say so rather than judge */
		p->have_api = 0;
	if (!nsync && has_table(L->db, "sync")) {
		int sync_id = gd_profile_intern(p, "synchronization (CUPTI record)");
		if (query_table(L, GD_T_SYNC))
			return GD_EDATA;
		s = L->s;
		while ((r = sqlite3_step(s)) == SQLITE_ROW) {
			struct gd_papi *o = gd_profile_add_api(p);
			READ_ROW(GD_SYNC_COLUMNS);
			if (bad_time(L, o->start, o->end)) {
				p->na--;
				continue;
			}
			o->name = sync_id;
			o->cat = GD_API_SYNC;
		}
		return step_done(L, r);
	}
	return GD_OK;
}

/* NVTX ranges and marks. A range whose end is before its start, or a time no clock gives,
 * is left out as corrupt; a range never closed keeps end -1. */
static int load_nvtx(struct loader *L)
{
	struct gd_profile *p = L->p;
	struct {
		int64_t domain, name;
	} t;
	sqlite3_stmt *s;
	int r;
	if (!has_table(L->db, "nvtx"))
		return GD_OK;
	if (query_table(L, GD_T_NVTX))
		return GD_EDATA;
	s = L->s;
	while ((r = sqlite3_step(s)) == SQLITE_ROW) {
		struct gd_pnvtx *o = gd_profile_add_nvtx(p);
		READ_ROW(GD_NVTX_COLUMNS);
		o->mark = o->mark == 1;
		if (o->mark)
			o->end = -1;
		if (bad_time(L, o->start, o->end >= 0 ? o->end : o->start)) {
			p->nnv--;
			continue;
		}
		o->name = sid(p, t.name);
		o->domain = sid(p, t.domain);
	}
	return step_done(L, r);
}

static int load_nvml(struct loader *L)
{
	sqlite3_stmt *s;
	int r;
	if (!has_table(L->db, "nvml_samples"))
		return GD_OK;
	if (query_table(L, GD_T_NVML))
		return GD_EDATA;
	s = L->s;
	while ((r = sqlite3_step(s)) == SQLITE_ROW) {
		struct gd_pnvml *o = gd_profile_add_nvml(L->p);
		READ_ROW(GD_NVML_COLUMNS);
		if (bad_time(L, o->t, o->t)) {
			L->p->ns--;
			continue;
		}
		o->power_w /= 1000.0; /* mW → W */
	}
	return step_done(L, r);
}

static int load_memory(struct loader *L)
{
	sqlite3_stmt *s;
	int r;
	if (!has_table(L->db, "memory"))
		return GD_OK;
	if (query_table(L, GD_T_MEMORY))
		return GD_EDATA;
	s = L->s;
	while ((r = sqlite3_step(s)) == SQLITE_ROW) {
		struct gd_pmem *o = gd_profile_add_mem(L->p);
		READ_ROW(GD_MEMORY_COLUMNS);
		if (bad_time(L, o->t, o->t))
			L->p->nm--;
	}
	return step_done(L, r);
}

/* What a quantity may read as: beyond these bounds a value is not a measurement (a damaged or
 * made-up profile) and reads as unknown. Percentages run a little past 100 when counters of
 * one sample are read a few cycles apart, never to 1000; no SM clock reaches 100 GHz and no
 * GPU link 1 PB/s. */
static void pm_bounds(double lo[GD_PM_COUNT], double hi[GD_PM_COUNT])
{
	for (int m = 0; m < GD_PM_COUNT; m++) {
		const char *u = gd_pm_metrics[m].unit;
		lo[m] = 0;
		hi[m] = !strcmp(u, "%") ? 1000 : !strcmp(u, "MHz") ? 1e5 : 1e15;
	}
}

static void pm_clean(double *v, const double *lo, const double *hi)
{
	for (int m = 0; m < GD_PM_COUNT; m++)
		if (!(v[m] >= lo[m] && v[m] <= hi[m])) /* NaN fails too */
			v[m] = NAN;
}

/* gpu_metrics: absent in profiles recorded before counters (no samples) */
static int load_pm(struct loader *L)
{
	struct gd_profile *p = L->p;
	double lo[GD_PM_COUNT], hi[GD_PM_COUNT];
	sqlite3_stmt *s;
	int r;
	if (!has_table(L->db, "gpu_metrics"))
		return GD_OK;
	pm_bounds(lo, hi);
	reserve((void **)&p->pm, &p->cap_pm, count_rows(L->db, "SELECT COUNT(*) FROM gpu_metrics"), sizeof(*p->pm));
	if (query_table(L, GD_T_GPU_METRICS))
		return GD_EDATA;
	s = L->s;
	while ((r = sqlite3_step(s)) == SQLITE_ROW) {
		struct gd_pm_sample *o = gd_profile_add_pm(p);
		READ_ROW(GD_GPU_METRICS_COLUMNS);
		if (bad_time(L, o->t_start, o->t_end)) {
			p->npm--;
			continue;
		}
		pm_clean(o->v, lo, hi);
	}
	return step_done(L, r);
}

/* kernel_metrics: a row naming no string, or of fewer than one sample, is corrupt */
static int load_kpm(struct loader *L)
{
	struct gd_profile *p = L->p;
	double lo[GD_PM_COUNT], hi[GD_PM_COUNT];
	struct {
		int64_t name;
	} t;
	sqlite3_stmt *s;
	int r;
	if (!has_table(L->db, "kernel_metrics"))
		return GD_OK;
	pm_bounds(lo, hi);
	if (query_table(L, GD_T_KERNEL_METRICS))
		return GD_EDATA;
	s = L->s;
	while ((r = sqlite3_step(s)) == SQLITE_ROW) {
		struct gd_pm_kernel *o = gd_profile_add_kpm(p);
		READ_ROW(GD_KERNEL_METRICS_COLUMNS);
		o->name = sid(p, t.name);
		if (o->name < 0 || o->samples < 1 || o->samples >= GD_TIME_MAX) {
			p->nkpm--;
			p->bad_rows++;
			continue;
		}
		pm_clean(o->v, lo, hi);
	}
	return step_done(L, r);
}

/* ---- per-launch counters (issue 19) ---------------------------------------------------- */

/* What a figure may read as: beyond these a value is not a measurement (a damaged or made-up
 * profile) and reads as unknown. No GPU reaches 1 PB/s or 10^18 FLOP/s; a unix time beyond
 * 2^62 ns is not one. */
#define CEIL_BPS_MAX 1e15
#define CEIL_FLOPS_MAX 1e18
#define CEIL_TIME_MAX 4.6e9 /* s: 2^62 ns */

static double in_range(double v, double hi) { return v > 0 && v <= hi ? v : NAN; }

/* ceilings: one row per device (device = its index in p->dev, as every device column); a row
 * for no device is corrupt, counted and left out. Absent in profiles before issue 19. */
static int load_ceilings(struct loader *L)
{
	struct gd_profile *p = L->p;
	struct {
		int64_t device, sm_clock_mhz;
	} t;
	sqlite3_stmt *s;
	int r;
	if (!has_table(L->db, "ceilings"))
		return GD_OK;
	if (query_table(L, GD_T_CEILINGS))
		return GD_EDATA;
	s = L->s;
	while ((r = sqlite3_step(s)) == SQLITE_ROW) {
		struct gd_pceilings c, *o = &c;
		READ_ROW(GD_CEILINGS_COLUMNS);
		if (t.device < 0 || t.device >= p->ndev) {
			p->bad_rows++;
			continue;
		}
		c.dram_bps = in_range(c.dram_bps, CEIL_BPS_MAX);
		c.l2_bps = in_range(c.l2_bps, CEIL_BPS_MAX);
		for (int i = 0; i < GD_P_COUNT; i++) {
			c.cuda_core[i] = in_range(c.cuda_core[i], CEIL_FLOPS_MAX);
			c.tensor[i] = in_range(c.tensor[i], CEIL_FLOPS_MAX);
		}
		/* without a time the figures are no measurement of this card: none at all */
		if (!(c.measured_at > 0 && c.measured_at < CEIL_TIME_MAX))
			continue;
		c.sm_clock_mhz = t.sm_clock_mhz > 0 && t.sm_clock_mhz < 100000 ? (int)t.sm_clock_mhz : -1;
		p->dev[t.device].ceil = c;
	}
	return step_done(L, r);
}

/* What a quantity may read as (kc_metrics.h units): none is negative; a percentage runs a
 * little past 100 when counters are read a few cycles apart, never to 1000; threads per
 * instruction are at most a warp (32; 64 leaves room for a wider warp); no SM clock reaches
 * 100 GHz; counts and times stay below 2^62. */
static void kc_bounds(double hi[GD_KC_COUNT])
{
	for (int m = 0; m < GD_KC_COUNT; m++) {
		const char *u = gd_kc_metrics[m].unit;
		hi[m] = !strcmp(u, "%") ? 1000 : !strcmp(u, "ratio") ? 64 : !strcmp(u, "Hz") ? 1e11 : 4.6e18;
	}
}

long gd_profile_find_klaunch(const struct gd_profile *p, int pid, uint32_t corr)
{
	long lo = 0, hi = p->nkl;
	while (lo < hi) {
		long mid = lo + (hi - lo) / 2;
		const struct gd_klaunch *k = &p->kl[mid];
		if (k->pid < pid || (k->pid == pid && k->corr < corr))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < p->nkl && p->kl[lo].pid == pid && p->kl[lo].corr == corr ? lo : -1;
}

/* A launch's detail text as a name: the few distinct texts of a run (CUPTI's errors, "over
 * budget") are searched among those already added from index `first`, not among all the
 * profile's strings; past 256 of them (a made-up file) each is simply appended. */
static int intern_detail(struct gd_profile *p, const char *text, int first)
{
	long cap = p->cap_names;
	if (p->nnames - first <= 256)
		for (int i = first; i < p->nnames; i++)
			if (p->names[i] && !strcmp(p->names[i], text))
				return i;
	p->names = grow(p->names, p->nnames, &cap, sizeof(char *));
	p->cap_names = (int)cap;
	p->names[p->nnames] = strdup(text);
	return p->names[p->nnames] ? p->nnames++ : 0;
}

/* How each launch was replayed (metric_launches.replay, l2_flushed): columns added after the
 * table, read apart so that a profile without them still loads (replay stays -1, unknown). */
static int load_kl_replay(struct loader *L)
{
	struct gd_profile *p = L->p;
	int r;
	if (gd_db_has_column(L->db, "metric_launches", "replay") != 1 ||
	    gd_db_has_column(L->db, "metric_launches", "l2_flushed") != 1)
		return GD_OK;
	if (query(L, "SELECT pid, correlation, replay, l2_flushed FROM metric_launches WHERE replay IS NOT NULL"))
		return GD_EDATA;
	while ((r = sqlite3_step(L->s)) == SQLITE_ROW) {
		const char *mode = (const char *)sqlite3_column_text(L->s, 2);
		long i = gd_profile_find_klaunch(p, (int)sqlite3_column_int64(L->s, 0), (uint32_t)sqlite3_column_int64(L->s, 1));
		if (i < 0 || !mode || (strcmp(mode, "user") && strcmp(mode, "kernel"))) {
			p->bad_rows++;
			continue;
		}
		p->kl[i].replay = (!strcmp(mode, "user") ? GD_KL_F_USER : 0) |
				  (sqlite3_column_int64(L->s, 3) == 1 ? GD_KL_F_FLUSH : 0);
	}
	return step_done(L, r);
}

/* metric_launches then metric_values: absent in profiles before issue 19 (no launches). A
 * launch whose name or status names nothing, and a value whose metric names no string or
 * whose launch is missing, are corrupt: counted and left out. */
static int load_klaunches(struct loader *L)
{
	struct gd_profile *p = L->p;
	double hi[GD_KC_COUNT];
	sqlite3_stmt *s;
	int r;
	int first = p->nnames; /* the details interned here are appended from this index */
	if (!has_table(L->db, "metric_launches"))
		return GD_OK;
	if (query_table(L, GD_T_METRIC_LAUNCHES))
		return GD_EDATA;
	s = L->s;
	while ((r = sqlite3_step(s)) == SQLITE_ROW) {
		struct {
			int64_t name, nth, passes, profile_ns;
			const char *status, *detail;
		} t;
		struct gd_klaunch *o = gd_profile_add_klaunch(p);
		int st = -1;
		READ_ROW(GD_METRIC_LAUNCHES_COLUMNS);
		for (int i = 0; t.status && i < GD_KL_STATUS_COUNT; i++)
			if (!strcmp(t.status, gd_kl_status_names[i]))
				st = i;
		/* ids name the strings table, not the details appended below */
		o->name = t.name < first ? sid(p, t.name) : -1;
		if (o->name < 0 || st < 0) {
			p->nkl--;
			p->bad_rows++;
			continue;
		}
		o->status = st;
		o->nth = t.nth >= 0 && t.nth <= INT32_MAX ? (int)t.nth : -1;
		o->passes = t.passes > 0 && t.passes <= INT32_MAX ? (int)t.passes : 0;
		o->profile_ns = t.profile_ns > 0 && t.profile_ns < GD_TIME_MAX ? t.profile_ns : -1;
		o->detail = t.detail && t.detail[0] ? intern_detail(p, t.detail, first) : 0;
		o->replay = -1;
	}
	if (step_done(L, r))
		return GD_EDATA;
	if (!p->nkl || !has_table(L->db, "metric_values"))
		return GD_OK;
	/* the launches in key order for the lookups (the SQL order is that already, unless stored
	 * values outside the columns' ranges wrapped) */
	for (long i = 1; i < p->nkl; i++)
		if (cmp_kl(&p->kl[i - 1], &p->kl[i]) > 0) {
			qsort(p->kl, (size_t)p->nkl, sizeof(*p->kl), cmp_kl);
			break;
		}
	kc_bounds(hi);
	if (query_table(L, GD_T_METRIC_VALUES))
		return GD_EDATA;
	s = L->s;
	while ((r = sqlite3_step(s)) == SQLITE_ROW) {
		struct {
			int pid;
			uint32_t corr;
			int64_t metric;
			double value;
		} row, *o = &row;
		long i;
		int name, m;
		struct gd_klaunch *k;
		READ_ROW(GD_METRIC_VALUES_COLUMNS);
		name = row.metric < first ? sid(p, row.metric) : -1;
		i = name < 0 ? -1 : gd_profile_find_klaunch(p, row.pid, row.corr);
		if (i < 0) {
			p->bad_rows++;
			continue;
		}
		k = &p->kl[i];
		m = gd_kc_by_cupti(p->names[name]);
		if (m >= 0) {
			k->q[m] = row.value >= 0 && row.value <= hi[m] ? row.value : NAN; /* NaN fails too */
			continue;
		}
		/* another metric (--metrics=a,b): kept as given when a number. A launch's extras
		 * are one run of p->kx, which the (pid, correlation) order gives; values whose
		 * keys only collide after the conversion (a hostile file) are left out. */
		if (k->nextra && k->extra + k->nextra != p->nkx) {
			p->bad_rows++;
			continue;
		}
		if (!k->nextra)
			k->extra = p->nkx;
		p->kx = grow(p->kx, p->nkx, &p->cap_kx, sizeof(*p->kx));
		p->kx[p->nkx].metric = name;
		p->kx[p->nkx].value = isfinite(row.value) ? row.value : NAN;
		p->nkx++;
		k->nextra++;
	}
	if (step_done(L, r))
		return GD_EDATA;
	return load_kl_replay(L);
}

/* The windows in which batched launches were replayed (raw.h, GD_OVERHEAD_GPUDIAG_REPLAY). */
static int load_replay_windows(struct loader *L)
{
	int r;
	long cap = 0;
	char sql[160];
	if (!has_table(L->db, "overhead"))
		return GD_OK;
	snprintf(sql, sizeof(sql), "SELECT start, end FROM overhead WHERE kind = %u AND start IS NOT NULL AND end IS NOT "
		 "NULL ORDER BY start", GD_OVERHEAD_GPUDIAG_REPLAY);
	if (query(L, sql))
		return GD_EDATA;
	while ((r = sqlite3_step(L->s)) == SQLITE_ROW) {
		int64_t a = col_i64(L->s, 0, 0), b = col_i64(L->s, 1, 0);
		if (bad_time(L, a, b) || b <= a)
			continue;
		if (L->p->nrw == cap) {
			long nc = cap ? 2 * cap : 16;
			struct gd_pwin *w = realloc(L->p->rw, (size_t)nc * sizeof(*w));
			if (!w)
				return gd_error(GD_EFAIL, "out of memory");
			L->p->rw = w, cap = nc;
		}
		L->p->rw[L->p->nrw].start = a, L->p->rw[L->p->nrw].end = b;
		L->p->nrw++;
	}
	return step_done(L, r);
}

static int load_dropped(struct loader *L)
{
	int r;
	if (!has_table(L->db, "dropped"))
		return GD_OK;
	if (query(L, "SELECT COALESCE(SUM(count), 0) FROM dropped"))
		return GD_EDATA;
	if ((r = step1(L)) < 0)
		return GD_EDATA;
	if (r)
		L->p->dropped = col_i64(L->s, 0, 0);
	return GD_OK;
}

static int load_processes(struct loader *L)
{
	struct gd_profile *p = L->p;
	char v[1024];
	long count = 0;
	int r;
	sqlite3_stmt *s;
	if (!has_table(L->db, "processes"))
		return GD_OK;
	/* a profile whose every process ran unprofiled */
	if (query(L, "SELECT COUNT(*), COALESCE(SUM(traced), 0) FROM processes"))
		return GD_EDATA;
	if ((r = step1(L)) < 0)
		return GD_EDATA;
	if (r) {
		count = col_int(L->s, 0, 0);
		if (count > 0 && col_int(L->s, 1, 0) == 0)
			p->cupti_ok = 0;
	}
	if (!p->cupti_ok) {
		if (query(L, "SELECT status FROM processes WHERE traced = 0 AND status IS NOT NULL LIMIT 1"))
			return GD_EDATA;
		if ((r = step1(L)) < 0)
			return GD_EDATA;
		if (r && sqlite3_column_text(L->s, 0))
			snprintf(p->untraced_status, sizeof(p->untraced_status), "%.31s",
				 (const char *)sqlite3_column_text(L->s, 0));
		if (meta(L->db, "not_traced_reason", v, sizeof(v)))
			snprintf(p->untraced_reason, sizeof(p->untraced_reason), "%.255s", v);
	}
	/* The process list (optional facts, like the streams): sized by the count above. */
	if (count <= 0 || query_table(L, GD_T_PROCESSES))
		return GD_OK;
	p->proc = calloc((size_t)count, sizeof(*p->proc));
	if (!p->proc)
		return GD_OK;
	s = L->s;
	while (p->nproc < count && sqlite3_step(s) == SQLITE_ROW) {
		struct gd_pprocess *o = &p->proc[p->nproc++];
		READ_ROW(GD_PROCESSES_COLUMNS);
	}
	return GD_OK;
}

int gd_profile_load(const char *path, struct gd_profile *p, char *why, size_t n)
{
	struct loader L;
	int rc;
	memset(&L, 0, sizeof(L));
	L.p = p, L.path = path, L.why = why, L.n = n;
	gd_profile_init(p);
	snprintf(p->path, sizeof(p->path), "%s", path);
	rc = load_open(&L);
	if (!rc)
		rc = load_meta(&L);
	if (!rc)
		rc = load_strings(&L);
	if (!rc)
		rc = load_devices(&L);
	if (!rc)
		rc = load_ceilings(&L);
	if (!rc)
		rc = load_contexts(&L);
	if (!rc)
		rc = load_streams(&L);
	if (!rc)
		rc = load_kernels(&L);
	if (!rc)
		rc = load_copies(&L);
	if (!rc)
		rc = load_api(&L);
	if (!rc)
		rc = load_nvtx(&L);
	if (!rc)
		rc = load_nvml(&L);
	if (!rc)
		rc = load_memory(&L);
	if (!rc)
		rc = load_pm(&L);
	if (!rc)
		rc = load_kpm(&L);
	if (!rc)
		rc = load_klaunches(&L);
	if (!rc)
		rc = load_replay_windows(&L);
	if (!rc)
		rc = load_dropped(&L);
	if (!rc)
		rc = load_processes(&L);
	if (L.s)
		sqlite3_finalize(L.s);
	if (L.db)
		sqlite3_close(L.db);
	free(L.nb);
	free(L.ns);
	free(L.cat);
	if (rc != GD_OK) {
		gd_profile_free(p);
		return GD_EDATA;
	}
	gd_profile_finish(p);
	return GD_OK;
}

/* ---- peeking --------------------------------------------------------------------------- */
static long long peek1(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *s;
	long long v = -1;
	if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_step(s) == SQLITE_ROW && sqlite3_column_type(s, 0) != SQLITE_NULL)
		v = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return v;
}

int gd_profile_peek(const char *path, struct gd_profile_facts *f)
{
	sqlite3 *db;
	sqlite3_stmt *s;
	memset(f, 0, sizeof(*f));
	f->kernels = f->kernel_ns = f->copies = f->processes = f->traced = f->dropped = -1;
	f->kl_ok = f->kl_kernels = f->kl_passes_min = f->kl_passes_max = f->kl_rejected = -1;
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
		sqlite3_close(db);
		return GD_EDATA;
	}
	f->kernels = peek1(db, "SELECT COUNT(*) FROM kernels");
	f->kernel_ns = peek1(db, "SELECT SUM(end-start) FROM kernels");
	f->copies = peek1(db, "SELECT COUNT(*) FROM memcpy");
	f->processes = peek1(db, "SELECT COUNT(*) FROM processes");
	f->traced = peek1(db, "SELECT COUNT(*) FROM processes WHERE traced=1");
	f->dropped = peek1(db, "SELECT SUM(count) FROM dropped");
	f->kl_ok = peek1(db, "SELECT COUNT(*) FROM metric_launches WHERE status='ok'");
	f->kl_kernels = peek1(db, "SELECT COUNT(DISTINCT name) FROM metric_launches WHERE status='ok'");
	f->kl_passes_min = peek1(db, "SELECT MIN(passes) FROM metric_launches WHERE status='ok'");
	f->kl_passes_max = peek1(db, "SELECT MAX(passes) FROM metric_launches WHERE status='ok'");
	for (int st = 1; st < GD_KL_STATUS_COUNT; st++) {
		char q[160];
		snprintf(q, sizeof(q), "SELECT COUNT(*) FROM metric_launches WHERE status='%s'", gd_kl_status_names[st]);
		f->kl_skipped[st] = peek1(db, q);
	}
	f->kl_rejected = 0;
	if (sqlite3_prepare_v2(db, "SELECT key, value FROM meta WHERE key IN ('metrics_rejected', 'metrics_note')", -1, &s,
			       NULL) == SQLITE_OK) {
		while (sqlite3_step(s) == SQLITE_ROW) {
			const char *k = (const char *)sqlite3_column_text(s, 0), *v = (const char *)sqlite3_column_text(s, 1);
			if (!k || !v)
				continue;
			if (!strcmp(k, "metrics_note"))
				snprintf(f->metrics_note, sizeof(f->metrics_note), "%s", v);
			else /* space-separated names */
				for (v += strspn(v, " "); *v; v += strspn(v, " ")) {
					f->kl_rejected++;
					v += strcspn(v, " ");
				}
		}
		sqlite3_finalize(s);
	}
	if (sqlite3_prepare_v2(db, "SELECT pid, status FROM processes WHERE traced=0 AND status IS NOT NULL ORDER BY pid",
			       -1, &s, NULL) == SQLITE_OK) {
		long cap = 0;
		while (sqlite3_step(s) == SQLITE_ROW) {
			struct gd_pprocess *o;
			if (f->nuntraced == cap) {
				long nc = cap ? cap * 2 : 16;
				struct gd_pprocess *u = realloc(f->untraced, (size_t)nc * sizeof(*u));
				if (!u)
					break;
				f->untraced = u;
				cap = nc;
			}
			o = &f->untraced[f->nuntraced++];
			memset(o, 0, sizeof(*o));
			o->pid = sqlite3_column_int(s, 0);
			o->exit_code = o->exit_signal = -1;
			snprintf(o->status, sizeof(o->status), "%s", (const char *)sqlite3_column_text(s, 1));
		}
		sqlite3_finalize(s);
	}
	sqlite3_close(db);
	return GD_OK;
}

void gd_profile_facts_free(struct gd_profile_facts *f)
{
	free(f->untraced);
	f->untraced = NULL;
	f->nuntraced = 0;
}
