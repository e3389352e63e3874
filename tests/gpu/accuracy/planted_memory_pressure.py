"""Accuracy suite, PLANTED memory_pressure: a BF16 training loop that runs with the device's
memory 95 % full.

The loop is clean_bf16_train's, smaller (four residual blocks, batch 4096 x 2048). After four
warm-up steps the program waits for the GPU, reads the free memory (torch.cuda.mem_get_info) and
keeps a buffer of all of it but 5 % of the device's capacity resident for a later phase (an
"as much as fits" cache, a common pattern in evaluation and serving code). The buffer is never
written: torch.empty launches no kernel, and CUDA backs an allocation when it is made, so NVML
counts it as used at once. 40 steps then run in the 5 % left, on the blocks the allocator
cached during warm-up (no new cudaMalloc).

Planted: device memory held at ~95 % of capacity. One longer sequence, one new kernel's
workspace or a fragmented cache and the next allocation fails; the fix is to size the buffer
to what the job needs (or let the caching allocator grow), not to what is free.
Expected verdict: top finding memory_pressure (warning: at or above 90 %, below 97 %).
Under `gpudiag run --metrics` the same: the default selection (the first launches of each
kernel, at most 100 a process) is spent in the warm-up, so no launch after the buffer is
replayed (its copy of the device memory would take ~130 GiB on an H200), and the rule judges
the program's allocation records, since NVML's figure holds the replay's copies.
Runtime on an H200: ~5 s (most of it importing torch).
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
D, H, BLOCKS, TOKENS, WARMUP, STEPS = 2048, 4096, 4, 4096, 4, 40
KEEP_FREE = 0.05  # of the device's capacity, left to the loop


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = nn.LayerNorm(D)
        self.up = nn.Linear(D, H)
        self.down = nn.Linear(H, D)

    def forward(self, x):
        return x + self.down(F.gelu(self.up(self.norm(x))))


model = nn.Sequential(*[Block() for _ in range(BLOCKS)], nn.LayerNorm(D)).cuda()
opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
gen = torch.Generator(device="cuda").manual_seed(0)
target_proj = (torch.randn(D, D, device="cuda", generator=gen) / D**0.5).bfloat16()


def step():
    x = torch.randn(TOKENS, D, device="cuda", generator=gen)
    y = torch.tanh(x.bfloat16() @ target_proj).float()
    with torch.autocast("cuda", dtype=torch.bfloat16):
        out = model(x)
    loss = F.mse_loss(out.float(), y)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    return loss


for _ in range(WARMUP):
    step()
torch.cuda.synchronize()  # everything queued done (and, under --metrics, a batch's copies freed)
free, total = torch.cuda.mem_get_info()
keep = free - int(KEEP_FREE * total)
if keep <= 0:
    raise SystemExit(f"planted_memory_pressure: only {free >> 20} MiB of {total >> 20} MiB free after warm-up")
resident = torch.empty(keep, dtype=torch.uint8, device="cuda")  # the planted problem
print(f"resident buffer {keep >> 20} MiB; {torch.cuda.mem_get_info()[0] >> 20} MiB of {total >> 20} MiB free")

for i in range(STEPS):
    loss = step()
    if i % 10 == 0:
        print(f"step {i} loss {loss.item():.4f}")  # the only sync: a log line every 10 steps
torch.cuda.synchronize()
print("planted_memory_pressure: done")
