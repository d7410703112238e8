"""The numeric-claim rule in an audit: the seed question's claims, and refusal when FTZ is on."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from qbank.checks import numeric_claims
from qbank.numerics import verify
from tests.conftest import EXAMPLES, REPO, audit_json

SEED = REPO / "questions" / "cloud" / "precision" / "cloud-202611-5e7a.yaml"


def test_seed_question_claims_hold_and_cover_the_issue_facts() -> None:
    code, report = audit_json(str(SEED))
    assert code == 0 and report["findings"] == []
    text = SEED.read_text(encoding="utf-8")
    for fact in ('value: "1e-7"', 'expect: "2^-23"', 'value: "65,536"', "dtype: bfloat16", 'expect: "0.25"'):
        assert fact in text


def test_checker_refuses_when_the_process_flushes_subnormals(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(verify, "flushes_subnormals", lambda: True)
    code, report = audit_json(str(SEED))
    assert code == 1
    messages = {f["message"] for f in report["findings"]}
    assert len(report["findings"]) == 7 and all("flushes subnormals" in m for m in messages)


def test_refuted_claim_points_at_the_claim() -> None:
    code, report = audit_json(str(EXAMPLES / "invalid" / "numeric-claim"))
    (finding,) = report["findings"]
    assert code == 1 and finding["name"] == "numeric-claim" and "2^-10" not in finding["message"]
    assert "0.000976562" in finding["message"]


def test_a_question_may_ask_for_as_much_work_as_one_claim_not_more(tmp_path: Path) -> None:
    # Found by fuzzing: a loss_scaler claim may simulate 1,000,000 steps (0.7 s here), and a 256 KiB
    # file held 5,000 of them, an hour of audit. The claims past the budget are not run.
    folder = tmp_path / "cloud" / "precision"
    folder.mkdir(parents=True)
    valid = EXAMPLES / "valid" / "numeric-claim" / "cloud" / "precision" / "cloud-202611-e000.yaml"
    claims = "".join(
        f"  - {{kind: loss_scaler, claim: run {i}, steps: 600000, expect_skipped: 0}}\n" for i in range(50)
    )
    text = valid.read_text(encoding="utf-8").replace("verify:\n", "verify:\n" + claims)
    (folder / valid.name).write_text(text, encoding="utf-8")
    start = time.perf_counter()
    code, report = audit_json(str(tmp_path))
    assert time.perf_counter() - start < 20
    messages = [f["message"] for f in report["findings"]]
    assert code == 1 and len(messages) == 49  # the first claim runs (and holds); the other 49 do not
    assert all("ask for more than 1,000,000 steps in all" in m for m in messages)


def test_a_claim_repeated_across_questions_is_run_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:

    (source,) = (EXAMPLES / "invalid" / "numeric-claim").rglob("*.yaml")
    for copy in ("a", "b"):
        (tmp_path / copy).mkdir()
        (tmp_path / copy / source.name).write_bytes(source.read_bytes())
    runs = []
    check = verify.check
    monkeypatch.setattr(verify, "check", lambda claim: runs.append(claim) or check(claim))
    numeric_claims._PROBLEMS.clear()  # a memory from an earlier test would answer for the claim
    _, report = audit_json("--jobs", "1", str(tmp_path))
    refuted = [f for f in report["findings"] if f["name"] == "numeric-claim"]
    assert len(refuted) == 2 and refuted[0]["message"] == refuted[1]["message"]
    assert len(runs) == 1  # the file's one claim, run for the first copy only
