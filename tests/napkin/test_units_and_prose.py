"""Units that authors spell out, words after a stated result, and decibels (issue 25, part H6).

Each pattern is pinned both ways with lines written for this module (not copied from a corpus): the
correct line passes and a wrong variant of it still fails. A line that qbank cannot read for sure
stays `unchecked`, never `ok`.
"""

from __future__ import annotations

import pytest

from qbank.napkin.equations import check_text
from tests.napkin import statuses

# --- 1. spelled-out and plural units ------------------------------------------------------------


@pytest.mark.parametrize(
    "line",
    [
        "- Rack power = 10,000 * 700W = 7 Megawatts (GPUs only).",
        "- 2,000 * 500 W = 1 megawatt",
        "- 3 megawatts * 2 h = 6 MWh",
        "- 1,500 W * 4 = 6 kilowatts",
        "- 2 kilowatts * 3 hours = 6 kilowatt-hours",
        "- 120 MWh * 400 kg/MWh = 48 metric tons CO2.",
        "- 250 MWh * 0.2 t/MWh = 50 tonnes",
        "- 90,000 kg = 90 metric tons",
        "- $2,000/yr * 3 years = $6,000",
        "- 3 years * 365 days/yr = 1,095 days",
        "- 5 W * 1 yr = 43.8 kWh",
        "- 6 GB / 2 bytes = 3 Billion parameters",
        "- 40 Billion * 2 bytes = 80 GB",
        "- 3 Million * 4 bytes = 12 MB",
        "- 2 Trillion * 1 FLOP = 2 TFLOP",
        "- 5 Thousand * 2 = 10,000",
        "- 3,600 J = 1 Wh = 1,000 mWh",
        "- 72 mJ * 100 = 7.2 J = 2 mWh",
        "- 400 gCO2e/kWh * 50 kWh = 20 kgCO2e",
        "- 2,000 gCO2 * 3 = 6 kgCO2",
        "- 500 kWh * 0.4 kgCO2e/kWh = 0.2 tCO2e",
        "- 30 s * 4 Mbps = 120 Megabits",
        "- 120 Megabits = 15 MB",
        "- 2 Gigabits = 250 MB",
        "- 3 Gigabytes / 1.5 = 2 GB",
    ],
)
def test_spelled_out_units_are_read(line: str) -> None:
    assert statuses(line) and set(statuses(line)) == {"ok"}, check_text(line)


@pytest.mark.parametrize(
    "line",
    [
        "- Rack power = 10,000 * 700W = 9 Megawatts (GPUs only).",
        "- 2,000 * 500 W = 2 megawatts",
        "- 1,500 W * 4 = 60 kilowatts",
        "- 2 kilowatts * 3 hours = 60 kilowatt-hours",
        "- 120 MWh * 400 kg/MWh = 4.8 metric tons CO2.",
        "- 250 MWh * 0.2 t/MWh = 500 tonnes",
        "- $2,000/yr * 3 years = $600",
        "- 5 W * 1 yr = 4.38 kWh",
        "- 6 GB / 2 bytes = 3 Million parameters",
        "- 40 Billion * 2 bytes = 8 GB",
        "- 3 Million * 4 bytes = 12 GB",
        "- 2 Trillion * 1 FLOP = 2 GFLOP",
        "- 72 mJ * 100 = 7.2 J = 2 MWh",  # MWh is a megawatt-hour, not a milliwatt-hour
        "- 72 mJ * 100 = 7.2 J = 20 mWh",
        "- 400 gCO2e/kWh * 50 kWh = 20 tCO2e",
        "- 500 kWh * 0.4 kgCO2e/kWh = 2 tCO2e",
        "- 30 s * 4 Mbps = 120 Megabytes",  # bits are never bytes (issue 31)
        "- 120 Megabits = 120 MB",
    ],
)
def test_wrong_lines_with_spelled_out_units_fail(line: str) -> None:
    assert statuses(line)[-1] in ("arithmetic", "unit-mismatch"), check_text(line)


def test_years_in_the_per_year_idiom_are_read() -> None:
    # `8760 h` here means "per year" and `365 days` "per year": the conversion reading (issue 25)
    assert statuses("- 24 h * 365 days * 3 yrs = 26,280 h") == ["ok"]
    assert statuses("- 24 h * 365 days * 3 yrs = 2,628 h") == ["arithmetic"]
    # the price per kWh is not written, so only the numbers agree: a warning, and a wrong one fails
    assert statuses("- 10 W * 8760 h * 2 yrs / 1000 * $0.15 = $26.28") == ["labels"]
    assert statuses("- 10 W * 8760 h * 2 yrs / 1000 * $0.15 = $2.63") == ["arithmetic"]


def test_milliwatt_hours_and_megawatt_hours_differ_by_a_factor_of_a_billion() -> None:
    assert statuses("- 1 MWh = 1,000,000,000 mWh") == ["ok"]
    assert statuses("- 1 MWh = 1 mWh") == ["arithmetic"]


def test_bits_spelled_out_are_never_bytes() -> None:
    assert statuses("- 8 Megabits = 1 MB") == ["ok"]
    assert statuses("- 8 Megabits = 8 MB") == ["arithmetic"]
    assert statuses("- 8 gigabits = 8 GB") == ["arithmetic"]


# --- 2. words after a stated result ---------------------------------------------------------------


@pytest.mark.parametrize(
    "line",
    [
        "- 5M × 200K × 4B = 4 TB to sum",
        "- 8.58 GB / 16 = ~0.54 GB total",
        "- 60 * 9.5 GB = 570 GB of activation memory",
        "- 12 GB * 3 = 36 GB in all",
        "- $2 * 30 = $60 in total",
    ],
)
def test_a_right_result_with_words_after_it_passes(line: str) -> None:
    assert statuses(line) == ["ok"], check_text(line)


@pytest.mark.parametrize(
    ("line", "computed"),
    [
        ("- 5M × 200K × 4B = 400TB to sum", "4 TB"),
        ("- 8.58 GB / 16 = ~42.9 GB total", "0.53625 GB"),
        ("- 60 * 9.5 GB = 750 GB of activation memory", "570 GB"),
        ("- 12 GB * 3 = 48 GB in all", "36 GB"),
        ("- 8.58 GB/s / 16 = 42.9 GB/s total", "0.53625 GB/s"),
        ("- $2 * 30 = $90 in total", "$60"),
        ("- 12 GB * 3 = 48 GB HBM", "36 GB"),
    ],
)
def test_words_after_a_wrong_result_do_not_hide_the_mismatch(line: str, computed: str) -> None:
    (outcome,) = check_text(line)
    assert outcome.status == "arithmetic", outcome
    assert computed in outcome.message


@pytest.mark.parametrize(
    "line",
    [
        "- 8 * 80 GB = 80 GB each",  # `each`: the stated value is per item, not the product
        "- 8 * 80 GB = 80 GB per rack",  # a rate in a unit qbank does not know
        "- 12 GB * 3 = 4 GB more",  # a difference, not the product
        "- 12 GB * 3 = 48 GB a day",  # a rate
        "- 60 * 9.5 GB = 750 GB at least",  # a bound
        "- 4 GB * 1.1 = 4 TB to 5 TB",  # a range: the words end before a number
        "- 12 GB * 3 = 37 GB total",  # inside the ≈ band: maybe rounded on purpose, not a clear error
        "- 300 * 2 = 700 Zorbs total",  # the word after the number may be a unit qbank does not know
        "- 300 * 2 = 700 total",
        "- 4 * 2 GB = 9 GB per-device",  # a hyphenated word may be a compound unit
    ],
)
def test_words_that_may_change_the_meaning_keep_the_line_unchecked(line: str) -> None:
    assert statuses(line) == ["unchecked"], check_text(line)


# --- 3. decibels ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "status"),
    [
        ("- Filtered level: 62.5 dBμV/m - 6 dB = 56.5 dBμV/m", "ok"),  # a level less a gain
        ("- Filtered level: 62.5 dBμV/m - 6 dB = 50 dBμV/m", "arithmetic"),
        ("- 30 dBm - 3 dB = 27 dBm", "ok"),
        ("- 30 dBm - 3 dB = 25 dBm", "arithmetic"),
        ("- 12 dB + 3 dB = 15 dB", "ok"),  # gains add
    ],
)
def test_a_level_plus_or_minus_gains_adds_as_numbers(line: str, status: str) -> None:
    assert statuses(line) == [status], check_text(line)


@pytest.mark.parametrize(
    "line",
    [
        "- 10 dBm + 10 dBm = 20 dBm",  # two levels: 13 dBm, a sum of powers
        "- 9.4 - 6.1 = 4.3 dB lost",  # gains or levels? qbank cannot tell, so it does not guess
        "- 2 * 1 W = 3 dBW",  # 10 log10(2 W / 1 W): right, and not plain arithmetic
    ],
)
def test_decibel_levels_are_unchecked_with_a_reason_not_a_unit_error(line: str) -> None:
    found = check_text(line)
    assert found and {o.status for o in found} == {"unchecked"}, found
    assert all("decibel" in o.message for o in found)


def test_a_decibel_line_that_adds_up_as_plain_numbers_still_passes() -> None:
    assert statuses("- 9.4 - 6.1 = 3.3 dB lost") == ["ok"]


@pytest.mark.parametrize(
    ("line", "shown"),
    [
        ("- $2 * 30 = $90 in total", "the left side is $60 in total"),
        ("- $2 * 30 = $90/month", "the left side is $60/month"),
        ("- 2 * $30 = $90", "the left side is $60"),
    ],
)
def test_a_dollar_value_is_shown_apart_from_the_words_after_it(line: str, shown: str) -> None:
    (outcome,) = check_text(line)
    assert outcome.status == "arithmetic" and outcome.message.endswith(shown), outcome
