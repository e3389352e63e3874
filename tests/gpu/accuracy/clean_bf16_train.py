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
from residual_mlp import Trainer, residual_mlp

torch.manual_seed(0)
D, H, BLOCKS, TOKENS, STEPS = 2048, 4096, 6, 8192, 40

model = residual_mlp(BLOCKS, D, H)
model.cuda()  # one upload of every parameter, before the loop
trainer = Trainer(model, D, TOKENS)

trainer.run(STEPS)  # the only sync: the loss read for a log line every 10 steps
torch.cuda.synchronize()
print("clean_bf16_train: done")
