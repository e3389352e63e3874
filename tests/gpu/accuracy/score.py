#!/usr/bin/env python3
"""Scores the accuracy suite (tests/gpu/accuracy/run.sh): reads the manifest and, for each
program, the files run.sh left in the results folder, and prints one table and a score line.

  score.py MANIFEST DIR       score DIR/NAME.{json,rc,status}; write DIR/score.txt, DIR/score.json
  score.py --light MANIFEST DIR   the same programs run under `gpudiag run --light` (run.sh --light)
  score.py --metrics MANIFEST DIR the same programs run under `gpudiag run --metrics` (run.sh --metrics)
  score.py --self-test        check the scoring on hand-made reports (no GPU needed)

Per program, DIR holds NAME.json (`gpudiag report --json` of its profile), NAME.rc (the exit
status of `gpudiag run`) and, when it did not run, NAME.status ("skip: why" or "error: why").
Rules (docs/gpu-tier.md):
  planted  PASS iff d["verdict"]["top"] == the expected rule id
  clean    PASS iff no finding fired at warning or high
  crash    expected "exit_signal=N": PASS iff d["run"]["exit_signal"] == N and gpudiag run
           exited 128 + N (it passes on the child's status)
A clean or planted program must also have exited 0 (not timed out, no CUDA error): otherwise
it FAILs whatever the verdict, since it is not the program its expectation describes.
A skipped program (PyTorch missing) counts neither as a pass nor as a failure.
Light mode (no trace: NVML and the GPU counters only) judges what that data supports: a planted
program whose rule that data judges (LIGHT_JUDGED: gpu_idle from the GPU counters,
memory_pressure from NVML's memory) must get it on top, as above; a planted program whose rule
needs a trace PASSes iff that rule says "insufficient" (it must not declare the problem absent,
and whatever else fires is measured idleness, which such programs may really have); clean and
crash as above.
Rules that only per-kernel counters can judge (COUNTER_ONLY: uncoalesced, divergence): without
--metrics a program planted with one PASSes iff the rule did not fire (gpudiag cannot see inside
a kernel then, and must not guess).
An expectation "none;metrics=RULE" is a clean program whose kernel is not: scored as clean
without --metrics and as planted with RULE under it.
Metrics mode (`gpudiag run --metrics`, kernel counters of the first launches of each kernel):
planted, clean and crash as in the trace mode, and besides
  planted  a rule that counters measure (MEASURED) must be on top with a measured basis ("kernel
           counters", or the trace's launch configuration for a grid too small), not the
           kernel-name guess the trace alone allows
  clean, planted  the run must have profiled at least one launch (summary.kernel_counters.
           profiled > 0: a run whose counters were all refused would pass a clean program
           vacuously), and no launch may have failed (skipped_by_status.error == 0)
Exit status: 1 when any program failed, else 0."""

# rules judged only from per-kernel counters (verdict.c: kc_gate), and the rules whose
# verdict rests on the counters when the profile has them (the finding's basis)
COUNTER_ONLY = ("uncoalesced", "divergence")
MEASURED = COUNTER_ONLY + ("tensor_cores_unused", "low_occupancy")
# rules that light mode (no trace) judges: idleness from the GPU counters, memory from NVML
LIGHT_JUDGED = ("gpu_idle", "memory_pressure")
import json
import os
import sys
import tempfile

KINDS = ("clean", "planted", "crash")
# (kinds of the manifest; a row's kind may read as planted under --metrics: score_one)


def read_manifest(path):
    rows = []
    with open(path) as f:
        for ln, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            cols = line.split("\t")
            if len(cols) != 4 or cols[1] not in KINDS:
                raise SystemExit(f"score.py: {path}:{ln}: want name, kind ({'|'.join(KINDS)}), expected, command")
            rows.append({"name": cols[0], "kind": cols[1], "expected": cols[2], "command": cols[3]})
    return rows


def _read(path):
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return None


def score_one(row, d, mode="trace"):
    """The result of one program: dict with got, fired, result (PASS|FAIL|SKIP), note."""
    name, kind, want = row["name"], row["kind"], row["expected"]
    if ";metrics=" in want:
        # clean as a run, planted inside its kernel: under --metrics that rule must be on top
        base, alt = want.split(";metrics=", 1)
        kind, want = ("planted", alt) if mode == "metrics" else (kind, base)
    out = {"name": name, "kind": kind, "expected": want, "got": "-", "fired": [], "result": "FAIL", "note": ""}
    status = _read(os.path.join(d, name + ".status"))
    if status and status.startswith("skip"):
        out.update(result="SKIP", note=status)
        return out
    if status:
        out["note"] = status
    rc_text = _read(os.path.join(d, name + ".rc"))
    rc = int(rc_text) if rc_text and rc_text.lstrip("-").isdigit() else None
    try:
        with open(os.path.join(d, name + ".json")) as f:
            rep = json.load(f)
    except (OSError, ValueError) as e:
        out.update(got="(no report)", note=(out["note"] + "; " if out["note"] else "") + f"report unreadable: {e}")
        return out
    findings = rep.get("findings") or []
    fired = [f for f in findings if f.get("state") == "fired"]
    out["fired"] = [f"{f.get('id')}:{f.get('severity')}" for f in fired]
    top = (rep.get("verdict") or {}).get("top")
    if kind == "planted" and mode != "metrics" and want in COUNTER_ONLY:
        st = [f.get("state") for f in findings if f.get("id") == want]
        out["got"] = f"{want}:{st[0] if st else 'not applicable'}"
        ok = st != ["fired"]
    elif kind == "planted" and mode == "light" and want not in LIGHT_JUDGED:
        st = [f.get("state") for f in findings if f.get("id") == want]
        out["got"] = f"{want}:{st[0] if st else 'missing'}"
        ok = st == ["insufficient"]
    elif kind == "planted":
        out["got"] = top if top is not None else "none"
        ok = top == want
        if ok and mode == "metrics" and want in MEASURED:
            basis = [f.get("basis") for f in fired if f.get("id") == want]
            out["got"] = f"{top} ({basis[0] if basis else 'no basis'})"
            ok = len(basis) == 1 and basis[0] not in (None, "kernel names")
    elif kind == "clean":
        warn = [f["id"] for f in fired if f.get("severity") in ("warning", "high")]
        out["got"] = ",".join(warn) if warn else "none"
        ok = not warn
    else:  # crash
        if not want.startswith("exit_signal=") or not want.split("=", 1)[1].isdigit():
            out["note"] = f"bad expectation {want!r} (want exit_signal=N)"
            return out
        sig_want = int(want.split("=", 1)[1])
        run = rep.get("run") if isinstance(rep.get("run"), dict) else {}
        sig = run.get("exit_signal", "missing")
        out["got"] = f"exit_signal={sig} rc={rc}"
        ok = sig == sig_want and rc == 128 + sig_want
        if "exit_signal" not in run:
            out["note"] = "the report has no run.exit_signal"
    if mode == "metrics" and kind != "crash":
        summ = rep.get("summary") if isinstance(rep.get("summary"), dict) else {}
        kc = summ.get("kernel_counters") if isinstance(summ.get("kernel_counters"), dict) else {}
        errors = (kc.get("skipped_by_status") or {}).get("error", 0) or 0
        if not kc.get("profiled"):
            ok = False
            out["note"] = (out["note"] + "; " if out["note"] else "") + \
                f"no launch profiled ({kc.get('note') or 'no kernel_counters in the report'})"
        if errors:
            ok = False
            out["note"] = (out["note"] + "; " if out["note"] else "") + f"{errors} launch(es) failed to profile"
    if kind != "crash" and rc != 0:
        # a program that did not finish as written is not the program the expectation is about
        ok = False
        why = f"timed out (rc {rc})" if rc in (124, 137) else f"the program exited {rc}"
        out["note"] = (out["note"] + "; " if out["note"] else "") + why
    out["result"] = "PASS" if ok else "FAIL"
    return out


def summarise(results):
    by = {k: [0, 0] for k in KINDS}  # passed, scored
    skipped = 0
    for r in results:
        if r["result"] == "SKIP":
            skipped += 1
            continue
        by[r["kind"]][1] += 1
        by[r["kind"]][0] += r["result"] == "PASS"
    passed = sum(v[0] for v in by.values())
    scored = sum(v[1] for v in by.values())
    parts = [f"{k} {by[k][0]}/{by[k][1]}" for k in KINDS if by[k][1]]
    line = f"accuracy: {passed}/{scored} passed ({', '.join(parts) or 'nothing scored'})"
    if skipped:
        line += f"; {skipped} skipped"
    return line, {"passed": passed, "scored": scored, "skipped": skipped,
                  "by_kind": {k: {"passed": v[0], "scored": v[1]} for k, v in by.items()}}


def table(results):
    w = max([len(r["name"]) for r in results] + [7])
    lines = [f"{'program':<{w}}  {'kind':<7}  {'expected':<20}  {'got':<24}  {'result':<6}  fired (id:severity)"]
    for r in results:
        extra = f"  [{r['note']}]" if r["note"] else ""
        lines.append(f"{r['name']:<{w}}  {r['kind']:<7}  {r['expected']:<20}  {r['got']:<24}  {r['result']:<6}  "
                     f"{' '.join(r['fired']) or '-'}{extra}")
    return lines


def score(manifest, d, mode="trace"):
    results = [score_one(r, d, mode) for r in read_manifest(manifest)]
    line, counts = summarise(results)
    if mode != "trace":
        line = line.replace("accuracy:", f"accuracy ({mode} mode):", 1)
    text = "\n".join(table(results) + ["", line]) + "\n"
    with open(os.path.join(d, "score.txt"), "w") as f:
        f.write(text)
    with open(os.path.join(d, "score.json"), "w") as f:
        json.dump({"score": line, **counts, "programs": results}, f, indent=1)
        f.write("\n")
    sys.stdout.write(text)
    return 1 if any(r["result"] == "FAIL" for r in results) else 0


# ---- self-test: hand-made reports, one per scoring path -----------------------------------
def _finding(fid, state="clear", sev=None):
    return {"id": fid, "state": state, "severity": sev}


def _report(top, fired=(), run=None):
    ids = ["gpu_idle", "launch_bound", "sync_in_loop", "pageable_memory", "default_stream", "low_occupancy",
           "memory_bound", "tensor_cores_unused", "throttling", "memory_pressure", "communication",
           "profiler_limits"]
    fd = dict(fired)
    rep = {"verdict": {"top": top}, "findings": [_finding(i, "fired", fd[i]) if i in fd else _finding(i) for i in ids]}
    if run is not None:
        rep["run"] = run
    return rep


def self_test():
    cases = [  # name, kind, expected, report (None = no file), rc, status, want result
        ("p_ok", "planted", "sync_in_loop", _report("sync_in_loop", [("sync_in_loop", "high"), ("gpu_idle", "warning")]), 0, None, "PASS"),
        ("p_wrong", "planted", "sync_in_loop", _report("gpu_idle", [("gpu_idle", "high"), ("sync_in_loop", "warning")]), 0, None, "FAIL"),
        ("p_none", "planted", "low_occupancy", _report(None, [("low_occupancy", "info")]), 0, None, "FAIL"),
        ("p_timeout", "planted", "gpu_idle", _report("gpu_idle", [("gpu_idle", "high")]), 124, None, "FAIL"),
        ("c_exit1", "clean", "none", _report(None), 1, None, "FAIL"),
        ("c_ok", "clean", "none", _report(None, [("throttling", "info"), ("memory_bound", "info")]), 0, None, "PASS"),
        ("c_warn", "clean", "none", _report("pageable_memory", [("pageable_memory", "warning")]), 0, None, "FAIL"),
        ("c_high", "clean", "none", _report("gpu_idle", [("gpu_idle", "high")]), 0, None, "FAIL"),
        ("x_ok", "crash", "exit_signal=6", _report(None, run={"exit_signal": 6, "exit_code": 134}), 134, None, "PASS"),
        ("x_nokey", "crash", "exit_signal=6", _report(None), 134, None, "FAIL"),
        ("x_rc", "crash", "exit_signal=6", _report(None, run={"exit_signal": 6, "exit_code": 134}), 0, None, "FAIL"),
        ("x_sig", "crash", "exit_signal=6", _report(None, run={"exit_signal": None, "exit_code": 1}), 1, None, "FAIL"),
        ("s_skip", "clean", "none", None, None, "skip: python3 cannot import torch", "SKIP"),
        ("e_missing", "planted", "gpu_idle", None, None, "error: build failed", "FAIL"),
        ("e_badjson", "clean", "none", "{not json", 0, None, "FAIL"),
    ]
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "m.tsv"), "w") as m:
            m.write("# comment line\n\n")
            for name, kind, want, rep, rc, status, _ in cases:
                m.write(f"{name}\t{kind}\t{want}\tcmd {name}\n")
                if rep is not None:
                    with open(os.path.join(d, name + ".json"), "w") as f:
                        f.write(rep if isinstance(rep, str) else json.dumps(rep))
                if rc is not None:
                    with open(os.path.join(d, name + ".rc"), "w") as f:
                        f.write(f"{rc}\n")
                if status is not None:
                    with open(os.path.join(d, name + ".status"), "w") as f:
                        f.write(status + "\n")
        saved = sys.stdout
        sys.stdout = open(os.devnull, "w")
        try:
            rc = score(os.path.join(d, "m.tsv"), d)
        finally:
            sys.stdout.close()
            sys.stdout = saved
        got = json.load(open(os.path.join(d, "score.json")))
        txt = open(os.path.join(d, "score.txt")).read()
    bad = []
    res = {p["name"]: p for p in got["programs"]}
    for name, _, _, _, _, _, want in cases:
        if res[name]["result"] != want:
            bad.append(f"{name}: got {res[name]['result']}, want {want}")
    if res["c_warn"]["got"] != "pageable_memory" or res["p_none"]["got"] != "none":
        bad.append(f"got column: c_warn {res['c_warn']['got']!r}, p_none {res['p_none']['got']!r}")
    if res["p_ok"]["fired"] != ["gpu_idle:warning", "sync_in_loop:high"]:
        bad.append(f"fired column: {res['p_ok']['fired']}")
    want_line = "accuracy: 3/14 passed (clean 1/5, planted 1/5, crash 1/4); 1 skipped"
    if got["score"] != want_line or not txt.rstrip().endswith(want_line):
        bad.append(f"score line {got['score']!r}, want {want_line!r}")
    if rc != 1:
        bad.append(f"exit status {rc} with failures, want 1")
    if "timed out" not in res["p_timeout"]["note"] or "exited 1" not in res["c_exit1"]["note"]:
        bad.append("a timed-out or failed run is not noted")
    bad += light_self_test()
    bad += metrics_self_test()
    for b in bad:
        print("score.py self-test: FAIL:", b)
    if not bad:
        print(f"score.py self-test: ok ({len(cases)} cases, and the light and metrics modes)")
    return 1 if bad else 0


def light_self_test():
    """The light-mode scoring: a trace-only planted rule must say "insufficient", one that NVML
    or the GPU counters judge must be on top."""
    bad = []
    ins = {"verdict": {"top": "gpu_idle"}, "findings": [_finding("gpu_idle", "fired", "warning"),
                                                         _finding("launch_bound", "insufficient")]}
    clr = {"verdict": {"top": None}, "findings": [_finding("gpu_idle"), _finding("launch_bound")]}
    idle = {"verdict": {"top": "gpu_idle"}, "findings": [_finding("gpu_idle", "fired", "high")]}
    mem = {"verdict": {"top": "memory_pressure"}, "findings": [_finding("memory_pressure", "fired", "warning"),
                                                               _finding("launch_bound", "insufficient")]}
    mem_ins = {"verdict": {"top": None}, "findings": [_finding("memory_pressure", "insufficient")]}
    cases = [("l_ins", "launch_bound", ins, "PASS"), ("l_clear", "launch_bound", clr, "FAIL"),
             ("l_idle", "gpu_idle", idle, "PASS"), ("l_noidle", "gpu_idle", clr, "FAIL"),
             ("l_mem", "memory_pressure", mem, "PASS"), ("l_mem_ins", "memory_pressure", mem_ins, "FAIL")]
    with tempfile.TemporaryDirectory() as d:
        for name, want, rep, res in cases:
            with open(os.path.join(d, name + ".json"), "w") as f:
                json.dump(rep, f)
            with open(os.path.join(d, name + ".rc"), "w") as f:
                f.write("0\n")
            row = {"name": name, "kind": "planted", "expected": want, "command": "cmd"}
            got = score_one(row, d, "light")
            if got["result"] != res:
                bad.append(f"light {name}: got {got['result']} ({got['got']}), want {res}")
    return bad


def metrics_self_test():
    """Counter-only rules without counters, and the metrics mode's extra conditions."""
    bad = []

    def rep(top, fired=(), profiled=3, errors=0, extra=()):
        fs = [dict(_finding(i, "fired", sev), basis=b) for i, sev, b in fired] + list(extra)
        r = {"verdict": {"top": top}, "findings": fs}
        if profiled is not None:
            r["summary"] = {"kernel_counters": {"profiled": profiled, "note": None if profiled else "CUPTI refused",
                                                "skipped_by_status": {"graph": 2, "error": errors}}}
        return r

    unc = ("uncoalesced", "warning", "kernel counters")
    cases = [  # mode, kind, expected, report, want result
        ("metrics", "planted", "uncoalesced", rep("uncoalesced", [unc]), "PASS"),
        ("metrics", "planted", "uncoalesced", rep("memory_bound", [("memory_bound", "high", "trace"), unc]), "FAIL"),
        ("metrics", "planted", "tensor_cores_unused",
         rep("tensor_cores_unused", [("tensor_cores_unused", "high", "kernel names")]), "FAIL"),
        ("metrics", "planted", "tensor_cores_unused",
         rep("tensor_cores_unused", [("tensor_cores_unused", "high", "kernel counters")]), "PASS"),
        ("metrics", "planted", "low_occupancy", rep("low_occupancy", [("low_occupancy", "warning", "trace")]), "PASS"),
        ("metrics", "planted", "sync_in_loop", rep("sync_in_loop", [("sync_in_loop", "high", "trace")]), "PASS"),
        ("metrics", "planted", "uncoalesced", rep("uncoalesced", [unc], errors=1), "FAIL"),
        ("metrics", "clean", "none", rep(None), "PASS"),
        ("metrics", "clean", "none", rep(None, profiled=0), "FAIL"),
        ("metrics", "clean", "none", rep(None, profiled=None), "FAIL"),
        ("metrics", "clean", "none", rep("divergence", [("divergence", "warning", "kernel counters")]), "FAIL"),
        ("metrics", "crash", "exit_signal=6", dict(rep(None, profiled=0), run={"exit_signal": 6}), "PASS"),
        ("trace", "planted", "uncoalesced", rep("memory_bound", [("memory_bound", "warning", "trace")], None), "PASS"),
        ("trace", "planted", "divergence", rep("divergence", [("divergence", "warning", "kernel names")], None), "FAIL"),
        ("light", "planted", "divergence",
         rep(None, (), None, extra=[_finding("divergence", "insufficient")]), "PASS"),
        ("metrics", "clean", "none;metrics=roofline", rep("roofline", [("roofline", "high", "kernel counters")]), "PASS"),
        ("metrics", "clean", "none;metrics=roofline", rep(None), "FAIL"),
        ("trace", "clean", "none;metrics=roofline", rep(None, profiled=None), "PASS"),
        ("trace", "clean", "none;metrics=roofline", rep("gpu_idle", [("gpu_idle", "warning", "trace")], None), "FAIL"),
    ]
    with tempfile.TemporaryDirectory() as d:
        for i, (mode, kind, want, r, res) in enumerate(cases):
            name = f"m{i}"
            with open(os.path.join(d, name + ".json"), "w") as f:
                json.dump(r, f)
            with open(os.path.join(d, name + ".rc"), "w") as f:
                f.write("134\n" if kind == "crash" else "0\n")
            got = score_one({"name": name, "kind": kind, "expected": want, "command": "cmd"}, d, mode)
            if got["result"] != res:
                bad.append(f"{mode} {kind} {want} case {i}: got {got['result']} ({got['got']}; {got['note']}), want {res}")
    return bad


if __name__ == "__main__":
    if sys.argv[1:] == ["--self-test"]:
        sys.exit(self_test())
    mode = sys.argv[1][2:] if sys.argv[1:2] in (["--light"], ["--metrics"]) else "trace"
    args = sys.argv[2:] if mode != "trace" else sys.argv[1:]
    if len(args) != 2:
        sys.exit(__doc__.split("\n\n")[0] + "\nusage: score.py [--light|--metrics] MANIFEST DIR | --self-test")
    sys.exit(score(args[0], args[1], mode))
