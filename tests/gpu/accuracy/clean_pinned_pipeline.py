"""Accuracy suite, CLEAN: an input pipeline done right — host batches in pinned memory, copied
with non_blocking=True on a dedicated copy stream one step ahead, overlapped with compute.

Eight 32 MiB FP32 batches (4096 x 2048) are prepared on the host and pinned once. Each step
the copy stream uploads the NEXT batch while the compute stream runs a BF16 MLP on the current
one (6 GEMMs of 4096 x 2048 x 4096 with GELU, ~0.8 ms: longer than the ~0.6 ms copy); an event
orders them and record_stream keeps the caching allocator safe. 60 steps, one synchronisation at the end.

Why it is well written: pinned memory (no staging through a driver buffer), asynchronous
copies on a non-blocking side stream hidden behind compute, no synchronisation in the loop.
Contrast: planted_pageable.py copies a pageable tensor synchronously every step.
Expected verdict: none (no finding at warning or high).
Runtime on an H200: ~3-4 s (~1 ms per step plus preparing the batches and importing torch).
"""
import torch
import torch.nn.functional as F

torch.manual_seed(0)
ROWS, D, H, NBATCH, STEPS = 4096, 2048, 4096, 8, 60
host_batches = [torch.randn(ROWS, D).pin_memory() for _ in range(NBATCH)]
w1 = torch.randn(D, H, device="cuda", dtype=torch.bfloat16) / D**0.5
w2 = torch.randn(H, D, device="cuda", dtype=torch.bfloat16) / H**0.5
compute = torch.cuda.current_stream()
copy = torch.cuda.Stream()  # non-blocking with respect to the legacy default stream


def upload(i):
    with torch.cuda.stream(copy):
        b = host_batches[i % NBATCH].to("cuda", non_blocking=True)
        ev = torch.cuda.Event()
        ev.record(copy)
    return b, ev


acc = torch.zeros((), device="cuda")
nxt = upload(0)
for step in range(STEPS):
    cur, ready = nxt
    compute.wait_event(ready)
    cur.record_stream(compute)  # the allocator must not reuse it before compute is done
    if step + 1 < STEPS:
        nxt = upload(step + 1)  # next batch's copy overlaps this step's compute
    h = cur.to(torch.bfloat16)
    for _ in range(3):
        h = F.gelu(h @ w1) @ w2
    acc += h.float().abs().mean()
torch.cuda.synchronize()
print(f"clean_pinned_pipeline: {STEPS} steps, mean activation {acc.item() / STEPS:.4f}")
