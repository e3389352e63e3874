#!/bin/bash
# CPU-tier tests: output that cannot be written is an error, never a silent success (stdout on
# a full device: one line "gpudiag: error: cannot write to standard output: ...", exit 1),
# and the common options are refused where they do not apply (--json=VALUE, --device on the
# commands that read a saved profile).
# usage: stdout_errors.sh <gpudiag binary> <build dir>
source "$(dirname "$0")/lib.sh" "$@"
export "${NOGPU_ENV[@]}"
F=tests/fixtures/sample.gpudiag.sqlite
F2=tests/fixtures/h200_clean.gpudiag.sqlite

full() { # NAME ARGS...: stdout to /dev/full gives exit 1 and the one line
  local name=$1; shift
  "$GD" "$@" >/dev/full 2>"$T/err"; local rc=$?
  [ "$rc" -eq 1 ] && ok || bad "$name >/dev/full exited $rc, expected 1; stderr: $(head -c 300 "$T/err")"
  # the one line, once, and nothing else but warnings (run says what it could not trace)
  # (a write that failed inside stdio, mid-report, has lost its errno: then no reason is given)
  case "$(grep -v '^gpudiag: warning: ' "$T/err")" in
  "gpudiag: error: cannot write to standard output: No space left on device" | \
  "gpudiag: error: cannot write to standard output (a write failed: a full disk, a closed pipe or an I/O error)") ok ;;
  *) false ;;
  esac ||
    bad "$name >/dev/full: stderr is not the one line: $(head -c 300 "$T/err")"
}
if [ -c /dev/full ]; then
  full report report "$F"
  full "report --json" report "$F" --json
  full diff diff "$F" "$F2"
  full "diff --json" diff "$F" "$F2" --json
  full occupancy occupancy --arch sm_90 --threads 256 --regs 32
  full "export --perfetto -" export "$F" --perfetto -
  full "help run" help run
  full "help" help
  full "--version" --version
  full "run --json" run --json -o "$T/r.sqlite" -- true
  # a failing command keeps its own code; the lost output is still said
  "$GD" report /nonexistent.sqlite >/dev/full 2>"$T/err"; [ $? -eq 5 ] && ok || bad "failed report kept its code"
else
  echo "skip /dev/full tests (no /dev/full here)"
fi
# a closed stdout that nothing is written to is not an error (as with coreutils)
expect_rc 0 -- "$GD" run -o "$T/c.sqlite" -- true >&-
# the ordinary case still succeeds
expect_rc 0 -- "$GD" report "$F"

# --json takes no value
expect_rc 2 -- "$GD" report "$F" --json=1
expect_err "report: --json takes no value"
expect_one_line_err
expect_rc 2 -- "$GD" occupancy --arch sm_90 --threads 256 --regs 32 --json=0
expect_err "occupancy: --json takes no value"

# --device does not apply to a saved profile
for c in "report $F" "export $F --perfetto $T/t.json" "diff $F $F2"; do
  set -- $c
  expect_rc 2 -- "$GD" "$@" --device 0
  expect_err "$1 reads a saved profile; --device does not apply"
  expect_one_line_err
  expect_rc 2 -- "$GD" "$@" --device=1
done
[ ! -e "$T/t.json" ] && ok || bad "export --device wrote its output"
finish
