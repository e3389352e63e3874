# CLI conventions: help, usage errors, exit codes, colour policy.
source "$(dirname "$0")/lib.sh" "$@"

expect_rc 2 -- "$GD"; expect_out "usage: gpudiag <command>"; expect_out "exit codes"
expect_rc 0 -- "$GD" help; expect_out "occupancy"; expect_out "info"
expect_rc 0 -- "$GD" --help
expect_rc 0 -- "$GD" help; expect_out "-V, --version"
# --version and -V: the version alone on the first line (for scripts), then the build and
# where this binary finds its injection library and sample profile (src/core/paths.h)
expect_rc 0 -- "$GD" --version
[ "$(head -1 "$T/out")" = "gpudiag $(sed -n 's/^project(gpudiag VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)" ] && ok ||
  bad "--version's first line is '$(head -1 "$T/out")'"
expect_out "injection library: "; expect_out "sample profile: "
grep -qE '^built (with the CUDA toolkit [0-9.]+, kernels for [0-9a-z -]+|without the CUDA toolkit: .*)$' "$T/out" && ok ||
  bad "--version does not say how gpudiag was built: $(cat "$T/out")"
cp "$T/out" "$T/version"
expect_rc 0 -- "$GD" -V; cmp -s "$T/out" "$T/version" && ok || bad "-V differs from --version"
# in the build tree the sample profile is the copy beside the binary (install.sh runs this
# test against an installed binary too)
if [ "$(realpath "$(dirname "$GD")")" = "$(realpath "$BUILD")" ]; then
  expect_out "sample profile: $(realpath "$BUILD")/sample.gpudiag.sqlite"
fi
expect_rc 0 -- env GPUDIAG_SAMPLE=/nonexistent/s.sqlite "$GD" -V
expect_out "sample profile: not found (GPUDIAG_SAMPLE=/nonexistent/s.sqlite)"
# help for help
expect_rc 0 -- "$GD" help help; expect_out "usage: gpudiag help [<command>]"; expect_out "gpudiag help help"
cp "$T/out" "$T/helphelp"
expect_rc 0 -- "$GD" help --help; cmp -s "$T/out" "$T/helphelp" && ok || bad "help --help differs from help help"
expect_rc 0 -- "$GD" help occupancy; expect_out "--threads"
expect_rc 0 -- "$GD" occupancy --help; expect_out "--regs"
expect_rc 0 -- "$GD" info -h; expect_out "usage: gpudiag info"
expect_rc 2 -- "$GD" frobnicate; expect_err "unknown command 'frobnicate'"; expect_one_line_err
expect_rc 2 -- "$GD" help frobnicate; expect_one_line_err
expect_rc 2 -- "$GD" occupancy --threads 256 --regs 32 --arch sm_90 --bogus; expect_err "unknown option '--bogus'"
expect_one_line_err
expect_rc 2 -- "$GD" info --device; expect_one_line_err
expect_rc 2 -- "$GD" info --device minus-one; expect_err "device index"

# colour: never when not a terminal, on a terminal unless NO_COLOR or --no-color
expect_rc 0 -- "$GD" occupancy --threads 256 --regs 128 --arch sm_90
if grep -q $'\033\[' "$T/out"; then bad "escape codes when not a terminal"; else ok; fi
if command -v script >/dev/null; then
  script -qfc "$GD occupancy --threads 256 --regs 128 --arch sm_90" "$T/tty" >/dev/null 2>&1
  grep -q $'\033\[1m' "$T/tty" && ok || bad "no colour on a terminal"
  NO_COLOR=1 script -qfc "$GD occupancy --threads 256 --regs 128 --arch sm_90" "$T/tty2" >/dev/null 2>&1
  grep -q $'\033\[1m' "$T/tty2" && bad "colour despite NO_COLOR" || ok
  script -qfc "$GD occupancy --no-color --threads 256 --regs 128 --arch sm_90" "$T/tty3" >/dev/null 2>&1
  grep -q $'\033\[1m' "$T/tty3" && bad "colour despite --no-color" || ok
fi
finish
