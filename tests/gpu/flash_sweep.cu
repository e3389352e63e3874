// Checks and times the Hopper wgmma FlashAttention forward kernel of `gpudiag lab attention`
// ("flash wgmma"), compiling the very kernel source the lab uses
// (src/kernels/lab_attention_wgmma.cuh), in every configuration it is built in
// (fwg::cfg_info: key tile BN 128 or 64 × 1 or 2 consumer warpgroups, and the kernel that
// overlaps the softmax with P·V, with 2 or 3 K/V buffers; configurations 12 … 18: the
// warp-specialised kernel, a cp.async producer warpgroup feeding two consumer warpgroups through
// mbarrier rings of 2, 3 or 4 stages, with and without the named-barrier ping-pong; 18 with the
// proxy fence in the producer instead of the consumers, a hedge). The loops
// run over fwg::NCFG, so a configuration added to the header is checked and timed here.
// A lost mbarrier arrival traps inside the kernel after ~2 s (a launch error here, exit 1); a
// hang anywhere else is caught by the alarm() watchdog (exit 2). Should configurations 12 … 18
// hang in setmaxnreg (the one wait that is not bounded besides the named barriers), build with
// -DFWG_WS_NO_SETMAXNREG (every role at 168 registers; the d = 128 consumers then spill).
//
// Build (from the repository root, CUDA 12.x, on any machine):
//   nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -Xptxas -v -o build/flash_sweep tests/gpu/flash_sweep.cu
// Run (an H200 / H100, compute capability 9.0):
//   ./build/flash_sweep            # full: checks + timing sweep (about a minute)
//   ./build/flash_sweep --quick    # checks at small sizes + L=4096/8192 timing (< 40 s)
//   ./build/flash_sweep --quick --cfg 4,14,18   # only these configurations (a trapping kernel
//                                                # leaves the context unusable: rerun the rest)
//
// What it does:
//  1. Q, K, V random BF16 (q, k ~ U(-2, 2), v ~ U(-1, 1), a hash of the index), O poisoned
//     with 0xFFFF (a NaN) before every checked run.
//  2. Small sizes (B·H = 3, L = 128 … 1024, d = 64 and 128, causal and not): every configuration
//     against an FP64 CPU reference on rows of every head (all rows up to L = 256, 48 spread
//     rows plus the tile boundaries beyond); every output element checked for "unwritten".
//  3. L = 4096 and 8192 (B·H = 4): every configuration against a plain FP32 GPU reference
//     kernel on 64 sampled rows of each head.
//     Tolerance everywhere: |got − ref| ≤ 2e-3 + |ref|/64 (the lab's flash tolerance).
//  4. Timing: B = 1, H = 16, d ∈ {64, 128}, L ∈ {1024, 4096, 8192, 16384}, causal and not, each
//     configuration: 3 warm-up launches, then 10 launches each timed with its own CUDA event
//     pair; median (min … max) and TFLOP/s = 4·B·H·L²·d / median (halved when causal).
//     The last lines summarise the best configuration per shape, the lab's (fwg::lab_cfg(d)) and
//     the best warp-specialised one (configurations 12 … 18).
// Exit status: 0 all checks passed; 1 a check failed or a CUDA error; 2 the watchdog fired
// (the whole program runs under alarm(): 180 s, --quick 90 s), i.e. a kernel hung.
#include "../../src/kernels/lab_attention_wgmma.cuh"

#include <algorithm>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <vector>

typedef __nv_bfloat16 bf16;

static void on_alarm(int)
{
	static const char m[] = "\nflash_sweep: WATCHDOG — still running after the time limit, a kernel probably hangs\n";
	ssize_t r = write(2, m, sizeof m - 1);
	(void)r;
	_exit(2);
}

#define CK(x)                                                                                                \
	do {                                                                                                 \
		cudaError_t e_ = (x);                                                                        \
		if (e_ != cudaSuccess) {                                                                     \
			fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));  \
			exit(1);                                                                             \
		}                                                                                            \
	} while (0)

__host__ __device__ static inline float hash_unit(uint64_t i, uint32_t seed)
{
	uint64_t x = i * 0x9E3779B97F4A7C15ull + seed * 0xD1B54A32D192ED03ull;
	x ^= x >> 31;
	x *= 0xBF58476D1CE4E5B9ull;
	x ^= x >> 29;
	return (float)((double)(x >> 11) / 9007199254740992.0); // [0, 1)
}

__global__ void fill_kernel(bf16 *p, size_t n, uint32_t seed, float lo, float hi)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
		p[i] = __float2bfloat16_rn(lo + (hi - lo) * hash_unit(i, seed));
}

// FP32 reference for chosen rows: one block of 128 threads per (head, row); scores in shared
// memory (L ≤ 8192 floats).
__global__ void ref_rows_kernel(const bf16 *Q, const bf16 *K, const bf16 *V, const int *rows, int nrows, int L, int D,
				int causal, float scale, float *out)
{
	extern __shared__ float sc[];
	__shared__ float red[128];
	const int hr = blockIdx.x, head = hr / nrows, row = rows[hr % nrows];
	const size_t base = (size_t)head * L * D;
	const int last = causal ? row : L - 1;
	float mx = -INFINITY;
	for (int j = threadIdx.x; j <= last; j += blockDim.x) {
		float s = 0;
		for (int c = 0; c < D; c++)
			s += __bfloat162float(Q[base + (size_t)row * D + c]) * __bfloat162float(K[base + (size_t)j * D + c]);
		s *= scale;
		sc[j] = s;
		mx = fmaxf(mx, s);
	}
	red[threadIdx.x] = mx;
	__syncthreads();
	for (int o = 64; o > 0; o >>= 1) {
		if (threadIdx.x < o)
			red[threadIdx.x] = fmaxf(red[threadIdx.x], red[threadIdx.x + o]);
		__syncthreads();
	}
	mx = red[0];
	__syncthreads();
	float sum = 0;
	for (int j = threadIdx.x; j <= last; j += blockDim.x) {
		float p = expf(sc[j] - mx);
		sc[j] = p;
		sum += p;
	}
	red[threadIdx.x] = sum;
	__syncthreads();
	for (int o = 64; o > 0; o >>= 1) {
		if (threadIdx.x < o)
			red[threadIdx.x] += red[threadIdx.x + o];
		__syncthreads();
	}
	sum = red[0];
	for (int c = threadIdx.x; c < D; c += blockDim.x) {
		float acc = 0;
		for (int j = 0; j <= last; j++)
			acc += sc[j] * __bfloat162float(V[base + (size_t)j * D + c]);
		out[(size_t)hr * D + c] = acc / sum;
	}
}

static float bf2f(uint16_t h)
{
	uint32_t u = (uint32_t)h << 16;
	float f;
	memcpy(&f, &u, 4);
	return f;
}

struct Bufs {
	bf16 *q = nullptr, *k = nullptr, *v = nullptr, *o = nullptr;
	size_t cap = 0;
	void ensure(size_t n)
	{
		if (n <= cap)
			return;
		cudaFree(q), cudaFree(k), cudaFree(v), cudaFree(o);
		CK(cudaMalloc(&q, n * 2));
		CK(cudaMalloc(&k, n * 2));
		CK(cudaMalloc(&v, n * 2));
		CK(cudaMalloc(&o, n * 2));
		cap = n;
	}
	void fill(size_t n, uint32_t seed)
	{
		fill_kernel<<<1024, 256>>>(q, n, seed * 3 + 0, -2.0f, 2.0f);
		fill_kernel<<<1024, 256>>>(k, n, seed * 3 + 1, -2.0f, 2.0f);
		fill_kernel<<<1024, 256>>>(v, n, seed * 3 + 2, -1.0f, 1.0f);
		CK(cudaGetLastError());
		CK(cudaDeviceSynchronize());
	}
};

static int g_fail = 0;
static bool g_sel[fwg::NCFG]; // configurations to check and time (--cfg), all by default

static std::vector<int> pick_rows(int L, int n)
{
	std::vector<int> r;
	if (L <= 256) {
		for (int i = 0; i < L; i++)
			r.push_back(i);
		return r;
	}
	for (int i = 0; i < n; i++)
		r.push_back((int)((long long)i * (L - 1) / (n - 1)));
	const int edges[] = {1, 7, 8, 63, 64, 65, 127, 128, 129, 191, 255, 256};
	for (int e : edges)
		if (e < L)
			r.push_back(e);
	r.push_back(L - 2);
	std::sort(r.begin(), r.end());
	r.erase(std::unique(r.begin(), r.end()), r.end());
	return r;
}

// Runs configuration c once on poisoned O; returns false (and reports) on a launch error.
static bool run_checked(int c, Bufs &b, int bh, int L, int d, int causal, std::vector<uint16_t> &out)
{
	size_t n = (size_t)bh * L * d;
	CK(cudaMemset(b.o, 0xFF, n * 2));
	cudaError_t e = fwg::launch(c, b.q, b.k, b.v, b.o, bh, L, d, causal, (float)(1.0 / sqrt((double)d)), 0);
	if (e == cudaSuccess)
		e = cudaDeviceSynchronize();
	if (e != cudaSuccess) {
		printf("  FAIL %-13s d=%d L=%d causal=%d: %s\n", fwg::cfg_name(c), d, L, causal, cudaGetErrorString(e));
		g_fail++;
		if (e != cudaErrorInvalidValue) // a sticky error: nothing more can run
			exit(1);
		return false;
	}
	out.resize(n);
	CK(cudaMemcpy(out.data(), b.o, n * 2, cudaMemcpyDeviceToHost));
	return true;
}

struct Err {
	double worst = 0; // error / tolerance
	long long bad = 0, unwritten = 0, checked = 0;
	int bad_head = -1, bad_row = -1, bad_col = -1;
	double got = 0, want = 0;
	void add(double g, double w, int h, int r, int c)
	{
		checked++;
		double e = fabs(g - w) / (2e-3 + fabs(w) / 64);
		if (!(e <= worst))
			worst = e;
		if (!(e <= 1)) {
			if (bad++ == 0)
				bad_head = h, bad_row = r, bad_col = c, got = g, want = w;
		}
	}
};

static void report(const char *what, int c, int d, int L, int causal, const Err &e)
{
	bool ok = e.bad == 0 && e.unwritten == 0 && e.checked > 0;
	printf("  %s %-13s d=%-3d L=%-5d causal=%d  %s: %lld values, worst %.3f × tol", ok ? "ok  " : "FAIL", fwg::cfg_name(c),
	       d, L, causal, what, e.checked, e.worst);
	if (e.unwritten)
		printf(", %lld UNWRITTEN", e.unwritten);
	if (e.bad)
		printf(", %lld bad (first: head %d row %d col %d got %.6g want %.6g)", e.bad, e.bad_head, e.bad_row, e.bad_col,
		       e.got, e.want);
	printf("\n");
	if (!ok)
		g_fail++;
}

// One configuration's output against reference rows ([head][row index][col]): every element
// checked for the poison, the listed rows of every head compared.
template <class R>
static Err compare_rows(const std::vector<uint16_t> &out, size_t n, const std::vector<R> &ref,
			const std::vector<int> &rows, int bh, int L, int d)
{
	Err e;
	for (size_t i = 0; i < n; i++)
		e.unwritten += out[i] == 0xFFFF;
	for (int h = 0; h < bh; h++)
		for (size_t ri = 0; ri < rows.size(); ri++)
			for (int col = 0; col < d; col++)
				e.add(bf2f(out[((size_t)h * L + rows[ri]) * d + col]),
				      (double)ref[((size_t)h * rows.size() + ri) * d + col], h, rows[ri], col);
	return e;
}

static void check_small(Bufs &b, bool quick)
{
	const int bh = 3;
	const int Ls_full[] = {128, 256, 384, 512, 1024}, Ls_quick[] = {128, 256, 512};
	const int *Ls = quick ? Ls_quick : Ls_full;
	const int nL = quick ? 3 : 5;
	printf("== small sizes vs FP64 CPU reference (B·H = %d)\n", bh);
	for (int d = 64; d <= 128; d *= 2)
		for (int li = 0; li < nL; li++) {
			const int L = Ls[li];
			size_t n = (size_t)bh * L * d;
			b.ensure(n);
			b.fill(n, 1000u + (uint32_t)L + (uint32_t)d);
			std::vector<uint16_t> hq(n), hk(n), hv(n), out;
			CK(cudaMemcpy(hq.data(), b.q, n * 2, cudaMemcpyDeviceToHost));
			CK(cudaMemcpy(hk.data(), b.k, n * 2, cudaMemcpyDeviceToHost));
			CK(cudaMemcpy(hv.data(), b.v, n * 2, cudaMemcpyDeviceToHost));
			std::vector<double> qf(n), kf(n), vf(n);
			for (size_t i = 0; i < n; i++)
				qf[i] = bf2f(hq[i]), kf[i] = bf2f(hk[i]), vf[i] = bf2f(hv[i]);
			std::vector<int> rows = pick_rows(L, 48);
			for (int causal = 0; causal < 2; causal++) {
				// reference rows (FP64)
				const double scale = 1.0 / sqrt((double)d);
				std::vector<double> ref((size_t)bh * rows.size() * d), p(L);
				for (int h = 0; h < bh; h++)
					for (size_t ri = 0; ri < rows.size(); ri++) {
						const int i = rows[ri], last = causal ? i : L - 1;
						const size_t hb = (size_t)h * L * d;
						double mx = -INFINITY, sum = 0;
						for (int j = 0; j <= last; j++) {
							double s = 0;
							for (int c = 0; c < d; c++)
								s += qf[hb + (size_t)i * d + c] * kf[hb + (size_t)j * d + c];
							p[j] = s * scale;
							mx = std::max(mx, p[j]);
						}
						double *o = &ref[((size_t)h * rows.size() + ri) * d];
						for (int c = 0; c < d; c++)
							o[c] = 0;
						for (int j = 0; j <= last; j++) {
							p[j] = exp(p[j] - mx);
							sum += p[j];
							for (int c = 0; c < d; c++)
								o[c] += p[j] * vf[hb + (size_t)j * d + c];
						}
						for (int c = 0; c < d; c++)
							o[c] /= sum;
					}
				for (int c = 0; c < fwg::NCFG; c++) {
					if (!g_sel[c])
						continue;
					if (!run_checked(c, b, bh, L, d, causal, out))
						continue;
					report("vs FP64", c, d, L, causal, compare_rows(out, n, ref, rows, bh, L, d));
				}
			}
		}
}

static void check_large(Bufs &b, bool quick)
{
	const int bh = 4;
	printf("== large sizes vs FP32 GPU reference rows (B·H = %d)\n", bh);
	const int Ls[] = {4096, 8192};
	for (int d = 64; d <= 128; d *= 2)
		for (int li = 0; li < (quick ? 1 : 2); li++) {
			const int L = Ls[li];
			size_t n = (size_t)bh * L * d;
			b.ensure(n);
			b.fill(n, 2000u + (uint32_t)L + (uint32_t)d);
			std::vector<int> rows = pick_rows(L, 48);
			int *drows;
			float *dref;
			CK(cudaMalloc(&drows, rows.size() * sizeof(int)));
			CK(cudaMalloc(&dref, (size_t)bh * rows.size() * d * sizeof(float)));
			CK(cudaMemcpy(drows, rows.data(), rows.size() * sizeof(int), cudaMemcpyHostToDevice));
			CK(cudaFuncSetAttribute(ref_rows_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, L * 4));
			std::vector<float> ref((size_t)bh * rows.size() * d);
			std::vector<uint16_t> out;
			for (int causal = 0; causal < 2; causal++) {
				ref_rows_kernel<<<bh * (int)rows.size(), 128, L * 4>>>(b.q, b.k, b.v, drows, (int)rows.size(), L, d,
											 causal, (float)(1.0 / sqrt((double)d)), dref);
				CK(cudaGetLastError());
				CK(cudaDeviceSynchronize());
				CK(cudaMemcpy(ref.data(), dref, ref.size() * sizeof(float), cudaMemcpyDeviceToHost));
				for (int c = 0; c < fwg::NCFG; c++) {
					if (!g_sel[c])
						continue;
					if (!run_checked(c, b, bh, L, d, causal, out))
						continue;
					report("vs FP32 GPU", c, d, L, causal, compare_rows(out, n, ref, rows, bh, L, d));
				}
			}
			cudaFree(drows);
			cudaFree(dref);
		}
}

struct Timing {
	int d, L, causal, c;
	double med, mn, mx, tflops;
};

static void time_all(Bufs &b, bool quick, std::vector<Timing> &res)
{
	const int H = 16;
	const int Ls_full[] = {1024, 4096, 8192, 16384}, Ls_quick[] = {4096, 8192};
	const int *Ls = quick ? Ls_quick : Ls_full;
	const int nL = quick ? 2 : 4;
	printf("== timing: B=1, H=%d, 3 warm-ups, median of 10 launches (min … max), TFLOP/s = 4·B·H·L²·d (/2 causal)\n", H);
	cudaEvent_t ev[11];
	for (auto &e : ev)
		CK(cudaEventCreate(&e));
	for (int d = 128; d >= 64; d /= 2)
		for (int li = 0; li < nL; li++)
			for (int causal = 0; causal < 2; causal++) {
				const int L = Ls[li];
				size_t n = (size_t)H * L * d;
				b.ensure(n);
				b.fill(n, 3000u + (uint32_t)L + (uint32_t)d);
				const float scale = (float)(1.0 / sqrt((double)d));
				const double flops = 4.0 * H * (double)L * L * d / (causal ? 2 : 1);
				for (int c = 0; c < fwg::NCFG; c++) {
					if (!g_sel[c])
						continue;
					bool ok = true;
					for (int w = 0; w < 3 && ok; w++)
						ok = fwg::launch(c, b.q, b.k, b.v, b.o, H, L, d, causal, scale, 0) == cudaSuccess;
					if (!ok) {
						printf("  %-13s d=%-3d L=%-5d causal=%d  launch failed\n", fwg::cfg_name(c), d, L, causal);
						g_fail++;
						continue;
					}
					CK(cudaEventRecord(ev[0]));
					for (int i = 0; i < 10; i++) {
						CK(fwg::launch(c, b.q, b.k, b.v, b.o, H, L, d, causal, scale, 0));
						CK(cudaEventRecord(ev[i + 1]));
					}
					CK(cudaEventSynchronize(ev[10]));
					std::vector<double> ms(10);
					for (int i = 0; i < 10; i++) {
						float t;
						CK(cudaEventElapsedTime(&t, ev[i], ev[i + 1]));
						ms[i] = t;
					}
					std::sort(ms.begin(), ms.end());
					Timing t{d, L, causal, c, (ms[4] + ms[5]) / 2, ms[0], ms[9], 0};
					t.tflops = flops / (t.med * 1e-3) / 1e12;
					res.push_back(t);
					printf("  %-13s d=%-3d L=%-5d causal=%d  %8.3f ms (%.3f … %.3f)  %6.1f TFLOP/s\n", fwg::cfg_name(c), d,
					       L, causal, t.med, t.mn, t.mx, t.tflops);
				}
			}
	for (auto &e : ev)
		cudaEventDestroy(e);
}

int main(int argc, char **argv)
{
	bool quick = false;
	for (int c = 0; c < fwg::NCFG; c++)
		g_sel[c] = true;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--quick"))
			quick = true;
		else if (!strcmp(argv[i], "--cfg") && i + 1 < argc) {
			// a comma-separated list of configuration numbers, e.g. after a trap in one of them
			for (int c = 0; c < fwg::NCFG; c++)
				g_sel[c] = false;
			for (char *tok = strtok(argv[++i], ","); tok; tok = strtok(nullptr, ",")) {
				char *end;
				long c = strtol(tok, &end, 10);
				if (*end || c < 0 || c >= fwg::NCFG) {
					fprintf(stderr, "flash_sweep: --cfg: '%s' is not a configuration 0…%d\n", tok, fwg::NCFG - 1);
					return 1;
				}
				g_sel[c] = true;
			}
		} else {
			fprintf(stderr, "usage: %s [--quick] [--cfg N,N,...]\n", argv[0]);
			return 1;
		}
	}
	signal(SIGALRM, on_alarm);
	alarm(quick ? 90 : 180); // 19 configurations (12 when these limits were 60 / 120 s)
	int dev, major, minor;
	CK(cudaGetDevice(&dev));
	CK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
	CK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev));
	cudaDeviceProp prop;
	CK(cudaGetDeviceProperties(&prop, dev));
	printf("flash_sweep: %s (cc %d.%d, %d SMs)%s\n", prop.name, major, minor, prop.multiProcessorCount,
	       quick ? ", --quick" : "");
	if (major != 9 || minor != 0) {
		printf("flash_sweep: needs compute capability 9.0 (sm_90a code)\n");
		return 1;
	}
	for (int c = 0; c < fwg::NCFG; c++)
		printf("  cfg %d: %-13s shared memory %zu B (d=128), %zu B (d=64)\n", c, fwg::cfg_name(c), fwg::cfg_smem(c, 128),
		       fwg::cfg_smem(c, 64));
	Bufs b;
	check_small(b, quick);
	check_large(b, quick);
	std::vector<Timing> res;
	time_all(b, quick, res);
	printf("== summary (TFLOP/s, median; the lab runs cfg %d \"%s\" at d=128, cfg %d \"%s\" at d=64)\n", fwg::lab_cfg(128),
	       fwg::cfg_name(fwg::lab_cfg(128)), fwg::lab_cfg(64), fwg::cfg_name(fwg::lab_cfg(64)));
	for (size_t i = 0; i < res.size();) {
		size_t j = i;
		const Timing *best = &res[i], *lab = nullptr, *ws = nullptr;
		for (; j < res.size() && res[j].d == res[i].d && res[j].L == res[i].L && res[j].causal == res[i].causal; j++) {
			if (res[j].tflops > best->tflops)
				best = &res[j];
			if (res[j].c == fwg::lab_cfg(res[j].d))
				lab = &res[j];
			if (fwg::cfg_info(res[j].c).ws && (!ws || res[j].tflops > ws->tflops))
				ws = &res[j];
		}
		printf("  d=%-3d L=%-5d causal=%d  best %-13s %6.1f   lab cfg %6.1f   best ws %-13s %6.1f\n", res[i].d, res[i].L,
		       res[i].causal, fwg::cfg_name(best->c), best->tflops, lab ? lab->tflops : NAN, ws ? fwg::cfg_name(ws->c) : "-",
		       ws ? ws->tflops : NAN);
		i = j;
	}
	printf("flash_sweep: %s (%d check failure%s)\n", g_fail ? "FAILED" : "all checks passed", g_fail, g_fail == 1 ? "" : "s");
	return g_fail ? 1 : 0;
}
