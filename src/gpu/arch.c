/* Per-architecture tables; see arch.h. Every number here is a published fact, with its
 * source in docs/gpu-facts-sources.md. Where no source gives a figure, it is 0 and shown as
 * unknown, never estimated. */
#include "gpu/arch.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *prec_names[GD_P_COUNT] = {"FP64", "FP32", "TF32", "FP16", "BF16",
					     "FP8", "INT8", "INT4", "FP4"};

const char *gd_prec_name(enum gd_prec p) { return p < GD_P_COUNT ? prec_names[p] : "?"; }

#define BIT(p) (1u << (p))
#define KB 1024

static const int carve_turing[] = {32, 64};
static const int carve_ga100[] = {0, 8, 16, 32, 64, 100, 132, 164};
static const int carve_ga10x[] = {0, 8, 16, 32, 64, 100};
static const int carve_hopper[] = {0, 8, 16, 32, 64, 100, 132, 164, 196, 228};
#define CARVE(a) a, (int)(sizeof(a) / sizeof(*a))

/* Throughput rows: FLOP per clock per SM, dense, FMA counted as two operations.
 * CUDA cores: 2 × "results per clock per multiprocessor" of the Programming Guide's
 * arithmetic-instruction table (FP16/BF16 as packed half2/bfloat162).
 * Tensor cores: whitepaper dense peak ÷ (SMs × the clock the whitepaper used). */
static const struct gd_arch table[] = {
	{7, 5, "sm_75", "Turing", "T4, RTX 20xx, Quadro RTX",
	 1024, 1024, 16, 32, 65536, 65536, 255, 256, 4,
	 64 * KB, 48 * KB, 64 * KB, 0, 256, 96, CARVE(carve_turing), 2, 0,
	 "2nd generation (Turing)", BIT(GD_P_FP16) | BIT(GD_P_INT8) | BIT(GD_P_INT4), 0,
	 /* FP64 FP32 TF32 FP16 BF16 FP8 INT8 INT4 FP4 */
	 {4, 128, 0, 256, 0, 0, 0, 0, 0},
	 {0, 0, 0, 1024, 0, 0, 2048, 4096, 0},
	 "Turing whitepaper (T4: 65 TFLOP/s FP16 at 1590 MHz, 40 SMs); CUDA Programming Guide throughput table"},
	{8, 0, "sm_80", "Ampere", "A100, A30",
	 2048, 1024, 32, 32, 65536, 65536, 255, 256, 4,
	 164 * KB, 48 * KB, 163 * KB, 1 * KB, 128, 192, CARVE(carve_ga100), 2, 0,
	 "3rd generation (Ampere)",
	 BIT(GD_P_FP64) | BIT(GD_P_TF32) | BIT(GD_P_FP16) | BIT(GD_P_BF16) | BIT(GD_P_INT8) | BIT(GD_P_INT4), 0,
	 {64, 128, 0, 512, 512, 0, 0, 0, 0},
	 {128, 0, 1024, 2048, 2048, 0, 4096, 8192, 0},
	 "A100 whitepaper (312 TFLOP/s FP16 dense at 1410 MHz, 108 SMs); CUDA Programming Guide throughput table"},
	{8, 6, "sm_86", "Ampere", "RTX 30xx, A40, A10, A6000",
	 1536, 1024, 16, 32, 65536, 65536, 255, 256, 4,
	 100 * KB, 48 * KB, 99 * KB, 1 * KB, 128, 128, CARVE(carve_ga10x), 1, 0,
	 "3rd generation (Ampere)",
	 BIT(GD_P_TF32) | BIT(GD_P_FP16) | BIT(GD_P_BF16) | BIT(GD_P_INT8) | BIT(GD_P_INT4), 0,
	 {4, 256, 0, 256, 256, 0, 0, 0, 0},
	 {0, 0, 512, 1024, 1024, 0, 2048, 4096, 0},
	 "GA102 whitepaper (A40/A6000 rates with FP32 accumulate; GeForce runs FP16/BF16 with FP32 accumulate at half)"},
	{8, 7, "sm_87", "Ampere", "Jetson AGX Orin",
	 1536, 1024, 16, 32, 65536, 65536, 255, 256, 4,
	 164 * KB, 48 * KB, 163 * KB, 1 * KB, 128, 192, CARVE(carve_ga100), 1, 0,
	 "3rd generation (Ampere)",
	 BIT(GD_P_TF32) | BIT(GD_P_FP16) | BIT(GD_P_BF16) | BIT(GD_P_INT8) | BIT(GD_P_INT4), 0,
	 {4, 256, 0, 256, 256, 0, 0, 0, 0},
	 {0, 0, 512, 1024, 1024, 0, 2048, 4096, 0},
	 "Jetson Orin technical brief; CUDA Programming Guide throughput table"},
	{8, 9, "sm_89", "Ada Lovelace", "L4, L40S, RTX 40xx",
	 1536, 1024, 24, 32, 65536, 65536, 255, 256, 4,
	 100 * KB, 48 * KB, 99 * KB, 1 * KB, 128, 128, CARVE(carve_ga10x), 1, 0,
	 "4th generation (Ada)",
	 BIT(GD_P_TF32) | BIT(GD_P_FP16) | BIT(GD_P_BF16) | BIT(GD_P_FP8) | BIT(GD_P_INT8) | BIT(GD_P_INT4), 0,
	 {4, 256, 0, 256, 256, 0, 0, 0, 0},
	 {0, 0, 512, 1024, 1024, 2048, 2048, 4096, 0},
	 "Ada whitepaper (L40S: 362 TFLOP/s FP16 dense at 2520 MHz, 142 SMs); CUDA Programming Guide throughput table"},
	{9, 0, "sm_90", "Hopper", "H100, H200, GH200, H20",
	 2048, 1024, 32, 32, 65536, 65536, 255, 256, 4,
	 228 * KB, 48 * KB, 227 * KB, 1 * KB, 128, 256, CARVE(carve_hopper), 2, 0,
	 "4th generation (Hopper, wgmma)",
	 BIT(GD_P_FP64) | BIT(GD_P_TF32) | BIT(GD_P_FP16) | BIT(GD_P_BF16) | BIT(GD_P_FP8) | BIT(GD_P_INT8), 1,
	 {128, 256, 0, 512, 512, 0, 0, 0, 0},
	 {256, 0, 2048, 4096, 4096, 8192, 8192, 0, 0},
	 "H100 whitepaper (989 TFLOP/s BF16 dense = 4096 FLOP/clk/SM × 132 SMs × 1830 MHz; FP64 67 TFLOP/s tensor); "
	 "CUDA Programming Guide throughput table"},
	{10, 0, "sm_100", "Blackwell", "B200, GB200",
	 2048, 1024, 32, 32, 65536, 65536, 255, 256, 4,
	 228 * KB, 48 * KB, 227 * KB, 1 * KB, 128, 256, CARVE(carve_hopper), 2, 128,
	 "5th generation (Blackwell, tcgen05)",
	 BIT(GD_P_FP64) | BIT(GD_P_TF32) | BIT(GD_P_FP16) | BIT(GD_P_BF16) | BIT(GD_P_FP8) | BIT(GD_P_INT8) |
		 BIT(GD_P_FP4),
	 0,
	 {128, 256, 0, 512, 512, 0, 0, 0, 0},
	 {256, 0, 4096, 8192, 8192, 16384, 16384, 0, 32768},
	 "Blackwell datasheet (B200: 2.25 PFLOP/s BF16 dense, 148 SMs); CUDA Programming Guide throughput table"},
	{10, 3, "sm_103", "Blackwell Ultra", "B300, GB300",
	 2048, 1024, 32, 32, 65536, 65536, 255, 256, 4,
	 228 * KB, 48 * KB, 227 * KB, 1 * KB, 128, 256, CARVE(carve_hopper), 2, 128,
	 "5th generation (Blackwell Ultra, tcgen05)",
	 BIT(GD_P_TF32) | BIT(GD_P_FP16) | BIT(GD_P_BF16) | BIT(GD_P_FP8) | BIT(GD_P_INT8) | BIT(GD_P_FP4), 0,
	 {0, 256, 0, 512, 512, 0, 0, 0, 0},
	 {0, 0, 0, 0, 0, 0, 0, 0, 0},
	 "CUDA Programming Guide (occupancy); no published per-clock tensor figures: peaks unknown"},
	{11, 0, "sm_110", "Blackwell", "Jetson Thor",
	 1536, 1024, 24, 32, 65536, 65536, 255, 256, 4,
	 228 * KB, 48 * KB, 227 * KB, 1 * KB, 128, 256, CARVE(carve_hopper), 1, 128,
	 "5th generation (Blackwell)",
	 BIT(GD_P_TF32) | BIT(GD_P_FP16) | BIT(GD_P_BF16) | BIT(GD_P_FP8) | BIT(GD_P_INT8) | BIT(GD_P_FP4), 0,
	 {0, 256, 0, 0, 0, 0, 0, 0, 0},
	 {0, 0, 0, 0, 0, 0, 0, 0, 0},
	 "CUDA Programming Guide (occupancy); no published per-clock tensor figures: peaks unknown"},
	{12, 0, "sm_120", "Blackwell", "RTX 50xx, RTX PRO 6000 Blackwell",
	 1536, 1024, 24, 32, 65536, 65536, 255, 256, 4,
	 100 * KB, 48 * KB, 99 * KB, 1 * KB, 128, 128, CARVE(carve_ga10x), 1, 128,
	 "5th generation (Blackwell, consumer)",
	 BIT(GD_P_TF32) | BIT(GD_P_FP16) | BIT(GD_P_BF16) | BIT(GD_P_FP8) | BIT(GD_P_INT8) | BIT(GD_P_INT4) |
		 BIT(GD_P_FP4),
	 0,
	 {4, 256, 0, 256, 256, 0, 0, 0, 0},
	 {0, 0, 512, 1024, 1024, 2048, 2048, 0, 4096},
	 "RTX Blackwell whitepaper (RTX PRO 6000: FP16 dense with FP32 accumulate); GeForce accumulates FP32 at half rate"},
	{12, 1, "sm_121", "Blackwell", "DGX Spark (GB10)",
	 1536, 1024, 24, 32, 65536, 65536, 255, 256, 4,
	 100 * KB, 48 * KB, 99 * KB, 1 * KB, 128, 128, CARVE(carve_ga10x), 1, 128,
	 "5th generation (Blackwell, consumer)",
	 BIT(GD_P_TF32) | BIT(GD_P_FP16) | BIT(GD_P_BF16) | BIT(GD_P_FP8) | BIT(GD_P_INT8) | BIT(GD_P_FP4), 0,
	 {4, 256, 0, 256, 256, 0, 0, 0, 0},
	 {0, 0, 0, 0, 0, 0, 0, 0, 0},
	 "CUDA Programming Guide (occupancy); no published per-clock tensor figures: peaks unknown"},
	{0, 0, NULL, NULL, NULL, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, NULL, 0, 0, 0, NULL, 0, 0,
	 {0}, {0}, NULL},
};

const struct gd_arch *gd_arch_all(void) { return table; }

const struct gd_arch *gd_arch_find(int major, int minor)
{
	for (const struct gd_arch *a = table; a->major; a++)
		if (a->major == major && a->minor == minor)
			return a;
	return NULL;
}

const struct gd_arch *gd_arch_parse(const char *s)
{
	char *end;
	long v;
	if (!s)
		return NULL;
	if (!strncmp(s, "sm_", 3) || !strncmp(s, "sm", 2))
		s += s[2] == '_' ? 3 : 2;
	else if (!strncmp(s, "compute_", 8))
		s += 8;
	if (strchr(s, '.')) {
		long mj = strtol(s, &end, 10), mn;
		if (*end != '.')
			return NULL;
		mn = strtol(end + 1, &end, 10);
		return *end ? NULL : gd_arch_find((int)mj, (int)mn);
	}
	v = strtol(s, &end, 10);
	/* "sm_90a", "sm_100a", "sm_100f": the arch-specific and family-specific targets of the
	 * same compute capability, with its limits */
	if ((*end == 'a' || *end == 'f') && !end[1] && end != s)
		end++;
	if (*end || end == s || v < 10)
		return NULL;
	return gd_arch_find((int)(v / 10), (int)(v % 10));
}

const char *gd_arch_known_list(void)
{
	static char buf[256];
	size_t used = 0;
	if (buf[0])
		return buf;
	for (const struct gd_arch *a = table; a->major; a++)
		used += (size_t)snprintf(buf + used, sizeof(buf) - used, "%s%s", used ? ", " : "", a->sm);
	return buf;
}

double gd_arch_peak(const struct gd_arch *a, enum gd_prec p, int tensor, int sms, double clock_mhz)
{
	double per;
	if (!a || p >= GD_P_COUNT || sms <= 0 || !(clock_mhz > 0))
		return NAN;
	per = tensor ? a->tensor_flops_clk_sm[p] : a->cuda_core_flops_clk_sm[p];
	if (per <= 0)
		return NAN;
	return per * sms * clock_mhz * 1e6;
}
