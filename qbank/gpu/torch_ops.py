"""PyTorch on one device, bit-exact: the torch half of the CUDA backend, and the torch-on-CPU
backend, which runs every torch probe on a machine with no GPU.

Values go in and out as raw bit patterns through integer views, never through decimal text
(research/fp16-gpu.md §4.1).
"""

from __future__ import annotations

import platform
from typing import Any

import numpy as np

from qbank.gpu.backends import DTYPES, UINT, Unavailable, _libs, reference_binary

_SIGNED = {np.uint16: np.int16, np.uint32: np.int32}


class TorchOps:
    """The torch operations the probes use, on `self.device` ("cuda" or "cpu")."""

    torch: Any
    device: str

    def _sync(self) -> None:
        if self.device == "cuda":
            self.torch.cuda.synchronize()

    def _tensor(self, bits: list[int], dtype: str) -> Any:
        signed = _SIGNED[UINT[dtype]]
        raw = np.array(bits, dtype=UINT[dtype]).view(signed)
        return self.torch.from_numpy(raw).view(getattr(self.torch, dtype)).to(self.device)

    def _bits(self, tensor: Any, dtype: str) -> list[int]:
        signed = getattr(self.torch, np.dtype(_SIGNED[UINT[dtype]]).name)
        return [int(v) for v in tensor.detach().cpu().view(signed).numpy().view(UINT[dtype])]

    def torch_binary(self, dtype: str, op: str, compiled: bool, a: list[int], b: list[int]) -> list[int]:
        x, y = self._tensor(a, dtype), self._tensor(b, dtype)

        def apply(p: Any, q: Any) -> Any:
            return {"add": lambda: p + q, "mul": lambda: p * q, "exp2": lambda: self.torch.exp2(p)}[op]()

        fn = self.torch.compile(apply, dynamic=False) if compiled else apply
        out = fn(x, y)
        self._sync()
        return self._bits(out, dtype)

    def _operands(self, dtype: str, *arrays: Any) -> list[Any]:
        torch = self.torch
        return [
            torch.from_numpy(np.asarray(m, dtype=np.float32)).to(getattr(torch, dtype)).to(self.device)
            for m in arrays
        ]

    def _to_numpy(self, out: Any, dtype: str) -> Any:
        return out.float().cpu().numpy().astype(DTYPES[dtype])

    def cast_fp8(self, values: list[float]) -> list[int]:
        torch = self.torch
        x = torch.tensor(values, dtype=torch.float32, device=self.device).to(torch.float8_e4m3fn)
        return [int(v) for v in x.view(torch.uint8).cpu().numpy()]


class TorchCpuBackend(TorchOps):
    """PyTorch on the CPU: eager, `torch.compile` (Inductor's C++ code) and matmul run for real;
    PTX needs a GPU. The `.ftz` positive control of the torch probes is the reference's emulation
    of PTX `.ftz`, which proves that a flush would be told apart from a preserve.

    Its records have device class `cpu`, which no device claim's scope matches: they show how the
    harness and this torch build behave, not what a GPU does.
    """

    name = "torch_cpu"
    device = "cpu"

    def __init__(self) -> None:
        try:
            import torch
        except ImportError as exc:
            raise Unavailable(f"the torch CPU backend needs torch: {exc}") from None
        self.torch = torch

    def info(self) -> dict[str, Any]:
        torch = self.torch
        return {
            "backend": self.name,
            "device": {
                "name": f"CPU ({platform.machine()}, torch {torch.backends.cpu.get_cpu_capability()})",
                "cc": None,
                "device_class": "cpu",
            },
            "libs": _libs(),
            "settings": {"num_threads": torch.get_num_threads()},
        }

    def ptx_binary(self, dtype: str, op: str, ftz: bool, a: list[int], b: list[int]) -> tuple[list[int], str]:
        if not ftz:
            raise Unavailable("PTX needs a CUDA GPU")
        return reference_binary(dtype, op, a, b, ftz=True), ""

    def matmul(self, dtype: str, a: Any, b: Any, reduced: bool) -> tuple[Any, list[str]]:
        """torch.matmul on the CPU; the reduced-precision-reduction flags are CUDA-only."""
        return self._to_numpy(self.torch.matmul(*self._operands(dtype, a, b)), dtype), []
