"""What an audit is asked to do (Settings), and a problem with how it was asked (UsageError)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from qbank.engine.views import TEXTS
from qbank.finding import Severity

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
    views: bool = False  # make each file's release view (exports: qbank/engine/views.py)
    texts: tuple[str, ...] = TEXTS  # of a view from the cache, the texts read (views.TEXTS); others ""


Progress = Callable[[Sequence[Path]], Iterable[Path]]
