"""Napkin lines that use names (qbank/napkin/symbolic.py, issue 25 item 4): a name bound above its
use stands for its value; one bound nowhere must cancel, which sympy decides from our own trees."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from qbank.napkin import symbolic
from qbank.napkin.equations import check_text
from qbank.napkin.evaluate import parse
from qbank.napkin.lexer import tokenize
from tests.napkin import statuses

pytestmark = pytest.mark.usefixtures("hang_guard")


def outcomes(text: str) -> list[tuple[str, str]]:
    return [(o.status, o.message) for o in check_text(text)]


@pytest.mark.parametrize(
    ("block", "status"),
    [
        ("- Workers (R): 4.\n- Ring steps: R - 1 = 3.", "ok"),
        ("- Workers (R): 4.\n- Ring steps: R - 1 = 4.", "arithmetic"),
        ("- P = 13B params.\n- Weights: P * 2 bytes = 26 GB", "ok"),
        ("- P = 13B params.\n- Weights: P * 2 bytes = 13 GB", "arithmetic"),
        ("- G = 8 GPUs; G * 80 GB = 640 GB", "ok"),  # bound earlier on the same line
    ],
)
def test_a_name_bound_above_stands_for_its_value(block: str, status: str) -> None:
    assert statuses(block)[-1] == status, outcomes(block)


def test_the_message_of_a_wrong_named_line_gives_the_value() -> None:
    ((status, text),) = outcomes("- Workers (R): 4.\n- Ring steps: R - 1 = 4.")
    assert status == "arithmetic" and text.endswith("the left side is 3 (with R = 4)")


def test_a_name_bound_only_below_its_use_is_not_used() -> None:
    # `2Y × 256 = 4T` is solved for Y; the `Y=3B` below is another choice, not the same Y
    block = "- 2Y * 256 = 4T -> Y_max = 7.8B. Chosen: Y=3B, INT4."
    ((status, text),) = outcomes(block)
    assert status == "unchecked" and "depends on 'Y'" in text


def test_a_name_that_is_also_a_unit_is_an_operand_not_dropped() -> None:
    # `W` is watts too: `W - 1 = 3` was read as `- 1 = 3` (the "variable silently dropped")
    assert statuses("- Workers (W): 4.\n- Ring steps: W - 1 = 3.") == ["ok"]
    assert statuses("- Ring steps: W - 1 = 3.") == ["unchecked"]


def test_a_name_bound_twice_to_different_values_is_not_bound() -> None:
    block = "- K = 4.\n- K = 6.\n- K * 2 = 8"
    assert statuses(block)[-1] == "unchecked"


@pytest.mark.parametrize(
    ("line", "status"),
    [
        ("- (3Q)^2 / Q^2 = 9x", "ok"),  # Q cancels: sympy says so
        ("- (3Q)^2 / Q^2 = 6x", "arithmetic"),
        ("- 64 * 730 * U * $2 = $93,440 * U", "ok"),
        ("- 64 * 730 * U * $2 = $90,000 * U", "arithmetic"),
        ("- 400ms * 1.5R = 600R", "ok"),  # the unit written once, on the left: compared in it
        ("- 2 * Z * 140 GB ≈ 280 GB", "unchecked"),  # Z does not cancel, and has no value
    ],
)
def test_a_name_bound_nowhere_must_cancel(line: str, status: str) -> None:
    assert statuses(line) == [status], outcomes(line)


def test_a_definition_by_a_formula_is_not_an_equation() -> None:
    block = "- t_opt = sqrt(2 × MTBF × t_ckpt). t_opt = sqrt(2 × 200 min × 2 min) = sqrt(800) ≈ 28.3 minutes."
    assert statuses(block) == ["ok", "ok"]


def test_sympy_is_never_handed_a_power_it_would_expand() -> None:
    # cancel() may expand a power of a sum; a name raised past MAX_POWER is not handed to sympy at
    # all, and the line stays unchecked however it would have simplified
    assert statuses("- 3 * Q^4096 / Q^4095 = 3 * Q") == ["unchecked"]
    assert statuses("- 3 * Q^3 / Q^2 = 3 * Q") == ["ok"]


def test_sympy_decides_on_trees_from_our_parser() -> None:
    with symbolic.reading(frozenset({"Q"}), {}, frozenset()):
        square, q, q2 = (parse(tokenize(text)).node for text in ("(3 * Q)^2", "Q", "Q^2"))
    assert not symbolic.depends(square, q2, {"Q"}) and symbolic.depends(square, q, {"Q"})


def test_no_question_text_reaches_sympify_or_parse_expr() -> None:
    # both call eval(): qbank builds sympy trees itself (qbank/napkin/symbolic.py)
    source = "\n".join(
        p.read_text(encoding="utf-8") for p in Path(symbolic.__file__).parents[1].rglob("*.py")
    )
    assert "sympify(" not in source and "parse_expr(" not in source and "S(" not in source.replace("OS(", "")


def test_bindings_read_only_a_name_and_one_value() -> None:
    bound = symbolic.bindings("- N = 8 GPUs.\n- Total = 610 ms * 1.3 = 793 ms.\n- Nodes (M): 3.")
    assert set(bound) == {"N", "M"}  # `Total = 610 ms * 1.3 …` binds nothing: not one value


def test_plain_lines_never_import_sympy() -> None:
    code = (
        "import sys\nfrom qbank.napkin.equations import check_text\n"
        "assert [o.status for o in check_text('- 80 GB / 2 TB/s = 40 ms')] == ['ok']\n"
        "assert 'sympy' not in sys.modules\n"
        "assert [o.status for o in check_text('- (3Q)^2 / Q^2 = 9x')] == ['ok']\n"
        "assert 'sympy' in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_only_the_names_a_line_uses_are_bound_and_shown() -> None:
    # `ops = $1.1M` reads like a binding, but `ops` is a unit word here, never cited as a name
    line = "- $1M hardware + $50K * 2 ops = $1.1M; cloud = 64 * 730 * U * $2 = $93,440 * U"
    found = outcomes(line)
    assert [status for status, _ in found] == ["labels", "ok"]
    assert "(with" not in found[0][1]
