"""The public part of a question: what every export releases of it, and its content hash.

Each released question is the public part of the model (no status, no legacy LLM stamps, no
`chains`), plus its path in the bank and a content hash: SHA-256 of its canonical JSON (keys sorted,
no spaces, UTF-8). The audit makes this record (the engine's release view, which its cache keeps),
so that an export of an unchanged bank validates nothing again; the exports only format it.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from qbank.model.question import Question

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
_ADDED = ("path", "content_hash")  # the exported record's keys that are not the model's


def public_record(question: Question, path: str) -> dict[str, Any]:
    """A question's released record: its public fields, its path and its content hash."""
    data = question.model_dump(mode="json", include=set(PUBLIC_FIELDS), exclude_none=True)
    data = {key: data[key] for key in PUBLIC_FIELDS if key in data} | {"path": path}
    return data | {"content_hash": hashlib.sha256(canonical(data)).hexdigest()}


LONG_FIELDS = ("details", "verify", "visual")  # what a listing of questions does not show


def summary(record: dict[str, Any]) -> dict[str, Any]:
    """A released record less its long fields: what a list of questions shows and filters by (the
    site's index and coverage pages), a third of the record to decode."""
    return {key: value for key, value in record.items() if key not in LONG_FIELDS}


def canonical(data: Any) -> bytes:
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def question_of(record: dict[str, Any]) -> Question:
    """The model again, from a released record (for the writers that render it: the site, Anki).
    The audit validated the file; title words are not checked again (no bank tables here), as the
    model does when the bank's tables are unusable."""
    fields = {key: value for key, value in record.items() if key not in _ADDED}
    return Question.model_validate(fields | {"status": "published"}, context={"tables": None})
