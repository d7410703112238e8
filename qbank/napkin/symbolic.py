"""Napkin lines that use names (issue 25, item 4): `N - 1 = 2` where the block says `Nodes (N): 3`,
`64 × 8760 × U × $3 × 3 = $5,045,760 × U`, `(4N)^2 / N^2 = 16x`, `610ms * 1.3N = 793N`.

A line whose equations cite a name with no value is read again with those words as names
(evaluate.NAMES). A name bound in the same napkin block (`N = 8 GPUs`, `Nodes (N): 3`,
`t_active = 8.8 hours`) stands for its value. A name bound nowhere must cancel: sympy decides
whether the ratio of the two sides depends on it, from a sympy tree built here out of qbank's own
parse (never from a string: `sympify` and `parse_expr` call `eval`). When it cancels, the sides
are compared with the name set to 1, units and tolerance as ever; when it does not, the relation
stays unchecked and says which name it needs. sympy is imported only here, and only for such lines.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from fractions import Fraction
from typing import Any

from qbank.napkin.evaluate import NAMES, SUFFIX, Node, parse, unit_of
from qbank.napkin.lexer import NapkinError, normalise, tokenize
from qbank.napkin.readings import CARRIED, Rewrite, magnitude, nodes, rewrite
from qbank.napkin.units import MODES, UNITS

# The values of the names bound in the napkin block being read (a name bound twice to different
# values is not bound): set with evaluate.NAMES while a line is read again.
BOUND: ContextVar[dict[str, tuple[str, Node]]] = ContextVar("napkin_bound", default={})  # noqa: B039 (never mutated)

_NAME = r"[A-Za-z][A-Za-z0-9_]{0,23}"
# `N = 8 GPUs`, `P = 7B`, `Nodes (N): 3`, `t_active = 8.8 hours/day`: a name, then one value and
# its unit, then the end of the clause.
_BINDING = re.compile(
    rf"(?:^|(?<=[\s(]))\(?(?P<name>{_NAME})\)?\s*(?:=|:)\s*(?P<value>\$?\d[\d,]*(?:\.\d+)?(?:[eE][-+]?\d+)?"
    r"(?:\s*[A-Za-zµμ%$][\w/%$-]*){0,2})\s*(?=$|[.,;)]\s|[.,;)]$)",
    re.MULTILINE,
)
_CITED = re.compile(rf"'({_NAME})' is a name with no value|it uses '({_NAME})', a name with no value")
MAX_POWER = 8  # a name raised past this is not handed to sympy: cancel would expand (N+1)^4096
MAX_NODES = 80


@contextmanager
def reading(
    names: frozenset[str], bound: dict[str, tuple[str, Node]], carried: frozenset[str]
) -> Iterator[None]:
    """While a line is read again in its block: these words are names, these the values bound to
    them, and these the numbers stated as results above the line (readings.CARRIED)."""
    tokens = NAMES.set(names), BOUND.set(bound), CARRIED.set(carried)
    try:
        yield
    finally:
        NAMES.reset(tokens[0])
        BOUND.reset(tokens[1])
        CARRIED.reset(tokens[2])


def first_use(line: str, names: frozenset[str]) -> int:
    """Where the first of these names is used in a line, as a word not bound there (`N` in
    `N - 1`, not in `Nodes (N): 3`); the line's length when none is."""
    uses = [m.start() for n in names for m in re.finditer(rf"(?<![A-Za-z_(]){re.escape(n)}(?![\w)])", line)]
    return min((u for u in uses if not _BINDING.match(line, u)), default=len(line))


def cited(messages: Iterable[str]) -> frozenset[str]:
    """The names that outcomes say have no value (equations._no_value, evaluate's parser)."""
    return frozenset(a or b for m in messages for a, b in _CITED.findall(m))


def bindings(text: str) -> dict[str, tuple[str, Node]]:
    """The names a napkin block binds to one written value each, with that value as written and its
    tree; a name
    bound to two different values is left out. Only the names a line's outcomes cite are looked up,
    so `W` here is a name (`Workers (W): 4`) where a line uses it as one (`W - 1 = 3`)."""
    found: dict[str, set[str]] = {}
    for match in _BINDING.finditer(text):
        found.setdefault(match.group("name"), set()).add(match.group("value").strip())
    bound: dict[str, tuple[str, Node]] = {}
    for name, values in found.items():
        value = values.pop() if len(values) == 1 else ""
        node = _value_tree(value) if value else None
        if node is not None:
            bound[name] = (value, node)
    return bound


def _value_tree(value: str) -> Node | None:
    try:
        tokens = tokenize(normalise(value))
        node = parse(tokens).node
    except NapkinError:
        return None
    if sum(t.kind == "num" for t in tokens) != 1:
        return None
    return rewrite(node, lambda n: ("num", n[1], n[2], -1) if n[0] == "num" else None)  # no start here


def substitute(bound: dict[str, tuple[str, Node]]) -> Rewrite:
    """Each name as its bound value; a name bound nowhere as 1 (see `depends`)."""
    one: Node = ("num", Fraction(1), "", -1)
    return lambda node: rewrite(
        node, lambda n: bound[n[1]][1] if n[0] == "sym" and n[1] in bound else one if n[0] == "sym" else None
    )


def names_in(node: Node) -> set[str]:
    return {n[1] for n in nodes(node) if n[0] == "sym"}


def depends(left: Node, right: Node, free: set[str]) -> bool:
    """Whether left / right (left - right where right is 0) depends on any of the `free` names;
    True when sympy is not asked, because the trees are too large or raise a name too high."""
    if (
        sum(1 for _ in nodes(left)) + sum(1 for _ in nodes(right)) > MAX_NODES
        or _too_high(left)
        or _too_high(right)
    ):
        return True
    import sympy  # here only, for the few lines that use names (benchmarks/README.md, start-up)

    try:
        a, b = _sympy(left, sympy), _sympy(right, sympy)
        relation = sympy.cancel(a / b) if b != 0 else sympy.cancel(a - b)
    except (ArithmeticError, ValueError, TypeError, NapkinError):
        return True
    return bool({str(s) for s in relation.free_symbols} & free)


def _too_high(node: Node) -> bool:
    """A power of something with a name in it, to an exponent that is not a small whole number."""
    return any(n[0] == "pow" and names_in(n[1]) and not _small_whole(n[2]) for n in nodes(node))


def _small_whole(exponent: Node) -> bool:
    return bool(exponent[0] == "num" and exponent[1].denominator == 1 and abs(exponent[1]) <= MAX_POWER)


_FUNCTIONS = {"sqrt": "sqrt", "ln": "log", "log": "log", "exp": "exp", "ceil": "ceiling", "floor": "floor"}


def _sympy(node: Node, sp: Any) -> Any:
    """The sympy tree of one of ours, units read as their magnitude (only whether names cancel is
    asked here; the units are compared by the evaluator afterwards)."""
    kind = node[0]
    if kind == "num":
        suffix = SUFFIX.get(node[2], 1)
        return sp.Rational(node[1].numerator * suffix, node[1].denominator)
    if kind == "sym":
        return sp.Symbol(node[1], positive=True)
    if kind == "unit":
        size = magnitude(node[1]) if node[1] in UNITS else unit_of(node[1], MODES[0]).value or Fraction(1)
        return sp.Rational(size.numerator, size.denominator)
    if kind == "neg":
        return -_sympy(node[1], sp)
    if kind == "e":
        return sp.E
    if kind == "pow":
        return sp.Pow(_sympy(node[1], sp), _sympy(node[2], sp))
    if kind == "func":
        args = [_sympy(a, sp) for a in node[2]]
        if node[1] in ("min", "max"):
            return (sp.Min if node[1] == "min" else sp.Max)(*args)
        if node[1] in ("log2", "log10"):
            return sp.log(args[0], 2 if node[1] == "log2" else 10)
        return getattr(sp, _FUNCTIONS[node[1]])(*args)
    a, b = _sympy(node[2], sp), _sympy(node[3], sp)
    return {"+": a + b, "-": a - b, "*": a * b, "@": a * b}.get(node[1]) if node[1] != "/" else a / b
