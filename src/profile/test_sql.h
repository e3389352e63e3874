/* For CPU-tier tests only: one integer from a profile database, to check what the writer
 * wrote (the product reads profiles through reader.c). -998: the file does not open, -999: no
 * row or the query failed (the error is printed), -1: NULL. */
#ifndef GPUDIAG_PROFILE_TEST_SQL_H
#define GPUDIAG_PROFILE_TEST_SQL_H

#include <sqlite3.h>
#include <stdio.h>

static inline long long gd_test_q1(const char *db, const char *sql)
{
	sqlite3 *h;
	sqlite3_stmt *s;
	long long v = -999;
	if (sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK)
		return -998;
	if (sqlite3_prepare_v2(h, sql, -1, &s, NULL) == SQLITE_OK) {
		if (sqlite3_step(s) == SQLITE_ROW)
			v = sqlite3_column_type(s, 0) == SQLITE_NULL ? -1 : sqlite3_column_int64(s, 0);
		sqlite3_finalize(s);
	} else {
		fprintf(stderr, "sql: %s: %s\n", sql, sqlite3_errmsg(h));
	}
	sqlite3_close(h);
	return v;
}

#endif
