/* Reading a saved profile and reporting on it: the summary, the verdicts, JSON, HTML and
 * the Perfetto trace. Owned by src/render/ (the analysis is src/analysis/); `gpudiag run` calls
 * gd_report_print once the profile is written, and `gpudiag report FILE` calls it on a
 * saved file. */
#ifndef GPUDIAG_REPORT_H
#define GPUDIAG_REPORT_H

#include "commands.h"

#include <stdio.h>

/* Prints the terminal report (verdict first, then the summary), or JSON with ctx->json.
 * Returns GD_OK, or GD_EDATA for an unreadable/corrupt/wrong-version profile (printed). */
int gd_report_print(const char *profile_path, const struct gd_ctx *ctx, FILE *out);

struct gd_profile;
struct gd_summary;
struct gd_verdicts;

/* The same for a profile already in memory (the demo's built-in sample, tests). */
int gd_report_render(const struct gd_profile *p, const struct gd_ctx *ctx, FILE *out);
/* Writes the self-contained HTML page atomically. Returns GD_OK or an error (printed). */
int gd_report_html(const struct gd_profile *p, const struct gd_summary *s, const struct gd_verdicts *v,
		   const char *path);
/* Writes the page to a stream (tests). */
void gd_report_html_write(const struct gd_profile *p, const struct gd_summary *s, const struct gd_verdicts *v,
			  FILE *f);

/* The embedded demo (`gpudiag run` with no command). gd_demo_main runs the demo workload (the
 * `run` command execs `gpudiag __demo` under the profiler, then reports the profile as usual).
 * gd_demo_sample is for a machine without a GPU: it says so and renders the sample profile
 * shipped in the repository (GPUDIAG_SAMPLE, or <exe dir>/../share/gpudiag/sample.gpudiag.sqlite,
 * or <exe dir>/../tests/fixtures/sample.gpudiag.sqlite), labelled as recorded elsewhere. */
int gd_demo_main(int argc, char **argv);
int gd_demo_sample(const struct gd_ctx *ctx, const char *argv0, FILE *out);

#endif
