"""The public part of a question: what every export releases of it, and its content hash.

Each released question is the public part of the model (no status, no legacy LLM stamps, no
`chains`), plus its path in the bank and a content hash: SHA-256 of its canonical JSON (keys sorted,
no spaces, UTF-8). The audit makes this record (the engine's release view, which its cache keeps),
so that an export of an unchanged bank validates nothing again; the exports only format it.
"""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pydantic is not imported here: the exports that read records never need it
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


def public_record(question: Question, path: str) -> dict[str, Any]:
    """A question's released record: its public fields, its path and its content hash."""
    data = question.model_dump(mode="json", include=set(PUBLIC_FIELDS), exclude_none=True)
    data = {key: data[key] for key in PUBLIC_FIELDS if key in data} | {"path": path}
    return data | {"content_hash": hashlib.sha256(canonical(data)).hexdigest()}


LISTING = (
    "id",
    "title",
    "track",
    "level",
    "zone",
    "competency_area",
    "topic",
    "body",
    "provenance",
    "generated",
)


FACETS = ("track", "level", "zone", "competency_area", "topic", "provenance", "generated")
"""The values of a listing that a list of questions counts (the site's filters and coverage page)."""


def facets(row: list[Any]) -> str:
    """A listing's FACETS, as compact JSON: counting 10,000 questions decodes these (5 ms) rather than
    their listings, whose titles and bodies are 7.5 MB of JSON (75 ms; benchmarks/export_site.py)."""
    values = dict(zip(LISTING, row, strict=True))
    return json.dumps([values[key] for key in FACETS], ensure_ascii=False, separators=(",", ":"))


def script_json(data: Any) -> str:
    """`data` as compact JSON that a script file can hold as it is: `<` escaped, so the data stays
    inert even if the file were ever inlined into a <script> element, and U+2028/2029, line breaks
    to older JavaScript parsers. Still JSON: decoded, it is `data`."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    for char, escaped in (("<", "\\u003c"), ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):
        text = text.replace(char, escaped)
    return text


def listing(record: dict[str, Any]) -> list[Any]:
    """A released question as a list of questions shows, filters and searches it (the site's index,
    which copies it as it is, and its coverage page): the values of LISTING, in that order. `body`
    is the scenario, question, topic and tags as written, one space between each (the title is not
    repeated in it); `generated` says whether a generator made it (a drill)."""
    body = " ".join(
        [record["scenario"], record.get("question", ""), record["topic"], *record.get("tags", ())]
    )
    fields = record | {"body": body, "generated": bool(record.get("generator"))}
    return [fields[key] for key in LISTING]


def canonical(data: Any) -> bytes:
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
