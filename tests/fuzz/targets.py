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
import json
import os
import re
import shutil
import signal
import sqlite3
import tempfile
import threading
import urllib.parse
from collections.abc import Iterator
from fractions import Fraction
from functools import cache
from pathlib import Path
from typing import Any

from qbank import engine, reporters, rules
from qbank import load as loading
from qbank.characters import HIDDEN
from qbank.checks.api import Context, MathTally
from qbank.engine import store as audit_cache
from qbank.finding import Finding, Severity
from qbank.gpu import evidence, resolve
from qbank.gpu.recheck import contradiction  # bound here: the oracle stays itself when a test patches qbank's
from qbank.model.taxonomy import load_bank_tables
from qbank.napkin import equations, evaluate, lexer
from qbank.napkin.meter import metered

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "tests" / "examples"
QUESTIONS = REPO / "questions"
EVIDENCE = REPO / "evidence" / "gpu"
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
    """A file the audit would parse (not a link, and within the size that loading.read accepts)."""
    return path.is_file() and not path.is_symlink() and path.stat().st_size <= loading.MAX_BYTES


def placed(seed: Path) -> Path:
    """Where a seed would sit in this bank: questions/<track>/<area>/<name>, from its last three
    parts (the examples live in tests/examples/<valid|invalid>/<rule>/<track>/<area>/)."""
    return QUESTIONS.joinpath(*seed.parts[-3:])


def real_math_lines(every: int = 8) -> list[str]:
    """Lines of real napkin math and solutions, to seed the math targets."""
    lines: list[str] = []
    for seed in seed_files(every):
        document = loading.from_path(seed)
        details = document.data.get("details") if isinstance(document, loading.Document) else None
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
    no break (`a: "x` at 2:1) is reported at the end of that line (qbank/load/walker.py, _end_inside)."""
    return 1 + sum(text.count(br) for br in _LINE_BREAKS)


def _text_of(data: bytes) -> str:
    # What the line bound counts: undecodable bytes still hold their line breaks.
    return data.decode("utf-8", "replace")


# --- targets ------------------------------------------------------------------------------------


def load(data: bytes, shown: str = "q.yaml") -> loading.Document | Finding:
    """The loader on a file's bytes: a Document of a mapping with a position for each key, or one
    Finding. (The 256 KiB cap is applied by loading.read, before this.)"""
    result = loading.from_bytes(data, shown)
    if isinstance(result, Finding):
        check_finding(result, shown, _text_of(data))
        return result
    assert isinstance(result, loading.Document), result
    assert isinstance(result.data, dict), result
    text = _text_of(data)
    lines = 1 + sum(text.count(br) for br in _LINE_BREAKS)
    for key in result.data:
        assert isinstance(key, str), key
        line, column = result.positions.key((key,))
        assert 1 <= line <= lines and column >= 1, (key, line, column)
    return result


@cache
def _context() -> Context:
    schema = load_bank_tables(REPO / "schema")
    assert not isinstance(schema, Finding), schema
    return Context(schema, QUESTIONS)


def check_file(data: bytes, file: Path = DEFAULT_FILE) -> list[Finding]:
    """The whole per-file audit (load, model, record checks: path, topic, napkin math, hardware
    constants, numeric and device claims), as the engine runs it on one file's bytes."""
    shown = file.relative_to(REPO).as_posix()
    # What loading.read gives the engine: the bytes, or the finding that they are too many.
    read = data if len(data) <= loading.MAX_BYTES else load.rules.file_too_large(shown)
    result, record = engine.per_file.check_file(file, shown, read, _context())
    text = _text_of(data)
    for finding in result.findings:
        check_finding(finding, shown, text)
    equations_found, checked, failed, _ = result.tally
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


def check_output(path: str, message: str) -> None:
    """Every output format, for a finding whose file name and message are hostile: no line commands
    a GitHub runner (`::` at a line's start but the github format's own annotation, `##[` anywhere)
    or a terminal; the JSON and SARIF read back to the same name."""
    finding = rules.get("yaml-tag").finding(path, 1, 1, message)
    summary = engine.Summary(1, 0, 1, 0, 0, "schema", MathTally())
    report = engine.Report([finding], summary)
    for name, format_report in reporters.FORMATS.items():
        output = format_report(report)
        commands = [line for line in output.split("\n") if line.lstrip().startswith("::")]
        assert len(commands) == (1 if name == "github" else 0), (name, output)
        assert "##[" not in output and not _UNSEEN.search(output.replace("\n", "")), (name, output)
    assert json.loads(reporters.as_json(report))["findings"][0]["path"] == path
    sarif = json.loads(reporters.sarif(report))["runs"][0]["results"][0]
    uri = sarif["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    named = urllib.parse.unquote_to_bytes(uri.removeprefix("file://"))
    assert named == path.encode("utf-8", "surrogateescape"), (uri, path)  # the name's bytes, PEP 383


_UNSEEN = re.compile(f"{HIDDEN.pattern}|[\ud800-\udfff]")


# --- the work meter ----------------------------------------------------------------------------


def check_math_cost(text: str) -> list[equations.Outcome]:
    """Napkin math is metered: each line's work stays within LINE_WORK plus the one charge that
    crossed it (its tokens, or one operation: ~41,000 bits of operands plus 64), a line that reached
    the limit says so with a `limit` outcome, and a file's lines stop at its budget (overshot by at
    most one line) with one outcome that counts the rest."""
    most = equations.LINE_WORK + max(equations.TOKEN * equations.MAX_LINE, 64 + 41_000)
    budget = equations.Budget()
    outcomes = equations.check_text(text, budget)
    for line in text.splitlines():
        if len(line) > equations.MAX_LINE:
            continue
        found, cost = equations._line_outcomes(line)
        assert cost <= most, (line[:80], cost)
        if cost > equations.LINE_WORK:
            assert found and found[-1].status == "limit", (line[:80], found[-1:])
    assert budget.left >= -most
    summary = budget.outcome()
    assert (summary is None) == (not budget.skipped)
    return outcomes


def check_stated_cost(text: str) -> None:
    """A claim's number costs the same from the memory as the first time, and stays metered."""
    costs = []
    for _ in range(2):
        with metered(10**12) as meter, contextlib.suppress(lexer.NapkinError):
            equations.stated(text)
        costs.append(meter.spent)
    assert costs[0] == costs[1] <= equations.LINE_WORK + 50_000, (text[:80], costs)


# --- forged audit caches -----------------------------------------------------------------------


_KEEP: list[tempfile.TemporaryDirectory[str]] = []


@cache
def cache_bank() -> tuple[Path, engine.Report]:
    """A small bank (this repository's schema, four questions, one file that does not parse) and its
    uncached audit: what every cached audit over a forged cache must report."""
    home = tempfile.TemporaryDirectory(prefix="qbank-fuzz-cache-")  # removed when the process ends
    _KEEP.append(home)
    root = Path(home.name) / "bank"
    shutil.copytree(REPO / "schema", root / "schema")
    for question in sorted((REPO / "questions").rglob("*.yaml"))[:4]:
        target = root / question.relative_to(REPO)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(question, target)
    broken = root / "questions" / "cloud" / "compute" / "cloud-202611-0bad.yaml"
    broken.parent.mkdir(parents=True, exist_ok=True)
    broken.write_text("id: [unclosed\n", encoding="utf-8")
    return root, engine.audit(engine.Settings(cache=False), root)


@contextlib.contextmanager
def _own_cache_home() -> Iterator[Path]:
    """A fresh XDG_CACHE_HOME for one input, and a folder outside it where links point."""
    old = os.environ.get("XDG_CACHE_HOME")
    with tempfile.TemporaryDirectory(prefix="qbank-fuzz-xdg-") as home:
        os.environ["XDG_CACHE_HOME"] = str(Path(home) / "cache")
        (Path(home) / "outside").mkdir()
        try:
            yield Path(home)
        finally:
            if old is None:
                os.environ.pop("XDG_CACHE_HOME", None)
            else:
                os.environ["XDG_CACHE_HOME"] = old


def _plant(forgery: dict[str, Any], bank: Path, outside: Path) -> Path:
    """Put the forgery where qbank keeps this bank's cache; the database's path."""
    database = audit_cache.folder_of(bank) / "audit.sqlite3"
    database.parent.mkdir(parents=True, mode=0o700)
    kind = forgery["kind"]
    if kind == "bytes":
        database.write_bytes(forgery["bytes"])
    elif kind == "fifo":
        os.mkfifo(database)
    elif kind == "link":
        place = {
            "database": database,
            "folder": database.parent,
            "banks": database.parents[1],
            "qbank": database.parents[2],
        }[forgery["place"]]
        if place != database:
            shutil.rmtree(place)
        target = outside / "gone" if forgery["dangling"] else outside
        place.symlink_to(target, target_is_directory=place != database)
    else:
        _forge_database(database, forgery["base"], forgery["script"])
    return database


def _forge_database(database: Path, base: str, script: list[str]) -> None:
    db = sqlite3.connect(database)
    try:
        if base == "ours":
            db.executescript(f"{audit_cache._TABLES} PRAGMA user_version = {audit_cache.FORMAT};")
        elif base == "format-1":
            db.execute("CREATE TABLE files (key BLOB PRIMARY KEY, entry TEXT, shingles BLOB)")
        for statement in script:  # each as far as SQLite takes it: the forgery is what it kept
            with contextlib.suppress(sqlite3.Error):
                db.executescript(statement)
    finally:
        db.close()


def check_forged_cache(forgery: dict[str, Any]) -> None:
    bank, uncached = cache_bank()
    with _own_cache_home() as home:
        outside = home / "outside"
        database = _plant(forgery, bank, outside)
        for _ in range(2):  # the second reads what the first wrote
            report = engine.audit(engine.Settings(cache=True), bank)
            assert (report.findings, report.summary) == (uncached.findings, uncached.summary), forgery
        assert list(outside.iterdir()) == [], forgery  # nothing written through a link
        off = any(note.startswith("audit cache off") for note in report.notes)
        if not off:  # used: it is qbank's own database now, whatever it held
            assert not database.is_symlink(), forgery
            db = sqlite3.connect(database)
            try:
                assert audit_cache._schema(db) == audit_cache._ours(), forgery
            finally:
                db.close()
        else:
            assert forgery["kind"] in ("link", "fifo"), (forgery, report.notes)


# --- forged evidence ---------------------------------------------------------------------------


def read_evidence(where: str, line: bytes) -> None:
    """The committed evidence with `line` appended to `where`: never an exception or a hang, every
    problem placed inside the file, and a record contradicting its own outputs never used."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "evidence"
        shutil.copytree(EVIDENCE, root / "gpu")
        target = root / "gpu" / where
        target.write_bytes(target.read_bytes() + line + b"\n")
        lines = target.read_bytes().count(b"\n")
        resolve.load.cache_clear()
        loaded = resolve.load(root)
        for problem in loaded.problems:
            assert problem.path == target, problem  # only the forged file has problems
            assert 1 <= problem.line <= lines and problem.column >= 1, problem
        try:  # the oracle's own parse: the forged line may be a bomb for it too
            record = json.loads(line)
        except (ValueError, RecursionError):
            return
        usable = isinstance(record, dict) and evidence.shape_problem(record) is None and record.get("verdict")
        if usable and contradiction(record):  # the oracle: it contradicts its own outputs
            assert record not in loaded.records, "a record contradicting its own data was used"
        resolve.load.cache_clear()


# --- napkin math as authors write it (issue 25) ---------------------------------------------------


def check_running_chain(line: str, wrong: bool) -> None:
    """A chain that goes on after a stated value: all links `ok`, or one `arithmetic` on the last."""
    found = [o.status for o in equations.check_text(line)]
    assert found and found[-1] == ("arithmetic" if wrong else "ok"), (line, found)
    assert found[:-1] == ["ok"] * (len(found) - 1), (line, found)


def check_units_and_prose(line: str, right: bool, reframed: bool) -> None:
    """A right line is never an error (and `ok` when only plain words follow it); a wrong line is
    never `ok`, and only `unchecked` when words after it may change what it says."""
    statuses = {o.status for o in equations.check_text(line)}
    if right:
        assert statuses <= {"ok", "unchecked"}, (line, statuses)
        assert reframed or statuses == {"ok"}, (line, statuses)
    else:
        assert "ok" not in statuses, (line, statuses)
        assert not reframed or statuses <= {"unchecked"}, (line, statuses)


def check_readings(text: str, right: bool) -> None:
    """A line that agrees under one sensible reading passes; one off by a factor no reading explains
    is an `arithmetic` error (never `ok`, never a warning)."""
    found = [o.status for o in equations.check_text(text)]
    assert found, text
    assert found[-1] == ("ok" if right else "arithmetic"), (text, found)
