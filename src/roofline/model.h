/* CPU models of what each roofline kernel computes, and the roofline's arithmetic.
 *
 * Every kernel of src/kernels/roofline*.cu that produces data is checked against one of these
 * functions after it ran. They are static inline and compile both as C11 (the host and the
 * CPU-tier tests, src/roofline/model_test.c) and as CUDA host/device code (the kernels use the
 * same data generators, so the check needs no data copied back). */
#ifndef GPUDIAG_ROOFLINE_MODEL_H
#define GPUDIAG_ROOFLINE_MODEL_H

#include <math.h>
#include <stdint.h>

#ifdef __CUDACC__
#define GD_HD __host__ __device__
#else
#define GD_HD
#endif

/* ---- random data for the bandwidth kernels: 32-bit word i of a buffer is gd_rl_word(i, seed). */
static inline GD_HD uint32_t gd_rl_word(uint64_t i, uint32_t seed)
{
	uint32_t h = ((uint32_t)i ^ (uint32_t)(i >> 32) ^ seed) * 0x9E3779B1u;
	return h ^ (h >> 16);
}

/* Σ words [0, nwords) modulo 2^32: what a read kernel's reduction must return. */
static inline uint32_t gd_rl_pattern_sum(uint64_t nwords, uint32_t seed)
{
	uint32_t s = 0;
	for (uint64_t i = 0; i < nwords; i++)
		s += gd_rl_word(i, seed);
	return s;
}

/* ---- rounding to a binary floating-point format with p significand bits (implicit bit
 * included) and minimum normal exponent emin, round-to-nearest-even, no overflow handling
 * (the models stay far from it). FP16: p 11, emin -14. BF16: p 8, emin -126. FP32: 24, -126. */
static inline double gd_rl_round(double v, int p, int emin)
{
	if (v == 0 || !isfinite(v))
		return v;
	int e = ilogb(v);
	if (e < emin)
		e = emin;
	double scale = ldexp(1.0, p - 1 - e);
	return nearbyint(v * scale) / scale; /* both scalings are exact (powers of two) */
}
#define GD_RL_F16_P 11
#define GD_RL_F16_EMIN (-14)
#define GD_RL_BF16_P 8
#define GD_RL_BF16_EMIN (-126)

/* ---- FMA-chain kernels. Each thread runs GD_RL_CHAINS independent chains x ← x·a + b for
 * `iters` steps (one FMA each), then adds the chains in order (x0 + x1 + ... ) in the same
 * precision and stores the sum. For half2/bfloat162 each of the GD_RL_CHAINS registers holds
 * two chains (lanes), summed per lane then low + high. */
#define GD_RL_CHAINS 8
enum gd_rl_fp { GD_RL_F64 = 0, GD_RL_F32, GD_RL_F16, GD_RL_BF16 };
#define GD_RL_FMA_A 0.9921875 /* 1 - 2^-7: exact in every format */
#define GD_RL_FMA_B 0.0123    /* rounded to the format first */

/* Start value of chain c (0..2·GD_RL_CHAINS-1) of thread tid: 1 + k/64, exact in every format. */
static inline GD_HD double gd_rl_fma_seed(uint32_t tid, int c)
{
	return 1.0 + (double)((tid * 7u + (uint32_t)c * 13u) % 64u) / 64.0;
}

static inline double gd_rl_to_fmt(double v, enum gd_rl_fp f)
{
	switch (f) {
	case GD_RL_F64: return v;
	case GD_RL_F32: return (double)(float)v;
	case GD_RL_F16: return gd_rl_round(v, GD_RL_F16_P, GD_RL_F16_EMIN);
	default: return gd_rl_round(v, GD_RL_BF16_P, GD_RL_BF16_EMIN);
	}
}

/* One fused multiply-add in format f: a·b + c rounded once. For FP16/BF16 the exact result
 * fits a double for the operand ranges used here (exponents within a few binades), so
 * computing in double and rounding once is exact. */
static inline double gd_rl_fma_fmt(double a, double b, double c, enum gd_rl_fp f)
{
	switch (f) {
	case GD_RL_F64: return fma(a, b, c);
	case GD_RL_F32: return (double)fmaf((float)a, (float)b, (float)c);
	default: return gd_rl_to_fmt(a * b + c, f);
	}
}

static inline double gd_rl_add_fmt(double a, double b, enum gd_rl_fp f)
{
	if (f == GD_RL_F32)
		return (double)((float)a + (float)b);
	return gd_rl_to_fmt(a + b, f);
}

/* What thread `tid` of the FMA kernel of format f stores (as a double). */
static inline double gd_rl_fma_model(enum gd_rl_fp f, uint32_t tid, int iters)
{
	int lanes = (f == GD_RL_F16 || f == GD_RL_BF16) ? 2 : 1;
	double a = gd_rl_to_fmt(GD_RL_FMA_A, f), b = gd_rl_to_fmt(GD_RL_FMA_B, f);
	double sum[2] = {0, 0};
	for (int l = 0; l < lanes; l++) {
		for (int c = 0; c < GD_RL_CHAINS; c++) {
			double x = gd_rl_to_fmt(gd_rl_fma_seed(tid, c * lanes + l), f);
			for (int i = 0; i < iters; i++)
				x = gd_rl_fma_fmt(x, a, b, f);
			sum[l] = c == 0 ? x : gd_rl_add_fmt(sum[l], x, f);
		}
	}
	return lanes == 2 ? gd_rl_add_fmt(sum[0], sum[1], f) : sum[0];
}

/* ---- SFU kernel: chains x ← exp(−x) from x0 = 0.25 + (tid % 8)/16 + c/64; the fixed point
 * is the omega constant 0.5671…; |d/dx e^{−x}| < 1 there, so approximation errors do not
 * grow. The kernel stores the sum of its GD_RL_CHAINS chains (float). */
static inline GD_HD float gd_rl_sfu_seed(uint32_t tid, int c)
{
	return 0.25f + (float)(tid % 8u) / 16.0f + (float)c / 64.0f;
}
static inline double gd_rl_sfu_model(uint32_t tid, int iters)
{
	double s = 0;
	for (int c = 0; c < GD_RL_CHAINS; c++) {
		double x = gd_rl_sfu_seed(tid, c);
		for (int i = 0; i < iters; i++)
			x = exp(-x);
		s += x;
	}
	return s;
}

/* ---- tensor-core tiles. A is M×K, B is given as Bᵀ (N×K, row-major), values small
 * multiples of 1/8 in [−1, 1] (exact in FP8 e4m3, FP16, BF16, TF32) or integers in
 * [−8, 7] for INT8. A kernel that adds A·Bᵀ `times` times into its accumulators must
 * hold times·(A·Bᵀ). */
static inline GD_HD double gd_rl_tile_value(uint32_t idx, uint32_t seed, int integer)
{
	uint32_t h = gd_rl_word(idx, seed);
	if (integer)
		return (double)((int)(h % 16u) - 8);
	return (double)((int)(h % 17u) - 8) / 8.0;
}

/* D[M×N] = times · A[M×K] · Bt[N×K]ᵀ, and the bound Σ|a||b|·times used for the tolerance. */
static inline void gd_rl_mma_model(const double *a, const double *bt, int m, int n, int k, double times,
				   double *d, double *absbound)
{
	for (int i = 0; i < m; i++)
		for (int j = 0; j < n; j++) {
			double s = 0, sa = 0;
			for (int l = 0; l < k; l++) {
				s += a[i * k + l] * bt[j * k + l];
				sa += fabs(a[i * k + l] * bt[j * k + l]);
			}
			d[i * n + j] = s * times;
			if (absbound)
				absbound[i * n + j] = sa * times;
		}
}

/* ---- fragment layouts (PTX ISA), shared by the kernels and the CPU-tier tests that check the
 * index math covers every element exactly once. g = lane/4, t = lane%4, e = elements per
 * 32-bit register (4 / element bytes), K the MMA's k. */
/* mma.sync m16n8kK, A (16×K, row-major) register r (0..3): first element's row and column. */
static inline GD_HD void gd_rl_mma_a_pos(int lane, int r, int k, int e, int *row, int *col)
{
	*row = (lane >> 2) + 8 * (r & 1);
	*col = (r >> 1) * (k / 2) + (lane & 3) * e;
}
/* B given as Bᵀ (8×K): register r (0..1) holds Bᵀ[n][k .. k+e−1]. */
static inline GD_HD void gd_rl_mma_b_pos(int lane, int r, int k, int e, int *n, int *kk)
{
	*n = lane >> 2;
	*kk = r * (k / 2) + (lane & 3) * e;
}
/* C/D (16×8) register r (0..3). */
static inline GD_HD void gd_rl_mma_c_pos(int lane, int r, int *row, int *col)
{
	*row = (lane >> 2) + 8 * (r >> 1);
	*col = 2 * (lane & 3) + (r & 1);
}
/* wgmma m64nN f32 accumulator: thread (0..127) register i (0..N/2−1). */
static inline GD_HD void gd_rl_wgmma_d_pos(int thread, int i, int *row, int *col)
{
	int w = thread >> 5, lane = thread & 31;
	*row = 16 * w + (lane >> 2) + 8 * ((i & 3) >> 1);
	*col = 8 * (i >> 2) + 2 * (lane & 3) + (i & 1);
}
/* Byte offset of byte kb (0..31) of row `row` of k-step `step` in the no-swizzle K-major
 * shared-memory image of an R-row operand: 8-row × 16-byte core matrices of 128 contiguous
 * bytes; K-adjacent core matrices 128 B apart (LBO), M/N-adjacent ones 256 B apart (SBO). */
static inline GD_HD int gd_rl_wgmma_smem_off(int rows, int step, int row, int kb)
{
	return step * rows * 32 + ((row / 8) * 2 + kb / 16) * 128 + (row % 8) * 16 + kb % 16;
}

/* Byte offset of element k (0..4·32/esize − 1) of row `row` for elements of esize bytes
 * (FP8 1, FP16/BF16 2, TF32 4): k-step k·esize/32, byte (k·esize) mod 32 within it. */
static inline GD_HD int gd_rl_wgmma_elem_off(int rows, int esize, int row, int k)
{
	int byte = k * esize;
	return gd_rl_wgmma_smem_off(rows, byte / 32, row, byte % 32);
}

/* FP8 accumulation on Hopper (and Ada): the tensor core keeps an FP8 MMA's accumulator with
 * 13 explicit significand bits (14 significant), truncating the rest ("FP22"; DeepSeek-V3
 * report §3.5.2, SageAttention2 §4), not the 24 of FP32. A check against an exact model is
 * therefore only valid while every partial sum of the accumulation chain, in units of the
 * products' quantum (1/64 for tiles in multiples of 1/8), fits that many bits. The wgmma FP8
 * test restarts its accumulator at every iteration (scale-d = 0 on the first k-step), so its
 * check covers one iteration (4 k-steps, K = 128); FP16/BF16/TF32 accumulate in FP32 over
 * all iterations. */
#define GD_RL_FP8_ACC_BITS 14
#define GD_RL_FP32_ACC_BITS 24
static inline GD_HD int gd_rl_wgmma_restarts(int fp8) { return fp8 ? 1 : 0; }
/* How many times the checked D holds A·Bᵀ after a kernel of `iters` iterations. */
static inline GD_HD int gd_rl_wgmma_check_times(int fp8, int iters) { return gd_rl_wgmma_restarts(fp8) ? 1 : iters; }
/* Largest |partial sum| of accumulating A·Bᵀ `times` times in k order (per element, every
 * intermediate value the accumulator holds), and the significant bits it needs at `quantum`. */
static inline double gd_rl_mma_max_partial(const double *a, const double *bt, int m, int n, int k, int times)
{
	double worst = 0;
	for (int i = 0; i < m; i++)
		for (int j = 0; j < n; j++) {
			double s = 0, lo = 0, hi = 0;
			for (int l = 0; l < k; l++) {
				s += a[i * k + l] * bt[j * k + l];
				lo = s < lo ? s : lo;
				hi = s > hi ? s : hi;
			}
			/* partial sum after t full passes plus a prefix: t·s + prefix, linear in t */
			double c[4] = {lo, hi, (times - 1) * s + lo, (times - 1) * s + hi};
			for (int q = 0; q < 4; q++)
				worst = fabs(c[q]) > worst ? fabs(c[q]) : worst;
		}
	return worst;
}
static inline int gd_rl_bits_needed(double max_abs, double quantum)
{
	int b = 0;
	while (b < 64 && ldexp(1.0, b) * quantum <= max_abs)
		b++;
	return b;
}

/* Dot product in double plus Σ|x||y| (for the library GEMM's sampled entries). */
static inline double gd_rl_dot(const double *x, const double *y, int k, double *absbound)
{
	double s = 0, sa = 0;
	for (int l = 0; l < k; l++) {
		s += x[l] * y[l];
		sa += fabs(x[l] * y[l]);
	}
	if (absbound)
		*absbound = sa;
	return s;
}

/* ---- accounting. Bytes each bandwidth test moves per repetition. */
/* DRAM read and write: the buffer once. Copy: read + write, i.e. twice the buffer (the
 * convention of PyTorch's and nvbandwidth's device-to-device figures). L2, shared memory and
 * L1: every 16-byte load the kernel issues (passes × working set). */
static inline double gd_rl_bytes_read(double buf) { return buf; }
static inline double gd_rl_bytes_write(double buf) { return buf; }
static inline double gd_rl_bytes_copy(double buf) { return 2.0 * buf; }
static inline double gd_rl_bytes_repeated(double working_set, double passes) { return working_set * passes; }

/* FLOP of the compute kernels: one FMA = 2 FLOP; a half2/bfloat162 FMA = 4 FLOP. */
static inline double gd_rl_fma_flops(double threads, int chains, int iters, int lanes)
{
	return threads * chains * (double)iters * 2.0 * lanes;
}
/* One MMA of shape m×n×k = 2·m·n·k FLOP; a GEMM m×n×k likewise. */
static inline double gd_rl_mma_flops(double m, double n, double k) { return 2.0 * m * n * k; }

/* Ridge point: the arithmetic intensity (FLOP/byte) where a compute ceiling meets the
 * bandwidth ceiling. NaN when either is unknown or not positive. */
static inline double gd_rl_ridge(double flops, double bytes_per_s)
{
	if (!(flops > 0) || !(bytes_per_s > 0))
		return NAN;
	return flops / bytes_per_s;
}
/* Attainable performance at intensity ai under one ceiling pair: min(peak, ai·bw). */
static inline double gd_rl_attainable(double ai, double flops, double bytes_per_s)
{
	double m = ai * bytes_per_s;
	return m < flops ? m : flops;
}
/* Datasheet DRAM bandwidth: double data rate × memory clock × bus width. */
static inline double gd_rl_dram_datasheet(double mem_clock_mhz, int bus_bits)
{
	if (!(mem_clock_mhz > 0) || bus_bits <= 0)
		return NAN;
	return 2.0 * mem_clock_mhz * 1e6 * bus_bits / 8.0;
}

#endif
