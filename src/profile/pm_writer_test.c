/* The GPU-metrics timeline in the profile (pm_metrics.h): gd_pw_pm → gpu_metrics → the reader
 * (NULLs, order, the meta keys), the attribution rule of gd_pw_kernel_metrics on hand-built
 * kernels and samples (coverage, two names, too few samples, concurrent kernels, impossible
 * kernels, devices), its cost on a large profile, the capture range, an old profile without
 * the tables, and the generator's "counters" scenarios (the same rows from Python and C). */
#include "core/status.h"
#include "core/test.h"
#include "profile/profile.h"
#include "profile/writer.h"

#include "profile/test_sql.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static char dir[] = "/tmp/gd_pm_writer_test.XXXXXX";

#define T0 1000000000000LL /* ns */
#define S 100000LL         /* one sample: 100 µs */

static void sample(struct gd_pw *w, int dev, long long a, long long b, double dram, double issue)
{
	struct gd_pm_sample s;
	memset(&s, 0, sizeof(s));
	s.device = dev, s.t_start = a, s.t_end = b;
	for (int m = 0; m < GD_PM_COUNT; m++)
		s.v[m] = NAN;
	s.v[GD_PM_DRAM] = dram;
	s.v[GD_PM_SM_ISSUE] = issue;
	CHECK_INT(gd_pw_pm(w, &s), GD_OK);
}

/* start/end < 0: NULL */
static void kernel(struct gd_pw *w, int dev, int stream, long long start, long long end, int name)
{
	char sql[256], a[32], b[32];
	if (start < -1000)
		snprintf(a, sizeof(a), "NULL");
	else
		snprintf(a, sizeof(a), "%lld", start);
	snprintf(b, sizeof(b), "%lld", end);
	snprintf(sql, sizeof(sql), "INSERT INTO kernels(pid,device,stream,start,end,name) VALUES(1,%d,%d,%s,%s,%d)",
		 dev, stream, a, b, name);
	CHECK_INT(gd_pw_sql(w, sql), GD_OK);
}

static void test_roundtrip(void)
{
	char db[256], why[1200];
	struct gd_pw *w;
	struct gd_pm_sample s;
	struct gd_profile p;
	snprintf(db, sizeof(db), "%s/rt.sqlite", dir);
	CHECK_INT(gd_pw_open(&w, db), GD_OK);
	CHECK_INT(gd_pw_meta(w, "counters", "ok"), GD_OK);
	CHECK_INT(gd_pw_meta_int(w, "counters_interval_ns", 100000), GD_OK);
	CHECK_INT(gd_pw_meta_int(w, "counters_lost_samples", 7), GD_OK);
	/* device 1 first, then device 0 out of time order: the reader gives (device, time) order */
	memset(&s, 0, sizeof(s));
	s.device = 1, s.t_start = T0, s.t_end = T0 + S;
	for (int m = 0; m < GD_PM_COUNT; m++)
		s.v[m] = m * 10 + 1.5;
	s.v[GD_PM_PCIE_READ] = 12.5e9;
	CHECK_INT(gd_pw_pm(w, &s), GD_OK);
	sample(w, 0, T0 + S, T0 + 2 * S, 50, NAN);
	sample(w, 0, T0, T0 + S, INFINITY, 7.25); /* not finite: NULL, as not collected */
	CHECK_INT(gd_pw_kernel_metrics(w), 0);    /* no kernels */
	CHECK_INT(gd_pw_close(w, 1), GD_OK);

	CHECK_INT(gd_test_q1(db, "SELECT COUNT(*) FROM gpu_metrics"), 3);
	CHECK_INT(gd_test_q1(db, "SELECT COUNT(*) FROM gpu_metrics WHERE dram_pct IS NULL"), 1);
	CHECK_INT(gd_test_q1(db, "SELECT COUNT(*) FROM gpu_metrics WHERE gpc_mhz IS NULL"), 2);
	CHECK_INT(gd_test_q1(db, "SELECT sm_issue_pct * 100 FROM gpu_metrics WHERE device = 0 AND t_start = 1000000000000"),
		  725);
	CHECK_INT(gd_test_q1(db, "SELECT COUNT(*) FROM kernel_metrics"), 0);
	CHECK_INT(gd_test_q1(db, "SELECT COUNT(*) FROM sqlite_master WHERE name = 'gpu_metrics_t'"), 1);

	CHECK_INT(gd_profile_load(db, &p, why, sizeof(why)), GD_OK);
	CHECK_INT(p.npm, 3);
	CHECK_STR(p.counters, "ok");
	CHECK_INT(p.pm_interval_ns, 100000);
	CHECK_INT(p.pm_lost, 7);
	CHECK_INT(p.bad_rows, 0);
	if (p.npm == 3) {
		CHECK_INT(p.pm[0].device, 0);
		CHECK_INT(p.pm[0].t_start, T0);
		CHECK_INT(p.pm[0].t_end, T0 + S);
		CHECK(isnan(p.pm[0].v[GD_PM_DRAM]));
		CHECK_NEAR(p.pm[0].v[GD_PM_SM_ISSUE], 7.25, 0);
		CHECK(isnan(p.pm[0].v[GD_PM_GPC_MHZ]));
		CHECK_INT(p.pm[1].device, 0);
		CHECK_INT(p.pm[1].t_start, T0 + S);
		CHECK_NEAR(p.pm[1].v[GD_PM_DRAM], 50, 0);
		CHECK(isnan(p.pm[1].v[GD_PM_SM_ISSUE]));
		CHECK_INT(p.pm[2].device, 1);
		for (int m = 0; m < GD_PM_COUNT; m++)
			CHECK_NEAR(p.pm[2].v[m], m == GD_PM_PCIE_READ ? 12.5e9 : m * 10 + 1.5, 0);
	}
	CHECK_INT(p.nkpm, 0);
	gd_profile_free(&p);
}

/* Strings 1.. of the attribution test. */
enum { KA = 1, KB, KC, KD, KE, KF, KG, KH, KN, KX };

static void test_attribution(void)
{
	char db[256], why[1200];
	struct gd_pw *w;
	struct gd_profile p;
	const struct gd_pm_kernel *r;
	long long t;
	snprintf(db, sizeof(db), "%s/attr.sqlite", dir);
	CHECK_INT(gd_pw_open(&w, db), GD_OK);
	CHECK_INT(gd_pw_sql(w, "INSERT INTO strings VALUES (1,'kA'),(2,'kB'),(3,'kC'),(4,'kD'),(5,'kE'),(6,'kF'),"
			       "(7,'kG'),(8,'kH'),(9,'kN'),(10,'kX')"),
		  GD_OK);

	/* A: kA covers 95 % of samples 0-2 (the rest idle), exactly 90 % of sample 4: attributed;
	 * 89.9 % of sample 3: not (its dram 1000 would show in the mean). */
	for (int i = 0; i < 3; i++)
		kernel(w, 0, 1, T0 + i * S, T0 + i * S + 95000, KA);
	kernel(w, 0, 1, T0 + 3 * S, T0 + 3 * S + 89900, KA);
	kernel(w, 0, 1, T0 + 4 * S, T0 + 4 * S + 90000, KA);
	sample(w, 0, T0, T0 + S, 80, 10);
	sample(w, 0, T0 + S, T0 + 2 * S, 82, NAN);
	sample(w, 0, T0 + 2 * S, T0 + 3 * S, NAN, 30);
	sample(w, 0, T0 + 3 * S, T0 + 4 * S, 1000, 1000);
	sample(w, 0, T0 + 4 * S, T0 + 5 * S, 84, NAN);
	/* impossible kernels over A, which would make its samples mixed: ignored */
	kernel(w, 0, 2, T0 + 10, T0 - 5000000, KG);    /* end before start */
	kernel(w, 0, 2, -5, T0 + 10 * S, KG);          /* negative start */
	kernel(w, 0, 2, -5000, T0 + 10 * S, KG);       /* NULL start */
	sample(w, 0, T0 + 2 * S + 10, T0 + 2 * S, 1000, 1000); /* an impossible sample: ignored */

	/* B: kB and kC half each of three samples: neither */
	t = T0 + 100 * S;
	for (int i = 0; i < 3; i++) {
		kernel(w, 0, 1, t + i * S, t + i * S + S / 2, KB);
		kernel(w, 0, 1, t + i * S + S / 2, t + (i + 1) * S, KC);
		sample(w, 0, t + i * S, t + (i + 1) * S, 50, 50);
	}

	/* C: kD alone in two samples only: no row */
	t = T0 + 200 * S;
	kernel(w, 0, 1, t, t + 2 * S, KD);
	sample(w, 0, t, t + S, 50, 50);
	sample(w, 0, t + S, t + 2 * S, 50, 50);

	/* D: concurrent kernels on a second stream */
	t = T0 + 300 * S;
	kernel(w, 0, 1, t, t + S, KE); /* d0: alone */
	sample(w, 0, t, t + S, 10, NAN);
	kernel(w, 0, 1, t + S, t + 2 * S, KE); /* d1: kF 5 % beside it */
	kernel(w, 0, 2, t + S + 10000, t + S + 15000, KF);
	sample(w, 0, t + S, t + 2 * S, 20, NAN);
	kernel(w, 0, 1, t + 2 * S, t + 2 * S + 60000, KE); /* d2: two kE overlapping, 100 % together */
	kernel(w, 0, 2, t + 2 * S + 40000, t + 3 * S, KE);
	sample(w, 0, t + 2 * S, t + 3 * S, 30, NAN);
	kernel(w, 0, 1, t + 3 * S, t + 4 * S, KE); /* d3: kF 20 % beside it: not */
	kernel(w, 0, 2, t + 3 * S, t + 3 * S + 20000, KF);
	sample(w, 0, t + 3 * S, t + 4 * S, 1000, NAN);
	kernel(w, 0, 1, t + 4 * S, t + 5 * S, KE); /* d4: kF 8 % and kH 7 %, overlapping: 9 % together */
	kernel(w, 0, 2, t + 4 * S + 50000, t + 4 * S + 58000, KF);
	kernel(w, 0, 3, t + 4 * S + 52000, t + 4 * S + 59000, KH);
	sample(w, 0, t + 4 * S, t + 5 * S, 40, NAN);

	/* E: device 1's samples while only device 0 runs a kernel: nothing; then kA on device 1 */
	t = T0 + 400 * S;
	kernel(w, 0, 1, t, t + 3 * S, KA);
	for (int i = 0; i < 3; i++)
		sample(w, 1, t + i * S, t + (i + 1) * S, 1000, 1000);
	t = T0 + 500 * S;
	kernel(w, 1, 1, t, t + 3 * S, KA);
	for (int i = 0; i < 3; i++)
		sample(w, 1, t + i * S, t + (i + 1) * S, 60, NAN);

	/* F: kN in three pieces with gaps (92 %), kX at both ends (4 %): the ends alone, or one
	 * piece, would not name kN; the whole sample does */
	t = T0 + 600 * S;
	for (int i = 0; i < 3; i++) {
		long long u = t + i * S;
		kernel(w, 0, 1, u, u + 2000, KX);
		kernel(w, 0, 1, u + 4000, u + 35000, KN);
		kernel(w, 0, 1, u + 36000, u + 67000, KN);
		kernel(w, 0, 1, u + 68000, u + 98000, KN);
		kernel(w, 0, 1, u + 98000, u + S, KX);
		sample(w, 0, u, u + S, 70 + i, NAN);
	}

	CHECK_INT(gd_pw_capture(w, "all", T0, T0 + 1000 * S, 0, 0), 1);
	CHECK_INT(gd_pw_kernel_metrics(w), 4);
	CHECK_INT(gd_pw_kernel_metrics(w), 4); /* again: the rows are replaced, not doubled */
	CHECK_INT(gd_pw_close(w, 1), GD_OK);
	CHECK_INT(gd_test_q1(db, "SELECT COUNT(*) FROM kernel_metrics"), 4);
	CHECK_INT(gd_test_q1(db, "SELECT samples FROM kernel_metrics WHERE device = 0 AND name = 1"), 4);
	CHECK_INT(gd_test_q1(db, "SELECT tensor_active_pct FROM kernel_metrics WHERE device = 0 AND name = 1"), -1);

	CHECK_INT(gd_profile_load(db, &p, why, sizeof(why)), GD_OK);
	CHECK_INT(p.nkpm, 4);
	CHECK_INT(p.bad_rows, 3); /* the impossible sample and two impossible kernels */
	r = gd_profile_kernel_counters(&p, 0, KN);
	CHECK(r != NULL);
	if (r) {
		CHECK_INT(r->samples, 3);
		CHECK_NEAR(r->v[GD_PM_DRAM], 71, 1e-9);
	}
	CHECK(gd_profile_kernel_counters(&p, 0, KX) == NULL);
	r = gd_profile_kernel_counters(&p, 0, KA);
	CHECK(r != NULL);
	if (r) {
		CHECK_INT(r->samples, 4);
		CHECK_NEAR(r->v[GD_PM_DRAM], (80 + 82 + 84) / 3.0, 1e-9); /* NULL left out of the mean */
		CHECK_NEAR(r->v[GD_PM_SM_ISSUE], (10 + 30) / 2.0, 1e-9);
		CHECK(isnan(r->v[GD_PM_TENSOR])); /* never collected: unknown */
	}
	CHECK(gd_profile_kernel_counters(&p, 0, KB) == NULL);
	CHECK(gd_profile_kernel_counters(&p, 0, KC) == NULL);
	CHECK(gd_profile_kernel_counters(&p, 0, KD) == NULL);
	CHECK(gd_profile_kernel_counters(&p, 0, KF) == NULL);
	CHECK(gd_profile_kernel_counters(&p, 0, KG) == NULL);
	CHECK(gd_profile_kernel_counters(&p, 0, KH) == NULL);
	r = gd_profile_kernel_counters(&p, 0, KE);
	CHECK(r != NULL);
	if (r) {
		CHECK_INT(r->samples, 4);
		CHECK_NEAR(r->v[GD_PM_DRAM], (10 + 20 + 30 + 40) / 4.0, 1e-9);
		CHECK(isnan(r->v[GD_PM_SM_ISSUE]));
	}
	r = gd_profile_kernel_counters(&p, 1, KA);
	CHECK(r != NULL);
	if (r) {
		CHECK_INT(r->samples, 3);
		CHECK_NEAR(r->v[GD_PM_DRAM], 60, 1e-9);
	}
	gd_profile_free(&p);
}

/* The rule by brute force (every kernel against every sample), for the random check. */
struct bk {
	long long s, e;
	int name;
};

static int cmp_iv(const void *x, const void *y)
{
	const long long *a = x, *b = y;
	return a[0] < b[0] ? -1 : a[0] > b[0];
}

/* Length of the union of the parts inside [a, b) of the kernels whose name is (or, with
 * other, is not) `name`. */
static long long brute_cover(const struct bk *k, int nk, long long a, long long b, int name, int other,
			     long long *iv)
{
	int n = 0;
	long long len = 0, last = a;
	for (int i = 0; i < nk; i++)
		if ((k[i].name == name) != other && k[i].s < b && k[i].e > a && k[i].e > k[i].s) {
			iv[2 * n] = k[i].s > a ? k[i].s : a;
			iv[2 * n + 1] = k[i].e < b ? k[i].e : b;
			n++;
		}
	qsort(iv, (size_t)n, 2 * sizeof(*iv), cmp_iv);
	for (int i = 0; i < n; i++) {
		long long s0 = iv[2 * i] > last ? iv[2 * i] : last;
		if (iv[2 * i + 1] > s0)
			len += iv[2 * i + 1] - s0;
		if (iv[2 * i + 1] > last)
			last = iv[2 * i + 1];
	}
	return len;
}

/* Random kernels (phases where one of 4 names runs long kernels on up to 3 streams, other
 * names sprinkled beside them, gaps, impossible times) and random samples (10 µs to 1 ms,
 * overlapping, some inside one segment, some across many): the writer's rows are the brute
 * force's. */
static void test_random(void)
{
	enum { NK = 3000, NS = 4000, NN = 4 };
	static struct bk k[NK];
	static long long iv[2 * NK];
	long long sa[NS], sb[NS];
	long nsamp[NN] = {0};
	double sum[NN] = {0};
	char db[256], why[1200];
	struct gd_pw *w;
	struct gd_profile p;
	unsigned long long x = 88172645463325252ull;
	long long t = T0;
	int expect_rows = 0;
#define RND() (x ^= x << 13, x ^= x >> 7, x ^= x << 17, x)
	snprintf(db, sizeof(db), "%s/random.sqlite", dir);
	CHECK_INT(gd_pw_open(&w, db), GD_OK);
	CHECK_INT(gd_pw_sql(w, "INSERT INTO strings VALUES (1,'r1'),(2,'r2'),(3,'r3'),(4,'r4')"), GD_OK);
	for (int i = 0; i < NK;) {
		int main_name = 1 + (int)(RND() % NN), nmain = 1 + (int)(RND() % 6);
		for (int j = 0; j < nmain && i < NK; j++, i++) { /* the phase's own kernels */
			long long d = 20000 + (long long)(RND() % 900000);
			k[i].s = t, k[i].e = t + d, k[i].name = main_name;
			if (RND() % 4 == 0) /* an overlapping instance of the same name */
				k[i].s -= (long long)(RND() % 30000);
			t = k[i].e + (RND() % 3 ? 0 : (long long)(RND() % 20000));
		}
		for (int j = 0; j < (int)(RND() % 4) && i < NK; j++, i++) { /* others beside them */
			long long a = t - (long long)(RND() % 1000000), d = 1000 + (long long)(RND() % 60000);
			k[i].s = a, k[i].e = a + d, k[i].name = 1 + (int)(RND() % NN);
		}
		if (RND() % 50 == 0 && i < NK) { /* impossible */
			k[i].s = t, k[i].e = t - 1000000, k[i].name = 1 + (int)(RND() % NN);
			i++;
		}
	}
	for (int i = 0; i < NK; i++)
		kernel(w, 0, 1 + i % 3, k[i].s, k[i].e, k[i].name);
	for (int i = 0; i < NS; i++) {
		long long len = 10000 + (long long)(RND() % 990000);
		sa[i] = T0 + (long long)(RND() % (unsigned long long)(t - T0));
		sb[i] = sa[i] + len;
		sample(w, 0, sa[i], sb[i], i * 0.25, NAN); /* distinct, and within the reader's 0..1000 % */
	}
	CHECK_INT(gd_pw_capture(w, "all", T0, t, 0, 0), 1);
	for (int i = 0; i < NS; i++) {
		long long len = sb[i] - sa[i];
		for (int n = 1; n <= NN; n++) {
			long long own = brute_cover(k, NK, sa[i], sb[i], n, 0, iv);
			long long oth = brute_cover(k, NK, sa[i], sb[i], n, 1, iv);
			if ((double)own >= GD_PM_ATTRIB_COVER * (double)len &&
			    (double)oth <= (double)len - GD_PM_ATTRIB_COVER * (double)len) {
				nsamp[n - 1]++;
				sum[n - 1] += i * 0.25;
			}
		}
	}
	for (int n = 0; n < NN; n++)
		expect_rows += nsamp[n] >= GD_PM_ATTRIB_MIN;
	CHECK(expect_rows >= 3); /* the case means something */
	CHECK_INT(gd_pw_kernel_metrics(w), expect_rows);
	CHECK_INT(gd_pw_close(w, 1), GD_OK);
	CHECK_INT(gd_profile_load(db, &p, why, sizeof(why)), GD_OK);
	for (int n = 0; n < NN; n++) {
		const struct gd_pm_kernel *r = gd_profile_kernel_counters(&p, 0, n + 1);
		printf("random: r%d: %ld samples attributed\n", n + 1, nsamp[n]);
		CHECK_INT(r ? r->samples : 0, nsamp[n] >= GD_PM_ATTRIB_MIN ? nsamp[n] : 0);
		if (r && nsamp[n])
			CHECK_NEAR(r->v[GD_PM_DRAM], sum[n] / (double)nsamp[n], 1e-6);
	}
	gd_profile_free(&p);
#undef RND
}

/* A profile of the size the brief names: 500 000 back-to-back 10 µs kernels of one name, then
 * one 5 s kernel with 1 µs kernels of another name every 50 µs beside it; 100 000 samples.
 * Quadratic work would take hours; the rule takes seconds. */
static void test_large(void)
{
	char db[256], why[1200];
	struct gd_pw *w;
	struct gd_profile p;
	const struct gd_pm_kernel *r;
	struct timespec a, b;
	double secs;
	snprintf(db, sizeof(db), "%s/large.sqlite", dir);
	CHECK_INT(gd_pw_open(&w, db), GD_OK);
	CHECK_INT(gd_pw_sql(w, "INSERT INTO strings VALUES (1,'short'),(2,'long'),(3,'tiny')"), GD_OK);
	CHECK_INT(gd_pw_sql(w, "WITH RECURSIVE c(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM c WHERE x < 499999) "
			       "INSERT INTO kernels(pid,device,stream,start,end,name) "
			       "SELECT 1, 0, 1, 1000000000000 + x * 10000, 1000000000000 + (x + 1) * 10000, 1 FROM c"),
		  GD_OK);
	CHECK_INT(gd_pw_sql(w, "INSERT INTO kernels(pid,device,stream,start,end,name) "
			       "VALUES (1, 0, 1, 1005000000000, 1010000000000, 2)"),
		  GD_OK);
	CHECK_INT(gd_pw_sql(w, "WITH RECURSIVE c(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM c WHERE x < 99999) "
			       "INSERT INTO kernels(pid,device,stream,start,end,name) "
			       "SELECT 1, 0, 2, 1005000000000 + x * 50000, 1005000000000 + x * 50000 + 1000, 3 FROM c"),
		  GD_OK);
	for (long i = 0; i < 100000; i++)
		sample(w, 0, T0 + i * S, T0 + (i + 1) * S, i < 50000 ? 85 : 30, i < 50000 ? 20 : 60);
	clock_gettime(CLOCK_MONOTONIC, &a);
	CHECK_INT(gd_pw_kernel_metrics(w), 2);
	clock_gettime(CLOCK_MONOTONIC, &b);
	secs = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) * 1e-9;
	printf("kernel_metrics: 600001 kernels, 100000 samples: %.2f s\n", secs);
	CHECK(secs < 30);
	CHECK_INT(gd_pw_close(w, 1), GD_OK);
	CHECK_INT(gd_profile_load(db, &p, why, sizeof(why)), GD_OK);
	CHECK_INT(p.npm, 100000);
	CHECK_INT(p.nkpm, 2);
	r = gd_profile_kernel_counters(&p, 0, 1);
	CHECK(r && r->samples == 50000 && r->v[GD_PM_DRAM] == 85 && r->v[GD_PM_SM_ISSUE] == 20);
	r = gd_profile_kernel_counters(&p, 0, 2); /* the 2 % of tiny kernels beside it are allowed */
	CHECK(r && r->samples == 50000 && r->v[GD_PM_DRAM] == 30 && r->v[GD_PM_SM_ISSUE] == 60);
	CHECK(gd_profile_kernel_counters(&p, 0, 3) == NULL);
	gd_profile_free(&p);
}

/* Samples are kept where the capture range keeps records, like the NVML samples. */
static void test_capture(void)
{
	char db[256];
	struct gd_pw *w;
	snprintf(db, sizeof(db), "%s/cap.sqlite", dir);
	CHECK_INT(gd_pw_open(&w, db), GD_OK);
	for (int i = 0; i < 10; i++)
		sample(w, 0, T0 + i * 1000000LL, T0 + (i + 1) * 1000000LL, i, NAN); /* 1 ms each */
	/* a window [t0 + 3 ms, t0 + 5 ms] keeps the samples starting at 3, 4 and 5 ms */
	CHECK_INT(gd_pw_capture(w, "delay", T0, T0 + 10000000LL, 0.003, 0.002), 1);
	CHECK_INT(gd_pw_close(w, 1), GD_OK);
	CHECK_INT(gd_test_q1(db, "SELECT COUNT(*) FROM gpu_metrics"), 3);
	CHECK_INT(gd_test_q1(db, "SELECT MIN(dram_pct) FROM gpu_metrics"), 3);
}

/* A profile recorded before the tables existed reads as before: no samples, counters "". */
static void test_old_profile(void)
{
	const char *f = "tests/fixtures/sample.gpudiag.sqlite";
	char why[1200];
	struct gd_profile p;
	CHECK_INT(gd_test_q1(f, "SELECT COUNT(*) FROM sqlite_master WHERE name IN ('gpu_metrics', 'kernel_metrics')"), 0);
	CHECK_INT(gd_profile_load(f, &p, why, sizeof(why)), GD_OK);
	CHECK(p.nk > 0);
	CHECK_INT(p.npm, 0);
	CHECK_INT(p.nkpm, 0);
	CHECK_STR(p.counters, "");
	CHECK_INT(p.pm_interval_ns, 0);
	CHECK_INT(p.pm_lost, -1);
	CHECK_INT(p.bad_rows, 0);
	gd_profile_free(&p);
}

/* tests/fixtures/gen_profile.py's "counters" scenario computes its kernel_metrics rows by the
 * rule in Python; the writer, given the same kernels and samples, writes the same rows. */
static void test_generated(void)
{
	char gen[256], db[256], why[1200], cmd[700];
	struct gd_profile g, p;
	struct gd_pw *w;
	snprintf(gen, sizeof(gen), "%s/gen_counters.sqlite", dir);
	snprintf(db, sizeof(db), "%s/rewritten.sqlite", dir);
	snprintf(cmd, sizeof(cmd), "python3 tests/fixtures/gen_profile.py counters '%s'", gen);
	CHECK_INT(system(cmd), 0);
	CHECK_INT(gd_profile_load(gen, &g, why, sizeof(why)), GD_OK);
	CHECK_STR(g.counters, "ok");
	CHECK_INT(g.pm_interval_ns, 100000);
	CHECK_INT(g.pm_lost, 0);
	CHECK(g.npm > 2000);
	CHECK_INT(g.nkpm, 3); /* elementwise, GEMM, pointer chase; the 50 µs kernel has none */
	CHECK_INT(gd_pw_open(&w, db), GD_OK);
	for (int i = 0; i < g.nnames; i++) {
		char sql[600];
		if (!g.names[i] || strchr(g.names[i], '\''))
			continue;
		snprintf(sql, sizeof(sql), "INSERT INTO strings VALUES (%d, '%s')", i, g.names[i]);
		CHECK_INT(gd_pw_sql(w, sql), GD_OK);
	}
	for (long i = 0; i < g.nk; i++)
		kernel(w, g.k[i].device, (int)g.k[i].stream, g.k[i].start, g.k[i].end, g.k[i].name);
	for (long i = 0; i < g.npm; i++)
		CHECK_INT(gd_pw_pm(w, &g.pm[i]), GD_OK);
	CHECK_INT(gd_pw_kernel_metrics(w), 3);
	CHECK_INT(gd_pw_close(w, 1), GD_OK);
	CHECK_INT(gd_profile_load(db, &p, why, sizeof(why)), GD_OK);
	CHECK_INT(p.nkpm, g.nkpm);
	for (long i = 0; i < g.nkpm; i++) {
		const struct gd_pm_kernel *a = &g.kpm[i], *b = gd_profile_kernel_counters(&p, a->device, a->name);
		CHECK(b != NULL);
		if (!b)
			continue;
		CHECK_INT(b->samples, a->samples);
		for (int m = 0; m < GD_PM_COUNT; m++)
			if (isnan(a->v[m]))
				CHECK(isnan(b->v[m]));
			else
				CHECK_NEAR(b->v[m], a->v[m], 1e-6 * fabs(a->v[m]) + 1e-9);
	}
	/* what the scenario plants: a DRAM-bound, a tensor-core and a latency-bound kernel */
	for (long i = 0; i < g.nkpm; i++) {
		const struct gd_pm_kernel *a = &g.kpm[i];
		const char *n = g.names[a->name];
		CHECK(a->samples >= 400);
		CHECK(isnan(a->v[GD_PM_WARPS_UNUSED]));
		if (strstr(n, "elementwise")) {
			CHECK_NEAR(a->v[GD_PM_DRAM], 85, 1);
			CHECK_NEAR(a->v[GD_PM_SM_ISSUE], 20, 1);
			CHECK_NEAR(a->v[GD_PM_TENSOR], 0, 0);
		} else if (strstr(n, "gemm")) {
			CHECK_NEAR(a->v[GD_PM_TENSOR], 70, 1);
			CHECK_NEAR(a->v[GD_PM_DRAM], 30, 1);
		} else {
			CHECK_STR(n, "_Z13pointer_chasePKjPji");
			CHECK_NEAR(a->v[GD_PM_SM_ACTIVE], 95, 1);
			CHECK_NEAR(a->v[GD_PM_SM_ISSUE], 8, 1);
			CHECK_NEAR(a->v[GD_PM_DRAM], 5, 1);
		}
	}
	gd_profile_free(&p);
	gd_profile_free(&g);

	snprintf(cmd, sizeof(cmd), "python3 tests/fixtures/gen_profile.py counters_refused '%s'", gen);
	CHECK_INT(system(cmd), 0);
	CHECK_INT(gd_profile_load(gen, &g, why, sizeof(why)), GD_OK);
	CHECK_STR(g.counters, "no counters: profiling is restricted to admin users (CUPTI_ERROR_INSUFFICIENT_PRIVILEGES)");
	CHECK_INT(g.npm, 0);
	CHECK_INT(g.nkpm, 0);
	CHECK_INT(g.pm_lost, -1);
	CHECK(g.nk > 100);
	gd_profile_free(&g);
}

/* In memory: gd_profile_finish puts samples in (device, time) order. */
static void test_finish_order(void)
{
	struct gd_profile p;
	struct gd_pm_sample *s;
	gd_profile_init(&p);
	s = gd_profile_add_pm(&p);
	s->device = 1, s->t_start = 5, s->t_end = 6;
	CHECK(isnan(s->v[GD_PM_DRAM]));
	s = gd_profile_add_pm(&p);
	s->device = 0, s->t_start = 9, s->t_end = 10;
	s = gd_profile_add_pm(&p);
	s->device = 0, s->t_start = 3, s->t_end = 4;
	gd_profile_finish(&p);
	CHECK_INT(p.pm[0].t_start, 3);
	CHECK_INT(p.pm[1].t_start, 9);
	CHECK_INT(p.pm[2].device, 1);
	gd_profile_free(&p);
}

int main(void)
{
	char cmd[300];
	gd_set_quiet(1);
	if (!mkdtemp(dir))
		return 1;
	test_roundtrip();
	test_attribution();
	test_random();
	test_large();
	test_capture();
	test_old_profile();
	test_generated();
	test_finish_order();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
	return TEST_DONE();
}
