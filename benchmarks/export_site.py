"""Exports against the audit, side by side in one run (run by hand; issue 29's target: a warm export
of a 10,000-question bank at most 2x a warm audit).

    .venv/bin/python benchmarks/export_site.py [N] [--rounds R]

Builds an N-question bank in which every question is released (make_bank.py, `released`), under
/tmp/qbank-bench-export-N, then times as fresh processes in interleaved rounds (best of R), each
after one file was edited (its `updated_at` set, so its content hash, its release view and its
page change, as a real edit does):
  qbank audit                   warm: the cache holds every other file
  qbank export json|sqlite|site|anki|all, warm: the cache holds every other file's release view,
                                and the site's unchanged pages are kept (qbank/export/site.py)
Then, once each: the first export after a plain audit (every release view made: each file checked
again), and a site built into a new folder (every page rendered). Beside each time, the least CPU
time of its rounds (user and system, workers included).

The run has a cache of its own (XDG_CACHE_HOME in a temporary folder): the cache of a bank keeps
rows of files no longer there, up to as many as the live ones (qbank.engine.store, PRUNE_SLACK),
and after each change to qbank's code all its rows are new, so with the user's cache the audit and
every export read up to twice the rows, and the ratios depended on what ran before.
"""

from __future__ import annotations

import argparse
import itertools
import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path

from audit import ENV, QBANK, timed
from make_bank import load_bank, variants, write_bank


def bank(n: int) -> Path:
    dest = Path(f"/tmp/qbank-bench-export-{n}")
    if not (dest / "questions").is_dir():
        write_bank(variants(load_bank(), n, released=True), dest)
        subprocess.run(["git", "init", "-q", str(dest)], check=True)  # a bank root, as users have
    return dest


def editor(file: Path) -> Callable[[], None]:
    """A function that changes a public field of `file` each call: a new `updated_at`, with a token
    of this run (the cache keeps results by bytes: a second run must not make the first's bytes)."""
    original, count, run = file.read_bytes(), itertools.count(), os.urandom(4).hex()

    def edit() -> None:
        file.write_bytes(original + f"updated_at: '2026-11-27 {run} {next(count)}'\n".encode())

    return edit


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("n", nargs="?", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    root = bank(args.n)
    out = root.parent / f"qbank-bench-export-{args.n}-out"
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(exist_ok=True)  # (rmtree may race a run killed before)
    file = sorted((root / "questions").rglob("*.yaml"))[args.n // 2]
    original, edit = file.read_bytes(), editor(file)
    export = [*QBANK, "export"]
    chosen = {
        "qbank audit": [*QBANK, "audit"],
        "qbank export json": [*export, "json", "--out", str(out / "release.json")],
        "qbank export sqlite": [*export, "sqlite", "--out", str(out / "release.sqlite")],
        "qbank export site": [*export, "site", "--out", str(out / "site")],
        "qbank export anki": [*export, "anki", "--out", str(out / "qbank.apkg")],
        "qbank export all": [*export, "all", "--out", str(out / "all")],
    }
    try:
        with tempfile.TemporaryDirectory() as cache:  # a cache of this run only (see above)
            ENV["XDG_CACHE_HOME"] = cache
            for command in chosen.values():  # .pyc files, the cache and the outputs; not timed
                timed(command, root)
            runs: dict[str, list[tuple[float, float]]] = {name: [] for name in chosen}
            for _ in range(args.rounds):
                for name, command in chosen.items():
                    runs[name].append(timed(command, root, edit))
            fresh = timed([*export, "site", "--out", str(out / "new-site")], root)
        with tempfile.TemporaryDirectory() as cache:  # a cache with no release view in it
            ENV["XDG_CACHE_HOME"] = cache
            first = timed(chosen["qbank export json"], root, _plain_audit(root))
    finally:
        ENV.pop("XDG_CACHE_HOME", None)
        file.write_bytes(original)
    audit = min(wall for wall, _ in runs["qbank audit"])
    print(
        f"\n{args.n} questions, all released ({os.cpu_count()} CPUs), {args.rounds} rounds, 1 file edited each"
    )
    print(f"  {'':40} {'best':>7}  {'/ warm audit':>12}  {'CPU, best':>9}")
    for name, measured in runs.items():
        best = min(wall for wall, _ in measured)
        cpu = min(used for _, used in measured)
        print(f"  {name + ', warm':40} {best:7.2f} s  {best / audit:11.2f}x  {cpu:7.2f} s")
    for name, (wall, cpu) in (
        ("export json after a plain audit (once)", first),
        ("export site into a new folder (once)", fresh),
    ):
        print(f"  {name:40} {wall:7.2f} s  {wall / audit:11.2f}x  {cpu:7.2f} s")


def _plain_audit(root: Path) -> Callable[[], None]:
    """Before the timed export: an audit, which fills the cache with results but makes no release
    view, so the export checks every file again for them."""
    return lambda: (
        subprocess.run([*QBANK, "audit"], cwd=root, env=ENV, capture_output=True, check=False) and None
    )


if __name__ == "__main__":
    main()
