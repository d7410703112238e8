"""Units of napkin math: an explicit table, exact factors, and dimensions as exponent vectors.

Why not Pint: it reads `Gb` as gilbert, `mb` as millibarn and `1,5 ms` as 15 ms, and has no FLOP
(research/fp16-gpu.md §5, P10). Here every symbol is listed, so nothing is guessed:

- bytes and bits: `B`, `bytes`, `b`, `bit(s)` (1 B = 8 b), decimal prefixes `kB MB GB TB PB` (10^3k)
  and binary `KiB MiB GiB TiB` (2^10k). `KB`/`MB`/`GB` stay decimal; see MODES for the binary reading.
- time: `ns us µs ms s sec min h hr hour day week month year`; rates with `/s`, `/hr`, `Hz`.
- operations: `FLOP`/`FLOPs`, `OP(s)`, `MAC(s)` are one dimension (a MAC counts as one operation;
  conventions differ, so a line that holds only with a MAC as two, `1 MAC = 2 FLOPs`, holds under
  that reading: readings.macs_as_two); `FLOPS`, `OPS`, `TOPS` are per second.
- energy and power: `J`, `W`, `Wh` (3600 J), `V`, `A`, `Ah`/`mAh`; money: `$`, `USD`, `cents`;
  `m`, `km`, `°C`, `g`, `kg`, `t` (`kgCO₂`, `t CO2e`); dimensionless `%`, `x`, `million`, `billion`.
- counts (`tokens`, `params`, `layers`, `GPUs` …) are dimensionless: `70B params × 2 bytes = 140 GB`.
- spelled out, as authors write them (issue 25): `Megawatts`, `kilowatt-hours`, `Megabits`,
  `Gigabytes`, `metric tons`, `Billion`, `mWh` (a milliwatt-hour, 3.6 J: never `MWh`, a
  megawatt-hour), `gCO2e`. A bit stays a bit in every spelling and every mode (`Gb`, `Megabits`).
- decibels (`dB`, `dBm`, `dBμV` …) are not units here: a level and a gain add on a log scale, which
  the arithmetic of this table cannot say, so they stay unknown words (see `is_decibel`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import NamedTuple

# The base dimensions, in the order of a Dims vector.
BASE = ("B", "s", "op", "J", "$", "A", "m", "K", "g")
Dims = tuple[int, ...]
NONE: Dims = (0,) * len(BASE)


def dims(**powers: int) -> Dims:
    return tuple(powers.get("usd" if name == "$" else name, 0) for name in BASE)


def mul(a: Dims, b: Dims) -> Dims:
    if b == NONE:
        return a
    if a == NONE:
        return b
    return tuple(x + y for x, y in zip(a, b, strict=True))


def div(a: Dims, b: Dims) -> Dims:
    if b == NONE:
        return a
    return tuple(x - y for x, y in zip(a, b, strict=True))


def power(a: Dims, k: int) -> Dims:
    return tuple(x * k for x in a)


def describe(d: Dims) -> str:
    """`B/s`, `op`, `J`, or `1` for a pure number."""
    top = [n if p == 1 else f"{n}^{p}" for n, p in zip(BASE, d, strict=True) if p > 0]
    bottom = [n if p == -1 else f"{n}^{-p}" for n, p in zip(BASE, d, strict=True) if p < 0]
    text = "·".join(top) or "1"
    return text + ("/" + "/".join(bottom) if bottom else "")


@dataclass(frozen=True)
class Unit:
    factor: Fraction  # how many base units one of this unit is
    dims: Dims


BYTE, SECOND, OP, JOULE = dims(B=1), dims(s=1), dims(op=1), dims(J=1)
PER_SECOND = dims(s=-1)
# Prefixes and their powers of ten (and of 1024 for IEC), shared with readings.magnitude.
DECIMAL = {"k": 3, "K": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18, "Z": 21, "Y": 24}
SMALL = {"m": -3, "u": -6, "µ": -6, "μ": -6, "n": -9, "p": -12}
LONG = (
    ("Kilo", 3),
    ("Mega", 6),
    ("Giga", 9),
    ("Tera", 12),
    ("Peta", 15),
    ("Exa", 18),
    ("Zetta", 21),
    ("Yotta", 24),
)
# Ki, Mi, Gi, Ti, Pi, Ei, Zi, Yi: 2^10, 2^20, … (IEC 80000-13). Up to Y, as SI's prefixes above: a
# prefix missing here left `1 EiB = 1 B` and `1 YB = 1 B` read as labels and passed (issue 31)
IEC = "KMGTPEZY"


def _table() -> dict[str, Unit]:
    t: dict[str, Unit] = {}

    def add(names: str, factor: Fraction | int, d: Dims) -> None:
        for name in names.split():
            t[name] = Unit(Fraction(factor), d)

    add("B byte bytes Byte Bytes", 1, BYTE)
    add("b bit bits", Fraction(1, 8), BYTE)
    for p, e in DECIMAL.items():
        add(f"{p}B {p}byte {p}bytes", 10**e, BYTE)
        add(f"{p}b {p}bit {p}bits", Fraction(10**e, 8), BYTE)
        add(f"{p}bps", Fraction(10**e, 8), mul(BYTE, PER_SECOND))
        add(f"{p}FLOP {p}FLOPs {p}flop {p}flops {p}OP {p}OPs {p}Ops {p}ops {p}MAC {p}MACs", 10**e, OP)
        add(f"{p}FLOPS {p}OPS", 10**e, mul(OP, PER_SECOND))
        add(f"{p}Hz", 10**e, PER_SECOND)
        add(f"{p}W", 10**e, mul(JOULE, PER_SECOND))
        add(f"{p}J", 10**e, JOULE)
        add(f"{p}Wh", 3600 * 10**e, JOULE)
    for i, p in enumerate(IEC, start=1):
        add(f"{p}iB", 2 ** (10 * i), BYTE)
        add(f"{p}ib {p}ibit", Fraction(2 ** (10 * i), 8), BYTE)
    add("FLOP FLOPs flop flops OP OPs Ops ops op MAC MACs MACS", 1, OP)
    add("FLOPS OPS", 1, mul(OP, PER_SECOND))
    add("bps", Fraction(1, 8), mul(BYTE, PER_SECOND))
    add("TOPS", 10**12, mul(OP, PER_SECOND))
    add("TOP", 10**12, OP)
    add("s sec secs second seconds", 1, SECOND)
    for p, e in SMALL.items():
        add(f"{p}s {p}sec", Fraction(10) ** e, SECOND)
        add(f"{p}W", Fraction(10) ** e, mul(JOULE, PER_SECOND))
        add(f"{p}J", Fraction(10) ** e, JOULE)
        add(f"{p}A", Fraction(10) ** e, dims(A=1))
        add(f"{p}V", Fraction(10) ** e, div(dims(J=1, s=-1), dims(A=1)))
        add(f"{p}Ah", 3600 * Fraction(10) ** e, dims(A=1, s=1))
        add(f"{p}Wh", 3600 * Fraction(10) ** e, JOULE)  # `mWh`: 3.6 J, where `MWh` is 3.6 GJ
    add("microseconds microsecond", Fraction(1, 10**6), SECOND)
    add("milliseconds millisecond", Fraction(1, 1000), SECOND)
    add("nanoseconds nanosecond", Fraction(1, 10**9), SECOND)
    add("min mins minute minutes", 60, SECOND)
    add("h hr hrs hour hours", 3600, SECOND)
    add("d day days", 86400, SECOND)
    add("week weeks", 7 * 86400, SECOND)
    add("month months mo", 30 * 86400, SECOND)
    # `24 h * 365 days * 3 yrs`, where `365 days` means "per year", agrees under the conversion
    # reading (qbank/napkin/readings.py), which is why `yrs` can be a unit.
    add("year years yr yrs", 365 * 86400, SECOND)
    add("Hz", 1, PER_SECOND)
    add("FPS fps", 1, PER_SECOND)
    add("J Joule Joules joule joules", 1, JOULE)
    add("W Watt Watts watt watts", 1, mul(JOULE, PER_SECOND))
    add("Wh", 3600, JOULE)
    add("A", 1, dims(A=1))
    add("V", 1, div(dims(J=1, s=-1), dims(A=1)))
    add("Ah", 3600, dims(A=1, s=1))
    add("$ USD usd dollars dollar", 1, dims(usd=1))
    add("cents cent", Fraction(1, 100), dims(usd=1))
    add("m meter meters", 1, dims(m=1))
    add("km", 1000, dims(m=1))
    add("cm", Fraction(1, 100), dims(m=1))
    add("mm", Fraction(1, 1000), dims(m=1))
    add("°C C°", 1, dims(K=1))
    add("g gram grams gCO2 gCO₂ gCO2e gCO₂e", 1, dims(g=1))
    add("kg kgCO2 kgCO₂ kgCO2e kgCO₂e", 1000, dims(g=1))
    # A ton in napkin math about ML emissions is the metric tonne: the GHG Protocol and the papers
    # authors quote (Patterson et al. 2021, arXiv:2104.10350) report tCO2e in tonnes of 1,000 kg.
    # A US short ton is 907 kg; a line written in those is read wrongly here, so say so in prose.
    add("t tonne tonnes ton tons tCO2 tCO₂ tCO2e tCO₂e", 10**6, dims(g=1))
    add("thousand Thousand", 10**3, NONE)
    add("million Million", 10**6, NONE)
    add("billion Billion", 10**9, NONE)
    add("trillion Trillion", 10**12, NONE)
    add("operations operation", 1, OP)
    for long, e in LONG:
        add(long, 10**e, NONE)
        add(f"{long}FLOPs {long}FLOP {long}-FLOPs {long}-Operations {long}-operations", 10**e, OP)
        _spelled(add, long, e)
    return t


def _spelled(add: Callable[[str, Fraction | int, Dims], None], long: str, e: int) -> None:
    """`Megabytes`, `megabits`, `Kilowatts`, `gigawatt`: a long prefix, either case, before a unit
    word. Bits are an eighth of a byte whatever the spelling (issue 31)."""
    for prefix in (long, long.lower()):
        add(f"{prefix}bytes {prefix}byte", 10**e, BYTE)
        add(f"{prefix}bits {prefix}bit", Fraction(10**e, 8), BYTE)
        add(f"{prefix}watts {prefix}watt", 10**e, mul(JOULE, PER_SECOND))


UNITS = _table()

# Words that count things: dimensionless, so `tokens/s` is a rate and `bytes/param` a size.
COUNTS = frozenset(
    [
        "token",
        "tokens",
        "param",
        "params",
        "parameter",
        "parameters",
        "weight",
        "weights",
        "layer",
        "layers",
        "head",
        "heads",
        "dim",
        "dims",
        "element",
        "elements",
        "GPU",
        "GPUs",
        "gpu",
        "gpus",
        "node",
        "nodes",
        "device",
        "devices",
        "server",
        "servers",
        "replica",
        "replicas",
        "user",
        "users",
        "request",
        "requests",
        "req",
        "reqs",
        "query",
        "queries",
        "QPS",
        "sample",
        "samples",
        "image",
        "images",
        "img",
        "frame",
        "frames",
        "step",
        "steps",
        "iteration",
        "iterations",
        "epoch",
        "epochs",
        "cycle",
        "cycles",
        "instruction",
        "instructions",
        "core",
        "cores",
        "sequence",
        "sequences",
        "seq",
        "batch",
        "batches",
        "channel",
        "channels",
        "pixel",
        "pixels",
        "row",
        "rows",
        "column",
        "columns",
        "inference",
        "inferences",
        "event",
        "events",
        "write",
        "writes",
        "read",
        "reads",
        "failure",
        "failures",
        "flap",
        "flaps",
        "expert",
        "experts",
        "worker",
        "workers",
        "shard",
        "shards",
        "page",
        "pages",
        "packet",
        "packets",
        "sensor",
        "sensors",
        "camera",
        "cameras",
        "transition",
        "transitions",
        "entry",
        "entries",
        "item",
        "items",
        "record",
        "records",
        "file",
        "files",
        "chip",
        "chips",
        "job",
        "jobs",
        "copy",
        "copies",
        "tensor",
        "tensors",
        "vector",
        "vectors",
        "unit",
        "units",
        "value",
        "values",
        "activation",
        "activations",
        "gradient",
        "gradients",
        "neuron",
        "neurons",
        "patch",
        "patches",
        "block",
        "blocks",
        "tile",
        "tiles",
        "word",
        "words",
        "line",
        "lines",
        "CO2",
        "CO2e",
        "times",
        "time",
        "lane",
        "lanes",
        "thread",
        "threads",
        "warp",
        "warps",
        "SM",
        "SMs",
        "rank",
        "ranks",
        "hop",
        "hops",
        "pass",
        "passes",
        "sync",
        "syncs",
    ]
    + ["CO₂", "CO₂e"]
    + ["metric"]  # qualifies a unit without changing it (`48 metric tons`): as harmless as a count
)


# `H100s`, `B200s`, `A100s`: a device model in the plural counts devices.
_DEVICES = re.compile(r"[A-Z][A-Za-z]*\d+[A-Za-z]*s")


def counts_things(word: str) -> bool:
    """A count word that names things to buy or place, which come whole (`GPUs`, `nodes`, `H100s`)."""
    return word in COUNTS or _DEVICES.fullmatch(word) is not None


class Mode(NamedTuple):  # a tuple: every value of a term is keyed by its mode, and tuples hash fast
    """One reading of symbols that authors use both ways; an equation passes if any reading fits.

    `B` after a number without a space (`7B`) is billions in `7B params` and bytes in `2B/param`;
    `KB`/`MB`/`GB` are decimal by SI but binary in JEDEC usage (`49,152 B = 48 KB`). The binary
    reading is never tried when the equation also writes an IEC unit (`GiB`), because then the
    author distinguishes the two and `80 GB = 80 GiB` must fail.
    """

    suffix_b_is_billion: bool = True
    binary_kb: bool = False


MODES = (Mode(True, False), Mode(False, False), Mode(True, True), Mode(False, True))


def lookup(word: str, mode: Mode) -> Unit | None:
    unit = UNITS.get(word)
    if unit is not None and mode.binary_kb and len(word) == 2 and word[0] in IEC and word[1] == "B":
        # `KB`..`PB` only: `Gb` and `Mb` are bits in every reading (issue 31)
        return Unit(Fraction(2 ** (10 * (IEC.index(word[0]) + 1))), BYTE)
    return unit


def is_decibel(word: str) -> bool:
    """`dB`, `dBm`, `dBμV`, `dBFS`: a logarithmic level or gain (IEC 60027-3). `10 dBm + 10 dBm` is
    13 dBm, not 20, and `51.5 dBμV/m - 8 dB` is a level less a gain: plain arithmetic with units
    cannot tell these apart, so a line with decibels that does not add up is left unchecked."""
    return word.startswith("dB")
