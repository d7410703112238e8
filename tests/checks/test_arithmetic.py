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


def _with(tmp_path: Path, old: str, new: str) -> Path:
    """The valid example with `old` replaced by `new`, in a bank-shaped folder."""
    text = VALID.read_text(encoding="utf-8")
    assert old in text
    edited = tmp_path / "cloud" / "precision" / VALID.name
    edited.parent.mkdir(parents=True, exist_ok=True)
    edited.write_text(text.replace(old, new), encoding="utf-8")
    return edited


def _wrong_lines(path: Path) -> list[tuple[int, str]]:
    _, report = audit_json(str(path))
    return [(f["line"], f["name"]) for f in report["findings"] if f["name"] == "arithmetic"]


def test_equations_in_every_napkin_section_and_in_the_common_mistake_are_checked(tmp_path: Path) -> None:
    """issue 31: wrong math in the conclusion, the assumptions or the common mistake was never read."""
    cases = [
        ("**Conclusion:** scaled,", "**Conclusion:** 8 × 80 GB = 600 GB; scaled,", 24),
        ("**Assumptions:** a late-training", "**Assumptions:** 2 × 3 = 7; a late-training", 22),
        ("as convergence.", "as convergence; 8 × 80 GB = 600 GB.", 18),
    ]
    for old, new, line in cases:
        assert _wrong_lines(_with(tmp_path, old, new)) == [(line, "arithmetic")]
        right = new.replace("600 GB", "640 GB").replace("= 7", "= 6")
        assert _wrong_lines(_with(tmp_path, old, right)) == []


def test_a_formula_outside_the_results_is_counted_not_reported(tmp_path: Path) -> None:
    """A relation with names and no values (`p^2 - p + 0.06 = 0`) in an assumption is a formula:
    counted among the equations, not checked, and no warning; among the results, a warning."""
    edited = _with(
        tmp_path,
        "**Assumptions:** a late-training",
        "**Assumptions:** p^2 - p + 0.06 = 0; a late-training",
    )
    code, report = audit_json(str(edited))
    assert (code, report["findings"]) == (0, [])
    math = report["summary"]["math"]
    assert math["equations"] == math["checked"] + 1
    in_results = _with(tmp_path, "**Calculations:** ", "**Calculations:** p^2 - p + 0.06 = 0; ")
    _, report = audit_json(str(in_results))
    assert [f["name"] for f in report["findings"]] == ["unchecked-equation"]
