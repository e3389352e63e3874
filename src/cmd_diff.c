/* gpudiag diff A B: what got faster or slower between two profiles, by kernel (matched by
 * short name) and by kind, with the totals. No GPU needed. */
#include "commands.h"
#include "core/cli.h"
#include "core/json.h"
#include "core/out.h"
#include "core/status.h"
#include "profile/profile.h"
#include "analysis/summary.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

struct row {
	const char *name;
	double a, b;
	long na, nb;
};

static int by_delta(const void *x, const void *y)
{
	const struct row *p = x, *q = y;
	double dp = fabs(p->b - p->a), dq = fabs(q->b - q->a);
	return dp < dq ? 1 : dp > dq ? -1 : strcmp(p->name, q->name);
}

static double ratio(double a, double b) { return a > 0 ? b / a : NAN; }

static void print_rows(const char *title, struct row *r, int n, int top, FILE *out)
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
		snprintf(name, sizeof(name), "%.64s", r[i].name);
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

static void json_rows(struct gd_json *j, const char *key, const char *namekey, struct row *r, int n, int top)
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

int cmd_diff(struct gd_ctx *ctx, int argc, char **argv)
{
	int top = 15, npos = 0, rc, nr = 0;
	char *pos[3], why[1200], b[4][48];
	struct gd_profile pa, pb;
	struct gd_summary sa, sb;
	struct row kinds[GD_KIND_COUNT], *rows;
	const struct gd_opt opts[] = {
		{"top", GD_OPT_INT, &top, "N", "kernels to list (default 15)"},
		{NULL, 0, NULL, NULL, NULL},
	};
	rc = gd_parse_opts("diff", argc, argv, opts, pos, 3, &npos, 0);
	if (rc != GD_OK)
		return rc;
	if (npos != 2)
		return gd_error(GD_EUSAGE, "diff: expected two profile files (see 'gpudiag help diff')");
	if (top < 1)
		return gd_error(GD_EUSAGE, "diff: --top needs a positive number");
	if ((rc = gd_profile_load(pos[0], &pa, why, sizeof(why))) != GD_OK)
		return gd_error(rc, "diff: %s", why);
	if ((rc = gd_profile_load(pos[1], &pb, why, sizeof(why))) != GD_OK) {
		gd_profile_free(&pa);
		return gd_error(rc, "diff: %s", why);
	}
	if (gd_summary_compute(&pa, &sa) != GD_OK || gd_summary_compute(&pb, &sb) != GD_OK) {
		gd_profile_free(&pa);
		gd_profile_free(&pb);
		return gd_error(GD_EFAIL, "diff: out of memory");
	}
	/* kernels: every name of A, then the names only B has */
	rows = calloc((size_t)(sa.nks + sb.nks) + 1, sizeof(*rows));
	for (int i = 0; rows && i < sa.nks; i++) {
		struct row *r = NULL;
		for (int q = 0; q < nr; q++)
			if (!strcmp(rows[q].name, sa.ks[i].short_name))
				r = &rows[q];
		if (!r) {
			r = &rows[nr++];
			r->name = sa.ks[i].short_name;
		}
		r->a += sa.ks[i].total_ns;
		r->na += sa.ks[i].count;
	}
	for (int i = 0; rows && i < sb.nks; i++) {
		struct row *r = NULL;
		for (int q = 0; q < nr; q++)
			if (!strcmp(rows[q].name, sb.ks[i].short_name))
				r = &rows[q];
		if (!r) {
			r = &rows[nr++];
			r->name = sb.ks[i].short_name;
		}
		r->b += sb.ks[i].total_ns;
		r->nb += sb.ks[i].count;
	}
	if (rows)
		qsort(rows, (size_t)nr, sizeof(*rows), by_delta);
	int nk = 0;
	for (int k = 0; k < GD_KIND_COUNT; k++) {
		if (!sa.kind_n[k] && !sb.kind_n[k])
			continue;
		kinds[nk] = (struct row){gd_kind_name(k), sa.kind_ns[k], sb.kind_ns[k], sa.kind_n[k], sb.kind_n[k]};
		nk++;
	}
	qsort(kinds, (size_t)nk, sizeof(*kinds), by_delta);
	if (ctx->json) {
		struct gd_json j;
		gd_json_init(&j, stdout, 1);
		gd_json_obj(&j, NULL);
		gd_json_str(&j, "a", pos[0]);
		gd_json_str(&j, "b", pos[1]);
		gd_json_obj(&j, "totals");
		gd_json_num(&j, "a_wall_ns", sa.wall_ns);
		gd_json_num(&j, "b_wall_ns", sb.wall_ns);
		gd_json_num(&j, "a_gpu_busy_ns", sa.busy_ns);
		gd_json_num(&j, "b_gpu_busy_ns", sb.busy_ns);
		gd_json_num(&j, "a_kernel_ns", sa.kernel_ns);
		gd_json_num(&j, "b_kernel_ns", sb.kernel_ns);
		gd_json_num(&j, "kernel_ratio", ratio(sa.kernel_ns, sb.kernel_ns));
		gd_json_num(&j, "wall_ratio", ratio(sa.wall_ns, sb.wall_ns));
		gd_json_obj_end(&j);
		json_rows(&j, "by_kind", "kind", kinds, nk, GD_KIND_COUNT);
		json_rows(&j, "by_kernel", "kernel", rows, nr, top);
		gd_json_obj_end(&j);
		gd_json_end(&j);
	} else {
		printf("%sgpudiag diff%s  A = %s   B = %s   (ratios are B / A; below 1: B is faster)\n", gd_bold(), gd_reset(),
		       pos[0], pos[1]);
		printf("  wall time   %s → %s (%.2f×)\n", gd_fmt_time(b[0], 48, sa.wall_ns), gd_fmt_time(b[1], 48, sb.wall_ns),
		       ratio(sa.wall_ns, sb.wall_ns));
		printf("  GPU busy    %s → %s (%.2f×)\n", gd_fmt_time(b[0], 48, sa.busy_ns), gd_fmt_time(b[1], 48, sb.busy_ns),
		       ratio(sa.busy_ns, sb.busy_ns));
		printf("  kernel time %s → %s (%.2f×), kernels %ld → %ld\n", gd_fmt_time(b[0], 48, sa.kernel_ns),
		       gd_fmt_time(b[1], 48, sb.kernel_ns), ratio(sa.kernel_ns, sb.kernel_ns), sa.nkernels, sb.nkernels);
		print_rows("By kind", kinds, nk, GD_KIND_COUNT, stdout);
		print_rows("By kernel (largest change first)", rows, nr, top, stdout);
	}
	free(rows);
	gd_summary_free(&sa);
	gd_summary_free(&sb);
	gd_profile_free(&pa);
	gd_profile_free(&pb);
	return GD_OK;
}
