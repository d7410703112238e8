"""deceptive-text: what a value holds is what it shows."""

from __future__ import annotations

import pytest

from qbank.checks import text
from tests.conftest import EXAMPLES, findings

VALID = next((EXAMPLES / "valid" / "deceptive-text").rglob("*.yaml")).read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("value", "found"),
    [
        ("tab\tand\nline feed are text", None),
        ("a bell \x07", "\x07"),
        ("delete \x7f", "\x7f"),
        ("escape \x1b[2J", "\x1b"),
        ("a C1 control \x85", "\x85"),
        ("right-to-left \u202e override", "\u202e"),
        ("zero\u200bwidth", "\u200b"),
        ("a tag character \U000e0041", "\U000e0041"),
        ("line\u2028separator", "\u2028"),
        ("β2 = 0.999 and 5 μs are symbols", None),
    ],
)
def test_hidden_characters_in_any_value(value: str, found: str | None) -> None:
    """The ASCII fast path (_printable) and the full class agree on what is hidden."""
    deceit = text._deceit(("scenario",), value)
    assert (deceit[0] if deceit else None) == found
    if value.isascii():
        assert text._printable(value) is (found is None)


@pytest.mark.parametrize(
    ("title", "word"),
    [
        ("The Gr\u0430dient", "Gr\u0430dient"),
        ("The \u039fptimizer", "\u039fptimizer"),
        ("Adam β2 and 5 μs", None),
    ],
)
def test_title_words_mixing_latin_with_look_alikes(title: str, word: str | None) -> None:
    deceit = text._deceit(("title",), title)
    assert (deceit[0] if deceit else None) == word
    assert text._deceit(("scenario",), title) is None  # only titles are read for look-alikes


def test_the_docstring_examples_through_the_audit() -> None:
    """Fails: a title with a Cyrillic а; passes: the same title in Latin letters."""
    title = next(line for line in VALID.splitlines() if line.startswith("title: "))
    cyrillic = title.replace("a", "\u0430", 1)
    assert cyrillic != title
    (finding,) = findings(VALID.replace(title, cyrillic), "deceptive-text")
    assert finding.line == VALID.splitlines().index(title) + 1 and "look-alike" in finding.message
    assert findings(VALID, "deceptive-text") == []
