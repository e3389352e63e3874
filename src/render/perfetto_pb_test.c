/* CPU-tier test of the native Perfetto export (perfetto_pb.c) and its wire encoder
 * (perfetto_wire.h): the encoder's bytes worked by hand; a synthetic profile with hostile
 * names and overlapping kernels read back by tests/cli/pftrace.py against its JSON export;
 * interning tables that overflow (the sequence is cleared and starts again); damaged and
 * hostile profiles (no file, or a valid trace without the impossible rows); GPU counters. */
#include "core/status.h"
#include "core/test.h"
#include "profile/writer.h"
#include "render/perfetto.h"
#include "render/perfetto_testlib.h"
#include "render/perfetto_wire.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int bytes_are(const struct gd_pb *b, const unsigned char *want, size_t n)
{
	return b->n == n && !memcmp(b->p, want, n);
}

static void wire(void)
{
	struct gd_pb b = {0};
	size_t outer, inner;
	/* varints: 7 bits a byte, least significant first, the top bit "more follows" */
	gd_pb_varint(&b, 0);
	gd_pb_varint(&b, 127);
	gd_pb_varint(&b, 128);
	gd_pb_varint(&b, 300);
	{
		static const unsigned char w[] = {0x00, 0x7f, 0x80, 0x01, 0xac, 0x02};
		CHECK(bytes_are(&b, w, sizeof(w)));
	}
	b.n = 0;
	gd_pb_varint(&b, UINT64_MAX); /* ten bytes: nine of 0xff, then 0x01 */
	CHECK_INT(b.n, 10);
	CHECK_INT(b.p[9], 1);
	CHECK_INT(b.p[0], 0xff);
	/* tags: field 8 varint = 0x40; field 60 length-delimited = 0xe2 0x03; field 47 fixed64 */
	b.n = 0;
	gd_pb_uint(&b, 8, 5);
	gd_pb_tag(&b, 60, GD_PB_LEN);
	gd_pb_fixed64(&b, 47, 0x0102030405060708ULL);
	{
		static const unsigned char w[] = {0x40, 0x05, 0xe2, 0x03, 0xf9, 0x02, 8, 7, 6, 5, 4, 3, 2, 1};
		CHECK(bytes_are(&b, w, sizeof(w)));
	}
	/* a double is its IEEE bits, little-endian: 1.0 = 0x3ff0000000000000 */
	b.n = 0;
	gd_pb_double(&b, 44, 1.0);
	{
		static const unsigned char w[] = {0xe1, 0x02, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f};
		CHECK(bytes_are(&b, w, sizeof(w)));
	}
	/* nested messages: a short one keeps its reserved byte; a body of 200 bytes needs two
	 * length bytes, so it moves up one and the enclosing length counts it */
	b.n = 0;
	outer = gd_pb_open(&b, 1);
	inner = gd_pb_open(&b, 2);
	gd_pb_str(&b, 3, "ab");
	gd_pb_close(&b, inner);
	gd_pb_close(&b, outer);
	{
		static const unsigned char w[] = {0x0a, 6, 0x12, 4, 0x1a, 2, 'a', 'b'};
		CHECK(bytes_are(&b, w, sizeof(w)));
	}
	b.n = 0;
	outer = gd_pb_open(&b, 1);
	inner = gd_pb_open(&b, 2);
	for (int i = 0; i < 200; i++)
		gd_pb_varint(&b, 0x55);
	gd_pb_close(&b, inner);
	gd_pb_close(&b, outer);
	/* outer: 0x0a, len 203 = 0xcb 0x01; inner: 0x12, len 200 = 0xc8 0x01, then the body */
	CHECK_INT(b.n, 3 + 3 + 200);
	CHECK_INT(b.p[0], 0x0a);
	CHECK_INT(b.p[1], 0xcb);
	CHECK_INT(b.p[2], 0x01);
	CHECK_INT(b.p[3], 0x12);
	CHECK_INT(b.p[4], 0xc8);
	CHECK_INT(b.p[5], 0x01);
	CHECK_INT(b.p[6], 0x55);
	CHECK_INT(b.p[205], 0x55);
	/* growth keeps the bytes: 100 000 of them through the 4 KiB start */
	b.n = 0;
	outer = gd_pb_open(&b, 1);
	for (int i = 0; i < 100000; i++)
		gd_pb_varint(&b, (uint64_t)(i & 0x7f));
	gd_pb_close(&b, outer);
	CHECK_INT(b.n, 1 + 3 + 100000); /* 100 000 = 0xa0 0x8d 0x06 */
	CHECK_INT(b.p[1], 0xa0);
	CHECK_INT(b.p[4 + 99999], 99999 & 0x7f);
	CHECK(!b.oom);
	gd_pb_free(&b);
}


/* pftrace.py on out (with the JSON export of db when json is set) and expectations. */
static int read_back(const char *dir, const char *db, const char *out, int json, const char *want)
{
	char cmd[2048], js[300];
	snprintf(js, sizeof(js), "%s/cmp.json", dir);
	if (json && gd_export_perfetto(db, js) != GD_OK)
		return -1;
	snprintf(cmd, sizeof(cmd), "python3 tests/cli/pftrace.py '%s' %s%s%s %s >'%s/pf.out' 2>&1 || { cat '%s/pf.out' >&2; exit 1; }",
		 out, json ? "--json '" : "", json ? js : "", json ? "'" : "", want, dir, dir);
	return system(cmd);
}

static void hostile(const char *dir, const char *db)
{
	char v[300], out[300];
	snprintf(v, sizeof(v), "%s/v.sqlite", dir);
	snprintf(out, sizeof(out), "%s/h.pftrace", dir);

	/* cut short: the rows stop at "database disk image is malformed"; no file */
	CHECK_INT(cut_half(db, v), 0);
	unlink(out);
	CHECK_INT(gd_export_perfetto_pb(v, out), GD_EDATA);
	CHECK(access(out, F_OK) != 0);
	/* a page of a recorded profile zeroed: the schema reads, the events stop midway */
	CHECK_INT(zero_page(v), 0);
	CHECK_INT(gd_export_perfetto_pb(v, out), GD_EDATA);
	CHECK(access(out, F_OK) != 0);

	/* impossible times and ids at the limits: those rows are left out, the rest is a valid
	 * trace; the launches of the two kernels left out begin arrows that end nowhere, which
	 * Perfetto ignores (the matching reads only the indexes: trace_rows.c) */
	CHECK_INT(variant(db, v, hostile_rows_sql), 0);
	CHECK_INT(gd_export_perfetto_pb(v, out), GD_OK);
	CHECK_INT(read_back(dir, v, out, 1, "kernels=598 flows=596 unbound=2"), 0);
	/* an impossible recorded start */
	CHECK_INT(variant(db, v, "UPDATE meta SET value = '-9223372036854775808' WHERE key = 'start_ns';"), 0);
	CHECK_INT(gd_export_perfetto_pb(v, out), GD_OK);
	CHECK_INT(read_back(dir, v, out, 1, "kernels=600 flows=600"), 0);
	/* a view in place of a table, a version that only starts with the digit: refused */
	unlink(out);
	CHECK_INT(variant(db, v,
			  "DROP TABLE kernels; CREATE VIEW kernels AS WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL "
			  "SELECT x + 1 FROM r) SELECT x AS id FROM r;"),
		  0);
	CHECK_INT(gd_export_perfetto_pb(v, out), GD_EDATA);
	CHECK(access(out, F_OK) != 0);
	CHECK_INT(variant(db, v, "UPDATE meta SET value = '1abc' WHERE key = 'schema_version';"), 0);
	CHECK_INT(gd_export_perfetto_pb(v, out), GD_EDATA);
	CHECK(access(out, F_OK) != 0);
	/* 20 overlapping kernels on one stream: 16 lanes, the rest nest on the last one, cut to
	 * end inside it (recorded_end_ns keeps the truth) */
	CHECK_INT(variant(db, v, "UPDATE kernels SET stream = 7, start = 1000000100000 + correlation, "
				 "end = 1000000200000 + 2 * correlation WHERE correlation <= 20;"
				 "UPDATE api SET start = 1000000000000 + correlation, end = 1000000000001 + correlation "
				 "WHERE correlation <= 20;"),
		  0);
	CHECK_INT(gd_export_perfetto_pb(v, out), GD_OK);
	CHECK_INT(read_back(dir, v, out, 0, "kernels=600 flows=600 arg=recorded_end_ns 'track=#16'"), 0);
	/* API calls whose correlations run backwards (threads racing for ids): each arrow found */
	CHECK_INT(variant(db, v, "UPDATE api SET correlation = 1000 - correlation; UPDATE kernels SET correlation = 1000 - correlation;"), 0);
	CHECK_INT(gd_export_perfetto_pb(v, out), GD_OK);
	CHECK_INT(read_back(dir, v, out, 1, "kernels=600 flows=600"), 0);
	/* a launch that ran two kernels (a graph): two arrows from one call */
	CHECK_INT(variant(db, v, "UPDATE kernels SET correlation = 3 WHERE correlation = 4; DELETE FROM api WHERE correlation = 4;"), 0);
	CHECK_INT(gd_export_perfetto_pb(v, out), GD_OK);
	CHECK_INT(read_back(dir, v, out, 1, "kernels=600 flows=600"), 0);
}

/* More distinct names than an interning table holds: the sequence is cleared, the names
 * defined again, and every kernel keeps its own name. */
static void overflow(const char *dir)
{
	char raw[300], db[300], out[300], err[256];
	struct gd_pw *w;
	struct gd_raw_stats st;
	sqlite3 *h;
	snprintf(raw, sizeof(raw), "%s/raw.78", dir);
	snprintf(db, sizeof(db), "%s/o.sqlite", dir);
	snprintf(out, sizeof(out), "%s/o.pftrace", dir);
	CHECK_INT(gd_raw_synth(raw, 78, 70000, NULL, 0, 1000000000000ull), 0);
	CHECK_INT(gd_pw_open(&w, db), GD_OK);
	CHECK_INT(gd_pw_meta_int(w, "start_ns", 1000000000000LL), GD_OK);
	CHECK_INT(gd_pw_add_raw(w, raw, &st, err, sizeof(err)), GD_OK);
	CHECK_INT(gd_pw_capture(w, "all", 0, 1LL << 62, 0, 0), 1);
	CHECK_INT(gd_pw_close(w, 1), GD_OK);
	CHECK_INT(sqlite3_open(db, &h), SQLITE_OK);
	/* every kernel on one stream, with a name of its own */
	CHECK_INT(sqlite3_exec(h,
			       "INSERT INTO strings(id, value) SELECT 1000000 + correlation, 'kernel_' || correlation FROM kernels;"
			       "UPDATE kernels SET stream = 7, short_name = 1000000 + correlation;",
			       NULL, NULL, NULL),
		  SQLITE_OK);
	sqlite3_close(h);
	CHECK_INT(gd_export_perfetto_pb(db, out), GD_OK);
	CHECK_INT(read_back(dir, db, out, 1, "kernels=70000 name=kernel_69999 name=kernel_1"), 0);
}

/* GPU counters: one counter track per device and quantity under "GPU n (counters)". */
static void pm(const char *dir, const char *db)
{
	char v[300], out[300], cmd[1200];
	snprintf(v, sizeof(v), "%s/pm.sqlite", dir);
	snprintf(out, sizeof(out), "%s/pm.pftrace", dir);
	CHECK_INT(variant(db, v,
			  "CREATE TABLE gpu_metrics(device INTEGER, t_start INTEGER, t_end INTEGER, sm_active_pct REAL, dram_pct REAL);"
			  "WITH RECURSIVE r(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM r WHERE i < 49) "
			  "INSERT INTO gpu_metrics SELECT 0, 1000000500000 + i * 100000, 1000000600000 + i * 100000, 50 + i * 0.5, "
			  "CASE WHEN i % 2 THEN NULL ELSE 12.25 END FROM r;"),
		  0);
	CHECK_INT(gd_export_perfetto_pb(v, out), GD_OK);
	CHECK_INT(read_back(dir, v, out, 1, "'counter=GPU 0 · SM active %' 'counter=GPU 0 · DRAM %'"), 0);
	/* 50 SM-active values 50 .. 74.5, 25 DRAM values (the NULLs left out), each at its start */
	snprintf(cmd, sizeof(cmd),
		 "python3 -c 'import sys; sys.path.insert(0, \"tests/cli\"); import pftrace\n"
		 "tr = pftrace.Trace(sys.argv[1]); assert not tr.fail\n"
		 "c = {}\n"
		 "for t, ts, v in tr.counters: c.setdefault(tr.path(t), []).append((ts, v))\n"
		 "sm = sorted(c[(\"GPU 0 (counters)\", \"GPU 0 · SM active %%\")])\n"
		 "assert len(sm) == 50 and sm[0] == (1000000500000, 50.0) and sm[-1] == (1000005400000, 74.5), sm\n"
		 "dr = c[(\"GPU 0 (counters)\", \"GPU 0 · DRAM %%\")]\n"
		 "assert len(dr) == 25 and all(v == 12.25 for _, v in dr), dr' '%s'",
		 out);
	CHECK_INT(system(cmd), 0);
}

int main(void)
{
	char dir[] = "/tmp/gd_perfetto_pb_test.XXXXXX", raw[256], db[256], out[256], cmd[1024];
	gd_set_quiet(1);
	wire();
	if (!mkdtemp(dir))
		return 1;
	snprintf(raw, sizeof(raw), "%s/raw.77", dir);
	snprintf(db, sizeof(db), "%s/p.sqlite", dir);
	snprintf(out, sizeof(out), "%s/t.pftrace", dir);
	synth_profile(raw, db);

	CHECK_INT(gd_export_perfetto_pb(db, out), GD_OK);
	/* hostile names survive as bytes: quotes, </script>, a newline, invalid UTF-8 (read back
	 * as U+FFFD, as the JSON writes it) */
	CHECK_INT(read_back(dir, db, out, 1,
			    "kernels=600 flows=600 lanes=1 'name=\"quoted\" & ' 'name=</script>' 'name=line\nbreak' "
			    "name=vectorized_elementwise_kernel 'counter=SM clock'"),
		  0);
	/* not a profile: GD_EDATA, no file */
	unlink(out);
	CHECK_INT(gd_export_perfetto_pb(raw, out), GD_EDATA);
	CHECK(access(out, F_OK) != 0);
	hostile(dir, db);
	overflow(dir);
	pm(dir, db);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	CHECK_INT(system(cmd), 0);
	return TEST_DONE();
}
