"""Load one YAML file into plain data plus the position of every key and value, or a Finding.

This is the only package that parses YAML for the audit, with libyaml rather than ruamel.yaml, whose
round-trip loader is about 20x slower (research/perf-notes.md).

    reading.py    a file's bytes, safely; the YAML files of a folder
    walker.py     text -> Document: the hostile-input rules a plain CSafeLoader lacks
    scalars.py    YAML 1.2 core-schema scalars, and what YAML 1.1 would make of them
    document.py   Document and Positions
    rules.py      the load rules (yaml-syntax, duplicate-key, ...): why a file is not a question
"""

from __future__ import annotations

import os
from typing import Any

from qbank.finding import Finding
from qbank.load.document import Document, KeyLoc, Loc, Positions
from qbank.load.reading import YAML_SUFFIXES, NotRegular, iter_yaml_files, read, read_regular
from qbank.load.rules import MAX_BYTES, ambiguous_value, encoding
from qbank.load.scalars import ambiguity, scalar_value, yaml11_type
from qbank.load.walker import key_kind, key_message, parse

__all__ = [
    "MAX_BYTES",
    "YAML_SUFFIXES",
    "ambiguous_values",
    "Document",
    "KeyLoc",
    "Loc",
    "NotRegular",
    "Positions",
    "from_bytes",
    "from_path",
    "from_read",
    "iter_yaml_files",
    "parse",
    "read",
    "read_regular",
    "scalar_value",
    "yaml11_type",
]


def from_path(
    path: str | os.PathLike[str], display: str | None = None, ambiguous: list[Loc] | None = None
) -> Document | Finding:
    """Read and parse one file. Never raises for anything a file can contain. `ambiguous`: see parse."""
    shown = display or str(path)
    return from_read(read(path, shown), shown, ambiguous)


def from_read(data: bytes | Finding, shown: str, ambiguous: list[Loc] | None = None) -> Document | Finding:
    """Parse what `read` gave: the file's bytes, or the Finding that says why there are none."""
    return data if isinstance(data, Finding) else from_bytes(data, shown, ambiguous)


def ambiguous_values(document: Document, places: list[Loc]) -> list[Finding]:
    """The ambiguous-value finding of each place parse(..., ambiguous) listed, as the strict parse
    reports the first of them: the audit reports them all and checks the rest of the file."""
    found = []
    for loc in places:
        if isinstance(loc, KeyLoc):
            line, column = document.positions.key(loc)
            message = key_message(str(loc[-1]), key_kind(str(loc[-1])) or "")
        else:
            value: Any = document.data
            for step in loc:
                value = value[step]
            line, column = document.positions.value(loc)
            message = ambiguity(value, yaml11_type(value) or "")
        found.append(ambiguous_value(document.path, line, column, message))
    return found


def from_bytes(data: bytes, path: str, ambiguous: list[Loc] | None = None) -> Document | Finding:
    """Parse bytes already read (tests and the loader share this path)."""
    if data.startswith(b"\xef\xbb\xbf"):
        return encoding(path, 1, 1, "file starts with a UTF-8 byte-order mark; save it without one")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        return encoding(path, line, column, f"bytes that are not UTF-8 ({exc.reason}) at byte {exc.start}")
    return parse(text, path, ambiguous)
