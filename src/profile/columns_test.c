/* The column declarations (columns.h) against schema.sql, the statements built from them, and
 * the fields that reach memory only through them: kernels.graph_id, non-blocking streams, the
 * process list; the GPU-metrics columns against pm_metrics.c; and gd_profile_peek. */
#include "core/status.h"
#include "core/test.h"
#include "profile/columns.h"
#include "profile/pm_metrics.h"
#include "profile/profile.h"
#include "profile/schema.h"
#include "profile/writer.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void test_declarations(void)
{
	sqlite3 *db;
	char sql[4096];
	CHECK_INT(sqlite3_open(":memory:", &db), SQLITE_OK);
	CHECK_INT(sqlite3_exec(db, gd_profile_schema_sql, NULL, NULL, NULL), SQLITE_OK);
	for (int t = 0; t < GD_T_COUNT; t++) {
		const struct gd_table *tb = &gd_tables[t];
		sqlite3_stmt *s;
		int nschema = 0;
		CHECK(tb->name != NULL && tb->ncols > 0);
		if (!tb->name)
			continue;
		snprintf(sql, sizeof(sql), "SELECT name, type FROM pragma_table_info('%s')", tb->name);
		CHECK_INT(sqlite3_prepare_v2(db, sql, -1, &s, NULL), SQLITE_OK);
		while (sqlite3_step(s) == SQLITE_ROW)
			nschema++;
		CHECK(nschema > 0); /* the table exists */
		for (int i = 0; i < tb->ncols; i++) {
			int found = 0;
			sqlite3_reset(s);
			while (sqlite3_step(s) == SQLITE_ROW)
				if (!strcmp((const char *)sqlite3_column_text(s, 0), tb->cols[i].name)) {
					found = 1;
					if (strcmp((const char *)sqlite3_column_text(s, 1), tb->cols[i].type)) {
						fprintf(stderr, "%s.%s: declared %s, schema.sql says %s\n", tb->name,
							tb->cols[i].name, tb->cols[i].type, sqlite3_column_text(s, 1));
						found = 2;
					}
				}
			if (found != 1)
				fprintf(stderr, "%s.%s: %s\n", tb->name, tb->cols[i].name,
					found ? "type differs" : "not in schema.sql");
			CHECK_INT(found, 1);
			for (int j = 0; j < i; j++)
				CHECK(strcmp(tb->cols[i].name, tb->cols[j].name)); /* declared once */
		}
		sqlite3_finalize(s);
		/* the writer's and the reader's statements prepare */
		CHECK(gd_table_insert_sql(tb, sql, sizeof(sql)) > 0);
		CHECK_INT(sqlite3_prepare_v2(db, sql, -1, &s, NULL), SQLITE_OK);
		CHECK_INT(sqlite3_bind_parameter_count(s), tb->ncols);
		sqlite3_finalize(s);
		if (tb->read_tail) {
			int nread = 0;
			for (int i = 0; i < tb->ncols; i++)
				nread += tb->cols[i].read;
			CHECK(gd_table_select_sql(tb, sql, sizeof(sql)) > 0);
			CHECK_INT(sqlite3_prepare_v2(db, sql, -1, &s, NULL), SQLITE_OK);
			CHECK_INT(sqlite3_column_count(s), nread);
			sqlite3_finalize(s);
		}
	}
	/* too small a buffer is refused, not cut */
	CHECK_INT(gd_table_insert_sql(&gd_tables[GD_T_KERNELS], sql, 40), -1);
	CHECK_INT(gd_table_select_sql(&gd_tables[GD_T_KERNELS], sql, 40), -1);
	sqlite3_close(db);
}

/* The GPU-metrics columns are pm_metrics.c's quantities, each once, in enum order, at the
 * end of both tables (the writer's attribution reads quantity m from column 3 + m). */
#define PM_NAME(X, col, m) {#col, m},
static void test_pm_columns(void)
{
	static const struct {
		const char *col;
		int m;
	} q[] = {GD_PM_QUANTITIES(PM_NAME, _)};
	static const int tables[] = {GD_T_GPU_METRICS, GD_T_KERNEL_METRICS};
	CHECK_INT(sizeof(q) / sizeof(q[0]), GD_PM_COUNT);
	for (int i = 0; i < (int)(sizeof(q) / sizeof(q[0])); i++) {
		CHECK_INT(q[i].m, i);
		if (q[i].m >= 0 && q[i].m < GD_PM_COUNT)
			CHECK_STR(q[i].col, gd_pm_metrics[q[i].m].column);
	}
	for (int t = 0; t < 2; t++) {
		const struct gd_table *tb = &gd_tables[tables[t]];
		/* kernel_metrics ends with the derived dram_bps */
		CHECK_INT(tb->ncols, 3 + GD_PM_COUNT + (tables[t] == GD_T_KERNEL_METRICS));
		for (int m = 0; m < GD_PM_COUNT && 3 + m < tb->ncols; m++) {
			CHECK_STR(tb->cols[3 + m].name, gd_pm_metrics[m].column);
			CHECK_STR(tb->cols[3 + m].type, "REAL");
		}
	}
	CHECK_STR(gd_tables[GD_T_GPU_METRICS].name, "gpu_metrics");
	CHECK_STR(gd_tables[GD_T_GPU_METRICS].cols[1].name, "t_start");
	CHECK_STR(gd_tables[GD_T_KERNEL_METRICS].name, "kernel_metrics");
	CHECK_STR(gd_tables[GD_T_KERNEL_METRICS].cols[2].name, "samples");
}

static int exec(const char *path, const char *sql)
{
	sqlite3 *db;
	int rc;
	if (sqlite3_open(path, &db) != SQLITE_OK)
		return -1;
	rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
	sqlite3_close(db);
	return rc;
}

/* A profile written from a synthetic raw file (100 kernels alternating stream 7, the legacy
 * stream, and stream 13, created non-blocking; one copy on stream 7), read back. */
static void test_new_fields(const char *dir)
{
	char raw[256], db[256], err[256], why[1200];
	struct gd_pw *w;
	struct gd_raw_stats st;
	struct gd_profile p;
	struct gd_profile_facts f;
	snprintf(raw, sizeof(raw), "%s/raw.500", dir);
	snprintf(db, sizeof(db), "%s/n.sqlite", dir);
	CHECK_INT(gd_raw_synth(raw, 500, 100, NULL, 0, 1000000000000ull), 0);
	CHECK_INT(gd_pw_open(&w, db), GD_OK);
	CHECK_INT(gd_pw_add_raw(w, raw, &st, err, sizeof(err)), GD_OK);
	CHECK_INT(gd_pw_child(w, 501, "child", 1000, 2000, 3, 0), GD_OK);
	CHECK_INT(gd_pw_close(w, 1), GD_OK);
	CHECK_INT(exec(db, "UPDATE kernels SET graph_id = 42 WHERE correlation = 2"), SQLITE_OK);

	CHECK_INT(gd_profile_load(db, &p, why, sizeof(why)), GD_OK);
	CHECK_INT(p.nk, 100);
	if (p.nk == 100) {
		/* kernel i has correlation i + 1 and stream 13 when i is odd */
		CHECK_INT(p.k[0].stream, 7);
		CHECK_INT(p.k[0].nonblocking, 0);
		CHECK_INT(p.k[0].legacy, 1);
		CHECK_INT(p.k[1].stream, 13);
		CHECK_INT(p.k[1].nonblocking, 1);
		CHECK_INT(p.k[1].legacy, 0);
		CHECK_INT(p.k[1].graph_id, 42);
		CHECK_INT(p.k[3].graph_id, 0); /* NULL: not in a graph */
	}
	CHECK_INT(p.nc, 1);
	if (p.nc == 1)
		CHECK_INT(p.c[0].nonblocking, 0);
	CHECK_INT(p.nproc, 2);
	if (p.nproc == 2) {
		CHECK_INT(p.proc[0].pid, 500);
		CHECK_INT(p.proc[0].ppid, 1);
		CHECK_INT(p.proc[0].traced, 1);
		CHECK_STR(p.proc[0].status, "ok");
		CHECK_INT(p.proc[0].exit_code, -1);
		CHECK_INT(p.proc[0].exit_signal, -1);
		CHECK_INT(p.proc[1].pid, 501);
		CHECK_INT(p.proc[1].ppid, getpid());
		CHECK_INT(p.proc[1].traced, 0);
		CHECK_STR(p.proc[1].status, "no_cuda");
		CHECK_INT(p.proc[1].exit_code, 3);
		CHECK_INT(p.proc[1].exit_signal, -1); /* 0 = exited normally: stored as NULL */
	}
	gd_profile_free(&p);

	/* the copies' stream made non-blocking */
	CHECK_INT(exec(db, "UPDATE streams SET flags = 2 WHERE stream = 7"), SQLITE_OK);
	CHECK_INT(gd_profile_load(db, &p, why, sizeof(why)), GD_OK);
	CHECK_INT(p.nc, 1);
	if (p.nc == 1)
		CHECK_INT(p.c[0].nonblocking, 1);
	gd_profile_free(&p);

	CHECK_INT(gd_profile_peek(db, &f), GD_OK);
	CHECK_INT(f.kernels, 100);
	CHECK_INT(f.copies, 1);
	CHECK_INT(f.processes, 2);
	CHECK_INT(f.traced, 1);
	CHECK_INT(f.dropped, -1); /* no rows: SUM is NULL */
	CHECK_INT(f.nuntraced, 1);
	if (f.nuntraced == 1) {
		CHECK_INT(f.untraced[0].pid, 501);
		CHECK_STR(f.untraced[0].status, "no_cuda");
	}
	CHECK_INT(f.kl_ok, 0); /* no --metrics: the tables are empty */
	CHECK_INT(f.kl_rejected, 0);
	gd_profile_facts_free(&f);
	/* --metrics launches: 3 profiled of 2 kernels (11 and 17 passes), 2 skipped, 2 names refused */
	CHECK_INT(exec(db, "INSERT INTO strings VALUES (9001, 'kA'), (9002, 'kB');"
			   "INSERT INTO metric_launches (pid, correlation, device, name, nth, passes, status) VALUES "
			   "(500, 1, 0, 9001, 0, 17, 'ok'), (500, 2, 0, 9001, 1, 17, 'ok'), (500, 3, 0, 9002, 0, 11, 'ok'), "
			   "(500, 4, 0, 9002, 1, 0, 'cooperative'), (500, 5, 0, 9002, 2, 0, 'over budget');"
			   "INSERT INTO meta VALUES ('metrics_rejected', ' a__x  b__y ')"),
		  SQLITE_OK);
	CHECK_INT(gd_profile_peek(db, &f), GD_OK);
	CHECK_INT(f.kl_ok, 3);
	CHECK_INT(f.kl_kernels, 2);
	CHECK_INT(f.kl_passes_min, 11);
	CHECK_INT(f.kl_passes_max, 17);
	CHECK_INT(f.kl_skipped[GD_KL_SKIP_COOPERATIVE], 1);
	CHECK_INT(f.kl_skipped[GD_KL_SKIP_LIMIT], 1);
	CHECK_INT(f.kl_skipped[GD_KL_SKIP_GRAPH], 0);
	CHECK_INT(f.kl_rejected, 2);
	gd_profile_facts_free(&f);
	snprintf(db, sizeof(db), "%s/missing.sqlite", dir);
	CHECK_INT(gd_profile_peek(db, &f), GD_EDATA);
	CHECK_INT(f.kernels, -1);
	CHECK_INT(f.nuntraced, 0);
}

int main(void)
{
	char dir[] = "/tmp/gd_columns_test.XXXXXX", cmd[300];
	gd_set_quiet(1);
	if (!mkdtemp(dir))
		return 1;
	test_declarations();
	test_pm_columns();
	test_new_fields(dir);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
	return TEST_DONE();
}
