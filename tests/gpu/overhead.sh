#!/bin/bash
# Benchmark (not a test): what each tracing configuration of `gpudiag run` costs on a PyTorch
# transformer training step (tests/gpu/progs/train_step.py), configurations interleaved in
# ROUNDS rounds, each figure the median step time of one process, the median over rounds
# reported with its ratio to the plain run of the same rounds. Also checks that every
# configuration's profile links its kernels to their launch calls as expected.
#   OUT=/dir [ROUNDS=2] [BUILD=build] bash tests/gpu/overhead.sh
# Configurations: the CFG table below (name|environment of the injection library|gpudiag run
# options), overridable with CFG=...; the knobs are documented in docs/profiling.md.
set -u
OUT=${OUT:-/tmp/gpudiag-overhead}
mkdir -p "$OUT"
ROUNDS=${ROUNDS:-2}
G=$(realpath "${GD:-./${BUILD:-build}/gpudiag}")
P="tests/gpu/progs/train_step.py --steps ${STEPS:-60}"
# every configuration on the same CPUs (process-to-process spread otherwise dominates)
PIN=${PIN:-taskset -c 2-5}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
LOG="$OUT/overhead.log"
exec 3>&1 >"$LOG" 2>&1
echo "== gpudiag tracing overhead matrix, $(date -u +%FT%TZ)"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw --format=csv,noheader || true
# name|environment|gpudiag run options ("-" = run without gpudiag)
CFG=${CFG:-"plain||-
none||--api none
subset-activity|GPUDIAG_API_VIA=activity|
subset-callback|GPUDIAG_API_VIA=callback|
launch-callback|GPUDIAG_API_VIA=callback GPUDIAG_API_LIST=cudaLaunchKernel,cuLaunchKernel|
subset-nosync|GPUDIAG_KINDS=kernel,memcpy,memset,memory,overhead|
drvlaunch-callback|GPUDIAG_API_VIA=callback GPUDIAG_API_LIST=cuLaunch|"}
CONFIGS=$(printf '%s\n' "$CFG" | cut -d'|' -f1)
declare -A T
res() { sed -n 's/^RESULT //p' "$1" | tail -1 | python3 -c "import json,sys; print(json.load(sys.stdin)['median_ms'])" 2>/dev/null; }
runcfg() {
	local c=$1 r=$2 o="$W/$1.$2.out" line env opts
	line=$(printf '%s\n' "$CFG" | grep "^$c|")
	env=$(echo "$line" | cut -d'|' -f2)
	opts=$(echo "$line" | cut -d'|' -f3)
	if [ "$opts" = "-" ]; then
		$PIN env $env python3 $P >"$o" 2>&1
	else
		$PIN env $env "$G" run $opts -o "$W/$c.$r.sqlite" -- python3 $P >"$o" 2>&1
	fi
	T[$c]="${T[$c]:-} $(res "$o")"
	echo "round $r $c: $(res "$o") ms"
}
for r in $(seq 1 "$ROUNDS"); do
	for c in $CONFIGS; do runcfg "$c" "$r"; done
done
med() { printf '%s\n' $@ | grep -E '^[0-9.]+$' | sort -g | awk '{a[NR]=$1} END {if (NR) print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
q() { python3 -c 'import sqlite3, sys
for r in sqlite3.connect(sys.argv[1]).execute(sys.argv[2]): print("|".join("" if v is None else str(v) for v in r))' "$1" "$2" 2>&1; }
MP=$(med ${T[plain]})
{
	echo "== step time, median of $ROUNDS process medians (ratio to plain)"
	for c in $CONFIGS; do
		m=$(med ${T[$c]})
		[ -n "$m" ] && [ -n "$MP" ] && printf '%-18s %8s ms  x%s\n' "$c" "$m" "$(awk "BEGIN{printf \"%.3f\", $m/$MP}")"
	done
	echo "== records in round 1's profiles: kernels | api | kernels with a launch call (same pid+correlation) | distinct api names"
	for c in $CONFIGS; do
		f="$W/$c.1.sqlite"
		[ -f "$f" ] || continue
		printf '%-18s %s\n' "$c" "$(q "$f" "select (select count(*) from kernels), (select count(*) from api), (select count(*) from kernels k where exists (select 1 from api a where a.pid=k.pid and a.correlation=k.correlation)), (select count(distinct name) from api)")"
	done
	echo "== api names in subset-callback vs subset-activity (round 1)"
	for c in subset-activity subset-callback; do
		[ -f "$W/$c.1.sqlite" ] && { echo "-- $c"; q "$W/$c.1.sqlite" "select name_str, domain, count(*), printf('%.2f', avg(end-start)/1e3) from api_v group by name, domain order by 3 desc limit 12"; }
	done
} | tee -a "$LOG" >&3
