"""The shortcuts that make the re-checker fast must not change what it finds."""

from __future__ import annotations

import dataclasses
import itertools
from fractions import Fraction

import pytest

from qbank.napkin import equations
from qbank.napkin.equations import check_text
from qbank.napkin.evaluate import evaluate, parse, replaced
from qbank.napkin.lexer import normalise, tokenize
from qbank.napkin.units import MODES


def _rounded_or_truncated_by_fractions(exact: Fraction, stated: Fraction, quantum: Fraction) -> bool:
    """The policy written with Fractions, as it was before the integer version."""
    n, k = exact / quantum, stated / quantum
    if k.denominator != 1:
        return False
    truncated = n.numerator // n.denominator if n >= 0 else -((-n).numerator // (-n).denominator)
    below = n.numerator // n.denominator
    nearest = {below, below + 1} if n - below == Fraction(1, 2) else {round(n)}
    return k == truncated or k in nearest


def test_rounding_in_integers_matches_the_fraction_policy() -> None:
    values = [Fraction(n, d) for n in range(-30, 31, 7) for d in (1, 2, 3, 4, 10)]
    quanta = [Fraction(1), Fraction(1, 10), Fraction(1, 2), Fraction(5), Fraction(-1, 4)]
    for exact, stated, quantum in itertools.product(values, values, quanta):
        expected = _rounded_or_truncated_by_fractions(exact, stated, quantum)
        assert equations._rounded_or_truncated(exact, stated, quantum) == expected, (exact, stated, quantum)


def test_a_replaced_number_reads_as_a_reparsed_one() -> None:
    tokens = tokenize(normalise("$3.5/hour * 2B"))
    parsed = parse(tokens)
    first = parsed.numbers[0]
    for mode in MODES:
        swapped = evaluate(replaced(parsed.node, first, ("num", Fraction(1, 10), "")), mode)
        digit = tokens[1]
        reparsed = parse([digit._replace(value=Fraction(1, 10)) if t is digit else t for t in tokens])
        assert swapped == evaluate(reparsed.node, mode)


def test_spaces_mark_the_next_token() -> None:
    tokens = tokenize("2048 -token  x 4 1-5 ms 16 - 4")
    assert [(t.kind, t.text, t.spaced) for t in tokens] == [
        ("num", "2048", False),
        ("word", "token", True),  # the skipped hyphen passes its space on
        ("times", "x", True),
        ("num", "4", True),
        ("num", "1", True),
        ("range", "-", False),
        ("num", "5", False),
        ("word", "ms", True),
        ("num", "16", True),
        ("op", "-", True),
        ("num", "4", True),
    ]


def test_repeated_lines_share_outcomes_that_cannot_be_changed() -> None:
    first = check_text("- 26 GB / 3.35 TB/s = 8.76 ms")
    with pytest.raises(dataclasses.FrozenInstanceError):
        first[0].status = "changed by a caller"  # type: ignore[misc]
    again = check_text("- 26 GB / 3.35 TB/s = 8.76 ms")
    assert again == first and again[0].status == "arithmetic"
    assert again[0].line == "- 26 GB / 3.35 TB/s = 8.76 ms"
