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
	return TEST_DONE();
}
