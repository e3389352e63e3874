/* The analysis object: gd_analysis_of on a profile built in memory, gd_analysis_load on a
 * recorded fixture (the same numbers as computing each step by hand) and on a missing file,
 * and gd_compare, diff's deltas, on two small profiles whose expected rows are exact. */
#include "analysis/analysis.h"
#include "analysis/compare.h"
#include "core/status.h"
#include "core/test.h"

#include <string.h>

#define MS 1000000LL

static const char *FIXTURE = "tests/fixtures/sample.gpudiag.sqlite";

static int64_t kern(struct gd_profile *p, int64_t t, int64_t dur, const char *name)
{
	struct gd_pkernel *k = gd_profile_add_kernel(p);
	k->start = t;
	k->end = t + dur;
	k->name = k->dname = gd_profile_intern(p, name);
	k->grid[0] = k->grid[1] = k->grid[2] = 1;
	k->block[0] = 128;
	k->block[1] = k->block[2] = 1;
	k->regs = 32;
	k->stream = 13;
	return t + dur;
}

/* A: kA three times 1 ms, kB once 2 ms.  B: kA once 1 ms, kC once 5 ms. */
static void build(struct gd_analysis *a, int which)
{
	int64_t t = 10 * MS;
	memset(a, 0, sizeof(*a));
	gd_profile_init(&a->p);
	if (which == 0) {
		for (int i = 0; i < 3; i++)
			t = kern(&a->p, t, 1 * MS, "kA") + 1 * MS;
		kern(&a->p, t, 2 * MS, "kB");
	} else {
		t = kern(&a->p, t, 1 * MS, "kA") + 1 * MS;
		kern(&a->p, t, 5 * MS, "kC");
	}
	gd_profile_finish(&a->p);
}

static void check_delta(const struct gd_delta *d, const char *name, double a, double b, long na, long nb)
{
	CHECK_STR(d->name, name);
	CHECK_NEAR(d->a, a, 0);
	CHECK_NEAR(d->b, b, 0);
	CHECK_INT(d->na, na);
	CHECK_INT(d->nb, nb);
}

int main(void)
{
	struct gd_analysis a, b;
	char why[1200];
	gd_set_quiet(1);

	/* in memory: summary and verdicts both filled from a->p */
	build(&a, 0);
	CHECK_INT(gd_analysis_of(&a), GD_OK);
	CHECK_INT(a.s.nkernels, 4);
	CHECK_INT(a.s.nks, 2);
	CHECK_STR(a.s.ks[0].short_name, "kA"); /* 3 ms before kB's 2 ms */
	CHECK_NEAR(a.s.kernel_ns, 5 * MS, 0);
	{
		int seen[GD_R_COUNT] = {0}, perm = 1;
		for (int i = 0; i < GD_R_COUNT; i++) {
			CHECK(a.v.f[i].id != NULL);
			if (a.v.order[i] < 0 || a.v.order[i] >= GD_R_COUNT || seen[a.v.order[i]]++)
				perm = 0;
		}
		CHECK(perm); /* the verdicts were ranked, not left zeroed */
	}

	/* gd_compare: kC +5 ms first, then kA and kB (both −2 ms) in name order */
	build(&b, 1);
	CHECK_INT(gd_analysis_of(&b), GD_OK);
	{
		struct gd_compare c;
		CHECK_INT(gd_compare_compute(&a.s, &b.s, &c), GD_OK);
		CHECK_INT(c.nkernels, 3);
		if (c.nkernels == 3) {
			check_delta(&c.kernels[0], "kC", 0, 5 * MS, 0, 1);
			check_delta(&c.kernels[1], "kA", 3 * MS, 1 * MS, 3, 1);
			check_delta(&c.kernels[2], "kB", 2 * MS, 0, 1, 0);
		}
		CHECK_INT(c.nkinds, 1); /* unknown names are all "other" */
		if (c.nkinds == 1)
			check_delta(&c.kinds[0], gd_kind_name(GD_KIND_OTHER), 5 * MS, 6 * MS, 4, 2);
		gd_compare_free(&c);
		CHECK(c.kernels == NULL && c.nkernels == 0);
	}
	gd_analysis_free(&a);
	gd_analysis_free(&b);

	/* from a file: the same as each step by hand */
	CHECK_INT(gd_analysis_load(FIXTURE, &a, why, sizeof(why)), GD_OK);
	{
		struct gd_profile p;
		struct gd_summary s;
		struct gd_verdicts v;
		CHECK_INT(gd_profile_load(FIXTURE, &p, why, sizeof(why)), GD_OK);
		CHECK_INT(gd_summary_compute(&p, &s), GD_OK);
		CHECK_INT(gd_verdicts_compute(&p, &s, &v), GD_OK);
		CHECK(a.p.nk > 0);
		CHECK_INT(a.p.nk, p.nk);
		CHECK_INT(a.s.nks, s.nks);
		CHECK_NEAR(a.s.wall_ns, s.wall_ns, 0);
		CHECK_NEAR(a.s.busy_ns, s.busy_ns, 0);
		CHECK_INT(a.v.nfired, v.nfired);
		CHECK_INT(a.v.nwarn, v.nwarn);
		CHECK(!memcmp(a.v.order, v.order, sizeof(v.order)));
		for (int i = 0; i < GD_R_COUNT; i++)
			CHECK_STR(a.v.f[i].headline, v.f[i].headline);
		gd_summary_free(&s);
		gd_profile_free(&p);
	}
	gd_analysis_free(&a);

	/* a missing file: the reader's status and reason, nothing to free */
	why[0] = 0;
	CHECK_INT(gd_analysis_load("/nonexistent/x.gpudiag.sqlite", &a, why, sizeof(why)), GD_EDATA);
	CHECK(why[0] != 0);
	return TEST_DONE();
}
