"""GPU tier, area "framework" (issue 21): the training steps whose PyTorch view is checked
(tests/gpu/framework/run.sh runs them; docs/framework.md says what is compared).

usage: models.py MODEL [--steps N] [--warmup W] [--torch-profiler OUT.json]
MODEL: gpt2      a Hugging Face GPT-2 from GPT2Config() (12 layers, 768 wide, random weights:
                 nothing is downloaded), batch 4 x 512 tokens, BF16 autocast, fused AdamW
       resnet50  torchvision ResNet-50 (weights=None), batch 32 x 3 x 224 x 224, channels_last,
                 BF16 autocast, SGD with momentum; cuDNN autotuning off, so a second process
                 picks the same convolution algorithms
       compile   a torch.compile'd (Inductor, default mode: no CUDA graphs) pre-norm transformer
                 block x 2 (d 512, 8 heads, SDPA, GELU MLP), batch 16 x 256, BF16 autocast, AdamW
       tiny      a Linear-GELU-Linear step, for torchrun (prints the rank)

W warm-up steps run first (untimed); then N steps inside an NVTX range "measure" (for
`gpudiag run --capture-range nvtx:measure`), each synchronised and timed. The data of each
step is made on the GPU inside the step, so a profile of the whole program holds the same
kernels as one of the steps.
--torch-profiler: the steps are also recorded by torch.profiler (CPU and CUDA activities),
from the first step on when W is 0, else the N measured steps only, and OUT.json gets, per
CPU op name: calls, the kernels each call launched itself and their time ("self kernel time":
the device events linked to the op, Memcpy/Memset excluded, as gpudiag counts only kernels),
and key_averages()'s self_device_time_total and count beside them.
Prints one line: RESULT {"median_ms", "min_ms", "steps", "graph_breaks", "torch"}.
"""
import argparse
import json
import os
import statistics
import sys
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("model", choices=["gpt2", "resnet50", "compile", "tiny"])
ap.add_argument("--steps", type=int, default=3)
ap.add_argument("--warmup", type=int, default=0)
ap.add_argument("--torch-profiler", metavar="OUT.json")
a = ap.parse_args()

torch.manual_seed(0)
dev = "cuda"
gen = torch.Generator(device=dev).manual_seed(0)


def build_gpt2():
    import transformers

    config = transformers.GPT2Config()  # GPT-2 small: 12 layers, 768, 12 heads, 50257 tokens
    model = transformers.GPT2LMHeadModel(config)
    model.config.use_cache = False
    model.train().to(dev)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4, fused=True)

    def step():
        ids = torch.randint(0, config.vocab_size, (4, 512), device=dev, generator=gen)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = model(input_ids=ids, labels=ids).loss
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()

    return step


def build_resnet50():
    import torchvision

    torch.backends.cudnn.benchmark = False
    model = torchvision.models.resnet50(weights=None).to(dev).to(memory_format=torch.channels_last).train()
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)

    def step():
        x = torch.randn(32, 3, 224, 224, device=dev, generator=gen).to(memory_format=torch.channels_last)
        y = torch.randint(0, 1000, (32,), device=dev, generator=gen)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = F.cross_entropy(model(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()

    return step


class Block(nn.Module):
    def __init__(self, d=512, heads=8):
        super().__init__()
        self.heads = heads
        self.norm1 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.norm2 = nn.LayerNorm(d)
        self.fc1 = nn.Linear(d, 4 * d)
        self.fc2 = nn.Linear(4 * d, d)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(self.norm1(x)).view(b, t, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True).transpose(1, 2).reshape(b, t, d)
        x = x + self.proj(y)
        return x + self.fc2(F.gelu(self.fc1(self.norm2(x))))


def build_compile():
    model = nn.Sequential(Block(), Block()).to(dev)
    cmodel = torch.compile(model)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)

    def step():
        x = torch.randn(16, 256, 512, device=dev, generator=gen)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = cmodel(x).float().pow(2).mean()
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()

    return step


def build_tiny():
    model = nn.Sequential(nn.Linear(256, 1024), nn.GELU(), nn.Linear(1024, 256)).to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)

    def step():
        x = torch.randn(64, 256, device=dev, generator=gen)
        loss = model(x).pow(2).mean()
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()

    return step


step = {"gpt2": build_gpt2, "resnet50": build_resnet50, "compile": build_compile, "tiny": build_tiny}[a.model]()
prof = None
if a.torch_profiler:
    from torch.profiler import ProfilerActivity, profile

    prof = profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA])
    if a.warmup == 0:
        prof.__enter__()
for _ in range(a.warmup):
    step()
torch.cuda.synchronize()
if prof is not None and a.warmup > 0:
    prof.__enter__()
times = []
torch.cuda.nvtx.range_push("measure")
for _ in range(a.steps):
    t = time.perf_counter()
    step()
    torch.cuda.synchronize()
    times.append((time.perf_counter() - t) * 1e3)
torch.cuda.nvtx.range_pop()
if prof is not None:
    prof.__exit__(None, None, None)

res = {"median_ms": statistics.median(times), "min_ms": min(times), "steps": a.steps, "torch": torch.__version__}
try:
    from torch._dynamo.utils import counters

    res["graph_breaks"] = sum(counters["graph_break"].values())
    res["unique_graphs"] = counters["stats"]["unique_graphs"]
except Exception:
    pass
if a.model == "tiny":
    res["rank"] = os.environ.get("RANK")

if prof is not None:
    try:
        from torch.profiler import DeviceType
    except ImportError:
        from torch.autograd import DeviceType

    ops = {}
    approx = 0
    for fe in prof.events():
        if fe.device_type != DeviceType.CPU:
            continue
        o = ops.setdefault(fe.name, {"calls": 0, "kernels": 0, "self_kernel_us": 0.0, "copies_us": 0.0})
        o["calls"] += 1
        ks = getattr(fe, "kernels", None)
        if ks is None:  # a torch whose FunctionEvent lists no device events: its self device time
            approx += 1
            o["self_kernel_us"] += getattr(fe, "self_device_time_total", 0.0)
            continue
        for k in ks:
            if k.name.startswith(("Memcpy", "Memset")):
                o["copies_us"] += k.duration
            else:
                o["kernels"] += 1
                o["self_kernel_us"] += k.duration
    for e in prof.key_averages():
        o = ops.get(e.key)
        if o is not None:
            o["key_avg_self_device_us"] = getattr(e, "self_device_time_total", getattr(e, "self_cuda_time_total", None))
            o["key_avg_count"] = e.count
    doc = {"model": a.model, "steps": a.steps, "warmup": a.warmup, "torch": torch.__version__,
           "kernel_us": sum(o["self_kernel_us"] for o in ops.values()),
           "kernels": sum(o["kernels"] for o in ops.values()), "ops": ops,
           "note": "self_device_time_total (copies included) for %d events without .kernels" % approx if approx else ""}
    with open(a.torch_profiler, "w") as f:
        json.dump(doc, f, indent=0, sort_keys=True)
print("RESULT " + json.dumps(res), flush=True)
sys.exit(0)
