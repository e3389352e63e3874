/* NCCL and the driver's memory calls through dlopen, and the collective benchmark; see nccl.h.
 * Only the NCCL functions used are declared (from nccl.h of NCCL 2.28; the API has kept these
 * since 2.7): enums are passed as int, communicators and streams as opaque pointers. */
#include "gpu/nccl.h"

#include "core/status.h"
#include "gpu/cudrv.h"

#include <dlfcn.h>
#include <glob.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* ---- the collectives: names, shapes, formulas, data ------------------------------------- */

static const char *const names[GD_COLL_COUNT] = {"AllReduce", "AllGather", "ReduceScatter", "Broadcast", "AllToAll"};
static const char *const keys[GD_COLL_COUNT] = {"allreduce", "allgather", "reducescatter", "broadcast", "alltoall"};

const char *gd_coll_name(int c) { return c >= 0 && c < GD_COLL_COUNT ? names[c] : "?"; }
const char *gd_coll_key(int c) { return c >= 0 && c < GD_COLL_COUNT ? keys[c] : "?"; }

int gd_coll_parse(const char *key)
{
	for (int c = 0; c < GD_COLL_COUNT; c++)
		if (!strcmp(key, keys[c]))
			return c;
	return -1;
}

double gd_coll_busbw_factor(int c, int n)
{
	if (n < 1)
		return NAN;
	switch (c) {
	case GD_COLL_ALLREDUCE:
		return 2.0 * (n - 1) / n;
	case GD_COLL_ALLGATHER:
	case GD_COLL_REDUCESCATTER:
	case GD_COLL_ALLTOALL:
		return (double)(n - 1) / n;
	case GD_COLL_BROADCAST:
		return 1.0; /* all the data leaves the root once, whatever n */
	default:
		return NAN;
	}
}

const char *gd_coll_factor_text(int c)
{
	return c == GD_COLL_ALLREDUCE ? "2(n-1)/n" : c == GD_COLL_BROADCAST ? "1" : "(n-1)/n";
}

int gd_coll_shape(int c, long long size, int n, struct gd_coll_shape *sh)
{
	size_t elems = size > 0 ? (size_t)size / sizeof(float) : 0, per = n > 0 ? elems / (size_t)n : 0;
	memset(sh, 0, sizeof(*sh));
	switch (c) {
	case GD_COLL_ALLREDUCE:
	case GD_COLL_BROADCAST:
		sh->count = sh->send = sh->recv = elems;
		break;
	case GD_COLL_ALLGATHER: /* count = each rank's part; S = all of them */
		sh->count = sh->send = per;
		sh->recv = per * (size_t)n;
		break;
	case GD_COLL_REDUCESCATTER: /* count = each rank's result; S = the input */
		sh->count = sh->recv = per;
		sh->send = per * (size_t)n;
		break;
	case GD_COLL_ALLTOALL: /* count = what goes to each peer; S = what each rank sends */
		sh->count = per;
		sh->send = sh->recv = per * (size_t)n;
		break;
	default:
		return -1;
	}
	if (!sh->count)
		return -1;
	sh->bytes = (double)(c == GD_COLL_ALLREDUCE || c == GD_COLL_BROADCAST ? sh->count : sh->count * (size_t)n) *
		    sizeof(float);
	return 0;
}

float gd_nccl_value(int rank, size_t i)
{
	return (float)((i * 7 + (size_t)rank * 13 + 1) % 251);
}

void gd_nccl_fill(int rank, float *buf, size_t n)
{
	/* (i * 7 + r * 13 + 1) mod 251, stepped without a division per element */
	size_t v = ((size_t)rank * 13 + 1) % 251;
	for (size_t i = 0; i < n; i++) {
		buf[i] = (float)v;
		v += 7;
		if (v >= 251)
			v -= 251;
	}
}

float gd_nccl_expected(int c, int nranks, int rank, size_t count, size_t i)
{
	float s = 0;
	switch (c) {
	case GD_COLL_ALLREDUCE:
		for (int q = 0; q < nranks; q++)
			s += gd_nccl_value(q, i);
		return s;
	case GD_COLL_ALLGATHER: /* rank q's part at q * count */
		return gd_nccl_value((int)(i / count), i % count);
	case GD_COLL_REDUCESCATTER: /* the sum of every rank's slice `rank` */
		for (int q = 0; q < nranks; q++)
			s += gd_nccl_value(q, (size_t)rank * count + i);
		return s;
	case GD_COLL_BROADCAST:
		return gd_nccl_value(0, i);
	case GD_COLL_ALLTOALL: /* from rank q: what q sent to this rank, its slice `rank` */
		return gd_nccl_value((int)(i / count), (size_t)rank * count + i % count);
	default:
		return NAN;
	}
}

long gd_nccl_check(int c, int nranks, int rank, size_t count, const float *recv, size_t n)
{
	long wrong = 0;
	if (c == GD_COLL_ALLREDUCE) {
		/* the sum, stepped: each rank's value advances by 7 mod 251 */
		size_t v[64];
		int m = nranks < 64 ? nranks : 0;
		for (int q = 0; q < m; q++)
			v[q] = ((size_t)q * 13 + 1) % 251;
		for (size_t i = 0; i < n; i++) {
			float s = 0;
			if (m) {
				for (int q = 0; q < m; q++) {
					s += (float)v[q];
					v[q] += 7;
					if (v[q] >= 251)
						v[q] -= 251;
				}
			} else {
				s = gd_nccl_expected(c, nranks, rank, count, i);
			}
			wrong += !(recv[i] == s);
		}
		return wrong;
	}
	for (size_t i = 0; i < n; i++)
		wrong += !(recv[i] == gd_nccl_expected(c, nranks, rank, count, i));
	return wrong;
}

double gd_coll_algbw(double bytes, double seconds) { return seconds > 0 ? bytes / seconds : NAN; }

double gd_coll_busbw(int c, int n, double bytes, double seconds)
{
	return gd_coll_algbw(bytes, seconds) * gd_coll_busbw_factor(c, n);
}

/* ---- loading NCCL ------------------------------------------------------------------------ */

enum { NCCL_FLOAT32 = 7, NCCL_SUM = 0 };

static struct {
	int tried, status, version;
	char why[1024], path[1024];
	void *lib;
	int (*get_version)(int *);
	int (*init_all)(void **, int, const int *);
	int (*destroy)(void *);
	int (*group_start)(void);
	int (*group_end)(void);
	int (*allreduce)(const void *, void *, size_t, int, int, void *, void *);
	int (*allgather)(const void *, void *, size_t, int, void *, void *);
	int (*reducescatter)(const void *, void *, size_t, int, int, void *, void *);
	int (*broadcast)(const void *, void *, size_t, int, int, void *, void *);
	int (*send)(const void *, size_t, int, int, void *, void *);
	int (*recv)(void *, size_t, int, int, void *, void *);
	const char *(*err)(int);
	int (*async_err)(void *, int *);
} nc;

static const char *nccl_err(int r)
{
	const char *s = nc.err ? nc.err(r) : NULL;
	return s ? s : "unknown NCCL error";
}

static int try_open(const char *path)
{
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return 0;
	nc.lib = h;
	snprintf(nc.path, sizeof(nc.path), "%s", path);
	return 1;
}

/* The first library a glob pattern names that loads. */
static int try_glob(const char *pat)
{
	glob_t g;
	int found = 0;
	if (!glob(pat, 0, NULL, &g))
		for (size_t i = 0; i < g.gl_pathc && !found; i++)
			found = try_open(g.gl_pathv[i]);
	globfree(&g);
	return found;
}

/* The copy PyTorch's wheels ship: <prefix>/lib/python3.*\/{site,dist}-packages/nvidia/<pkg>/lib,
 * for the prefix of every python3 on the PATH (a virtual environment's too), the user's site
 * and the system's. */
static int try_wheels(void)
{
	char pat[1400];
	const char *p = getenv("PATH"), *home = getenv("HOME");
	const char *fixed[] = {"/usr/lib/python3*/dist-packages", "/usr/lib/python3*/site-packages",
			       "/usr/local/lib/python3*/dist-packages", "/usr/local/lib/python3*/site-packages",
			       "/opt/*/lib/python3*/site-packages", "/opt/*/.venv/lib/python3*/site-packages", NULL};
	/* each PATH entry holding python3: its parent is a prefix */
	while (p && *p) {
		size_t len = strcspn(p, ":");
		char dir[1024], py[1100];
		struct stat st;
		if (len && len < sizeof(dir)) {
			memcpy(dir, p, len);
			dir[len] = 0;
			snprintf(py, sizeof(py), "%s/python3", dir);
			if (!stat(py, &st)) {
				char *slash = strrchr(dir, '/');
				if (slash)
					*slash = 0;
				for (int k = 0; k < 2; k++) {
					snprintf(pat, sizeof(pat), "%s/lib/python3*/%s-packages/nvidia/*/lib/libnccl.so.2", dir,
						 k ? "dist" : "site");
					if (try_glob(pat))
						return 1;
				}
			}
		}
		p += len;
		if (*p == ':')
			p++;
	}
	if (home) {
		snprintf(pat, sizeof(pat), "%s/.local/lib/python3*/site-packages/nvidia/*/lib/libnccl.so.2", home);
		if (try_glob(pat))
			return 1;
	}
	for (int k = 0; fixed[k]; k++) {
		snprintf(pat, sizeof(pat), "%s/nvidia/*/lib/libnccl.so.2", fixed[k]);
		if (try_glob(pat))
			return 1;
	}
	return 0;
}

static int find_library(void)
{
	const char *env = getenv("GPUDIAG_LIBNCCL");
	const char *toolkit[] = {"/usr/local/cuda/lib64/libnccl.so.2", "/usr/local/cuda/targets/x86_64-linux/lib/libnccl.so.2",
				 "/usr/local/cuda/targets/sbsa-linux/lib/libnccl.so.2", NULL};
	if (env && *env) {
		if (try_open(env))
			return 1;
		snprintf(nc.why, sizeof(nc.why), "no NCCL: GPUDIAG_LIBNCCL=%s cannot be loaded: %s", env, dlerror());
		return 0;
	}
	if (try_open("libnccl.so.2") || try_wheels())
		return 1;
	for (int i = 0; toolkit[i]; i++)
		if (try_open(toolkit[i]))
			return 1;
	snprintf(nc.why, sizeof(nc.why),
		 "no NCCL: libnccl.so.2 is not on the loader's path, nor in Python's site-packages (nvidia/*/lib: the "
		 "copy PyTorch's wheels ship) nor in /usr/local/cuda/lib64; install NCCL (libnccl2) or PyTorch, or set "
		 "GPUDIAG_LIBNCCL=/path/to/libnccl.so.2");
	return 0;
}

int gd_nccl_open(char *why, size_t n)
{
	if (nc.tried) {
		if (nc.status != GD_OK && why)
			snprintf(why, n, "%s", nc.why);
		return nc.status;
	}
	nc.tried = 1;
	nc.status = GD_ENOGPU;
	nc.version = -1;
	if (!find_library())
		goto out;
#define NSYM(field, name)                                                                               \
	do {                                                                                            \
		*(void **)(&nc.field) = dlsym(nc.lib, name);                                           \
		if (!nc.field) {                                                                       \
			snprintf(nc.why, sizeof(nc.why), "NCCL at %s lacks %s (NCCL 2.7 or later is needed)", \
				 nc.path, name);                                                       \
			goto out;                                                                      \
		}                                                                                      \
	} while (0)
	NSYM(get_version, "ncclGetVersion");
	NSYM(init_all, "ncclCommInitAll");
	NSYM(destroy, "ncclCommDestroy");
	NSYM(group_start, "ncclGroupStart");
	NSYM(group_end, "ncclGroupEnd");
	NSYM(allreduce, "ncclAllReduce");
	NSYM(allgather, "ncclAllGather");
	NSYM(reducescatter, "ncclReduceScatter");
	NSYM(broadcast, "ncclBroadcast");
	NSYM(send, "ncclSend");
	NSYM(recv, "ncclRecv");
	NSYM(err, "ncclGetErrorString");
#undef NSYM
	*(void **)(&nc.async_err) = dlsym(nc.lib, "ncclCommGetAsyncError"); /* optional */
	if (nc.get_version(&nc.version) != 0)
		nc.version = -1;
	nc.status = GD_OK;
out:
	if (nc.status != GD_OK && why)
		snprintf(why, n, "%s", nc.why);
	return nc.status;
}

const char *gd_nccl_path(void) { return nc.path; }
int gd_nccl_version(void) { return nc.version; }

char *gd_nccl_version_text(int code, char *buf, size_t n)
{
	if (code < 0)
		snprintf(buf, n, "unknown");
	else if (code >= 10000) /* NCCL_VERSION(X,Y,Z) = X*10000 + Y*100 + Z since 2.9 */
		snprintf(buf, n, "%d.%d.%d", code / 10000, code / 100 % 100, code % 100);
	else
		snprintf(buf, n, "%d.%d.%d", code / 1000, code / 100 % 10, code % 100);
	return buf;
}

/* ---- the driver's memory and stream calls ------------------------------------------------- */

typedef unsigned long long dptr; /* CUdeviceptr */

static struct {
	int tried, status;
	char why[512];
	void *lib;
	int (*dev_get)(int *, int);
	int (*ctx_retain)(void **, int);
	int (*ctx_release)(int);
	int (*ctx_set)(void *);
	int (*alloc)(dptr *, size_t);
	int (*free)(dptr);
	int (*htod)(dptr, const void *, size_t);
	int (*dtoh)(void *, dptr, size_t);
	int (*memset8)(dptr, unsigned char, size_t);
	int (*stream_create)(void **, unsigned);
	int (*stream_sync)(void *);
	int (*stream_destroy)(void *);
} cu;

static int cu_open(char *why, size_t n)
{
	const char *path = getenv("GPUDIAG_LIBCUDA");
	if (cu.tried)
		goto out;
	cu.tried = 1;
	cu.status = GD_ENOGPU;
	if (!path || !*path)
		path = "libcuda.so.1";
	cu.lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!cu.lib) {
		snprintf(cu.why, sizeof(cu.why), "no NVIDIA driver: %s", dlerror());
		goto out;
	}
#define CSYM(field, name, alt)                                                                    \
	do {                                                                                      \
		const char *alt_ = (alt);                                                         \
		*(void **)(&cu.field) = dlsym(cu.lib, name);                                      \
		if (!cu.field && alt_)                                                            \
			*(void **)(&cu.field) = dlsym(cu.lib, alt_);                              \
		if (!cu.field) {                                                                  \
			snprintf(cu.why, sizeof(cu.why), "the driver at %s lacks %s", path, name); \
			goto out;                                                                 \
		}                                                                                 \
	} while (0)
	CSYM(dev_get, "cuDeviceGet", NULL);
	CSYM(ctx_retain, "cuDevicePrimaryCtxRetain", NULL);
	CSYM(ctx_release, "cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease");
	CSYM(ctx_set, "cuCtxSetCurrent", NULL);
	CSYM(alloc, "cuMemAlloc_v2", NULL);
	CSYM(free, "cuMemFree_v2", NULL);
	CSYM(htod, "cuMemcpyHtoD_v2", NULL);
	CSYM(dtoh, "cuMemcpyDtoH_v2", NULL);
	CSYM(memset8, "cuMemsetD8_v2", NULL);
	CSYM(stream_create, "cuStreamCreate", NULL);
	CSYM(stream_sync, "cuStreamSynchronize", NULL);
	CSYM(stream_destroy, "cuStreamDestroy_v2", "cuStreamDestroy");
#undef CSYM
	cu.status = GD_OK;
out:
	if (cu.status != GD_OK && why)
		snprintf(why, n, "%s", cu.why);
	return cu.status;
}

/* ---- the benchmark ------------------------------------------------------------------------ */

struct gpu {
	int ordinal, dev;
	void *ctx, *stream, *comm;
	dptr send, recv;
	float *host;          /* staging for its data, max_bytes */
	int retained;
};

struct gd_nccl_bench {
	int n;
	size_t max_bytes;
	struct gpu *g;
};

#define CU(call, what)                                                                                 \
	do {                                                                                           \
		int r_ = (call);                                                                       \
		if (r_) {                                                                              \
			snprintf(why, wn, "%s on GPU %d: %s", what, g->ordinal, gd_cu_error_name(r_)); \
			return GD_EFAIL;                                                               \
		}                                                                                      \
	} while (0)

static int gpu_setup(struct gpu *g, size_t bytes, char *why, size_t wn)
{
	CU(cu.dev_get(&g->dev, g->ordinal), "cuDeviceGet");
	CU(cu.ctx_retain(&g->ctx, g->dev), "cuDevicePrimaryCtxRetain");
	g->retained = 1;
	CU(cu.ctx_set(g->ctx), "cuCtxSetCurrent");
	CU(cu.stream_create(&g->stream, 1 /* CU_STREAM_NON_BLOCKING */), "cuStreamCreate");
	CU(cu.alloc(&g->send, bytes), "cuMemAlloc of the send buffer");
	CU(cu.alloc(&g->recv, bytes), "cuMemAlloc of the receive buffer");
	g->host = malloc(bytes);
	if (!g->host) {
		snprintf(why, wn, "out of host memory for %zu bytes of staging", bytes);
		return GD_EFAIL;
	}
	return GD_OK;
}

void gd_nccl_bench_free(struct gd_nccl_bench *b)
{
	if (!b)
		return;
	for (int i = 0; i < b->n; i++) {
		struct gpu *g = &b->g[i];
		if (g->comm)
			nc.destroy(g->comm);
		if (g->ctx)
			cu.ctx_set(g->ctx);
		if (g->send)
			cu.free(g->send);
		if (g->recv)
			cu.free(g->recv);
		if (g->stream)
			cu.stream_destroy(g->stream);
		if (g->retained)
			cu.ctx_release(g->dev);
		free(g->host);
	}
	free(b->g);
	free(b);
}

int gd_nccl_bench_init(struct gd_nccl_bench **out, const int *devs, int n, long long max_bytes, char *why, size_t wn)
{
	struct gd_nccl_bench *b;
	void **comms;
	int r, rc;
	*out = NULL;
	if ((rc = cu_open(why, wn)) != GD_OK)
		return rc;
	if ((rc = gd_nccl_open(why, wn)) != GD_OK)
		return rc;
	b = calloc(1, sizeof(*b));
	comms = calloc((size_t)n, sizeof(void *));
	if (!b || !comms || !(b->g = calloc((size_t)n, sizeof(*b->g)))) {
		free(comms);
		if (b)
			free(b->g);
		free(b);
		snprintf(why, wn, "out of memory");
		return GD_EFAIL;
	}
	b->n = n;
	b->max_bytes = (size_t)max_bytes;
	for (int i = 0; i < n; i++)
		b->g[i].ordinal = devs[i];
	for (int i = 0; i < n; i++)
		if ((rc = gpu_setup(&b->g[i], b->max_bytes, why, wn)) != GD_OK) {
			free(comms);
			gd_nccl_bench_free(b);
			return rc;
		}
	/* one communicator per GPU, all in this process */
	r = nc.init_all(comms, n, devs);
	if (r) {
		snprintf(why, wn, "ncclCommInitAll over %d GPU%s failed: %s", n, n == 1 ? "" : "s", nccl_err(r));
		free(comms);
		gd_nccl_bench_free(b);
		return GD_EFAIL;
	}
	for (int i = 0; i < n; i++)
		b->g[i].comm = comms[i];
	free(comms);
	*out = b;
	return GD_OK;
}

/* Each GPU's data written or checked on its own thread: a GiB per GPU copied and compared one
 * after another would take longer than the measurement. */
struct job {
	struct gd_nccl_bench *b;
	int i, c, check, rc;
	struct gd_coll_shape sh;
	long wrong;
	char why[256];
};

static void *data_job(void *arg)
{
	struct job *j = arg;
	struct gpu *g = &j->b->g[j->i];
	int r;
	j->rc = GD_OK;
	if ((r = cu.ctx_set(g->ctx))) {
		snprintf(j->why, sizeof(j->why), "cuCtxSetCurrent on GPU %d: %s", g->ordinal, gd_cu_error_name(r));
		j->rc = GD_EFAIL;
		return NULL;
	}
	if (!j->check) {
		gd_nccl_fill(j->i, g->host, j->sh.send);
		if ((r = cu.htod(g->send, g->host, j->sh.send * sizeof(float))) ||
		    (r = cu.memset8(g->recv, 0xFF, j->sh.recv * sizeof(float)))) {
			snprintf(j->why, sizeof(j->why), "writing the data on GPU %d: %s", g->ordinal, gd_cu_error_name(r));
			j->rc = GD_EFAIL;
		}
		return NULL;
	}
	if ((r = cu.dtoh(g->host, g->recv, j->sh.recv * sizeof(float)))) {
		snprintf(j->why, sizeof(j->why), "reading the result on GPU %d: %s", g->ordinal, gd_cu_error_name(r));
		j->rc = GD_EFAIL;
		return NULL;
	}
	j->wrong = gd_nccl_check(j->c, j->b->n, j->i, j->sh.count, g->host, j->sh.recv);
	return NULL;
}

static int data_all(struct gd_nccl_bench *b, int c, const struct gd_coll_shape *sh, int check, long *wrong, char *why,
		    size_t wn)
{
	struct job *jobs = calloc((size_t)b->n, sizeof(*jobs));
	pthread_t *th = calloc((size_t)b->n, sizeof(*th));
	char *started = calloc((size_t)b->n, 1);
	int rc = GD_OK;
	if (!jobs || !th || !started) {
		free(jobs);
		free(th);
		free(started);
		snprintf(why, wn, "out of memory");
		return GD_EFAIL;
	}
	for (int i = 0; i < b->n; i++) {
		jobs[i] = (struct job){.b = b, .i = i, .c = c, .check = check, .sh = *sh};
		if (pthread_create(&th[i], NULL, data_job, &jobs[i]))
			data_job(&jobs[i]); /* no thread: do it here */
		else
			started[i] = 1;
	}
	for (int i = 0; i < b->n; i++) {
		if (started[i])
			pthread_join(th[i], NULL);
		if (jobs[i].rc != GD_OK && rc == GD_OK) {
			snprintf(why, wn, "%s", jobs[i].why);
			rc = GD_EFAIL;
		}
		if (wrong)
			*wrong += jobs[i].wrong;
	}
	free(jobs);
	free(th);
	free(started);
	return rc;
}

/* One iteration: the collective on every GPU inside one group call. */
static int launch(struct gd_nccl_bench *b, int c, const struct gd_coll_shape *sh, char *why, size_t wn)
{
	int r = nc.group_start(), r2;
	for (int i = 0; i < b->n && !r; i++) {
		struct gpu *g = &b->g[i];
		const void *s = (const void *)(uintptr_t)g->send;
		void *d = (void *)(uintptr_t)g->recv;
		switch (c) {
		case GD_COLL_ALLREDUCE:
			r = nc.allreduce(s, d, sh->count, NCCL_FLOAT32, NCCL_SUM, g->comm, g->stream);
			break;
		case GD_COLL_ALLGATHER:
			r = nc.allgather(s, d, sh->count, NCCL_FLOAT32, g->comm, g->stream);
			break;
		case GD_COLL_REDUCESCATTER:
			r = nc.reducescatter(s, d, sh->count, NCCL_FLOAT32, NCCL_SUM, g->comm, g->stream);
			break;
		case GD_COLL_BROADCAST:
			r = nc.broadcast(s, d, sh->count, NCCL_FLOAT32, 0, g->comm, g->stream);
			break;
		case GD_COLL_ALLTOALL: /* as nccl-tests: a send and a receive to every peer, grouped */
			for (int p = 0; p < b->n && !r; p++) {
				size_t off = (size_t)p * sh->count * sizeof(float);
				r = nc.send((const char *)s + off, sh->count, NCCL_FLOAT32, p, g->comm, g->stream);
				if (!r)
					r = nc.recv((char *)d + off, sh->count, NCCL_FLOAT32, p, g->comm, g->stream);
			}
			break;
		}
	}
	r2 = nc.group_end();
	if (r || r2) {
		snprintf(why, wn, "nccl%s failed: %s", gd_coll_name(c), nccl_err(r ? r : r2));
		return GD_EFAIL;
	}
	return GD_OK;
}

static int sync_all(struct gd_nccl_bench *b, char *why, size_t wn)
{
	for (int i = 0; i < b->n; i++) {
		struct gpu *g = &b->g[i];
		int r = cu.stream_sync(g->stream), ar = 0;
		if (r) {
			snprintf(why, wn, "waiting for GPU %d: %s", g->ordinal, gd_cu_error_name(r));
			return GD_EFAIL;
		}
		if (nc.async_err && nc.async_err(g->comm, &ar) == 0 && ar != 0) {
			snprintf(why, wn, "NCCL reported an error on GPU %d: %s", g->ordinal, nccl_err(ar));
			return GD_EFAIL;
		}
	}
	return GD_OK;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int gd_nccl_bench_run(struct gd_nccl_bench *b, int c, long long size, int warmup, int iters,
		      struct gd_nccl_result *r, char *why, size_t wn)
{
	int rc;
	double t0;
	memset(r, 0, sizeof(*r));
	r->coll = c;
	r->size = size;
	r->seconds = r->algbw = r->busbw = NAN;
	if (gd_coll_shape(c, size, b->n, &r->sh)) {
		r->skipped = 1;
		return GD_OK;
	}
	if ((r->sh.send > r->sh.recv ? r->sh.send : r->sh.recv) * sizeof(float) > b->max_bytes) {
		snprintf(why, wn, "%lld bytes do not fit the %zu-byte buffers", size, b->max_bytes);
		return GD_EFAIL;
	}
	if ((rc = data_all(b, c, &r->sh, 0, NULL, why, wn)) != GD_OK)
		return rc;
	for (int i = 0; i < warmup; i++)
		if ((rc = launch(b, c, &r->sh, why, wn)) != GD_OK)
			return rc;
	if ((rc = sync_all(b, why, wn)) != GD_OK)
		return rc;
	/* as nccl-tests: the host clock around the iterations and the wait for their end */
	t0 = now_s();
	for (int i = 0; i < iters; i++)
		if ((rc = launch(b, c, &r->sh, why, wn)) != GD_OK)
			return rc;
	if ((rc = sync_all(b, why, wn)) != GD_OK)
		return rc;
	r->seconds = (now_s() - t0) / iters;
	r->algbw = gd_coll_algbw(r->sh.bytes, r->seconds);
	r->busbw = gd_coll_busbw(c, b->n, r->sh.bytes, r->seconds);
	return data_all(b, c, &r->sh, 1, &r->wrong, why, wn);
}
