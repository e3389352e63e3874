#!/usr/bin/env bash
# GPU tier, area "counters" (issue 18): the GPU-metrics timeline on a real GPU.
#  1. agreement: `gpudiag run` on four kernels of known character (phases.py: a DRAM-bound
#     add, a BF16 tensor-core GEMM, an FP32 CUDA-core GEMM; chase.cu: a latency-bound pointer
#     chase); each kernel's kernel_metrics row vs ncu on the same kernels (target: within 5
#     points of % for DRAM, SM active, SM issue, tensor active). A miss fails the area.
#  2. cost (benchmark, never asserted): the PyTorch training step of the overhead benchmark,
#     interleaved rounds, process medians: plain, gpudiag run --no-counters, gpudiag run
#     (counters on), gpudiag run --light; ratios from this run.
#  3. the sampler at 50 µs (info: samples, lost).
# Needs $GD (gpudiag), $OUT; nvcc, torch and ncu on the machine (ncu missing: agreement skipped).
# The profiles it leaves in $OUT/counters are large (PM samples: ~100 MB each); delete the
# *.sqlite before bringing $OUT back, keep phases.html and phases.report.
set -u
cd "$(dirname "$0")/../../.."
W=$OUT/counters; mkdir -p "$W"
LOG=$W/counters.log; : >"$LOG"
FAILS=0
say() { echo "$*" | tee -a "$LOG"; }
nvcc -O2 -arch=sm_90 -o "$W/chase" tests/gpu/counters/chase.cu >>"$LOG" 2>&1 || { say "FAIL nvcc chase.cu"; exit 1; }
S=0.4
"$GD" run -o "$W/phases.sqlite" -- python3 tests/gpu/counters/phases.py $S >"$W/phases.out" 2>&1; say "gpudiag run phases rc $?"
"$GD" run -o "$W/chase.sqlite" -- "$W/chase" $S >"$W/chase.out" 2>&1; say "gpudiag run chase rc $?"
"$GD" run --counters-interval 50 -o "$W/chase50.sqlite" -- "$W/chase" $S >"$W/chase50.out" 2>&1; say "gpudiag run 50us rc $?"
M=dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__cycles_active.avg.pct_of_peak_sustained_elapsed,sm__inst_executed.avg.pct_of_peak_sustained_elapsed,sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active
if command -v ncu >/dev/null; then
	timeout 150 ncu --metrics $M --csv python3 tests/gpu/counters/phases.py 0.1 --once >"$W/ncu_phases.csv" 2>>"$LOG"
	timeout 60 ncu --metrics $M --csv "$W/chase" 0.1 once >"$W/ncu_chase.csv" 2>>"$LOG"
fi
python3 tests/gpu/counters/agree.py "$W" | tee -a "$LOG"; [ "${PIPESTATUS[0]}" = 0 ] || FAILS=$((FAILS + 1))
"$GD" report "$W/phases.sqlite" >"$W/phases.report" 2>&1; say "report rc $?"; sed -n '1,60p' "$W/phases.report" >>"$LOG"
"$GD" export "$W/phases.sqlite" --perfetto "$W/phases.json" >>"$LOG" 2>&1; say "export rc $?"
python3 -c "import json,sys; e=json.load(open(sys.argv[1]))['traceEvents']; print('perfetto counter events', sum(1 for x in e if x.get('ph')=='C'))" "$W/phases.json" | tee -a "$LOG"
"$GD" report "$W/phases.sqlite" --html "$W/phases.html" >>"$LOG" 2>&1; say "html rc $?"
rm -f "$W/phases.json"

# cost: interleaved rounds
if python3 -c "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)" 2>/dev/null; then
	P=tests/gpu/progs/train_step.py
	res() { sed -n 's/^RESULT //p' "$1" | tail -1 | python3 -c "import json,sys; print(json.loads(sys.stdin.read() or '{}').get('median_ms',''))"; }
	med() { printf '%s\n' "$@" | grep -E '^[0-9.]+$' | sort -g | awk '{a[NR]=$1} END {if (NR) print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
	A=() B=() C=() D=()
	for r in 1 2 3; do
		python3 $P >"$W/p$r.out" 2>&1; A+=("$(res "$W/p$r.out")")
		"$GD" run --no-counters -o "$W/n$r.sqlite" -- python3 $P >"$W/n$r.out" 2>&1; B+=("$(res "$W/n$r.out")")
		"$GD" run -o "$W/c$r.sqlite" -- python3 $P >"$W/c$r.out" 2>&1; C+=("$(res "$W/c$r.out")")
		"$GD" run --light -o "$W/l$r.sqlite" -- python3 $P >"$W/l$r.out" 2>&1; D+=("$(res "$W/l$r.out")")
		say "round $r: plain ${A[-1]} ms, --no-counters ${B[-1]}, counters ${C[-1]}, --light ${D[-1]}"
	done
	MA=$(med "${A[@]}"); MB=$(med "${B[@]}"); MC=$(med "${C[@]}"); MD=$(med "${D[@]}")
	say "cost: counters on / off (both traced) x$(python3 -c "print(round($MC/$MB,3))") (target <= 1.03); --light / plain x$(python3 -c "print(round($MD/$MA,3))") (target <= 1.03); traced / plain x$(python3 -c "print(round($MB/$MA,3))")"
	"$GD" report "$W/l1.sqlite" >"$W/light.report" 2>&1; say "light report rc $?"; sed -n '1,40p' "$W/light.report" >>"$LOG"
	rm -f "$W"/[ncl][0-9].sqlite
fi
say "counters area: $FAILS failure(s)"
exit $FAILS
