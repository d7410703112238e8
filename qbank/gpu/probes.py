"""The probe registry: what each probe runs, its controls, and how its result becomes a verdict.

A probe compares bits read back from the backend with the CPU reference (numpy, ml_dtypes), case
by case. Every family has controls (research/fp16-gpu.md §4.1):
  normal    a normal-range case that must match the reference exactly;
  ftz       a positive control: the same cases through an explicit `.ftz` PTX instruction must
            flush, which proves a flush would be seen;
  sentinel  the output buffer starts as a NaN pattern the operation cannot produce, or a fresh
            tensor; a sentinel left in place means the kernel never ran.
A failed control makes the verdict `inconclusive`, never `flush` (a broken build once "showed" an
H100 failing every tensor-core test, research §3.2).

Verdicts: ftz probes `preserve`, `flush` or `mixed`; the accumulate probe the accumulator dtype
(`float32`, `float16`); the fp8 cast probe `nan` or `saturate`.
"""

from __future__ import annotations

import ast
import hashlib
import inspect
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import ml_dtypes
import numpy as np

from qbank.gpu import backends
from qbank.gpu.backends import Unavailable, reference_binary, reference_matmul, to_bits
from qbank.numerics.verify import flushes_subnormals


@dataclass(frozen=True)
class Probe:
    id: str
    kind: str  # the claim kind it answers: device_ftz, device_accumulate_dtype, device_fp8_overflow
    dtype: str
    op: str
    op_path: str  # ptx, torch_eager, torch_compile, tensor_core
    run: Callable[[Any, Probe], dict[str, Any]]
    doc: str
    # Bump when a probe's cases or logic change: evidence from another version is stale.
    version: int = 1

    @property
    def sha256(self) -> str:
        """A fingerprint of the probe's code and cases, recorded for reviewers (`ast.dump` differs
        between Python versions, so freshness goes by `version`, not by this)."""
        code = ast.dump(ast.parse(textwrap.dedent(inspect.getsource(self.run))))
        data = (self.id, self.kind, self.dtype, self.op, self.op_path, CASES.get((self.dtype, self.op)))
        extra = (MATMUL.get(self.dtype), FP8_VALUES) if self.op in ("matmul", "cast") else ()
        return hashlib.sha256((code + repr(data) + repr(extra)).encode()).hexdigest()


REGISTRY: dict[str, Probe] = {}


def probe(pid: str, kind: str, dtype: str, op: str, op_path: str, doc: str) -> Callable[..., Any]:
    def register(run: Callable[[Any, Probe], dict[str, Any]]) -> Callable[[Any, Probe], dict[str, Any]]:
        REGISTRY[pid] = Probe(pid, kind, dtype, op, op_path, run, doc)
        return run

    return register


# --- cases ------------------------------------------------------------------------------------
# (a, b, what it tests). Subnormal in, subnormal out; normal in, subnormal out; a normal control.
CASES: dict[tuple[str, str], list[tuple[int, int, str]]] = {
    ("float16", "add"): [
        (0x0001, 0x0001, "subnormal"),
        (0x0400, 0x8001, "subnormal"),
        (0x3C00, 0x3C00, "normal"),
    ],
    ("float16", "mul"): [
        (0x0001, 0x4400, "subnormal"),
        (0x0800, 0x2C00, "subnormal"),
        (0x3E00, 0x4000, "normal"),
    ],
    ("bfloat16", "add"): [
        (0x0001, 0x0001, "subnormal"),
        (0x0080, 0x8001, "subnormal"),
        (0x3F80, 0x3F80, "normal"),
    ],
    ("bfloat16", "mul"): [
        (0x0001, 0x4080, "subnormal"),
        (0x2000, 0x1F80, "subnormal"),
        (0x3FC0, 0x4000, "normal"),
    ],
    ("float32", "add"): [
        (0x00000001, 0x00000001, "subnormal"),
        (0x00800000, 0x80000001, "subnormal"),
        (0x3F800000, 0x3F800000, "normal"),
    ],
    ("float32", "mul"): [
        (0x00000001, 0x40800000, "subnormal"),
        (0x20000000, 0x1E800000, "subnormal"),
        (0x3FC00000, 0x40000000, "normal"),
    ],
    # exp2(-140) = 2^-140 and exp2(-133) = 2^-133 are fp32 subnormals; exp2(3) = 8. Inductor compiles
    # libdevice with flush-to-zero (pytorch/pytorch#125557), so this is where torch.compile may flush.
    ("float32", "exp2"): [
        (0xC30C0000, 0, "subnormal"),
        (0xC3050000, 0, "subnormal"),
        (0x40400000, 0, "normal"),
    ],
}


def _hex(bits: int, dtype: str) -> str:
    return f"0x{bits:0{8 if dtype == 'float32' else 4}x}"


def classify(out: int, ref: int, flushed: int) -> str:
    """ieee (the IEEE reference bits), flushed (what PTX `.ftz` gives: subnormal inputs and results
    as signed zeros), or mismatch (neither: a wrong result, not a flush)."""
    if out == ref:
        return "ieee"
    return "flushed" if out == flushed else "mismatch"


def _cases(dtype: str, op: str, out: list[int]) -> list[dict[str, Any]]:
    a, b = [c[0] for c in CASES[dtype, op]], [c[1] for c in CASES[dtype, op]]
    ref, flushed = reference_binary(dtype, op, a, b), reference_binary(dtype, op, a, b, ftz=True)
    return [
        {
            "op": op,
            "in": [_hex(x, dtype), _hex(y, dtype)],
            "out": _hex(o, dtype),
            "ref": _hex(r, dtype),
            "ref_ftz": _hex(f, dtype),
            "tests": what,
            "class": classify(o, r, f),
        }
        for (x, y, what), o, r, f in zip(CASES[dtype, op], out, ref, flushed, strict=True)
    ]


def _ftz_verdict(cases: list[dict[str, Any]], controls: dict[str, str]) -> str:
    if any(result != "pass" for result in controls.values()):
        return "inconclusive"
    classes = {c["class"] for c in cases if c["tests"] == "subnormal"}
    if classes == {"ieee"}:
        return "preserve"
    if classes == {"flushed"}:
        return "flush"
    return "mixed"


def _controls(
    cases: list[dict[str, Any]], positive: list[dict[str, Any]], sentinel_ok: bool
) -> dict[str, str]:
    normal = all(c["class"] == "ieee" for c in cases if c["tests"] == "normal")
    flushed = all(c["class"] == "flushed" for c in positive if c["tests"] == "subnormal")
    return {
        "normal": "pass" if normal else "fail",
        "ftz_positive": "pass" if flushed and positive else "fail",
        "sentinel": "pass" if sentinel_ok else "fail",
    }


def _positive_control(backend: Any, dtype: str, op: str) -> tuple[list[dict[str, Any]], str]:
    """The same cases through an explicit `.ftz` instruction: they must flush. (exp2 has no
    correctly rounded PTX form; its family uses the multiply cases.)"""
    op = op if op in ("add", "mul") else "mul"
    a, b = [c[0] for c in CASES[dtype, op]], [c[1] for c in CASES[dtype, op]]
    out, ptx = backend.ptx_binary(dtype, op, True, a, b)
    return _cases(dtype, op, out), ptx


def _ptx_probe(backend: Any, p: Probe) -> dict[str, Any]:
    a, b = [c[0] for c in CASES[p.dtype, p.op]], [c[1] for c in CASES[p.dtype, p.op]]
    out, ptx = backend.ptx_binary(p.dtype, p.op, False, a, b)
    cases = _cases(p.dtype, p.op, out)
    positive, ftz_ptx = _positive_control(backend, p.dtype, p.op)
    sentinel_ok = all(o != _sentinel(p.dtype) for o in out)
    controls = _controls(cases, positive, sentinel_ok)
    return {
        "cases": cases,
        "control_cases": positive,
        "controls": controls,
        "verdict": _ftz_verdict(cases, controls),
        "settings": {"ptx": ptx, "ptx_has_ftz": ".ftz" in ptx, "control_ptx_has_ftz": ".ftz" in ftz_ptx},
    }


def _torch_probe(backend: Any, p: Probe) -> dict[str, Any]:
    a, b = [c[0] for c in CASES[p.dtype, p.op]], [c[1] for c in CASES[p.dtype, p.op]]
    out = backend.torch_binary(p.dtype, p.op, p.op_path == "torch_compile", a, b)
    cases = _cases(p.dtype, p.op, out)
    positive, _ = _positive_control(backend, p.dtype, p.op)
    controls = _controls(cases, positive, sentinel_ok=True)  # a fresh tensor: the normal case proves the run
    return {
        "cases": cases,
        "control_cases": positive,
        "controls": controls,
        "verdict": _ftz_verdict(cases, controls),
    }


def _sentinel(dtype: str) -> int:
    from qbank.gpu.cuda import SENTINEL  # imports no GPU library

    return SENTINEL[dtype]


for _dtype in ("float16", "bfloat16", "float32"):
    for _op in ("add", "mul"):
        probe(
            f"ftz.{_dtype}.{_op}.ptx",
            "device_ftz",
            _dtype,
            _op,
            "ptx",
            f"{_op}.{_dtype} on CUDA cores from explicit PTX without .ftz, against the .ftz form",
        )(_ptx_probe)
    for _path in ("torch_eager", "torch_compile"):
        for _op in ("mul", "exp2") if _dtype == "float32" else ("mul",):
            probe(
                f"ftz.{_dtype}.{_op}.{_path}",
                "device_ftz",
                _dtype,
                _op,
                _path,
                f"torch {'eager' if _path == 'torch_eager' else 'torch.compile (Inductor)'} {_op} in {_dtype}",
            )(_torch_probe)


# --- tensor cores -------------------------------------------------------------------------------

MATMUL = {  # dtype: (subnormal s, a normal x and y whose product is subnormal, the control value)
    "float16": (2.0**-24, 2.0**-12, 2.0**-10, 1.5),
    "bfloat16": (2.0**-133, 2.0**-63, 2.0**-64, 1.5),
}


def _matmul_probe(backend: Any, p: Probe) -> dict[str, Any]:
    """A (16x16) @ B, B = diag(4, y, 4, ...): C[0,0] = 4s (subnormal in, out), C[1,1] = x*y
    (normal in, subnormal out), C[2,2] = 4 * 1.5 (control). 16x16 so cuBLAS picks tensor cores."""
    s, x, y, control = MATMUL[p.dtype]
    a, b = np.zeros((16, 16)), np.diag([4.0] * 16)
    a[0, 0], a[1, 1], a[2, 2], b[1, 1] = s, x, control, y
    dtype = backends.DTYPES[p.dtype]
    a, b = a.astype(dtype), b.astype(dtype)
    out, kernels = backend.matmul(p.dtype, a, b, True)
    ref = reference_matmul(p.dtype, a, b)
    flushed = reference_matmul(p.dtype, *(_flush_array(m, p.dtype) for m in (a, b)))
    picks = [(0, 0, "subnormal"), (1, 1, "subnormal"), (2, 2, "normal")]
    cases = []
    for i, j, what in picks:
        o, r, f = (_bit(m[i, j], p.dtype) for m in (out, ref, flushed))
        if what == "subnormal" and i == 1:
            f = _bit(0.0, p.dtype)  # a normal product flushed as a result (.ftz flushes results too)
        item = {"op": "matmul", "at": [i, j], "out": _hex(o, p.dtype), "ref": _hex(r, p.dtype)}
        cases.append(item | {"ref_ftz": _hex(f, p.dtype), "tests": what, "class": classify(o, r, f)})
    positive, _ = _positive_control(backend, p.dtype, "mul")
    controls = _controls(cases, positive, sentinel_ok=True)
    controls["other_cells"] = "pass" if _others_match(out, ref, picks) else "fail"  # every other cell is 0
    return {
        "cases": cases,
        "control_cases": positive,
        "controls": controls,
        "verdict": _ftz_verdict(cases, controls),
        "settings": {"kernels": kernels, "shape": [16, 16, 16]},
    }


def _bit(value: Any, dtype: str) -> int:
    return to_bits(np.atleast_1d(np.asarray(value, dtype=backends.DTYPES[dtype])), dtype)[0]


def _flush_array(m: Any, dtype: str) -> Any:
    bits = to_bits(m.ravel(), dtype)
    return backends.to_values(backends._flush(bits, dtype), dtype).reshape(m.shape)


def _others_match(out: Any, ref: Any, picks: list[tuple[int, int, str]]) -> bool:
    mask = np.ones(out.shape, dtype=bool)
    for i, j, _ in picks:
        mask[i, j] = False
    return bool(np.array_equal(np.asarray(out, np.float32)[mask], np.asarray(ref, np.float32)[mask]))


for _dtype in MATMUL:
    probe(
        f"ftz.{_dtype}.matmul.tensor_core",
        "device_ftz",
        _dtype,
        "matmul",
        "tensor_core",
        f"torch.matmul in {_dtype} (cuBLAS, tensor cores) with subnormal inputs and outputs",
    )(_matmul_probe)


def _accumulate_probe(backend: Any, p: Probe) -> dict[str, Any]:
    """Row 0 of A holds 32 x 2048 then 32 x -2048 (K = 64), B is ones: the exact dot product is 0.
    Partial sums in float16 pass 65504 and become inf (then inf or NaN); in float32 they stay
    exact. Run with reduced-precision reduction on and off. Control: row 1 sums 1..64 = 2080,
    exact in both accumulators."""
    a = np.zeros((16, 64))
    a[0, :32], a[0, 32:], a[1] = 2048.0, -2048.0, np.arange(1, 65)
    b = np.ones((64, 16))
    half = a.astype(np.float16), b.astype(np.float16)
    expect = {
        acc: repr(float(reference_matmul("float16", *half, accumulate=acc)[0, 0]))
        for acc in ("float32", "float16")
    }
    runs, kernels = {}, []
    for reduced in (True, False):
        out, names = backend.matmul("float16", *half, reduced)
        runs[f"reduced_precision_reduction={reduced}"] = {
            "c00": repr(float(out[0, 0])),
            "c10": repr(float(out[1, 0])),
        }
        kernels += names
    seen = {_accumulator(r["c00"], expect) for r in runs.values()}
    controls = {
        "normal": "pass" if all(r["c10"] == "2080.0" for r in runs.values()) else "fail",
        "detects": "pass"
        if expect["float32"] != expect["float16"]
        else "fail",  # the test can tell them apart
    }
    verdict = seen.pop() if len(seen) == 1 and "other" not in seen else "mixed"
    return {
        "cases": [{"op": "matmul", "runs": runs, "ref": expect}],
        "controls": controls,
        "verdict": "inconclusive" if "fail" in controls.values() else verdict,
        "settings": {"kernels": sorted(set(kernels)), "shape": [16, 64, 16]},
    }


def _accumulator(value: str, expect: dict[str, str]) -> str:
    """Numbers are kept as repr() text: JSON has no inf or NaN."""
    if value == expect["float32"]:
        return "float32"
    if value == expect["float16"] or not np.isfinite(float(value)):
        return "float16"
    return "other"


probe(
    "acc.float16.matmul.tensor_core",
    "device_accumulate_dtype",
    "float16",
    "matmul",
    "tensor_core",
    "the accumulator of torch.matmul on float16 inputs: float32 or float16",
)(_accumulate_probe)


FP8_VALUES = [448.0, 464.0, 500.0, 1e6, float("inf"), 240.0]  # 448 is E4M3FN's largest finite value


def _fp8_probe(backend: Any, p: Probe) -> dict[str, Any]:
    """float32 -> float8_e4m3fn past the largest finite value (448): NaN (0x7f) or saturate (0x7e)."""
    out = backend.cast_fp8(FP8_VALUES)
    ref = [int(v) for v in np.array(FP8_VALUES, np.float32).astype(ml_dtypes.float8_e4m3fn).view(np.uint8)]
    cases = [
        {"op": "cast", "in": repr(v), "out": f"0x{o:02x}", "ref_ml_dtypes": f"0x{r:02x}"}
        for v, o, r in zip(FP8_VALUES, out, ref, strict=True)
    ]
    over = {o & 0x7F for v, o in zip(FP8_VALUES, out, strict=True) if v > 464}
    controls = {"normal": "pass" if out[0] == 0x7E and out[-1] == ref[-1] else "fail"}  # 448 and 240 exact
    verdict = {frozenset({0x7F}): "nan", frozenset({0x7E}): "saturate"}.get(frozenset(over), "mixed")
    return {
        "cases": cases,
        "controls": controls,
        "verdict": "inconclusive" if "fail" in controls.values() else verdict,
    }


probe(
    "overflow.float8_e4m3fn.cast.torch",
    "device_fp8_overflow",
    "float8_e4m3fn",
    "cast",
    "torch_eager",
    "float32 -> float8_e4m3fn cast of values past 448 in torch: NaN or saturate",
)(_fp8_probe)


def run(backend: Any, p: Probe) -> dict[str, Any]:
    """One probe run; Unavailable when the backend cannot run it here."""
    if flushes_subnormals():  # the CPU reference itself would be wrong (research P13)
        raise Unavailable("this process flushes subnormals to zero (FTZ/DAZ)")
    return p.run(backend, p)
