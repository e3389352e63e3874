"""GPU tier, area "metrics" (issue 19): launches that kernel replay must not touch.
  nccl   one-rank NCCL process group (world size 1, TCP rendezvous on localhost): all_reduce of
         a tensor 3 times between matmuls. With one rank NCCL launches no kernel of its own (on
         the H200, 2026-12-04: none in the profile), so this checks only that NCCL's set-up and
         calls survive --metrics; the 'communication' skip itself is checked by skips.cu's
         NCCL-named kernel, and on real NCCL kernels by the several-GPU issue (22)
  graph  a CUDA graph of 4 elementwise kernels captured once (after 2 eager rounds on the side
         stream) and replayed 5 times; the captured launches and graph launches must be listed
         as 'graph' and the capture must succeed (it failed before the capture guard:
         cudaErrorStreamCaptureInvalidated), the eager kernels profiled
Both check their own results on the GPU against the CPU and exit 3 on purpose (when correct),
so the area can see the program's exit code is kept under `gpudiag run --metrics`; a wrong
result exits 1. usage: python3 skips.py nccl|graph"""
import os
import sys

import torch

what = sys.argv[1]
torch.manual_seed(0)
x = torch.randn(1 << 20, device="cuda")
ref = x.cpu()
if what == "nccl":
    import torch.distributed as dist
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", str(29500 + os.getpid() % 1000))
    dist.init_process_group("nccl", rank=0, world_size=1, device_id=torch.device("cuda:0"))
    a = torch.randn(512, 512, device="cuda")
    for _ in range(3):
        x = x * 2.0
        dist.all_reduce(x)  # one rank: the sum is x itself
        a = a @ a / 512.0
    torch.cuda.synchronize()
    ok = torch.allclose(x.cpu(), ref * 8.0)
    dist.destroy_process_group()
elif what == "graph":
    s = torch.cuda.Stream()
    y = torch.empty_like(x)
    with torch.cuda.stream(s):
        for _ in range(2):  # warm up on the side stream before the capture, as PyTorch advises
            y.copy_(((x + 1.0) * 2.0).relu() - 1.0)
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        y.copy_(((x + 1.0) * 2.0).relu() - 1.0)
    for _ in range(5):
        g.replay()
    z = (y * 3.0).sum()
    torch.cuda.synchronize()
    want = ((ref + 1.0) * 2.0).relu() - 1.0
    ok = torch.allclose(y.cpu(), want) and abs(z.item() - float(want.sum()) * 3.0) < 1e-2 * abs(float(want.sum()) * 3.0) + 1
else:
    sys.exit("usage: skips.py nccl|graph")
print(f"skips.py {what}: {'correct' if ok else 'WRONG'}")
sys.exit(3 if ok else 1)
