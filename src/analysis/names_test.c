/* Kernel-name parsing and classification. */
#include "core/test.h"
#include "analysis/names.h"

int main(void)
{
	char b[256];
	/* Itanium names: plain, nested, templated, with literals and substitutions */
	CHECK_STR(gd_kernel_short_name("_Z13my_stencil_2dPKfPfii", b, sizeof(b)), "my_stencil_2d");
	CHECK_STR(gd_kernel_short_name("_Z6kernelIfEvPT_i", b, sizeof(b)), "kernel<float>");
	CHECK_STR(gd_kernel_short_name("_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEESt5arrayIPcLm1EEEEviT0_T1_",
				       b, sizeof(b)),
		  "vectorized_elementwise_kernel<FillFunctor>"); /* the first non-number template argument */
	CHECK_STR(gd_kernel_short_name("_ZN2at6native53_GLOBAL__N__6b2d6c3a_17_layer_norm_kernel_cu_342a5c4528vectorized_layer_norm_kernelIffEEviT0_PKT_S6_S6_PS3_S7_PS4_",
				       b, sizeof(b)),
		  "vectorized_layer_norm_kernel<float>");
	CHECK_STR(gd_kernel_short_name("_ZN7cutlass7Kernel2I52cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4EEvNT_6ParamsE",
				       b, sizeof(b)),
		  "Kernel2<cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4>");
	/* three cuBLAS kernels of one template stay apart */
	CHECK_STR(gd_kernel_short_name("_ZN7cutlass7Kernel2I66cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_64x64_64x4_tn_align8EEvNT_6ParamsE",
				       b, sizeof(b)),
		  "Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_64x64_64x4_tn_align8>");
	CHECK_STR(gd_kernel_short_name("_ZN7cutlass7Kernel2I68cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x128_32x3_nn_align8EEvNT_6ParamsE",
				       b, sizeof(b)),
		  "Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x128_32x3_nn_align8>");
	/* PyTorch's copy kernel: a lambda as the template argument (the lite demangler gave up
	 * on these and showed the mangled name) */
	CHECK_STR(gd_kernel_short_name("_ZN2at6native27unrolled_elementwise_kernelIZZZNS0_23direct_copy_kernel_cudaERNS_18TensorIteratorBaseEENKUlvE1_clEvENKUlvE8_clEvEUlN3c108BFloat16EE_St5arrayIPcLm2EELi4E23TrivialOffsetCalculatorILi1EjESC_NS0_6memory12LoadWithCastILi1EEENSD_13StoreWithCastILi1EEEEEviT_T0_T2_T3_T4_T5_",
				       b, sizeof(b)),
		  "unrolled_elementwise_kernel<direct_copy_kernel_cuda::lambda(BFloat16)>");
	CHECK_STR(gd_kernel_short_name("void at::native::(anonymous namespace)::softmax_warp_forward<float, float, float, 10, false, false>(float*, float const*, int, int, int, bool const*, int, bool)",
				       b, sizeof(b)),
		  "softmax_warp_forward<float>");
	CHECK_STR(gd_kernel_short_name("_ZN5flash16flash_fwd_kernelI23Flash_fwd_kernel_traitsILi128ELi128ELi64ELi4ELb0ELb0EN7cutlass6half_tEELb1ELb0EEEv16Flash_fwd_params",
				       b, sizeof(b)),
		  "flash_fwd_kernel<Flash_fwd_kernel_traits>");
	/* demangled text and plain C names */
	CHECK_STR(gd_kernel_short_name("void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::func_wrapper_t<float, "
				       "at::native::sum_functor<float, float, float>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, "
				       "unsigned int, float, 4> >(at::native::ReduceOp<float>)",
				       b, sizeof(b)),
		  "reduce_kernel<ReduceOp>");
	CHECK_STR(gd_kernel_short_name("triton_poi_fused_add_mul_0", b, sizeof(b)), "triton_poi_fused_add_mul_0");
	CHECK_STR(gd_kernel_short_name("ampere_sgemm_128x64_nn", b, sizeof(b)), "ampere_sgemm_128x64_nn");
	CHECK_STR(gd_kernel_short_name("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)", b, sizeof(b)),
		  "ncclDevKernel_AllReduce_Sum_f32_RING_LL");
	/* malformed mangled names come back as they are, never overrun */
	CHECK_STR(gd_kernel_short_name("_Z999x", b, sizeof(b)), "_Z999x");
	CHECK_STR(gd_kernel_short_name("_ZN3foo", b, sizeof(b)), "_ZN3foo");
	CHECK_STR(gd_kernel_short_name("_Z13my_stencil_2dPKfPfii", b, 5), "my_s");
	CHECK_STR(gd_kernel_short_name("", b, sizeof(b)), "(unnamed)");
	CHECK_STR(gd_kernel_short_name("evil\033[2Jname\x7f", b, sizeof(b)), "evil?[2Jname?"); /* no escapes */
	CHECK_STR(gd_kernel_short_name("<script>alert(\"x\")</script>", b, sizeof(b)), "alert"); /* as before */

	/* API names as written: CUPTI's version suffix dropped, nothing else */
	CHECK_STR(gd_api_display_name("cudaLaunchKernel_v7000", b, sizeof(b)), "cudaLaunchKernel");
	CHECK_STR(gd_api_display_name("cudaMemcpyAsync_ptsz_v7000", b, sizeof(b)), "cudaMemcpyAsync_ptsz");
	CHECK_STR(gd_api_display_name("cuLaunchKernelEx", b, sizeof(b)), "cuLaunchKernelEx");
	CHECK_STR(gd_api_display_name("cuMemAlloc_v2", b, sizeof(b)), "cuMemAlloc");
	CHECK_STR(gd_api_display_name("_v12", b, sizeof(b)), "_v12");
	CHECK_STR(gd_api_display_name("cudaFree_v", b, sizeof(b)), "cudaFree_v");
	CHECK_STR(gd_api_display_name("cudaMalloc_v3020", b, 8), "cudaMal");

	/* kinds */
	CHECK_INT(gd_kernel_kind("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x256x64_cublas"), GD_KIND_GEMM);
	CHECK_INT(gd_kernel_kind("nvjet_tst_192x192_64x4_2x1_v_bz_coopB_TNT"), GD_KIND_GEMM);
	CHECK_INT(gd_kernel_kind("_ZN5flash16flash_fwd_kernelI23Flash_fwd_kernel_traitsEEv16Flash_fwd_params"), GD_KIND_ATTENTION);
	CHECK_INT(gd_kernel_kind("sm80_xmma_fprop_implicit_gemm_indexed_tf32f32_tf32f32_f32_nhwckrsc_nhwc"), GD_KIND_CONV);
	CHECK_INT(gd_kernel_kind("triton_poi_fused_add_0"), GD_KIND_ELEMENTWISE);
	CHECK_INT(gd_kernel_kind("triton_red_fused_sum_1"), GD_KIND_REDUCTION);
	CHECK_INT(gd_kernel_kind("_ZN2at6native53_GLOBAL__N__6b2d6c3a_17_layer_norm_kernel_cu_342a5c4528vectorized_layer_norm_kernelIffEEviT0_"),
		  GD_KIND_NORM);
	CHECK_INT(gd_kernel_kind("_ZN2at6native43_GLOBAL__N__softmax_warp_forward"), GD_KIND_SOFTMAX);
	CHECK_INT(gd_kernel_kind("ncclDevKernel_AllReduce_Sum_f32_RING_LL"), GD_KIND_NCCL);
	CHECK_INT(gd_kernel_kind("_ZN2at6native18elementwise_kernelILi128ELi2EZNS0_22gpu_kernel_impl"), GD_KIND_ELEMENTWISE);
	CHECK_INT(gd_kernel_kind("_ZN2at6native27unrolled_elementwise_kernelINS0_13direct_copy"), GD_KIND_COPY);
	CHECK_INT(gd_kernel_kind("_Z13my_stencil_2dPKfPfii"), GD_KIND_OTHER);
	/* libraries */
	CHECK_INT(gd_kernel_lib("ampere_sgemm_128x64_nn"), GD_LIB_CUBLAS);
	CHECK_INT(gd_kernel_lib("nvjet_tst_192x192_64x4_2x1_v_bz_coopB_TNT"), GD_LIB_CUBLAS);
	CHECK_INT(gd_kernel_lib("sm80_xmma_fprop_implicit_gemm_indexed_tf32f32"), GD_LIB_CUDNN);
	CHECK_INT(gd_kernel_lib("_ZN2at6native29vectorized_elementwise_kernel"), GD_LIB_ATEN);
	CHECK_INT(gd_kernel_lib("triton_poi_fused_add_0"), GD_LIB_TRITON);
	CHECK_INT(gd_kernel_lib("_ZN5flash15flash_fwd_kernel"), GD_LIB_FLASH);
	CHECK_INT(gd_kernel_lib("ncclDevKernel_AllReduce_Sum_f32_RING_LL"), GD_LIB_NCCL);
	CHECK_INT(gd_kernel_lib("_Z13my_stencil_2dPKfPfii"), GD_LIB_USER);
	/* tensor cores from the name */
	CHECK_INT(gd_kernel_tensor_cores("ampere_sgemm_128x64_nn"), 0);
	CHECK_INT(gd_kernel_tensor_cores("cutlass_80_simt_sgemm_128x128_8x5_nn_align1"), 0);
	CHECK_INT(gd_kernel_tensor_cores("cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4"), 1);
	CHECK_INT(gd_kernel_tensor_cores("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n"), 1);
	CHECK_INT(gd_kernel_tensor_cores("_Z6matmulPKfS0_Pfi"), -1);
	CHECK(gd_kind_memory_bound(GD_KIND_ELEMENTWISE) && !gd_kind_memory_bound(GD_KIND_GEMM));
	return TEST_DONE();
}
