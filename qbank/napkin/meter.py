"""A work meter for exact arithmetic, so that napkin math and `verify:` values cannot cost minutes.

Each value is bounded (evaluate.MAX_BITS), but a file may hold thousands of operations on values
just inside that bound: a line of 400 equations `1/3^4000 + 1/5^3000 = 1`, 26 such lines under the
256 KiB cap (issue 30, item 3; benchmarks/README.md, work meter). Wall-clock time would give answers that change
with the machine's load; this meter counts work instead, the same on every machine and every run:
each operation charges the bits of its operands (numerator and denominator) plus OPERATION. Python's
big-integer multiply and gcd grow with the size of their operands, and no operand exceeds MAX_BITS,
so bits of operands bound the time of an operation (benchmarks/cost_bombs.py measures both ends).

A meter is set for a block of work with `metered(limit)`; past its limit, `WorkLimit`. A meter does
not pass its work on to the one around it: code that caches a result keeps the work it cost and
charges that with `spend` on each use, so a cached line costs its file what it cost the first time.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from fractions import Fraction

from qbank.napkin.lexer import LimitError

# One operation costs this much whatever its size: Python's overhead per exact operation is what
# about 64 bits of operand cost at 20,000 bits (benchmarks/README.md, work meter; cost_bombs.py).
OPERATION = 64


class WorkLimit(LimitError):
    """A block of work ran past its meter's limit: what is left of it is not done."""


@dataclass
class Meter:
    limit: int
    spent: int = 0

    def spend(self, units: int) -> None:
        self.spent += units
        if self.spent > self.limit:
            raise WorkLimit(f"more than {self.limit:,} units of work")


_CURRENT: ContextVar[Meter | None] = ContextVar("napkin_meter", default=None)


@contextmanager
def metered(limit: int) -> Iterator[Meter]:
    """Count the work done inside against a fresh meter of `limit` units."""
    meter = Meter(limit)
    token = _CURRENT.set(meter)
    try:
        yield meter
    finally:
        _CURRENT.reset(token)


def spend(units: int) -> None:
    """Charge `units` to the current meter, if any (outside one, work is bounded only per value)."""
    meter = _CURRENT.get()
    if meter is not None:
        meter.spend(units)


def charge(*operands: Fraction) -> None:
    """Charge one operation on these operands."""
    meter = _CURRENT.get()
    if meter is not None:
        meter.spend(OPERATION + sum(bits(x) for x in operands))


def bits(x: Fraction) -> int:
    return x.numerator.bit_length() + x.denominator.bit_length()
