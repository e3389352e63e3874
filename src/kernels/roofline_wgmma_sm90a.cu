// Hopper tensor-core peaks with wgmma (sm_90a only; built with -gencode arch=compute_90a).
//
// One warpgroup (128 threads) per block, as many blocks per SM as fit (at most 3). Each block copies a 64×Kt A tile
// and a 256×Kt B tile (both K-major) into shared memory in the no-swizzle "interleaved"
// canonical layout: 8-row × 16-byte core matrices, each stored as 128 contiguous bytes; a
// k-step (32 bytes of K: k16 for FP16/BF16, k8 for TF32, k32 for FP8) holds 2 core matrices
// along K. Core matrix (row/8, kbyte/16) of k-step s sits at
//   base + s·R·32 + ((row/8)·2 + kbyte/16)·128 + (row%8)·16 + kbyte%16      (R = 64 or 256)
// so the distance between K-adjacent core matrices is 128 B and between M/N-adjacent ones
// 256 B. The matrix descriptors (PTX ISA, "Matrix Descriptor Format" of wgmma) carry
// start>>4 (bits 0–13), leading-dimension byte offset>>4 (16–29), stride byte offset>>4
// (32–45), base offset 0 and swizzle mode 0 (none, bits 62–63). The ISA names the K-direction
// distance the leading byte offset for K-major no-swizzle layouts; because that reading has
// tripped up published code, the kernel's first (verification) run tries that convention and,
// if the product does not match the CPU model, the swapped one, and says which one matched.
//
// The timed kernel then issues 4 k-steps of m64n256kK wgmma per iteration (one commit group),
// keeping one group in flight (wait_group 1), accumulating in 128 f32 registers per thread.
// D = iters · A·Bᵀ is checked against gd_rl_mma_model for blocks 0 and last. FP8 restarts the
// accumulator at the first k-step of every iteration (scale-d = 0), because Hopper's FP8
// tensor cores accumulate with 14 significant bits, not FP32's 24: 2048 iterations of
// partial sums up to ~8000 in steps of 1/64 need 20 bits, which is why the first H200 run's
// timed FP8 check failed (D = −6564, exact −8000) while the 8-iteration verification passed.
// With the restart D = A·Bᵀ of one iteration (K = 128, partial sums < 2^14/64), still exact.
#include "kernels/roofline.h"
#include "roofline/model.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <vector>

namespace {

// generated operand lists (128 accumulator registers of m64n256, f32)
__device__ __forceinline__ void wg_f16(float *d, uint64_t da, uint64_t db, int acc)
{
	asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
		     "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 "
		     "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}, %128, %129, p, 1, 1, 0, 0;\n}\n"
		     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
		     : "l"(da), "l"(db), "r"(acc));
}
__device__ __forceinline__ void wg_bf16(float *d, uint64_t da, uint64_t db, int acc)
{
	asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
		     "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 "
		     "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}, %128, %129, p, 1, 1, 0, 0;\n}\n"
		     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
		     : "l"(da), "l"(db), "r"(acc));
}
__device__ __forceinline__ void wg_tf32(float *d, uint64_t da, uint64_t db, int acc)
{
	asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
		     "wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32 "
		     "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}, %128, %129, p, 1, 1;\n}\n"
		     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
		     : "l"(da), "l"(db), "r"(acc));
}
__device__ __forceinline__ void wg_e4m3(float *d, uint64_t da, uint64_t db, int acc)
{
	asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
		     "wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3 "
		     "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}, %128, %129, p, 1, 1;\n}\n"
		     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
		     : "l"(da), "l"(db), "r"(acc));
}

enum WgT { W_F16 = 0, W_BF16, W_TF32, W_FP8 };
#define WG_KSTEPS 4
#define WG_A_BYTES (64 * 32 * WG_KSTEPS)
#define WG_B_BYTES (256 * 32 * WG_KSTEPS)

__device__ __forceinline__ uint64_t wg_desc(const void *smem, uint32_t lbo, uint32_t sbo)
{
	uint32_t a = (uint32_t)__cvta_generic_to_shared(smem);
	return (uint64_t)((a >> 4) & 0x3FFF) | ((uint64_t)((lbo >> 4) & 0x3FFF) << 16) |
	       ((uint64_t)((sbo >> 4) & 0x3FFF) << 32);
}

// acc = 0: D = A·B (scale-d false, the accumulator restarts); otherwise D += A·B.
template <int P> __device__ __forceinline__ void wg_op(float *d, uint64_t da, uint64_t db, int acc)
{
	if (P == W_F16)
		wg_f16(d, da, db, acc);
	else if (P == W_BF16)
		wg_bf16(d, da, db, acc);
	else if (P == W_TF32)
		wg_tf32(d, da, db, acc);
	else
		wg_e4m3(d, da, db, acc);
}

// img: the shared-memory image (A then B), prepared on the host. out: 2 × 64×256 floats
// (block 0, last block). swap: use the swapped LBO/SBO convention. restart: the first k-step
// of every iteration overwrites the accumulator (scale-d = 0), so D = A·B of one iteration
// (the same instructions and FLOP; see gd_rl_wgmma_check_iters).
template <int P>
__global__ void __launch_bounds__(128, 1) k_wgmma(const uint4 *img, int iters, int swap, int restart, float *out)
{
	__shared__ __align__(128) uint4 sm[(WG_A_BYTES + WG_B_BYTES) / 16];
	for (int i = threadIdx.x; i < (WG_A_BYTES + WG_B_BYTES) / 16; i += blockDim.x)
		sm[i] = img[i];
	asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
	__syncthreads();
	const unsigned char *A = (const unsigned char *)sm, *B = A + WG_A_BYTES;
	const uint32_t lbo = swap ? 256 : 128, sbo = swap ? 128 : 256;
	uint64_t da[WG_KSTEPS], db[WG_KSTEPS];
#pragma unroll
	for (int s = 0; s < WG_KSTEPS; s++) {
		da[s] = wg_desc(A + s * 64 * 32, lbo, sbo);
		db[s] = wg_desc(B + s * 256 * 32, lbo, sbo);
	}
	float d[128];
#pragma unroll
	for (int i = 0; i < 128; i++)
		d[i] = 0.0f;
	for (int it = 0; it < iters; it++) {
		asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#pragma unroll
		for (int s = 0; s < WG_KSTEPS; s++)
			wg_op<P>(d, da[s], db[s], s > 0 || !restart);
		asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
		asm volatile("wgmma.wait_group.sync.aligned 1;\n" ::: "memory");
	}
	asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
	int slot = blockIdx.x == 0 ? 0 : (blockIdx.x == gridDim.x - 1 ? 1 : -1);
	if (slot < 0)
		return;
	// Accumulator layout of m64nN (f32): warp w holds rows 16w..16w+15; register 4j+r holds
	// row 16w + g + 8·(r>>1), column 8j + 2t + (r&1)   (g = lane/4, t = lane%4).
	float *o = out + (size_t)slot * 64 * 256;
#pragma unroll
	for (int i = 0; i < 128; i++) {
		int row, col;
		gd_rl_wgmma_d_pos(threadIdx.x, i, &row, &col);
		o[row * 256 + col] = d[i];
	}
}

struct Scope {
	std::vector<void *> bufs;
	std::vector<cudaEvent_t> evs;
	~Scope()
	{
		for (void *p : bufs)
			cudaFree(p);
		for (cudaEvent_t e : evs)
			cudaEventDestroy(e);
	}
};

int fail(gd_rl_run *r, const char *what, cudaError_t e)
{
	snprintf(r->msg, sizeof r->msg, "%s failed: %s", what, cudaGetErrorString(e));
	cudaGetLastError();
	return 1;
}

#define CK(x)                                           \
	do {                                            \
		cudaError_t e_ = (x);                   \
		if (e_ != cudaSuccess)                  \
			return fail(r, #x, e_);         \
	} while (0)

void encode(int p, double v, uint8_t *dst)
{
	if (p == W_F16) {
		__half h = __float2half_rn((float)v);
		memcpy(dst, &h, 2);
	} else if (p == W_BF16) {
		__nv_bfloat16 h = __float2bfloat16_rn((float)v);
		memcpy(dst, &h, 2);
	} else if (p == W_TF32) {
		float f = (float)v;
		memcpy(dst, &f, 4);
	} else {
		__nv_fp8_e4m3 f((float)v);
		memcpy(dst, &f, 1);
	}
}

// Checks one 64×256 result against the model; returns the largest error / tolerance.
double compare(const float *got, const std::vector<double> &want, const std::vector<double> &bound, int *bad)
{
	double worst = 0;
	*bad = -1;
	for (int i = 0; i < 64 * 256; i++) {
		double err = fabs(got[i] - want[i]) / (1e-3 * bound[i] + 1e-6);
		if (!(err <= worst))
			worst = err;
		if (!(err <= 1) && *bad < 0)
			*bad = i;
	}
	return worst;
}

template <int P> int run_t(gd_rl_run *r, const char *instr)
{
	const int esize = P == W_TF32 ? 4 : P == W_FP8 ? 1 : 2;
	const int kstep = 32 / esize, Kt = kstep * WG_KSTEPS;
	Scope s;
	std::vector<double> av(64 * Kt), bv(256 * Kt);
	std::vector<uint8_t> img(WG_A_BYTES + WG_B_BYTES);
	for (int i = 0; i < 64 * Kt; i++)
		av[i] = gd_rl_tile_value(i, 0xA11CEu, 0);
	for (int i = 0; i < 256 * Kt; i++)
		bv[i] = gd_rl_tile_value(i, 0xB0Bu, 0);
	for (int op = 0; op < 2; op++) {
		const int R = op ? 256 : 64;
		const std::vector<double> &v = op ? bv : av;
		uint8_t *base = img.data() + (op ? WG_A_BYTES : 0);
		for (int row = 0; row < R; row++)
			for (int k = 0; k < Kt; k++)
				encode(P, v[row * Kt + k], base + gd_rl_wgmma_elem_off(R, esize, row, k));
	}
	uint4 *dimg = nullptr;
	float *out = nullptr;
	void *p1 = nullptr, *p2 = nullptr;
	CK(cudaMalloc(&p1, img.size()));
	s.bufs.push_back(p1);
	CK(cudaMalloc(&p2, 2 * 64 * 256 * sizeof(float)));
	s.bufs.push_back(p2);
	dimg = (uint4 *)p1;
	out = (float *)p2;
	CK(cudaMemcpy(dimg, img.data(), img.size(), cudaMemcpyHostToDevice));
	// As many warpgroups per SM as registers and shared memory admit (at most 3): while one
	// waits for its group, another keeps the tensor cores fed.
	int per_sm = 0;
	CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k_wgmma<P>, 128, 0));
	if (per_sm < 1)
		per_sm = 1;
	if (per_sm > 3)
		per_sm = 3;
	const int blocks = (r->dev.sms > 0 ? r->dev.sms : 1) * per_sm, threads = 128;
	std::vector<float> got(2 * 64 * 256);
	std::vector<double> want(64 * 256), bound(64 * 256);

	// Verification run (small) with each descriptor convention until one matches.
	// FP8 restarts its accumulator every iteration (Hopper's FP8 accumulator keeps 14
	// significant bits; see gd_rl_wgmma_restarts), so its D holds A·Bᵀ once.
	const int restart = gd_rl_wgmma_restarts(P == W_FP8);
	const int vit = 8;
	gd_rl_mma_model(av.data(), bv.data(), 64, 256, Kt, gd_rl_wgmma_check_times(P == W_FP8, vit), want.data(),
			bound.data());
	int swap = -1, bad = -1;
	double worst = 0;
	for (int conv = 0; conv < 2 && swap < 0; conv++) {
		CK(cudaMemset(out, 0xff, 2 * 64 * 256 * sizeof(float)));
		k_wgmma<P><<<blocks, threads>>>(dimg, vit, conv, restart, out);
		CK(cudaGetLastError());
		CK(cudaDeviceSynchronize());
		CK(cudaMemcpy(got.data(), out, got.size() * sizeof(float), cudaMemcpyDeviceToHost));
		int b0, b1;
		double w0 = compare(got.data(), want, bound, &b0), w1 = compare(got.data() + 64 * 256, want, bound, &b1);
		if (b0 < 0 && b1 < 0)
			swap = conv;
		else if (conv == 0) {
			bad = b0 >= 0 ? b0 : b1;
			worst = w0 > w1 ? w0 : w1;
		}
	}
	if (swap < 0) {
		snprintf(r->msg, sizeof r->msg, "wgmma %s: D[%d][%d] = %.6g, CPU model %.6g (worst error %.3g × tolerance)", instr,
			 bad / 256, bad % 256, got[bad], want[bad], worst);
		r->max_err = INFINITY;
		return 4;
	}

	int iters = r->quick ? 512 : 2048;
	int reps = r->reps < 1 ? 1 : (r->reps > GD_RL_MAX_REPS ? GD_RL_MAX_REPS : r->reps);
	for (int i = 0; i < 2; i++)
		k_wgmma<P><<<blocks, threads>>>(dimg, iters, swap, restart, out);
	CK(cudaGetLastError());
	CK(cudaDeviceSynchronize());
	std::vector<cudaEvent_t> ev(reps + 1);
	for (int i = 0; i <= reps; i++) {
		CK(cudaEventCreate(&ev[i]));
		s.evs.push_back(ev[i]);
	}
	CK(cudaMemset(out, 0xff, 2 * 64 * 256 * sizeof(float)));
	CK(cudaEventRecord(ev[0]));
	for (int i = 0; i < reps; i++) {
		k_wgmma<P><<<blocks, threads>>>(dimg, iters, swap, restart, out);
		CK(cudaGetLastError());
		CK(cudaEventRecord(ev[i + 1]));
	}
	CK(cudaEventSynchronize(ev[reps]));
	for (int i = 0; i < reps; i++) {
		float ms = 0;
		CK(cudaEventElapsedTime(&ms, ev[i], ev[i + 1]));
		r->ms[i] = ms;
	}
	r->n = reps;
	r->work = (double)blocks * iters * WG_KSTEPS * gd_rl_mma_flops(64, 256, kstep);
	r->footprint = WG_A_BYTES + WG_B_BYTES;
	snprintf(r->how, sizeof r->how,
		 "wgmma.mma_async %s: %d blocks × 1 warpgroup (%d per SM), %d × %d k-steps, A and B in shared memory (no swizzle, %s LBO/SBO)%s",
		 instr, blocks, per_sm, iters, WG_KSTEPS, swap ? "swapped" : "ISA",
		 restart ? ", D restarted each iteration" : "");
	gd_rl_mma_model(av.data(), bv.data(), 64, 256, Kt, gd_rl_wgmma_check_times(P == W_FP8, iters), want.data(),
			bound.data());
	CK(cudaMemcpy(got.data(), out, got.size() * sizeof(float), cudaMemcpyDeviceToHost));
	int b0, b1;
	double w0 = compare(got.data(), want, bound, &b0), w1 = compare(got.data() + 64 * 256, want, bound, &b1);
	r->max_err = w0 > w1 ? w0 : w1;
	if (b0 >= 0 || b1 >= 0) {
		int b = b0 >= 0 ? b0 : b1;
		snprintf(r->msg, sizeof r->msg, "wgmma %s (timed run): D[%d][%d] = %.6g, CPU model %.6g", instr, b / 256, b % 256,
			 (double)got[(b0 >= 0 ? 0 : 64 * 256) + b], want[b]);
		return 4;
	}
	return 0;
}

} // namespace

extern "C" int gd_rl_wgmma(struct gd_rl_run *r)
{
	switch (r->kind) {
	case GD_RL_WGMMA_FP16: return run_t<W_F16>(r, "m64n256k16 f16→f32");
	case GD_RL_WGMMA_BF16: return run_t<W_BF16>(r, "m64n256k16 bf16→f32");
	case GD_RL_WGMMA_TF32: return run_t<W_TF32>(r, "m64n256k8 tf32→f32");
	case GD_RL_WGMMA_FP8: return run_t<W_FP8>(r, "m64n256k32 e4m3→f32");
	default: snprintf(r->msg, sizeof r->msg, "not a wgmma test"); return 1;
	}
}

extern "C" int gd_rl_wgmma_built(void) { return 1; }
