"""Device claims against recorded evidence: confirmed, refuted, inconclusive, stale or unverified.

Evidence is what `qbank gpu probe` appended under `evidence/gpu/` (research/fp16-gpu.md §4.4).
Only records from device classes inside a claim's `device_scope` can confirm or refute it, and
only records of the probe as it is now (same `probe_version`); older ones are `stale`. With no
record in scope the claim is `unverified` on those classes, and the message says what other
classes showed and what the literature (`evidence/literature.yaml`, a weaker kind of evidence,
named as such) says. Reading evidence imports no GPU library.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from qbank import memo
from qbank.finding import Finding
from qbank.gpu import evidence
from qbank.load import from_bytes, read

# Compute capabilities NVIDIA has shipped: what a scope such as `>=sm_80` ranges over.
KNOWN = (50, 52, 53, 60, 61, 62, 70, 72, 75, 80, 86, 87, 89, 90, 100, 101, 120)
NAMES = {
    "V100": 70,
    "T4": 75,
    "A100": 80,
    "A10": 86,
    "L4": 89,
    "L40S": 89,
    "H100": 90,
    "H200": 90,
    "B200": 100,
}


def scope_classes(scope: str) -> frozenset[int]:
    """The compute capabilities a scope names (`sm_70`, `>=sm_80`, `sm_70..sm_75`, `V100`, `any`)."""
    if scope == "any":
        return frozenset(KNOWN)
    if scope in NAMES:
        return frozenset({NAMES[scope]})
    numbers = [int(n) for n in re.findall(r"sm_(\d+)", scope)]
    if scope.startswith(">="):
        return frozenset(c for c in KNOWN if c >= numbers[0])
    if scope.startswith("<="):
        return frozenset(c for c in KNOWN if c <= numbers[0])
    if ".." in scope:
        return frozenset(c for c in KNOWN if numbers[0] <= c <= numbers[1])
    return frozenset(numbers)


def class_number(device_class: str) -> int | None:
    match = re.fullmatch(r"sm_(\d+)", device_class)
    return int(match.group(1)) if match else None


def shown(classes: frozenset[int]) -> str:
    return ", ".join(f"sm_{c}" for c in sorted(classes))


@dataclass(frozen=True)
class Evidence:
    records: tuple[dict[str, Any], ...]  # only records that passed every check of evidence-record
    literature: tuple[dict[str, Any], ...]
    problems: tuple[evidence.Problem, ...]  # records not used: the `evidence-record` findings
    literature_problems: tuple[str, ...] = ()  # an unusable literature file: every claim inconclusive


@memo.cached("gpu.resolve.load")
def load(evidence_dir: Path | None) -> Evidence:
    """The bank's evidence: records that are well formed and agree with their own outputs (replayed
    through their probe, qbank/gpu/recheck.py), and a Problem for every file or line that is not
    one (issue 30, items 5 and 6). Numpy is imported only when there are records to replay."""
    if evidence_dir is None:
        return Evidence((), (), ())
    entries, problems = evidence.read(evidence_dir / "gpu")
    records = []
    if entries:
        from qbank.gpu.recheck import contradiction  # replays import numpy: only with records

        for entry in entries:
            why = contradiction(entry.record)
            if why:
                problems.append(evidence.Problem(entry.path, entry.line, 1, why, unreadable=False))
            else:
                records.append(entry.record)
    literature_problems: list[str] = []
    literature = _literature(evidence_dir / "literature.yaml", literature_problems)
    return Evidence(tuple(records), literature, tuple(problems), tuple(literature_problems))


LITERATURE_KEYS = {"id", "source", "quote", "kind", "dtype", "op_path", "scope", "supports"}


def _literature(path: Path, problems: list[str]) -> tuple[dict[str, Any], ...]:
    if path.is_symlink():  # its text could end up in a YAML error message: never followed
        problems.append(f"{path}: a symbolic link: not followed")
        return ()
    if not path.is_file():
        return ()
    data = read(path, str(path))  # bounded (qbank.load.MAX_BYTES), and never a FIFO
    document = data if isinstance(data, Finding) else from_bytes(data, str(path))
    if isinstance(document, Finding):
        problems.append(f"{path}:{document.line}: {document.message}")
        return ()
    entries = document.data.get("statements")
    if not isinstance(entries, list) or not all(
        isinstance(e, dict) and e.keys() >= LITERATURE_KEYS for e in entries
    ):
        problems.append(f"{path}: expected `statements:`, each with {', '.join(sorted(LITERATURE_KEYS))}")
        return ()
    return tuple(entries)


@dataclass(frozen=True)
class Resolution:
    status: str  # confirmed, refuted, inconclusive, stale, unverified
    message: str


def resolve(claim: Any, evidence: Evidence) -> Resolution:
    from qbank.gpu.probes import REGISTRY  # numpy and ml_dtypes; no GPU library

    if evidence.literature_problems:
        return Resolution("inconclusive", "evidence unreadable: " + "; ".join(evidence.literature_problems))
    probe_id = _probe_id(claim)
    probe = REGISTRY.get(probe_id)
    if probe is None:
        return Resolution(
            "unverified", f"no probe measures this (there is no {probe_id}; see qbank gpu list)"
        )
    scope = scope_classes(claim.device_scope)
    unknown = _unreadable(evidence, probe_id, scope)
    if unknown:
        return Resolution("inconclusive", f"evidence unreadable (see evidence-record): {unknown}")
    mine = [r for r in evidence.records if r["probe_id"] == probe_id]
    in_scope = [r for r in mine if class_number(r["device"].get("device_class", "")) in scope]
    latest = _behind(in_scope, probe)
    if latest:
        return _judge(claim, latest)
    if in_scope:
        return Resolution(
            "stale", f"{probe_id} changed since it ran on {_classes_of(in_scope)}; run qbank gpu probe again"
        )
    return Resolution("unverified", _unverified(claim, scope, probe, mine, evidence.literature))


def behind(claim: Any, evidence: Evidence) -> list[dict[str, Any]]:
    """The records a confirmed, refuted or inconclusive verdict rests on: the latest fresh record of
    each device class in the claim's scope, by class (none for any other verdict). The page facts
    (qbank/checks/facts.py) show these, so a page names exactly the evidence `resolve` judged."""
    from qbank.gpu.probes import REGISTRY

    probe_id = _probe_id(claim)
    probe = REGISTRY.get(probe_id)
    if probe is None or evidence.literature_problems:
        return []
    if _unreadable(evidence, probe_id, scope_classes(claim.device_scope)):
        return []
    scope = scope_classes(claim.device_scope)
    in_scope = [
        r
        for r in evidence.records
        if r["probe_id"] == probe_id and class_number(r["device"].get("device_class", "")) in scope
    ]
    latest = _behind(in_scope, probe)
    return [latest[cls] for cls in sorted(latest)]


def _behind(in_scope: list[dict[str, Any]], probe: Any) -> dict[str, dict[str, Any]]:
    """The latest record of the probe as it is now (its version), by device class."""
    return _latest_by_class([r for r in in_scope if r.get("probe_version") == probe.version])


def _unreadable(evidence: Evidence, probe_id: str, scope: frozenset[int]) -> str:
    """The unreadable evidence of this probe from a device class in scope: what it said cannot be
    known (it may be the newest run), so the claim can be neither confirmed nor refuted. A record
    that was read but contradicts its own data is only left out (resolve uses the others)."""
    found = [
        f"{p.path}:{p.line}: {p.message}"
        for p in evidence.problems
        if p.unreadable and p.probe_id == probe_id and class_number(p.device_class) in scope
    ]
    return "; ".join(found[:3])


def _probe_id(claim: Any) -> str:
    if claim.kind == "device_accumulate_dtype":
        return f"acc.{claim.dtype}.matmul.{claim.op_path}"
    return f"ftz.{claim.dtype}.{claim.op}.{claim.op_path}"


def _latest_by_class(records: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    latest: dict[str, dict[str, Any]] = {}
    for r in sorted(records, key=lambda r: r.get("timestamp_utc", "")):
        latest[r["device"]["device_class"]] = r
    return latest


def _judge(claim: Any, latest: dict[str, dict[str, Any]]) -> Resolution:
    seen = {cls: r["verdict"] for cls, r in latest.items()}
    said = "; ".join(f"{cls}: {_seen(r)}" for cls, r in sorted(latest.items()))
    if "inconclusive" in seen.values():
        return Resolution("inconclusive", f"a probe's controls failed ({said})")
    if claim.modality == "may":
        if claim.expect in seen.values():
            return Resolution("confirmed", said)
        return Resolution("unverified", f"not observed: {said}")
    if set(seen.values()) == {claim.expect}:
        return Resolution("confirmed", said)
    return Resolution("refuted", f"expected {claim.expect}, but {said}")


def _seen(record: dict[str, Any]) -> str:
    device, libs = record["device"], record.get("libs", {})
    torch = f", torch {libs['torch']}" if libs.get("torch") and "torch" in record.get("op_path", "") else ""
    when = record.get("timestamp_utc", "?")[:10]
    return f"{record['probe_id']} saw {record['verdict']} on {device.get('name')} ({when}{torch})"


def _classes_of(records: list[dict[str, Any]]) -> str:
    return ", ".join(sorted({r["device"]["device_class"] for r in records}))


def _unverified(
    claim: Any, scope: frozenset[int], probe: Any, mine: list[dict[str, Any]], literature: Any
) -> str:
    parts = [f"no evidence from {shown(scope) if len(scope) < 4 else claim.device_scope}"]
    elsewhere = [
        r
        for r in mine
        if r.get("probe_version") == probe.version and class_number(r["device"]["device_class"])
    ]
    if elsewhere:
        parts.append(
            "outside the scope, " + "; ".join(_seen(r) for r in _latest_by_class(elsewhere).values())
        )
    for statement in literature:
        if _applies(statement, claim, scope):
            agrees = "agrees" if statement["supports"] == claim.expect else "disagrees"
            parts.append(
                f"literature (weaker than a probe, {agrees}): {statement['source']} says {statement['supports']} "
                f"for {statement['scope']}: {statement['quote']!r}"
            )
    return "; ".join(parts)


def _applies(statement: dict[str, Any], claim: Any, scope: frozenset[int]) -> bool:
    same = all(statement.get(key) == getattr(claim, key, None) for key in ("kind", "dtype", "op_path"))
    op = statement.get("op")
    return (
        same
        and (op is None or op == getattr(claim, "op", None))
        and bool(scope & scope_classes(str(statement["scope"])))
    )
