#!/usr/bin/env bash
# GPU tier for `gpudiag lab fusion` and `gpudiag lab attention` (issue 7).
# Run from the repository root on the H200 with the binary at ./build/gpudiag ($BUILD, $GD):
#     tests/gpu/run.sh labfusion          or      OUT=/some/dir bash tests/gpu/labfusion.sh
# Writes the full log to $OUT/labfusion.log and the lab JSON next to it, prints a summary
# table last, exits non-zero when a correctness check fails or a lab errors. Budget ≈ 200 s
# (≈ 20 s more when no roofline ceilings are cached: it measures them first).
# Targets are printed as ratios against anchors measured in this same run (PyTorch copy and
# scaled_dot_product_attention); nothing here asserts a time.
set -u
OUT=${OUT:-/tmp/labfusion-out}
mkdir -p "$OUT"
LOG="$OUT/labfusion.log"
BIN=${GD:-./${BUILD:-build}/gpudiag} # tests/gpu/run.sh exports GD
: >"$LOG"
fail=0
log() { echo "$@" >>"$LOG"; }

run() { # name, env assignment (or ""), args...
	local name=$1 envs=$2
	shift 2
	local t0=$(date +%s.%N)
	log "=== $name: ${envs:+$envs }$BIN $*"
	env $envs "$BIN" "$@" >"$OUT/labfusion-$name.json" 2>>"$LOG"
	local rc=$?
	local t1=$(date +%s.%N)
	log "--- $name: exit $rc, $(python3 -c "print(round($t1-$t0,1))") s"
	python3 - "$OUT/labfusion-$name.json" >>"$LOG" 2>&1 <<'PY'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except Exception as e:
    print("  (no JSON:", e, ")"); sys.exit(0)
for r in d["results"]:
    c = r.get("check") or {}
    m = r.get("metrics") or {}
    print("  %-28s %-24s %10s  %9s GB/s %9s GFLOP/s  check=%s bad=%s maxabs=%s  %s" % (
        r["group"], r["variant"],
        "%.1f us" % (r["time_s_median"] * 1e6) if r["time_s_median"] else "-",
        "%.0f" % r["gb_per_s"] if r["gb_per_s"] else "-",
        "%.0f" % r["gflop_per_s"] if r["gflop_per_s"] else "-",
        c.get("ok"), c.get("bad"), c.get("max_abs_err"),
        " ".join("%s=%.4g" % (k, v) for k, v in m.items() if v is not None)))
for k in ("verdicts", "notes"):
    for v in d.get(k, []) or []:
        print("  " + k[:-1] + ":", v if isinstance(v, str) else json.dumps(v, ensure_ascii=False))
PY
	if [ $rc -ne 0 ]; then
		echo "FAIL: $name exited $rc" | tee -a "$LOG"
		fail=1
	fi
}

nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw --format=csv >>"$LOG" 2>&1

# The labs compare memory-bound kernels with the DRAM copy ceiling `gpudiag roofline` measured and
# cached on this GPU, or with the datasheet when none is cached: measure it first if needed (~20 s).
if ! "$BIN" roofline --show >/dev/null 2>&1; then
	log "=== no cached ceilings: $BIN roofline --json (the labs then use measured ceilings)"
	timeout 150 "$BIN" roofline --json >"$OUT/labfusion-roofline.json" 2>>"$LOG"
	log "--- roofline: exit $?"
fi

# 1. correctness on awkward shapes (tails, odd head counts, L not a power of two)
run fusion-odd "GPUDIAG_LAB_FUSION=tokens=1000,hidden=1000,out=520,chain=8000" lab fusion --json --runs 10
run fusion-wide "GPUDIAG_LAB_FUSION=tokens=512,hidden=12288,out=256,chain=800" lab fusion --json --runs 10
run attention-odd "GPUDIAG_LAB_ATTENTION=lens=64,128,192,256,384;heads=3;batch=2;dims=64,128;causal=both" \
	lab attention --json --runs 10
# 2. the benchmarks at their default sizes
run fusion "" lab fusion --json --svg "$OUT/labfusion-fusion.svg"
# the same layer at 65536 tokens (x and y 512 MiB each): the LN+GeLU kernel runs ~0.3 ms, so its
# launch ramp and tail weigh less than in the 40-µs kernel of the default 8192 tokens
run fusion-64k "" lab fusion --json --shape tokens=65536
run attention "" lab attention --json --svg "$OUT/labfusion-attention.svg"

# 3. anchors from PyTorch in the same run, and the summary
python3 - "$OUT" >>"$LOG" 2>&1 <<'PY'
import json, os, sys
out = sys.argv[1]
anch = {}
try:
    import torch
    import torch.nn.functional as F
    def med(fn, n=20):
        for _ in range(3): fn()
        ts = []
        for _ in range(n):
            a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            a.record(); fn(); b.record(); b.synchronize(); ts.append(a.elapsed_time(b) / 1e3)
        ts.sort(); return ts[len(ts) // 2]
    x = torch.empty(1 << 29, dtype=torch.uint8, device="cuda").random_()
    y = torch.empty_like(x)
    t = med(lambda: y.copy_(x))
    anch["torch_copy_gbps"] = 2 * x.numel() / t / 1e9
    del x, y
    for L in (4096, 8192):
        for causal in (False, True):
            q, k, v = (torch.randn(1, 16, L, 128, device="cuda", dtype=torch.bfloat16) for _ in range(3))
            t = med(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal))
            fl = 4 * 16 * L * L * 128 / (2 if causal else 1)
            anch["sdpa_L%d_d128%s_tflops" % (L, "_causal" if causal else "")] = fl / t / 1e12
    x = torch.randn(8192, 4096, device="cuda", dtype=torch.bfloat16)
    ln = torch.nn.LayerNorm(4096, device="cuda", dtype=torch.bfloat16)
    t = med(lambda: F.gelu(ln(x)))
    anch["torch_ln_gelu_s"] = t
    w = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
    t = med(lambda: F.linear(F.gelu(ln(x)), w))
    anch["torch_ln_gelu_linear_s"] = t
except Exception as e:
    print("PyTorch anchors unavailable:", e)
json.dump(anch, open(os.path.join(out, "labfusion-anchors.json"), "w"), indent=1)
print("anchors:", anch)
PY

python3 - "$OUT" <<'PY' | tee -a "$LOG"
import json, os, sys
out = sys.argv[1]
def load(n):
    try: return json.load(open(os.path.join(out, ("" if n.startswith("labfusion-") else "labfusion-") + n + ".json")))
    except Exception: return None
anch = load("labfusion-anchors") or {}
rows = []
def res(d, g, v):
    if not d: return None
    for r in d["results"]:
        if r["group"] == g and r["variant"] == v: return r
ok_all = True
for n in ("fusion-odd", "fusion-wide", "attention-odd", "fusion", "fusion-64k", "attention"):
    d = load(n)
    if not d:
        rows.append((n + " checks", "no result", "")); ok_all = False; continue
    bad = [r["group"] + "/" + r["variant"] for r in d["results"] if (r.get("check") or {}).get("ok") is False]
    rows.append((n + " checks", "%d variants, %d failed" % (len(d["results"]), len(bad)), " ".join(bad[:4])))
    ok_all &= not bad
for fn, tok in (("fusion", "8192"), ("fusion-64k", "65536")):
    lg = res(load(fn), "parts", "LayerNorm+GeLU fused")
    if not lg:
        continue
    c = lg["ceiling"]
    rows.append(("LN+GeLU fused GB/s, %s tok" % tok, "%.0f" % lg["gb_per_s"],
                 "%.1f %% of %s %s; target ≥ 90 %% of copy" % (100 * (c["fraction"] or float("nan")), c["source"], c["name"])))
    if "torch_copy_gbps" in anch:
        rows.append(("  vs PyTorch copy 512 MiB", "%.3f" % (lg["gb_per_s"] / anch["torch_copy_gbps"]),
                     "copy %.0f GB/s (read+write counted, same run)" % anch["torch_copy_gbps"]))
    fr = (lg.get("metrics") or {}).get("fraction_of_same_bytes_copy")
    cp = res(load(fn), "parts", "copy, same bytes (driver D2D)")
    if fr and cp:
        rows.append(("  vs driver copy, same bytes", "%.3f" % fr, "copy %.0f GB/s in %.1f us (the lab's own anchor)" % (cp["gb_per_s"], cp["time_s_median"] * 1e6)))
    if "torch_ln_gelu_s" in anch and tok == "8192":
        rows.append(("  vs PyTorch LN→GeLU time", "%.2f×" % (anch["torch_ln_gelu_s"] / lg["time_s_median"]), "speed-up over torch (2 kernels)"))
f = load("fusion")
for v in ("1 three kernels", "2 LN+GeLU fused, GEMM", "3 L2-chunked LN+GeLU→GEMM"):
    r = res(f, "LN → GeLU → Linear", v)
    if r:
        rows.append(("layer " + v, "%.1f us" % (r["time_s_median"] * 1e6),
                     "%.0f TFLOP/s, speed-up %.3f×" % (r["gflop_per_s"] / 1e3, r["metrics"].get("speedup_vs_unfused") or float("nan"))))
if "torch_ln_gelu_linear_s" in anch:
    rows.append(("  PyTorch LN→GeLU→Linear", "%.1f us" % (anch["torch_ln_gelu_linear_s"] * 1e6), "same run"))
r = res(f, "elementwise chain", "1 fused kernel")
if r:
    rows.append(("elementwise chain fused", "%.2f×" % (r["metrics"].get("speedup_vs_unfused") or float("nan")), "vs 4 kernels"))
a = load("attention")
def best_flash(d, cz, L):
    c = [r for r in (res(a, "flash d=%d%s" % (d, cz), L), res(a, "flash 2×m16 d=%d%s" % (d, cz), L),
                     res(a, "flash wgmma d=%d%s" % (d, cz), L))
         if r and r["time_s_median"] and (r.get("check") or {}).get("ok")]
    return min(c, key=lambda r: r["time_s_median"]) if c else None
for d in (64, 128):
    for cz in ("", " causal"):
        fl = best_flash(d, cz, "L=8192"); nv = res(a, "naive d=%d%s" % (d, cz), "L=8192")
        if fl and nv and nv["time_s_median"]:
            rows.append(("flash/naive L=8192 d=%d%s" % (d, cz), "%.1f×" % (nv["time_s_median"] / fl["time_s_median"]),
                         "target ≥ 5× (%s); VRAM %.2f vs %.2f GiB" % (fl["group"], fl["metrics"]["vram_measured_bytes"] / 2**30, nv["metrics"]["vram_measured_bytes"] / 2**30)))
for cz in ("", " causal"):
    s = anch.get("sdpa_L4096_d128%s_tflops" % cz.replace(" ", "_"))
    for g in ("flash", "flash 2×m16", "flash wgmma"):
        fl = res(a, "%s d=128%s" % (g, cz), "L=4096")
        if fl and fl["gflop_per_s"]:
            t = fl["gflop_per_s"] / 1e3
            rows.append(("%s L=4096 d=128%s TFLOP/s" % (g, cz), "%.0f" % t,
                         ("SDPA %.0f → ratio %.2f (target ≥ 0.50; %s)" % (s, t / s, "wgmma" if "wgmma" in g else "mma.sync")) if s else "SDPA not measured"))
for d in (64, 128):
    fl = res(a, "flash d=%d" % d, "L=16384") or res(a, "flash d=%d" % d, "L=8192")
    nv = res(a, "naive d=%d" % d, "L=16384") or res(a, "naive d=%d" % d, "L=8192")
    if fl:
        rows.append(("max L computed d=%d" % d, "flash %d" % fl["metrics"]["max_len_computed"],
                     "naive %d (B=1, H=16, memory model, free memory)" % (nv["metrics"]["max_len_computed"] if nv else -1)))
w = max(len(r[0]) for r in rows)
print("\n==== labfusion summary ====")
for r in rows:
    print("%-*s  %-22s %s" % (w, r[0], r[1], r[2]))
print("correctness:", "PASS" if ok_all else "FAIL")
sys.exit(0 if ok_all else 1)
PY
[ $? -ne 0 ] && fail=1
exit $fail
