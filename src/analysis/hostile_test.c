/* The summary and the verdicts on hostile-but-valid profiles built in memory: timestamps at
 * the int64 limits, records that end before they start, device descriptions out of any
 * GPU's range, launch dimensions of 2^31 - 1. The reader drops such rows from files, but the
 * analysis must be safe on whatever reaches it: every step must return, every duration be
 * finite and non-negative, every share NaN or in [0, 1], and occupancy be unknown (with the
 * reason) rather than a number. Run in a sanitizer build (GPUDIAG_SANITIZE=ON), this test
 * also catches any signed overflow on the way (tests/cli/hostile_values.sh does the same
 * through the SQLite reader). */
#include "analysis/analysis.h"
#include "core/status.h"
#include "core/test.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#define US 1000LL
#define MS 1000000LL

/* A small run with something for every rule: kernels on a blocking stream and on the
 * legacy default stream, each with its launch call, sync calls, pageable and pinned copies,
 * an NCCL kernel, throttled NVML samples, allocations. Times from t0, every record
 * `dur` long (a negative dur: records that end before they start). */
static void build(struct gd_profile *p, int64_t t0, int64_t dur)
{
	static const char *names[] = {"_Z4stepPf", "_Z13elementwise_kernelPf",
				      "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
				      "ampere_sgemm_128x64_nn"};
	uint32_t corr = 0;
	gd_profile_init(p);
	CHECK(gd_profile_add_device(p) != NULL); /* p->ndev = 1 */
	snprintf(p->dev[0].name, sizeof(p->dev[0].name), "NVIDIA H200");
	p->dev[0].major = 9;
	p->dev[0].sm_count = 132;
	p->dev[0].mem_total = 150754820096.0;
	p->dev[0].max_sm_mhz = 1980;
	for (int i = 0; i < 60; i++) {
		/* unsigned: the test's own arithmetic must not overflow either */
		int64_t t = (int64_t)((uint64_t)t0 + (uint64_t)i * 20 * US);
		struct gd_pkernel *k = gd_profile_add_kernel(p);
		struct gd_papi *a = gd_profile_add_api(p);
		k->start = t;
		k->end = (int64_t)((uint64_t)t + (uint64_t)dur);
		k->name = k->dname = gd_profile_intern(p, names[i % 4]);
		k->grid[0] = 100 + i;
		k->grid[1] = k->grid[2] = 1;
		k->block[0] = 256;
		k->block[1] = k->block[2] = 1;
		k->regs = 64;
		k->stream = i % 3 ? 13 : 7;
		k->legacy = i % 3 == 0;
		k->corr = ++corr;
		a->start = (int64_t)((uint64_t)t - 5 * US);
		a->end = (int64_t)((uint64_t)a->start + (uint64_t)dur);
		a->name = gd_profile_intern(p, i % 5 ? "cudaLaunchKernel_v7000" : "cudaDeviceSynchronize_v3020");
		a->cat = i % 5 ? GD_API_LAUNCH : GD_API_SYNC;
		a->corr = k->corr;
		if (i % 4 == 1) {
			struct gd_pcopy *c = gd_profile_add_copy(p);
			c->start = (int64_t)((uint64_t)t + 7 * US);
			c->end = (int64_t)((uint64_t)c->start + (uint64_t)dur);
			c->bytes = i % 8 == 1 ? INT64_MAX : 1 << 20;
			c->kind = GD_CK_HTOD;
			c->src_kind = i % 8 == 1 ? GD_MK_PAGEABLE : GD_MK_PINNED;
			c->dst_kind = GD_MK_DEVICE;
			c->stream = 13;
			c->legacy = i % 3 == 0;
		}
		if (i % 6 == 0) {
			struct gd_pnvml *s = gd_profile_add_nvml(p);
			struct gd_pmem *m = gd_profile_add_mem(p);
			s->t = t;
			s->util_gpu = 100;
			s->mem_used = 1e11;
			s->mem_total = 150754820096.0;
			s->power_w = 400;
			s->temp_c = 80;
			s->sm_mhz = 1200;
			s->reasons = 0x20;
			m->t = t;
			m->op = 1 + i % 2;
			m->bytes = 1e9;
		}
	}
}

static void analyse(struct gd_analysis *a)
{
	gd_profile_finish(&a->p);
	CHECK_INT(gd_analysis_of(a), GD_OK);
}

/* Every number a renderer prints must be sane, whatever the input. */
static void check_sane(const struct gd_analysis *a, const char *what)
{
	const struct gd_summary *s = &a->s;
	int ok = 1;
#define SANE(x) (isnan(x) || ((x) >= 0 && isfinite(x)))
	ok &= SANE(s->wall_ns) && SANE(s->span_ns) && SANE(s->busy_ns) && SANE(s->kernel_ns) && SANE(s->copy_ns);
	for (int i = 0; i < s->nks; i++) {
		const struct gd_kstat *k = &s->ks[i];
		ok &= SANE(k->total_ns) && SANE(k->min_ns) && SANE(k->max_ns) && k->grid_blocks >= 0 && k->block_threads >= 0;
		if (k->occ_ok)
			ok &= k->occ.occupancy > 0 && k->occ.occupancy <= 1 && k->occ.blocks_per_sm > 0;
	}
	for (int c = 0; c < GD_CPY_COUNT; c++)
		ok &= SANE(s->cp[c].ns) && SANE(s->cp[c].pageable_ns);
	for (int c = 0; c < GD_API_CAT_COUNT; c++)
		ok &= SANE(s->api_ns[c]);
	for (long i = 0; i < s->nbusy; i++)
		ok &= s->busy[i].end >= s->busy[i].start;
	for (int r = 0; r < GD_R_COUNT; r++) {
		const struct gd_finding *f = &a->v.f[r];
		ok &= isnan(f->share) || (f->share >= 0 && f->share <= 1);
		ok &= f->headline[0] != 0;
	}
#undef SANE
	if (!ok)
		fprintf(stderr, "insane numbers: %s\n", what);
	CHECK(ok);
}

static void timestamps(int64_t t0, int64_t dur, const char *what)
{
	struct gd_analysis a;
	memset(&a, 0, sizeof(a));
	build(&a.p, t0, dur);
	analyse(&a);
	check_sane(&a, what);
	gd_analysis_free(&a);
}

/* Records scattered over the whole int64 range: the first at INT64_MIN, the last ending at
 * INT64_MAX, reversed ones between. */
static void scattered(void)
{
	struct gd_analysis a;
	memset(&a, 0, sizeof(a));
	build(&a.p, 1000 * MS, 10 * US);
	for (long i = 0; i < a.p.nk; i++) {
		struct gd_pkernel *k = &a.p.k[i];
		if (i % 3 == 0)
			k->start = INT64_MIN + i;
		if (i % 3 == 1)
			k->end = INT64_MAX - i;
		if (i % 7 == 2) {
			k->start = INT64_MAX;
			k->end = INT64_MIN;
		}
		k->stream = i % 2 ? INT64_MAX : INT64_MIN;
	}
	for (long i = 0; i < a.p.na; i++) {
		a.p.a[i].start = i % 2 ? INT64_MIN : a.p.a[i].start;
		a.p.a[i].end = i % 3 ? INT64_MAX : a.p.a[i].end;
	}
	for (long i = 0; i < a.p.nc; i++)
		a.p.c[i].start = INT64_MIN, a.p.c[i].end = INT64_MAX;
	for (long i = 0; i < a.p.ns; i++)
		a.p.s[i].t = i % 2 ? INT64_MIN : INT64_MAX;
	a.p.t_start = INT64_MAX;
	a.p.t_end = INT64_MIN;
	analyse(&a);
	check_sane(&a, "scattered over the int64 range");
	/* a kernel from INT64_MIN to INT64_MAX lasts 2^64 - 1 ns, not a negative time */
	CHECK(a.s.span_ns > 1.8e19);
	CHECK(a.s.busy_ns > 1.8e19);
	gd_analysis_free(&a);
}

/* A device description out of range: occupancy unknown, the rule says why. */
static void bad_device(const char *field, void (*spoil)(struct gd_occ_device *), const char *why)
{
	struct gd_analysis a;
	memset(&a, 0, sizeof(a));
	build(&a.p, 1000 * MS, 10 * US);
	gd_profile_finish(&a.p);
	CHECK(a.p.dev[0].occ_ok);
	spoil(&a.p.dev[0].occ);
	CHECK_INT(gd_analysis_of(&a), GD_OK);
	check_sane(&a, field);
	for (int i = 0; i < a.s.nks; i++)
		CHECK(!a.s.ks[i].occ_ok);
	CHECK_INT(a.v.f[GD_R_OCCUPANCY].state, GD_INSUFFICIENT);
	if (why && !strstr(a.v.f[GD_R_OCCUPANCY].headline, why)) {
		fprintf(stderr, "%s: headline '%s' lacks '%s'\n", field, a.v.f[GD_R_OCCUPANCY].headline, why);
		CHECK(0);
	}
	gd_analysis_free(&a);
}
static void warp_max(struct gd_occ_device *d) { d->warp_size = INT_MAX; }
static void warp_neg(struct gd_occ_device *d) { d->warp_size = -1; }
static void warp_zero(struct gd_occ_device *d) { d->warp_size = 0; }
static void sms_neg(struct gd_occ_device *d) { d->sm_count = -1; }
static void regs_neg(struct gd_occ_device *d) { d->regs_per_sm = -65536; }
static void subparts_max(struct gd_occ_device *d) { d->subpartitions = INT_MAX; }
static void smem_max(struct gd_occ_device *d) { d->smem_per_sm = SIZE_MAX; }
static void blocks_max(struct gd_occ_device *d) { d->max_blocks_per_sm = INT_MAX; }

/* Launch configurations no GPU takes: occupancy unknown for that kernel, the rest sane. */
static void bad_launch(void)
{
	struct gd_analysis a;
	memset(&a, 0, sizeof(a));
	build(&a.p, 1000 * MS, 10 * US);
	for (long i = 0; i < a.p.nk; i++) {
		struct gd_pkernel *k = &a.p.k[i];
		switch (i % 4) {
		case 0:
			k->regs = 1000000000;
			break;
		case 1:
			k->block[0] = k->block[1] = k->block[2] = 0;
			break;
		case 2:
			k->grid[0] = k->grid[1] = k->grid[2] = INT_MAX;
			k->block[0] = k->block[1] = k->block[2] = INT_MAX;
			break;
		default:
			k->grid[0] = k->grid[1] = -1;
			k->block[0] = k->block[1] = -16;
			k->static_smem = INT_MAX;
			k->dyn_smem = -1;
		}
	}
	analyse(&a);
	check_sane(&a, "launch configurations out of range");
	for (int i = 0; i < a.s.nks; i++) {
		CHECK(!a.s.ks[i].occ_ok);
		/* two negative dimensions must not pass for a grid of one block */
		CHECK(a.s.ks[i].grid_blocks == 0 || a.s.ks[i].grid_blocks == LLONG_MAX || a.s.ks[i].grid_blocks >= 100);
	}
	gd_analysis_free(&a);
}

/* A recorded maximum clock of 2^31 - 1 MHz is not believed: the throttling rule measures
 * the clock loss against the clocks NVML saw (all 1200 MHz here), not against it. */
static void bad_clock(void)
{
	struct gd_analysis a;
	double loss = NAN;
	memset(&a, 0, sizeof(a));
	build(&a.p, 1000 * MS, 10 * US);
	a.p.dev[0].max_sm_mhz = INT_MAX;
	analyse(&a);
	check_sane(&a, "maximum clock 2^31 - 1 MHz");
	for (int i = 0; i < a.v.f[GD_R_THROTTLE].nev; i++)
		if (!strcmp(a.v.f[GD_R_THROTTLE].ev[i].key, "clock_loss"))
			loss = a.v.f[GD_R_THROTTLE].ev[i].value;
	CHECK_NEAR(loss, 0, 1e-12);
	gd_analysis_free(&a);
}

int main(void)
{
	gd_set_quiet(1);
	timestamps(1000 * MS, 10 * US, "a normal run");
	timestamps(INT64_MIN, 10 * US, "starting at INT64_MIN");
	timestamps(INT64_MAX - 10 * MS, 10 * US, "ending near INT64_MAX");
	timestamps(1000 * MS, -10 * US, "every record ends before it starts");
	timestamps(INT64_MIN + 5 * MS, INT64_MAX, "records of 2^63 ns from near INT64_MIN");
	timestamps(INT64_MAX - 5 * MS, INT64_MIN, "records ending 2^63 ns before they start");
	scattered();
	bad_device("warp size 2^31 - 1", warp_max, "device properties out of range (warp size)");
	bad_device("warp size -1", warp_neg, "device properties out of range (warp size)");
	bad_device("warp size 0", warp_zero, NULL);
	bad_device("SM count -1", sms_neg, "device properties out of range (SM count)");
	bad_device("registers per SM < 0", regs_neg, "device properties out of range (registers per SM)");
	bad_device("sub-partitions 2^31 - 1", subparts_max, "device properties out of range (SM sub-partitions)");
	bad_device("shared memory per SM SIZE_MAX", smem_max, "device properties out of range (shared memory per SM)");
	bad_device("blocks per SM 2^31 - 1", blocks_max, "device properties out of range (blocks per SM)");
	bad_launch();
	bad_clock();
	return TEST_DONE();
}
