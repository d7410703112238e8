"""tools/napkin_corpus.py: the audit's napkin-math errors on the StaffML corpora, joined with the hand
judgements in ../shared/corpus/staffml-dev/JUDGED.tsv."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tests.conftest import REPO, SHARED

pytestmark = pytest.mark.shared


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


@pytest.mark.parametrize("name", CORPORA)
def test_every_error_on_a_corpus_has_been_read_by_hand(name: str) -> None:
    """A new arithmetic or unit-mismatch error there is unjudged until someone reads it and adds its
    row (tools/napkin_corpus_judged.tsv): precision is only worth reporting over findings read."""
    result = _tool().measure(_corpus(name))
    assert result.errors, "the corpus has error findings to judge"
    unjudged = [f"{f.path}:{f.line} {f.message}" for f, verdict in result.errors if verdict == "unjudged"]
    assert unjudged == []
    assert result.precision == result.verdicts["TP"] / len(result.errors)


def test_the_one_real_error_in_the_dev_corpus_stays_caught(dev: Path) -> None:
    """(0.85)^2 * 0.90 is 0.65, not the 1.80 written in cloud-1172 (JUDGED.tsv: TP)."""
    result = _tool().measure(dev)
    caught = [(f.question_id, f.line, f.name) for f, verdict in result.errors if verdict == "TP"]
    assert ("cloud-1172", 14, "arithmetic") in caught


def test_judgements_are_keyed_by_id_line_and_rule(dev: Path) -> None:
    judged = _tool().judgements(dev)
    assert judged[("cloud-0873", 30, "unit-mismatch")] == "FP"
    assert set(judged.values()) <= {"TP", "FP"}
