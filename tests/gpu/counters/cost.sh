#!/usr/bin/env bash
# Benchmark (never asserted): what the GPU-metrics sampler costs the PyTorch training step of
# the overhead benchmark. ROUNDS interleaved rounds of: plain; --light --no-counters (NVML
# only, no trace); --light (counters every 100 µs); --light --counters-interval 1000; process
# medians of the step's median, ratios against plain from the same rounds.
# usage: GD=path/to/gpudiag OUT=dir [ROUNDS=5] tests/gpu/counters/cost.sh
set -u
cd "$(dirname "$0")/../../.."
W=$OUT/cost; mkdir -p "$W"
P=tests/gpu/progs/train_step.py
R=${ROUNDS:-5}
res() { sed -n 's/^RESULT //p' "$1" | tail -1 | python3 -c "import json,sys; print(json.loads(sys.stdin.read() or '{}').get('median_ms',''))"; }
med() { printf '%s\n' "$@" | grep -E '^[0-9.]+$' | sort -g | awk '{a[NR]=$1} END {if (NR) print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
declare -A V
names=(plain nvml_only counters_100us counters_1000us)
for r in $(seq 1 "$R"); do
	python3 $P >"$W/o" 2>&1; V[plain]+=" $(res "$W/o")"
	"$GD" run --light --no-counters -o "$W/a.sqlite" -- python3 $P >"$W/o" 2>&1; V[nvml_only]+=" $(res "$W/o")"
	"$GD" run --light -o "$W/b.sqlite" -- python3 $P >"$W/o" 2>&1; V[counters_100us]+=" $(res "$W/o")"
	"$GD" run --light --counters-interval 1000 -o "$W/c.sqlite" -- python3 $P >"$W/o" 2>&1; V[counters_1000us]+=" $(res "$W/o")"
	rm -f "$W"/*.sqlite
done
MP=$(med ${V[plain]})
for n in "${names[@]}"; do
	m=$(med ${V[$n]})
	echo "cost $n: median step $m ms (rounds:${V[$n]}), x$(python3 -c "print(round($m / $MP, 3))") vs plain"
done
