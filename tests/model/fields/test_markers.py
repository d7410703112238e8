from __future__ import annotations

import pytest

from qbank.model.fields import markers

GOOD = "**Assumptions & Constraints:**\n- a\n**Calculations:**\n- 2 * 3 = 6\n**Conclusion & Interpretation:** fine\n"


def message(text: str) -> str | None:
    problem = markers.napkin_math_markers(text)
    return problem.message if problem else None


def test_good_napkin_math() -> None:
    assert message(GOOD) is None
    assert message("1. **Assumptions:** x\n2. **Calculations:** y\n3. **Conclusion:** z") is None


@pytest.mark.parametrize(
    ("text", "part"),
    [
        (GOOD.replace("**Calculations:**", "**Calculation:**"), "found '**Calculation:**'"),
        (GOOD.replace("**Calculations:**", "**Result:**"), "missing **Calculations:**"),
        (GOOD.replace("**Assumptions & Constraints:**", ""), "missing **Assumptions"),
        ("**Assumptions:** a\n**Conclusion:** c\n**Calculations:** b\n", "comes before"),
        (
            "**Assumptions:**\n2. \n**Calculations:** b\n**Conclusion:** c\n",
            "after **Assumptions…** is empty",
        ),
        ("**Assumptions:** a\n**Calculations:** b\n**Conclusion:**\n", "after **Conclusion…** is empty"),
        (GOOD + "**Calculations:** again", "appears 2 times"),
    ],
)
def test_bad_napkin_math(text: str, part: str) -> None:
    found = message(text)
    assert found is not None and part in found


def test_common_mistake_markers() -> None:
    good = "**The Pitfall:** a\n**The Rationale:** b\n**The Consequence:** c"
    assert markers.common_mistake_markers(good) is None
    swapped = "**The Rationale:** b\n**The Pitfall:** a\n**The Consequence:** c"
    assert "comes before" in markers.common_mistake_markers(swapped).message  # type: ignore[union-attr]
    assert markers.common_mistake_markers("Candidates assume it converged.") is not None
    assert markers.common_mistake_markers("**Pitfall:** a\n**Rationale:** b\n**Consequence:** c") is not None


def test_every_missing_marker_is_named_at_once() -> None:
    """A wrong `**Pitfall:**` must not hide a missing `**The Consequence:**` until the next run."""
    problem = markers.common_mistake_markers("**Pitfall:** a\n**The Rationale:** b\n")
    assert problem is not None
    assert problem.message == (
        "missing **The Pitfall:** (found '**Pitfall:**'; write exactly **The Pitfall:**); missing **The Consequence:**"
    )
    bare = markers.napkin_math_markers("2 * 3 = 6")
    assert (
        bare is not None and bare.message == "missing **Assumptions…**, **Calculations:** and **Conclusion…**"
    )


def test_a_heading_without_bold_is_a_near_miss() -> None:
    text = "1. Assumptions & Constraints:\n- a\n2. **Calculations:**\n- 2 * 3 = 6\n3. **Conclusion:** z\n"
    assert (
        message(text)
        == "missing **Assumptions…** (found 'Assumptions & Constraints:'; write exactly **Assumptions…**)"
    )
