from __future__ import annotations

import itertools
import json
import shutil
import sqlite3
import zipfile
from pathlib import Path

import genanki
import pytest
from anki.collection import Collection, ImportAnkiPackageOptions, ImportAnkiPackageRequest

from qbank.engine import runner, store
from qbank.export import anki, files
from tests.export.conftest import RELEASED, edited_bank, release_of


def _import(collection: Collection, package: Path) -> None:
    options = ImportAnkiPackageOptions(with_scheduling=False, with_deck_configs=False)
    collection.import_anki_package(ImportAnkiPackageRequest(package_path=str(package), options=options))


def test_anki_imports_the_deck_and_updates_it_in_place(
    tmp_path: Path, bank: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Anki's own backend reads the deck; a newer deck updates notes instead of adding copies."""
    deck = tmp_path / "deck.apkg"
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1767225600")
    anki.write(release_of(bank), deck)
    collection = Collection(str(tmp_path / "collection.anki2"))
    try:
        _import(collection, deck)
        assert collection.note_count() == len(RELEASED)
        note = collection.get_note(collection.find_notes("zeppelin")[0])
        assert note["Id"] == "edge-202611-e001" and note.guid == genanki.guid_for("edge-202611-e001")
        assert set(note.tags) >= {"edge", "L3", "diagnosis", "precision", "mixed-precision-training"}
        hostile = collection.get_note(collection.find_notes("Id:cloud-202611-e002")[0])
        assert "&lt;script&gt;" in hostile["Scenario"] and "<script>" not in hostile["Scenario"]
        assert (
            "<b>Correct option: B</b>"
            in collection.get_note(collection.find_notes("Id:cloud-202611-e004")[0])["Answer"]
        )

        newer = tmp_path / "newer"
        shutil.copytree(bank, newer)
        edited = newer / "questions" / "edge" / "precision" / "edge-202611-e001.yaml"
        edited.write_text(edited.read_text().replace("A zeppelin fleet", "A blimp fleet"))
        monkeypatch.setenv("SOURCE_DATE_EPOCH", "1767229200")  # an hour later
        anki.write(release_of(newer), deck)
        _import(collection, deck)
        assert collection.note_count() == len(RELEASED)
        updated = collection.get_note(collection.find_notes("Id:edge-202611-e001")[0])
        assert updated.id == note.id and "A blimp fleet" in updated["Scenario"]
    finally:
        collection.close()


def test_math_is_left_for_anki_and_l6_plus_is_a_valid_tag(bank: Path) -> None:
    chosen = release_of(bank)
    math = next(e for e in chosen.entries if e.id == "cloud-202611-e003")
    joined, _ = anki._note(math.data, anki.markdown.renderer(anki.markdown.for_anki))
    fields = joined.split("\x1f")
    assert "\\(2^{-24}\\)" in fields[3] and "\\[2^{-24}" in fields[6]
    lifted = math.data | {"level": "L6+"}
    assert "L6plus" in anki._tags(lifted)


def test_same_release_same_bytes_with_source_date_epoch(
    tmp_path: Path, bank: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1767225600")
    chosen = release_of(bank)
    anki.write(chosen, tmp_path / "a.apkg")
    anki.write(chosen, tmp_path / "b.apkg")
    assert (tmp_path / "a.apkg").read_bytes() == (tmp_path / "b.apkg").read_bytes()
    assert zipfile.ZipFile(tmp_path / "a.apkg").namelist() == ["collection.anki2", "media"]


def test_only_a_deck_it_wrote_counts_as_an_earlier_export(tmp_path: Path, bank: Path) -> None:
    anki.write(release_of(bank), tmp_path / "ours.apkg")
    assert anki.is_export(tmp_path / "ours.apkg")
    with zipfile.ZipFile(tmp_path / "theirs.apkg", "w") as theirs:
        theirs.writestr("collection.anki2", b"someone's deck")
    (tmp_path / "notes.apkg").write_text("not a zip")
    assert not anki.is_export(tmp_path / "theirs.apkg") and not anki.is_export(tmp_path / "notes.apkg")


def test_notes_kept_in_the_cache_are_not_rendered_again_and_make_the_same_deck(
    tmp_path: Path, bank: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bank's cache keeps each rendered note by its content hash and the renderer: a second
    deck renders only the edited question, and a kept note that is not one is rendered again."""
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1767225600")
    chosen = release_of(bank)
    anki.write(chosen, tmp_path / "plain.apkg")
    rendered: list[str] = []
    note = anki._note
    monkeypatch.setattr(anki, "_note", lambda data, render: rendered.append(data["id"]) or note(data, render))
    with store.memory(bank) as memory:
        assert memory is not None
        for name in ("first", "second"):
            anki.write(chosen, tmp_path / f"{name}.apkg", memory=memory)
        assert len(rendered) == len(chosen.entries)  # all for the first deck, none for the second
        edited = tmp_path / "edited"
        shutil.copytree(bank, edited)
        question = edited / "questions" / "edge" / "precision" / "edge-202611-e001.yaml"
        question.write_text(question.read_text().replace("A zeppelin fleet", "A blimp fleet"))
        anki.write(release_of(edited), tmp_path / "edited.apkg", memory=memory)
        assert rendered[len(chosen.entries) :] == ["edge-202611-e001"]
        memory._db.execute("UPDATE rendered SET text = 'too few fields\x1etags'")
        anki.write(chosen, tmp_path / "mended.apkg", memory=memory)
    assert len(rendered) == 2 * len(chosen.entries) + 1
    decks = {
        name: (tmp_path / f"{name}.apkg").read_bytes() for name in ("plain", "first", "second", "mended")
    }
    assert len(set(decks.values())) == 1


def test_the_collection_holds_the_rows_genanki_writes(bank: Path, tmp_path: Path) -> None:
    """The notes and cards inserted in bulk are the rows genanki's own Package writes (its Note per
    question, with this deck's GUIDs), and the zip written here is one that zipfile reads whole."""
    notes, stamp = anki._notes(release_of(bank).entries, None), 1_767_225_600
    model, deck = anki._model(), genanki.Deck(anki.DECK_ID, "qbank")
    for joined, tags in notes:
        fields = joined.split("\x1f")
        deck.add_note(
            genanki.Note(model=model, fields=fields, tags=tags.split(), guid=genanki.guid_for(fields[0]))
        )
    theirs = sqlite3.connect(tmp_path / "genanki.anki2")
    genanki.Package(deck).write_to_db(theirs.cursor(), stamp, itertools.count(stamp * 1000))
    theirs.commit()
    ours = sqlite3.connect(":memory:")
    ours.deserialize(anki._collection(notes, "qbank", stamp))
    assert list(ours.iterdump()) == list(theirs.iterdump())
    assert ours.execute("SELECT count(*) FROM cards").fetchone() == (len(RELEASED),)
    deck_file = tmp_path / "deck.apkg"
    members = [
        (name, data, runner.deflated(data, 1))
        for name, data in (("collection.anki2", b"x" * 100_000), ("media", b"{}"))
    ]
    deck_file.write_bytes(anki._package(members))
    with zipfile.ZipFile(deck_file) as archive:
        assert archive.testzip() is None and archive.comment == anki.MARK
        assert archive.read("collection.anki2") == b"x" * 100_000 and archive.namelist()[1] == "media"


def _deck_rows(deck: Path) -> dict[str, tuple[int, str, str]]:
    """Each note of a deck by GUID: its stamp, fields and tags; and every note has one card."""
    with zipfile.ZipFile(deck) as archive:
        db = sqlite3.connect(":memory:")
        db.deserialize(archive.read("collection.anki2"))
    assert (
        db.execute("SELECT count(*) FROM cards").fetchone()
        == db.execute("SELECT count(*) FROM notes").fetchone()
    )
    return {
        guid: (mod, flds, tags)
        for guid, mod, flds, tags in db.execute("SELECT guid, mod, flds, tags FROM notes")
    }


def test_a_deck_written_again_updates_only_the_notes_that_changed(
    tmp_path: Path, bank: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Over the deck the last export wrote, the kept collection is updated: the edited note is
    rewritten and stamped now, a removed one is gone, the others keep their stamps; the notes are
    those a whole build makes, and Anki's backend takes the update."""
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    deck, first, later = tmp_path / "deck.apkg", 1_767_225_600, 1_767_229_200
    edited = release_of(edited_bank(bank, tmp_path / "edited"))
    with store.memory(bank) as memory:
        assert memory is not None
        monkeypatch.setattr(anki, "_timestamp", lambda: first)
        anki.write(release_of(bank), deck, memory=memory)
        before = _deck_rows(deck)
        shutil.copy(deck, tmp_path / "before.apkg")
        monkeypatch.setattr(anki, "_timestamp", lambda: later)
        earlier: list[object] = []
        deflated = runner.deflated
        monkeypatch.setattr(
            runner,
            "deflated",
            lambda data, level, before=None: earlier.append(before) or deflated(data, level, before),
        )
        anki.write(edited, deck, memory=memory)
        monkeypatch.setattr(runner, "deflated", deflated)
    assert earlier[0] is not None  # the last deck's chunks, read back from it for reuse
    after = _deck_rows(deck)
    blimp, gone = genanki.guid_for("edge-202611-e001"), genanki.guid_for("cloud-202611-e000")
    assert set(after) == set(before) - {gone}
    assert after[blimp][0] == later and "A blimp fleet" in after[blimp][1]
    assert all(after[guid] == before[guid] for guid in after if guid != blimp)
    with zipfile.ZipFile(deck) as archive:  # its kept chunks and new ones: a whole deflate's stream
        collection = archive.read(anki.COLLECTION)
    members = [
        (anki.COLLECTION, collection, runner.deflated(collection, 1)),
        ("media", b"{}", runner.deflated(b"{}", 1)),
    ]
    assert deck.read_bytes() == anki._package(members)
    anki.write(edited, tmp_path / "whole.apkg")  # no memory: built whole
    assert {g: row[1:] for g, row in after.items()} == {
        g: row[1:] for g, row in _deck_rows(tmp_path / "whole.apkg").items()
    }
    collection = Collection(str(tmp_path / "collection.anki2"))
    try:
        _import(collection, tmp_path / "before.apkg")
        _import(collection, deck)
        note = collection.get_note(collection.find_notes("Id:edge-202611-e001")[0])
        assert "A blimp fleet" in note["Scenario"]
    finally:
        collection.close()


def test_a_deck_changed_since_the_export_is_built_whole(
    tmp_path: Path, bank: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    deck = tmp_path / "deck.apkg"
    with store.memory(bank) as memory:
        assert memory is not None
        monkeypatch.setattr(anki, "_timestamp", lambda: 1_767_225_600)
        anki.write(release_of(bank), deck, memory=memory)
        deck.write_bytes(deck.read_bytes())  # the same bytes, written by someone else: a new status
        monkeypatch.setattr(anki, "_timestamp", lambda: 1_767_229_200)
        anki.write(release_of(bank), deck, memory=memory)
    assert {mod for mod, _, _ in _deck_rows(deck).values()} == {1_767_229_200}


def test_a_kept_collection_with_a_trigger_is_not_updated(
    tmp_path: Path, bank: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The kept collection is the cache's, never trusted: one whose schema holds anything a collection
    qbank makes does not (here a trigger that would blank every note written) is built whole, even
    with a record that vouches for its status."""
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    deck, edited = tmp_path / "deck.apkg", release_of(edited_bank(bank, tmp_path / "edited"))
    with store.memory(bank) as memory:
        assert memory is not None
        anki.write(release_of(bank), deck, memory=memory)
        kept = _tamper(
            memory, deck, "CREATE TRIGGER blank AFTER UPDATE ON notes BEGIN UPDATE notes SET flds = ''; END"
        )
        record = json.loads(memory.exported(deck) or "")
        memory.keep_exported(deck, json.dumps(record | {"kept": files.status_of(kept.stat())}))
        anki.write(edited, deck, memory=memory)
    rows = _deck_rows(deck)
    assert "A blimp fleet" in rows[genanki.guid_for("edge-202611-e001")][1]
    assert all(flds for _, flds, _ in rows.values())


def test_a_kept_collection_written_since_the_export_is_not_used(
    tmp_path: Path, bank: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An update torn part way (here: a note blanked in the kept file, and no record of it) leaves a
    collection whose status is not the one recorded: the next deck is built whole."""
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    deck, edited = tmp_path / "deck.apkg", release_of(edited_bank(bank, tmp_path / "edited"))
    with store.memory(bank) as memory:
        assert memory is not None
        anki.write(release_of(bank), deck, memory=memory)
        kept = genanki.guid_for("cloud-202611-e003")  # neither edited nor removed: kept as it is
        _tamper(memory, deck, f"UPDATE notes SET flds = '' WHERE guid = '{kept}'")
        anki.write(edited, deck, memory=memory)
    anki.write(edited, tmp_path / "whole.apkg")
    assert {g: row[1:] for g, row in _deck_rows(deck).items()} == {
        g: row[1:] for g, row in _deck_rows(tmp_path / "whole.apkg").items()
    }


def _tamper(memory: store.Store, deck: Path, statement: str) -> Path:
    """Run `statement` on the collection kept for `deck`, where it lies; its path."""
    kept = memory.kept_path(anki._kept_name(deck))
    db = sqlite3.connect(kept)
    with db:
        db.execute(statement)
    db.close()
    return kept
