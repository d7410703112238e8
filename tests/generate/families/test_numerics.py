"""The format-range family: what it says a value becomes agrees with numpy and ml_dtypes, and the
scale it picks is the largest power of two that keeps the 2x margin."""

from __future__ import annotations

import random
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest

from qbank.generate.families import numerics
from qbank.generate.tables import Tables, load_models
from qbank.model.taxonomy import load_bank_tables
from qbank.numerics.formats import FORMATS
from tests.conftest import REPO

DTYPES = {
    "float16": np.float16,
    "bfloat16": ml_dtypes.bfloat16,
    "float8_e4m3fn": ml_dtypes.float8_e4m3fn,
    "float8_e5m2": ml_dtypes.float8_e5m2,
}


@pytest.fixture(scope="module")
def tables() -> Tables:
    schema = load_bank_tables(REPO / "schema")
    return Tables(schema.hardware, load_models(REPO / "schema"))


@pytest.mark.parametrize(
    ("value", "sig", "text"),
    [
        (Fraction(2) ** -24, 3, "5.96e-8"),
        (Fraction(65504), 3, "65504"),
        (Fraction(3), 3, "3"),
        (Fraction(2) ** 128, 3, "3.4e38"),
        (Fraction(99996, 10**9), 3, "1e-4"),  # 9.9996e-5 rounds up into the next decade
        (Fraction(-7, 1000000), 2, "-7e-6"),
    ],
)
def test_sci_rounds_to_significant_digits(value: Fraction, sig: int, text: str) -> None:
    assert numerics.sci(value, sig) == text


def test_exact_writes_a_binary_fraction_in_full() -> None:
    assert numerics.exact(Fraction(2) ** -24) == "0.000000059604644775390625"
    assert Fraction(numerics.exact(Fraction(70144))) == 70144


def _drafts(tables: Tables, level: str, n: int = 60) -> list:
    rng = random.Random(3)
    return [
        numerics.format_range(rng, tables, track, level)
        for track in ("cloud", "edge", "tinyml")
        for _ in range(n)
    ]


@pytest.mark.parametrize("level", ["L1", "L2"])
def test_each_stated_outcome_matches_the_library_cast(tables: Tables, level: str) -> None:
    for draft in _drafts(tables, level):
        value = draft.params["value"]
        for claim in draft.verify:
            with np.errstate(over="ignore"):  # overflow is one of the outcomes under test
                cast = np.array(float(value)).astype(DTYPES[claim["dtype"]]).astype(np.float64)
            if claim["kind"] == "cast":
                assert float(cast) == float(Fraction(claim["expect"])), (value, claim)
            elif claim["kind"] == "underflow":
                assert float(cast) == 0.0, (value, claim)
            else:
                assert claim["kind"] == "overflow" and not np.isfinite(cast), (value, claim)


def test_the_scale_is_the_largest_power_of_two_under_half_the_maximum(tables: Tables) -> None:
    for draft in _drafts(tables, "L3", 30):
        fmt = FORMATS[draft.params["format"]]
        large = Fraction(draft.params["large"])
        k = int(draft.verify[0]["scale"].removeprefix("2^"))
        assert large * Fraction(2) ** k <= fmt.max / 2 < large * Fraction(2) ** (k + 1), draft.params
