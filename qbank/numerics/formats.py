"""The floating-point formats claims may name, and exact rounding of any rational into them.

Rounding is done here on `Fraction`s, once (round to nearest, ties to even), because a decimal such
as 1e-7 is not exact in float64 and rounding it twice (to float64, then to float16) can differ from
rounding it once (research/fp16-gpu.md P6). Arithmetic in a format uses numpy (float16, float32) and
ml_dtypes (bfloat16, float8_*), whose +, −, × are correctly rounded (research §0.5); tests compare
this module's rounding with theirs.

Constants (research §1.2): float8_e4m3fn has no infinity (its top exponent holds normals up to 448,
and ml_dtypes turns overflow into NaN); the other formats overflow to infinity.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

INF = "inf"
NAN = "nan"
Rounded = Fraction | str  # a value, or "inf", "-inf", "nan"


@dataclass(frozen=True)
class Format:
    name: str
    exponent_bits: int
    mantissa_bits: int  # stored fraction bits (10 for float16)
    max: Fraction
    overflow: str  # what a too-large value becomes: "inf" or "nan"

    @property
    def min_exponent(self) -> int:
        return int(2 - 2 ** (self.exponent_bits - 1))

    @property
    def smallest_normal(self) -> Fraction:
        return Fraction(2) ** self.min_exponent

    @property
    def smallest_subnormal(self) -> Fraction:
        return Fraction(2) ** (self.min_exponent - self.mantissa_bits)

    @property
    def eps(self) -> Fraction:
        """The gap between 1 and the next value (numpy's finfo.eps)."""
        return Fraction(1, 2**self.mantissa_bits)

    def constant(self, field: str) -> Fraction:
        return {
            "max": self.max,
            "smallest_normal": self.smallest_normal,
            "smallest_subnormal": self.smallest_subnormal,
            "eps": self.eps,
            "unit_roundoff": self.eps / 2,
            "mantissa_bits": Fraction(self.mantissa_bits),
            "precision_bits": Fraction(self.mantissa_bits + 1),
            "exponent_bits": Fraction(self.exponent_bits),
            "max_exact_int": Fraction(2 ** (self.mantissa_bits + 1)),
        }[field]

    def round(self, x: Fraction) -> Rounded:
        """x rounded to this format: nearest, ties to even; beyond the range, inf or nan."""
        if x == 0:
            return Fraction(0)
        magnitude = abs(x)
        exponent = max(floor_log2(magnitude), self.min_exponent)
        quantum = Fraction(2) ** (exponent - self.mantissa_bits)
        rounded = _round_half_even(magnitude / quantum) * quantum
        if rounded > self.max:
            return self.overflow if self.overflow == NAN or x > 0 else "-" + INF
        return rounded if x > 0 else -rounded

    def classify(self, value: Rounded) -> str:
        if isinstance(value, str):
            return NAN if value == NAN else INF
        if value == 0:
            return "zero"
        return "subnormal" if abs(value) < self.smallest_normal else "normal"


def floor_log2(x: Fraction) -> int:
    """The exponent e with 2^e <= x < 2^(e+1), exactly (x > 0)."""
    e = x.numerator.bit_length() - x.denominator.bit_length()
    return e if Fraction(2) ** e <= x else e - 1


def _round_half_even(x: Fraction) -> int:
    below = x.numerator // x.denominator
    rest = x - below
    if rest > Fraction(1, 2) or (rest == Fraction(1, 2) and below % 2):
        return below + 1
    return below


FORMATS = {
    f.name: f
    for f in (
        Format("float16", 5, 10, Fraction(65504), INF),
        Format("bfloat16", 8, 7, Fraction(255) * Fraction(2) ** 120, INF),
        Format("float32", 8, 23, Fraction(2**24 - 1) * Fraction(2) ** 104, INF),
        Format("float8_e4m3fn", 4, 3, Fraction(448), NAN),
        Format("float8_e5m2", 5, 2, Fraction(57344), INF),
    )
}


def numpy_dtype(name: str) -> Any:
    """The numpy dtype for a format name (imports numpy and ml_dtypes only when a claim needs one)."""
    import numpy as np

    if name in ("float16", "float32"):
        return np.dtype(name)
    import ml_dtypes

    return np.dtype(getattr(ml_dtypes, name))
