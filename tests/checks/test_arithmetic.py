"""The arithmetic rules in an audit: summary counts, positions, and hostile napkin math."""

from __future__ import annotations

import time
from pathlib import Path

from tests.conftest import EXAMPLES, audit_json

VALID = EXAMPLES / "valid" / "arithmetic" / "cloud" / "precision" / "cloud-202611-e000.yaml"


def test_summary_counts_equations(tmp_path: Path) -> None:
    code, report = audit_json(str(VALID))
    assert code == 0
    assert report["summary"]["math"] == {
        "equations": 3,
        "checked": 3,
        "failed": 0,
        "device_claims_confirmed": 0,
    }


def test_hostile_napkin_math_makes_findings_and_runs_nothing(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    text = VALID.read_text(encoding="utf-8")
    calculations = (
        "**Calculations:**\n"
        f"    - __import__('os').system('touch {marker}') = 0\n"
        "    - 9**9**9**9 = 1\n"
        "    - 10^10^10^10 = 5\n"
        f"    - {'1+' * 3000}1 = 3001\n"
    )
    start = text.index("**Calculations:**")
    end = text.index("**Conclusion")
    hostile = tmp_path / "cloud" / "precision" / "cloud-202611-e000.yaml"
    hostile.parent.mkdir(parents=True)
    hostile.write_text(text[:start] + calculations + "    " + text[end:], encoding="utf-8")
    began = time.perf_counter()
    code, report = audit_json(str(hostile))
    elapsed = time.perf_counter() - began
    names = [f["name"] for f in report["findings"]]
    assert code == 1 and names.count("math-limit") == 3, report["findings"]
    assert not marker.exists()
    assert elapsed < 1.0
    lines = sorted(f["line"] for f in report["findings"] if f["name"] == "math-limit")
    assert len(set(lines)) == 3  # each finding on its own line


def test_the_math_limit_rule_documents_the_work_budgets_the_code_has() -> None:
    from qbank.napkin import equations, meter
    from qbank.rules import get

    doc = " ".join(get("math-limit").doc.split())
    for stated in (
        f"operands plus {meter.OPERATION},",
        f"each token of a line with math {equations.TOKEN:,}.",
        f"One line may do {equations.LINE_WORK:,}",
        f"one file (both fields) {equations.FILE_WORK:,},",
    ):
        assert stated in doc
