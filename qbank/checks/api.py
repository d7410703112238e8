"""What the record and bank checks are given, and what they give back: the Context of an audit run,
its napkin-math and device-claim tally, and the BankEntry the repo-wide rules read per file.

The contract of a check, by scope (qbank/checks/__init__.py lists them):
    record check: (Record, Context) -> Iterator[Finding | MathTally], run on every loaded file (a
                  check that counts, as the napkin-math and device-claim checks do, yields its counts)
    bank check:   (Sequence[BankEntry], Context) -> Iterator[Finding], run once over the bank
Field rules (value -> Problem | None) live in qbank/model/fields/ and run inside the model.
This module imports nothing of qbank above the napkin and taxonomy layers, so the engine, the audit
cache and the generator can use these types without importing a check.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from qbank.model.taxonomy import BankTables
from qbank.napkin.equations import Outcome
from qbank.similarity import Split

KeyPair = tuple[bytes, bytes, float]  # two questions by their audit-cache keys, and their similarity


class Memory(Protocol):
    """Where the last near-duplicate search of a large bank is kept between audits (the audit cache)."""

    def recall(self) -> tuple[set[bytes], list[KeyPair]]:
        """The keys of the questions the last search covered, and the pairs it found among them."""
        ...

    def remember(self, keys: list[bytes], pairs: list[KeyPair]) -> None:
        """Keep a search: the keys it covered and every pair it found among them."""
        ...


@dataclass
class MathTally:
    """Counts for the audit summary: relations found, compared, and found wrong, and the device
    claims that the committed GPU evidence confirms (issue 26: a confirmed claim gives no finding,
    so without this count nothing in a report would show it)."""

    equations: int = 0
    checked: int = 0
    failed: int = 0
    device_claims_confirmed: int = 0

    def add_counts(self, equations: int, checked: int, failed: int, confirmed: int) -> None:
        self.equations += equations
        self.checked += checked
        self.failed += failed
        self.device_claims_confirmed += confirmed

    def counts(self) -> tuple[int, int, int, int]:
        return (self.equations, self.checked, self.failed, self.device_claims_confirmed)

    def add_tally(self, other: MathTally) -> None:
        self.add_counts(*other.counts())

    def add(self, outcome: Outcome) -> None:
        self.equations += 1
        self.checked += outcome.status in ("ok", "arithmetic", "unit-mismatch", "labels")
        self.failed += outcome.status in ("arithmetic", "unit-mismatch")


@dataclass(frozen=True)
class Context:
    """What record checks and repo-wide checks may consult besides the records themselves."""

    tables: BankTables | None  # None when the bank's schema/ files are unusable (a `taxonomy` error)
    questions_root: Path | None
    memory: Memory | None = None  # the audit cache, for the repo-wide checks only
    split: Split | None = None  # the runner's two-process confirmation, when the run may use two


@dataclass(frozen=True)
class BankEntry:
    """One loaded file, as the repo-wide rules see it: the little they need, which the audit cache
    keeps, so that a warm run re-reads no unchanged question."""

    path: str  # as findings show it
    question_id: str | None
    tombstone: bool
    id_at: tuple[int, int]  # 1-based line and column of the id's value
    scenario_at: tuple[int, int]
    shingles: bytes  # of title, scenario and question (similarity.shingles), packed by similarity.pack
    signature: bytes | None = None  # their MinHash signature (similarity.signatures), made for large banks
    key: bytes = b""  # the file's key in the audit cache; empty when the file is not in it
    content: bytes = b""  # a digest of the question and its answer (similarity.content_key), for copies
