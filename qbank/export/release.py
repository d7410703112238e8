"""The release: which questions every export carries, in what form, and their hashes.

Release policy: a question is released when its file validates against the model, its status is
`published`, and the audit reports no error for its file (warnings do not withhold it). A duplicate
id is an error on both files, so neither is released. Everything else is withheld, and counted by
reason so that a release says what it left out.

Each released question is the public part of the model (no status, no legacy LLM stamps, no
`chains`), plus its path in the bank and a content hash: SHA-256 of its canonical JSON (keys sorted,
no spaces, UTF-8). The release hash is SHA-256 over `id content_hash` lines, sorted by id, so it
changes exactly when a released question's content, or the set of released questions, changes.
Nothing here runs checks: the engine's report says what failed.
"""

from __future__ import annotations

import hashlib
import json
import os
import typing
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, create_model

from qbank import __version__, load
from qbank.engine import Report, display_path
from qbank.export.files import write_atomic
from qbank.finding import Severity
from qbank.model import vocabulary
from qbank.model.question import Question

FORMAT = "qbank-release"
FORMAT_VERSION = 1
POLICY = "status published, validates against the model, no error findings in its file"
PUBLIC_FIELDS = (
    "schema_version",
    "id",
    "track",
    "level",
    "zone",
    "topic",
    "competency_area",
    "bloom_level",
    "phase",
    "title",
    "scenario",
    "question",
    "visual",
    "details",
    "provenance",
    "requires_explanation",
    "expected_time_minutes",
    "tags",
    "verify",
    "authors",
    "created_at",
    "updated_at",
    "generator",
    "human_reviewed",
)


@dataclass(frozen=True)
class Entry:
    """One released question: the model, and the exported record (with `path` and `content_hash`)."""

    question: Question
    data: dict[str, Any]
    # What the audit re-executed for it (qbank/checks/facts.py: checked, claims, answer); empty for a
    # question that no audit saw (a hostile test's constructed one).
    facts: Mapping[str, Any] = field(default_factory=dict)

    @property
    def id(self) -> str:
        return self.question.id


@dataclass(frozen=True)
class Release:
    entries: tuple[Entry, ...]  # sorted by id
    topic_groups: dict[str, tuple[str, ...]]  # schema/taxonomy.yaml's topics, by group
    withheld: dict[str, int]  # reason -> number of files

    @property
    def release_hash(self) -> str:
        lines = "".join(f"{e.id} {e.data['content_hash']}\n" for e in self.entries)
        return hashlib.sha256(lines.encode()).hexdigest()


def select(report: Report, bank: Path, topic_groups: dict[str, tuple[str, ...]]) -> Release:
    """The released questions of an audit of `bank` run from `bank` (so findings' paths are
    relative to it, as released paths are)."""
    failed = {f.path for f in report.findings if f.severity is Severity.ERROR}
    withheld: Counter[str] = Counter()
    entries = []
    for record in report.records:
        path = display_path(record.file, bank)
        reason = _withheld_because(record.question, path in failed)
        if reason:
            withheld[reason] += 1
            continue
        assert record.question is not None  # _withheld_because withholds files that did not validate
        facts = report.facts.get(record.file, {})
        entries.append(Entry(record.question, exported(record.question, path), facts))
    entries.sort(key=lambda e: e.id)
    return Release(tuple(entries), topic_groups, dict(sorted(withheld.items())))


def _withheld_because(question: Question | None, has_errors: bool) -> str | None:
    if question is None:
        return "does not validate"
    if question.status != "published":
        return f"status {question.status}"
    if has_errors:
        return "has errors"
    return None


def exported(question: Question, path: str) -> dict[str, Any]:
    """A question's released record: its public fields, its path and its content hash."""
    data = question.model_dump(mode="json", include=set(PUBLIC_FIELDS), exclude_none=True)
    data = {key: data[key] for key in PUBLIC_FIELDS if key in data} | {"path": path}
    return data | {"content_hash": hashlib.sha256(canonical(data)).hexdigest()}


def canonical(data: Any) -> bytes:
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


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
