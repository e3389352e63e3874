#!/usr/bin/env bash
# GPU tier: `gpudiag roofline` correctness and benchmark on the GPU machine (H200).
# Run from the repository root with the binary at ./build/gpudiag and OUT set:
#   OUT=/some/dir bash tests/gpu/roofline.sh
# Writes the full log to $OUT/roofline.log (plus roofline.json, roofline.svg, anchors.json),
# prints the ratio summary last, exits non-zero when a kernel's output fails its CPU-model
# check, a CUDA error occurs, or the cache/--show round trip breaks. Budget: ≈ 150 s.
set -u
OUT=${OUT:-/tmp/gpudiag-roofline-out}
mkdir -p "$OUT"
log="$OUT/roofline.log"
: >"$log"
bin=${GD:-./build/gpudiag}
here=$(dirname "$0")
fail=0
export XDG_CACHE_HOME="$OUT/cache"
rm -rf "$XDG_CACHE_HOME"

say() { echo "== $*" | tee -a "$log"; }
now() { date +%s.%N; }

say "nvidia-smi"
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm,clocks.max.mem,power.limit --format=csv >>"$log" 2>&1

say "quick run (table + chart), timed"
t0=$(now)
timeout 60 "$bin" roofline --quick --no-cache --no-color >>"$log" 2>&1
rc_quick=$?
t1=$(now)
quick_s=$(python3 -c "print(f'{$t1-$t0:.1f}')")
say "quick: exit $rc_quick in $quick_s s"
[ $rc_quick = 0 ] || fail=1

say "full run (--json, --svg, cached), timed"
t0=$(now)
timeout 150 "$bin" roofline --json --svg "$OUT/roofline.svg" >"$OUT/roofline.json" 2>>"$log"
rc_full=$?
t1=$(now)
full_s=$(python3 -c "print(f'{$t1-$t0:.1f}')")
say "full: exit $rc_full in $full_s s"
cat "$OUT/roofline.json" >>"$log"
[ $rc_full = 0 ] || fail=1
python3 -m json.tool "$OUT/roofline.json" >/dev/null 2>>"$log" || { say "FAIL: --json output is not valid JSON"; fail=1; }
grep -q "<svg" "$OUT/roofline.svg" 2>/dev/null || { say "FAIL: no SVG written"; fail=1; }

say "cache round trip: --show without the GPU"
GPUDIAG_LIBCUDA=/nonexistent GPUDIAG_LIBNVML=/nonexistent "$bin" roofline --show --no-color >>"$log" 2>&1 || { say "FAIL: --show"; fail=1; }
GPUDIAG_LIBCUDA=/nonexistent GPUDIAG_LIBNVML=/nonexistent "$bin" roofline --show --json >"$OUT/show.json" 2>>"$log"
python3 - "$OUT/roofline.json" "$OUT/show.json" >>"$log" 2>&1 <<'EOP' || { say "FAIL: cached ceilings differ from the run"; fail=1; }
import json, sys
run = json.load(open(sys.argv[1]))["ceilings"]
show = json.load(open(sys.argv[2]))["gpus"]
m = [g for g in show if g["uuid"] == run["uuid"]]
assert m, "the run's GPU is not in --show"
c = m[0]
diff = sorted(k for k in set(run) | set(c) if run.get(k) != c.get(k))
assert not diff, ("differing keys", [(k, run.get(k), c.get(k)) for k in diff])
# a figure is either a number that passed its check or null (failed / unsupported)
tests = json.load(open(sys.argv[1]))["tests"]
failed = sorted(t["name"] for t in tests if t["status"] in ("check failed", "error"))
assert sorted((c["failed_checks"] or "").split()) == failed, (c["failed_checks"], failed)
print("cache round trip ok (%d keys equal; failed: %s)" % (len(run), " ".join(failed) or "none"))
EOP
cp "$OUT/show.json" "$OUT/show-full.json" 2>/dev/null

say "partial run (--only dram) updates the cache"
"$bin" roofline --only dram --quick --no-color >>"$log" 2>&1 || { say "FAIL: --only dram"; fail=1; }
GPUDIAG_LIBCUDA=/nonexistent GPUDIAG_LIBNVML=/nonexistent "$bin" roofline --show --json >"$OUT/show-partial.json" 2>>"$log"
python3 - "$OUT/show-full.json" "$OUT/show-partial.json" >>"$log" 2>&1 <<'EOP' || { say "FAIL: --only dram did not keep the other cached figures"; fail=1; }
import json, sys
a = json.load(open(sys.argv[1]))["gpus"][0]
b = json.load(open(sys.argv[2]))["gpus"][0]
for k in ("l2_bytes_per_s", "smem_bytes_per_s", "tensor_flops", "gemm_lib_flops", "cuda_core_flops", "failed_checks"):
    assert a[k] == b[k], (k, a[k], b[k])
assert b["dram_copy_bytes_per_s"] and b["dram_copy_bytes_per_s"] > 0
print("partial run kept the other figures ok")
EOP

say "PyTorch anchors (same run)"
timeout 90 python3 "$here/roofline_bench.py" anchors "$OUT/anchors.json" >>"$log" 2>&1 || say "anchors failed (see log)"

say "summary"
if [ -s "$OUT/roofline.json" ] && [ -s "$OUT/anchors.json" ]; then
	python3 "$here/roofline_bench.py" report "$OUT/roofline.json" "$OUT/anchors.json" "$quick_s" "$full_s" | tee -a "$log"
	[ "${PIPESTATUS[0]}" = 0 ] || fail=1
elif [ -s "$OUT/roofline.json" ]; then
	python3 "$here/roofline_bench.py" report "$OUT/roofline.json" /dev/null "$quick_s" "$full_s" 2>&1 | tail -20
	fail=1
else
	tail -40 "$log"
	fail=1
fi
echo "roofline GPU tier: $([ $fail = 0 ] && echo PASS || echo FAIL) (log: $log)"
exit $fail
