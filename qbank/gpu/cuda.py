"""The CUDA backend: explicit PTX through CuPy's module loader, and PyTorch on the GPU.

PTX, not CUDA C: CuPy appends `-ftz=true` to every compile after the user's options
(cupy/cupy#9576; research/fp16-gpu.md D10), so compile options cannot be the switch. Each probe
kernel is written out as PTX with the instruction under test spelled out (`add.f16` or
`add.ftz.f16`) and loaded with cuModuleLoadData, which JIT-compiles exactly that; the PTX text is
recorded with the evidence.
"""

from __future__ import annotations

import subprocess
from typing import Any

import numpy as np

from qbank.gpu.backends import UINT, Unavailable, _libs, device_class, environment_settings
from qbank.gpu.torch_ops import TorchOps

SENTINEL = {"float16": 0x7E5A, "bfloat16": 0x7FDA, "float32": 0x7FC0DEAD}  # quiet NaNs with a payload

_PTX = """.version 8.0
.target {target}
.address_size 64

.visible .entry probe(.param .u64 pa, .param .u64 pb, .param .u64 pout, .param .u32 n)
{{
    .reg .pred %p;
    .reg .b32 %r<3>;
    .reg .b64 %rd<8>;
    .reg .b16 %h<4>;
    .reg .f32 %f<4>;
    ld.param.u64 %rd1, [pa];
    ld.param.u64 %rd2, [pb];
    ld.param.u64 %rd3, [pout];
    ld.param.u32 %r1, [n];
    mov.u32 %r2, %tid.x;
    setp.ge.u32 %p, %r2, %r1;
    @%p bra DONE;
    cvta.to.global.u64 %rd1, %rd1;
    cvta.to.global.u64 %rd2, %rd2;
    cvta.to.global.u64 %rd3, %rd3;
    mul.wide.u32 %rd4, %r2, {size};
    add.s64 %rd5, %rd1, %rd4;
    add.s64 %rd6, %rd2, %rd4;
    add.s64 %rd7, %rd3, %rd4;
{body}
DONE:
    ret;
}}
"""


def ptx_source(dtype: str, op: str, ftz: bool, target: str) -> str:
    """The probe kernel: out[i] = a[i] op b[i], with the one instruction under test."""
    if dtype == "float32":
        instruction = f"{op}{'.ftz' if ftz else ''}.f32 %f3, %f1, %f2;"
        body = [
            "ld.global.f32 %f1, [%rd5];",
            "ld.global.f32 %f2, [%rd6];",
            instruction,
            "st.global.f32 [%rd7], %f3;",
        ]
        return _PTX.format(target=target, size=4, body="\n".join(f"    {line}" for line in body))
    loads = ["ld.global.b16 %h1, [%rd5];", "ld.global.b16 %h2, [%rd6];"]
    if dtype == "bfloat16" and ftz:
        # PTX has no add.ftz.bf16: widen (exact), flush in fp32 (bf16 subnormals are fp32 subnormals), narrow.
        middle = [
            "cvt.f32.bf16 %f1, %h1;",
            "cvt.f32.bf16 %f2, %h2;",
            f"{op}.ftz.f32 %f3, %f1, %f2;",
            "cvt.rn.bf16.f32 %h3, %f3;",
        ]
    else:
        kind = "bf16" if dtype == "bfloat16" else "f16"
        middle = [f"{op}{'.ftz' if ftz else ''}.{kind} %h3, %h1, %h2;"]
    body = [*loads, *middle, "st.global.b16 [%rd7], %h3;"]
    return _PTX.format(target=target, size=2, body="\n".join(f"    {line}" for line in body))


class CudaBackend(TorchOps):
    name = "cuda"
    device = "cuda"

    def __init__(self) -> None:
        try:
            import cupy
            import torch
        except ImportError as exc:
            raise Unavailable(f"the CUDA backend needs cupy and torch: {exc}") from None
        if not torch.cuda.is_available():
            raise Unavailable("torch sees no CUDA device")
        self.cupy, self.torch = cupy, torch
        self.major, self.minor = torch.cuda.get_device_capability(0)

    @property
    def target(self) -> str:
        return device_class(self.major, self.minor)

    def info(self) -> dict[str, Any]:
        torch, cupy = self.torch, self.cupy
        props = torch.cuda.get_device_properties(0)
        driver = cupy.cuda.runtime.driverGetVersion()
        matmul = torch.backends.cuda.matmul
        return {
            "backend": self.name,
            "device": {
                "name": props.name,
                "cc": f"{self.major}.{self.minor}",
                "device_class": self.target,
                "sm_count": props.multi_processor_count,
            },
            "driver": _nvidia_smi_driver(),
            "cuda_driver_api": f"{driver // 1000}.{driver % 1000 // 10}",
            "cuda_runtime_torch": torch.version.cuda,
            "libs": _libs() | {"cudnn": str(torch.backends.cudnn.version())},
            "settings": {
                "allow_tf32": matmul.allow_tf32,
                "cudnn_allow_tf32": torch.backends.cudnn.allow_tf32,
                "fp16_reduced_precision_reduction": matmul.allow_fp16_reduced_precision_reduction,
                "bf16_reduced_precision_reduction": matmul.allow_bf16_reduced_precision_reduction,
                "float32_matmul_precision": torch.get_float32_matmul_precision(),
                **environment_settings(),
            },
        }

    def ptx_binary(self, dtype: str, op: str, ftz: bool, a: list[int], b: list[int]) -> tuple[list[int], str]:
        cupy = self.cupy
        source = ptx_source(dtype, op, ftz, self.target)
        module = cupy.cuda.function.Module()
        module.load(source.encode())
        kernel = module.get_function("probe")
        uint = UINT[dtype]
        x, y = cupy.asarray(np.array(a, dtype=uint)), cupy.asarray(np.array(b, dtype=uint))
        out = cupy.full(len(a), SENTINEL[dtype], dtype=uint)  # still there afterwards: the kernel never ran
        kernel((1,), (len(a),), (x, y, out, np.uint32(len(a))))
        cupy.cuda.runtime.deviceSynchronize()
        return [int(v) for v in out.get()], source

    def matmul(self, dtype: str, a: Any, b: Any, reduced: bool) -> tuple[Any, list[str]]:
        torch = self.torch
        flag = (
            "allow_fp16_reduced_precision_reduction"
            if dtype == "float16"
            else "allow_bf16_reduced_precision_reduction"
        )
        before = getattr(torch.backends.cuda.matmul, flag)
        setattr(torch.backends.cuda.matmul, flag, reduced)
        try:
            x, y = self._operands(dtype, a, b)
            with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
                out = torch.matmul(x, y)
                torch.cuda.synchronize()
            kernels = sorted({e.name for e in prof.events() if str(e.device_type).endswith("CUDA")})
            return self._to_numpy(out, dtype), kernels
        finally:
            setattr(torch.backends.cuda.matmul, flag, before)


def _nvidia_smi_driver() -> str | None:
    try:
        done = subprocess.run(
            ["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
            capture_output=True,
            text=True,
            timeout=30,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.strip().splitlines()[0] if done.returncode == 0 and done.stdout.strip() else None
