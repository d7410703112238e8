"""`qbank generate`: parametric drill questions rendered from the bank's hardware and model tables.

A family (qbank/generate/families/) turns a random choice of device, model and situation into a
Draft whose every number is computed exactly here. The driver then holds each draft to the bank's
own rules before it writes anything:

- it is rendered to YAML text and read back through the audit's loader, model and record checks
  (arithmetic, hardware-constant, numeric-claim); any finding is a template bug and stops the run;
- it must not read like any question already in the bank or accepted in this run (the audit's
  near-duplicate rule), nor ask and answer the same in the same words (duplicate-content), else it
  is dropped and another draw is tried;
- it is written with a fresh id, atomically, never over an existing file.

The YAML files are the source of truth once written: `provenance: generated` and a `generator:`
block (family, version, parameters) record where each came from.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from qbank import source
from qbank.checks import RECORD_CHECKS, similar
from qbank.engine import Context
from qbank.finding import Finding
from qbank.generate import emit
from qbank.generate.tables import Tables
from qbank.new import write_new
from qbank.taxonomy import BankSchema
from qbank.validate import validate

LEVELS = ("L1", "L2", "L3", "L4", "L5", "L6+")
TRACKS = ("cloud", "edge", "mobile", "tinyml", "global")


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


Maker = Callable[[random.Random, Tables, str, str], Draft | None]


@dataclass(frozen=True)
class Family:
    name: str
    version: int
    cells: frozenset[tuple[str, str]]  # (track, level) pairs it can render
    make: Maker  # None when the draw does not make a good question (it is drawn again)
    doc: str


class TemplateError(Exception):
    """A rendered draft failed the bank's own checks: a bug in a family, never written."""


@dataclass
class Run:
    """State of one generation run: what the bank holds, and what has been accepted."""

    bank: Path
    schema: BankSchema
    tables: Tables
    today: date
    taken_ids: set[str]
    seen: similar.Index  # title+scenario+question of every question, bank and new
    contents: set[bytes] = field(default_factory=set)  # question+answer of each (duplicate-content)
    written: list[Path] = field(default_factory=list)
    dropped: int = 0  # drafts that read like another question


def fill(
    run: Run, family: Family, track: str, level: str, count: int, seed: int, dry_run: bool, attempt: int = 0
) -> int:
    """Render up to `count` new questions of one family in one cell; return how many were accepted.
    Each `attempt` draws a fresh sequence, so a later round does not redraw what the first accepted."""
    key = f"{seed}:{family.name}:{track}:{level}" + (f":{attempt}" if attempt else "")
    rng = random.Random(key)
    accepted, misses = 0, 0
    while accepted < count and misses < 40 * count + 40:
        draft = family.make(rng, run.tables, track, level)
        if draft is None:
            misses += 1
            continue
        draft = emit.english(draft)
        shingles = similar.shingles("\n".join((draft.title, draft.scenario, draft.question)))
        content = similar.content_key(
            {"question": draft.question, "details": {"realistic_solution": draft.solution}}
        )
        if content in run.contents or run.seen.close_to(shingles):
            run.dropped += 1
            misses += 1
            continue
        path = _place(run, draft, family, dry_run)
        run.seen.add(shingles)
        run.contents.add(content)
        run.written.append(path)
        accepted += 1
    return accepted


def _place(run: Run, draft: Draft, family: Family, dry_run: bool) -> Path:
    folder = run.bank / "questions" / draft.track / draft.competency_area
    digest = hashlib.blake2b(repr(sorted(draft.params.items())).encode(), digest_size=8).hexdigest()
    for attempt in range(1000):
        question_id = f"{draft.track}-{run.today:%Y%m}-{_hex4(digest, attempt)}"
        if question_id in run.taken_ids:
            continue
        content = emit.question_yaml(draft, question_id, family.version)
        check(run, folder / f"{question_id}.yaml", content)
        target = folder / f"{question_id}.yaml"
        if dry_run or write_new(target, content):
            run.taken_ids.add(question_id)
            return target
    raise TemplateError(f"no free id for {draft.track} in {run.today:%Y-%m}")


def _hex4(digest: str, attempt: int) -> str:
    if attempt == 0:
        return digest[:4]
    return hashlib.blake2b(f"{digest}:{attempt}".encode(), digest_size=2).hexdigest()


def check(run: Run, path: Path, content: str) -> None:
    """The rendered file passes every per-file rule of the bank, or TemplateError says which."""
    document = source.load_text(content, str(path))
    if isinstance(document, Finding):
        raise TemplateError(f"{document.message}\n{content}")
    context = Context(run.schema, run.bank / "questions")
    record, findings = validate(path, document, run.schema)
    for rule_check in RECORD_CHECKS:
        findings += rule_check(record, context)
    if findings:
        shown = "\n".join(f"{f.line}:{f.column} {f.name} {f.message}" for f in findings)
        raise TemplateError(f"{shown}\n{content}")


def _fill_cell(
    run: Run, serving: list[Family], track: str, level: str, missing: int, seed: int, dry_run: bool
) -> None:
    """Split what a cell is missing evenly among its families. A family that runs out of distinct
    questions leaves its shortfall to the families after it, and to a next round among the rest."""
    for attempt in range(len(serving)):
        exhausted = []
        for i, family in enumerate(serving):
            quota = -(-missing // (len(serving) - i))
            if quota <= 0:
                return
            made = fill(run, family, track, level, quota, seed, dry_run, attempt)
            missing -= made
            if made < quota:
                exhausted.append(family)
        serving = [f for f in serving if f not in exhausted]
        if missing <= 0 or not serving:
            return


def cells_of(families: list[Family]) -> Iterator[tuple[str, str]]:
    for track in TRACKS:
        for level in LEVELS:
            if any((track, level) in f.cells for f in families):
                yield track, level


def generate(
    bank: Path,
    schema: BankSchema,
    families: list[Family],
    per_cell: int,
    seed: int,
    today: date,
    dry_run: bool,
) -> Run:
    """Top each (track, level) cell up to `per_cell` generated questions, split among its families."""
    from qbank.generate.tables import load_models

    tables = Tables(schema.hardware, load_models(bank / "schema"))
    run = Run(bank, schema, tables, today, set(), similar.Index())
    have: dict[tuple[str, str, str], int] = {}
    for path in source.iter_yaml_files(bank / "questions"):
        run.taken_ids.add(path.stem)
        document = source.load(path)
        if isinstance(document, Finding):
            continue
        data = document.data
        run.seen.add(
            similar.shingles("\n".join(str(data.get(k, "")) for k in ("title", "scenario", "question")))
        )
        run.contents.add(similar.content_key(data))
        made_by = data.get("generator")
        if isinstance(made_by, dict):
            key = (str(data.get("track")), str(data.get("level")), str(made_by.get("family")))
            have[key] = have.get(key, 0) + 1
    for track, level in cells_of(families):
        serving = [f for f in families if (track, level) in f.cells]
        total = sum(have.get((track, level, f.name), 0) for f in serving)
        _fill_cell(run, serving, track, level, per_cell - total, seed, dry_run)
    return run
