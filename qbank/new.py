"""`qbank new`: a skeleton question in its folder, with a fresh id and placeholders the audit rejects;
and `qbank init`: a new, empty bank.

The reference system's template passed its own checks while still full of `<TODO: …>` text
(research/anchor-vault.md §7). Here every prose field of the skeleton holds a `<TODO` placeholder,
which rule `placeholder` reports until an author replaces it, so a skeleton can never pass as done.
The file is written from a template rather than dumped, so its layout is the bank's, and it is
created atomically (qbank/atomic.py): written to a temporary file, then hard-linked into place,
which fails rather than overwrite an existing question, and never through a symbolic link.
"""

from __future__ import annotations

import json
import os
import re
import secrets
from dataclasses import dataclass
from datetime import date
from importlib import resources
from pathlib import Path

from qbank import atomic, load
from qbank.finding import Finding
from qbank.model.fields import classification, text
from qbank.model.hardware import HARDWARE_FILE
from qbank.model.taxonomy import TAXONOMY_FILE, TITLE_WORDS_FILE, BankTables

ID_ATTEMPTS = 1000  # 4 hex digits give 65,536 ids per track and month; collisions are rare


class NewError(Exception):
    """The question cannot be created as asked (bad topic or title, no free id)."""


@dataclass(frozen=True)
class Skeleton:
    track: str
    competency_area: str
    level: str
    zone: str
    topic: str
    title: str


def builtin_schema() -> dict[str, bytes]:
    """qbank's own schema/ files by name: the taxonomy, title words and hardware table a new bank
    starts from (`qbank init`, `qbank migrate`)."""
    folder = resources.files("qbank") / "data"
    return {name: (folder / name).read_bytes() for name in (TAXONOMY_FILE, TITLE_WORDS_FILE, HARDWARE_FILE)}


def init(root: Path) -> list[Path]:
    """Make a bank at `root`: questions/ and schema/ with qbank's tables. Refused (NewError) where
    a bank or either folder is there already; the files made, in order."""
    for name in ("questions", "schema"):
        if (root / name).exists() or (root / name).is_symlink():
            raise NewError(f"{root / name} exists: {root} is a bank already, or holds one of its folders")
    try:
        return [root / "questions", *lay_out(root, builtin_schema())]
    except (atomic.WriteError, OSError) as exc:
        raise NewError(str(exc)) from None


def lay_out(root: Path, schema: dict[str, bytes]) -> list[Path]:
    """questions/ and schema/ at `root`, and the `schema` files that are not there yet (atomic.create
    never overwrites); the files made. Raises atomic.WriteError or OSError (`qbank init`, `migrate`)."""
    atomic.make_folder(root / "questions")
    atomic.make_folder(root / "schema")
    return [
        root / "schema" / name for name, data in schema.items() if atomic.create(root / "schema" / name, data)
    ]


def create(bank: Path, tables: BankTables, skeleton: Skeleton, today: date) -> Path:
    """Write the skeleton under `bank`/questions and return its path."""
    _check(tables, skeleton)
    folder = bank / "questions" / skeleton.track / skeleton.competency_area
    taken = {path.stem for path in load.iter_yaml_files(bank / "questions")}
    schema_file = bank / "schema" / "question.schema.json"
    modeline = os.path.relpath(schema_file, folder) if schema_file.parent.is_dir() else None
    for _ in range(ID_ATTEMPTS):
        question_id = f"{skeleton.track}-{today:%Y%m}-{secrets.token_hex(2)}"
        if question_id in taken:
            continue
        target = folder / f"{question_id}.yaml"
        content = render(skeleton, question_id, modeline)
        _reads_back(content, skeleton)
        if write_new(target, content):
            return target
    raise NewError(f"no free id for {skeleton.track} in {today:%Y-%m} after {ID_ATTEMPTS} tries")


def _check(tables: BankTables, skeleton: Skeleton) -> None:
    if skeleton.topic not in tables.topics:
        close = sorted(t for t in tables.topics if skeleton.topic.split("-")[0] in t)[:5]
        hint = f" (did you mean {', '.join(close)}?)" if close else ""
        raise NewError(f"unknown topic {skeleton.topic!r}{hint}; topics are listed in schema/taxonomy.yaml")
    broken = next(text.title_problems(skeleton.title, tables.lowercase_words, tables.spellings), None)
    if broken:
        raise NewError(broken[1].message)


def render(skeleton: Skeleton, question_id: str, modeline: str | None) -> str:
    blooms = [b for b in classification.BLOOM_ORDER if b in classification.ZONE_BLOOM[skeleton.zone]]
    head = f"# yaml-language-server: $schema={Path(modeline).as_posix()}\n" if modeline else ""
    return head + TEMPLATE.format(
        id=question_id,
        track=skeleton.track,
        level=skeleton.level,
        zone=skeleton.zone,
        topic=skeleton.topic,
        area=skeleton.competency_area,
        blooms=", ".join(blooms),
        title=scalar(skeleton.title),
    )


def _reads_back(content: str, skeleton: Skeleton) -> None:
    """The rendered file parses and holds the title as given (guards the quoting in `scalar`)."""
    document = load.parse(content, "skeleton")
    if isinstance(document, Finding) or document.data.get("title") != skeleton.title:
        raise NewError(f"cannot write the title {skeleton.title!r} as YAML; please report this")


def scalar(value: str) -> str:
    """A title as a YAML scalar: plain when that reads back as the same string, else quoted."""
    if _PLAIN.fullmatch(value) and load.scalar_value(value, None) == value:
        return value
    return json.dumps(value, ensure_ascii=False)  # a JSON string is a valid YAML double-quoted scalar


_PLAIN = re.compile(r"[A-Za-z0-9][\w .,()/+'’-]*")  # no `: `, ` #`, quotes or indicators


def write_new(target: Path, content: str) -> bool:
    """Create `target` with `content` atomically; False if it already exists. Raises
    atomic.WriteError when a folder on the way below the bank root is a symbolic link."""
    atomic.make_folder(target.parent)
    return atomic.create(target, content.encode("utf-8"))


TEMPLATE = """\
schema_version: '1.0'
id: {id}
track: {track}
level: {level}
zone: {zone}
topic: {topic}
competency_area: {area}
# bloom_level: one of {blooms} (what zone {zone} admits)
title: {title}
scenario: >-
  <TODO: the situation: hardware, model, sizes and what was observed; at least 30 characters>
question: >-
  <TODO: one focused question of at most 200 characters>
details:
  realistic_solution: >-
    <TODO: the answer a strong candidate gives, with the reasoning>
  common_mistake: |
    **The Pitfall:** <TODO: what candidates get wrong>
    **The Rationale:** <TODO: why the wrong answer is tempting>
    **The Consequence:** <TODO: what it costs in production>
  napkin_math: |
    **Assumptions:**
    - <TODO: each input number, with its source>
    **Calculations:**
    - <TODO: one equation per line, written as expression, equals sign, value and unit>
    **Conclusion:**
    <TODO: what the numbers say about the question>
status: draft
provenance: human
human_reviewed:
  status: not-reviewed
"""
