"""Accuracy suite, CLEAN: a Hugging Face GPT-2 (4 layers, 768 wide, 12 heads, the GPT-2
vocabulary padded to 50304 = 786 x 64 tokens, random weights from a config: nothing is
downloaded) trained for 12 steps on random token ids.

Batch 16 x 1024 tokens generated on the GPU, BF16 autocast, the model's own causal-LM loss
(labels = inputs), fused AdamW, gradients set to None; model.cuda() once before the loop.

Why it is well written: the data never leaves the GPU, nothing synchronises inside the loop
(the loss is printed once, after the last step), the work per step (an LM head of 16 K tokens x
50 K vocabulary, attention through PyTorch SDPA) keeps the GPU ahead of the host, and the
vocabulary is padded to a multiple of 64 as GPT-2 training recipes do, so every GEMM dimension
is 16-byte aligned.
Expected verdict: none (no finding at warning or high).

PLANTED with --vocab 50257 (planted_gpt2_vocab in the manifest; judged with kernel counters,
run.sh --metrics): GPT-2's own vocabulary, which no power of two divides. The LM head's GEMMs
then have a dimension of 50257 elements; cuBLAS can only use kernels for unaligned operands
(align1: one 2-byte element per load), whose global loads use a fraction of every sector.
Expected verdict with --metrics: uncoalesced, on those GEMMs.
Runtime on an H200: ~8-12 s (importing transformers dominates; ~20 ms per step).
"""
import argparse
import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import torch
import transformers

ap = argparse.ArgumentParser()
ap.add_argument("--vocab", type=int, default=50304, help="vocabulary size (GPT-2's own: 50257)")
args = ap.parse_args()

torch.manual_seed(0)
BATCH, SEQ, STEPS = 16, 1024, 12
config = transformers.GPT2Config(n_layer=4, n_embd=768, n_head=12, n_positions=SEQ, vocab_size=args.vocab)
model = transformers.GPT2LMHeadModel(config)
model.config.use_cache = False
model.train()
model.cuda()  # one upload before the loop
opt = torch.optim.AdamW(model.parameters(), lr=3e-4, fused=True)
gen = torch.Generator(device="cuda").manual_seed(0)

for step in range(STEPS):
    ids = torch.randint(0, config.vocab_size, (BATCH, SEQ), device="cuda", generator=gen)
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = model(input_ids=ids, labels=ids).loss
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
print(f"clean_gpt2_train: {STEPS} steps, vocabulary {args.vocab}, last loss {loss.item():.3f}")
