from __future__ import annotations

import re
import sqlite3
from pathlib import Path

from qbank.export import sqlite
from tests.conftest import REPO
from tests.export.conftest import RELEASED, release_of


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
