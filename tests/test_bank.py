"""The bank in questions/ and the seed question both pass with no findings."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import REPO, audit_json
from seed import seed_yaml


def test_bank_has_no_findings() -> None:
    code, report = audit_json("questions")
    assert report["findings"] == []
    assert code == 0


def test_bank_covers_every_track_with_twenty_one_or_more_questions() -> None:
    files = list((REPO / "questions").rglob("*.yaml"))
    assert len(files) >= 21
    assert {f.relative_to(REPO / "questions").parts[0] for f in files} == {
        "cloud",
        "edge",
        "mobile",
        "tinyml",
        "global",
    }


@pytest.mark.shared
def test_seed_question_validates_with_no_findings(shared_seed: Path, tmp_path: Path) -> None:
    folder = tmp_path / "cloud" / "optimization"
    folder.mkdir(parents=True)
    (folder / "cloud-2152.yaml").write_text(
        seed_yaml(shared_seed.read_text(encoding="utf-8")), encoding="utf-8"
    )
    code, report = audit_json(str(tmp_path))
    assert report["findings"] == []
    assert report["summary"]["questions"] == 1
    assert code == 0


def test_packaged_schema_files_match_the_bank() -> None:
    for name in ("taxonomy.yaml", "title-words.yaml", "hardware.yaml"):
        assert (REPO / "qbank" / "data" / name).read_bytes() == (REPO / "schema" / name).read_bytes(), name


def test_missing_taxonomy_fails_the_audit(tmp_path: Path) -> None:
    shutil.copytree(REPO / "questions", tmp_path / "questions")
    shutil.copytree(REPO / "evidence", tmp_path / "evidence")  # the device claims' evidence
    (tmp_path / "schema").mkdir()
    code, report = audit_json(cwd=tmp_path)
    assert code == 1
    assert [f["name"] for f in report["findings"]] == ["taxonomy"]
    assert report["summary"]["schema"] == "unusable"


def test_broken_taxonomy_is_an_error_with_a_position(tmp_path: Path) -> None:
    shutil.copytree(REPO / "questions", tmp_path / "questions")
    shutil.copytree(REPO / "evidence", tmp_path / "evidence")
    shutil.copytree(REPO / "schema", tmp_path / "schema")
    (tmp_path / "schema" / "taxonomy.yaml").write_text("version: 1\ntopics:\n  compute: [a\n")
    code, report = audit_json(cwd=tmp_path)
    (finding,) = report["findings"]
    assert (finding["name"], finding["path"], finding["line"]) == ("taxonomy", "schema/taxonomy.yaml", 4)
    assert code == 1
