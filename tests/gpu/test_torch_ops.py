"""The torch-on-CPU backend: the torch probes run for real without a GPU.

Needs torch (the CPU build: `pip install torch==2.13.0` here, as .ci/run does). Without it these
tests skip and say so; with QBANK_REQUIRE_TORCH=1 (set by .ci/run) they fail instead.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from qbank.gpu import probes
from qbank.gpu.backends import Unavailable
from qbank.gpu.cuda import SENTINEL
from qbank.gpu.torch_ops import TorchCpuBackend
from tests.conftest import run_cli

# torch.compile's import of torch.jit warns about torch's own deprecated API (torch 2.13).
pytestmark = pytest.mark.filterwarnings("ignore:`torch.jit.script_method` is deprecated:DeprecationWarning")

TORCH_PROBES = [p for p in probes.REGISTRY.values() if p.op_path != "ptx"]


@pytest.fixture(scope="module")
def backend() -> TorchCpuBackend:
    try:
        return TorchCpuBackend()
    except Unavailable as exc:
        if os.environ.get("QBANK_REQUIRE_TORCH") == "1":
            pytest.fail(f"torch tests required (QBANK_REQUIRE_TORCH=1) but {exc}")
        pytest.skip(f"torch is not installed: {exc} (pip install torch==2.13.0)")


@pytest.mark.parametrize("probe", TORCH_PROBES, ids=lambda p: p.id)
def test_torch_on_the_cpu_passes_every_control(backend: TorchCpuBackend, probe: probes.Probe) -> None:
    result = probes.run(backend, probe)
    assert set(result["controls"].values()) == {"pass"}, result
    expected = {"device_ftz": {"preserve"}, "device_accumulate_dtype": {"float32"}}
    # torch's CPU cast to float8_e4m3fn saturates past 448 since pytorch/pytorch#178817; CUDA and
    # ml_dtypes give NaN. Either is a real answer; `mixed` or `inconclusive` would be a broken probe.
    assert result["verdict"] in expected.get(probe.kind, {"nan", "saturate"})


class FlushDenormal(TorchCpuBackend):
    """torch on a CPU that flushes denormals (x86 FTZ/DAZ, `torch.set_flush_denormal`), only while
    the op runs: the numpy reference must not see it (probes.run refuses a flushing process)."""

    def torch_binary(self, dtype: str, op: str, compiled: bool, a: list[int], b: list[int]) -> list[int]:
        assert self.torch.set_flush_denormal(True), "this CPU cannot flush denormals"
        try:
            return super().torch_binary(dtype, op, compiled, a, b)
        finally:
            self.torch.set_flush_denormal(False)


def test_a_flushing_cpu_gives_a_flush_verdict(backend: TorchCpuBackend) -> None:
    result = probes.run(FlushDenormal(), probes.REGISTRY["ftz.float32.mul.torch_eager"])
    assert [c["class"] for c in result["cases"]] == ["flushed", "flushed", "ieee"]
    assert result["verdict"] == "flush"


def test_bits_round_trip_through_torch_unchanged(backend: TorchCpuBackend) -> None:
    """NaN payloads, negative zero and subnormals survive the integer views: nothing passes
    through a float conversion on the way in or out."""
    for dtype, bits in {
        "float16": [SENTINEL["float16"], 0x8000, 0x0001, 0xFFFF],
        "bfloat16": [SENTINEL["bfloat16"], 0x8001, 0x7F80],
        "float32": [SENTINEL["float32"], 0x80000001, 0x00000001],
    }.items():
        assert backend._bits(backend._tensor(bits, dtype), dtype) == bits


def test_ptx_is_not_run_on_a_cpu(backend: TorchCpuBackend) -> None:
    with pytest.raises(Unavailable, match="PTX needs a CUDA GPU"):
        probes.run(backend, probes.REGISTRY["ftz.float16.add.ptx"])


def test_cli_records_torch_on_the_cpu(backend: TorchCpuBackend, tmp_path: Path) -> None:
    out = tmp_path / "ev"
    args = ("gpu", "probe", "--backend", "torch-cpu", "--out", str(out))
    result = run_cli(*args, "ftz.float16.mul.torch_eager", "ftz.float16.add.ptx")
    assert result.exit_code == 0, result.output
    assert "ftz.float16.add.ptx" in result.output and "not run: PTX needs a CUDA GPU" in result.output
    record: dict[str, Any] = json.loads((out / "cpu" / "ftz.float16.mul.torch_eager.jsonl").read_text())
    assert record["backend"] == "torch_cpu" and record["device"]["device_class"] == "cpu"
    assert record["libs"]["torch"] == backend.torch.__version__ and record["verdict"] == "preserve"
    assert not (out / "cpu" / "ftz.float16.add.ptx.jsonl").exists()
