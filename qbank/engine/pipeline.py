"""The audit pipeline: find files → load → validate → checks → select/ignore → sorted findings.

Nothing here prints or exits; the CLI formats the Report and turns it into an exit code.
"""

from __future__ import annotations

import os
import stat
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from qbank import similarity, source
from qbank.cache import Cache, Result, Unavailable
from qbank.checks import BANK_CHECKS, device
from qbank.checks.api import BankEntry, Context, MathTally
from qbank.checks.bank import entry_of
from qbank.engine.per_file import check_file, keyed, sign
from qbank.engine.runner import cpus, in_two_processes, run_checks
from qbank.engine.select import selector
from qbank.engine.settings import OUTSIDE_A_BANK, Progress, Settings
from qbank.engine.targets import (
    bank_wide_files,
    chosen_files,
    display_path,
    find_targets,
    link_roots,
    partial,
)
from qbank.finding import Finding, Severity
from qbank.taxonomy import BankSchema, load_bank_schema

if TYPE_CHECKING:  # the model (pydantic) is imported only when some file is not in the cache
    from qbank.records import Record


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


def audit(settings: Settings, cwd: Path, progress: Progress = iter) -> Report:
    """Per-file checks on the chosen files, then the repo-wide checks.

    Which files the repo-wide checks see depends on the mode: with plain paths, only those files
    (a pre-commit batch never reads the rest of the bank); with --changed-since or --bank-only,
    every file of the bank, read but not checked one by one.
    """
    return _audit(settings, cwd, progress)


def _audit(settings: Settings, cwd: Path, progress: Progress) -> Report:
    bank, targets = find_targets(settings, cwd)
    keep = selector(settings.select, settings.ignore)
    notes = [] if bank else [OUTSIDE_A_BANK]
    schema, findings = _bank_schema(bank, cwd)
    context = Context(schema, bank / "questions" if bank else None)
    files = chosen_files(settings, bank, targets)
    roots = link_roots(bank, targets)
    cache = None if settings.records else _open_cache(bank, settings, notes)
    try:
        whole_bank = bank is not None and targets == [bank / "questions"] and not partial(settings)
        results, records = _check_files(files, (cwd, roots), context, settings, cache, progress, whole_bank)
        entries = [r.entry for r in results if r.entry is not None]
        for result in results:
            findings += result.findings
            context.math.add_counts(*result.tally)
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
        schema=_origin(schema, cwd),
        math=context.math,
        bank_files=len(others),
    )
    return Report(findings, summary, notes, records)


def _check_files(
    files: list[Path],
    where: Where,
    context: Context,
    settings: Settings,
    cache: Cache | None,
    progress: Progress,
    whole_bank: bool,
) -> tuple[list[Result], list[Record]]:
    """Every file's result, in order: from the cache where its bytes are known, else checked (in
    worker processes for a large run). Only a run over the whole bank knows which cache entries no
    file has any more, so only such a run prunes them (a pre-commit run on one file must not)."""
    shown, data, keys, known, statuses = _read(files, where, cache)
    if settings.records:
        pairs = [check_file(*job, context) for job in zip(progress(files), shown, data, strict=True)]
        return [r for r, _ in pairs], [record for _, record in pairs if record is not None]
    todo = [i for i, k in enumerate(keys) if k not in known]
    fresh = iter(run_checks([(files[i], shown[i], data[i]) for i in todo], context, settings.jobs, progress))
    # fresh ones come in todo's order; each entry learns its key, for the near-duplicate memory
    results = [known[k] if k in known else keyed(next(fresh), k) for k in keys]
    if cache:
        signed = sign(results) if len(files) > similarity.PAIRWISE_LIMIT else []
        live = set(keys) if whole_bank else None
        cache.put(((keys[i], results[i]) for i in sorted({*todo, *signed}) if keys[i]), live, statuses)
    return results, []


Where = tuple[Path, tuple[str, ...]]  # the working directory findings are shown from; link roots (_stat)


class _Reading(NamedTuple):
    """What _read gave: each file's displayed path, bytes (None: not read here; a Finding: why they
    cannot be read) and cache key (empty without one); the cached results of the keys the cache
    knows; and the (status, key) pairs of files read whose status the cache may keep."""

    shown: list[str]
    data: list[bytes | Finding | None]
    keys: list[bytes]
    known: dict[bytes, Result]
    statuses: list[tuple[bytes, bytes]]


def _read(files: list[Path], where: Where, cache: Cache | None) -> _Reading:
    """A file that is not a regular file, or a link out of the bank, is refused unread (a Finding).
    Without a cache nothing else is read here: a file is read where it is checked, in a worker
    process for a large run. With one, a file whose status (see Cache.status) the cache knows is not
    read unless the cache has lost the result of its key; every other file is read and its key made."""
    cwd, roots = where
    shown = [display_path(f, cwd) for f in files]
    settled = time.time_ns() - SETTLED_NS
    # before reading: a change after the stat changes it again
    stats = [_stat(f, d, roots) for f, d in zip(files, shown, strict=True)]
    refused: list[bytes | Finding | None] = [s if isinstance(s, Finding) else None for s in stats]
    if cache is None:
        return _Reading(shown, refused, [b""] * len(files), {}, [])
    statuses = [
        cache.status(d, s) if isinstance(s, os.stat_result) else b""
        for d, s in zip(shown, stats, strict=True)
    ]
    keys_of = cache.keys_of(statuses)
    keys = [keys_of.get(s, b"") for s in statuses]
    known = cache.get([k for k in keys if k])
    data: list[bytes | Finding | None] = [None] * len(files)
    learnt = []
    for i, key in enumerate(keys):
        if key in known:
            continue
        data[i] = raw = refused[i] or source.read(files[i], shown[i])
        keys[i] = key = cache.key(shown[i], raw) if isinstance(raw, bytes) else b""
        if key and isinstance(status := stats[i], os.stat_result) and status.st_mtime_ns < settled:
            learnt.append((statuses[i], key))
    known |= cache.get([keys[i] for i, raw in enumerate(data) if isinstance(raw, bytes)])
    return _Reading(shown, data, keys, known, learnt)


SETTLED_NS = 2_000_000_000
"""A file's status is kept only when it was last changed this long before the audit began: a
change within the same tick of a coarse file clock (2 s on FAT) can leave mtime as it was (the
"racy" case of git's index, Documentation/technical/racy-git.txt)."""


def _stat(file: Path, shown: str, roots: tuple[str, ...]) -> os.stat_result | Finding | None:
    """A regular file's status; a Finding for what must not be read: a folder, FIFO, socket or device
    named *.yaml (opening a FIFO blocks until someone writes to it), or a link leading out of
    `roots` (a pull request's link to ~/.ssh/id_rsa would show its text in the findings). None: it
    cannot be examined, and reading it will say why."""
    try:
        status = os.lstat(file)
        linked = stat.S_ISLNK(status.st_mode)
        if linked:
            target = os.path.realpath(file)
            if not any(target == root or target.startswith(root + os.sep) for root in roots):
                return source.unreadable_file(shown, f"a link to {target}, outside the bank: not read")
            status = os.stat(file)
    except OSError:
        return None
    if stat.S_ISDIR(status.st_mode):
        return source.unreadable_file(shown, _folder(file, linked))
    if not stat.S_ISREG(status.st_mode):
        return source.unreadable_file(shown, "not a regular file (a FIFO, socket or device): not read")
    return status


def _bank_entries(
    files: list[Path], where: Where, cache: Cache | None, findings: list[Finding]
) -> list[BankEntry]:
    """What the repo-wide rules need of files read only for them (--bank-only, --changed-since): a
    cached entry where the file's bytes are known, else the file loaded but not validated. A file
    they cannot read is an error finding."""
    shown, data, keys, known, _ = _read(files, where, cache)
    entries = []
    for file, path, raw, key in zip(files, shown, data, keys, strict=True):
        cached = known[key].entry if key in known else None
        if cached is not None:
            entries.append(cached)
            continue
        document = source.load(file, path) if raw is None else source.load_read(raw, path)
        if isinstance(document, Finding):
            findings.append(document)
        else:
            entries.append(entry_of(document))  # read for its id and text, not validated
    return entries


def _open_cache(bank: Path | None, settings: Settings, notes: list[str]) -> Cache | None:
    """The audit cache, or None: not asked for, outside a bank, or refused (a link or another user's
    folder on its way, see qbank/cache.py), and then a note says why and the audit runs uncached."""
    if not settings.cache or bank is None:
        return None
    try:
        return Cache(bank)
    except Unavailable as exc:
        notes.append(str(exc))
        return None


def _bank_schema(bank: Path | None, cwd: Path) -> tuple[BankSchema | None, list[Finding]]:
    """The bank's taxonomy and title words, or the error finding that says why they are unusable."""
    loaded = load_bank_schema(bank / "schema" if bank else None)
    if isinstance(loaded, Finding):  # fail closed: an error, and the topic check has nothing to use
        return None, [replace(loaded, path=display_path(Path(loaded.path), cwd))]
    return loaded, []


def _evidence(bank: Path, cwd: Path) -> list[Finding]:
    """The bank's GPU evidence records (rule evidence-record), checked once, in runs over the whole
    bank (CI, --bank-only, --changed-since): replaying records imports numpy, which a
    pre-commit run on a few files must not pay (benchmarks/README.md, start-up). Claims still use only records that pass."""
    return list(device.evidence_record(bank / "evidence", lambda path: display_path(path, cwd)))


def _origin(schema: BankSchema | None, cwd: Path) -> str:
    if schema is None:
        return "unusable"
    return schema.origin if schema.origin == "builtin" else display_path(Path(schema.origin), cwd)


def _folder(folder: Path, linked: bool) -> str:
    """Why a folder among the files is reported (source.iter_yaml_files lists such folders)."""
    if linked:
        return "a link to a folder: links to folders are not followed, so its files are not audited"
    if not os.access(folder, os.R_OK | os.X_OK):
        return "a folder that cannot be listed: its files are not audited"
    return "a folder named like a question file: not read"
