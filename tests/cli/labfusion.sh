#!/usr/bin/env bash
# CPU tier: `gpudiag lab fusion` and `lab attention` on a machine without a GPU.
# Usage: labfusion.sh <gpudiag binary> <build dir>
set -u
bin=$1
export GPUDIAG_LIBCUDA=/nonexistent GPUDIAG_LIBNVML=/nonexistent
fail=0
check() { # name, condition result
	if [ "$2" = 0 ]; then echo "ok   $1"; else echo "FAIL $1"; fail=1; fi
}

out=$("$bin" lab 2>&1); rc=$?
check "lab lists fusion" $([ $rc = 0 ] && grep -q '^  fusion .*§9' <<<"$out"; echo $?)
check "lab lists attention" $([ $rc = 0 ] && grep -q '^  attention .*§9' <<<"$out"; echo $?)

out=$("$bin" lab --json 2>/dev/null); rc=$?
# one python3 start (slow on a loaded CI machine): valid JSON that names both labs
check "lab --json parses and names both" $([ $rc = 0 ] && python3 -c 'import json,sys; n=[l["name"] for l in json.load(sys.stdin)]; sys.exit(0 if "fusion" in n and "attention" in n else 1)' <<<"$out"; echo $?)

for lab in fusion attention; do
	err=$("$bin" lab $lab 2>&1 >/dev/null); rc=$?
	check "lab $lab without GPU exits 3" $([ $rc = 3 ]; echo $?)
	check "lab $lab without GPU: one line naming the lab" \
		$([ "$(wc -l <<<"$err")" = 1 ] && grep -q "lab $lab: no NVIDIA driver" <<<"$err"; echo $?)
	out=$("$bin" lab help $lab 2>&1); rc=$?
	check "lab help $lab" $([ $rc = 0 ] && grep -q "GPUDIAG_LAB_$(tr a-z A-Z <<<$lab)" <<<"$out"; echo $?)
	err=$("$bin" lab $lab --tokens 5 2>&1 >/dev/null); rc=$?
	check "lab $lab unknown option exits 2" $([ $rc = 2 ] && grep -q "unknown option '--tokens'" <<<"$err"; echo $?)
	err=$("$bin" lab $lab --runs 3 2>&1 >/dev/null); rc=$?
	check "lab $lab --runs 3 exits 2" $([ $rc = 2 ]; echo $?)
done
exit $fail
