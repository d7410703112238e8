"""What a question page shows of the audit's page facts (qbank/checks/facts.py, on Entry.facts): the
checked marks on napkin-math lines, a one-line summary, the claims with their GPU evidence, and the
answer the typed-answer check grades against. Nothing is computed here that the audit did not
decide; this module only words it. Everything it returns is text or JSON that the templates
escape (Jinja2 autoescape) and the scripts put in the page with textContent."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from qbank.export.markdown import Mark
from qbank.model import public
from qbank.napkin import answer

UNITS_SCRIPT = "assets/units.js"
AUDIT = "re-executed by the audit"
# Marks by the audit's verdict on a relation (facts "verdict"), the worst first: a block with
# several relations shows the worst of them.
MARKS = {
    "fails": Mark("check-fails", "✗", f"{AUDIT}: it does not hold"),
    "not checked": Mark("check-skipped", "?", "found by the audit, but not checked"),
    "holds": Mark("checked", "✓", f"{AUDIT}: it holds"),
}
FORMAT_LABELS = {
    "holds": "Holds: re-computed exactly on the CPU",
    "refuted": "Refuted",
    "unchecked": "Not checked",
    "skipped": "Not checked",
}
DEVICE_LABELS = {
    "confirmed": "Confirmed on a GPU",
    "refuted": "Refuted on a GPU",
    "inconclusive": "Inconclusive on a GPU",
    "stale": "Not yet confirmed on a GPU (the probe changed since it ran)",
    "unverified": "Not yet confirmed on a GPU",
}


def marks(checked: Sequence[Mapping[str, str]]) -> dict[str, Mark]:
    """Each source line the audit found relations on, with the mark of its worst verdict."""
    by_line: dict[str, Mark] = {}
    order = list(MARKS)
    for verdict in order:
        for relation in checked:
            if relation["verdict"] == verdict and relation["line"] not in by_line:
                by_line[relation["line"]] = _titled(MARKS[verdict], relation)
    return by_line


def _titled(mark: Mark, relation: Mapping[str, str]) -> Mark:
    why = relation.get("message", "")
    return Mark(mark.css, mark.symbol, f"{mark.title}: {why}" if why else mark.title)


def summary(checked: Sequence[Mapping[str, str]], where: str) -> str:
    """`4 equations re-executed by the audit, all hold`; "" when the audit found none."""
    held = sum(r["verdict"] == "holds" for r in checked)
    failed = sum(r["verdict"] == "fails" for r in checked)
    skipped = len(checked) - held - failed
    ran = held + failed
    if not checked:
        return ""
    text = f"{ran} equation{'s' * (ran != 1)} {where}{AUDIT}"
    if ran and not failed:
        text += ", all hold" if ran > 1 else ", it holds"
    elif failed:
        text += f": {held} hold, {failed} do{'es' * (failed == 1)} not"
    if skipped:
        text += f"; {skipped} found but not checked"
    return text


def claims(facts: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Each claim as the page lists it: its sentence, the audit's verdict in words, and for device
    claims each evidence record's line, or none (the template then says: not yet confirmed)."""
    shown = []
    for claim in facts.get("claims", ()):
        device = "device_scope" in claim
        labels = DEVICE_LABELS if device else FORMAT_LABELS
        shown.append(
            {
                "claim": claim["claim"],
                "status": claim["status"],
                "label": labels.get(claim["status"], claim["status"]),
                "message": "" if claim["status"] in ("holds", "confirmed") else claim["message"],
                "device": device,
                "scope": claim.get("device_scope", ""),
                "evidence": [_evidence(r) for r in claim.get("evidence", ())],
            }
        )
    return shown


def _evidence(record: Mapping[str, Any]) -> str:
    """`NVIDIA H100 80GB HBM3 (sm_90, cc 9.0), driver 580.159.04, CUDA 13.0, torch 2.11.0+cu130,
    probed 2026-11-23: saw preserve`: only what the record holds."""
    device = record["device"] or "an unnamed device"
    where = ", ".join(x for x in (record["device_class"], f"cc {record['cc']}" if record["cc"] else "") if x)
    parts = [f"{device} ({where})" if where else device]
    if record["driver"]:
        parts.append(f"driver {record['driver']}")
    if record["cuda"]:
        parts.append(f"CUDA {record['cuda']}")
    parts += [f"{name} {version}" for name, version in record["libs"].items()]
    if record["date"]:
        parts.append(f"probed {record['date']}")
    return f"{', '.join(parts)}: {record['probe_id']} saw {record['verdict']}"


def answer_json(facts: Mapping[str, Any]) -> str | None:
    """The answer the check grades against, as the JSON the page's script reads (a data attribute)."""
    found = facts.get("answer")
    if not found:
        return None
    return json.dumps(
        {"text": found["text"], "modes": found["modes"]}, ensure_ascii=False, separators=(",", ":")
    )


def view(facts: Mapping[str, Any]) -> dict[str, Any]:
    """What the question template needs of a page's facts."""
    checked = facts.get("checked", {})
    return {
        "napkin_summary": summary(checked.get("napkin_math", ()), ""),
        "solution_summary": summary(checked.get("realistic_solution", ()), "in this answer "),
        "claims": claims(facts),
        "answer": answer_json(facts),
        "tolerance": answer.TOLERANCE,
        "accepts": answer.ACCEPTS,
    }


def units_script() -> str:
    """assets/units.js: window.QBANK_UNITS, the grader's table (qbank.napkin.answer.units_table)."""
    return f"window.QBANK_UNITS = {public.script_json(answer.units_table())};\n"
