#!/bin/bash
# CPU-tier tests of `gpudiag run` and `gpudiag export` with non-CUDA programs and no GPU
# (GPUDIAG_LIBCUDA/GPUDIAG_LIBNVML point at missing files): the program always runs, its exit
# code and signals come back unchanged, and a readable profile is written.
# usage: run.sh <gpudiag binary> <build dir>
set -u
G=$(realpath "$1")
export GPUDIAG_LIBCUDA=/nonexistent GPUDIAG_LIBNVML=/nonexistent
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
check() { # name expected actual
	if [ "$2" = "$3" ]; then echo "ok   $1"; else echo "FAIL $1: expected '$2', got '$3'"; fail=1; fi
}
q() { sqlite3 "$1" "$2"; }

"$G" run -o "$T/a.sqlite" -- sh -c 'exit 7' 2>"$T/err"; check "exit code 7" 7 $?
check "profile schema version" 1 "$(q "$T/a.sqlite" "select value from meta where key='schema_version'")"
check "meta exit_code" 7 "$(q "$T/a.sqlite" "select value from meta where key='exit_code'")"
check "child recorded, untraced" "0|no_cuda|7" "$(q "$T/a.sqlite" "select traced, status, exit_code from processes")"
check "says why nothing was traced" 1 "$(grep -c 'nothing was traced: no NVIDIA driver' "$T/err")"
check "traced=0 in meta" 0 "$(q "$T/a.sqlite" "select value from meta where key='traced'")"

"$G" run -o "$T/b.sqlite" -- sh -c 'kill -SEGV $$' 2>/dev/null; check "SIGSEGV -> 139" 139 $?
check "meta exit_signal" 11 "$(q "$T/b.sqlite" "select value from meta where key='exit_signal'")"
"$G" run -o "$T/b2.sqlite" -- sh -c 'kill -KILL $$' 2>/dev/null; check "SIGKILL -> 137" 137 $?

out=$("$G" run -o "$T/c.sqlite" -- sh -c 'echo program-output; exit 0' 2>/dev/null); check "exit 0" 0 $?
check "program stdout untouched" "program-output" "$out"

# options of the program are not gpudiag's: -o after the command belongs to it
"$G" run -o "$T/d.sqlite" sh -c 'test "$0" = -o' -o 2>/dev/null; check "program's own -o kept" 0 $?

# SIGINT sent to gpudiag alone is passed to the program; the profile is still written
"$G" run -o "$T/e.sqlite" -- sh -c 'kill -INT $PPID; sleep 2; exit 3' 2>/dev/null; check "SIGINT -> 130" 130 $?
check "interrupted recorded" 1 "$(q "$T/e.sqlite" "select value from meta where key='interrupted'")"

"$G" run -o "$T/f.sqlite" -- /nonexistent/program 2>"$T/err"; check "missing program -> 127" 127 $?
check "missing program named" 1 "$(grep -c "cannot run '/nonexistent/program'" "$T/err")"

check "latency timestamps off by default" off "$(q "$T/a.sqlite" "select value from meta where key='latency_timestamps'")"
"$G" run --latency -o "$T/l.sqlite" -- true 2>/dev/null; check "--latency exit" 0 $?
check "--latency recorded" on "$(q "$T/l.sqlite" "select value from meta where key='latency_timestamps'")"
"$G" run --api bogus -- true 2>/dev/null; check "bad --api -> 2" 2 $?
"$G" run --capture-range=foo -- true 2>/dev/null; check "bad --capture-range -> 2" 2 $?

"$G" run --json -o "$T/g.sqlite" -- true >"$T/g.json" 2>/dev/null; check "--json exit" 0 $?
python3 -m json.tool "$T/g.json" >/dev/null; check "--json parses" 0 $?

# default file name: <prog>-<stamp>.gpudiag.sqlite in the working directory
(cd "$T" && "$G" run -- true 2>/dev/null); check "default name exit" 0 $?
check "default name" 1 "$(ls "$T" | grep -c '^true-[0-9]\{8\}-[0-9]\{6\}\.gpudiag\.sqlite$')"

"$G" run -o /nonexistent-dir/x.sqlite -- sh -c 'touch "$0"' "$T/ran" 2>"$T/err"; check "unwritable -o -> 1" 1 $?
check "program not started when the profile cannot be written" no "$([ -e "$T/ran" ] && echo yes || echo no)"
check "unwritable -o named" 1 "$(grep -c "cannot write the profile '/nonexistent-dir/x.sqlite'" "$T/err")"

# export: a profile with no GPU records still gives a valid trace; a non-profile is refused
"$G" export "$T/a.sqlite" --perfetto "$T/a.json"; check "export exit" 0 $?
python3 -m json.tool "$T/a.json" >/dev/null; check "export parses" 0 $?
"$G" export "$T/err" --perfetto "$T/x.json" 2>/dev/null; check "export of a non-profile -> 5" 5 $?
"$G" export "$T/a.sqlite" 2>/dev/null; check "export without --perfetto -> 2" 2 $?
# Profiles recorded on the H200 (2026-12-02, driver 580.159.04) by tests/gpu/profiler.sh and
# checked in: schema, record counts and the export of real CUPTI data.
F=tests/fixtures
if [ -f "$F/nvtx.gpudiag.sqlite" ]; then
	check "fixture nvtx: kernels" 32 "$(q "$F/nvtx.gpudiag.sqlite" "select count(*) from kernels")"
	check "fixture nvtx: ranges" "inner:3,step:3,tail:1" "$(q "$F/nvtx.gpudiag.sqlite" "select group_concat(x) from (select s.value || ':' || count(*) x from nvtx n join strings s on s.id=n.name where n.kind=0 and n.end is not null group by s.value order by s.value)")"
	"$G" export "$F/nvtx.gpudiag.sqlite" --perfetto "$T/fx.json"
	python3 tests/cli/check_trace.py "$T/fx.json" kernels=32 flows=32 name=step name=done >/dev/null; check "fixture nvtx: export" 0 $?
else
	check "fixture nvtx present" yes no
fi
if [ -f "$F/threads.gpudiag.sqlite" ]; then
	check "fixture threads: kernels on 4 streams" "200|4" "$(q "$F/threads.gpudiag.sqlite" "select count(*), count(distinct stream) from kernels")"
	"$G" export "$F/threads.gpudiag.sqlite" --perfetto "$T/ft.json"
	python3 tests/cli/check_trace.py "$T/ft.json" kernels=200 flows=200 >/dev/null; check "fixture threads: export" 0 $?
else
	check "fixture threads present" yes no
fi
if [ -f "$F/abort.gpudiag.sqlite" ]; then
	check "fixture abort: exit code, pageable copy" "134|1" "$(q "$F/abort.gpudiag.sqlite" "select (select value from meta where key='exit_code'), (select count(*) from memcpy where src_kind=1)")"
else
	check "fixture abort present" yes no
fi
exit $fail
