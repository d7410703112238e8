"""The hardware table: well formed, sourced, and in agreement with the mlsysim registry it cites."""

from __future__ import annotations

import importlib.util
import random
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import REPO

from qbank.model.hardware import HardwareTable, alternation, quantity
from qbank.model.taxonomy import load_bank_tables

TABLE: HardwareTable = load_bank_tables(REPO / "schema").hardware  # type: ignore[union-attr]

# Where mlsysim keeps each figure we also keep (its hardware/data/<tier>/<Chip>.yaml files).
MLSYSIM_FIELDS = {
    "memory": ["memory.capacity"],
    "memory_bandwidth": ["memory.bandwidth"],
    "sram": ["memory.sram_capacity"],
    "flash": ["memory.flash_capacity"],
    "clock": ["compute.clock_rate"],
    "tdp": ["tdp"],
    "flops.fp16": ["compute.precision_flops.fp16_dense", "compute.precision_flops.fp16"],
    "flops.bf16": ["compute.precision_flops.bf16"],
    "flops.fp8": ["compute.precision_flops.fp8"],
    "flops.fp32": ["compute.precision_flops.fp32"],
    "flops.tf32": ["compute.precision_flops.tf32"],
    "flops.int8": ["compute.precision_flops.int8"],
}
# Where we knowingly differ from mlsysim 0.3.0, and why (each was checked against the datasheet in `source`).
DIFFER = {
    (
        "esp32-s3",
        "sram",
    ): "mlsysim has 520 KiB (the original ESP32's figure); the ESP32-S3 datasheet says 512 KB",
    ("stm32f407", "memory"): "mlsysim's tiny 'capacity' is SRAM; we keep SRAM under `sram`",
}


def test_every_device_names_a_source_with_a_link() -> None:
    assert len(TABLE.devices) >= 20
    for device in TABLE.devices.values():
        assert "(https://" in device.source, device.key
        assert device.specs, device.key


def test_aliases_are_unique() -> None:
    aliases = [a for d in TABLE.devices.values() for a in d.aliases]
    assert len(aliases) == len(set(aliases))


def test_mentions_are_those_of_a_longest_first_alternation() -> None:
    """`mentions` finds aliases with a trie and a pre-search; it must find exactly what the plain
    pattern (aliases longest first, standing as words) finds, on text made to confuse it: aliases
    glued to each other, to letters, digits, hyphens and dots, and prefixes of longer aliases."""
    by_alias = {a: d for d in TABLE.devices.values() for a in d.aliases}
    longest_first = "|".join(map(re.escape, sorted(by_alias, key=len, reverse=True)))
    plain = re.compile(r"(?<![\w.-])(" + longest_first + r")(?![\w-])")
    pieces = [*by_alias, *{a[: len(a) // 2] for a in by_alias}, " ", "-", ".", "x", "1", ":", " PCIe", "SXM"]
    rng = random.Random(8)
    for _ in range(5000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 8)))
        expected = [(m.span(), by_alias[m.group(1)]) for m in plain.finditer(text)]
        assert [(m.span(), device) for m, device in TABLE.mentions(text)] == expected, text


def test_alternation_prefers_the_longest_word() -> None:
    pattern = re.compile(alternation(["H100", "H100 PCIe", "H200", "A100"]))
    assert [m.group() for m in pattern.finditer("H100 PCIe, H100 SXM, H200, A10")] == [
        "H100 PCIe",
        "H100",
        "H200",
    ]


def _mlsysim_data() -> Path:
    spec = importlib.util.find_spec("mlsysim")  # located, not imported: its import pulls in pint
    assert spec and spec.submodule_search_locations, "mlsysim (a dev dependency) is not installed"
    return Path(next(iter(spec.submodule_search_locations))) / "hardware" / "data"


def _lookup(entry: dict[str, Any], dotted: str) -> Any:
    for part in dotted.split("."):
        entry = entry.get(part) if isinstance(entry, dict) else None  # type: ignore[assignment]
    return entry


def _cross_checked() -> list[tuple[str, str, str]]:
    cases = []
    for device in TABLE.devices.values():
        if device.raw.get("mlsysim"):
            data = yaml.safe_load((_mlsysim_data() / device.raw["mlsysim"]).read_text(encoding="utf-8"))
            for field, paths in MLSYSIM_FIELDS.items():
                theirs = next(
                    (v for p in paths if isinstance(v := _lookup(data, p), str | int | float)), None
                )
                if theirs is not None and (device.key, field) not in DIFFER:
                    cases.append((device.key, field, str(theirs)))
    return cases


def test_the_table_agrees_with_mlsysim() -> None:
    cases = _cross_checked()
    assert len(cases) >= 40  # the cross-check really compares something
    wrong = []
    for key, field, theirs in cases:
        ours = [s for s in TABLE.devices[key].specs if s.field == field]
        value, dims = quantity(theirs)
        fits = [
            s
            for s in ours
            if s.dims == dims
            and any(lo * 0.92 <= value <= hi * 1.08 for lo, hi in ((s.low, s.high), s.binary or (0, 0)))
        ]
        if ours and not fits:
            wrong.append(f"{key}.{field}: ours {[s.text for s in ours]}, mlsysim {theirs}")
    assert wrong == []


@pytest.mark.parametrize("text", ["80 GB", "3.35 TB/s", "989 TFLOPS", "15 W", "64 MHz", "256 KB"])
def test_values_read_as_napkin_math_reads_them(text: str) -> None:
    value, dims = quantity(text)
    assert value > 0 and any(dims)
