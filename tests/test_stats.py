"""qbank/stats.py (`qbank stats`): copies and template stems in the bank (issue 26, item 4)."""

from __future__ import annotations

from pathlib import Path

from qbank import similarity, stats
from tests.conftest import EXAMPLES, REPO, run_cli


def _row(qid: str, question: str, answer: str) -> dict[str, object]:
    return {"id": qid, "question": question, "details": {"realistic_solution": answer}}


def test_copies_groups_same_question_and_answer_numbers_aside_and_nothing_else() -> None:
    rows = [
        _row("cloud-1", "What ridge point?", "The ridge point is about 203 FLOP per byte."),
        _row("cloud-2", "What ridge point?", "The ridge point is about 203 FLOP per byte."),
        _row("cloud-3", "What ridge point?", "The ridge point is about 591 FLOP per byte."),
        _row("cloud-4", "Which link?", "NVLink."),
    ]
    # as the rule duplicate-content compares them: numbers and names masked
    assert stats.copies(rows, similarity.content_key) == [["cloud-1", "cloud-2", "cloud-3"]]


def test_device_claims_are_counted_by_how_the_evidence_resolves_them() -> None:
    claim = {
        "kind": "device_ftz",
        "claim": "On an H100, torch.compile flushes the fp32 subnormals that exp2 produces.",
        "dtype": "float32",
        "op": "exp2",
        "op_path": "torch_compile",
        "device_scope": "H100",
        "expect": "flush",
    }
    wrong = {**claim, "claim": "On an H100, torch.compile keeps them.", "expect": "preserve"}
    v100 = {**claim, "claim": "A V100 flushes them.", "device_scope": "V100"}
    rows = [{"verify": [claim, wrong]}, {"verify": [v100, {"kind": "cast"}]}]
    found = stats.device_claims(rows, REPO / "evidence")
    assert found == {"confirmed": 1, "refuted": 1, "unverified": 1}


def test_the_command_prints_the_composition(tmp_path: Path) -> None:
    result = run_cli("stats", str(EXAMPLES / "valid" / "title-case" / "cloud"))
    assert result.exit_code == 0, result.output
    assert result.output.startswith("1 questions; each cell: written (not generated) / generated\n")
    assert "| cloud | 0 / 0 | 0 / 0 | 1 / 0 |" in result.output and "audit summary: {" in result.output
