from fractions import Fraction

import pytest

from qbank.generate.numbers import fmt, prose


@pytest.mark.parametrize(
    ("value", "sig", "text"),
    [
        (Fraction(140), 3, "140"),
        (Fraction(1370), 3, "1370"),  # whole numbers keep every integer digit
        (Fraction(2, 3), 3, "0.667"),
        (Fraction(41795, 1000), 3, "41.8"),
        (Fraction(5, 10000), 3, "0.0005"),
        (Fraction(25, 10), 3, "2.5"),  # no trailing zeros
        (Fraction(0), 3, "0"),
        (Fraction(-125, 100), 2, "-1.2"),  # half to even
    ],
)
def test_fmt_rounds_to_significant_digits_without_exponents(value: Fraction, sig: int, text: str) -> None:
    assert fmt(value, sig) == text


def test_prose_adds_thousands_separators() -> None:
    assert prose(Fraction(1036000)) == "1,036,000"
    assert prose(Fraction(-12345, 10), 5) == "-1,234.5"
