"""Facts about number formats stated in an answer or its napkin math, checked against the formats'
exact values (qbank/numerics/prose.py; issue 31)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from qbank.checks.api import Context
from qbank.finding import Finding
from qbank.numerics import prose
from qbank.rules import rule, rule_of

if TYPE_CHECKING:  # the model (pydantic) loads only when a file is not in the audit cache
    from qbank.model.records import Record

# Where the author states facts. The scenario and the common mistake describe what someone believes
# ("the team assumes BF16 has 10 mantissa bits"), so they are not read.
FIELDS = ("realistic_solution", "napkin_math")


@rule("QB414", "format-fact")
def check_format_facts(record: Record, context: Context) -> Iterator[Finding]:
    """A format's constant stated in prose in the answer or the napkin math is the format's exact
    value: largest finite value, smallest normal and subnormal values, epsilon, exponent and
    mantissa bits, for FP16, BF16, FP32, FP8 E4M3 and E5M2 (`verify:` claims state the same facts
    for the audit to re-execute; this reads the ones written as text).

    A mantissa may count the implicit bit or not, epsilon may be the gap after 1 or half of it, and a
    value holds when it is the exact one rounded or truncated to the digits it states (`65K`), or
    within 5% after `~`, `≈` or `about`. A clause that negates or reports a belief (`not`, `assume`,
    `instead of`) is not read, nor is "smallest" without normal or subnormal.

    Fails:
        - FP16's max is 65,536, so the loss scale must stay below it.
        - BF16 has 10 mantissa bits.
        - The smallest FP16 subnormal is 2^-14.
    Passes:
        - FP16's max is 65,504, so the loss scale must stay below it.
        - BF16 has 8 exponent bits and 7 mantissa bits.
        - Candidates assume BF16 has 10 mantissa bits.
    """
    details = record.document.data.get("details")
    if record.tombstone or not isinstance(details, dict):
        return
    for field in FIELDS:
        text = details.get(field)
        if not isinstance(text, str):
            continue
        for clause, problem in prose.problems(text):
            row, column = record.document.positions.in_value(("details", field), clause)
            yield rule_of(check_format_facts).finding(
                record.document.path, row, column, problem, record.question_id
            )
