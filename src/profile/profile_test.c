/* CPU-tier tests of the profile path: schema, raw → SQLite on synthetic raw files, kernel
 * names, truncated and corrupt raw files, capture ranges. */
#include "core/fileio.h"
#include "core/status.h"
#include "core/test.h"
#include "profile/writer.h"
#include "profile/raw.h"
#include "profile/schema.h"

#include "profile/test_sql.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[] = "/tmp/gd_profile_test.XXXXXX";


static void test_schema_string(void)
{
	size_t n;
	char *f = gd_read_file("src/profile/schema.sql", &n);
	CHECK(f != NULL);
	if (f)
		CHECK(!strcmp(f, gd_profile_schema_sql)); /* regenerate: sh src/profile/gen_schema.sh */
	free(f);
}

static void test_names(void)
{
	char full[512], sh[256];
	gd_kernel_names("_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEESt5arrayIPcLm1EEEEviT0_T1_",
			full, sizeof(full), sh, sizeof(sh));
	CHECK_STR(sh, "vectorized_elementwise_kernel");
	CHECK(strstr(full, "at::native::vectorized_elementwise_kernel<4") == full + 5);
	gd_kernel_names("saxpy", full, sizeof(full), sh, sizeof(sh));
	CHECK_STR(sh, "saxpy");
	CHECK_STR(full, "saxpy");
	gd_kernel_names("void ns::inner::k<int, (float)1>(float*, int)", full, sizeof(full), sh, sizeof(sh));
	CHECK_STR(sh, "k");
	gd_kernel_names("void at::(anonymous namespace)::softmax_warp<float>(float*)", full, sizeof(full), sh,
			sizeof(sh));
	CHECK_STR(sh, "softmax_warp");
	gd_kernel_names("", full, sizeof(full), sh, sizeof(sh));
	CHECK_STR(sh, "");
	gd_kernel_names("<<<>>>)(", full, sizeof(full), sh, sizeof(sh)); /* nonsense must not crash */
	CHECK(strlen(sh) < sizeof(sh));
}

static int build(const char *db, const char *const *raws, int n, struct gd_raw_stats *st, char *err)
{
	struct gd_pw *w;
	int rc = gd_pw_open(&w, db);
	if (rc)
		return rc;
	for (int i = 0; i < n; i++) {
		rc = gd_pw_add_raw(w, raws[i], &st[i], err, 256);
		if (rc)
			break;
	}
	if (!rc)
		gd_pw_capture(w, "all", 0, 1LL << 62, 0, 0);
	gd_pw_close(w, rc == GD_OK);
	return rc;
}

static void test_roundtrip(void)
{
	char raw1[256], raw2[256], db[256], err[256];
	const char *raws[2] = {raw1, raw2};
	struct gd_raw_stats st[2];
	long long expect = 0;
	snprintf(raw1, sizeof(raw1), "%s/raw.100", dir);
	snprintf(raw2, sizeof(raw2), "%s/raw.200", dir);
	snprintf(db, sizeof(db), "%s/a.sqlite", dir);
	CHECK_INT(gd_raw_synth(raw1, 100, 1000, NULL, 0, 1000000000000ull), 0);
	CHECK_INT(gd_raw_synth(raw2, 200, 10, NULL, 0, 2000000000000ull), 0);
	CHECK_INT(build(db, raws, 2, st, err), GD_OK);
	CHECK_INT(st[0].kernels, 1000);
	CHECK_INT(st[0].truncated, 0);
	CHECK_INT(st[0].ended, 1);
	CHECK_INT(gd_test_q1(db, "SELECT value FROM meta WHERE key='schema_version'"), GD_PROFILE_SCHEMA_VERSION);
	CHECK_INT(gd_test_q1(db, "SELECT COUNT(*) FROM kernels WHERE pid=100"), 1000);
	CHECK_INT(gd_test_q1(db, "SELECT COUNT(*) FROM kernels WHERE pid=200"), 10);
	CHECK_INT(gd_test_q1(db, "SELECT COUNT(*) FROM api"), 1010);
	for (long i = 0; i < 1000; i++)
		expect += 2000 + (i % 7) * 1000;
	CHECK_INT(gd_test_q1(db, "SELECT SUM(end-start) FROM kernels WHERE pid=100"), expect);
	/* Strings are shared between the two files: 6 kernel names, interned once. */
	CHECK_INT(gd_test_q1(db, "SELECT COUNT(DISTINCT name) FROM kernels"), 6);
	CHECK_INT(gd_test_q1(db, "SELECT COUNT(*) FROM strings WHERE value='cudaLaunchKernel_v7000'"), 1);
	CHECK_INT(gd_test_q1(db, "SELECT COUNT(*) FROM kernels_v WHERE short_name_str='vectorized_elementwise_kernel'"),
		  (1000 + 5) / 6 + (10 + 5) / 6);
	/* API → kernel join on (pid, correlation): launch 3 µs before start. */
	CHECK_INT(gd_test_q1(db, "SELECT COUNT(*) FROM api a JOIN kernels k ON k.pid=a.pid AND k.correlation=a.correlation "
			 "WHERE k.start-a.start=3000"),
		  1010);
	CHECK_INT(gd_test_q1(db, "SELECT COUNT(*) FROM memcpy WHERE src_kind=1 AND copy_kind=1"), 1 + 1);
	CHECK_INT(gd_test_q1(db, "SELECT end-start FROM nvtx WHERE pid=100"), 1000 * 10000 + 5000);
	CHECK_INT(gd_test_q1(db, "SELECT null_stream FROM contexts WHERE pid=100"), 7);
	CHECK_INT(gd_test_q1(db, "SELECT COUNT(*) FROM kernels k JOIN contexts c ON c.pid=k.pid AND c.context=k.context "
			 "WHERE k.pid=100 AND k.stream=c.null_stream"),
		  500);
	CHECK_INT(gd_test_q1(db, "SELECT sm_count FROM devices"), 132);
	CHECK_INT(gd_test_q1(db, "SELECT COUNT(*) FROM process_devices"), 2);
	CHECK_INT(gd_test_q1(db, "SELECT traced FROM processes WHERE pid=100"), 1);
	CHECK_INT(gd_test_q1(db, "SELECT end_ns FROM processes WHERE pid=100"), 1000000000000LL + 1000 * 10000 + 10000);
	CHECK_INT(gd_test_q1(db, "SELECT COUNT(*) FROM strings WHERE value=CAST(X'626164207574663820FFFE206865726520C3' AS TEXT)"), 1);
	CHECK_INT(access(db, F_OK), 0);
}

static long fsize(const char *p)
{
	FILE *f = fopen(p, "rb");
	long n;
	if (!f)
		return -1;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fclose(f);
	return n;
}

static void test_damaged(void)
{
	char raw[256], db[256], err[256];
	const char *raws[1] = {raw};
	struct gd_raw_stats st;
	long n;
	FILE *f;
	snprintf(raw, sizeof(raw), "%s/raw.300", dir);
	snprintf(db, sizeof(db), "%s/b.sqlite", dir);

	/* Cut mid-record (a process killed while writing): complete records kept, no error. */
	CHECK_INT(gd_raw_synth(raw, 300, 100, NULL, 0, 1000000000000ull), 0);
	n = fsize(raw);
	CHECK_INT(truncate(raw, n - 16 - 13), 0); /* end record gone, last kernel cut */
	CHECK_INT(build(db, raws, 1, &st, err), GD_OK);
	CHECK_INT(st.truncated, 1);
	CHECK_INT(st.ended, 0);
	CHECK_INT(gd_test_q1(db, "SELECT COUNT(*) FROM kernels"), 99);
	CHECK_INT(gd_test_q1(db, "SELECT raw_truncated FROM processes"), 1);

	/* A header cut short. */
	CHECK_INT(truncate(raw, 20), 0);
	CHECK_INT(build(db, raws, 1, &st, err), GD_EDATA);
	CHECK(strstr(err, "truncated") != NULL);
	/* Empty. */
	CHECK_INT(truncate(raw, 0), 0);
	CHECK_INT(build(db, raws, 1, &st, err), GD_EDATA);
	CHECK(strstr(err, "empty") != NULL);

	/* Not a raw file. */
	f = fopen(raw, "wb");
	fputs("this is not a raw file, just some text that is long enough for a header\n", f);
	fclose(f);
	CHECK_INT(build(db, raws, 1, &st, err), GD_EDATA);
	CHECK(strstr(err, "not a gpudiag raw file") != NULL);

	/* A record with an impossible size in the middle. */
	CHECK_INT(gd_raw_synth(raw, 300, 100, NULL, 0, 1000000000000ull), 0);
	f = fopen(raw, "r+b");
	{
		uint32_t bad[2] = {GD_RAW_KERNEL, 12};
		fseek(f, (long)sizeof(struct gd_raw_header), SEEK_SET);
		fwrite(bad, sizeof(bad), 1, f);
	}
	fclose(f);
	CHECK_INT(build(db, raws, 1, &st, err), GD_EDATA);
	CHECK(strstr(err, "corrupt record at offset") != NULL);

	/* A string id far beyond what the file could hold: refused, not an id map of 4 GiB
	 * (the parser sized its map by the id and hung zeroing it). */
	CHECK_INT(gd_raw_synth(raw, 300, 10, NULL, 0, 1000000000000ull), 0);
	f = fopen(raw, "r+b");
	{
		uint32_t rec[3];
		fseek(f, (long)sizeof(struct gd_raw_header), SEEK_SET);
		CHECK_INT(fread(rec, sizeof(rec), 1, f), 1);
		CHECK_INT(rec[0], GD_RAW_STRING);
		rec[2] = 1u << 29;
		fseek(f, (long)sizeof(struct gd_raw_header), SEEK_SET);
		fwrite(rec, sizeof(rec), 1, f);
	}
	fclose(f);
	CHECK_INT(build(db, raws, 1, &st, err), GD_EDATA);
	CHECK(strstr(err, "corrupt string record") != NULL);

	/* Random garbage after a valid header: must stop with an error or a truncation, never crash. */
	for (int trial = 0; trial < 50; trial++) {
		unsigned seed = 12345u + (unsigned)trial;
		CHECK_INT(gd_raw_synth(raw, 300, 20, NULL, 0, 1000000000000ull), 0);
		n = fsize(raw);
		f = fopen(raw, "r+b");
		for (int k = 0; k < 8; k++) {
			seed = seed * 1103515245u + 12345u;
			fseek(f, (long)sizeof(struct gd_raw_header) + (long)(seed % (unsigned long)(n - 64)), SEEK_SET);
			fputc((int)(seed >> 16) & 0xff, f);
		}
		fclose(f);
		/* Either kept (a corrupted value inside a record, or a cut) or refused with a
		 * reason; never a database failure. */
		err[0] = 0;
		int rc = build(db, raws, 1, &st, err);
		CHECK(rc == GD_OK || (rc == GD_EDATA && err[0]));
		if (rc == GD_OK)
			CHECK(gd_test_q1(db, "SELECT COUNT(*) FROM processes WHERE pid=300") == 1);
	}
}

static void test_capture(void)
{
	char raw[256], db[256];
	struct gd_pw *w;
	struct gd_raw_stats st;
	char err[256];
	const long long t0 = 1000000000000LL;
	snprintf(raw, sizeof(raw), "%s/raw.400", dir);
	snprintf(db, sizeof(db), "%s/c.sqlite", dir);
	CHECK_INT(gd_raw_synth(raw, 400, 1000, NULL, 0, (uint64_t)t0), 0);
	CHECK_INT(gd_pw_open(&w, db), GD_OK);
	CHECK_INT(gd_pw_add_raw(w, raw, &st, err, sizeof(err)), GD_OK);
	/* Kernels start at t0 + 3 µs + 10 µs·i: a 1 ms window from 2 ms keeps i = 200..299. */
	CHECK_INT(gd_pw_capture(w, "delay", t0, t0 + 20000000, 0.002 - 0.000003, 0.001 - 1e-9), 1);
	CHECK_INT(gd_pw_close(w, 1), GD_OK);
	CHECK_INT(gd_test_q1(db, "SELECT COUNT(*) FROM kernels"), 100);
	CHECK_INT(gd_test_q1(db, "SELECT MIN(correlation) FROM kernels"), 201);
	CHECK_INT(gd_test_q1(db, "SELECT COUNT(*) FROM nvtx"), 1); /* the range overlaps the window */

	/* the framework view's mark outside every window is kept (it says the view was on);
	 * another mark there is not */
	CHECK_INT(gd_pw_open(&w, db), GD_OK);
	CHECK_INT(gd_pw_add_raw(w, raw, &st, err, sizeof(err)), GD_OK);
	CHECK_INT(gd_pw_sql(w, "INSERT INTO strings VALUES (9001,'gpudiag.torch:2.11.0+cu130:ops'),(9002,'other mark');"
			       "INSERT INTO nvtx (pid, tid, start, end, name, kind) VALUES "
			       "(400, 400, 999000000000, NULL, 9001, 1), (400, 400, 999000000000, NULL, 9002, 1)"),
		  GD_OK);
	CHECK_INT(gd_pw_capture(w, "delay", t0, t0 + 20000000, 0.002 - 0.000003, 0.001 - 1e-9), 1);
	CHECK_INT(gd_pw_close(w, 1), GD_OK);
	CHECK_INT(gd_test_q1(db, "SELECT COUNT(*) FROM nvtx n JOIN strings s ON s.id = n.name WHERE s.value LIKE "
				 "'gpudiag.torch:%'"), 1);
	CHECK_INT(gd_test_q1(db, "SELECT COUNT(*) FROM nvtx"), 2);

	CHECK_INT(gd_pw_open(&w, db), GD_OK);
	CHECK_INT(gd_pw_add_raw(w, raw, &st, err, sizeof(err)), GD_OK);
	CHECK_INT(gd_pw_capture(w, "nvtx:train_step", t0, t0 + 20000000, 0, 0), 1);
	CHECK_INT(gd_pw_close(w, 1), GD_OK);
	CHECK_INT(gd_test_q1(db, "SELECT COUNT(*) FROM kernels"), 1000);

	CHECK_INT(gd_pw_open(&w, db), GD_OK);
	CHECK_INT(gd_pw_add_raw(w, raw, &st, err, sizeof(err)), GD_OK);
	CHECK_INT(gd_pw_capture(w, "nvtx:no_such_range", t0, t0 + 20000000, 0, 0), 0);
	CHECK_INT(gd_pw_capture(w, "cudaProfilerApi", t0, t0 + 20000000, 0, 0), 0);
	CHECK_INT(gd_pw_close(w, 1), GD_OK);
	CHECK_INT(gd_test_q1(db, "SELECT COUNT(*) FROM kernels"), 0);
}

int main(void)
{
	char cmd[300];
	gd_set_quiet(1);
	if (!mkdtemp(dir))
		return 1;
	test_schema_string();
	test_names();
	test_roundtrip();
	test_damaged();
	test_capture();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
	return TEST_DONE();
}
