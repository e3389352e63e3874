#!/usr/bin/env bash
# CPU tier: the GPU counters (issue 18) in `gpudiag export --perfetto`: a recorded fixture with a
# gpu_metrics table added gets one counter track per device and quantity, a value per sample
# that carries it (counter events = samples × quantities collected), valid JSON, times on the
# kernels' base; the same fixture with an empty table exports byte for byte as without one.
# (The report's columns and JSON are tested on in-memory profiles by src/render/counters_test.c.)
source "$(dirname "$0")/lib.sh" "$@"
S=$(cd "$(dirname "$0")/../fixtures" && pwd)/h200_sync.gpudiag.sqlite
sql() { cp "$S" "$T/$1.sqlite" && python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.executescript(sys.argv[2]); c.commit()' "$T/$1.sqlite" "$2"; }
COLS="device INTEGER, t_start INTEGER, t_end INTEGER, gpc_mhz REAL, gr_active_pct REAL, sm_active_pct REAL,
  sm_issue_pct REAL, tensor_active_pct REAL, dram_pct REAL, dram_read_pct REAL, dram_write_pct REAL, l2_pct REAL,
  warps_active_pct REAL, warps_unused_pct REAL, pcie_read_bps REAL, pcie_write_bps REAL"

# 1000 samples of 100 µs from the first kernel's start: SM active, tensor, DRAM and PCIe read
sql pm "CREATE TABLE gpu_metrics($COLS);
  WITH RECURSIVE r(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM r WHERE i < 999)
  INSERT INTO gpu_metrics(device, t_start, t_end, sm_active_pct, tensor_active_pct, dram_pct, pcie_read_bps)
  SELECT 0, s + i * 100000, s + (i + 1) * 100000, i % 100, 25.5, 60, 2.5e9 FROM r, (SELECT MIN(start) s FROM kernels);" || bad "build pm profile"
expect_rc 0 -- "$GD" export "$T/pm.sqlite" --perfetto "$T/pm.json"
python3 "$(dirname "$0")/check_trace.py" "$T/pm.json" 'counter=GPU 0 · SM active %' 'counter=GPU 0 · PCIe read B/s' >/dev/null &&
  ok || bad "check_trace on the counter export"
cp "$T/pm.json" "$T/out"
json_check "len([e for e in d['traceEvents'] if e.get('cat') == 'gpu_metrics' and e['ph'] == 'C']) == 1000 * 4"
json_check "sorted(set(e['name'] for e in d['traceEvents'] if e.get('cat') == 'gpu_metrics')) == ['GPU 0 · DRAM %', 'GPU 0 · PCIe read B/s', 'GPU 0 · SM active %', 'GPU 0 · Tensor active %']"
# the first sample sits where the first kernel starts
json_check "min(float(e['ts']) for e in d['traceEvents'] if e.get('cat') == 'gpu_metrics') == min(float(e['ts']) for e in d['traceEvents'] if e.get('cat') == 'kernel')"
json_check "[e['args']['value'] for e in d['traceEvents'] if e.get('name') == 'GPU 0 · SM active %'][:3] == [0, 1, 2]"
json_check "any(e.get('ph') == 'M' and e['args'].get('name') == 'GPU 0 (counters)' for e in d['traceEvents'])"

# without samples: the export of the fixture itself
sql empty "CREATE TABLE gpu_metrics($COLS);" || bad "build empty profile"
expect_rc 0 -- "$GD" export "$T/empty.sqlite" --perfetto "$T/empty.json"
expect_rc 0 -- "$GD" export "$S" --perfetto "$T/plain.json"
cmp -s "$T/empty.json" "$T/plain.json" && ok || bad "an empty gpu_metrics changed the export"
finish
