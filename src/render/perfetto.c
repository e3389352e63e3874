/* A saved profile as Chrome-trace JSON (gpudiag export --perfetto), which ui.perfetto.dev and
 * chrome://tracing open.
 *
 * Layout: one Perfetto process per profiled process; inside it one track per CPU thread (API
 * calls), one per GPU stream (kernels, copies, memsets), one per thread for NVTX ranges and
 * marks; NVML samples are counter tracks of a separate "GPU n (NVML)" process, and the GPU's
 * performance-monitor samples (gpu_metrics, when the profile has them) counter tracks of a
 * "GPU n (counters)" process, one per quantity ("GPU 0 · SM active %"). Complete
 * ("X") events on one track must nest, so events that partially overlap an earlier one go to
 * an extra lane ("stream 7 #2") instead of being dropped or mis-drawn. Each kernel/copy with
 * a traced API call gets a flow arrow from the call. Times are µs from the run's start, with
 * ns precision. Every string goes through gd_json_escape. */
#include "render/perfetto.h"

#include "analysis/framework.h"
#include "analysis/names.h"
#include "analysis/tables.h"

#include "core/fileio.h"
#include "core/json.h"
#include "core/status.h"
#include "profile/trace_rows.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define LANES 16
/* Synthetic thread ids: GPU streams and NVTX tracks must not collide with OS thread ids
 * (below 2^22 on Linux). */
#define TID_STREAM 0x40000000LL
#define TID_NVTX 0x20000000LL
#define PID_NVML 0x7ff00000LL
#define PID_PM 0x7fe00000LL

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
	struct gd_trace *db;
	long long t0;
	int first;
	unsigned char *api_lane; /* api.id → lane */
	long long api_n;
	const char *profile;
	struct gd_fw_krefs fw; /* each kernel's op and module (a PyTorch or JAX profile), or empty */
};

static void ev_begin(struct exp *x)
{
	fputs(x->first ? "\n" : ",\n", x->f);
	x->first = 0;
}

/* Track keys and synthetic ids from database values: arithmetic that wraps instead of
 * overflowing (a hostile pid or tid near INT64_MAX). Equal to the plain sums for real ids. */
static long long wadd(long long a, long long b) { return (long long)((unsigned long long)a + (unsigned long long)b); }
static long long wmul(long long a, long long b) { return (long long)((unsigned long long)a * (unsigned long long)b); }

/* b - a ns as µs with ns precision, a valid JSON number for any two int64: "-1.500", never
 * "0.-01" (the difference is taken in unsigned arithmetic, where it always fits). */
static void us(FILE *f, long long a, long long b)
{
	int neg = b < a;
	unsigned long long d = neg ? (unsigned long long)a - (unsigned long long)b : (unsigned long long)b - (unsigned long long)a;
	fprintf(f, "%s%llu.%03llu", neg ? "-" : "", d / 1000, d % 1000);
}

static void ts(struct exp *x, const char *key, long long t)
{
	fprintf(x->f, ",\"%s\":", key);
	us(x->f, x->t0, t);
}

/* ",\"dur\":" and b - a, never negative: the reader's rows have end >= start (trace_rows.c
 * skips the others), so the clamp is only a last guard. */
static void dur(struct exp *x, long long a, long long b)
{
	fputs(",\"dur\":", x->f);
	us(x->f, a, b < a ? a : b);
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

const char *gd_perfetto_copy_kind(int k)
{
	static const char *const n[] = {"?", "HtoD", "DtoH", "HtoA", "AtoH", "AtoA", "AtoD", "DtoA", "DtoD", "HtoH", "PtoP"};
	return k >= 0 && k <= 10 ? n[k] : "?";
}

/* Ends a query: a read error (a malformed database) fails the export, which then leaves no
 * file, instead of writing the rows read so far as if they were all. */
static int done(struct exp *x, struct gd_trace_q *q)
{
	char why[512];
	if (gd_trace_end(q, why, sizeof(why)) != GD_OK)
		return gd_error(GD_EDATA, "export: '%s' is corrupt: %s", x->profile, why);
	return GD_OK;
}

static int prep(struct exp *x, enum gd_trace_kind kind, struct gd_trace_q **q)
{
	char why[512];
	int rc = gd_trace_query(x->db, kind, q, why, sizeof(why));
	if (rc == GD_EDATA)
		return gd_error(GD_EDATA, "export: profile query failed: %s", why);
	return rc ? gd_error(rc, "%s", why) : GD_OK;
}

static int processes(struct exp *x)
{
	struct gd_trace_q *q;
	struct gd_trace_process r;
	if (prep(x, GD_TQ_PROCESSES, &q))
		return GD_EDATA;
	while (gd_trace_next_process(q, &r)) {
		char name[512];
		long long pid = r.pid;
		snprintf(name, sizeof(name), "%.400s (pid %lld%s)", r.command, pid, r.traced ? "" : ", not traced");
		meta_name(x, "process_name", pid, 0, name, -1);
	}
	return done(x, q);
}

static int api_events(struct exp *x)
{
	struct gd_trace_q *q;
	struct gd_trace_api r;
	struct lanes ln = {-1, {0}};
	long long last_key = -1;
	int named[LANES] = {0};
	if (prep(x, GD_TQ_API, &q))
		return GD_EDATA;
	while (gd_trace_next_api(q, &r)) {
		long long id = r.id, pid = r.pid, tid = r.tid, a = r.start, b = r.end;
		int lane = lane_for(&ln, wadd(wmul(pid, 4194304LL * 2), tid), a, b);
		long long vtid = wadd(tid, (long long)lane * 4194304LL); /* lanes of a thread: above pid_max */
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
		dur(x, a, b);
		/* the function's name as users write it (cudaLaunchKernel, not CUPTI's
		 * cudaLaunchKernel_v7000); the recorded one stays in the args */
		{
			char shown[256];
			fputs(",\"name\":", x->f);
			gd_json_escape(x->f, gd_api_display_name(r.name, shown, sizeof(shown)));
			fprintf(x->f, ",\"args\":{\"correlation\":%lld,\"return\":%lld,\"cupti_name\":", r.correlation,
				r.return_value);
			gd_json_escape(x->f, r.name);
			fputs("}}", x->f);
		}
	}
	return done(x, q);
}

/* Kernels, copies and memsets of each stream, with lanes and flow arrows from their API call. */
static int gpu_events(struct exp *x)
{
	struct gd_trace_q *q;
	struct gd_trace_gpu r;
	struct lanes ln = {-1, {0}};
	long long last_track = -1, flow = 0;
	int named[LANES] = {0};
	if (prep(x, GD_TQ_GPU, &q))
		return GD_EDATA;
	while (gd_trace_next_gpu(q, &r)) {
		const struct gd_fw_kref *fr;
		int kind = r.kind;
		long long pid = r.pid, stream = r.stream, a = r.start, b = r.end;
		long long track = wadd(wmul(pid, 1048576LL), stream);
		int lane = lane_for(&ln, track, a, b < a ? a : b);
		long long tid = TID_STREAM + (stream % 1000000) * LANES + lane;
		if (track != last_track) {
			memset(named, 0, sizeof(named));
			last_track = track;
		}
		if (!named[lane]) {
			char nm[128];
			int is_null = r.has_null_stream && r.null_stream == stream;
			snprintf(nm, sizeof(nm), "GPU %lld stream %lld%s", r.device, stream,
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
		dur(x, a, b);
		fputs(",\"name\":", x->f);
		if (kind == 1) {
			char nm[96];
			snprintf(nm, sizeof(nm), "memcpy %s%s", gd_perfetto_copy_kind(r.copy_kind),
				 r.src_kind == 1 || r.dst_kind == 1 ? " (pageable)" : "");
			gd_json_escape(x->f, nm);
			fprintf(x->f, ",\"args\":{\"bytes\":%lld,\"src\":\"%s\",\"dst\":\"%s\",\"async\":%d,\"correlation\":%lld}}",
				r.bytes, gd_memory_kind_name(r.src_kind), gd_memory_kind_name(r.dst_kind), r.is_async, r.correlation);
		} else if (kind == 2) {
			gd_json_escape(x->f, "memset");
			fprintf(x->f, ",\"args\":{\"bytes\":%lld,\"value\":%lld,\"correlation\":%lld}}", r.bytes,
				r.value, r.correlation);
		} else {
			gd_json_escape(x->f, r.name);
			fputs(",\"args\":{\"grid\":", x->f);
			gd_json_escape(x->f, r.grid);
			fputs(",\"block\":", x->f);
			gd_json_escape(x->f, r.block);
			fprintf(x->f, ",\"registers\":%lld,\"static_smem\":%lld,\"dynamic_smem\":%lld,\"correlation\":%lld",
				r.regs, r.static_smem, r.dyn_smem, r.correlation);
			if (r.has_graph)
				fprintf(x->f, ",\"graph\":%lld", r.graph_id);
			fputs(",\"full_name\":", x->f);
			gd_json_escape(x->f, r.full_name);
			if (x->fw.n && (fr = gd_fw_krefs_find(&x->fw, pid, r.correlation))) {
				if (fr->op >= 0) {
					fputs(",\"op\":", x->f);
					gd_json_escape(x->f, x->fw.ops[fr->op]);
				}
				if (fr->mod >= 0) {
					fputs(",\"module\":", x->f);
					gd_json_escape(x->f, x->fw.mods[fr->mod]);
				}
				if (fr->bwd)
					fputs(",\"backward\":true", x->f);
			}
			fputs("}}", x->f);
		}
		if (r.has_api) {
			long long api_id = r.api_id, api_tid = r.api_tid;
			long long api_ts = r.api_start;
			int api_lane = api_id >= 0 && api_id < x->api_n ? x->api_lane[api_id] : 0;
			flow++;
			ev_begin(x);
			fprintf(x->f, "{\"ph\":\"s\",\"cat\":\"launch\",\"name\":\"launch\",\"id\":%lld,\"pid\":%lld,\"tid\":%lld",
				flow, pid, wadd(api_tid, (long long)api_lane * 4194304LL));
			ts(x, "ts", api_ts);
			fputs("}", x->f);
			ev_begin(x);
			fprintf(x->f, "{\"ph\":\"f\",\"bp\":\"e\",\"cat\":\"launch\",\"name\":\"launch\",\"id\":%lld,\"pid\":%lld,\"tid\":%lld",
				flow, pid, tid);
			ts(x, "ts", a);
			fputs("}", x->f);
		}
	}
	return done(x, q);
}

static int nvtx_events(struct exp *x)
{
	struct gd_trace_q *q;
	struct gd_trace_nvtx r;
	struct lanes ln = {-1, {0}};
	long long last = -1;
	int named[LANES] = {0};
	if (prep(x, GD_TQ_NVTX, &q))
		return GD_EDATA;
	while (gd_trace_next_nvtx(q, &r)) {
		long long pid = r.pid, otid = r.tid;
		int mark = r.mark;
		long long a = r.start;
		long long b = r.end;
		long long key = wadd(wmul(pid, 4194304LL), otid);
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
		else {
			fprintf(x->f, "{\"ph\":\"X\",\"cat\":\"nvtx\",\"pid\":%lld,\"tid\":%lld", pid, tid);
			dur(x, a, b);
		}
		ts(x, "ts", a);
		fputs(",\"name\":", x->f);
		gd_json_escape(x->f, r.name);
		fputs(",\"args\":{\"domain\":", x->f);
		gd_json_escape(x->f, r.domain);
		if (!r.has_end && !mark)
			fputs(",\"unclosed\":true", x->f);
		fputs("}}", x->f);
	}
	return done(x, q);
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
	struct gd_trace_q *q;
	struct gd_trace_nvml r;
	long long seen[4096]; /* devices named so far (a profile has at most GD_PROFILE_MAX_DEVICES) */
	int nseen = 0;
	if (prep(x, GD_TQ_NVML, &q))
		return GD_EDATA;
	while (gd_trace_next_nvml(q, &r)) {
		long long t = r.t, dev = r.device;
		int known = 0;
		for (int i = 0; i < nseen; i++)
			if (seen[i] == dev)
				known = 1;
		if (!known && nseen < 4096) {
			char nm[64];
			seen[nseen++] = dev;
			snprintf(nm, sizeof(nm), "GPU %lld (NVML)", dev);
			meta_name(x, "process_name", wadd(PID_NVML, dev), 0, nm, -1);
		}
		for (int i = 0; i < 10; i++) {
			if (!r.has[i])
				continue;
			ev_begin(x);
			fprintf(x->f, "{\"ph\":\"C\",\"pid\":%lld,\"name\":\"%s\"", wadd(PID_NVML, dev), cols[i][1]);
			ts(x, "ts", t);
			fprintf(x->f, ",\"args\":{\"value\":%.6g}}", (double)r.v[i] * scale[i]);
		}
	}
	return done(x, q);
}

/* The PM samples (pm_metrics.h) as one counter track per device and quantity, each value at
 * its sample's start (a counter holds until its next value). A value the sample did not carry
 * is left out, never written as NaN or 0. A profile without gpu_metrics adds nothing. */
static int pm_events(struct exp *x)
{
	struct gd_trace_q *q;
	struct gd_pm_sample r;
	long long last = -1;
	int any = 0;
	if (prep(x, GD_TQ_PM, &q))
		return GD_EDATA;
	while (gd_trace_next_pm(q, &r)) {
		long long pid = wadd(PID_PM, r.device);
		if (!any || r.device != last) { /* rows come ordered by device */
			char nm[64];
			snprintf(nm, sizeof(nm), "GPU %d (counters)", r.device);
			meta_name(x, "process_name", pid, 0, nm, -1);
			last = r.device, any = 1;
		}
		for (int m = 0; m < GD_PM_COUNT; m++) {
			char nm[96];
			if (!isfinite(r.v[m]))
				continue;
			snprintf(nm, sizeof(nm), "GPU %d · %s %s", r.device, gd_pm_metrics[m].label, gd_pm_metrics[m].unit);
			ev_begin(x);
			fprintf(x->f, "{\"ph\":\"C\",\"cat\":\"gpu_metrics\",\"pid\":%lld,\"name\":", pid);
			gd_json_escape(x->f, nm);
			ts(x, "ts", r.t_start);
			fprintf(x->f, ",\"args\":{\"value\":%.9g}}", r.v[m]);
		}
	}
	return done(x, q);
}

int gd_export_perfetto(const char *profile, const char *out_path)
{
	struct exp x;
	struct gd_atomic at;
	char why[1400];
	int rc = GD_OK;
	memset(&x, 0, sizeof(x));
	x.profile = profile;
	rc = gd_trace_open(profile, &x.db, &x.t0, &x.api_n, why, sizeof(why));
	if (rc == GD_EDATA)
		return gd_error(GD_EDATA, "export: %s", why);
	if (rc)
		return gd_error(rc, "%s", why);
	/* each kernel's op and module: the framework view (a PyTorch or JAX profile) */
	if ((rc = gd_fw_krefs_load(profile, x.db, &x.fw, why, sizeof(why))) != GD_OK) {
		gd_trace_close(x.db);
		return gd_error(rc, "export: %s", why);
	}
	x.api_lane = calloc((size_t)x.api_n, 1);
	if (!x.api_lane) {
		gd_fw_krefs_free(&x.fw);
		gd_trace_close(x.db);
		return gd_error(GD_EFAIL, "out of memory");
	}
	x.f = gd_atomic_open(&at, out_path);
	if (!x.f) {
		free(x.api_lane);
		gd_fw_krefs_free(&x.fw);
		gd_trace_close(x.db);
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
	if (!rc)
		rc = pm_events(&x);
	fputs("\n]}\n", x.f);
	if (rc)
		gd_atomic_abort(&at);
	else
		rc = gd_atomic_commit(&at);
	free(x.api_lane);
	gd_fw_krefs_free(&x.fw);
	gd_trace_close(x.db);
	return rc;
}

