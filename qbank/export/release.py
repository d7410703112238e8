"""The release: which questions every export carries, in what form, and their hashes.

Release policy: a question is released when its file validates against the model, its status is
`published`, and the audit reports no error for its file (warnings do not withhold it). A duplicate
id is an error on both files, so neither is released. Everything else is withheld, and counted by
reason so that a release says what it left out.

Each released question is its public record (qbank.model.public: the public fields, its path and
its content hash), as the audit made it. The release hash is SHA-256 over `id content_hash` lines,
sorted by id, so it changes exactly when a released question's content, or the set of released questions, changes.
Nothing here runs checks or validates: the engine's report says what failed, and holds each
file's release view (qbank.engine.views).
"""

from __future__ import annotations

import hashlib
import json
import os
import typing
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple, Protocol

from qbank import __version__, load
from qbank.engine import Report, views
from qbank.export.files import write_atomic
from qbank.finding import Severity
from qbank.model import vocabulary

FORMAT = "qbank-release"
FORMAT_VERSION = 1
POLICY = "status published, validates against the model, no error findings in its file"


class Entry(NamedTuple):
    """One released question: its public record (with `path` and `content_hash`) as one line of JSON,
    as the audit made it, its listing and the listing's facets, and what the audit found in it for the page
    (qbank.engine.views: checked napkin lines, claim verdicts, the numeric answer). A tuple: 10,000
    frozen dataclasses took 20 ms to make, these 4 ms; so `data` and `facts` decode at each use."""

    id: str
    content_hash: str
    text: str  # the public record, as JSON: the JSON export copies it ("" if not read: with_texts)
    listing_text: str  # the row a list of questions shows (qbank.model.public.listing), as script_json
    facts_text: str  # the page facts, as JSON with sorted keys ("" if not read: with_texts)
    facts_hash: str  # SHA-256 of facts_text: the site's page key reads it
    facets: str  # the listing's values counted by the site (qbank.model.public.facets)

    @staticmethod
    def of(data: dict[str, Any], facts: dict[str, Any] | None = None) -> Entry:
        """The entry of a public record and its page facts, as the audit's view of it holds them."""
        return Entry.of_view(views.published(data, facts or {}))

    @staticmethod
    def of_view(view: views.View) -> Entry:
        return Entry(
            view.id, view.content_hash, view.record, view.listing, view.facts, view.facts_hash, view.facets
        )

    @property
    def facts(self) -> dict[str, Any]:
        """The page facts, decoded (for the pages a build renders)."""
        return dict(json.loads(self.facts_text))

    @property
    def data(self) -> dict[str, Any]:
        """The public record, decoded (for the writers that read fields of it)."""
        return dict(json.loads(self.text))


@dataclass(frozen=True)
class Release:
    entries: tuple[Entry, ...]  # sorted by id
    topic_groups: dict[str, tuple[str, ...]]  # schema/taxonomy.yaml's topics, by group
    withheld: dict[str, int]  # reason -> number of files

    @property
    def release_hash(self) -> str:
        lines = "".join(f"{e.id} {e.content_hash}\n" for e in self.entries)
        return hashlib.sha256(lines.encode()).hexdigest()


def select(report: Report, topic_groups: dict[str, tuple[str, ...]]) -> Release:
    """The released questions of an export audit (engine.Settings(views=True)) run from the bank's
    root, so that findings' paths and released paths are both relative to it."""
    failed = {f.path for f in report.findings if f.severity is Severity.ERROR}
    withheld: Counter[str] = Counter()
    entries = []
    for path, view in report.views:
        reason = _withheld_because(view.status, path in failed)
        if reason:
            withheld[reason] += 1
            continue
        entries.append(Entry.of_view(view))
    entries.sort(key=lambda e: e.id)
    return Release(tuple(entries), topic_groups, dict(sorted(withheld.items())))


class Texts(Protocol):
    def texts(self, column: str, digests: list[str]) -> dict[str, str]: ...


class Unread(Exception):
    """A text the audit left unread that the cache no longer holds (another run changed it)."""


def with_texts(entries: Sequence[Entry], memory: Texts | None, facts: bool = False) -> list[Entry]:
    """These entries with their public records (and, with `facts`, their page facts): an export that
    writes only some questions again (SQLite, Anki, the site) reads neither with the views
    (engine.Settings.texts), then reads them for those from the cache by their digests
    (qbank.engine.store.Store.texts)."""
    wanted = [("record", "content_hash", "text"), *([("facts", "facts_hash", "facts_text")] if facts else [])]
    for column, digest, field in wanted:
        unread = [getattr(entry, digest) for entry in entries if not getattr(entry, field)]
        found = memory.texts(column, unread) if unread and memory is not None else {}
        if any(name not in found for name in unread):
            raise Unread("the audit cache changed while exporting (another qbank run?): export again")
        entries = [
            entry if getattr(entry, field) else entry._replace(**{field: found[getattr(entry, digest)]})
            for entry in entries
        ]
    return list(entries)


def _withheld_because(status: str | None, has_errors: bool) -> str | None:
    if status is None:
        return "does not validate"
    if status != "published":
        return f"status {status}"
    if has_errors:
        return "has errors"
    return None


def taxonomy(release: Release) -> dict[str, Any]:
    """The closed vocabularies a consumer filters by: the model's enums and the bank's topics."""
    return {
        "tracks": list(typing.get_args(vocabulary.Track)),
        "levels": list(typing.get_args(vocabulary.Level)),
        "zones": list(typing.get_args(vocabulary.Zone)),
        "competency_areas": list(typing.get_args(vocabulary.CompetencyArea)),
        "topics": {group: list(slugs) for group, slugs in release.topic_groups.items()},
    }


def document(release: Release) -> dict[str, Any]:
    """The release as one JSON document (schema/release.schema.json)."""
    return envelope(release) | {"questions": [entry.data for entry in release.entries]}


def envelope(release: Release) -> dict[str, Any]:
    """The document but its questions."""
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "generator": f"qbank {__version__}",
        "policy": POLICY,
        "release_hash": release.release_hash,
        "count": len(release.entries),
        "withheld": release.withheld,
        "taxonomy": taxonomy(release),
    }


def write_json(release: Release, out: Path) -> None:
    """The document with one question a line (so a diff of two releases shows the questions that
    changed): json's C encoder writes each, where `indent` would take its Python one, 3x the time of
    a warm audit at 10,000 questions (benchmarks/export_site.py)."""
    top = json.dumps(envelope(release), indent=1, ensure_ascii=False).removesuffix("\n}")
    lines = ",\n".join("  " + entry.text for entry in release.entries)
    body = f"[\n{lines}\n ]" if release.entries else "[]"
    write_atomic(out, f'{top},\n "questions": {body}\n}}\n'.encode())


# How every document write_json makes begins: `format` is the first key, with indent=1.
MARKER = b'{\n "format": "' + FORMAT.encode() + b'",'


def is_export(path: Path) -> bool:
    """Whether `path` begins as write_json's documents do (so `--out` may replace it). Only the marker's
    bytes are read: a release is megabytes, and a file that is not one may be anything."""
    try:
        head, _ = load.read_regular(path, len(MARKER), getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return False
    return head == MARKER
