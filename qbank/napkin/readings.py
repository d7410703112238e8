"""Other readings of a line that does not add up as written (issue 25, item 1).

An author may mean a symbol more than one way. A line is an error only when no sensible reading
agrees, so a failed comparison is tried again under these, each a rewrite of the parsed tree (the
evaluator itself is not touched, and a line that agrees as written never gets here):

- `B` after a number token by token: `70B x 1B = 70 GB` is 70 billion parameters of one byte.
  The global readings (every `B` billions, or every `B` bytes) are the evaluator's modes; here each
  mix of them, for up to MAX_B such numbers.
- a conversion literal: a number such as 8, 60, 24, 1000, 1024, 1440, 3600 or 86,400 that equals
  the ratio of two units the line writes stands for that change of unit, so it is read as 1:
  `1000 / 20ms = 50 FPS` (1000 ms in a second), `4M samples/min * 1440 * 16 bytes = 92 GB/day`
  (1,440 minutes in a day), `7 days * 24 hours * 3600 seconds = 604,800 seconds`, `/ 8` beside a
  unit in bits. A literal that names no unit change on its line is a number like any other, so
  `80 GB / 2 TB/s = 40 s` stays an error.
- a MAC as two operations (`1 MAC = 2 FLOPs`), where units.py counts one.
- `at` between two quantities as a quotient (as written, a product): `15 ms at 3 mW = 45 uJ`, but
  `200 MB at 5 MB/s = 40 s`.
- units as labels, only where the units as written cannot balance (a `unit-mismatch`): every unit
  stands for its magnitude prefix alone (`GB` 10^9, `ms` 10^-3, `h` 1), so `10 GOPS * 60 FPS =
  0.6 TOPS` (GOPS meant per frame) agrees, while a factor of 1,000 is never explained away.
  A line that agrees only so is reported as a warning (`unit-labels`), not as a pass.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Sequence
from contextvars import ContextVar
from fractions import Fraction

from qbank.napkin import units
from qbank.napkin.evaluate import SUFFIX, Node, is_unit, unit_of
from qbank.napkin.lexer import Token

MAX_B = 4  # numbers written with `B` whose readings are mixed: 2^4 mixes at most
_ONE = Fraction(1)
Rewrite = Callable[[Node], Node]

# Magnitude prefixes, for the labels reading (units.py's tables): the longest first, so `Mega`
# wins over `M`.
_PREFIXES = sorted(
    [(p, Fraction(10) ** e) for p, e in (*units.DECIMAL.items(), *units.SMALL.items())]
    + [(p, Fraction(10) ** e) for long, e in units.LONG for p in (long, long.lower())]
    + [(f"{p}i", Fraction(2) ** (10 * i)) for i, p in enumerate(units.IEC, start=1)],
    key=lambda pair: -len(pair[0]),
)


def nodes(node: Node) -> Iterator[Node]:
    """Every node of a tree, the root first."""
    yield node
    kind = node[0]
    children = (
        (node[2], node[3])
        if kind == "bin"
        else node[1:]
        if kind in ("neg", "pow")
        else node[2]
        if kind == "func"
        else ()
    )
    for child in children:
        yield from nodes(child)


def rewrite(node: Node, leaf: Callable[[Node], Node | None]) -> Node:
    """The tree with each node that `leaf` maps (to a node, not None) replaced, top down."""
    new = leaf(node)
    if new is not None:
        return new
    kind = node[0]
    if kind == "bin":
        return ("bin", node[1], rewrite(node[2], leaf), rewrite(node[3], leaf))
    if kind == "neg":
        return ("neg", rewrite(node[1], leaf))
    if kind == "pow":
        return ("pow", rewrite(node[1], leaf), rewrite(node[2], leaf))
    if kind == "func":
        return ("func", node[1], tuple(rewrite(a, leaf) for a in node[2]))
    return node


# --- `B` token by token -------------------------------------------------------------------------


def b_mixes(tokens: Sequence[Token]) -> Iterator[tuple[str, Rewrite]]:
    """For numbers written with `B` (`70B`, `1B`), every mix of billions and bytes that is not
    all one or all the other (those are the evaluator's modes), each with how to say it."""
    starts = [t.start for t in tokens if t.kind == "num" and t.suffix == "B"]
    if len(starts) < 2 or len(starts) > MAX_B:
        return
    texts = {t.start: t.text for t in tokens if t.kind == "num"}
    for pick in itertools.product((False, True), repeat=len(starts)):
        if all(pick) or not any(pick):
            continue
        as_bytes = frozenset(s for s, b in zip(starts, pick, strict=True) if b)
        said = ", ".join(texts[s] for s in sorted(as_bytes))
        yield f"{said} as bytes", _b_reading(as_bytes)


def _b_reading(as_bytes: frozenset[int]) -> Rewrite:
    def leaf(node: Node) -> Node | None:
        if node[0] != "num" or node[2] != "B":
            return None
        if node[3] in as_bytes:
            return ("bin", "*", ("num", node[1], "", node[3]), ("unit", "B"))
        return ("num", node[1] * SUFFIX["B"], "", node[3])

    return lambda node: rewrite(node, leaf)


# --- conversion literals ------------------------------------------------------------------------


def conversions(tokens: Sequence[Token], operands: Sequence[Token]) -> frozenset[int]:
    """The starts of the numbers among `operands` (the tokens of a computed side: a stated value is
    what it says) that stand for a change between two units the line writes (`tokens`: the ratio of
    their sizes), or 8 beside a unit in bits: `1000` beside `ms`, `1440` beside `/min` and `/day`.
    Only plain numbers with no magnitude letter, and not 1."""
    ratios = _unit_ratios(tokens)
    if not ratios:
        return frozenset()
    return frozenset(
        t.start
        for t in operands
        if t.kind == "num" and not t.suffix and t.value is not None and t.value > 1 and t.value in ratios
    )


def _unit_ratios(tokens: Sequence[Token]) -> set[Fraction]:
    """Every ratio of the sizes of two written units of one dimension (`FPS` writes the second, so
    `ms` beside it makes 1000; `ms` alone names no change), and 8 where a unit is written in bits."""
    sizes: dict[units.Dims, set[Fraction]] = {}
    ratios: set[Fraction] = set()
    for t in tokens:
        if t.kind != "word" or not is_unit(t.text):
            continue
        if _in_bits(t.text):
            ratios.add(Fraction(8))
        q = unit_of(t.text, units.MODES[0])
        if q.dims == units.NONE or not q.value:
            continue
        dims, size = (q.dims, q.value) if q.dims > units.NONE else (units.power(q.dims, -1), 1 / q.value)
        sizes.setdefault(dims, set()).add(size)
    for group in sizes.values():
        ratios.update(a / b for a in group for b in group if a > b)
    return ratios


def _in_bits(word: str) -> bool:
    """`Gb`, `Gbps`, `Mbit`, `Megabits`: a unit counted in bits."""
    return word.endswith(("b", "bps", "bit", "bits"))


def as_one(starts: frozenset[int]) -> Rewrite:
    """The numbers at `starts` read as 1, and with them the unit written on them: `24 hours` in
    `7 days * 24 hours` is one (24 hours a day), as is the `1000` of `1000 / 20ms`."""

    def leaf(node: Node) -> Node | None:
        if node[0] == "num" and node[3] in starts:
            return ("num", _ONE, "", -1)
        if node[0] == "bin" and node[2][0] == "num" and node[2][3] in starts and node[3][0] == "unit":
            return ("num", _ONE, "", -1)
        return None

    return lambda node: rewrite(node, leaf)


# --- rounded values carried forward -------------------------------------------------------------

# The numbers the napkin block stated as results above the line being read (`= 2.07 MB`): set while
# a line that uses one is read again (equations._carried).
CARRIED: ContextVar[frozenset[str]] = ContextVar("napkin_carried", default=frozenset())
MAX_CARRIED = 3  # rounded inputs whose ends are tried together: 2^3 corners at most


def corners(tokens: Sequence[Token], carried: frozenset[str]) -> list[Rewrite]:
    """`2.07 MB/frame * 200 FPS = 414.7 MB/s`, where 2.07 MB was stated above as 1920 x 1080 bytes
    (2.0736 MB): a rounded result carried forward stands for every value that rounds to it (2.07 is
    [2.065, 2.075]). One rewrite per corner of those intervals, each number at one of its ends; none
    when the line carries no such number, or more than MAX_CARRIED."""
    found = [(t.start, t.value, t.quantum) for t in tokens if t.kind == "num" and t.text in carried]
    ends = [(start, value, quantum / 2) for start, value, quantum in found if value is not None and quantum]
    if not ends or len(ends) > MAX_CARRIED:
        return []
    return [
        _at_ends(
            {
                start: (value, value + sign * half)
                for (start, value, half), sign in zip(ends, signs, strict=True)
            }
        )
        for signs in itertools.product((-1, 1), repeat=len(ends))
    ]


def _at_ends(ends: dict[int, tuple[Fraction, Fraction]]) -> Rewrite:
    """Each number at `start` that still has its written value (not the unit of its last digit,
    which equations.value_of puts there to find the stated digits) moved to its end."""

    def leaf(node: Node) -> Node | None:
        if node[0] != "num" or node[3] not in ends or node[1] != ends[node[3]][0]:
            return None
        return ("num", ends[node[3]][1], node[2], node[3])

    return lambda node: rewrite(node, leaf)


# --- percentages written as points ---------------------------------------------------------------


def percent_points(node: Node) -> Node:
    """`1.0% × 1.2^3 = 1.0 × 1.728 ≈ 1.73%`: the middle term is in percentage points, its `%` left
    out. Every `%` read as a label (evaluate.py multiplies by this node for it)."""

    def leaf(n: Node) -> Node | None:
        if n[0] == "bin" and n[1] == "*" and n[3] == _PERCENT:
            return rewrite(n[2], leaf)
        return None

    return rewrite(node, leaf)


_PERCENT: Node = ("num", Fraction(1, 100), "", -1)  # what the parser multiplies by for a `%`


# --- a MAC as two operations ----------------------------------------------------------------------


def is_mac(word: str) -> bool:
    """`MAC`, `MACs`, `GMACs`, `MACS`: multiply-accumulates, which units.py counts as one operation."""
    return is_unit(word) and word.upper().rstrip("S").endswith("MAC")


def macs_as_two(node: Node) -> Node:
    """`1 MAC = 2 FLOPs`, `2.2M MACs = 4.4M FLOPs`: a MAC as the two operations (a multiply and an
    add) many authors count, where units.py counts one; an author may mean either."""

    def leaf(n: Node) -> Node | None:
        return ("bin", "*", ("num", Fraction(2), "", -1), n) if n[0] == "unit" and is_mac(n[1]) else None

    return rewrite(node, leaf)


# --- `at` as a quotient ---------------------------------------------------------------------------


def at_divides(node: Node) -> Node:
    """`200 MB at 5 MB/s = 40 s`, `1M MACs at 2 MACs/cycle = 500K cycles`: `at` (read as a product
    as written: `15 ms at 3 mW = 45 uJ`) is a quotient where a size meets the rate it goes at."""

    def leaf(n: Node) -> Node | None:
        return (
            ("bin", "/", rewrite(n[2], leaf), rewrite(n[3], leaf)) if n[0] == "bin" and n[1] == "@" else None
        )

    return rewrite(node, leaf)


# --- units as labels ----------------------------------------------------------------------------


def labels(node: Node) -> Node:
    """Every unit read as its magnitude prefix only: `GB` is 10^9, `ms` 10^-3, `h` and `$` 1."""

    def leaf(n: Node) -> Node | None:
        return ("num", magnitude(n[1]), "", -1) if n[0] == "unit" else None

    return rewrite(node, leaf)


def magnitude(word: str) -> Fraction:
    """The prefix of a unit word: `GB`, `Gbps`, `GOPS`, `Megawatts` 10^9…; none (1) for `h`, `min`,
    `m`, `mo` and every word that is not a prefixed unit."""
    for prefix, size in _PREFIXES:
        rest = word[len(prefix) :]
        if word.startswith(prefix) and rest in units.UNITS:
            return size
    return _ONE
