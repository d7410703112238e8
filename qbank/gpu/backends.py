"""Where probes run: the CPU reference (numpy, ml_dtypes) or a CUDA GPU (CuPy for PTX, PyTorch).

Every operation takes and returns raw bit patterns (ints), never decimal strings, so that a
flushed subnormal cannot hide behind printing (research/fp16-gpu.md §4.1).

The CPU backend computes what IEEE 754 says, and emulates PTX `.ftz` (flush subnormal inputs and
results to a sign-preserving zero), so the whole harness, controls included, runs in tests on a
machine with no GPU. Its records say `backend: numpy` and device class `cpu`, which no device
claim's scope ever matches.
"""

from __future__ import annotations

import os
import platform
import sys
from typing import Any

import ml_dtypes
import numpy as np

DTYPES: dict[str, Any] = {"float16": np.float16, "bfloat16": ml_dtypes.bfloat16, "float32": np.float32}
UINT = {"float16": np.uint16, "bfloat16": np.uint16, "float32": np.uint32}


class Unavailable(Exception):
    """This backend cannot run that operation here (no torch, no GPU)."""


def to_values(bits: list[int], dtype: str) -> Any:
    return np.array(bits, dtype=UINT[dtype]).view(DTYPES[dtype])


def to_bits(values: Any, dtype: str) -> list[int]:
    return [int(b) for b in np.asarray(values, dtype=DTYPES[dtype]).view(UINT[dtype])]


def is_subnormal(bits: int, dtype: str) -> bool:
    value = to_values([bits], dtype)[0].astype(np.float64)
    smallest = float(ml_dtypes.finfo(DTYPES[dtype]).smallest_normal)  # type: ignore[no-untyped-call]
    return bool(value != 0 and abs(value) < smallest)


def _flush(bits: list[int], dtype: str) -> list[int]:
    """PTX `.ftz`: subnormals become zero of the same sign (PTX ISA §9.7.4.1)."""
    sign = 1 << (8 * np.dtype(UINT[dtype]).itemsize - 1)
    return [b & sign if is_subnormal(b, dtype) else b for b in bits]


def reference_binary(dtype: str, op: str, a: list[int], b: list[int], ftz: bool = False) -> list[int]:
    """IEEE round-to-nearest-even `a op b` (`exp2` takes `a` alone) in `dtype`; with `ftz`, as PTX
    `.ftz` computes it.

    float16 and float32 are numpy's correctly rounded arithmetic; bfloat16 is ml_dtypes', which
    computes in float32 and rounds once (exact for the products and sums the probes use).
    """
    if ftz:
        a, b = _flush(a, dtype), _flush(b, dtype)
    x, y = to_values(a, dtype), to_values(b, dtype)
    with np.errstate(all="ignore"):
        result = {"add": lambda: x + y, "mul": lambda: x * y, "exp2": lambda: np.exp2(x)}[op]()
        out = to_bits(result, dtype)
    return _flush(out, dtype) if ftz else out


def reference_matmul(dtype: str, a: Any, b: Any, accumulate: str = "float32") -> Any:
    """A @ B with exact products, summed in `accumulate` in k order, rounded to `dtype` once."""
    acc = np.float32 if accumulate == "float32" else DTYPES[accumulate]
    a64, b64 = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    out = np.zeros((a64.shape[0], b64.shape[1]), dtype=acc)
    with np.errstate(all="ignore"):
        for k in range(a64.shape[1]):
            out = (out + np.outer(a64[:, k], b64[k, :]).astype(acc)).astype(acc)
    return out.astype(np.float32).astype(DTYPES[dtype])


class CpuBackend:
    """The numpy/ml_dtypes reference: what IEEE 754 (and PTX `.ftz`) define."""

    name = "numpy"

    def info(self) -> dict[str, Any]:
        return {
            "backend": self.name,
            "device": {"name": f"CPU reference ({platform.machine()})", "cc": None, "device_class": "cpu"},
            "libs": _libs(),
            "settings": {},
        }

    def ptx_binary(self, dtype: str, op: str, ftz: bool, a: list[int], b: list[int]) -> tuple[list[int], str]:
        return reference_binary(dtype, op, a, b, ftz), ""

    def torch_binary(self, dtype: str, op: str, compiled: bool, a: list[int], b: list[int]) -> list[int]:
        raise Unavailable("the numpy reference backend has no torch")

    def matmul(self, dtype: str, a: Any, b: Any, reduced: bool) -> tuple[Any, list[str]]:
        return reference_matmul(dtype, a, b), []

    def cast_fp8(self, values: list[float]) -> list[int]:
        return [
            int(v) for v in np.array(values, dtype=np.float32).astype(ml_dtypes.float8_e4m3fn).view(np.uint8)
        ]


def _libs() -> dict[str, str | None]:
    libs: dict[str, str | None] = {
        "python": platform.python_version(),
        "numpy": np.__version__,
        "ml_dtypes": ml_dtypes.__version__,
    }
    for name in ("torch", "cupy"):
        module = sys.modules.get(name)
        libs[name] = getattr(module, "__version__", None) if module else None
    return libs


def device_class(major: int, minor: int) -> str:
    """sm_XY from a compute capability: 7.0 V100, 8.0 A100, 8.9 Ada, 9.0 H100/H200, 10.0 B200."""
    return f"sm_{major}{minor}"


def environment_settings() -> dict[str, str | None]:
    """Environment variables that change GPU numerics (NVIDIA_TF32_OVERRIDE turns TF32 on or off
    under every library)."""
    return {name: os.environ.get(name) for name in ("NVIDIA_TF32_OVERRIDE", "CUBLAS_WORKSPACE_CONFIG")}
