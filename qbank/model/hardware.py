"""The bank's hardware table, `schema/hardware.yaml`: datasheet constants with a source per device.

Napkin math that quotes a device's memory, bandwidth, peak rate, power, clock or on-chip memory is
compared with this table (rule hardware-constant), and `qbank generate` renders drills from it.
Values are read with the napkin-math units (qbank/napkin/units.py), so `3.35 TB/s`, `80 GB` and
`989 TFLOPS` mean exactly what they mean in a question.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from qbank import memo
from qbank.napkin import units
from qbank.napkin.evaluate import evaluate, parse
from qbank.napkin.lexer import NapkinError, tokenize

HARDWARE_FILE = "hardware.yaml"
SPEC_FIELDS = ("memory", "memory_bandwidth", "sram", "flash", "l2_cache", "nvlink", "pcie", "tdp", "clock")
PRECISIONS = ("fp64", "fp32", "tf32", "fp16", "bf16", "fp8", "int8", "int4")
_KEY = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")


@dataclass(frozen=True)
class Spec:
    """One datasheet value, or a range of configurable values, in base units (bytes, B/s, op/s, W, Hz)."""

    field: str  # "memory", "flops.fp16", ...
    low: Fraction
    high: Fraction
    dims: units.Dims
    text: str  # as the table writes it
    binary: tuple[Fraction, Fraction] | None = None  # a capacity's GiB reading: "80 GB" HBM is 80 GiB too

    @property
    def precision(self) -> str | None:
        return self.field.split(".", 1)[1] if self.field.startswith("flops.") else None


@dataclass(frozen=True)
class Device:
    key: str
    name: str
    aliases: tuple[str, ...]
    source: str  # reference and URL
    specs: tuple[Spec, ...]
    raw: dict[str, Any]  # the table entry as written, for the generator and the mlsysim cross-check

    def spec(self, field: str) -> Spec:
        """The first (headline) value of a field; KeyError if the table has none."""
        for spec in self.specs:
            if spec.field == field:
                return spec
        raise KeyError(f"{self.key} has no {field}")


@dataclass(frozen=True, eq=False)  # hashed by identity: the hardware rule remembers lines per table
class HardwareTable:
    devices: dict[str, Device]

    @functools.cached_property
    def _aliases(self) -> tuple[re.Pattern[str], re.Pattern[str], dict[str, Device]]:
        by_alias = {alias: d for d in self.devices.values() for alias in d.aliases}
        names = alternation(by_alias)
        return re.compile(names), re.compile(r"(?<![\w.-])(" + names + r")(?![\w-])"), by_alias

    def mentions(self, text: str) -> Iterator[tuple[re.Match[str], Device]]:
        """Each place `text` names a device, the longest alias that stands as a word.

        The same matches as `whole.finditer(text)`, found faster: `whole` starts with a lookbehind,
        which keeps re from skipping ahead to the aliases' first letters, so `bare` (no assertions,
        which every match of `whole` also matches) finds each candidate place first.
        """
        bare, whole, by_alias = self._aliases
        at = 0
        while (candidate := bare.search(text, at)) is not None:
            match = whole.match(text, candidate.start())
            if match is None:
                at = candidate.start() + 1
                continue
            yield match, by_alias[match.group(1)]
            at = match.end()


def alternation(words: Iterable[str]) -> str:
    """A regex matching any of `words`, as a trie: `H100(?: (?:PCIe|SXM))?`. re tries alternatives in
    order and does not merge common prefixes; a trie tries each letter once, and its greedy `?`
    prefers the longest word, as a longest-first alternation would (of two words that match at one
    place, the shorter is a prefix of the longer)."""
    trie: dict[str, Any] = {}
    for word in words:
        node = trie
        for char in word:
            node = node.setdefault(char, {})
        node[""] = {}  # a word ends here
    return _pattern(trie)


def _pattern(node: dict[str, Any]) -> str:
    branches = [re.escape(char) + _pattern(child) for char, child in sorted(node.items()) if char]
    if not branches:
        return ""
    body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
    return f"(?:{body})?" if "" in node else body


@memo.cached("model.hardware.quantity")
def quantity(text: str, binary: bool = False) -> tuple[Fraction, units.Dims]:
    """`3.35 TB/s` as (3350000000000, B/s); with `binary`, `80 GB` reads as 80 GiB. NapkinError if unreadable."""
    node = parse(tokenize(text)).node
    value = evaluate(node, units.Mode(suffix_b_is_billion=False, binary_kb=binary))
    return value.value, value.dims


def parse_table(data: dict[str, Any]) -> HardwareTable:
    """The table from its YAML data; ValueError naming the entry and field that is wrong."""
    devices = data.get("devices")
    if not isinstance(devices, dict) or not devices:
        raise ValueError("expected `devices:` mapping device keys to entries")
    parsed = {}
    for key, entry in devices.items():
        if not isinstance(key, str) or not _KEY.fullmatch(key) or not isinstance(entry, dict):
            raise ValueError(f"devices.{key}: expected a lower-case key and a mapping")
        parsed[key] = _device(key, entry)
    return HardwareTable(parsed)


def _device(key: str, entry: dict[str, Any]) -> Device:
    name, aliases, source = entry.get("name"), entry.get("aliases"), entry.get("source")
    if (
        not isinstance(name, str)
        or not isinstance(aliases, list)
        or not all(isinstance(a, str) and a for a in aliases)
    ):
        raise ValueError(f"devices.{key}: needs `name` and a list of `aliases`")
    if (
        not isinstance(source, dict)
        or not isinstance(source.get("ref"), str)
        or not isinstance(source.get("url"), str)
    ):
        raise ValueError(f"devices.{key}: every device needs `source: {{ref, url}}`")
    fields = [(f, entry[f]) for f in SPEC_FIELDS if f in entry]
    flops = entry.get("flops") or {}
    if not isinstance(flops, dict) or not set(flops) <= set(PRECISIONS):
        raise ValueError(f"devices.{key}.flops: keys must be among {', '.join(PRECISIONS)}")
    fields += [(f"flops.{p}", v) for p, v in flops.items()]
    specs = tuple(spec for field, value in fields for spec in _specs(key, field, value))
    return Device(key, name, tuple(aliases), f"{source['ref']} ({source['url']})", specs, entry)


def _specs(key: str, field: str, value: Any) -> Iterator[Spec]:
    for text in value if isinstance(value, list) else [value]:
        if not isinstance(text, str):
            raise ValueError(f"devices.{key}.{field}: {text!r} is not a string like '80 GB'")
        ends = text.split("..")
        try:
            (low, dims), (high, high_dims) = quantity(ends[0]), quantity(ends[-1])
        except (NapkinError, ValueError, ZeroDivisionError) as exc:
            raise ValueError(f"devices.{key}.{field}: cannot read {text!r}: {exc}") from None
        if len(ends) > 2 or dims != high_dims or dims == units.NONE or low > high:
            raise ValueError(
                f"devices.{key}.{field}: {text!r} must be 'NUMBER UNIT' or 'LOW UNIT .. HIGH UNIT'"
            )
        binary = (quantity(ends[0], True)[0], quantity(ends[-1], True)[0]) if dims == units.BYTE else None
        yield Spec(field, low, high, dims, text, binary)
