"""The residual MLP that clean_bf16_train.py and planted_memory_pressure.py train, and its
training step: blocks of LayerNorm -> Linear d->h -> GELU -> Linear h->d with a residual
connection and a final LayerNorm; fused AdamW; a synthetic regression target made in BF16 (an
FP32 matmul there would run on CUDA cores); each step on a fresh batch generated on the GPU,
autocast to BF16 (tensor cores), gradients set to None. No host copy and no synchronisation."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    def __init__(self, d, h):
        super().__init__()
        self.norm = nn.LayerNorm(d)
        self.up = nn.Linear(d, h)
        self.down = nn.Linear(h, d)

    def forward(self, x):
        return x + self.down(F.gelu(self.up(self.norm(x))))


def residual_mlp(blocks, d, h):
    """The model, on the CPU (the caller moves it)."""
    return nn.Sequential(*[Block(d, h) for _ in range(blocks)], nn.LayerNorm(d))


class Trainer:
    """Trains model (on the GPU already) on batches of tokens x d."""

    def __init__(self, model, d, tokens):
        self.model, self.d, self.tokens = model, d, tokens
        self.opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
        self.gen = torch.Generator(device="cuda").manual_seed(0)
        self.target_proj = (torch.randn(d, d, device="cuda", generator=self.gen) / d**0.5).bfloat16()

    def step(self):
        """One training step; the loss, still on the GPU."""
        x = torch.randn(self.tokens, self.d, device="cuda", generator=self.gen)
        y = torch.tanh(x.bfloat16() @ self.target_proj).float()
        with torch.autocast("cuda", dtype=torch.bfloat16):
            out = self.model(x)
        loss = F.mse_loss(out.float(), y)
        self.opt.zero_grad(set_to_none=True)
        loss.backward()
        self.opt.step()
        return loss

    def run(self, steps):
        """steps steps; the loss is read (the only synchronisation) every 10th, for a log line."""
        for i in range(steps):
            loss = self.step()
            if i % 10 == 0:
                print(f"step {i} loss {loss.item():.4f}")
