/* Opening a profile database that came from another machine (internal to src/profile/: the
 * reader and the export's row source share it). A profile is untrusted input: these checks
 * make sure that what the queries read is what the schema declares, and that no query runs
 * unbounded, before a row is read.
 *
 * - the database is configured defensively (no trusted schema, no writes);
 * - meta.schema_version is exactly the decimal digits of a version this code reads;
 * - every table read is a real table (not a view, not a virtual table) holding, as ordinary
 *   stored columns, every column the reader selects from it (columns.h);
 * - a progress handler stops any statement once the time limit has passed
 *   (gd_profile_set_time_limit), with a message saying so.
 * Timestamps of events are judged by gd_time_ok (docs/profile-schema.md, "Corrupt rows"). */
#ifndef GPUDIAG_PROFILE_DBCHECK_H
#define GPUDIAG_PROFILE_DBCHECK_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

/* Event times must lie in [0, GD_TIME_MAX): any difference of two such times fits an int64,
 * so durations and spans never overflow. 2^62 ns is about 146 years after 1970. */
#define GD_TIME_MAX (INT64_C(1) << 62)
/* ...and, when the profile's start (meta.start_ns) is known, within 10 years of it. */
#define GD_TIME_SPREAD (INT64_C(3652) * 86400 * 1000000000)

/* The time bound of one open database. */
struct gd_db_guard {
	double deadline; /* CLOCK_MONOTONIC seconds */
	double limit_s;
	int expired;
};

/* Configures db (opened read-only by the caller) for untrusted input and installs the
 * progress handler of g. */
void gd_db_harden(sqlite3 *db, struct gd_db_guard *g);

/* The reason of the last failure on db: the guard's "took longer than" when it fired, else
 * SQLite's message. Never contains a newline. */
const char *gd_db_errmsg(sqlite3 *db, const struct gd_db_guard *g, char *buf, size_t n);

/* meta is a real table and meta.schema_version is a version this code reads. GD_OK, or
 * GD_EDATA with the reader's messages: "'P' is not a gpudiag profile (no meta.schema_version)",
 * "'P' has profile schema version V; this gpudiag reads version 1". */
int gd_db_check_version(sqlite3 *db, const struct gd_db_guard *g, const char *path, char *why, size_t n);

/* Each table of `tables` (gd_table_id of columns.h) that exists is a real table and, when
 * `columns`, has the columns the reader selects; a missing table is left to the caller (some
 * are optional).
 * GD_OK, or GD_EDATA: "'P' is not a gpudiag profile (kernels is not a table)",
 * "'P' is not a gpudiag profile (kernels has no column start)". */
int gd_db_check_tables(sqlite3 *db, const struct gd_db_guard *g, const char *path, const int *tables, int ntables,
		       int columns, char *why, size_t n);

/* The row of sqlite_master named t (SQLite resolves names without regard to case). 0: none,
 * 1: a real table, -1: something else (view, virtual table, index, trigger), -2: error. */
int gd_db_object_kind(sqlite3 *db, const char *t);
/* 1 when table t has column c as an ordinary stored column, 0 when not, -1 on error. */
int gd_db_has_column(sqlite3 *db, const char *t, const char *c);

/* 1 when an event [start, end] is plausible: 0 <= start <= end < GD_TIME_MAX and, when t0
 * (the profile's recorded start) is not 0, both within GD_TIME_SPREAD of t0. An instant
 * event passes start = end. */
int gd_time_ok(int64_t t0, int64_t start, int64_t end);

#endif
