"""The cost of gpudiag's module hooks themselves (src/python/_gpudiag_torch.py), in pure Python,
without torch: the pre and post hook of one module call, nested one level under an outermost
module, with the NVTX calls replaced by C built-ins that do nothing (len, int) and
torch.compiler.is_compiling by a function of the same shape as PyTorch 2.x's (two Python
calls). What it leaves out, measured on the GPU machine instead (tests/gpu/framework/): the
slower path nn.Module.__call__ takes once any global hook exists, and the NVTX injection's own
cost per range. usage: torch_hook_cost.py [N]   prints "hooks_ns_per_call <ns>" (median of 5)."""
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "src", "python"))
import _gpudiag_torch as G  # noqa: E402


def is_scripting():
    return False


_flag = False


def is_compiling():
    if is_scripting():
        return False
    return _flag


class Module(object):
    def __init__(self):
        self._modules = {}


root, child = Module(), Module()
root._modules["layer"] = child
pre, post = G._module_hooks(Module, is_compiling, len, int)
n = int(sys.argv[1]) if len(sys.argv) > 1 else 200000
pre(root, ())
runs = []
for _ in range(5):
    t = time.perf_counter_ns()
    for _ in range(n):
        pre(child, ())
        post(child, (), None)
    runs.append((time.perf_counter_ns() - t) / n)
post(root, (), None)
base = []
for _ in range(5):  # the loop and two calls of empty functions of the same signatures
    def e1(m, a):
        return None

    def e2(m, a, o):
        return None

    t = time.perf_counter_ns()
    for _ in range(n):
        e1(child, ())
        e2(child, (), None)
    base.append((time.perf_counter_ns() - t) / n)
print("hooks_ns_per_call %.0f (two empty hooks: %.0f; python %s)" % (
    statistics.median(runs), statistics.median(base), sys.version.split()[0]))
