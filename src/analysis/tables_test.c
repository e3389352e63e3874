/* CPU-tier tests of the statistics tables (analysis/tables.h) on a profile built in memory,
 * whose every figure is worked out by hand below; and the kind names shared with the views. */
#include "analysis/tables.h"
#include "core/status.h"
#include "core/test.h"
#include "profile/profile.h"
#include "profile/schema.h"

#include <math.h>
#include <sqlite3.h>

static void api(struct gd_profile *p, int tid, const char *name, int64_t start, int64_t end, uint32_t corr)
{
	struct gd_papi *a = gd_profile_add_api(p);
	a->pid = 1, a->tid = tid, a->start = start, a->end = end, a->corr = corr;
	a->name = gd_profile_intern(p, name);
	a->cat = gd_api_category(name);
}

static void kernel(struct gd_profile *p, int64_t stream, int64_t start, int64_t end, uint32_t corr)
{
	struct gd_pkernel *k = gd_profile_add_kernel(p);
	k->pid = 1, k->device = 0, k->stream = stream, k->start = start, k->end = end, k->corr = corr;
	k->name = k->dname = gd_profile_intern(p, "k");
	k->legacy = stream == 7;
}

static void range(struct gd_profile *p, int tid, const char *name, int64_t start, int64_t end, int mark)
{
	struct gd_pnvtx *v = gd_profile_add_nvtx(p);
	v->pid = 1, v->tid = tid, v->start = start, v->end = end, v->mark = mark;
	v->name = gd_profile_intern(p, name);
}

static void build(struct gd_profile *p)
{
	struct gd_pcopy *c;
	gd_profile_init(p);
	/* thread 10 launches three kernels and synchronises; thread 11 copies (synchronously).
	 * The thread id is above INT_MAX as an OS would give it, read as an int (profile.h). */
	api(p, 10, "cudaLaunchKernel_v7000", 0, 10, 1);
	api(p, 10, "cudaLaunchKernel_v7000", 20, 40, 2);
	api(p, 10, "cudaLaunchKernel_v7000", 50, 80, 3);
	api(p, 10, "cudaDeviceSynchronize_v3020", 100, 200, 0);
	api(p, (int)2853113856u, "cudaMemcpy_v3020", 30, 80, 4);
	kernel(p, 7, 1000, 1100, 1);
	kernel(p, 7, 1200, 1300, 2);
	kernel(p, 8, 1150, 1250, 3);
	/* the copy overlaps kernel 2 on stream 7: the stream's busy time is the union */
	c = gd_profile_add_copy(p);
	c->pid = 1, c->device = 0, c->stream = 7, c->start = 1250, c->end = 1400, c->bytes = 1000, c->corr = 4;
	c->kind = GD_CK_HTOD, c->legacy = 1;
	range(p, 10, "step", 0, 45, 0);  /* launches 1, 2 */
	range(p, 10, "step", 46, 90, 0); /* launch 3 */
	range(p, 10, "outer", 0, 300, 0);
	range(p, (int)2853113856u, "copy", 25, 90, 0);
	range(p, 10, "open", 95, -1, 0);
	range(p, 10, "mark", 99, -1, 1);
	gd_profile_finish(p);
}

static const struct gd_nvtx_row *nvtx(const struct gd_profile *p, const struct gd_stat_tables *t, const char *name)
{
	for (long i = 0; i < t->nnvtx; i++)
		if (t->nvtx[i].name >= 0 && !strcmp(p->names[t->nvtx[i].name], name))
			return &t->nvtx[i];
	return NULL;
}

static void test_tables(void)
{
	struct gd_profile p;
	struct gd_stat_tables t;
	const struct gd_nvtx_row *r;
	build(&p);
	CHECK_INT(gd_stat_tables_compute(&p, &t), GD_OK);

	/* API calls by name, by total: sync 100, launches 60, memcpy 50, of 210 */
	CHECK_INT(t.napi, 3);
	CHECK_NEAR(t.api_ns, 210, 0);
	CHECK_STR(p.names[t.api[0].name], "cudaDeviceSynchronize_v3020");
	CHECK_STR(p.names[t.api[1].name], "cudaLaunchKernel_v7000");
	CHECK_INT(t.api[1].count, 3);
	CHECK_NEAR(t.api[1].total_ns, 60, 0);
	CHECK_NEAR(t.api[1].mean_ns, 20, 1e-9);
	CHECK_NEAR(t.api[1].min_ns, 10, 0);
	CHECK_NEAR(t.api[1].max_ns, 30, 0);
	CHECK_NEAR(t.api[1].std_ns, sqrt(200.0 / 3), 1e-9);
	CHECK_NEAR(t.api[1].fraction, 60.0 / 210, 1e-12);
	CHECK_INT(t.api[1].cat, GD_API_LAUNCH);

	/* threads, by API time: 10 (160 ns) then the copying thread (50 ns) */
	CHECK_INT(t.nthreads, 2);
	CHECK_INT(t.threads[0].tid, 10);
	CHECK_INT(t.threads[0].api_calls, 4);
	CHECK_NEAR(t.threads[0].api_ns, 160, 0);
	CHECK_INT(t.threads[0].launches, 3);
	CHECK_NEAR(t.threads[0].launch_ns, 60, 0);
	CHECK_INT(t.threads[0].syncs, 1);
	CHECK_NEAR(t.threads[0].sync_ns, 100, 0);
	CHECK_INT(t.threads[0].nvtx_ranges, 4); /* step ×2, outer, open; not the mark */
	CHECK_INT(t.threads[1].tid, 2853113856LL); /* numbered unsigned */
	CHECK_INT(t.threads[1].syncs, 1);          /* a synchronous copy synchronises */
	CHECK_INT(t.threads[1].nvtx_ranges, 1);

	/* streams, by busy time: 7 ([1000,1100] + [1200,1400]) then 8 */
	CHECK_INT(t.nstreams, 2);
	CHECK_INT(t.streams[0].stream, 7);
	CHECK_INT(t.streams[0].kernels, 2);
	CHECK_NEAR(t.streams[0].kernel_ns, 200, 0);
	CHECK_INT(t.streams[0].copies, 1);
	CHECK_NEAR(t.streams[0].copy_ns, 150, 0);
	CHECK_NEAR(t.streams[0].copy_bytes, 1000, 0);
	CHECK_NEAR(t.streams[0].busy_ns, 300, 0);
	CHECK_INT(t.streams[0].legacy, 1);
	CHECK_INT(t.streams[0].first, 1000);
	CHECK_INT(t.streams[0].last, 1400);
	CHECK_INT(t.streams[1].stream, 8);
	CHECK_NEAR(t.streams[1].busy_ns, 100, 0);

	/* NVTX: step = [0,45] (kernels 1, 2: 200 ns, projected 1000..1300) + [46,90] (kernel 3) */
	CHECK_INT(t.nvtx_marks, 1);
	CHECK((r = nvtx(&p, &t, "step")) != NULL);
	if (r) {
		CHECK_INT(r->count, 2);
		CHECK_NEAR(r->total_ns, 89, 0);
		CHECK_NEAR(r->min_ns, 44, 0);
		CHECK_NEAR(r->max_ns, 45, 0);
		CHECK_INT(r->gpu_ops, 3);
		CHECK_INT(r->kernels, 3);
		CHECK_NEAR(r->kernel_ns, 300, 0);
		CHECK_NEAR(r->gpu_proj_ns, 300 + 100, 0);
	}
	CHECK((r = nvtx(&p, &t, "outer")) != NULL);
	if (r) {
		CHECK_INT(r->gpu_ops, 3); /* its own thread only: not the other thread's copy */
		CHECK_NEAR(r->gpu_proj_ns, 300, 0);
	}
	CHECK((r = nvtx(&p, &t, "copy")) != NULL);
	if (r) {
		CHECK_INT(r->gpu_ops, 1);
		CHECK_INT(r->kernels, 0);
		CHECK_NEAR(r->gpu_proj_ns, 150, 0);
	}
	CHECK((r = nvtx(&p, &t, "open")) != NULL);
	if (r) {
		CHECK_INT(r->count, 0);
		CHECK_INT(r->open, 1);
		CHECK(isnan(r->mean_ns) && isnan(r->gpu_proj_ns));
	}
	CHECK(nvtx(&p, &t, "mark") == NULL);
	CHECK_STR(p.names[t.nvtx[0].name], "outer"); /* by total: outer 300 */

	gd_stat_tables_free(&t);
	gd_profile_free(&p);

	/* an empty profile: empty tables */
	gd_profile_init(&p);
	gd_profile_finish(&p);
	CHECK_INT(gd_stat_tables_compute(&p, &t), GD_OK);
	CHECK_INT(t.napi + t.nnvtx + t.nstreams + t.nthreads, 0);
	gd_stat_tables_free(&t);
	gd_profile_free(&p);
}

static void test_kind_names(void)
{
	CHECK_STR(gd_copy_kind_name(1), "HtoD");
	CHECK_STR(gd_copy_kind_name(8), "DtoD");
	CHECK_STR(gd_copy_kind_name(10), "PtoP");
	CHECK_STR(gd_copy_kind_name(11), "unknown");
	CHECK_STR(gd_copy_kind_name(-1), "unknown");
	CHECK_STR(gd_memory_kind_name(1), "pageable");
	CHECK_STR(gd_memory_kind_name(2), "pinned");
	CHECK_STR(gd_memory_kind_name(5), "managed");
	CHECK_STR(gd_memory_kind_name(8), "unknown");

	/* the views of schema.sql decode every kind as these functions do */
	{
		sqlite3 *db;
		sqlite3_stmt *st;
		int rows = 0;
		CHECK_INT(sqlite3_open(":memory:", &db), SQLITE_OK);
		CHECK_INT(sqlite3_exec(db, gd_profile_schema_sql, NULL, NULL, NULL), SQLITE_OK);
		for (int k = -1; k <= 12; k++) {
			char sql[256];
			snprintf(sql, sizeof(sql),
				 "INSERT INTO memcpy (pid, start, end, bytes, copy_kind, src_kind, dst_kind) VALUES (1, 0, 100, "
				 "1000, %d, %d, %d); INSERT INTO memset (pid, start, end, bytes, mem_kind) VALUES (1, 0, 0, 8, %d);",
				 k, k % 9, (k + 3) % 9, k);
			CHECK_INT(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
		}
		CHECK_INT(sqlite3_prepare_v2(db,
					     "SELECT m.copy_kind, m.copy_kind_name, m.src_kind, m.src_kind_name, m.dst_kind, "
					     "m.dst_kind_name, m.bandwidth_bps, s.mem_kind_name, s.bandwidth_bps FROM memcpy_v m "
					     "JOIN memset_v s ON s.id = m.id ORDER BY m.id",
					     -1, &st, NULL),
			  SQLITE_OK);
		while (sqlite3_step(st) == SQLITE_ROW) {
			CHECK_STR((const char *)sqlite3_column_text(st, 1), gd_copy_kind_name(sqlite3_column_int(st, 0)));
			CHECK_STR((const char *)sqlite3_column_text(st, 3), gd_memory_kind_name(sqlite3_column_int(st, 2)));
			CHECK_STR((const char *)sqlite3_column_text(st, 5), gd_memory_kind_name(sqlite3_column_int(st, 4)));
			CHECK_STR((const char *)sqlite3_column_text(st, 7), gd_memory_kind_name(sqlite3_column_int(st, 0)));
			CHECK_NEAR(sqlite3_column_double(st, 6), 1e10, 1e-3); /* 1000 B in 100 ns */
			CHECK_INT(sqlite3_column_type(st, 8), SQLITE_NULL);   /* no duration: no bandwidth */
			rows++;
		}
		CHECK_INT(rows, 14);
		sqlite3_finalize(st);
		sqlite3_close(db);
	}
}

int main(void)
{
	test_tables();
	test_kind_names();
	return TEST_DONE();
}
