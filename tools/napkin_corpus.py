"""Napkin math on writing qbank did not produce: what the audit finds, against hand judgements (run by hand).

    .venv/bin/python tools/napkin_corpus.py [CORPUS ...]

By default the two StaffML corpora beside this repository (../shared/corpus/staffml-sample and
staffml-dev). For each: equations found, checked, failed and left unchecked (`unchecked-equation`
warnings, and their share); then every `arithmetic` and `unit-mismatch` error, with its line and
message, and its verdict where the corpus has a JUDGED.tsv (one row per error finding read by hand:
id, line, rule, verdict TP or FP) or a row in tools/napkin_corpus_judged.tsv; last, precision over
the judged findings. A finding with no row is shown as `unjudged`: read it, and add a row there. Issue 25 sets the targets: precision at least 90%,
`unchecked-equation` on at most 2% of the equations.
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


def main(corpora: list[Path]) -> None:
    for corpus in corpora:
        if not corpus.is_dir():
            sys.exit(f"no corpus at {corpus}: the StaffML corpora live in ../shared/corpus")
        show(corpus, measure(corpus))


if __name__ == "__main__":
    main([Path(arg) for arg in sys.argv[1:]] or list(CORPORA))
