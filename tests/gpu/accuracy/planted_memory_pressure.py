"""Accuracy suite, PLANTED memory_pressure: a BF16 training loop that runs with the device's
memory 95 % full.

The loop is clean_bf16_train's (residual_mlp.py), smaller (four residual blocks, batch 4096 x
2048). After four
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
from residual_mlp import Trainer, residual_mlp

torch.manual_seed(0)
D, H, BLOCKS, TOKENS, WARMUP, STEPS = 2048, 4096, 4, 4096, 4, 40
KEEP_FREE = 0.05  # of the device's capacity, left to the loop

trainer = Trainer(residual_mlp(BLOCKS, D, H).cuda(), D, TOKENS)
for _ in range(WARMUP):
    trainer.step()
torch.cuda.synchronize()  # everything queued done (and, under --metrics, a batch's copies freed)
free, total = torch.cuda.mem_get_info()
keep = free - int(KEEP_FREE * total)
if keep <= 0:
    raise SystemExit(f"planted_memory_pressure: only {free >> 20} MiB of {total >> 20} MiB free after warm-up")
resident = torch.empty(keep, dtype=torch.uint8, device="cuda")  # the planted problem
print(f"resident buffer {keep >> 20} MiB; {torch.cuda.mem_get_info()[0] >> 20} MiB of {total >> 20} MiB free")

trainer.run(STEPS)  # the only sync: the loss read for a log line every 10 steps
torch.cuda.synchronize()
print("planted_memory_pressure: done")
