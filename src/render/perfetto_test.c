/* CPU-tier test of the Perfetto export on a synthetic profile with hostile kernel names
 * (<, >, ", &, newlines, invalid UTF-8) and overlapping kernels on one stream; the JSON is
 * validated by python3 (tests/cli/check_trace.py). */
#include "core/status.h"
#include "core/test.h"
#include "render/perfetto.h"
#include "render/perfetto_testlib.h"
#include "profile/writer.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


/* Damaged and hostile profiles: the export fails with GD_EDATA and leaves no file, or writes
 * valid JSON without the impossible rows. */
static void hostile(const char *dir, const char *db)
{
	char v[300], out[300], cmd[1024];
	snprintf(v, sizeof(v), "%s/v.sqlite", dir);
	snprintf(out, sizeof(out), "%s/h.json", dir);

	/* cut short: the rows stop at "database disk image is malformed"; no file */
	CHECK_INT(cut_half(db, v), 0);
	unlink(out);
	CHECK_INT(gd_export_perfetto(v, out), GD_EDATA);
	CHECK(access(out, F_OK) != 0);

	/* a page of a recorded profile zeroed: the schema reads, the events stop midway */
	CHECK_INT(zero_page(v), 0);
	CHECK_INT(gd_export_perfetto(v, out), GD_EDATA);
	CHECK(access(out, F_OK) != 0);

	/* One kernel ends 1 ns before it starts ("dur":0.-01), another spans INT64's range, and
	 * pids, streams and threads sit at the limits (signed overflow in the track keys). */
	CHECK_INT(variant(db, v, hostile_rows_sql), 0);
	CHECK_INT(gd_export_perfetto(v, out), GD_OK);
	snprintf(cmd, sizeof(cmd), "python3 tests/cli/check_trace.py '%s' kernels=598", out);
	CHECK_INT(system(cmd), 0);
	snprintf(cmd, sizeof(cmd), "grep -q '\\.-' '%s'", out);
	CHECK(system(cmd) != 0);
	/* an impossible recorded start does not shift every time by 2^63 */
	CHECK_INT(variant(db, v, "UPDATE meta SET value = '-9223372036854775808' WHERE key = 'start_ns';"), 0);
	CHECK_INT(gd_export_perfetto(v, out), GD_OK);
	snprintf(cmd, sizeof(cmd), "python3 tests/cli/check_trace.py '%s' kernels=600", out);
	CHECK_INT(system(cmd), 0);

	/* A view in place of a table, a version that only starts with the digit: refused. */
	unlink(out);
	CHECK_INT(variant(db, v,
			  "DROP TABLE kernels; CREATE VIEW kernels AS WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL "
			  "SELECT x + 1 FROM r) SELECT x AS id FROM r;"),
		  0);
	CHECK_INT(gd_export_perfetto(v, out), GD_EDATA);
	CHECK(access(out, F_OK) != 0);
	CHECK_INT(variant(db, v, "UPDATE meta SET value = '1abc' WHERE key = 'schema_version';"), 0);
	CHECK_INT(gd_export_perfetto(v, out), GD_EDATA);
	CHECK(access(out, F_OK) != 0);
	/* api ids too large for the lane table */
	CHECK_INT(variant(db, v, "UPDATE api SET id = 9223372036854775807 WHERE correlation = 9;"), 0);
	CHECK_INT(gd_export_perfetto(v, out), GD_EDATA);
}

/* The GPU counters (gpu_metrics, issue 18): one counter track per device and quantity, a value
 * per sample that carries it (NULL, text and impossible times left out), timestamps on the
 * kernels' base; a table lacking quantity columns still exports; a view in its place, or a
 * table without its time columns, is refused. */
static void pm_tracks(const char *dir, const char *db)
{
	char v[300], out[300], cmd[2048];
	static const char cols[] =
		"device INTEGER, t_start INTEGER, t_end INTEGER, gpc_mhz REAL, gr_active_pct REAL, sm_active_pct REAL, "
		"sm_issue_pct REAL, tensor_active_pct REAL, dram_pct REAL, dram_read_pct REAL, dram_write_pct REAL, l2_pct REAL, "
		"warps_active_pct REAL, warps_unused_pct REAL, pcie_read_bps REAL, pcie_write_bps REAL";
	char sql[4096];
	snprintf(v, sizeof(v), "%s/pm.sqlite", dir);
	snprintf(out, sizeof(out), "%s/pm.json", dir);
	/* 50 samples of device 0 (SM active, DRAM) from 500 µs after the start, 20 of device 1
	 * (SM active only; its DRAM is text and its L2 NULL), and one row ending before it starts */
	snprintf(sql, sizeof(sql),
		 "CREATE TABLE gpu_metrics(%s);"
		 "WITH RECURSIVE r(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM r WHERE i < 49) "
		 "INSERT INTO gpu_metrics(device, t_start, t_end, sm_active_pct, dram_pct) "
		 "SELECT 0, 1000000500000 + i * 100000, 1000000600000 + i * 100000, 50 + i * 0.5, 12.25 FROM r;"
		 "WITH RECURSIVE r(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM r WHERE i < 19) "
		 "INSERT INTO gpu_metrics(device, t_start, t_end, sm_active_pct, dram_pct, l2_pct) "
		 "SELECT 1, 1000000500000 + i * 100000, 1000000600000 + i * 100000, 7, 'busy', NULL FROM r;"
		 "INSERT INTO gpu_metrics(device, t_start, t_end, sm_active_pct) VALUES (0, 1000000900000, 1000000800000, 99);",
		 cols);
	CHECK_INT(variant(db, v, sql), 0);
	CHECK_INT(gd_export_perfetto(v, out), GD_OK);
	snprintf(cmd, sizeof(cmd), "python3 tests/cli/check_trace.py '%s' kernels=600 flows=600 'counter=GPU 0 · SM active %%' >/dev/null", out);
	CHECK_INT(system(cmd), 0);
	snprintf(cmd, sizeof(cmd),
		 "python3 -c 'import json,sys,collections\n"
		 "ev = json.load(open(sys.argv[1]))[\"traceEvents\"]\n"
		 "c = [e for e in ev if e.get(\"cat\") == \"gpu_metrics\"]\n"
		 "assert all(e[\"ph\"] == \"C\" for e in c)\n"
		 "n = collections.Counter(e[\"name\"] for e in c)\n"
		 "assert n == {\"GPU 0 · SM active %%\": 50, \"GPU 0 · DRAM %%\": 50, \"GPU 1 · SM active %%\": 20}, n\n"
		 "s0 = sorted((float(e[\"ts\"]), e[\"args\"][\"value\"]) for e in c if e[\"name\"] == \"GPU 0 · SM active %%\")\n"
		 "assert s0[0] == (500.0, 50) and s0[-1] == (5400.0, 74.5), s0\n"
		 "assert all(e[\"args\"][\"value\"] == 12.25 for e in c if e[\"name\"] == \"GPU 0 · DRAM %%\")\n"
		 "names = [e[\"args\"][\"name\"] for e in ev if e.get(\"ph\") == \"M\" and e[\"name\"] == \"process_name\"]\n"
		 "assert \"GPU 0 (counters)\" in names and \"GPU 1 (counters)\" in names\n"
		 "k = min(float(e[\"ts\"]) for e in ev if e.get(\"cat\") == \"kernel\")\n"
		 "assert 0 <= k < 1e6, k' '%s'",
		 out);
	CHECK_INT(system(cmd), 0);

	/* a table of an older contract: only SM active besides the times */
	CHECK_INT(variant(db, v,
			  "CREATE TABLE gpu_metrics(device INTEGER, t_start INTEGER, t_end INTEGER, sm_active_pct REAL);"
			  "INSERT INTO gpu_metrics VALUES (0, 1000000500000, 1000000600000, 33), (0, 1000000600000, 1000000700000, NULL);"),
		  0);
	CHECK_INT(gd_export_perfetto(v, out), GD_OK);
	snprintf(cmd, sizeof(cmd), "test \"$(grep -c '\"cat\":\"gpu_metrics\"' '%s')\" = 1", out);
	CHECK_INT(system(cmd), 0);
	/* an empty table: no track, no counters process */
	snprintf(sql, sizeof(sql), "CREATE TABLE gpu_metrics(%s);", cols);
	CHECK_INT(variant(db, v, sql), 0);
	CHECK_INT(gd_export_perfetto(v, out), GD_OK);
	snprintf(cmd, sizeof(cmd), "! grep -q 'counters' '%s'", out);
	CHECK_INT(system(cmd), 0);

	/* refused: a view in the table's place, a table without t_end */
	unlink(out);
	CHECK_INT(variant(db, v,
			  "CREATE VIEW gpu_metrics AS WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r) "
			  "SELECT 0 AS device, x AS t_start, x AS t_end FROM r;"),
		  0);
	CHECK_INT(gd_export_perfetto(v, out), GD_EDATA);
	CHECK(access(out, F_OK) != 0);
	CHECK_INT(variant(db, v, "CREATE TABLE gpu_metrics(device INTEGER, t_start INTEGER, sm_active_pct REAL);"), 0);
	CHECK_INT(gd_export_perfetto(v, out), GD_EDATA);
	CHECK(access(out, F_OK) != 0);
}

int main(void)
{
	char dir[] = "/tmp/gd_perfetto_test.XXXXXX", raw[256], db[256], out[256], cmd[1024];
	gd_set_quiet(1);
	if (!mkdtemp(dir))
		return 1;
	snprintf(raw, sizeof(raw), "%s/raw.77", dir);
	snprintf(db, sizeof(db), "%s/p.sqlite", dir);
	snprintf(out, sizeof(out), "%s/t.json", dir);
	synth_profile(raw, db);

	CHECK_INT(gd_export_perfetto(db, out), GD_OK);
	snprintf(cmd, sizeof(cmd),
		 "python3 tests/cli/check_trace.py '%s' kernels=600 flows=600 lanes=1 'name=\"quoted\" & ' "
		 "'name=</script>' 'name=line\nbreak' name=vectorized_elementwise_kernel 'name=\xef\xbf\xbd' "
		 "'counter=SM clock'",
		 out);
	CHECK_INT(system(cmd), 0);
	/* Not a profile → GD_EDATA, no output file. */
	CHECK_INT(gd_export_perfetto(raw, out), GD_EDATA);
	hostile(dir, db);
	pm_tracks(dir, db);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	CHECK_INT(system(cmd), 0);
	return TEST_DONE();
}
