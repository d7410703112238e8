"""Cost bombs: files under the size cap that made the audit work for seconds to minutes (issue 30, item 3).

Each test builds the attack in a bank beside the canary of tests/test_hostile.py and audits it in
process, under a 60 s hang guard (never a timed assertion: speed is measured by
benchmarks/cost_bombs.py). The attacks:

- a napkin line that sums 49 fractions `1/p^k`, each just inside the 20,000-bit limit of a value:
  sums were never bounded, and the total grew to ~900,000 bits (seconds a line);
- ten such lines in one 7 KB file;
- a line of hundreds of equations, each inside every limit, that together cost ~0.5 s:
  the line's work budget stops it;
- a file of such lines, distinct or all the same (the same line is evaluated once and cached: it
  must still count against the file): the file's work budget stops it, with one finding;
- the same sums as `verify:` claim values, and many costly claims that each hold: the claims of a
  file share a work budget;
- 11,038 unknown top-level keys, each of which ran difflib for a did-you-mean.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from pathlib import Path

import pytest

from qbank import engine
from qbank.finding import Finding
from tests.bombs import fraction_sum, question
from tests.test_hostile import CANARY_FINDING, FOLDER, _bank

pytestmark = pytest.mark.usefixtures("hang_guard")

NAME = "cloud-202611-h054.yaml"
FIRST_LINE = 24  # the line of the first Calculations bullet in the file `question` writes


def _costly_line(seed: int = 0, width: int = 9_900) -> str:
    """Equations that each hold and each pass every limit (a 16,000-bit sum), about 50,000 bits of
    work apiece, as many as fit in a line."""
    chains, i = [], 0
    while sum(len(c) + 2 for c in chains) < width - 40:
        chains.append(f"1/3^{3000 - seed - i % 50} + 1/5^{2500 - i // 50} = 0")
        i += 1
    return ", ".join(chains)


def _audit(tmp_path: Path, text: str) -> list[Finding]:
    """The findings of the attack's file; the canary beside it must still be reported."""
    bank = _bank(tmp_path)
    (bank / FOLDER / NAME).write_text(text, encoding="utf-8")
    report = engine.audit(engine.Settings(cache=False), bank)
    found = {(f.path, f.code, f.line, f.column) for f in report.findings}
    assert CANARY_FINDING in found
    return [f for f in report.findings if f.path.endswith(NAME)]


def _limits(findings: list[Finding]) -> list[tuple[int, str]]:
    return [(f.line, f.message) for f in findings if f.name == "math-limit"]


def test_a_sum_of_huge_fractions_is_refused_at_its_line(tmp_path: Path) -> None:
    findings = _audit(tmp_path, question([f"{fraction_sum(49)} = 1"]))
    assert [(f.name, f.line) for f in findings] == [("math-limit", FIRST_LINE)]
    assert "20000 bits" in findings[0].message


def test_ten_sums_of_huge_fractions_in_one_file_are_each_refused(tmp_path: Path) -> None:
    lines = [f"{fraction_sum(49, first)} = 1" for first in range(10)]
    findings = _audit(tmp_path, question(lines))
    assert [(f.name, f.line) for f in findings] == [("math-limit", FIRST_LINE + i) for i in range(10)]


def test_a_line_of_many_costly_equations_stops_at_the_line_budget(tmp_path: Path) -> None:
    findings = _audit(tmp_path, question([_costly_line()]))
    ((line, message),) = _limits(findings)
    assert line == FIRST_LINE and "on this line" in message
    assert [f.name for f in findings] == ["math-limit"]  # the equations checked before it all hold


def test_a_file_of_costly_lines_stops_at_the_file_budget(tmp_path: Path) -> None:
    lines = [_costly_line(seed, width=1_500) for seed in range(120)]
    findings = _audit(tmp_path, question(lines))
    ((line, message),) = _limits(findings)
    assert [f.name for f in findings] == ["math-limit"]  # every line checked before it holds
    checked = line - FIRST_LINE  # the finding is at the first line not checked
    assert 0 < checked < 120
    assert message.endswith(f"exceeds the work budget; {120 - checked} lines not checked")


def test_a_repeated_costly_line_still_counts_against_the_file(tmp_path: Path) -> None:
    """The line is evaluated once and then comes from a cache: its work must still be counted."""
    findings = _audit(tmp_path, question([_costly_line(width=1_500)] * 120))
    ((_, message),) = _limits(findings)
    assert [f.name for f in findings] == ["math-limit"]
    unchecked = int(message.split("; ")[-1].split()[0].replace(",", ""))
    assert 0 < unchecked < 120 and message.endswith(f"{unchecked} lines not checked")


def _cast(value: str, i: int) -> str:
    return f'  - {{kind: cast, claim: "claim {i}", dtype: bfloat16, value: "{value}", expect: "0"}}\n'


def test_sums_of_huge_fractions_as_claim_values_are_refused(tmp_path: Path) -> None:
    claims = [_cast(fraction_sum(16, i % 10), i) for i in range(100)]
    findings = _audit(tmp_path, question(claims=claims))
    messages = [f.message for f in findings if f.name == "numeric-claim"]
    assert len(messages) == 100 and all("20000 bits" in m for m in messages)


def test_the_claims_of_a_file_share_a_work_budget(tmp_path: Path) -> None:
    claims = [_cast(f"1/3^{3000 - i % 900} + 1/5^{2500 - i // 900}", i) for i in range(2_000)]
    findings = _audit(tmp_path, question(claims=claims))
    ((name, message),) = [(f.name, f.message) for f in findings]
    assert name == "numeric-claim" and "exceed the work budget" in message
    unchecked = int(message.split("; ")[-1].split()[0].replace(",", ""))
    assert 0 < unchecked < 2_000


def test_thousands_of_unknown_keys_are_each_reported_with_few_suggestions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[str] = []
    real: Callable[..., list[str]] = difflib.get_close_matches

    def counted(word: str, *args: object, **kwargs: object) -> list[str]:
        calls.append(word)
        return real(word, *args, **kwargs)

    monkeypatch.setattr(difflib, "get_close_matches", counted)
    keys = "".join(f"ttl_{i}: x\n" for i in range(11_038))
    findings = _audit(tmp_path, question(extra="titel: A typo first\n" + keys))
    unknown = [f for f in findings if f.name == "unknown-key"]
    assert len(unknown) == 11_039
    assert unknown[0].message == "unknown key 'titel'; did you mean 'title'?"
    assert len(calls) <= 100  # the suggestions stop early; every key is still reported


def test_format_facts_in_runs_of_signs_are_read_in_linear_time(tmp_path: Path) -> None:
    """The format-fact reader's link between a constant and its number once had overlapping steps
    (a space, or a colon with spaces around it): 20 colons after `FP16 max` took a minute to fail.
    Each such run, thousands long, in the answer and in the napkin math."""
    runs = [f"FP16 max{' :' * 4000} z", f"FP16 max{', ' * 4000}z", f"the largest FP16{' ' * 8000}z"]
    text = question(calculations=runs).replace(
        "    multiplies the loss before backward so those gradients stay representable.\n",
        "".join(f"    {run}.\n" for run in runs),
    )
    assert "FP16 max :" in text.split("common_mistake")[0]  # the answer holds the runs too
    assert [f.code for f in _audit(tmp_path, text) if f.code == "QB414"] == []
