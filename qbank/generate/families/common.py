"""What the families share: levels mapped to zones, and the people and products scenarios name."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TypeVar

from qbank.model.hardware import Device, Spec

T = TypeVar("T")

# For each level, the (zone, bloom_level) pairs a drill at that level may carry; every pair is one
# qbank/model/fields/classification.py admits.
ZONES: dict[str, tuple[tuple[str, str], ...]] = {
    "L1": (("recall", "remember"), ("recall", "understand"), ("fluency", "understand")),
    "L2": (("fluency", "apply"), ("analyze", "apply"), ("implement", "apply")),
    "L3": (("analyze", "analyze"), ("diagnosis", "analyze"), ("implement", "analyze")),
    "L4": (
        ("diagnosis", "evaluate"),
        ("optimization", "analyze"),
        ("evaluation", "evaluate"),
        ("specification", "analyze"),
    ),
    "L5": (
        ("design", "create"),
        ("specification", "evaluate"),
        ("optimization", "evaluate"),
        ("evaluation", "evaluate"),
        ("realization", "evaluate"),
    ),
    "L6+": (("mastery", "create"), ("mastery", "evaluate"), ("realization", "create"), ("design", "create")),
}

CLOUD_TEAMS = (
    "A startup's inference team",
    "The platform team at a fintech company",
    "An infrastructure engineer at a media company",
    "A solutions architect at a cloud provider",
    "The ML serving team of an online retailer",
    "A research engineer at a university lab",
    "The on-call engineer for a search product",
    "A staff engineer at a healthcare analytics firm",
    "The capacity-planning group of a social network",
    "A consultant hired by an insurance company",
    "The applied-AI team of a logistics company",
    "An engineering manager at a game studio",
)
CLOUD_USES = (
    "a customer-support chatbot",
    "an internal code assistant",
    "a document summarisation API",
    "a retrieval-augmented search product",
    "an overnight batch translation job",
    "an agent platform that calls tools",
    "a contract-review tool for lawyers",
    "a tutoring app for students",
    "a meeting-notes summariser",
    "a product-description writer for a catalogue",
)
EDGE_USES = (
    "a warehouse robot's voice interface",
    "an in-car assistant that must work without coverage",
    "a factory-floor troubleshooting kiosk",
    "a retail shelf-camera analytics box",
    "a drone's onboard mission planner",
    "a bedside assistant in a hospital that must stay offline",
    "a ship-board maintenance assistant",
    "a construction-site safety monitor",
)
MOBILE_USES = (  # text uses only: the models table holds text-only LLMs (issue 26)
    "an offline note-summarising feature",
    "a private keyboard reply suggester",
    "a travel app's offline translator",
    "an on-device email reply assistant",
    "a journaling app that never uploads entries",
    "a language-learning conversation partner",
)


def pick(rng: random.Random, items: Sequence[T]) -> T:
    return items[rng.randrange(len(items))]


def zone(rng: random.Random, level: str, allowed: Sequence[str] | None = None) -> tuple[str, str]:
    """A (zone, bloom_level) pair for `level`, among `allowed` zones when given."""
    pairs = [p for p in ZONES[level] if allowed is None or p[0] in allowed]
    return pick(rng, pairs or ZONES[level])


def headline(device: Device, field: str) -> Spec:
    """The device's first listed value of a field: the one the scenario quotes."""
    return device.spec(field)
