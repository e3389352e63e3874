/* Kernels of `gpudiag lab streams` (guide §11).
 *
 * Part 1, the default-stream trap: kernel A on stream 1, then a small "norm" kernel on A's
 * output, then kernel B on stream 2. A and B use fewer than half the SMs each, so they can
 * run side by side. Patterns:
 *   serial: A, norm, B on one stream (the reference for no concurrency);
 *   good:   streams created non-blocking, norm on stream 1 after A;
 *   bad:    streams created with default flags (they synchronise with the legacy default
 *           stream) and norm on the legacy default stream, as `out_default = norm(out_a)`
 *           does in the guide: B must wait for norm, which waits for A.
 * Part 2, copy/compute overlap: `chunks` host-to-device copies of a host buffer, each
 * followed by a compute kernel on that chunk; serial (one stream) against pipelined (copies
 * on one stream, kernels on another waiting on a per-chunk event), with the host buffer
 * pinned (cudaMallocHost) and pageable (malloc).
 * Spans covering two streams start at an event on stream 1 that stream 2 waits for and end
 * at the later of the two streams' final events. */
#ifndef GPUDIAG_KERNELS_LAB_STREAMS_H
#define GPUDIAG_KERNELS_LAB_STREAMS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GD_STREAMS_MUL 0.9999f /* every chain here: c = fmaf(c, MUL, ADD) */
#define GD_STREAMS_ADD 0.0001f

struct gd_streams_cfg {
	int reps;
	int blocks, block; /* grid of A and of B (blocks < SMs / 2) */
	double target_us;  /* A's duration the calibration aims for */
	int norm_div;	   /* norm runs iters / norm_div */
	size_t copy_bytes; /* the host buffer of part 2 */
	int chunks;
};

/* Per repetition (arrays of reps), microseconds; plus what calibration chose. */
struct gd_streams_raw {
	int iters, norm_iters;		      /* FMA chain length of A/B and of norm */
	int chunk_iters;		      /* chain length per element of the chunk kernel */
	double *a_us, *norm_us, *b_us;	      /* alone */
	double *serial_us, *good_us, *bad_us; /* part 1 patterns */
	double *copy_pinned_us, *copy_pageable_us, *kern_us; /* part 2 alone: all chunks */
	double *serial_pinned_us, *ovl_pinned_us, *serial_pageable_us, *ovl_pageable_us;
};

/* Runs everything on device `dev`. Outputs from the last repetition: y_a[blocks*block] is
 * A's output (each thread's chain from its seed), y_pinned[n] and y_pageable[n]
 * (n = copy_bytes / 4) the chunk kernel's output of the pipelined runs, poisoned before.
 * host_x[n] supplies part 2's input. Returns 0 or 1 with err. */
int gd_streams_measure(int dev, const struct gd_streams_cfg *cfg, const float *host_x,
		       struct gd_streams_raw *raw, float *y_a, float *y_pinned, float *y_pageable, char *err,
		       size_t errn);

#ifdef __cplusplus
}
#endif
#endif
