"""The typed-answer grader (qbank/napkin/answer.py): the audit's reader and its `=` tolerance."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from qbank.napkin import answer, units

# 40 ms, as checks/facts.py exports an answer: exact, per mode, with dimensions.
FORTY_MS = {
    "text": "40 ms",
    "modes": [
        {"b_billions": True, "binary_kb": False, "value": "1/25", "dims": list(units.SECOND)},
        {"b_billions": False, "binary_kb": False, "value": "1/25", "dims": list(units.SECOND)},
    ],
}


def answer_of(
    value: Fraction, dims: units.Dims, text: str, modes: tuple[units.Mode, ...] = units.MODES
) -> dict[str, Any]:
    return {
        "text": text,
        "modes": [
            answer.mode_fields(m) | {"value": answer.rational(value), "dims": list(dims)} for m in modes
        ],
    }


@pytest.mark.parametrize(
    "typed", ["40 ms", "0.04 s", "~40 ms", "40ms", "4e-2 s", "4 x 10^-2 s", "40,000 us", "0.0400 s"]
)
def test_the_exact_value_in_any_unit_is_right(typed: str) -> None:
    assert answer.grade(typed, FORTY_MS).status == "right", typed


@pytest.mark.parametrize("typed", ["41 ms", "0.05 s", "4 ms", "400 ms", "39.9 ms"])
def test_a_value_past_the_tolerance_is_wrong(typed: str) -> None:
    verdict = answer.grade(typed, FORTY_MS)
    assert verdict.status == "wrong" and "too" in verdict.message


def test_rounding_to_the_typed_digits_is_right_and_more_than_five_percent_is_not() -> None:
    seven = answer_of(Fraction(77612, 10000), units.NONE, "7.76")  # 7.7612
    typed = ("7.76", "7.7", "7.8", "8", "7.75", "7.77", "9")  # 8: rounded, and 3% off
    expected = ["right", "right", "right", "right", "wrong", "wrong", "wrong"]
    assert [answer.grade(t, seven).status for t in typed] == expected
    # 5/3 typed as 2: 2 is 5/3 rounded to a whole number, but 20% off (`5 / 3 = 2x` fails the audit)
    assert answer.grade("2", answer_of(Fraction(5, 3), units.NONE, "1.67")).status == "wrong"
    assert answer.grade("0", answer_of(Fraction(1, 10**9), units.NONE, "1e-9")).status == "wrong"


def test_a_value_of_another_kind_says_so() -> None:
    verdict = answer.grade("40 GB", FORTY_MS)
    assert verdict == answer.Verdict("wrong-unit", "That is a size; the answer is a time.")
    assert answer.grade("40", FORTY_MS).message == "That is a plain number; the answer is a time."


@pytest.mark.parametrize(
    "typed", ["", "forty ms", "40 ms ms", "1,5 s", "<script>", "40 furlongs", "4O ms", "5. s"]
)
def test_unreadable_input_says_what_is_accepted(typed: str) -> None:
    verdict = answer.grade(typed, FORTY_MS)
    assert verdict.status == "unreadable" and answer.ACCEPTS in verdict.message


def test_an_unknown_unit_is_named() -> None:
    assert answer.grade("40 furlongs", FORTY_MS).message.startswith('Unknown unit "furlongs".')


def test_reading_modes_b_and_kb() -> None:
    seven_billion = answer_of(Fraction(7 * 10**9), units.NONE, "7B")
    assert answer.grade("7B", seven_billion).status == "right"  # billions
    assert answer.grade("7 billion", seven_billion).status == "right"
    kib = answer_of(Fraction(49152), units.BYTE, "48 KB", tuple(m for m in units.MODES if m.binary_kb))
    assert answer.grade("48 KB", kib).status == "right"  # KB as 1024 bytes: the mode the answer holds in
    assert answer.grade("48 KiB", kib).status == "right"
    assert answer.grade("49 kB", kib).status == "right"  # kB is 1000 in every mode: 49,152 B rounds to 49 kB


def test_money_rates_and_percent() -> None:
    per_hour = answer_of(Fraction(40, 3600), units.div(units.dims(usd=1), units.SECOND), "$40/hr")
    assert answer.grade("$40/hr", per_hour).status == "right"
    assert answer.grade("$960/day", per_hour).status == "right"
    assert answer.grade("$40", per_hour).status == "wrong-unit"
    share = answer_of(Fraction(7, 10), units.NONE, "70%")
    assert [answer.grade(t, share).status for t in ("70%", "0.7", "69%")] == ["right", "right", "wrong"]


def test_every_word_of_the_vocabulary_reads_as_its_unit() -> None:
    for word in answer.VOCABULARY:
        read = answer.read(f"1.5 {word}")
        assert not isinstance(read, str), word
        for mode, reading in read.items():
            unit = units.lookup(word, mode)
            scale = unit.factor if unit else Fraction(1)
            assert reading.value == Fraction(3, 2) * scale, (word, mode)
