/* The terminal and JSON reports of an analysed profile: the verdict first (one screen: the
 * top finding in a sentence, then the ranked findings), then the summary. They read the
 * analysis and compute nothing (report.h); keys of the JSON are documented in docs/json.md
 * ("report"). */
#include "render/report.h"

#include "analysis/analysis.h"
#include "commands.h" /* struct gd_ctx, for gd_report_print only */
#include "core/json.h"
#include "core/out.h"
#include "core/status.h"
#include "core/table.h"
#include "gpu/arch.h"
#include "gpu/nvml.h"
#include "profile/kc_metrics.h"
#include "profile/pm_metrics.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Shared with html.c (declared there too, until report.h carries it): the per-kernel
 * counters table's columns and one kernel's cells. */
#define GD_REPORT_KC_COLS 14
#define GD_REPORT_KC_CELL 96
struct gd_kc_kernel;
extern const char *const gd_report_kc_head[GD_REPORT_KC_COLS];
extern const char *const gd_report_kc_what[GD_REPORT_KC_COLS];
void gd_report_kc_row(const struct gd_profile *p, const struct gd_kc_kernel *k,
		      char cell[GD_REPORT_KC_COLS][GD_REPORT_KC_CELL]);

static double frac(double a, double b) { return b > 0 ? a / b : NAN; }

static const char *sev_color(int sev)
{
	return sev == GD_SEV_HIGH ? gd_red() : sev == GD_SEV_WARN ? gd_yellow() : gd_cyan();
}

static void label_line(const struct gd_profile *p, FILE *out)
{
	if (p->label[0] || p->synthetic)
		fprintf(out, "%s%s%s%s\n", gd_bold(), gd_yellow(),
			p->label[0] ? gd_tty(p->label) : "SYNTHETIC profile (generated, not recorded on a GPU)", gd_reset());
}

/* ---- measured GPU counters (issue 18; pm_metrics.h) ---- */
/* The counters part of a report is shown when the profile says anything of counters: old
 * profiles (no meta.counters, no samples) render exactly as before. */
static int has_counters(const struct gd_profile *p) { return p->counters[0] || p->npm > 0 || p->nkpm > 0; }

/* The quantities of the terminal's top-kernels table, in column order. */
static const int top_pm[] = {GD_PM_SM_ACTIVE, GD_PM_SM_ISSUE, GD_PM_TENSOR, GD_PM_DRAM};
static const char *const top_pm_head[] = {"SM act", "issue", "tensor", "DRAM %"};
static const char *const top_pm_what[] = {"SMs with a warp resident", "instructions issued", "tensor pipe active",
					  "DRAM read + write"};
#define NTOP_PM ((int)(sizeof(top_pm) / sizeof(top_pm[0])))

/* 1 when quantity m is known for one of the first `n` kernels of s. */
static int top_has(const struct gd_summary *s, int n, int m)
{
	for (int i = 0; i < s->nks && i < n; i++)
		if (s->ks[i].pm_samples > 0 && isfinite(s->ks[i].pm[m]))
			return 1;
	return 0;
}

/* A quantity's value in its unit: "63 %", "1905 MHz", "12.3 GB/s". */
static const char *pm_value(char *b, size_t n, int m, double v)
{
	if (!isfinite(v))
		snprintf(b, n, "unknown");
	else if (!strcmp(gd_pm_metrics[m].unit, "%"))
		snprintf(b, n, "%.0f %%", v);
	else if (!strcmp(gd_pm_metrics[m].unit, "MHz"))
		snprintf(b, n, "%.0f MHz", v);
	else
		gd_fmt_si(b, n, v, gd_pm_metrics[m].unit);
	return b;
}

/* A measured value as text: "-" for a kernel without attributed samples, "unknown" for a
 * quantity its samples did not carry. */
static const char *pm_cell(char *b, size_t n, const struct gd_kstat *k, int m)
{
	if (k->pm_samples > 0 && m == GD_PM_DRAM && isfinite(k->pm[m]) && isfinite(k->pm_dram_bps)) {
		char r[32];
		snprintf(b, n, "%.0f %% %s", k->pm[m], gd_fmt_si(r, sizeof(r), k->pm_dram_bps, "B/s"));
		return b;
	}
	return k->pm_samples <= 0 ? "-" : pm_value(b, n, m, k->pm[m]);
}

static const char *const no_counters = "no counters: ";

/* ---- per-kernel counters of `gpudiag run --metrics` (issue 19; analysis/kcounters.h) ---- */
/* The section is shown when the profile says anything of them (launches asked for, or a
 * metric set): every profile recorded before them renders exactly as before. */
static int has_kc(const struct gd_profile *p) { return p->nkl > 0 || p->metrics[0]; }

static const char *bound_name(int b) { return gd_kc_bound_name(b); }

/* The table's columns, shared with the HTML page (html.c) so both show the same cells. */
const char *const gd_report_kc_head[GD_REPORT_KC_COLS] = {
	"kernel", "launches", "duration", "DRAM", "FLOP/s", "prec", "FLOP/B", "bound", "roof",
	"occupancy", "ld sect/req", "ld used", "thr/inst", "top stall"};
const char *const gd_report_kc_what[GD_REPORT_KC_COLS] = {
	NULL,
	"launches profiled",
	"median GPU time of one launch",
	"DRAM bytes read + written / duration (under CUPTI's kernel replay, which flushes no cache between "
	"passes, writes can read up to ~30 % high; the header says how these launches were replayed, "
	"docs/kernel-metrics.md)",
	"CUDA-core FLOPs (FMA = 2) / duration (on a tensor roof: tensor active × its ceiling)",
	"the precision of the compute roof it is placed against",
	"FLOPs per DRAM byte",
	"where it sits on the roofline",
	"achieved % of the roof at its intensity",
	"achieved (measured) / theoretical",
	"32-byte sectors per global load request (4 ideal)",
	"bytes of each loaded sector used",
	"active threads per warp instruction (32 = no divergence)",
	"largest warp stall reason, % of active warp cycles"};

/* A stall quantity's reason: its key without "stall_". */
static const char *stall_reason(int m)
{
	const char *k = gd_kc_metrics[m].key;
	return strncmp(k, "stall_", 6) ? k : k + 6;
}

/* v with `dec` decimals, " %" after a percentage; "unknown" when not known. */
static const char *kc_num(char *b, size_t n, double v, int dec, int pct)
{
	if (!isfinite(v))
		snprintf(b, n, "unknown");
	else
		snprintf(b, n, "%.*f%s", dec, v, pct ? " %" : "");
	return b;
}

/* FLOPs per byte over many decades: three significant figures at most, never an exponent. */
static const char *kc_intensity(char *b, size_t n, double v)
{
	if (!isfinite(v))
		snprintf(b, n, "unknown");
	else if (v >= 0.1 || v <= 0)
		snprintf(b, n, "%.*f", v >= 100 || v <= 0 ? 0 : v >= 10 ? 1 : 2, v);
	else
		snprintf(b, n, "%.2g", v);
	return b;
}

/* One kernel's cells, as text (not yet made safe for a terminal or HTML: the kernel's name
 * comes from the profile). "-" for a kernel without a profiled launch, "unknown" for a
 * quantity its launches did not carry (as the counters columns, pm_cell). */
void gd_report_kc_row(const struct gd_profile *p, const struct gd_kc_kernel *k,
		      char cell[GD_REPORT_KC_COLS][GD_REPORT_KC_CELL])
{
	const size_t n = GD_REPORT_KC_CELL;
	char a[32], t[32];
	const char *nm = k->name >= 0 && k->name < p->nnames ? p->names[k->name] : NULL;
	gd_kernel_short_name(nm ? nm : "", cell[0], n);
	snprintf(cell[1], n, "%d", k->launches);
	if (k->launches <= 0) {
		for (int c = 2; c < GD_REPORT_KC_COLS; c++)
			snprintf(cell[c], n, "-");
		return;
	}
	gd_fmt_time(cell[2], n, k->q[GD_KC_DURATION]);
	gd_fmt_si(cell[3], n, k->dram_bps, "B/s");
	gd_fmt_si(cell[4], n, k->flop_s, "FLOP/s");
	snprintf(cell[5], n, "%s",
		 isfinite(k->ceiling) && k->prec >= 0 && k->prec < GD_P_COUNT ? gd_prec_name((enum gd_prec)k->prec) : "unknown");
	kc_intensity(cell[6], n, k->intensity);
	snprintf(cell[7], n, "%s", bound_name(k->bound));
	kc_num(cell[8], n, k->roof_pct, 0, 1);
	snprintf(cell[9], n, "%s / %s", kc_num(a, sizeof(a), k->achieved_occ_pct, 0, 1),
		 kc_num(t, sizeof(t), k->theoretical_occ_pct, 0, 1));
	kc_num(cell[10], n, k->ld_sectors_per_req, 1, 0);
	kc_num(cell[11], n, k->ld_used_pct, 1, 1);
	kc_num(cell[12], n, k->threads_per_inst, 1, 0);
	if (k->stall[0] >= GD_KC_STALL_FIRST && k->stall[0] <= GD_KC_STALL_LAST && isfinite(k->stall_pct[0]))
		snprintf(cell[13], n, "%s %.0f %%", stall_reason(k->stall[0]), k->stall_pct[0]);
	else
		snprintf(cell[13], n, "unknown");
}

/* Launches by status (p->kl): n[GD_KL_STATUS_COUNT]. */
static void kl_counts(const struct gd_profile *p, long *n)
{
	memset(n, 0, GD_KL_STATUS_COUNT * sizeof(*n));
	for (long i = 0; i < p->nkl; i++)
		if (p->kl[i].status >= 0 && p->kl[i].status < GD_KL_STATUS_COUNT)
			n[p->kl[i].status]++;
}

static const char *kl_status_name(int st)
{
	return st >= 0 && st < GD_KL_STATUS_COUNT ? gd_kl_status_names[st] : "unknown";
}

/* The recorded name of a profiled launch: its kernel record's demangled name when linked. */
static const char *kl_name(const struct gd_profile *p, const struct gd_klaunch *l)
{
	int id = l->name;
	if (l->kernel >= 0 && l->kernel < p->nk && p->k[l->kernel].dname > 0)
		id = p->k[l->kernel].dname;
	return id >= 0 && id < p->nnames && p->names[id] ? p->names[id] : "";
}

/* 1 when a kernel of the view ran on device d. */
static int kc_device_used(const struct gd_kc_view *v, int d)
{
	for (int i = 0; i < v->nk; i++)
		if (v->k[i].device == d)
			return 1;
	return 0;
}

/* "DRAM 4.10 TB/s, FP32 67.0 TFLOP/s, BF16 tensor 989 TFLOP/s" of the precisions present. */
static void kc_ceil_figures(const struct gd_kc_view *v, int d, char *b, size_t n)
{
	const struct gd_kc_ceilings *c = &v->ceil[d];
	char x[32];
	size_t len = (size_t)snprintf(b, n, "DRAM %s", gd_fmt_si(x, sizeof(x), c->dram_bps, "B/s"));
	for (int q = 0; q < GD_P_COUNT && len < n; q++) {
		int used = 0;
		for (int i = 0; i < v->nk && !used; i++)
			used = v->k[i].device == d && v->k[i].prec == q && isfinite(v->k[i].ceiling);
		if (!used)
			continue;
		if (isfinite(c->cuda_core[q]) && len < n)
			len += (size_t)snprintf(b + len, n - len, ", %s %s", gd_prec_name((enum gd_prec)q),
						gd_fmt_si(x, sizeof(x), c->cuda_core[q], "FLOP/s"));
		if (isfinite(c->tensor[q]) && len < n)
			len += (size_t)snprintf(b + len, n - len, ", %s tensor %s", gd_prec_name((enum gd_prec)q),
						gd_fmt_si(x, sizeof(x), c->tensor[q], "FLOP/s"));
	}
}

#define KC_SKIPPED_SHOWN 10

/* "and 12 more kernels (--top N shows more, --json or --format csv every one)" under a table
 * cut at `top` rows. */
static void more_rows(long n, int top, const char *what, FILE *out)
{
	if (n > top)
		fprintf(out, "    %sand %ld more %s (--top N shows more)%s\n", gd_dim(), n - top, what, gd_reset());
}

/* ---- the terminal verdict ---- */
/* The op and module that launched a finding's kernels (gd_verdicts_add_framework): shown even
 * past the first six lines of evidence, as they say where in the user's code to look. */
static int fw_evidence(const struct gd_evidence *e)
{
	return !strcmp(e->key, "module_kernels_per_call") || !strcmp(e->key, "op_kernels_per_call") ||
	       !strcmp(e->key, "op_module");
}

static void print_verdict(const struct gd_verdicts *v, FILE *out)
{
	char b1[32];
	const struct gd_finding *top = &v->f[v->order[0]];
	fprintf(out, "\n%sVERDICT%s  ", gd_bold(), gd_reset());
	/* top_line: the top finding's headline, or "No problem found…" with why a low busy
	 * figure is no problem (verdict.h) */
	fprintf(out, "%s%s%s\n", v->nwarn ? sev_color(top->severity) : gd_green(), gd_tty(v->top_line), gd_reset());

	int n = 0;
	for (int i = 0; i < GD_R_COUNT; i++) {
		const struct gd_finding *f = &v->f[v->order[i]];
		if (f->state != GD_FIRED)
			continue;
		if (!n++)
			fprintf(out, "\n%sFindings%s (ranked by severity, the run before a kernel, measured before guessed from names, then time at stake)\n", gd_bold(), gd_reset());
		fprintf(out, "\n %d. %s%-7s%s %s%s%s  %s", n, sev_color(f->severity), gd_sev_name(f->severity), gd_reset(),
			gd_bold(), f->title, gd_reset(), f->guide);
		if (isfinite(f->share))
			fprintf(out, "  at stake: %s of %s", gd_fmt_pct(b1, sizeof(b1), f->share), gd_stake_base(f->rule));
		if (f->basis == GD_BASIS_NAMES)
			fprintf(out, "  (from kernel names, not measured)");
		fprintf(out, "\n    %s\n", gd_tty(f->headline));
		for (int e = 0; e < f->nev; e++)
			if (e < 6 || fw_evidence(&f->ev[e]))
				fprintf(out, "    %s· %s%s\n", gd_dim(), gd_tty(f->ev[e].text), gd_reset());
		fprintf(out, "    → %s\n", gd_tty(f->advice));
	}
	int ni = 0;
	for (int i = 0; i < GD_R_COUNT; i++) {
		const struct gd_finding *f = &v->f[v->order[i]];
		if (f->state != GD_INSUFFICIENT)
			continue;
		if (!ni++)
			fprintf(out, "\n%sInsufficient signal%s (not judged, rather than guessed)\n", gd_bold(), gd_reset());
		fprintf(out, "  · %s: %s\n", f->title, gd_tty(f->headline));
	}
	fprintf(out, "\n%sClear:%s ", gd_bold(), gd_reset());
	int nc = 0;
	for (int i = 0; i < GD_R_COUNT; i++) {
		const struct gd_finding *f = &v->f[i];
		if (f->state == GD_CLEAR)
			fprintf(out, "%s%s", nc++ ? ", " : "", f->title);
	}
	fprintf(out, "%s\n", nc ? "" : "none");
}

/* ---- the terminal summary ---- */
static void summary_totals(const struct gd_analysis *a, FILE *out)
{
	const struct gd_summary *s = &a->s;
	const struct gd_verdicts *v = &a->v;
	const struct gd_loop_view *lv = &a->loop;
	char b[5][48];
	fprintf(out, "\n%sSUMMARY%s\n", gd_bold(), gd_reset());
	/* GPU busy: the one figure (verdict.h), the same on the HTML page and in JSON */
	fprintf(out, "  wall time %s   GPU active span %s   GPU busy %s (%s of the %s judged: the active span less "
		     "start-up, first-launch and tear-down gaps; busy = union of kernel, copy and memset intervals)\n",
		gd_fmt_time(b[0], 48, s->wall_ns), gd_fmt_time(b[1], 48, s->span_ns), gd_fmt_pct(b[2], 48, v->busy_fraction),
		gd_fmt_time(b[3], 48, s->busy_ns), gd_fmt_time(b[4], 48, v->judged_ns));
	if (s->replay_cut_ns > 0)
		fprintf(out, "  (times without the %s gpudiag spent replaying %ld profiled launch%s for --metrics: "
			     "cut out of the timeline, the GPU idle meanwhile)\n",
			gd_fmt_time(b[0], 48, s->replay_cut_ns), s->replay_cut_launches,
			s->replay_cut_launches == 1 ? "" : "es");
	fprintf(out, "  %ld kernels (%s of kernel time), %ld copies/memsets (%s)\n", s->nkernels,
		gd_fmt_time(b[0], 48, s->kernel_ns), s->ncopies, gd_fmt_time(b[1], 48, s->copy_ns));
	if (lv->n > 0)
		fprintf(out, "  main loop: %ld iterations of %ld kernel%s, median %s, slowest #%ld %s\n", lv->n,
			v->loop_period, v->loop_period == 1 ? "" : "s", gd_fmt_time(b[0], 48, lv->median_ns), lv->slowest + 1,
			gd_fmt_time(b[1], 48, gd_iter_ns(&lv->it[lv->slowest])));
}

static void summary_top_kernels(const struct gd_profile *p, const struct gd_summary *s, int top, FILE *out)
{
	char b[3][48], pb[NTOP_PM][48];
	struct gd_table t;
	int pm[NTOP_PM], npm = 0;
	/* measured columns: the quantities some top kernel carries */
	for (int c = 0; c < NTOP_PM; c++)
		if (top_has(s, top, top_pm[c]))
			pm[npm++] = c;
	fprintf(out, "\n  %sTop kernels%s (%% of summed kernel time; occupancy is theoretical, from the launch "
		     "configuration and the recorded device properties)\n",
		gd_bold(), gd_reset());
	gd_table_init(&t, 9 + npm);
	for (int c = 2; c <= 7; c++)
		gd_table_align_right(&t, c);
	for (int c = 0; c < npm; c++)
		gd_table_align_right(&t, 9 + c);
	{
		const char *head[9 + NTOP_PM] = {"kernel", "kind / library", "total", "count", "mean", "% GPU", "occupancy",
						 "grid×block", "limiter"};
		for (int c = 0; c < npm; c++)
			head[9 + c] = top_pm_head[pm[c]];
		gd_table_row(&t, head);
	}
	for (int i = 0; i < s->nks && i < top; i++) {
		const struct gd_kstat *k = &s->ks[i];
		char kl[80], occ[32], gb[48], lim[96], cnt[32], name[64];
		const char *row[9 + NTOP_PM];
		snprintf(name, sizeof(name), "%.60s", gd_tty(k->short_name));
		snprintf(kl, sizeof(kl), "%s / %s", gd_kind_name(k->kind), gd_lib_name(k->lib));
		snprintf(cnt, sizeof(cnt), "%ld", k->count);
		snprintf(gb, sizeof(gb), "%lld×%d", k->grid_blocks, k->block_threads);
		if (k->occ_ok) {
			snprintf(occ, sizeof(occ), "%.0f %%", 100 * k->occ.occupancy);
			gd_occ_limiters_str(k->occ.limiters, lim, sizeof(lim));
		} else {
			snprintf(occ, sizeof(occ), "unknown");
			snprintf(lim, sizeof(lim), "-");
		}
		row[0] = name, row[1] = kl, row[2] = gd_fmt_time(b[0], 48, k->total_ns), row[3] = cnt;
		row[4] = gd_fmt_time(b[1], 48, k->total_ns / k->count);
		row[5] = gd_fmt_pct(b[2], 48, frac(k->total_ns, s->kernel_ns));
		row[6] = occ, row[7] = gb, row[8] = lim;
		for (int c = 0; c < npm; c++)
			row[9 + c] = pm_cell(pb[c], sizeof(pb[c]), k, top_pm[pm[c]]);
		gd_table_row(&t, row);
	}
	gd_table_print(&t, out, 4);
	gd_table_free(&t);
	more_rows(s->nks, top, "kernels", out);
	if (npm) {
		char iv[48], defs[256] = "";
		size_t len = 0;
		for (int c = 0; c < npm; c++)
			len += (size_t)snprintf(defs + len, sizeof(defs) - len, "%s%s = %s", c ? ", " : "", top_pm_head[pm[c]],
						top_pm_what[pm[c]]);
		if (p->pm_interval_ns > 0)
			gd_fmt_interval(iv, sizeof(iv), p->pm_interval_ns);
		fprintf(out, "    %smeasured: mean of the %s%sPM samples in which the kernel ran alone (%.0f %% of a sample, "
			     "at least %d samples);\n    '-' = too short or always concurrent. %% of peak: %s%s\n",
			gd_dim(), p->pm_interval_ns > 0 ? iv : "", p->pm_interval_ns > 0 ? " " : "",
			100 * GD_PM_ATTRIB_COVER, GD_PM_ATTRIB_MIN, defs, gd_reset());
	}
}

/* Kernel time by kind or by library: the same table over either breakdown of the summary. */
struct breakdown {
	const char *title, *head;
	int count;
	const double *ns;
	const long *n;
	const char *(*name)(int);
};

static struct breakdown by_kind(const struct gd_summary *s)
{
	return (struct breakdown){"By kind", "kind", GD_KIND_COUNT, s->kind_ns, s->kind_n, gd_kind_name};
}

static struct breakdown by_lib(const struct gd_summary *s)
{
	return (struct breakdown){"By library", "library", GD_LIB_COUNT, s->lib_ns, s->lib_n, gd_lib_name};
}

static void summary_breakdown(const struct gd_summary *s, struct breakdown d, FILE *out)
{
	char b[2][48];
	struct gd_table t;
	fprintf(out, "\n  %s%s%s\n", gd_bold(), d.title, gd_reset());
	gd_table_init(&t, 4);
	for (int c = 1; c <= 3; c++)
		gd_table_align_right(&t, c);
	gd_table_rowv(&t, d.head, "time", "kernels", "% GPU");
	for (int k = 0; k < d.count; k++) {
		char cnt[32];
		if (!d.n[k])
			continue;
		snprintf(cnt, sizeof(cnt), "%ld", d.n[k]);
		gd_table_rowv(&t, d.name(k), gd_fmt_time(b[0], 48, d.ns[k]), cnt,
			      gd_fmt_pct(b[1], 48, frac(d.ns[k], s->kernel_ns)));
	}
	gd_table_print(&t, out, 4);
	gd_table_free(&t);
}

static void summary_copies(const struct gd_summary *s, FILE *out)
{
	char b[5][48];
	struct gd_table t;
	fprintf(out, "\n  %sCopies%s (bandwidth = bytes / summed copy time)\n", gd_bold(), gd_reset());
	gd_table_init(&t, 6);
	for (int c = 1; c <= 4; c++)
		gd_table_align_right(&t, c);
	gd_table_rowv(&t, "kind", "count", "bytes", "time", "bandwidth", "pageable host memory");
	for (int k = 0; k < GD_CPY_COUNT; k++) {
		const struct gd_copystat *c = &s->cp[k];
		char cnt[32], pg[96];
		if (!c->count)
			continue;
		snprintf(cnt, sizeof(cnt), "%ld", c->count);
		if (c->pageable_count)
			snprintf(pg, sizeof(pg), "%s%ld copies, %s%s", gd_red(), c->pageable_count,
				 gd_fmt_bytes(b[4], 48, c->pageable_bytes), gd_reset());
		else
			snprintf(pg, sizeof(pg), "-");
		gd_table_rowv(&t, gd_copy_class_name(k), cnt, gd_fmt_bytes(b[0], 48, c->bytes), gd_fmt_time(b[1], 48, c->ns),
			      gd_fmt_si(b[2], 48, c->ns > 0 ? c->bytes / (c->ns * 1e-9) : NAN, "B/s"), pg);
	}
	gd_table_print(&t, out, 4);
	gd_table_free(&t);
}

/* The synchronising calls are counted as the synchronisation rule counts them (verdict.c):
 * explicit synchronisation and synchronous copies together, then each apart. */
static void summary_api(const struct gd_profile *p, const struct gd_summary *s, FILE *out)
{
	char b[3][48];
	if (p->have_api)
		fprintf(out, "\n  synchronising calls: %ld (%ld explicit synchronisation, %s blocked; %ld synchronous copies, "
			     "%s), launches: %ld (%s in launch calls)\n",
			s->api_n[GD_API_SYNC] + s->api_n[GD_API_COPY_SYNC], s->api_n[GD_API_SYNC],
			gd_fmt_time(b[0], 48, s->api_ns[GD_API_SYNC]), s->api_n[GD_API_COPY_SYNC],
			gd_fmt_time(b[1], 48, s->api_ns[GD_API_COPY_SYNC]), s->api_n[GD_API_LAUNCH],
			gd_fmt_time(b[2], 48, s->api_ns[GD_API_LAUNCH]));
	else
		fprintf(out, "\n  API calls were not traced: synchronisation time unknown\n");
}

/* A name of the profile, or `none` for a missing one. */
static const char *pname(const struct gd_profile *p, int id, const char *none)
{
	return id >= 0 && id < p->nnames && p->names[id] ? p->names[id] : none;
}

/* ---- the statistics tables (analysis/tables.h) ---- */
static void summary_api_calls(const struct gd_profile *p, const struct gd_stat_tables *t, int top, FILE *out)
{
	struct gd_table tb;
	char b[5][48];
	if (!p->have_api || !t->napi)
		return;
	fprintf(out, "\n  %sAPI calls%s (by name; %% of the summed time of every traced call, %s)\n", gd_bold(), gd_reset(),
		gd_fmt_time(b[0], 48, t->api_ns));
	gd_table_init(&tb, 7);
	for (int c = 1; c <= 6; c++)
		gd_table_align_right(&tb, c);
	gd_table_rowv(&tb, "function", "calls", "total", "mean", "min", "max", "% API");
	for (long i = 0; i < t->napi && i < top; i++) {
		const struct gd_api_row *r = &t->api[i];
		char cnt[32];
		snprintf(cnt, sizeof(cnt), "%ld", r->count);
		gd_table_rowv(&tb, gd_tty(pname(p, r->name, "(unnamed)")), cnt, gd_fmt_time(b[0], 48, r->total_ns),
			      gd_fmt_time(b[1], 48, r->mean_ns), gd_fmt_time(b[2], 48, r->min_ns),
			      gd_fmt_time(b[3], 48, r->max_ns), gd_fmt_pct(b[4], 48, r->fraction));
	}
	gd_table_print(&tb, out, 4);
	gd_table_free(&tb);
	more_rows(t->napi, top, "functions", out);
}

static void summary_nvtx(const struct gd_profile *p, const struct gd_stat_tables *t, int top, FILE *out)
{
	struct gd_table tb;
	char b[7][48];
	long open = 0;
	if (!t->nnvtx)
		return;
	fprintf(out, "\n  %sNVTX ranges%s (by name; GPU: the kernels, copies and memsets launched inside the range on "
		     "its thread, their kernel time, and their projected GPU time, first start to last end)\n",
		gd_bold(), gd_reset());
	gd_table_init(&tb, 9);
	for (int c = 1; c <= 8; c++)
		gd_table_align_right(&tb, c);
	gd_table_rowv(&tb, "range", "count", "total", "mean", "min", "max", "GPU ops", "kernel time", "GPU projected");
	for (long i = 0; i < t->nnvtx; i++)
		open += t->nvtx[i].open;
	for (long i = 0; i < t->nnvtx && i < top; i++) {
		const struct gd_nvtx_row *r = &t->nvtx[i];
		char cnt[32], ops[32], name[160];
		const char *nm = r->label ? r->label : pname(p, r->name, "(unnamed)");
		if (r->domain >= 0)
			snprintf(name, sizeof(name), "%s:%s", gd_tty(pname(p, r->domain, "")), gd_tty(nm));
		else
			snprintf(name, sizeof(name), "%s", gd_tty(nm));
		snprintf(cnt, sizeof(cnt), "%ld", r->count);
		snprintf(ops, sizeof(ops), "%ld", r->gpu_ops);
		gd_table_rowv(&tb, name, cnt, gd_fmt_time(b[0], 48, r->total_ns), gd_fmt_time(b[1], 48, r->mean_ns),
			      gd_fmt_time(b[2], 48, r->min_ns), gd_fmt_time(b[3], 48, r->max_ns), ops,
			      r->kernels ? gd_fmt_time(b[4], 48, r->kernel_ns) : "-",
			      r->gpu_ops ? gd_fmt_time(b[5], 48, r->gpu_proj_ns) : "-");
	}
	gd_table_print(&tb, out, 4);
	gd_table_free(&tb);
	more_rows(t->nnvtx, top, "ranges", out);
	if (open || t->nvtx_marks)
		fprintf(out, "    %s%ld range%s never closed (not in the durations), %ld mark%s%s\n", gd_dim(), open,
			open == 1 ? "" : "s", t->nvtx_marks, t->nvtx_marks == 1 ? "" : "s", gd_reset());
}

static const char *stream_kind(const struct gd_stream_row *r)
{
	return r->legacy ? "legacy default" : r->nonblocking ? "non-blocking" : "blocking";
}

static void summary_streams(const struct gd_summary *s, const struct gd_stat_tables *t, int top, FILE *out)
{
	struct gd_table tb;
	char b[5][48];
	if (!t->nstreams)
		return;
	fprintf(out, "\n  %sStreams%s (busy = union of the stream's kernel, copy and memset intervals; %% of the GPU "
		     "active span)\n",
		gd_bold(), gd_reset());
	gd_table_init(&tb, 9);
	for (int c = 0; c <= 8; c++)
		if (c != 3)
			gd_table_align_right(&tb, c);
	gd_table_rowv(&tb, "GPU", "pid", "stream", "kind", "kernels", "kernel time", "copies", "copy time", "busy");
	for (long i = 0; i < t->nstreams && i < top; i++) {
		const struct gd_stream_row *r = &t->streams[i];
		char dev[16], pid[16], st[32], nk[32], nc[32], busy[96];
		snprintf(dev, sizeof(dev), "%d", r->device);
		snprintf(pid, sizeof(pid), "%d", r->pid);
		snprintf(st, sizeof(st), "%lld", (long long)r->stream);
		snprintf(nk, sizeof(nk), "%ld", r->kernels);
		snprintf(nc, sizeof(nc), "%ld", r->copies);
		snprintf(busy, sizeof(busy), "%s (%s)", gd_fmt_time(b[2], 48, r->busy_ns),
			 gd_fmt_pct(b[3], 48, frac(r->busy_ns, s->span_ns)));
		gd_table_rowv(&tb, dev, pid, st, stream_kind(r), nk, r->kernels ? gd_fmt_time(b[0], 48, r->kernel_ns) : "-",
			      nc, r->copies ? gd_fmt_time(b[1], 48, r->copy_ns) : "-", busy);
	}
	gd_table_print(&tb, out, 4);
	gd_table_free(&tb);
	more_rows(t->nstreams, top, "streams", out);
}

static void summary_threads(const struct gd_profile *p, const struct gd_stat_tables *t, int top, FILE *out)
{
	struct gd_table tb;
	char b[3][48];
	if (!p->have_api || !t->nthreads)
		return;
	fprintf(out, "\n  %sThreads%s (host threads that made CUDA calls; synchronising = explicit synchronisation and "
		     "synchronous copies)\n",
		gd_bold(), gd_reset());
	gd_table_init(&tb, 8);
	for (int c = 0; c <= 7; c++)
		gd_table_align_right(&tb, c);
	gd_table_rowv(&tb, "pid", "thread", "API calls", "API time", "launches", "synchronising", "sync time", "NVTX ranges");
	for (long i = 0; i < t->nthreads && i < top; i++) {
		const struct gd_thread_row *r = &t->threads[i];
		char pid[16], tid[32], na[32], nl[32], ns[32], nr[32];
		snprintf(pid, sizeof(pid), "%d", r->pid);
		snprintf(tid, sizeof(tid), "%lld", r->tid);
		snprintf(na, sizeof(na), "%ld", r->api_calls);
		snprintf(nl, sizeof(nl), "%ld", r->launches);
		snprintf(ns, sizeof(ns), "%ld", r->syncs);
		snprintf(nr, sizeof(nr), "%ld", r->nvtx_ranges);
		gd_table_rowv(&tb, pid, tid, na, gd_fmt_time(b[0], 48, r->api_ns), nl, ns, gd_fmt_time(b[1], 48, r->sync_ns), nr);
	}
	gd_table_print(&tb, out, 4);
	gd_table_free(&tb);
	more_rows(t->nthreads, top, "threads", out);
}

static void summary_nvml(const struct gd_profile *p, const struct gd_summary *s, FILE *out)
{
	char b[4][48], rs[256];
	if (!p->ns) {
		fprintf(out, "\n  NVML: no samples in this profile\n");
		return;
	}
	fprintf(out, "\n  %sNVML%s (%ld samples; min / mean / max)\n", gd_bold(), gd_reset(), p->ns);
	fprintf(out, "    utilisation %.0f / %.0f / %.0f %%   SM clock %.0f / %.0f / %.0f MHz   power %.0f / %.0f / "
		     "%.0f W   temperature %.0f / %.0f / %.0f °C\n",
		s->util.min, s->util.mean, s->util.max, s->sm_mhz.min, s->sm_mhz.mean, s->sm_mhz.max, s->power.min,
		s->power.mean, s->power.max, s->temp.min, s->temp.mean, s->temp.max);
	fprintf(out, "    memory used %s / %s / %s of %s   clock-event reasons seen: %s (%ld throttled samples)\n",
		gd_fmt_bytes(b[0], 48, s->mem_used.min), gd_fmt_bytes(b[1], 48, s->mem_used.mean),
		gd_fmt_bytes(b[2], 48, s->mem_used.max), gd_fmt_bytes(b[3], 48, s->mem_total),
		gd_clock_reasons_str(s->reasons_seen, rs, sizeof(rs)), s->throttled_samples);
}

/* "GPU counters": what meta.counters says, how many samples, and the mean of each quantity
 * over the GPU-busy time. Nothing for a profile that says nothing of counters. */
static void summary_counters(const struct gd_profile *p, const struct gd_summary *s, FILE *out)
{
	char b[48], lost[48];
	const double *mean = s->pm_busy;
	int n = 0, ndev;
	/* a status other than the three the contract knows is shown as it is */
	int odd = p->counters[0] && strcmp(p->counters, "ok");
	if (!has_counters(p))
		return;
	if (!strcmp(p->counters, "off")) {
		fprintf(out, "\n  GPU counters: off (gpudiag run --no-counters)\n");
		return;
	}
	if (!strncmp(p->counters, no_counters, strlen(no_counters))) {
		fprintf(out, "\n  GPU counters: not collected: %s\n", gd_tty(p->counters + strlen(no_counters)));
		return;
	}
	if (p->pm_lost >= 0)
		snprintf(lost, sizeof(lost), "%lld", p->pm_lost);
	else
		snprintf(lost, sizeof(lost), "unknown");
	ndev = s->pm_devices;
	fprintf(out, "\n  %sGPU counters%s%s%s%s: %ld PM samples", gd_bold(), gd_reset(), odd ? " (" : "",
		odd ? gd_tty(p->counters) : "", odd ? ")" : "", p->npm);
	if (p->pm_interval_ns > 0)
		fprintf(out, " every %s", gd_fmt_interval(b, sizeof(b), p->pm_interval_ns));
	fprintf(out, " on %d device%s, %s lost\n", ndev, ndev == 1 ? "" : "s", lost);
	for (int m = 0; m < GD_PM_COUNT; m++) {
		if (!isfinite(mean[m]))
			continue;
		/* six to a line */
		fprintf(out, "%s%s %s", !n ? "    mean over GPU-busy time: " : n % 6 ? "   " : "\n      ",
			gd_pm_metrics[m].label, pm_value(b, sizeof(b), m, mean[m]));
		n++;
	}
	if (n)
		fputc('\n', out);
}

/* "Kernel counters" (issue 19): which launches were profiled, with how many passes, which
 * were skipped and why, the metric set; the table of the kernels by time share; the skipped
 * launches. Nothing for a profile that says nothing of them. */
static void kc_header(const struct gd_profile *p, const struct gd_kc_view *v, FILE *out)
{
	long n[GD_KL_STATUS_COUNT];
	int first = 1;
	kl_counts(p, n);
	fprintf(out, "\n  %sKernel counters%s (gpudiag run --metrics", gd_bold(), gd_reset());
	if (p->metrics[0])
		fprintf(out, "=%s", gd_tty(p->metrics));
	fprintf(out, "): %ld launch%s profiled", v->profiled, v->profiled == 1 ? "" : "es");
	if (v->profiled > 0) {
		char how[256];
		fprintf(out, " (up to %d replay pass%s each", v->max_passes, v->max_passes == 1 ? "" : "es");
		if (gd_kc_replay_text(v, how, sizeof(how))[0])
			fprintf(out, "; %s", how);
		fputc(')', out);
	}
	fprintf(out, ", %ld skipped", v->skipped);
	for (int st = 1; st < GD_KL_STATUS_COUNT; st++) {
		if (!n[st])
			continue;
		fprintf(out, "%s%ld %s", first ? ": " : ", ", n[st], gd_kl_status_names[st]);
		first = 0;
	}
	fputc('\n', out);
	if (p->metrics_rejected[0])
		fprintf(out, "    metrics this GPU refused (unknown below): %s\n", gd_tty(p->metrics_rejected));
	if (p->metrics_note[0])
		fprintf(out, "    %s\n", gd_tty(p->metrics_note));
}

/* 1 when the view's kernels ran on more than one device: each row then names its GPU. */
static int kc_devices_differ(const struct gd_kc_view *v)
{
	for (int i = 1; i < v->nk; i++)
		if (v->k[i].device != v->k[0].device)
			return 1;
	return 0;
}

static void kc_table(const struct gd_profile *p, const struct gd_kc_view *v, int top, FILE *out)
{
	static char cell[GD_REPORT_KC_COLS][GD_REPORT_KC_CELL];
	const char *row[GD_REPORT_KC_COLS];
	char defs[1024], fig[256];
	size_t len = 0;
	struct gd_table t;
	gd_table_init(&t, GD_REPORT_KC_COLS);
	for (int c = 1; c <= 12; c++)
		if (c != 5 && c != 7)
			gd_table_align_right(&t, c);
	gd_table_row(&t, gd_report_kc_head);
	for (int i = 0; i < v->nk && i < top; i++) {
		char name[GD_REPORT_KC_CELL + 16];
		gd_report_kc_row(p, &v->k[i], cell);
		for (int c = 0; c < GD_REPORT_KC_COLS; c++)
			row[c] = cell[c];
		snprintf(name, sizeof(name), "%.60s", gd_tty(cell[0]));
		if (kc_devices_differ(v))
			snprintf(name + strlen(name), sizeof(name) - strlen(name), " (GPU %d)", v->k[i].device);
		row[0] = name;
		gd_table_row(&t, row);
	}
	gd_table_print(&t, out, 4);
	gd_table_free(&t);
	if (v->nk > top)
		fprintf(out, "    and %d more kernels (--top N shows more; --json lists them all)\n", v->nk - top);
	/* the columns' definitions, a few to a line */
	fprintf(out, "    %smedians over each kernel's profiled launches.", gd_dim());
	len = 50;
	for (int c = 1; c < GD_REPORT_KC_COLS; c++) {
		int w = snprintf(defs, sizeof(defs), "%s = %s%s", gd_report_kc_head[c], gd_report_kc_what[c],
				 c + 1 < GD_REPORT_KC_COLS ? ";" : "");
		if (len + (size_t)w > 120) {
			fputs("\n   ", out);
			len = 3;
		}
		fprintf(out, " %s", defs);
		len += (size_t)w + 1;
	}
	fprintf(out, "%s\n", gd_reset());
	for (int d = 0; d < v->nceil; d++) {
		if (!kc_device_used(v, d))
			continue;
		kc_ceil_figures(v, d, fig, sizeof(fig));
		fprintf(out, "    %sceilings of GPU %d: %s: %s%s\n", gd_dim(), d,
			v->ceil[d].source[0] ? gd_tty(v->ceil[d].source)
					     : v->ceil[d].measured ? "measured on this GPU" : "datasheet",
			fig, gd_reset());
	}
}

static void kc_skipped(const struct gd_profile *p, const struct gd_kc_view *v, FILE *out)
{
	struct gd_table t = {0};
	long shown = 0, left = 0;
	(void)v;
	for (long i = 0; i < p->nkl; i++) {
		const struct gd_klaunch *l = &p->kl[i];
		char name[64], who[48];
		if (l->status == GD_KL_OK)
			continue;
		if (shown == KC_SKIPPED_SHOWN) {
			left++;
			continue;
		}
		if (!shown) {
			fprintf(out, "    %sskipped launches%s\n", gd_bold(), gd_reset());
			gd_table_init(&t, 4);
			gd_table_rowv(&t, "kernel", "launch", "status", "why");
		}
		gd_kernel_short_name(kl_name(p, l), name, sizeof(name));
		snprintf(who, sizeof(who), "#%d of pid %d", l->nth + 1, l->pid);
		gd_table_rowv(&t, gd_tty(name), who, kl_status_name(l->status),
			      l->detail > 0 && l->detail < p->nnames ? gd_tty(p->names[l->detail]) : "-");
		shown++;
	}
	if (!shown)
		return;
	gd_table_print(&t, out, 6);
	gd_table_free(&t);
	if (left)
		fprintf(out, "      and %ld more (--json lists them all)\n", left);
}

static void summary_kcounters(const struct gd_profile *p, const struct gd_summary *s, int top, FILE *out)
{
	if (!has_kc(p))
		return;
	kc_header(p, &s->kc, out);
	if (s->kc.nk > 0)
		kc_table(p, &s->kc, top, out);
	kc_skipped(p, &s->kc, out);
}

static void print_summary(const struct gd_analysis *a, int top, FILE *out)
{
	const struct gd_profile *p = &a->p;
	const struct gd_summary *s = &a->s;
	summary_totals(a, out);
	gd_report_ranks_text(a, top, out);
	if (s->nks)
		summary_top_kernels(p, s, top, out);
	summary_kcounters(p, s, top, out);
	if (s->nks) {
		summary_breakdown(s, by_kind(s), out);
		summary_breakdown(s, by_lib(s), out);
	}
	if (s->ncopies)
		summary_copies(s, out);
	summary_api(p, s, out);
	summary_api_calls(p, &a->t, top, out);
	summary_nvtx(p, &a->t, top, out);
	summary_streams(s, &a->t, top, out);
	summary_threads(p, &a->t, top, out);
	summary_nvml(p, s, out);
	summary_counters(p, s, out);
}

/* ---- the framework view (analysis/framework.h) ---- */
/* A name cut to `max` characters with "…" (op names can be long: "autograd::engine::…"). */
static const char *cut(char *b, size_t n, const char *s, int max)
{
	if ((int)strlen(s) <= max)
		snprintf(b, n, "%s", s);
	else
		snprintf(b, n, "%.*s…", max - 1, s);
	return b;
}

static const char *module_path(const struct gd_fw_module *m)
{
	return m->none ? "(no module)" : m->path[0] ? m->path : "(root)";
}

const char *const gd_report_fw_op_head[GD_REPORT_FW_OP_COLS] = {"op",   "calls", "kernels", "per call",
								  "self", "% kernel", "total", "direction"};

void gd_report_fw_op_row(const struct gd_framework *fw, const struct gd_fw_op *o,
			 char cell[GD_REPORT_FW_OP_COLS][GD_REPORT_FW_CELL])
{
	const char *dir = gd_fw_dir_name(gd_fw_op_dir(o));
	snprintf(cell[0], GD_REPORT_FW_CELL, "%s", o->name);
	snprintf(cell[1], GD_REPORT_FW_CELL, "%ld", o->calls);
	snprintf(cell[2], GD_REPORT_FW_CELL, "%ld", o->kernels);
	if (o->calls)
		snprintf(cell[3], GD_REPORT_FW_CELL, "%.2f", (double)o->kernels / (double)o->calls);
	else
		snprintf(cell[3], GD_REPORT_FW_CELL, "-");
	gd_fmt_time(cell[4], GD_REPORT_FW_CELL, o->self_ns);
	gd_fmt_pct(cell[5], GD_REPORT_FW_CELL, frac(o->self_ns, fw->kernel_ns));
	gd_fmt_time(cell[6], GD_REPORT_FW_CELL, o->total_ns);
	snprintf(cell[7], GD_REPORT_FW_CELL, "%s", dir ? dir : "-");
}

static void framework_ops(const struct gd_framework *fw, int top, FILE *out)
{
	struct gd_table tb;
	char cell[GD_REPORT_FW_OP_COLS][GD_REPORT_FW_CELL], nm[96];
	fprintf(out, "\n  %sTop ops%s (by self time; self: the kernels the op launched itself, total: with the ops it "
		     "called; %% of summed kernel time)\n",
		gd_bold(), gd_reset());
	gd_table_init(&tb, GD_REPORT_FW_OP_COLS);
	for (int c = 1; c <= 6; c++)
		gd_table_align_right(&tb, c);
	gd_table_row(&tb, gd_report_fw_op_head);
	for (long i = 0; i < fw->nops && i < top; i++) {
		const char *row[GD_REPORT_FW_OP_COLS];
		gd_report_fw_op_row(fw, &fw->ops[i], cell);
		for (int c = 0; c < GD_REPORT_FW_OP_COLS; c++)
			row[c] = cell[c];
		row[0] = cut(nm, sizeof(nm), gd_tty(cell[0]), 64);
		gd_table_row(&tb, row);
	}
	gd_table_print(&tb, out, 4);
	gd_table_free(&tb);
	more_rows(fw->nops, top, "ops", out);
}

/* "model.py:31 (+1)": where a module's sampled calls came from most, and how many other places;
 * "" when none was sampled. */
static const char *called_from(char *b, size_t n, const struct gd_framework *fw, const struct gd_fw_module *m)
{
	char loc[300];
	if (!m->nfrom) {
		snprintf(b, n, "%s", "");
		return b;
	}
	gd_fw_loc_label(loc, sizeof(loc), &fw->locs[m->from[0].loc]);
	if (m->nfrom > 1)
		snprintf(b, n, "%s (+%ld)", loc, m->nfrom - 1);
	else
		snprintf(b, n, "%s", loc);
	return b;
}

static void framework_modules(const struct gd_framework *fw, int top, FILE *out)
{
	struct gd_table tb;
	char b[7][48], nm[96], cl[64], from[320], fc[96];
	/* the "called from" column only for a profile with source marks (--python-stack), so that
	 * other profiles' report stays what it was */
	int src = fw->nlocs > 0;
	fprintf(out, "\n  %sTop modules%s (by self time; self: kernels launched in the module outside its submodules, "
		     "backward kernels by the seq of their forward op; total: with its submodules)\n",
		gd_bold(), gd_reset());
	if (src)
		fprintf(out, "    called from: the source line that called the module, from a sample of its first calls "
			     "(--python-stack), the most sampled first (+N other lines)\n");
	gd_table_init(&tb, 9 + src);
	for (int c = 2; c <= 8; c++)
		gd_table_align_right(&tb, c);
	gd_table_rowv(&tb, "module", "class", "calls", "kernels", "self", "% kernel", "total", "forward", "backward",
		      "called from");
	for (long i = 0; i < fw->nmodules && i < top; i++) {
		const struct gd_fw_module *m = &fw->modules[i];
		snprintf(b[0], 48, "%ld", m->calls);
		snprintf(b[1], 48, "%ld", m->kernels);
		gd_table_rowv(&tb, cut(nm, sizeof(nm), gd_tty(module_path(m)), 64),
			      m->cls ? cut(cl, sizeof(cl), gd_tty(m->cls), 40) : "", b[0], b[1],
			      gd_fmt_time(b[2], 48, m->self_ns), gd_fmt_pct(b[3], 48, frac(m->self_ns, fw->kernel_ns)),
			      gd_fmt_time(b[4], 48, m->total_ns), gd_fmt_time(b[5], 48, m->fwd_ns),
			      gd_fmt_time(b[6], 48, m->bwd_ns),
			      cut(fc, sizeof(fc), gd_tty(called_from(from, sizeof(from), fw, m)), 60));
	}
	gd_table_print(&tb, out, 4);
	gd_table_free(&tb);
	more_rows(fw->nmodules, top, "modules", out);
}

static void framework_fused(const struct gd_framework *fw, int top, FILE *out)
{
	struct gd_table tb;
	char b[3][48], nm[96], ops[96];
	fprintf(out, "\n  %sInductor kernels%s (torch.compile's Triton kernels; the ops each fused, read from its "
		     "name)\n",
		gd_bold(), gd_reset());
	gd_table_init(&tb, 5);
	for (int c = 3; c <= 4; c++)
		gd_table_align_right(&tb, c);
	gd_table_rowv(&tb, "kernel", "kind", "fused ops", "count", "time");
	for (long i = 0; i < fw->nfused && i < top; i++) {
		const struct gd_fw_fused *f = &fw->fused[i];
		snprintf(b[0], 48, "%ld", f->kernels);
		gd_table_rowv(&tb, cut(nm, sizeof(nm), gd_tty(f->kernel), 60), f->kind,
			      f->ops[0] ? cut(ops, sizeof(ops), gd_tty(f->ops), 60) : "(none named)", b[0],
			      gd_fmt_time(b[1], 48, f->ns));
	}
	gd_table_print(&tb, out, 4);
	gd_table_free(&tb);
	more_rows(fw->nfused, top, "kernels", out);
}

static void print_framework(const struct gd_analysis *a, int top, FILE *out)
{
	const struct gd_framework *fw = &a->fw;
	char b[48];
	if (!fw->present)
		return;
	fprintf(out, "\n%sFRAMEWORK%s  ", gd_bold(), gd_reset());
	if (fw->mode[0])
		fprintf(out, "PyTorch %s, instrumented by gpudiag run --torch %s%s\n", gd_tty(fw->torch), gd_tty(fw->mode),
			fw->modes_differ ? " (processes differ; the first one's)" : "");
	else if (fw->xla_ranges && fw->xla_ranges == fw->op_ranges + fw->module_ranges)
		fprintf(out, "JAX/XLA: its HLO ops (Thunk ranges) and executables (XlaModule ranges), as XLA "
			     "annotates them\n");
	else if (fw->op_ranges || fw->module_ranges)
		fprintf(out, "op and module ranges in the profile (no gpudiag torch mark: recorded without its "
			     "instrumentation)\n");
	else
		fprintf(out, "torch.compile's kernels (no op or module ranges in the profile)\n");
	fprintf(out, "  GPU time = the durations of the kernels each op or module launched (copies and memsets not "
		     "counted); a kernel belongs to the ranges around its launch call on the launching thread\n");
	if (fw->op_ranges || fw->module_ranges)
		fprintf(out, "  %ld op ranges (%ld in backward), %ld module ranges; %s of kernel time in all\n",
			fw->op_ranges, fw->bwd_ranges, fw->module_ranges, gd_fmt_time(b, 48, fw->kernel_ns));
	if (fw->nops)
		framework_ops(fw, top, out);
	else if (fw->module_ranges)
		fprintf(out, "\n  No op ranges: recorded with --torch modules (--torch ops adds the aten ops)\n");
	if (fw->nmodules)
		framework_modules(fw, top, out);
	if (fw->nfused)
		framework_fused(fw, top, out);
	if (fw->no_launcher)
		fprintf(out, "    %s%ld kernels' launch calls are not in the profile: no op, no module%s\n", gd_dim(),
			fw->no_launcher, gd_reset());
}

/* ---- JSON (docs/json.md, "report") ---- */
static void json_range(struct gd_json *j, const char *key, const struct gd_range *r)
{
	gd_json_obj(j, key);
	gd_json_num(j, "min", r->min);
	gd_json_num(j, "mean", r->mean);
	gd_json_num(j, "max", r->max);
	gd_json_obj_end(j);
}

static void json_profile(struct gd_json *j, const struct gd_profile *p)
{
	gd_json_str(j, "profile", p->path[0] ? p->path : NULL);
	gd_json_int(j, "schema_version", p->schema_version);
	gd_json_str(j, "sample_label", p->label[0] ? p->label : NULL);
	gd_json_bool(j, "synthetic", p->synthetic);
	gd_json_str(j, "command", p->command[0] ? p->command : NULL);
	gd_json_int(j, "rejected_rows", p->bad_rows);
	gd_json_obj(j, "gpu");
	if (p->ndev) {
		char cc[16];
		snprintf(cc, sizeof(cc), "%d.%d", p->dev[0].major, p->dev[0].minor);
		gd_json_str(j, "name", p->dev[0].name);
		gd_json_str(j, "compute_capability", cc);
		gd_json_int(j, "sm_count", p->dev[0].sm_count);
	} else {
		gd_json_null(j, "name");
		gd_json_null(j, "compute_capability");
		gd_json_null(j, "sm_count");
	}
	gd_json_int(j, "devices", p->ndev);
	gd_json_obj_end(j);
}

/* ---- the tables, in JSON and CSV/TSV alike (core/table.h): each table's columns are written
 * once; the JSON document adds the keys around them and a few nested objects (a finding's
 * evidence, a kernel's counters) that have no place in a flat table. ---- */
static const char *const findings_cols[] = {"id", "title", "guide", "state", "severity", "share_at_stake", "basis",
					    "headline", "advice", "kernel"};
#define NCOLS(a) ((int)(sizeof(a) / sizeof(a[0])))

static void tw_findings(struct gd_tw *w, const struct gd_verdicts *v)
{
	if (!gd_tw_begin(w, "findings", NULL, findings_cols, NCOLS(findings_cols)))
		return;
	for (int i = 0; i < GD_R_COUNT; i++) {
		const struct gd_finding *f = &v->f[v->order[i]];
		if (f->state == GD_NOT_APPLICABLE)
			continue;
		gd_tw_row(w);
		gd_tw_str(w, f->id);
		gd_tw_str(w, f->title);
		gd_tw_str(w, f->guide);
		gd_tw_str(w, f->state == GD_FIRED ? "fired" : f->state == GD_INSUFFICIENT ? "insufficient" : "clear");
		gd_tw_str(w, f->state == GD_FIRED ? gd_sev_name(f->severity) : NULL);
		gd_tw_num(w, f->share);
		/* what a fired finding rests on: "trace", "counters" or "kernel names" (verdict.h) */
		gd_tw_str(w, f->state == GD_FIRED ? gd_basis_name(f->basis) : NULL);
		gd_tw_str(w, f->headline);
		gd_tw_str(w, f->advice[0] ? f->advice : NULL);
		gd_tw_str(w, f->kernel[0] ? f->kernel : NULL);
		if (w->format == GD_FMT_JSON) {
			struct gd_json *j = w->j;
			gd_json_arr(j, "evidence");
			for (int e = 0; e < f->nev; e++) {
				gd_json_obj(j, NULL);
				gd_json_str(j, "key", f->ev[e].key);
				gd_json_num(j, "value", f->ev[e].value);
				gd_json_str(j, "unit", f->ev[e].unit);
				gd_json_str(j, "text", f->ev[e].text);
				gd_json_obj_end(j);
			}
			gd_json_arr_end(j);
		}
		gd_tw_row_end(w);
	}
	gd_tw_end(w);
}

static void json_verdicts(struct gd_tw *w, const struct gd_verdicts *v)
{
	struct gd_json *j = w->j;
	const struct gd_finding *top = &v->f[v->order[0]];
	gd_json_obj(j, "verdict");
	gd_json_str(j, "top", v->nwarn ? top->id : NULL);
	gd_json_str(j, "headline", v->top_line);
	gd_json_int(j, "findings", v->nfired);
	gd_json_int(j, "warnings", v->nwarn);
	gd_json_obj_end(j);
	tw_findings(w, v);
}

/* A top kernel's measured counters: null when no sample was attributed to it, else the
 * number of samples and every quantity (null where its samples did not carry it). */
static void json_kernel_counters(struct gd_json *j, const struct gd_kstat *k)
{
	if (k->pm_samples <= 0) {
		gd_json_null(j, "counters");
		return;
	}
	gd_json_obj(j, "counters");
	gd_json_int(j, "samples", k->pm_samples);
	for (int m = 0; m < GD_PM_COUNT; m++)
		gd_json_num(j, gd_pm_metrics[m].column, k->pm[m]);
	gd_json_num(j, "dram_bps", k->pm_dram_bps);
	gd_json_obj_end(j);
}

static const char *const kernels_cols[] = {"name", "short_name", "kind", "library", "total_ns", "count", "mean_ns",
					   "min_ns", "max_ns", "gpu_time_fraction", "grid_blocks", "block_threads",
					   "registers", "shared_memory_bytes", "occupancy", "occupancy_limiter", "waves"};

static void tw_top_kernels(struct gd_tw *w, const struct gd_summary *s, int top, int show_counters)
{
	char lim[96];
	if (!gd_tw_begin(w, "kernels", "top_kernels", kernels_cols, NCOLS(kernels_cols)))
		return;
	for (int i = 0; i < s->nks && i < top; i++) {
		const struct gd_kstat *k = &s->ks[i];
		gd_tw_row(w);
		gd_tw_str(w, k->full);
		gd_tw_str(w, k->short_name);
		gd_tw_str(w, gd_kind_name(k->kind));
		gd_tw_str(w, gd_lib_name(k->lib));
		gd_tw_num(w, k->total_ns);
		gd_tw_int(w, k->count);
		gd_tw_num(w, k->total_ns / k->count);
		gd_tw_num(w, k->min_ns);
		gd_tw_num(w, k->max_ns);
		gd_tw_num(w, frac(k->total_ns, s->kernel_ns));
		gd_tw_int(w, k->grid_blocks);
		gd_tw_int(w, k->block_threads);
		if (k->regs >= 0)
			gd_tw_int(w, k->regs);
		else
			gd_tw_null(w);
		gd_tw_int(w, (long long)k->static_smem + k->dyn_smem);
		gd_tw_num(w, k->occ_ok ? k->occ.occupancy : NAN);
		gd_tw_str(w, k->occ_ok ? gd_occ_limiters_str(k->occ.limiters, lim, sizeof(lim)) : NULL);
		gd_tw_num(w, k->waves);
		if (show_counters && w->format == GD_FMT_JSON)
			json_kernel_counters(w->j, k);
		gd_tw_row_end(w);
	}
	gd_tw_end(w);
}

static void tw_breakdown(struct gd_tw *w, const char *table, const char *key, const struct gd_summary *s,
			 struct breakdown d)
{
	const char *const cols[] = {d.head, "total_ns", "count", "gpu_time_fraction"};
	if (!gd_tw_begin(w, table, key, cols, NCOLS(cols)))
		return;
	for (int k = 0; k < d.count; k++) {
		if (!d.n[k])
			continue;
		gd_tw_row(w);
		gd_tw_str(w, d.name(k));
		gd_tw_num(w, d.ns[k]);
		gd_tw_int(w, d.n[k]);
		gd_tw_num(w, frac(d.ns[k], s->kernel_ns));
		gd_tw_row_end(w);
	}
	gd_tw_end(w);
}

static const char *const copies_cols[] = {"kind", "count", "bytes", "total_ns", "bandwidth_bps", "pageable_count",
					  "pageable_bytes"};

static void tw_copies(struct gd_tw *w, const struct gd_summary *s)
{
	if (!gd_tw_begin(w, "copies", NULL, copies_cols, NCOLS(copies_cols)))
		return;
	for (int k = 0; k < GD_CPY_COUNT; k++) {
		const struct gd_copystat *c = &s->cp[k];
		if (!c->count)
			continue;
		gd_tw_row(w);
		gd_tw_str(w, gd_copy_class_name(k));
		gd_tw_int(w, c->count);
		gd_tw_num(w, c->bytes);
		gd_tw_num(w, c->ns);
		gd_tw_num(w, c->ns > 0 ? c->bytes / (c->ns * 1e-9) : NAN);
		gd_tw_int(w, c->pageable_count);
		gd_tw_num(w, c->pageable_bytes);
		gd_tw_row_end(w);
	}
	gd_tw_end(w);
}

static const char *const api_cols[] = {"name", "category", "count", "total_ns", "mean_ns", "min_ns", "max_ns",
				       "std_ns", "api_time_fraction"};
static const char *const api_cat_names[GD_API_CAT_COUNT] = {"other", "launch", "sync", "copy_sync",
							    "copy_async", "alloc", "free"};

static void tw_api_calls(struct gd_tw *w, const struct gd_profile *p, const struct gd_stat_tables *t, int top)
{
	if (!gd_tw_begin(w, "api", "api_calls", api_cols, NCOLS(api_cols)))
		return;
	for (long i = 0; i < t->napi && i < top; i++) {
		const struct gd_api_row *r = &t->api[i];
		gd_tw_row(w);
		gd_tw_str(w, pname(p, r->name, NULL));
		gd_tw_str(w, r->cat >= 0 && r->cat < GD_API_CAT_COUNT ? api_cat_names[r->cat] : "other");
		gd_tw_int(w, r->count);
		gd_tw_num(w, r->total_ns);
		gd_tw_num(w, r->mean_ns);
		gd_tw_num(w, r->min_ns);
		gd_tw_num(w, r->max_ns);
		gd_tw_num(w, r->std_ns);
		gd_tw_num(w, r->fraction);
		gd_tw_row_end(w);
	}
	gd_tw_end(w);
}

static const char *const nvtx_cols[] = {"name", "domain", "count", "total_ns", "mean_ns", "min_ns", "max_ns",
					"std_ns", "open", "gpu_ops", "kernels", "kernel_ns", "gpu_projected_ns"};

static void tw_nvtx(struct gd_tw *w, const struct gd_profile *p, const struct gd_stat_tables *t, int top)
{
	if (!gd_tw_begin(w, "nvtx", "nvtx_ranges", nvtx_cols, NCOLS(nvtx_cols)))
		return;
	for (long i = 0; i < t->nnvtx && i < top; i++) {
		const struct gd_nvtx_row *r = &t->nvtx[i];
		gd_tw_row(w);
		gd_tw_str(w, r->label ? r->label : pname(p, r->name, NULL));
		gd_tw_str(w, pname(p, r->domain, NULL));
		gd_tw_int(w, r->count);
		gd_tw_num(w, r->total_ns);
		gd_tw_num(w, r->mean_ns);
		gd_tw_num(w, r->min_ns);
		gd_tw_num(w, r->max_ns);
		gd_tw_num(w, r->std_ns);
		gd_tw_int(w, r->open);
		gd_tw_int(w, r->gpu_ops);
		gd_tw_int(w, r->kernels);
		gd_tw_num(w, r->kernel_ns);
		gd_tw_num(w, r->gpu_proj_ns);
		gd_tw_row_end(w);
	}
	gd_tw_end(w);
}

static const char *const streams_cols[] = {"device", "pid", "stream", "kind", "kernels", "kernel_ns", "copies",
					   "copy_bytes", "copy_ns", "busy_ns", "busy_fraction_of_span",
					   "first_start", "last_end"};

static void tw_streams(struct gd_tw *w, const struct gd_summary *s, const struct gd_stat_tables *t, int top)
{
	if (!gd_tw_begin(w, "streams", NULL, streams_cols, NCOLS(streams_cols)))
		return;
	for (long i = 0; i < t->nstreams && i < top; i++) {
		const struct gd_stream_row *r = &t->streams[i];
		gd_tw_row(w);
		gd_tw_int(w, r->device);
		gd_tw_int(w, r->pid);
		gd_tw_int(w, r->stream);
		gd_tw_str(w, stream_kind(r));
		gd_tw_int(w, r->kernels);
		gd_tw_num(w, r->kernel_ns);
		gd_tw_int(w, r->copies);
		gd_tw_num(w, r->copy_bytes);
		gd_tw_num(w, r->copy_ns);
		gd_tw_num(w, r->busy_ns);
		gd_tw_num(w, frac(r->busy_ns, s->span_ns));
		gd_tw_int(w, r->first);
		gd_tw_int(w, r->last);
		gd_tw_row_end(w);
	}
	gd_tw_end(w);
}

static const char *const threads_cols[] = {"pid", "tid", "api_calls", "api_ns", "launches", "launch_ns",
					   "sync_calls", "sync_ns", "nvtx_ranges"};

static void tw_threads(struct gd_tw *w, const struct gd_stat_tables *t, int top)
{
	if (!gd_tw_begin(w, "threads", NULL, threads_cols, NCOLS(threads_cols)))
		return;
	for (long i = 0; i < t->nthreads && i < top; i++) {
		const struct gd_thread_row *r = &t->threads[i];
		gd_tw_row(w);
		gd_tw_int(w, r->pid);
		gd_tw_int(w, r->tid);
		gd_tw_int(w, r->api_calls);
		gd_tw_num(w, r->api_ns);
		gd_tw_int(w, r->launches);
		gd_tw_num(w, r->launch_ns);
		gd_tw_int(w, r->syncs);
		gd_tw_num(w, r->sync_ns);
		gd_tw_int(w, r->nvtx_ranges);
		gd_tw_row_end(w);
	}
	gd_tw_end(w);
}

static void json_api(struct gd_json *j, const struct gd_profile *p, const struct gd_summary *s)
{
	gd_json_obj(j, "api");
	gd_json_bool(j, "traced", p->have_api);
	/* as the synchronisation rule counts them: explicit synchronisation + synchronous copies */
	gd_json_int(j, "synchronising_calls", s->api_n[GD_API_SYNC] + s->api_n[GD_API_COPY_SYNC]);
	gd_json_int(j, "sync_calls", s->api_n[GD_API_SYNC]);
	gd_json_num(j, "sync_ns", p->have_api ? s->api_ns[GD_API_SYNC] : NAN);
	gd_json_int(j, "sync_copy_calls", s->api_n[GD_API_COPY_SYNC]);
	gd_json_num(j, "sync_copy_ns", p->have_api ? s->api_ns[GD_API_COPY_SYNC] : NAN);
	gd_json_int(j, "launch_calls", s->api_n[GD_API_LAUNCH]);
	gd_json_num(j, "launch_ns", p->have_api ? s->api_ns[GD_API_LAUNCH] : NAN);
	gd_json_int(j, "alloc_calls", s->api_n[GD_API_ALLOC] + s->api_n[GD_API_FREE]);
	gd_json_obj_end(j);
}

static void json_nvml(struct gd_json *j, const struct gd_profile *p, const struct gd_summary *s)
{
	char rs[256];
	gd_json_obj(j, "nvml");
	gd_json_int(j, "samples", p->ns);
	json_range(j, "util_gpu_pct", &s->util);
	json_range(j, "mem_used_bytes", &s->mem_used);
	gd_json_num(j, "mem_total_bytes", s->mem_total);
	json_range(j, "power_w", &s->power);
	json_range(j, "temp_c", &s->temp);
	json_range(j, "sm_mhz", &s->sm_mhz);
	gd_json_str(j, "clock_reasons_seen", p->ns ? gd_clock_reasons_str(s->reasons_seen, rs, sizeof(rs)) : NULL);
	gd_json_int(j, "throttled_samples", s->throttled_samples);
	gd_json_obj_end(j);
}

/* summary.counters (docs/json.md): the status of meta.counters, the sampling, the quantities
 * collected and their means over the GPU-busy time. */
static void json_counters(struct gd_json *j, const struct gd_profile *p, const struct gd_summary *s)
{
	const double *mean = s->pm_busy;
	int refused = !strncmp(p->counters, no_counters, strlen(no_counters));
	gd_json_obj(j, "counters");
	gd_json_str(j, "status", refused ? "no counters" : p->counters[0] ? p->counters : NULL);
	gd_json_str(j, "reason", refused ? p->counters + strlen(no_counters) : NULL);
	if (p->pm_interval_ns > 0)
		gd_json_int(j, "interval_ns", p->pm_interval_ns);
	else
		gd_json_null(j, "interval_ns");
	gd_json_int(j, "samples", p->npm);
	if (p->pm_lost >= 0)
		gd_json_int(j, "lost_samples", p->pm_lost);
	else
		gd_json_null(j, "lost_samples");
	gd_json_int(j, "devices", s->pm_devices);
	gd_json_arr(j, "metrics");
	for (int m = 0; m < GD_PM_COUNT; m++)
		if (s->pm_collected[m])
			gd_json_str(j, NULL, gd_pm_metrics[m].column);
	gd_json_arr_end(j);
	gd_json_obj(j, "busy_mean");
	for (int m = 0; m < GD_PM_COUNT; m++)
		if (s->pm_collected[m])
			gd_json_num(j, gd_pm_metrics[m].column, mean[m]);
	gd_json_obj_end(j);
	gd_json_obj_end(j);
}

/* summary.kernel_counters (docs/json.md): the launches asked for, the ceilings, every kernel
 * of the view with its medians and what the analysis derived from them. */
static void json_kc_ceilings(struct gd_json *j, const struct gd_kc_view *v)
{
	gd_json_arr(j, "ceilings");
	for (int d = 0; d < v->nceil; d++) {
		const struct gd_kc_ceilings *c = &v->ceil[d];
		const char *groups[2] = {"cuda_core_flops", "tensor_flops"};
		const double *vals[2] = {c->cuda_core, c->tensor};
		gd_json_obj(j, NULL);
		gd_json_int(j, "device", d);
		gd_json_bool(j, "measured", c->measured);
		gd_json_str(j, "source", c->source[0] ? c->source : NULL);
		gd_json_num(j, "dram_bps", c->dram_bps);
		gd_json_num(j, "l2_bps", c->l2_bps);
		for (int g = 0; g < 2; g++) {
			gd_json_obj(j, groups[g]);
			for (int q = 0; q < GD_P_COUNT; q++)
				gd_json_num(j, gd_prec_name((enum gd_prec)q), vals[g][q]);
			gd_json_obj_end(j);
		}
		gd_json_obj_end(j);
	}
	gd_json_arr_end(j);
}

static void json_kc_derived(struct gd_json *j, const struct gd_kc_kernel *k)
{
	gd_json_obj(j, "derived");
	gd_json_obj(j, "flops");
	gd_json_num(j, "fp64", k->flops[GD_P_FP64]);
	gd_json_num(j, "fp32", k->flops[GD_P_FP32]);
	gd_json_num(j, "fp16", k->flops[GD_P_FP16]);
	gd_json_obj_end(j);
	gd_json_num(j, "tensor_inst", k->tensor_inst);
	gd_json_num(j, "dram_bytes", k->dram_bytes);
	gd_json_num(j, "dram_bps", k->dram_bps);
	gd_json_num(j, "flop_s", k->flop_s);
	gd_json_num(j, "intensity", k->intensity);
	gd_json_num(j, "ld_sectors_per_request", k->ld_sectors_per_req);
	gd_json_num(j, "st_sectors_per_request", k->st_sectors_per_req);
	gd_json_num(j, "ld_bytes_used_pct", k->ld_used_pct);
	gd_json_num(j, "st_bytes_used_pct", k->st_used_pct);
	gd_json_num(j, "threads_per_inst", k->threads_per_inst);
	gd_json_num(j, "achieved_occupancy_pct", k->achieved_occ_pct);
	gd_json_num(j, "theoretical_occupancy_pct", k->theoretical_occ_pct);
	gd_json_str(j, "occupancy_limiter", k->occ_limiter);
	gd_json_num(j, "sm_busiest_pct", k->sm_busy_pct);
	gd_json_str(j, "sm_busiest", k->sm_busy >= 0 ? gd_kc_metrics[k->sm_busy].key : NULL);
	gd_json_num(j, "mem_busiest_pct", k->mem_busy_pct);
	gd_json_str(j, "mem_busiest", k->mem_busy >= 0 ? gd_kc_metrics[k->mem_busy].key : NULL);
	gd_json_str(j, "bound", bound_name(k->bound));
	gd_json_str(j, "precision",
		    isfinite(k->ceiling) && k->prec >= 0 && k->prec < GD_P_COUNT ? gd_prec_name((enum gd_prec)k->prec) : NULL);
	gd_json_num(j, "ceiling_flop_s", k->ceiling);
	gd_json_num(j, "roof_pct", k->roof_pct);
	gd_json_num(j, "dram_roof_pct", k->dram_roof_pct);
	gd_json_arr(j, "stalls");
	for (int i = 0; i < GD_KC_TOP_STALLS; i++) {
		if (k->stall[i] < GD_KC_STALL_FIRST || k->stall[i] > GD_KC_STALL_LAST)
			continue;
		gd_json_obj(j, NULL);
		gd_json_str(j, "reason", stall_reason(k->stall[i]));
		gd_json_num(j, "pct", k->stall_pct[i]);
		gd_json_obj_end(j);
	}
	gd_json_arr_end(j);
	gd_json_num(j, "time_share", k->time_share);
	gd_json_obj_end(j);
}

static void json_kc_kernels(struct gd_json *j, const struct gd_profile *p, const struct gd_kc_view *v)
{
	static char cell[GD_REPORT_KC_COLS][GD_REPORT_KC_CELL];
	gd_json_arr(j, "kernels");
	for (int i = 0; i < v->nk; i++) {
		const struct gd_kc_kernel *k = &v->k[i];
		int id = k->dname >= 0 && k->dname < p->nnames && p->names[k->dname] ? k->dname : k->name;
		gd_report_kc_row(p, k, cell);
		gd_json_obj(j, NULL);
		gd_json_str(j, "name", id >= 0 && id < p->nnames ? p->names[id] : NULL);
		gd_json_str(j, "short_name", cell[0]);
		gd_json_int(j, "device", k->device);
		gd_json_int(j, "launches", k->launches);
		gd_json_int(j, "skipped", k->skipped);
		gd_json_int(j, "passes", k->passes);
		gd_json_obj(j, "metrics");
		for (int m = 0; m < GD_KC_COUNT; m++)
			gd_json_num(j, gd_kc_metrics[m].key, k->q[m]);
		gd_json_obj_end(j);
		json_kc_derived(j, k);
		gd_json_obj_end(j);
	}
	gd_json_arr_end(j);
}

static void json_kc_launches(struct gd_json *j, const struct gd_profile *p)
{
	char name[128];
	gd_json_arr(j, "launches");
	for (long i = 0; i < p->nkl; i++) {
		const struct gd_klaunch *l = &p->kl[i];
		gd_json_obj(j, NULL);
		gd_json_int(j, "pid", l->pid);
		gd_json_int(j, "correlation", l->corr);
		gd_json_int(j, "device", l->device);
		gd_json_str(j, "kernel", kl_name(p, l));
		gd_json_str(j, "short_name", gd_kernel_short_name(kl_name(p, l), name, sizeof(name)));
		gd_json_int(j, "nth", l->nth);
		gd_json_str(j, "status", kl_status_name(l->status));
		gd_json_str(j, "detail", l->detail > 0 && l->detail < p->nnames ? p->names[l->detail] : NULL);
		gd_json_int(j, "passes", l->passes);
		if (l->profile_ns >= 0)
			gd_json_int(j, "profile_ns", l->profile_ns);
		else
			gd_json_null(j, "profile_ns");
		gd_json_obj_end(j);
	}
	gd_json_arr_end(j);
}

static void json_kcounters(struct gd_json *j, const struct gd_profile *p, const struct gd_summary *s)
{
	const struct gd_kc_view *v = &s->kc;
	long n[GD_KL_STATUS_COUNT];
	char word[sizeof(p->metrics_rejected)];
	const char *q = p->metrics_rejected;
	kl_counts(p, n);
	gd_json_obj(j, "kernel_counters");
	gd_json_str(j, "set", p->metrics[0] ? p->metrics : NULL);
	gd_json_str(j, "note", p->metrics_note[0] ? p->metrics_note : NULL);
	gd_json_int(j, "profiled", v->profiled);
	gd_json_int(j, "skipped", v->skipped);
	gd_json_obj(j, "skipped_by_status");
	for (int st = 1; st < GD_KL_STATUS_COUNT; st++)
		gd_json_int(j, gd_kl_status_names[st], n[st]);
	gd_json_obj_end(j);
	gd_json_int(j, "max_passes", v->max_passes);
	gd_json_obj(j, "replay");
	gd_json_int(j, "user_l2_flushed", v->replay_flushed);
	gd_json_int(j, "user", v->replay_user);
	gd_json_int(j, "kernel", v->replay_kernel);
	gd_json_int(j, "unknown", v->replay_unknown);
	gd_json_obj_end(j);
	gd_json_arr(j, "rejected");
	while (*q) { /* space-separated CUPTI names */
		size_t w = strcspn(q, " ");
		if (w) {
			snprintf(word, sizeof(word), "%.*s", (int)w, q);
			gd_json_str(j, NULL, word);
		}
		q += w;
		q += strspn(q, " ");
	}
	gd_json_arr_end(j);
	json_kc_ceilings(j, v);
	json_kc_kernels(j, p, v);
	json_kc_launches(j, p);
	gd_json_obj_end(j);
}

/* summary.loop: the main loop (verdict.h, steady.h) and its iterations. */
static void json_loop(struct gd_json *j, const struct gd_analysis *a)
{
	const struct gd_verdicts *v = &a->v;
	const struct gd_loop_view *lv = &a->loop;
	static const char *const win[] = {NULL, "loop", "span", "pm_steady", "run"};
	gd_json_obj(j, "loop");
	gd_json_bool(j, "found", v->loop_found);
	if (v->loop_found) {
		gd_json_int(j, "start_ns", v->loop_start);
		gd_json_int(j, "end_ns", v->loop_end);
	} else {
		gd_json_null(j, "start_ns");
		gd_json_null(j, "end_ns");
	}
	gd_json_int(j, "period_kernels", v->loop_period);
	gd_json_int(j, "iterations", lv->n);
	gd_json_num(j, "median_iteration_ns", lv->median_ns);
	if (lv->slowest >= 0) {
		gd_json_int(j, "slowest_iteration", lv->slowest + 1);
		gd_json_num(j, "slowest_iteration_ns", gd_iter_ns(&lv->it[lv->slowest]));
	} else {
		gd_json_null(j, "slowest_iteration");
		gd_json_null(j, "slowest_iteration_ns");
	}
	gd_json_obj(j, "steady_window");
	gd_json_str(j, "kind", lv->window > 0 && lv->window <= GD_WIN_RUN ? win[lv->window] : NULL);
	if (lv->window) {
		gd_json_int(j, "start_ns", lv->w0);
		gd_json_int(j, "end_ns", lv->w1);
	} else {
		gd_json_null(j, "start_ns");
		gd_json_null(j, "end_ns");
	}
	gd_json_obj_end(j);
	json_range(j, "nvml_util_gpu_pct", &lv->nvml_util_loop);
	gd_json_obj_end(j);
}

static void json_summary(struct gd_tw *w, const struct gd_analysis *a, int top)
{
	struct gd_json *j = w->j;
	const struct gd_profile *p = &a->p;
	const struct gd_summary *s = &a->s;
	gd_json_obj(j, "summary");
	gd_json_num(j, "wall_ns", s->wall_ns);
	gd_json_num(j, "gpu_span_ns", s->span_ns);
	gd_json_num(j, "gpu_busy_ns", s->busy_ns);
	gd_json_num(j, "gpu_busy_fraction", a->v.busy_fraction);
	gd_json_num(j, "gpu_judged_ns", a->v.judged_ns);
	/* --metrics: the replays cut out of the timeline these times are on (replaycut.h) */
	gd_json_num(j, "replay_cut_ns", s->replay_cut_ns);
	gd_json_int(j, "replay_cut_launches", s->replay_cut_launches);
	json_loop(j, a);
	gd_json_num(j, "kernel_ns", s->kernel_ns);
	gd_json_num(j, "copy_ns", s->copy_ns);
	gd_json_int(j, "kernels", s->nkernels);
	gd_json_int(j, "copies", s->ncopies);
	tw_top_kernels(w, s, top, has_counters(p));
	tw_breakdown(w, "kinds", "by_kind", s, by_kind(s));
	tw_breakdown(w, "libraries", "by_library", s, by_lib(s));
	tw_copies(w, s);
	json_api(j, p, s);
	tw_api_calls(w, p, &a->t, top);
	tw_nvtx(w, p, &a->t, top);
	tw_streams(w, s, &a->t, top);
	tw_threads(w, &a->t, top);
	json_nvml(j, p, s);
	if (has_counters(p))
		json_counters(j, p, s);
	if (has_kc(p))
		json_kcounters(j, p, s);
	gd_json_int(j, "dropped_records", p->dropped);
	gd_json_obj_end(j);
}

/* The framework view's tables (docs/json.md "framework", docs/framework-view.md). In CSV/TSV of
 * every table they are written only for a profile that has the view, so that other profiles'
 * output stays what it was; --table ops|modules|fused always writes its header. */
static const char *const fw_ops_cols[] = {"name", "calls", "kernels", "kernels_per_call", "self_gpu_ns",
					  "total_gpu_ns", "direction"};
static const char *const fw_modules_cols[] = {"path",         "class",          "calls",
					      "kernels",      "self_gpu_ns",    "total_gpu_ns",
					      "forward_gpu_ns", "backward_gpu_ns", "called_from"};
static const char *const fw_fused_cols[] = {"kernel", "kind", "ops", "kernels", "gpu_ns"};

static void tw_fw_ops(struct gd_tw *w, const struct gd_framework *fw, int top)
{
	if (!gd_tw_begin(w, "ops", NULL, fw_ops_cols, NCOLS(fw_ops_cols)))
		return;
	for (long i = 0; i < fw->nops && i < top; i++) {
		const struct gd_fw_op *o = &fw->ops[i];
		gd_tw_row(w);
		gd_tw_str(w, o->name);
		gd_tw_int(w, o->calls);
		gd_tw_int(w, o->kernels);
		gd_tw_num(w, o->calls ? (double)o->kernels / (double)o->calls : NAN);
		gd_tw_num(w, o->self_ns);
		gd_tw_num(w, o->total_ns);
		gd_tw_str(w, gd_fw_dir_name(gd_fw_op_dir(o)));
		gd_tw_row_end(w);
	}
	gd_tw_end(w);
}

/* With source marks (--python-stack), and only then (other profiles' output stays what it
 * was): the column called_from, the most sampled location "file:line" (the file as recorded),
 * and in JSON the key "source" after the columns, every location. */
static void tw_fw_modules(struct gd_tw *w, const struct gd_framework *fw, int top)
{
	int src = fw->nlocs > 0;
	if (!gd_tw_begin(w, "modules", NULL, fw_modules_cols, NCOLS(fw_modules_cols) - !src))
		return;
	for (long i = 0; i < fw->nmodules && i < top; i++) {
		const struct gd_fw_module *m = &fw->modules[i];
		gd_tw_row(w);
		gd_tw_str(w, m->path);
		gd_tw_str(w, m->cls);
		gd_tw_int(w, m->calls);
		gd_tw_int(w, m->kernels);
		gd_tw_num(w, m->self_ns);
		gd_tw_num(w, m->total_ns);
		gd_tw_num(w, m->fwd_ns);
		gd_tw_num(w, m->bwd_ns);
		if (src) {
			const struct gd_fw_loc *l = m->nfrom ? &fw->locs[m->from[0].loc] : NULL;
			size_t n = l ? strlen(l->file) + 24 : 0;
			char *loc = l ? malloc(n) : NULL;
			if (loc)
				snprintf(loc, n, "%s:%ld", l->file, l->line);
			gd_tw_str(w, loc); /* unknown (null) out of memory, as for an unsampled module */
			free(loc);
			if (w->format == GD_FMT_JSON) {
				gd_json_arr(w->j, "source");
				for (long e = 0; e < m->nfrom; e++) {
					l = &fw->locs[m->from[e].loc];
					gd_json_obj(w->j, NULL);
					gd_json_str(w->j, "file", l->file);
					gd_json_int(w->j, "line", l->line);
					gd_json_str(w->j, "function", l->func);
					gd_json_int(w->j, "sampled_calls", m->from[e].calls);
					gd_json_obj_end(w->j);
				}
				gd_json_arr_end(w->j);
			}
		}
		gd_tw_row_end(w);
	}
	gd_tw_end(w);
}

static void tw_fw_fused(struct gd_tw *w, const struct gd_framework *fw, int top)
{
	if (!gd_tw_begin(w, "fused", NULL, fw_fused_cols, NCOLS(fw_fused_cols)))
		return;
	for (long i = 0; i < fw->nfused && i < top; i++) {
		const struct gd_fw_fused *f = &fw->fused[i];
		gd_tw_row(w);
		gd_tw_str(w, f->kernel);
		gd_tw_str(w, f->kind);
		gd_tw_str(w, f->ops);
		gd_tw_int(w, f->kernels);
		gd_tw_num(w, f->ns);
		gd_tw_row_end(w);
	}
	gd_tw_end(w);
}

/* CSV/TSV: the three tables (see above). */
static void tw_framework(struct gd_tw *w, const struct gd_framework *fw, int top)
{
	if (!fw->present && !w->want)
		return;
	tw_fw_ops(w, fw, top);
	tw_fw_modules(w, fw, top);
	tw_fw_fused(w, fw, top);
}

/* JSON: "framework", absent when the profile has no framework view. */
static void json_framework(struct gd_tw *w, const struct gd_framework *fw, int top)
{
	struct gd_json *j = w->j;
	if (!fw->present)
		return;
	gd_json_obj(j, "framework");
	gd_json_str(j, "mode", fw->mode[0] ? fw->mode : NULL);
	gd_json_str(j, "torch", fw->torch[0] ? fw->torch : NULL);
	tw_fw_ops(w, fw, top);
	tw_fw_modules(w, fw, top);
	tw_fw_fused(w, fw, top);
	gd_json_obj_end(j);
}

static void json_run(struct gd_json *j, const struct gd_run_exit *r)
{
	char text[400];
	int failed = gd_run_exit_text(r, text, sizeof(text));
	gd_json_obj(j, "run");
	gd_json_bool(j, "exit_known", r->known);
	if (r->known) {
		gd_json_int(j, "pid", r->pid);
		gd_json_int(j, "exit_code", r->exit_code);
	} else {
		gd_json_null(j, "pid");
		gd_json_null(j, "exit_code");
	}
	if (r->known && r->exit_signal > 0)
		gd_json_int(j, "exit_signal", r->exit_signal);
	else
		gd_json_null(j, "exit_signal");
	gd_json_bool(j, "failed", failed);
	gd_json_str(j, "text", text[0] ? text : NULL);
	gd_json_int(j, "processes", r->processes);
	gd_json_int(j, "untraced_processes", r->untraced);
	gd_json_obj_end(j);
}

/* fw_top: the framework's rows (every one unless --top was given: the contract with the GPU
 * tier's comparison, which reads every op) */
static void print_json(const struct gd_analysis *a, int top, int fw_top, FILE *out)
{
	struct gd_json j;
	struct gd_tw w;
	gd_json_init(&j, out, 1);
	gd_tw_init(&w, out, GD_FMT_JSON, &j, NULL, 1);
	gd_json_obj(&j, NULL);
	json_profile(&j, &a->p);
	json_run(&j, &a->run);
	json_verdicts(&w, &a->v);
	json_summary(&w, a, top);
	json_framework(&w, &a->fw, fw_top);
	gd_report_ranks_tw(&w, a, top);
	gd_json_obj_end(&j);
	gd_json_end(&j);
}

/* ---- CSV / TSV (docs/scripting.md) ---- */
const char *const gd_report_tables[] = {"summary", "findings", "kernels", "kinds",   "libraries", "copies",
					"api",     "nvtx",     "streams", "threads", "ops",       "modules",
					"fused",   "nodes",    "ranks",   "collectives", NULL};

static const char *const summary_cols[] = {
	"profile", "wall_ns", "gpu_span_ns", "gpu_busy_ns", "gpu_busy_fraction", "gpu_judged_ns", "kernel_ns", "copy_ns", "kernels",
	"copies", "api_traced", "synchronising_calls", "sync_calls", "sync_ns", "sync_copy_calls", "sync_copy_ns",
	"launch_calls", "launch_ns", "verdict_top", "verdict_headline", "rejected_rows", "dropped_records"};

/* The summary's totals as one row. */
static void tw_summary(struct gd_tw *w, const struct gd_analysis *a)
{
	const struct gd_profile *p = &a->p;
	const struct gd_summary *s = &a->s;
	const struct gd_verdicts *v = &a->v;
	if (!gd_tw_begin(w, "summary", NULL, summary_cols, NCOLS(summary_cols)))
		return;
	gd_tw_row(w);
	gd_tw_str(w, p->path[0] ? p->path : NULL);
	gd_tw_num(w, s->wall_ns);
	gd_tw_num(w, s->span_ns);
	gd_tw_num(w, s->busy_ns);
	gd_tw_num(w, v->busy_fraction);
	gd_tw_num(w, v->judged_ns);
	gd_tw_num(w, s->kernel_ns);
	gd_tw_num(w, s->copy_ns);
	gd_tw_int(w, s->nkernels);
	gd_tw_int(w, s->ncopies);
	gd_tw_bool(w, p->have_api);
	gd_tw_int(w, s->api_n[GD_API_SYNC] + s->api_n[GD_API_COPY_SYNC]);
	gd_tw_int(w, s->api_n[GD_API_SYNC]);
	gd_tw_num(w, p->have_api ? s->api_ns[GD_API_SYNC] : NAN);
	gd_tw_int(w, s->api_n[GD_API_COPY_SYNC]);
	gd_tw_num(w, p->have_api ? s->api_ns[GD_API_COPY_SYNC] : NAN);
	gd_tw_int(w, s->api_n[GD_API_LAUNCH]);
	gd_tw_num(w, p->have_api ? s->api_ns[GD_API_LAUNCH] : NAN);
	gd_tw_str(w, v->nwarn ? v->f[v->order[0]].id : NULL);
	gd_tw_str(w, v->top_line);
	gd_tw_int(w, p->bad_rows);
	gd_tw_int(w, p->dropped);
	gd_tw_row_end(w);
	gd_tw_end(w);
}

static void print_tables(const struct gd_analysis *a, int format, const char *table, int top, FILE *out)
{
	struct gd_tw w;
	const struct gd_summary *s = &a->s;
	gd_tw_init(&w, out, format, NULL, table, 1);
	tw_summary(&w, a);
	tw_findings(&w, &a->v);
	tw_top_kernels(&w, s, top, 0);
	tw_breakdown(&w, "kinds", NULL, s, by_kind(s));
	tw_breakdown(&w, "libraries", NULL, s, by_lib(s));
	tw_copies(&w, s);
	tw_api_calls(&w, &a->p, &a->t, top);
	tw_nvtx(&w, &a->p, &a->t, top);
	tw_streams(&w, s, &a->t, top);
	tw_threads(&w, &a->t, top);
	tw_framework(&w, &a->fw, top);
	gd_report_ranks_tw(&w, a, top);
}

/* ---- entry points ---- */
/* Every string below comes from the profile, which may come from anywhere: gd_tty keeps
 * control characters from reaching the terminal. */
static void print_header(const struct gd_analysis *a, FILE *out)
{
	const struct gd_profile *p = &a->p;
	char ended[400];
	int failed;
	fprintf(out, "%sgpudiag report%s  %s\n", gd_bold(), gd_reset(), p->path[0] ? gd_tty(p->path) : "(in memory)");
	label_line(p, out);
	gd_report_nodes_text(a, out);
	if (p->command[0])
		fprintf(out, "command: %s\n", gd_tty(p->command));
	if (p->ndev)
		fprintf(out, "GPU: %s (sm_%d%d, %d SMs)%s%s\n", gd_tty(p->dev[0].name), p->dev[0].major, p->dev[0].minor,
			p->dev[0].sm_count, p->driver[0] ? ", driver " : "", gd_tty(p->driver));
	failed = gd_run_exit_text(&a->run, ended, sizeof(ended));
	if (ended[0])
		fprintf(out, "%s%s%s\n", failed ? gd_red() : "", ended, failed ? gd_reset() : "");
	if (p->bad_rows > 0)
		fprintf(out, "%s%lld rows of this profile were left out as corrupt (an end before its start, or a time no "
			     "clock gives); the figures below are of the rest%s\n",
			gd_yellow(), p->bad_rows, gd_reset());
}

static void report_text(const struct gd_analysis *a, int top, FILE *out)
{
	print_header(a, out);
	print_verdict(&a->v, out);
	print_summary(a, top, out);
	print_framework(a, top, out);
}

void gd_report_text(const struct gd_analysis *a, FILE *out) { report_text(a, GD_REPORT_TOP, out); }

void gd_report_json(const struct gd_analysis *a, FILE *out) { print_json(a, GD_REPORT_TOP, INT_MAX, out); }

void gd_report_render(const struct gd_analysis *a, const struct gd_render_opts *o, FILE *out)
{
	int top = o && o->top > 0 ? o->top : GD_REPORT_TOP;
	if (o && (o->format == GD_FMT_CSV || o->format == GD_FMT_TSV))
		print_tables(a, o->format, o->table, o->top > 0 ? o->top : INT_MAX, out);
	else if (o && (o->json || o->format == GD_FMT_JSON))
		print_json(a, top, o->top > 0 ? o->top : INT_MAX, out);
	else
		report_text(a, top, out);
}

int gd_report_print(const char *profile_path, const struct gd_ctx *ctx, FILE *out)
{
	struct gd_analysis a;
	struct gd_render_opts o = {.json = ctx && ctx->json};
	char why[1200];
	int rc = gd_analysis_load(profile_path, &a, why, sizeof(why));
	if (rc != GD_OK)
		return gd_error(rc, "report: %s", why);
	gd_report_render(&a, &o, out);
	gd_analysis_free(&a);
	return GD_OK;
}
