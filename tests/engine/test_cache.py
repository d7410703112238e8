"""The audit cache (outside the bank, in $XDG_CACHE_HOME/qbank/banks/): same report warm as cold
(near-duplicates included), re-checks exactly what changed, and never trusts what it did not make
(the attacks on it are in tests/engine/test_hostile_cache.py)."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import stat
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from qbank import engine, load, similarity
from qbank.engine import store
from qbank.engine.store import Store
from tests.conftest import REPO

QUESTIONS = sorted((REPO / "questions").rglob("*.yaml"))[:6]


def _bank_of(folder: Path, questions: list[Path]) -> Path:
    """A bank in `folder`: this repository's schema and copies of these questions."""
    shutil.copytree(REPO / "schema", folder / "schema")
    for question in questions:
        target = folder / question.relative_to(REPO)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(question, target)
    return folder


@pytest.fixture
def bank(tmp_path: Path) -> Path:
    _bank_of(tmp_path, QUESTIONS)
    broken = tmp_path / "questions" / "cloud" / "compute" / "cloud-202611-0bad.yaml"
    broken.parent.mkdir(parents=True, exist_ok=True)
    broken.write_text("id: [unclosed\n", encoding="utf-8")
    return tmp_path


def _audit(bank: Path, **settings: Any) -> engine.Report:
    return engine.audit(engine.Settings(cache=True, **settings), bank)


def _database(bank: Path) -> Path:
    return store.folder_of(bank) / "audit.sqlite3"


def _parsed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The files parsed from here on (a cache hit is not parsed)."""
    seen: list[str] = []
    real = load.from_bytes

    def counting(data: bytes, path: str, *rest: Any) -> object:
        if path.startswith("questions/"):
            seen.append(Path(path).name)
        return real(data, path, *rest)

    monkeypatch.setattr(load, "from_bytes", counting)
    return seen


def test_a_warm_run_parses_nothing_and_reports_the_same(bank: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cold = _audit(bank)
    assert any(f.path.endswith("0bad.yaml") for f in cold.findings)
    seen = _parsed(monkeypatch)
    warm = _audit(bank)
    assert seen == []
    assert (warm.findings, warm.summary) == (cold.findings, cold.summary)


def _read(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The question files read from here on."""
    seen: list[str] = []
    real = load.read

    def counting(path: Any, shown: str) -> object:
        seen.append(Path(shown).name)
        return real(path, shown)

    monkeypatch.setattr(load, "read", counting)
    return seen


def test_a_warm_run_reads_only_files_whose_status_changed(
    bank: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Copies keep their files' old times, so their statuses are kept; the file written just now
    (the fixture's broken one) is within SETTLED_NS, so it is read again."""
    _audit(bank)
    seen = _read(monkeypatch)
    _audit(bank)
    assert seen == ["cloud-202611-0bad.yaml"]


def test_an_edit_that_keeps_size_and_mtime_is_still_seen(bank: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`touch -d` can put mtime back, but not ctime, which the status includes."""
    _audit(bank)
    edited = bank / QUESTIONS[0].relative_to(REPO)
    before = edited.stat()
    text = edited.read_text(encoding="utf-8")
    edited.write_text(_lower_title(text), encoding="utf-8")  # the same size
    os.utime(edited, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert (edited.stat().st_size, edited.stat().st_mtime_ns) == (before.st_size, before.st_mtime_ns)
    seen = _parsed(monkeypatch)
    assert any(f.path.endswith(edited.name) for f in _audit(bank).findings)
    assert seen == [edited.name]


def test_a_status_taken_within_the_clock_tick_of_an_edit_is_not_kept(
    bank: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a coarse file clock an edit in the same tick leaves every time as it was (git's "racy"
    case): a file changed within SETTLED_NS of the audit is read again next time. Statuses are
    frozen here, as such a clock would leave them."""
    now = time.time_ns()

    def frozen(file: Path, shown: str, roots: tuple[str, ...]) -> os.stat_result:
        real = os.stat(file)
        return os.stat_result((*real[:7], 0, 0, 0), {"st_mtime_ns": now, "st_ctime_ns": now})

    monkeypatch.setattr(engine.targets, "_stat", frozen)
    edited = bank / QUESTIONS[0].relative_to(REPO)
    text = edited.read_text(encoding="utf-8")
    _audit(bank)
    edited.write_text(_lower_title(text), encoding="utf-8")  # the same size
    assert any(f.path.endswith(edited.name) for f in _audit(bank).findings)


def _lower_title(text: str) -> str:
    """The text with its title's first letter in lower case: a title-case finding, no size change."""
    at = text.index("\ntitle: ") + len("\ntitle: ")
    return text[:at] + text[at].lower() + text[at + 1 :]


def test_a_known_status_whose_result_is_gone_is_read_again(bank: Path) -> None:
    cold = _audit(bank)
    with sqlite3.connect(_database(bank)) as db:
        db.execute("DELETE FROM files")
    again = _audit(bank)
    assert (again.findings, again.summary) == (cold.findings, cold.summary)


def test_editing_a_file_rechecks_only_that_file(bank: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _audit(bank)
    edited = bank / QUESTIONS[0].relative_to(REPO)
    edited.write_text(edited.read_text(encoding="utf-8").replace("title:", "title: x", 1), encoding="utf-8")
    seen = _parsed(monkeypatch)
    report = _audit(bank)
    assert seen == [edited.name]
    assert any(f.path.endswith(edited.name) for f in report.findings)  # the new title is not title case


def test_a_run_on_some_files_drops_no_other_entry(bank: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A pre-commit run sees one file, and --bank-only checks none: neither can tell a stale entry
    from another file's, so they keep them all (pruning there left a cold cache behind each hook run)."""
    monkeypatch.setattr(store, "PRUNE_SLACK", 0)
    _audit(bank)
    edited = bank / QUESTIONS[0].relative_to(REPO)
    edited.write_text(edited.read_text(encoding="utf-8") + "# edited\n", encoding="utf-8")
    _audit(bank, paths=(edited,))
    _audit(bank, bank_only=True)
    seen = _parsed(monkeypatch)
    _audit(bank)
    assert seen == []


def test_bank_wide_reads_take_cached_entries(bank: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """--bank-only (the second pre-commit hook) reads every file for the repo-wide rules: where the
    cache knows a file's bytes it takes the file's entry from there, and reports the same."""
    copy = bank / QUESTIONS[1].relative_to(REPO)
    twin = copy.with_name("cloud-202611-twin.yaml")
    twin.write_text(copy.read_text(encoding="utf-8"), encoding="utf-8")  # a duplicate id and text
    _audit(bank)
    uncached = engine.audit(engine.Settings(bank_only=True), bank)
    seen = _parsed(monkeypatch)
    cached = _audit(bank, bank_only=True)
    assert seen == ["cloud-202611-0bad.yaml"]  # unloadable, so nothing is cached for its entry
    assert {f.name for f in cached.findings} >= {"duplicate-id", "near-duplicate", "yaml-syntax"}
    assert (cached.findings, cached.summary) == (uncached.findings, uncached.summary)


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
    assert not (Path(os.environ["XDG_CACHE_HOME"]) / "qbank").exists()


def test_the_cache_lives_outside_the_bank_in_private_folders(bank: Path) -> None:
    """In $XDG_CACHE_HOME/qbank/banks/<SHA-256 of the bank's real path, 32 hex digits>, folders 0700
    and the database 0600; nothing is written in the bank."""
    before = sorted(bank.rglob("*"))
    _audit(bank)
    assert sorted(bank.rglob("*")) == before
    top = Path(os.environ["XDG_CACHE_HOME"]) / "qbank"
    name = hashlib.sha256(str(bank.resolve()).encode()).hexdigest()[:32]
    assert (top / "banks" / name / "audit.sqlite3").is_file()
    for folder in (top, top / "banks", top / "banks" / name):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    for file in (top / "secret", top / "banks" / name / "audit.sqlite3"):
        assert stat.S_IMODE(file.stat().st_mode) == 0o600


def test_a_bank_reached_through_a_link_shares_its_cache(
    bank: Path, tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Keyed by the real path: the same bank by another name is the same cache (a warm run)."""
    _audit(bank)
    link = tmp_path_factory.mktemp("elsewhere") / "bank"
    link.symlink_to(bank, target_is_directory=True)
    seen = _parsed(monkeypatch)
    _audit(link)
    assert seen == []


@pytest.mark.parametrize("value", [None, "", "relative/cache"])
def test_without_an_absolute_xdg_cache_home_the_cache_is_in_home(
    bank: Path, tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch, value: str | None
) -> None:
    """The XDG Base Directory Specification: unset or empty means $HOME/.cache, and a relative path
    is invalid and ignored (it would put the cache in whatever folder qbank runs from)."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    if value is None:
        monkeypatch.delenv("XDG_CACHE_HOME")
    else:
        monkeypatch.setenv("XDG_CACHE_HOME", value)
    monkeypatch.chdir(bank)
    _audit(bank)
    assert _database(bank).is_relative_to(home / ".cache" / "qbank" / "banks")
    assert _database(bank).is_file()
    assert not (bank / "relative").exists()


def test_a_damaged_cache_is_started_afresh(bank: Path) -> None:
    cold = _audit(bank)
    _database(bank).write_bytes(b"not a database" * 100)
    again = _audit(bank)
    assert (again.findings, again.notes) == (cold.findings, cold.notes)
    warm = _audit(bank)
    assert warm.findings == cold.findings


def test_worker_processes_report_what_one_process_does(bank: Path) -> None:
    serial = engine.audit(engine.Settings(jobs=1), bank)
    parallel = engine.audit(engine.Settings(jobs=2), bank)
    assert (parallel.findings, parallel.summary) == (serial.findings, serial.summary)
    assert serial.summary.math.equations > 0


@pytest.fixture
def large_bank(tmp_path: Path) -> Path:
    """Past similarity.PAIRWISE_LIMIT, so the near-duplicate search is MinHash/LSH and remembered."""
    return _bank_of(tmp_path, LARGE)


LARGE = [
    p
    for p in sorted((REPO / "questions").rglob("*.yaml"))
    if "\nstatus: deleted\n" not in p.read_text("utf-8")
][: similarity.PAIRWISE_LIMIT + 10]  # live questions: tombstones are never compared


def _copy(bank: Path, question: Path) -> Path:
    """A second file with the same text: a near-duplicate (and a duplicate id)."""
    original = bank / question.relative_to(REPO)
    copy = original.with_name(original.stem + "-copy.yaml")
    shutil.copy2(original, copy)
    return copy


def _reworded(file: Path) -> None:
    """Enough new words in the title that the file no longer reads like its original."""
    words = " ".join(f"Zz{k}" for k in range(150))
    file.write_text(
        file.read_text(encoding="utf-8").replace("\ntitle: ", f"\ntitle: {words} ", 1), encoding="utf-8"
    )


def test_a_warm_audit_finds_the_near_duplicates_a_cold_one_finds(large_bank: Path) -> None:
    """The cache remembers the last near-duplicate search; after each edit (a copy, the copy
    reworded, a copy of another, an unrelated edit, that original deleted) a warm audit reports
    what an audit without the cache does."""
    first, other = _copy(large_bank, LARGE[0]), large_bank / LARGE[9].relative_to(REPO)
    edits: list[Callable[[], object]] = [
        lambda: None,
        lambda: _reworded(first),
        lambda: _copy(large_bank, LARGE[5]),
        lambda: other.write_text(other.read_text(encoding="utf-8") + "# edited\n", encoding="utf-8"),
        lambda: (large_bank / LARGE[5].relative_to(REPO)).unlink(),
    ]
    near = []
    for edit in edits:
        edit()
        warm = _audit(large_bank)
        cold = engine.audit(engine.Settings(cache=False), large_bank)
        assert (warm.findings, warm.summary) == (cold.findings, cold.summary)
        near.append(sum(f.name == "near-duplicate" for f in warm.findings))
        assert _remembered(large_bank) == warm.summary.questions  # the search covered every question
    assert near == [2, 0, 2, 2, 0]  # the third pair was recalled: neither of its files changed


def _remembered(bank: Path) -> int:
    cache = Store(bank)
    try:
        return len(cache.recall()[0])
    finally:
        cache.close()


def test_an_unreadable_memory_means_a_search_from_scratch(large_bank: Path) -> None:
    _copy(large_bank, LARGE[0])
    cold = _audit(large_bank)
    with sqlite3.connect(_database(large_bank)) as db:
        db.execute("UPDATE search SET pairs = 'not json'")
    assert _audit(large_bank).findings == cold.findings


def test_a_cache_of_another_format_is_started_afresh(bank: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _database(bank).parent.mkdir(parents=True, mode=0o700)
    with sqlite3.connect(_database(bank)) as db:  # as qbank 0.1 left it (FORMAT 1)
        db.execute("CREATE TABLE files (key BLOB PRIMARY KEY, entry TEXT, shingles BLOB)")
    cold = _audit(bank)
    seen = _parsed(monkeypatch)
    assert _audit(bank).findings == cold.findings
    assert seen == []


def test_the_key_names_the_installed_versions_of_the_libraries() -> None:
    """Results depend on pydantic, PyYAML, numpy and ml_dtypes: their versions are part of every key."""
    import numpy
    import pydantic
    import yaml

    names = store._installed(store._LIBRARIES)
    for module, project in ((yaml, "pyyaml"), (pydantic, "pydantic"), (numpy, "numpy")):
        assert f"{project}-{module.__version__}.dist-info" in [n.lower() for n in names], names


# --- release views (exports: qbank/engine/views.py) -----------------------------------------------


def _views(report: engine.Report) -> dict[str, dict[str, Any]]:
    """Each file's view: its status, with its public record (if any) under `record`."""
    found = {}
    for path, view in report.views:
        found[path] = {"status": view.status} | ({"record": json.loads(view.record)} if view.record else {})
    return found


def test_an_export_audit_makes_a_view_of_every_file_and_a_warm_one_reads_them_from_the_cache(
    bank: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cold = _audit(bank, views=True)
    views = _views(cold)
    assert len(views) == len(QUESTIONS) + 1
    assert views["questions/cloud/compute/cloud-202611-0bad.yaml"] == {"status": None}  # did not load
    published = [v for v in views.values() if v.get("status") == "published"]
    assert published and all(v["record"]["path"] and v["record"]["content_hash"] for v in published)
    seen = _parsed(monkeypatch)
    warm = _audit(bank, views=True)
    assert seen == []  # nor validated: the views came from the cache
    assert (warm.findings, warm.views) == (cold.findings, cold.views)


def test_an_export_after_a_plain_audit_checks_each_file_again_for_its_view(
    bank: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    plain = _audit(bank)
    assert plain.views == []
    seen = _parsed(monkeypatch)
    exported = _audit(bank, views=True)
    assert sorted(seen) == sorted([q.name for q in QUESTIONS] + ["cloud-202611-0bad.yaml"])
    assert exported.findings == plain.findings
    edited = bank / QUESTIONS[0].relative_to(REPO)
    edited.write_text(edited.read_text(encoding="utf-8") + "updated_at: '2026-11-27'\n", encoding="utf-8")
    seen.clear()
    after = _views(_audit(bank, views=True))
    assert seen == [QUESTIONS[0].name]  # the others' views, the broken file's too, from the cache
    shown = f"questions/{QUESTIONS[0].relative_to(REPO / 'questions')}"
    assert after[shown]["record"]["updated_at"] == "2026-11-27"
