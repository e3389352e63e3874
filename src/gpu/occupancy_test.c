/* Occupancy calculator tests.
 *
 * 1. Hand-worked cases from the guide and cupti-notes.md (H200 numbers).
 * 2. An exhaustive cross-check against the CUDA toolkit's own calculator
 *    (cuda_occupancy.h, an independent implementation of the same rules) over every
 *    architecture in the table and a grid of block sizes, register counts, static and
 *    dynamic shared memory, opt-in limits and carveout preferences.
 * 3. The fixture recorded on an H200 (tests/fixtures/occupancy_h200.csv): the answers of
 *    cudaOccupancyMaxActiveBlocksPerMultiprocessor for real kernels; every row must match. */
#include "core/status.h"
#include "core/test.h"
#include "gpu/arch.h"
#include "gpu/occupancy.h"

#include <cuda_occupancy.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <stdio.h>
#include <stdlib.h>

static struct gd_occ_device h200(void)
{
	struct gd_occ_device d;
	gd_occ_device_from_arch(gd_arch_find(9, 0), &d);
	d.sm_count = 132;
	return d;
}

static int occ(const struct gd_occ_device *d, int threads, int regs, size_t smem, size_t dyn,
	       struct gd_occ_result *r)
{
	struct gd_occ_kernel k = {threads, regs, smem, dyn, 0, -1, 0};
	gd_occupancy(d, &k, r);
	return r->blocks_per_sm;
}

static void hand_cases(void)
{
	struct gd_occ_device d = h200();
	struct gd_occ_result r;
	double fill;

	/* cupti-notes.md: 128 regs, 256 threads → 2 blocks, register-limited, 16/64 warps */
	CHECK_INT(occ(&d, 256, 128, 0, 0, &r), 2);
	CHECK_INT(r.limiters, GD_LIM_REGS);
	CHECK_INT(r.active_warps, 16);
	CHECK_NEAR(r.occupancy, 0.25, 1e-12);
	/* a light kernel fills the SM: 64 warps of 64 */
	CHECK_INT(occ(&d, 256, 32, 0, 0, &r), 8);
	CHECK_NEAR(r.occupancy, 1.0, 1e-12);
	CHECK(r.limiters & GD_LIM_WARPS);
	CHECK(r.limiters & GD_LIM_REGS); /* 32 regs × 2048 threads = exactly the register file */
	/* tiny blocks hit the 32-block slot limit: 32 × 1 warp = 50 % */
	CHECK_INT(occ(&d, 32, 16, 0, 0, &r), 32);
	CHECK_INT(r.limiters, GD_LIM_BLOCKS);
	CHECK_NEAR(r.occupancy, 0.5, 1e-12);
	/* 100 KB dynamic + reservation: 2 blocks of 101 KB in 228 KB */
	{
		struct gd_occ_kernel k = {128, 32, 0, 100 * 1024, 100 * 1024, -1, 0};
		gd_occupancy(&d, &k, &r);
		CHECK_INT(r.blocks_per_sm, 2);
		CHECK_INT(r.smem_per_block_alloc, 101 * 1024);
		CHECK_INT(r.limiters, GD_LIM_SMEM);
	}
	/* more than 48 KB dynamic without the opt-in attribute cannot launch */
	{
		struct gd_occ_kernel k = {128, 32, 0, 60 * 1024, 0, -1, 0};
		CHECK_INT(gd_occupancy(&d, &k, &r), -1);
		CHECK_INT(r.blocks_per_sm, 0);
		CHECK(r.invalid != NULL);
	}
	/* invalid inputs */
	CHECK_INT(occ(&d, 1025, 32, 0, 0, &r), 0);
	CHECK(r.invalid != NULL);
	CHECK_INT(occ(&d, 1024, 65, 0, 0, &r), 0); /* 65 × 1024 > 64 K registers per block */
	CHECK(r.invalid != NULL);
	/* waves: the guide's add<<<3907, 256>>> at 8 blocks/SM on 132 SMs = 3.70 waves */
	occ(&d, 256, 16, 0, 0, &r);
	CHECK_NEAR(gd_occ_waves(&d, &r, 3907, &fill), 3907.0 / 1056.0, 1e-9);
	CHECK_NEAR(fill, (3907 - 3 * 1056) / 1056.0, 1e-9);
	/* carveout preference 0 % on Hopper: the SM still grows to the smallest step that
	 * holds one block (1 KB reserved → 8 KB step) */
	{
		struct gd_occ_kernel k = {256, 16, 0, 0, 0, 0, 0};
		gd_occupancy(&d, &k, &r);
		CHECK_INT(r.smem_sm_config, 8 * 1024);
		CHECK_INT(r.lim_smem, 8);
	}
	/* the limiter names */
	{
		char buf[128];
		CHECK_STR(gd_occ_limiters_str(GD_LIM_REGS | GD_LIM_SMEM, buf, sizeof(buf)), "registers + shared memory");
		CHECK_STR(gd_occ_limiters_str(0, buf, sizeof(buf)), "none");
	}
	/* arch parsing */
	CHECK(gd_arch_parse("sm_90") == gd_arch_find(9, 0));
	CHECK(gd_arch_parse("9.0") == gd_arch_find(9, 0));
	CHECK(gd_arch_parse("120") == gd_arch_find(12, 0));
	CHECK(gd_arch_parse("sm_90a") == gd_arch_find(9, 0)); /* the arch-specific target: same limits */
	CHECK(gd_arch_parse("compute_90a") == gd_arch_find(9, 0));
	CHECK(gd_arch_parse("sm_100f") == gd_arch_find(10, 0));
	CHECK(gd_arch_parse("sm_90b") == NULL);
	CHECK(gd_arch_parse("sm_90aa") == NULL);
	CHECK(gd_arch_parse("sm_a") == NULL);
	CHECK(gd_arch_parse("sm_61") == NULL);
	CHECK(gd_arch_parse("banana") == NULL);
}

/* The toolkit calculator with the same device and kernel. */
static int reference(const struct gd_occ_device *d, const struct gd_occ_kernel *k, unsigned *limiters)
{
	cudaOccDeviceProp p;
	cudaOccFuncAttributes a;
	cudaOccDeviceState s;
	cudaOccResult res;
	memset(&p, 0, sizeof(p));
	memset(&a, 0, sizeof(a));
	memset(&s, 0, sizeof(s));
	memset(&res, 0, sizeof(res));
	p.computeMajor = d->major;
	p.computeMinor = d->minor;
	p.maxThreadsPerBlock = d->max_threads_per_block;
	p.maxThreadsPerMultiprocessor = d->max_threads_per_sm;
	p.regsPerBlock = d->regs_per_block;
	p.regsPerMultiprocessor = d->regs_per_sm;
	p.warpSize = d->warp_size;
	p.sharedMemPerBlock = d->smem_per_block;
	p.sharedMemPerMultiprocessor = d->smem_per_sm;
	p.numSms = 100;
	p.sharedMemPerBlockOptin = d->smem_per_block_optin;
	p.reservedSharedMemPerBlock = d->smem_reserved_per_block;
	a.maxThreadsPerBlock = 1024;
	a.numRegs = k->regs_per_thread;
	a.sharedSizeBytes = k->static_smem;
	a.partitionedGCConfig = PARTITIONED_GC_OFF;
	a.shmemLimitConfig = FUNC_SHMEM_LIMIT_OPTIN; /* what the runtime passes */
	a.maxDynamicSharedSizeBytes = (int)k->max_dyn_smem;
	a.numBlockBarriers = 1;
	s.cacheConfig = CACHE_PREFER_NONE;
	s.carveoutConfig = k->carveout_pct;
	if (cudaOccMaxActiveBlocksPerMultiprocessor(&res, &p, &a, &s, k->block_threads, k->dyn_smem) !=
	    CUDA_OCC_SUCCESS)
		return -1;
	*limiters = res.limitingFactors;
	return res.activeBlocksPerMultiprocessor;
}

static void cross_check(void)
{
	static const int blocks[] = {1, 31, 32, 33, 64, 96, 128, 160, 192, 224, 256, 288, 320, 384, 416,
				     480, 512, 544, 640, 672, 768, 800, 896, 992, 1024};
	static const int regs[] = {0, 1, 16, 24, 32, 33, 40, 48, 56, 63, 64, 72, 80, 96, 120, 128, 168, 200, 232, 255};
	static const size_t statics[] = {0, 100, 4096, 20000, 48 * 1024};
	static const size_t dyns[] = {0, 1, 8000, 30000, 49152, 100000, 160000, 232448};
	static const int carve[] = {-1, 0, 33, 100};
	long long n = 0, bad = 0;
	for (const struct gd_arch *ar = gd_arch_all(); ar->major; ar++) {
		struct gd_occ_device d;
		gd_occ_device_from_arch(ar, &d);
		for (size_t bi = 0; bi < sizeof(blocks) / sizeof(*blocks); bi++)
			for (size_t ri = 0; ri < sizeof(regs) / sizeof(*regs); ri++)
				for (size_t si = 0; si < sizeof(statics) / sizeof(*statics); si++)
					for (size_t di = 0; di < sizeof(dyns) / sizeof(*dyns); di++)
						for (size_t ci = 0; ci < sizeof(carve) / sizeof(*carve); ci++)
							for (int optin = 0; optin < 2; optin++) {
								struct gd_occ_kernel k;
								struct gd_occ_result r;
								unsigned lim = 0, mine;
								int want;
								size_t st = statics[si];
								memset(&k, 0, sizeof(k));
								k.block_threads = blocks[bi];
								k.regs_per_thread = regs[ri];
								k.static_smem = st;
								k.dyn_smem = dyns[di];
								k.carveout_pct = carve[ci];
								k.max_dyn_smem =
									optin ? (d.smem_per_block_optin > st
											 ? d.smem_per_block_optin - st
											 : 0)
									      : (d.smem_per_block > st ? d.smem_per_block - st
												       : 0);
								if (!k.max_dyn_smem)
									continue; /* the runtime forbids it */
								want = reference(&d, &k, &lim);
								if (want < 0)
									continue;
								gd_occupancy(&d, &k, &r);
								mine = r.limiters & (GD_LIM_WARPS | GD_LIM_REGS | GD_LIM_SMEM |
										     GD_LIM_BLOCKS);
								lim &= OCC_LIMIT_WARPS | OCC_LIMIT_REGISTERS |
								       OCC_LIMIT_SHARED_MEMORY | OCC_LIMIT_BLOCKS;
								n++;
								if (r.blocks_per_sm != want ||
								    (want > 0 &&
								     (!!(mine & GD_LIM_WARPS) != !!(lim & OCC_LIMIT_WARPS) ||
								      !!(mine & GD_LIM_REGS) != !!(lim & OCC_LIMIT_REGISTERS) ||
								      !!(mine & GD_LIM_SMEM) != !!(lim & OCC_LIMIT_SHARED_MEMORY) ||
								      !!(mine & GD_LIM_BLOCKS) != !!(lim & OCC_LIMIT_BLOCKS)))) {
									if (bad++ < 10)
										fprintf(stderr,
											"%s threads=%d regs=%d static=%zu dyn=%zu "
											"carve=%d optin=%d: mine %d (lim %x), "
											"toolkit %d (lim %x)\n",
											ar->sm, k.block_threads, k.regs_per_thread,
											st, k.dyn_smem, k.carveout_pct, optin,
											r.blocks_per_sm, mine, want, lim);
								}
							}
	}
	printf("cross-check against cuda_occupancy.h: %lld configurations, %lld differ\n", n, bad);
	CHECK(n > 100000);
	CHECK_INT(bad, 0);
}

/* tests/fixtures/occupancy_h200.csv: recorded on an H200 by tests/gpu/occupancy_fixture.cu
 * (columns: regs,static_smem,max_dyn_smem,carveout,threads,dyn_smem,blocks_per_sm). */
static void fixture(void)
{
	/* GPUDIAG_OCC_FIXTURE points at a freshly recorded file on the GPU machine. */
	const char *path = getenv("GPUDIAG_OCC_FIXTURE") ? getenv("GPUDIAG_OCC_FIXTURE")
							 : "tests/fixtures/occupancy_h200.csv";
	FILE *f = fopen(path, "r");
	struct gd_occ_device d = h200();
	char line[512];
	int rows = 0, bad = 0;
	if (!f) {
		fprintf(stderr, "fixture %s missing\n", path);
		CHECK(f != NULL);
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		struct gd_occ_kernel k;
		struct gd_occ_result r;
		long regs, st, maxdyn, carve, threads, dyn, want;
		if (line[0] == '#' || sscanf(line, "%ld,%ld,%ld,%ld,%ld,%ld,%ld", &regs, &st, &maxdyn, &carve, &threads,
					     &dyn, &want) != 7)
			continue;
		memset(&k, 0, sizeof(k));
		k.block_threads = (int)threads;
		k.regs_per_thread = (int)regs;
		k.static_smem = (size_t)st;
		k.dyn_smem = (size_t)dyn;
		k.max_dyn_smem = (size_t)maxdyn;
		k.carveout_pct = (int)carve;
		gd_occupancy(&d, &k, &r);
		rows++;
		if (r.blocks_per_sm != want && bad++ < 10)
			fprintf(stderr, "fixture row %d: regs=%ld static=%ld maxdyn=%ld carve=%ld threads=%ld dyn=%ld: "
					"mine %d, H200 %ld\n",
				rows, regs, st, maxdyn, carve, threads, dyn, r.blocks_per_sm, want);
	}
	fclose(f);
	printf("H200 fixture: %d configurations, %d differ\n", rows, bad);
	CHECK(rows >= 500);
	CHECK_INT(bad, 0);
}

/* Descriptions and launches from hostile profiles: a clear refusal, never a division by
 * zero or an overflow (run in a sanitizer build, any overflow here is a failure). */
static int refused(const struct gd_occ_device *d, const struct gd_occ_kernel *k, const char *want)
{
	struct gd_occ_result r;
	int rc = gd_occupancy(d, k, &r);
	if (rc != -1 || r.blocks_per_sm != 0 || !r.invalid || (want && !strstr(r.invalid, want))) {
		fprintf(stderr, "not refused as '%s': rc %d, %d blocks, '%s'\n", want ? want : "(any)", rc,
			r.blocks_per_sm, r.invalid ? r.invalid : "(null)");
		return 0;
	}
	return 1;
}

static void hostile(void)
{
	const struct gd_occ_kernel k0 = {256, 32, 0, 0, 0, -1, 0};
	struct gd_occ_kernel k;
	struct gd_occ_device d;
	struct gd_occ_result r;
	const char *why;
	double fill;
	static const int neg_carve[] = {0, -8, 228};

	/* every table entry is in range, and one refused field is named */
	for (const struct gd_arch *a = gd_arch_all(); a->major; a++) {
		gd_occ_device_from_arch(a, &d);
		CHECK_INT(gd_occ_device_check(&d, &why), GD_OK);
		CHECK(why == NULL);
	}
#define SPOIL(stmt, want)                                           \
	do {                                                        \
		d = h200();                                         \
		stmt;                                               \
		CHECK_INT(gd_occ_device_check(&d, &why), GD_EDATA); \
		CHECK(why && strstr(why, want));                    \
		CHECK(refused(&d, &k0, want));                      \
	} while (0)
	SPOIL(d.warp_size = INT_MAX, "warp size"); /* was: SIGFPE */
	SPOIL(d.warp_size = -1, "warp size");
	SPOIL(d.warp_size = 2048, "warp size");
	SPOIL(d.sm_count = -1, "SM count");
	SPOIL(d.sm_count = INT_MAX, "SM count");
	SPOIL(d.max_threads_per_sm = -2048, "threads per SM");
	SPOIL(d.max_threads_per_block = INT_MAX, "threads per block");
	SPOIL(d.max_blocks_per_sm = 0, "blocks per SM");
	SPOIL(d.regs_per_sm = INT_MAX, "registers per SM");
	SPOIL(d.regs_per_block = -1, "registers per block");
	SPOIL(d.max_regs_per_thread = INT_MAX, "registers per thread");
	SPOIL(d.reg_alloc_unit = -256, "register allocation unit");
	SPOIL(d.subpartitions = INT_MAX, "sub-partitions");
	SPOIL(d.smem_per_sm = SIZE_MAX, "shared memory per SM");
	SPOIL(d.smem_per_block_optin = (size_t)1 << 40, "opt-in shared memory");
	SPOIL(d.smem_reserved_per_block = SIZE_MAX, "reserved shared memory");
	SPOIL(d.smem_alloc_unit = INT_MIN, "allocation unit");
	SPOIL(d.ncarveouts = -1, "carveouts");
	SPOIL((d.carveouts_kb = neg_carve, d.ncarveouts = 3), "carveouts");
	SPOIL((d.carveouts_kb = NULL, d.ncarveouts = 3), "carveouts");
	SPOIL(d.barriers_per_block_slot = INT_MAX, "barriers");
	SPOIL(d.major = INT_MAX, "compute capability");
#undef SPOIL
	/* no table at all keeps its own reason */
	d = h200();
	d.warp_size = 0;
	CHECK(refused(&d, &k0, "no occupancy table"));

	/* launches no GPU takes */
	d = h200();
	k = k0, k.regs_per_thread = 1000000000;
	CHECK(refused(&d, &k, "registers per thread"));
	k = k0, k.regs_per_thread = INT_MIN;
	CHECK(refused(&d, &k, "registers per thread"));
	k = k0, k.block_threads = 0;
	CHECK(refused(&d, &k, "block size must be positive"));
	k = k0, k.block_threads = INT_MIN;
	CHECK(refused(&d, &k, "block size must be positive"));
	k = k0, k.block_threads = INT_MAX;
	CHECK(refused(&d, &k, "more threads"));
	k = k0, k.static_smem = SIZE_MAX; /* a negative int from a profile, cast */
	CHECK(refused(&d, &k, "shared memory"));
	k = k0, k.dyn_smem = k.max_dyn_smem = SIZE_MAX - 4096;
	CHECK(refused(&d, &k, "shared memory"));
	k = k0, k.dyn_smem = k.max_dyn_smem = (size_t)INT_MAX; /* was (int)total + unit: overflow */
	CHECK(refused(&d, &k, "shared memory"));
	k = k0, k.carveout_pct = 101;
	CHECK(refused(&d, &k, "carveout"));
	k = k0, k.carveout_pct = INT_MIN;
	CHECK(refused(&d, &k, "carveout"));
	k = k0, k.barriers = INT_MAX; /* more barriers than the SM has: no block fits */
	CHECK_INT(gd_occupancy(&d, &k, &r), -1);
	CHECK_INT(r.blocks_per_sm, 0);

	/* the largest description in range: the products stay exact (long long) */
	d = h200();
	d.warp_size = 1024;
	d.max_threads_per_block = d.max_threads_per_sm = 1 << 16;
	d.max_regs_per_thread = 1024;
	d.regs_per_sm = d.regs_per_block = 1 << 24;
	d.reg_alloc_unit = 1 << 16;
	d.subpartitions = 64;
	d.max_blocks_per_sm = 1 << 12;
	d.sm_count = 1 << 20;
	CHECK_INT(gd_occ_device_check(&d, &why), GD_OK);
	k = k0, k.block_threads = 1 << 16, k.regs_per_thread = 1024;
	CHECK(refused(&d, &k, "registers")); /* 2^36 registers for the block: refused, not wrapped */
	CHECK(r.regs_per_block_alloc >= 0);
	k = k0, k.block_threads = 1024, k.regs_per_thread = 1;
	CHECK_INT(gd_occupancy(&d, &k, &r), 0);
	CHECK(r.occupancy > 0 && r.occupancy <= 1);
	/* waves of the largest grid a profile can hold: finite */
	CHECK(isfinite(gd_occ_waves(&d, &r, LLONG_MAX, &fill)));
	CHECK(fill > 0 && fill <= 1);
}

int main(void)
{
	hand_cases();
	hostile();
	cross_check();
	fixture();
	return TEST_DONE();
}
