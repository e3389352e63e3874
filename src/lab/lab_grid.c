/* gpudiag lab grid — guide §2 (Grid / Block / Thread / Warp) and §3 (SMs).
 *
 * The guide's add<<<3907, 256>>>(A, B, C, N) for N = 1,000,000, with thread 0 of every block
 * recording %smid and %globaltimer when the block starts and after its last store. From the
 * records: blocks per SM, the most blocks one SM held at once, the span of the kernel and its
 * tail (the time at the end when fewer than half the SMs still had a block). Beside them, the
 * theory: resident blocks per SM from gpudiag's occupancy calculator with the recording
 * kernel's real attributes (cudaFuncGetAttributes), waves = blocks ÷ (SMs × resident), and
 * the fill of the last wave. The block size is swept (64 … 1024) to show how waves change;
 * the guide's plain add (no recording) is timed too, for the cost of the instrumentation.
 * --svg draws the 256-thread run: every block as a segment on its SM over time. */
#include "core/status.h"
#include "core/svg.h"
#include "gpu/occupancy.h"
#include "kernels/lab_grid.h"
#include "kernels/lab_harness.h"
#include "lab/lab.h"
#include "lab/lab_exec.h"
#include "lab/lab_key.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- accounting (no GPU) */

struct ev {
	unsigned long long t;
	int sm, d; /* d = +1 start, -1 end */
};

static int ev_cmp(const void *a, const void *b)
{
	const struct ev *x = a, *y = b;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->d - y->d; /* ends before starts at the same instant */
}

static int ull_cmp(const void *a, const void *b)
{
	unsigned long long x = *(const unsigned long long *)a, y = *(const unsigned long long *)b;
	return x < y ? -1 : x > y;
}

void gd_lx_grid_stats(const struct gd_grid_rec *rec, int n, int sms, struct gd_lx_grid_stats *st)
{
	int *count = NULL, *active = NULL, busy = 0, nev = 0, nt = 0;
	struct ev *evs = NULL;
	unsigned long long *ts = NULL, tmin = ~0ULL, tmax = 0, last0 = 0, t_drop = 0;
	memset(st, 0, sizeof(*st));
	st->makespan_ns = st->last_start_ns = st->tail_ns = st->resolution_ns = NAN;
	st->per_sm_mean = NAN;
	if (n <= 0 || sms <= 0)
		return;
	count = calloc((size_t)sms, sizeof(int));
	active = calloc((size_t)sms, sizeof(int));
	evs = malloc(sizeof(*evs) * 2 * (size_t)n);
	ts = malloc(sizeof(*ts) * 2 * (size_t)n);
	if (!count || !active || !evs || !ts)
		goto out;
	for (int i = 0; i < n; i++) {
		const struct gd_grid_rec *r = &rec[i];
		if (r->t0 == ~0ULL || r->t1 == ~0ULL || r->smid >= (unsigned)sms || r->t1 < r->t0) {
			st->bad++;
			continue;
		}
		st->blocks++;
		count[r->smid]++;
		evs[nev++] = (struct ev){r->t0, (int)r->smid, +1};
		evs[nev++] = (struct ev){r->t1, (int)r->smid, -1};
		ts[nt++] = r->t0;
		ts[nt++] = r->t1;
		if (r->t0 < tmin)
			tmin = r->t0;
		if (r->t1 > tmax)
			tmax = r->t1;
		if (r->t0 > last0)
			last0 = r->t0;
	}
	if (!st->blocks)
		goto out;
	st->per_sm_min = n;
	for (int s = 0; s < sms; s++)
		if (count[s]) {
			st->sms_used++;
			st->per_sm_min = count[s] < st->per_sm_min ? count[s] : st->per_sm_min;
			st->per_sm_max = count[s] > st->per_sm_max ? count[s] : st->per_sm_max;
		}
	st->per_sm_mean = (double)st->blocks / st->sms_used;
	st->makespan_ns = (double)(tmax - tmin);
	st->last_start_ns = (double)(last0 - tmin);
	qsort(evs, (size_t)nev, sizeof(*evs), ev_cmp);
	t_drop = tmin;
	for (int i = 0; i < nev; i++) {
		int s = evs[i].sm, half = (st->sms_used + 1) / 2, was = busy;
		active[s] += evs[i].d;
		if (evs[i].d > 0 && active[s] == 1)
			busy++;
		if (evs[i].d < 0 && active[s] == 0)
			busy--;
		if (active[s] > st->max_concurrent)
			st->max_concurrent = active[s];
		if (was >= half && busy < half)
			t_drop = evs[i].t; /* the last such drop starts the tail */
	}
	st->tail_ns = (double)(tmax - t_drop);
	qsort(ts, (size_t)nt, sizeof(*ts), ull_cmp);
	for (int i = 1; i < nt; i++)
		if (ts[i] > ts[i - 1] &&
		    (isnan(st->resolution_ns) || (double)(ts[i] - ts[i - 1]) < st->resolution_ns))
			st->resolution_ns = (double)(ts[i] - ts[i - 1]);
out:
	free(count);
	free(active);
	free(evs);
	free(ts);
}

/* ---------------------------------------------------------------- the timeline picture */

#define MAX_WAVES 12
static struct {
	double *x[MAX_WAVES], *y[MAX_WAVES];
	int n[MAX_WAVES];
	char label[MAX_WAVES][32];
	char title[192], note[256];
	int nw;
} tl;

static void tl_free(void)
{
	for (int w = 0; w < MAX_WAVES; w++) {
		free(tl.x[w]);
		free(tl.y[w]);
		tl.x[w] = tl.y[w] = NULL;
		tl.n[w] = 0;
	}
	tl.nw = 0;
}

/* Segments (start, sm) → (end, sm), one series per wave: a block's wave is its rank among
 * the blocks of its SM divided by the resident blocks per SM. */
static int tl_build(const struct gd_grid_rec *rec, int n, int sms, int resident, double resolution_ns)
{
	int *rank = calloc((size_t)sms, sizeof(int)), *order = malloc(sizeof(int) * (size_t)n);
	unsigned long long tmin = ~0ULL;
	tl_free();
	if (!rank || !order) {
		free(rank);
		free(order);
		return -1;
	}
	for (int w = 0; w < MAX_WAVES; w++) {
		tl.x[w] = malloc(sizeof(double) * 3 * (size_t)n);
		tl.y[w] = malloc(sizeof(double) * 3 * (size_t)n);
		if (!tl.x[w] || !tl.y[w]) {
			free(rank);
			free(order);
			tl_free();
			return -1;
		}
	}
	for (int i = 0; i < n; i++)
		if (rec[i].smid < (unsigned)sms && rec[i].t0 < tmin)
			tmin = rec[i].t0;
	/* blocks in start order, so ranks per SM follow time */
	for (int i = 0; i < n; i++)
		order[i] = i;
	for (int i = 1; i < n; i++) { /* insertion sort by t0: n is a few thousand */
		int k = order[i], j = i - 1;
		while (j >= 0 && rec[order[j]].t0 > rec[k].t0) {
			order[j + 1] = order[j];
			j--;
		}
		order[j + 1] = k;
	}
	for (int ii = 0; ii < n; ii++) {
		const struct gd_grid_rec *r = &rec[order[ii]];
		int w;
		if (r->smid >= (unsigned)sms || r->t1 < r->t0 || r->t0 == ~0ULL)
			continue;
		w = rank[r->smid]++ / (resident > 0 ? resident : 1);
		if (w >= MAX_WAVES)
			w = MAX_WAVES - 1;
		tl.x[w][tl.n[w]] = (double)(r->t0 - tmin) / 1e3;
		tl.y[w][tl.n[w]++] = r->smid;
		tl.x[w][tl.n[w]] = (double)(r->t1 - tmin) / 1e3;
		tl.y[w][tl.n[w]++] = r->smid;
		tl.x[w][tl.n[w]] = NAN;
		tl.y[w][tl.n[w]++] = NAN;
		if (w + 1 > tl.nw)
			tl.nw = w + 1;
	}
	for (int w = 0; w < tl.nw; w++)
		snprintf(tl.label[w], sizeof(tl.label[w]),
			 w == MAX_WAVES - 1 ? "wave %d and later" : "wave %d", w + 1);
	snprintf(tl.note, sizeof(tl.note),
		 "each segment: one block, from its start to its end (%%globaltimer, resolution %.0f ns) on "
		 "the SM "
		 "that ran it (%%smid); colour: the block's wave on its SM",
		 resolution_ns);
	free(rank);
	free(order);
	return 0;
}

static void tl_draw(const struct gd_lab_run *r, struct gd_chart *ch, void *arg)
{
	(void)r;
	(void)arg;
	ch->title = tl.title;
	ch->xlabel = "time since the first block started (µs)";
	ch->ylabel = "SM (%smid)";
	ch->height = 640;
	for (int w = 0; w < tl.nw; w++)
		if (tl.n[w])
			gd_chart_add(ch, tl.label[w], tl.x[w], tl.y[w], tl.n[w], GD_LINE);
	ch->note = tl.note;
}

int gd_lx_grid_timeline(struct gd_lab_run *r, const struct gd_grid_rec *rec, int n, int sms, int resident,
			double resolution_ns, const char *title)
{
	struct gd_lab_chart ch;
	if (tl_build(rec, n, sms, resident, resolution_ns) != 0)
		return -1;
	snprintf(tl.title, sizeof(tl.title), "%s", title);
	memset(&ch, 0, sizeof(ch));
	ch.title = tl.title;
	gd_lab_set_chart(r, &ch);
	gd_lab_set_chart_draw(r, tl_draw, NULL);
	return 0;
}

/* ---------------------------------------------------------------- the lab */

struct gv {
	int n, block, sms;
	const float *da, *db;
	float *dc;
	struct gd_grid_rec *drec; /* NULL: the plain add */
	const float *ha, *hb;
	double *ref;
	struct gd_grid_rec *hrec;
};

static int launch(void *arg, long iter, char *why, size_t nwhy)
{
	struct gv *v = arg;
	int e = gd_labk_grid_launch(v->da, v->db, v->dc, v->n, v->block, v->drec);
	(void)iter;
	if (e) {
		snprintf(why, nwhy, "%s", gd_labk_error(e));
		return GD_EFAIL;
	}
	return GD_OK;
}

static int check(void *arg, const void *out, size_t bytes, struct gd_lab_check *c)
{
	struct gv *v = arg;
	int grid = (v->n + v->block - 1) / v->block;
	for (int i = 0; i < v->n; i++)
		v->ref[i] = (double)(v->ha[i] + v->hb[i]);
	gd_lab_cmp(out, v->ref, (size_t)v->n, GD_DT_F32, 0, 0, c);
	if (v->drec) {
		/* every block must have left a possible record */
		struct gd_lx_grid_stats st;
		if (gd_lab_download(v->hrec, v->drec, sizeof(*v->hrec) * (size_t)grid))
			return GD_EFAIL;
		gd_lx_grid_stats(v->hrec, grid, v->sms, &st);
		c->checked += grid;
		c->bad += st.bad;
		if (st.bad && c->first_bad < 0)
			c->first_bad = 0;
		c->ok = c->bad == 0 && c->checked > 0;
		snprintf(c->note, sizeof(c->note), "C = A + B exact; %d block records valid", grid - st.bad);
	}
	return GD_OK;
}

#define GS "block size sweep (recording add)"
#define GP "the guide's add, no recording"

/* Block sizes, in the order they run; row k of the sweep has key K_SWEEP + k. */
static const int sizes[] = {256, 64, 128, 512, 1024};
#define NSIZES ((int)(sizeof(sizes) / sizeof(sizes[0])))
enum { K_SWEEP = 1, K_PLAIN = K_SWEEP + NSIZES };

struct grid_run {
	int n, sms, regs, maxthr, have_od;
	size_t ssm;
	void *da, *db, *dc, *drec;
	float *ha, *hb;
	double *ref;
	struct gd_grid_rec *hrec;
	struct gd_occ_device od;
};

/* The kernel's attributes, the inputs on the host and the device, the block records. */
static int grid_prepare(struct gd_lab_run *r, struct grid_run *s)
{
	int n = s->n, e, rc;
	uint64_t seed = 2;
	if (n < 1024 || r->size > 4LL * 400000000)
		return gd_error(GD_EUSAGE, "lab grid: --size must be between 4 KiB and 1.6 GB");
	if (s->sms <= 0)
		return gd_error(GD_EFAIL, "lab grid: the SM count is unknown");
	s->have_od = gd_occ_device_from_cuda(r->dev.index, &s->od) == 0;
	if ((e = gd_labk_grid_attr(&s->regs, &s->ssm, &s->maxthr)))
		return gd_error(GD_EFAIL, "lab grid: cudaFuncGetAttributes: %s", gd_labk_error(e));
	s->ha = malloc(sizeof(float) * (size_t)n);
	s->hb = malloc(sizeof(float) * (size_t)n);
	s->ref = malloc(sizeof(double) * (size_t)n);
	s->hrec = malloc(sizeof(*s->hrec) * (size_t)(n / 64 + 1));
	if (!s->ha || !s->hb || !s->ref || !s->hrec)
		return gd_error(GD_EFAIL, "lab grid: out of host memory");
	gd_lab_rand_fill(s->ha, (size_t)n, GD_DT_F32, -1, 1, &seed);
	gd_lab_rand_fill(s->hb, (size_t)n, GD_DT_F32, -1, 1, &seed);
	if ((rc = gd_lab_alloc(r, &s->da, (size_t)n * 4, "A")) ||
	    (rc = gd_lab_alloc(r, &s->db, (size_t)n * 4, "B")) ||
	    (rc = gd_lab_alloc(r, &s->dc, (size_t)n * 4, "C")) ||
	    (rc = gd_lab_alloc(r, &s->drec, sizeof(*s->hrec) * (size_t)(n / 64 + 1), "the block records")) ||
	    (rc = gd_lab_upload(s->da, s->ha, (size_t)n * 4)) ||
	    (rc = gd_lab_upload(s->db, s->hb, (size_t)n * 4)))
		return rc;
	return GD_OK;
}

/* time vs block size; replaced by the timeline once the 256-thread run is recorded */
static void grid_chart(struct gd_lab_run *r)
{
	struct gd_lab_chart ch;
	memset(&ch, 0, sizeof(ch));
	ch.title = "add over N floats: kernel time vs block size";
	ch.xlabel = "threads per block";
	ch.ylabel = "kernel time (µs, median)";
	ch.logx = 1;
	ch.y = GD_LAB_Y_TIME_US;
	ch.groups[0] = GS;
	ch.ngroups = 1;
	gd_lab_set_chart(r, &ch);
}

/* One block size of the recording add: timed, then its last launch's block records read
 * back into waves, blocks per SM and the tail (and, at 256, the timeline and verdict). */
static int grid_sweep_one(struct gd_lab_run *r, struct grid_run *s, int k)
{
	const int n = s->n, sms = s->sms, regs = s->regs, maxthr = s->maxthr, have_od = s->have_od;
	const size_t ssm = s->ssm;
	void *da = s->da, *db = s->db, *dc = s->dc, *drec = s->drec;
	float *ha = s->ha, *hb = s->hb;
	double *ref = s->ref;
	struct gd_grid_rec *hrec = s->hrec;
	const struct gd_occ_device *odp = &s->od;
	int rc;
	int block = sizes[k], grid = (n + block - 1) / block, resident = -1;
	double waves = NAN, fill = NAN;
	struct gd_lab_variant lv;
	struct gv v = {n, block, sms, da, db, dc, drec, ha, hb, ref, hrec};
	struct gd_lx_grid_stats st;
	struct gd_lab_result *res;
	char name[64];
	if (block > maxthr)
		return GD_OK; /* the kernel cannot run this block size */
	if (have_od) {
		struct gd_occ_kernel ok = {block, regs, ssm, 0, 0, -1, 0};
		struct gd_occ_result orr;
		if (gd_occupancy(odp, &ok, &orr) == 0) {
			resident = orr.blocks_per_sm;
			waves = gd_occ_waves(odp, &orr, grid, &fill);
		}
	}
	snprintf(name, sizeof(name), "add<<<%d, %d>>>", grid, block);
	memset(&lv, 0, sizeof(lv));
	lv.group = GS;
	lv.name = name;
	lv.x = block;
	lv.bytes = (double)n * 12;
	lv.formula = "N·4 read A + N·4 read B + N·4 write C";
	lv.roof = GD_ROOF_DRAM_COPY;
	lv.launch = launch;
	lv.arg = &v;
	lv.out = dc;
	lv.out_bytes = (size_t)n * 4;
	lv.check = check;
	if ((rc = gd_lab_measure_key(r, &lv, K_SWEEP + k)) != GD_OK)
		return rc;
	res = r->nres ? &r->res[r->nres - 1] : NULL;
	if (!res || !res->check.ok)
		return GD_OK;
	/* the records of the last timed launch (a warm run) */
	if ((rc = gd_lab_download(hrec, drec, sizeof(*hrec) * (size_t)grid)) != GD_OK)
		return rc;
	gd_lx_grid_stats(hrec, grid, sms, &st);
	gd_lab_result_metric(res, "resident_per_sm", resident >= 0 ? resident : NAN, "");
	gd_lab_result_metric(res, "waves", waves, "");
	gd_lab_result_metric(res, "last_wave_fill_pct", fill * 100, "%");
	gd_lab_result_metric(res, "blocks_per_sm_max", st.per_sm_max, "");
	gd_lab_result_metric(res, "max_concurrent_per_sm", st.max_concurrent, "");
	gd_lab_result_metric(res, "tail_pct", st.tail_ns / st.makespan_ns * 100, "%");
	gd_lab_note(r,
		    "add<<<%d, %d>>>: %d regs/thread → %d resident blocks per SM (calculator); measured: "
		    "%d SMs ran %d–%d blocks each (mean %.1f), at most %d at once; span %.1f µs, last "
		    "block started at %.1f µs, tail with < half the SMs busy %.1f µs; timer resolution %.0f "
		    "ns",
		    grid, block, regs, resident, st.sms_used, st.per_sm_min, st.per_sm_max, st.per_sm_mean,
		    st.max_concurrent, st.makespan_ns / 1e3, st.last_start_ns / 1e3, st.tail_ns / 1e3,
		    st.resolution_ns);
	if (block == 256) {
		char title[192];
		snprintf(title, sizeof(title), "add<<<%d, %d>>>: blocks on SMs over time (%s)", grid, block,
			 r->dev.name);
		gd_lx_grid_timeline(r, hrec, grid, sms, resident, st.resolution_ns, title);
		if (isfinite(waves))
			gd_lab_verdict(r, "§2",
				       "add<<<%d, %d>>> on %d SMs × %d resident blocks (the "
				       "calculator, %d registers) is "
				       "%.2f waves, the last one %.0f %% full; measured, each SM ran "
				       "%d–%d blocks, at most "
				       "%d at once, and for the last %.0f %% of the kernel fewer "
				       "than half the SMs had "
				       "work (the tail of a partial last wave).",
				       grid, block, sms, resident, regs, waves, fill * 100, st.per_sm_min,
				       st.per_sm_max, st.max_concurrent, st.tail_ns / st.makespan_ns * 100);
	}
	return GD_OK;
}

/* the guide's kernel exactly, for what the recording costs */
static int grid_plain(struct gd_lab_run *r, struct grid_run *s)
{
	const int n = s->n;
	struct gv v = {n, 256, s->sms, s->da, s->db, s->dc, NULL, s->ha, s->hb, s->ref, s->hrec};
	struct gd_lab_variant lv;
	char name[64];
	snprintf(name, sizeof(name), "add<<<%d, 256>>>", (n + 255) / 256);
	memset(&lv, 0, sizeof(lv));
	lv.group = GP;
	lv.name = name;
	lv.x = 256;
	lv.bytes = (double)n * 12;
	lv.formula = "N·4 read A + N·4 read B + N·4 write C";
	lv.roof = GD_ROOF_DRAM_COPY;
	lv.launch = launch;
	lv.arg = &v;
	lv.out = s->dc;
	lv.out_bytes = (size_t)n * 4;
	lv.check = check;
	return gd_lab_measure_key(r, &lv, K_PLAIN);
}

/* Waves and time across the sweep's rows. */
static void grid_sweep_verdict(struct gd_lab_run *r)
{
	double tmin = INFINITY, tmax = 0, wmin = INFINITY, wmax = 0;
	int bmin = 0, bmax = 0;
	for (int k = 0; k < NSIZES; k++) {
		const struct gd_lab_result *res = gd_lab_find_key(r, K_SWEEP + k);
		if (!res || !isfinite(res->t_median))
			continue;
		for (int m = 0; m < res->nmetrics; m++)
			if (!strcmp(res->metric_keys[m], "waves") && isfinite(res->metric_values[m])) {
				wmin = fmin(wmin, res->metric_values[m]);
				wmax = fmax(wmax, res->metric_values[m]);
			}
		if (res->t_median < tmin) {
			tmin = res->t_median;
			bmin = (int)res->x;
		}
		if (res->t_median > tmax) {
			tmax = res->t_median;
			bmax = (int)res->x;
		}
	}
	if (isfinite(tmin) && tmax > 0 && isfinite(wmin))
		gd_lab_verdict(
		    r, "§3",
		    "Across block sizes the grid was %.2f to %.2f waves; the fastest was %d threads "
		    "per "
		    "block (%.2f µs) and the slowest %d (%.2f µs, %.2f×). A kernel this short is "
		    "mostly "
		    "launch and memory time, so waves matter most for long kernels with few waves.",
		    wmin, wmax, bmin, tmin * 1e6, bmax, tmax * 1e6, tmax / tmin);
}

static int run(struct gd_lab_run *r)
{
	struct grid_run s;
	int rc;
	memset(&s, 0, sizeof(s));
	s.n = r->size > 0 ? (int)(r->size / 4) : 1000000;
	s.sms = r->dev.sms;
	if ((rc = grid_prepare(r, &s)) == GD_OK) {
		grid_chart(r);
		for (int k = 0; k < NSIZES && rc == GD_OK; k++)
			rc = grid_sweep_one(r, &s, k);
		if (rc == GD_OK)
			rc = grid_plain(r, &s);
		if (rc == GD_OK)
			grid_sweep_verdict(r);
	}
	free(s.ha);
	free(s.hb);
	free(s.ref);
	free(s.hrec);
	return rc;
}

const struct gd_lab gd_lab_grid = {
    "grid",
    "§2 §3",
    "the guide's add<<<3907, 256>>>: blocks on SMs, waves and the tail, by block size",
    "Runs the guide's add<<<3907, 256>>>(A, B, C, N), N = 1,000,000, with every block recording its\n"
    "SM (%smid) and its start and end (%globaltimer). Shows blocks per SM, the most blocks one SM\n"
    "held at once, waves = blocks ÷ (SMs × resident blocks per SM, from the occupancy calculator\n"
    "with the kernel's real registers) and the fill of the last wave, and the measured tail (the\n"
    "end of the kernel when fewer than half the SMs had work). Sweeps block sizes 64…1024.\n"
    "--svg draws every block of the 256-thread run on its SM over time.\n"
    "--size BYTES sets N (default 4,000,000 bytes: N = 1,000,000).\n",
    run,
    NULL, /* no --shape */
    4LL << 10, 4LL * 400000000, 0, /* --size: the range (and step) the run itself requires */
    " (bytes: 4 × N)",
};
