/* CPU tier: the Hopper flash kernel (src/kernels/lab_attention_wgmma.cuh) emulated thread by
 * thread with the very layout functions it uses (lab_attention_wgmma_layout.h).
 *
 * The emulated "hardware" reads wgmma operands the way the PTX ISA / CUTLASS canonical layouts
 * describe, from the descriptor bits alone: 128B swizzle = address bits [4:6] ^= bits [7:9];
 *   K-major:  element (row r, k) of a k16 slice at start + (r/8)·SBO + (r%8)·128 + 2k
 *   MN-major: element (n, k)                     at start + (n/64)·LBO + 2·(n%64) + (k/8)·SBO + (k%8)·128
 * Tiles are written where the kernel's cp.async writes them (fwg_chunk_off); accumulators and
 * A fragments are spread over the 128 threads of a warpgroup by fwg_acc_pos / fwg_afrag_pos;
 * P is packed from S by fwg_p_src; softmax, masks and tile counts follow the kernel. The
 * result must match the FP64 reference (gd_attn_ref) for every configuration the kernel is
 * built in. This checks the index and descriptor arithmetic, not the hardware. */
#include "core/test.h"
#include "kernels/lab_attention_wgmma_layout.h"
#include "lab/lab_attention.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint16_t f2bf(float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	u += 0x7fffu + ((u >> 16) & 1u);
	return (uint16_t)(u >> 16);
}
static float bf2f(uint16_t h)
{
	uint32_t u = (uint32_t)h << 16;
	float f;
	memcpy(&f, &u, 4);
	return f;
}

/* ---- the hardware's view of a descriptor */
static int g_bad_desc;
static void dec(uint64_t d, uint32_t *start, uint32_t *lbo, uint32_t *sbo)
{
	*start = (uint32_t)(d & 0x3FFFu) << 4;
	*lbo = (uint32_t)((d >> 16) & 0x3FFFu) << 4;
	*sbo = (uint32_t)((d >> 32) & 0x3FFFu) << 4;
	if ((d >> 62) != 1 || ((d >> 49) & 7u) != 0)
		g_bad_desc++; /* not 128B swizzle, or a base offset */
}
static uint32_t swz(uint32_t a) { return a ^ (((a >> 7) & 7u) << 4); }
static float rd(const uint8_t *sm, uint32_t a)
{
	uint16_t h;
	memcpy(&h, sm + a, 2);
	return bf2f(h);
}
static float op_kmajor(const uint8_t *sm, uint64_t d, int r, int k)
{
	uint32_t st, lbo, sbo;
	dec(d, &st, &lbo, &sbo);
	return rd(sm, swz(st + (uint32_t)(r / 8) * sbo + (uint32_t)(r % 8) * 128u + 2u * (uint32_t)k));
}
static float op_mnmajor(const uint8_t *sm, uint64_t d, int nn, int k)
{
	uint32_t st, lbo, sbo;
	dec(d, &st, &lbo, &sbo);
	return rd(sm, swz(st + (uint32_t)(nn / 64) * lbo + 2u * (uint32_t)(nn % 64) + (uint32_t)(k / 8) * sbo +
			  (uint32_t)(k % 8) * 128u));
}

/* per-thread state of one warpgroup */
struct thr {
	float s[64], o[64], m[2], l[2];
	uint32_t p[8][4];
};

static uint32_t pack(float lo, float hi) { return (uint32_t)f2bf(lo) | ((uint32_t)f2bf(hi) << 16); }

/* the kernel's cp.async tile copy: R rows × D from g (row stride D) to sm + base */
static void load_tile(uint8_t *sm, uint32_t base, const uint16_t *g, int R, int D)
{
	for (int row = 0; row < R; row++)
		for (int c = 0; c < D / 8; c++)
			memcpy(sm + base + fwg_chunk_off(R, row, c), g + (size_t)row * D + c * 8, 16);
}

/* S = Q·Kᵀ for warpgroup wg: D/16 wgmmas m64nBNk16 (both operands from descriptors) */
static void wg_s(const uint8_t *sm, struct thr *W, float *acc, uint32_t sQ, int BM, int wg, uint32_t kt, int BN, int D)
{
	memset(acc, 0, sizeof(float) * 64 * 128);
	for (int k = 0; k < D / 16; k++) {
		uint64_t da = fwg_desc_k(sQ, BM, 64 * wg, k), db = fwg_desc_k(kt, BN, 0, k);
		for (int r = 0; r < 64; r++)
			for (int nn = 0; nn < BN; nn++) {
				float sum = 0;
				for (int kk = 0; kk < 16; kk++)
					sum += op_kmajor(sm, da, r, kk) * op_kmajor(sm, db, nn, kk);
				acc[r * 128 + nn] += sum;
			}
	}
	for (int th = 0; th < 128; th++)
		for (int i = 0; i < BN / 2; i++) {
			int row, col;
			fwg_acc_pos(th, i, &row, &col);
			W[th].s[i] = acc[row * 128 + col];
		}
}

/* O += P·V: BN/16 wgmmas m64nDk16, A from the threads' P registers, V N-major */
static void wg_pv(const uint8_t *sm, struct thr *W, float *acc, uint32_t vt, int BN, int D)
{
	memset(acc, 0, sizeof(float) * 64 * 128);
	for (int kk = 0; kk < BN / 16; kk++) {
		float A[64][16];
		for (int th = 0; th < 128; th++)
			for (int q = 0; q < 4; q++)
				for (int h = 0; h < 2; h++) {
					int row, col;
					fwg_afrag_pos(th, q, h, &row, &col);
					A[row][col] = bf2f((uint16_t)(W[th].p[kk][q] >> (16 * h)));
				}
		uint64_t db = fwg_desc_mn(vt, BN, kk);
		for (int r = 0; r < 64; r++)
			for (int nn = 0; nn < D; nn++) {
				float sum = 0;
				for (int k = 0; k < 16; k++)
					sum += A[r][k] * op_mnmajor(sm, db, nn, k);
				acc[r * 128 + nn] += sum;
			}
	}
	for (int th = 0; th < 128; th++)
		for (int i = 0; i < D / 2; i++) {
			int row, col;
			fwg_acc_pos(th, i, &row, &col);
			W[th].o[i] += acc[row * 128 + col];
		}
}

/* mask, scale, max over the quad, exp2 in place, l update; alpha per thread and row half */
static void wg_softmax(struct thr *W, float (*alpha)[2], int causal, int wrow0, int k0, int BN, float sl2)
{
	float mxq[128][2];
	for (int th = 0; th < 128; th++) {
		const int lane = th & 31, r0 = wrow0 + 16 * (th >> 5) + (lane >> 2), c0 = 2 * (lane & 3);
		struct thr *x = &W[th];
		if (causal && k0 + BN - 1 > wrow0)
			for (int i = 0; i < BN / 2; i++) {
				int row = r0 + 8 * ((i & 3) >> 1), col = k0 + 8 * (i >> 2) + c0 + (i & 1);
				if (col > row)
					x->s[i] = -INFINITY;
			}
		mxq[th][0] = mxq[th][1] = -INFINITY; /* the tile's raw row max */
		for (int i = 0; i < BN / 2; i++)
			mxq[th][(i & 3) >> 1] = fmaxf(mxq[th][(i & 3) >> 1], x->s[i]);
	}
	for (int th = 0; th < 128; th++) {
		struct thr *x = &W[th];
		const int qd = th & ~3;
		float mu[2], sum[2] = {0, 0};
		for (int h = 0; h < 2; h++) {
			float mx = fmaxf(fmaxf(mxq[qd][h], mxq[qd + 1][h]), fmaxf(mxq[qd + 2][h], mxq[qd + 3][h]));
			mx = fmaxf(x->m[h], mx * sl2);
			mu[h] = mx == -INFINITY ? 0.0f : mx;
			alpha[th][h] = exp2f(x->m[h] - mu[h]);
			x->m[h] = mx;
		}
		for (int i = 0; i < BN / 2; i++) {
			x->s[i] = exp2f(fmaf(x->s[i], sl2, -mu[(i & 3) >> 1]));
			sum[(i & 3) >> 1] += x->s[i];
		}
		for (int h = 0; h < 2; h++)
			x->l[h] = x->l[h] * alpha[th][h] + sum[h];
	}
}

/* O ·= alpha, then P = bf16(S) packed as the kernel packs it */
static void wg_rescale_pack(struct thr *W, float (*alpha)[2], int BN, int D)
{
	for (int th = 0; th < 128; th++) {
		struct thr *x = &W[th];
		for (int i = 0; i < D / 2; i++)
			x->o[i] *= alpha[th][(i & 3) >> 1];
		for (int kk = 0; kk < BN / 16; kk++)
			for (int q = 0; q < 4; q++)
				x->p[kk][q] = pack(x->s[fwg_p_src(kk, q, 0)], x->s[fwg_p_src(kk, q, 1)]);
	}
}

/* One head, every block of fwd_kernel<D, BN, NWG> (ov = 0) or fwd_kernel_ov with ov K/V
 * buffers (ov = 2 or 3), with their loads, buffers and per-warpgroup tile skipping; O as
 * floats. Loads land at once: a kernel reading a buffer the current iteration refills would
 * read the wrong tile here. */
static void emulate(const uint16_t *Q, const uint16_t *K, const uint16_t *V, float *O, int L, int D, int BN, int NWG,
		    int causal, float scale, int ov)
{
	const int BM = 64 * NWG, QB = BM * D * 2, KVB = BN * D * 2, ST = ov ? ov : 2;
	const uint32_t sQ = 0, sK = (uint32_t)QB, sV = sK + (uint32_t)ST * (uint32_t)KVB;
	const float sl2 = scale * 1.4426950408889634f;
	const size_t smb = (size_t)QB + 2u * (size_t)ST * (size_t)KVB;
	uint8_t *sm = calloc(1, smb);
	struct thr *T = calloc((size_t)NWG * 128, sizeof *T);
	float *acc = malloc(sizeof(float) * 64 * 128);
	float(*alpha)[2] = malloc(sizeof(float) * 2 * 128);
	if (!sm || !T || !acc || !alpha)
		abort();
	const int nqb = L / BM;
	for (int by = 0; by < nqb; by++) {
		int hd, qb;
		fwg_block(by, 1, nqb, causal, &hd, &qb);
		const int q0 = qb * BM;
		const int ntiles = causal ? (q0 + BM - 1) / BN + 1 : L / BN;
		memset(sm, 0xEE, smb); /* stale data from "another block" */
		load_tile(sm, sQ, Q + (size_t)q0 * D, BM, D);
		for (int i = 0; i < NWG * 128; i++) {
			memset(&T[i], 0, sizeof T[i]);
			T[i].m[0] = T[i].m[1] = -INFINITY;
		}
		if (!ov) {
			load_tile(sm, sK, K, BN, D);
			load_tile(sm, sV, V, BN, D);
			for (int t = 0; t < ntiles; t++) {
				const int buf = t & 1;
				const uint32_t kt = sK + (uint32_t)(buf * KVB), vt = sV + (uint32_t)(buf * KVB);
				if (t + 1 < ntiles) {
					load_tile(sm, sK + (uint32_t)((buf ^ 1) * KVB), K + (size_t)(t + 1) * BN * D, BN, D);
					load_tile(sm, sV + (uint32_t)((buf ^ 1) * KVB), V + (size_t)(t + 1) * BN * D, BN, D);
				}
				for (int wg = 0; wg < NWG; wg++) {
					const int wrow0 = q0 + 64 * wg, ntiles_wg = causal ? (wrow0 + 63) / BN + 1 : ntiles;
					if (t >= ntiles_wg)
						continue;
					struct thr *W = T + wg * 128;
					wg_s(sm, W, acc, sQ, BM, wg, kt, BN, D);
					wg_softmax(W, alpha, causal, wrow0, t * BN, BN, sl2);
					wg_rescale_pack(W, alpha, BN, D);
					wg_pv(sm, W, acc, vt, BN, D);
				}
			}
		} else {
			load_tile(sm, sK, K, BN, D);
			if (ST == 3) {
				if (1 < ntiles)
					load_tile(sm, sK + (uint32_t)KVB, K + (size_t)BN * D, BN, D);
				load_tile(sm, sV, V, BN, D);
			}
			for (int t = 0; t <= ntiles; t++) {
				const int tk = t + ST - 1, tv = t + ST - 2;
				if (tk < ntiles)
					load_tile(sm, sK + (uint32_t)((tk % ST) * KVB), K + (size_t)tk * BN * D, BN, D);
				if (tv < ntiles)
					load_tile(sm, sV + (uint32_t)((tv % ST) * KVB), V + (size_t)tv * BN * D, BN, D);
				for (int wg = 0; wg < NWG; wg++) {
					/* no per-warpgroup skipping: a tile above all of a warpgroup's rows is
					 * computed fully masked */
					const int wrow0 = q0 + 64 * wg;
					const int do_s = t < ntiles, do_pv = t >= 1;
					struct thr *W = T + wg * 128;
					if (do_s)
						wg_s(sm, W, acc, sQ, BM, wg, sK + (uint32_t)((t % ST) * KVB), BN, D);
					if (do_pv)
						wg_pv(sm, W, acc, sV + (uint32_t)(((t - 1) % ST) * KVB), BN, D);
					if (do_s) {
						wg_softmax(W, alpha, causal, wrow0, t * BN, BN, sl2);
						wg_rescale_pack(W, alpha, BN, D);
					}
				}
			}
		}
		/* epilogue */
		for (int th = 0; th < NWG * 128; th++) {
			const int wg = th >> 7, wt = th & 127, lane = th & 31, qd = th & ~3;
			const int r0 = q0 + 64 * wg + 16 * (wt >> 5) + (lane >> 2), c0 = 2 * (lane & 3);
			for (int h = 0; h < 2; h++) {
				float lsum = T[qd].l[h] + T[qd + 1].l[h] + T[qd + 2].l[h] + T[qd + 3].l[h];
				float inv = lsum > 0 ? 1.0f / lsum : 0.0f;
				for (int j = 0; j < D / 8; j++)
					for (int e = 0; e < 2; e++)
						O[(size_t)(r0 + 8 * h) * D + 8 * j + c0 + e] = bf2f(f2bf(T[th].o[4 * j + 2 * h + e] * inv));
			}
		}
	}
	free(sm);
	free(T);
	free(acc);
	free(alpha);
}

static void test_layout_functions(void)
{
	/* chunk offsets agree with element offsets; a tile's bytes are a permutation */
	for (int R = 64; R <= 128; R *= 2)
		for (int D = 64; D <= 128; D *= 2) {
			int n = R * D, bad = 0;
			unsigned char *seen = calloc((size_t)n * 2, 1);
			for (int r = 0; r < R; r++)
				for (int c = 0; c < D; c++) {
					uint32_t off = fwg_off(R, r, c);
					if (off != fwg_chunk_off(R, r, c / 8) + 2u * (uint32_t)(c % 8) || off >= (uint32_t)n * 2 ||
					    seen[off]++)
						bad++;
				}
			CHECK_INT(bad, 0);
			free(seen);
		}
	CHECK_INT(fwg_off(64, 1, 0), 128 + 16);   /* row 1: chunk 0 at position 1 */
	CHECK_INT(fwg_off(64, 9, 8), 9 * 128 + 0); /* row 9 (9%8 = 1), chunk 1 → position 0 */
	CHECK_INT(fwg_off(128, 0, 64), 128 * 128);
	/* descriptor fields */
	uint64_t d = fwg_desc_mn(0x2400u, 128, 3);
	CHECK_INT(d & 0x3FFF, (0x2400 + 3 * 2048) >> 4);
	CHECK_INT((d >> 16) & 0x3FFF, 128 * 128 >> 4);
	CHECK_INT((d >> 32) & 0x3FFF, 1024 >> 4);
	CHECK_INT(d >> 62, 1);
	d = fwg_desc_k(0x8000u, 128, 64, 5);
	CHECK_INT((d & 0x3FFF) << 4, 0x8000 + 128 * 128 + 64 * 128 + 32);
	/* the A fragment of k-slice kk is the accumulator of columns 16kk…16kk+15 */
	int bad = 0;
	for (int th = 0; th < 128; th++)
		for (int kk = 0; kk < 8; kk++)
			for (int q = 0; q < 4; q++)
				for (int h = 0; h < 2; h++) {
					int ar, ac, sr, sc;
					fwg_afrag_pos(th, q, h, &ar, &ac);
					fwg_acc_pos(th, fwg_p_src(kk, q, h), &sr, &sc);
					bad += ar != sr || 16 * kk + ac != sc;
				}
	CHECK_INT(bad, 0);
	/* the accumulator covers 64 × N once */
	static unsigned char cov[64][128];
	memset(cov, 0, sizeof cov);
	bad = 0;
	for (int th = 0; th < 128; th++)
		for (int i = 0; i < 64; i++) {
			int r, c;
			fwg_acc_pos(th, i, &r, &c);
			bad += r < 0 || r >= 64 || c < 0 || c >= 128 || cov[r][c]++;
		}
	CHECK_INT(bad, 0);
	/* the block order visits every (head, q-block) once; causal starts with the last q-block */
	for (int causal = 0; causal < 2; causal++)
		for (int bh = 1; bh <= 5; bh += 2)
			for (int nqb = 1; nqb <= 4; nqb++) {
				unsigned char seen[5][4];
				memset(seen, 0, sizeof seen);
				bad = 0;
				for (int idx = 0; idx < bh * nqb; idx++) {
					int h, q;
					fwg_block(idx, bh, nqb, causal, &h, &q);
					bad += h < 0 || h >= bh || q < 0 || q >= nqb || seen[h][q]++;
					if (causal && idx < bh)
						bad += q != nqb - 1;
					if (!causal && idx < nqb)
						bad += h != 0;
				}
				CHECK_INT(bad, 0);
			}
}

static void test_emulated_kernel(void)
{
	const int L = 256, BH = 1;
	/* fwg::cfg_info order: BN, warpgroups, fwd_kernel_ov buffers (0: fwd_kernel) */
	enum { NC = 12 };
	const int cfgs[NC][3] = {{128, 2, 0}, {64, 2, 0}, {128, 1, 0}, {64, 1, 0}, {128, 2, 2}, {64, 2, 2},
				 {128, 2, 3}, {64, 2, 3},  {64, 1, 2},  {128, 1, 2}, {64, 1, 3},  {128, 1, 3}};
	uint64_t seed = 12345;
	for (int D = 64; D <= 128; D *= 2) {
		size_t cnt = (size_t)BH * L * D;
		uint16_t *q = malloc(cnt * 2), *k = malloc(cnt * 2), *v = malloc(cnt * 2);
		float *qf = malloc(cnt * 4), *kf = malloc(cnt * 4), *vf = malloc(cnt * 4), *o = malloc(cnt * 4);
		double *ref = malloc(cnt * 8);
		for (size_t i = 0; i < cnt; i++) {
			float x[3];
			for (int j = 0; j < 3; j++) {
				seed = seed * 6364136223846793005ull + 1442695040888963407ull;
				x[j] = (float)((double)(seed >> 11) / 9007199254740992.0 * 2 - 1) * (j < 2 ? 2.0f : 1.0f);
			}
			q[i] = f2bf(x[0]);
			k[i] = f2bf(x[1]);
			v[i] = f2bf(x[2]);
			qf[i] = bf2f(q[i]);
			kf[i] = bf2f(k[i]);
			vf[i] = bf2f(v[i]);
		}
		for (int causal = 0; causal < 2; causal++) {
			const double scale = 1.0 / sqrt((double)D);
			gd_attn_ref(qf, kf, vf, ref, BH, L, D, causal, scale);
			for (int c = 0; c < NC; c++) {
				for (size_t i = 0; i < cnt; i++)
					o[i] = NAN;
				g_bad_desc = 0;
				emulate(q, k, v, o, L, D, cfgs[c][0], cfgs[c][1], causal, (float)scale, cfgs[c][2]);
				double worst = 0;
				for (size_t i = 0; i < cnt; i++) {
					double e = fabs(o[i] - ref[i]) / (2e-3 + fabs(ref[i]) / 64);
					if (!(e <= worst))
						worst = e;
				}
				if (!(worst <= 1))
					fprintf(stderr, "d=%d causal=%d BN=%d NWG=%d ov=%d: worst error %.3g × tolerance\n", D,
						causal, cfgs[c][0], cfgs[c][1], cfgs[c][2], worst);
				CHECK(worst <= 1);
				CHECK_INT(g_bad_desc, 0);
			}
		}
		free(q);
		free(k);
		free(v);
		free(qf);
		free(kf);
		free(vf);
		free(o);
		free(ref);
	}
}

int main(void)
{
	test_layout_functions();
	test_emulated_kernel();
	return TEST_DONE();
}
