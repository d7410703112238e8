"""Exact rounding into each format agrees with numpy and ml_dtypes, and the constants are right."""

from __future__ import annotations

import random
from fractions import Fraction

import numpy as np
import pytest

from qbank.numerics.formats import FORMATS, numpy_dtype


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_rounding_matches_numpy_and_ml_dtypes(name: str) -> None:
    fmt, dtype = FORMATS[name], numpy_dtype(name)
    rng = random.Random(7)
    top = float(fmt.max) * 1.1
    samples = [rng.uniform(-top, top) * 2.0 ** -rng.randint(0, 150) for _ in range(3000)]
    samples += [float(fmt.max), float(fmt.smallest_subnormal) / 2, float(fmt.smallest_normal), 0.0]
    for x in samples:  # every float64 is exact, so numpy's single rounding is the reference
        ours = fmt.round(Fraction(x))
        with np.errstate(over="ignore"):
            theirs = np.array([x], dtype=np.float64).astype(dtype)[0].item()
        if isinstance(ours, str):
            assert str(theirs).lower() in (ours, "nan" if ours == "nan" else ours), (name, x)
        else:
            assert Fraction(float(theirs)) == ours, (name, x, ours, theirs)


def test_constants_from_research() -> None:
    f16, bf16, e4m3 = FORMATS["float16"], FORMATS["bfloat16"], FORMATS["float8_e4m3fn"]
    assert f16.constant("smallest_normal") == Fraction(1, 2**14)
    assert f16.constant("smallest_subnormal") == Fraction(1, 2**24)
    assert f16.constant("max_exact_int") == 2048
    assert bf16.constant("eps") == Fraction(1, 128)
    assert e4m3.constant("max") == 448
    assert f16.round(Fraction(65519)) == 65504 and f16.round(Fraction(65520)) == "inf"
    assert e4m3.round(Fraction(464)) == 448 and e4m3.round(Fraction(465)) == "nan"
    assert f16.round(Fraction(1, 10**7)) == Fraction(1, 2**23)  # a decimal rounded once, exactly
