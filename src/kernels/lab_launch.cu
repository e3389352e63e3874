/* Kernels and timing of `gpudiag lab launch`; see lab_launch.h.
 *
 * Timing: device-side spans come from CUDA events on the lab's own stream; the launch round
 * trip and the API cost are host clock (CLOCK_MONOTONIC) because they are host-side costs. */
#include "kernels/lab_launch.h"
#include "kernels/lab_exec_cuda.cuh"

#include <time.h>

static __global__ void empty_kernel(void) {}

/* The guide's small_op: one cheap elementwise step. fmaf keeps it bit-exact with the CPU
 * reference (no contraction differences). */
static __global__ void small_op(float *x, int n, float a, float b)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] = fmaf(x[i], a, b);
}

/* The good pattern: the same n_ops steps in one launch, the value kept in a register. */
static __global__ void fused_op(float *x, int n, int n_ops, float a, float b)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		float v = x[i];
		for (int k = 0; k < n_ops; k++)
			v = fmaf(v, a, b);
		x[i] = v;
	}
}

static double host_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

extern "C" int gd_launch_measure(int dev, const struct gd_launch_cfg *cfg, const float *x0,
				 struct gd_launch_raw *raw, float *out_bad, float *out_fused,
				 float *out_graph, char *err, size_t errn)
{
	int rc = 0;
	const int T = 256;
	int nb = (cfg->n_elems + T - 1) / T;
	size_t bytes = (size_t)cfg->n_elems * sizeof(float);
	float *d_x = NULL, *d_x0 = NULL;
	cudaStream_t s = NULL;
	cudaEvent_t e0 = NULL, e1 = NULL;
	cudaGraph_t g_empty = NULL, g_ops = NULL;
	cudaGraphExec_t x_empty = NULL, x_ops = NULL;
	float ms;

	LX_CHECK(cudaSetDevice(dev));
	LX_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	LX_CHECK(cudaEventCreate(&e0));
	LX_CHECK(cudaEventCreate(&e1));
	LX_CHECK(cudaMalloc(&d_x, bytes));
	LX_CHECK(cudaMalloc(&d_x0, bytes));
	LX_CHECK(cudaMemcpy(d_x0, x0, bytes, cudaMemcpyHostToDevice));

	/* Capture both graphs once; replays reuse the instantiated executables. */
	LX_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
	for (int k = 0; k < cfg->n_launch; k++)
		empty_kernel<<<1, 1, 0, s>>>();
	LX_CHECK(cudaStreamEndCapture(s, &g_empty));
	LX_CHECK(cudaGraphInstantiate(&x_empty, g_empty, 0));
	LX_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
	for (int k = 0; k < cfg->n_ops; k++)
		small_op<<<nb, T, 0, s>>>(d_x, cfg->n_elems, cfg->a, cfg->b);
	LX_CHECK(cudaStreamEndCapture(s, &g_ops));
	LX_CHECK(cudaGraphInstantiate(&x_ops, g_ops, 0));
	LX_CHECK(cudaGraphUpload(x_empty, s));
	LX_CHECK(cudaGraphUpload(x_ops, s));

	/* Warm-up: module loading and first-launch costs are not what the lab measures. */
	empty_kernel<<<1, 1, 0, s>>>();
	LX_LAUNCHED();
	small_op<<<nb, T, 0, s>>>(d_x, cfg->n_elems, cfg->a, cfg->b);
	LX_LAUNCHED();
	fused_op<<<nb, T, 0, s>>>(d_x, cfg->n_elems, 1, cfg->a, cfg->b);
	LX_LAUNCHED();
	LX_CHECK(cudaGraphLaunch(x_empty, s));
	LX_CHECK(cudaStreamSynchronize(s));

	for (int r = 0; r < cfg->reps; r++) {
		double t0, t1, best = 1e30;
		/* Round trip: launch, then wait for it; min of 20 is the latency. */
		for (int k = 0; k < 20; k++) {
			t0 = host_us();
			empty_kernel<<<1, 1, 0, s>>>();
			LX_LAUNCHED();
			LX_CHECK(cudaStreamSynchronize(s));
			t1 = host_us();
			if (t1 - t0 < best)
				best = t1 - t0;
		}
		raw->roundtrip_us[r] = best;

		/* Back to back on one stream: each launch is ordered after the previous one. The
		 * host issue time of the same batch is the API cost. */
		LX_CHECK(cudaEventRecord(e0, s));
		t0 = host_us();
		for (int k = 0; k < cfg->n_launch; k++)
			empty_kernel<<<1, 1, 0, s>>>();
		t1 = host_us();
		LX_LAUNCHED();
		LX_CHECK(cudaEventRecord(e1, s));
		LX_CHECK(cudaEventSynchronize(e1));
		LX_CHECK(cudaEventElapsedTime(&ms, e0, e1));
		raw->api_us[r] = (t1 - t0) / cfg->n_launch;
		raw->b2b_us[r] = ms * 1e3 / cfg->n_launch;

		LX_CHECK(cudaEventRecord(e0, s));
		LX_CHECK(cudaGraphLaunch(x_empty, s));
		LX_CHECK(cudaEventRecord(e1, s));
		LX_CHECK(cudaEventSynchronize(e1));
		LX_CHECK(cudaEventElapsedTime(&ms, e0, e1));
		raw->graph_node_us[r] = ms * 1e3 / cfg->n_launch;

		/* The three patterns, each from the same x0 (the reset is outside the events). */
		LX_CHECK(cudaMemcpyAsync(d_x, d_x0, bytes, cudaMemcpyDeviceToDevice, s));
		LX_CHECK(cudaEventRecord(e0, s));
		for (int k = 0; k < cfg->n_ops; k++)
			small_op<<<nb, T, 0, s>>>(d_x, cfg->n_elems, cfg->a, cfg->b);
		LX_LAUNCHED();
		LX_CHECK(cudaEventRecord(e1, s));
		LX_CHECK(cudaEventSynchronize(e1));
		LX_CHECK(cudaEventElapsedTime(&ms, e0, e1));
		raw->bad_us[r] = ms * 1e3;
		if (r == cfg->reps - 1)
			LX_CHECK(cudaMemcpy(out_bad, d_x, bytes, cudaMemcpyDeviceToHost));

		LX_CHECK(cudaMemcpyAsync(d_x, d_x0, bytes, cudaMemcpyDeviceToDevice, s));
		LX_CHECK(cudaEventRecord(e0, s));
		fused_op<<<nb, T, 0, s>>>(d_x, cfg->n_elems, cfg->n_ops, cfg->a, cfg->b);
		LX_LAUNCHED();
		LX_CHECK(cudaEventRecord(e1, s));
		LX_CHECK(cudaEventSynchronize(e1));
		LX_CHECK(cudaEventElapsedTime(&ms, e0, e1));
		raw->fused_us[r] = ms * 1e3;
		if (r == cfg->reps - 1)
			LX_CHECK(cudaMemcpy(out_fused, d_x, bytes, cudaMemcpyDeviceToHost));

		LX_CHECK(cudaMemcpyAsync(d_x, d_x0, bytes, cudaMemcpyDeviceToDevice, s));
		LX_CHECK(cudaEventRecord(e0, s));
		LX_CHECK(cudaGraphLaunch(x_ops, s));
		LX_CHECK(cudaEventRecord(e1, s));
		LX_CHECK(cudaEventSynchronize(e1));
		LX_CHECK(cudaEventElapsedTime(&ms, e0, e1));
		raw->graph_ops_us[r] = ms * 1e3;
		if (r == cfg->reps - 1)
			LX_CHECK(cudaMemcpy(out_graph, d_x, bytes, cudaMemcpyDeviceToHost));
	}
out:
	if (x_ops)
		cudaGraphExecDestroy(x_ops);
	if (x_empty)
		cudaGraphExecDestroy(x_empty);
	if (g_ops)
		cudaGraphDestroy(g_ops);
	if (g_empty)
		cudaGraphDestroy(g_empty);
	if (e0)
		cudaEventDestroy(e0);
	if (e1)
		cudaEventDestroy(e1);
	if (s)
		cudaStreamDestroy(s);
	cudaFree(d_x);
	cudaFree(d_x0);
	return rc;
}
