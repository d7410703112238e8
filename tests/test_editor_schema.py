"""schema/question.schema.json as editors use it: a valid 2020-12 schema that accepts every good
question and rejects structural mistakes (yaml-language-server validates with the same schema).

Prose rules (title case, markers, napkin math) are model-only by design: they need `qbank audit`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import EXAMPLES, REPO
from jsonschema import Draft202012Validator

from qbank import load
from qbank.finding import Finding

SCHEMA = json.loads((REPO / "schema" / "question.schema.json").read_text(encoding="utf-8"))
VALIDATOR = Draft202012Validator(SCHEMA)
GOOD = REPO / "questions" / "cloud" / "precision" / "cloud-202611-5e7a.yaml"  # with verify: claims


def _data(path: Path, text: str | None = None) -> dict[str, Any]:
    document = load.parse(text, str(path)) if text else load.from_path(path)
    assert not isinstance(document, Finding), document
    return document.data


def test_schema_is_valid_json_schema_2020_12() -> None:
    Draft202012Validator.check_schema(SCHEMA)
    assert SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"


def test_every_question_in_the_bank_and_every_valid_example_passes() -> None:
    examples = [f for f in (EXAMPLES / "valid").rglob("*.yaml") if "schema" not in f.parts]
    files = sorted((REPO / "questions").rglob("*.yaml")) + sorted(examples)
    failures = {f.name: [e.message for e in VALIDATOR.iter_errors(_data(f))] for f in files}
    assert {name: errors for name, errors in failures.items() if errors} == {}


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("level: L", "level: L9 #", "is not one of"),
        ("topic: ", "topic: no-such-topic #", "'no-such-topic' is not one of"),
        ("zone: ", "colour: blue\nzone: ", "Additional properties are not allowed ('colour' was unexpected)"),
        ("provenance: ", "provenance_: ", "'provenance' is a required property"),
        ("expected_time_minutes: ", "expected_time_minutes: '5' #", "'5' is not valid under any of"),
    ],
)
def test_structural_mistakes_are_rejected(old: str, new: str, message: str) -> None:
    text = GOOD.read_text(encoding="utf-8")
    assert old in text
    errors = [e.message for e in VALIDATOR.iter_errors(_data(GOOD, text.replace(old, new, 1)))]
    assert any(message in error for error in errors), errors


def test_topic_enum_is_the_banks_taxonomy() -> None:
    from qbank.model.taxonomy import load_bank_tables

    taxonomy = load_bank_tables(REPO / "schema")
    assert not isinstance(taxonomy, Finding)
    assert SCHEMA["properties"]["topic"]["enum"] == sorted(taxonomy.topics)


def test_every_question_passes_as_pyyaml_and_editors_read_it() -> None:
    """Editors and other tools read the files with a YAML 1.1 loader, where `expect_scale: {3: "8192"}`
    has the number 3 as a key and crashed PyYAML + jsonschema (issue 29): the audit now asks for such
    keys quoted (ambiguous-value), so every file reads the same to them as to qbank."""
    import yaml

    files = sorted((REPO / "questions").rglob("*.yaml"))
    failures = {}
    for file in files:
        data = yaml.load(file.read_bytes(), Loader=yaml.CSafeLoader)
        errors = [e.message for e in VALIDATOR.iter_errors(data)]
        if errors or data != _data(file):
            failures[file.name] = errors or ["reads otherwise than qbank reads it"]
    assert failures == {}
