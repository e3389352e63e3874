/* The per-kernel view of `gpudiag run --metrics` (kcounters.h): the profiled launches grouped by
 * (device, kernel name), the median of each counter over a kernel's launches, what the guide
 * derives from them, and each kernel's place on the roofline (guide §10).
 *
 * Counting rules (../shared/docs/cupti-notes.md §5, the recipes of Nsight Compute's roofline):
 *  - FLOPs by instruction: ADD + MUL + 2 × FMA thread instructions (predicate on) per precision.
 *    FP16: one element per thread instruction, as ncu's half-precision roofline counts. The
 *    SASS op counters do not tell a packed HFMA2 (two halves) from one working on a single
 *    lane, so vectorised half2 code does up to twice the FLOPs shown: a lower bound, never a
 *    guess upward.
 *  - Tensor-math instructions: HMMA − HFMA2.MMA + GMMA + IMMA + DMMA. nvcc materialises
 *    constants with HFMA2.MMA, which runs on the tensor pipe and is counted by the HMMA
 *    counter: a pure FP32 kernel shows one HMMA per warp without any tensor math (the trap of
 *    cupti-notes §5), so the HFMA2 count is subtracted and an unknown HFMA2 leaves tensor use
 *    unknown. GMMA (wgmma) exists only where the architecture has it; elsewhere its refused
 *    counter reads as 0 instructions.
 *  - Tensor FLOPs are not counted by instruction (an MMA's FLOPs depend on its shape and type).
 *    A kernel placed on a tensor roof has achieved work = its CUDA-core FLOP/s + tensor pipe
 *    active % × the tensor ceiling: an estimate from how busy the pipe was, so its % of that
 *    roof is the pipe's activity. flop_s and intensity use that work for such a kernel (the
 *    point the roofline shows), the CUDA-core FLOPs alone otherwise.
 *
 * Roofline thresholds (what each separates):
 *  - GD_KC_ROOF_PCT 60: a kernel reaching ≥ 60 % of the roof above it is bound by that roof —
 *    memory left of the ridge (DRAM B/s ≥ 60 % of the DRAM ceiling), compute right of it
 *    (≥ 60 % of the compute ceiling). Nsight Compute's Speed-of-Light rule, the same line as
 *    PM_BOUND_PCT of the memory_bound verdict (verdict.c). Below it on its side of the ridge
 *    the kernel is latency/parallelism-bound: neither roof is what stops it.
 *  - GD_KC_TENSOR_ACTIVE_PCT 5: with tensor-math instructions and the tensor pipe active
 *    ≥ 5 % of the time, the kernel's work is on the tensor cores and it is placed on a tensor
 *    roof; below, a prologue or a handful of MMAs (PM_TENSOR_IDLE_PCT of verdict.c). */
#include "analysis/kcounters.h"

#include "analysis/summary.h"
#include "core/status.h"
#include "profile/pm_metrics.h"
#include "roofline/model.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define GD_KC_ROOF_PCT 60.0
#define GD_KC_TENSOR_ACTIVE_PCT 5.0
#define LIMITER_LEN 96 /* room for every limiter of gd_occ_limiters_str joined */

const char *gd_kc_bound_name(int bound)
{
	switch (bound) {
	case GD_KB_MEMORY: return "memory";
	case GD_KB_COMPUTE: return "compute";
	case GD_KB_LATENCY: return "latency";
	default: return "unknown";
	}
}

/* ---- ceilings */

/* The datasheet's figures of device d: CUDA-core and tensor peaks at the device's maximum SM
 * clock over its SMs (gd_arch_peak), DRAM at 2 × memory clock × bus width. */
static void datasheet(const struct gd_pdevice *d, struct gd_kc_ceilings *c)
{
	const struct gd_arch *a = gd_arch_find(d->major, d->minor);
	double clk = d->max_sm_mhz > 0 ? d->max_sm_mhz : NAN;
	c->dram_bps = gd_pm_dram_peak_bps(d->mem_clock_khz, d->mem_bus_bits);
	c->l2_bps = NAN; /* no datasheet gives it */
	for (int i = 0; i < GD_P_COUNT; i++) {
		c->cuda_core[i] = gd_arch_peak(a, (enum gd_prec)i, 0, d->sm_count, clk);
		c->tensor[i] = gd_arch_peak(a, (enum gd_prec)i, 1, d->sm_count, clk);
	}
	c->measured = 0;
	if (!a)
		snprintf(c->source, sizeof(c->source), "datasheet (compute capability %d.%d: not in gpudiag's table)",
			 d->major, d->minor);
	else if (d->max_sm_mhz > 0 && d->sm_count > 0)
		snprintf(c->source, sizeof(c->source), "datasheet (%s, %d SMs, %d MHz)", a->sm, d->sm_count, d->max_sm_mhz);
	else
		snprintf(c->source, sizeof(c->source), "datasheet (%s; SM count or clock unknown)", a->sm);
}

/* Device d's ceilings: those `gpudiag roofline` measured on it when the profile carries them,
 * each figure it did not measure from the datasheet (and the source says so); else the
 * datasheet's. */
static void device_ceilings(const struct gd_pdevice *d, struct gd_kc_ceilings *c)
{
	const struct gd_pceilings *m = &d->ceil;
	int filled = 0;
	char date[32] = "an unknown date";
	datasheet(d, c);
	if (!(m->measured_at > 0))
		return;
#define TAKE(dst, src)                          \
	do {                                    \
		if (isfinite(src))              \
			dst = src;              \
		else if (isfinite(dst))         \
			filled = 1;             \
	} while (0)
	TAKE(c->dram_bps, m->dram_bps);
	TAKE(c->l2_bps, m->l2_bps);
	for (int i = 0; i < GD_P_COUNT; i++) {
		TAKE(c->cuda_core[i], m->cuda_core[i]);
		TAKE(c->tensor[i], m->tensor[i]);
	}
#undef TAKE
	{
		time_t t = (time_t)m->measured_at;
		struct tm tm;
		if (gmtime_r(&t, &tm))
			strftime(date, sizeof(date), "%Y-%m-%d", &tm);
	}
	c->measured = 1;
	snprintf(c->source, sizeof(c->source), "measured by gpudiag roofline on %s%s", date,
		 filled ? " (datasheet where not measured)" : "");
}

/* ---- one kernel */

static int cmp_dbl(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return a < b ? -1 : a > b;
}

/* The median of the finite values among v[0..n) (reordered); NaN when none. */
static double median(double *v, int n)
{
	int k = 0;
	for (int i = 0; i < n; i++)
		if (isfinite(v[i]))
			v[k++] = v[i];
	if (!k)
		return NAN;
	qsort(v, (size_t)k, sizeof(*v), cmp_dbl);
	return k % 2 ? v[k / 2] : (v[k / 2 - 1] + v[k / 2]) / 2;
}

/* ADD + MUL + 2 × FMA; NaN when a count is unknown. */
static double flops_of(const double *q, int add, int mul, int fma)
{
	return q[add] + q[mul] + 2 * q[fma];
}

static double ratio(double a, double b) { return isfinite(a) && b > 0 ? a / b : NAN; }

static int has_word(const char *name, const char *w)
{
	size_t n = strlen(w);
	for (const char *s = name; *s; s++) {
		size_t i = 0;
		while (i < n && s[i] && tolower((unsigned char)s[i]) == w[i])
			i++;
		if (i == n)
			return 1;
	}
	return 0;
}

/* The tensor precision a kernel's roof is taken at: the instruction family with the most
 * instructions (DMMA FP64, IMMA INT8), else the type its name states; FP16 otherwise (HMMA and
 * GMMA of FP16 and BF16 run at the same rate on every architecture with BF16). */
static int tensor_prec(const double *q, const char *name)
{
	double hg = fmax(q[GD_KC_TENSOR_HMMA] - q[GD_KC_TENSOR_HFMA2], 0) + q[GD_KC_TENSOR_GMMA];
	if (q[GD_KC_TENSOR_DMMA] > hg && q[GD_KC_TENSOR_DMMA] >= q[GD_KC_TENSOR_IMMA])
		return GD_P_FP64;
	if (q[GD_KC_TENSOR_IMMA] > hg)
		return GD_P_INT8;
	if (has_word(name, "e4m3") || has_word(name, "e5m2") || has_word(name, "fp8"))
		return GD_P_FP8;
	if (has_word(name, "tf32"))
		return GD_P_TF32;
	if (has_word(name, "bf16"))
		return GD_P_BF16;
	return GD_P_FP16;
}

/* Where kernel k sits against ceilings c (guide §10). */
static void roofline(struct gd_kc_kernel *k, const struct gd_kc_ceilings *c, double cuda_flops, double dur_s,
		     const char *name)
{
	double work, peak, ridge;
	int tensor = k->tensor_inst > 0 && k->q[GD_KC_TENSOR_ACTIVE] >= GD_KC_TENSOR_ACTIVE_PCT, right;
	k->bound = GD_KB_UNKNOWN;
	k->prec = GD_P_FP32;
	k->ceiling = k->roof_pct = k->dram_roof_pct = NAN;
	k->flop_s = ratio(cuda_flops, dur_s);
	k->intensity = ratio(cuda_flops, k->dram_bytes);
	if (!c)
		return;
	k->dram_roof_pct = ratio(k->dram_bps, c->dram_bps) * 100;
	if (tensor) {
		k->prec = tensor_prec(k->q, name);
		peak = c->tensor[k->prec];
		work = cuda_flops + k->q[GD_KC_TENSOR_ACTIVE] / 100 * peak * dur_s;
		k->flop_s = ratio(work, dur_s);
		k->intensity = ratio(work, k->dram_bytes);
	} else {
		/* the precision with the most FLOPs; FP32 when none (a copy: its roof is DRAM) */
		static const int precs[] = {GD_P_FP32, GD_P_FP64, GD_P_FP16};
		for (int i = 1; i < 3; i++)
			if (k->flops[precs[i]] > k->flops[k->prec])
				k->prec = precs[i];
		peak = c->cuda_core[k->prec];
		work = cuda_flops;
	}
	ridge = gd_rl_ridge(peak, c->dram_bps);
	if (!isfinite(ridge) || !isfinite(k->flop_s))
		return;
	if (isfinite(k->intensity))
		right = k->intensity >= ridge;
	else if (k->dram_bytes == 0 && work > 0)
		right = 1; /* no DRAM traffic at all: right of any ridge (no point on a log axis) */
	else
		return;
	if (!right) {
		/* under the DRAM slope: the % of that roof reached is the DRAM fraction (the same
		 * ratio as FLOP/s over intensity × DRAM, and defined at intensity 0 too) */
		k->ceiling = k->intensity * c->dram_bps;
		k->roof_pct = k->dram_roof_pct;
		if (isfinite(k->roof_pct))
			k->bound = k->roof_pct >= GD_KC_ROOF_PCT ? GD_KB_MEMORY : GD_KB_LATENCY;
	} else {
		k->ceiling = isfinite(k->intensity) ? gd_rl_attainable(k->intensity, peak, c->dram_bps) : peak;
		k->roof_pct = ratio(k->flop_s, k->ceiling) * 100;
		if (isfinite(k->roof_pct))
			k->bound = k->roof_pct >= GD_KC_ROOF_PCT ? GD_KB_COMPUTE : GD_KB_LATENCY;
	}
}

/* The busiest unit among medians q: the speed-of-light quantity `sol` when known, else the
 * highest known of `also` (-1: none) and first..last; -1 when none is known. */
static int busiest(const double *q, int sol, int also, int first, int last)
{
	int b = -1;
	if (isfinite(q[sol]))
		return sol;
	if (also >= 0 && isfinite(q[also]))
		b = also;
	for (int m = first; m <= last; m++)
		if (isfinite(q[m]) && (b < 0 || q[m] > q[b]))
			b = m;
	return b;
}

/* The derived values of a kernel whose medians k->q are set. */
static void derive(struct gd_kc_kernel *k, const struct gd_kc_ceilings *c, int wgmma, const char *name)
{
	const double *q = k->q;
	double dur_s = q[GD_KC_DURATION] > 0 ? q[GD_KC_DURATION] * 1e-9 : NAN, cuda_flops, gmma;
	for (int i = 0; i < GD_P_COUNT; i++)
		k->flops[i] = NAN;
	k->flops[GD_P_FP64] = flops_of(q, GD_KC_DADD, GD_KC_DMUL, GD_KC_DFMA);
	k->flops[GD_P_FP32] = flops_of(q, GD_KC_FADD, GD_KC_FMUL, GD_KC_FFMA);
	k->flops[GD_P_FP16] = flops_of(q, GD_KC_HADD, GD_KC_HMUL, GD_KC_HFMA);
	cuda_flops = k->flops[GD_P_FP64] + k->flops[GD_P_FP32] + k->flops[GD_P_FP16];
	gmma = isnan(q[GD_KC_TENSOR_GMMA]) && !wgmma ? 0 : q[GD_KC_TENSOR_GMMA];
	k->tensor_inst = fmax(q[GD_KC_TENSOR_HMMA] - q[GD_KC_TENSOR_HFMA2], 0) + gmma + q[GD_KC_TENSOR_IMMA] +
			 q[GD_KC_TENSOR_DMMA];
	if (isnan(q[GD_KC_TENSOR_HMMA]) || isnan(q[GD_KC_TENSOR_HFMA2]))
		k->tensor_inst = NAN; /* fmax would hide a NaN */
	k->dram_bytes = q[GD_KC_DRAM_READ] + q[GD_KC_DRAM_WRITE];
	k->dram_bps = ratio(k->dram_bytes, dur_s);
	k->ld_sectors_per_req = ratio(q[GD_KC_LD_SECTORS], q[GD_KC_LD_REQUESTS]);
	k->st_sectors_per_req = ratio(q[GD_KC_ST_SECTORS], q[GD_KC_ST_REQUESTS]);
	k->ld_used_pct = q[GD_KC_LD_USED_PCT];
	k->st_used_pct = q[GD_KC_ST_USED_PCT];
	k->threads_per_inst = q[GD_KC_THREADS_PER_INST];
	k->achieved_occ_pct = q[GD_KC_WARPS_ACTIVE];
	k->sm_busy = busiest(q, GD_KC_SM_PCT, -1, GD_KC_SM_UNIT_FIRST, GD_KC_SM_UNIT_LAST);
	k->sm_busy_pct = k->sm_busy >= 0 ? q[k->sm_busy] : NAN;
	k->mem_busy = busiest(q, GD_KC_MEM_PCT, GD_KC_DRAM_PCT, GD_KC_MEM_UNIT_FIRST, GD_KC_MEM_UNIT_LAST);
	k->mem_busy_pct = k->mem_busy >= 0 ? q[k->mem_busy] : NAN;
	roofline(k, c, cuda_flops, dur_s, name);
	/* the top stall reasons by share of active warp cycles */
	for (int i = 0; i < GD_KC_TOP_STALLS; i++) {
		k->stall[i] = -1;
		k->stall_pct[i] = NAN;
	}
	for (int m = GD_KC_STALL_FIRST; m <= GD_KC_STALL_LAST; m++) {
		int at = GD_KC_TOP_STALLS;
		if (!isfinite(q[m]))
			continue;
		while (at > 0 && (k->stall[at - 1] < 0 || q[m] > k->stall_pct[at - 1]))
			at--;
		if (at >= GD_KC_TOP_STALLS)
			continue;
		memmove(&k->stall[at + 1], &k->stall[at], (size_t)(GD_KC_TOP_STALLS - 1 - at) * sizeof(k->stall[0]));
		memmove(&k->stall_pct[at + 1], &k->stall_pct[at],
			(size_t)(GD_KC_TOP_STALLS - 1 - at) * sizeof(k->stall_pct[0]));
		k->stall[at] = m;
		k->stall_pct[at] = q[m];
	}
}

/* ---- the view */

/* A launch's grouping key: sorted by (device, name), one run per kernel, launches in order. */
struct gkey {
	int device, name;
	long idx;
};
static int cmp_group(const void *x, const void *y)
{
	const struct gkey *a = x, *b = y;
	if (a->device != b->device)
		return a->device < b->device ? -1 : 1;
	if (a->name != b->name)
		return a->name < b->name ? -1 : 1;
	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

static int cmp_share(const void *x, const void *y)
{
	const struct gd_kc_kernel *a = x, *b = y;
	int fa = isfinite(a->time_share), fb = isfinite(b->time_share);
	if (fa != fb)
		return fa ? -1 : 1; /* unknown shares last */
	if (fa && a->time_share != b->time_share)
		return a->time_share > b->time_share ? -1 : 1;
	if (a->device != b->device)
		return a->device < b->device ? -1 : 1;
	return a->name < b->name ? -1 : a->name > b->name;
}

/* Fills kernel k from the launches g[0..n) (one device and name); vals: scratch of n. */
static void build_kernel(const struct gd_profile *p, const struct gd_summary *s, const struct gd_kc_view *v,
			 const struct gkey *g, long n, const int *dname, const int *kstat, const double *untraced,
			 double *vals, struct gd_kc_kernel *k, char *limiter)
{
	const struct gd_klaunch *first = &p->kl[g[0].idx];
	const struct gd_kc_ceilings *c = first->device >= 0 && first->device < v->nceil ? &v->ceil[first->device] : NULL;
	const struct gd_arch *a = c ? gd_arch_find(p->dev[first->device].major, p->dev[first->device].minor) : NULL;
	const struct gd_kstat *ks = s && kstat[first->name] >= 0 ? &s->ks[kstat[first->name]] : NULL;
	memset(k, 0, sizeof(*k));
	k->device = first->device;
	k->name = first->name;
	k->dname = dname[first->name] >= 0 && dname[first->name] < p->nnames ? dname[first->name] : first->name;
	for (long i = 0; i < n; i++) {
		const struct gd_klaunch *l = &p->kl[g[i].idx];
		if (l->status != GD_KL_OK) {
			k->skipped++;
			continue;
		}
		k->launches++;
		if (l->passes > k->passes)
			k->passes = l->passes;
	}
	for (int m = 0; m < GD_KC_COUNT; m++) {
		int nv = 0;
		for (long i = 0; i < n; i++)
			if (p->kl[g[i].idx].status == GD_KL_OK)
				vals[nv++] = p->kl[g[i].idx].q[m];
		k->q[m] = median(vals, nv);
	}
	derive(k, c, a && a->has_wgmma, p->names[k->dname] ? p->names[k->dname] : "");
	/* theoretical occupancy: the summary's, from the kernel record's launch configuration */
	k->theoretical_occ_pct = ks && ks->occ_ok ? ks->occ.occupancy * 100 : NAN;
	k->occ_limiter = NULL;
	if (ks && ks->occ_ok && ks->occ.limiters) {
		gd_occ_limiters_str(ks->occ.limiters, limiter, LIMITER_LEN);
		k->occ_limiter = limiter;
	}
	{
		double ns = (ks ? ks->total_ns : 0) + untraced[first->name];
		k->time_share = v->kernel_ns > 0 && (ks || untraced[first->name] > 0) ? ns / v->kernel_ns : NAN;
	}
}

int gd_kc_view_build(const struct gd_profile *p, const struct gd_summary *s, struct gd_kc_view *v)
{
	struct gkey *g = NULL;
	long n = 0, ngroups = 0;
	int *dname = NULL, *kstat = NULL;
	double *vals = NULL, *untraced = NULL;
	char *limiters;
	memset(v, 0, sizeof(*v));
	if (!p->nkl)
		return GD_OK;
	v->ceil = calloc((size_t)(p->ndev ? p->ndev : 1), sizeof(*v->ceil));
	g = malloc((size_t)p->nkl * sizeof(*g));
	vals = malloc((size_t)p->nkl * sizeof(*vals));
	dname = malloc(((size_t)p->nnames + 1) * sizeof(*dname));
	kstat = malloc(((size_t)p->nnames + 1) * sizeof(*kstat));
	untraced = calloc((size_t)p->nnames + 1, sizeof(*untraced));
	if (!v->ceil || !g || !vals || !dname || !kstat || !untraced)
		goto oom;
	v->nceil = p->ndev;
	for (int d = 0; d < p->ndev; d++)
		device_ceilings(&p->dev[d], &v->ceil[d]);
	/* name → demangled name (from any kernel record of that name) and → its summary row */
	for (int i = 0; i <= p->nnames; i++)
		dname[i] = kstat[i] = -1;
	for (long i = 0; i < p->nk; i++)
		if (p->k[i].name >= 0 && p->k[i].name < p->nnames && dname[p->k[i].name] < 0)
			dname[p->k[i].name] = p->k[i].dname;
	for (int i = 0; s && i < s->nks; i++)
		if (s->ks[i].name >= 0 && s->ks[i].name < p->nnames)
			kstat[s->ks[i].name] = i;
	for (long i = 0; i < p->nkl; i++) {
		const struct gd_klaunch *l = &p->kl[i];
		if (l->name < 0 || l->name >= p->nnames)
			continue; /* the reader never gives one; a built profile might */
		g[n++] = (struct gkey){l->device, l->name, i};
		if (l->status == GD_KL_OK && l->kernel < 0 && isfinite(l->q[GD_KC_DURATION]) && l->q[GD_KC_DURATION] > 0)
			untraced[l->name] += l->q[GD_KC_DURATION];
		if (l->status == GD_KL_OK) {
			v->profiled++;
			if (l->passes > v->max_passes)
				v->max_passes = l->passes;
			if (l->replay < 0)
				v->replay_unknown++;
			else if (l->replay & GD_KL_F_USER)
				++*(l->replay & GD_KL_F_FLUSH ? &v->replay_flushed : &v->replay_user);
			else
				v->replay_kernel++;
		} else {
			v->skipped++;
		}
	}
	v->kernel_ns = s && s->kernel_ns > 0 ? s->kernel_ns : 0;
	for (int i = 0; i < p->nnames; i++)
		v->kernel_ns += untraced[i];
	qsort(g, (size_t)n, sizeof(*g), cmp_group);
	for (long i = 0; i < n; i++)
		ngroups += !i || g[i].device != g[i - 1].device || g[i].name != g[i - 1].name;
	/* the kernels, then room for each one's limiter text, in one block (freed with v->k) */
	v->k = malloc((size_t)(ngroups ? ngroups : 1) * (sizeof(*v->k) + LIMITER_LEN));
	if (!v->k)
		goto oom;
	limiters = (char *)(v->k + ngroups);
	for (long i = 0; i < n;) {
		long j = i + 1;
		while (j < n && g[j].device == g[i].device && g[j].name == g[i].name)
			j++;
		build_kernel(p, s, v, g + i, j - i, dname, kstat, untraced, vals, &v->k[v->nk],
			     limiters + (size_t)v->nk * LIMITER_LEN);
		v->nk++;
		i = j;
	}
	qsort(v->k, (size_t)v->nk, sizeof(*v->k), cmp_share);
	free(g);
	free(vals);
	free(dname);
	free(kstat);
	free(untraced);
	return GD_OK;
oom:
	free(g);
	free(vals);
	free(dname);
	free(kstat);
	free(untraced);
	gd_kc_view_free(v);
	return GD_EFAIL;
}

void gd_kc_view_free(struct gd_kc_view *v)
{
	free(v->k);
	free(v->ceil);
	memset(v, 0, sizeof(*v));
}

const char *gd_kc_replay_text(const struct gd_kc_view *v, char *buf, size_t n)
{
	static const char *const what[3] = {
		"user replay, L2 flushed before each pass",
		"user replay without an L2 flush",
		"CUPTI kernel replay, L2 not flushed between passes",
	};
	const long c[3] = {v->replay_flushed, v->replay_user, v->replay_kernel};
	int kinds = 0, last = 0;
	size_t len = 0;
	buf[0] = 0;
	for (int i = 0; i < 3; i++)
		if (c[i] > 0)
			kinds++, last = i;
	if (kinds == 1) {
		snprintf(buf, n, "%s", what[last]);
		return buf;
	}
	for (int i = 0; i < 3 && kinds > 1; i++) {
		int w;
		if (!c[i])
			continue;
		w = snprintf(buf + len, n - len, "%s%ld by %s", len ? ", " : "", c[i], what[i]);
		if (w < 0 || (size_t)w >= n - len)
			break;
		len += (size_t)w;
	}
	return buf;
}
