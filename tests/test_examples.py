"""Every rule has a failing and a passing example under tests/examples/, run through the real CLI.

invalid/<rule>/… files start with `# expect: CODE@LINE:COL [PATH]` (PATH relative to the rule's
folder when the finding is in another file); `expect.txt` holds expectations for files that cannot
carry a comment (a dangling symlink). valid/<rule>/… must audit with no findings at all.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import EXAMPLES, audit_json

from qbank.catalog import all_rules

RULES = [r.name for r in all_rules()]
EXPECT = re.compile(r"(QB\d+)@(\d+):(\d+)(?: (\S+))?")


def expectations(rule_dir: Path) -> set[tuple[str, str, int, int]]:
    expected = set()
    sources = [
        (p, p.read_bytes().split(b"\n", 1)[0].decode()) for p in rule_dir.rglob("*.yaml") if p.is_file()
    ]
    sidecar = rule_dir / "expect.txt"
    if sidecar.exists():
        sources += [(None, line) for line in sidecar.read_text().splitlines()]
    for path, line in sources:
        for code, row, col, other in EXPECT.findall(line):
            where = other or path.relative_to(rule_dir).as_posix()  # type: ignore[union-attr]
            expected.add((where, code, int(row), int(col)))
    return expected


@pytest.mark.parametrize("rule", RULES)
def test_failing_example(rule: str) -> None:
    rule_dir = EXAMPLES / "invalid" / rule
    assert rule_dir.is_dir(), f"rule {rule} has no failing example under {rule_dir}"
    code, report = audit_json(str(rule_dir))
    found = {
        (
            (EXAMPLES.parents[1] / f["path"]).relative_to(rule_dir).as_posix(),
            f["code"],
            f["line"],
            f["column"],
        )
        for f in report["findings"]
    }
    expected = expectations(rule_dir)
    assert expected, f"{rule_dir} has no `# expect:` line"
    assert found == expected
    assert code == (1 if any(f["severity"] == "error" for f in report["findings"]) else 0)
    assert {f["name"] for f in report["findings"]} == {rule}


@pytest.mark.parametrize("rule", RULES)
def test_passing_example(rule: str) -> None:
    rule_dir = EXAMPLES / "valid" / rule
    assert rule_dir.is_dir(), f"rule {rule} has no passing example under {rule_dir}"
    code, report = audit_json(str(rule_dir))
    assert report["findings"] == []
    assert report["summary"]["questions"] >= 1
    assert code == 0


def test_every_example_folder_names_a_rule() -> None:
    for kind in ("valid", "invalid"):
        assert {p.name for p in (EXAMPLES / kind).iterdir()} <= set(RULES)
