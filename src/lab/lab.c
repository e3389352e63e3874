/* The lab harness: checking, timing, accounting and sampling shared by every lab (output is in
 * lab_render.c, number formats in lab_format.c, the command in cmd_lab.c).
 * The contract is documented at the top of lab.h. */
#include "lab/lab.h"

#include "core/fileio.h"
#include "core/out.h"
#include "core/stats.h"
#include "core/status.h"
#include "gpu/cudrv.h"
#include "gpu/facts.h"
#include "gpu/nvml.h"
#include "gpu/sampler.h"
#include "kernels/lab_harness.h"
#include "roofline/ceilings.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ======================================================================== the table */

const struct gd_lab *gd_lab_find(const char *name)
{
	for (int i = 0; gd_labs[i]; i++)
		if (!strcmp(gd_labs[i]->name, name))
			return gd_labs[i];
	return NULL;
}

/* ======================================================================== device facts */

double gd_lab_datasheet_dram(const struct gd_lab_device *d)
{
	if (d->mem_clock_khz <= 0 || d->bus_width_bits <= 0)
		return NAN;
	/* DDR: two transfers per clock; HBM reports its clock the same way (H200: 2 × 3201 MHz ×
	 * 6016 bit / 8 = 4.8 TB/s, matching the datasheet). */
	return 2.0 * d->mem_clock_khz * 1e3 * d->bus_width_bits / 8.0;
}

/* The lab's view of the device, from the shared facts (gpu/facts.h): unknown sizes as -1. */
static void device_facts(struct gd_lab_device *d, int idx)
{
	struct gd_facts f;
	char why[256];
	gd_facts_read(idx, &f);
	memset(d, 0, sizeof(*d));
	d->index = idx;
	snprintf(d->name, sizeof(d->name), "%s", f.name);
	snprintf(d->uuid, sizeof(d->uuid), "%s", f.uuid);
	d->cc_major = f.cc_major;
	d->cc_minor = f.cc_minor;
	d->sms = f.sms;
	d->l2_bytes = f.l2_bytes > 0 ? f.l2_bytes : -1;
	d->smem_per_sm = f.smem_per_sm > 0 ? f.smem_per_sm : -1;
	d->smem_optin = f.smem_per_block_optin > 0 ? f.smem_per_block_optin : -1;
	d->mem_total = f.mem_total;
	d->mem_clock_khz = f.mem_clock_khz;
	d->bus_width_bits = f.mem_bus_width_bits;
	d->sm_clock_khz = f.sm_clock_khz;
	d->arch = f.arch;
	gd_facts_read_nvml(&f, why, sizeof(why));
	d->nvml_index = f.nvml_index;
	if (f.nvml_static_ok)
		snprintf(d->driver, sizeof(d->driver), "%s", f.nvml.driver);
}

/* ======================================================================== ceilings */

static const char *roof_name(enum gd_lab_roof roof)
{
	switch (roof) {
	case GD_ROOF_DRAM_COPY: return "DRAM copy";
	case GD_ROOF_DRAM_READ: return "DRAM read";
	case GD_ROOF_DRAM_WRITE: return "DRAM write";
	case GD_ROOF_L2: return "L2";
	case GD_ROOF_SMEM: return "shared memory";
	case GD_ROOF_FLOPS_CUDA: return "CUDA cores";
	case GD_ROOF_FLOPS_TENSOR: return "tensor cores";
	case GD_ROOF_FLOPS_GEMM: return "cuBLASLt GEMM";
	default: return "none";
	}
}

void gd_lab_ceiling(const struct gd_lab_run *r, enum gd_lab_roof roof, enum gd_prec prec,
		    struct gd_lab_ceiling *out)
{
	const struct gd_ceilings *m = r->has_measured ? (const struct gd_ceilings *)r->ceilings : NULL;
	double meas = NAN, sheet = NAN;
	double clk_mhz = r->dev.sm_clock_khz > 0 ? r->dev.sm_clock_khz / 1e3 : NAN;
	out->name = roof_name(roof);
	out->is_flops = roof >= GD_ROOF_FLOPS_CUDA;
	if (prec < 0 || prec >= GD_P_COUNT)
		prec = GD_P_FP32;
	switch (roof) {
	case GD_ROOF_DRAM_COPY:
		meas = m ? m->dram_copy : NAN;
		sheet = gd_lab_datasheet_dram(&r->dev);
		break;
	case GD_ROOF_DRAM_READ:
		meas = m ? m->dram_read : NAN;
		sheet = gd_lab_datasheet_dram(&r->dev);
		break;
	case GD_ROOF_DRAM_WRITE:
		meas = m ? m->dram_write : NAN;
		sheet = gd_lab_datasheet_dram(&r->dev);
		break;
	case GD_ROOF_L2: meas = m ? m->l2 : NAN; break;
	case GD_ROOF_SMEM: meas = m ? m->smem : NAN; break;
	case GD_ROOF_FLOPS_CUDA:
		meas = m ? m->cuda_core[prec] : NAN;
		if (r->dev.arch && r->dev.sms > 0)
			sheet = gd_arch_peak(r->dev.arch, prec, 0, r->dev.sms, clk_mhz);
		break;
	case GD_ROOF_FLOPS_TENSOR:
		meas = m ? m->tensor[prec] : NAN;
		if (r->dev.arch && r->dev.sms > 0)
			sheet = gd_arch_peak(r->dev.arch, prec, 1, r->dev.sms, clk_mhz);
		break;
	case GD_ROOF_FLOPS_GEMM:
		meas = m ? m->gemm_lib[prec] : NAN;
		if (r->dev.arch && r->dev.sms > 0)
			sheet = gd_arch_peak(r->dev.arch, prec, 1, r->dev.sms, clk_mhz);
		break;
	default: break;
	}
	if (isfinite(meas) && meas > 0) {
		out->value = meas;
		out->source = "measured";
	} else if (isfinite(sheet) && sheet > 0) {
		out->value = sheet;
		out->source = "datasheet";
	} else {
		out->value = NAN;
		out->source = "unknown";
	}
}

/* ======================================================================== checks */

void gd_lab_tolerance(enum gd_lab_dtype t, double *atol, double *rtol)
{
	*atol = 0;
	switch (t) {
	case GD_DT_F32: *rtol = ldexp(1, -23); *atol = 1e-30; break;
	case GD_DT_F16: *rtol = ldexp(1, -10); *atol = ldexp(1, -24); break;
	case GD_DT_BF16: *rtol = ldexp(1, -7); *atol = 1e-30; break;
	case GD_DT_FP8E4M3: *rtol = ldexp(1, -3); *atol = ldexp(1, -9); break;
	default: *rtol = 0; break;
	}
}

static int is_poison(const void *p, size_t i, size_t sz)
{
	const unsigned char *b = (const unsigned char *)p + i * sz;
	for (size_t k = 0; k < sz; k++)
		if (b[k] != GD_LAB_POISON)
			return 0;
	return 1;
}

static void check_start(struct gd_lab_check *c, double atol, double rtol)
{
	if (!c->done) {
		c->first_bad = -1;
		c->max_abs_err = c->max_rel_err = 0;
	}
	c->done = 1;
	if (atol > c->atol)
		c->atol = atol;
	if (rtol > c->rtol)
		c->rtol = rtol;
}

static void check_bad(struct gd_lab_check *c, long long idx)
{
	c->bad++;
	if (c->first_bad < 0)
		c->first_bad = idx;
}

void gd_lab_cmp(const void *got, const double *ref, size_t n, enum gd_lab_dtype t, double atol,
		double rtol, struct gd_lab_check *c)
{
	size_t sz = gd_lab_dtype_size(t);
	long long base = c->done ? c->checked : 0;
	check_start(c, atol, rtol);
	for (size_t i = 0; i < n; i++) {
		double g, err, rel;
		if (is_poison(got, i, sz)) {
			c->unwritten++;
			check_bad(c, base + (long long)i);
			continue;
		}
		g = gd_lab_get(got, i, t);
		err = fabs(g - ref[i]);
		if (isnan(err)) {
			check_bad(c, base + (long long)i);
			continue;
		}
		rel = ref[i] != 0 ? err / fabs(ref[i]) : (err ? INFINITY : 0);
		if (err > c->max_abs_err)
			c->max_abs_err = err;
		if (rel > c->max_rel_err && isfinite(rel))
			c->max_rel_err = rel;
		if (err > atol + rtol * fabs(ref[i]))
			check_bad(c, base + (long long)i);
	}
	c->checked += (long long)n;
	c->ok = c->bad == 0 && c->checked > 0;
}

void gd_lab_cmp_fn(const void *got, size_t n, enum gd_lab_dtype t, double (*ref)(const void *ctx, size_t i),
		   const void *ctx, double atol, double rtol, struct gd_lab_check *c)
{
	double buf[4096];
	size_t sz = gd_lab_dtype_size(t);
	for (size_t i0 = 0; i0 < n || (n == 0 && !c->done); i0 += 4096) {
		size_t m = n - i0 < 4096 ? n - i0 : 4096;
		for (size_t k = 0; k < m; k++)
			buf[k] = ref(ctx, i0 + k);
		gd_lab_cmp((const char *)got + i0 * sz, buf, m, t, atol, rtol, c);
		if (n == 0)
			break;
	}
}

void gd_lab_cmp_u32(const uint32_t *got, const uint32_t *ref, size_t n, struct gd_lab_check *c)
{
	long long base = c->done ? c->checked : 0;
	check_start(c, 0, 0);
	for (size_t i = 0; i < n; i++) {
		if (got[i] == 0xffffffffu && ref[i] != 0xffffffffu) {
			c->unwritten++;
			check_bad(c, base + (long long)i);
		} else if (got[i] != ref[i]) {
			double e = fabs((double)got[i] - (double)ref[i]);
			if (e > c->max_abs_err)
				c->max_abs_err = e;
			check_bad(c, base + (long long)i);
		}
	}
	c->checked += (long long)n;
	c->ok = c->bad == 0 && c->checked > 0;
}

/* ======================================================================== NVML sampling */

/* The shared sampler (gpu/sampler.h) samples NVML every ~10 ms (each sample takes a few ms
 * itself: the PCIe counters wait for their own window) for the whole lab; each result takes
 * the samples that fall in its timed window, or the nearest one when the window is shorter
 * than a sample period. */
static void sampler_start(struct gd_lab_run *r)
{
	if (r->dev.nvml_index < 0)
		return;
	r->sampler = gd_sampler_start(10 * 1000 * 1000L, &r->dev.nvml_index, 1, NULL, NULL);
}

static void sampler_stop(struct gd_lab_run *r)
{
	gd_sampler_free(r->sampler);
	r->sampler = NULL;
}

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void sampler_window(struct gd_lab_run *r, double t0, double t1, struct gd_lab_result *res)
{
	struct gd_sampler *sp = r->sampler;
	struct gd_sampler_summary sum;
	res->sm_mhz_min = res->sm_mhz_max = -1;
	res->power_w_max = NAN;
	res->throttle = 0;
	res->nsamples = 0;
	if (!sp)
		return;
	/* the first NVML sample takes a few ms (and more on a cold driver): a short variant
	 * measured right after the lab started (lab grid's first, in run 1 on the H200) found no
	 * sample at all and reported its clocks as unknown; wait for the first attempt to end
	 * (≤ 0.25 s, only at the start: afterwards a sweep is done), its sample is the nearest */
	for (int waited = 0; waited < 250 && gd_sampler_sweeps(sp) == 0; waited++)
		usleep(1000);
	/* the nearest sample stands in for an empty window only when it is close (0.2 s) */
	gd_sampler_window(sp, t0, t1, 0.2e9, &sum);
	res->nsamples = sum.n;
	res->sm_mhz_min = sum.sm_mhz_min;
	res->sm_mhz_max = sum.sm_mhz_max;
	res->power_w_max = sum.power_w_max;
	res->throttle = sum.reasons;
}

/* ======================================================================== the run */

void gd_lab_run_init(struct gd_lab_run *r, const struct gd_lab *lab)
{
	memset(r, 0, sizeof(*r));
	r->lab = lab;
	r->dev.index = 0;
	r->dev.cc_major = r->dev.cc_minor = r->dev.sms = -1;
	r->dev.l2_bytes = r->dev.smem_per_sm = r->dev.smem_optin = -1;
	r->dev.mem_clock_khz = r->dev.bus_width_bits = r->dev.sm_clock_khz = -1;
	r->dev.nvml_index = -1;
	snprintf(r->dev.name, sizeof(r->dev.name), "unknown");
	r->runs = 15;
	r->target_sample_s = 1e-3;
}


void gd_lab_run_free(struct gd_lab_run *r)
{
	sampler_stop(r);
	for (int i = 0; i < r->nallocs; i++)
		gd_labk_free(r->allocs[i]);
	free(r->allocs);
	free(r->res);
	free(r->verdicts);
	for (int i = 0; i < r->nnotes; i++)
		free(r->notes[i]);
	free(r->notes);
	free(r->ceilings);
	memset(r, 0, sizeof(*r));
}

void gd_lab_verdict(struct gd_lab_run *r, const char *section, const char *fmt, ...)
{
	va_list ap;
	struct gd_lab_verdict_line *v;
	void *p = realloc(r->verdicts, sizeof(*r->verdicts) * (size_t)(r->nverdicts + 1));
	if (!p)
		return;
	r->verdicts = p;
	v = &r->verdicts[r->nverdicts++];
	snprintf(v->section, sizeof(v->section), "%s", section ? section : "");
	va_start(ap, fmt);
	vsnprintf(v->text, sizeof(v->text), fmt, ap);
	va_end(ap);
}

void gd_lab_note(struct gd_lab_run *r, const char *fmt, ...)
{
	va_list ap;
	char buf[512];
	void *p = realloc(r->notes, sizeof(char *) * (size_t)(r->nnotes + 1));
	if (!p)
		return;
	r->notes = p;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	r->notes[r->nnotes] = strdup(buf);
	if (r->notes[r->nnotes])
		r->nnotes++;
}

void gd_lab_set_chart(struct gd_lab_run *r, const struct gd_lab_chart *c)
{
	r->chart = *c;
	r->has_chart = 1;
}

double gd_lab_now_ns(void) { return now_ns(); }

void gd_lab_set_chart_draw(struct gd_lab_run *r, void (*draw)(const struct gd_lab_run *r, struct gd_chart *ch, void *arg),
			   void *arg)
{
	r->chart_draw = draw;
	r->chart_draw_arg = arg;
}

void gd_lab_sample_window(struct gd_lab_run *r, struct gd_lab_result *res, double t0_ns, double t1_ns)
{
	if (res)
		sampler_window(r, t0_ns, t1_ns, res);
}

/* ======================================================================== recording */

/* Copies src into dst[n], cut (if it must be) at a UTF-8 character boundary. */
void gd_lab_copy_name(char *dst, size_t n, const char *src)
{
	size_t len = src ? strlen(src) : 0;
	if (len >= n) {
		len = n - 1;
		while (len > 0 && ((unsigned char)src[len] & 0xC0) == 0x80)
			len--;
	}
	if (len)
		memcpy(dst, src, len);
	dst[len] = 0;
}

struct gd_lab_result *gd_lab_record(struct gd_lab_run *r, const struct gd_lab_variant *v,
				    const double *samples, int n, const struct gd_lab_check *c)
{
	struct gd_lab_result *res;
	if (r->nres == r->cap) {
		int nc = r->cap ? r->cap * 2 : 32;
		void *p = realloc(r->res, sizeof(*r->res) * (size_t)nc);
		if (!p)
			return NULL;
		r->res = p;
		r->cap = nc;
	}
	res = &r->res[r->nres++];
	memset(res, 0, sizeof(*res));
	gd_lab_copy_name(res->group, sizeof(res->group), v->group);
	gd_lab_copy_name(res->name, sizeof(res->name), v->name);
	gd_lab_copy_name(res->formula, sizeof(res->formula), v->formula);
	res->x = v->x;
	res->bytes = v->bytes;
	res->flops = v->flops;
	res->reps = v->reps;
	res->runs = n;
	res->sm_mhz_min = res->sm_mhz_max = -1;
	res->power_w_max = NAN;
	if (n > 0) {
		struct gd_stats st;
		gd_stats_compute(samples, n, &st);
		res->t_median = st.median;
		res->t_min = st.min;
		res->t_max = st.max;
	} else {
		res->t_median = res->t_min = res->t_max = NAN;
	}
	res->gbps = v->bytes > 0 && res->t_median > 0 ? v->bytes / res->t_median / 1e9 : NAN;
	res->gflops = v->flops > 0 && res->t_median > 0 ? v->flops / res->t_median / 1e9 : NAN;
	gd_lab_ceiling(r, v->roof, v->prec, &res->ceiling);
	if (v->roof == GD_ROOF_NONE) {
		res->pct_of_ceiling = NAN;
	} else {
		double achieved = res->ceiling.is_flops ? res->gflops * 1e9 : res->gbps * 1e9;
		res->pct_of_ceiling = achieved / res->ceiling.value;
	}
	if (c) {
		res->check = *c;
		if (c->done && !c->ok)
			r->check_failed = 1;
	}
	for (int i = 0; i < v->nmetrics && i < GD_LAB_MAX_METRICS; i++)
		gd_lab_result_metric(res, v->metrics[i].key, v->metrics[i].value, v->metrics[i].unit);
	return res;
}

void gd_lab_result_metric(struct gd_lab_result *res, const char *key, double value, const char *unit)
{
	int i;
	if (!res || !key)
		return;
	for (i = 0; i < res->nmetrics; i++)
		if (!strcmp(res->metric_keys[i], key))
			break;
	if (i == res->nmetrics) {
		if (i >= GD_LAB_MAX_METRICS)
			return;
		res->nmetrics++;
	}
	snprintf(res->metric_keys[i], sizeof(res->metric_keys[i]), "%s", key);
	snprintf(res->metric_units[i], sizeof(res->metric_units[i]), "%s", unit ? unit : "");
	res->metric_values[i] = value;
}

const struct gd_lab_result *gd_lab_find_result(const struct gd_lab_run *r, const char *group,
					       const char *name)
{
	/* compare as stored: a name cut when it was recorded is cut the same way here */
	char g[sizeof(r->res[0].group)], nm[sizeof(r->res[0].name)];
	gd_lab_copy_name(g, sizeof(g), group);
	gd_lab_copy_name(nm, sizeof(nm), name);
	for (int i = 0; i < r->nres; i++)
		if (!strcmp(r->res[i].group, g) && !strcmp(r->res[i].name, nm))
			return &r->res[i];
	return NULL;
}

/* ======================================================================== device memory */

int gd_lab_alloc(struct gd_lab_run *r, void **p, size_t bytes, const char *what)
{
	int e;
	void *np = realloc(r->allocs, sizeof(void *) * (size_t)(r->nallocs + 1));
	char b[32];
	*p = NULL;
	if (!np)
		return gd_error(GD_EFAIL, "lab %s: out of host memory", r->lab->name);
	r->allocs = np;
	e = gd_labk_malloc(p, bytes ? bytes : 1);
	if (e)
		return gd_error(GD_EFAIL, "lab %s: cannot allocate %s of device memory for %s: %s",
				r->lab->name, gd_fmt_bytes(b, sizeof(b), (double)bytes), what, gd_labk_error(e));
	r->allocs[r->nallocs++] = *p;
	return GD_OK;
}

int gd_lab_upload(void *dev, const void *host, size_t bytes)
{
	int e = gd_labk_h2d(dev, host, bytes);
	return e ? gd_error(GD_EFAIL, "lab: host-to-device copy failed: %s", gd_labk_error(e)) : GD_OK;
}

int gd_lab_download(void *host, const void *dev, size_t bytes)
{
	int e = gd_labk_d2h(host, dev, bytes);
	return e ? gd_error(GD_EFAIL, "lab: device-to-host copy failed: %s", gd_labk_error(e)) : GD_OK;
}

size_t gd_lab_mem_free(void)
{
	size_t f = 0, t = 0;
	if (gd_labk_mem_info(&f, &t))
		return 0;
	return f;
}

int gd_lab_rotation(const struct gd_lab_run *r, size_t set_bytes, int max_copies)
{
	long long l2 = r->dev.l2_bytes > 0 ? r->dev.l2_bytes : 64ll << 20;
	size_t budget = gd_lab_mem_free() / 4;
	long long want;
	if (set_bytes == 0)
		return 1;
	want = (3 * l2 + (long long)set_bytes - 1) / (long long)set_bytes;
	if (want < 1)
		want = 1;
	if (want > max_copies)
		want = max_copies;
	if (budget && (size_t)want * set_bytes > budget)
		want = (long long)(budget / set_bytes);
	return want < 1 ? 1 : (int)want;
}

/* ======================================================================== measuring */

#define CU(call, what)                                                                    \
	do {                                                                              \
		int e_ = (call);                                                          \
		if (e_) {                                                                 \
			rc = gd_error(GD_EFAIL, "lab %s: %s: %s (%s)", r->lab->name, v->name, \
				      what, gd_labk_error(e_));                           \
			goto out;                                                         \
		}                                                                         \
	} while (0)

int gd_lab_cuda(int cuda_err, char *why, size_t n)
{
	if (!cuda_err)
		return GD_OK;
	if (why && n)
		snprintf(why, n, "%s", gd_labk_error(cuda_err));
	return GD_EFAIL;
}

static int launch(struct gd_lab_run *r, const struct gd_lab_variant *v, long iter)
{
	char why[256] = "";
	int rc = v->launch(v->arg, iter, why, sizeof(why)), e;
	if (rc != GD_OK)
		return gd_error(rc, "lab %s: %s: launch failed: %s", r->lab->name, v->name, why);
	e = gd_labk_last_error();
	if (e)
		return gd_error(GD_EFAIL, "lab %s: %s: launch failed: %s", r->lab->name, v->name,
				gd_labk_error(e));
	return GD_OK;
}

int gd_lab_fault_matches(const char *spec, const char *name)
{
	char part[128];
	while (*spec) {
		size_t n = strcspn(spec, "|");
		if (n && n < sizeof(part)) {
			memcpy(part, spec, n);
			part[n] = 0;
			if (strstr(name, part))
				return 1;
		}
		spec += n + (spec[n] == '|');
	}
	return 0;
}

int gd_lab_measure(struct gd_lab_run *r, const struct gd_lab_variant *v)
{
	struct gd_lab_check chk;
	struct gd_lab_result *res;
	void *ev[2 * 64 + 2] = {0};
	double samples[64];
	int runs = r->runs < GD_LAB_MIN_RUNS ? GD_LAB_MIN_RUNS : (r->runs > 64 ? 64 : r->runs);
	int reps = v->reps, rc = GD_OK, nev = 0;
	long iter = 0;
	void *host = NULL;
	double t0, t1;
	struct gd_lab_variant vv = *v;

	memset(&chk, 0, sizeof(chk));
	/* 1. check */
	if (v->out && v->out_bytes)
		CU(gd_labk_poison(v->out, v->out_bytes, GD_LAB_POISON), "poisoning the output");
	if ((rc = launch(r, v, iter++)) != GD_OK)
		goto out;
	CU(gd_labk_sync(), "the check run");
	{
		/* test hook (tests/gpu/labmem.sh): GPUDIAG_LAB_INJECT_FAULT=<part of a variant name>
		 * re-poisons the last 8 output bytes after the check run, as a kernel that skipped its
		 * last elements would leave them; the check must then fail with "unwritten" */
		const char *fault = getenv("GPUDIAG_LAB_INJECT_FAULT");
		if (fault && *fault && v->out && v->out_bytes && v->name && gd_lab_fault_matches(fault, v->name)) {
			size_t k = v->out_bytes < 8 ? v->out_bytes : 8;
			CU(gd_labk_poison((char *)v->out + v->out_bytes - k, k, GD_LAB_POISON), "injecting a fault");
			CU(gd_labk_sync(), "injecting a fault");
		}
	}
	if (v->check) {
		if (v->out && v->out_bytes) {
			host = malloc(v->out_bytes);
			if (!host) {
				rc = gd_error(GD_EFAIL, "lab %s: out of host memory", r->lab->name);
				goto out;
			}
			CU(gd_labk_d2h(host, v->out, v->out_bytes), "copying the output back");
		}
		rc = v->check(v->arg, host, v->out_bytes, &chk);
		if (rc != GD_OK)
			goto out;
		if (!chk.done) { /* a check that compared nothing is a failed check */
			chk.done = 1;
			chk.ok = 0;
		}
		if (!chk.ok) {
			vv.reps = 0;
			res = gd_lab_record(r, &vv, NULL, 0, &chk);
			goto out;
		}
	}

	/* 2. warm-up and reps calibration */
	nev = 2 * runs + 2;
	CU(gd_labk_events_create(ev, nev), "creating events");
	for (int i = 0; i < GD_LAB_WARMUP; i++)
		if ((rc = launch(r, v, iter++)) != GD_OK)
			goto out;
	if (reps <= 0) {
		float ms = 0;
		CU(gd_labk_event_record(ev[0]), "recording an event");
		if ((rc = launch(r, v, iter++)) != GD_OK)
			goto out;
		CU(gd_labk_event_record(ev[1]), "recording an event");
		CU(gd_labk_event_sync(ev[1]), "the calibration run");
		CU(gd_labk_event_elapsed(ev[0], ev[1], &ms), "reading events");
		reps = ms > 0 ? (int)ceil(r->target_sample_s * 1e3 / ms) : 1;
		if (reps < 1)
			reps = 1;
		if (reps > 2000)
			reps = 2000;
	}

	/* 3. timed samples, enqueued back to back; the host then waits */
	t0 = now_ns();
	for (int s = 0; s < runs; s++) {
		if (v->out && v->out_bytes)
			CU(gd_labk_poison(v->out, v->out_bytes, GD_LAB_POISON), "poisoning the output");
		CU(gd_labk_event_record(ev[2 + 2 * s]), "recording an event");
		for (int k = 0; k < reps; k++)
			if ((rc = launch(r, v, iter++)) != GD_OK)
				goto out;
		CU(gd_labk_event_record(ev[3 + 2 * s]), "recording an event");
	}
	CU(gd_labk_event_sync(ev[1 + 2 * runs]), "the timed runs");
	t1 = now_ns();
	for (int s = 0; s < runs; s++) {
		float ms = 0;
		CU(gd_labk_event_elapsed(ev[2 + 2 * s], ev[3 + 2 * s], &ms), "reading events");
		samples[s] = ms * 1e-3 / reps;
	}
	vv.reps = reps;
	res = gd_lab_record(r, &vv, samples, runs, v->check ? &chk : NULL);
	if (res)
		sampler_window(r, t0, t1, res);
out:
	if (nev)
		gd_labk_events_destroy(ev, nev);
	free(host);
	return rc;
}


/* ======================================================================== one run */

int gd_lab_open(struct gd_lab_run *r, int device, char *why, size_t n)
{
	int e;
	device_facts(&r->dev, device);
	if ((e = gd_labk_set_device(r->dev.index)) != 0) {
		snprintf(why, n, "%s", gd_labk_error(e));
		return GD_ENOGPU;
	}
	r->ceilings = calloc(1, sizeof(struct gd_ceilings));
	if (r->ceilings) {
		r->has_measured = gd_ceilings_load(r->dev.uuid, r->dev.driver, r->ceilings) == 0;
		if (!r->has_measured)
			gd_lab_note(r, "no measured ceilings cached for this GPU: percentages are of the datasheet "
				       "(run 'gpudiag roofline' to measure them)");
	}
	return GD_OK;
}

int gd_lab_execute(struct gd_lab_run *r)
{
	int rc;
	sampler_start(r);
	rc = r->lab->run(r);
	sampler_stop(r);
	gd_labk_sync();
	return rc;
}
