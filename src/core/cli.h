/* Option parsing for subcommands.
 *
 * Each command declares a table of options; gd_parse_opts fills the destinations, accepts
 * `--name value` and `--name=value`, stops at `--`, and collects positional arguments.
 * Errors are one line naming the command and the option, and return GD_EUSAGE. */
#ifndef GPUDIAG_CLI_H
#define GPUDIAG_CLI_H

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

/* Parses argv[0..argc) (argv[0] is the first argument after the command name).
 * Positional arguments are stored in order into `pos` (at most max_pos); with
 * stop_at_first_positional, everything from the first positional on is positional
 * (used by `run -- CMD`). Returns GD_OK or GD_EUSAGE. */
int gd_parse_opts(const char *cmd, int argc, char **argv, const struct gd_opt *opts,
		  char **pos, int max_pos, int *npos, int stop_at_first_positional);

/* Parses "123", "64K", "1.5M", "2Gi", "48KiB" into *out (K = Ki = 1024: these are memory
 * sizes, as in CUDA's "48 KB of shared memory"). Returns 0 on success. */
int gd_parse_size(const char *s, long long *out);
/* Strict integer / double parsing (whole string). Returns 0 on success. */
int gd_parse_int(const char *s, int *out);
int gd_parse_double(const char *s, double *out);

/* Prints the option table, aligned, for `--help`. */
void gd_print_opts(const struct gd_opt *opts);

#endif
