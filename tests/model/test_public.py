"""The public record: what every export releases of a question, and its listing."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from qbank import load
from qbank.model import public
from qbank.model.records import validate
from qbank.model.taxonomy import load_bank_tables
from tests.conftest import EXAMPLES, REPO

VALID = sorted(p for p in (EXAMPLES / "valid").rglob("*.yaml") if "schema" not in p.parts)


def _question(path: Path):  # type: ignore[no-untyped-def]
    document = load.from_path(path, path.name)
    tables = load_bank_tables(REPO / "schema")
    record, findings = validate(path, document, tables)  # type: ignore[arg-type]
    assert record.question is not None, findings
    return record.question


@pytest.mark.parametrize("path", VALID, ids=lambda p: p.name)
def test_a_listing_holds_what_a_list_of_questions_shows_in_its_order(path: Path) -> None:
    record = public.public_record(_question(path), f"questions/{path.name}")
    row = dict(zip(public.LISTING, public.listing(record), strict=True))
    assert {key: row[key] for key in ("id", "title", "track", "level", "topic")} == {
        key: record[key] for key in ("id", "title", "track", "level", "topic")
    }
    assert row["body"].startswith(record["scenario"] + " ") and row["body"].endswith(
        " ".join([record["topic"], *record.get("tags", ())])
    )
    assert row["generated"] is bool(record.get("generator"))
    assert json.loads(public.facets(public.listing(record))) == [row[key] for key in public.FACETS]


def test_the_content_hash_covers_every_public_field_and_the_path() -> None:
    question = _question(VALID[0])
    record = public.public_record(question, "questions/a.yaml")
    rest = {k: v for k, v in record.items() if k != "content_hash"}
    assert record["content_hash"] == hashlib.sha256(public.canonical(rest)).hexdigest()
    assert "status" not in record and set(rest) - {"path"} <= set(public.PUBLIC_FIELDS)
    moved = public.public_record(question, "questions/b.yaml")
    assert moved["content_hash"] != record["content_hash"]


def test_script_json_holds_no_character_that_could_end_a_script_and_decodes_to_the_data() -> None:
    data = ["</script><script>alert(1)</script>", "line\u2028break\u2029", {"<": 1}]
    text = public.script_json(data)
    assert not {"<", "\u2028", "\u2029"} & set(text)
    assert json.loads(text) == data
