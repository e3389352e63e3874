/* Error and warning output: one line each, lower-case, the failing thing first. */
#include "core/status.h"

#include <stdio.h>

static int quiet;

void gd_set_quiet(int q) { quiet = q; }

int gd_error(int code, const char *fmt, ...)
{
	va_list ap;
	fputs("gpudiag: error: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return code;
}

void gd_warn(const char *fmt, ...)
{
	va_list ap;
	if (quiet)
		return;
	fputs("gpudiag: warning: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}
