/* Kernels and timing of `gpudiag lab streams`; see lab_streams.h. */
#include "kernels/lab_streams.h"
#include "kernels/lab_exec_cuda.cuh"

#include <stdlib.h>
#include <string.h>

/* One dependent FMA chain per thread: latency-bound, so a block's duration barely depends
 * on what else shares its SM, and the kernel's length is set by iters. The seed is the
 * thread's index so the output checks every thread ran. */
static __global__ void work(float *y, int iters)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	float c = (float)(i & 1023) * (1.0f / 1024.0f);
	for (int k = 0; k < iters; k++)
		c = fmaf(c, GD_STREAMS_MUL, GD_STREAMS_ADD);
	y[i] = c;
}

/* The guide's norm(out_a): reads A's output, a short chain, writes it back. */
static __global__ void norm(float *y, int iters)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	float c = y[i];
	for (int k = 0; k < iters; k++)
		c = fmaf(c, GD_STREAMS_MUL, GD_STREAMS_ADD);
	y[i] = c;
}

static __global__ void chunk_work(const float *x, float *y, size_t n, int iters)
{
	size_t stride = (size_t)gridDim.x * blockDim.x;
	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
		float c = x[i];
		for (int k = 0; k < iters; k++)
			c = fmaf(c, GD_STREAMS_MUL, GD_STREAMS_ADD);
		y[i] = c;
	}
}

/* Time between e0 (on one stream) and the later of e1, e2. */
static cudaError_t span_us(cudaEvent_t e0, cudaEvent_t e1, cudaEvent_t e2, double *us)
{
	float a = 0, b = 0;
	cudaError_t e;
	if ((e = cudaEventSynchronize(e1)) != cudaSuccess || (e = cudaEventSynchronize(e2)) != cudaSuccess ||
	    (e = cudaEventElapsedTime(&a, e0, e1)) != cudaSuccess ||
	    (e = cudaEventElapsedTime(&b, e0, e2)) != cudaSuccess)
		return e;
	*us = (a > b ? a : b) * 1e3;
	return cudaSuccess;
}

struct part2 {
	cudaStream_t s1, s2;
	cudaEvent_t e0, e1, e2, *ev;
	float *dx, *dy;
	int chunks, grid;
	size_t n;
};

/* All chunks: copy then compute. pipelined = 0: both on s1; 1: copies on s1, kernels on s2
 * each waiting for its chunk's copy. which: 1 copies only, 2 kernels only, 3 both. */
static cudaError_t chunked(struct part2 *p, const float *h, int iters, int pipelined, int which, double *us)
{
	size_t per = (p->n + p->chunks - 1) / p->chunks;
	cudaStream_t ks = pipelined ? p->s2 : p->s1;
	cudaError_t e;
	if ((e = cudaEventRecord(p->e0, p->s1)) != cudaSuccess ||
	    (e = cudaStreamWaitEvent(p->s2, p->e0, 0)) != cudaSuccess)
		return e;
	for (int c = 0; c < p->chunks; c++) {
		size_t off = (size_t)c * per, len = off >= p->n ? 0 : (p->n - off < per ? p->n - off : per);
		if (!len)
			break;
		if (which & 1) {
			if ((e = cudaMemcpyAsync(p->dx + off, h + off, len * sizeof(float),
						 cudaMemcpyHostToDevice, p->s1)) != cudaSuccess)
				return e;
			if ((e = cudaEventRecord(p->ev[c], p->s1)) != cudaSuccess)
				return e;
			if (pipelined && (e = cudaStreamWaitEvent(p->s2, p->ev[c], 0)) != cudaSuccess)
				return e;
		}
		if (which & 2) {
			chunk_work<<<p->grid, 256, 0, ks>>>(p->dx + off, p->dy + off, len, iters);
			if ((e = cudaGetLastError()) != cudaSuccess)
				return e;
		}
	}
	if ((e = cudaEventRecord(p->e1, p->s1)) != cudaSuccess ||
	    (e = cudaEventRecord(p->e2, p->s2)) != cudaSuccess)
		return e;
	return span_us(p->e0, p->e1, p->e2, us);
}

extern "C" int gd_streams_measure(int dev, const struct gd_streams_cfg *cfg, const float *host_x,
				  struct gd_streams_raw *raw, float *y_a, float *y_pinned, float *y_pageable,
				  char *err, size_t errn)
{
	int rc = 0, sms = 0;
	int nthr = cfg->blocks * cfg->block;
	cudaStream_t nb1 = NULL, nb2 = NULL, bl1 = NULL, bl2 = NULL;
	cudaEvent_t e0 = NULL, e1 = NULL, e2 = NULL;
	float *ya = NULL, *yb = NULL, *pinned = NULL, *pageable = NULL;
	struct part2 p;
	float ms;
	double us;
	size_t n = cfg->copy_bytes / sizeof(float);

	memset(&p, 0, sizeof(p));
	LX_CHECK(cudaSetDevice(dev));
	LX_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
	LX_CHECK(cudaStreamCreateWithFlags(&nb1, cudaStreamNonBlocking));
	LX_CHECK(cudaStreamCreateWithFlags(&nb2, cudaStreamNonBlocking));
	LX_CHECK(cudaStreamCreateWithFlags(&bl1, cudaStreamDefault));
	LX_CHECK(cudaStreamCreateWithFlags(&bl2, cudaStreamDefault));
	LX_CHECK(cudaEventCreate(&e0));
	LX_CHECK(cudaEventCreate(&e1));
	LX_CHECK(cudaEventCreate(&e2));
	LX_CHECK(cudaMalloc(&ya, (size_t)nthr * sizeof(float)));
	LX_CHECK(cudaMalloc(&yb, (size_t)nthr * sizeof(float)));

	/* ---- calibration: A's chain length for about target_us */
	raw->iters = 4096;
	for (int tries = 0; tries < 4; tries++) {
		work<<<cfg->blocks, cfg->block, 0, nb1>>>(ya, raw->iters);
		LX_LAUNCHED();
		LX_CHECK(cudaEventRecord(e0, nb1));
		work<<<cfg->blocks, cfg->block, 0, nb1>>>(ya, raw->iters);
		LX_LAUNCHED();
		LX_CHECK(cudaEventRecord(e1, nb1));
		LX_CHECK(cudaEventSynchronize(e1));
		LX_CHECK(cudaEventElapsedTime(&ms, e0, e1));
		if (ms * 1e3 > 0.7 * cfg->target_us && ms * 1e3 < 1.3 * cfg->target_us)
			break;
		{
			double want = raw->iters * cfg->target_us / (ms > 1e-4f ? ms * 1e3 : 0.1);
			raw->iters = want > 2e8 ? 200000000 : want < 16 ? 16 : (int)want;
		}
	}
	raw->norm_iters = raw->iters / (cfg->norm_div > 0 ? cfg->norm_div : 20);

	/* ---- part 1 */
	for (int r = 0; r < cfg->reps; r++) {
		/* alone */
		LX_CHECK(cudaEventRecord(e0, nb1));
		work<<<cfg->blocks, cfg->block, 0, nb1>>>(ya, raw->iters);
		LX_LAUNCHED();
		LX_CHECK(cudaEventRecord(e1, nb1));
		norm<<<cfg->blocks, cfg->block, 0, nb1>>>(ya, raw->norm_iters);
		LX_LAUNCHED();
		LX_CHECK(cudaEventRecord(e2, nb1));
		LX_CHECK(cudaEventSynchronize(e2));
		LX_CHECK(cudaEventElapsedTime(&ms, e0, e1));
		raw->a_us[r] = ms * 1e3;
		LX_CHECK(cudaEventElapsedTime(&ms, e1, e2));
		raw->norm_us[r] = ms * 1e3;
		LX_CHECK(cudaEventRecord(e0, nb2));
		work<<<cfg->blocks, cfg->block, 0, nb2>>>(yb, raw->iters);
		LX_LAUNCHED();
		LX_CHECK(cudaEventRecord(e1, nb2));
		LX_CHECK(cudaEventSynchronize(e1));
		LX_CHECK(cudaEventElapsedTime(&ms, e0, e1));
		raw->b_us[r] = ms * 1e3;

		/* serial: one stream */
		LX_CHECK(cudaEventRecord(e0, nb1));
		work<<<cfg->blocks, cfg->block, 0, nb1>>>(ya, raw->iters);
		norm<<<cfg->blocks, cfg->block, 0, nb1>>>(ya, raw->norm_iters);
		work<<<cfg->blocks, cfg->block, 0, nb1>>>(yb, raw->iters);
		LX_LAUNCHED();
		LX_CHECK(cudaEventRecord(e1, nb1));
		LX_CHECK(cudaEventSynchronize(e1));
		LX_CHECK(cudaEventElapsedTime(&ms, e0, e1));
		raw->serial_us[r] = ms * 1e3;

		/* good: non-blocking streams, norm stays on stream 1 */
		LX_CHECK(cudaEventRecord(e0, nb1));
		LX_CHECK(cudaStreamWaitEvent(nb2, e0, 0));
		work<<<cfg->blocks, cfg->block, 0, nb1>>>(ya, raw->iters);
		norm<<<cfg->blocks, cfg->block, 0, nb1>>>(ya, raw->norm_iters);
		work<<<cfg->blocks, cfg->block, 0, nb2>>>(yb, raw->iters);
		LX_LAUNCHED();
		LX_CHECK(cudaEventRecord(e1, nb1));
		LX_CHECK(cudaEventRecord(e2, nb2));
		LX_CHECK(span_us(e0, e1, e2, &us));
		raw->good_us[r] = us;

		/* bad: blocking streams, norm on the legacy default stream */
		LX_CHECK(cudaEventRecord(e0, bl1));
		LX_CHECK(cudaStreamWaitEvent(bl2, e0, 0));
		work<<<cfg->blocks, cfg->block, 0, bl1>>>(ya, raw->iters);
		norm<<<cfg->blocks, cfg->block, 0, cudaStreamLegacy>>>(ya, raw->norm_iters);
		work<<<cfg->blocks, cfg->block, 0, bl2>>>(yb, raw->iters);
		LX_LAUNCHED();
		LX_CHECK(cudaEventRecord(e1, bl1));
		LX_CHECK(cudaEventRecord(e2, bl2));
		LX_CHECK(span_us(e0, e1, e2, &us));
		raw->bad_us[r] = us;
	}
	/* A's output alone, for the check: every thread's chain from its seed. */
	LX_CHECK(cudaMemsetAsync(ya, 0xFF, (size_t)nthr * sizeof(float), nb1));
	work<<<cfg->blocks, cfg->block, 0, nb1>>>(ya, raw->iters);
	LX_LAUNCHED();
	LX_CHECK(cudaStreamSynchronize(nb1));
	LX_CHECK(cudaMemcpy(y_a, ya, (size_t)nthr * sizeof(float), cudaMemcpyDeviceToHost));

	/* ---- part 2 */
	p.s1 = nb1;
	p.s2 = nb2;
	p.e0 = e0;
	p.e1 = e1;
	p.e2 = e2;
	p.n = n;
	p.chunks = cfg->chunks;
	p.grid = sms * 4;
	p.ev = (cudaEvent_t *)calloc((size_t)cfg->chunks, sizeof(cudaEvent_t));
	if (!p.ev) {
		snprintf(err, errn, "out of host memory");
		rc = 1;
		goto out;
	}
	for (int c = 0; c < cfg->chunks; c++)
		LX_CHECK(cudaEventCreateWithFlags(&p.ev[c], cudaEventDisableTiming));
	LX_CHECK(cudaMalloc(&p.dx, n * sizeof(float)));
	LX_CHECK(cudaMalloc(&p.dy, n * sizeof(float)));
	LX_CHECK(cudaMallocHost(&pinned, n * sizeof(float)));
	pageable = (float *)malloc(n * sizeof(float));
	if (!pageable) {
		snprintf(err, errn, "out of host memory for the pageable buffer");
		rc = 1;
		goto out;
	}
	memcpy(pinned, host_x, n * sizeof(float));
	memcpy(pageable, host_x, n * sizeof(float)); /* touches every page */

	/* calibration: the chunk kernel as long as the pinned copies */
	{
		double tc, tk;
		raw->chunk_iters = 64;
		LX_CHECK(chunked(&p, pinned, raw->chunk_iters, 0, 1, &tc));
		LX_CHECK(chunked(&p, pinned, raw->chunk_iters, 0, 1, &tc));
		/* A few rounds: at short chains the kernel is memory-bound, so one linear
		 * extrapolation overshoots. */
		for (int round = 0; round < 4; round++) {
			LX_CHECK(chunked(&p, pinned, raw->chunk_iters, 0, 2, &tk));
			if (tk <= 0 || (tk > 0.85 * tc && tk < 1.15 * tc))
				break;
			{
				double want = raw->chunk_iters * tc / tk;
				raw->chunk_iters = want < 1 ? 1 : want > 1e6 ? 1000000 : (int)want;
			}
		}
	}
	for (int r = 0; r < cfg->reps; r++) {
		LX_CHECK(chunked(&p, pinned, raw->chunk_iters, 0, 1, &raw->copy_pinned_us[r]));
		LX_CHECK(chunked(&p, pageable, raw->chunk_iters, 0, 1, &raw->copy_pageable_us[r]));
		LX_CHECK(chunked(&p, pinned, raw->chunk_iters, 0, 2, &raw->kern_us[r]));
		LX_CHECK(chunked(&p, pinned, raw->chunk_iters, 0, 3, &raw->serial_pinned_us[r]));
		LX_CHECK(chunked(&p, pageable, raw->chunk_iters, 0, 3, &raw->serial_pageable_us[r]));
		if (r == cfg->reps - 1)
			LX_CHECK(cudaMemsetAsync(p.dy, 0xFF, n * sizeof(float), nb1));
		LX_CHECK(chunked(&p, pinned, raw->chunk_iters, 1, 3, &raw->ovl_pinned_us[r]));
		if (r == cfg->reps - 1) {
			LX_CHECK(cudaMemcpy(y_pinned, p.dy, n * sizeof(float), cudaMemcpyDeviceToHost));
			LX_CHECK(cudaMemsetAsync(p.dy, 0xFF, n * sizeof(float), nb1));
			LX_CHECK(cudaMemsetAsync(p.dx, 0xFF, n * sizeof(float), nb1));
			LX_CHECK(cudaStreamSynchronize(nb1));
		}
		LX_CHECK(chunked(&p, pageable, raw->chunk_iters, 1, 3, &raw->ovl_pageable_us[r]));
		if (r == cfg->reps - 1)
			LX_CHECK(cudaMemcpy(y_pageable, p.dy, n * sizeof(float), cudaMemcpyDeviceToHost));
	}
out:
	if (p.ev) {
		for (int c = 0; c < cfg->chunks; c++)
			if (p.ev[c])
				cudaEventDestroy(p.ev[c]);
		free(p.ev);
	}
	cudaFree(p.dx);
	cudaFree(p.dy);
	if (pinned)
		cudaFreeHost(pinned);
	free(pageable);
	if (e0)
		cudaEventDestroy(e0);
	if (e1)
		cudaEventDestroy(e1);
	if (e2)
		cudaEventDestroy(e2);
	if (nb1)
		cudaStreamDestroy(nb1);
	if (nb2)
		cudaStreamDestroy(nb2);
	if (bl1)
		cudaStreamDestroy(bl1);
	if (bl2)
		cudaStreamDestroy(bl2);
	cudaFree(ya);
	cudaFree(yb);
	return rc;
}
