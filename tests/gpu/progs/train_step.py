"""A PyTorch transformer training step for gpudiag's overhead and agreement checks.

Runs WARMUP steps, then STEPS timed steps (each synchronised, timed with perf_counter),
inside an NVTX range "measure". Prints one JSON line: median/min step time (ms) and, with
--torch-profiler, the kernel count and total kernel time that torch.profiler saw over the
timed steps (from its exported trace, events of category "kernel").
usage: python3 train_step.py [--torch-profiler] [--steps N] [--warmup N]"""
import argparse, json, os, statistics, tempfile, time

import torch
import torch.nn as nn

ap = argparse.ArgumentParser()
ap.add_argument("--torch-profiler", action="store_true")
ap.add_argument("--steps", type=int, default=30)
ap.add_argument("--warmup", type=int, default=10)
a = ap.parse_args()

torch.manual_seed(0)
dev = "cuda"
d_model, layers, heads, seq, batch = 1024, 6, 16, 512, 8
layer = nn.TransformerEncoderLayer(d_model, heads, 4 * d_model, dropout=0.0, batch_first=True)
model = nn.TransformerEncoder(layer, layers).to(dev)
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
x = torch.randn(batch, seq, d_model, device=dev)
y = torch.randn(batch, seq, d_model, device=dev)


def step():
    opt.zero_grad(set_to_none=True)
    with torch.autocast("cuda", dtype=torch.bfloat16):
        out = model(x)
        loss = torch.nn.functional.mse_loss(out.float(), y)
    loss.backward()
    opt.step()


for _ in range(a.warmup):
    step()
torch.cuda.synchronize()

times = []
prof = None


def timed():
    torch.cuda.nvtx.range_push("measure")
    for _ in range(a.steps):
        t = time.perf_counter()
        step()
        torch.cuda.synchronize()
        times.append((time.perf_counter() - t) * 1e3)
    torch.cuda.nvtx.range_pop()


if a.torch_profiler:
    from torch.profiler import profile, ProfilerActivity
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        timed()
else:
    timed()

res = {"median_ms": statistics.median(times), "min_ms": min(times), "steps": a.steps,
       "torch": torch.__version__, "cuda": torch.version.cuda}
if prof is not None:
    fd, path = tempfile.mkstemp(suffix=".json")
    os.close(fd)
    prof.export_chrome_trace(path)
    with open(path) as f:
        tr = json.load(f)
    os.unlink(path)
    ks = [e for e in tr.get("traceEvents", []) if e.get("cat") == "kernel" and e.get("ph") == "X"]
    res["kernels"] = len(ks)
    res["kernel_time_ms"] = sum(float(e["dur"]) for e in ks) / 1e3
print("RESULT " + json.dumps(res), flush=True)
