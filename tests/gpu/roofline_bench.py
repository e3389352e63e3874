#!/usr/bin/env python3
"""Anchors and ratios for `gpudiag roofline` on the GPU machine (tests/gpu/roofline.sh).

  roofline_bench.py anchors OUT.json
      measures PyTorch's figures in this run: device-to-device copy of 1 GiB (read + write
      counted, as gpudiag counts its copy), torch.matmul 8192³ BF16 and torch._scaled_mm
      8192³ FP8 e4m3 (BF16 out, unit scales); random data, CUDA events, median of 20 after
      warm-up.
  roofline_bench.py report GPUDIAG.json ANCHORS.json QUICK_S FULL_S
      prints the issue's target ratios as a table; exits 1 when a gpudiag check failed.
"""
import json
import statistics
import sys


def timed(fn, reps=20, warm=3):
    import torch
    for _ in range(warm):
        fn()
    torch.cuda.synchronize()
    ev = [torch.cuda.Event(enable_timing=True) for _ in range(reps + 1)]
    ev[0].record()
    for i in range(reps):
        fn()
        ev[i + 1].record()
    torch.cuda.synchronize()
    ms = [ev[i].elapsed_time(ev[i + 1]) for i in range(reps)]
    return statistics.median(ms), min(ms), max(ms)


def anchors(out_path):
    import torch
    dev = torch.device("cuda")
    res = {"torch": torch.__version__, "device": torch.cuda.get_device_name(0)}
    # device-to-device copy, 1 GiB, read + write counted
    n = 1 << 30
    a = torch.randint(0, 255, (n,), dtype=torch.uint8, device=dev)
    b = torch.empty_like(a)
    med, lo, hi = timed(lambda: b.copy_(a))
    assert torch.equal(a[:4096], b[:4096]) and torch.equal(a[-4096:], b[-4096:])
    res["copy_bytes_per_s"] = 2 * n / (med * 1e-3)
    res["copy_range"] = [2 * n / (hi * 1e-3), 2 * n / (lo * 1e-3)]
    del a, b
    # torch.matmul 8192³ BF16
    m = 8192
    x = torch.randn(m, m, device=dev, dtype=torch.bfloat16)
    y = torch.randn(m, m, device=dev, dtype=torch.bfloat16)
    med, lo, hi = timed(lambda: torch.matmul(x, y))
    res["bf16_matmul_flops"] = 2 * m**3 / (med * 1e-3)
    # torch._scaled_mm FP8 e4m3, B column-major as cuBLASLt requires
    try:
        xa = (torch.rand(m, m, device=dev) * 2 - 1).to(torch.float8_e4m3fn)
        yb = (torch.rand(m, m, device=dev) * 2 - 1).to(torch.float8_e4m3fn).t()
        one = torch.tensor(1.0, device=dev)
        med, lo, hi = timed(lambda: torch._scaled_mm(xa, yb, scale_a=one, scale_b=one, out_dtype=torch.bfloat16))
        res["fp8_scaled_mm_flops"] = 2 * m**3 / (med * 1e-3)
    except Exception as e:  # older torch or a card without FP8
        res["fp8_scaled_mm_flops"] = None
        res["fp8_error"] = str(e)[:200]
    json.dump(res, open(out_path, "w"), indent=1)
    print(json.dumps(res, indent=1))


def report(gd_path, an_path, quick_s, full_s):
    gd = json.load(open(gd_path))
    try:
        an = json.load(open(an_path))
    except (OSError, ValueError):
        an = {}
    tests = {t["name"]: t for t in gd["tests"]}
    bad = [t for t in gd["tests"] if t["status"] in ("check failed", "error")]

    def med(name):
        t = tests.get(name)
        return t["median"] if t and t["status"] == "ok" else None

    def best(*names):
        v = [med(n) for n in names if med(n)]
        return max(v) if v else None

    rows = []

    def ratio(label, num, den, target, unit_scale=1e12, unit="T"):
        r = num / den if num and den else None
        ok = "—" if r is None else ("info" if target <= 0 else "meets" if r >= target else "below")
        rows.append((label, f"{num / unit_scale:.1f} {unit}" if num else "n/a",
                     f"{den / unit_scale:.1f} {unit}" if den else "n/a",
                     f"{r:.3f}" if r else "n/a", f"≥ {target:.2f}" if target > 0 else "", ok))

    ratio("DRAM copy / torch copy_ (r+w)", med("dram_copy"), an.get("copy_bytes_per_s"), 1.00, unit="TB/s")
    ds = tests.get("dram_write", {}).get("datasheet")
    ratio("DRAM write / datasheet", med("dram_write"), ds, 0.95, unit="TB/s")
    ratio("BF16 tensor best / torch.matmul", best("wgmma_bf16", "mma_bf16"), an.get("bf16_matmul_flops"), 1.10,
          unit="TFLOP/s")
    ratio("FP8 tensor best / torch._scaled_mm", best("wgmma_fp8", "mma_fp8"), an.get("fp8_scaled_mm_flops"), 1.10,
          unit="TFLOP/s")
    ratio("BF16 mma.sync / torch.matmul", med("mma_bf16"), an.get("bf16_matmul_flops"), 0.0, unit="TFLOP/s")
    ratio("cuBLASLt BF16 / torch.matmul", med("gemm_bf16"), an.get("bf16_matmul_flops"), 0.90, unit="TFLOP/s")
    ratio("cuBLASLt FP8 / torch._scaled_mm", med("gemm_fp8"), an.get("fp8_scaled_mm_flops"), 0.90, unit="TFLOP/s")
    f32 = tests.get("fma_fp32", {})
    ratio("FP32 FMA / peak at measured clock", med("fma_fp32"), f32.get("peak_at_measured_clock"), 0.95,
          unit="TFLOP/s")
    ratio("L2 read / 10 TB/s", med("l2_read"), 10e12, 1.0, unit="TB/s")
    print()
    print(f"gpudiag roofline on {gd['gpu']['name']} ({gd['gpu']['sm']}), torch {an.get('torch')}; "
          f"--quick took {quick_s} s (target < 20), full {full_s} s (target < 120)")
    w = [max(len(str(r[i])) for r in rows + [("ratio", "gpudiag", "anchor", "x", "target", "verdict")]) for i in range(6)]
    hdr = ("ratio", "gpudiag", "anchor", "x", "target", "verdict")
    print("  ".join(str(h).ljust(w[i]) for i, h in enumerate(hdr)))
    for r in rows:
        print("  ".join(str(c).ljust(w[i]) for i, c in enumerate(r)))
    print()
    print("all tests:", ", ".join(f"{t['name']}={t['status']}" for t in gd["tests"]))
    if bad:
        print("CORRECTNESS FAILURES:")
        for t in bad:
            print(f"  {t['name']}: {t['status']}: {t.get('message')}")
        return 1
    return 0


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "anchors":
        anchors(sys.argv[2])
    elif len(sys.argv) >= 6 and sys.argv[1] == "report":
        sys.exit(report(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5]))
    else:
        print(__doc__)
        sys.exit(2)
