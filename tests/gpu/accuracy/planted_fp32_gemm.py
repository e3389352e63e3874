"""Accuracy suite, PLANTED tensor_cores_unused: an FP32 feature-covariance loop with TF32
switched off.

torch.backends.cuda.matmul.allow_tf32 = False (the strict-FP32 setting many scripts copy), then
60 steps of: a batch of 8192 x 4096 FP32 features generated on the GPU, its Gram matrix
G += X^T X (275 GFLOP per step) and a projection of the batch through the running estimate.
cuBLAS runs these GEMMs on the FP32 CUDA cores, many times slower than the tensor cores.
Planted: FP32 matrix math that could use TF32/BF16 tensor cores.
Expected verdict: top finding tensor_cores_unused.
Runtime on an H200: ~2-3 s (550 GFLOP of FP32 GEMMs per step, ~11 ms at ~50 TFLOP/s, plus
importing torch).
"""
import torch

torch.backends.cuda.matmul.allow_tf32 = False
torch.manual_seed(0)
ROWS, D, STEPS = 8192, 4096, 60
gen = torch.Generator(device="cuda").manual_seed(0)
G = torch.zeros(D, D, device="cuda")
proj = torch.zeros(ROWS, D, device="cuda")

for step in range(STEPS):
    X = torch.randn(ROWS, D, device="cuda", generator=gen)
    G.addmm_(X.T, X, alpha=1.0 / ROWS)  # FP32 GEMM, 8192-deep
    proj = X @ (G / (step + 1))  # another FP32 GEMM
torch.cuda.synchronize()
print(f"planted_fp32_gemm: {STEPS} steps, trace(G) {G.diagonal().sum().item():.1f}, |proj| {proj.abs().mean().item():.3f}")
