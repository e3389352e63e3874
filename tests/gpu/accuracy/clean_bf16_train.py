"""Accuracy suite, CLEAN: a BF16 mixed-precision training loop of a residual MLP.

Six residual blocks (LayerNorm -> Linear 2048->4096 -> GELU -> Linear 4096->2048), 100 M
parameters (400 MiB in FP32), built on the CPU and moved with model.cuda() once before the loop,
as most training scripts do. 40 steps on a batch of 8192 x 2048 generated on the GPU, autocast
to BF16 (tensor cores), fused AdamW, gradients set to None.

Why it is well written: no host copies and no per-step synchronisation inside the loop (the loss
is read with .item() only every 10 steps, for a log line); large GEMMs keep the GPU busy while
the host queues ahead. The one pageable upload (400 MiB, model.cuda()) happens once before the
loop: a one-off cost, not a problem of the loop.
Expected verdict: none (no finding at warning or high).
Runtime on an H200: ~4-6 s (about 10 ms per step; most of the rest is importing torch).
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
D, H, BLOCKS, TOKENS, STEPS = 2048, 4096, 6, 8192, 40


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = nn.LayerNorm(D)
        self.up = nn.Linear(D, H)
        self.down = nn.Linear(H, D)

    def forward(self, x):
        return x + self.down(F.gelu(self.up(self.norm(x))))


model = nn.Sequential(*[Block() for _ in range(BLOCKS)], nn.LayerNorm(D))
model.cuda()  # one upload of every parameter, before the loop
opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
gen = torch.Generator(device="cuda").manual_seed(0)
# the synthetic target is made in BF16 too: an FP32 matmul here would run on CUDA cores
target_proj = (torch.randn(D, D, device="cuda", generator=gen) / D**0.5).bfloat16()

for step in range(STEPS):
    x = torch.randn(TOKENS, D, device="cuda", generator=gen)
    y = torch.tanh(x.bfloat16() @ target_proj).float()
    with torch.autocast("cuda", dtype=torch.bfloat16):
        out = model(x)
    loss = F.mse_loss(out.float(), y)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    if step % 10 == 0:
        print(f"step {step} loss {loss.item():.4f}")  # the only sync: a log line every 10 steps
torch.cuda.synchronize()
print("clean_bf16_train: done")
