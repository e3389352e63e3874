/* CPU-tier tests of the measured-ceilings cache (src/roofline/ceilings.c): save/load round
 * trip in a temporary XDG_CACHE_HOME, driver mismatch, unknown values, corrupt files. */
#include "core/test.h"
#include "roofline/ceilings.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(void)
{
	char tmpl[] = "/tmp/gpudiag-ceil-XXXXXX";
	char *dir = mkdtemp(tmpl);
	CHECK(dir != NULL);
	if (!dir)
		return TEST_DONE();
	setenv("XDG_CACHE_HOME", dir, 1);

	struct gd_ceilings c, back;
	gd_ceilings_clear(&c);
	CHECK(isnan(c.dram_read) && isnan(c.tensor[GD_P_BF16]) && isnan(c.gemm_lib[GD_P_FP8]) && isnan(c.sfu));
	CHECK_INT(c.sm_clock_mhz, -1);

	/* nothing cached yet */
	CHECK_INT(gd_ceilings_load("GPU-00000000-1111-2222-3333-444444444444", "580.1", &back), -1);
	char paths[4][4096];
	CHECK_INT(gd_ceilings_list(paths, 4), 0);
	{ /* reading made no folder (a report or --show must leave nothing behind) */
		char sub[4200];
		snprintf(sub, sizeof sub, "%s/gpudiag", dir);
		CHECK(access(sub, F_OK) != 0);
	}

	snprintf(c.uuid, sizeof c.uuid, "GPU-00000000-1111-2222-3333-444444444444");
	snprintf(c.gpu_name, sizeof c.gpu_name, "NVIDIA H200");
	snprintf(c.driver, sizeof c.driver, "580.159.04");
	c.measured_at = 1764680000;
	c.sm_clock_mhz = 1980;
	c.dram_read = 3.9e12;
	c.dram_write = 4.6e12;
	c.dram_copy = 4.3e12;
	c.l2 = 11.5e12;
	c.smem = 33.1e12;
	c.l1 = 32.0e12;
	c.sfu = 4.1e12;
	c.cuda_core[GD_P_FP32] = 65.123456789012345e12;
	c.tensor[GD_P_BF16] = 870e12;
	c.tensor[GD_P_FP8] = 1600e12;
	c.gemm_lib[GD_P_BF16] = 760e12;
	/* tensor[GD_P_FP64] stays NaN: unknown must survive as unknown */
	CHECK_STR(c.failed, "");
	snprintf(c.failed, sizeof c.failed, "wgmma_fp8 mma_int8"); /* a run with failed checks is cached too */
	CHECK_INT(gd_ceilings_save(&c), 0);

	char path[4096];
	CHECK_INT(gd_ceilings_path(c.uuid, path, sizeof path), 0);
	CHECK(strstr(path, dir) == path);
	CHECK(strstr(path, "/gpudiag/roofline-GPU-00000000-1111-2222-3333-444444444444.txt") != NULL);
	CHECK(access(path, R_OK) == 0);

	CHECK_INT(gd_ceilings_load(c.uuid, "580.159.04", &back), 0);
	CHECK_STR(back.gpu_name, "NVIDIA H200");
	CHECK_STR(back.driver, "580.159.04");
	CHECK_INT(back.sm_clock_mhz, 1980);
	CHECK_NEAR(back.measured_at, 1764680000, 0);
	CHECK_NEAR(back.dram_read, 3.9e12, 0);
	CHECK_NEAR(back.dram_copy, 4.3e12, 0);
	CHECK_NEAR(back.l2, 11.5e12, 0);
	CHECK_NEAR(back.sfu, 4.1e12, 0);
	CHECK_NEAR(back.cuda_core[GD_P_FP32], 65.123456789012345e12, 0); /* %.17g: exact */
	CHECK_NEAR(back.tensor[GD_P_FP8], 1600e12, 0);
	CHECK_NEAR(back.gemm_lib[GD_P_BF16], 760e12, 0);
	CHECK(isnan(back.tensor[GD_P_FP64]));
	CHECK(isnan(back.gemm_lib[GD_P_INT8]));
	CHECK_STR(back.failed, "wgmma_fp8 mma_int8");

	/* NULL or empty driver: any driver matches */
	CHECK_INT(gd_ceilings_load(c.uuid, NULL, &back), 0);
	/* another driver: the cache does not apply */
	CHECK_INT(gd_ceilings_load(c.uuid, "590.0", &back), -1);
	CHECK(isnan(back.dram_read));
	/* another GPU */
	CHECK_INT(gd_ceilings_load("GPU-ffffffff-1111-2222-3333-444444444444", "580.159.04", &back), -1);

	CHECK_INT(gd_ceilings_list(paths, 4), 1);
	CHECK_STR(paths[0], path);

	/* a file from an older version with fewer keys still loads; missing keys are NaN */
	struct gd_ceilings p;
	CHECK_INT(gd_ceilings_parse("format 1\nuuid GPU-x\ndram_copy 4e12\nfuture_key 12\n", &p), 0);
	CHECK_NEAR(p.dram_copy, 4e12, 0);
	CHECK(isnan(p.dram_read));
	CHECK_STR(p.failed, ""); /* no "failed" line: nothing failed */
	/* corrupt or foreign files are refused */
	CHECK_INT(gd_ceilings_parse("hello world\n", &p), -1);
	CHECK_INT(gd_ceilings_parse("format 2\nuuid GPU-x\n", &p), -1);
	CHECK_INT(gd_ceilings_parse("", &p), -1);

	/* a UUID with path characters cannot escape the cache directory */
	CHECK_INT(gd_ceilings_path("../../etc/x", path, sizeof path), 0);
	CHECK(strstr(path, "roofline-______etc_x.txt") != NULL);

	/* clean up */
	CHECK_INT(gd_ceilings_path(c.uuid, path, sizeof path), 0);
	unlink(path);
	char sub[4200];
	snprintf(sub, sizeof sub, "%s/gpudiag", dir);
	rmdir(sub);
	rmdir(dir);
	return TEST_DONE();
}
