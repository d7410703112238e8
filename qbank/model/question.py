"""The question model: the single source of truth for the file format.

Field names, enums and legacy stamps follow the StaffML format (research/anchor-vault.md §1). Unlike
the reference, every documented rule is enforced here: unknown keys are errors (`extra="forbid"`),
types are strict (a YAML `5` is not a string, `"5"` is not an int), and the content rules from
`qbank.checks` run as validators, so `schema/question.schema.json` is generated from this module.

Validation context (a dict passed to `model_validate`):
  tombstone: True for `status: deleted`; content rules are then skipped (rule deletion-reason).
  tables: the bank's BankTables, for the title word lists.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationInfo, model_validator
from pydantic_core import PydanticCustomError

from qbank import rules
from qbank.model.fields import classification, markers, options, text
from qbank.model.vocabulary import (
    ID_PATTERN,
    SLUG_PATTERN,
    BloomLevel,
    CompetencyArea,
    Level,
    Phase,
    Provenance,
    ReviewStatus,
    Status,
    Track,
    Zone,
)
from qbank.numerics.claims import Claim
from qbank.rules import Problem


def _fail(check: Callable[..., Any], problem: Problem, at: str = "") -> PydanticCustomError:
    """A rule's Problem as a pydantic error whose type is the rule name (see qbank/model/records.py)."""
    context = {"message": problem.message, "snippet": problem.snippet, "at": at}
    return PydanticCustomError(rules.rule_of(check).name, "{message}", context)


def _is_tombstone(info: ValidationInfo) -> bool:
    return bool(info.context and info.context.get("tombstone"))


def _content(check: Callable[[Any], Problem | None]) -> AfterValidator:
    """Run a content rule on a field's value (not on tombstones, nor on an optional field left
    empty: `question:` with no value is null, the same as no question)."""

    def validate(value: Any, info: ValidationInfo) -> Any:
        problem = None if _is_tombstone(info) or value is None else check(value)
        if problem:
            raise _fail(check, problem)
        return value

    return AfterValidator(validate)


def _title(value: str, info: ValidationInfo) -> str:
    if _is_tombstone(info):
        return value
    tables = info.context.get("tables") if info.context else None
    words = (tables.lowercase_words, tables.spellings) if tables else ((), {})
    problems = text.title_problems(value, *words)
    if info.context and tables is None:
        # The bank's title words are unusable: the audit already fails with a `taxonomy` error, and
        # title case without them would flag every listed lower-case word (ms, x86) as well.
        problems = (p for p in problems if p[0] is not text.title_case)
    broken = next(problems, None)
    if broken:
        raise _fail(*broken)
    return value


# Prose shown to learners: never a template placeholder, never raw HTML.
Prose = Annotated[str, _content(text.placeholder), _content(text.raw_html)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class Resource(_Strict):
    name: Annotated[str, Field(min_length=1, max_length=200)]
    url: Annotated[str, Field(json_schema_extra={"pattern": "^https://"}), _content(options.resource_url)]


class Details(_Strict):
    realistic_solution: Annotated[Prose, Field(min_length=1, description="The canonical answer.")]
    common_mistake: Annotated[
        Prose | None,
        _content(markers.common_mistake_markers),
        Field(description="**The Pitfall:** … **The Rationale:** … **The Consequence:** …"),
    ] = None
    napkin_math: Annotated[
        Prose | None,
        _content(markers.napkin_math_markers),
        Field(description="**Assumptions…** … **Calculations:** … **Conclusion…** …"),
    ] = None
    options: Annotated[
        list[Prose] | None,
        Field(json_schema_extra={"minItems": 4, "maxItems": 4, "uniqueItems": True}),
    ] = None
    correct_index: Annotated[int | None, Field(json_schema_extra={"minimum": 0, "maximum": 3})] = None
    resources: list[Resource] | None = None

    @model_validator(mode="after")
    def _multiple_choice(self, info: ValidationInfo) -> Details:
        problem = None if _is_tombstone(info) else options.options(self.options, self.correct_index)
        if problem:
            at = "options" if self.options is not None else "correct_index"
            raise _fail(options.options, problem, at)
        return self


class Visual(_Strict):
    kind: Literal["svg"]
    path: Annotated[str, Field(pattern=r"^[a-z0-9-]+\.svg$")]
    alt: Annotated[str, Field(min_length=10, max_length=400)]
    caption: Annotated[str, Field(min_length=5, max_length=120)]


class HumanReview(_Strict):
    status: ReviewStatus = "not-reviewed"
    by: str | None = None
    date: str | None = None
    notes: str | None = None


class ChainRef(_Strict):
    id: str
    position: Annotated[int, Field(ge=0)]


class Generator(_Strict):
    """Which drill family of `qbank generate` rendered a question, and from what (rule generated)."""

    family: Annotated[str, Field(pattern=SLUG_PATTERN)]
    version: Annotated[int, Field(ge=1)]
    params: dict[str, str | int]


class Question(_Strict):
    """One interview question, as stored in `questions/<track>/<competency_area>/<id>.yaml`."""

    schema_version: Annotated[str, Field(pattern=r"^1\.\d+$")] = "1.0"
    id: Annotated[str, Field(pattern=ID_PATTERN, max_length=80, description="Equals the file name.")]
    track: Track
    level: Level
    zone: Zone
    topic: Annotated[str, Field(pattern=SLUG_PATTERN, description="A slug from schema/taxonomy.yaml.")]
    competency_area: CompetencyArea
    bloom_level: BloomLevel | None = None
    phase: Phase | None = None
    title: Annotated[
        str,
        Field(max_length=text.TITLE_MAX, json_schema_extra={"pattern": r"^[^_]*[^._\s]$"}),
        AfterValidator(_title),
    ]
    scenario: Annotated[
        Prose, Field(json_schema_extra={"minLength": text.SCENARIO_MIN}), _content(text.scenario_length)
    ]
    question: Annotated[
        Prose | None,
        Field(json_schema_extra={"maxLength": text.QUESTION_MAX}),
        _content(text.question_length),
    ] = None
    visual: Visual | None = None
    details: Details
    status: Status = "draft"
    provenance: Provenance = Field(description="Required: who or what wrote this question.")
    requires_explanation: bool | None = None
    expected_time_minutes: Annotated[int | None, Field(ge=0, le=240)] = None
    deletion_reason: str | None = None
    tags: list[Annotated[str, Field(min_length=1)]] | None = None
    verify: Annotated[
        list[Claim] | None,
        Field(description="Numeric-format claims the audit re-executes (qbank explain numeric-claim)."),
    ] = None
    authors: list[str] | None = None
    created_at: str | None = None
    updated_at: str | None = None
    last_modified: str | None = None
    chains: list[ChainRef] | None = Field(default=None, description="Legacy; ignored.")
    generator: Annotated[
        Generator | None, Field(description="Set by `qbank generate`: family, version and parameters.")
    ] = None
    human_reviewed: HumanReview | None = None
    classification_review: str | None = None
    # Legacy LLM stamps seen in real StaffML files: informational only, never trusted.
    validated: bool | None = None
    validation_status: str | None = None
    validation_date: str | None = None
    validation_model: str | None = None
    validation_issues: list[str] | None = None
    validation_status_pro: str | None = None
    validation_issues_pro: list[str] | None = None
    math_verified: bool | None = None
    math_status: str | None = None
    math_date: str | None = None
    math_model: str | None = None
    math_issues: list[str] | None = None

    @model_validator(mode="after")
    def _zone_bloom(self, info: ValidationInfo) -> Question:
        problem = None if _is_tombstone(info) else classification.zone_bloom(self.zone, self.bloom_level)
        if problem:
            raise _fail(classification.zone_bloom, problem, "bloom_level")
        return self

    @model_validator(mode="after")
    def _generated(self) -> Question:
        problem = classification.generated(self.provenance, self.generator is not None)
        if problem:
            raise _fail(classification.generated, problem, "generator" if self.generator else "provenance")
        return self

    @model_validator(mode="after")
    def _tombstone(self) -> Question:
        problem = classification.deletion_reason(self.status, self.deletion_reason)
        if problem:
            raise _fail(
                classification.deletion_reason,
                problem,
                "deletion_reason" if self.deletion_reason else "status",
            )
        return self


def json_schema_text(topics: Collection[str]) -> str:
    """The editor schema, generated from Question (JSON Schema 2020-12), byte-stable.

    `topics` (the bank's taxonomy) become an enum on `topic`, so editors complete and check them;
    the model itself takes topics from the bank at validation time (rule unknown-topic).
    """
    schema = Question.model_json_schema()
    schema["properties"]["topic"]["enum"] = sorted(topics)
    document = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "question.schema.json",
        **schema,
    }
    return json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
