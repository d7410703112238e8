"""Re-derive an evidence record from its own outputs, so that its stated verdict is never taken on trust.

A record is a file a pull request can edit: a newer record saying `verdict: flush` over cases that
show preserved subnormals once turned a refuted H100 claim into a confirmed one (issue 30, item 6).
So the outputs the device gave (each case's `out`, the accumulator's sums, the fp8 bytes) are
replayed through the probe's own code, with a backend that runs nothing and hands those outputs
back. The probe then rebuilds its inputs from its registered cases, computes the CPU reference
(qbank/gpu/backends.py), classifies every case, judges its controls and gives its verdict, exactly
as `qbank gpu probe` did on the device. A record whose stated cases, control cases, controls or
verdict differ from what that gives contradicts its own data (or the CPU reference) and is not used.

What replay cannot catch is a record whose outputs were themselves made up and everything else
re-derived from them: that is a measurement, and only review of the evidence diff can judge it.

Imports numpy and ml_dtypes (through the probes): resolve.py loads this only when it has records.
"""

from __future__ import annotations

import json
import re
from typing import Any

import numpy as np

from qbank.gpu import backends, probes
from qbank.gpu.evidence import shown

COMPARED = ("cases", "control_cases", "controls", "verdict")  # what a record states that the probe derives
_HEX = {2: re.compile(r"0x[0-9a-f]{2}"), 4: re.compile(r"0x[0-9a-f]{4}"), 8: re.compile(r"0x[0-9a-f]{8}")}


class Contradiction(Exception):
    """The record cannot be replayed: its outputs are missing or not what the probe reads."""


def contradiction(record: dict[str, Any]) -> str | None:
    """Why `record` (well formed: evidence.shape_problem) disagrees with its own outputs, or None.

    Only records of a registered probe at its current version can confirm or refute a claim, so
    only those are replayed: an older version may have had other cases.
    """
    probe = probes.REGISTRY.get(record["probe_id"])
    if probe is None or record.get("probe_version") != probe.version:
        return None
    try:
        derived = probes.run(_Replay(record, probe), probe)
    except Contradiction as exc:
        return str(exc)
    except backends.Unavailable as exc:  # this process flushes subnormals: its reference is wrong
        return f"cannot be re-checked here ({exc})"
    for key in COMPARED:
        if key in derived:
            found = _difference(key, record.get(key), json.loads(json.dumps(derived[key])))
            if found:
                return _message(*found)
    return None


def _message(where: str, stated: Any, derived: Any) -> str:
    if where == "verdict":
        return (
            f"states verdict {shown(stated)}, but its own cases and controls give {shown(derived)}: not used"
        )
    return (
        f"{where} is {shown(stated)}, but the probe given this record's own outputs (CPU reference and "
        f"classification of qbank/gpu/probes.py) gives {shown(derived)}: not used"
    )


def _difference(where: str, stated: Any, derived: Any) -> tuple[str, Any, Any] | None:
    """The first place (`cases[1].class`) where `stated` differs from `derived`, compared as JSON
    (so `true` is not `1`), with both values; None when they are equal."""
    if isinstance(stated, dict) and isinstance(derived, dict) and stated.keys() == derived.keys():
        pairs = [(f"{where}.{key}", stated[key], derived[key]) for key in sorted(derived)]
    elif isinstance(stated, list) and isinstance(derived, list) and len(stated) == len(derived):
        pairs = [(f"{where}[{i}]", s, d) for i, (s, d) in enumerate(zip(stated, derived, strict=True))]
    else:
        same = json.dumps(stated, sort_keys=True) == json.dumps(derived, sort_keys=True)
        return None if same else (where, stated, derived)
    for pair in pairs:
        found = _difference(*pair)
        if found:
            return found
    return None


class _Replay:
    """A backend that runs nothing: each call returns what the record says the device returned."""

    name = "replay"

    def __init__(self, record: dict[str, Any], probe: probes.Probe) -> None:
        self.record, self.probe = record, probe

    def ptx_binary(self, dtype: str, op: str, ftz: bool, a: list[int], b: list[int]) -> tuple[list[int], str]:
        # the `.ftz` form is the positive control: its outputs are the record's control cases
        return _outs(self.record, "control_cases" if ftz else "cases", len(a), dtype), ""

    def torch_binary(self, dtype: str, op: str, compiled: bool, a: list[int], b: list[int]) -> list[int]:
        return _outs(self.record, "cases", len(a), dtype)

    def matmul(self, dtype: str, a: Any, b: Any, reduced: bool) -> tuple[Any, list[str]]:
        if self.probe.kind == "device_accumulate_dtype":
            return _sums(self.record, reduced), []
        return _product(self.record, dtype, a, b), []

    def cast_fp8(self, values: list[float]) -> list[int]:
        return _outs(self.record, "cases", len(values), "float8")


def _cases(record: dict[str, Any], key: str, count: int) -> list[dict[str, Any]]:
    cases = record.get(key)
    if not isinstance(cases, list) or len(cases) != count:
        have = f"{len(cases)} entries" if isinstance(cases, list) else "none"
        raise Contradiction(f"`{key}` has {have}; the probe has {count}: not used")
    return cases


def _outs(record: dict[str, Any], key: str, count: int, dtype: str) -> list[int]:
    """The `out` bit patterns of a record's cases, written as probes._hex writes them."""
    digits = {"float32": 8, "float8": 2}.get(dtype, 4)
    outs = []
    for i, case in enumerate(_cases(record, key, count)):
        out = case.get("out")
        if not isinstance(out, str) or not _HEX[digits].fullmatch(out):
            raise Contradiction(
                f"{key}[{i}].out is {shown(out)}; expected 0x and {digits} hex digits: not used"
            )
        outs.append(int(out, 16))
    return outs


def _product(record: dict[str, Any], dtype: str, a: Any, b: Any) -> Any:
    """The CPU reference product with the record's outputs at the cells its cases name. Cells it does
    not record were compared on the device (its `other_cells` control): a failed one is replayed as
    a cell that differs, so the probe judges that control as the device run did."""
    cases = record["cases"]
    out = backends.reference_matmul(dtype, a, b).copy()
    for value, case in zip(_outs(record, "cases", len(cases), dtype), cases, strict=True):
        at = case.get("at")
        if not (isinstance(at, list) and len(at) == 2 and all(type(n) is int and 0 <= n < 16 for n in at)):
            raise Contradiction(f"a case's `at` is {shown(at)}; expected two cell indices: not used")
        out[at[0], at[1]] = backends.to_values([value], dtype)[0]
    if record["controls"].get("other_cells") == "fail":
        out[15, 0] = out.dtype.type(1.0) if out[15, 0] == 0 else out.dtype.type(0.0)
    return out


def _sums(record: dict[str, Any], reduced: bool) -> Any:
    """C[0, 0] and C[1, 0] of the accumulator probe's run, from the `repr()` text the record holds."""
    (case,) = _cases(record, "cases", 1)
    runs = case.get("runs")
    run = runs.get(f"reduced_precision_reduction={reduced}") if isinstance(runs, dict) else None
    out = np.zeros((16, 16), dtype=np.float64)
    for cell, (i, j) in (("c00", (0, 0)), ("c10", (1, 0))):
        text = run.get(cell) if isinstance(run, dict) else None
        value = _number(text)
        if value is None:
            raise Contradiction(f"the run's {cell} is {shown(text)}; expected a number as text: not used")
        out[i, j] = value
    return out


def _number(text: Any) -> float | None:
    """A float from short text (repr() of one is at most 24 characters), or None."""
    if not isinstance(text, str) or len(text) > 40:
        return None
    try:
        return float(text)
    except ValueError:
        return None
