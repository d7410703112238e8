"""Coverage-guided fuzzing of qbank with atheris (libFuzzer), by hand; not part of the test suite.

It runs the targets of tests/fuzz/targets.py (which hypothesis also runs, in tests/fuzz) on bytes
that libFuzzer mutates toward new branches of qbank, starting from the real question files:

    .venv/bin/pip install atheris        # a wheel for CPython 3.11 on Linux; not a dev dependency
    .venv/bin/python tools/fuzz_atheris.py file -runs=100000 -timeout=10

TARGET is one of:
  load  the loader: bytes -> a Document or one Finding
  file  the whole per-file audit, as the engine runs it on one file's bytes
  math  napkin math: the bytes as text, through equation checking, one expression, a stated number

Arguments after TARGET go to libFuzzer (-runs=N, -max_total_time=S, -timeout=S, -jobs=N, -dict=F).
The corpus starts as a copy of the seeds (every question file, or every napkin-math line) in a
temporary folder, whose path is printed; libFuzzer adds what it finds there. On a crash or a
timeout libFuzzer writes the input to ./crash-<sha1> or ./timeout-<sha1>; replay it with
`.venv/bin/python tools/fuzz_atheris.py TARGET ./crash-<sha1>`.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import atheris

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

# Instrument qbank for coverage, including the modules the audit imports only when it needs them.
with atheris.instrument_imports(include=["qbank"]):
    import qbank.checks
    import qbank.model.records  # noqa: F401
    from tests.fuzz import targets


def _load(data: bytes) -> None:
    targets.load(data)


def _file(data: bytes) -> None:
    targets.check_file(data)


def _math(data: bytes) -> None:
    text = data.decode("utf-8", "replace")
    targets.check_math(text)
    targets.check_expression(text)
    targets.check_stated(text)


TARGETS = {"load": _load, "file": _file, "math": _math}


def _seed(target: str) -> Path:
    """A fresh corpus folder holding the seeds for `target`."""
    corpus = Path(tempfile.mkdtemp(prefix=f"qbank-atheris-{target}-"))
    if target == "math":
        seeds = [line.encode() for line in targets.real_math_lines(every=1)]
    else:
        seeds = [path.read_bytes() for path in targets.seed_files(every=1)]
    for index, seed in enumerate(seeds):
        (corpus / f"seed-{index:05}").write_bytes(seed)
    print(f"corpus: {corpus} ({len(seeds)} seeds)", file=sys.stderr)
    return corpus


def main(argv: list[str]) -> None:
    if len(argv) < 2 or argv[1] not in TARGETS:
        sys.exit(f"usage: {argv[0]} {{{','.join(TARGETS)}}} [libFuzzer options] [corpus or crash files]")
    target, options = argv[1], argv[2:]
    replay = [o for o in options if not o.startswith("-")]
    if not replay:  # a fuzzing run, not a replay of saved inputs: start from the seeds
        options = ["-max_len=16384", *options, str(_seed(target))]
    atheris.Setup([argv[0], *options], TARGETS[target])
    atheris.Fuzz()


if __name__ == "__main__":
    main(sys.argv)
