"""Positions of keys, values and items (qbank/load/document.py)."""

from __future__ import annotations

from tests.load import loaded


def test_positions_of_keys_values_and_items() -> None:
    document = loaded("id: x\ndetails:\n  options:\n  - a\n  - b\n")
    positions = document.positions
    assert positions.key(("details",)) == (2, 1)
    assert positions.key(("details", "options")) == (3, 3)
    assert positions.value(("details", "options", 1)) == (5, 5)
    assert positions.value(("details", "missing")) == (2, 1)  # a missing key: its parent
    assert positions.value(()) == (1, 1)


def test_position_inside_block_scalar() -> None:
    document = loaded("a: 1\nnapkin: |\n  **Assumptions:** x\n  **Calculation:** y\n")
    assert document.positions.in_value(("napkin",), "**Calculation:**") == (4, 3)


def test_positions_of_keys_items_and_the_whole_file() -> None:
    document = loaded("a: 1\nlist:\n  - x\n  - {k: v}\n")
    positions = document.positions
    assert positions.key(("list",)) == (2, 1)
    assert positions.value(("list", 1)) == (4, 5)
    assert positions.value(("list", 1, "k")) == (4, 9)
    assert positions.key(("list", 1, "missing")) == (4, 5)
    assert positions.span(()) == (0, len(positions.text))
    assert positions.span(("a",)) == (3, 4)
    assert positions.span(("nothing",)) is None
