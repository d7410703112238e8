"""Kill a qbank writer with SIGKILL at a chosen point of qbank/atomic.py, for the atomic-write tests.

The child is a fresh Python that runs one qbank command. Before it starts, one step of the write is
patched so that, on reaching the chosen point, the child prints PAUSED and sleeps; the parent reads
that line and sends SIGKILL. No timing is involved: the kill lands exactly at the point, however
fast or slow the machine. SIGKILL cannot be caught, so no `finally` or `except` in qbank runs:
what is on disk afterwards is what a power cut or an OOM kill would leave (less the page cache).

The points, in the order a write reaches them:
  created       the temporary file exists, empty;
  half-written  half of the new bytes are in the temporary file;
  synced        all of them, fsynced; the rename (or, for a new file, the link) is next;
  committed     the rename or link is done; the folder's fsync (and `new`'s unlink of the
                temporary file) is next.
"""

from __future__ import annotations

import signal
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

POINTS = ("created", "half-written", "synced", "committed")
PAUSED = "qbank-crash-test: paused"

CHILD = f"""
import os, sys, time
from qbank import atomic
from qbank.cli import main

point = sys.argv[1]

def pause():
    print({PAUSED!r}, flush=True)
    time.sleep(600)  # the parent kills this process long before

write_all = atomic._write_all
def write(fd, data):
    if point == "created":
        pause()
    if point == "half-written":
        write_all(fd, data[: len(data) // 2])
        pause()
    write_all(fd, data)
atomic._write_all = write

def commit(real):
    def patched(source, target, *args, **kwargs):
        if point == "synced":
            pause()
        real(source, target, *args, **kwargs)
        if point == "committed":
            pause()
    return patched
os.replace = commit(os.replace)
os.link = commit(os.link)

main(sys.argv[2:], prog_name="qbank")
"""


def kill_at(point: str, args: Sequence[str], cwd: Path) -> None:
    """Run `qbank ARGS` in `cwd` in a child process and SIGKILL it at `point` of its first write."""
    assert point in POINTS, point
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, point, *args],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout is not None
        seen = []
        for line in child.stdout:  # a command may print before it writes (`gpu probe` does)
            if line.rstrip("\n") == PAUSED:
                break
            seen.append(line)
        else:  # end of output: the child finished, or failed, without reaching the point
            _, err = child.communicate(timeout=60)
            raise AssertionError(f"never reached {point!r} (exit {child.returncode}):\n{''.join(seen)}{err}")
        child.send_signal(signal.SIGKILL)
        child.communicate(timeout=60)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert child.returncode == -signal.SIGKILL


def leftovers(folder: Path, *names: str) -> list[str]:
    """The names in `folder` other than `names`: what a killed write left behind."""
    return sorted(set(p.name for p in folder.iterdir()) - set(names))


def hidden_temporary(name: str) -> bool:
    """A leftover the way qbank/atomic.py names it: hidden, and never read as YAML or evidence."""
    return name.startswith(".") and name.endswith(".tmp")
