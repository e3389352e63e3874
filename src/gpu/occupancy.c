/* The occupancy calculator; see occupancy.h.
 *
 * A block is resident on an SM only if every per-SM resource still has room for it. For
 * each resource we compute how many blocks of this kernel it admits; the smallest count
 * wins, and every resource that reaches it is a limiter. */
#include "gpu/occupancy.h"

#include "gpu/cudrv.h"

#include "core/status.h"

#include <cuda.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* Callers keep x, y within the ranges gd_occ_device_check and gd_occupancy enforce, where
 * none of these can overflow. */
static int div_up(int x, int y) { return (x + y - 1) / y; }
static int round_up(int x, int y) { return div_up(x, y) * y; }
static long long round_up_ll(long long x, long long y) { return (x + y - 1) / y * y; }
static size_t round_up_z(size_t x, size_t y) { return (x + y - 1) / y * y; }
static int imin(int a, int b) { return a < b ? a : b; }

int gd_occ_device_from_arch(const struct gd_arch *a, struct gd_occ_device *d)
{
	memset(d, 0, sizeof(*d));
	if (!a)
		return -1;
	d->major = a->major;
	d->minor = a->minor;
	d->warp_size = a->warp_size;
	d->max_threads_per_sm = a->max_threads_per_sm;
	d->max_threads_per_block = a->max_threads_per_block;
	d->max_blocks_per_sm = a->max_blocks_per_sm;
	d->regs_per_sm = a->regs_per_sm;
	d->regs_per_block = a->regs_per_block;
	d->max_regs_per_thread = a->max_regs_per_thread;
	d->reg_alloc_unit = a->reg_alloc_unit;
	d->subpartitions = a->subpartitions;
	d->smem_per_sm = (size_t)a->smem_per_sm;
	d->smem_per_block = (size_t)a->smem_per_block;
	d->smem_per_block_optin = (size_t)a->smem_per_block_optin;
	d->smem_reserved_per_block = (size_t)a->smem_reserved_per_block;
	d->smem_alloc_unit = a->smem_alloc_unit;
	d->carveouts_kb = a->carveouts_kb;
	d->ncarveouts = a->ncarveouts;
	d->barriers_per_block_slot = a->barriers_per_block_slot;
	d->virtual_resources = a->virtual_resources;
	return 0;
}

int gd_occ_device_from_cuda(int dev, struct gd_occ_device *d)
{
	int major = gd_cu_attr(dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
	int minor = gd_cu_attr(dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
	const struct gd_arch *a = gd_arch_find(major, minor);
	int v;
	/* The step tables (register/shared-memory granularity, carveouts, barriers) are not
	 * device attributes; without a table entry the answer would be a guess. */
	if (!a || gd_occ_device_from_arch(a, d))
		return -1;
#define TAKE(field, attr)                                   \
	if ((v = gd_cu_attr(dev, attr)) > 0)                \
		d->field = v;
	TAKE(warp_size, CU_DEVICE_ATTRIBUTE_WARP_SIZE);
	TAKE(max_threads_per_sm, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR);
	TAKE(max_threads_per_block, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
	TAKE(max_blocks_per_sm, CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR);
	TAKE(regs_per_sm, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR);
	TAKE(regs_per_block, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK);
	TAKE(smem_per_sm, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR);
	TAKE(smem_per_block, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
	TAKE(smem_per_block_optin, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
	TAKE(sm_count, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
#undef TAKE
	if ((v = gd_cu_attr(dev, CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK)) >= 0)
		d->smem_reserved_per_block = (size_t)v;
	return 0;
}

/* The smallest shared-memory configuration of the SM that holds `bytes`, or 0 if none. */
static size_t carveout_step(const struct gd_occ_device *d, size_t bytes)
{
	for (int i = 0; i < d->ncarveouts; i++)
		if ((size_t)d->carveouts_kb[i] * 1024 >= bytes)
			return (size_t)d->carveouts_kb[i] * 1024;
	return 0;
}

/* ---- checking the description and the launch --------------------------------------- */
/* What a device description may hold. The bounds are far outside every GPU (a Hopper SM has
 * 2048 threads, 64 K registers, 228 KB of shared memory) yet keep every product below in
 * range: a profile is a file from another machine, and a warp size of 2^31 - 1 there must
 * give "unknown", not a division by zero. */
static const struct {
	const char *why;
	size_t off;
	int is_size; /* 1: a size_t field, else int */
	long long lo, hi;
} dev_bounds[] = {
#define INT_FIELD(f, lo, hi, name) {"device properties out of range (" name ")", offsetof(struct gd_occ_device, f), 0, lo, hi}
#define SIZE_FIELD(f, hi, name) {"device properties out of range (" name ")", offsetof(struct gd_occ_device, f), 1, 0, hi}
	INT_FIELD(major, 0, 1000, "compute capability"),
	INT_FIELD(warp_size, 1, 1024, "warp size"),
	INT_FIELD(max_threads_per_sm, 1, 1 << 16, "threads per SM"),
	INT_FIELD(max_threads_per_block, 1, 1 << 16, "threads per block"),
	INT_FIELD(max_blocks_per_sm, 1, 1 << 12, "blocks per SM"),
	INT_FIELD(regs_per_sm, 1, 1 << 24, "registers per SM"),
	INT_FIELD(regs_per_block, 1, 1 << 24, "registers per block"),
	INT_FIELD(max_regs_per_thread, 1, 1 << 10, "registers per thread"),
	INT_FIELD(reg_alloc_unit, 1, 1 << 16, "register allocation unit"),
	INT_FIELD(subpartitions, 1, 64, "SM sub-partitions"),
	SIZE_FIELD(smem_per_sm, GD_OCC_SMEM_MAX, "shared memory per SM"),
	SIZE_FIELD(smem_per_block, GD_OCC_SMEM_MAX, "shared memory per block"),
	SIZE_FIELD(smem_per_block_optin, GD_OCC_SMEM_MAX, "opt-in shared memory per block"),
	SIZE_FIELD(smem_reserved_per_block, GD_OCC_SMEM_MAX, "reserved shared memory per block"),
	INT_FIELD(smem_alloc_unit, 1, 1 << 20, "shared-memory allocation unit"),
	INT_FIELD(ncarveouts, 0, 64, "shared-memory carveouts"),
	INT_FIELD(barriers_per_block_slot, 0, 64, "barriers per block slot"),
	INT_FIELD(virtual_resources, 0, INT_MAX, "virtual resources"),
	INT_FIELD(sm_count, 0, 1 << 20, "SM count"),
#undef INT_FIELD
#undef SIZE_FIELD
};

int gd_occ_device_check(const struct gd_occ_device *d, const char **why)
{
	*why = NULL;
	for (size_t i = 0; i < sizeof(dev_bounds) / sizeof(*dev_bounds); i++) {
		const char *f = (const char *)d + dev_bounds[i].off;
		long long v;
		if (dev_bounds[i].is_size) {
			size_t z;
			memcpy(&z, f, sizeof(z));
			v = z > (size_t)LLONG_MAX ? LLONG_MAX : (long long)z;
		} else {
			int x;
			memcpy(&x, f, sizeof(x));
			v = x;
		}
		if (v < dev_bounds[i].lo || v > dev_bounds[i].hi) {
			*why = dev_bounds[i].why;
			return GD_EDATA;
		}
	}
	if (d->ncarveouts > 0 && !d->carveouts_kb) {
		*why = "device properties out of range (shared-memory carveouts)";
		return GD_EDATA;
	}
	for (int i = 0; i < d->ncarveouts; i++)
		if (d->carveouts_kb[i] < 0 || (size_t)d->carveouts_kb[i] * 1024 > GD_OCC_SMEM_MAX) {
			*why = "device properties out of range (shared-memory carveouts)";
			return GD_EDATA;
		}
	return GD_OK;
}

/* ---- the limits ------------------------------------------------------------------------ */
static int regs_limit(const struct gd_occ_device *d, const struct gd_occ_kernel *k, int wpb,
		      struct gd_occ_result *r)
{
	/* long long: up to 1024 registers × 1024 threads per warp × 64 K warps per block */
	long long per_warp = round_up_ll((long long)k->regs_per_thread * d->warp_size, d->reg_alloc_unit);
	long long per_block = per_warp * wpb;
	/* The hardware places a block's warps round-robin over the scheduler quarters, so a
	 * block is charged as if its warp count were rounded up to a multiple of them. */
	long long assumed = per_warp * round_up(wpb, d->subpartitions);
	r->regs_per_block_alloc = per_block > INT_MAX ? INT_MAX : (int)per_block;
	if (d->regs_per_block < assumed || d->regs_per_block < per_block) {
		r->invalid = "the block needs more registers than one block may have";
		return 0;
	}
	if (per_warp == 0)
		return INT_MAX;
	/* Registers are a per-quarter resource: warps per quarter, times quarters. */
	return (int)((d->regs_per_sm / d->subpartitions / per_warp) * d->subpartitions / wpb);
}

static int smem_limit(const struct gd_occ_device *d, const struct gd_occ_kernel *k, struct gd_occ_result *r)
{
	size_t fixed, total, alloc, max_dyn, per_block_limit, pref, sm;
	/* beyond any GPU, and the sums below stay far from wrapping */
	if (k->static_smem > GD_OCC_SMEM_MAX || k->dyn_smem > GD_OCC_SMEM_MAX || k->max_dyn_smem > GD_OCC_SMEM_MAX) {
		r->invalid = "the block needs more shared memory than one block may have";
		return 0;
	}
	fixed = k->static_smem + d->smem_reserved_per_block;
	total = fixed + k->dyn_smem;
	alloc = round_up_z(total, (size_t)d->smem_alloc_unit);
	max_dyn = k->max_dyn_smem ? k->max_dyn_smem
				  : (d->smem_per_block > k->static_smem ? d->smem_per_block - k->static_smem : 0);
	r->smem_per_block_alloc = alloc;
	if (k->dyn_smem > max_dyn) {
		r->invalid = k->max_dyn_smem ? "dynamic shared memory exceeds the kernel's maximum"
					     : "dynamic shared memory above 48 KB needs the opt-in attribute "
					       "(cudaFuncAttributeMaxDynamicSharedMemorySize)";
		return 0;
	}
	/* A kernel allowed more than the default per-block amount gets the opt-in limit. */
	per_block_limit = (fixed + max_dyn > d->smem_per_block ? d->smem_per_block_optin : d->smem_per_block) +
			  d->smem_reserved_per_block;
	if (alloc > per_block_limit) {
		r->invalid = "the block needs more shared memory than one block may have";
		return 0;
	}
	if (k->carveout_pct < 0) {
		pref = d->smem_per_sm;
	} else {
		pref = carveout_step(d, d->smem_per_sm * (size_t)k->carveout_pct / 100);
		if (!pref && k->carveout_pct > 0)
			pref = d->smem_per_sm;
	}
	sm = pref >= alloc ? pref : carveout_step(d, alloc);
	if (!sm)
		sm = d->smem_per_sm;
	r->smem_sm_config = sm;
	return alloc ? (int)(sm / alloc) : INT_MAX;
}

int gd_occupancy(const struct gd_occ_device *d, const struct gd_occ_kernel *k, struct gd_occ_result *r)
{
	int wpb, lim;
	const char *why;
	memset(r, 0, sizeof(*r));
	r->lim_warps = r->lim_regs = r->lim_smem = r->lim_blocks = r->lim_barriers = r->lim_virtual = INT_MAX;
	if (!d->warp_size || !d->subpartitions || !d->reg_alloc_unit || !d->smem_alloc_unit) {
		r->invalid = "no occupancy table for this device";
		return -1;
	}
	if (gd_occ_device_check(d, &why)) {
		r->invalid = why;
		return -1;
	}
	r->max_warps = d->max_threads_per_sm / d->warp_size;
	if (k->block_threads <= 0) {
		r->invalid = "the block size must be positive";
		return -1;
	}
	if (k->block_threads > d->max_threads_per_block) {
		r->invalid = "the block has more threads than a block may have";
		return -1;
	}
	if (k->regs_per_thread < 0 || k->regs_per_thread > d->max_regs_per_thread) {
		r->invalid = "more registers per thread than the architecture allows";
		return -1;
	}
	if (k->carveout_pct < -1 || k->carveout_pct > 100) {
		r->invalid = "the shared-memory carveout must be a percentage (0 to 100) or -1";
		return -1;
	}
	wpb = div_up(k->block_threads, d->warp_size);
	r->warps_per_block = wpb;
	r->lim_warps = r->max_warps / wpb;
	r->lim_blocks = d->max_blocks_per_sm;
	r->lim_regs = regs_limit(d, k, wpb, r);
	r->lim_smem = smem_limit(d, k, r);
	lim = imin(imin(r->lim_warps, r->lim_blocks), imin(r->lim_regs, r->lim_smem));
	if (d->major >= 9) {
		/* Each resident block slot has a fixed number of named barriers; a block that
		 * uses several of them (bar.sync with ids > 0) takes several. */
		int used = k->barriers > 0 ? k->barriers : 1;
		r->lim_barriers = d->max_blocks_per_sm * d->barriers_per_block_slot / used;
		lim = imin(lim, r->lim_barriers);
	}
	r->blocks_per_sm = lim;
	if (lim == r->lim_warps)
		r->limiters |= GD_LIM_WARPS;
	if (lim == r->lim_regs)
		r->limiters |= GD_LIM_REGS;
	if (lim == r->lim_smem)
		r->limiters |= GD_LIM_SMEM;
	if (lim == r->lim_blocks)
		r->limiters |= GD_LIM_BLOCKS;
	if (d->major >= 9 && lim == r->lim_barriers && k->barriers > 1)
		r->limiters |= GD_LIM_BARRIERS;
	r->active_warps = lim * wpb;
	r->occupancy = r->max_warps ? (double)r->active_warps / r->max_warps : 0;
	return lim > 0 ? 0 : -1;
}

char *gd_occ_limiters_str(unsigned l, char *buf, size_t n)
{
	static const struct {
		unsigned bit;
		const char *name;
	} names[] = {{GD_LIM_REGS, "registers"},	{GD_LIM_SMEM, "shared memory"},
		     {GD_LIM_WARPS, "warps per SM"},	{GD_LIM_BLOCKS, "blocks per SM"},
		     {GD_LIM_BARRIERS, "barriers"},	{GD_LIM_VIRTUAL, "virtual resources"}};
	size_t used = 0;
	buf[0] = 0;
	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++)
		if (l & names[i].bit)
			used += (size_t)snprintf(buf + used, used < n ? n - used : 0, "%s%s", used ? " + " : "",
						 names[i].name);
	if (!used)
		snprintf(buf, n, "none");
	return buf;
}

double gd_occ_waves(const struct gd_occ_device *d, const struct gd_occ_result *r, long long grid_blocks,
		    double *last_wave_fill)
{
	double per_wave, waves;
	if (last_wave_fill)
		*last_wave_fill = 0;
	if (d->sm_count <= 0 || r->blocks_per_sm <= 0 || grid_blocks <= 0)
		return 0;
	per_wave = (double)d->sm_count * r->blocks_per_sm;
	waves = (double)grid_blocks / per_wave;
	if (last_wave_fill) {
		long long rem = grid_blocks % (long long)per_wave;
		*last_wave_fill = rem ? (double)rem / per_wave : 1.0;
	}
	return waves;
}
