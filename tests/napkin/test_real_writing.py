"""Napkin math as people write it (issue 25), each pattern with a correct line that must pass and a
wrong variant that must still fail: function calls on either side of a chain, chains that go on
with an operator after a stated value, names with no value, and a literal `\\u2248`. Every line is
written here (not copied from a corpus); the numbers are worked out in the comment beside it.
"""

from __future__ import annotations

import pytest

from qbank.napkin.equations import check_text
from qbank.napkin.lexer import normalise
from tests.napkin import statuses

# --- 1. function calls on either side of a chain ---------------------------------------------------


@pytest.mark.parametrize(
    "line",
    [
        "- sqrt(2 * 450 * 4) = sqrt(3600) = 60",  # 3600, 60
        "- t = sqrt(2 * 90 * 10) = sqrt(1800) ≈ 42.4 s",  # sqrt(1800) = 42.43
        "- GPUs = ceil(300 GB / 80 GB) = ceil(3.75) = 4",
        "- e^3 = exp(3) ≈ 20.1",  # 20.0855
        "- max(3, 7) = max(7, 2) = 7",
        "- min(40 GB, 24 GB) = min(24 GB, 80 GB) = 24 GB",
        "- log2(4096) = log2(2^12) = 12",
        "- ln(1000) = 3 * ln(10) ≈ 6.91",  # 6.9078
        "- floor(9.9) = floor(9.2) = 9",
        "- 60 = sqrt(3600)",
        "- 2 * 30 min (1800 s) = 3600 s",  # `min (` after a number is minutes, not min()
    ],
)
def test_function_calls_pass_when_right(line: str) -> None:
    assert statuses(line) and set(statuses(line)) == {"ok"}, check_text(line)


@pytest.mark.parametrize(
    "line",
    [
        "- sqrt(2 * 240 * 5) = sqrt(2500)",  # 48.99 against 50
        "- sqrt(2 * 450 * 4) = sqrt(3700) = 60",
        "- 3.75 = ceil(3.75)",  # ceil(3.75) is 4: was read as the number 3.75 with a note `ceil( )`
        "- e^3 = exp(2)",  # 20.09 against 7.39
        "- max(3, 7) = max(2, 5)",
        "- log2(4096) = log2(2048)",
        "- floor(9.9) = floor(10.2)",
        "- 2 * 30 min (1800 s) = 3000 s",
    ],
)
def test_function_calls_fail_when_wrong(line: str) -> None:
    assert "arithmetic" in statuses(line), check_text(line)


# --- 2. a chain that goes on with an operator after a stated value ---------------------------------


@pytest.mark.parametrize(
    "line",
    [
        "- 1920 x 1080 x 4 = 8.29 MB * 30 = 249 MB/s",  # 8,294,400 B; 8.29 MB * 30 = 248.7 MB
        "- 3 * 7 = 21 * 2 = 42",
        "- 250 * 4 = 1,000 ms / 20 = 50 ms",
        "- 2 * 3 = 3 * 2 = 6",  # an ordinary chain still reads as one
        "- 1280 x 720 x 3 = 2.76 MB * 60 = 166 MB/s",  # 2,764,800 B; 2.76 MB * 60 = 165.6 MB
    ],
)
def test_a_chain_that_goes_on_passes_when_right(line: str) -> None:
    assert statuses(line) and set(statuses(line)) == {"ok"}, check_text(line)


@pytest.mark.parametrize(
    ("line", "wrong_link"),
    [
        ("- 1280 x 720 x 3 = 2.76 MB * 60 = 266 MB/s", 1),  # 165.6 MB, not 266
        ("- 1920 x 1080 x 4 = 8.29 MB * 30 = 349 MB/s", 1),
        ("- 1920 x 1080 x 4 = 9.29 MB * 30 = 278.7 MB/s", 0),  # 8.29 MB, not 9.29
        ("- 3 * 7 = 22 * 2 = 44", 0),
        ("- 2 * 3 = 4 * 2 = 8", 0),  # 6 is neither 4 nor 8
    ],
)
def test_a_chain_that_goes_on_fails_on_the_wrong_link(line: str, wrong_link: int) -> None:
    found = statuses(line)
    assert found[wrong_link] == "arithmetic", check_text(line)
    assert found.count("arithmetic") == 1, check_text(line)


def test_only_a_middle_term_is_read_as_going_on() -> None:
    # At the end of a chain, `= 2.76 MB * 60` is the value of the left side, as ever: wrong here.
    assert statuses("- 1280 x 720 x 3 = 2.76 MB * 60") == ["arithmetic"]


def test_a_wrong_stated_value_before_an_operator_names_the_value_it_should_be() -> None:
    (first, _) = check_text("- 1920 x 1080 x 4 = 9.29 MB * 30 = 278.7 MB/s")
    assert "8.2944 MB" in first.message, first


# --- 3. a name with no value is reported, never dropped --------------------------------------------


@pytest.mark.parametrize(
    ("line", "name"),
    [
        ("- Ring steps: N - 1 = 2", "N"),  # was read as `- 1 = 2`, an arithmetic error
        ("- N - 1 = -1", "N"),  # and this wrong line passed as `- 1 = -1`
        ("- P * 2 = 14", "P"),
        ("- 3 * K + 2 = 11", "K"),
        ("- 6 = 2 * N", "N"),
    ],
)
def test_a_name_with_no_value_makes_the_equation_unchecked(line: str, name: str) -> None:
    (outcome,) = check_text(line)
    assert outcome.status == "unchecked", outcome
    assert repr(name) in outcome.message, outcome


def test_a_name_written_against_a_number_is_not_a_note() -> None:
    # `4N` was read as 4 with a note `N`: `3 * 4N = 12` passed as 3 * 4 = 12.
    (outcome,) = check_text("- 3 * 4N = 12")
    assert outcome.status == "unchecked" and "'N'" in outcome.message, outcome
    # A formula with names, then its numbers: the formula is left out, the numbers are checked.
    assert statuses("- T = sqrt(2CM) = sqrt(2 * 50 * 36) = 60 s") == ["ok"]
    assert statuses("- T = sqrt(2CM) = sqrt(2 * 50 * 36) = 61 s") == ["arithmetic"]
    assert statuses("- the 2nd pass: 2 * 40 ms = 80 ms") == ["ok"]  # an ordinal, not a name


def test_a_subtraction_after_a_known_unit_is_still_checked() -> None:
    assert statuses("- 80 GB - 16 GB = 64 GB") == ["ok"]
    assert statuses("- 80 GB - 16 GB = 54 GB") == ["arithmetic"]


# --- 4. a literal \u2248 --------------------------------------------------------------------------


def test_a_literal_escape_for_approximately_is_read_as_approximately() -> None:
    assert statuses(r"- 512 * 8 * 2 B = 8,192 B \u2248 8 KB") == ["ok", "ok"]
    assert statuses(r"- 2^-10 \u2248 0.00098") == ["ok"]
    assert statuses(r"- 2^-10 \u2248 0.0011") == ["arithmetic"]  # 0.000977: 12.6% off
    assert statuses(r"- 512 * 8 * 2 B = 8,192 B \u2248 12 KB") == ["ok", "arithmetic"]


def test_only_escapes_of_math_characters_are_read() -> None:
    # A literal `\u0000` or a bidi control (CVE-2021-42574) is not turned into the character it names.
    assert normalise(r"2 \u202e 3 \u0000") == r"2 \u202e 3 \u0000"
    assert normalise(r"2 \u2248 3") == "2 ≈ 3"
    assert statuses(r"- 10 \u00d7 3 = 30") == ["ok"]
    assert statuses(r"- 10 \u00d7 3 = 31") == ["arithmetic"]


# --- the unit errors that matter stay errors -------------------------------------------------------


@pytest.mark.parametrize("line", ["- 8 * 80 GB = 620 GB", "- 80 GB / 2 TB/s = 40 s"])
def test_real_errors_stay_errors(line: str) -> None:
    assert statuses(line) == ["arithmetic"], check_text(line)


# --- 5. a share of a quantity: `X% of Y` ----------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("- Spot discount: 15% of $768/hour = $115.20/hour", ["ok"]),
        ("- 20% of 80 GB = 16 GB", ["ok"]),
        ("- 50% of (80 GB + 40 GB) = 60 GB", ["ok"]),
        ("- Spot discount: 15% of $768/hour = $200/hour", ["arithmetic"]),
        ("- 20% of 80 GB = 20 GB", ["arithmetic"]),  # issue 31: silent before
        ("- 0.5% of 7B params = 40M params", ["arithmetic"]),
    ],
)
def test_a_percentage_of_a_quantity_is_a_product(line: str, expected: list[str]) -> None:
    assert statuses(line) == expected


def test_a_percentage_of_words_is_prose() -> None:
    assert statuses("- Savings: 15% of the bill = $115") == []
