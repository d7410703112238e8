"""The audit cache (.qbank-cache/): same report warm as cold, re-checks exactly what changed, and
never trusts what it did not make."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from qbank import engine, source
from tests.conftest import REPO

QUESTIONS = sorted((REPO / "questions").rglob("*.yaml"))[:6]


@pytest.fixture
def bank(tmp_path: Path) -> Path:
    shutil.copytree(REPO / "schema", tmp_path / "schema")
    for question in QUESTIONS:
        target = tmp_path / question.relative_to(REPO)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(question, target)
    broken = tmp_path / "questions" / "cloud" / "compute" / "cloud-202611-0bad.yaml"
    broken.parent.mkdir(parents=True, exist_ok=True)
    broken.write_text("id: [unclosed\n", encoding="utf-8")
    return tmp_path


def _audit(bank: Path, **settings: Any) -> engine.Report:
    return engine.audit(engine.Settings(cache=True, **settings), bank)


def _parsed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The files parsed from here on (a cache hit is not parsed)."""
    seen: list[str] = []
    real = source.load_bytes

    def counting(data: bytes, path: str) -> object:
        if path.startswith("questions/"):
            seen.append(Path(path).name)
        return real(data, path)

    monkeypatch.setattr(source, "load_bytes", counting)
    return seen


def test_a_warm_run_parses_nothing_and_reports_the_same(bank: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cold = _audit(bank)
    assert any(f.path.endswith("0bad.yaml") for f in cold.findings)
    assert (bank / ".qbank-cache" / ".gitignore").read_text().strip().endswith("*")
    seen = _parsed(monkeypatch)
    warm = _audit(bank)
    assert seen == []
    assert (warm.findings, warm.summary) == (cold.findings, cold.summary)


def test_editing_a_file_rechecks_only_that_file(bank: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _audit(bank)
    edited = bank / QUESTIONS[0].relative_to(REPO)
    edited.write_text(edited.read_text(encoding="utf-8").replace("title:", "title: x", 1), encoding="utf-8")
    seen = _parsed(monkeypatch)
    report = _audit(bank)
    assert seen == [edited.name]
    assert any(f.path.endswith(edited.name) for f in report.findings)  # the new title is not title case


def test_a_schema_change_rechecks_everything(bank: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _audit(bank)
    taxonomy = bank / "schema" / "taxonomy.yaml"
    taxonomy.write_text(taxonomy.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    seen = _parsed(monkeypatch)
    _audit(bank)
    assert len(seen) == len(QUESTIONS) + 1


def test_a_cache_made_with_another_secret_is_never_used(
    bank: Path, tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cache committed in a pull request was made with its author's secret: no key matches here."""
    _audit(bank)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("someone-else")))
    seen = _parsed(monkeypatch)
    _audit(bank)
    assert len(seen) == len(QUESTIONS) + 1


def test_no_cache_reads_and_writes_none(bank: Path) -> None:
    engine.audit(engine.Settings(cache=False), bank)
    assert not (bank / ".qbank-cache").exists()


def test_a_damaged_cache_is_started_afresh(bank: Path) -> None:
    cold = _audit(bank)
    (bank / ".qbank-cache" / "audit.sqlite3").write_bytes(b"not a database" * 100)
    again = _audit(bank)
    assert (again.findings, again.notes) == (cold.findings, cold.notes)
    warm = _audit(bank)
    assert warm.findings == cold.findings


def test_worker_processes_report_what_one_process_does(bank: Path) -> None:
    serial = engine.audit(engine.Settings(jobs=1), bank)
    parallel = engine.audit(engine.Settings(jobs=2), bank)
    assert (parallel.findings, parallel.summary) == (serial.findings, serial.summary)
    assert serial.summary.math.equations > 0
