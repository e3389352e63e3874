/* The embedded demo workload that `gpudiag run` with no command profiles (issue 9): the
 * guide's classic mistakes, then the same work written well. C-compatible. */
#ifndef GPUDIAG_KERNELS_DEMO_H
#define GPUDIAG_KERNELS_DEMO_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

struct gd_demo_times {
	double bad_ms, good_ms;   /* host wall time of each half */
	int checked;              /* 1: both halves produced the expected result */
};

/* Runs both halves on `device`. Returns 0, or -1 with the CUDA error in why. */
int gd_demo_run(int device, int iters, struct gd_demo_times *t, char *why, size_t n);

#ifdef __cplusplus
}
#endif

#endif
