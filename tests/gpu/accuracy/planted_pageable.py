"""Accuracy suite, PLANTED pageable_memory: a loop that uploads a 64 MiB batch from ordinary
(pageable) CPU memory every step.

The "dataset" is four 4096 x 4096 FP32 tensors (64 MiB each) in host memory, made before any
GPU work and never pinned. Each of 40 steps copies one to the GPU with .to("cuda") — staged
through a driver buffer at a fraction of the pinned bandwidth, and not overlappable — then
runs two BF16 GEMMs (4096^3) and a reduction on it (~0.6 ms of GPU work).
Planted: per-step copies from pageable host memory (the fix is pin_memory() once and
non_blocking=True; clean_pinned_pipeline.py does that).
Expected verdict: top finding pageable_memory.
Runtime on an H200: ~3-4 s (making the host data and importing torch dominate).
"""
import torch

torch.manual_seed(0)
N, NBATCH, STEPS = 4096, 4, 40
dataset = [torch.randn(N, N) for _ in range(NBATCH)]  # pageable host memory
w = (torch.randn(N, N, device="cuda") / N**0.5).bfloat16()
total = torch.zeros((), device="cuda")

for step in range(STEPS):
    xb = dataset[step % NBATCH].to("cuda")  # 64 MiB from pageable memory, every step
    h = xb.bfloat16() @ w
    h = torch.relu(h) @ w
    total += h.float().square().mean()
torch.cuda.synchronize()
print(f"planted_pageable: {STEPS} steps, mean {total.item() / STEPS:.4f}")
