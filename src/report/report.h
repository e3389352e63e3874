/* Reading a saved profile and reporting on it: the summary, the verdicts, JSON, HTML and
 * the Perfetto trace. Owned by src/report/ (and src/verdict/); `gpudiag run` calls
 * gd_report_print once the profile is written, and `gpudiag report FILE` calls it on a
 * saved file. */
#ifndef GPUDIAG_REPORT_H
#define GPUDIAG_REPORT_H

#include "commands.h"

#include <stdio.h>

/* Prints the terminal report (verdict first, then the summary), or JSON with ctx->json.
 * Returns GD_OK, or GD_EDATA for an unreadable/corrupt/wrong-version profile (printed). */
int gd_report_print(const char *profile_path, const struct gd_ctx *ctx, FILE *out);

#endif
