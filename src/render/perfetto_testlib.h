/* Shared by the Perfetto exports' tests (perfetto_test.c: JSON, perfetto_pb_test.c: the
 * native trace): the synthetic profile with hostile names, and its damaged variants. */
#ifndef GPUDIAG_RENDER_PERFETTO_TESTLIB_H
#define GPUDIAG_RENDER_PERFETTO_TESTLIB_H

#include "core/status.h"
#include "core/test.h"
#include "profile/writer.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* cp src dst, then sql on dst (NULL: none); 0 on success. The writer creates gpu_metrics
 * empty: a variant that mentions it replaces that table. */
static int variant(const char *src, const char *dst, const char *sql)
{
	char cmd[1024];
	sqlite3 *h;
	int rc;
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", src, dst);
	if (system(cmd) != 0)
		return -1;
	if (!sql)
		return 0;
	if (sqlite3_open(dst, &h) != SQLITE_OK)
		return -1;
	rc = strstr(sql, "gpu_metrics") ? sqlite3_exec(h, "DROP TABLE IF EXISTS gpu_metrics;", NULL, NULL, NULL) : SQLITE_OK;
	if (rc == SQLITE_OK)
		rc = sqlite3_exec(h, sql, NULL, NULL, NULL);
	sqlite3_close(h);
	return rc;
}

/* A copy of src cut to half its size (the rows stop at a malformed page): 0 on success. */
static int cut_half(const char *src, const char *dst)
{
	FILE *f;
	long size;
	if (variant(src, dst, NULL) || !(f = fopen(dst, "rb")))
		return -1;
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	fclose(f);
	return truncate(dst, size / 2);
}

/* A copy of a recorded profile with a page zeroed: the schema reads, the events stop midway. */
static int zero_page(const char *dst)
{
	static const char zero[4096];
	FILE *f;
	if (variant("tests/fixtures/h200_sync.gpudiag.sqlite", dst, NULL) || !(f = fopen(dst, "r+b")))
		return -1;
	fseek(f, 100 * 1024, SEEK_SET);
	fwrite(zero, 1, sizeof(zero), f);
	return fclose(f);
}

/* The synthetic profile db (600 kernels of gd_raw_synth, hostile names, one NVML sample at
 * 500 µs) from raw; kernel 0 (stream 7) made to overlap kernel 2, 20 µs later. */
static void synth_profile(const char *raw, const char *db)
{
	struct gd_pw *w;
	struct gd_raw_stats st;
	struct gd_nvml_sample s;
	char err[256];
	sqlite3 *h;
	CHECK_INT(gd_raw_synth(raw, 77, 600, NULL, 0, 1000000000000ull), 0);
	CHECK_INT(gd_pw_open(&w, db), GD_OK);
	CHECK_INT(gd_pw_meta_int(w, "start_ns", 1000000000000LL), GD_OK);
	memset(&s, 0xff, sizeof(s));
	s.t_ns = 1000000500000.0, s.util_gpu = 87, s.sm_mhz = 1980, s.power_mw = 512000;
	CHECK_INT(gd_pw_nvml(w, 0, &s), GD_OK);
	CHECK_INT(gd_pw_add_raw(w, raw, &st, err, sizeof(err)), GD_OK);
	CHECK_INT(gd_pw_capture(w, "all", 0, 1LL << 62, 0, 0), 1);
	CHECK_INT(gd_pw_close(w, 1), GD_OK);
	CHECK_INT(sqlite3_open(db, &h), SQLITE_OK);
	CHECK_INT(sqlite3_exec(h, "UPDATE kernels SET end=start+25000 WHERE correlation=1", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(h);
}

/* The hostile rows both exports must survive: impossible times and ids at the limits. */
static const char hostile_rows_sql[] =
	"UPDATE kernels SET end = start - 1 WHERE correlation = 5;"
	"UPDATE kernels SET start = 9200000000000000000, end = -9200000000000000000 WHERE correlation = 6;"
	"UPDATE kernels SET pid = 9223372036854775807, stream = -9223372036854775808 WHERE correlation = 7;"
	"UPDATE api SET tid = 9223372036854775807, pid = -9223372036854775808 WHERE correlation = 8;"
	"UPDATE nvtx SET end = start - 5;"
	"UPDATE nvml_samples SET device = 9223372036854775807;";

#endif
