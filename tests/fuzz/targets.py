"""Fuzz targets: plain functions that feed qbank hostile input and assert what it promises.

qbank's promise for a question file is: findings, never an exception, never a hang, nothing in the
file executed. Each target below runs one entry point on one input and checks that promise plus the
shape of what came back (a Finding has the file's path and a line inside the file). A target returns
normally, or raises AssertionError (a broken promise) or Hang; any other exception escaping one is a
bug in qbank.

Shared by tests/fuzz/test_fuzz.py (hypothesis) and tools/fuzz_atheris.py (atheris), so this module
imports neither.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from fractions import Fraction
from functools import cache
from pathlib import Path

from qbank import engine, rules, source
from qbank.finding import Finding, Severity
from qbank.napkin import equations, evaluate, lexer
from qbank.taxonomy import load_bank_schema

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "tests" / "examples"
QUESTIONS = REPO / "questions"
# Where a fuzzed file claims to live: the place the valid examples' id, track and area point to.
DEFAULT_FILE = QUESTIONS / "cloud" / "precision" / "cloud-202611-e000.yaml"
OUTCOME_STATUSES = {"ok", "arithmetic", "unit-mismatch", "unchecked", "limit"}
# libyaml starts a new line at each of these (and at \r\n, once), so a line number can count them all.
_LINE_BREAKS = ("\n", "\r", "\x85", "\u2028", "\u2029")


class Hang(Exception):
    """An input ran past the time limit: qbank must finish every input quickly."""


@contextlib.contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Raise Hang in the code under test once `seconds` pass (SIGALRM; a no-op off the main
    thread or without it). Python handles the signal between bytecodes, so a loop in Python is
    stopped; a single C call that never returns is not (atheris's -timeout covers that)."""
    if not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
        yield
        return

    def expire(signum: int, frame: object) -> None:
        raise Hang(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


# --- seeds --------------------------------------------------------------------------------------


def seed_files(every: int = 32) -> list[Path]:
    """Real question files to mutate: every example (valid and invalid), and every `every`-th file
    of the bank (all 3,264 with every=1)."""
    examples = [p for p in sorted(EXAMPLES.rglob("*.yaml")) if "schema" not in p.parts and _readable(p)]
    return examples + sorted(QUESTIONS.rglob("*.yaml"))[::every]


def _readable(path: Path) -> bool:
    """A file the audit would parse (not a link, and within the size that source.read accepts)."""
    return path.is_file() and not path.is_symlink() and path.stat().st_size <= source.MAX_BYTES


def placed(seed: Path) -> Path:
    """Where a seed would sit in this bank: questions/<track>/<area>/<name>, from its last three
    parts (the examples live in tests/examples/<valid|invalid>/<rule>/<track>/<area>/)."""
    return QUESTIONS.joinpath(*seed.parts[-3:])


def real_math_lines(every: int = 8) -> list[str]:
    """Lines of real napkin math and solutions, to seed the math targets."""
    lines: list[str] = []
    for seed in seed_files(every):
        document = source.load(seed)
        details = document.data.get("details") if isinstance(document, source.Document) else None
        if isinstance(details, dict):
            for field in ("napkin_math", "realistic_solution"):
                text = details.get(field)
                if isinstance(text, str):
                    lines += [line for line in text.splitlines() if equations._RELATION.search(line)]
    return sorted(set(lines))


# --- invariants ---------------------------------------------------------------------------------


def check_finding(finding: object, shown: str, text: str) -> None:
    """A Finding, of a registered rule, at a place inside `text`, with something to say."""
    assert isinstance(finding, Finding), finding
    assert finding.path == shown, finding
    assert isinstance(finding.severity, Severity), finding
    assert rules.get(finding.name).code == finding.code, finding
    assert isinstance(finding.message, str) and finding.message.strip(), finding
    assert 1 <= finding.line <= _last_line(text), finding
    assert finding.column >= 1, finding


def _last_line(text: str) -> int:
    """The last line a finding may name: libyaml starts a line at every break it knows (after a
    final break, the empty line where the file ends). Its end-of-stream mark past a last line with
    no break (`a: "x` at 2:1) is reported at the end of that line (source._end_inside)."""
    return 1 + sum(text.count(br) for br in _LINE_BREAKS)


def _text_of(data: bytes) -> str:
    # What the line bound counts: undecodable bytes still hold their line breaks.
    return data.decode("utf-8", "replace")


# --- targets ------------------------------------------------------------------------------------


def load(data: bytes, shown: str = "q.yaml") -> source.Document | Finding:
    """The loader on a file's bytes: a Document of a mapping with a position for each key, or one
    Finding. (The 256 KiB cap is applied by source.read, before this.)"""
    result = source.load_bytes(data, shown)
    if isinstance(result, Finding):
        check_finding(result, shown, _text_of(data))
        return result
    assert isinstance(result, source.Document), result
    assert isinstance(result.data, dict), result
    text = _text_of(data)
    lines = 1 + sum(text.count(br) for br in _LINE_BREAKS)
    for key in result.data:
        assert isinstance(key, str), key
        line, column = result.positions.key((key,))
        assert 1 <= line <= lines and column >= 1, (key, line, column)
    return result


@cache
def _context() -> engine.Context:
    schema = load_bank_schema(REPO / "schema")
    assert not isinstance(schema, Finding), schema
    return engine.Context(schema, QUESTIONS)


def check_file(data: bytes, file: Path = DEFAULT_FILE) -> list[Finding]:
    """The whole per-file audit (load, model, record checks: path, topic, napkin math, hardware
    constants, numeric and device claims), as the engine runs it on one file's bytes."""
    shown = file.relative_to(REPO).as_posix()
    # What source.read gives the engine: the bytes, or the finding that they are too many.
    read = data if len(data) <= source.MAX_BYTES else source.file_too_large(shown)
    result, record = engine._check_file(file, shown, read, _context())
    text = _text_of(data)
    for finding in result.findings:
        check_finding(finding, shown, text)
    equations_found, checked, failed = result.tally
    assert 0 <= failed <= checked <= equations_found, result.tally
    if record is not None and record.question is not None and not record.tombstone:
        # A question the model accepted has the shape every later stage relies on.
        assert record.question.id == record.document.data["id"], record
    return result.findings


def check_math(text: str) -> list[equations.Outcome]:
    """Equation finding and checking over a block of napkin-math prose: outcomes, never an error."""
    outcomes = equations.check_text(text)
    for outcome in outcomes:
        assert outcome.status in OUTCOME_STATUSES, outcome
        if outcome.status != "ok":
            assert outcome.message, outcome
    return outcomes


def check_expression(text: str) -> evaluate.Quantity | None:
    """One expression through normalise, tokenize, parse and evaluate. NapkinError (LimitError,
    UnitError) is its documented refusal; anything else is a bug."""
    try:
        normal = lexer.normalise(text)
        quantity = evaluate.evaluate(evaluate.parse(lexer.tokenize(normal)).node)
    except lexer.NapkinError:
        return None
    assert isinstance(quantity.value, Fraction), quantity
    evaluate.format_number(quantity.value)  # every value can be shown in a message
    return quantity


def check_stated(text: str) -> None:
    """A number as a `verify:` claim writes it: a value, or NapkinError."""
    try:
        value, quantum = equations.stated(text)
    except lexer.NapkinError:
        return
    assert isinstance(value, Fraction), value
    assert quantum is None or quantum >= 0, (text, quantum)
    equations.agrees(value, text)
