#!/usr/bin/env bash
# GPU tier of the execution labs (launch, grid, divergence, occupancy, streams, sfu).
# Run from the repository root on the GPU machine with the binary at ./build/gpudiag and OUT
# set:  OUT=/tmp/out bash tests/gpu/labexec.sh
# Runs every lab once with --json --csv --svg (each lab checks every variant against its CPU
# reference; exit 4 = a check failed), validates the files, measures PyTorch anchors in the
# same run, and prints the figures against the issue's targets and the anchors as ratios.
# Full log: $OUT/labexec.log; per-lab JSON/CSV/SVG beside it. Exit 1 on any correctness or
# run failure; timings are reported, never asserted. Budget: about 100 s on an H200.
set -u
OUT=${OUT:-/tmp/labexec-out}
mkdir -p "$OUT"
LOG="$OUT/labexec.log"
BIN=${GD:-./build/gpudiag} # tests/gpu/run.sh exports GD
: >"$LOG"
fail=0
log() { echo "$*" | tee -a "$LOG"; }

log "== labexec GPU tier, $(date -u +%FT%TZ)"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw --format=csv >>"$LOG" 2>&1

for lab in launch grid divergence occupancy streams sfu; do
	t0=$(date +%s.%N)
	"$BIN" lab "$lab" --json --csv "$OUT/lab_$lab.csv" --svg "$OUT/lab_$lab.svg" \
		>"$OUT/lab_$lab.json" 2>"$OUT/lab_$lab.err"
	rc=$?
	t1=$(date +%s.%N)
	secs=$(python3 -c "print(f'{$t1-$t0:.1f}')")
	echo "$secs" >"$OUT/lab_$lab.secs"
	log "-- lab $lab: exit $rc in $secs s"
	cat "$OUT/lab_$lab.err" >>"$LOG"
	# the human table too (a second run would double the time: render from JSON instead)
	if [ "$rc" != 0 ]; then
		log "FAIL: lab $lab exited $rc ($( [ "$rc" = 4 ] && echo 'a variant failed its CPU-reference check' || echo 'run error'))"
		fail=1
	fi
	if ! python3 -m json.tool "$OUT/lab_$lab.json" >/dev/null 2>>"$LOG"; then
		log "FAIL: lab $lab: --json output is not valid JSON"; fail=1
	fi
	if ! head -c 5 "$OUT/lab_$lab.svg" 2>/dev/null | grep -q "<svg"; then
		log "FAIL: lab $lab: --svg wrote no SVG"; fail=1
	fi
	if [ "$(wc -l <"$OUT/lab_$lab.csv" 2>/dev/null || echo 0)" -lt 2 ]; then
		log "FAIL: lab $lab: --csv wrote no rows"; fail=1
	fi
	cat "$OUT/lab_$lab.json" >>"$LOG"
done

# PyTorch anchors, measured now on the same GPU (CUDA events, medians).
timeout 90 python3 - >"$OUT/anchors.json" 2>>"$LOG" <<'PY'
import json, statistics, torch
d = torch.device("cuda")
def ev_time(fn, reps=10, inner=1):
    ts = []
    for _ in range(reps):
        a = torch.cuda.Event(enable_timing=True); b = torch.cuda.Event(enable_timing=True)
        a.record(); [fn() for _ in range(inner)]; b.record(); torch.cuda.synchronize()
        ts.append(a.elapsed_time(b) * 1e-3 / inner)
    return statistics.median(ts)
res = {}
# launch: the guide's loop in PyTorch, 1000 small in-place ops, and the same as a CUDA graph
x = torch.rand(1 << 16, device=d)
for _ in range(50): x.mul_(0.999)
res["torch_small_op_us"] = ev_time(lambda: [x.mul_(0.999) for _ in range(1000)], reps=5) * 1e6 / 1000
g = torch.cuda.CUDAGraph(); s = torch.cuda.Stream()
with torch.cuda.stream(s):
    with torch.cuda.graph(g):
        for _ in range(1000): x.mul_(0.999)
torch.cuda.synchronize()
res["torch_graph_op_us"] = ev_time(g.replay, reps=5) * 1e6 / 1000
# grid: the guide's add on 1M floats
a = torch.rand(1000000, device=d); b = torch.rand(1000000, device=d); c = torch.empty_like(a)
res["torch_add_1M_us"] = ev_time(lambda: torch.add(a, b, out=c), reps=20, inner=20) * 1e6
# occupancy: device copy bandwidth, read + write counted, 256 MiB
s1 = torch.empty(1 << 26, device=d); s2 = torch.empty_like(s1)
res["torch_copy_gbps"] = 2 * s1.numel() * 4 / ev_time(lambda: s2.copy_(s1), reps=10, inner=5) / 1e9
# streams: host-to-device 128 MiB from pinned and pageable memory
hp = torch.empty(1 << 25, pin_memory=True); hq = torch.empty(1 << 25); dd = torch.empty(1 << 25, device=d)
res["torch_h2d_pinned_gbps"] = hp.numel() * 4 / ev_time(lambda: dd.copy_(hp, non_blocking=True), reps=5) / 1e9
res["torch_h2d_pageable_gbps"] = hq.numel() * 4 / ev_time(lambda: dd.copy_(hq), reps=5) / 1e9
# sfu: GELU erf vs tanh in PyTorch (FP32, 2^26 elements), and the formulas' difference in FP64
g1 = torch.randn(1 << 26, device=d)
te = ev_time(lambda: torch.nn.functional.gelu(g1), reps=10, inner=5)
tt = ev_time(lambda: torch.nn.functional.gelu(g1, approximate="tanh"), reps=10, inner=5)
res["torch_gelu_tanh_vs_erf_speed"] = te / tt
xs = torch.linspace(-8, 8, 1 << 20, dtype=torch.float64)
res["gelu_tanh_vs_exact_max_abs_fp64"] = float((torch.nn.functional.gelu(xs) - torch.nn.functional.gelu(xs, approximate="tanh")).abs().max())
print(json.dumps(res))
PY
[ -s "$OUT/anchors.json" ] || { log "note: PyTorch anchors unavailable (see log)"; echo '{}' >"$OUT/anchors.json"; }
log "anchors: $(cat "$OUT/anchors.json")"

# Summary: figures against the targets and anchors.
python3 - "$OUT" <<'PY' | tee -a "$LOG"
import json, math, sys, os
out = sys.argv[1]
A = json.load(open(os.path.join(out, "anchors.json")))
def lab(n):
    try: return json.load(open(os.path.join(out, f"lab_{n}.json")))
    except Exception: return None
def res(L, group_part, variant_part):
    rs = [r for r in (L or {}).get("results", []) if group_part in r["group"]]
    for r in rs:  # an exact name first: "expf" must not find "__expf"
        if r["variant"] == variant_part: return r
    for r in rs:
        if variant_part in r["variant"]: return r
    return None
def met(r, k):
    v = (r or {}).get("metrics", {}).get(k); return v if isinstance(v, (int, float)) else float("nan")
def t(r, k="time_s_median"):
    v = (r or {}).get(k); return v if isinstance(v, (int, float)) else float("nan")
def secs(n):
    try: return float(open(os.path.join(out, f"lab_{n}.secs")).read())
    except Exception: return float("nan")
def checks(L):
    rs = [r for r in (L or {}).get("results", []) if r.get("check")]
    bad = [r["variant"] for r in rs if r["check"].get("ok") is False]
    return f"{len(rs) - len(bad)}/{len(rs)} ok" + (f" FAILED: {bad}" if bad else "")
rows = []
L = lab("launch")
b2b = res(L, "empty", "back to back"); gn = res(L, "empty", "Graph"); rt = res(L, "empty", "round trip")
bad = res(L, "1000", "bad"); fus = res(L, "1000", "fused"); gop = res(L, "1000", "Graph")
rows += [("launch", "per dependent launch (median / min)", f"{t(b2b)*1e6:.2f} / {t(b2b,'time_s_min')*1e6:.2f} µs", "≈ 2.5 µs (published)"),
         ("launch", "CUDA Graph per node", f"{t(gn)*1e6:.2f} µs", "≈ 1.3 µs (published)"),
         ("launch", "launch+sync round trip (min)", f"{t(rt,'time_s_min')*1e6:.2f} µs", ""),
         ("launch", "bad / graph / fused per op", f"{met(bad,'per_op_us'):.2f} / {met(gop,'per_op_us'):.2f} / {met(fus,'per_op_us'):.3f} µs",
          f"torch loop {A.get('torch_small_op_us', float('nan')):.2f}, torch graph {A.get('torch_graph_op_us', float('nan')):.2f} µs/op → bad/torch {met(bad,'per_op_us')/A.get('torch_small_op_us', float('nan')):.2f}×"),
         ("launch", "launch share of bad pattern", f"{met(bad,'launch_share_pct'):.0f} %", "")]
L = lab("grid")
g256 = res(L, "sweep", "256>>>"); plain = res(L, "no recording", "add")
rows += [("grid", "add<<<3907,256>>> waves / last-wave fill", f"{met(g256,'waves'):.2f} / {met(g256,'last_wave_fill_pct'):.0f} %", "3907/(132×8) = 3.70 / 70 % on H200"),
         ("grid", "blocks per SM max / concurrent / tail", f"{met(g256,'blocks_per_sm_max'):.0f} / {met(g256,'max_concurrent_per_sm'):.0f} / {met(g256,'tail_pct'):.0f} %", ""),
         ("grid", "plain add 1M time", f"{t(plain)*1e6:.2f} µs", f"torch add {A.get('torch_add_1M_us', float('nan')):.2f} µs → ratio {t(plain)*1e6/A.get('torch_add_1M_us', float('nan')):.2f}")]
L = lab("divergence")
alt = res(L, "granularity", "odd/even"); uni = res(L, "granularity", "warp-uniform"); mask = res(L, "mask", "mask arithmetic, both paths (alternating)")
rows += [("divergence", "alternating / (path A + path B)", f"{met(alt,'vs_sum_of_paths'):.2f}×", "≈ 1.0 (target)"),
         ("divergence", "alternating / warp-uniform", f"{met(alt,'vs_uniform'):.2f}×", "≈ 2 expected"),
         ("divergence", "mask rewrite (expensive) / uniform", f"{met(mask,'vs_uniform'):.2f}×", "")]
L = lab("occupancy")
mem = [r for r in (L or {}).get("results", []) if r["group"].startswith("memory")]
cmp_ = [r for r in (L or {}).get("results", []) if r["group"].startswith("compute")]
def curve(rs): return " ".join(f"{met(r,'occupancy_pct'):.0f}%:{met(r,'of_best_pct'):.0f}" for r in rs)
bestmem = max([r.get("gb_per_s") or 0 for r in mem] or [float("nan")])
rows += [("occupancy", "memory-bound, occ%:of-best%", curve(mem), f"best {bestmem:.0f} GB/s vs torch copy {A.get('torch_copy_gbps', float('nan')):.0f} GB/s = {bestmem/A.get('torch_copy_gbps', float('nan')):.2f}"),
         ("occupancy", "compute-bound, occ%:of-best%", curve(cmp_), ""),
         ("occupancy", "calculator = runtime blocks/SM", (str(all(met(r,'runtime_blocks_per_sm') == int(r['variant'].split()[0]) for r in mem + cmp_)) if mem + cmp_ else "n/a"), "")]
L = lab("streams")
good = res(L, "trap", "good"); badp = res(L, "trap", "bad"); pin = res(L, "overlap", "pipelined, pinned"); pag = res(L, "overlap", "pipelined, pageable")
cpin = res(L, "overlap", "copies alone, pinned"); cpag = res(L, "overlap", "copies alone, pageable")
rows += [("streams", "concurrency good / bad", f"{met(good,'concurrency'):.2f}× / {met(badp,'concurrency'):.2f}×", "≥ 1.8× / ≈ 1.0× (targets)"),
         ("streams", "copy overlap of ideal pinned / pageable", f"{met(pin,'overlap_of_ideal')*100:.0f} % / {met(pag,'overlap_of_ideal')*100:.0f} %", ""),
         ("streams", "H2D GB/s pinned / pageable", f"{(cpin or {}).get('gb_per_s') or float('nan'):.1f} / {(cpag or {}).get('gb_per_s') or float('nan'):.1f}",
          f"torch {A.get('torch_h2d_pinned_gbps', float('nan')):.1f} / {A.get('torch_h2d_pageable_gbps', float('nan')):.1f}")]
L = lab("sfu")
def sp(n): return met(res(L, "throughput", n), "speedup_vs_accurate")
def ulp(n): return met(res(L, "accuracy", n), "max_ulp")
tanh = res(L, "accuracy", "GELU tanh approx. (tanhf)")
rows += [("sfu", "speed-up __expf / __sinf / rsqrtf", f"{sp('__expf'):.2f} / {sp('__sinf'):.2f} / {sp('rsqrtf'):.2f}×", ""),
         ("sfu", "max ulp fast vs accurate (exp, sin, rsqrt)", f"{ulp('__expf'):.1f}/{ulp('expf'):.1f}, {ulp('__sinf'):.1f}/{ulp('sinf'):.1f}, {ulp('rsqrtf'):.1f}/{ulp('1.0f'):.1f}", ""),
         ("sfu", "GELU tanh vs exact max abs", f"{met(tanh,'max_abs_err_vs_exact_gelu'):.2e}", f"FP64 formula difference {A.get('gelu_tanh_vs_exact_max_abs_fp64', float('nan')):.2e}"),
         ("sfu", "GELU tanh speed vs erf (tanhf / tanh.approx)", f"{met(res(L,'throughput','GELU tanh approx. (tanhf)'),'speedup_vs_accurate'):.2f} / {met(res(L,'throughput','tanh.approx'),'speedup_vs_accurate'):.2f}×", f"torch tanh/erf {A.get('torch_gelu_tanh_vs_erf_speed', float('nan')):.2f}× (memory-bound)")]
print("\n== labexec summary (H200 targets from issue 6; ratios against PyTorch measured in this run)")
w = [max(len(str(r[i])) for r in rows) for i in range(4)]
for r in [("lab", "figure", "measured", "target / anchor")] + rows:
    print("  ".join(str(r[i]).ljust(w[i]) for i in range(4)))
# a figure printed as nan is one the lab did not report (run 1: the streams concurrency was
# lost to a cut group name): name it, so a missing target cannot pass unnoticed
missing = [f"{r[0]}: {r[1]}" for r in rows if "nan" in str(r[2])]
if missing:
    print("\nNOT MEASURED (nan above; the lab's JSON lacks the figure): " + "; ".join(missing))
print("\nchecks and time per lab:")
for n in ["launch", "grid", "divergence", "occupancy", "streams", "sfu"]:
    print(f"  {n:<11} {checks(lab(n)):<40} {secs(n):6.1f} s")
PY
if [ "$fail" != 0 ]; then log "labexec: FAILED (see above)"; else log "labexec: all labs ran and passed their checks"; fi
exit $fail
