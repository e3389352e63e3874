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

# --shape: checked before any GPU work (exit 2, the lab's own message); a valid shape gets as
# far as the missing driver (exit 3); labs without shapes refuse it
err=$("$bin" lab fusion --shape hidden=12 2>&1 >/dev/null); rc=$?
check "lab fusion --shape hidden=12 exits 2 naming the rule" \
	$([ $rc = 2 ] && grep -q "lab fusion: --shape: hidden 12 must be a multiple of 8" <<<"$err"; echo $?)
err=$("$bin" lab fusion --shape tokens=64,width=8 2>&1 >/dev/null); rc=$?
check "lab fusion --shape unknown key exits 2" $([ $rc = 2 ] && grep -q "unknown key 'width'" <<<"$err"; echo $?)
err=$("$bin" lab attention --shape 'heads=x' 2>&1 >/dev/null); rc=$?
check "lab attention --shape heads=x exits 2" $([ $rc = 2 ] && grep -q "lab attention: --shape: heads: 'x'" <<<"$err"; echo $?)
err=$("$bin" lab attention --shape 'lens=512..4k;dims=64;causal=yes' 2>&1 >/dev/null); rc=$?
check "lab attention valid --shape reaches the GPU check" $([ $rc = 3 ]; echo $?)
err=$("$bin" lab fusion --shape tokens=64,hidden=64 2>&1 >/dev/null); rc=$?
check "lab fusion valid --shape reaches the GPU check" $([ $rc = 3 ]; echo $?)
err=$("$bin" lab memory --shape a=1 2>&1 >/dev/null); rc=$?
check "lab memory --shape exits 2" $([ $rc = 2 ] && grep -q "lab memory: this lab takes no --shape" <<<"$err"; echo $?)
out=$("$bin" lab help fusion 2>&1)
check "lab help fusion documents --shape" $(grep -q -- "--shape tokens=N,hidden=N" <<<"$out"; echo $?)
exit $fail
