#!/usr/bin/env bash
# CPU-tier CLI tests of the execution labs (launch, grid, divergence, occupancy, streams, sfu):
# listing, help, the no-GPU error and bad options. Runs with no GPU (the driver and NVML are
# pointed at a missing file), so it passes on the GPU machine too.
# usage: labexec.sh <gpudiag binary> <build dir>
set -u
bin=$1
export GPUDIAG_LIBCUDA=/nonexistent GPUDIAG_LIBNVML=/nonexistent NO_COLOR=1
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

expect() { # expect <exit code> <grep pattern for stdout+stderr> <args...>
	local want=$1 pat=$2 rc
	shift 2
	"$bin" "$@" >"$tmp/out" 2>&1
	rc=$?
	if [ "$rc" != "$want" ]; then
		echo "FAIL: gpudiag $*: exit $rc, wanted $want"; cat "$tmp/out"; fail=1; return
	fi
	if ! grep -q -- "$pat" "$tmp/out"; then
		echo "FAIL: gpudiag $*: output lacks '$pat'"; cat "$tmp/out"; fail=1; return
	fi
	echo "ok: gpudiag $* → $rc"
}

labs="launch grid divergence occupancy streams sfu"
# the listing names every lab with its guide section
for l in $labs; do expect 0 "^  $l " lab; done
expect 0 "launch *§2 §9" lab
expect 0 "streams *§11" lab
# help works without a GPU and says what the lab measures
expect 0 "CUDA Graph" lab help launch
expect 0 "%smid" lab help grid
expect 0 "mask rewrite" lab help divergence
expect 0 "dynamic shared memory" lab help occupancy
expect 0 "legacy default stream" lab help streams
expect 0 "FP64" lab help sfu
# no GPU: one line naming the lab and the missing driver, exit 3, nothing on stdout
for l in $labs; do
	expect 3 "error: lab $l: no NVIDIA driver" lab "$l"
	expect 3 "error: lab $l: no NVIDIA driver" lab "$l" --json --quick
	"$bin" lab "$l" --json >"$tmp/stdout" 2>/dev/null
	if [ -s "$tmp/stdout" ]; then echo "FAIL: lab $l --json wrote to stdout without a GPU"; fail=1; fi
	n=$(grep -c . "$tmp/out")
	if [ "$n" != 1 ]; then echo "FAIL: lab $l: $n lines of error, wanted 1"; fail=1; fi
done
# bad options: usage errors (exit 2) before any GPU is needed
expect 2 "runs must be 10 to 64, not 5" lab grid --runs 5
expect 2 "runs must be 10 to 64, not 65" lab sfu --runs 65
expect 2 "unknown option '--bogus'" lab streams --bogus
expect 2 "unexpected argument 'extra'" lab divergence extra
expect 2 "size needs a size" lab occupancy --size -5
expect 2 "unknown lab 'divergnce'" lab divergnce
expect 2 "name a lab" lab help
exit $fail
