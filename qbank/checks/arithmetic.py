"""Napkin math, re-executed: every equation in the Calculations section of `napkin_math` and in
`realistic_solution` is evaluated exactly (qbank/napkin) and compared with what the author wrote.

The reference system asked an LLM whether the math was right, with a "5% tolerance" that lived only
in a prompt (research/anchor-vault.md). Here the policy is code, and `qbank explain arithmetic`
prints it.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from qbank.finding import Finding, Severity
from qbank.napkin.equations import Budget, Outcome, calculations, check_text
from qbank.rules import of, rule

if TYPE_CHECKING:
    from qbank.engine import Context
    from qbank.validate import Record


@dataclass
class MathTally:
    """Counts for the audit summary: relations found, compared, and found wrong."""

    equations: int = 0
    checked: int = 0
    failed: int = 0

    def add_counts(self, equations: int, checked: int, failed: int) -> None:
        self.equations += equations
        self.checked += checked
        self.failed += failed

    def add(self, outcome: Outcome) -> None:
        self.equations += 1
        self.checked += outcome.status in ("ok", "arithmetic", "unit-mismatch")
        self.failed += outcome.status in ("arithmetic", "unit-mismatch")


def check_math(record: Record, context: Context) -> Iterator[Finding]:
    details = record.document.data.get("details")
    if record.tombstone or not isinstance(details, dict):
        return
    budget, first_skipped = Budget(), ""  # the two fields share the file's work budget
    for field in ("napkin_math", "realistic_solution"):
        text = details.get(field)
        if not isinstance(text, str):
            continue
        for outcome in check_text(calculations(text) if field == "napkin_math" else text, budget):
            yield from _found(record, context, field, outcome)
        first_skipped = first_skipped or (field if budget.skipped else "")
    spent = budget.outcome()
    if spent is not None:  # the lines not checked, as one finding at the first of them
        yield from _found(record, context, first_skipped, spent)


def _found(record: Record, context: Context, field: str, outcome: Outcome) -> Iterator[Finding]:
    context.math.add(outcome)
    check = _RULES.get(outcome.status)
    if check is not None:
        line, column = record.document.positions.in_value(("details", field), outcome.line)
        yield of(check).finding(record.document.path, line, column, outcome.message, record.question_id)


@rule("QB400", "arithmetic")
def arithmetic() -> None:
    """Each equation in the napkin math holds when re-computed exactly (no LLM, no floats).

    Found: `a = b`, chains `a = b = c`, `≈`, `~`, `->`, and restatements `0.0065536 (6.5 * 10^-3)`
    in the **Calculations:** section of napkin_math and anywhere in realistic_solution. Numbers are
    exact (`Fraction(Decimal(text))`); `^` and `**` are powers, `×`, `·` and `x` between numbers
    multiply, `6×10⁻⁵` and `1e-7` are read as written, `65,536` is one number, `7B`/`50M`/`4.1G`
    are magnitudes. Units are converted (80 GB / 2 TB/s = 40 ms; GB is 10^9 B, GiB 2^30 B).
    `sqrt`, `ln`, `log2`, `log10`, `exp`, `min`, `max`, `ceil`, `floor` are read on either side
    (`sqrt(2400)` is an expression, not 2400 with a note); `30 min (1800 s)` is minutes. A
    literal `\\u2248` (six characters) is read as `≈`. A middle term that states a value and goes
    on with an operator, as in `1280 x 720 x 3 = 2.76 MB * 60 = 166 MB/s`, is a running
    calculation: the link before it holds if the whole term or its stated value (2.76 MB) agrees,
    and the next link starts from the whole term (2.76 MB * 60); at the end of a chain the whole
    term is the value, as ever.

    Tolerance, from what the author wrote:
      `=`        the exact value rounded or truncated to the stated digits (7.7612 → 7.76 or 7.7);
      `≈`, `~`   within max(one unit in the last stated digit, 5%) (`= ~105 ms` counts as `≈`);
      `->`       a step ("becomes"): an equation only when both sides agree, never a finding.
    Each stated value is compared with the last computed expression before it, so rounding never
    compounds along a chain. Where a symbol is read two ways (`2B` as two billion or two bytes, `KB`
    as 1000 or 1024 bytes when the equation writes no `KiB`), the equation passes if one reading
    fits. When one side drops units that the other writes (`7 * 2 = 14 GB`), the value is compared
    in each unit the equation writes. The message shows the recomputed value.

    Fails:
        - 26 GB / 3.35 TB/s = 8.76 ms
    Passes:
        - 26 GB / 3.35 TB/s = 7.76 ms
    """


@rule("QB401", "unit-mismatch")
def unit_mismatch() -> None:
    """Both sides of an equation have the same dimensions, and quantities that are added have the
    same dimensions: bytes are not seconds, and `$/hr × 720` is not dollars.

    Fails:
        - 80 GB / 2 TB/s = 40 GB
    Passes:
        - 80 GB / 2 TB/s = 40 ms
    """


@rule("QB402", "unchecked-equation", Severity.WARNING)
def unchecked_equation() -> None:
    """An equation was found but qbank could not read it, so it is not checked: symbols without
    values (`(4N)^2 / N^2 = 16x`), ranges, or words whose meaning as a unit is unclear. A name
    used as an operand (`N - 1 = 2`, `P * 2 = 14`, `3 * 4N = 12`) is reported by its name, never
    dropped: `N - 1 = 2` is not read as `- 1 = 2`.

    Write the numbers out, one equation per bullet, with units qbank knows (`qbank explain
    arithmetic`), or move the words out of the equation.

    Fails:
        - 8 syncs = 420ms overhead
    Passes:
        - 8 syncs * 52.5 ms = 420 ms of overhead
    """


@rule("QB403", "math-limit")
def math_limit() -> None:
    """An expression too costly to evaluate is refused, never run: exponents beyond 4096
    (`9**9**9**9`, `10^10^10^10`), results over 20,000 bits (sums and differences included: 49
    terms `1/p^4000` once summed to ~900,000 bits), over 300 tokens, 40 levels of parentheses,
    literals over 400 digits, lines over 10,000 characters.

    Work is counted as well, the same way on every machine: each operation costs the bits of its
    operands plus 64, and each token of a line with math 1,000. One line may do 5,000,000 such
    units, and the napkin math of one file (both fields) 20,000,000, about 0.6 s; past that, the
    rest of the line, or each line of the file left, is not checked, and one finding says so
    (`napkin math in this file exceeds the work budget; 12 lines not checked`). The bank's costliest
    file needs 3% of that.

    Fails:
        - 10^10^10^10 = 1
    Passes:
        - 10^10 = 10,000,000,000
    """


_RULES = {
    "arithmetic": arithmetic,
    "unit-mismatch": unit_mismatch,
    "unchecked": unchecked_equation,
    "limit": math_limit,
}
