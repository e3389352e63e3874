# Shared helpers for the CLI tests (sourced; not a test itself).
# Usage in a test: source "$(dirname "$0")/lib.sh" "$@"
GD=$1
BUILD=$2
pass=0
fail=0
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
MOCK_ENV=(GPUDIAG_LIBCUDA="$BUILD/libgpudiag_mock_cuda.so" GPUDIAG_LIBNVML="$BUILD/libgpudiag_mock_nvml.so")
NOGPU_ENV=(GPUDIAG_LIBCUDA=/nonexistent/libcuda.so.1 GPUDIAG_LIBNVML=/nonexistent/libnvidia-ml.so.1)

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }

# expect_rc CODE -- command...   (stdout → $T/out, stderr → $T/err)
expect_rc() {
  local want=$1; shift; [ "$1" = "--" ] && shift
  "$@" >"$T/out" 2>"$T/err"; local rc=$?
  if [ "$rc" -eq "$want" ]; then ok; else bad "'$*' exited $rc, expected $want; stderr: $(head -c 300 "$T/err")"; fi
}
expect_out() { grep -qF -- "$1" "$T/out" && ok || bad "stdout lacks '$1'"; }
expect_err() { grep -qF -- "$1" "$T/err" && ok || bad "stderr lacks '$1'"; }
expect_one_line_err() { [ "$(wc -l <"$T/err")" -eq 1 ] && ok || bad "stderr is not one line: $(cat "$T/err")"; }
# json_check 'python expression over d' — stdout must parse as JSON and the expression hold
json_check() {
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert eval(sys.argv[2]), "false"' "$T/out" "$1" \
    2>"$T/pyerr" && ok ||
    bad "json check: $1: $(tail -1 "$T/pyerr")"
}
finish() { echo "$pass passed, $fail failed"; [ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]; }
