/* Summary statistics of a profile; see summary.h. One pass over each event array. */
#include "analysis/summary.h"

#include "core/safe_int.h"
#include "core/status.h"
#include "gpu/nvml.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *copy_names[GD_CPY_COUNT] = {"HtoD", "DtoH", "DtoD", "PtoP", "memset", "other"};
const char *gd_copy_class_name(int c) { return c >= 0 && c < GD_CPY_COUNT ? copy_names[c] : "other"; }

int gd_copy_class(int k)
{
	switch (k) {
	case GD_CK_HTOD: return GD_CPY_HTOD;
	case GD_CK_DTOH: return GD_CPY_DTOH;
	case GD_CK_DTOD: return GD_CPY_DTOD;
	case GD_CK_PTOP: return GD_CPY_PTOP;
	case GD_CK_MEMSET: return GD_CPY_MEMSET;
	default: return GD_CPY_OTHER;
	}
}

static int cmp_total(const void *x, const void *y)
{
	const struct gd_kstat *a = x, *b = y;
	return a->total_ns < b->total_ns ? 1 : a->total_ns > b->total_ns ? -1 : 0;
}

void gd_range_add(struct gd_range *r, double v)
{
	if (!isfinite(v))
		return;
	if (r->n == 0 || v < r->min)
		r->min = v;
	if (r->n == 0 || v > r->max)
		r->max = v;
	r->mean += v; /* divided at the end */
	r->n++;
}

void gd_range_end(struct gd_range *r)
{
	if (r->n)
		r->mean /= r->n;
	else
		r->min = r->mean = r->max = NAN;
}

/* The mean of each quantity over the GPU-busy time (the busy intervals: the union of every
 * device's kernels, copies and memsets): each sample weighted by how much of it lies in that
 * time. NaN where no sample in busy time carries the quantity. */
static void pm_busy_means(const struct gd_profile *p, const struct gd_summary *s, double mean[GD_PM_COUNT])
{
	double sum[GD_PM_COUNT] = {0}, w[GD_PM_COUNT] = {0};
	for (long i = 0; i < p->npm; i++) {
		const struct gd_pm_sample *x = &p->pm[i];
		long lo = 0, hi = s->nbusy;
		double ov = 0;
		while (lo < hi) { /* the first busy interval ending after the sample starts */
			long mid = lo + (hi - lo) / 2;
			if (s->busy[mid].end <= x->t_start)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (long b = lo; b < s->nbusy && s->busy[b].start < x->t_end; b++) {
			int64_t a = s->busy[b].start > x->t_start ? s->busy[b].start : x->t_start;
			int64_t e = s->busy[b].end < x->t_end ? s->busy[b].end : x->t_end;
			if (e > a)
				ov += (double)(e - a);
		}
		if (!(ov > 0))
			continue;
		for (int m = 0; m < GD_PM_COUNT; m++)
			if (isfinite(x->v[m])) {
				sum[m] += x->v[m] * ov;
				w[m] += ov;
			}
	}
	for (int m = 0; m < GD_PM_COUNT; m++)
		mean[m] = w[m] > 0 ? sum[m] / w[m] : NAN;
}

/* Devices with at least one sample (a profile has at most GD_PROFILE_MAX_DEVICES). */
static int pm_devices(const struct gd_profile *p)
{
	int seen[GD_PROFILE_MAX_DEVICES], n = 0;
	for (long i = 0; i < p->npm; i++) {
		int j = 0;
		while (j < n && seen[j] != p->pm[i].device)
			j++;
		if (j == n && n < GD_PROFILE_MAX_DEVICES)
			seen[n++] = p->pm[i].device;
	}
	return n;
}

/* 1 when some sample or kernel row carries quantity m. */
static int pm_collected(const struct gd_profile *p, int m)
{
	for (long i = 0; i < p->npm; i++)
		if (isfinite(p->pm[i].v[m]))
			return 1;
	for (long i = 0; i < p->nkpm; i++)
		if (isfinite(p->kpm[i].v[m]))
			return 1;
	return 0;
}

/* The sample-weighted mean of a kernel's kernel_metrics rows over every device. */
static void kernel_counters(const struct gd_profile *p, struct gd_kstat *st)
{
	double sum[GD_PM_COUNT] = {0}, bps = 0;
	long n[GD_PM_COUNT] = {0}, nbps = 0;
	st->pm_samples = 0;
	for (long i = 0; i < p->nkpm; i++) {
		const struct gd_pm_kernel *r = &p->kpm[i];
		if (r->name != st->name || r->samples <= 0)
			continue;
		st->pm_samples += r->samples;
		for (int m = 0; m < GD_PM_COUNT; m++)
			if (isfinite(r->v[m])) {
				sum[m] += r->v[m] * (double)r->samples;
				n[m] += r->samples;
			}
		if (isfinite(r->dram_bps)) {
			bps += r->dram_bps * (double)r->samples;
			nbps += r->samples;
		} else if (isfinite(r->v[GD_PM_DRAM]))
			nbps = LONG_MIN / 2; /* a device's peak unknown: B/s of the mean unknown, not of a part */
	}
	for (int m = 0; m < GD_PM_COUNT; m++)
		st->pm[m] = n[m] ? sum[m] / (double)n[m] : NAN;
	st->pm_dram_bps = nbps > 0 ? bps / (double)nbps : NAN;
}

int gd_summary_compute(const struct gd_profile *p, struct gd_summary *s)
{
	int *slot;
	long i, j;
	memset(s, 0, sizeof(*s));
	s->wall_ns = p->t_end > p->t_start ? gd_dur_ns(p->t_start, p->t_end) : NAN;
	s->nkernels = p->nk;
	s->ncopies = p->nc;

	/* per-name statistics: a slot per string id (-1: not a kernel's name, -2: a kernel's, its
	 * statistics not begun). The statistics are as many as the kernels' distinct names, not
	 * the strings: a PyTorch profile with op ranges has a million strings and a few hundred
	 * kernel names (one per string asked for 440 MB on the 1 M-kernel big_torch benchmark:
	 * untouched, so not resident, but refused outright where overcommit is off). */
	long nknames = 0;
	slot = malloc(((size_t)p->nnames + 1) * sizeof(int));
	if (!slot)
		return GD_EFAIL;
	for (i = 0; i < p->nnames; i++)
		slot[i] = -1;
	for (i = 0; i < p->nk; i++)
		if (p->k[i].name >= 0 && p->k[i].name < p->nnames && slot[p->k[i].name] == -1)
			slot[p->k[i].name] = -2, nknames++;
	s->ks = calloc((size_t)nknames + 1, sizeof(*s->ks));
	if (!s->ks) {
		free(slot);
		return GD_EFAIL;
	}
	for (i = 0; i < p->nk; i++) {
		const struct gd_pkernel *k = &p->k[i];
		double d = gd_dur_ns(k->start, k->end);
		struct gd_kstat *st;
		if (k->name < 0 || k->name >= p->nnames)
			continue;
		if (slot[k->name] < 0) {
			const char *full = p->names[k->dname] ? p->names[k->dname] : p->names[k->name];
			slot[k->name] = s->nks;
			st = &s->ks[s->nks++];
			st->name = k->name;
			st->full = full;
			/* the short name comes from the mangled name when there is one (keeps the
			 * namespace), else from the demangled text */
			gd_kernel_short_name(p->names[k->name], st->short_name, sizeof(st->short_name));
			st->kind = gd_kernel_kind(full);
			st->lib = gd_kernel_lib(full);
			st->tc = gd_kernel_tensor_cores(full);
			st->min_ns = d;
			/* 0 for a dimension that is not positive; saturated, so a recorded 2^31 - 1
			 * in each dimension cannot overflow (the calculator then rejects the block) */
			st->grid_blocks = gd_dim3_count(k->grid);
			st->block_threads = gd_ll_to_int_sat(gd_dim3_count(k->block));
			st->regs = k->regs;
			st->static_smem = k->static_smem;
			st->dyn_smem = k->dyn_smem;
			st->device = k->device;
			st->waves = st->last_wave_fill = NAN;
		}
		st = &s->ks[slot[k->name]];
		st->count++;
		st->total_ns += d;
		if (d < st->min_ns)
			st->min_ns = d;
		if (d > st->max_ns)
			st->max_ns = d;
		s->kernel_ns += d;
	}
	free(slot);
	qsort(s->ks, (size_t)s->nks, sizeof(*s->ks), cmp_total);
	for (int q = 0; q < s->nks; q++) {
		struct gd_kstat *st = &s->ks[q];
		kernel_counters(p, st);
		s->kind_ns[st->kind] += st->total_ns;
		s->kind_n[st->kind] += st->count;
		s->lib_ns[st->lib] += st->total_ns;
		s->lib_n[st->lib] += st->count;
		if (st->device >= 0 && st->device < p->ndev && p->dev[st->device].occ_ok && st->regs >= 0) {
			struct gd_occ_kernel kk = {.block_threads = st->block_threads,
						   .regs_per_thread = st->regs,
						   .static_smem = (size_t)st->static_smem,
						   .dyn_smem = (size_t)st->dyn_smem,
						   .max_dyn_smem = (size_t)st->dyn_smem,
						   .carveout_pct = -1};
			const struct gd_occ_device *od = &p->dev[st->device].occ;
			if (gd_occupancy(od, &kk, &st->occ) == 0 && st->occ.blocks_per_sm > 0) {
				st->occ_ok = 1;
				if (od->sm_count > 0)
					st->waves = gd_occ_waves(od, &st->occ, st->grid_blocks, &st->last_wave_fill);
			}
		}
	}

	/* copies */
	for (i = 0; i < p->nc; i++) {
		const struct gd_pcopy *c = &p->c[i];
		struct gd_copystat *cs = &s->cp[gd_copy_class(c->kind)];
		double d = gd_dur_ns(c->start, c->end);
		cs->count++;
		cs->bytes += (double)c->bytes;
		cs->ns += d;
		s->copy_ns += d;
		if (c->kind != GD_CK_MEMSET && (c->src_kind == GD_MK_PAGEABLE || c->dst_kind == GD_MK_PAGEABLE)) {
			cs->pageable_count++;
			cs->pageable_bytes += (double)c->bytes;
			cs->pageable_ns += d;
		}
	}

	/* the busy union: merge the two start-sorted arrays */
	s->busy = malloc(((size_t)(p->nk + p->nc) + 1) * sizeof(*s->busy));
	if (!s->busy)
		return GD_EFAIL;
	i = j = 0;
	while (i < p->nk || j < p->nc) {
		int64_t a, b;
		if (j >= p->nc || (i < p->nk && p->k[i].start <= p->c[j].start)) {
			a = p->k[i].start;
			b = p->k[i].end;
			i++;
		} else {
			a = p->c[j].start;
			b = p->c[j].end;
			j++;
		}
		if (b < a)
			continue;
		if (s->nbusy && a <= s->busy[s->nbusy - 1].end) {
			if (b > s->busy[s->nbusy - 1].end)
				s->busy[s->nbusy - 1].end = b;
		} else {
			s->busy[s->nbusy].start = a;
			s->busy[s->nbusy].end = b;
			s->nbusy++;
		}
	}
	for (i = 0; i < s->nbusy; i++)
		s->busy_ns += gd_dur_ns(s->busy[i].start, s->busy[i].end);
	if (s->nbusy) {
		s->span_start = s->busy[0].start;
		s->span_end = s->busy[s->nbusy - 1].end;
		s->span_ns = gd_dur_ns(s->span_start, s->span_end);
	} else {
		s->span_ns = NAN;
	}
	if (!isfinite(s->wall_ns) && isfinite(s->span_ns))
		s->wall_ns = s->span_ns;
	pm_busy_means(p, s, s->pm_busy);
	s->pm_devices = pm_devices(p);
	for (int m = 0; m < GD_PM_COUNT; m++)
		s->pm_collected[m] = pm_collected(p, m);

	for (i = 0; i < p->na; i++) {
		if (p->a[i].cat < 0 || p->a[i].cat >= GD_API_CAT_COUNT)
			continue;
		s->api_n[p->a[i].cat]++;
		s->api_ns[p->a[i].cat] += gd_dur_ns(p->a[i].start, p->a[i].end);
	}

	s->mem_total = NAN;
	for (i = 0; i < p->ns; i++) {
		const struct gd_pnvml *m = &p->s[i];
		gd_range_add(&s->util, m->util_gpu >= 0 ? m->util_gpu : NAN);
		gd_range_add(&s->mem_used, m->mem_used);
		gd_range_add(&s->power, m->power_w);
		gd_range_add(&s->temp, m->temp_c);
		gd_range_add(&s->sm_mhz, m->sm_mhz >= 0 ? m->sm_mhz : NAN);
		if (isfinite(m->mem_total))
			s->mem_total = m->mem_total;
		if (m->reasons != ~0ULL) {
			s->reasons_seen |= m->reasons;
			if (gd_clock_reasons_throttling(m->reasons))
				s->throttled_samples++;
		}
	}
	gd_range_end(&s->util);
	gd_range_end(&s->mem_used);
	gd_range_end(&s->power);
	gd_range_end(&s->temp);
	gd_range_end(&s->sm_mhz);
	if (!isfinite(s->mem_total) && p->ndev > 0)
		s->mem_total = p->dev[0].mem_total;
	/* last: the per-kernel counters read the kernel time shares and occupancy above */
	return gd_kc_view_build(p, s, &s->kc);
}

void gd_summary_free(struct gd_summary *s)
{
	free(s->ks);
	free(s->busy);
	gd_kc_view_free(&s->kc);
	memset(s, 0, sizeof(*s));
}

const struct gd_kstat *gd_summary_find(const struct gd_summary *s, const char *short_name)
{
	for (int i = 0; i < s->nks; i++)
		if (!strcmp(s->ks[i].short_name, short_name))
			return &s->ks[i];
	return NULL;
}
