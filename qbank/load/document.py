"""A loaded file: its plain data, and where each key and value sits in its text (Positions)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

Loc = tuple[str | int, ...]


class KeyLoc(tuple):  # type: ignore[type-arg]
    """The key (not the value) at a location: where a plain key YAML reads as a number, boolean or
    null must be quoted (`expect_scale: {3: "8192"}`: PyYAML and editors see the number 3)."""


Marks = tuple[Any, Any, Any]
"""Where the walker found a key: its key's start mark, and its value's start and end marks (an item of
a list: the item's start mark twice). Kept as libyaml made them: a _Span is made only when asked for
(benchmarks/README.md, marks)."""


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

    def __init__(self, text: str, spans: dict[Loc, Marks]) -> None:
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

    def key_span(self, loc: Loc) -> tuple[int, int] | None:
        """Character offsets (start, end) of the plain key of `loc`; None if absent."""
        marks = self._spans.get(loc)
        if marks is None or not loc:
            return None
        start = marks[0].index
        return start, start + len(str(loc[-1]))

    def at(self, index: int) -> tuple[int, int]:
        """The place of the character at offset `index` of the text, lines counted at line feeds."""
        return line_col(self._text, index)

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
                return line_col(self._text, index)
        return self.value(loc)


@dataclass(frozen=True)
class Document:
    path: str
    data: dict[str, Any]
    positions: Positions


def line_col(text: str, index: int) -> tuple[int, int]:
    """The 1-based line and column of the character at offset `index`."""
    line = text.count("\n", 0, index) + 1
    return line, index - (text.rfind("\n", 0, index) + 1) + 1
