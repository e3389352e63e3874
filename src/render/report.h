/* The renderers of one analysed profile (analysis/analysis.h): the terminal report (verdict
 * first, then the summary), JSON, and the self-contained HTML page. They read the analysis and
 * compute nothing of it; the caller analyses once and renders as often as it likes (`gpudiag
 * report --html` prints and writes the page from the same analysis). The Perfetto trace is
 * render/perfetto.h. */
#ifndef GPUDIAG_REPORT_H
#define GPUDIAG_REPORT_H

#include <stdio.h>

struct gd_analysis;
struct gd_ctx; /* commands.h; only gd_report_print takes it */

/* What the terminal/JSON renderers need to know of the command line. (Colour is core/out.h's,
 * set once by main.) */
struct gd_render_opts {
	int json;          /* JSON (keys in docs/json.md, "report") instead of the terminal report */
	int format;        /* core/table.h's GD_FMT_*: GD_FMT_CSV / GD_FMT_TSV write the report's
			      tables (docs/scripting.md); 0 (terminal) follows `json` */
	const char *table; /* --table: the one CSV/TSV table to write; NULL every table */
	int top;           /* --top: rows of the ranked tables; 0 = the default (GD_REPORT_TOP in
			      the terminal and JSON, every row in CSV/TSV and in JSON's framework
			      ops, modules and fused kernels) */
};

/* The rows the ranked tables (kernels, API calls, NVTX ranges, streams, threads) show in the
 * terminal and JSON unless --top says otherwise. */
#define GD_REPORT_TOP 10
/* The tables of `gpudiag report --format csv|tsv`, NULL-terminated (docs/scripting.md). */
extern const char *const gd_report_tables[];

/* The terminal report, JSON with o->json, or CSV/TSV tables (o may be NULL: terminal). */
void gd_report_render(const struct gd_analysis *a, const struct gd_render_opts *o, FILE *out);
void gd_report_text(const struct gd_analysis *a, FILE *out);
void gd_report_json(const struct gd_analysis *a, FILE *out);

/* The ranks of a job (issue 22, render/ranks_render.c): the job's profiles and clock offsets
 * (header lines, only with several), the ranks and the NCCL collectives (a summary section, only
 * where analysis/ranks.h's gd_ranks_shown), and their tables: JSON "job" { ..., nodes } plus
 * "ranks" and "collectives", or CSV/TSV tables nodes, ranks, collectives. */
struct gd_tw;
struct gd_ranks;
void gd_report_nodes_text(const struct gd_analysis *a, FILE *out);
/* How node i's clock was put on node 0's, as the terminal and the HTML page say it: "the
 * reference clock", "offset −40.0 ms ± 2.00 µs (160 collectives)[; note]" or "clock taken as
 * recorded: why". Returns buf. */
char *gd_report_node_clock(const struct gd_ranks *r, int i, char *buf, size_t n);
void gd_report_ranks_text(const struct gd_analysis *a, int top, FILE *out);
void gd_report_ranks_tw(struct gd_tw *w, const struct gd_analysis *a, int top);

/* Writes the self-contained HTML page atomically. Returns GD_OK or an error (printed). */
int gd_report_html(const struct gd_analysis *a, const char *path);
/* Writes the page to a stream (tests). */
void gd_report_html_write(const struct gd_analysis *a, FILE *f);
/* The page's framework section (render/html_framework.c): top ops, the module tree, the fused
 * kernels; nothing for a profile without the framework view. */
void gd_html_framework(FILE *f, const struct gd_analysis *a);
/* The top ops table's columns and one op's cells (analysis/framework.h), one definition for the
 * terminal (report.c) and the page (html_framework.c). The name cell is the op's name as
 * recorded: the caller escapes it for its medium. */
#define GD_REPORT_FW_OP_COLS 8
#define GD_REPORT_FW_CELL 256
struct gd_framework;
struct gd_fw_op;
extern const char *const gd_report_fw_op_head[GD_REPORT_FW_OP_COLS];
void gd_report_fw_op_row(const struct gd_framework *fw, const struct gd_fw_op *o,
			 char cell[GD_REPORT_FW_OP_COLS][GD_REPORT_FW_CELL]);

/* The convenience `gpudiag run` (after writing its profile), `gpudiag report FILE` and the
 * demo's no-GPU sample use: analyse the file, render it as ctx asks (ctx->json). Returns GD_OK,
 * or GD_EDATA for an unreadable/corrupt/wrong-version profile, GD_EFAIL out of memory (both
 * printed, "report: ..."). */
int gd_report_print(const char *profile_path, const struct gd_ctx *ctx, FILE *out);


/* The per-kernel counters table's columns and cells (issue 19), one definition for the terminal
 * (report.c) and the HTML page (html.c), so both show the same cells. */
#define GD_REPORT_KC_COLS 14
#define GD_REPORT_KC_CELL 96
struct gd_profile;
struct gd_kc_kernel;
extern const char *const gd_report_kc_head[GD_REPORT_KC_COLS];
extern const char *const gd_report_kc_what[GD_REPORT_KC_COLS];
void gd_report_kc_row(const struct gd_profile *p, const struct gd_kc_kernel *k,
		      char cell[GD_REPORT_KC_COLS][GD_REPORT_KC_CELL]);

#endif
