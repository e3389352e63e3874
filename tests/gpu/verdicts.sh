#!/usr/bin/env bash
# GPU tier for the verdicts (issue 9). Run from the repo root on the H200 with the binary at
# ./build/gpudiag; OUT must be set. Budget: 120 s.
#
# One small CUDA program per rule (tests/gpu/verdicts_progs.cu) plants one problem; each is
# profiled with `gpudiag run` and the planted rule must be the top finding. The clean cuBLAS
# BF16 GEMM loop must raise no warning. Then the embedded demo (`gpudiag run` with no
# command) and, when PyTorch is present, a small training step (verdict recorded, not
# asserted). Profiles, reports and JSON go to $OUT/verdicts/; the full log to
# $OUT/verdicts.log; a summary table is printed last. Exit status: non-zero if a planted
# problem was not the top finding or the clean loop warned.
set -u
: "${OUT:?set OUT}"
G=${GD:-${GPUDIAG:-./build/gpudiag}}
D=$OUT/verdicts
mkdir -p "$D"
LOG=$OUT/verdicts.log
: >"$LOG"
exec 3>&1 >>"$LOG" 2>&1
fail=0
rows=()
say() { echo "$*"; echo "$*" >&3; }
command -v nvcc >/dev/null || export PATH=/usr/local/cuda/bin:$PATH
date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader || true
"$G" --version

t0=$(date +%s)
if ! nvcc -O2 -arch=sm_90 tests/gpu/verdicts_progs.cu -lcublas -o "$D/progs"; then
	say "FAIL: cannot build tests/gpu/verdicts_progs.cu"
	exit 1
fi
echo "built in $(($(date +%s) - t0)) s"

top_of() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(d['verdict']['top'])" "$1"; }
fired_of() {
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(' '.join(f['id']+':'+f['severity'] for f in d['findings'] if f['state']=='fired'))" "$1"
}

# mode → rule that must rank first ("None" = no warning)
for pair in clean:None idle:gpu_idle launch:launch_bound sync:sync_in_loop pageable:pageable_memory \
	default_stream:default_stream occupancy:low_occupancy membound:memory_bound tensor:tensor_cores_unused \
	memory:memory_pressure oom:memory_pressure none:profiler_limits; do
	mode=${pair%%:*} want=${pair#*:}
	echo "=== $mode (want $want)"
	s=$(date +%s.%N)
	# eager module loading: a lazy first-launch module load would add an idle gap that is
	# not the planted problem
	CUDA_MODULE_LOADING=EAGER timeout 60 "$G" run -o "$D/$mode.sqlite" -- "$D/progs" "$mode" >"$D/$mode.run.txt" 2>&1
	rc=$?
	cat "$D/$mode.run.txt"
	"$G" report "$D/$mode.sqlite" --json >"$D/$mode.json" 2>>"$LOG"
	"$G" report "$D/$mode.sqlite" --no-color >"$D/$mode.txt" 2>>"$LOG"
	got=$(top_of "$D/$mode.json" 2>/dev/null || echo "(no report)")
	fired=$(fired_of "$D/$mode.json" 2>/dev/null)
	el=$(python3 -c "print(f'{$(date +%s.%N) - $s:.1f}')")
	res=PASS
	[ "$got" = "$want" ] || { res=FAIL; fail=1; }
	echo "$mode: run exit $rc, top $got, fired: $fired ($el s)"
	rows+=("$(printf '%-15s %-20s %-20s %-5s %s' "$mode" "$want" "$got" "$res" "$fired")")
done

# the embedded demo: gpudiag run with no command
echo "=== demo"
timeout 60 "$G" run --no-color -o "$D/demo.sqlite" >"$D/demo.txt" 2>&1
cat "$D/demo.txt"
"$G" report "$D/demo.sqlite" --json >"$D/demo.json"
"$G" report "$D/demo.sqlite" --html "$D/demo.html" >/dev/null
got=$(top_of "$D/demo.json" 2>/dev/null || echo "(no report)")
fired=$(fired_of "$D/demo.json" 2>/dev/null)
res=PASS
case " $fired " in *" pageable_memory:"*) ;; *) res=FAIL ;; esac
case " $fired " in *" launch_bound:"*|*" gpu_idle:"*) ;; *) res=FAIL ;; esac
case "$got" in pageable_memory|default_stream|launch_bound|sync_in_loop|gpu_idle) ;; *) res=FAIL ;; esac
[ $res = PASS ] || fail=1
rows+=("$(printf '%-15s %-20s %-20s %-5s %s' demo "planted mistakes" "$got" "$res" "$fired")")

# a PyTorch training step: the verdict is recorded, not asserted
if python3 -c "import torch; assert torch.cuda.is_available()" 2>/dev/null; then
	cat >"$D/step.py" <<'PY'
import torch, torch.nn as nn
m = nn.Sequential(*[nn.Sequential(nn.Linear(2048, 2048), nn.GELU(), nn.LayerNorm(2048)) for _ in range(8)]).cuda()
opt = torch.optim.AdamW(m.parameters(), lr=1e-4)
x = torch.randn(4096, 2048, device="cuda")
for i in range(30):
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = m(x).float().pow(2).mean()
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    print(i, loss.item())  # a sync per step, as many training loops do
PY
	echo "=== pytorch"
	timeout 90 "$G" run -o "$D/pytorch.sqlite" -- python3 "$D/step.py" >"$D/pytorch.run.txt" 2>&1
	cat "$D/pytorch.run.txt"
	"$G" report "$D/pytorch.sqlite" --json >"$D/pytorch.json" && "$G" report "$D/pytorch.sqlite" --html "$D/pytorch.html" >/dev/null
	rows+=("$(printf '%-15s %-20s %-20s %-5s %s' pytorch "(recorded)" "$(top_of "$D/pytorch.json" 2>/dev/null)" "-" "$(fired_of "$D/pytorch.json" 2>/dev/null)")")
else
	rows+=("$(printf '%-15s %-20s %-20s %-5s %s' pytorch "(skipped)" "-" "-" "PyTorch with CUDA not available")")
fi

echo "total $(($(date +%s) - t0)) s"
{
	echo
	echo "verdicts GPU tier ($(($(date +%s) - t0)) s; full log $LOG, profiles and reports in $D)"
	printf '%-15s %-20s %-20s %-5s %s\n' program "expected top" "got top" result "fired (id:severity)"
	for r in "${rows[@]}"; do echo "$r"; done
} | tee -a "$LOG" >&3
exit $fail
