"""The one record every problem becomes, and the one function that turns findings into an exit code."""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass


class Severity(enum.StrEnum):
    ERROR = "error"
    WARNING = "warning"

    @property
    def rank(self) -> int:
        return 2 if self is Severity.ERROR else 1


@dataclass(frozen=True, order=True)
class Finding:
    """A problem at a place. Line and column are 1-based (1:1 for a problem with the whole file)."""

    path: str
    line: int
    column: int
    code: str
    name: str
    severity: Severity
    message: str
    question_id: str | None = None


def exit_code(findings: Iterable[Finding], fail_on: Severity) -> int:
    """0 when nothing is at or above `fail_on`, else 1 (usage and internal errors are 2, in the CLI)."""
    return 1 if any(f.severity.rank >= fail_on.rank for f in findings) else 0
