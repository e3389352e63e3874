/* Synthetic raw files for tests and benchmarks (profile.h: gd_raw_synth). The records are
 * what the injection library writes, with exactly known values so tests can assert them:
 * kernel i starts at t0 + 10 µs·i and lasts 2 µs + (i mod 7) ns·1000, alternates two streams,
 * and has an API record 3 µs earlier (same correlation). */
#include "profile/writer.h"

#include "profile/raw.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const default_names[] = {
	"_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEESt5arrayIPcLm1EEEEviT0_T1_",
	"ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_stages_64x3_tn",
	"void hostile<\"quoted\" & 'amp'>(int) </script>",
	"line\nbreak\ttab\\backslash",
	"bad utf8 \xff\xfe here \xc3",
	"triton_poi_fused_add_mul_0",
};

struct sbuf {
	FILE *f;
	int err;
};

static void put(struct sbuf *b, const void *p, size_t n)
{
	if (fwrite(p, 1, n, b->f) != n)
		b->err = 1;
}

static void put_string(struct sbuf *b, uint32_t id, const char *s)
{
	struct gd_raw_string r;
	size_t len = strlen(s), pad = ((len + 7) & ~(size_t)7) - len;
	static const char zeros[8];
	memset(&r, 0, sizeof(r));
	r.h.type = GD_RAW_STRING;
	r.h.size = (uint32_t)(sizeof(r) + len + pad);
	r.id = id;
	r.len = (uint32_t)len;
	put(b, &r, sizeof(r));
	put(b, s, len);
	put(b, zeros, pad);
}

int gd_raw_synth(const char *path, uint32_t pid, long n, const char *const *names, int nnames, uint64_t t0)
{
	struct sbuf b = {fopen(path, "wb"), 0};
	struct gd_raw_header h;
	uint32_t api_name = 1, marker_name = 2, domain = 3, cmd = 4, devname = 5, first = 6;
	if (!b.f)
		return -1;
	if (!names) {
		names = default_names;
		nnames = (int)(sizeof(default_names) / sizeof(default_names[0]));
	}
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, GD_RAW_MAGIC, 8);
	h.version = GD_RAW_VERSION, h.bom = GD_RAW_BOM, h.pid = pid, h.ppid = 1, h.status = GD_RAW_ST_OK;
	h.cupti_version = h.built_cupti_version = 130001, h.start_ns = t0, h.api_mode = 1;
	put(&b, &h, sizeof(h));
	put_string(&b, api_name, "cudaLaunchKernel_v7000");
	put_string(&b, marker_name, "train_step");
	put_string(&b, domain, "");
	put_string(&b, cmd, "synthetic --kernels");
	put_string(&b, devname, "NVIDIA H200");
	for (int i = 0; i < nnames; i++)
		put_string(&b, first + (uint32_t)i, names[i]);
	{
		struct gd_raw_process p;
		memset(&p, 0, sizeof(p));
		p.h.type = GD_RAW_PROCESS, p.h.size = sizeof(p), p.start_ns = t0, p.ppid = 1, p.command_line = cmd;
		put(&b, &p, sizeof(p));
	}
	{
		struct gd_raw_device d;
		memset(&d, 0, sizeof(d));
		d.h.type = GD_RAW_DEVICE, d.h.size = sizeof(d);
		for (int i = 0; i < 16; i++)
			d.uuid[i] = (uint8_t)(0xa0 + i);
		d.ordinal = 0, d.name = devname, d.cc_major = 9, d.cc_minor = 0, d.sm_count = 132;
		d.warp_size = 32, d.max_threads_per_block = 1024, d.max_warps_per_sm = 64, d.max_blocks_per_sm = 32;
		d.regs_per_sm = 65536, d.regs_per_block = 65536, d.smem_per_sm = 233472, d.smem_per_block = 49152;
		d.l2_bytes = 62914560, d.sm_clock_khz = 1980000, d.async_engines = 3;
		d.global_mem_bytes = 150ull << 30;
		put(&b, &d, sizeof(d));
	}
	{
		struct gd_raw_context c = {{GD_RAW_CONTEXT, sizeof(c)}, 1, 0, 7, 0};
		struct gd_raw_stream s1 = {{GD_RAW_STREAM, sizeof(s1)}, 1, 7, 0, 3, 0, 0};
		struct gd_raw_stream s2 = {{GD_RAW_STREAM, sizeof(s2)}, 1, 13, 0, 2, 5, 0};
		put(&b, &c, sizeof(c));
		put(&b, &s1, sizeof(s1));
		put(&b, &s2, sizeof(s2));
	}
	{
		struct gd_raw_marker m;
		memset(&m, 0, sizeof(m));
		m.h.type = GD_RAW_MARKER, m.h.size = sizeof(m);
		m.timestamp = t0, m.flags = 2, m.id = 1, m.object_kind = 2, m.pid = pid, m.tid = 100;
		m.name = marker_name, m.domain = domain;
		put(&b, &m, sizeof(m));
		m.timestamp = t0 + (uint64_t)n * 10000 + 5000, m.flags = 4, m.name = 0;
		put(&b, &m, sizeof(m));
	}
	for (long i = 0; i < n && !b.err; i++) {
		struct gd_raw_kernel k;
		struct gd_raw_api a;
		uint64_t start = t0 + 3000 + (uint64_t)i * 10000;
		memset(&k, 0, sizeof(k));
		memset(&a, 0, sizeof(a));
		a.h.type = GD_RAW_API, a.h.size = sizeof(a);
		a.start = start - 3000, a.end = start - 1000, a.domain = 1, a.cbid = 211, a.tid = 100;
		a.correlation = (uint32_t)(i + 1), a.name = api_name;
		put(&b, &a, sizeof(a));
		k.h.type = GD_RAW_KERNEL, k.h.size = sizeof(k);
		k.start = start, k.end = start + 2000 + (uint64_t)(i % 7) * 1000;
		k.queued = start - 2000, k.submitted = start - 1500;
		k.device = 0, k.context = 1, k.stream = i % 2 ? 13 : 7, k.correlation = (uint32_t)(i + 1);
		k.name = first + (uint32_t)(i % nnames);
		k.grid[0] = 1024, k.grid[1] = k.grid[2] = 1;
		k.block[0] = 256, k.block[1] = k.block[2] = 1;
		k.regs = 32, k.static_smem = 0, k.dyn_smem = 1024;
		put(&b, &k, sizeof(k));
		if (i % 1000 == 0) {
			struct gd_raw_memcpy m;
			memset(&m, 0, sizeof(m));
			m.h.type = GD_RAW_MEMCPY, m.h.size = sizeof(m);
			m.start = start + 8000, m.end = start + 9000, m.bytes = 1 << 20, m.copy_count = 1;
			m.context = 1, m.stream = 7, m.correlation = 0, m.copy_kind = 1, m.src_kind = 1, m.dst_kind = 3;
			m.src_device = m.dst_device = UINT32_MAX;
			put(&b, &m, sizeof(m));
		}
	}
	{
		struct gd_raw_end e;
		memset(&e, 0, sizeof(e));
		e.h.type = GD_RAW_END, e.h.size = sizeof(e), e.end_ns = t0 + (uint64_t)n * 10000 + 10000;
		put(&b, &e, sizeof(e));
	}
	if (fclose(b.f) != 0)
		b.err = 1;
	return b.err ? -1 : 0;
}
