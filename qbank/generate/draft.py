"""A question as a family renders it, before it has an id: what emit turns into YAML."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Draft:
    """One question as a family renders it, before it has an id."""

    track: str
    competency_area: str
    topic: str
    level: str
    zone: str
    bloom_level: str
    phase: str
    title: str
    scenario: str
    question: str
    solution: str
    mistake: tuple[str, str, str]  # pitfall, rationale, consequence
    assumptions: list[str]
    calculations: list[str]
    conclusion: list[str]
    family: str
    params: dict[str, str | int]
    minutes: int = 5
    options: list[str] | None = None
    correct_index: int | None = None
    verify: list[dict[str, Any]] | None = None
