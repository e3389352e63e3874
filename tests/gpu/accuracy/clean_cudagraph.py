"""Accuracy suite, CLEAN: a CUDA-graph replay loop.

The forward pass of a 12-layer BF16 MLP (each layer: Linear 4096->4096 with bias, GELU,
residual add: 36 kernels) on a static 4096 x 4096 input is captured once in a
torch.cuda.CUDAGraph (after warm-up on a side stream, as the PyTorch documentation shows) and
replayed 500 times; one synchronisation at the end.

Why it is well written: weights are created on the GPU in BF16 (no upload, tensor cores), one
graph launch replaces 36 kernel launches, the host queues replays far ahead of the GPU, and
nothing synchronises inside the loop.
Expected verdict: none (no finding at warning or high).
Runtime on an H200: ~3-4 s (~2.5 ms per replay, 500 replays, plus importing torch).
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
D, LAYERS, REPLAYS = 4096, 12, 500
dev, dt = "cuda", torch.bfloat16
layers = nn.ModuleList(nn.Linear(D, D, device=dev, dtype=dt) for _ in range(LAYERS))
for l in layers:  # keep activations O(1) through 12 residual layers
    nn.init.normal_(l.weight, std=0.5 / D**0.5)
static_x = torch.randn(D, D, device=dev, dtype=dt)


def forward(x):
    for l in layers:
        x = x + F.gelu(l(x))
    return x


with torch.no_grad():
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):  # warm-up: cuBLAS handles, workspaces, allocator pools
            forward(static_x)
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        static_y = forward(static_x)
    for _ in range(REPLAYS):
        graph.replay()
    torch.cuda.synchronize()
print(f"clean_cudagraph: {REPLAYS} replays, |y| mean {static_y.float().abs().mean().item():.4f}")
