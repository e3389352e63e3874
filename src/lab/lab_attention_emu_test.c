/* CPU tier: the flash kernel's index arithmetic, checked by emulating it warp by warp.
 *
 * src/kernels/lab_attention.cu cannot run without a GPU, so this file transliterates its
 * fa_fwd_kernel (both 16 and 32 rows per warp) onto an emulation of the three warp-wide
 * instructions it relies on, written from the PTX ISA's fragment tables:
 *   ldmatrix.m8n8.x4(.trans).b16 — lane 8·m + r gives the address of row r of matrix m; lane
 *     l receives, of matrix m, row l/4, elements 2·(l%4) and +1 (with .trans: rows 2·(l%4)
 *     and +1 of column l/4);
 *   mma.m16n8k16.row.col bf16 → f32 — A regs (g, 2t), (g+8, 2t), (g, 2t+8), (g+8, 2t+8);
 *     B regs (k 2t, n g), (k 2t+8, n g); C (g, 2t), (g, 2t+1), (g+8, 2t), (g+8, 2t+1), with
 *     g = lane/4, t = lane%4, two 16-bit values per register, the lower index in the low half;
 *   shfl.xor.
 * Swizzle, tile loads, masks, online softmax, the P re-packing and the output indexing are the
 * kernel's, line for line; the result must match the FP64 reference. A change to the kernel's
 * indexing must be mirrored here (the two are kept side by side on purpose). */
#include "core/test.h"
#include "lab/lab.h"
#include "lab/lab_attention.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#define BC 64
#define NT 128
typedef uint16_t bf16;

static float bf(bf16 v) { return gd_bf16_to_f32(v); }
static uint32_t pack(float lo, float hi)
{
	return (uint32_t)gd_f32_to_bf16(lo) | ((uint32_t)gd_f32_to_bf16(hi) << 16);
}
static float lo16(uint32_t w) { return bf((bf16)(w & 0xffff)); }
static float hi16(uint32_t w) { return bf((bf16)(w >> 16)); }

/* the kernel's fa_exp2: ex2.approx.ftz, whose results below 2^-126 are 0 */
static float fa_exp2(float x)
{
	float r = exp2f(x);
	return r < 0x1p-126f ? 0.f : r;
}

static int swz(int D, int row, int chunk) { return row * D + ((chunk ^ (row & 7)) << 3); }

/* addr[32]: element offsets into smem */
static void ldsm_x4(const bf16 *smem, const int *addr, uint32_t r[32][4], int trans)
{
	for (int l = 0; l < 32; l++)
		for (int m = 0; m < 4; m++) {
			bf16 e0, e1;
			if (!trans) {
				int a = addr[8 * m + l / 4] + 2 * (l % 4);
				e0 = smem[a];
				e1 = smem[a + 1];
			} else {
				e0 = smem[addr[8 * m + 2 * (l % 4)] + l / 4];
				e1 = smem[addr[8 * m + 2 * (l % 4) + 1] + l / 4];
			}
			r[l][m] = (uint32_t)e0 | ((uint32_t)e1 << 16);
		}
}

/* d[l][0..3] += A·B for one m16n8k16 */
static void mma(float d[32][4], uint32_t a[32][4], const uint32_t *b0, const uint32_t *b1)
{
	float A[16][16], B[16][8];
	for (int l = 0; l < 32; l++) {
		int g = l / 4, t = l % 4;
		A[g][2 * t] = lo16(a[l][0]);
		A[g][2 * t + 1] = hi16(a[l][0]);
		A[g + 8][2 * t] = lo16(a[l][1]);
		A[g + 8][2 * t + 1] = hi16(a[l][1]);
		A[g][2 * t + 8] = lo16(a[l][2]);
		A[g][2 * t + 9] = hi16(a[l][2]);
		A[g + 8][2 * t + 8] = lo16(a[l][3]);
		A[g + 8][2 * t + 9] = hi16(a[l][3]);
		B[2 * t][g] = lo16(b0[l]);
		B[2 * t + 1][g] = hi16(b0[l]);
		B[2 * t + 8][g] = lo16(b1[l]);
		B[2 * t + 9][g] = hi16(b1[l]);
	}
	for (int l = 0; l < 32; l++) {
		int g = l / 4, t = l % 4;
		for (int e = 0; e < 4; e++) {
			int row = g + (e >> 1) * 8, col = 2 * t + (e & 1);
			float s = 0;
			for (int k = 0; k < 16; k++)
				s += A[row][k] * B[k][col];
			d[l][e] += s;
		}
	}
}

static void shfl_max(float v[32], int x)
{
	float o[32];
	for (int l = 0; l < 32; l++)
		o[l] = fmaxf(v[l], v[l ^ x]);
	memcpy(v, o, sizeof o);
}
static void shfl_sum(float v[32], int x)
{
	float o[32];
	for (int l = 0; l < 32; l++)
		o[l] = v[l] + v[l ^ x];
	memcpy(v, o, sizeof o);
}

/* One block of fa_fwd_kernel<D, MT>; every array indexed [warp][lane] where the kernel has a
 * per-thread variable. */
static void emu_block(const bf16 *Q, const bf16 *K, const bf16 *V, bf16 *O, int L, int D, int MT, int causal,
		      float scale_log2, int bx, int by)
{
	const int BR = 64 * MT, WR = 16 * MT;
	const int QREG = MT == 1 || D == 64; /* the kernel keeps Q fragments in registers */
	bf16 *sQ = calloc((size_t)BR * D + 4 * BC * D, sizeof(bf16));
	bf16 *sK = sQ + BR * D, *sV = sK + 2 * BC * D;
	const int nqb = L / BR;
	const int qb = causal ? nqb - 1 - bx : bx;
	const size_t head = (size_t)by * L * D;
	const bf16 *q = Q + head + (size_t)qb * BR * D, *k = K + head, *v = V + head;
	bf16 *o = O + head + (size_t)qb * BR * D;
	const int nkb = causal ? (qb * BR + BR + BC - 1) / BC : L / BC;
	const int CH = D / 8;
	/* per warp, per lane state */
	static uint32_t qf[4][2][8][32][4]; /* [warp][mt][kk] */
	static float oacc[4][2][16][32][4], m_r[4][2][2][32], l_r[4][2][2][32];
	memset(oacc, 0, sizeof oacc);
	memset(l_r, 0, sizeof l_r);
	for (int w = 0; w < 4; w++)
		for (int mt = 0; mt < 2; mt++)
			for (int h = 0; h < 2; h++)
				for (int l = 0; l < 32; l++)
					m_r[w][mt][h][l] = -INFINITY;
#define LOAD(dst, src, rows)                                                  \
	for (int c = 0; c < (rows) * CH; c++) {                               \
		int r_ = c / CH, ch_ = c % CH;                                \
		memcpy((dst) + swz(D, r_, ch_), (src) + (size_t)r_ * D + ch_ * 8, 16); \
	}
	LOAD(sQ, q, BR);
	LOAD(sK, k, BC);
	LOAD(sV, v, BC);
	for (int j = 0; j < nkb; j++) {
		const int buf = j & 1;
		if (j + 1 < nkb) { /* the prefetch lands in the other buffer (cp.async; a copy here) */
			LOAD(sK + (buf ^ 1) * BC * D, k + (size_t)(j + 1) * BC * D, BC);
			LOAD(sV + (buf ^ 1) * BC * D, v + (size_t)(j + 1) * BC * D, BC);
		}
		const bf16 *cK = sK + buf * BC * D, *cV = sV + buf * BC * D;
		const int kv0 = j * BC;
		for (int warp = 0; warp < 4; warp++) {
			const int row0 = qb * BR + warp * WR;
			int addr[32];
			if (QREG && j == 0)
				for (int mt = 0; mt < MT; mt++)
					for (int kk = 0; kk < D / 16; kk++) {
						for (int lane = 0; lane < 32; lane++)
							addr[lane] = swz(D, warp * WR + mt * 16 + (lane & 15), kk * 2 + (lane >> 4));
						ldsm_x4(sQ, addr, qf[warp][mt][kk], 0);
					}
			if (causal && kv0 > row0 + WR - 1)
				continue;
			static float s[2][8][32][4];
			memset(s, 0, sizeof s);
			for (int kk = 0; kk < D / 16; kk++) {
				static uint32_t qa[2][32][4];
				if (QREG)
					for (int mt = 0; mt < MT; mt++)
						memcpy(qa[mt], qf[warp][mt][kk], sizeof qa[mt]);
				else
					for (int mt = 0; mt < MT; mt++) {
						for (int lane = 0; lane < 32; lane++)
							addr[lane] = swz(D, warp * WR + mt * 16 + (lane & 15), kk * 2 + (lane >> 4));
						ldsm_x4(sQ, addr, qa[mt], 0);
					}
				for (int nb = 0; nb < BC / 16; nb++) {
					uint32_t b[32][4], b0[32], b1[32], b2[32], b3[32];
					for (int lane = 0; lane < 32; lane++)
						addr[lane] = swz(D, nb * 16 + (lane & 7) + ((lane >> 4) << 3), kk * 2 + ((lane >> 3) & 1));
					ldsm_x4(cK, addr, b, 0);
					for (int lane = 0; lane < 32; lane++) {
						b0[lane] = b[lane][0];
						b1[lane] = b[lane][1];
						b2[lane] = b[lane][2];
						b3[lane] = b[lane][3];
					}
					for (int mt = 0; mt < MT; mt++) {
						mma(s[mt][2 * nb], qa[mt], b0, b1);
						mma(s[mt][2 * nb + 1], qa[mt], b2, b3);
					}
				}
			}
			for (int mt = 0; mt < MT; mt++) {
				const int rb = row0 + mt * 16;
				if (causal && kv0 + BC - 1 > rb)
					for (int i = 0; i < BC / 8; i++)
						for (int lane = 0; lane < 32; lane++)
							for (int e = 0; e < 4; e++) {
								int col = kv0 + i * 8 + 2 * (lane & 3) + (e & 1);
								int row = rb + (lane >> 2) + (e >> 1) * 8;
								if (col > row)
									s[mt][i][lane][e] = -INFINITY;
							}
				for (int h = 0; h < 2; h++) {
					float mx[32];
					for (int lane = 0; lane < 32; lane++) {
						mx[lane] = -INFINITY;
						for (int i = 0; i < BC / 8; i++)
							mx[lane] = fmaxf(mx[lane], fmaxf(s[mt][i][lane][2 * h], s[mt][i][lane][2 * h + 1]));
					}
					shfl_max(mx, 1);
					shfl_max(mx, 2);
					for (int lane = 0; lane < 32; lane++) {
						float mnew = fmaxf(m_r[warp][mt][h][lane], mx[lane] * scale_log2);
						float msafe = mnew == -INFINITY ? 0.f : mnew;
						float alpha = fa_exp2(m_r[warp][mt][h][lane] - msafe);
						m_r[warp][mt][h][lane] = mnew;
						float rs = 0;
						for (int i = 0; i < BC / 8; i++) {
							float p0 = fa_exp2(fmaf(s[mt][i][lane][2 * h], scale_log2, -msafe));
							float p1 = fa_exp2(fmaf(s[mt][i][lane][2 * h + 1], scale_log2, -msafe));
							s[mt][i][lane][2 * h] = p0;
							s[mt][i][lane][2 * h + 1] = p1;
							rs += p0 + p1;
						}
						l_r[warp][mt][h][lane] = l_r[warp][mt][h][lane] * alpha + rs;
						for (int i = 0; i < D / 8; i++) {
							oacc[warp][mt][i][lane][2 * h] *= alpha;
							oacc[warp][mt][i][lane][2 * h + 1] *= alpha;
						}
					}
				}
			}
			for (int kc = 0; kc < BC / 16; kc++) {
				static uint32_t a[2][32][4];
				for (int mt = 0; mt < MT; mt++)
					for (int lane = 0; lane < 32; lane++) {
						a[mt][lane][0] = pack(s[mt][2 * kc][lane][0], s[mt][2 * kc][lane][1]);
						a[mt][lane][1] = pack(s[mt][2 * kc][lane][2], s[mt][2 * kc][lane][3]);
						a[mt][lane][2] = pack(s[mt][2 * kc + 1][lane][0], s[mt][2 * kc + 1][lane][1]);
						a[mt][lane][3] = pack(s[mt][2 * kc + 1][lane][2], s[mt][2 * kc + 1][lane][3]);
					}
				for (int dn = 0; dn < D / 16; dn++) {
					uint32_t b[32][4], b0[32], b1[32], b2[32], b3[32];
					for (int lane = 0; lane < 32; lane++)
						addr[lane] = swz(D, kc * 16 + (lane & 7) + (((lane >> 3) & 1) << 3), dn * 2 + (lane >> 4));
					ldsm_x4(cV, addr, b, 1);
					for (int lane = 0; lane < 32; lane++) {
						b0[lane] = b[lane][0];
						b1[lane] = b[lane][1];
						b2[lane] = b[lane][2];
						b3[lane] = b[lane][3];
					}
					for (int mt = 0; mt < MT; mt++) {
						mma(oacc[warp][mt][2 * dn], a[mt], b0, b1);
						mma(oacc[warp][mt][2 * dn + 1], a[mt], b2, b3);
					}
				}
			}
		}
	}
	for (int warp = 0; warp < 4; warp++)
		for (int mt = 0; mt < MT; mt++)
			for (int h = 0; h < 2; h++) {
				float l[32];
				memcpy(l, l_r[warp][mt][h], sizeof l);
				shfl_sum(l, 1);
				shfl_sum(l, 2);
				for (int lane = 0; lane < 32; lane++) {
					int g = lane >> 2, t = lane & 3;
					float inv = l[lane] > 0 ? 1.f / l[lane] : 0.f;
					bf16 *orow = o + (size_t)(warp * WR + mt * 16 + g + h * 8) * D;
					for (int i = 0; i < D / 8; i++) {
						uint32_t w = pack(oacc[warp][mt][i][lane][2 * h] * inv, oacc[warp][mt][i][lane][2 * h + 1] * inv);
						memcpy(orow + i * 8 + 2 * t, &w, 4);
					}
				}
			}
	free(sQ);
}

static void run_case(int L, int D, int MT, int causal, int bh)
{
	size_t n = (size_t)bh * L * D;
	bf16 *q = malloc(n * 2), *k = malloc(n * 2), *v = malloc(n * 2), *o = malloc(n * 2);
	float *qf = malloc(n * 4), *kf = malloc(n * 4), *vf = malloc(n * 4);
	double *ref = malloc(n * 8);
	uint64_t seed = 99 + (uint64_t)L + (uint64_t)D * 3 + (uint64_t)MT * 7 + (uint64_t)causal;
	gd_lab_rand_fill(q, n, GD_DT_BF16, -2, 2, &seed);
	gd_lab_rand_fill(k, n, GD_DT_BF16, -2, 2, &seed);
	gd_lab_rand_fill(v, n, GD_DT_BF16, -1, 1, &seed);
	memset(o, 0xff, n * 2);
	for (size_t i = 0; i < n; i++) {
		qf[i] = bf(q[i]);
		kf[i] = bf(k[i]);
		vf[i] = bf(v[i]);
	}
	double scale = 1 / sqrt((double)D);
	for (int by = 0; by < bh; by++)
		for (int bx = 0; bx < L / (64 * MT); bx++)
			emu_block(q, k, v, o, L, D, MT, causal, (float)(scale * 1.4426950408889634), bx, by);
	gd_attn_ref(qf, kf, vf, ref, bh, L, D, causal, scale);
	struct gd_lab_check c;
	memset(&c, 0, sizeof c);
	gd_lab_cmp(o, ref, n, GD_DT_BF16, 2e-3, 1.0 / 64, &c);
	if (!c.ok)
		fprintf(stderr, "emulated flash L=%d d=%d rows/warp=%d causal=%d: %lld bad (%lld unwritten), max abs %g\n",
			L, D, 16 * MT, causal, c.bad, c.unwritten, c.max_abs_err);
	CHECK(c.ok);
	CHECK_INT(c.checked, (long long)n);
	free(q);
	free(k);
	free(v);
	free(o);
	free(qf);
	free(kf);
	free(vf);
	free(ref);
}

int main(void)
{
	for (int causal = 0; causal < 2; causal++) {
		run_case(128, 64, 1, causal, 2);
		run_case(128, 64, 2, causal, 1);
		run_case(192, 128, 1, causal, 1);
		run_case(256, 128, 2, causal, 2);
	}
	return TEST_DONE();
}
