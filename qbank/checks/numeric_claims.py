"""`verify:` claims about number formats, re-executed exactly on the CPU (qbank/numerics)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from qbank import memo
from qbank.checks.api import Context
from qbank.finding import Finding
from qbank.napkin.equations import FILE_WORK, LINE_WORK
from qbank.napkin.lexer import NapkinError
from qbank.napkin.meter import metered
from qbank.rules import rule, rule_of

if TYPE_CHECKING:  # the model (pydantic) loads only when a file is not in the audit cache
    from qbank.model.records import Record

# What one claim may ask for (qbank/numerics/claims.py) is what a question's claims may ask for
# together, or a 256 KiB file of 5,000 such claims would take minutes (benchmarks/README.md, claims).
BUDGET = {"accumulation": 10_000_000, "loss_scaler": 1_000_000}
_UNITS = {"accumulation": "additions", "loss_scaler": "steps"}
# The exact arithmetic of a question's claims (reading their numbers, rounding them), in the units of
# qbank/napkin/meter.py: a claim's numbers are at most 200 characters, as much as a line of napkin
# math, and its claims together may do what a file's napkin math may (100 claims that each summed 16
# fractions `1/p^k` took 30 s, issue 30).
CLAIM_WORK = LINE_WORK
WORK = FILE_WORK


@rule("QB410", "numeric-claim")
def check_claims(record: Record, context: Context) -> Iterator[Finding]:
    """Each claim in a question's `verify:` list holds under exact IEEE arithmetic.

    Kinds (research/fp16-gpu.md §2; shapes in `qbank schema`): format_constant, representable,
    cast, overflow, underflow, scaled_product, round_trip, arithmetic (each op rounded, or fp32
    then one rounding), accumulation (sequential or pairwise, in the dtype), loss_scaler (PyTorch
    GradScaler's update rule). dtypes: float16, float32 (numpy), bfloat16, float8_e4m3fn,
    float8_e5m2 (ml_dtypes). Numbers are strings, read exactly like napkin math; a stated value is
    the exact one rounded to the digits it states, never truncated (`0.333` is not bfloat16's 1/3,
    0.333984375), and a cast stated as its own input must be exact; with `approx: true`, the `≈`
    tolerance of `qbank explain arithmetic`.

    The checker refuses to run, with this finding on every claim, in a process that flushes
    subnormals to zero (research P13): its bfloat16 answers would be wrong. A question's claims
    together add at most 10,000,000 values (accumulation) and simulate at most 1,000,000 scaler
    steps (loss_scaler), as much as one claim may; the claims past that are not run, and say so.
    Their exact arithmetic shares the work budget of a file's napkin math (`qbank explain
    math-limit`); the claims left when it is spent are not run, and one finding counts them.

    Fails:
        verify:
          - {kind: cast, claim: "0.00097656 becomes 0 in BF16", dtype: bfloat16, value: "0.00097656", expect: "0"}
    Passes:
        verify:
          - {kind: cast, claim: "0.00097656 becomes 2^-10 in BF16", dtype: bfloat16, value: "0.00097656", expect: "2^-10"}
    """
    question = record.question
    if record.tombstone or question is None or not question.verify:
        return
    skipped = []
    for index, status, message in verdicts(question):
        if status == "skipped":
            skipped.append(index)
        elif message:
            yield _finding(record, index, message)
    if skipped:
        n = len(skipped)
        message = f"not checked: this question's claims exceed the work budget; {n:,} claim{'s' * (n > 1)} not checked"
        yield _finding(record, skipped[0], message)


def verdicts(question: Any) -> Iterator[tuple[int, str, str | None]]:
    """Each format claim of a question (device claims are left to checks/device.py) as the audit
    decides it: its index, a status (holds, refuted, unchecked: not run, and the message says why;
    skipped: past the work budget) and the finding's message (None when it holds). The rule above
    and the page facts (checks/facts.py) both read this, so a page shows the audit's verdict."""
    from qbank.numerics.claims import DEVICE_KINDS  # pydantic: only for a question with claims

    if all(claim.kind in DEVICE_KINDS for claim in question.verify):
        return  # device claims are resolved against GPU evidence (qbank/checks/device.py)
    from qbank.numerics import verify  # numpy and ml_dtypes load only for questions with claims

    refused = verify.flushes_subnormals()
    spent = dict.fromkeys(BUDGET, 0)
    work = WORK
    for index, claim in enumerate(question.verify):
        if claim.kind in DEVICE_KINDS:
            continue
        if work <= 0 and not refused:
            yield index, "skipped", None
            continue
        message = _unchecked(claim, refused, spent)
        status = "unchecked"
        if message is None:
            message, cost = _refuted(claim, verify)
            work -= cost
            status = "refuted" if message else "holds"
        yield index, status, message


def _finding(record: Record, index: int, message: str) -> Finding:
    line, column = record.document.positions.value(("verify", index))
    return rule_of(check_claims).finding(record.document.path, line, column, message, record.question_id)


def _unchecked(claim: Any, refused: bool, spent: dict[str, int]) -> str | None:
    """Why a claim is not run: a process that flushes subnormals, or a question whose claims ask
    for more work than BUDGET (`spent` counts it, claim by claim)."""
    if refused:
        return "not checked: this process flushes subnormals to zero (FTZ/DAZ), so results would be wrong"
    if claim.kind not in BUDGET:
        return None
    spent[claim.kind] += claim.n if claim.kind == "accumulation" else claim.steps
    if spent[claim.kind] <= BUDGET[claim.kind]:
        return None
    work = f"{BUDGET[claim.kind]:,} {_UNITS[claim.kind]}"
    return f"not checked: this question's {claim.kind} claims ask for more than {work} in all"


def _refuted(claim: Any, verify: Any) -> tuple[str | None, int]:
    """Why a claim is false (None: it holds), and the work that took: the same from the memory
    below as when run, so a question's budget does not depend on what ran before it."""
    # Claims recur across a bank (this repository's 911 claims are 425 distinct ones), and a
    # loss-scaler claim may simulate a million steps: each is run once. The key is the claim's type
    # and every field, as JSON (the loss scaler's list and mapping fields make the model unhashable).
    key = type(claim), claim.model_dump_json()
    if key not in _PROBLEMS:
        _PROBLEMS.make_room()
        with metered(CLAIM_WORK) as meter:
            problem = _problem(claim, verify.check)
        _PROBLEMS[key] = problem, meter.spent
    problem, cost = _PROBLEMS[key]
    return (f"{claim.claim!r} is refuted: {problem}" if problem else None), cost


_PROBLEMS = memo.Table("checks.numeric_claims.problems")  # (type, JSON) -> (problem, work)


def _problem(claim: Any, check: Callable[[Any], str | None]) -> str | None:
    try:
        return check(claim)
    except NapkinError as exc:
        return f"cannot read the claim: {exc}"
