/* Option parsing for subcommands.
 *
 * Each command declares a table of options; gd_parse_opts fills the destinations, accepts
 * `--name value` and `--name=value`, stops at `--`, and collects positional arguments.
 * Errors are one line naming the command and the option, and return GD_EUSAGE.
 *
 * The parser checks that a value is a value of its kind; the command checks its range,
 * through gd_opt_check_* so that every range error reads the same and states the range. */
#ifndef GPUDIAG_CLI_H
#define GPUDIAG_CLI_H

#include <limits.h>
#include <stddef.h>

enum gd_opt_kind {
	GD_OPT_FLAG,   /* int*: set to 1 */
	GD_OPT_STR,    /* const char**  */
	GD_OPT_INT,    /* int*          */
	GD_OPT_LONG,   /* long long*; accepts K/M/G (×1024) suffixes for sizes */
	GD_OPT_DOUBLE, /* double*       */
};

struct gd_opt {
	const char *name; /* without the leading "--" */
	enum gd_opt_kind kind;
	void *dest;
	const char *metavar; /* shown in help, NULL for flags */
	const char *help;
};

/* "Not given". A command that must tell an option left out from every value a user can type
 * (0 included: `--reps 0` used to be taken quietly as "the default") sets the destination to
 * one of these before parsing, and the parser never stores them: INT_MIN and LLONG_MIN are
 * refused as out of range, and NaN is no number (a double left out: use NAN, test isnan).
 * A string option left out stays NULL; a given one is never empty (the parser refuses ""). */
#define GD_UNSET_INT INT_MIN
#define GD_UNSET_LONG LLONG_MIN

/* Parses argv[0..argc) (argv[0] is the first argument after the command name).
 * Positional arguments are stored in order into `pos` (at most max_pos); with
 * stop_at_first_positional, everything from the first positional on is positional
 * (used by `run -- CMD`). Returns GD_OK or GD_EUSAGE. */
int gd_parse_opts(const char *cmd, int argc, char **argv, const struct gd_opt *opts,
		  char **pos, int max_pos, int *npos, int stop_at_first_positional);

/* Parses "123", "64K", "1.5M", "2Gi", "48KiB" into *out (K = Ki = 1024: these are memory
 * sizes, as in CUDA's "48 KB of shared memory"). Returns 0 on success, -2 for a size above
 * GD_SIZE_MAX, -1 for anything else that is not a size (negative ones included). */
#define GD_SIZE_MAX 9000000000000000000LL
int gd_parse_size(const char *s, long long *out);
/* Strict integer / double parsing (whole string). Returns 0 on success; gd_parse_int returns
 * -2 for an integer outside INT_MIN+1..INT_MAX (INT_MIN is GD_UNSET_INT), -1 otherwise. */
int gd_parse_int(const char *s, int *out);
int gd_parse_double(const char *s, double *out);

/* Range checks for a value the user gave. Inside lo..hi: GD_OK. Outside, one line
 *   "<who>: --<name> must be <lo> to <hi><what>, not <v>"
 * and GD_EUSAGE. `what` (may be NULL) follows the range, e.g. " (the block size)"; `who` is
 * the command as the user sees it ("lab memory"). The size form writes the bounds the way
 * the parser reads them (16M, 48K) when they are whole multiples. */
int gd_opt_check_int(const char *who, const char *name, long long v, long long lo, long long hi,
		     const char *what);
int gd_opt_check_size(const char *who, const char *name, long long v, long long lo, long long hi,
		      const char *what);
int gd_opt_check_double(const char *who, const char *name, double v, double lo, double hi, const char *what);
/* Writes a size as the parser reads it: 1048576 → "1M", 49152 → "48K", 1000 → "1000". */
char *gd_fmt_size_arg(char *buf, size_t n, long long v);

/* Prints the option table, aligned, for `--help`. */
void gd_print_opts(const struct gd_opt *opts);

#endif
