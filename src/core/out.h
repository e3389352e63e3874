/* Terminal output: colour policy, aligned tables, human-readable numbers.
 *
 * Colour is used only when stdout is a terminal, NO_COLOR is unset and --no-color was not
 * given (https://no-color.org). Tables pad by display width so UTF-8 text lines up. */
#ifndef GPUDIAG_OUT_H
#define GPUDIAG_OUT_H

#include <stddef.h>
#include <stdio.h>

/* Decides once, from the stream, the environment and the --no-color flag. */
void gd_out_init(FILE *f, int no_color);
int gd_color(void);
int gd_is_tty(void);
/* ANSI sequences, or "" when colour is off. */
const char *gd_bold(void);
const char *gd_dim(void);
const char *gd_red(void);
const char *gd_yellow(void);
const char *gd_green(void);
const char *gd_cyan(void);
const char *gd_reset(void);

/* Number formatting into caller buffers; each returns buf. "unknown" for NaN. */
char *gd_fmt_si(char *buf, size_t n, double v, const char *unit);   /* 4.81 TB/s (10^3 steps) */
/* A sampling interval as a user asked for it: "100 µs" (whole µs), else "1500 ns". */
char *gd_fmt_interval(char *buf, size_t n, long long ns);
char *gd_fmt_bytes(char *buf, size_t n, double bytes);              /* 60 MiB (2^10 steps) */
char *gd_fmt_time(char *buf, size_t n, double ns);                  /* 2.51 µs */
char *gd_fmt_pct(char *buf, size_t n, double frac);                 /* 81.2 % */
/* A time and its share of a whole: "12.3 ms 45.6 %" ("… unknown" when the whole is not positive). */
char *gd_fmt_time_pct(char *buf, size_t n, double ns, double whole);

/* Display width of a UTF-8 string (one column per code point; enough for our text). */
size_t gd_display_width(const char *s);

/* s made safe to print on a terminal: control characters (C0, DEL, and the C1 range encoded
 * in UTF-8, which terminals also obey) are shown as \xNN / \u00NN, so a name read from a
 * profile cannot move the cursor, retitle the window or forge a line. The result lives in one
 * of a few rotating buffers: use it at once, in at most GD_TTY_SLOTS arguments of one call. */
#define GD_TTY_SLOTS 8
const char *gd_tty(const char *s);

/* A simple table: add a header row then data rows; cells are copied. */
#define GD_TABLE_MAX_COLS 16
struct gd_table {
	int ncols;
	int nrows, cap;
	char **cells; /* nrows × ncols */
	char right[GD_TABLE_MAX_COLS]; /* right-align column (numbers) */
};
void gd_table_init(struct gd_table *t, int ncols);
void gd_table_align_right(struct gd_table *t, int col);
/* Adds a row of ncols strings (NULL cells print as empty). */
void gd_table_row(struct gd_table *t, const char *const *cells);
/* Adds a row from a printf-like list: one format per cell separated by '\t' is awkward in C,
 * so rows are built with gd_table_row; this helper adds one cell-formatted row of n cells. */
void gd_table_rowv(struct gd_table *t, ...);
/* Prints with the first row as a bold header and a gap of two spaces, indented by `indent`. */
void gd_table_print(const struct gd_table *t, FILE *f, int indent);
void gd_table_free(struct gd_table *t);

#endif
