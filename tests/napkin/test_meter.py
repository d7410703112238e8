"""The work meter: each operation is charged by the size of its operands, the same on every run."""

from __future__ import annotations

from fractions import Fraction

import pytest

from qbank.napkin import equations
from qbank.napkin.evaluate import evaluate, parse
from qbank.napkin.lexer import LimitError, normalise, tokenize
from qbank.napkin.meter import OPERATION, WorkLimit, bits, charge, metered, spend


def _evaluate(text: str) -> Fraction:
    return evaluate(parse(tokenize(normalise(text))).node).value


def test_an_operation_costs_the_bits_of_its_operands() -> None:
    with metered(10**9) as meter:
        _evaluate("3 * 5")
    assert meter.spent == OPERATION + bits(Fraction(3)) + bits(Fraction(5))  # 64 + 3 + 4


def test_work_past_the_limit_is_refused() -> None:
    with metered(10_000) as meter, pytest.raises(WorkLimit):
        _evaluate("1/3^3000 + 1/5^2500")  # inside every size limit, but 16,000 bits of work and more
    assert meter.spent > 10_000


def test_a_meter_keeps_its_work_to_itself() -> None:
    with metered(10**9) as outer:
        with metered(10**9) as inner:
            charge(Fraction(1))
        spend(7)
    assert inner.spent == OPERATION + 2 and outer.spent == 7
    spend(10**12)  # outside every meter: nothing to charge, nothing refused


def test_a_line_from_the_memory_costs_its_file_what_it_cost_the_first_time() -> None:
    line = "- 1/3^2000 + 1/5^1500 = 0, 1/3^1999 + 1/5^1499 = 0"
    equations._line_outcomes.cache_clear()
    first, second = equations.Budget(), equations.Budget()
    equations.check_text(line, first)
    equations.check_text(line, second)  # from the memory: no arithmetic is done
    assert equations._line_outcomes.cache_info().hits == 1
    assert second.left == first.left < equations.FILE_WORK


def test_a_stated_number_from_the_memory_costs_what_it_cost_the_first_time() -> None:
    equations._stated.cache_clear()
    costs = []
    for _ in range(2):
        with metered(10**9) as meter:
            equations.stated("1/3^2000 + 1/5^1500")
        costs.append(meter.spent)
    assert costs[0] == costs[1] > 10_000


def test_a_refused_stated_number_is_refused_again_from_the_memory() -> None:
    equations._stated.cache_clear()
    for _ in range(2):
        with pytest.raises(LimitError, match="20000 bits"):
            equations.stated("1/11^4000 + 1/13^4000")
    assert equations._stated.cache_info().hits == 1


def test_once_a_file_budget_is_spent_the_lines_left_are_counted() -> None:
    budget = equations.Budget(left=1)
    outcomes = equations.check_text("- 2 * 3 = 6\n- 2 * 4 = 8\nprose\n- 2 * 5 = 11", budget)
    assert [o.status for o in outcomes] == ["ok"]
    assert budget.skipped == ["- 2 * 4 = 8", "- 2 * 5 = 11"]  # the prose line has no math
    summary = budget.outcome()
    assert summary is not None and summary.line == "- 2 * 4 = 8"
    assert summary.message == "napkin math in this file exceeds the work budget; 2 lines not checked"
