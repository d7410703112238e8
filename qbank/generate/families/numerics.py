"""Number-format drills: where a value lands in FP16, BF16 and FP8, and which scale rescues a tensor.

Facts: IEEE 754-2008 binary16 for FP16; BF16 keeps FP32's 8-bit exponent with 8 significant bits;
E4M3 and E5M2 as in the OCP FP8 specification (Micikevicius et al. 2022, "FP8 Formats for Deep
Learning"), E4M3 with no infinity (overflow is NaN). research/fp16-gpu.md §1 lists them all. Every
answer is computed with qbank.numerics.formats, the exact rounding the audit's `verify:` claims use,
so a question and its checks cannot disagree.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Decimal, localcontext
from fractions import Fraction
from typing import Any

from qbank.generate.draft import Draft
from qbank.generate.english import article, lower_first
from qbank.generate.families.common import CLOUD_TEAMS, pick, zone
from qbank.generate.numbers import fmt, prose
from qbank.generate.tables import Tables
from qbank.numerics.formats import FORMATS, Format, floor_log2

NAME = {"float16": "FP16", "bfloat16": "BF16", "float8_e4m3fn": "FP8 E4M3", "float8_e5m2": "FP8 E5M2"}
LEVELS = ("L1", "L2", "L3")


@dataclass(frozen=True)
class Quantity:
    """A kind of number that meets a 16- or 8-bit format somewhere in a model's life."""

    name: str  # "weight gradient"
    phase: str
    tracks: tuple[str, ...]
    values: tuple[str, ...]  # single values, for L1 and L2
    spans: tuple[tuple[str, str], ...]  # (smallest magnitude that matters, largest) of a tensor, for L3
    fp8: str | None  # the FP8 variant such values use, if any
    where: tuple[str, ...]  # where a value shows up, after "in" or "at"
    harm_zero: str  # what losing it to zero does
    harm_big: str  # what overflowing does


QUANTITIES = (
    Quantity(
        "weight gradient",
        "training",
        ("cloud", "global"),
        ("2e-8", "4.5e-8", "9e-8", "3.3e-7", "7e-7", "1.5e-6", "6e-6", "2.4e-5", "3e-4"),
        (("1e-9", "0.02"), ("3e-8", "0.5"), ("2e-7", "4"), ("5e-8", "0.08"), ("1e-6", "12")),
        "float8_e5m2",
        (
            "the embedding row of a rarely seen token",
            "a late LayerNorm's weight gradient",
            "the smallest elements of the LM head's gradient",
            "the first attention block's output projection",
            "the gradient of a router's gate weights",
        ),
        "that weight's update is silently lost, which is the reason loss scaling exists",
        "the step's gradients hold inf, and a loss scaler skips the step and halves its scale",
    ),
    Quantity(
        "attention score",
        "inference",
        ("cloud", "global", "edge", "mobile"),
        ("850", "3700", "41000", "71000", "93000", "130000"),
        (("0.004", "90000"), ("0.001", "3000"), ("0.02", "130000"), ("0.0005", "700")),
        "float8_e4m3fn",
        (
            "a long-context head whose query and key norms are large",
            "the unscaled QK^T product of a custom kernel",
            "one head of the last layer on a long code prompt",
            "a head that attends almost entirely to the first token",
        ),
        "the softmax loses the small differences between keys",
        "the softmax computes inf minus inf, which is NaN, and the NaN spreads to every later layer",
    ),
    Quantity(
        "activation",
        "inference",
        ("cloud", "global", "edge", "mobile"),
        ("0.0003", "180", "2600", "18000", "70000", "120000"),
        (("0.0002", "700"), ("0.001", "70000"), ("0.00005", "30"), ("0.003", "2600")),
        "float8_e4m3fn",
        (
            "the residual stream of a late transformer block",
            "the output of a feed-forward down-projection",
            "an outlier channel that a few prompts switch on",
            "the input of the final normalisation layer",
        ),
        "small features vanish and the next layer sees a zero where the model expects a signal",
        "inf reaches the next normalisation, whose variance becomes inf and whose output becomes NaN",
    ),
    Quantity(
        "epsilon constant",
        "inference",
        ("cloud", "global", "edge", "mobile"),
        ("1e-12", "1e-10", "1e-8", "1e-7", "1e-6", "1e-5"),
        (),
        None,
        (
            "the denominator guard of a LayerNorm copied from an FP32 config",
            "a log(x + eps) feature guard",
            "the guard of a cosine-similarity normalisation",
            "an RMSNorm's variance guard",
        ),
        "the guard is a literal zero and a zero denominator or log(0) returns inf or NaN",
        "not a concern for a constant this small",
    ),
    Quantity(
        "Adam second-moment value",
        "training",
        ("cloud", "global"),
        ("4e-16", "9e-12", "2.5e-9", "1.6e-7", "3e-6"),
        (),
        None,
        (
            "the optimizer state of a rarely updated embedding row",
            "the second moment of a bias with tiny gradients",
            "the state of a parameter late in a cosine schedule",
        ),
        "the update divides by sqrt(0) + eps, so one parameter takes a step hundreds of times too large",
        "not a concern for a value this small",
    ),
    Quantity(
        "sensor reading",
        "inference",
        ("edge", "mobile", "tinyml"),
        ("1500.3", "3001.3", "4093", "12345", "65535", "0.00037", "70000"),
        (("0.01", "4095"), ("0.5", "65535"), ("0.00003", "2"), ("0.002", "1023")),
        None,
        (
            "the raw input of a vibration-anomaly model",
            "a depth frame from a time-of-flight sensor",
            "a 16-bit ADC sample passed straight to the first layer",
            "the raw counts of a 16-bit thermal camera",
        ),
        "the reading is replaced by zero and the model sees a dead channel",
        "the reading becomes inf and every output it touches becomes inf or NaN",
    ),
    Quantity(
        "spectral power value",
        "inference",
        ("edge", "mobile", "tinyml"),
        ("1e-10", "3e-9", "2e-8", "7e-7", "4e-5"),
        (("1e-9", "1"), ("1e-7", "30"), ("0.00002", "8")),
        None,
        (
            "a quiet mel band of a keyword-spotting front end",
            "the power spectrum of a silent room",
            "a high-frequency band of a machine-sound monitor",
        ),
        "the following log returns -inf and the features fill with -inf",
        "the following log returns inf",
    ),
)

WHO = {
    "cloud": CLOUD_TEAMS,
    "global": (
        "An ML engineer",
        "A numerics reviewer",
        "A kernel developer",
        "A graduate student",
        "A model-quality engineer",
        "An interviewer",
    ),
    "edge": (
        "The firmware team of a traffic camera",
        "An engineer porting a model to a Jetson module",
        "The perception team of a warehouse robot",
        "An integrator of a factory inspection box",
    ),
    "mobile": (
        "A phone app's ML engineer",
        "The on-device team of a camera app",
        "An engineer converting a model for a phone NPU",
        "The team behind a wearable companion app",
    ),
    "tinyml": (
        "A firmware engineer on a Cortex-M55 board",
        "The team of a battery-powered sensor node",
        "An engineer squeezing a model into 256 KB of SRAM",
    ),
}


def _formats(track: str, quantity: Quantity) -> tuple[str, ...]:
    names: tuple[str, ...] = ("float16", "bfloat16")
    if quantity.fp8 and track in ("cloud", "global"):
        names += (quantity.fp8,)
    return names


def sci(x: Fraction, sig: int = 3) -> str:
    """`x` to `sig` significant digits: plain between 0.001 and 10^6, else as 5.96e-8."""
    if x == 0:
        return "0"
    if Fraction(1, 1000) <= abs(x) < 10**6:
        return fmt(x, sig)
    exponent = math.floor(math.log10(abs(x)))
    while abs(x) >= Fraction(10) ** (exponent + 1):
        exponent += 1
    while abs(x) < Fraction(10) ** exponent:
        exponent -= 1
    with localcontext() as ctx:
        ctx.prec = 60
        m = x / Fraction(10) ** exponent
        d = (Decimal(m.numerator) / Decimal(m.denominator)).quantize(
            Decimal(1).scaleb(1 - sig), rounding=ROUND_HALF_EVEN
        )
    if d >= 10:
        d, exponent = d / 10, exponent + 1
    text = format(d, "f").rstrip("0").rstrip(".") if "." in format(d, "f") else format(d, "f")
    return f"{text}e{exponent}"


def exact(x: Fraction) -> str:
    """A binary fraction as its exact decimal (a power-of-two denominator always terminates)."""
    with localcontext() as ctx:
        ctx.prec = 200
        text = format(Decimal(x.numerator) / Decimal(x.denominator), "f")
    return text.rstrip("0").rstrip(".") if "." in text else text


def _class(f: Format, x: Fraction) -> str:
    return f.classify(f.round(x))


def _describe(f: Format, x: Fraction) -> str:
    return {
        "normal": "an ordinary normal number",
        "subnormal": "a subnormal, kept with fewer significant bits",
        "zero": "zero",
        "inf": "infinity",
        "nan": "NaN, since the format has no infinity",
    }[_class(f, x)]


def _words(text: str) -> str:
    """A value as prose writes it: 260,000 rather than 260000."""
    return prose(Fraction(text)) if "e" not in text and Fraction(text) >= 10000 else text


def _range_line(f: Format) -> str:
    name = NAME[f.name]
    return (
        f"{name}: {f.exponent_bits} exponent bits, {f.mantissa_bits} stored mantissa bits; smallest normal "
        f"2^{f.min_exponent}, smallest subnormal 2^{f.min_exponent - f.mantissa_bits}, maximum {sci(f.max)}."
    )


def _lines_for(f: Format, x: Fraction, text: str) -> tuple[list[str], str]:
    """Calculation lines that place `x` in format `f`, and a sentence saying what it becomes."""
    name = NAME[f.name]
    rounded = f.round(x)
    kind = f.classify(rounded)
    if kind in ("inf", "nan"):
        ratio = sci(x / f.max, 3 if x / f.max >= Fraction(101, 100) else 6)
        becomes = "infinity" if kind == "inf" else "NaN (the format has no infinity)"
        return (
            [f"{text} / {sci(f.max)} = {ratio}, beyond the {name} maximum"],
            f"{name}: {_words(text)} rounds above its largest finite value, {prose(f.max)}, so it becomes {becomes}.",
        )
    tiny = f.min_exponent - f.mantissa_bits
    if kind == "zero":
        steps = sci(x / Fraction(2) ** tiny)
        return (
            [
                f"2^{tiny} = {sci(Fraction(2) ** tiny)}, the smallest {name} subnormal",
                f"{text} / 2^{tiny} = {steps}, under half a step, so it rounds to 0",
            ],
            f"{name}: {_words(text)} is {steps} of its smallest subnormal step, under one half, so it becomes 0.",
        )
    assert isinstance(rounded, Fraction)
    exponent = max(floor_log2(x), f.min_exponent)
    step_exp = exponent - f.mantissa_bits
    k = rounded / Fraction(2) ** step_exp
    stored = sci(rounded, 5)
    rel = (Fraction(stored) - x) / x
    rel_text = sci(rel)
    where = "subnormal step" if kind == "subnormal" else f"spacing between 2^{exponent} and 2^{exponent + 1}"
    lines = [
        f"2^{step_exp} = {sci(Fraction(2) ** step_exp)}, the {name} {where}",
        f"{k} * 2^{step_exp} = {stored}, the stored value",
        f"({stored} - {text}) / {text} = {rel_text}, the relative error",
    ]
    word = "subnormal" if kind == "subnormal" else "normal"
    if rounded == x:
        return lines, f"{name}: stored exactly, a {word} value."
    error = (rounded - x) / x  # the prose reports the exact error, the line the one of the shown value
    pct = sci(abs(error) * 100, 2)
    return lines, f"{name}: stored as {stored}, a {word} value {pct}% {'above' if error > 0 else 'below'}."


def format_range(rng: random.Random, tables: Tables, track: str, level: str) -> Draft | None:
    del tables  # the formats are fixed by their standards, not by a device table
    quantities = [q for q in QUANTITIES if track in q.tracks and (level != "L3" or q.spans)]
    quantity = pick(rng, quantities)
    if level == "L3":
        return _scale(rng, quantity, track)
    value_text = pick(rng, quantity.values)
    x = Fraction(value_text)
    names = _formats(track, quantity) if level == "L2" else ("float16", "bfloat16")
    formats = [FORMATS[n] for n in names]
    shown = ", ".join(NAME[n] for n in names[:-1]) + f" and {NAME[names[-1]]}"
    where = pick(rng, quantity.where)
    who = pick(rng, WHO[track])
    plan = "mixed-precision training" if quantity.phase == "training" else "16-bit inference"
    scenario = pick(
        rng,
        (
            "{who} is moving a model to {plan}. A dump of {where} shows {name} of {v}.",
            "{who} reviews a move to {plan}. The value to worry about is {name} of {v}, found in {where}.",
            "During a move to {plan}, {lwho} logs {name} of {v} in {where} and asks how {shown} will hold it.",
        ),
    ).format(
        who=who,
        lwho=lower_first(who),
        plan=plan,
        where=where,
        name=article(quantity.name),
        v=_words(value_text),
        shown=shown,
    )
    calculations: list[str] = []
    outcomes: list[str] = []
    for f in formats:
        lines, sentence = _lines_for(f, x, value_text)
        calculations += lines
        outcomes.append(sentence)
    kinds = {f.name: _class(f, x) for f in formats}
    harm = ""
    if "zero" in kinds.values():
        harm = f" Where it becomes zero, {quantity.harm_zero}."
    elif {"inf", "nan"} & set(kinds.values()):
        harm = f" Where it overflows, {quantity.harm_big}."
    if level == "L1":
        question = pick(
            rng,
            (
                f"Is {_words(value_text)} a normal number, a subnormal or zero in FP16, and in BF16, or does it overflow?",
                f"What does {article(quantity.name)} of {_words(value_text)} become in FP16 and in BF16: normal, subnormal, zero or overflow?",
            ),
        )
        solution = (
            f"In FP16 it is {_describe(formats[0], x)}; in BF16 it is {_describe(formats[1], x)}.{harm} "
            "FP16 has 5 exponent bits: normal numbers from 2^-14 (about 6.1e-5) to 65,504, subnormals down to "
            "2^-24 (about 5.96e-8), and anything under half of that rounds to 0. BF16 keeps FP32's 8-bit "
            "exponent, normal from 2^-126 (about 1.18e-38) to about 3.39e38, but has only 8 significant bits."
        )
        conclusion = [f"In FP16 it is {_describe(formats[0], x)}; in BF16, {_describe(formats[1], x)}."]
        title = pick(
            rng,
            (
                "Is a {v} {n} Representable in FP16 and BF16",
                "Where a {v} {n} Lands in FP16 and BF16",
                "FP16 or BF16 Range for a {v} {n}",
            ),
        )
        mistake = (
            "Treating FP16 and BF16 as interchangeable 16-bit formats with the same range.",
            "Both are 16 bits wide and both halve the memory of FP32, so their limits are assumed to match.",
            "Values that BF16 holds easily are zeroed or overflow in FP16, and the failure shows up as "
            "NaN losses or dead features rather than as an error message.",
        )
    else:
        question = f"What exactly do {shown} store for {article(quantity.name)} of {_words(value_text)}, and with what relative error?"
        solution = (
            " ".join(outcomes)
            + harm
            + (
                " A format keeps a fixed number of significant bits, so its relative error is bounded "
                "(2^-11 for FP16, 2^-8 for BF16) only inside its normal range; below it, subnormals keep fewer "
                "bits, and beyond its maximum there is no value at all."
            )
        )
        conclusion = outcomes
        title = pick(
            rng,
            (
                "Storing a {v} {n} in {s}",
                "Rounding Error of a {v} {n} Across {s}",
                "What {s} Keep of a {v} {n}",
            ),
        )
        mistake = (
            "Quoting one relative error per format (about 0.05% for FP16, 0.4% for BF16) for every value.",
            "The unit roundoff is the number everyone remembers, and it holds for most values in a tensor.",
            "Values outside a format's normal range are off by far more, or lost, and the error budget "
            "that looked safe on paper fails on exactly the outliers that matter.",
        )
    zone_, bloom = zone(rng, level, {"L1": ("recall", "fluency"), "L2": ("fluency", "analyze")}[level])
    return Draft(
        track=track,
        competency_area="precision",
        topic="mixed-precision-training" if quantity.phase == "training" else "quantization-fundamentals",
        level=level,
        zone=zone_,
        bloom_level=bloom,
        phase=quantity.phase,
        title=title.format(v=_words(value_text), n=quantity.name.title(), s=shown),
        scenario=scenario,
        question=question,
        solution=solution,
        mistake=mistake,
        assumptions=[_range_line(f) for f in formats] + ["Round to nearest, ties to even."],
        calculations=calculations,
        conclusion=conclusion,
        family="format-range",
        params={"quantity": quantity.name, "value": value_text, "formats": ",".join(names)},
        minutes=2 if level == "L1" else 4,
        verify=[_claim(f, x, value_text) for f in formats],
    )


def _claim(f: Format, x: Fraction, text: str) -> dict[str, Any]:
    """The `verify:` claim that re-checks what the question says `x` becomes in `f`."""
    rounded = f.round(x)
    kind = f.classify(rounded)
    name = NAME[f.name]
    if kind in ("inf", "nan"):
        return {
            "kind": "overflow",
            "claim": f"{text} becomes {'NaN' if kind == 'nan' else kind} in {name}.",
            "dtype": f.name,
            "value": text,
            "expect": kind,
        }
    if kind == "zero":
        return {
            "kind": "underflow",
            "claim": f"{text} rounds to zero in {name}.",
            "dtype": f.name,
            "value": text,
            "expect": "zero",
        }
    assert isinstance(rounded, Fraction)
    return {
        "kind": "cast",
        "claim": f"{text} is stored as {sci(rounded, 5)} in {name}.",
        "dtype": f.name,
        "value": text,
        "expect": exact(rounded),
    }


def _scale(rng: random.Random, quantity: Quantity, track: str) -> Draft:
    """L3: the power-of-two scale that puts a tensor's largest value at or under half the maximum,
    and what it does to the tensor's smallest values that matter."""
    small_text, large_text = pick(rng, quantity.spans)
    small, large = Fraction(small_text), Fraction(large_text)
    names = ["float16"] + ([quantity.fp8] if quantity.fp8 and track in ("cloud", "global") else [])
    f = FORMATS[pick(rng, names)]
    name = NAME[f.name]
    target = f.max / 2
    k = floor_log2(target / large)  # the largest k with large * 2^k <= target
    scale = Fraction(2) ** k
    tiny = f.min_exponent - f.mantissa_bits
    low = small * scale
    low_kind = f.classify(f.round(low))
    span = large / small
    normal_span = f.max / f.smallest_normal
    calculations = [
        f"{large_text} * 2^{k} = {sci(large * scale)}, at most {sci(target)}, half the {name} maximum",
        f"{small_text} * 2^{k} = {sci(low)}, the smallest values after scaling",
        f"2^{f.min_exponent} = {sci(f.smallest_normal)}, the smallest normal {name} value",
        f"{large_text} / {small_text} = {sci(span)}, the span of the tensor",
        f"{sci(f.max)} / 2^{f.min_exponent} = {sci(normal_span)}, the span of {name}'s normal range",
    ]
    verdict = {
        "normal": f"A scale of 2^{k} puts the whole tensor in {name}'s normal range with a 2x margin at the top.",
        "subnormal": (
            f"With a scale of 2^{k} the smallest values land among {name}'s subnormals: nonzero, but with "
            f"fewer significant bits, so their relative error grows."
        ),
        "zero": (
            f"No power-of-two scale saves both ends: with 2^{k} the largest values fit, but the smallest ones "
            f"fall under half of 2^{tiny} and become zero."
        ),
    }[low_kind]
    remedy = {
        "float16": "BF16, whose 8-bit exponent spans the whole tensor, or an FP32 copy of the sensitive part",
        "float8_e4m3fn": "finer-grained scales (per channel, or per block of 32 elements as in MXFP8), or BF16",
        "float8_e5m2": "finer-grained scales (per channel, or per block of 32 elements as in MXFP8), or BF16",
    }[f.name]
    extra = ""
    if low_kind != "normal":
        extra = f" When the span of the tensor exceeds the format's, the fix is {remedy}."
    if quantity.name == "weight gradient" and f.name == "float16":
        extra += (
            " For gradients this scale is a loss scale: a dynamic scaler such as PyTorch's GradScaler finds it by "
            "halving on overflow and growing after a run of clean steps."
        )
    who = pick(rng, WHO[track])
    where = pick(rng, quantity.where)
    scenario = pick(
        rng,
        (
            "{who} wants to store {name}s in {fmt}. In {where}, magnitudes run from {s} to {l}, and values near "
            "{s} still matter. The plan is one power-of-two scale for the whole tensor, with a 2x margin below "
            "the format's maximum.",
            "{who} is adding a per-tensor scale before casting {name}s to {fmt}. Profiling {where} shows "
            "magnitudes between {s} and {l}; the smallest still carry signal. The scale must be a power of two "
            "and keep a 2x margin under the maximum.",
        ),
    ).format(who=who, name=quantity.name, fmt=name, where=where, s=_words(small_text), l=_words(large_text))
    question = pick(
        rng,
        (
            f"Which power-of-two scale fits the largest {quantity.name}s in {name}, and what happens to the smallest?",
            f"What scale would you choose for {name}, and does the tensor's range fit the format's?",
        ),
    )
    solution = (
        f"{verdict} The largest power of two that keeps {_words(large_text)} at or below {sci(target)} is 2^{k}; it maps "
        f"{_words(small_text)} to {sci(low)}, against a smallest normal of {sci(f.smallest_normal)}. The tensor spans a "
        f"factor of {sci(span)}, the normal range of {name} a factor of {sci(normal_span)}: a scale moves the "
        f"window, it cannot widen it.{extra}"
    )
    verify: list[dict[str, Any]] = [
        {
            "kind": "scaled_product",
            "claim": f"The largest value, {large_text}, scaled by 2^{k} is a normal {name} number.",
            "dtype": f.name,
            "value": large_text,
            "scale": f"2^{k}",
            "expect": "normal",
        },
        {
            "kind": "scaled_product",
            "claim": f"The smallest value, {small_text}, scaled by 2^{k} is {low_kind} in {name}.",
            "dtype": f.name,
            "value": small_text,
            "scale": f"2^{k}",
            "expect": low_kind,
        },
        {
            "kind": "format_constant",
            "claim": f"{name}'s smallest normal value is 2^{f.min_exponent}.",
            "dtype": f.name,
            "field": "smallest_normal",
            "expect": f"2^{f.min_exponent}",
        },
    ]
    title = pick(
        rng,
        (
            "A Power-of-Two Scale for {n}s From {s} to {l} in {f}",
            "Do {n}s Spanning {s} to {l} Fit {f} With One Scale",
            "Per-Tensor {f} Scale for {n}s Up to {l}",
        ),
    ).format(n=quantity.name.title(), s=_words(small_text), l=_words(large_text), f=name)
    zone_, bloom = zone(rng, "L3", ("analyze", "diagnosis"))
    return Draft(
        track=track,
        competency_area="precision",
        topic="mixed-precision-training" if quantity.phase == "training" else "quantization-fundamentals",
        level="L3",
        zone=zone_,
        bloom_level=bloom,
        phase=quantity.phase,
        title=title,
        scenario=scenario,
        question=question,
        solution=solution,
        mistake=_scale_mistake(low_kind, name),
        assumptions=[
            _range_line(f),
            f"One power-of-two scale per tensor, largest value at most half of {sci(f.max)}.",
        ],
        calculations=calculations,
        conclusion=[verdict],
        family="format-range",
        params={"quantity": quantity.name, "small": small_text, "large": large_text, "format": f.name},
        minutes=6,
        verify=verify,
    )


def _scale_mistake(low_kind: str, name: str) -> tuple[str, str, str]:
    """The wrong path this draw punishes (issue 26: one fixed text, "a scale cannot make every tensor
    fit", contradicted the drills whose tensor does fit)."""
    if low_kind == "normal":
        return (
            f"Casting to {name} with no scale, or with a scale that puts the largest value right at the maximum.",
            "The tensor's span fits the format, so any scale seems to do.",
            f"Without a scale the smallest values round away; with no margin, the next larger batch overflows "
            f"{name}'s maximum and the step produces inf or NaN.",
        )
    return (
        "Believing a per-tensor scale can make any tensor fit, so the only question is how to pick it.",
        "Scaling does fix tensors that are merely too large or too small as a whole, which is the common case.",
        "This tensor's own span exceeds the format's normal range, so its smallest values lose precision or "
        "vanish whatever the scale, and the loss looks like a tuning problem instead of a format limit.",
    )


CELLS = frozenset((t, lv) for t in ("cloud", "edge", "mobile", "tinyml", "global") for lv in LEVELS)
