"""Tests of qbank/load/, one file per module; the two helpers they share."""

from __future__ import annotations

from qbank import load
from qbank.finding import Finding


def loaded(text: str) -> load.Document:
    """The Document of YAML text that must load."""
    document = load.parse(text, "q.yaml")
    assert isinstance(document, load.Document), document
    return document


def problem(text: str | bytes) -> Finding:
    """The one Finding of text (or bytes) that must not load."""
    result = load.from_bytes(text if isinstance(text, bytes) else text.encode(), "q.yaml")
    assert isinstance(result, Finding), result
    return result
