"""The audit pipeline: find files → load → validate → checks → select/ignore → sorted findings.

Nothing here prints or exits; the CLI formats the Report and turns it into an exit code.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from qbank import rules, source
from qbank.checks import BANK_CHECKS, RECORD_CHECKS
from qbank.checks.arithmetic import MathTally
from qbank.finding import Finding, Severity
from qbank.taxonomy import NO_BANK, BankSchema, find_bank_root, load_bank_schema
from qbank.validate import Record, validate


class UsageError(Exception):
    """A problem with how qbank was called (exit 2), not with a question."""


@dataclass(frozen=True)
class Settings:
    paths: tuple[Path, ...] = ()
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    fail_on: Severity = Severity.ERROR


@dataclass(frozen=True)
class Context:
    """What record checks may consult besides the record itself."""

    schema: BankSchema | None  # None when the bank's schema files are unusable (a `taxonomy` error)
    questions_root: Path | None
    math: MathTally = field(default_factory=MathTally)  # filled in by the arithmetic check


@dataclass(frozen=True)
class Summary:
    files: int
    questions: int
    errors: int
    warnings: int
    deleted: int
    schema: str  # where topics and title words came from: a folder, or "builtin"
    math: MathTally  # napkin-math equations found, checked and failed


@dataclass(frozen=True)
class Report:
    findings: list[Finding]
    summary: Summary
    notes: list[str] = field(default_factory=list)


def audit(settings: Settings, cwd: Path) -> Report:
    targets = [_questions_of(p if p.is_absolute() else cwd / p) for p in settings.paths]
    for target in targets:
        if not target.exists() and not target.is_symlink():
            raise UsageError(f"no such file or folder: {target}")
    bank = find_bank_root(targets[0] if targets else cwd)
    if not targets:
        if bank is None:
            raise UsageError(NO_BANK)
        targets = [bank / "questions"]
    keep = _selector(settings.select, settings.ignore)
    notes = []
    schema_dir = bank / "schema" if bank else None
    if schema_dir is None:
        notes.append(
            "not inside a bank (no questions/ and schema/ above it): using the taxonomy shipped with qbank"
        )
    loaded = load_bank_schema(schema_dir)
    findings: list[Finding] = []
    schema: BankSchema | None = None
    if isinstance(loaded, Finding):  # fail closed: an error, and the topic check has nothing to use
        findings.append(replace(loaded, path=display_path(Path(loaded.path), cwd)))
    else:
        schema = loaded
    context = Context(schema, bank / "questions" if bank else None)
    files = sorted(set(_files(targets)))
    records = []
    for file in files:
        record, file_findings = _check_file(file, cwd, context)
        findings += file_findings
        if record is not None:
            records.append(record)
    for bank_check in BANK_CHECKS:
        findings += bank_check(records)
    findings = sorted(f for f in findings if keep(f))
    summary = Summary(
        files=len(files),
        questions=len(records),
        errors=sum(f.severity is Severity.ERROR for f in findings),
        warnings=sum(f.severity is Severity.WARNING for f in findings),
        deleted=sum(r.tombstone for r in records),
        schema=_origin(schema, cwd),
        math=context.math,
    )
    return Report(findings, summary, notes)


def _origin(schema: BankSchema | None, cwd: Path) -> str:
    if schema is None:
        return "unusable"
    return schema.origin if schema.origin == "builtin" else display_path(Path(schema.origin), cwd)


def _check_file(file: Path, cwd: Path, context: Context) -> tuple[Record | None, list[Finding]]:
    document = source.load(file, display_path(file, cwd))
    if isinstance(document, Finding):
        return None, [document]
    record, findings = validate(file, document, context.schema)
    for check in RECORD_CHECKS:
        findings += check(record, context)
    return record, findings


def _questions_of(target: Path) -> Path:
    """A bank's root folder stands for its questions/ (its schema/ holds no questions)."""
    if (target / "questions").is_dir() and (target / "schema").is_dir():
        return target / "questions"
    return target


def _files(targets: Iterable[Path]) -> Iterator[Path]:
    for target in targets:
        if target.is_dir():
            yield from source.iter_yaml_files(target)
        else:
            yield target


def display_path(file: Path, cwd: Path) -> str:
    """A path as findings show it: relative to the working directory when inside it."""
    try:
        return file.relative_to(cwd).as_posix()
    except ValueError:
        return file.as_posix()


def _selector(select: Sequence[str], ignore: Sequence[str]) -> Callable[[Finding], bool]:
    """A predicate over findings from --select/--ignore; each entry is a rule name, a code, or a
    code prefix such as QB1 (all schema and content rules)."""
    chosen = [_matching(token) for token in select]
    dropped = [_matching(token) for token in ignore]

    def keep(finding: Finding) -> bool:
        if chosen and not any(finding.code in codes for codes in chosen):
            return False
        return not any(finding.code in codes for codes in dropped)

    return keep


def _matching(token: str) -> set[str]:
    every = rules.all_rules()
    codes = {r.code for r in every if r.name == token.lower() or r.code.startswith(token.upper())}
    if not codes:
        raise UsageError(f"unknown rule {token!r} (see `qbank explain --list`)")
    return codes
