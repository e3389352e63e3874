"""Accuracy suite, CLEAN: training steps of a causal self-attention block through
F.scaled_dot_product_attention (FlashAttention kernels) in BF16.

Batch 8 x 2048 tokens x 2048 wide, 16 heads of 128; QKV projection, causal SDPA, output
projection, residual; forward + backward + fused AdamW, 40 steps. Parameters are created
directly on the GPU (no upload), the input is generated there.

Why it is well written: attention runs in the fused flash kernels (no L x L matrix in memory),
the GEMMs run in BF16 on tensor cores, nothing is copied or synchronised inside the loop (one
.item() after the last step).
Expected verdict: none (no finding at warning or high).
Runtime on an H200: ~3-5 s (~5 ms per step plus importing torch).
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
B, L, D, HEADS, STEPS = 8, 2048, 2048, 16, 40


class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = nn.LayerNorm(D)
        self.qkv = nn.Linear(D, 3 * D)
        self.proj = nn.Linear(D, D)

    def forward(self, x):
        q, k, v = self.qkv(self.norm(x)).view(B, L, 3, HEADS, D // HEADS).permute(2, 0, 3, 1, 4)
        o = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return x + self.proj(o.transpose(1, 2).reshape(B, L, D))


with torch.device("cuda"):
    model = Attention()
opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
x = torch.randn(B, L, D, device="cuda")

for step in range(STEPS):
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = model(x).float().pow(2).mean()
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
print(f"clean_sdpa_attention: {STEPS} steps, loss {loss.item():.4f}")
