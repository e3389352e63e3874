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
 * built in. This checks the index and descriptor arithmetic, not the hardware.
 * The warp-specialised kernel (fwd_kernel_ws, configurations 12 … 18) is emulated as actors,
 * producer, copy engine and two consumers, interleaved by three seeded schedules, with mbarriers
 * (arrival counts, phases, try_wait.parity) and named barriers modelled; besides the output it
 * checks the pipeline's invariants explicitly (see emulate_ws). Not modelled: the memory model
 * (proxy fences, acquire/release), wgmma timing, setmaxnreg, the clock64 trap. */
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

/* fwd_kernel_ws's EX: of every 8 exponentials of a thread's tile, the first EX are computed by
 * fwg_ex2_poly (set per emulated configuration; 0 for every other kernel) */
static int g_ex;

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
			const float a = fmaf(x->s[i], sl2, -mu[(i & 3) >> 1]);
			x->s[i] = (i & 7) < g_ex ? fwg_ex2_poly(a) : exp2f(a);
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

/* ---- fwd_kernel_ws: a producer warpgroup and two consumer warpgroups on mbarrier rings,
 * emulated as three actors plus the copy engine, interleaved by a seeded scheduler. The
 * schedule (stages, parities, arrival counts, named-barrier calls) mirrors the kernel; the
 * checks below fail when it would let a consumer read a stage that does not hold its tile yet,
 * let the producer overwrite a stage a consumer has not finished with, wait on a parity that
 * an mbarrier more than one phase away would also satisfy, deadlock, leave named-barrier
 * arrivals unmatched or, with ping-pong, issue the consumers' phases out of alternation. */
static int g_sched_err;
static void sched_fail(const char *what, int a, int b)
{
	if (g_sched_err++ < 5)
		fprintf(stderr, "ws schedule: %s (%d, %d)\n", what, a, b);
}

struct mbar {
	int count, pending;
	unsigned phase; /* phases completed */
};
static void mb_init(struct mbar *b, int n)
{
	b->count = b->pending = n;
	b->phase = 0;
}
static void mb_arrive(struct mbar *b)
{
	if (--b->pending == 0) {
		b->phase++;
		b->pending = b->count;
	}
}
/* mbarrier.try_wait.parity: true once the phase of that parity has completed, i.e. the
 * current phase's parity differs. `want` is the phase index the caller means (its round): the
 * emulation checks that the parity did not stand for another phase. */
static int mb_try(const struct mbar *b, unsigned parity, unsigned want)
{
	if ((b->phase & 1u) == parity)
		return 0;
	if (b->phase != want + 1)
		sched_fail("parity wait satisfied by the wrong phase", (int)b->phase, (int)want);
	return 1;
}

/* named barrier (bar.sync / bar.arrive with 256 threads): warpgroups of 128 */
struct nbar {
	int count, gen;
};
static void nb_add(struct nbar *b)
{
	b->count += 128;
	if (b->count == 256) {
		b->count = 0;
		b->gen++;
	}
}

enum { WS_MAXB = 64 };
struct ws_state {
	/* configuration and block */
	int D, BN, ST, PP, PF, causal, q0, ntiles, QB, KVB;
	uint32_t sQ, sK, sV;
	const uint16_t *Q, *K, *V;
	uint8_t *sm;
	float sl2;
	/* mbarriers: Q full, K full/empty, V full/empty */
	struct mbar bq, kf[4], ke[4], vf[4], ve[4];
	struct nbar nb[3];
	/* copies: batches in issue order; per producer thread, landed flags and next arrive */
	int nbat;
	struct {
		int kind, tile, stage; /* kind 0 Q, 1 K, 2 V */
		struct mbar *bar;
	} bat[WS_MAXB];
	unsigned char landed[128][WS_MAXB];
	int next_arr[128], npending;
	struct mbar *pf_bar[WS_MAXB]; /* PF = 1: the barrier the producer arrives on itself */
	int p_drain;                  /* PF = 1: batch whose copies the producer waits for, or −1 */
	/* stage contents: tile held, producer threads whose copies of it landed, last tile each
	 * consumer finished reading, wgmmas in flight on it */
	int ktag[4], kland[4], kdone[4][2], kbusy[4];
	int vtag[4], vland[4], vdone[4][2], vbusy[4];
	int qland;
	/* producer: tile, the kernel's incremental stage and empty parity */
	int p_pc, p_t, p_s;
	unsigned p_ph;
	/* consumers */
	struct ws_cons {
		int pc, k, ks, vs, sync_gen, done;
		unsigned kph, vph; /* the kernel's incremental stage and parity of K_k and V_{k−1} */
		struct thr *W;
	} c[2];
	int issue_log[2 * 2 * 64], nissue;
	float *acc, (*alpha)[2]; /* alpha: 2 × 128 threads */
};

static void ws_issue_batch(struct ws_state *S, int kind, int tile, int stage, struct mbar *bar)
{
	if (S->nbat >= WS_MAXB)
		abort();
	S->bat[S->nbat].kind = kind;
	S->bat[S->nbat].tile = tile;
	S->bat[S->nbat].stage = stage;
	S->bat[S->nbat].bar = S->PF ? NULL : bar; /* PF: no arrival from the copies */
	S->pf_bar[S->nbat] = bar;
	for (int th = 0; th < 128; th++)
		S->landed[th][S->nbat] = 0;
	S->nbat++;
	S->npending += 128;
	if (S->PF && S->nbat >= 2) /* commit, wait_group 1: the previous batch next */
		S->p_drain = S->nbat - 2;
}

/* the copy engine: producer thread th's copies of batch b land, then the thread's pending
 * cp.async.mbarrier.arrive.noinc fire in order (each needs all the thread's earlier copies) */
static void ws_land(struct ws_state *S, int th, int b)
{
	const int kind = S->bat[b].kind, tile = S->bat[b].tile, st = S->bat[b].stage;
	const int R = kind == 0 ? 128 : S->BN, D = S->D;
	const uint16_t *g = kind == 0 ? S->Q + (size_t)S->q0 * D : (kind == 1 ? S->K : S->V) + (size_t)tile * S->BN * D;
	const uint32_t base = kind == 0 ? S->sQ : (kind == 1 ? S->sK : S->sV) + (uint32_t)(st * S->KVB);
	for (int i = 0; i < R * D / 1024; i++) {
		uint32_t so, go;
		fwg_ws_copy(R, D, th, i, &so, &go);
		memcpy(S->sm + base + so, g + go, 16);
	}
	S->landed[th][b] = 1;
	S->npending--;
	if (kind == 0)
		S->qland++;
	else if (kind == 1)
		S->kland[st]++;
	else
		S->vland[st]++;
	while (S->next_arr[th] < S->nbat && S->landed[th][S->next_arr[th]]) {
		struct mbar *bar = S->bat[S->next_arr[th]++].bar;
		if (bar)
			mb_arrive(bar);
	}
}

static int ws_copy_step(struct ws_state *S, uint64_t *rng)
{
	if (!S->npending)
		return 0;
	*rng = *rng * 6364136223846793005ull + 1442695040888963407ull;
	int pick = (int)((*rng >> 33) % (uint64_t)S->npending);
	for (int b = 0; b < S->nbat; b++)
		for (int th = 0; th < 128; th++)
			if (!S->landed[th][b] && pick-- == 0) {
				ws_land(S, th, b);
				return 1;
			}
	abort();
}

/* the producer warpgroup: Q, then per tile t: [wait K empty] K_t, [wait V empty] V_t. PF = 1:
 * after issuing a batch the producer waits for its previous batch's copies (cp.async.wait_group
 * 1; modelled for the warpgroup at once), then its 128 threads arrive on that batch's barrier;
 * the last batch is drained at the end. */
/* The producer refills stage s of the K (kind 1) or V (kind 2) ring with tile t: from round 1
 * on it waits for the stage's empty barrier (parity ph) and checks that both consumers are
 * done with tile t − ST and no copy or wgmma still touches the stage. 0: not yet (blocked). */
static int ws_fill(struct ws_state *S, int kind, int t, int s, unsigned ph)
{
	const int ST = S->ST;
	struct mbar *empty = kind == 1 ? S->ke : S->ve, *full = kind == 1 ? S->kf : S->vf;
	int *tag = kind == 1 ? S->ktag : S->vtag, *land = kind == 1 ? S->kland : S->vland;
	int(*done)[2] = kind == 1 ? S->kdone : S->vdone, *busy = kind == 1 ? S->kbusy : S->vbusy;
	if (t >= ST && !mb_try(&empty[s], ph, (unsigned)(t / ST - 1)))
		return 0;
	if (t >= ST && (done[s][0] != t - ST || done[s][1] != t - ST || busy[s] || land[s] != 128))
		sched_fail(kind == 1 ? "producer overwrites a K stage still in use" : "producer overwrites a V stage still in use",
			   s, t);
	tag[s] = t;
	land[s] = 0;
	ws_issue_batch(S, kind, t, s, &full[s]);
	return 1;
}

static int ws_producer_step(struct ws_state *S)
{
	const int t = S->p_t, ST = S->ST, s = S->p_s;
	const unsigned ph = S->p_ph; /* parity of the empty phase to wait for (round − 1) */
	if (S->p_drain >= 0) {
		for (int th = 0; th < 128; th++)
			if (!S->landed[th][S->p_drain])
				return 0;
		for (int th = 0; th < 128; th++)
			mb_arrive(S->pf_bar[S->p_drain]);
		S->p_drain = -1;
		return 1;
	}
	switch (S->p_pc) {
	case 0:
		ws_issue_batch(S, 0, 0, 0, &S->bq);
		S->p_pc = 1;
		return 1;
	case 1: /* wait K empty, issue K_t */
		if (t >= S->ntiles) {
			if (S->PF)
				S->p_drain = S->nbat - 1; /* wait_all, fence, arrive */
			S->p_pc = 9;
			return 1;
		}
		if (!ws_fill(S, 1, t, s, ph))
			return 0;
		S->p_pc = 2;
		return 1;
	case 2: /* wait V empty, issue V_t */
		if (!ws_fill(S, 2, t, s, ph))
			return 0;
		S->p_t++;
		if (++S->p_s == ST) {
			S->p_s = 0;
			S->p_ph ^= 1u;
		}
		S->p_pc = 1;
		return 1;
	default:
		return 0; /* done */
	}
}

static void ws_check_k(struct ws_state *S, int s, int t)
{
	if (S->ktag[s] != t || S->kland[s] != 128)
		sched_fail("consumer reads a K stage not holding its tile", s, t);
}
static void ws_check_v(struct ws_state *S, int s, int t)
{
	if (S->vtag[s] != t || S->vland[s] != 128)
		sched_fail("consumer reads a V stage not holding its tile", s, t);
}

/* consumer c, phase k: 0 wait full; 1 ping-pong wait; 2 issue (+ ping-pong arrive);
 * 3 wait S, release K, softmax; 4 wait P·V, release V, rescale and pack; 5 done */
static int ws_consumer_step(struct ws_state *S, int c)
{
	struct ws_cons *C = &S->c[c];
	const int k = C->k, n = S->ntiles, do_s = k < n, do_pv = k > 0, ST = S->ST;
	if (C->done)
		return 0;
	switch (C->pc) {
	case 0:
		if (k == 0 && !mb_try(&S->bq, 0, 0))
			return 0;
		if (k == 0 && S->qland != 128)
			sched_fail("consumer reads Q before it landed", c, 0);
		/* the phase meant: fill round of K_k and of V_{k−1} */
		if (do_s && !mb_try(&S->kf[C->ks], C->kph, (unsigned)(k / ST)))
			return 0;
		if (do_pv && !mb_try(&S->vf[C->vs], C->vph, (unsigned)((k - 1) / ST)))
			return 0;
		C->pc = 1;
		return 1;
	case 1:
		if (S->PP && (do_pv || c == 1)) {
			struct nbar *b = &S->nb[1 + c];
			if (C->sync_gen < 0) {
				C->sync_gen = b->gen;
				nb_add(b);
			}
			if (b->gen == C->sync_gen)
				return 0;
			C->sync_gen = -1;
		}
		C->pc = 2;
		return 1;
	case 2:
		if (do_s) {
			ws_check_k(S, C->ks, k);
			S->kbusy[C->ks]++;
		}
		if (do_pv) {
			ws_check_v(S, C->vs, k - 1);
			S->vbusy[C->vs]++;
		}
		S->issue_log[S->nissue++] = c * 1000 + k;
		if (S->PP && (do_s || c == 0))
			nb_add(&S->nb[2 - c]);
		C->pc = 3;
		return 1;
	case 3:
		if (do_s) {
			ws_check_k(S, C->ks, k); /* still there when the wgmma completes */
			wg_s(S->sm, C->W, S->acc, S->sQ, 128, c, S->sK + (uint32_t)(C->ks * S->KVB), S->BN, S->D);
			S->kbusy[C->ks]--;
			S->kdone[C->ks][c] = k;
			for (int w = 0; w < 4; w++) /* lane 0 of each warp */
				mb_arrive(&S->ke[C->ks]);
			if (++C->ks == ST) {
				C->ks = 0;
				C->kph ^= 1u;
			}
			wg_softmax(C->W, S->alpha + 128 * c, S->causal, S->q0 + 64 * c, k * S->BN, S->BN, S->sl2);
		}
		C->pc = 4;
		return 1;
	case 4:
		if (do_pv) {
			ws_check_v(S, C->vs, k - 1);
			wg_pv(S->sm, C->W, S->acc, S->sV + (uint32_t)(C->vs * S->KVB), S->BN, S->D);
			S->vbusy[C->vs]--;
			S->vdone[C->vs][c] = k - 1;
			for (int w = 0; w < 4; w++)
				mb_arrive(&S->ve[C->vs]);
			if (++C->vs == ST) {
				C->vs = 0;
				C->vph ^= 1u;
			}
		}
		if (do_s)
			wg_rescale_pack(C->W, S->alpha + 128 * c, S->BN, S->D);
		C->pc = 0;
		if (++C->k > n)
			C->done = 1;
		return 1;
	}
	abort();
}

/* One head, every block of fwd_kernel_ws<D, BN, ST, PP>, scheduled by mode: 0 random, 1 the
 * producer and its copies first (it runs as far ahead as the empty barriers let it), 2 the
 * consumers first and copies landing only when nothing else can move. */
static void emulate_ws(const uint16_t *Q, const uint16_t *K, const uint16_t *V, float *O, int L, int D, int BN, int ST,
		       int PP, int PF, int causal, float scale, int mode, uint64_t seed)
{
	struct ws_state *S = calloc(1, sizeof *S);
	if (!S)
		abort();
	S->D = D, S->BN = BN, S->ST = ST, S->PP = PP, S->PF = PF, S->causal = causal;
	S->QB = 128 * D * 2, S->KVB = BN * D * 2;
	S->sQ = 0, S->sK = (uint32_t)S->QB, S->sV = S->sK + (uint32_t)(ST * S->KVB);
	S->Q = Q, S->K = K, S->V = V;
	S->sl2 = scale * 1.4426950408889634f;
	const size_t smb = (size_t)S->QB + 2u * (size_t)ST * (size_t)S->KVB;
	S->sm = malloc(smb);
	struct thr *T = calloc(256, sizeof *T);
	S->acc = malloc(sizeof(float) * 64 * 128);
	S->alpha = malloc(sizeof(float) * 2 * 256);
	if (!S->sm || !T || !S->acc || !S->alpha)
		abort();
	uint64_t rng = seed;
	const int nqb = L / 128;
	for (int by = 0; by < nqb; by++) {
		int hd, qb;
		fwg_block(by, 1, nqb, causal, &hd, &qb);
		S->q0 = qb * 128;
		S->ntiles = causal ? (S->q0 + 127) / BN + 1 : L / BN;
		memset(S->sm, 0xEE, smb); /* stale data from "another block" */
		mb_init(&S->bq, 128);
		for (int s = 0; s < ST; s++) {
			mb_init(&S->kf[s], 128);
			mb_init(&S->vf[s], 128);
			mb_init(&S->ke[s], 8);
			mb_init(&S->ve[s], 8);
			S->ktag[s] = S->vtag[s] = -1;
			S->kland[s] = S->vland[s] = 0;
			S->kbusy[s] = S->vbusy[s] = 0;
			S->kdone[s][0] = S->kdone[s][1] = S->vdone[s][0] = S->vdone[s][1] = -1;
		}
		memset(S->nb, 0, sizeof S->nb);
		S->nbat = S->npending = S->qland = S->nissue = 0;
		memset(S->next_arr, 0, sizeof S->next_arr);
		S->p_pc = S->p_t = S->p_s = 0;
		S->p_drain = -1;
		S->p_ph = 1;
		for (int i = 0; i < 256; i++) {
			memset(&T[i], 0, sizeof T[i]);
			T[i].m[0] = T[i].m[1] = -INFINITY;
		}
		for (int c = 0; c < 2; c++) {
			memset(&S->c[c], 0, sizeof S->c[c]);
			S->c[c].sync_gen = -1;
			S->c[c].W = T + 128 * c;
		}
		for (long steps = 0;; steps++) {
			/* actors: 0 producer, 1 copy engine, 2 consumer 0, 3 consumer 1 */
			int order[4] = {0, 1, 2, 3};
			rng = rng * 6364136223846793005ull + 1442695040888963407ull;
			for (int i = 3; i > 0; i--) { /* random order, then the mode's priorities */
				int j = (int)((rng >> (33 + 2 * i)) % (uint64_t)(i + 1)), x = order[i];
				order[i] = order[j];
				order[j] = x;
			}
			if (mode == 1)
				for (int i = 0, w = 0; w < 2; i++)
					if (order[i] <= 1) {
						int x = order[w];
						order[w++] = order[i];
						order[i] = x;
					}
			if (mode == 2) { /* consumers, then the producer; copies below */
				order[0] = 2 + (int)(rng >> 63);
				order[1] = 5 - order[0];
				order[2] = 0;
				order[3] = 1;
			}
			int moved = 0;
			for (int i = 0; i < 4 && !moved; i++) {
				int a = order[i];
				if (mode == 2 && a == 1)
					continue; /* copies only when nothing else moves */
				moved = a == 0 ? ws_producer_step(S) : a == 1 ? ws_copy_step(S, &rng) : ws_consumer_step(S, a - 2);
			}
			if (!moved && mode == 2)
				moved = ws_copy_step(S, &rng);
			if (!moved)
				break;
			if (steps > 10000000)
				abort();
		}
		if (!S->c[0].done || !S->c[1].done || S->p_pc != 9 || S->p_drain >= 0)
			sched_fail("deadlock: no actor can move", by, S->c[0].k * 100 + S->c[1].k);
		if (S->nb[1].count || S->nb[2].count)
			sched_fail("named barrier arrivals left unmatched", S->nb[1].count, S->nb[2].count);
		if (PP) /* strict alternation C0 k0, C1 k0, C0 k1, … */
			for (int i = 0; i < S->nissue; i++)
				if (S->issue_log[i] != (i & 1) * 1000 + i / 2)
					sched_fail("ping-pong order broken", i, S->issue_log[i]);
		/* epilogue (store_o) */
		for (int th = 0; th < 256; th++) {
			const int c = th >> 7, wt = th & 127, lane = th & 31, qd = th & ~3;
			const int r0 = S->q0 + 64 * c + 16 * (wt >> 5) + (lane >> 2), c0 = 2 * (lane & 3);
			for (int h = 0; h < 2; h++) {
				float lsum = T[qd].l[h] + T[qd + 1].l[h] + T[qd + 2].l[h] + T[qd + 3].l[h];
				float inv = lsum > 0 ? 1.0f / lsum : 0.0f;
				for (int j = 0; j < D / 8; j++)
					for (int e = 0; e < 2; e++)
						O[(size_t)(r0 + 8 * h) * D + 8 * j + c0 + e] = bf2f(f2bf(T[th].o[4 * j + 2 * h + e] * inv));
			}
		}
	}
	free(S->sm);
	free(S->acc);
	free(S->alpha);
	free(S);
	free(T);
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
	/* the producer's copy (fwd_kernel_ws) moves every 16-byte chunk of a tile once, to where
	 * fwg_chunk_off puts it */
	for (int R = 64; R <= 128; R *= 2)
		for (int D = 64; D <= 128; D *= 2) {
			const int CH = D / 8;
			int bad = 0;
			unsigned char *seen = calloc((size_t)R * CH, 1);
			for (int wt = 0; wt < 128; wt++)
				for (int i = 0; i < R * D / 1024; i++) {
					uint32_t so, go;
					fwg_ws_copy(R, D, wt, i, &so, &go);
					const int row = (int)(go / (uint32_t)D), ch = (int)(go % (uint32_t)D) / 8;
					if (go % 8 || row >= R || so != fwg_chunk_off(R, row, ch) || seen[row * CH + ch]++)
						bad++;
				}
			for (int i = 0; i < R * CH; i++)
				bad += seen[i] != 1;
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

/* fwg_ex2_poly against exp2 over the softmax's whole argument range (x ≤ 0): relative error
 * ≤ 1.05e-4 down to −125, 2^-125 below (and for −inf, a masked score) */
static void test_ex2_poly(void)
{
	double worst = 0;
	for (long k = 0; k <= 1250000; k++) {
		const float x = (float)(-k * 1e-4);
		const double r = exp2((double)x), e = fabs(fwg_ex2_poly(x) - r) / r;
		if (!(e <= worst))
			worst = e;
	}
	CHECK(worst <= 1.05e-4);
	CHECK(worst > 1e-6); /* the cubic's error, not an exact exp2 by accident */
	CHECK_NEAR(fwg_ex2_poly(0.0f), 1.0, 1.05e-4);
	CHECK_NEAR(fwg_ex2_poly(-1.0f), 0.5, 0.5 * 1.05e-4);
	CHECK_NEAR(fwg_ex2_poly(-0.5f), 0.70710678118654752, 0.71 * 1.05e-4);
	CHECK_NEAR(fwg_ex2_poly(-200.0f) / exp2(-125.0), 1.0, 1.05e-4);
	CHECK_NEAR(fwg_ex2_poly(-INFINITY) / exp2(-125.0), 1.0, 1.05e-4);
}

static void test_emulated_kernel(void)
{
	const int BH = 1;
	/* fwg::cfg_info order: BN, warpgroups, fwd_kernel_ov buffers (0: fwd_kernel) */
	enum { NC = 12 };
	const int cfgs[NC][3] = {{128, 2, 0}, {64, 2, 0}, {128, 1, 0}, {64, 1, 0}, {128, 2, 2}, {64, 2, 2},
				 {128, 2, 3}, {64, 2, 3},  {64, 1, 2},  {128, 1, 2}, {64, 1, 3},  {128, 1, 3}};
	uint64_t seed = 12345;
	/* L = 256: configurations 0 … 11; L = 768: 12 … 18, whose rings (2 … 4 stages of 6 or 12
	 * tiles) wrap several times, so the empty barriers and parities are exercised */
	for (int li = 0; li < 2; li++) {
		for (int D = 64; D <= 128; D *= 2) {
			const int L = li ? 768 : 256;
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
				for (int c = 0; c < (li ? 0 : NC); c++) {
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
				/* configurations 12 … 18 (fwd_kernel_ws): BN, stages, ping-pong, producer fence;
				 * three schedules each */
				/* … and 19 … 21: configuration 14 with EX = 2, 3, 4 of 8 exponentials by fwg_ex2_poly */
				const int wcfgs[10][5] = {{128, 2, 1, 0, 0}, {128, 3, 1, 0, 0}, {128, 2, 0, 0, 0}, {128, 3, 0, 0, 0},
							  {64, 4, 1, 0, 0},  {64, 4, 0, 0, 0},  {128, 2, 1, 1, 0}, {128, 2, 0, 0, 2},
							  {128, 2, 0, 0, 3}, {128, 2, 0, 0, 4}};
				for (int c = 0; c < (li ? 10 : 0); c++)
					for (int mode = 0; mode < (wcfgs[c][4] ? 1 : 3); mode++) {
						g_ex = wcfgs[c][4];
						for (size_t i = 0; i < cnt; i++)
							o[i] = NAN;
						g_bad_desc = 0;
						g_sched_err = 0;
						emulate_ws(q, k, v, o, L, D, wcfgs[c][0], wcfgs[c][1], wcfgs[c][2], wcfgs[c][3], causal, (float)scale,
							   mode,
							   777u + (uint64_t)(31 * c + mode));
						double worst = 0;
						for (size_t i = 0; i < cnt; i++) {
							double e = fabs(o[i] - ref[i]) / (2e-3 + fabs(ref[i]) / 64);
							if (!(e <= worst))
								worst = e;
						}
						if (!(worst <= 1) || g_sched_err)
							fprintf(stderr, "ws d=%d causal=%d BN=%d ST=%d PP=%d PF=%d mode %d: worst error %.3g × tolerance, %d schedule errors\n",
								D, causal, wcfgs[c][0], wcfgs[c][1], wcfgs[c][2], wcfgs[c][3], mode, worst, g_sched_err);
						CHECK(worst <= 1);
						CHECK_INT(g_bad_desc, 0);
						CHECK_INT(g_sched_err, 0);
						g_ex = 0;
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
}

int main(void)
{
	test_ex2_poly();
	test_layout_functions();
	test_emulated_kernel();
	return TEST_DONE();
}
