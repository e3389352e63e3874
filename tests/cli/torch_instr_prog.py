"""The program tests/cli/torch_instr.sh runs under gpudiag's sitecustomize with the stand-in torch
(tests/cli/torchstub/). usage: torch_instr_prog.py modules|ops|stack
Prints what the instrumentation did, one event a line ("T0 push MSG", "T1 pop", "T0 mark MSG";
T0 = the main thread, T1 = another), then the program's own results, so the test compares the
whole output with a hand-written expectation."""
import heapq
import sys
import threading

import torch
from torch import nn

log = torch._C._nvtx.log
main = threading.get_ident()


def dump(title):
    print("--", title)
    for e in log:
        who = "T0" if e[-1] == main else "T1"
        print(who, e[0], *e[1:-1])
    del log[:]


class Linear(nn.Module):
    def forward(self, x):
        return x + 1


class Act(nn.Module):
    def forward(self, x):
        return x * 2


class Block(nn.Module):
    def __init__(self, shared):
        super().__init__()
        self.fc = Linear()
        self.act = Act()
        self.shared = shared  # the same module under two parents

    def forward(self, x):
        return self.shared(self.act(self.fc(x)))


class Boom(nn.Module):
    def forward(self, x):
        raise ValueError("boom %d" % x)


class Wrap(nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = Boom()

    def forward(self, x):
        return self.inner(x)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        shared = Linear()
        self.b0 = Block(shared)
        self.b1 = Block(shared)
        self.loose = [Act()]  # a plain list: registered nowhere

    def forward(self, x):
        x = self.b1(self.b0(x))
        x = self.loose[0](x)
        x = self.b1.fc(x)  # a grandchild called from the outermost module
        if "extra" in self._modules:
            x = self.extra(x)
        return x


class Outer(nn.Module):
    """A __call__ of its own that calls nn.Module.__call__ (as transformers'
    GradientCheckpointingLayer does): not the line that called the module."""

    def __init__(self):
        super().__init__()
        self.inner = Linear()

    def __call__(self, *args):
        return super().__call__(*args)

    def forward(self, x):
        return self.inner(x)  # SRC-inner


class Stacked(nn.Module):
    def __init__(self):
        super().__init__()
        self.outer = Outer()
        self.act = Act()

    def forward(self, x):
        x = self.outer(x)  # SRC-outer
        x = self.act(x)  # SRC-act1
        return self.act(x)  # SRC-act2


def cuda_init():
    dump("import")
    torch.cuda._lazy_init()  # the program's first CUDA use: the mark comes now
    dump("CUDA initialised")


def modules():
    cuda_init()
    m = Model()
    out = [m(1)]
    dump("first call")
    m.extra = Linear()  # a module made after the first call
    out.append(m(1))
    dump("second call, with a module added")
    try:
        Wrap()(3)
    except ValueError as e:
        out.append("ValueError: %s" % e)
    dump("an exception inside forward")
    t = threading.Thread(target=lambda: out.append(m.b0(1)))
    t.start()
    t.join()
    dump("a block called alone on another thread")
    torch.compiler._compiling[0] = True
    out.append(m(1))
    torch.compiler._compiling[0] = False
    dump("while Dynamo traces")
    out.append(Linear()(5))
    dump("a module called alone")
    print("results", out)


def ops():
    import torch.autograd.profiler as P

    cuda_init()
    print("calls", torch.autograd.calls, "flag", P._is_profiler_enabled)
    print("op ranges", torch.ops_call("aten::add"))
    dump("an op")
    with P.profile():
        print("op ranges under the program's own profiler", torch.ops_call("aten::mul"))
    print("op ranges after it", torch.ops_call("aten::sub"), "flag", P._is_profiler_enabled)
    dump("the program's profiler")

    def other():
        with P.profile():
            pass

    t = threading.Thread(target=other)
    t.start()
    t.join()
    print("calls", torch.autograd.calls)
    del torch.autograd.calls[:]
    cfg = torch.autograd.ProfilerConfig(torch.autograd.ProfilerState.NVTX, True, False, False, False, False,
                                        torch.autograd._ExperimentalConfig())
    torch.autograd._enable_profiler(cfg, set())  # the program's own emit_nvtx-like use
    print("disable ->", torch.autograd._disable_profiler())
    print("calls", torch.autograd.calls, "op ranges", torch.ops_call("aten::div"))
    Linear()(1)
    dump("after the program's own NVTX profiler, and a module")


def stack():
    """Under GPUDIAG_PYTHON_STACK=2: the source marks of the first 2 calls of each module."""
    import _gpudiag_torch as G

    cuda_init()
    m = Stacked()
    out = []
    for i in range(2):
        out.append(m(i))  # SRC-top
    dump("two calls, both sampled (act's second call site in the first)")
    out.append(m(2))
    dump("a third call: none")
    torch.compiler._compiling[0] = True
    out.append(Act()(1))
    torch.compiler._compiling[0] = False
    dump("while Dynamo traces: nothing, no sample used")
    out.append(heapq.nsmallest(1, [5], key=Linear()))  # SRC-heapq
    dump("called from the standard library (heapq): the line that called it")
    t = threading.Thread(target=Act(), args=(3,))
    t.start()
    t.join()
    dump("a thread's target: only the standard library's frames, no mark")
    print("sampled", sorted(G._state["pre"].sampled.items()))
    print("results", out)


if __name__ == "__main__":
    {"modules": modules, "ops": ops, "stack": stack}[sys.argv[1]]()
