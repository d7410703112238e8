"""Replaying a record's outputs through its probe (qbank/gpu/recheck.py): every probe's honest record
replays to itself, and an edit of what the probe derives (verdict, class, reference, control) is found."""

from __future__ import annotations

import copy
import datetime
import json
from typing import Any

import pytest

from qbank.gpu import backends, evidence, probes
from qbank.gpu.recheck import contradiction


class _Device(backends.CpuBackend):
    """The CPU reference, with torch ops too (the reference's own results), so every probe runs."""

    def torch_binary(self, dtype: str, op: str, compiled: bool, a: list[int], b: list[int]) -> list[int]:
        return backends.reference_binary(dtype, op, a, b)


def _record(probe_id: str) -> dict[str, Any]:
    probe = probes.REGISTRY[probe_id]
    info = {
        "backend": "cuda",
        "device": {"name": "H100", "device_class": "sm_90"},
        "libs": {},
        "settings": {},
    }
    now = datetime.datetime(2026, 11, 23, tzinfo=datetime.UTC)
    rec = evidence.record(probe, info, probes.run(_Device(), probe), now)
    parsed: dict[str, Any] = json.loads(json.dumps(rec))  # as read back from the file
    assert evidence.shape_problem(parsed) is None
    return parsed


@pytest.mark.parametrize("probe_id", sorted(probes.REGISTRY))
def test_an_honest_record_replays_to_itself(probe_id: str) -> None:
    assert contradiction(_record(probe_id)) is None


@pytest.mark.parametrize("probe_id", sorted(probes.REGISTRY))
def test_any_other_verdict_is_a_contradiction(probe_id: str) -> None:
    honest = _record(probe_id)
    for verdict in sorted(evidence.VERDICTS - {honest["verdict"]}):
        found = contradiction(honest | {"verdict": verdict})
        assert found and found.startswith(f'states verdict "{verdict}"'), found


EDITS = [  # (probe, path into the record, forged value, where the message points)
    ("ftz.float16.add.ptx", ("cases", 0, "class"), "flushed", "cases[0].class"),
    ("ftz.float16.add.ptx", ("cases", 1, "ref"), "0x0400", "cases[1].ref"),
    ("ftz.float16.add.ptx", ("cases", 0, "in", 1), "0x0002", "cases[0].in[1]"),
    ("ftz.float16.add.ptx", ("control_cases", 0, "class"), "ieee", "control_cases[0].class"),
    ("ftz.float32.exp2.torch_compile", ("controls", "normal"), "fail", "controls.normal"),
    ("ftz.bfloat16.matmul.tensor_core", ("cases", 1, "ref_ftz"), "0x0001", "cases[1].ref_ftz"),
    ("acc.float16.matmul.tensor_core", ("cases", 0, "ref", "float16"), "0.0", "cases[0].ref.float16"),
    ("overflow.float8_e4m3fn.cast.torch", ("cases", 2, "ref_ml_dtypes"), "0x7e", "cases[2].ref_ml_dtypes"),
]


@pytest.mark.parametrize(("probe_id", "path", "value", "where"), EDITS)
def test_an_edited_derived_field_is_a_contradiction(
    probe_id: str, path: tuple[Any, ...], value: Any, where: str
) -> None:
    forged = copy.deepcopy(_record(probe_id))
    target = forged
    for key in path[:-1]:
        target = target[key]
    assert target[path[-1]] != value
    target[path[-1]] = value
    found = contradiction(forged)
    assert found and found.startswith(f"{where} is {json.dumps(value)}"), found


@pytest.mark.parametrize(
    ("probe_id", "key", "value"),
    [
        ("ftz.float16.add.ptx", "out", 2),
        ("ftz.float16.add.ptx", "out", "0x02"),
        ("ftz.float32.mul.ptx", "out", "0x0002"),
        ("ftz.float16.matmul.tensor_core", "at", [99, 0]),
        ("overflow.float8_e4m3fn.cast.torch", "out", "0x7f00"),
    ],
)
def test_outputs_the_probe_cannot_read_are_a_contradiction(probe_id: str, key: str, value: Any) -> None:
    forged = copy.deepcopy(_record(probe_id))
    forged["cases"][0][key] = value
    assert contradiction(forged)


def test_a_missing_case_or_accumulator_sum_is_a_contradiction() -> None:
    short = _record("ftz.float16.add.ptx")
    short["cases"].pop()
    assert contradiction(short) == "`cases` has 2 entries; the probe has 3: not used"
    acc = _record("acc.float16.matmul.tensor_core")
    acc["cases"][0]["runs"]["reduced_precision_reduction=True"]["c00"] = "9" * 41
    assert "c00" in str(contradiction(acc))


def test_a_failed_other_cells_control_is_a_measurement_and_replays_as_one() -> None:
    """Cells other than the three cases are compared on the device and not recorded: a failed
    `other_cells` replays as a differing cell, so the record must then say `inconclusive`."""
    failed = _record("ftz.bfloat16.matmul.tensor_core")
    failed["controls"]["other_cells"] = "fail"
    assert str(contradiction(failed)).startswith('states verdict "preserve"')
    assert contradiction(failed | {"verdict": "inconclusive"}) is None


def test_an_older_probe_version_is_not_replayed() -> None:
    """Its cases may have been others; such a record is only ever `stale`, never judged by."""
    old = _record("ftz.float16.add.ptx") | {"probe_version": 0, "verdict": "flush"}
    assert contradiction(old) is None
