/* The verdict rules on profiles built in memory: each rule fires on the problem it looks for,
 * at the documented thresholds, with the evidence values asserted; a clean run raises no
 * warning; missing records give "insufficient signal". (tests/cli/verdicts.sh runs the same
 * rules through the SQLite reader on generated profiles.) */
#include "core/status.h"
#include "core/test.h"
#include "gpu/arch.h"
#include "profile/kc_metrics.h"
#include "profile/profile.h"
#include "analysis/summary.h"
#include "analysis/verdict.h"

#include <math.h>
#include <string.h>

#define US 1000LL
#define MS 1000000LL

static void setup(struct gd_profile *p)
{
	gd_profile_init(p);
	gd_profile_add_device(p); /* p->ndev = 1 */
	snprintf(p->dev[0].name, sizeof(p->dev[0].name), "NVIDIA H200");
	p->dev[0].major = 9;
	p->dev[0].minor = 0;
	p->dev[0].sm_count = 132;
	p->dev[0].mem_total = 150754820096.0;
	p->dev[0].max_sm_mhz = 1980;
}

static int64_t kern(struct gd_profile *p, int64_t t, int64_t dur, const char *name, int grid, int block, int regs,
		    int api_dur)
{
	struct gd_pkernel *k = gd_profile_add_kernel(p);
	k->start = t;
	k->end = t + dur;
	k->name = k->dname = gd_profile_intern(p, name);
	k->grid[0] = grid;
	k->grid[1] = k->grid[2] = 1;
	k->block[0] = block;
	k->block[1] = k->block[2] = 1;
	k->regs = regs;
	k->stream = 13;
	if (api_dur > 0) {
		struct gd_papi *a = gd_profile_add_api(p);
		a->start = t - api_dur - 1 * US;
		a->end = a->start + api_dur;
		a->name = gd_profile_intern(p, "cudaLaunchKernel_v7000");
		a->cat = GD_API_LAUNCH;
	}
	return t + dur;
}


/* a kernel on a stream whose launch call (linked by correlation id) ran at [h, h + 3 µs) */
static struct gd_pkernel *kern_on(struct gd_profile *p, int64_t t, int64_t dur, const char *name, int grid,
				  int64_t stream, int legacy, int nonblocking, int64_t h)
{
	static uint32_t corr = 1;
	struct gd_pkernel *k = gd_profile_add_kernel(p);
	struct gd_papi *a;
	k->start = t;
	k->end = t + dur;
	k->name = k->dname = gd_profile_intern(p, name);
	k->grid[0] = grid;
	k->grid[1] = k->grid[2] = 1;
	k->block[0] = 256;
	k->block[1] = k->block[2] = 1;
	k->regs = 32;
	k->stream = stream;
	k->legacy = legacy;
	k->nonblocking = nonblocking;
	k->corr = ++corr;
	a = gd_profile_add_api(p);
	a->start = h;
	a->end = h + 3 * US;
	a->name = gd_profile_intern(p, "cudaLaunchKernel_v7000");
	a->cat = GD_API_LAUNCH;
	a->corr = corr;
	return k;
}

static void nvml(struct gd_profile *p, int64_t t0, int64_t t1, unsigned long long reasons, int mhz, double used)
{
	for (int64_t t = t0; t <= t1; t += 50 * MS) {
		struct gd_pnvml *s = gd_profile_add_nvml(p);
		s->t = t;
		s->util_gpu = 100;
		s->mem_used = used;
		s->mem_total = 150754820096.0;
		s->power_w = 400;
		s->temp_c = 50;
		s->sm_mhz = mhz;
		s->reasons = reasons;
	}
}

/* a synchronising call of the host over [start, end) */
static void sync_call(struct gd_profile *p, int64_t start, int64_t end, const char *name)
{
	struct gd_papi *a = gd_profile_add_api(p);
	a->start = start;
	a->end = end;
	a->name = gd_profile_intern(p, name);
	a->cat = GD_API_SYNC;
}

static const char *GEMM = "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x256x64_cublas";

/* a --metrics run (one launch replayed) of 100 GEMMs whose NVML peak is 98 % of the device's
 * memory: the replay's copies of device memory are in that figure */
static void metrics_run_near_full(struct gd_profile *p)
{
	int64_t t = 1000 * MS;
	setup(p);
	for (int i = 0; i < 100; i++)
		t = kern(p, t, 500 * US, GEMM, 264, 384, 168, 5 * US) + 1 * US;
	nvml(p, 1000 * MS, t, 0, 1980, 0.98 * 150754820096.0);
	struct gd_klaunch *l = gd_profile_add_klaunch(p);
	l->status = GD_KL_OK, l->passes = 10, l->replay = GD_KL_F_USER;
}

/* measured counters of one kernel (a kernel_metrics row, pm_metrics.h), in % of peak; NaN:
 * not collected */
static void kcounters(struct gd_profile *p, const char *name, long samples, double active, double issue,
		      double tensor, double dram)
{
	struct gd_pm_kernel *r = gd_profile_add_kpm(p);
	r->device = 0;
	r->name = gd_profile_intern(p, name);
	r->samples = samples;
	r->v[GD_PM_SM_ACTIVE] = active;
	r->v[GD_PM_SM_ISSUE] = issue;
	r->v[GD_PM_TENSOR] = tensor;
	r->v[GD_PM_DRAM] = dram;
}

static const char *evt(const struct gd_finding *f, const char *key)
{
	for (int i = 0; i < f->nev; i++)
		if (!strcmp(f->ev[i].key, key))
			return f->ev[i].text;
	return "";
}

static void run(struct gd_profile *p, struct gd_summary *s, struct gd_verdicts *v)
{
	gd_profile_finish(p);
	CHECK_INT(gd_summary_compute(p, s), GD_OK);
	CHECK_INT(gd_verdicts_compute(p, s, v), GD_OK);
}

static double evv(const struct gd_finding *f, const char *key)
{
	for (int i = 0; i < f->nev; i++)
		if (!strcmp(f->ev[i].key, key))
			return f->ev[i].value;
	return NAN;
}

static void done(struct gd_profile *p, struct gd_summary *s) { gd_summary_free(s), gd_profile_free(p); }

/* ---- per-kernel counters (issue 19): the view s->kc filled by hand, as gd_kc_view_build
 * would fill it from the profiled launches; every quantity unknown (NaN) until set ---- */
static struct gd_kc_ceilings H200_CEIL = {
	.dram_bps = 4.0e12, .l2_bps = 10e12, .measured = 1, .source = "measured by gpudiag roofline 2026-12-03"};

static struct gd_kc_kernel kc_new(struct gd_profile *p, const char *name, double dur_ns)
{
	struct gd_kc_kernel k;
	memset(&k, 0, sizeof(k));
	k.name = k.dname = gd_profile_intern(p, name);
	k.launches = 3;
	k.passes = 12;
	for (int m = 0; m < GD_KC_COUNT; m++)
		k.q[m] = NAN;
	for (int m = 0; m < GD_P_COUNT; m++)
		k.flops[m] = NAN;
	k.tensor_inst = k.dram_bytes = k.dram_bps = k.flop_s = k.intensity = NAN;
	k.ld_sectors_per_req = k.st_sectors_per_req = k.ld_used_pct = k.st_used_pct = NAN;
	k.threads_per_inst = k.achieved_occ_pct = k.theoretical_occ_pct = k.sm_busy_pct = k.mem_busy_pct = NAN;
	k.sm_busy = k.mem_busy = -1;
	k.ceiling = k.roof_pct = k.dram_roof_pct = k.time_share = NAN;
	for (int j = 0; j < GD_KC_TOP_STALLS; j++) {
		k.stall[j] = -1;
		k.stall_pct[j] = NAN;
	}
	k.bound = GD_KB_UNKNOWN;
	k.q[GD_KC_DURATION] = dur_ns;
	return k;
}

/* global loads (or stores): sectors and requests per launch, % of each sector used */
static void kc_access(struct gd_kc_kernel *k, int store, double sectors, double requests, double used)
{
	k->q[store ? GD_KC_ST_SECTORS : GD_KC_LD_SECTORS] = sectors;
	k->q[store ? GD_KC_ST_REQUESTS : GD_KC_LD_REQUESTS] = requests;
	*(store ? &k->st_sectors_per_req : &k->ld_sectors_per_req) = sectors / requests;
	*(store ? &k->st_used_pct : &k->ld_used_pct) = used;
}

/* a place on the roofline, as the view derives it */
static void kc_roof(struct gd_kc_kernel *k, int bound, double roof_pct, double dram_roof_pct, double sm_pct,
		    double mem_pct)
{
	k->bound = bound;
	k->prec = GD_P_FP32;
	k->roof_pct = roof_pct;
	k->dram_roof_pct = dram_roof_pct;
	k->dram_bps = dram_roof_pct / 100 * H200_CEIL.dram_bps;
	k->intensity = bound == GD_KB_MEMORY ? 0.25 : 2.0;
	k->ceiling = fmin(H200_CEIL.cuda_core[GD_P_FP32], k->intensity * H200_CEIL.dram_bps);
	k->flop_s = roof_pct / 100 * k->ceiling;
	k->q[GD_KC_SM_PCT] = k->sm_busy_pct = sm_pct;
	k->sm_busy = GD_KC_SM_PCT;
	k->q[GD_KC_MEM_PCT] = k->mem_busy_pct = mem_pct;
	k->mem_busy = GD_KC_MEM_PCT;
}

/* the verdicts with s->kc = the n kernels given (the summary's own view put back after) */
static void run_kc(struct gd_profile *p, struct gd_summary *s, struct gd_verdicts *v, struct gd_kc_kernel *k, int n)
{
	struct gd_kc_view saved;
	H200_CEIL.cuda_core[GD_P_FP32] = 60e12;
	gd_profile_finish(p);
	CHECK_INT(gd_summary_compute(p, s), GD_OK);
	saved = s->kc;
	s->kc = (struct gd_kc_view){.k = k, .nk = n, .profiled = 3L * n, .max_passes = 12, .ceil = &H200_CEIL, .nceil = 1};
	snprintf(p->metrics, sizeof(p->metrics), "default");
	CHECK_INT(gd_verdicts_compute(p, s, v), GD_OK);
	s->kc = saved;
}

static int rank_of(const struct gd_verdicts *v, int rule)
{
	for (int i = 0; i < GD_R_COUNT; i++)
		if (v->order[i] == rule)
			return i;
	return -1;
}

/* 100 launches each of the names given, 4 ms each, one after the other */
static void kc_loop(struct gd_profile *p, const char *const *names, int n, int grid, int block, int regs)
{
	int64_t t = 1000 * MS;
	setup(p);
	for (int i = 0; i < 100; i++)
		for (int j = 0; j < n; j++)
			t = kern(p, t, 4 * MS, names[j], grid, block, regs, 5 * US) + 1 * US;
	nvml(p, 1000 * MS, t, 0, 1980, 1e10);
}

/* kernels of 1 ms separated by gaps making `idle` of the span idle */
static void idle_case(double idle, int *state, int *sev, double *busy)
{
	struct gd_profile p;
	struct gd_summary s;
	struct gd_verdicts v;
	setup(&p);
	int64_t t = 1000 * MS, gap = (int64_t)(1 * MS * idle / (1 - idle));
	for (int i = 0; i < 200; i++)
		t = kern(&p, t, 1 * MS, GEMM, 264, 384, 168, 0) + gap;
	nvml(&p, 1000 * MS, t, 0, 1980, 1e10);
	run(&p, &s, &v);
	*state = v.f[GD_R_IDLE].state;
	*sev = v.f[GD_R_IDLE].severity;
	*busy = evv(&v.f[GD_R_IDLE], "busy_fraction");
	done(&p, &s);
}

/* Light mode (gpudiag run --light): no trace; the idle question answered from the PM samples
 * of the active span only (the 1 s of start-up at 0 % is not judged). */
static void light_case_gr(double sm_pct, double gr_pct, int *state, int *sev, double *busy)
{
	struct gd_profile p;
	struct gd_summary s;
	struct gd_verdicts v;
	setup(&p);
	p.cupti_ok = 0;
	snprintf(p.untraced_status, sizeof(p.untraced_status), "light");
	snprintf(p.counters, sizeof(p.counters), "ok");
	for (int i = 0; i < 30000; i++) {
		struct gd_pm_sample *x = gd_profile_add_pm(&p);
		x->t_start = 1000 * MS + i * 100 * US;
		x->t_end = x->t_start + 100 * US;
		/* 1 s of start-up with idle SMs, then the job */
		x->v[GD_PM_SM_ACTIVE] = i < 10000 ? 0 : sm_pct;
		x->v[GD_PM_GR_ACTIVE] = i < 10000 ? 0 : gr_pct; /* NaN: not sampled */
	}
	/* the job's last sample with work, then 0.5 s of tear-down */
	for (int i = 0; i < 5000; i++) {
		struct gd_pm_sample *x = gd_profile_add_pm(&p);
		x->t_start = 4000 * MS + i * 100 * US;
		x->t_end = x->t_start + 100 * US;
		x->v[GD_PM_SM_ACTIVE] = 1;
		x->v[GD_PM_GR_ACTIVE] = isnan(gr_pct) ? NAN : 1;
	}
	run(&p, &s, &v);
	*state = v.f[GD_R_IDLE].state;
	*sev = v.f[GD_R_IDLE].severity;
	*busy = evv(&v.f[GD_R_IDLE], "busy_fraction");
	CHECK_INT(v.f[GD_R_SYNC].state, GD_INSUFFICIENT);
	CHECK_INT(v.f[GD_R_PROFILER].state, GD_FIRED);
	CHECK_INT(v.f[GD_R_PROFILER].severity, GD_SEV_INFO);
	done(&p, &s);
}

static void light_case(double sm_pct, int *state, int *sev, double *busy)
{
	light_case_gr(sm_pct, NAN, state, sev, busy);
}

/* Light mode with start-up inside the active span (a burst every 10th sample for 1 s: model
 * and library set-up, first iterations), then the loop: the loop is judged, the start-up
 * named in the evidence. `idle_dev1`: a second GPU whose loop idles 80 % of every iteration
 * (the device judged is the least active, and the finding names it). */
static void light_startup(int idle_dev1, struct gd_verdicts *out)
{
	struct gd_profile p;
	struct gd_summary s;
	setup(&p);
	p.cupti_ok = 0;
	snprintf(p.untraced_status, sizeof(p.untraced_status), "light");
	snprintf(p.counters, sizeof(p.counters), "ok");
	for (int d = 0; d < 1 + idle_dev1; d++)
		for (int i = 0; i < 15000; i++) {
			struct gd_pm_sample *x = gd_profile_add_pm(&p);
			int on = i < 10000 ? i % 10 == 0 : d == 0 || i % 10 < 2;
			x->device = d;
			x->t_start = 1000 * MS + i * 100 * US;
			x->t_end = x->t_start + 100 * US;
			x->v[GD_PM_SM_ACTIVE] = on ? 90 : 0;
			x->v[GD_PM_GR_ACTIVE] = on ? 97 : 0;
		}
	run(&p, &s, out);
	done(&p, &s);
}

int main(void)
{
	struct gd_profile p;
	struct gd_summary s;
	struct gd_verdicts v;
	int st, sev;
	double busy;
	gd_set_quiet(1);

	/* interval overlap */
	{
		struct gd_interval a[] = {{0, 10}, {20, 30}}, b[] = {{5, 25}, {29, 40}};
		CHECK_NEAR(gd_overlap(a, 2, b, 2), 5 + 5 + 1, 0);
		CHECK_NEAR(gd_overlap(a, 2, b, 0), 0, 0);
	}

	/* idle: thresholds 25 % (warning) and 50 % (high) of the span */
	idle_case(0.20, &st, &sev, &busy);
	CHECK_INT(st, GD_CLEAR);
	CHECK_NEAR(busy, 0.80, 0.005);
	idle_case(0.30, &st, &sev, &busy);
	CHECK_INT(st, GD_FIRED);
	CHECK_INT(sev, GD_SEV_WARN);
	CHECK_NEAR(busy, 0.70, 0.005);
	idle_case(0.60, &st, &sev, &busy);
	CHECK_INT(sev, GD_SEV_HIGH);

	/* warm-up: a 3 s gap before the loop's first GEMM (library init, module loading) and a
	 * 500 ms gap before a last, new kernel are not judged; the loop itself is judged */
	for (int starved = 0; starved < 2; starved++) {
		setup(&p);
		int64_t t = kern(&p, 1000 * MS, 100 * US, "fill_bf16", 1056, 256, 32, 0) + 3000 * MS;
		for (int i = 0; i < 100; i++)
			t = kern(&p, t, 1 * MS, GEMM, 264, 384, 168, 0) + (starved ? 2 * MS : 2 * US);
		t += 500 * MS;
		kern(&p, t, 10 * US, "checksum_kernel", 1, 32, 32, 0);
		nvml(&p, 1000 * MS, t, 0, 1980, 1e10);
		run(&p, &s, &v);
		CHECK_NEAR(evv(&v.f[GD_R_IDLE], "warmup_idle_ns"),
			   3000 * MS + 500 * MS + (starved ? 2 * MS : 2 * US), 1);
		CHECK_NEAR(evv(&v.f[GD_R_IDLE], "idle_ns"), 99 * (starved ? 2 * MS : 2 * US), 1);
		CHECK_INT(v.f[GD_R_IDLE].state, starved ? GD_FIRED : GD_CLEAR);
		if (starved) {
			CHECK_INT(v.f[GD_R_IDLE].severity, GD_SEV_HIGH);
			CHECK_INT(v.order[0], GD_R_IDLE);
		} else {
			CHECK_INT(v.nwarn, 0);
		}
		done(&p, &s);
	}

	/* sync: a gap that began in a blocking call counts only up to that call's length; a host
	 * slower than the GPU (blocked 20 µs, then 1 ms of host work) is not sync-bound */
	for (int blocked_long = 0; blocked_long < 2; blocked_long++) {
		setup(&p);
		int64_t t = 1000 * MS, bl = blocked_long ? 900 * US : 20 * US;
		kern(&p, t - 2 * MS, 10 * US, GEMM, 264, 384, 168, 0);
		for (int i = 0; i < 50; i++) {
			int64_t e = kern(&p, t, 1 * MS, GEMM, 264, 384, 168, 5 * US);
			sync_call(&p, e - bl, e + 5 * US, "cudaDeviceSynchronize_v3020");
			t = e + 1 * MS;
		}
		nvml(&p, 1000 * MS, t, 0, 1980, 1e10);
		run(&p, &s, &v);
		CHECK_NEAR(evv(&v.f[GD_R_SYNC], "sync_calls"), 50, 0);
		CHECK_NEAR(evv(&v.f[GD_R_SYNC], "idle_after_sync_ns"), 49 * 1 * MS, 1);
		CHECK_NEAR(evv(&v.f[GD_R_SYNC], "sync_stake_ns"), 49 * (double)(bl + 5 * US), 1);
		CHECK_INT(v.f[GD_R_SYNC].state, blocked_long ? GD_FIRED : GD_CLEAR);
		CHECK_INT(v.f[GD_R_IDLE].state, GD_FIRED);
		CHECK_INT(v.order[0], blocked_long ? GD_R_SYNC : GD_R_IDLE);
		done(&p, &s);
	}

	/* a measured cause outranks a guess from names at the same severity: a loop of elementwise
	 * kernels (memory-bound by name, 0.5 of their time at stake ≈ 25 % of the span) that a
	 * sync blocks 200 µs of every 2 ms (≈ 10 % of the judged span, measured) */
	setup(&p);
	{
		int64_t t = 1000 * MS;
		const char *ew = "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>";
		kern(&p, t - 2 * MS, 10 * US, ew, 264, 256, 32, 0);
		for (int i = 0; i < 50; i++) {
			int64_t e = kern(&p, t, 1 * MS, ew, 264, 256, 32, 5 * US);
			sync_call(&p, e - 200 * US, e + 5 * US, "cudaStreamSynchronize_v3020");
			t = e + 1 * MS;
		}
		nvml(&p, 1000 * MS, t, 0, 1980, 1e10);
		run(&p, &s, &v);
		CHECK_INT(v.f[GD_R_SYNC].state, GD_FIRED);
		CHECK_INT(v.f[GD_R_SYNC].severity, GD_SEV_WARN);
		CHECK_INT(v.f[GD_R_SYNC].basis, GD_BASIS_TRACE);
		CHECK_INT(v.f[GD_R_MEMBOUND].state, GD_FIRED);
		CHECK_INT(v.f[GD_R_MEMBOUND].severity, GD_SEV_WARN);
		CHECK_INT(v.f[GD_R_MEMBOUND].basis, GD_BASIS_NAMES);
		CHECK(v.f[GD_R_MEMBOUND].share > v.f[GD_R_SYNC].share);
		int pos_sync = -1, pos_mem = -1;
		for (int i = 0; i < GD_R_COUNT; i++) {
			pos_sync = v.order[i] == GD_R_SYNC ? i : pos_sync;
			pos_mem = v.order[i] == GD_R_MEMBOUND ? i : pos_mem;
		}
		CHECK(pos_sync >= 0 && pos_sync < pos_mem);
		done(&p, &s);
	}

	/* a clean loop of large GEMMs: no warning at all, and the summary's numbers */
	setup(&p);
	{
		int64_t t = 1000 * MS;
		for (int i = 0; i < 500; i++)
			t = kern(&p, t, 500 * US, GEMM, 264, 384, 168, 5 * US) + 1 * US;
		nvml(&p, 1000 * MS, t, 0x4 /* software power cap, clocks barely lower */, 1950, 3e10);
	}
	run(&p, &s, &v);
	CHECK_INT(v.nwarn, 0);
	CHECK_INT(s.nkernels, 500);
	CHECK_NEAR(s.kernel_ns, 500 * 500 * US, 0);
	CHECK_NEAR(s.busy_ns / s.span_ns, 500.0 / 501.0, 1e-3);
	CHECK_INT(s.nks, 1);
	CHECK_INT(s.ks[0].kind, GD_KIND_GEMM);
	CHECK_INT(s.ks[0].lib, GD_LIB_CUBLAS);
	CHECK(s.ks[0].occ_ok);
	CHECK_INT(s.ks[0].occ.blocks_per_sm, 1); /* 168 regs × 384 threads = 64512 registers */
	done(&p, &s);

	/* launch-bound: 1000 kernels of 2 µs behind 5 µs launch calls, 6 µs apart */
	setup(&p);
	{
		int64_t t = 1000 * MS;
		for (int i = 0; i < 1000; i++)
			t = kern(&p, t, 2 * US, "_Z8tiny_addPf", 1, 32, 16, 5 * US) + 6 * US;
		nvml(&p, 1000 * MS, t, 0, 1980, 1e10);
	}
	run(&p, &s, &v);
	CHECK_INT(v.f[GD_R_LAUNCH].state, GD_FIRED);
	CHECK_INT(v.f[GD_R_LAUNCH].severity, GD_SEV_HIGH);
	CHECK_NEAR(evv(&v.f[GD_R_LAUNCH], "short_kernels"), 1000, 0);
	CHECK_NEAR(evv(&v.f[GD_R_LAUNCH], "launch_api_median_ns"), 5000, 0);
	CHECK_NEAR(evv(&v.f[GD_R_LAUNCH], "idle_before_short_ns"), 999 * 6 * US, 0);
	CHECK_INT(v.order[0], GD_R_LAUNCH); /* ranked above the idle finding it explains */
	CHECK_INT(v.f[GD_R_OCCUPANCY].state, GD_FIRED); /* grid of one block */
	done(&p, &s);

	/* fewer than 100 short kernels: not called launch-bound */
	setup(&p);
	{
		int64_t t = 1000 * MS;
		for (int i = 0; i < 50; i++)
			t = kern(&p, t, 2 * US, "_Z8tiny_addPf", 1, 32, 16, 5 * US) + 6 * US;
		for (int i = 0; i < 20; i++)
			t = kern(&p, t, 500 * US, GEMM, 264, 384, 168, 5 * US) + 1 * US;
	}
	run(&p, &s, &v);
	CHECK_INT(v.f[GD_R_LAUNCH].state, GD_CLEAR);
	CHECK_INT(v.f[GD_R_THROTTLE].state, GD_INSUFFICIENT); /* no NVML samples */
	CHECK_INT(v.f[GD_R_PROFILER].state, GD_FIRED);
	CHECK_INT(v.f[GD_R_PROFILER].severity, GD_SEV_INFO);
	done(&p, &s);

	/* pageable copies: 10 × 64 MiB at 6.7 GB/s beside pinned ones at 50 GB/s */
	setup(&p);
	{
		int64_t t = 1000 * MS;
		for (int i = 0; i < 10; i++) {
			struct gd_pcopy *c = gd_profile_add_copy(&p);
			c->start = t;
			c->end = t + 10 * MS;
			c->bytes = 67000000;
			c->kind = GD_CK_HTOD;
			c->src_kind = GD_MK_PAGEABLE;
			c->dst_kind = GD_MK_DEVICE;
			t = c->end + 1 * US;
			c = gd_profile_add_copy(&p);
			c->start = t;
			c->end = t + 2 * MS;
			c->bytes = 100000000;
			c->kind = GD_CK_HTOD;
			c->src_kind = GD_MK_PINNED;
			c->dst_kind = GD_MK_DEVICE;
			t = c->end + 1 * US;
			t = kern(&p, t, 5 * MS, GEMM, 264, 384, 168, 5 * US) + 1 * US;
		}
		nvml(&p, 1000 * MS, t, 0, 1980, 1e10);
	}
	run(&p, &s, &v);
	CHECK_INT(v.f[GD_R_PAGEABLE].state, GD_FIRED);
	CHECK_INT(v.f[GD_R_PAGEABLE].severity, GD_SEV_HIGH);
	CHECK_NEAR(evv(&v.f[GD_R_PAGEABLE], "pageable_bw"), 6.7e9, 1e6);
	CHECK_NEAR(evv(&v.f[GD_R_PAGEABLE], "pinned_bw"), 5e10, 1e6);
	/* the first copy precedes the loop's first GEMM: start-up, not judged. At stake: the other
	 * 9 (90 ms of pageable copies) less the 12.06 ms the same bytes take pinned */
	CHECK_NEAR(evv(&v.f[GD_R_PAGEABLE], "pageable_copies"), 9, 0);
	CHECK_NEAR(evv(&v.f[GD_R_PAGEABLE], "startup_pageable_copies"), 1, 0);
	CHECK_NEAR(v.f[GD_R_PAGEABLE].share * s.span_ns, 90 * MS - 9 * 1.34 * MS, 1e3);
	CHECK_INT(v.order[0], GD_R_PAGEABLE);
	CHECK_INT(s.cp[GD_CPY_HTOD].pageable_count, 10);
	done(&p, &s);

	/* low occupancy: 255 registers × 256 threads → 1 block of 8 warps per SM (12.5 %) */
	setup(&p);
	{
		int64_t t = 1000 * MS;
		for (int i = 0; i < 100; i++)
			t = kern(&p, t, 1 * MS, "_Z9my_kernelPf", 1056, 256, 255, 5 * US) + 1 * US;
		nvml(&p, 1000 * MS, t, 0, 1980, 1e10);
	}
	run(&p, &s, &v);
	CHECK_INT(v.f[GD_R_OCCUPANCY].state, GD_FIRED);
	CHECK_NEAR(evv(&v.f[GD_R_OCCUPANCY], "occupancy"), 0.125, 1e-9);
	CHECK(strstr(v.f[GD_R_OCCUPANCY].advice, "registers per thread") != NULL);
	CHECK_STR(v.f[GD_R_OCCUPANCY].kernel, "my_kernel");
	done(&p, &s);

	/* tensor cores unused: 80 % of kernel time in FP32 SIMT sgemm on a Hopper GPU */
	setup(&p);
	{
		int64_t t = 1000 * MS;
		for (int i = 0; i < 100; i++) {
			t = kern(&p, t, 4 * MS, "ampere_sgemm_128x64_nn", 528, 256, 120, 5 * US) + 1 * US;
			t = kern(&p, t, 1 * MS, GEMM, 264, 384, 168, 5 * US) + 1 * US;
		}
		nvml(&p, 1000 * MS, t, 0, 1980, 1e10);
	}
	run(&p, &s, &v);
	CHECK_INT(v.f[GD_R_TENSOR].state, GD_FIRED);
	CHECK_INT(v.f[GD_R_TENSOR].severity, GD_SEV_HIGH);
	CHECK_NEAR(evv(&v.f[GD_R_TENSOR], "fp32_simt_fraction"), 0.8, 1e-9);
	done(&p, &s);

	/* throttling: hardware thermal slowdown in half the samples */
	setup(&p);
	{
		int64_t t = 1000 * MS;
		for (int i = 0; i < 2000; i++)
			t = kern(&p, t, 500 * US, GEMM, 264, 384, 168, 5 * US) + 1 * US;
		nvml(&p, 1000 * MS, 1000 * MS + 500 * MS, 0, 1980, 1e10);
		nvml(&p, 1500 * MS + 1, t, 0x40, 1400, 1e10);
	}
	run(&p, &s, &v);
	CHECK_INT(v.f[GD_R_THROTTLE].state, GD_FIRED);
	CHECK_INT(v.f[GD_R_THROTTLE].severity, GD_SEV_WARN);
	CHECK_NEAR(evv(&v.f[GD_R_THROTTLE], "clock_loss"), 1 - 1400.0 / 1980.0, 1e-9);
	done(&p, &s);

	/* memory pressure at 98 % of capacity */
	setup(&p);
	{
		int64_t t = 1000 * MS;
		for (int i = 0; i < 100; i++)
			t = kern(&p, t, 500 * US, GEMM, 264, 384, 168, 5 * US) + 1 * US;
		nvml(&p, 1000 * MS, t, 0, 1980, 0.98 * 150754820096.0);
	}
	run(&p, &s, &v);
	CHECK_INT(v.f[GD_R_MEMORY].state, GD_FIRED);
	CHECK_INT(v.f[GD_R_MEMORY].severity, GD_SEV_HIGH);
	CHECK_NEAR(evv(&v.f[GD_R_MEMORY], "peak_fraction"), 0.98, 1e-9);
	done(&p, &s);

	/* device allocations that failed for lack of memory (return value 2), NVML's peak at 60 %:
	 * two in the main loop are out-of-memory measured (high); the same two before it (a
	 * framework probing at start-up) or two failed cuMemAllocHost calls (host memory) are not;
	 * in a --metrics run (mode 3) the replay's copies may have taken the room: evidence only;
	 * and where no main loop was found (mode 4: five different kernels), nothing tells them from
	 * start-up probes: evidence only */
	for (int mode = 0; mode < 5; mode++) {
		int64_t t = 1000 * MS;
		if (mode == 3) {
			metrics_run_near_full(&p);
			struct gd_pmem *m = gd_profile_add_mem(&p);
			m->t = 1000 * MS, m->op = 1, m->bytes = 0.30 * 150754820096.0;
		} else {
			setup(&p);
			p.t_start = 100 * MS;
			p.have_api = 1;
		}
		for (int k = 0; k < 2; k++) {
			/* at start-up (mode 0), or among the loop's kernels */
			int64_t at = mode == 0 ? 500 * MS + k * MS : 1000 * MS + (20 + 40 * k) * 501 * US + 100 * US;
			struct gd_papi *a = gd_profile_add_api(&p);
			a->start = at, a->end = at + 20 * US;
			a->name = gd_profile_intern(&p, mode == 2 ? "cuMemAllocHost_v2" : "cuMemAlloc_v2");
			a->cat = GD_API_ALLOC;
			a->ret = 2;
		}
		if (mode != 3) {
			t += 2000 * MS;
			static const char *const one_off[] = {"_Z2k0v", "_Z2k1v", "_Z2k2v", "_Z2k3v", "_Z2k4v"};
			for (int i = 0; i < (mode == 4 ? 5 : 100); i++)
				t = kern(&p, t, (mode == 4 ? 10 : 1) * 500 * US, mode == 4 ? one_off[i] : GEMM, 264, 384, 168,
					 5 * US) +
				    1 * US;
			/* the loop's failures, among its kernels (mode 0's stay at start-up) */
			for (long i = p.na - 1; i >= 0 && mode; i--)
				if (p.a[i].cat == GD_API_ALLOC)
					p.a[i].start += 2000 * MS, p.a[i].end += 2000 * MS;
			p.t_end = t + 50 * MS;
			nvml(&p, 1000 * MS, t, 0, 1980, 0.60 * 150754820096.0);
		}
		run(&p, &s, &v);
		const struct gd_finding *f = &v.f[GD_R_MEMORY];
		CHECK_INT(f->state, mode == 1 ? GD_FIRED : GD_CLEAR);
		if (mode == 2)
			CHECK(isnan(evv(f, "alloc_out_of_memory")));
		else
			CHECK_NEAR(evv(f, "alloc_out_of_memory"), mode == 0 || mode == 4 ? 0 : 2, 0);
		if (mode == 1) {
			CHECK_INT(f->severity, GD_SEV_HIGH);
			CHECK(strstr(f->headline, "2 device allocations in the main loop failed for lack of memory (the first: "
						  "cuMemAlloc_v2, 2.91 s into the run)") != NULL);
		}
		for (int e = 0; e < f->nev; e++)
			if (!strcmp(f->ev[e].key, "alloc_out_of_memory"))
				CHECK_INT(strstr(f->ev[e].text, mode == 4 ? "no main loop" : "the replay's copies") != NULL,
					  mode >= 3);
		done(&p, &s);
	}

	/* the same NVML peak in a --metrics run (a launch replayed: the profiler's copies of device
	 * memory are in NVML's figure): judged on the program's allocations, 30 % of capacity, so
	 * clear; without allocation records, insufficient signal */
	for (int allocs = 0; allocs < 2; allocs++) {
		metrics_run_near_full(&p);
		if (allocs) {
			struct gd_pmem *m = gd_profile_add_mem(&p);
			m->t = 1000 * MS, m->op = 1, m->bytes = 0.30 * 150754820096.0;
		}
		run(&p, &s, &v);
		CHECK_INT(v.f[GD_R_MEMORY].state, allocs ? GD_CLEAR : GD_INSUFFICIENT);
		if (allocs)
			CHECK_NEAR(evv(&v.f[GD_R_MEMORY], "peak_fraction"), 0.30, 1e-9);
		done(&p, &s);
	}
	/* the same --metrics run whose program also maps memory with cuMemCreate (PyTorch's
	 * expandable_segments): judged on the allocation records only when every cuMemCreate call
	 * has one (by pid and correlation); one call without a record (mode 0), or whose record is
	 * another process's (mode 2), leaves its peak unknown. A call without a record that failed
	 * (mode 3: CUDA_ERROR_OUT_OF_MEMORY) allocated nothing: the two others' records are the peak */
	for (int mode = 0; mode < 4; mode++) {
		metrics_run_near_full(&p);
		for (int i = 0; i < 3; i++) {
			struct gd_papi *a = gd_profile_add_api(&p);
			a->start = 900 * MS + i * MS, a->end = a->start + 50 * US;
			a->pid = 7, a->corr = 4000000000u + (uint32_t)i;
			a->name = gd_profile_intern(&p, i < 2 ? "cuMemCreate" : "cudaMalloc_v3020");
			a->cat = GD_API_ALLOC;
			a->ret = i == 1 && mode == 3 ? 2 : 0;
			if (i == 1 && (mode == 0 || mode == 3))
				continue;
			struct gd_pmem *m = gd_profile_add_mem(&p);
			/* the same correlation in another process answers nothing */
			m->pid = i == 1 && mode == 2 ? 8 : 7, m->corr = a->corr;
			m->t = a->end, m->op = 1, m->bytes = 0.15 * 150754820096.0;
		}
		run(&p, &s, &v);
		CHECK_INT(v.f[GD_R_MEMORY].state, mode == 1 || mode == 3 ? GD_CLEAR : GD_INSUFFICIENT);
		if (mode == 1 || mode == 3) {
			CHECK_NEAR(evv(&v.f[GD_R_MEMORY], "peak_fraction"), mode == 1 ? 0.45 : 0.30, 1e-9);
		} else {
			CHECK_NEAR(evv(&v.f[GD_R_MEMORY], "vmm_unrecorded_calls"), 1, 0);
			CHECK(strstr(v.f[GD_R_MEMORY].headline, "1 of the program's 2 cuMemCreate calls") != NULL);
		}
		done(&p, &s);
	}


	/* default stream (a): two blocking streams, 300 kernels of 270 µs each, a 1-thread kernel
	 * on the legacy stream after each, the host queued ahead: they alternate (~163 ms instead
	 * of ~81 ms); the delay imposed on the blocking streams is at stake. (b) the same with the
	 * streams created non-blocking (streams.flags = 2): nothing waits for the legacy stream. */
	for (int nb = 0; nb < 2; nb++) {
		setup(&p);
		int64_t t = 1000 * MS, h = t - 30 * US;
		for (int i = 0; i < 300; i++)
			for (int sid = 14; sid <= 15; sid++) {
				/* with non-blocking streams they would overlap; the profile here keeps the
				 * same times, so only the stream flags decide */
				kern_on(&p, t, 270 * US, "_Z4workPf", 264, sid, 0, nb, h);
				t += 271 * US;
				h += 4 * US;
				kern_on(&p, t, 2 * US, "_Z4tickv", 1, 7, 1, 0, h);
				t += 3 * US;
				h += 4 * US;
			}
		nvml(&p, 1000 * MS, t, 0, 1980, 1e10);
		run(&p, &s, &v);
		CHECK_INT(v.f[GD_R_DEFAULT_STREAM].state, nb ? GD_CLEAR : GD_FIRED);
		if (!nb) {
			CHECK_INT(v.f[GD_R_DEFAULT_STREAM].severity, GD_SEV_HIGH);
			CHECK_NEAR(evv(&v.f[GD_R_DEFAULT_STREAM], "delayed_ops"), 599, 0);
			/* each kernel waited from its predecessor's end for the tick, the other stream's
			 * kernel and the next tick: 277 µs, 300 times on the stream that waited most */
			CHECK_NEAR(evv(&v.f[GD_R_DEFAULT_STREAM], "delay_ns"), 300 * 277 * US, 30 * US);
			CHECK_INT(v.order[0], GD_R_DEFAULT_STREAM);
		}
		done(&p, &s);
	}

	/* GPT-2 (b'): every kernel on the legacy stream, the only other work 4 memsets of 1 µs on
	 * streams that today's reader reports as blocking (nonblocking = 0): no crash, clear */
	setup(&p);
	{
		int64_t t = 1000 * MS, h = t - 1 * MS;
		for (int i = 0; i < 500; i++) {
			kern_on(&p, t, 500 * US, GEMM, 264, 7, 1, 0, h);
			t += 501 * US;
			h += 10 * US;
			if (i % 125 == 0) {
				struct gd_pcopy *c = gd_profile_add_copy(&p);
				c->start = t + 100 * US;
				c->end = c->start + 1 * US;
				c->kind = GD_CK_MEMSET;
				c->stream = 20 + i % 2;
				c->bytes = 4096;
			}
		}
		nvml(&p, 1000 * MS, t, 0, 1980, 1e10);
	}
	run(&p, &s, &v);
	CHECK_INT(v.f[GD_R_DEFAULT_STREAM].state, GD_CLEAR);
	CHECK_INT(v.nwarn, 0);
	done(&p, &s);

	/* a CUDA-graph replay loop: 500 replays of a 36-kernel graph, one 60 µs cudaGraphLaunch
	 * each, kernels of 3 µs with 1 µs dependency gaps between nodes: never "launch-bound, use a
	 * graph"; the gaps between nodes are reported with fusion advice */
	setup(&p);
	{
		int64_t t = 1000 * MS;
		static uint32_t corr = 100000;
		for (int r = 0; r < 500; r++) {
			struct gd_papi *a = gd_profile_add_api(&p);
			a->start = t - 62 * US;
			a->end = t - 2 * US;
			a->name = gd_profile_intern(&p, "cudaGraphLaunch_v10000");
			a->cat = GD_API_LAUNCH;
			a->corr = ++corr;
			for (int n = 0; n < 36; n++) {
				struct gd_pkernel *k = gd_profile_add_kernel(&p);
				char nm[32];
				snprintf(nm, sizeof(nm), "_Z6node%02dPf", n);
				k->start = t;
				k->end = t + 3 * US;
				k->name = k->dname = gd_profile_intern(&p, nm);
				k->grid[0] = 528;
				k->grid[1] = k->grid[2] = k->block[1] = k->block[2] = 1;
				k->block[0] = 256;
				k->regs = 32;
				k->stream = 13;
				k->graph_id = 7;
				k->corr = corr;
				t += 4 * US;
			}
			t += 1 * US;
		}
		nvml(&p, 1000 * MS, t, 0, 1980, 1e10);
	}
	run(&p, &s, &v);
	CHECK_INT(v.f[GD_R_LAUNCH].state, GD_FIRED);
	CHECK(strstr(v.f[GD_R_LAUNCH].headline, "inside CUDA graphs") != NULL);
	CHECK(strstr(v.f[GD_R_LAUNCH].advice, "use a CUDA Graph") == NULL);
	CHECK(strstr(v.f[GD_R_LAUNCH].advice, "fuse") != NULL);
	CHECK_NEAR(evv(&v.f[GD_R_LAUNCH], "short_kernels"), 0, 0);
	/* 35 gaps per replay; the first replay's are first launches (warm-up, not judged) */
	CHECK_NEAR(evv(&v.f[GD_R_LAUNCH], "graph_node_gap_ns"), 499 * 35 * US, 1);
	done(&p, &s);

	/* concurrent kernels: two non-blocking streams each running a 128-block kernel side by
	 * side on 132 SMs: the SMs were not idle, no low_occupancy warning; the same kernel alone,
	 * one after the other, leaves 4 SMs idle (3 % of its time: info at most) */
	for (int side = 1; side >= 0; side--) {
		setup(&p);
		int64_t t = 1000 * MS;
		for (int i = 0; i < 400; i++) {
			kern_on(&p, t, 1 * MS, "_Z7stencilPf", 128, 13, 0, 1, t - 10 * US);
			if (side)
				kern_on(&p, t, 1 * MS, "_Z7stencilPf", 128, 14, 0, 1, t - 6 * US);
			else {
				t += 1 * MS + 1 * US;
				kern_on(&p, t, 1 * MS, "_Z7stencilPf", 128, 14, 0, 1, t - 6 * US);
			}
			t += 1 * MS + 1 * US;
		}
		nvml(&p, 1000 * MS, t, 0, 1980, 1e10);
		run(&p, &s, &v);
		if (side) {
			CHECK_INT(v.f[GD_R_OCCUPANCY].state, GD_CLEAR);
			CHECK_NEAR(evv(&v.f[GD_R_OCCUPANCY], "ran_alone_fraction"), 0, 1e-9);
		} else {
			CHECK_INT(v.f[GD_R_OCCUPANCY].state, GD_FIRED);
			CHECK_INT(v.f[GD_R_OCCUPANCY].severity, GD_SEV_INFO);
			CHECK_NEAR(v.f[GD_R_OCCUPANCY].share * s.span_ns, 800 * MS * 4.0 / 132, 1e5);
		}
		CHECK(v.nwarn == 0);
		done(&p, &s);
	}

	/* steady state: 48 pageable uploads once before a clean loop (model.cuda()) are start-up
	 * evidence, and the verdict line says why the GPU was idle most of the wall time; the same
	 * upload in every step is high */
	for (int every = 0; every < 2; every++) {
		setup(&p);
		int64_t t = 1000 * MS;
		p.t_start = 100 * MS;
		p.have_api = 1;
		for (int i = 0; i < (every ? 0 : 48); i++) {
			struct gd_pcopy *c = gd_profile_add_copy(&p);
			c->start = t;
			c->end = t + 2400 * US;
			c->bytes = 16 << 20;
			c->kind = GD_CK_HTOD;
			c->src_kind = GD_MK_PAGEABLE;
			c->dst_kind = GD_MK_DEVICE;
			t = c->end + 10 * US;
		}
		t += 2000 * MS;
		for (int i = 0; i < 100; i++) {
			if (every) {
				struct gd_pcopy *c = gd_profile_add_copy(&p);
				c->start = t;
				c->end = t + 2400 * US;
				c->bytes = 16 << 20;
				c->kind = GD_CK_HTOD;
				c->src_kind = GD_MK_PAGEABLE;
				c->dst_kind = GD_MK_DEVICE;
				t = c->end + 1 * US;
			}
			t = kern(&p, t, 1 * MS, GEMM, 264, 384, 168, 5 * US) + 1 * US;
		}
		p.t_end = t + 50 * MS;
		nvml(&p, 1000 * MS, t, 0, 1980, 1e10);
		run(&p, &s, &v);
		if (every) {
			CHECK_INT(v.f[GD_R_PAGEABLE].severity, GD_SEV_HIGH);
			CHECK_NEAR(evv(&v.f[GD_R_PAGEABLE], "pageable_copies"), 99, 0); /* the first precedes the loop */
		} else {
			CHECK_INT(v.f[GD_R_PAGEABLE].state, GD_CLEAR);
			CHECK_NEAR(evv(&v.f[GD_R_PAGEABLE], "startup_pageable_copies"), 48, 0);
			CHECK_INT(v.nwarn, 0);
			CHECK(v.loop_found);
			CHECK_INT(v.loop_first_kernel, 0);
			CHECK(strstr(v.top_line, "No problem found") == v.top_line);
			CHECK(strstr(v.top_line, "before the first GPU work") != NULL);
			CHECK(strstr(v.top_line, "2.00 s in 48 gaps before the main loop (largest 2.00 s") != NULL);
			CHECK(strstr(v.top_line, "the main loop kept the GPU") != NULL);
		}
		done(&p, &s);
	}

	/* counters (issue 18): a loop of elementwise kernels whose counters show DRAM at 85 % of
	 * peak and SM issue at 15 %, and a user kernel (kind "other" by name) at DRAM 50 % read +
	 * 35 % write: both memory-bound, measured; the name alone would count half */
	setup(&p);
	{
		const char *ew = "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>";
		int64_t t = 1000 * MS;
		for (int i = 0; i < 100; i++) {
			t = kern(&p, t, 1 * MS, ew, 1056, 256, 32, 5 * US) + 1 * US;
			t = kern(&p, t, 1 * MS, "_Z7stencilPf", 1056, 256, 32, 5 * US) + 1 * US;
		}
		nvml(&p, 1000 * MS, t, 0, 1980, 1e10);
		snprintf(p.counters, sizeof(p.counters), "ok");
		kcounters(&p, ew, 900, 97, 15, 0, 85);
		kcounters(&p, "_Z7stencilPf", 900, 96, 20, 0, NAN);
		p.kpm[p.nkpm - 1].v[GD_PM_DRAM_READ] = 50;
		p.kpm[p.nkpm - 1].v[GD_PM_DRAM_WRITE] = 35;
	}
	run(&p, &s, &v);
	CHECK_INT(v.f[GD_R_MEMBOUND].state, GD_FIRED);
	CHECK_INT(v.f[GD_R_MEMBOUND].severity, GD_SEV_WARN);
	CHECK_INT(v.f[GD_R_MEMBOUND].basis, GD_BASIS_COUNTERS);
	CHECK_NEAR(evv(&v.f[GD_R_MEMBOUND], "memory_bound_fraction"), 1.0, 1e-9);
	CHECK_NEAR(evv(&v.f[GD_R_MEMBOUND], "kernel1_dram_fraction"), 0.85, 1e-9);
	CHECK_NEAR(evv(&v.f[GD_R_MEMBOUND], "kernel2_dram_fraction"), 0.85, 1e-9);
	CHECK_NEAR(evv(&v.f[GD_R_MEMBOUND], "measured_fraction"), 1.0, 1e-9);
	CHECK(strstr(evt(&v.f[GD_R_MEMBOUND], "kernel1_dram_fraction"), "DRAM 85 % of peak, SM issue 15 %") != NULL);
	CHECK(strstr(evt(&v.f[GD_R_MEMBOUND], "kernel1_dram_fraction"), "50.0 % of kernel time (900 samples)") != NULL);
	CHECK(strstr(v.f[GD_R_MEMBOUND].headline, "100.0 % measured by DRAM throughput") != NULL);
	CHECK_INT(v.f[GD_R_LATENCY].state, GD_CLEAR); /* DRAM near its peak: bandwidth, not latency */
	done(&p, &s);

	/* a kernel named elementwise whose counters show DRAM 5 %, SM issue 10 % with the SMs 95 %
	 * active: not memory-bound (the name is overruled), latency-bound */
	setup(&p);
	{
		const char *ew = "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>";
		int64_t t = 1000 * MS;
		for (int i = 0; i < 100; i++)
			t = kern(&p, t, 1 * MS, ew, 1056, 256, 32, 5 * US) + 1 * US;
		nvml(&p, 1000 * MS, t, 0, 1980, 1e10);
		snprintf(p.counters, sizeof(p.counters), "ok");
		kcounters(&p, ew, 900, 95, 10, 0, 5);
	}
	run(&p, &s, &v);
	CHECK_INT(v.f[GD_R_MEMBOUND].state, GD_CLEAR);
	CHECK_NEAR(evv(&v.f[GD_R_MEMBOUND], "memory_bound_fraction"), 0, 0);
	CHECK_NEAR(evv(&v.f[GD_R_MEMBOUND], "names_overruled_fraction"), 1.0, 1e-9);
	CHECK_INT(v.f[GD_R_LATENCY].state, GD_FIRED);
	CHECK_INT(v.f[GD_R_LATENCY].severity, GD_SEV_HIGH);
	CHECK_INT(v.f[GD_R_LATENCY].basis, GD_BASIS_COUNTERS);
	CHECK_NEAR(evv(&v.f[GD_R_LATENCY], "latency_bound_fraction"), 1.0, 1e-9);
	CHECK_NEAR(evv(&v.f[GD_R_LATENCY], "kernel1_sm_issue_fraction"), 0.10, 1e-9);
	CHECK_NEAR(v.f[GD_R_LATENCY].share, 100.0 * MS / (100 * MS + 99 * US), 1e-9);
	CHECK(strstr(evt(&v.f[GD_R_LATENCY], "kernel1_sm_issue_fraction"), "SM active 95 %, SM issue 10 %, DRAM 5.0 %") !=
	      NULL);
	CHECK_STR(v.f[GD_R_LATENCY].kernel, "vectorized_elementwise_kernel<FillFunctor>");
	CHECK_INT(v.order[0], GD_R_LATENCY);
	done(&p, &s);

	/* tensor cores measured: (a) an sgemm-named kernel whose tensor pipe is 70 % active is not
	 * FP32 CUDA-core math (nor latency-bound: the tensor pipe is busy); (b) a bf16 tensor-op
	 * GEMM by name with the pipe 1 % active is, measured; (c) the same at DRAM 80 % (a GEMV at
	 * the bandwidth line) is not: tensor cores would not make it faster */
	for (int tc = 0; tc < 3; tc++) {
		setup(&p);
		const char *g = tc == 0 ? "ampere_sgemm_128x64_nn" : GEMM;
		int64_t t = 1000 * MS;
		for (int i = 0; i < 100; i++)
			t = kern(&p, t, 4 * MS, g, 528, 256, 120, 5 * US) + 1 * US;
		nvml(&p, 1000 * MS, t, 0, 1980, 1e10);
		snprintf(p.counters, sizeof(p.counters), "ok");
		if (tc == 0)
			kcounters(&p, g, 3900, 95, 25, 70, 20);
		else
			kcounters(&p, g, 3900, 95, 70, 1, tc == 2 ? 80 : 20);
		run(&p, &s, &v);
		CHECK_INT(v.f[GD_R_TENSOR].state, tc == 1 ? GD_FIRED : GD_CLEAR);
		CHECK_INT(v.f[GD_R_TENSOR].basis, GD_BASIS_COUNTERS);
		CHECK_INT(v.f[GD_R_LATENCY].state, GD_CLEAR);
		if (tc == 0)
			CHECK_NEAR(evv(&v.f[GD_R_TENSOR], "names_overruled_fraction"), 1.0, 1e-9);
		if (tc == 1) {
			CHECK_INT(v.f[GD_R_TENSOR].severity, GD_SEV_HIGH);
			CHECK_NEAR(evv(&v.f[GD_R_TENSOR], "fp32_simt_fraction"), 1.0, 1e-9);
			CHECK_NEAR(evv(&v.f[GD_R_TENSOR], "kernel1_tensor_fraction"), 0.01, 1e-9);
			CHECK(strstr(evt(&v.f[GD_R_TENSOR], "kernel1_tensor_fraction"), "tensor pipe 1.0 %") != NULL);
			CHECK(strstr(evt(&v.f[GD_R_TENSOR], "kernel1_tensor_fraction"), "100.0 % of kernel time") != NULL);
			CHECK(strstr(v.f[GD_R_TENSOR].headline, "tensor pipe idle (measured") != NULL);
		}
		CHECK_NEAR(evv(&v.f[GD_R_TENSOR], "fp32_simt_fraction"), tc == 1 ? 1.0 : 0.0, 1e-9);
		done(&p, &s);
	}

	/* no counters in the profile: both name rules judge as before and say why, the latency
	 * rule has insufficient signal; an old profile (counters not said) says nothing more */
	for (int why = 0; why < 3; why++) {
		const char *ew = "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>";
		setup(&p);
		int64_t t = 1000 * MS;
		for (int i = 0; i < 100; i++) {
			t = kern(&p, t, 4 * MS, ew, 1056, 256, 32, 5 * US) + 1 * US;
			t = kern(&p, t, 4 * MS, "ampere_sgemm_128x64_nn", 528, 256, 120, 5 * US) + 1 * US;
		}
		nvml(&p, 1000 * MS, t, 0, 1980, 1e10);
		snprintf(p.counters, sizeof(p.counters), "%s",
			 why == 0 ? "no counters: CUPTI_ERROR_INSUFFICIENT_PRIVILEGES" : why == 1 ? "off" : "");
		const char *want = why == 0 ? "no counters: CUPTI_ERROR_INSUFFICIENT_PRIVILEGES"
				 : why == 1 ? "no counters: switched off (--no-counters)" : NULL;
		run(&p, &s, &v);
		CHECK_INT(v.f[GD_R_MEMBOUND].state, GD_FIRED);
		CHECK_INT(v.f[GD_R_MEMBOUND].basis, GD_BASIS_NAMES);
		CHECK_NEAR(evv(&v.f[GD_R_MEMBOUND], "memory_bound_fraction"), 0.5, 1e-9);
		CHECK_INT(v.f[GD_R_TENSOR].state, GD_FIRED);
		CHECK_INT(v.f[GD_R_TENSOR].severity, GD_SEV_HIGH);
		CHECK_INT(v.f[GD_R_TENSOR].basis, GD_BASIS_NAMES);
		CHECK_NEAR(evv(&v.f[GD_R_TENSOR], "fp32_simt_fraction"), 0.5, 1e-9);
		CHECK_INT(v.f[GD_R_LATENCY].state, GD_INSUFFICIENT);
		if (want) {
			CHECK(strstr(evt(&v.f[GD_R_MEMBOUND], "counters"), want) == evt(&v.f[GD_R_MEMBOUND], "counters"));
			CHECK(strstr(evt(&v.f[GD_R_TENSOR], "counters"), want) != NULL);
			CHECK(strstr(v.f[GD_R_LATENCY].headline, want) != NULL);
		} else {
			CHECK_INT(v.f[GD_R_MEMBOUND].nev, 3); /* as before counters existed */
			CHECK_INT(v.f[GD_R_TENSOR].nev, 3);
			CHECK(strstr(v.f[GD_R_LATENCY].headline, "the profile has no GPU counters") != NULL);
		}
		done(&p, &s);
	}

	/* ---- per-kernel counters (issue 19) ---- */
	/* uncoalesced (§7): a kernel beside its coalesced twin (4 sectors per request, all used);
	 * fired only below 50 % used at more than 8 sectors per request: 8-byte unit-stride (8,
	 * all used) and float4 loads (16, all used) are coalesced, and so is 8 at 25 % (≤ 8) */
	{
		static const struct {
			double spr, used;
			int fired;
		} cs[] = {{32, 12.5, 1}, {4, 100, 0}, {8, 100, 0}, {16, 100, 0}, {16, 49, 1}, {8, 25, 0}, {16, 50, 0}};
		const char *names[] = {"_Z7stridedPfi", "_Z9coalescedPf"};
		struct gd_kc_kernel k[2];
		for (size_t i = 0; i < sizeof(cs) / sizeof(cs[0]); i++) {
			kc_loop(&p, names, 2, 10560, 256, 32);
			k[0] = kc_new(&p, names[0], 4 * MS);
			k[1] = kc_new(&p, names[1], 4 * MS);
			kc_access(&k[0], 0, cs[i].spr * 1e6, 1e6, cs[i].used);
			kc_access(&k[0], 1, 4e6, 1e6, 100);
			kc_access(&k[1], 0, 4e6, 1e6, 100);
			kc_access(&k[1], 1, 4e6, 1e6, 100);
			run_kc(&p, &s, &v, k, 2);
			const struct gd_finding *f = &v.f[GD_R_UNCOALESCED];
			CHECK_INT(f->state, cs[i].fired ? GD_FIRED : GD_CLEAR);
			CHECK_INT(f->basis, GD_BASIS_KCOUNTERS);
			CHECK_NEAR(evv(f, "judged_fraction"), 1.0, 1e-9);
			CHECK_NEAR(evv(f, "uncoalesced_fraction"), cs[i].fired ? 0.5 : 0, 1e-3);
			if (i == 0) {
				/* at stake: its half of the time × the 896 of its 1152 MB of sector bytes unused */
				CHECK_INT(f->severity, GD_SEV_HIGH);
				CHECK_NEAR(f->share, 0.5 * 896.0 / 1152.0, 1e-3);
				CHECK_STR(f->kernel, "strided");
				CHECK_NEAR(evv(f, "kernel1_sectors_per_request"), 32, 1e-9);
				CHECK_NEAR(evv(f, "kernel1_used_fraction"), 0.125, 1e-9);
				CHECK_NEAR(evv(f, "kernel1_wasted_bytes"), 32e6 * 32 * 0.875, 1);
				CHECK(strstr(f->headline, "accesses global memory uncoalesced: 32.0 sectors per request (ideal 4)") != NULL);
				CHECK(strstr(evt(f, "kernel1_sectors_per_request"), "global loads take") != NULL);
				CHECK_INT(v.order[0], GD_R_UNCOALESCED);
			}
			done(&p, &s);
		}
		/* a --metrics run's span is inflated by kernel replay (on the H200: 0.64 ms of kernels over
		 * a 3.9 s span): the stake is of kernel time, so the same kernel is judged the same when
		 * 100 s of replay gaps follow its loop */
		kc_loop(&p, names, 2, 10560, 256, 32);
		kern(&p, 1000 * MS + 100000 * MS, 1 * US, names[1], 10560, 256, 32, 5 * US);
		k[0] = kc_new(&p, names[0], 4 * MS);
		k[1] = kc_new(&p, names[1], 4 * MS);
		kc_access(&k[0], 0, 32e6, 1e6, 12.5);
		kc_access(&k[0], 1, 4e6, 1e6, 100);
		kc_access(&k[1], 0, 4e6, 1e6, 100);
		kc_access(&k[1], 1, 4e6, 1e6, 100);
		run_kc(&p, &s, &v, k, 2);
		CHECK_INT(v.f[GD_R_UNCOALESCED].state, GD_FIRED);
		CHECK_INT(v.f[GD_R_UNCOALESCED].severity, GD_SEV_HIGH);
		CHECK_NEAR(v.f[GD_R_UNCOALESCED].share, 0.5 * 896.0 / 1152.0, 1e-3);
		CHECK(strstr(v.f[GD_R_UNCOALESCED].headline, "of kernel time at stake") != NULL);
		done(&p, &s);
		/* a library GEMM for unaligned operands ("align1"): the advice names the cause, a
		 * dimension not a multiple of 8; the aligned "align8" one gets the advice for a
		 * library's kernel (the call, not its code), the program's own kernel the general one */
		for (int cs2 = 0; cs2 < 3; cs2++) {
			const char *g[] = {"void cutlass::Kernel2<cutlass_75_tensorop_bf16_s1688gemm_bf16_128x128_tn_align1>",
					   "void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_bf16_128x128_tn_align8>",
					   "_Z11align1_copyPf"};
			const char *nm2[] = {g[cs2], names[1]};
			kc_loop(&p, nm2, 2, 10560, 256, 32);
			k[0] = kc_new(&p, nm2[0], 4 * MS);
			k[1] = kc_new(&p, nm2[1], 4 * MS);
			kc_access(&k[0], 0, 16e6, 1e6, 12);
			kc_access(&k[1], 0, 4e6, 1e6, 100);
			run_kc(&p, &s, &v, k, 2);
			const struct gd_finding *f = &v.f[GD_R_UNCOALESCED];
			CHECK_INT(f->state, GD_FIRED);
			CHECK_INT(strstr(f->advice, "not a multiple of 8 elements") != NULL, cs2 == 0);
			CHECK_INT(strstr(evt(f, "gemm_unaligned"), "\"align1\" in its name") != NULL, cs2 == 0);
			/* the aligned GEMM is a library's: the advice is about the call */
			CHECK_INT(strstr(f->advice, "not the program's code") != NULL, cs2 == 1);
			CHECK_INT(strstr(f->advice, "consecutive addresses") != NULL, cs2 == 2);
			done(&p, &s);
		}
		/* --metrics=basic: sectors and requests only, no bytes used per sector: not judged */
		kc_loop(&p, names, 1, 10560, 256, 32);
		k[0] = kc_new(&p, names[0], 4 * MS);
		k[0].q[GD_KC_LD_SECTORS] = 32e6;
		k[0].q[GD_KC_LD_REQUESTS] = 1e6;
		run_kc(&p, &s, &v, k, 1);
		CHECK_INT(v.f[GD_R_UNCOALESCED].state, GD_INSUFFICIENT);
		CHECK_INT(v.f[GD_R_DIVERGENCE].state, GD_INSUFFICIENT);
		CHECK_INT(v.f[GD_R_ROOFLINE].state, GD_INSUFFICIENT);
		done(&p, &s);
	}

	/* divergence (§8): 14 threads per instruction fires (at stake: its half × 18/32 lanes idle);
	 * 30 and exactly 24 do not */
	{
		const double tpi[] = {14, 30, 24};
		const char *names[] = {"_Z7branchyPfi", "_Z9coalescedPf"};
		for (int i = 0; i < 3; i++) {
			struct gd_kc_kernel k[2];
			kc_loop(&p, names, 2, 10560, 256, 32);
			k[0] = kc_new(&p, names[0], 4 * MS);
			k[1] = kc_new(&p, names[1], 4 * MS);
			k[0].threads_per_inst = tpi[i];
			k[1].threads_per_inst = 32;
			run_kc(&p, &s, &v, k, 2);
			const struct gd_finding *f = &v.f[GD_R_DIVERGENCE];
			CHECK_INT(f->state, i == 0 ? GD_FIRED : GD_CLEAR);
			if (i == 0) {
				CHECK_INT(f->severity, GD_SEV_HIGH);
				CHECK_INT(f->basis, GD_BASIS_KCOUNTERS);
				CHECK_NEAR(f->share, 0.5 * 18.0 / 32.0, 1e-3);
				CHECK_NEAR(evv(f, "kernel1_threads_per_inst"), 14, 0);
				CHECK_STR(f->kernel, "branchy");
				CHECK(strstr(f->headline, "14.0 of 32 threads per executed instruction") != NULL);
			}
			CHECK_NEAR(evv(f, "divergent_fraction"), i == 0 ? 0.5 : 0, 1e-3);
			/* no coalescing counters: that rule says so, divergence is judged all the same */
			CHECK_INT(v.f[GD_R_UNCOALESCED].state, GD_INSUFFICIENT);
			done(&p, &s);
		}
	}

	/* occupancy (§6) measured: 10 full waves of 100 %-occupancy blocks (nothing for the
	 * calculator to see) reaching 40 % achieved is an imbalance/tail; 90 % is fine; a
	 * register-limited 12.5 % names its limiter with the achieved figure beside it */
	for (int cs = 0; cs < 4; cs++) {
		const char *nm[] = {"_Z7stencilPf"};
		struct gd_kc_kernel k[1];
		kc_loop(&p, nm, 1, 10560, 256, cs == 3 ? 255 : 32);
		k[0] = kc_new(&p, nm[0], 4 * MS);
		k[0].theoretical_occ_pct = cs == 3 ? 12.5 : 100;
		k[0].achieved_occ_pct = cs == 0 ? 40 : cs == 1 ? 90 : cs == 3 ? 12 : NAN;
		k[0].occ_limiter = cs == 3 ? "registers" : NULL;
		run_kc(&p, &s, &v, k, 1);
		const struct gd_finding *f = &v.f[GD_R_OCCUPANCY];
		CHECK_INT(f->state, cs == 0 || cs == 3 ? GD_FIRED : GD_CLEAR);
		if (cs == 0) {
			CHECK_INT(f->severity, GD_SEV_WARN);
			CHECK_INT(f->basis, GD_BASIS_KCOUNTERS);
			CHECK_NEAR(f->share, 0.5 * (1 - 0.4), 1e-3);
			CHECK_NEAR(evv(f, "achieved_occupancy"), 0.40, 1e-9);
			CHECK(strstr(f->headline, "achieved occupancy 40 % (measured) of a theoretical 100 %") != NULL);
			CHECK(strstr(f->headline, "tail wave or blocks of unequal work") != NULL);
			CHECK(strstr(f->advice, "balance the work") != NULL);
		}
		if (cs == 3) {
			CHECK_INT(f->basis, GD_BASIS_KCOUNTERS);
			CHECK(strstr(f->headline, "theoretical occupancy 12 %, limited by registers (achieved 12 %, measured)") != NULL);
		}
		if (cs == 2) /* no achieved figure: as without counters */
			CHECK(isnan(evv(f, "achieved_occupancy")));
		done(&p, &s);
	}

	/* roofline (§10): (0) a kernel named elementwise at 85 % of the DRAM roof is a note "at
	 * the roof", and the memory-bound rule does not count it again; (1) a latency-bound
	 * pointer chase at 20 % of its roof and 18 % of DRAM is the high finding, and the latency
	 * rule, whose PM samples say the same, leaves it to the roofline; (2) "latency" by FLOPs
	 * and bytes with SM throughput at 75 % is bound by the SM (integer, shared memory);
	 * (3) a tensor GEMM whose CUDA-core FLOPs are few is compute-bound on the tensor pipe;
	 * (4) as (2) without the SM speed of light (the default set): its LSU pipe at 72 %, the
	 * busiest unit measured, names the unit; (5) without either speed of light, its SM units
	 * low and its L1 data pipe at 81 %: memory-bound on L1 */
	for (int cs = 0; cs < 6; cs++) {
		const char *ew = "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>";
		const char *nm[] = {cs == 0 ? ew : cs == 3 ? GEMM : "_Z5chasePiS_"};
		struct gd_kc_kernel k[1];
		kc_loop(&p, nm, 1, 10560, 256, 32);
		snprintf(p.counters, sizeof(p.counters), "ok");
		if (cs == 1)
			kcounters(&p, nm[0], 900, 95, 10, 0, 5);
		k[0] = kc_new(&p, nm[0], 4 * MS);
		if (cs == 0)
			kc_roof(&k[0], GD_KB_MEMORY, 85, 85, 20, 88);
		else if (cs == 1) {
			kc_roof(&k[0], GD_KB_LATENCY, 20, 18, 25, 20);
			k[0].stall[0] = GD_KC_STALL_LONG_SCOREBOARD;
			k[0].stall_pct[0] = 62;
		} else if (cs == 2)
			kc_roof(&k[0], GD_KB_LATENCY, 20, 18, 75, 20);
		else if (cs == 4) {
			kc_roof(&k[0], GD_KB_LATENCY, 20, 18, NAN, 20);
			k[0].q[GD_KC_LSU_PCT] = k[0].sm_busy_pct = 72;
			k[0].sm_busy = GD_KC_LSU_PCT;
		} else if (cs == 5) {
			kc_roof(&k[0], GD_KB_LATENCY, 20, 18, NAN, NAN);
			k[0].q[GD_KC_ISSUE_PCT] = k[0].sm_busy_pct = 35;
			k[0].sm_busy = GD_KC_ISSUE_PCT;
			k[0].q[GD_KC_L1_WAVE_PCT] = k[0].mem_busy_pct = 81;
			k[0].mem_busy = GD_KC_L1_WAVE_PCT;
		} else {
			kc_roof(&k[0], GD_KB_LATENCY, 2, 10, 70, 30);
			k[0].tensor_inst = 5e6;
			k[0].q[GD_KC_TENSOR_ACTIVE] = 70;
		}
		run_kc(&p, &s, &v, k, 1);
		const struct gd_finding *f = &v.f[GD_R_ROOFLINE];
		CHECK_INT(f->state, GD_FIRED);
		CHECK_INT(f->basis, GD_BASIS_KCOUNTERS);
		CHECK_INT(f->severity, cs == 1 ? GD_SEV_HIGH : GD_SEV_INFO);
		CHECK_NEAR(evv(f, "ceiling_measured"), 1, 0);
		CHECK(strstr(evt(f, "ceiling_measured"), "measured by gpudiag roofline 2026-12-03") != NULL);
		CHECK_NEAR(evv(f, "placed_fraction"), 1.0, 1e-9);
		if (cs == 0) {
			CHECK(strstr(f->headline, "At the roof: ") == f->headline);
			CHECK(strstr(f->headline, "memory-bound at 85 % of the DRAM ceiling") != NULL);
			CHECK(strstr(evt(f, "kernel1_roof_fraction"), "DRAM 3.40 TB/s = 85 % of the 4.00 TB/s ceiling") != NULL);
			CHECK_NEAR(evv(f, "kernel1_roof_fraction"), 0.85, 1e-9);
			CHECK(isnan(f->share));
			CHECK_INT(v.f[GD_R_MEMBOUND].state, GD_CLEAR);
			CHECK_NEAR(evv(&v.f[GD_R_MEMBOUND], "memory_bound_fraction"), 0, 0);
		}
		if (cs == 1) {
			CHECK_NEAR(f->share, 0.8, 1e-3);
			CHECK_NEAR(evv(f, "latency_bound_fraction"), 1.0, 1e-9);
			CHECK(strstr(f->headline, "latency-bound: 20 % of its roof, DRAM at 18 % of its ceiling") != NULL);
			CHECK(strstr(f->advice, "long scoreboard (global/local memory) 62 %") != NULL);
			CHECK_INT(v.f[GD_R_LATENCY].state, GD_INSUFFICIENT);
			CHECK(strstr(v.f[GD_R_LATENCY].headline, "roofline") != NULL);
			CHECK_INT(v.order[0], GD_R_ROOFLINE);
		}
		if (cs == 2)
			CHECK(strstr(f->headline, "compute-bound at 75 % of SM throughput") != NULL);
		if (cs == 4)
			CHECK(strstr(f->headline, "compute-bound at 72 % of the LSU pipe's peak") != NULL);
		if (cs == 5)
			CHECK(strstr(f->headline, "memory-bound at 81 % of L1/shared-memory throughput") != NULL);
		if (cs == 3) {
			CHECK(strstr(f->headline, "compute-bound at 70 % of the tensor pipe's peak") != NULL);
			CHECK_INT(v.f[GD_R_TENSOR].state, GD_CLEAR);
			CHECK_INT(v.f[GD_R_TENSOR].basis, GD_BASIS_KCOUNTERS);
		}
		done(&p, &s);
		/* the same profiles without kernel counters: the older rules judge them as before */
		kc_loop(&p, nm, 1, 10560, 256, 32);
		snprintf(p.counters, sizeof(p.counters), "ok");
		if (cs == 1)
			kcounters(&p, nm[0], 900, 95, 10, 0, 5);
		run(&p, &s, &v);
		CHECK_INT(v.f[GD_R_ROOFLINE].state, GD_NOT_APPLICABLE);
		if (cs == 0) {
			CHECK_INT(v.f[GD_R_MEMBOUND].state, GD_FIRED);
			CHECK_INT(v.f[GD_R_MEMBOUND].basis, GD_BASIS_NAMES);
		}
		if (cs == 1)
			CHECK_INT(v.f[GD_R_LATENCY].state, GD_FIRED);
		done(&p, &s);
	}

	/* a symptom below its cause: a latency-bound kernel whose cause another rule names is a
	 * note of the roofline that points there: (0) a grid of 8 blocks on 132 SMs (occupancy
	 * ranks first), (1) 12 of 32 threads per instruction (divergence ranks first), (2) 1 µs
	 * launches behind 5 µs launch calls (the launch rule's); (3) none of these: the roofline's
	 * own finding, as before */
	for (int cs = 0; cs < 4; cs++) {
		const char *nm[] = {"_Z5chasePiS_"};
		struct gd_kc_kernel k[1];
		if (cs == 2) {
			int64_t t = 1000 * MS;
			setup(&p);
			for (int i = 0; i < 2000; i++)
				t = kern(&p, t, 1 * US, nm[0], 10560, 256, 32, 5 * US) + 6 * US;
			nvml(&p, 1000 * MS, t, 0, 1980, 1e10);
		} else {
			kc_loop(&p, nm, 1, cs == 0 ? 8 : 10560, 256, 32);
		}
		k[0] = kc_new(&p, nm[0], cs == 2 ? 1 * US : 4 * MS);
		kc_roof(&k[0], GD_KB_LATENCY, 20, 18, 25, 20);
		if (cs == 1)
			k[0].threads_per_inst = 12;
		run_kc(&p, &s, &v, k, 1);
		const struct gd_finding *f = &v.f[GD_R_ROOFLINE];
		CHECK_INT(f->state, GD_FIRED);
		CHECK_INT(f->severity, cs == 3 ? GD_SEV_HIGH : GD_SEV_INFO);
		if (cs < 3) {
			const char *why[] = {"(the occupancy finding)", "(the divergence finding)", "(the launch finding)"};
			CHECK(strstr(f->headline, why[cs]) != NULL);
			CHECK(strstr(evt(f, "latency_explained_fraction"), why[cs]) != NULL);
			CHECK_NEAR(evv(f, "latency_bound_fraction"), 0, 0);
			int cause = cs == 0 ? GD_R_OCCUPANCY : cs == 1 ? GD_R_DIVERGENCE : GD_R_LAUNCH;
			CHECK_INT(v.f[cause].state, GD_FIRED);
			CHECK(rank_of(&v, cause) < rank_of(&v, GD_R_ROOFLINE));
		}
		done(&p, &s);
	}

	/* the guide's order (§14): at equal severity the run's timeline ranks above a kernel's
	 * insides, whatever the shares: a sync that blocks 150 µs of every 1.2 ms iteration
	 * (warning, ≈ 13 % of the judged span) above a kernel with 18 of 32 threads per
	 * instruction in half the kernel time (warning, 22 % of kernel time) */
	{
		const char *nm[] = {"_Z7diverge", "_Z6stream"};
		struct gd_kc_kernel k[2];
		int64_t t = 1000 * MS;
		setup(&p);
		kern(&p, t - 2 * MS, 10 * US, nm[1], 10560, 256, 32, 0);
		for (int i = 0; i < 50; i++) {
			int64_t e = kern(&p, t, 500 * US, nm[0], 10560, 256, 32, 5 * US) + 1 * US;
			e = kern(&p, e, 500 * US, nm[1], 10560, 256, 32, 5 * US);
			sync_call(&p, e - 150 * US, e + 5 * US, "cudaDeviceSynchronize_v3020");
			t = e + 200 * US;
		}
		nvml(&p, 1000 * MS, t, 0, 1980, 1e10);
		k[0] = kc_new(&p, nm[0], 500 * US);
		k[0].threads_per_inst = 18;
		k[1] = kc_new(&p, nm[1], 500 * US);
		k[1].threads_per_inst = 32;
		run_kc(&p, &s, &v, k, 2);
		CHECK_INT(v.f[GD_R_SYNC].state, GD_FIRED);
		CHECK_INT(v.f[GD_R_SYNC].severity, GD_SEV_WARN);
		CHECK_INT(v.f[GD_R_DIVERGENCE].state, GD_FIRED);
		CHECK_INT(v.f[GD_R_DIVERGENCE].severity, GD_SEV_WARN);
		CHECK(v.f[GD_R_DIVERGENCE].share > v.f[GD_R_SYNC].share);
		CHECK_INT(v.order[0], GD_R_SYNC);
		done(&p, &s);
	}

	/* divergence inside PyTorch's own kernel: the advice is about the call (the op, its
	 * indices), not about writing the kernel */
	{
		const char *nm[] = {"void at::native::indexing_backward_kernel_stride_1<c10::BFloat16>(long const*)"};
		struct gd_kc_kernel k[1];
		kc_loop(&p, nm, 1, 10560, 256, 32);
		k[0] = kc_new(&p, nm[0], 4 * MS);
		k[0].threads_per_inst = 12;
		run_kc(&p, &s, &v, k, 1);
		CHECK_INT(v.f[GD_R_DIVERGENCE].state, GD_FIRED);
		CHECK(strstr(v.f[GD_R_DIVERGENCE].advice, "This kernel is PyTorch ATen's") == v.f[GD_R_DIVERGENCE].advice);
		CHECK(strstr(v.f[GD_R_DIVERGENCE].advice, "torch.where") != NULL);
		CHECK(strstr(v.f[GD_R_DIVERGENCE].advice, "(§8).") != NULL);
		done(&p, &s);
	}

	/* a kernel at its roof is not short of warps: achieved occupancy 15 % of a theoretical
	 * 19 % (a persistent GEMM holding one block per SM) at 90 % of its compute roof is clear;
	 * at 50 % of it, the occupancy finding stands */
	for (int cs = 0; cs < 2; cs++) {
		const char *nm[] = {"_Z4gemmPf"};
		struct gd_kc_kernel k[1];
		kc_loop(&p, nm, 1, 132, 384, 168);
		k[0] = kc_new(&p, nm[0], 4 * MS);
		kc_roof(&k[0], GD_KB_COMPUTE, cs == 0 ? 90 : 50, 10, cs == 0 ? 90 : 50, 20);
		k[0].theoretical_occ_pct = 19;
		k[0].achieved_occ_pct = 15;
		run_kc(&p, &s, &v, k, 1);
		CHECK_INT(v.f[GD_R_OCCUPANCY].state, cs == 0 ? GD_CLEAR : GD_FIRED);
		done(&p, &s);
	}

	/* tensor cores (§3) by the kernel's own counters: (0) an sgemm with no tensor instruction
	 * at 50 % of the FP32 ceiling fires, measured; (1) a bf16 tensor-op GEMM using them is
	 * clear; (2) an sgemm by name that runs tensor instructions is clear, the name overruled;
	 * (3) an sgemm with no tensor instruction that hardly computes (2 % of FP32) is clear */
	for (int cs = 0; cs < 4; cs++) {
		const char *nm[] = {cs == 1 ? GEMM : "ampere_sgemm_128x64_nn"};
		struct gd_kc_kernel k[1];
		kc_loop(&p, nm, 1, 528, 256, 120);
		k[0] = kc_new(&p, nm[0], 4 * MS);
		k[0].tensor_inst = cs == 0 || cs == 3 ? 0 : 5e6;
		k[0].q[GD_KC_TENSOR_ACTIVE] = cs == 0 || cs == 3 ? 0 : 70;
		k[0].flops[GD_P_FP32] = (cs == 3 ? 0.02 : cs == 0 ? 0.5 : 0.001) * 60e12 * 4e-3;
		k[0].flops[GD_P_FP16] = 0;
		run_kc(&p, &s, &v, k, 1);
		const struct gd_finding *f = &v.f[GD_R_TENSOR];
		CHECK_INT(f->state, cs == 0 ? GD_FIRED : GD_CLEAR);
		CHECK_INT(f->basis, GD_BASIS_KCOUNTERS);
		CHECK_NEAR(evv(f, "fp32_simt_fraction"), cs == 0 ? 1.0 : 0, 1e-9);
		if (cs == 0) {
			CHECK_INT(f->severity, GD_SEV_HIGH);
			CHECK_NEAR(evv(f, "kernel1_tensor_inst"), 0, 0);
			CHECK(strstr(evt(f, "kernel1_tensor_inst"), "(50 % of the FP32 CUDA-core ceiling)") != NULL);
			CHECK(strstr(f->headline, "no tensor-core instruction (kernel counters: ampere_sgemm_128x64_nn)") != NULL);
		}
		if (cs == 2)
			CHECK_NEAR(evv(f, "names_overruled_fraction"), 1.0, 1e-9);
		done(&p, &s);
	}

	/* ranking: at one severity, a kernel's own counters rank above a guess from names even
	 * with less at stake (an uncoalesced gather, 9 % of the span, above elementwise kernels
	 * memory-bound by name, 45 %) */
	setup(&p);
	{
		const char *ew = "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>";
		int64_t t = 1000 * MS;
		struct gd_kc_kernel k[1];
		for (int i = 0; i < 100; i++) {
			t = kern(&p, t, 3600 * US, ew, 10560, 256, 32, 5 * US);
			t = kern(&p, t, 400 * US, "_Z6gatherPfPKi", 10560, 256, 32, 5 * US);
		}
		nvml(&p, 1000 * MS, t, 0, 1980, 1e10);
		k[0] = kc_new(&p, "_Z6gatherPfPKi", 400 * US);
		kc_access(&k[0], 0, 32e6, 1e6, 10);
		kc_access(&k[0], 1, 0, 0, NAN);
		run_kc(&p, &s, &v, k, 1);
		const struct gd_finding *u = &v.f[GD_R_UNCOALESCED], *m = &v.f[GD_R_MEMBOUND];
		CHECK_INT(u->state, GD_FIRED);
		CHECK_INT(u->severity, GD_SEV_WARN);
		CHECK_NEAR(u->share, 0.1 * 0.9, 1e-3);
		CHECK_INT(m->state, GD_FIRED);
		CHECK_INT(m->severity, GD_SEV_WARN);
		CHECK_INT(m->basis, GD_BASIS_NAMES);
		CHECK(m->share > u->share);
		CHECK(rank_of(&v, GD_R_UNCOALESCED) < rank_of(&v, GD_R_MEMBOUND));
		CHECK_STR(gd_basis_name(u->basis), "kernel counters");
		done(&p, &s);
	}

	/* a --metrics run that profiled nothing says why; without --metrics the rules do not apply */
	for (int asked = 0; asked < 2; asked++) {
		const char *nm[] = {"_Z7stencilPf"};
		kc_loop(&p, nm, 1, 10560, 256, 32);
		if (asked)
			snprintf(p.metrics_note, sizeof(p.metrics_note), "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES");
		if (asked)
			run_kc(&p, &s, &v, NULL, 0);
		else
			run(&p, &s, &v);
		for (int r = GD_R_UNCOALESCED; r <= GD_R_ROOFLINE; r++)
			CHECK_INT(v.f[r].state, asked ? GD_INSUFFICIENT : GD_NOT_APPLICABLE);
		if (asked)
			CHECK(strstr(v.f[GD_R_ROOFLINE].headline, "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES") != NULL);
		CHECK(strstr(v.top_line, asked ? "none of the 16 checks" : "none of the 13 checks") != NULL);
		done(&p, &s);
	}

	/* the program ran unprofiled: one high finding, every other rule insufficient */
	setup(&p);
	p.cupti_ok = 0;
	run(&p, &s, &v);
	CHECK_INT(v.f[GD_R_PROFILER].severity, GD_SEV_HIGH);
	CHECK_INT(v.f[GD_R_IDLE].state, GD_INSUFFICIENT);
	CHECK_INT(v.f[GD_R_COMM].state, GD_INSUFFICIENT);
	CHECK_INT(v.f[GD_R_ROOFLINE].state, GD_NOT_APPLICABLE);
	done(&p, &s);

	/* nothing captured: no crash, a warning that says so */
	setup(&p);
	run(&p, &s, &v);
	CHECK_INT(v.f[GD_R_PROFILER].state, GD_FIRED);
	CHECK_INT(v.f[GD_R_IDLE].state, GD_INSUFFICIENT);
	CHECK(isnan(s.span_ns));
	done(&p, &s);
	{
		int lst, lsev;
		double lbusy;
		light_case(20, &lst, &lsev, &lbusy);
		CHECK_INT(lst, GD_FIRED);
		CHECK_INT(lsev, GD_SEV_HIGH);
		CHECK_NEAR(lbusy, 0.20, 1e-9); /* the start-up and tear-down samples are not judged */
		light_case(95, &lst, &lsev, &lbusy);
		CHECK_INT(lst, GD_CLEAR);
		CHECK_NEAR(lbusy, 0.95, 1e-9);
		light_case(0, &lst, &lsev, &lbusy); /* no sample with work */
		CHECK_INT(lst, GD_INSUFFICIENT);
		/* GPU active, where sampled, is what is judged: SMs half filled by small grids while
		 * the engine always had work is no idle GPU (a clean BF16 loop on the H200: SM active
		 * 54 %); the engine without work most of the span is */
		light_case_gr(54, 97, &lst, &lsev, &lbusy);
		CHECK_INT(lst, GD_CLEAR);
		CHECK_NEAR(lbusy, 0.97, 1e-9);
		light_case_gr(54, 30, &lst, &lsev, &lbusy);
		CHECK_INT(lst, GD_FIRED);
		CHECK_NEAR(lbusy, 0.30, 1e-9);
	}
	{
		struct gd_verdicts lv;
		light_startup(0, &lv);
		const struct gd_finding *f = &lv.f[GD_R_IDLE];
		CHECK_INT(f->state, GD_CLEAR);
		CHECK_NEAR(evv(f, "busy_fraction"), 0.97, 0.002);
		CHECK_NEAR(evv(f, "startup_ns"), 1000 * MS, 2 * MS); /* the 1 s of start-up, named */
		CHECK(isnan(evv(f, "device")));
		CHECK(strstr(f->headline, "steady part") != NULL);
		light_startup(1, &lv);
		f = &lv.f[GD_R_IDLE];
		CHECK_INT(f->state, GD_FIRED);
		CHECK_INT(f->severity, GD_SEV_HIGH);
		/* its start-up (10 % busy) is no step below its loop (20 %): all of it judged */
		CHECK_NEAR(evv(f, "busy_fraction"), (10000 * 0.1 + 5000 * 0.2) / 15000 * 0.97, 0.002);
		CHECK_NEAR(evv(f, "startup_ns"), 0, 0);
		CHECK_NEAR(evv(f, "device"), 1, 0);
	}
	return TEST_DONE();
}
