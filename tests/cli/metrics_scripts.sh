#!/usr/bin/env bash
# The GPU tier's metrics comparisons on hand-made profiles (gen_profile.py's "metrics" run, the
# real schema), so that what they pass and fail cannot change unseen:
#  - tests/gpu/metrics/batch_compare.py (the batch step: batched launches against the same
#    launches alone): equal profiles agree; a value 5 % off fails; a byte count 4 KiB off does
#    not; DRAM writes lower when batched are expected, higher fail; a launch in one file only
#    fails;
#  - tests/gpu/metrics/compare.py table with a LABEL.b2 row (the agree step's batch of two):
#    the later launch of the two is the one compared with ncu's; a profile of one launch where
#    two are expected fails.
set -u
cd "$(dirname "$0")/../.."
command -v python3 >/dev/null && command -v sqlite3 >/dev/null || { echo "skip: needs python3 and sqlite3"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
FAILS=0
check() { # what expected actual
	if [ "$2" = "$3" ]; then echo "ok   $1"; else echo "FAIL $1: expected [$2], got [$3]"; FAILS=$((FAILS + 1)); fi
}
D=tests/gpu/metrics
# kernels.cu's launches are all profiled: the run's skipped cooperative launch left out
gen() { python3 tests/fixtures/gen_profile.py metrics "$T/alone.sqlite" &&
	sqlite3 "$T/alone.sqlite" "delete from metric_launches where status != 'ok'" || exit 1; }
gen
# set METRIC of the launch with correlation CORR to its value times FACTOR plus ADD
setv() { # file corr metric factor add
	sqlite3 "$1" "update metric_values set value = value * $4 + $5 where correlation = $2 and
		metric = (select id from strings where value = '$3')"
}
batch() { cp "$T/alone.sqlite" "$T/b.sqlite"; }
bc() { python3 $D/batch_compare.py "$T/alone.sqlite" "$T/b.sqlite" >"$T/bc.out" 2>&1; echo $?; }

# ---- batch_compare.py
batch
check "batch: the same values agree" 0 "$(bc)"
check "batch: 15 launches, none outside" 1 "$(grep -c '^batch: 15 launches, [0-9]* values compared, 0 outside 3 %' "$T/bc.out")"
batch; setv "$T/b.sqlite" 6 lts__t_bytes.sum 1.05 0
check "batch: L2 bytes 5 % high fail" 1 "$(bc)"
check "batch: ... named" 1 "$(grep -c '^FAIL .*#1 lts__t_bytes.sum' "$T/bc.out")"
batch; setv "$T/b.sqlite" 6 lts__t_bytes.sum 1.02 0
check "batch: L2 bytes 2 % high agree" 0 "$(bc)"
batch; setv "$T/b.sqlite" 2 dram__bytes_write.sum 0 4000
setv "$T/alone.sqlite" 2 dram__bytes_write.sum 0 0
check "batch: a byte count 4000 B apart (0 against 4000) agrees" 0 "$(bc)"
gen
batch; setv "$T/b.sqlite" 6 dram__bytes_write.sum 0.8 0
check "batch: DRAM writes lower when batched: expected" 0 "$(bc)"
check "batch: ... said" 1 "$(grep -c '^expected .*#1 dram__bytes_write.sum' "$T/bc.out")"
batch; setv "$T/b.sqlite" 6 dram__bytes_write.sum 1.2 0
check "batch: DRAM writes higher when batched fail" 1 "$(bc)"
batch; sqlite3 "$T/b.sqlite" "delete from metric_launches where correlation = 9"
check "batch: a launch profiled alone only fails" 1 "$(bc)"
check "batch: ... named" 1 "$(grep -c '^FAIL _Z14register_heavyPfi #1: profiled in one file only' "$T/bc.out")"

# ---- compare.py table, LABEL.b2: launches 1 and 2 of strided_gather (correlations 1 and 6),
# the second against ncu's second launch
keep() { # file correlations...: only those launches, their kernel records given the short name
	local f=$1; shift
	local in; in=$(IFS=,; echo "$*")
	sqlite3 "$f" "delete from metric_launches where correlation not in ($in);
		delete from metric_values where correlation not in ($in);
		insert into strings (value) values ('strided_gather');
		update kernels set short_name = (select max(id) from strings where value = 'strided_gather')
			where correlation in ($in);"
}
G=$T/agree; mkdir -p "$G"
cp "$T/alone.sqlite" "$G/strided.sqlite"; keep "$G/strided.sqlite" 6
cp "$T/alone.sqlite" "$G/strided.b2.sqlite"; keep "$G/strided.b2.sqlite" 1 6
# ncu's CSV of the same launch: the values gpudiag holds for correlation 6
python3 - "$G/strided.sqlite" "$G/strided.ncu.csv" <<'PY'
import csv, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
rows = db.execute("select s.value, v.value from metric_values v join strings s on s.id = v.metric "
                  "where v.correlation = 6 and v.value is not null").fetchall()
with open(sys.argv[2], "w", newline="") as f:
    f.write("==PROF== Connected to process 1\n")
    w = csv.writer(f, quoting=csv.QUOTE_ALL)
    w.writerow(["ID", "Kernel Name", "Metric Name", "Metric Unit", "Metric Value"])
    for name, v in rows:
        w.writerow(["1", "strided_gather(const float *, float *, int)", name, "", repr(v)])
PY
tab() { python3 $D/compare.py table "$G" "$@" >"$T/tab.out" 2>&1; echo $?; }
check "agree: one launch against ncu's" 0 "$(tab strided)"
check "agree: the batch of two's second launch against ncu's" 0 "$(tab strided.b2)"
check "agree: ... every metric" 1 "$(grep -c '^strided.b2 kernel strided_gather: \([0-9]*\) of \1 metrics agree' "$T/tab.out")"
# the batch's first launch far off changes nothing; its second 10 % off fails
setv "$G/strided.b2.sqlite" 1 lts__t_bytes.sum 2 0
check "agree: the first launch of the batch is not the one compared" 0 "$(tab strided.b2)"
setv "$G/strided.b2.sqlite" 6 lts__t_bytes.sum 1.1 0
check "agree: the second launch 10 % off fails" 1 "$(tab strided.b2)"
check "agree: ... on that metric" 1 "$(grep -c '^strided.b2 *lts__t_bytes.sum .*FAIL' "$T/tab.out")"
cp "$G/strided.sqlite" "$G/strided.b2.sqlite"
check "agree: a batch of two that profiled one launch fails" 1 "$(tab strided.b2)"
check "agree: ... said" 1 "$(grep -c 'FAIL: profiled launches: gpudiag 1, ncu 1 (expected 2 and 1)' "$T/tab.out")"

[ $FAILS = 0 ] || { echo "$FAILS check(s) failed"; exit 1; }
echo "all checks passed"
