from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from qbank.gpu import evidence, probes
from qbank.gpu.backends import CpuBackend, reference_binary
from qbank.gpu.cuda import SENTINEL, ptx_source
from tests.conftest import run_cli

CPU_PROBES = [p for p in probes.REGISTRY.values() if "torch_" not in p.op_path]


@pytest.mark.parametrize("probe", CPU_PROBES, ids=lambda p: p.id)
def test_the_ieee_reference_passes_every_control(probe: probes.Probe) -> None:
    result = probes.run(CpuBackend(), probe)
    assert set(result["controls"].values()) == {"pass"}
    assert result["verdict"] == {"device_ftz": "preserve", "device_accumulate_dtype": "float32"}.get(
        probe.kind, "nan"
    )


class Flushing(CpuBackend):
    """A device whose plain instructions flush like `.ftz` ones."""

    def ptx_binary(self, dtype: str, op: str, ftz: bool, a: list[int], b: list[int]) -> tuple[list[int], str]:
        return reference_binary(dtype, op, a, b, ftz=True), ""


class NeverRuns(CpuBackend):
    """A kernel that never launched: the output buffer still holds the sentinel."""

    def ptx_binary(self, dtype: str, op: str, ftz: bool, a: list[int], b: list[int]) -> tuple[list[int], str]:
        return [SENTINEL[dtype]] * len(a), ""


class NoFlushControl(CpuBackend):
    """A harness where `.ftz` does nothing: a flush could not be told from a preserve."""

    def ptx_binary(self, dtype: str, op: str, ftz: bool, a: list[int], b: list[int]) -> tuple[list[int], str]:
        return reference_binary(dtype, op, a, b), ""


@pytest.mark.parametrize(
    ("backend", "verdict"),
    [(Flushing(), "flush"), (NeverRuns(), "inconclusive"), (NoFlushControl(), "inconclusive")],
)
def test_verdicts_follow_the_cases_and_the_controls(backend: Any, verdict: str) -> None:
    assert probes.run(backend, probes.REGISTRY["ftz.float16.add.ptx"])["verdict"] == verdict


def test_ptx_spells_out_the_instruction_under_test() -> None:
    plain, flushing = (
        ptx_source("float16", "add", False, "sm_90"),
        ptx_source("float16", "add", True, "sm_90"),
    )
    assert "add.f16 %h3" in plain and ".ftz" not in plain
    assert "add.ftz.f16 %h3" in flushing and ".target sm_90" in flushing
    bf16 = ptx_source("bfloat16", "mul", True, "sm_90")  # no mul.ftz.bf16 in PTX: through fp32
    assert "cvt.f32.bf16" in bf16 and "mul.ftz.f32" in bf16 and "cvt.rn.bf16.f32" in bf16


def test_records_carry_versions_and_bits_but_no_identifiers(tmp_path: Path) -> None:
    result = run_cli("gpu", "probe", "--backend", "cpu", "--out", str(tmp_path / "ev"))
    assert result.exit_code == 0, result.output
    assert "ftz.float16.add.ptx" in result.output and "preserve" in result.output
    assert "ftz.float16.mul.torch_eager" in result.output and "not run" in result.output  # said, not hidden
    record = json.loads((tmp_path / "ev" / "cpu" / "ftz.float16.add.ptx.jsonl").read_text())
    assert record["probe_version"] == 1 and record["device"]["device_class"] == "cpu"
    assert record["cases"][0]["in"] == ["0x0001", "0x0001"] and record["cases"][0]["out"] == "0x0002"
    assert {"numpy", "ml_dtypes", "python"} <= record["libs"].keys() and record["timestamp_utc"].endswith("Z")
    text = json.dumps(record).lower()
    assert "hostname" not in text and "uuid" not in text
    again = run_cli("gpu", "probe", "--backend", "cpu", "--out", str(tmp_path / "ev"), "ftz.float16.add.ptx")
    assert again.exit_code == 0
    assert (
        len((tmp_path / "ev" / "cpu" / "ftz.float16.add.ptx.jsonl").read_text().splitlines()) == 2
    )  # appended


def test_unknown_probe_is_a_usage_error() -> None:
    assert run_cli("gpu", "probe", "--backend", "cpu", "no.such.probe").exit_code == 2


def test_append_and_read_round_trip(tmp_path: Path) -> None:
    probe = probes.REGISTRY["ftz.float32.mul.ptx"]
    info = CpuBackend().info()
    import datetime

    rec = evidence.record(
        probe, info, probes.run(CpuBackend(), probe), datetime.datetime(2026, 11, 23, tzinfo=datetime.UTC)
    )
    path = evidence.append(tmp_path, rec)
    assert path == tmp_path / "cpu" / "ftz.float32.mul.ptx.jsonl"
    assert evidence.read(tmp_path) == ([evidence.Entry(path, 1, json.loads(path.read_text()))], [])


@pytest.mark.gpu
def test_probes_on_a_real_gpu(tmp_path: Path) -> None:
    """Runs where a CUDA device with cupy and torch is present (the lent H100 in this project)."""
    from qbank.gpu.backends import Unavailable

    try:
        from qbank.gpu.cuda import CudaBackend

        backend = CudaBackend()
    except Unavailable as exc:
        pytest.skip(f"no CUDA device here: {exc}")
    for probe in probes.REGISTRY.values():
        assert probes.run(backend, probe)["verdict"] != "inconclusive", probe.id
