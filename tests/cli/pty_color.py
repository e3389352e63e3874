"""Runs a command with one of stdout/stderr on a terminal (a pseudo-terminal) and the other
on a file, and prints "esc" when the terminal stream (for stderr) or the file (for stdout)
holds an ANSI escape sequence, "plain" otherwise. Used by run.sh: colour must be decided from
the stream the report goes to.

usage: pty_color.py stdout|stderr FILE CMD [ARGS...]
  stdout: stdout is the terminal; stderr goes to FILE, which is checked
  stderr: stderr is the terminal, which is checked; stdout goes to FILE
"""
import os
import pty
import subprocess
import sys

which, other, cmd = sys.argv[1], sys.argv[2], sys.argv[3:]
env = dict(os.environ, TERM="xterm")
env.pop("NO_COLOR", None)
master, slave = pty.openpty()
with open(other, "wb") as f:
    p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL,
                         stdout=slave if which == "stdout" else f,
                         stderr=slave if which == "stderr" else f, env=env)
    os.close(slave)
    got = b""
    while True:  # read while it runs, so a long report cannot fill the terminal and block
        try:
            d = os.read(master, 65536)
        except OSError:  # EIO: every holder of the terminal's other end has closed it
            break
        if not d:
            break
        got += d
    p.wait()
text = got if which == "stderr" else open(other, "rb").read()
print("esc" if b"\x1b[" in text else "plain")
