"""Evidence records: one JSON object per probe run, appended to
`evidence/gpu/<device_class>/<probe_id>.jsonl` and committed, so an audit without a GPU can
resolve device claims against what a real device did (research/fp16-gpu.md §4.3-4.4).

A record holds the device (name, compute capability, class), driver and CUDA versions, library
versions, numerics settings, inputs and outputs as hex bit patterns, the CPU reference, controls,
verdict and UTC time: never a hostname or a GPU UUID.
"""

from __future__ import annotations

import datetime
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from qbank import atomic

if TYPE_CHECKING:
    from qbank.gpu.probes import Probe

SCHEMA = 1


def record(
    probe: Probe, info: dict[str, Any], result: dict[str, Any], now: datetime.datetime
) -> dict[str, Any]:
    settings = {**info.get("settings", {}), **result.pop("settings", {})}
    return {
        "schema": SCHEMA,
        "probe_id": probe.id,
        "probe_version": probe.version,
        "probe_sha256": probe.sha256,
        "kind": probe.kind,
        "dtype": probe.dtype,
        "op": probe.op,
        "op_path": probe.op_path,
        "timestamp_utc": now.astimezone(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        **{key: value for key, value in info.items() if key != "settings"},
        "settings": settings,
        **result,
    }


def path_for(root: Path, device_class: str, probe_id: str) -> Path:
    return root / device_class / f"{probe_id}.jsonl"


def append(root: Path, rec: dict[str, Any]) -> Path:
    """Add one line; earlier runs stay, so the history of a probe on a device class is kept.

    The whole file is rewritten atomically (qbank/atomic.py) rather than opened for appending: a
    run killed mid-append would leave half a line that every later audit reports. A last line
    without its line break (a hand edit, or such an append) is ended first, so the new record
    never runs into it. Raises atomic.WriteError for a link on the way.
    """
    target = path_for(root, rec["device"]["device_class"], rec["probe_id"])
    atomic.make_folder(target.parent)
    old, before = atomic.read(target)
    if old and not old.endswith(b"\n"):
        old += b"\n"
    line = json.dumps(rec, sort_keys=True, ensure_ascii=False, allow_nan=False) + "\n"
    atomic.replace(target, old + line.encode("utf-8"), expect=before)
    return target


def read(root: Path) -> tuple[list[dict[str, Any]], list[str]]:
    """Every record under `root`, and a problem for each line that is not one: unreadable
    evidence is reported by the audit, never skipped."""
    records: list[dict[str, Any]] = []
    problems: list[str] = []
    for file in sorted(root.glob("*/*.jsonl")):
        for number, line in enumerate(file.read_text(encoding="utf-8").splitlines(), 1):
            try:
                rec = json.loads(line)
            except json.JSONDecodeError as exc:
                problems.append(f"{file}:{number}: not JSON ({exc.msg})")
                continue
            if not isinstance(rec, dict) or not {"probe_id", "verdict", "device"} <= rec.keys():
                problems.append(f"{file}:{number}: not an evidence record")
                continue
            records.append(rec)
    return records, problems
