"""schema/release.schema.json: the JSON Schema of `qbank export json`'s document, generated from the
question model so the two cannot drift (`qbank schema` writes it)."""

from __future__ import annotations

import json
import typing
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, create_model

from qbank.model.public import PUBLIC_FIELDS
from qbank.model.question import Question


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
