"""The question model: fields that may be left empty."""

from __future__ import annotations

from pathlib import Path

import pytest

from qbank import load
from qbank.model.records import validate
from qbank.model.taxonomy import BankTables, load_bank_tables
from tests.conftest import EXAMPLES, REPO

VALID = EXAMPLES / "valid" / "numeric-claim" / "cloud" / "precision" / "cloud-202611-e000.yaml"


@pytest.mark.parametrize(
    ("field", "indent"), [("question", ""), ("common_mistake", "  "), ("napkin_math", "  ")]
)
def test_an_optional_prose_field_left_empty_is_absent(field: str, indent: str) -> None:
    # Found by fuzzing: `question:` with no value is null, and its content rule took len(None)
    # (TypeError, which crashed the audit).
    lines = VALID.read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"{indent}{field}:"))
    end = next(i for i in range(start + 1, len(lines)) if not lines[i].startswith(indent + "  "))
    text = "\n".join([*lines[:start], f"{indent}{field}:", *lines[end:]]) + "\n"
    document = load.parse(text, "q.yaml")
    assert isinstance(document, load.Document)
    schema = load_bank_tables(REPO / "schema")
    assert isinstance(schema, BankTables)
    record, findings = validate(Path(VALID.name), document, schema)
    assert findings == [] and record.question is not None
