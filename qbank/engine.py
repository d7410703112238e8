"""The audit pipeline: find files → load → validate → checks → select/ignore → sorted findings.

Nothing here prints or exits; the CLI formats the Report and turns it into an exit code.
"""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from qbank import similarity, source
from qbank.cache import Cache, Result, Unavailable
from qbank.changed import GitError, changed_files
from qbank.checks import BANK_CHECKS, RECORD_CHECKS, device
from qbank.checks.api import BankEntry, Context, MathTally
from qbank.checks.bank import entry_of
from qbank.finding import Finding, Severity
from qbank.source import Document
from qbank.taxonomy import NO_BANK, BankSchema, find_bank_root, load_bank_schema

if TYPE_CHECKING:  # the model (pydantic) is imported only when some file is not in the cache
    from qbank.records import Record

PARALLEL_MIN = 300  # files to check before worker processes pay for their start (benchmarks/README.md)

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
    cache: bool = False  # use and update the audit cache (outside the bank: cache.folder_of)
    jobs: int = 0  # worker processes for the per-file checks; 0: one per CPU for large runs
    records: bool = False  # keep every file's Record (exports): serial, and no cache


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
    return _audit(settings, cwd, progress)


def _audit(settings: Settings, cwd: Path, progress: Progress) -> Report:
    bank, targets = _targets(settings, cwd)
    keep = _selector(settings.select, settings.ignore)
    notes = [] if bank else [OUTSIDE_A_BANK]
    schema, findings = _bank_schema(bank, cwd)
    context = Context(schema, bank / "questions" if bank else None)
    files = _chosen_files(settings, bank, targets)
    roots = _link_roots(bank, targets)
    cache = None if settings.records else _open_cache(bank, settings, notes)
    try:
        whole_bank = bank is not None and targets == [bank / "questions"] and not _partial(settings)
        results, records = _check_files(files, (cwd, roots), context, settings, cache, progress, whole_bank)
        entries = [r.entry for r in results if r.entry is not None]
        for result in results:
            findings += result.findings
            context.math.add_counts(*result.tally)
        questions, deleted = len(entries), sum(e.tombstone for e in entries)
        others = _bank_wide_files(settings, bank, files)
        entries += _bank_entries(others, (cwd, roots), cache, findings)
        # not before: workers cannot take a database
        bank_context = replace(context, memory=cache, processes=settings.jobs or _cpus())
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
        pairs = [_check_file(*job, context) for job in zip(progress(files), shown, data, strict=True)]
        return [r for r, _ in pairs], [record for _, record in pairs if record is not None]
    todo = [i for i, k in enumerate(keys) if k not in known]
    fresh = iter(_run([(files[i], shown[i], data[i]) for i in todo], context, settings.jobs, progress))
    # fresh ones come in todo's order; each entry learns its key, for the near-duplicate memory
    results = [known[k] if k in known else _keyed(next(fresh), k) for k in keys]
    if cache:
        signed = _sign(results) if len(files) > similarity.PAIRWISE_LIMIT else []
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


def _folder(folder: Path, linked: bool) -> str:
    """Why a folder among the files is reported (source.iter_yaml_files lists such folders)."""
    if linked:
        return "a link to a folder: links to folders are not followed, so its files are not audited"
    if not os.access(folder, os.R_OK | os.X_OK):
        return "a folder that cannot be listed: its files are not audited"
    return "a folder named like a question file: not read"


def _link_roots(bank: Path | None, targets: list[Path]) -> tuple[str, ...]:
    """The folders a link in the audit may lead into: the bank, or outside one, what was asked for."""
    return tuple(os.path.realpath(folder) for folder in ([bank] if bank else targets))


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


def _partial(settings: Settings) -> bool:
    """Whether the per-file checks skip some files of the targets (--changed-since, --bank-only)."""
    return bool(settings.changed_since or settings.bank_only)


def _keyed(result: Result, key: bytes) -> Result:
    return (
        result if result.entry is None or not key else replace(result, entry=replace(result.entry, key=key))
    )


def _sign(results: list[Result]) -> list[int]:
    """Give each live entry without a MinHash signature one, all made in one batch (the near-duplicate
    search of a large bank needs them, and the cache keeps them); the indices of those signed."""
    unsigned = [
        (i, entry)
        for i, result in enumerate(results)
        if (entry := result.entry) and not entry.tombstone and entry.signature is None
    ]
    made = similarity.signatures([entry.shingles for _, entry in unsigned])
    for (i, entry), signature in zip(unsigned, made, strict=True):
        results[i] = replace(results[i], entry=replace(entry, signature=signature))
    return [i for i, _ in unsigned]


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


Job = tuple[Path, str, "bytes | Finding | None"]  # a file, as findings show it, and what _read gave


def _run(jobs: list[Job], context: Context, workers: int, progress: Progress) -> list[Result]:
    """Check the files serially, or in worker processes when there are many."""
    workers = workers or (_cpus() if len(jobs) >= PARALLEL_MIN else 1)
    if workers <= 1 or len(jobs) < 2:
        ticks = progress([file for file, _, _ in jobs])  # first in zip: the bar is drawn to its end
        return [_check_job(job, context) for _, job in zip(ticks, jobs, strict=True)]
    import concurrent.futures
    import itertools
    import multiprocessing

    import numpy  # noqa: F401  (imported once here, not in every worker: they sign entries)

    import qbank.records  # noqa: F401  (likewise)

    # fork where there is one: workers start in milliseconds with qbank already imported, and are
    # given the jobs without pickling them (initargs are pickled only where processes are spawned)
    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
    with concurrent.futures.ProcessPoolExecutor(
        workers, multiprocessing.get_context(method), initializer=_worker_init, initargs=(context, jobs)
    ) as pool:
        done = itertools.chain.from_iterable(pool.map(_worker_check, _chunks(len(jobs), workers)))
        return [result for _, result in zip(progress([file for file, _, _ in jobs]), done, strict=True)]


def _chunks(count: int, workers: int) -> list[range]:
    """Chunks of the jobs that shrink as the work runs out ("guided self-scheduling", Polychronopoulos
    and Kuck 1987): each takes a 1/(4 x workers) share of the jobs left, and no fewer than MIN_CHUNK,
    so the first are large (fewer results to send back) and the last small. With 16 equal chunks one
    worker could wait up to a whole chunk's time at the end (benchmarks/README.md, chunks)."""
    chunks = []
    first = 0
    while first < count:
        size = max(MIN_CHUNK, (count - first) // (workers * 4))
        chunks.append(range(first, min(first + size, count)))
        first += size
    return chunks


MIN_CHUNK = 16


def _cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


_WORKER: tuple[Context, list[Job]] | None = None


def _worker_init(context: Context, jobs: list[Job]) -> None:
    global _WORKER
    _WORKER = context, jobs


def _worker_check(chunk: range) -> list[Result]:
    """Some files checked, and their entries signed in one batch: a run this large searches for
    near-duplicates with MinHash, and signing here keeps that work off the parent's serial tail."""
    assert _WORKER is not None
    context, jobs = _WORKER
    results = [_check_job(jobs[i], context) for i in chunk]
    _sign(results)
    return results


def _check_job(job: Job, context: Context) -> Result:
    return _check_file(*job, context)[0]


def _targets(settings: Settings, cwd: Path) -> tuple[Path | None, list[Path]]:
    """The bank the run belongs to, and the files and folders it was asked to check."""
    targets = [questions_of(p if p.is_absolute() else cwd / p) for p in settings.paths]
    for target in targets:
        if not target.exists() and not target.is_symlink():
            raise UsageError(f"no such file or folder: {target}")
    bank = find_bank_root(targets[0] if targets else cwd)
    if bank is None and _partial(settings):
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


def _evidence(bank: Path, cwd: Path) -> list[Finding]:
    """The bank's GPU evidence records (rule evidence-record), checked once, in runs over the whole
    bank (CI, --bank-only, --changed-since): replaying records imports numpy, which a
    pre-commit run on a few files must not pay (benchmarks/README.md, start-up). Claims still use only records that pass."""
    return list(device.evidence_record(bank / "evidence", lambda path: display_path(path, cwd)))


def _chosen_files(settings: Settings, bank: Path | None, targets: list[Path]) -> list[Path]:
    """The files that get the per-file checks."""
    if settings.bank_only:
        return []
    if settings.changed_since is None:
        return _sorted(_files(targets))
    assert bank is not None  # _targets refuses --changed-since outside a bank
    try:
        changed = changed_files(bank, settings.changed_since)
    except GitError as exc:
        raise UsageError(str(exc)) from None
    return [f for f in changed if f.suffix in source.YAML_SUFFIXES and any(_within(f, t) for t in targets)]


def _bank_wide_files(settings: Settings, bank: Path | None, checked: list[Path]) -> list[Path]:
    """Files read only so that the repo-wide rules see the whole bank."""
    if bank is None or not _partial(settings):
        return []
    done = set(checked)
    return [f for f in _sorted(source.iter_yaml_files(bank / "questions")) if f not in done]


def _sorted(files: Iterable[Path]) -> list[Path]:
    """Each file once, in the order of their parts (the order of Path objects on POSIX), by their text
    with the separator made the lowest character (`a/b` before `a-b`, as ("a", "b") before ("a-b",)).
    Hashing and comparing Path objects was a visible share of a warm audit (benchmarks/README.md,
    paths); the text is made once and kept by the Path, which display_path and the reads use."""
    unique = {str(file): file for file in files}
    return [unique[text] for text in sorted(unique, key=lambda text: text.replace(os.sep, "\0"))]


def _within(file: Path, target: Path) -> bool:
    return file == target or file.is_relative_to(target)


def _origin(schema: BankSchema | None, cwd: Path) -> str:
    if schema is None:
        return "unusable"
    return schema.origin if schema.origin == "builtin" else display_path(Path(schema.origin), cwd)


def _check_file(
    file: Path, shown: str, data: bytes | Finding | None, context: Context
) -> tuple[Result, Record | None]:
    """One file through load, validation and the record checks (`data`: what source.read gave, or
    None to read it here)."""
    document = source.load(file, shown) if data is None else source.load_read(data, shown)
    if isinstance(document, Finding):
        return Result([document], None, (0, 0, 0, 0)), None
    record, findings, tally = check_document(file, document, context)
    return Result(findings, entry_of(document), tally.counts()), record


def check_document(
    path: Path, document: Document, context: Context
) -> tuple[Record, list[Finding], MathTally]:
    """A loaded file through the model and every record check, and its own tally: the one per-file
    pipeline, which the audit, `qbank generate` and the tests' `findings()` helper all run."""
    from qbank.records import validate

    mine = replace(context, math=MathTally())  # this file's napkin-math and claim counts
    record, findings = validate(path, document, context.schema)
    for check in RECORD_CHECKS:
        findings += check(record, mine)
    return record, findings, mine.math


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
    text, inside = str(file), str(cwd).rstrip("/") + "/"
    if os.sep == "/" and text.startswith(inside):  # what relative_to gives, without its parsing
        return text[len(inside) :]
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
    from qbank import catalog  # the model and every rule module: only when --select or --ignore names one

    every = catalog.all_rules()
    codes = {r.code for r in every if r.name == token.lower() or r.code.startswith(token.upper())}
    if not codes:
        raise UsageError(f"unknown rule {token!r} (see `qbank explain --list`)")
    return codes
