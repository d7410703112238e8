"""The release as an Anki deck (.apkg, genanki) for spaced repetition.

One note per question, with the stable GUID `genanki.guid_for(id)`, so importing a newer deck
updates the notes in place instead of adding copies. The card's front is the scenario and the
question (and the options); the back adds the answer, the common mistake and the napkin math.
Fields are HTML from the same CommonMark renderer as the site, with math as `\\(..\\)`, which Anki
typesets itself. Tags: track, level (`L6+` becomes `L6plus`: Anki tags cannot hold `+` well),
zone, competency area and topic.

Anki updates an imported note only when the new one is newer, so notes carry the export time, or
`SOURCE_DATE_EPOCH` when it is set (https://reproducible-builds.org/specs/source-date-epoch/):
with it, the same release gives the same bytes (research/ecosystem.md §6.5). Without it, a deck
written over the one the last export wrote updates that deck's collection (kept in the bank's
cache): only the notes of changed questions are rewritten and stamped now (write).

Rendering the prose is most of a deck's work, so `qbank export` keeps each note, rendered, in the
bank's cache (qbank.engine.store, Store.rendered) by its content hash and a digest of this renderer:
the next deck renders only the questions that changed, and is the same deck.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import re
import sqlite3
import struct
import time
import zipfile
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any, Protocol

import genanki

from qbank import __version__, load, memo
from qbank.engine import runner
from qbank.export import files, markdown
from qbank.export.release import Entry, Release, with_texts

MODEL_ID = 1_607_392_319  # fixed forever: Anki keys note types and decks by these ids
DECK_ID = 2_059_400_110
MARK = b"qbank anki deck"  # the archive comment of every deck written here; Anki ignores it
# A note as its row holds it: its fields (FIELDS) joined by 0x1F, Anki's separator, and its tags
# joined by spaces. Kept in the cache as these two joined by 0x1E: no JSON to decode (a third of a
# warm deck's own time went to decoding 28 MB of kept notes).
Note = tuple[str, str]
FIELDS = ("Id", "Title", "Meta", "Scenario", "Question", "Options", "Answer", "Mistake", "NapkinMath")
FRONT = """<div class="meta">{{Meta}}</div>
<h2>{{Title}}</h2>
{{Scenario}}
<div class="ask">{{Question}}</div>
{{Options}}"""
BACK = """{{FrontSide}}
<hr id="answer">
{{Answer}}
{{#Mistake}}<h3>Common mistake</h3>{{Mistake}}{{/Mistake}}
{{#NapkinMath}}<h3>Napkin math</h3>{{NapkinMath}}{{/NapkinMath}}"""
CSS = """.card { font-family: system-ui, sans-serif; font-size: 18px; line-height: 1.5; text-align: left; }
.meta { color: #667; font-size: 14px; }
.ask { font-weight: 600; }"""


def _model() -> genanki.Model:
    return genanki.Model(
        MODEL_ID,
        "qbank question",
        fields=[{"name": name} for name in FIELDS],
        templates=[{"name": "Question", "qfmt": FRONT, "afmt": BACK}],
        css=CSS,
    )


def _note(data: dict[str, Any], render: markdown.Render) -> Note:
    """A question's note fields and tags, from its released record (the model is not needed to
    render it)."""
    details = data["details"]
    options = ""
    if details.get("options"):
        items = "".join(f"<li>{render(option)}</li>" for option in details["options"])
        options = f'<ol type="A">{items}</ol>'
    answer = render(details["realistic_solution"])
    if details.get("options") and details.get("correct_index") is not None:
        answer = f"<p><b>Correct option: {'ABCD'[details['correct_index']]}</b></p>{answer}"
    meta = " · ".join((data["track"], data["level"], data["zone"], data["topic"]))
    fields = (
        data["id"],
        markdown.escape(data["title"]),
        markdown.escape(meta),
        render(data["scenario"]),
        render(data.get("question") or ""),
        options,
        answer,
        render(details.get("common_mistake") or ""),
        render(details.get("napkin_math") or ""),
    )
    # the separators are control characters no question holds; taken out, a field cannot split
    return "\x1f".join(_SEPARATORS.sub("", field) for field in fields), " ".join(_tags(data))


def _tags(data: dict[str, Any]) -> list[str]:
    tags = [
        data["track"],
        data["level"].replace("+", "plus"),
        data["zone"],
        data["competency_area"],
        data["topic"],
    ]
    return tags + sorted(
        {_SEPARATORS.sub("", tag.replace(" ", "_")) for tag in data.get("tags") or ()} - set(tags)
    )


_SEPARATORS = re.compile("[\x1e\x1f]")


class Memory(Protocol):
    """What an export keeps in the bank's cache (qbank.engine.store.Store): notes rendered before
    (rendered), the last deck written at a path (exported) and its collection (kept_path,
    keep_file), and the records the audit left unread (texts)."""

    def rendered(self, names: list[str]) -> dict[str, str]: ...

    def keep_rendered(self, made: dict[str, str], live: list[str]) -> None: ...

    def exported(self, out: Path) -> str | None: ...

    def keep_exported(self, out: Path, made: str) -> None: ...

    def texts(self, column: str, digests: list[str]) -> dict[str, str]: ...

    def kept_path(self, name: str) -> Path: ...

    def keep_file(self, name: str, data: bytes) -> os.stat_result | None: ...


def write(release: Release, out: Path, name: str = "qbank", memory: Memory | None = None) -> None:
    """The deck at `out`. With `memory` and no SOURCE_DATE_EPOCH, over the deck the last export wrote
    there (its status unchanged), the last collection is updated: only the notes whose question
    changed are written, stamped now, and the others keep their stamps (Anki imports only what is
    newer, so only they are updated). Otherwise the collection is built whole."""
    stamp = _timestamp()
    kept = _kept(out, name, memory) if memory is not None and not _reproducible() else None
    updated = _updated(release, kept, memory, stamp) if kept is not None and memory is not None else None
    if updated is None:
        collection = _collection(_notes(release.entries, memory), name, stamp)
        status = memory.keep_file(_kept_name(out), collection) if memory is not None else None
    else:
        collection, status = updated
    chunks = runner.deflated(collection, 1, (kept.collection, kept.chunks) if kept and kept.chunks else None)
    with files.atomic(out) as temporary:
        temporary.write_bytes(
            _package([(COLLECTION, collection, chunks), ("media", b"{}", runner.deflated(b"{}", 1))])
        )
    if memory is not None and status is not None:
        record = {
            "shape": _shape(name),
            "notes": {entry.id: entry.content_hash for entry in release.entries},
            "chunks": [len(chunk) for chunk in chunks],
            "kept": files.status_of(status),
        }
        memory.keep_exported(out, json.dumps(record))


COLLECTION = "collection.anki2"  # the collection's name in a deck, first in it (_package)


@dataclass(frozen=True)
class _Kept:
    """The deck the last export wrote at a path: its questions' content hashes by id, its collection
    (the file kept in the cache, and its bytes), and that collection's deflated chunks as they stand
    in the deck (None where they cannot be read)."""

    held: dict[str, str]
    path: Path
    collection: bytes
    chunks: list[bytes] | None


def _kept(out: Path, name: str, memory: Memory) -> _Kept | None:
    """What the last export kept of the deck at `out`, if `out` is still that deck and the kept
    collection is still the one it wrote (their statuses: an update torn by a crash changes the
    collection's, and then the deck is built whole)."""
    try:
        record = json.loads(memory.exported(out) or "")
    except ValueError:
        return None
    held = _held(record, name)
    if held is None:
        return None
    path = memory.kept_path(_kept_name(out))
    read = _read_whole(path)
    if read is None or files.status_of(read[1]) != record.get("kept"):
        return None
    return _Kept(held, path, read[0], _chunks_in(out, record.get("chunks")))


def _read_whole(path: Path) -> tuple[bytes, os.stat_result] | None:
    """A plain file's bytes and status (no link followed); None where it cannot be read whole."""
    try:
        data, status = load.read_regular(path, _READ_LIMIT, getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    return (data, status) if len(data) == status.st_size else None


def _chunks_in(out: Path, lengths: object) -> list[bytes] | None:
    """The collection's deflated chunks in the deck at `out`, by their recorded lengths: the deck
    starts with the collection's local header (_package), whose sizes must agree."""
    if not isinstance(lengths, list) or not all(type(n) is int and n >= 0 for n in lengths):
        return None
    read = _read_whole(out)
    if read is None:
        return None
    deck, start = read[0], _LOCAL.size + len(COLLECTION)
    if len(deck) < start or deck[_LOCAL.size : start] != COLLECTION.encode():
        return None
    packed_size = _LOCAL.unpack_from(deck)[7]
    if packed_size != sum(lengths) or len(deck) < start + packed_size:
        return None
    offsets = list(itertools.accumulate(lengths, initial=start))
    return [deck[a:b] for a, b in itertools.pairwise(offsets)]


_READ_LIMIT = 1 << 30  # bytes of an earlier deck, or of its kept collection, read back


def _notes(entries: Sequence[Entry], memory: Memory | None, live: list[str] | None = None) -> list[Note]:
    """Each question's note: rendered again only where `memory` has none for its content hash and
    this renderer (rendering the prose is 95% of a deck's time: 10 s of 10.5 s at 10,000 questions,
    benchmarks/export_site.py). `live`: the names of every note the deck holds (default: these)."""
    names = [_name(entry) for entry in entries]
    kept = {name: _decoded(text) for name, text in (memory.rendered(names) if memory else {}).items()}
    render = markdown.renderer(markdown.for_anki)
    todo = [(name, entry) for name, entry in zip(names, entries, strict=True) if kept.get(name) is None]
    read = with_texts([entry for _, entry in todo], memory)
    made = {name: _note(entry.data, render) for (name, _), entry in zip(todo, read, strict=True)}
    if memory:
        memory.keep_rendered({name: "\x1e".join(note) for name, note in made.items()}, live or names)
    return [made.get(name) or kept[name] for name in names]  # type: ignore[misc]


def _name(entry: Entry) -> str:
    return f"anki {_renderer()} {entry.content_hash}"


def _reproducible() -> bool:
    """SOURCE_DATE_EPOCH asks for the same bytes from the same release: a collection built whole."""
    return os.environ.get("SOURCE_DATE_EPOCH", "").isdigit()


def _shape(name: str) -> str:
    """What a kept collection holds besides its notes: the deck's name and the renderer."""
    return f"{_renderer()} {name}"


def _kept_name(out: Path) -> str:
    """The name of the collection kept for the deck at `out`, in the bank's cache folder."""
    return f"anki-{hashlib.sha256(os.fsencode(os.path.realpath(out))).hexdigest()[:32]}.anki2"


def _updated(
    release: Release, kept: _Kept, memory: Memory, stamp: int
) -> tuple[bytes, os.stat_result] | None:
    """The kept collection, updated where it lies with the notes of questions changed, added or
    removed since (SQLite writes the pages that changed, where writing the whole 42 MB file again
    took 0.04 s to 0.17 s), and its new status; None where it cannot be updated (then the deck is
    built whole, and the kept file replaced)."""
    held = kept.held
    wanted = {entry.id for entry in release.entries}
    changed = [entry for entry in release.entries if held.get(entry.id) != entry.content_hash]
    gone = [genanki.guid_for(question) for question in held if question not in wanted]
    notes = _notes(changed, memory, live=[_name(entry) for entry in release.entries])
    try:
        db = sqlite3.connect(kept.path)
    except sqlite3.Error:
        return None
    try:
        db.execute("PRAGMA trusted_schema = OFF")
        # No journal file, no wait for the disk: a crash part way changes the file's status, so
        # the next export does not use it (_kept).
        db.execute("PRAGMA journal_mode = MEMORY")
        db.execute("PRAGMA synchronous = OFF")
        if _schema(db) != _schema_made():
            return None  # not a collection _collection made (a trigger would rewrite what is written)
        with db:
            _remove_notes(db, gone)
            if not _write_notes(db, notes, stamp):
                return None
    except sqlite3.Error:
        return None
    finally:
        db.close()
    return _read_whole(kept.path)


def _schema(db: sqlite3.Connection) -> list[tuple[str, str, str]]:
    return db.execute("SELECT type, name, sql FROM sqlite_master ORDER BY type, name").fetchall()


@memo.cached("export.anki.schema")
def _schema_made() -> list[tuple[str, str, str]]:
    """The schema of a collection _collection makes: a kept one with anything else is not updated."""
    db = sqlite3.connect(":memory:")
    try:
        db.deserialize(_collection([], "qbank", 0))
        return _schema(db)
    finally:
        db.close()


def _held(record: object, name: str) -> dict[str, str] | None:
    """The content hash of each question in the kept collection, by id, if it is this deck's."""
    notes = record.get("notes") if isinstance(record, dict) and record.get("shape") == _shape(name) else None
    if not isinstance(notes, dict) or not all(isinstance(v, str) for v in notes.values()):
        return None
    return notes


def _remove_notes(db: sqlite3.Connection, guids: list[str]) -> None:
    for guid in guids:
        db.execute("DELETE FROM cards WHERE nid IN (SELECT id FROM notes WHERE guid = ?)", (guid,))
        db.execute("DELETE FROM notes WHERE guid = ?", (guid,))


def _write_notes(db: sqlite3.Connection, notes: list[Note], stamp: int) -> bool:
    """Each note rewritten in place (by its GUID) or added, stamped `stamp`, as _collection writes
    it; False where a note's cards would differ from its one card (then the deck is built whole)."""
    model = _model()
    (top,) = db.execute(
        "SELECT max(id) FROM (SELECT id FROM notes UNION ALL SELECT id FROM cards)"
    ).fetchone()
    ids = itertools.count(max(top or 0, stamp * 1000) + 1)
    for joined, tags in notes:
        fields = joined.split("\x1f")
        if _cards(model, fields) != [0]:
            return False
        guid = genanki.guid_for(fields[0])
        found = db.execute("SELECT id FROM notes WHERE guid = ?", (guid,)).fetchone()
        if found:
            db.execute(
                "UPDATE notes SET mod = ?, tags = ?, flds = ?, sfld = ? WHERE id = ?",
                (stamp, f" {tags} ", joined, fields[0], found[0]),
            )
            db.execute("UPDATE cards SET mod = ? WHERE nid = ?", (stamp, found[0]))
        else:
            note = next(ids)
            db.execute(
                "INSERT INTO notes VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                _note_row(note, guid, stamp, joined, tags, fields),
            )
            db.execute(
                f"INSERT INTO cards VALUES ({', '.join('?' * 18)})", _card_row(next(ids), note, 0, stamp)
            )
    return True


def _decoded(text: str) -> Note | None:
    """A kept note, or None where the text is not one (it is rendered again)."""
    fields, separator, tags = text.rpartition("\x1e")
    return (fields, tags) if separator and fields.count("\x1f") == len(FIELDS) - 1 else None


@memo.cached("export.anki.renderer")
def _renderer() -> str:
    """A digest of what renders a note besides its question: qbank's version, markdown-it's, and
    the source of this module and of the markdown renderer (a change to either renders every note)."""
    digest = hashlib.sha256(f"{__version__} {metadata.version('markdown-it-py')}".encode())
    for module in (__file__, markdown.__file__):
        digest.update(Path(module).read_bytes())
    return digest.hexdigest()[:32]


def _collection(notes: list[Note], name: str, stamp: int) -> bytes:
    """The deck's collection database, built in memory: genanki writes its schema, the collection
    row, the deck and the note type; the notes and cards are the rows genanki's Note.write_to_db
    makes, inserted in two statements (genanki's Python per note took 0.45 s of a 10,000-note deck,
    this 0.17 s; tests hold the two to the same rows)."""
    model, deck = _model(), genanki.Deck(DECK_ID, name)
    deck.add_model(model)
    ids = itertools.count(stamp * 1000)  # genanki's ids: a note's, then its card's
    db = sqlite3.connect(":memory:")
    try:
        genanki.Package(deck).write_to_db(db.cursor(), stamp, ids)
        rows: list[tuple[object, ...]] = []
        cards: list[tuple[object, ...]] = []
        for joined, tags in notes:
            fields, note = joined.split("\x1f"), next(ids)
            rows.append(_note_row(note, genanki.guid_for(fields[0]), stamp, joined, tags, fields))
            cards.extend(_card_row(next(ids), note, ord_, stamp) for ord_ in _cards(model, fields))
        db.executemany("INSERT INTO notes VALUES (?,?,?,?,?,?,?,?,?,?,?)", rows)
        db.executemany(f"INSERT INTO cards VALUES ({', '.join('?' * 18)})", cards)
        db.commit()
        return db.serialize()
    finally:
        db.close()


def _note_row(
    note: int, guid: str, stamp: int, joined: str, tags: str, fields: list[str]
) -> tuple[object, ...]:
    """A row of `notes`, as genanki's Note.write_to_db writes it (sort field: the first)."""
    return (note, guid, MODEL_ID, stamp, -1, f" {tags} ", joined, fields[0], 0, 0, "")


def _card_row(card: int, note: int, ord_: int, stamp: int) -> tuple[object, ...]:
    """A new card's row, as genanki's Card.write_to_db writes it."""
    return (card, note, DECK_ID, ord_, stamp, -1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, "")


def _cards(model: genanki.Model, fields: list[str]) -> list[int]:
    """The template ordinals a note has cards for: genanki's Note._front_back_cards."""
    return [
        ord_
        for ord_, mode, needed in model._req
        if (any if mode == "any" else all)(fields[i] for i in needed)
    ]


# The zip records (APPNOTE.TXT 4.3.7, 4.3.12, 4.3.16): version 2.0 (deflate), made on Unix, files
# mode 0644, dated 2026-01-01 00:00 in MS-DOS form (genanki dated them by its temporary file's mtime).
_LOCAL = struct.Struct("<IHHHHHIIIHH")
_CENTRAL = struct.Struct("<IHHHHHHIIIHHHHHII")
_END = struct.Struct("<IHHHHIIH")
_DOS_DATE = (2026 - 1980) << 9 | 1 << 5 | 1


def _package(members: list[tuple[str, bytes, list[bytes]]]) -> bytes:
    """The .apkg: a zip archive of `members` (name, data, the outputs of runner.deflated at level 1:
    a 42 MB collection of 10,000 notes makes 5.9 MB, where level 6 took 2.4 times as long for 5.0
    MB), with MARK as its comment (is_export). Written here, not by zipfile, which cannot take data
    deflated in threads."""
    body, central = bytearray(), bytearray()
    for name, data, chunks in members:
        packed, crc, raw = b"".join(chunks), zlib.crc32(data), name.encode()
        shared = (20, 0, 8, 0, _DOS_DATE, crc, len(packed), len(data), len(raw))
        central += (
            _CENTRAL.pack(0x02014B50, 3 << 8 | 20, *shared, 0, 0, 0, 0, 0o100644 << 16, len(body)) + raw
        )
        body += _LOCAL.pack(0x04034B50, *shared, 0) + raw + packed
    end = _END.pack(0x06054B50, 0, 0, len(members), len(members), len(central), len(body), len(MARK))
    return bytes(body + central + end + MARK)


def is_export(path: Path) -> bool:
    """Whether `path` is a deck `write` made (so `--out` may replace it): a zip archive whose comment
    is MARK. zipfile reads only the archive's end records and its central directory for this."""
    try:
        with zipfile.ZipFile(path) as deck:
            return deck.comment == MARK
    except (OSError, zipfile.BadZipFile):
        return False


def _timestamp() -> int:
    """Seconds since the epoch that notes are stamped with (and their ids count up from)."""
    return int(os.environ["SOURCE_DATE_EPOCH"]) if _reproducible() else int(time.time())
