#!/usr/bin/env bash
# CPU tier (issue 22): multi-rank profiles through the real reader. tests/fixtures/gen_profile.py
# writes 4-rank DDP jobs (torchrun, one node) with the gradient all-reduces overlapped with the
# backward, with bucketing off, and with rank 2 sleeping 3 ms before each step; and a 2-node job
# as two per-node profiles whose clocks differ by 40 ms. Every figure below is worked by hand from
# the generator's step (see ddp_steps there): forward 4000 µs, backward 8 × 1000 µs, all-reduce
# buckets of 240 µs (one of 1920 µs with bucketing off), optimizer 300 µs, 100 µs idle, 20 steps.
# usage: multigpu.sh <gpudiag binary> <build dir>
source "$(dirname "$0")/lib.sh" "$@"
export NO_COLOR=1
GEN=tests/fixtures/gen_profile.py
for s in ddp_overlap ddp_nooverlap ddp_straggler ddp_node0 ddp_node1; do
  python3 $GEN $s "$T/$s.sqlite" || bad "generate $s"
done

# overlapped: per rank a step of 12 640 µs; span 19 × 12 640 + 12 540 = 252 700 µs; NCCL 20 × 8 ×
# 240 = 38 400 µs, of it 7 buckets of 8 hidden behind the next backward kernel: 4 800 µs exposed,
# 1.8995 % of the span — under the 2 % line: clear. Nobody late.
expect_rc 0 -- "$GD" report "$T/ddp_overlap.sqlite" --json
json_check 'd["verdict"]["top"] is None and d["verdict"]["warnings"] == 0'
json_check '[f["state"] for f in d["findings"] if f["id"] == "communication"] == ["clear"]'
json_check '[f["state"] for f in d["findings"] if f["id"] == "straggler"] == ["clear"]'
json_check 'len(d["findings"]) == 14'
json_check 'd["job"]["ranks"] == 4 and d["job"]["nccl_ranks"] == 4 and d["job"]["collectives_matched"] == 160 and d["job"]["collectives_judged"] == 160'
json_check 'd["job"]["straggler"] is None and len(d["job"]["nodes"]) == 1'
json_check '[r["pid"] for r in d["ranks"]] == [5001, 5002, 5003, 5004] and [r["device"] for r in d["ranks"]] == [0, 1, 2, 3]'
json_check 'all(r["span_ns"] == 252700000 and r["compute_ns"] == 246000000 and r["comm_ns"] == 38400000 for r in d["ranks"])'
json_check 'all(r["comm_overlap_ns"] == 33600000 and r["comm_exposed_ns"] == 4800000 and r["comm_wait_ns"] == 0 for r in d["ranks"])'
json_check 'all(r["idle_ns"] == 1900000 and r["busy_ns"] == 250800000 and r["kernels"] == 360 and r["nccl_kernels"] == 160 for r in d["ranks"])'
json_check 'd["collectives"] == [{"collective": "AllReduce sum bf16, ring/LL", "op": "AllReduce", "redop": "sum", "dtype": "bf16", "algorithm": "ring", "protocol": "LL", "kernels": 640, "ranks": 4, "total_ns": 153600000, "mean_ns": 240000, "min_ns": 240000, "max_ns": 240000, "bytes": None}]'
json_check 'abs([e["value"] for f in d["findings"] if f["id"] == "communication" for e in f["evidence"] if e["key"] == "exposed_ns"][0] - 4 * 4800000) < 1'

# bucketing off: one all-reduce of 1920 µs after the backward, nothing to hide it: 38 400 µs of
# 286 300 (19 × 14 320 + 14 220) exposed, 13.41 %: a warning, the top finding
expect_rc 0 -- "$GD" report "$T/ddp_nooverlap.sqlite" --json
json_check 'd["verdict"]["top"] == "communication"'
json_check '[(f["severity"], round(f["share_at_stake"], 6)) for f in d["findings"] if f["id"] == "communication"] == [("warning", round(38400 / 286300, 6))]'
json_check '[e["value"] for f in d["findings"] if f["id"] == "communication" for e in f["evidence"] if e["key"] == "overlap_fraction"] == [0]'
json_check 'all(r["comm_exposed_ns"] == 38400000 and r["span_ns"] == 286300000 for r in d["ranks"])'
json_check 'd["collectives"][0]["protocol"] == "Simple" and d["collectives"][0]["kernels"] == 80'
json_check '"bucket_cap_mb" in [f["advice"] for f in d["findings"] if f["id"] == "communication"][0]'
json_check '"compressed gradients" in [f["advice"] for f in d["findings"] if f["id"] == "communication"][0]'

# the straggler: rank 2's compute ends 3 ms after the others' before each of the 160 collectives.
# The others' all-reduce 0 waits 3000 µs, buckets 1-7 wait 760 µs each (queued behind bucket 0):
# 8320 µs a step, 20 steps, 3 ranks = 499 200 µs, of their 614 400 µs of NCCL time (81.25 %) and
# their 3 × 312 700 µs of span (53.21 %: high)
expect_rc 0 -- "$GD" report "$T/ddp_straggler.sqlite" --json
json_check 'd["verdict"]["top"] == "straggler"'
json_check 'd["job"]["straggler"] == 2'
python3 - "$T/out" <<'PY' && ok || bad "straggler evidence"
import json, sys
d = json.load(open(sys.argv[1]))
f = {x["id"]: x for x in d["findings"]}
s = f["straggler"]
e = {x["key"]: x["value"] for x in s["evidence"]}
assert s["state"] == "fired" and s["severity"] == "high", s
assert abs(s["share_at_stake"] - 499200 / 938100) < 1e-9, s["share_at_stake"]
assert e["straggler_rank"] == 2 and e["straggler_pid"] == 5003 and e["straggler_device"] == 2, e
assert e["lateness_mean_ns"] == 3000000 and e["lateness_max_ns"] == 3000000, e
assert e["others_wait_ns"] == 499200000 and abs(e["wait_fraction"] - 0.8125) < 1e-12, e
assert e["last_fraction"] == 1 and e["collectives_judged"] == 160, e
assert s["headline"].startswith("Rank 2 (pid 5003, GPU 2) is the straggler"), s["headline"]
# communication: the waiting is the straggler's; left exposed per step: 960 µs on each other rank
# (240 µs of bucket 4 past the backward, and 3 × 240 µs of buckets 5-7 after their waiting) and
# 240 µs on rank 2: 20 × 3120 µs of 1 247 800 µs of span (5.0 %: a note)
c = f["communication"]
ce = {x["key"]: x["value"] for x in c["evidence"]}
assert c["state"] == "fired" and c["severity"] == "info", c
assert ce["exposed_ns"] == 62400000 and ce["wait_ns"] == 136800000, ce
assert abs(c["share_at_stake"] - 62400 / 1247800) < 1e-9, c["share_at_stake"]
r = d["ranks"]
assert [x["last"] for x in r] == [0, 0, 160, 0], [x["last"] for x in r]
assert r[2]["span_ns"] == 309700000 and r[0]["span_ns"] == 312700000
assert r[0]["comm_wait_ns"] == 20 * 2280000 and r[2]["comm_wait_ns"] == 0
assert r[2]["waited_for_ns"] == 499200000 and r[2]["idle_ns"] == 19 * 3100000
PY

# the terminal: the ranks table and the collectives, a one-GPU report without them
expect_rc 0 -- "$GD" report "$T/ddp_straggler.sqlite"
expect_out "VERDICT  Rank 2 (pid 5003, GPU 2) is the straggler"
expect_out "  Ranks (a process and its GPU"
expect_out "    2     5003  2    309.7 ms"
expect_out "160/160"
expect_out "AllReduce sum bf16, ring/LL      640      4"
python3 $GEN clean "$T/clean.sqlite"
expect_rc 0 -- "$GD" report "$T/clean.sqlite"
grep -q "Ranks\|NCCL collectives\|straggler" "$T/out" && bad "one-GPU report shows ranks" || ok
expect_rc 0 -- "$GD" report "$T/clean.sqlite" --json
json_check '"ranks" not in d and "job" not in d and "collectives" not in d and len(d["findings"]) == 13'

# CSV: the ranks table on its own, readable by pandas-like readers; every table with the others
expect_rc 0 -- "$GD" report "$T/ddp_straggler.sqlite" --format csv --table ranks
python3 - "$T/out" <<'PY' && ok || bad "ranks csv"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 4 and rows[2]["pid"] == "5003" and rows[2]["lateness_mean_ns"] == "3000000", rows[2]
assert rows[0]["lateness_mean_ns"] == "" and rows[0]["gpu_name"] == "NVIDIA H200", rows[0]
PY
expect_rc 0 -- "$GD" report "$T/ddp_straggler.sqlite" --format tsv
expect_out "# table: ranks"
expect_out "# table: collectives"
expect_out "# table: nodes"
expect_rc 0 -- "$GD" report "$T/clean.sqlite" --format csv
grep -q "# table: ranks" "$T/out" && bad "one-GPU csv lists ranks" || ok
expect_rc 0 -- "$GD" report "$T/clean.sqlite" --format csv --table ranks
[ "$(wc -l <"$T/out")" -eq 2 ] && ok || bad "one-GPU --table ranks: $(cat "$T/out")"

# two nodes: node 1's clock is 40 ms ahead; the k-th collective's end read (k mod 3 - 1) × 2 µs
# off: the offset applied is -40 ms exactly, the uncertainty 2 µs (the median absolute deviation
# of 160 estimates: 53 at 0, 107 at 2 µs), and the merged job is the overlapped one of 4 ranks
expect_rc 0 -- "$GD" report "$T/ddp_node0.sqlite" "$T/ddp_node1.sqlite" --json
json_check 'd["job"]["nodes"][1]["offset_ns"] == -40000000 and d["job"]["nodes"][1]["uncertainty_ns"] == 2000'
json_check 'd["job"]["nodes"][1]["collectives"] == 160 and d["job"]["nodes"][1]["aligned"] is True'
json_check 'd["job"]["ranks"] == 4 and d["job"]["collectives_matched"] == 160 and d["job"]["straggler"] is None'
json_check '[(r["node"], r["pid"], r["device"], r["node_device"]) for r in d["ranks"]] == [(0, 5001, 0, 0), (0, 5002, 1, 1), (1, 5001, 2, 0), (1, 5002, 3, 1)]'
json_check 'all(r["span_ns"] == 252700000 and r["compute_ns"] == 246000000 for r in d["ranks"])'
json_check 'd["verdict"]["warnings"] == 0'
expect_rc 0 -- "$GD" report "$T/ddp_node0.sqlite" "$T/ddp_node1.sqlite"
expect_out "node 1  $T/ddp_node1.sqlite  offset −40.0 ms ± 2.00 µs (160 collectives)"
expect_out "rank  node  pid   GPU"
# without the alignment the clocks disagree by 40 ms: one profile alone is a 2-rank job
expect_rc 0 -- "$GD" report "$T/ddp_node1.sqlite" --json
json_check 'd["job"]["ranks"] == 2 and len(d["job"]["nodes"]) == 1'
# a profile without collectives in common is merged with its clock as recorded, and says so
expect_rc 0 -- "$GD" report "$T/ddp_node0.sqlite" "$T/clean.sqlite" --json
json_check 'd["job"]["nodes"][1]["aligned"] is False and "taken as recorded" in d["job"]["nodes"][1]["note"]'
# errors: a file twice, a bad file among several
expect_rc 2 -- "$GD" report "$T/ddp_node0.sqlite" "$T/ddp_node0.sqlite"
expect_err "given twice"
expect_one_line_err
printf 'junk' >"$T/junk.sqlite"
expect_rc 5 -- "$GD" report "$T/ddp_node0.sqlite" "$T/junk.sqlite"
expect_one_line_err

# the HTML page's ranks section (render/html_ranks.c) shows the analysis's figures: one bar per
# rank on the scale of the longest span, split into compute, NCCL not hidden, NCCL waiting,
# copies alone and idle (each width = 686 px × part / longest span); the straggler marked; the
# ranks table's cells as the JSON's; the nodes table for a job of two; no section for one GPU
expect_rc 0 -- "$GD" report "$T/ddp_straggler.sqlite" --json
cp "$T/out" "$T/straggler.json"
expect_rc 0 -- "$GD" report "$T/ddp_straggler.sqlite" --html "$T/straggler.html"
expect_rc 0 -- "$GD" report "$T/ddp_node0.sqlite" "$T/ddp_node1.sqlite" --html "$T/nodes.html"
expect_rc 0 -- "$GD" report "$T/ddp_overlap.sqlite" --html "$T/overlap.html"
# a node with no collective in common: its clock as recorded, said the same way in both outputs
expect_rc 0 -- "$GD" report "$T/ddp_node0.sqlite" "$T/clean.sqlite" --html "$T/unaligned.html"
expect_out "node 1  $T/clean.sqlite  clock taken as recorded: "
grep -q "<td class='p'>clock taken as recorded: " "$T/unaligned.html" && ok || bad "HTML nodes: unaligned clock not said"
expect_rc 0 -- "$GD" report "$T/clean.sqlite" --html "$T/clean.html"
python3 - "$T" <<'PY' && ok || bad "HTML ranks section"
import html, json, re, sys
T = sys.argv[1]
d = json.load(open(T + "/straggler.json"))
s = open(T + "/straggler.html").read()
assert "<a href='#sec-ranks'>Ranks</a>" in s
sec = s[s.index("<section id='sec-ranks'>"):]
sec = sec[:sec.index("</section>")]
svg = sec[sec.index("<svg id='ranks-bars'"):sec.index("</svg>")]
labels = re.findall(r"<text [^>]*>([^<]*)</text>", svg)
assert labels == ["rank 0 (pid 5001, GPU 0)", "rank 1 (pid 5002, GPU 1)", "rank 2 (pid 5003, GPU 2) straggler",
                  "rank 3 (pid 5004, GPU 3)"], labels
assert "<p id='straggler'>Straggler: <b>rank 2 (pid 5003, GPU 2)</b>" in sec
longest = max(r["span_ns"] for r in d["ranks"])
rows = svg.split("<text ")[1:]
for r, row in zip(d["ranks"], rows):
    w = {int(k): float(v) for k, v in re.findall(r"data-part='(\d)' x='[\d.]+' y='\d+' width='([\d.]+)'", row)}
    wait = min(r["comm_wait_ns"], r["comm_exposed_ns"])
    want = {0: r["compute_ns"], 1: r["comm_exposed_ns"] - wait, 2: wait,
            3: r["busy_ns"] - r["compute_ns"] - r["comm_exposed_ns"], 4: r["idle_ns"]}
    for k, v in want.items():
        assert abs(w.get(k, 0) - 686 * v / longest) < 0.01, (r["pid"], k, w.get(k), 686 * v / longest)
# the straggler's bar is shorter (its span 309.7 ms of the longest 312.7) and has no waiting part
assert "data-part='2'" not in rows[2] and "data-part='2'" in rows[0]
assert "NCCL, waiting for a late rank: 45.6 ms 14.6 % of the span" in rows[0]
tab = sec[sec.index("<table id='ranks'>"):]
tab = tab[:tab.index("</table>")]
trs = re.findall(r"<tr( class='straggler')?>(.*?)</tr>", tab)[1:]
assert len(trs) == 4 and [bool(c) for c, _ in trs] == [False, False, True, False], trs
cells = [html.unescape(c) for c in re.findall(r"<td class='r'>([^<]*)</td>", trs[2][1])]
assert cells == ["2", "5003", "2", "309.7 ms", "246.0 ms 79.4 %", "38.4 ms 12.4 %", "4.80 ms 1.5 %", "0 ns 0.0 %",
                 "0 ns 0.0 %", "58.9 ms 19.0 %", "160/160", "3.00 ms"], cells
assert "Collectives matched across ranks by order: 160 (1 communicator stream), 160 judged for lateness.</p>" in sec
assert "<td>AllReduce sum bf16, ring/LL</td><td class='r'>640</td><td class='r'>4</td>" in sec
n = open(T + "/nodes.html").read()
assert "<table id='nodes'>" in n and "offset −40.0 ms ± 2.00 µs (160 collectives)" in n
assert "<th class='r'>rank</th><th class='r'>node</th><th class='r'>pid</th>" in n
assert "<table id='nodes'>" not in s and "<th class='r'>node</th>" not in s
o = open(T + "/overlap.html").read()
assert "<section id='sec-ranks'>" in o and "id='straggler'" not in o and " straggler</text>" not in o
c = open(T + "/clean.html").read()
assert "sec-ranks" not in c
PY

# diff: each side a job of two nodes (halves), or --split
expect_rc 0 -- "$GD" diff "$T/ddp_node0.sqlite" "$T/ddp_node1.sqlite" "$T/ddp_node0.sqlite" "$T/ddp_node1.sqlite" --json
json_check 'd["totals"]["a_kernels"] == 1440 and d["totals"]["b_kernels"] == 1440 and d["totals"]["kernel_ratio"] == 1'
expect_rc 0 -- "$GD" diff "$T/ddp_node0.sqlite" "$T/ddp_node1.sqlite" "$T/ddp_straggler.sqlite" --split 2
expect_out "A: job: 2 profiles, one per node"
expect_out "+499.2 ms"
expect_rc 2 -- "$GD" diff "$T/ddp_node0.sqlite" "$T/ddp_node1.sqlite" "$T/ddp_straggler.sqlite"
expect_err "--split K"
expect_rc 2 -- "$GD" diff "$T/ddp_node0.sqlite" "$T/ddp_node1.sqlite" --split 2
expect_err "--split must be 1 to 1"
finish
