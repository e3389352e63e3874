#!/usr/bin/env bash
# The GPU tier: one command runs every area's GPU checks and benchmarks on a machine with an
# NVIDIA GPU, writing full logs under $OUT (default: ./gpu-tier-out) and a summary last.
#
#   tests/gpu/run.sh [area ...]        areas: the tests/gpu/<area>.sh scripts and the
#                                      tests/gpu/<area>/run.sh suites, e.g. accuracy (default: all)
#
# The build directory (default ./build, or $BUILD) must hold a build of this tree; on a
# machine without the SQLite headers, build elsewhere and copy the build directory
# (docs/gpu-tier.md). Exit status: non-zero when any area failed its correctness checks.
set -u
cd "$(dirname "$0")/../.."
export BUILD=${BUILD:-build}
export OUT=${OUT:-$PWD/gpu-tier-out}
mkdir -p "$OUT"
export GD="$PWD/$BUILD/gpudiag"
[ -x "$GD" ] || { echo "gpu tier: no gpudiag binary at $GD (build first)" >&2; exit 2; }

areas=("$@")
if [ ${#areas[@]} -eq 0 ]; then
  for f in tests/gpu/*.sh; do
    n=$(basename "$f" .sh)
    [ "$n" = run ] || areas+=("$n")
  done
  for f in tests/gpu/*/run.sh; do
    [ -f "$f" ] && areas+=("$(basename "$(dirname "$f")")")
  done
fi

{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,power.limit --format=csv,noheader 2>&1
  echo "nvcc: $(nvcc --version 2>/dev/null | tail -1)"
} | tee "$OUT/environment.txt"

declare -A result
failed=0
for a in "${areas[@]}"; do
  s=tests/gpu/$a.sh
  [ -f "$s" ] || s=tests/gpu/$a/run.sh
  [ -f "$s" ] || { echo "gpu tier: no area '$a'" >&2; failed=1; continue; }
  echo "=== $a"
  start=$(date +%s)
  # each area is bounded so one hang cannot eat the whole run (AREA_TIMEOUT seconds; the
  # accuracy suite runs 20 programs of up to 120 s each (240 s with --metrics), so it gets
  # 900 s unless told)
  lim=${AREA_TIMEOUT:-400}
  case $a in accuracy | accuracy_light | accuracy_metrics) lim=${AREA_TIMEOUT:-900} ;; esac
  timeout --kill-after=10 "$lim" bash "$s" >"$OUT/$a.stdout" 2>&1
  rc=$?
  if [ $rc -eq 0 ]; then result[$a]="ok"; elif [ $rc -eq 124 ] || [ $rc -eq 137 ]; then result[$a]="TIMED OUT"; failed=1;
  else result[$a]="FAILED (exit $rc)"; failed=1; fi
  result[$a]="${result[$a]} ($(( $(date +%s) - start )) s)"
  tail -n 25 "$OUT/$a.stdout"
done
echo
echo "GPU tier summary"
for a in "${areas[@]}"; do printf '  %-12s %s\n' "$a" "${result[$a]:-missing}"; done
exit $failed
