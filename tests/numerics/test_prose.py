"""Format facts in prose (issue 31): each form, stated wrong and stated right, and what is not a fact."""

from __future__ import annotations

import pytest

from qbank.numerics.prose import problems


def found(text: str) -> list[str]:
    return [problem for _, problem in problems(text)]


@pytest.mark.parametrize(
    ("wrong", "right"),
    [
        ("FP16's max is 65,536, so the scale halves.", "FP16's max is 65,504, so the scale halves."),
        ("FP16 max 1, and so on.", "FP16 max 65504, and so on."),  # a comma after the number ends it
        ("FP16 max 64K before scaling.", "FP16 max 65K before scaling."),  # truncated: holds
        ("The largest FP16 value is 65,536.", "The largest FP16 value is about 65,536."),  # ≈: within 5%
        ("The max of BF16 is 3.4e37.", "The max of BF16 is 3.39e38."),
        ("The smallest FP16 subnormal is 2^-14.", "The smallest FP16 subnormal is 2^-24."),
        ("FP16's smallest normal is 6.1e-8.", "FP16's smallest normal is 6.1e-5."),
        ("The smallest normal FP16 value is 6.0e-5.", "The smallest normal FP16 value is 6.1 x 10^-5."),
        ("The smallest positive FP16 value is 6.1e-5.", "The smallest positive FP16 value is 5.96e-8."),
        ("BF16 has 10 mantissa bits.", "BF16 has 7 mantissa bits."),
        ("BF16 has 8 exponent bits and 10 mantissa bits.", "BF16 has 8 exponent bits and 8 mantissa bits."),
        ("FP16 (1 sign, 8 exponent, 10 mantissa bits)", "FP16 (1 sign, 5 exponent, 10 mantissa bits)"),
        ("FP16 has a 7-bit mantissa.", "FP16 has a 10-bit mantissa."),
        ("FP32 has 11 bits of precision.", "FP32 has 24 bits of precision."),
        ("BF16 epsilon is 2^-10.", "BF16 epsilon is 2^-8."),  # the gap after 1, or half of it
        ("FP8 E4M3 max is 240 and E5M2 max is 57,344.", "FP8 E4M3 max is 448 and E5M2 max is 57,344."),
        ("E5M2 has a max of 448.", "E5M2 has a max of 57344."),
    ],
)
def test_a_wrong_fact_is_found_and_the_right_one_holds(wrong: str, right: str) -> None:
    assert len(found(wrong)) == 1, found(wrong)
    assert found(right) == []


def test_the_message_gives_the_exact_value() -> None:
    assert found("FP16's max is 65,536.") == ["FP16's largest finite value is 65,504, not 65,536"]
    assert found("The smallest FP16 subnormal is 2^-14.") == [
        "FP16's smallest subnormal value is 2^-24 = 5.96046e-08, not 2^-14"
    ]


@pytest.mark.parametrize(
    "text",
    [
        "FP16's max is not 65,536.",  # negated
        "Candidates assume BF16 has 10 mantissa bits.",  # a belief reported
        "Using FP16 instead of BF16 with its 10 mantissa bits.",
        "FP16 max 989 TFLOPS on an H100.",  # a rate, not a constant
        "FP16 max 65% utilisation.",
        "In FP16 the max batch is 64 sequences.",
        "Below half the smallest FP16 subnormal (2^-25) values round to zero.",  # scaled
        "TF32 keeps FP32's 8-bit exponent but only 10 mantissa bits.",  # TF32's mantissa, not FP32's
        "FP8 max is 448.",  # which FP8: E4M3 or E5M2
        "FP16 has a smaller range than BF16: the smallest normal value is ~6e-5.",  # BF16 is compared
        "The smallest FP16 value is 6.1e-5.",  # smallest: normal or subnormal, not said
    ],
)
def test_not_a_fact_of_the_format(text: str) -> None:
    assert found(text) == []


def test_a_number_too_large_to_read_is_no_fact() -> None:
    """2^9999 is more work than a line of napkin math may ask (qbank/napkin/meter.py): not read."""
    assert found("FP16's max is 2^9999.") == []
