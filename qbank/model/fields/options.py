"""Multiple-choice options and resource links."""

from __future__ import annotations

from collections.abc import Sequence

from qbank.rules import Problem, rule

OPTION_COUNT = 4


@rule("QB140", "options")
def options(choices: Sequence[str] | None, correct_index: int | None) -> Problem | None:
    """Multiple choice is all or nothing: exactly 4 distinct, non-empty `options` and a
    `correct_index` from 0 to 3; or neither field.

    The reference documented both rules and enforced neither (research/anchor-vault.md §1.3).

    Fails:
        options: [65504, 65504, 6.1e-5]
    Passes:
        options: ['65504', '6.1e-5', '5.96e-8', '3.4e38']
        correct_index: 0
    """
    if choices is None:
        return None if correct_index is None else Problem("correct_index is set but there are no options")
    if len(choices) != OPTION_COUNT:
        return Problem(f"{len(choices)} options; multiple choice needs exactly {OPTION_COUNT}")
    normalised = [" ".join(c.split()).casefold() for c in choices]
    if not all(normalised):
        return Problem("an option is empty")
    if len(set(normalised)) != len(normalised):
        return Problem("two options are the same")
    if correct_index is None:
        return Problem("options are present but correct_index is missing")
    if not 0 <= correct_index < OPTION_COUNT:
        shown = str(correct_index) if abs(correct_index) < 10**12 else f"of {len(str(correct_index))} digits"
        return Problem(f"correct_index {shown} is not between 0 and {OPTION_COUNT - 1}")
    return None


@rule("QB141", "resource-url")
def resource_url(url: str) -> Problem | None:
    """Resource links use `https://` and contain no spaces.

    Fails:
        url: http://example.org/mixed-precision
    Passes:
        url: https://docs.pytorch.org/docs/stable/amp.html
    """
    if not url.startswith("https://") or len(url) <= len("https://") or any(c.isspace() for c in url):
        return Problem(f"resource URL {url[:80]!r} must be an https:// link without spaces")
    return None
