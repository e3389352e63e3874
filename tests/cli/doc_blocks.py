#!/usr/bin/env python3
"""Runs the examples of a doc page: each fenced block of LANG (sh or python) followed by a
fenced `text` block must print exactly that text. `gpudiag` in them is the binary under test
(its directory is put first on PATH). Prints "N passed, N failed"; exit 0 when all passed.
usage: doc_blocks.py DOC.md LANG GPUDIAG [PYTHON]  (run from the repository root)"""
import os
import re
import subprocess
import sys
import tempfile

doc, lang, gd = sys.argv[1], sys.argv[2], sys.argv[3]
py = sys.argv[4] if len(sys.argv) > 4 else sys.executable
blocks = re.findall(r"^```(\w*)\n(.*?)^```\n", open(doc).read(), re.S | re.M)
with tempfile.TemporaryDirectory() as bindir:
    os.symlink(os.path.abspath(gd), os.path.join(bindir, "gpudiag"))
    env = dict(os.environ, PATH=bindir + os.pathsep + os.environ["PATH"], NO_COLOR="1")
    passed = failed = 0
    for (l, code), (nl, want) in zip(blocks, blocks[1:]):
        if l != lang or nl != "text":
            continue
        cmd = ["bash", "-c", code] if lang == "sh" else [py, "-c", code]
        r = subprocess.run(cmd, capture_output=True, text=True, env=env)
        if r.returncode == 0 and r.stdout == want:
            passed += 1
        else:
            failed += 1
            print(f"FAIL: {doc}: the {lang} block\n{code}printed (exit {r.returncode})\n{r.stdout}{r.stderr}"
                  f"instead of\n{want}", file=sys.stderr)
print(f"{passed} passed, {failed} failed")
sys.exit(0 if failed == 0 and passed > 0 else 1)
