#!/bin/bash
# CPU-tier tests of the PyTorch view's capture side (issue 21, docs/framework.md):
#  * `gpudiag run --torch MODE` / `--no-torch`: parsing, errors, and the environment the
#    program gets (GPUDIAG_TORCH, PYTHONPATH), through a program that prints it;
#  * the Python instrumentation (src/python/, as the build copied it beside the binary) on the
#    stand-in torch of tests/cli/torchstub/: the exact NVTX messages of the contract, balanced
#    push/pop when forward raises, the op ranges and a program's own profiler, the chained
#    sitecustomize, no output, a program without torch unaffected.
# No GPU: the injection library is a stand-in too (the mock driver, loaded but never used by
# programs that make no CUDA call), so the same checks run in a build without the toolkit.
# usage: torch_instr.sh <gpudiag binary> <build dir>; exit 77 (skipped) without python3.
set -u
command -v python3 >/dev/null || { echo "python3 is not installed: skipped"; exit 77; }
source "$(dirname "$0")/lib.sh" "$@"
G=$(realpath "$GD")
B=$(realpath "$BUILD")
SRC=$(pwd)
STUB=$SRC/tests/cli/torchstub
PROG=$SRC/tests/cli/torch_instr_prog.py
export GPUDIAG_LIBCUDA=/nonexistent GPUDIAG_LIBNVML=/nonexistent NO_COLOR=1
export GPUDIAG_INJECT=$B/libgpudiag_mock_cuda.so
unset GPUDIAG_TORCH GPUDIAG_TORCH_DEBUG GPUDIAG_PYTHON PYTHONPATH PYTHONSTARTUP PYTHONNOUSERSITE
export PYTHONDONTWRITEBYTECODE=1 # nothing written into the build or source tree
check() { # name expected actual
	if [ "$2" = "$3" ]; then ok; else bad "$1: expected '$2', got '$3'"; fi
}

# ---- where the folder is found
P=$("$G" -V | sed -n 's/^python instrumentation: //p')
check "-V names the build's python folder" "$B/python" "$P"
check "the folder holds sitecustomize.py" yes "$([ -f "$P/sitecustomize.py" ] && [ -f "$P/_gpudiag_torch.py" ] && echo yes)"
mkdir "$T/py2" && touch "$T/py2/sitecustomize.py"
check "GPUDIAG_PYTHON names another folder" "python instrumentation: $(realpath "$T/py2")" \
	"$(GPUDIAG_PYTHON=$T/py2 "$G" -V | grep '^python instrumentation')"
GPUDIAG_PYTHON=$STUB "$G" -V >"$T/v"
check "GPUDIAG_PYTHON without sitecustomize.py: not found" \
	"python instrumentation: not found (GPUDIAG_PYTHON=$STUB)" "$(grep '^python instrumentation' "$T/v")"

# ---- options
expect_rc 2 "$G" run --torch bogus -- true
expect_err "run: --torch must be off, modules or ops, not 'bogus'"
expect_one_line_err
expect_rc 2 "$G" run --torch -- true
expect_err "run: --torch must be off, modules or ops, not '--'"
expect_rc 2 "$G" run --no-torch --torch ops -- true
expect_err "run: --no-torch and --torch ops contradict each other"
expect_rc 2 "$G" run --light --torch modules -- true
expect_err "run: --torch modules records NVTX ranges, which --light does not record"
expect_rc 2 "$G" run --no-nvtx --torch=ops -- true
expect_err "run: --torch ops records NVTX ranges, which --no-nvtx does not record"
expect_rc 2 "$G" run --no-torch=1 -- true
expect_rc 0 "$G" run --light --torch off --no-torch -o "$T/x.sqlite" -- true
expect_rc 2 "$G" run --python-stack --torch off -- true
expect_err "run: --python-stack needs the module ranges: use it with --torch modules or ops, not --torch off"
expect_one_line_err
expect_rc 2 "$G" run --no-torch --python-stack=2 -- true
expect_err "run: --python-stack needs the module ranges: use it with --torch modules or ops, not --no-torch"
expect_rc 2 "$G" run --python-stack --light -- true
expect_err "run: --python-stack records NVTX marks, which --light does not record"
expect_rc 2 "$G" run --no-nvtx --python-stack -- true
expect_err "run: --python-stack records NVTX marks, which --no-nvtx does not record"
for v in 0 1001 -2 x 3.5 01x; do
	expect_rc 2 "$G" run --python-stack="$v" -- true
	expect_err "run: --python-stack must be a whole number of calls from 1 to 1000, not '$v'"
done
expect_rc 2 "$G" run --python-stack= -- true
expect_err "run: --python-stack needs a value (N), not an empty string"
expect_rc 2 "$G" run --python-stack 5 -- true
expect_err "run: write --python-stack=5 (with '='): after a bare --python-stack, '5' would be the program to run"
"$G" help run >"$T/help"
grep -q -- '--torch MODE  ' "$T/help" && grep -q -- '--no-torch  ' "$T/help" && ok || bad "help run lacks --torch/--no-torch"
grep -q -- '--python-stack\[=N\]  ' "$T/help" && ok || bad "help run lacks --python-stack"

# ---- the environment the program gets: "T=<GPUDIAG_TORCH> P=<PYTHONPATH> D=<GPUDIAG_TORCH_DEBUG>"
ENVP='echo "T=${GPUDIAG_TORCH-unset} P=${PYTHONPATH-unset} D=${GPUDIAG_TORCH_DEBUG-unset}"'
envof() { # [VAR=value...] -- gpudiag run options...
	local pre=()
	while [ "$1" != "--" ]; do pre+=("$1"); shift; done
	shift
	env "${pre[@]}" "$G" run -o "$T/e.sqlite" "$@" -- sh -c "$ENVP" 2>"$T/err"
}
meta() { python3 -c 'import sqlite3,sys; r=sqlite3.connect(sys.argv[1]).execute("select value from meta where key=?",(sys.argv[2],)).fetchone(); print(r[0] if r else "absent")' "$T/e.sqlite" "$1"; }
check "default: off (its cost not yet measured), nothing set" "T=unset P=unset D=unset" "$(envof -- )"
check "default: meta torch_view off" off "$(meta torch_view)"
check "--torch modules: the folder alone" "T=modules P=$P D=unset" "$(envof -- --torch modules)"
check "--torch modules: no warning" "" "$(grep 'gpudiag: warning' "$T/err" | grep -v 'nothing was traced\|will be replaced')"
check "meta torch_view modules" modules "$(meta torch_view)"
check "an existing PYTHONPATH follows" "T=modules P=$P:/a:/b D=unset" "$(envof PYTHONPATH=/a:/b -- --torch modules)"
check "an empty PYTHONPATH: the folder alone" "T=modules P=$P D=unset" "$(envof PYTHONPATH= -- --torch modules)"
check "--torch ops" "T=ops P=$P:/a D=1" "$(envof PYTHONPATH=/a GPUDIAG_TORCH_DEBUG=1 -- --torch ops)"
check "meta torch_view ops" ops "$(meta torch_view)"
check "--torch=modules" "T=modules P=$P D=unset" "$(envof -- --torch=modules)"
ENVP='echo "T=${GPUDIAG_TORCH-unset} S=${GPUDIAG_PYTHON_STACK-unset}"'
check "--python-stack: modules, 3 calls" "T=modules S=3" "$(envof -- --python-stack)"
check "meta torch_python_stack 3" 3 "$(meta torch_python_stack)"
check "--python-stack=7 --torch ops" "T=ops S=7" "$(envof -- --python-stack=7 --torch ops)"
check "--torch modules alone: no GPUDIAG_PYTHON_STACK, an inherited one removed" "T=modules S=unset" "$(envof GPUDIAG_PYTHON_STACK=4 -- --torch modules)"
check "meta torch_python_stack 0" 0 "$(meta torch_python_stack)"
check "--python-stack, no injection library: nothing set" "T=unset S=unset" "$(envof GPUDIAG_INJECT=/nonexistent/lib.so -- --python-stack)"
check "--python-stack, no injection library: meta 0" 0 "$(meta torch_python_stack)"
ENVP='echo "T=${GPUDIAG_TORCH-unset} P=${PYTHONPATH-unset} D=${GPUDIAG_TORCH_DEBUG-unset}"'
check "--torch off: nothing set, an inherited GPUDIAG_TORCH removed" "T=unset P=/a D=unset" \
	"$(envof PYTHONPATH=/a GPUDIAG_TORCH=ops -- --torch off)"
check "meta torch_view off" off "$(meta torch_view)"
check "--no-torch" "T=unset P=unset D=unset" "$(envof GPUDIAG_TORCH=modules -- --no-torch)"
check "--light: nothing set" "T=unset P=/a D=unset" "$(envof PYTHONPATH=/a -- --light)"
check "--no-nvtx: nothing set" "T=unset P=unset D=unset" "$(envof -- --no-nvtx)"
check "no injection library: nothing set" "T=unset P=unset D=unset" "$(envof GPUDIAG_INJECT=/nonexistent/lib.so -- --torch modules)"
check "no injection library: meta torch_view off" off "$(meta torch_view)"
check "no python folder: nothing set" "T=unset P=/a D=unset" "$(envof GPUDIAG_PYTHON=/nonexistent PYTHONPATH=/a -- --torch modules)"
check "no python folder: said" 1 "$(grep -c "run: gpudiag's Python folder was not found (GPUDIAG_PYTHON=/nonexistent); PyTorch programs record no modules or ops" "$T/err")"

# ---- the instrumentation on the stand-in torch. Expected: the contract's messages, worked
# out by hand from torch_instr_prog.py's modules
cat >"$T/modules.want" <<'EOF'
-- import
-- CUDA initialised
T0 mark gpudiag.torch:2.99.0+stub:modules
-- first call
T0 push gpudiag.module:Model:
T0 push gpudiag.module:Block:b0
T0 push gpudiag.module:Linear:b0.fc
T0 pop
T0 push gpudiag.module:Act:b0.act
T0 pop
T0 push gpudiag.module:Linear:b0.shared
T0 pop
T0 pop
T0 push gpudiag.module:Block:b1
T0 push gpudiag.module:Linear:b1.fc
T0 pop
T0 push gpudiag.module:Act:b1.act
T0 pop
T0 push gpudiag.module:Linear:b1.shared
T0 pop
T0 pop
T0 push gpudiag.module:Act:(Act)
T0 pop
T0 push gpudiag.module:Linear:b1.fc
T0 pop
T0 pop
-- second call, with a module added
T0 push gpudiag.module:Model:
T0 push gpudiag.module:Block:b0
T0 push gpudiag.module:Linear:b0.fc
T0 pop
T0 push gpudiag.module:Act:b0.act
T0 pop
T0 push gpudiag.module:Linear:b0.shared
T0 pop
T0 pop
T0 push gpudiag.module:Block:b1
T0 push gpudiag.module:Linear:b1.fc
T0 pop
T0 push gpudiag.module:Act:b1.act
T0 pop
T0 push gpudiag.module:Linear:b1.shared
T0 pop
T0 pop
T0 push gpudiag.module:Act:(Act)
T0 pop
T0 push gpudiag.module:Linear:b1.fc
T0 pop
T0 push gpudiag.module:Linear:extra
T0 pop
T0 pop
-- an exception inside forward
T0 push gpudiag.module:Wrap:
T0 push gpudiag.module:Boom:inner
T0 pop
T0 pop
-- a block called alone on another thread
T1 push gpudiag.module:Block:
T1 push gpudiag.module:Linear:fc
T1 pop
T1 push gpudiag.module:Act:act
T1 pop
T1 push gpudiag.module:Linear:shared
T1 pop
T1 pop
-- while Dynamo traces
-- a module called alone
T0 push gpudiag.module:Linear:
T0 pop
results [27, 28, 'ValueError: boom 3', 5, 28, 6]
EOF
PYTHONPATH=$P:$STUB GPUDIAG_TORCH=modules python3 "$PROG" modules >"$T/out" 2>"$T/err"
check "modules: exit 0" 0 $?
diff "$T/modules.want" "$T/out" >"$T/diff" && ok || bad "modules: the ranges differ from the contract's: $(head -20 "$T/diff")"
check "modules: no output on stderr" "" "$(cat "$T/err")"
# the same program through gpudiag run (its environment, its sitecustomize)
PYTHONPATH=$STUB "$G" run --torch modules -o "$T/r.sqlite" -- python3 "$PROG" modules >"$T/out" 2>"$T/err"
check "modules under gpudiag run: exit 0" 0 $?
diff "$T/modules.want" "$T/out" >"$T/diff" && ok || bad "modules under gpudiag run: $(head -10 "$T/diff")"
# the results are the program's own: the same without the instrumentation
PYTHONPATH=$STUB python3 "$PROG" modules >"$T/plain" 2>&1
check "modules: results as without gpudiag" "$(grep '^results' "$T/plain")" "$(grep '^results' "$T/out")"

cat >"$T/ops.want" <<'EOF'
-- import
-- CUDA initialised
T0 mark gpudiag.torch:2.99.0+stub:ops
calls [('enable', 'NVTX', False)] flag True
op ranges True
-- an op
T0 push aten::add, seq = 1, op_id = 1
T0 pop
op ranges under the program's own profiler False
op ranges after it True flag True
-- the program's profiler
T0 push aten::sub, seq = 2, op_id = 2
T0 pop
calls [('enable', 'NVTX', False), ('disable', 'NVTX'), ('enable', 'KINETO', False), ('disable', 'KINETO'), ('enable', 'NVTX', False), ('enable', 'KINETO', False), ('disable', 'KINETO')]
disable -> result of NVTX
calls [('disable', 'NVTX'), ('enable', 'NVTX', True), ('disable', 'NVTX'), ('enable', 'NVTX', False)] op ranges True
-- after the program's own NVTX profiler, and a module
T0 push aten::div, seq = 3, op_id = 3
T0 pop
T0 push gpudiag.module:Linear:
T0 pop
EOF
PYTHONPATH=$P:$STUB GPUDIAG_TORCH=ops python3 "$PROG" ops >"$T/out" 2>"$T/err"
check "ops: exit 0" 0 $?
diff "$T/ops.want" "$T/out" >"$T/diff" && ok || bad "ops: $(head -20 "$T/diff")"
check "ops: no output on stderr" "" "$(cat "$T/err")"

# ---- --python-stack: the source marks of the first N calls of each module (docs/framework.md).
# The lines are those of torch_instr_prog.py marked "# SRC-<name>"; the function is co_qualname
# (Python >= 3.11) or co_name
L() { grep -n "# SRC-$1\$" "$PROG" | cut -d: -f1; }
if python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then QF=Stacked.forward QO=Outer.forward; else QF=forward QO=forward; fi
S="gpudiag.src"
cat >"$T/stack.want" <<EOF
-- import
-- CUDA initialised
T0 mark gpudiag.torch:2.99.0+stub:modules
-- two calls, both sampled (act's second call site in the first)
T0 push gpudiag.module:Stacked:
T0 mark $S:$(L top):stack:$PROG
T0 push gpudiag.module:Outer:outer
T0 mark $S:$(L outer):$QF:$PROG
T0 push gpudiag.module:Linear:outer.inner
T0 mark $S:$(L inner):$QO:$PROG
T0 pop
T0 pop
T0 push gpudiag.module:Act:act
T0 mark $S:$(L act1):$QF:$PROG
T0 pop
T0 push gpudiag.module:Act:act
T0 mark $S:$(L act2):$QF:$PROG
T0 pop
T0 pop
T0 push gpudiag.module:Stacked:
T0 mark $S:$(L top):stack:$PROG
T0 push gpudiag.module:Outer:outer
T0 mark $S:$(L outer):$QF:$PROG
T0 push gpudiag.module:Linear:outer.inner
T0 mark $S:$(L inner):$QO:$PROG
T0 pop
T0 pop
T0 push gpudiag.module:Act:act
T0 pop
T0 push gpudiag.module:Act:act
T0 pop
T0 pop
-- a third call: none
T0 push gpudiag.module:Stacked:
T0 push gpudiag.module:Outer:outer
T0 push gpudiag.module:Linear:outer.inner
T0 pop
T0 pop
T0 push gpudiag.module:Act:act
T0 pop
T0 push gpudiag.module:Act:act
T0 pop
T0 pop
-- while Dynamo traces: nothing, no sample used
-- called from the standard library (heapq): the line that called it
T0 push gpudiag.module:Linear:
T0 mark $S:$(L heapq):stack:$PROG
T0 pop
-- a thread's target: only the standard library's frames, no mark
T1 push gpudiag.module:Act:
T1 pop
sampled [('gpudiag.module:Act:', 1), ('gpudiag.module:Act:act', 2), ('gpudiag.module:Linear:', 1), ('gpudiag.module:Linear:outer.inner', 2), ('gpudiag.module:Outer:outer', 2), ('gpudiag.module:Stacked:', 2)]
results [4, 8, 12, 2, [5]]
EOF
[ -n "$(L top)" ] && [ -n "$(L heapq)" ] && ok || bad "stack: the SRC- lines of torch_instr_prog.py"
PYTHONPATH=$P:$STUB GPUDIAG_TORCH=modules GPUDIAG_PYTHON_STACK=2 python3 "$PROG" stack >"$T/out" 2>"$T/err"
check "stack: exit 0" 0 $?
diff "$T/stack.want" "$T/out" >"$T/diff" && ok || bad "stack: the marks differ: $(head -20 "$T/diff")"
check "stack: no output on stderr" "" "$(cat "$T/err")"
# through gpudiag run: a bare --python-stack is 3 and turns the module ranges on
PYTHONPATH=$STUB "$G" run --python-stack -o "$T/r.sqlite" -- python3 "$PROG" stack >"$T/out" 2>"$T/err"
check "stack under gpudiag run: exit 0" 0 $?
# act's 3 samples: both sites of the first call, the first site of the second; the others' third
# sample is in the third call
check "stack under gpudiag run: N = 3, the third call samples the modules but act" 3 "$(sed -n '/^-- a third call/,/^-- while/p' "$T/out" | grep -c "^T0 mark $S:")"
check "stack under gpudiag run: act's samples" "$(L act1) $(L act2) $(L act1)" \
	"$(grep -A1 'push gpudiag.module:Act:act' "$T/out" | grep "mark $S:" | cut -d: -f2 | paste -sd' ')"
# without it, or with GPUDIAG_PYTHON_STACK inherited from outside: no marks
PYTHONPATH=$STUB GPUDIAG_PYTHON_STACK=2 "$G" run --torch modules -o "$T/r.sqlite" -- python3 "$PROG" stack >"$T/out" 2>"$T/err"
check "no --python-stack: no source marks (GPUDIAG_PYTHON_STACK never inherited)" 0 "$(grep -c "mark $S:" "$T/out")"
for bad_n in 0 1001 -1 x 2x ""; do
	check "GPUDIAG_PYTHON_STACK='$bad_n': no marks" 0 "$(PYTHONPATH=$P:$STUB GPUDIAG_TORCH=modules GPUDIAG_PYTHON_STACK=$bad_n python3 "$PROG" stack 2>&1 | grep -c "mark $S:")"
done
# a source lookup that raises: the hooks swallow it, the ranges stay balanced, the count bounded
BOOM='import sys; sys.path.insert(0, sys.argv[1])
import _gpudiag_torch as G
log = []
class M(object):
    _modules = {}
def boom(mod, frame):
    raise RuntimeError("no")
pre, post = G._module_hooks(M, lambda: False, lambda m: log.append(("push", m)), lambda: log.append(("pop",)), lambda m: log.append(("mark", m)), 2, boom)
m = M()
for i in range(3):
    pre(m, ()); post(m, (), None)
print(log, pre.sampled)'
check "a failing source lookup: swallowed" "[('push', 'gpudiag.module:M:'), ('pop',), ('push', 'gpudiag.module:M:'), ('pop',), ('push', 'gpudiag.module:M:'), ('pop',)] {'gpudiag.module:M:': 2}" \
	"$(python3 -c "$BOOM" "$P" 2>&1)"

# never a CUDA context at import: no torch.cuda.synchronize() (which emit_nvtx calls); a torch
# whose ProfilerConfig has another shape gets emit_nvtx itself, still without synchronising
check "ops: no synchronize at import" "[]" "$(PYTHONPATH=$P:$STUB GPUDIAG_TORCH=ops python3 -c 'import torch; print(torch.cuda.synchronized)' 2>&1)"
check "ops through emit_nvtx: op ranges on, no synchronize" "[('enable', 'NVTX', False)] [] True True gpudiag.torch:2.99.0+stub:ops" \
	"$(PYTHONPATH=$P:$STUB TORCHSTUB_NEW_CONFIG=1 GPUDIAG_TORCH=ops python3 -c 'import torch, torch.autograd.profiler as P; torch.cuda._lazy_init(); print(torch.autograd.calls, torch.cuda.synchronized, P._is_profiler_enabled, torch.ops_call("aten::x"), torch._C._nvtx.log[0][1])' 2>&1)"

# the name cache holds weak references: models made and dropped leave nothing behind
GROW='import gc, torch
from torch import nn
class L(nn.Module):
    def forward(self, x): return x
class R(nn.Module):
    def __init__(s): super().__init__(); s.l = L()
    def forward(s, x): return s.l(x)
for i in range(500): R()(1)
gc.collect()
import _gpudiag_torch as G
print(len(G._state["pre"].__closure__[[c for c in G._state["pre"].__code__.co_freevars].index("cache")].cell_contents), len(torch._C._nvtx.log))'
check "name cache: empty once the models are gone" "0 2000" "$(PYTHONPATH=$P:$STUB GPUDIAG_TORCH=modules python3 -c "$GROW" 2>&1)"

# the mark waits for CUDA (nothing records NVTX before cuInit), and comes once
check "no mark before CUDA is initialised, one after" "0 1 1" \
	"$(PYTHONPATH=$P:$STUB GPUDIAG_TORCH=modules python3 -c 'import torch; n = len(torch._C._nvtx.log); torch.cuda._lazy_init(); m = len(torch._C._nvtx.log); torch.cuda._lazy_init(); print(n, m, len(torch._C._nvtx.log))' 2>&1)"

# off, an unknown mode: torch untouched
STATE='import sys, torch; torch.cuda._lazy_init(); from torch.nn.modules import module as M; print(len(torch._C._nvtx.log), len(M._global_forward_pre_hooks), len(M._global_forward_hooks), torch.autograd.calls, "_gpudiag_torch" in sys.modules)'
check "GPUDIAG_TORCH=off: nothing" "0 0 0 [] False" "$(PYTHONPATH=$P:$STUB GPUDIAG_TORCH=off python3 -c "$STATE" 2>&1)"
check "GPUDIAG_TORCH unset: nothing" "0 0 0 [] False" "$(PYTHONPATH=$P:$STUB python3 -c "$STATE" 2>&1)"
check "GPUDIAG_TORCH=bogus: nothing, silently" "0 0 0 [] False" "$(PYTHONPATH=$P:$STUB GPUDIAG_TORCH=bogus python3 -c "$STATE" 2>&1)"
check "GPUDIAG_TORCH=modules: hooks, a mark" "1 1 1 [] True" "$(PYTHONPATH=$P:$STUB GPUDIAG_TORCH=modules python3 -c "$STATE" 2>&1)"
# a torch without NVTX (a build without CUDA): nothing installed, said only when debugging
check "torch without NVTX: nothing" "0 0 [] False" \
	"$(PYTHONPATH=$P:$STUB TORCHSTUB_NO_NVTX=1 GPUDIAG_TORCH=ops python3 -c 'import torch; from torch.nn.modules import module as M; print(len(M._global_forward_pre_hooks), len(M._global_forward_hooks), torch.autograd.calls, hasattr(torch._C, "_nvtx"))' 2>&1)"
PYTHONPATH=$P:$STUB TORCHSTUB_NO_NVTX=1 GPUDIAG_TORCH=ops GPUDIAG_TORCH_DEBUG=1 python3 -c 'import torch' 2>"$T/err"
check "torch without NVTX: said when debugging" 1 "$(grep -c '^gpudiag.torch: torch 2.99.0+stub has no NVTX binding' "$T/err")"
# a torch older than 2.1 (no always_call): no module ranges (they could not be kept balanced); ops still
check "no always_call: ops only" "[('mark', 'gpudiag.torch:2.99.0+stub:ops')] 0" \
	"$(PYTHONPATH=$P:$STUB TORCHSTUB_NO_ALWAYS_CALL=1 GPUDIAG_TORCH=ops python3 -c 'import torch; from torch.nn.modules import module as M; torch.cuda._lazy_init(); print([e[:2] for e in torch._C._nvtx.log], len(M._global_forward_pre_hooks))' 2>&1)"
PYTHONPATH=$P:$STUB GPUDIAG_TORCH=modules GPUDIAG_TORCH_DEBUG=1 python3 -c 'import torch' 2>"$T/err"
check "debug: says what was installed" "gpudiag.torch: waiting for torch (mode modules)|gpudiag.torch: installed: modules (torch 2.99.0+stub)" "$(paste -sd'|' "$T/err")"

# an import of torch that fails fails as it would without gpudiag, and again on a retry
BROKEN='import sys
for i in range(2):
    try:
        import torch
    except ImportError as e:
        print(type(e).__name__, e)
print("torch" in sys.modules)'
check "a broken torch: the program's own error" "ImportError torchstub: broken on purpose|ImportError torchstub: broken on purpose|False" \
	"$(PYTHONPATH=$P:$STUB TORCHSTUB_BROKEN=1 GPUDIAG_TORCH=ops python3 -c "$BROKEN" 2>&1 | paste -sd'|')"
# an exception from forward that the program does not catch: its message and exit code as without gpudiag
UNCAUGHT='import torch
class Boom(torch.nn.Module):
    def forward(self, x):
        raise ValueError("boom %d" % x)
Boom()(7)'
PYTHONPATH=$STUB python3 -c "$UNCAUGHT" 2>"$T/plain_err"; rc0=$?
PYTHONPATH=$P:$STUB GPUDIAG_TORCH=ops python3 -c "$UNCAUGHT" 2>"$T/err"; rc1=$?
check "uncaught exception in forward: exit code" "$rc0" "$rc1"
check "uncaught exception in forward: message" "ValueError: boom 7" "$(tail -1 "$T/err")"

# ---- a program that does not use torch: only sitecustomize (and importlib.machinery) more
MODS='import sys; print(" ".join(sorted(sys.modules)))'
python3 -c "$MODS" | tr ' ' '\n' >"$T/m0"
PYTHONPATH=$P GPUDIAG_TORCH=ops python3 -c "$MODS" | tr ' ' '\n' >"$T/m1"
check "no torch: modules imported in addition" "importlib.machinery sitecustomize" "$(comm -13 "$T/m0" "$T/m1" | paste -sd' ')"
check "no torch: none fewer" "" "$(comm -23 "$T/m0" "$T/m1" | paste -sd' ')"
python3 -c 'import sys; print("hello", sys.argv[1:]); sys.exit(3)' a b >"$T/o0" 2>"$T/e0"; rc0=$?
PYTHONPATH=$P GPUDIAG_TORCH=ops python3 -c 'import sys; print("hello", sys.argv[1:]); sys.exit(3)' a b >"$T/o1" 2>"$T/e1"; rc1=$?
check "no torch: exit code kept" "3 3" "$rc0 $rc1"
check "no torch: output unchanged" "$(cat "$T/o0")|$(cat "$T/e0")" "$(cat "$T/o1")|$(cat "$T/e1")"

# ---- the sitecustomize gpudiag's hides still runs
mkdir -p "$T/u1" "$T/u2" "$T/u3"
printf 'import os\nos.environ["USER_SC"] = "ran"\nMARK = "user"\n' >"$T/u1/sitecustomize.py"
printf 'raise RuntimeError("user sitecustomize fails")\n' >"$T/u2/sitecustomize.py"
printf 'import torch\n' >"$T/u3/sitecustomize.py"
check "chained: the user's sitecustomize ran, and is the module named so" "ran user" \
	"$(PYTHONPATH=$P:$T/u1 GPUDIAG_TORCH=modules python3 -c 'import os, sitecustomize; print(os.environ.get("USER_SC"), sitecustomize.MARK)' 2>&1)"
PYTHONPATH=$T/u2 python3 -c 'print("body")' >"$T/o0" 2>"$T/e0"; rc0=$?
PYTHONPATH=$P:$T/u2 GPUDIAG_TORCH=modules python3 -c 'print("body")' >"$T/o1" 2>"$T/e1"; rc1=$?
check "chained, failing: exit code as without gpudiag" "$rc0" "$rc1"
check "chained, failing: stdout as without gpudiag" "$(cat "$T/o0")" "$(cat "$T/o1")"
check "chained, failing: site's own message, as without gpudiag" "$(cat "$T/e0")" "$(cat "$T/e1")"
grep -q "Error in sitecustomize" "$T/e1" && ok || bad "chained, failing: site.py's message missing: $(cat "$T/e1")"
check "chained, failing: torch still instrumented" "gpudiag.torch:2.99.0+stub:modules" \
	"$(PYTHONPATH=$P:$T/u2:$STUB GPUDIAG_TORCH=modules python3 -c 'import torch; torch.cuda._lazy_init(); print(torch._C._nvtx.log[0][1])' 2>/dev/null)"
check "chained: a sitecustomize that imports torch gets it instrumented" "gpudiag.torch:2.99.0+stub:ops" \
	"$(PYTHONPATH=$P:$T/u3:$STUB GPUDIAG_TORCH=ops python3 -c 'import torch; torch.cuda._lazy_init(); print(torch._C._nvtx.log[0][1])' 2>&1)"

# ---- what the hooks cost in Python (information; the GPU tier measures the whole)
python3 "$SRC/tests/cli/torch_hook_cost.py" 100000 || bad "torch_hook_cost.py failed"
finish
