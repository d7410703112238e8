from __future__ import annotations

import datetime
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from qbank.gpu import backends, evidence, probes, resolve
from qbank.gpu.probes import REGISTRY
from qbank.numerics.claims import DeviceAccumulateDtype, DeviceFtz
from tests.conftest import REPO


def ftz(**fields: Any) -> DeviceFtz:
    base = {
        "kind": "device_ftz",
        "claim": "c",
        "dtype": "float16",
        "op": "add",
        "op_path": "ptx",
        "device_scope": "H100",
        "expect": "preserve",
    }
    return DeviceFtz.model_validate(base | fields)


def _evidence(tmp_path: Path, *records: dict[str, Any]) -> resolve.Evidence:
    folder = tmp_path / "evidence" / "gpu" / "sm_90"
    folder.mkdir(parents=True)
    with (folder / "ftz.float16.add.ptx.jsonl").open("w") as handle:
        for record in records:
            handle.write(json.dumps(record) + "\n")
    resolve.load.cache_clear()
    return resolve.load(tmp_path / "evidence")


class _Flushing(backends.CpuBackend):
    """A device whose plain PTX flushes like `.ftz`."""

    def ptx_binary(self, dtype: str, op: str, ftz: bool, a: list[int], b: list[int]) -> tuple[list[int], str]:
        return backends.reference_binary(dtype, op, a, b, ftz=True), ""


class _Uncontrolled(backends.CpuBackend):
    """A device whose `.ftz` positive control does not flush: nothing it shows can be trusted."""

    def ptx_binary(self, dtype: str, op: str, ftz: bool, a: list[int], b: list[int]) -> tuple[list[int], str]:
        return backends.reference_binary(dtype, op, a, b), ""


MAKERS = {"preserve": backends.CpuBackend, "flush": _Flushing, "inconclusive": _Uncontrolled}


def _record(verdict: str, version: int = 1, device_class: str = "sm_90") -> dict[str, Any]:
    """A whole record as `qbank gpu probe` writes it, from a device that gives `verdict` (records
    must agree with their own outputs, qbank/gpu/recheck.py)."""
    probe = REGISTRY["ftz.float16.add.ptx"]
    result = probes.run(MAKERS[verdict](), probe)
    assert result["verdict"] == verdict
    device = {"name": "NVIDIA H100 80GB HBM3", "cc": "9.0", "device_class": device_class}
    info = {"backend": "cuda", "device": device, "libs": {}, "settings": {}}
    now = datetime.datetime(2026, 11, 23, tzinfo=datetime.UTC)
    return evidence.record(probe, info, result, now) | {"probe_version": version}


@pytest.mark.parametrize(
    ("scope", "classes"),
    [
        ("V100", {70}),
        ("sm_75", {75}),
        (">=sm_90", {90, 100, 101, 120}),
        ("sm_70..sm_80", {70, 72, 75, 80}),
        ("<=sm_53", {50, 52, 53}),
    ],
)
def test_scopes(scope: str, classes: set[int]) -> None:
    assert resolve.scope_classes(scope) == classes


@pytest.mark.parametrize(
    ("claim", "records", "status"),
    [
        (ftz(), [_record("preserve")], "confirmed"),
        (ftz(expect="flush"), [_record("preserve")], "refuted"),
        (
            ftz(expect="flush", modality="may"),
            [_record("preserve")],
            "unverified",
        ),  # not observed, not refuted
        (ftz(), [_record("inconclusive")], "inconclusive"),
        (ftz(), [_record("preserve", version=0)], "stale"),
        (ftz(device_scope="V100"), [_record("preserve")], "unverified"),
        (
            ftz(),
            [_record("flush"), _record("preserve") | {"timestamp_utc": "2026-11-24T00:00:00Z"}],
            "confirmed",
        ),
    ],
)
def test_resolution(tmp_path: Path, claim: DeviceFtz, records: list[dict[str, Any]], status: str) -> None:
    assert resolve.resolve(claim, _evidence(tmp_path, *records)).status == status


def test_unreadable_evidence_is_never_skipped(tmp_path: Path) -> None:
    evidence = _evidence(tmp_path, _record("preserve"))
    with (tmp_path / "evidence" / "gpu" / "sm_90" / "ftz.float16.add.ptx.jsonl").open("a") as handle:
        handle.write("{not json\n")
    resolve.load.cache_clear()
    evidence = resolve.load(tmp_path / "evidence")
    assert resolve.resolve(ftz(), evidence).status == "inconclusive"


def test_a_claim_no_probe_measures_is_unverified(tmp_path: Path) -> None:
    result = resolve.resolve(ftz(op="exp2", dtype="bfloat16"), _evidence(tmp_path))
    assert result.status == "unverified" and "no probe" in result.message


def test_the_seed_v100_claim_against_the_committed_evidence() -> None:
    """The seed question's claim: no sm_70 device here, so unverified, with what sm_90 and the
    literature say."""
    resolve.load.cache_clear()
    evidence = resolve.load(REPO / "evidence")
    seed = ftz(device_scope="V100", modality="may", expect="flush")
    result = resolve.resolve(seed, evidence)
    assert result.status == "unverified"
    assert "no evidence from sm_70" in result.message
    assert "ftz.float16.add.ptx saw preserve on NVIDIA H100" in result.message
    assert "literature (weaker than a probe, disagrees): PTX ISA" in result.message


def test_committed_h100_evidence_is_fresh_and_conclusive() -> None:
    resolve.load.cache_clear()
    evidence = resolve.load(REPO / "evidence")
    assert evidence.problems == ()
    fresh = {
        r["probe_id"]: r
        for r in evidence.records
        if r.get("probe_version") == REGISTRY[r["probe_id"]].version
    }
    assert set(fresh) == set(REGISTRY)  # every probe has a current record from the H100
    assert {r["device"]["device_class"] for r in fresh.values()} == {"sm_90"}
    assert all(r["verdict"] != "inconclusive" and r["backend"] == "cuda" for r in fresh.values())
    acc = DeviceAccumulateDtype.model_validate(
        {
            "kind": "device_accumulate_dtype",
            "claim": "c",
            "dtype": "float16",
            "device_scope": "H100",
            "expect": "float32",
        }
    )
    assert resolve.resolve(acc, evidence).status == "confirmed"


def test_the_audit_reads_the_banks_evidence(tmp_path: Path) -> None:
    from tests.conftest import EXAMPLES, audit_json

    bank = tmp_path / "bank"
    shutil.copytree(REPO / "schema", bank / "schema")
    example = EXAMPLES / "invalid" / "device-claim-refuted" / "cloud" / "precision" / "cloud-202611-e000.yaml"
    (bank / "questions" / "cloud" / "precision").mkdir(parents=True)
    shutil.copy(example, bank / "questions" / "cloud" / "precision" / example.name)
    resolve.load.cache_clear()
    _, report = audit_json(cwd=bank)  # no evidence/ in this bank: nothing can refute it
    assert [f["name"] for f in report["findings"]] == ["device-claim-unverified"]
    shutil.copytree(REPO / "evidence", bank / "evidence")
    resolve.load.cache_clear()
    _, report = audit_json(cwd=bank)
    assert [f["name"] for f in report["findings"]] == ["device-claim-refuted"]


def test_the_audit_summary_counts_the_claims_the_evidence_confirms(tmp_path: Path) -> None:
    """A confirmed claim gives no finding, so the summary counts them (issue 26), cache or not."""
    from tests.conftest import EXAMPLES, audit_json

    bank = tmp_path / "bank"
    shutil.copytree(REPO / "schema", bank / "schema")
    example = EXAMPLES / "invalid" / "device-claim-refuted" / "cloud" / "precision" / "cloud-202611-e000.yaml"
    text = example.read_text(encoding="utf-8").replace("expect: preserve", "expect: flush")
    (bank / "questions" / "cloud" / "precision").mkdir(parents=True)
    (bank / "questions" / "cloud" / "precision" / example.name).write_text(text, encoding="utf-8")
    shutil.copytree(REPO / "evidence", bank / "evidence")
    resolve.load.cache_clear()
    for _ in range(2):  # the second run reads the audit cache
        _, report = audit_json(cwd=bank)
        assert report["findings"] == [] and report["summary"]["math"]["device_claims_confirmed"] == 1
