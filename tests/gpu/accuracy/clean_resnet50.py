"""Accuracy suite, CLEAN: torchvision ResNet-50 inference (random weights), batch 256,
BF16 autocast, channels_last memory format, cuDNN autotuning on, torch.inference_mode;
5 warm-up iterations, then 20 timed iterations with one synchronisation at the end.

Why it is well written: the input batch lives on the GPU, channels_last + BF16 lets cuDNN use
its tensor-core NHWC convolutions, autotuning runs during warm-up, and nothing synchronises or
copies inside the timed loop. model.cuda() uploads the 100 MiB of weights once.
Batch 256, not 64: at batch 64 the first H200 run (2026-12-03) found eager ResNet-50
host-bound, rightly — the loop kept the GPU 60 % busy (≈ 300 launches of ≈ 2.4 µs kernels a
pass, 620 launches/s of Python and launch overhead); at 256 the GPU work per pass is about 4×
longer than the host's, so the host queues ahead, as a well-written inference loop does.
Expected verdict: none (no finding at warning or high).
Runtime on an H200: ~6-8 s (importing torch/torchvision and cuDNN autotuning dominate).
"""
import time

import torch
import torchvision

torch.manual_seed(0)
torch.backends.cudnn.benchmark = True
BATCH, WARMUP, ITERS = 256, 5, 20
model = torchvision.models.resnet50(weights=None).cuda().eval()
model = model.to(memory_format=torch.channels_last)
x = torch.randn(BATCH, 3, 224, 224, device="cuda").to(memory_format=torch.channels_last)

with torch.inference_mode(), torch.autocast("cuda", dtype=torch.bfloat16):
    for _ in range(WARMUP):
        model(x)
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(ITERS):
        out = model(x)
    torch.cuda.synchronize()
    dt = time.perf_counter() - t0
print(f"clean_resnet50: {ITERS * BATCH / dt:.0f} images/s, top class of image 0: {out[0].argmax().item()}")
