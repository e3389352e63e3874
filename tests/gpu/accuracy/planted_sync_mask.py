"""Accuracy suite, PLANTED sync_in_loop: multi-task training whose loss uses boolean-mask
indexing to skip missing labels.

A BF16 MLP trunk (1024 -> 2048 -> 2048, GELU) with three regression heads (2048 -> 1024 each)
trained on a batch of 8192 rows, 200 steps, fused AdamW. Each task has its own mask of present
labels (about 10 % missing); the loss of task t is mse(pred_t[valid_t], y_t[valid_t]).
Boolean-mask indexing must know how many elements are selected before it can allocate its
output, so each selection copies a count to the host and synchronises
(cudaStreamSynchronize): six times per step the host waits for the queue to drain, and the GPU
then waits for the host to launch again.
Planted: host synchronisations inside every step, with enough GPU work per step (~1.7 ms of
large GEMMs and elementwise kernels, none of them tiny) that the host is blocked in each.
(The fix: a masked loss without selection, ((pred - y) ** 2 * valid).sum() / valid.sum().)
Expected verdict: top finding sync_in_loop.
Runtime on an H200: ~3-4 s (~2 ms per step plus importing torch).
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
ROWS, DIN, HID, DOUT, TASKS, STEPS = 8192, 1024, 2048, 1024, 3, 200
with torch.device("cuda"):
    trunk = nn.Sequential(nn.Linear(DIN, HID), nn.GELU(), nn.Linear(HID, HID), nn.GELU())
    heads = nn.ModuleList(nn.Linear(HID, DOUT) for _ in range(TASKS))
params = list(trunk.parameters()) + list(heads.parameters())
opt = torch.optim.AdamW(params, lr=1e-4, fused=True)
gen = torch.Generator(device="cuda").manual_seed(0)
x = torch.randn(ROWS, DIN, device="cuda", generator=gen)
ys = [torch.randn(ROWS, DOUT, device="cuda", generator=gen) for _ in range(TASKS)]
valid = [torch.rand(ROWS, DOUT, device="cuda", generator=gen) > 0.1 for _ in range(TASKS)]

for step in range(STEPS):
    with torch.autocast("cuda", dtype=torch.bfloat16):
        h = trunk(x)
        preds = [head(h) for head in heads]
    loss = 0.0
    for pred, y, ok in zip(preds, ys, valid):
        loss = loss + F.mse_loss(pred[ok].float(), y[ok])  # two boolean-mask selections: two syncs
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
print(f"planted_sync_mask: {STEPS} steps, loss {loss.item():.4f}")
