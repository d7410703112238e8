"""Numbers as a generated question writes them: exact values, rounded once to what is shown.

Calculations lines use `sig` significant digits without separators, which the arithmetic rule reads
as "the exact value rounded to the stated digits"; prose uses thousands separators.
"""

from __future__ import annotations

import math
from decimal import ROUND_HALF_EVEN, Decimal, localcontext
from fractions import Fraction

Number = Fraction | int


def fmt(x: Number, sig: int = 3) -> str:
    """`x` rounded to `sig` significant digits, or to a whole number when it has more integer
    digits than that (a stated `1370` would claim the units digit), never with an exponent."""
    x = Fraction(x)
    if x.denominator == 1 and abs(x.numerator) >= 10 ** (sig - 1):
        return str(x.numerator)
    if x == 0:
        return "0"
    with localcontext() as ctx:
        ctx.prec = 60
        d = Decimal(x.numerator) / Decimal(x.denominator)
        exponent = min(math.floor(math.log10(abs(x))) - sig + 1, 0)
        text = format(d.quantize(Decimal(1).scaleb(exponent), rounding=ROUND_HALF_EVEN), "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text


def shown(x: Number, sig: int = 3) -> tuple[str, Fraction]:
    """A value as written in a calculation, and that written value (later lines compute from it)."""
    text = fmt(x, sig)
    return text, Fraction(text)


def prose(x: Number, sig: int = 3) -> str:
    """`fmt` with thousands separators, for sentences."""
    text = fmt(x, sig)
    whole, _, frac = text.partition(".")
    sign = "-" if whole.startswith("-") else ""
    whole = f"{int(whole.lstrip('-') or 0):,}"
    return sign + whole + (f".{frac}" if frac else "")


def ceil(x: Number) -> int:
    return math.ceil(Fraction(x))


def q(text: str) -> Fraction:
    """A table figure such as "3.35" as an exact fraction."""
    return Fraction(text)
