/* The GPU counters (issue 18, pm_metrics.h) in the terminal report, JSON and the HTML page,
 * on a profile built in memory: two devices of PM samples, per-kernel rows for one kernel on
 * both devices, none for a short one. The values are chosen so each figure tells its source
 * apart: the kernel's columns are the sample-weighted mean of its two rows (50 %, not 80 or 40),
 * the busy-time means weigh each device's samples by the busy time they cover. Then meta
 * counters "off" and a refusal with a hostile reason, and a profile that says nothing of
 * counters (no new keys, no new lines). */
#include "render/report.h"
#include "render/test_view.h"

#include "analysis/analysis.h"
#include "core/status.h"
#include "core/test.h"
#include "profile/pm_metrics.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define US 1000LL
#define MS 1000000LL
#define T0 (1000 * 1000 * MS) /* 1000 s: a realistic CLOCK_REALTIME-like start */



static void kern(struct gd_profile *p, int device, int64_t t, int64_t dur, const char *name)
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
	k->device = device;
}

/* n samples of 100 µs from T0 on device d: sm, tensor, dram, l2 (%), pcie (B/s); NAN = not
 * collected */
static void samples(struct gd_profile *p, int d, int n, double sm, double tensor, double dram, double l2, double pcie)
{
	for (int i = 0; i < n; i++) {
		struct gd_pm_sample *s = gd_profile_add_pm(p);
		s->device = d;
		s->t_start = T0 + i * 100 * US;
		s->t_end = s->t_start + 100 * US;
		s->v[GD_PM_SM_ACTIVE] = sm;
		s->v[GD_PM_TENSOR] = tensor;
		s->v[GD_PM_DRAM] = dram;
		s->v[GD_PM_L2] = l2;
		s->v[GD_PM_PCIE_READ] = pcie;
	}
}

/* The profile: gemm_kernel 10 × 1 ms on device 0 from T0, tiny_kernel 10 × 50 µs from
 * T0 + 15 ms; 200 samples on device 0 (20 ms), 100 on device 1 (10 ms). */
static void build(struct gd_analysis *a, const char *counters, int with_pm)
{
	struct gd_profile *p = &a->p;
	memset(a, 0, sizeof(*a));
	gd_profile_init(p);
	gd_profile_add_device(p);
	gd_profile_add_device(p);
	for (int d = 0; d < 2; d++) {
		snprintf(p->dev[d].name, sizeof(p->dev[d].name), "NVIDIA H200");
		p->dev[d].major = 9;
		p->dev[d].sm_count = 132;
		p->dev[d].max_sm_mhz = 1980;
		p->dev[d].mem_clock_khz = 3201000, p->dev[d].mem_bus_bits = 6016;
	}
	for (int i = 0; i < 10; i++)
		kern(p, 0, T0 + i * MS, MS, "gemm_kernel");
	for (int i = 0; i < 10; i++)
		kern(p, 0, T0 + 15 * MS + i * 100 * US, 50 * US, "tiny_kernel");
	snprintf(p->counters, sizeof(p->counters), "%s", counters);
	if (with_pm) {
		struct gd_pm_kernel *k;
		int gemm = gd_profile_intern(p, "gemm_kernel");
		p->pm_interval_ns = 100 * US;
		p->pm_lost = 2;
		samples(p, 0, 200, 80, 50, 30, 20, 1e9);
		samples(p, 1, 100, 40, NAN, 10, NAN, NAN);
		k = gd_profile_add_kpm(p);
		k->device = 0, k->name = gemm, k->samples = 10;
		k->v[GD_PM_SM_ACTIVE] = 80, k->v[GD_PM_TENSOR] = 50, k->v[GD_PM_DRAM] = 30;
		k = gd_profile_add_kpm(p);
		k->device = 1, k->name = gemm, k->samples = 30;
		k->v[GD_PM_SM_ACTIVE] = 40, k->v[GD_PM_DRAM] = 10;
	}
	gd_profile_finish(p);
	CHECK_INT(gd_analysis_of(a), GD_OK);
}

static void measured(void)
{
	struct gd_analysis a;
	char ln[1024], *t, *j, *h;
	build(&a, "ok", 1);
	CHECK(!strcmp(a.s.ks[0].short_name, "gemm_kernel"));
	CHECK_INT(a.s.ks[0].pm_samples, 40);
	t = view(&a, TEXT);
	j = view(&a, JSON);
	h = view(&a, HTML);
	if (getenv("GD_TEST_SHOW")) /* to look at the views */
		fprintf(stderr, "%s\n%s\n%s\n", t, j, h);

	/* terminal: the measured columns (issue: no kernel carries it, so no column) */
	line_of(t, "grid×block", ln, sizeof(ln));
	CHECK(strstr(ln, "SM act") && strstr(ln, "tensor") && strstr(ln, "DRAM %"));
	CHECK(!strstr(ln, "issue"));
	line_of(t, "gemm_kernel", ln, sizeof(ln));
	/* (80·10 + 40·30) / 40 = 50; tensor only on device 0: 50; (30·10 + 10·30) / 40 = 15,
	 * of 2 × 3.201 GHz × 6016 bits / 8 = 4.814 TB/s: 722 GB/s */
	CHECK(strlen(ln) > 27 && !strcmp(ln + strlen(ln) - 27, "50 %    50 %  15 % 722 GB/s"));
	line_of(t, "tiny_kernel", ln, sizeof(ln));
	CHECK(strlen(ln) > 2 && !strcmp(ln + strlen(ln) - 2, " -"));
	CHECK(strstr(t, "\n    measured: mean of the 100 µs PM samples in which the kernel ran alone (90 % of a sample, "
			"at least 3 samples);\n    '-' = too short or always concurrent. % of peak: SM act = SMs with "
			"a warp resident, tensor = tensor pipe active, DRAM % = DRAM read + write\n") != NULL);
	line_of(t, "GPU counters", ln, sizeof(ln));
	CHECK(strstr(ln, "GPU counters: 300 PM samples every 100 µs on 2 devices, 2 lost") != NULL);
	/* busy time: gemm's 10 ms (both devices sampled) and tiny's 0.5 ms (device 0 only):
	 * SM (80·10.5 + 40·10) / 20.5 = 60.5 %, DRAM (30·10.5 + 10·10) / 20.5 = 20.2 % */
	line_of(t, "mean over GPU-busy time", ln, sizeof(ln));
	CHECK(strstr(ln, "SM active 60 %") && strstr(ln, "Tensor active 50 %") && strstr(ln, "DRAM 20 %") &&
	      strstr(ln, "L2 20 %") && strstr(ln, "PCIe read 1.00 GB/s"));
	CHECK(!strstr(ln, "SM issue"));

	/* JSON */
	CHECK_INT(json_holds(j, "d['summary']['counters']['status'] == 'ok' and d['summary']['counters']['reason'] is None"), 0);
	CHECK_INT(json_holds(j, "d['summary']['counters']['interval_ns'] == 100000 and d['summary']['counters']['samples'] == 300 "
				"and d['summary']['counters']['lost_samples'] == 2 and d['summary']['counters']['devices'] == 2"),
		  0);
	CHECK_INT(json_holds(j, "d['summary']['counters']['metrics'] == ['sm_active_pct', 'tensor_active_pct', 'dram_pct', "
				"'l2_pct', 'pcie_read_bps']"),
		  0);
	CHECK_INT(json_holds(j, "abs(d['summary']['counters']['busy_mean']['sm_active_pct'] - 1240 / 20.5) < 1e-6 and "
				"abs(d['summary']['counters']['busy_mean']['dram_pct'] - 415 / 20.5) < 1e-6 and "
				"abs(d['summary']['counters']['busy_mean']['pcie_read_bps'] - 1e9) < 1"),
		  0);
	CHECK_INT(json_holds(j, "d['summary']['top_kernels'][0]['counters'] == dict(samples=40, gpc_mhz=None, "
				"gr_active_pct=None, sm_active_pct=50, sm_issue_pct=None, tensor_active_pct=50, "
				"dram_pct=15, dram_read_pct=None, dram_write_pct=None, l2_pct=None, "
				"warps_active_pct=None, warps_unused_pct=None, pcie_read_bps=None, pcie_write_bps=None, "
				"dram_bps=d['summary']['top_kernels'][0]['counters']['dram_bps']) and "
				/* 15 % of 2 × 3.201 GHz × 6016 bits / 8 */
				"abs(d['summary']['top_kernels'][0]['counters']['dram_bps'] - 0.15 * 2 * 3.201e9 * 752) < 1e3"),
		  0);
	CHECK_INT(json_holds(j, "d['summary']['top_kernels'][1]['short_name'] == 'tiny_kernel' and "
				"d['summary']['top_kernels'][1]['counters'] is None"),
		  0);
	/* the check itself can fail */
	CHECK(json_holds(j, "d['summary']['counters']['samples'] == 301") != 0);

	/* HTML: device 0 has five quantities, device 1 two (SM active, DRAM) */
	CHECK_INT(count(h, "class='pm-track'"), 7);
	CHECK(strstr(h, "id='pm-track-0-sm_active_pct'") && strstr(h, "id='pm-track-0-pcie_read_bps'") &&
	      strstr(h, "id='pm-track-1-dram_pct'"));
	CHECK(!strstr(h, "id='pm-track-1-tensor_active_pct'") && !strstr(h, "sm_issue_pct"));
	CHECK(strstr(h, ">GPU 1 SM active %</text>") != NULL);
	CHECK(strstr(h, "id='pm-legend'") && strstr(h, "id='pm-quantities'"));
	CHECK(strstr(h, "<td class='p'>cycles the tensor pipe was active, of its peak</td>") != NULL);
	CHECK(strstr(h, "<th class='pm'>SM active</th>") && strstr(h, "<th class='pm'>DRAM</th>"));
	CHECK(!strstr(h, "<th class='pm'>SM issue</th>"));
	CHECK(strstr(h, "<td class='r'>40</td><td class='r'>50 %</td><td class='r'>50 %</td><td class='r'>15 % · 722 GB/s</td>") != NULL);
	CHECK(!strstr(h, "id='counters-note'"));
	/* the timeline (html_timeline.c): the loop is the whole run, so no overview strip; from
	 * y = 6 the kernel lane (84) and the host-sync lane (26), each with a gap of 6, then the
	 * tracks, 30 high, 36 apart. Device 0's SM active track (the first, at y = 128) stands at
	 * 80 %: 128 + 30 × 0.2; device 1's (the sixth, y = 308) at 40 %: 308 + 30 × 0.6 */
	CHECK(strstr(h, "<g class='pm-track' id='pm-track-0-sm_active_pct'><g class='lane' id='lane-pm-0-sm_active_pct'>"
			"<rect x='150' y='128'") != NULL);
	CHECK(strstr(h, "V134.0H") != NULL);
	CHECK(strstr(h, "V326.0H") != NULL);
	free(t);
	free(j);
	free(h);
	gd_analysis_free(&a);
}

/* Counters off, refused (the reason from the profile: escaped, shown, kept in JSON), or the
 * profile silent on them. */
static void statuses(void)
{
	struct gd_analysis a;
	char ln[1024], *t, *j, *h;

	build(&a, "off", 0);
	t = view(&a, TEXT), j = view(&a, JSON), h = view(&a, HTML);
	CHECK(strstr(t, "\n  GPU counters: off (gpudiag run --no-counters)\n") != NULL);
	CHECK(!strstr(t, "SM act"));
	CHECK_INT(json_holds(j, "d['summary']['counters']['status'] == 'off' and d['summary']['counters']['samples'] == 0 "
				"and d['summary']['counters']['metrics'] == [] and "
				"all(k['counters'] is None for k in d['summary']['top_kernels'])"),
		  0);
	CHECK(strstr(h, "id='counters-note'>GPU counters were off") != NULL);
	CHECK_INT(count(h, "class='pm-track'"), 0);
	free(t), free(j), free(h);
	gd_analysis_free(&a);

	build(&a, "no counters: <script>alert('x')</script> & \x1b[2J CUPTI_ERROR_INSUFFICIENT_PRIVILEGES", 0);
	t = view(&a, TEXT), j = view(&a, JSON), h = view(&a, HTML);
	line_of(t, "GPU counters", ln, sizeof(ln));
	CHECK(!strcmp(ln, "  GPU counters: not collected: <script>alert('x')</script> & \\x1b[2J "
			  "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES"));
	CHECK(!strchr(t, '\x1b'));
	CHECK_INT(json_holds(j, "d['summary']['counters']['status'] == 'no counters' and "
				"d['summary']['counters']['reason'].startswith('<script>alert(') and "
				"d['summary']['counters']['reason'].endswith('PRIVILEGES')"),
		  0);
	CHECK(strstr(h, "GPU counters were not collected: &lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; ") != NULL);
	CHECK(!strstr(h, "<script>"));
	free(t), free(j), free(h);
	gd_analysis_free(&a);

	/* silent: no counters line, no column, no key */
	build(&a, "", 0);
	t = view(&a, TEXT), j = view(&a, JSON), h = view(&a, HTML);
	/* (the latency rule may say "the profile has no GPU counters": the summary line is meant) */
	CHECK(!strstr(t, "  GPU counters:") && !strstr(t, "SM act") && !strstr(t, "measured:"));
	CHECK_INT(json_holds(j, "'counters' not in d['summary'] and all('counters' not in k for k in d['summary']['top_kernels'])"),
		  0);
	CHECK(!strstr(h, "pm-") && !strstr(h, "counters-note"));
	free(t), free(j), free(h);
	gd_analysis_free(&a);
}

int main(void)
{
	gd_set_quiet(1);
	measured();
	statuses();
	return TEST_DONE();
}
