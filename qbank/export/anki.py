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
"""

from __future__ import annotations

import os
import time
import zipfile
from pathlib import Path
from typing import Any

import genanki

from qbank.export import files, markdown
from qbank.export.release import Release

MODEL_ID = 1_607_392_319  # fixed forever: Anki keys note types and decks by these ids
DECK_ID = 2_059_400_110
MARK = b"qbank anki deck"  # the archive comment of every deck written here; Anki ignores it
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


def _note(data: dict[str, Any], model: genanki.Model, render: markdown.Render) -> genanki.Note:
    """A question's note, from its released record (the model is not needed to render it)."""
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
    return _Note(model=model, fields=fields, tags=_tags(data))


def _tags(data: dict[str, Any]) -> list[str]:
    tags = [
        data["track"],
        data["level"].replace("+", "plus"),
        data["zone"],
        data["competency_area"],
        data["topic"],
    ]
    return tags + sorted({tag.replace(" ", "_") for tag in data.get("tags") or ()} - set(tags))


def write(release: Release, out: Path, name: str = "qbank") -> None:
    model = _model()
    deck = genanki.Deck(DECK_ID, name)
    render = markdown.renderer(markdown.for_anki)
    for entry in release.entries:
        deck.add_note(_note(entry.data, model, render))
    stamp = _timestamp()
    with files.atomic(out) as temporary:
        genanki.Package(deck).write_to_file(str(temporary), timestamp=stamp)
        _set_zip_times(temporary, stamp)


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


def _set_zip_times(path: Path, stamp: int) -> None:
    """genanki dates zip entries by its temporary file's mtime; date them by the notes' stamp. The
    archive's comment marks the deck as qbank's (is_export)."""
    with zipfile.ZipFile(path) as old:
        entries = [(info.filename, old.read(info)) for info in old.infolist()]
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as new:
        new.comment = MARK
        for filename, data in entries:
            new.writestr(
                zipfile.ZipInfo(filename, date_time=(2026, 1, 1, 0, 0, 0)), data, zipfile.ZIP_DEFLATED
            )
