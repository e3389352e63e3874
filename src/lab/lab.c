/* The lab harness: checking, timing, accounting, sampling and output shared by every lab.
 * The contract is documented at the top of lab.h. */
#include "lab/lab.h"

#include "commands.h"
#include "core/cli.h"
#include "core/fileio.h"
#include "core/json.h"
#include "core/out.h"
#include "core/stats.h"
#include "core/status.h"
#include "core/svg.h"
#include "gpu/cudrv.h"
#include "gpu/nvml.h"
#include "kernels/lab_harness.h"
#include "roofline/ceilings.h"

#include <math.h>
#include <pthread.h>
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

void gd_lab_list(FILE *f)
{
	size_t nw = 0, gw = 0;
	/* columns padded by display width: "§" is one column but two bytes, so printf's %-8s
	 * (which counts bytes) would misalign the rows */
	for (int i = 0; gd_labs[i]; i++) {
		size_t a = gd_display_width(gd_labs[i]->name), b = gd_display_width(gd_labs[i]->guide);
		nw = a > nw ? a : nw;
		gw = b > gw ? b : gw;
	}
	fprintf(f, "labs (gpudiag lab <name> [--quick] [--json|--csv FILE|--svg FILE]):\n");
	for (int i = 0; gd_labs[i]; i++) {
		size_t a = gd_display_width(gd_labs[i]->name), b = gd_display_width(gd_labs[i]->guide);
		fprintf(f, "  %s%*s %s%*s %s\n", gd_labs[i]->name, (int)(nw + 1 - a), "", gd_labs[i]->guide,
			(int)(gw + 2 - b), "", gd_labs[i]->summary);
	}
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

/* CUdevice_attribute values (cuda.h). */
enum {
	A_CLOCK_RATE = 13, A_SM_COUNT = 16, A_MEM_CLOCK = 36, A_BUS_WIDTH = 37, A_L2 = 38,
	A_CC_MAJOR = 75, A_CC_MINOR = 76, A_SMEM_PER_SM = 81, A_SMEM_OPTIN = 97,
};

static void device_facts(struct gd_lab_device *d, int idx)
{
	int v;
	memset(d, 0, sizeof(*d));
	d->index = idx;
	d->nvml_index = -1;
	gd_cu_name(idx, d->name, sizeof(d->name));
	gd_cu_uuid(idx, d->uuid, sizeof(d->uuid));
	d->cc_major = gd_cu_attr(idx, A_CC_MAJOR);
	d->cc_minor = gd_cu_attr(idx, A_CC_MINOR);
	d->sms = gd_cu_attr(idx, A_SM_COUNT);
	v = gd_cu_attr(idx, A_L2);
	d->l2_bytes = v > 0 ? v : -1;
	v = gd_cu_attr(idx, A_SMEM_PER_SM);
	d->smem_per_sm = v > 0 ? v : -1;
	v = gd_cu_attr(idx, A_SMEM_OPTIN);
	d->smem_optin = v > 0 ? v : -1;
	d->mem_total = gd_cu_total_mem(idx);
	d->mem_clock_khz = gd_cu_attr(idx, A_MEM_CLOCK);
	d->bus_width_bits = gd_cu_attr(idx, A_BUS_WIDTH);
	d->sm_clock_khz = gd_cu_attr(idx, A_CLOCK_RATE);
	d->arch = d->cc_major > 0 ? gd_arch_find(d->cc_major, d->cc_minor) : NULL;
	{
		char why[256];
		if (gd_nvml_open(why, sizeof(why)) == GD_OK) {
			struct gd_nvml_static st;
			d->nvml_index = gd_nvml_index_by_uuid(d->uuid);
			if (d->nvml_index >= 0 && gd_nvml_static_info(d->nvml_index, &st) == GD_OK)
				snprintf(d->driver, sizeof(d->driver), "%s", st.driver);
		}
	}
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

/* ======================================================================== numbers */

size_t gd_lab_dtype_size(enum gd_lab_dtype t)
{
	switch (t) {
	case GD_DT_F64: case GD_DT_U64: return 8;
	case GD_DT_F32: case GD_DT_U32: return 4;
	case GD_DT_F16: case GD_DT_BF16: return 2;
	case GD_DT_FP8E4M3: return 1;
	}
	return 0;
}

const char *gd_lab_dtype_name(enum gd_lab_dtype t)
{
	static const char *const n[] = {"FP64", "FP32", "FP16", "BF16", "FP8-e4m3", "u32", "u64"};
	return (unsigned)t < sizeof(n) / sizeof(n[0]) ? n[t] : "?";
}

static uint32_t f32_bits(float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	return u;
}

static float bits_f32(uint32_t u)
{
	float f;
	memcpy(&f, &u, 4);
	return f;
}

uint16_t gd_f32_to_f16(float f)
{
	uint32_t x = f32_bits(f), sign = (x >> 16) & 0x8000u;
	int32_t exp = (int32_t)((x >> 23) & 0xff) - 127 + 15;
	uint32_t man = x & 0x7fffffu;
	if (((x >> 23) & 0xff) == 0xff) /* inf / nan */
		return (uint16_t)(sign | 0x7c00u | (man ? 0x200u : 0));
	if (exp >= 31)
		return (uint16_t)(sign | 0x7c00u);
	if (exp <= 0) { /* subnormal or zero */
		uint32_t m, shift, r, half;
		if (exp < -10)
			return (uint16_t)sign;
		m = man | 0x800000u;
		shift = (uint32_t)(14 - exp);
		r = m >> shift;
		half = 1u << (shift - 1);
		if ((m & ((1u << shift) - 1)) > half || ((m & ((1u << shift) - 1)) == half && (r & 1)))
			r++;
		return (uint16_t)(sign | r);
	}
	{
		uint32_t h = sign | ((uint32_t)exp << 10) | (man >> 13);
		uint32_t rest = man & 0x1fffu;
		if (rest > 0x1000u || (rest == 0x1000u && (h & 1)))
			h++; /* may carry into the exponent: correct, up to inf */
		return (uint16_t)h;
	}
}

float gd_f16_to_f32(uint16_t h)
{
	uint32_t sign = (uint32_t)(h & 0x8000u) << 16, exp = (h >> 10) & 0x1f, man = h & 0x3ffu;
	if (exp == 0) {
		float v = (float)man * (1.0f / 16777216.0f); /* 2^-24 */
		return sign ? -v : v;
	}
	if (exp == 31)
		return bits_f32(sign | 0x7f800000u | (man << 13));
	return bits_f32(sign | ((exp - 15 + 127) << 23) | (man << 13));
}

uint16_t gd_f32_to_bf16(float f)
{
	uint32_t x = f32_bits(f);
	if ((x & 0x7fffffffu) > 0x7f800000u)
		return (uint16_t)((x >> 16) | 0x40u);
	x += 0x7fffu + ((x >> 16) & 1u);
	return (uint16_t)(x >> 16);
}

float gd_bf16_to_f32(uint16_t h) { return bits_f32((uint32_t)h << 16); }

/* e4m3 ("fn" variant as CUDA's __nv_fp8_e4m3): bias 7, no infinities, S.1111.111 = NaN,
 * largest finite 448. Converted like __nv_cvt_float_to_fp8(..., __NV_SATFINITE, E4M3). */
uint8_t gd_f32_to_e4m3(float f)
{
	uint8_t sign = (uint8_t)((f32_bits(f) >> 24) & 0x80u);
	float a = fabsf(f);
	int e, m, ef;
	if (isnan(f))
		return (uint8_t)(sign | 0x7f);
	if (a > 448.0f) /* saturate to the largest finite value */
		return (uint8_t)(sign | 0x7e);
	if (a < 0.015625f) { /* below 2^-6: subnormals, steps of 2^-9 (m == 8 is 2^-6, encoded 0x08) */
		m = (int)rintf(a * 512.0f);
		return (uint8_t)(sign | m);
	}
	frexpf(a, &e);     /* a = fr · 2^e, fr in [0.5, 1) */
	e -= 1;            /* a in [2^e, 2^(e+1)) */
	m = (int)rintf(ldexpf(a, 3 - e)); /* 8..16, ties to even (default rounding mode) */
	if (m == 16) {
		m = 8;
		e++;
	}
	ef = e + 7;
	if (ef > 15 || (ef == 15 && m - 8 == 7))
		return (uint8_t)(sign | 0x7e);
	return (uint8_t)(sign | (ef << 3) | (m - 8));
}

float gd_e4m3_to_f32(uint8_t v)
{
	int sign = v & 0x80, exp = (v >> 3) & 0xf, man = v & 7;
	float r;
	if (exp == 15 && man == 7)
		return NAN;
	if (exp == 0)
		r = ldexpf((float)man / 8.0f, -6);
	else
		r = ldexpf(1.0f + (float)man / 8.0f, exp - 7);
	return sign ? -r : r;
}

double gd_lab_get(const void *p, size_t i, enum gd_lab_dtype t)
{
	switch (t) {
	case GD_DT_F64: return ((const double *)p)[i];
	case GD_DT_F32: return ((const float *)p)[i];
	case GD_DT_F16: return gd_f16_to_f32(((const uint16_t *)p)[i]);
	case GD_DT_BF16: return gd_bf16_to_f32(((const uint16_t *)p)[i]);
	case GD_DT_FP8E4M3: return gd_e4m3_to_f32(((const uint8_t *)p)[i]);
	case GD_DT_U32: return ((const uint32_t *)p)[i];
	case GD_DT_U64: return (double)((const uint64_t *)p)[i];
	}
	return NAN;
}

static void set_typed(void *p, size_t i, enum gd_lab_dtype t, double v)
{
	switch (t) {
	case GD_DT_F64: ((double *)p)[i] = v; break;
	case GD_DT_F32: ((float *)p)[i] = (float)v; break;
	case GD_DT_F16: ((uint16_t *)p)[i] = gd_f32_to_f16((float)v); break;
	case GD_DT_BF16: ((uint16_t *)p)[i] = gd_f32_to_bf16((float)v); break;
	case GD_DT_FP8E4M3: ((uint8_t *)p)[i] = gd_f32_to_e4m3((float)v); break;
	case GD_DT_U32: ((uint32_t *)p)[i] = (uint32_t)v; break;
	case GD_DT_U64: ((uint64_t *)p)[i] = (uint64_t)v; break;
	}
}

/* ======================================================================== random inputs */

uint64_t gd_lab_rand_u64(uint64_t *s)
{
	/* splitmix64: good enough statistically, trivially reproducible */
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

double gd_lab_rand_uniform(uint64_t *s, double lo, double hi)
{
	return lo + (hi - lo) * ((double)(gd_lab_rand_u64(s) >> 11) * (1.0 / 9007199254740992.0));
}

void gd_lab_rand_fill(void *p, size_t n, enum gd_lab_dtype t, double lo, double hi, uint64_t *s)
{
	for (size_t i = 0; i < n; i++)
		set_typed(p, i, t, gd_lab_rand_uniform(s, lo, hi));
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

static void sampler_stop(struct gd_lab_run *r);

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

/* ======================================================================== NVML sampling */

/* A thread samples NVML every ~10 ms (each sample takes a few ms itself: the PCIe counters
 * wait for their own window) for the whole lab; each result takes the samples that fall in
 * its timed window, or the nearest one when the window is shorter than a sample period. */
struct sampler {
	pthread_t th;
	pthread_mutex_t mu;
	int stop, idx, tried; /* tried: sampling attempts so far (successful or not) */
	struct gd_nvml_sample *s;
	int n, cap;
};

static void *sampler_main(void *arg)
{
	struct sampler *sp = arg;
	for (;;) {
		struct gd_nvml_sample s;
		int stop;
		pthread_mutex_lock(&sp->mu);
		stop = sp->stop;
		pthread_mutex_unlock(&sp->mu);
		if (stop)
			break;
		if (gd_nvml_sample(sp->idx, &s) == GD_OK) {
			pthread_mutex_lock(&sp->mu);
			if (sp->n == sp->cap) {
				int nc = sp->cap ? sp->cap * 2 : 1024;
				void *p = realloc(sp->s, sizeof(*sp->s) * (size_t)nc);
				if (p) {
					sp->s = p;
					sp->cap = nc;
				}
			}
			if (sp->n < sp->cap)
				sp->s[sp->n++] = s;
			pthread_mutex_unlock(&sp->mu);
		}
		pthread_mutex_lock(&sp->mu);
		sp->tried++;
		pthread_mutex_unlock(&sp->mu);
		usleep(10000);
	}
	return NULL;
}

static void sampler_start(struct gd_lab_run *r)
{
	struct sampler *sp;
	if (r->dev.nvml_index < 0)
		return;
	sp = calloc(1, sizeof(*sp));
	if (!sp)
		return;
	sp->idx = r->dev.nvml_index;
	pthread_mutex_init(&sp->mu, NULL);
	if (pthread_create(&sp->th, NULL, sampler_main, sp)) {
		pthread_mutex_destroy(&sp->mu);
		free(sp);
		return;
	}
	r->sampler = sp;
}

static void sampler_stop(struct gd_lab_run *r)
{
	struct sampler *sp = r->sampler;
	if (!sp)
		return;
	pthread_mutex_lock(&sp->mu);
	sp->stop = 1;
	pthread_mutex_unlock(&sp->mu);
	pthread_join(sp->th, NULL);
	pthread_mutex_destroy(&sp->mu);
	free(sp->s);
	free(sp);
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
	struct sampler *sp = r->sampler;
	int nearest = -1;
	double nd = INFINITY, mid = 0.5 * (t0 + t1);
	res->sm_mhz_min = res->sm_mhz_max = -1;
	res->power_w_max = NAN;
	res->throttle = 0;
	res->nsamples = 0;
	if (!sp)
		return;
	/* the first NVML sample takes a few ms (and more on a cold driver): a short variant
	 * measured right after the lab started (lab grid's first, in run 1 on the H200) found no
	 * sample at all and reported its clocks as unknown; wait for the first attempt to end
	 * (≤ 0.25 s, only at the start: afterwards tried > 0), its sample is the nearest below */
	for (int waited = 0; waited < 250; waited++) {
		int tried;
		pthread_mutex_lock(&sp->mu);
		tried = sp->tried;
		pthread_mutex_unlock(&sp->mu);
		if (tried > 0)
			break;
		usleep(1000);
	}
	pthread_mutex_lock(&sp->mu);
	for (int pass = 0; pass < 2; pass++) {
		for (int i = 0; i < sp->n; i++) {
			const struct gd_nvml_sample *s = &sp->s[i];
			int in = s->t_ns >= t0 && s->t_ns <= t1;
			if (pass == 0) {
				double d = fabs(s->t_ns - mid);
				if (d < nd) {
					nd = d;
					nearest = i;
				}
				if (!in)
					continue;
			} else if (i != nearest) {
				continue;
			}
			res->nsamples++;
			if (s->sm_mhz >= 0) {
				if (res->sm_mhz_min < 0 || s->sm_mhz < res->sm_mhz_min)
					res->sm_mhz_min = s->sm_mhz;
				if (s->sm_mhz > res->sm_mhz_max)
					res->sm_mhz_max = s->sm_mhz;
			}
			if (s->power_mw >= 0 && !(s->power_mw / 1e3 <= res->power_w_max))
				res->power_w_max = s->power_mw / 1e3;
			if (s->clock_reasons != GD_NVML_UNKNOWN64)
				res->throttle |= s->clock_reasons;
		}
		/* second pass only when the window held no sample and the nearest is close */
		if (res->nsamples > 0 || nearest < 0 || nd > 0.2e9)
			break;
	}
	pthread_mutex_unlock(&sp->mu);
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
static void copy_name(char *dst, size_t n, const char *src)
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
	copy_name(res->group, sizeof(res->group), v->group);
	copy_name(res->name, sizeof(res->name), v->name);
	copy_name(res->formula, sizeof(res->formula), v->formula);
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
	copy_name(g, sizeof(g), group);
	copy_name(nm, sizeof(nm), name);
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

/* ======================================================================== output: table */

static const char *fmt_num(char *b, size_t n, double v, int prec)
{
	if (!isfinite(v))
		snprintf(b, n, "–");
	else
		snprintf(b, n, "%.*f", prec, v);
	return b;
}

static void check_str(const struct gd_lab_check *c, char *b, size_t n)
{
	if (!c->done)
		snprintf(b, n, "n/a");
	else if (c->ok)
		snprintf(b, n, "ok");
	else if (c->unwritten)
		snprintf(b, n, "FAIL %lld/%lld (%lld unwritten)", c->bad, c->checked, c->unwritten);
	else
		snprintf(b, n, "FAIL %lld/%lld", c->bad, c->checked);
}

static void metrics_str(const struct gd_lab_result *res, char *b, size_t n)
{
	size_t o = 0;
	b[0] = 0;
	for (int i = 0; i < res->nmetrics && o < n; i++) {
		char num[32];
		double v = res->metric_values[i];
		if (!isfinite(v))
			snprintf(num, sizeof(num), "unknown");
		else if (fabs(v) >= 100 || v == floor(v))
			snprintf(num, sizeof(num), "%.0f", v);
		else
			snprintf(num, sizeof(num), "%.3g", v);
		o += (size_t)snprintf(b + o, n - o, "%s%s %s%s%s", i ? ", " : "", res->metric_keys[i], num,
				      res->metric_units[i][0] ? " " : "", res->metric_units[i]);
	}
}

void gd_lab_print_table(const struct gd_lab_run *r, FILE *f)
{
	char b[16][160];
	fprintf(f, "%sgpudiag lab %s%s — %s (guide %s)\n", gd_bold(), r->lab->name, gd_reset(),
		r->lab->summary, r->lab->guide);
	fprintf(f, "%s%s, cc %d.%d, %d SMs, L2 %s%s; %d timed runs per variant%s\n", gd_dim(), r->dev.name,
		r->dev.cc_major, r->dev.cc_minor, r->dev.sms,
		r->dev.l2_bytes > 0 ? gd_fmt_bytes(b[0], sizeof(b[0]), (double)r->dev.l2_bytes) : "unknown",
		gd_reset(), r->runs, r->quick ? " (--quick)" : "");
	for (int i = 0; i < r->nres;) {
		int j = i, any_b = 0, any_f = 0, any_m = 0, any_clk = 0, cols = 0;
		struct gd_table t;
		const char *hdr[GD_TABLE_MAX_COLS];
		while (j < r->nres && !strcmp(r->res[j].group, r->res[i].group)) {
			any_b |= isfinite(r->res[j].gbps);
			any_f |= isfinite(r->res[j].gflops);
			any_m |= r->res[j].nmetrics > 0;
			any_clk |= r->res[j].sm_mhz_max > 0;
			j++;
		}
		fprintf(f, "\n%s%s%s\n", gd_cyan(), r->res[i].group, gd_reset());
		hdr[cols++] = "variant";
		hdr[cols++] = "median";
		hdr[cols++] = "min … max";
		if (any_b)
			hdr[cols++] = "GB/s";
		if (any_f)
			hdr[cols++] = "TFLOP/s";
		hdr[cols++] = "% of roof";
		hdr[cols++] = "check";
		if (any_clk)
			hdr[cols++] = "SM MHz";
		if (any_m)
			hdr[cols++] = "figures";
		gd_table_init(&t, cols);
		for (int c = 1; c < cols; c++)
			gd_table_align_right(&t, c);
		if (any_m)
			t.right[cols - 1] = 0;
		gd_table_row(&t, hdr);
		for (int k = i; k < j; k++) {
			const struct gd_lab_result *res = &r->res[k];
			const char *cell[GD_TABLE_MAX_COLS];
			char tb[2][32], met[400];
			int c = 0;
			cell[c++] = res->name;
			cell[c++] = isfinite(res->t_median) ? gd_fmt_time(b[1], sizeof(b[1]), res->t_median * 1e9) : "–";
			if (isfinite(res->t_min))
				snprintf(b[2], sizeof(b[2]), "%s … %s", gd_fmt_time(tb[0], sizeof(tb[0]), res->t_min * 1e9),
					 gd_fmt_time(tb[1], sizeof(tb[1]), res->t_max * 1e9));
			else
				snprintf(b[2], sizeof(b[2]), "–");
			cell[c++] = b[2];
			if (any_b)
				cell[c++] = fmt_num(b[3], sizeof(b[3]), res->gbps, res->gbps < 100 ? 1 : 0);
			if (any_f)
				cell[c++] = fmt_num(b[4], sizeof(b[4]), res->gflops / 1e3, 1);
			if (isfinite(res->pct_of_ceiling))
				snprintf(b[5], sizeof(b[5]), "%.0f %% %s%s", res->pct_of_ceiling * 100,
					 res->ceiling.name, strcmp(res->ceiling.source, "datasheet") ? "" : " (datasheet)");
			else
				snprintf(b[5], sizeof(b[5]), "–");
			cell[c++] = b[5];
			check_str(&res->check, b[6], sizeof(b[6]));
			cell[c++] = b[6];
			if (any_clk) {
				if (res->sm_mhz_max > 0)
					snprintf(b[7], sizeof(b[7]), res->sm_mhz_min == res->sm_mhz_max ? "%d" : "%d–%d",
						 res->sm_mhz_min, res->sm_mhz_max);
				else
					snprintf(b[7], sizeof(b[7]), "unknown");
				cell[c++] = b[7];
			}
			if (any_m) {
				metrics_str(res, met, sizeof(met));
				cell[c++] = met;
			}
			gd_table_row(&t, cell);
		}
		gd_table_print(&t, f, 2);
		gd_table_free(&t);
		i = j;
	}
	{
		unsigned long long thr = 0;
		for (int i = 0; i < r->nres; i++)
			thr |= r->res[i].throttle;
		if (gd_clock_reasons_throttling(thr)) {
			char rb[256];
			fprintf(f, "\n%sclocks were held back during the lab: %s%s\n", gd_yellow(),
				gd_clock_reasons_str(thr, rb, sizeof(rb)), gd_reset());
		}
	}
	if (r->nnotes) {
		fprintf(f, "\n");
		for (int i = 0; i < r->nnotes; i++)
			fprintf(f, "%snote: %s%s\n", gd_dim(), r->notes[i], gd_reset());
	}
	if (r->nverdicts) {
		fprintf(f, "\n");
		for (int i = 0; i < r->nverdicts; i++)
			fprintf(f, "%s%s%s %s\n", gd_bold(), r->verdicts[i].section, gd_reset(), r->verdicts[i].text);
	}
	if (r->check_failed)
		fprintf(f, "\n%sa variant failed its correctness check: its speed is not shown%s\n", gd_red(), gd_reset());
}

/* ======================================================================== output: JSON */

void gd_lab_write_json(const struct gd_lab_run *r, FILE *f)
{
	struct gd_json j;
	gd_json_init(&j, f, 1);
	gd_json_obj(&j, NULL);
	gd_json_str(&j, "lab", r->lab->name);
	gd_json_str(&j, "guide", r->lab->guide);
	gd_json_str(&j, "summary", r->lab->summary);
	gd_json_obj(&j, "device");
	gd_json_int(&j, "index", r->dev.index);
	gd_json_str(&j, "name", r->dev.name);
	gd_json_str(&j, "uuid", r->dev.uuid[0] ? r->dev.uuid : NULL);
	if (r->dev.cc_major > 0) {
		char cc[16];
		snprintf(cc, sizeof(cc), "%d.%d", r->dev.cc_major, r->dev.cc_minor);
		gd_json_str(&j, "compute_capability", cc);
	} else {
		gd_json_null(&j, "compute_capability");
	}
	gd_json_num(&j, "sms", r->dev.sms > 0 ? r->dev.sms : NAN);
	gd_json_num(&j, "l2_bytes", r->dev.l2_bytes > 0 ? (double)r->dev.l2_bytes : NAN);
	gd_json_num(&j, "datasheet_dram_bytes_per_s", gd_lab_datasheet_dram(&r->dev));
	gd_json_obj_end(&j);
	gd_json_obj(&j, "options");
	gd_json_bool(&j, "quick", r->quick);
	gd_json_int(&j, "runs", r->runs);
	gd_json_int(&j, "warmup_launches", GD_LAB_WARMUP);
	gd_json_obj_end(&j);
	gd_json_str(&j, "ceilings", r->has_measured ? "measured" : "datasheet");
	gd_json_arr(&j, "results");
	for (int i = 0; i < r->nres; i++) {
		const struct gd_lab_result *res = &r->res[i];
		gd_json_obj(&j, NULL);
		gd_json_str(&j, "group", res->group);
		gd_json_str(&j, "variant", res->name);
		gd_json_num(&j, "x", res->x);
		gd_json_num(&j, "bytes", res->bytes > 0 ? res->bytes : NAN);
		gd_json_num(&j, "flops", res->flops > 0 ? res->flops : NAN);
		gd_json_str(&j, "formula", res->formula[0] ? res->formula : NULL);
		gd_json_int(&j, "runs", res->runs);
		gd_json_int(&j, "reps", res->reps);
		gd_json_num(&j, "time_s_median", res->t_median);
		gd_json_num(&j, "time_s_min", res->t_min);
		gd_json_num(&j, "time_s_max", res->t_max);
		gd_json_num(&j, "gb_per_s", res->gbps);
		gd_json_num(&j, "gflop_per_s", res->gflops);
		gd_json_obj(&j, "ceiling");
		gd_json_str(&j, "name", res->ceiling.name);
		gd_json_str(&j, "source", res->ceiling.source);
		gd_json_num(&j, "value", res->ceiling.value);
		gd_json_num(&j, "fraction", res->pct_of_ceiling);
		gd_json_obj_end(&j);
		gd_json_obj(&j, "check");
		if (res->check.done) {
			gd_json_bool(&j, "ok", res->check.ok);
			gd_json_int(&j, "checked", res->check.checked);
			gd_json_int(&j, "bad", res->check.bad);
			gd_json_int(&j, "unwritten", res->check.unwritten);
			gd_json_num(&j, "max_abs_err", res->check.max_abs_err);
			gd_json_num(&j, "max_rel_err", res->check.max_rel_err);
			gd_json_num(&j, "atol", res->check.atol);
			gd_json_num(&j, "rtol", res->check.rtol);
			gd_json_str(&j, "note", res->check.note[0] ? res->check.note : NULL);
		} else {
			gd_json_null(&j, "ok");
		}
		gd_json_obj_end(&j);
		gd_json_obj(&j, "metrics");
		for (int m = 0; m < res->nmetrics; m++)
			gd_json_num(&j, res->metric_keys[m], res->metric_values[m]);
		gd_json_obj_end(&j);
		gd_json_obj(&j, "clocks");
		gd_json_int(&j, "samples", res->nsamples);
		gd_json_num(&j, "sm_mhz_min", res->sm_mhz_min > 0 ? res->sm_mhz_min : NAN);
		gd_json_num(&j, "sm_mhz_max", res->sm_mhz_max > 0 ? res->sm_mhz_max : NAN);
		gd_json_num(&j, "power_w_max", res->power_w_max);
		if (res->nsamples > 0) {
			char rb[256];
			gd_json_str(&j, "clock_event_reasons", gd_clock_reasons_str(res->throttle, rb, sizeof(rb)));
			gd_json_bool(&j, "throttled", gd_clock_reasons_throttling(res->throttle));
		} else {
			gd_json_null(&j, "clock_event_reasons");
			gd_json_null(&j, "throttled");
		}
		gd_json_obj_end(&j);
		gd_json_obj_end(&j);
	}
	gd_json_arr_end(&j);
	gd_json_arr(&j, "notes");
	for (int i = 0; i < r->nnotes; i++)
		gd_json_str(&j, NULL, r->notes[i]);
	gd_json_arr_end(&j);
	gd_json_arr(&j, "verdicts");
	for (int i = 0; i < r->nverdicts; i++) {
		gd_json_obj(&j, NULL);
		gd_json_str(&j, "section", r->verdicts[i].section);
		gd_json_str(&j, "text", r->verdicts[i].text);
		gd_json_obj_end(&j);
	}
	gd_json_arr_end(&j);
	gd_json_bool(&j, "check_failed", r->check_failed);
	gd_json_obj_end(&j);
	gd_json_end(&j);
}

/* ======================================================================== output: CSV */

static void csv_str(FILE *f, const char *s)
{
	int q = strpbrk(s, ",\"\n\r") != NULL;
	if (!q) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static void csv_num(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, "%.9g", v);
}

void gd_lab_write_csv(const struct gd_lab_run *r, FILE *f)
{
	fprintf(f, "lab,group,variant,x,bytes,flops,runs,reps,time_s_median,time_s_min,time_s_max,"
		   "gb_per_s,gflop_per_s,ceiling,ceiling_source,ceiling_value,fraction_of_ceiling,"
		   "check,max_abs_err,max_rel_err,sm_mhz_min,sm_mhz_max,power_w_max,metrics,formula\n");
	for (int i = 0; i < r->nres; i++) {
		const struct gd_lab_result *res = &r->res[i];
		char met[400];
		csv_str(f, r->lab->name);
		fputc(',', f);
		csv_str(f, res->group);
		fputc(',', f);
		csv_str(f, res->name);
		fputc(',', f);
		csv_num(f, res->x);
		fputc(',', f);
		csv_num(f, res->bytes > 0 ? res->bytes : NAN);
		fputc(',', f);
		csv_num(f, res->flops > 0 ? res->flops : NAN);
		fprintf(f, ",%d,%d,", res->runs, res->reps);
		csv_num(f, res->t_median);
		fputc(',', f);
		csv_num(f, res->t_min);
		fputc(',', f);
		csv_num(f, res->t_max);
		fputc(',', f);
		csv_num(f, res->gbps);
		fputc(',', f);
		csv_num(f, res->gflops);
		fputc(',', f);
		csv_str(f, res->ceiling.name);
		fputc(',', f);
		csv_str(f, res->ceiling.source);
		fputc(',', f);
		csv_num(f, res->ceiling.value);
		fputc(',', f);
		csv_num(f, res->pct_of_ceiling);
		fputc(',', f);
		fputs(!res->check.done ? "n/a" : res->check.ok ? "ok" : "fail", f);
		fputc(',', f);
		csv_num(f, res->check.done ? res->check.max_abs_err : NAN);
		fputc(',', f);
		csv_num(f, res->check.done ? res->check.max_rel_err : NAN);
		fputc(',', f);
		csv_num(f, res->sm_mhz_min > 0 ? res->sm_mhz_min : NAN);
		fputc(',', f);
		csv_num(f, res->sm_mhz_max > 0 ? res->sm_mhz_max : NAN);
		fputc(',', f);
		csv_num(f, res->power_w_max);
		fputc(',', f);
		{
			size_t o = 0;
			met[0] = 0;
			for (int m = 0; m < res->nmetrics && o < sizeof(met); m++)
				o += (size_t)snprintf(met + o, sizeof(met) - o, "%s%s=%.6g", m ? ";" : "",
						      res->metric_keys[m], res->metric_values[m]);
		}
		csv_str(f, met);
		fputc(',', f);
		csv_str(f, res->formula);
		fputc('\n', f);
	}
}

/* ======================================================================== output: SVG */

static double yval(const struct gd_lab_chart *c, const struct gd_lab_result *res)
{
	switch (c->y) {
	case GD_LAB_Y_GBPS: return res->gbps;
	case GD_LAB_Y_GFLOPS: return res->gflops;
	case GD_LAB_Y_TIME_US: return res->t_median * 1e6;
	case GD_LAB_Y_METRIC:
		for (int m = 0; m < res->nmetrics; m++)
			if (c->metric && !strcmp(res->metric_keys[m], c->metric))
				return res->metric_values[m];
		return NAN;
	}
	return NAN;
}

int gd_lab_write_svg(const struct gd_lab_run *r, FILE *f)
{
	const struct gd_lab_chart *lc = &r->chart;
	struct gd_chart ch;
	double *xs, *ys;
	int used = 0, line_done = 0;
	char note[256], lbl[128];
	if (!r->has_chart)
		return 0;
	xs = calloc((size_t)r->nres + 1, sizeof(double));
	ys = calloc((size_t)r->nres + 1, sizeof(double));
	if (!xs || !ys) {
		free(xs);
		free(ys);
		return 0;
	}
	gd_chart_init(&ch, lc->title, lc->xlabel, lc->ylabel);
	ch.logx = lc->logx;
	ch.logy = lc->logy;
	if (r->chart_draw)
		r->chart_draw(r, &ch, r->chart_draw_arg);
	for (int g = 0; !r->chart_draw && g < lc->ngroups && ch.nseries < GD_CHART_MAX_SERIES; g++) {
		int start = used;
		for (int i = 0; i < r->nres; i++) {
			const struct gd_lab_result *res = &r->res[i];
			double y;
			char want[sizeof(res->group)];
			copy_name(want, sizeof(want), lc->groups[g]); /* compared as stored */
			if (strcmp(res->group, want))
				continue;
			y = yval(lc, res);
			if (!isfinite(res->x) || !isfinite(y))
				continue;
			if ((lc->logx && res->x <= 0) || (lc->logy && y <= 0))
				continue;
			xs[used] = res->x;
			ys[used] = y;
			used++;
			if (lc->ceiling_line && !line_done && isfinite(res->ceiling.value)) {
				double cv = res->ceiling.is_flops ? res->ceiling.value / 1e9 : res->ceiling.value / 1e9;
				if ((lc->y == GD_LAB_Y_GBPS && !res->ceiling.is_flops) ||
				    (lc->y == GD_LAB_Y_GFLOPS && res->ceiling.is_flops)) {
					snprintf(lbl, sizeof(lbl), "%s (%s)", res->ceiling.name, res->ceiling.source);
					gd_chart_hline(&ch, cv, lbl);
					line_done = 1;
				}
			}
		}
		if (used > start)
			gd_chart_add(&ch, lc->groups[g], xs + start, ys + start, used - start, GD_LINE_POINTS);
	}
	snprintf(note, sizeof(note), "gpudiag lab %s on %s: median of %d timed runs per point (CUDA events)",
		 r->lab->name, r->dev.name, r->runs);
	if (!ch.note) /* a draw hook may say how its picture was made */
		ch.note = note;
	gd_chart_svg(&ch, f);
	free(xs);
	free(ys);
	return 1;
}

/* ======================================================================== the command */

static int write_file(const char *path, const struct gd_lab_run *r, int kind)
{
	struct gd_atomic a;
	FILE *f = gd_atomic_open(&a, path);
	if (!f)
		return GD_EFAIL;
	if (kind == 0)
		gd_lab_write_csv(r, f);
	else if (!gd_lab_write_svg(r, f)) {
		gd_atomic_abort(&a);
		return gd_error(GD_EUSAGE, "lab %s: this lab draws no chart", r->lab->name);
	}
	return gd_atomic_commit(&a);
}

static void lab_help(const struct gd_lab *lab, const struct gd_opt *opts)
{
	printf("usage: gpudiag lab %s [options]\n\n%s — guide %s\n\n%s\noptions:\n", lab->name, lab->summary,
	       lab->guide, lab->help ? lab->help : "");
	gd_print_opts(opts);
	printf("  --json                   results as JSON on stdout (docs/json.md)\n"
	       "  --device N               the GPU to use (default 0)\n");
}

int gd_lab_main(struct gd_ctx *ctx, int argc, char **argv)
{
	const struct gd_lab *lab;
	struct gd_lab_run r;
	const char *csv = NULL, *svg = NULL, *shape = NULL;
	int quick = 0, runs = 15, npos = 0, rc, e;
	long long size = 0;
	char *pos[2];
	char why[512];
	const struct gd_opt opts[] = {
		{"quick", GD_OPT_FLAG, &quick, NULL, "smaller sizes: a fast look (a few seconds)"},
		{"runs", GD_OPT_INT, &runs, "N", "timed samples per variant (default 15, at least 10, at most 64)"},
		{"size", GD_OPT_LONG, &size, "BYTES", "the lab's main size (see the lab's help); default: the lab's"},
		{"shape", GD_OPT_STR, &shape, "SPEC", "the lab's shapes as key=value pairs (fusion, attention: see their help)"},
		{"csv", GD_OPT_STR, &csv, "FILE", "write the results as CSV ('-' = stdout)"},
		{"svg", GD_OPT_STR, &svg, "FILE", "write the lab's chart as SVG"},
		{NULL, 0, NULL, NULL, NULL},
	};

	if (argc < 1 || !argv[0] || argv[0][0] == '-') {
		if (argc >= 1 && argv[0] && argv[0][0] == '-')
			return gd_error(GD_EUSAGE, "lab: name a lab first (see 'gpudiag lab')");
		if (ctx->json) {
			struct gd_json j;
			gd_json_init(&j, stdout, 1);
			gd_json_arr(&j, NULL);
			for (int i = 0; gd_labs[i]; i++) {
				gd_json_obj(&j, NULL);
				gd_json_str(&j, "name", gd_labs[i]->name);
				gd_json_str(&j, "guide", gd_labs[i]->guide);
				gd_json_str(&j, "summary", gd_labs[i]->summary);
				gd_json_obj_end(&j);
			}
			gd_json_arr_end(&j);
			gd_json_end(&j);
		} else {
			gd_lab_list(stdout);
		}
		return GD_OK;
	}
	if (!strcmp(argv[0], "help")) { /* `gpudiag lab help <name>`: --help is taken by main */
		if (argc < 2)
			return gd_error(GD_EUSAGE, "lab help: name a lab (see 'gpudiag lab')");
		if (!(lab = gd_lab_find(argv[1])))
			return gd_error(GD_EUSAGE, "lab: unknown lab '%s' (see 'gpudiag lab')", argv[1]);
		lab_help(lab, opts);
		return GD_OK;
	}
	lab = gd_lab_find(argv[0]);
	if (!lab) {
		char list[512] = "";
		size_t o = 0;
		for (int i = 0; gd_labs[i] && o < sizeof(list); i++)
			o += (size_t)snprintf(list + o, sizeof(list) - o, "%s%s", i ? ", " : "", gd_labs[i]->name);
		return gd_error(GD_EUSAGE, "lab: unknown lab '%s' (labs: %s)", argv[0], list);
	}
	rc = gd_parse_opts("lab", argc - 1, argv + 1, opts, pos, 2, &npos, 0);
	if (rc != GD_OK)
		return rc;
	if (npos)
		return gd_error(GD_EUSAGE, "lab %s: unexpected argument '%s'", lab->name, pos[0]);
	if (runs < GD_LAB_MIN_RUNS || runs > 64)
		return gd_error(GD_EUSAGE, "lab %s: --runs must be between %d and 64, not %d", lab->name,
				GD_LAB_MIN_RUNS, runs);
	if (size < 0)
		return gd_error(GD_EUSAGE, "lab %s: --size must be positive", lab->name);
	if (shape && !lab->check_shape)
		return gd_error(GD_EUSAGE, "lab %s: this lab takes no --shape", lab->name);
	if (shape && lab->check_shape(shape, why, sizeof why))
		return gd_error(GD_EUSAGE, "lab %s: --shape: %s", lab->name, why);

	/* a lab needs a GPU (listing and help do not, so the table does not set GD_NEEDS_GPU) */
	if ((rc = gd_cu_open(why, sizeof(why))) != GD_OK)
		return gd_error(rc, "lab %s: %s", lab->name, why);
	if (ctx->device >= gd_cu_count())
		return gd_error(GD_ENOGPU, "lab %s: no CUDA device %d (this machine has %d)", lab->name,
				ctx->device, gd_cu_count());

	gd_lab_run_init(&r, lab);
	r.quick = quick;
	r.runs = runs;
	r.size = size;
	r.shape = shape;
	device_facts(&r.dev, ctx->device < 0 ? 0 : ctx->device);
	if ((e = gd_labk_set_device(r.dev.index)) != 0) {
		gd_lab_run_free(&r);
		return gd_error(GD_ENOGPU, "lab %s: cannot use CUDA device %d: %s", lab->name, ctx->device,
				gd_labk_error(e));
	}
	r.ceilings = calloc(1, sizeof(struct gd_ceilings));
	if (r.ceilings) {
		r.has_measured = gd_ceilings_load(r.dev.uuid, r.dev.driver, r.ceilings) == 0;
		if (!r.has_measured)
			gd_lab_note(&r, "no measured ceilings cached for this GPU: percentages are of the datasheet "
					"(run 'gpudiag roofline' to measure them)");
	}
	sampler_start(&r);
	rc = lab->run(&r);
	sampler_stop(&r);
	gd_labk_sync();

	if (rc == GD_OK || r.nres > 0) {
		if (ctx->json)
			gd_lab_write_json(&r, stdout);
		else
			gd_lab_print_table(&r, stdout);
		if (csv) {
			int w = strcmp(csv, "-") ? write_file(csv, &r, 0) : (gd_lab_write_csv(&r, stdout), GD_OK);
			if (w != GD_OK && rc == GD_OK)
				rc = w;
		}
		if (svg) {
			int w = write_file(svg, &r, 1);
			if (w != GD_OK && rc == GD_OK)
				rc = w;
		}
	}
	if (rc == GD_OK && r.check_failed)
		rc = GD_ECHECK;
	gd_lab_run_free(&r);
	return rc;
}
