#!/usr/bin/env bash
# CPU tier: the verdicts through the real profile reader. Profiles are generated with the
# real schema (tests/fixtures/gen_profile.py), each planting one problem; the planted rule
# must be the top finding and the clean GEMM loop must raise no warning. Also: JSON validity,
# bad files (exit 5), gpudiag diff, HTML escaping, and the no-GPU demo fallback.
# usage: verdicts.sh <gpudiag binary> <build dir>
set -u
G=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export GPUDIAG_LIBCUDA=/nonexistent GPUDIAG_LIBNVML=/nonexistent NO_COLOR=1
fail=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fail=1; }
GEN=tests/fixtures/gen_profile.py

# scenario → the rule that must rank first
declare -A top=([idle]=gpu_idle [launch]=launch_bound [sync]=sync_in_loop [pageable]=pageable_memory
	[default_stream]=default_stream [occupancy]=low_occupancy [membound]=memory_bound
	[tensor]=tensor_cores_unused [throttle]=throttling [memory]=memory_pressure [oom]=memory_pressure [comm]=communication
	[dropped]=profiler_limits [sync_mask]=sync_in_loop)
for s in clean startup_pageable "${!top[@]}"; do
	python3 $GEN "$s" "$T/$s.sqlite" || { bad "generate $s"; continue; }
	"$G" report "$T/$s.sqlite" --json >"$T/$s.json"
	rc=$?
	[ $rc -eq 0 ] || bad "$s: report exit $rc"
	python3 -m json.tool "$T/$s.json" >/dev/null || bad "$s: JSON does not parse"
	got=$(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(d['verdict']['top'])" "$T/$s.json")
	want=${top[$s]:-None}
	[ "$got" = "$want" ] && ok "$s: top finding $got" || bad "$s: top finding '$got', expected '$want'"
done

# per-kernel counters (issue 19): 16 rules apply; the measured causes are named with their
# numbers, at stake of kernel time; the coalesced twin is not named
python3 $GEN metrics "$T/metrics.sqlite" && "$G" report "$T/metrics.sqlite" --json >"$T/metrics.json" &&
	"$G" report "$T/metrics.sqlite" >"$T/metrics.txt" || bad "metrics: generate/report"
python3 - "$T/metrics.json" <<'PY' && ok "metrics: 16 rules, uncoalesced/divergence/roofline on the planted kernels" || bad "metrics: checks"
import json, sys
d = json.load(open(sys.argv[1]))
f = {x["id"]: x for x in d["findings"]}
assert len(f) == 16, len(f)
assert d["verdict"]["top"] == "roofline", d["verdict"]["top"]
u = f["uncoalesced"]
assert u["state"] == "fired" and u["basis"] == "kernel counters" and u["kernel"] == "strided_gather", u
assert any(e["key"] == "kernel1_sectors_per_request" and e["value"] == 32 for e in u["evidence"]), u["evidence"]
assert "coalesced_copy" not in json.dumps(u)
assert f["divergence"]["state"] == "fired" and f["divergence"]["kernel"] == "divergent_branch"
assert f["roofline"]["kernel"] == "register_heavy", f["roofline"]["kernel"]
PY
grep -q "Uncoalesced global memory access  §7  at stake: [0-9.]* % of kernel time" "$T/metrics.txt" &&
	ok "metrics: the stake said of kernel time" || bad "metrics: stake wording"

# the clean loop: no warning, all 13 rules listed, none insufficient but latency_bound (no counters)
python3 - "$T/clean.json" <<'PY' && ok "clean: 13 rules, no warning, summary numbers" || bad "clean: checks"
import json, sys
d = json.load(open(sys.argv[1]))
f = d["findings"]
assert len(f) == 13, len(f)
assert d["verdict"]["warnings"] == 0
assert all(x["state"] == "clear" for x in f if x["id"] != "latency_bound"), [x["id"] for x in f if x["state"] != "clear"]
assert [x["state"] for x in f if x["id"] == "latency_bound"] == ["insufficient"]
s = d["summary"]
assert s["kernels"] == 400 and s["top_kernels"][0]["count"] == 400
assert abs(s["top_kernels"][0]["mean_ns"] - 500000) < 1
assert s["top_kernels"][0]["kind"] == "GEMM" and s["top_kernels"][0]["library"] == "cuBLAS/cuBLASLt"
assert abs(s["top_kernels"][0]["occupancy"] - 12 / 64) < 1e-9, s["top_kernels"][0]["occupancy"]
assert d["synthetic"] is True and "SYNTHETIC" in d["sample_label"]
PY

# evidence values on the planted problems
python3 - "$T" <<'PY' && ok "evidence values" || bad "evidence values"
import json, sys, os
T = sys.argv[1]
def rule(s, i):
    d = json.load(open(os.path.join(T, s + ".json")))
    r = [x for x in d["findings"] if x["id"] == i][0]
    return r, {e["key"]: e["value"] for e in r["evidence"]}
r, e = rule("launch", "launch_bound")
assert r["severity"] == "high" and e["short_kernels"] == 3000 and e["launch_api_median_ns"] == 5000, e
r, e = rule("sync", "sync_in_loop")
assert e["sync_calls"] == 500 and abs(e["idle_after_sync_ns"] - 499 * 120000) < 1, e
r, e = rule("pageable", "pageable_memory")
# the first of the 100 copies precedes the loop's first kernel: start-up, not judged
assert e["pageable_copies"] == 99 and e["startup_pageable_copies"] == 1, e
assert abs(e["pageable_bw"] - (64 << 20) / 9.7e-3) < 1e3, e
# a one-off upload before a clean loop (model.cuda()): evidence, no warning; the idle rule
# says why the GPU was idle most of the wall time
r, e = rule("startup_pageable", "pageable_memory")
assert r["state"] == "clear" and e["startup_pageable_copies"] == 48 and e["pageable_copies"] == 0, (r, e)
assert "all before or after the main loop" in r["headline"], r["headline"]
r, e = rule("startup_pageable", "gpu_idle")
assert r["state"] == "clear" and "start-up" in r["headline"] and "before the main loop" in r["headline"], r
# the sync is the cause, the launch gaps after it its symptom: one cause per gap
r, e = rule("sync_mask", "sync_in_loop")
assert r["state"] == "fired" and e["sync_stake_ns"] > 99 * 60 * 12000, e  # the 60 launch gaps and more
r, e = rule("sync_mask", "launch_bound")
assert r["state"] == "clear" and e["idle_before_short_ns"] < 1e6, e
# blocking streams alternating through a 1-thread default-stream kernel: the delay on the
# other streams is at stake (about one stream's worth), not the default-stream kernel's 3 µs
r, e = rule("default_stream", "default_stream")
assert r["severity"] == "high" and e["delayed_ops"] == 599, e
assert 0.4 < r["share_at_stake"] < 0.6, r["share_at_stake"]
# a kernel back to back with itself: each run counted once (3000 × 2 µs), not twice
r, e = rule("launch", "memory_bound")
assert abs(e["fusion_pair_saving_ns"] - 0.5 * 3000 * 2000) < 1, e
r, e = rule("idle", "gpu_idle")
assert abs(e["busy_fraction"] - 100 / 500) < 1e-3 and r["severity"] == "high", e
r, e = rule("occupancy", "low_occupancy")
assert "64 blocks" in r["headline"] and r["kernel"] == "my_stencil_2d", r
r, e = rule("memory", "memory_pressure")
assert abs(e["peak_fraction"] - 0.985) < 1e-3, e
# failed device allocations in the loop, memory at 20 %: out-of-memory measured (the host one
# is not counted)
r, e = rule("oom", "memory_pressure")
assert r["severity"] == "high" and e["alloc_out_of_memory"] == 10, e
assert "10 device allocations in the main loop failed for lack of memory (the first: cuMemAlloc_v2, " \
    in r["headline"], r["headline"]
r, e = rule("dropped", "profiler_limits")
assert e["dropped_records"] == 5000, e
r, e = rule("comm", "communication")
assert e["overlap_fraction"] == 0 and r["severity"] == "high", e
PY

# terminal output: the verdict comes first, then the summary
"$G" report "$T/launch.sqlite" >"$T/launch.txt"
v=$(grep -n '^VERDICT' "$T/launch.txt" | cut -d: -f1)
s=$(grep -n '^SUMMARY' "$T/launch.txt" | cut -d: -f1)
[ -n "$v" ] && [ -n "$s" ] && [ "$v" -lt "$s" ] && grep -q 'Launch-bound' "$T/launch.txt" && ok "terminal: verdict before summary" ||
	bad "terminal layout"

# bad input: exit 5 with a one-line error
printf 'not a profile' >"$T/junk"
"$G" report "$T/junk" 2>"$T/err"; [ $? -eq 5 ] && grep -q 'not a gpudiag profile' "$T/err" && ok "junk → 5" || bad "junk"
"$G" report "$T/missing.sqlite" 2>"$T/err"; [ $? -eq 5 ] && ok "missing → 5" || bad "missing"
python3 -c "import sqlite3; sqlite3.connect('$T/other.sqlite').execute('create table t(x)')"
"$G" report "$T/other.sqlite" 2>"$T/err"; [ $? -eq 5 ] && grep -q 'no meta.schema_version' "$T/err" && ok "other SQLite → 5" || bad "other sqlite"
cp "$T/clean.sqlite" "$T/v99.sqlite"
python3 -c "import sqlite3; c=sqlite3.connect('$T/v99.sqlite'); c.execute(\"update meta set value='99' where key='schema_version'\"); c.commit()"
"$G" report "$T/v99.sqlite" 2>"$T/err"; [ $? -eq 5 ] && grep -q 'version 99' "$T/err" && ok "wrong version → 5" || bad "wrong version"
head -c 20000 "$T/clean.sqlite" >"$T/trunc.sqlite"
"$G" report "$T/trunc.sqlite" >/dev/null 2>"$T/err"; rc=$?
[ $rc -eq 5 ] && [ $(wc -l <"$T/err") -eq 1 ] && ok "truncated → 5" || bad "truncated: exit $rc: $(cat "$T/err")"
"$G" report 2>/dev/null; [ $? -eq 2 ] && ok "no file → 2" || bad "usage"

# diff: by kernel and by kind, JSON and text
"$G" diff "$T/tensor.sqlite" "$T/clean.sqlite" --json >"$T/diff.json" && python3 - "$T/diff.json" <<'PY' && ok "diff JSON" || bad "diff JSON"
import json, sys
d = json.load(open(sys.argv[1]))
k = {r["kernel"]: r for r in d["by_kernel"]}
assert k["ampere_sgemm_128x64_nn"]["b_ns"] == 0 and k["ampere_sgemm_128x64_nn"]["a_count"] == 1000
g = {r["kind"]: r for r in d["by_kind"]}
assert g["GEMM"]["a_ns"] == 1000 * 500000 and g["GEMM"]["b_ns"] == 400 * 500000, g
assert abs(d["totals"]["kernel_ratio"] - 0.4) < 1e-9
PY
"$G" diff "$T/tensor.sqlite" "$T/clean.sqlite" >"$T/diff.txt" && grep -q 'By kind' "$T/diff.txt" && grep -q 'gone' "$T/diff.txt" &&
	ok "diff text" || bad "diff text"
"$G" diff "$T/junk" "$T/clean.sqlite" 2>/dev/null; [ $? -eq 5 ] && ok "diff junk → 5" || bad "diff junk"

# HTML: self-contained, findings in it, hostile names escaped
python3 $GEN hostile "$T/hostile.sqlite"
"$G" report "$T/hostile.sqlite" --html "$T/h.html" >/dev/null || bad "html exit"
grep -q '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;' "$T/h.html" && ! grep -q '<script' "$T/h.html" &&
	! grep -q '<img' "$T/h.html" && ok "html: hostile names escaped" || bad "html escaping"
! grep -Eq 'https?://[^ ]*\.(js|css)|<link|src=.http' "$T/h.html" && ok "html: no network" || bad "html network"
"$G" report "$T/launch.sqlite" --html "$T/l.html" >/dev/null && grep -q "id='finding-launch_bound'" "$T/l.html" &&
	grep -q '<svg' "$T/l.html" && ok "html: findings and charts" || bad "html findings"
python3 -c "
import html.parser,sys
class P(html.parser.HTMLParser):
    pass
P().feed(open(sys.argv[1]).read())" "$T/l.html" && ok "html parses" || bad "html parse"

# a real `gpudiag run` profile of a program that never touches CUDA
"$G" run -o "$T/true.sqlite" -- true 2>/dev/null
"$G" report "$T/true.sqlite" --json >"$T/true.json" && python3 - "$T/true.json" <<'PY' && ok "run of a non-CUDA program → profiler_limits" || bad "non-CUDA run"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["verdict"]["top"] == "profiler_limits", d["verdict"]
assert "never initialised CUDA" in d["verdict"]["headline"]
assert sum(f["state"] == "insufficient" for f in d["findings"]) == 12
PY

# no GPU: the demo fallback renders the shipped sample, labelled
GPUDIAG_SAMPLE=tests/fixtures/sample.gpudiag.sqlite "$G" __demo >/dev/null 2>"$T/err"; [ $? -eq 3 ] && ok "__demo without GPU → 3" || bad "__demo no gpu"
"$G" report tests/fixtures/sample.gpudiag.sqlite | grep -q 'SAMPLE profile recorded on an NVIDIA H200' && ok "sample labelled as recorded on an H200" || bad "sample label"
exit $fail
