/* gpudiag lab sfu — guide §3 (SM components: the SFU runs sin/cos/exp/log/rsqrt).
 *
 * Throughput: each function evaluated 4 × iters times per thread on arguments walking
 * through its domain (evaluations per second; the argument step and the accumulation are the
 * same two instructions for every variant). Pairs: __expf vs expf, __sinf vs sinf, rsqrtf vs
 * 1/sqrtf (IEEE sqrt and division), and GELU in the erf form vs the tanh approximation (libm
 * tanhf, and the SFU's tanh.approx.f32).
 * Accuracy: each function on 2^20 arguments spread over the same domain, against an FP64 CPU
 * reference (max error in ulp, absolute and relative), checked against the bound the CUDA
 * Programming Guide documents for it (Mathematical Functions appendix). GELU variants are
 * compared with the exact GELU, x·Φ(x), in FP64 and with their own formula in FP64. */
#include "core/status.h"
#include "kernels/lab_harness.h"
#include "kernels/lab_sfu.h"
#include "lab/lab.h"
#include "lab/lab_exec.h"
#include "lab/lab_key.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NACC (1 << 20)
#define SAMPLE_STRIDE 257

static const double SQRT2 = 1.41421356237309504880, SQRT_2_PI = 0.79788456080286535588;

double gd_lx_sfu_ref(int fn, double x)
{
	switch (fn) {
	case GD_SFU_EXP_FAST:
	case GD_SFU_EXP:
		return exp(x);
	case GD_SFU_SIN_FAST:
	case GD_SFU_SIN:
		return sin(x);
	case GD_SFU_RSQRT_FAST:
	case GD_SFU_RSQRT:
		return 1.0 / sqrt(x);
	case GD_SFU_GELU_ERF:
		return 0.5 * x * (1.0 + erf(x / SQRT2));
	case GD_SFU_GELU_TANH:
	case GD_SFU_GELU_TANH_FAST:
		return 0.5 * x * (1.0 + tanh(SQRT_2_PI * (x + 0.044715 * x * x * x)));
	default:
		return NAN;
	}
}

/* What one evaluation may be off by, loosely: 2^-12 of the value (catches garbage, not
 * ulps), plus for the GELU forms the cancellation in 1 + erf/tanh near -x (0.5·|x|·2^-20)
 * and, for tanh.approx.f32 (relative error about 2^-11 by the PTX ISA), 0.5·|x|·2^-10. */
static double allowance(int fn, double x, double f)
{
	double a = ldexp(fabs(f), -12);
	if (fn >= GD_SFU_GELU_ERF)
		a += 0.5 * fabs(x) * ldexp(1, -20);
	if (fn == GD_SFU_GELU_TANH_FAST)
		a += 0.5 * fabs(x) * ldexp(1, -10);
	return a;
}

double gd_lx_sfu_throughput_ref(int fn, int t, int nt, int iters, double *abs_sum, double *allow)
{
	double lo, hi, acc[4] = {0, 0, 0, 0}, as = 0, al = 0;
	float w, h, w16, x[4];
	volatile float tmp; /* each float operation rounded on its own, as the kernel's __f*_rn */
	if (gd_sfu_domain(fn, &lo, &hi))
		return NAN;
	w = (float)(hi - lo);
	tmp = 4.0f * (float)iters;
	h = w / tmp;
	w16 = w * 0.0625f;
	tmp = w * 0.5f;
	tmp = tmp * ((float)t / (float)nt);
	x[0] = (float)lo + tmp;
	for (int j = 1; j < 4; j++)
		x[j] = x[j - 1] + w16;
	for (int k = 0; k < iters; k++)
		for (int j = 0; j < 4; j++) {
			double f = gd_lx_sfu_ref(fn, x[j]);
			acc[j] += f;
			as += fabs(f);
			al += allowance(fn, x[j], f);
			x[j] = x[j] + h;
		}
	if (abs_sum)
		*abs_sum = as;
	if (allow)
		*allow = al;
	return (acc[0] + acc[1]) + (acc[2] + acc[3]);
}

double gd_lx_ulp_err(float got, double ref)
{
	int e;
	double a = fabs(ref), ulp;
	if (isnan(got) || isnan(ref))
		return INFINITY;
	if (a < FLT_MIN)
		ulp = ldexp(1.0, -149);
	else {
		frexp(a, &e); /* a = m·2^e, m in [0.5, 1): the float ulp there is 2^(e-24) */
		ulp = ldexp(1.0, e - 24);
	}
	return fabs((double)got - ref) / ulp;
}

static const struct fninfo {
	int fn;
	const char *name;
	int fast;   /* 1: intrinsic / approximation */
	double x;   /* chart position: 1 exp, 2 sin, 3 rsqrt, 4 GELU */
	double ulp; /* documented bound in ulp (0: use abs) */
	double abs; /* documented absolute bound (0: use ulp) */
	const char *bound;
} fns[] = {
    {GD_SFU_EXP_FAST, "__expf", 1, 1, 15, 0, "2 + floor(|1.173·x|) ulp"},
    {GD_SFU_EXP, "expf", 0, 1, 2, 0, "2 ulp"},
    {GD_SFU_SIN_FAST, "__sinf", 1, 2, 0, 3.6e-7, "2^-21.41 absolute in [-π, π]"},
    {GD_SFU_SIN, "sinf", 0, 2, 2, 0, "2 ulp"},
    {GD_SFU_RSQRT_FAST, "rsqrtf", 1, 3, 2, 0, "2 ulp"},
    {GD_SFU_RSQRT, "1.0f / sqrtf(x)", 0, 3, 2, 0, "IEEE sqrt then IEEE division: ≤ 2 ulp"},
    {GD_SFU_GELU_ERF, "GELU erf form (erff)", 0, 4, 0, 0, NULL},
    {GD_SFU_GELU_TANH, "GELU tanh approx. (tanhf)", 1, 4, 0, 0, NULL},
    {GD_SFU_GELU_TANH_FAST, "GELU tanh approx. (tanh.approx.f32)", 1, 4, 0, 0, NULL},
};
#define NFN ((int)(sizeof(fns) / sizeof(fns[0])))

struct sv {
	int fn, blocks, iters;
	float *dout;
};

static int launch(void *arg, long iter, char *why, size_t n)
{
	struct sv *v = arg;
	int e = gd_labk_sfu_throughput(v->fn, v->dout, v->blocks, v->iters);
	(void)iter;
	if (e) {
		snprintf(why, n, "%s", gd_labk_error(e));
		return GD_EFAIL;
	}
	return GD_OK;
}

/* Every SAMPLE_STRIDE-th thread's sum against the FP64 replay; the tolerance is relative to
 * the sum of |terms| so sign changes (sin) do not make it meaningless. */
static int check(void *arg, const void *out, size_t bytes, struct gd_lab_check *c)
{
	struct sv *v = arg;
	int nt = v->blocks * 256;
	const float *o = out;
	for (int t = 0; t < nt; t += SAMPLE_STRIDE) {
		double mag = 0, allow = 0,
		       ref = gd_lx_sfu_throughput_ref(v->fn, t, nt, v->iters, &mag, &allow);
		/* float summation: iters additions per chain, each off by at most 2^-24 of a
		 * partial sum no larger than the sum of |terms|; plus each evaluation's allowance */
		gd_lab_cmp(o + t, &ref, 1, GD_DT_F32, v->iters * ldexp(1, -23) * mag + allow, 0, c);
	}
	snprintf(c->note, sizeof(c->note), "every %dth thread's sum vs an FP64 replay", SAMPLE_STRIDE);
	return GD_OK;
}

static int accuracy(struct gd_lab_run *r, const struct fninfo *fi, const float *hx, float *hy, void *dx,
		    void *dy, double *max_ulp_out, double *max_abs_exact)
{
	struct gd_lab_check c;
	struct gd_lab_variant lv;
	struct gd_lab_result *res;
	double max_ulp = 0, max_abs = 0, max_rel = 0, max_abs_exact_gelu = 0;
	int e, gelu = fi->fn >= GD_SFU_GELU_ERF;
	double t0 = gd_lab_now_ns();
	if ((e = gd_labk_sfu_eval(fi->fn, dx, dy, NACC)) || (e = gd_labk_sync()))
		return gd_error(GD_EFAIL, "lab sfu: %s accuracy run: %s", fi->name, gd_labk_error(e));
	if (gd_lab_download(hy, dy, NACC * sizeof(float)))
		return GD_EFAIL;
	memset(&c, 0, sizeof(c));
	c.done = 1;
	c.first_bad = -1;
	for (int i = 0; i < NACC; i++) {
		double ref = gd_lx_sfu_ref(fi->fn, hx[i]), err, u, tol;
		if (hy[i] != hy[i] && ((const unsigned *)hy)[i] == 0xFFFFFFFFu)
			c.unwritten++;
		err = fabs((double)hy[i] - ref);
		u = gd_lx_ulp_err(hy[i], ref);
		if (!(err <= max_abs))
			max_abs = err;
		if (ref != 0 && err / fabs(ref) > max_rel)
			max_rel = err / fabs(ref);
		if (u > max_ulp)
			max_ulp = u;
		if (gelu) {
			/* against the exact GELU: the approximation's own error plus float rounding */
			double ex = gd_lx_sfu_ref(GD_SFU_GELU_ERF, hx[i]), ee = fabs((double)hy[i] - ex);
			if (ee > max_abs_exact_gelu)
				max_abs_exact_gelu = ee;
			tol = (fi->fn == GD_SFU_GELU_ERF ? 0 : 5e-4) + 4e-6 * (1 + fabs(ex)) +
			      (fi->fn == GD_SFU_GELU_TANH_FAST ? allowance(fi->fn, hx[i], 0) : 0);
			err = ee;
		} else if (fi->abs > 0) {
			tol = fi->abs;
		} else {
			tol = fi->ulp * ldexp(1, -23) * fabs(ref);
			if (fi->fn == GD_SFU_EXP_FAST) /* the bound grows with |x| */
				tol = (2 + floor(fabs(1.173 * hx[i]))) * ldexp(1, -23) * fabs(ref);
		}
		if (!(err <= tol)) {
			c.bad++;
			if (c.first_bad < 0)
				c.first_bad = i;
		}
	}
	c.checked = NACC;
	c.max_abs_err = gelu ? max_abs_exact_gelu : max_abs;
	c.max_rel_err = max_rel;
	c.ok = c.bad == 0;
	snprintf(c.note, sizeof(c.note), "%s",
		 gelu ? "vs exact GELU (FP64): approximation + rounding" : fi->bound);
	if (c.ok == 0)
		r->check_failed = 1;
	memset(&lv, 0, sizeof(lv));
	lv.group = "accuracy vs FP64 (2^20 points over the domain)";
	lv.name = fi->name;
	lv.x = fi->x;
	res = gd_lab_record(r, &lv, NULL, 0, &c);
	if (res) {
		gd_lab_sample_window(r, res, t0, gd_lab_now_ns());
		gd_lab_result_metric(res, "max_ulp", max_ulp, "ulp");
		gd_lab_result_metric(res, "max_abs_err", max_abs, "");
		gd_lab_result_metric(res, "max_rel_err", max_rel, "");
		if (gelu)
			gd_lab_result_metric(res, "max_abs_err_vs_exact_gelu", max_abs_exact_gelu, "");
	}
	*max_ulp_out = max_ulp;
	*max_abs_exact = gelu ? max_abs_exact_gelu : max_abs;
	return GD_OK;
}

/* ---- the run's state ------------------------------------------------------------------------ */
#define GT "throughput (evaluations per second)"

/* fns[i]'s throughput row is found by key 1 + i (the speed-ups), never by its label */
static int tp_key(int i)
{
	return 1 + i;
}

struct sfu_run {
	int blocks, iters;
	void *dout, *dx, *dy;
	float *hx, *hy;
	double gevals[NFN], ulp[NFN], abserr[NFN];
	uint64_t seed;
};

/* Device buffers and host scratch for the sums, the arguments and the results. */
static int sfu_prepare(struct gd_lab_run *r, struct sfu_run *s)
{
	int rc;
	if (r->size > 0)
		return gd_error(GD_EUSAGE, "lab sfu: --size does not apply here (the work per thread is fixed)");
	for (int i = 0; i < NFN; i++)
		s->gevals[i] = s->ulp[i] = s->abserr[i] = NAN;
	if ((rc = gd_lab_alloc(r, &s->dout, (size_t)s->blocks * 256 * 4, "the sums")) ||
	    (rc = gd_lab_alloc(r, &s->dx, NACC * 4, "the arguments")) ||
	    (rc = gd_lab_alloc(r, &s->dy, NACC * 4, "the results")))
		return rc;
	s->hx = malloc(NACC * sizeof(float));
	s->hy = malloc(NACC * sizeof(float));
	if (!s->hx || !s->hy)
		return gd_error(GD_EFAIL, "lab sfu: out of host memory");
	return GD_OK;
}

/* fns[i]'s throughput, checked and timed, with its evaluations per second. */
static int sfu_throughput(struct gd_lab_run *r, struct sfu_run *s, int i)
{
	struct sv v = {fns[i].fn, s->blocks, s->iters, s->dout};
	struct gd_lab_variant lv;
	struct gd_lab_result *res;
	int rc;
	memset(&lv, 0, sizeof(lv));
	lv.group = GT;
	lv.name = fns[i].name;
	lv.x = i + 1;
	lv.launch = launch;
	lv.arg = &v;
	lv.out = s->dout;
	lv.out_bytes = (size_t)s->blocks * 256 * 4;
	lv.check = check;
	lv.formula = "threads × 4 × iters evaluations";
	if ((rc = gd_lab_measure_key(r, &lv, tp_key(i))) != GD_OK)
		return rc;
	res = gd_lab_find_key(r, tp_key(i));
	if (res && isfinite(res->t_median)) {
		s->gevals[i] = (double)s->blocks * 256 * 4 * s->iters / res->t_median / 1e9;
		gd_lab_result_metric(res, "geval_per_s", s->gevals[i], "G/s");
	}
	return GD_OK;
}

/* Speed-up of each fast variant over its accurate partner. */
static void sfu_speedups(struct gd_lab_run *r, const struct sfu_run *s)
{
	for (int i = 0; i < NFN; i++)
		for (int j = 0; j < NFN; j++)
			if (fns[i].fast && !fns[j].fast && fns[i].x == fns[j].x) {
				struct gd_lab_result *res = gd_lab_find_key(r, tp_key(i));
				if (res)
					gd_lab_result_metric(res, "speedup_vs_accurate",
							     s->gevals[i] / s->gevals[j], "×");
			}
}

/* fns[i]'s accuracy: its arguments drawn (log-uniform for rsqrt) and uploaded, then run. */
static int sfu_accuracy(struct gd_lab_run *r, struct sfu_run *s, int i)
{
	double lo, hi;
	int rc;
	gd_sfu_domain(fns[i].fn, &lo, &hi);
	for (int k = 0; k < NACC; k++)
		s->hx[k] = fns[i].fn == GD_SFU_RSQRT || fns[i].fn == GD_SFU_RSQRT_FAST
			       ? (float)exp(gd_lab_rand_uniform(&s->seed, log(lo), log(hi)))
			       : (float)gd_lab_rand_uniform(&s->seed, lo, hi);
	if ((rc = gd_lab_upload(s->dx, s->hx, NACC * 4)) == GD_OK)
		rc = accuracy(r, &fns[i], s->hx, s->hy, s->dx, s->dy, &s->ulp[i], &s->abserr[i]);
	return rc;
}

static void sfu_verdicts(struct gd_lab_run *r, const struct sfu_run *s)
{
	const double *gevals = s->gevals, *ulp = s->ulp, *abserr = s->abserr;
	gd_lab_note(r,
		    "throughput: %d blocks × 256 threads, %d evaluations per thread; domains: exp [-10, 10], "
		    "sin [-3.14159, 3.14159], rsqrt [0.01, 100], GELU [-8, 8]",
		    s->blocks, 4 * s->iters);
	if (isfinite(gevals[0] + gevals[1] + gevals[2] + gevals[3] + gevals[4] + gevals[5]))
		gd_lab_verdict(
		    r, "§3",
		    "The SFU intrinsics ran faster than the accurate functions: __expf %.1f×, __sinf %.1f×, "
		    "rsqrtf %.1f× (vs expf, sinf, 1/sqrtf), at a cost in accuracy: up to %.1f, %.1f and %.1f "
		    "ulp against %.1f, %.1f and %.1f.",
		    gevals[0] / gevals[1], gevals[2] / gevals[3], gevals[4] / gevals[5], ulp[0], ulp[2],
		    ulp[4], ulp[1], ulp[3], ulp[5]);
	if (isfinite(gevals[6] + gevals[7] + gevals[8]))
		gd_lab_verdict(
		    r, "§3",
		    "GELU: the tanh approximation ran %.2f× the erf form with libm tanhf and %.2f× with the "
		    "SFU's tanh.approx; it differs from the exact GELU by up to %.2g (the erf form: %.2g), "
		    "an "
		    "approximation error that is a property of the formula, not of float rounding.",
		    gevals[7] / gevals[6], gevals[8] / gevals[6], abserr[7], abserr[6]);
}

static void sfu_chart(struct gd_lab_run *r)
{
	struct gd_lab_chart ch;
	memset(&ch, 0, sizeof(ch));
	ch.title = "SFU lab: throughput of fast vs accurate functions";
	ch.xlabel = "1 __expf  2 expf  3 __sinf  4 sinf  5 rsqrtf  6 1/sqrtf  7 GELU erf  8 GELU "
		    "tanhf  9 GELU tanh.approx";
	ch.ylabel = "G evaluations / s";
	ch.y = GD_LAB_Y_METRIC;
	ch.metric = "geval_per_s";
	ch.groups[0] = GT;
	ch.ngroups = 1;
	gd_lab_set_chart(r, &ch);
}

static int run(struct gd_lab_run *r)
{
	struct sfu_run s;
	int rc;
	memset(&s, 0, sizeof(s));
	s.blocks = (r->dev.sms > 0 ? r->dev.sms : 1) * 8;
	s.iters = r->quick ? 256 : 2048;
	s.seed = 3;
	if ((rc = sfu_prepare(r, &s)) != GD_OK)
		goto out;
	for (int i = 0; i < NFN && rc == GD_OK; i++)
		rc = sfu_throughput(r, &s, i);
	if (rc != GD_OK)
		goto out;
	sfu_speedups(r, &s);
	for (int i = 0; i < NFN && rc == GD_OK; i++)
		rc = sfu_accuracy(r, &s, i);
	if (rc != GD_OK)
		goto out;
	sfu_verdicts(r, &s);
	sfu_chart(r);
out:
	free(s.hx);
	free(s.hy);
	return rc;
}

const struct gd_lab gd_lab_sfu = {
    "sfu", "§3", "fast SFU intrinsics vs accurate functions; GELU erf vs tanh, speed and accuracy",
    "Throughput of __expf/expf, __sinf/sinf, rsqrtf vs 1.0f/sqrtf, and GELU in the erf form vs the\n"
    "tanh approximation (libm tanhf and the SFU's tanh.approx.f32), each evaluated 4·iters times\n"
    "per thread over its domain ('geval_per_s', 'speedup_vs_accurate'). Accuracy of each on 2^20\n"
    "points against an FP64 CPU reference, checked against the CUDA Programming Guide's documented\n"
    "error bound ('max_ulp', 'max_abs_err'; GELU against the exact x·Φ(x)).\n",
    run,
    NULL, /* no --shape */
    0, 0, 0, NULL, /* no --size: the work per thread is fixed */
};
