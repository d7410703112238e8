"""YAML 1.2 core-schema scalars, and the plain values YAML 1.1 reads otherwise (qbank/load/scalars.py)."""

from __future__ import annotations

import pytest

from qbank import load
from qbank.load import scalars
from tests.load import loaded, problem


def test_yaml_1_2_scalars_not_1_1() -> None:
    data = loaded("d: 012\nf: 0x1F\ng: 1e3\nh: ~\ni: true\nj: '7'\nk: 'no'\nl: '2026-01-01'\n").data
    assert data == {
        "d": 12,
        "f": 31,
        "g": 1000.0,
        "h": None,
        "i": True,
        "j": "7",
        "k": "no",
        "l": "2026-01-01",
    }


@pytest.mark.parametrize(
    ("plain", "kind"),
    [("no", "boolean"), ("on", "boolean"), ("Y", "boolean"), ("OFF", "boolean"), ("1:30", "number")]
    + [("0b11", "number"), ("1_000", "number"), ("2026-01-01", "date"), ("2026-01-01 10:00:00", "date")],
)
def test_plain_values_yaml_1_1_reads_otherwise_must_be_quoted(plain: str, kind: str) -> None:
    """1.2 reads these as strings; PyYAML's 1.1 reads `no` as False, `1:30` as 90, and so on
    (ecosystem.md §4.8): the file would mean two things, so the loader refuses it."""
    assert load.scalar_value(plain, None) == plain
    finding = problem(f"title: x\na: [{plain}]\n")
    assert (finding.name, finding.line, finding.column) == ("ambiguous-value", 2, 5)
    assert kind in finding.message
    assert loaded(f"a: '{plain}'\n").data == {"a": plain}


def test_words_that_only_start_like_yaml_1_1_values_are_plain_strings() -> None:
    assert loaded("a: nope\nb: online\nc: yesterday\nd: 1:30 pm\n").data["a"] == "nope"


def test_a_huge_integer_is_refused_not_converted() -> None:
    """int() refuses over 4,300 digits (CVE-2020-10735); the value is an error, not silently text."""
    assert load.scalar_value("9" * 5000, None) == "9" * 5000
    finding = problem("n: " + "9" * 5000 + "\n")
    assert (finding.name, finding.line, finding.column) == ("ambiguous-value", 1, 4)
    assert "5000 characters" in finding.message and len(finding.message) < 120


def test_plain_scalars_with_a_word_start_are_strings_under_every_core_schema_rule() -> None:
    """scalar_value returns a plain scalar that starts with one of STRING_STARTS as it is, without
    trying the rules; no rule may read such a scalar as anything but a string."""
    tails = [
        "",
        "ull",
        "ULL",
        "rue",
        "RUE",
        "alse",
        "ALSE",
        "1",
        "0",
        ".5",
        "e3",
        "x1f",
        "o7",
        "nf",
        "aN",
        "AN",
    ]
    for start in scalars.STRING_STARTS:
        for text in (start + tail for tail in tails):
            assert not any(rule.fullmatch(text) for rule in (scalars._NULL, scalars._INT, scalars._FLOAT)), (
                text
            )
            assert text not in scalars._BOOL and text not in scalars._SPECIAL_FLOAT, text
    assert {"n", "N", "t", "T", "f", "F"}.isdisjoint(scalars.STRING_STARTS)
    assert load.scalar_value("null", None) is None and load.scalar_value("False", None) is False


def test_a_hex_number_too_long_to_print_is_refused_like_a_decimal_one() -> None:
    # Found by fuzzing: int() reads any number of hex digits, and 3,600 of them made an int that
    # raised ValueError when the schema finding showed it (past 4,300 decimal digits).
    assert load.scalar_value("0x" + "9" * 3600, None) == "0x" + "9" * 3600
    finding = problem("schema_version: 0x" + "9" * 3600 + "\n")
    assert (finding.name, finding.line, finding.column) == ("ambiguous-value", 1, 17)
    assert load.scalar_value("0x1F", None) == 31 and load.scalar_value("0o17", None) == 15
