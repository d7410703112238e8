"""The file format's closed vocabularies (enums) and id patterns, as plain `Literal` types.

Kept apart from qbank/model/question.py so that the command line can offer them as choices without importing
pydantic (a pre-commit run pays for every import at start-up).
"""

from __future__ import annotations

from typing import Literal

Track = Literal["tinyml", "edge", "mobile", "cloud", "global"]
Level = Literal["L1", "L2", "L3", "L4", "L5", "L6+"]
Zone = Literal[
    "recall",
    "analyze",
    "design",
    "implement",
    "fluency",
    "diagnosis",
    "specification",
    "optimization",
    "evaluation",
    "realization",
    "mastery",
]
CompetencyArea = Literal[
    "deployment",
    "parallelism",
    "networking",
    "latency",
    "memory",
    "compute",
    "data",
    "power",
    "precision",
    "reliability",
    "optimization",
    "architecture",
    "cross-cutting",
]
BloomLevel = Literal["remember", "understand", "apply", "analyze", "evaluate", "create"]
Phase = Literal["training", "inference", "both"]
Status = Literal["draft", "published", "flagged", "archived", "deleted"]
Provenance = Literal["human", "llm-draft", "llm-then-human-edited", "imported", "generated"]
ReviewStatus = Literal["not-reviewed", "verified", "flagged", "needs-rework"]

ID_PATTERN = r"^[a-z][a-z0-9]*(?:-[a-z0-9]+)+$"
SLUG_PATTERN = r"^[a-z0-9]+(?:-[a-z0-9]+)*$"
