"""The release as one SQLite file: questions, their tags, the taxonomy, and an FTS5 full-text index.

Tables:
  meta(key, value)                       format, format_version, generator, policy, release_hash, count
  tracks, levels, zones, competency_areas(name, position)   the model's enums, in order
  topics(slug, topic_group)              schema/taxonomy.yaml, as grouped there
  questions(id, ..., data)               one row per released question; `data` is its full JSON record
  tags(question_id, tag)
  questions_fts(title, scenario, question, realistic_solution)   FTS5, external content = questions

Search: `SELECT questions.id, questions.title FROM questions_fts JOIN questions ON questions.rowid = questions_fts.rowid
WHERE questions_fts MATCH 'loss scaling' ORDER BY rank`. The file is built in a temporary file
beside the target and renamed into place; the same release gives the same bytes.
"""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path
from typing import Any

from qbank import load
from qbank.export import files
from qbank.export.release import FORMAT, Release, envelope

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


def write(release: Release, out: Path) -> None:
    with files.atomic(out) as temporary:
        connection = sqlite3.connect(temporary)
        try:
            # a temporary file, renamed into place only when complete (files.atomic): a journal and
            # waits for the disk would guard nothing
            connection.executescript("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;")
            _fill(connection, release)
            connection.commit()
        finally:
            connection.close()


def _fill(db: sqlite3.Connection, release: Release) -> None:
    db.executescript(SCHEMA)
    doc = envelope(release)
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
    db.executemany(
        f"INSERT INTO questions VALUES ({', '.join('?' * 20)})",
        [_row(e.data, e.text) for e in release.entries],
    )
    tags = [(e.id, tag) for e in release.entries for tag in sorted(set(e.data.get("tags", ())))]
    db.executemany("INSERT INTO tags VALUES (?, ?)", tags)
    db.execute("INSERT INTO questions_fts(questions_fts) VALUES ('rebuild')")


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
