/* Per-launch counters in the profile (issue 19): GD_RAW_KLAUNCH / GD_RAW_KREJECT records of raw
 * files → metric_launches, metric_values, meta.metrics_rejected; gd_pw_ceilings → ceilings;
 * and back through the reader: p->kl (quantities by CUPTI name, extras, status, detail, the
 * link to the kernel record), p->kx, p->dev[].ceil, the meta keys. A record whose size
 * disagrees with its nvalues is counted and skipped, the rest of the file kept. */
#include "core/status.h"
#include "core/test.h"
#include "profile/kc_metrics.h"
#include "profile/profile.h"
#include "profile/raw.h"
#include "profile/writer.h"

#include "profile/test_sql.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[] = "/tmp/gd_kc_writer_test.XXXXXX";

#define T0 1764000000000000000ULL

static FILE *out;

static void put(const void *p, size_t n) { CHECK(fwrite(p, 1, n, out) == n); }

static void put_string(uint32_t id, const char *s)
{
	struct gd_raw_string r;
	size_t len = strlen(s), pad = ((len + 7) & ~(size_t)7) - len;
	static const char zeros[8];
	memset(&r, 0, sizeof(r));
	r.h.type = GD_RAW_STRING, r.h.size = (uint32_t)(sizeof(r) + len + pad), r.id = id, r.len = (uint32_t)len;
	put(&r, sizeof(r));
	put(s, len);
	put(zeros, pad);
}

static void header(uint32_t pid)
{
	struct gd_raw_header h;
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, GD_RAW_MAGIC, 8);
	h.version = GD_RAW_VERSION, h.bom = GD_RAW_BOM, h.pid = pid, h.ppid = 1, h.status = GD_RAW_ST_OK;
	h.cupti_version = h.built_cupti_version = 130001, h.start_ns = T0, h.api_mode = 1;
	put(&h, sizeof(h));
}

static void kernel(uint32_t corr, uint32_t name, uint64_t start)
{
	struct gd_raw_kernel k;
	memset(&k, 0, sizeof(k));
	k.h.type = GD_RAW_KERNEL, k.h.size = sizeof(k);
	k.start = start, k.end = start + 50000, k.correlation = corr, k.name = name, k.stream = 13;
	k.grid[0] = 264, k.grid[1] = k.grid[2] = 1, k.block[0] = 256, k.block[1] = k.block[2] = 1, k.regs = 32;
	put(&k, sizeof(k));
}

/* A launch record with n values (metric string id, value); size_delta makes its size lie. */
static void klaunch(uint32_t corr, uint32_t name, uint32_t nth, uint32_t status, uint32_t detail, uint32_t passes,
		    const uint32_t *metric, const double *value, uint32_t n, int size_delta)
{
	struct gd_raw_klaunch k;
	memset(&k, 0, sizeof(k));
	k.h.type = GD_RAW_KLAUNCH;
	k.h.size = (uint32_t)((int)(sizeof(k) + n * sizeof(struct gd_raw_kvalue)) + size_delta);
	k.api_start = T0 + 1000, k.profile_ns = status == GD_KL_OK ? 85000000 : 0;
	k.correlation = corr, k.name = name, k.nth = nth, k.passes = passes, k.status = status, k.detail = detail;
	k.nvalues = n;
	put(&k, sizeof(k));
	/* as many values as the size has room for */
	for (uint32_t i = 0; i < n && sizeof(k) + (i + 1) * sizeof(struct gd_raw_kvalue) <= k.h.size; i++) {
		struct gd_raw_kvalue v = {metric[i], 0, value[i]};
		put(&v, sizeof(v));
	}
	if (size_delta > 0) { /* the size says more than nvalues: filler to keep the file whole */
		static const char zeros[64];
		put(zeros, (size_t)size_delta);
	}
}

static void kreject(uint32_t metric, uint32_t reason)
{
	struct gd_raw_kreject r;
	memset(&r, 0, sizeof(r));
	r.h.type = GD_RAW_KREJECT, r.h.size = sizeof(r), r.metric = metric, r.reason = reason;
	put(&r, sizeof(r));
}

enum { S_GATHER = 1, S_COOP, S_DRAM_READ, S_FFMA, S_EXTRA, S_HFMA2, S_GMMA, S_REASON, S_DETAIL, S_BAD, S_UNNAMED };

/* Process 101: a gather kernel (corr 5, 6) profiled twice, a cooperative launch skipped
 * (corr 9, no kernel record), a record whose size lies (corr 7), one of an unknown status
 * (corr 8), two refusals. Process 102: the same names refused again and one more. */
static void write_raws(const char *r1, const char *r2)
{
	out = fopen(r1, "wb");
	CHECK(out != NULL);
	header(101);
	put_string(S_GATHER, "_Z14strided_gatherPKfPfi");
	put_string(S_COOP, "_Z9grid_syncPf");
	put_string(S_DRAM_READ, "dram__bytes_read.sum");
	put_string(S_FFMA, "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum");
	put_string(S_EXTRA, "l1tex__data_bank_conflicts_pipe_lsu.sum");
	put_string(S_HFMA2, "sm__inst_executed_pipe_tensor_op_hmma_type_hfma2.sum");
	put_string(S_GMMA, "sm__inst_executed_pipe_tensor_op_gmma.sum");
	put_string(S_REASON, "CUPTI_ERROR_INVALID_METRIC_NAME");
	put_string(S_DETAIL, "cooperative launch: kernel replay cannot restore a grid sync");
	put_string(S_BAD, "sm__never_read.sum");
	kernel(5, S_GATHER, T0 + 1000000);
	kernel(6, S_GATHER, T0 + 2000000);
	{
		const uint32_t m[] = {S_DRAM_READ, S_FFMA, S_EXTRA, S_UNNAMED};
		const double v5[] = {1.34217728e8, 0, 17, 1}, v6[] = {1.4e8, NAN, 19, 1};
		/* written out of correlation order: the reader gives (pid, correlation) order */
		klaunch(6, S_GATHER, 1, GD_KL_OK, 0, 11, m, v6, 4, 0);
		klaunch(5, S_GATHER, 0, GD_KL_OK, 0, 11, m, v5, 4, 0);
		klaunch(7, S_GATHER, 2, GD_KL_OK, 0, 11, m, v5, 4, -16); /* nvalues 4, room for 3 */
		klaunch(9, S_COOP, 0, GD_KL_SKIP_COOPERATIVE, S_DETAIL, 0, NULL, NULL, 0, 0);
		klaunch(8, S_COOP, 1, 99, 0, 0, NULL, NULL, 0, 0); /* a status this gpudiag does not know */
		klaunch(10, S_BAD, 0, GD_KL_OK, 0, 11, m, v5, 2, 16); /* size says 1 more value */
	}
	kreject(S_HFMA2, S_REASON);
	kreject(S_GMMA, S_REASON);
	kreject(S_HFMA2, S_REASON);
	fclose(out);

	out = fopen(r2, "wb");
	CHECK(out != NULL);
	header(102);
	put_string(1, "sm__inst_executed_pipe_tensor_op_gmma.sum");
	put_string(2, "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed");
	kreject(1, 0);
	kreject(2, 0);
	kreject(0, 0); /* no name: nothing to say */
	fclose(out);
}

static void test_roundtrip(void)
{
	char db[256], r1[256], r2[256], err[512], why[512];
	struct gd_pw *w;
	struct gd_raw_stats st;
	struct gd_pceilings c;
	struct gd_profile p;
	snprintf(db, sizeof(db), "%s/kc.sqlite", dir);
	snprintf(r1, sizeof(r1), "%s/raw.101", dir);
	snprintf(r2, sizeof(r2), "%s/raw.102", dir);
	write_raws(r1, r2);
	CHECK_INT(gd_pw_open(&w, db), GD_OK);
	{
		struct gd_pw_device d;
		memset(&d, 0xff, sizeof(d));
		d.id = 0, d.cc_major = 9, d.cc_minor = 0, d.sm_count = 132;
		snprintf(d.name, sizeof(d.name), "NVIDIA H200");
		d.uuid[0] = d.pci_bus_id[0] = 0;
		d.mem_bus_width_bits = 6144, d.mem_clock_khz = 2619000, d.sm_clock_khz = 1980000;
		CHECK_INT(gd_pw_device(w, &d), GD_OK);
	}
	CHECK_INT(gd_pw_meta(w, "metrics", "default"), GD_OK);
	CHECK_INT(gd_pw_add_raw(w, r1, &st, err, sizeof(err)), GD_OK);
	CHECK_INT(st.bad_records, 2); /* the two lying sizes, and the file read to its end */
	CHECK_INT(st.kernels, 2);
	CHECK_INT(st.truncated, 0);
	CHECK_INT(gd_pw_add_raw(w, r2, &st, err, sizeof(err)), GD_OK);
	CHECK_INT(st.bad_records, 0);
	memset(&c, 0, sizeof(c));
	c.dram_bps = 4.15e12, c.l2_bps = NAN;
	for (int i = 0; i < GD_P_COUNT; i++)
		c.cuda_core[i] = c.tensor[i] = NAN;
	c.cuda_core[GD_P_FP32] = 6.1e13, c.tensor[GD_P_BF16] = 7.2e14;
	c.measured_at = 1764720000, c.sm_clock_mhz = 1980; /* 2025-12-03 00:00 UTC */
	CHECK_INT(gd_pw_ceilings(w, 0, &c), GD_OK);
	CHECK_INT(gd_pw_close(w, 1), GD_OK);

	/* what the writer wrote */
	CHECK_INT(gd_test_q1(db, "SELECT COUNT(*) FROM metric_launches"), 4);
	CHECK_INT(gd_test_q1(db, "SELECT COUNT(*) FROM metric_launches WHERE correlation IN (7, 10)"), 0);
	CHECK_INT(gd_test_q1(db, "SELECT COUNT(*) FROM metric_launches WHERE status = 'ok'"), 2);
	CHECK_INT(gd_test_q1(db, "SELECT passes FROM metric_launches WHERE correlation = 5"), 11);
	CHECK_INT(gd_test_q1(db, "SELECT profile_ns FROM metric_launches WHERE correlation = 5"), 85000000);
	CHECK_INT(gd_test_q1(db, "SELECT profile_ns IS NULL FROM metric_launches WHERE correlation = 9"), 1);
	CHECK_INT(gd_test_q1(db, "SELECT status = 'cooperative' AND detail LIKE 'cooperative launch:%' "
				 "FROM metric_launches WHERE correlation = 9"), 1);
	CHECK_INT(gd_test_q1(db, "SELECT status = 'error' AND detail IS NULL FROM metric_launches WHERE correlation = 8"), 1);
	CHECK_INT(gd_test_q1(db, "SELECT COUNT(*) FROM metric_values"), 6); /* 3 named values × 2 launches */
	CHECK_INT(gd_test_q1(db, "SELECT COUNT(*) FROM metric_values WHERE value IS NULL"), 1); /* the NaN */
	CHECK_INT(gd_test_q1(db, "SELECT COUNT(*) FROM metric_values v JOIN strings s ON s.id = v.metric "
				 "WHERE s.value = 'dram__bytes_read.sum' AND v.correlation = 5 AND v.value = 134217728"), 1);
	CHECK_INT(gd_test_q1(db, "SELECT COUNT(*) FROM meta WHERE key = 'metrics_rejected' AND value = "
				 "'sm__inst_executed_pipe_tensor_op_hmma_type_hfma2.sum sm__inst_executed_pipe_tensor_op_gmma.sum "
				 "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed'"), 1);
	CHECK_INT(gd_test_q1(db, "SELECT dram_bps FROM ceilings WHERE device = 0"), 4150000000000LL);
	CHECK_INT(gd_test_q1(db, "SELECT l2_bps IS NULL AND tensor_fp16_flops IS NULL FROM ceilings"), 1);
	CHECK_INT(gd_test_q1(db, "SELECT tensor_bf16_flops / 1e12 FROM ceilings"), 720);
	CHECK_INT(gd_test_q1(db, "SELECT sm_clock_mhz FROM ceilings"), 1980);
	CHECK_INT(gd_test_q1(db, "SELECT COUNT(*) FROM sqlite_master WHERE name IN ('metric_launches_corr', "
				 "'metric_values_corr')"), 2);

	/* and read back */
	CHECK_INT(gd_profile_load(db, &p, why, sizeof(why)), GD_OK);
	CHECK_STR(p.metrics, "default");
	CHECK(strstr(p.metrics_rejected, "op_gmma.sum sm__pipe_tensor") != NULL);
	CHECK_STR(p.metrics_note, "");
	CHECK_INT(p.nkl, 4);
	CHECK_INT(p.bad_rows, 0);
	if (p.nkl == 4) {
		const struct gd_klaunch *a = &p.kl[0], *b = &p.kl[1];
		CHECK_INT(a->pid, 101);
		CHECK_INT(a->corr, 5);
		CHECK_INT(b->corr, 6);
		CHECK_INT(p.kl[2].corr, 8);
		CHECK_INT(p.kl[3].corr, 9);
		CHECK_STR(p.names[a->name], "_Z14strided_gatherPKfPfi");
		CHECK_INT(a->status, GD_KL_OK);
		CHECK_INT(a->nth, 0);
		CHECK_INT(b->nth, 1);
		CHECK_INT(a->passes, 11);
		CHECK_INT(a->profile_ns, 85000000);
		CHECK_NEAR(a->q[GD_KC_DRAM_READ], 134217728, 0);
		CHECK_NEAR(a->q[GD_KC_FFMA], 0, 0); /* a measured 0 is 0 */
		CHECK(isnan(b->q[GD_KC_FFMA]));     /* CUPTI gave none */
		CHECK(isnan(a->q[GD_KC_DURATION])); /* not collected */
		CHECK_INT(a->nextra, 1);
		CHECK_INT(b->nextra, 1);
		if (a->nextra == 1 && b->nextra == 1) {
			CHECK_STR(p.names[p.kx[a->extra].metric], "l1tex__data_bank_conflicts_pipe_lsu.sum");
			CHECK_NEAR(p.kx[a->extra].value, 17, 0);
			CHECK_NEAR(p.kx[b->extra].value, 19, 0);
		}
		/* linked to their kernel records; the skipped ones have none */
		CHECK(a->kernel >= 0 && p.k[a->kernel].corr == 5 && p.k[a->kernel].pid == 101);
		CHECK(b->kernel >= 0 && p.k[b->kernel].corr == 6);
		CHECK_INT(p.kl[3].kernel, -1);
		CHECK_INT(p.kl[3].status, GD_KL_SKIP_COOPERATIVE);
		CHECK_INT(p.kl[3].passes, 0);
		CHECK_INT(p.kl[3].profile_ns, -1);
		CHECK(p.kl[3].detail > 0 && strstr(p.names[p.kl[3].detail], "grid sync") != NULL);
		CHECK_INT(p.kl[2].status, GD_KL_ERROR);
		CHECK_INT(p.kl[2].detail, 0);
	}
	CHECK_INT(p.ndev, 1);
	if (p.ndev == 1) {
		const struct gd_pceilings *e = &p.dev[0].ceil;
		CHECK_NEAR(e->dram_bps, 4.15e12, 0);
		CHECK_NEAR(e->cuda_core[GD_P_FP32], 6.1e13, 0);
		CHECK_NEAR(e->tensor[GD_P_BF16], 7.2e14, 0);
		CHECK(isnan(e->l2_bps) && isnan(e->tensor[GD_P_FP16]));
		CHECK_NEAR(e->measured_at, 1764720000, 0);
		CHECK_INT(e->sm_clock_mhz, 1980);
		CHECK_INT(p.dev[0].mem_bus_bits, 6144);
		CHECK_INT(p.dev[0].mem_clock_khz, 2619000);
	}
	gd_profile_free(&p);
	unlink(db);
	unlink(r1);
	unlink(r2);
}

/* A raw file cut inside a launch's values: what was complete is kept, the file is truncated. */
static void test_truncated(void)
{
	char db[256], r1[256], r2[256], err[512];
	struct gd_pw *w;
	struct gd_raw_stats st;
	long sz;
	snprintf(db, sizeof(db), "%s/cut.sqlite", dir);
	snprintf(r1, sizeof(r1), "%s/raw.101", dir);
	snprintf(r2, sizeof(r2), "%s/raw.102", dir);
	write_raws(r1, r2);
	out = fopen(r1, "rb");
	fseek(out, 0, SEEK_END);
	sz = ftell(out);
	fclose(out);
	/* the last records: launch 10 (64 + 2 × 16 + 16), then 3 refusals of 16: cut into launch 10 */
	CHECK(truncate(r1, sz - 3 * 16 - 40) == 0);
	CHECK_INT(gd_pw_open(&w, db), GD_OK);
	CHECK_INT(gd_pw_add_raw(w, r1, &st, err, sizeof(err)), GD_OK);
	CHECK_INT(st.truncated, 1);
	CHECK_INT(st.bad_records, 1); /* the lying size of launch 7 */
	CHECK_INT(gd_pw_close(w, 1), GD_OK);
	CHECK_INT(gd_test_q1(db, "SELECT COUNT(*) FROM metric_launches"), 4);
	CHECK_INT(gd_test_q1(db, "SELECT COUNT(*) FROM meta WHERE key = 'metrics_rejected'"), 0);
	unlink(db);
	unlink(r1);
	unlink(r2);
}

int main(void)
{
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	test_roundtrip();
	test_truncated();
	rmdir(dir);
	return TEST_DONE();
}
