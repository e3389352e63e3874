/* The renderers read one analysis and compute nothing of it: the terminal report, JSON and
 * the HTML page rendered from a single gd_analysis equal what the separate paths give
 * (gd_report_print, which analyses on its own, and a second, independent analysis); rendering
 * leaves the analysis untouched; and a value planted in the analysis (a kernel name in the
 * summary, a headline in the verdicts) shows in all three views, which a renderer that
 * recomputed the summary or the verdicts would not show. */
#include "render/report.h"
#include "render/test_view.h"

#include "analysis/analysis.h"
#include "commands.h"
#include "core/status.h"
#include "core/test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *FIXTURE = "tests/fixtures/sample.gpudiag.sqlite";



static char *printed(int json)
{
	char *buf = NULL;
	size_t n = 0;
	struct gd_ctx ctx = {.json = json, .device = -1};
	FILE *f = open_memstream(&buf, &n);
	if (!f)
		return NULL;
	CHECK_INT(gd_report_print(FIXTURE, &ctx, f), GD_OK);
	fclose(f);
	return buf;
}

static int same(const char *x, const char *y) { return x && y && !strcmp(x, y); }

int main(void)
{
	struct gd_analysis a, other;
	char why[1200], *v[VIEWS], *w[VIEWS];
	gd_set_quiet(1);

	if (gd_analysis_load(FIXTURE, &a, why, sizeof(why)) != GD_OK) {
		fprintf(stderr, "cannot analyse %s: %s\n", FIXTURE, why);
		return 1;
	}
	CHECK(a.s.nks > 0 && a.v.nfired > 0); /* the fixture exercises both the tables and the findings */

	/* three views from one analysis, which they leave as it was */
	struct gd_summary s0 = a.s;
	struct gd_verdicts *v0 = malloc(sizeof(*v0));
	if (!v0)
		return 1;
	*v0 = a.v;
	for (int i = 0; i < VIEWS; i++)
		v[i] = view(&a, i);
	CHECK(!memcmp(&s0, &a.s, sizeof(s0)));
	CHECK(!memcmp(v0, &a.v, sizeof(*v0)));
	free(v0);
	CHECK(v[TEXT] && strstr(v[TEXT], "VERDICT"));
	CHECK(v[JSON] && strstr(v[JSON], "\"findings\""));
	CHECK(v[HTML] && strstr(v[HTML], "</html>"));

	/* ... equal to the separate paths */
	char *pt = printed(0), *pj = printed(1);
	CHECK(same(v[TEXT], pt));
	CHECK(same(v[JSON], pj));
	free(pt);
	free(pj);
	CHECK_INT(gd_analysis_load(FIXTURE, &other, why, sizeof(why)), GD_OK);
	char *oh = view(&other, HTML);
	CHECK(same(v[HTML], oh));
	free(oh);
	gd_analysis_free(&other);

	/* planted values reach every view: the renderers read a, they do not recompute */
	const struct gd_finding *top = &a.v.f[a.v.order[0]];
	snprintf(a.s.ks[0].short_name, sizeof(a.s.ks[0].short_name), "planted_kernel_name");
	snprintf(a.v.f[top->rule].headline, sizeof(top->headline), "planted headline");
	for (int i = 0; i < VIEWS; i++) {
		w[i] = view(&a, i);
		CHECK(w[i] && strstr(w[i], "planted_kernel_name"));
		CHECK(w[i] && strstr(w[i], "planted headline"));
		CHECK(!same(v[i], w[i]));
		free(v[i]);
		free(w[i]);
	}
	gd_analysis_free(&a);
	return TEST_DONE();
}
