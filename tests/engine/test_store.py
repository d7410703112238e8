"""The cache's database (qbank/engine/store.py): what it keeps, and what it drops."""

from __future__ import annotations

from pathlib import Path

import pytest

from qbank.engine import store


def test_rendered_text_of_names_no_export_uses_is_dropped_once_it_outnumbers_the_rest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(store, "PRUNE_SLACK", 0)
    made = {f"note {i}": f"text {i}" for i in range(6)}
    with store.memory(tmp_path) as memory:
        assert memory is not None
        memory.keep_rendered(made, list(made))
        memory.keep_rendered({}, ["note 0", "note 1", "note 2"])  # 6 rows, 3 live: not yet
        assert memory.rendered(list(made)) == made
        memory.keep_rendered({}, ["note 0", "note 1"])  # 6 rows, 2 live: the other 4 dropped
        assert memory.rendered(list(made)) == {"note 0": "text 0", "note 1": "text 1"}
