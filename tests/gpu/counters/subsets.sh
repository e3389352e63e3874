#!/usr/bin/env bash
# Diagnosis (GPU tier, not an area): which GPU-metrics quantities this GPU samples correctly
# together. Runs gpudiag_pm_probe (tests/gpu/pm_probe.c) on phases.py with GPUDIAG_PM_ONLY set
# to a base set, the base set plus each further quantity, and everything; prints per set the
# metrics used, the note, lost samples, and each column's non-null count / mean / max over
# the samples. A set whose SM active stays 0 while a GEMM runs, or whose decode fails, is one
# the sampler must not take. usage: PROBE=path/to/gpudiag_pm_probe tests/gpu/counters/subsets.sh
set -u
cd "$(dirname "$0")/../../.."
BASE=gpc_mhz,sm_active_pct,sm_issue_pct,tensor_active_pct,dram_pct,dram_read_pct,dram_write_pct,warps_active_pct
for extra in "" pcie_read_bps,pcie_write_bps warps_unused_pct l2_pct gr_active_pct ALL; do
	set_=$BASE${extra:+,$extra}
	[ "$extra" = ALL ] && set_=
	echo "=== set: ${set_:-all 13}"
	GPUDIAG_PM_ONLY=$set_ timeout 90 "$PROBE" 100 python3 tests/gpu/counters/phases.py 0.15 2>&1 | python3 -c '
import math, sys
head, rows = None, []
for line in sys.stdin:
    if line.startswith("#"):
        print(line.rstrip()[:400]); continue
    f = line.rstrip("\n").split("\t")
    if f[0] == "device": head = f; continue
    if head and len(f) == len(head): rows.append(f)
for i, c in enumerate(head or []):
    if i < 3: continue
    v = [float(r[i]) for r in rows if r[i] not in ("", "nan", "NaN")]
    v = [x for x in v if not math.isnan(x)]
    print(f"  {c}: {len(v)} values" + (f", mean {sum(v)/len(v):.4g}, max {max(v):.4g}" if v else ""))
'
done
