/* The twelve rules of the guide's checklist; see verdict.h and docs/verdicts.md.
 *
 * Every share is a fraction of the active GPU span (first GPU work → last GPU work), so a
 * 10 ms step and a 10 minute job are judged alike: µs bubbles matter exactly as much as
 * their share of the span. A rule that lacks the records it needs says so instead of
 * guessing. */
#include "analysis/verdict.h"

#include "core/out.h"
#include "core/status.h"
#include "gpu/arch.h"
#include "gpu/nvml.h"
#include "analysis/names.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- thresholds (docs/verdicts.md) ---- */
#define MIN_SPAN_NS 1e5            /* below 100 µs of GPU activity nothing is judged */
#define SHORT_CAPTURE_NS 1e6       /* below 1 ms the capture is called short */
#define MIN_KERNELS 10
#define IDLE_WARN 0.25             /* idle share of the judged span (span less warm-up gaps) */
#define IDLE_HIGH 0.50
#define LAUNCH_MIN_SHORT 100       /* short kernels needed to call a run launch-bound */
#define LAUNCH_MIN_FRAC 0.30       /* ... as a share of all kernels */
#define LAUNCH_WARN 0.10           /* idle before short kernels, share of the span */
#define LAUNCH_HIGH 0.30
#define SYNC_MIN_CALLS 10
#define SYNC_WARN 0.05             /* bubbles that start inside a sync call, each up to the call's
                                    * length, share of the judged span */
#define SYNC_HIGH 0.20
#define PAGEABLE_WARN 0.01
#define PAGEABLE_HIGH 0.10
#define DEFSTREAM_WARN 0.01
#define HOT_KERNEL_SHARE 0.05      /* a kernel with ≥ 5 % of kernel time is hot */
#define OCC_LOW 0.25
#define OCC_WARN 0.05
#define MEMBOUND_INFO 0.30         /* memory-bound kinds, share of kernel time */
#define MEMBOUND_WARN 0.50
#define TENSOR_WARN 0.10           /* FP32 SIMT GEMM/conv, share of kernel time */
#define TENSOR_HIGH 0.40
#define THROTTLE_MIN_FRAC 0.05     /* share of NVML samples with a throttle reason */
#define THROTTLE_WARN 0.05         /* share of time × clock lost (a fifth of it for thermal/hw) */
#define MEM_WARN 0.90
#define MEM_HIGH 0.97
#define CHURN_MIN_CALLS 100
#define CHURN_WARN 0.05
#define COMM_INFO 0.02
#define COMM_WARN 0.10
#define COMM_HIGH 0.30

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
	{"throttling", "Clock throttling", "§14 §16"},
	{"memory_pressure", "Device memory pressure", "§15 §16"},
	{"communication", "Exposed communication (NCCL)", "§12"},
	{"profiler_limits", "What the profile could not show", "§14"},
};

const char *gd_sev_name(int s)
{
	return s == GD_SEV_HIGH ? "high" : s == GD_SEV_WARN ? "warning" : s == GD_SEV_INFO ? "info" : "none";
}
const char *gd_state_name(int s)
{
	return s == GD_FIRED ? "fired" : s == GD_INSUFFICIENT ? "insufficient signal" : "clear";
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
			t += (double)(hi - lo);
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
struct ctx {
	const struct gd_profile *p;
	const struct gd_summary *s;
	struct gd_interval *gaps;
	long ngaps;
	double span;
	unsigned char *warm; /* per gap: 1 = warm-up (ends at a kernel's first launch, or no kernel follows) */
	double warm_ns;      /* idle time in warm-up gaps */
	long nwarm;
	double judged;       /* span - warm_ns: the part of the run where the program was issuing work */
	struct gd_interval *sgaps; /* the other ("steady") gaps, in time order */
	long nsgaps;
	int judge_gpu; /* there is enough GPU activity to judge */
	int *slot;     /* string id → index in s->ks */
};

/* Warm-up and tear-down gaps: a gap after which the next kernel to start is the first launch of
 * its name (module loading, library handles, autotuning, allocation and upload before a loop:
 * one-off costs that a longer run amortises), and gaps after which no kernel starts at all
 * (results copied back, tear-down). The idle and sync rules judge the rest of the span. */
static void mark_warmup(struct ctx *c)
{
	const struct gd_profile *p = c->p;
	unsigned char *seen = calloc((size_t)p->nnames + 1, 1);
	long k = 0;
	int first = 0;
	c->warm_ns = 0;
	c->nwarm = 0;
	c->judged = c->span;
	c->nsgaps = 0;
	if (!seen) {
		memcpy(c->sgaps, c->gaps, (size_t)c->ngaps * sizeof(*c->gaps));
		c->nsgaps = c->ngaps;
		return;
	}
	for (long i = 0; i < c->ngaps; i++) {
		/* kernels are start-sorted; mark the names of those that started before this gap ends */
		while (k < p->nk && p->k[k].start < c->gaps[i].end) {
			if (p->k[k].name >= 0 && p->k[k].name < p->nnames)
				seen[p->k[k].name] = 1;
			k++;
		}
		first = k >= p->nk || (p->k[k].name >= 0 && p->k[k].name < p->nnames && !seen[p->k[k].name]);
		if (first) {
			c->warm[i] = 1;
			c->warm_ns += (double)(c->gaps[i].end - c->gaps[i].start);
			c->nwarm++;
		} else {
			c->sgaps[c->nsgaps++] = c->gaps[i];
		}
	}
	free(seen);
	c->judged = c->span - c->warm_ns;
}

static void rule_profiler(struct ctx *c, struct gd_finding *f)
{
	const struct gd_profile *p = c->p;
	char b1[32];
	int sev = GD_SEV_NONE;
	char what[300] = "";
	if (!p->cupti_ok && !strcmp(p->untraced_status, "no_cuda")) {
		fire(f, GD_SEV_WARN, NAN, "Check that the program uses the GPU (a CPU-only build, CUDA_VISIBLE_DEVICES).",
		     "The program never initialised CUDA: nothing ran on the GPU, so nothing could be judged.");
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
	if (sev == GD_SEV_NONE) {
		clear(f, "Nothing was lost: %ld kernels, %ld copies, %ld API calls, %ld NVML samples.", p->nk, p->nc,
		      p->na, p->ns);
		return;
	}
	fire(f, sev, NAN,
	     "Capture a longer steady-state window (--delay/--duration or an NVTX range) and keep API and NVML "
	     "tracing on; dropped records mean a larger buffer or fewer record kinds.",
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
		idle += (double)(c->sgaps[i].end - c->sgaps[i].start);
	if (!(c->judged > 0)) {
		clear(f, "All %s of idle time lay in warm-up or tear-down gaps.", t(b1, c->warm_ns));
		return;
	}
	frac = clamp01(idle / c->judged);
	ev(f, "busy_fraction", clamp01(1 - idle / c->judged), "fraction",
	   "GPU busy %s of the %s judged span (active span less warm-up)", pc(b1, clamp01(1 - idle / c->judged)),
	   t(b2, c->judged));
	ev(f, "idle_ns", idle, "ns", "%s idle in %ld gaps", t(b1, idle), c->nsgaps);
	ev(f, "warmup_idle_ns", c->warm_ns, "ns",
	   "%s idle in %ld warm-up/tear-down gaps not judged (before a kernel's first launch, after the last kernel)",
	   t(b1, c->warm_ns), c->nwarm);
	if (c->nsgaps) {
		double *g = malloc((size_t)c->nsgaps * sizeof(double));
		if (g) {
			double mx = 0, med;
			for (long i = 0; i < c->nsgaps; i++) {
				g[i] = (double)(c->sgaps[i].end - c->sgaps[i].start);
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

/* The idle gap just before each kernel that opens a busy interval. */
static void rule_launch(struct ctx *c, struct gd_finding *f)
{
	const struct gd_profile *p = c->p;
	const struct gd_summary *s = c->s;
	char b1[32], b2[32], b3[32];
	double *ld, tl, lost = 0, short_ns = 0;
	long nl = 0, nshort = 0, b = 0;
	if (!c->judge_gpu || p->nk < MIN_KERNELS) {
		insufficient(f, "Too few kernels to judge launch overhead.");
		return;
	}
	if (!p->have_api || s->api_n[GD_API_LAUNCH] == 0) {
		insufficient(f, "Launch API calls were not traced, so launch cost cannot be compared with kernel time.");
		return;
	}
	ld = malloc((size_t)s->api_n[GD_API_LAUNCH] * sizeof(double));
	if (!ld)
		return;
	for (long i = 0; i < p->na; i++)
		if (p->a[i].cat == GD_API_LAUNCH)
			ld[nl++] = (double)(p->a[i].end - p->a[i].start);
	tl = select_kth(ld, nl, nl / 2);
	free(ld);
	for (long i = 0; i < p->nk; i++) {
		const struct gd_pkernel *k = &p->k[i];
		double d = (double)(k->end - k->start);
		while (b < s->nbusy && s->busy[b].start < k->start)
			b++;
		if (d >= tl)
			continue;
		nshort++;
		short_ns += d;
		if (b > 0 && b < s->nbusy && s->busy[b].start == k->start)
			lost += (double)(s->busy[b].start - s->busy[b - 1].end);
	}
	double share = clamp01(lost / c->span), rate = s->wall_ns > 0 ? (double)nl / (s->wall_ns * 1e-9) : NAN;
	ev(f, "launch_api_median_ns", tl, "ns", "median launch call %s", t(b1, tl));
	ev(f, "short_kernels", (double)nshort, "count", "%ld of %ld kernels ran shorter than their launch call",
	   nshort, p->nk);
	ev(f, "short_kernel_mean_ns", nshort ? short_ns / nshort : NAN, "ns", "mean short kernel %s",
	   t(b1, nshort ? short_ns / nshort : NAN));
	ev(f, "launch_rate_per_s", rate, "1/s", "%.0f launches per second", rate);
	ev(f, "idle_before_short_ns", lost, "ns", "%s of GPU idle just before short kernels", t(b1, lost));
	if (nshort < LAUNCH_MIN_SHORT || (double)nshort / p->nk < LAUNCH_MIN_FRAC || share < LAUNCH_WARN) {
		clear(f, "%ld short kernels; %s of idle before them (%s of the span).", nshort, t(b1, lost),
		      pc(b2, share));
		return;
	}
	{
		char b4[32];
		fire(f, share >= LAUNCH_HIGH ? GD_SEV_HIGH : GD_SEV_WARN, share,
		     "Fuse the small kernels, capture the loop in a CUDA Graph, or use torch.compile "
		     "(mode=\"reduce-overhead\") so one launch does the work of many (§2, §9).",
		     "Launch-bound: %ld kernels (mean %s) ran shorter than their %s launch call; the GPU waited %s "
		     "(%s of the span) between them.",
		     nshort, t(b1, short_ns / nshort), t(b2, tl), t(b3, lost), pc(b4, share));
	}
}

static void rule_sync(struct ctx *c, struct gd_finding *f)
{
	const struct gd_profile *p = c->p;
	const struct gd_summary *s = c->s;
	char b1[32], b2[32], b3[32];
	long n = s->api_n[GD_API_SYNC] + s->api_n[GD_API_COPY_SYNC], nu;
	double blocked = s->api_ns[GD_API_SYNC] + s->api_ns[GD_API_COPY_SYNC], bubble = 0, gap_after = 0;
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
	/* a gap that begins while the host is blocked in a sync: the queue ran dry and stays
	 * empty until the host launches again. Without the sync the host would have queued the
	 * next work earlier by at most the time it was blocked, so each such gap counts up to the
	 * length of the blocking call (a host that is slower than the GPU anyway loses little to
	 * its syncs: that idle is the idle rule's). Warm-up gaps are not judged. */
	u = api_union(p, (1u << GD_API_SYNC) | (1u << GD_API_COPY_SYNC), &nu);
	for (long i = 0; i < c->nsgaps && u; i++) {
		while (j < nu && u[j].end < c->sgaps[i].start)
			j++;
		if (j < nu && u[j].start <= c->sgaps[i].start) {
			double g = (double)(c->sgaps[i].end - c->sgaps[i].start), bl = (double)(u[j].end - u[j].start);
			gap_after += g;
			bubble += g < bl ? g : bl;
		}
	}
	free(u);
	double share = c->judged > 0 ? clamp01(bubble / c->judged) : 0;
	ev(f, "sync_calls", (double)n, "count", "%ld synchronising calls (%ld explicit, %ld synchronous copies)", n,
	   s->api_n[GD_API_SYNC], s->api_n[GD_API_COPY_SYNC]);
	ev(f, "sync_blocked_ns", blocked, "ns", "host blocked %s in them", t(b1, blocked));
	ev(f, "idle_after_sync_ns", gap_after, "ns", "%s of GPU idle began while the host was blocked in one",
	   t(b1, gap_after));
	ev(f, "sync_stake_ns", bubble, "ns", "%s of it (each gap up to its blocking call) the sync cost",
	   t(b1, bubble));
	if (isfinite(s->wall_ns) && s->wall_ns > 0)
		ev(f, "sync_per_s", n / (s->wall_ns * 1e-9), "1/s", "%.0f per second", n / (s->wall_ns * 1e-9));
	if (n < SYNC_MIN_CALLS || share < SYNC_WARN) {
		clear(f, "%ld synchronising calls; %s of GPU idle followed them, %s of it due to them.", n,
		      t(b1, gap_after), t(b2, bubble));
		return;
	}
	fire(f, share >= SYNC_HIGH ? GD_SEV_HIGH : GD_SEV_WARN, share,
	     "Synchronise once per step, not per iteration: drop cudaDeviceSynchronize/StreamSynchronize and "
	     "synchronous cudaMemcpy from the loop, avoid .item()/.cpu()/print of GPU tensors, use events and "
	     "async copies (§11).",
	     "%ld synchronising calls blocked the host %s; the GPU then sat idle %s (%s of the judged span) "
	     "that work queued ahead would have filled.",
	     n, t(b1, blocked), t(b2, bubble), pc(b3, share));
}

static void rule_pageable(struct ctx *c, struct gd_finding *f)
{
	const struct gd_summary *s = c->s;
	char b1[32], b2[32], b3[32], b4[32];
	double pb = 0, pns = 0, pinb = 0, pinns = 0;
	long pn = 0;
	if (c->p->nc == 0) {
		clear(f, "No copies.");
		return;
	}
	for (int k = GD_CPY_HTOD; k <= GD_CPY_DTOH; k++) {
		pb += s->cp[k].pageable_bytes;
		pns += s->cp[k].pageable_ns;
		pn += s->cp[k].pageable_count;
		pinb += s->cp[k].bytes - s->cp[k].pageable_bytes;
		pinns += s->cp[k].ns - s->cp[k].pageable_ns;
	}
	if (pn == 0) {
		clear(f, "No copy touched pageable host memory.");
		return;
	}
	double bw = pns > 0 ? pb / (pns * 1e-9) : NAN, pbw = pinns > 0 && pinb > 0 ? pinb / (pinns * 1e-9) : NAN;
	double stake = pns;
	ev(f, "pageable_copies", (double)pn, "count", "%ld copies to/from pageable memory, %s", pn,
	   gd_fmt_bytes(b1, 32, pb));
	ev(f, "pageable_ns", pns, "ns", "they took %s", t(b1, pns));
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
	     "%ld copies used pageable host memory (%s at %s%s%s); up to %s at stake.", pn, gd_fmt_bytes(b1, 32, pb),
	     gd_fmt_si(b2, 32, bw, "B/s"), isfinite(pbw) ? " vs pinned " : "",
	     isfinite(pbw) ? gd_fmt_si(b3, 32, pbw, "B/s") : "", t(b4, stake));
}

static void rule_default_stream(struct ctx *c, struct gd_finding *f)
{
	const struct gd_profile *p = c->p;
	char b1[32], b2[32];
	int64_t w0 = INT64_MAX, w1 = INT64_MIN;
	long nleg = 0, nin = 0, nother = 0;
	double tin = 0;
	int64_t streams[64];
	int nstreams = 0;
	if (!c->judge_gpu) {
		insufficient(f, "Too little GPU activity to judge streams.");
		return;
	}
	/* the window in which other streams have work */
#define SCAN(arr, n)                                                                      \
	for (long i = 0; i < (n); i++) {                                                  \
		if ((arr)[i].legacy) {                                                    \
			nleg++;                                                           \
			continue;                                                         \
		}                                                                         \
		nother++;                                                                 \
		if ((arr)[i].start < w0)                                                  \
			w0 = (arr)[i].start;                                              \
		if ((arr)[i].end > w1)                                                    \
			w1 = (arr)[i].end;                                                \
		int64_t key = (arr)[i].stream * 131 + (arr)[i].pid;                       \
		int seen = 0;                                                             \
		for (int q = 0; q < nstreams; q++)                                        \
			seen |= streams[q] == key;                                        \
		if (!seen && nstreams < 64)                                               \
			streams[nstreams++] = key;                                        \
	}
	SCAN(p->k, p->nk)
	SCAN(p->c, p->nc)
#undef SCAN
	if (nleg == 0) {
		clear(f, "No work on the legacy default stream.");
		return;
	}
	if (nother == 0) {
		clear(f, "All %ld operations ran on the default stream, which prevents no concurrency here.", nleg);
		return;
	}
#define WIN(arr, n)                                                                     \
	for (long i = 0; i < (n); i++)                                                  \
		if ((arr)[i].legacy && (arr)[i].end > w0 && (arr)[i].start < w1) {     \
			nin++;                                                          \
			tin += (double)((arr)[i].end - (arr)[i].start);                 \
		}
	WIN(p->k, p->nk)
	WIN(p->c, p->nc)
#undef WIN
	double share = clamp01(tin / c->span);
	ev(f, "default_stream_ops", (double)nleg, "count", "%ld operations on the legacy default stream", nleg);
	ev(f, "other_streams", (double)nstreams, "count", "%d other stream(s) had %ld operations", nstreams, nother);
	ev(f, "default_ops_while_streams_active", (double)nin, "count",
	   "%ld default-stream operations (%s) ran while other streams had work; each waits for, and blocks, all of "
	   "them",
	   nin, t(b1, tin));
	if (nin == 0 || share < DEFSTREAM_WARN) {
		clear(f, "Default-stream work did not overlap the other streams' activity (%s).", t(b1, tin));
		return;
	}
	fire(f, GD_SEV_WARN, share,
	     "Put every operation on an explicit non-blocking stream (cudaStreamCreateWithFlags(..., "
	     "cudaStreamNonBlocking)) or compile with --default-stream per-thread; the legacy default stream "
	     "synchronises with every blocking stream (§11).",
	     "%ld operations (%s, %s of the span) ran on the legacy default stream while %d other stream(s) were "
	     "active, serialising them.",
	     nin, t(b1, tin), pc(b2, share), nstreams);
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

static void rule_occupancy(struct ctx *c, struct gd_finding *f)
{
	const struct gd_profile *p = c->p;
	const struct gd_summary *s = c->s;
	char b1[32], b2[32], lim[96], fix[256];
	double stake_total = 0, worst = -1;
	int judged = 0, sev = GD_SEV_NONE;
	const char *advice = "";
	static char advice_buf[600];
	if (!c->judge_gpu || s->kernel_ns <= 0) {
		insufficient(f, "Too little kernel time to judge occupancy.");
		return;
	}
	for (int i = 0; i < s->nks && i < 10; i++) {
		const struct gd_kstat *k = &s->ks[i];
		double kshare = k->total_ns / s->kernel_ns, stake = 0;
		int lib_tuned = k->lib == GD_LIB_CUBLAS || k->lib == GD_LIB_CUDNN || k->lib == GD_LIB_FLASH ||
				k->lib == GD_LIB_NCCL;
		char what[300] = "";
		if (kshare < HOT_KERNEL_SHARE)
			break;
		/* NCCL kernels use few blocks on purpose (one per channel); their cost is judged
		 * by the communication rule */
		if (!k->occ_ok || k->kind == GD_KIND_NCCL)
			continue;
		judged++;
		int sms = p->dev[k->device].occ.sm_count;
		if (sms > 0 && k->grid_blocks < sms) {
			stake = kshare * (1.0 - (double)k->grid_blocks / sms);
			snprintf(what, sizeof(what), "grid of %lld block%s leaves %lld of %d SMs idle", k->grid_blocks,
				 k->grid_blocks == 1 ? "" : "s", sms - k->grid_blocks, sms);
		} else if (!lib_tuned && isfinite(k->waves) && k->waves > 1 && k->waves < 4 && k->last_wave_fill < 0.5) {
			/* library kernels are often persistent (a grid sized to the SMs, looping over
			 * tiles), where blocks ÷ resident blocks says nothing about waves */
			stake = kshare * (1.0 - k->last_wave_fill) / ceil(k->waves);
			snprintf(what, sizeof(what), "%.2f waves: the last wave fills only %.0f %% of the SMs", k->waves,
				 100 * k->last_wave_fill);
		} else if (k->occ.occupancy < OCC_LOW && !lib_tuned) {
			/* the time at stake is unknown without counters; the kernel's share bounds it */
			stake = kshare * 0.5 * (1 - k->occ.occupancy / OCC_LOW);
			snprintf(what, sizeof(what), "theoretical occupancy %.0f %%, limited by %s", 100 * k->occ.occupancy,
				 gd_occ_limiters_str(k->occ.limiters, lim, sizeof(lim)));
		}
		ev(f, "occupancy", k->occ.occupancy, "fraction", "%s: %s of kernel time, occupancy %.0f %% (%s), grid %lld × %d",
		   k->short_name, pc(b1, kshare), 100 * k->occ.occupancy,
		   gd_occ_limiters_str(k->occ.limiters, lim, sizeof(lim)), k->grid_blocks, k->block_threads);
		if (!*what)
			continue;
		stake_total += stake;
		if (stake > worst) {
			worst = stake;
			snprintf(f->kernel, sizeof(f->kernel), "%s", k->short_name);
			occ_fix(p, k, fix, sizeof(fix));
			snprintf(advice_buf, sizeof(advice_buf),
				 "%s: %s.%s%s%s Give every SM work: at least as many blocks as SMs, and several waves or a "
				 "grid that is a multiple of SMs × blocks per SM (§6).",
				 k->short_name, what, *fix ? " Change: " : "", fix, *fix ? "." : "");
			snprintf(f->headline, sizeof(f->headline), "Hot kernel %s (%s of kernel time): %s.", k->short_name,
				 pc(b2, kshare), what);
			advice = advice_buf;
		}
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
	char head[300];
	snprintf(head, sizeof(head), "%s", f->headline);
	fire(f, sev, share, advice, "%s", head);
}

static void rule_membound(struct ctx *c, struct gd_finding *f)
{
	const struct gd_profile *p = c->p;
	const struct gd_summary *s = c->s;
	char b1[32], b2[32], b3[32];
	double mem = 0;
	if (!c->judge_gpu || s->kernel_ns <= 0) {
		insufficient(f, "Too little kernel time to classify.");
		return;
	}
	for (int k = 0; k < GD_KIND_COUNT; k++)
		if (gd_kind_memory_bound(k))
			mem += s->kind_ns[k];
	double frac = mem / s->kernel_ns;
	ev(f, "memory_bound_fraction", frac, "fraction",
	   "%s of kernel time in memory-bound kinds (elementwise, reduction, normalisation, softmax, copy)",
	   pc(b1, frac));
	ev(f, "compute_kinds_fraction",
	   (s->kind_ns[GD_KIND_GEMM] + s->kind_ns[GD_KIND_CONV] + s->kind_ns[GD_KIND_ATTENTION]) / s->kernel_ns,
	   "fraction", "%s in GEMM, convolution and attention",
	   pc(b1, (s->kind_ns[GD_KIND_GEMM] + s->kind_ns[GD_KIND_CONV] + s->kind_ns[GD_KIND_ATTENTION]) / s->kernel_ns));
	ev(f, "roofline_position", NAN, "",
	   "placement against measured ceilings needs per-kernel counters, which this profile does not hold");
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
		int nls = 0;
		if (h) {
			for (long i = 0; i < p->nk; i++) {
				const struct gd_pkernel *k = &p->k[i];
				int sl = c->slot[k->name], q;
				double d = (double)(k->end - k->start);
				for (q = 0; q < nls && last_stream[q] != k->stream; q++)
					;
				if (q == nls) {
					if (nls == 64)
						continue;
					nls++;
					last_stream[q] = k->stream;
					last_slot[q] = -1;
				}
				if (sl >= 0 && last_slot[q] >= 0 && gd_kind_memory_bound(s->ks[sl].kind) &&
				    gd_kind_memory_bound(s->ks[last_slot[q]].kind)) {
					unsigned hv = ((unsigned)last_slot[q] * 2654435761u ^ (unsigned)sl * 40503u) & (HB - 1);
					for (int probe = 0; probe < 64; probe++, hv = (hv + 1) & (HB - 1)) {
						if (h[hv].n == 0) {
							h[hv].a = last_slot[q];
							h[hv].b = sl;
						}
						if (h[hv].a == last_slot[q] && h[hv].b == sl) {
							h[hv].n++;
							h[hv].ns += d + last_d[q];
							break;
						}
					}
				}
				last_slot[q] = sl;
				last_d[q] = d;
			}
			int best = -1;
			for (int i = 0; i < HB; i++)
				if (h[i].n >= 2 && (best < 0 || h[i].ns > h[best].ns))
					best = i;
			if (best >= 0) {
				ev(f, "fusion_pair_count", (double)h[best].n, "count",
				   "fusion candidate: %s → %s, %ld times, %s together", s->ks[h[best].a].short_name,
				   s->ks[h[best].b].short_name, h[best].n, t(b1, h[best].ns));
				snprintf(f->kernel, sizeof(f->kernel), "%s", s->ks[h[best].b].short_name);
			}
			free(h);
		}
	}
	if (frac < MEMBOUND_INFO) {
		clear(f, "%s of kernel time in memory-bound kinds.", pc(b1, frac));
		return;
	}
	/* fusing memory-bound chains saves at most their extra round trips; half of their time
	 * is the estimate used here (two kernels → one) */
	double share = clamp01(0.5 * mem / c->span);
	fire(f, frac >= MEMBOUND_WARN && share >= 0.1 ? GD_SEV_WARN : GD_SEV_INFO, share,
	     "Memory-bound kernels are limited by HBM bandwidth, not FLOPs: fuse chains of elementwise/normalisation "
	     "kernels (torch.compile, Triton, a hand-written fused kernel) so data is read once, use lower precision "
	     "to move fewer bytes, and check each against the measured bandwidth ceiling (gpudiag roofline) (§4, §9, "
	     "§10).",
	     "%s of kernel time (%s) is in memory-bound kernels%s%s; fusing them could save up to ~%s.", pc(b1, frac),
	     t(b2, mem), *f->kernel ? "; top fusion candidate ends in " : "", f->kernel, t(b3, 0.5 * mem));
}

static void rule_tensor(struct ctx *c, struct gd_finding *f)
{
	const struct gd_profile *p = c->p;
	const struct gd_summary *s = c->s;
	char b1[32], b2[32];
	double simt = 0, unknown = 0, mm = 0;
	const char *worst = NULL;
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
	for (int i = 0; i < s->nks; i++) {
		const struct gd_kstat *k = &s->ks[i];
		if (k->kind != GD_KIND_GEMM && k->kind != GD_KIND_CONV)
			continue;
		mm += k->total_ns;
		if (k->tc == 0) {
			simt += k->total_ns;
			if (!worst)
				worst = k->short_name;
		} else if (k->tc < 0 && k->lib == GD_LIB_USER) {
			unknown += k->total_ns;
		}
	}
	double frac = simt / s->kernel_ns;
	ev(f, "matmul_fraction", mm / s->kernel_ns, "fraction", "%s of kernel time in GEMM/convolution",
	   pc(b1, mm / s->kernel_ns));
	ev(f, "fp32_simt_fraction", frac, "fraction", "%s in kernels whose names mark FP32 CUDA-core math (sgemm, simt)",
	   pc(b1, frac));
	ev(f, "unknown_precision_fraction", unknown / s->kernel_ns, "fraction",
	   "%s in user GEMM kernels whose precision the name does not tell", pc(b1, unknown / s->kernel_ns));
	if (worst)
		snprintf(f->kernel, sizeof(f->kernel), "%s", worst);
	if (frac >= TENSOR_WARN) {
		double share = clamp01(simt / c->span);
		fire(f, frac >= TENSOR_HIGH ? GD_SEV_HIGH : GD_SEV_WARN, share,
		     "Let matrix math use the tensor cores: allow TF32 (torch.backends.cuda.matmul.allow_tf32 = True, "
		     "torch.set_float32_matmul_precision(\"high\")), or run in BF16/FP16 with autocast (AMP); this GPU's "
		     "tensor cores are many times faster than its FP32 CUDA cores (§3).",
		     "%s of kernel time is FP32 matrix math on CUDA cores (e.g. %s) on a GPU with %s tensor cores.",
		     pc(b1, frac), worst ? worst : "?", a->tensor_gen);
		return;
	}
	if (unknown / s->kernel_ns >= 0.2) {
		fire(f, GD_SEV_INFO, NAN,
		     "If these hand-written GEMMs use FP32 FMA loops, tensor-core instructions (wmma/mma, or cuBLAS) would "
		     "be much faster (§3).",
		     "%s of kernel time is in hand-written GEMM kernels whose use of tensor cores cannot be told from the "
		     "name.",
		     pc(b2, unknown / s->kernel_ns));
		return;
	}
	clear(f, "No significant FP32 CUDA-core matrix math (%s).", pc(b1, frac));
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
		if (m->sm_mhz > clk_max)
			clk_max = m->sm_mhz;
		if (m->reasons == ~0ULL)
			continue;
		known++;
		if (gd_clock_reasons_throttling(m->reasons)) {
			thr++;
			if (m->reasons & (0x8ULL | 0x20ULL | 0x40ULL | 0x80ULL))
				hard++;
			if (m->sm_mhz > 0) {
				clk_thr += m->sm_mhz;
				nclk++;
			}
		}
	}
	if (p->ndev && p->dev[0].max_sm_mhz > clk_max)
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
		double period = p->ns > 1 ? (double)(p->s[p->ns - 1].t - p->s[0].t) / (double)(p->ns - 1) : 0;
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
				 fabs((double)(k->start - p->s[si].t)) <= period;
			if (in) {
				in_ns[sl] += (double)(k->end - k->start);
				in_n[sl]++;
			} else {
				out_ns[sl] += (double)(k->end - k->start);
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
	double ratio = isfinite(peak) && isfinite(s->mem_total) && s->mem_total > 0 ? peak / s->mem_total : NAN;
	ev(f, "peak_used_bytes", peak, "bytes", "peak device memory used %s of %s (NVML, whole GPU)",
	   gd_fmt_bytes(b1, 32, peak), gd_fmt_bytes(b2, 32, s->mem_total));
	ev(f, "peak_fraction", ratio, "fraction", "%s of capacity", pc(b1, ratio));
	if (p->nm)
		ev(f, "peak_allocated_bytes", peak_live, "bytes", "peak allocated by the program %s (allocation records)",
		   gd_fmt_bytes(b1, 32, peak_live));
	ev(f, "alloc_calls", (double)nalloc, "count", "%ld allocation/free calls took %s", nalloc, t(b1, alloc_ns));
	double churn = isfinite(s->wall_ns) && s->wall_ns > 0 ? alloc_ns / s->wall_ns : 0;
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
	clear(f, "Peak device memory %s of capacity; %ld allocation calls.", pc(b1, ratio), nalloc);
}

static int cmp_iv(const void *x, const void *y)
{
	const struct gd_interval *a = x, *b = y;
	return a->start < b->start ? -1 : a->start > b->start;
}

static long merge(struct gd_interval *v, long n)
{
	long m = 0;
	for (long i = 0; i < n; i++) {
		if (m && v[i].start <= v[m - 1].end) {
			if (v[i].end > v[m - 1].end)
				v[m - 1].end = v[i].end;
		} else {
			v[m++] = v[i];
		}
	}
	return m;
}

static void rule_comm(struct ctx *c, struct gd_finding *f)
{
	const struct gd_profile *p = c->p;
	const struct gd_summary *s = c->s;
	char b1[32], b2[32], b3[32];
	long nn = 0, nc = 0;
	struct gd_interval *a, *b;
	if (s->kind_n[GD_KIND_NCCL] == 0) {
		clear(f, "No NCCL kernels.");
		return;
	}
	a = malloc((size_t)p->nk * sizeof(*a));
	b = malloc((size_t)p->nk * sizeof(*b));
	if (!a || !b) {
		free(a);
		free(b);
		return;
	}
	for (long i = 0; i < p->nk; i++) {
		int sl = c->slot[p->k[i].name];
		struct gd_interval iv = {p->k[i].start, p->k[i].end};
		if (sl >= 0 && s->ks[sl].kind == GD_KIND_NCCL)
			a[nn++] = iv;
		else
			b[nc++] = iv;
	}
	qsort(a, (size_t)nn, sizeof(*a), cmp_iv);
	nn = merge(a, nn);
	nc = merge(b, nc); /* already start-sorted */
	double comm = 0;
	for (long i = 0; i < nn; i++)
		comm += (double)(a[i].end - a[i].start);
	double ov = gd_overlap(a, nn, b, nc), exposed = comm - ov, share = clamp01(exposed / c->span);
	free(a);
	free(b);
	ev(f, "nccl_ns", comm, "ns", "NCCL kernels busy %s (%ld kernels)", t(b1, comm), s->kind_n[GD_KIND_NCCL]);
	ev(f, "overlap_fraction", comm > 0 ? ov / comm : NAN, "fraction", "%s of it overlapped compute kernels",
	   pc(b1, comm > 0 ? ov / comm : NAN));
	ev(f, "exposed_ns", exposed, "ns", "%s exposed (%s of the span)", t(b1, exposed), pc(b2, share));
	if (share < COMM_INFO) {
		clear(f, "Communication is hidden behind compute (%s exposed).", t(b1, exposed));
		return;
	}
	fire(f, share >= COMM_HIGH ? GD_SEV_HIGH : share >= COMM_WARN ? GD_SEV_WARN : GD_SEV_INFO, share,
	     "Overlap communication with compute: DDP gradient bucketing (bucket_cap_mb), FSDP prefetch, "
	     "communication on its own stream; check the link with gpudiag info (PCIe link, NVLink links active) (§12).",
	     "Communication is exposed: NCCL ran %s, %s of it not overlapped with compute (%s of the span).",
	     t(b1, comm), t(b2, exposed), pc(b3, share));
}

/* ---- driver ---------------------------------------------------------------------------- */
static int rank_cmp(const struct gd_finding *a, const struct gd_finding *b)
{
	int fa = a->state == GD_FIRED, fb = b->state == GD_FIRED;
	if (fa != fb)
		return fb - fa;
	if (a->severity != b->severity)
		return b->severity - a->severity;
	double sa = isfinite(a->rank_share) ? a->rank_share : -1, sb = isfinite(b->rank_share) ? b->rank_share : -1;
	if (sa != sb)
		return sa < sb ? 1 : -1;
	return a->rule - b->rule;
}

int gd_verdicts_compute(const struct gd_profile *p, const struct gd_summary *s, struct gd_verdicts *v)
{
	struct ctx c = {.p = p, .s = s};
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
	if (!c.slot || !c.gaps || !c.warm || !c.sgaps) {
		free(c.slot);
		free(c.gaps);
		free(c.warm);
		free(c.sgaps);
		return GD_EFAIL;
	}
	for (int i = 0; i < p->nnames; i++)
		c.slot[i] = -1;
	for (int i = 0; i < s->nks; i++)
		c.slot[s->ks[i].name] = i;
	for (long i = 1; i < s->nbusy; i++) {
		c.gaps[c.ngaps].start = s->busy[i - 1].end;
		c.gaps[c.ngaps].end = s->busy[i].start;
		c.ngaps++;
	}
	mark_warmup(&c);
	rule_profiler(&c, &v->f[GD_R_PROFILER]);
	if (!p->cupti_ok) {
		for (int r = 0; r < GD_R_COUNT; r++)
			if (r != GD_R_PROFILER)
				insufficient(&v->f[r], "Nothing was traced (see \"What the profile could not show\").");
	} else {
		rule_idle(&c, &v->f[GD_R_IDLE]);
		rule_launch(&c, &v->f[GD_R_LAUNCH]);
		rule_sync(&c, &v->f[GD_R_SYNC]);
		rule_pageable(&c, &v->f[GD_R_PAGEABLE]);
		rule_default_stream(&c, &v->f[GD_R_DEFAULT_STREAM]);
		rule_occupancy(&c, &v->f[GD_R_OCCUPANCY]);
		rule_membound(&c, &v->f[GD_R_MEMBOUND]);
		rule_tensor(&c, &v->f[GD_R_TENSOR]);
		rule_throttle(&c, &v->f[GD_R_THROTTLE]);
		rule_memory(&c, &v->f[GD_R_MEMORY]);
		rule_comm(&c, &v->f[GD_R_COMM]);
	}
	free(c.slot);
	free(c.gaps);
	free(c.warm);
	free(c.sgaps);
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
	return GD_OK;
}
