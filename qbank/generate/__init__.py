"""`qbank generate`: parametric drill questions rendered from the bank's hardware and model tables.

A family (qbank/generate/families/) turns a random choice of device, model and situation into a
Draft whose every number is computed exactly here. The driver then holds each draft to the bank's
own rules before it writes anything:

- it is rendered to YAML text and read back through the audit's loader, model and record checks
  (arithmetic, hardware-constant, numeric-claim); any finding is a template bug and stops the run;
- it must not read like any live question already in the bank or accepted in this run (the audit's
  near-duplicate rule), nor ask and answer what one does with only numbers and names changed
  (duplicate-content), else it is dropped and another draw is tried;
- drills exist only at L1 to L3, a cell holds at most CAP of one family, and they only fill the gap
  that written questions leave in a cell, thinnest cells first;
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

from qbank import load, similarity
from qbank.checks.api import Context
from qbank.engine import check_document
from qbank.finding import Finding
from qbank.generate import emit
from qbank.generate.draft import Draft
from qbank.generate.tables import Tables, load_models
from qbank.model.taxonomy import BankTables
from qbank.new import write_new

# Drills are drills (issue 26): a rendered question is a few lines of arithmetic, which is what the
# taxonomy's L1 to L3 zones ask for (recall, fluency, implement, analyze), never an L4+ design.
LEVELS = ("L1", "L2", "L3")
CAP = 10  # most drills of one family in one track x level cell, so no template dominates a cell
TRACKS = ("cloud", "edge", "mobile", "tinyml", "global")


Maker = Callable[[random.Random, Tables, str, str], Draft | None]


@dataclass(frozen=True)
class Family:
    name: str
    version: int
    cells: frozenset[tuple[str, str]]  # (track, level) pairs it can render
    make: Maker  # None when the draw does not make a good question (it is drawn again)
    doc: str

    def __post_init__(self) -> None:
        above = sorted(level for _, level in self.cells if level not in LEVELS)
        if above:
            raise ValueError(f"family {self.name} renders drills at {above[0]}: drills live at L1 to L3")


class TemplateError(Exception):
    """A rendered draft failed the bank's own checks: a bug in a family, never written."""


@dataclass
class Run:
    """State of one generation run: what the bank holds, and what has been accepted."""

    bank: Path
    bank_tables: BankTables
    tables: Tables
    today: date
    taken_ids: set[str]
    seen: similarity.Index  # title+scenario+question of every question, bank and new
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
        shingles = similarity.shingles("\n".join((draft.title, draft.scenario, draft.question)))
        content = similarity.content_key(
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
    document = load.parse(content, str(path))
    if isinstance(document, Finding):
        raise TemplateError(f"{document.message}\n{content}")
    _, findings, _ = check_document(path, document, Context(run.bank_tables, run.bank / "questions"))
    if findings:
        shown = "\n".join(f"{f.line}:{f.column} {f.name} {f.message}" for f in findings)
        raise TemplateError(f"{shown}\n{content}")


def _fill_cell(
    run: Run,
    serving: list[Family],
    room: dict[str, int],
    track: str,
    level: str,
    missing: int,
    seed: int,
    dry_run: bool,
) -> None:
    """Split what a cell is missing evenly among its families, none past its `room` (the cap less
    what the cell holds). A family that runs out of distinct questions or room leaves its shortfall
    to the families after it, and to a next round among the rest."""
    serving = [f for f in serving if room[f.name] > 0]
    for attempt in range(len(serving)):
        exhausted = []
        for i, family in enumerate(serving):
            if missing <= 0:
                return
            quota = min(-(-missing // (len(serving) - i)), room[family.name])
            made = fill(run, family, track, level, quota, seed, dry_run, attempt) if quota > 0 else 0
            missing -= made
            room[family.name] -= made
            if made < quota or room[family.name] <= 0:
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
    bank_tables: BankTables,
    families: list[Family],
    per_cell: int,
    seed: int,
    today: date,
    dry_run: bool,
    cap: int = CAP,
) -> Run:
    """Top each (track, level) cell up to `per_cell` questions, written ones included, with drills
    split among its families and at most `cap` of one family in a cell: drills fill the gaps that
    written questions leave, they do not compete with them."""
    tables = Tables(bank_tables.hardware, load_models(bank / "schema"))
    run = Run(bank, bank_tables, tables, today, set(), similarity.Index())
    have: dict[tuple[str, str, str], int] = {}
    held: dict[tuple[str, str], int] = {}  # live questions per cell, written or generated
    for path in load.iter_yaml_files(bank / "questions"):
        run.taken_ids.add(path.stem)
        document = load.from_path(path)
        if isinstance(document, Finding) or document.data.get("status") == "deleted":
            continue  # a tombstone keeps its id, and nothing else, as in the audit's bank rules
        data = document.data
        run.seen.add(similarity.shingles(similarity.text_of(data)))
        run.contents.add(similarity.content_key(data))
        cell = (str(data.get("track")), str(data.get("level")))
        held[cell] = held.get(cell, 0) + 1
        made_by = data.get("generator")
        if isinstance(made_by, dict):
            key = (*cell, str(made_by.get("family")))
            have[key] = have.get(key, 0) + 1
    # Thinnest cells first: a drill several cells could take (masked, one cloud drill reads like its
    # edge twin) goes where the bank holds least.
    for track, level in sorted(cells_of(families), key=lambda c: held.get(c, 0)):
        serving = [f for f in families if (track, level) in f.cells]
        room = {f.name: cap - have.get((track, level, f.name), 0) for f in serving}
        _fill_cell(run, serving, room, track, level, per_cell - held.get((track, level), 0), seed, dry_run)
    return run
