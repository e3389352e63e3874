#!/bin/bash
# CPU-tier tests of the GPU-metrics timeline in `gpudiag run` (issue 18), end to end through
# the mock driver and the mock PM-sampling CUPTI (tests/mock/mock_cupti_pm.c): samples and
# meta in the profile, every refusal said in one line with the run going on, --no-counters,
# --counters-interval's limits, and the light mode (no injection, the light verdict).
# usage: counters_run.sh <gpudiag binary> <build dir>
set -u
G=$(realpath "$1")
B=$(realpath "$2")
export GPUDIAG_LIBCUDA=$B/libgpudiag_mock_cuda.so GPUDIAG_LIBNVML=$B/libgpudiag_mock_nvml.so
export GPUDIAG_CUPTI=$B/libgpudiag_mock_cupti_pm.so
unset MOCK_PM MOCK_PM_REJECT
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
check() { # name expected actual
	if [ "$2" = "$3" ]; then echo "ok   $1"; else echo "FAIL $1: expected '$2', got '$3'"; fail=1; fi
}
q() { sqlite3 "$1" "$2"; }
meta() { q "$1" "select value from meta where key='$2'"; }

# counters on (the default): samples every 100 µs while the program runs, meta says so
"$G" run -o "$T/a.sqlite" -- sh -c 'sleep 0.4; exit 3' 2>"$T/err"; check "program's exit code kept" 3 $?
check "meta counters" ok "$(meta "$T/a.sqlite" counters)"
check "meta interval" 100000 "$(meta "$T/a.sqlite" counters_interval_ns)"
check "meta lost" 0 "$(meta "$T/a.sqlite" counters_lost_samples)"
check "no counters warning" 0 "$(grep -c 'no counters' "$T/err")"
n=$(q "$T/a.sqlite" "select count(*) from gpu_metrics")
check "samples over 0.2 s at 100 µs (≥ 2000)" 1 "$([ "$n" -ge 2000 ] && echo 1 || echo 0)"
check "values as the mock gives them (DRAM 80 %, SM 90 %, 1980 MHz, PCIe 20 MB/s)" "80.0|90.0|1980.0|20000000.0" \
	"$(q "$T/a.sqlite" "select printf('%.1f|%.1f|%.1f|%.1f', avg(dram_pct), avg(sm_active_pct), avg(gpc_mhz), avg(pcie_read_bps)) from gpu_metrics")"
check "a name the GPU refuses: the next one (mock: no dram__read_, dramc__ as a fraction → %)" "60.0" \
	"$(q "$T/a.sqlite" "select printf('%.1f', avg(dram_read_pct)) from gpu_metrics")"
check "samples on the run's clock" 1 "$(q "$T/a.sqlite" "select min(t_start) >= (select value from meta where key='start_ns') - 1000000000 and max(t_end) <= (select value from meta where key='end_ns') + 1000000000 from gpu_metrics")"
"$G" report "$T/a.sqlite" >"$T/rep" 2>&1
check "report: counters line" 1 "$(grep -c 'GPU counters: [0-9]* PM samples every 100 µs on 1 device, 0 lost' "$T/rep")"
"$G" report "$T/a.sqlite" --json >"$T/a.json"
check "json: summary.counters" "ok 100000" "$(python3 -c "import json,sys; c=json.load(open(sys.argv[1]))['summary']['counters']; print(c['status'], c['interval_ns'])" "$T/a.json")"

# refusals: one line, the run goes on, the reason in the profile
for m in privileges busy nochip; do
	MOCK_PM=$m "$G" run -o "$T/r_$m.sqlite" -- true 2>"$T/err_$m"; check "$m: exit 0" 0 $?
	check "$m: one warning line" 1 "$(grep -c 'warning: run: no counters: ' "$T/err_$m")"
	check "$m: meta says why" 1 "$(meta "$T/r_$m.sqlite" counters | grep -c '^no counters: ')"
	check "$m: no samples" 0 "$(q "$T/r_$m.sqlite" "select count(*) from gpu_metrics")"
done
check "privileges: the remedy named" 1 "$(grep 'warning: run: no counters' "$T/err_privileges" | grep -c 'NVreg_RestrictProfilingToAdminUsers=0')"
check "busy: another profiler named" 1 "$(grep 'warning: run: no counters' "$T/err_busy" | grep -c 'another profiler')"
# a hardware-buffer overflow keeps what was decoded and says it in the note
MOCK_PM=overflow "$G" run -o "$T/o.sqlite" -- sleep 0.3 2>/dev/null
check "overflow: samples kept" 1 "$([ "$(q "$T/o.sqlite" "select count(*) from gpu_metrics")" -gt 0 ] && echo 1 || echo 0)"
check "overflow: note" 1 "$(meta "$T/o.sqlite" counters_note | grep -c 'OUT_OF_MEMORY')"
# at most 10 metrics (13 decoded as zeros on the H200): the DRAM total is read + write, not
# sampled, and L2 and free warp slots are left out, said in the note
check "the DRAM total is not sampled" 0 "$(meta "$T/a.sqlite" counters_metrics | grep -c 'dram__throughput')"
check "... but read + write (60 + 20)" "80.0|80.0" "$(q "$T/a.sqlite" "select printf('%.1f|%.1f', avg(dram_pct), avg(dram_read_pct + dram_write_pct)) from gpu_metrics")"
check "ten metrics" 10 "$(meta "$T/a.sqlite" counters_metrics | tr ',' '\n' | grep -c .)"
check "L2 and free warp slots left out, said" "1|1|0|0" "$(meta "$T/a.sqlite" counters_note | grep -c 'L2 left out (PM sampling is given at most 10 metrics)')|$(meta "$T/a.sqlite" counters_note | grep -c 'Warp slots free left out')|$(q "$T/a.sqlite" "select count(l2_pct), count(warps_unused_pct) from gpu_metrics" | tr '|' '\n' | paste -sd'|')"
check "PCIe and GPU active kept" 1 "$(q "$T/a.sqlite" "select count(pcie_write_bps) > 0 and count(gr_active_pct) > 0 from gpu_metrics")"
# more than one pass: quantities dropped (least needed first: L2 before PCIe), said in the note
MOCK_PM=passes "$G" run -o "$T/p.sqlite" -- sleep 0.1 2>/dev/null
check "passes: L2 left out, NULL" "1|0" "$(meta "$T/p.sqlite" counters_note | grep -c 'L2 left out')|$(q "$T/p.sqlite" "select count(l2_pct) from gpu_metrics")"
check "passes: PCIe and SM active kept" 1 "$(q "$T/p.sqlite" "select count(sm_active_pct) > 0 and count(pcie_read_bps) > 0 from gpu_metrics")"
# ... unless a later accepted name makes it fit: nothing dropped
MOCK_PM=passes_dramc "$G" run -o "$T/p2.sqlite" -- sleep 0.1 2>/dev/null
check "passes: the dramc__ names make one pass" 1 "$(meta "$T/p2.sqlite" counters_metrics | grep -c 'dramc__read_throughput')"
check "passes: nothing left out for the pass count" 0 "$(meta "$T/p2.sqlite" counters_note | grep -c 'more than one pass')"
check "passes: DRAM read as percent" "60.0" "$(q "$T/p2.sqlite" "select printf('%.1f', avg(dram_read_pct)) from gpu_metrics")"

# --no-counters: nothing sampled, nothing said
"$G" run --no-counters -o "$T/n.sqlite" -- true 2>"$T/err"
check "--no-counters: meta off" off "$(meta "$T/n.sqlite" counters)"
check "--no-counters: no samples" 0 "$(q "$T/n.sqlite" "select count(*) from gpu_metrics")"
check "--no-counters: no warning" 0 "$(grep -c 'warning.*counters' "$T/err")"
check "--no-counters: the report says off" 1 "$(grep -c 'GPU counters: off (gpudiag run --no-counters)' "$T/err")"

# --counters-interval: 50 µs to 1 s
"$G" run --counters-interval 20 -o "$T/i.sqlite" -- true 2>"$T/err"; check "interval 20 µs refused (usage)" 2 $?
check "the limit stated" 1 "$(grep -c 'must be 50 to 1000000 µs, not 20' "$T/err")"
check "nothing written" 0 "$(ls "$T/i.sqlite" 2>/dev/null | wc -l)"
"$G" run --counters-interval 500 -o "$T/i2.sqlite" -- sleep 0.2 2>/dev/null
check "interval 500 µs recorded" 500000 "$(meta "$T/i2.sqlite" counters_interval_ns)"

# --light: the program gets no injection, the profile says light, the verdict says what it judged
"$G" run --light -o "$T/l.sqlite" -- sh -c 'echo "${CUDA_INJECTION64_PATH:-none}"; sleep 0.2' >"$T/lout" 2>"$T/err"
check "--light: no injection in the program's environment" none "$(cat "$T/lout")"
check "--light: trace_mode" light "$(meta "$T/l.sqlite" trace_mode)"
check "--light: process status" "0|light" "$(q "$T/l.sqlite" "select traced, status from processes")"
check "--light: samples" 1 "$(q "$T/l.sqlite" "select count(*) > 0 from gpu_metrics")"
check "--light: no 'never initialised CUDA' warning" 0 "$(grep -c 'never initialised CUDA' "$T/err")"
"$G" report "$T/l.sqlite" --json >"$T/l.json"
check "--light: verdict line" 1 "$(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(int(d['verdict']['headline'].startswith('Light mode: no trace, by request')))" "$T/l.json")"
check "--light: profiler_limits info with counters evidence" "info counters" "$(python3 -c "import json,sys; f=[x for x in json.load(open(sys.argv[1]))['findings'] if x['id']=='profiler_limits'][0]; print(f['severity'], f['basis'])" "$T/l.json")"
check "--light: the idle question answered from the counters" 1 "$(python3 -c "import json,sys; f=[x for x in json.load(open(sys.argv[1]))['findings'] if x['id']=='gpu_idle'][0]; print(int(f['state']=='clear' and 'GPU counters' in f['headline']))" "$T/l.json")"
check "--light: trace rules not judged" 1 "$(python3 -c "import json,sys; f=[x for x in json.load(open(sys.argv[1]))['findings'] if x['id']=='sync_in_loop'][0]; print(int(f['state']=='insufficient' and 'light mode' in f['headline']))" "$T/l.json")"
"$G" run --light --capture-range cudaProfilerApi -o "$T/l2.sqlite" -- true 2>"$T/err"; check "--light --capture-range refused" 2 $?
"$G" run --light --no-counters --nvml-hz 0 -o "$T/l3.sqlite" -- true 2>"$T/err"; check "--light recording nothing refused" 2 $?
exit $fail
