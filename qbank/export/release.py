"""The release: which questions every export carries, in what form, and their hashes.

Release policy: a question is released when its file validates against the model, its status is
`published`, and the audit reports no error for its file (warnings do not withhold it). A duplicate
id is an error on both files, so neither is released. Everything else is withheld, and counted by
reason so that a release says what it left out.

Each released question is its public record (qbank.model.public: the public fields, its path and
its content hash), as the audit made it. The release hash is SHA-256 over `id content_hash` lines, sorted by id, so it
changes exactly when a released question's content, or the set of released questions, changes.
Nothing here runs checks or validates: the engine's report says what failed, and holds each
file's release view (qbank.engine.views).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import typing
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, create_model

from qbank import __version__, load
from qbank.engine import Report
from qbank.export.files import write_atomic
from qbank.finding import Severity
from qbank.model import public, vocabulary
from qbank.model.public import PUBLIC_FIELDS
from qbank.model.question import Question

FORMAT = "qbank-release"
FORMAT_VERSION = 1
POLICY = "status published, validates against the model, no error findings in its file"


@dataclass(frozen=True)
class Entry:
    """One released question: its exported record (with `path` and `content_hash`) and what the
    audit found in it for the page (qbank.engine.views: checked napkin lines, claim verdicts, the
    numeric answer)."""

    data: dict[str, Any]
    facts: dict[str, Any] = field(default_factory=dict)
    model: Question | None = field(default=None, compare=False, repr=False)  # the model, if at hand

    @property
    def id(self) -> str:
        return str(self.data["id"])

    @functools.cached_property
    def question(self) -> Question:
        """The model, for the writers that render prose (the site's pages, Anki): made only for the
        pages a build renders, so an unchanged site validates nothing."""
        return self.model or public.question_of(self.data)


@dataclass(frozen=True)
class Release:
    entries: tuple[Entry, ...]  # sorted by id
    topic_groups: dict[str, tuple[str, ...]]  # schema/taxonomy.yaml's topics, by group
    withheld: dict[str, int]  # reason -> number of files

    @property
    def release_hash(self) -> str:
        lines = "".join(f"{e.id} {e.data['content_hash']}\n" for e in self.entries)
        return hashlib.sha256(lines.encode()).hexdigest()


def select(report: Report, topic_groups: dict[str, tuple[str, ...]]) -> Release:
    """The released questions of an export audit (engine.Settings(views=True)) run from the bank's
    root, so that findings' paths and released paths are both relative to it."""
    failed = {f.path for f in report.findings if f.severity is Severity.ERROR}
    withheld: Counter[str] = Counter()
    entries = []
    for path, text in report.views:
        view = json.loads(text)
        reason = _withheld_because(view["status"], path in failed)
        if reason:
            withheld[reason] += 1
            continue
        entries.append(Entry(view["record"], view["facts"]))
    entries.sort(key=lambda e: e.id)
    return Release(tuple(entries), topic_groups, dict(sorted(withheld.items())))


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
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "generator": f"qbank {__version__}",
        "policy": POLICY,
        "release_hash": release.release_hash,
        "count": len(release.entries),
        "withheld": release.withheld,
        "taxonomy": taxonomy(release),
        "questions": [entry.data for entry in release.entries],
    }


def _released_question_model() -> type[BaseModel]:
    """The schema of a released question, built from Question's own fields so the two cannot drift."""
    fields: dict[str, Any] = {
        name: (Question.model_fields[name].annotation, Question.model_fields[name]) for name in PUBLIC_FIELDS
    }
    fields["path"] = (str, Field(description="The file, relative to the bank's root."))
    fields["content_hash"] = (
        str,
        Field(pattern="^[0-9a-f]{64}$", description="SHA-256 of the canonical JSON of the other fields."),
    )
    return create_model("ReleasedQuestion", __config__=ConfigDict(extra="forbid"), **fields)


class Taxonomy(BaseModel):
    model_config = ConfigDict(extra="forbid")
    tracks: list[str]
    levels: list[str]
    zones: list[str]
    competency_areas: list[str]
    topics: dict[str, list[str]]


class _Document(BaseModel):
    """Everything in the document but its questions (added in schema_text)."""

    model_config = ConfigDict(extra="forbid")
    format: typing.Literal["qbank-release"]
    format_version: typing.Literal[1]
    generator: str
    policy: str
    release_hash: Annotated[str, Field(pattern="^[0-9a-f]{64}$")]
    count: Annotated[int, Field(ge=0)]
    withheld: dict[str, int]
    taxonomy: Taxonomy


def schema_text() -> str:
    """schema/release.schema.json (JSON Schema 2020-12), byte-stable; `qbank schema` writes it."""
    released = _released_question_model()
    doc = create_model("Release", __base__=_Document, questions=(list[released], ...))  # type: ignore[valid-type]
    schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "release.schema.json",
        **doc.model_json_schema(),
    }
    return json.dumps(schema, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def write_json(release: Release, out: Path) -> None:
    write_atomic(out, json.dumps(document(release), indent=1, ensure_ascii=False).encode() + b"\n")


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
