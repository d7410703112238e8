"""Cache poisoning (issue 30, item 4): what a pull request, or another account on the machine, can
put where qbank keeps its audit cache, and what qbank does with it.

Attacks, one test each:
- a committed `.qbank-cache/audit.sqlite3` whose AFTER INSERT trigger empties the findings qbank
  writes, so that the next audit calls a bank with errors clean: qbank never opens it;
- a committed `.qbank-cache` that is a symbolic link out of the bank, or that holds links named
  `audit.sqlite3` and `.gitignore`: nothing is written through them (nothing is written in the bank);
- a cache database holding schema objects qbank did not make (a trigger, a view in a table's place,
  a virtual table, a table with other columns) or bytes that are not a database: thrown away and
  rebuilt, never used;
- a symbolic link on the way to the cache (its folder, its database, or qbank's folder, where the
  key secret lives): no cache that run, with a note, and nothing written where the link points;
- a cache folder owned by another user: no cache that run, with a note;
- a link or a FIFO in schema/ or evidence/, which the cache key reads: never read through (the
  cache is off that run, with a note: a key that skipped it would miss a change where it points);
- folders nested past Python's recursion limit in evidence/: walked without recursion.

Every test compares the audit with an uncached one: the findings a poisoned cache could change.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
from pathlib import Path

import pytest

from qbank import engine
from qbank.engine import store
from qbank.engine.store import Store
from tests.conftest import REPO

pytestmark = pytest.mark.usefixtures("hang_guard")

QUESTIONS = sorted((REPO / "questions").rglob("*.yaml"))[:3]
BROKEN = Path("questions/cloud/compute/cloud-202611-0bad.yaml")
NAMES = {
    ("table", "files"),
    ("table", "search"),
    ("table", "stats"),
    ("table", "views"),
    ("table", "rendered"),
    ("table", "exported"),
    ("index", "sqlite_autoindex_files_1"),
    ("index", "sqlite_autoindex_stats_1"),
    ("index", "sqlite_autoindex_views_1"),
    ("index", "views_by_content_hash"),
    ("index", "views_by_facts_hash"),
    ("index", "sqlite_autoindex_rendered_1"),
    ("index", "sqlite_autoindex_exported_1"),
}


@pytest.fixture
def bank(tmp_path: Path) -> Path:
    """This repository's schema, three of its questions and a file that does not parse (an error)."""
    root = tmp_path / "bank"
    shutil.copytree(REPO / "schema", root / "schema")
    for question in QUESTIONS:
        target = root / question.relative_to(REPO)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(question, target)
    (root / BROKEN).parent.mkdir(parents=True, exist_ok=True)
    (root / BROKEN).write_text("id: [unclosed\n", encoding="utf-8")
    return root


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A folder outside the bank and the cache, where a link may point: it must stay empty."""
    folder = tmp_path / "outside"
    folder.mkdir()
    return folder


def _audit(bank: Path, use_cache: bool = True) -> engine.Report:
    return engine.audit(engine.Settings(cache=use_cache), bank)


def _twice_as_uncached(bank: Path) -> engine.Report:
    """Two cached audits (the second reads what the first wrote) report what an uncached one does."""
    uncached = _audit(bank, use_cache=False)
    assert uncached.summary.errors >= 1
    for _ in range(2):
        report = _audit(bank)
        assert (report.findings, report.summary) == (uncached.findings, uncached.summary)
    return report


def _database(bank: Path) -> Path:
    """The database qbank keeps for this bank (opened once, so that it and its folders exist)."""
    made = Store(bank)
    made.close()
    return made.folder / "audit.sqlite3"


def _schema(path: Path | str) -> set[tuple[str, str, str | None]]:
    db = sqlite3.connect(path)
    if path == ":memory:":
        db.executescript(store._TABLES)
    rows = db.execute("SELECT type, name, sql FROM sqlite_master").fetchall()
    db.close()
    return set(rows)


def _is_ours(path: Path) -> bool:
    """Exactly the tables (and their indexes) qbank makes, each as qbank's SQL makes it."""
    made = _schema(path)
    return made == _schema(":memory:") and {(kind, name) for kind, name, _ in made} == NAMES


def _forge(path: Path, script: str) -> None:
    """A database of the current format with qbank's tables, then `script`."""
    db = sqlite3.connect(path)
    db.executescript(f"{store._TABLES} PRAGMA user_version = {store.FORMAT}; {script}")
    db.close()


HIDE = (  # an AFTER INSERT trigger: every row qbank writes says the file had no findings
    "CREATE TRIGGER hide AFTER INSERT ON files BEGIN UPDATE files SET findings = '[]' WHERE key = new.key; END;"
)
# a view in the place of `files`, whose INSTEAD OF trigger stores every row without its findings
VIEW = (
    "ALTER TABLE files RENAME TO kept;"
    "CREATE VIEW files AS SELECT * FROM kept;"
    "CREATE TRIGGER hide INSTEAD OF INSERT ON files BEGIN INSERT OR REPLACE INTO kept VALUES (new.key, '[]',"
    " new.equations, new.checked, new.failed, new.path, new.question_id, new.tombstone, new.id_line,"
    " new.id_column, new.scenario_line, new.scenario_column, new.shingles, new.signature); END;"
)
FORGERIES = {
    "after-insert-trigger": HIDE,
    "view-named-files": VIEW,
    "virtual-table": "CREATE VIRTUAL TABLE notes USING fts4(text);",
    "other-columns": "DROP TABLE stats; CREATE TABLE stats (status BLOB PRIMARY KEY, key BLOB, note TEXT);",
}


def test_a_committed_cache_with_a_trigger_is_never_opened(bank: Path) -> None:
    planted = bank / ".qbank-cache" / "audit.sqlite3"
    planted.parent.mkdir()
    _forge(planted, HIDE)
    before = planted.read_bytes()
    _twice_as_uncached(bank)
    assert planted.read_bytes() == before


def test_a_committed_cache_folder_that_links_out_of_the_bank_is_not_written(
    bank: Path, outside: Path
) -> None:
    (bank / ".qbank-cache").symlink_to(outside, target_is_directory=True)
    _twice_as_uncached(bank)
    assert list(outside.iterdir()) == []


def test_links_inside_a_committed_cache_folder_are_not_written_through(bank: Path, outside: Path) -> None:
    folder = bank / ".qbank-cache"
    folder.mkdir()
    (folder / "audit.sqlite3").symlink_to(outside / "db")
    (folder / ".gitignore").symlink_to(outside / "ignore")
    _twice_as_uncached(bank)
    assert list(outside.iterdir()) == []


@pytest.mark.parametrize("forgery", FORGERIES)
def test_a_cache_with_schema_objects_qbank_did_not_make_is_rebuilt(bank: Path, forgery: str) -> None:
    database = _database(bank)
    database.unlink()
    _forge(database, FORGERIES[forgery])
    _twice_as_uncached(bank)
    assert _is_ours(database)


def test_a_cache_of_garbage_bytes_is_rebuilt(bank: Path) -> None:
    database = _database(bank)
    database.write_bytes(b"SQLite format 3\0" + os.urandom(4000))
    _twice_as_uncached(bank)
    assert _is_ours(database)


@pytest.mark.parametrize("where", ["folder", "database"])
def test_a_link_on_the_way_to_the_cache_turns_it_off(bank: Path, outside: Path, where: str) -> None:
    database = _database(bank)
    if where == "folder":
        shutil.rmtree(database.parent)
        database.parent.symlink_to(outside, target_is_directory=True)
    else:
        database.unlink()
        database.symlink_to(outside / "db")
    report = _twice_as_uncached(bank)
    assert list(outside.iterdir()) == []
    assert any("audit cache off" in note and "link" in note for note in report.notes), report.notes


def test_a_link_in_place_of_qbanks_cache_folder_is_not_followed(
    bank: Path, outside: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`$XDG_CACHE_HOME/qbank` holds the key secret and every bank's cache: a link there (another
    account's, in a shared XDG_CACHE_HOME) would put both where that account reads them."""
    (Path(os.environ["XDG_CACHE_HOME"]) / "qbank").symlink_to(outside, target_is_directory=True)
    report = _twice_as_uncached(bank)
    assert list(outside.iterdir()) == []
    assert any("audit cache off" in note for note in report.notes), report.notes


@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0, reason="chown to another user needs root"
)
def test_a_cache_folder_of_another_user_turns_it_off(bank: Path) -> None:
    database = _database(bank)
    os.chown(database.parent, 65534, 65534)  # nobody
    report = _twice_as_uncached(bank)
    assert any("audit cache off" in note and "owned" in note for note in report.notes), report.notes


@pytest.mark.parametrize("kind", ["link", "fifo"])
@pytest.mark.parametrize("folder", ["schema", "evidence/gpu"])
def test_a_link_or_fifo_where_the_key_reads_is_not_read(
    bank: Path, outside: Path, kind: str, folder: str
) -> None:
    target = bank / folder / "extra.yaml"
    target.parent.mkdir(parents=True, exist_ok=True)
    if kind == "link":
        (outside / "elsewhere.yaml").write_text("x: 1\n", encoding="utf-8")
        target.symlink_to(outside / "elsewhere.yaml")
    else:
        os.mkfifo(target)
    report = _twice_as_uncached(bank)
    assert any("audit cache off" in note and "extra.yaml" in note for note in report.notes), report.notes


def test_folders_nested_past_the_recursion_limit_where_the_key_reads_are_walked(bank: Path) -> None:
    """1,500 nested folders in evidence/ (a 3,000-character path, which git holds): a recursive walk
    (pathlib's rglob, Python 3.11) raised RecursionError, an exit 2 on every cached audit."""
    here = str(bank / "evidence")
    os.mkdir(here)
    for _ in range(1500):
        here += "/a"
        os.mkdir(here)  # one at a time: Path.mkdir(parents=True) itself recurses
    Path(here, "deepest.txt").write_text("x\n", encoding="utf-8")
    try:
        report = _twice_as_uncached(bank)
        assert not any("audit cache off" in note for note in report.notes), report.notes
    finally:  # pytest's clean-up of old temporary folders (shutil.rmtree) recurses, and would fail
        os.unlink(Path(here, "deepest.txt"))
        while here != str(bank / "evidence"):
            os.rmdir(here)
            here = os.path.dirname(here)


@pytest.mark.parametrize(
    "forged",
    [
        "record = 'not a record'",
        "status = 'published', id = '', content_hash = '', record = '', listing = '', facts = ''",
        "listing = x'5b5d'",  # `[]` as a blob, not text
        "facts = NULL",
        "id = NULL",
        "facets = 'cloud L3'",
        "facts_hash = ''",
        "status = 'draft' WHERE status = 'published'",  # a draft with a record: no row qbank writes
    ],
)
def test_a_release_view_not_shaped_as_qbank_writes_one_is_a_miss(bank: Path, forged: str) -> None:
    """An export's views (qbank/engine/views.py) come from the cache only when shaped as qbank writes
    them; any other row is made again, so the release is the one an uncached export gives."""
    settings = engine.Settings(cache=True, views=True)
    made = engine.audit(settings, bank).views
    database = sqlite3.connect(_database(bank))
    database.execute(f"UPDATE views SET {forged}")
    database.commit()
    database.close()
    assert engine.audit(settings, bank).views == made
