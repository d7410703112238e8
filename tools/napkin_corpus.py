"""Napkin math on writing qbank did not produce: what the audit finds, against hand judgements (run by hand).

    .venv/bin/python tools/napkin_corpus.py [CORPUS ...]

By default the two StaffML corpora beside this repository (../shared/corpus/staffml-sample and
staffml-dev). For each: equations found, checked, failed and left unchecked (`unchecked-equation`
warnings, and their share); then every `arithmetic` and `unit-mismatch` error, with its line and
message, and its verdict where the corpus has a JUDGED.tsv (one row per error finding read by hand:
id, line, rule, verdict TP or FP) or a row in tools/napkin_corpus_judged.tsv; last, precision over
the judged findings. A finding with no row is shown as `unjudged`: read it, and add a row there. Issue 25 sets the targets: precision at least 90%,
`unchecked-equation` on at most 2% of the equations.

Then recall, when tests/data/anchor-recall is there: the math errors the anchor's own audit found
(harvard-edge/cs249r_book, interviews/vault-cli/docs/AUDIT_FINDINGS_2026-05-03.md), in the versions before
their fix, one row each in its RECALL.tsv. Each row is `caught` when a finding of its expected rule is on
its line, `warning` when only `unchecked-equation` is, `missed` when neither is; `flagged` marks an error
finding of another rule there (on a `reasoning` row, whose arithmetic is right, one to read). Last,
"equation errors caught: X of Y" over the `equation` rows, the ones an arithmetic checker can catch.
"""

from __future__ import annotations

import csv
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from qbank import engine
from qbank.finding import Finding

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "corpus"
CORPORA = (SHARED / "staffml-sample", SHARED / "staffml-dev")
OURS = Path(__file__).with_name("napkin_corpus_judged.tsv")  # judged here, after the corpus's own table
ERRORS = ("arithmetic", "unit-mismatch")
Judgement = tuple[str, int, str]  # (question id, line, rule name)
RECALL = Path(__file__).resolve().parents[1] / "tests" / "data" / "anchor-recall"
WARNING = "unchecked-equation"


@dataclass
class Measure:
    """One corpus: the audit's napkin-math summary, and each error finding with its verdict."""

    equations: int
    checked: int
    failed: int
    unchecked: int
    errors: list[tuple[Finding, str]] = field(default_factory=list)  # (finding, "TP" / "FP" / "unjudged")

    @property
    def verdicts(self) -> Counter[str]:
        return Counter(verdict for _, verdict in self.errors)

    @property
    def precision(self) -> float | None:
        judged = self.verdicts["TP"] + self.verdicts["FP"]
        return self.verdicts["TP"] / judged if judged else None


def judgements(corpus: Path) -> dict[Judgement, str]:
    """{(id, line, rule): verdict} from the corpus's JUDGED.tsv and this repository's own rows for it
    (OURS: findings judged here since, without copying the corpus's text); empty when neither has any."""
    shared = _rows(corpus / "JUDGED.tsv")
    ours = [row for row in _rows(OURS) if row["corpus"] == corpus.name]
    return {(row["id"], int(row["line"]), row["rule"]): row["verdict"] for row in shared + ours}


def _rows(table: Path) -> list[dict[str, str]]:
    if not table.is_file():
        return []
    with table.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))


def measure(corpus: Path) -> Measure:
    report = engine.audit(engine.Settings(paths=(corpus,), cache=False), corpus)
    math = report.summary.math
    unchecked = sum(f.name == "unchecked-equation" for f in report.findings)
    judged = judgements(corpus)
    result = Measure(math.equations, math.checked, math.failed, unchecked)
    for f in report.findings:
        if f.name in ERRORS:
            key = (f.question_id or Path(f.path).stem, f.line, f.name)
            result.errors.append((f, judged.get(key, "unjudged")))
    return result


def show(corpus: Path, result: Measure) -> None:
    share = result.unchecked / result.equations if result.equations else 0.0
    print(f"## {corpus.name}")
    print(
        f"{result.equations} equations, {result.checked} checked, {result.failed} failed; "
        f"{result.unchecked} unchecked-equation warnings ({share:.1%} of the equations)"
    )
    for finding, verdict in result.errors:
        print(f"  {verdict:9} {finding.path}:{finding.line} {finding.name}: {finding.message[:160]}")
    verdicts = result.verdicts
    precision = "n/a" if result.precision is None else f"{result.precision:.1%}"
    print(
        f"errors: {len(result.errors)} ({verdicts['TP']} TP, {verdicts['FP']} FP, "
        f"{verdicts['unjudged']} unjudged); precision over the judged: {precision}\n"
    )


@dataclass(frozen=True)
class Recalled:
    """One math error of the anchor's audit (a RECALL.tsv row) and what the audit shows on its line."""

    id: str
    line: int
    kind: str  # "equation" (an arithmetic checker can catch it) or "reasoning" (none can)
    expect: str  # the rule that must fire on an equation row; "-" on a reasoning row
    status: str  # "caught", "warning", "flagged" or "missed" (module docstring)
    rules: tuple[str, ...]  # every rule with a finding on the line, sorted
    anchor_says: str


def recall(folder: Path = RECALL) -> list[Recalled]:
    """Audit the recall set as `measure` audits a corpus, and place each RECALL.tsv row's line."""
    report = engine.audit(engine.Settings(paths=(folder,), cache=False), folder)
    on_line: dict[tuple[str, int], set[str]] = {}
    for f in report.findings:
        on_line.setdefault((f.question_id or Path(f.path).stem, f.line), set()).add(f.name)
    result = []
    for row in _rows(folder / "RECALL.tsv"):
        rules = on_line.get((row["id"], int(row["line"])), set())
        status = _status(row["expect"], rules)
        result.append(
            Recalled(
                row["id"],
                int(row["line"]),
                row["kind"],
                row["expect"],
                status,
                tuple(sorted(rules)),
                row["anchor_says"],
            )
        )
    return result


def _status(expect: str, rules: set[str]) -> str:
    if expect in rules:
        return "caught"
    if rules & set(ERRORS):
        return "flagged"  # an error, but not the one expected: read the line
    return "warning" if WARNING in rules else "missed"


def show_recall(folder: Path, rows: list[Recalled]) -> None:
    print(f"## recall: {folder.name} (the anchor's own math errors, before their fix)")
    for row in rows:
        rules = ", ".join(row.rules) or "-"
        print(f"  {row.status:8} {row.kind:9} {row.id}:{row.line} [{rules}] anchor: {row.anchor_says[:90]}")
    equations = [row for row in rows if row.kind == "equation"]
    caught = sum(row.status == "caught" for row in equations)
    print(f"equation errors caught: {caught} of {len(equations)}\n")


def main(corpora: list[Path]) -> None:
    for corpus in corpora:
        if not corpus.is_dir():
            sys.exit(f"no corpus at {corpus}: the StaffML corpora live in ../shared/corpus")
        show(corpus, measure(corpus))
    if RECALL.is_dir():
        show_recall(RECALL, recall(RECALL))


if __name__ == "__main__":
    main([Path(arg) for arg in sys.argv[1:]] or list(CORPORA))
