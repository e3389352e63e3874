/* Exit codes and error reporting shared by every command.
 *
 * Errors travel up as these codes; only main() turns them into the process exit status.
 * The codes are part of the documented interface (README, `gpudiag help`). */
#ifndef GPUDIAG_STATUS_H
#define GPUDIAG_STATUS_H

#include <stdarg.h>

enum gd_status {
	GD_OK = 0,      /* success */
	GD_EFAIL = 1,   /* the command ran but something failed (I/O, CUDA error) */
	GD_EUSAGE = 2,  /* bad command line */
	GD_ENOGPU = 3,  /* no GPU, no driver, or a required vendor library is missing */
	GD_ECHECK = 4,  /* a measurement failed its correctness check */
	GD_EDATA = 5,   /* an input file is unreadable, corrupt or of the wrong kind */
	GD_EINTR = 130, /* interrupted by the user (SIGINT) */
};

/* "gpudiag: error: <message>" on stderr, one line. Returns `code` so callers can write
 * `return gd_error(GD_EDATA, "cannot open '%s'", path);`. */
int gd_error(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "gpudiag: warning: <message>" on stderr. */
void gd_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Silences warnings (for tests). */
void gd_set_quiet(int quiet);

#endif
