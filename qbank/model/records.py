"""Validate a loaded document against the model; pydantic errors become Findings here and go no further.

pydantic reports a `loc` path such as ("details", "options", 2); the document's Positions turn it
into a line and column: the key for unknown keys, the parent for missing ones, the value otherwise
(research/ecosystem.md §4.2).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from qbank import rules
from qbank.finding import Finding
from qbank.load import Document, Loc
from qbank.model.question import Question
from qbank.model.taxonomy import BankTables
from qbank.rules import rule

# A did-you-mean runs difflib over the fields the model accepts there: for the first SUGGESTED
# unknown keys of a file only, as a typo or two is what it is for (issue 30; benchmarks/README.md,
# did-you-mean). Every unknown key is still reported.
SUGGESTED = 20


@dataclass(frozen=True)
class Record:
    """A loaded file and, when it validated, its Question."""

    file: Path
    document: Document
    question: Question | None

    @property
    def question_id(self) -> str | None:
        value = self.document.data.get("id")
        return value if isinstance(value, str) else None

    @property
    def tombstone(self) -> bool:
        return self.document.data.get("status") == "deleted"


def validate(file: Path, document: Document, tables: BankTables | None) -> tuple[Record, list[Finding]]:
    record = Record(file, document, None)
    context = {"tombstone": record.tombstone, "tables": tables}
    try:
        question = Question.model_validate(document.data, context=context)
    except ValidationError as exc:
        errors = exc.errors(include_url=False)
        unknown = (i for i, error in enumerate(errors) if error["type"] == "extra_forbidden")
        suggested = set(itertools.islice(unknown, SUGGESTED))
        return record, [
            _finding(document, error, record.question_id, i in suggested) for i, error in enumerate(errors)
        ]
    return Record(file, document, question), []


def _finding(document: Document, error: Any, question_id: str | None, suggest: bool = True) -> Finding:
    loc: Loc = tuple(error["loc"])
    kind = error["type"]
    positions = document.positions
    context = error.get("ctx") or {}
    if kind == "extra_forbidden":
        line, column = positions.key(loc)
        return unknown_key(document.path, line, column, loc, question_id, suggest)
    try:
        found = rules.get(kind)
    except KeyError:
        line, column = positions.value(loc)
        return schema(document.path, line, column, _schema_message(loc, error), question_id)
    if context.get("at"):
        loc = loc + (context["at"],)
    if context.get("snippet"):
        line, column = positions.in_value(loc, context["snippet"])
    else:
        line, column = positions.value(loc)
    return found.finding(document.path, line, column, context["message"], question_id)


def _dotted(loc: Loc) -> str:
    return ".".join(str(part) for part in loc) or "(file)"


def _schema_message(loc: Loc, error: Any) -> str:
    if error["type"] == "missing":
        return f"missing required field {_dotted(loc)}"
    message = f"{_dotted(loc)}: {error['msg']}"
    if error["type"] in (
        "literal_error",
        "enum",
        "string_pattern_mismatch",
        "string_type",
        "int_type",
        "bool_type",
    ):
        message += f" (got {_short(error.get('input'))})"
    return message


def _short(value: Any) -> str:
    shown = repr(value)
    return shown if len(shown) <= 60 else shown[:57] + "..."


def _fields_at(loc: Loc) -> list[str]:
    """The field names the model accepts at `loc`, to suggest a correction for a typo."""
    model: type[BaseModel] | None = Question
    for part in loc:
        if model is None or not isinstance(part, str) or part not in model.model_fields:
            break
        model = _model_of(model.model_fields[part].annotation)
    return list(model.model_fields) if model else []


def _model_of(annotation: Any) -> type[BaseModel] | None:
    """The first model inside a field's type (`Visual | None`, `list[Resource]`), or None. Only
    the type's arguments are searched further: searching the type itself again never ended."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for argument in getattr(annotation, "__args__", ()):
        inner = _model_of(argument)
        if inner:
            return inner
    return None


@rule("QB100", "schema")
def schema(path: str, line: int, column: int, message: str, question_id: str | None = None) -> Finding:
    """Every field has the type and value the format allows: required fields present, enums
    spelled as listed (`level: L3`, not `l3`), strings quoted where YAML would read a number or
    boolean, ids and topics as lower-case slugs.

    Types are strict: `expected_time_minutes: "6"` is a string, not a number, and
    `title: 2026` is a number, not a title. `provenance` is required (the reference defaulted it
    to `imported`, and 407 of its questions had none).

    Fails:
        level: l3
    Passes:
        level: L3
    """
    return rules.rule_of(schema).finding(path, line, column, message, question_id)


@rule("QB101", "unknown-key")
def unknown_key(
    path: str, line: int, column: int, loc: Loc, question_id: str | None = None, suggest: bool = True
) -> Finding:
    """Only known fields are allowed, so a typo is caught instead of silently ignored.

    Legacy stamps found in real StaffML files (validation_*, math_*, deletion_reason, chains,
    classification_review …) are listed in the model explicitly. The first 20 unknown keys of a
    file get a suggestion (`did you mean 'title'?`); the rest are reported without one.

    Fails:
        titel: The FP16 Loss Scaling Dance
    Passes:
        title: The FP16 Loss Scaling Dance
    """
    import difflib  # only a file with an unknown key pays for it

    name = str(loc[-1]) if loc else ""
    fields = _fields_at(loc[:-1]) if suggest else []
    # difflib's cutoff, 0.6 = 2 * matches / (both lengths), rules out a name 2.4 times as long as a
    # field: a longer name is not compared at all.
    longest = max(map(len, fields), default=0)
    close = difflib.get_close_matches(name, fields, n=1) if len(name) <= 2.4 * longest else []
    hint = f"; did you mean {close[0]!r}?" if close else ""
    return rules.rule_of(unknown_key).finding(
        path, line, column, f"unknown key {_dotted(loc)!r}{hint}", question_id
    )
