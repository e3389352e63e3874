/* The HTML page's parts (render/html.c writes the page; report.h declares its entry points).
 *
 * The page is a list of sections, each one function that writes its content from the analysis
 * and computes none of it (docs/architecture-design.md). Adding a section — the framework view of
 * issue 21, a per-kernel view — takes three steps:
 *   1. write `void gd_html_<name>(FILE *f, const struct gd_analysis *a)` in
 *      src/render/html_<name>.c (CMake's glob picks the file up), with the helpers below: every
 *      string from a profile through gd_html_esc (kernel, op and module names hold <, >, & and
 *      quotes, and a hostile one must stay text), tables inside gd_html_table_open/close, numbers
 *      in gd_html_num cells, names in gd_html_name cells;
 *   2. declare it below;
 *   3. add one row to sections[] in html.c: its anchor id, its title (its <h2> and its entry in
 *      the page's contents), when it has nothing to show for some profiles a `shown` predicate
 *      (NULL: always shown), and own_heading = 1 if it writes its <h2> itself.
 * The page writes the section's <section id=...> (and its <h2>) around the call; the function
 * writes what goes inside (<h3> for its parts). The page fits 1280 px: a table wider than its section
 * scrolls inside its box (tests/cli/html_chromium.sh fails it), so keep tables to what reads
 * at that width. docs/html-report.md describes the page. */
#ifndef GPUDIAG_HTML_H
#define GPUDIAG_HTML_H

#include <stdio.h>

struct gd_analysis;

/* One section of the page. */
typedef void gd_html_section_fn(FILE *f, const struct gd_analysis *a);

/* ---- helpers for sections ---- */
/* XML-escapes s (NULL: nothing): &, <, >, ", ' and invalid UTF-8. */
void gd_html_esc(FILE *f, const char *s);
/* A table: <div class='tw'><table id=ID> (id NULL: none) and its header row; heads[i] starting
 * with '>' is a numeric (right-aligned) column, the '>' not shown. */
void gd_html_table_open(FILE *f, const char *id, const char *const *heads, int n);
void gd_html_table_close(FILE *f);
/* Cells: text (never wraps), a number or time (right-aligned, tabular digits, never wraps),
 * prose (wraps), and a name: shown short, truncated with an ellipsis when long, the full
 * text in its title attribute (hover). */
void gd_html_text(FILE *f, const char *s);
void gd_html_num(FILE *f, const char *s);
void gd_html_prose(FILE *f, const char *s);
void gd_html_name(FILE *f, const char *shown, const char *full);
/* A colour per kernel kind (gd_kkind) and per copy class (GD_CPY_*), the same in every chart
 * and legend. */
const char *gd_html_kind_color(int kind);
const char *gd_html_copy_color(int cls);

/* ---- the sections written outside html.c ---- */
/* The framework view (issue 21) is render/html_framework.c's gd_html_framework, declared in
 * render/report.h; it writes its own <h2>. */
/* The timeline (html_timeline.c): the whole run as an overview strip, the steady window zoomed
 * with NVML and the GPU-metrics tracks on its time axis, the legend, and the main loop
 * iteration by iteration. */
void gd_html_timeline(FILE *f, const struct gd_analysis *a);
/* The per-kernel counters of `gpudiag run --metrics` (html_kcounters.c), shown when the profile
 * was recorded with it; and the roofline: each device's with its profiled kernels placed, else
 * the roofs of the `gpudiag roofline` cache for this GPU. */
int gd_html_has_kcounters(const struct gd_analysis *a);
void gd_html_kcounters(FILE *f, const struct gd_analysis *a);
void gd_html_roofline(FILE *f, const struct gd_analysis *a);
/* The ranks of a job (html_ranks.c; issue 22), shown where the profile has several ranks, NCCL
 * kernels or several nodes: each rank's span by part, the ranks, nodes and collectives tables. */
int gd_html_has_ranks(const struct gd_analysis *a);
void gd_html_ranks(FILE *f, const struct gd_analysis *a);

#endif
