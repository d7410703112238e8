"""Device claims in `verify:` (device_ftz, device_accumulate_dtype), resolved against the GPU
evidence committed under `evidence/gpu/` by `qbank gpu probe` (qbank/gpu/resolve.py)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from qbank.finding import Finding, Severity
from qbank.rules import of, rule

if TYPE_CHECKING:
    from qbank.engine import Context
    from qbank.validate import Record


@rule("QB411", "device-claim-refuted")
def refuted(record: Record, context: Context) -> Iterator[Finding]:
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
def unverified(record: Record, context: Context) -> Iterator[Finding]:
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


def _findings(record: Record, context: Context, statuses: set[str]) -> Iterator[Finding]:
    question = record.question
    if record.tombstone or question is None or not question.verify:
        return
    from qbank.numerics.claims import DeviceAccumulateDtype, DeviceFtz

    claims = [
        (i, c) for i, c in enumerate(question.verify) if isinstance(c, DeviceFtz | DeviceAccumulateDtype)
    ]
    if not claims:
        return
    from qbank.gpu import resolve

    root = context.questions_root.parent / "evidence" if context.questions_root else None
    evidence = resolve.load(root)
    check = refuted if "refuted" in statuses else unverified
    for index, claim in claims:
        result = resolve.resolve(claim, evidence)
        if result.status in statuses:
            line, column = record.document.positions.value(("verify", index))
            message = f"{claim.claim!r} is {result.status} on {claim.device_scope}: {result.message}"
            yield of(check).finding(record.document.path, line, column, message, record.question_id)
