"""tools/napkin_corpus.py: the audit's napkin-math errors on the StaffML corpora, joined with the hand
judgements in ../shared/corpus/staffml-dev/JUDGED.tsv; and the recall set in tests/data/anchor-recall."""

from __future__ import annotations

import csv
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tests.conftest import REPO, SHARED

RECALL = REPO / "tests" / "data" / "anchor-recall"


def _tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("napkin_corpus", REPO / "tools" / "napkin_corpus.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is made
    spec.loader.exec_module(module)
    return module


CORPORA = ["staffml-dev", "staffml-sample"]


def _corpus(name: str) -> Path:
    corpus = SHARED / "corpus" / name
    if not corpus.is_dir():
        pytest.skip(f"../shared is absent ({corpus} not found): the StaffML corpora are needed")
    return corpus


@pytest.fixture
def dev() -> Path:
    return _corpus("staffml-dev")


@pytest.mark.shared
@pytest.mark.parametrize("name", CORPORA)
def test_every_error_on_a_corpus_has_been_read_by_hand(name: str) -> None:
    """A new arithmetic or unit-mismatch error there is unjudged until someone reads it and adds its
    row (tools/napkin_corpus_judged.tsv): precision is only worth reporting over findings read."""
    result = _tool().measure(_corpus(name))
    assert result.errors, "the corpus has error findings to judge"
    unjudged = [f"{f.path}:{f.line} {f.message}" for f, verdict in result.errors if verdict == "unjudged"]
    assert unjudged == []
    assert result.precision == result.verdicts["TP"] / len(result.errors)


@pytest.mark.shared
def test_the_one_real_error_in_the_dev_corpus_stays_caught(dev: Path) -> None:
    """(0.85)^2 * 0.90 is 0.65, not the 1.80 written in cloud-1172 (JUDGED.tsv: TP)."""
    result = _tool().measure(dev)
    caught = [(f.question_id, f.line, f.name) for f, verdict in result.errors if verdict == "TP"]
    assert ("cloud-1172", 14, "arithmetic") in caught


@pytest.mark.shared
def test_judgements_are_keyed_by_id_line_and_rule(dev: Path) -> None:
    judged = _tool().judgements(dev)
    assert judged[("cloud-0873", 30, "unit-mismatch")] == "FP"
    assert set(judged.values()) <= {"TP", "FP"}


def _table(name: str) -> list[dict[str, str]]:
    with (RECALL / name).open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))


# A written-out \u2248 is read as ≈ (README, "Napkin math"); cloud-0555 writes it that way.
EQUATION_SIGNS = ("=", "≈", "\\u2248")


def test_the_recall_rows_point_at_written_lines() -> None:
    """Each row of RECALL.tsv names a stored file and a line in it; an equation row's line holds the
    equation (its `=` or `≈`), and says which rule must fire there."""
    rows = _table("RECALL.tsv")
    assert rows, "RECALL.tsv has rows"
    for row in rows:
        where = f"{row['id']}:{row['line']}"
        (path,) = RECALL.rglob(f"{row['id']}.yaml")
        lines = path.read_text(encoding="utf-8").split("\n")
        assert 1 <= int(row["line"]) <= len(lines), where
        text = lines[int(row["line"]) - 1]
        assert row["kind"] in ("equation", "reasoning"), where
        if row["kind"] == "equation":
            assert row["expect"] == "arithmetic", where
            assert any(sign in text for sign in EQUATION_SIGNS), f"{where}: {text}"
        else:
            assert row["expect"] == "-", where
        assert row["anchor_says"] and row["note"], where
    assert len({row["id"] for row in rows}) == len(rows), "one row per math error of the findings table"


def test_sources_list_every_stored_file() -> None:
    """SOURCES.tsv names each stored file once, with its id and the commit it was read at."""
    stored = sorted(str(p.relative_to(RECALL)) for p in RECALL.rglob("*.yaml"))
    sources = _table("SOURCES.tsv")
    assert sorted(row["path"] for row in sources) == stored
    for row in sources:
        assert row["path"].endswith(f"/{row['id']}.yaml")
        assert f"id: {row['id']}\n" in (RECALL / row["path"]).read_text(encoding="utf-8")
        assert len(row["source_commit"]) == 40 and row["source_path"].startswith(
            "interviews/vault/questions/"
        )
    assert {row["id"] for row in _table("RECALL.tsv")} <= {row["id"] for row in sources}


def test_recall_places_every_row() -> None:
    """The tool audits the recall set and gives each RECALL.tsv row a status (the caught count is not
    pinned here: the evaluator is being rewritten)."""
    rows = _tool().recall(RECALL)
    assert [(r.id, r.line) for r in rows] == [(r["id"], int(r["line"])) for r in _table("RECALL.tsv")]
    assert {r.status for r in rows} <= {"caught", "warning", "flagged", "missed"}


def test_recall_status_of_a_line() -> None:
    status = _tool()._status
    assert status("arithmetic", {"arithmetic", "unchecked-equation"}) == "caught"
    assert status("arithmetic", {"unit-mismatch"}) == "flagged"
    assert status("-", {"arithmetic"}) == "flagged"
    assert status("arithmetic", {"unchecked-equation"}) == "warning"
    assert status("arithmetic", {"other-rule"}) == "missed"


# Issue 25's targets, measured each run (the figures themselves are in README, "Napkin math").
PRECISION, UNCHECKED_SHARE = 0.9, 0.02


@pytest.mark.shared
@pytest.mark.parametrize("name", CORPORA)
def test_issue_25_targets_hold_on_each_corpus(name: str) -> None:
    """At least 90% of the error findings are real errors (read by hand), and at most 2% of the
    equations are left unchecked."""
    result = _tool().measure(_corpus(name))
    assert result.precision is not None and result.precision >= PRECISION, result.verdicts
    assert result.unchecked <= UNCHECKED_SHARE * result.equations, (result.unchecked, result.equations)


# The one equation error of the anchor's findings that the tolerance policy accepts on purpose:
# `= 17.1 GB` for 17.18 is 17.18 truncated, and `=` accepts truncation because 18 correct lines in
# the two StaffML corpora and 60 in the bank truncate (`qbank explain arithmetic`).
ACCEPTED_BY_POLICY = {("cloud-0247", 26)}


def test_every_equation_error_of_the_anchor_is_caught_unless_the_policy_accepts_it() -> None:
    rows = [r for r in _tool().recall(RECALL) if r.kind == "equation"]
    missed = {(r.id, r.line) for r in rows if r.status != "caught"}
    assert missed == ACCEPTED_BY_POLICY, [(r.id, r.line, r.status, r.rules) for r in rows]
