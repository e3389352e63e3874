#!/bin/bash
# GPU tier for `gpudiag run` / `gpudiag export` (issue 8). Run from the repo root on a GPU
# machine with the binary at ./build/gpudiag (and build/libgpudiag_inject.so beside it):
#   OUT=/some/dir bash tests/gpu/profiler.sh
# Builds the test programs of tests/gpu/progs/ with nvcc, runs each under gpudiag run and
# checks its exit code and its profile (sqlite3 queries), checks NVTX ranges, capture ranges,
# the legacy default stream, NVML samples and the Perfetto export, then measures tracing
# overhead on a PyTorch transformer training step (plain vs gpudiag run vs gpudiag run
# --api none vs torch.profiler, interleaved in the same rounds, medians), the added cost per
# launch of each tracing mode (plain vs default vs --api none vs --latency, 300 k tiny
# launches, interleaved), and kernel count/time agreement with torch.profiler.
# Full log: $OUT/profiler.log. Small profiles for fixtures: $OUT/fixtures/. The summary table
# is printed last. Exit status: non-zero on a correctness failure (benchmarks never fail it).
# Budget: about 180 s on an H200 (ROUNDS=2 PyTorch rounds of 4 runs each; ROUNDS=1 is faster).
set -u
OUT=${OUT:-/tmp/gpudiag-profiler-out}
mkdir -p "$OUT/fixtures"
LOG="$OUT/profiler.log"
ROUNDS=${ROUNDS:-2}
G=$(realpath "${GD:-./${BUILD:-build}/gpudiag}")
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
exec 3>&1 >"$LOG" 2>&1
T_START=$(date +%s)
FAILS=0
SUMMARY=()

say() { echo "$*"; }
row() { SUMMARY+=("$(printf '%-34s %-6s %s' "$1" "$2" "$3")"); }
pass() { say "ok   $1: $2"; row "$1" ok "$2"; }
fail() { say "FAIL $1: $2"; row "$1" FAIL "$2"; FAILS=$((FAILS + 1)); }
# q NAME SQL: rows of the profile $W/NAME.sqlite, columns joined by '|' (sqlite3 CLI, or
# python3's sqlite3 module where the CLI is not installed)
q() {
	if command -v sqlite3 >/dev/null; then
		sqlite3 "$W/$1.sqlite" "$2" 2>&1
	else
		python3 -c 'import sqlite3, sys
try:
    for r in sqlite3.connect(sys.argv[1]).execute(sys.argv[2]):
        print("|".join("" if v is None else str(v) for v in r))
except Exception as e:
    print("error:", e)' "$W/$1.sqlite" "$2"
	fi
}
calc() { awk "BEGIN { printf \"%.${2:-3}f\", $1 }"; }
# expect NAME WHAT EXPECTED ACTUAL
expect() { if [ "$3" = "$4" ]; then pass "$1" "$2 = $4"; else fail "$1" "$2: expected $3, got $4"; fi; }
# atleast NAME WHAT MIN ACTUAL
atleast() {
	if [[ "$4" =~ ^[0-9]+$ ]] && [ "$4" -ge "$3" ]; then pass "$1" "$2 = $4 (>= $3)"; else fail "$1" "$2: expected >= $3, got $4"; fi
}

say "== gpudiag profiler GPU tier, $(date -u +%FT%TZ)"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true
"$G" --version
[ -x "$G" ] && [ -f "$(dirname "$G")/libgpudiag_inject.so" ] || { fail setup "build/gpudiag or libgpudiag_inject.so missing"; }

# ---- build the test programs (in parallel)
mkdir -p "$W/bin"
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
ls tests/gpu/progs/*.cu | xargs -P 8 -I{} sh -c \
	'n=$(basename {} .cu); "$0" -O2 -arch=native -o "$1/bin/$n" {} -ldl -lpthread || echo "BUILD FAILED $n"' \
	"$NVCC" "$W" 2>&1 | tee "$W/build.log"
grep -q "BUILD FAILED" "$W/build.log" && fail build "$(grep -c 'BUILD FAILED' "$W/build.log") test programs did not build"
say "build done at +$(($(date +%s) - T_START)) s"

# run NAME EXPECTED_RC [gpudiag options] -- PROGRAM ARGS  (profile: $W/NAME.sqlite)
run() {
	local name=$1 want=$2 rc t0 t1
	shift 2
	t0=$(date +%s.%N)
	timeout -k 5 120 "$G" run -o "$W/$name.sqlite" "$@" >"$W/$name.out" 2>&1
	rc=$?
	t1=$(date +%s.%N)
	say "--- $name (rc $rc, $(calc "$t1 - $t0" 2) s): $*"
	cat "$W/$name.out"
	expect "$name" "exit code" "$want" "$rc"
	if [ -f "$W/$name.sqlite" ]; then
		expect "$name" "profile readable, schema" 1 "$(q "$name" "select value from meta where key='schema_version'")"
	else
		fail "$name" "no profile written"
	fi
}
B=$W/bin

run no_cuda 4 -- "$B/no_cuda"
expect no_cuda "process untraced (no CUDA)" "0|no_cuda" "$(q no_cuda "select traced, status from processes")"

run fork_exec 0 -- "$B/fork_exec"
expect fork_exec "traced processes" 2 "$(q fork_exec "select count(*) from processes where traced=1")"
expect fork_exec "kernels per process" "10,20" "$(q fork_exec "select group_concat(n) from (select count(*) n from kernels group by pid order by n)")"

t0=$(date +%s)
run fork_noexec 0 -- "$B/fork_noexec"
expect fork_noexec "kernels (10 before fork + 5 after)" 15 "$(q fork_noexec "select count(*) from kernels")"

run exec_self 3 -- "$B/exec_self"
expect exec_self "kernels (10 flushed before exec + 20 after)" 30 "$(q exec_self "select count(*) from kernels")"

run threads 0 -- "$B/threads"
expect threads "kernels" 200 "$(q threads "select count(*) from kernels")"
expect threads "streams used" 4 "$(q threads "select count(distinct stream) from kernels")"
expect threads "launch API calls joined to kernels" 200 "$(q threads "select count(*) from api a join kernels k on k.pid=a.pid and k.correlation=a.correlation")"
expect threads "kernels on the legacy default stream" 0 "$(q threads "select count(*) from kernels k join contexts c on c.pid=k.pid and c.context=k.context where k.stream=c.null_stream")"
atleast threads "stream sync records" 4 "$(q threads "select count(*) from sync where type=3")"
expect threads "kernel names demangled" k_add "$(q threads "select distinct s.value from kernels k join strings s on s.id=k.short_name")"
expect threads "regs/block dims recorded" "256|1|1" "$(q threads "select distinct block_x, block_y, block_z from kernels" | head -1)"

run abort 134 -- "$B/abort"
expect abort "kernels flushed before abort" 100 "$(q abort "select count(*) from kernels")"
expect abort "HtoD copies: pinned, pageable" "1|1" "$(q abort "select sum(src_kind=2), sum(src_kind=1) from memcpy where copy_kind=1")"

run sigkill 137 -- "$B/sigkill"
atleast sigkill "kernels flushed before SIGKILL" 100 "$(q sigkill "select count(*) from kernels")"

run cuda_error 5 -- "$B/cuda_error"
atleast cuda_error "kernels" 10 "$(q cuda_error "select count(*) from kernels")"

run nvtx 0 -- "$B/nvtx"
expect nvtx "NVTX ranges (name:count)" "inner:3,step:3,tail:1" "$(q nvtx "select group_concat(x) from (select s.value || ':' || count(*) x from nvtx n join strings s on s.id=n.name where n.kind=0 and n.end is not null group by s.value order by s.value)")"
expect nvtx "NVTX marks" done "$(q nvtx "select s.value from nvtx n join strings s on s.id=n.name where n.kind=1")"
expect nvtx "kernels on the legacy default stream" 32 "$(q nvtx "select count(*) from kernels k join contexts c on c.pid=k.pid and c.context=k.context where k.stream=c.null_stream")"
run nvtx_capture_nvtx 0 --capture-range=nvtx:inner -- "$B/nvtx"
expect nvtx_capture_nvtx "kernels inside nvtx:inner" 15 "$(q nvtx_capture_nvtx "select count(*) from kernels")"
run nvtx_capture_api 0 --capture-range=cudaProfilerApi -- "$B/nvtx"
expect nvtx_capture_api "kernels between cudaProfilerStart/Stop" 10 "$(q nvtx_capture_api "select count(*) from kernels")"
run nvtx_name_thread 0 -- "$B/nvtx" name-thread

# export_check NAME PROFILE [check_trace.py expectations...]
export_check() {
	local name=$1 prof=$2 r
	shift 2
	if ! "$G" export "$W/$prof.sqlite" --perfetto "$W/$prof.json" >"$W/$prof.export.out" 2>&1; then
		fail "$name" "export failed: $(tail -1 "$W/$prof.export.out")"
		return
	fi
	if r=$(python3 tests/cli/check_trace.py "$W/$prof.json" "$@" 2>&1); then pass "$name" "$r"; else fail "$name" "$r"; fi
}
export_check export_nvtx nvtx kernels=32 flows=32 name=step name=done
export_check export_threads threads kernels=200 flows=200

# 1 M tiny launches: plain vs traced wall time, record accounting, write time.
t0=$(date +%s.%N); timeout 120 "$B/many_launches" >/dev/null 2>&1; rc=$?; t1=$(date +%s.%N)
PLAIN_1M=$(calc "$t1 - $t0" 2)
expect many_launches_plain "exit code" 0 "$rc"
t0=$(date +%s.%N)
run many_launches 0 --nvml-hz 20 -- "$B/many_launches"
t1=$(date +%s.%N)
GD_1M=$(calc "$t1 - $t0" 2)
K=$(q many_launches "select count(*) from kernels"); D=$(q many_launches "select coalesce(sum(count),0) from dropped")
say "1M launches: plain ${PLAIN_1M} s, under gpudiag run ${GD_1M} s (incl. writing the profile), kernels $K, dropped $D"
expect many_launches "kernels + dropped records" 1000000 "$(( ${K:-0} + ${D:-0} ))"
atleast many_launches "NVML samples" 5 "$(q many_launches "select count(*) from nvml_samples")"
PROG_1M=$(calc "$(q many_launches "select value from meta where key='wall_ns'") / 1e9" 2)
row "1M launches wall" info "plain ${PLAIN_1M} s, gpudiag ${GD_1M} s (program ${PROG_1M} s, rest = writing + report), dropped ${D}, nvml $(q many_launches "select value from meta where key='nvml_hz_achieved'") Hz"

# Added cost per launch of each tracing mode: 300 k tiny launches, plain and under each mode,
# interleaved in one round (benchmark, never asserted). The program's own time under gpudiag
# is meta.wall_ns (fork to exit); the rest of gpudiag's wall time is merging the raw files
# into the profile and the report, which the program does not wait for.
NL=300000
declare -A LT=() LP=()
for m in plain default api_none latency; do
	case $m in
	plain) t0=$(date +%s.%N); timeout 120 "$B/many_launches" $NL >/dev/null 2>&1; t1=$(date +%s.%N) ;;
	default) t0=$(date +%s.%N); run lat_default 0 --nvml-hz 0 -- "$B/many_launches" $NL; t1=$(date +%s.%N) ;;
	api_none) t0=$(date +%s.%N); run lat_api_none 0 --nvml-hz 0 --api none -- "$B/many_launches" $NL; t1=$(date +%s.%N) ;;
	latency) t0=$(date +%s.%N); run lat_latency 0 --nvml-hz 0 --latency -- "$B/many_launches" $NL; t1=$(date +%s.%N) ;;
	esac
	LT[$m]=$(calc "$t1 - $t0" 3)
	[ $m = plain ] || LP[$m]=$(calc "$(q lat_$m "select value from meta where key='wall_ns'") / 1e9" 3)
done
for m in default api_none latency; do
	say "300k launches: $m program ${LP[$m]} s (gpudiag total ${LT[$m]} s) vs plain ${LT[plain]} s"
	row "300k launches: $m" info "program x$(calc "${LP[$m]} / ${LT[plain]}") vs plain, +$(calc "(${LP[$m]} - ${LT[plain]}) * 1e6 / $NL" 2) us/launch; write+report $(calc "${LT[$m]} - ${LP[$m]}" 2) s"
done
atleast lat_latency "kernels with queued filled (--latency)" $((NL / 2)) "$(q lat_latency "select count(*) from kernels where queued is not null")"
expect lat_default "queued NULL by default" 0 "$(q lat_default "select count(*) from kernels where queued is not null")"
expect lat_api_none "API records with --api none" 0 "$(q lat_api_none "select count(*) from api")"
atleast lat_default "launch API records by default" "$NL" "$(q lat_default "select count(*) from api where name in (select id from strings where value like '%cudaLaunchKernel%')")"

# Ctrl-C (SIGINT to gpudiag alone, as `kill -INT` or timeout(1) sends it): forwarded to the
# program, which dies of it; the profile is still written with what was flushed.
timeout --preserve-status -s INT 3 "$G" run -o "$W/sigint.sqlite" -- "$B/many_launches" 200000000 >"$W/sigint.out" 2>&1
expect sigint "exit code (128+SIGINT)" 130 "$?"
atleast sigint "kernels flushed before the interrupt" 1000 "$(q sigint "select count(*) from kernels")"
expect sigint "interrupted recorded" 1 "$(q sigint "select value from meta where key='interrupted'")"

cp "$W/nvtx.sqlite" "$OUT/fixtures/nvtx.gpudiag.sqlite"
cp "$W/threads.sqlite" "$OUT/fixtures/threads.gpudiag.sqlite"
cp "$W/abort.sqlite" "$OUT/fixtures/abort.gpudiag.sqlite"
say "tests done at +$(($(date +%s) - T_START)) s"

# ---- PyTorch: overhead and agreement (benchmarks: ratios from this run, never asserted)
if python3 -c "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)" 2>/dev/null; then
	P=tests/gpu/progs/train_step.py
	res() { sed -n 's/^RESULT //p' "$1" | tail -1; }
	field() { python3 -c "import json,sys; print(json.loads(sys.argv[1]).get(sys.argv[2], ''))" "$1" "$2"; }
	PLAIN=() GD=() GN=() TP=() TPK=() TPT=()
	for r in $(seq 1 "$ROUNDS"); do
		python3 $P >"$W/plain$r.out" 2>&1; PLAIN+=("$(field "$(res "$W/plain$r.out")" median_ms)")
		"$G" run -o "$W/torch$r.sqlite" -- python3 $P >"$W/gd$r.out" 2>&1; GD+=("$(field "$(res "$W/gd$r.out")" median_ms)")
		"$G" run --api none -o "$W/torchnone$r.sqlite" -- python3 $P >"$W/gn$r.out" 2>&1; GN+=("$(field "$(res "$W/gn$r.out")" median_ms)")
		python3 $P --torch-profiler >"$W/tp$r.out" 2>&1
		x=$(res "$W/tp$r.out"); TP+=("$(field "$x" median_ms)"); TPK+=("$(field "$x" kernels)"); TPT+=("$(field "$x" kernel_time_ms)")
		say "round $r: plain ${PLAIN[-1]} ms, gpudiag ${GD[-1]} ms, gpudiag --api none ${GN[-1]} ms, torch.profiler ${TP[-1]} ms (median step)"
		say "round $r torch.profiler: ${TPK[-1]} kernels, ${TPT[-1]} ms kernel time"
	done
	cat "$W/gd1.out"
	say "API calls recorded in the torch profile (top 15):"
	q torch1 "select name_str, domain, count(*) from api_v group by name order by 3 desc limit 15"
	say "records: $(q torch1 "select (select count(*) from kernels) || ' kernels, ' || (select count(*) from api) || ' api, ' || (select count(*) from memcpy) || ' memcpy, ' || (select count(*) from sync) || ' sync, ' || (select count(*) from overhead) || ' overhead, ' || (select count(*) from memory) || ' memory'")"
	med() { printf '%s\n' "$@" | grep -E '^[0-9.]+$' | sort -g | awk '{a[NR]=$1} END {if (NR) print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
	MP=$(med "${PLAIN[@]}"); MG=$(med "${GD[@]}"); MN=$(med "${GN[@]}"); MT=$(med "${TP[@]}")
	if [ -n "$MP" ] && [ -n "$MG" ]; then
		row "torch step: plain" info "$MP ms (median of $ROUNDS process medians)"
		row "torch step: gpudiag run" info "$MG ms, x$(calc "$MG / $MP") vs plain (target <= 1.25)"
		[ -n "$MN" ] && row "torch step: gpudiag run --api none" info "$MN ms, x$(calc "$MN / $MP") vs plain"
		[ -n "$MT" ] && row "torch step: torch.profiler" info "$MT ms, x$(calc "$MT / $MP") vs plain"
	else
		fail torch "no step times (see log)"
	fi
	TR=$(q torch1 "select traced || ':' || status from processes order by traced desc limit 1")
	say "torch profile process status: $TR"
	[ "${TR%%:*}" = 1 ] || fail torch_traced "python process not traced: $TR"
	# kernels inside the NVTX range "measure" (same steps torch.profiler profiled)
	GK=$(q torch1 "select count(*) from kernels k join nvtx n on n.pid=k.pid join strings s on s.id=n.name and s.value='measure' where k.start between n.start and n.end")
	GT=$(q torch1 "select printf('%.3f', sum(k.end-k.start)/1e6) from kernels k join nvtx n on n.pid=k.pid join strings s on s.id=n.name and s.value='measure' where k.start between n.start and n.end")
	TK=$(med "${TPK[@]}"); TT=$(med "${TPT[@]}")
	say "agreement: gpudiag $GK kernels / $GT ms; torch.profiler $TK kernels / $TT ms"
	if [ -n "$TK" ] && [ -n "$GK" ] && [ "$TK" != 0 ]; then
		row "kernels vs torch.profiler" info "$GK vs $TK (x$(calc "$GK / $TK" 4), target within 1 %)"
		row "kernel time vs torch.profiler" info "$GT vs $TT ms (x$(calc "$GT / $TT" 4); different runs)"
	fi
	export_check export_torch torch1 counter=SM
	"$G" report "$W/torch1.sqlite" >"$W/report.out" 2>&1; say "gpudiag report rc $?"; head -60 "$W/report.out"
else
	row torch skip "PyTorch with CUDA not available"
fi

say "total $(($(date +%s) - T_START)) s"
{
	echo "== gpudiag profiler GPU tier: $FAILS failure(s), $(($(date +%s) - T_START)) s, log $LOG"
	printf '%s\n' "${SUMMARY[@]}"
} | tee -a "$LOG" >&3
exit $((FAILS > 0))
