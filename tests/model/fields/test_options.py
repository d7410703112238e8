from __future__ import annotations

import pytest

from qbank.model.fields import options


@pytest.mark.parametrize(
    ("choices", "index", "part"),
    [
        (["a", "b", "c"], 0, "3 options"),
        (["a", "b", "c", "d", "e"], 0, "5 options"),
        (["a", "b", "c", "A "], 0, "the same"),
        (["a", "b", "c", " "], 0, "empty"),
        (["a", "b", "c", "d"], None, "correct_index is missing"),
        (["a", "b", "c", "d"], 4, "not between"),
        (None, 1, "no options"),
    ],
)
def test_bad_options(choices: list[str] | None, index: int | None, part: str) -> None:
    problem = options.options(choices, index)
    assert problem is not None and part in problem.message


def test_good_options() -> None:
    assert options.options(["a", "b", "c", "d"], 3) is None
    assert options.options(None, None) is None


def test_resource_url() -> None:
    assert options.resource_url("https://docs.pytorch.org/docs/stable/amp.html") is None
    for bad in ("http://example.org", "https://", "https://a b", "javascript:alert(1)", "ftp://x"):
        assert options.resource_url(bad) is not None
