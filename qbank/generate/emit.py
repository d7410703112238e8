"""A Draft as the text of a question file, in the bank's layout (the field order of
questions/tinyml/power/tinyml-202611-5a90.yaml): folded blocks for prose, literal blocks for the
marked sections. The caller reads the text back through the audit before writing it."""

from __future__ import annotations

import dataclasses
import json
import textwrap
from typing import Any

from qbank.generate.draft import Draft
from qbank.generate.english import tidy
from qbank.new import scalar

WIDTH = 100


def question_yaml(draft: Draft, question_id: str, version: int) -> str:
    head = [
        "schema_version: '1.0'",
        f"id: {question_id}",
        f"track: {draft.track}",
        f"level: {draft.level}",
        f"zone: {draft.zone}",
        f"topic: {draft.topic}",
        f"competency_area: {draft.competency_area}",
        f"bloom_level: {draft.bloom_level}",
        f"phase: {draft.phase}",
        f"title: {scalar(draft.title)}",
        *_folded("scenario", draft.scenario, 0),
        *_folded("question", draft.question, 0),
        "details:",
        *_folded("realistic_solution", draft.solution, 2),
        *_literal("common_mistake", _mistake(draft.mistake), 2),
        *_literal("napkin_math", _napkin(draft), 2),
    ]
    if draft.options is not None:
        head += [
            "  options:",
            *(f"  - {_quoted(o)}" for o in draft.options),
            f"  correct_index: {draft.correct_index}",
        ]
    if draft.verify:
        head.append("verify:")
        for claim in draft.verify:
            items = list(claim.items())
            head.append(f"  - {items[0][0]}: {_value(items[0][1])}")
            head += [f"    {k}: {_value(v)}" for k, v in items[1:]]
    head += [
        "status: published",
        "provenance: generated",
        "requires_explanation: false",
        f"expected_time_minutes: {draft.minutes}",
        "generator:",
        f"  family: {draft.family}",
        f"  version: {version}",
        "  params:",
        *(f"    {k}: {_value(v)}" for k, v in sorted(draft.params.items())),
        "human_reviewed:",
        "  status: not-reviewed",
        "  by: null",
        "  date: null",
        "  notes: null",
    ]
    return "\n".join(head) + "\n"


def english(draft: Draft) -> Draft:
    """The draft with "a"/"an" and singular counts matched to the slot values templates put in."""
    return dataclasses.replace(
        draft,
        title=tidy(draft.title),
        scenario=tidy(draft.scenario),
        question=tidy(draft.question),
        solution=tidy(draft.solution),
        mistake=tuple(tidy(m) for m in draft.mistake),  # type: ignore[arg-type]
        assumptions=[tidy(a) for a in draft.assumptions],
        calculations=[tidy(c) for c in draft.calculations],
        conclusion=[tidy(c) for c in draft.conclusion],
        options=None if draft.options is None else [tidy(o) for o in draft.options],
    )


def _mistake(parts: tuple[str, str, str]) -> str:
    pitfall, rationale, consequence = parts
    return f"**The Pitfall:** {pitfall}\n**The Rationale:** {rationale}\n**The Consequence:** {consequence}"


def _napkin(draft: Draft) -> str:
    lines = ["**Assumptions & Constraints:**", *(f"- {a}" for a in draft.assumptions), "**Calculations:**"]
    lines += [f"- {c}" for c in draft.calculations]
    lines += ["**Conclusion & Interpretation:**", *(f"- {c}" for c in draft.conclusion)]
    return "\n".join(lines)


def _folded(key: str, text: str, indent: int) -> list[str]:
    """`key: >-` and the text wrapped at single spaces, which folding turns back into spaces."""
    if "\n" in text or "  " in text or text != text.strip():
        raise ValueError(f"{key}: folded prose must be one line with single spaces: {text!r}")
    pad = " " * (indent + 2)
    lines = textwrap.wrap(text, WIDTH - len(pad), break_long_words=False, break_on_hyphens=False)
    return [f"{' ' * indent}{key}: >-", *(pad + line for line in lines)]


def _literal(key: str, text: str, indent: int) -> list[str]:
    pad = " " * (indent + 2)
    return [f"{' ' * indent}{key}: |", *(pad + line for line in text.splitlines())]


def _quoted(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)  # a JSON string is a YAML double-quoted scalar


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    return _quoted(str(value))
