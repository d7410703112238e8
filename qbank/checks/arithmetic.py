"""Napkin math, re-executed: every equation in `napkin_math` (each of its sections), in
`realistic_solution` and in `common_mistake` is evaluated exactly (qbank/napkin) and compared with
what the author wrote.

The reference system asked an LLM whether the math was right, with a "5% tolerance" that lived only
in a prompt (research/anchor-vault.md). Here the policy is code, and `qbank explain arithmetic`
prints it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from qbank.checks.api import Context, MathTally
from qbank.finding import Finding, Severity
from qbank.napkin.equations import Budget, Outcome, calculations, check_text, shown_line
from qbank.rules import declare

if TYPE_CHECKING:  # the model (pydantic) loads only when a file is not in the audit cache
    from qbank.model.records import Record


def check_math(record: Record, context: Context) -> Iterator[Finding | MathTally]:
    tally = MathTally()
    results = _results(record)
    for field, outcome in outcomes(record):
        yield from _found(record, tally, field, outcome, results)
    if _has_details(record):
        yield tally


def _has_details(record: Record) -> bool:
    return not record.tombstone and isinstance(record.document.data.get("details"), dict)


def outcomes(record: Record) -> Iterator[tuple[str, Outcome]]:
    """Each relation the audit re-executes in a file, with its field (FIELDS, each all of it: wrong
    math in a conclusion or a common mistake was never read, issue 31), in order; the page facts
    (checks/facts.py) show these
    very outcomes, so a page never claims more than the audit checked. A spent work budget ends
    with one `limit` outcome, at the field of the first line not checked."""
    details = record.document.data.get("details")
    if record.tombstone or not isinstance(details, dict):
        return
    budget, first_skipped = Budget(), ""  # the fields share the file's work budget
    for field in FIELDS:
        text = details.get(field)
        if not isinstance(text, str):
            continue
        for outcome in check_text(text, budget):
            yield field, outcome
        first_skipped = first_skipped or (field if budget.skipped else "")
    spent = budget.outcome()
    if spent is not None:  # the lines not checked, as one outcome at the first of them
        yield first_skipped, spent


# A common mistake's arithmetic is checked too: it tells a wrong idea, worked correctly (`70B × 1
# byte = 70 GB`, forgetting the KV cache); on both StaffML corpora its equations all hold once a MAC
# may count as two operations (readings.py).
FIELDS = ("napkin_math", "realistic_solution", "common_mistake")


def _results(record: Record) -> frozenset[str]:
    """The lines where a relation states a result: the Calculations section and the answer. In the
    other sections and the common mistake, a relation that cannot be read is counted (the summary's
    equations less those checked) but not reported: there authors state formulas (`d = ln(0.05) /
    ln(1 - p)`, `e^2 - e + 0.06 = 0`), not results."""
    details = record.document.data.get("details")
    if not isinstance(details, dict):
        return frozenset()
    napkin, answer = details.get("napkin_math"), details.get("realistic_solution")
    lines = answer.splitlines() if isinstance(answer, str) else []
    if isinstance(napkin, str):  # each line of napkin_math with some of its Calculations section in it
        section = calculations(napkin)
        start = napkin.find(section)
        offset = 0
        for line in napkin.splitlines(keepends=True):
            if offset < start + len(section) and start < offset + len(line):
                lines.append(line)
            offset += len(line)
    return frozenset(shown_line(line) for line in lines)


def _found(
    record: Record, tally: MathTally, field: str, outcome: Outcome, results: frozenset[str]
) -> Iterator[Finding]:
    tally.add(outcome)
    reported = _RULES.get(outcome.status)
    if outcome.status == "unchecked" and outcome.line not in results:
        return
    if reported is not None:
        line, column = record.document.positions.in_value(("details", field), outcome.line)
        yield reported.finding(record.document.path, line, column, outcome.message, record.question_id)


ARITHMETIC = declare(
    "QB400",
    "arithmetic",
    """Each equation in the napkin math holds when re-computed exactly (no LLM, no floats).

    Found: `a = b`, chains `a = b = c`, `≈`, `~`, `->`, inequalities `<`, `≤`, `>`, `≥` (a value
    stated to some digits may be half a unit of its last digit off; equal values are not `<`; one
    that bounds a name with no value is a condition, not a claim), and restatements `0.0065536 (6.5 * 10^-3)`
    anywhere in napkin_math, realistic_solution and common_mistake (outside the Calculations
    section and the answer, one that cannot be read is a formula, `d = ln(0.05) / ln(1 - p)`:
    counted, not reported). Numbers are
    exact (`Fraction(Decimal(text))`); `^` and `**` are powers, `×`, `·` and `x` between numbers
    multiply, `6×10⁻⁵` and `1e-7` are read as written, `65,536` and `1_000` are one number each, `7B`/`50M`/`4.1G`
    are magnitudes. Units are converted (80 GB / 2 TB/s = 40 ms; GB is 10^9 B, GiB 2^30 B).
    `sqrt`, `ln`, `log2`, `log10`, `exp`, `min`, `max`, `ceil`, `floor` are read on either side
    (`sqrt(2400)` is an expression, not 2400 with a note); `30 min (1800 s)` is minutes. A
    literal `\\u2248` (six characters) is read as `≈`. A middle term that states a value and goes
    on with an operator, as in `1280 x 720 x 3 = 2.76 MB * 60 = 166 MB/s`, is a running
    calculation: the link before it holds if the whole term or its stated value (2.76 MB) agrees,
    and the next link starts from the whole term (2.76 MB * 60); at the end of a chain the whole
    term is the value, as ever.

    Tolerance, from what the author wrote (set from the corpora, the recall set and the bank:
    README, "Napkin math"):
      `=`        the exact value rounded or truncated to the stated digits (7.7612 → 7.76 or 7.7),
                 and at most 5% off (`5 / 3 = 2x` fails; a whole number of things may be rounded
                 up: `1,000 / 2.39 = 419 GPUs`); a whole number whose last two or more digits
                 are zeros after two or more significant ones is rounded to its last significant
                 digit (`1234 × 3 = 3,700` passes; `8 × 80 GB = 600 GB` fails);
      `≈`, `~`   rounded or truncated to the stated digits, or within 1%, or one unit of the
                 last stated digit off where that digit is not the first (`10 / 3 ≈ 3.4`
                 passes, `1 * 1 ≈ 2` fails) (`= ~105 ms` counts as `≈`);
      `->`       a step ("becomes"): from a stated value, a change (`240 GB -> 60 GB`), never a
                 finding; from a calculation, a claim, as `≈` (`2 × 3 -> 9` fails).
    A measured value after a title states what the line computes (`Total 700 GB = 8 × 80 GB`
    fails); a plain number after words may be a name (`Step 2 = 3 × 4` is not read). A stated
    range holds when the value lies in it, each end as an inequality reads it (`8 × 80 GB =
    600-700 GB` passes, `= 10-20 GB` fails). A range on a computed side is computed at both ends, and
    each must agree with the stated range's (`1-5 ms + 2-5 ms = 3-10 ms` passes, `= 3-8 ms` fails);
    one value stated for it, or a range that is subtracted or divides, is unchecked. `at` (or `@`) between two quantities on a computed side is a
    product or a quotient, as their units say: `15 ms at 3 mW = 45 uJ`, `200 MB at 5 MB/s = 40 s`
    (`each` after the second, `8 GPUs at 80 GB each`, says what the product says);
    where neither balances (`1M MACs at 2 MACs/cycle = 5.2 ms`, a clock left out) it is not read.
    `of` between things counted and a number with its unit is a product (`1000 steps of 3 s =
    3000 s`); after a unit (`10 GB of 80 GB`, a share) or before a bare number it is not. `half
    of`, `a third of`, `a quarter of`, `twice` before a number are exact factors. A
    duration in smaller and smaller units is their sum (`1 h 30 min = 90 min`).
    Each stated value is compared with the last computed expression before it, so rounding never
    compounds along a chain. A line that fails as written is an error only when no other reading
    agrees: `2B` as two billion or two bytes, number by number; `KB` as 1000 or 1024 bytes (not
    when the equation writes `KiB`); a plain number equal to the ratio of two units the line writes
    as that change of unit (`1000 / 20ms = 50 FPS`, `/ 8` beside bits); a result stated above the
    line as every value that rounds to it (`= 2.07 MB`, then `2.07 MB * 200 = 414.7 MB`); names
    bound above in the block (`N = 8`) as their values. Units that cannot balance are tried as
    labels with their magnitude prefixes (a `unit-labels` warning when only that agrees). When one
    side drops units that the other writes (`7 * 2 = 14 GB`), the value is compared in each unit
    the equation writes. The message shows the recomputed value, and the reading it came closest
    with.

    Fails:
        - 26 GB / 3.35 TB/s = 8.76 ms
    Passes:
        - 26 GB / 3.35 TB/s = 7.76 ms
    """,
)


UNIT_MISMATCH = declare(
    "QB401",
    "unit-mismatch",
    """Both sides of an equation have the same dimensions, and quantities that are added have the
    same dimensions: bytes are not seconds, and `$/hr × 720` is not dollars.

    Fails:
        - 80 GB / 2 TB/s = 40 GB
    Passes:
        - 80 GB / 2 TB/s = 40 ms
    """,
)


UNCHECKED_EQUATION = declare(
    "QB402",
    "unchecked-equation",
    """An equation was found but qbank could not read it, so it is not checked: a name with no
    value in the napkin block that does not cancel (`2 * M * 140 GB ≈ 280 GB`), ranges, two
    decibel levels added, or words whose meaning as a unit is unclear. A name is never dropped
    (`N - 1 = 2` is not read as `- 1 = 2`): bound above it in the block (`N = 3`, `Nodes (N): 3`)
    it stands for its value; bound nowhere, the line holds only if the name cancels, which sympy
    decides (`(4N)^2 / N^2 = 16x` holds).

    Write the numbers out, one equation per bullet, with units qbank knows (`qbank explain
    arithmetic`), bind each name before its use, or move the words out of the equation.

    Fails:
        - 2 * M * 140 GB ≈ 280 GB
    Passes:
        - 2 * 2 * 140 GB ≈ 560 GB
    """,
    Severity.WARNING,
)


MATH_LIMIT = declare(
    "QB403",
    "math-limit",
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
    """,
)


UNIT_LABELS = declare(
    "QB404",
    "unit-labels",
    """An equation whose units do not balance, but whose numbers agree once each unit is read as a
    label with its magnitude prefix alone (`GB` 10^9, `ms` 10^-3, `h` 1): the arithmetic holds and
    the units are written loosely. Real writing does this (`10 GOPS * 60 FPS = 0.6 TOPS`, where
    GOPS means operations per frame; `8.8h x 3600s x 10 = 316,800 inferences/day`), so it is a
    warning, not an error. A factor of 1,000 is never explained away: `80 GB / 2 TB/s = 40 GB` is a
    `unit-mismatch` (0.04, not 40).

    Write the units the quantities have (`10 GOP/frame * 60 FPS = 0.6 TOPS`).

    Fails:
        - 10 GOPS * 60 FPS = 0.6 TOPS
    Passes:
        - 10 GOP * 60 FPS = 0.6 TOPS
    """,
    Severity.WARNING,
)


_RULES = {
    "arithmetic": ARITHMETIC,
    "unit-mismatch": UNIT_MISMATCH,
    "unchecked": UNCHECKED_EQUATION,
    "labels": UNIT_LABELS,
    "limit": MATH_LIMIT,
}
