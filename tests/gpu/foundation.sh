# GPU tier for the foundation (issue 3): info and occupancy on a real GPU.
#  - gpudiag info (terminal and JSON) agrees with nvidia-smi on name, UUID, memory, clocks;
#  - the occupancy fixture: cudaOccupancyMaxActiveBlocksPerMultiprocessor for ≥ 500 real
#    kernel configurations, saved to $OUT/occupancy_h200.csv, and compared with gpudiag's
#    calculator (every row must match);
#  - gpudiag occupancy --device agrees with the table for this GPU.
set -u
log=$OUT/foundation.log
: >"$log"
fail=0
say() { echo "$*" | tee -a "$log"; }

"$GD" info >"$OUT/info.txt" 2>&1 || { say "FAIL: gpudiag info exited $?"; fail=1; }
"$GD" info --json >"$OUT/info.json" 2>>"$log" || { say "FAIL: gpudiag info --json"; fail=1; }
cat "$OUT/info.txt" >>"$log"
python3 - "$OUT/info.json" <<'PY' 2>&1 | tee -a "$log"
import json, subprocess, sys
d = json.load(open(sys.argv[1]))["devices"][0]
q = subprocess.run(["nvidia-smi", "--query-gpu=name,uuid,memory.total,clocks.max.sm,power.limit",
                    "--format=csv,noheader,nounits", "-i", "0"], capture_output=True, text=True).stdout
name, uuid, mem, maxclk, plimit = [x.strip() for x in q.split(",")]
checks = [
    ("name", d["identity"]["name"] == name, d["identity"]["name"], name),
    ("uuid", d["identity"]["uuid"] == uuid, d["identity"]["uuid"], uuid),
    ("memory MiB", abs(d["memory"]["memory_bytes"] / 2**20 - float(mem)) < 1024, d["memory"]["memory_bytes"] / 2**20, mem),
    ("max SM clock", d["live"]["sm_clock_max_mhz"] == int(float(maxclk)), d["live"]["sm_clock_max_mhz"], maxclk),
    ("power limit", abs((d["live"]["power_limit_w"] or 0) - float(plimit)) < 1, d["live"]["power_limit_w"], plimit),
]
bad = 0
for what, ok, mine, theirs in checks:
    print(f"info vs nvidia-smi: {what:12s} {'ok ' if ok else 'DIFF'} gpudiag={mine} nvidia-smi={theirs}")
    bad += not ok
sys.exit(1 if bad else 0)
PY
[ "${PIPESTATUS[0]}" -eq 0 ] || fail=1

"$BUILD/gpudiag_occ_fixture" >"$OUT/occupancy_h200.csv" 2>>"$log" || { say "FAIL: occupancy fixture program"; fail=1; }
rows=$(grep -vc '^#' "$OUT/occupancy_h200.csv")
say "occupancy fixture: $rows configurations recorded"
# compare every row with gpudiag's calculator (the CPU-tier test, pointed at the new file)
GPUDIAG_OCC_FIXTURE="$OUT/occupancy_h200.csv" "$BUILD/occupancy_test" 2>&1 | tee -a "$log"
[ "${PIPESTATUS[0]}" -eq 0 ] || fail=1
"$GD" occupancy --device 0 --threads 256 --regs 128 --grid 3907 >>"$log" 2>&1 || fail=1
exit $fail
