#!/usr/bin/env bash
# gpudiag lab without a GPU: the listing, help, usage errors (exit 2) and the no-GPU error
# (exit 3). Usage: lab.sh <gpudiag binary> <build dir>
set -u
bin=$1
export GPUDIAG_LIBCUDA=/nonexistent GPUDIAG_LIBNVML=/nonexistent
fail=0
t() { # t <expected exit> <description> <command...>; output in $out
	local want=$1 what=$2
	shift 2
	out=$("$@" 2>&1)
	local rc=$?
	if [ "$rc" != "$want" ]; then
		echo "FAIL: $what: exit $rc, wanted $want; output:"; echo "$out"; fail=1
	fi
}
has() { # has <description> <text>
	if ! grep -qF -- "$2" <<<"$out"; then echo "FAIL: $1: no '$2' in:"; echo "$out"; fail=1; fi
}

t 0 "listing" "$bin" lab
has "listing" "memory"
has "listing" "coalescing"
has "listing" "precision"
[ "$(grep -c '^  [a-z]' <<<"$out")" -ge 3 ] || { echo "FAIL: listing has fewer than 3 lab lines"; fail=1; }
# rows aligned by display width ("§" is two bytes, one column): the guide column and the
# summary column each start at the same column on every lab line
python3 -c '
import re, sys
rows = [l for l in sys.stdin.read().splitlines() if re.match(r"^  [a-z]", l)]
g = {l.index("§") for l in rows}
s = {re.match(r"^  \S+ +§[^ ]*(?: §[^ ]*)* +", l).end() for l in rows}
assert len(rows) >= 3 and len(g) == 1 and len(s) == 1, (g, s)
' <<<"$out" || { echo "FAIL: lab listing columns not aligned:"; echo "$out"; fail=1; }

t 0 "listing as JSON" "$bin" lab --json
echo "$out" | python3 -m json.tool >/dev/null || { echo "FAIL: lab --json is not JSON"; fail=1; }
echo "$out" | python3 -c 'import json,sys; d=json.load(sys.stdin); assert {"memory","coalescing","precision"} <= {x["name"] for x in d}' \
	|| { echo "FAIL: lab --json lacks a lab"; fail=1; }

t 0 "help for a lab" "$bin" lab help coalescing
has "help for a lab" "stride sweep"
has "help for a lab" "--quick"
t 0 "gpudiag help lab" "$bin" help lab
has "gpudiag help lab" "gpudiag lab <name>"

t 2 "unknown lab" "$bin" lab nosuchlab
has "unknown lab" "unknown lab 'nosuchlab'"
has "unknown lab lists the labs" "memory"
t 2 "unknown lab in help" "$bin" lab help nosuchlab
t 2 "bad --runs" "$bin" lab memory --runs 3
has "bad --runs" "--runs"
t 2 "unknown option" "$bin" lab memory --bogus
t 2 "stray argument" "$bin" lab memory extra
t 2 "bad --size" "$bin" lab memory --size lots
has "bad --size" "--size"

t 3 "no GPU: memory" "$bin" lab memory
has "no GPU message" "lab memory:"
has "no GPU message names the driver" "driver"
t 3 "no GPU: coalescing --quick --json" "$bin" lab coalescing --quick --json
t 3 "no GPU: precision" "$bin" lab precision --csv /tmp/never-written-$$.csv
[ ! -e /tmp/never-written-$$.csv ] || { echo "FAIL: a CSV was written without a GPU"; fail=1; }

exit $fail
