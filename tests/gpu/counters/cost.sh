#!/usr/bin/env bash
# Benchmark (never asserted): what gpudiag's samplers cost the PyTorch training step of the
# overhead benchmark (tests/gpu/progs/train_step.py), the issue-18 targets:
#   counters on vs off, both traced:  gpudiag run  vs  gpudiag run --no-counters   (≤ +3 %)
#   light mode vs no profiler:        gpudiag run --light  vs  the program alone      (≤ +3 %)
# plus NVML only (--light --no-counters) to split the light mode's cost.
# Design against this machine's process-to-process spread (the sixth session saw the plain
# step vary 10.9–16.4 ms between processes): ROUNDS rounds, the variants' order rotated each
# round so that no variant always runs first or last; each process times STEPS steps after
# its warm-up and reports the median step. The ratio of two variants is the median over
# rounds of the per-round ratio (paired: both processes ran minutes apart at most), printed
# with every round's value so the spread is visible beside the effect.
# usage: GD=path/to/gpudiag OUT=dir [ROUNDS=6] [STEPS=100] tests/gpu/counters/cost.sh
set -u
cd "$(dirname "$0")/../../.."
W=$OUT/cost; mkdir -p "$W"
P=tests/gpu/progs/train_step.py
R=${ROUNDS:-6}
S=${STEPS:-100}
res() { sed -n 's/^RESULT //p' "$1" | tail -1 | python3 -c "import json,sys; print(json.loads(sys.stdin.read() or '{}').get('median_ms',''))"; }
names=(plain light light_nvml traced traced_counters)
run_variant() { # name round
	case $1 in
	plain) python3 $P --steps "$S" ;;
	light) "$GD" run --light -o "$W/$1.$2.sqlite" -- python3 $P --steps "$S" ;;
	light_nvml) "$GD" run --light --no-counters -o "$W/$1.$2.sqlite" -- python3 $P --steps "$S" ;;
	traced) "$GD" run --no-counters -o "$W/$1.$2.sqlite" -- python3 $P --steps "$S" ;;
	traced_counters) "$GD" run -o "$W/$1.$2.sqlite" -- python3 $P --steps "$S" ;;
	esac >"$W/o" 2>&1
	echo "$1 $2 $(res "$W/o")" >>"$W/steps.txt"
	rm -f "$W/$1.$2.sqlite"
}
: >"$W/steps.txt"
for r in $(seq 1 "$R"); do
	n=${#names[@]}
	for i in $(seq 0 $((n - 1))); do run_variant "${names[$(( (i + r) % n ))]}" "$r"; done
done
python3 - "$W/steps.txt" <<'PY'
import collections, statistics, sys
v = collections.defaultdict(dict)
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) == 3 and f[2]:
        v[f[0]][int(f[1])] = float(f[2])
def ratio(a, b):
    rs = [v[a][r] / v[b][r] for r in sorted(v[a]) if r in v[b]]
    return (statistics.median(rs), rs) if rs else (float("nan"), [])
for n in ["plain", "light", "light_nvml", "traced", "traced_counters"]:
    xs = [v[n][r] for r in sorted(v[n])]
    print(f"cost {n}: median step {statistics.median(xs):.2f} ms over {len(xs)} processes "
          f"(rounds: {' '.join(f'{x:.2f}' for x in xs)})" if xs else f"cost {n}: no result")
for a, b, what in [("traced_counters", "traced", "counters on vs off (both traced), target <= 1.03"),
                   ("light", "plain", "--light vs the program alone, target <= 1.03"),
                   ("light_nvml", "plain", "NVML only vs the program alone"),
                   ("traced", "plain", "the trace vs the program alone")]:
    m, rs = ratio(a, b)
    print(f"cost ratio {a}/{b}: x{m:.3f} ({what}; per round: {' '.join(f'{x:.3f}' for x in rs)})")
PY
