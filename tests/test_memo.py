"""qbank/memo.py: every memory qbank keeps is listed there with its bound, and a run's are emptied."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from qbank import catalog, engine, memo, similarity
from qbank.export import site
from qbank.gpu import resolve
from qbank.similarity import minhash
from tests.conftest import REPO

_MEMO_ELSEWHERE = re.compile(r"functools\.(?:lru_)?cache\b|\blru_cache\(")


def test_every_memory_is_listed_with_a_bound() -> None:
    """Each name in BOUNDS is made once the package is imported, and nothing is made unlisted."""
    assert catalog.MODULES and site.static_names and minhash.search  # imported: all that make one
    assert set(memo.made()) == set(memo.BOUNDS)
    assert all(bound.entries >= 1 and bound.scope in ("text", "run") for bound in memo.BOUNDS.values())


def test_no_memory_is_made_outside_memo_py() -> None:
    """An lru_cache outside qbank/memo.py would be a memory the listing misses (a plain dict memory
    is a memo.Table; functools.cached_property, owned by its object, is allowed)."""
    found = [
        f"{path.relative_to(REPO)}: {match.group(0)}"
        for path in sorted((REPO / "qbank").rglob("*.py"))
        if path.name != "memo.py"
        for match in _MEMO_ELSEWHERE.finditer(path.read_text(encoding="utf-8"))
    ]
    assert found == []


def test_a_table_empties_itself_when_full(monkeypatch: pytest.MonkeyPatch) -> None:
    table = similarity._WORD_HASHES
    monkeypatch.setattr(table, "bound", 2)
    similarity.shingles("alpha beta gamma")
    assert len(table) <= 2 and "gamma" in table  # emptied before the third word went in


def test_an_audit_empties_what_an_earlier_run_read_of_files(tmp_path: Path) -> None:
    """The GPU evidence is kept for one audit: a later audit in the same process reads it again."""
    resolve.load(tmp_path)
    resolve.load(tmp_path)
    assert resolve.load.cache_info().hits >= 1  # type: ignore[attr-defined]
    engine.audit(engine.Settings(paths=(REPO / "tests/examples/valid/title-case",)), REPO)
    resolve.load(tmp_path)
    assert resolve.load.cache_info().hits == 0  # type: ignore[attr-defined]  # emptied, counts and all
