"""Evidence records: one JSON object per probe run, appended to
`evidence/gpu/<device_class>/<probe_id>.jsonl` and committed, so an audit without a GPU can
resolve device claims against what a real device did (research/fp16-gpu.md §4.3-4.4).

A record holds the device (name, compute capability, class), driver and CUDA versions, library
versions, numerics settings, inputs and outputs as hex bit patterns, the CPU reference, controls,
verdict and UTC time: never a hostname or a GPU UUID.
"""

from __future__ import annotations

import datetime
import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from qbank import atomic, load

if TYPE_CHECKING:  # probes import numpy and ml_dtypes: only when a record is replayed
    from qbank.gpu.probes import Probe

SCHEMA = 1


def record(
    probe: Probe, info: dict[str, Any], result: dict[str, Any], now: datetime.datetime
) -> dict[str, Any]:
    settings = {**info.get("settings", {}), **result.pop("settings", {})}
    return {
        "schema": SCHEMA,
        "probe_id": probe.id,
        "probe_version": probe.version,
        "probe_sha256": probe.sha256,
        "kind": probe.kind,
        "dtype": probe.dtype,
        "op": probe.op,
        "op_path": probe.op_path,
        "timestamp_utc": now.astimezone(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        **{key: value for key, value in info.items() if key != "settings"},
        "settings": settings,
        **result,
    }


def path_for(root: Path, device_class: str, probe_id: str) -> Path:
    return root / device_class / f"{probe_id}.jsonl"


def append(root: Path, rec: dict[str, Any]) -> Path:
    """Add one line; earlier runs stay, so the history of a probe on a device class is kept.

    The whole file is rewritten atomically (qbank/atomic.py) rather than opened for appending: a
    run killed mid-append would leave half a line that every later audit reports. A last line
    without its line break (a hand edit, or such an append) is ended first, so the new record
    never runs into it. Raises atomic.WriteError for a link on the way.
    """
    target = path_for(root, rec["device"]["device_class"], rec["probe_id"])
    atomic.make_folder(target.parent)
    old, before = atomic.read(target)
    if old and not old.endswith(b"\n"):
        old += b"\n"
    line = json.dumps(rec, sort_keys=True, ensure_ascii=False, allow_nan=False) + "\n"
    atomic.replace(target, old + line.encode("utf-8"), expect=before)
    return target


# --- reading: bounded, and every bad line a Problem (issue 30, item 5) ----------------------------
# A pull request can add or edit these files, so nothing in them is trusted: not their size, depth,
# numbers, bytes or types. A record of today is about 3.5 KB on one line, 2 to 5 levels deep.
MAX_FILE_BYTES = 4 * 1024 * 1024  # about 1,000 runs of one probe on one device class
MAX_LINE_BYTES = 256 * 1024  # load.MAX_BYTES, the cap on a whole question file
MAX_DEPTH = 16  # json's C decoder recurses once per level: 100,000 levels raised RecursionError
MAX_DIGITS = 20  # every integer a record holds fits in 64 bits; int() of 5,000 digits raises
# ValueError since Python 3.11 (CVE-2020-10735), and converting such numbers is quadratic below it
VERDICTS = frozenset({"preserve", "flush", "mixed", "inconclusive", "float32", "float16", "nan", "saturate"})
_TIME = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z")  # what record() writes (UTC)
# A JSON string (possibly unterminated), a bracket, or a run of digits too long: the pre-scan's tokens.
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"?|[\[\]{}]|[0-9]' + f"{{{MAX_DIGITS + 1},}}")


@dataclass(frozen=True)
class Entry:
    """A record that passed the structural checks, and where it is (for findings)."""

    path: Path
    line: int
    record: dict[str, Any]


@dataclass(frozen=True)
class Problem:
    """A file or line of evidence that is not used, where, and why (the `evidence-record` rule).

    `unreadable`: what it says is unknown (bad bytes, JSON, types, size), so the claims its probe
    answers on its device class cannot be judged; otherwise it was read and contradicts its own data.
    """

    path: Path
    line: int
    column: int
    message: str
    unreadable: bool = True

    @property
    def device_class(self) -> str:
        return self.path.parent.name  # path_for: <root>/<device_class>/<probe_id>.jsonl

    @property
    def probe_id(self) -> str:
        return self.path.name.removesuffix(".jsonl")


def read(root: Path) -> tuple[list[Entry], list[Problem]]:
    """Every well-formed record under `root`, and a Problem for each file or line that is not one:
    unreadable evidence is reported by the audit, never skipped, and never stops the other lines."""
    entries: list[Entry] = []
    problems: list[Problem] = []
    for file in sorted(root.glob("*/*.jsonl")):
        lines = _read_file(file, problems).split(b"\n")
        if lines[-1] == b"":
            lines.pop()  # the empty piece after the last line break (or of an empty file)
        for number, line in enumerate(lines, 1):
            _parse_line(file, number, line, entries, problems)
    return entries, problems


def _read_file(file: Path, problems: list[Problem]) -> bytes:
    """The file's bytes, or b"" and a Problem: a link (in the file or its folder, which could show
    another file's text in a message), something not a regular file, or a file over the cap."""
    if file.parent.is_symlink():
        problems.append(Problem(file, 1, 1, "its folder is a symbolic link: not followed"))
        return b""
    try:
        data, _ = load.read_regular(file, MAX_FILE_BYTES + 1, getattr(os, "O_NOFOLLOW", 0))
    except OSError as exc:
        why = (
            "a symbolic link: not followed"
            if file.is_symlink()
            else f"cannot be read ({exc.strerror or exc})"
        )
        problems.append(Problem(file, 1, 1, why))
        return b""
    if len(data) > MAX_FILE_BYTES:
        problems.append(Problem(file, 1, 1, f"larger than {MAX_FILE_BYTES // 1024 // 1024} MiB: not read"))
        return b""
    return data


def _parse_line(file: Path, number: int, line: bytes, entries: list[Entry], problems: list[Problem]) -> None:
    parsed = _decode(line)
    if isinstance(parsed, tuple):
        column, message = parsed
        problems.append(Problem(file, number, column, message))
        return
    wrong = shape_problem(parsed)
    if wrong:
        problems.append(Problem(file, number, 1, wrong))
        return
    elsewhere = misfiled(parsed, file.parent.name, file.name.removesuffix(".jsonl"))
    if elsewhere:  # read, and known to speak for another probe or class: left out, not unreadable
        problems.append(Problem(file, number, 1, elsewhere, unreadable=False))
        return
    entries.append(Entry(file, number, parsed))


def _decode(line: bytes) -> Any:
    """One line's JSON value, or (column, why not): bytes first, then size, depth and long numbers
    found by a pre-scan, and only then the JSON parser, which never sees what would break it."""
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as exc:
        return exc.start + 1, f"bytes that are not UTF-8 ({exc.reason}) at byte {exc.start + 1} of the line"
    if len(line) > MAX_LINE_BYTES:
        return 1, f"a line longer than {MAX_LINE_BYTES // 1024} KiB: not parsed"
    refused = _prescan(text)
    if refused:
        return refused
    try:
        return json.loads(text, parse_constant=_no_constant)
    except ValueError as exc:  # json.JSONDecodeError, or _no_constant
        column = exc.colno if isinstance(exc, json.JSONDecodeError) else 1
        return column, f"not JSON ({exc.msg if isinstance(exc, json.JSONDecodeError) else exc})"


def _prescan(text: str) -> tuple[int, str] | None:
    """(column, why) for nesting deeper than MAX_DEPTH or an integer longer than MAX_DIGITS outside
    a string; brackets and digits inside strings are skipped whole."""
    depth = 0
    for match in _TOKEN.finditer(text):
        token = match.group()
        if token[0] == '"':
            continue
        if token in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return match.start() + 1, f"JSON nested deeper than {MAX_DEPTH} levels: not parsed"
        elif token in "]}":
            depth -= 1
        else:
            return match.start() + 1, f"a number of {len(token)} digits (at most {MAX_DIGITS}): not parsed"
    return None


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON (records are written with allow_nan=False)")


# --- the shape of a record -------------------------------------------------------------------------


def _is_int(value: Any) -> bool:
    return type(value) is int  # not bool, which JSON's true would be


def _strings_or_null(value: Any) -> bool:
    return isinstance(value, dict) and all(v is None or isinstance(v, str) for v in value.values())


def _device(value: Any) -> bool:
    return isinstance(value, dict) and all(isinstance(value.get(k), str) for k in ("device_class", "name"))


def _objects(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(item, dict) for item in value)


def _controls(value: Any) -> bool:
    return isinstance(value, dict) and all(v in ("pass", "fail") for v in value.values())


# key: (test, what it must be, required)
FIELDS: dict[str, tuple[Callable[[Any], bool], str, bool]] = {
    "schema": (lambda v: _is_int(v) and v == SCHEMA, f"{SCHEMA}, the record schema qbank reads", True),
    "probe_id": (lambda v: isinstance(v, str), "a string", True),
    "probe_version": (lambda v: _is_int(v) and v >= 0, "a whole number", False),
    "verdict": (lambda v: v in VERDICTS, "one of " + ", ".join(sorted(VERDICTS)), True),
    "device": (_device, "an object with `device_class` and `name` strings", True),
    "timestamp_utc": (
        lambda v: isinstance(v, str) and bool(_TIME.fullmatch(v)),
        "YYYY-MM-DDTHH:MM:SSZ",
        True,
    ),
    "cases": (_objects, "a list of objects", True),
    "control_cases": (_objects, "a list of objects", False),
    "controls": (_controls, 'an object of "pass" and "fail"', True),
    "libs": (_strings_or_null, "an object of strings (or null)", False),
    "settings": (lambda v: isinstance(v, dict), "an object", False),
    **{key: (lambda v: isinstance(v, str), "a string", False) for key in ("op_path", "backend", "kind")},
}


def shape_problem(rec: Any) -> str | None:
    """Why `rec` is not a well-formed record, or None. resolve.py reads these fields without further
    checks."""
    if not isinstance(rec, dict):
        return f"not an evidence record: JSON {_kind(rec)}, not an object"
    for key, (test, want, required) in FIELDS.items():
        if key not in rec:
            if required:
                return f"not an evidence record: it has no `{key}`"
        elif not test(rec[key]):
            return f"`{key}` is {_shown(rec[key])}; expected {want}"
    return None


def misfiled(rec: dict[str, Any], device_class: str, probe_id: str) -> str | None:
    """Why a well-formed record is not one of `probe_id` on `device_class`, where its file says it is
    (a record copied into another probe's file would speak for that probe), or None."""
    if rec["probe_id"] != probe_id or rec["device"]["device_class"] != device_class:
        where = f"{rec['device']['device_class']}/{rec['probe_id']}"
        return f"a record of {shown(where)} filed under {device_class}/{probe_id}.jsonl"
    return None


def _kind(value: Any) -> str:
    names = {bool: "true or false", int: "a number", float: "a number", str: "a string", list: "a list"}
    return "null" if value is None else names.get(type(value), "an object")


def _shown(value: Any) -> str:
    return f"{_kind(value)} {shown(value)}"


def shown(value: Any) -> str:
    """A value for a message: JSON with every non-ASCII and control character escaped (nothing from a
    file reaches a terminal raw), cut to 60 characters."""
    text = json.dumps(value, ensure_ascii=True)
    return text if len(text) <= 60 else text[:57] + "..."
