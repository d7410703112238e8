"""Run `verify:` claims on the CPU, exactly. Each check returns None when the claim holds, else a
sentence saying what is true instead.

Kinds and their references: research/fp16-gpu.md §2 (K1–K10); the loss scaler mirrors the ATen
update kernel quoted in §2.4 (`_amp_update_scale_`), with the scale kept in float32.

Imported only where claims are checked (checks/numeric_claims.py imports it when a question has
one), so numpy is imported here at the top.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import numpy as np

from qbank.napkin import equations
from qbank.napkin.equations import stated, within_tolerance
from qbank.napkin.evaluate import format_number, parse
from qbank.napkin.lexer import NapkinError, normalise, tokenize
from qbank.numerics import claims as c
from qbank.numerics.formats import FORMATS, NAN, Rounded, numpy_dtype


def flushes_subnormals() -> bool:
    """True when this process flushes float32 subnormals to zero (FTZ/DAZ set by a library built
    with -ffast-math, or by torch.set_flush_denormal): bfloat16 results would be wrong (P13)."""
    tiny = np.float32(1e-40)
    return bool(tiny * np.float32(1) == 0 or np.nextafter(np.float32(0), np.float32(1)) == 0)


def check(claim: Any) -> str | None:
    return _CHECKS[claim.kind](claim)


def agrees(exact: Fraction, text: str, approx: bool = False) -> bool:
    """Whether a claim's stated value matches an exact one: with `approx`, under the `≈` tolerance of
    `qbank explain arithmetic`; otherwise it is the exact value rounded to the digits it states (a
    tie either way), where napkin math may also truncate: bfloat16's 1/3 is 0.333984375, so `0.333`
    is wrong (issue 31)."""
    if approx:
        return equations.agrees(exact, text, approx=True)
    value, quantum = stated(text)
    if not quantum or value == 0:
        return equations.agrees(exact, text)  # a claimed zero, or no digits to round to: exact
    return 2 * abs(exact - value) <= quantum and within_tolerance(exact, value, quantum, approx=False)


def _show(value: Rounded) -> str:
    return value if isinstance(value, str) else format_number(value)


def _outcome_agrees(value: Rounded, expect: str, approx: bool) -> bool:
    if isinstance(value, str) or expect.strip().lower() in ("inf", "-inf", "nan", "+inf"):
        return isinstance(value, str) and value == expect.strip().lower().lstrip("+")
    return agrees(value, expect, approx)


def _stored(claim: Any) -> tuple[Fraction, Rounded]:
    """A claim's value, read exactly, and what it becomes when stored in the claim's format."""
    x, _ = stated(claim.value)
    return x, FORMATS[claim.dtype].round(x)


def _format_constant(claim: c.FormatConstant) -> str | None:
    exact = FORMATS[claim.dtype].constant(claim.field)
    if agrees(exact, claim.expect, claim.approx):
        return None
    return f"{claim.dtype} {claim.field} is {format_number(exact)}, not {claim.expect}"


def _representable(claim: c.Representable) -> str | None:
    x, rounded = _stored(claim)
    kind = FORMATS[claim.dtype].classify(rounded)
    if kind != claim.expect:
        return f"{claim.value} in {claim.dtype} becomes {_show(rounded)}, which is {kind}, not {claim.expect}"
    if claim.exact is not None and (rounded == x) != claim.exact:
        return f"{claim.value} is {'' if rounded == x else 'not '}exactly representable in {claim.dtype}"
    return None


def _cast(claim: c.Cast) -> str | None:
    x, rounded = _stored(claim)
    if not _outcome_agrees(rounded, claim.expect, claim.approx):
        return f"{claim.value} in {claim.dtype} becomes {_show(rounded)}, not {claim.expect}"
    if not claim.approx and rounded != x and _is_input(claim.expect, x):
        # `cast 0.1 to float16: 0.1`: at one digit 0.0999755859375 is 0.1, but a cast stated as its
        # own input says the cast is exact, which it is not (issue 31)
        return f"{claim.value} in {claim.dtype} becomes {_show(rounded)}: not exactly {claim.expect}"
    if claim.rel_error is not None:
        if isinstance(rounded, str) or x == 0:
            return "a relative error needs a finite, non-zero value"
        error = (rounded - x) / x
        if not agrees(abs(error), claim.rel_error.lstrip("+-"), approx=True) or (
            claim.rel_error.strip().startswith("-") != (error < 0) and error != 0
        ):
            return f"the relative error is {format_number(error * 100)}%, not {claim.rel_error}"
    return None


def _is_input(expect: str, x: Fraction) -> bool:
    """Whether a stated outcome is the input itself (not "inf" or "nan")."""
    return expect.strip().lower().lstrip("+-") not in ("inf", "nan") and stated(expect)[0] == x


def _overflow(claim: c.Overflow) -> str | None:
    _, rounded = _stored(claim)
    kind = {"nan": "nan", "inf": "inf"}.get(
        FORMATS[claim.dtype].classify(rounded), "finite"
    )  # none of these saturate
    if kind == claim.expect:
        return None
    return f"{claim.value} in {claim.dtype} becomes {_show(rounded)} ({kind}), not {claim.expect}"


def _underflow(claim: c.Underflow) -> str | None:
    _, rounded = _stored(claim)
    kind = "zero" if rounded == 0 else "nonzero"
    if kind == claim.expect:
        return None
    return f"{claim.value} in {claim.dtype} becomes {_show(rounded)}, not {claim.expect}"


def _scaled_product(claim: c.ScaledProduct) -> str | None:
    fmt = FORMATS[claim.dtype]
    x, _ = stated(claim.value)
    scale, _ = stated(claim.scale)
    if claim.order == "cast_then_scale":
        first = fmt.round(x)
        result = first if isinstance(first, str) else fmt.round(first * scale)
    else:
        result = fmt.round(x * scale)
    kind = fmt.classify(result)
    if kind != claim.expect:
        return f"{claim.value} × {claim.scale} in {claim.dtype} ({claim.order}) is {_show(result)}, {kind}, not {claim.expect}"
    if claim.expect_value is not None and not _outcome_agrees(result, claim.expect_value, claim.approx):
        return f"{claim.value} × {claim.scale} in {claim.dtype} ({claim.order}) is {_show(result)}, not {claim.expect_value}"
    return None


def _round_trip(claim: c.RoundTrip) -> str | None:
    x, rounded = _stored(claim)
    if isinstance(rounded, str):
        return f"{claim.value} overflows {claim.dtype} to {rounded}"
    error = abs(rounded - x)
    if claim.abs_error is not None and not agrees(error, claim.abs_error, claim.approx):
        return f"the absolute error is {format_number(error)}, not {claim.abs_error}"
    if claim.rel_error is not None and x != 0 and not agrees(error / abs(x), claim.rel_error, claim.approx):
        return f"the relative error is {format_number(error / abs(x))}, not {claim.rel_error}"
    return None


def _arithmetic(claim: c.Arithmetic) -> str | None:
    dtype = numpy_dtype(claim.dtype)
    work = np.dtype("float32") if claim.rounding == "fp32_then_cast" else dtype
    node = parse(tokenize(normalise(claim.expr))).node
    value = _in_dtype(node, work)
    result = np.asarray(value, dtype=work).astype(dtype)[()]
    rounded = _rounded_of(result)
    if _outcome_agrees(rounded, claim.expect, claim.approx):
        return None
    return f"{claim.expr} in {claim.dtype} ({claim.rounding}) is {_show(rounded)}, not {claim.expect}"


def _in_dtype(node: tuple[Any, ...], dtype: Any) -> Any:
    """Evaluate +, -, *, / with numpy scalars of `dtype`: each operation rounds (eager kernels)."""
    kind = node[0]
    if kind == "num" and not node[2]:  # each literal rounded once, exactly (formats.py)
        return np.asarray(float(FORMATS[dtype.name].round(node[1])), dtype=dtype)[()]
    if kind == "neg":
        return -_in_dtype(node[1], dtype)
    if kind == "bin" and node[1] in "+-*/":
        a, b = _in_dtype(node[2], dtype), _in_dtype(node[3], dtype)
        with np.errstate(all="ignore"):
            out = {"+": a + b, "-": a - b, "*": a * b, "/": a / b}[node[1]]
        return np.asarray(out, dtype=dtype)[()]
    raise NapkinError("an arithmetic claim takes numbers, + - * / and parentheses only")


def _rounded_of(value: Any) -> Rounded:
    f = float(value)
    if math.isnan(f):
        return NAN
    if math.isinf(f):
        return "inf" if f > 0 else "-inf"
    return Fraction(f)


def _accumulation(claim: c.Accumulation) -> str | None:
    fmt = FORMATS[claim.dtype]
    dtype = numpy_dtype(claim.dtype)
    addend = fmt.round(stated(claim.addend)[0])
    if isinstance(addend, str):
        return f"the addend {claim.addend} is {addend} in {claim.dtype}"
    values = np.full(claim.n, float(addend), dtype=dtype)
    stalled = False
    with np.errstate(all="ignore"):
        if claim.order == "sequential":  # np.add.accumulate adds left to right in the dtype (P12)
            partial = np.add.accumulate(values, dtype=dtype)
            total = partial[-1]
            stalled = bool(claim.n > 1 and addend != 0 and np.any(partial[1:] == partial[:-1]))
        else:
            total = _pairwise(values)
    rounded = _rounded_of(total)
    if not _outcome_agrees(rounded, claim.expect, claim.approx):
        return f"{claim.order} sum of {claim.n} × {claim.addend} in {claim.dtype} is {_show(rounded)}, not {claim.expect}"
    if claim.stalls is not None and claim.order == "sequential" and stalled != claim.stalls:
        return f"the sequential sum {'does' if stalled else 'does not'} stop growing before {claim.n} adds"
    return None


def _pairwise(values: Any) -> Any:
    while len(values) > 1:
        if len(values) % 2:
            values = np.append(values, values.dtype.type(0))
        values = values[0::2] + values[1::2]
    return values[0]


def _loss_scaler(claim: c.LossScaler) -> str | None:
    """PyTorch GradScaler (ATen `_amp_update_scale_`): on inf/NaN the step is skipped, the scale is
    multiplied by backoff_factor and the clean-step counter resets; after growth_interval clean steps
    in a row the scale is multiplied by growth_factor unless that would be inf in float32."""
    scale = _float32(claim.init_scale)
    growth = _float32(claim.growth_factor)
    backoff = _float32(claim.backoff_factor)
    overflows = set(claim.overflow_steps)
    asked = sorted((int(key), expect) for key, expect in (claim.expect_scale or {}).items())
    wanted = {step for step, _ in asked}
    tracker = skipped = 0
    history: dict[int, float] = {}  # the scale after each step a claim asks about
    for step in range(1, claim.steps + 1):
        if step in overflows:
            scale, tracker, skipped = np.float32(scale * backoff), 0, skipped + 1
        elif tracker + 1 == claim.growth_interval:
            with np.errstate(over="ignore"):
                grown = np.float32(scale * growth)
            scale = grown if np.isfinite(grown) else scale
            tracker = 0
        else:
            tracker += 1
        if step in wanted:
            history[step] = float(scale)
    for step, expect in asked:
        if step not in history:
            return f"step {step} is outside the {claim.steps} steps simulated"
        exact = Fraction(history[step])
        if not agrees(exact, expect):
            return f"the scale after step {step} is {format_number(exact)}, not {expect}"
    if claim.expect_skipped is not None and skipped != claim.expect_skipped:
        return f"{skipped} steps are skipped, not {claim.expect_skipped}"
    return None


def _float32(text: str) -> Any:
    """A number as GradScaler keeps it, in float32. One past float32's range is refused: its float
    would be inf, and past 1.8e308 (`1e400`) Python cannot even make the float."""
    value = stated(text)[0]
    if abs(value) > FORMATS["float32"].max:
        raise NapkinError(f"{text} is beyond the range of float32")
    return np.float32(float(value))


_CHECKS: dict[str, Callable[[Any], str | None]] = {
    "format_constant": _format_constant,
    "representable": _representable,
    "cast": _cast,
    "overflow": _overflow,
    "underflow": _underflow,
    "scaled_product": _scaled_product,
    "round_trip": _round_trip,
    "arithmetic": _arithmetic,
    "accumulation": _accumulation,
    "loss_scaler": _loss_scaler,
}
