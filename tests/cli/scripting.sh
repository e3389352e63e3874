# Scripting (issue 20): --format csv|tsv and --table for every command's tables, report --top,
# the API/NVTX/stream/thread tables checked against SQL on the profile itself, the views, and
# the small fixes (diff ratios, occupancy --sms and sm_90a, monitor's CUDA numbering).
source "$(dirname "$0")/lib.sh" "$@"
S=tests/fixtures/sample.gpudiag.sqlite
N=tests/fixtures/nvtx.gpudiag.sqlite
# py 'expr over rows' FILE: FILE parses as one CSV (or TSV with sep) table and expr holds
csv_check() {
  python3 -c '
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline=""), delimiter=sys.argv[3]))
assert eval(sys.argv[2]), "false"' "$T/out" "$1" "${2:-,}" 2>"$T/pyerr" && ok || bad "csv check: $1: $(tail -1 "$T/pyerr")"
}
q() { sqlite3 "$@"; }

# ---- report: the API table is the api table grouped by name
expect_rc 0 -- "$GD" report "$S" --format csv --table api
head -1 "$T/out" | grep -qx 'name,category,count,total_ns,mean_ns,min_ns,max_ns,std_ns,api_time_fraction' && ok || bad "api header"
q -csv "$S" "SELECT name_str, COUNT(*), SUM(duration), MIN(duration), MAX(duration) FROM api_v GROUP BY name_str ORDER BY 3 DESC" >"$T/sql"
[ "$(cut -d, -f1,3,4,6,7 "$T/out" | tail -n +2)" = "$(cat "$T/sql")" ] && ok || bad "api table differs from SQL: $(head -3 "$T/out")"
csv_check 'len(rows) == 10 and rows[1]["name"] == "cudaLaunchKernel_v7000" and rows[1]["category"] == "launch" and abs(sum(float(r["api_time_fraction"]) for r in rows) - 1) < 1e-9'

# threads: one thread, its calls and the 46 synchronising calls (22 explicit + 24 copies)
expect_rc 0 -- "$GD" report "$S" --format tsv --table threads
csv_check 'len(rows) == 1 and rows[0]["tid"] == "2114871296" and rows[0]["api_calls"] == "4174" and rows[0]["sync_calls"] == "46" and rows[0]["launches"] == "4100"' $'\t'
# text, JSON and CSV count the synchronising calls alike, as the synchronisation rule does
expect_rc 0 -- "$GD" report "$S"
expect_out "synchronising calls: 46 (22 explicit synchronisation, 8.28 ms blocked; 24 synchronous copies, 60.1 ms)"
expect_out "46 synchronising calls (22 explicit, 24 synchronous copies)"
expect_rc 0 -- "$GD" report "$S" --json
json_check 'd["summary"]["api"]["synchronising_calls"] == 46 and d["summary"]["api"]["sync_calls"] == 22 and d["summary"]["api"]["sync_copy_calls"] == 24 and [e["value"] for e in d["findings"][2]["evidence"] if e["key"] == "sync_calls"] == [46]'
json_check 'len(d["summary"]["api_calls"]) == 10 and d["summary"]["threads"][0]["sync_calls"] == 46 and len(d["summary"]["streams"]) == 5 and d["summary"]["nvtx_ranges"] == []'

# streams: kernels per (device, stream) as the kernels table says; busy = union
expect_rc 0 -- "$GD" report "$S" --format csv --table streams
q -csv "$S" "SELECT device, stream, COUNT(*), SUM(duration) FROM kernels_v GROUP BY 1, 2 ORDER BY 1, 2" >"$T/sql"
python3 -c '
import csv, sys
rows = {(r["device"], r["stream"]): r for r in csv.DictReader(open(sys.argv[1]))}
for d, s, n, ns in csv.reader(open(sys.argv[2])):
    r = rows[(d, s)]
    assert (r["kernels"], r["kernel_ns"]) == (n, ns), (d, s)
s7 = rows[("0", "7")]
assert s7["kind"] == "legacy default" and s7["copies"] == "24" and float(s7["busy_ns"]) <= float(s7["kernel_ns"]) + float(s7["copy_ns"])
assert rows[("0", "16")]["kind"] == "non-blocking"' "$T/out" "$T/sql" && ok || bad "streams vs SQL"

# NVTX (the nvtx fixture): count/total per name as nvtx_v says, GPU work as the join says
expect_rc 0 -- "$GD" report "$N" --format csv --table nvtx
q -csv "$N" "SELECT name_str, COUNT(*), SUM(duration), MIN(duration), MAX(duration) FROM nvtx_v WHERE kind_name = 'range' GROUP BY name_str ORDER BY 3 DESC" >"$T/sql"
[ "$(cut -d, -f1,3,4,6,7 "$T/out" | tail -n +2)" = "$(cat "$T/sql")" ] && ok || bad "nvtx table differs from SQL"
q -csv "$N" "SELECT name, SUM(n), SUM(ns), SUM(span) FROM (SELECT r.name_str AS name, COUNT(k.id) AS n, SUM(k.duration) AS ns, MAX(k.end) - MIN(k.start) AS span FROM nvtx_v r JOIN api a ON a.pid = r.pid AND a.tid = r.tid AND a.start BETWEEN r.start AND r.end JOIN kernels_v k ON k.pid = a.pid AND k.correlation = a.correlation WHERE r.kind_name = 'range' GROUP BY r.id) GROUP BY name ORDER BY name" >"$T/sql"
[ "$(tail -n +2 "$T/out" | cut -d, -f1,11,12,13 | sort)" = "$(sort "$T/sql")" ] && ok || bad "nvtx GPU projection differs from SQL: $(cat "$T/sql")"
expect_rc 0 -- "$GD" report "$N"
expect_out "NVTX ranges"
expect_out "0 ranges never closed (not in the durations), 1 mark"

# --top: rows of the ranked tables, in every format; the terminal says what it left out
expect_rc 0 -- "$GD" report "$S" --top 2 --format csv --table api
[ "$(wc -l <"$T/out")" -eq 3 ] && ok || bad "--top 2: header + 2 rows"
expect_rc 0 -- "$GD" report "$S" --top 3
expect_out "and 7 more functions (--top N shows more)"
expect_out "and 1 more kernels"
expect_rc 0 -- "$GD" report "$S" --top 1 --json
json_check 'len(d["summary"]["top_kernels"]) == 1 and len(d["summary"]["api_calls"]) == 1'
expect_rc 2 -- "$GD" report "$S" --top 0; expect_err "--top must be 1 to"; expect_one_line_err

# every table in one output: marked and separated; RFC 4180 quoting of names with commas
expect_rc 0 -- "$GD" report "$S" --format csv
[ "$(grep -c '^# table: ' "$T/out")" -eq 10 ] && ok || bad "10 tables marked"
expect_out '"demo_tiny_add(float*, float)",demo_tiny_add,elementwise,user,3524989,4000,'
expect_rc 0 -- "$GD" report "$S" --format csv --table kernels
csv_check 'len(rows) == 4 and rows[0]["name"] == "demo_tiny_add(float*, float)" and rows[0]["count"] == "4000" and rows[0]["registers"] == "16"'
expect_rc 0 -- "$GD" report "$S" --format csv --table findings
csv_check 'rows[0]["id"] == "pageable_memory" and rows[0]["severity"] == "high" and "(mode=\"reduce-overhead\")" in rows[1]["advice"]'

# format errors: one line, exit 2, before the profile is read
expect_rc 2 -- "$GD" report "$S" --format xml; expect_err "--format must be terminal, json, csv or tsv, not 'xml'"; expect_one_line_err
expect_rc 2 -- "$GD" report "$S" --format csv --table nope; expect_err "no table 'nope' (tables: summary, findings, kernels"
expect_rc 2 -- "$GD" report "$S" --table api; expect_err "--table picks a table of --format csv or tsv"
expect_rc 2 -- "$GD" report "$S" --json --format csv; expect_err "--json and --format csv ask for two formats"
expect_rc 0 -- "$GD" report "$S" --format json
json_check 'd["summary"]["kernels"] == 4100'

# ---- the views: in every fixture, as schema.sql defines them
for f in tests/fixtures/*.gpudiag.sqlite; do
  for v in memcpy_v memset_v nvtx_v; do
    got=$(q "$f" "SELECT sql FROM sqlite_master WHERE name = '$v'")
    want=$(python3 -c 'import re,sys; print(re.search(r"CREATE VIEW %s AS.*?(?=;)" % sys.argv[2], open(sys.argv[1]).read(), re.S).group(0))' src/profile/schema.sql "$v")
    [ "$got" = "$want" ] && ok || bad "$f: view $v is not schema.sql's"
  done
done
[ "$(q -csv "$S" "SELECT copy_kind_name, src_kind_name, dst_kind_name, COUNT(*) FROM memcpy_v GROUP BY 1, 2, 3 ORDER BY 1, 2, 3")" = "$(printf 'DtoH,device,pageable,2\nHtoD,pageable,device,20\nHtoD,pinned,device,20')" ] && ok || bad "memcpy_v kinds"
[ "$(q "$N" "SELECT kind_name, name_str, end IS NULL FROM nvtx_v WHERE name_str = 'done'")" = "mark|done|1" ] && ok || bad "nvtx_v mark"

# ---- diff: ratios with enough digits, a division below 0.1
expect_rc 0 -- "$GD" diff tests/fixtures/h200_idle.gpudiag.sqlite "$N"
expect_out "GPU busy    61.8 ms → 49.5 µs (÷1248)"
expect_out "wall time   692.5 ms → 285.0 ms (0.412×)"
grep -q "0.00×" "$T/out" && bad "diff prints 0.00×" || ok
expect_rc 0 -- "$GD" diff "$S" tests/fixtures/h200_idle.gpudiag.sqlite
expect_out "GPU busy    68.6 ms → 61.8 ms (0.902×)"
expect_out "kernel time 5.62 ms → 61.8 ms (11.0×)"
expect_rc 0 -- "$GD" diff "$S" "$N" --format csv --table totals
csv_check 'rows[0]["a_kernels"] == "4100" and rows[0]["b_kernels"] == "32" and abs(float(rows[0]["gpu_busy_ratio"]) - 49534 / 68553743) < 1e-12'
expect_rc 0 -- "$GD" diff "$S" "$N" --json
json_check 'd["totals"]["a_kernels"] == 4100 and d["by_kernel"][0]["kernel"] == "demo_tiny_add"'

# ---- occupancy: the limits stated, sm_90a, --sms for waves, CSV
expect_rc 2 -- "$GD" occupancy --threads 0 --regs 32 --arch sm_90; expect_err "--threads must be 1 to 1024 (the block size on sm_90), not 0"; expect_one_line_err
expect_rc 2 -- "$GD" occupancy --threads 256 --regs 300 --arch sm_90; expect_err "--regs must be 0 to 255"
expect_rc 0 -- "$GD" occupancy --threads 256 --regs 32 --arch sm_90a --grid 1000 --sms 132
expect_out "built-in table for sm_90 (Hopper); sm_90a has the same limits, 132 SMs (--sms)"
expect_out "grid of 1000 blocks   0.95 waves over 132 SMs; the last wave fills 95 % of them"
expect_rc 0 -- "$GD" occupancy --threads 256 --regs 32 --arch sm_90 --grid 1000
expect_out "waves need an SM count: give --sms N"
expect_rc 2 -- "$GD" occupancy --threads 256 --regs 32 --arch sm_90 --sms 0; expect_err "--sms must be 1 to 4096"
expect_rc 2 -- env "${NOGPU_ENV[@]}" "$GD" occupancy --threads 256 --regs 32 --sms 132; expect_err "--sms goes with --arch"
expect_rc 0 -- "$GD" occupancy --threads 256 --regs 32 --arch sm_90 --grid 1000 --sms 132 --format csv --table result
csv_check 'rows[0]["blocks_per_sm"] == "8" and rows[0]["sms"] == "132" and abs(float(rows[0]["waves"]) - 1000 / (8 * 132)) < 1e-12 and rows[0]["limited_by"] == "registers+warps"'
expect_rc 0 -- "$GD" occupancy --threads 256 --regs 32 --arch sm_90 --format tsv --table sweep
csv_check 'len(rows) == 32 and rows[0]["threads_per_block"] == "32" and rows[0]["blocks_per_sm"] == "32" and rows[0]["occupancy"] == "0.5"' $'\t'
expect_rc 0 -- "$GD" occupancy --threads 256 --regs 32 --arch sm_90 --sms 132 --json
json_check 'd["sms"] == 132'

# ---- monitor: --device counts as CUDA does (the mocks list two GPUs in swapped orders)
expect_rc 0 -- env "${MOCK_ENV[@]}" MOCK_GPUS=2 "$GD" monitor --count 1 --device 1 --json
json_check 'd["gpu"] == 1 and d["nvml_index"] == 0 and d["temperature_c"] == 71'
expect_rc 0 -- env "${MOCK_ENV[@]}" MOCK_GPUS=2 "$GD" monitor --count 2 --interval 0.05 --format csv
csv_check 'len(rows) == 4 and [(r["gpu"], r["nvml_index"], r["temperature_c"]) for r in rows[:2]] == [("0", "1", "61"), ("1", "0", "71")] and rows[0]["clock_event_reasons"] == "software power cap" and rows[0]["pcie_rx_bytes_per_s"] == ""'
expect_rc 3 -- env "${MOCK_ENV[@]}" MOCK_GPUS=2 "$GD" monitor --count 1 --device 2; expect_err "no CUDA device 2 (this machine has 2)"
expect_rc 2 -- env "${MOCK_ENV[@]}" "$GD" monitor --count 1 --table x; expect_err "unknown option '--table'"

# ---- info and roofline --show
expect_rc 0 -- env "${MOCK_ENV[@]}" "$GD" info --format csv --table fields
csv_check 'any(r["key"] == "sm_count" and r["value"] == "132" for r in rows) and any(r["key"] == "pcie" and r["value"] == "" and r["unknown_reason"] for r in rows)'
expect_rc 0 -- env "${MOCK_ENV[@]}" "$GD" info --format csv --table peaks
csv_check 'rows[0]["precision"] == "FP64" and rows[0]["tensor_core_support"] == "true" and rows[0]["clock_mhz"] == "1980"'
mkdir -p "$T/cache/gpudiag"
printf '%s\n' '# gpudiag measured ceilings' 'format 1' 'uuid GPU-12345678-aaaa-bbbb-cccc-0123456789ab' \
  'gpu_name NVIDIA H200' 'driver 580.159.04' 'measured_at 1764680000' 'sm_clock_mhz 1980' 'dram_read 3.9e12' \
  'dram_write 4.6e12' 'dram_copy 4.25e12' 'l2 11e12' 'smem nan' 'l1 nan' 'sfu 4e12' 'failed' 'tensor.BF16 850e12' \
  >"$T/cache/gpudiag/roofline-GPU-12345678-aaaa-bbbb-cccc-0123456789ab.txt"
# roofline and lab are GPU kernels: a build without the CUDA toolkit has neither, and says so
# (exit 3) whatever the options; the tables are checked where they exist
if "$GD" --version | grep -q "built without the CUDA toolkit"; then
  expect_rc 3 -- env XDG_CACHE_HOME="$T/cache" "${NOGPU_ENV[@]}" "$GD" roofline --show --format csv; expect_err "built without the CUDA toolkit"
  expect_rc 3 -- env "${NOGPU_ENV[@]}" "$GD" lab memory --format csv; expect_err "built without the CUDA toolkit"
else
  expect_rc 0 -- env XDG_CACHE_HOME="$T/cache" "${NOGPU_ENV[@]}" "$GD" roofline --show --format csv
  csv_check 'any(r["ceiling"] == "dram_copy" and float(r["value"]) == 4.25e12 and r["unit"] == "B/s" for r in rows) and any(r["ceiling"] == "tensor" and r["precision"] == "BF16" and float(r["value"]) == 850e12 for r in rows) and any(r["ceiling"] == "smem" and r["value"] == "" for r in rows)'
  expect_rc 2 -- env XDG_CACHE_HOME="$T/cache" "${NOGPU_ENV[@]}" "$GD" roofline --show --format csv --table tests; expect_err "shows only the table ceilings"

  # ---- lab: the one writer's options (the GPU check comes after them)
  expect_rc 2 -- env "${NOGPU_ENV[@]}" "$GD" lab memory --format csv --csv -; expect_err "both write stdout"
  expect_rc 3 -- env "${NOGPU_ENV[@]}" "$GD" lab memory --format tsv
fi
finish
