"""The shapes of `verify:` claims: machine-readable numeric-format facts a question states.

Shapes follow research/fp16-gpu.md §2 (kinds K1–K10). Numbers are strings parsed exactly by
qbank.napkin (`"1e-7"`, `"65,536"`, `"2^-24"`), never YAML floats: YAML 1.1 and 1.2 disagree on
`1e-7`, and a float cannot hold `0.1` exactly anyway. This module imports no numpy, so the model
stays cheap to load; qbank/numerics/verify.py runs the claims.

`approx: true` makes a stated value use the `≈` tolerance of `qbank explain arithmetic`; otherwise a
stated value must equal the exact result rounded to its stated digits (never truncated), and a cast
stated as its own input must be exact.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

Dtype = Literal["float16", "bfloat16", "float32", "float8_e4m3fn", "float8_e5m2"]
Number = Annotated[
    str, Field(min_length=1, max_length=200, description='An exact number as text: "1e-7", "2^-24".')
]
Outcome = Annotated[
    str, Field(min_length=1, max_length=200, description='A number, or "inf", "-inf", "nan".')
]
ValueClass = Literal["zero", "subnormal", "normal", "inf", "nan"]


class _Claim(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True, defer_build=True)

    claim: Annotated[str, Field(min_length=1, description="The sentence of the question this checks.")]


class FormatConstant(_Claim):
    """K1: a constant of the format, e.g. FP16's smallest normal is 2^-14."""

    kind: Literal["format_constant"]
    dtype: Dtype
    field: Literal[
        "max",
        "smallest_normal",
        "smallest_subnormal",
        "eps",
        "unit_roundoff",
        "mantissa_bits",
        "precision_bits",
        "exponent_bits",
        "max_exact_int",
    ]
    expect: Number
    approx: bool = False


class Representable(_Claim):
    """K2: the class of a value after rounding to the format, and whether it is exact."""

    kind: Literal["representable"]
    dtype: Dtype
    value: Number
    expect: ValueClass
    exact: bool | None = None


class Cast(_Claim):
    """K3: the value after rounding to the format (round to nearest even, exact input)."""

    kind: Literal["cast"]
    dtype: Dtype
    value: Number
    expect: Outcome
    approx: bool = False
    rel_error: Annotated[Number | None, Field(description='(cast - value) / value, e.g. "+19%".')] = None


class Overflow(_Claim):
    """K4: what a too-large value becomes."""

    kind: Literal["overflow"]
    dtype: Dtype
    value: Number
    expect: Literal["inf", "nan", "saturate", "finite"]


class Underflow(_Claim):
    """K5: whether a tiny value rounds to zero."""

    kind: Literal["underflow"]
    dtype: Dtype
    value: Number
    expect: Literal["zero", "nonzero"]


class ScaledProduct(_Claim):
    """K6: a gradient times a loss scale, rounded once (scale_then_cast) or after a first rounding."""

    kind: Literal["scaled_product"]
    dtype: Dtype
    value: Number
    scale: Number
    order: Literal["scale_then_cast", "cast_then_scale"] = "scale_then_cast"
    expect: ValueClass
    expect_value: Outcome | None = None
    approx: bool = False


class RoundTrip(_Claim):
    """K7: the error of storing a value in the format: |cast - value| and that over |value|."""

    kind: Literal["round_trip"]
    dtype: Dtype
    value: Number
    abs_error: Number | None = None
    rel_error: Number | None = None
    approx: bool = True


class Arithmetic(_Claim):
    """K8: an expression evaluated in the format, each operation rounded (eager kernels) or in fp32
    with one rounding at the end (fused kernels)."""

    kind: Literal["arithmetic"]
    dtype: Dtype
    expr: Annotated[str, Field(min_length=1, max_length=200, description='Numbers and + - * /: "2048 + 1".')]
    expect: Outcome
    rounding: Literal["each_op", "fp32_then_cast"] = "each_op"
    approx: bool = False


class Accumulation(_Claim):
    """K9: n copies of an addend summed in the format: sequentially (a plain loop) or pairwise."""

    kind: Literal["accumulation"]
    dtype: Dtype
    addend: Number
    n: Annotated[int, Field(ge=1, le=10_000_000)]
    order: Literal["sequential", "pairwise"] = "sequential"
    expect: Outcome
    stalls: bool | None = Field(default=None, description="Whether the sum stops growing before n adds.")
    approx: bool = False


class LossScaler(_Claim):
    """K10: the scale of PyTorch's GradScaler over a run with overflows at given steps (§2.4)."""

    kind: Literal["loss_scaler"]
    impl: Literal["torch_gradscaler"] = "torch_gradscaler"
    init_scale: Number = "65536"
    growth_factor: Number = "2"
    backoff_factor: Number = "0.5"
    growth_interval: Annotated[int, Field(ge=1, le=1_000_000)] = 2000
    overflow_steps: list[Annotated[int, Field(ge=1)]] = []
    steps: Annotated[int, Field(ge=1, le=1_000_000)]
    expect_scale: Annotated[
        dict[Annotated[str, Field(pattern=r"^[1-9][0-9]{0,6}$")], Number] | None,
        Field(description='The scale after a step: {3: "8192"} (YAML keys are read as text).'),
    ] = None
    expect_skipped: Annotated[int | None, Field(ge=0)] = None


DeviceScope = Annotated[
    str,
    Field(
        pattern=r"^(any|(>=|<=)?sm_[0-9]{2,3}|sm_[0-9]{2,3}\.\.sm_[0-9]{2,3}|V100|T4|A100|A10|L4|L40S|H100|H200|B200)$",
        description="Which GPUs the claim is about: sm_70, >=sm_80, sm_70..sm_75, V100, H100, any.",
    ),
]


class _DeviceClaim(_Claim):
    device_scope: DeviceScope
    modality: Literal["asserts", "may"] = Field(
        default="asserts", description="asserts: every device in scope does this; may: some path can."
    )


class DeviceFtz(_DeviceClaim):
    """A GPU flushes subnormals to zero on an op path, or keeps them; resolved against recorded
    probe evidence (`qbank gpu probe`), never computed on the CPU."""

    kind: Literal["device_ftz"]
    dtype: Literal["float16", "bfloat16", "float32"]
    op: Literal["add", "mul", "exp2", "matmul"]
    op_path: Literal["ptx", "torch_eager", "torch_compile", "tensor_core"]
    expect: Literal["flush", "preserve"]


class DeviceAccumulateDtype(_DeviceClaim):
    """The accumulator a GPU matmul on `dtype` inputs uses; resolved against probe evidence."""

    kind: Literal["device_accumulate_dtype"]
    dtype: Literal["float16"]
    op_path: Literal["tensor_core"] = "tensor_core"
    expect: Literal["float32", "float16"]


DEVICE_KINDS = frozenset({"device_ftz", "device_accumulate_dtype"})

Claim = Annotated[
    FormatConstant
    | Representable
    | Cast
    | Overflow
    | Underflow
    | ScaledProduct
    | RoundTrip
    | Arithmetic
    | Accumulation
    | LossScaler
    | DeviceFtz
    | DeviceAccumulateDtype,
    Field(discriminator="kind"),
]
