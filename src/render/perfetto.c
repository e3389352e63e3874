/* A saved profile as Chrome-trace JSON (gpudiag export --perfetto), which ui.perfetto.dev and
 * chrome://tracing open.
 *
 * Layout: one Perfetto process per profiled process; inside it one track per CPU thread (API
 * calls), one per GPU stream (kernels, copies, memsets), one per thread for NVTX ranges and
 * marks; NVML samples are counter tracks of a separate "GPU n (NVML)" process. Complete
 * ("X") events on one track must nest, so events that partially overlap an earlier one go to
 * an extra lane ("stream 7 #2") instead of being dropped or mis-drawn. Each kernel/copy with
 * a traced API call gets a flow arrow from the call. Times are µs from the run's start, with
 * ns precision. Every string goes through gd_json_escape. */
#include "render/perfetto.h"

#include "core/fileio.h"
#include "core/json.h"
#include "core/status.h"
#include "profile/schema.h"

#include <sqlite3.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define LANES 16
/* Synthetic thread ids: GPU streams and NVTX tracks must not collide with OS thread ids
 * (below 2^22 on Linux). */
#define TID_STREAM 0x40000000LL
#define TID_NVTX 0x20000000LL
#define PID_NVML 0x7ff00000LL

struct lanes {
	long long key; /* track identity; lanes reset when it changes */
	long long end[LANES];
};

/* The first lane on which an event [s, e] does not overlap the previous one. */
static int lane_for(struct lanes *l, long long key, long long s, long long e)
{
	int i;
	if (l->key != key) {
		l->key = key;
		memset(l->end, 0, sizeof(l->end));
	}
	for (i = 0; i < LANES - 1; i++)
		if (s >= l->end[i])
			break;
	if (e > l->end[i])
		l->end[i] = e;
	return i;
}

struct exp {
	FILE *f;
	sqlite3 *db;
	long long t0;
	int first;
	unsigned char *api_lane; /* api.id → lane */
	long long api_n;
};

static void ev_begin(struct exp *x)
{
	fputs(x->first ? "\n" : ",\n", x->f);
	x->first = 0;
}

static void ts(struct exp *x, const char *key, long long t)
{
	long long d = t - x->t0;
	fprintf(x->f, ",\"%s\":%s%lld.%03lld", key, d < 0 ? "-" : "", llabs(d) / 1000, llabs(d) % 1000);
}

static void meta_name(struct exp *x, const char *what, long long pid, long long tid, const char *name, int sort)
{
	ev_begin(x);
	fprintf(x->f, "{\"ph\":\"M\",\"name\":\"%s\",\"pid\":%lld,\"tid\":%lld,\"args\":{\"name\":", what, pid, tid);
	gd_json_escape(x->f, name);
	fputs("}}", x->f);
	if (sort >= 0) {
		ev_begin(x);
		fprintf(x->f, "{\"ph\":\"M\",\"name\":\"%s_sort_index\",\"pid\":%lld,\"tid\":%lld,\"args\":{\"sort_index\":%d}}",
			what[0] == 'p' ? "process" : "thread", pid, tid, sort);
	}
}

static const char *copy_kind(int k)
{
	static const char *const n[] = {"?", "HtoD", "DtoH", "HtoA", "AtoH", "AtoA", "AtoD", "DtoA", "DtoD", "HtoH", "PtoP"};
	return k >= 0 && k <= 10 ? n[k] : "?";
}

static const char *mem_kind(int k)
{
	static const char *const n[] = {"unknown", "pageable", "pinned", "device", "array", "managed", "device static", "managed static"};
	return k >= 0 && k <= 7 ? n[k] : "unknown";
}

static int prep(struct exp *x, sqlite3_stmt **s, const char *sql)
{
	if (sqlite3_prepare_v2(x->db, sql, -1, s, NULL) != SQLITE_OK)
		return gd_error(GD_EDATA, "export: profile query failed: %s", sqlite3_errmsg(x->db));
	return GD_OK;
}

static const char *col(sqlite3_stmt *s, int i)
{
	const char *t = (const char *)sqlite3_column_text(s, i);
	return t ? t : "";
}

static int processes(struct exp *x)
{
	sqlite3_stmt *s;
	if (prep(x, &s, "SELECT pid, COALESCE(command_line,''), traced FROM processes ORDER BY pid"))
		return GD_EDATA;
	while (sqlite3_step(s) == SQLITE_ROW) {
		char name[512];
		long long pid = sqlite3_column_int64(s, 0);
		snprintf(name, sizeof(name), "%.400s (pid %lld%s)", col(s, 1), pid,
			 sqlite3_column_int(s, 2) ? "" : ", not traced");
		meta_name(x, "process_name", pid, 0, name, -1);
	}
	sqlite3_finalize(s);
	return GD_OK;
}

static int api_events(struct exp *x)
{
	sqlite3_stmt *s;
	struct lanes ln = {-1, {0}};
	long long last_key = -1;
	int named[LANES] = {0};
	if (prep(x, &s, "SELECT a.id, a.pid, a.tid, a.start, a.end, COALESCE(n.value,'api ' || a.cbid), a.correlation, "
			"a.return_value FROM api a LEFT JOIN strings n ON n.id=a.name WHERE a.start IS NOT NULL "
			"AND a.end IS NOT NULL ORDER BY a.pid, a.tid, a.start"))
		return GD_EDATA;
	while (sqlite3_step(s) == SQLITE_ROW) {
		long long id = sqlite3_column_int64(s, 0), pid = sqlite3_column_int64(s, 1),
			  tid = sqlite3_column_int64(s, 2), a = sqlite3_column_int64(s, 3), b = sqlite3_column_int64(s, 4);
		int lane = lane_for(&ln, pid * 4194304LL * 2 + tid, a, b);
		long long vtid = tid + (long long)lane * 4194304LL; /* lanes of a thread: above pid_max */
		if (id >= 0 && id < x->api_n)
			x->api_lane[id] = (unsigned char)lane;
		if (ln.key != last_key) {
			memset(named, 0, sizeof(named));
			last_key = ln.key;
		}
		if (!named[lane]) {
			char nm[96];
			snprintf(nm, sizeof(nm), lane ? "CPU thread %lld (API) #%d" : "CPU thread %lld (API)", tid, lane + 1);
			meta_name(x, "thread_name", pid, vtid, nm, -1);
			named[lane] = 1;
		}
		ev_begin(x);
		fprintf(x->f, "{\"ph\":\"X\",\"cat\":\"api\",\"pid\":%lld,\"tid\":%lld", pid, vtid);
		ts(x, "ts", a);
		fprintf(x->f, ",\"dur\":%lld.%03lld,\"name\":", (b - a) / 1000, (b - a) % 1000);
		gd_json_escape(x->f, col(s, 5));
		fprintf(x->f, ",\"args\":{\"correlation\":%lld,\"return\":%lld}}", sqlite3_column_int64(s, 6),
			sqlite3_column_int64(s, 7));
	}
	sqlite3_finalize(s);
	return GD_OK;
}

/* Kernels, copies and memsets of each stream, with lanes and flow arrows from their API call. */
static int gpu_events(struct exp *x)
{
	sqlite3_stmt *s;
	struct lanes ln = {-1, {0}};
	long long last_track = -1, flow = 0;
	int named[LANES] = {0};
	if (prep(x, &s,
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
		 "WHERE g.start IS NOT NULL AND g.end IS NOT NULL ORDER BY g.pid, g.stream, g.start"))
		return GD_EDATA;
	while (sqlite3_step(s) == SQLITE_ROW) {
		int kind = sqlite3_column_int(s, 0);
		long long pid = sqlite3_column_int64(s, 1), stream = sqlite3_column_int64(s, 2),
			  a = sqlite3_column_int64(s, 3), b = sqlite3_column_int64(s, 4);
		long long track = pid * 1048576LL + stream;
		int lane = lane_for(&ln, track, a, b < a ? a : b);
		long long tid = TID_STREAM + (stream % 1000000) * LANES + lane;
		if (track != last_track) {
			memset(named, 0, sizeof(named));
			last_track = track;
		}
		if (!named[lane]) {
			char nm[128];
			int is_null = sqlite3_column_type(s, 15) != SQLITE_NULL && sqlite3_column_int64(s, 15) == stream;
			snprintf(nm, sizeof(nm), "GPU %lld stream %lld%s", sqlite3_column_int64(s, 7), stream,
				 is_null ? " (legacy default)" : "");
			if (lane)
				snprintf(nm + strlen(nm), sizeof(nm) - strlen(nm), " #%d", lane + 1);
			meta_name(x, "thread_name", pid, tid, nm, (int)(1000 + (stream % 100000) * LANES + lane));
			named[lane] = 1;
		}
		ev_begin(x);
		fprintf(x->f, "{\"ph\":\"X\",\"cat\":\"%s\",\"pid\":%lld,\"tid\":%lld", kind == 0 ? "kernel" : kind == 1 ? "memcpy" : "memset",
			pid, tid);
		ts(x, "ts", a);
		fprintf(x->f, ",\"dur\":%lld.%03lld,\"name\":", (b - a) / 1000, (b - a) % 1000);
		if (kind == 1) {
			char nm[96];
			snprintf(nm, sizeof(nm), "memcpy %s%s", copy_kind(sqlite3_column_int(s, 8)),
				 sqlite3_column_int(s, 9) == 1 || sqlite3_column_int(s, 10) == 1 ? " (pageable)" : "");
			gd_json_escape(x->f, nm);
			fprintf(x->f, ",\"args\":{\"bytes\":%lld,\"src\":\"%s\",\"dst\":\"%s\",\"async\":%d,\"correlation\":%lld}}",
				sqlite3_column_int64(s, 11), mem_kind(sqlite3_column_int(s, 9)), mem_kind(sqlite3_column_int(s, 10)),
				sqlite3_column_int(s, 12), sqlite3_column_int64(s, 6));
		} else if (kind == 2) {
			gd_json_escape(x->f, "memset");
			fprintf(x->f, ",\"args\":{\"bytes\":%lld,\"value\":%lld,\"correlation\":%lld}}", sqlite3_column_int64(s, 8),
				sqlite3_column_int64(s, 9), sqlite3_column_int64(s, 6));
		} else {
			gd_json_escape(x->f, col(s, 5));
			fputs(",\"args\":{\"grid\":", x->f);
			gd_json_escape(x->f, col(s, 8));
			fputs(",\"block\":", x->f);
			gd_json_escape(x->f, col(s, 9));
			fprintf(x->f, ",\"registers\":%lld,\"static_smem\":%lld,\"dynamic_smem\":%lld,\"correlation\":%lld",
				sqlite3_column_int64(s, 10), sqlite3_column_int64(s, 11), sqlite3_column_int64(s, 12),
				sqlite3_column_int64(s, 6));
			if (sqlite3_column_type(s, 14) != SQLITE_NULL)
				fprintf(x->f, ",\"graph\":%lld", sqlite3_column_int64(s, 14));
			fputs(",\"full_name\":", x->f);
			gd_json_escape(x->f, col(s, 13));
			fputs("}}", x->f);
		}
		if (sqlite3_column_type(s, 16) != SQLITE_NULL) {
			long long api_id = sqlite3_column_int64(s, 16), api_tid = sqlite3_column_int64(s, 17);
			long long api_ts = sqlite3_column_int64(s, 18);
			int api_lane = api_id >= 0 && api_id < x->api_n ? x->api_lane[api_id] : 0;
			flow++;
			ev_begin(x);
			fprintf(x->f, "{\"ph\":\"s\",\"cat\":\"launch\",\"name\":\"launch\",\"id\":%lld,\"pid\":%lld,\"tid\":%lld",
				flow, pid, api_tid + (long long)api_lane * 4194304LL);
			ts(x, "ts", api_ts);
			fputs("}", x->f);
			ev_begin(x);
			fprintf(x->f, "{\"ph\":\"f\",\"bp\":\"e\",\"cat\":\"launch\",\"name\":\"launch\",\"id\":%lld,\"pid\":%lld,\"tid\":%lld",
				flow, pid, tid);
			ts(x, "ts", a);
			fputs("}", x->f);
		}
	}
	sqlite3_finalize(s);
	return GD_OK;
}

static int nvtx_events(struct exp *x)
{
	sqlite3_stmt *s;
	struct lanes ln = {-1, {0}};
	long long last = -1;
	int named[LANES] = {0};
	if (prep(x, &s, "SELECT v.pid, v.tid, v.kind, v.start, v.end, COALESCE(n.value,''), COALESCE(d.value,''), v.color "
			"FROM nvtx v LEFT JOIN strings n ON n.id=v.name LEFT JOIN strings d ON d.id=v.domain "
			"WHERE v.start IS NOT NULL ORDER BY v.pid, v.tid, v.start, v.end DESC"))
		return GD_EDATA;
	while (sqlite3_step(s) == SQLITE_ROW) {
		long long pid = sqlite3_column_int64(s, 0), otid = sqlite3_column_int64(s, 1);
		int mark = sqlite3_column_int(s, 2);
		long long a = sqlite3_column_int64(s, 3);
		long long b = sqlite3_column_type(s, 4) == SQLITE_NULL ? a : sqlite3_column_int64(s, 4);
		long long key = pid * 4194304LL + otid;
		/* NVTX push/pop ranges nest: an event inside the previous one stays on its lane. */
		int lane = 0;
		long long tid;
		if (ln.key != key) {
			ln.key = key;
			memset(ln.end, 0, sizeof(ln.end));
		}
		if (!mark) {
			for (lane = 0; lane < LANES - 1; lane++)
				if (a >= ln.end[lane] || b <= ln.end[lane])
					break;
			if (b > ln.end[lane])
				ln.end[lane] = b;
		}
		tid = TID_NVTX + (otid % 1000000) * LANES + lane;
		if (key != last) {
			memset(named, 0, sizeof(named));
			last = key;
		}
		if (!named[lane]) {
			char nm[96];
			snprintf(nm, sizeof(nm), lane ? "NVTX thread %lld #%d" : "NVTX thread %lld", otid, lane + 1);
			meta_name(x, "thread_name", pid, tid, nm, -1);
			named[lane] = 1;
		}
		ev_begin(x);
		if (mark)
			fprintf(x->f, "{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"nvtx\",\"pid\":%lld,\"tid\":%lld", pid, tid);
		else
			fprintf(x->f, "{\"ph\":\"X\",\"cat\":\"nvtx\",\"pid\":%lld,\"tid\":%lld,\"dur\":%lld.%03lld", pid, tid,
				(b - a) / 1000, (b - a) % 1000);
		ts(x, "ts", a);
		fputs(",\"name\":", x->f);
		gd_json_escape(x->f, col(s, 5));
		fputs(",\"args\":{\"domain\":", x->f);
		gd_json_escape(x->f, col(s, 6));
		if (sqlite3_column_type(s, 4) == SQLITE_NULL && !mark)
			fputs(",\"unclosed\":true", x->f);
		fputs("}}", x->f);
	}
	sqlite3_finalize(s);
	return GD_OK;
}

static int nvml_events(struct exp *x)
{
	static const char *const cols[][2] = {
		{"util_gpu", "GPU utilisation (%)"}, {"util_mem", "memory utilisation (%)"},
		{"sm_mhz", "SM clock (MHz)"},        {"mem_mhz", "memory clock (MHz)"},
		{"power_mw", "power (W)"},           {"temp_c", "temperature (C)"},
		{"mem_used", "memory used (GiB)"},   {"pcie_tx_kbps", "PCIe TX (MB/s)"},
		{"pcie_rx_kbps", "PCIe RX (MB/s)"},  {"clock_reasons", "clock event reasons (mask)"},
	};
	static const double scale[] = {1, 1, 1, 1, 1e-3, 1, 1.0 / 1073741824.0, 1e-3, 1e-3, 1};
	sqlite3_stmt *s;
	long long seen[64];
	int nseen = 0;
	if (prep(x, &s, "SELECT t, device, util_gpu, util_mem, sm_mhz, mem_mhz, power_mw, temp_c, mem_used, pcie_tx_kbps, "
			"pcie_rx_kbps, clock_reasons FROM nvml_samples ORDER BY device, t"))
		return GD_EDATA;
	while (sqlite3_step(s) == SQLITE_ROW) {
		long long t = sqlite3_column_int64(s, 0), dev = sqlite3_column_int64(s, 1);
		int known = 0;
		for (int i = 0; i < nseen; i++)
			if (seen[i] == dev)
				known = 1;
		if (!known && nseen < 64) {
			char nm[64];
			seen[nseen++] = dev;
			snprintf(nm, sizeof(nm), "GPU %lld (NVML)", dev);
			meta_name(x, "process_name", PID_NVML + dev, 0, nm, -1);
		}
		for (int i = 0; i < 10; i++) {
			if (sqlite3_column_type(s, 2 + i) == SQLITE_NULL)
				continue;
			ev_begin(x);
			fprintf(x->f, "{\"ph\":\"C\",\"pid\":%lld,\"name\":\"%s\"", PID_NVML + dev, cols[i][1]);
			ts(x, "ts", t);
			fprintf(x->f, ",\"args\":{\"value\":%.6g}}", (double)sqlite3_column_int64(s, 2 + i) * scale[i]);
		}
	}
	sqlite3_finalize(s);
	return GD_OK;
}

static long long q1(sqlite3 *db, const char *sql, long long dflt)
{
	sqlite3_stmt *s;
	long long v = dflt;
	if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
		return dflt;
	if (sqlite3_step(s) == SQLITE_ROW && sqlite3_column_type(s, 0) != SQLITE_NULL)
		v = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return v;
}

int gd_export_perfetto(const char *profile, const char *out_path)
{
	struct exp x;
	struct gd_atomic at;
	int rc = GD_OK;
	long long version;
	memset(&x, 0, sizeof(x));
	if (sqlite3_open_v2(profile, &x.db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
		rc = gd_error(GD_EDATA, "export: cannot open '%s': %s", profile, sqlite3_errmsg(x.db));
		sqlite3_close(x.db);
		return rc;
	}
	version = q1(x.db, "SELECT value FROM meta WHERE key='schema_version'", -1);
	if (version < 0) {
		sqlite3_close(x.db);
		return gd_error(GD_EDATA, "export: '%s' is not a gpudiag profile", profile);
	}
	if (version != GD_PROFILE_SCHEMA_VERSION) {
		sqlite3_close(x.db);
		return gd_error(GD_EDATA, "export: '%s' has profile schema version %lld; this gpudiag reads version %d",
				profile, version, GD_PROFILE_SCHEMA_VERSION);
	}
	x.t0 = q1(x.db, "SELECT value FROM meta WHERE key='start_ns'", -1);
	if (x.t0 < 0)
		x.t0 = q1(x.db, "SELECT MIN(t) FROM (SELECT MIN(start) t FROM kernels UNION ALL SELECT MIN(start) FROM api)", 0);
	x.api_n = q1(x.db, "SELECT COALESCE(MAX(id),0)+1 FROM api", 1);
	x.api_lane = calloc((size_t)x.api_n, 1);
	if (!x.api_lane) {
		sqlite3_close(x.db);
		return gd_error(GD_EFAIL, "out of memory");
	}
	x.f = gd_atomic_open(&at, out_path);
	if (!x.f) {
		free(x.api_lane);
		sqlite3_close(x.db);
		return GD_EFAIL;
	}
	x.first = 1;
	fputs("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"generator\":\"gpudiag " GPUDIAG_VERSION "\"},\"traceEvents\":[", x.f);
	rc = processes(&x);
	if (!rc)
		rc = api_events(&x);
	if (!rc)
		rc = gpu_events(&x);
	if (!rc)
		rc = nvtx_events(&x);
	if (!rc)
		rc = nvml_events(&x);
	fputs("\n]}\n", x.f);
	if (rc)
		gd_atomic_abort(&at);
	else
		rc = gd_atomic_commit(&at);
	free(x.api_lane);
	sqlite3_close(x.db);
	return rc;
}

