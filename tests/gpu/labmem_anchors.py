"""PyTorch anchors for tests/gpu/labmem.sh, measured in the same run as the labs.

copy: b.copy_(a) of 1 GiB float32, bytes read + written counted, median of 20 (CUDA events);
GEMM: torch.matmul 4096^3 in FP32 (TF32 off), TF32, BF16, median of 10.
Writes a JSON object {name: value} to argv[1]."""
import json
import statistics
import sys

import torch


def timed(fn, reps, warm=3):
    for _ in range(warm):
        fn()
    torch.cuda.synchronize()
    ts = []
    for _ in range(reps):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        fn()
        e.record()
        e.synchronize()
        ts.append(s.elapsed_time(e) / 1e3)
    return statistics.median(ts)


out = {"torch": torch.__version__, "gpu": torch.cuda.get_device_name(0)}
n = (1 << 30) // 4
a = torch.rand(n, device="cuda")
b = torch.empty_like(a)
t = timed(lambda: b.copy_(a), 20)
out["torch_copy_gbps"] = 2 * n * 4 / t / 1e9
del a, b

m = 4096
for name, dt, tf32 in (("fp32", torch.float32, False), ("tf32", torch.float32, True), ("bf16", torch.bfloat16, False)):
    torch.backends.cuda.matmul.allow_tf32 = tf32
    x = torch.rand(m, m, device="cuda", dtype=dt) - 0.5
    y = torch.rand(m, m, device="cuda", dtype=dt) - 0.5
    t = timed(lambda: torch.matmul(x, y), 10)
    out[f"torch_gemm_{name}_tflops"] = 2 * m ** 3 / t / 1e12
torch.backends.cuda.matmul.allow_tf32 = False
print(json.dumps(out, indent=1))
json.dump(out, open(sys.argv[1], "w"), indent=1)
