/* gpudiag diff A B: what got faster or slower between two profiles, by kernel (matched by
 * short name) and by kind, with the totals; by PyTorch op and module when either profile has
 * the framework view (analysis/framework.h). No GPU needed. */
#include "commands.h"
#include "core/cli.h"
#include "core/json.h"
#include "core/out.h"
#include "core/status.h"
#include "core/table.h"
#include "analysis/analysis.h"
#include "analysis/compare.h"
#include "render/report.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>

const char cmd_diff_usage[] =
	"usage: gpudiag diff A B [--top N] [--format terminal|json|csv|tsv [--table NAME]]\n"
	"       gpudiag diff A1 A2 ... B1 B2 ... [--split K]\n"
	"\n"
	"Compares two profiles written by 'gpudiag run': wall time, GPU busy time, kernel time by kind,\n"
	"and each kernel's total time (matched by short name), sorted by the size of the change. When\n"
	"either profile was recorded with the framework view (gpudiag run --torch), also each PyTorch\n"
	"op's and nn.Module's self GPU time (matched by op name, by module path and class).\n"
	"Ratios are B / A: below 1 means B is faster; below 0.1 they are written as a division\n"
	"(÷222: B is 222 times smaller).\n"
	"\n"
	"A job over several nodes writes one profile per node: give each side's profiles in turn, the\n"
	"first half A and the second half B (or the first K A with --split K). Each side is judged as\n"
	"one job, as 'gpudiag report A1 A2 ...' does: its clocks put on its first profile's by the\n"
	"collectives they share (the offsets applied are printed), its profiles merged.\n"
	"\n"
	"options:\n"
	"  --top N       kernels, ops and modules to list (default 15)\n"
	"  --split K     with more than two profiles: the first K are A, the rest B (default: half)\n"
	"  --format F    terminal (default), json, csv or tsv; csv and tsv write the tables\n"
	"                totals, kinds and kernels, and ops and modules with the framework view\n"
	"                (docs/scripting.md)\n"
	"  --table NAME  with csv/tsv: only that table\n"
	"  --json        machine-readable output (keys in docs/json.md, \"diff\"); = --format json\n";

static const char *const diff_tables[] = {"totals", "kinds", "kernels", "ops", "modules", NULL};

static double ratio(double a, double b) { return a > 0 ? b / a : NAN; }

static void print_rows(const char *title, const struct gd_delta *r, long n, int top, FILE *out)
{
	char b[4][48];
	struct gd_table t;
	fprintf(out, "\n%s%s%s\n", gd_bold(), title, gd_reset());
	gd_table_init(&t, 6);
	for (int c = 1; c <= 5; c++)
		gd_table_align_right(&t, c);
	gd_table_rowv(&t, "", "A", "B", "B − A", "B / A", "calls A → B");
	for (int i = 0; i < n && i < top; i++) {
		char rr[32], cnt[64], d[48], name[72];
		double dd = r[i].b - r[i].a;
		snprintf(name, sizeof(name), "%.64s", gd_tty(r[i].name)); /* from the profile: no control characters to the terminal */
		gd_ratio_text(rr, sizeof(rr), r[i].a, r[i].b);
		snprintf(cnt, sizeof(cnt), "%ld → %ld", r[i].na, r[i].nb);
		snprintf(d, sizeof(d), "%s%s", dd < 0 ? "−" : "+", gd_fmt_time(b[2], 48, fabs(dd)));
		gd_table_rowv(&t, name, gd_fmt_time(b[0], 48, r[i].a), gd_fmt_time(b[1], 48, r[i].b), d, rr, cnt);
	}
	gd_table_print(&t, out, 2);
	gd_table_free(&t);
}

/* A list of deltas as a table (JSON array or CSV/TSV). Module rows (with_class) write their
 * path and class apart, the label being the terminal's. */
static void tw_rows(struct gd_tw *w, const char *table, const char *key, const char *namekey, const struct gd_delta *r,
		    long n, int top, int with_class)
{
	const char *const cols[] = {namekey, "class", "a_ns", "b_ns", "delta_ns", "ratio", "a_count", "b_count"};
	const char *const plain[] = {namekey, "a_ns", "b_ns", "delta_ns", "ratio", "a_count", "b_count"};
	if (!gd_tw_begin(w, table, key, with_class ? cols : plain, with_class ? 8 : 7))
		return;
	for (long i = 0; i < n && i < top; i++) {
		gd_tw_row(w);
		gd_tw_str(w, with_class ? r[i].path : r[i].name);
		if (with_class)
			gd_tw_str(w, r[i].cls);
		gd_tw_num(w, r[i].a);
		gd_tw_num(w, r[i].b);
		gd_tw_num(w, r[i].b - r[i].a);
		gd_tw_num(w, ratio(r[i].a, r[i].b));
		gd_tw_int(w, r[i].na);
		gd_tw_int(w, r[i].nb);
		gd_tw_row_end(w);
	}
	gd_tw_end(w);
}

static const char *const totals_cols[] = {"a_wall_ns", "b_wall_ns", "a_gpu_busy_ns", "b_gpu_busy_ns", "a_kernel_ns",
					  "b_kernel_ns", "kernel_ratio", "wall_ratio", "gpu_busy_ratio",
					  "a_kernels", "b_kernels"};

static void tw_totals(struct gd_tw *w, const struct gd_summary *sa, const struct gd_summary *sb)
{
	if (w->format == GD_FMT_JSON)
		gd_json_obj(w->j, "totals");
	else if (!gd_tw_begin(w, "totals", NULL, totals_cols, 11))
		return;
	else
		gd_tw_row(w);
	/* in JSON one object (as before), in CSV one row: the same keys */
	if (w->format == GD_FMT_JSON) {
		double v[9] = {sa->wall_ns, sb->wall_ns, sa->busy_ns, sb->busy_ns, sa->kernel_ns, sb->kernel_ns,
			       ratio(sa->kernel_ns, sb->kernel_ns), ratio(sa->wall_ns, sb->wall_ns),
			       ratio(sa->busy_ns, sb->busy_ns)};
		for (int i = 0; i < 9; i++)
			gd_json_num(w->j, totals_cols[i], v[i]);
		gd_json_int(w->j, "a_kernels", sa->nkernels);
		gd_json_int(w->j, "b_kernels", sb->nkernels);
		gd_json_obj_end(w->j);
		return;
	}
	gd_tw_num(w, sa->wall_ns);
	gd_tw_num(w, sb->wall_ns);
	gd_tw_num(w, sa->busy_ns);
	gd_tw_num(w, sb->busy_ns);
	gd_tw_num(w, sa->kernel_ns);
	gd_tw_num(w, sb->kernel_ns);
	gd_tw_num(w, ratio(sa->kernel_ns, sb->kernel_ns));
	gd_tw_num(w, ratio(sa->wall_ns, sb->wall_ns));
	gd_tw_num(w, ratio(sa->busy_ns, sb->busy_ns));
	gd_tw_int(w, sa->nkernels);
	gd_tw_int(w, sb->nkernels);
	gd_tw_row_end(w);
	gd_tw_end(w);
}

static void print_tables(int format, const char *table, const char *pa, const char *pb, const struct gd_summary *sa,
			 const struct gd_summary *sb, const struct gd_compare *c, int top)
{
	struct gd_json j;
	struct gd_tw w;
	gd_json_init(&j, stdout, 1);
	gd_tw_init(&w, stdout, format, &j, table, 1);
	if (format == GD_FMT_JSON) {
		gd_json_obj(&j, NULL);
		gd_json_str(&j, "a", pa);
		gd_json_str(&j, "b", pb);
	}
	tw_totals(&w, sa, sb);
	tw_rows(&w, "kinds", "by_kind", "kind", c->kinds, c->nkinds, GD_KIND_COUNT, 0);
	tw_rows(&w, "kernels", "by_kernel", "kernel", c->kernels, c->nkernels, top, 0);
	/* the framework's tables only where a profile has the view (or --table names one), so
	 * that other diffs read as before */
	if (c->framework || w.want) {
		tw_rows(&w, "ops", "by_op", "op", c->ops, c->nops, top, 0);
		tw_rows(&w, "modules", "by_module", "module", c->modules, c->nmodules, top, 1);
	}
	if (format == GD_FMT_JSON) {
		gd_json_obj_end(&j);
		gd_json_end(&j);
	}
}

static void print_text(const char *pa, const char *pb, const struct gd_summary *sa, const struct gd_summary *sb,
		       const struct gd_compare *c, int top)
{
	char b[3][48];
	printf("%sgpudiag diff%s  A = %s   B = %s   (ratios are B / A; below 1: B is faster)\n", gd_bold(), gd_reset(),
	       gd_tty(pa), gd_tty(pb));
	printf("  wall time   %s → %s (%s)\n", gd_fmt_time(b[0], 48, sa->wall_ns), gd_fmt_time(b[1], 48, sb->wall_ns),
	       gd_ratio_text(b[2], 48, sa->wall_ns, sb->wall_ns));
	printf("  GPU busy    %s → %s (%s)\n", gd_fmt_time(b[0], 48, sa->busy_ns), gd_fmt_time(b[1], 48, sb->busy_ns),
	       gd_ratio_text(b[2], 48, sa->busy_ns, sb->busy_ns));
	printf("  kernel time %s → %s (%s), kernels %ld → %ld\n", gd_fmt_time(b[0], 48, sa->kernel_ns),
	       gd_fmt_time(b[1], 48, sb->kernel_ns), gd_ratio_text(b[2], 48, sa->kernel_ns, sb->kernel_ns), sa->nkernels,
	       sb->nkernels);
	print_rows("By kind", c->kinds, c->nkinds, GD_KIND_COUNT, stdout);
	print_rows("By kernel (largest change first)", c->kernels, c->nkernels, top, stdout);
	if (c->framework) {
		print_rows("By PyTorch op (self GPU time; counts are calls)", c->ops, c->nops, top, stdout);
		print_rows("By module (self GPU time; counts are calls)", c->modules, c->nmodules, top, stdout);
	}
}

/* Each side's profiles and the clock offsets applied, when a side is a job of several nodes. */
static void print_jobs(const struct gd_analysis *aa, const struct gd_analysis *ab)
{
	const struct gd_analysis *side[2] = {aa, ab};
	for (int i = 0; i < 2; i++)
		if (side[i]->r.nnodes > 1) {
			printf("\n%s: ", i ? "B" : "A");
			gd_report_nodes_text(side[i], stdout);
		}
}

int cmd_diff(struct gd_ctx *ctx, int argc, char **argv)
{
	int top = 15, npos = 0, rc, fmt, split = GD_UNSET_INT;
	const char *format = NULL, *table = NULL;
	char *pos[2 * GD_MAX_NODES + 1], why[1200];
	struct gd_analysis aa, ab;
	struct gd_compare c;
	const struct gd_opt opts[] = {
		{"top", GD_OPT_INT, &top, "N", "kernels to list (default 15)"},
		{"format", GD_OPT_STR, &format, "F", "terminal, json, csv or tsv"},
		{"table", GD_OPT_STR, &table, "NAME", "with csv/tsv: only this table"},
		{"split", GD_OPT_INT, &split, "K", "the first K profiles are A, the rest B"},
		{NULL, 0, NULL, NULL, NULL},
	};
	rc = gd_parse_opts("diff", argc, argv, opts, pos, 2 * GD_MAX_NODES + 1, &npos, 0);
	if (rc == GD_OK)
		rc = gd_no_device(ctx, "diff");
	if (rc == GD_OK)
		rc = gd_format_pick("diff", format, ctx->json, diff_tables, table, &fmt);
	if (rc != GD_OK)
		return rc;
	if (npos < 2 || npos > 2 * GD_MAX_NODES)
		return gd_error(GD_EUSAGE, "diff: expected two profile files, or two jobs' profiles (see 'gpudiag help diff')");
	if ((rc = gd_opt_check_int("diff", "top", top, 1, INT_MAX, NULL)) != GD_OK)
		return rc;
	if (split == GD_UNSET_INT) {
		if (npos % 2)
			return gd_error(GD_EUSAGE,
					"diff: %d profiles cannot be split in half; say how many are A with --split K", npos);
		split = npos / 2;
	} else if ((rc = gd_opt_check_int("diff", "split", split, 1, npos - 1, " (profiles of A; the rest are B)")) != GD_OK) {
		return rc;
	}
	if ((rc = gd_analysis_load_many((const char *const *)pos, split, &aa, why, sizeof(why))) != GD_OK)
		return gd_error(rc, "diff: %s", why);
	if ((rc = gd_analysis_load_many((const char *const *)pos + split, npos - split, &ab, why, sizeof(why))) != GD_OK) {
		gd_analysis_free(&aa);
		return gd_error(rc, "diff: %s", why);
	}
	if ((rc = gd_compare_compute(&aa.s, &ab.s, &c)) != GD_OK ||
	    (rc = gd_compare_framework(&aa.fw, &ab.fw, &c)) != GD_OK) {
		if (c.kernels)
			gd_compare_free(&c);
		rc = gd_error(rc, "diff: out of memory");
	} else {
		if (fmt != GD_FMT_TERMINAL) {
			print_tables(fmt, table, pos[0], pos[split], &aa.s, &ab.s, &c, top);
		} else {
			print_text(pos[0], pos[split], &aa.s, &ab.s, &c, top);
			print_jobs(&aa, &ab);
		}
		gd_compare_free(&c);
	}
	gd_analysis_free(&aa);
	gd_analysis_free(&ab);
	return rc;
}
