"""The release as an Anki deck (.apkg, genanki) for spaced repetition.

One note per question, with the stable GUID `genanki.guid_for(id)`, so importing a newer deck
updates the notes in place instead of adding copies. The card's front is the scenario and the
question (and the options); the back adds the answer, the common mistake and the napkin math.
Fields are HTML from the same CommonMark renderer as the site, with math as `\\(..\\)`, which Anki
typesets itself. Tags: track, level (`L6+` becomes `L6plus`: Anki tags cannot hold `+` well),
zone, competency area and topic.

Anki updates an imported note only when the new one is newer, so notes carry the export time, or
`SOURCE_DATE_EPOCH` when it is set (https://reproducible-builds.org/specs/source-date-epoch/):
with it, the same release gives the same bytes (research/ecosystem.md §6.5).

Rendering the prose is most of a deck's work, so `qbank export` keeps each note, rendered, in the
bank's cache (qbank.engine.store, Store.rendered) by its content hash and a digest of this renderer:
the next deck renders only the questions that changed, and is the same deck.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import sqlite3
import tempfile
import time
import zipfile
from importlib import metadata
from pathlib import Path
from typing import Any, Protocol

import genanki

from qbank import __version__, memo
from qbank.export import files, markdown
from qbank.export.release import Release

MODEL_ID = 1_607_392_319  # fixed forever: Anki keys note types and decks by these ids
DECK_ID = 2_059_400_110
MARK = b"qbank anki deck"  # the archive comment of every deck written here; Anki ignores it
Note = tuple[list[str], list[str]]  # a note's fields (FIELDS) and tags
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


class _Note(genanki.Note):  # type: ignore[misc]
    @property
    def guid(self) -> str:
        return str(genanki.guid_for(self.fields[0]))


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
    fields = [
        data["id"],
        markdown.escape(data["title"]),
        markdown.escape(meta),
        render(data["scenario"]),
        render(data.get("question") or ""),
        options,
        answer,
        render(details.get("common_mistake") or ""),
        render(details.get("napkin_math") or ""),
    ]
    return fields, _tags(data)


def _tags(data: dict[str, Any]) -> list[str]:
    tags = [
        data["track"],
        data["level"].replace("+", "plus"),
        data["zone"],
        data["competency_area"],
        data["topic"],
    ]
    return tags + sorted({tag.replace(" ", "_") for tag in data.get("tags") or ()} - set(tags))


class Memory(Protocol):
    """Where notes rendered by an earlier export are kept (qbank.engine.store.Store.rendered)."""

    def rendered(self, names: list[str]) -> dict[str, str]: ...

    def keep_rendered(self, made: dict[str, str], live: list[str]) -> None: ...


def write(release: Release, out: Path, name: str = "qbank", memory: Memory | None = None) -> None:
    model = _model()
    deck = genanki.Deck(DECK_ID, name)
    for fields, tags in _notes(release, memory):
        deck.add_note(_Note(model=model, fields=fields, tags=tags))
    stamp = _timestamp()
    with files.atomic(out) as temporary, tempfile.TemporaryDirectory() as work:
        collection = Path(work, "collection.anki2")
        _collection(deck, collection, stamp)
        _package(collection, temporary)


def _notes(release: Release, memory: Memory | None) -> list[Note]:
    """Each question's note: rendered again only where `memory` has none for its content hash and
    this renderer (rendering the prose is 95% of a deck's time: 10 s of 10.5 s at 10,000 questions,
    benchmarks/export_site.py)."""
    names = [f"anki {_renderer()} {entry.content_hash}" for entry in release.entries]
    kept = {name: _decoded(text) for name, text in (memory.rendered(names) if memory else {}).items()}
    render = markdown.renderer(markdown.for_anki)
    made = {
        name: _note(entry.data, render)
        for name, entry in zip(names, release.entries, strict=True)
        if kept.get(name) is None
    }
    if memory:
        memory.keep_rendered(
            {name: json.dumps(note, ensure_ascii=False) for name, note in made.items()}, names
        )
    return [made.get(name) or kept[name] for name in names]  # type: ignore[misc]


def _decoded(text: str) -> Note | None:
    """A kept note, or None where the text is not one (it is rendered again)."""
    try:
        fields, tags = json.loads(text)
    except (ValueError, TypeError):  # not JSON, or not two things
        return None
    if not (isinstance(fields, list) and len(fields) == len(FIELDS) and isinstance(tags, list)):
        return None
    if not all(isinstance(value, str) for value in [*fields, *tags]):
        return None
    return fields, tags


@memo.cached("export.anki.renderer")
def _renderer() -> str:
    """A digest of what renders a note besides its question: qbank's version, markdown-it's, and
    the source of this module and of the markdown renderer (a change to either renders every note)."""
    digest = hashlib.sha256(f"{__version__} {metadata.version('markdown-it-py')}".encode())
    for module in (__file__, markdown.__file__):
        digest.update(Path(module).read_bytes())
    return digest.hexdigest()[:32]


def _collection(deck: genanki.Deck, path: Path, stamp: int) -> None:
    """The deck's collection database, as genanki's Package.write_to_file makes it, into `path`: a
    temporary file, so no journal and no waits for the disk."""
    db = sqlite3.connect(path)
    try:
        db.executescript("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;")
        genanki.Package(deck).write_to_db(db.cursor(), stamp, itertools.count(stamp * 1000))
        db.commit()
    finally:
        db.close()


def _package(collection: Path, path: Path) -> None:
    """The .apkg: the collection and an empty media list, dated by a fixed time (genanki dates them
    by its temporary file's mtime), with MARK as the archive's comment (is_export). Deflate level 1:
    a 42 MB collection of 10,000 notes packs in 0.23 s to 5.9 MB, where level 6 took 0.64 s for
    5.0 MB (zlib, measured on the benchmark's bank)."""
    with zipfile.ZipFile(path, "w") as deck:
        deck.comment = MARK
        for filename, data in (("collection.anki2", collection.read_bytes()), ("media", b"{}")):
            entry = zipfile.ZipInfo(filename, date_time=(2026, 1, 1, 0, 0, 0))
            deck.writestr(entry, data, zipfile.ZIP_DEFLATED, compresslevel=1)


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
    fixed = os.environ.get("SOURCE_DATE_EPOCH", "")
    return int(fixed) if fixed.isdigit() else int(time.time())
