#!/usr/bin/env bash
# CPU tier: `gpudiag export --perfetto` in Perfetto's native protobuf format (issue 20), read
# back by tests/cli/pftrace.py (a decoder of our own: structure, interning, clocks, nesting,
# flows). Every recorded fixture: the same slices, names, arguments, arrows and counters as
# its JSON export, and the profile's own counts and values (SQL). A generated profile with
# hand-worked expectations. Choosing the format; error paths.
source "$(dirname "$0")/lib.sh" "$@"
F=tests/fixtures
PF="python3 tests/cli/pftrace.py"

# ---- every recorded fixture, against its JSON export and its SQL ----
for p in "$F"/*.gpudiag.sqlite; do
  n=$(basename "$p" .gpudiag.sqlite)
  expect_rc 0 -- "$GD" export "$p" --perfetto "$T/$n.pftrace"
  expect_rc 0 -- "$GD" export "$p" --perfetto "$T/$n.json"
  $PF "$T/$n.pftrace" --json "$T/$n.json" --profile "$p" >"$T/pf.out" 2>&1 && ok ||
    bad "$n: $(head -c 600 "$T/pf.out")"
  # the size the format is for: at most a third of the JSON even on a small profile
  js=$(stat -c %s "$T/$n.json") pb=$(stat -c %s "$T/$n.pftrace")
  [ $((pb * 3)) -le "$js" ] && ok || bad "$n: $pb bytes of protobuf against $js of JSON"
done
# the first bytes: Trace.packet (field 1, length-delimited), as Perfetto recognises a trace
[ "$(head -c 1 "$T/sample.pftrace" | od -An -tx1 | tr -d ' ')" = 0a ] && ok || bad "the trace does not start with 0x0a"
# a second run writes the same bytes, however the two threads were scheduled
expect_rc 0 -- "$GD" export "$F/sample.gpudiag.sqlite" --perfetto "$T/again.pftrace"
cmp -s "$T/sample.pftrace" "$T/again.pftrace" && ok || bad "two exports of one profile differ"
TMPDIR=/nonexistent expect_rc 1 -- "$GD" export "$F/sample.gpudiag.sqlite" --perfetto "$T/notmp.pftrace"
expect_err "cannot create a temporary file in '/nonexistent'"
[ ! -e "$T/notmp.pftrace" ] && ok || bad "an export without a scratch file left its output"
# fixture expectations: the NVTX ranges and marks, the threads, the counts
$PF "$T/nvtx.pftrace" kernels=32 flows=32 name=step name=done 'track=NVTX thread' 'counter=SM clock' >/dev/null &&
  ok || bad "nvtx fixture: $($PF "$T/nvtx.pftrace" kernels=32 flows=32 name=step name=done)"
$PF "$T/threads.pftrace" kernels=200 flows=200 >/dev/null && ok || bad "threads fixture"
# the PyTorch fixture (GPT-2, --torch ops): each kernel slice carries the op and module the
# framework view gives it, in both formats; a profile without the view carries neither
$PF "$T/h200_torch_gpt2.pftrace" arg=op arg=module arg=backward >/dev/null && ok ||
  bad "gpt2: $($PF "$T/h200_torch_gpt2.pftrace" arg=op arg=module arg=backward | tail -1)"
python3 - "$T/h200_torch_gpt2.json" "$T/sample.json" >"$T/fw.out" 2>&1 <<'PY' && ok || bad "framework args: $(cat "$T/fw.out")"
import json, sys
ks = [e for e in json.load(open(sys.argv[1]))["traceEvents"] if e.get("cat") == "kernel"]
a = [e["args"] for e in ks]
gather = [x for x in a if x["full_name"].startswith("void at::native::vectorized_gather_kernel")]
checks = [
    ("3144 kernels, each with its op", len(ks) == 3144 and all("op" in x for x in a)),
    ("2673 with a module, 1887 backward", sum("module" in x for x in a) == 2673 and sum(x.get("backward") is True for x in a) == 1887),
    ("the embedding's gather", bool(gather) and gather[0].get("op") == "aten::gather" and gather[0].get("module") == "transformer.wte (Embedding)"),
    ("the GEMMs under aten::mm or aten::addmm", sum(x.get("op") in ("aten::mm", "aten::addmm") for x in a) == 441),
    ("no op or module in a profile without the view", not any("op" in e.get("args", {}) or "module" in e.get("args", {})
                                                           for e in json.load(open(sys.argv[2]))["traceEvents"])),
]
bad = [w for w, good in checks if not good]
print("; ".join(bad) if bad else "ok")
sys.exit(1 if bad else 0)
PY

# ---- a generated profile, worked by hand (tests/fixtures/gen_profile.py "sync"):
# 500 iterations i of: cudaLaunchKernel [t-6 µs, t-2 µs] (correlation 2i+1), the GEMM kernel
# [t, t+200 µs] on stream 13, cudaDeviceSynchronize [t-1 µs, t+203 µs] (2i+2); then t += 320 µs,
# with t = T0 + 20 ms + i·320 µs, T0 = 1 764 000 000 000 000 000 ns. NVML at 20 Hz from T0 to
# 20 ms after the last kernel (T0 + 200 ms): 5 samples, each with 10 counters. ----
python3 "$F/gen_profile.py" sync "$T/sync.sqlite" >/dev/null
expect_rc 0 -- "$GD" export "$T/sync.sqlite" --perfetto "$T/sync.pftrace"
python3 - "$T/sync.pftrace" <<'EOF' >"$T/py.out" 2>&1 && ok || bad "hand-worked sync profile: $(tail -3 "$T/py.out")"
import sys
sys.path.insert(0, "tests/cli")
import pftrace
tr = pftrace.Trace(sys.argv[1])
assert not tr.fail, tr.fail
T0, US, MS = 1_764_000_000_000_000_000, 1000, 1_000_000
GEMM = "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x256x64_warpgroupsize2x1x1_execute_segment_k_off_kernel__5x_cublas"
k = sorted((s for s in tr.slices if s["cat"] == "kernel"), key=lambda s: s["ts"])
api = sorted((s for s in tr.slices if s["cat"] == "api"), key=lambda s: s["ts"])
assert len(k) == 500 and len(api) == 1000, (len(k), len(api))
for i, s in enumerate(k):
    t = T0 + 20 * MS + i * 320 * US
    assert (s["ts"], s["dur"], s["name"]) == (t, 200 * US, GEMM), (i, s["ts"], s["dur"])
    assert s["args"] == {"correlation": 2 * i + 1, "full_name": GEMM,
                         "launch": "grid 264,1,1 · block 384,1,1 · 168 registers · shared memory 0 B static + 200000 B dynamic"}, s["args"]
    assert tr.path(s["track"]) == (4242, "GPU 0 stream 13"), tr.path(s["track"])
    launch, sync = api[2 * i], api[2 * i + 1]
    assert (launch["ts"], launch["dur"], launch["name"]) == (t - 6 * US, 4 * US, "cudaLaunchKernel")
    assert launch["args"] == {"correlation": 2 * i + 1, "return": 0, "cupti_name": "cudaLaunchKernel_v7000"}
    assert (sync["ts"], sync["dur"], sync["name"]) == (t - 1 * US, 204 * US, "cudaDeviceSynchronize"), sync
    assert s["from"] == [launch], "the kernel's arrow comes from its launch"
    assert "from" not in sync
# one lane: nothing overlaps on the thread or the stream
assert {tr.path(s["track"])[1] for s in api} == {"CPU thread 1 (API)"}
assert tr.nflows == 500
c = {}
for t, ts, v in tr.counters:
    c.setdefault(tr.path(t), []).append((ts, v))
assert len(c) == 10 and all(len(v) == 5 for v in c.values()), {k: len(v) for k, v in c.items()}
want = {"GPU utilisation (%)": 100, "memory utilisation (%)": 40, "SM clock (MHz)": 1980, "memory clock (MHz)": 3201,
        "power (W)": 450, "temperature (C)": 55, "memory used (GiB)": 30, "PCIe TX (MB/s)": 1, "PCIe RX (MB/s)": 1,
        "clock event reasons (mask)": 0}
for name, v in want.items():
    got = c[("GPU 0 (NVML)", name)]
    assert [ts for ts, _ in sorted(got)] == [T0 + j * 50 * MS for j in range(5)], (name, got)
    assert all(abs(x - v) < 1e-9 for _, x in got), (name, got)
print("ok")
EOF

# ---- choosing the format ----
S="$F/nvtx.gpudiag.sqlite"
expect_rc 0 -- "$GD" export "$S" --perfetto "$T/a.perfetto-trace"
$PF "$T/a.perfetto-trace" >/dev/null && ok || bad "a .perfetto-trace name is not protobuf"
expect_rc 0 -- "$GD" export "$S" --perfetto "$T/b.JSON"
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$T/b.JSON" && ok || bad ".JSON is not JSON"
expect_rc 0 -- "$GD" export "$S" --perfetto "$T/c.json" --format protobuf
$PF "$T/c.json" >/dev/null && ok || bad "--format protobuf with a .json name"
expect_rc 0 -- "$GD" export "$S" --perfetto "$T/d.trace" --format json
python3 tests/cli/check_trace.py "$T/d.trace" kernels=32 >/dev/null && ok || bad "--format json"
expect_rc 0 -- "$GD" export "$S" --perfetto "$T/e.trace" --json
python3 tests/cli/check_trace.py "$T/e.trace" kernels=32 >/dev/null && ok || bad "--json"
expect_rc 2 -- "$GD" export "$S" --perfetto "$T/f.trace" --format csv
expect_err "export: --format must be protobuf or json, not 'csv'"
expect_one_line_err
expect_rc 2 -- "$GD" export "$S" --perfetto "$T/f.trace" --format protobuf --json
expect_err "ask for two formats"
[ ! -e "$T/f.trace" ] && ok || bad "a refused export left a file"
# standard output: protobuf through a pipe; refused on a terminal (binary)
"$GD" export "$S" --perfetto - >"$T/stdout.pftrace" && $PF "$T/stdout.pftrace" kernels=32 >/dev/null && ok ||
  bad "protobuf on standard output"
if command -v script >/dev/null; then
  script -qec "$GD export $S --perfetto -" /dev/null >"$T/tty.out" 2>&1
  grep -q "standard output is a terminal" "$T/tty.out" && ok || bad "binary written to a terminal: $(head -c 200 "$T/tty.out")"
fi

# ---- errors: no file left behind, one line each ----
cp "$S" "$T/in.sqlite"
expect_rc 2 -- "$GD" export "$T/in.sqlite" --perfetto "$T/in.sqlite"
expect_err "is the input profile"
ln -s in.sqlite "$T/alias.pftrace"
expect_rc 2 -- "$GD" export "$T/in.sqlite" --perfetto "$T/alias.pftrace"
cmp -s "$S" "$T/in.sqlite" && ok || bad "the input changed"
expect_rc 5 -- "$GD" export "$T/missing.sqlite" --perfetto "$T/x.pftrace"
expect_one_line_err
printf 'not a profile' >"$T/junk.sqlite"
expect_rc 5 -- "$GD" export "$T/junk.sqlite" --perfetto "$T/x.pftrace"
expect_one_line_err
# cut in half: the rows stop at a malformed page; no file
head -c $(($(stat -c %s "$F/sample.gpudiag.sqlite") / 2)) "$F/sample.gpudiag.sqlite" >"$T/cut.sqlite"
expect_rc 5 -- "$GD" export "$T/cut.sqlite" --perfetto "$T/x.pftrace"
expect_one_line_err
[ ! -e "$T/x.pftrace" ] && ! ls "$T"/x.pftrace.tmp.* >/dev/null 2>&1 && ok || bad "a failed export left a file"
# unwritable: a directory, a missing directory, a full disk
mkdir "$T/dir"
expect_rc 1 -- "$GD" export "$S" --perfetto "$T/dir"
expect_rc 1 -- "$GD" export "$S" --perfetto "$T/nodir/x.pftrace"
expect_one_line_err
if [ -w /dev/full ]; then
  expect_rc 1 -- "$GD" export "$F/sample.gpudiag.sqlite" --perfetto /dev/full
  expect_err "gpudiag: error:"
fi
finish
