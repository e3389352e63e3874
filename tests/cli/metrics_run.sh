#!/bin/bash
# CPU-tier tests of `gpudiag run --metrics` (issue 19), the parent's side, with no GPU: every
# option error said in one line before the program starts (exit 2, or 5 for an unreadable
# --metrics-from profile, as `gpudiag report` says it), the environment the injection library
# receives (read back by a program that prints its own), the hot kernels --metrics-from picks
# (checked against the same rule computed here in SQL), and the meta keys of the profile.
# Then, through the mock driver and PM-sampling CUPTI: PM sampling off in a --metrics run.
# usage: metrics_run.sh <gpudiag binary> <build dir>
set -u
G=$(realpath "$1")
B=$(realpath "$2")
FIX=$(realpath tests/fixtures)
export GPUDIAG_LIBCUDA=/nonexistent GPUDIAG_LIBNVML=/nonexistent
unset GPUDIAG_METRICS GPUDIAG_METRICS_KERNELS GPUDIAG_METRICS_NAMES GPUDIAG_METRICS_PER_KERNEL \
	GPUDIAG_METRICS_SKIP GPUDIAG_METRICS_COUNT GPUDIAG_METRICS_MAX GPUDIAG_METRICS_REPLAY
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export XDG_CACHE_HOME=$T/cache # the ceilings cache a --metrics run reads: never the user's
fail=0
check() { # name expected actual
	if [ "$2" = "$3" ]; then echo "ok   $1"; else echo "FAIL $1: expected '$2', got '$3'"; fail=1; fi
}
q() { sqlite3 "$1" "$2"; }
meta() { q "$1" "select value from meta where key='$2'"; }
# the program: prints the GPUDIAG_METRICS* variables it was given, sorted
ENVP='env | grep "^GPUDIAG_METRICS" | sort'
val() { sed -n "s/^$1=//p" "$2"; }      # a variable's value in a printed environment
names() { val GPUDIAG_METRICS "$1" | tr ',' '\n'; } # the metric names, one a line

# ---- the environment of a default --metrics run
"$G" run --metrics -o "$T/d.sqlite" -- sh -c "$ENVP" >"$T/d.env" 2>"$T/d.err"; check "--metrics: program's exit code" 0 $?
check "default: the variables given" "GPUDIAG_METRICS GPUDIAG_METRICS_BATCH GPUDIAG_METRICS_MAX GPUDIAG_METRICS_PER_KERNEL GPUDIAG_METRICS_REPLAY" \
	"$(cut -d= -f1 "$T/d.env" | tr '\n' ' ' | sed 's/ $//')"
check "default: 3 launches of each kernel" 3 "$(val GPUDIAG_METRICS_PER_KERNEL "$T/d.env")"
check "default: 100 per process" 100 "$(val GPUDIAG_METRICS_MAX "$T/d.env")"
check "default: user replay" user "$(val GPUDIAG_METRICS_REPLAY "$T/d.env")"
check "default: each launch replayed alone" 1 "$(val GPUDIAG_METRICS_BATCH "$T/d.env")"
# the default set is every quantity of src/profile/kc_metrics.c but the SM and memory speeds of
# light (set full: 7 passes of their own): its 30 other named rows, its 17 stall reasons, its 5
# SM units and its 12 memory units
check "default: 64 names" 64 "$(names "$T/d.env" | wc -l)"
check "default: no name twice" 64 "$(names "$T/d.env" | sort -u | wc -l)"
check "default: no SM or memory speed of light, five SM units instead" "0 0 5" \
	"$(names "$T/d.env" | grep -c '^sm__throughput') $(names "$T/d.env" | grep -c '^gpu__compute_memory_throughput') $(names "$T/d.env" | grep -c '^\(smsp__issue_active\|sm__pipe_alu_cycles_active\|sm__pipe_fma_cycles_active\|sm__inst_executed_pipe_lsu\|sm__inst_executed_pipe_xu\)\.avg\.pct_of_peak_sustained_elapsed$')"
check "default: first the duration" gpu__time_duration.sum "$(names "$T/d.env" | head -1)"
# the order is CUPTI's pass schedule (kc_metrics.h): the stall reasons, the SM units, the memory
# units last
check "default: the stall reasons, then the SM and memory units" "17 smsp__warp_issue_stalled_misc_per_warp_active.pct sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_elapsed l1tex__m_l1tex2xbar_write_bytes.avg.pct_of_peak_sustained_elapsed" \
	"$(names "$T/d.env" | grep -c '^smsp__warp_issue_stalled_') $(names "$T/d.env" | tail -18 | head -1) $(names "$T/d.env" | tail -13 | head -1) $(names "$T/d.env" | tail -1)"
check "default: the load sectors per request" 2 "$(names "$T/d.env" | grep -c '^l1tex__t_\(sectors\|requests\)_pipe_lsu_mem_global_op_ld\.sum$')"
check "meta metrics" default "$(meta "$T/d.sqlite" metrics)"
check "meta metrics_launches" "per_kernel=3 max=100" "$(meta "$T/d.sqlite" metrics_launches)"
check "meta counters: off, and why" "off: --metrics uses the counters" "$(meta "$T/d.sqlite" counters)"
check "meta metrics_note: no driver" 1 "$(meta "$T/d.sqlite" metrics_note | grep -c '^no launch was profiled: no NVIDIA driver')"
check "no selection meta without the options" "" "$(meta "$T/d.sqlite" metrics_kernels)$(meta "$T/d.sqlite" metrics_from)"
check "closing line says why no launch was profiled" 1 \
	"$(grep -c '^gpudiag: counters of no launch: no launch was profiled: no NVIDIA driver' "$T/d.err")"

# basic: fewer names, no stall reasons, no SASS-patched bytes-per-sector averages
"$G" run --metrics=basic -o "$T/b.sqlite" -- sh -c "$ENVP" >"$T/b.env" 2>/dev/null
check "basic: 45 names" 45 "$(names "$T/b.env" | wc -l)"
check "basic: no stall reasons, no bytes per sector" 0 "$(names "$T/b.env" | grep -c 'stalled\|average_data_bytes_per_sector')"
check "basic: the divergence ratio kept" 1 "$(names "$T/b.env" | grep -c '^smsp__thread_inst_executed_per_inst_executed\.ratio$')"
check "meta metrics: as asked" basic "$(meta "$T/b.sqlite" metrics)"

# sets and names mixed: the sets' quantities (their union) first, then the other names as
# given; a quantity named again is not repeated
X=l1tex__data_bank_conflicts_pipe_lsu.sum
"$G" run --metrics=basic,dram__bytes_read.sum,$X,default,$X -o "$T/m.sqlite" -- sh -c "$ENVP" >"$T/m.env" 2>/dev/null
check "mixed: default's 64 and one more" 65 "$(names "$T/m.env" | wc -l)"
check "mixed: the extra name last" $X "$(names "$T/m.env" | tail -1)"
check "mixed: the sets' order kept" "$(names "$T/d.env" | tr '\n' ,)" "$(names "$T/m.env" | head -64 | tr '\n' ,)"
check "mixed: DRAM read once" 1 "$(names "$T/m.env" | grep -c '^dram__bytes_read\.sum$')"
check "mixed: meta as asked" "basic,dram__bytes_read.sum,$X,default,$X" "$(meta "$T/m.sqlite" metrics)"
"$G" run --metrics=$X,lts__t_sectors.sum -o "$T/n.sqlite" -- sh -c "$ENVP" >"$T/n.env" 2>/dev/null
# full: every quantity, the SM speed of light among them
"$G" run --metrics=full -o "$T/f.sqlite" -- sh -c "$ENVP" >"$T/f.env" 2>/dev/null
check "full: 66 names, the two speeds of light among them" "66 1 1" \
	"$(names "$T/f.env" | wc -l) $(names "$T/f.env" | grep -c '^sm__throughput\.avg\.pct_of_peak_sustained_elapsed$') $(names "$T/f.env" | grep -c '^gpu__compute_memory_throughput\.avg\.pct_of_peak_sustained_elapsed$')"
check "names only: exactly those, in order" "$X,lts__t_sectors.sum" "$(val GPUDIAG_METRICS "$T/n.env")"

# the selection: --kernels, --launch-skip, --launch-count (then COUNT is also the budget)
"$G" run --metrics --kernels 'gemm|attn' --launch-skip 1 --launch-count 2 -o "$T/s.sqlite" -- sh -c "$ENVP" >"$T/s.env" 2>/dev/null
check "selection: the variables" "GPUDIAG_METRICS GPUDIAG_METRICS_BATCH GPUDIAG_METRICS_COUNT GPUDIAG_METRICS_KERNELS GPUDIAG_METRICS_MAX GPUDIAG_METRICS_REPLAY GPUDIAG_METRICS_SKIP" \
	"$(cut -d= -f1 "$T/s.env" | tr '\n' ' ' | sed 's/ $//')"
check "selection: values" "gemm|attn 1 2 2" \
	"$(val GPUDIAG_METRICS_KERNELS "$T/s.env") $(val GPUDIAG_METRICS_SKIP "$T/s.env") $(val GPUDIAG_METRICS_COUNT "$T/s.env") $(val GPUDIAG_METRICS_MAX "$T/s.env")"
check "selection: meta" "gemm|attn skip=1 count=2" "$(meta "$T/s.sqlite" metrics_kernels) $(meta "$T/s.sqlite" metrics_launches)"
"$G" run --metrics --launch-skip 5 -o "$T/s2.sqlite" -- sh -c "$ENVP" >"$T/s2.env" 2>/dev/null
check "--launch-skip alone: the next 100" "5 100 100 -" \
	"$(val GPUDIAG_METRICS_SKIP "$T/s2.env") $(val GPUDIAG_METRICS_COUNT "$T/s2.env") $(val GPUDIAG_METRICS_MAX "$T/s2.env") $(val GPUDIAG_METRICS_PER_KERNEL "$T/s2.env")-"
"$G" run --metrics --launch-count=7 -o "$T/s3.sqlite" -- sh -c "$ENVP" >"$T/s3.env" 2>/dev/null
check "--launch-count alone: skip 0" "0 7 7" \
	"$(val GPUDIAG_METRICS_SKIP "$T/s3.env") $(val GPUDIAG_METRICS_COUNT "$T/s3.env") $(val GPUDIAG_METRICS_MAX "$T/s3.env")"

# --metrics-replay: kernel passed on; a mode it does not know, or without --metrics, refused
"$G" run --metrics --metrics-replay kernel -o "$T/r.sqlite" -- sh -c "$ENVP" >"$T/r.env" 2>/dev/null
check "--metrics-replay kernel: passed on" kernel "$(val GPUDIAG_METRICS_REPLAY "$T/r.env")"
"$G" run --metrics --metrics-replay=application -o "$T/r2.sqlite" -- true 2>"$T/r2.err"
check "--metrics-replay application: usage error" 2 $?
check "--metrics-replay application: said" "gpudiag: error: run: --metrics-replay: 'application' is not user or kernel" "$(cat "$T/r2.err")"
check "--metrics-replay application: no profile" no "$([ -e "$T/r2.sqlite" ] && echo yes || echo no)"
"$G" run --metrics-replay kernel -o "$T/r3.sqlite" -- true 2>"$T/r3.err"
check "--metrics-replay without --metrics: usage error" 2 $?
check "--metrics-replay without --metrics: said" 1 "$(grep -c 'run: --metrics-replay says how --metrics replays a launch; it needs --metrics (or --metrics-from)' "$T/r3.err")"

# --metrics-batch: passed on; out of range, without --metrics or with CUPTI's kernel replay, refused
"$G" run --metrics --metrics-batch 8 -o "$T/b.sqlite" -- sh -c "$ENVP" >"$T/b.env" 2>/dev/null
check "--metrics-batch 8: passed on" 8 "$(val GPUDIAG_METRICS_BATCH "$T/b.env")"
"$G" run --metrics --metrics-batch=33 -o "$T/b2.sqlite" -- true 2>"$T/b2.err"
check "--metrics-batch 33: usage error" 2 $?
check "--metrics-batch 33: said" 1 "$(grep -c 'run: --metrics-batch must be 1 to 32' "$T/b2.err")"
check "--metrics-batch 33: no profile" no "$([ -e "$T/b2.sqlite" ] && echo yes || echo no)"
"$G" run --metrics-batch 4 -o "$T/b3.sqlite" -- true 2>"$T/b3.err"
check "--metrics-batch without --metrics: usage error" 2 $?
check "--metrics-batch without --metrics: said" 1 "$(grep -c 'run: --metrics-batch says how --metrics replays launches; it needs --metrics' "$T/b3.err")"
"$G" run --metrics --metrics-replay kernel --metrics-batch 4 -o "$T/b4.sqlite" -- true 2>"$T/b4.err"
check "--metrics-batch with kernel replay: usage error" 2 $?
check "--metrics-batch with kernel replay: said" 1 "$(grep -c "run: --metrics-batch batches gpudiag's own replay" "$T/b4.err")"

# variables set before are not passed on: the options are the interface
GPUDIAG_METRICS=bogus__x GPUDIAG_METRICS_KERNELS=old GPUDIAG_METRICS_REPLAY=kernel "$G" run -o "$T/u.sqlite" -- sh -c "$ENVP" >"$T/u.env" 2>/dev/null
check "no --metrics: no GPUDIAG_METRICS* at all" 0 "$(wc -l <"$T/u.env")"
check "no --metrics: no meta metrics" "" "$(meta "$T/u.sqlite" metrics)"
check "no --metrics: counters not said off for it" 0 "$(meta "$T/u.sqlite" counters | grep -c metrics)"
GPUDIAG_METRICS_KERNELS=old GPUDIAG_METRICS_COUNT=9 "$G" run --metrics -o "$T/u2.sqlite" -- sh -c "$ENVP" >"$T/u2.env" 2>/dev/null
check "--metrics: an old KERNELS/COUNT dropped" "" "$(val GPUDIAG_METRICS_KERNELS "$T/u2.env")$(val GPUDIAG_METRICS_COUNT "$T/u2.env")"

# ---- --metrics-from: a profile with five kernels of 50, 25, 10, 10 and 5 % of the kernel time
# (the sample's meta, its kernels replaced): 80 % needs the first three
mkprof() { # OUT NAME:MS ...
	local out=$1; shift
	cp "$FIX/sample.gpudiag.sqlite" "$out"
	python3 - "$out" "$@" <<'EOF'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
t0 = int(db.execute("select value from meta where key='start_ns'").fetchone()[0]) + 1000
db.execute("delete from kernels")
nid = db.execute("select coalesce(max(id), 0) + 1 from strings").fetchone()[0]
t = t0
for spec in sys.argv[2:]:
    name, ms = spec.rsplit(":", 1)
    db.execute("insert into strings(id, value) values (?, ?)", (nid, name))
    for _ in range(2):  # two launches each, half the time each
        d = int(float(ms) * 1e6 / 2)
        db.execute("insert into kernels(pid, device, stream, correlation, start, end, name, demangled, short_name, "
                   "grid_x, grid_y, grid_z, block_x, block_y, block_z, regs) "
                   "values (1, 0, 7, ?, ?, ?, ?, ?, ?, 64, 1, 1, 256, 1, 1, 32)", (nid * 10 + _, t, t + d, nid, nid, nid))
        t += d + 1000
    nid += 1
db.commit()
EOF
}
mkprof "$T/hot.sqlite" _Z4gemmv:50 _Z4attnv:25 _Z2lnv:10 _Z4geluv:10 _Z4copyv:5
# the same rule, independently: names by total time, taken while the sum before them is < 80 %
want=$(q "$T/hot.sqlite" "with t as (select s.value n, sum(k.end - k.start) d from kernels k join strings s on s.id = k.name group by k.name),
	c as (select n, d, sum(d) over (order by d desc rows between unbounded preceding and 1 preceding) before from t)
	select n from c where coalesce(before, 0) < 0.8 * (select sum(d) from t) order by d desc limit 20" | tr '\n' ' ')
check "the rule here: three kernels" "_Z4gemmv _Z4attnv _Z2lnv " "$want"
"$G" run --metrics-from "$T/hot.sqlite" -o "$T/h.sqlite" -- sh -c "$ENVP"'; cat "$GPUDIAG_METRICS_NAMES"' >"$T/h.env" 2>"$T/h.err"
check "--metrics-from: exit 0" 0 $?
check "--metrics-from: the names file" "$want" "$(grep -v '^GPUDIAG_' "$T/h.env" | tr '\n' ' ')"
check "--metrics-from: in the raw directory" 1 "$(val GPUDIAG_METRICS_NAMES "$T/h.env" | grep -c '/gpudiag-run\.[^/]*/metrics-kernels\.txt$')"
check "--metrics-from: implies the default set" 64 "$(names "$T/h.env" | wc -l)"
check "--metrics-from: the pick said" 1 "$(grep -c "^gpudiag: --metrics-from $T/hot.sqlite: 3 kernels, 85 % of its kernel time$" "$T/h.err")"
check "--metrics-from: meta" "default $T/hot.sqlite" "$(meta "$T/h.sqlite" metrics) $(meta "$T/h.sqlite" metrics_from)"
check "--metrics-from: the raw directory removed" no "$([ -e "$(val GPUDIAG_METRICS_NAMES "$T/h.env")" ] && echo yes || echo no)"
"$G" run --metrics=basic --metrics-from "$T/hot.sqlite" -o "$T/h2.sqlite" -- sh -c "$ENVP" >"$T/h2.env" 2>/dev/null
check "--metrics-from with a set" 45 "$(names "$T/h2.env" | wc -l)"
# thirty kernels of equal time: 80 % would need 24, at most 20 are taken
args=(); for i in $(seq 10 39); do args+=("_Z2k${i}v:1"); done
mkprof "$T/flat.sqlite" "${args[@]}"
"$G" run --metrics-from "$T/flat.sqlite" -o "$T/f.sqlite" -- sh -c 'cat "$GPUDIAG_METRICS_NAMES"' >"$T/f.names" 2>"$T/f.err"
check "at most 20 kernels" 20 "$(wc -l <"$T/f.names")"
check "... said with their share" 1 "$(grep -c ': 20 kernels, 67 % of its kernel time$' "$T/f.err")"

# ---- errors: one line, the program never started
ran() { [ -e "$T/ran" ] && echo yes || echo no; rm -f "$T/ran"; }
err() { # name expected-rc expected-message-fragment gpudiag-run-options...
	local name=$1 rc=$2 msg=$3; shift 3
	"$G" run "$@" -o "$T/e.sqlite" -- sh -c 'touch "$0"' "$T/ran" 2>"$T/e.err"
	check "$name: exit $rc" "$rc" $?
	check "$name: one line" "1 1" "$(wc -l <"$T/e.err") $(grep -cF -- "$msg" "$T/e.err")"
	check "$name: program not started" no "$(ran)"
	[ "$(wc -l <"$T/e.err")" = 1 ] || cat "$T/e.err"
}
err "unknown set word" 2 "run: --metrics: 'defualt' is neither a set (default, basic, full) nor a CUPTI metric name" --metrics=defualt
err "unknown word in a list" 2 "'l2' is neither a set" --metrics=basic,l2,$X
err "an empty name" 2 "run: --metrics: an empty name in 'basic,,default'" --metrics=basic,,default
err "a name with odd characters" 2 "'dram__bytes;x' is not a CUPTI metric name" '--metrics=dram__bytes;x'
err "a set after a space" 2 "run: write --metrics=basic (with '=')" --metrics basic
err "a bad regex" 2 "run: --kernels: 'gemm(' is not a POSIX extended regular expression" --metrics --kernels 'gemm('
err "--kernels without --metrics" 2 "run: --kernels chooses the launches --metrics profiles; it needs --metrics" --kernels gemm
err "--launch-skip without --metrics" 2 "run: --launch-skip chooses the launches" --launch-skip 1
err "--launch-count without --metrics" 2 "run: --launch-count chooses the launches" --launch-count 1
err "--launch-skip negative" 2 "run: --launch-skip must be 0 to 1000000000, not -1" --metrics --launch-skip -1
err "--launch-skip too big" 2 "run: --launch-skip must be 0 to 1000000000, not 1000000001" --metrics --launch-skip 1000000001
err "--launch-skip not a number" 2 "run: --launch-skip needs an integer, not 'x'" --metrics --launch-skip x
err "--launch-count 0" 2 "run: --launch-count must be 1 to 10000 (each one is replayed once per counter pass), not 0" --metrics --launch-count 0
err "--launch-count too big" 2 "run: --launch-count must be 1 to 10000" --metrics --launch-count 10001
err "--metrics with --light" 2 "run: --light injects nothing into the program, so --metrics does not apply" --metrics --light
err "--metrics-from with --light" 2 "so --metrics-from does not apply" --light --metrics-from "$T/hot.sqlite"
err "--metrics-from a missing file" 5 "run: --metrics-from: cannot open '$T/none.sqlite'" --metrics-from "$T/none.sqlite"
echo "not a profile" >"$T/text.sqlite"
err "--metrics-from a non-profile" 5 "run: --metrics-from: '$T/text.sqlite' is not a gpudiag profile" --metrics-from "$T/text.sqlite"
mkprof "$T/empty.sqlite"
err "--metrics-from a profile without kernels" 5 "records no kernel time, so no kernel is hot in it" --metrics-from "$T/empty.sqlite"
"$G" run --metrics=defualt 2>"$T/e.err"; check "the demo: a bad word refused too" 2 $?
check "report refuses the same file the same way" 5 "$("$G" report "$T/text.sqlite" >/dev/null 2>&1; echo $?)"

# ---- through the mock driver: PM sampling is off, and said once only when asked for
export GPUDIAG_LIBCUDA=$B/libgpudiag_mock_cuda.so GPUDIAG_LIBNVML=$B/libgpudiag_mock_nvml.so
export GPUDIAG_CUPTI=$B/libgpudiag_mock_cupti_pm.so
unset MOCK_PM MOCK_PM_REJECT
UUID=GPU-10111213-1415-1617-1819-1a1b1c1d1e1f # the mock's device
mkdir -p "$XDG_CACHE_HOME/gpudiag"
cat >"$XDG_CACHE_HOME/gpudiag/roofline-$UUID.txt" <<EOF
format 1
uuid $UUID
gpu_name NVIDIA H200 (mock)
driver 580.159.04
measured_at 1764000000
sm_clock_mhz 1980
dram_copy 4.1e12
l2 1.2e13
cuda_core.FP32 6.5e13
tensor.BF16 9.3e14
gemm_lib.BF16 7.9e14
tensor.FP8 1.4e15
gemm_lib.FP8 1.5e15
EOF
"$G" run --metrics -o "$T/g.sqlite" -- sh -c 'sleep 0.3' 2>"$T/g.err"; rc=$?
check "mock: exit 0" 0 $rc
[ $rc = 0 ] || tail -n 5 "$T/g.err" # why, in the test's log (a sanitizer's report, .ci/run)
check "mock: no PM samples" 0 "$(q "$T/g.sqlite" "select count(*) from gpu_metrics")"
check "mock: counters off for --metrics" "off: --metrics uses the counters" "$(meta "$T/g.sqlite" counters)"
check "mock: no counters warning" 0 "$(grep -c 'warning.*counters' "$T/g.err")"
check "mock: no metrics_note (a driver, an injection library)" "" "$(meta "$T/g.sqlite" metrics_note)"
check "mock: closing line" 1 "$(grep -c '^gpudiag: counters of no launch: the program launched no kernel$' "$T/g.err")"
# the ceilings of `gpudiag roofline`'s cache, in the profile: checked once the writer has its
# ceilings table (gd_pw_ceilings; until then the table is absent and this says SKIP). Tensor
# there is the best of tensor and gemm_lib: BF16 9.3e14, FP8 1.5e15; FP64 NULL (not measured)
if [ "$(q "$T/g.sqlite" "select count(*) from sqlite_master where name='ceilings'")" = 1 ]; then
	check "ceilings: DRAM copy, L2, measured_at, clock" "4100000000000.0|12000000000000.0|1764000000.0|1980" \
		"$(q "$T/g.sqlite" "select printf('%.1f|%.1f|%.1f|%d', dram_bps, l2_bps, measured_at, sm_clock_mhz) from ceilings where device=0")"
else
	echo "SKIP ceilings: the profile has no ceilings table yet (the writer's gd_pw_ceilings)"
fi
"$G" run --metrics --counters-interval 500 -o "$T/g2.sqlite" -- true 2>"$T/g2.err"; check "mock: --counters-interval: exit 0" 0 $?
check "mock: --counters-interval said once" 1 "$(grep -c "warning: run: --counters-interval does not apply: --metrics uses the GPU's counters" "$T/g2.err")"
check "mock: ... and not sampled" 0 "$(q "$T/g2.sqlite" "select count(*) from gpu_metrics")"
"$G" run --metrics --no-counters -o "$T/g3.sqlite" -- true 2>"$T/g3.err"
check "mock: --no-counters with --metrics: silent" 0 "$(grep -c 'warning.*counters' "$T/g3.err")"
# refusal of PM sampling must not be said in a --metrics run (it was never asked)
MOCK_PM=busy "$G" run --metrics -o "$T/g4.sqlite" -- true 2>"$T/g4.err"
check "mock: no PM refusal said" 0 "$(grep -c 'no counters' "$T/g4.err")"
exit $fail
