"""The audit pipeline: find files → load → validate → checks → select/ignore → sorted findings.

Nothing here prints or exits; the CLI formats the Report and turns it into an exit code.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

from qbank import load, memo, similarity
from qbank.checks import BANK_CHECKS, device
from qbank.checks.api import BankEntry, Context, MathTally
from qbank.checks.bank import entry_of
from qbank.engine.cache import Cache, unread
from qbank.engine.per_file import Result, keyed, sign
from qbank.engine.runner import cpus, in_two_processes, run_checks
from qbank.engine.select import selector
from qbank.engine.settings import OUTSIDE_A_BANK, Progress, Settings
from qbank.engine.targets import (
    Where,
    bank_wide_files,
    chosen_files,
    display_path,
    find_targets,
    link_roots,
    partial,
)
from qbank.engine.views import View
from qbank.finding import Finding, Severity
from qbank.model.taxonomy import BankTables, load_bank_tables


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
    views: list[tuple[str, View]] = field(default_factory=list)  # (path, release view) of each file: exports


def audit(settings: Settings, cwd: Path, progress: Progress = iter) -> Report:
    """Per-file checks on the chosen files, then the repo-wide checks.

    Which files the repo-wide checks see depends on the mode: with plain paths, only those files
    (a pre-commit batch never reads the rest of the bank); with --changed-since or --bank-only,
    every file of the bank, read but not checked one by one.
    """
    return _audit(settings, cwd, progress)


def _audit(settings: Settings, cwd: Path, progress: Progress) -> Report:
    memo.clear("run")  # what an earlier audit in this process read of files (its GPU evidence)
    bank, targets = find_targets(settings, cwd)
    keep = selector(settings.select, settings.ignore)
    notes = [] if bank else [OUTSIDE_A_BANK]
    tables, findings = _bank_tables(bank, cwd)
    context = Context(tables, bank / "questions" if bank else None)
    math = MathTally()
    files = chosen_files(settings, bank, targets)
    roots = link_roots(bank, targets)
    cache = Cache.open(bank, settings.cache, notes)
    try:
        whole_bank = bank is not None and targets == [bank / "questions"] and not partial(settings)
        results, views = _check_files(files, (cwd, roots), context, settings, cache, progress, whole_bank)
        entries = [r.entry for r in results if r.entry is not None]
        for result in results:
            findings += result.findings
            math.add_counts(*result.tally)
        questions, deleted = len(entries), sum(e.tombstone for e in entries)
        others = bank_wide_files(settings, bank, files)
        entries += _bank_entries(others, (cwd, roots), cache, findings)
        # not before: workers cannot take a database
        two = (settings.jobs or cpus()) > 1  # --jobs, else one process per CPU
        bank_context = replace(context, memory=cache, split=in_two_processes if two else None)
        for bank_check in BANK_CHECKS:
            findings += bank_check(entries, bank_context)
        if bank is not None and targets == [bank / "questions"]:  # a run over the whole bank
            findings += _evidence(bank, cwd)
    finally:
        if cache:
            cache.close()
    findings = sorted(f for f in findings if keep(f))
    summary = Summary(
        files=len(files),
        questions=questions,
        errors=sum(f.severity is Severity.ERROR for f in findings),
        warnings=sum(f.severity is Severity.WARNING for f in findings),
        deleted=deleted,
        schema=_origin(tables, cwd),
        math=math,
        bank_files=len(others),
    )
    return Report(findings, summary, notes, views)


def _check_files(
    files: list[Path],
    where: Where,
    context: Context,
    settings: Settings,
    cache: Cache | None,
    progress: Progress,
    whole_bank: bool,
) -> tuple[list[Result], list[tuple[str, View]]]:
    """Every file's result, in order: from the cache where its bytes are known, else checked (in
    worker processes for a large run); with `settings.views` (exports), every file's release view
    too, from the cache or made by checking the file again."""
    plan = cache.lookup(files, where) if cache else unread(files, where)
    known = cache.views(plan, settings.texts) if cache and settings.views else {}
    views: list[View | None] = [known.get(p.key) for p in plan.files] if settings.views else []
    for planned, view in zip(plan.files, views, strict=False):  # (views: one per file, or none)
        if view is None:
            planned.result = None  # checked again: its view is made with its checks
    todo = plan.todo()
    fresh = run_checks([plan.job(i) for i in todo], context, settings.jobs, progress, settings.views)
    made = []
    for i, (result, view) in zip(todo, fresh, strict=True):
        planned = plan.files[i]
        planned.result = keyed(result, planned.key)  # for the near-duplicate memory
        if view is not None:
            views[i] = view
            made.append((planned.key, view))
    results = plan.results()
    if cache:
        signed = sign(results) if len(files) > similarity.PAIRWISE_LIMIT else []
        cache.store(plan, results, sorted({*todo, *signed}), whole_bank, made)
    if not settings.views:
        return results, []
    return results, [(p.shown, view or View(None)) for p, view in zip(plan.files, views, strict=True)]


def _bank_entries(
    files: list[Path], where: Where, cache: Cache | None, findings: list[Finding]
) -> list[BankEntry]:
    """What the repo-wide rules need of files read only for them (--bank-only, --changed-since): a
    cached entry where the file's bytes are known, else the file loaded but not validated. A file
    they cannot read is an error finding."""
    plan = cache.lookup(files, where) if cache else unread(files, where)
    entries = []
    for file in plan.files:
        if file.result is not None and file.result.entry is not None:
            entries.append(file.result.entry)
            continue
        document = (
            load.from_path(file.path, file.shown)
            if file.data is None
            else load.from_read(file.data, file.shown)
        )
        if isinstance(document, Finding):
            findings.append(document)
        else:
            entries.append(entry_of(document))  # read for its id and text, not validated
    return entries


def _bank_tables(bank: Path | None, cwd: Path) -> tuple[BankTables | None, list[Finding]]:
    """The bank's taxonomy and title words, or the error finding that says why they are unusable."""
    loaded = load_bank_tables(bank / "schema" if bank else None)
    if isinstance(loaded, Finding):  # fail closed: an error, and the topic check has nothing to use
        return None, [replace(loaded, path=display_path(Path(loaded.path), cwd))]
    return loaded, []


def _evidence(bank: Path, cwd: Path) -> list[Finding]:
    """The bank's GPU evidence records (rule evidence-record), checked once, in runs over the whole
    bank (CI, --bank-only, --changed-since): replaying records imports numpy, which a
    pre-commit run on a few files must not pay (benchmarks/README.md, start-up). Claims still use only records that pass."""
    return list(device.evidence_record(bank / "evidence", lambda path: display_path(path, cwd)))


def _origin(tables: BankTables | None, cwd: Path) -> str:
    if tables is None:
        return "unusable"
    return tables.origin if tables.origin == "builtin" else display_path(Path(tables.origin), cwd)
