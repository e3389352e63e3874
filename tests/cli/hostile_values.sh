#!/usr/bin/env bash
# CPU tier: hostile-but-valid profiles. A profile is a SQLite file from another machine and
# anyone can `sqlite3 p.sqlite "UPDATE ..."` it: every device property, launch dimension and
# timestamp below is a value SQLite accepts. Each case is one UPDATE on a copy of a recorded
# fixture; report (terminal, --json, --html), diff and export must then end with exit 0, or
# exit 5 with one line on stderr (the profile refused), and never by a signal. Run in a
# sanitizer build (GPUDIAG_SANITIZE=ON), the same cases also fail on any ASan/UBSan report,
# which goes to stderr. A device property out of range must leave occupancy unknown, with
# the reason, rather than a number.
# usage: hostile_values.sh <gpudiag binary> <build dir>
source "$(dirname "$0")/lib.sh" "$@"
export NO_COLOR=1 "${NOGPU_ENV[@]}"
F=tests/fixtures
I64MAX=9223372036854775807
I64MIN=-9223372036854775808
I32MAX=2147483647

# run_ok NAME cmd...: exit 0 or 5 (then one stderr line), no signal, no sanitizer report
run_ok() {
  local name=$1; shift
  "$@" >"$T/out" 2>"$T/err"; local rc=$?
  if [ "$rc" -ne 0 ] && [ "$rc" -ne 5 ]; then
    bad "$name: '$*' exited $rc; stderr: $(head -c 400 "$T/err")"; return
  fi
  if grep -qE "runtime error|AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer" "$T/err"; then
    bad "$name: sanitizer report: $(grep -m1 -E "runtime error|Sanitizer" "$T/err")"; return
  fi
  if [ "$rc" -eq 5 ] && [ "$(wc -l <"$T/err")" -ne 1 ]; then
    bad "$name: exit 5 without a one-line reason: $(head -c 400 "$T/err")"; return
  fi
  ok
}

# hostile NAME FIXTURE SQL: every command over a copy of FIXTURE (a recorded fixture, or a
# generated scenario gen_*) changed by SQL
hostile() {
  local name=$1 fix=$2 sql=$3 p="$T/$1.sqlite" src="$F/$2.gpudiag.sqlite"
  [ -f "$src" ] || src="$T/$fix.gpudiag.sqlite"
  cp "$src" "$p"
  sqlite3 "$p" "$sql" || { bad "$name: sqlite3 '$sql'"; return; }
  run_ok "$name report" "$GD" report "$p"
  run_ok "$name report --json" "$GD" report "$p" --json
  [ -s "$T/out" ] && { python3 -m json.tool "$T/out" >/dev/null 2>&1 && ok || bad "$name: JSON does not parse"; }
  run_ok "$name report --html" "$GD" report "$p" --html "$T/$name.html"
  run_ok "$name diff" "$GD" diff "$src" "$p"
  run_ok "$name diff --json" "$GD" diff "$p" "$src" --json
  run_ok "$name export" "$GD" export "$p" --perfetto "$T/$name.json"
}

# ---- device properties (every one the calculator or a rule divides by) ----
for v in $I32MAX 0 -1 3 2048; do hostile "warp_size=$v" h200_clean "UPDATE devices SET warp_size=$v"; done
for v in 0 -1 $I32MAX; do hostile "sm_count=$v" h200_clean "UPDATE devices SET sm_count=$v"; done
hostile "max_threads_per_sm=1" h200_clean "UPDATE devices SET max_threads_per_sm=1, max_warps_per_sm=0"
hostile "max_threads_per_block=huge" h200_clean "UPDATE devices SET max_threads_per_block=$I32MAX"
hostile "max_blocks_per_sm=huge" h200_clean "UPDATE devices SET max_blocks_per_sm=$I32MAX"
hostile "regs_per_sm=huge" h200_clean "UPDATE devices SET regs_per_sm=$I32MAX, regs_per_block=$I32MAX"
hostile "smem=huge" h200_clean "UPDATE devices SET smem_per_sm=$I32MAX, smem_per_block=$I32MAX, smem_per_block_optin=$I32MAX, reserved_smem_per_block=$I32MAX"
hostile "smem=negative" h200_clean "UPDATE devices SET smem_per_sm=-1, smem_per_block=-1, reserved_smem_per_block=-1"
hostile "cc=huge" h200_clean "UPDATE devices SET cc_major=$I32MAX, cc_minor=-1"
for v in 0 -1 $I32MAX $I64MAX; do hostile "sm_clock=$v" h200_clean "UPDATE devices SET sm_clock_khz=$v"; done
for v in 0 -1 $I64MAX $I64MIN; do hostile "global_mem=$v" h200_clean "UPDATE devices SET global_mem_bytes=$v"; done
hostile "nvml=extreme" sample "UPDATE nvml_samples SET mem_total=$I64MAX, mem_used=$I64MIN, sm_mhz=$I32MAX, power_mw=-1, temp_c=$I32MAX, clock_reasons=-1"
hostile "nvml_t=extreme" sample "UPDATE nvml_samples SET t=CASE WHEN rowid % 2 THEN $I64MIN ELSE $I64MAX END"

# ---- launches ----
hostile "regs=1e9" h200_clean "UPDATE kernels SET regs=1000000000"
hostile "regs=-1" h200_clean "UPDATE kernels SET regs=-1"
hostile "block=0x0x0" h200_clean "UPDATE kernels SET block_x=0, block_y=0, block_z=0"
hostile "block=-1x-1x1" h200_clean "UPDATE kernels SET block_x=-1, block_y=-1, block_z=1"
hostile "block=max" h200_clean "UPDATE kernels SET block_x=$I32MAX, block_y=$I32MAX, block_z=$I32MAX"
for d in x y z; do hostile "grid_$d=max" h200_clean "UPDATE kernels SET grid_$d=$I32MAX"; done
hostile "grid=max^3" sample "UPDATE kernels SET grid_x=$I32MAX, grid_y=$I32MAX, grid_z=$I32MAX"
hostile "grid=-1" sample "UPDATE kernels SET grid_x=-1, grid_y=-1"
hostile "smem_launch=huge" h200_clean "UPDATE kernels SET static_smem=$I32MAX, dyn_smem=$I32MAX"
hostile "smem_launch=negative" h200_clean "UPDATE kernels SET static_smem=-1, dyn_smem=-1"
hostile "stream=extreme" sample "UPDATE kernels SET stream=CASE WHEN rowid % 2 THEN $I64MAX ELSE $I64MIN END"

# ---- timestamps: near the int64 limits, and records that end before they start ----
for t in kernels memcpy memset api sync; do
  hostile "$t.end<start" sample "UPDATE $t SET end = start - 1000000"
  hostile "$t.start=min" sample "UPDATE $t SET start=$I64MIN WHERE rowid % 3 = 0"
  hostile "$t.end=max" sample "UPDATE $t SET end=$I64MAX WHERE rowid % 3 = 1"
  hostile "$t.both=extreme" sample "UPDATE $t SET start=$I64MIN, end=$I64MAX WHERE rowid % 5 = 0"
  hostile "$t.reversed=extreme" sample "UPDATE $t SET start=$I64MAX, end=$I64MIN WHERE rowid % 5 = 1"
done
hostile "all.near_max" sample "UPDATE kernels SET start=$I64MAX-1000000+rowid, end=$I64MAX-1000000+rowid+10;
  UPDATE memcpy SET start=$I64MIN+rowid, end=$I64MIN+rowid+5; UPDATE api SET start=$I64MIN+rowid*2, end=$I64MAX-rowid"
hostile "meta=extreme" sample "UPDATE meta SET value='$I64MIN' WHERE key='start_ns'; UPDATE meta SET value='$I64MAX' WHERE key='end_ns'"
hostile "meta=reversed" sample "UPDATE meta SET value='$I64MAX' WHERE key='start_ns'; UPDATE meta SET value='$I64MIN' WHERE key='end_ns'"
# the rules that the recorded fixtures leave quiet (streams, occupancy, throttling, NCCL)
for s in default_stream occupancy throttle comm launch pageable memory; do
  python3 tests/fixtures/gen_profile.py "$s" "$T/gen_$s.gpudiag.sqlite" >/dev/null || { bad "generate $s"; continue; }
  hostile "gen_$s.extreme" "gen_$s" "UPDATE kernels SET start=$I64MIN WHERE rowid % 4 = 0;
    UPDATE kernels SET end=$I64MAX WHERE rowid % 4 = 1; UPDATE kernels SET end=start-5 WHERE rowid % 4 = 2;
    UPDATE api SET start=$I64MIN, end=$I64MAX WHERE rowid % 3 = 0; UPDATE memcpy SET end=$I64MAX;
    UPDATE nvml_samples SET t=$I64MAX WHERE rowid % 2 = 0"
  hostile "gen_$s.device" "gen_$s" "UPDATE devices SET warp_size=-1, sm_count=$I32MAX, sm_clock_khz=-1, global_mem_bytes=-1"
done
hostile "memory=extreme" sample "UPDATE memory SET time=$I64MIN, bytes=$I64MAX WHERE rowid % 2 = 0; UPDATE memory SET bytes=$I64MIN WHERE rowid % 2 = 1"

# ---- occupancy is unknown, with the reason, when the device description is out of range ----
# (or, should the reader fall back to the architecture table for such a value, a real one)
p="$T/ws.sqlite"
cp "$F/h200_clean.gpudiag.sqlite" "$p"
sqlite3 "$p" "UPDATE devices SET warp_size=$I32MAX"
expect_rc 0 -- "$GD" report "$p" --json
json_check '(lambda o, ks: (o["state"] == "insufficient" and "device properties out of range (warp size)" in o["headline"] and all(k["occupancy"] is None for k in ks)) or all(k["occupancy"] is not None and 0 < k["occupancy"] <= 1 for k in ks))([x for x in d["findings"] if x["id"] == "low_occupancy"][0], d["summary"]["top_kernels"])'
finish
