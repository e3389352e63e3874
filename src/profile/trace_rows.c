/* The timeline export's queries (trace_rows.h). Each keeps the row order the export's tracks
 * and lanes depend on; the Perfetto JSON is compared byte for byte across changes. */
#include "profile/trace_rows.h"

#include "core/status.h"
#include "profile/schema.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>

struct gd_trace {
	sqlite3 *db;
};

struct gd_trace_q {
	sqlite3_stmt *s;
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
};

static long long q1(sqlite3 *db, const char *text, long long dflt)
{
	sqlite3_stmt *s;
	long long v = dflt;
	if (sqlite3_prepare_v2(db, text, -1, &s, NULL) != SQLITE_OK)
		return dflt;
	if (sqlite3_step(s) == SQLITE_ROW && sqlite3_column_type(s, 0) != SQLITE_NULL)
		v = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return v;
}

int gd_trace_open(const char *path, struct gd_trace **out, long long *t0, long long *api_n, char *why, size_t n)
{
	struct gd_trace *t;
	sqlite3 *db = NULL;
	long long version;
	*out = NULL;
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
		snprintf(why, n, "cannot open '%s': %s", path, sqlite3_errmsg(db));
		sqlite3_close(db);
		return GD_EDATA;
	}
	version = q1(db, "SELECT value FROM meta WHERE key='schema_version'", -1);
	if (version < 0) {
		sqlite3_close(db);
		snprintf(why, n, "'%s' is not a gpudiag profile", path);
		return GD_EDATA;
	}
	if (version != GD_PROFILE_SCHEMA_VERSION) {
		sqlite3_close(db);
		snprintf(why, n, "'%s' has profile schema version %lld; this gpudiag reads version %d", path, version,
			 GD_PROFILE_SCHEMA_VERSION);
		return GD_EDATA;
	}
	*t0 = q1(db, "SELECT value FROM meta WHERE key='start_ns'", -1);
	if (*t0 < 0)
		*t0 = q1(db, "SELECT MIN(t) FROM (SELECT MIN(start) t FROM kernels UNION ALL SELECT MIN(start) FROM api)", 0);
	*api_n = q1(db, "SELECT COALESCE(MAX(id),0)+1 FROM api", 1);
	t = calloc(1, sizeof(*t));
	if (!t) {
		sqlite3_close(db);
		snprintf(why, n, "out of memory");
		return GD_EFAIL;
	}
	t->db = db;
	*out = t;
	return GD_OK;
}

void gd_trace_close(struct gd_trace *t)
{
	if (!t)
		return;
	sqlite3_close(t->db);
	free(t);
}

int gd_trace_query(struct gd_trace *t, enum gd_trace_kind kind, struct gd_trace_q **out, char *why, size_t n)
{
	struct gd_trace_q *q = calloc(1, sizeof(*q));
	*out = NULL;
	if (!q) {
		snprintf(why, n, "out of memory");
		return GD_EFAIL;
	}
	if (sqlite3_prepare_v2(t->db, sql[kind], -1, &q->s, NULL) != SQLITE_OK) {
		snprintf(why, n, "%s", sqlite3_errmsg(t->db));
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
	if (sqlite3_step(s) != SQLITE_ROW)
		return 0;
	r->pid = I64(0);
	r->command = txt(s, 1);
	r->traced = INT(2);
	return 1;
}

int gd_trace_next_api(struct gd_trace_q *q, struct gd_trace_api *r)
{
	sqlite3_stmt *s = q->s;
	if (sqlite3_step(s) != SQLITE_ROW)
		return 0;
	r->id = I64(0), r->pid = I64(1), r->tid = I64(2), r->start = I64(3), r->end = I64(4);
	r->name = txt(s, 5);
	r->correlation = I64(6), r->return_value = I64(7);
	return 1;
}

int gd_trace_next_gpu(struct gd_trace_q *q, struct gd_trace_gpu *r)
{
	sqlite3_stmt *s = q->s;
	if (sqlite3_step(s) != SQLITE_ROW)
		return 0;
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
	r->has_api = !is_null(s, 16);
	r->api_id = I64(16), r->api_tid = I64(17), r->api_start = I64(18);
	return 1;
}

int gd_trace_next_nvtx(struct gd_trace_q *q, struct gd_trace_nvtx *r)
{
	sqlite3_stmt *s = q->s;
	if (sqlite3_step(s) != SQLITE_ROW)
		return 0;
	r->pid = I64(0), r->tid = I64(1), r->mark = INT(2), r->start = I64(3);
	r->has_end = !is_null(s, 4);
	r->end = r->has_end ? I64(4) : r->start;
	r->name = txt(s, 5), r->domain = txt(s, 6);
	return 1;
}

int gd_trace_next_nvml(struct gd_trace_q *q, struct gd_trace_nvml *r)
{
	sqlite3_stmt *s = q->s;
	if (sqlite3_step(s) != SQLITE_ROW)
		return 0;
	r->t = I64(0), r->device = I64(1);
	for (int i = 0; i < GD_TN_COUNT; i++) {
		r->has[i] = !is_null(s, 2 + i);
		r->v[i] = I64(2 + i);
	}
	return 1;
}
