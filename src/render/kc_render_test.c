/* The per-kernel counters of `gpudiag run --metrics` (issue 19, analysis/kcounters.h) in the
 * terminal report, JSON and the HTML page, on a profile built in memory with the view s->kc
 * filled by hand (the renderers read it and compute nothing): a strided gather (32 sectors per
 * request, 12.5 % of each sector used, memory-bound at 40 % of the DRAM roof) and a BF16 GEMM
 * on the tensor cores (compute-bound at 70 %), three launches asked for (two profiled, one
 * cooperative launch skipped, its reason hostile), ceilings measured on device 0. Then a profile
 * that says nothing of kernel counters: no line, no key, no HTML of them. */
#include "render/report.h"
#include "render/test_view.h"

#include "analysis/analysis.h"
#include "core/status.h"
#include "core/test.h"
#include "profile/kc_metrics.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define US 1000LL
#define MS 1000000LL
#define T0 (1000 * 1000 * MS)

#define GATHER "_Z14strided_gatherPKfPfi"
#define GEMM "_Z9bf16_gemmPfi"
#define COOP "_Z9coop_scanPfi"

static void kern(struct gd_profile *p, int64_t t, int64_t dur, const char *name)
{
	struct gd_pkernel *k = gd_profile_add_kernel(p);
	k->start = t;
	k->end = t + dur;
	k->name = k->dname = gd_profile_intern(p, name);
	k->grid[0] = 264;
	k->grid[1] = k->grid[2] = 1;
	k->block[0] = 256;
	k->block[1] = k->block[2] = 1;
	k->regs = 64;
	k->stream = 13;
}

static struct gd_klaunch *klaunch(struct gd_profile *p, const char *name, int status, int passes)
{
	struct gd_klaunch *l = &p->kl[p->nkl++];
	memset(l, 0, sizeof(*l));
	l->pid = 4242;
	l->corr = (uint32_t)(100 + p->nkl);
	l->name = gd_profile_intern(p, name);
	l->kernel = -1;
	l->status = status;
	l->passes = passes;
	l->profile_ns = status == GD_KL_OK ? 120 * MS : -1;
	for (int m = 0; m < GD_KC_COUNT; m++)
		l->q[m] = NAN;
	return l;
}

/* The view's storage: static, swapped in for the one the analysis built (kept to be freed). */
static struct gd_kc_kernel vk[2];
static struct gd_kc_ceilings vc[1];

static void kc_kernel(struct gd_kc_kernel *k, struct gd_profile *p, const char *name)
{
	memset(k, 0, sizeof(*k));
	k->name = gd_profile_intern(p, name);
	k->dname = k->name;
	for (int m = 0; m < GD_KC_COUNT; m++)
		k->q[m] = NAN;
	for (int q = 0; q < GD_P_COUNT; q++)
		k->flops[q] = NAN;
	for (int i = 0; i < GD_KC_TOP_STALLS; i++)
		k->stall[i] = -1, k->stall_pct[i] = NAN;
	k->st_sectors_per_req = k->st_used_pct = k->sm_busy_pct = k->mem_busy_pct = NAN;
	k->sm_busy = k->mem_busy = -1;
}

/* DRAM 4 TB/s, FP32 60 TFLOP/s on the CUDA cores, BF16 800 TFLOP/s on the tensor cores. */
static void fill_view(struct gd_profile *p, struct gd_kc_view *v)
{
	struct gd_kc_kernel *g = &vk[0], *m = &vk[1];
	memset(vc, 0, sizeof(vc));
	vc[0].dram_bps = 4e12, vc[0].l2_bps = 10e12;
	for (int q = 0; q < GD_P_COUNT; q++)
		vc[0].cuda_core[q] = vc[0].tensor[q] = NAN;
	vc[0].cuda_core[GD_P_FP32] = 60e12;
	vc[0].tensor[GD_P_BF16] = 800e12;
	vc[0].measured = 1;
	snprintf(vc[0].source, sizeof(vc[0].source), "measured by gpudiag roofline 2026-12-03");

	/* the gather: 2 ms, 3.2 GB moved (1.6 TB/s, 40 % of 4 TB/s), 0.05 FLOP/B (80 GFLOP/s) */
	kc_kernel(g, p, GATHER);
	g->launches = 1, g->passes = 12;
	g->q[GD_KC_DURATION] = 2 * MS;
	g->q[GD_KC_DRAM_READ] = 3.0e9, g->q[GD_KC_DRAM_WRITE] = 0.2e9;
	g->q[GD_KC_LD_SECTORS] = 3.2e8, g->q[GD_KC_LD_REQUESTS] = 1e7;
	g->q[GD_KC_LD_USED_PCT] = 12.5, g->q[GD_KC_THREADS_PER_INST] = 32;
	g->q[GD_KC_WARPS_ACTIVE] = 45;
	g->q[GD_KC_LSU_PCT] = g->sm_busy_pct = 21, g->sm_busy = GD_KC_LSU_PCT;
	g->q[GD_KC_L2_TAG_PCT] = g->mem_busy_pct = 66, g->mem_busy = GD_KC_L2_TAG_PCT;
	g->q[GD_KC_STALL_LONG_SCOREBOARD] = 71, g->q[GD_KC_STALL_WAIT] = 8;
	g->flops[GD_P_FP64] = 0, g->flops[GD_P_FP32] = 1.6e8, g->flops[GD_P_FP16] = 0;
	g->tensor_inst = 0;
	g->dram_bytes = 3.2e9, g->dram_bps = 1.6e12, g->flop_s = 8e10, g->intensity = 0.05;
	g->ld_sectors_per_req = 32, g->ld_used_pct = 12.5, g->threads_per_inst = 32;
	g->achieved_occ_pct = 45, g->theoretical_occ_pct = 50, g->occ_limiter = "registers";
	g->bound = GD_KB_MEMORY, g->prec = GD_P_FP32, g->ceiling = 2e11, g->roof_pct = 40, g->dram_roof_pct = 40;
	g->stall[0] = GD_KC_STALL_LONG_SCOREBOARD, g->stall_pct[0] = 71;
	g->stall[1] = GD_KC_STALL_WAIT, g->stall_pct[1] = 8;
	g->time_share = 0.6;

	/* the GEMM: 5 ms at 560 TFLOP/s (70 % of 800), 400 FLOP/B (1.4 TB/s) */
	kc_kernel(m, p, GEMM);
	m->launches = 1, m->passes = 14;
	m->q[GD_KC_DURATION] = 5 * MS;
	m->q[GD_KC_TENSOR_HMMA] = 1e7;
	m->flops[GD_P_FP64] = 0, m->flops[GD_P_FP32] = 0, m->flops[GD_P_FP16] = 0;
	m->tensor_inst = 1e7;
	m->dram_bytes = 7e9, m->dram_bps = 1.4e12, m->flop_s = 560e12, m->intensity = 400;
	m->ld_sectors_per_req = 4, m->ld_used_pct = 100, m->threads_per_inst = 32;
	m->achieved_occ_pct = 12, m->theoretical_occ_pct = NAN, m->occ_limiter = NULL;
	m->bound = GD_KB_COMPUTE, m->prec = GD_P_BF16, m->ceiling = 800e12, m->roof_pct = 70, m->dram_roof_pct = 35;
	m->stall[0] = GD_KC_STALL_MATH_PIPE_THROTTLE, m->stall_pct[0] = 30;
	m->time_share = 0.3;

	memset(v, 0, sizeof(*v));
	v->k = vk, v->nk = 2;
	v->profiled = 2, v->skipped = 1, v->max_passes = 14;
	v->replay_flushed = 1, v->replay_kernel = 1; /* one of each: the mixed phrase */
	v->ceil = vc, v->nceil = 1;
}

/* gather 10 × 2 ms, gemm 4 × 5 ms, coop_scan 1 × 1 ms on one H200; with_kc: the launches,
 * the metric set and a refusal; the view filled by hand into *built's place. */
static void build(struct gd_analysis *a, int with_kc, struct gd_kc_view *built)
{
	struct gd_profile *p = &a->p;
	memset(a, 0, sizeof(*a));
	gd_profile_init(p);
	gd_profile_add_device(p);
	snprintf(p->dev[0].name, sizeof(p->dev[0].name), "NVIDIA H200");
	p->dev[0].major = 9;
	p->dev[0].sm_count = 132;
	p->dev[0].max_sm_mhz = 1980;
	for (int i = 0; i < 10; i++)
		kern(p, T0 + i * 3 * MS, 2 * MS, GATHER);
	for (int i = 0; i < 4; i++)
		kern(p, T0 + 40 * MS + i * 6 * MS, 5 * MS, GEMM);
	kern(p, T0 + 70 * MS, MS, COOP);
	if (with_kc) {
		struct gd_klaunch *l;
		p->kl = calloc(3, sizeof(*p->kl));
		p->cap_kl = 3;
		klaunch(p, GATHER, GD_KL_OK, 12);
		l = klaunch(p, GEMM, GD_KL_OK, 14);
		l->nth = 0;
		l = klaunch(p, COOP, GD_KL_SKIP_COOPERATIVE, 0);
		l->detail = gd_profile_intern(p, "cooperative <b>launch</b> & \x1b[2J grid sync");
		snprintf(p->metrics, sizeof(p->metrics), "default");
		snprintf(p->metrics_rejected, sizeof(p->metrics_rejected), "smsp__foo.sum  sm__bar.ratio");
	}
	gd_profile_finish(p);
	CHECK_INT(gd_analysis_of(a), GD_OK);
	*built = a->s.kc;
	if (with_kc)
		fill_view(p, &a->s.kc);
}

static void done(struct gd_analysis *a, struct gd_kc_view *built)
{
	a->s.kc = *built;
	free(a->p.kl); /* allocated here; the profile's own (gd_profile_add_klaunch) may not be linked */
	a->p.kl = NULL, a->p.nkl = a->p.cap_kl = 0;
	gd_analysis_free(a);
}

/* The cells of a table line (two or more spaces apart), or -1 when more than max. */
static int cells(const char *line, char out[][64], int max)
{
	int n = 0;
	const char *q = line;
	while (*q == ' ')
		q++;
	while (*q) {
		const char *e = strstr(q, "  ");
		size_t w = e ? (size_t)(e - q) : strlen(q);
		if (n == max)
			return -1;
		snprintf(out[n++], 64, "%.*s", (int)w, q);
		q += w;
		while (*q == ' ')
			q++;
	}
	return n;
}

static void terminal(const char *t)
{
	char ln[2048], c[20][64];
	const char *kc = strstr(t, "\n  Kernel counters"); /* the section (the top kernels have the same names) */
	CHECK(strstr(t, "\n  Kernel counters (gpudiag run --metrics=default): 2 launches profiled (up to 14 replay passes "
			"each; 1 by user replay, L2 flushed before each pass, 1 by CUPTI kernel replay, L2 not flushed between "
			"passes), 1 skipped: 1 cooperative\n") != NULL);
	CHECK(strstr(t, "\n    metrics this GPU refused (unknown below): smsp__foo.sum  sm__bar.ratio\n") != NULL);
	/* after the top kernels, before the breakdown by kind */
	CHECK(strstr(t, "Top kernels") < strstr(t, "Kernel counters") && strstr(t, "Kernel counters") < strstr(t, "By kind"));
	line_of(t, "ld sect/req", ln, sizeof(ln));
	CHECK_INT(cells(ln, c, 20), 14);
	CHECK(!strcmp(c[0], "kernel") && !strcmp(c[9], "occupancy") && !strcmp(c[13], "top stall"));
	line_of(kc, "    strided_gather ", ln, sizeof(ln));
	CHECK_INT(cells(ln, c, 20), 14);
	{
		const char *want[14] = {"strided_gather", "1",      "2.00 ms",     "1.60 TB/s", "80.0 GFLOP/s",
					"FP32",           "0.05",   "memory",      "40 %",      "45 % / 50 %",
					"32.0",           "12.5 %", "32.0",        "long_scoreboard 71 %"};
		for (int i = 0; i < 14; i++)
			if (strcmp(c[i], want[i])) {
				fprintf(stderr, "gather cell %d: '%s', want '%s'\n", i, c[i], want[i]);
				CHECK(0);
			}
	}
	line_of(kc, "    bf16_gemm ", ln, sizeof(ln));
	CHECK_INT(cells(ln, c, 20), 14);
	{
		/* theoretical occupancy unknown: "unknown", not 0 */
		const char *want[14] = {"bf16_gemm", "1",       "5.00 ms", "1.40 TB/s",     "560 TFLOP/s",
					"BF16",      "400",     "compute", "70 %",          "12 % / unknown",
					"4.0",       "100.0 %", "32.0",    "math_pipe_throttle 30 %"};
		for (int i = 0; i < 14; i++)
			if (strcmp(c[i], want[i])) {
				fprintf(stderr, "gemm cell %d: '%s', want '%s'\n", i, c[i], want[i]);
				CHECK(0);
			}
	}
	/* the gather's row comes first (time share) */
	CHECK(kc && strstr(kc, "    strided_gather ") < strstr(kc, "    bf16_gemm "));
	CHECK(strstr(t, " ld sect/req = 32-byte sectors per global load request (4 ideal);") != NULL);
	CHECK(strstr(t, "\n    medians over each kernel's profiled launches. launches = launches profiled;\n    duration = median "
			"GPU time of one launch;\n    DRAM = DRAM bytes read + written / duration (under CUPTI's kernel replay, which "
			"flushes no cache between passes, writes can read up to ~30 % high; the header says how these launches "
			"were replayed, docs/kernel-metrics.md);\n") != NULL);
	CHECK(strstr(t, "\n    ceilings of GPU 0: measured by gpudiag roofline 2026-12-03: DRAM 4.00 "
			"TB/s, FP32 60.0 TFLOP/s, BF16 tensor 800 TFLOP/s\n") != NULL);
	/* the skipped launch: its reason made safe for the terminal */
	line_of(kc, "coop_scan", ln, sizeof(ln));
	CHECK_INT(cells(ln, c, 20), 4);
	CHECK(!strcmp(c[0], "coop_scan") && !strcmp(c[1], "#1 of pid 4242") && !strcmp(c[2], "cooperative") &&
	      !strcmp(c[3], "cooperative <b>launch</b> & \\x1b[2J grid sync"));
	CHECK(!strchr(t, '\x1b'));
}

static void json(const char *j)
{
	CHECK_INT(json_holds(j, "kc['profiled'] == 2 and kc['skipped'] == 1 and kc['max_passes'] == 14 and kc['replay'] == "
				"{'user_l2_flushed': 1, 'user': 0, 'kernel': 1, 'unknown': 0} and kc['set'] == "
				"'default' and kc['note'] is None"),
		  0);
	CHECK_INT(json_holds(j, "kc['rejected'] == ['smsp__foo.sum', 'sm__bar.ratio']"), 0);
	CHECK_INT(json_holds(j, "kc['skipped_by_status'] == {'cooperative': 1, 'graph': 0, 'communication': 0, "
				"'over budget': 0, 'error': 0}"),
		  0);
	CHECK_INT(json_holds(j, "kc['ceilings'] == [dict(device=0, measured=True, source='measured by gpudiag roofline "
				"2026-12-03', dram_bps=4e12, l2_bps=1e13, cuda_core_flops=dict(kc['ceilings'][0]['cuda_core_flops'], "
				"FP32=6e13), tensor_flops=dict(kc['ceilings'][0]['tensor_flops'], BF16=8e14))] and "
				"kc['ceilings'][0]['cuda_core_flops']['FP64'] is None and kc['ceilings'][0]['tensor_flops']['FP32'] "
				"is None"),
		  0);
	CHECK_INT(json_holds(j, "[k['short_name'] for k in kc['kernels']] == ['strided_gather', 'bf16_gemm'] and "
				"kc['kernels'][0]['name'] == '" GATHER "' and kc['kernels'][0]['device'] == 0 and "
				"kc['kernels'][0]['launches'] == 1 and kc['kernels'][0]['passes'] == 12"),
		  0);
	/* every quantity by its key, null where not collected */
	{
		char e[512];
		snprintf(e, sizeof(e), "len(kc['kernels'][0]['metrics']) == %d and kc['kernels'][0]['metrics']['duration_ns'] == 2e6 "
				       "and kc['kernels'][0]['metrics']['ld_bytes_used_pct'] == 12.5 and "
				       "kc['kernels'][0]['metrics']['stall_long_scoreboard'] == 71 and "
				       "kc['kernels'][0]['metrics']['sm_clock_hz'] is None",
			 GD_KC_COUNT);
		CHECK_INT(json_holds(j, e), 0);
	}
	CHECK_INT(json_holds(j, "kc['kernels'][0]['derived'] == dict(flops=dict(fp64=0, fp32=1.6e8, fp16=0), tensor_inst=0, "
				"dram_bytes=3.2e9, dram_bps=1.6e12, flop_s=8e10, intensity=0.05, ld_sectors_per_request=32, "
				"st_sectors_per_request=None, ld_bytes_used_pct=12.5, st_bytes_used_pct=None, "
				"threads_per_inst=32, achieved_occupancy_pct=45, theoretical_occupancy_pct=50, "
				"occupancy_limiter='registers', sm_busiest_pct=21, sm_busiest='lsu_pipe_pct', mem_busiest_pct=66, mem_busiest='l2_tag_pct', bound='memory', precision='FP32', ceiling_flop_s=2e11, "
				"roof_pct=40, dram_roof_pct=40, stalls=[dict(reason='long_scoreboard', pct=71), "
				"dict(reason='wait', pct=8)], time_share=0.6)"),
		  0);
	CHECK_INT(json_holds(j, "kc['kernels'][1]['derived']['bound'] == 'compute' and kc['kernels'][1]['derived']['precision'] "
				"== 'BF16' and kc['kernels'][1]['derived']['tensor_inst'] == 1e7 and "
				"kc['kernels'][1]['derived']['roof_pct'] == 70 and "
				"kc['kernels'][1]['derived']['theoretical_occupancy_pct'] is None and "
				"kc['kernels'][1]['derived']['occupancy_limiter'] is None and "
				"kc['kernels'][1]['derived']['sm_busiest_pct'] is None and "
				"kc['kernels'][1]['derived']['sm_busiest'] is None"),
		  0);
	CHECK_INT(json_holds(j, "[(l['kernel'], l['status'], l['passes'], l['profile_ns']) for l in kc['launches']] == "
				"[('" GATHER "', 'ok', 12, 120000000), ('" GEMM "', 'ok', 14, 120000000), ('" COOP
				"', 'cooperative', 0, None)] and kc['launches'][2]['detail'].startswith('cooperative <b>launch</b> "
				"& ') and kc['launches'][0]['detail'] is None and kc['launches'][2]['pid'] == 4242 and "
				"kc['launches'][2]['correlation'] == 103 and kc['launches'][2]['nth'] == 0"),
		  0);
	/* the check itself can fail */
	CHECK(json_holds(j, "kc['profiled'] == 3") != 0);
}

/* The n-th circle's cx, cy and title; 0 when there is none. */
static int point(const char *h, int n, double *cx, double *cy, char *title, size_t tn)
{
	const char *q = h;
	for (int i = 0; i <= n; i++) {
		q = strstr(q, "<circle class='kc-point'");
		if (!q)
			return 0;
		if (i < n)
			q++;
	}
	if (sscanf(q, "<circle class='kc-point' cx='%lf' cy='%lf'", cx, cy) != 2)
		return 0;
	const char *t = strstr(q, "<title>"), *e = t ? strstr(t, "</title>") : NULL;
	if (!e)
		return 0;
	snprintf(title, tn, "%.*s", (int)(e - t - 7), t + 7);
	return 1;
}

static void html(const char *h)
{
	double xlo, xhi, ylo, yhi, L, T, PW, PH, cx[2], cy[2], x1, y1, x2, y2;
	char title[2][512];
	const char *svg = strstr(h, "id='kc-roofline-0'");
	CHECK(strstr(h, "<h2>Kernel counters</h2>") != NULL);
	CHECK(strstr(h, "<p id='kc-launches'>gpudiag run --metrics=default: 2 launches profiled (up to 14 replay passes each; "
			"1 by user replay, L2 flushed before each pass, 1 by CUPTI kernel replay, L2 not flushed between passes), "
			"1 skipped: 1 cooperative.</p>") != NULL);
	/* two tables that fit the page: the roofline's columns, then occupancy, access and stalls */
	CHECK(strstr(h, "<td class='k' title='" GATHER "'>strided_gather</td><td class='r'>1</td><td class='r'>2.00 ms</td>"
			"<td class='r'>1.60 TB/s</td><td class='r'>80.0 GFLOP/s</td><td>FP32</td><td class='r'>0.05</td>"
			"<td>memory</td><td class='r'>40 %</td></tr>") != NULL);
	CHECK(strstr(h, "<td class='k' title='" GATHER "'>strided_gather</td><td class='r'>45 % / 50 %</td>"
			"<td class='r'>32.0</td><td class='r'>12.5 %</td><td class='r'>32.0</td><td>long_scoreboard 71 %</td>"
			"</tr>") != NULL);
	CHECK(strstr(h, "<td>BF16</td><td class='r'>400</td><td>compute</td><td class='r'>70 %</td></tr>") != NULL);
	CHECK(strstr(h, ">bf16_gemm</td><td class='r'>12 % / unknown</td>") != NULL);
	CHECK(strstr(h, "<table id='kernel-counters'>") && strstr(h, "<table id='kernel-counters-sm'>"));
	CHECK(strstr(h, "white-space:nowrap") != NULL);
	/* the skipped launch, escaped */
	CHECK(strstr(h, "<td class='n' title='coop_scan'>coop_scan</td><td>#1 of pid 4242</td><td>cooperative</td>"
			"<td class='p'>cooperative &lt;b&gt;launch&lt;/b&gt; &amp; ") != NULL);
	CHECK(!strstr(h, "<b>launch</b>"));
	/* the roofline replaces the cache's: one device, two points, the DRAM roof and the two compute roofs */
	CHECK(svg != NULL);
	CHECK(!strstr(h, "kernels are not placed"));
	CHECK_INT(count(h, "<svg xmlns='http://www.w3.org/2000/svg' width='900' height='504'"), 1);
	CHECK_INT(count(h, "class='kc-point'"), 2);
	CHECK_INT(count(h, "class='kc-roof'"), 2);
	CHECK(strstr(h, ">FP32 CUDA cores 60.0 TFLOP/s</text>") && strstr(h, ">BF16 tensor 800 TFLOP/s</text>"));
	CHECK(strstr(h, ": ceilings measured on this GPU</text>") != NULL);
	CHECK(strstr(h, ">DRAM 4.00 TB/s</text>") != NULL);
	if (!svg)
		return;
	CHECK_INT(sscanf(strstr(svg, "data-decades="), "data-decades='%lf %lf %lf %lf' data-plot='%lf %lf %lf %lf'", &xlo, &xhi,
			 &ylo, &yhi, &L, &T, &PW, &PH),
		  8);
	/* points 0.05 .. 400, ridges 0.05 (FP32: 60e12 / 4e12 = 15) and 200: decades 10^-3 .. 10^4;
	 * FLOP/s 8e10 .. 8e14 and the DRAM roof at 10^-3 (4e9): 10^9 .. 10^16 (8e14 is too close
	 * under 10^15 for the roof's label) */
	CHECK(xlo == -3 && xhi == 4 && ylo == 9 && yhi == 16);
	CHECK(point(h, 0, &cx[0], &cy[0], title[0], sizeof(title[0])) && point(h, 1, &cx[1], &cy[1], title[1], sizeof(title[1])));
	CHECK(!strcmp(title[0], "strided_gather: 0.05 FLOP/B, 80.0 GFLOP/s, 40 % of the roof, memory-bound"));
	CHECK(!strcmp(title[1], "bf16_gemm: 400 FLOP/B, 560 TFLOP/s, 70 % of the roof, compute-bound"));
	CHECK_NEAR(cx[0], L + (log10(0.05) - xlo) / (xhi - xlo) * PW, 0.01);
	CHECK_NEAR(cy[0], T + PH - (log10(8e10) - ylo) / (yhi - ylo) * PH, 0.01);
	CHECK_NEAR(cx[1], L + (log10(400) - xlo) / (xhi - xlo) * PW, 0.01);
	CHECK_NEAR(cy[1], T + PH - (log10(560e12) - ylo) / (yhi - ylo) * PH, 0.01);
	CHECK(cx[0] < cx[1] && cy[0] > cy[1]);
	/* the gather sits log10(1 / 0.4) decades under the DRAM roof at its intensity */
	CHECK_INT(sscanf(strstr(svg, "id='kc-dram-roof-0'"), "id='kc-dram-roof-0' x1='%lf' y1='%lf' x2='%lf' y2='%lf'", &x1,
			 &y1, &x2, &y2),
		  4);
	CHECK_NEAR(cy[0] - (y1 + (y2 - y1) * (cx[0] - x1) / (x2 - x1)), log10(2.5) / (yhi - ylo) * PH, 0.05);
	/* colours by bound: memory blue, compute red */
	CHECK(strstr(h, "r='6' fill='#1f77b4'") && strstr(h, "r='6' fill='#d62728'"));
}

static void with_counters(void)
{
	struct gd_analysis a;
	struct gd_kc_view built;
	char *t, *j, *h;
	build(&a, 1, &built);
	t = view(&a, TEXT), j = view(&a, JSON), h = view(&a, HTML);
	if (getenv("GD_TEST_SHOW"))
		fprintf(stderr, "%s\n%s\n", t, j);
	if (getenv("GD_TEST_HTML")) {
		FILE *f = fopen(getenv("GD_TEST_HTML"), "w");
		if (f)
			fputs(h, f), fclose(f);
	}
	terminal(t);
	json(j);
	html(h);
	free(t), free(j), free(h);
	/* kernels on two devices: each row names its GPU (device 1 has no ceilings: no roofline) */
	vk[1].device = 1;
	t = view(&a, TEXT), h = view(&a, HTML);
	CHECK(strstr(t, "\n    strided_gather (GPU 0)  ") && strstr(t, "\n    bf16_gemm (GPU 1)  "));
	CHECK(strstr(h, ">bf16_gemm (GPU 1)</td>") != NULL);
	CHECK_INT(count(h, "class='kc-point'"), 1);
	free(t), free(h);
	done(&a, &built);
}

/* A --metrics run in which nothing was profiled: the section says so, no table. */
static void none_profiled(void)
{
	struct gd_analysis a;
	struct gd_kc_view built;
	char *t, *j, *h;
	build(&a, 0, &built);
	snprintf(a.p.metrics, sizeof(a.p.metrics), "basic");
	snprintf(a.p.metrics_note, sizeof(a.p.metrics_note), "CUPTI refused the range profiler: <no> \x1b]0; access");
	t = view(&a, TEXT), j = view(&a, JSON), h = view(&a, HTML);
	CHECK(strstr(t, "\n  Kernel counters (gpudiag run --metrics=basic): 0 launches profiled, 0 skipped\n    CUPTI refused "
			"the range profiler: <no> \\x1b]0; access\n") != NULL);
	CHECK(!strstr(t, "ld sect/req"));
	CHECK_INT(json_holds(j, "kc['profiled'] == 0 and kc['kernels'] == [] and kc['launches'] == [] and kc['set'] == 'basic' "
				"and kc['note'].startswith('CUPTI refused') and kc['rejected'] == []"),
		  0);
	CHECK(strstr(h, "<p class='note' id='kc-note'>CUPTI refused the range profiler: &lt;no&gt; ") != NULL);
	CHECK(!strstr(h, "id='kernel-counters'") && !strstr(h, "kc-point"));
	free(t), free(j), free(h);
	done(&a, &built);
}

/* A profile that says nothing of kernel counters (every profile before issue 19). */
static void silent(void)
{
	struct gd_analysis a;
	struct gd_kc_view built;
	char *t, *j, *h;
	build(&a, 0, &built);
	CHECK_INT(a.s.kc.nk, 0);
	t = view(&a, TEXT), j = view(&a, JSON), h = view(&a, HTML);
	CHECK(!strstr(t, "Kernel counters") && !strstr(t, "ld sect/req") && !strstr(t, "skipped launches"));
	CHECK_INT(json_holds(j, "'kernel_counters' not in d['summary']"), 0);
	CHECK(!strstr(h, "Kernel counters") && !strstr(h, "kc-") && !strstr(h, "kernel-counters"));
	CHECK(strstr(h, "kernels are not placed") || strstr(h, "cannot be placed on a roofline"));
	free(t), free(j), free(h);
	done(&a, &built);
}

int main(void)
{
	gd_set_quiet(1);
	with_counters();
	none_profiled();
	silent();
	return TEST_DONE();
}
