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
#include <string.h>
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

/* Loads the base profile changed by `extra`; GD_OK or GD_EDATA, the reason in why. */
static int load_with(const char *f, const char *extra, struct gd_profile *p, char *why, size_t n)
{
	if (build(f, extra) != 0) {
		fprintf(stderr, "build failed: %s\n", extra);
		return -1;
	}
	why[0] = 0;
	return gd_profile_load(f, p, why, n);
}

/* Profiles from other machines, and files made to look like profiles: each is read or
 * refused with a one-line reason, never crashes, hangs or yields impossible numbers. */
static void hostile(const char *f)
{
	struct gd_profile p;
	struct gd_summary s;
	char why[1200], sql[8192];
	size_t k;

	/* A 16-GPU node with 300 contexts (the reader held 8 and 256). */
	k = (size_t)snprintf(sql, sizeof(sql), "DELETE FROM contexts;");
	for (int d = 1; d < 16; d++)
		k += (size_t)snprintf(sql + k, sizeof(sql) - k,
				      "INSERT INTO devices (id, name, cc_major, cc_minor, sm_count) VALUES (%d,'NVIDIA H200',9,0,132);", d);
	k += (size_t)snprintf(sql + k, sizeof(sql) - k,
			      "WITH RECURSIVE c(x) AS (SELECT 2 UNION ALL SELECT x + 1 FROM c WHERE x < 301) "
			      "INSERT INTO contexts SELECT 7, x, x %% 16, 1000 + x FROM c;"
			      "INSERT INTO contexts VALUES (7,1,0,99);"
			      "UPDATE kernels SET device = 15 WHERE stream = 13;");
	CHECK_INT(load_with(f, sql, &p, why, sizeof(why)), GD_OK);
	CHECK_INT(p.ndev, 16);
	CHECK(p.dev[15].occ_ok);
	CHECK_INT(p.k[0].legacy, 1); /* context 1 sorts among 300 others */
	CHECK_INT(p.k[1].device, 15);
	gd_profile_free(&p);
	/* the limit is far beyond machines, and holds */
	CHECK_INT(load_with(f,
			    "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 4096) "
			    "INSERT INTO devices (id, name) SELECT x, 'GPU' FROM c;",
			    &p, why, sizeof(why)),
		  GD_EDATA);
	CHECK(strstr(why, "4097 devices") != NULL);
	CHECK_INT(load_with(f,
			    "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 4095) "
			    "INSERT INTO devices (id, name) SELECT x, 'GPU' FROM c;",
			    &p, why, sizeof(why)),
		  GD_OK);
	CHECK_INT(p.ndev, 4096);
	gd_profile_free(&p);

	/* String ids: a kernel's name beyond int range does not alias string 1; negative and
	 * huge ids are corrupt for a kernel (it needs a name), unnamed for an API call. */
	CHECK_INT(load_with(f, "UPDATE kernels SET name = 4294967297 WHERE name = 1;", &p, why, sizeof(why)), GD_EDATA);
	CHECK(strstr(why, "string id 4294967297") != NULL);
	CHECK_INT(load_with(f, "UPDATE kernels SET name = -5 WHERE name = 1;", &p, why, sizeof(why)), GD_EDATA);
	CHECK(strstr(why, "string id -5") != NULL);
	CHECK_INT(load_with(f, "UPDATE kernels SET name = -5, demangled = 3 WHERE name = 1;", &p, why, sizeof(why)),
		  GD_OK);
	CHECK_STR(p.names[p.k[0].name], "_Z5other");
	gd_profile_free(&p);
	CHECK_INT(load_with(f, "UPDATE api SET name = -7 WHERE start = 90000; UPDATE api SET name = 9223372036854775807 "
			    "WHERE start = 480000;",
			    &p, why, sizeof(why)),
		  GD_OK);
	CHECK_INT(p.a[0].name, -1);
	CHECK_INT(p.a[1].name, -1);
	CHECK_INT(p.a[0].cat, GD_API_OTHER);
	gd_profile_free(&p);
	/* every string id negative (the reader aborted "out of memory"), or absurdly sparse */
	CHECK_INT(load_with(f, "UPDATE strings SET id = -id; UPDATE kernels SET name = -name;", &p, why, sizeof(why)),
		  GD_EDATA);
	CHECK(strstr(why, "is corrupt: a kernel names string id") != NULL);
	CHECK_INT(load_with(f, "INSERT INTO strings VALUES (40000000, 'x');", &p, why, sizeof(why)), GD_EDATA);
	CHECK(strstr(why, "string id 40000000") != NULL);
	CHECK_INT(load_with(f, "DELETE FROM kernels; UPDATE strings SET id = -id;", &p, why, sizeof(why)), GD_OK);
	CHECK_INT(p.nnames >= 1, 1); /* the sync stand-in's name was interned */
	gd_profile_free(&p);

	/* Impossible times: dropped, counted, never averaged in. */
	CHECK_INT(load_with(f,
			    "UPDATE kernels SET end = start - 1 WHERE stream = 13;"
			    "INSERT INTO kernels (pid,device,context,stream,start,end,name) VALUES"
			    "  (7,0,1,13,9200000000000000000,-9200000000000000000,1),(7,0,1,13,-5,10,1),"
			    "  (7,0,1,13,4611686018427387904,4611686018427387905,1),"
			    "  (7,0,1,13,1000+400000000000000000,1000+400000000000000001,1);"
			    "INSERT INTO memcpy (pid,device,context,stream,start,end,bytes,copy_kind) VALUES"
			    "  (7,0,1,99,5000,4000,100,1);"
			    "INSERT INTO api (pid,tid,name,start,end) VALUES (7,1,2,-9223372036854775808,9223372036854775807);"
			    "INSERT INTO nvml_samples (t,device,util_gpu) VALUES (-1,0,50),(9223372036854775807,0,50);"
			    "INSERT INTO memory (pid,device,time,operation,bytes) VALUES (7,0,-3,1,100);",
			    &p, why, sizeof(why)),
		  GD_OK);
	CHECK_INT(p.bad_rows, 10);
	CHECK_INT(p.nk, 1);
	CHECK_INT(p.nc, 1);
	CHECK_INT(p.na, 3);
	CHECK_INT(p.ns, 2);
	CHECK_INT(p.nm, 0);
	CHECK_INT(gd_summary_compute(&p, &s), GD_OK);
	CHECK_NEAR(s.busy_ns, 200000 + 100000, 0);
	CHECK_NEAR(s.wall_ns, 2000000, 0);
	gd_summary_free(&s);
	gd_profile_free(&p);
	/* an allocation record keeps the API call that made it: (pid, correlation), as the api
	 * table's, a correlation past INT_MAX included; an API call keeps its return value */
	CHECK_INT(load_with(f,
			    "INSERT INTO memory (pid,device,correlation,time,operation,bytes) VALUES"
			    "  (7,0,4000000000,5000,1,100);"
			    "DELETE FROM api;"
			    "INSERT INTO api (pid,tid,name,start,end,correlation,return_value) VALUES"
			    "  (7,1,2,4000,4900,4000000000,0),(7,1,2,6000,6100,4000000001,2);",
			    &p, why, sizeof(why)),
		  GD_OK);
	{
		int seen = 0; /* 1: the call that succeeded, 2: the one that failed */
		for (long i = 0; i < p.na; i++)
			if (p.a[i].pid == 7 && p.a[i].corr >= 4000000000u)
				seen |= p.a[i].corr == 4000000000u && p.a[i].ret == 0 ? 1
					: p.a[i].corr == 4000000001u && p.a[i].ret == 2 ? 2
											 : 4;
		CHECK_INT(seen, 3);
	}
	CHECK_INT(p.nm, 1);
	CHECK_INT(p.m[0].pid, 7);
	CHECK(p.m[0].corr == 4000000000u);
	CHECK_INT(p.m[0].op, 1);
	CHECK_NEAR(p.m[0].bytes, 100, 0);
	gd_profile_free(&p);
	/* an impossible capture window is unknown, and anchors nothing */
	CHECK_INT(load_with(f, "UPDATE meta SET value = '9200000000000000000' WHERE key = 'start_ns';", &p, why,
			    sizeof(why)),
		  GD_OK);
	CHECK_INT(p.bad_rows, 0);
	CHECK_INT(p.t_start, 90000); /* derived from the events */
	gd_profile_free(&p);

	/* schema_version: the exact digits only */
	{
		static const char *const bad[] = {"1abc", "1.0", "+1", " 1", "01", "", "1\n"};
		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			snprintf(sql, sizeof(sql), "UPDATE meta SET value = '%s' WHERE key = 'schema_version';", bad[i]);
			CHECK_INT(load_with(f, sql, &p, why, sizeof(why)), GD_EDATA);
			CHECK(strstr(why, "schema version") != NULL);
			CHECK(strchr(why, '\n') == NULL);
		}
		CHECK_INT(load_with(f, "UPDATE meta SET value = 1.0 WHERE key = 'schema_version';", &p, why, sizeof(why)),
			  GD_EDATA);
		CHECK_INT(load_with(f, "UPDATE meta SET value = 1 WHERE key = 'schema_version';", &p, why, sizeof(why)),
			  GD_OK); /* an INTEGER 1 is the same digits */
		gd_profile_free(&p);
	}

	/* Views and odd tables in place of the schema's: refused before any query runs. The
	 * recursive view would never finish. */
	CHECK_INT(load_with(f,
			    "DROP TABLE kernels; CREATE VIEW kernels AS WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL "
			    "SELECT x + 1 FROM r) SELECT x AS id, 7 AS pid, 0 AS device, 1 AS context, 13 AS stream, "
			    "x AS correlation, x AS start, x + 1 AS end, 1 AS name, NULL AS demangled, 1 AS grid_x, 1 AS "
			    "grid_y, 1 AS grid_z, 1 AS block_x, 1 AS block_y, 1 AS block_z, 0 AS regs, 0 AS static_smem, "
			    "0 AS dyn_smem, NULL AS graph_id FROM r;",
			    &p, why, sizeof(why)),
		  GD_EDATA);
	CHECK(strstr(why, "not a gpudiag profile (kernels is not a table)") != NULL);
	CHECK_INT(load_with(f, "DROP TABLE api; CREATE VIEW API AS SELECT * FROM kernels;", &p, why, sizeof(why)), GD_EDATA);
	CHECK(strstr(why, "(api is not a table)") != NULL);
	CHECK_INT(load_with(f, "DROP VIEW memcpy_v; ALTER TABLE memcpy DROP COLUMN bytes;", &p, why, sizeof(why)), GD_EDATA);
	CHECK(strstr(why, "(memcpy has no column bytes)") != NULL);
	CHECK_INT(load_with(f,
			    "DROP TABLE strings; CREATE TABLE strings (id INTEGER PRIMARY KEY, v TEXT, value TEXT "
			    "GENERATED ALWAYS AS (v || v) VIRTUAL); INSERT INTO strings (id, v) VALUES (1, 'k');",
			    &p, why, sizeof(why)),
		  GD_EDATA);
	CHECK(strstr(why, "(strings has no column value)") != NULL);
	CHECK_INT(load_with(f, "DROP TABLE meta; CREATE VIEW meta AS SELECT 'schema_version' AS key, '1' AS value;", &p,
			    why, sizeof(why)),
		  GD_EDATA);
	CHECK(strstr(why, "(meta is not a table)") != NULL);

	/* GPU metrics: impossible times left out and counted; absurd values unknown; per-kernel
	 * rows naming no string, or of no sample, left out and counted. */
	CHECK_INT(load_with(f,
			    /* the same table without NOT NULL, as another tool might write it */
			    "CREATE TABLE g2 AS SELECT * FROM gpu_metrics; DROP TABLE gpu_metrics;"
			    "ALTER TABLE g2 RENAME TO gpu_metrics;"
			    "INSERT INTO gpu_metrics (device,t_start,t_end,dram_pct,sm_issue_pct,gpc_mhz,pcie_read_bps,"
			    "  l2_pct,tensor_active_pct) VALUES"
			    "  (0,2000,1000,50,50,1980,1,1,1),(0,-5,100,50,50,1980,1,1,1),"
			    "  (0,4611686018427387904,4611686018427387905,50,50,1980,1,1,1),"
			    "  (0,1000+400000000000000000,1000+400000000000000001,50,50,1980,1,1,1),"
			    "  (0,NULL,1000,50,50,1980,1,1,1),"
			    "  (0,200000,300000,99.5,1000,1980,3e9,12,0),"
			    "  (0,100000,200000,1e999,-5,-1,-2,'abc',1000.5);"
			    "INSERT INTO kernel_metrics (device,name,samples,dram_pct,sm_issue_pct) VALUES"
			    "  (0,99,5,50,1),(0,-1,5,50,1),(0,3,0,50,1),(0,1,4,2000,1),(0,2,3,-1e999,7);"
			    "INSERT INTO meta VALUES ('counters','ok'),('counters_interval_ns','1e5'),"
			    "  ('counters_lost_samples','-3');",
			    &p, why, sizeof(why)),
		  GD_OK);
	CHECK_INT(p.bad_rows, 5 + 3);
	CHECK_INT(p.npm, 2);
	if (p.npm == 2) {
		CHECK_INT(p.pm[0].t_start, 100000); /* in time order */
		for (int m = 0; m < GD_PM_COUNT; m++)
			CHECK(isnan(p.pm[0].v[m])); /* inf, negative, negative MHz and B/s, text, > 1000 % */
		CHECK_NEAR(p.pm[1].v[GD_PM_DRAM], 99.5, 0);
		CHECK_NEAR(p.pm[1].v[GD_PM_SM_ISSUE], 1000, 0);
		CHECK_NEAR(p.pm[1].v[GD_PM_GPC_MHZ], 1980, 0);
		CHECK_NEAR(p.pm[1].v[GD_PM_PCIE_READ], 3e9, 0);
		CHECK_NEAR(p.pm[1].v[GD_PM_L2], 12, 0);
		CHECK_NEAR(p.pm[1].v[GD_PM_TENSOR], 0, 0); /* measured 0 stays 0 */
		CHECK(isnan(p.pm[1].v[GD_PM_DRAM_READ]));  /* not collected */
	}
	CHECK_INT(p.nkpm, 2);
	if (p.nkpm == 2) {
		CHECK_INT(p.kpm[0].name, 1);
		CHECK_INT(p.kpm[0].samples, 4);
		CHECK(isnan(p.kpm[0].v[GD_PM_DRAM]));
		CHECK_NEAR(p.kpm[0].v[GD_PM_SM_ISSUE], 1, 0);
		CHECK_INT(p.kpm[1].name, 2);
		CHECK(isnan(p.kpm[1].v[GD_PM_DRAM]));
		CHECK_NEAR(p.kpm[1].v[GD_PM_SM_ISSUE], 7, 0);
	}
	CHECK_STR(p.counters, "ok");
	CHECK_INT(p.pm_interval_ns, 0); /* not a count: unknown */
	CHECK_INT(p.pm_lost, -1);
	gd_profile_free(&p);
	/* without the tables (a profile from before them): no samples, nothing else changes */
	CHECK_INT(load_with(f, "DROP TABLE gpu_metrics; DROP TABLE kernel_metrics;", &p, why, sizeof(why)), GD_OK);
	CHECK_INT(p.npm, 0);
	CHECK_INT(p.nkpm, 0);
	CHECK_INT(p.nk, 2);
	CHECK_STR(p.counters, "");
	CHECK_INT(p.pm_lost, -1);
	gd_profile_free(&p);
	/* and in other shapes: refused like the other tables */
	CHECK_INT(load_with(f,
			    "DROP TABLE gpu_metrics; CREATE VIEW gpu_metrics AS WITH RECURSIVE r(x) AS (SELECT 1 UNION "
			    "ALL SELECT x + 1 FROM r) SELECT 0 AS device, x AS t_start, x + 1 AS t_end FROM r;",
			    &p, why, sizeof(why)),
		  GD_EDATA);
	CHECK(strstr(why, "not a gpudiag profile (gpu_metrics is not a table)") != NULL);
	CHECK(strchr(why, '\n') == NULL);
	CHECK_INT(load_with(f, "DROP TABLE kernel_metrics; CREATE TABLE kernel_metrics (device INTEGER, name INTEGER);",
			    &p, why, sizeof(why)),
		  GD_EDATA);
	CHECK(strstr(why, "(kernel_metrics has no column samples)") != NULL);
	CHECK_INT(load_with(f, "ALTER TABLE gpu_metrics DROP COLUMN pcie_write_bps;", &p, why, sizeof(why)), GD_EDATA);
	CHECK(strstr(why, "(gpu_metrics has no column pcie_write_bps)") != NULL);
	CHECK_INT(load_with(f, "INSERT INTO meta VALUES ('counters_interval_ns','100000'),('counters_lost_samples','12');",
			    &p, why, sizeof(why)),
		  GD_OK);
	CHECK_INT(p.pm_interval_ns, 100000);
	CHECK_INT(p.pm_lost, 12);
	gd_profile_free(&p);

	/* The time limit stops a read that runs too long, with a reason. */
	gd_profile_set_time_limit(1e-9);
	CHECK_INT(load_with(f,
			    "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 5000) "
			    "INSERT INTO kernels (pid,device,context,stream,start,end,name) SELECT 7,0,1,13,1000+x,1001+x,1 FROM c;",
			    &p, why, sizeof(why)),
		  GD_EDATA);
	CHECK(strstr(why, "took longer than") != NULL);
	gd_profile_set_time_limit(0);
	CHECK_INT(load_with(f, NULL, &p, why, sizeof(why)), GD_OK);
	gd_profile_free(&p);
}

/* Per-launch counters (issue 19) in a profile from elsewhere: values that are no measurement
 * read as unknown, rows naming nothing are counted and left out, a ceilings row without a
 * time or for no device is no ceiling, and a profile without the tables reads as before. */
#define KL_BASE                                                                                  \
	"INSERT INTO strings VALUES (10,'dram__bytes_read.sum'),(11,'sm__warps_active.avg.pct_of_peak_sustained_active')," \
	"(12,'smsp__thread_inst_executed_per_inst_executed.ratio'),(13,'my__own_metric.sum');"     \
	"INSERT INTO metric_launches VALUES (7,1,0,1,0,11,'ok',NULL,85000000,'user',1),"           \
	"  (7,2,0,3,0,0,'cooperative','cooperative launch',NULL,NULL,NULL);"                        \
	"INSERT INTO metric_values VALUES (7,1,10,1e9),(7,1,11,74.5),(7,1,12,13.05),(7,1,13,-2.5);"

/* The windows of batched replays (overhead rows of gpudiag's own kind): only that kind, only
 * rows with a time span inside the profile, in time order; the other kinds are CUPTI's. */
static void replay_windows(const char *f)
{
	struct gd_profile p;
	char why[512];
	CHECK_INT(load_with(f,
			    "INSERT INTO overhead (pid,kind,object_kind,object_id,start,end,correlation) VALUES"
			    "  (7,2130706433,2,1,700000,800000,9),(7,2130706433,2,1,200000,250000,5),"
			    "  (7,65536,2,1,300000,310000,0),"          /* CUPTI's buffer flush: not a window */
			    "  (7,2130706433,2,1,400000,400000,6),"     /* empty */
			    "  (7,2130706433,2,1,NULL,450000,7);",       /* no start */
			    &p, why, sizeof(why)),
		  GD_OK);
	CHECK_INT(p.nrw, 2);
	if (p.nrw == 2) {
		CHECK_INT(p.rw[0].start, 200000);
		CHECK_INT(p.rw[0].end, 250000);
		CHECK_INT(p.rw[1].start, 700000);
	}
	gd_profile_free(&p);
	CHECK_INT(load_with(f, NULL, &p, why, sizeof(why)), GD_OK); /* none */
	CHECK_INT(p.nrw, 0);
	gd_profile_free(&p);
}

static void klaunch_hostile(const char *f)
{
	struct gd_profile p;
	char why[512];
	/* the plain case */
	CHECK_INT(load_with(f, KL_BASE, &p, why, sizeof(why)), GD_OK);
	CHECK_INT(p.nkl, 2);
	CHECK_INT(p.bad_rows, 0);
	if (p.nkl == 2) {
		CHECK_INT(p.kl[0].corr, 1);
		CHECK_INT(p.kl[0].kernel >= 0 && p.k[p.kl[0].kernel].corr == 1, 1);
		CHECK_INT(p.kl[1].kernel >= 0 && p.k[p.kl[1].kernel].corr == 2, 1);
		CHECK_NEAR(p.kl[0].q[GD_KC_DRAM_READ], 1e9, 0);
		CHECK_NEAR(p.kl[0].q[GD_KC_WARPS_ACTIVE], 74.5, 0);
		CHECK_NEAR(p.kl[0].q[GD_KC_THREADS_PER_INST], 13.05, 1e-12);
		CHECK_INT(p.kl[0].nextra, 1);
		CHECK_NEAR(p.kx[p.kl[0].extra].value, -2.5, 0); /* an extra is kept as given */
		CHECK_INT(p.kl[1].status, GD_KL_SKIP_COOPERATIVE);
		CHECK_STR(p.names[p.kl[1].detail], "cooperative launch");
		CHECK_INT(p.kl[0].replay, (int)(GD_KL_F_USER | GD_KL_F_FLUSH));
		CHECK_INT(p.kl[1].replay, -1); /* not replayed */
	}
	CHECK(isnan(p.dev[0].ceil.dram_bps));
	CHECK_NEAR(p.dev[0].ceil.measured_at, 0, 0);
	gd_profile_free(&p);

	/* how it was replayed: kernel replay; a mode this gpudiag does not know is a bad row (the
	 * launch stays, its replay unknown); a profile from before the two columns loads, every
	 * launch's replay unknown */
	CHECK_INT(load_with(f, KL_BASE "UPDATE metric_launches SET replay = 'kernel', l2_flushed = 0 WHERE correlation = 1;",
			    &p, why, sizeof(why)),
		  GD_OK);
	CHECK(p.nkl == 2 && p.kl[0].replay == 0 && p.bad_rows == 0);
	gd_profile_free(&p);
	CHECK_INT(load_with(f, KL_BASE "UPDATE metric_launches SET replay = 'teleported' WHERE correlation = 1;", &p,
			    why, sizeof(why)),
		  GD_OK);
	CHECK(p.nkl == 2 && p.kl[0].replay == -1 && p.bad_rows == 1);
	gd_profile_free(&p);
	CHECK_INT(load_with(f,
			    "DROP TABLE metric_launches; CREATE TABLE metric_launches (pid INTEGER NOT NULL, correlation "
			    "INTEGER NOT NULL, device INTEGER, name INTEGER, nth INTEGER, passes INTEGER, status TEXT NOT "
			    "NULL, detail TEXT, profile_ns INTEGER);"
			    "INSERT INTO strings VALUES (10,'dram__bytes_read.sum');"
			    "INSERT INTO metric_launches VALUES (7,1,0,1,0,11,'ok',NULL,85000000),"
			    "  (7,2,0,3,0,0,'cooperative','cooperative launch',NULL);"
			    "INSERT INTO metric_values VALUES (7,1,10,1e9);",
			    &p, why, sizeof(why)),
		  GD_OK);
	CHECK(p.nkl == 2 && p.kl[0].replay == -1 && p.kl[0].q[GD_KC_DRAM_READ] == 1e9 && p.bad_rows == 0);
	gd_profile_free(&p);

	/* values that are no measurement: text, a blob, negative, infinite, absurd */
	CHECK_INT(load_with(f,
			    KL_BASE "UPDATE metric_values SET value = 'abc' WHERE metric = 10;"
				    "UPDATE metric_values SET value = -1 WHERE metric = 11;"
				    "UPDATE metric_values SET value = 1e999 WHERE metric = 12;",
			    &p, why, sizeof(why)),
		  GD_OK);
	CHECK(p.nkl == 2 && isnan(p.kl[0].q[GD_KC_DRAM_READ]) && isnan(p.kl[0].q[GD_KC_WARPS_ACTIVE]) &&
	      isnan(p.kl[0].q[GD_KC_THREADS_PER_INST]));
	CHECK_INT(p.bad_rows, 0); /* the rows are kept, their values unknown */
	gd_profile_free(&p);
	CHECK_INT(load_with(f, KL_BASE "UPDATE metric_values SET value = 2000 WHERE metric = 11;"
				       "UPDATE metric_values SET value = 40 WHERE metric = 12;",
			    &p, why, sizeof(why)),
		  GD_OK);
	CHECK(p.nkl == 2 && isnan(p.kl[0].q[GD_KC_WARPS_ACTIVE]) && p.kl[0].q[GD_KC_THREADS_PER_INST] == 40);
	gd_profile_free(&p);

	/* ids naming no string, a status nobody wrote, a value of no launch: counted, left out */
	CHECK_INT(load_with(f,
			    KL_BASE "UPDATE metric_launches SET name = 99 WHERE correlation = 2;"
				    "INSERT INTO metric_launches VALUES (7,3,0,1,0,1,'teleported',NULL,NULL,NULL,NULL);"
				    "INSERT INTO metric_launches VALUES (7,4,0,1,0,1,'',NULL,NULL,NULL,NULL);"
				    "INSERT INTO metric_values VALUES (7,1,4242,5),(7,1,-3,5),(7,77,10,5),(8,1,10,5);",
			    &p, why, sizeof(why)),
		  GD_OK);
	CHECK_INT(p.nkl, 1);
	CHECK_INT(p.bad_rows, 3 + 4);
	CHECK(p.nkl == 1 && p.kl[0].nextra == 1 && p.kl[0].q[GD_KC_DRAM_READ] == 1e9);
	gd_profile_free(&p);

	/* impossible launch fields read as unknown, the row kept */
	CHECK_INT(load_with(f,
			    KL_BASE "UPDATE metric_launches SET passes = -4, nth = -1, profile_ns = -5 WHERE correlation = 1;",
			    &p, why, sizeof(why)),
		  GD_OK);
	CHECK(p.nkl == 2 && p.kl[0].passes == 0 && p.kl[0].nth == -1 && p.kl[0].profile_ns == -1);
	gd_profile_free(&p);

	/* ceilings: absurd figures unknown; a row with no time or for no device is none */
	CHECK_INT(load_with(f,
			    "INSERT INTO ceilings (device, dram_bps, l2_bps, cuda_fp32_flops, tensor_bf16_flops, measured_at,"
			    "  sm_clock_mhz) VALUES (0, 4.15e12, -1, 'x', 1e30, 1764720000, 999999),"
			    "  (5, 1e12, 1e12, 1e12, 1e12, 1764720000, 1980);",
			    &p, why, sizeof(why)),
		  GD_OK);
	CHECK_NEAR(p.dev[0].ceil.dram_bps, 4.15e12, 0);
	CHECK(isnan(p.dev[0].ceil.l2_bps) && isnan(p.dev[0].ceil.cuda_core[GD_P_FP32]) &&
	      isnan(p.dev[0].ceil.tensor[GD_P_BF16]));
	CHECK_INT(p.dev[0].ceil.sm_clock_mhz, -1);
	CHECK_NEAR(p.dev[0].ceil.measured_at, 1764720000, 0);
	CHECK_INT(p.bad_rows, 1); /* the row for device 5 */
	gd_profile_free(&p);
	CHECK_INT(load_with(f, "INSERT INTO ceilings (device, dram_bps, measured_at) VALUES (0, 4.15e12, NULL);", &p,
			    why, sizeof(why)),
		  GD_OK);
	CHECK(isnan(p.dev[0].ceil.dram_bps) && p.dev[0].ceil.measured_at == 0);
	gd_profile_free(&p);

	/* a view under a table's name, or a table of another shape, refuses the profile */
	CHECK_INT(load_with(f, "DROP TABLE metric_values; CREATE VIEW metric_values AS SELECT 1 AS pid;", &p, why,
			    sizeof(why)),
		  GD_EDATA);
	CHECK(strstr(why, "metric_values is not a table") != NULL);
	CHECK_INT(load_with(f, "DROP TABLE ceilings; CREATE TABLE ceilings (device INTEGER);", &p, why, sizeof(why)),
		  GD_EDATA);
	CHECK(strstr(why, "ceilings has no column dram_bps") != NULL);

	/* a profile from before issue 19: no tables, no launches, no ceilings, no meta */
	CHECK_INT(load_with(f, "DROP TABLE metric_launches; DROP TABLE metric_values; DROP TABLE ceilings;", &p, why,
			    sizeof(why)),
		  GD_OK);
	CHECK_INT(p.nkl, 0);
	CHECK_INT(p.nkx, 0);
	CHECK_INT(p.nk, 2);
	CHECK(isnan(p.dev[0].ceil.dram_bps) && p.dev[0].ceil.measured_at == 0);
	CHECK_STR(p.metrics, "");
	gd_profile_free(&p);
	/* the meta keys */
	CHECK_INT(load_with(f,
			    "INSERT INTO meta VALUES ('metrics','basic'),('metrics_rejected','a__x.sum b__y.sum'),"
			    "('metrics_note','no metrics: profiling is restricted to admin users');",
			    &p, why, sizeof(why)),
		  GD_OK);
	CHECK_STR(p.metrics, "basic");
	CHECK_STR(p.metrics_rejected, "a__x.sum b__y.sum");
	CHECK_STR(p.metrics_note, "no metrics: profiling is restricted to admin users");
	gd_profile_free(&p);
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
	hostile(f);
	klaunch_hostile(f);
	replay_windows(f);
	unlink(f);
	return TEST_DONE();
}
