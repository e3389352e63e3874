#!/usr/bin/env bash
# CPU-tier benchmark (not a timed test): `gpudiag report` on a synthetic profile of 1 million
# kernels (plus 1 million launch API calls, 100 syncs, NVML samples), target ≤ 3 s and
# ≤ 500 MB peak RSS on the 2-core CI machine (issue 8). Prints wall time and peak RSS as
# measured by /usr/bin/time -v, for the terminal report, --json and --html. The scenario
# big_torch adds the framework view's ranges (issue 21: an op range per launch, half of them
# autograd's backward on a second thread, a module range per 4 launches; docs/framework-view.md).
# usage: tests/bench/report_1m.sh [gpudiag binary] [kernels] [big|big_torch]
set -eu
G=${1:-./build/gpudiag}
N=${2:-1000000}
S=${3:-big}
case $S in big | big_torch) ;; *) echo "unknown scenario '$S' (big or big_torch)" >&2; exit 2 ;; esac
P=${TMPDIR:-/tmp}/gpudiag-bench-$S-$N.sqlite
[ "$S" = big ] && P=${TMPDIR:-/tmp}/gpudiag-bench-$N.sqlite # the name it always had
if [ ! -s "$P" ]; then
	echo "generating $P ($N kernels; takes a while, kept for the next run)"
	python3 tests/fixtures/gen_profile.py "$S" "$P" --kernels "$N"
fi
echo "profile: $P ($(du -h "$P" | cut -f1))"
cat "$P" >/dev/null # warm the page cache: the benchmark measures gpudiag, not the disk
printf '%-10s %8s %8s %8s %12s\n' mode wall_s user_s sys_s peak_rss_MB
for mode in terminal json html; do
	case $mode in
	terminal) args=() ;;
	json) args=(--json) ;;
	html) args=(--html "${TMPDIR:-/tmp}/gpudiag-bench.html") ;;
	esac
	/usr/bin/time -v "$G" report "$P" "${args[@]}" >/dev/null 2>"${TMPDIR:-/tmp}/gpudiag-bench.time"
	w=$(grep 'Elapsed (wall clock)' "${TMPDIR:-/tmp}/gpudiag-bench.time" | awk '{print $NF}')
	r=$(grep 'Maximum resident set size' "${TMPDIR:-/tmp}/gpudiag-bench.time" | awk '{print $NF}')
	u=$(grep 'User time' "${TMPDIR:-/tmp}/gpudiag-bench.time" | awk '{print $NF}')
	sy=$(grep 'System time' "${TMPDIR:-/tmp}/gpudiag-bench.time" | awk '{print $NF}')
	secs=$(echo "$w" | awk -F: '{ if (NF == 3) print $1*3600 + $2*60 + $3; else print $1*60 + $2 }')
	printf '%-10s %8.2f %8.2f %8.2f %12.1f\n' $mode "$secs" "$u" "$sy" "$(awk -v r="$r" 'BEGIN{print r/1024}')"
done
echo "targets: ≤ 3 s wall and ≤ 500 MB each (load average now: $(cut -d' ' -f1 /proc/loadavg); on a busy machine"
echo "wall time includes waiting for a core, user+sys is the work)"
