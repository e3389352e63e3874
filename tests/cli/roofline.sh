#!/usr/bin/env bash
# CPU-tier CLI tests of `gpudiag roofline` (no GPU needed: the driver and NVML are pointed
# at missing files). Args: <gpudiag binary> <build dir>.
set -u
bin=$1
fails=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export GPUDIAG_LIBCUDA=/nonexistent GPUDIAG_LIBNVML=/nonexistent XDG_CACHE_HOME="$tmp/cache"
unset NO_COLOR

check() { # description, condition-result
	if [ "$2" = 0 ]; then echo "ok   $1"; else echo "FAIL $1"; fails=$((fails + 1)); fi
}

# measuring needs a GPU: exit 3, one line naming the problem
"$bin" roofline >"$tmp/out" 2>"$tmp/err"; rc=$?
check "no GPU: exit 3" $([ $rc = 3 ] && echo 0 || echo 1)
check "no GPU: message names the driver" $(grep -q "roofline: no NVIDIA driver" "$tmp/err" && echo 0 || echo 1)
check "no GPU: one line" $([ "$(wc -l <"$tmp/err")" = 1 ] && echo 0 || echo 1)
"$bin" roofline --quick --json >"$tmp/out" 2>/dev/null; rc=$?
check "no GPU --quick --json: exit 3" $([ $rc = 3 ] && echo 0 || echo 1)

# bad input: exit 2
"$bin" roofline --only dram,bogus >/dev/null 2>"$tmp/err"; rc=$?
check "--only bogus: exit 2" $([ $rc = 2 ] && echo 0 || echo 1)
check "--only bogus: names the group" $(grep -q "unknown group 'bogus'" "$tmp/err" && echo 0 || echo 1)
"$bin" roofline --reps 3 >/dev/null 2>&1; rc=$?
check "--reps 3: exit 2" $([ $rc = 2 ] && echo 0 || echo 1)
"$bin" roofline --frobnicate >/dev/null 2>&1; rc=$?
check "unknown option: exit 2" $([ $rc = 2 ] && echo 0 || echo 1)
"$bin" help roofline >"$tmp/out" 2>&1; rc=$?
check "help roofline" $([ $rc = 0 ] && grep -q "copy counts read + write" "$tmp/out" && echo 0 || echo 1)

# --show without a cache: exit 5 and a sentence saying what to do
"$bin" roofline --show >"$tmp/out" 2>"$tmp/err"; rc=$?
check "--show, empty cache: exit 5" $([ $rc = 5 ] && echo 0 || echo 1)
check "--show, empty cache: says to measure first" $(grep -q "no cached ceilings" "$tmp/err" && echo 0 || echo 1)

# --show with a cache written the way gd_ceilings_save writes it
mkdir -p "$tmp/cache/gpudiag"
cat >"$tmp/cache/gpudiag/roofline-GPU-12345678-aaaa-bbbb-cccc-0123456789ab.txt" <<'EOT'
# gpudiag measured ceilings
format 1
uuid GPU-12345678-aaaa-bbbb-cccc-0123456789ab
gpu_name NVIDIA H200
driver 580.159.04
measured_at 1764680000
sm_clock_mhz 1980
dram_read 3.9e12
dram_write 4.6e12
dram_copy 4.25e12
l2 11e12
smem nan
l1 nan
sfu 4e12
failed wgmma_fp8
cuda_core.FP32 64e12
tensor.BF16 850e12
tensor.FP8 1.7e15
gemm_lib.BF16 7.7e14
EOT
"$bin" roofline --show --no-color >"$tmp/out" 2>"$tmp/err"; rc=$?
check "--show with cache: exit 0" $([ $rc = 0 ] && echo 0 || echo 1)
check "--show: GPU name and driver" $(grep -q "NVIDIA H200.*580.159.04" "$tmp/out" && echo 0 || echo 1)
check "--show: DRAM copy 4.25 TB/s" $(grep -q "DRAM copy (read+write).*4.25 TB/s" "$tmp/out" && echo 0 || echo 1)
check "--show: not measured shown as such" $(grep -q "shared memory.*not measured" "$tmp/out" && echo 0 || echo 1)
check "--show: ridge of BF16 tensor = 850/4.25 = 200" $(grep -q "BF16 tensor.*ridge 200 FLOP/B" "$tmp/out" && echo 0 || echo 1)
check "--show: chart drawn" $(grep -q "arithmetic intensity" "$tmp/out" && echo 0 || echo 1)
check "--show: names the test that failed in that run" $(grep -q "failed in that run.*wgmma_fp8" "$tmp/out" && echo 0 || echo 1)

"$bin" roofline --show --json >"$tmp/show.json" 2>"$tmp/err"; rc=$?
check "--show --json: exit 0" $([ $rc = 0 ] && echo 0 || echo 1)
check "--show --json: valid JSON" $(python3 -m json.tool "$tmp/show.json" >/dev/null 2>&1 && echo 0 || echo 1)
check "--show --json: values and nulls" $(python3 - "$tmp/show.json" <<'EOP' && echo 0 || echo 1
import json, sys
d = json.load(open(sys.argv[1]))
g = d["gpus"][0]
assert g["uuid"] == "GPU-12345678-aaaa-bbbb-cccc-0123456789ab"
assert g["dram_copy_bytes_per_s"] == 4.25e12
assert g["smem_bytes_per_s"] is None
assert g["tensor_flops"]["BF16"] == 850e12 and g["tensor_flops"]["FP64"] is None
assert g["ridge_dram"] == "copy"
assert g["failed_checks"] == "wgmma_fp8", g["failed_checks"]
r = {x["ceiling"]: x["flop_per_byte"] for x in g["ridge_points"]}
assert abs(r["FP8 tensor"] - 400) < 1e-9, r
assert abs(r["FP32 FMA"] / (64e12 / 4.25e12) - 1) < 1e-5, r
EOP
)
"$bin" roofline --show --svg "$tmp/r.svg" >/dev/null 2>&1; rc=$?
check "--show --svg: exit 0 and an SVG" $([ $rc = 0 ] && grep -q "<svg" "$tmp/r.svg" && grep -q "BF16 tensor" "$tmp/r.svg" && echo 0 || echo 1)

# a corrupt cache file is ignored with a warning, the good one still shown
echo "garbage" >"$tmp/cache/gpudiag/roofline-GPU-bad.txt"
"$bin" roofline --show >"$tmp/out" 2>"$tmp/err"; rc=$?
check "--show with a corrupt file: still exit 0" $([ $rc = 0 ] && echo 0 || echo 1)
check "--show with a corrupt file: warns" $(grep -q "ignoring unreadable cache file" "$tmp/err" && echo 0 || echo 1)

# measuring mode against the mock driver (tests/mock): the driver answers, the CUDA runtime
# cannot start, so every test reports an error (or unsupported) and the run exits 1 with
# valid JSON, the device facts filled in, and nothing cached
build=$2
if [ -f "$build/libgpudiag_mock_cuda.so" ] && [ -f "$build/libgpudiag_mock_nvml.so" ]; then
	rm -rf "$tmp/cache2"
	XDG_CACHE_HOME="$tmp/cache2" GPUDIAG_LIBCUDA="$build/libgpudiag_mock_cuda.so" \
		GPUDIAG_LIBNVML="$build/libgpudiag_mock_nvml.so" "$bin" roofline --quick --only dram,fma,mma,wgmma --json \
		>"$tmp/m.json" 2>"$tmp/err"; rc=$?
	check "mock driver: exit 1 (CUDA errors)" $([ $rc = 1 ] && echo 0 || echo 1)
	check "mock driver: valid JSON" $(python3 -m json.tool "$tmp/m.json" >/dev/null 2>&1 && echo 0 || echo 1)
	check "mock driver: statuses and device facts" $(python3 - "$tmp/m.json" <<'EOP' && echo 0 || echo 1
import json, sys
d = json.load(open(sys.argv[1]))
assert d["gpu"]["sm"] == "sm_90" and d["gpu"]["sms"] == 132
assert abs(d["gpu"]["dram_datasheet_bytes_per_s"] - 2 * 3201e6 * 6016 / 8) < 1e3
names = [t["name"] for t in d["tests"]]
assert names[:3] == ["dram_read", "dram_write", "dram_copy"] and "gemm_bf16" not in names, names
assert all(t["status"] in ("error", "unsupported") for t in d["tests"])
assert all(t["median"] is None for t in d["tests"])
t = {x["name"]: x for x in d["tests"]}
assert t["fma_fp32"]["datasheet"] == 256 * 132 * 1980e6
assert d["cache_file"] is None
EOP
)
	check "mock driver: nothing cached" $([ ! -e "$tmp/cache2/gpudiag" ] || [ -z "$(ls "$tmp/cache2/gpudiag")" ] && echo 0 || echo 1)
fi

echo "$fails failed"
[ $fails = 0 ]
