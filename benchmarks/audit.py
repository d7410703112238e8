"""Audit speed and memory against the parsing floor, side by side in one run (run by hand).

    .venv/bin/python benchmarks/audit.py N [N ...] [--tools DIR]

For each N it builds an N-question bank (benchmarks/make_bank.py) under /tmp and times, as fresh
processes in interleaved rounds (best of 3, these machines are noisy):
  floor        PyYAML's CSafeLoader (libyaml, C) over the same files, in one process
  cold         qbank audit --no-cache (schema, corpus rules, math, near-duplicates)
  warm         qbank audit after one file was edited (the cache holds the rest)
  one file     qbank audit FILE, as the pre-commit hook runs it, interpreter start-up included
  and, with --tools DIR holding check-jsonschema and yamllint (pip install check-jsonschema
  yamllint), both over the same files.
Peak memory is the largest resident set of the audit's processes (getrusage of the children).
"""

from __future__ import annotations

import argparse
import itertools
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PYTHON = sys.executable
QBANK = [PYTHON, "-m", "qbank"]
FLOOR = (
    "import sys, yaml, pathlib\n"
    "for f in sorted(pathlib.Path(sys.argv[1]).rglob('*.yaml')):\n"
    "    yaml.load(f.read_bytes(), Loader=yaml.CSafeLoader)\n"
)


def bank(n: int) -> Path:
    dest = Path(f"/tmp/qbank-bench-{n}")
    if not (dest / "questions").is_dir():
        subprocess.run([PYTHON, str(ROOT / "benchmarks" / "make_bank.py"), str(n), str(dest)], check=True)
    return dest


def timed(command: list[str], cwd: Path, before: Callable[[], None] | None = None) -> float:
    """Wall seconds of one run (`before` runs first, untimed)."""
    if before is not None:
        before()
    start = time.perf_counter()
    subprocess.run(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("sizes", nargs="+", type=int)
    parser.add_argument("--tools", type=Path, help="a folder with check-jsonschema and yamllint")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    for n in args.sizes:
        root = bank(n)
        files = sorted((root / "questions").rglob("*.yaml"))
        one, edited = files[len(files) // 2], files[0]
        original = edited.read_bytes()
        counter = itertools.count()

        def edit(edited: Path = edited, original: bytes = original, counter: Iterator[int] = counter) -> None:
            edited.write_bytes(original + f"# edit {next(counter)}\n".encode())

        commands = {
            "floor (CSafeLoader)": ([PYTHON, "-c", FLOOR, "questions"], None),
            "qbank audit --no-cache": ([*QBANK, "audit", "--no-cache"], None),
            "qbank audit, warm, 1 file edited": ([*QBANK, "audit"], edit),
            "qbank audit ONE_FILE": ([*QBANK, "audit", str(one.relative_to(root))], None),
        }
        if args.tools:
            schema = str(ROOT / "schema" / "question.schema.json")
            listed = [str(f.relative_to(root)) for f in files]
            commands["check-jsonschema"] = (
                [str(args.tools / "check-jsonschema"), "--schemafile", schema, *listed],
                None,
            )
            commands["yamllint"] = ([str(args.tools / "yamllint"), "-d", "relaxed", "questions"], None)
        subprocess.run([*QBANK, "audit"], cwd=root, stdout=subprocess.DEVNULL, check=False)  # fill the cache
        best: dict[str, float] = {}
        for _ in range(args.rounds):
            for name, (command, before) in commands.items():
                seconds = timed(command, root, before)
                best[name] = min(best.get(name, seconds), seconds)
        peak = _peak_memory([*QBANK, "audit", "--no-cache"], root)
        edited.write_bytes(original)
        floor = best["floor (CSafeLoader)"]
        print(
            f"\n{n} questions ({sum(f.stat().st_size for f in files) / 1e6:.1f} MB), best of {args.rounds}:"
        )
        for name, seconds in best.items():
            print(f"  {name:36} {seconds:7.2f} s  {seconds / floor:5.2f}x floor")
        print(f"  peak memory, cold audit: {peak / 1024:.0f} MB (largest process)")


def _peak_memory(command: list[str], cwd: Path) -> int:
    """Peak resident set of the largest process, measured in a child of its own."""
    probe = (
        "import resource, subprocess, sys\n"
        "subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
    )
    done = subprocess.run(
        [PYTHON, "-c", probe, *command], cwd=cwd, capture_output=True, text=True, check=True
    )
    return int(done.stdout.strip())


if __name__ == "__main__":
    main()
