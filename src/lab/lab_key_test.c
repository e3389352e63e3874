/* CPU-tier tests of the stable row keys (lab_key.h) and of the summaries that read results
 * back by key: a summary whose row goes missing loses its verdict without any error, so
 * these tests build the rows a lab records from its own variant table, with made-up
 * times, and require every verdict to appear. No GPU needed. */
#include "core/test.h"
#include "kernels/lab_divergence.h"
#include "lab/lab.h"
#include "lab/lab_exec.h"
#include "lab/lab_key.h"

#include <math.h>
#include <string.h>

static const struct gd_lab fake = {"fake", "§0", "a fake lab", "", NULL, NULL, 0, 0, 0, NULL};

/* Records one row, every sample t seconds, tagged key. */
static struct gd_lab_result *row(struct gd_lab_run *r, const char *group, const char *name, double x,
				 double t, int key)
{
	struct gd_lab_variant v;
	double s[GD_LAB_MIN_RUNS];
	memset(&v, 0, sizeof(v));
	v.group = group;
	v.name = name;
	v.x = x;
	for (int i = 0; i < GD_LAB_MIN_RUNS; i++)
		s[i] = t;
	return gd_lab_set_key(gd_lab_record(r, &v, s, GD_LAB_MIN_RUNS, NULL), key);
}

static double metric(const struct gd_lab_result *res, const char *key)
{
	for (int k = 0; k < res->nmetrics; k++)
		if (!strcmp(res->metric_keys[k], key))
			return res->metric_values[k];
	return NAN;
}

static void test_keys(void)
{
	struct gd_lab_run r;
	struct gd_lab_result *a, *b;
	gd_lab_run_init(&r, &fake);
	a = row(&r, "g", "same label", NAN, 1e-3, 1);
	b = row(&r, "g", "same label", NAN, 2e-3, 2);
	/* the key tells apart rows whose labels are equal, and finds nothing for 0 or a miss */
	CHECK(gd_lab_find_key(&r, 1) == a);
	CHECK(gd_lab_find_key(&r, 2) == b);
	CHECK(gd_lab_find_key(&r, 0) == NULL);
	CHECK(gd_lab_find_key(&r, 3) == NULL);
	CHECK_NEAR(gd_lab_key_median(&r, 2), 2e-3, 1e-15);
	CHECK(isnan(gd_lab_key_median(&r, 3)));
	CHECK(gd_lab_set_key(NULL, 5) == NULL);
	gd_lab_run_free(&r);
}

/* The divergence rows as the lab records them: path A 1 ms, path B 1 ms, warp-uniform 1 ms,
 * every split 2 ms, the mask rewrite 2 ms, the cheap pair 0.1 ms. skip_key: a row left out. */
static void divergence_rows(struct gd_lab_run *r, int skip_key)
{
	for (int k = 0; k < gd_lx_div_nvariants; k++) {
		const struct gd_lx_div_variant *v = &gd_lx_div_variants[k];
		double t = 1e-3;
		if (v->kernel == GD_DIV_CHEAP_BRANCH || v->kernel == GD_DIV_CHEAP_MASK)
			t = 1e-4;
		else if (v->kernel == GD_DIV_MASK || (v->g > 0 && v->g < 32))
			t = 2e-3;
		if (v->key != skip_key)
			row(r, v->group, v->name, v->x, t, v->key);
	}
}

static void test_divergence_summary(void)
{
	static const int regs[GD_DIV_NKERNELS] = {20, 24, 8, 8};
	static const double occ[GD_DIV_NKERNELS] = {1, 1, 1, 1};
	struct gd_lab_run r;
	int nratios = 0, alternating = -1;

	/* keys: > 0 and unique, or a lookup would find the wrong row */
	for (int i = 0; i < gd_lx_div_nvariants; i++) {
		CHECK(gd_lx_div_variants[i].key > 0);
		for (int j = 0; j < i; j++)
			CHECK(gd_lx_div_variants[i].key != gd_lx_div_variants[j].key);
		if (gd_lx_div_variants[i].g == 1 && gd_lx_div_variants[i].kernel == GD_DIV_BRANCH)
			alternating = gd_lx_div_variants[i].key;
	}
	CHECK(alternating > 0);

	/* every row present: every verdict found its rows */
	gd_lab_run_init(&r, &fake);
	divergence_rows(&r, 0);
	gd_lx_div_summarise(&r, 1 << 20, 256, 64, regs, occ);
	CHECK_INT(r.nverdicts, 4);
	CHECK_INT(r.nnotes, 1);
	CHECK(strstr(r.verdicts[0].text, "took 2.00× the warp-uniform branch and 1.00× path A") != NULL);
	CHECK(strstr(r.verdicts[1].text, "(2.00×–2.00× uniform") != NULL);
	CHECK(strstr(r.verdicts[2].text, "took 2.00× uniform (1.00× the divergent") != NULL);
	CHECK(strstr(r.verdicts[3].text, "ran at 1.00× of each other") != NULL);
	for (int i = 0; i < r.nres; i++) {
		const struct gd_lx_div_variant *v = &gd_lx_div_variants[i];
		double vu = metric(&r.res[i], "vs_uniform");
		CHECK(r.res[i].key == v->key);
		if (v->ratios) {
			nratios++;
			CHECK_NEAR(vu, r.res[i].t_median / 1e-3, 1e-9);
			CHECK_NEAR(metric(&r.res[i], "vs_sum_of_paths"), r.res[i].t_median / 2e-3, 1e-9);
		} else {
			CHECK(isnan(vu));
		}
	}
	CHECK_INT(nratios, 10);
	gd_lab_run_free(&r);

	/* without the alternating row, the two verdicts that read it are gone (this is what a
	 * renamed label used to do silently) */
	gd_lab_run_init(&r, &fake);
	divergence_rows(&r, alternating);
	gd_lx_div_summarise(&r, 1 << 20, 256, 64, regs, occ);
	CHECK_INT(r.nverdicts, 2);
	gd_lab_run_free(&r);
}

int main(void)
{
	test_keys();
	test_divergence_summary();
	return TEST_DONE();
}
