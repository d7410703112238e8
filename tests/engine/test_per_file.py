"""check_document: the one per-file pipeline, and the counts its checks give back."""

from __future__ import annotations

from pathlib import Path

from qbank import engine, load
from qbank.checks.api import Context
from qbank.finding import Finding
from qbank.model.taxonomy import load_bank_tables
from tests.conftest import REPO, findings

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


def test_every_finding_of_a_file_comes_in_one_run() -> None:
    """Plain values YAML 1.1 reads otherwise no longer stop the file (issue 29): each is reported,
    and the file is checked on as YAML 1.2 reads it, so a bad title shows in the same run."""
    text = QUESTION.read_text(encoding="utf-8")
    text = text.replace(
        "status: published", "status: published\ncreated_at: 2026-11-27\nupdated_at: 2026-11-28"
    )
    title = next(line for line in text.splitlines() if line.startswith("title: "))
    text = text.replace(title, title.lower())
    found = findings(text)
    assert [f.name for f in found if f.name == "ambiguous-value"] == ["ambiguous-value"] * 2
    assert {f.line for f in found if f.name == "ambiguous-value"} == {
        n for n, line in enumerate(text.splitlines(), 1) if line.startswith(("created_at", "updated_at"))
    }
    assert "title-case" in {f.name for f in found}
