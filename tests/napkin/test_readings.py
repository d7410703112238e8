"""The other readings of a line that does not add up as written (qbank/napkin/readings.py, issue 25).

One test per pattern of the issue's table and per miss it lists, each with lines of our own writing
(never copied from the corpora): a correct variant that must pass and a wrong one that must fail.
"""

from __future__ import annotations

import pytest

from qbank.napkin.equations import check_text
from tests.napkin import statuses


def message(line: str) -> str:
    (outcome,) = check_text(line)
    return outcome.message


# --- `B` as billions beside `B` as bytes -------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "status"),
    [
        ("- 13B x 2B = 26 GB", "ok"),  # 13 billion parameters of 2 bytes
        ("- 13B x 0.5B = 6.5 GB", "ok"),
        ("- 13B x 2B = 20 GB", "arithmetic"),
        ("- 13B params x 2 bytes = 26 GB", "ok"),
    ],
)
def test_b_is_read_number_by_number(line: str, status: str) -> None:
    assert statuses(line) == [status], check_text(line)


def test_the_message_names_the_reading_it_came_closest_with() -> None:
    assert message("- 13B x 2B = 20 GB").endswith("(reading 2B as bytes)")


# --- conversion literals -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "status"),
    [
        ("- 1000 / 40ms = 25 FPS", "ok"),  # 1000 ms in a second
        ("- 1000 / 40ms = 2.5 FPS", "arithmetic"),
        ("- 5 days * 24 hours * 3600 seconds = 432,000 seconds", "ok"),
        ("- 5 days * 24 hours * 3600 seconds = 43,200 seconds", "arithmetic"),
        ("- 3M events/min * 1440 * 8 bytes = 34.56 GB/day", "ok"),  # 1,440 minutes a day
        ("- 3M events/min * 1440 * 8 bytes = 50 GB/day", "arithmetic"),
        ("- 200 Gbps / 8 = 25 GB/s", "ok"),  # 8 beside a unit in bits
        ("- 200 Gb/s / 8 = 2.5 GB/s", "arithmetic"),
    ],
)
def test_a_conversion_literal_stands_for_the_change_of_unit_it_names(line: str, status: str) -> None:
    assert statuses(line) == [status], check_text(line)


@pytest.mark.parametrize(
    "line",
    [
        "- 8 * 80 GB = 620 GB",
        "- 80 GB / 2 TB/s = 40 s",  # a factor of 1,000 that no literal on the line explains
        "- 3 ms * 1000 = 3 ms",  # `ms` alone names no change of unit
        "- 8 Megabits = 8 MB",  # a stated value is what it says: its 8 converts nothing
        "- 400 Gb/s = 400 GB/s",  # bits are never bytes
    ],
)
def test_the_unit_errors_that_matter_stay_errors(line: str) -> None:
    assert statuses(line) == ["arithmetic"], check_text(line)


# --- units as labels ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "status"),
    [
        ("- 5 GOPS * 30 FPS = 0.15 TOPS", "labels"),  # GOPS meant per frame: a warning
        ("- 5 GOPS * 30 FPS = 1.5 TOPS", "unit-mismatch"),
        ("- 5 GOP * 30 FPS = 0.15 TOPS", "ok"),
        ("- $2M hardware + $40K * 4 ops = $2.16M", "labels"),  # `ops` is operations, not a unit here
        ("- $2M hardware + $40K * 4 ops = $3M", "unit-mismatch"),
        ("- 80 GB / 2 TB/s = 40 GB", "unit-mismatch"),  # 0.04, not 40: prefixes are kept
    ],
)
def test_units_that_cannot_balance_are_read_as_labels_with_their_prefixes(line: str, status: str) -> None:
    assert statuses(line) == [status], check_text(line)


def test_a_labels_warning_says_why() -> None:
    text = message("- 5 GOPS * 30 FPS = 0.15 TOPS")
    assert "op/s^2 on the left, op/s on the right" in text and "read as labels" in text


# --- prose and stated values --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "status"),
    [
        ("- 20% of $500/hour = $100/hour", "ok"),
        ("- 20% of $500/hour = $120/hour", "arithmetic"),
        ("- 30 GPUs * $2/GPU-hr * (4 stalls/hr * 30s stall / 3600) * 24 hrs ≈ $48/day", "ok"),
        ("- 30 GPUs * $2/GPU-hr * (4 stalls/hr * 30s stall / 3600) * 24 hrs ≈ $60/day", "arithmetic"),
        ("- 12 concurrent * 512 MiB ≈ 6 GiB", "ok"),  # a word after a number names what it counts
        ("- 12 concurrent * 512 MiB ≈ 6.5 GiB", "arithmetic"),
        ("- 2M phones * 0.5MB = 1TB/upload", "ok"),  # per one of a thing: read, never a name
        ("- 2M phones * 0.5MB = 2TB/upload", "unchecked"),  # a total, or per upload? as `per rack`
    ],
)
def test_words_inside_an_expression_are_notes(line: str, status: str) -> None:
    assert statuses(line) == [status], check_text(line)


@pytest.mark.parametrize(
    "line",
    [
        "- 1.5M MACs = 3M cycles",  # a conversion the line does not show, not an equation
        "- $20/request = $2,000/year",
        "- 6 flaps/hr ≈ 48 lost steps per hour",
        "- 4 syncs = 210ms overhead",
    ],
)
def test_two_stated_values_of_different_things_are_not_an_equation(line: str) -> None:
    assert statuses(line) == [], check_text(line)


def test_a_number_after_words_vs_another_is_a_label() -> None:
    assert statuses("- cost = 2.4% vs baseline 2.0% = 20% growth") == []


# --- rounded values carried forward -------------------------------------------------------------

_CARRIED = """\
- Frame: 1920 x 1080 x 2 B = 4.15 MB
- Stream: 4.15 MB/frame * 100 FPS = 414.7 MB/s
- Wrong stream: 4.15 MB/frame * 100 FPS = 420 MB/s
- Not carried: 4.05 MB/frame * 100 FPS = 414.7 MB/s
"""


def test_a_rounded_result_carried_forward_stands_for_its_interval() -> None:
    # 1920 x 1080 x 2 B is 4.1472 MB, written 4.15; 4.1472 MB x 100 is the 414.7 written after it
    assert statuses(_CARRIED) == ["ok", "ok", "arithmetic", "arithmetic"]


def test_a_number_never_stated_above_is_exact() -> None:
    assert statuses("- 4.15 MB/frame * 100 FPS = 414.7 MB/s") == ["arithmetic"]


# --- enumerators and decibels -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "status"),
    [
        ("- (3) 128 requests x 2048 tokens = 262,144 tokens needed", ["ok"]),
        ("- (b) 2 * 8 = 17", ["arithmetic"]),
        ("- sqrt(2) * 2 = 2.83", ["ok"]),  # a call, not an enumerator
    ],
)
def test_an_enumerator_starts_the_math_after_it(line: str, status: list[str]) -> None:
    assert statuses(line) == status, check_text(line)


# --- the tolerance policy (`qbank explain arithmetic`) ------------------------------------------


@pytest.mark.parametrize(
    ("line", "status"),
    [
        ("- 16 * 1024 * 1024 * 1024 * 2 bytes = 34.3 GB", "ok"),  # 34.36: truncated, accepted
        ("- 16 * 1024 * 1024 * 1024 * 2 bytes = 34.4 GB", "ok"),  # rounded
        ("- 16 * 1024 * 1024 * 1024 * 2 bytes = 34.2 GB", "arithmetic"),
        ("- 25 * 480 MiB ≈ 11.7 GiB", "ok"),  # 11.72: within one unit of the last digit
        ("- 25 * 480 MiB ≈ 12 GiB", "ok"),
        ("- 25 * 480 MiB ≈ 12.0 GiB", "arithmetic"),  # 2.4% off, beyond the 1% of `≈`
        ("- 7 / 4 = 2x", "arithmetic"),  # rounds to 2, but 14% off: `=` is within 5%
        ("- 7 / 4 ≈ 2x", "ok"),
        ("- 8 × 80 GB = 1 TB", "arithmetic"),  # rounds to one digit, but 56% off (issue 31)
        ("- 3.2e9 bytes = 2 GB", "arithmetic"),  # nor is truncation combined with the binary reading
    ],
)
def test_the_tolerance_policy(line: str, status: str) -> None:
    assert statuses(line) == [status], check_text(line)
