"""GPU tier, area "metrics" (issue 19): two library kernels for the counter comparison with ncu.
  gemm   torch.matmul of two 4096 x 4096 BF16 matrices (a cuBLAS tensor-core GEMM), REPS times
  flash  F.scaled_dot_product_attention, BF16, batch 4, 16 heads, length 4096, head dim 128,
         with the FlashAttention backend forced (so the kernel is the same in every tool)
Inputs are made and synchronised before the loop, so the loop's launches are the only ones
that match the area's --kernels patterns. usage: python3 progs.py gemm|flash [REPS]"""
import sys

import torch
import torch.nn.functional as F

what = sys.argv[1]
reps = int(sys.argv[2]) if len(sys.argv) > 2 else 4
torch.manual_seed(0)
if what == "gemm":
    a = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
    torch.cuda.synchronize()
    for _ in range(reps):
        c = a @ b
elif what == "flash":
    q, k, v = (torch.randn(4, 16, 4096, 128, device="cuda", dtype=torch.bfloat16) for _ in range(3))
    torch.cuda.synchronize()
    try:
        from torch.nn.attention import SDPBackend, sdpa_kernel
        ctx = sdpa_kernel(SDPBackend.FLASH_ATTENTION)
    except ImportError:  # torch < 2.3
        ctx = torch.backends.cuda.sdp_kernel(enable_flash=True, enable_math=False, enable_mem_efficient=False)
    with ctx:
        for _ in range(reps):
            o = F.scaled_dot_product_attention(q, k, v)
else:
    sys.exit("usage: progs.py gemm|flash [REPS]")
torch.cuda.synchronize()
print(f"{what}: {reps} launches", flush=True)
