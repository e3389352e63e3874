"""GPU tier, area nccl (issue 22): a DDP training job with planted communication problems, run
under `gpudiag run -- python3 -m torch.distributed.run --nproc-per-node N ddp.py ...`.

The model: 8 residual MLP blocks of 2048 -> 4096 -> 2048 (134 M parameters, FP32 master weights:
537 MB of gradients all-reduced per step), BF16 autocast, fused AdamW, a batch of 8192 tokens per
rank. One step computes about 6 x 8192 x 134 M = 6.6 TFLOP per rank (~10 ms on an H100/H200) and
all-reduces 537 MB (a few ms over NVLink), so communication is a visible part of the step.

Variants (the verdicts tests/gpu/nccl/run.sh expects):
  default            DDP's gradient bucketing (25 MB buckets): each bucket's all-reduce runs beside
                     the rest of the backward; only the last bucket is exposed.
                     Expected: communication clear (or an info note), straggler clear.
  --no-overlap       bucketing off: one bucket as large as the model, so the one all-reduce starts
                     after the whole backward and nothing runs beside it.
                     Expected: communication fired (the exposed all-reduce), straggler clear.
  --straggler R --sleep-ms M
                     rank R's host sleeps M ms before each step (a slow data loader): every other
                     rank's all-reduce waits for it.
                     Expected: straggler fired, naming rank R's GPU, lateness about M ms.
The loss is read with .item() every step (a log line), so a rank's host cannot run ahead and
hide its sleep in the launch queue. Keep NCCL_NVLS_ENABLE=0, TORCH_SYMM_MEM_DISABLE_MULTICAST=1
and NVSHMEM_DISABLE_NVLS=1 in the environment (run.sh exports them).
"""
import argparse
import os
import time

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP

p = argparse.ArgumentParser()
p.add_argument("--steps", type=int, default=30)
p.add_argument("--no-overlap", action="store_true")
p.add_argument("--straggler", type=int, default=-1)
p.add_argument("--sleep-ms", type=float, default=0.0)
a = p.parse_args()

D, H, BLOCKS, TOKENS = 2048, 4096, 8, 8192


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.up = nn.Linear(D, H)
        self.down = nn.Linear(H, D)

    def forward(self, x):
        return x + self.down(F.gelu(self.up(x)))


dist.init_process_group("nccl")
rank, local = dist.get_rank(), int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local)
torch.manual_seed(0)
model = nn.Sequential(*[Block() for _ in range(BLOCKS)]).cuda()
# bucketing off: one bucket larger than every gradient together
bucket_mb = 4096 if a.no_overlap else 25
ddp = DDP(model, device_ids=[local], bucket_cap_mb=bucket_mb)
opt = torch.optim.AdamW(ddp.parameters(), lr=1e-4, fused=True)
x = torch.randn(TOKENS, D, device="cuda")
for step in range(a.steps):
    if rank == a.straggler and a.sleep_ms > 0:
        time.sleep(a.sleep_ms / 1000.0)
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = ddp(x).float().pow(2).mean()
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
    loss.item()  # a log line each step
torch.cuda.synchronize()
world = dist.get_world_size()
dist.destroy_process_group()
if rank == 0:
    print(f"ddp.py: {a.steps} steps on {world} ranks done (bucket_cap_mb={bucket_mb}, straggler={a.straggler}, "
          f"sleep_ms={a.sleep_ms})")
