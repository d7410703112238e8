"""Napkin-math cost bombs (issue 30, item 3), built the same way for the tests that must refuse them
(tests/test_hostile_cost.py) and the benchmark that times them (benchmarks/cost_bombs.py)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

TEMPLATE = Path(__file__).parent / "examples/hostile/exponent-bomb/cloud/precision/cloud-202611-h054.yaml"
PRIMES = [p for p in range(11, 2000) if all(p % d for d in range(2, int(p**0.5) + 1))]


def term(p: int) -> str:
    """`1/p^k` with k as large as the 20,000-bit limit of a power allows (and k <= 4096)."""
    return f"1/{p}^{min(4096, 20_000 // (p.bit_length() + 1))}"


def fraction_sum(terms: int, first: int = 0) -> str:
    """`terms` such fractions of successive primes from PRIMES[first], added: each term is inside
    every limit, and their sum was never bounded."""
    return " + ".join(term(p) for p in PRIMES[first : first + terms])


def question(calculations: Sequence[str] = (), claims: Sequence[str] = (), extra: str = "") -> str:
    """The hostile template with these Calculations bullets (one harmless line if none), these
    `verify:` claims and `extra` text at the end."""
    text = TEMPLATE.read_text(encoding="utf-8")
    bullets = "".join(f"    - {line}\n" for line in calculations) or "    - 2 * 3 = 6\n"
    text = text.replace("    **Calculations:** 10^10^10^10 = 1\n", "    **Calculations:**\n" + bullets)
    if claims:
        text = text.replace("status: published\n", "verify:\n" + "".join(claims) + "status: published\n")
    return text + extra
