"""hardware-constant: which numbers are read as a device's datasheet figures, and how far off is wrong."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import REPO

from qbank.checks.hardware_constants import _line_problems
from qbank.finding import Severity
from qbank.model.taxonomy import load_bank_tables

TABLE = load_bank_tables(REPO / "schema").hardware  # type: ignore[union-attr]


def problems(line: str) -> list[Severity]:
    return [severity for _, severity in _line_problems(line, TABLE)]


@pytest.mark.parametrize(
    "line",
    [
        "- H100 SXM: 80 GB of HBM3, 3.35 TB/s and 989 TFLOPS dense BF16",
        "- H100 has 80 GiB",  # the binary reading of a capacity
        "- A100 80GB: 2,039 GB/s and 312 TFLOPS FP16",
        "- A100 with 40 GB",  # a bare A100 is either size
        "- H100 PCIe: 2 TB/s",  # the longest alias wins
        "- STM32F746 has 320 KB SRAM and 1 MB flash at 216 MHz",
        "- Jetson Orin Nano at 10 W",  # inside the power-mode range
        "- 8x H100 = 640 GB",  # a count of devices
        "- H100 time = 140 GB / 3.35 TB/s = 41.8 ms",  # an equation, not a spec
        "- H100 serving a 70B model needs 140 GB",  # not a spec phrase
        "- H100 NVLink 450 GB/s per direction",
        "- A100 19.5 TFLOPS FP32 and 156 TFLOPS TF32 dense",  # a precision after the figure names it
        "- Orin Nano 40 TOPS sparse, about 20 TOPS dense",
    ],
)
def test_right_or_not_a_claim(line: str) -> None:
    assert problems(line) == []


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("- H100: 40 GB of HBM3", [Severity.ERROR]),
        ("- H100: 3 TB/s", [Severity.WARNING]),  # 10% off
        ("- H100 FP8 989 TFLOPS", [Severity.ERROR]),  # that is the FP16 rate
        ("- A100 19.5 TFLOPS FP32 and 19.5 TFLOPS TF32", [Severity.ERROR]),  # TF32 is 156
        ("- T4 has 16 GB and 300 GB/s", [Severity.WARNING]),
        ("- nRF52840: 512 KB SRAM, 64 MHz", [Severity.ERROR]),
        ("- Jetson Orin Nano at 30 W", [Severity.WARNING]),  # 20% above the range
    ],
)
def test_wrong_constants(line: str, expected: list[Severity]) -> None:
    assert problems(line) == expected


def test_the_message_names_the_table_value_and_its_source() -> None:
    ((message, _),) = _line_problems("- H100: 40 GB", TABLE)
    assert "80 GB per schema/hardware.yaml, not 40 GB (50% off)" in message
    assert "https://" in message


def test_a_broken_table_fails_closed(tmp_path: Path) -> None:
    for name in ("taxonomy.yaml", "title-words.yaml"):
        (tmp_path / name).write_bytes((REPO / "schema" / name).read_bytes())
    (tmp_path / "hardware.yaml").write_text(
        "version: 1\ndevices:\n  h100:\n    name: H100\n    aliases: [H100]\n"
    )
    finding = load_bank_tables(tmp_path)
    assert getattr(finding, "name", None) == "taxonomy" and "source" in finding.message  # type: ignore[union-attr]
