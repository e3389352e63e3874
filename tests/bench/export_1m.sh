#!/usr/bin/env bash
# Benchmark (not a test): `gpudiag export --perfetto` on the synthetic profile of 1 million
# kernels and 1 million launch API calls (as tests/bench/report_1m.sh makes it), Chrome-trace
# JSON against Perfetto's native protobuf, in the same run. Target (issue 20): the protobuf
# trace at most 1/5 of the JSON's size and time. Each format runs ROUNDS times, interleaved;
# the median of wall time and of user+sys CPU time is kept, with the peak RSS
# (/usr/bin/time -v) and the file's size. With a second binary (BASELINE, e.g. a build of
# main before the native format), its JSON export is timed too, as "today's" reference.
# usage: tests/bench/export_1m.sh [gpudiag binary] [kernels] [BASELINE binary] [rounds]
set -eu
G=${1:-./build/gpudiag}
N=${2:-1000000}
BASE=${3:-}
ROUNDS=${4:-3}
TMP=${TMPDIR:-/tmp}
P=$TMP/gpudiag-bench-$N.sqlite
if [ ! -s "$P" ]; then
	echo "generating $P ($N kernels; takes a while, kept for the next run)"
	python3 tests/fixtures/gen_profile.py big "$P" --kernels "$N"
fi
echo "profile: $P ($(du -h "$P" | cut -f1)); $(nproc) cores; load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
cat "$P" >/dev/null # warm the page cache: the benchmark measures gpudiag, not the disk

# run NAME BINARY OUT [ARGS...]: one export; appends "wall cpu rss size" to $TMP/bench.NAME
run() {
	local name=$1 bin=$2 out=$3
	shift 3
	rm -f "$out"
	/usr/bin/time -v "$bin" export "$P" --perfetto "$out" "$@" >/dev/null 2>"$TMP/bench.time"
	awk -v size="$(stat -c %s "$out")" '
		/Elapsed \(wall clock\)/ { n = split($NF, t, ":"); w = n == 3 ? t[1] * 3600 + t[2] * 60 + t[3] : t[1] * 60 + t[2] }
		/User time/ { u = $NF } /System time/ { s = $NF } /Maximum resident set size/ { r = $NF / 1024 }
		END { printf "%.3f %.3f %.1f %d\n", w, u + s, r, size }' "$TMP/bench.time" >>"$TMP/bench.$name"
	rm -f "$out"
}
names="json protobuf"
[ -n "$BASE" ] && names="baseline $names"
for n in $names; do rm -f "$TMP/bench.$n"; done
for i in $(seq "$ROUNDS"); do
	[ -n "$BASE" ] && run baseline "$BASE" "$TMP/gpudiag-bench.base.json"
	run json "$G" "$TMP/gpudiag-bench.json"
	run protobuf "$G" "$TMP/gpudiag-bench.pftrace"
done
median() { sort -n | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
printf '%-9s %8s %8s %8s %12s\n' format wall_s cpu_s rss_MB size_MB
for n in $names; do
	w=$(cut -d' ' -f1 "$TMP/bench.$n" | median)
	c=$(cut -d' ' -f2 "$TMP/bench.$n" | median)
	r=$(cut -d' ' -f3 "$TMP/bench.$n" | sort -n | tail -1)
	s=$(cut -d' ' -f4 "$TMP/bench.$n" | head -1)
	printf '%-9s %8.2f %8.2f %8.1f %12.1f\n' "$n" "$w" "$c" "$r" "$(awk -v s="$s" 'BEGIN { print s / 1e6 }')"
	eval "w_$n=$w c_$n=$c s_$n=$s"
done
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f (1/%.1f)", a / b, b / a }'; }
echo "protobuf / JSON of this build:  size $(ratio "$s_protobuf" "$s_json"), wall $(ratio "$w_protobuf" "$w_json"), cpu $(ratio "$c_protobuf" "$c_json")"
if [ -n "$BASE" ]; then
	echo "protobuf / baseline JSON:       size $(ratio "$s_protobuf" "$s_baseline"), wall $(ratio "$w_protobuf" "$w_baseline"), cpu $(ratio "$c_protobuf" "$c_baseline")"
fi
echo "target: at most 1/5 of the JSON's size and time (median of $ROUNDS interleaved runs; load average after:"
echo "$(cut -d' ' -f1-3 /proc/loadavg); on a busy machine the wall time includes waiting for a core, cpu is the work)"
