"""GPU tier, area "framework": gpudiag's per-op GPU time against torch.profiler's, on the same
steps of the same program (two processes: one profiler at a time).

usage: compare.py NAME REPORT.json TORCH.json [--again TORCH2.json] [--tolerance 0.02] [--share 0.90]
REPORT.json: `gpudiag report PROFILE --json`, its "framework" object (FRAMEWORK_CONTRACT.md §4:
ops[] with name, calls, kernels, self_gpu_ns). TORCH.json: models.py --torch-profiler.
The ops compared: torch.profiler's, by self kernel time, the fewest that make SHARE of its
kernel time (Memcpy/Memset excluded on its side, as gpudiag counts kernels only). For each:
both figures, their ratio, the calls and kernels on each side, and PASS when the ratio is
within 1 +- TOLERANCE. With --again (torch.profiler's second run of the same steps in a third
process), each op also shows how far torch.profiler is from itself: a FAIL where its two runs
differ by more than TOLERANCE too is marked so — the op's time moves by that much from process
to process, which no attribution can beat (it still counts as a FAIL). Exit 0 when every compared op passes, 1 when one does not, 2 when an
input lacks what is compared (e.g. the report has no "framework": the analysis side is not
merged)."""
import argparse
import json
import sys

ap = argparse.ArgumentParser()
ap.add_argument("name")
ap.add_argument("report")
ap.add_argument("torch")
ap.add_argument("--again")
ap.add_argument("--tolerance", type=float, default=0.02)
ap.add_argument("--share", type=float, default=0.90)
a = ap.parse_args()


def find(d, key):
    """d[key], or the first value of that key in a nested object (the report's layout may nest it)."""
    if isinstance(d, dict):
        if key in d:
            return d[key]
        for v in d.values():
            r = find(v, key)
            if r is not None:
                return r
    return None


try:
    rep = json.load(open(a.report))
    tp = json.load(open(a.torch))
    tp2 = json.load(open(a.again))["ops"] if a.again else None
except Exception as e:
    print("%s: cannot read the inputs: %s" % (a.name, e))
    sys.exit(2)
fw = find(rep, "framework")
if not isinstance(fw, dict) or not isinstance(fw.get("ops"), list):
    print("%s: the report has no framework.ops (the analysis side of issue 21 is not in this build)" % a.name)
    sys.exit(2)
g = {}
for o in fw["ops"]:
    g[o.get("name")] = o
t = tp["ops"]
total_t = sum(o["self_kernel_us"] for o in t.values()) * 1e3  # ns
total_g = sum(o.get("self_gpu_ns") or 0 for o in fw["ops"])
print("%s: framework.mode=%s torch=%s; kernel time attributed to ops: gpudiag %.3f ms (%d rows, %s kernels), "
      "torch.profiler %.3f ms (%d ops, %d kernels)" % (
          a.name, fw.get("mode"), fw.get("torch"), total_g / 1e6, len(fw["ops"]),
          sum(o.get("kernels") or 0 for o in fw["ops"]), total_t / 1e6, len(t), tp["kernels"]))
if tp.get("note"):
    print("%s: torch side: %s" % (a.name, tp["note"]))
rows = sorted(((o["self_kernel_us"] * 1e3, n) for n, o in t.items() if o["self_kernel_us"] > 0), reverse=True)
cum, picked = 0.0, []
for ns, n in rows:
    if cum >= a.share * total_t:
        break
    picked.append((n, ns))
    cum += ns
fails = spread = 0
print("  %-58s %11s %11s %7s %13s %13s  %-6s %s" % ("op (self GPU time)", "gpudiag ms", "torch ms", "ratio",
                                                     "calls g/t", "kernels g/t", "result",
                                                     "torch again / torch" if tp2 is not None else ""))
for n, tns in picked:
    go = g.get(n)
    gns = (go or {}).get("self_gpu_ns")
    if gns is None:
        ratio, res = None, "FAIL (not in gpudiag's ops)"
    else:
        ratio = gns / tns
        res = "PASS" if abs(ratio - 1) <= a.tolerance else "FAIL"
    fails += res != "PASS"
    again = ""
    if tp2 is not None:
        t2 = (tp2.get(n) or {}).get("self_kernel_us")
        if t2 is not None and tns > 0:
            r2 = t2 * 1e3 / tns
            again = "%.4f" % r2
            if res == "FAIL" and ratio is not None and abs(r2 - 1) > a.tolerance:
                again += " (torch.profiler moves as much)"
                spread += 1
        else:
            again = "- (not in the second run)"
    print("  %-58s %11s %11.3f %7s %13s %13s  %-6s %s" % (
        n[:58], "-" if gns is None else "%.3f" % (gns / 1e6), tns / 1e6, "-" if ratio is None else "%.4f" % ratio,
        "%s/%d" % ((go or {}).get("calls", "-"), t[n]["calls"]),
        "%s/%d" % ((go or {}).get("kernels", "-"), t[n]["kernels"]), res, again))
print("%s: %d ops make %.1f %% of torch.profiler's kernel time; %d within %.0f %%%s: %s" % (
    a.name, len(picked), 100 * cum / total_t if total_t else 0, len(picked) - fails, 100 * a.tolerance,
    " (%d of the misses move as much between torch.profiler's own two runs)" % spread if spread else "",
    "PASS" if not fails and picked else "FAIL"))
sys.exit(0 if not fails and picked else 1)
