"""The audit pipeline: find files → load → validate → checks → select/ignore → sorted findings.

Nothing here prints or exits; the CLI formats the Report and turns it into an exit code.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from qbank import rules, source
from qbank.changed import GitError, changed_files
from qbank.checks import BANK_CHECKS, RECORD_CHECKS
from qbank.checks.arithmetic import MathTally
from qbank.finding import Finding, Severity
from qbank.taxonomy import NO_BANK, BankSchema, find_bank_root, load_bank_schema
from qbank.validate import Record, validate

OUTSIDE_A_BANK = (
    "not inside a bank (no questions/ and schema/ above it): using the taxonomy shipped with qbank"
)


class UsageError(Exception):
    """A problem with how qbank was called (exit 2), not with a question."""


@dataclass(frozen=True)
class Settings:
    paths: tuple[Path, ...] = ()
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    fail_on: Severity = Severity.ERROR
    changed_since: str | None = None  # a git ref: per-file checks only on files changed since it
    bank_only: bool = False  # only the repo-wide rules, over the whole bank


@dataclass(frozen=True)
class Context:
    """What record checks may consult besides the record itself."""

    schema: BankSchema | None  # None when the bank's schema files are unusable (a `taxonomy` error)
    questions_root: Path | None
    math: MathTally = field(default_factory=MathTally)  # filled in by the arithmetic check


@dataclass(frozen=True)
class Summary:
    files: int  # files given the per-file checks
    questions: int
    errors: int
    warnings: int
    deleted: int
    schema: str  # where topics and title words came from: a folder, or "builtin"
    math: MathTally  # napkin-math equations found, checked and failed
    bank_files: int = 0  # files read only for the repo-wide rules (--changed-since, --bank-only)


@dataclass(frozen=True)
class Report:
    findings: list[Finding]
    summary: Summary
    notes: list[str] = field(default_factory=list)
    records: list[Record] = field(default_factory=list)  # every file read; exports take the validated ones


Progress = Callable[[Sequence[Path]], Iterable[Path]]


def audit(settings: Settings, cwd: Path, progress: Progress = iter) -> Report:
    """Per-file checks on the chosen files, then the repo-wide checks.

    Which files the repo-wide checks see depends on the mode: with plain paths, only those files
    (a pre-commit batch never reads the rest of the bank); with --changed-since or --bank-only,
    every file of the bank, read but not checked one by one.
    """
    bank, targets = _targets(settings, cwd)
    keep = _selector(settings.select, settings.ignore)
    notes = [] if bank else [OUTSIDE_A_BANK]
    schema, findings = _bank_schema(bank, cwd)
    context = Context(schema, bank / "questions" if bank else None)
    files = _chosen_files(settings, bank, targets)
    records = []
    for file in progress(files):
        record, file_findings = _check_file(file, cwd, context)
        findings += file_findings
        if record is not None:
            records.append(record)
    questions, deleted = len(records), sum(r.tombstone for r in records)
    others = _bank_wide_files(settings, bank, files)
    for file in others:
        document = source.load(file, display_path(file, cwd))
        if isinstance(document, Finding):  # a file the repo-wide rules cannot read is an error
            findings.append(document)
        else:
            records.append(Record(file, document, None))  # read for its id, not validated
    for bank_check in BANK_CHECKS:
        findings += bank_check(records)
    findings = sorted(f for f in findings if keep(f))
    summary = Summary(
        files=len(files),
        questions=questions,
        errors=sum(f.severity is Severity.ERROR for f in findings),
        warnings=sum(f.severity is Severity.WARNING for f in findings),
        deleted=deleted,
        schema=_origin(schema, cwd),
        math=context.math,
        bank_files=len(others),
    )
    return Report(findings, summary, notes, records)


def _targets(settings: Settings, cwd: Path) -> tuple[Path | None, list[Path]]:
    """The bank the run belongs to, and the files and folders it was asked to check."""
    targets = [questions_of(p if p.is_absolute() else cwd / p) for p in settings.paths]
    for target in targets:
        if not target.exists() and not target.is_symlink():
            raise UsageError(f"no such file or folder: {target}")
    bank = find_bank_root(targets[0] if targets else cwd)
    if bank is None and (settings.changed_since or settings.bank_only):
        raise UsageError(f"--changed-since and --bank-only need a bank. {NO_BANK}")
    if targets:
        return bank, targets
    if bank is None:
        raise UsageError(NO_BANK)
    return bank, [bank / "questions"]


def _bank_schema(bank: Path | None, cwd: Path) -> tuple[BankSchema | None, list[Finding]]:
    """The bank's taxonomy and title words, or the error finding that says why they are unusable."""
    loaded = load_bank_schema(bank / "schema" if bank else None)
    if isinstance(loaded, Finding):  # fail closed: an error, and the topic check has nothing to use
        return None, [replace(loaded, path=display_path(Path(loaded.path), cwd))]
    return loaded, []


def _chosen_files(settings: Settings, bank: Path | None, targets: list[Path]) -> list[Path]:
    """The files that get the per-file checks."""
    if settings.bank_only:
        return []
    if settings.changed_since is None:
        return sorted(set(_files(targets)))
    assert bank is not None  # _targets refuses --changed-since outside a bank
    try:
        changed = changed_files(bank, settings.changed_since)
    except GitError as exc:
        raise UsageError(str(exc)) from None
    return [f for f in changed if f.suffix in source.YAML_SUFFIXES and any(_within(f, t) for t in targets)]


def _bank_wide_files(settings: Settings, bank: Path | None, checked: list[Path]) -> list[Path]:
    """Files read only so that the repo-wide rules see the whole bank."""
    if bank is None or not (settings.bank_only or settings.changed_since):
        return []
    done = set(checked)
    return [f for f in sorted(set(source.iter_yaml_files(bank / "questions"))) if f not in done]


def _within(file: Path, target: Path) -> bool:
    return file == target or file.is_relative_to(target)


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


def questions_of(target: Path) -> Path:
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
