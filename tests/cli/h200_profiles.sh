#!/usr/bin/env bash
# CPU tier: the verdicts on real profiles recorded by `gpudiag run` on an NVIDIA H200
# (driver 580.159.04, 2026-12-02; programs from tests/gpu/verdicts_progs.cu), checked in as
# tests/fixtures/h200_*.gpudiag.sqlite, and the shipped sample (the demo, recorded there too).
# Top findings and evidence values are asserted, so every change to a rule meets real records.
# usage: h200_profiles.sh <gpudiag binary> <build dir>
set -u
G=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export GPUDIAG_LIBCUDA=/nonexistent GPUDIAG_LIBNVML=/nonexistent NO_COLOR=1
fail=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fail=1; }
F=tests/fixtures
for s in clean idle sync; do
	"$G" report "$F/h200_$s.gpudiag.sqlite" --json >"$T/$s.json" || bad "$s: report exit $?"
	python3 -m json.tool "$T/$s.json" >/dev/null || bad "$s: JSON does not parse"
done
"$G" report "$F/sample.gpudiag.sqlite" --json >"$T/sample.json" || bad "sample: report exit $?"

python3 - "$T" <<'PY' && ok "H200 profiles: top findings and evidence" || bad "H200 profiles"
import json, sys, os
T = sys.argv[1]
def load(n):
    d = json.load(open(os.path.join(T, n + ".json")))
    return d, {f["id"]: f for f in d["findings"]}
def ev(f, k):
    return {e["key"]: e["value"] for e in f["evidence"]}[k]
def near(a, b, rel=1e-6):
    assert abs(a - b) <= rel * abs(b), (a, b)

# clean: 100 cuBLAS BF16 8192^3 GEMMs. 2.96 s of the 3.10 s span is warm-up (context, cuBLAS
# handle, first-launch module loading), not judged; the loop itself is 99.7 % busy. The main
# loop starts at the first GEMM: the 1.9 µs gap between the first iteration's memset and that
# GEMM is start-up now (it was judged before the loop was detected).
d, f = load("clean")
assert d["verdict"]["top"] is None and d["verdict"]["warnings"] == 0, d["verdict"]
assert all(x["state"] == "clear" for x in d["findings"] if x["id"] != "latency_bound"), [x["id"] for x in d["findings"] if x["state"] != "clear"]
assert [x["state"] for x in d["findings"] if x["id"] == "latency_bound"] == ["insufficient"]  # recorded before counters existed
i = f["gpu_idle"]
assert ev(i, "warmup_idle_ns") == 2961925187
assert ev(i, "idle_ns") == 423187
near(ev(i, "busy_fraction"), 0.997027172380785)
assert ev(i, "loop_start_ns") == 2962113411
# the verdict says why 3.8 % busy is no problem
assert "all of it start-up or tear-down" in i["headline"] and "2.74 s" in i["headline"], i["headline"]
assert ev(f["sync_in_loop"], "sync_calls") == 7
assert d["summary"]["kernels"] == 102 and d["summary"]["gpu_span_ns"] == 3104276865

# idle: 300 × (200 µs kernel, 1 ms host spin): starved, idle is the top finding
d, f = load("idle")
assert d["verdict"]["top"] == "gpu_idle", d["verdict"]
i = f["gpu_idle"]
assert i["severity"] == "high"
near(i["share_at_stake"], 244011514 / (305852874 - 22336))
assert ev(i, "idle_ns") == 244011514 and ev(i, "warmup_idle_ns") == 22336
assert ev(i, "idle_host_outside_cuda_ns") == 238630050
assert f["sync_in_loop"]["state"] == "clear"

# sync: cudaDeviceSynchronize after each of 400 kernels, then 100 µs of host work
d, f = load("sync")
assert d["verdict"]["top"] == "sync_in_loop", d["verdict"]
s = f["sync_in_loop"]
assert s["severity"] == "high"
assert ev(s, "sync_calls") == 402 and ev(s, "sync_blocked_ns") == 125111693
assert ev(s, "idle_after_sync_ns") == 47015640 and ev(s, "sync_stake_ns") == 47015640
near(s["share_at_stake"], 47015640 / (170296720 - 23424))
assert f["gpu_idle"]["severity"] == "warning"

# the shipped sample: the demo recorded on the H200, labelled so, its planted mistakes found
d, f = load("sample")
assert not d["synthetic"] and "recorded on an NVIDIA H200" in d["sample_label"], d["sample_label"]
assert "580.159.04" in d["sample_label"] and "2026-12-02" in d["sample_label"]
assert d["verdict"]["top"] == "pageable_memory", d["verdict"]
for r in ("pageable_memory", "default_stream", "launch_bound", "gpu_idle"):
    assert f[r]["state"] == "fired" and f[r]["severity"] in ("warning", "high"), (r, f[r]["state"])
# 20 pageable 16 MiB uploads and a 128 B read-back in the loop; the last 128 B read-back comes
# after the last kernel: tear-down evidence, not judged
assert ev(f["pageable_memory"], "pageable_copies") == 21 and ev(f["pageable_memory"], "pageable_ns") == 56335753
assert ev(f["pageable_memory"], "startup_pageable_copies") == 1
PY

# the terminal report carries the label
"$G" report "$F/sample.gpudiag.sqlite" | head -3 | grep -q 'SAMPLE profile recorded on an NVIDIA H200' \
	&& ok "sample labelled as recorded on an H200" || bad "sample label"
# fixtures stay small: 2 MB, or 4 MB for a PyTorch program recorded with --torch ops (every op
# range's message is unique — PyTorch writes its op_id into it —, so three GPT-2 steps hold
# 17 000 strings: 1.2 MB of the 3.3)
for x in "$F"/h200_*.gpudiag.sqlite "$F/sample.gpudiag.sqlite"; do
	lim=2000000
	case $x in */h200_torch_*) lim=4000000 ;; esac
	[ "$(stat -c %s "$x")" -lt $lim ] && ok "$x < $((lim / 1000000)) MB" || bad "$x is too large"
done
exit $fail
