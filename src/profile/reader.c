/* Reading a profile database (docs/profile-schema.md, version 1) into memory; see profile.h.
 *
 * Speed matters (a million kernels in well under the 3 s budget of `gpudiag report`): each
 * table is read with one prepared statement in start order (the schema indexes start), the
 * strings table once into an array indexed by id, and nothing is joined in SQL that a
 * small in-memory lookup can do. */
#include "profile/profile.h"

#include "core/status.h"
#include "gpu/arch.h"
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
static double col_dbl(sqlite3_stmt *s, int i)
{
	return sqlite3_column_type(s, i) == SQLITE_NULL ? NAN : sqlite3_column_double(s, i);
}

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

static int is_legacy(const struct nullst *ns, int nn, int64_t pid, int64_t ctx, int64_t stream)
{
	for (int i = 0; i < nn; i++)
		if (ns[i].pid == pid && ns[i].ctx == ctx)
			return ns[i].stream == stream;
	return 0;
}

int gd_profile_load(const char *path, struct gd_profile *p, char *why, size_t n)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *s = NULL;
	char v[1024];
	int rc = GD_EDATA, nn = 0;
	struct nullst ns[256];
	FILE *probe;

	gd_profile_init(p);
	snprintf(p->path, sizeof(p->path), "%s", path);
	probe = fopen(path, "rb");
	if (!probe) {
		snprintf(why, n, "cannot open '%s'", path);
		return GD_EDATA;
	}
	{
		char head[16] = {0};
		size_t got = fread(head, 1, 16, probe);
		fclose(probe);
		if (got < 16 || memcmp(head, "SQLite format 3", 16)) {
			snprintf(why, n, "'%s' is not a gpudiag profile (not an SQLite database)", path);
			return GD_EDATA;
		}
	}
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		snprintf(why, n, "cannot open '%s': %s", path, db ? sqlite3_errmsg(db) : "out of memory");
		goto out;
	}
	/* Reading a large profile is a few sequential table scans: map the file instead of
	 * copying every page through SQLite's cache. */
	sqlite3_exec(db, "PRAGMA mmap_size = 4294967296; PRAGMA cache_size = -65536;", NULL, NULL, NULL);
	if (!has_table(db, "meta") || !meta(db, "schema_version", v, sizeof(v))) {
		snprintf(why, n, "'%s' is not a gpudiag profile (no meta.schema_version)", path);
		goto out;
	}
	p->schema_version = atoi(v);
	if (p->schema_version != GD_PROFILE_SCHEMA_VERSION) {
		snprintf(why, n, "'%s' has profile schema version %s; this gpudiag reads version %d", path, v,
			 GD_PROFILE_SCHEMA_VERSION);
		goto out;
	}
	if (!has_table(db, "kernels") || !has_table(db, "strings") || !has_table(db, "devices")) {
		snprintf(why, n, "'%s' is not a gpudiag profile (tables missing)", path);
		goto out;
	}
#define Q(sql)                                                                                    \
	do {                                                                                      \
		if (s)                                                                            \
			sqlite3_finalize(s);                                                      \
		s = NULL;                                                                         \
		if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK) {                     \
			snprintf(why, n, "'%s' is corrupt or not a gpudiag profile: %s", path,     \
				 sqlite3_errmsg(db));                                              \
			goto out;                                                                 \
		}                                                                                 \
	} while (0)
#define STEP_DONE(r)                                                                                \
	if ((r) != SQLITE_DONE) {                                                                   \
		snprintf(why, n, "'%s' is corrupt: %s", path, sqlite3_errmsg(db));                  \
		goto out;                                                                           \
	}
	if (meta(db, "command_line", v, sizeof(v)))
		snprintf(p->command, sizeof(p->command), "%s", v);
	if (meta(db, "driver_version", v, sizeof(v)))
		snprintf(p->driver, sizeof(p->driver), "%.79s", v);
	if (meta(db, "sample_label", v, sizeof(v)))
		snprintf(p->label, sizeof(p->label), "%.255s", v);
	if (meta(db, "synthetic", v, sizeof(v)))
		p->synthetic = atoi(v);
	if (meta(db, "start_ns", v, sizeof(v)))
		p->t_start = strtoll(v, NULL, 10);
	if (meta(db, "end_ns", v, sizeof(v)))
		p->t_end = strtoll(v, NULL, 10);
	if (meta(db, "exit_code", v, sizeof(v)))
		p->exit_code = atoi(v);
	if (meta(db, "traced", v, sizeof(v)))
		p->cupti_ok = atoi(v) != 0;
	if (meta(db, "api_trace", v, sizeof(v)))
		p->have_api = strcmp(v, "none") != 0;

	/* strings: ids are dense in practice, but do not rely on it */
	{
		int r, maxid = -1;
		Q("SELECT MAX(id) FROM strings");
		if (sqlite3_step(s) == SQLITE_ROW)
			maxid = col_int(s, 0, -1);
		if (maxid > 50000000) {
			snprintf(why, n, "'%s' is corrupt: string id %d", path, maxid);
			goto out;
		}
		p->nnames = p->cap_names = maxid + 1;
		p->names = calloc((size_t)(maxid + 2), sizeof(char *));
		Q("SELECT id, value FROM strings");
		while ((r = sqlite3_step(s)) == SQLITE_ROW) {
			int id = col_int(s, 0, -1);
			const char *t = (const char *)sqlite3_column_text(s, 1);
			if (id >= 0 && id <= maxid && !p->names[id])
				p->names[id] = strdup(t ? t : "");
		}
		STEP_DONE(r);
	}
	/* devices */
	{
		int r;
		Q("SELECT id, uuid, name, cc_major, cc_minor, sm_count, global_mem_bytes, sm_clock_khz,"
		  " warp_size, max_threads_per_block, max_threads_per_sm, max_blocks_per_sm, regs_per_sm,"
		  " regs_per_block, smem_per_sm, smem_per_block, smem_per_block_optin, reserved_smem_per_block"
		  " FROM devices ORDER BY id");
		while ((r = sqlite3_step(s)) == SQLITE_ROW && p->ndev < 8) {
			struct gd_pdevice *d = &p->dev[p->ndev++];
			const char *t;
			int id = col_int(s, 0, 0);
			memset(d, 0, sizeof(*d));
			(void)id;
			if ((t = (const char *)sqlite3_column_text(s, 1)))
				snprintf(d->uuid, sizeof(d->uuid), "%s", t);
			if ((t = (const char *)sqlite3_column_text(s, 2)))
				snprintf(d->name, sizeof(d->name), "%s", t);
			d->major = col_int(s, 3, 0);
			d->minor = col_int(s, 4, 0);
			d->sm_count = col_int(s, 5, 0);
			d->mem_total = col_dbl(s, 6);
			d->max_sm_mhz = col_int(s, 7, -1000) / 1000;
			const struct gd_arch *a = gd_arch_find(d->major, d->minor);
			if (a && gd_occ_device_from_arch(a, &d->occ) == 0) {
				/* the recorded properties win over the table where present */
				int x;
				if ((x = col_int(s, 8, 0)) > 0) d->occ.warp_size = x;
				if ((x = col_int(s, 9, 0)) > 0) d->occ.max_threads_per_block = x;
				if ((x = col_int(s, 10, 0)) > 0) d->occ.max_threads_per_sm = x;
				if ((x = col_int(s, 11, 0)) > 0) d->occ.max_blocks_per_sm = x;
				if ((x = col_int(s, 12, 0)) > 0) d->occ.regs_per_sm = x;
				if ((x = col_int(s, 13, 0)) > 0) d->occ.regs_per_block = x;
				if ((x = col_int(s, 14, 0)) > 0) d->occ.smem_per_sm = (size_t)x;
				if ((x = col_int(s, 15, 0)) > 0) d->occ.smem_per_block = (size_t)x;
				if ((x = col_int(s, 16, 0)) > 0) d->occ.smem_per_block_optin = (size_t)x;
				if ((x = col_int(s, 17, -1)) >= 0) d->occ.smem_reserved_per_block = (size_t)x;
				d->occ.sm_count = d->sm_count;
				d->occ_ok = 1;
			}
		}
		STEP_DONE(r);
	}
	/* legacy default streams */
	if (has_table(db, "contexts")) {
		int r;
		Q("SELECT pid, context, null_stream FROM contexts WHERE null_stream IS NOT NULL");
		while ((r = sqlite3_step(s)) == SQLITE_ROW && nn < 256) {
			ns[nn].pid = col_i64(s, 0, 0);
			ns[nn].ctx = col_i64(s, 1, 0);
			ns[nn].stream = col_i64(s, 2, 0);
			nn++;
		}
		STEP_DONE(r);
	}
	/* kernels, in table order (gd_profile_finish sorts if the writer did not) */
	reserve((void **)&p->k, &p->cap_k, count_rows(db, "SELECT COUNT(*) FROM kernels"), sizeof(*p->k));
	{
		int r;
		Q("SELECT start, end, name, demangled, grid_x, grid_y, grid_z, block_x, block_y, block_z,"
		  " regs, static_smem, dyn_smem, stream, device, pid, correlation, context"
		  " FROM kernels WHERE start IS NOT NULL AND end IS NOT NULL");
		while ((r = sqlite3_step(s)) == SQLITE_ROW) {
			struct gd_pkernel *k = gd_profile_add_kernel(p);
			k->start = sqlite3_column_int64(s, 0);
			k->end = sqlite3_column_int64(s, 1);
			k->name = col_int(s, 2, -1);
			k->dname = col_int(s, 3, k->name);
			if (k->name < 0 || k->name >= p->nnames || !p->names[k->name])
				k->name = k->dname;
			if (k->dname < 0 || k->dname >= p->nnames || !p->names[k->dname])
				k->dname = k->name;
			if (k->name < 0 || k->name >= p->nnames || !p->names[k->name]) {
				snprintf(why, n, "'%s' is corrupt: a kernel names string id %d, which is missing", path,
					 k->name);
				goto out;
			}
			for (int i = 0; i < 3; i++) {
				k->grid[i] = col_int(s, 4 + i, 1);
				k->block[i] = col_int(s, 7 + i, 1);
			}
			k->regs = col_int(s, 10, -1);
			k->static_smem = col_int(s, 11, 0);
			k->dyn_smem = col_int(s, 12, 0);
			k->stream = col_i64(s, 13, -1);
			k->device = col_int(s, 14, 0);
			k->pid = col_int(s, 15, 0);
			k->corr = (uint32_t)col_i64(s, 16, 0);
			k->legacy = is_legacy(ns, nn, k->pid, col_i64(s, 17, -1), k->stream);
		}
		STEP_DONE(r);
	}
	/* copies and memsets */
	{
		int r;
		Q("SELECT start, end, bytes, copy_kind, src_kind, dst_kind, stream, device, pid, correlation, context"
		  " FROM memcpy WHERE start IS NOT NULL AND end IS NOT NULL"
		  " UNION ALL SELECT start, end, bytes, 100, mem_kind, mem_kind, stream, device, pid, correlation,"
		  " context FROM memset WHERE start IS NOT NULL AND end IS NOT NULL");
		while ((r = sqlite3_step(s)) == SQLITE_ROW) {
			struct gd_pcopy *c = gd_profile_add_copy(p);
			c->start = sqlite3_column_int64(s, 0);
			c->end = sqlite3_column_int64(s, 1);
			c->bytes = col_i64(s, 2, 0);
			c->kind = col_int(s, 3, 0);
			c->src_kind = col_int(s, 4, 0);
			c->dst_kind = col_int(s, 5, 0);
			c->stream = col_i64(s, 6, -1);
			c->device = col_int(s, 7, 0);
			c->pid = col_int(s, 8, 0);
			c->corr = (uint32_t)col_i64(s, 9, 0);
			c->legacy = is_legacy(ns, nn, c->pid, col_i64(s, 10, -1), c->stream);
		}
		STEP_DONE(r);
	}
	/* API calls */
	reserve((void **)&p->a, &p->cap_a, count_rows(db, "SELECT COUNT(*) FROM api") + 16, sizeof(*p->a));
	{
		int r, nsync = 0;
		Q("SELECT start, end, name, pid, tid, correlation FROM api"
		  " WHERE start IS NOT NULL AND end IS NOT NULL");
		while ((r = sqlite3_step(s)) == SQLITE_ROW) {
			struct gd_papi *a = gd_profile_add_api(p);
			a->start = sqlite3_column_int64(s, 0);
			a->end = sqlite3_column_int64(s, 1);
			a->name = col_int(s, 2, -1);
			a->cat = a->name >= 0 && a->name < p->nnames ? gd_api_category(p->names[a->name]) : 0;
			nsync += a->cat == GD_API_SYNC;
			a->pid = col_int(s, 3, 0);
			a->tid = col_int(s, 4, 0);
			a->corr = (uint32_t)col_i64(s, 5, 0);
		}
		STEP_DONE(r);
		if (p->na == 0 && p->have_api) /* the table is empty: say so rather than judge */
			p->have_api = 0;
		/* Synchronisation records stand in for sync API calls when those were not traced. */
		if (!nsync && has_table(db, "sync")) {
			int sid = gd_profile_intern(p, "synchronization (CUPTI record)");
			Q("SELECT start, end, pid FROM sync WHERE start IS NOT NULL AND end IS NOT NULL"
			  " AND type IN (1, 3, 4)");
			while ((r = sqlite3_step(s)) == SQLITE_ROW) {
				struct gd_papi *a = gd_profile_add_api(p);
				a->start = sqlite3_column_int64(s, 0);
				a->end = sqlite3_column_int64(s, 1);
				a->name = sid;
				a->cat = GD_API_SYNC;
				a->pid = col_int(s, 2, 0);
			}
			STEP_DONE(r);
		}
	}
	/* NVML samples */
	if (has_table(db, "nvml_samples")) {
		int r;
		Q("SELECT t, device, util_gpu, util_mem, mem_used, mem_total, power_mw, temp_c, sm_mhz, mem_mhz,"
		  " clock_reasons FROM nvml_samples ORDER BY t");
		while ((r = sqlite3_step(s)) == SQLITE_ROW) {
			struct gd_pnvml *m = gd_profile_add_nvml(p);
			m->t = col_i64(s, 0, 0);
			m->device = col_int(s, 1, 0);
			m->util_gpu = col_int(s, 2, -1);
			m->util_mem = col_int(s, 3, -1);
			m->mem_used = col_dbl(s, 4);
			m->mem_total = col_dbl(s, 5);
			m->power_w = col_dbl(s, 6) / 1000.0;
			m->temp_c = col_dbl(s, 7);
			m->sm_mhz = col_int(s, 8, -1);
			m->mem_mhz = col_int(s, 9, -1);
			m->reasons = sqlite3_column_type(s, 10) == SQLITE_NULL ? ~0ULL
									 : (unsigned long long)sqlite3_column_int64(s, 10);
		}
		STEP_DONE(r);
	}
	if (has_table(db, "memory")) {
		int r;
		Q("SELECT time, operation, device, bytes FROM memory WHERE time IS NOT NULL ORDER BY time");
		while ((r = sqlite3_step(s)) == SQLITE_ROW) {
			struct gd_pmem *m = gd_profile_add_mem(p);
			m->t = col_i64(s, 0, 0);
			m->op = col_int(s, 1, 0);
			m->device = col_int(s, 2, 0);
			m->bytes = (double)col_i64(s, 3, 0);
		}
		STEP_DONE(r);
	}
	if (has_table(db, "dropped")) {
		Q("SELECT COALESCE(SUM(count), 0) FROM dropped");
		if (sqlite3_step(s) == SQLITE_ROW)
			p->dropped = col_i64(s, 0, 0);
	}
	if (has_table(db, "processes")) {
		/* a profile whose every process ran unprofiled */
		Q("SELECT COUNT(*), COALESCE(SUM(traced), 0) FROM processes");
		if (sqlite3_step(s) == SQLITE_ROW && col_int(s, 0, 0) > 0 && col_int(s, 1, 0) == 0)
			p->cupti_ok = 0;
		if (!p->cupti_ok) {
			Q("SELECT status FROM processes WHERE traced = 0 AND status IS NOT NULL LIMIT 1");
			if (sqlite3_step(s) == SQLITE_ROW && sqlite3_column_text(s, 0))
				snprintf(p->untraced_status, sizeof(p->untraced_status), "%.31s",
					 (const char *)sqlite3_column_text(s, 0));
			if (meta(db, "not_traced_reason", v, sizeof(v)))
				snprintf(p->untraced_reason, sizeof(p->untraced_reason), "%.255s", v);
		}
	}
	rc = GD_OK;
out:
	if (s)
		sqlite3_finalize(s);
	if (db)
		sqlite3_close(db);
	if (rc != GD_OK) {
		gd_profile_free(p);
		return rc;
	}
	gd_profile_finish(p);
	return GD_OK;
}
