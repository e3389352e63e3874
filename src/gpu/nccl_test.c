/* gpudiag nccl's arithmetic (nccl.c) with hand-worked values: nccl-tests' bus-bandwidth factors
 * and sizes, the data and the expected results of each collective, the element check, the
 * version text and the link descriptions. tests/cli/nccl.sh runs the command through the mock
 * driver, NVML and NCCL. */
#include "gpu/nccl.h"

#include "core/test.h"

#include <math.h>
#include <stdlib.h>

static void test_factors(void)
{
	/* doc/PERFORMANCE.md: AllReduce 2(n-1)/n, ReduceScatter/AllGather/AlltoAll (n-1)/n, Broadcast 1 */
	CHECK_NEAR(gd_coll_busbw_factor(GD_COLL_ALLREDUCE, 8), 1.75, 0);
	CHECK_NEAR(gd_coll_busbw_factor(GD_COLL_ALLGATHER, 8), 0.875, 0);
	CHECK_NEAR(gd_coll_busbw_factor(GD_COLL_REDUCESCATTER, 8), 0.875, 0);
	CHECK_NEAR(gd_coll_busbw_factor(GD_COLL_ALLTOALL, 8), 0.875, 0);
	CHECK_NEAR(gd_coll_busbw_factor(GD_COLL_BROADCAST, 8), 1, 0);
	CHECK_NEAR(gd_coll_busbw_factor(GD_COLL_ALLREDUCE, 2), 1, 0);
	CHECK_NEAR(gd_coll_busbw_factor(GD_COLL_ALLGATHER, 4), 0.75, 0);
	/* one rank: nothing crosses a link */
	for (int c = 0; c < GD_COLL_COUNT; c++)
		CHECK_NEAR(gd_coll_busbw_factor(c, 1), c == GD_COLL_BROADCAST ? 1 : 0, 0);
	CHECK(isnan(gd_coll_busbw_factor(GD_COLL_ALLREDUCE, 0)));
	CHECK_STR(gd_coll_factor_text(GD_COLL_ALLREDUCE), "2(n-1)/n");
	CHECK_STR(gd_coll_factor_text(GD_COLL_ALLTOALL), "(n-1)/n");
	CHECK_STR(gd_coll_factor_text(GD_COLL_BROADCAST), "1");
	/* 1 GiB all-reduced over 8 GPUs in 5 ms: 214.748 GB/s algbw, x 1.75 = 375.810 GB/s busbw */
	CHECK_NEAR(gd_coll_algbw(1073741824.0, 0.005), 214748364800.0, 1e-3);
	CHECK_NEAR(gd_coll_busbw(GD_COLL_ALLREDUCE, 8, 1073741824.0, 0.005), 375809638400.0, 1e-3);
	CHECK_NEAR(gd_coll_busbw(GD_COLL_ALLGATHER, 8, 1073741824.0, 0.005), 187904819200.0, 1e-3);
	CHECK(isnan(gd_coll_algbw(1, 0)));
	CHECK_INT(gd_coll_parse("reducescatter"), GD_COLL_REDUCESCATTER);
	CHECK_INT(gd_coll_parse("all_reduce"), -1);
	CHECK_STR(gd_coll_name(GD_COLL_ALLTOALL), "AllToAll");
}

static void test_shapes(void)
{
	struct gd_coll_shape sh;
	CHECK_INT(gd_coll_shape(GD_COLL_ALLREDUCE, 1LL << 30, 8, &sh), 0);
	CHECK_INT(sh.count, 268435456);
	CHECK_NEAR(sh.bytes, 1073741824.0, 0);
	/* 1000 B over 8 ranks: 250 floats, 31 per rank, S = 31 x 8 x 4 = 992 B (nccl-tests rounds so) */
	CHECK_INT(gd_coll_shape(GD_COLL_ALLGATHER, 1000, 8, &sh), 0);
	CHECK_INT(sh.count, 31);
	CHECK_INT(sh.send, 31);
	CHECK_INT(sh.recv, 248);
	CHECK_NEAR(sh.bytes, 992, 0);
	CHECK_INT(gd_coll_shape(GD_COLL_REDUCESCATTER, 1000, 8, &sh), 0);
	CHECK_INT(sh.send, 248);
	CHECK_INT(sh.recv, 31);
	CHECK_NEAR(sh.bytes, 992, 0);
	CHECK_INT(gd_coll_shape(GD_COLL_ALLTOALL, 1000, 8, &sh), 0);
	CHECK_INT(sh.count, 31);
	CHECK_INT(sh.send, 248);
	CHECK_INT(sh.recv, 248);
	CHECK_INT(gd_coll_shape(GD_COLL_BROADCAST, 8, 8, &sh), 0);
	CHECK_INT(sh.count, 2);
	CHECK_NEAR(sh.bytes, 8, 0);
	/* below one float per rank: skipped */
	CHECK_INT(gd_coll_shape(GD_COLL_ALLGATHER, 16, 8, &sh), -1);
	CHECK_INT(gd_coll_shape(GD_COLL_ALLREDUCE, 2, 1, &sh), -1);
}

static void test_data(void)
{
	float *buf = malloc(600 * sizeof(float));
	int same = 1;
	CHECK_NEAR(gd_nccl_value(0, 0), 1, 0);
	CHECK_NEAR(gd_nccl_value(1, 0), 14, 0);
	CHECK_NEAR(gd_nccl_value(0, 1), 8, 0);
	CHECK_NEAR(gd_nccl_value(0, 35), 246, 0);
	CHECK_NEAR(gd_nccl_value(0, 36), 2, 0); /* (252 + 1) mod 251 */
	for (int r = 0; r < 10; r++) {
		gd_nccl_fill(r, buf, 600);
		for (size_t i = 0; i < 600; i++)
			same &= buf[i] == gd_nccl_value(r, i);
	}
	CHECK(same);
	/* two ranks, 4 elements per rank where the call takes a per-rank count */
	CHECK_NEAR(gd_nccl_expected(GD_COLL_ALLREDUCE, 2, 0, 8, 0), 15, 0);  /* 1 + 14 */
	CHECK_NEAR(gd_nccl_expected(GD_COLL_ALLGATHER, 2, 0, 4, 5), 21, 0);  /* rank 1's element 1 */
	CHECK_NEAR(gd_nccl_expected(GD_COLL_REDUCESCATTER, 2, 1, 4, 2), 99, 0); /* v(0,6) + v(1,6) = 43 + 56 */
	CHECK_NEAR(gd_nccl_expected(GD_COLL_BROADCAST, 2, 1, 8, 3), 22, 0);  /* root 0's element 3 */
	CHECK_NEAR(gd_nccl_expected(GD_COLL_ALLTOALL, 2, 1, 4, 2), 43, 0);   /* from rank 0: its element 6 */
	CHECK_NEAR(gd_nccl_expected(GD_COLL_ALLTOALL, 2, 1, 4, 6), 56, 0);   /* from rank 1: its element 6 */
	free(buf);
}

/* The check counts every element that differs, NaN (an unwritten, poisoned element) included;
 * the all-reduce's stepped sum agrees with the plain one for few and for many ranks. */
static void test_check(void)
{
	const int ranks[] = {1, 3, 70};
	for (int k = 0; k < 3; k++) {
		int n = ranks[k];
		size_t m = 1000;
		float *b = malloc(m * sizeof(float));
		for (int c = 0; c < GD_COLL_COUNT; c++) {
			size_t count = c == GD_COLL_ALLREDUCE || c == GD_COLL_BROADCAST ? m : m / (size_t)n;
			size_t recv = c == GD_COLL_REDUCESCATTER ? count : c == GD_COLL_ALLREDUCE || c == GD_COLL_BROADCAST ? m
											       : count * (size_t)n;
			for (size_t i = 0; i < recv; i++)
				b[i] = gd_nccl_expected(c, n, n - 1, count, i);
			CHECK_INT(gd_nccl_check(c, n, n - 1, count, b, recv), 0);
			b[recv / 2] += 1;
			b[0] = NAN;
			CHECK_INT(gd_nccl_check(c, n, n - 1, count, b, recv), recv > 1 ? 2 : 1);
		}
		free(b);
	}
	/* 2 ranks: the all-reduce of 4 elements */
	{
		float r[4] = {15, 29, 43, 57};
		CHECK_INT(gd_nccl_check(GD_COLL_ALLREDUCE, 2, 0, 4, r, 4), 0);
		r[3] = 58;
		CHECK_INT(gd_nccl_check(GD_COLL_ALLREDUCE, 2, 0, 4, r, 4), 1);
	}
}

static void test_text(void)
{
	char b[32];
	struct gd_link l;
	CHECK_STR(gd_nccl_version_text(22809, b, sizeof(b)), "2.28.9");
	CHECK_STR(gd_nccl_version_text(21803, b, sizeof(b)), "2.18.3");
	CHECK_STR(gd_nccl_version_text(2708, b, sizeof(b)), "2.7.8"); /* before 2.9: X*1000 + Y*100 + Z */
	CHECK_STR(gd_nccl_version_text(-1, b, sizeof(b)), "unknown");
	gd_link_describe(&l, -1, 0, 0, 40);
	CHECK_INT(l.kind, GD_LINK_PCIE);
	CHECK_STR(l.code, "NODE");
	gd_link_describe(&l, 0, 0, 0, 10);
	CHECK_STR(l.code, "PIX");
	CHECK_STR(l.text, "PCIe, one switch");
	gd_link_describe(&l, 1, 0, 18, 50);
	CHECK_INT(l.kind, GD_LINK_NVSWITCH);
	CHECK_STR(l.code, "NV18");
	CHECK_INT(l.nvlinks, 18);
	gd_link_describe(&l, -1, 4, 0, -1);
	CHECK_INT(l.kind, GD_LINK_NVLINK);
	CHECK_STR(l.code, "NV4");
	gd_link_describe(&l, 1, 0, 0, 30);
	CHECK_STR(l.code, "NV");
	gd_link_describe(&l, 0, 0, 0, 0);
	CHECK_INT(l.kind, GD_LINK_SAME);
	gd_link_describe(&l, -1, 0, 0, -1);
	CHECK_INT(l.kind, GD_LINK_UNKNOWN);
	CHECK_STR(l.code, "?");
}

int main(void)
{
	test_factors();
	test_shapes();
	test_data();
	test_check();
	test_text();
	return TEST_DONE();
}
