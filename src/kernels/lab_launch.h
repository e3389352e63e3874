/* Kernels of `gpudiag lab launch` (guide §2 "Kernel Launch overhead", §9).
 *
 * An empty kernel measures what a launch itself costs; a small elementwise op
 * (x = fmaf(x, a, b) over n floats) repeated n_ops times shows the guide's bad pattern
 * (one launch per op), the good pattern (one fused kernel doing all n_ops in registers)
 * and the same n_ops launches captured once in a CUDA Graph and replayed.
 * All variants are interleaved inside each repetition so clock drift hits them alike. */
#ifndef GPUDIAG_KERNELS_LAB_LAUNCH_H
#define GPUDIAG_KERNELS_LAB_LAUNCH_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

struct gd_launch_cfg {
	int reps;     /* repetitions of every measurement */
	int n_launch; /* empty launches per batch (back-to-back, graph) */
	int n_elems;  /* elements of the small op's vector */
	int n_ops;    /* small ops per pattern (the guide's range(1000)) */
	float a, b;   /* the op: x = fmaf(x, a, b) */
};

/* Per repetition (arrays of cfg.reps), microseconds. */
struct gd_launch_raw {
	double *roundtrip_us;  /* one empty launch + cudaStreamSynchronize, host clock */
	double *api_us;	       /* host time to issue one launch (n_launch issued, divided) */
	double *b2b_us;	       /* n_launch empty kernels back to back on one stream, events / n */
	double *graph_node_us; /* a graph of n_launch empty kernel nodes replayed, events / n */
	double *bad_us;	       /* n_ops small-op launches, events, whole pattern */
	double *fused_us;      /* one fused kernel doing n_ops ops, whole pattern */
	double *graph_ops_us;  /* the n_ops launches as one graph, replayed, whole pattern */
};

/* Runs every measurement on device `dev`. x0[n_elems] is the input; out_bad/out_fused/
 * out_graph[n_elems] receive the vector after the last repetition of each pattern (each
 * pattern restarts from x0). Returns 0, or 1 with a reason in err. */
int gd_launch_measure(int dev, const struct gd_launch_cfg *cfg, const float *x0, struct gd_launch_raw *raw,
		      float *out_bad, float *out_fused, float *out_graph, char *err, size_t errn);

#ifdef __cplusplus
}
#endif
#endif
