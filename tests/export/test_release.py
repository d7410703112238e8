from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
import zipfile
from pathlib import Path

import jsonschema
import pytest

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


# --- records left unread by the audit, read by content hash (engine.Settings.texts) ---------------


def _lean(bank: Path) -> release.Release:
    """The release of a warm export audit that reads no text of the views but the facets."""
    from qbank import engine

    settings = engine.Settings(cache=True, views=True, texts=("facets",))
    engine.audit(settings, bank)  # cold: fills the cache (views made here are whole)
    report = engine.audit(settings, bank)
    return release.select(report, release_of(bank).topic_groups)


def test_records_and_facts_left_unread_are_read_by_their_digests(tmp_path: Path, bank: Path) -> None:
    from qbank.engine import store

    copy = tmp_path / "bank"
    shutil.copytree(bank, copy)
    lean, whole = _lean(copy), release_of(copy)
    assert [(e.id, e.text, e.listing_text, e.facts_text) for e in lean.entries] == [
        (e.id, "", "", "") for e in whole.entries
    ]
    assert [e.facets for e in lean.entries] == [e.facets for e in whole.entries]
    assert [e.facts_hash for e in lean.entries] == [e.facts_hash for e in whole.entries]
    with store.memory(copy) as memory:
        read = release.with_texts(lean.entries, memory)
        assert [(e.data, e.facts_text) for e in read] == [(e.data, "") for e in whole.entries]
        read = release.with_texts(lean.entries, memory, facts=True)
    assert [(e.data, e.facts) for e in read] == [(e.data, e.facts) for e in whole.entries]


def test_a_record_the_cache_no_longer_holds_is_an_error_not_a_guess(tmp_path: Path, bank: Path) -> None:
    from qbank.engine import store

    copy = tmp_path / "bank"
    shutil.copytree(bank, copy)
    lean = _lean(copy)
    with store.memory(copy) as memory:
        assert memory is not None
        memory._db.execute("UPDATE views SET record = 'not a record' WHERE id = ?", (RELEASED[0],))
        with pytest.raises(release.Unread, match="export again"):
            release.with_texts(lean.entries, memory)
        assert release.with_texts(lean.entries[1:], memory)[0].data["id"] == RELEASED[1]


@pytest.mark.parametrize("kind", ["sqlite", "site", "anki"])
def test_a_warm_export_writes_an_edited_question_from_its_record_in_the_cache(
    tmp_path: Path, bank: Path, kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An export after another one cached the edited question's view (so its audit checks nothing
    again) reads no record (nor, for the site, page facts) with the views: the edited question's
    come from the cache by their digests, and the output holds the edit."""
    from qbank.engine import store

    copy, out = tmp_path / "bank", tmp_path / f"out-{kind}"
    shutil.copytree(bank, copy)
    assert run_cli("export", kind, "--out", str(out), cwd=copy).exit_code == 0
    edited = copy / "questions" / "edge" / "precision" / "edge-202611-e001.yaml"
    edited.write_text(edited.read_text().replace("A zeppelin fleet", "A blimp fleet"))
    assert run_cli("export", "json", "--out", str(tmp_path / "first.json"), cwd=copy).exit_code == 0
    asked: list[tuple[str, int]] = []
    real = store.Store.texts
    monkeypatch.setattr(
        store.Store,
        "texts",
        lambda db, column, digests: asked.append((column, len(digests))) or real(db, column, digests),
    )
    result = run_cli("export", kind, "--out", str(out), cwd=copy)
    assert result.exit_code == 0, result.output
    assert asked == ([("record", 1), ("facts", 1)] if kind == "site" else [("record", 1)])
    if kind == "sqlite":
        (text,) = (
            sqlite3.connect(out)
            .execute("SELECT scenario FROM questions WHERE id = 'edge-202611-e001'")
            .fetchone()
        )
    elif kind == "site":
        text = (out / "q" / "edge-202611-e001.html").read_text(encoding="utf-8")
    else:
        with zipfile.ZipFile(out) as deck:
            db = sqlite3.connect(":memory:")
            db.deserialize(deck.read("collection.anki2"))
        (text,) = db.execute("SELECT flds FROM notes WHERE flds LIKE 'edge-202611-e001%'").fetchone()
    assert "A blimp fleet" in text and "zeppelin" not in text
