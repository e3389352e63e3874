/* A stand-in for libnccl.so.2 for the CPU tier (`gpudiag nccl` end to end with no GPU; issue 22).
 * Communicators of one process (ncclCommInitAll) over "device" buffers that the mock driver
 * (mock_cuda.c) allocates in host memory: every collective really moves and sums float32 data,
 * at ncclGroupEnd, so gpudiag's element-by-element check sees right or wrong results.
 *   MOCK_NCCL_FAIL=init|allreduce  ncclCommInitAll / ncclAllReduce return ncclSystemError /
 *                                  ncclInternalError
 *   MOCK_NCCL_CORRUPT=1            every AllReduce adds 1 to element 0 of rank 0's result
 *   MOCK_NCCL_REQUIRE_NVLS_OFF=1   ncclCommInitAll fails unless NCCL_NVLS_ENABLE is "0" (it checks
 *                                  that gpudiag keeps NVLink multicast off)
 *   MOCK_NCCL_SLEEP_US=N           each group of operations takes at least N µs */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { ok = 0, sys_error = 2, internal = 3, invalid_argument = 4, invalid_usage = 5 };
enum { FLOAT32 = 7, SUM = 0 };
enum { AR, AG, RS, BC, SEND, RECV };

struct ncclComm {
	int rank, n;
	struct ncclComm *first; /* the world's rank 0 */
};

struct op {
	int kind;
	const float *s;
	float *d;
	size_t count;
	int root, peer;
	struct ncclComm *c;
	int done;
};

static struct op q[8192];
static int nq, depth;

static int env_is(const char *k, const char *v)
{
	const char *e = getenv(k);
	return e && !strcmp(e, v);
}

int ncclGetVersion(int *v);
const char *ncclGetErrorString(int r);
int ncclCommInitAll(struct ncclComm **comms, int n, const int *devs);
int ncclCommDestroy(struct ncclComm *c);
int ncclCommGetAsyncError(struct ncclComm *c, int *e);
int ncclGroupStart(void);
int ncclGroupEnd(void);
int ncclAllReduce(const void *s, void *d, size_t count, int type, int op, struct ncclComm *c, void *stream);
int ncclAllGather(const void *s, void *d, size_t count, int type, struct ncclComm *c, void *stream);
int ncclReduceScatter(const void *s, void *d, size_t count, int type, int op, struct ncclComm *c, void *stream);
int ncclBroadcast(const void *s, void *d, size_t count, int type, int root, struct ncclComm *c, void *stream);
int ncclSend(const void *s, size_t count, int type, int peer, struct ncclComm *c, void *stream);
int ncclRecv(void *d, size_t count, int type, int peer, struct ncclComm *c, void *stream);

int ncclGetVersion(int *v)
{
	*v = 22809;
	return ok;
}

const char *ncclGetErrorString(int r)
{
	return r == sys_error ? "unhandled system error (mock)" : r == internal ? "internal error (mock)"
	       : r == invalid_usage ? "invalid usage (mock)" : r == invalid_argument ? "invalid argument (mock)"
	       : "no error";
}

int ncclCommInitAll(struct ncclComm **comms, int n, const int *devs)
{
	struct ncclComm *w;
	(void)devs;
	if (env_is("MOCK_NCCL_FAIL", "init"))
		return sys_error;
	if (getenv("MOCK_NCCL_REQUIRE_NVLS_OFF") && !env_is("NCCL_NVLS_ENABLE", "0"))
		return invalid_usage;
	if (n < 1 || !(w = calloc((size_t)n, sizeof(*w))))
		return invalid_argument;
	for (int i = 0; i < n; i++) {
		w[i].rank = i;
		w[i].n = n;
		w[i].first = w;
		comms[i] = &w[i];
	}
	return ok;
}

int ncclCommDestroy(struct ncclComm *c)
{
	/* the world is freed with its last communicator: rank n-1 is destroyed last by gpudiag,
	 * but any order must work, so count down in rank 0 */
	struct ncclComm *w = c->first;
	c->rank = -1;
	for (int i = 0; i < w[0].n; i++)
		if (w[i].rank >= 0)
			return ok;
	free(w);
	return ok;
}

int ncclCommGetAsyncError(struct ncclComm *c, int *e)
{
	(void)c;
	*e = ok;
	return ok;
}

int ncclGroupStart(void)
{
	depth++;
	return ok;
}

/* The operations of kind k queued for world w, one per rank in rank order; 0 when a rank lacks
 * one (NCCL would hang: an invalid use here). */
static int gather(int k, struct ncclComm *w, struct op **per)
{
	int n = w[0].n, got = 0;
	for (int r = 0; r < n; r++)
		per[r] = NULL;
	for (int i = 0; i < nq; i++)
		if (!q[i].done && q[i].kind == k && q[i].c->first == w && !per[q[i].c->rank]) {
			per[q[i].c->rank] = &q[i];
			got++;
		}
	return got == n;
}

static int run_queue(void)
{
	struct op *per[64];
	for (int i = 0; i < nq; i++) {
		struct op *o = &q[i];
		struct ncclComm *w = o->c->first;
		int n = w[0].n;
		size_t c = o->count;
		if (o->done || o->kind == SEND || o->kind == RECV)
			continue;
		if (n > 64 || !gather(o->kind, w, per))
			return invalid_usage;
		for (int r = 0; r < n; r++)
			if (per[r]->count != c)
				return invalid_argument;
		switch (o->kind) {
		case AR: {
			float *sum = calloc(c ? c : 1, sizeof(float));
			if (!sum)
				return sys_error;
			for (int r = 0; r < n; r++)
				for (size_t j = 0; j < c; j++)
					sum[j] += per[r]->s[j];
			for (int r = 0; r < n; r++)
				memcpy(per[r]->d, sum, c * sizeof(float));
			if (env_is("MOCK_NCCL_CORRUPT", "1") && c)
				per[0]->d[0] += 1;
			free(sum);
			break;
		}
		case AG:
			for (int r = 0; r < n; r++)
				for (int p = 0; p < n; p++)
					memcpy(per[r]->d + (size_t)p * c, per[p]->s, c * sizeof(float));
			break;
		case RS:
			for (int r = 0; r < n; r++)
				for (size_t j = 0; j < c; j++) {
					float s = 0;
					for (int p = 0; p < n; p++)
						s += per[p]->s[(size_t)r * c + j];
					per[r]->d[j] = s;
				}
			break;
		case BC:
			for (int r = 0; r < n; r++)
				if (r != o->root)
					memcpy(per[r]->d, per[o->root]->s, c * sizeof(float));
			memcpy(per[o->root]->d, per[o->root]->s, c * sizeof(float));
			break;
		}
		for (int r = 0; r < n; r++)
			per[r]->done = 1;
	}
	/* point to point: each send meets the first receive posted on its peer from its rank */
	for (int i = 0; i < nq; i++) {
		struct op *s = &q[i];
		int matched = 0;
		if (s->done || s->kind != SEND)
			continue;
		for (int j = 0; j < nq && !matched; j++) {
			struct op *r = &q[j];
			if (r->done || r->kind != RECV || r->c->first != s->c->first || r->c->rank != s->peer ||
			    r->peer != s->c->rank)
				continue;
			if (r->count != s->count)
				return invalid_argument;
			memcpy(r->d, s->s, s->count * sizeof(float));
			r->done = s->done = matched = 1;
		}
		if (!matched)
			return invalid_usage;
	}
	for (int i = 0; i < nq; i++)
		if (!q[i].done)
			return invalid_usage; /* a receive nobody sent to */
	return ok;
}

int ncclGroupEnd(void)
{
	int r = ok;
	const char *sl = getenv("MOCK_NCCL_SLEEP_US");
	if (depth <= 0)
		return invalid_usage;
	if (--depth)
		return ok;
	r = run_queue();
	nq = 0;
	if (sl && atoi(sl) > 0) {
		struct timespec ts = {atoi(sl) / 1000000, (long)(atoi(sl) % 1000000) * 1000};
		nanosleep(&ts, NULL);
	}
	return r;
}

static int enqueue(int kind, const void *s, void *d, size_t count, int type, int root, int peer, struct ncclComm *c)
{
	struct op *o;
	if (type != FLOAT32)
		return invalid_argument;
	if (nq >= (int)(sizeof(q) / sizeof(q[0])))
		return internal;
	o = &q[nq++];
	*o = (struct op){kind, s, d, count, root, peer, c, 0};
	if (!depth) { /* outside a group only one rank can complete alone */
		int r = c->n == 1 ? run_queue() : invalid_usage;
		nq = 0;
		return r;
	}
	return ok;
}

int ncclAllReduce(const void *s, void *d, size_t count, int type, int op, struct ncclComm *c, void *stream)
{
	(void)stream;
	if (env_is("MOCK_NCCL_FAIL", "allreduce"))
		return internal;
	if (op != SUM)
		return invalid_argument;
	return enqueue(AR, s, d, count, type, 0, 0, c);
}

int ncclAllGather(const void *s, void *d, size_t count, int type, struct ncclComm *c, void *stream)
{
	(void)stream;
	return enqueue(AG, s, d, count, type, 0, 0, c);
}

int ncclReduceScatter(const void *s, void *d, size_t count, int type, int op, struct ncclComm *c, void *stream)
{
	(void)stream;
	if (op != SUM)
		return invalid_argument;
	return enqueue(RS, s, d, count, type, 0, 0, c);
}

int ncclBroadcast(const void *s, void *d, size_t count, int type, int root, struct ncclComm *c, void *stream)
{
	(void)stream;
	return enqueue(BC, s, d, count, type, root, 0, c);
}

int ncclSend(const void *s, size_t count, int type, int peer, struct ncclComm *c, void *stream)
{
	(void)stream;
	return enqueue(SEND, s, NULL, count, type, 0, peer, c);
}

int ncclRecv(void *d, size_t count, int type, int peer, struct ncclComm *c, void *stream)
{
	(void)stream;
	return enqueue(RECV, NULL, d, count, type, 0, peer, c);
}
