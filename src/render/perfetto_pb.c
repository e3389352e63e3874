/* A saved profile as a native Perfetto trace (gpudiag export --perfetto OUT, the default
 * format; docs/perfetto.md): a `Trace` of `TracePacket`s in protobuf (perfetto_wire.h), which
 * ui.perfetto.dev and trace_processor load directly, at about a fifth of the JSON's size.
 *
 * Layout: the JSON's (perfetto.c), with the same track names, slices, arguments, arrows and
 * counters. A track per process (ProcessDescriptor), and under it one track per CPU thread's
 * API calls, per GPU stream (kernels, copies, memsets) and per thread's NVTX ranges, each
 * with extra lanes ("#2") where events would partially overlap; NVML samples and GPU counters
 * are counter tracks under a "GPU n (NVML)" / "GPU n (counters)" track. Threads are named
 * tracks, not ThreadDescriptors: CUPTI's thread ids do not fit their int32. Slices are
 * TYPE_SLICE_BEGIN/END pairs; NVTX marks are instants; counters are TYPE_COUNTER with a
 * double. Arrows are flows: the API call lists the flow id of each piece of GPU work it
 * launched (flow_ids), the work ends it (terminating_flow_ids); the id is the work's table
 * and rowid, so both sides find it without sharing state. Timestamps are the profile's own
 * nanoseconds (kernels.start), so a slice joins back to its row.
 *
 * Encoding: one packet sequence (trusted_packet_sequence_id) per slice track, whose
 * TracePacketDefaults name the track (so its events do not) and clock 64, and one per counter
 * pass (NVML, GPU counters). The rows of a pass come in time order (trace_rows.h), so every
 * sequence's timestamps only grow: it opens with SEQ_INCREMENTAL_STATE_CLEARED and a
 * ClockSnapshot making clock 64 an incremental clock equal to BOOTTIME at its first event, and
 * every later timestamp is the delta from the previous one (two or three bytes instead of
 * nine). A slice's end waits on its lane until a later event of the track passes it. Event names,
 * the strings of arguments (kernel full names, launch configurations...) and the fixed
 * argument names and categories are interned per sequence (InternedData, defined in the
 * packet that first uses them); an interning table that grows past its limit clears its
 * sequence's incremental state and starts again, so memory stays bounded by the open slices,
 * the tracks and the matching windows (trace_rows.c), whatever the profile's size. Two
 * threads, each with its own connection, write the passes (GPU work + counters on one, API
 * calls + NVTX on the other); the second's packets follow the first's in the file (a scratch
 * file holds them meanwhile), so the bytes are the same at every run.
 *
 * Field numbers are Perfetto's public protos (protos/perfetto/trace/trace_packet.proto,
 * track_event/, interned_data/interned_data.proto, clock_snapshot.proto). */
#include "render/perfetto.h"

#include "analysis/framework.h"
#include "analysis/names.h"
#include "analysis/tables.h"
#include "core/fileio.h"
#include "core/status.h"
#include "profile/trace_rows.h"
#include "render/perfetto_wire.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <unistd.h>

/* ---- field numbers ---- */
enum {
	F_TRACE_PACKET = 1,
	/* TracePacket */
	F_TIMESTAMP = 8, F_TIMESTAMP_CLOCK_ID = 58, F_SEQ_ID = 10, F_TRACK_EVENT = 11, F_INTERNED_DATA = 12,
	F_SEQ_FLAGS = 13, F_CLOCK_SNAPSHOT = 6, F_PACKET_DEFAULTS = 59, F_TRACK_DESCRIPTOR = 60,
	SEQ_INCREMENTAL_STATE_CLEARED = 1, SEQ_NEEDS_INCREMENTAL_STATE = 2,
	/* TracePacketDefaults, TrackEventDefaults */
	F_DEFAULTS_CLOCK_ID = 58, F_DEFAULTS_TRACK_EVENT = 11, F_TED_TRACK = 11,
	/* ClockSnapshot, ClockSnapshot.Clock */
	F_CLOCKS = 1, F_CLOCK_ID = 1, F_CLOCK_TIMESTAMP = 2, F_CLOCK_INCREMENTAL = 3,
	PB_CLOCK_BOOTTIME = 6, PB_CLOCK_DELTA = 64, /* 64..127: clocks of one sequence */
	/* TrackDescriptor, ProcessDescriptor */
	F_TD_UUID = 1, F_TD_NAME = 2, F_TD_PROCESS = 3, F_TD_PARENT = 5, F_TD_COUNTER = 8,
	F_PD_PID = 1, F_PD_CMDLINE = 2, F_PD_NAME = 6,
	/* TrackEvent */
	F_TE_CATEGORY_IIDS = 3, F_TE_ANNOTATIONS = 4, F_TE_TYPE = 9, F_TE_NAME_IID = 10, F_TE_TRACK = 11,
	F_TE_DOUBLE_VALUE = 44, F_TE_FLOW_IDS = 47, F_TE_TERMINATING_FLOW_IDS = 48,
	TYPE_SLICE_BEGIN = 1, TYPE_SLICE_END = 2, TYPE_INSTANT = 3, TYPE_COUNTER = 4,
	/* DebugAnnotation */
	F_DA_NAME_IID = 1, F_DA_BOOL = 2, F_DA_INT = 4, F_DA_STRING_IID = 17,
	/* InternedData; its EventCategory, EventName, DebugAnnotationName and InternedString
	 * are all {iid = 1, name/str = 2} */
	F_ID_CATEGORIES = 1, F_ID_EVENT_NAMES = 2, F_ID_ANNOTATION_NAMES = 3, F_ID_STRING_VALUES = 29,
	F_IID = 1, F_IID_TEXT = 2,
};

/* The fixed argument names and categories: iid = index + 1, defined when a sequence starts. */
enum { A_CORRELATION = 1, A_RETURN, A_CUPTI_NAME, A_LAUNCH, A_GRAPH, A_FULL_NAME, A_BYTES, A_SRC, A_DST, A_ASYNC,
       A_VALUE, A_DOMAIN, A_UNCLOSED, A_RECORDED_END, A_OP, A_MODULE, A_BACKWARD, A_COUNT };
static const char *const ann_name[A_COUNT] = {
	"", "correlation", "return", "cupti_name", "launch", "graph", "full_name", "bytes", "src", "dst", "async",
	"value", "domain", "unclosed", "recorded_end_ns", "op", "module", "backward",
};
enum { C_API = 1, C_KERNEL, C_MEMCPY, C_MEMSET, C_NVTX, C_COUNT };
static const char *const cat_name[C_COUNT] = {"", "api", "kernel", "memcpy", "memset", "nvtx"};

#define LANES 16     /* as the JSON: a 17th overlapping event shares the last lane */
#define DEPTH 64     /* nesting kept per lane; deeper events on the last lane are cut */
#define FLUSH_AT (1u << 20)
#define INTERN_MAX (1u << 16) /* entries of one interning table before the sequence is cleared */


/* ---- output: a buffer of whole packets per thread, and the file it goes to ---- */
struct out {
	struct gd_pb b;
	FILE *f;
};

static void out_flush(struct out *o)
{
	/* a write error stays on the stream, for gd_atomic_commit (or the copy) to report */
	if (!o->b.oom && o->b.n)
		fwrite(o->b.p, 1, o->b.n, o->f);
	o->b.n = 0;
}

/* ---- small open-addressing maps ---- */
static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	return x ^ (x >> 33);
}

/* key (ns, a, b, c) → value; value 0 is "empty" */
struct slot {
	uint64_t a, b, c, v;
	uint32_t ns;
};
struct map {
	struct slot *s;
	size_t cap, n;
};

static uint64_t key_hash(uint32_t ns, uint64_t a, uint64_t b, uint64_t c)
{
	/* one finaliser over a multiply-add of the parts: enough spread for a table, cheap per event */
	return mix(a + 0x9e3779b97f4a7c15ULL * (b + 0x9e3779b97f4a7c15ULL * (c + ((uint64_t)ns << 40))));
}

static struct slot *map_find(struct map *m, uint32_t ns, uint64_t a, uint64_t b, uint64_t c, int *found)
{
	size_t i;
	*found = 0;
	if (!m->cap)
		return NULL;
	for (i = key_hash(ns, a, b, c) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
		struct slot *s = &m->s[i];
		if (!s->v)
			return s;
		if (s->ns == ns && s->a == a && s->b == b && s->c == c) {
			*found = 1;
			return s;
		}
	}
}

/* Inserts (the key is absent): 0 when out of memory. */
static int map_put(struct map *m, uint32_t ns, uint64_t a, uint64_t b, uint64_t c, uint64_t v)
{
	int found;
	struct slot *s;
	if ((m->n + 1) * 2 > m->cap) {
		struct map g = {calloc(m->cap ? m->cap * 2 : 64, sizeof(struct slot)), m->cap ? m->cap * 2 : 64, 0};
		if (!g.s)
			return 0;
		for (size_t i = 0; i < m->cap; i++)
			if (m->s[i].v) {
				*map_find(&g, m->s[i].ns, m->s[i].a, m->s[i].b, m->s[i].c, &found) = m->s[i];
				g.n++;
			}
		free(m->s);
		*m = g;
	}
	s = map_find(m, ns, a, b, c, &found);
	s->ns = ns, s->a = a, s->b = b, s->c = c, s->v = v;
	m->n++;
	return 1;
}

static void map_clear(struct map *m)
{
	free(m->s);
	memset(m, 0, sizeof(*m));
}

/* ---- packet sequences ---- */

/* A packet sequence: one per slice track (its events name no track: TrackEventDefaults
 * does) and one per counter pass. */
struct seq {
	uint32_t id;
	uint64_t track;       /* the default track of its events; 0 for a counter pass */
	struct out *o;
	struct gd_trace *db;
	int started;          /* its first packet (state cleared, clock) is written */
	int reset;            /* an interning table is full: clear at the next packet */
	long long last;       /* the incremental clock's value */
	struct map names, strs; /* interned event names and argument strings → iid */
	uint64_t next_name, next_str;
	struct gd_pb pend;    /* this packet's new InternedData entries */
	int oom;
};

/* A pass over one kind of rows; oom: memory ran out. */
struct pass {
	int oom;
};

static void interned_entry(struct gd_pb *b, unsigned field, uint64_t iid, const char *text, size_t len)
{
	size_t at = gd_pb_open(b, field);
	gd_pb_uint(b, F_IID, iid);
	gd_pb_bytes(b, F_IID_TEXT, text, len);
	gd_pb_close(b, at);
}

/* The sequence's first packet (and the first after a clear): incremental state cleared,
 * timestamps on clock 64 and events on the sequence's track by default, clock 64 = BOOTTIME
 * = t, the fixed interned names. */
static void seq_start(struct seq *q, long long t)
{
	struct gd_pb *b = &q->o->b;
	size_t pk = gd_pb_open(b, F_TRACE_PACKET), at, c;
	gd_pb_uint(b, F_SEQ_ID, q->id);
	gd_pb_uint(b, F_SEQ_FLAGS, SEQ_INCREMENTAL_STATE_CLEARED);
	at = gd_pb_open(b, F_PACKET_DEFAULTS);
	gd_pb_uint(b, F_DEFAULTS_CLOCK_ID, PB_CLOCK_DELTA);
	if (q->track) {
		c = gd_pb_open(b, F_DEFAULTS_TRACK_EVENT);
		gd_pb_uint(b, F_TED_TRACK, q->track);
		gd_pb_close(b, c);
	}
	gd_pb_close(b, at);
	at = gd_pb_open(b, F_CLOCK_SNAPSHOT);
	c = gd_pb_open(b, F_CLOCKS);
	gd_pb_uint(b, F_CLOCK_ID, PB_CLOCK_BOOTTIME);
	gd_pb_uint(b, F_CLOCK_TIMESTAMP, (uint64_t)t);
	gd_pb_close(b, c);
	c = gd_pb_open(b, F_CLOCKS);
	gd_pb_uint(b, F_CLOCK_ID, PB_CLOCK_DELTA);
	gd_pb_uint(b, F_CLOCK_TIMESTAMP, (uint64_t)t);
	gd_pb_uint(b, F_CLOCK_INCREMENTAL, 1);
	gd_pb_close(b, c);
	gd_pb_close(b, at);
	at = gd_pb_open(b, F_INTERNED_DATA);
	for (int i = 1; i < C_COUNT; i++)
		interned_entry(b, F_ID_CATEGORIES, (uint64_t)i, cat_name[i], strlen(cat_name[i]));
	for (int i = 1; i < A_COUNT; i++)
		interned_entry(b, F_ID_ANNOTATION_NAMES, (uint64_t)i, ann_name[i], strlen(ann_name[i]));
	gd_pb_close(b, at);
	gd_pb_close(b, pk);
	map_clear(&q->names);
	map_clear(&q->strs);
	q->next_name = q->next_str = 1;
	q->last = t;
	q->started = 1, q->reset = 0;
}

/* Opens a packet at time t and writes its timestamp, sequence and flags; returns where it
 * starts. A time before the clock (never, for rows in time order) is written absolute. */
static size_t pkt_open(struct seq *q, long long t)
{
	struct gd_pb *b = &q->o->b;
	size_t pk;
	if (!q->started || q->reset)
		seq_start(q, t);
	pk = gd_pb_open(b, F_TRACE_PACKET);
	if (!gd_pb_room(b, 40)) /* the header below: at most 2 + 10 + 3 + 6 + 2 bytes */
		return pk;
	if (t >= q->last) {
		gd_pb_uint(b, F_TIMESTAMP, (uint64_t)(t - q->last));
		q->last = t;
	} else {
		gd_pb_uint(b, F_TIMESTAMP, (uint64_t)t);
		gd_pb_uint(b, F_TIMESTAMP_CLOCK_ID, PB_CLOCK_BOOTTIME);
	}
	gd_pb_uint(b, F_SEQ_ID, q->id);
	/* every packet after the first relies on the sequence's state: its clock, its defaults,
	 * its interned strings */
	b->p[b->n++] = F_SEQ_FLAGS << 3; /* tag and value fit a byte each */
	b->p[b->n++] = SEQ_NEEDS_INCREMENTAL_STATE;
	q->pend.n = 0;
	return pk;
}

static void pkt_close(struct seq *q, size_t pk)
{
	struct gd_pb *b = &q->o->b;
	if (q->pend.n)
		gd_pb_bytes(b, F_INTERNED_DATA, q->pend.p, q->pend.n);
	if (q->pend.oom || q->oom)
		b->oom = 1;
	gd_pb_close(b, pk);
}

/* The end of q's innermost open slice, at t. */
static void end_write(struct seq *q, long long t)
{
	struct gd_pb *b = &q->o->b;
	size_t pk = pkt_open(q, t), te;
	te = gd_pb_open(b, F_TRACK_EVENT);
	gd_pb_uint(b, F_TE_TYPE, TYPE_SLICE_END);
	gd_pb_close(b, te);
	pkt_close(q, pk);
}

/* The iid of an interned string, keyed by (ns, a, b, c); fn(ctx) gives its text the first
 * time. field: F_ID_EVENT_NAMES or F_ID_STRING_VALUES. */
enum { NS_RAW = 1, NS_KNAME, NS_FULL, NS_API, NS_CUPTI, NS_LAUNCH, NS_LAUNCH_HASH, NS_COPY, NS_FIXED, NS_FW };
typedef const char *(*text_fn)(struct seq *q, const void *ctx, char *buf, size_t n);

static uint64_t intern(struct seq *q, unsigned field, uint32_t ns, uint64_t a, uint64_t b, uint64_t c, text_fn fn,
		       const void *ctx)
{
	struct map *m = field == F_ID_EVENT_NAMES ? &q->names : &q->strs;
	uint64_t *next = field == F_ID_EVENT_NAMES ? &q->next_name : &q->next_str;
	char buf[1024];
	const char *text;
	int found;
	struct slot *s = map_find(m, ns, a, b, c, &found);
	if (found)
		return s->v;
	if (m->n >= INTERN_MAX)
		q->reset = 1; /* this packet still defines and uses the entry; the next one clears */
	text = fn(q, ctx, buf, sizeof(buf));
	if (!map_put(m, ns, a, b, c, *next))
		q->oom = 1;
	interned_entry(&q->pend, field, *next, text, strlen(text));
	return (*next)++;
}

static void seq_free(struct seq *q)
{
	if (!q)
		return;
	map_clear(&q->names);
	map_clear(&q->strs);
	gd_pb_free(&q->pend);
	free(q);
}

/* ---- tracks ---- */
struct lane {
	struct seq *q;        /* NULL: not described yet */
	int depth;
	long long open[DEPTH]; /* ends of the slices open on it, innermost last */
};
struct track {
	int kind;             /* K_* */
	long long pid, key;   /* key: the thread (API, NVTX) or stream */
	int nlanes;
	struct lane *lane;
};
enum { K_API, K_GPU, K_NVTX };

struct ctx {
	struct gd_trace *db;
	struct out o;
	uint64_t next_uuid, uuid_step;
	struct map tracks;    /* (kind, pid, key) → index + 1 into tr; counters → uuid */
	struct track *tr;
	size_t ntr, captr;
	struct map procs;     /* pids described by this thread */
	const long long *known_pids; /* described before the threads started, sorted */
	size_t nknown;
	atomic_int *stop;     /* set by a thread that failed */
	const char *profile;
	struct gd_fw_krefs fw; /* the GPU pass's: each kernel's op and module (a PyTorch or JAX
				  profile), empty otherwise */
	char why[1024];
	int rc;
};

static uint64_t proc_uuid(long long pid)
{
	/* above every counter-allocated uuid, the same in every thread */
	return (mix((uint64_t)pid ^ 0x70726f63ULL) | (1ULL << 63));
}

static int pid_known(const struct ctx *x, long long pid)
{
	size_t lo = 0, hi = x->nknown;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (x->known_pids[mid] < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < x->nknown && x->known_pids[lo] == pid;
}

static void describe_process(struct gd_pb *b, long long pid, const char *command, int traced)
{
	char name[512];
	size_t pk = gd_pb_open(b, F_TRACE_PACKET), td, pd;
	td = gd_pb_open(b, F_TRACK_DESCRIPTOR);
	gd_pb_uint(b, F_TD_UUID, proc_uuid(pid));
	if (pid > 0 && pid <= INT32_MAX) {
		pd = gd_pb_open(b, F_TD_PROCESS);
		gd_pb_uint(b, F_PD_PID, (uint64_t)pid);
		if (*command)
			gd_pb_str(b, F_PD_CMDLINE, command);
		snprintf(name, sizeof(name), "%.400s%s", *command ? command : "?", traced ? "" : " (not traced)");
		gd_pb_str(b, F_PD_NAME, name);
		gd_pb_close(b, pd);
	} else { /* no pid Perfetto can hold: a named track */
		snprintf(name, sizeof(name), "%.400s (pid %lld%s)", command, pid, traced ? "" : ", not traced");
		gd_pb_str(b, F_TD_NAME, name);
	}
	gd_pb_close(b, td);
	gd_pb_close(b, pk);
}

/* The process track of pid, described by this thread if nobody has. */
static uint64_t process_track(struct ctx *x, long long pid)
{
	int found;
	if (!pid_known(x, pid)) {
		map_find(&x->procs, 0, (uint64_t)pid, 0, 0, &found);
		if (!found) {
			if (!map_put(&x->procs, 0, (uint64_t)pid, 0, 0, 1))
				x->o.b.oom = 1;
			describe_process(&x->o.b, pid, "", 1);
		}
	}
	return proc_uuid(pid);
}

static struct track *track_get(struct ctx *x, int kind, long long pid, long long key)
{
	int found;
	struct slot *s = map_find(&x->tracks, (uint32_t)kind, (uint64_t)pid, (uint64_t)key, 0, &found);
	struct track *t;
	if (found)
		return &x->tr[s->v - 1];
	if (x->ntr == x->captr) {
		size_t cap = x->captr ? x->captr * 2 : 16;
		struct track *n = realloc(x->tr, cap * sizeof(*n));
		if (!n)
			return NULL;
		x->tr = n, x->captr = cap;
	}
	t = &x->tr[x->ntr++];
	memset(t, 0, sizeof(*t));
	t->kind = kind, t->pid = pid, t->key = key;
	if (!map_put(&x->tracks, (uint32_t)kind, (uint64_t)pid, (uint64_t)key, 0, x->ntr))
		return NULL;
	return t;
}

/* A named track under parent (0: none); counter: a counter track. */
static void describe(struct ctx *x, uint64_t uuid, uint64_t parent, const char *name, int counter)
{
	struct gd_pb *b = &x->o.b;
	size_t pk = gd_pb_open(b, F_TRACE_PACKET), td;
	td = gd_pb_open(b, F_TRACK_DESCRIPTOR);
	gd_pb_uint(b, F_TD_UUID, uuid);
	if (parent)
		gd_pb_uint(b, F_TD_PARENT, parent);
	gd_pb_str(b, F_TD_NAME, name);
	if (counter)
		gd_pb_close(b, gd_pb_open(b, F_TD_COUNTER));
	gd_pb_close(b, td);
	gd_pb_close(b, pk);
}

/* A new sequence, with an id (and track uuid) small and unique across the two threads. */
static struct seq *seq_new(struct ctx *x, int with_track)
{
	struct seq *q = calloc(1, sizeof(*q));
	if (!q)
		return NULL;
	q->id = (uint32_t)x->next_uuid;
	q->track = with_track ? x->next_uuid : 0;
	q->o = &x->o, q->db = x->db;
	x->next_uuid += x->uuid_step;
	return q;
}

/* Ends the slices open on lane l that end by s, innermost first: a slice's end waits on its
 * lane until a later event of its track passes it (or the pass ends), so that every lane's
 * sequence stays in time order without holding the whole pass. */
static void lane_close(struct lane *l, long long s)
{
	while (l->depth && l->open[l->depth - 1] <= s) {
		l->depth--;
		if (l->q)
			end_write(l->q, l->open[l->depth]);
	}
}

/* Picks the lane of a slice [s, *e] on track t. API calls and GPU work take the first lane
 * with nothing open at s, as the JSON does; NVTX ranges also the first lane whose innermost
 * open range contains them (push/pop ranges nest). On the last lane a slice that would end
 * after the one it is inside is cut to end with it (*clipped = 1), so every lane nests; one
 * nested too deep to keep ends where it starts, at once (*clipped = 2). */
static int lane_pick(struct track *t, int nest, long long s, long long *e, int *clipped)
{
	int i;
	*clipped = 0;
	for (i = 0; i < LANES; i++) {
		struct lane *l;
		if (i == t->nlanes) {
			struct lane *n = realloc(t->lane, (size_t)(i + 1) * sizeof(*n));
			if (!n)
				return -1;
			t->lane = n;
			memset(&t->lane[i], 0, sizeof(t->lane[i]));
			t->nlanes++;
		}
		l = &t->lane[i];
		lane_close(l, s);
		if (!l->depth || (nest && l->open[l->depth - 1] >= *e) || i == LANES - 1)
			break;
	}
	{
		struct lane *l = &t->lane[i];
		if (l->depth && l->open[l->depth - 1] < *e)
			*e = l->open[l->depth - 1], *clipped = 1;
		if (l->depth == DEPTH)
			*e = s, *clipped = 2; /* too deep to keep: a slice of no length at its start */
		else
			l->open[l->depth++] = *e;
	}
	return i;
}

/* The sequence of a lane, its track described the first time under the process. */
static struct seq *lane_seq(struct ctx *x, struct track *t, int lane, const char *base)
{
	char nm[600];
	if (!t->lane[lane].q) {
		struct seq *q = seq_new(x, 1);
		if (!q)
			return NULL;
		if (lane)
			snprintf(nm, sizeof(nm), "%s #%d", base, lane + 1);
		else
			snprintf(nm, sizeof(nm), "%s", base);
		describe(x, q->track, process_track(x, t->pid), nm, 0);
		t->lane[lane].q = q;
	}
	return t->lane[lane].q;
}

/* Where an event of track (kind, pid, key) goes: the lane lane_pick gives a slice [s, *e]
 * (*e may be cut: *clipped), or for an NVTX mark the first lane, keeping nothing open; the
 * lane's sequence, its track described the first time with the JSON's name. NULL when out of
 * memory. device and context name a GPU stream ("(legacy default)": the context's NULL
 * stream). */
static struct seq *place(struct ctx *x, int kind, long long pid, long long key, int mark, long long device,
			 long long context, long long s, long long *e, int *clipped)
{
	struct track *t = track_get(x, kind, pid, key);
	char nm[160];
	int lane = 0;
	*clipped = 0;
	if (!t)
		return NULL;
	if (mark) {
		long long none = s;
		if (!t->nlanes) {
			if (lane_pick(t, 1, s, &none, clipped) != 0)
				return NULL;
			t->lane[0].depth = 0, *clipped = 0; /* the lane only had to exist */
		}
		lane_close(&t->lane[0], s);
	} else if ((lane = lane_pick(t, kind == K_NVTX, s, e, clipped)) < 0) {
		return NULL;
	}
	if (t->lane[lane].q)
		return t->lane[lane].q;
	if (kind == K_API) {
		snprintf(nm, sizeof(nm), "CPU thread %lld (API)", key);
	} else if (kind == K_NVTX) {
		snprintf(nm, sizeof(nm), "NVTX thread %lld", key);
	} else {
		long long ns;
		int is_null = gd_trace_null_stream(x->db, pid, context, &ns) && ns == key;
		snprintf(nm, sizeof(nm), "GPU %lld stream %lld%s", device, key, is_null ? " (legacy default)" : "");
	}
	return lane_seq(x, t, lane, nm);
}

/* ---- events ---- */
static void ann_int(struct gd_pb *b, int name, long long v)
{
	size_t at = gd_pb_open(b, F_TE_ANNOTATIONS);
	gd_pb_uint(b, F_DA_NAME_IID, (uint64_t)name);
	gd_pb_uint(b, F_DA_INT, (uint64_t)v);
	gd_pb_close(b, at);
}

static void ann_str(struct gd_pb *b, int name, uint64_t iid)
{
	size_t at = gd_pb_open(b, F_TE_ANNOTATIONS);
	gd_pb_uint(b, F_DA_NAME_IID, (uint64_t)name);
	gd_pb_uint(b, F_DA_STRING_IID, iid);
	gd_pb_close(b, at);
}

static void ann_bool(struct gd_pb *b, int name)
{
	size_t at = gd_pb_open(b, F_TE_ANNOTATIONS);
	gd_pb_uint(b, F_DA_NAME_IID, (uint64_t)name);
	gd_pb_uint(b, F_DA_BOOL, 1);
	gd_pb_close(b, at);
}

/* Opens a slice's (or instant's) packet and track event on q's track. Returns the packet;
 * *te the track event. */
static size_t ev_open(struct seq *q, long long s, int type, int cat, size_t *te)
{
	struct gd_pb *b = &q->o->b;
	size_t pk = pkt_open(q, s);
	*te = gd_pb_open(b, F_TRACK_EVENT);
	gd_pb_uint(b, F_TE_TYPE, (uint64_t)type);
	gd_pb_uint(b, F_TE_CATEGORY_IIDS, (uint64_t)cat);
	return pk;
}

/* Closes an event opened by ev_open; a slice that cannot wait on its lane (clipped == 2)
 * ends at once, at e. */
static void ev_close(struct seq *q, size_t pk, size_t te, int clipped, long long e)
{
	gd_pb_close(&q->o->b, te);
	pkt_close(q, pk);
	if (clipped == 2)
		end_write(q, e);
	if (q->o->b.n >= FLUSH_AT)
		out_flush(q->o);
}

/* Texts for intern(): the strings table, with the JSON's fallbacks. */
struct kname {
	long long first, second; /* string ids: the first that has a text */
	const char *dflt;
};
static const char *t_ids(struct seq *q, const void *ctx, char *buf, size_t n)
{
	const struct kname *k = ctx;
	const char *s = gd_trace_string(q->db, k->first);
	if (!s)
		s = gd_trace_string(q->db, k->second);
	snprintf(buf, n, "%s", s ? s : k->dflt);
	return buf;
}
static const char *t_plain(struct seq *q, const void *ctx, char *buf, size_t n)
{
	(void)q, (void)n, (void)buf;
	return ctx;
}
struct apiname {
	long long id, cbid;
	int display;
};
static const char *t_api(struct seq *q, const void *ctx, char *buf, size_t n)
{
	const struct apiname *a = ctx;
	char raw[256];
	const char *s = gd_trace_string(q->db, a->id);
	if (!s) {
		snprintf(raw, sizeof(raw), "api %lld", a->cbid);
		s = raw;
	}
	if (a->display)
		return gd_api_display_name(s, buf, n < 256 ? n : 256);
	snprintf(buf, n, "%s", s);
	return buf;
}
/* A kernel's launch configuration, one argument: a loop's launches share one interned text
 * where five arguments would cost five fields each time (docs/perfetto.md). */
static const char *t_launch(struct seq *q, const void *ctx, char *buf, size_t n)
{
	const struct gd_trace_op *r = ctx;
	(void)q;
	snprintf(buf, n, "grid %lld,%lld,%lld · block %lld,%lld,%lld · %lld registers · shared memory %lld B static + %lld B dynamic",
		 r->grid[0], r->grid[1], r->grid[2], r->block[0], r->block[1], r->block[2], r->regs, r->static_smem,
		 r->dyn_smem);
	return buf;
}

/* A key for a kernel's launch configuration (nine numbers) in three words: the numbers
 * themselves, packed, when they fit (grid and block dimensions below 2^21, registers below
 * 2^16, shared memory below 2^24: every real launch), else two independent 64-bit sums of
 * them (NS_LAUNCH_HASH). Returns the key's namespace. */
static uint32_t launch_key(const struct gd_trace_op *r, uint64_t k[3])
{
	const long long v[9] = {r->grid[0], r->grid[1],   r->grid[2],       r->block[0],   r->block[1],
				r->block[2], r->regs, r->static_smem, r->dyn_smem};
	static const int bits[9] = {21, 21, 21, 21, 21, 21, 16, 24, 24};
	uint64_t h1 = 0, h2 = 0;
	int fits = 1;
	for (int i = 0; i < 9; i++) {
		fits &= v[i] >= 0 && v[i] < (1LL << bits[i]);
		h1 = h1 * 0x100000001b3ULL + (uint64_t)v[i];
		h2 = h2 * 0x9e3779b97f4a7c15ULL + (uint64_t)v[i] + 1;
	}
	if (!fits) {
		k[0] = h1, k[1] = h2, k[2] = 0;
		return NS_LAUNCH_HASH;
	}
	k[0] = (uint64_t)v[0] | (uint64_t)v[1] << 21 | (uint64_t)v[2] << 42;
	k[1] = (uint64_t)v[3] | (uint64_t)v[4] << 21 | (uint64_t)v[5] << 42;
	k[2] = (uint64_t)v[6] | (uint64_t)v[7] << 16 | (uint64_t)v[8] << 40;
	return NS_LAUNCH;
}

static uint64_t flow_id(int kind, long long rowid) { return ((uint64_t)rowid << 2) | (uint64_t)(kind + 1); }

static int stopped(struct ctx *x) { return atomic_load(x->stop) != 0; }

/* A pass cut short because the other thread failed: STOPPED, and that thread's error is the
 * one reported (this one's would only say that rows were left unread). */
#define STOPPED (-1)
static int unless_stopped(struct ctx *x, int rc) { return rc && stopped(x) ? STOPPED : rc; }

/* A query that stopped at an error (GD_EDATA: the profile is corrupt, as the JSON export says
 * it) or ran out of memory (GD_EFAIL): rc, with the reason kept for main to print. */
static int failed(struct ctx *x, int rc, const char *why)
{
	if (rc == GD_EDATA)
		snprintf(x->why, sizeof(x->why), "'%s' is corrupt: %s", x->profile, why);
	else
		snprintf(x->why, sizeof(x->why), "%s", why);
	return rc;
}

/* Ends a pass: its open slices end, its buffer goes out (a write error is the commit's to
 * report). */
static int pass_end(struct ctx *x, struct pass *p, int rc)
{
	if (rc == GD_OK) {
		for (size_t i = 0; i < x->ntr; i++) /* the slices still open end */
			for (int l = 0; l < x->tr[i].nlanes; l++)
				lane_close(&x->tr[i].lane[l], LLONG_MAX);
		if (p->oom || x->o.b.oom) {
			snprintf(x->why, sizeof(x->why), "out of memory");
			rc = GD_EFAIL;
		} else {
			out_flush(&x->o);
		}
	}
	return rc;
}

/* Ends a pass over rows whose query ended with rc (why: its reason). */
static int pass_done(struct ctx *x, struct pass *p, int rc, const char *why)
{
	if (rc)
		rc = failed(x, rc, why);
	return pass_end(x, p, unless_stopped(x, rc));
}

/* ---- the passes ---- */

static int pass_gpu(struct ctx *x)
{
	struct pass p = {0};
	struct gd_trace_ops *ops;
	struct gd_trace_op r;
	struct gd_pb *b = &x->o.b;
	char why[512];
	long long rows = 0;
	int rc;
	if ((rc = gd_trace_ops_open(x->db, &ops, why, sizeof(why))) != GD_OK)
		return pass_end(x, &p, failed(x, rc, why));
	while (gd_trace_ops_next(ops, &r)) {
		struct seq *q;
		long long e = r.end;
		int clipped;
		size_t pk, te;
		if ((++rows & 4095) == 0 && stopped(x))
			break;
		if (!(q = place(x, K_GPU, r.pid, r.stream, 0, r.device, r.context, r.start, &e, &clipped))) {
			p.oom = 1;
			break;
		}
		pk = ev_open(q, r.start, TYPE_SLICE_BEGIN,
			     r.kind == GD_TG_MEMCPY ? C_MEMCPY : r.kind == GD_TG_MEMSET ? C_MEMSET : C_KERNEL, &te);
		if (r.kind == GD_TG_MEMCPY) {
			int pageable = r.src_kind == 1 || r.dst_kind == 1;
			char nm[96];
			snprintf(nm, sizeof(nm), "memcpy %s%s", gd_perfetto_copy_kind(r.copy_kind), pageable ? " (pageable)" : "");
			gd_pb_uint(b, F_TE_NAME_IID,
				   intern(q, F_ID_EVENT_NAMES, NS_COPY, (uint64_t)r.copy_kind, (uint64_t)pageable, 0, t_plain, nm));
			ann_int(b, A_BYTES, r.bytes);
			ann_str(b, A_SRC, intern(q, F_ID_STRING_VALUES, NS_FIXED, 1, (uint64_t)r.src_kind, 0, t_plain, gd_memory_kind_name(r.src_kind)));
			ann_str(b, A_DST, intern(q, F_ID_STRING_VALUES, NS_FIXED, 1, (uint64_t)r.dst_kind, 0, t_plain, gd_memory_kind_name(r.dst_kind)));
			ann_int(b, A_ASYNC, r.is_async);
			ann_int(b, A_CORRELATION, r.correlation);
		} else if (r.kind == GD_TG_MEMSET) {
			gd_pb_uint(b, F_TE_NAME_IID, intern(q, F_ID_EVENT_NAMES, NS_FIXED, 2, 0, 0, t_plain, "memset"));
			ann_int(b, A_BYTES, r.bytes);
			ann_int(b, A_VALUE, r.value);
			ann_int(b, A_CORRELATION, r.correlation);
		} else {
			struct kname kn = {r.short_name, r.name, "?"}, fn = {r.demangled, r.name, ""};
			const struct gd_fw_kref *fr;
			uint64_t k[3];
			uint32_t ns = launch_key(&r, k);
			gd_pb_uint(b, F_TE_NAME_IID, intern(q, F_ID_EVENT_NAMES, NS_KNAME, (uint64_t)r.short_name, (uint64_t)r.name, 0,
							    t_ids, &kn));
			ann_str(b, A_LAUNCH, intern(q, F_ID_STRING_VALUES, ns, k[0], k[1], k[2], t_launch, &r));
			ann_int(b, A_CORRELATION, r.correlation);
			if (r.has_graph)
				ann_int(b, A_GRAPH, r.graph_id);
			ann_str(b, A_FULL_NAME,
				intern(q, F_ID_STRING_VALUES, NS_FULL, (uint64_t)r.demangled, (uint64_t)r.name, 0, t_ids, &fn));
			if (x->fw.n && (fr = gd_fw_krefs_find(&x->fw, r.pid, r.correlation))) {
				if (fr->op >= 0)
					ann_str(b, A_OP, intern(q, F_ID_STRING_VALUES, NS_FW, 0, (uint64_t)fr->op, 0, t_plain,
								x->fw.ops[fr->op]));
				if (fr->mod >= 0)
					ann_str(b, A_MODULE, intern(q, F_ID_STRING_VALUES, NS_FW, 1, (uint64_t)fr->mod, 0, t_plain,
								    x->fw.mods[fr->mod]));
				if (fr->bwd)
					ann_bool(b, A_BACKWARD);
			}
		}
		if (clipped)
			ann_int(b, A_RECORDED_END, r.end);
		if (r.has_api)
			gd_pb_fixed64(b, F_TE_TERMINATING_FLOW_IDS, flow_id(r.kind, r.rowid));
		ev_close(q, pk, te, clipped, e);
	}
	return pass_done(x, &p, gd_trace_ops_end(ops, why, sizeof(why)), why);
}

static int pass_api(struct ctx *x)
{
	struct pass p = {0};
	struct gd_trace_calls *cq;
	struct gd_trace_call r;
	struct gd_pb *b = &x->o.b;
	char why[512];
	long long rows = 0;
	int rc;
	if ((rc = gd_trace_calls_open(x->db, &cq, why, sizeof(why))) != GD_OK)
		return pass_end(x, &p, failed(x, rc, why));
	while (gd_trace_calls_next(cq, &r)) {
		struct apiname an = {r.name, r.name == GD_TRACE_NO_STRING ? r.cbid : 0, 1};
		struct seq *q;
		long long e = r.end;
		int clipped;
		size_t pk, te;
		if ((++rows & 4095) == 0 && stopped(x))
			break;
		if (!(q = place(x, K_API, r.pid, r.tid, 0, 0, 0, r.start, &e, &clipped))) {
			p.oom = 1;
			break;
		}
		pk = ev_open(q, r.start, TYPE_SLICE_BEGIN, C_API, &te);
		/* the function as users write it (cudaLaunchKernel); CUPTI's name in cupti_name */
		gd_pb_uint(b, F_TE_NAME_IID, intern(q, F_ID_EVENT_NAMES, NS_API, (uint64_t)an.id, (uint64_t)an.cbid, 0, t_api, &an));
		ann_int(b, A_CORRELATION, r.correlation);
		ann_int(b, A_RETURN, r.return_value);
		an.display = 0;
		ann_str(b, A_CUPTI_NAME, intern(q, F_ID_STRING_VALUES, NS_CUPTI, (uint64_t)an.id, (uint64_t)an.cbid, 0, t_api, &an));
		if (clipped)
			ann_int(b, A_RECORDED_END, r.end);
		/* an arrow to each kernel, copy and memset it launched */
		for (int k = 0; k < 3; k++)
			for (size_t i = 0; i < r.nops[k]; i++)
				gd_pb_fixed64(b, F_TE_FLOW_IDS, flow_id(k, r.ops[k][i]));
		ev_close(q, pk, te, clipped, e);
	}
	return pass_done(x, &p, gd_trace_calls_end(cq, why, sizeof(why)), why);
}

static int pass_nvtx(struct ctx *x)
{
	struct pass p = {0};
	struct gd_trace_q *nq;
	struct gd_trace_nvtx r;
	struct gd_pb *b = &x->o.b;
	char why[512];
	long long rows = 0;
	int rc;
	if ((rc = gd_trace_query(x->db, GD_TQ_NVTX_T, &nq, why, sizeof(why))) != GD_OK)
		return pass_end(x, &p, failed(x, rc, why));
	while (gd_trace_next_nvtx(nq, &r)) {
		struct kname kn = {r.name_id, GD_TRACE_NO_STRING, ""}, dn = {r.domain_id, GD_TRACE_NO_STRING, ""};
		struct seq *q;
		long long e = r.end;
		int clipped, type = r.mark ? TYPE_INSTANT : TYPE_SLICE_BEGIN;
		size_t pk, te;
		if ((++rows & 4095) == 0 && stopped(x))
			break;
		if (!(q = place(x, K_NVTX, r.pid, r.tid, r.mark, 0, 0, r.start, &e, &clipped))) {
			p.oom = 1;
			break;
		}
		pk = ev_open(q, r.start, type, C_NVTX, &te);
		gd_pb_uint(b, F_TE_NAME_IID, intern(q, F_ID_EVENT_NAMES, NS_RAW, (uint64_t)r.name_id, 0, 0, t_ids, &kn));
		ann_str(b, A_DOMAIN, intern(q, F_ID_STRING_VALUES, NS_RAW, (uint64_t)r.domain_id, 0, 0, t_ids, &dn));
		if (!r.has_end && !r.mark)
			ann_bool(b, A_UNCLOSED);
		if (clipped)
			ann_int(b, A_RECORDED_END, r.end);
		ev_close(q, pk, te, clipped, e);
	}
	return pass_done(x, &p, gd_trace_end(nq, why, sizeof(why)), why);
}

/* A counter value on uuid at t, in q (a sequence without a default track). */
static void counter(struct seq *q, long long t, uint64_t uuid, double v)
{
	struct gd_pb *b = &q->o->b;
	size_t pk = pkt_open(q, t), te;
	te = gd_pb_open(b, F_TRACK_EVENT);
	gd_pb_uint(b, F_TE_TYPE, TYPE_COUNTER);
	gd_pb_uint(b, F_TE_TRACK, uuid);
	gd_pb_double(b, F_TE_DOUBLE_VALUE, v);
	gd_pb_close(b, te);
	pkt_close(q, pk);
	if (b->n >= FLUSH_AT)
		out_flush(q->o);
}

/* The counter track of (group, device, i), its group ("GPU n (NVML)") described with it. */
static uint64_t counter_track(struct ctx *x, int group, long long dev, int i, const char *name)
{
	int found;
	struct slot *s = map_find(&x->tracks, (uint32_t)(10 + group), (uint64_t)dev, (uint64_t)i, 0, &found);
	uint64_t parent = mix((uint64_t)dev ^ ((uint64_t)(group + 1) << 40)) | (1ULL << 63), uuid;
	char nm[96];
	if (found)
		return s->v;
	map_find(&x->tracks, (uint32_t)(10 + group), (uint64_t)dev, UINT64_MAX, 0, &found);
	if (!found) {
		snprintf(nm, sizeof(nm), "GPU %lld (%s)", dev, group ? "counters" : "NVML");
		describe(x, parent, 0, nm, 0);
		if (!map_put(&x->tracks, (uint32_t)(10 + group), (uint64_t)dev, UINT64_MAX, 0, parent))
			x->o.b.oom = 1;
	}
	uuid = x->next_uuid;
	x->next_uuid += x->uuid_step;
	describe(x, uuid, parent, name, 1);
	if (!map_put(&x->tracks, (uint32_t)(10 + group), (uint64_t)dev, (uint64_t)i, 0, uuid))
		x->o.b.oom = 1;
	return uuid;
}

static int pass_nvml(struct ctx *x)
{
	/* the JSON's names and scales (perfetto.c) */
	static const char *const names[GD_TN_COUNT] = {
		"GPU utilisation (%)", "memory utilisation (%)", "SM clock (MHz)", "memory clock (MHz)", "power (W)",
		"temperature (C)", "memory used (GiB)", "PCIe TX (MB/s)", "PCIe RX (MB/s)", "clock event reasons (mask)",
	};
	static const double scale[GD_TN_COUNT] = {1, 1, 1, 1, 1e-3, 1, 1.0 / 1073741824.0, 1e-3, 1e-3, 1};
	struct pass p = {0};
	struct seq *q = seq_new(x, 0);
	struct gd_trace_q *nq;
	struct gd_trace_nvml r;
	char why[512];
	int rc;
	if (!q) {
		snprintf(x->why, sizeof(x->why), "out of memory");
		return GD_EFAIL;
	}
	if ((rc = gd_trace_query(x->db, GD_TQ_NVML_T, &nq, why, sizeof(why))) == GD_OK) {
		while (gd_trace_next_nvml(nq, &r) && !stopped(x))
			for (int i = 0; i < GD_TN_COUNT; i++)
				if (r.has[i])
					counter(q, r.t, counter_track(x, 0, r.device, i, names[i]), (double)r.v[i] * scale[i]);
		rc = gd_trace_end(nq, why, sizeof(why));
	}
	if (rc)
		rc = failed(x, rc, why);
	rc = pass_end(x, &p, unless_stopped(x, rc));
	seq_free(q);
	return rc;
}

static int pass_pm(struct ctx *x)
{
	struct pass p = {0};
	struct seq *q = seq_new(x, 0);
	struct gd_trace_q *pq;
	struct gd_pm_sample r;
	char why[512];
	int rc;
	if (!q) {
		snprintf(x->why, sizeof(x->why), "out of memory");
		return GD_EFAIL;
	}
	if ((rc = gd_trace_query(x->db, GD_TQ_PM_T, &pq, why, sizeof(why))) == GD_OK) {
		while (gd_trace_next_pm(pq, &r) && !stopped(x))
			for (int m = 0; m < GD_PM_COUNT; m++) {
				char nm[96];
				if (!isfinite(r.v[m]))
					continue; /* not carried by this sample: left out, never 0 */
				snprintf(nm, sizeof(nm), "GPU %d · %s %s", r.device, gd_pm_metrics[m].label, gd_pm_metrics[m].unit);
				counter(q, r.t_start, counter_track(x, 1, r.device, m, nm), r.v[m]);
			}
		rc = gd_trace_end(pq, why, sizeof(why));
	}
	if (rc)
		rc = failed(x, rc, why);
	rc = pass_end(x, &p, unless_stopped(x, rc));
	seq_free(q);
	return rc;
}

struct job {
	struct ctx x;
	const char *profile;
	int which; /* 0: GPU work and counters; 1: API calls and NVTX */
};

static void *run_job(void *arg)
{
	struct job *j = arg;
	struct ctx *x = &j->x;
	long long t0, api_n;
	int rc = gd_trace_open(j->profile, &x->db, &t0, &api_n, x->why, sizeof(x->why));
	/* each kernel's op and module: the framework view (a PyTorch or JAX profile) */
	if (rc == GD_OK && j->which == 0)
		rc = gd_fw_krefs_load(j->profile, x->db, &x->fw, x->why, sizeof(x->why));
	if (rc == GD_OK) {
		if (j->which == 0) {
			rc = pass_gpu(x);
			if (rc == GD_OK)
				rc = pass_nvml(x);
			if (rc == GD_OK)
				rc = pass_pm(x);
		} else {
			rc = pass_api(x);
			if (rc == GD_OK)
				rc = pass_nvtx(x);
		}
	}
	if (rc > 0)
		atomic_store(x->stop, 1);
	gd_trace_close(x->db);
	x->rc = rc;
	return NULL;
}

static void ctx_free(struct ctx *x)
{
	for (size_t i = 0; i < x->ntr; i++) {
		for (int l = 0; l < x->tr[i].nlanes; l++)
			seq_free(x->tr[i].lane[l].q);
		free(x->tr[i].lane);
	}
	free(x->tr);
	map_clear(&x->tracks);
	map_clear(&x->procs);
	gd_pb_free(&x->o.b);
	gd_fw_krefs_free(&x->fw);
}

/* The processes, described before the threads start; their pids, sorted, into *pids. */
static int processes(const char *profile, struct out *o, long long **pids, size_t *np, char *why, size_t n)
{
	struct gd_trace *db;
	struct gd_trace_q *q;
	struct gd_trace_process r;
	long long t0, api_n;
	size_t cap = 0;
	int rc = gd_trace_open(profile, &db, &t0, &api_n, why, n);
	*pids = NULL, *np = 0;
	if (rc)
		return rc;
	rc = gd_trace_query(db, GD_TQ_PROCESSES, &q, why, n);
	while (rc == GD_OK && gd_trace_next_process(q, &r)) {
		if (*np == cap) {
			long long *p = realloc(*pids, (cap = cap ? cap * 2 : 16) * sizeof(*p));
			if (!p) {
				snprintf(why, n, "out of memory");
				rc = GD_EFAIL;
				break;
			}
			*pids = p;
		}
		if (*np && (*pids)[*np - 1] == r.pid)
			continue; /* ORDER BY pid: a duplicate row names the process once */
		(*pids)[(*np)++] = r.pid;
		describe_process(&o->b, r.pid, r.command, r.traced);
	}
	if (rc == GD_OK)
		rc = gd_trace_end(q, why, n);
	else
		gd_trace_done(q);
	gd_trace_close(db);
	return rc;
}

/* A file for the second thread's packets, unlinked at once (it goes with the process), whose
 * content follows the first thread's when both are done: the trace's bytes then do not depend
 * on how the threads were scheduled. */
static FILE *scratch(char *why, size_t n)
{
	const char *d = getenv("TMPDIR");
	char path[4096];
	FILE *f;
	int fd;
	snprintf(path, sizeof(path), "%s/gpudiag-export.XXXXXX", d && *d ? d : "/tmp");
	fd = mkstemp(path);
	if (fd < 0) {
		snprintf(why, n, "cannot create a temporary file in '%s': %s", d && *d ? d : "/tmp", strerror(errno));
		return NULL;
	}
	unlink(path);
	if (!(f = fdopen(fd, "w+b"))) {
		snprintf(why, n, "cannot open a temporary file: %s", strerror(errno));
		close(fd);
	}
	return f;
}

/* Appends the scratch file to f (in the kernel where it can: sendfile, one copy instead of
 * a read and a write): GD_OK, or GD_EFAIL with the reason (a write error on f is left for the
 * commit to report). */
static int append(FILE *tmp, FILE *f, char *why, size_t n)
{
	char *buf;
	size_t k;
	off_t end, off = 0;
	int rc = GD_OK;
	if (fflush(tmp) || ferror(tmp) || (end = lseek(fileno(tmp), 0, SEEK_END)) < 0) {
		snprintf(why, n, "cannot write a temporary file: %s", strerror(errno));
		return GD_EFAIL;
	}
	if (fflush(f) == 0)
		while (off < end) {
			ssize_t w = sendfile(fileno(f), fileno(tmp), &off, (size_t)(end - off));
			if (w <= 0)
				break;
		}
	if (off == end)
		return GD_OK;
	/* sendfile refused (or f failed: then the loop below fails the same way, and the commit
	 * says why): by hand, from where it stopped */
	if (!(buf = malloc(FLUSH_AT))) {
		snprintf(why, n, "out of memory");
		return GD_EFAIL;
	}
	if (fseeko(tmp, off, SEEK_SET)) {
		snprintf(why, n, "cannot read a temporary file back: %s", strerror(errno));
		rc = GD_EFAIL;
	}
	while (rc == GD_OK && (k = fread(buf, 1, FLUSH_AT, tmp)) > 0)
		if (fwrite(buf, 1, k, f) != k)
			break;
	if (rc == GD_OK && ferror(tmp)) {
		snprintf(why, n, "cannot read a temporary file back: %s", strerror(errno));
		rc = GD_EFAIL;
	}
	free(buf);
	return rc;
}

int gd_export_perfetto_pb(const char *profile, const char *out_path)
{
	struct gd_atomic at;
	atomic_int stop = 0;
	struct job job[2];
	struct out head = {{0}, NULL};
	long long *pids = NULL;
	size_t np = 0;
	pthread_t th;
	char why[1400];
	int rc, started;
	FILE *f, *tmp;
	/* the profile is checked before the output is created: a bad profile leaves no file */
	rc = processes(profile, &head, &pids, &np, why, sizeof(why));
	if (rc == GD_OK && !(tmp = scratch(why, sizeof(why))))
		rc = GD_EFAIL;
	if (rc) {
		free(pids);
		gd_pb_free(&head.b);
		return gd_error(rc, "export: %s", why);
	}
	f = gd_atomic_open(&at, out_path);
	if (!f) {
		fclose(tmp);
		free(pids);
		gd_pb_free(&head.b);
		return GD_EFAIL;
	}
	head.f = f;
	out_flush(&head);
	gd_pb_free(&head.b);
	for (int i = 0; i < 2; i++) {
		memset(&job[i], 0, sizeof(job[i]));
		job[i].profile = profile, job[i].which = i;
		job[i].x.o.f = i ? tmp : f;
		job[i].x.next_uuid = (uint64_t)i + 1, job[i].x.uuid_step = 2; /* disjoint small uuids */
		job[i].x.known_pids = pids, job[i].x.nknown = np;
		job[i].x.stop = &stop;
		job[i].x.profile = profile;
	}
	/* the GPU work on a second thread; without one (no thread left), one after the other */
	started = pthread_create(&th, NULL, run_job, &job[0]) == 0;
	run_job(&job[1]);
	if (started)
		pthread_join(th, NULL);
	else
		run_job(&job[0]);
	rc = job[0].x.rc > 0 ? job[0].x.rc : job[1].x.rc;
	if (rc) {
		const struct ctx *bad = job[0].x.rc > 0 ? &job[0].x : &job[1].x;
		gd_atomic_abort(&at);
		if (rc < 0) /* stopped without a reason: cannot happen, but never a success */
			rc = GD_EFAIL;
		gd_error(rc, "export: %s", bad->why);
	} else if ((rc = append(tmp, f, why, sizeof(why))) != GD_OK) {
		gd_atomic_abort(&at);
		gd_error(rc, "export: %s", why);
	} else {
		rc = gd_atomic_commit(&at);
	}
	fclose(tmp);
	ctx_free(&job[0].x);
	ctx_free(&job[1].x);
	free(pids);
	return rc;
}
