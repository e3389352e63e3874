/* The verdict rules on profiles built in memory: each rule fires on the problem it looks for,
 * at the documented thresholds, with the evidence values asserted; a clean run raises no
 * warning; missing records give "insufficient signal". (tests/cli/verdicts.sh runs the same
 * rules through the SQLite reader on generated profiles.) */
#include "core/status.h"
#include "core/test.h"
#include "gpu/arch.h"
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

static const char *GEMM = "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x256x64_cublas";

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
			struct gd_papi *a = gd_profile_add_api(&p);
			a->start = e - bl;
			a->end = e + 5 * US;
			a->name = gd_profile_intern(&p, "cudaDeviceSynchronize_v3020");
			a->cat = GD_API_SYNC;
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
			struct gd_papi *a = gd_profile_add_api(&p);
			a->start = e - 200 * US;
			a->end = e + 5 * US;
			a->name = gd_profile_intern(&p, "cudaStreamSynchronize_v3020");
			a->cat = GD_API_SYNC;
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

	/* the program ran unprofiled: one high finding, every other rule insufficient */
	setup(&p);
	p.cupti_ok = 0;
	run(&p, &s, &v);
	CHECK_INT(v.f[GD_R_PROFILER].severity, GD_SEV_HIGH);
	CHECK_INT(v.f[GD_R_IDLE].state, GD_INSUFFICIENT);
	CHECK_INT(v.f[GD_R_COMM].state, GD_INSUFFICIENT);
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
	return TEST_DONE();
}
