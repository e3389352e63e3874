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

# -o checked before the program starts: an empty name (usage), a directory, a FIFO, a device
ran() { [ -e "$T/ran" ] && echo yes || echo no; rm -f "$T/ran"; }
"$G" run -o "$T/w.sqlite" --duration 0 -- true 2>"$T/err"; check "--duration 0 -> 2" 2 $?
check "--duration 0 said" 1 "$(grep -c "run: --duration must be more than 0" "$T/err")"
"$G" run -o "$T/w.sqlite" --delay 1e300 -- true 2>"$T/err"; check "--delay 1e300 -> 2" 2 $?
"$G" run -o "$T/w.sqlite" --delay nan -- true 2>"$T/err"; check "--delay nan -> 2" 2 $?
"$G" run -o "" -- sh -c 'touch "$0"' "$T/ran" 2>"$T/err"; check "-o '' -> 2" 2 $?
check "-o '': program not started" no "$(ran)"
check "-o '' said" 1 "$(grep -c "run: --output needs a value" "$T/err")"
mkdir "$T/dir"
"$G" run -o "$T/dir" -- sh -c 'touch "$0"' "$T/ran" 2>"$T/err"; check "-o DIR -> 1" 1 $?
check "-o DIR: program not started" no "$(ran)"
check "-o DIR said" 1 "$(grep -c "cannot write the profile '$T/dir': it is a directory" "$T/err")"
mkfifo "$T/fifo"
"$G" run -o "$T/fifo" -- sh -c 'touch "$0"' "$T/ran" 2>"$T/err"; check "-o FIFO -> 1" 1 $?
check "-o FIFO: program not started" no "$(ran)"
check "-o FIFO said" 1 "$(grep -c "cannot write the profile '$T/fifo': not a regular file" "$T/err")"
# a device node of our own (as root), not /dev/null: a gpudiag that renamed over a device
# would replace the machine's /dev/null with a file
if mknod "$T/null" c 1 3 2>/dev/null; then
	"$G" run -o "$T/null" -- true 2>"$T/err"; check "-o DEVICE -> 1" 1 $?
	check "-o DEVICE said" 1 "$(grep -c "cannot write the profile '$T/null': not a regular file" "$T/err")"
	check "-o DEVICE: still a device" yes "$([ -c "$T/null" ] && echo yes)"
else
	echo "skip -o DEVICE (mknod not permitted here)"
fi

# the profile lost (a file size limit: writes fail with EFBIG once SIGXFSZ is ignored): never
# exit 0; a failing program's own code is kept; the one line says the program's code
(ulimit -f 8; trap '' XFSZ; exec "$G" run -o "$T/big.sqlite" -- true) 2>"$T/err"; check "lost profile, program ok -> 1" 1 $?
check "lost profile said" 1 "$(grep -c 'no profile was written, although the program succeeded (exit code 0)' "$T/err")"
check "lost profile: nothing left" "" "$(ls "$T" | grep '^big\.sqlite')"
(ulimit -f 8; trap '' XFSZ; exec "$G" run -o "$T/big.sqlite" -- sh -c 'exit 4') 2>"$T/err"; check "lost profile, program 4 -> 4" 4 $?
check "lost profile, program's code named" 1 "$(grep -c "no profile was written; the exit code is the program's own (4)" "$T/err")"
# a really full disk: a 64 KiB tmpfs, where mounting is allowed (root, not a locked container)
mkdir "$T/small"
if mount -t tmpfs -o size=64k tmpfs "$T/small" 2>/dev/null; then
	"$G" run -o "$T/small/p.sqlite" -- true 2>"$T/err"; check "full tmpfs -> 1" 1 $?
	check "full tmpfs said" 1 "$(grep -c 'disk is full' "$T/err")"
	check "full tmpfs: nothing left" "" "$(ls "$T/small")"
	umount "$T/small"
else
	echo "skip full tmpfs (mount not permitted here; the file size limit above covers it)"
fi

# an existing -o file is replaced, and a warning says so; its mode is kept; a symbolic link's
# target is replaced and the link kept
"$G" run -o "$T/new.sqlite" -- true 2>"$T/err"
check "new -o: no warning" 0 "$(grep -c 'it will be replaced' "$T/err")"
echo old >"$T/old.sqlite"; chmod 600 "$T/old.sqlite"
"$G" run -o "$T/old.sqlite" -- true 2>"$T/err"; check "-o existing -> 0" 0 $?
check "-o existing: warned" 1 "$(grep -c "run: '$T/old.sqlite' exists: it will be replaced" "$T/err")"
check "-o existing: replaced" 1 "$(q "$T/old.sqlite" "select value from meta where key='schema_version'")"
check "-o existing: mode kept" 600 "$(stat -c %a "$T/old.sqlite")"
mkdir "$T/tgt"; ln -s tgt/real.sqlite "$T/link.sqlite"
"$G" run -o "$T/link.sqlite" -- true 2>/dev/null; check "-o link -> 0" 0 $?
check "-o link: still a link" yes "$([ -L "$T/link.sqlite" ] && echo yes)"
check "-o link: target written" 1 "$(q "$T/tgt/real.sqlite" "select value from meta where key='schema_version'")"
check "-o link: no temporary left" "real.sqlite" "$(ls "$T/tgt")"

# the default name never replaces a profile: files for this second and the next few exist
# already, so the run takes the first free one with -2
mkdir "$T/dn"
now=$(date +%s)
for k in 0 1 2 3; do echo keep >"$T/dn/true-$(TZ=UTC date -d "@$((now + k))" +%Y%m%d-%H%M%S).gpudiag.sqlite"; done
(cd "$T/dn" && TZ=UTC "$G" run -- true 2>/dev/null); check "default name taken -> 0" 0 $?
check "default name: earlier files kept" 4 "$(cat "$T"/dn/true-*[0-9][0-9][0-9][0-9][0-9][0-9].gpudiag.sqlite | grep -c '^keep$')"
n2=$(ls "$T/dn" | grep -- '-2\.gpudiag\.sqlite$')
check "default name: -2 added" 1 "$(echo "$n2" | grep -c '^true-[0-9]\{8\}-[0-9]\{6\}-2\.gpudiag\.sqlite$')"
check "default name: -2 is the profile" 1 "$(q "$T/dn/$n2" "select value from meta where key='schema_version'" 2>/dev/null)"
# two runs started together: two profiles
mkdir "$T/dn2"
(cd "$T/dn2" && { "$G" run -- true 2>/dev/null & "$G" run -- true 2>/dev/null; wait; })
check "two runs at once: two profiles" 2 "$(ls "$T/dn2" | grep -c '\.gpudiag\.sqlite$')"
# a program that cannot be started leaves no empty claimed file
mkdir "$T/dn3"
(cd "$T/dn3" && "$G" run -- /nonexistent/program 2>/dev/null); check "default name, missing program -> 127" 127 $?
check "default name, missing program: nothing left" "" "$(ls "$T/dn3")"

# --device does not apply to run, wherever it is given; the program is not started
"$G" run --device 0 -o "$T/dv.sqlite" -- sh -c 'touch "$0"' "$T/ran" 2>"$T/err"; check "run --device -> 2" 2 $?
"$G" run -o "$T/dv.sqlite" --device 0 -- sh -c 'touch "$0"' "$T/ran" 2>>"$T/err"; check "run -o F --device -> 2" 2 $?
check "run --device: program not started" no "$(ran)"
check "run --device said twice" 2 "$(grep -c 'run: --device does not apply.*CUDA_VISIBLE_DEVICES' "$T/err")"
"$G" run -o "$T/dv.sqlite" --json=1 -- true 2>"$T/err"; check "run -o F --json=1 -> 2" 2 $?
check "run --json=1 said" 1 "$(grep -c 'run: --json takes no value' "$T/err")"

# colour follows the stream the report goes to (stderr), not stdout
PTY=$(dirname "$0")/pty_color.py
check "run 2>file, stdout a terminal: no colour in the file" plain "$(python3 "$PTY" stdout "$T/log" "$G" run -o "$T/co.sqlite" -- true)"
check "run, stderr a terminal: colour" esc "$(python3 "$PTY" stderr "$T/log" "$G" run -o "$T/co.sqlite" -- true)"

# the injection library is found relative to the binary: beside it, ../lib/gpudiag, ../lib;
# GPUDIAG_INJECT first, with no fallback
B=$(realpath "$2")
if [ -f "$B/libgpudiag_inject.so" ]; then
	mkdir -p "$T/inst/bin" "$T/inst/lib/gpudiag"
	cp "$G" "$T/inst/bin/gpudiag"
	env -u GPUDIAG_INJECT "$T/inst/bin/gpudiag" run -o "$T/i1.sqlite" -- true 2>"$T/err"
	check "no library: said" 1 "$(grep -c 'libgpudiag_inject.so not found' "$T/err")"
	cp "$B/libgpudiag_inject.so" "$T/inst/lib/gpudiag/"
	env -u GPUDIAG_INJECT "$T/inst/bin/gpudiag" run -o "$T/i2.sqlite" -- true 2>"$T/err"
	check "library in ../lib/gpudiag found" 0 "$(grep -c 'libgpudiag_inject.so not found\|cannot load the injection' "$T/err")"
	mv "$T/inst/lib/gpudiag/libgpudiag_inject.so" "$T/inst/lib/"
	env -u GPUDIAG_INJECT "$T/inst/bin/gpudiag" run -o "$T/i3.sqlite" -- true 2>"$T/err"
	check "library in ../lib found" 0 "$(grep -c 'libgpudiag_inject.so not found\|cannot load the injection' "$T/err")"
	GPUDIAG_INJECT=/nonexistent/lib.so "$T/inst/bin/gpudiag" run -o "$T/i4.sqlite" -- true 2>"$T/err"
	check "GPUDIAG_INJECT first, no fallback" 1 "$(grep -c 'libgpudiag_inject.so not found' "$T/err")"
else
	check "injection library built" yes no
fi

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
