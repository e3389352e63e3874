"""GPU-metrics agreement workload: four phases of one kind of kernel each, every phase long
(>= 0.3 s of back-to-back launches), with a 0.2 s idle gap between phases. Prints one line per
phase, "phase NAME T0 T1" (CLOCK_REALTIME ns, after a synchronize), so the sampler's samples can
be cut by phase. Kinds: a DRAM-bound elementwise add (a copy with one FLOP), a BF16 tensor-core GEMM, an FP32 CUDA-core GEMM
(TF32 off). The latency-bound kind is chase.cu."""
import sys, time
import torch

SECONDS = float(sys.argv[1]) if len(sys.argv) > 1 else 0.4
ONCE = "--once" in sys.argv  # three launches per phase, for ncu (which replays each kernel)
dev = torch.device("cuda")
torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False


def phase(name, fn):
    fn(); torch.cuda.synchronize()
    if ONCE:
        fn(); fn(); torch.cuda.synchronize()
        return
    t0 = time.time_ns()
    n = 0
    while time.time_ns() - t0 < SECONDS * 1e9:
        for _ in range(8):
            fn()
        n += 8
        torch.cuda.synchronize()
    t1 = time.time_ns()
    print(f"phase {name} {t0} {t1} {n}", flush=True)
    time.sleep(0.2)


src = torch.empty(1 << 28, dtype=torch.float32, device=dev)  # 1 GiB
dst = torch.empty_like(src)
a16 = torch.randn(8192, 8192, dtype=torch.bfloat16, device=dev)
b16 = torch.randn(8192, 8192, dtype=torch.bfloat16, device=dev)
a32 = torch.randn(4096, 4096, dtype=torch.float32, device=dev)
b32 = torch.randn(4096, 4096, dtype=torch.float32, device=dev)
time.sleep(0.3)
phase("dram_copy", lambda: torch.add(src, 1.0, out=dst))  # a kernel (copy_ would be a DtoD memcpy)
phase("bf16_gemm", lambda: torch.mm(a16, b16))
phase("fp32_gemm", lambda: torch.mm(a32, b32))
