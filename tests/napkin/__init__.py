"""Tests of qbank/napkin. `statuses` is what most of them assert on."""

from __future__ import annotations

from qbank.napkin.equations import check_text


def statuses(text: str) -> list[str]:
    """The status of each relation found in a line or block of napkin math, in order."""
    return [o.status for o in check_text(text)]
