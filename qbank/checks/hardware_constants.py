"""Datasheet constants quoted in napkin math, checked against the bank's hardware table.

The reference system judged hardware claims only by LLM prompts (research/anchor-vault.md §3.5);
here a number written right after a device's name is compared with `schema/hardware.yaml`.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator
from fractions import Fraction
from typing import TYPE_CHECKING

from qbank import memo
from qbank.checks.api import Context
from qbank.finding import Finding, Severity
from qbank.model.hardware import PRECISIONS, Device, HardwareTable, Spec, quantity
from qbank.napkin import units
from qbank.napkin.lexer import NapkinError
from qbank.rules import rule, rule_of

if TYPE_CHECKING:  # the model (pydantic) loads only when a file is not in the audit cache
    from qbank.model.records import Record

CLOSE, FAR = Fraction(5, 100), Fraction(25, 100)  # within 5%: fine; beyond 25%: an error
_COMPARED = {
    units.BYTE: ("memory", "sram", "flash", "l2_cache"),
    units.mul(units.BYTE, units.PER_SECOND): ("memory_bandwidth", "nvlink", "pcie"),
    units.mul(units.OP, units.PER_SECOND): ("flops.",),
    units.mul(units.JOULE, units.PER_SECOND): ("tdp",),
    units.PER_SECOND: ("clock",),
}
# Words that may stand between a device's name and its number: "H100 SXM: 80 GB of HBM3, 3.35 TB/s".
# Any other word ends the phrase, so "H100 serving a 70B model needs 140 GB" claims nothing.
_FILLER = frozenset(
    re.findall(
        r"\S+",
        """s has have with of offers provides delivers gives peak dense sparse sparsity memory hbm hbm2
        hbm2e hbm3 hbm3e lpddr4x lpddr5 lpddr5x gddr6 dram ram sram flash bandwidth capacity tensor
        core cores is about roughly approximately around nearly and at sxm sxm2 sxm4 sxm5 pcie gpu card
        chip module board soc npu neural engine tdp power clock clocked the a an its on total unified
        l2 cache theoretical datasheet spec rated up to nvlink interconnect link compute throughput
        math mode cuda rate max maximum only""",
    )
) | frozenset(PRECISIONS)
_TOKEN = re.compile(
    r"(?P<num>\d[\d,]*(?:\.\d+)?)\s*(?P<unit>[A-Za-zµ]+(?:/s(?:ec)?\b)?)?"
    r"|(?P<word>[A-Za-z][A-Za-z0-9]*)|(?P<space>\s+)|(?P<punct>.)"
)
_KEEP_GOING = frozenset(",:()~≈—–'’")
_COUNT_BEFORE = re.compile(r"\d\s*[x×*]?\s*$")
_PRECISION_AFTER = re.compile(r"(?:dense\s+|sparse\s+)?(" + "|".join(PRECISIONS) + r")\b", re.IGNORECASE)


@rule("QB420", "hardware-constant")
def check_hardware_constants(record: Record, context: Context) -> Iterator[Finding]:
    """A datasheet number written right after a device's name in napkin math matches
    `schema/hardware.yaml`: an error when it is more than 25% off every value the table lists for
    that kind of number, a warning from 5% to 25%.

    Compared: memory and on-chip memory (decimal or binary GB), memory and link bandwidth, peak
    rates (per precision when one is named: `FP8`, `BF16` ...), TDP and clock. The number must
    follow the name with only descriptive words between (`H100 SXM: 80 GB of HBM3, 3.35 TB/s`);
    `8x H100` (a count), `H100 time = ...` (an equation) and `H100 needs 140 GB` (not a spec) are
    left alone. The table names a source for every device.

    Fails:
        - H100: 40 GB of HBM3 and 3.35 TB/s
    Passes:
        - H100: 80 GB of HBM3 and 3.35 TB/s
    """
    details = record.document.data.get("details")
    tables = context.tables
    text = details.get("napkin_math") if isinstance(details, dict) else None
    if record.tombstone or tables is None or not isinstance(text, str):
        return
    for line in text.splitlines():
        for message, severity in _line_problems(line, tables.hardware):
            row, column = record.document.positions.in_value(("details", "napkin_math"), line.strip())
            finding = rule_of(check_hardware_constants).finding(
                record.document.path, row, column, message, record.question_id
            )
            yield dataclasses.replace(finding, severity=severity)


@memo.cached("checks.hardware_constants.line_problems")
def _line_problems(line: str, table: HardwareTable) -> tuple[tuple[str, Severity], ...]:
    problems = []
    for match, device in table.mentions(line):
        if _COUNT_BEFORE.search(line[: match.start()]):
            continue  # "8x H100": a cluster, whose totals are not the device's
        for stated, written, precision in _quoted(line[match.end() :]):
            problem = _compare(device, match.group(1), stated, written, precision)
            if problem:
                problems.append(problem)
    return tuple(problems)


def _quoted(rest: str) -> Iterator[tuple[tuple[Fraction, units.Dims, Fraction | None], str, str | None]]:
    """The numbers with units that follow a device's name, until a word or sign ends the phrase."""
    precision = None
    for token in _TOKEN.finditer(rest):
        word, punct = token.group("word"), token.group("punct")
        if token.group("space"):
            continue
        if word is not None:
            if word.lower() not in _FILLER:
                return
            precision = word.lower() if word.lower() in PRECISIONS else precision
            continue
        if punct is not None:
            if punct not in _KEEP_GOING:
                return
            continue
        written = token.group(0).strip()
        after = rest[token.end() :].lstrip()
        if not token.group("unit") or after.startswith(("per ", "/")):
            return  # a plain number, or a rate per something else: not a datasheet figure
        try:
            value, dims = quantity(written)
            binary = quantity(written, binary=True)[0] if dims == units.BYTE else None
        except (NapkinError, ValueError, ZeroDivisionError):
            return
        named_after = _PRECISION_AFTER.match(after)  # "156 TFLOPS TF32": the word after the figure wins
        yield (value, dims, binary), written, named_after.group(1).lower() if named_after else precision


def _compare(
    device: Device,
    alias: str,
    stated: tuple[Fraction, units.Dims, Fraction | None],
    written: str,
    precision: str | None,
) -> tuple[str, Severity] | None:
    value, dims, binary = stated
    prefixes = _COMPARED.get(dims)
    if prefixes is None or value <= 0:
        return None
    specs = [s for s in device.specs if s.field.startswith(prefixes)]
    if precision is not None and any(s.precision == precision for s in specs):
        specs = [s for s in specs if s.precision == precision]
    if not specs:
        return None
    off, nearest = min(((_distance(value, binary, s), s) for s in specs), key=lambda pair: pair[0])
    if off <= CLOSE:
        return None
    severity = Severity.ERROR if off > FAR else Severity.WARNING
    listed = " or ".join(s.text for s in specs if s.field == nearest.field)
    kind = nearest.field.replace("flops.", "peak ").replace("_", " ")
    return (
        f"{alias} {kind} is {listed} per schema/hardware.yaml, not {written} ({float(off):.0%} off); "
        f"source: {device.source}",
        severity,
    )


def _distance(value: Fraction, binary: Fraction | None, spec: Spec) -> Fraction:
    """How far `value` is from the spec (0 inside a range), relative. A capacity is compared in
    both readings, decimal with decimal and binary with binary: "80 GiB" matches a table's "80 GB"."""
    distance = _outside(value, spec.low, spec.high)
    if binary is not None and spec.binary is not None:
        distance = min(distance, _outside(binary, *spec.binary))
    return distance


def _outside(value: Fraction, low: Fraction, high: Fraction) -> Fraction:
    if low <= value <= high:
        return Fraction(0)
    edge = low if value < low else high
    return abs(value - edge) / edge
