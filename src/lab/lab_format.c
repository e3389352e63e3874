/* Number formats of the lab harness: element types (sizes, names, reading one element as a
 * double), the host conversions to and from FP16, BF16 and FP8 e4m3 that CPU references
 * use, and the deterministic random inputs. Nothing here touches the GPU. (lab.h lists
 * which file holds which part of the harness.) */
#include "lab/lab.h"

#include <math.h>
#include <string.h>

/* ======================================================================== numbers */

size_t gd_lab_dtype_size(enum gd_lab_dtype t)
{
	switch (t) {
	case GD_DT_F64: case GD_DT_U64: return 8;
	case GD_DT_F32: case GD_DT_U32: return 4;
	case GD_DT_F16: case GD_DT_BF16: return 2;
	case GD_DT_FP8E4M3: return 1;
	}
	return 0;
}

const char *gd_lab_dtype_name(enum gd_lab_dtype t)
{
	static const char *const n[] = {"FP64", "FP32", "FP16", "BF16", "FP8-e4m3", "u32", "u64"};
	return (unsigned)t < sizeof(n) / sizeof(n[0]) ? n[t] : "?";
}

static uint32_t f32_bits(float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	return u;
}

static float bits_f32(uint32_t u)
{
	float f;
	memcpy(&f, &u, 4);
	return f;
}

uint16_t gd_f32_to_f16(float f)
{
	uint32_t x = f32_bits(f), sign = (x >> 16) & 0x8000u;
	int32_t exp = (int32_t)((x >> 23) & 0xff) - 127 + 15;
	uint32_t man = x & 0x7fffffu;
	if (((x >> 23) & 0xff) == 0xff) /* inf / nan */
		return (uint16_t)(sign | 0x7c00u | (man ? 0x200u : 0));
	if (exp >= 31)
		return (uint16_t)(sign | 0x7c00u);
	if (exp <= 0) { /* subnormal or zero */
		uint32_t m, shift, r, half;
		if (exp < -10)
			return (uint16_t)sign;
		m = man | 0x800000u;
		shift = (uint32_t)(14 - exp);
		r = m >> shift;
		half = 1u << (shift - 1);
		if ((m & ((1u << shift) - 1)) > half || ((m & ((1u << shift) - 1)) == half && (r & 1)))
			r++;
		return (uint16_t)(sign | r);
	}
	{
		uint32_t h = sign | ((uint32_t)exp << 10) | (man >> 13);
		uint32_t rest = man & 0x1fffu;
		if (rest > 0x1000u || (rest == 0x1000u && (h & 1)))
			h++; /* may carry into the exponent: correct, up to inf */
		return (uint16_t)h;
	}
}

float gd_f16_to_f32(uint16_t h)
{
	uint32_t sign = (uint32_t)(h & 0x8000u) << 16, exp = (h >> 10) & 0x1f, man = h & 0x3ffu;
	if (exp == 0) {
		float v = (float)man * (1.0f / 16777216.0f); /* 2^-24 */
		return sign ? -v : v;
	}
	if (exp == 31)
		return bits_f32(sign | 0x7f800000u | (man << 13));
	return bits_f32(sign | ((exp - 15 + 127) << 23) | (man << 13));
}

uint16_t gd_f32_to_bf16(float f)
{
	uint32_t x = f32_bits(f);
	if ((x & 0x7fffffffu) > 0x7f800000u)
		return (uint16_t)((x >> 16) | 0x40u);
	x += 0x7fffu + ((x >> 16) & 1u);
	return (uint16_t)(x >> 16);
}

float gd_bf16_to_f32(uint16_t h) { return bits_f32((uint32_t)h << 16); }

/* e4m3 ("fn" variant as CUDA's __nv_fp8_e4m3): bias 7, no infinities, S.1111.111 = NaN,
 * largest finite 448. Converted like __nv_cvt_float_to_fp8(..., __NV_SATFINITE, E4M3). */
uint8_t gd_f32_to_e4m3(float f)
{
	uint8_t sign = (uint8_t)((f32_bits(f) >> 24) & 0x80u);
	float a = fabsf(f);
	int e, m, ef;
	if (isnan(f))
		return (uint8_t)(sign | 0x7f);
	if (a > 448.0f) /* saturate to the largest finite value */
		return (uint8_t)(sign | 0x7e);
	if (a < 0.015625f) { /* below 2^-6: subnormals, steps of 2^-9 (m == 8 is 2^-6, encoded 0x08) */
		m = (int)rintf(a * 512.0f);
		return (uint8_t)(sign | m);
	}
	frexpf(a, &e);     /* a = fr · 2^e, fr in [0.5, 1) */
	e -= 1;            /* a in [2^e, 2^(e+1)) */
	m = (int)rintf(ldexpf(a, 3 - e)); /* 8..16, ties to even (default rounding mode) */
	if (m == 16) {
		m = 8;
		e++;
	}
	ef = e + 7;
	if (ef > 15 || (ef == 15 && m - 8 == 7))
		return (uint8_t)(sign | 0x7e);
	return (uint8_t)(sign | (ef << 3) | (m - 8));
}

float gd_e4m3_to_f32(uint8_t v)
{
	int sign = v & 0x80, exp = (v >> 3) & 0xf, man = v & 7;
	float r;
	if (exp == 15 && man == 7)
		return NAN;
	if (exp == 0)
		r = ldexpf((float)man / 8.0f, -6);
	else
		r = ldexpf(1.0f + (float)man / 8.0f, exp - 7);
	return sign ? -r : r;
}

double gd_lab_get(const void *p, size_t i, enum gd_lab_dtype t)
{
	switch (t) {
	case GD_DT_F64: return ((const double *)p)[i];
	case GD_DT_F32: return ((const float *)p)[i];
	case GD_DT_F16: return gd_f16_to_f32(((const uint16_t *)p)[i]);
	case GD_DT_BF16: return gd_bf16_to_f32(((const uint16_t *)p)[i]);
	case GD_DT_FP8E4M3: return gd_e4m3_to_f32(((const uint8_t *)p)[i]);
	case GD_DT_U32: return ((const uint32_t *)p)[i];
	case GD_DT_U64: return (double)((const uint64_t *)p)[i];
	}
	return NAN;
}

static void set_typed(void *p, size_t i, enum gd_lab_dtype t, double v)
{
	switch (t) {
	case GD_DT_F64: ((double *)p)[i] = v; break;
	case GD_DT_F32: ((float *)p)[i] = (float)v; break;
	case GD_DT_F16: ((uint16_t *)p)[i] = gd_f32_to_f16((float)v); break;
	case GD_DT_BF16: ((uint16_t *)p)[i] = gd_f32_to_bf16((float)v); break;
	case GD_DT_FP8E4M3: ((uint8_t *)p)[i] = gd_f32_to_e4m3((float)v); break;
	case GD_DT_U32: ((uint32_t *)p)[i] = (uint32_t)v; break;
	case GD_DT_U64: ((uint64_t *)p)[i] = (uint64_t)v; break;
	}
}

/* ======================================================================== random inputs */

uint64_t gd_lab_rand_u64(uint64_t *s)
{
	/* splitmix64: good enough statistically, trivially reproducible */
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

double gd_lab_rand_uniform(uint64_t *s, double lo, double hi)
{
	return lo + (hi - lo) * ((double)(gd_lab_rand_u64(s) >> 11) * (1.0 / 9007199254740992.0));
}

void gd_lab_rand_fill(void *p, size_t n, enum gd_lab_dtype t, double lo, double hi, uint64_t *s)
{
	for (size_t i = 0; i < n; i++)
		set_typed(p, i, t, gd_lab_rand_uniform(s, lo, hi));
}

