"""Load one YAML file into plain data plus the position of every key and value, or a Finding.

This is the only module that parses YAML for the audit, with libyaml rather than ruamel.yaml, whose
round-trip loader is about 20x slower (research/perf-notes.md); the tools that rewrite files
(`qbank fix`) splice text, so no comment or quote is lost. libyaml's C composer gives nodes with marks; the walker below turns
them into dicts and a position map, and enforces the hostile-input rules that a plain
`yaml.load(CSafeLoader)` does not: duplicate keys (PyYAML keeps the last one silently), aliases (an
alias bomb), explicit tags (`!!python/object/apply`), merge keys, and nesting deep enough to overflow
the C composer's stack (measured here: a segfault at 100,000 levels).

Scalars follow the YAML 1.2 core schema, not PyYAML's 1.1 rules: `no`, `on` and `1:30` stay strings
(research/ecosystem.md §4.8). Nothing read from a file is ever executed.
"""

from __future__ import annotations

import errno
import functools
import os
import re
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import yaml

from qbank.finding import Finding
from qbank.rules import rule, rule_of

MAX_BYTES = 256 * 1024
MAX_DEPTH = 64  # a question is 3 levels deep; libyaml's C composer recurses once per level

Loc = tuple[str | int, ...]

try:  # libyaml's C parser; the pure-Python parser is the same API, only slower
    from yaml._yaml import CParser as _Parser
except ImportError:  # pragma: no cover - PyYAML built without libyaml
    from yaml.loader import Loader as _Parser  # type: ignore[assignment]

_IMPLICIT = "tag:qbank:implicit"


class _Composer(_Parser):
    """libyaml's composer with tag resolution switched off.

    The composer calls `resolve` only for nodes without an explicit tag, so every node whose tag
    is not `_IMPLICIT` carried a tag in the file. Skipping PyYAML's regex resolvers also saves time.
    """

    def resolve(self, kind: object, value: object, implicit: object) -> str:
        return _IMPLICIT

    def descend_resolver(self, parent: object, index: object) -> None:
        return None

    def ascend_resolver(self) -> None:
        return None


_Marks = tuple[Any, Any, Any]
"""Where the walker found a key: its key's start mark, and its value's start and end marks (an item of
a list: the item's start mark twice). Kept as libyaml made them: a _Span is made only when asked for
(reading six fields of the marks for every node took 40% of the walk)."""


class _Span(NamedTuple):
    key_line: int  # 0-based, as libyaml reports them
    key_col: int
    line: int
    col: int
    start: int  # character offsets of the value in the text
    end: int


class Positions:
    """Where each key and value of a document sits. `loc` is a path such as ("details", "options", 2).

    Every public method returns 1-based (line, column): the one place positions are made.
    """

    def __init__(self, text: str, spans: dict[Loc, _Marks]) -> None:
        self._text = text
        self._spans = spans

    def _span(self, loc: Loc) -> _Span | None:
        if not loc:
            return _Span(0, 0, 0, 0, 0, len(self._text))
        marks = self._spans.get(loc)
        if marks is None:
            return None
        key, start, end = marks
        return _Span(key.line, key.column, start.line, start.column, start.index, end.index)

    def _nearest(self, loc: Loc) -> tuple[Loc, _Span | None]:
        while loc and loc not in self._spans:
            loc = loc[:-1]
        return loc, self._span(loc)

    def key(self, loc: Loc) -> tuple[int, int]:
        """The key of `loc` (or of its nearest existing ancestor); (1, 1) for the document."""
        _, span = self._nearest(loc)
        return (span.key_line + 1, span.key_col + 1) if span else (1, 1)

    def value(self, loc: Loc) -> tuple[int, int]:
        """The value of `loc`; for a missing key, the key of its nearest existing ancestor."""
        found, span = self._nearest(loc)
        if span is None:
            return (1, 1)
        if found != loc:
            return (span.key_line + 1, span.key_col + 1)
        return (span.line + 1, span.col + 1)

    @property
    def text(self) -> str:
        """The text the positions are in: the whole file."""
        return self._text

    def span(self, loc: Loc) -> tuple[int, int] | None:
        """Character offsets (start, end) of the source text of the value at `loc`; None if absent.

        For tools that edit the text in place (qbank/fix.py); unlike the other methods, this does
        not fall back to an ancestor.
        """
        span = self._span(loc)
        return (span.start, span.end) if span else None

    def at(self, index: int) -> tuple[int, int]:
        """The place of the character at offset `index` of the text, lines counted at line feeds."""
        return _line_col(self._text, index)

    def in_value(self, loc: Loc, snippet: str) -> tuple[int, int]:
        """The place of `snippet` inside the source text of the value at `loc`.

        Block and multi-line scalars fold or indent their text, so search the raw source for the
        snippet rather than computing offsets; fall back to the value's own position.
        """
        found, span = self._nearest(loc)
        if span is None or found != loc:
            return self.value(loc)
        for probe in (snippet[:40], snippet[:12]):
            probe = probe.strip()
            index = self._text.find(probe, span.start, span.end) if probe else -1
            if index >= 0:
                return _line_col(self._text, index)
        return self.value(loc)


@dataclass(frozen=True)
class Document:
    path: str
    data: dict[str, Any]
    positions: Positions


class _Problem(Exception):
    """Raised inside the walker; becomes exactly one Finding for the file."""

    def __init__(self, finding_of: Any, mark: Any, message: str) -> None:
        super().__init__(message)
        self.finding_of = finding_of
        self.mark = mark
        self.message = message


def load(path: str | os.PathLike[str], display: str | None = None) -> Document | Finding:
    """Read and parse one file. Never raises for anything a file can contain."""
    shown = display or str(path)
    return load_read(read(path, shown), shown)


def load_read(data: bytes | Finding, shown: str) -> Document | Finding:
    """Parse what `read` gave: the file's bytes, or the Finding that says why there are none."""
    return data if isinstance(data, Finding) else load_bytes(data, shown)


def read(path: str | os.PathLike[str], shown: str) -> bytes | Finding:
    """A file's bytes, or why they cannot be had (unreadable, too large)."""
    try:
        data, _ = read_regular(path, MAX_BYTES + 1)
    except OSError as exc:
        return unreadable_file(shown, exc)
    return file_too_large(shown) if len(data) > MAX_BYTES else data


class NotRegular(OSError):
    """What read_regular raises for a FIFO, socket, device or folder."""


def read_regular(path: str | os.PathLike[str], limit: int, flags: int = 0) -> tuple[bytes, os.stat_result]:
    """Up to `limit` bytes of a regular file and its status, with bare system calls: half the time of
    `open()` and its buffered reader (benchmarks/README.md, reads). `flags`
    adds to the open flags (`qbank fix` adds O_NOFOLLOW)."""
    # O_NONBLOCK: opening a FIFO does not wait for a writer (it has no effect on regular files)
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_BINARY", 0) | getattr(os, "O_NONBLOCK", 0) | flags)
    try:
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode):
            raise NotRegular(errno.EINVAL, "not a regular file")
        chunks: list[bytes] = []
        size = 0
        while size < limit:
            # Ask for what fstat counted and one byte more: os.read allocates all it is asked for,
            # and asking for 256 KiB each time took three times as long. A file that grew is read
            # on, 64 KiB at a time.
            want = min(limit - size, status.st_size + 1 - size if size < status.st_size else 65536)
            chunk = os.read(fd, want)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
            if size == status.st_size and len(chunk) < want:
                break  # the byte more is not there: the end, without one more read() to say so
        return b"".join(chunks), status
    finally:
        os.close(fd)


def load_bytes(data: bytes, path: str) -> Document | Finding:
    """Parse bytes already read (tests and the loader share this path)."""
    if data.startswith(b"\xef\xbb\xbf"):
        return encoding(path, 1, 1, "file starts with a UTF-8 byte-order mark; save it without one")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        return encoding(path, line, column, f"bytes that are not UTF-8 ({exc.reason}) at byte {exc.start}")
    return load_text(text, path)


def load_text(text: str, path: str) -> Document | Finding:
    """Parse YAML text into a Document, or return the first problem as a Finding."""
    try:
        _check_events_if_suspicious(text)
        node = _compose(text)
        if node is None:
            return empty_file(path)
        spans: dict[Loc, _Marks] = {}
        data = _Walker(spans).walk(node, ())
    except _Problem as problem:
        line, column = _mark_position(problem.mark)
        return problem.finding_of(path, line, column, problem.message)  # type: ignore[no-any-return]
    except yaml.YAMLError as exc:
        line, column, message = _describe_yaml_error(text, exc)
        if getattr(exc, "problem", None) == "exceeded maximum nesting depth":
            # libyaml 0.2.6 (in PyYAML 6.0.4) stops at 1,000 flow levels in its scanner, which reads
            # ahead of the events our own depth count sees: the same rule, whichever layer notices.
            return nesting_too_deep(path, line, column, message)
        return yaml_syntax(path, line, column, message)
    if not isinstance(data, dict):
        return not_mapping(path, type(data).__name__)
    return Document(path, data, Positions(text, spans))


def _compose(text: str) -> Any:
    parser = _Composer(text)
    try:
        return parser.get_single_node()
    finally:
        parser.dispose()


def _events(text: str) -> Iterator[Any]:
    """The same parser's flat event stream (as `yaml.parse` yields it)."""
    parser = _Composer(text)
    try:
        while parser.check_event():
            yield parser.get_event()
    finally:
        parser.dispose()


# --- hostile-input pre-checks -----------------------------------------------------------------

_ANCHOR_OR_TAG = re.compile(r"&[^\s\[\]{},]|!")
_LINE_PREFIX = re.compile(r"^[ \t]*(?:[-?][ \t]+)*", re.MULTILINE)


def _check_events_if_suspicious(text: str) -> None:
    """Walk libyaml's event stream (flat, no recursion) when the text might nest too deeply, define
    an anchor or hold the non-specific tag `!`. All are rare, so a cheap textual bound decides
    whether to pay for it.

    Block nesting needs indentation or a compact `- `/`? ` indicator for every level but the
    one a mapping opens in place, so twice the longest line prefix plus every flow bracket bounds
    the depth from above.
    """
    brackets = text.count("[") + text.count("{")
    if not _prefix_over(text, (MAX_DEPTH - 2 - brackets) // 2) and not _might_anchor_or_tag(text):
        return
    depth = 0
    for event in _events(text):
        anchor = getattr(event, "anchor", None)
        if anchor is not None:
            what = f"an alias (*{anchor})" if isinstance(event, yaml.AliasEvent) else f"an anchor (&{anchor})"
            raise _Problem(yaml_alias, event.start_mark, what)
        if getattr(event, "tag", None) == "!":
            # The composer resolves `!` as if there were no tag (YAML 1.2 §6.9.1, non-specific tag),
            # so the walker's tag test never sees it: refused here, like every other tag.
            raise _Problem(yaml_tag, event.start_mark, "non-specific tag '!'")
        if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            depth += 1
            if depth > MAX_DEPTH:
                raise _Problem(nesting_too_deep, event.start_mark, f"more than {MAX_DEPTH} levels")
        elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            depth -= 1


def _prefix_over(text: str, limit: int) -> bool:
    """Whether some line's prefix (`_LINE_PREFIX`) is longer than `limit`. A line can only have such
    a prefix if it starts with more than `limit` of its characters, so only those lines are matched
    (finding every line's prefix took a fifth of the load time)."""
    if limit < 0:
        return True
    for start in [0] + [m.start() + 1 for m in _long_runs(limit + 1).finditer(text)]:
        prefix = _LINE_PREFIX.match(text, start)
        if prefix and prefix.end() - start > limit:
            return True
    return False


@functools.lru_cache(maxsize=64)
def _long_runs(length: int) -> re.Pattern[str]:
    """A line break and then `length` characters that a line prefix is made of."""
    return re.compile(r"\n[ \t?-]{" + str(length) + "}")


def _might_anchor_or_tag(text: str) -> bool:
    """An `&name` or a `!` that starts a token (after a space, a flow indicator, or at the start)
    may be an anchor or a tag."""
    return any(m.start() == 0 or text[m.start() - 1] in " \t\r\n[{," for m in _ANCHOR_OR_TAG.finditer(text))


# --- the walker -------------------------------------------------------------------------------


class _Walker:
    """Plain data from the composer's nodes, refusing what a question file must not hold; each key's
    and item's marks go into `spans` by location (see _Marks)."""

    def __init__(self, spans: dict[Loc, _Marks]) -> None:
        self.spans = spans
        self.seen: set[int] = set()

    def walk(self, node: yaml.Node, loc: Loc) -> Any:
        # The composer shares one node object for an anchor and each alias of it: a second visit
        # is an alias. Refusing it here is what stops an alias bomb from expanding.
        if id(node) in self.seen:
            raise _Problem(yaml_alias, node.start_mark, "an alias (*name) reusing an anchored node")
        self.seen.add(id(node))
        if node.tag != _IMPLICIT:
            raise _Problem(yaml_tag, node.start_mark, f"explicit tag {node.tag!r}")
        if isinstance(node, yaml.ScalarNode):
            return _scalar(node)
        if isinstance(node, yaml.MappingNode):
            return self._mapping(node, loc)
        items = []
        for index, item in enumerate(node.value):
            where = loc + (index,)
            self.spans[where] = (item.start_mark, item.start_mark, item.end_mark)
            items.append(self.walk(item, where))
        return items

    def _mapping(self, node: yaml.MappingNode, loc: Loc) -> dict[str, Any]:
        out: dict[str, Any] = {}
        spans = self.spans
        for key_node, value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                raise _Problem(yaml_syntax, key_node.start_mark, "a mapping key must be a plain scalar")
            if key_node.tag != _IMPLICIT:
                raise _Problem(yaml_tag, key_node.start_mark, f"explicit tag {key_node.tag!r}")
            key = key_node.value
            if key == "<<" and not key_node.style:
                raise _Problem(merge_key, key_node.start_mark, "merge key `<<`")
            where = loc + (key,)
            if key in out:
                first = spans[where][0].line + 1
                raise _Problem(duplicate_key, key_node.start_mark, f"key {key!r} repeats line {first}")
            spans[where] = (key_node.start_mark, value_node.start_mark, value_node.end_mark)
            out[key] = self.walk(value_node, where)
        return out


def _scalar(node: yaml.ScalarNode) -> Any:
    text, style = node.value, node.style
    if style or (text[:1] in _STRING_STARTS and text not in _YAML11_WORDS):
        return text  # most values: quoted, a block, or a plain word (as the two calls below would say)
    value = scalar_value(text, style)
    if not style and isinstance(value, str) and (other := yaml11_type(value)):
        raise _Problem(ambiguous_value, node.start_mark, _ambiguity(value, other))
    return value


# YAML 1.2 core schema (https://yaml.org/spec/1.2.2/#1032-tag-resolution), for plain scalars only.
_NULL = re.compile(r"~|null|Null|NULL|")
_BOOL = {"true": True, "True": True, "TRUE": True, "false": False, "False": False, "FALSE": False}
_INT = re.compile(r"[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+")
_FLOAT = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?")
# First letters of plain scalars that the core schema can only read as strings: none of null, true,
# false, a number or .inf/.nan begins with these.
_STRING_STARTS = frozenset("abcdeghijklmopqrsuvwxyzABCDEGHIJKLMOPQRSUVWXYZ")
_SPECIAL_FLOAT = {
    ".inf": "inf",
    ".Inf": "inf",
    ".INF": "inf",
    "-.inf": "-inf",
    "-.Inf": "-inf",
    "-.INF": "-inf",
    "+.inf": "inf",
    "+.Inf": "inf",
    "+.INF": "inf",
    ".nan": "nan",
    ".NaN": "nan",
    ".NAN": "nan",
}


def scalar_value(text: str, style: str | None) -> Any:
    """The typed value of a scalar: quoted and block scalars are always strings."""
    if style or text[:1] in _STRING_STARTS:  # most plain values are words: `cloud`, `L3`, ids
        return text
    if _NULL.fullmatch(text):
        return None
    if text in _BOOL:
        return _BOOL[text]
    try:
        if _INT.fullmatch(text) and text[:2] in ("0o", "0x"):
            value = int(text, 0)
            # int() reads any number of hex or octal digits, but the value then fails wherever it is
            # printed (a finding, an export): str() raises past 4,300 decimal digits, as int() does.
            str(value)
            return value
        if _INT.fullmatch(text):
            return int(text)
        if _FLOAT.fullmatch(text):
            return float(text)
    except ValueError:  # e.g. more digits than int() accepts (CVE-2020-10735 limit)
        return text
    if text in _SPECIAL_FLOAT:
        return float(_SPECIAL_FLOAT[text])
    return text


# Plain scalars that YAML 1.1 readers (PyYAML's safe_load, the StaffML tools) read as something other
# than the string the 1.2 core schema reads: its booleans include y/n, yes/no and on/off
# (https://yaml.org/type/bool.html, of which PyYAML leaves out y and n), and it has dates, sexagesimal
# numbers (1:30) and 0b/underscored numbers. PyYAML's own resolver says which.
_YAML11_WORDS = frozenset(
    ["y", "Y", "yes", "Yes", "YES", "n", "N", "no", "No", "NO", "on", "On", "ON", "off", "Off", "OFF"]
)
_YAML11_KINDS = {"bool": "boolean", "int": "number", "float": "number", "timestamp": "date", "null": "null"}


def yaml11_type(text: str) -> str | None:
    """What YAML 1.1 reads a plain string scalar as, when not a string: "boolean", "date", …"""
    if text in _YAML11_WORDS:
        return "boolean"
    if text[:1] in _STRING_STARTS:  # none of 1.1's other implicit types starts with these letters
        return None
    for tag, pattern in yaml.resolver.Resolver.yaml_implicit_resolvers.get(text[:1], ()):
        if pattern.match(text):
            return _YAML11_KINDS.get(tag.rsplit(":", 1)[-1])
    return None


def _ambiguity(value: str, kind: str) -> str:
    shown = value if len(value) <= 40 else value[:40] + "…"
    if _INT.fullmatch(value) or _FLOAT.fullmatch(value):  # the core schema's number, past int()'s limit
        return f"`{shown}` is a number of {len(value)} characters, too long to read"
    return f"`{shown}` is a {kind} to YAML 1.1 readers"


# --- positions and error text -----------------------------------------------------------------


def _line_col(text: str, index: int) -> tuple[int, int]:
    line = text.count("\n", 0, index) + 1
    return line, index - (text.rfind("\n", 0, index) + 1) + 1


def _mark_position(mark: Any) -> tuple[int, int]:
    return (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)


def _describe_yaml_error(text: str, exc: yaml.YAMLError) -> tuple[int, int, str]:
    if isinstance(exc, yaml.reader.ReaderError):  # bad characters: it reports a character offset
        line, column = _line_col(text, min(exc.position, len(text)))
        return line, column, f"character #x{exc.character:04x} is not allowed in YAML: {exc.reason}"
    if isinstance(exc, yaml.MarkedYAMLError):
        line, column = _end_inside(text, exc.problem_mark or exc.context_mark)
        message = "; ".join(p for p in (exc.context, exc.problem) if p) or "invalid YAML"
        if exc.context_mark is not None and exc.problem_mark is not None:
            started = _mark_position(exc.context_mark)
            if started != (line, column):  # an unterminated quote fails at the end of the file
                message += f" (started at line {started[0]}, column {started[1]})"
        return line, column, message
    return 1, 1, str(exc).splitlines()[0] if str(exc) else "invalid YAML"


def _end_inside(text: str, mark: Any) -> tuple[int, int]:
    """A mark's position; libyaml marks the end of a file with no final line break at the start of
    the line after the last one (`a: "x` fails at 2:1), which is shown at the end of the last line."""
    line, column = _mark_position(mark)
    if mark is not None and mark.index >= len(text) > 0 and column == 1 and text[-1] not in _BREAKS:
        return line - 1, len(text) - max(text.rfind(char) for char in _BREAKS)
    return line, column


_BREAKS = "\n\r\x85\u2028\u2029"  # what libyaml counts as line breaks


YAML_SUFFIXES = (".yaml", ".yml")


def iter_yaml_files(root: Path) -> Iterator[Path]:
    """Every *.yaml / *.yml file under `root`, in a stable order; and, so that nothing is skipped
    unsaid, every folder the walk cannot list, does not enter (a link to a folder) or that is named
    like a question file. The engine reports those instead of reading them."""
    unlisted: list[OSError] = []
    for dirpath, dirnames, filenames in os.walk(root, onerror=unlisted.append):
        dirnames.sort()
        folder = Path(dirpath)  # once per folder: making a Path costs more than reading a small file
        for name in sorted(filenames):
            if name.endswith(YAML_SUFFIXES):
                yield folder / name
        for name in dirnames:
            if name.endswith(YAML_SUFFIXES) or os.path.islink(os.path.join(dirpath, name)):
                yield folder / name
        for error in unlisted:
            yield Path(error.filename)
        unlisted.clear()


# --- the rules this module reports ------------------------------------------------------------


@rule("QB001", "yaml-syntax")
def yaml_syntax(path: str, line: int, column: int, message: str) -> Finding:
    """The file must be valid YAML holding exactly one document.

    Reported at the place libyaml stopped, with its explanation. Control characters such as NUL
    and non-scalar mapping keys are reported here too.

    Fails:
        title: "an unterminated string
    Passes:
        title: "A Terminated String"
    """
    return rule_of(yaml_syntax).finding(path, line, column, f"invalid YAML: {message}")


@rule("QB002", "duplicate-key")
def duplicate_key(path: str, line: int, column: int, message: str) -> Finding:
    """A key may appear only once in a mapping.

    Most YAML loaders keep the last value silently, so the first one is lost without a word.

    Fails:
        level: L2
        level: L3
    Passes:
        level: L3
    """
    return rule_of(duplicate_key).finding(path, line, column, f"duplicate {message}")


@rule("QB003", "encoding")
def encoding(path: str, line: int, column: int, message: str) -> Finding:
    """Files are UTF-8 without a byte-order mark.

    Fails:
        (a file saved as Latin-1 or UTF-16, or starting with the bytes EF BB BF)
    Passes:
        (the same text saved as plain UTF-8)
    """
    return rule_of(encoding).finding(path, line, column, message)


@rule("QB004", "empty-file")
def empty_file(path: str) -> Finding:
    """A question file must hold a question: an empty file, or one of only comments, is an error.

    Fails:
        # nothing here yet
    Passes:
        id: cloud-202611-0001
        (and the rest of the question)
    """
    return rule_of(empty_file).finding(path, 1, 1, "file is empty (no YAML document)")


@rule("QB005", "not-mapping")
def not_mapping(path: str, found: str) -> Finding:
    """The top level of a question file is a mapping of field names to values.

    Fails:
        - id: cloud-202611-0001
    Passes:
        id: cloud-202611-0001
    """
    return rule_of(not_mapping).finding(path, 1, 1, f"top level is a {found}, not a mapping of fields")


@rule("QB006", "yaml-alias")
def yaml_alias(path: str, line: int, column: int, message: str) -> Finding:
    """Anchors (`&name`) and aliases (`*name`) are not allowed.

    Question files have no use for them, and aliases are how a few lines of YAML expand into
    gigabytes (the "billion laughs" alias bomb).

    Fails:
        tags: &t [fp16]
        keywords: *t
    Passes:
        tags: [fp16]
        keywords: [fp16]
    """
    return rule_of(yaml_alias).finding(path, line, column, f"{message}: anchors and aliases are not allowed")


@rule("QB007", "yaml-tag")
def yaml_tag(path: str, line: int, column: int, message: str) -> Finding:
    """Explicit YAML tags (`!!python/object`, `!!str`, `!custom`, the non-specific `!`) are not allowed.

    Tags ask a loader to build arbitrary objects; qbank never does, and refuses the file.

    Fails:
        title: !!python/object/apply:os.system ["true"]
    Passes:
        title: The FP16 Loss Scaling Dance
    """
    return rule_of(yaml_tag).finding(path, line, column, f"{message}: tags are not allowed")


@rule("QB008", "merge-key")
def merge_key(path: str, line: int, column: int, message: str) -> Finding:
    """The YAML 1.1 merge key `<<` is not allowed: write the fields out.

    Fails:
        <<: {track: cloud}
    Passes:
        track: cloud
    """
    return rule_of(merge_key).finding(path, line, column, f"{message} is not allowed; write the fields out")


@rule("QB009", "file-too-large")
def file_too_large(path: str) -> Finding:
    """A question file is at most 256 KiB (real questions are 2 to 5 KiB).

    The cap keeps a hostile file from exhausting memory or time; the file is not parsed.

    Fails:
        (a 300 KiB file)
    Passes:
        (a 3 KiB question)
    """
    return rule_of(file_too_large).finding(
        path, 1, 1, f"file is larger than {MAX_BYTES // 1024} KiB; not parsed"
    )


@rule("QB010", "unreadable-file")
def unreadable_file(path: str, why: OSError | str) -> Finding:
    """The file could not be read (permissions, a broken link or a loop of links, removed during the
    run), or was not read: a folder, FIFO or socket named *.yaml, or a link leading out of the bank.

    Fails:
        (a file with mode 000; a link to ~/.ssh/id_rsa)
    Passes:
        (a readable file)
    """
    message = why if isinstance(why, str) else f"cannot read file: {why.strerror or why}"
    return rule_of(unreadable_file).finding(path, 1, 1, message)


@rule("QB012", "ambiguous-value")
def ambiguous_value(path: str, line: int, column: int, message: str) -> Finding:
    """A plain value that YAML 1.1 reads as something other than a string must be quoted.

    qbank reads YAML 1.2, where `no`, `on`, `2026-01-01` and `1:30` are strings. PyYAML's safe_load
    and other YAML 1.1 readers see the boolean false, true, a date and the number 90: the same file
    would mean something else to them (the "Norway problem"). Quoted, it means the same to both.

    Fails:
        validation_date: 2026-01-01
    Passes:
        validation_date: '2026-01-01'
    """
    return rule_of(ambiguous_value).finding(path, line, column, f"{message}: quote it")


@rule("QB011", "nesting-too-deep")
def nesting_too_deep(path: str, line: int, column: int, message: str) -> Finding:
    """Collections nest at most 64 levels (a question uses 3).

    Deeper nesting is only ever hostile: it overflows recursive YAML composers.

    Fails:
        title: [[[[[[ ... 100 levels ... ]]]]]]
    Passes:
        tags: [fp16, loss-scaling]
    """
    return rule_of(nesting_too_deep).finding(path, line, column, f"nesting too deep: {message}")
