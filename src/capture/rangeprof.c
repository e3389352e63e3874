/* Per-launch counters with CUPTI's range profiler, inside the injection library (rangeprof.h
 * says what is read from the environment and written to the raw file).
 *
 * Design. Each selected launch is profiled alone: its driver launch callback starts a range
 * profiler session on entry (cuptiRangeProfilerStart) and stops, decodes and evaluates it on
 * exit. A session around the whole run would profile every kernel of the program; bracketing
 * only the selected launches bounds the cost (at most GPUDIAG_METRICS_MAX launches, by default
 * the first 3 of each kernel name) and makes the selection (regex, names file, skip/count)
 * exact. The session is auto range with user replay (user_enter/user_exit, replay.h: the
 * program's launch runs unprofiled, then gpudiag replays every pass from the memory it saved,
 * L2 flushed before each, on a thread of its own) or with CUPTI's kernel replay
 * (GPUDIAG_METRICS_REPLAY=kernel, or where user replay cannot be set up): the metrics need `passes` passes of the counters, each pass a
 * different counter set, each from the same memory, so the program sees the effect of one
 * launch. The launch becomes synchronous and takes passes × its duration plus the save and
 * restores. Other launches only take this
 * module's locks (rangeprof.h): none runs on another thread while a profiled one is in flight,
 * since auto range would count it in the same session.
 *
 * Skipped, with a record saying why: cooperative launches (cuLaunchCooperativeKernel*, or
 * cuLaunchKernelEx with the cooperative attribute: a grid-wide sync cannot be replayed by
 * saving and restoring memory), CUDA graph launches (their kernels never pass through a
 * launch callback, so they cannot be bracketed one by one), launches made while a stream
 * capture is in progress anywhere in the process (they are recorded into a graph, not run, and
 * the session's synchronisation would invalidate the capture: the program's own
 * cudaStreamEndCapture would fail), and kernels whose demangled name
 * starts with "nccl" (communication: replaying one rank's kernel alone waits forever for its
 * peers). The program is never harmed: every CUPTI failure is recorded (GD_KL_ERROR with
 * CUPTI's text, once per context, device or process) and profiling goes off where it failed;
 * nothing here aborts, exits or changes the program's result.
 *
 * Calls per context, once: cuptiProfilerInitialize (process), cuptiProfilerDeviceSupported,
 * chip name, counter availability, a host object (each metric tested alone first on a scratch
 * host object; refused names become GD_RAW_KREJECT), config image and pass count (per
 * device), cuptiRangeProfilerEnable, a counter-data image of one range, SetConfig. Per
 * selected launch: Start / launch / Stop, DecodeData, GetCounterDataInfo, EvaluateToGpuValues,
 * then the image is initialised again for the next launch (as NVIDIA's callback_profiling
 * sample of CUDA 13 does; SetConfig is not repeated).
 *
 * Demangling (for the regex and the "nccl" test) uses libstdc++'s __cxa_demangle found at run
 * time (already loaded in nearly every CUDA program; else libstdc++.so.6 is opened, only when
 * metrics are on), so the library keeps its small link line; without it the raw name is used. */
#include "capture/cupti_host.h"
#include "capture/rangeprof.h"
#include "capture/replay.h"

#include "profile/kc_metrics.h"
#include "profile/raw.h"

#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define RP_MAX_DEV 64
#define RP_MAX_CTX 64
#define RP_NAMES_FILE_MAX (64u << 20)
#define GRAPH_NAME "(graph)"
#define RP_BATCH_MAX 32

/* Two locks. g_rp_mu: the configuration's counters and the kernel-name table (selection),
 * held briefly on every launch. g_rp_rw: the profiling session; a profiled launch holds it for
 * writing from its enter to its exit callback (and with it the device and context state below),
 * every other launch holds it for reading over the same span, so no kernel of another thread
 * runs inside a session (auto range would make it the session's range). Writers are preferred:
 * a busy multi-threaded program cannot starve a selected launch. Never both at once: g_rp_mu is
 * released before g_rp_rw is taken. */
static pthread_mutex_t g_rp_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_rwlock_t g_rp_rw;

static struct {
	int on, debug;
	char *mbuf;             /* GPUDIAG_METRICS, split in place */
	const char **metrics;   /* requested names, duplicates removed */
	uint32_t *metric_id;    /* their string ids in the raw file, 0 = not yet written */
	unsigned char *rejected;/* a KREJECT was written for it */
	size_t nmetrics;
	regex_t re;
	int has_re;
	char *nbuf;             /* GPUDIAG_METRICS_NAMES' file, split in place */
	const char **names;     /* sorted */
	size_t nnames;
	int has_names;
	long per_kernel, skip, count, max;
	int count_mode;
	int user_replay; /* GPUDIAG_METRICS_REPLAY: 1 user (the default), 0 kernel */
	long batch;      /* GPUDIAG_METRICS_BATCH: launches replayed together (user replay), 1..RP_BATCH_MAX */
} cfg;

/* ---- user replay's own work, kept out of the trace
 *
 * While a thread does user replay's work (t_internal: the replay thread, or the program's
 * thread while it saves the memory or sets a context up), every driver call it makes (the
 * kernel again, the L2 flush, synchronisations, the flush buffer's allocation) reaches the API
 * callbacks like the program's own, and the GPU work they start gives activity records. The
 * profile must show the program's launch once, as the program made it:
 *   - kernels by time: a replay window per profiled launch, from the moment the program's
 *     kernel has finished to the end of the last replay, both waited for
 *     with a context synchronisation. No kernel of the program can begin on that context
 *     inside the window — its launch is over, and every other launch of the process waits on
 *     g_rp_rw — so a kernel record of that context that began inside it is a replay. Correlation ids
 *     cannot tell them: a driver call made inside the program's runtime launch call is given
 *     ids CUPTI ties to that call (on an H100, 2026-12-06, a rule by ids took the program's own
 *     kernel records out of the trace), and the L2 flush's two kernels are recognised by their
 *     names as well;
 *     so is a kernel that carries a profiled launch's own id under another kernel's name (a
 *     CUPTI kernel run from inside the launch's callback: WaitNs, H100, 2026-12-06);
 *   - the replay's API calls are not recorded (inject.c asks gd_rp_internal);
 *   - its other records (synchronisation, memset, allocation, a copy the checkpoint makes) by
 *     correlation id: the ids of its driver calls (g_drop; never the program's launch's own
 *     id), and the program's launch's id itself (g_own), which a launch call never gives such
 *     a record.
 * Windows are appended in time order (launches are profiled one at a time) and found by
 * binary search; the id tables are open addressing, never emptied: at most
 * GPUDIAG_METRICS_MAX launches × (passes + a few) ids; past 3/4 full new ids are not kept
 * (counted, said in the debug output): at worst a replay's record shows in the trace, never is
 * one of the program's taken out. */
#define DROP_SLOTS 65536u
#define OWN_SLOTS 8192u
static _Thread_local int t_internal;
static pthread_mutex_t g_drop_mu = PTHREAD_MUTEX_INITIALIZER;
static uint32_t g_drop[DROP_SLOTS], g_own[OWN_SLOTS];
static uint64_t g_own_name[OWN_SLOTS]; /* hash of the kernel name the launch in g_own's slot ran */
static unsigned g_drop_n, g_own_n, g_drop_full;
static void rp_dbg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Under g_drop_mu: a table is full (never in a run within GPUDIAG_METRICS_MAX's bound); said
 * once in the debug output. */
static void drop_full(const char *what)
{
	if (!g_drop_full++)
		rp_dbg("the table of %s is full: later replays' records may show in the trace", what);
}
static struct window {
	uint32_t ctx;     /* CUPTI's context id */
	uint64_t from, to; /* CUPTI timestamps; to = UINT64_MAX while the replay goes on */
} *g_win;
static long g_nwin, g_capwin;
/* the program's launch this thread is replaying: its id is never put in g_drop */
static _Thread_local uint32_t t_own_corr;

static unsigned slot_of(uint32_t corr, unsigned size) { return (corr * 2654435761u) & (size - 1); }

/* Under g_drop_mu: the slot of corr, added when new; -1 when not kept (0, or the table full). */
static long id_add(uint32_t *tab, unsigned size, unsigned *n, uint32_t corr)
{
	unsigned i;
	if (!corr)
		return -1;
	for (i = slot_of(corr, size); tab[i] && tab[i] != corr; i = (i + 1) & (size - 1))
		;
	if (!tab[i]) {
		if (*n >= size / 4 * 3) {
			drop_full("correlation ids");
			return -1;
		}
		tab[i] = corr;
		__atomic_add_fetch(n, 1, __ATOMIC_RELAXED);
	}
	return i;
}

/* Under g_drop_mu: the slot of corr, -1 when absent. */
static long id_slot(const uint32_t *tab, unsigned size, uint32_t corr)
{
	for (unsigned i = slot_of(corr, size); tab[i]; i = (i + 1) & (size - 1))
		if (tab[i] == corr)
			return i;
	return -1;
}

static int id_in(const uint32_t *tab, unsigned size, uint32_t corr) { return id_slot(tab, size, corr) >= 0; }

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h | 1;
}

static void drop_add(uint32_t corr)
{
	pthread_mutex_lock(&g_drop_mu);
	id_add(g_drop, DROP_SLOTS, &g_drop_n, corr);
	pthread_mutex_unlock(&g_drop_mu);
}

/* The program's launch being profiled by user replay, id own, kernel name: a copy, memset,
 * sync or allocation record with its id is the replay's (a launch call makes none), and so is
 * a kernel record with its id and another kernel's name (CUPTI's own kernels launched from
 * inside the launch's callbacks get the launch's id: WaitNs on an H100, 2026-12-06). */
static void own_add(uint32_t own, const char *name)
{
	long i;
	pthread_mutex_lock(&g_drop_mu);
	if ((i = id_add(g_own, OWN_SLOTS, &g_own_n, own)) >= 0)
		g_own_name[i] = name ? hash_str(name) : 0;
	pthread_mutex_unlock(&g_drop_mu);
}

/* A replay window opens on context ctx. */
static void window_open(uint32_t ctx)
{
	uint64_t now = 0;
	cuptiGetTimestamp(&now);
	pthread_mutex_lock(&g_drop_mu);
	if (g_nwin == g_capwin) {
		long cap = g_capwin ? g_capwin * 2 : 64;
		struct window *w = realloc(g_win, (size_t)cap * sizeof(*w));
		if (!w) { /* no window: this launch's replays may show in the trace */
			drop_full("replay windows");
			pthread_mutex_unlock(&g_drop_mu);
			return;
		}
		g_win = w, g_capwin = cap;
	}
	g_win[g_nwin].ctx = ctx, g_win[g_nwin].from = now, g_win[g_nwin].to = UINT64_MAX;
	__atomic_store_n(&g_nwin, g_nwin + 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&g_drop_mu);
}

/* The window opened last closes: the program's launch goes on after this moment. */
static void window_close(void)
{
	uint64_t now = 0;
	if (cuptiGetTimestamp(&now) != CUPTI_SUCCESS || !now)
		now = 1; /* no clock: the window keeps only its start (nothing after it is taken) */
	pthread_mutex_lock(&g_drop_mu);
	if (g_nwin > 0 && g_win[g_nwin - 1].to == UINT64_MAX)
		g_win[g_nwin - 1].to = now > g_win[g_nwin - 1].from ? now : g_win[g_nwin - 1].from;
	pthread_mutex_unlock(&g_drop_mu);
}

/* Under g_drop_mu: whether a kernel of context ctx that began at start began in a window. */
static int in_window(uint32_t ctx, uint64_t start)
{
	long lo = 0, hi = g_nwin - 1, last = -1;
	while (lo <= hi) { /* the last window that opened at or before start */
		long mid = lo + (hi - lo) / 2;
		if (g_win[mid].from <= start)
			last = mid, lo = mid + 1;
		else
			hi = mid - 1;
	}
	/* windows never overlap (one replay at a time in a process): only that one can hold it */
	return last >= 0 && g_win[last].ctx == ctx && start < g_win[last].to;
}

int gd_rp_drop(int kind, uint32_t corr, uint32_t ctx, uint64_t start, const char *kernel_name)
{
	int drop = 0;
	if (kind == GD_RP_REC_KERNEL) {
		if (kernel_name && (!strcmp(kernel_name, GD_L2_FLUSH_KERNEL) || !strcmp(kernel_name, GD_L2_DISCARD_KERNEL)))
			return 1;
		if (!__atomic_load_n(&g_nwin, __ATOMIC_ACQUIRE) && !__atomic_load_n(&g_own_n, __ATOMIC_RELAXED))
			return 0;
		pthread_mutex_lock(&g_drop_mu);
		drop = start && g_nwin && in_window(ctx, start);
		if (!drop && corr && kernel_name && g_own_n) {
			long i = id_slot(g_own, OWN_SLOTS, corr);
			drop = i >= 0 && g_own_name[i] && g_own_name[i] != hash_str(kernel_name);
		}
		pthread_mutex_unlock(&g_drop_mu);
		return drop;
	}
	if (!corr || (!__atomic_load_n(&g_drop_n, __ATOMIC_RELAXED) && !__atomic_load_n(&g_own_n, __ATOMIC_RELAXED)))
		return 0;
	pthread_mutex_lock(&g_drop_mu);
	drop = id_in(g_drop, DROP_SLOTS, corr) || (kind != GD_RP_REC_API && id_in(g_own, OWN_SLOTS, corr));
	pthread_mutex_unlock(&g_drop_mu);
	return drop;
}

int gd_rp_internal(void) { return t_internal; }

/* ---- debugging: GPUDIAG_INJECT_DEBUG */

static void rp_dbg(const char *fmt, ...)
{
	char line[768];
	int n;
	va_list ap;
	if (!cfg.debug)
		return;
	n = snprintf(line, sizeof(line), "gpudiag-inject[%d]: range profiler: ", (int)getpid());
	va_start(ap, fmt);
	if (n > 0 && (size_t)n < sizeof(line))
		n += vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
	va_end(ap);
	if (n > 0 && (size_t)n >= sizeof(line) - 1)
		n = (int)sizeof(line) - 2;
	if (n > 0) {
		line[n++] = '\n';
		if (write(2, line, (size_t)n) < 0)
			return;
	}
}

static const char *cupti_text(CUptiResult r)
{
	const char *s = NULL;
	if (cuptiGetResultString(r, &s) != CUPTI_SUCCESS || !s)
		return "CUPTI_ERROR_UNKNOWN";
	return s;
}

/* "step: CUPTI's text", with what to do about the refusals a user can act on. */
static void why_cupti(char *out, size_t n, const char *step, CUptiResult r)
{
	const char *hint = "";
	switch ((int)r) {
	case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
		hint = " (profiling is restricted to admin users: run as root, or load the driver with "
		       "NVreg_RestrictProfilingToAdminUsers=0)";
		break;
	case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED:
	case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
		hint = " (this virtual GPU does not expose its counters)";
		break;
	case CUPTI_ERROR_HARDWARE_BUSY:
		hint = " (another profiler holds the counters)";
		break;
	case CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED: hint = " (a MIG instance)"; break;
	default: break;
	}
	snprintf(out, n, "%s: %s%s", step, cupti_text(r), hint);
	rp_dbg("%s", out);
}

/* ---- records */

static uint32_t metric_sid(size_t i)
{
	if (!cfg.metric_id[i])
		cfg.metric_id[i] = gd_inj_intern(cfg.metrics[i]);
	return cfg.metric_id[i];
}

static void write_kreject(const char *metric, const char *reason)
{
	struct gd_raw_kreject *r;
	uint32_t m, why;
	gd_inj_lock();
	m = gd_inj_intern(metric);
	why = gd_inj_intern(reason);
	r = gd_inj_reserve(sizeof(*r));
	if (r) {
		r->h.type = GD_RAW_KREJECT, r->h.size = sizeof(*r);
		r->metric = m, r->reason = why;
	}
	gd_inj_flush();
	gd_inj_unlock();
}

/* One launch as the callback saw it. */
struct launch {
	const char *name;
	uint64_t api_start;
	uint32_t correlation, device, context, nth;
	uint32_t flags; /* GD_KL_F_*: how it is replayed */
	struct timespec t0;
	uint64_t cost_ns; /* batched: its own save, and the batch's passes if they ran in its call
			     (flush_batch); 0: the time since t0 */
};

static uint64_t since_ns(const struct timespec *t0)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)((t.tv_sec - t0->tv_sec) * 1000000000LL + (t.tv_nsec - t0->tv_nsec));
}

/* Adds the time since *t to *acc and restarts *t. */
static void lap(uint64_t *acc, struct timespec *t)
{
	*acc += since_ns(t);
	clock_gettime(CLOCK_MONOTONIC, t);
}

/* vals/idx: n values and the cfg.metrics index of each (status GD_KL_OK only). */
static void write_klaunch(const struct launch *l, uint32_t status, const char *detail, uint32_t passes,
			  const double *vals, const size_t *idx, size_t n)
{
	struct gd_raw_klaunch *r;
	struct gd_raw_kvalue *v;
	uint32_t name, det;
	gd_inj_lock();
	name = gd_inj_intern(l->name ? l->name : "(unknown)");
	det = gd_inj_intern(detail);
	for (size_t i = 0; i < n; i++)
		metric_sid(idx[i]);
	r = gd_inj_reserve(sizeof(*r) + n * sizeof(*v));
	if (r) {
		r->h.type = GD_RAW_KLAUNCH, r->h.size = (uint32_t)(sizeof(*r) + n * sizeof(*v));
		r->api_start = l->api_start;
		r->profile_ns = status == GD_KL_OK || status == GD_KL_ERROR ? l->cost_ns ? l->cost_ns : since_ns(&l->t0) : 0;
		r->correlation = l->correlation, r->device = l->device, r->context = l->context;
		r->name = name, r->nth = l->nth, r->passes = passes, r->status = status, r->detail = det;
		r->nvalues = (uint32_t)n, r->flags = l->flags;
		v = (struct gd_raw_kvalue *)(void *)(r + 1);
		for (size_t i = 0; i < n; i++) {
			v[i].metric = cfg.metric_id[idx[i]];
			v[i].value = vals[i];
		}
	}
	gd_inj_flush();
	gd_inj_unlock();
}

/* ---- configuration from the environment */

/* The backstop for what cmd_run validates: one KREJECT naming the variable, then off. */
static int config_error(const char *var, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int config_error(const char *var, const char *fmt, ...)
{
	char why[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	rp_dbg("%s: %s; range profiling off", var, why);
	write_kreject(var, why);
	return 0;
}

/* A non-negative integer variable; 0 ok, -1 malformed. */
static int env_long(const char *var, long dflt, long *out)
{
	const char *s = getenv(var);
	char *end;
	long v;
	*out = dflt;
	if (!s || !*s)
		return 0;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < 0)
		return -1;
	*out = v;
	return 0;
}

static int parse_metrics(const char *env)
{
	size_t n = 1;
	char *save = NULL, *tok;
	cfg.mbuf = strdup(env);
	for (const char *p = env; *p; p++)
		n += *p == ',';
	cfg.metrics = calloc(n, sizeof(*cfg.metrics));
	cfg.metric_id = calloc(n, sizeof(*cfg.metric_id));
	cfg.rejected = calloc(n, 1);
	if (!cfg.mbuf || !cfg.metrics || !cfg.metric_id || !cfg.rejected)
		return -1;
	for (tok = strtok_r(cfg.mbuf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		size_t len;
		int dup = 0;
		while (*tok == ' ' || *tok == '\t')
			tok++;
		len = strlen(tok);
		while (len && (tok[len - 1] == ' ' || tok[len - 1] == '\t'))
			tok[--len] = 0;
		if (!len)
			continue;
		for (size_t i = 0; i < cfg.nmetrics && !dup; i++)
			dup = !strcmp(cfg.metrics[i], tok);
		if (!dup)
			cfg.metrics[cfg.nmetrics++] = tok;
	}
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The names file: one exact (mangled) name per line, "\r\n" accepted, empty lines ignored. */
static int load_names(const char *path, char *why, size_t n)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	size_t len = 0, lines = 0;
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size > RP_NAMES_FILE_MAX) {
		snprintf(why, n, "cannot read '%s': %s", path,
			 fd < 0 || errno ? strerror(errno) : "not a regular file of at most 64 MiB");
		if (fd >= 0)
			close(fd);
		return -1;
	}
	cfg.nbuf = malloc((size_t)st.st_size + 1);
	while (cfg.nbuf && len < (size_t)st.st_size) {
		ssize_t r = read(fd, cfg.nbuf + len, (size_t)st.st_size - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		len += (size_t)r;
	}
	close(fd);
	if (!cfg.nbuf) {
		snprintf(why, n, "out of memory reading '%s'", path);
		return -1;
	}
	cfg.nbuf[len] = 0;
	for (size_t i = 0; i < len; i++)
		lines += cfg.nbuf[i] == '\n';
	cfg.names = calloc(lines + 1, sizeof(*cfg.names));
	if (!cfg.names) {
		snprintf(why, n, "out of memory reading '%s'", path);
		return -1;
	}
	for (char *p = cfg.nbuf, *nl; p && *p; p = nl ? nl + 1 : NULL) {
		size_t l;
		nl = strchr(p, '\n');
		if (nl)
			*nl = 0;
		l = strlen(p);
		if (l && p[l - 1] == '\r')
			p[--l] = 0;
		if (l)
			cfg.names[cfg.nnames++] = p;
	}
	qsort(cfg.names, cfg.nnames, sizeof(*cfg.names), cmp_str);
	cfg.has_names = 1;
	return 0;
}

typedef char *(*demangle_fn)(const char *, char *, size_t *, int *);
static demangle_fn g_demangle;

static void load_demangler(void)
{
	void *h;
	*(void **)&g_demangle = dlsym(RTLD_DEFAULT, "__cxa_demangle");
	if (g_demangle)
		return;
	h = dlopen("libstdc++.so.6", RTLD_NOW | RTLD_LOCAL);
	if (h)
		*(void **)&g_demangle = dlsym(h, "__cxa_demangle");
	if (!g_demangle)
		rp_dbg("no __cxa_demangle: the kernel regex sees mangled names");
}

int gd_rp_init(int debug)
{
	const char *m = getenv("GPUDIAG_METRICS"), *re = getenv("GPUDIAG_METRICS_KERNELS");
	const char *names = getenv("GPUDIAG_METRICS_NAMES");
	static const char *const ints[] = {"GPUDIAG_METRICS_PER_KERNEL", "GPUDIAG_METRICS_SKIP",
					   "GPUDIAG_METRICS_COUNT", "GPUDIAG_METRICS_MAX"};
	long *dst[] = {&cfg.per_kernel, &cfg.skip, &cfg.count, &cfg.max};
	const long dflt[] = {3, 0, 0, 100};
	char why[512];

	memset(&cfg, 0, sizeof(cfg));
	cfg.debug = debug;
	if (!m || !*m)
		return 0; /* no --metrics: not one profiler call */
	if (parse_metrics(m) < 0)
		return config_error("GPUDIAG_METRICS", "out of memory");
	if (!cfg.nmetrics)
		return config_error("GPUDIAG_METRICS", "no metric name in '%s'", m);
	for (int i = 0; i < 4; i++)
		if (env_long(ints[i], dflt[i], dst[i]) < 0)
			return config_error(ints[i], "not a non-negative integer: '%s'", getenv(ints[i]));
	cfg.count_mode = getenv("GPUDIAG_METRICS_COUNT") && *getenv("GPUDIAG_METRICS_COUNT");
	if (re && *re) {
		int rc = regcomp(&cfg.re, re, REG_EXTENDED | REG_NOSUB);
		if (rc) {
			regerror(rc, &cfg.re, why, sizeof(why));
			return config_error("GPUDIAG_METRICS_KERNELS", "bad regular expression '%s': %s", re, why);
		}
		cfg.has_re = 1;
	}
	if (names && *names && load_names(names, why, sizeof(why)) < 0)
		return config_error("GPUDIAG_METRICS_NAMES", "%s", why);
	if (env_long("GPUDIAG_METRICS_BATCH", 1, &cfg.batch) < 0 || cfg.batch < 1 || cfg.batch > RP_BATCH_MAX)
		return config_error("GPUDIAG_METRICS_BATCH", "not an integer from 1 to %d: '%s'", RP_BATCH_MAX,
				    getenv("GPUDIAG_METRICS_BATCH"));
	{
		const char *rm = getenv("GPUDIAG_METRICS_REPLAY");
		if (!rm || !*rm || !strcmp(rm, "user"))
			cfg.user_replay = 1;
		else if (strcmp(rm, "kernel"))
			return config_error("GPUDIAG_METRICS_REPLAY", "not 'user' or 'kernel': '%s'", rm);
	}
	load_demangler();
	{
		pthread_rwlockattr_t a;
		pthread_rwlockattr_init(&a);
		pthread_rwlockattr_setkind_np(&a, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
		if (pthread_rwlock_init(&g_rp_rw, &a) != 0)
			return config_error("GPUDIAG_METRICS", "no lock for the profiling session");
		pthread_rwlockattr_destroy(&a);
	}
	cfg.on = 1;
	rp_dbg("on: %zu metrics, %s, budget %ld, %s replay, batches of %ld", cfg.nmetrics,
	       cfg.count_mode ? "skip/count mode" : "per-kernel mode", cfg.max, cfg.user_replay ? "user" : "kernel",
	       cfg.batch);
	return 1;
}

/* ---- kernel names: launches seen, selection state */

struct kname {
	char *name;
	uint64_t hash;
	uint32_t launches, selected, captured;
	signed char match; /* -1 not decided yet */
	unsigned char comm, limit_written;
};
static struct kname *g_kn;
static size_t g_kn_cap, g_kn_n;
static long g_matching, g_profiled; /* matching launches seen; launches profiled (the budget) */
/* stream captures in progress in the process (begun, not yet ended), from the driver's
 * cuStreamBeginCapture* and cuStreamEndCapture* callbacks; under g_rp_mu */
static long g_captures;

static int kn_grow(void)
{
	size_t cap = g_kn_cap ? g_kn_cap * 2 : 256;
	struct kname *t = calloc(cap, sizeof(*t));
	if (!t)
		return -1;
	for (size_t i = 0; i < g_kn_cap; i++) {
		size_t j;
		if (!g_kn[i].hash)
			continue;
		for (j = g_kn[i].hash & (cap - 1); t[j].hash; j = (j + 1) & (cap - 1))
			;
		t[j] = g_kn[i];
	}
	free(g_kn);
	g_kn = t;
	g_kn_cap = cap;
	return 0;
}

static struct kname *kn_get(const char *name)
{
	uint64_t h = hash_str(name);
	size_t j;
	if ((g_kn_n + 1) * 2 > g_kn_cap && kn_grow() < 0)
		return NULL;
	for (j = h & (g_kn_cap - 1); g_kn[j].hash; j = (j + 1) & (g_kn_cap - 1))
		if (g_kn[j].hash == h && !strcmp(g_kn[j].name, name))
			return &g_kn[j];
	if (!(g_kn[j].name = strdup(name)))
		return NULL;
	g_kn[j].hash = h;
	g_kn[j].match = -1;
	g_kn_n++;
	return &g_kn[j];
}

static void decide_match(struct kname *k)
{
	char *dem = NULL;
	const char *shown;
	int status = -1;
	if (g_demangle && k->name[0] == '_' && k->name[1] == 'Z')
		dem = g_demangle(k->name, NULL, NULL, &status);
	shown = dem && status == 0 ? dem : k->name;
	k->match = 1;
	if (cfg.has_names && !bsearch(&k->name, cfg.names, cfg.nnames, sizeof(*cfg.names), cmp_str))
		k->match = 0;
	if (k->match && cfg.has_re && regexec(&cfg.re, shown, 0, NULL, 0) != 0)
		k->match = 0;
	k->comm = !strncmp(shown, "nccl", 4);
	free(dem);
}

/* ---- per device and per context profiler state */

struct rp_dev {
	int used, broken;
	uint32_t id;
	char chip[64];
	uint8_t *avail;
	CUpti_Profiler_Host_Object *host;
	uint8_t *config;
	size_t config_size, passes;
	const char **names; /* accepted metrics */
	size_t *idx;        /* their cfg.metrics index */
	size_t n;
};
/* Where a profiled launch's time goes, for GPUDIAG_INJECT_DEBUG's line per launch: the
 * replay's cost is per pass, and this says which part of a pass it is. */
#define RP_DBG_PASSES 32 /* passes the debug line times one by one */
enum { RP_SAVE, RP_RESTORE, RP_FLUSH, RP_START, RP_LAUNCH, RP_STOP, RP_SYNC, RP_DECODE, RP_EVAL, RP_NSTEP };
static const char *const rp_step_name[RP_NSTEP] = {"save", "restore", "flush", "start", "launch",
						    "stop", "sync", "decode", "evaluate"};

/* A launch of a batch (GPUDIAG_METRICS_BATCH, 1 by default): the program's launch has run, its
 * passes wait for the batch's. */
struct rp_pend {
	struct launch l;
	char *name;             /* l.name's own copy: CUPTI's lives only as long as the callback */
	struct gd_ckpt ck;      /* the memory it started from */
	struct gd_relaunch rl;  /* it, to be made again */
	uint64_t save_ns;
};
struct rp_ctx {
	int used, broken;
	uint32_t id, dev;
	CUcontext ctx;
	CUpti_RangeProfiler_Object *obj;
	uint8_t *image;
	size_t image_size;
	int user;           /* user replay (replay.h); 0 kernel replay */
	struct gd_flush flush;
	struct rp_pend *pend; /* user replay: the launches run, waiting for their batch's passes (the
			       * next slot's checkpoint is saved in the launch's enter callback) */
	size_t npend, nranges; /* ... how many; the ranges the counter-data image holds */
	size_t ckpt_bytes;  /* device memory the last checkpoint took (its free memory before less after) */
	char note[320];     /* how its launches are replayed when not as asked (each OK record's detail) */
	uint64_t step_ns[RP_NSTEP]; /* the launch being profiled: wall time by step (debug line) */
	uint32_t pass_us[RP_DBG_PASSES][2]; /* and by user-replay pass: its start, the whole pass (µs) */
	size_t npass;
};
static struct rp_dev g_dev[RP_MAX_DEV];
static struct rp_ctx g_ctx[RP_MAX_CTX];
static int g_init_state; /* 0 cuptiProfilerInitialize not called, 1 ok, -1 failed (reported) */

/* Each requested metric alone on a scratch host object: a name the counters refuse must not
 * spoil the configuration of the others (as src/gpu/pmsample.c does for PM sampling). */
static int choose_metrics(struct rp_dev *d, char *why, size_t n)
{
	d->names = calloc(cfg.nmetrics, sizeof(*d->names));
	d->idx = calloc(cfg.nmetrics, sizeof(*d->idx));
	if (!d->names || !d->idx) {
		snprintf(why, n, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < cfg.nmetrics; i++) {
		CUptiResult r;
		CUpti_Profiler_Host_Object *h = gd_cupti_host_new(d->chip, d->avail, &r);
		if (!h) {
			why_cupti(why, n, "cuptiProfilerHostInitialize", r);
			return -1;
		}
		r = gd_cupti_host_add(h, &cfg.metrics[i], 1);
		gd_cupti_host_free(h);
		if (r == CUPTI_SUCCESS) {
			d->idx[d->n] = i;
			d->names[d->n++] = cfg.metrics[i];
		} else {
			rp_dbg("metric %s refused: %s", cfg.metrics[i], cupti_text(r));
			if (!cfg.rejected[i]) {
				cfg.rejected[i] = 1;
				write_kreject(cfg.metrics[i], cupti_text(r));
			}
		}
	}
	if (!d->n) {
		snprintf(why, n, "this GPU's counters accept none of the %zu metrics asked for", cfg.nmetrics);
		return -1;
	}
	return 0;
}

/* Chip, counter availability, host object, config image and passes of device d (first
 * context on it: ctx). 0, or -1 with why. */
static int dev_setup(struct rp_dev *d, CUcontext ctx, char *why, size_t n)
{
	CUptiResult r;
	CUpti_Profiler_DeviceSupported_Params sp = {.structSize = CUpti_Profiler_DeviceSupported_Params_STRUCT_SIZE};
	sp.cuDevice = (CUdevice)d->id;
	sp.api = CUPTI_PROFILER_RANGE_PROFILING;
	if ((r = cuptiProfilerDeviceSupported(&sp)) != CUPTI_SUCCESS) {
		rp_dbg("cuptiProfilerDeviceSupported: %s (going on)", cupti_text(r));
	} else if (sp.isSupported != CUPTI_PROFILER_CONFIGURATION_SUPPORTED) {
		snprintf(why, n, "device %u does not support range profiling (architecture %d, SLI %d, vGPU %d, "
			 "confidential computing %d, CMP %d, WSL %d; 3 = supported)", d->id, (int)sp.architecture,
			 (int)sp.sli, (int)sp.vGpu, (int)sp.confidentialCompute, (int)sp.cmp, (int)sp.wsl);
		rp_dbg("%s", why);
		return -1;
	}
	CUpti_Device_GetChipName_Params cp = {.structSize = CUpti_Device_GetChipName_Params_STRUCT_SIZE};
	cp.deviceIndex = d->id;
	if ((r = cuptiDeviceGetChipName(&cp)) != CUPTI_SUCCESS || !cp.pChipName) {
		why_cupti(why, n, "cuptiDeviceGetChipName", r);
		return -1;
	}
	snprintf(d->chip, sizeof(d->chip), "%s", cp.pChipName);
	CUpti_Profiler_GetCounterAvailability_Params ap = {.structSize = CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE};
	ap.ctx = ctx;
	if ((r = cuptiProfilerGetCounterAvailability(&ap)) != CUPTI_SUCCESS) {
		why_cupti(why, n, "cuptiProfilerGetCounterAvailability", r);
		return -1;
	}
	d->avail = malloc(ap.counterAvailabilityImageSize ? ap.counterAvailabilityImageSize : 1);
	if (!d->avail) {
		snprintf(why, n, "out of memory");
		return -1;
	}
	ap.pCounterAvailabilityImage = d->avail;
	if ((r = cuptiProfilerGetCounterAvailability(&ap)) != CUPTI_SUCCESS) {
		why_cupti(why, n, "cuptiProfilerGetCounterAvailability", r);
		return -1;
	}
	if (choose_metrics(d, why, n) < 0)
		return -1;
	d->host = gd_cupti_host_new(d->chip, d->avail, &r);
	if (!d->host) {
		why_cupti(why, n, "cuptiProfilerHostInitialize", r);
		return -1;
	}
	if ((r = gd_cupti_host_add(d->host, d->names, d->n)) != CUPTI_SUCCESS) {
		why_cupti(why, n, "adding the metrics", r);
		return -1;
	}
	if ((r = gd_cupti_host_config(d->host, &d->config, &d->config_size, &d->passes)) != CUPTI_SUCCESS) {
		why_cupti(why, n, "building the counter configuration", r);
		return -1;
	}
	rp_dbg("device %u (%s): %zu of %zu metrics, %zu passes", d->id, d->chip, d->n, cfg.nmetrics, d->passes);
	return 0;
}

static CUptiResult image_init(struct rp_ctx *c)
{
	CUpti_RangeProfiler_CounterDataImage_Initialize_Params p = {
		.structSize = CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE};
	p.pRangeProfilerObject = c->obj;
	p.counterDataSize = c->image_size;
	p.pCounterData = c->image;
	return cuptiRangeProfilerCounterDataImageInitialize(&p);
}

/* Kernels the L2 flush launches (ranges of their own when made inside a session). */
static size_t flush_kernels(const struct rp_ctx *c)
{
	return c->flush.state > 0 ? c->flush.discard ? 2 : 1 : 0;
}

/* The ranges a session of n launches records, and launch i's. Alone (n = 1), the flush runs
 * before Start and the launch is the one range; in a batch, Start comes first and each launch
 * follows its own flush's kernels inside the session, so every launch of a batch is replayed
 * alike (run_batch). */
static size_t batch_ranges(const struct rp_ctx *c, size_t n)
{
	return n > 1 ? n * (1 + flush_kernels(c)) : 1;
}
static size_t batch_range_of(const struct rp_ctx *c, size_t n, size_t i)
{
	return n > 1 ? i * (1 + flush_kernels(c)) + flush_kernels(c) : 0;
}

/* Enable on the context, a counter-data image of a batch's ranges (one, or each launch's and
 * the flushes' between them), SetConfig. 0 or -1 with why. */
static int ctx_setup(struct rp_ctx *c, const struct rp_dev *d, char *why, size_t n)
{
	CUptiResult r;
	CUpti_RangeProfiler_Enable_Params ep = {.structSize = CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE};
	ep.ctx = c->ctx;
	if ((r = cuptiRangeProfilerEnable(&ep)) != CUPTI_SUCCESS) {
		why_cupti(why, n, "cuptiRangeProfilerEnable", r);
		return -1;
	}
	c->obj = ep.pRangeProfilerObject;
	CUpti_RangeProfiler_GetCounterDataSize_Params sp = {.structSize = CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE};
	sp.pRangeProfilerObject = c->obj;
	sp.pMetricNames = d->names;
	sp.numMetrics = d->n;
	/* a batch's pass: for each launch the flush's kernels and it */
	c->nranges = c->user ? batch_ranges(c, (size_t)cfg.batch) : 1;
	if (c->user && !(c->pend = calloc((size_t)cfg.batch, sizeof(*c->pend)))) {
		snprintf(why, n, "out of memory for a batch of %ld launches", cfg.batch);
		return -1;
	}
	sp.maxNumOfRanges = c->nranges;
	sp.maxNumRangeTreeNodes = c->nranges;
	if ((r = cuptiRangeProfilerGetCounterDataSize(&sp)) != CUPTI_SUCCESS) {
		why_cupti(why, n, "cuptiRangeProfilerGetCounterDataSize", r);
		return -1;
	}
	c->image_size = sp.counterDataSize;
	c->image = malloc(c->image_size ? c->image_size : 1);
	if (!c->image) {
		snprintf(why, n, "out of memory for the counter-data image");
		return -1;
	}
	if ((r = image_init(c)) != CUPTI_SUCCESS) {
		why_cupti(why, n, "cuptiRangeProfilerCounterDataImageInitialize", r);
		return -1;
	}
	CUpti_RangeProfiler_SetConfig_Params cp = {.structSize = CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE};
	cp.pRangeProfilerObject = c->obj;
	cp.configSize = d->config_size;
	cp.pConfig = d->config;
	cp.counterDataImageSize = c->image_size;
	cp.pCounterDataImage = c->image;
	cp.range = CUPTI_AutoRange;
	cp.replayMode = c->user ? CUPTI_UserReplay : CUPTI_KernelReplay;
	cp.maxRangesPerPass = c->nranges;
	cp.numNestingLevels = 1;
	cp.minNestingLevel = 1;
	cp.passIndex = 0;
	cp.targetNestingLevel = 1;
	if ((r = cuptiRangeProfilerSetConfig(&cp)) != CUPTI_SUCCESS) {
		why_cupti(why, n, "cuptiRangeProfilerSetConfig", r);
		return -1;
	}
	return 0;
}

static struct rp_dev *dev_find(uint32_t id)
{
	struct rp_dev *fresh = NULL;
	for (int i = 0; i < RP_MAX_DEV; i++) {
		if (g_dev[i].used && g_dev[i].id == id)
			return &g_dev[i];
		if (!g_dev[i].used && !fresh)
			fresh = &g_dev[i];
	}
	return fresh;
}

/* User replay on context c (first selected launch on it): the driver and checkpoint entry
 * points and the L2 flush. What cannot be had is said in c->note, and the context falls back:
 * to kernel replay without the entry points, to user replay without a flush without the flush
 * (its launches' flags say which). */
static void replay_setup(struct rp_ctx *c, CUcontext ctx)
{
	char why[256];
	int pushed = 0;
	CUresult r;
	if (!cfg.user_replay)
		return;
	if (gd_replay_load(why, sizeof(why)) < 0) {
		snprintf(c->note, sizeof(c->note), "kernel replay: user replay is not available here (%s)", why);
		rp_dbg("%s", c->note);
		return;
	}
	c->user = 1;
	t_internal = 1;
	if ((r = gd_ctx_enter(ctx, &pushed)) != CUDA_SUCCESS) {
		snprintf(why, sizeof(why), "the context could not be made current: %s", gd_cu_text(r));
		c->flush.state = -1;
	} else {
		if (gd_flush_setup(&c->flush, why, sizeof(why)) < 0)
			c->flush.state = -1;
		gd_ctx_leave(pushed);
	}
	t_internal = 0;
	if (c->flush.state < 0) {
		snprintf(c->note, sizeof(c->note), "user replay without an L2 flush between passes (%s): DRAM bytes "
			 "may include the write-back of lines the previous pass left", why);
		rp_dbg("%s", c->note);
	}
}

/* The context's profiler state, set up on its first selected launch. NULL when profiling is
 * off there; *why is then set the first time (the launch records it), empty afterwards. */
static struct rp_ctx *ctx_get(const struct launch *l, CUcontext ctx, char *why, size_t n)
{
	struct rp_ctx *c = NULL, *fresh = NULL;
	struct rp_dev *d;
	why[0] = 0;
	for (int i = 0; i < RP_MAX_CTX && !c; i++) {
		if (g_ctx[i].used && g_ctx[i].id == l->context)
			c = &g_ctx[i];
		else if (!g_ctx[i].used && !fresh)
			fresh = &g_ctx[i];
	}
	if (c)
		return c->broken ? NULL : c;
	if (g_init_state < 0)
		return NULL;
	if (!fresh) {
		static int said;
		if (!said++)
			snprintf(why, n, "more than %d CUDA contexts: no range profiling on the others", RP_MAX_CTX);
		return NULL;
	}
	if (g_init_state == 0) {
		CUpti_Profiler_Initialize_Params ip = {.structSize = CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
		CUptiResult r = cuptiProfilerInitialize(&ip);
		if (r != CUPTI_SUCCESS) {
			why_cupti(why, n, "cuptiProfilerInitialize", r);
			g_init_state = -1;
			return NULL;
		}
		g_init_state = 1;
	}
	c = fresh;
	memset(c, 0, sizeof(*c));
	c->used = 1, c->id = l->context, c->dev = l->device, c->ctx = ctx;
	d = dev_find(l->device);
	if (!d) {
		snprintf(why, n, "more than %d devices", RP_MAX_DEV);
		c->broken = 1;
		return NULL;
	}
	if (!d->used) {
		memset(d, 0, sizeof(*d));
		d->used = 1, d->id = l->device;
		if (dev_setup(d, ctx, why, n) < 0)
			d->broken = 2; /* 2: broken, the reason is being recorded by this launch */
	}
	if (d->broken) {
		if (d->broken == 1)
			why[0] = 0; /* recorded on the device's first context already */
		d->broken = 1;
		c->broken = 1;
		return NULL;
	}
	replay_setup(c, ctx);
	if (ctx_setup(c, d, why, n) < 0) {
		c->broken = 1;
		return NULL;
	}
	return c;
}

/* ---- the launch callbacks */

enum { L_NONE, L_KERNEL, L_COOP, L_GRAPH };

static int launch_kind(CUpti_CallbackId cbid, const void *params)
{
	switch (cbid) {
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz: return L_KERNEL;
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz: {
		/* the _ptsz parameters have the same layout */
		const cuLaunchKernelEx_params *p = params;
		if (p && p->config)
			for (unsigned i = 0; i < p->config->numAttrs && p->config->attrs; i++)
				if (p->config->attrs[i].id == CU_LAUNCH_ATTRIBUTE_COOPERATIVE &&
				    p->config->attrs[i].value.cooperative)
					return L_COOP;
		return L_KERNEL;
	}
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz:
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernelMultiDevice: return L_COOP;
	case CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch:
	case CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz: return L_GRAPH;
	default: return L_NONE;
	}
}

/* +1: begins a stream capture; -1: ends one; 0: neither */
static int capture_kind(CUpti_CallbackId cbid)
{
	switch (cbid) {
	case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture:
	case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_ptsz:
	case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2:
	case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2_ptsz:
	case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph:
	case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph_ptsz: return 1;
	case CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture:
	case CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture_ptsz: return -1;
	default: return 0;
	}
}

/* Exit of a capture call: count the captures in progress. A begin counts when it succeeded;
 * an end ends the capture when it succeeded or found the capture invalidated (the graph is
 * then discarded, the capture over); other failures (wrong thread, not capturing) end none. */
static void capture_exit(int kind, const CUpti_CallbackData *cb)
{
	int rv = cb->functionReturnValue ? *(const int *)cb->functionReturnValue : 0;
	pthread_mutex_lock(&g_rp_mu);
	if (kind > 0 && rv == CUDA_SUCCESS)
		g_captures++;
	else if (kind < 0 && (rv == CUDA_SUCCESS || rv == CUDA_ERROR_STREAM_CAPTURE_INVALIDATED) && g_captures > 0)
		g_captures--;
	pthread_mutex_unlock(&g_rp_mu);
}

static int rt_launch_name(const char *name)
{
	return name && (!strncmp(name, "cudaLaunch", 10) || !strncmp(name, "__cudaLaunch", 12) ||
			!strncmp(name, "cudaGraphLaunch", 15));
}

/* The driver calls user replay makes besides launches, whose records (a synchronisation, a
 * memset, an allocation) must be told from the program's: their callbacks give the ids. */
static int replay_call(CUpti_CallbackId cbid)
{
	switch (cbid) {
	case CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize:
	case CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2:
	case CUPTI_DRIVER_TRACE_CBID_cuMemsetD8_v2:
	case CUPTI_DRIVER_TRACE_CBID_cuModuleLoadData:
	case CUPTI_DRIVER_TRACE_CBID_cuModuleGetFunction: return 1;
	default: return 0;
	}
}

/* Driver calls a waiting batch must not outlive (its memory or code could go, or a capture
 * begin that the passes' synchronisations would spoil), must not be in the way of (an
 * allocation: the batch's checkpoints hold device memory the program may need) or should not
 * be kept waiting over (a synchronisation, or a synchronous copy: the program waits anyway,
 * and a program that copies its results back and exits without a free or a synchronisation
 * must still get its launches profiled). By name, every version of each. */
static int batch_call(const char *name)
{
	static const char *const pre[] = {"cuMemFree", "cuMemRelease", "cuMemUnmap", "cuMemAddressFree",
					  "cuArrayDestroy", "cuMipmappedArrayDestroy", "cuModuleUnload",
					  "cuLibraryUnload", "cuCtxDestroy", "cuDevicePrimaryCtxRelease",
					  "cuDevicePrimaryCtxReset", "cuStreamDestroy", "cuMemHostUnregister",
					  "cuMemPoolTrimTo", "cuMemPoolDestroy", "cuIpcCloseMemHandle",
					  "cuGraphicsUnregisterResource", "cuDestroyExternalMemory",
					  "cuStreamBeginCapture", "cuCtxSynchronize", "cuStreamSynchronize",
					  "cuEventSynchronize", "cuMemAlloc", "cuMemCreate", "cuArrayCreate",
					  "cuArray3DCreate", "cuMipmappedArrayCreate", "cuMemPoolCreate"};
	for (size_t i = 0; name && i < sizeof(pre) / sizeof(pre[0]); i++)
		if (!strncmp(name, pre[i], strlen(pre[i])))
			return 1;
	return name && !strncmp(name, "cuMemcpy", 8) && !strstr(name, "Async");
}
static unsigned char g_batch_cb[1024]; /* driver cbids batch_call names, set by gd_rp_wants */

int gd_rp_wants(CUpti_CallbackDomain dom, CUpti_CallbackId cbid, const char *name)
{
	if (!cfg.on)
		return 0;
	if (dom == CUPTI_CB_DOMAIN_DRIVER_API) {
		int batch = cfg.user_replay && cfg.batch > 1 && cbid < sizeof(g_batch_cb) && batch_call(name);
		if (batch)
			g_batch_cb[cbid] = 1;
		return launch_kind(cbid, NULL) != L_NONE || capture_kind(cbid) || (cfg.user_replay && replay_call(cbid)) ||
		       batch;
	}
	if (dom == CUPTI_CB_DOMAIN_RUNTIME_API)
		return rt_launch_name(name);
	if (dom == CUPTI_CB_DOMAIN_RESOURCE)
		return cbid == CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING;
	return 0;
}

/* This thread's launch in flight: the runtime launch around a driver launch (its correlation
 * id is the one the kernel's activity record carries), and the driver launch holding g_rp_rw
 * from its enter to its exit callback (for writing when profiled). */
static _Thread_local int t_rt_depth;
static _Thread_local uint32_t t_rt_corr;
static _Thread_local struct {
	int active, reading;
	CUpti_CallbackId cbid;
	struct rp_ctx *c;
	struct launch l;
} t_rp;

static void ids_of(CUcontext ctx, const CUpti_CallbackData *cb, struct launch *l)
{
	uint32_t v;
	l->context = cuptiGetContextId(ctx, &v) == CUPTI_SUCCESS ? v : cb->contextUid;
	l->device = cuptiGetDeviceId(ctx, &v) == CUPTI_SUCCESS ? v : 0;
}

/* Under g_rp_mu: 1 when this launch is to be profiled (the budget is taken), 0 otherwise
 * (a skip record is written here when it is due). */
static int select_launch(int kind, const CUpti_CallbackData *cb, struct launch *l)
{
	struct kname *k = kn_get(l->name);
	char why[160];
	int sel;
	if (!k)
		return 0;
	l->name = k->name;
	l->nth = k->launches++;
	if (kind == L_GRAPH) {
		/* a graph's kernels are unknown here: listed whatever the filter, at most
		 * PER_KERNEL times, outside the skip/count sequence of kernel launches */
		if (k->selected < (uint32_t)(cfg.per_kernel ? cfg.per_kernel : 3)) {
			k->selected++;
			ids_of(cb->context, cb, l);
			write_klaunch(l, GD_KL_SKIP_GRAPH, "a CUDA graph launch: its kernels are not replayable one by one",
				      0, NULL, NULL, 0);
		}
		return 0;
	}
	if (k->match < 0)
		decide_match(k);
	if (g_captures > 0) {
		/* recorded into a graph, not run now: listed (at most PER_KERNEL times a name),
		 * outside the skip/count sequence, since it does not run here */
		if (k->match && k->captured < (uint32_t)(cfg.per_kernel ? cfg.per_kernel : 3)) {
			k->captured++;
			ids_of(cb->context, cb, l);
			write_klaunch(l, GD_KL_SKIP_GRAPH,
				      "launched during a stream capture (recorded into a CUDA graph, not run): "
				      "profiling it would invalidate the capture",
				      0, NULL, NULL, 0);
		}
		return 0;
	}
	if (!k->match || g_matching++ < cfg.skip)
		return 0;
	if (cfg.count_mode)
		sel = g_matching - 1 - cfg.skip < cfg.count;
	else if ((sel = k->selected < (uint32_t)cfg.per_kernel))
		k->selected++;
	if (!sel)
		return 0;
	ids_of(cb->context, cb, l);
	if (kind == L_COOP) {
		write_klaunch(l, GD_KL_SKIP_COOPERATIVE, "a cooperative launch: kernel replay cannot restore a grid-wide sync",
			      0, NULL, NULL, 0);
		return 0;
	}
	if (k->comm) {
		write_klaunch(l, GD_KL_SKIP_COMM, "a communication kernel: replaying it alone would wait for its peers",
			      0, NULL, NULL, 0);
		return 0;
	}
	if (g_profiled >= cfg.max) {
		if (!k->limit_written) {
			k->limit_written = 1;
			snprintf(why, sizeof(why), "over the budget of %ld profiled launches per process", cfg.max);
			write_klaunch(l, GD_KL_SKIP_LIMIT, why, 0, NULL, NULL, 0);
		}
		return 0;
	}
	g_profiled++;
	return 1;
}

/* Evaluates range `range` into vals: all at once, else one by one (NaN where CUPTI gives none). */
static CUptiResult evaluate(const struct rp_dev *d, const struct rp_ctx *c, size_t range, double *vals)
{
	CUpti_Profiler_Host_EvaluateToGpuValues_Params p = {.structSize = CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE};
	CUptiResult r, first = CUPTI_SUCCESS;
	size_t ok = 0;
	p.pHostObject = d->host;
	p.pCounterDataImage = c->image;
	p.counterDataImageSize = c->image_size;
	p.rangeIndex = range;
	p.ppMetricNames = d->names;
	p.numMetrics = d->n;
	p.pMetricValues = vals;
	if ((r = cuptiProfilerHostEvaluateToGpuValues(&p)) == CUPTI_SUCCESS)
		return r;
	rp_dbg("evaluating %zu metrics at once: %s; one by one", d->n, cupti_text(r));
	for (size_t i = 0; i < d->n; i++) {
		p.ppMetricNames = &d->names[i];
		p.numMetrics = 1;
		p.pMetricValues = &vals[i];
		if ((r = cuptiProfilerHostEvaluateToGpuValues(&p)) == CUPTI_SUCCESS) {
			ok++;
		} else {
			vals[i] = NAN;
			first = first == CUPTI_SUCCESS ? r : first;
			rp_dbg("evaluating %s: %s", d->names[i], cupti_text(r));
		}
	}
	return ok ? CUPTI_SUCCESS : first;
}


/* GPUDIAG_INJECT_DEBUG's line for a profiled launch: where its time went (a batch's launches
 * each get the batch's steps divided among them). */
static void dbg_profiled(const struct rp_ctx *c, const struct rp_dev *d, const struct launch *l, size_t n)
{
	char steps[256], by_pass[RP_DBG_PASSES * 24] = "", batch[48] = "";
	size_t len = 0;
	uint64_t all = 0;
	if (!cfg.debug)
		return;
	for (int i = 0; i < RP_NSTEP; i++)
		all += c->step_ns[i];
	steps[0] = 0;
	for (int i = 0; i < RP_NSTEP && len < sizeof(steps); i++)
		len += (size_t)snprintf(steps + len, sizeof(steps) - len, "%s%s %.3f", i ? ", " : "", rp_step_name[i],
					1e-6 * (double)c->step_ns[i] / (double)n);
	len = 0;
	for (size_t p = 0; p < c->npass && len < sizeof(by_pass); p++)
		len += (size_t)snprintf(by_pass + len, sizeof(by_pass) - len, "%s%.2f/%.2f", p ? " " : "",
					1e-3 * c->pass_us[p][0] / (double)n, 1e-3 * c->pass_us[p][1] / (double)n);
	if (n > 1)
		snprintf(batch, sizeof(batch), " in a batch of %zu", n);
	rp_dbg("profiled %.80s #%u (correlation %u): %zu passes, %s replay%s, %.3f ms (%s ms)%s%s", l->name, l->nth,
	       l->correlation, d->passes, l->flags & GD_KL_F_USER ? "user" : "kernel", batch,
	       n > 1 ? 1e-6 * (double)all / (double)n : 1e-6 * (double)since_ns(&l->t0), steps,
	       c->npass ? "; by pass, start/whole ms: " : "", by_pass);
}

/* After the session's last Stop (all passes submitted): decode, evaluate, record each of the
 * n launches the session held (batch_range_of), and make the image ready
 * for the next. rv: what the program's (last) launch returned (for the message). 0, or -1 when
 * the context is broken (the records are written). */
static int finish(struct rp_ctx *c, const struct rp_dev *d, const struct launch *const *ls, size_t n, int all_submitted,
		  int rv)
{
	char why[600];
	CUptiResult r;
	double *vals = NULL;
	CUpti_RangeProfiler_DecodeData_Params dp = {.structSize = CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE};
	CUpti_RangeProfiler_GetCounterDataInfo_Params ip = {.structSize = CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE};
	const char *note = c->note[0] ? c->note : NULL;
	size_t want = batch_ranges(c, n);
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	dp.pRangeProfilerObject = c->obj;
	ip.pCounterDataImage = c->image;
	ip.counterDataImageSize = c->image_size;
	if ((r = cuptiRangeProfilerDecodeData(&dp)) != CUPTI_SUCCESS) {
		why_cupti(why, sizeof(why), "cuptiRangeProfilerDecodeData", r);
		goto broken;
	}
	lap(&c->step_ns[RP_DECODE], &t);
	if ((r = cuptiRangeProfilerGetCounterDataInfo(&ip)) != CUPTI_SUCCESS) {
		why_cupti(why, sizeof(why), "cuptiRangeProfilerGetCounterDataInfo", r);
		goto broken;
	}
	if (ip.numTotalRanges < 1 || !all_submitted || (n > 1 && ip.numTotalRanges != want)) {
		if (n > 1 && all_submitted && ip.numTotalRanges >= 1)
			snprintf(why, sizeof(why), "the batch's session recorded %zu ranges, not the %zu of its %zu launches "
				 "and flushes (%zu dropped): no launch of it can be told", ip.numTotalRanges, want, n,
				 dp.numOfRangeDropped);
		else
			snprintf(why, sizeof(why), "%s (the launch returned %d, %zu ranges dropped)",
				 ip.numTotalRanges < 1 ? "no range was recorded" : "not every pass was replayed", rv,
				 dp.numOfRangeDropped);
		rp_dbg("%s", why);
		for (size_t i = 0; i < n; i++)
			write_klaunch(ls[i], GD_KL_ERROR, why, (uint32_t)d->passes, NULL, NULL, 0);
		goto reset;
	}
	vals = malloc(d->n * sizeof(*vals));
	if (!vals) {
		for (size_t i = 0; i < n; i++)
			write_klaunch(ls[i], GD_KL_ERROR, "out of memory", (uint32_t)d->passes, NULL, NULL, 0);
		goto reset;
	}
	for (size_t i = 0; i < n; i++) {
		r = evaluate(d, c, batch_range_of(c, n, i), vals);
		if (r != CUPTI_SUCCESS) {
			why_cupti(why, sizeof(why), "cuptiProfilerHostEvaluateToGpuValues", r);
			write_klaunch(ls[i], GD_KL_ERROR, why, (uint32_t)d->passes, NULL, NULL, 0);
		} else {
			write_klaunch(ls[i], GD_KL_OK, note, (uint32_t)d->passes, vals, d->idx, d->n);
		}
	}
	lap(&c->step_ns[RP_EVAL], &t);
	for (size_t i = 0; i < n; i++)
		dbg_profiled(c, d, ls[i], n);
	free(vals);
reset:
	if ((r = image_init(c)) != CUPTI_SUCCESS) {
		why_cupti(why, sizeof(why), "cuptiRangeProfilerCounterDataImageInitialize", r);
		c->broken = 1; /* the records of these launches are written; later ones are not tried */
		return -1;
	}
	return 0;
broken:
	c->broken = 1;
	for (size_t i = 0; i < n; i++)
		write_klaunch(ls[i], GD_KL_ERROR, why, (uint32_t)d->passes, NULL, NULL, 0);
	return -1;
}

static int flush_l2(struct rp_ctx *c, char *why, size_t n)
{
	CUresult r;
	if (c->flush.state <= 0)
		return 0;
	if ((r = gd_flush_run(&c->flush)) != CUDA_SUCCESS) {
		snprintf(why, n, "flushing L2 before a pass: %s", gd_cu_text(r));
		return -1;
	}
	return 0;
}

static void flush_batch(struct rp_ctx *c, CUpti_CallbackId cbid, const void *params, uint32_t corr);

/* Before a launch's memory is saved while its context's batch waits: the batch's passes run
 * first unless, after another checkpoint as large as the last one (at least the checkpoints'
 * reserve), a quarter of the device's memory stays free (and at least the reserve). A
 * checkpoint that does not fit spills to host memory, and a batch of them could exhaust it; a
 * batch that filled the device would leave the program's own needs (the driver's local memory
 * for a launch, a library's workspace) without room (an H100, 2026-12-06: batches of 8 on a
 * GPT-2 training step held 78 of 80 GiB). Free memory that cannot be read ends the batch too. */
#define BATCH_HEADROOM 4 /* the device memory a batch leaves free: 1/4 of it */
static void batch_room(struct rp_ctx *c, const struct launch *l)
{
	size_t fr = 0, total = 0, reserve = gd_ckpt_reserve(), need = 0;
	if (!c->npend)
		return;
	if (gd_mem_info(&fr, &total) == CUDA_SUCCESS) {
		need = (total / BATCH_HEADROOM > reserve ? total / BATCH_HEADROOM : reserve) +
		       (c->ckpt_bytes > reserve ? c->ckpt_bytes : reserve);
		if (fr >= need)
			return;
	}
	rp_dbg("%zu MiB of device memory free, %zu MiB wanted for another checkpoint: the batch of %zu is replayed "
	       "before %s #%u", fr >> 20, need >> 20, c->npend, l->name, l->nth);
	flush_batch(c, 0, NULL, l->correlation);
}

/* User replay, part 1, in the enter callback of the program's launch, holding g_rp_rw for
 * writing: wait for the context's earlier work and save its memory. The program's launch then
 * runs unprofiled, with no session started before it (starting one there launched a CUPTI
 * kernel, WaitNs, with the program's correlation id on an H100), and user_exit replays every
 * pass. 1: bracketed; 0: not profiled (an error record is written and the context profiles no
 * more). */
static int user_enter(const CUpti_CallbackData *cb, struct rp_ctx *c, struct launch *l)
{
	const struct rp_dev *d = dev_find(c->dev);
	struct gd_ckpt *ck = NULL;
	size_t free0 = 0, free1 = 0;
	int pushed = 0;
	char why[600];
	CUresult cr;
	CUptiResult r;
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	l->flags = GD_KL_F_USER | (c->flush.state > 0 ? GD_KL_F_FLUSH : 0);
	t_internal = 1;
	if ((cr = gd_ctx_enter(cb->context, &pushed)) != CUDA_SUCCESS) {
		snprintf(why, sizeof(why), "making the launch's context current: %s", gd_cu_text(cr));
		goto fail;
	}
	/* the memory the launch starts from: everything before it done */
	if ((cr = gd_ctx_sync()) != CUDA_SUCCESS) {
		snprintf(why, sizeof(why), "waiting for the work before the launch: %s", gd_cu_text(cr));
		goto fail_ctx;
	}
	lap(&c->step_ns[RP_SYNC], &t);
	batch_room(c, l);
	ck = &c->pend[c->npend].ck; /* after batch_room, which may have emptied the batch */
	/* the checkpoint's size, for batch_room (a batch of one needs none) */
	if (cfg.batch == 1 || gd_mem_info(&free0, NULL) != CUDA_SUCCESS)
		free0 = 0;
	if ((r = gd_ckpt_save(ck, cb->context)) != CUPTI_SUCCESS) {
		char step[200], room[120] = "";
		if (r == CUPTI_ERROR_OUT_OF_MEMORY) /* the reserves it had to keep */
			snprintf(room, sizeof(room), ", has no room: it leaves %zu MiB of device and %zu MiB of host memory free",
				 gd_ckpt_reserve() >> 20, gd_ckpt_host_reserve_mb());
		snprintf(step, sizeof(step), "cuptiCheckpointSave (the device memory, saved for the replay%s)", room);
		why_cupti(why, sizeof(why), step, r);
		goto fail_ctx;
	}
	lap(&c->step_ns[RP_SAVE], &t);
	c->ckpt_bytes = free0 && gd_mem_info(&free1, NULL) == CUDA_SUCCESS && free1 < free0 ? free0 - free1 : 0;
	gd_ctx_leave(pushed);
	t_internal = 0;
	return 1;
fail_ctx:
	gd_ctx_leave(pushed);
fail:
	if (ck)
		gd_ckpt_free(ck);
	t_internal = 0;
	c->broken = 1;
	write_klaunch(l, GD_KL_ERROR, why, (uint32_t)d->passes, NULL, NULL, 0);
	return 0;
}

/* ---- user replay in batches (GPUDIAG_METRICS_BATCH = K; by default 1, a launch alone)
 *
 * A profiled launch's cost is CUPTI's per pass (its Start and Stop), not the kernel's. A batch
 * shares one session per pass among up to K launches of a context: each selected launch runs
 * as the program made it, its memory saved before it (user_enter) and its call kept (a copy of
 * its arguments, replay.h); when the batch is full, when the selection is over, before the
 * program does anything a later replay could not survive, should not wait for or must not
 * be crowded by (frees and unloads, stream or context destruction, the start of a stream
 * capture, a synchronisation or synchronous copy, an allocation: batch_call; no launch waits
 * while a capture is in progress, its launches being skipped),
 * or before a launch whose memory would not fit on the device beside the batch's (batch_room),
 * every pass runs all of them: Start; for each launch restore its memory, flush L2 (inside the
 * session: the flush's kernels are ranges of their own, skipped), launch it; Stop
 * (batch_range_of). Each launch's pass thus starts from its own memory and a clean L2, as
 * alone, and all of a batch's launches alike. With Start between the first launch's flush and
 * the launch, as alone, that launch read DRAM writes high by an amount that grew with the batch
 * (an H100, 2026-12-06: a strided gather's 69.1 MB read 73.0, 79.7 and 88.9 MB in batches of 2,
 * 4 and 8), the later ones did not. ncu and a batch of one count the dirty lines
 * cuptiRangeProfilerStart leaves (about 3 MB on an H100) in a kernel's DRAM writes, no launch
 * of a batch does. Afterwards the memory is put back as the program left it: by the
 * last launch's last pass when the batch ends in that launch's own exit callback, else from a
 * checkpoint taken when the batch began its passes. Launches still waiting when the process
 * ends are recorded as not profiled (no CUDA call is made at exit). */
struct batch_job {
	struct rp_ctx *c;
	const struct rp_dev *d;
	size_t n;
	CUpti_CallbackId live_cbid;  /* the batch's last launch, still in its exit callback; */
	const void *live_params;     /* NULL: every launch from its kept call, the memory saved first */
	struct gd_ckpt now;          /* the memory when the passes began (live_params NULL) */
	int ok;
	char why[600];
};
static long g_npend; /* launches waiting in batches, all contexts (atomic) */

static CUresult batch_launch(const struct batch_job *j, size_t i)
{
	if (i + 1 == j->n && j->live_params)
		return gd_replay_launch(j->live_cbid, j->live_params);
	return gd_relaunch_run(&j->c->pend[i].rl);
}

/* Starts the pass's session; 0, or -1 with j->why. */
static int session_start(struct batch_job *j, CUpti_RangeProfiler_Start_Params *st)
{
	CUptiResult r = cuptiRangeProfilerStart(st);
	if (r != CUPTI_SUCCESS) {
		why_cupti(j->why, sizeof(j->why), "cuptiRangeProfilerStart", r);
		return -1;
	}
	return 0;
}

static void say_harm(char *why, size_t n)
{
	size_t len = strlen(why);
	snprintf(why + len, n - len, "; the memory could not be put back as the program left it: the program's results "
				     "may be affected");
}

/* On the replay thread (gd_worker_call; replay.c, "the worker thread"), with CUPTI's kernel
 * records off (rangeprof.h, gd_inj_kernels_pause: on, every SASS metric of a user-replay pass
 * reads 0): wait for the program's kernels; then, while CUPTI asks for more passes: for a
 * launch alone restore the memory saved before it, flush L2, start, launch it again with the
 * program's arguments, stop; for a batch start, then for each launch restore, flush, launch,
 * then stop (the batch comment above says why). A launch alone is flushed before the start, as
 * ncu's cache control does, although cuptiRangeProfilerStart itself leaves about 3 MB of dirty
 * L2 lines that a kernel evicting them counts as its DRAM writes (a read-only 256 MB sweep: 3.0 MB with this order, 40 KB with
 * the flush inside the session, on an H100; tests/gpu/metrics/replay_probe.cu "dram-*"). Tried
 * on the GPU, both ways of flushing after the start moved gpudiag away from ncu (2026-12-06,
 * docs/kernel-metrics.md): the flush's kernels as ranges of their own read every kernel's DRAM
 * writes 3-8 % below ncu's, which counts that write-back too; a user range around the launch
 * alone measures the range's time, launch gaps included (durations 9-37 % long). Each pass
 * starts from the memory the program's launch started from. On a failure after a restore, the
 * memory is put back as the program left it (a checkpoint, or the last launch's memory and
 * that launch once more, unprofiled); where that fails too, the reason says the program's
 * results may be affected. Everything
 * that runs on the GPU from here to the last pass, CUPTI's own kernels included, begins inside
 * a window opened after the program's kernel has finished (rangeprof.c, "user replay's own
 * work"). Then the memory back as the program left it. */
static void run_batch(void *arg)
{
	struct batch_job *j = arg;
	struct rp_ctx *c = j->c;
	size_t pass = 0;
	int pushed = 0, done = 0, started = 0, saved = 0, windowed = 0, touched = 0;
	CUresult cr;
	CUptiResult r;
	CUpti_RangeProfiler_Start_Params st = {.structSize = CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
	CUpti_RangeProfiler_Stop_Params sp = {.structSize = CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
	uint64_t *ns = c->step_ns;
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	st.pRangeProfilerObject = sp.pRangeProfilerObject = c->obj;
	t_internal = 1;
	if ((cr = gd_ctx_enter(c->ctx, &pushed)) != CUDA_SUCCESS) {
		snprintf(j->why, sizeof(j->why), "making the batch's context current: %s", gd_cu_text(cr));
		t_internal = 0;
		return;
	}
	if ((cr = gd_ctx_sync()) != CUDA_SUCCESS) {
		snprintf(j->why, sizeof(j->why), "waiting for the program's work before the batch's passes: %s",
			 gd_cu_text(cr));
		goto out;
	}
	/* the program's kernels done: from here every kernel that begins on this context is a
	 * replay's, until the window closes */
	lap(&ns[RP_SYNC], &t);
	if (!j->live_params) {
		if ((r = gd_ckpt_save(&j->now, c->ctx)) != CUPTI_SUCCESS) {
			why_cupti(j->why, sizeof(j->why), "cuptiCheckpointSave (the memory before the batch's passes)", r);
			goto out;
		}
		saved = 1;
		lap(&ns[RP_SAVE], &t);
	}
	window_open(c->id);
	windowed = 1;
	gd_inj_kernels_pause(1);
	for (; !done; pass++) {
		uint64_t before = 0, start0 = ns[RP_START];
		for (int i = RP_RESTORE; i <= RP_SYNC; i++)
			before += ns[i];
		if (j->n > 1) { /* a batch: every launch after Start, its flush inside the session */
			if (session_start(j, &st) < 0)
				goto fail;
			started = 1;
			lap(&ns[RP_START], &t);
		}
		for (size_t i = 0; i < j->n; i++) {
			if ((r = gd_ckpt_restore(&c->pend[i].ck)) != CUPTI_SUCCESS) {
				why_cupti(j->why, sizeof(j->why), "cuptiCheckpointRestore", r);
				goto fail;
			}
			touched = 1;
			/* the restore's copies done before the flush reads: CUPTI does not say the
			 * restore waits for them, and a copy landing after the flush leaves dirty
			 * lines whose write-back the pass would count as the kernel's DRAM writes */
			if ((cr = gd_ctx_sync()) != CUDA_SUCCESS) {
				snprintf(j->why, sizeof(j->why), "after restoring memory for pass %zu: %s", pass + 1,
					 gd_cu_text(cr));
				goto fail;
			}
			lap(&ns[RP_RESTORE], &t);
			if (flush_l2(c, j->why, sizeof(j->why)) < 0)
				goto fail;
			lap(&ns[RP_FLUSH], &t);
			if (j->n == 1) { /* alone: the flush before Start, as ncu's */
				if (session_start(j, &st) < 0)
					goto fail;
				started = 1;
				lap(&ns[RP_START], &t);
			}
			if ((cr = batch_launch(j, i)) != CUDA_SUCCESS) {
				char of[64] = "";
				if (j->n > 1)
					snprintf(of, sizeof(of), " (launch %zu of a batch of %zu)", i + 1, j->n);
				snprintf(j->why, sizeof(j->why), "launching the kernel again for pass %zu%s: %s", pass + 1, of,
					 gd_cu_text(cr));
				goto fail;
			}
			lap(&ns[RP_LAUNCH], &t);
			/* the next launch's restore must not begin while this kernel runs: its copies
			 * would overwrite what the kernel reads and count in its range (an H100,
			 * 2026-12-06: a batched gather read 20 MB more DRAM writes without this) */
			if (i + 1 < j->n && (cr = gd_ctx_sync()) != CUDA_SUCCESS) {
				snprintf(j->why, sizeof(j->why), "pass %zu, launch %zu of a batch of %zu: %s", pass + 1, i + 1, j->n,
					 gd_cu_text(cr));
				goto fail;
			}
			lap(&ns[RP_SYNC], &t);
		}
		started = 0;
		if ((r = cuptiRangeProfilerStop(&sp)) != CUPTI_SUCCESS) {
			why_cupti(j->why, sizeof(j->why), "cuptiRangeProfilerStop", r);
			goto fail;
		}
		lap(&ns[RP_STOP], &t);
		if ((cr = gd_ctx_sync()) != CUDA_SUCCESS) {
			snprintf(j->why, sizeof(j->why), "pass %zu: %s", pass + 1, gd_cu_text(cr));
			goto fail;
		}
		lap(&ns[RP_SYNC], &t);
		if (pass < RP_DBG_PASSES) {
			uint64_t after = 0;
			for (int i = RP_RESTORE; i <= RP_SYNC; i++)
				after += ns[i];
			c->pass_us[pass][0] = (uint32_t)((ns[RP_START] - start0) / 1000);
			c->pass_us[pass][1] = (uint32_t)((after - before) / 1000);
			c->npass = pass + 1;
		}
		done = sp.isAllPassSubmitted;
		if (!done && pass + 1 >= j->d->passes + 2) {
			snprintf(j->why, sizeof(j->why), "CUPTI asked for more than the %zu passes it announced",
				 j->d->passes);
			goto fail;
		}
	}
	j->ok = 1;
	if (saved && ((r = gd_ckpt_restore(&j->now)) != CUPTI_SUCCESS || gd_ctx_sync() != CUDA_SUCCESS)) {
		j->ok = 0;
		snprintf(j->why, sizeof(j->why), "restoring the memory after the batch's passes");
		say_harm(j->why, sizeof(j->why));
	}
	lap(&ns[RP_RESTORE], &t);
	goto out;
fail:
	if (started) /* end the session; its counters are not used */
		cuptiRangeProfilerStop(&sp);
	if (touched) {
		/* the memory as the program left it: the checkpoint, or (live) the last launch's
		 * memory and that launch once more */
		if (saved)
			cr = gd_ckpt_restore(&j->now) == CUPTI_SUCCESS ? gd_ctx_sync() : CUDA_ERROR_UNKNOWN;
		else if (gd_ckpt_restore(&c->pend[j->n - 1].ck) != CUPTI_SUCCESS)
			cr = CUDA_ERROR_UNKNOWN;
		else if ((cr = batch_launch(j, j->n - 1)) == CUDA_SUCCESS)
			cr = gd_ctx_sync();
		if (cr != CUDA_SUCCESS)
			say_harm(j->why, sizeof(j->why));
	}
out:
	if (windowed) {
		gd_inj_kernels_pause(0);
		window_close();
	}
	gd_ctx_leave(pushed);
	t_internal = 0;
}

/* The window of a batch's passes, as an overhead record of gpudiag's own kind (kc_metrics.h,
 * GD_OVERHEAD_GPUDIAG_REPLAY): the analysis cuts it out of the timeline. */
static void write_window(const struct rp_ctx *c, uint64_t from, uint64_t to, uint32_t corr)
{
	struct gd_raw_overhead *r;
	if (!from || to <= from)
		return;
	gd_inj_lock();
	r = gd_inj_reserve(sizeof(*r));
	if (r) {
		r->h.type = GD_RAW_OVERHEAD, r->h.size = sizeof(*r);
		r->start = from, r->end = to, r->object_id = c->id;
		r->kind = GD_OVERHEAD_GPUDIAG_REPLAY, r->object_kind = CUPTI_ACTIVITY_OBJECT_CONTEXT;
		r->correlation = corr;
	}
	gd_inj_flush();
	gd_inj_unlock();
}

/* Holding g_rp_rw for writing: the passes of context c's waiting launches, their records.
 * cbid/params: the last one's driver call when its exit callback is where this runs, else
 * 0/NULL; corr: the correlation id of the driver call it runs in (0 none). */
static void flush_batch(struct rp_ctx *c, CUpti_CallbackId cbid, const void *params, uint32_t corr)
{
	uint64_t from = 0, to = 0;
	const struct rp_dev *d = dev_find(c->dev);
	const struct launch *ls[RP_BATCH_MAX];
	struct batch_job j;
	uint64_t saves = 0;
	size_t n = c->npend;
	if (!n)
		return;
	memset(&j, 0, sizeof(j));
	j.c = c, j.d = d, j.n = n, j.live_cbid = cbid, j.live_params = params;
	memset(c->step_ns, 0, sizeof(c->step_ns));
	c->npass = 0;
	cuptiGetTimestamp(&from);
	if (gd_worker_call(run_batch, &j) < 0)
		snprintf(j.why, sizeof(j.why), "no replay thread in this process: not replayed");
	cuptiGetTimestamp(&to);
	if (!(n == 1 && params)) /* else the launch's own call holds the passes */
		write_window(c, from, to, corr);
	gd_ckpt_free(&j.now);
	/* profile_ns: the launch whose call the passes ran in (the last, when it ended the batch)
	 * from its call's start to its record, as a launch alone; the others their own save only,
	 * the passes being in the window. replaycut takes a profile longer than its call to have
	 * begun before it, so no launch may claim time outside its call. */
	for (size_t i = 0; i < n; i++) {
		saves += c->pend[i].save_ns;
		c->pend[i].l.cost_ns = params && i + 1 == n ? 0 : c->pend[i].save_ns ? c->pend[i].save_ns : 1;
		ls[i] = &c->pend[i].l;
	}
	c->step_ns[RP_SAVE] += saves;
	if (!j.ok) {
		c->broken = 1; /* the session may be mid-way: no more profiling on this context */
		for (size_t i = 0; i < n; i++)
			write_klaunch(ls[i], GD_KL_ERROR, j.why, (uint32_t)d->passes, NULL, NULL, 0);
	} else {
		finish(c, d, ls, n, 1, 0);
	}
	for (size_t i = 0; i < n; i++) {
		gd_ckpt_free(&c->pend[i].ck);
		gd_relaunch_free(&c->pend[i].rl);
		free(c->pend[i].name);
		memset(&c->pend[i], 0, sizeof(c->pend[i]));
	}
	c->npend = 0;
	__atomic_sub_fetch(&g_npend, (long)n, __ATOMIC_RELAXED);
}

/* Holding g_rp_rw for writing: every context's waiting launches (a call the batch must not
 * outlive, or the process's end). */
static void flush_all_batches(uint32_t corr)
{
	for (int i = 0; i < RP_MAX_CTX; i++)
		if (g_ctx[i].used && g_ctx[i].npend)
			flush_batch(&g_ctx[i], 0, NULL, corr);
}

/* User replay's exit callback with batches: the launch joins its context's batch, whose passes
 * run when it is full, when the selection is over, or when its call cannot be kept. */
static void batch_add(CUpti_CallbackId cbid, const CUpti_CallbackData *cb, struct rp_ctx *c, const struct launch *l)
{
	const struct rp_dev *d = dev_find(c->dev);
	struct rp_pend *p = &c->pend[c->npend];
	char why[300];
	int kept, over;
	int rv = cb->functionReturnValue ? *(const int *)cb->functionReturnValue : 0;
	if (rv != CUDA_SUCCESS) {
		gd_ckpt_free(&p->ck);
		snprintf(why, sizeof(why), "the launch itself failed (CUDA error %d): not replayed", rv);
		write_klaunch(l, GD_KL_ERROR, why, (uint32_t)d->passes, NULL, NULL, 0);
		return;
	}
	p->l = *l; /* p->ck: saved in user_enter */
	p->name = strdup(l->name ? l->name : "(unknown)");
	p->l.name = p->name ? p->name : "(unknown)";
	p->save_ns = c->step_ns[RP_SAVE] + c->step_ns[RP_SYNC];
	/* a batch of one is replayed now, from the program's own call */
	kept = cfg.batch == 1 || gd_relaunch_copy(&p->rl, cbid, cb->functionParams, why, sizeof(why)) == 0;
	if (!kept)
		rp_dbg("%s #%u: %s; its batch is replayed now", p->l.name, p->l.nth, why);
	c->npend++;
	__atomic_add_fetch(&g_npend, 1, __ATOMIC_RELAXED);
	pthread_mutex_lock(&g_rp_mu);
	over = g_profiled >= cfg.max || (cfg.count_mode && g_matching - cfg.skip >= cfg.count);
	pthread_mutex_unlock(&g_rp_mu);
	if (!kept || over || c->npend >= (size_t)cfg.batch)
		flush_batch(c, cbid, cb->functionParams, l->correlation);
}


void gd_rp_exit(void)
{
	if (!cfg.on || __atomic_load_n(&g_npend, __ATOMIC_RELAXED) <= 0 || pthread_rwlock_trywrlock(&g_rp_rw) != 0)
		return;
	for (int i = 0; i < RP_MAX_CTX; i++) {
		struct rp_ctx *c = &g_ctx[i];
		const struct rp_dev *d = dev_find(c->dev);
		for (size_t k = 0; c->used && k < c->npend; k++) {
			write_klaunch(&c->pend[k].l, GD_KL_ERROR,
				      "not profiled: the process ended while the launch waited for its batch's passes "
				      "(no synchronisation, synchronous copy, allocation, free or full batch came after it)",
				      (uint32_t)d->passes, NULL, NULL, 0);
			gd_relaunch_free(&c->pend[k].rl);
			free(c->pend[k].name);
		}
		if (c->used)
			c->npend = 0;
	}
	pthread_rwlock_unlock(&g_rp_rw);
}

/* User replay, part 2, in the exit callback: the launch joins its context's batch (of one by
 * default), whose passes run on the replay thread when it is full. */
static void user_exit(CUpti_CallbackId cbid, const CUpti_CallbackData *cb, struct rp_ctx *c, const struct launch *l)
{
	batch_add(cbid, cb, c, l);
}

/* Holding g_rp_rw for writing: set up (first time on the context) and start (kernel replay:
 * the session, CUPTI replays inside the launch; user replay: user_enter saves the memory). 1 when the
 * program's launch is bracketed (launch_exit finishes). */
static int start_session(const CUpti_CallbackData *cb, struct launch *l)
{
	char why[600];
	struct rp_ctx *c;
	CUptiResult r;
	CUpti_RangeProfiler_Start_Params sp = {.structSize = CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
	t_own_corr = l->correlation;
	if (cfg.user_replay)
		own_add(l->correlation, l->name);
	t_internal = 1; /* the first launch on a context sets the flush up: its driver calls are ours */
	c = ctx_get(l, cb->context, why, sizeof(why));
	t_internal = 0;
	if (!c) {
		if (why[0])
			write_klaunch(l, GD_KL_ERROR, why, 0, NULL, NULL, 0);
		return 0;
	}
	t_rp.c = c;
	memset(c->step_ns, 0, sizeof(c->step_ns));
	c->npass = 0;
	if (c->user)
		return user_enter(cb, c, l);
	sp.pRangeProfilerObject = c->obj;
	if ((r = cuptiRangeProfilerStart(&sp)) != CUPTI_SUCCESS) {
		why_cupti(why, sizeof(why), "cuptiRangeProfilerStart", r);
		c->broken = 1;
		write_klaunch(l, GD_KL_ERROR, why, 0, NULL, NULL, 0);
		return 0;
	}
	return 1;
}

/* Enter: select under g_rp_mu, then hold g_rp_rw until the exit callback: for writing (set
 * up and start) when profiled, else for reading. */
static void launch_enter(CUpti_CallbackId cbid, const CUpti_CallbackData *cb)
{
	int kind = launch_kind(cbid, cb->functionParams), prof;
	struct launch l;
	memset(&l, 0, sizeof(l));
	clock_gettime(CLOCK_MONOTONIC, &l.t0);
	cuptiGetTimestamp(&l.api_start);
	l.correlation = t_rt_depth > 0 ? t_rt_corr : cb->correlationId;
	l.name = kind == L_GRAPH ? GRAPH_NAME : cb->symbolName ? cb->symbolName : "(unknown)";
	pthread_mutex_lock(&g_rp_mu);
	prof = select_launch(kind, cb, &l);
	pthread_mutex_unlock(&g_rp_mu);
	t_rp.cbid = cbid;
	if (prof) {
		pthread_rwlock_wrlock(&g_rp_rw);
		if (start_session(cb, &l)) {
			t_rp.active = 1;
			t_rp.l = l;
			return;
		}
		pthread_rwlock_unlock(&g_rp_rw);
	}
	pthread_rwlock_rdlock(&g_rp_rw);
	t_rp.reading = 1;
}

/* Exit of the profiled launch: stop (user replay: replay the other passes), decode, evaluate,
 * record, release the session. */
static void launch_exit(CUpti_CallbackId cbid, const CUpti_CallbackData *cb)
{
	struct rp_ctx *c = t_rp.c;
	const struct rp_dev *d = dev_find(c->dev);
	char why[600];
	CUptiResult r;
	int rv = cb->functionReturnValue ? *(const int *)cb->functionReturnValue : 0;
	CUpti_RangeProfiler_Stop_Params sp = {.structSize = CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
	t_rp.active = 0;
	if (c->user) {
		user_exit(cbid, cb, c, &t_rp.l);
		pthread_rwlock_unlock(&g_rp_rw);
		return;
	}
	sp.pRangeProfilerObject = c->obj;
	r = cuptiRangeProfilerStop(&sp);
	if (r != CUPTI_SUCCESS) {
		why_cupti(why, sizeof(why), "cuptiRangeProfilerStop", r);
		c->broken = 1;
		write_klaunch(&t_rp.l, GD_KL_ERROR, why, (uint32_t)d->passes, NULL, NULL, 0);
	} else {
		const struct launch *l = &t_rp.l;
		finish(c, d, &l, 1, sp.isAllPassSubmitted, rv);
	}
	pthread_rwlock_unlock(&g_rp_rw);
}

void gd_rp_api(CUpti_CallbackDomain dom, CUpti_CallbackId cbid, const CUpti_CallbackData *cb)
{
	if (!cfg.on || gd_inj_disabled())
		return;
	if (t_internal) {
		/* one of user replay's own calls (the kernel again, the flush, a sync); inside the
		 * program's runtime launch call CUPTI may give it that call's id, which is the
		 * program's (g_own covers its other records; kernels go by the replay window) */
		if (cb->callbackSite == CUPTI_API_ENTER && cb->correlationId != t_own_corr)
			drop_add(cb->correlationId);
		return;
	}
	if (dom == CUPTI_CB_DOMAIN_RUNTIME_API) {
		/* runtime launches only (inject.c's recorded subset reaches here too) */
		if (!rt_launch_name(cb->functionName))
			return;
		if (cb->callbackSite == CUPTI_API_ENTER) {
			if (t_rt_depth++ == 0)
				t_rt_corr = cb->correlationId;
		} else if (t_rt_depth > 0) {
			t_rt_depth--;
		}
		return;
	}
	if (dom == CUPTI_CB_DOMAIN_DRIVER_API && cbid < sizeof(g_batch_cb) && g_batch_cb[cbid] &&
	    cb->callbackSite == CUPTI_API_ENTER && !t_rp.active && !t_rp.reading &&
	    __atomic_load_n(&g_npend, __ATOMIC_RELAXED) > 0) {
		/* a call that ends the waiting batches (batch_call) */
		pthread_rwlock_wrlock(&g_rp_rw);
		flush_all_batches(cb->correlationId);
		pthread_rwlock_unlock(&g_rp_rw);
	}
	if (dom == CUPTI_CB_DOMAIN_DRIVER_API && capture_kind(cbid)) {
		if (cb->callbackSite == CUPTI_API_EXIT)
			capture_exit(capture_kind(cbid), cb);
		return;
	}
	if (dom != CUPTI_CB_DOMAIN_DRIVER_API || launch_kind(cbid, NULL) == L_NONE)
		return;
	if (cb->callbackSite == CUPTI_API_ENTER) {
		if (!t_rp.active && !t_rp.reading) /* not re-entered from inside a launch */
			launch_enter(cbid, cb);
	} else if (t_rp.cbid == cbid && t_rp.active) {
		launch_exit(cbid, cb);
	} else if (t_rp.cbid == cbid && t_rp.reading) {
		t_rp.reading = 0;
		pthread_rwlock_unlock(&g_rp_rw);
	}
}

void gd_rp_resource(CUpti_CallbackId cbid, const void *data)
{
	const CUpti_ResourceData *rd = data;
	uint32_t id;
	if (!cfg.on || gd_inj_disabled() || cbid != CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING || !rd ||
	    t_rp.active || t_rp.reading)
		return;
	if (cuptiGetContextId(rd->context, &id) != CUPTI_SUCCESS)
		id = 0;
	pthread_rwlock_wrlock(&g_rp_rw);
	for (int i = 0; i < RP_MAX_CTX; i++) {
		struct rp_ctx *c = &g_ctx[i];
		if (!c->used || (id ? c->id != id : c->ctx != rd->context))
			continue;
		flush_batch(c, 0, NULL, 0); /* the context is still whole while its destruction starts */
		free(c->pend);
		if (c->obj) {
			CUpti_RangeProfiler_Disable_Params p = {.structSize = CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE};
			CUptiResult r;
			p.pRangeProfilerObject = c->obj;
			if ((r = cuptiRangeProfilerDisable(&p)) != CUPTI_SUCCESS)
				rp_dbg("cuptiRangeProfilerDisable: %s", cupti_text(r));
		}
		free(c->image);
		/* the slot is free again: CUPTI never reuses a context id, so no later launch
		 * can find this state */
		memset(c, 0, sizeof(*c));
	}
	pthread_rwlock_unlock(&g_rp_rw);
}
