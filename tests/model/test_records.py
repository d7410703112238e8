"""Validation errors become findings at their place, with a suggestion for a mistyped key."""

from __future__ import annotations

from pathlib import Path

import pytest

from qbank import load
from qbank.model.records import validate
from tests.conftest import EXAMPLES

VALID = EXAMPLES / "valid" / "numeric-claim" / "cloud" / "precision" / "cloud-202611-e000.yaml"


@pytest.mark.parametrize(
    ("extra", "line", "message"),
    [
        (
            "human_reviewed:\n  stauts: verified\n",
            34,
            "unknown key 'human_reviewed.stauts'; did you mean 'status'?",
        ),
        ("chains:\n  - idd: x\n    position: 1\n", 34, "unknown key 'chains.0.idd'; did you mean 'id'?"),
    ],
)
def test_a_mistyped_key_inside_an_optional_block_gets_a_suggestion(
    extra: str, line: int, message: str
) -> None:
    # Found by fuzzing: the suggestion searched `HumanReview | None` for a model by searching the
    # same type again, forever (RecursionError, which crashed the audit).
    text = VALID.read_text(encoding="utf-8") + extra
    document = load.parse(text, "q.yaml")
    assert isinstance(document, load.Document)
    _, findings = validate(Path(VALID.name), document, None)
    assert [(f.name, f.line, f.message) for f in findings if f.name == "unknown-key"] == [
        ("unknown-key", line, message)
    ]
