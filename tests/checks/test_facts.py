"""Page facts (qbank/checks/facts.py): the audit's own verdicts, per question, for the study site."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from qbank import engine
from tests.export.facts_bank import ANSWERED, NO_EVIDENCE, write_facts_bank


def _facts_of(root: Path) -> dict[str, dict[str, Any]]:
    """The page facts of each published question, by id, as an export audit makes them (its views)."""
    found = {}
    for path, view in engine.audit(engine.Settings(views=True), root).views:
        if view.facts:
            found[Path(path).stem] = json.loads(view.facts)
    return found


@pytest.fixture(scope="module")
def facts(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    return _facts_of(write_facts_bank(tmp_path_factory.mktemp("facts-bank")))


def test_facts_are_json_with_stable_keys(facts: dict[str, dict[str, Any]]) -> None:
    for found in facts.values():
        assert sorted(found) == ["answer", "checked", "claims"]
        assert json.loads(json.dumps(found)) == found


def test_checked_lists_each_relation_the_audit_re_executed(facts: dict[str, dict[str, Any]]) -> None:
    checked = facts[ANSWERED]["checked"]
    assert [(r["line"], r["verdict"]) for r in checked["napkin_math"]] == [
        ("- 80 GB / 2 TB/s = 40 ms", "holds"),
        ("- 40 ms * 25 = 1 s", "holds"),
    ]
    assert [r["relation"] for r in checked["realistic_solution"]] == ["80 GB / 2 TB/s = 40 ms per load"]


def test_a_failing_equation_is_a_fact_too(facts: dict[str, dict[str, Any]]) -> None:
    wrong = facts["cloud-202611-e006"]["checked"]["realistic_solution"]  # `2 * 3 = 7`: withheld, but seen
    assert [(r["status"], r["verdict"]) for r in wrong] == [("arithmetic", "fails")] and wrong[0]["message"]


def test_claims_carry_the_audits_verdict_and_the_evidence_behind_it(facts: dict[str, dict[str, Any]]) -> None:
    fp16, device = facts[ANSWERED]["claims"]
    assert (fp16["kind"], fp16["status"]) == ("format_constant", "holds")
    assert (device["kind"], device["status"], device["device_scope"]) == ("device_ftz", "confirmed", "H100")
    (record,) = device["evidence"]
    assert record["device"].startswith("NVIDIA H100") and record["device_class"] == "sm_90"
    assert record["driver"] and record["date"] and record["libs"]["torch"]
    assert record["probe_id"] == "ftz.float16.matmul.tensor_core" and record["verdict"] == "preserve"


def test_a_claim_without_evidence_in_scope_has_none_invented(facts: dict[str, dict[str, Any]]) -> None:
    (claim,) = facts[NO_EVIDENCE]["claims"]
    assert claim["status"] == "unverified" and claim["evidence"] == []


def test_no_evidence_folder_no_confirmation(tmp_path: Path) -> None:
    root = write_facts_bank(tmp_path)
    for item in (root / "evidence" / "gpu").iterdir():
        for file in item.iterdir():
            file.unlink()
    device = _facts_of(root)[ANSWERED]["claims"][1]
    assert device["status"] == "unverified" and device["evidence"] == []


def test_the_answer_is_the_conclusions_value_from_a_checked_equation(
    facts: dict[str, dict[str, Any]],
) -> None:
    found = facts[ANSWERED]["answer"]
    assert found["text"] == "40 ms" and found["relation"] == "80 GB / 2 TB/s = 40 ms"
    assert {m["value"] for m in found["modes"]} == {"1/25"}  # 80e9 B / 2e12 B/s, exact
    assert all(m["dims"] == [0, 1, 0, 0, 0, 0, 0, 0, 0] for m in found["modes"])
    # `1e-8 * 65,536 = 0.00065536`, but the conclusion states no number: no answer
    assert facts["cloud-202611-e000"]["answer"] is None


def test_the_answer_is_the_computed_side_not_the_rounded_statement(tmp_path: Path) -> None:
    root = write_facts_bank(tmp_path)
    path = root / "questions" / "cloud" / "precision" / f"{ANSWERED}.yaml"
    text = path.read_text(encoding="utf-8").replace(
        "- 80 GB / 2 TB/s = 40 ms", "- 26 GB / 3.35 TB/s = 7.76 ms"
    )
    path.write_text(text.replace("one load takes 40 ms", "one load takes 7.76 ms"), encoding="utf-8")
    found = _facts_of(root)[ANSWERED]["answer"]
    assert found["text"] == "7.76 ms" and found["modes"][0]["value"] == "13/1675"  # 26/3350 s, not 7.76 ms


def test_facts_only_when_an_export_asks(tmp_path: Path) -> None:
    root = write_facts_bank(tmp_path)
    assert engine.audit(engine.Settings(), root).views == []
