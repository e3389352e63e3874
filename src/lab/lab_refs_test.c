/* CPU-tier tests of the labs' CPU references: lab memory's read kernel's index walk and its expected total,
 * the pointer chase, the edge finder, and the coalescing and precision references. */
#include "core/status.h"
#include "core/test.h"
#include "kernels/lab_hash.h"
#include "lab/lab_coalescing.h"
#include "lab/lab_memory.h"
#include "lab/lab_precision.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The kernel's walk, done on the CPU: lane l of warp w starts at (w·iters·32 + l) mod n16 and
 * steps by 32 with one conditional subtraction (exactly the code of k_read). */
static uint32_t simulate_read(uint64_t n16, int blocks, int threads, int iters, uint32_t seed)
{
	uint64_t T = (uint64_t)blocks * threads;
	uint32_t total = 0;
	for (uint64_t t = 0; t < T; t++) {
		uint64_t w = t >> 5, idx = ((w * (uint64_t)iters) * 32 + (t & 31)) % n16;
		for (int i = 0; i < iters; i++) {
			for (int l = 0; l < 4; l++)
				total += gd_hash32(4 * idx + l, seed);
			idx += 32;
			if (idx >= n16)
				idx -= n16;
		}
	}
	return total;
}

static void test_read_total(void)
{
	/* small sets (T > n16), large sets (T < n16), non-multiples */
	static const struct {
		uint64_t n16;
		int blocks, threads, iters;
	} cs[] = {{32, 2, 32, 3}, {1000, 3, 64, 5}, {64, 4, 32, 7}, {100003, 2, 64, 800}, {333, 1, 32, 11}};
	uint64_t n16s[5], loads[5];
	uint32_t totals[5];
	for (int i = 0; i < 5; i++) {
		uint64_t L = (uint64_t)cs[i].blocks * cs[i].threads * cs[i].iters;
		uint32_t sim = simulate_read(cs[i].n16, cs[i].blocks, cs[i].threads, cs[i].iters, 7);
		CHECK_INT(gd_labmem_read_total(cs[i].n16, L, 7), sim);
		n16s[i] = cs[i].n16;
		loads[i] = L;
	}
	gd_labmem_read_totals(n16s, loads, 5, 7, totals); /* the one-sweep version agrees */
	for (int i = 0; i < 5; i++)
		CHECK_INT(totals[i], gd_labmem_read_total(n16s[i], loads[i], 7));
	CHECK(gd_labmem_read_total(64, 64 * 3, 7) != gd_labmem_read_total(64, 64 * 3, 8)); /* seed matters */
}

static void test_chase(void)
{
	size_t n = 1000;
	uint32_t *order = malloc(n * 4), *buf = malloc(n * 32 * 4), p;
	char *seen = calloc(n, 1);
	uint64_t rng = 5;
	int perm = 1;
	gd_labmem_chase_order(order, n, &rng);
	for (size_t i = 0; i < n; i++) {
		perm &= order[i] < n && !seen[order[i]];
		seen[order[i]] = 1;
	}
	CHECK(perm);
	/* link exactly as k_link does, then walk */
	for (size_t i = 0; i < n; i++)
		buf[(size_t)order[i] * 32] = order[i + 1 == n ? 0 : i + 1] * 32;
	p = order[0] * 32;
	for (int s = 0; s < 2345; s++)
		p = buf[p];
	CHECK_INT(p, gd_labmem_chase_end(order, n, 32, 2345));
	/* one cycle through every node: back at the start after n steps */
	CHECK_INT(gd_labmem_chase_end(order, n, 32, n), order[0] * 32);
	free(order);
	free(buf);
	free(seen);
}

static void test_edge(void)
{
	double ws[8] = {1e4, 1e5, 1e6, 1e7, 3e7, 6e7, 1e8, 1e9};
	double bw[8] = {20000, 9000, 9000, 8800, 8500, 5000, 3500, 3400};
	CHECK_INT(gd_labmem_edge(ws, bw, 8, 3400, 8800, 1e6), 5); /* below √(3400·8800) ≈ 5470 */
	CHECK_INT(gd_labmem_edge(ws, bw, 8, 8800, 20000, 0), 1);
	CHECK_INT(gd_labmem_edge(ws, bw, 8, 3400, 3000, 0), -1); /* no step */
}

static void test_coalescing_refs(void)
{
	CHECK_NEAR(gd_labco_sector_factor(1, 4), 1, 0);
	CHECK_NEAR(gd_labco_sector_factor(4, 4), 4, 0);
	CHECK_NEAR(gd_labco_sector_factor(8, 4), 8, 0);
	CHECK_NEAR(gd_labco_sector_factor(32, 4), 8, 0); /* the guide's 128-byte stride */
	CHECK_NEAR(gd_labco_sector_factor(64, 4), 8, 0);
	CHECK_NEAR(gd_labco_sector_factor(2, 2), 2, 0);
	CHECK_NEAR(gd_labco_sector_factor(64, 2), 16, 0);
	{
		/* the stride kernel's block sums, simulated thread by thread (grid-stride loop) */
		size_t n = 5000, mask = 4095;
		int blocks = 3;
		uint32_t ref[3], sim[3] = {0, 0, 0};
		size_t T = (size_t)blocks * 256;
		gd_labco_stride_ref(n, 8, 100, mask, blocks, 9, ref);
		for (size_t t = 0; t < T; t++)
			for (size_t i = t; i < n; i += T)
				sim[t / 256] += gd_hash32((100 + i * 8) & mask, 9);
		CHECK_INT(ref[0], sim[0]);
		CHECK_INT(ref[1], sim[1]);
		CHECK_INT(ref[2], sim[2]);
	}
	{
		/* the tiled transpose's index math (k_transpose_tiled, 32×8 threads, 4 rows each) on a
		 * 64×64 matrix gives what the reference says */
		enum { M = 64 };
		static float in[M * M], out[M * M], tile[32][33];
		int ok = 1;
		for (int i = 0; i < M * M; i++)
			in[i] = gd_hashf((uint64_t)i, 3);
		for (int by = 0; by < M / 32; by++)
			for (int bx = 0; bx < M / 32; bx++) {
				for (int ty = 0; ty < 8; ty++)
					for (int tx = 0; tx < 32; tx++)
						for (int k = 0; k < 32; k += 8)
							tile[ty + k][tx] =
							    in[(by * 32 + ty + k) * M + bx * 32 + tx];
				for (int ty = 0; ty < 8; ty++)
					for (int tx = 0; tx < 32; tx++)
						for (int k = 0; k < 32; k += 8)
							out[(bx * 32 + ty + k) * M + by * 32 + tx] =
							    tile[tx][ty + k];
			}
		for (int i = 0; i < M * M; i++)
			ok &= out[i] == (float)gd_labco_transpose_ref(M, (size_t)i, 3);
		CHECK(ok);
		CHECK_NEAR(gd_labco_transpose_ref(M, 1, 3), gd_hashf(M, 3), 0); /* out[0][1] = in[1][0] */
	}
	{
		/* permute(0,2,1): out[b][k][j] = x[b][j][k] */
		size_t b = 2, s = 3, d = 5;
		int ok = 1;
		for (size_t bi = 0; bi < b; bi++)
			for (size_t k = 0; k < d; k++)
				for (size_t j = 0; j < s; j++)
					ok &= gd_labco_permute_src((bi * d + k) * s + j, b, s, d) ==
					      (bi * s + j) * d + k;
		CHECK(ok);
	}
	CHECK_NEAR(gd_labco_aos_ref(5, 1), (double)gd_hashf(40, 1) + (double)gd_hashf(43, 1) * (double)0.01f,
		   1e-12);
}

/* The batched grid-stride loops of k_copy (4 per thread) and k_scale (2 per thread), run on
 * the CPU: every index is visited exactly once for any size and grid. */
static int visits_once(size_t n, size_t T, int batch)
{
	unsigned char *seen = calloc(n + 1, 1);
	int ok = 1;
	for (size_t t = 0; t < T; t++) {
		size_t i = t;
		for (; i + (size_t)(batch - 1) * T < n; i += (size_t)batch * T)
			for (int k = 0; k < batch; k++)
				seen[i + (size_t)k * T]++;
		for (; i < n; i += T)
			seen[i]++;
	}
	for (size_t i = 0; i < n; i++)
		ok &= seen[i] == 1;
	free(seen);
	return ok;
}

static void test_batched_loops(void)
{
	static const size_t ns[] = {1, 7, 64, 1000, 4096, 10007};
	static const size_t Ts[] = {1, 32, 96, 256, 5000};
	int ok = 1;
	for (int a = 0; a < 6; a++)
		for (int b = 0; b < 5; b++)
			ok &= visits_once(ns[a], Ts[b], 4) && visits_once(ns[a], Ts[b], 2);
	CHECK(ok);
}

static void test_hash(void)
{
	/* hashf is exact in FP32 and covers [-1, 1) */
	double lo = 1, hi = -1;
	int exact = 1;
	for (uint64_t j = 0; j < 100000; j++) {
		float f = gd_hashf(j, 1);
		double d = (double)(gd_hash32(j, 1) >> 8) / 8388608.0 - 1.0;
		exact &= (double)f == d;
		if (f < lo)
			lo = f;
		if (f > hi)
			hi = f;
	}
	CHECK(exact);
	CHECK(lo >= -1 && lo < -0.99 && hi < 1 && hi > 0.99);
}

static void test_precision_refs(void)
{
	float x32[3] = {1.0f, -0.3f, 1.99f};
	uint16_t h[2] = {gd_f32_to_f16(0.1f), gd_f32_to_bf16(0.1f)};
	uint8_t e[3] = {gd_f32_to_e4m3(1.0f), gd_f32_to_e4m3(400.0f), gd_f32_to_e4m3(0.1f)};
	CHECK_NEAR(gd_labprec_scale_ref(x32, 1, GD_DT_F32, 1.5f), (double)(1.5f * -0.3f), 0);
	CHECK_NEAR(gd_labprec_scale_ref(h, 0, GD_DT_F16, 1.5f),
		   gd_f16_to_f32(gd_f32_to_f16(1.5f * gd_f16_to_f32(h[0]))), 0);
	CHECK_NEAR(gd_labprec_scale_ref(e, 0, GD_DT_FP8E4M3, 1.5f), 1.5, 0);
	CHECK_NEAR(gd_labprec_scale_ref(e, 1, GD_DT_FP8E4M3, 1.5f), 448, 0); /* saturates */
	CHECK_NEAR(gd_labprec_scale_ref(e, 2, GD_DT_FP8E4M3, 1.5f), 0.15625,
		   0); /* 0.1 → 0.1015625 → ·1.5 → 0.15625 */
	{
		/* A 2×3, B given as n×k (2×3) and as k×n (3×2) */
		float a[6] = {1, 2, 3, 4, 5, 6}, bnk[6] = {1, 0, -1, 2, 1, 0}, bkn[6] = {1, 2, 0, 1, -1, 0};
		double sc;
		CHECK_NEAR(gd_labprec_gemm_ref(a, bnk, GD_DT_F32, 3, 0, 0, 1, 2, &sc), -2,
			   0); /* 1·1+2·0+3·(-1) */
		CHECK_NEAR(sc, 4, 0);
		CHECK_NEAR(gd_labprec_gemm_ref(a, bnk, GD_DT_F32, 3, 1, 1, 1, 2, NULL), 13,
			   0); /* 4·2+5·1+6·0 */
		CHECK_NEAR(gd_labprec_gemm_ref(a, bkn, GD_DT_F32, 3, 0, 0, 0, 2, NULL), -2, 0);
		CHECK_NEAR(gd_labprec_gemm_ref(a, bkn, GD_DT_F32, 3, 1, 1, 0, 2, NULL), 13, 0);
	}
}

int main(void)
{
	gd_set_quiet(1);
	test_read_total();
	test_chase();
	test_edge();
	test_coalescing_refs();
	test_hash();
	test_batched_loops();
	test_precision_refs();
	return TEST_DONE();
}
