"""Device claims in `verify:` (device_ftz, device_accumulate_dtype), resolved against the GPU
evidence committed under `evidence/gpu/` by `qbank gpu probe` (qbank/gpu/resolve.py)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from qbank.checks.api import Context, MathTally
from qbank.finding import Finding, Severity
from qbank.rules import rule, rule_of

if TYPE_CHECKING:  # the model (pydantic) loads only when a file is not in the audit cache
    from qbank.model.records import Record


@rule("QB411", "device-claim-refuted")
def refuted(record: Record, context: Context) -> Iterator[Finding | MathTally]:
    """A device claim that recorded GPU evidence in its scope contradicts.

    Evidence comes from `qbank gpu probe` runs on real devices (evidence/gpu/<class>/<probe>.jsonl),
    whose controls all passed; only records from device classes inside `device_scope` count.

    Fails:
        verify:
          - {kind: device_ftz, claim: "torch.compile keeps fp32 subnormals from exp2 on H100",
             dtype: float32, op: exp2, op_path: torch_compile, device_scope: H100, expect: preserve}
    Passes:
        verify:
          - {kind: device_ftz, claim: "torch.compile flushes fp32 subnormals from exp2 on H100",
             dtype: float32, op: exp2, op_path: torch_compile, device_scope: H100, expect: flush}
    """
    yield from _findings(record, context, {"refuted"})


@rule("QB412", "device-claim-unverified", Severity.WARNING)
def unverified(record: Record, context: Context) -> Iterator[Finding | MathTally]:
    """A device claim that no fresh, conclusive evidence from its device scope covers: unverified
    (no record from those device classes), stale (the probe changed since it ran) or inconclusive
    (a control failed). The message says what other device classes showed and what the
    literature (evidence/literature.yaml, weaker than a probe) says.

    Fails:
        verify:
          - {kind: device_ftz, claim: "older V100 FP16 kernel paths may flush FP16 subnormals",
             dtype: float16, op: add, op_path: ptx, device_scope: V100, modality: may, expect: flush}
    Passes:
        verify:
          - {kind: device_ftz, claim: "H100 fp16 tensor cores keep subnormal inputs and outputs",
             dtype: float16, op: matmul, op_path: tensor_core, device_scope: H100, expect: preserve}
    """
    yield from _findings(record, context, {"unverified", "stale", "inconclusive"})


@rule("QB413", "evidence-record")
def evidence_record(evidence_dir: Path, shown: Callable[[Path], str]) -> Iterator[Finding]:
    """An evidence record (a line of evidence/gpu/<class>/<probe>.jsonl) that is not used: unreadable,
    or contradicting its own data.

    A pull request can add or edit evidence, so nothing in it is trusted. Unreadable: bytes that are
    not UTF-8, a file over 4 MiB or a line over 256 KiB, JSON nested deeper than 16 levels or holding
    an integer of more than 20 digits, a field of the wrong type, or a record filed under another
    probe or device class; claims that probe answers on that class are then inconclusive, never
    confirmed. Contradicting: the record's outputs are replayed through its probe (CPU reference,
    classification, controls) and what it states differs, as a `verdict` edited by hand does; it is
    left out, and the other records decide. Checked once per audit of the whole bank.

    Fails:
        (a newer line in evidence/gpu/sm_90/ftz.float16.add.ptx.jsonl, its cases preserved)
        {"cases": [{"class": "ieee", "out": "0x0002", "ref": "0x0002", ...}, ...],
         "verdict": "flush", "timestamp_utc": "2027-01-01T00:00:00Z", ...}
    Passes:
        (the record as `qbank gpu probe` wrote it)
        {"cases": [{"class": "ieee", "out": "0x0002", "ref": "0x0002", ...}, ...],
         "verdict": "preserve", "timestamp_utc": "2026-11-23T02:20:15Z", ...}
    """
    from qbank.gpu import resolve  # no numpy unless there are records to replay

    for problem in resolve.load(evidence_dir).problems:
        path = shown(problem.path)
        yield rule_of(evidence_record).finding(path, problem.line, problem.column, problem.message)


def _findings(record: Record, context: Context, statuses: set[str]) -> Iterator[Finding | MathTally]:
    question = record.question
    if record.tombstone or question is None or not question.verify:
        return
    from qbank.numerics.claims import DeviceAccumulateDtype, DeviceFtz  # pydantic: only with claims

    claims = [
        (i, c) for i, c in enumerate(question.verify) if isinstance(c, DeviceFtz | DeviceAccumulateDtype)
    ]
    if not claims:
        return
    from qbank.gpu import resolve  # numpy: only for a question with device claims

    evidence = resolve.load(evidence_dir(context))
    check = refuted if "refuted" in statuses else unverified
    confirmed = 0
    for index, claim in claims:
        result = resolve.resolve(claim, evidence)
        confirmed += result.status == "confirmed"
        if result.status in statuses:
            line, column = record.document.positions.value(("verify", index))
            message = f"{claim.claim!r} is {result.status} on {claim.device_scope}: {result.message}"
            yield rule_of(check).finding(record.document.path, line, column, message, record.question_id)
    if check is refuted:  # counted once per claim, by the rule every audit runs
        yield MathTally(device_claims_confirmed=confirmed)


def evidence_dir(context: Context) -> Path | None:
    """The bank's evidence/ folder, beside its questions/ (None outside a bank: no evidence)."""
    return context.questions_root.parent / "evidence" if context.questions_root else None
