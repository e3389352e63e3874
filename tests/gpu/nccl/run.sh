#!/usr/bin/env bash
# GPU tier, area "nccl" (issue 22, guide §12): several GPUs.
#  1. `gpudiag nccl` over every GPU (8 B .. 1 GiB, the five collectives, every element checked);
#     with one GPU it still runs (algbw and latency; busbw 0 by definition).
#  2. the anchor: nccl-tests built from its public source in this run, with this machine's nvcc
#     and the NCCL PyTorch ships (the same library gpudiag nccl loads, GPUDIAG_LIBNCCL), the same
#     sizes, iterations and warm-up (-g N: one process, as gpudiag): the ratio gpudiag / nccl-tests
#     of busbw (algbw on one GPU) at every size >= 128 MiB, per collective. Goal >= 0.97. The
#     source is not in this repository: NCCL_TESTS_SRC names a checkout (git clone of
#     github.com/NVIDIA/nccl-tests, brought to the machine); unset, this part is skipped.
#  3. (2 GPUs or more) a DDP job under `gpudiag run -- torchrun` (tests/gpu/nccl/ddp.py) on 2
#     GPUs and on every GPU when there are more: bucketing on (communication hidden), bucketing off
#     (exposed: the communication verdict), and rank 1 sleeping 25 ms a step (the straggler
#     verdict, naming rank 1's GPU, lateness ~25 ms). A verdict that misses fails the area.
# On one GPU, 1 (and 2 when the source is given) run and 3 is skipped with a "needs >= 2 GPUs"
# line. The multicast-off environment of the multi-GPU machines (NCCL_NVLS_ENABLE=0,
# TORCH_SYMM_MEM_DISABLE_MULTICAST=1, NVSHMEM_DISABLE_NVLS=1) is exported for every program.
#
# usage: OUT=dir [BUILD=build | GD=path/gpudiag] [NCCL_TESTS_SRC=path] [NCCL_MAX=1G]
#        [PARTS=gpudiag,nccltests,ddp] bash tests/gpu/nccl/run.sh
#        (or tests/gpu/run.sh nccl; give it AREA_TIMEOUT=1500: on 8 GPUs the whole area takes
#        about 10-15 minutes, each part bounded by its own timeout). PARTS picks the parts (1, 2,
#        3 above), so that each fits one 10-minute command of the device tool.
# Writes $OUT/nccl/summary.txt (every figure and verdict), nccl.json (gpudiag nccl), nccl.svg, and
# details.tar.gz (logs, reports; profiles are deleted) — few files, as the device tool brings back.
set -u
cd "$(dirname "$0")/../../.." || exit 2
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
GD=${GD:-$PWD/${BUILD:-build}/gpudiag}
OUT=${OUT:-$PWD/gpu-tier-out}
W=$OUT/nccl
D=$W/details
mkdir -p "$D"
S=$W/summary.txt
: >"$S"
FAILS=0
say() { echo "$*" | tee -a "$S"; }
fail() { say "FAIL $*"; FAILS=$((FAILS + 1)); }
PY=${PYTHON:-python3}
PARTS=",${PARTS:-gpudiag,nccltests,ddp},"
part() { case $PARTS in *,$1,*) return 0 ;; esac; say "(part $1 not asked for: PARTS=${PARTS//,/ })"; return 1; }

say "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
say "env: NCCL_NVLS_ENABLE=$NCCL_NVLS_ENABLE TORCH_SYMM_MEM_DISABLE_MULTICAST=$TORCH_SYMM_MEM_DISABLE_MULTICAST NVSHMEM_DISABLE_NVLS=$NVSHMEM_DISABLE_NVLS"
nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader 2>&1 | tee -a "$S"
nvidia-smi topo -m >"$D/topo.txt" 2>&1
cat "$D/topo.txt" >>"$S"
NGPU=$(nvidia-smi --query-gpu=index --format=csv,noheader 2>/dev/null | wc -l)
say "GPUs: $NGPU"
[ -x "$GD" ] || { fail "no gpudiag at $GD"; exit 1; }

# The NCCL PyTorch loads: the library gpudiag nccl and nccl-tests both use here.
TORCH_NCCL=$(timeout 120 "$PY" - <<'PY' 2>>"$D/torch_nccl.log"
import glob, site, torch, torch.cuda.nccl as n
# the library torch's process has mapped, else the wheels' copy
cands = []
try:
    for line in open("/proc/self/maps"):
        if "libnccl" in line:
            cands.append(line.split()[-1])
except OSError:
    pass
dirs = site.getsitepackages() + [site.getusersitepackages()]
cands += [p for d in dirs for p in glob.glob(d + "/nvidia/**/libnccl.so.2", recursive=True)]
print(cands[0] if cands else "")
PY
)
say "torch's NCCL: ${TORCH_NCCL:-not found} ($(timeout 60 "$PY" -c 'import torch; print("version", torch.cuda.nccl.version())' 2>&1))"
[ -n "$TORCH_NCCL" ] && export GPUDIAG_LIBNCCL=$TORCH_NCCL

# ---- 1. gpudiag nccl ------------------------------------------------------------------------
MAX=${NCCL_MAX:-1G}
if part gpudiag; then
timeout 600 "$GD" nccl --max "$MAX" --svg "$W/nccl.svg" >"$D/gpudiag_nccl.txt" 2>&1
rc=$?
say "gpudiag nccl (terminal) rc $rc"
sed -n '/^Summary/,$p' "$D/gpudiag_nccl.txt" | tee -a "$S"
[ $rc -eq 0 ] || fail "gpudiag nccl exit $rc: $(tail -1 "$D/gpudiag_nccl.txt")"
timeout 600 "$GD" nccl --max "$MAX" --json >"$W/nccl.json" 2>"$D/gpudiag_nccl.err"
rc=$?
say "gpudiag nccl --json rc $rc"
"$PY" - "$W/nccl.json" <<'PY' | tee -a "$S"
import json, sys
d = json.load(open(sys.argv[1]))
n = d["ranks"]
print(f"gpudiag nccl: NCCL {d['nccl']['version']} at {d['nccl']['library']}, {n} GPU(s), env {d['env']}")
for l in d["links"]:
    print(f"  link GPU{l['gpu_a']}-GPU{l['gpu_b']}: {l['code']} {l['text']}")
for s in d["summary"]:
    print(f"  {s['op']:14s} latency {s['latency_us']:.2f} us at {s['latency_bytes']:.0f} B, best algbw "
          f"{s['best_algbw_bps'] / 1e9:.1f} GB/s busbw {s['best_busbw_bps'] / 1e9:.1f} GB/s at {s['best_bytes']:.0f} B")
bad = [r for r in d["results"] if not r["skipped"] and r["wrong"]]
print("  wrong elements:", d["wrong"], "(rows:", len(bad), ")")
# one GPU: busbw is 0 by definition but for Broadcast
if n == 1:
    assert all(r["busbw_bps"] == (r["algbw_bps"] if r["op"] == "broadcast" else 0) for r in d["results"] if not r["skipped"])
PY
[ "${PIPESTATUS[0]}" = 0 ] || fail "gpudiag nccl JSON checks"
fi

# ---- 2. nccl-tests, built here, same library, same sizes ---------------------------------------
if ! part nccltests; then
  :
elif [ -z "${NCCL_TESTS_SRC:-}" ] || [ ! -f "${NCCL_TESTS_SRC}/src/common.cu" ]; then
  say "SKIP nccl-tests comparison: NCCL_TESTS_SRC does not name an nccl-tests checkout (git clone https://github.com/NVIDIA/nccl-tests)"
elif [ -z "$TORCH_NCCL" ]; then
  fail "nccl-tests comparison: PyTorch's NCCL not found"
else
  # NCCL_HOME for the build: the wheel's headers and a libnccl.so link to its libnccl.so.2
  NH=$D/nccl_home
  mkdir -p "$NH/lib" "$NH/include"
  ln -sf "$TORCH_NCCL" "$NH/lib/libnccl.so"
  ln -sf "$TORCH_NCCL" "$NH/lib/libnccl.so.2"
  INC=$(dirname "$(dirname "$TORCH_NCCL")")/include
  if [ -f "$INC/nccl.h" ]; then ln -sf "$INC/nccl.h" "$NH/include/nccl.h"; else cp /usr/local/cuda/include/nccl.h "$NH/include/" 2>/dev/null; fi
  CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
  cp -r "$NCCL_TESTS_SRC" "$D/nccl-tests-src" 2>/dev/null || true
  timeout 600 make -C "$D/nccl-tests-src" -j"$(nproc)" MPI=0 CUDA_HOME="$CUDA_HOME" NCCL_HOME="$NH" \
    NVCC_GENCODE="-gencode=arch=compute_90,code=sm_90" >"$D/nccl_tests_build.log" 2>&1
  say "nccl-tests build rc $? ($(tail -1 "$D/nccl_tests_build.log"))"
  NT=$D/nccl-tests-src/build
  for pair in all_reduce:allreduce all_gather:allgather reduce_scatter:reducescatter broadcast:broadcast alltoall:alltoall; do
    t=${pair%%:*}
    op=${pair##*:}
    [ -x "$NT/${t}_perf" ] || { fail "nccl-tests ${t}_perf not built"; continue; }
    # interleaved, twice each, the better of two: one noisy run should not decide the ratio
    for k in 1 2; do
      LD_LIBRARY_PATH=$NH/lib:${LD_LIBRARY_PATH:-} timeout 300 "$NT/${t}_perf" -b 8 -e 1G -f 2 -g "$NGPU" -w 5 -n 20 -c 1 \
        >"$D/nccltests_${op}_$k.txt" 2>&1 || fail "nccl-tests ${t}_perf run $k"
      timeout 300 "$GD" nccl --op "$op" --min 8 --max 1G --json >"$D/gpudiag_${op}_$k.json" 2>>"$D/gpudiag_nccl.err" ||
        fail "gpudiag nccl --op $op run $k"
    done
    "$PY" - "$D" "$op" "$NGPU" <<'PY' | tee -a "$S"
import json, sys
d, op, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
key = "busbw_bps" if n > 1 else "algbw_bps"
def nt(path):
    rows = {}
    for line in open(path):
        t = line.split()
        if len(t) >= 12 and t[0].isdigit():
            # the last eight columns: out-of-place time algbw busbw #wrong, in-place the same
            rows[int(t[0])] = {"time_us": float(t[-8]), "algbw_bps": float(t[-7]) * 1e9, "busbw_bps": float(t[-6]) * 1e9,
                               "wrong": t[-5]}
    return rows
def gd(path):
    return {r["size"]: r for r in json.load(open(path))["results"] if not r["skipped"]}
a = [nt(f"{d}/nccltests_{op}_{k}.txt") for k in (1, 2)]
b = [gd(f"{d}/gpudiag_{op}_{k}.json") for k in (1, 2)]
worst = None
for size in sorted(a[0]):
    if size < 128 << 20 or size not in b[0]:
        continue
    x = max(r[size][key] for r in a if size in r)
    y = max(r[size][key] for r in b if size in r)
    ratio = y / x if x > 0 else float("nan")
    worst = ratio if worst is None or ratio < worst else worst
    print(f"ratio {op} {size >> 20} MiB: gpudiag {y / 1e9:.1f} / nccl-tests {x / 1e9:.1f} GB/s {key[:5]} = {ratio:.3f}")
small = min(a[0]) if a[0] else None
if small is not None and small in b[0]:
    print(f"latency {op} {small} B: gpudiag {min(r[small]['time_us'] for r in b if small in r):.2f} us, "
          f"nccl-tests {min(r[small]['time_us'] for r in a if small in r):.2f} us")
print(f"worst ratio {op} >= 128 MiB: {worst if worst is None else round(worst, 3)} (goal >= 0.97)")
sys.exit(0 if worst is not None and worst >= 0.97 else 1)
PY
    [ "${PIPESTATUS[0]}" = 0 ] || fail "busbw ratio of $op below 0.97 (or no row >= 128 MiB)"
  done
  rm -rf "$D/nccl-tests-src/build/obj" 2>/dev/null
fi

# ---- 3. DDP jobs with planted problems -------------------------------------------------------------
if ! part ddp; then
  :
elif [ "$NGPU" -lt 2 ]; then
  say "SKIP DDP jobs (bucketing on/off, straggler) under gpudiag run -- torchrun: needs >= 2 GPUs, this machine has $NGPU"
else
  SLEEP_MS=25
  sizes=(2)
  [ "$NGPU" -gt 2 ] && sizes+=("$NGPU")
  for n in "${sizes[@]}"; do
    for v in overlap nooverlap straggler; do
      args=()
      case $v in nooverlap) args=(--no-overlap) ;; straggler) args=(--straggler 1 --sleep-ms "$SLEEP_MS") ;; esac
      P=$D/ddp_${n}gpu_$v.sqlite
      timeout 300 "$GD" run -o "$P" -- "$PY" -m torch.distributed.run --standalone --nproc-per-node "$n" \
        tests/gpu/nccl/ddp.py "${args[@]}" >"$D/ddp_${n}gpu_$v.out" 2>&1
      rc=$?
      say "gpudiag run -- torchrun --nproc-per-node $n ddp.py ${args[*]}: rc $rc"
      [ $rc -eq 0 ] || { fail "DDP $n GPUs $v exit $rc: $(tail -2 "$D/ddp_${n}gpu_$v.out" | tr '\n' ' ')"; continue; }
      "$GD" report "$P" >"$D/ddp_${n}gpu_$v.report" 2>&1
      "$GD" report "$P" --json >"$D/ddp_${n}gpu_$v.json" 2>>"$D/ddp_${n}gpu_$v.report"
      "$PY" - "$D/ddp_${n}gpu_$v.json" "$v" "$n" "$SLEEP_MS" <<'PY' | tee -a "$S"
import json, sys
d = json.load(open(sys.argv[1]))
v, n, sleep_ms = sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
f = {x["id"]: x for x in d["findings"]}
def ev(i):
    return {e["key"]: e["value"] for e in f[i]["evidence"]} if i in f else {}
c, s = f.get("communication", {}), f.get("straggler", {})
job = d.get("job", {})
print(f"DDP {n} GPUs {v}: top {d['verdict']['top']}; ranks {job.get('nccl_ranks')} matched {job.get('collectives_matched')} "
      f"judged {job.get('collectives_judged')}; communication {c.get('state')} {c.get('severity')} "
      f"share {c.get('share_at_stake')}; straggler {s.get('state')} {s.get('severity')} share {s.get('share_at_stake')}")
for r in d.get("ranks", []):
    print(f"  rank {r['rank']} pid {r['pid']} GPU {r['device']}: span {r['span_ns'] / 1e6:.1f} ms compute "
          f"{r['compute_ns'] / 1e6:.1f} NCCL {r['comm_ns'] / 1e6:.1f} exposed {r['comm_exposed_ns'] / 1e6:.1f} "
          f"waiting {r['comm_wait_ns'] / 1e6:.1f} idle {r['idle_ns'] / 1e6:.1f} last {r['last']}/{r['judged']}")
for x in d.get("collectives", []):
    print(f"  {x['collective']}: {x['kernels']} kernels on {x['ranks']} ranks, mean {x['mean_ns'] / 1e3:.1f} us")
ok = True
if job.get("nccl_ranks") != n:
    print(f"  MISS: {n} ranks expected with NCCL kernels"); ok = False
if v == "overlap" and (c.get("severity") in ("warning", "high") or s.get("state") == "fired"):
    print("  MISS: bucketing on should leave communication hidden and no straggler"); ok = False
if v == "nooverlap" and c.get("state") != "fired":
    print("  MISS: bucketing off should fire communication"); ok = False
if v == "straggler":
    e = ev("straggler")
    if s.get("state") != "fired" or d["verdict"]["top"] != "straggler":
        print("  MISS: the straggler should be the top finding"); ok = False
    elif e.get("straggler_device") != 1:
        print(f"  MISS: the straggler should be on GPU 1 (rank 1), not {e.get('straggler_device')}"); ok = False
    elif not (0.7 * sleep_ms <= e["lateness_mean_ns"] / 1e6 <= 1.3 * sleep_ms):
        print(f"  MISS: lateness {e['lateness_mean_ns'] / 1e6:.1f} ms, planted {sleep_ms} ms"); ok = False
    else:
        print(f"  straggler: GPU {e['straggler_device']}, lateness mean {e['lateness_mean_ns'] / 1e6:.2f} ms "
              f"max {e['lateness_max_ns'] / 1e6:.2f} ms (planted {sleep_ms} ms), others waited {e['wait_fraction']:.3f} "
              f"of their collective time")
sys.exit(0 if ok else 1)
PY
      [ "${PIPESTATUS[0]}" = 0 ] || fail "DDP $n GPUs $v: verdict"
      rm -f "$P"
    done
    # the exposed share must grow when bucketing is off
    "$PY" - "$D" "$n" <<'PY' | tee -a "$S"
import json, sys
d, n = sys.argv[1], sys.argv[2]
def share(v):
    x = json.load(open(f"{d}/ddp_{n}gpu_{v}.json"))
    f = [f for f in x["findings"] if f["id"] == "communication"][0]
    return f["share_at_stake"] or 0.0, {e["key"]: e["value"] for e in f["evidence"]}.get("exposed_ns")
(a, ea), (b, eb) = share("overlap"), share("nooverlap")
print(f"DDP {n} GPUs exposed communication: bucketing on {a:.4f} ({ea}), off {b:.4f} ({eb}) of the ranks' GPU time")
sys.exit(0 if b > 2 * a else 1)
PY
    [ "${PIPESTATUS[0]}" = 0 ] || fail "DDP $n GPUs: bucketing off did not expose more communication"
  done
fi

say "nccl area: $FAILS failure(s)"
rm -f "$D"/*.sqlite
tar -czf "$W/details.tar.gz" -C "$W" details 2>/dev/null && rm -rf "$D"
exit $((FAILS > 0))
