/* CPU-tier tests of the roofline's CPU models and arithmetic (src/roofline/model.h) and of
 * the rendering helpers (render.c). */
#include "core/test.h"
#include "roofline/ceilings.h"
#include "roofline/model.h"
#include "roofline/render.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void test_pattern(void)
{
	/* word values are a fixed function: pin two of them so a change is noticed */
	uint32_t h = (0u ^ 0u ^ 7u) * 0x9E3779B1u;
	CHECK_INT(gd_rl_word(0, 7), h ^ (h >> 16));
	CHECK(gd_rl_word(1, 7) != gd_rl_word(2, 7));
	CHECK(gd_rl_word(5, 1) != gd_rl_word(5, 2));
	/* the high half of the index matters */
	CHECK(gd_rl_word(5, 1) != gd_rl_word(5 + (1ull << 32), 1));
	/* sum is the wrap-around sum of the words */
	uint32_t s = 0;
	for (int i = 0; i < 1000; i++)
		s += gd_rl_word((uint64_t)i, 42);
	CHECK_INT(gd_rl_pattern_sum(1000, 42), s);
	CHECK_INT(gd_rl_pattern_sum(0, 42), 0);
	/* the smem/L1 kernel (k_onchip): simulate one block's loads with the kernel's index
	 * formula and check the model (iters/4)·Σ over the 4096-word tile; and check that a
	 * thread's address never repeats within 32 loads, so the compiler cannot hoist loads
	 * out of the loop (the first version repeated every 4 and ptxas did). */
	{
		uint32_t tile = gd_rl_pattern_sum(4096, 9), block = 0;
		const int iters = 64;
		int repeats = 0;
		for (unsigned t = 0; t < 256; t++)
			for (int k = 0; k < iters; k++) {
				unsigned w = (t + 32u * (unsigned)k) & 1023u;
				for (int c = 0; c < 4; c++)
					block += gd_rl_word(4 * (uint64_t)w + (uint64_t)c, 9);
				for (int j = 1; j < 32 && k + j < iters; j++)
					repeats += ((t + 32u * (unsigned)(k + j)) & 1023u) == w;
			}
		CHECK_INT(block, (uint32_t)(iters / 4) * tile);
		CHECK_INT(repeats, 0);
	}
}

static void test_round(void)
{
	/* FP16: 11 significant bits */
	CHECK_NEAR(gd_rl_round(1.0 + 1.0 / 2048, GD_RL_F16_P, GD_RL_F16_EMIN), 1.0, 0); /* tie → even */
	CHECK_NEAR(gd_rl_round(1.0 + 3.0 / 2048, GD_RL_F16_P, GD_RL_F16_EMIN), 1.0 + 4.0 / 2048, 0); /* tie → even (up) */
	CHECK_NEAR(gd_rl_round(1.0 + 1.1 / 2048, GD_RL_F16_P, GD_RL_F16_EMIN), 1.0 + 2.0 / 2048, 0);
	CHECK_NEAR(gd_rl_round(0.0123, GD_RL_F16_P, GD_RL_F16_EMIN), 0.01229858398438, 1e-14);
	/* subnormal FP16: spacing 2^-24 */
	CHECK_NEAR(gd_rl_round(3.3 * ldexp(1, -24), GD_RL_F16_P, GD_RL_F16_EMIN), 3 * ldexp(1, -24), 0);
	/* BF16: 8 significant bits */
	CHECK_NEAR(gd_rl_round(1.0 + 1.0 / 256, GD_RL_BF16_P, GD_RL_BF16_EMIN), 1.0, 0);
	CHECK_NEAR(gd_rl_round(1.0 + 1.5 / 256, GD_RL_BF16_P, GD_RL_BF16_EMIN), 1.0 + 2.0 / 256, 0);
	CHECK_NEAR(gd_rl_round(-2.7, GD_RL_BF16_P, GD_RL_BF16_EMIN), -2.703125, 0);
	/* FP32 rounding through the generic function agrees with the C cast */
	for (int i = 1; i < 200; i++) {
		double v = 1.0 / i + i * 1e-9;
		CHECK_NEAR(gd_rl_round(v, 24, -126), (double)(float)v, 0);
	}
	CHECK_NEAR(gd_rl_round(0, 11, -14), 0, 0);
}

static void test_fma_model(void)
{
	/* seeds are exact in every format */
	for (int c = 0; c < 16; c++) {
		double s = gd_rl_fma_seed(12345, c);
		CHECK(s >= 1 && s < 2);
		CHECK_NEAR(gd_rl_to_fmt(s, GD_RL_BF16), s, 0);
	}
	/* zero steps: the model is the ordered sum of the seeds */
	double sum = 0;
	for (int c = 0; c < GD_RL_CHAINS; c++)
		sum += gd_rl_fma_seed(3, c);
	CHECK_NEAR(gd_rl_fma_model(GD_RL_F64, 3, 0), sum, 1e-12);
	/* FP64 with a few steps equals a hand-written chain */
	double a = GD_RL_FMA_A, b = GD_RL_FMA_B, want = 0;
	for (int c = 0; c < GD_RL_CHAINS; c++) {
		double x = gd_rl_fma_seed(77, c);
		for (int i = 0; i < 5; i++)
			x = fma(x, a, b);
		want = c ? want + x : x;
	}
	CHECK_NEAR(gd_rl_fma_model(GD_RL_F64, 77, 5), want, 0);
	/* FP32 model uses float FMAs: compare with a float chain */
	float af = (float)GD_RL_FMA_A, bf = (float)GD_RL_FMA_B, wf = 0;
	for (int c = 0; c < GD_RL_CHAINS; c++) {
		float x = (float)gd_rl_fma_seed(9, c);
		for (int i = 0; i < 100; i++)
			x = fmaf(x, af, bf);
		wf = c ? wf + x : x;
	}
	CHECK_NEAR(gd_rl_fma_model(GD_RL_F32, 9, 100), wf, 0);
	/* long chains converge near the fixed point b/(1−a) per chain, in every format */
	double fixed = GD_RL_FMA_B / (1 - GD_RL_FMA_A);
	CHECK_NEAR(gd_rl_fma_model(GD_RL_F64, 1, 8192), GD_RL_CHAINS * fixed, 1e-9);
	CHECK_NEAR(gd_rl_fma_model(GD_RL_F32, 1, 8192), GD_RL_CHAINS * fixed, 1e-3);
	double h = gd_rl_fma_model(GD_RL_F16, 1, 4096);
	CHECK_NEAR(h, 2 * GD_RL_CHAINS * fixed, 0.3);
	CHECK_NEAR(gd_rl_to_fmt(h, GD_RL_F16), h, 0); /* representable in FP16 */
	double bf16 = gd_rl_fma_model(GD_RL_BF16, 1, 4096);
	CHECK_NEAR(bf16, 2 * GD_RL_CHAINS * fixed, 3);
	CHECK_NEAR(gd_rl_to_fmt(bf16, GD_RL_BF16), bf16, 0);
	/* different threads differ after a few steps (the check sees the thread index) */
	CHECK(gd_rl_fma_model(GD_RL_F32, 1, 3) != gd_rl_fma_model(GD_RL_F32, 2, 3));
	/* FP16 fma rounds once: 1 + 2^-11 is not representable, 1·1 + 2^-11 rounds to 1 (tie, even) */
	CHECK_NEAR(gd_rl_fma_fmt(1, 1, ldexp(1, -11), GD_RL_F16), 1.0, 0);
	CHECK_NEAR(gd_rl_fma_fmt(1, 1, 3 * ldexp(1, -12), GD_RL_F16), 1.0 + ldexp(1, -10), 0);
}

static void test_sfu_model(void)
{
	/* converges to the omega constant W(1) = 0.5671432904 */
	double s = gd_rl_sfu_model(5, 200);
	CHECK_NEAR(s, GD_RL_CHAINS * 0.5671432904097838, 1e-9);
	double one = gd_rl_sfu_model(5, 1), want = 0;
	for (int c = 0; c < GD_RL_CHAINS; c++)
		want += exp(-(double)gd_rl_sfu_seed(5, c));
	CHECK_NEAR(one, want, 1e-12);
}

static void test_mma_model(void)
{
	/* 2×2×3 by hand: A = [1 2 3; 4 5 6], Bt = [1 0 1; 0 1 0] → A·Bᵀ = [4 2; 10 5] */
	double a[6] = {1, 2, 3, 4, 5, 6}, bt[6] = {1, 0, 1, 0, 1, 0}, d[4], bound[4];
	gd_rl_mma_model(a, bt, 2, 2, 3, 10, d, bound);
	CHECK_NEAR(d[0], 40, 0);
	CHECK_NEAR(d[1], 20, 0);
	CHECK_NEAR(d[2], 100, 0);
	CHECK_NEAR(d[3], 50, 0);
	double a2[2] = {1, -2}, b2[2] = {3, 4}, d2, bd2;
	gd_rl_mma_model(a2, b2, 1, 1, 2, 1, &d2, &bd2);
	CHECK_NEAR(d2, -5, 0);
	CHECK_NEAR(bd2, 11, 0);
	/* tile values: multiples of 1/8 in [−1, 1] (exact in e4m3: ≤ 4 significant bits) */
	for (uint32_t i = 0; i < 500; i++) {
		double v = gd_rl_tile_value(i, 1, 0), k = v * 8;
		CHECK(v >= -1 && v <= 1 && k == floor(k));
		double iv = gd_rl_tile_value(i, 1, 1);
		CHECK(iv >= -8 && iv <= 7 && iv == floor(iv));
	}
	double x[3] = {1, 2, 3}, y[3] = {-1, 1, 2}, ab;
	CHECK_NEAR(gd_rl_dot(x, y, 3, &ab), 7, 0);
	CHECK_NEAR(ab, 9, 0);
}

/* The fragment index math of the tensor kernels covers every element exactly once. */
static void test_fragments(void)
{
	const int shapes[3][2] = {{16, 2}, {8, 1}, {32, 4}}; /* K, elements per register */
	for (int s = 0; s < 3; s++) {
		int K = shapes[s][0], e = shapes[s][1], dupA = 0, dupB = 0, outside = 0;
		static int seenA[16 * 32], seenB[8 * 32];
		memset(seenA, 0, sizeof seenA);
		memset(seenB, 0, sizeof seenB);
		for (int lane = 0; lane < 32; lane++) {
			for (int r = 0; r < 4; r++)
				for (int j = 0; j < e; j++) {
					int row, col;
					gd_rl_mma_a_pos(lane, r, K, e, &row, &col);
					col += j;
					if (row < 0 || row >= 16 || col < 0 || col >= K)
						outside++;
					else
						dupA += seenA[row * K + col]++ != 0;
				}
			for (int r = 0; r < 2; r++)
				for (int j = 0; j < e; j++) {
					int n, k;
					gd_rl_mma_b_pos(lane, r, K, e, &n, &k);
					k += j;
					if (n < 0 || n >= 8 || k < 0 || k >= K)
						outside++;
					else
						dupB += seenB[n * K + k]++ != 0;
				}
		}
		CHECK_INT(outside, 0);
		CHECK_INT(dupA, 0);
		CHECK_INT(dupB, 0);
	}
	int seenC[128] = {0}, dupC = 0;
	for (int lane = 0; lane < 32; lane++)
		for (int r = 0; r < 4; r++) {
			int row, col;
			gd_rl_mma_c_pos(lane, r, &row, &col);
			CHECK(row >= 0 && row < 16 && col >= 0 && col < 8);
			dupC += seenC[row * 8 + col]++ != 0;
		}
	CHECK_INT(dupC, 0);
	/* spot values from the PTX ISA figures */
	int row, col;
	gd_rl_mma_a_pos(6, 2, 16, 2, &row, &col); /* f16 a4: row g = 1, col 2t + 8 = 12 */
	CHECK_INT(row, 1);
	CHECK_INT(col, 12);
	gd_rl_mma_a_pos(6, 1, 8, 1, &row, &col); /* tf32 a1: row g + 8 = 9, col t = 2 */
	CHECK_INT(row, 9);
	CHECK_INT(col, 2);
	gd_rl_mma_c_pos(5, 2, &row, &col); /* c2: row g + 8 = 9, col 2t = 2 */
	CHECK_INT(row, 9);
	CHECK_INT(col, 2);
	/* wgmma m64n256 f32 accumulator: 128 threads × 128 registers = 64 × 256, once each */
	static int seenD[64 * 256];
	int dupD = 0, outD = 0;
	memset(seenD, 0, sizeof seenD);
	for (int th = 0; th < 128; th++)
		for (int i = 0; i < 128; i++) {
			gd_rl_wgmma_d_pos(th, i, &row, &col);
			if (row < 0 || row >= 64 || col < 0 || col >= 256)
				outD++;
			else
				dupD += seenD[row * 256 + col]++ != 0;
		}
	CHECK_INT(outD, 0);
	CHECK_INT(dupD, 0);
	gd_rl_wgmma_d_pos(37, 6, &row, &col); /* warp 1, lane 5 (g 1, t 1), j 1, r 2 */
	CHECK_INT(row, 16 + 1 + 8);
	CHECK_INT(col, 8 + 2);
	/* the shared-memory image: every (step, row, byte) has its own byte inside the operand */
	for (int R = 64; R <= 256; R *= 4) {
		static unsigned char used[256 * 32 * 4];
		int dup = 0, out = 0;
		memset(used, 0, sizeof used);
		for (int st = 0; st < 4; st++)
			for (int r = 0; r < R; r++)
				for (int kb = 0; kb < 32; kb++) {
					int off = gd_rl_wgmma_smem_off(R, st, r, kb);
					if (off < 0 || off >= R * 32 * 4)
						out++;
					else
						dup += used[off]++ != 0;
				}
		CHECK_INT(out, 0);
		CHECK_INT(dup, 0);
	}
	/* core matrix geometry: rows of a core matrix 16 B apart, K-neighbours 128 B, M-neighbours 256 B */
	CHECK_INT(gd_rl_wgmma_smem_off(64, 0, 1, 0) - gd_rl_wgmma_smem_off(64, 0, 0, 0), 16);
	CHECK_INT(gd_rl_wgmma_smem_off(64, 0, 0, 16) - gd_rl_wgmma_smem_off(64, 0, 0, 0), 128);
	CHECK_INT(gd_rl_wgmma_smem_off(64, 0, 8, 0) - gd_rl_wgmma_smem_off(64, 0, 0, 0), 256);
	CHECK_INT(gd_rl_wgmma_smem_off(256, 1, 0, 0), 256 * 32);
}

/* The wgmma operand image for every element size, and whether the checks' exact models are
 * representable in the accumulator each precision really has (the FP8 one is 14 bits). */
static void test_wgmma_precision(void)
{
	for (int esize = 1; esize <= 4; esize *= 2) {
		const int Kt = 4 * 32 / esize;
		for (int R = 64; R <= 256; R *= 4) {
			static unsigned char used[256 * 32 * 4];
			int dup = 0, out = 0, misaligned = 0;
			memset(used, 0, sizeof used);
			for (int r = 0; r < R; r++)
				for (int k = 0; k < Kt; k++) {
					int off = gd_rl_wgmma_elem_off(R, esize, r, k);
					misaligned += off % esize != 0;
					if (off < 0 || off + esize > R * 32 * 4)
						out++;
					else
						for (int b = 0; b < esize; b++)
							dup += used[off + b]++ != 0;
				}
			CHECK_INT(out, 0);
			CHECK_INT(dup, 0);
			CHECK_INT(misaligned, 0);
		}
	}
	/* FP8: 32 elements per k-step; elements 0..15 in the first core matrix, 16..31 in the
	 * K-neighbour 128 B on, element 32 starts k-step 1 */
	CHECK_INT(gd_rl_wgmma_elem_off(64, 1, 0, 15), 15);
	CHECK_INT(gd_rl_wgmma_elem_off(64, 1, 0, 16), 128);
	CHECK_INT(gd_rl_wgmma_elem_off(64, 1, 0, 32), 64 * 32);
	CHECK_INT(gd_rl_wgmma_elem_off(256, 1, 9, 33), 256 * 32 + 2 * 128 + 16 + 1);
	/* TF32: 8 per k-step, 4 bytes each */
	CHECK_INT(gd_rl_wgmma_elem_off(64, 4, 0, 4), 128);
	CHECK_INT(gd_rl_wgmma_elem_off(64, 4, 0, 8), 64 * 32);

	/* the tiles the wgmma test uses (same seeds), K = 4 k-steps */
	const int iters_full = 2048, iters_quick = 512;
	for (int fp8 = 0; fp8 <= 1; fp8++) {
		const int Kt = fp8 ? 128 : 64; /* FP8 k32 × 4, FP16/BF16 k16 × 4 */
		static double a[64 * 128], bt[256 * 128];
		for (int i = 0; i < 64 * Kt; i++)
			a[i] = gd_rl_tile_value(i, 0xA11CEu, 0);
		for (int i = 0; i < 256 * Kt; i++)
			bt[i] = gd_rl_tile_value(i, 0xB0Bu, 0);
		const int acc_bits = fp8 ? GD_RL_FP8_ACC_BITS : GD_RL_FP32_ACC_BITS;
		for (int q = 0; q < 2; q++) {
			int iters = q ? iters_quick : iters_full;
			int times = gd_rl_wgmma_check_times(fp8, iters);
			double mx = gd_rl_mma_max_partial(a, bt, 64, 256, Kt, times);
			int bits = gd_rl_bits_needed(mx, 1.0 / 64);
			if (bits > acc_bits)
				printf("wgmma %s, %d iterations: partial sums up to %g need %d bits, accumulator has %d\n",
				       fp8 ? "FP8" : "FP16", iters, mx, bits, acc_bits);
			CHECK(bits <= acc_bits);
		}
	}
	/* what the first H200 run hit: FP8 accumulated over all 2048 iterations needs more */
	{
		static double a[64 * 128], bt[256 * 128];
		for (int i = 0; i < 64 * 128; i++)
			a[i] = gd_rl_tile_value(i, 0xA11CEu, 0);
		for (int i = 0; i < 256 * 128; i++)
			bt[i] = gd_rl_tile_value(i, 0xB0Bu, 0);
		CHECK(gd_rl_bits_needed(gd_rl_mma_max_partial(a, bt, 64, 256, 128, 2048), 1.0 / 64) > GD_RL_FP8_ACC_BITS);
		CHECK(gd_rl_bits_needed(gd_rl_mma_max_partial(a, bt, 64, 256, 128, 8), 1.0 / 64) <= GD_RL_FP8_ACC_BITS);
	}
	/* bits_needed: 2^b · q must exceed the value */
	CHECK_INT(gd_rl_bits_needed(1.0, 1.0 / 64), 7);
	CHECK_INT(gd_rl_bits_needed(0.99, 1.0 / 64), 6);
	CHECK_INT(gd_rl_bits_needed(0, 1.0 / 64), 0);
	/* the partial-sum bound sees intermediate values, not just the final one */
	{
		double a2[2] = {1, -1}, b2[2] = {1, 1};
		CHECK_NEAR(gd_rl_mma_max_partial(a2, b2, 1, 1, 2, 1000), 1, 0); /* 1, 0, 1, 0, ... */
		double a3[2] = {1, 0.5}, b3[2] = {1, 1};
		CHECK_NEAR(gd_rl_mma_max_partial(a3, b3, 1, 1, 2, 3), 4.5, 0);
	}
}

static void test_accounting(void)
{
	double gib = 1024.0 * 1024 * 1024;
	CHECK_NEAR(gd_rl_bytes_read(gib), gib, 0);
	CHECK_NEAR(gd_rl_bytes_write(gib), gib, 0);
	CHECK_NEAR(gd_rl_bytes_copy(gib), 2 * gib, 0); /* read + write */
	CHECK_NEAR(gd_rl_bytes_repeated(30e6, 266), 7.98e9, 1);
	/* 132 SMs × 2048 threads × 8 chains × 16384 steps × 2 FLOP */
	CHECK_NEAR(gd_rl_fma_flops(132 * 2048.0, 8, 16384, 1), 132 * 2048.0 * 8 * 16384 * 2, 0);
	CHECK_NEAR(gd_rl_fma_flops(10, 8, 100, 2), 10 * 8 * 100 * 4.0, 0); /* half2: 4 FLOP per FMA */
	CHECK_NEAR(gd_rl_mma_flops(16, 8, 16), 4096, 0);
	CHECK_NEAR(gd_rl_mma_flops(8192, 8192, 8192), 2.0 * 8192 * 8192 * 8192, 0);
	/* datasheet DRAM: H200 = 2 × 3201 MHz × 6016 bit / 8 = 4.815 TB/s */
	CHECK_NEAR(gd_rl_dram_datasheet(3201, 6016), 2 * 3201e6 * 6016 / 8, 1);
	CHECK_NEAR(gd_rl_dram_datasheet(3201, 6016) / 1e12, 4.815, 0.001);
	CHECK(isnan(gd_rl_dram_datasheet(-1, 6016)));
	CHECK(isnan(gd_rl_dram_datasheet(3201, 0)));
}

static void test_ridge(void)
{
	/* the guide's H100 example: 1979 TFLOP/s FP8 over 3.35 TB/s ≈ 591 FLOP/byte */
	CHECK_NEAR(gd_rl_ridge(1979e12, 3.35e12), 590.7, 0.1);
	CHECK(isnan(gd_rl_ridge(NAN, 3e12)));
	CHECK(isnan(gd_rl_ridge(1e12, 0)));
	CHECK(isnan(gd_rl_ridge(-1, 1)));
	CHECK_NEAR(gd_rl_attainable(10, 1e15, 4e12), 4e13, 0);  /* memory-bound */
	CHECK_NEAR(gd_rl_attainable(1000, 1e15, 4e12), 1e15, 0); /* compute-bound */
	CHECK_NEAR(gd_rl_attainable(250, 1e15, 4e12), 1e15, 0);  /* exactly at the ridge */

	struct gd_ceilings c;
	gd_ceilings_clear(&c);
	const char *which = NULL;
	CHECK(isnan(gd_rl_dram_roof(&c, &which)));
	CHECK(which == NULL);
	c.dram_read = 3.9e12;
	CHECK_NEAR(gd_rl_dram_roof(&c, &which), 3.9e12, 0);
	CHECK_STR(which, "read");
	c.dram_copy = 4.2e12;
	CHECK_NEAR(gd_rl_dram_roof(&c, &which), 4.2e12, 0);
	CHECK_STR(which, "copy");
	c.tensor[GD_P_BF16] = 840e12;
	c.cuda_core[GD_P_FP32] = 63e12;
	c.gemm_lib[GD_P_FP8] = 1300e12;
	struct gd_rl_roof roofs[8];
	int n = gd_rl_roofs(&c, roofs, 8);
	CHECK_INT(n, 3);
	CHECK_STR(roofs[0].label, "FP8 cuBLASLt");
	CHECK_STR(roofs[1].label, "BF16 tensor");
	CHECK_STR(roofs[2].label, "FP32 FMA");
	CHECK_NEAR(roofs[1].ridge, 200, 1e-9);
	CHECK_NEAR(roofs[2].ridge, 15, 1e-9);
	CHECK_INT(gd_rl_roofs(&c, roofs, 2), 2); /* respects max */

	/* the text chart draws every roof's letter and the legend */
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	gd_rl_chart_text(&c, f, 60, 16, 0);
	fclose(f);
	CHECK(strstr(buf, "A  FP8 cuBLASLt") != NULL);
	CHECK(strstr(buf, "ridge 200 FLOP/B") != NULL);
	CHECK(strchr(buf, '/') != NULL);
	CHECK(strchr(buf, 'C') != NULL);
	free(buf);
	/* no DRAM figure: no chart, a sentence instead */
	struct gd_ceilings e;
	gd_ceilings_clear(&e);
	e.tensor[GD_P_BF16] = 1e15;
	buf = NULL;
	f = open_memstream(&buf, &len);
	gd_rl_chart_text(&e, f, 60, 16, 1);
	fclose(f);
	CHECK(strstr(buf, "no roofline chart") != NULL);
	free(buf);
	/* SVG: one series per roof + the ridge points */
	struct gd_chart ch;
	static struct gd_rl_chart_store st;
	gd_rl_chart_svg(&c, &ch, &st);
	CHECK_INT(ch.nseries, 4);
	CHECK(ch.logx && ch.logy);
	CHECK_NEAR(st.y[1][63], 840e12, 0);             /* BF16 roof flat at the right end */
	CHECK_NEAR(st.y[1][0], 0.25 * 4.2e12, 1);        /* on the DRAM slope at AI = 1/4 */
}

int main(void)
{
	test_pattern();
	test_round();
	test_fma_model();
	test_sfu_model();
	test_mma_model();
	test_fragments();
	test_wgmma_precision();
	test_accounting();
	test_ridge();
	return TEST_DONE();
}
