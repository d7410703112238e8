"""The rule registry: every finding names a rule, and a rule's documentation is its function's docstring.

A rule is declared by decorating the function that detects it:

    @rule("QB110", "title-case")
    def title_case(title: str) -> str | None:
        '''Docs, with a failing and a passing example.'''

`qbank explain` prints that docstring, so the documentation has one source (STYLE.md, habit 3).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from qbank.finding import Finding, Severity

F = TypeVar("F", bound=Callable[..., object])


@dataclass(frozen=True)
class Rule:
    code: str
    name: str
    severity: Severity
    doc: str

    @property
    def summary(self) -> str:
        """The docstring's first paragraph, on one line."""
        return " ".join(self.doc.split("\n\n")[0].split())

    def finding(
        self, path: str, line: int, column: int, message: str, question_id: str | None = None
    ) -> Finding:
        return Finding(path, line, column, self.code, self.name, self.severity, message, question_id)


FIXABLE = frozenset({"QB012"})
"""The rules every finding of which `qbank fix` fixes (qbank/fix.py): ambiguous-value. Title case
and marker spellings it fixes only where the intended spelling is certain, so their findings are
not marked; the report's hint says so. A code set, not a field of Rule: the text report marks
findings from the audit cache without importing the rule modules. tests/test_fix.py runs
`qbank fix` on each listed rule's failing example to hold the two in step."""

_BY_NAME: dict[str, Rule] = {}
_BY_CODE: dict[str, Rule] = {}
_BY_FUNCTION: dict[object, Rule] = {}


def rule(code: str, name: str, severity: Severity = Severity.ERROR) -> Callable[[F], F]:
    """Register the decorated function as the implementation (and documentation) of a rule."""

    def register(fn: F) -> F:
        doc = inspect.getdoc(fn)
        if not doc:
            raise TypeError(f"rule {name} needs a docstring: it is the rule's documentation")
        if name in _BY_NAME or code in _BY_CODE:
            raise ValueError(f"rule {code} {name} registered twice")
        _BY_NAME[name] = _BY_CODE[code] = _BY_FUNCTION[fn] = Rule(code, name, severity, doc)
        return fn

    return register


def declare(code: str, name: str, doc: str, severity: Severity = Severity.ERROR) -> Rule:
    """Register a rule that a check reports by name rather than one function per rule: the napkin
    math check reports five (arithmetic, unit-mismatch, unchecked-equation, math-limit, unit-labels)
    from one pass over a file. `doc` is its documentation, as a decorated function's docstring is."""
    doc = inspect.cleandoc(doc)
    if not doc:
        raise TypeError(f"rule {name} needs documentation")
    if name in _BY_NAME or code in _BY_CODE:
        raise ValueError(f"rule {code} {name} registered twice")
    _BY_NAME[name] = _BY_CODE[code] = Rule(code, name, severity, doc)
    return _BY_CODE[code]


def rule_of(fn: Callable[..., object]) -> Rule:
    """The rule a decorated function implements."""
    return _BY_FUNCTION[fn]


def get(code_or_name: str) -> Rule:
    """Look a rule up by code (`QB110`, any case) or name (`title-case`). KeyError if unknown."""
    key = code_or_name.strip()
    found = _BY_CODE.get(key.upper()) or _BY_NAME.get(key.lower())
    if found is None:
        raise KeyError(code_or_name)
    return found


def registered() -> list[Rule]:
    """The rules of the modules imported so far, sorted by code (qbank.catalog imports them all)."""
    return sorted(_BY_CODE.values(), key=lambda r: r.code)


@dataclass(frozen=True)
class Problem:
    """What a field rule returns when the value breaks it: a message, and optionally a piece of the
    value's text to point the finding at (a marker inside a long napkin-math block)."""

    message: str
    snippet: str = ""
