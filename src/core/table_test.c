/* CPU-tier tests of the table writer (core/table.h): RFC 4180 quoting in CSV, the same rule
 * with tabs in TSV, unknown values, several tables and --table, JSON rows, and the choice of
 * a format from --format / --json / --table. */
#include "core/json.h"
#include "core/status.h"
#include "core/table.h"
#include "core/test.h"

#include <math.h>
#include <stdlib.h>

static const char *const cols[] = {"name", "count", "ns", "ok"};

/* Two tables, "a" (two rows) and "b" (one), written in format fmt keeping only `want`. */
static char *write_two(int fmt, const char *want, int several)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct gd_json j;
	struct gd_tw w;
	gd_json_init(&j, f, 0);
	gd_tw_init(&w, f, fmt, &j, want, several);
	if (fmt == GD_FMT_JSON)
		gd_json_obj(&j, NULL);
	if (gd_tw_begin(&w, "a", "a_rows", cols, 4)) {
		gd_tw_row(&w);
		gd_tw_str(&w, "k(float*, int)"); /* a comma: quoted in CSV, not in TSV */
		gd_tw_int(&w, 4000);
		gd_tw_num(&w, 881.25);
		gd_tw_bool(&w, 1);
		gd_tw_row_end(&w);
		gd_tw_row(&w);
		gd_tw_str(&w, "say \"hi\"\tthere\nnext");
		gd_tw_null(&w);
		gd_tw_num(&w, NAN);
		/* the last cell left out: unknown */
		gd_tw_row_end(&w);
	}
	gd_tw_end(&w);
	if (gd_tw_begin(&w, "b", NULL, cols, 2)) {
		gd_tw_row(&w);
		gd_tw_str(&w, NULL);
		gd_tw_num(&w, 1e20);
		gd_tw_str(&w, "dropped: past the table's columns");
		gd_tw_row_end(&w);
	}
	gd_tw_end(&w);
	if (fmt == GD_FMT_JSON) {
		gd_json_obj_end(&j);
		gd_json_end(&j);
	}
	fclose(f);
	return buf;
}

static void test_csv(void)
{
	char *s = write_two(GD_FMT_CSV, NULL, 1);
	CHECK_STR(s, "# table: a\n"
		     "name,count,ns,ok\n"
		     "\"k(float*, int)\",4000,881.25,true\n"
		     "\"say \"\"hi\"\"\tthere\nnext\",,,\n"
		     "\n# table: b\n"
		     "name,count\n"
		     ",1e+20\n");
	free(s);
	/* --table: one plain table, no marker */
	s = write_two(GD_FMT_CSV, "b", 1);
	CHECK_STR(s, "name,count\n,1e+20\n");
	free(s);
	/* a command of one table: no marker either */
	s = write_two(GD_FMT_CSV, "a", 0);
	CHECK(strncmp(s, "name,count,ns,ok\n", 17) == 0);
	free(s);
}

static void test_tsv(void)
{
	char *s = write_two(GD_FMT_TSV, "a", 1);
	CHECK_STR(s, "name\tcount\tns\tok\n"
		     "k(float*, int)\t4000\t881.25\ttrue\n"
		     "\"say \"\"hi\"\"\tthere\nnext\"\t\t\t\n");
	free(s);
}

static void test_json_rows(void)
{
	char *s = write_two(GD_FMT_JSON, NULL, 1);
	CHECK_STR(s, "{\"a_rows\":[{\"name\":\"k(float*, int)\",\"count\":4000,\"ns\":881.25,\"ok\":true},"
		     "{\"name\":\"say \\\"hi\\\"\\tthere\\nnext\",\"count\":null,\"ns\":null,\"ok\":null}],"
		     "\"b\":[{\"name\":null,\"count\":1e+20}]}\n");
	free(s);
}

static void test_pick(void)
{
	static const char *const tables[] = {"kernels", "api", NULL};
	int f = -1;
	gd_set_quiet(1);
	CHECK_INT(gd_format_pick("t", NULL, 0, tables, NULL, &f), GD_OK);
	CHECK_INT(f, GD_FMT_TERMINAL);
	CHECK_INT(gd_format_pick("t", NULL, 1, tables, NULL, &f), GD_OK);
	CHECK_INT(f, GD_FMT_JSON);
	CHECK_INT(gd_format_pick("t", "json", 1, tables, NULL, &f), GD_OK); /* --json --format json agree */
	CHECK_INT(gd_format_pick("t", "tsv", 0, tables, "api", &f), GD_OK);
	CHECK_INT(f, GD_FMT_TSV);
	CHECK_INT(gd_format_pick("t", "csv", 1, tables, NULL, &f), GD_EUSAGE);      /* two formats */
	CHECK_INT(gd_format_pick("t", "xml", 0, tables, NULL, &f), GD_EUSAGE);      /* unknown */
	CHECK_INT(gd_format_pick("t", "csv", 0, tables, "nvtx", &f), GD_EUSAGE);    /* no such table */
	CHECK_INT(gd_format_pick("t", NULL, 0, tables, "api", &f), GD_EUSAGE);      /* --table needs csv/tsv */
	CHECK_INT(gd_format_pick("t", "csv", 0, NULL, "api", &f), GD_EUSAGE);       /* a command of one table */
	CHECK_STR(gd_format_name(GD_FMT_CSV), "csv");
	gd_set_quiet(0);
}

int main(void)
{
	test_csv();
	test_tsv();
	test_json_rows();
	test_pick();
	return TEST_DONE();
}
