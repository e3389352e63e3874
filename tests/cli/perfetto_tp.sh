#!/usr/bin/env bash
# CPU tier: the native trace opened by Perfetto's own trace_processor (the engine of
# ui.perfetto.dev), when one is installed: its slice, flow and counter counts equal what
# tests/cli/pftrace.py reads, and it records no import error. Skipped (77) without it: no
# Debian package ships it, and the `perfetto` Python package downloads the binary at run time
# (docs/perfetto.md). Point GPUDIAG_TRACE_PROCESSOR at a trace_processor_shell, or put one on
# the PATH.
source "$(dirname "$0")/lib.sh" "$@"
TP=${GPUDIAG_TRACE_PROCESSOR:-$(command -v trace_processor_shell || command -v trace_processor || true)}
if [ -z "$TP" ] || [ ! -x "$TP" ]; then
  echo "SKIP: no trace_processor_shell (set GPUDIAG_TRACE_PROCESSOR)"
  exit 77
fi
F=tests/fixtures

# one number from a query: trace_processor_shell prints a header line, then the rows
tp1() {
  printf '%s\n' "$2" >"$T/q.sql"
  "$TP" -q "$T/q.sql" "$1" 2>"$T/tp.err" | tail -n 1 | tr -d '"\r '
}

for n in sample nvtx threads h200_sync; do
  p=$F/$n.gpudiag.sqlite
  expect_rc 0 -- "$GD" export "$p" --perfetto "$T/$n.pftrace"
  python3 - "$T/$n.pftrace" >"$T/want" <<'EOF'
import sys
sys.path.insert(0, "tests/cli")
import pftrace
tr = pftrace.Trace(sys.argv[1])
assert not tr.fail, tr.fail
print(len(tr.slices) + len(tr.instants), sum(1 for s in tr.slices if s["cat"] == "kernel"), tr.nflows, len(tr.counters))
EOF
  read -r slices kernels flows counters <"$T/want"
  got=$(tp1 "$T/$n.pftrace" "select count(*) from slice")
  [ "$got" = "$slices" ] && ok || bad "$n: trace_processor sees $got slices, pftrace.py $slices ($(head -c 300 "$T/tp.err"))"
  got=$(tp1 "$T/$n.pftrace" "select count(*) from slice where category = 'kernel'")
  [ "$got" = "$kernels" ] && ok || bad "$n: $got kernel slices in trace_processor, $kernels expected"
  got=$(tp1 "$T/$n.pftrace" "select count(*) from flow")
  [ "$got" = "$flows" ] && ok || bad "$n: $got flows in trace_processor, $flows expected"
  got=$(tp1 "$T/$n.pftrace" "select count(*) from counter")
  [ "$got" = "$counters" ] && ok || bad "$n: $got counter values in trace_processor, $counters expected"
  # a kernel's time and length in ns, as the profile has them
  want=$(python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('select min(start) from kernels').fetchone()[0])" "$p")
  got=$(tp1 "$T/$n.pftrace" "select min(ts) from slice where category = 'kernel'")
  [ "$got" = "$want" ] && ok || bad "$n: first kernel at $got in trace_processor, $want in the profile"
  got=$(tp1 "$T/$n.pftrace" "select count(*) from stats where (severity = 'error' or severity = 'data_loss') and value > 0")
  [ "$got" = 0 ] && ok || bad "$n: trace_processor reports import errors: $(tp1 "$T/$n.pftrace" "select group_concat(name) from stats where (severity = 'error' or severity = 'data_loss') and value > 0")"
done
finish
