"""check_document: the one per-file pipeline, and the counts its checks give back."""

from __future__ import annotations

from pathlib import Path

from qbank import engine, load
from qbank.checks.api import Context
from qbank.finding import Finding
from qbank.model.taxonomy import load_bank_tables
from tests.conftest import REPO

QUESTION = REPO / "tests/examples/valid/arithmetic/cloud/precision/cloud-202611-e000.yaml"


def test_checks_give_their_counts_back_and_the_context_keeps_none() -> None:
    """The napkin-math check yields its counts with its findings: the same file checked twice with
    one Context gives the same tally (a count kept in the Context would double)."""
    tables = load_bank_tables(REPO / "schema")
    assert not isinstance(tables, Finding)
    document = load.from_path(QUESTION, str(QUESTION.relative_to(REPO)))
    assert isinstance(document, load.Document)
    context = Context(tables, REPO / "questions")
    first = engine.check_document(Path(QUESTION), document, context)[2]
    second = engine.check_document(Path(QUESTION), document, context)[2]
    assert first.equations > 0 and first.checked > 0
    assert first.counts() == second.counts()
