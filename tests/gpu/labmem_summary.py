"""Checks and summary for tests/gpu/labmem.sh: every lab variant passed its check, then the
issue's targets as ratios against anchors from the same run. Exit 1 on a correctness failure
(never on a missed performance target)."""
import json
import os
import sys

out = sys.argv[1]
fail = 0


def load(name):
    try:
        return json.load(open(os.path.join(out, name)))
    except Exception as e:  # reported, counted as a failure for the labs
        print(f"cannot read {name}: {e}")
        return None


anch = load("anchors.json") or {}
labs = {k: load(f"{k}.json") for k in ("memory", "coalescing", "precision")}
times = {}
for line in open(os.path.join(out, "times.txt")):
    k, s, rc = line.split()
    times[k] = (float(s), int(rc))

# ---- correctness: every checked result ok, every timed result has a finite time
for k, d in labs.items():
    if d is None:
        fail = 1
        continue
    for r in d["results"]:
        c = r["check"]
        if c.get("ok") is False:
            print(f"FAIL correctness: {k} / {r['group']} / {r['variant']}: bad {c.get('bad')} of {c.get('checked')}"
                  f" (unwritten {c.get('unwritten')}), max abs err {c.get('max_abs_err')}")
            fail = 1
        if c.get("ok") is None:
            print(f"note: {k} / {r['variant']} has no check")
    print(f"{k}: {len(d['results'])} results, {sum(1 for r in d['results'] if r['check'].get('ok'))} checks passed")


def res(lab, group, variant):
    d = labs.get(lab)
    if not d:
        return None
    for r in d["results"]:
        if r["group"] == group and r["variant"] == variant:
            return r
    return None


def g(r, key="gb_per_s"):
    return r.get(key) if r else None


def ratio(a, b):
    return a / b if a and b else None


rows = []     # (what, value, target, met): details
targets = []  # the targets, printed last (run.sh shows the tail)


def row(what, val, target=None, ok=None, fmt="{:.2f}"):
    v = "missing" if val is None else fmt.format(val)
    m = "" if ok is None or val is None else ("met" if ok(val) else "NOT met")
    (targets if target and ok else rows).append((what, v, target or "", m))


copy = g(res("coalescing", "coalesced copy", "float4 copy (16 B per thread)"))
tcopy = anch.get("torch_copy_gbps")
row("PyTorch d2d copy (GB/s, anchor)", tcopy, fmt="{:.0f}")
row("lab coalesced copy (GB/s)", copy, fmt="{:.0f}")
row("coalesced copy / PyTorch copy", ratio(copy, tcopy), "≥ 0.90", lambda v: v >= 0.90)
s1 = g(res("coalescing", "stride sweep", "stride 1 (4 B apart)"))
s32 = g(res("coalescing", "stride sweep", "stride 32 (128 B apart)"))
row("stride 32 time / stride 1 time (same useful bytes)", ratio(s1, s32), "≥ 6", lambda v: v >= 6)
tp = g(res("coalescing", "transpose", "shared-memory tile 32×33 (padded)"))
tt = g(res("coalescing", "transpose", "shared-memory tile 32×32"))
tn = g(res("coalescing", "transpose", "naive (coalesced read, strided write)"))
row("padded tiled transpose / PyTorch copy", ratio(tp, tcopy), "≥ 0.80", lambda v: v >= 0.80)
row("padded tiled transpose / lab copy", ratio(tp, copy), "≥ 0.80", lambda v: v >= 0.80)
row("tiled (no pad) / lab copy", ratio(tt, copy))
row("naive transpose / lab copy", ratio(tn, copy))
row("gather 256-B rows random / lab copy",
    ratio(g(res("coalescing", "gather (embedding lookup)", "256-byte rows, random ids")), copy))
row("gather 4-B random / lab copy", ratio(g(res("coalescing", "gather (embedding lookup)", "4-byte values, random ids")), copy))
row("SoA / AoS speed", ratio(g(res("coalescing", "AoS vs SoA (x + vx·dt)", "struct of arrays (x[], vx[])")),
                             g(res("coalescing", "AoS vs SoA (x + vx·dt)", "array of 32-byte structs"))))
row("contiguous / permuted-view speed",
    ratio(g(res("coalescing", "permute() vs contiguous()", "2·x on a contiguous tensor")),
          g(res("coalescing", "permute() vs contiguous()", "2·x on x.permute(0,2,1) (read stride 4 KB)"))))

m = labs.get("memory")
if m:
    bw = [r for r in m["results"] if r["group"] == "bandwidth vs working set"]
    if bw:
        row("memory: best GB/s (small sets)", max(r["gb_per_s"] or 0 for r in bw), fmt="{:.0f}")
        row("memory: largest set GB/s (VRAM read)", bw[-1]["gb_per_s"], fmt="{:.0f}")
        row("memory: VRAM read / PyTorch copy", ratio(bw[-1]["gb_per_s"], tcopy))
    for r in m["results"]:
        if r["group"] == "latency (pointer chase)":
            row(f"latency {r['variant']} (cycles, ns)",
                r["metrics"].get("cycles_per_load"), fmt="{:.0f}")
            row(f"   … ns per load", r["metrics"].get("ns_per_load"), fmt="{:.0f}")
    for v in m.get("verdicts", []):
        print(f"memory verdict: {v['section']} {v['text']}")

p = labs.get("precision")
if p:
    def pt(v):
        r = res("precision", "y = 1.5·x (memory-bound)", v)
        return r["time_s_median"] if r else None
    t32 = pt("FP32 (4 B per element)")
    row("FP16 time / FP32 time (ideal 0.50)", ratio(pt("FP16 (2 B per element)"), t32), "≈ 0.5")
    row("BF16 time / FP32 time (ideal 0.50)", ratio(pt("BF16 (2 B per element)"), t32), "≈ 0.5")
    row("FP8 time / FP32 time (ideal 0.25)", ratio(pt("FP8 (e4m3) (1 B per element)"), t32), "≈ 0.25")
    for name, key in (("FP32 (CUDA cores)", "fp32"), ("TF32 (tensor cores, FP32 data)", "tf32"),
                      ("BF16 (tensor cores)", "bf16")):
        r = res("precision", "GEMM (cuBLASLt)", name)
        row(f"GEMM {key} TFLOP/s / PyTorch", ratio(g(r, "gflop_per_s") and g(r, "gflop_per_s") / 1e3,
                                                   anch.get(f"torch_gemm_{key}_tflops")))
        row(f"   … max error vs FP64", r["metrics"].get("max_err_vs_fp64") if r else None, fmt="{:.1e}")
    r = res("precision", "GEMM (cuBLASLt)", "FP8 e4m3 → BF16 (tensor cores)")
    row("GEMM fp8 TFLOP/s", g(r, "gflop_per_s") and g(r, "gflop_per_s") / 1e3, fmt="{:.0f}")
    row("   … max error vs FP64", r["metrics"].get("max_err_vs_fp64") if r else None, fmt="{:.1e}")
    for n in p.get("notes", []):
        print(f"precision note: {n}")

for k, (s, rc) in times.items():
    row(f"lab {k} wall time (s), exit {rc}", s, "< 30", lambda v: v < 30, fmt="{:.1f}")

w = max(len(r[0]) for r in rows + targets)
print()
print(f"{'labmem details':{w}}  {'value':>10}")
for what, v, t, st in rows:
    print(f"{what:{w}}  {v:>10}  {t}")
print()
print(f"{'labmem targets (same-run anchors)':{w}}  {'value':>10}  {'target':>8}  status")
for what, v, t, st in targets:
    print(f"{what:{w}}  {v:>10}  {t:>8}  {st}")
print("correctness: " + ("FAILED" if fail else "all checks passed"))
sys.exit(fail)
