"""Wrong lines that once passed in silence (issue 31), each with a right variant that passes.

Lines written for this module. Covered here: the largest SI and IEC prefixes (`1 EiB = 1 B` and
`1 YB = 1 B` were read as labels and counted ok); Unicode operators authors type (`∙`, `✕`, `∕`,
fullwidth `＝`, `≒`) and spaced en and em dashes between quantities (read as ranges), which made a
line silent; `≈` one unit off a single digit (`1 * 1 ≈ 2`); a value an arrow states of a
calculation (`2 × 3 -> 9`); a measured value after a title (`Total 700 GB = 8 × 80 GB`); a stated
range the value is outside (`8 × 80 GB = 10-20 GB`); `at` and `each` between quantities (`8 GPUs
at 80 GB each = 700 GB`). And right lines once flagged: a result rounded to its last significant
digit (`= 3,700` for 3,702), and a number grouped as Python writes it (`1_000`). Then `of` between
things counted and a quantity (`1000 steps of 3 s`) and a duration in smaller and smaller units
(`1 h 30 min`), both once unread, and a computed range (`1-5 ms + 2-5 ms = 3-8 ms`); a share or a multiple (`half of 80 GB = 40 GB`
was an error, read as `80 GB = 40 GB`). Format facts in prose: tests/numerics/test_prose.py.
"""

from __future__ import annotations

import pytest

from qbank.napkin.equations import check_text
from tests.napkin import statuses


@pytest.mark.parametrize(
    ("wrong", "right"),
    [
        ("- 1 EiB = 1 B", "- 1 EiB = 1,024 PiB"),
        ("- 1 YB = 1 B", "- 1 YB = 1,000 ZB"),
        ("- 3 ZB / 3 = 1 EB", "- 3 ZB / 3 = 1,000 EB"),
        ("- 2 YiB / 2 ZiB = 1,000", "- 2 YiB / 2 ZiB = 1,024"),
        ("- 1 EiB = 1 EB", "- 1 EiB = 1.153 EB"),  # binary is not decimal, even in a binary reading
    ],
)
def test_the_largest_prefixes_are_units_not_labels(wrong: str, right: str) -> None:
    assert statuses(wrong) == ["arithmetic"]
    assert statuses(right) == ["ok"]


@pytest.mark.parametrize(
    ("wrong", "right"),
    [
        ("- 2 ∙ 3 = 7", "- 2 ∙ 3 = 6"),  # U+2219 bullet operator
        ("- 2 ✕ 3 GB = 7 GB", "- 2 ✕ 3 GB = 6 GB"),  # U+2715 multiplication X
        ("- 6 GB ∕ 2 = 4 GB", "- 6 GB ∕ 2 = 3 GB"),  # U+2215 division slash
        ("- 2 + 2 ＝ 5", "- 2 + 2 ＝ 4"),  # U+FF1D fullwidth equals
        ("- 80 GB / 2 TB/s ≒ 4 ms", "- 80 GB / 2 TB/s ≒ 40 ms"),  # U+2252, written for ≈
    ],
)
def test_unicode_operators_are_read(wrong: str, right: str) -> None:
    assert statuses(wrong) == ["arithmetic"]
    assert statuses(right) == ["ok"]


@pytest.mark.parametrize(
    ("wrong", "right"),
    [
        ("- 1 × 1 ≈ 2", "- 1 × 1 ≈ 1"),  # one unit of a single digit is 100%
        ("- 2.4 GB × 1 ≈ 3 GB", "- 2.6 GB × 1 ≈ 3 GB"),  # 25% off; rounding is fine
        ("- 0.24 s × 1 ~ 0.3 s", "- 0.24 s × 1 ~ 0.2 s"),
        ("- 10 / 3 ≈ 3.5", "- 10 / 3 ≈ 3.4"),  # one unit off a second digit still passes
        ("- 8.5 × 1 ≈ 10", "- 9.4 × 1 ≈ 10"),
    ],
)
def test_approximately_allows_one_unit_only_past_the_first_digit(wrong: str, right: str) -> None:
    assert statuses(wrong) == ["arithmetic"]
    assert statuses(right) == ["ok"]


@pytest.mark.parametrize(
    ("wrong", "right"),
    [
        ("- 100 GB – 20 GB = 90 GB", "- 100 GB – 20 GB = 80 GB"),  # en dash, spaced, between quantities
        ("- 10 — 3 = 8", "- 10 — 3 = 7"),  # em dash, a larger number first
        ("- (10 + 2) – 3 = 8", "- (10 + 2) – 3 = 9"),
    ],
)
def test_a_spaced_dash_between_quantities_is_a_minus(wrong: str, right: str) -> None:
    assert statuses(wrong) == ["arithmetic"]
    assert statuses(right) == ["ok"]


@pytest.mark.parametrize(
    "line",
    [
        "- 14 GB + 64 GB = 78 GB — barely fits in 80 GB",  # a dash in prose, before words
        "- Latency: 2 – 5 ms per request",  # a smaller number first: a range
        "- Memory: 700–800 GB in all",
    ],
)
def test_a_dash_in_prose_or_a_range_is_no_minus(line: str) -> None:
    assert "arithmetic" not in statuses(line) and "unit-mismatch" not in statuses(line)


@pytest.mark.parametrize(
    ("right", "wrong"),
    [
        ("- 1234 × 3 = 3,700", "- 1234 × 3 = 3,800"),  # 3,702: rounded to its last significant digit
        ("- 1,123,456 × 1.5 = 1,685,000", "- 1,123,456 × 1.5 = 1,684,000"),  # 1,685,184
        ("- 2 × 1,234 = 2,500", "- 2 × 1,234 = 2,600"),
    ],
)
def test_trailing_zeros_after_two_significant_digits_are_a_rounding(right: str, wrong: str) -> None:
    assert statuses(right) == ["ok"]
    assert statuses(wrong) == ["arithmetic"]


@pytest.mark.parametrize(
    "line",
    [
        "- 8 × 80 GB = 600 GB",  # 640: one significant digit is exact, not a rounding of it
        "- 1 KiB = 1,000 B",  # 1,024: binary is not decimal
        "- 8 × 81 = 640",  # 648: one zero is a digit
        "- 8 × 125 = 1,100",  # 1,000: off by a whole unit of the last significant digit
    ],
)
def test_zeros_that_are_not_a_rounding_are_still_checked_as_written(line: str) -> None:
    assert statuses(line) == ["arithmetic"]


@pytest.mark.parametrize(
    ("right", "wrong"),
    [
        ("- 1_000 × 3 = 3000", "- 1_000 × 3 = 4000"),
        ("- 3 × 1_000_000 = 3,000,000", "- 3 × 1_000_000 = 300,000"),
    ],
)
def test_digits_grouped_with_underscores_are_one_number(right: str, wrong: str) -> None:
    assert statuses(right) == ["ok"]
    assert statuses(wrong) == ["arithmetic"]


@pytest.mark.parametrize(
    ("wrong", "right"),
    [
        ("- 2 × 3 -> 9", "- 2 × 3 -> 6"),
        ("- 80 GB / 2 TB/s = 40 ms → 0.4 s", "- 80 GB / 2 TB/s = 40 ms → 0.04 s"),
        ("- 70 × 2 GB ⇒ 14 GB", "- 70 × 2 GB ⇒ 140 GB"),
    ],
)
def test_what_an_arrow_states_of_a_calculation_is_a_claim(wrong: str, right: str) -> None:
    assert statuses(wrong)[-1] == "arithmetic"
    assert statuses(right)[-1] == "ok"


@pytest.mark.parametrize(
    "line",
    [
        "- Memory traffic: 240 GB -> 60 GB (4x less)",  # a change, not an equality
        "- TTFT 200 ms → 215 ms with the extra hop",
        "- 1,000 / 2.27 = 441 B200s → 441 kW",  # another quantity
    ],
)
def test_an_arrow_from_a_stated_value_is_still_a_change(line: str) -> None:
    assert "arithmetic" not in statuses(line) and "unit-mismatch" not in statuses(line)


@pytest.mark.parametrize(
    ("wrong", "right"),
    [
        ("- Total 700 GB = 8 × 80 GB", "- Total 640 GB = 8 × 80 GB"),
        ("- Weights 150 GB = 70B × 2 bytes", "- Weights 140 GB = 70B × 2 bytes"),
        ("- Step time 10.0 s = 8.0 s + 3.0 s", "- Step time 11.0 s = 8.0 s + 3.0 s"),
        ("- Memory: KV cache 3 GB = 2 × 2 GB", "- Memory: KV cache 4 GB = 2 × 2 GB"),
    ],
)
def test_a_measured_value_after_a_title_is_what_the_line_claims(wrong: str, right: str) -> None:
    assert statuses(wrong) == ["arithmetic"]
    assert statuses(right) == ["ok"]


@pytest.mark.parametrize(
    "line",
    [
        "- Step 2 = 3 × 4",  # a step's number, not a quantity
        "- H100 80GB = $3.67/hr",  # a name, priced
        "- Weights 200MB + Grads 200MB + Adam 400MB = 1 GB",  # the last part of a sum of named parts
        "- 4.74 GB so far. Add peak activations (~800 MB) = 5.54 GB",  # a note on a running sum
    ],
)
def test_a_number_in_a_name_or_a_note_is_not_a_claim(line: str) -> None:
    assert "arithmetic" not in statuses(line) and "unit-mismatch" not in statuses(line)


@pytest.mark.parametrize(
    ("wrong", "right"),
    [
        ("- 8 × 80 GB = 10-20 GB", "- 8 × 80 GB = 600-700 GB"),
        ("- 8 × 80 GB = 700–800 GB", "- 8 × 80 GB = 600–700 GB"),  # en dash
        ("- 80 GB / 2 TB/s ≈ 50-60 ms", "- 80 GB / 2 TB/s ≈ 30-50 ms"),
        ("- 2 × 3 = 7-9", "- 2 × 3 = 5-7"),
    ],
)
def test_a_stated_range_claims_the_value_lies_in_it(wrong: str, right: str) -> None:
    assert statuses(wrong) == ["arithmetic"]
    assert statuses(right) == ["ok"]
    assert "outside the range" in check_text(wrong)[0].message


@pytest.mark.parametrize(
    ("wrong", "right"),
    [
        ("- 15 ms at 3 mW = 4.5 uJ", "- 15 ms at 3 mW = 45 uJ"),  # time at a power: energy
        ("- 200 MB at 5 MB/s = 4 s", "- 200 MB at 5 MB/s = 40 s"),  # a size at a rate: a time
        ("- 1000 steps at 3 s = 2000 s", "- 1000 steps at 3 s = 3000 s"),
        ("- 625 MB @ 64 GB/s = 98 ms", "- 625 MB @ 64 GB/s = 9.8 ms"),
    ],
)
def test_at_between_two_quantities_is_read_by_their_units(wrong: str, right: str) -> None:
    assert statuses(wrong) == ["arithmetic"]
    assert statuses(right) == ["ok"]


@pytest.mark.parametrize(
    "line",
    [
        "- 1M MACs at 2 MACs/cycle = 5.2 ms",  # cycles, not seconds: the clock is left out
        "- 0.9 GPU utilisation = 15 ms / 16.7 ms at 60 fps",  # a condition after a stated value
    ],
)
def test_at_is_never_an_error_where_a_step_or_a_word_is_missing(line: str) -> None:
    assert "arithmetic" not in statuses(line) and "unit-mismatch" not in statuses(line)


@pytest.mark.parametrize(
    ("right", "wrong"),
    [("- 1 MAC = 2 FLOPs", "- 1 MAC = 3 FLOPs"), ("- 2.2M MACs = 4.4M ops", "- 2.2M MACs = 5M ops")],
)
def test_a_mac_may_count_as_two_operations(right: str, wrong: str) -> None:
    assert statuses(right) == ["ok"]
    assert statuses(wrong) == ["arithmetic"]


@pytest.mark.parametrize(
    ("wrong", "right"),
    [
        ("- 8 GPUs at 80 GB each = 700 GB", "- 8 GPUs at 80 GB each = 640 GB"),
        ("- 8 GPUs × 80 GB each = 700 GB", "- 8 GPUs × 80 GB each = 640 GB"),
    ],
)
def test_each_on_a_computed_side_says_what_the_product_says(wrong: str, right: str) -> None:
    assert statuses(wrong) == ["arithmetic"]
    assert statuses(right) == ["ok"]


def test_each_after_a_stated_value_is_still_a_share() -> None:
    assert statuses("- 8 × 80 GB = 10 GB each") == ["unchecked"]  # 640 GB over some count: not said


@pytest.mark.parametrize(
    ("wrong", "right"),
    [
        ("- 1 h 30 min = 80 min", "- 1 h 30 min = 90 min"),
        ("- 95 min = 1 h 30 min", "- 90 min = 1 h 30 min"),  # on the stated side too
        ("- 2 min 5 s × 4 = 9 min", "- 2 min 5 s × 4 = 500 s"),  # the sum, then the product
        ("- 5300 s = 1 h 30 min 15 s", "- 5415 s = 1 h 30 min 15 s"),
    ],
)
def test_a_duration_written_in_smaller_and_smaller_units_is_their_sum(wrong: str, right: str) -> None:
    assert statuses(wrong) == ["arithmetic"]
    assert statuses(right) == ["ok"]


def test_a_duration_written_up_the_scale_is_not_a_sum() -> None:
    assert statuses("- 100 ms 20 ms = 120 ms") == ["unchecked"]


@pytest.mark.parametrize(
    ("wrong", "right"),
    [
        ("- 1000 steps of 3 s = 2000 s", "- 1000 steps of 3 s = 3000 s"),
        ("- 8 shards of 10 GB = 60 GB", "- 8 shards of 10 GB = 80 GB"),
        ("- Total: 4 replicas of 2.5 GB = 12 GB", "- Total: 4 replicas of 2.5 GB = 10 GB"),
    ],
)
def test_things_counted_of_a_quantity_are_a_product(wrong: str, right: str) -> None:
    assert statuses(wrong) == ["arithmetic"]
    assert statuses(right) == ["ok"]


@pytest.mark.parametrize(
    "line",
    [
        "- 10 GB of 80 GB = 12.5%",  # a share: `of` after a unit
        "- 2 layers of 32 = 6.25%",  # `of` before a bare number: which of them
    ],
)
def test_of_after_a_unit_or_before_a_bare_number_is_not_a_product(line: str) -> None:
    assert "arithmetic" not in statuses(line)


def test_of_after_a_stated_value_says_what_each_is() -> None:
    assert statuses("- 2080 / 2 = 1040 tasks of 2 minutes") == ["ok"]  # not 1040 × 2 minutes


def test_a_wrong_sum_of_durations_names_the_units_of_its_left_side() -> None:
    (outcome,) = check_text("- 2 × 45 min = 60 min + 20 min")
    assert outcome.message.endswith("the left side is 5,400 s")  # was `5,400`, with no unit


@pytest.mark.parametrize(
    ("wrong", "right"),
    [
        ("- 1-5 ms + 2-5 ms = 3-8 ms", "- 1-5 ms + 2-5 ms = 3-10 ms"),
        (
            "- 25 ms + 4 ms + 20–30 ms = 49–69 ms",
            "- 25 ms + 4 ms + 20–30 ms = 49–59 ms",
        ),  # StaffML mobile-0967
        ("- 2-4 GB × 8 = 16-30 GB", "- 2-4 GB × 8 = 16-32 GB"),
        ("- 2-4 GB / 2 GB/s = 1-3 s", "- 2-4 GB / 2 GB/s = 1-2 s"),
        ("- 1-5 ms = 1000-6000 us", "- 1-5 ms = 1000-5000 us"),
    ],
)
def test_a_computed_range_holds_when_each_end_does(wrong: str, right: str) -> None:
    assert statuses(wrong) == ["arithmetic"]
    assert statuses(right) == ["ok"]


@pytest.mark.parametrize(
    "line",
    [
        "- 1-5 ms + 2-5 ms = 6 ms",  # one value for a range: which end, or the middle?
        "- 10 GB / 2-5 GB/s = 2-5 s",  # a range that divides: its ends swap
        "- 100 ms - 20-30 ms = 70-80 ms",  # a range subtracted
    ],
)
def test_a_computed_range_whose_ends_may_swap_or_are_not_stated_is_unchecked(line: str) -> None:
    assert statuses(line) == ["unchecked"]


@pytest.mark.parametrize(
    ("wrong", "right"),
    [
        ("- half of 80 GB = 20 GB", "- half of 80 GB = 40 GB"),  # was read as `80 GB = 40 GB`: an error
        ("- Half of 80 GB = 42 GB", "- Half of 80 GB = 40 GB"),  # an exact half: no decimal's rounding
        ("- a third of 90 GB = 20 GB", "- a third of 90 GB = 30 GB"),
        ("- a quarter of 80 GB = 40 GB", "- a quarter of 80 GB = 20 GB"),
        ("- twice 80 GB = 170 GB", "- twice 80 GB = 160 GB"),
    ],
)
def test_a_share_or_a_multiple_of_a_quantity_is_a_product(wrong: str, right: str) -> None:
    assert statuses(wrong) == ["arithmetic"]
    assert statuses(right) == ["ok"]


@pytest.mark.parametrize("line", ["- half of the 80 GB = 40 GB", "- each of the 8 GPUs = 80 GB"])
def test_a_value_after_a_quantifier_is_not_a_titled_measure(line: str) -> None:
    assert "arithmetic" not in statuses(line)
