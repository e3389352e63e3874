/* `gpudiag lab attention` (guide §9 FlashAttention, §4 memory): the parts that need no GPU —
 * the FP64 CPU reference, the tiled online-softmax recurrence on the CPU, FLOP counting and
 * the memory model of each variant — and the lab entry point. */
#ifndef GPUDIAG_LAB_ATTENTION_H
#define GPUDIAG_LAB_ATTENTION_H

#include <stddef.h>

struct gd_attn_shape {
	int b, h, l, d, causal;
};

/* 4·B·H·L²·d (two GEMMs of 2·L²·d each per head), halved when causal. */
double gd_attn_flops(const struct gd_attn_shape *s);

/* Device bytes, from the allocations each variant makes (BF16 = 2 bytes):
 *   io     Q, K, V and O: 4·B·H·L·d·2
 *   naive  io + S/P (B·H·L²·2, softmax in place) + Vᵀ (B·H·L·d·2)
 *   flash  io + nothing (S and P live in registers; the extra is 0, i.e. O(L) at most) */
unsigned long long gd_attn_bytes_io(const struct gd_attn_shape *s);
unsigned long long gd_attn_bytes_naive(const struct gd_attn_shape *s);
unsigned long long gd_attn_bytes_flash(const struct gd_attn_shape *s);

/* The largest L (a multiple of 64) whose model bytes fit in `free_bytes` for B, H, d
 * (naive != 0: the naive model, else flash). 0 when not even L = 64 fits. Computed from the
 * model above, not run. */
long long gd_attn_max_len(int naive, int b, int h, int d, unsigned long long free_bytes);

/* FP64 reference: o[bh][i][:] = Σ_j softmax_j(scale·q_i·k_j)·v_j, keys j ≤ i when causal.
 * q, k, v: [bh][l][d] floats (the BF16 values the GPU sees); o: [bh][l][d] doubles. */
void gd_attn_ref(const float *q, const float *k, const float *v, double *o, int bh, int l, int d,
		 int causal, double scale);

/* One row of gd_attn_ref: o[0..d) for query i of head hd (p: scratch of l doubles). */
void gd_attn_ref_row(const float *q, const float *k, const float *v, double *o, int l, int d,
		     int causal, double scale, int hd, int i, double *p);

/* The flash algorithm on the CPU, in FP64: keys in tiles of `tile`, running max m, running
 * sum l and output rescaled by exp(m_old − m_new) per tile; normalised once at the end.
 * Equal to gd_attn_ref up to rounding (the online-softmax identity the kernel relies on). */
void gd_attn_tiled_ref(const float *q, const float *k, const float *v, double *o, int bh, int l,
		       int d, int causal, double scale, int tile);

/* Parses "512,1k,4096" or "512..16k" (doubling from the first; k = 1024) into lens
 * (multiples of 64).
 * Returns the count, or -1 with a reason in why. */
int gd_attn_parse_lens(const char *s, long long *lens, int max, char *why, size_t n);

/* One run's shapes. Defaults: batch 1, heads 16, L 512..16k, d 64 and 128, causal and not;
 * --quick: heads 4, L 512 and 1024. */
#define GD_ATTN_MAX_LENS 16
struct gd_attn_cfg {
	int batch, heads;
	long long lens[GD_ATTN_MAX_LENS];
	int nlens;
	int dims[2], ndims;
	int causal[2], ncausal;
};
/* Applies "lens=512..16k;heads=16;batch=1;dims=64,128;causal=both" (any subset; causal is
 * yes, no or both; dims from {64, 128}) to cfg. 0, or -1 with a reason in why. The lab reads
 * it from GPUDIAG_LAB_ATTENTION (the lab harness owns the command-line options). */
int gd_attn_parse_cfg(const char *s, struct gd_attn_cfg *cfg, char *why, size_t n);

#endif
