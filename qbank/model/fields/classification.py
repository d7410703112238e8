"""Cross-field rules on how a question is classified, and the tombstone rule for deleted questions."""

from __future__ import annotations

from collections.abc import Collection

from qbank.rules import Problem, rule

# Which Bloom levels each zone admits: the reference's hard rule, ZONE_BLOOM_AFFINITY
# (research/anchor-vault.md §1.2). A pair outside it contradicts itself.
ZONE_BLOOM: dict[str, frozenset[str]] = {
    "recall": frozenset({"remember", "understand"}),
    "fluency": frozenset({"remember", "understand", "apply"}),
    "analyze": frozenset({"apply", "analyze"}),
    "diagnosis": frozenset({"apply", "analyze", "evaluate"}),
    "design": frozenset({"apply", "analyze", "evaluate", "create"}),
    "specification": frozenset({"apply", "analyze", "evaluate", "create"}),
    "optimization": frozenset({"apply", "analyze", "evaluate", "create"}),
    "evaluation": frozenset({"analyze", "evaluate"}),
    "realization": frozenset({"apply", "analyze", "evaluate", "create"}),
    "mastery": frozenset({"analyze", "evaluate", "create"}),
    "implement": frozenset({"understand", "apply", "analyze", "evaluate", "create"}),
}
BLOOM_ORDER = ("remember", "understand", "apply", "analyze", "evaluate", "create")


@rule("QB150", "zone-bloom")
def zone_bloom(zone: str, bloom_level: str | None) -> Problem | None:
    """`bloom_level` must be one the `zone` admits.

    recall: remember, understand. fluency: remember, understand, apply. analyze: apply, analyze.
    diagnosis: apply, analyze, evaluate. design, specification, optimization, realization: apply,
    analyze, evaluate, create. evaluation: analyze, evaluate. mastery: analyze, evaluate, create.
    implement: understand, apply, analyze, evaluate, create.

    Fails:
        zone: recall
        bloom_level: evaluate
    Passes:
        zone: evaluation
        bloom_level: evaluate
    """
    allowed = ZONE_BLOOM[zone]
    if bloom_level is None or bloom_level in allowed:
        return None
    admitted = ", ".join(b for b in BLOOM_ORDER if b in allowed)
    return Problem(f"zone {zone!r} does not admit bloom_level {bloom_level!r} (it admits {admitted})")


@rule("QB151", "unknown-topic")
def unknown_topic(topic: str, topics: Collection[str]) -> Problem | None:
    """`topic` must be a slug listed in the bank's `schema/taxonomy.yaml`.

    The reference system documented this rule and, because its taxonomy file was missing,
    checked nothing. Here a missing taxonomy is itself an error (rule `taxonomy`).

    Fails:
        topic: loss-scaling-stuff
    Passes:
        topic: mixed-precision-training
    """
    if topic in topics:
        return None
    return Problem(f"topic {topic!r} is not in the taxonomy")


@rule("QB153", "generated")
def generated(provenance: str, has_generator: bool) -> Problem | None:
    """A question rendered by `qbank generate` says so twice: `provenance: generated` and a
    `generator:` block naming the family, its version and the parameters it was rendered from.

    So a reader can tell a drill from a hand-written question, and regenerate or retire a family.

    Fails:
        provenance: generated
    Passes:
        provenance: generated
        generator: {family: kv-cache-fit, version: 1, params: {device: h100-sxm, model: llama-3-8b}}
    """
    if provenance == "generated" and not has_generator:
        return Problem("provenance is 'generated' but there is no `generator:` block saying what rendered it")
    if provenance != "generated" and has_generator:
        return Problem(f"a `generator:` block is set but provenance is {provenance!r}, not 'generated'")
    return None


@rule("QB152", "deletion-reason")
def deletion_reason(status: str, reason: str | None) -> Problem | None:
    """A question with `status: deleted` is a tombstone and must say why in `deletion_reason`;
    only tombstones carry a `deletion_reason`.

    Tombstones keep their file so the id is never reused. They are checked for structure (YAML,
    fields, types, unknown keys), id uniqueness and placement; the content rules (title, lengths,
    markers, options, placeholders, zone and Bloom level, topic) do not apply to them, and the
    audit summary counts them under `deleted`.

    Fails:
        status: deleted
    Passes:
        status: deleted
        deletion_reason: duplicate of cloud-202611-0a1c
    """
    if status == "deleted" and not (reason or "").strip():
        return Problem("status is 'deleted' but deletion_reason is missing")
    if status != "deleted" and reason is not None:
        return Problem(f"deletion_reason is set but status is {status!r}")
    return None
