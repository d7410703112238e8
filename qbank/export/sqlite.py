"""The release as one SQLite file: questions, their tags, the taxonomy, and an FTS5 full-text index.

Tables:
  meta(key, value)                       format, format_version, generator, policy, release_hash, count
  tracks, levels, zones, competency_areas(name, position)   the model's enums, in order
  topics(slug, topic_group)              schema/taxonomy.yaml, as grouped there
  questions(id, ..., data)               one row per released question; `data` is its full JSON record
  tags(question_id, tag)
  questions_fts(title, scenario, question, realistic_solution)   FTS5, external content = questions

Over an earlier export that is still the file qbank wrote (its status, kept in the bank's cache:
Ledger), the file is updated in one SQLite transaction: only the questions whose content hash
changed are replaced (an edited question keeps its rowid), and the FTS5 index is told of each. A
full build re-indexes every question (0.35 s of 0.6 s at 10,000 questions, benchmarks/export_site.py).
An updated file holds the same rows as a new one, not the same bytes; a new file is built whole.

Search: `SELECT questions.id, questions.title FROM questions_fts JOIN questions ON questions.rowid = questions_fts.rowid
WHERE questions_fts MATCH 'loss scaling' ORDER BY rank`. The file is built in a temporary file
beside the target and renamed into place; built whole, the same release gives the same bytes.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, Protocol

from qbank import __version__, load
from qbank.export import files
from qbank.export.release import FORMAT, Entry, Release, envelope, with_texts

SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE tracks (name TEXT PRIMARY KEY, position INTEGER NOT NULL);
CREATE TABLE levels (name TEXT PRIMARY KEY, position INTEGER NOT NULL);
CREATE TABLE zones (name TEXT PRIMARY KEY, position INTEGER NOT NULL);
CREATE TABLE competency_areas (name TEXT PRIMARY KEY, position INTEGER NOT NULL);
CREATE TABLE topics (slug TEXT PRIMARY KEY, topic_group TEXT NOT NULL);
CREATE TABLE questions (
  id TEXT PRIMARY KEY,
  path TEXT NOT NULL,
  track TEXT NOT NULL REFERENCES tracks(name),
  level TEXT NOT NULL REFERENCES levels(name),
  zone TEXT NOT NULL REFERENCES zones(name),
  competency_area TEXT NOT NULL REFERENCES competency_areas(name),
  topic TEXT NOT NULL REFERENCES topics(slug),
  bloom_level TEXT,
  phase TEXT,
  title TEXT NOT NULL,
  scenario TEXT NOT NULL,
  question TEXT,
  realistic_solution TEXT NOT NULL,
  common_mistake TEXT,
  napkin_math TEXT,
  options TEXT,
  correct_index INTEGER,
  provenance TEXT NOT NULL,
  content_hash TEXT NOT NULL,
  data TEXT NOT NULL
);
CREATE TABLE tags (
  question_id TEXT NOT NULL REFERENCES questions(id),
  tag TEXT NOT NULL,
  PRIMARY KEY (question_id, tag)
);
CREATE INDEX questions_by_cell ON questions (track, level);
CREATE VIRTUAL TABLE questions_fts USING fts5(
  title, scenario, question, realistic_solution,
  content='questions', content_rowid='rowid', tokenize='porter unicode61'
);
"""


HEADER = b"SQLite format 3\x00"  # the first 16 bytes of every database file (sqlite.org/fileformat.html)


def is_export(path: Path) -> bool:
    """Whether `path` is a database `write` made (so `--out` may replace it): its `meta` table, made
    by SCHEMA's own statement, says format qbank-release. The file may be anyone's, so it is opened
    read-only, and only after its header says SQLite; with trusted_schema off, no view or trigger in
    it runs a function (sqlite.org/security.html, "Untrusted SQLite Database Files"); the two queries
    read a table and sqlite_master, neither of which runs anything of the file's."""
    try:
        head, _ = load.read_regular(path, len(HEADER), getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return False
    if head != HEADER:
        return False
    try:
        db = sqlite3.connect(f"{path.absolute().as_uri()}?mode=ro", uri=True)
        try:
            return _meta_format(db) == FORMAT
        finally:
            db.close()
    except sqlite3.Error:
        return False


def _meta_format(db: sqlite3.Connection) -> str | None:
    db.execute("PRAGMA trusted_schema = OFF")
    made = db.execute("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'meta'").fetchone()
    if made != (SCHEMA.strip().split(";")[0],):  # the meta table, as SCHEMA's first statement makes it
        return None
    row = db.execute("SELECT value FROM meta WHERE key = 'format'").fetchone()
    return row[0] if row else None


class Ledger(Protocol):
    """Where an export records the file it wrote (qbank.engine.store.Store.exported), and reads the
    records the audit left unread (qbank.export.release.with_texts)."""

    def exported(self, out: Path) -> str | None: ...

    def keep_exported(self, out: Path, made: str) -> None: ...

    def texts(self, column: str, digests: list[str]) -> dict[str, str]: ...


def write(release: Release, out: Path, ledger: Ledger | None = None) -> None:
    """The release at `out`: updated in place when `ledger` says `out` is the file the last export
    wrote, from the same writer and taxonomy (`_made`); else built whole."""
    doc = envelope(release)
    made = _made(doc)
    read = functools.partial(with_texts, memory=ledger)
    if ledger is None or ledger.exported(out) != made or not _updated(release, out, doc, read):
        _build(replace(release, entries=tuple(read(release.entries))), out, doc)
    if ledger is not None:
        ledger.keep_exported(out, made)


def _build(release: Release, out: Path, doc: dict[str, Any]) -> None:
    with files.atomic(out) as temporary:
        connection = sqlite3.connect(temporary)
        try:
            # a temporary file, renamed into place only when complete (files.atomic): a journal and
            # waits for the disk would guard nothing
            connection.executescript("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;")
            _fill(connection, release, doc)
            connection.commit()
        finally:
            connection.close()


def _made(doc: dict[str, Any]) -> str:
    """A digest of what the file holds besides its questions: this writer (qbank's version and this
    module's source) and the release's envelope (`doc`) less its questions' hash and count."""
    shared = {key: value for key, value in doc.items() if key not in ("release_hash", "count")}
    digest = hashlib.sha256(f"{__version__}\0{json.dumps(shared, sort_keys=True)}\0".encode())
    digest.update(Path(__file__).read_bytes())
    return digest.hexdigest()


def _updated(
    release: Release, out: Path, doc: dict[str, Any], read: Callable[[Sequence[Entry]], list[Entry]]
) -> bool:
    """Replace the questions whose content hash changed, in one transaction (SQLite's rollback journal
    keeps the old file whole if it fails, and then it is built whole): each removed from the FTS5
    index with the values it was indexed with, as an external-content table needs
    (sqlite.org/fts5.html, 4.4.3)."""
    try:
        db = sqlite3.connect(out)
    except sqlite3.Error:
        return False
    try:
        db.execute("PRAGMA trusted_schema = OFF")
        rows = db.execute("SELECT id, content_hash, rowid FROM questions").fetchall()
        held = {id_: digest for id_, digest, _ in rows}
        wanted = {entry.id: entry for entry in release.entries}
        gone = [
            (id_,) for id_, digest in held.items() if id_ not in wanted or wanted[id_].content_hash != digest
        ]
        new = [entry for entry in release.entries if held.get(entry.id) != entry.content_hash]
        if not gone and not new:
            return True  # nothing written: the file keeps its bytes
        new = read(new)
        with db:
            rowids = {id_: rowid for id_, _, rowid in rows}
            db.executemany(
                f"INSERT INTO questions_fts(questions_fts, rowid, {_INDEXED}) SELECT 'delete', rowid, {_INDEXED} FROM questions WHERE id = ?",
                gone,
            )
            db.executemany("DELETE FROM tags WHERE question_id = ?", gone)
            db.executemany("DELETE FROM questions WHERE id = ?", gone)
            _insert(db, new, rowids)
            db.executemany(
                f"INSERT INTO questions_fts(rowid, {_INDEXED}) SELECT rowid, {_INDEXED} FROM questions WHERE id = ?",
                [(entry.id,) for entry in new],
            )
            db.executemany(
                "UPDATE meta SET value = ? WHERE key = ?",
                [(str(doc[key]), key) for key in ("release_hash", "count")],
            )
        return True
    except sqlite3.Error:
        return False
    finally:
        db.close()


_INDEXED = "title, scenario, question, realistic_solution"  # questions_fts's columns
_COLUMNS = (  # questions' columns, in SCHEMA's order (_row's)
    "id, path, track, level, zone, competency_area, topic, bloom_level, phase, title, scenario, "
    "question, realistic_solution, common_mistake, napkin_math, options, correct_index, provenance, "
    "content_hash, data"
)


def _fill(db: sqlite3.Connection, release: Release, doc: dict[str, Any]) -> None:
    db.executescript(SCHEMA)
    meta = {
        key: doc[key] for key in ("format", "format_version", "generator", "policy", "release_hash", "count")
    }
    db.executemany("INSERT INTO meta VALUES (?, ?)", [(k, str(v)) for k, v in meta.items()])
    taxonomy = doc["taxonomy"]
    for table, key in (
        ("tracks", "tracks"),
        ("levels", "levels"),
        ("zones", "zones"),
        ("competency_areas", "competency_areas"),
    ):
        db.executemany(
            f"INSERT INTO {table} VALUES (?, ?)", [(name, i) for i, name in enumerate(taxonomy[key])]
        )
    topics = [(slug, group) for group, slugs in taxonomy["topics"].items() for slug in slugs]
    db.executemany("INSERT OR IGNORE INTO topics VALUES (?, ?)", topics)
    _insert(db, release.entries, {})
    db.execute("INSERT INTO questions_fts(questions_fts) VALUES ('rebuild')")


def _insert(db: sqlite3.Connection, entries: Sequence[Entry], rowids: dict[str, int]) -> None:
    """Rows for these questions and their tags; a question in `rowids` takes the rowid given there
    (an edited question keeps its place), any other the next one."""
    records = [e.data for e in entries]  # (decoded once: Entry.data decodes at each use)
    db.executemany(
        f"INSERT INTO questions (rowid, {_COLUMNS}) VALUES ({', '.join('?' * 21)})",
        [(rowids.get(e.id), *_row(data, e.text)) for e, data in zip(entries, records, strict=True)],
    )
    tags = [
        (e.id, tag)
        for e, data in zip(entries, records, strict=True)
        for tag in sorted(set(data.get("tags", ())))
    ]
    db.executemany("INSERT INTO tags VALUES (?, ?)", tags)


def _row(data: dict[str, Any], text: str) -> tuple[Any, ...]:
    details = data["details"]
    options = details.get("options")
    return (
        data["id"],
        data["path"],
        data["track"],
        data["level"],
        data["zone"],
        data["competency_area"],
        data["topic"],
        data.get("bloom_level"),
        data.get("phase"),
        data["title"],
        data["scenario"],
        data.get("question"),
        details["realistic_solution"],
        details.get("common_mistake"),
        details.get("napkin_math"),
        json.dumps(options, ensure_ascii=False) if options else None,
        details.get("correct_index"),
        data["provenance"],
        data["content_hash"],
        text,
    )
