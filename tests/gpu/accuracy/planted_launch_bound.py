"""Accuracy suite, PLANTED launch_bound: a hand-written Adam update looped over 250 small
parameter tensors (1024 elements each), one tensor at a time, as a naive optimizer does.

Each parameter costs 9 elementwise operations (weight decay; two per moment update; sqrt,
bias correction and eps of the denominator; the step), so a step is 2250 kernel launches of
~2 us each on the GPU; 15 steps, ~34 000 launches. The GPU spends most of its time waiting for the next launch.
Planted: many tiny kernels (the fix is torch._foreach_* / fused=True optimizers, torch.compile
or a CUDA graph).
Expected verdict: top finding launch_bound.
Runtime on an H200: ~2-3 s (~20 ms per step of launch overhead plus importing torch).
"""
import torch

torch.manual_seed(0)
NPARAM, SIZE, STEPS = 250, 1024, 15
lr, b1, b2, eps, wd = 1e-3, 0.9, 0.999, 1e-8, 1e-2
gen = torch.Generator(device="cuda").manual_seed(0)
params = [torch.randn(SIZE, device="cuda", generator=gen) for _ in range(NPARAM)]
grads = [torch.randn(SIZE, device="cuda", generator=gen) * 1e-2 for _ in range(NPARAM)]
m = [torch.zeros(SIZE, device="cuda") for _ in range(NPARAM)]
v = [torch.zeros(SIZE, device="cuda") for _ in range(NPARAM)]

for step in range(1, STEPS + 1):
    c1, c2 = 1 - b1**step, 1 - b2**step
    for p, g, mi, vi in zip(params, grads, m, v):
        p.mul_(1 - lr * wd)
        mi.mul_(b1).add_(g, alpha=1 - b1)
        vi.mul_(b2).addcmul_(g, g, value=1 - b2)
        denom = vi.sqrt().div_(c2**0.5).add_(eps)
        p.addcdiv_(mi, denom, value=-lr / c1)
torch.cuda.synchronize()
print(f"planted_launch_bound: {STEPS} steps over {NPARAM} tensors, p[0][0] = {params[0][0].item():.5f}")
