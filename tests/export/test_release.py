from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import jsonschema

from qbank.export import release, release_schema
from qbank.model import public
from tests.conftest import REPO, run_cli
from tests.export.conftest import RELEASED, release_of


def test_policy_releases_published_valid_questions_without_errors(bank: Path) -> None:
    chosen = release_of(bank)
    assert [e.id for e in chosen.entries] == RELEASED  # sorted by id
    assert chosen.withheld == {"does not validate": 1, "has errors": 1, "status draft": 1}


def test_content_hash_is_the_hash_of_the_canonical_record(bank: Path) -> None:
    for entry in release_of(bank).entries:
        data = dict(entry.data)
        stated = data.pop("content_hash")
        assert stated == hashlib.sha256(public.canonical(data)).hexdigest()
        assert "status" not in data and data["path"].startswith("questions/")


def test_hashes_change_with_content_and_only_there(tmp_path: Path, bank: Path) -> None:
    copy = tmp_path / "bank"
    shutil.copytree(bank, copy)
    before = release_of(copy)
    edited = copy / "questions" / "edge" / "precision" / "edge-202611-e001.yaml"
    edited.write_text(edited.read_text().replace("A zeppelin fleet", "An airship fleet"))
    after = release_of(copy)
    changed = {a.id for a, b in zip(before.entries, after.entries, strict=True) if a.data != b.data}
    assert changed == {"edge-202611-e001"}
    assert before.release_hash != after.release_hash
    assert release_of(copy).release_hash == after.release_hash


def test_json_export_is_byte_reproducible_and_matches_its_schema(tmp_path: Path, bank: Path) -> None:
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    assert run_cli("export", "json", "--out", str(first), cwd=bank).exit_code == 0
    assert run_cli("export", "json", "--out", str(second), cwd=bank).exit_code == 0
    assert first.read_bytes() == second.read_bytes()
    doc = json.loads(first.read_text(encoding="utf-8"))
    schema = json.loads((REPO / "schema" / "release.schema.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(schema).validate(doc)
    assert [q["id"] for q in doc["questions"]] == RELEASED
    assert doc["count"] == len(RELEASED) and doc["release_hash"] == release_of(bank).release_hash
    assert "precision" in doc["taxonomy"]["topics"] and doc["taxonomy"]["levels"][-1] == "L6+"


def test_schema_rejects_a_document_that_drifts(bank: Path, tmp_path: Path) -> None:
    doc = release.document(release_of(bank))
    doc["questions"][0]["status"] = "published"  # not a released field
    schema = json.loads(release_schema.schema_text())
    assert not jsonschema.Draft202012Validator(schema).is_valid(doc)


def test_only_a_document_it_wrote_counts_as_an_earlier_export(tmp_path: Path, bank: Path) -> None:
    ours, compact, other = tmp_path / "ours.json", tmp_path / "compact.json", tmp_path / "other.json"
    release.write_json(release_of(bank), ours)
    assert release.is_export(ours)
    compact.write_text(json.dumps(json.loads(ours.read_text(encoding="utf-8"))), encoding="utf-8")
    other.write_text('{\n "format": "qbank-release-notes",\n}', encoding="utf-8")
    assert not any(release.is_export(p) for p in (compact, other, tmp_path / "missing.json"))
