"""Each claim kind is confirmed when true and refuted when false, with the facts from research §2.3."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import TypeAdapter

from qbank.napkin.lexer import NapkinError
from qbank.numerics import verify
from qbank.numerics.claims import Claim

CLAIM = TypeAdapter(Claim)


def run(**fields: Any) -> str | None:
    return verify.check(CLAIM.validate_python({"claim": "a claim", **fields}))


TRUE_AND_FALSE = [
    ({"kind": "format_constant", "dtype": "float16", "field": "max", "expect": "65504"}, {"expect": "65536"}),
    (
        {
            "kind": "format_constant",
            "dtype": "float16",
            "field": "smallest_normal",
            "expect": "6e-5",
            "approx": True,
        },
        {"expect": "6e-6"},
    ),
    (
        {"kind": "representable", "dtype": "float16", "value": "1e-7", "expect": "subnormal", "exact": False},
        {"expect": "zero"},
    ),
    (
        {"kind": "cast", "dtype": "float16", "value": "1e-7", "expect": "2^-23", "rel_error": "+19%"},
        {"rel_error": "-19%"},
    ),
    ({"kind": "cast", "dtype": "bfloat16", "value": "0.00097656", "expect": "2^-10"}, {"expect": "0"}),
    ({"kind": "cast", "dtype": "float8_e4m3fn", "value": "0.0009765625", "expect": "0"}, {"expect": "2^-10"}),
    ({"kind": "overflow", "dtype": "float16", "value": "65,536", "expect": "inf"}, {"value": "65519"}),
    ({"kind": "overflow", "dtype": "float8_e4m3fn", "value": "500", "expect": "nan"}, {"expect": "inf"}),
    ({"kind": "underflow", "dtype": "float16", "value": "2.98e-8", "expect": "zero"}, {"value": "2.99e-8"}),
    (
        {
            "kind": "scaled_product",
            "dtype": "float16",
            "value": "1e-7",
            "scale": "65536",
            "expect": "normal",
            "expect_value": "0.0065536",
        },
        {"order": "cast_then_scale"},
    ),
    (
        {"kind": "round_trip", "dtype": "float16", "value": "0.1", "abs_error": "2.44e-5"},
        {"abs_error": "2.44e-4"},
    ),
    ({"kind": "arithmetic", "dtype": "float16", "expr": "2048 + 1", "expect": "2048"}, {"expect": "2049"}),
    ({"kind": "arithmetic", "dtype": "bfloat16", "expr": "256 + 1", "expect": "256"}, {"dtype": "float32"}),
    (
        {
            "kind": "accumulation",
            "dtype": "float16",
            "addend": "1e-4",
            "n": 100000,
            "expect": "0.25",
            "stalls": True,
        },
        {"dtype": "float32"},
    ),
    (
        {"kind": "accumulation", "dtype": "bfloat16", "addend": "1e-4", "n": 100000, "expect": "0.03125"},
        {"order": "pairwise"},
    ),
    (
        {
            "kind": "loss_scaler",
            "overflow_steps": [1, 2, 3],
            "steps": 4000,
            "expect_scale": {"3": "8192", "2003": "16384"},
            "expect_skipped": 3,
        },
        {"growth_interval": 1000},
    ),
]


@pytest.mark.parametrize(("claim", "change"), TRUE_AND_FALSE)
def test_true_claim_holds_and_changed_claim_is_refuted(claim: dict[str, Any], change: dict[str, Any]) -> None:
    assert run(**claim) is None
    assert run(**{**claim, **change})


def test_every_kind_is_covered() -> None:
    kinds = {claim["kind"] for claim, _ in TRUE_AND_FALSE}
    assert kinds == set(verify._CHECKS)


def test_loss_scaler_does_not_grow_past_float32() -> None:
    claim = {"kind": "loss_scaler", "init_scale": "2^127", "growth_interval": 1, "steps": 3}
    assert run(**claim, expect_scale={"3": "2^127"}) is None


def test_this_process_keeps_subnormals() -> None:
    assert not verify.flushes_subnormals()


def test_a_loss_scale_beyond_float32_is_refused_not_raised() -> None:
    # Found by fuzzing: float(Fraction(10**400)) raised OverflowError, which crashed the audit.
    for field in ("init_scale", "growth_factor", "backoff_factor"):
        with pytest.raises(NapkinError, match="beyond the range of float32"):
            run(kind="loss_scaler", steps=3, **{field: "1e400"})
    assert run(kind="loss_scaler", steps=1, init_scale="2^127", expect_scale={"1": "2^127"}) is None


@pytest.mark.parametrize(
    ("wrong", "right"),
    [
        (  # 0.333984375: truncated to its digits, not rounded
            {"kind": "arithmetic", "dtype": "bfloat16", "expr": "1/3", "expect": "0.333"},
            {"kind": "arithmetic", "dtype": "bfloat16", "expr": "1/3", "expect": "0.334"},
        ),
        (  # 65,504 rounds to 66,000 at two digits, and to 65,500 at three
            {"kind": "format_constant", "dtype": "float16", "field": "max", "expect": "65,000"},
            {"kind": "format_constant", "dtype": "float16", "field": "max", "expect": "65,500"},
        ),
        (  # 0.0009765625
            {"kind": "format_constant", "dtype": "float16", "field": "eps", "expect": "0.000976"},
            {"kind": "format_constant", "dtype": "float16", "field": "eps", "expect": "0.000977"},
        ),
        (  # 0.0999755859375: a cast stated as its own input says it is exact
            {"kind": "cast", "dtype": "float16", "value": "0.1", "expect": "0.1"},
            {"kind": "cast", "dtype": "float16", "value": "0.1", "expect": "0.09998"},
        ),
    ],
)
def test_a_claim_is_its_exact_value_rounded_to_the_digits_it_states(
    wrong: dict[str, Any], right: dict[str, Any]
) -> None:
    """issue 31: `verify:` values are compared at the precision they state; napkin math may
    truncate (`7.7612 = 7.7`), a claim may not."""
    assert run(**wrong)
    assert run(**right) is None


def test_a_cast_to_its_own_input_holds_where_the_cast_is_exact_or_approximate() -> None:
    assert run(kind="cast", dtype="float16", value="0.5", expect="0.5") is None
    assert run(kind="cast", dtype="float16", value="0.1", expect="0.1", approx=True) is None
