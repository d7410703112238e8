"""The per-file pipeline: a loaded file through the model and every record check (check_document),
which the audit, `qbank generate` and the tests all run."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from qbank import load, similarity
from qbank.checks import RECORD_CHECKS
from qbank.checks.api import BankEntry, Context, MathTally
from qbank.checks.bank import entry_of
from qbank.finding import Finding
from qbank.load import Document

if TYPE_CHECKING:  # the model (pydantic) is imported only when some file is not in the cache
    from qbank.model.records import Record


@dataclass(frozen=True)  # no slots: a slotted dataclass pickles through Python-level get/setstate
class Result:
    """What one file gave: its findings, its entry for the repo-wide rules (None when it could not be
    loaded) and its counts (equations, checked, failed, device claims confirmed)."""

    findings: list[Finding]
    entry: BankEntry | None
    tally: tuple[int, int, int, int]


def check_file(
    file: Path, shown: str, data: bytes | Finding | None, context: Context
) -> tuple[Result, Record | None]:
    """One file through load, validation and the record checks (`data`: what load.read gave, or
    None to read it here)."""
    ambiguous: list[load.Loc] = []  # plain values YAML 1.1 reads otherwise: reported, and read on
    document = (
        load.from_path(file, shown, ambiguous) if data is None else load.from_read(data, shown, ambiguous)
    )
    if isinstance(document, Finding):
        return Result([document], None, (0, 0, 0, 0)), None
    record, findings, tally = check_document(file, document, context)
    findings += load.ambiguous_values(document, ambiguous)
    return Result(findings, entry_of(document), tally.counts()), record


def check_document(
    path: Path, document: Document, context: Context
) -> tuple[Record, list[Finding], MathTally]:
    """A loaded file through the model and every record check, and its own tally: the one per-file
    pipeline, which the audit, `qbank generate` and the tests' `findings()` helper all run."""
    from qbank.model.records import validate  # pydantic: only when some file is not in the cache

    record, findings = validate(path, document, context.tables)
    tally = MathTally()  # this file's napkin-math and device-claim counts
    for check in RECORD_CHECKS:
        for found in check(record, context):
            if isinstance(found, MathTally):
                tally.add_tally(found)
            else:
                findings.append(found)
    return record, findings, tally


def keyed(result: Result, key: bytes) -> Result:
    return (
        result if result.entry is None or not key else replace(result, entry=replace(result.entry, key=key))
    )


def sign(results: list[Result]) -> list[int]:
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
