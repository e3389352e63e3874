/* CPU-tier tests of the core helpers: JSON writer and escaping, option and size parsing,
 * statistics, number formatting, tables, SVG escaping, atomic files. */
#include "core/cli.h"
#include "core/fileio.h"
#include "core/json.h"
#include "core/out.h"
#include "core/stats.h"
#include "core/status.h"
#include "core/svg.h"
#include "core/test.h"

#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* Runs fn into a memory stream and returns the text (static buffer). */
static char *capture(void (*fn)(FILE *))
{
	static char buf[8192];
	FILE *f = fmemopen(buf, sizeof(buf) - 1, "w");
	fn(f);
	fclose(f);
	return buf;
}

static void json_doc(FILE *f)
{
	struct gd_json j;
	gd_json_init(&j, f, 0);
	gd_json_obj(&j, NULL);
	gd_json_str(&j, "name", "void k<float, \"x\">(a\\b)\n\t\x01");
	gd_json_num(&j, "nan", NAN);
	gd_json_num(&j, "int", 42.0);
	gd_json_num(&j, "frac", 0.25);
	gd_json_arr(&j, "a");
	gd_json_int(&j, NULL, 1);
	gd_json_bool(&j, NULL, 0);
	gd_json_null(&j, NULL);
	gd_json_obj(&j, NULL);
	gd_json_obj_end(&j);
	gd_json_arr_end(&j);
	gd_json_arr(&j, "empty");
	gd_json_arr_end(&j);
	gd_json_obj_end(&j);
}

static void json_utf8(FILE *f)
{
	gd_json_escape(f, "ok é \xff bad \xe2\x82 trunc \xf0\x9f\x98\x80 emoji");
}

static void test_json(void)
{
	CHECK_STR(capture(json_doc), "{\"name\":\"void k<float, \\\"x\\\">(a\\\\b)\\n\\t\\u0001\",\"nan\":null,"
				     "\"int\":42,\"frac\":0.25,\"a\":[1,false,null,{}],\"empty\":[]}");
	CHECK_STR(capture(json_utf8), "\"ok é \\ufffd bad \\ufffd\\ufffd trunc \xf0\x9f\x98\x80 emoji\"");
}

static void test_cli(void)
{
	long long v;
	int i, flag = 0, n = 0, npos = 0;
	const char *s = NULL;
	double d;
	char *pos[4];
	char a0[] = "--flag", a1[] = "--num=7", a2[] = "--str", a3[] = "hello", a4[] = "file", a5[] = "--",
	     a6[] = "--not-an-option";
	char *argv[] = {a0, a1, a2, a3, a4, a5, a6};
	struct gd_opt opts[] = {{"flag", GD_OPT_FLAG, &flag, NULL, "a flag"},
				{"num", GD_OPT_INT, &n, "N", "a number"},
				{"str", GD_OPT_STR, &s, "S", "a string"},
				{NULL, 0, NULL, NULL, NULL}};
	CHECK(gd_parse_size("48K", &v) == 0 && v == 49152);
	CHECK(gd_parse_size("48KiB", &v) == 0 && v == 49152);
	CHECK(gd_parse_size("1.5M", &v) == 0 && v == 1572864);
	CHECK(gd_parse_size("2G", &v) == 0 && v == 2147483648LL);
	CHECK(gd_parse_size("4096", &v) == 0 && v == 4096);
	CHECK(gd_parse_size("-1", &v) != 0);
	CHECK(gd_parse_size("12Q", &v) != 0);
	CHECK(gd_parse_size("", &v) != 0);
	CHECK(gd_parse_size("0.3", &v) != 0); /* not a whole number of bytes */
	CHECK(gd_parse_int("12", &i) == 0 && i == 12);
	CHECK(gd_parse_int("12x", &i) != 0);
	CHECK(gd_parse_int("99999999999", &i) != 0);
	CHECK(gd_parse_double("1e3", &d) == 0 && d == 1000);
	CHECK(gd_parse_double("nan", &d) != 0);
	gd_set_quiet(1);
	CHECK_INT(gd_parse_opts("t", 7, argv, opts, pos, 4, &npos, 0), GD_OK);
	CHECK_INT(flag, 1);
	CHECK_INT(n, 7);
	CHECK_STR(s, "hello");
	CHECK_INT(npos, 2);
	CHECK_STR(pos[0], "file");
	CHECK_STR(pos[1], "--not-an-option"); /* after "--" everything is positional */
	{
		char b0[] = "--bogus";
		char *bad[] = {b0};
		CHECK_INT(gd_parse_opts("t", 1, bad, opts, pos, 4, &npos, 0), GD_EUSAGE);
	}
	{
		char b0[] = "--num", b1[] = "x";
		char *bad[] = {b0, b1};
		CHECK_INT(gd_parse_opts("t", 2, bad, opts, pos, 4, &npos, 0), GD_EUSAGE);
	}
	{
		char b0[] = "--num";
		char *bad[] = {b0};
		CHECK_INT(gd_parse_opts("t", 1, bad, opts, pos, 4, &npos, 0), GD_EUSAGE);
	}
	{
		char b0[] = "--flag=1";
		char *bad[] = {b0};
		CHECK_INT(gd_parse_opts("t", 1, bad, opts, pos, 4, &npos, 0), GD_EUSAGE);
	}
	{
		char b0[] = "run", b1[] = "--flag";
		char *raw[] = {b0, b1};
		flag = 0;
		CHECK_INT(gd_parse_opts("t", 2, raw, opts, pos, 4, &npos, 1), GD_OK);
		CHECK_INT(flag, 0); /* after the first positional, options belong to the program */
		CHECK_INT(npos, 2);
	}
	/* "not given" stays told apart from every value: the sentinels are never stored, and
	 * 0 or an empty string is a value (refused or range-checked), never "the default" */
	{
		char b0[] = "--num", b1[] = "-2147483648", b2[] = "--num=0", b3[] = "--str=", b4[] = "--str", b5[] = "";
		char *unset[] = {b0, b1}, *zero[] = {b2}, *empty_eq[] = {b3}, *empty[] = {b4, b5};
		n = GD_UNSET_INT;
		CHECK_INT(gd_parse_opts("t", 2, unset, opts, pos, 4, &npos, 0), GD_EUSAGE);
		CHECK_INT(n, GD_UNSET_INT);
		CHECK_INT(gd_parse_opts("t", 1, zero, opts, pos, 4, &npos, 0), GD_OK);
		CHECK_INT(n, 0);
		s = NULL;
		CHECK_INT(gd_parse_opts("t", 1, empty_eq, opts, pos, 4, &npos, 0), GD_EUSAGE);
		CHECK_INT(gd_parse_opts("t", 2, empty, opts, pos, 4, &npos, 0), GD_EUSAGE);
		CHECK(s == NULL);
	}
	CHECK_INT(gd_parse_int("-2147483648", &i), -2); /* INT_MIN is GD_UNSET_INT */
	CHECK_INT(gd_parse_int("-2147483647", &i), 0);
	CHECK_INT(gd_parse_int("2147483648", &i), -2);
	CHECK_INT(gd_parse_int("", &i), -1);
	CHECK_INT(gd_parse_size("8G", &v), 0);
	CHECK_INT(gd_parse_size("9.1e18", &v), -2);
	CHECK_INT(gd_parse_size("1e30", &v), -2);
	CHECK_INT(gd_parse_size("-5", &v), -1); /* sizes are never negative, so never GD_UNSET_LONG */
	{
		char b[32];
		CHECK_STR(gd_fmt_size_arg(b, sizeof b, 1 << 20), "1M");
		CHECK_STR(gd_fmt_size_arg(b, sizeof b, 49152), "48K");
		CHECK_STR(gd_fmt_size_arg(b, sizeof b, 1024LL << 30), "1024G");
		CHECK_STR(gd_fmt_size_arg(b, sizeof b, 1600000000), "1600000000"); /* not 1562500K */
		CHECK_STR(gd_fmt_size_arg(b, sizeof b, 0), "0");
		CHECK_STR(gd_fmt_size_arg(b, sizeof b, 1000), "1000");
	}
	CHECK_INT(gd_opt_check_int("t", "num", 10, 10, 64, NULL), GD_OK);
	CHECK_INT(gd_opt_check_int("t", "num", 64, 10, 64, NULL), GD_OK);
	CHECK_INT(gd_opt_check_int("t", "num", 9, 10, 64, NULL), GD_EUSAGE);
	CHECK_INT(gd_opt_check_int("t", "num", 65, 10, 64, NULL), GD_EUSAGE);
	CHECK_INT(gd_opt_check_size("t", "size", 0, 1, 8LL << 30, " (bytes)"), GD_EUSAGE);
	CHECK_INT(gd_opt_check_size("t", "size", 8LL << 30, 1, 8LL << 30, " (bytes)"), GD_OK);
	CHECK_INT(gd_opt_check_double("t", "interval", 0.05, 0.05, 3600, NULL), GD_OK);
	CHECK_INT(gd_opt_check_double("t", "interval", 0.0, 0.05, 3600, NULL), GD_EUSAGE);
	CHECK_INT(gd_opt_check_double("t", "interval", NAN, 0.05, 3600, NULL), GD_EUSAGE);
}

static void test_stats(void)
{
	double v[] = {5, 1, 4, 2, 3};
	struct gd_stats s;
	gd_stats_compute(v, 5, &s);
	CHECK_NEAR(s.median, 3, 0);
	CHECK_NEAR(s.min, 1, 0);
	CHECK_NEAR(s.max, 5, 0);
	CHECK_NEAR(s.mean, 3, 1e-12);
	CHECK_NEAR(s.stdev, sqrt(2.5), 1e-12);
	CHECK_NEAR(s.p10, 1.4, 1e-12);
	CHECK_NEAR(v[0], 5, 0); /* input untouched */
	{
		double w[] = {1, 2, 3, 4};
		gd_stats_compute(w, 4, &s);
		CHECK_NEAR(s.median, 2.5, 1e-12);
	}
	gd_stats_compute(v, 0, &s);
	CHECK(isnan(s.median));
}

static void test_format(void)
{
	char b[64];
	CHECK_STR(gd_fmt_si(b, sizeof(b), 4.81e12, "B/s"), "4.81 TB/s");
	CHECK_STR(gd_fmt_si(b, sizeof(b), 66.9e12, "FLOP/s"), "66.9 TFLOP/s");
	CHECK_STR(gd_fmt_si(b, sizeof(b), 999.96, "B"), "1.00 kB");
	CHECK_STR(gd_fmt_si(b, sizeof(b), NAN, "B"), "unknown");
	CHECK_STR(gd_fmt_bytes(b, sizeof(b), 62914560), "60 MiB");
	CHECK_STR(gd_fmt_bytes(b, sizeof(b), 1536), "1.5 KiB");
	CHECK_STR(gd_fmt_time(b, sizeof(b), 2510), "2.51 µs");
	CHECK_STR(gd_fmt_time(b, sizeof(b), 16.5e6), "16.5 ms");
	CHECK_STR(gd_fmt_pct(b, sizeof(b), 0.812), "81.2 %");
	CHECK_STR(gd_fmt_time_pct(b, sizeof(b), 16.5e6, 66e6), "16.5 ms 25.0 %");
	CHECK_STR(gd_fmt_time_pct(b, sizeof(b), 16.5e6, 0), "16.5 ms unknown");
	CHECK_INT(gd_display_width("µs ◀"), 4);
	CHECK_INT(gd_display_width("\033[1mab\033[0m"), 2);
}

static void table_doc(FILE *f)
{
	struct gd_table t;
	gd_table_init(&t, 2);
	gd_table_align_right(&t, 1);
	gd_table_rowv(&t, "name", "µs");
	gd_table_rowv(&t, "a", "12.5");
	gd_table_rowv(&t, "longer", "1");
	gd_table_print(&t, f, 1);
	gd_table_free(&t);
}

static void svg_doc(FILE *f)
{
	struct gd_chart c;
	double x[] = {1, 10, 100}, y[] = {1, 100, 10000};
	gd_chart_init(&c, "a <b> & \"c\"", "x", "y");
	c.logx = c.logy = 1;
	gd_chart_add(&c, "k<T>", x, y, 3, GD_LINE_POINTS);
	gd_chart_hline(&c, 5000, "ceiling & more");
	gd_chart_svg(&c, f);
}

static void svg_long_labels(FILE *f)
{
	struct gd_chart c;
	double x[] = {1, 2}, y[] = {1, 2};
	gd_chart_init(&c, "t", "x", "y");
	gd_chart_add(&c, "FP8 tensor 1.92 PFLOP/s (ridge 497 FLOP/B), wgmma m64n256k32", x, y, 2, GD_LINE);
	gd_chart_svg(&c, f);
}

static void test_render(void)
{
	const char *svg;
	gd_out_init(stdout, 1);
	CHECK_STR(capture(table_doc), " name      µs\n a       12.5\n longer     1\n");
	svg = capture(svg_doc);
	CHECK(strstr(svg, "a &lt;b&gt; &amp; &quot;c&quot;") != NULL);
	CHECK(strstr(svg, "k&lt;T&gt;") != NULL);
	CHECK(strstr(svg, "ceiling &amp; more") != NULL);
	CHECK(strstr(svg, "<circle") != NULL);
	CHECK(strstr(svg, "</svg>") != NULL);
	CHECK(strstr(svg, "<b>") == NULL);
	/* the picture widens so a long legend label is not cut off; short ones keep 800 px */
	CHECK(strstr(svg, "width='800'") != NULL);
	svg = capture(svg_long_labels);
	CHECK(strstr(svg, "width='800'") == NULL);
	{
		int w = 0;
		const char *p = strstr(svg, "width='");
		CHECK(p && sscanf(p, "width='%d'", &w) == 1 && w == 800 + (int)(34 + 6.5 * 60) - 170); /* 60-character label */
	}
}

static void test_fileio(void)
{
	char dir[] = "/tmp/gpudiag-test-XXXXXX", path[256], cache[512];
	struct gd_atomic a;
	FILE *f;
	size_t len;
	char *text;
	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/out.txt", dir);
	f = gd_atomic_open(&a, path);
	CHECK(f != NULL);
	fputs("first", f);
	CHECK(access(path, F_OK) != 0); /* nothing visible before commit */
	CHECK_INT(gd_atomic_commit(&a), GD_OK);
	text = gd_read_file(path, &len);
	CHECK_STR(text, "first");
	free(text);
	f = gd_atomic_open(&a, path);
	fputs("second, abandoned", f);
	gd_atomic_abort(&a);
	text = gd_read_file(path, &len);
	CHECK_STR(text, "first"); /* an aborted write loses nothing */
	free(text);
	CHECK(access(a.tmp, F_OK) != 0);
	setenv("XDG_CACHE_HOME", dir, 1);
	CHECK_INT(gd_cache_dir(cache, sizeof(cache)), 0);
	CHECK(strstr(cache, "/gpudiag") != NULL);
	CHECK(access(cache, F_OK) == 0);
	gd_set_quiet(1);
	CHECK(gd_atomic_open(&a, "/nonexistent-dir/x") == NULL);
	CHECK(gd_read_file("/nonexistent-file", &len) == NULL);
	unlink(path);
	rmdir(cache);
	rmdir(dir);
}

/* What is at the output path decides how it is written (fileio.h): each case here was a
 * file destroyed or a special file replaced before. */
static void test_fileio_targets(void)
{
	char dir[] = "/tmp/gpudiag-test-XXXXXX", path[256], lnk[256], fifo[256], got[256], hard[256];
	struct gd_atomic a;
	struct stat st;
	FILE *f;
	char *text;
	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/private.txt", dir);
	snprintf(lnk, sizeof(lnk), "%s/link.txt", dir);
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	snprintf(got, sizeof(got), "%s/got.txt", dir);
	snprintf(hard, sizeof(hard), "%s/hard.txt", dir);

	/* a 0600 file stays 0600 when replaced */
	f = fopen(path, "w");
	fputs("old", f);
	fclose(f);
	CHECK(chmod(path, 0600) == 0);
	f = gd_atomic_open(&a, path);
	CHECK(f != NULL);
	fputs("new", f);
	CHECK_INT(gd_atomic_commit(&a), GD_OK);
	CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600);
	text = gd_read_file(path, NULL);
	CHECK_STR(text, "new");
	free(text);

	/* a symbolic link stays a link; the file it names gets the data */
	CHECK(symlink("private.txt", lnk) == 0);
	f = gd_atomic_open(&a, lnk);
	CHECK(f != NULL);
	fputs("through the link", f);
	CHECK_INT(gd_atomic_commit(&a), GD_OK);
	CHECK(lstat(lnk, &st) == 0 && S_ISLNK(st.st_mode));
	text = gd_read_file(path, NULL);
	CHECK_STR(text, "through the link");
	free(text);

	/* the same file under another name (link, hard link) is recognised; others are not */
	CHECK(link(path, hard) == 0);
	CHECK_INT(gd_same_file(lnk, path), 1);
	CHECK_INT(gd_same_file(hard, path), 1);
	CHECK_INT(gd_same_file(path, path), 1);
	CHECK_INT(gd_same_file(got, path), 0); /* does not exist */
	CHECK_INT(gd_same_file("-", path), 0);

	/* a FIFO is written in place, not replaced by a regular file */
	CHECK(mkfifo(fifo, 0600) == 0);
	{
		pid_t pid = fork();
		if (pid == 0) { /* reader: copy what arrives into got.txt */
			char buf[64];
			int in = open(fifo, O_RDONLY), out = open(got, O_WRONLY | O_CREAT | O_TRUNC, 0600);
			ssize_t n;
			while (in >= 0 && out >= 0 && (n = read(in, buf, sizeof(buf))) > 0)
				if (write(out, buf, (size_t)n) != n)
					break;
			_exit(0);
		}
		CHECK(pid > 0);
		f = gd_atomic_open(&a, fifo);
		CHECK(f != NULL && a.in_place == 1);
		fputs("into the pipe", f);
		CHECK_INT(gd_atomic_commit(&a), GD_OK);
		waitpid(pid, NULL, 0);
		CHECK(lstat(fifo, &st) == 0 && S_ISFIFO(st.st_mode));
		text = gd_read_file(got, NULL);
		CHECK_STR(text, "into the pipe");
		free(text);
	}

	/* a directory is refused; a link into a folder that does not exist fails cleanly */
	gd_set_quiet(1);
	CHECK(gd_atomic_open(&a, dir) == NULL);
	unlink(lnk);
	CHECK(symlink("nowhere/at/all", lnk) == 0);
	CHECK(gd_atomic_open(&a, lnk) == NULL);
	gd_set_quiet(0);

	/* a relative XDG_CACHE_HOME is ignored (XDG spec); HOME is used instead */
	{
		char cache[512], home[300];
		snprintf(home, sizeof(home), "%s/home", dir);
		setenv("XDG_CACHE_HOME", "relative/cache", 1);
		setenv("HOME", home, 1);
		CHECK_INT(gd_cache_dir(cache, sizeof(cache)), 0);
		CHECK(strncmp(cache, home, strlen(home)) == 0);
		CHECK(access("relative", F_OK) != 0);
	}
	{
		char cmd[300];
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		CHECK(system(cmd) == 0);
	}
}

int main(void)
{
	test_json();
	test_cli();
	test_stats();
	test_format();
	test_render();
	test_fileio();
	test_fileio_targets();
	return TEST_DONE();
}
