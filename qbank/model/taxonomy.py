"""The bank's reference data under `schema/`: the topic taxonomy, the title word lists and the
hardware table.

Failing closed: a missing, unreadable or malformed file is a `taxonomy` finding (an error), never a
silent skip. The reference system's topic check read a file that did not exist and so checked
nothing (research/anchor-vault.md §1.5).

A folder outside any bank is audited against the copies shipped inside the package, and the audit
says so.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property
from importlib import resources
from pathlib import Path
from typing import Any

from qbank import load
from qbank.finding import Finding
from qbank.model.hardware import HARDWARE_FILE, HardwareTable, parse_table
from qbank.rules import rule, rule_of

TAXONOMY_FILE = "taxonomy.yaml"
TITLE_WORDS_FILE = "title-words.yaml"
_SLUG = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")


@dataclass(frozen=True)
class BankTables:
    """What the checks need from `schema/`: topics, the words titles may use as written, hardware."""

    origin: str  # the folder it came from, or "builtin"
    topic_groups: dict[str, tuple[str, ...]]  # as schema/taxonomy.yaml groups them, for readers and exports
    lowercase_words: frozenset[str]
    spellings: dict[str, str]  # lower-cased word -> canonical spelling
    hardware: HardwareTable

    @cached_property  # asked once per question by the topic check
    def topics(self) -> frozenset[str]:
        return frozenset(slug for slugs in self.topic_groups.values() for slug in slugs)


NO_BANK = "no bank here: no folder with questions/ and schema/ above the working directory"


def find_bank_root(start: Path) -> Path | None:
    """The nearest folder at or above `start` that holds both `questions/` and `schema/`."""
    here = start.resolve()
    for folder in (here, *here.parents):
        if (folder / "questions").is_dir() and (folder / "schema").is_dir():
            return folder
    return None


def load_bank_tables(schema_dir: Path | None) -> BankTables | Finding:
    """Read the schema files of a bank, or the package's copies when `schema_dir` is None."""
    if schema_dir is None:
        folder = resources.files("qbank") / "data"
        origin = "builtin"
    else:
        folder = schema_dir
        origin = str(schema_dir)
    topics = _read(folder / TAXONOMY_FILE, _parse_topics)
    if isinstance(topics, Finding):
        return topics
    words = _read(folder / TITLE_WORDS_FILE, _parse_title_words)
    if isinstance(words, Finding):
        return words
    lowercase, spellings = words
    hardware = _read(folder / HARDWARE_FILE, parse_table)
    if isinstance(hardware, Finding):
        return hardware
    return BankTables(origin, topics, lowercase, spellings, hardware)


def _read(path: Any, parse: Any) -> Any:
    shown = str(path)
    try:  # a regular file only: opening a FIFO would wait for a writer forever
        data, _ = load.read_regular(path, load.MAX_BYTES + 1)
    except OSError as exc:
        return taxonomy(shown, 1, 1, f"cannot read {path.name}: {exc.strerror or exc}")
    if len(data) > load.MAX_BYTES:
        return taxonomy(shown, 1, 1, f"{path.name} is larger than {load.MAX_BYTES // 1024} KiB")
    document = load.from_bytes(data, shown)
    if isinstance(document, Finding):
        return taxonomy(shown, document.line, document.column, document.message)
    try:
        return parse(document.data)
    except ValueError as exc:
        return taxonomy(shown, 1, 1, str(exc))


def _parse_topics(data: dict[str, Any]) -> dict[str, tuple[str, ...]]:
    groups = data.get("topics")
    if not isinstance(groups, dict) or not groups:
        raise ValueError("expected `topics:` mapping competency areas to lists of topic slugs")
    for area, slugs in groups.items():
        if not isinstance(slugs, list) or not all(isinstance(s, str) and _SLUG.fullmatch(s) for s in slugs):
            raise ValueError(f"topics.{area} must be a list of lower-case slugs")
    return {str(area): tuple(slugs) for area, slugs in groups.items()}


def _parse_title_words(data: dict[str, Any]) -> tuple[frozenset[str], dict[str, str]]:
    lowercase, spellings = data.get("lowercase"), data.get("spellings")
    for name, value in (("lowercase", lowercase), ("spellings", spellings)):
        if not isinstance(value, list) or not all(isinstance(w, str) and w for w in value):
            raise ValueError(f"expected `{name}:` as a list of words")
    return frozenset(lowercase or ()), {w.lower(): w for w in spellings or ()}


@rule("QB300", "taxonomy")
def taxonomy(path: str, line: int, column: int, message: str) -> Finding:
    """The bank's `schema/taxonomy.yaml`, `schema/title-words.yaml` and `schema/hardware.yaml` must
    exist and be well formed.

    Topic, title and hardware-constant checks depend on them, so a missing or broken file is an error that fails the
    audit: it is never skipped. A folder that is not inside a bank (no `questions/` and `schema/`
    above it) is checked against the copies shipped with qbank, and the audit says so.

    Fails:
        (schema/taxonomy.yaml deleted, or `topics:` not a mapping of areas to slug lists)
    Passes:
        topics:
          precision: [mixed-precision-training, quantization-fundamentals]
    """
    return rule_of(taxonomy).finding(
        path, line, column, f"bank schema unusable, topic, title and hardware checks cannot run: {message}"
    )
