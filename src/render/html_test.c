/* The HTML page (render/html.c, html_timeline.c) on a loop built in memory: three kernels a
 * step, 530 µs each, a 2 ms stall after the 21st step, a copy at start-up. Hand-worked: the GPU
 * busy figure of the page is the analysis's (busy over the judged span), the time axes' ticks,
 * the legend, the per-iteration view and its slowest step, the sections in order; and the page
 * stays the same size when the loop runs a hundred times longer (columns, never an element per
 * kernel). */
#include "render/report.h"
#include "render/test_view.h"

#include "analysis/analysis.h"
#include "core/status.h"
#include "core/test.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define US 1000LL
#define T0 (1000LL * 1000 * 1000 * 1000) /* 1000 s */

static int64_t T;

static void kern(struct gd_profile *p, const char *name, int64_t dur)
{
	struct gd_pkernel *k = gd_profile_add_kernel(p);
	k->start = T;
	k->end = T + dur;
	k->name = k->dname = gd_profile_intern(p, name);
	k->grid[0] = 264, k->grid[1] = k->grid[2] = 1;
	k->block[0] = 256, k->block[1] = k->block[2] = 1;
	k->regs = 64;
	k->stream = 13;
	k->pid = 7;
	T = k->end + 10 * US;
}

/* steps of gemm (300 µs), elementwise (100), layer norm (100), 10 µs apart; 2 ms more after
 * step 21 (1-based); a 50 µs host-to-device copy 1 ms before the first step */
static void build(struct gd_analysis *a, int steps)
{
	struct gd_profile *p = &a->p;
	struct gd_pcopy *c;
	memset(a, 0, sizeof(*a));
	gd_profile_init(p);
	c = gd_profile_add_copy(p);
	c->start = T0 - 1000 * US, c->end = c->start + 50 * US, c->kind = GD_CK_HTOD, c->bytes = 1 << 20, c->pid = 7;
	T = T0;
	for (int i = 0; i < steps; i++) {
		kern(p, "gemm_bf16_kernel", 300 * US);
		kern(p, "vectorized_elementwise_kernel", 100 * US);
		kern(p, "layer_norm_kernel", 100 * US);
		if (i == 20)
			T += 2000 * US;
	}
	gd_profile_finish(p);
	CHECK_INT(gd_analysis_of(a), GD_OK);
}

static size_t page_size(int steps)
{
	struct gd_analysis a;
	char *h;
	size_t n;
	build(&a, steps);
	h = view(&a, HTML);
	n = h ? strlen(h) : 0;
	free(h);
	gd_analysis_free(&a);
	return n;
}

/* 1 when w stands in s as a word of its own (printf's "nan", "-nan", "inf"), not inside one
 * ("nanosecond", "info"). */
static int has_word(const char *s, const char *w)
{
	size_t n = strlen(w);
	for (const char *q = s; (q = strstr(q, w)); q += n) {
		int before = q > s && ((q[-1] >= 'a' && q[-1] <= 'z') || (q[-1] >= 'A' && q[-1] <= 'Z'));
		int after = (q[n] >= 'a' && q[n] <= 'z') || (q[n] >= 'A' && q[n] <= 'Z');
		if (!before && !after)
			return 1;
	}
	return 0;
}

/* Times at the ends of int64 (a hostile or corrupt in-memory profile; the reader refuses them
 * from a file): the loop view and the page must stay defined (the sanitizer build runs this) and
 * draw every column inside its lane. The statistics tables are not built here: the page is
 * rendered from the summary, the verdicts and the loop view alone. */
static void extreme_times(void)
{
	struct gd_analysis a;
	struct gd_profile *p = &a.p;
	char *h;
	memset(&a, 0, sizeof(a));
	gd_profile_init(p);
	for (int i = 0; i < 12; i++) {
		struct gd_pkernel *k = gd_profile_add_kernel(p);
		k->start = i < 6 ? INT64_MIN + 1000 * (int64_t)i : INT64_MAX / 2 + 1000 * (int64_t)i;
		k->end = i == 11 ? INT64_MAX : k->start + 500;
		k->name = k->dname = gd_profile_intern(p, i % 2 ? "b_kernel" : "a_kernel");
		k->pid = 7;
	}
	for (int i = 0; i < 3; i++) {
		struct gd_pnvml *n = gd_profile_add_nvml(p);
		n->t = i == 0 ? INT64_MIN : i == 1 ? 0 : INT64_MAX;
		n->util_gpu = 50;
		n->power_w = 100;
		n->sm_mhz = 1000;
		n->mem_used = 1e9;
	}
	gd_profile_finish(p);
	CHECK_INT(gd_summary_compute(p, &a.s), GD_OK);
	CHECK_INT(gd_verdicts_compute(p, &a.s, &a.v), GD_OK);
	CHECK_INT(gd_loop_view_compute(p, &a.s, a.v.loop_found, a.v.loop_first_kernel, a.v.loop_last_kernel,
				       a.v.loop_period, a.v.loop_start, a.v.loop_end, &a.loop),
		  GD_OK);
	for (long i = 0; i < a.loop.n; i++)
		CHECK(a.loop.it[i].idle_ns >= 0 && a.loop.it[i].kernel_ns >= 0 && isfinite(gd_iter_ns(&a.loop.it[i])));
	h = view(&a, HTML);
	if (h && getenv("GD_TEST_HTML_EXTREME")) {
		FILE *f = fopen(getenv("GD_TEST_HTML_EXTREME"), "w");
		if (f)
			fputs(h, f), fclose(f);
	}
	/* no NaN or infinity printed as a coordinate or a figure */
	CHECK(h && strstr(h, "</html>") && !has_word(h, "nan") && !has_word(h, "inf"));
	free(h);
	gd_analysis_free(&a);
}

int main(void)
{
	struct gd_analysis a;
	char *h, want[160];
	const char *at;
	double busy;
	gd_set_quiet(1);

	build(&a, 50);
	h = view(&a, HTML);
	if (!h)
		return 1;
	if (getenv("GD_TEST_HTML")) {
		FILE *f = fopen(getenv("GD_TEST_HTML"), "w");
		if (f)
			fputs(h, f), fclose(f);
	}
	/* GPU busy: 50 µs of copy and 50 × 500 µs of kernels, over the judged span: the active span
	 * (1 ms + 50 × 530 µs - the last step's trailing 10 µs + the 2 ms stall = 29 490 µs) less
	 * the start-up gap before the loop (950 µs) and the two first-launch gaps of step 1 (20 µs) */
	CHECK_NEAR(a.v.busy_fraction, 25050.0 / 28520.0, 1e-12);
	at = strstr(h, "<div class='card' id='gpu-busy' data-value='");
	CHECK(at && sscanf(at + strlen("<div class='card' id='gpu-busy' data-value='"), "%lf", &busy) == 1 &&
	      busy == a.v.busy_fraction);
	CHECK(strstr(h, "<div class='v'>87.8 %</div><div class='s'>25.1 ms of the judged 28.5 ms</div>") != NULL);

	/* the sections, in the table's order, each in the contents */
	{
		static const char *const ids[] = {"sec-verdict", "sec-timeline", "sec-kernels", "sec-host", "sec-roofline",
						  "sec-nvml"};
		const char *prev = h;
		for (int i = 0; i < 6; i++) {
			const char *sec;
			snprintf(want, sizeof(want), "<section id='%s'>", ids[i]);
			sec = strstr(h, want);
			CHECK(sec != NULL && sec > prev);
			prev = sec ? sec : prev;
			snprintf(want, sizeof(want), "<a href='#%s'>", ids[i]);
			CHECK(strstr(h, want) != NULL);
		}
		CHECK(!strstr(h, "sec-kernel-counters")); /* no --metrics: not shown, not in the contents */
	}

	/* the time axes: the loop (28.49 ms) and the run (29.49 ms), ten steps wanted: 2 ms apart,
	 * 0 to 28 ms on both; the zoom's title says where the loop began */
	{
		const char *svg = strstr(h, "<svg id='timeline'"), *end = svg ? strstr(svg, "</svg>") : NULL;
		char *tl = svg && end ? strndup(svg, (size_t)(end - svg)) : NULL;
		CHECK(tl != NULL);
		CHECK_INT(count(tl, ">28 ms</text>"), 2);
		CHECK_INT(count(tl, ">2 ms</text>"), 2);
		CHECK_INT(count(tl, "text-anchor='middle'>0</text>"), 2);
		CHECK_INT(count(tl, "class='tick' "), 2 * 15);
		free(tl);
	}
	CHECK(strstr(h, ">time since the main loop began (1.00 ms into the run)</text>") != NULL);
	CHECK(strstr(h, "id='zoom-mark'") != NULL);

	/* the legend: every kind of kernel and copy, the lanes drawn */
	for (int k = 0; k < GD_KIND_COUNT; k++)
		if (a.s.kind_n[k]) {
			snprintf(want, sizeof(want), "<span class='lg' data-kind='%s'>", gd_kind_name(k));
			CHECK(strstr(h, want) != NULL);
		}
	CHECK_INT(count(h, "data-kind="), 3);
	CHECK(strstr(h, "<span class='lg' data-copy='HtoD'>") != NULL);
	CHECK_INT(count(h, "data-copy="), 1);

	/* the loop, step by step: 50, the slowest the 21st (530 µs + the stall), median 530 µs
	 * (the last step ends with its kernel: 520 µs) */
	CHECK_INT(a.loop.n, 50);
	CHECK_INT(a.loop.slowest, 20);
	CHECK_NEAR(a.loop.median_ns, 530 * US, 0);
	CHECK(strstr(h, "median <b>530.0 µs</b>, slowest <b>#21: 2.53 ms</b>") != NULL);
	CHECK(strstr(h, "text-anchor='middle'>slowest: #21, 2.53 ms</text>") != NULL);
	CHECK(strstr(h, "<title>iteration 21: 2.53 ms (kernel 500.0 µs, copy 0 ns, idle 2.03 ms)</title>") != NULL);
	CHECK_INT(count(h, "<g class='it'>"), 50);
	CHECK(!strstr(h, "gpudiag spent replaying"));
	free(h);
	/* a --metrics profile whose replays were cut out of the timeline (replaycut.h): the wall
	 * time's card says its times are without them */
	a.s.replay_cut_ns = 2e9;
	a.s.replay_cut_launches = 12;
	h = view(&a, HTML);
	CHECK(h && strstr(h, "; without the 2.00 s gpudiag spent replaying</div>") != NULL);
	free(h);
	gd_analysis_free(&a);

	/* bounded: past the iteration view's 485 columns, a loop ten times longer draws as many
	 * columns (15 000 kernels, then 150 000) */
	{
		size_t s5k = page_size(5000), s50k = page_size(50000);
		CHECK(s5k > 0 && s5k < 400 * 1024);
		CHECK(s50k < s5k + s5k / 20);
		if (getenv("GD_TEST_SHOW"))
			fprintf(stderr, "page: %zu bytes for 5000 steps, %zu for 50000\n", s5k, s50k);
	}
	extreme_times();
	return TEST_DONE();
}
