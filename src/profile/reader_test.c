/* The profile reader on small databases built with the real schema (gd_profile_schema_sql):
 * legacy-stream detection through contexts.null_stream, string ids, the sync-record fallback
 * when sync API calls were not traced, NVML unknowns, untraced processes, and refusals. */
#include "core/status.h"
#include "core/test.h"
#include "profile/schema.h"
#include "profile/profile.h"
#include "analysis/summary.h"

#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <unistd.h>

static int build(const char *path, const char *extra)
{
	sqlite3 *db;
	unlink(path);
	if (sqlite3_open(path, &db) != SQLITE_OK)
		return -1;
	int rc = sqlite3_exec(db, gd_profile_schema_sql, NULL, NULL, NULL);
	rc |= sqlite3_exec(db,
			   "INSERT INTO meta VALUES ('schema_version','1'),('start_ns','1000'),('end_ns','2001000'),"
			   "('traced','1'),('api_trace','subset');"
			   "INSERT INTO strings VALUES (1,'_Z6kernelPf'),(2,'cudaLaunchKernel_v7000'),(3,'_Z5other');"
			   "INSERT INTO devices (id, name, cc_major, cc_minor, sm_count, global_mem_bytes) "
			   "  VALUES (0,'NVIDIA H200',9,0,132,150754820096);"
			   "INSERT INTO processes (pid, traced, status) VALUES (7,1,'ok');"
			   "INSERT INTO contexts VALUES (7,1,0,99);"
			   /* out of start order on purpose: the reader sorts */
			   "INSERT INTO kernels (pid,device,context,stream,correlation,start,end,name,grid_x,grid_y,grid_z,"
			   "  block_x,block_y,block_z,regs,static_smem,dyn_smem) VALUES"
			   "  (7,0,1,13,2,500000,900000,3,264,1,1,256,1,1,32,0,0),"
			   "  (7,0,1,99,1,100000,300000,1,132,1,1,128,1,1,64,0,0);"
			   "INSERT INTO memcpy (pid,device,context,stream,correlation,start,end,bytes,copy_kind,src_kind,"
			   "  dst_kind) VALUES (7,0,1,99,3,1000000,1100000,1000000,1,1,3);"
			   "INSERT INTO api (pid,tid,domain,cbid,name,start,end,correlation) VALUES"
			   "  (7,1,1,211,2,90000,95000,1),(7,1,1,211,2,480000,485000,2);"
			   "INSERT INTO sync (pid,context,stream,type,start,end) VALUES (7,1,NULL,4,900000,950000);"
			   "INSERT INTO nvml_samples (t,device,util_gpu,mem_used,mem_total,sm_mhz,clock_reasons) VALUES"
			   "  (1000,0,50,1e9,150754820096,1980,NULL),(51000,0,NULL,2e9,150754820096,NULL,4);",
			   NULL, NULL, NULL);
	if (extra)
		rc |= sqlite3_exec(db, extra, NULL, NULL, NULL);
	sqlite3_close(db);
	return rc;
}

int main(void)
{
	struct gd_profile p;
	struct gd_summary s;
	char why[1200];
	char f[64];
	snprintf(f, sizeof(f), "/tmp/gpudiag-reader-test-%d.sqlite", (int)getpid());
	gd_set_quiet(1);

	CHECK_INT(build(f, NULL), 0);
	CHECK_INT(gd_profile_load(f, &p, why, sizeof(why)), GD_OK);
	CHECK_INT(p.nk, 2);
	CHECK_INT(p.k[0].start, 100000); /* sorted */
	CHECK_INT(p.k[0].legacy, 1);     /* stream 99 = contexts.null_stream */
	CHECK_INT(p.k[1].legacy, 0);
	CHECK_STR(p.names[p.k[0].name], "_Z6kernelPf");
	CHECK_INT(p.nc, 1);
	CHECK_INT(p.c[0].src_kind, GD_MK_PAGEABLE);
	CHECK_INT(p.c[0].legacy, 1);
	/* two launch calls from the api table, plus the context sync from the sync table */
	CHECK_INT(p.na, 3);
	CHECK_INT(p.a[0].cat, GD_API_LAUNCH);
	CHECK_INT(p.a[2].cat, GD_API_SYNC);
	CHECK_INT(p.ns, 2);
	CHECK(p.s[0].reasons == ~0ULL); /* NULL → unknown */
	CHECK_INT(p.s[1].util_gpu, -1);
	CHECK_INT(p.t_start, 1000);
	CHECK_INT(p.t_end, 2001000);
	CHECK(p.dev[0].occ_ok);
	CHECK_INT(gd_summary_compute(&p, &s), GD_OK);
	CHECK_NEAR(s.busy_ns, 200000 + 400000 + 100000, 0);
	CHECK_NEAR(s.span_ns, 1000000, 0);
	CHECK_NEAR(s.wall_ns, 2000000, 0);
	CHECK_STR(s.ks[0].short_name, "other"); /* 400 µs > 200 µs */
	CHECK_INT(s.cp[GD_CPY_HTOD].pageable_count, 1);
	CHECK_NEAR(s.mem_used.max, 2e9, 0);
	CHECK_INT(s.throttled_samples, 1); /* software power cap */
	gd_summary_free(&s);
	gd_profile_free(&p);

	/* every process untraced: the reader says so */
	CHECK_INT(build(f, "UPDATE processes SET traced = 0, status = 'cupti_busy';"), 0);
	CHECK_INT(gd_profile_load(f, &p, why, sizeof(why)), GD_OK);
	CHECK_INT(p.cupti_ok, 0);
	CHECK_STR(p.untraced_status, "cupti_busy");
	gd_profile_free(&p);

	/* refusals: another version, a kernel naming a missing string */
	CHECK_INT(build(f, "UPDATE meta SET value = '2' WHERE key = 'schema_version';"), 0);
	CHECK_INT(gd_profile_load(f, &p, why, sizeof(why)), GD_EDATA);
	CHECK(strstr(why, "schema version 2") != NULL);
	CHECK_INT(build(f, "UPDATE kernels SET name = 42 WHERE name = 1;"), 0);
	CHECK_INT(gd_profile_load(f, &p, why, sizeof(why)), GD_EDATA);
	CHECK(strstr(why, "string id 42") != NULL);
	unlink(f);
	return TEST_DONE();
}
