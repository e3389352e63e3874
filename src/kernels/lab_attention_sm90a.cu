// `gpudiag lab attention` "flash wgmma": the Hopper wgmma FlashAttention forward kernel of
// lab_attention_wgmma.cuh behind a narrow C entry (sm_90a only: CMake compiles *_sm90a.cu
// with -gencode arch=compute_90a,code=sm_90a alone; the host calls it only on cc 9.0).
#include "kernels/lab_attention.h"
#include "kernels/lab_attention_wgmma.cuh"

#include "kernels/cuda_why.cuh"

#include <stdio.h>
#include <stdlib.h>

// The configuration the lab runs per head dim is fwg::lab_cfg(d) (see there: configuration 14,
// the warp-specialised fwd_kernel_ws, the fastest of the configurations tests/gpu/flash_sweep.cu times
// on the H200). GPUDIAG_FLASH_WGMMA_CFG=<0…21> overrides it for both head dims (a diagnostic
// knob: e.g. 4, the kernel without warp specialisation, or 0, the one without any overlap).
static int lab_cfg(int d)
{
	const char *e = getenv("GPUDIAG_FLASH_WGMMA_CFG");
	char *end;
	long c = e && *e ? strtol(e, &end, 10) : -1;
	if (c >= 0 && c < fwg::NCFG && !*end)
		return (int)c;
	return fwg::lab_cfg(d);
}

extern "C" int gd_attn_flash_wgmma(const void *q, const void *k, const void *v, void *o, int bh, int l, int d,
				   int causal, float scale, void *stream, char *why, size_t n)
{
	int dev, major = 0, minor = 0;
	GD_CUDA_WHY(cudaGetDevice(&dev));
	GD_CUDA_WHY(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
	GD_CUDA_WHY(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev));
	if (major != 9 || minor != 0) {
		snprintf(why, n, "the wgmma flash kernel is built for sm_90a only (compute capability 9.0; this is %d.%d)",
			 major, minor);
		return GD_ENOGPU;
	}
	if (d != 64 && d != 128) {
		snprintf(why, n, "flash wgmma: head dim %d not built (64 or 128)", d);
		return GD_EUSAGE;
	}
	if (l <= 0 || l % GD_ATTN_WGMMA_L_MULTIPLE || bh <= 0 || bh > 65535) {
		snprintf(why, n, "flash wgmma: L must be a positive multiple of %d and B·H ≤ 65535", GD_ATTN_WGMMA_L_MULTIPLE);
		return GD_EUSAGE;
	}
	GD_CUDA_WHY(fwg::launch(lab_cfg(d), q, k, v, o, bh, l, d, causal, scale, (cudaStream_t)stream));
	return GD_OK;
}

extern "C" size_t gd_attn_flash_wgmma_smem(int d) { return fwg::cfg_smem(lab_cfg(d), d); }

extern "C" const char *gd_attn_flash_wgmma_config(int d) { return fwg::cfg_name(lab_cfg(d)); }

extern "C" int gd_attn_flash_wgmma_built(void) { return 1; }
