/* The replays of `gpudiag run --metrics` cut out of the analysed timeline (replaycut.h): which
 * parts of a profiled launch's call are cut (not the busy time inside it), the clock after the
 * cut, and the idle rule on a loop whose three profiled launches the trace shows as 150 ms of
 * GPU idle each: it fires on the uncut timeline and not on the cut one, where the 3 ms gaps
 * after each replay (the GPU's queue drained by it, refilled by the host) are not judged. */
#include "analysis/analysis.h"
#include "analysis/replaycut.h"
#include "core/status.h"
#include "core/test.h"

#include <stdlib.h>
#include <string.h>

#define US 1000LL
#define MS 1000000LL

enum { ITERS = 60, PROF0 = 20, NPROF = 3 };
static const int64_t SAVE = 2 * MS, PASSES = 150 * MS; /* a profiled call: save before, passes after */
static const int64_t REFILL = 3 * MS; /* the host's time to its next launch after a profiled call */
static int64_t k_start[ITERS];
static int64_t cut_before[ITERS + 1]; /* what is cut before kernel i starts; [ITERS]: in all */

static struct gd_papi *api(struct gd_profile *p, int64_t start, int64_t end, uint32_t corr)
{
	struct gd_papi *a = gd_profile_add_api(p);
	a->start = start;
	a->end = end;
	a->name = gd_profile_intern(p, "cudaLaunchKernel_v7000");
	a->cat = GD_API_LAUNCH;
	a->corr = corr;
	return a;
}

/* A GPU-bound loop of 1 ms kernels; launches PROF0 .. PROF0+NPROF-1 profiled with status st:
 * their call holds the save, the kernel and the passes, the host blocked in it meanwhile.
 * late: the call's recorded start after the save (as captures before the start was taken
 * first), its profiling time (profile_ns) the whole of it. */
static void build_as(struct gd_profile *p, int st, int late)
{
	int64_t h = 1000 * MS, gpu = 0;
	gd_profile_init(p);
	gd_profile_add_device(p);
	p->dev[0].sm_count = 132;
	p->dev[0].major = 9;
	p->t_start = h - 100 * MS;
	for (int i = 0; i < ITERS; i++) {
		int prof = i >= PROF0 && i < PROF0 + NPROF;
		struct gd_pkernel *k = gd_profile_add_kernel(p);
		int64_t call = prof ? SAVE + 5 * US : 5 * US;
		k->start = h + call > gpu ? h + call : gpu;
		/* cut: the GPU-idle part of the call before its kernel (none while the GPU still
		 * drains what the host queued ahead), and the passes after it */
		cut_before[i] = i ? cut_before[i - 1] + (i > PROF0 && i <= PROF0 + NPROF ? PASSES : 0) : 0;
		if (prof)
			cut_before[i] += k->start - (h > gpu ? h : gpu);
		k->end = k->start + 1 * MS;
		k->name = k->dname = gd_profile_intern(p, "k_step");
		k->grid[0] = 1320, k->grid[1] = k->grid[2] = 1;
		k->block[0] = 256, k->block[1] = k->block[2] = 1;
		k->regs = 32;
		k->stream = 7;
		k->corr = (uint32_t)(i + 1);
		k_start[i] = k->start;
		gpu = k->end;
		api(p, prof && late ? h + SAVE : h, prof ? k->end + PASSES : h + 5 * US, k->corr);
		if (prof) {
			struct gd_klaunch *l = gd_profile_add_klaunch(p);
			l->profile_ns = k->end + PASSES - h;
			l->corr = k->corr;
			l->name = k->name;
			l->status = st;
			l->passes = st == GD_KL_OK ? 10 : 0;
			h = k->end + PASSES + REFILL;
		} else {
			h += 10 * US;
		}
	}
	cut_before[ITERS] = cut_before[ITERS - 1];
	for (int64_t t = 1000 * MS; t < gpu; t += 50 * MS) {
		struct gd_pnvml *n = gd_profile_add_nvml(p);
		n->t = t;
		n->util_gpu = 100;
		n->sm_mhz = 1980;
	}
	/* an NVTX range over the whole loop, and the capture's end after it */
	struct gd_pnvtx *r = gd_profile_add_nvtx(p);
	r->start = 1000 * MS - 1 * MS;
	r->end = gpu + 1 * MS;
	r->name = gd_profile_intern(p, "train");
	p->t_end = gpu + 50 * MS;
	gd_profile_finish(p);
}

static void build(struct gd_profile *p, int st) { build_as(p, st, 0); }

static void check_map(void)
{
	/* two calls of two threads overlap; the busy interval [50, 60) inside the second is kept */
	struct gd_profile p;
	struct gd_summary s;
	struct gd_replay_cut c;
	gd_profile_init(&p);
	gd_profile_add_device(&p);
	struct gd_pkernel *k = gd_profile_add_kernel(&p);
	k->start = 50 * MS, k->end = 60 * MS;
	k->name = k->dname = gd_profile_intern(&p, "k");
	k->corr = 2;
	api(&p, 10 * MS, 40 * MS, 1);
	api(&p, 30 * MS, 70 * MS, 2);
	api(&p, 80 * MS, 90 * MS, 3); /* a call that was not replayed: not cut */
	for (uint32_t corr = 1; corr <= 3; corr++) {
		struct gd_klaunch *l = gd_profile_add_klaunch(&p);
		l->corr = corr;
		l->status = corr == 3 ? GD_KL_SKIP_LIMIT : corr == 2 ? GD_KL_ERROR : GD_KL_OK;
	}
	gd_profile_finish(&p);
	CHECK_INT(gd_summary_compute(&p, &s), GD_OK);
	CHECK_INT(gd_replay_cut_find(&p, &s, &c), GD_OK);
	CHECK_INT(c.n, 2); /* [10, 50) merged from both calls, and [60, 70) */
	CHECK_INT(c.iv[0].start, 10 * MS);
	CHECK_INT(c.iv[0].end, 50 * MS);
	CHECK_INT(c.iv[1].start, 60 * MS);
	CHECK_INT(c.iv[1].end, 70 * MS);
	CHECK_INT(c.total_ns, 50 * MS);
	CHECK_INT(c.launches, 2);
	CHECK_INT(gd_replay_cut_map(&c, 5 * MS), 5 * MS);   /* before: as it was */
	CHECK_INT(gd_replay_cut_map(&c, 25 * MS), 10 * MS); /* inside: the cut's start */
	CHECK_INT(gd_replay_cut_map(&c, 50 * MS), 10 * MS); /* the kernel: its length kept */
	CHECK_INT(gd_replay_cut_map(&c, 60 * MS), 20 * MS);
	CHECK_INT(gd_replay_cut_map(&c, 65 * MS), 20 * MS);
	CHECK_INT(gd_replay_cut_map(&c, 100 * MS), 50 * MS); /* after: 50 ms earlier */
	gd_replay_cut_apply(&p, &c);
	CHECK_INT(p.k[0].start, 10 * MS);
	CHECK_INT(p.k[0].end, 20 * MS);
	CHECK_INT(p.a[2].start, 30 * MS);
	gd_replay_cut_free(&c);
	gd_summary_free(&s);
	gd_profile_free(&p);

	/* a batch's window (--metrics-batch) inside a synchronisation, no launch of its own
	 * replayed there: the window cut, less the kernel still running in it [50, 60) */
	gd_profile_init(&p);
	gd_profile_add_device(&p);
	k = gd_profile_add_kernel(&p);
	k->start = 50 * MS, k->end = 60 * MS;
	k->name = k->dname = gd_profile_intern(&p, "k");
	k->corr = 2;
	api(&p, 40 * MS, 100 * MS, 7); /* the synchronisation the batch's passes ran in */
	p.rw = calloc(1, sizeof(*p.rw));
	CHECK(p.rw != NULL);
	p.rw[0].start = 45 * MS, p.rw[0].end = 95 * MS, p.nrw = 1;
	gd_profile_finish(&p);
	CHECK_INT(gd_summary_compute(&p, &s), GD_OK);
	CHECK_INT(gd_replay_cut_find(&p, &s, &c), GD_OK);
	CHECK_INT(c.n, 2);
	CHECK_INT(c.iv[0].start, 45 * MS);
	CHECK_INT(c.iv[0].end, 50 * MS);
	CHECK_INT(c.iv[1].start, 60 * MS);
	CHECK_INT(c.iv[1].end, 95 * MS);
	CHECK_INT(c.total_ns, 40 * MS);
	CHECK_INT(c.launches, 0); /* no profiled launch's call was cut */
	gd_replay_cut_free(&c);
	gd_summary_free(&s);
	gd_profile_free(&p);

	/* no profiled launch, or none replayed: nothing cut */
	build(&p, GD_KL_SKIP_GRAPH);
	CHECK_INT(gd_summary_compute(&p, &s), GD_OK);
	CHECK_INT(gd_replay_cut_find(&p, &s, &c), GD_OK);
	CHECK_INT(c.n, 0);
	CHECK_INT(c.total_ns, 0);
	gd_replay_cut_free(&c);
	gd_summary_free(&s);
	gd_profile_free(&p);
}

static const struct gd_finding *finding(const struct gd_analysis *a, const char *id)
{
	for (int i = 0; i < GD_R_COUNT; i++)
		if (!strcmp(a->v.f[i].id, id))
			return &a->v.f[i];
	return NULL;
}

static double evidence(const struct gd_finding *f, const char *key)
{
	for (int i = 0; f && i < f->nev; i++)
		if (!strcmp(f->ev[i].key, key))
			return f->ev[i].value;
	return NAN;
}

int main(void)
{
	struct gd_analysis a;
	const struct gd_finding *idle, *lim;
	int64_t cut;
	gd_set_quiet(1);
	check_map();

	/* the control: the same timeline, its long calls not replays (skipped launches) */
	memset(&a, 0, sizeof(a));
	build(&a.p, GD_KL_SKIP_GRAPH);
	CHECK_INT(gd_analysis_of(&a), GD_OK);
	idle = finding(&a, "gpu_idle");
	CHECK(idle && idle->state == GD_FIRED && idle->severity >= GD_SEV_WARN);
	CHECK_NEAR(a.s.replay_cut_ns, 0, 0);
	CHECK(isnan(evidence(finding(&a, "profiler_limits"), "replay_cut_ns")));
	gd_analysis_free(&a);

	/* replayed: the save and the passes cut, the kernels' times kept */
	memset(&a, 0, sizeof(a));
	build(&a.p, GD_KL_OK);
	cut = cut_before[ITERS];
	/* the first profiled call's save overlaps the kernels queued before it; the next two's
	 * do not: three times the passes, twice a save and its launch */
	CHECK_INT(cut, 3 * PASSES + 2 * (SAVE + 5 * US));
	CHECK_INT(gd_analysis_of(&a), GD_OK);
	CHECK_NEAR(a.s.replay_cut_ns, (double)cut, 0);
	CHECK_INT(a.s.replay_cut_launches, NPROF);
	for (int i = 0; i < ITERS; i++)
		CHECK_INT(a.p.k[i].start, k_start[i] - cut_before[i]);
	CHECK_INT(a.p.k[PROF0].start, k_start[PROF0]);
	CHECK_INT(a.p.k[ITERS - 1].end - a.p.k[ITERS - 1].start, 1 * MS);
	CHECK_NEAR(a.s.kernel_ns, ITERS * 1.0 * MS, 0);
	CHECK_NEAR(a.s.span_ns, (double)(k_start[ITERS - 1] + 1 * MS - k_start[0]) - (double)cut, 0);
	CHECK_INT(a.p.nv[0].end - a.p.nv[0].start, (k_start[ITERS - 1] + 2 * MS) - (1000 * MS - 1 * MS) - cut);
	CHECK_INT(a.p.t_end - a.p.t_start, (k_start[ITERS - 1] + 1 * MS + 50 * MS) - (900 * MS) - cut);
	idle = finding(&a, "gpu_idle");
	CHECK(idle && !(idle->state == GD_FIRED && idle->severity >= GD_SEV_WARN));
	/* after each replay the host's refill; the next profiled call's save is cut, the last one
	 * is followed by an ordinary 5 µs launch */
	CHECK_NEAR(evidence(idle, "replay_idle_ns"), NPROF * REFILL + 5 * US, 0);
	lim = finding(&a, "profiler_limits");
	CHECK_NEAR(evidence(lim, "replay_cut_ns"), (double)cut, 0);
	CHECK(lim && lim->state == GD_FIRED && lim->severity == GD_SEV_INFO);
	CHECK(lim && strstr(lim->advice, "--metrics-from") != NULL);
	gd_analysis_free(&a);

	/* the call's recorded start after its save: the profiling time takes the cut back to the
	 * save's start, the same cut */
	memset(&a, 0, sizeof(a));
	build_as(&a.p, GD_KL_OK, 1);
	CHECK_INT(gd_analysis_of(&a), GD_OK);
	CHECK_NEAR(a.s.replay_cut_ns, (double)cut, 0);
	for (int i = 0; i < ITERS; i++)
		CHECK_INT(a.p.k[i].start, k_start[i] - cut_before[i]);
	idle = finding(&a, "gpu_idle");
	CHECK(idle && !(idle->state == GD_FIRED && idle->severity >= GD_SEV_WARN));
	gd_analysis_free(&a);
	return TEST_DONE();
}
