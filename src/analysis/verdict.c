/* The seventeen rules of the guide's checklist; see verdict.h and docs/verdicts.md.
 *
 * Every share is a fraction of the active GPU span (first GPU work → last GPU work), so a
 * 10 ms step and a 10 minute job are judged alike: µs bubbles matter exactly as much as
 * their share of the span. A rule that lacks the records it needs says so instead of
 * guessing. */
#include "analysis/verdict.h"
#include "analysis/framework.h"

#include "core/out.h"
#include "core/safe_int.h"
#include "core/status.h"
#include "gpu/arch.h"
#include "gpu/nvml.h"
#include "analysis/names.h"
#include "analysis/pm_steady.h"
#include "analysis/steady.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- thresholds (docs/verdicts.md) ----
 * Each says what it separates. Shares are of the judged span (the main loop's GPU span less
 * its start-up and first-launch gaps) unless said otherwise, so a threshold means the same in a
 * 10 ms step and a 10 s run. Calibration: tests/gpu/verdicts.sh (one tiny program per rule)
 * and the accuracy suite of real programs (tests/gpu/accuracy/, scores in docs/gpu-tier.md);
 * none was set from one program, and none was moved to make a program pass. */
#define MIN_SPAN_NS 1e5            /* below 100 µs of GPU activity no share means anything: a
				      few launches' jitter is the whole span */
#define SHORT_CAPTURE_NS 1e6       /* a capture under 1 ms holds at most a few iterations: said */
#define MIN_KERNELS 10             /* fewer kernels than this is not a loop to judge, only noted */
#define IDLE_WARN 0.25             /* a loop idle a quarter of its time has a host or input
				      bottleneck worth finding; below, the gaps of a busy framework
				      loop (kernel tails, small host work) */
#define IDLE_HIGH 0.50             /* idle more than busy: the host, not the GPU, sets the pace */
#define LAUNCH_MIN_SHORT 100       /* short kernels needed to call a run launch-bound: fewer are
				      a handful of set-up or reduction kernels, not a pattern */
#define LAUNCH_MIN_FRAC 0.30       /* ... and their share of all kernels: a loop of large kernels
				      with a few small ones is not launch-bound */
#define LAUNCH_WARN 0.10           /* idle before short kernels: a tenth of the loop lost to launch
				      overhead is what a CUDA graph or fusion would win back */
#define LAUNCH_HIGH 0.30
#define SYNC_MIN_CALLS 10          /* synchronising calls in the loop: fewer are checkpoints or a
				      final read-back, not a sync in the loop */
#define SYNC_WARN 0.05             /* bubbles that start inside a sync call, each up to the call's
				      length: 5 % of the loop separates a real per-step sync (the
				      accuracy suite's mask-indexing loop: 5.5 %) from a .item() that
				      costs little because the GPU had finished anyway (docs/verdicts.md:
				      2.17 ms of blocking in a 6 s idle PyTorch run) */
#define SYNC_HIGH 0.20
#define PAGEABLE_WARN 0.01         /* time pageable copies in the loop lose against pinned ones:
				      1 % is the smallest a change of allocator is worth making for */
#define PAGEABLE_HIGH 0.10
#define DEFSTREAM_WARN 0.01        /* delay imposed on blocking streams: any measurable
				      serialisation (1 %) is a bug with a one-line fix (a stream flag) */
#define DEFSTREAM_HIGH 0.20        /* a fifth of the loop lost to serialisation */
#define HOT_KERNEL_SHARE 0.05      /* a kernel with ≥ 5 % of kernel time is hot: below, fixing it
				      cannot move the total */
#define OCC_LOW 0.25               /* theoretical occupancy below a quarter (16 of 64 warps) leaves
				      too few warps to hide memory latency in most kernels */
#define GRID_IDLE_MIN 0.01         /* SMs idle while a small-grid kernel ran, time average: below
				      1 % is a tail or a concurrent neighbour, not an idle GPU */
#define OCC_WARN 0.05              /* at stake (share of the span) for a warning, else info */
#define MEMBOUND_INFO 0.30         /* memory-bound kinds, share of kernel time: a note from 30 %
				      (every real model has normalisation and elementwise work; in the
				      clean programs of the accuracy suite it stays a note) */
#define MEMBOUND_WARN 0.50         /* a warning only when they dominate (half the kernel time) */
#define TENSOR_WARN 0.10           /* FP32 SIMT GEMM/conv, share of kernel time: a tenth on CUDA
				      cores where tensor cores would run it 8–16× faster */
#define TENSOR_HIGH 0.40
/* Measured counters (issue 18): per-kernel means of the PM samples attributed to a kernel
 * (pm_metrics.h), in % of each unit's sustained peak. The model is Nsight Compute's
 * Speed-of-Light rule: a unit above 60 % of its peak is the candidate bottleneck; with every
 * unit below it, the kernel waits on latency. */
#define PM_BOUND_PCT 60.0          /* DRAM (or L2) at ≥ 60 % of peak: that unit is the bottleneck
				      (ncu's SOL rule); below, the kernel leaves bandwidth unused, so
				      its name's "memory-bound" kind is not what limits it */
#define PM_MEM_MARGIN_PCT 20.0     /* ... and DRAM at least 20 points above SM issue and the tensor
				      pipe: closer, both sides are near their peak (balanced), and
				      moving fewer bytes alone would not make it faster */
#define PM_TENSOR_IDLE_PCT 5.0     /* tensor pipe active < 5 % in a GEMM/conv: its matrix math ran on
				      CUDA cores (a tensor-core GEMM keeps the pipe busy most of its
				      time; a few % is a prologue or a handful of MMAs) */
#define PM_SM_BUSY_PCT 80.0        /* SM active ≥ 80 %: nearly every SM held warps all the time, so
				      the grid filled the GPU (small grids are low_occupancy's) */
#define PM_ISSUE_LOW_PCT 30.0      /* SM issue < 30 %: those warps issued in fewer than a third of
				      the cycles: most of the time they waited */
#define PM_PIPE_LOW_PCT 40.0       /* DRAM and tensor pipe < 40 % (two thirds of the SOL line): no
				      throughput unit near its peak, so the waiting is latency
				      (dependent loads, barriers, atomics), not bandwidth. Not lower:
				      dependent random loads still move whole 32-byte sectors — a
				      pointer chase on the H200 read DRAM at 31 % with issue at 0.2 %
				      (docs/gpu-metrics.md) — while bandwidth-bound kernels sit far
				      above (a copy: 86 %) */
#define LATENCY_WARN 0.25          /* latency-bound hot kernels, share of the span: a quarter of the
				      run (the idle rule's line) is worth restructuring kernels for;
				      below, a note */
#define LATENCY_HIGH 0.50          /* more than half the run in kernels whose units mostly wait */
#define THROTTLE_MIN_FRAC 0.05     /* share of NVML samples with a slowing reason: fewer are the
				      clock boost settling, not throttling */
#define THROTTLE_WARN 0.05         /* share of time × clock lost (a fifth of it for thermal/hw) */
#define CLOCK_MHZ_MAX 100000       /* a clock above 100 GHz is a corrupt record, not a GPU: ignored */
#define MEM_WARN 0.90              /* device memory used: above 90 % the allocator starts to fail
				      or fragment under a changing batch */
#define MEM_HIGH 0.97
#define ALLOC_OUT_OF_MEMORY 2      /* an allocation's return value: CUDA_ERROR_OUT_OF_MEMORY and
				      cudaErrorMemoryAllocation are both 2 */
#define CHURN_MIN_CALLS 100        /* allocation calls in the loop: fewer are set-up, not churn */
#define CHURN_WARN 0.05            /* ... and the share of the loop they take */
#define COMM_INFO 0.02             /* NCCL time not overlapped by compute: a note from 2 % */
#define COMM_WARN 0.10             /* a tenth of the loop waiting on communication is the §12 case */
#define COMM_HIGH 0.30
/* Stragglers (issue 22; the matching in ranks.c). The stake is the time the other ranks' NCCL
 * kernels spent waiting for the straggler to start its own, of their GPU span: the same
 * lines as communication, since it is the same time seen from its cause. */
#define STRAG_MIN_COLL 10          /* collectives judged (compute before them on every rank): fewer
				      are start-up (an initial broadcast, a barrier), not a loop */
#define STRAG_CONSISTENT 0.50      /* the straggler was last in at least half of the judged
				      collectives it took part in: below, the last rank changes from
				      one collective to the next (jitter), and no one rank is to fix */
#define STRAG_INFO 0.02
#define STRAG_WARN 0.10
#define STRAG_HIGH 0.30
/* Per-kernel counters (issue 19, `gpudiag run --metrics`; the view s->kc of kcounters.h): the
 * medians over each kernel's profiled launches. The lines follow Nsight Compute's rules where
 * it has one (its section rules "UncoalescedGlobalAccess", "ThreadDivergence", "Occupancy"
 * and the Speed-of-Light/roofline sections), so a user who opens ncu on the kernel reads the
 * same verdict. */
#define KC_USED_LOW_PCT 50.0       /* bytes used per global sector fetched < 50 %: more than half of
				      every 32-byte sector moved was never read; above, a misaligned or
				      partly strided access (e.g. a 2-of-3 struct field) wastes a little */
#define KC_SECTORS_HIGH 8.0        /* ... and sectors per request > 8: twice the ideal 4 of a warp's
				      32 × 4-byte unit-stride access (128 B = 4 sectors). Not lower:
				      8-byte unit-stride accesses (double, float2) take exactly 8,
				      fully used, and a misaligned 4-byte one takes 5. The used % rules
				      out 16-byte vector loads (float4: 16 sectors, all used) */
#define KC_IDEAL_SECTORS 4.0       /* 32 threads × 4 B = 128 B = 4 sectors of 32 B */
#define KC_TPI_LOW 24.0            /* threads per executed instruction < 24 of 32: a quarter of the
				      lanes idle on average (ncu's ThreadDivergence rule line); above,
				      loop tails and bounds checks */
#define KC_STAKE_INFO 0.01         /* uncoalesced and divergence: time at stake (its time × the
				      share of bytes wasted or lanes idle), share of the span: a note
				      from 1 %, */
#define KC_STAKE_WARN 0.05         /* a warning from 5 % (the occupancy rule's line: a change to one
				      kernel's access pattern is worth it for a twentieth of the run), */
#define KC_STAKE_HIGH 0.25         /* high from a quarter */
#define KC_OCC_RATIO 0.80          /* achieved occupancy < 80 % of the theoretical: the SMs held a
				      fifth fewer warps than the launch allows, over the kernel's time:
				      a tail wave or blocks of unequal work (ncu's Occupancy rule flags
				      a large gap between the two); above, the ramp-up and drain any
				      kernel has */
#define KC_AT_ROOF_PCT 70.0        /* a memory- or compute-bound kernel at ≥ 70 % of its ceiling is
				      at the roof: only fewer bytes (or FLOPs) make it faster; below, it
				      is bound but leaves some of the roof unused (access pattern,
				      bytes in flight) */
#define KC_TENSOR_FP_PCT 10.0      /* a GEMM-like kernel without tensor instructions does its matrix
				      math on the CUDA cores when its FP32 + FP16 FLOP/s reach ≥ 10 %
				      of the FP32 CUDA-core ceiling; below, it hardly computes (an
				      integer or data-movement kernel named gemm) and tensor cores would
				      not change its time */
#define KC_TENSOR_FP_MIN 1e8       /* ... with no ceiling known: ≥ 10^8 FP32/FP16 FLOPs per launch (a
				      470³ GEMM); fewer is a launch too small to gain */

static const struct {
	const char *id, *title, *guide;
} rules[GD_R_COUNT] = {
	{"gpu_idle", "GPU idle / starved", "§14 §16"},
	{"launch_bound", "Launch-bound: many tiny kernels", "§2 §9"},
	{"sync_in_loop", "Synchronisation in the loop", "§11"},
	{"pageable_memory", "Copies from pageable host memory", "§11"},
	{"default_stream", "Default-stream serialisation", "§11"},
	{"low_occupancy", "Low occupancy / small grids in hot kernels", "§6"},
	{"memory_bound", "Memory-bound kernels and fusion candidates", "§4 §9 §10"},
	{"tensor_cores_unused", "Tensor cores unused", "§3"},
	{"latency_bound", "Busy but not throughput-bound", "§10 §14"},
	{"throttling", "Clock throttling", "§14 §16"},
	{"memory_pressure", "Device memory pressure", "§15 §16"},
	{"communication", "Exposed communication (NCCL)", "§12"},
	{"profiler_limits", "What the profile could not show", "§14"},
	{"uncoalesced", "Uncoalesced global memory access", "§7"},
	{"divergence", "Warp divergence", "§8"},
	{"roofline", "Roofline position of the profiled kernels", "§10"},
	{"straggler", "Straggler rank: the others wait for it", "§12"},
};

const char *gd_sev_name(int s)
{
	return s == GD_SEV_HIGH ? "high" : s == GD_SEV_WARN ? "warning" : s == GD_SEV_INFO ? "info" : "none";
}
const char *gd_state_name(int s)
{
	return s == GD_FIRED ? "fired" : s == GD_INSUFFICIENT ? "insufficient signal"
	       : s == GD_NOT_APPLICABLE ? "not applicable" : "clear";
}

const char *gd_basis_name(int b)
{
	return b == GD_BASIS_KCOUNTERS ? "kernel counters" : b == GD_BASIS_NAMES ? "kernel names"
	       : b == GD_BASIS_COUNTERS ? "counters" : "trace";
}

/* What a basis weighs in the ranking: the kernel's own per-launch counters name a cause in one
 * kernel; the trace and the PM samples are both measured and weigh alike (as they did before
 * kernel counters existed, so older reports keep their order); kernel names are a guess. */
static int basis_weight(int b)
{
	return b == GD_BASIS_KCOUNTERS ? 2 : b == GD_BASIS_NAMES ? 0 : 1;
}

/* ---- helpers --------------------------------------------------------------------------- */
static void ev(struct gd_finding *f, const char *key, double v, const char *unit, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static void ev(struct gd_finding *f, const char *key, double v, const char *unit, const char *fmt, ...)
{
	va_list ap;
	struct gd_evidence *e;
	if (f->nev >= GD_MAX_EVIDENCE)
		return;
	e = &f->ev[f->nev++];
	snprintf(e->key, sizeof(e->key), "%s", key);
	e->value = v;
	snprintf(e->unit, sizeof(e->unit), "%s", unit);
	va_start(ap, fmt);
	vsnprintf(e->text, sizeof(e->text), fmt, ap);
	va_end(ap);
}

static void fire(struct gd_finding *f, int sev, double share, const char *advice, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static void fire(struct gd_finding *f, int sev, double share, const char *advice, const char *fmt, ...)
{
	va_list ap;
	f->state = GD_FIRED;
	f->severity = sev;
	f->share = share;
	snprintf(f->advice, sizeof(f->advice), "%s", advice);
	va_start(ap, fmt);
	vsnprintf(f->headline, sizeof(f->headline), fmt, ap);
	va_end(ap);
}

static void insufficient(struct gd_finding *f, const char *why)
{
	f->state = GD_INSUFFICIENT;
	snprintf(f->headline, sizeof(f->headline), "%s", why);
}

static void clear(struct gd_finding *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void clear(struct gd_finding *f, const char *fmt, ...)
{
	va_list ap;
	f->state = GD_CLEAR;
	va_start(ap, fmt);
	vsnprintf(f->headline, sizeof(f->headline), fmt, ap);
	va_end(ap);
}

double gd_overlap(const struct gd_interval *a, long na, const struct gd_interval *b, long nb)
{
	double t = 0;
	long i = 0, j = 0;
	while (i < na && j < nb) {
		int64_t lo = a[i].start > b[j].start ? a[i].start : b[j].start;
		int64_t hi = a[i].end < b[j].end ? a[i].end : b[j].end;
		if (hi > lo)
			t += gd_dur_ns(lo, hi);
		if (a[i].end < b[j].end)
			i++;
		else
			j++;
	}
	return t;
}

/* Merged union of the API calls whose category passes `want` (a bit mask of categories).
 * The API array is start-sorted, so merging is one pass. */
static struct gd_interval *api_union(const struct gd_profile *p, unsigned want, long *n)
{
	struct gd_interval *u = malloc(((size_t)p->na + 1) * sizeof(*u));
	long m = 0;
	if (!u) {
		*n = 0;
		return NULL;
	}
	for (long i = 0; i < p->na; i++) {
		const struct gd_papi *a = &p->a[i];
		if (!(want & (1u << a->cat)) || a->end < a->start)
			continue;
		if (m && a->start <= u[m - 1].end) {
			if (a->end > u[m - 1].end)
				u[m - 1].end = a->end;
		} else {
			u[m].start = a->start;
			u[m].end = a->end;
			m++;
		}
	}
	*n = m;
	return u;
}

static char *t(char *b, double ns) { return gd_fmt_time(b, 32, ns); }
static char *pc(char *b, double f) { return gd_fmt_pct(b, 32, f); }

/* The k-th smallest of v[0..n) (v is reordered): Hoare's selection, linear on average, so
 * medians of a million launches cost no sort. */
static double select_kth(double *v, long n, long k)
{
	long lo = 0, hi = n - 1;
	while (lo < hi) {
		double pivot = v[lo + (hi - lo) / 2];
		long i = lo, j = hi;
		while (i <= j) {
			while (v[i] < pivot)
				i++;
			while (v[j] > pivot)
				j--;
			if (i <= j) {
				double tmp = v[i];
				v[i++] = v[j];
				v[j--] = tmp;
			}
		}
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			break;
	}
	return v[k];
}

static double clamp01(double v) { return v < 0 ? 0 : v > 1 ? 1 : v; }

/* ---- the rules ------------------------------------------------------------------------- */
/* What an idle gap (between two busy intervals) is, for the rules that judge idle time. */
enum { GAP_STEADY = 0, GAP_FIRST_LAUNCH, GAP_STARTUP, GAP_TEARDOWN, GAP_REPLAY };

struct ctx {
	const struct gd_profile *p;
	const struct gd_summary *s;
	struct gd_interval *gaps; /* gaps[i]: between busy[i] and busy[i + 1] */
	long ngaps;
	double span;
	unsigned char *warm; /* per gap: a GAP_* kind; anything but GAP_STEADY is not judged */
	double *gap_sync;    /* per gap: the part of it that the sync before it cost (attribute_gaps) */
	double warm_ns;      /* idle time in gaps that are not judged */
	long nwarm;
	double startup_ns, first_launch_ns, teardown_ns, replay_ns; /* warm_ns by kind */
	long nreplay;        /* gaps of kind GAP_REPLAY */
	int64_t *rp_end;     /* the ends of the replayed launches' calls (--metrics), ascending */
	long nrp;
	long vmm_calls, vmm_unrecorded; /* cuMemCreate calls; those with no allocation record */
	double launch_median; /* the median launch call, graph launches not counted; NaN none */
	long nlaunch, ngraphlaunch; /* launch calls in it; graph launches left out */
	double judged;       /* span - warm_ns: the part of the run where the program was issuing work */
	struct gd_interval *sgaps; /* the other ("steady") gaps, in time order */
	long nsgaps;
	int judge_gpu; /* there is enough GPU activity to judge */
	int *slot;     /* string id → index in s->ks */
	struct gd_steady st;     /* the main loop (steady.h) */
	int64_t *k_launch_start; /* per kernel: its launch call's start, INT64_MAX unknown */
	int64_t *k_launch_end;   /* per kernel: its launch call's end, INT64_MIN unknown */
	int64_t *c_launch_end;   /* per copy: the end of the call that issued it, INT64_MIN unknown */
	unsigned char *k_graphlaunch; /* per kernel: 1 when the call was cudaGraphLaunch */
	/* per-kernel counters (s->kc, issue 19; kc_index) */
	long *kci;    /* the view's kernels with profiled launches, one per name */
	double *kcns; /* each one's kernel time (its name's, all launches), ns */
	/* what kernel-counter findings are weighed by: the kernel time of the view (the trace's
	 * plus the profiled launches it has no record of, kcounters.h), not the GPU span, which
	 * replaying inflates (a profiled launch is replayed once per pass, its memory saved
	 * and restored: kernels.cu's 0.64 ms of kernels spanned 3.9 s on the H200) */
	double kc_kern;
	long nkc;
	int *kc_of;   /* summary slot (s->ks) → index into s->kc.k, -1 none */
	const struct gd_ranks *rk; /* ranks, collectives and stragglers (ranks.h) */
	const struct gd_verdicts *v; /* the findings judged so far (rules run in order) */
};

static int cmp_i64(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
	return a < b ? -1 : a > b;
}

/* API call i's function name, or NULL when its name id names no string. */
static const char *api_name(const struct gd_profile *p, long i)
{
	int nm = p->a[i].name;
	return nm >= 0 && nm < p->nnames ? p->names[nm] : NULL;
}

/* Whether API call i is a cuMemCreate that succeeded: a physical allocation of CUDA's virtual
 * memory management (PyTorch's expandable_segments, NCCL's buffers). A failed one allocated
 * nothing, so no allocation record is owed for it. */
static int is_vmm_create(const struct gd_profile *p, long i)
{
	const char *nm = api_name(p, i);
	return p->a[i].cat == GD_API_ALLOC && p->a[i].ret == 0 && nm && !strncmp(nm, "cuMemCreate", 11);
}

/* Links each kernel and copy to the API call with its (pid, correlation id): one hash table
 * over the calls, looked up once per record; lists the ends of the calls gpudiag replayed
 * (c->rp_end); and counts the cuMemCreate calls that no allocation record links to
 * (c->vmm_unrecorded, of c->vmm_calls). */
static int link_launches(struct ctx *c)
{
	const struct gd_profile *p = c->p;
	size_t cap = 1;
	long *h;
	while (cap < 2 * (size_t)p->na + 2)
		cap <<= 1;
	c->k_launch_start = malloc(((size_t)p->nk + 1) * sizeof(int64_t));
	c->k_launch_end = malloc(((size_t)p->nk + 1) * sizeof(int64_t));
	c->c_launch_end = malloc(((size_t)p->nc + 1) * sizeof(int64_t));
	c->k_graphlaunch = calloc((size_t)p->nk + 1, 1);
	h = malloc(cap * sizeof(*h));
	if (!c->k_launch_start || !c->k_launch_end || !c->c_launch_end || !c->k_graphlaunch || !h) {
		free(h);
		return -1;
	}
	for (size_t i = 0; i < cap; i++)
		h[i] = -1;
#define HASH(pid, corr) ((((size_t)(uint32_t)(pid) * 2654435761u) ^ ((size_t)(corr) * 40503u)) & (cap - 1))
	for (long i = 0; i < p->na; i++) {
		size_t b = HASH(p->a[i].pid, p->a[i].corr);
		if (!p->a[i].corr)
			continue;
		while (h[b] >= 0 && !(p->a[h[b]].pid == p->a[i].pid && p->a[h[b]].corr == p->a[i].corr))
			b = (b + 1) & (cap - 1);
		if (h[b] < 0)
			h[b] = i;
	}
#define FIND(pid_, corr_, out)                                                                  \
	do {                                                                                    \
		size_t b_ = HASH(pid_, corr_);                                                  \
		(out) = -1;                                                                     \
		while ((corr_) && h[b_] >= 0) {                                                 \
			if (p->a[h[b_]].pid == (pid_) && p->a[h[b_]].corr == (corr_)) {         \
				(out) = h[b_];                                                  \
				break;                                                          \
			}                                                                       \
			b_ = (b_ + 1) & (cap - 1);                                              \
		}                                                                               \
	} while (0)
	for (long i = 0; i < p->nk; i++) {
		long a;
		FIND(p->k[i].pid, p->k[i].corr, a);
		c->k_launch_start[i] = a >= 0 ? p->a[a].start : INT64_MAX;
		c->k_launch_end[i] = a >= 0 ? p->a[a].end : INT64_MIN;
		if (a >= 0 && api_name(p, a) && strstr(api_name(p, a), "GraphLaunch"))
			c->k_graphlaunch[i] = 1;
	}
	for (long i = 0; i < p->nc; i++) {
		long a;
		FIND(p->c[i].pid, p->c[i].corr, a);
		c->c_launch_end[i] = a >= 0 ? p->a[a].end : INT64_MIN;
	}
	/* the calls gpudiag replayed (--metrics; mark_warmup's GAP_REPLAY) */
	c->rp_end = p->nkl ? malloc((size_t)p->nkl * sizeof(*c->rp_end)) : NULL;
	c->nrp = 0;
	if (p->nkl && !c->rp_end) {
		free(h);
		return -1;
	}
	for (long i = 0; i < p->nkl; i++) {
		long a;
		if (p->kl[i].status != GD_KL_OK && p->kl[i].status != GD_KL_ERROR)
			continue;
		FIND(p->kl[i].pid, p->kl[i].corr, a);
		if (a >= 0)
			c->rp_end[c->nrp++] = p->a[a].end;
	}
	if (c->nrp > 1)
		qsort(c->rp_end, (size_t)c->nrp, sizeof(*c->rp_end), cmp_i64);
	c->vmm_calls = c->vmm_unrecorded = 0;
	for (long i = 0; i < p->na; i++)
		c->vmm_calls += is_vmm_create(p, i);
	if (c->vmm_calls) {
		unsigned char *recorded = calloc((size_t)p->na, 1);
		if (!recorded) {
			free(h);
			return -1;
		}
		for (long i = 0; i < p->nm; i++) {
			long a;
			if (p->m[i].op != 1)
				continue;
			FIND(p->m[i].pid, p->m[i].corr, a);
			if (a >= 0)
				recorded[a] = 1;
		}
		for (long i = 0; i < p->na; i++)
			c->vmm_unrecorded += is_vmm_create(p, i) && !recorded[i];
		free(recorded);
	}
#undef FIND
#undef HASH
	free(h);
	return 0;
}

/* c->launch_median: the median of the launch calls (a graph launch covers a whole graph: not
 * counted). -1 when out of memory. */
static int launch_median(struct ctx *c)
{
	const struct gd_profile *p = c->p;
	double *ld = malloc(((size_t)c->s->api_n[GD_API_LAUNCH] + 1) * sizeof(double));
	c->nlaunch = c->ngraphlaunch = 0;
	c->launch_median = NAN;
	if (!ld)
		return -1;
	for (long i = 0; i < p->na; i++)
		if (p->a[i].cat == GD_API_LAUNCH && c->nlaunch < c->s->api_n[GD_API_LAUNCH]) {
			const char *nm = api_name(p, i);
			if (nm && strstr(nm, "GraphLaunch")) {
				c->ngraphlaunch++;
				continue;
			}
			ld[c->nlaunch++] = gd_dur_ns(p->a[i].start, p->a[i].end);
		}
	if (c->nlaunch)
		c->launch_median = select_kth(ld, c->nlaunch, c->nlaunch / 2);
	free(ld);
	return 0;
}

/* A kernel that ran as a node of a CUDA graph: its launch call (cudaGraphLaunch) covers the
 * whole graph, so it is never compared with that call one by one. */
static int in_graph(const struct ctx *c, long i) { return c->p->k[i].graph_id != 0 || c->k_graphlaunch[i]; }

/* GPU busy, the one definition (verdict.h, gd_verdicts.busy_fraction): the busy time (union of
 * kernel, copy and memset intervals) over the judged span, which holds all of it, so this is
 * 1 - (idle in judged gaps) / judged. NaN when nothing is judged. */
static double busy_fraction(const struct ctx *c)
{
	return c->judged > 0 ? clamp01(c->s->busy_ns / c->judged) : NAN;
}

/* Whether a gap begins where a replayed launch's call (`gpudiag run --metrics`) ended: the
 * replay synchronised the GPU, so the host's queue of work was empty when it returned and
 * the GPU waited for the host's next launch. The program, run without gpudiag, would have
 * been ahead; the gap is gpudiag's, and not judged (GAP_REPLAY). On the cut clock
 * (replaycut.h) the call ends where its kernel ended, at the gap's start. */
static int after_replay(const struct ctx *c, const struct gd_interval *g)
{
	long lo = 0, hi = c->nrp;
	while (lo < hi) { /* the first call end at or after the gap's start */
		long mid = lo + (hi - lo) / 2;
		if (c->rp_end[mid] < g->start)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < c->nrp && c->rp_end[lo] <= g->end;
}

/* The gaps that are not judged, found once for every rule (docs/verdicts.md, "The main loop"):
 *  - start-up: a gap that ends at or before the start of the main loop's first kernel
 *    (steady.c), and the time before the first GPU work;
 *  - tear-down: a gap that begins after the loop's last kernel ended, or after which no
 *    kernel starts at all (results copied back);
 *  - first launch: inside the loop, a gap after which the next kernel to start is the first
 *    launch of its name (lazy module loading, cuBLAS heuristics, autotuning in the loop's
 *    first iterations, a first evaluation pass: one-off costs that a longer run amortises);
 *  - after a replay (--metrics): a gap that begins where a replayed launch's call ended
 *    (after_replay).
 * The idle, launch and sync rules judge the rest. */
static void mark_warmup(struct ctx *c)
{
	const struct gd_profile *p = c->p;
	unsigned char *seen = calloc((size_t)p->nnames + 1, 1);
	long k = 0;
	int first = 0;
	c->warm_ns = c->startup_ns = c->first_launch_ns = c->teardown_ns = c->replay_ns = 0;
	c->nwarm = c->nreplay = 0;
	c->judged = c->span;
	c->nsgaps = 0;
	if (!seen) {
		memcpy(c->sgaps, c->gaps, (size_t)c->ngaps * sizeof(*c->gaps));
		c->nsgaps = c->ngaps;
		return;
	}
	for (long i = 0; i < c->ngaps; i++) {
		double g = gd_dur_ns(c->gaps[i].start, c->gaps[i].end);
		/* kernels are start-sorted; mark the names of those that started before this gap ends */
		while (k < p->nk && p->k[k].start < c->gaps[i].end) {
			if (p->k[k].name >= 0 && p->k[k].name < p->nnames)
				seen[p->k[k].name] = 1;
			k++;
		}
		first = k < p->nk && p->k[k].name >= 0 && p->k[k].name < p->nnames && !seen[p->k[k].name];
		if (c->st.found && c->gaps[i].end <= c->st.g0) {
			c->warm[i] = GAP_STARTUP;
			c->startup_ns += g;
		} else if (k >= p->nk || (c->st.found && c->gaps[i].start >= c->st.g1)) {
			c->warm[i] = GAP_TEARDOWN;
			c->teardown_ns += g;
		} else if (first) {
			c->warm[i] = GAP_FIRST_LAUNCH;
			c->first_launch_ns += g;
		} else if (after_replay(c, &c->gaps[i])) {
			c->warm[i] = GAP_REPLAY;
			c->replay_ns += g;
			c->nreplay++;
		} else {
			c->warm[i] = GAP_STEADY;
			c->sgaps[c->nsgaps++] = c->gaps[i];
			continue;
		}
		c->warm_ns += g;
		c->nwarm++;
	}
	free(seen);
	c->judged = c->span - c->warm_ns;
}

/* One cause per idle gap (item: the symptom must not rank above its cause). A blocking
 * synchronisation leaves the host behind the GPU by the time it was blocked: had it not
 * waited, it would have queued everything that follows that much earlier, so the steady gaps
 * after the call, in order and until the next synchronising call, are the sync's cost up to
 * that length (the first of them usually begins inside the call, while the queue drains).
 * What is left of each gap is the launch rule's (before a short kernel) or the idle rule's. */
static void attribute_gaps(struct ctx *c)
{
	long nu, j = 0;
	double budget = 0;
	struct gd_interval *u;
	for (long i = 0; i < c->ngaps; i++)
		c->gap_sync[i] = 0;
	if (!c->p->have_api)
		return;
	u = api_union(c->p, (1u << GD_API_SYNC) | (1u << GD_API_COPY_SYNC), &nu);
	if (!u)
		return;
	for (long i = 0; i < c->ngaps; i++) {
		double g = gd_dur_ns(c->gaps[i].start, c->gaps[i].end), take;
		while (j < nu && u[j].start <= c->gaps[i].start) {
			/* a new sync: the host's lead is reset. A sync at start-up (a synchronous upload
			 * before the loop) lends none: the loop's own gaps are a steady property that
			 * one early lead would only hide for its first few iterations. */
			budget = gd_steady_in(&c->st, u[j].start) ? gd_dur_ns(u[j].start, u[j].end) : 0;
			j++;
		}
		if (c->warm[i] != GAP_STEADY)
			continue;
		take = g < budget ? g : budget;
		c->gap_sync[i] = take;
		budget -= take;
	}
	free(u);
}

/* ---- the verdict line ------------------------------------------------------------------ */
/* What the host was doing over [lo, hi): the traced call that covers most of it, when it
 * covers at least half; else NULL (the host was outside traced CUDA calls). */
static const char *host_cause(const struct gd_profile *p, int64_t lo, int64_t hi, char *buf, size_t n)
{
	double best = 0;
	long bi = -1;
	for (long i = 0; i < p->na && p->a[i].start < hi; i++) {
		int64_t a = p->a[i].start > lo ? p->a[i].start : lo, b = p->a[i].end < hi ? p->a[i].end : hi;
		if (b > a && gd_dur_ns(a, b) > best) {
			best = gd_dur_ns(a, b);
			bi = i;
		}
	}
	if (bi < 0 || best < 0.5 * gd_i64_diff(hi, lo) || p->a[bi].name < 0 || p->a[bi].name >= p->nnames)
		return NULL;
	return gd_api_display_name(p->names[p->a[bi].name], buf, n);
}

/* Why a low busy share of the wall time is no problem, when it is start-up and tear-down:
 * "GPU idle 96.2 % of the wall time, 99.9 % of that start-up or tear-down: 2.74 s before the
 * first GPU work (host outside traced CUDA calls: process, context and library
 * initialisation), 220 ms in 1 first-launch gap (host in cudaMalloc), ...; the main loop kept
 * the GPU 99.7 % busy." Empty when the GPU was busy most of the wall time or the idle rule
 * judged the steady idle too high. */
static void startup_sentence(const struct ctx *c, char *out, size_t n)
{
	const struct gd_profile *p = c->p;
	const struct gd_summary *s = c->s;
	char b1[32], b2[32], b3[32], cause[96];
	const char *hc;
	double wall = s->wall_ns, idle_wall, before, after, steady = 0;
	size_t len = 0;
	out[0] = 0;
	if (!c->judge_gpu || !isfinite(wall) || wall <= 0 || p->t_end <= p->t_start)
		return;
	idle_wall = wall - s->busy_ns;
	if (idle_wall / wall < IDLE_WARN)
		return;
	for (long i = 0; i < c->nsgaps; i++)
		steady += gd_dur_ns(c->sgaps[i].start, c->sgaps[i].end);
	if (!(c->judged > 0) || steady / c->judged >= IDLE_WARN)
		return;
	before = gd_i64_diff(s->span_start, p->t_start);
	after = gd_i64_diff(p->t_end, s->span_end);
	before = before > 0 ? before : 0;
	after = after > 0 ? after : 0;
#define PUT(...) (len += (size_t)snprintf(out + len, len < n ? n - len : 0, __VA_ARGS__), len = len < n ? len : n)
	if (steady < 0.0005 * idle_wall)
		PUT("GPU idle %s of the wall time, all of it start-up or tear-down:", pc(b1, idle_wall / wall));
	else
		PUT("GPU idle %s of the wall time, %s of it start-up or tear-down:", pc(b1, idle_wall / wall),
		    pc(b2, clamp01(1 - steady / idle_wall)));
	const char *sep = " ";
	if (before >= 0.01 * idle_wall) {
		hc = host_cause(p, p->t_start, s->span_start, cause, sizeof(cause));
		PUT("%s%s before the first GPU work (%s%s)", sep, t(b1, before), hc ? "host in " : "",
		    hc ? hc : "context and library initialisation");
		sep = ", ";
	}
	/* the largest gap of each kind, with what the host was doing */
	for (int kind = GAP_STARTUP; kind >= GAP_FIRST_LAUNCH; kind--) {
		double tot = kind == GAP_STARTUP ? c->startup_ns : c->first_launch_ns, mx = 0;
		long cnt = 0, mi = -1;
		for (long i = 0; i < c->ngaps; i++)
			if (c->warm[i] == kind) {
				double g = gd_dur_ns(c->gaps[i].start, c->gaps[i].end);
				cnt++;
				if (g > mx) {
					mx = g;
					mi = i;
				}
			}
		if (mi < 0 || tot < 0.01 * idle_wall)
			continue;
		hc = host_cause(p, c->gaps[mi].start, c->gaps[mi].end, cause, sizeof(cause));
		PUT("%s%s in %ld %s (largest %s, host %s%s)", sep, t(b1, tot), cnt,
		    kind == GAP_STARTUP ? (cnt == 1 ? "gap before the main loop" : "gaps before the main loop")
					: (cnt == 1 ? "gap before a first launch" : "gaps before first launches"),
		    t(b2, mx), hc ? "in " : "", hc ? hc : "outside CUDA calls");
		sep = ", ";
	}
	if (c->teardown_ns + after >= 0.01 * idle_wall) {
		PUT("%s%s after %s", sep, t(b1, c->teardown_ns + after), c->st.found ? "the main loop" : "the last kernel");
		sep = ", ";
	}
	PUT("; the %s kept the GPU %s busy.", c->st.found ? "main loop" : "rest of the run", pc(b3, busy_fraction(c)));
#undef PUT
}

static void top_line(const struct ctx *c, struct gd_verdicts *v)
{
	char why[500];
	const struct gd_finding *top = &v->f[v->order[0]];
	if (v->nwarn) {
		snprintf(v->top_line, sizeof(v->top_line), "%s", top->headline);
		return;
	}
	if (!c->p->cupti_ok && !strcmp(c->p->untraced_status, "light")) {
		int nj = 0;
		for (int r = 0; r < GD_R_COUNT; r++)
			nj += v->f[r].state == GD_INSUFFICIENT;
		snprintf(v->top_line, sizeof(v->top_line),
			 "Light mode: no trace, by request; nothing NVML and the GPU counters show raised a warning "
			 "(%d checks need a trace and were not judged).",
			 nj);
		return;
	}
	startup_sentence(c, why, sizeof(why));
	/* the checks that applied: those of per-kernel counters only in a --metrics run */
	int nchecks = 0;
	for (int r = 0; r < GD_R_COUNT; r++)
		nchecks += v->f[r].state != GD_NOT_APPLICABLE;
	snprintf(v->top_line, sizeof(v->top_line), "No problem found: none of the %d checks raised a warning%s%s%s",
		 nchecks, v->nfired ? " (notes below)" : "", *why ? ". " : ".", why);
}

/* Light mode: is the GPU busy? From the PM samples, as the trace-based rule asks it of the
 * kernels, over the active span (first to last sample with work, so the program's start-up and
 * tear-down are not judged): the mean of GPU active (gr__cycles_active: cycles the compute
 * engine had any work — what the trace's busy time measures, at cycle resolution), else of SM
 * active. SM active alone is low also when grids are too small to fill the GPU: on the H200 a
 * clean BF16 training loop had SM active 54 % on average while its kernels kept the GPU busy
 * (2026-12-03), so it is the fallback, and the finding then says both readings. */
static void rule_idle_light(struct ctx *c, struct gd_finding *f)
{
	const struct gd_profile *p = c->p;
	char b1[32], b2[32], b3[32];
	struct gd_pm_window w = {.first = -1}, x;
	int ndev = 0, nwork = 0;
	/* one window per device (the samples are in device, then time order); the device whose
	 * steady part idled most is the one judged */
	for (long lo = 0, hi; lo < p->npm; lo = hi) {
		for (hi = lo + 1; hi < p->npm && p->pm[hi].device == p->pm[lo].device; hi++)
			;
		ndev++;
		if (gd_pm_window(p->pm, lo, hi, &x) < 0 || x.first < 0 || !(x.span_ns > 0))
			continue;
		nwork++;
		if (w.first < 0 || x.busy < w.busy)
			w = x;
	}
	if (w.first < 0) {
		insufficient(f, p->npm ? "No PM sample shows the GPU at work: its work ran before sampling began (a few "
					 "hundred ms into the run), or too little ran to judge."
				       : "Needs a trace or GPU counters: light mode recorded neither.");
		return;
	}
	double busy = w.busy, idle = 1 - busy, nf = (double)w.nidle / (double)w.n;
	const char *what = w.gr ? "GPU active" : "SM active";
	f->basis = GD_BASIS_COUNTERS;
	ev(f, "busy_fraction", busy, "fraction",
	   "%s %s on average over %ld PM samples (%s: %s to the last sample with work)", what, pc(b1, busy), w.n,
	   t(b2, w.span_ns), w.steps ? "the steady part, from the end of start-up" : "from the first");
	if (w.gr)
		ev(f, "sm_active_fraction", w.sm_busy, "fraction", "SM active %s on average over the same samples",
		   pc(b1, w.sm_busy));
	ev(f, "idle_samples_fraction", nf, "fraction", "%s of those samples with the SMs all but idle (SM active < %.0f %%)",
	   pc(b3, nf), GD_PM_WORK_PCT);
	if (w.steps)
		ev(f, "startup_ns", w.warm_ns, "ns",
		   "start-up not judged: the first %s of the active span (%s %s), ended by a step up in activity that "
		   "explains %.0f %% of the samples' variance",
		   t(b1, w.warm_ns), what, pc(b2, w.warm_busy), 100 * w.step_r2);
	else
		ev(f, "startup_ns", 0, "ns", "no start-up step in the samples: judged from the first sample with work");
	if (ndev > 1)
		ev(f, "device", w.device, "", "GPU %d, the least active of the %d sampled (%d with work)", w.device, ndev,
		   nwork);
	if (idle < IDLE_WARN) {
		clear(f, "The %s active %s of the %s (GPU counters).", w.gr ? "GPU was" : "SMs were", pc(b1, busy),
		      w.steps ? "steady part" : "active span");
		return;
	}
	fire(f, idle >= IDLE_HIGH ? GD_SEV_HIGH : GD_SEV_WARN, idle,
	     "Find what the GPU waits for: run without --light on a slice of the job (--delay S --duration S) so the "
	     "idle gaps, their host-side causes (data loading, syncs, launches) and the grid sizes can be traced "
	     "(§2, §9, §14).",
	     w.gr ? "The GPU was without work %s of the %s (GPU counters: GPU active %s on average): it waited "
		    "for the host."
		  : "The SMs were without work %s of the %s (GPU counters: SM active %s on average): the GPU waited "
		    "for work, or ran grids too small to fill it.",
	     pc(b1, idle), w.steps ? "steady part" : "active span", pc(b2, busy));
}

/* Light mode (gpudiag run --light): no trace, by request. What the GPU counters say of the
 * whole run is the evidence; the rules that need a trace say so. */
static void light_mode(struct ctx *c, struct gd_finding *f)
{
	const struct gd_profile *p = c->p;
	double sum[GD_PM_COUNT] = {0};
	long n[GD_PM_COUNT] = {0};
	for (long i = 0; i < p->npm; i++)
		for (int m = 0; m < GD_PM_COUNT; m++)
			if (isfinite(p->pm[i].v[m])) {
				sum[m] += p->pm[i].v[m];
				n[m]++;
			}
	if (p->npm > 0) {
		static const int shown[] = {GD_PM_SM_ACTIVE, GD_PM_SM_ISSUE, GD_PM_TENSOR, GD_PM_DRAM};
		for (size_t i = 0; i < sizeof(shown) / sizeof(shown[0]); i++) {
			int m = shown[i];
			if (n[m])
				ev(f, gd_pm_metrics[m].column, sum[m] / (double)n[m], "%",
				   "%s %.1f %% on average over %ld samples of the whole run (GPU counters)", gd_pm_metrics[m].label,
				   sum[m] / (double)n[m], n[m]);
		}
	} else {
		ev(f, "counters", NAN, "", "%s", p->counters[0] ? p->counters : "no GPU counters either");
	}
	f->basis = p->npm > 0 ? GD_BASIS_COUNTERS : GD_BASIS_TRACE;
	fire(f, GD_SEV_INFO, NAN,
	     "Run without --light on a representative slice (--delay S --duration S) to have every rule judged; "
	     "keep --light for long production runs (§14).",
	     "Light mode (--light): no trace was recorded, by request, so only NVML and the GPU counters were; "
	     "the rules that need a trace were not judged.");
}

static void rule_profiler(struct ctx *c, struct gd_finding *f)
{
	const struct gd_profile *p = c->p;
	char b1[32];
	int sev = GD_SEV_NONE, only_cut = 0; /* only_cut: the replays' cut is the one limit */
	char what[300] = "";
	if (!p->cupti_ok && !strcmp(p->untraced_status, "no_cuda")) {
		fire(f, GD_SEV_WARN, NAN, "Check that the program uses the GPU (a CPU-only build, CUDA_VISIBLE_DEVICES).",
		     "The program never initialised CUDA: nothing ran on the GPU, so nothing could be judged.");
		return;
	}
	if (!p->cupti_ok && !strcmp(p->untraced_status, "light")) {
		light_mode(c, f);
		return;
	}
	if (!p->cupti_ok) {
		if (p->untraced_reason[0])
			ev(f, "not_traced_reason", NAN, "", "%s", p->untraced_reason);
		fire(f, GD_SEV_HIGH, NAN,
		     "Run without another profiler attached (Nsight, PyTorch profiler) so gpudiag can trace the GPU.",
		     "The program ran unprofiled (%s): nothing about the GPU could be judged.",
		     p->untraced_status[0] ? p->untraced_status : "CUPTI was unavailable");
		return;
	}
	if (p->nk + p->nc == 0) {
		fire(f, GD_SEV_WARN, NAN, "Check that the program uses the GPU, and widen the capture range.",
		     "No GPU work was captured: no kernel or copy to judge.");
		return;
	}
	if (p->dropped > 0) {
		ev(f, "dropped_records", (double)p->dropped, "count", "%lld records were dropped by the profiler",
		   p->dropped);
		sev = GD_SEV_WARN;
		snprintf(what, sizeof(what), "%lld records were lost, so totals are lower bounds", p->dropped);
	}
	if (c->span < SHORT_CAPTURE_NS || p->nk < MIN_KERNELS) {
		ev(f, "gpu_span_ns", c->span, "ns", "GPU activity spans %s with %ld kernels", t(b1, c->span), p->nk);
		if (sev < GD_SEV_INFO)
			sev = GD_SEV_INFO;
		if (!*what)
			snprintf(what, sizeof(what), "the capture is short (%s of GPU activity, %ld kernels)",
				 t(b1, c->span), p->nk);
	}
	if (!p->have_api) {
		ev(f, "api_traced", 0, "", "CUDA API calls were not traced: launch and sync rules not judged");
		if (sev < GD_SEV_INFO)
			sev = GD_SEV_INFO;
		if (!*what)
			snprintf(what, sizeof(what), "CUDA API calls were not traced");
	}
	if (p->ns == 0) {
		ev(f, "nvml_samples", 0, "count", "no NVML samples: throttling and memory pressure not judged");
		if (sev < GD_SEV_INFO)
			sev = GD_SEV_INFO;
		if (!*what)
			snprintf(what, sizeof(what), "there are no NVML samples");
	}
	if (c->s->replay_cut_ns > 0) {
		ev(f, "replay_cut_ns", c->s->replay_cut_ns, "ns",
		   "%s of the run was gpudiag replaying %ld profiled launch%s for their counters (--metrics), the GPU "
		   "otherwise idle: cut out of the timeline the idle, launch and sync rules judge",
		   t(b1, c->s->replay_cut_ns), c->s->replay_cut_launches, c->s->replay_cut_launches == 1 ? "" : "es");
		if (sev < GD_SEV_INFO)
			sev = GD_SEV_INFO;
		if (!*what) {
			snprintf(what, sizeof(what),
				 "the timeline leaves out %s of gpudiag's own replays (--metrics); its times are on that "
				 "shorter clock",
				 t(b1, c->s->replay_cut_ns));
			only_cut = 1;
		}
	}
	if (sev == GD_SEV_NONE) {
		clear(f, "Nothing was lost: %ld kernels, %ld copies, %ld API calls, %ld NVML samples.", p->nk, p->nc,
		      p->na, p->ns);
		return;
	}
	fire(f, sev, NAN,
	     only_cut ? "For the timeline as the program ran it, profile it without --metrics, then take the counters of "
			"its hot kernels with gpudiag run --metrics-from that profile."
		      : "Capture a longer steady-state window (--delay/--duration or an NVTX range) and keep API and "
			"NVML tracing on; dropped records mean a larger buffer or fewer record kinds.",
	     "Profile limits: %s.", what);
}

static void rule_idle(struct ctx *c, struct gd_finding *f)
{
	char b1[32], b2[32], b3[32];
	const struct gd_summary *s = c->s;
	double idle, frac, in_sync = 0, in_launch = 0, in_copy = 0, in_any = 0, outside;
	long nu;
	if (!c->judge_gpu) {
		insufficient(f, "Too little GPU activity to judge idle time.");
		return;
	}
	/* judged: the span less the warm-up/tear-down gaps (mark_warmup) */
	idle = 0;
	for (long i = 0; i < c->nsgaps; i++)
		idle += gd_dur_ns(c->sgaps[i].start, c->sgaps[i].end);
	if (!(c->judged > 0)) {
		clear(f, "All %s of idle time lay in warm-up or tear-down gaps.", t(b1, c->warm_ns));
		return;
	}
	frac = clamp01(idle / c->judged);
	ev(f, "busy_fraction", busy_fraction(c), "fraction",
	   "GPU busy %s of the %s judged span (active span less warm-up)", pc(b1, busy_fraction(c)), t(b2, c->judged));
	ev(f, "idle_ns", idle, "ns", "%s idle in %ld gaps", t(b1, idle), c->nsgaps);
	if (c->st.found)
		ev(f, "loop_start_ns", gd_i64_diff(c->st.g0, s->span_start), "ns",
		   "the main loop starts %s into the GPU span, at kernel %ld (the most frequent kernel ran %ld times)",
		   t(b1, gd_i64_diff(c->st.g0, s->span_start)), c->st.k0 + 1, c->st.repeats);
	ev(f, "warmup_idle_ns", c->warm_ns, "ns",
	   "%s idle in %ld start-up/warm-up/tear-down gaps not judged (before the main loop, before a kernel's first "
	   "launch, after the loop%s)",
	   t(b1, c->warm_ns), c->nwarm, c->nreplay ? ", after gpudiag's replays" : "");
	if (c->nreplay)
		ev(f, "replay_idle_ns", c->replay_ns, "ns",
		   "of them %s in %ld gaps right after a profiled launch (--metrics): its replay drained the GPU's queue, "
		   "which the host then refilled",
		   t(b1, c->replay_ns), c->nreplay);
	if (c->nsgaps) {
		double *g = malloc((size_t)c->nsgaps * sizeof(double));
		if (g) {
			double mx = 0, med;
			for (long i = 0; i < c->nsgaps; i++) {
				g[i] = gd_dur_ns(c->sgaps[i].start, c->sgaps[i].end);
				mx = g[i] > mx ? g[i] : mx;
			}
			med = select_kth(g, c->nsgaps, c->nsgaps / 2);
			ev(f, "gap_median_ns", med, "ns", "median gap %s, largest %s", t(b1, med), t(b2, mx));
			free(g);
		}
	}
	if (c->p->have_api) {
		struct gd_interval *u;
		u = api_union(c->p, 1u << GD_API_SYNC, &nu);
		in_sync = gd_overlap(c->sgaps, c->nsgaps, u, nu);
		free(u);
		u = api_union(c->p, 1u << GD_API_LAUNCH, &nu);
		in_launch = gd_overlap(c->sgaps, c->nsgaps, u, nu);
		free(u);
		u = api_union(c->p, (1u << GD_API_COPY_SYNC) | (1u << GD_API_COPY_ASYNC), &nu);
		in_copy = gd_overlap(c->sgaps, c->nsgaps, u, nu);
		free(u);
		u = api_union(c->p, ~0u, &nu);
		in_any = gd_overlap(c->sgaps, c->nsgaps, u, nu);
		free(u);
		outside = idle - in_any;
		ev(f, "idle_host_outside_cuda_ns", outside, "ns", "%s of it the host was outside CUDA calls",
		   t(b1, outside));
		ev(f, "idle_in_launch_ns", in_launch, "ns", "%s inside launch calls", t(b1, in_launch));
		ev(f, "idle_in_sync_ns", in_sync, "ns", "%s inside synchronising calls", t(b1, in_sync));
		ev(f, "idle_in_copy_calls_ns", in_copy, "ns", "%s inside copy calls", t(b1, in_copy));
	} else {
		outside = NAN;
	}
	if (isfinite(s->wall_ns) && s->wall_ns > c->span)
		ev(f, "outside_span_ns", s->wall_ns - c->span, "ns",
		   "%s of the %s run lay before the first or after the last GPU work (start-up, tear-down)",
		   t(b1, s->wall_ns - c->span), t(b3, s->wall_ns));
	if (frac < IDLE_WARN) {
		char why[500];
		startup_sentence(c, why, sizeof(why));
		if (*why)
			clear(f, "%s", why);
		else
			clear(f, "The GPU was busy %s of the judged span (%s of warm-up/tear-down idle not judged).",
			      pc(b1, 1 - frac), t(b2, c->warm_ns));
		return;
	}
	{
		const char *cause, *advice;
		double best = outside;
		cause = "the host was busy outside CUDA (CPU-bound work or data loading)";
		advice = "Find the host work between launches: overlap data loading (DataLoader workers, pinned "
			 "memory, prefetch), move preprocessing to the GPU, cut framework overhead (CUDA Graphs, "
			 "torch.compile), and queue work ahead of the GPU.";
		if (!isfinite(outside)) {
			cause = "the cause is unknown (API calls were not traced)";
			best = 0;
		}
		if (in_launch > best) {
			best = in_launch;
			cause = "the host was inside launch calls (launch overhead)";
			advice = "Launch fewer, larger kernels: fuse, use CUDA Graphs or torch.compile (§2, §9).";
		}
		if (in_sync > best) {
			best = in_sync;
			cause = "the host was waiting in synchronising calls";
			advice = "Remove synchronisations from the loop (.item(), .cpu(), cudaDeviceSynchronize) so "
				 "the host can queue work ahead (§11).";
		}
		if (in_copy > best)
			cause = "the host was inside copy calls";
		fire(f, frac >= IDLE_HIGH ? GD_SEV_HIGH : GD_SEV_WARN, frac, advice,
		     "The GPU sat idle %s of the judged span (%s); mostly %s.", pc(b1, frac), t(b2, idle), cause);
	}
}

/* The idle gap just before each kernel that opens a busy interval, less what the sync before
 * it explains (attribute_gaps). Kernels of CUDA graphs are not compared with their launch
 * call: one cudaGraphLaunch covers every node, so their cost is the GPU-side gap between
 * dependent nodes, whose remedy is fewer nodes (fusion), not a graph. */
static void rule_launch(struct ctx *c, struct gd_finding *f)
{
	const struct gd_profile *p = c->p;
	const struct gd_summary *s = c->s;
	char b1[32], b2[32], b3[32], b4[32];
	double tl, lost = 0, short_ns = 0, graph_gap = 0, graph_ns = 0;
	long nl = 0, nshort = 0, b = 0, ngraph = 0, nplain = 0, ngl = 0;
	if (!c->judge_gpu || p->nk < MIN_KERNELS) {
		insufficient(f, "Too few kernels to judge launch overhead.");
		return;
	}
	if (!p->have_api || s->api_n[GD_API_LAUNCH] == 0) {
		insufficient(f, "Launch API calls were not traced, so launch cost cannot be compared with kernel time.");
		return;
	}
	tl = c->launch_median;
	nl = c->nlaunch;
	ngl = c->ngraphlaunch;
	for (long i = 0; i < p->nk; i++) {
		const struct gd_pkernel *k = &p->k[i];
		double d = gd_dur_ns(k->start, k->end), g = 0;
		while (b < s->nbusy && s->busy[b].start < k->start)
			b++;
		/* the steady gap that this kernel ends, less its sync part */
		if (b > 0 && b < s->nbusy && s->busy[b].start == k->start && c->warm[b - 1] == GAP_STEADY)
			g = gd_dur_ns(s->busy[b - 1].end, s->busy[b].start) - c->gap_sync[b - 1];
		if (in_graph(c, i)) {
			ngraph++;
			graph_ns += d;
			/* a gap between two nodes of the same graph (the previous kernel to start) */
			if (i > 0 && in_graph(c, i - 1) && p->k[i - 1].graph_id == k->graph_id && p->k[i - 1].corr == k->corr &&
			    p->k[i - 1].pid == k->pid)
				graph_gap += g;
			continue;
		}
		nplain++;
		if (!(d < tl))
			continue;
		nshort++;
		short_ns += d;
		lost += g;
	}
	double share = c->judged > 0 ? clamp01(lost / c->judged) : 0;
	double gshare = c->judged > 0 ? clamp01(graph_gap / c->judged) : 0;
	double rate = s->wall_ns > 0 ? (double)(nl + ngl) / (s->wall_ns * 1e-9) : NAN;
	ev(f, "launch_api_median_ns", tl, "ns", "median launch call %s (graph launches not counted)", t(b1, tl));
	ev(f, "short_kernels", (double)nshort, "count", "%ld of %ld kernels ran shorter than their launch call",
	   nshort, nplain);
	ev(f, "short_kernel_mean_ns", nshort ? short_ns / nshort : NAN, "ns", "mean short kernel %s",
	   t(b1, nshort ? short_ns / nshort : NAN));
	ev(f, "launch_rate_per_s", rate, "1/s", "%.0f launches per second", rate);
	ev(f, "idle_before_short_ns", lost, "ns",
	   "%s of GPU idle just before short kernels (not counting what a preceding sync explains)", t(b1, lost));
	if (ngraph)
		ev(f, "graph_node_gap_ns", graph_gap, "ns",
		   "%ld kernels ran in CUDA graphs (%ld graph launches, %s of kernel time); %s (%s of the judged span) "
		   "idle between dependent nodes",
		   ngraph, ngl, t(b1, graph_ns), t(b2, graph_gap), pc(b3, gshare));
	if (nshort >= LAUNCH_MIN_SHORT && nplain && (double)nshort / nplain >= LAUNCH_MIN_FRAC && share >= LAUNCH_WARN) {
		fire(f, share >= LAUNCH_HIGH ? GD_SEV_HIGH : GD_SEV_WARN, share,
		     "Fuse the small kernels, capture the loop in a CUDA Graph, or use torch.compile "
		     "(mode=\"reduce-overhead\") so one launch does the work of many (§2, §9).",
		     "Launch-bound: %ld kernels (mean %s) ran shorter than their %s launch call; the GPU waited %s "
		     "(%s of the judged span) between them.",
		     nshort, t(b1, short_ns / nshort), t(b2, tl), t(b3, lost), pc(b4, share));
		return;
	}
	if (ngraph && gshare >= LAUNCH_WARN) {
		/* already a graph: launch calls are not the cost, the nodes are (each dependent node
		 * waits for the previous one to drain and the next to be scheduled) */
		fire(f, gshare >= LAUNCH_HIGH ? GD_SEV_HIGH : GD_SEV_WARN, gshare,
		     "The loop already runs as a CUDA graph, so launch calls are not the cost: the GPU waits between "
		     "dependent nodes. Fewer, larger nodes help: fuse elementwise epilogues into the GEMMs (cuBLASLt "
		     "epilogues, CUTLASS), fuse chains of small kernels (torch.compile, Triton) (§2, §9).",
		     "%ld kernels ran inside CUDA graphs; the GPU sat idle %s (%s of the judged span) in the gaps between "
		     "dependent graph nodes.",
		     ngraph, t(b1, graph_gap), pc(b2, gshare));
		return;
	}
	clear(f, "%ld short kernels outside CUDA graphs; %s of idle before them (%s of the judged span).", nshort,
	      t(b1, lost), pc(b2, share));
}

static void rule_sync(struct ctx *c, struct gd_finding *f)
{
	const struct gd_profile *p = c->p;
	const struct gd_summary *s = c->s;
	char b1[32], b2[32], b3[32];
	long n = s->api_n[GD_API_SYNC] + s->api_n[GD_API_COPY_SYNC], nu, n_loop = 0;
	double blocked = s->api_ns[GD_API_SYNC] + s->api_ns[GD_API_COPY_SYNC], bubble = 0, gap_after = 0, blocked_loop = 0;
	struct gd_interval *u;
	long j = 0;
	if (!c->judge_gpu) {
		insufficient(f, "Too little GPU activity to judge synchronisation.");
		return;
	}
	if (!p->have_api && s->api_n[GD_API_SYNC] == 0) {
		insufficient(f, "Neither API calls nor synchronisation records were traced.");
		return;
	}
	for (long i = 0; i < p->na; i++)
		if ((p->a[i].cat == GD_API_SYNC || p->a[i].cat == GD_API_COPY_SYNC) &&
		    gd_steady_in(&c->st, p->a[i].start)) {
			n_loop++;
			blocked_loop += gd_dur_ns(p->a[i].start, p->a[i].end);
		}
	/* the stake is attribute_gaps' share of each steady gap; gap_after (evidence) is the idle
	 * that began while the host was blocked in a call. Without the sync the host would have
	 * queued the next work earlier by at most the time it was blocked, so a host that is slower
	 * than the GPU anyway loses little to its syncs: that idle is the idle rule's. */
	u = api_union(p, (1u << GD_API_SYNC) | (1u << GD_API_COPY_SYNC), &nu);
	for (long i = 0; i < c->ngaps; i++) {
		if (c->warm[i] != GAP_STEADY)
			continue;
		bubble += c->gap_sync[i];
		while (u && j < nu && u[j].end < c->gaps[i].start)
			j++;
		if (u && j < nu && u[j].start <= c->gaps[i].start)
			gap_after += gd_dur_ns(c->gaps[i].start, c->gaps[i].end);
	}
	free(u);
	double share = c->judged > 0 ? clamp01(bubble / c->judged) : 0;
	ev(f, "sync_calls", (double)n, "count", "%ld synchronising calls (%ld explicit, %ld synchronous copies)", n,
	   s->api_n[GD_API_SYNC], s->api_n[GD_API_COPY_SYNC]);
	ev(f, "sync_calls_in_loop", (double)n_loop, "count", "%ld of them in the main loop, %ld at start-up or tear-down",
	   n_loop, n - n_loop);
	ev(f, "sync_blocked_ns", blocked, "ns", "host blocked %s in them", t(b1, blocked));
	ev(f, "idle_after_sync_ns", gap_after, "ns", "%s of GPU idle began while the host was blocked in one",
	   t(b1, gap_after));
	ev(f, "sync_stake_ns", bubble, "ns",
	   "%s of the idle after them (each sync's gaps up to the time it blocked the host) the sync cost",
	   t(b1, bubble));
	if (isfinite(s->wall_ns) && s->wall_ns > 0)
		ev(f, "sync_per_s", n / (s->wall_ns * 1e-9), "1/s", "%.0f per second", n / (s->wall_ns * 1e-9));
	if (n_loop < SYNC_MIN_CALLS || share < SYNC_WARN) {
		clear(f, "%ld synchronising calls (%ld in the loop); %s of GPU idle followed them, %s of it due to them.", n,
		      n_loop, t(b1, gap_after), t(b2, bubble));
		return;
	}
	fire(f, share >= SYNC_HIGH ? GD_SEV_HIGH : GD_SEV_WARN, share,
	     "Synchronise once per step, not per iteration: drop cudaDeviceSynchronize/StreamSynchronize and "
	     "synchronous cudaMemcpy from the loop, avoid .item()/.cpu()/print of GPU tensors and "
	     "data-dependent shapes (boolean-mask indexing, nonzero), use events and async copies (§11).",
	     "%ld synchronising calls blocked the host %s; the GPU then sat idle %s (%s of the judged span) "
	     "that work queued ahead would have filled.",
	     n_loop, t(b1, blocked_loop), t(b2, bubble), pc(b3, share));
}

/* Pageable copies in the main loop are judged; those before it (model.cuda(), a dataset
 * uploaded once) or after it (results copied back) are start-up evidence only: a one-off
 * staging cost that a longer run amortises. */
static void rule_pageable(struct ctx *c, struct gd_finding *f)
{
	const struct gd_profile *p = c->p;
	char b1[32], b2[32], b3[32], b4[32];
	double pb = 0, pns = 0, pinb = 0, pinns = 0, sb = 0, sns = 0;
	long pn = 0, sn = 0;
	if (p->nc == 0) {
		clear(f, "No copies.");
		return;
	}
	for (long i = 0; i < p->nc; i++) {
		const struct gd_pcopy *x = &p->c[i];
		double d = gd_dur_ns(x->start, x->end);
		if (x->kind != GD_CK_HTOD && x->kind != GD_CK_DTOH)
			continue;
		if (!(x->src_kind == GD_MK_PAGEABLE || x->dst_kind == GD_MK_PAGEABLE)) {
			pinb += (double)x->bytes;
			pinns += d;
		} else if (gd_steady_in(&c->st, x->start)) {
			pb += (double)x->bytes;
			pns += d;
			pn++;
		} else {
			sb += (double)x->bytes;
			sns += d;
			sn++;
		}
	}
	if (pn + sn == 0) {
		clear(f, "No copy touched pageable host memory.");
		return;
	}
	double bw = pns > 0 ? pb / (pns * 1e-9) : NAN, pbw = pinns > 0 && pinb > 0 ? pinb / (pinns * 1e-9) : NAN;
	double stake = pns;
	ev(f, "pageable_copies", (double)pn, "count", "%ld copies in the main loop to/from pageable memory, %s", pn,
	   gd_fmt_bytes(b1, 32, pb));
	ev(f, "pageable_ns", pns, "ns", "they took %s", t(b1, pns));
	if (sn)
		ev(f, "startup_pageable_copies", (double)sn, "count",
		   "%ld more before or after the main loop (start-up, tear-down: not judged), %s in %s", sn,
		   gd_fmt_bytes(b1, 32, sb), t(b2, sns));
	if (pn == 0) {
		clear(f, "%ld pageable copies (%s, %s), all before or after the main loop: one-off start-up or "
			 "tear-down, not judged.",
		      sn, gd_fmt_bytes(b1, 32, sb), t(b2, sns));
		return;
	}
	ev(f, "pageable_bw", bw, "B/s", "achieved %s", gd_fmt_si(b1, 32, bw, "B/s"));
	if (isfinite(pbw)) {
		ev(f, "pinned_bw", pbw, "B/s", "pinned copies in the same run reached %s", gd_fmt_si(b1, 32, pbw, "B/s"));
		if (pbw > bw)
			stake = pns - pb / (pbw * 1e-9);
	} else {
		ev(f, "pinned_bw", NAN, "B/s", "no pinned copy in this run to compare with; the time at stake is an "
						 "upper bound");
	}
	double share = clamp01(stake / c->span);
	fire(f, share >= PAGEABLE_HIGH ? GD_SEV_HIGH : share >= PAGEABLE_WARN ? GD_SEV_WARN : GD_SEV_INFO, share,
	     "Allocate host buffers pinned (cudaMallocHost / cudaHostAlloc, pin_memory=True in a DataLoader); a "
	     "pageable copy is staged through a driver buffer and cannot overlap kernels even with "
	     "cudaMemcpyAsync (§11).",
	     "%ld copies in the main loop used pageable host memory (%s at %s%s%s); up to %s at stake.", pn,
	     gd_fmt_bytes(b1, 32, pb), gd_fmt_si(b2, 32, bw, "B/s"), isfinite(pbw) ? " vs pinned " : "",
	     isfinite(pbw) ? gd_fmt_si(b3, 32, pbw, "B/s") : "", t(b4, stake));
}

/* The legacy default stream's semantics (CUDA programming guide, "implicit synchronization"):
 * an operation on it waits for all earlier work of the blocking streams of its context, and
 * work issued to those streams after it waits for it to finish. Streams created with
 * cudaStreamNonBlocking (streams.flags = 2) take no part. The cost is what the other streams
 * lose: a kernel or copy on a blocking stream of the same process and device that was ready
 * (its launch call had returned and its own stream's previous operation had finished) before
 * a default-stream operation ended, but started only after that operation ended, was held
 * back from ready until that end. The union of those delays is the time at stake; the
 * default-stream operation's own time is not (it would run on any stream). */
struct dop {
	int64_t start, end;
	int pid, device;
	int what;   /* kernel slot in s->ks, or -1 - copy class */
};

static int cmp_dop_end(const void *x, const void *y)
{
	const struct dop *a = x, *b = y;
	return a->end < b->end ? -1 : a->end > b->end;
}

static void rule_default_stream(struct ctx *c, struct gd_finding *f)
{
	const struct gd_profile *p = c->p;
	const struct gd_summary *s = c->s;
	char b1[32], b2[32], b3[32];
	long nleg = 0, nother = 0, nblocking = 0, ndelayed = 0, nd = 0, ndl = 0;
	struct dop *d;
	struct gd_interval *dl;
	enum { MAXS = 64 };
	struct sstate {
		int64_t key, last_end;
		int pid;
		int64_t stream;
		long delayed;
		double delay_ns;
	} st[MAXS];
	int nst = 0;
	if (!c->judge_gpu) {
		insufficient(f, "Too little GPU activity to judge streams.");
		return;
	}
	for (long i = 0; i < p->nk; i++)
		p->k[i].legacy ? nleg++ : (nother++, nblocking += !p->k[i].nonblocking);
	for (long i = 0; i < p->nc; i++)
		p->c[i].legacy ? nleg++ : (nother++, nblocking += !p->c[i].nonblocking);
	if (nleg == 0) {
		clear(f, "No work on the legacy default stream.");
		return;
	}
	if (nother == 0) {
		clear(f, "All %ld operations ran on the default stream, which prevents no concurrency here.", nleg);
		return;
	}
	if (!p->have_api) {
		insufficient(f, "Launch calls were not traced, so when the other streams' work was ready is unknown.");
		return;
	}
	if (nblocking == 0) {
		clear(f, "%ld operations on the legacy default stream; the other streams (%ld operations) were created "
			 "non-blocking, so nothing waited for it.",
		      nleg, nother);
		return;
	}
	d = malloc((size_t)nleg * sizeof(*d));
	dl = malloc(((size_t)nother + 1) * sizeof(*dl));
	if (!d || !dl) {
		free(d);
		free(dl);
		return;
	}
	for (long i = 0; i < p->nk; i++)
		if (p->k[i].legacy)
			d[nd++] = (struct dop){p->k[i].start, p->k[i].end, p->k[i].pid, p->k[i].device, c->slot[p->k[i].name]};
	for (long i = 0; i < p->nc; i++)
		if (p->c[i].legacy)
			d[nd++] = (struct dop){p->c[i].start, p->c[i].end, p->c[i].pid, p->c[i].device,
					       -1 - gd_copy_class(p->c[i].kind)};
	qsort(d, (size_t)nd, sizeof(*d), cmp_dop_end);
	/* per default-stream operation kind (kernel name or copy class): how often it held others
	 * back, and its own time */
	long *cause_n = calloc((size_t)s->nks + GD_CPY_COUNT + 1, sizeof(long));
	double *cause_ns = calloc((size_t)s->nks + GD_CPY_COUNT + 1, sizeof(double));
	/* the other streams' operations in start order: merge kernels and copies */
	long i = 0, j = 0;
	while (cause_n && cause_ns && (i < p->nk || j < p->nc)) {
		int is_k = j >= p->nc || (i < p->nk && p->k[i].start <= p->c[j].start);
		int64_t start = is_k ? p->k[i].start : p->c[j].start, end = is_k ? p->k[i].end : p->c[j].end;
		int64_t ready = is_k ? c->k_launch_end[i] : c->c_launch_end[j];
		int legacy = is_k ? p->k[i].legacy : p->c[j].legacy;
		int nb = is_k ? p->k[i].nonblocking : p->c[j].nonblocking;
		int pid = is_k ? p->k[i].pid : p->c[j].pid, dev = is_k ? p->k[i].device : p->c[j].device;
		int64_t stream = is_k ? p->k[i].stream : p->c[j].stream;
		if (is_k)
			i++;
		else
			j++;
		if (legacy || nb)
			continue;
		int q;
		/* a hash key: wraps (in unsigned arithmetic) for huge stream ids, which is harmless */
		int64_t key = (int64_t)((uint64_t)stream * 131u + (uint64_t)(int64_t)pid);
		for (q = 0; q < nst && st[q].key != key; q++)
			;
		if (q == nst) {
			if (nst == MAXS)
				continue;
			st[nst++] = (struct sstate){.key = key, .last_end = INT64_MIN, .pid = pid, .stream = stream};
		}
		/* ready: launched and its stream's previous operation done. Without its launch call
		 * the operation is not judged: stream order alone would call a memset issued long
		 * after its predecessor "ready" since that predecessor ended. */
		int64_t launched = ready;
		if (st[q].last_end > ready)
			ready = st[q].last_end;
		st[q].last_end = st[q].last_end > end ? st[q].last_end : end;
		if (launched == INT64_MIN || !gd_steady_in(&c->st, start))
			continue;
		/* the default-stream operation of this context that ended last at or before `start` */
		long lo = 0, hi = nd;
		while (lo < hi) {
			long mid = (lo + hi) / 2;
			if (d[mid].end <= start)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (long x = lo - 1, tries = 0; x >= 0 && tries < 64 && d[x].end > ready; x--, tries++) {
			if (d[x].pid != pid || d[x].device != dev)
				continue;
			dl[ndl].start = ready;
			dl[ndl].end = d[x].end;
			ndl++;
			ndelayed++;
			st[q].delayed++;
			st[q].delay_ns += gd_dur_ns(ready, d[x].end);
			int w = d[x].what >= 0 ? d[x].what : (int)s->nks + (-1 - d[x].what);
			cause_n[w]++;
			cause_ns[w] += gd_dur_ns(d[x].start, d[x].end);
			break;
		}
	}
	ndl = gd_interval_merge(dl, ndl); /* sorts, then merges */
	/* the streams were held back side by side: the run would shorten by about the most any
	 * one stream waited, not by the union of their waits (two blocking streams alternating
	 * through the default stream are each held back while the other runs) */
	double stake = 0, most = 0;
	for (long x = 0; x < ndl; x++)
		stake += gd_dur_ns(dl[x].start, dl[x].end);
	for (int q = 0; q < nst; q++)
		most = st[q].delay_ns > most ? st[q].delay_ns : most;
	stake = stake < most ? stake : most;
	double share = c->judged > 0 ? clamp01(stake / c->judged) : 0;
	ev(f, "default_stream_ops", (double)nleg, "count", "%ld operations on the legacy default stream", nleg);
	ev(f, "other_streams", (double)nst, "count",
	   "%d blocking stream(s) had %ld operations (%ld more on non-blocking streams, which never wait for it)", nst,
	   nblocking, nother - nblocking);
	ev(f, "delayed_ops", (double)ndelayed, "count",
	   "%ld operations on blocking streams were ready but held back until a default-stream operation ended",
	   ndelayed);
	ev(f, "delay_ns", stake, "ns", "%s (%s of the judged span) at stake: the longest any one stream was held back",
	   t(b1, stake), pc(b2, share));
	int nwait = 0;
	for (int q = 0; q < nst; q++)
		nwait += st[q].delayed > 0;
	/* the causes, most frequent first (two), and the streams that waited (three) */
	char causes[160] = "";
	if (cause_n && cause_ns)
		for (int r = 0; r < 2; r++) {
			long bw = -1;
			for (long w = 0; w < s->nks + GD_CPY_COUNT; w++)
				if (cause_n[w] && (bw < 0 || cause_n[w] > cause_n[bw]))
					bw = w;
			if (bw < 0)
				break;
			const char *nm = bw < s->nks ? s->ks[bw].short_name : gd_copy_class_name((int)(bw - s->nks));
			ev(f, "default_stream_cause", (double)cause_n[bw], "count",
			   "held others back %ld times: %s%s on the default stream (%s of its own time)", cause_n[bw],
			   bw < s->nks ? "" : "copies ", nm, t(b1, cause_ns[bw]));
			if (!*causes)
				snprintf(causes, sizeof(causes), "%s%s", bw < s->nks ? "" : "copies ", nm);
			cause_n[bw] = 0;
		}
	for (int r = 0; r < 3; r++) {
		int bq = -1;
		for (int q = 0; q < nst; q++)
			if (st[q].delayed && (bq < 0 || st[q].delay_ns > st[bq].delay_ns))
				bq = q;
		if (bq < 0)
			break;
		ev(f, "waiting_stream", (double)st[bq].stream, "", "stream %lld (pid %d) waited %ld times, %s in all",
		   (long long)st[bq].stream, st[bq].pid, st[bq].delayed, t(b1, st[bq].delay_ns));
		st[bq].delayed = 0;
	}
	free(cause_n);
	free(cause_ns);
	free(d);
	free(dl);
	if (share < DEFSTREAM_WARN) {
		clear(f, "Default-stream work held the blocking streams back %s (%s of the judged span).", t(b1, stake),
		      pc(b2, share));
		return;
	}
	fire(f, share >= DEFSTREAM_HIGH ? GD_SEV_HIGH : GD_SEV_WARN, share,
	     "Put every operation on an explicit stream created with cudaStreamNonBlocking "
	     "(cudaStreamCreateWithFlags), or compile with --default-stream per-thread; the legacy default stream "
	     "synchronises with every blocking stream (§11).",
	     "Work on the legacy default stream (%s) held %ld operations of %d blocking stream(s) back for %s (%s "
	     "of the judged span) that they could have run concurrently.",
	     causes, ndelayed, nwait, t(b3, stake), pc(b2, share));
}

/* ---- per-kernel counters (issue 19) ---------------------------------------------------- */
/* The view s->kc (kcounters.h): medians over each kernel's profiled launches. The rules read
 * c->kci, the view's kernels with profiled launches, one per name: the view is ordered by time
 * share, so a name's first entry is its busiest device, and the summary's time of that name
 * (all its launches, every device) is counted once. */
static char *pp(char *b, double v);

/* No --metrics run: the rules of per-kernel counters do not apply (their report is as before). */
static int kc_not_applicable(const struct ctx *c)
{
	return c->s->kc.nk == 0 && c->s->kc.profiled == 0 && c->s->kc.skipped == 0 && !c->p->metrics[0];
}

/* Whether a rule of per-kernel counters can judge; else its state says why not. */
static int kc_gate(const struct ctx *c, struct gd_finding *f)
{
	const struct gd_summary *s = c->s;
	char why[300];
	if (kc_not_applicable(c)) {
		f->state = GD_NOT_APPLICABLE;
		snprintf(f->headline, sizeof(f->headline), "Needs per-kernel counters: gpudiag run --metrics.");
		return 0;
	}
	if (!c->judge_gpu || s->kernel_ns <= 0) {
		insufficient(f, "Too little kernel time to judge.");
		return 0;
	}
	if (c->nkc > 0)
		return 1;
	if (s->kc.skipped > 0)
		snprintf(why, sizeof(why),
			 "No launch could be profiled: the %ld asked for were skipped (cooperative, CUDA-graph, NCCL or "
			 "over the budget; the report lists them).",
			 s->kc.skipped);
	else if (c->p->metrics_note[0])
		snprintf(why, sizeof(why), "No per-kernel counters: %.250s.", c->p->metrics_note);
	else
		snprintf(why, sizeof(why), "The --metrics run profiled no launch (no kernel matched the selection).");
	insufficient(f, why);
	return 0;
}

/* The summary slot (s->ks) of a view kernel's name, or -1. */
static int kc_slot(const struct ctx *c, const struct gd_kc_kernel *k)
{
	return k->name >= 0 && k->name < c->p->nnames ? c->slot[k->name] : -1;
}

/* One view kernel's short name, from the summary when it has the name. */
static const char *kc_name(const struct ctx *c, const struct gd_kc_kernel *k, char *buf, size_t n)
{
	int sl = kc_slot(c, k), nm = k->dname >= 0 && k->dname < c->p->nnames ? k->dname : k->name;
	if (sl >= 0)
		return c->s->ks[sl].short_name;
	if (nm >= 0 && nm < c->p->nnames && c->p->names[nm])
		return gd_kernel_short_name(c->p->names[nm], buf, n);
	snprintf(buf, n, "?");
	return buf;
}

static int kc_kind(const struct ctx *c, const struct gd_kc_kernel *k)
{
	int sl = kc_slot(c, k);
	if (sl >= 0)
		return c->s->ks[sl].kind;
	return k->name >= 0 && k->name < c->p->nnames && c->p->names[k->name] ? gd_kernel_kind(c->p->names[k->name])
									       : GD_KIND_OTHER;
}

static const struct gd_kc_ceilings *kc_ceil(const struct gd_summary *s, int dev)
{
	return s->kc.ceil && dev >= 0 && dev < s->kc.nceil ? &s->kc.ceil[dev] : NULL;
}

/* c->kci / c->kcns / c->kc_of (ctx). */
static int kc_index(struct ctx *c)
{
	const struct gd_summary *s = c->s;
	c->kc_kern = s->kc.kernel_ns > 0 ? s->kc.kernel_ns : s->kernel_ns;
	unsigned char *seen;
	c->kc_of = malloc(((size_t)s->nks + 1) * sizeof(int));
	c->kci = malloc(((size_t)s->kc.nk + 1) * sizeof(long));
	c->kcns = malloc(((size_t)s->kc.nk + 1) * sizeof(double));
	seen = calloc((size_t)c->p->nnames + 1, 1);
	if (!c->kc_of || !c->kci || !c->kcns || !seen) {
		free(seen);
		return -1;
	}
	for (int i = 0; i < s->nks; i++)
		c->kc_of[i] = -1;
	c->nkc = 0;
	for (int i = 0; s->kc.k && i < s->kc.nk; i++) {
		const struct gd_kc_kernel *k = &s->kc.k[i];
		int sl = kc_slot(c, k);
		double ns = isfinite(k->time_share) ? k->time_share * s->kc.kernel_ns : sl >= 0 ? s->ks[sl].total_ns : NAN;
		if (k->launches <= 0 || k->name < 0 || k->name >= c->p->nnames || seen[k->name])
			continue;
		seen[k->name] = 1;
		if (sl >= 0)
			c->kc_of[sl] = i;
		c->kci[c->nkc] = i;
		c->kcns[c->nkc++] = isfinite(ns) && ns > 0 ? ns : 0;
	}
	free(seen);
	return 0;
}

/* The view kernel of a summary slot, or NULL. */
static const struct gd_kc_kernel *kc_of_slot(const struct ctx *c, int sl)
{
	return sl >= 0 && sl < c->s->nks && c->kc_of[sl] >= 0 ? &c->s->kc.k[c->kc_of[sl]] : NULL;
}

static int kc_sev(double share)
{
	return share >= KC_STAKE_HIGH ? GD_SEV_HIGH : share >= KC_STAKE_WARN ? GD_SEV_WARN
	       : share >= KC_STAKE_INFO ? GD_SEV_INFO : GD_SEV_NONE;
}

/* The k largest of v[0..n) (≥ 0; negative = not a candidate), their indices in out[]. */
static int top_of(const double *v, long n, long *out, int k)
{
	int m = 0;
	for (int j = 0; j < k; j++) {
		long bi = -1;
		for (long i = 0; i < n; i++) {
			int taken = 0;
			for (int q = 0; q < m; q++)
				taken |= out[q] == i;
			if (!taken && v[i] >= 0 && (bi < 0 || v[i] > v[bi]))
				bi = i;
		}
		if (bi < 0)
			break;
		out[m++] = bi;
	}
	return m;
}

/* One direction (global loads or stores) of a kernel's accesses. */
struct kc_dir {
	double spr, used, bytes; /* sectors per request, % of each sector's bytes used, sector bytes */
	int known, bad;
};

static struct kc_dir kc_access(const struct gd_kc_kernel *k, int store)
{
	struct kc_dir d;
	double req = k->q[store ? GD_KC_ST_REQUESTS : GD_KC_LD_REQUESTS];
	double sec = k->q[store ? GD_KC_ST_SECTORS : GD_KC_LD_SECTORS];
	d.spr = store ? k->st_sectors_per_req : k->ld_sectors_per_req;
	d.used = store ? k->st_used_pct : k->ld_used_pct;
	d.bytes = isfinite(sec) && sec >= 0 ? 32.0 * sec : NAN;
	d.bad = 0;
	if (isfinite(req) && req == 0) {
		/* no access of that kind: nothing to coalesce */
		d.known = 1;
		d.bytes = 0;
		return d;
	}
	if (!isfinite(d.spr) && isfinite(sec) && isfinite(req) && req > 0)
		d.spr = sec / req;
	/* a % out of range is a damaged record: read as its nearest bound */
	if (isfinite(d.used))
		d.used = d.used < 0 ? 0 : d.used > 100 ? 100 : d.used;
	d.known = isfinite(d.spr) && isfinite(d.used);
	d.bad = d.known && d.used < KC_USED_LOW_PCT && d.spr > KC_SECTORS_HIGH;
	return d;
}

/* The sector bytes a kernel's loads and stores moved (*tot) and, returned, those no thread
 * asked for; directions without known bytes are left out (0 and 0 when none is known). */
static double kc_waste(const struct kc_dir *ld, const struct kc_dir *st, double *tot)
{
	double waste = 0;
	*tot = 0;
	for (int d = 0; d < 2; d++) {
		const struct kc_dir *x = d ? st : ld;
		if (x->known && isfinite(x->bytes) && x->bytes > 0) {
			*tot += x->bytes;
			waste += x->bytes * (1 - x->used / 100);
		}
	}
	return waste;
}

/* The end of a kernel-counter rule that weighs per-kernel stakes (uncoalesced, divergence):
 * clear when no kernel was bad (none_text) or too little is at stake (few_text, given the
 * count and the share), else fired on the headline already written. */
static void kc_conclude(struct ctx *c, struct gd_finding *f, long nbad, double stake, const char *advice,
			const char *none_text, const char *few_what)
{
	char b1[32], head[300];
	double share = clamp01(stake / c->kc_kern);
	int sev = kc_sev(share);
	f->basis = GD_BASIS_KCOUNTERS;
	if (!nbad) {
		clear(f, "%s", none_text);
		return;
	}
	if (sev == GD_SEV_NONE) {
		clear(f, "%ld profiled kernel%s %s, but only %s of kernel time is at stake.", nbad, nbad == 1 ? "" : "s",
		      few_what, pc(b1, share));
		return;
	}
	snprintf(head, sizeof(head), "%s", f->headline);
	fire(f, sev, share, advice, "%s", head);
}

#define UNCOALESCED_ADVICE                                                                                        \
	"Make a warp's 32 threads touch consecutive addresses: threadIdx.x on the fastest-varying index, structs " \
	"of arrays instead of arrays of structs, a transpose through a shared-memory tile (read along one axis, " \
	"write along the other), aligned vector loads; sort the indices of a gather. Re-profile with --metrics: " \
	"sectors per request should fall towards 4 per 4-byte word and bytes used towards 100 % (§7)."

/* A library GEMM kernel built for operands aligned to fewer than 16 bytes: CUTLASS and cuBLAS
 * name the alignment, in elements, "align1" or "align2" (align8 for 2-byte types, align4 for
 * 4-byte ones, is 16 bytes: the aligned kernels). The library picks one when a dimension or a
 * leading dimension is not a multiple of the aligned count; its loads are then scalar and
 * strided across a warp, which the sector counters show as uncoalesced. */
static const char *gemm_unaligned(const struct ctx *c, const struct gd_kc_kernel *k, const char *name)
{
	static const char *const tags[] = {"align1", "align2"};
	if (kc_kind(c, k) != GD_KIND_GEMM)
		return NULL;
	for (size_t i = 0; i < sizeof(tags) / sizeof(tags[0]); i++) {
		const char *t = strstr(name, tags[i]);
		if (t && (t == name || t[-1] == '_') && !isdigit((unsigned char)t[strlen(tags[i])]))
			return tags[i];
	}
	return NULL;
}

/* The advice for a finding inside one kernel, when that kernel is a library's (cuBLAS, cuDNN,
 * PyTorch's ATen, FlashAttention): its code is not the program's, so the advice is about the
 * call, not the general advice to a kernel's author (general, returned for the program's own
 * kernels). buf gets the result; sec is the guide's section. */
static const char *kc_lib_advice(const struct ctx *c, const struct gd_kc_kernel *k, const char *general,
				 const char *sec, char *buf, size_t n)
{
	int sl = k ? kc_slot(c, k) : -1, lib = sl >= 0 ? c->s->ks[sl].lib : GD_LIB_USER;
	const char *how;
	if (lib == GD_LIB_ATEN)
		how = "the tensors it is given (contiguous, or in the layout the op expects) and the op itself (one "
		      "without a data-dependent path: torch.where rather than boolean-mask indexing, sorted unique indices "
		      "for index_put and scatter); gpudiag run --torch ops names the op";
	else if (lib == GD_LIB_CUBLAS || lib == GD_LIB_CUDNN || lib == GD_LIB_FLASH)
		how = "the shapes, layouts and data types of the call (dimensions that are multiples of 8, the layout the "
		      "library is fastest in)";
	else
		return general;
	snprintf(buf, n, "This kernel is %s's, not the program's code: what the program can change is how it calls it — "
		 "%s (%s).", gd_lib_name(lib), how, sec);
	return buf;
}

#define GEMM_ALIGN_ADVICE                                                                                         \
	"A dimension of the matrix multiply (M, N or K, e.g. a vocabulary of 50257 tokens) or a leading "          \
	"dimension is not a multiple of 8 elements (16 bytes), so the library fell back to a kernel for unaligned " \
	"operands, with scalar loads strided across each warp. Pad that dimension to a multiple of 8, 64 is "      \
	"better (GPT-2's 50257 to 50304), and leave the padding out of the result (§7)."

/* Uncoalesced global accesses (§7): a profiled kernel whose global loads or stores use less
 * than half of each 32-byte sector they fetch, at more than twice the ideal sectors per
 * request. At stake: its time × the share of its sector bytes never used (an upper bound: a
 * kernel that is not memory-bound loses less). */
static void rule_uncoalesced(struct ctx *c, struct gd_finding *f)
{
	const struct gd_summary *s = c->s;
	char b1[32], b2[32], b3[32], b4[32], nb[128], key[40];
	double stake = 0, bad_ns = 0, known_ns = 0, *ks;
	long nbad = 0, nknown = 0, nunknown = 0, top[2];
	const char *align = NULL; /* the top kernel a GEMM for unaligned operands: its tag */
	const struct gd_kc_kernel *ktop = NULL;
	char adv[600];
	if (!kc_gate(c, f))
		return;
	ks = malloc((size_t)c->nkc * sizeof(double));
	if (!ks) {
		insufficient(f, "Out of memory while judging the kernels.");
		return;
	}
	for (long i = 0; i < c->nkc; i++) {
		const struct gd_kc_kernel *k = &s->kc.k[c->kci[i]];
		struct kc_dir ld = kc_access(k, 0), st = kc_access(k, 1);
		double tot, waste, frac;
		ks[i] = -1;
		if (!ld.known && !st.known) {
			nunknown++;
			continue;
		}
		nknown++;
		known_ns += c->kcns[i];
		if (!ld.bad && !st.bad)
			continue;
		waste = kc_waste(&ld, &st, &tot);
		/* the sector bytes unknown: the worse direction's unused share */
		frac = tot > 0 ? waste / tot : 1 - fmin(ld.bad ? ld.used : 100, st.bad ? st.used : 100) / 100;
		ks[i] = c->kcns[i] * clamp01(frac);
		stake += ks[i];
		bad_ns += c->kcns[i];
		nbad++;
	}
	if (!nknown) {
		free(ks);
		insufficient(f, "The profiled kernels have no coalescing counters (global sectors per request and bytes used "
				"per sector; --metrics=basic leaves the per-sector averages out).");
		return;
	}
	ev(f, "uncoalesced_fraction", bad_ns / c->kc_kern, "fraction",
	   "%s of kernel time in %ld kernel%s whose global loads or stores use < %.0f %% of each sector at > %.0f sectors "
	   "per request",
	   pc(b1, bad_ns / c->kc_kern), nbad, nbad == 1 ? "" : "s", KC_USED_LOW_PCT, KC_SECTORS_HIGH);
	ev(f, "judged_fraction", known_ns / c->kc_kern, "fraction",
	   "%s of kernel time in %ld profiled kernel%s with coalescing counters%s", pc(b1, known_ns / c->kc_kern), nknown,
	   nknown == 1 ? "" : "s", nunknown ? "; the others lack them (--metrics=basic leaves them out)" : "");
	int ntop = top_of(ks, c->nkc, top, 2);
	for (int j = 0; j < ntop; j++) {
		const struct gd_kc_kernel *k = &s->kc.k[c->kci[top[j]]];
		struct kc_dir ld = kc_access(k, 0), st = kc_access(k, 1);
		const struct kc_dir *w = ld.bad && (!st.bad || ld.used <= st.used) ? &ld : &st;
		double tot, waste = kc_waste(&ld, &st, &tot);
		const char *nm = kc_name(c, k, nb, sizeof(nb));
		snprintf(key, sizeof(key), "kernel%d_sectors_per_request", j + 1);
		ev(f, key, w->spr, "count",
		   "%s (%s of kernel time): global %s take %.1f sectors per request (ideal %.0f: 32 threads × 4 B = 128 B)",
		   nm, pc(b1, c->kcns[top[j]] / c->kc_kern), w == &ld ? (st.bad ? "loads (and stores)" : "loads")
									   : "stores",
		   w->spr, KC_IDEAL_SECTORS);
		snprintf(key, sizeof(key), "kernel%d_used_fraction", j + 1);
		ev(f, key, w->used / 100, "fraction", "%s: %s of each sector's bytes used", nm, pp(b1, w->used));
		snprintf(key, sizeof(key), "kernel%d_wasted_bytes", j + 1);
		ev(f, key, tot > 0 ? waste : NAN, "bytes",
		   "%s: %s of the %s its global sectors moved per launch (L2 ↔ L1, at most as much from DRAM) never used", nm,
		   gd_fmt_bytes(b2, 32, waste), gd_fmt_bytes(b3, 32, tot));
		if (!j) {
			snprintf(f->kernel, sizeof(f->kernel), "%s", nm);
			snprintf(f->headline, sizeof(f->headline),
				 "%s (%s of kernel time) accesses global memory uncoalesced: %.1f sectors per request (ideal "
				 "%.0f), %s of each sector used; %s of kernel time at stake.",
				 nm, pc(b1, c->kcns[top[j]] / c->kc_kern), w->spr, KC_IDEAL_SECTORS, pp(b4, w->used),
				 pc(b2, ks[top[j]] / c->kc_kern));
			ktop = k;
			if ((align = gemm_unaligned(c, k, nm)) != NULL)
				ev(f, "gemm_unaligned", NAN, "",
				   "%s: a GEMM kernel for unaligned operands (\"%s\" in its name)", nm, align);
		}
	}
	free(ks);
	{
		char none[200];
		snprintf(none, sizeof(none), "The profiled kernels' global accesses are coalesced (%s of kernel time judged).",
			 pc(b1, known_ns / c->kc_kern));
		kc_conclude(c, f, nbad, stake,
			    align ? GEMM_ALIGN_ADVICE : kc_lib_advice(c, ktop, UNCOALESCED_ADVICE, "§7", adv, sizeof(adv)), none,
			    nbad == 1 ? "accesses global memory uncoalesced" : "access global memory uncoalesced");
	}
}

#define DIVERGENCE_ADVICE                                                                                         \
	"Keep a warp's 32 threads on one path: branch on warp-uniform values (blockIdx, the warp index, data "     \
	"sorted or binned so that neighbouring threads take the same branch or loop count), move rare paths out "  \
	"of the hot loop (a second kernel over a compacted work list), replace short branches by predicated "      \
	"arithmetic, and use block sizes that are multiples of 32 with grid-stride loops so tails are few (§8)."

/* Warp divergence (§8): threads per executed instruction below 24 of 32. At stake: its time ×
 * the share of idle lanes (an upper bound: a kernel bound by memory loses less). */
static void rule_divergence(struct ctx *c, struct gd_finding *f)
{
	const struct gd_summary *s = c->s;
	char b1[32], b2[32], nb[128], key[40], adv[600];
	double stake = 0, bad_ns = 0, known_ns = 0, *ks;
	long nbad = 0, nknown = 0, nunknown = 0, top[3];
	const struct gd_kc_kernel *ktop = NULL;
	if (!kc_gate(c, f))
		return;
	ks = malloc((size_t)c->nkc * sizeof(double));
	if (!ks) {
		insufficient(f, "Out of memory while judging the kernels.");
		return;
	}
	for (long i = 0; i < c->nkc; i++) {
		double tpi = s->kc.k[c->kci[i]].threads_per_inst;
		ks[i] = -1;
		if (!isfinite(tpi) || tpi <= 0) {
			nunknown++;
			continue;
		}
		nknown++;
		known_ns += c->kcns[i];
		if (tpi >= KC_TPI_LOW)
			continue;
		ks[i] = c->kcns[i] * clamp01(1 - tpi / 32);
		stake += ks[i];
		bad_ns += c->kcns[i];
		nbad++;
	}
	if (!nknown) {
		free(ks);
		insufficient(f, "The profiled kernels have no threads-per-instruction counter.");
		return;
	}
	ev(f, "divergent_fraction", bad_ns / c->kc_kern, "fraction",
	   "%s of kernel time in %ld kernel%s with < %.0f of 32 threads active per executed instruction",
	   pc(b1, bad_ns / c->kc_kern), nbad, nbad == 1 ? "" : "s", KC_TPI_LOW);
	ev(f, "judged_fraction", known_ns / c->kc_kern, "fraction",
	   "%s of kernel time in %ld profiled kernel%s with the counter%s", pc(b1, known_ns / c->kc_kern), nknown,
	   nknown == 1 ? "" : "s", nunknown ? "; the others lack it" : "");
	int ntop = top_of(ks, c->nkc, top, 3);
	for (int j = 0; j < ntop; j++) {
		const struct gd_kc_kernel *k = &s->kc.k[c->kci[top[j]]];
		const char *nm = kc_name(c, k, nb, sizeof(nb));
		snprintf(key, sizeof(key), "kernel%d_threads_per_inst", j + 1);
		ev(f, key, k->threads_per_inst, "count",
		   "%s (%s of kernel time): %.1f of 32 threads active per executed instruction (%.0f %% of the lanes idle)",
		   nm, pc(b1, c->kcns[top[j]] / c->kc_kern), k->threads_per_inst, 100 * (1 - k->threads_per_inst / 32));
		if (!j) {
			ktop = k;
			snprintf(f->kernel, sizeof(f->kernel), "%s", nm);
			snprintf(f->headline, sizeof(f->headline),
				 "%s (%s of kernel time) runs divergent warps: %.1f of 32 threads per executed instruction; "
				 "%s of kernel time at stake.",
				 nm, pc(b1, c->kcns[top[j]] / c->kc_kern), k->threads_per_inst, pc(b2, ks[top[j]] / c->kc_kern));
		}
	}
	free(ks);
	{
		char none[200];
		snprintf(none, sizeof(none),
			 "The profiled kernels' warps do not diverge (≥ %.0f of 32 threads per instruction; %s of kernel time "
			 "judged).",
			 KC_TPI_LOW, pc(b1, known_ns / c->kc_kern));
		kc_conclude(c, f, nbad, stake, kc_lib_advice(c, ktop, DIVERGENCE_ADVICE, "§8", adv, sizeof(adv)), none,
			    nbad == 1 ? "diverges" : "diverge");
	}
}

/* A profiled kernel's place on the roofline (§10): the view's bound, checked against what a
 * roofline of CUDA-core FLOPs and DRAM bytes cannot see — tensor-core FLOPs (not counted by
 * instruction: a tensor GEMM would look latency-bound) and the other units (issue, integer,
 * load/store and transcendental pipes, L1, L2), whose load the busiest SM unit and the memory
 * speed of light give: a "latency-bound" kernel with one of them ≥ 60 % (ncu's SOL line) is
 * bound by that unit. */
enum { RP_UNKNOWN = 0, RP_MEMORY, RP_COMPUTE, RP_LATENCY };
struct roofpos {
	int bound;       /* RP_* */
	double reached;  /* % of the ceiling it is judged against */
	const char *roof; /* that ceiling in words */
	int view;        /* 1: the view's own bound and ceiling, as they are */
};

/* The busiest SM unit (gd_kc_kernel.sm_busy) as the ceiling it was judged against. */
static const char *kc_sm_unit(int m)
{
	switch (m) {
	case GD_KC_ISSUE_PCT: return "the SM's instruction issue rate";
	case GD_KC_ALU_PCT: return "the ALU pipe's peak (integer, logic)";
	case GD_KC_FMA_PCT: return "the FMA pipe's peak (FP32, integer multiply)";
	case GD_KC_LSU_PCT: return "the LSU pipe's peak (load, store, shared-memory instructions)";
	case GD_KC_XU_PCT: return "the XU pipe's peak (transcendentals, conversions)";
	default: return "SM throughput (its busiest unit: issue, integer, load/store or shared-memory pipes)";
	}
}

/* The busiest memory unit (gd_kc_kernel.mem_busy) as the ceiling it was judged against. */
static const char *kc_mem_unit(int m)
{
	switch (m) {
	case GD_KC_DRAM_PCT: return "DRAM throughput";
	case GD_KC_L2_TAG_PCT:
	case GD_KC_L2_DATA_PCT:
	case GD_KC_L2_REQ_PCT:
	case GD_KC_L2_OUT_PCT: return "L2 throughput";
	case GD_KC_L2_XBAR_PCT:
	case GD_KC_XBAR_RD_PCT:
	case GD_KC_XBAR_WR_PCT: return "the crossbar between L1 and L2";
	case GD_KC_L1_WAVE_PCT:
	case GD_KC_L1_BANK_RD_PCT:
	case GD_KC_L1_BANK_WR_PCT:
	case GD_KC_L1_WB_PCT:
	case GD_KC_L1_F_PCT: return "L1/shared-memory throughput";
	default: return "memory throughput (L1, L2 or shared memory)";
	}
}

static struct roofpos kc_place(const struct gd_kc_kernel *k)
{
	struct roofpos r = {RP_UNKNOWN, NAN, "", 0};
	double tact = k->q[GD_KC_TENSOR_ACTIVE], sm = k->sm_busy_pct, mem = k->mem_busy_pct;
	int tensor = (isfinite(k->tensor_inst) && k->tensor_inst >= 1) || (isfinite(tact) && tact >= PM_TENSOR_IDLE_PCT);
	if (k->bound == GD_KB_MEMORY)
		return (struct roofpos){RP_MEMORY, k->dram_roof_pct, "the DRAM ceiling", 1};
	if (tensor && isfinite(tact) && tact >= PM_PIPE_LOW_PCT)
		return (struct roofpos){RP_COMPUTE, tact, "the tensor pipe's peak", 0};
	if (k->bound == GD_KB_COMPUTE && !tensor)
		return (struct roofpos){RP_COMPUTE, k->roof_pct, "the CUDA-core compute ceiling", 1};
	if (k->bound != GD_KB_LATENCY || tensor)
		return r; /* unknown, or tensor math the FLOP roofline does not count */
	if (isfinite(sm) && sm >= PM_BOUND_PCT && !(isfinite(mem) && mem > sm))
		return (struct roofpos){RP_COMPUTE, sm, kc_sm_unit(k->sm_busy), 0};
	if (isfinite(mem) && mem >= PM_BOUND_PCT)
		return (struct roofpos){RP_MEMORY, mem, kc_mem_unit(k->mem_busy), 0};
	r.bound = RP_LATENCY;
	r.reached = isfinite(k->roof_pct) && isfinite(k->dram_roof_pct) ? fmax(k->roof_pct, k->dram_roof_pct)
		    : isfinite(k->roof_pct)				  ? k->roof_pct
									  : k->dram_roof_pct;
	r.roof = "either roof";
	r.view = 1;
	return r;
}

/* The top stall reasons of a kernel in words: "long scoreboard (global/local memory) 45 %, ..." */
static void kc_stalls(const struct gd_kc_kernel *k, char *out, size_t n)
{
	size_t len = 0;
	out[0] = 0;
	for (int j = 0; j < GD_KC_TOP_STALLS && len < n; j++) {
		int m = k->stall[j];
		if (m < GD_KC_STALL_FIRST || m > GD_KC_STALL_LAST || !isfinite(k->stall_pct[j]))
			continue;
		len += (size_t)snprintf(out + len, n - len, "%s%s %.0f %%", len ? ", " : "", gd_kc_metrics[m].label,
					k->stall_pct[j]);
	}
}

/* One placed kernel in words, for evidence (≤ 200 characters). */
static void kc_roof_text(const struct ctx *c, const struct gd_kc_kernel *k, const struct roofpos *r, double ns,
			 char *out, size_t n)
{
	char b1[32], b2[32], b3[32], b4[32], b5[32], nb[128];
	const struct gd_kc_ceilings *cl = kc_ceil(c->s, k->device);
	const char *nm = kc_name(c, k, nb, sizeof(nb));
	pc(b1, ns / c->kc_kern);
	if (r->bound == RP_MEMORY && r->view)
		snprintf(out, n, "%s (%s of kernel time): memory-bound, DRAM %s = %s of the %s ceiling, %.2f FLOP/B", nm, b1,
			 gd_fmt_si(b2, 32, k->dram_bps, "B/s"), pp(b3, r->reached),
			 gd_fmt_si(b4, 32, cl ? cl->dram_bps : NAN, "B/s"), k->intensity);
	else if (r->bound == RP_COMPUTE && r->view)
		snprintf(out, n, "%s (%s of kernel time): compute-bound, %s = %s of the %s %s ceiling at %.1f FLOP/B", nm, b1,
			 gd_fmt_si(b2, 32, k->flop_s, "FLOP/s"), pp(b3, r->reached), gd_fmt_si(b4, 32, k->ceiling, "FLOP/s"),
			 k->prec >= 0 && k->prec < GD_P_COUNT ? gd_prec_name((enum gd_prec)k->prec) : "?", k->intensity);
	else if (r->bound == RP_LATENCY)
		snprintf(out, n, "%s (%s of kernel time): latency-bound, %s of its roof (%s of %s at %.2f FLOP/B), DRAM at %s", nm,
			 b1, pp(b2, k->roof_pct), gd_fmt_si(b3, 32, k->flop_s, "FLOP/s"),
			 gd_fmt_si(b4, 32, k->ceiling, "FLOP/s"), k->intensity, pp(b5, k->dram_roof_pct));
	else
		snprintf(out, n, "%s (%s of kernel time): %s-bound at %s of %s", nm, b1,
			 r->bound == RP_MEMORY ? "memory" : "compute", pp(b2, r->reached), r->roof);
}

#define ROOF_LATENCY_ADVICE                                                                                       \
	"It reaches neither roof, so neither fewer bytes nor fewer FLOPs is the cure: its warps wait. Keep more "   \
	"independent work in flight per warp (several loads before their first use, unrolled loops: ILP), fewer "  \
	"dependent global loads, barriers and atomics in the inner loop; more resident warps help only if "        \
	"occupancy is low. The stall reasons name the wait (§10, §14)."
#define ROOF_MEMORY_ADVICE                                                                                        \
	"At the memory roof only fewer bytes make it faster: fuse it with the kernels before and after it (read " \
	"once), store in a narrower type (BF16/FP8), keep reused data in shared memory or L2, and check its "     \
	"coalescing (§4, §9, §10)."
#define ROOF_COMPUTE_ADVICE                                                                                       \
	"At a compute roof only less work on that unit helps: a lower precision or tensor cores for matrix math, " \
	"fewer instructions per element (strength reduction, no redundant index math), an algorithm with less "   \
	"work, or several GPUs (§3, §10)."

/* Roofline position (§10), per hot profiled kernel: memory-, compute- or latency-bound with the
 * ceiling and the % reached. A latency-bound kernel is the finding (graded on the latency
 * rule's lines, so a kernel judged by PM samples or by its own counters weighs alike); at a
 * roof it is a note that says which resource to spend less of. */
/* A memory- or compute-bound kernel at ≥ KC_AT_ROOF_PCT of its ceiling. */
static int kc_at_roof(const struct gd_kc_kernel *k)
{
	struct roofpos r = kc_place(k);
	return (r.bound == RP_MEMORY || r.bound == RP_COMPUTE) && isfinite(r.reached) && r.reached >= KC_AT_ROOF_PCT;
}

/* Why a latency-bound kernel reaches neither roof, when another finding that fired names the
 * cause (a symptom must not rank above its cause): the occupancy finding names this kernel
 * (its grid leaves SMs idle, or its warps are few); the launch finding fired and a launch of
 * it is shorter than its launch call (launch latency, not the kernel's code); the divergence
 * or uncoalesced finding fired and this kernel's own counters cross that rule's line. NULL
 * when none does. The rules it looks at run before the roofline's. */
static const char *latency_cause(const struct ctx *c, const struct gd_kc_kernel *k)
{
	int sl = kc_slot(c, k);
	const struct gd_kstat *ks = sl >= 0 && sl < c->s->nks ? &c->s->ks[sl] : NULL;
	const struct gd_finding *occ = &c->v->f[GD_R_OCCUPANCY], *lau = &c->v->f[GD_R_LAUNCH];
	if (ks && occ->state == GD_FIRED && !strcmp(occ->kernel, ks->short_name))
		return "its occupancy is low (the occupancy finding)";
	if (ks && lau->state == GD_FIRED && ks->count > 0 && isfinite(c->launch_median) &&
	    ks->total_ns / ks->count < c->launch_median)
		return "it is shorter than its launch call (the launch finding)";
	if (c->v->f[GD_R_DIVERGENCE].state == GD_FIRED && isfinite(k->threads_per_inst) &&
	    k->threads_per_inst < KC_TPI_LOW)
		return "its warps diverge (the divergence finding)";
	struct kc_dir ld = kc_access(k, 0), st = kc_access(k, 1);
	if (c->v->f[GD_R_UNCOALESCED].state == GD_FIRED && (ld.bad || st.bad))
		return "its accesses are uncoalesced (the uncoalesced finding)";
	return NULL;
}

static void rule_roofline(struct ctx *c, struct gd_finding *f)
{
	const struct gd_summary *s = c->s;
	char b1[32], b2[32], b3[32], nb[128], kt[200], st[160], key[40];
	double lat = 0, lat_stake = 0, placed = 0, unplaced = 0, hot = 0, explained = 0;
	long ilat = -1, itop = -1, iexp = -1;
	const char *exp_why = NULL, *top_why = NULL;
	int nlisted = 0;
	struct roofpos rtop = {0};
	if (!kc_gate(c, f))
		return;
	for (long i = 0; i < c->nkc; i++) {
		const struct gd_kc_kernel *k = &s->kc.k[c->kci[i]];
		double ns = c->kcns[i];
		if (ns / c->kc_kern < HOT_KERNEL_SHARE)
			continue;
		/* NCCL kernels spin on the network: the communication rule's */
		if (kc_kind(c, k) == GD_KIND_NCCL)
			continue;
		hot += ns;
		struct roofpos r = kc_place(k);
		if (r.bound == RP_UNKNOWN) {
			unplaced += ns;
			continue;
		}
		placed += ns;
		const char *why = r.bound == RP_LATENCY ? latency_cause(c, k) : NULL;
		if (itop < 0) {
			itop = i;
			rtop = r;
			top_why = why;
		}
		if (why) {
			/* the cause is another rule's finding: counted here as explained */
			explained += ns;
			if (iexp < 0) {
				iexp = i;
				exp_why = why;
			}
		} else if (r.bound == RP_LATENCY) {
			lat += ns;
			lat_stake += ns * (isfinite(r.reached) ? clamp01(1 - r.reached / 100) : 1);
			if (ilat < 0)
				ilat = i;
		}
		if (nlisted < 4) {
			kc_roof_text(c, k, &r, ns, kt, sizeof(kt));
			snprintf(key, sizeof(key), "kernel%d_roof_fraction", ++nlisted);
			ev(f, key, isfinite(r.reached) ? r.reached / 100 : NAN, "fraction", "%s", kt);
		}
	}
	if (hot <= 0) {
		clear(f, "No profiled kernel takes %.0f %% of kernel time or more.", 100 * HOT_KERNEL_SHARE);
		return;
	}
	if (placed <= 0) {
		insufficient(f, "None of the hot profiled kernels could be placed on the roofline (a DRAM, FLOP or ceiling "
				"figure is missing, or its math ran on tensor cores with the tensor pipe's activity unknown).");
		return;
	}
	f->basis = GD_BASIS_KCOUNTERS;
	{
		const struct gd_kc_kernel *k = &s->kc.k[c->kci[ilat >= 0 ? ilat : itop]];
		const struct gd_kc_ceilings *cl = kc_ceil(s, k->device);
		if (cl)
			ev(f, "ceiling_measured", cl->measured, "", "ceilings: %.150s", cl->source[0] ? cl->source
										      : cl->measured ? "measured"
										      : "datasheet");
	}
	ev(f, "latency_bound_fraction", lat / c->kc_kern, "fraction",
	   "%s of kernel time in hot profiled kernels that reach neither roof", pc(b1, lat / c->kc_kern));
	if (iexp >= 0)
		ev(f, "latency_explained_fraction", explained / c->kc_kern, "fraction",
		   "%s of kernel time in hot kernels that reach neither roof for a cause another finding names (%s: %s)",
		   pc(b1, explained / c->kc_kern), kc_name(c, &s->kc.k[c->kci[iexp]], nb, sizeof(nb)), exp_why);
	ev(f, "placed_fraction", placed / c->kc_kern, "fraction", "%s of kernel time placed, of %s in hot profiled kernels%s",
	   pc(b1, placed / c->kc_kern), pc(b2, hot / c->kc_kern),
	   unplaced > 0 ? " (the others lack a figure, or ran tensor math the FLOP roofline does not count)" : "");
	if (ilat >= 0) {
		const struct gd_kc_kernel *k = &s->kc.k[c->kci[ilat]];
		double share = clamp01(lat / c->kc_kern);
		char adv[600];
		kc_stalls(k, st, sizeof(st));
		if (*st)
			ev(f, "top_stalls", NAN, "", "%s: warps stalled on %s", kc_name(c, k, nb, sizeof(nb)), st);
		snprintf(f->kernel, sizeof(f->kernel), "%s", kc_name(c, k, nb, sizeof(nb)));
		snprintf(adv, sizeof(adv), "%s%s%s", ROOF_LATENCY_ADVICE, *st ? " Here: " : "", st);
		fire(f, share >= LATENCY_HIGH ? GD_SEV_HIGH : share >= LATENCY_WARN ? GD_SEV_WARN : GD_SEV_INFO,
		     clamp01(lat_stake / c->kc_kern), adv,
		     "%s (%s of kernel time) is latency-bound: %s of %s, DRAM at %s of its ceiling (kernel counters).", f->kernel,
		     pc(b1, c->kcns[ilat] / c->kc_kern), pp(b2, k->roof_pct),
		     isfinite(k->roof_pct) ? "its roof" : "its roof (unknown)", pp(b3, k->dram_roof_pct));
		return;
	}
	const struct gd_kc_kernel *k = &s->kc.k[c->kci[itop]];
	int at = isfinite(rtop.reached) && rtop.reached >= KC_AT_ROOF_PCT;
	snprintf(f->kernel, sizeof(f->kernel), "%s", kc_name(c, k, nb, sizeof(nb)));
	if (rtop.bound == RP_LATENCY) { /* explained: a note that points at the cause */
		fire(f, GD_SEV_INFO, NAN, ROOF_LATENCY_ADVICE,
		     "%s (%s of kernel time) reaches neither roof (%s of its roof) because %s: that finding is the one to act "
		     "on.",
		     f->kernel, pc(b1, c->kcns[itop] / c->kc_kern), pp(b2, rtop.reached), top_why ? top_why : "of a cause another finding names");
		return;
	}
	fire(f, GD_SEV_INFO, NAN, rtop.bound == RP_MEMORY ? ROOF_MEMORY_ADVICE : ROOF_COMPUTE_ADVICE,
	     "%s%s (%s of kernel time) is %s-bound at %s of %s%s", at ? "At the roof: " : "", f->kernel,
	     pc(b1, c->kcns[itop] / c->kc_kern), rtop.bound == RP_MEMORY ? "memory" : "compute", pp(b2, rtop.reached),
	     rtop.roof,
	     at ? (rtop.bound == RP_MEMORY ? ": only fewer bytes make it faster."
				   : ": only less work on it (fewer or faster instructions) makes it faster.")
		: ": bound, with some of the roof unused.");
}

/* What would lift occupancy: the register count, shared memory or block size that fits one
 * more block. */
static void occ_fix(const struct gd_profile *p, const struct gd_kstat *k, char *buf, size_t n)
{
	const struct gd_occ_device *d = &p->dev[k->device].occ;
	struct gd_occ_kernel kk = {.block_threads = k->block_threads, .regs_per_thread = k->regs,
				   .static_smem = (size_t)k->static_smem, .dyn_smem = (size_t)k->dyn_smem,
				   .max_dyn_smem = (size_t)k->dyn_smem, .carveout_pct = -1};
	struct gd_occ_result r;
	buf[0] = 0;
	if (k->occ.limiters & GD_LIM_REGS) {
		for (int regs = k->regs - 1; regs >= 16; regs--) {
			kk.regs_per_thread = regs;
			if (gd_occupancy(d, &kk, &r) == 0 && r.blocks_per_sm > k->occ.blocks_per_sm) {
				snprintf(buf, n, "at most %d registers per thread (__launch_bounds__ or -maxrregcount) "
						 "would fit %d blocks per SM (%.0f %% occupancy)",
					 regs, r.blocks_per_sm, 100 * r.occupancy);
				return;
			}
		}
	}
	if (k->occ.limiters & GD_LIM_SMEM) {
		size_t total = (size_t)k->static_smem + (size_t)k->dyn_smem;
		for (size_t sm = total; sm >= 1024; sm -= 512) {
			kk.static_smem = 0;
			kk.dyn_smem = sm;
			if (gd_occupancy(d, &kk, &r) == 0 && r.blocks_per_sm > k->occ.blocks_per_sm) {
				snprintf(buf, n, "%zu bytes of shared memory per block (now %zu) would fit %d blocks per SM",
					 sm, total, r.blocks_per_sm);
				return;
			}
		}
	}
	if (k->occ.limiters & (GD_LIM_BLOCKS | GD_LIM_WARPS)) {
		for (int bt = 64; bt <= 1024; bt += 32) {
			kk = (struct gd_occ_kernel){.block_threads = bt, .regs_per_thread = k->regs,
						    .static_smem = (size_t)k->static_smem,
						    .dyn_smem = (size_t)k->dyn_smem,
						    .max_dyn_smem = (size_t)k->dyn_smem, .carveout_pct = -1};
			if (gd_occupancy(d, &kk, &r) == 0 && r.occupancy > k->occ.occupancy + 0.2) {
				snprintf(buf, n, "blocks of %d threads (now %d) would reach %.0f %% occupancy", bt,
					 k->block_threads, 100 * r.occupancy);
				return;
			}
		}
	}
}

/* Concurrency of the hot kernels (one sweep over every kernel's start and end): for each of
 * the first n kernel slots, idle[q] = the time integral, while an instance of it ran, of the
 * share of its device's SMs that no running kernel's grid covered (a 128-block kernel beside
 * another 128-block kernel on 132 SMs leaves none idle), and alone[q] = the time it ran with
 * no other kernel on its device. Grids count up to the SM count each (a larger grid fills
 * every SM). The kernels are already in start order (gd_profile_finish), so only their ends
 * are sorted, and the two orders are merged: 16 bytes a kernel, not 48 for every start and
 * end sorted together (a million-kernel profile's peak memory was this sort). */
struct sweep_end {
	int64_t t;
	long k;
};

static int cmp_sweep_end(const void *x, const void *y)
{
	const struct sweep_end *a = x, *b = y;
	return a->t < b->t ? -1 : a->t > b->t;
}

static int concurrency(const struct ctx *c, int n, double *idle, double *alone)
{
	const struct gd_profile *p = c->p;
	struct sweep_end *e = malloc(((size_t)p->nk + 1) * sizeof(*e));
	double cover[8] = {0};
	long running[8] = {0}, mine[8][10] = {{0}};
	int64_t prev = 0;
	if (!e || n > 10)
		return free(e), -1;
	for (int q = 0; q < n; q++)
		idle[q] = alone[q] = 0;
	for (long i = 0; i < p->nk; i++) {
		if (i && p->k[i].start < p->k[i - 1].start)
			return free(e), -1; /* not finished: never expected */
		e[i] = (struct sweep_end){p->k[i].end, i};
	}
	qsort(e, (size_t)p->nk, sizeof(*e), cmp_sweep_end);
	/* ends before starts at the same instant; the order among events at one instant
	 * changes nothing else, since no time passes between them */
	for (long si = 0, ei = 0, x = 0; si < p->nk || ei < p->nk; x++) {
		int is_end = si >= p->nk || (ei < p->nk && e[ei].t <= p->k[si].start);
		long ki = is_end ? e[ei].k : si;
		int64_t t = is_end ? e[ei++].t : p->k[si++].start;
		int delta = is_end ? -1 : +1;
		double dt = x ? gd_dur_ns(prev, t) : 0;
		if (dt > 0)
			for (int dv = 0; dv < 8; dv++) {
				int sms = dv < c->p->ndev ? c->p->dev[dv].occ.sm_count : 0;
				for (int q = 0; q < n && running[dv]; q++) {
					if (!mine[dv][q])
						continue;
					if (sms > 0 && cover[dv] < sms)
						idle[q] += dt * (1.0 - cover[dv] / sms);
					if (running[dv] == mine[dv][q] && mine[dv][q] == 1)
						alone[q] += dt;
				}
			}
		prev = t;
		const struct gd_pkernel *k = &p->k[ki];
		int dv = k->device >= 0 && k->device < 8 ? k->device : 0;
		int sms = dv < p->ndev ? p->dev[dv].occ.sm_count : 0;
		double g = (double)gd_dim3_count(k->grid);
		if (sms > 0 && g > sms)
			g = sms;
		int sl = k->name >= 0 && k->name < p->nnames ? c->slot[k->name] : -1;
		running[dv] += delta;
		cover[dv] += delta * g;
		if (sl >= 0 && sl < n)
			mine[dv][sl] += delta;
	}
	free(e);
	return 0;
}

/* Why the calculator refused a device of the profile (its recorded properties are out of any
 * GPU's range), or NULL when the device is fine or unknown. */
static const char *device_out_of_range(const struct gd_profile *p, int dev)
{
	const char *why;
	if (dev < 0 || dev >= p->ndev || !p->dev[dev].occ_ok)
		return NULL;
	return gd_occ_device_check(&p->dev[dev].occ, &why) ? why : NULL;
}

static void rule_occupancy(struct ctx *c, struct gd_finding *f)
{
	const struct gd_profile *p = c->p;
	const struct gd_summary *s = c->s;
	char b1[32], b2[32], lim[96], fix[256];
	double stake_total = 0, worst = -1;
	int judged = 0, sev = GD_SEV_NONE, worst_measured = 0;
	const char *advice = "", *bad_dev = NULL;
	static char advice_buf[600];
	double idle_sm[10], alone[10];
	int have_conc;
	if (!c->judge_gpu || s->kernel_ns <= 0) {
		insufficient(f, "Too little kernel time to judge occupancy.");
		return;
	}
	have_conc = concurrency(c, s->nks < 10 ? s->nks : 10, idle_sm, alone) == 0;
	for (int i = 0; i < s->nks && i < 10; i++) {
		const struct gd_kstat *k = &s->ks[i];
		const struct gd_kc_kernel *kc = kc_of_slot(c, i);
		double kshare = k->total_ns / s->kernel_ns, stake = 0;
		int measured = 0; /* 1: theoretical low with achieved measured, 2: achieved ≪ theoretical */
		int lib_tuned = k->lib == GD_LIB_CUBLAS || k->lib == GD_LIB_CUDNN || k->lib == GD_LIB_FLASH ||
				k->lib == GD_LIB_NCCL;
		char what[300] = "";
		if (kshare < HOT_KERNEL_SHARE)
			break;
		/* NCCL kernels use few blocks on purpose (one per channel); their cost is judged
		 * by the communication rule */
		if (!k->occ_ok && !bad_dev)
			bad_dev = device_out_of_range(p, k->device);
		if (!k->occ_ok || k->kind == GD_KIND_NCCL)
			continue;
		judged++;
		int sms = p->dev[k->device].occ.sm_count;
		/* the time the kernel shared the GPU fills the SMs its own grid leaves idle, and
		 * fills its tail wave: only the idle SM time, and the time it ran alone, are at
		 * stake (summed kernel time can exceed the span when kernels overlap) */
		double solo = have_conc && k->total_ns > 0 ? alone[i] / k->total_ns : 1;
		if (sms > 0 && k->grid_blocks < sms) {
			double idle_frac = have_conc && k->total_ns > 0 ? idle_sm[i] / k->total_ns
								  : 1.0 - (double)k->grid_blocks / sms;
			if (idle_frac >= GRID_IDLE_MIN) {
				stake = idle_frac * k->total_ns / s->kernel_ns;
				if (solo < 0.99)
					snprintf(what, sizeof(what),
						 "grid of %lld block%s leaves %lld of %d SMs idle; with the kernels beside it "
						 "%.0f %% of the SMs stayed idle while it ran",
						 k->grid_blocks, k->grid_blocks == 1 ? "" : "s", sms - k->grid_blocks, sms,
						 100 * idle_frac);
				else
					snprintf(what, sizeof(what), "grid of %lld block%s leaves %lld of %d SMs idle",
						 k->grid_blocks, k->grid_blocks == 1 ? "" : "s", sms - k->grid_blocks, sms);
			}
		} else if (kc && isfinite(kc->achieved_occ_pct) && kc_at_roof(kc)) {
			/* measured at a roof: bound by that roof, so more warps would not make it
			 * faster (a persistent GEMM holds one block per SM by design) */
			ev(f, "at_roof", kc_place(kc).reached / 100, "fraction",
			   "%s: at %.0f %% of its roof (kernel counters), so not short of warps", k->short_name,
			   kc_place(kc).reached);
		} else if (kc && isfinite(kc->achieved_occ_pct)) {
			/* measured (issue 19): achieved against theoretical decides, not the waves'
			 * prediction. The stake is half the kernel's share scaled by the warp slots
			 * left empty, as for a low theoretical occupancy below: fewer warps cost time
			 * only where they no longer hide the latency */
			double th = isfinite(kc->theoretical_occ_pct) ? kc->theoretical_occ_pct / 100 : k->occ.occupancy;
			double ach = kc->achieved_occ_pct / 100;
			const char *lm = kc->occ_limiter ? kc->occ_limiter : gd_occ_limiters_str(k->occ.limiters, lim, sizeof(lim));
			if (th < OCC_LOW && !lib_tuned) {
				stake = solo * kshare * 0.5 * (1 - th / OCC_LOW);
				snprintf(what, sizeof(what), "theoretical occupancy %.0f %%, limited by %s (achieved %.0f %%, measured)",
					 100 * th, lm, 100 * ach);
				measured = 1;
			} else if (th > 0 && ach < KC_OCC_RATIO * th) {
				stake = solo * kshare * 0.5 * (1 - ach / th);
				snprintf(what, sizeof(what),
					 "achieved occupancy %.0f %% (measured) of a theoretical %.0f %% (limited by %s): the SMs held "
					 "fewer warps than the launch allows, a tail wave or blocks of unequal work",
					 100 * ach, 100 * th, lm);
				measured = 2;
			}
		} else if (!lib_tuned && isfinite(k->waves) && k->waves > 1 && k->waves < 4 && k->last_wave_fill < 0.5) {
			/* library kernels are often persistent (a grid sized to the SMs, looping over
			 * tiles), where blocks ÷ resident blocks says nothing about waves */
			stake = solo * kshare * (1.0 - k->last_wave_fill) / ceil(k->waves);
			snprintf(what, sizeof(what), "%.2f waves: the last wave fills only %.0f %% of the SMs", k->waves,
				 100 * k->last_wave_fill);
		} else if (k->occ.occupancy < OCC_LOW && !lib_tuned) {
			/* the time at stake is unknown without counters; the kernel's share bounds it */
			stake = solo * kshare * 0.5 * (1 - k->occ.occupancy / OCC_LOW);
			snprintf(what, sizeof(what), "theoretical occupancy %.0f %%, limited by %s", 100 * k->occ.occupancy,
				 gd_occ_limiters_str(k->occ.limiters, lim, sizeof(lim)));
		}
		if (have_conc && solo < 0.99)
			ev(f, "ran_alone_fraction", solo, "fraction", "%s ran alone on its GPU %s of its time",
			   k->short_name, pc(b1, solo));
		ev(f, "occupancy", k->occ.occupancy, "fraction", "%s: %s of kernel time, occupancy %.0f %% (%s), grid %lld × %d",
		   k->short_name, pc(b1, kshare), 100 * k->occ.occupancy,
		   gd_occ_limiters_str(k->occ.limiters, lim, sizeof(lim)), k->grid_blocks, k->block_threads);
		if (kc && isfinite(kc->achieved_occ_pct))
			ev(f, "achieved_occupancy", kc->achieved_occ_pct / 100, "fraction",
			   "%s: achieved occupancy %.0f %% (kernel counters, %d launch%s) of a theoretical %.0f %%", k->short_name,
			   kc->achieved_occ_pct, kc->launches, kc->launches == 1 ? "" : "es",
			   isfinite(kc->theoretical_occ_pct) ? kc->theoretical_occ_pct : 100 * k->occ.occupancy);
		if (!*what)
			continue;
		stake_total += stake;
		if (stake > worst) {
			worst = stake;
			snprintf(f->kernel, sizeof(f->kernel), "%s", k->short_name);
			occ_fix(p, k, fix, sizeof(fix));
			worst_measured = measured;
			if (measured == 2)
				snprintf(advice_buf, sizeof(advice_buf),
					 "%s: balance the work so every SM stays full to the end: a grid that is a multiple of SMs × "
					 "blocks per SM (or many waves), equal work per block (grid-stride loops over equal "
					 "chunks, variable-length items sorted or split), no whole warps exiting early (§6).",
					 k->short_name);
			else
				snprintf(advice_buf, sizeof(advice_buf),
					 "%s: %s.%s%s%s Give every SM work: at least as many blocks as SMs, and several waves or a "
					 "grid that is a multiple of SMs × blocks per SM (§6).",
					 k->short_name, what, *fix ? " Change: " : "", fix, *fix ? "." : "");
			snprintf(f->headline, sizeof(f->headline), "Hot kernel %s (%s of kernel time): %s.", k->short_name,
				 pc(b2, kshare), what);
			advice = advice_buf;
		}
	}
	if (!judged && bad_dev) {
		char why[160];
		snprintf(why, sizeof(why), "The hot kernels' occupancy is unknown: %s.", bad_dev);
		insufficient(f, why);
		return;
	}
	if (!judged) {
		insufficient(f, "The hot kernels' launch configuration or the device properties are missing.");
		return;
	}
	if (worst < 0) {
		clear(f, "The hot kernels fill the SMs and their occupancy is not low.");
		return;
	}
	/* stake is a share of kernel time; express it against the span */
	double share = clamp01(stake_total * s->kernel_ns / c->span);
	sev = share >= OCC_WARN ? GD_SEV_WARN : GD_SEV_INFO;
	if (worst_measured)
		f->basis = GD_BASIS_KCOUNTERS;
	char head[300];
	snprintf(head, sizeof(head), "%s", f->headline);
	fire(f, sev, share, advice, "%s", head);
}

/* ---- measured counters (issue 18) ------------------------------------------------------ */
/* A kernel's DRAM throughput in % of peak: the measured total, else read + write (one bus,
 * one peak); NaN when it has no counters or neither was collected. */
static double k_dram(const struct gd_kstat *k)
{
	double r = k->pm[GD_PM_DRAM_READ], w = k->pm[GD_PM_DRAM_WRITE];
	if (k->pm_samples <= 0)
		return NAN;
	if (isfinite(k->pm[GD_PM_DRAM]))
		return k->pm[GD_PM_DRAM];
	return isfinite(r) && isfinite(w) ? fmin(100.0, r + w) : NAN;
}

/* One counter of a kernel, NaN when it has none. */
static double k_pm(const struct gd_kstat *k, int m) { return k->pm_samples > 0 ? k->pm[m] : NAN; }

/* The busier of SM issue and the tensor pipe, % of peak; NaN when neither was counted. */
static double k_compute(const struct gd_kstat *k)
{
	double i = k_pm(k, GD_PM_SM_ISSUE), tp = k_pm(k, GD_PM_TENSOR);
	if (isfinite(i) && isfinite(tp))
		return i > tp ? i : tp;
	return isfinite(i) ? i : tp;
}

/* A counter in words: "85 %", "1.5 %", "unknown". */
static char *pp(char *b, double v)
{
	if (!isfinite(v))
		snprintf(b, 32, "unknown");
	else
		snprintf(b, 32, v < 10 ? "%.1f %%" : "%.0f %%", v);
	return b;
}

/* Why the profile has no counters, from meta.counters: "no counters: <reason>", or "" when it
 * has them or does not say (recorded before counters existed, a synthetic profile). */
static const char *no_counters(const struct gd_profile *p, char *b, size_t n)
{
	if (!strncmp(p->counters, "no counters:", 12))
		snprintf(b, n, "%.250s", p->counters);
	else if (!strcmp(p->counters, "off"))
		snprintf(b, n, "no counters: switched off (--no-counters)");
	else
		b[0] = 0;
	return b;
}

/* The memory-bound rule's class of one kernel: measured where its DRAM throughput was
 * counted, else guessed from its name's kind. A kernel with per-kernel counters that place it
 * on the roofline (issue 19) is the roofline rule's: counted there, not here, so one kernel is
 * not reported twice, and by the more specific measurement (its own launches' bytes and FLOPs
 * rather than PM samples or its name); it still takes part in fusion pairs (MB_KC_MEM). */
enum { MB_GUESS_NOT = 0, MB_GUESS, MB_MEAS_NOT, MB_MEAS, MB_KC_NOT, MB_KC_MEM };
static int mb_class(const struct gd_kstat *k, const struct gd_kc_kernel *kc)
{
	double d = k_dram(k), cpt = k_compute(k);
	if (kc) {
		int b = kc_place(kc).bound;
		if (b != RP_UNKNOWN)
			return b == RP_MEMORY ? MB_KC_MEM : MB_KC_NOT;
	}
	if (!isfinite(d))
		return gd_kind_memory_bound(k->kind) ? MB_GUESS : MB_GUESS_NOT;
	/* compute unknown: DRAM at its bottleneck line decides alone */
	return d >= PM_BOUND_PCT && !(isfinite(cpt) && d - cpt < PM_MEM_MARGIN_PCT) ? MB_MEAS : MB_MEAS_NOT;
}

#define MEMBOUND_ADVICE                                                                                           \
	"Memory-bound kernels are limited by HBM bandwidth, not FLOPs: fuse chains of elementwise/normalisation "   \
	"kernels (torch.compile, Triton, a hand-written fused kernel) so data is read once, use lower precision "  \
	"to move fewer bytes, and check each against the measured bandwidth ceiling (gpudiag roofline) (§4, §9, " \
	"§10)."
#define TENSOR_ADVICE                                                                                             \
	"Let matrix math use the tensor cores: allow TF32 (torch.backends.cuda.matmul.allow_tf32 = True, "         \
	"torch.set_float32_matmul_precision(\"high\")), or run in BF16/FP16 with autocast (AMP); this GPU's "       \
	"tensor cores are many times faster than its FP32 CUDA cores (§3)."

static int mb_yes(int cls) { return cls == MB_GUESS || cls == MB_MEAS || cls == MB_KC_MEM; }

static int membound_sev(double frac, double share)
{
	if (frac < MEMBOUND_INFO)
		return GD_SEV_NONE;
	return frac >= MEMBOUND_WARN && share >= 0.1 ? GD_SEV_WARN : GD_SEV_INFO;
}

/* The counters of one kernel in words, for evidence. */
static void k_counters_text(const struct gd_summary *s, const struct gd_kstat *k, char *out, size_t n)
{
	char b1[32], b2[32], b3[32], b4[32], b5[32];
	snprintf(out, n, "%s: DRAM %s of peak, SM issue %s, tensor pipe %s, SM active %s; %s of kernel time (%ld samples)",
		 k->short_name, pp(b1, k_dram(k)), pp(b2, k_pm(k, GD_PM_SM_ISSUE)), pp(b3, k_pm(k, GD_PM_TENSOR)),
		 pp(b4, k_pm(k, GD_PM_SM_ACTIVE)), pc(b5, k->total_ns / s->kernel_ns), k->pm_samples);
}

static void rule_membound(struct ctx *c, struct gd_finding *f)
{
	const struct gd_profile *p = c->p;
	const struct gd_summary *s = c->s;
	char b1[32], b2[32], b3[32], b4[32], nc[300], kt[200];
	double mem = 0, meas_ns = 0, mem_meas = 0, mem_guess = 0, overruled = 0, kc_ns = 0;
	const struct gd_kstat *over = NULL, *top_meas = NULL;
	unsigned char *cls;
	int nlisted = 0;
	if (!c->judge_gpu || s->kernel_ns <= 0) {
		insufficient(f, "Too little kernel time to classify.");
		return;
	}
	no_counters(p, nc, sizeof(nc));
	cls = calloc((size_t)s->nks + 1, 1);
	if (!cls) {
		insufficient(f, "Out of memory while classifying the kernels.");
		return;
	}
	for (int i = 0; i < s->nks; i++) {
		const struct gd_kstat *k = &s->ks[i];
		cls[i] = (unsigned char)mb_class(k, kc_of_slot(c, i));
		if (cls[i] == MB_MEAS_NOT || cls[i] == MB_MEAS)
			meas_ns += k->total_ns;
		if (cls[i] >= MB_KC_NOT)
			kc_ns += k->total_ns;
		if (cls[i] == MB_MEAS) {
			mem_meas += k->total_ns;
			if (!top_meas)
				top_meas = k;
		} else if (cls[i] == MB_GUESS)
			mem_guess += k->total_ns;
		if (cls[i] == MB_MEAS_NOT && gd_kind_memory_bound(k->kind)) {
			overruled += k->total_ns;
			if (!over)
				over = k;
		}
	}
	if (meas_ns <= 0 && kc_ns <= 0) {
		/* nothing measured: the kinds' totals, exactly as before counters existed */
		for (int k = 0; k < GD_KIND_COUNT; k++)
			if (gd_kind_memory_bound(k))
				mem += s->kind_ns[k];
		mem_guess = mem;
	} else {
		mem = mem_meas + mem_guess;
	}
	double frac = mem / s->kernel_ns;
	if (kc_ns > 0)
		ev(f, "memory_bound_fraction", frac, "fraction",
		   "%s of kernel time in memory-bound kernels without kernel counters (%s by PM samples, %s by names); %s "
		   "with kernel counters, placed by the roofline rule",
		   pc(b1, frac), pc(b2, mem_meas / s->kernel_ns), pc(b3, mem_guess / s->kernel_ns), pc(b4, kc_ns / s->kernel_ns));
	else if (meas_ns <= 0)
		ev(f, "memory_bound_fraction", frac, "fraction",
		   "%s of kernel time in memory-bound kinds (elementwise, reduction, normalisation, softmax, copy)",
		   pc(b1, frac));
	else
		ev(f, "memory_bound_fraction", frac, "fraction",
		   "%s of kernel time in memory-bound kernels: %s measured (DRAM ≥ %.0f %% of peak, %.0f points above SM "
		   "issue and tensor pipe), %s guessed from the names of kernels without counters",
		   pc(b1, frac), pc(b2, mem_meas / s->kernel_ns), PM_BOUND_PCT, PM_MEM_MARGIN_PCT,
		   pc(b3, mem_guess / s->kernel_ns));
	if (*nc)
		ev(f, "counters", NAN, "", "%s: kinds guessed from kernel names", nc);
	for (int i = 0; i < s->nks && nlisted < 3; i++)
		if (cls[i] == MB_MEAS) {
			char key[40];
			k_counters_text(s, &s->ks[i], kt, sizeof(kt));
			snprintf(key, sizeof(key), "kernel%d_dram_fraction", ++nlisted);
			ev(f, key, k_dram(&s->ks[i]) / 100, "fraction", "%s", kt);
		}
	if (over)
		ev(f, "names_overruled_fraction", overruled / s->kernel_ns, "fraction",
		   "%s of kernel time in kernels named memory-bound whose counters say not (e.g. %s: DRAM %s of peak, SM "
		   "issue %s): not counted",
		   pc(b1, overruled / s->kernel_ns), over->short_name, pp(b2, k_dram(over)), pp(b3, k_pm(over, GD_PM_SM_ISSUE)));
	ev(f, "compute_kinds_fraction",
	   (s->kind_ns[GD_KIND_GEMM] + s->kind_ns[GD_KIND_CONV] + s->kind_ns[GD_KIND_ATTENTION]) / s->kernel_ns,
	   "fraction", "%s in GEMM, convolution and attention",
	   pc(b1, (s->kind_ns[GD_KIND_GEMM] + s->kind_ns[GD_KIND_CONV] + s->kind_ns[GD_KIND_ATTENTION]) / s->kernel_ns));
	if (meas_ns > 0)
		ev(f, "measured_fraction", meas_ns / s->kernel_ns, "fraction",
		   "%s of kernel time in kernels with DRAM counters%s", pc(b1, meas_ns / s->kernel_ns),
		   meas_ns < s->kernel_ns ? " (the others never ran alone long enough to be attributed samples)" : "");
	ev(f, "roofline_position", NAN, "",
	   kc_ns > 0 ? "the kernels with kernel counters are placed against the ceilings by the roofline rule"
	   : meas_ns > 0
		   ? "placement against measured ceilings also needs per-kernel FLOP counts, which PM sampling does not give"
		   : "placement against measured ceilings needs per-kernel counters, which this profile does not hold");
	/* fusion candidates: the most time-consuming pair of memory-bound kernels that follow
	 * each other on the same stream */
	{
		enum { HB = 1 << 14 };
		struct pair {
			int a, b;
			long n;
			double ns;
		} *h = calloc(HB, sizeof(*h));
		int last_slot[64];
		int64_t last_stream[64];
		double last_d[64];
		int last_pair[64]; /* the pair entry the previous kernel was counted in as its second, or -1 */
		int nls = 0;
		if (h) {
			for (long i = 0; i < p->nk; i++) {
				const struct gd_pkernel *k = &p->k[i];
				int sl = c->slot[k->name], q;
				double d = gd_dur_ns(k->start, k->end);
				for (q = 0; q < nls && last_stream[q] != k->stream; q++)
					;
				if (q == nls) {
					if (nls == 64)
						continue;
					nls++;
					last_stream[q] = k->stream;
					last_slot[q] = -1;
					last_pair[q] = -1;
				}
				int counted = -1;
				if (sl >= 0 && last_slot[q] >= 0 && mb_yes(cls[sl]) && mb_yes(cls[last_slot[q]])) {
					unsigned hv = ((unsigned)last_slot[q] * 2654435761u ^ (unsigned)sl * 40503u) & (HB - 1);
					for (int probe = 0; probe < 64; probe++, hv = (hv + 1) & (HB - 1)) {
						if (h[hv].n == 0) {
							h[hv].a = last_slot[q];
							h[hv].b = sl;
						}
						if (h[hv].a == last_slot[q] && h[hv].b == sl) {
							h[hv].n++;
							/* in a chain a → a → a each kernel closes one pair and opens
							 * the next: count every kernel once per candidate */
							h[hv].ns += d + (last_pair[q] == (int)hv ? 0 : last_d[q]);
							counted = (int)hv;
							break;
						}
					}
				}
				last_slot[q] = sl;
				last_d[q] = d;
				last_pair[q] = counted;
			}
			int best = -1;
			for (int i = 0; i < HB; i++)
				if (h[i].n >= 2 && (best < 0 || h[i].ns > h[best].ns))
					best = i;
			if (best >= 0) {
				int same = h[best].a == h[best].b;
				/* fusing two memory-bound kernels saves about one round trip through memory:
				 * half their time, as for the rule's total below */
				ev(f, "fusion_pair_count", (double)h[best].n, "count",
				   "fusion candidate: %s%s%s, %ld times, %s in those kernels", s->ks[h[best].a].short_name,
				   same ? " twice in a row on one stream" : " → ", same ? "" : s->ks[h[best].b].short_name,
				   h[best].n, t(b1, h[best].ns));
				ev(f, "fusion_pair_saving_ns", 0.5 * h[best].ns, "ns",
				   "fusing them could save ~%s (half: one round trip through memory)", t(b1, 0.5 * h[best].ns));
				snprintf(f->kernel, sizeof(f->kernel), "%s", s->ks[h[best].b].short_name);
			}
			free(h);
		}
	}
	free(cls);
	if (frac < MEMBOUND_INFO) {
		if (kc_ns > 0)
			clear(f, "%s of kernel time in memory-bound kernels without kernel counters; %s placed on the roofline by "
				 "their counters (roofline).",
			      pc(b1, frac), pc(b2, kc_ns / s->kernel_ns));
		else if (meas_ns <= 0)
			clear(f, "%s of kernel time in memory-bound kinds.", pc(b1, frac));
		else
			clear(f, "%s of kernel time in memory-bound kernels (%s measured by DRAM throughput, %s guessed from names).",
			      pc(b1, frac), pc(b2, mem_meas / s->kernel_ns), pc(b3, mem_guess / s->kernel_ns));
		return;
	}
	/* fusing memory-bound chains saves at most their extra round trips; half of their time
	 * is the estimate used here (two kernels → one) */
	double share = clamp01(0.5 * mem / c->span);
	int sev = membound_sev(frac, share);
	/* measured when the kernels with counters alone reach the same severity: the guessed
	 * part then changes nothing */
	f->basis = meas_ns > 0 && membound_sev(mem_meas / s->kernel_ns, clamp01(0.5 * mem_meas / c->span)) == sev
			   ? GD_BASIS_COUNTERS
			   : GD_BASIS_NAMES;
	if (!*f->kernel && top_meas)
		snprintf(f->kernel, sizeof(f->kernel), "%s", top_meas->short_name);
	if (meas_ns <= 0)
		fire(f, sev, share, MEMBOUND_ADVICE,
		     "%s of kernel time (%s) is in memory-bound kernels%s%s; fusing them could save up to ~%s.",
		     pc(b1, frac), t(b2, mem), *f->kernel ? "; top fusion candidate ends in " : "", f->kernel,
		     t(b3, 0.5 * mem));
	else
		fire(f, sev, share, MEMBOUND_ADVICE,
		     "%s of kernel time (%s) is in memory-bound kernels (%s measured by DRAM throughput, %s guessed from "
		     "names)%s%s; fusing them could save up to ~%s.",
		     pc(b1, frac), t(b2, mem), pc(b3, mem_meas / s->kernel_ns), pc(b4, mem_guess / s->kernel_ns),
		     *f->kernel ? "; top candidate " : "", f->kernel, t(kt, 0.5 * mem));
}

/* A GEMM-like kernel's use of the tensor cores from its own counters (issue 19). The tensor
 * instructions (HMMA less nvcc's HFMA2.MMA idiom, GMMA, IMMA, DMMA) decide; the tensor pipe's
 * activity where they were not counted. Without tensor instructions, its matrix math ran on the
 * CUDA cores when their FP32 + FP16 FLOP rate is a real share of the FP32 ceiling; at the DRAM
 * roof tensor cores would not make it faster (a GEMV). KT_UNKNOWN: a figure is missing. */
enum { KT_UNKNOWN = 0, KT_USED, KT_SIMT, KT_LITTLE_MATH, KT_AT_DRAM };
static int kc_tensor(const struct ctx *c, const struct gd_kc_kernel *k, double *fp_pct)
{
	double ti = k->tensor_inst, tact = k->q[GD_KC_TENSOR_ACTIVE], dur = k->q[GD_KC_DURATION];
	double f32 = k->flops[GD_P_FP32], f16 = k->flops[GD_P_FP16];
	double fp = isfinite(f32) && isfinite(f16) ? f32 + f16 : isfinite(f32) ? f32 : f16;
	const struct gd_kc_ceilings *cl = kc_ceil(c->s, k->device);
	double peak = cl ? cl->cuda_core[GD_P_FP32] : NAN;
	*fp_pct = NAN;
	if (!isfinite(ti) && !isfinite(tact))
		return KT_UNKNOWN;
	if (isfinite(ti) ? ti >= 1 : tact >= PM_TENSOR_IDLE_PCT)
		return KT_USED;
	if (k->bound == GD_KB_MEMORY)
		return KT_AT_DRAM;
	if (!isfinite(fp))
		return KT_UNKNOWN;
	if (isfinite(peak) && peak > 0 && isfinite(dur) && dur > 0) {
		*fp_pct = 100 * fp / (dur * 1e-9) / peak;
		return *fp_pct >= KC_TENSOR_FP_PCT ? KT_SIMT : KT_LITTLE_MATH;
	}
	return fp >= KC_TENSOR_FP_MIN ? KT_SIMT : KT_LITTLE_MATH;
}

static int tensor_sev(double frac)
{
	return frac >= TENSOR_HIGH ? GD_SEV_HIGH : frac >= TENSOR_WARN ? GD_SEV_WARN : GD_SEV_NONE;
}

static void rule_tensor(struct ctx *c, struct gd_finding *f)
{
	const struct gd_profile *p = c->p;
	const struct gd_summary *s = c->s;
	char b1[32], b2[32], b3[32], b4[32], nc[300];
	double simt = 0, unknown = 0, mm = 0, simt_meas = 0, meas_ns = 0, overruled = 0, simt_kc = 0, kc_ns = 0;
	const char *worst = NULL;
	const struct gd_kstat *worst_meas = NULL, *over = NULL, *worst_kc = NULL;
	const struct gd_kc_kernel *over_kc = NULL;
	int nlisted = 0;
	const struct gd_arch *a = p->ndev ? gd_arch_find(p->dev[0].major, p->dev[0].minor) : NULL;
	if (!c->judge_gpu || s->kernel_ns <= 0) {
		insufficient(f, "Too little kernel time to judge.");
		return;
	}
	if (!a) {
		insufficient(f, "The GPU's architecture is not in the profile, so tensor-core support is unknown.");
		return;
	}
	if (!a->tensor_gen) {
		clear(f, "This GPU has no tensor cores.");
		return;
	}
	no_counters(p, nc, sizeof(nc));
	for (int i = 0; i < s->nks; i++) {
		const struct gd_kstat *k = &s->ks[i];
		double tp = k_pm(k, GD_PM_TENSOR), d = k_dram(k);
		if (k->kind != GD_KIND_GEMM && k->kind != GD_KIND_CONV)
			continue;
		mm += k->total_ns;
		/* its own counters first (issue 19): the most specific measurement */
		const struct gd_kc_kernel *kc = kc_of_slot(c, i);
		double fpp;
		int kt = kc ? kc_tensor(c, kc, &fpp) : KT_UNKNOWN;
		if (kt != KT_UNKNOWN) {
			kc_ns += k->total_ns;
			if (kt == KT_SIMT) {
				simt_kc += k->total_ns;
				if (!worst_kc)
					worst_kc = k;
			} else if (kt == KT_USED && k->tc == 0) {
				overruled += k->total_ns;
				if (!over) {
					over = k;
					over_kc = kc;
				}
			}
			continue;
		}
		if (isfinite(tp)) {
			/* measured: the tensor pipe decides, whatever the name says; a GEMM (a GEMV)
			 * at the DRAM bottleneck would not run faster on tensor cores */
			meas_ns += k->total_ns;
			if (tp < PM_TENSOR_IDLE_PCT && !(isfinite(d) && d >= PM_BOUND_PCT)) {
				simt_meas += k->total_ns;
				if (!worst_meas)
					worst_meas = k;
			} else if (k->tc == 0) {
				overruled += k->total_ns;
				if (!over)
					over = k;
			}
		} else if (k->tc == 0) {
			simt += k->total_ns;
			if (!worst)
				worst = k->short_name;
		} else if (k->tc < 0 && k->lib == GD_LIB_USER) {
			unknown += k->total_ns;
		}
	}
	double frac = (simt + simt_meas + simt_kc) / s->kernel_ns;
	ev(f, "matmul_fraction", mm / s->kernel_ns, "fraction", "%s of kernel time in GEMM/convolution",
	   pc(b1, mm / s->kernel_ns));
	if (kc_ns > 0)
		ev(f, "fp32_simt_fraction", frac, "fraction",
		   "%s in CUDA-core matrix math: %s by kernel counters (no tensor instruction, FP32/FP16 at ≥ %.0f %% of the "
		   "FP32 ceiling), %s by PM samples, %s from names",
		   pc(b1, frac), pc(b2, simt_kc / s->kernel_ns), KC_TENSOR_FP_PCT, pc(b3, simt_meas / s->kernel_ns),
		   pc(b4, simt / s->kernel_ns));
	else if (meas_ns <= 0)
		ev(f, "fp32_simt_fraction", frac, "fraction",
		   "%s in kernels whose names mark FP32 CUDA-core math (sgemm, simt)", pc(b1, frac));
	else
		ev(f, "fp32_simt_fraction", frac, "fraction",
		   "%s in FP32 CUDA-core matrix math: %s measured (tensor pipe < %.0f %% active), %s from the names of "
		   "kernels without counters (sgemm, simt)",
		   pc(b1, frac), pc(b2, simt_meas / s->kernel_ns), PM_TENSOR_IDLE_PCT, pc(b3, simt / s->kernel_ns));
	if (*nc)
		ev(f, "counters", NAN, "", "%s: precision guessed from kernel names", nc);
	for (int i = 0; i < s->nks && nlisted < 2 && kc_ns > 0; i++) {
		const struct gd_kstat *k = &s->ks[i];
		const struct gd_kc_kernel *kc = kc_of_slot(c, i);
		double fpp;
		if ((k->kind == GD_KIND_GEMM || k->kind == GD_KIND_CONV) && kc && kc_tensor(c, kc, &fpp) == KT_SIMT) {
			char key[40], fl[32];
			double f32 = kc->flops[GD_P_FP32], f16 = kc->flops[GD_P_FP16], dur = kc->q[GD_KC_DURATION];
			double fp = (isfinite(f32) ? f32 : 0) + (isfinite(f16) ? f16 : 0);
			snprintf(key, sizeof(key), "kernel%d_tensor_inst", ++nlisted);
			ev(f, key, kc->tensor_inst, "count",
			   "%s: %.0f tensor instructions per launch, FP32/FP16 %s (%s of the FP32 CUDA-core ceiling), tensor pipe "
			   "%s active; %s of kernel time",
			   k->short_name, kc->tensor_inst, gd_fmt_si(fl, 32, dur > 0 ? fp / (dur * 1e-9) : NAN, "FLOP/s"),
			   pp(b2, fpp), pp(b3, kc->q[GD_KC_TENSOR_ACTIVE]), pc(b4, k->total_ns / s->kernel_ns));
		}
	}
	for (int i = 0; i < s->nks && nlisted < 2; i++) {
		const struct gd_kstat *k = &s->ks[i];
		if (kc_of_slot(c, i) && kc_ns > 0) {
			double fpp;
			if (kc_tensor(c, kc_of_slot(c, i), &fpp) != KT_UNKNOWN)
				continue;
		}
		double tp = k_pm(k, GD_PM_TENSOR), d = k_dram(k);
		if ((k->kind == GD_KIND_GEMM || k->kind == GD_KIND_CONV) && isfinite(tp) && tp < PM_TENSOR_IDLE_PCT &&
		    !(isfinite(d) && d >= PM_BOUND_PCT)) {
			char key[40], kt[200];
			k_counters_text(s, k, kt, sizeof(kt));
			snprintf(key, sizeof(key), "kernel%d_tensor_fraction", ++nlisted);
			ev(f, key, tp / 100, "fraction", "%s", kt);
		}
	}
	if (over_kc) {
		ev(f, "names_overruled_fraction", overruled / s->kernel_ns, "fraction",
		   "%s of kernel time in kernels whose names say FP32 but whose counters say otherwise (e.g. %s: %.0f tensor "
		   "instructions per launch, tensor pipe %s active): not counted",
		   pc(b1, overruled / s->kernel_ns), over->short_name, over_kc->tensor_inst,
		   pp(b3, over_kc->q[GD_KC_TENSOR_ACTIVE]));
	} else if (over) {
		ev(f, "names_overruled_fraction", overruled / s->kernel_ns, "fraction",
		   "%s of kernel time in kernels whose names say FP32 but whose counters say otherwise (e.g. %s: tensor "
		   "pipe %s, DRAM %s): not counted",
		   pc(b1, overruled / s->kernel_ns), over->short_name, pp(b3, k_pm(over, GD_PM_TENSOR)),
		   pp(b4, k_dram(over)));
	}
	ev(f, "unknown_precision_fraction", unknown / s->kernel_ns, "fraction",
	   "%s in user GEMM kernels whose precision the name does not tell", pc(b1, unknown / s->kernel_ns));
	if (worst_kc)
		snprintf(f->kernel, sizeof(f->kernel), "%s", worst_kc->short_name);
	else if (worst_meas)
		snprintf(f->kernel, sizeof(f->kernel), "%s", worst_meas->short_name);
	else if (worst)
		snprintf(f->kernel, sizeof(f->kernel), "%s", worst);
	int sev = tensor_sev(frac);
	/* measured when the kernels with counters alone reach the same severity: their own
	 * counters first, then PM samples (with them) */
	f->basis = kc_ns > 0 && tensor_sev(simt_kc / s->kernel_ns) == sev ? GD_BASIS_KCOUNTERS
		   : meas_ns > 0 && tensor_sev((simt_meas + simt_kc) / s->kernel_ns) == sev ? GD_BASIS_COUNTERS
											 : GD_BASIS_NAMES;
	if (frac >= TENSOR_WARN) {
		double share = clamp01((simt + simt_meas + simt_kc) / c->span);
		if (f->basis == GD_BASIS_KCOUNTERS)
			fire(f, sev, share, TENSOR_ADVICE,
			     "%s of kernel time is matrix math on the CUDA cores with no tensor-core instruction (kernel "
			     "counters: %s) on a GPU with %s tensor cores.",
			     pc(b1, frac), worst_kc->short_name, a->tensor_gen);
		else if (f->basis == GD_BASIS_COUNTERS)
			fire(f, sev, share, TENSOR_ADVICE,
			     "%s of kernel time is matrix math with the tensor pipe idle (measured: %s, tensor pipe %s "
			     "active) on a GPU with %s tensor cores.",
			     pc(b1, frac), worst_meas->short_name, pp(b2, k_pm(worst_meas, GD_PM_TENSOR)), a->tensor_gen);
		else
			fire(f, sev, share, TENSOR_ADVICE,
			     "%s of kernel time is FP32 matrix math on CUDA cores (e.g. %s) on a GPU with %s tensor cores.",
			     pc(b1, frac), worst ? worst : worst_meas ? worst_meas->short_name : worst_kc ? worst_kc->short_name : "?",
			     a->tensor_gen);
		return;
	}
	f->basis = GD_BASIS_NAMES;
	if (unknown / s->kernel_ns >= 0.2) {
		fire(f, GD_SEV_INFO, NAN,
		     "If these hand-written GEMMs use FP32 FMA loops, tensor-core instructions (wmma/mma, or cuBLAS) would "
		     "be much faster (§3).",
		     "%s of kernel time is in hand-written GEMM kernels whose use of tensor cores cannot be told from the "
		     "name.",
		     pc(b2, unknown / s->kernel_ns));
		return;
	}
	if (meas_ns > 0)
		f->basis = GD_BASIS_COUNTERS;
	if (kc_ns > 0)
		f->basis = GD_BASIS_KCOUNTERS;
	if (kc_ns > 0)
		clear(f, "No significant FP32 CUDA-core matrix math (%s; %s of kernel time in GEMMs with kernel counters, "
			 "whose tensor instructions decide).",
		      pc(b1, frac), pc(b2, kc_ns / s->kernel_ns));
	else if (meas_ns <= 0)
		clear(f, "No significant FP32 CUDA-core matrix math (%s).", pc(b1, frac));
	else
		clear(f, "No significant FP32 CUDA-core matrix math (%s; %s of kernel time in GEMMs with counters, whose "
			 "tensor pipe decides).",
		      pc(b1, frac), pc(b2, meas_ns / s->kernel_ns));
}

/* Busy but not throughput-bound (§10 §14): a hot kernel whose SMs all hold warps (SM active
 * high) that seldom issue (SM issue low) while neither DRAM, L2 nor the tensor pipe is near its
 * peak. Its warps wait on latency: dependent loads, barriers, atomics, too little independent
 * work per warp. Only counters can tell; names cannot. */
static int latency_bound(const struct gd_kstat *k)
{
	double act = k_pm(k, GD_PM_SM_ACTIVE), iss = k_pm(k, GD_PM_SM_ISSUE), d = k_dram(k);
	double tp = k_pm(k, GD_PM_TENSOR), l2 = k_pm(k, GD_PM_L2);
	/* unknown DRAM is not low: the kernel may be waiting on bandwidth */
	if (!isfinite(act) || !isfinite(iss) || !isfinite(d))
		return -1;
	return act >= PM_SM_BUSY_PCT && iss < PM_ISSUE_LOW_PCT && d < PM_PIPE_LOW_PCT &&
	       !(isfinite(tp) && tp >= PM_PIPE_LOW_PCT) && !(isfinite(l2) && l2 >= PM_BOUND_PCT);
}

static void rule_latency(struct ctx *c, struct gd_finding *f)
{
	const struct gd_profile *p = c->p;
	const struct gd_summary *s = c->s;
	char b1[32], b2[32], b3[32], b4[32], b5[32], b6[32], nc[300], why[400], kt[200];
	double lat = 0, meas = 0, hot = 0, kc_ns = 0;
	const struct gd_kstat *worst = NULL;
	int any = 0, nlisted = 0;
	if (!c->judge_gpu || s->kernel_ns <= 0) {
		insufficient(f, "Too little kernel time to judge.");
		return;
	}
	for (int i = 0; i < s->nks; i++)
		any |= s->ks[i].pm_samples > 0;
	if (!any) {
		if (c->nkc > 0)
			snprintf(why, sizeof(why),
				 "No PM samples (a --metrics run leaves the counters to the range profiler): the profiled "
				 "kernels' roofline position says it instead (roofline).");
		else if (*no_counters(p, nc, sizeof(nc)))
			snprintf(why, sizeof(why), "Only the GPU's counters can tell, and %s.", nc);
		else if (!strcmp(p->counters, "ok"))
			snprintf(why, sizeof(why),
				 "No kernel was attributed counters (each needs %d samples of it running alone).",
				 GD_PM_ATTRIB_MIN);
		else
			snprintf(why, sizeof(why), "Only the GPU's counters can tell, and the profile has no GPU counters.");
		insufficient(f, why);
		return;
	}
	for (int i = 0; i < s->nks; i++) {
		const struct gd_kstat *k = &s->ks[i];
		if (k->total_ns / s->kernel_ns < HOT_KERNEL_SHARE)
			break;
		/* NCCL kernels spin on the network with few instructions: the communication rule's */
		if (k->kind == GD_KIND_NCCL)
			continue;
		hot += k->total_ns;
		/* placed on the roofline by its own counters (issue 19): the roofline rule's, which
		 * says the same more precisely (the % of each roof reached); not counted twice */
		const struct gd_kc_kernel *kc = kc_of_slot(c, i);
		if (kc && kc_place(kc).bound != RP_UNKNOWN) {
			kc_ns += k->total_ns;
			continue;
		}
		int lb = latency_bound(k);
		if (lb < 0)
			continue;
		meas += k->total_ns;
		if (!lb)
			continue;
		lat += k->total_ns;
		if (!worst)
			worst = k;
		if (nlisted < 4) {
			char key[40];
			double w = k_pm(k, GD_PM_WARPS_ACTIVE);
			snprintf(key, sizeof(key), "kernel%d_sm_issue_fraction", ++nlisted);
			snprintf(kt, sizeof(kt), "%s: %s of kernel time, SM active %s, SM issue %s, DRAM %s, tensor pipe %s%s%s",
				 k->short_name, pc(b1, k->total_ns / s->kernel_ns), pp(b2, k_pm(k, GD_PM_SM_ACTIVE)),
				 pp(b3, k_pm(k, GD_PM_SM_ISSUE)), pp(b4, k_dram(k)), pp(b5, k_pm(k, GD_PM_TENSOR)),
				 isfinite(w) ? ", warps active " : "", isfinite(w) ? pp(b6, w) : "");
			ev(f, key, k_pm(k, GD_PM_SM_ISSUE) / 100, "fraction", "%s", kt);
		}
	}
	if (meas <= 0) {
		if (kc_ns > 0)
			insufficient(f, "Every hot kernel with counters is placed on the roofline by its kernel counters "
					"(roofline); the others have no PM samples.");
		else
			insufficient(f, "None of the hot kernels has SM and DRAM counters (each needs samples of it running "
					"alone).");
		return;
	}
	f->basis = GD_BASIS_COUNTERS;
	ev(f, "latency_bound_fraction", lat / s->kernel_ns, "fraction",
	   "%s of kernel time in hot kernels with SM active ≥ %.0f %%, SM issue < %.0f %%, DRAM and tensor pipe < %.0f %%",
	   pc(b1, lat / s->kernel_ns), PM_SM_BUSY_PCT, PM_ISSUE_LOW_PCT, PM_PIPE_LOW_PCT);
	ev(f, "measured_hot_fraction", meas / s->kernel_ns, "fraction",
	   "%s of kernel time in hot kernels (≥ %.0f %% each) with SM and DRAM counters, of %s in hot kernels",
	   pc(b1, meas / s->kernel_ns), 100 * HOT_KERNEL_SHARE, pc(b2, hot / s->kernel_ns));
	if (!worst) {
		clear(f, "The hot kernels with counters (%s of kernel time) keep a throughput unit busy or leave SMs empty.",
		      pc(b1, meas / s->kernel_ns));
		return;
	}
	snprintf(f->kernel, sizeof(f->kernel), "%s", worst->short_name);
	double share = clamp01(lat / c->span);
	fire(f, share >= LATENCY_HIGH ? GD_SEV_HIGH : share >= LATENCY_WARN ? GD_SEV_WARN : GD_SEV_INFO, share,
	     "The SMs hold warps that mostly wait: give each warp more independent work (several loads in flight "
	     "before their use, unrolled loops: ILP), fewer dependent global loads, barriers and atomics in the inner "
	     "loop, and more work per thread; more resident warps help only if occupancy is low (gpudiag occupancy). "
	     "Nsight Compute's warp-stall reasons name the wait (§10, §14).",
	     "%s of the GPU span (%s) is in kernels that keep the SMs busy but no unit near its peak (latency-bound), "
	     "e.g. %s: SM active %s, SM issue %s.",
	     pc(b1, share), t(b2, lat), worst->short_name, pp(b3, k_pm(worst, GD_PM_SM_ACTIVE)),
	     pp(b4, k_pm(worst, GD_PM_SM_ISSUE)));
}

static void rule_throttle(struct ctx *c, struct gd_finding *f)
{
	const struct gd_profile *p = c->p;
	const struct gd_summary *s = c->s;
	char b1[32], b2[32], rs[256];
	long known = 0, thr = 0, hard = 0;
	double clk_thr = 0, clk_max = 0;
	int nclk = 0;
	if (p->ns < 2) {
		insufficient(f, "Fewer than two NVML samples: clocks were not observed.");
		return;
	}
	for (long i = 0; i < p->ns; i++) {
		const struct gd_pnvml *m = &p->s[i];
		if (m->sm_mhz > clk_max && m->sm_mhz <= CLOCK_MHZ_MAX)
			clk_max = m->sm_mhz;
		if (m->reasons == ~0ULL)
			continue;
		known++;
		if (gd_clock_reasons_throttling(m->reasons)) {
			thr++;
			if (m->reasons & (0x8ULL | 0x20ULL | 0x40ULL | 0x80ULL))
				hard++;
			if (m->sm_mhz > 0 && m->sm_mhz <= CLOCK_MHZ_MAX) {
				clk_thr += m->sm_mhz;
				nclk++;
			}
		}
	}
	if (p->ndev && p->dev[0].max_sm_mhz > clk_max && p->dev[0].max_sm_mhz <= CLOCK_MHZ_MAX)
		clk_max = p->dev[0].max_sm_mhz;
	if (known == 0) {
		insufficient(f, "NVML did not report clock-event reasons.");
		return;
	}
	double frac = (double)thr / known, loss = nclk && clk_max > 0 ? 1 - (clk_thr / nclk) / clk_max : NAN;
	gd_clock_reasons_str(s->reasons_seen, rs, sizeof(rs));
	ev(f, "throttled_fraction", frac, "fraction", "%ld of %ld NVML samples had a throttle reason (seen: %s)", thr,
	   known, rs);
	ev(f, "clock_loss", loss, "fraction", "mean SM clock while throttled %.0f MHz vs maximum %.0f MHz",
	   nclk ? clk_thr / nclk : NAN, clk_max);
	if (frac < THROTTLE_MIN_FRAC) {
		clear(f, "No throttling in %ld samples (reasons seen: %s).", known, rs);
		return;
	}
	/* which hot kernel ran slower while throttled: compare means inside/outside the
	 * throttled sample windows */
	{
		double period = p->ns > 1 ? gd_i64_diff(p->s[p->ns - 1].t, p->s[0].t) / (double)(p->ns - 1) : 0;
		double in_ns[3] = {0}, out_ns[3] = {0};
		long in_n[3] = {0}, out_n[3] = {0}, si = 0;
		for (long i = 0; i < p->nk; i++) {
			const struct gd_pkernel *k = &p->k[i];
			int sl = c->slot[k->name];
			if (sl < 0 || sl > 2)
				continue;
			while (si + 1 < p->ns && (double)p->s[si + 1].t <= (double)k->start + period / 2)
				si++;
			int in = gd_clock_reasons_throttling(p->s[si].reasons) &&
				 fabs(gd_i64_diff(k->start, p->s[si].t)) <= period;
			if (in) {
				in_ns[sl] += gd_dur_ns(k->start, k->end);
				in_n[sl]++;
			} else {
				out_ns[sl] += gd_dur_ns(k->start, k->end);
				out_n[sl]++;
			}
		}
		for (int q = 0; q < 3 && q < s->nks; q++)
			if (in_n[q] >= 3 && out_n[q] >= 3) {
				double r = (in_ns[q] / in_n[q]) / (out_ns[q] / out_n[q]);
				ev(f, "kernel_slowdown", r, "ratio", "%s ran %.2f× as long while throttled (%ld vs %ld runs)",
				   s->ks[q].short_name, r, in_n[q], out_n[q]);
				if (!*f->kernel && r > 1.02)
					snprintf(f->kernel, sizeof(f->kernel), "%s", s->ks[q].short_name);
			}
	}
	double share = isfinite(loss) ? clamp01(frac * loss) : NAN;
	/* A software power cap under full load is how a busy GPU normally runs (a clean GEMM
	 * loop hits it); thermal and hardware slowdowns point at the machine. */
	int sev = (double)hard / known >= THROTTLE_MIN_FRAC && (!isfinite(share) || share >= THROTTLE_WARN / 5)
			  ? GD_SEV_WARN
			  : GD_SEV_INFO;
	fire(f, sev, share,
	     "Check cooling and power: thermal or hardware slowdown points at the machine (airflow, fans, a power "
	     "brake); a software power cap under full load is expected on a busy GPU. gpudiag never changes clocks "
	     "or limits (§14, §16).",
	     "Clocks were throttled in %s of samples (%s); SM clock %s lower meanwhile.", pc(b1, frac), rs,
	     pc(b2, loss));
}

static void rule_memory(struct ctx *c, struct gd_finding *f)
{
	const struct gd_profile *p = c->p;
	const struct gd_summary *s = c->s;
	char b1[32], b2[32], b3[32];
	double peak = s->mem_used.n ? s->mem_used.max : NAN, live = 0, peak_live = 0;
	long nalloc = s->api_n[GD_API_ALLOC] + s->api_n[GD_API_FREE];
	double alloc_ns = s->api_ns[GD_API_ALLOC] + s->api_ns[GD_API_FREE];
	for (long i = 0; i < p->nm; i++) {
		live += p->m[i].op == 1 ? p->m[i].bytes : p->m[i].op == 2 ? -p->m[i].bytes : 0;
		if (live > peak_live)
			peak_live = live;
	}
	if (!s->mem_used.n && p->nm == 0 && !p->have_api) {
		insufficient(f, "Neither NVML memory samples nor allocation records are in the profile.");
		return;
	}
	/* --metrics: the profiler kept copies of the device memory to replay launches (gpudiag's
	 * checkpoints, batches of them with --metrics-batch, or CUPTI's kernel replay), so NVML's
	 * peak is not the program's; its own allocations are judged instead */
	int replayed = 0;
	for (long i = 0; i < p->nkl && !replayed; i++)
		replayed = p->kl[i].status == GD_KL_OK;
	double ratio = isfinite(peak) && isfinite(s->mem_total) && s->mem_total > 0 ? peak / s->mem_total : NAN;
	ev(f, "peak_used_bytes", peak, "bytes", "peak device memory used %s of %s (NVML, whole GPU%s)",
	   gd_fmt_bytes(b1, 32, peak), gd_fmt_bytes(b2, 32, s->mem_total),
	   replayed ? "; with the profiler's copies of device memory for --metrics replay" : "");
	if (replayed) {
		if (!p->nm) {
			insufficient(f, "Kernels were replayed for --metrics, whose copies of device memory NVML counts as "
					"used, and the profile has no allocation records of the program's own.");
			return;
		}
		if (c->vmm_unrecorded) {
			char why[sizeof(f->headline)];
			ev(f, "vmm_unrecorded_calls", (double)c->vmm_unrecorded, "count",
			   "%ld of %ld cuMemCreate calls (virtual memory management, e.g. PyTorch's expandable_segments) "
			   "have no allocation record",
			   c->vmm_unrecorded, c->vmm_calls);
			snprintf(why, sizeof(why),
				 "Kernels were replayed for --metrics, whose copies of device memory NVML counts as used, "
				 "and %ld of the program's %ld cuMemCreate calls have no allocation record, so its own "
				 "peak is unknown; run without --metrics to judge its memory.",
				 c->vmm_unrecorded, c->vmm_calls);
			insufficient(f, why);
			return;
		}
		ratio = isfinite(s->mem_total) && s->mem_total > 0 ? peak_live / s->mem_total : NAN;
		peak = peak_live;
	}
	ev(f, "peak_fraction", ratio, "fraction", "%s of capacity%s", pc(b1, ratio),
	   replayed ? " (the program's allocations: NVML's peak holds the --metrics replay's copies)" : "");
	if (p->nm)
		ev(f, "peak_allocated_bytes", peak_live, "bytes", "peak allocated by the program %s (allocation records)",
		   gd_fmt_bytes(b1, 32, peak_live));
	ev(f, "alloc_calls", (double)nalloc, "count", "%ld allocation/free calls took %s", nalloc, t(b1, alloc_ns));
	/* device allocations that failed for lack of memory: out-of-memory measured, not inferred.
	 * Judged in the main loop only, and only where one was found: a framework may probe for the
	 * largest allocation it can make at start-up (cuDNN's benchmark mode tries each algorithm's
	 * workspace and skips those that fail). In a --metrics run the replay's copies of device
	 * memory may have taken the room, so there they are evidence only. */
	long noom = 0, noom_loop = 0, first_oom = -1;
	for (long i = 0; i < p->na; i++) {
		const char *nm = api_name(p, i);
		if (p->a[i].cat != GD_API_ALLOC || p->a[i].ret != ALLOC_OUT_OF_MEMORY || (nm && strstr(nm, "Host")))
			continue;
		noom++;
		if (c->st.found && gd_steady_in(&c->st, p->a[i].start) && noom_loop++ == 0)
			first_oom = i;
	}
	if (noom)
		ev(f, "alloc_out_of_memory", (double)noom_loop, "count",
		   "%ld device allocation calls failed for lack of memory, %ld of them in the main loop%s", noom, noom_loop,
		   replayed      ? " (a --metrics run: the replay's copies of device memory may have taken the room)"
		   : !c->st.found ? " (no main loop was found to judge them in)"
				  : "");
	/* churn is judged in the main loop only: allocating the parameters and buffers once
	 * before it is how a program should do it */
	long nalloc_loop = 0;
	double alloc_loop_ns = 0, window = s->wall_ns;
	for (long i = 0; i < p->na; i++)
		if ((p->a[i].cat == GD_API_ALLOC || p->a[i].cat == GD_API_FREE) && gd_steady_in(&c->st, p->a[i].start)) {
			nalloc_loop++;
			alloc_loop_ns += gd_dur_ns(p->a[i].start, p->a[i].end);
		}
	if (c->st.found)
		window = gd_i64_diff(c->st.t1, c->st.t0);
	if (nalloc_loop != nalloc)
		ev(f, "alloc_calls_in_loop", (double)nalloc_loop, "count",
		   "%ld of them in the main loop (%s); the rest at start-up or tear-down, not judged", nalloc_loop,
		   t(b1, alloc_loop_ns));
	nalloc = nalloc_loop;
	alloc_ns = alloc_loop_ns;
	double churn = isfinite(window) && window > 0 ? alloc_ns / window : 0;
	if (noom_loop && !replayed) {
		const char *nm = api_name(p, first_oom);
		char when[48] = "";
		if (p->t_start) /* the capture's start known: the call's time from it */
			snprintf(when, sizeof(when), ", %s into the run",
				 t(b1, (double)gd_i64_diff(p->a[first_oom].start, p->t_start)));
		fire(f, GD_SEV_HIGH, NAN,
		     "Out of memory in the loop: reduce the batch or sequence length, use activation checkpointing, mixed "
		     "precision (BF16/FP16), or quantise weights; PyTorch empties its cache and retries after each failure, "
		     "which synchronises; PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True helps against fragmentation "
		     "(§15, §16).",
		     "%ld device allocation%s in the main loop failed for lack of memory (the first: %s%s).", noom_loop,
		     noom_loop == 1 ? "" : "s", nm ? nm : "an allocation", when);
		return;
	}
	if (isfinite(ratio) && ratio >= MEM_WARN) {
		fire(f, ratio >= MEM_HIGH ? GD_SEV_HIGH : GD_SEV_WARN, NAN,
		     "Close to out-of-memory: reduce the batch or sequence length, use activation checkpointing, mixed "
		     "precision (BF16/FP16), or quantise weights; set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True "
		     "against fragmentation (§15, §16).",
		     "Device memory peaked at %s of %s (%s).", gd_fmt_bytes(b1, 32, peak), gd_fmt_bytes(b2, 32, s->mem_total),
		     pc(b3, ratio));
		return;
	}
	if (nalloc >= CHURN_MIN_CALLS && churn >= CHURN_WARN) {
		fire(f, GD_SEV_WARN, clamp01(churn),
		     "Allocate once and reuse buffers (or use a caching/pool allocator: cudaMallocAsync with a memory "
		     "pool); cudaMalloc/cudaFree synchronise the device (§15).",
		     "%ld allocation/free calls took %s (%s of the run): allocation churn.", nalloc, t(b1, alloc_ns),
		     pc(b2, churn));
		return;
	}
	clear(f, "Peak device memory %s of capacity; %ld allocation calls in the main loop.", pc(b1, ratio), nalloc);
}

/* Exposed communication, per rank (ranks.c): NCCL time not overlapped by compute kernels on
 * the same GPU, less the part spent waiting for a rank that joined the collective late (that time
 * is the straggler finding's: one cause per microsecond). Summed over the ranks that ran NCCL, of
 * their GPU spans summed; with one rank, exposed NCCL time of the span. */
static void rule_comm(struct ctx *c, struct gd_finding *f)
{
	const struct gd_summary *s = c->s;
	const struct gd_ranks *R = c->rk;
	char b1[32], b2[32], b3[32], b4[32], who[96];
	double comm = 0, ov = 0, exposed = 0, wait = 0, span = 0, worst = -1;
	int n = 0, wr = -1;
	if (s->kind_n[GD_KIND_NCCL] == 0) {
		clear(f, "No NCCL kernels.");
		return;
	}
	for (int i = 0; i < R->nr; i++) {
		const struct gd_rank *x = &R->r[i];
		double net = x->comm_exposed_ns - x->comm_wait_ns;
		if (!x->nccl_kernels)
			continue;
		n++;
		comm += x->comm_ns;
		ov += x->comm_overlap_ns;
		exposed += net;
		wait += x->comm_wait_ns;
		span += x->span_ns;
		if (x->span_ns > 0 && net / x->span_ns > worst) {
			worst = net / x->span_ns;
			wr = i;
		}
	}
	double share = clamp01(span > 0 ? exposed / span : 0);
	if (n <= 1) {
		/* one rank: the figures and words of a one-GPU report */
		ev(f, "nccl_ns", comm, "ns", "NCCL kernels busy %s (%ld kernels)", t(b1, comm), s->kind_n[GD_KIND_NCCL]);
		ev(f, "overlap_fraction", comm > 0 ? ov / comm : NAN, "fraction", "%s of it overlapped compute kernels",
		   pc(b1, comm > 0 ? ov / comm : NAN));
		ev(f, "exposed_ns", exposed, "ns", "%s exposed (%s of the span)", t(b1, exposed), pc(b2, share));
	} else {
		ev(f, "ranks", n, "count", "%d ranks ran NCCL kernels (%ld kernels)", n, s->kind_n[GD_KIND_NCCL]);
		ev(f, "nccl_ns", comm, "ns", "NCCL kernels busy %s, summed over the ranks", t(b1, comm));
		ev(f, "overlap_fraction", comm > 0 ? ov / comm : NAN, "fraction",
		   "%s of it overlapped compute kernels on the same GPU", pc(b1, comm > 0 ? ov / comm : NAN));
		ev(f, "exposed_ns", exposed, "ns", "%s exposed (%s of the ranks' GPU time), not counting waiting",
		   t(b1, exposed), pc(b2, share));
		ev(f, "wait_ns", wait, "ns",
		   "%s more was spent waiting for a rank that joined its collective late (see the straggler finding)",
		   t(b1, wait));
		if (wr >= 0)
			ev(f, "worst_rank_exposed_fraction", worst, "fraction", "most exposed: %s, %s of its GPU time",
			   gd_rank_label(R, wr, who, sizeof(who)), pc(b1, worst));
	}
	if (share < COMM_INFO) {
		clear(f, "Communication is hidden behind compute (%s exposed).", t(b1, exposed));
		return;
	}
	fire(f, share >= COMM_HIGH ? GD_SEV_HIGH : share >= COMM_WARN ? GD_SEV_WARN : GD_SEV_INFO, share,
	     "Overlap communication with compute: DDP gradient bucketing (bucket_cap_mb; the default 25 MB buckets "
	     "start each all-reduce as soon as its gradients are ready), FSDP prefetch, communication on its own "
	     "stream. Communicate less per step: a bigger batch per GPU or gradient accumulation (no_sync), "
	     "compressed gradients (DDP's bf16/fp16 or PowerSGD communication hooks). Check the links with gpudiag "
	     "info and gpudiag nccl (NVLink active, bus bandwidth) (§12).",
	     n <= 1 ? "Communication is exposed: NCCL ran %s, %s of it not overlapped with compute (%s of the span)."
		    : "Communication is exposed: NCCL ran %s over the ranks, %s of it not overlapped with compute on "
		      "the same GPU (%s of their GPU time)%s%s.",
	     t(b1, comm), t(b2, exposed), pc(b3, share), n <= 1 || wait <= 0 ? "" : "; waiting for late ranks: ",
	     n <= 1 || wait <= 0 ? "" : t(b4, wait));
}

/* A straggler (issue 22): one rank whose compute ends last before the collectives, so that every
 * other rank's NCCL kernels wait for it (ranks.c). The stake is that waiting, of the other
 * ranks' GPU time. */
static void rule_straggler(struct ctx *c, struct gd_finding *f)
{
	const struct gd_ranks *R = c->rk;
	char b1[32], b2[32], b3[32], b4[32], b5[32], who[96];
	if (!R || R->nccl_ranks < 2) {
		f->state = GD_NOT_APPLICABLE;
		snprintf(f->headline, sizeof(f->headline), "Fewer than two ranks ran NCCL kernels: nobody waits.");
		return;
	}
	if (R->judged < STRAG_MIN_COLL) {
		ev(f, "collectives_matched", (double)R->matched, "count",
		   "%ld collectives matched across %d ranks by order (%d communicator stream%s)", R->matched, R->nccl_ranks,
		   R->groups, R->groups == 1 ? "" : "s");
		ev(f, "collectives_judged", (double)R->judged, "count",
		   "%ld of them had compute launched before them on every rank (%d needed)", R->judged, STRAG_MIN_COLL);
		insufficient(f, R->matched < STRAG_MIN_COLL
					? "Too few collectives could be matched across the ranks to judge stragglers."
					: "Too few collectives had compute before them on every rank to judge stragglers.");
		return;
	}
	if (R->straggler < 0) {
		ev(f, "collectives_judged", (double)R->judged, "count",
		   "%ld collectives judged (compute launched before each on every rank), of %ld matched across %d ranks",
		   R->judged, R->matched, R->nccl_ranks);
		clear(f, "No rank was late: before every judged collective the ranks finished their compute together.");
		return;
	}
	const struct gd_rank *x = &R->r[R->straggler];
	double last_frac = x->judged ? (double)x->last / (double)x->judged : 0;
	double mean = x->last ? x->late_sum_ns / (double)x->last : NAN;
	double wait_frac = R->others_comm_ns > 0 ? R->others_wait_ns / R->others_comm_ns : NAN;
	double share = clamp01(R->others_span_ns > 0 ? R->others_wait_ns / R->others_span_ns : 0);
	gd_rank_label(R, R->straggler, who, sizeof(who));
	/* the terminal shows the first six: the straggler and the figures of its cost first */
	ev(f, "straggler_rank", R->straggler, "count", "the latest: %s, last before %ld of the %ld judged collectives it took part in",
	   who, x->last, x->judged);
	ev(f, "lateness_mean_ns", mean, "ns", "its compute ended %s after the median of the other ranks' on average", t(b1, mean));
	ev(f, "lateness_max_ns", x->late_max_ns, "ns", "%s at most", t(b1, x->late_max_ns));
	ev(f, "others_wait_ns", R->others_wait_ns, "ns", "the other ranks' NCCL kernels waited %s for it to start its own",
	   t(b1, R->others_wait_ns));
	ev(f, "wait_fraction", wait_frac, "fraction", "%s of their collective time", pc(b1, wait_frac));
	ev(f, "collectives_judged", (double)R->judged, "count",
	   "%ld collectives judged (compute launched before each on every rank), of %ld matched across %d ranks by "
	   "order (%d communicator stream%s)",
	   R->judged, R->matched, R->nccl_ranks, R->groups, R->groups == 1 ? "" : "s");
	ev(f, "last_fraction", last_frac, "fraction", "last before %s of its judged collectives", pc(b1, last_frac));
	ev(f, "straggler_pid", x->pid, "", "its process id %d", x->pid);
	ev(f, "straggler_device", x->device, "", "its GPU %d", x->device);
	ev(f, "ranks", R->nccl_ranks, "count", "%d ranks ran NCCL kernels", R->nccl_ranks);
	ev(f, "collectives_matched", (double)R->matched, "count", "%ld collectives matched%s", R->matched,
	   R->mismatched ? "; positions where the ranks' collective names disagreed were left out" : "");
	if (last_frac < STRAG_CONSISTENT || share < STRAG_INFO) {
		clear(f, "No consistent straggler: the latest rank changes between collectives, or the others wait little "
			 "(%s of their GPU time).",
		      pc(b1, share));
		return;
	}
	f->basis = GD_BASIS_TRACE;
	fire(f, share >= STRAG_HIGH ? GD_SEV_HIGH : share >= STRAG_WARN ? GD_SEV_WARN : GD_SEV_INFO, share,
	     "Make the ranks' work equal: the same batch and sequence lengths on every rank (pad or bucket by "
	     "length), a data loader fast enough on every rank (num_workers, pin_memory, prefetching), no extra "
	     "work on one rank inside the step (logging, evaluation, checkpointing on rank 0: move it out of the "
	     "step or spread it), and the same clocks on every GPU (gpudiag info: throttling or a slower link on one "
	     "GPU holds back all the others) (§12).",
	     "R%s is the straggler: its compute ended last before %s of the collectives, %s late on average (at most "
	     "%s); the other ranks' NCCL kernels spent %s of their time waiting for it (%s of their GPU time).",
	     who + 1, pc(b1, last_frac), t(b2, mean), t(b3, x->late_max_ns), pc(b4, wait_frac), pc(b5, share));
}

/* ---- driver ---------------------------------------------------------------------------- */
static void ctx_free(struct ctx *c)
{
	free(c->slot);
	free(c->gaps);
	free(c->warm);
	free(c->sgaps);
	free(c->gap_sync);
	free(c->k_launch_start);
	free(c->k_launch_end);
	free(c->c_launch_end);
	free(c->k_graphlaunch);
	free(c->rp_end);
	free(c->kci);
	free(c->kcns);
	free(c->kc_of);
}

/* Whether a rule judges one kernel's work (what Nsight Compute would look into) rather than
 * the run as a whole (its timeline, the GPU's state, the ranks: Nsight Systems and nvidia-smi). */
static int kernel_level(int rule)
{
	return rule == GD_R_OCCUPANCY || rule == GD_R_MEMBOUND || rule == GD_R_TENSOR || rule == GD_R_LATENCY ||
	       rule == GD_R_UNCOALESCED || rule == GD_R_DIVERGENCE || rule == GD_R_ROOFLINE;
}

static int rank_cmp(const struct gd_finding *a, const struct gd_finding *b)
{
	int fa = a->state == GD_FIRED, fb = b->state == GD_FIRED;
	if (fa != fb)
		return fb - fa;
	if (a->severity != b->severity)
		return b->severity - a->severity;
	/* the guide's order (§14): the run's timeline before a kernel's insides. Time the
	 * timeline lost was lost; a kernel finding's stake is what fixing it could at most save,
	 * and a kernel made faster gains nothing while the GPU waits for the host */
	if (fa && kernel_level(a->rule) != kernel_level(b->rule))
		return kernel_level(a->rule) - kernel_level(b->rule);
	/* then a measured cause above a guess from names, a kernel's own counters above both (verdict.h) */
	if (fa && basis_weight(a->basis) != basis_weight(b->basis))
		return basis_weight(b->basis) - basis_weight(a->basis);
	double sa = isfinite(a->rank_share) ? a->rank_share : -1, sb = isfinite(b->rank_share) ? b->rank_share : -1;
	if (sa != sb)
		return sa < sb ? 1 : -1;
	return a->rule - b->rule;
}

int gd_verdicts_compute(const struct gd_profile *p, const struct gd_summary *s, struct gd_verdicts *v)
{
	struct gd_ranks r;
	int rc = gd_ranks_compute(p, NULL, 1, &r);
	if (rc != GD_OK)
		return rc;
	rc = gd_verdicts_compute_ranks(p, s, &r, v);
	gd_ranks_free(&r);
	return rc;
}

int gd_verdicts_compute_ranks(const struct gd_profile *p, const struct gd_summary *s, const struct gd_ranks *rk,
			      struct gd_verdicts *v)
{
	struct ctx c = {.p = p, .s = s, .rk = rk, .v = v};
	memset(v, 0, sizeof(*v));
	for (int r = 0; r < GD_R_COUNT; r++) {
		v->f[r].rule = r;
		v->f[r].id = rules[r].id;
		v->f[r].title = rules[r].title;
		v->f[r].guide = rules[r].guide;
		v->f[r].share = NAN;
	}
	c.span = isfinite(s->span_ns) ? s->span_ns : 0;
	c.judge_gpu = p->cupti_ok && c.span >= MIN_SPAN_NS && s->nbusy > 0;
	c.slot = malloc(((size_t)p->nnames + 1) * sizeof(int));
	c.gaps = malloc(((size_t)s->nbusy + 1) * sizeof(*c.gaps));
	c.warm = calloc((size_t)s->nbusy + 1, 1);
	c.sgaps = malloc(((size_t)s->nbusy + 1) * sizeof(*c.sgaps));
	c.gap_sync = calloc((size_t)s->nbusy + 1, sizeof(double));
	if (!c.slot || !c.gaps || !c.warm || !c.sgaps || !c.gap_sync || link_launches(&c) || launch_median(&c)) {
		ctx_free(&c);
		return GD_EFAIL;
	}
	for (int i = 0; i < p->nnames; i++)
		c.slot[i] = -1;
	for (int i = 0; i < s->nks; i++)
		c.slot[s->ks[i].name] = i;
	if (kc_index(&c)) {
		ctx_free(&c);
		return GD_EFAIL;
	}
	for (long i = 1; i < s->nbusy; i++) {
		c.gaps[c.ngaps].start = s->busy[i - 1].end;
		c.gaps[c.ngaps].end = s->busy[i].start;
		c.ngaps++;
	}
	gd_steady_find(p, c.k_launch_start, &c.st);
	mark_warmup(&c);
	attribute_gaps(&c);
	rule_profiler(&c, &v->f[GD_R_PROFILER]);
	if (!p->cupti_ok) {
		for (int r = 0; r < GD_R_COUNT; r++)
			if (r >= GD_R_UNCOALESCED && r <= GD_R_ROOFLINE && kc_not_applicable(&c))
				kc_gate(&c, &v->f[r]);
			else if (r == GD_R_STRAGGLER)
				rule_straggler(&c, &v->f[r]);
			else if (r != GD_R_PROFILER)
				insufficient(&v->f[r], !strcmp(p->untraced_status, "light")
							       ? "Needs a trace: light mode (--light) recorded none."
							       : "Nothing was traced (see \"What the profile could not show\").");
		if (!strcmp(p->untraced_status, "light"))
			rule_idle_light(&c, &v->f[GD_R_IDLE]);
	} else {
		rule_idle(&c, &v->f[GD_R_IDLE]);
		rule_launch(&c, &v->f[GD_R_LAUNCH]);
		rule_sync(&c, &v->f[GD_R_SYNC]);
		rule_pageable(&c, &v->f[GD_R_PAGEABLE]);
		rule_default_stream(&c, &v->f[GD_R_DEFAULT_STREAM]);
		rule_occupancy(&c, &v->f[GD_R_OCCUPANCY]);
		rule_membound(&c, &v->f[GD_R_MEMBOUND]);
		rule_tensor(&c, &v->f[GD_R_TENSOR]);
		rule_latency(&c, &v->f[GD_R_LATENCY]);
		rule_throttle(&c, &v->f[GD_R_THROTTLE]);
		rule_memory(&c, &v->f[GD_R_MEMORY]);
		rule_comm(&c, &v->f[GD_R_COMM]);
		rule_uncoalesced(&c, &v->f[GD_R_UNCOALESCED]);
		rule_divergence(&c, &v->f[GD_R_DIVERGENCE]);
		rule_roofline(&c, &v->f[GD_R_ROOFLINE]);
		rule_straggler(&c, &v->f[GD_R_STRAGGLER]);
	}
	for (int r = 0; r < GD_R_COUNT; r++)
		v->f[r].rank_share = v->f[r].share;
	/* Idle time that the launch or sync rule explains is the same time: rank the specific
	 * rule first, and the idle finding no higher than it. */
	{
		struct gd_finding *idle = &v->f[GD_R_IDLE];
		const int spec[2] = {GD_R_LAUNCH, GD_R_SYNC};
		double explained = 0;
		int sev = GD_SEV_NONE;
		for (int i = 0; i < 2; i++) {
			const struct gd_finding *x = &v->f[spec[i]];
			if (x->state == GD_FIRED && isfinite(x->share)) {
				explained += x->share;
				sev = x->severity > sev ? x->severity : sev;
			}
		}
		if (idle->state == GD_FIRED && isfinite(idle->share) && explained >= 0.5 * idle->share) {
			if (idle->severity > sev)
				idle->severity = sev;
			idle->rank_share = idle->share - explained > 0 ? idle->share - explained : 0;
		}
	}
	for (int r = 0; r < GD_R_COUNT; r++) {
		v->order[r] = r;
		if (v->f[r].state == GD_FIRED) {
			v->nfired++;
			v->nwarn += v->f[r].severity >= GD_SEV_WARN;
		}
	}
	for (int i = 1; i < GD_R_COUNT; i++)
		for (int j = i; j > 0 && rank_cmp(&v->f[v->order[j - 1]], &v->f[v->order[j]]) > 0; j--) {
			int tmp = v->order[j];
			v->order[j] = v->order[j - 1];
			v->order[j - 1] = tmp;
		}
	top_line(&c, v);
	v->loop_found = c.st.found;
	v->loop_first_kernel = c.st.found ? c.st.k0 : 0;
	v->loop_last_kernel = c.st.found ? c.st.k1 : p->nk - 1;
	v->loop_repeats = c.st.repeats;
	v->loop_start = c.st.found ? c.st.t0 : s->span_start;
	v->loop_end = c.st.found ? c.st.t1 : s->span_end;
	v->loop_period = c.st.found ? c.st.period : 0;
	v->judged_ns = c.judged;
	v->busy_fraction = busy_fraction(&c);
	ctx_free(&c);
	return GD_OK;
}

const char *gd_stake_base(int rule)
{
	if (rule == GD_R_IDLE || rule == GD_R_SYNC)
		return "the judged span";
	if (rule == GD_R_UNCOALESCED || rule == GD_R_DIVERGENCE || rule == GD_R_ROOFLINE)
		return "kernel time";
	if (rule == GD_R_STRAGGLER)
		return "the other ranks' GPU time";
	return "the GPU span";
}

/* ---- the framework view in the evidence (issue 21) ------------------------------------- */
static const struct gd_evidence *ev_find(const struct gd_finding *f, const char *key)
{
	for (int e = 0; e < f->nev; e++)
		if (!strcmp(f->ev[e].key, key))
			return &f->ev[e];
	return NULL;
}

/* "`transformer.h.*.ln_1` (LayerNorm)", "`GPT2LMHeadModel` (outermost module)"; with source
 * marks (--python-stack), where the group was called from most: "`transformer.h.*.ln_1`
 * (LayerNorm, called from modeling_gpt2.py:390)" */
static void origin_module(char *b, size_t n, const struct gd_framework *fw, const struct gd_fw_origin *o)
{
	char from[120] = "";
	if (o->loc >= 0 && o->loc < fw->nlocs) {
		char loc[96];
		snprintf(from, sizeof(from), ", called from %s", gd_fw_loc_label(loc, sizeof(loc), &fw->locs[o->loc]));
	}
	if (!o->module[0])
		snprintf(b, n, "`%.60s` (outermost module%s)", o->cls, from);
	else
		snprintf(b, n, "`%.90s` (%.40s%s)", o->module, o->cls, from);
}

/* Launch-bound: where the short kernels come from (the rule's own test: shorter than the
 * median launch call, outside CUDA graphs). */
static void fw_launch(const struct gd_profile *p, const struct gd_framework *fw, struct gd_finding *f, unsigned char *sel)
{
	const struct gd_evidence *e = ev_find(f, "launch_api_median_ns");
	struct gd_fw_origin o;
	char mb[320];
	long n = 0;
	if (!e || !(e->value > 0))
		return;
	for (long k = 0; k < p->nk; k++) {
		sel[k] = !p->k[k].graph_id && gd_dur_ns(p->k[k].start, p->k[k].end) < e->value;
		n += sel[k];
	}
	if (!n || gd_fw_origin(p, fw, sel, 1, &o) != GD_OK)
		return;
	if (o.cls && o.mod_calls > 0) {
		double per = (double)o.mod_kernels / (double)o.mod_calls;
		origin_module(mb, sizeof(mb), fw, &o);
		ev(f, "module_kernels_per_call", per, "ratio",
		   "launch-bound: %s launches %.3g kernel%s per call (%.0f of the %ld short kernels)", mb, per,
		   per == 1 ? "" : "s", o.mod_share * (double)n, n);
	}
	if (o.op >= 0 && fw->ops[o.op].calls > 0) {
		const struct gd_fw_op *op = &fw->ops[o.op];
		double per = (double)op->kernels / (double)op->calls;
		ev(f, "op_kernels_per_call", per, "ratio",
		   "op `%.80s` launches %.3g kernel%s per call (%.0f of the short kernels)", op->name, per,
		   per == 1 ? "" : "s", o.op_share * (double)n);
	}
}

/* A rule that names a kernel: the op and module that launched it, by its time. */
static void fw_kernel(const struct gd_profile *p, const struct gd_summary *s, const struct gd_framework *fw,
		      struct gd_finding *f, unsigned char *sel, unsigned char *want)
{
	struct gd_fw_origin o;
	char b1[32], b2[32], mb[320], tail[380] = "";
	long n = 0;
	memset(want, 0, (size_t)p->nnames + 1);
	for (int i = 0; i < s->nks; i++)
		if (!strcmp(s->ks[i].short_name, f->kernel) && s->ks[i].name >= 0 && s->ks[i].name < p->nnames)
			want[s->ks[i].name] = 1;
	for (long k = 0; k < p->nk; k++) {
		int nm = p->k[k].name;
		sel[k] = nm >= 0 && nm < p->nnames && want[nm];
		n += sel[k];
	}
	if (!n || gd_fw_origin(p, fw, sel, 0, &o) != GD_OK || (o.op < 0 && !o.cls))
		return;
	if (o.cls) {
		origin_module(mb, sizeof(mb), fw, &o);
		snprintf(tail, sizeof(tail), "%s %s (%s of its time)", o.op >= 0 ? "; in" : "in", mb, pc(b2, o.mod_share));
	}
	if (o.op >= 0)
		ev(f, "op_module", o.op_share, "fraction", "launched by op `%.80s` (%s of its time)%s", fw->ops[o.op].name,
		   pc(b1, o.op_share), tail);
	else
		ev(f, "op_module", o.mod_share, "fraction", "launched %s", tail);
}

void gd_verdicts_add_framework(const struct gd_profile *p, const struct gd_summary *s, const struct gd_framework *fw,
			       struct gd_verdicts *v)
{
	unsigned char *sel, *want;
	if (!fw->present || !fw->k_op || !p->nk)
		return;
	/* the evidence is a help, not a result: out of memory leaves it out */
	sel = malloc((size_t)p->nk);
	want = malloc((size_t)p->nnames + 1);
	if (sel && want)
		for (int r = 0; r < GD_R_COUNT; r++) {
			struct gd_finding *f = &v->f[r];
			if (f->state != GD_FIRED)
				continue;
			if (r == GD_R_LAUNCH)
				fw_launch(p, fw, f, sel);
			else if (f->kernel[0])
				fw_kernel(p, s, fw, f, sel, want);
			/* The op ranges cost the host time on every op (a RecordFunction callback, a
			 * formatted string and an NVTX range: thousands per step), so under --torch ops
			 * the host is slower than without them, and a finding about a waiting GPU may be
			 * partly gpudiag's own doing: said beside it, with the way to tell. */
			if ((r == GD_R_IDLE || r == GD_R_LAUNCH) && !strcmp(fw->mode, "ops")) {
				size_t len = strlen(f->advice);
				snprintf(f->advice + len, sizeof(f->advice) - len,
					 " This profile was recorded with --torch ops, whose op ranges add host time to "
					 "every op: compare with a run under --torch modules or off before acting on it.");
			}
		}
	free(sel);
	free(want);
}
