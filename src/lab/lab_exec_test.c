/* CPU-tier tests of the execution labs: references, accounting (waves, tail, padding,
 * overlap), the grid timeline renderer through the harness's --svg path. No GPU needed. */
#include "core/test.h"
#include "gpu/arch.h"
#include "gpu/occupancy.h"
#include "kernels/lab_divergence.h"
#include "kernels/lab_sfu.h"
#include "lab/lab.h"
#include "lab/lab_exec.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

extern const struct gd_lab gd_lab_grid;

static void h200(struct gd_occ_device *d)
{
	CHECK(gd_occ_device_from_arch(gd_arch_find(9, 0), d) == 0);
	d->sm_count = 132;
}

static void test_launch(void)
{
	/* x = 0.5x + 1 from 0: 1, 1.5, 1.75 (exact in float) */
	CHECK(gd_lx_launch_ref(0.0f, 3, 0.5f, 1.0f) == 1.75f);
	CHECK(gd_lx_launch_ref(3.0f, 0, 0.5f, 1.0f) == 3.0f);
	/* the lab's op converges to b / (1 - a) = 1 */
	CHECK_NEAR(gd_lx_launch_ref(-1.0f, 100000, 0.999f, 0.001f), 1.0, 1e-3);
	CHECK_NEAR(gd_lx_launch_share(10e-6, 2e-6), 0.8, 1e-12);
	CHECK(gd_lx_launch_share(2e-6, 10e-6) == 0.0);
	CHECK(isnan(gd_lx_launch_share(0, 1)));
	CHECK(isnan(gd_lx_launch_share(NAN, 1)));
}

static void test_grid(void)
{
	struct gd_lx_grid_stats st;
	struct gd_occ_device d;
	struct gd_occ_kernel k = {256, 12, 8, 0, 0, -1, 0};
	struct gd_occ_result r;
	double fill;
	/* two SMs: SM0 runs two blocks one after the other (end and start at the same
	 * instant are not concurrent), SM1 two that overlap */
	struct gd_grid_rec a[] = {{0, 10, 0, 0}, {10, 20, 0, 0}, {0, 10, 1, 0}, {5, 15, 1, 0}};
	gd_lx_grid_stats(a, 4, 2, &st);
	CHECK_INT(st.blocks, 4);
	CHECK_INT(st.sms_used, 2);
	CHECK_INT(st.per_sm_min, 2);
	CHECK_INT(st.per_sm_max, 2);
	CHECK_INT(st.max_concurrent, 2);
	CHECK_NEAR(st.makespan_ns, 20, 0);
	CHECK_NEAR(st.last_start_ns, 10, 0);
	CHECK_NEAR(st.resolution_ns, 5, 0);
	CHECK_INT(st.bad, 0);
	/* four SMs: three finish at 20, one runs to 100: the last 80 ns have < half busy */
	{
		struct gd_grid_rec b[] = {
		    {0, 100, 0, 0},	      {0, 20, 1, 0}, {0, 20, 2, 0}, {0, 20, 3, 0},
		    {~0ULL, ~0ULL, ~0u, ~0u}, {5, 4, 1, 0},  {0, 1, 9, 0}};
		gd_lx_grid_stats(b, 7, 4, &st);
		CHECK_INT(st.blocks, 4);
		CHECK_INT(st.bad, 3); /* poison, t1 < t0, smid out of range */
		CHECK_NEAR(st.tail_ns, 80, 0);
		CHECK_INT(st.per_sm_min, 1);
		CHECK_INT(st.max_concurrent, 1);
	}
	/* the guide's add<<<3907, 256>>> on the H200: 8 blocks of 256 per SM, 3.70 waves */
	h200(&d);
	CHECK(gd_occupancy(&d, &k, &r) == 0);
	CHECK_INT(r.blocks_per_sm, 8);
	CHECK_NEAR(gd_occ_waves(&d, &r, 3907, &fill), 3907.0 / 1056.0, 1e-12);
	CHECK_NEAR(fill, 739.0 / 1056.0, 1e-12);
	/* 1024-thread blocks: 2 per SM, 977 blocks = 3.70 waves as well */
	k.block_threads = 1024;
	CHECK(gd_occupancy(&d, &k, &r) == 0);
	CHECK_INT(r.blocks_per_sm, 2);
	CHECK_NEAR(gd_occ_waves(&d, &r, 977, &fill), 977.0 / 264.0, 1e-12);
}

static void test_grid_svg(void)
{
	struct gd_lab_run run;
	struct gd_grid_rec rec[] = {
	    {1000, 2000, 0, 0}, {2000, 3000, 0, 0}, {1000, 2500, 1, 0}, {2500, 2600, 1, 0}};
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	gd_lab_run_init(&run, &gd_lab_grid);
	CHECK(gd_lx_grid_timeline(&run, rec, 4, 2, 1, 1000, "test timeline") == 0);
	CHECK(f != NULL);
	if (!f)
		return;
	CHECK(gd_lab_write_svg(&run, f) == 1);
	fclose(f);
	CHECK(buf && strstr(buf, "<svg") != NULL);
	CHECK(buf && strstr(buf, "test timeline") != NULL);
	CHECK(buf && strstr(buf, "wave 1") != NULL); /* one block per SM resident: 2 waves */
	CHECK(buf && strstr(buf, "wave 2") != NULL);
	CHECK(buf && strstr(buf, "wave 3") == NULL);
	CHECK(buf && strstr(buf, "%smid") != NULL); /* the note says how it was measured */
	free(buf);
	gd_lab_run_free(&run);
}

static void test_divergence(void)
{
	CHECK(gd_lx_div_positive(1, 0) && !gd_lx_div_positive(1, 1) && gd_lx_div_positive(1, 2));
	CHECK(gd_lx_div_positive(32, 31) && !gd_lx_div_positive(32, 32) && gd_lx_div_positive(32, 64));
	CHECK(gd_lx_div_positive(4, 3) && !gd_lx_div_positive(4, 4) && !gd_lx_div_positive(4, 7));
	CHECK(gd_lx_div_positive(0, 12345) && !gd_lx_div_positive(-1, 0));
	/* zero iterations: (v + v+1) + (v+2 + v+3) */
	CHECK(gd_lx_div_path_a(0.5f, 0) == 8.0f);
	CHECK(gd_lx_div_path_b(-0.5f, 0) == -8.0f);
	/* fixed points: A → 4 × 0.01/0.001 = 40, B → 4 × 0.02/1.999 */
	CHECK_NEAR(gd_lx_div_path_a(0.5f, 30000), 40.0, 1e-2);
	CHECK_NEAR(gd_lx_div_path_b(-0.5f, 30000), 4 * 0.02 / 1.999, 1e-4);
	/* one step: four single-rounded FMAs summed pairwise, the kernel's order */
	CHECK(gd_lx_div_path_a(0.25f, 1) ==
	      (fmaf(0.25f, GD_DIV_A_MUL, GD_DIV_A_ADD) + fmaf(1.25f, GD_DIV_A_MUL, GD_DIV_A_ADD)) +
		  (fmaf(2.25f, GD_DIV_A_MUL, GD_DIV_A_ADD) + fmaf(3.25f, GD_DIV_A_MUL, GD_DIV_A_ADD)));
	CHECK(gd_lx_div_cheap(2.0f) == 4.0f);
	CHECK(gd_lx_div_cheap(-2.0f) == -3.0f);
	CHECK(gd_lx_div_cheap(0.0f) == -1.0f); /* x > 0 is false at 0, as in the guide's mask */
}

static void test_occupancy(void)
{
	struct gd_occ_device d;
	struct gd_occ_kernel k;
	struct gd_occ_result r;
	h200(&d);
	memset(&k, 0, sizeof(k));
	k.block_threads = 256;
	k.regs_per_thread = 18;
	CHECK_INT(gd_lx_occ_padding(&d, &k, 8), 0);
	CHECK_INT(gd_lx_occ_padding(&d, &k, 1), 233472 - 1024); /* the whole 228 KB carveout */
	CHECK_INT(gd_lx_occ_padding(&d, &k, 4), 233472 / 4 - 1024);
	CHECK_INT(gd_lx_occ_padding(&d, &k, 9), -1); /* 8 is the most 256-thread blocks */
	CHECK_INT(gd_lx_occ_padding(&d, &k, 0), -1);
	for (int b = 1; b <= 8; b++) {
		long long dyn = gd_lx_occ_padding(&d, &k, b);
		CHECK(dyn >= 0);
		k.dyn_smem = (size_t)(dyn > 0 ? dyn : 0);
		CHECK(gd_occupancy(&d, &k, &r) == 0);
		CHECK_INT(r.blocks_per_sm, b);
		CHECK_NEAR(r.occupancy, b / 8.0, 1e-12);
	}
	CHECK(gd_lx_occ_compute_ref(0, 0) == 1.0f);
	CHECK(gd_lx_occ_compute_ref(1024, 5) == gd_lx_occ_compute_ref(0, 5)); /* seeds repeat every 1024 */
	CHECK_NEAR(gd_lx_occ_compute_ref(7, 100000), 2.0, 1e-3);
}

static void test_streams(void)
{
	CHECK_NEAR(gd_lx_overlap(10, 10, 10), 1.0, 1e-12); /* perfect */
	CHECK_NEAR(gd_lx_overlap(10, 10, 20), 0.0, 1e-12); /* serial */
	CHECK_NEAR(gd_lx_overlap(10, 5, 12), 0.6, 1e-12);
	CHECK_NEAR(gd_lx_overlap(10, 5, 16), -0.2, 1e-12); /* worse than serial: not clamped */
	CHECK(isnan(gd_lx_overlap(0, 5, 5)));
	CHECK(isnan(gd_lx_overlap(5, 5, NAN)));
	CHECK(gd_lx_streams_seed(1024) == 0.0f && gd_lx_streams_seed(512) == 0.5f);
	CHECK(gd_lx_streams_chain(0.25f, 0) == 0.25f);
	CHECK_NEAR(gd_lx_streams_chain(0.0f, 200000), 1.0, 1e-3);
}

static void test_sfu(void)
{
	double abs_sum = 0, allow = 0, t;
	CHECK_NEAR(gd_lx_sfu_ref(GD_SFU_EXP, 0), 1.0, 0);
	CHECK_NEAR(gd_lx_sfu_ref(GD_SFU_RSQRT_FAST, 4), 0.5, 0);
	CHECK_NEAR(gd_lx_sfu_ref(GD_SFU_GELU_ERF, 1), 0.8413447460685429, 1e-15);
	CHECK_NEAR(gd_lx_sfu_ref(GD_SFU_GELU_TANH, 1), 0.8411919906082768, 1e-15);
	CHECK_NEAR(gd_lx_sfu_ref(GD_SFU_GELU_ERF, -8), 0.0, 1e-13);
	CHECK(isnan(gd_lx_sfu_ref(99, 1)));
	CHECK_NEAR(gd_lx_ulp_err(1.0f, 1.0), 0, 0);
	CHECK_NEAR(gd_lx_ulp_err(nextafterf(1.0f, 2.0f), 1.0), 1, 1e-12);
	CHECK_NEAR(gd_lx_ulp_err(0.5f, 0.5 + ldexp(1, -25)), 0.5, 1e-12); /* ulp at 0.5 is 2^-24 */
	CHECK(isinf(gd_lx_ulp_err(NAN, 1.0)));
	/* thread 0 of 1, one step, exp over [-10, 10]: arguments -10, -8.75, -7.5, -6.25 */
	t = gd_lx_sfu_throughput_ref(GD_SFU_EXP, 0, 1, 1, &abs_sum, &allow);
	CHECK_NEAR(t, exp(-10) + exp(-8.75) + exp(-7.5) + exp(-6.25), 1e-15);
	CHECK_NEAR(abs_sum, t, 1e-15);
	CHECK_NEAR(allow, ldexp(t, -12), 1e-18); /* exp: 2^-12 of each value */
	/* sin sums cancel, |terms| do not */
	t = gd_lx_sfu_throughput_ref(GD_SFU_SIN, 2, 4, 64, &abs_sum, NULL); /* args cross 0 */
	CHECK(abs_sum > fabs(t));
	/* tanh.approx gets room for its ~2^-11 relative error, the libm form does not */
	{
		double a1 = 0, a2 = 0;
		gd_lx_sfu_throughput_ref(GD_SFU_GELU_TANH, 0, 4, 16, NULL, &a1);
		gd_lx_sfu_throughput_ref(GD_SFU_GELU_TANH_FAST, 0, 4, 16, NULL, &a2);
		CHECK(a2 > 10 * a1);
	}
}

int main(void)
{
	test_launch();
	test_grid();
	test_grid_svg();
	test_divergence();
	test_occupancy();
	test_streams();
	test_sfu();
	return TEST_DONE();
}
