"""Page facts: what the audit re-executed for one question, as the study site shows it (issue 29).

The exporter computes none of this: every verdict here is the audit's own, from the same code the
rules run (arithmetic.outcomes, numeric_claims.verdicts, gpu.resolve), so a page never claims more
than the audit checked. `page_facts(record, context)` returns plain JSON (stable keys):

    checked   {"napkin_math": [...], "realistic_solution": [...], "common_mistake": [...]}: each
              relation the audit
              re-executed, in order, as {"line": the source line, stripped; "relation": the
              relation as read; "status": ok | labels | arithmetic | unit-mismatch | unchecked |
              limit; "verdict": holds | fails | not checked; "message": why, when it is not ok}
    claims    [...]: each `verify:` claim, in order, as {"index", "kind", "claim" (its sentence),
              "status", "verdict", "message"}; format claims (qbank/numerics) have status holds |
              refuted | unchecked | skipped; device claims (evidence/gpu/) confirmed | refuted |
              inconclusive | stale | unverified, with "device_scope" and "evidence": the records
              the verdict rests on ([] when there are none: never invented), each {"device",
              "device_class", "cc", "driver", "cuda", "libs", "date", "probe_id", "verdict"}
    answer    the question's numeric answer, or null. The value stated in the `**Conclusion…**`
              section of napkin_math that equals (same value and dimensions, as the audit reads
              both) the stated result of an `=` or `≈` the audit checked "ok" in napkin_math: the
              first such value of the conclusion, and the last such equation. Its
              exact value is that equation's computed side, evaluated by the audit's evaluator in
              each reading mode where the equation holds (units.MODES, less the binary `KB` where
              it writes an IEC unit, as the audit does): {"text": as the conclusion writes it;
              "relation": the equation; "modes": [{"b_billions", "binary_kb", "value": "num/den",
              "dims": [..., as units.BASE]}]}. qbank/napkin/answer.py grades a typed answer
              against it.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from qbank.checks import arithmetic, device, numeric_claims
from qbank.checks.api import Context
from qbank.napkin import answer as typed
from qbank.napkin import units
from qbank.napkin.equations import LINE_WORK, Outcome, Value, evaluate_term, read_term, within_tolerance
from qbank.napkin.lexer import NapkinError, normalise, tokenize
from qbank.napkin.meter import metered

if TYPE_CHECKING:
    from qbank.model.records import Record

FIELDS = arithmetic.FIELDS
_VERDICT = {
    "ok": "holds",
    "labels": "holds",
    "arithmetic": "fails",
    "unit-mismatch": "fails",
    "unchecked": "not checked",
    "limit": "not checked",
}


def page_facts(record: Record, context: Context) -> dict[str, Any]:
    """The audit's facts for one validated question (see the module's docstring)."""
    found = list(arithmetic.outcomes(record))
    return {
        "checked": {field: [_checked(o) for f, o in found if f == field] for field in FIELDS},
        "claims": _claims(record, context),
        "answer": _answer(record, [o for f, o in found if f == "napkin_math"]),
    }


def _checked(outcome: Outcome) -> dict[str, str]:
    return {
        "line": outcome.line,
        "relation": outcome.text,
        "status": outcome.status,
        "verdict": _VERDICT.get(outcome.status, "not checked"),
        "message": "" if outcome.status == "ok" else outcome.message,
    }


# --- claims --------------------------------------------------------------------------------------


def _claims(record: Record, context: Context) -> list[dict[str, Any]]:
    question = record.question
    if record.tombstone or question is None or not question.verify:
        return []
    claims: dict[int, dict[str, Any]] = {}
    for index, status, message in numeric_claims.verdicts(question):
        verdict = {"skipped": "not checked: past the work budget"}.get(status, message or "")
        claims[index] = _claim(index, question.verify[index], status, verdict)
    from qbank.numerics.claims import DeviceAccumulateDtype, DeviceFtz

    devices = [
        (i, c) for i, c in enumerate(question.verify) if isinstance(c, DeviceFtz | DeviceAccumulateDtype)
    ]
    if devices:
        from qbank.gpu import resolve  # numpy: only for a question with device claims

        evidence = resolve.load(device.evidence_dir(context))
        for index, claim in devices:
            result = resolve.resolve(claim, evidence)
            claims[index] = _claim(index, claim, result.status, result.message) | {
                "device_scope": claim.device_scope,
                "evidence": [_record(r) for r in resolve.behind(claim, evidence)],
            }
    return [claims[i] for i in sorted(claims)]


def _claim(index: int, claim: Any, status: str, message: str) -> dict[str, Any]:
    return {"index": index, "kind": claim.kind, "claim": claim.claim, "status": status, "message": message}


def _record(record: dict[str, Any]) -> dict[str, Any]:
    """What a page says of one evidence record: only what the record holds (a missing field is "")."""
    found = record.get("device") or {}
    libs = record.get("libs") or {}
    return {
        "device": str(found.get("name", "")),
        "device_class": str(found.get("device_class", "")),
        "cc": str(found.get("cc", "")),
        "driver": str(record.get("driver", "")),
        "cuda": str(record.get("cuda_runtime_torch") or record.get("cuda_driver_api") or ""),
        "libs": {str(k): str(v) for k, v in sorted(libs.items())},
        "date": str(record.get("timestamp_utc", ""))[:10],
        "probe_id": str(record.get("probe_id", "")),
        "verdict": str(record.get("verdict", "")),
    }


# --- the answer ----------------------------------------------------------------------------------

_CONCLUSION = re.compile(r"\*\*Conclusion[^\n]*?\*\*:?(.*)\Z", re.S)
# A number with what may follow it in prose: a magnitude letter, a unit or count word, `/word`.
_STATED = re.compile(
    r"(?<![\w.,^])(\$ ?)?(" + typed.NUMBER + r")(?:([kKMGT]|B(?!/))(?![A-Za-z0-9]))?"
    r"(?: ?(%|(?:" + typed.WORD + r")(?:/(?:" + typed.WORD + r"))?))?"
)
_RESULT_RELATIONS = ("=", "≈")


def _answer(record: Record, found: list[Outcome]) -> dict[str, Any] | None:
    details = record.document.data.get("details")
    text = details.get("napkin_math") if isinstance(details, dict) else None
    conclusion = _CONCLUSION.search(text) if isinstance(text, str) else None
    if conclusion is None:
        return None
    results = [r for r in (_result(o) for o in found if o.status == "ok") if r is not None]
    if not results:
        return None
    for shown, stated in _stated_values(conclusion.group(1)):
        for relation, exact, value in reversed(results):
            if stated.dims == value.dims and stated.value == value.value:
                return {"text": shown, "relation": relation, "modes": exact}
    return None


def _stated_values(text: str) -> list[tuple[str, typed.Reading]]:
    """Each number the conclusion states, with its unit where the grader reads one, in order: as
    written, and as read in the first mode."""
    values = []
    for match in _STATED.finditer(text):
        shown = match.group(0).strip()
        read = typed.read(shown, units.MODES[:1])
        if isinstance(read, str) and match.group(4):  # a word that is no unit: the number alone
            shown = match.group(0)[: match.start(4) - match.start(0)].strip()
            read = typed.read(shown, units.MODES[:1])
        if not isinstance(read, str):
            values.append((shown, read[units.MODES[0]]))
    return values


def _result(outcome: Outcome) -> tuple[str, list[dict[str, Any]], typed.Reading] | None:
    """An equation checked ok whose right side states a value and whose left side computes one: the
    equation, the computed side in each mode where the stated value agrees with it (the audit's
    tolerance: `≈` for `≈` and `~`, else `=`), and the stated value in the first mode."""
    try:
        with metered(LINE_WORK):
            return _sides(outcome.text)
    except NapkinError:  # a side that reads only in its line's context (names bound above): none
        return None


def _sides(text: str) -> tuple[str, list[dict[str, Any]], typed.Reading] | None:
    normal = normalise(text)
    tokens = tokenize(normal)
    relations = [i for i, t in enumerate(tokens) if t.kind == "rel"]
    if len(relations) != 1 or tokens[relations[0]].text not in _RESULT_RELATIONS:
        return None
    k = relations[0]
    if k == 0 or k == len(tokens) - 1:
        return None
    approx = tokens[k].text == "≈" or any(t.kind == "tilde" for t in tokens)
    iec = any(t.kind == "word" and ("iB" in t.text or "ibit" in t.text) for t in tokens)
    modes = tuple(m for m in units.MODES if not (iec and m.binary_kb))
    left = evaluate_term(read_term(tokens[:k], normal), modes)
    right = evaluate_term(read_term(tokens[k + 1 :], normal), modes)
    if not isinstance(left, Value) or not isinstance(right, Value):
        return None
    if left.stated is not None or right.stated is None or left.unknown:
        return None  # a computed side on the left, a stated value on the right, no unknown words
    exact = []
    for m in modes:
        x, y, quantum = left.by_mode[m], right.by_mode[m], right.stated[m]
        holds = (
            x.value == y.value
            if quantum == 0 or y.value == 0
            else within_tolerance(x.value, y.value, quantum, approx)
        )
        if x.dims == y.dims and holds:
            exact.append(typed.mode_fields(m) | {"value": typed.rational(x.value), "dims": list(x.dims)})
    if not exact:
        return None
    first = right.by_mode[modes[0]]
    return text, exact, typed.Reading(first.value, right.stated[modes[0]], first.dims)
