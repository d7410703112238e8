from __future__ import annotations

import re
import sqlite3
from pathlib import Path

from qbank.engine import store
from qbank.export import sqlite
from tests.conftest import REPO
from tests.export.conftest import RELEASED, edited_bank, release_of


def _search(db: sqlite3.Connection, query: str) -> list[str]:
    rows = db.execute(
        "SELECT questions.id FROM questions_fts JOIN questions ON questions.rowid = questions_fts.rowid "
        "WHERE questions_fts MATCH ? ORDER BY rank",
        (query,),
    )
    return [row[0] for row in rows]


def test_tables_and_full_text_search(tmp_path: Path, bank: Path) -> None:
    chosen = release_of(bank)
    out = tmp_path / "bank.sqlite"
    sqlite.write(chosen, out)
    db = sqlite3.connect(out)
    assert [r[0] for r in db.execute("SELECT id FROM questions ORDER BY id")] == RELEASED
    assert _search(db, "zeppelin") == ["edge-202611-e001"]  # a word of its scenario
    solution_only = sorted(_search(db, "realistic_solution:representable"))
    assert solution_only == [i for i in RELEASED if i != "cloud-202611-e003"]  # whose answer is a formula
    assert "cloud-202611-e002" in _search(db, "gradient")  # porter stemming: "gradients" too
    assert db.execute(
        "SELECT topic_group FROM topics WHERE slug = 'mixed-precision-training'"
    ).fetchone() == ("precision",)
    assert [r[0] for r in db.execute("SELECT name FROM levels ORDER BY position")][-1] == "L6+"
    meta = dict(db.execute("SELECT key, value FROM meta"))
    assert meta["release_hash"] == chosen.release_hash and meta["count"] == str(len(RELEASED))
    assert db.execute("SELECT correct_index FROM questions WHERE id = 'cloud-202611-e004'").fetchone() == (1,)


def test_same_release_same_bytes(tmp_path: Path, bank: Path) -> None:
    chosen = release_of(bank)
    sqlite.write(chosen, tmp_path / "a.sqlite")
    sqlite.write(chosen, tmp_path / "b.sqlite")
    assert (tmp_path / "a.sqlite").read_bytes() == (tmp_path / "b.sqlite").read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.sqlite", "b.sqlite"]  # no temporary file left


def test_only_a_database_it_wrote_counts_as_an_earlier_export(tmp_path: Path, bank: Path) -> None:
    ours = tmp_path / "ours.sqlite"
    sqlite.write(release_of(bank), ours)
    assert sqlite.is_export(ours)
    view, other, text = tmp_path / "view.sqlite", tmp_path / "other.sqlite", tmp_path / "notes.sqlite"
    db = sqlite3.connect(view)  # says the right format, through a view rather than the table
    db.execute("CREATE VIEW meta AS SELECT 'format' AS key, 'qbank-release' AS value")
    db.close()
    db = sqlite3.connect(other)  # someone's own table called meta
    db.execute("CREATE TABLE meta (key, value)")
    db.execute("INSERT INTO meta VALUES ('format', 'qbank-release')")
    db.commit()
    db.close()
    text.write_text("SQLite format 3 is a file format\n")
    assert not any(sqlite.is_export(p) for p in (view, other, text, tmp_path / "missing.sqlite"))


def test_the_readme_search_query_runs(tmp_path: Path, bank: Path) -> None:
    """The query README.md gives for the FTS5 table, as written there (issue 29: `JOIN questions
    USING (rowid)` failed with "cannot join using column rowid")."""
    readme = " ".join((REPO / "README.md").read_text(encoding="utf-8").split())
    (query,) = re.findall(r"`(SELECT [^`]*questions_fts MATCH [^`]*)`", readme)
    out = tmp_path / "bank.sqlite"
    sqlite.write(release_of(bank), out)
    rows = sqlite3.connect(out).execute(query.replace("'loss scaling'", "'zeppelin'")).fetchall()
    assert [row[0] for row in rows] == ["edge-202611-e001"]


def _content(path: Path) -> list[object]:
    """Every row of every table but the index's own, in a stated order."""
    db = sqlite3.connect(path)
    tables = [
        row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
    ]
    return [
        (table, db.execute(f"SELECT * FROM {table} ORDER BY 1, 2").fetchall())
        for table in tables
        if not table.startswith("questions_fts")
    ]


def test_an_earlier_export_is_updated_in_place_to_what_a_new_file_holds(tmp_path: Path, bank: Path) -> None:
    """Over the file the last export wrote, only what changed is written, in the same file (its
    inode): the rows are a new file's, the edited question keeps its rowid, and the full-text index
    finds the new words and not the old (an FTS5 external-content table is told of each change)."""
    out, edited = tmp_path / "bank.sqlite", release_of(edited_bank(bank, tmp_path / "edited"))
    with store.memory(bank) as ledger:
        assert ledger is not None
        sqlite.write(release_of(bank), out, ledger=ledger)
        inode, before = out.stat().st_ino, _rowid(out, "edge-202611-e001")
        sqlite.write(edited, out, ledger=ledger)
    sqlite.write(edited, tmp_path / "new.sqlite")
    assert out.stat().st_ino == inode and _rowid(out, "edge-202611-e001") == before
    assert _content(out) == _content(tmp_path / "new.sqlite")
    db = sqlite3.connect(out)
    assert _search(db, "blimp") == ["edge-202611-e001"] and _search(db, "scenario:zeppelin") == []
    assert "cloud-202611-e000" not in _search(db, "realistic_solution:representable")
    assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    assert db.execute("INSERT INTO questions_fts(questions_fts) VALUES ('integrity-check')").fetchall() == []


def _rowid(path: Path, question_id: str) -> int:
    (rowid,) = (
        sqlite3.connect(path).execute("SELECT rowid FROM questions WHERE id = ?", (question_id,)).fetchone()
    )
    return int(rowid)


def test_a_file_changed_since_the_export_is_built_anew(tmp_path: Path, bank: Path) -> None:
    """A file someone else wrote to since (its status changed) is not trusted: built whole again, it
    holds the release's rows and a new file's bytes. An unchanged release changes no byte."""
    out, chosen = tmp_path / "bank.sqlite", release_of(bank)
    sqlite.write(chosen, tmp_path / "new.sqlite")
    with store.memory(bank) as ledger:
        assert ledger is not None
        sqlite.write(chosen, out, ledger=ledger)
        kept = out.read_bytes()
        sqlite.write(chosen, out, ledger=ledger)
        assert out.read_bytes() == kept
        db = sqlite3.connect(out)
        db.execute("UPDATE questions SET title = 'Changed By Hand' WHERE id = 'edge-202611-e001'")
        db.commit()
        db.close()
        sqlite.write(chosen, out, ledger=ledger)
    assert out.read_bytes() == (tmp_path / "new.sqlite").read_bytes()
