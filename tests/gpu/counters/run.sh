#!/usr/bin/env bash
# GPU tier, area "counters" (issue 18): the GPU-metrics timeline on a real GPU.
#  1. agreement: `gpudiag run` on four kernels of known character (phases.py: a DRAM-bound
#     add, a BF16 tensor-core GEMM, an FP32 CUDA-core GEMM; chase.cu: a latency-bound pointer
#     chase); each kernel's kernel_metrics row vs ncu on the same kernels (target: within 5
#     points of % for DRAM, SM active, SM issue, tensor active). A miss fails the area.
#  2. light mode (--light: no trace, NVML + PM samples): gpu_idle fired on the planted idle
#     program, clear on a clean training loop (a miss fails the area).
#  3. the HTML pages and Perfetto exports of the demo and of a PyTorch step (for screenshots;
#     small), with their counter-track counts.
#  4. cost (benchmark, never asserted): tests/gpu/counters/cost.sh.
#  5. the sampler at 50 µs (info: samples, lost).
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
# which quantities this GPU gave in the one pass (the pass-aware name choice: PCIe and free
# warp slots through later names before anything is dropped), and their ranges
python3 - "$W/phases.sqlite" <<'PY' | tee -a "$LOG"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
meta = dict(db.execute("select key, value from meta where key like 'counters%'"))
print("meta", {k: meta[k] for k in sorted(meta)})
cols = [r[1] for r in db.execute("pragma table_info(gpu_metrics)")][3:]
for c in cols:
    n, lo, hi, avg = db.execute(f"select count({c}), min({c}), max({c}), avg({c}) from gpu_metrics").fetchone()
    print(f"gpu_metrics.{c}: {n} non-null" + (f", min {lo:.4g} max {hi:.4g} mean {avg:.4g}" if n else ""))
PY
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

# light mode's idle verdict, from PM samples alone (no trace): the planted idle program must
# get gpu_idle fired, a clean training loop must not (checked; a miss fails the area)
for prog in planted_gpu_idle clean_bf16_train; do
	"$GD" run --light -o "$W/light_$prog.sqlite" -- python3 tests/gpu/accuracy/$prog.py >"$W/light_$prog.out" 2>&1
	say "gpudiag run --light $prog rc $?"
	"$GD" report "$W/light_$prog.sqlite" --json >"$W/light_$prog.json" 2>>"$LOG"
	st=$(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); f=[x for x in d['findings'] if x['id']=='gpu_idle'][0]; print(f['state'], f.get('basis'), '|', f['headline'])" "$W/light_$prog.json" 2>&1)
	say "light $prog gpu_idle: $st"
	case $prog:$st in planted*:fired*|clean*:clear*) ;; *) say "FAIL light-mode gpu_idle on $prog"; FAILS=$((FAILS + 1)) ;; esac
	rm -f "$W/light_$prog.sqlite" "$W/light_$prog.json"
done

# pages for the screenshots (small: HTML bins the tracks): the demo and a PyTorch step
"$GD" run -o "$W/demo.sqlite" >"$W/demo.out" 2>&1; say "gpudiag run (demo) rc $?"
"$GD" report "$W/demo.sqlite" --html "$W/demo.html" >>"$LOG" 2>&1; say "demo html rc $?"
"$GD" export "$W/demo.sqlite" --perfetto "$W/demo.perfetto.json" >>"$LOG" 2>&1; say "demo export rc $?"
"$GD" run -o "$W/step.sqlite" -- python3 tests/gpu/progs/train_step.py --steps 10 >"$W/step.out" 2>&1; say "gpudiag run train_step rc $?"
"$GD" report "$W/step.sqlite" --html "$W/step.html" >>"$LOG" 2>&1; say "step html rc $?"
"$GD" report "$W/step.sqlite" >"$W/step.report" 2>&1
"$GD" export "$W/step.sqlite" --perfetto "$W/step.perfetto.json" >>"$LOG" 2>&1; say "step export rc $?"
python3 -c "
import json,sys
for f in sys.argv[1:]:
    e=json.load(open(f))['traceEvents']
    c=[x for x in e if x.get('ph')=='C']
    print(f.split('/')[-1], 'events', len(e), 'counter events', len(c), 'counter tracks', sorted({x['name'] for x in c})[:12])
" "$W/demo.perfetto.json" "$W/step.perfetto.json" | tee -a "$LOG"
ls -la "$W"/*.html "$W"/*.perfetto.json | tee -a "$LOG"
rm -f "$W/demo.sqlite" "$W/step.sqlite"

# cost (benchmark): tests/gpu/counters/cost.sh, the issue's two targets
if python3 -c "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)" 2>/dev/null; then
	ROUNDS=${ROUNDS:-5} bash tests/gpu/counters/cost.sh 2>&1 | tee -a "$LOG"
fi
say "counters area: $FAILS failure(s)"
exit $FAILS
