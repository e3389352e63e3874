/* CPU-tier tests of the cuBLASLt loader (src/gpu/blaslt.c): a missing library is reported as
 * "no vendor library" (GD_ENOGPU) with the reason, bad arguments are refused before anything
 * is loaded, and the failure is remembered. The GEMM itself is checked on the GPU tier
 * (gpudiag roofline, tests/gpu/roofline.sh: sampled C entries against a CPU dot product). */
#include "core/status.h"
#include "core/test.h"
#include "gpu/blaslt.h"

#include <stdlib.h>
#include <string.h>

int main(void)
{
	char why[256] = "";
	struct gd_gemm g;
	memset(&g, 0, sizeof g);
	/* bad arguments: refused without loading anything */
	CHECK_INT(gd_gemm_run(&g, why, sizeof why), GD_EFAIL);
	CHECK(strstr(why, "bad arguments") != NULL);
	CHECK_INT(gd_gemm_run(NULL, why, sizeof why), GD_EFAIL);
	int dummy;
	g.prec = GD_P_BF16;
	g.m = g.n = g.k = 64;
	g.a = g.b = &dummy;
	g.c = &dummy;
	g.k = 0;
	CHECK_INT(gd_gemm_run(&g, NULL, 0), GD_EFAIL); /* NULL why is allowed */

	setenv("GPUDIAG_LIBCUBLASLT", "/nonexistent/libcublasLt.so.13", 1);
	why[0] = 0;
	CHECK_INT(gd_blaslt_open(why, sizeof why), GD_ENOGPU);
	CHECK(strstr(why, "cuBLASLt not available") != NULL);
	CHECK(strstr(why, "/nonexistent/libcublasLt.so.13") != NULL);
	/* the result is remembered, with the same reason */
	why[0] = 0;
	CHECK_INT(gd_blaslt_open(why, sizeof why), GD_ENOGPU);
	CHECK(strstr(why, "cuBLASLt not available") != NULL);
	/* a GEMM without the library says so */
	g.k = 64;
	why[0] = 0;
	CHECK_INT(gd_gemm_run(&g, why, sizeof why), GD_ENOGPU);
	CHECK(strstr(why, "cuBLASLt") != NULL);
	gd_blaslt_close(); /* nothing loaded: harmless */
	return TEST_DONE();
}
