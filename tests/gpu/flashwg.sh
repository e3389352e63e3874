#!/usr/bin/env bash
# GPU tier, `lab attention` "flash wgmma": builds tests/gpu/flash_sweep.cu (the kernel source
# the lab uses, src/kernels/lab_attention_wgmma.cuh, in every configuration) and runs it:
# FP64 CPU / FP32 GPU reference checks, poisoned outputs, timing L 1024…16384. Needs nvcc and
# a compute-capability-9.0 GPU (elsewhere it says so and exits 0). Full log: $OUT/flashwg.log;
# the summary table comes last. Exit 1 on a failed check, 2 when the sweep's watchdog fired.
#   OUT=/tmp/out bash tests/gpu/flashwg.sh [--quick]
set -u
cd "$(dirname "$0")/../.."
OUT=${OUT:-$PWD/gpu-tier-out}
BUILD=${BUILD:-build}
mkdir -p "$OUT" "$BUILD"
log="$OUT/flashwg.log"
cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1)
if [ "$cc" != "9.0" ]; then
  echo "flashwg: compute capability '${cc:-unknown}', not 9.0: the wgmma kernel does not apply here" | tee "$log"
  exit 0
fi
echo "== build" > "$log"
if ! nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -Xptxas -v -o "$BUILD/flash_sweep" \
     tests/gpu/flash_sweep.cu >> "$log" 2>&1; then
  echo "flashwg: build failed (see $log)"; tail -20 "$log"; exit 1
fi
echo "== run $BUILD/flash_sweep $*" >> "$log"
"$BUILD/flash_sweep" "$@" >> "$log" 2>&1
rc=$?
grep -E "FAIL|WATCHDOG" "$log" | head -20
sed -n '/^== summary/,$p' "$log"
echo "flashwg: exit $rc (log $log)"
exit $rc
