/* The timeline export's queries (trace_rows.h). Each keeps the row order the export's tracks
 * and lanes depend on; the Perfetto JSON is compared byte for byte across changes. */
#include "profile/trace_rows.h"

#include "core/status.h"
#include "profile/columns.h"
#include "profile/dbcheck.h"
#include "profile/schema.h"

#include <limits.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct gd_trace {
	sqlite3 *db;
	struct gd_db_guard guard;
	long long meta_t0;   /* meta.start_ns when plausible, else 0: anchors gd_time_ok */
	long long bad_rows;  /* rows skipped for impossible times */
	sqlite3_stmt *str, *ctx; /* gd_trace_string, gd_trace_null_stream */
};

struct gd_trace_q {
	sqlite3_stmt *s;
	struct gd_trace *t;
	int rc;              /* the last sqlite3_step result */
	int kind;            /* enum gd_trace_kind, or -1 (gd_trace_calls_query) */
};

static const char *const sql[] = {
	[GD_TQ_PROCESSES] = "SELECT pid, COALESCE(command_line,''), traced FROM processes ORDER BY pid",
	[GD_TQ_API] = "SELECT a.id, a.pid, a.tid, a.start, a.end, COALESCE(n.value,'api ' || a.cbid), a.correlation, "
		      "a.return_value FROM api a LEFT JOIN strings n ON n.id=a.name WHERE a.start IS NOT NULL "
		      "AND a.end IS NOT NULL ORDER BY a.pid, a.tid, a.start",
	[GD_TQ_GPU] =
		"SELECT g.kind, g.pid, g.stream, g.start, g.end, g.name, g.correlation, g.device, g.a1, g.a2, g.a3, "
		"g.a4, g.a5, g.a6, g.a7, g.null_stream, a.id, a.tid, a.start FROM ("
		" SELECT 0 AS kind, k.pid, k.stream, k.start, k.end, COALESCE(sn.value, n.value, '?') AS name, "
		"  k.correlation, k.device, k.grid_x || ',' || k.grid_y || ',' || k.grid_z AS a1, "
		"  k.block_x || ',' || k.block_y || ',' || k.block_z AS a2, k.regs AS a3, k.static_smem AS a4, "
		"  k.dyn_smem AS a5, COALESCE(d.value, n.value) AS a6, k.graph_id AS a7, c.null_stream "
		"  FROM kernels k LEFT JOIN strings n ON n.id=k.name LEFT JOIN strings sn ON sn.id=k.short_name "
		"  LEFT JOIN strings d ON d.id=k.demangled "
		"  LEFT JOIN contexts c ON c.pid=k.pid AND c.context=k.context "
		" UNION ALL SELECT 1, m.pid, m.stream, m.start, m.end, 'memcpy', m.correlation, m.device, m.copy_kind, "
		"  m.src_kind, m.dst_kind, m.bytes, m.is_async, NULL, NULL, c.null_stream FROM memcpy m "
		"  LEFT JOIN contexts c ON c.pid=m.pid AND c.context=m.context "
		" UNION ALL SELECT 2, m.pid, m.stream, m.start, m.end, 'memset', m.correlation, m.device, m.bytes, "
		"  m.value, m.mem_kind, NULL, m.is_async, NULL, NULL, c.null_stream FROM memset m "
		"  LEFT JOIN contexts c ON c.pid=m.pid AND c.context=m.context"
		") g LEFT JOIN api a ON a.pid=g.pid AND a.correlation=g.correlation AND g.correlation > 0 "
		"WHERE g.start IS NOT NULL AND g.end IS NOT NULL ORDER BY g.pid, g.stream, g.start",
	[GD_TQ_NVTX] = "SELECT v.pid, v.tid, v.kind, v.start, v.end, COALESCE(n.value,''), COALESCE(d.value,''), v.color "
		       "FROM nvtx v LEFT JOIN strings n ON n.id=v.name LEFT JOIN strings d ON d.id=v.domain "
		       "WHERE v.start IS NOT NULL ORDER BY v.pid, v.tid, v.start, v.end DESC",
	/* the counters in the order of GD_TN_* */
	[GD_TQ_NVML] = "SELECT t, device, util_gpu, util_mem, sm_mhz, mem_mhz, power_mw, temp_c, mem_used, pcie_tx_kbps, "
		       "pcie_rx_kbps, clock_reasons FROM nvml_samples ORDER BY device, t",
	[GD_TQ_PM] = NULL, /* built by pm_sql from the columns the table has */
	[GD_TQ_NVTX_T] = "SELECT pid, tid, kind, start, end, name, domain FROM nvtx WHERE start IS NOT NULL "
			 "ORDER BY start, end DESC",
	[GD_TQ_NVML_T] = "SELECT t, device, util_gpu, util_mem, sm_mhz, mem_mhz, power_mw, temp_c, mem_used, "
			 "pcie_tx_kbps, pcie_rx_kbps, clock_reasons FROM nvml_samples ORDER BY t",
	[GD_TQ_PM_T] = NULL,
};

/* The first column of the first row of text into *v (dflt when none or NULL). GD_OK, or
 * GD_EDATA with "'P' is corrupt: ..." in why. */
static int q1(struct gd_trace *t, const char *path, const char *text, long long dflt, long long *v, char *why,
	      size_t n)
{
	sqlite3_stmt *s;
	int r;
	char m[256];
	*v = dflt;
	if (sqlite3_prepare_v2(t->db, text, -1, &s, NULL) != SQLITE_OK) {
		snprintf(why, n, "'%s' is corrupt: %s", path, gd_db_errmsg(t->db, &t->guard, m, sizeof(m)));
		return GD_EDATA;
	}
	r = sqlite3_step(s);
	if (r == SQLITE_ROW && sqlite3_column_type(s, 0) != SQLITE_NULL)
		*v = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	if (r != SQLITE_ROW && r != SQLITE_DONE) {
		snprintf(why, n, "'%s' is corrupt: %s", path, gd_db_errmsg(t->db, &t->guard, m, sizeof(m)));
		return GD_EDATA;
	}
	return GD_OK;
}

/* The export's api.id → lane table is indexed by id: ids beyond this are not a real profile. */
#define API_ID_MAX (1LL << 31)

int gd_trace_open(const char *path, struct gd_trace **out, long long *t0, long long *api_n, char *why, size_t n)
{
	/* The tables the export reads; those the reader reads also with its columns. */
	static const int full[] = {GD_T_STRINGS, GD_T_CONTEXTS, GD_T_KERNELS, GD_T_MEMCPY,
				   GD_T_MEMSET,  GD_T_API,      GD_T_NVML};
	static const int kind[] = {GD_T_PROCESSES, GD_T_NVTX};
	struct gd_trace *t;
	sqlite3 *db = NULL;
	*out = NULL;
	/* one connection per thread (the native export reads on two): no SQLite locking per call */
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		snprintf(why, n, "cannot open '%s': %s", path, sqlite3_errmsg(db));
		sqlite3_close(db);
		return GD_EDATA;
	}
	t = calloc(1, sizeof(*t));
	if (!t) {
		sqlite3_close(db);
		snprintf(why, n, "out of memory");
		return GD_EFAIL;
	}
	t->db = db;
	gd_db_harden(db, &t->guard);
	if (gd_db_check_version(db, &t->guard, path, why, n) ||
	    gd_db_check_tables(db, &t->guard, path, full, (int)(sizeof(full) / sizeof(full[0])), 1, why, n) ||
	    gd_db_check_tables(db, &t->guard, path, kind, (int)(sizeof(kind) / sizeof(kind[0])), 0, why, n) ||
	    q1(t, path, "SELECT value FROM meta WHERE key='start_ns'", -1, t0, why, n))
		goto fail;
	/* An impossible recorded start is unknown (as in the reader): the events give it. */
	if (*t0 >= GD_TIME_MAX)
		*t0 = -1;
	t->meta_t0 = *t0 > 0 ? *t0 : 0;
	if (*t0 < 0 && q1(t, path,
			  "SELECT MIN(t) FROM (SELECT MIN(start) t FROM kernels WHERE start BETWEEN 0 AND 4611686018427387903 "
			  "UNION ALL SELECT MIN(start) FROM api WHERE start BETWEEN 0 AND 4611686018427387903)",
			  0, t0, why, n))
		goto fail;
	if (q1(t, path, "SELECT COALESCE(MAX(id),0) FROM api", 0, api_n, why, n))
		goto fail;
	if (*api_n >= API_ID_MAX) {
		snprintf(why, n, "'%s' is corrupt: api id %lld", path, *api_n);
		goto fail;
	}
	/* every id negative: none indexes the lane table */
	*api_n = *api_n < 0 ? 1 : *api_n + 1;
	*out = t;
	return GD_OK;
fail:
	gd_trace_close(t);
	return GD_EDATA;
}

long long gd_trace_bad_rows(const struct gd_trace *t) { return t ? t->bad_rows : 0; }

void gd_trace_close(struct gd_trace *t)
{
	if (!t)
		return;
	sqlite3_finalize(t->str);
	sqlite3_finalize(t->ctx);
	sqlite3_close(t->db);
	free(t);
}

/* ---- gpu_metrics (issue 18): an optional table whose quantity columns are those of the
 * contract (pm_metrics.h) that existed when the profile was written ---- */

/* 1 when gpu_metrics has column c as an ordinary stored column, 0 when not, -1 on error. */
static int pm_has_column(sqlite3 *db, const char *c)
{
	sqlite3_stmt *s;
	int r, found = 0;
	if (sqlite3_prepare_v2(db, "SELECT hidden FROM pragma_table_xinfo('gpu_metrics') WHERE name = ? COLLATE NOCASE",
			       -1, &s, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_text(s, 1, c, -1, SQLITE_STATIC);
	while ((r = sqlite3_step(s)) == SQLITE_ROW)
		found = sqlite3_column_int(s, 0) == 0; /* hidden 2/3: a generated column */
	sqlite3_finalize(s);
	return r == SQLITE_DONE ? found : -1;
}

/* The SELECT of GD_TQ_PM into buf: device, t_start, t_end, then one value per quantity in
 * the contract's order, NULL for a column the table lacks. A profile without the table gives
 * a query without rows. GD_OK, or GD_EDATA (a view in the table's place, a missing time
 * column, a read error) with the reason in why. The column names are the contract's
 * constants, never text from the file. */
static int pm_sql(struct gd_trace *t, char *buf, size_t cap, const char *order, char *why, size_t n)
{
	static const char *const need[] = {"device", "t_start", "t_end"};
	size_t len;
	int k = gd_db_object_kind(t->db, "gpu_metrics");
	if (k == 0) {
		snprintf(buf, cap, "SELECT 0 WHERE 0");
		return GD_OK;
	}
	if (k < 0) {
		if (k == -1)
			snprintf(why, n, "gpu_metrics is not a table");
		else
			gd_db_errmsg(t->db, &t->guard, why, n);
		return GD_EDATA;
	}
	for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++) {
		int h = pm_has_column(t->db, need[i]);
		if (h != 1) {
			if (h < 0)
				gd_db_errmsg(t->db, &t->guard, why, n);
			else
				snprintf(why, n, "gpu_metrics has no column %s", need[i]);
			return GD_EDATA;
		}
	}
	len = (size_t)snprintf(buf, cap, "SELECT device, t_start, t_end");
	for (int m = 0; m < GD_PM_COUNT && len < cap; m++) {
		int h = pm_has_column(t->db, gd_pm_metrics[m].column);
		if (h < 0) {
			gd_db_errmsg(t->db, &t->guard, why, n);
			return GD_EDATA;
		}
		len += (size_t)snprintf(buf + len, cap - len, ", %s", h ? gd_pm_metrics[m].column : "NULL");
	}
	if (len < cap)
		len += (size_t)snprintf(buf + len, cap - len,
					" FROM gpu_metrics WHERE t_start IS NOT NULL AND t_end IS NOT NULL ORDER BY %s", order);
	if (len >= cap) {
		snprintf(why, n, "gpu_metrics query too long");
		return GD_EDATA;
	}
	return GD_OK;
}

int gd_trace_query(struct gd_trace *t, enum gd_trace_kind kind, struct gd_trace_q **out, char *why, size_t n)
{
	char pm[1024];
	const char *text = sql[kind];
	struct gd_trace_q *q;
	*out = NULL;
	if (kind == GD_TQ_PM || kind == GD_TQ_PM_T) {
		if (pm_sql(t, pm, sizeof(pm), kind == GD_TQ_PM ? "device, t_start" : "t_start", why, n))
			return GD_EDATA;
		text = pm;
	}
	q = calloc(1, sizeof(*q));
	if (!q) {
		snprintf(why, n, "out of memory");
		return GD_EFAIL;
	}
	q->t = t;
	q->rc = SQLITE_OK;
	q->kind = (int)kind;
	if (sqlite3_prepare_v2(t->db, text, -1, &q->s, NULL) != SQLITE_OK) {
		gd_db_errmsg(t->db, &t->guard, why, n);
		sqlite3_finalize(q->s);
		free(q);
		return GD_EDATA;
	}
	*out = q;
	return GD_OK;
}

void gd_trace_done(struct gd_trace_q *q)
{
	if (!q)
		return;
	sqlite3_finalize(q->s);
	free(q);
}

int gd_trace_end(struct gd_trace_q *q, char *why, size_t n)
{
	int rc = GD_OK;
	if (!q)
		return GD_OK;
	if (q->rc != SQLITE_DONE) {
		gd_db_errmsg(q->t->db, &q->t->guard, why, n);
		rc = GD_EDATA;
	}
	gd_trace_done(q);
	return rc;
}

/* The next row of q: 1, or 0 at the end or on an error (kept for gd_trace_end). */
static int next_row(struct gd_trace_q *q)
{
	q->rc = sqlite3_step(q->s);
	return q->rc == SQLITE_ROW;
}

/* A row with impossible times is skipped and counted. */
static int skip(struct gd_trace_q *q, long long start, long long end)
{
	if (gd_time_ok(q->t->meta_t0, start, end))
		return 0;
	q->t->bad_rows++;
	return 1;
}

static const char *txt(sqlite3_stmt *s, int i)
{
	const char *t = (const char *)sqlite3_column_text(s, i);
	return t ? t : "";
}
static int is_null(sqlite3_stmt *s, int i) { return sqlite3_column_type(s, i) == SQLITE_NULL; }
#define I64(i) sqlite3_column_int64(s, i)
#define INT(i) sqlite3_column_int(s, i)

int gd_trace_next_process(struct gd_trace_q *q, struct gd_trace_process *r)
{
	sqlite3_stmt *s = q->s;
	if (!next_row(q))
		return 0;
	r->pid = I64(0);
	r->command = txt(s, 1);
	r->traced = INT(2);
	return 1;
}

int gd_trace_next_api(struct gd_trace_q *q, struct gd_trace_api *r)
{
	sqlite3_stmt *s = q->s;
	do
		if (!next_row(q))
			return 0;
	while (skip(q, I64(3), I64(4)));
	r->id = I64(0), r->pid = I64(1), r->tid = I64(2), r->start = I64(3), r->end = I64(4);
	r->name = txt(s, 5);
	r->correlation = I64(6), r->return_value = I64(7);
	return 1;
}

int gd_trace_next_gpu(struct gd_trace_q *q, struct gd_trace_gpu *r)
{
	sqlite3_stmt *s = q->s;
	do
		if (!next_row(q))
			return 0;
	while (skip(q, I64(3), I64(4)));
	r->kind = INT(0);
	r->pid = I64(1), r->stream = I64(2), r->start = I64(3), r->end = I64(4);
	r->correlation = I64(6), r->device = I64(7);
	r->name = txt(s, 5);
	r->grid = r->block = r->full_name = "";
	r->regs = r->static_smem = r->dyn_smem = r->graph_id = r->bytes = r->value = 0;
	r->copy_kind = r->src_kind = r->dst_kind = r->is_async = r->has_graph = 0;
	if (r->kind == GD_TG_MEMCPY) {
		r->copy_kind = INT(8), r->src_kind = INT(9), r->dst_kind = INT(10);
		r->bytes = I64(11), r->is_async = INT(12);
	} else if (r->kind == GD_TG_MEMSET) {
		r->bytes = I64(8), r->value = I64(9);
	} else {
		r->grid = txt(s, 8), r->block = txt(s, 9);
		r->regs = I64(10), r->static_smem = I64(11), r->dyn_smem = I64(12);
		r->has_graph = !is_null(s, 14);
		r->graph_id = I64(14);
		r->full_name = txt(s, 13);
	}
	r->has_null_stream = !is_null(s, 15);
	r->null_stream = I64(15);
	r->api_id = I64(16), r->api_tid = I64(17), r->api_start = I64(18);
	/* a flow arrow only from a call whose start is plausible */
	r->has_api = !is_null(s, 16) && gd_time_ok(q->t->meta_t0, r->api_start, r->api_start);
	return 1;
}

static long long id_or(sqlite3_stmt *s, int i) { return is_null(s, i) ? GD_TRACE_NO_STRING : I64(i); }

int gd_trace_next_nvtx(struct gd_trace_q *q, struct gd_trace_nvtx *r)
{
	sqlite3_stmt *s = q->s;
	int by_id = q->kind == GD_TQ_NVTX_T;
	do
		if (!next_row(q))
			return 0;
	while (skip(q, I64(3), is_null(s, 4) ? I64(3) : I64(4)));
	r->pid = I64(0), r->tid = I64(1), r->mark = INT(2), r->start = I64(3);
	r->has_end = !is_null(s, 4);
	r->end = r->has_end ? I64(4) : r->start;
	if (by_id) { /* GD_TQ_NVTX_T */
		r->name = r->domain = "";
		r->name_id = id_or(s, 5), r->domain_id = id_or(s, 6);
	} else {
		r->name = txt(s, 5), r->domain = txt(s, 6);
		r->name_id = r->domain_id = GD_TRACE_NO_STRING;
	}
	return 1;
}

int gd_trace_next_nvml(struct gd_trace_q *q, struct gd_trace_nvml *r)
{
	sqlite3_stmt *s = q->s;
	do
		if (!next_row(q))
			return 0;
	while (skip(q, I64(0), I64(0)));
	r->t = I64(0), r->device = I64(1);
	for (int i = 0; i < GD_TN_COUNT; i++) {
		r->has[i] = !is_null(s, 2 + i);
		r->v[i] = I64(2 + i);
	}
	return 1;
}

int gd_trace_next_pm(struct gd_trace_q *q, struct gd_pm_sample *r)
{
	sqlite3_stmt *s = q->s;
	do
		if (!next_row(q))
			return 0;
	while (skip(q, I64(1), I64(2)));
	/* a device id beyond int is no CUDA ordinal: it keeps a distinct (negative) track */
	r->device = I64(0) >= 0 && I64(0) <= 1 << 30 ? INT(0) : -1;
	r->t_start = I64(1), r->t_end = I64(2);
	for (int m = 0; m < GD_PM_COUNT; m++) {
		int ty = sqlite3_column_type(s, 3 + m); /* text or a blob is no measurement */
		double v = ty == SQLITE_FLOAT || ty == SQLITE_INTEGER ? sqlite3_column_double(s, 3 + m) : NAN;
		r->v[m] = isfinite(v) ? v : NAN;
	}
	return 1;
}

/* ---- The native export's time-ordered rows (trace_rows.h) ---- */

void gd_trace_time_bounds(const struct gd_trace *t, long long *lo, long long *hi)
{
	/* gd_time_ok as two bounds, for SQL: 0 <= start <= end < GD_TIME_MAX, within
	 * GD_TIME_SPREAD of a plausible t0 */
	*lo = 0, *hi = GD_TIME_MAX - 1;
	if (t->meta_t0 > 0 && t->meta_t0 < GD_TIME_MAX) {
		if (t->meta_t0 > GD_TIME_SPREAD)
			*lo = t->meta_t0 - GD_TIME_SPREAD;
		if (t->meta_t0 < GD_TIME_MAX - 1 - GD_TIME_SPREAD)
			*hi = t->meta_t0 + GD_TIME_SPREAD;
	}
}

/* An event of table X kept by the export (gd_time_ok in SQL; ?1 and ?2 are the bounds). */
#define KEPT(x) x ".start BETWEEN ?1 AND ?2 AND " x ".end BETWEEN " x ".start AND ?2"

/* ---- Matching API calls and GPU work by (pid, correlation) ----
 * The two sides of a flow find each other in the (pid, correlation) indexes (api_corr,
 * kernels_corr, memcpy_corr, memset_corr), without reading the rows: an API call or a piece
 * of GPU work whose times the export refuses (a corrupt profile) leaves its partner's arrow
 * unbound, which Perfetto ignores.
 *
 * A probe per row would cost as much as reading the row. But CUPTI's correlation ids grow
 * with the calls, so rows met in time order ask for correlations that mostly grow too: a
 * walk keeps, per process, a cursor on the other table's index in correlation order and a
 * window of the entries it passed last; a row is answered from the window, after moving the
 * cursor up to its correlation, and only a row further back than the window (a stream that
 * ran long after its launch) costs a probe. Memory: the window, per process walked. */
#define WALK_WINDOW 8192 /* entries kept behind a cursor (a power of two) */
#define WALK_PIDS 16     /* processes walked per table; the others are probed */

struct walk_cur {
	long long pid;
	sqlite3_stmt *s;
	int done;              /* the cursor is past the last entry */
	long long next_c, next_r; /* the entry under the cursor (not yet in the window) */
	long long ring_c[WALK_WINDOW], ring_r[WALK_WINDOW];
	size_t head, n;        /* the window: the n entries before head, oldest first */
	int trimmed;           /* entries have left the window */
};
struct walk {
	struct gd_trace *t;
	const char *table;
	struct walk_cur *cur[WALK_PIDS];
	int ncur;
	sqlite3_stmt *probe;
	long long *found;      /* the last answer's rowids */
	size_t nfound, capfound;
	int err;               /* a statement failed: GD_EDATA */
	char why[256];         /* its message, taken when it failed */
};

static void walk_free(struct walk *w)
{
	for (int i = 0; i < w->ncur; i++) {
		sqlite3_finalize(w->cur[i]->s);
		free(w->cur[i]);
	}
	sqlite3_finalize(w->probe);
	free(w->found);
	memset(w, 0, sizeof(*w));
}

static int walk_add(struct walk *w, long long rowid)
{
	if (w->nfound == w->capfound) {
		size_t cap = w->capfound ? w->capfound * 2 : 16;
		long long *f = realloc(w->found, cap * sizeof(*f));
		if (!f)
			return 0;
		w->found = f, w->capfound = cap;
	}
	w->found[w->nfound++] = rowid;
	return 1;
}

static void cur_step(struct walk *w, struct walk_cur *c)
{
	int r = sqlite3_step(c->s);
	if (r == SQLITE_ROW) {
		c->next_c = sqlite3_column_int64(c->s, 0);
		c->next_r = sqlite3_column_int64(c->s, 1);
	} else {
		c->done = 1;
		if (r != SQLITE_DONE && !w->err) {
			w->err = 1;
			gd_db_errmsg(w->t->db, &w->t->guard, w->why, sizeof(w->why));
		}
	}
}

static struct walk_cur *cur_get(struct walk *w, long long pid)
{
	char text[160];
	struct walk_cur *c;
	for (int i = 0; i < w->ncur; i++)
		if (w->cur[i]->pid == pid)
			return w->cur[i];
	if (w->ncur == WALK_PIDS || !(c = calloc(1, sizeof(*c))))
		return NULL;
	snprintf(text, sizeof(text), "SELECT correlation, rowid FROM %s WHERE pid = ?1 AND correlation > 0 "
		 "ORDER BY correlation, rowid", w->table);
	if (sqlite3_prepare_v2(w->t->db, text, -1, &c->s, NULL) != SQLITE_OK) {
		gd_db_errmsg(w->t->db, &w->t->guard, w->why, sizeof(w->why));
		sqlite3_finalize(c->s);
		free(c);
		w->err = 1;
		return NULL;
	}
	sqlite3_bind_int64(c->s, 1, pid);
	c->pid = pid;
	cur_step(w, c);
	w->cur[w->ncur++] = c;
	return c;
}

/* The rowids of w's table with (pid, corr) into w->found; GD_OK or GD_EDATA/GD_EFAIL. */
static int walk_find(struct walk *w, long long pid, long long corr)
{
	struct walk_cur *c;
	w->nfound = 0;
	if (corr <= 0)
		return GD_OK;
	c = cur_get(w, pid);
	if (w->err)
		return GD_EDATA;
	if (c) {
		size_t lo = 0, hi, cap = WALK_WINDOW;
		/* move up: every entry up to corr enters the window */
		while (!c->done && c->next_c <= corr) {
			c->ring_c[c->head] = c->next_c, c->ring_r[c->head] = c->next_r;
			c->head = (c->head + 1) & (cap - 1);
			if (c->n < cap)
				c->n++;
			else
				c->trimmed = 1;
			cur_step(w, c);
		}
		if (w->err)
			return GD_EDATA;
#define AT(i) ((c->head + cap - c->n + (i)) & (cap - 1)) /* the i-th oldest */
		/* answered here unless the window may have lost some of corr's entries */
		if (!c->trimmed || (c->n && c->ring_c[AT(0)] < corr)) {
			hi = c->n;
			/* mostly the newest entries: look there before searching */
			if (hi && c->ring_c[AT(hi - 1)] <= corr) {
				if (c->ring_c[AT(hi - 1)] < corr)
					return GD_OK;
				for (lo = hi - 1; lo > 0 && c->ring_c[AT(lo - 1)] == corr; lo--)
					;
				hi = lo; /* the search below starts at lo */
			}
			while (lo < hi) { /* the first entry >= corr */
				size_t mid = (lo + hi) / 2;
				if (c->ring_c[AT(mid)] < corr)
					lo = mid + 1;
				else
					hi = mid;
			}
			for (; lo < c->n && c->ring_c[AT(lo)] == corr; lo++)
				if (!walk_add(w, c->ring_r[AT(lo)]))
					return GD_EFAIL;
			return GD_OK;
		}
#undef AT
	}
	if (!w->probe) {
		char text[128];
		snprintf(text, sizeof(text), "SELECT rowid FROM %s WHERE pid = ?1 AND correlation = ?2", w->table);
		if (sqlite3_prepare_v2(w->t->db, text, -1, &w->probe, NULL) != SQLITE_OK) {
			gd_db_errmsg(w->t->db, &w->t->guard, w->why, sizeof(w->why));
			return GD_EDATA;
		}
	}
	sqlite3_reset(w->probe);
	sqlite3_bind_int64(w->probe, 1, pid);
	sqlite3_bind_int64(w->probe, 2, corr);
	{
		int r;
		while ((r = sqlite3_step(w->probe)) == SQLITE_ROW)
			if (!walk_add(w, sqlite3_column_int64(w->probe, 0)))
				return GD_EFAIL;
		if (r != SQLITE_DONE) {
			gd_db_errmsg(w->t->db, &w->t->guard, w->why, sizeof(w->why));
			return GD_EDATA;
		}
	}
	return GD_OK;
}

static const char *const op_sql[3] = {
	[GD_TG_KERNEL] = "SELECT k.rowid, k.pid, k.stream, k.start, k.end, k.correlation, k.device, k.context, k.name, "
			 "k.short_name, k.demangled, k.grid_x, k.grid_y, k.grid_z, k.block_x, k.block_y, k.block_z, k.regs, "
			 "k.static_smem, k.dyn_smem, k.graph_id FROM kernels k WHERE " KEPT("k") " ORDER BY k.start",
	[GD_TG_MEMCPY] = "SELECT m.rowid, m.pid, m.stream, m.start, m.end, m.correlation, m.device, m.context, "
			 "m.copy_kind, m.src_kind, m.dst_kind, m.bytes, m.is_async FROM memcpy m WHERE " KEPT("m")
			 " ORDER BY m.start",
	[GD_TG_MEMSET] = "SELECT m.rowid, m.pid, m.stream, m.start, m.end, m.correlation, m.device, m.context, "
			 "m.bytes, m.value FROM memset m WHERE " KEPT("m") " ORDER BY m.start",
};

struct gd_trace_ops {
	struct gd_trace *t;
	sqlite3_stmt *s[3];
	int rc[3];   /* the last sqlite3_step result of each */
	int have[3]; /* s[i] holds a row not yet handed out */
	long long start[3]; /* its start */
	struct walk api;
	int err;     /* a statement or the walk failed: GD_EDATA, or GD_EFAIL (memory) */
	char why[256]; /* the first failure's message, taken when it happened */
};

static int ops_step(struct gd_trace_ops *q, int i)
{
	q->rc[i] = sqlite3_step(q->s[i]);
	q->have[i] = q->rc[i] == SQLITE_ROW;
	if (q->have[i])
		q->start[i] = sqlite3_column_int64(q->s[i], 3);
	if (q->rc[i] != SQLITE_ROW && q->rc[i] != SQLITE_DONE && !q->err) {
		q->err = GD_EDATA;
		gd_db_errmsg(q->t->db, &q->t->guard, q->why, sizeof(q->why));
	}
	return q->have[i];
}

int gd_trace_ops_open(struct gd_trace *t, struct gd_trace_ops **out, char *why, size_t n)
{
	struct gd_trace_ops *q = calloc(1, sizeof(*q));
	long long lo, hi;
	*out = NULL;
	if (!q) {
		snprintf(why, n, "out of memory");
		return GD_EFAIL;
	}
	q->t = t;
	q->api.t = t, q->api.table = "api";
	gd_trace_time_bounds(t, &lo, &hi);
	for (int i = 0; i < 3; i++) {
		if (sqlite3_prepare_v2(t->db, op_sql[i], -1, &q->s[i], NULL) != SQLITE_OK) {
			gd_db_errmsg(t->db, &t->guard, why, n);
			gd_trace_ops_end(q, NULL, 0);
			return GD_EDATA;
		}
		sqlite3_bind_int64(q->s[i], 1, lo);
		sqlite3_bind_int64(q->s[i], 2, hi);
	}
	for (int i = 0; i < 3; i++)
		ops_step(q, i);
	*out = q;
	return GD_OK;
}

int gd_trace_ops_next(struct gd_trace_ops *q, struct gd_trace_op *r)
{
	int best = -1;
	sqlite3_stmt *s;
	/* the earliest start of the three; on a tie kernels, then copies, then memsets */
	for (int i = 0; i < 3; i++)
		if (q->have[i] && (best < 0 || q->start[i] < q->start[best]))
			best = i;
	if (best < 0 || q->err)
		return 0;
	s = q->s[best];
	r->kind = best;
	r->rowid = I64(0), r->pid = I64(1), r->stream = I64(2), r->start = I64(3), r->end = I64(4);
	r->correlation = I64(5), r->device = I64(6), r->context = I64(7);
	/* every field set, here or below (cheaper than clearing the row first, a million times) */
	r->name = r->short_name = r->demangled = GD_TRACE_NO_STRING;
	r->grid[0] = r->grid[1] = r->grid[2] = r->block[0] = r->block[1] = r->block[2] = 0;
	r->regs = r->static_smem = r->dyn_smem = r->graph_id = r->bytes = r->value = 0;
	r->has_graph = r->copy_kind = r->src_kind = r->dst_kind = r->is_async = 0;
	if (best == GD_TG_KERNEL) {
		r->name = id_or(s, 8), r->short_name = id_or(s, 9), r->demangled = id_or(s, 10);
		for (int i = 0; i < 3; i++)
			r->grid[i] = I64(11 + i), r->block[i] = I64(14 + i);
		r->regs = I64(17), r->static_smem = I64(18), r->dyn_smem = I64(19);
		r->has_graph = !is_null(s, 20);
		r->graph_id = I64(20);
	} else if (best == GD_TG_MEMCPY) {
		r->copy_kind = INT(8), r->src_kind = INT(9), r->dst_kind = INT(10);
		r->bytes = I64(11), r->is_async = INT(12);
	} else {
		r->bytes = I64(8), r->value = I64(9);
	}
	if ((q->err = walk_find(&q->api, r->pid, r->correlation)) != GD_OK) {
		snprintf(q->why, sizeof(q->why), "%s", q->err == GD_EFAIL ? "out of memory" : q->api.why);
		return 0;
	}
	r->has_api = q->api.nfound > 0;
	ops_step(q, best);
	return 1;
}

int gd_trace_ops_end(struct gd_trace_ops *q, char *why, size_t n)
{
	int rc = GD_OK;
	if (!q)
		return GD_OK;
	if (q->err && why) {
		snprintf(why, n, "%s", q->why);
		rc = q->err;
	}
	for (int i = 0; i < 3; i++) {
		if (q->s[i] && why && rc == GD_OK && q->rc[i] != SQLITE_DONE) { /* rows left unread */
			snprintf(why, n, "stopped before the last row");
			rc = GD_EDATA;
		}
		sqlite3_finalize(q->s[i]);
	}
	walk_free(&q->api);
	free(q);
	return rc;
}

struct gd_trace_calls {
	struct gd_trace *t;
	sqlite3_stmt *s;
	int rc, err;
	char why[256]; /* the failure's message, taken when it happened */
	struct walk ops[3];
};

int gd_trace_calls_open(struct gd_trace *t, struct gd_trace_calls **out, char *why, size_t n)
{
	static const char *const tb[3] = {"kernels", "memcpy", "memset"};
	struct gd_trace_calls *q = calloc(1, sizeof(*q));
	long long lo, hi;
	*out = NULL;
	if (!q) {
		snprintf(why, n, "out of memory");
		return GD_EFAIL;
	}
	q->t = t;
	for (int i = 0; i < 3; i++)
		q->ops[i].t = t, q->ops[i].table = tb[i];
	if (sqlite3_prepare_v2(t->db,
			       "SELECT a.pid, a.tid, a.start, a.end, a.name, a.cbid, a.correlation, a.return_value "
			       "FROM api a WHERE " KEPT("a") " ORDER BY a.start",
			       -1, &q->s, NULL) != SQLITE_OK) {
		gd_db_errmsg(t->db, &t->guard, why, n);
		gd_trace_calls_end(q, NULL, 0);
		return GD_EDATA;
	}
	gd_trace_time_bounds(t, &lo, &hi);
	sqlite3_bind_int64(q->s, 1, lo);
	sqlite3_bind_int64(q->s, 2, hi);
	*out = q;
	return GD_OK;
}

int gd_trace_calls_next(struct gd_trace_calls *q, struct gd_trace_call *r)
{
	sqlite3_stmt *s = q->s;
	if (q->err)
		return 0;
	if ((q->rc = sqlite3_step(s)) != SQLITE_ROW) {
		if (q->rc != SQLITE_DONE) {
			q->err = GD_EDATA;
			gd_db_errmsg(q->t->db, &q->t->guard, q->why, sizeof(q->why));
		}
		return 0;
	}
	r->pid = I64(0), r->tid = I64(1), r->start = I64(2), r->end = I64(3);
	r->name = id_or(s, 4);
	r->cbid = I64(5), r->correlation = I64(6), r->return_value = I64(7);
	for (int i = 0; i < 3; i++) {
		if ((q->err = walk_find(&q->ops[i], r->pid, r->correlation)) != GD_OK) {
			snprintf(q->why, sizeof(q->why), "%s", q->err == GD_EFAIL ? "out of memory" : q->ops[i].why);
			return 0;
		}
		r->ops[i] = q->ops[i].found;
		r->nops[i] = q->ops[i].nfound;
	}
	return 1;
}

int gd_trace_calls_end(struct gd_trace_calls *q, char *why, size_t n)
{
	int rc = GD_OK;
	if (!q)
		return GD_OK;
	if (why && q->err) {
		snprintf(why, n, "%s", q->why);
		rc = q->err;
	} else if (why && q->s && q->rc != SQLITE_DONE) { /* rows left unread */
		snprintf(why, n, "stopped before the last row");
		rc = GD_EDATA;
	}
	sqlite3_finalize(q->s);
	for (int i = 0; i < 3; i++)
		walk_free(&q->ops[i]);
	free(q);
	return rc;
}

/* A cached one-row lookup: the statement stays prepared; its row is valid until the next
 * call. NULL when the lookup cannot be prepared or finds nothing. */
static sqlite3_stmt *lookup(struct gd_trace *t, sqlite3_stmt **st, const char *text, long long a, long long b)
{
	if (!*st && sqlite3_prepare_v2(t->db, text, -1, st, NULL) != SQLITE_OK) {
		sqlite3_finalize(*st);
		*st = NULL;
		return NULL;
	}
	sqlite3_reset(*st);
	sqlite3_bind_int64(*st, 1, a);
	sqlite3_bind_int64(*st, 2, b);
	return sqlite3_step(*st) == SQLITE_ROW && !is_null(*st, 0) ? *st : NULL;
}

const char *gd_trace_string(struct gd_trace *t, long long id)
{
	sqlite3_stmt *s = id == GD_TRACE_NO_STRING ? NULL : lookup(t, &t->str, "SELECT value FROM strings WHERE id = ?1 AND ?2 = 0", id, 0);
	return s ? (const char *)sqlite3_column_text(s, 0) : NULL;
}

int gd_trace_null_stream(struct gd_trace *t, long long pid, long long context, long long *stream)
{
	sqlite3_stmt *s = lookup(t, &t->ctx, "SELECT null_stream FROM contexts WHERE pid = ?1 AND context = ?2", pid, context);
	if (!s)
		return 0;
	*stream = sqlite3_column_int64(s, 0);
	return 1;
}

int gd_trace_has_string_like(struct gd_trace *t, const char *const *like)
{
	sqlite3_stmt *s;
	int found = 0;
	if (sqlite3_prepare_v2(t->db, "SELECT 1 FROM strings WHERE value LIKE ?1 LIMIT 1", -1, &s, NULL) != SQLITE_OK)
		return 0;
	for (; *like && !found; like++) {
		sqlite3_bind_text(s, 1, *like, -1, SQLITE_STATIC);
		found = sqlite3_step(s) == SQLITE_ROW;
		sqlite3_reset(s);
	}
	sqlite3_finalize(s);
	return found;
}
