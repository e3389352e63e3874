/* Checks on a profile database before it is read (dbcheck.h). */
#include "profile/dbcheck.h"

#include "core/status.h"
#include "profile/columns.h"
#include "profile/profile.h"
#include "profile/schema.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* Reading a million-kernel profile takes a few seconds; five minutes means the database is
 * built to stall the reader (or is far beyond what gpudiag is made for). */
static double g_limit_s = 300;

void gd_profile_set_time_limit(double seconds) { g_limit_s = seconds > 0 ? seconds : 300; }

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int on_progress(void *arg)
{
	struct gd_db_guard *g = arg;
	if (!g->expired && now_s() > g->deadline)
		g->expired = 1;
	return g->expired; /* non-zero interrupts the running statement */
}

void gd_db_harden(sqlite3 *db, struct gd_db_guard *g)
{
	g->limit_s = g_limit_s;
	g->deadline = now_s() + g_limit_s;
	g->expired = 0;
	/* Functions in the file's schema (views, generated columns) may not have side effects,
	 * and the file may not be changed through odd pragmas. */
	sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, (int *)NULL);
	sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, (int *)NULL);
	/* Every 4096 virtual-machine steps: a clock read costs nothing next to them. */
	sqlite3_progress_handler(db, 4096, on_progress, g);
}

/* A copy of s with control characters as '?', so a hostile text keeps a message on one line. */
static const char *oneline(const char *s, char *buf, size_t n)
{
	size_t i;
	snprintf(buf, n, "%s", s ? s : "");
	for (i = 0; buf[i]; i++)
		if ((unsigned char)buf[i] < 0x20 || buf[i] == 0x7f)
			buf[i] = '?';
	return buf;
}

const char *gd_db_errmsg(sqlite3 *db, const struct gd_db_guard *g, char *buf, size_t n)
{
	if (g && g->expired) {
		snprintf(buf, n, "reading took longer than %g s (a malformed or hostile database?)", g->limit_s);
		return buf;
	}
	return oneline(sqlite3_errmsg(db), buf, n);
}

int gd_db_object_kind(sqlite3 *db, const char *t)
{
	sqlite3_stmt *s;
	int r, kind = 0;
	if (sqlite3_prepare_v2(db,
			       "SELECT type = 'table' AND COALESCE(sql, '') NOT LIKE 'CREATE VIRTUAL%' FROM sqlite_master "
			       "WHERE name = ? COLLATE NOCASE",
			       -1, &s, NULL) != SQLITE_OK)
		return -2;
	sqlite3_bind_text(s, 1, t, -1, SQLITE_STATIC);
	while ((r = sqlite3_step(s)) == SQLITE_ROW)
		if (kind >= 0)
			kind = sqlite3_column_int(s, 0) ? 1 : -1;
	sqlite3_finalize(s);
	return r == SQLITE_DONE ? kind : -2;
}

/* 1 when table t has column c as an ordinary stored column, 0 when not, -1 on error. */
int gd_db_has_column(sqlite3 *db, const char *t, const char *c)
{
	sqlite3_stmt *s;
	int r, found = 0;
	if (sqlite3_prepare_v2(db, "SELECT hidden FROM pragma_table_xinfo(?) WHERE name = ? COLLATE NOCASE", -1, &s,
			       NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_text(s, 1, t, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, c, -1, SQLITE_STATIC);
	while ((r = sqlite3_step(s)) == SQLITE_ROW)
		found = sqlite3_column_int(s, 0) == 0; /* hidden 2/3: a generated column */
	sqlite3_finalize(s);
	return r == SQLITE_DONE ? found : -1;
}

static int check_table(sqlite3 *db, const struct gd_db_guard *g, const char *path, const char *name,
		       const struct gd_col *cols, int ncols, char *why, size_t n)
{
	char msg[256];
	int k = gd_db_object_kind(db, name);
	if (k == -2) {
		snprintf(why, n, "'%s' is corrupt: %s", path, gd_db_errmsg(db, g, msg, sizeof(msg)));
		return GD_EDATA;
	}
	if (k == -1) {
		snprintf(why, n, "'%s' is not a gpudiag profile (%s is not a table)", path, name);
		return GD_EDATA;
	}
	if (k == 0)
		return GD_OK;
	for (int i = 0; cols && i < ncols; i++) {
		int h;
		if (cols && !cols[i].read)
			continue;
		h = gd_db_has_column(db, name, cols[i].name);
		if (h < 0) {
			snprintf(why, n, "'%s' is corrupt: %s", path, gd_db_errmsg(db, g, msg, sizeof(msg)));
			return GD_EDATA;
		}
		if (!h) {
			snprintf(why, n, "'%s' is not a gpudiag profile (%s has no column %s)", path, name, cols[i].name);
			return GD_EDATA;
		}
	}
	return GD_OK;
}

int gd_db_check_version(sqlite3 *db, const struct gd_db_guard *g, const char *path, char *why, size_t n)
{
	sqlite3_stmt *s;
	char ver[64], want[16], shown[64];
	int found = 0, r, k = gd_db_object_kind(db, "meta");
	if (k == -1) {
		snprintf(why, n, "'%s' is not a gpudiag profile (meta is not a table)", path);
		return GD_EDATA;
	}
	/* A file whose schema cannot even be read (cut short) is told apart from a profile of
	 * another version by the same words as ever. */
	if (k == 1 && (gd_db_has_column(db, "meta", "key") != 1 || gd_db_has_column(db, "meta", "value") != 1))
		k = 0;
	if (k == 1 && sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE key = 'schema_version'", -1, &s, NULL) == SQLITE_OK) {
		r = sqlite3_step(s);
		if (r == SQLITE_ROW && sqlite3_column_type(s, 0) == SQLITE_TEXT) {
			snprintf(ver, sizeof(ver), "%s", (const char *)sqlite3_column_text(s, 0));
			found = 1;
		} else if (r == SQLITE_ROW && sqlite3_column_type(s, 0) == SQLITE_INTEGER) {
			/* an INTEGER 1 stored by another tool reads as the same digits */
			snprintf(ver, sizeof(ver), "%lld", (long long)sqlite3_column_int64(s, 0));
			found = 1;
		}
		sqlite3_finalize(s);
	}
	if (!found) {
		snprintf(why, n, "'%s' is not a gpudiag profile (no meta.schema_version)", path);
		return GD_EDATA;
	}
	/* Exactly the digits: '1abc', '1.0', '+1', ' 1' and '01' are not version 1. */
	snprintf(want, sizeof(want), "%d", GD_PROFILE_SCHEMA_VERSION);
	if (strcmp(ver, want)) {
		snprintf(why, n, "'%s' has profile schema version %s; this gpudiag reads version %d", path,
			 oneline(ver, shown, sizeof(shown)), GD_PROFILE_SCHEMA_VERSION);
		return GD_EDATA;
	}
	return GD_OK;
}

int gd_db_check_tables(sqlite3 *db, const struct gd_db_guard *g, const char *path, const int *tables, int ntables,
		       int columns, char *why, size_t n)
{
	for (int i = 0; i < ntables; i++) {
		const struct gd_table *t = &gd_tables[tables[i]];
		if (check_table(db, g, path, t->name, columns ? t->cols : NULL, t->ncols, why, n))
			return GD_EDATA;
	}
	return GD_OK;
}

int gd_time_ok(int64_t t0, int64_t start, int64_t end)
{
	if (start < 0 || end < start || end >= GD_TIME_MAX)
		return 0;
	if (t0 > 0 && t0 < GD_TIME_MAX && (start < t0 - GD_TIME_SPREAD || end > t0 + GD_TIME_SPREAD))
		return 0;
	return 1;
}
