"""Agreement of gpudiag's per-kernel GPU metrics (kernel_metrics, from PM sampling) with ncu
on the same kernels: within TOL points of % for each pair below. Usage: agree.py DIR (the
counters area's work folder: phases.sqlite, chase.sqlite, ncu_phases.csv, ncu_chase.csv).
Exit 1 when a pair misses or a kernel has no row; 0 with a note when ncu is absent."""
import collections, csv, io, os, sqlite3, statistics, sys

TOL = 5.0  # the target: "within 5 points of %"
PAIRS = [  # gpudiag column, ncu metric
    ("dram_pct", "dram__throughput.avg.pct_of_peak_sustained_elapsed"),
    ("sm_active_pct", "sm__cycles_active.avg.pct_of_peak_sustained_elapsed"),
    ("sm_issue_pct", "sm__inst_executed.avg.pct_of_peak_sustained_elapsed"),
    ("tensor_active_pct", "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed"),
]
KERNELS = [  # label, substring of the kernel name, profile
    ("DRAM-bound add", "vectorized_elementwise_kernel", "phases"),
    ("BF16 tensor GEMM", "nvjet", "phases"),
    ("FP32 CUDA-core GEMM", "gemm_f32f32", "phases"),
    ("pointer chase", "chase", "chase"),
]


def ncu_means(path):
    if not os.path.exists(path) or os.path.getsize(path) == 0:
        return None
    txt = open(path).read()
    if '"ID"' not in txt:
        return None
    acc = collections.defaultdict(list)
    for r in csv.DictReader(io.StringIO(txt[txt.index('"ID"'):])):
        try:
            acc[(r["Kernel Name"], r["Metric Name"])].append(float(r["Metric Value"].replace(",", "")))
        except ValueError:
            pass
    return {k: statistics.mean(v) for k, v in acc.items()}


def main(d):
    bad = 0
    print(f"{'kernel':22} {'quantity':18} {'gpudiag':>8} {'ncu':>8} {'diff':>6}  result")
    for label, sub, prof in KERNELS:
        db = sqlite3.connect(os.path.join(d, prof + ".sqlite"))
        cols = ", ".join(c for c, _ in PAIRS)
        row = db.execute(f"select k.samples, {cols}, s.value from kernel_metrics k join strings s on s.id = k.name "
                         f"where s.value like ? order by k.samples desc limit 1", (f"%{sub}%",)).fetchone()
        nc = ncu_means(os.path.join(d, f"ncu_{prof}.csv"))
        if row is None:
            print(f"{label:22} no kernel_metrics row for *{sub}*  FAIL")
            bad += 1
            continue
        for i, (col, metric) in enumerate(PAIRS):
            g = row[1 + i]
            n = None
            if nc:
                vals = [v for (k, m), v in nc.items() if sub in k and m == metric]
                n = statistics.mean(vals) if vals else None
            if n is None or g is None:
                print(f"{label:22} {col:18} {g if g is not None else '-':>8} {'-':>8} {'':>6}  "
                      f"{'no ncu value' if g is not None else 'FAIL: not collected'}")
                bad += g is None
                continue
            ok = abs(g - n) <= TOL
            bad += not ok
            print(f"{label:22} {col:18} {g:8.1f} {n:8.1f} {g - n:+6.1f}  {'ok' if ok else 'FAIL'}  ({row[0]} samples)")
    # DRAM read + write against the total, on the DRAM-bound add: checks the scale of whichever
    # read/write names the sampler chose (dramc__ reads as a fraction and is scaled to %)
    db = sqlite3.connect(os.path.join(d, "phases.sqlite"))
    r = db.execute("select k.dram_pct, k.dram_read_pct, k.dram_write_pct from kernel_metrics k join strings s "
                   "on s.id = k.name where s.value like '%vectorized_elementwise_kernel%' order by k.samples desc "
                   "limit 1").fetchone()
    if r and None not in r:
        ok = abs(r[1] + r[2] - r[0]) <= TOL
        bad += not ok
        print(f"{'DRAM-bound add':22} {'read + write':18} {r[1] + r[2]:8.1f} {r[0]:8.1f} {r[1] + r[2] - r[0]:+6.1f}  "
              f"{'ok' if ok else 'FAIL'}  (against gpudiag's own DRAM total)")
    else:
        print(f"{'DRAM-bound add':22} read + write: not collected")
    print(f"agreement: {'all within' if not bad else str(bad) + ' outside'} {TOL} points")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
