/* Tables for scripts: the one writer of every table gpudiag prints as CSV, TSV or JSON rows
 * (issue 20, docs/scripting.md).
 *
 * A command that prints tables takes `--format terminal|json|csv|tsv` (`--json` stays the
 * same as `--format json`) and, when it prints several tables, `--table NAME` to print one.
 * The terminal form stays the command's own (aligned, units, colour: core/out.h); the three
 * machine forms go through gd_tw, so that a table's columns are written once and read the
 * same in every form:
 *   csv   RFC 4180: a header row of column names, then one line per row; a field holding a
 *         comma, a double quote, CR or LF is quoted, quotes doubled. Lines end in LF (what
 *         pandas, Python's csv module and sqlite3 .import read).
 *   tsv   the same with a tab between fields; a field holding a tab, a quote, CR or LF is
 *         quoted the same way (pandas' read_csv(sep="\t") reads it back).
 *   json  each table is an array of objects keyed by the column names, inside the command's
 *         JSON document (the caller owns the gd_json and the keys around the tables).
 * Unknown values are empty fields in CSV/TSV (pandas reads NaN) and null in JSON. Numbers are
 * in base units (ns, bytes, bytes/s, fractions of 1), never formatted with units.
 *
 * Several tables in one CSV/TSV output: each is introduced by a line "# table: NAME" and
 * followed by an empty line, so a person can read them all; a script asks for one with
 * `--table NAME` and gets a plain RFC 4180 file (header + rows, no marker), which
 * `pandas.read_csv` reads as it is.
 *
 * Strings written to a terminal go through gd_tty (control characters escaped), as every
 * string from a profile does; to a file or a pipe they are written exactly. */
#ifndef GPUDIAG_TABLE_H
#define GPUDIAG_TABLE_H

#include <stdio.h>

struct gd_json;

enum gd_format { GD_FMT_TERMINAL = 0, GD_FMT_JSON, GD_FMT_CSV, GD_FMT_TSV };

/* "terminal", "json", "csv", "tsv". */
const char *gd_format_name(int format);

/* The format a command was asked for, from its --format value (NULL: not given) and the
 * common --json flag. `tables` lists the command's table names (NULL-terminated; NULL for a
 * command of one table, which takes no --table) and `table` is --table's value (NULL: all).
 * Errors, one line each, GD_EUSAGE: an unknown format; --json with another --format;
 * --table with a format other than csv/tsv, on a command of one table, or naming no table
 * of the command (the message lists them). Returns GD_OK with *out set. */
int gd_format_pick(const char *who, const char *format, int json, const char *const *tables, const char *table,
		   int *out);

struct gd_tw {
	FILE *f;
	int format;            /* GD_FMT_JSON, GD_FMT_CSV or GD_FMT_TSV */
	struct gd_json *j;     /* GD_FMT_JSON: the document the tables are written into */
	const char *want;      /* --table NAME: only that table; NULL: every table */
	int several;           /* CSV/TSV: mark each table ("# table: NAME"), as more may follow */
	int tty;               /* the stream is a terminal: strings through gd_tty */
	/* the table being written */
	const char *const *cols;
	int ncols, col, on, in_row;
	int written;           /* tables written so far */
};

/* f: the stream (CSV/TSV). j: the JSON document (GD_FMT_JSON; may be NULL otherwise).
 * want: --table's value. several: the command writes more than one table. */
void gd_tw_init(struct gd_tw *w, FILE *f, int format, struct gd_json *j, const char *want, int several);
/* Starts table `name` of ncols columns (names as in the JSON keys). json_key: the key of its
 * array in JSON (NULL: name). Returns 1 when the table is written, 0 when --table left it out
 * (every call until gd_tw_end then writes nothing; the caller may skip its loop). */
int gd_tw_begin(struct gd_tw *w, const char *name, const char *json_key, const char *const *cols, int ncols);
void gd_tw_row(struct gd_tw *w);
/* Cells, in column order. A NULL string and a NaN number are unknown. */
void gd_tw_str(struct gd_tw *w, const char *s);
void gd_tw_int(struct gd_tw *w, long long v);
void gd_tw_num(struct gd_tw *w, double v);
void gd_tw_bool(struct gd_tw *w, int v);
void gd_tw_null(struct gd_tw *w);
/* Ends the row: the cells not given are unknown. */
void gd_tw_row_end(struct gd_tw *w);
void gd_tw_end(struct gd_tw *w);

/* One field as CSV (sep ',') or TSV (sep '\t') writes it: quoted when it must be. */
void gd_tw_field(FILE *f, const char *s, char sep);

#endif
