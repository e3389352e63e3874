#!/usr/bin/env python3
"""Checks a gpudiag Perfetto/Chrome-trace export: valid JSON, events on each track nest
(no partial overlap), flows paired, and optional expected counts.
usage: check_trace.py TRACE.json [kernels=N] [flows=N] [lanes=1] [name=SUBSTRING ...]"""
import json, sys, collections

path = sys.argv[1]
want = [a.split("=", 1) for a in sys.argv[2:]]
with open(path, "rb") as f:
    raw = f.read()
doc = json.loads(raw.decode("utf-8"))  # strict: invalid UTF-8 fails here
ev = doc["traceEvents"]
fail = []
tracks = collections.defaultdict(list)
for e in ev:
    if e.get("ph") == "X":
        tracks[(e["pid"], e["tid"])].append((float(e["ts"]), float(e["ts"]) + float(e["dur"])))
for key, xs in tracks.items():
    xs.sort(key=lambda p: (p[0], -p[1]))
    stack = []
    for a, b in xs:
        while stack and a >= stack[-1] - 1e-9:
            stack.pop()
        if stack and b > stack[-1] + 1e-9:
            fail.append("partial overlap on track %s at ts %.3f" % (key, a))
            break
        stack.append(b)
kernels = [e for e in ev if e.get("ph") == "X" and e.get("cat") == "kernel"]
starts = collections.Counter(e["id"] for e in ev if e.get("ph") == "s")
ends = collections.Counter(e["id"] for e in ev if e.get("ph") == "f")
if starts != ends:
    fail.append("unpaired flow events")
names = [e.get("name", "") for e in ev] + [e.get("args", {}).get("full_name", "") for e in kernels] + \
        [e.get("args", {}).get("name", "") for e in ev if e.get("ph") == "M"]
for k, v in want:
    if k == "kernels" and len(kernels) != int(v):
        fail.append("kernels: %d, expected %s" % (len(kernels), v))
    if k == "flows" and len(starts) != int(v):
        fail.append("flows: %d, expected %s" % (len(starts), v))
    if k == "lanes" and not any("#2" in n for n in names):
        fail.append("no second lane track")
    if k == "name" and not any(v in n for n in names):
        fail.append("no event name contains %r" % v)
    if k == "counter" and not any(e.get("ph") == "C" and v in e.get("name", "") for e in ev):
        fail.append("no counter %r" % v)
if fail:
    print("FAIL:", "; ".join(fail))
    sys.exit(1)
print("ok: %d events, %d kernels, %d flows, %d tracks" % (len(ev), len(kernels), len(starts), len(tracks)))
