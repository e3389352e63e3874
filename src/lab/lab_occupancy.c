/* gpudiag lab occupancy — guide §6 (Occupancy).
 *
 * A memory-bound kernel (y = 1.5·x, one float4 load in flight per thread) and a
 * compute-bound one (two dependent FMA chains per item) are each run with occupancy forced
 * from one block per SM up to the most that fit, by padding every block with dynamic shared
 * memory it never touches. Each launch is exactly one wave (grid = SMs × resident blocks,
 * threads striding over the same problem), so only the number of warps an SM has to switch
 * between changes. The theoretical occupancy comes from gpudiag's calculator
 * (gpu/occupancy.h, the kernel's real registers from cudaFuncGetAttributes) and is shown
 * beside the CUDA runtime's own answer (cudaOccupancyMaxActiveBlocksPerMultiprocessor).
 * Expected (guide §6): the memory-bound kernel needs many warps to hide DRAM latency; the
 * compute-bound one is near its best at low occupancy. */
#include "core/status.h"
#include "gpu/occupancy.h"
#include "kernels/lab_harness.h"
#include "kernels/lab_occupancy.h"
#include "lab/lab.h"
#include "lab/lab_exec.h"
#include "lab/lab_key.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define BLOCK 256
#define MAX_LEVELS 32
#define CHUNK (1 << 20)

long long gd_lx_occ_padding(const struct gd_occ_device *d, struct gd_occ_kernel *k, int blocks)
{
	struct gd_occ_result r;
	size_t alloc, fixed = k->static_smem + d->smem_reserved_per_block;
	long long dyn;
	k->carveout_pct = 100;
	k->max_dyn_smem =
	    d->smem_per_block_optin > k->static_smem ? d->smem_per_block_optin - k->static_smem : 0;
	k->dyn_smem = 0;
	if (blocks <= 0 || gd_occupancy(d, k, &r) != 0 || r.blocks_per_sm < blocks)
		return -1;
	if (r.blocks_per_sm == blocks)
		return 0;
	/* the largest allocation unit multiple of which `blocks` fit in the SM's shared memory */
	alloc = d->smem_per_sm / (size_t)blocks / (size_t)d->smem_alloc_unit * (size_t)d->smem_alloc_unit;
	if (alloc <= fixed)
		return -1;
	dyn = (long long)(alloc - fixed);
	if ((size_t)dyn > k->max_dyn_smem)
		dyn = (long long)k->max_dyn_smem;
	/* walk down in allocation units until the calculator agrees (the carveout steps and
	 * the per-block limit can make the first guess one off) */
	for (int step = 0; step < 64 && dyn >= 0; step++, dyn -= d->smem_alloc_unit) {
		k->dyn_smem = (size_t)dyn;
		if (gd_occupancy(d, k, &r) == 0 && r.blocks_per_sm == blocks)
			return dyn;
		if (r.blocks_per_sm > blocks)
			break;
	}
	k->dyn_smem = 0;
	return -1;
}

float gd_lx_occ_compute_ref(size_t i, int iters)
{
	float c0 = (float)(i & 1023) * (1.0f / 1024.0f), c1 = c0 + 1.0f;
	for (int k = 0; k < iters; k++) {
		c0 = fmaf(c0, GD_OCCLAB_MUL, GD_OCCLAB_ADD);
		c1 = fmaf(c1, GD_OCCLAB_MUL, GD_OCCLAB_ADD);
	}
	return c0 + c1;
}

struct ov {
	int kernel, iters, grid;
	size_t n, dyn;
	const float *dx, *hx;
	float *dy;
	const float *cref; /* compute kernel: the 1024 distinct results */
	double *ref;	   /* scratch [CHUNK] */
};

static int launch(void *arg, long iter, char *why, size_t nwhy)
{
	struct ov *v = arg;
	int e = gd_labk_occ_launch(v->kernel, v->dx, v->dy, v->n, v->iters, v->grid, BLOCK, v->dyn);
	(void)iter;
	if (e) {
		snprintf(why, nwhy, "%s", gd_labk_error(e));
		return GD_EFAIL;
	}
	return GD_OK;
}

static int check(void *arg, const void *out, size_t bytes, struct gd_lab_check *c)
{
	struct ov *v = arg;
	for (size_t off = 0; off < v->n; off += CHUNK) {
		size_t len = v->n - off < CHUNK ? v->n - off : CHUNK;
		for (size_t i = 0; i < len; i++)
			v->ref[i] = v->kernel == GD_OCCLAB_MEMORY ? (double)(v->hx[off + i] * GD_OCCLAB_SCALE)
								  : (double)v->cref[(off + i) & 1023];
		gd_lab_cmp((const float *)out + off, v->ref, len, GD_DT_F32, 0, 0, c);
	}
	snprintf(c->note, sizeof(c->note), "bit-exact against the CPU");
	return GD_OK;
}

static const char *const groups[2] = {"memory-bound: y = 1.5·x", "compute-bound: 2 FMA chains per item"};

/* The stable key of kernel kind's row at l + 1 blocks per SM (the summary finds rows by it). */
static int level_key(int kind, int l)
{
	return 1 + kind * MAX_LEVELS + l;
}

struct occ_run {
	struct gd_occ_device od;
	size_t n_mem;
	int iters;
	float *hx, cref[1024];
	double *ref;
	void *dx, *dy;
};

/* The occupancy table, the host input and the compute kernel's reference, device buffers. */
static int occ_prepare(struct gd_lab_run *r, struct occ_run *s)
{
	size_t n_mem = s->n_mem;
	int rc;
	if (gd_occ_device_from_cuda(r->dev.index, &s->od) != 0 || s->od.sm_count <= 0)
		return gd_error(GD_EFAIL, "lab occupancy: gpudiag has no occupancy table for cc %d.%d",
				r->dev.cc_major, r->dev.cc_minor);
	if (n_mem < 4096 || r->size > (8LL << 30))
		return gd_error(GD_EUSAGE, "lab occupancy: --size must be between 16 KiB and 8 GiB");
	s->hx = malloc(n_mem * sizeof(float));
	s->ref = malloc(CHUNK * sizeof(double));
	if (!s->hx || !s->ref)
		return gd_error(GD_EFAIL, "lab occupancy: out of host memory");
	{
		uint64_t seed = 6;
		gd_lab_rand_fill(s->hx, n_mem, GD_DT_F32, -1, 1, &seed);
	}
	for (int i = 0; i < 1024; i++)
		s->cref[i] = gd_lx_occ_compute_ref((size_t)i, s->iters);
	if ((rc = gd_lab_alloc(r, &s->dx, n_mem * 4, "the input")) ||
	    (rc = gd_lab_alloc(r, &s->dy, n_mem * 4, "the output")) ||
	    (rc = gd_lab_upload(s->dx, s->hx, n_mem * 4)))
		return rc;
	return GD_OK;
}

/* One kernel at every occupancy level that padding can force, 1 block per SM upwards. */
static int occ_kernel(struct gd_lab_run *r, struct occ_run *s, int kind)
{
	struct gd_occ_device od = s->od;
	const size_t n_mem = s->n_mem;
	const int iters = s->iters;
	float *hx = s->hx, *cref = s->cref;
	double *ref = s->ref;
	void *dx = s->dx, *dy = s->dy;
	int rc = GD_OK;
	int regs = 0, maxb, nl = 0, e, rb;
	size_t ssm = 0;
	long long dyns[MAX_LEVELS] = {0};
	struct gd_occ_kernel ok;
	struct gd_occ_result orr;
	size_t n = kind == GD_OCCLAB_MEMORY ? n_mem : (size_t)od.sm_count * BLOCK * 48;
	if ((e = gd_labk_occ_attr(kind, &regs, &ssm))) {
		rc = gd_error(GD_EFAIL, "lab occupancy: cudaFuncGetAttributes: %s", gd_labk_error(e));
		return rc;
	}
	memset(&ok, 0, sizeof(ok));
	ok.block_threads = BLOCK;
	ok.regs_per_thread = regs;
	ok.static_smem = ssm;
	ok.carveout_pct = 100;
	if (gd_lx_occ_padding(&od, &ok, 1) < 0) {
		rc = gd_error(GD_EFAIL,
			      "lab occupancy: cannot force one block per SM with shared memory here");
		return rc;
	}
	ok.dyn_smem = 0;
	if (gd_occupancy(&od, &ok, &orr) != 0) {
		rc = gd_error(GD_EFAIL, "lab occupancy: the kernel cannot launch: %s", orr.invalid);
		return rc;
	}
	maxb = orr.blocks_per_sm < MAX_LEVELS ? orr.blocks_per_sm : MAX_LEVELS;
	for (int b = 1; b <= maxb; b++)
		dyns[nl++] = gd_lx_occ_padding(&od, &ok, b);
	if ((e = gd_labk_occ_prepare(kind, (size_t)dyns[0] > 0 ? (size_t)dyns[0] : 0))) {
		rc = gd_error(GD_EFAIL, "lab occupancy: cudaFuncSetAttribute: %s", gd_labk_error(e));
		return rc;
	}
	for (int l = 0; l < nl && rc == GD_OK; l++) {
		struct gd_lab_variant lv;
		struct ov v;
		char name[96];
		int b = l + 1;
		if (dyns[l] < 0) {
			gd_lab_note(r, "%s: %d blocks per SM cannot be forced with shared memory; skipped",
				    groups[kind], b);
			continue;
		}
		rb = -1;
		if (gd_labk_occ_runtime_blocks(kind, BLOCK, (size_t)dyns[l], &rb))
			rb = -1;
		memset(&v, 0, sizeof(v));
		v.kernel = kind;
		v.iters = iters;
		v.grid = od.sm_count * b;
		v.n = n;
		v.dyn = (size_t)dyns[l];
		v.dx = dx;
		v.hx = hx;
		v.dy = dy;
		v.cref = cref;
		v.ref = ref;
		snprintf(name, sizeof(name), "%d block%s/SM, %lld B padding", b, b > 1 ? "s" : "", dyns[l]);
		memset(&lv, 0, sizeof(lv));
		lv.group = groups[kind];
		lv.name = name;
		lv.x = 100.0 * b * orr.warps_per_block / orr.max_warps;
		if (kind == GD_OCCLAB_MEMORY) {
			lv.bytes = (double)n * 8;
			lv.formula = "N·4 read + N·4 write";
			lv.roof = GD_ROOF_DRAM_COPY;
		} else {
			lv.flops = (double)n * iters * 4;
			lv.formula = "items × 2 chains × iters FMA × 2";
			lv.roof = GD_ROOF_FLOPS_CUDA;
			lv.prec = GD_P_FP32;
		}
		lv.launch = launch;
		lv.arg = &v;
		lv.out = dy;
		lv.out_bytes = n * 4;
		lv.check = check;
		lv.metrics[0] = (struct gd_lab_metric){"occupancy_pct", lv.x, "%"};
		lv.metrics[1] = (struct gd_lab_metric){"runtime_blocks_per_sm", rb >= 0 ? rb : NAN, ""};
		lv.metrics[2] = (struct gd_lab_metric){"regs", regs, ""};
		lv.nmetrics = 3;
		if (rb >= 0 && rb != b)
			gd_lab_note(r,
				    "%s at %d blocks/SM: the CUDA runtime says %d blocks fit "
				    "(calculator: %d)",
				    groups[kind], b, rb, b);
		rc = gd_lab_measure_key(r, &lv, level_key(kind, l));
	}
	return rc;
}

static void occ_summarise(struct gd_lab_run *r, const struct occ_run *s)
{
	const struct gd_occ_device od = s->od;
	double best[2] = {0, 0};
	/* throughput relative to each kernel's best level */
	for (int k = 0; k < 2; k++)
		for (int l = 0; l < MAX_LEVELS; l++) {
			const struct gd_lab_result *res = gd_lab_find_key(r, level_key(k, l));
			if (res && isfinite(res->t_median) && (best[k] == 0 || res->t_median < best[k]))
				best[k] = res->t_median;
		}
	{
		double need[2] = {NAN, NAN}, at_low[2] = {NAN, NAN}, low_x[2] = {NAN, NAN};
		for (int k = 0; k < 2; k++)
			for (int l = 0; l < MAX_LEVELS; l++) {
				struct gd_lab_result *res = gd_lab_find_key(r, level_key(k, l));
				double f;
				if (!res || !(best[k] > 0))
					continue;
				f = best[k] / res->t_median;
				gd_lab_result_metric(res, "of_best_pct", f * 100, "%");
				if (f >= 0.9 && !(need[k] <= res->x))
					need[k] = res->x;
				if (isnan(low_x[k]) || res->x < low_x[k]) {
					low_x[k] = res->x;
					at_low[k] = f;
				}
			}
		gd_lab_note(
		    r,
		    "%d threads per block; every launch is one wave (grid = %d SMs × blocks per SM); "
		    "occupancy forced by dynamic shared memory with the carveout set to 100 %% shared",
		    BLOCK, od.sm_count);
		if (isfinite(need[0]) && isfinite(need[1]))
			gd_lab_verdict(
			    r, "§6",
			    "The memory-bound kernel needed %.0f %% occupancy to come within 10 %% of its "
			    "best "
			    "(at %.1f %% it ran at %.0f %% of its best); the compute-bound kernel needed "
			    "only "
			    "%.0f %% (%.0f %% of its best at %.1f %%): more warps hide memory latency, while "
			    "an SM busy with arithmetic is fast at low occupancy.",
			    need[0], low_x[0], at_low[0] * 100, need[1], at_low[1] * 100, low_x[1]);
	}
}

static void occ_chart(struct gd_lab_run *r)
{
	struct gd_lab_chart ch;
	memset(&ch, 0, sizeof(ch));
	ch.title = "Occupancy: throughput vs theoretical occupancy";
	ch.xlabel = "theoretical occupancy (%, gpudiag calculator)";
	ch.ylabel = "throughput, % of the kernel's best";
	ch.y = GD_LAB_Y_METRIC;
	ch.metric = "of_best_pct";
	ch.groups[0] = groups[0];
	ch.groups[1] = groups[1];
	ch.ngroups = 2;
	gd_lab_set_chart(r, &ch);
}

static int run(struct gd_lab_run *r)
{
	struct occ_run s;
	int rc;
	memset(&s, 0, sizeof(s));
	s.n_mem = r->size > 0 ? (size_t)r->size / 4 : (size_t)(r->quick ? 1 << 25 : 1 << 26);
	s.iters = r->quick ? 256 : 1024;
	rc = occ_prepare(r, &s);
	for (int kind = 0; kind < 2 && rc == GD_OK; kind++)
		rc = occ_kernel(r, &s, kind);
	if (rc == GD_OK) {
		occ_summarise(r, &s);
		occ_chart(r);
	}
	free(s.hx);
	free(s.ref);
	return rc;
}

const struct gd_lab gd_lab_occupancy = {
    "occupancy",
    "§6",
    "memory-bound vs compute-bound kernels at occupancy from low to full",
    "A memory-bound kernel (y = 1.5·x) and a compute-bound one (FMA chains) run at every occupancy\n"
    "from 1 block per SM to the most that fit (256 threads per block), forced by padding each\n"
    "block with dynamic shared memory it never uses. Each launch is one full wave. Shown beside\n"
    "each: the theoretical occupancy from gpudiag's calculator, the CUDA runtime's resident\n"
    "blocks per SM, and the throughput as % of the kernel's best ('of_best_pct').\n"
    "--size BYTES sets the memory-bound kernel's array (default 256 MiB each way).\n",
    run,
    NULL, /* no --shape */
    16LL << 10, 8LL << 30, 0, /* --size: the range (and step) the run itself requires */
    " (bytes: the memory-bound kernel's array)",
};
