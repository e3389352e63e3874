/* gpudiag diff A B: what got faster or slower between two profiles, by kernel (matched by
 * short name) and by kind, with the totals. No GPU needed. */
#include "commands.h"
#include "core/cli.h"
#include "core/json.h"
#include "core/out.h"
#include "core/status.h"
#include "analysis/analysis.h"
#include "analysis/compare.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>

const char cmd_diff_usage[] =
	"usage: gpudiag diff A B [--top N] [--json]\n"
	"\n"
	"Compares two profiles written by 'gpudiag run': wall time, GPU busy time, kernel time by kind,\n"
	"and each kernel's total time (matched by short name), sorted by the size of the change.\n"
	"Ratios are B / A: below 1 means B is faster.\n"
	"\n"
	"options:\n"
	"  --top N       kernels to list (default 15)\n"
	"  --json        machine-readable output (keys in docs/json.md, \"diff\")\n";

static double ratio(double a, double b) { return a > 0 ? b / a : NAN; }

static void print_rows(const char *title, const struct gd_delta *r, int n, int top, FILE *out)
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
		snprintf(rr, sizeof(rr), isfinite(ratio(r[i].a, r[i].b)) ? "%.2f×" : "new", ratio(r[i].a, r[i].b));
		if (r[i].b == 0)
			snprintf(rr, sizeof(rr), "gone");
		snprintf(cnt, sizeof(cnt), "%ld → %ld", r[i].na, r[i].nb);
		snprintf(d, sizeof(d), "%s%s", dd < 0 ? "−" : "+", gd_fmt_time(b[2], 48, fabs(dd)));
		gd_table_rowv(&t, name, gd_fmt_time(b[0], 48, r[i].a), gd_fmt_time(b[1], 48, r[i].b), d, rr, cnt);
	}
	gd_table_print(&t, out, 2);
	gd_table_free(&t);
}

static void json_rows(struct gd_json *j, const char *key, const char *namekey, const struct gd_delta *r, int n, int top)
{
	gd_json_arr(j, key);
	for (int i = 0; i < n && i < top; i++) {
		gd_json_obj(j, NULL);
		gd_json_str(j, namekey, r[i].name);
		gd_json_num(j, "a_ns", r[i].a);
		gd_json_num(j, "b_ns", r[i].b);
		gd_json_num(j, "delta_ns", r[i].b - r[i].a);
		gd_json_num(j, "ratio", ratio(r[i].a, r[i].b));
		gd_json_int(j, "a_count", r[i].na);
		gd_json_int(j, "b_count", r[i].nb);
		gd_json_obj_end(j);
	}
	gd_json_arr_end(j);
}

static void print_json(const char *pa, const char *pb, const struct gd_summary *sa, const struct gd_summary *sb,
		       const struct gd_compare *c, int top)
{
	struct gd_json j;
	gd_json_init(&j, stdout, 1);
	gd_json_obj(&j, NULL);
	gd_json_str(&j, "a", pa);
	gd_json_str(&j, "b", pb);
	gd_json_obj(&j, "totals");
	gd_json_num(&j, "a_wall_ns", sa->wall_ns);
	gd_json_num(&j, "b_wall_ns", sb->wall_ns);
	gd_json_num(&j, "a_gpu_busy_ns", sa->busy_ns);
	gd_json_num(&j, "b_gpu_busy_ns", sb->busy_ns);
	gd_json_num(&j, "a_kernel_ns", sa->kernel_ns);
	gd_json_num(&j, "b_kernel_ns", sb->kernel_ns);
	gd_json_num(&j, "kernel_ratio", ratio(sa->kernel_ns, sb->kernel_ns));
	gd_json_num(&j, "wall_ratio", ratio(sa->wall_ns, sb->wall_ns));
	gd_json_obj_end(&j);
	json_rows(&j, "by_kind", "kind", c->kinds, c->nkinds, GD_KIND_COUNT);
	json_rows(&j, "by_kernel", "kernel", c->kernels, c->nkernels, top);
	gd_json_obj_end(&j);
	gd_json_end(&j);
}

static void print_text(const char *pa, const char *pb, const struct gd_summary *sa, const struct gd_summary *sb,
		       const struct gd_compare *c, int top)
{
	char b[2][48];
	printf("%sgpudiag diff%s  A = %s   B = %s   (ratios are B / A; below 1: B is faster)\n", gd_bold(), gd_reset(),
	       pa, pb);
	printf("  wall time   %s → %s (%.2f×)\n", gd_fmt_time(b[0], 48, sa->wall_ns), gd_fmt_time(b[1], 48, sb->wall_ns),
	       ratio(sa->wall_ns, sb->wall_ns));
	printf("  GPU busy    %s → %s (%.2f×)\n", gd_fmt_time(b[0], 48, sa->busy_ns), gd_fmt_time(b[1], 48, sb->busy_ns),
	       ratio(sa->busy_ns, sb->busy_ns));
	printf("  kernel time %s → %s (%.2f×), kernels %ld → %ld\n", gd_fmt_time(b[0], 48, sa->kernel_ns),
	       gd_fmt_time(b[1], 48, sb->kernel_ns), ratio(sa->kernel_ns, sb->kernel_ns), sa->nkernels, sb->nkernels);
	print_rows("By kind", c->kinds, c->nkinds, GD_KIND_COUNT, stdout);
	print_rows("By kernel (largest change first)", c->kernels, c->nkernels, top, stdout);
}

int cmd_diff(struct gd_ctx *ctx, int argc, char **argv)
{
	int top = 15, npos = 0, rc;
	char *pos[3], why[1200];
	struct gd_analysis aa, ab;
	struct gd_compare c;
	const struct gd_opt opts[] = {
		{"top", GD_OPT_INT, &top, "N", "kernels to list (default 15)"},
		{NULL, 0, NULL, NULL, NULL},
	};
	rc = gd_parse_opts("diff", argc, argv, opts, pos, 3, &npos, 0);
	if (rc == GD_OK)
		rc = gd_no_device(ctx, "diff");
	if (rc != GD_OK)
		return rc;
	if (npos != 2)
		return gd_error(GD_EUSAGE, "diff: expected two profile files (see 'gpudiag help diff')");
	if ((rc = gd_opt_check_int("diff", "top", top, 1, INT_MAX, NULL)) != GD_OK)
		return rc;
	if ((rc = gd_analysis_load(pos[0], &aa, why, sizeof(why))) != GD_OK)
		return gd_error(rc, "diff: %s", why);
	if ((rc = gd_analysis_load(pos[1], &ab, why, sizeof(why))) != GD_OK) {
		gd_analysis_free(&aa);
		return gd_error(rc, "diff: %s", why);
	}
	if ((rc = gd_compare_compute(&aa.s, &ab.s, &c)) != GD_OK) {
		rc = gd_error(rc, "diff: out of memory");
	} else {
		if (ctx->json)
			print_json(pos[0], pos[1], &aa.s, &ab.s, &c, top);
		else
			print_text(pos[0], pos[1], &aa.s, &ab.s, &c, top);
		gd_compare_free(&c);
	}
	gd_analysis_free(&aa);
	gd_analysis_free(&ab);
	return rc;
}
