# The framework view (issue 21) through the real reader and every output: the terminal report's
# FRAMEWORK section, JSON "framework" (docs/json.md), --format csv --table ops|modules|
# fused, the HTML module tree, the op/module evidence of a launch-bound verdict, gpudiag diff by
# op and module. The profiles are tests/fixtures/gen_profile.py's "torch" scenarios (what
# `gpudiag run --torch ops` records of two training steps; the figures are worked out in
# gen_profile.py's torch_step and docs/framework-view.md). Profiles recorded on a GPU are checked
# for the view's invariants: add one to REAL below and it is checked too.
source "$(dirname "$0")/lib.sh" "$@"
export NO_COLOR=1
GEN=tests/fixtures/gen_profile.py
REAL=(tests/fixtures/h200_torch_gpt2.gpudiag.sqlite)

for s in torch torch_b torch_launch; do
	python3 $GEN $s "$T/$s.sqlite" || bad "generate $s"
done

# ---- terminal: the section after the summary, bounded by --top
expect_rc 0 -- "$GD" report "$T/torch.sqlite" --top 3
expect_out "FRAMEWORK  PyTorch 2.11.0+cu130, instrumented by gpudiag run --torch ops"
expect_out "84 op ranges (38 in backward), 20 module ranges; 842.0 µs of kernel time in all"
grep -qE '^    aten::mm +8 +8 +1\.00 +320\.0 µs +38\.0 % +320\.0 µs +backward$' "$T/out" && ok || bad "aten::mm row"
grep -qE '^    \(no op\) +0 +2 +- +60\.0 µs' "$T/out" && ok || bad "(no op) row"
grep -qE '^    layers\.0\.fc +Linear +2 +6 +260\.0 µs +30\.9 % +260\.0 µs +100\.0 µs +160\.0 µs$' "$T/out" && ok ||
	bad "layers.0.fc row"
expect_out "and 23 more ops (--top N shows more)"
expect_out "and 7 more modules (--top N shows more)"
grep -qE '^    triton_poi_fused_add_native_layer_norm_0 +pointwise +add, native_layer_norm +2 +40\.0 µs$' "$T/out" &&
	ok || bad "Inductor kernel row"
# after the summary: FRAMEWORK follows the NVML lines; the NVTX table counts op ranges by op name
[ "$(grep -n '^FRAMEWORK' "$T/out" | cut -d: -f1)" -gt "$(grep -n '^SUMMARY' "$T/out" | cut -d: -f1)" ] && ok ||
	bad "FRAMEWORK not after SUMMARY"
grep -qE '^    aten::mm +8 ' <(sed -n '/NVTX ranges/,/never closed/p' "$T/out") && ok || bad "NVTX table: aten::mm by op name"
grep -q 'op_id' "$T/out" && bad "an op range's op_id reached the report" || ok
# a profile without framework ranges has no section
expect_rc 0 -- "$GD" report tests/fixtures/nvtx.gpudiag.sqlite
grep -q '^FRAMEWORK' "$T/out" && bad "FRAMEWORK on a profile without framework ranges" || ok

# ---- JSON: the contract's keys and the hand-worked figures (2 steps of 421 µs)
expect_rc 0 -- "$GD" report "$T/torch.sqlite" --json --top 1000
json_check 'd["framework"]["mode"] == "ops" and d["framework"]["torch"] == "2.11.0+cu130"'
json_check 'all(list(o) == ["name", "calls", "kernels", "kernels_per_call", "self_gpu_ns", "total_gpu_ns", "direction"] for o in d["framework"]["ops"])'
json_check 'all(list(m) == ["path", "class", "calls", "kernels", "self_gpu_ns", "total_gpu_ns", "forward_gpu_ns", "backward_gpu_ns"] for m in d["framework"]["modules"])'
json_check '[o["self_gpu_ns"] for o in d["framework"]["ops"]] == sorted([o["self_gpu_ns"] for o in d["framework"]["ops"]], reverse=True)'
json_check 'sum(o["self_gpu_ns"] for o in d["framework"]["ops"]) == 842000 == sum(m["self_gpu_ns"] for m in d["framework"]["modules"])'
json_check '{o["name"]: (o["calls"], o["kernels"], o["self_gpu_ns"], o["total_gpu_ns"], o["direction"]) for o in d["framework"]["ops"]}["aten::linear"] == (4, 0, 0, 200000, "forward")'
json_check '{o["name"]: (o["calls"], o["kernels"], o["self_gpu_ns"], o["direction"]) for o in d["framework"]["ops"]}["aten::add_"] == (4, 4, 12000, "mixed")'
json_check '{o["name"]: o for o in d["framework"]["ops"]}["(no op)"] == {"name": "(no op)", "calls": 0, "kernels": 2, "kernels_per_call": None, "self_gpu_ns": 60000, "total_gpu_ns": 60000, "direction": None}'
json_check '{o["name"]: o["total_gpu_ns"] for o in d["framework"]["ops"]}["autograd::engine::evaluate_function: AddmmBackward0"] == 320000'
json_check '{o["name"]: o["kernels_per_call"] for o in d["framework"]["ops"]}["aten::native_layer_norm_backward"] == 2'
json_check '{(m["path"], m["class"]): (m["calls"], m["kernels"], m["self_gpu_ns"], m["total_gpu_ns"], m["forward_gpu_ns"], m["backward_gpu_ns"]) for m in d["framework"]["modules"]}[("", "Net")] == (2, 4, 12000, 756000, 342000, 414000)'
json_check '{m["path"]: (m["calls"], m["kernels"], m["self_gpu_ns"], m["backward_gpu_ns"]) for m in d["framework"]["modules"]}["act"] == (4, 8, 80000, 40000)'
json_check '{m["path"]: (m["class"], m["kernels"], m["self_gpu_ns"], m["backward_gpu_ns"]) for m in d["framework"]["modules"]}["(no module)"] == (None, 8, 86000, 18000)'
json_check '{m["path"]: m["total_gpu_ns"] for m in d["framework"]["modules"]}["layers.1"] == 304000'
json_check '[(round(e["value"], 12), e["text"]) for f in d["findings"] if f["id"] == "memory_bound" for e in f["evidence"] if e["key"] == "op_module"] == [(round(40 / 150, 12), "launched by op `GeluBackward0` (26.7 % of its time); in `act` (GELU) (53.3 % of its time)")]'
json_check 'd["framework"]["fused"] == [{"kernel": "triton_poi_fused_add_native_layer_norm_0", "kind": "pointwise", "ops": "add, native_layer_norm", "kernels": 2, "gpu_ns": 40000}, {"kernel": "triton_red_fused__log_softmax_mul_1", "kind": "reduction", "ops": "_log_softmax, mul", "kernels": 2, "gpu_ns": 16000}]'
json_check 'next(r for r in d["summary"]["nvtx_ranges"] if r["name"] == "aten::addmm")["count"] == 4'
# every row by default (the GPU tier compares them all with torch.profiler's); --top bounds them
expect_rc 0 -- "$GD" report "$T/torch.sqlite" --json
json_check 'len(d["framework"]["ops"]) == 26 and len(d["framework"]["modules"]) == 10 and len(d["summary"]["nvtx_ranges"]) == 10'
expect_rc 0 -- "$GD" report "$T/torch.sqlite" --json --top 3
json_check 'len(d["framework"]["ops"]) == 3 and len(d["framework"]["modules"]) == 3 and len(d["framework"]["fused"]) == 2'
expect_rc 0 -- "$GD" report tests/fixtures/nvtx.gpudiag.sqlite --json
json_check '"framework" not in d'

# ---- CSV/TSV: the same rows through the one table writer
expect_rc 0 -- "$GD" report "$T/torch.sqlite" --format csv --table ops
[ "$(head -1 "$T/out")" = "name,calls,kernels,kernels_per_call,self_gpu_ns,total_gpu_ns,direction" ] && ok || bad "ops header"
[ "$(wc -l <"$T/out")" -eq 27 ] && ok || bad "ops: 26 rows expected, got $(($(wc -l <"$T/out") - 1))"
grep -qx 'aten::mm,8,8,1,320000,320000,backward' "$T/out" && ok || bad "ops: aten::mm row"
grep -qx '(no op),0,2,,60000,60000,' "$T/out" && ok || bad "ops: (no op) row"
expect_rc 0 -- "$GD" report "$T/torch.sqlite" --format tsv --table modules
grep -qP '^\tNet\t2\t4\t12000\t756000\t342000\t414000$' "$T/out" && ok || bad "modules: the root's row"
expect_rc 0 -- "$GD" report "$T/torch.sqlite" --format csv
[ "$(grep -c '^# table: ' "$T/out")" -eq 13 ] && ok || bad "13 tables with the framework's three"
expect_rc 0 -- "$GD" report tests/fixtures/nvtx.gpudiag.sqlite --format csv
grep -q '^# table: ops' "$T/out" && bad "ops table on a profile without the view" || ok
expect_rc 0 -- "$GD" report tests/fixtures/nvtx.gpudiag.sqlite --format csv --table modules
[ "$(cat "$T/out")" = "path,class,calls,kernels,self_gpu_ns,total_gpu_ns,forward_gpu_ns,backward_gpu_ns" ] && ok ||
	bad "--table modules without the view: the header alone"
expect_rc 2 -- "$GD" report "$T/torch.sqlite" --format csv --table op
expect_err "no table 'op' (tables: summary, findings, kernels, kinds, libraries, copies, api, nvtx, streams, threads, ops, modules, fused, nodes, ranks, collectives)"

# ---- HTML: the module tree as nested <details>, well formed, strings escaped
expect_rc 0 -- "$GD" report "$T/torch.sqlite" --html "$T/t.html"
grep -q "<h2 id='framework'>Framework</h2>" "$T/t.html" && ok || bad "html: no framework section"
python3 - "$T/t.html" <<'PY' && ok || bad "html: module tree"
import html.parser, sys
class P(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(); self.stack = []; self.tree = []; self.in_tree = False; self.code = None
    def handle_starttag(self, tag, a):
        a = dict(a)
        if tag == "div" and a.get("id") == "module-tree": self.in_tree = True; self.depth0 = len(self.stack)
        if tag not in ("br", "meta", "img"): self.stack.append(tag)
        if self.in_tree and tag == "code": self.code = a.get("title")
    def handle_endtag(self, tag):
        if tag in ("br", "meta", "img"): return
        assert self.stack and self.stack[-1] == tag, (tag, self.stack[-6:])
        self.stack.pop()
        if self.in_tree and tag == "div" and len(self.stack) == self.depth0: self.in_tree = False
        if tag == "code" and self.code is not None:
            self.tree.append((self.code, self.stack.count("details"))); self.code = None
p = P(); p.feed(open(sys.argv[1]).read())
assert not p.stack, p.stack
# (path, details around it): Net opens the tree; layers.N and their children one and two deep
want = [("", 1), ("layers.0", 2), ("layers.0.fc", 2), ("layers.0.norm", 2), ("layers.1", 2), ("layers.1.fc", 2),
        ("layers.1.norm", 2), ("act", 1), ("head", 1), ("(no module)", 0)]
assert p.tree == want, p.tree
PY
# the memory-bound finding's kernel (the elementwise kernel: 150 µs, 40 of them GeluBackward0's
# and 80 in act, forward and backward) with its op and module, in the page's evidence too
grep -q "<li>launched by op \`GeluBackward0\` (26.7 % of its time); in \`act\` (GELU) (53.3 % of its time)</li>" "$T/t.html" &&
	ok || bad "html: the finding's op and module"

# ---- --python-stack's source marks: torch_src is torch with the marks of the first 3 calls of
# each module (gen_profile.py: Net from train.py:42, the blocks and their children from
# /work/proj/model.py, act from lines 31 and 33, head from /opt/lib/head/model.py:7)
python3 $GEN torch_src "$T/torch_src.sqlite" || bad "generate torch_src"
expect_rc 0 -- "$GD" report "$T/torch_src.sqlite" --top 20
expect_out "    called from: the source line that called the module, from a sample of its first calls (--python-stack), the most sampled first (+N other lines)"
grep -qE '^    act +GELU +4 +8 +80\.0 µs +9\.5 % +80\.0 µs +40\.0 µs +40\.0 µs +proj/model\.py:31 \(\+1\)$' "$T/out" && ok ||
	bad "called from: act"
grep -qE '^    head +Head +2 .* +head/model\.py:7$' "$T/out" && ok || bad "called from: head (the shortest tail that differs)"
grep -qE '^    \(root\) +Net +2 .* +train\.py:42$' "$T/out" && ok || bad "called from: the root"
grep -qE '^    layers\.1\.fc +Linear +2 .* +proj/model\.py:15$' "$T/out" && ok || bad "called from: layers.1.fc"
expect_out "in \`act\` (GELU, called from proj/model.py:31) (53.3 % of its time)"
# without source marks: no column, no line
expect_rc 0 -- "$GD" report "$T/torch.sqlite" --top 20
grep -q 'called from' "$T/out" && bad "called from without --python-stack's marks" || ok
expect_rc 0 -- "$GD" report "$T/torch_src.sqlite" --json
json_check 'all(list(m) == ["path", "class", "calls", "kernels", "self_gpu_ns", "total_gpu_ns", "forward_gpu_ns", "backward_gpu_ns", "called_from", "source"] for m in d["framework"]["modules"])'
json_check '{m["path"]: m["source"] for m in d["framework"]["modules"]}["act"] == [{"file": "/work/proj/model.py", "line": 31, "function": "Net.forward", "sampled_calls": 2}, {"file": "/work/proj/model.py", "line": 33, "function": "Net.forward", "sampled_calls": 1}]'
json_check '{m["path"]: (m["called_from"], m["source"]) for m in d["framework"]["modules"]}[""] == ("/work/proj/train.py:42", [{"file": "/work/proj/train.py", "line": 42, "function": "<module>", "sampled_calls": 2}])'
json_check '{m["path"]: (m["called_from"], m["source"]) for m in d["framework"]["modules"]}["(no module)"] == (None, [])'
json_check '{m["path"]: (m["calls"], m["kernels"], m["self_gpu_ns"], m["backward_gpu_ns"]) for m in d["framework"]["modules"]}["act"] == (4, 8, 80000, 40000)'
json_check 'sum(s["sampled_calls"] for m in d["framework"]["modules"] for s in m["source"]) == 19'
expect_rc 0 -- "$GD" report "$T/torch_src.sqlite" --format csv --table modules
[ "$(head -1 "$T/out")" = "path,class,calls,kernels,self_gpu_ns,total_gpu_ns,forward_gpu_ns,backward_gpu_ns,called_from" ] && ok ||
	bad "csv modules header with source marks: $(head -1 "$T/out")"
grep -qx 'act,GELU,4,8,80000,80000,40000,40000,/work/proj/model.py:31' "$T/out" && ok || bad "csv modules: act's called_from"
grep -qx '(no module),,0,8,86000,86000,68000,18000,' "$T/out" && ok || bad "csv modules: (no module) has none"
expect_rc 0 -- "$GD" report "$T/torch_src.sqlite" --html "$T/s.html"
grep -qF "<code title='act&#10;called from:&#10;/work/proj/model.py:31 (Net.forward), 2 sampled calls&#10;/work/proj/model.py:33 (Net.forward), 1 sampled call'>act</code>" "$T/s.html" &&
	ok || bad "html: the module tree's title of act"

# ---- the verdict's evidence names the module and the op (launch-bound, 4 kernels per call)
expect_rc 0 -- "$GD" report "$T/torch_launch.sqlite"
expect_out "· launch-bound: \`blocks.*.norm\` (LayerNorm) launches 4 kernels per call (3000 of the 3000 short kernels)"
expect_out "· op \`aten::native_layer_norm\` launches 4 kernels per call (3000 of the short kernels)"
expect_rc 0 -- "$GD" report "$T/torch_launch.sqlite" --json
json_check 'd["verdict"]["top"] == "launch_bound"'
json_check '[(e["value"], e["unit"]) for f in d["findings"] if f["id"] == "launch_bound" for e in f["evidence"] if e["key"] in ("module_kernels_per_call", "op_kernels_per_call")] == [(4, "ratio"), (4, "ratio")]'
json_check '{m["path"]: (m["calls"], m["kernels"]) for m in d["framework"]["modules"]}["blocks.3.norm"] == (63, 252)'

# ---- diff by op and by module: torch_b's layers.1.fc forward GEMM 80 µs instead of 50
expect_rc 0 -- "$GD" diff "$T/torch.sqlite" "$T/torch_b.sqlite" --top 2
expect_out "By PyTorch op (self GPU time; counts are calls)"
grep -qE '^  aten::addmm +200\.0 µs +260\.0 µs +\+60\.0 µs +1\.30× +4 → 4$' "$T/out" && ok || bad "diff: aten::addmm row"
grep -qE '^  layers\.1\.fc \(Linear\) +260\.0 µs +320\.0 µs +\+60\.0 µs +1\.23× +2 → 2$' "$T/out" && ok || bad "diff: module row"
expect_rc 0 -- "$GD" diff "$T/torch.sqlite" "$T/torch_b.sqlite" --json
json_check 'd["by_op"][0] == {"op": "aten::addmm", "a_ns": 200000, "b_ns": 260000, "delta_ns": 60000, "ratio": 1.3, "a_count": 4, "b_count": 4}'
json_check 'd["by_module"][0]["module"] == "layers.1.fc" and d["by_module"][0]["class"] == "Linear" and d["by_module"][0]["delta_ns"] == 60000'
expect_rc 0 -- "$GD" diff "$T/torch.sqlite" "$T/torch_b.sqlite" --format csv --table modules
[ "$(sed -n 2p "$T/out")" = "layers.1.fc,Linear,260000,320000,60000,1.23076923076923,2,2" ] && ok || bad "diff csv modules: $(sed -n 2p "$T/out")"
# two profiles without the view: the diff reads as before
expect_rc 0 -- "$GD" diff tests/fixtures/sample.gpudiag.sqlite tests/fixtures/nvtx.gpudiag.sqlite --json
json_check '"by_op" not in d and "by_module" not in d'

# ---- profiles recorded on a GPU: the view's invariants
for r in "${REAL[@]}"; do
	[ -f "$r" ] || continue
	expect_rc 0 -- "$GD" report "$r" --json --top 100000000
	json_check 'd["framework"]["mode"] in ("ops", "modules")'
	json_check 'not d["framework"]["ops"] or abs(sum(o["self_gpu_ns"] for o in d["framework"]["ops"]) - d["summary"]["kernel_ns"]) <= 1e-9 * d["summary"]["kernel_ns"]'
	json_check 'abs(sum(m["self_gpu_ns"] for m in d["framework"]["modules"]) - d["summary"]["kernel_ns"]) <= 1e-9 * d["summary"]["kernel_ns"]'
	json_check 'all(o["total_gpu_ns"] >= o["self_gpu_ns"] for o in d["framework"]["ops"])'
	# under --torch ops a finding about a waiting GPU says the op ranges cost host time too
	json_check 'd["framework"]["mode"] != "ops" or all("recorded with --torch ops" in f["advice"] for f in d["findings"] if f["id"] in ("gpu_idle", "launch_bound") and f["state"] == "fired")'
	json_check 'all(m["total_gpu_ns"] >= m["self_gpu_ns"] and abs(m["forward_gpu_ns"] + m["backward_gpu_ns"] - m["total_gpu_ns"]) <= 1 for m in d["framework"]["modules"])'
	expect_rc 0 -- "$GD" report "$r" --html "$T/real.html"
	grep -q "id='module-tree'" "$T/real.html" && ok || bad "$r: no module tree"
	# torch.profiler's figures of the same steps, recorded beside it on the GPU (another
	# process: kernel times differ run to run, the attribution does not): every op that makes
	# torch.profiler's top 90 % of kernel time has the same number of kernels here
	tp=${r%.gpudiag.sqlite}.torch_profiler.json
	[ -f "$tp" ] || continue
	expect_rc 0 -- "$GD" report "$r" --json --top 100000000
	cp "$T/out" "$T/real.json"
	python3 - "$T/real.json" "$tp" <<'PY' && ok || bad "$r: kernels per op differ from torch.profiler's"
import json, sys
ops = {o["name"]: o for o in json.load(open(sys.argv[1]))["framework"]["ops"]}
tp = json.load(open(sys.argv[2]))["ops"]
rows = sorted(((v["self_kernel_us"], k, v) for k, v in tp.items() if v.get("self_kernel_us")), reverse=True)
total, acc, bad = sum(r[0] for r in rows), 0.0, []
for us, name, v in rows:
    if acc >= 0.9 * total:
        break
    acc += us
    if name not in ops or ops[name]["kernels"] != v["kernels"]:
        bad.append((name, ops.get(name, {}).get("kernels"), v["kernels"]))
print("ops compared:", len(rows), "differing:", bad)
sys.exit(1 if bad or acc < 0.9 * total else 0)
PY
done
finish
