"""Audit speed and memory against the parsing floor, side by side in one run (run by hand).

    .venv/bin/python benchmarks/audit.py N|repo [...] [--tools DIR] [--rounds R]

For each N it builds an N-question bank (benchmarks/make_bank.py) under /tmp (`repo`: copies this
repository's questions/ there) and times, as fresh
processes in interleaved rounds (best of R, these machines are noisy):
  floor          PyYAML's CSafeLoader (libyaml, C) over the same files, in one process
  cold           qbank audit --no-cache (schema, corpus rules, math, near-duplicates)
  warm           qbank audit after one file was edited (the cache holds the rest)
  hook, 1 file   qbank audit FILE on a file just edited (a cache miss), as the pre-commit hook runs
                 it, interpreter start-up included
  hook, bank     qbank audit --bank-only after that edit (the second pre-commit hook)
  and, with --tools DIR holding check-jsonschema and yamllint (pip install check-jsonschema
  yamllint), both over the same files.
Then the peak memory of a cold audit: the largest resident set among its processes. Beside each
time, the least CPU time (user and system, workers included) of its rounds.

Children run with bytecode caching on (PYTHONDONTWRITEBYTECODE removed from their environment), as
on a user's machine: a round before the timed ones writes the .pyc files and fills the cache.
"""

from __future__ import annotations

import argparse
import itertools
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PYTHON = sys.executable
QBANK = [PYTHON, "-m", "qbank"]
FLOOR = (
    "import sys, yaml, pathlib\n"
    "for f in sorted(pathlib.Path(sys.argv[1]).rglob('*.yaml')):\n"
    "    yaml.load(f.read_bytes(), Loader=yaml.CSafeLoader)\n"
)
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
Command = tuple[list[str], Callable[[], None] | None]


def bank(size: str) -> Path:
    """/tmp/qbank-bench-N, built once; for `repo`, a copy of this repository's own bank (its napkin
    lines repeat less than a built bank's, whose variants keep their source's napkin math)."""
    dest = Path(f"/tmp/qbank-bench-{size}")
    if (dest / "questions").is_dir():
        return dest
    if size == "repo":
        for folder in ("questions", "schema"):
            shutil.copytree(ROOT / folder, dest / folder)
    else:
        subprocess.run([PYTHON, str(ROOT / "benchmarks" / "make_bank.py"), size, str(dest)], check=True)
    return dest


def timed(command: list[str], cwd: Path, before: Callable[[], None] | None = None) -> tuple[float, float]:
    """Wall seconds of one run, and the CPU seconds (user and system) of it and its worker processes
    (`before` runs first, untimed). CPU time varies less than wall time on a shared machine: it says
    whether a change did less work, where wall time says what a user waits."""
    if before is not None:
        before()
    used = _children_cpu()
    start = time.perf_counter()
    subprocess.run(
        command, cwd=cwd, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False
    )
    return time.perf_counter() - start, _children_cpu() - used


def _children_cpu() -> float:
    """CPU seconds of the children waited for so far, with the children they waited for (an audit
    waits for its workers)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def editor(file: Path) -> Callable[[], None]:
    """A function that changes `file` (a new comment each call), so its cache entry misses. The
    comment holds a token of this benchmark run: with a count alone, a second run made the same
    bytes as the first, and the cache, which keeps results by bytes, knew them."""
    original, count, run = file.read_bytes(), itertools.count(), os.urandom(8).hex()

    def edit() -> None:
        file.write_bytes(original + f"# edit {run} {next(count)}\n".encode())

    return edit


def commands(root: Path, files: list[Path]) -> dict[str, Command]:
    one = files[len(files) // 2]
    edit_one, edit_first = editor(one), editor(files[0])
    return {
        "floor (CSafeLoader)": ([PYTHON, "-c", FLOOR, "questions"], None),
        "qbank audit --no-cache": ([*QBANK, "audit", "--no-cache"], None),
        "qbank audit, warm, 1 file edited": ([*QBANK, "audit"], edit_first),
        "hook: qbank audit FILE (edited)": ([*QBANK, "audit", str(one.relative_to(root))], edit_one),
        "hook: qbank audit --bank-only": ([*QBANK, "audit", "--bank-only"], edit_first),
    }


def other_tools(files: list[Path], root: Path, tools: Path) -> dict[str, list[str]]:
    """check-jsonschema (the editor schema) and yamllint over the same files: a minute or more each
    at 10,000 files, 20x and more the floor, so they are timed once."""
    schema = str(ROOT / "schema" / "question.schema.json")
    listed = [str(f.relative_to(root)) for f in files]
    return {
        "check-jsonschema (once)": [str(tools / "check-jsonschema"), "--schemafile", schema, *listed],
        "yamllint -d relaxed (once)": [str(tools / "yamllint"), "-d", "relaxed", "questions"],
    }


def measure(size: str, tools: Path | None, rounds: int) -> None:
    root = bank(size)
    files = sorted((root / "questions").rglob("*.yaml"))
    chosen = commands(root, files)
    originals = {f: f.read_bytes() for f in (files[0], files[len(files) // 2])}
    try:
        for command, _ in chosen.values():  # writes .pyc files and fills the cache; not timed
            timed(command, root)
        runs: dict[str, list[tuple[float, float]]] = {name: [] for name in chosen}
        for _ in range(rounds):
            for name, (command, before) in chosen.items():
                runs[name].append(timed(command, root, before))
        once = {
            name: timed(command, root)[0]
            for name, command in (other_tools(files, root, tools) if tools else {}).items()
        }
        peak = _peak_memory([*QBANK, "audit", "--no-cache"], root)
    finally:
        for file, data in originals.items():
            file.write_bytes(data)
    floors = [wall for wall, _ in runs["floor (CSafeLoader)"]]
    megabytes = sum(f.stat().st_size for f in files) / 1e6
    print(f"\n{size}: {len(files)} questions ({megabytes:.1f} MB, {os.cpu_count()} CPUs), {rounds} rounds")
    print(
        f"  {'':36} {'best':>7}    {'/ best floor':>12}  {'median of each round / its floor':>32}  {'CPU, best':>9}"
    )
    for name, measured in runs.items():
        seconds = [wall for wall, _ in measured]
        ratios = statistics.median(t / f for t, f in zip(seconds, floors, strict=True))
        cpu = min(used for _, used in measured)
        print(
            f"  {name:36} {min(seconds):7.2f} s  {min(seconds) / min(floors):11.2f}x  {ratios:31.2f}x"
            f"  {cpu:7.2f} s"
        )
    for name, took in once.items():
        print(f"  {name:36} {took:7.2f} s  {took / min(floors):11.2f}x")
    print(f"  peak memory, cold audit: {peak / 1024:.0f} MB (largest process)")


def _peak_memory(command: list[str], cwd: Path) -> int:
    """Peak resident set of the largest process, measured in a child of its own (KiB)."""
    probe = (
        "import resource, subprocess, sys\n"
        "subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
    )
    done = subprocess.run(
        [PYTHON, "-c", probe, *command], cwd=cwd, env=ENV, capture_output=True, text=True, check=True
    )
    return int(done.stdout.strip())


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("sizes", nargs="+", help="numbers of questions, or `repo` for this repository's bank")
    parser.add_argument("--tools", type=Path, help="a folder with check-jsonschema and yamllint")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    for size in args.sizes:
        measure(size, args.tools, args.rounds)


if __name__ == "__main__":
    main()
