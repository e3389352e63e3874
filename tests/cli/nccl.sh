#!/usr/bin/env bash
# CPU tier: `gpudiag nccl` end to end through the mock driver, NVML and NCCL (tests/mock/): option
# errors, NCCL or the driver missing (exit 3), the bandwidth formulas on every row (algbw = S /
# time, busbw = algbw x nccl-tests' factor for n ranks), the check failing on wrong data (exit 4),
# NCCL and CUDA errors (exit 1), NCCL_NVLS_ENABLE kept off, the links from NVML, JSON, CSV and SVG.
# usage: nccl.sh <gpudiag binary> <build dir>
source "$(dirname "$0")/lib.sh" "$@"
export NO_COLOR=1
NCCL_ENV=("${MOCK_ENV[@]}" GPUDIAG_LIBNCCL="$BUILD/libgpudiag_mock_nccl.so")
unset NCCL_NVLS_ENABLE MOCK_GPUS MOCK_NCCL_FAIL MOCK_NCCL_CORRUPT MOCK_NVML_NVLINK
Q=(--max 1K --iters 3 --warmup 1)

# help: the page says what it sets and where it finds NCCL
expect_rc 0 -- "$GD" help nccl
expect_out "NCCL_NVLS_ENABLE=0 is set for the run unless you set NCCL_NVLS_ENABLE yourself"
expect_out "GPUDIAG_LIBNCCL"

# option errors: exit 2 with one line, before any GPU is looked for
for bad in "--op allreduce,bogus" "--min 2" "--min 8K --max 4K" "--iters 0" "--warmup -1" "--gpus 0" \
  "--format csv --table nope" "--format csv --json" "--min 1 --max 1T"; do
  # shellcheck disable=SC2086
  expect_rc 2 -- env "${NOGPU_ENV[@]}" "$GD" nccl $bad
  expect_one_line_err
done
expect_rc 2 -- env "${NCCL_ENV[@]}" "$GD" nccl --gpus 1 --device 0
expect_err "not both"

# no driver, no NCCL, an NCCL without its entry points: exit 3, one line naming what is missing
expect_rc 3 -- env "${NOGPU_ENV[@]}" GPUDIAG_LIBNCCL="$BUILD/libgpudiag_mock_nccl.so" "$GD" nccl
expect_one_line_err
expect_err "no NVIDIA driver"
expect_rc 3 -- env "${MOCK_ENV[@]}" GPUDIAG_LIBNCCL=/nonexistent/libnccl.so.2 "$GD" nccl
expect_one_line_err
expect_err "GPUDIAG_LIBNCCL=/nonexistent/libnccl.so.2 cannot be loaded"
expect_rc 3 -- env "${MOCK_ENV[@]}" GPUDIAG_LIBNCCL="$BUILD/libgpudiag_mock_nvml.so" "$GD" nccl
expect_err "lacks ncclGetVersion"

# one GPU: 5 collectives x 8 sizes (8 B .. 1 KiB), all exact; busbw 0 by definition but for
# Broadcast (factor 1); algbw = S / time on every row
expect_rc 0 -- env "${NCCL_ENV[@]}" "$GD" nccl "${Q[@]}" --json
json_check 'd["ranks"] == 1 and len(d["results"]) == 40 and d["wrong"] == 0 and d["links"] == []'
json_check 'd["env"] == {"NCCL_NVLS_ENABLE": "0", "nvls_set_by_gpudiag": True}'
json_check 'd["nccl"]["version"] == "2.28.9" and d["nccl"]["library"].endswith("libgpudiag_mock_nccl.so")'
json_check '[r["size"] for r in d["results"] if r["op"] == "allreduce"] == [8, 16, 32, 64, 128, 256, 512, 1024]'
json_check 'all(r["wrong"] == 0 and not r["skipped"] and r["type"] == "float32" for r in d["results"])'
json_check 'all(abs(r["algbw_bps"] - r["bytes"] / (r["time_us"] * 1e-6)) <= 1e-9 * r["algbw_bps"] for r in d["results"])'
json_check 'all(r["busbw_bps"] == (r["algbw_bps"] if r["op"] == "broadcast" else 0) for r in d["results"])'
json_check 'all(r["busbw_factor"] == (1 if r["op"] == "broadcast" else 0) for r in d["results"])'
json_check '[s["op"] for s in d["summary"]] == ["allreduce", "allgather", "reducescatter", "broadcast", "alltoall"]'
json_check 'all(s["latency_bytes"] == 8 and s["best_algbw_bps"] > 0 for s in d["summary"])'
expect_rc 0 -- env "${NCCL_ENV[@]}" "$GD" nccl "${Q[@]}"
expect_out "one GPU: busbw is 0 by definition"
expect_out "AllReduce (sum; busbw factor 2(n-1)/n = 0 for n = 1)"
expect_out "every result checked: all elements exact"

# two GPUs: busbw / algbw is the factor of n = 2 (AllReduce 1, AllGather/ReduceScatter/AllToAll
# 1/2, Broadcast 1); 4 B is below one float per rank for the per-rank collectives: skipped
expect_rc 0 -- env "${NCCL_ENV[@]}" MOCK_GPUS=2 "$GD" nccl --min 4 --max 4K --iters 2 --warmup 0 --json
json_check 'd["ranks"] == 2 and d["wrong"] == 0 and len(d["results"]) == 55'
json_check 'all(abs(r["busbw_bps"] / r["algbw_bps"] - {"allreduce": 1, "broadcast": 1}.get(r["op"], 0.5)) < 1e-12 for r in d["results"] if not r["skipped"])'
json_check 'sorted(r["op"] for r in d["results"] if r["skipped"]) == ["allgather", "alltoall", "reducescatter"]'
json_check 'all(r["wrong"] is None and r["bytes"] is None for r in d["results"] if r["skipped"])'
# AllGather of 4 KiB over 2 ranks: 512 floats each, S = 4096 B; AllToAll the same
json_check '[(r["count"], r["bytes"]) for r in d["results"] if r["op"] == "allgather" and r["size"] == 4096] == [(512, 4096)]'
json_check 'd["links"] == [{"gpu_a": 0, "gpu_b": 1, "kind": "pcie", "code": "NODE", "text": "PCIe across host bridges, one NUMA node", "nvlinks": None, "pcie_level": 40}]'
# four GPUs (NVML's mock then knows none of them: every link is unknown, and says so)
expect_rc 0 -- env "${NCCL_ENV[@]}" MOCK_GPUS=4 "$GD" nccl --min 1K --max 4K --iters 2 --warmup 0 --json
json_check 'd["ranks"] == 4 and d["wrong"] == 0 and len(d["links"]) == 6'
json_check 'all(abs(r["busbw_bps"] / r["algbw_bps"] - {"allreduce": 1.5, "broadcast": 1}.get(r["op"], 0.75)) < 1e-12 for r in d["results"])'
json_check 'all(l["code"] == "?" and l["kind"] == "unknown" for l in d["links"])'
# NVLink through an NVSwitch, as nvidia-smi topo -m says it
expect_rc 0 -- env "${NCCL_ENV[@]}" MOCK_GPUS=2 MOCK_NVML_NVLINK=18 "$GD" nccl --op broadcast --max 64 --iters 1
expect_out "GPU0-GPU1: NVLink ×18 to an NVSwitch"
expect_out "  GPU0  X     NV18"
# --device: that GPU alone
expect_rc 0 -- env "${NCCL_ENV[@]}" MOCK_GPUS=2 "$GD" nccl --device 1 --op allreduce --max 64 --iters 1 --json
json_check 'd["ranks"] == 1 and d["gpus"][0]["index"] == 1'
expect_rc 2 -- env "${NCCL_ENV[@]}" MOCK_GPUS=2 "$GD" nccl --gpus 3
expect_err "this machine has 2 GPUs"

# NVLink multicast: off unless the user says otherwise (the mock refuses to start otherwise)
expect_rc 0 -- env "${NCCL_ENV[@]}" MOCK_NCCL_REQUIRE_NVLS_OFF=1 "$GD" nccl --op allreduce --max 64 --iters 1
expect_out "NCCL_NVLS_ENABLE=0 (set by gpudiag: NVLink multicast off)"
expect_rc 0 -- env "${NCCL_ENV[@]}" NCCL_NVLS_ENABLE=1 "$GD" nccl --op allreduce --max 64 --iters 1 --json
json_check 'd["env"] == {"NCCL_NVLS_ENABLE": "1", "nvls_set_by_gpudiag": False}'
expect_rc 1 -- env "${NCCL_ENV[@]}" NCCL_NVLS_ENABLE=1 MOCK_NCCL_REQUIRE_NVLS_OFF=1 "$GD" nccl --max 64
expect_err "ncclCommInitAll over 1 GPU failed: invalid usage (mock)"
expect_one_line_err

# wrong results: every size still measured and printed, one line on stderr, exit 4
expect_rc 4 -- env "${NCCL_ENV[@]}" MOCK_GPUS=2 MOCK_NCCL_CORRUPT=1 "$GD" nccl "${Q[@]}" --json
expect_one_line_err
expect_err "8 elements of the results were wrong"
json_check 'd["wrong"] == 8 and [r["wrong"] for r in d["results"] if r["op"] == "allreduce"] == [1] * 8'
json_check 'all(r["wrong"] == 0 for r in d["results"] if r["op"] != "allreduce")'
# NCCL and CUDA errors: exit 1, one line naming the call
expect_rc 1 -- env "${NCCL_ENV[@]}" MOCK_NCCL_FAIL=allreduce "$GD" nccl --max 64
expect_err "ncclAllReduce failed: internal error (mock), AllReduce of 8 bytes"
expect_one_line_err
expect_rc 1 -- env "${NCCL_ENV[@]}" MOCK_NCCL_FAIL=init "$GD" nccl --max 64
expect_err "ncclCommInitAll"
expect_rc 1 -- env "${NCCL_ENV[@]}" MOCK_CUDA_MEM=1000 "$GD" nccl --max 4K
expect_err "cuMemAlloc of the send buffer on GPU 0: CUDA_ERROR_OUT_OF_MEMORY"
expect_one_line_err

# the time is the host clock around the iterations: 2 ms a group call bounds algbw
expect_rc 0 -- env "${NCCL_ENV[@]}" MOCK_NCCL_SLEEP_US=2000 "$GD" nccl --op allreduce --min 1M --max 1M --iters 3 --warmup 0 --json
json_check 'd["results"][0]["time_us"] >= 2000 and d["results"][0]["algbw_bps"] <= 1048576 / 2e-3'

# CSV / TSV tables and the chart
expect_rc 0 -- env "${NCCL_ENV[@]}" MOCK_GPUS=2 "$GD" nccl "${Q[@]}" --format csv --table results
python3 - "$T/out" <<'PY' && ok || bad "results csv"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 40, len(rows)
assert list(rows[0]) == ["op", "size", "bytes", "count", "type", "time_us", "algbw_bps", "busbw_bps", "busbw_factor", "wrong", "skipped"]
assert rows[0]["op"] == "allreduce" and rows[0]["size"] == "8" and rows[0]["wrong"] == "0" and rows[0]["busbw_factor"] == "1"
PY
expect_rc 0 -- env "${NCCL_ENV[@]}" MOCK_GPUS=2 "$GD" nccl "${Q[@]}" --format tsv
expect_out "# table: results"
expect_out "# table: links"
expect_rc 0 -- env "${NCCL_ENV[@]}" MOCK_GPUS=2 "$GD" nccl "${Q[@]}" --svg "$T/nccl.svg"
expect_out "chart written to $T/nccl.svg"
python3 -c "import sys, xml.dom.minidom as m; d = m.parse(sys.argv[1]); assert 'NCCL bus bandwidth' in d.toxml()" "$T/nccl.svg" &&
  ok || bad "svg"
finish
