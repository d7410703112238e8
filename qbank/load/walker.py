"""YAML text to a Document, or the one Finding that says why not.

libyaml's C composer gives nodes with marks; the walker turns them into dicts and a position map, and
enforces the hostile-input rules that a plain `yaml.load(CSafeLoader)` does not: duplicate keys
(PyYAML keeps the last one silently), aliases (an alias bomb), explicit tags
(`!!python/object/apply`), merge keys, and nesting deep enough to overflow the C composer's stack
(measured here: a segfault at 100,000 levels). Nothing read from a file is ever executed.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import yaml

from qbank import memo
from qbank.finding import Finding
from qbank.load.document import Document, KeyLoc, Loc, Marks, Positions, line_col
from qbank.load.rules import (
    MAX_DEPTH,
    ambiguous_value,
    duplicate_key,
    empty_file,
    merge_key,
    nesting_too_deep,
    not_mapping,
    yaml_alias,
    yaml_syntax,
    yaml_tag,
)
from qbank.load.scalars import STRING_STARTS, YAML11_WORDS, ambiguity, scalar_value, yaml11_type

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


class _Problem(Exception):
    """Raised inside the walker; becomes exactly one Finding for the file."""

    def __init__(self, finding_of: Any, mark: Any, message: str) -> None:
        super().__init__(message)
        self.finding_of = finding_of
        self.mark = mark
        self.message = message


def parse(text: str, path: str, ambiguous: list[Loc] | None = None) -> Document | Finding:
    """Parse YAML text into a Document, or return the first problem as a Finding.

    With `ambiguous` (a list), a plain value that YAML 1.1 readers take for something else (`no`, a
    date) is read as YAML 1.2 reads it and its place added to the list, instead of the
    ambiguous-value finding: the writers (qbank/rewrite.py) quote those values."""
    try:
        _check_events_if_suspicious(text)
        node = _compose(text)
        if node is None:
            return empty_file(path)
        spans: dict[Loc, Marks] = {}
        data = _Walker(spans, ambiguous).walk(node, ())
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


@memo.cached("load.walker.long_runs")
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
    and item's marks go into `spans` by location (see Marks)."""

    def __init__(self, spans: dict[Loc, Marks], ambiguous: list[Loc] | None = None) -> None:
        self.spans = spans
        self.seen: set[int] = set()
        self.ambiguous = ambiguous

    def walk(self, node: yaml.Node, loc: Loc) -> Any:
        # The composer shares one node object for an anchor and each alias of it: a second visit
        # is an alias. Refusing it here is what stops an alias bomb from expanding.
        if id(node) in self.seen:
            raise _Problem(yaml_alias, node.start_mark, "an alias (*name) reusing an anchored node")
        self.seen.add(id(node))
        if node.tag != _IMPLICIT:
            raise _Problem(yaml_tag, node.start_mark, f"explicit tag {node.tag!r}")
        if isinstance(node, yaml.ScalarNode):
            if self.ambiguous is None:
                return _scalar(node)
            try:
                return _scalar(node)
            except _Problem:  # only ambiguous-value: the value as YAML 1.2 reads it, and its place
                self.ambiguous.append(loc)
                return scalar_value(node.value, node.style)
        if isinstance(node, yaml.MappingNode):
            return self._mapping(node, loc)
        items = []
        for index, item in enumerate(node.value):
            where = loc + (index,)
            self.spans[where] = (item.start_mark, item.start_mark, item.end_mark)
            items.append(self.walk(item, where))
        return items

    def _key(self, node: yaml.ScalarNode, where: Loc) -> None:
        """A plain key a YAML reader takes for a number, boolean or null: refused, or (with an
        `ambiguous` list) listed as a KeyLoc, for the writers to quote."""
        kind = key_kind(node.value)
        if kind is None:
            return
        if self.ambiguous is None:
            raise _Problem(ambiguous_value, node.start_mark, key_message(node.value, kind))
        self.ambiguous.append(KeyLoc(where))

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
            if not key_node.style and not (key[:1] in STRING_STARTS and key not in YAML11_WORDS):
                self._key(key_node, where)
            if key in out:
                first = spans[where][0].line + 1
                raise _Problem(duplicate_key, key_node.start_mark, f"key {key!r} repeats line {first}")
            spans[where] = (key_node.start_mark, value_node.start_mark, value_node.end_mark)
            out[key] = self.walk(value_node, where)
        return out


def key_kind(key: str) -> str | None:
    """What a YAML reader makes of a plain key that is not a string to it: qbank reads every key as
    text, PyYAML and editors read `3:` as the number 3 (YAML 1.2 does too)."""
    if key in _SHORT_WORDS:  # PyYAML reads y and n as strings: a field named `n` stays as it is
        return None
    value = scalar_value(key, None)
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if not isinstance(value, str):
        return "number"
    return yaml11_type(key)


_SHORT_WORDS = frozenset("yYnN")


def key_message(key: str, kind: str) -> str:
    shown = key if len(key) <= 40 else key[:40] + "…"
    return f"key `{shown}` is a {kind} to YAML readers (qbank reads keys as text)"


def _scalar(node: yaml.ScalarNode) -> Any:
    text, style = node.value, node.style
    if style or (text[:1] in STRING_STARTS and text not in YAML11_WORDS):
        return text  # most values: quoted, a block, or a plain word (as the two calls below would say)
    value = scalar_value(text, style)
    if not style and isinstance(value, str) and (other := yaml11_type(value)):
        raise _Problem(ambiguous_value, node.start_mark, ambiguity(value, other))
    return value


# --- positions and error text -----------------------------------------------------------------


def _mark_position(mark: Any) -> tuple[int, int]:
    return (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)


def _describe_yaml_error(text: str, exc: yaml.YAMLError) -> tuple[int, int, str]:
    if isinstance(exc, yaml.reader.ReaderError):  # bad characters: it reports a character offset
        line, column = line_col(text, min(exc.position, len(text)))
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
