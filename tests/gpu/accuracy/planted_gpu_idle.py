"""Accuracy suite, PLANTED gpu_idle: short GPU steps separated by ~2 ms of host-side
Python/NumPy work.

Each of 400 steps runs a small BF16 MLP forward (8192 x 2048, three GEMMs, ~0.3 ms on the GPU),
then the host spends ~2 ms in NumPy on a CPU-side replay buffer (normalising and ranking it,
computing the next step's scale) before it launches the next step. Nothing synchronises: the
host simply does not feed the GPU, which sits idle most of the time.
Planted: a host-bound loop (the fix is moving the preprocessing to the GPU or into a
DataLoader worker, so the GPU never waits for it).
Expected verdict: top finding gpu_idle.
Runtime on an H200: ~2-3 s (400 x ~2.3 ms plus importing torch).
"""
import time

import numpy as np
import torch
import torch.nn.functional as F

torch.manual_seed(0)
ROWS, D, STEPS, HOST_S = 8192, 2048, 400, 0.002
rng = np.random.default_rng(0)
replay = rng.standard_normal(20000)
w = [(torch.randn(D, D, device="cuda") / D**0.5).bfloat16() for _ in range(3)]
x = torch.randn(ROWS, D, device="cuda").bfloat16()
acc = torch.zeros((), device="cuda")
scale = 1.0


def host_work(buf):
    """~2 ms of NumPy bookkeeping: normalise, rank and summarise the replay buffer"""
    t0 = time.perf_counter()
    s = 0.0
    while time.perf_counter() - t0 < HOST_S:
        z = (buf - buf.mean()) / (buf.std() + 1e-6)
        s = float(np.percentile(z, 90)) + float(np.argsort(z[:2000])[0])
    return s


for step in range(STEPS):
    h = x
    for wi in w:
        h = F.gelu(h @ wi)
    acc += h.float().mean() * scale
    scale = 1.0 + 1e-6 * host_work(replay)  # host-side work; the GPU has nothing queued
torch.cuda.synchronize()
print(f"planted_gpu_idle: {STEPS} steps, acc {acc.item():.4f}")
