"""Structural edits of a question file that change only the lines they must: add a top-level key,
drop or rename one, quote a plain value that YAML 1.1 reads as something else.

ruamel.yaml writes them, in round-trip mode tuned to the file: quotes kept, `null` written as
`null`, no line folded (width unbounded), and the sequence indentation the file uses (`- ` at the
key's column, or two columns in). Before an edit is trusted to it, ruamel.yaml must write the
unedited file back byte for byte. It cannot when the file has a construct it does not keep:

    a plain or quoted scalar folded over several lines   (ruamel.yaml joins or re-folds the lines)
    CRLF or other line breaks than LF; a `---` or `...` marker; tabs or odd spacing around `:`

and then the edits are spliced into the text instead, at the positions qbank's loader gives. Either
way the result must pass two checks before it is used: the lines that differ from the original are
only those the edits name (a line added per key added; the key's or value's own lines otherwise),
and the text loads again (qbank's loader, every hostile-input rule) to the old data with exactly
the intended changes. A file that fails either is left as it was, with the reason.

ruamel.yaml is imported here and nowhere else (pyproject.toml's import contracts).
"""

from __future__ import annotations

import difflib
import io
from dataclasses import dataclass
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap
from ruamel.yaml.scalarstring import SingleQuotedScalarString

from qbank import load
from qbank.finding import Finding
from qbank.load import Document, KeyLoc, Loc, Positions


@dataclass(frozen=True)
class Add:
    """A top-level `key: value` (`value` a plain scalar: `imported`), placed after the first of
    `after` the file has, else at the end."""

    key: str
    value: str
    after: tuple[str, ...] = ()


@dataclass(frozen=True)
class Quote:
    """The plain scalar at `loc` written in single quotes: its value as YAML 1.2 reads it, kept.
    A load.KeyLoc names a key: `{3: "8192"}` becomes `{'3': "8192"}`."""

    loc: Loc


@dataclass(frozen=True)
class Drop:
    key: str  # a top-level key, with its value


@dataclass(frozen=True)
class Rename:
    old: str  # a top-level key, renamed where it stands
    new: str


Edit = Add | Quote | Drop | Rename


@dataclass(frozen=True)
class Rewritten:
    text: str
    writer: str  # "ruamel.yaml" or "splice"
    why_splice: str = ""  # what ruamel.yaml could not keep, when the splice wrote it


def rewrite(text: str, document: Document, edits: list[Edit]) -> Rewritten | str:
    """`text` with `edits` applied, or why it cannot be done safely. `document` is `text` as
    load.parse(text, path, ambiguous) read it (ambiguous values as YAML 1.2 reads them)."""
    expected = _expected(document.data, edits)
    if isinstance(expected, str):
        return expected
    allowed = _allowed_lines(text, document, edits)
    sources = {e.loc: _source(text, document, e.loc) for e in edits if isinstance(e, Quote)}
    done, why = _by_ruamel(text, edits, sources)
    why = why or _proof(text, done, allowed, expected, document.path)
    if not why:
        return Rewritten(done, "ruamel.yaml")
    spliced = _splice(text, document, edits)
    problem = _proof(text, spliced, allowed, expected, document.path)
    if problem:
        return f"neither ruamel.yaml ({why}) nor a splice ({problem}) gave a safe edit"
    return Rewritten(spliced, "splice", why)


# --- what the data must be afterwards ------------------------------------------------------------


def _expected(data: dict[str, Any], edits: list[Edit]) -> dict[str, Any] | str:
    """The old data with the edits' changes: the one result the new text must load to."""
    new = dict(data)
    for edit in edits:
        if isinstance(edit, Add):
            if edit.key in new:
                return f"`{edit.key}` is there already"
            value = load.parse(f"v: {edit.value}\n", "value")
            if isinstance(value, Finding) or not isinstance(value.data.get("v"), str | int | float | bool):
                return f"`{edit.value}` is not a plain scalar"
            new[edit.key] = value.data["v"]
        elif isinstance(edit, Drop):
            new.pop(edit.key, None)
        elif isinstance(edit, Rename):
            if edit.old not in new:
                return f"`{edit.old}` is not there"
            if edit.new in new:
                return f"`{edit.new}` is there already"
            new[edit.new] = new.pop(edit.old)
    return new  # a quoted value reads as it did in YAML 1.2


# --- ruamel.yaml ---------------------------------------------------------------------------------

_STYLES = ((2, 0), (4, 2))  # sequence indent and dash offset: `- ` at the key's column, or 2 in


def _yaml(sequence: int, offset: int) -> YAML:
    yaml = YAML(typ="rt")
    yaml.preserve_quotes = True
    yaml.width = 1 << 30  # never fold a line ruamel.yaml did not read folded
    yaml.indent(mapping=2, sequence=sequence, offset=offset)
    yaml.representer.add_representer(type(None), _null)
    return yaml


def _null(representer: Any, _: None) -> Any:
    """`null` as `null`: ruamel.yaml's round-trip writer leaves the value empty."""
    return representer.represent_scalar("tag:yaml.org,2002:null", "null")


def _by_ruamel(text: str, edits: list[Edit], sources: dict[Loc, str]) -> tuple[str, str]:
    """The edited text as ruamel.yaml writes it, and "" ; or "" and why it cannot."""
    first_difference = ""
    for style in _STYLES:
        yaml = _yaml(*style)
        try:
            data = yaml.load(text)
            unchanged = _dumped(yaml, data)
            if unchanged != text:
                first_difference = first_difference or _first_difference(text, unchanged)
                continue
            _apply(data, edits, sources)
            return _dumped(yaml, data), ""
        except Exception as exc:  # noqa: BLE001 - whatever ruamel.yaml fails at, the splice is tried
            return "", f"ruamel.yaml failed: {type(exc).__name__}"
    return "", f"ruamel.yaml does not write this file back unchanged: {first_difference}"


def _source(text: str, document: Document, loc: Loc) -> str:
    """The text of the plain scalar at `loc` (a value, or a key for a KeyLoc)."""
    start, end = _quoted_span(document, loc)
    return text[start:end]


def _quoted_span(document: Document, loc: Loc) -> tuple[int, int]:
    positions = document.positions
    return (positions.key_span(loc) if isinstance(loc, KeyLoc) else positions.span(loc)) or (0, 0)


def _dumped(yaml: YAML, data: Any) -> str:
    out = io.StringIO()
    yaml.dump(data, out)
    return out.getvalue()


def _first_difference(old: str, new: str) -> str:
    for number, (a, b) in enumerate(zip(old.splitlines(), new.splitlines(), strict=False), 1):
        if a != b:
            return f"line {number}: {_kind(a, b)}"
    return "line endings or the end of the file"


def _kind(old_line: str, new_line: str) -> str:
    if old_line.lstrip().startswith("-") and old_line.lstrip() == new_line.lstrip():
        return "list indentation"
    if len(new_line) != len(old_line) and (new_line.startswith(old_line) or old_line.startswith(new_line)):
        return "a scalar folded over several lines"
    return "its spelling of the line"


def _apply(data: CommentedMap, edits: list[Edit], sources: dict[Loc, str]) -> None:
    for edit in edits:
        if isinstance(edit, Add):
            keys = list(data)
            place = next((keys.index(k) + 1 for k in edit.after if k in data), len(keys))
            data.insert(place, edit.key, YAML(typ="safe").load(edit.value))
        elif isinstance(edit, Quote):
            *parents, last = edit.loc
            holder: Any = data
            for step in parents:
                holder = holder[step]
            if isinstance(edit.loc, KeyLoc):  # ruamel.yaml read the key as a number: its own key
                old = next(k for k in holder if str(k) == str(last))
                place = list(holder).index(old)
                holder.insert(place, SingleQuotedScalarString(sources[edit.loc]), holder.pop(old))
            else:
                holder[last] = SingleQuotedScalarString(sources[edit.loc])
        elif isinstance(edit, Drop):
            del data[edit.key]
        else:
            place = list(data).index(edit.old)
            value = data.pop(edit.old)
            data.insert(place, edit.new, value)


# --- the splice ---------------------------------------------------------------------------------


def _splice(text: str, document: Document, edits: list[Edit]) -> str:
    """The edits made on the text itself, last offset first so the earlier offsets hold."""
    positions = document.positions
    newline = "\r\n" if "\r\n" in text else "\n"
    pieces: list[tuple[int, int, str]] = []
    for edit in edits:
        if isinstance(edit, Quote):
            start, end = _quoted_span(document, edit.loc)
            pieces.append((start, end, "'" + _source(text, document, edit.loc).replace("'", "''") + "'"))
        elif isinstance(edit, Add):
            after = next((k for k in edit.after if k in document.data), None)
            at = _entry_end(text, positions, after) if after else len(text)
            lead = newline if at == len(text) and text and not text.endswith(("\n", "\r")) else ""
            pieces.append((at, at, f"{lead}{edit.key}: {edit.value}{newline}"))
        elif isinstance(edit, Drop):
            pieces.append(
                (_line_start(text, positions, (edit.key,)), _entry_end(text, positions, edit.key), "")
            )
        else:
            start = _line_start(text, positions, (edit.old,))
            pieces.append((start, start + len(edit.old), edit.new))
    for start, end, new in sorted(pieces, reverse=True):
        text = text[:start] + new + text[end:]
    return text


def _line_start(text: str, positions: Positions, loc: Loc) -> int:
    """The offset of a top-level key (at the start of its line)."""
    line, _ = positions.key(loc)
    return 0 if line == 1 else _nth_line_start(text, line)


def _nth_line_start(text: str, line: int) -> int:
    index = 0
    for _ in range(line - 1):
        index = text.index("\n", index) + 1
    return index


def _entry_end(text: str, positions: Positions, key: str) -> int:
    """The offset just past the line on which the value of top-level `key` ends."""
    _, end = positions.span((key,)) or (0, 0)
    if end > 0 and text[end - 1] == "\n":
        return end  # a block scalar ends at the start of the next line
    found = text.find("\n", end)
    return len(text) if found < 0 else found + 1


# --- the proof ----------------------------------------------------------------------------------


def _allowed_lines(text: str, document: Document, edits: list[Edit]) -> tuple[set[int], int]:
    """The original lines (0-based) an edit may change, and how many lines it may add."""
    positions = document.positions
    lines: set[int] = set()
    added = 0
    for edit in edits:
        if isinstance(edit, Add):
            added += 1
        elif isinstance(edit, Quote):
            line, _ = positions.key(edit.loc) if isinstance(edit.loc, KeyLoc) else positions.value(edit.loc)
            lines.add(line - 1)
        elif isinstance(edit, Rename):
            lines.add(positions.key((edit.old,))[0] - 1)
        else:
            first = positions.key((edit.key,))[0] - 1
            last = text.count("\n", 0, _entry_end(text, positions, edit.key))
            lines.update(range(first, max(last, first + 1)))
    return lines, added


def _proof(text: str, new: str, allowed: tuple[set[int], int], expected: dict[str, Any], path: str) -> str:
    """Why `new` is not `text` with only the intended edits (empty: it is)."""
    lines, added = allowed
    # a last line without a line break gains one when a key is added after it: not a change
    old_lines, new_lines = (_ended(t).splitlines(keepends=True) for t in (text, new))
    grown = 0
    matcher = difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        stray = sorted(set(range(i1, i2)) - lines)
        if stray:
            return f"line {stray[0] + 1} changed, which no edit names"
        grown += max(0, (j2 - j1) - (i2 - i1))
    if grown > added:
        return f"{grown} lines added where {added} were asked for"
    reread = load.parse(new, path)
    if isinstance(reread, Finding):
        return f"the result does not load: {reread.name} at line {reread.line}: {reread.message}"
    if reread.data != expected:
        return "the result loads to other data than intended"
    return ""


def _ended(text: str) -> str:
    return text if not text or text.endswith(("\n", "\r")) else text + "\n"
