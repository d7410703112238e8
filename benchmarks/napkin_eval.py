"""Benchmark: evaluate 100,000 napkin-style expressions with qbank's exact evaluator.

Run by hand (not a test): `.venv/bin/python benchmarks/napkin_eval.py [N]`. The expressions are the
left-hand sides found in questions/ (the bank's own napkin math), repeated to N. Reports the time to
tokenize, parse and evaluate each one exactly, and the time to check whole Calculations lines.
Target (issue 3): 100,000 expressions in <= 3 s on the 2-core development machine.
"""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path

import yaml

from qbank.napkin.equations import calculations, check_text
from qbank.napkin.evaluate import evaluate, parse
from qbank.napkin.lexer import normalise, tokenize

ROOT = Path(__file__).resolve().parents[1]


def bank_lines() -> list[str]:
    lines = []
    for file in sorted((ROOT / "questions").rglob("*.yaml")):
        details = yaml.safe_load(file.read_text(encoding="utf-8")).get("details") or {}
        lines += [ln for ln in calculations(details.get("napkin_math") or "").splitlines() if "=" in ln]
    return lines


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    lines = bank_lines()
    expressions = [re.sub(r"^\s*-\s*(?:[^:=]*:\s*)?", "", ln).split("=")[0].strip() for ln in lines]
    expressions = [e for e in expressions if _ok(e)]
    batch = (expressions * (n // len(expressions) + 1))[:n]
    start = time.perf_counter()
    for text in batch:
        evaluate(parse(tokenize(normalise(text))).node)
    elapsed = time.perf_counter() - start
    print(
        f"{n:,} expressions ({len(expressions)} distinct, from questions/): {elapsed:.2f} s, "
        f"{elapsed / n * 1e6:.1f} us each"
    )
    line_batch = (lines * (n // len(lines) + 1))[: n // 4]
    start = time.perf_counter()
    relations = sum(len(check_text(line)) for line in line_batch)
    elapsed = time.perf_counter() - start
    print(
        f"{len(line_batch):,} Calculations lines, {relations:,} relations found and checked: {elapsed:.2f} s"
    )


def _ok(text: str) -> bool:
    try:
        evaluate(parse(tokenize(normalise(text))).node)
    except Exception:
        return False
    return True


if __name__ == "__main__":
    main()
