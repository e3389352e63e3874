/* `gpudiag lab attention` — attention forward, naive (S and P materialised in VRAM) against
 * a FlashAttention-style kernel (online softmax, nothing L×L in memory) (guide §9, §4).
 *
 * This part: the FP64 reference, the tiled online-softmax recurrence, FLOPs, the memory
 * model and the length-list parser (no GPU). */
#include "lab/lab_attention.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

double gd_attn_flops(const struct gd_attn_shape *s)
{
	double f = 4.0 * s->b * s->h * (double)s->l * (double)s->l * s->d;
	return s->causal ? f / 2 : f;
}

unsigned long long gd_attn_bytes_io(const struct gd_attn_shape *s)
{
	return 4ull * 2ull * (unsigned long long)s->b * s->h * s->l * s->d;
}

unsigned long long gd_attn_bytes_naive(const struct gd_attn_shape *s)
{
	unsigned long long bh = (unsigned long long)s->b * s->h;
	return gd_attn_bytes_io(s) + 2ull * bh * s->l * s->l + 2ull * bh * s->l * s->d;
}

unsigned long long gd_attn_bytes_flash(const struct gd_attn_shape *s)
{
	return gd_attn_bytes_io(s);
}

long long gd_attn_max_len(int naive, int b, int h, int d, unsigned long long free_bytes)
{
	/* Both models grow with L, so a binary search over multiples of 64 is exact. */
	long long lo = 0, hi = 1;
	struct gd_attn_shape s = {b, h, 64, d, 0};
	for (;;) { /* find hi (in units of 64) that does not fit */
		s.l = (int)(hi * 64 > 0x7fffffff ? 0x7fffffff : hi * 64);
		unsigned long long need = naive ? gd_attn_bytes_naive(&s) : gd_attn_bytes_flash(&s);
		if (need > free_bytes || hi * 64 >= (1ll << 30))
			break;
		lo = hi;
		hi *= 2;
	}
	while (hi - lo > 1) {
		long long mid = (lo + hi) / 2;
		s.l = (int)(mid * 64);
		unsigned long long need = naive ? gd_attn_bytes_naive(&s) : gd_attn_bytes_flash(&s);
		if (need <= free_bytes)
			lo = mid;
		else
			hi = mid;
	}
	return lo * 64;
}

void gd_attn_ref(const float *q, const float *k, const float *v, double *o, int bh, int l, int d,
		 int causal, double scale)
{
	double *p = malloc(sizeof(double) * (size_t)l);
	if (!p)
		return;
	for (int hd = 0; hd < bh; hd++) {
		const float *qh = q + (size_t)hd * l * d, *kh = k + (size_t)hd * l * d,
			    *vh = v + (size_t)hd * l * d;
		double *oh = o + (size_t)hd * l * d;
		for (int i = 0; i < l; i++) {
			int last = causal ? i : l - 1;
			double mx = -INFINITY, sum = 0;
			for (int j = 0; j <= last; j++) {
				double s = 0;
				for (int c = 0; c < d; c++)
					s += (double)qh[(size_t)i * d + c] * kh[(size_t)j * d + c];
				p[j] = s * scale;
				if (p[j] > mx)
					mx = p[j];
			}
			for (int j = 0; j <= last; j++) {
				p[j] = exp(p[j] - mx);
				sum += p[j];
			}
			for (int c = 0; c < d; c++) {
				double acc = 0;
				for (int j = 0; j <= last; j++)
					acc += p[j] * vh[(size_t)j * d + c];
				oh[(size_t)i * d + c] = acc / sum;
			}
		}
	}
	free(p);
}

void gd_attn_tiled_ref(const float *q, const float *k, const float *v, double *o, int bh, int l,
		       int d, int causal, double scale, int tile)
{
	double *acc = malloc(sizeof(double) * (size_t)d);
	double *s = malloc(sizeof(double) * (size_t)tile);
	if (!acc || !s) {
		free(acc);
		free(s);
		return;
	}
	for (int hd = 0; hd < bh; hd++) {
		const float *qh = q + (size_t)hd * l * d, *kh = k + (size_t)hd * l * d,
			    *vh = v + (size_t)hd * l * d;
		for (int i = 0; i < l; i++) {
			double m = -INFINITY, sum = 0;
			memset(acc, 0, sizeof(double) * (size_t)d);
			for (int j0 = 0; j0 < l; j0 += tile) {
				int n = l - j0 < tile ? l - j0 : tile;
				double tmax = -INFINITY;
				for (int j = 0; j < n; j++) {
					int key = j0 + j;
					if (causal && key > i) {
						s[j] = -INFINITY;
						continue;
					}
					double dot = 0;
					for (int c = 0; c < d; c++)
						dot += (double)qh[(size_t)i * d + c] * kh[(size_t)key * d + c];
					s[j] = dot * scale;
					if (s[j] > tmax)
						tmax = s[j];
				}
				double mnew = m > tmax ? m : tmax;
				if (mnew == -INFINITY)
					continue; /* nothing unmasked yet */
				double alpha = exp(m - mnew); /* 0 on the first tile (m = -inf) */
				sum *= alpha;
				for (int c = 0; c < d; c++)
					acc[c] *= alpha;
				for (int j = 0; j < n; j++) {
					double p = exp(s[j] - mnew);
					sum += p;
					if (p != 0)
						for (int c = 0; c < d; c++)
							acc[c] += p * vh[(size_t)(j0 + j) * d + c];
				}
				m = mnew;
			}
			for (int c = 0; c < d; c++)
				o[((size_t)hd * l + i) * d + c] = acc[c] / sum;
		}
	}
	free(acc);
	free(s);
}

/* "4096", "4k" or "4K": sequence lengths count k as 1024 (4k = 4096), as papers do. */
static int parse_len(const char *s, long long *out)
{
	char *end;
	long long v = strtoll(s, &end, 10);
	if (end == s || v <= 0)
		return -1;
	if (*end == 'k' || *end == 'K') {
		v *= 1024;
		end++;
	}
	if (*end)
		return -1;
	*out = v;
	return 0;
}

int gd_attn_parse_lens(const char *s, long long *lens, int max, char *why, size_t n)
{
	char buf[256];
	if (!s || !*s || strlen(s) >= sizeof buf) {
		snprintf(why, n, "empty or too long length list");
		return -1;
	}
	strcpy(buf, s);
	char *dots = strstr(buf, "..");
	int cnt = 0;
	if (dots) {
		*dots = 0;
		long long a, b;
		if (parse_len(buf, &a) || parse_len(dots + 2, &b)) {
			snprintf(why, n, "'%s' is not a range like 512..16k", s);
			return -1;
		}
		if (a < 64 || b < a) {
			snprintf(why, n, "range '%s' must go up from at least 64", s);
			return -1;
		}
		for (long long x = a; x <= b; x *= 2) {
			if (cnt == max) {
				snprintf(why, n, "too many lengths in '%s' (at most %d)", s, max);
				return -1;
			}
			lens[cnt++] = x;
		}
	} else {
		char *save = NULL;
		for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			long long x;
			if (parse_len(tok, &x)) {
				snprintf(why, n, "'%s' is not a length", tok);
				return -1;
			}
			if (cnt == max) {
				snprintf(why, n, "too many lengths in '%s' (at most %d)", s, max);
				return -1;
			}
			lens[cnt++] = x;
		}
	}
	for (int i = 0; i < cnt; i++)
		if (lens[i] < 64 || lens[i] % 64 || lens[i] > (1 << 20)) {
			snprintf(why, n, "length %lld must be a multiple of 64 between 64 and 1M", lens[i]);
			return -1;
		}
	if (!cnt) {
		snprintf(why, n, "empty length list");
		return -1;
	}
	return cnt;
}
