"""Literal arithmetic: Python's values for what is accepted, sizes as the budget counts them,
and the refusals of huge integers."""

from __future__ import annotations

import ast
from typing import Any

import pytest

from fcbench.decode.arithmetic import UnsafeExpression, _evaluate, evaluate
from fcbench.decode.budget import MAX_INT_BITS, Budget, OverBudget


def value(text: str) -> Any:
    return evaluate(ast.parse(text, mode="eval").body)


@pytest.mark.parametrize(("text", "expected"), [
    ("3*2", 6), ("1/4", 0.25), ("2**10", 1024), ("-7//2", -4), ("7%3", 1), ("1<<4", 16),
    ("'a'+'b'", "ab"), ("'ab'*3", "ababab"), ("3*[1]", [1, 1, 1]), ("(1, 2)*2", (1, 2, 1, 2)),
    ("{'a': 1} | {'b': 2}", {"a": 1, "b": 2}), ("{1, 2} - {2}", {1}), ("[0]*-3", []),
    ("1**10**10", 1), ("(-1)**(10**10+1)", -1), ("0**10**10", 0), ("2**-2", 0.25),
    ("{'k': [1]*2}", {"k": [1, 1]}), ("~5 ^ 3", ~5 ^ 3),
])
def test_values_are_pythons(text: str, expected: Any) -> None:
    assert value(text) == expected
    assert type(value(text)) is type(expected)


@pytest.mark.parametrize(("text", "size"), [
    ("[0]*10", 11),
    ("'ab'*3", 7),
    ("[[0]*10]*10", 1 + 11 * 10),  # shared items counted each time
    ("[1, 2] + [3]", 3 + 2),
    ("{'a': 'xyz'}", 1 + 2 + 4),
    ("2**64", 1 + 65 // 8),
])
def test_sizes_count_elements_characters_and_integer_bytes(text: str, size: int) -> None:
    assert _evaluate(ast.parse(text, mode="eval").body, Budget())[1] == size


def test_intermediate_results_are_charged() -> None:
    budget = Budget(1000)
    evaluate(ast.parse("[0]*100 + [0]*100", mode="eval").body, budget)
    assert budget.left == 1000 - 101 - 101 - 202


@pytest.mark.parametrize("text", [
    "10**10**10", f"2**{MAX_INT_BITS}", f"1<<{MAX_INT_BITS + 1}",
    f"(2**{MAX_INT_BITS // 2})*(2**{MAX_INT_BITS // 2 + 8})",
])
def test_huge_integers_are_refused_before_computing(text: str) -> None:
    with pytest.raises(OverBudget):
        value(text)


@pytest.mark.parametrize("text", ["x+1", "f(1)", "'%s' % 1", "[i for i in ()]", "{**{}}"])
def test_what_is_not_literal_arithmetic_is_unsafe(text: str) -> None:
    with pytest.raises(UnsafeExpression):
        value(text)


def test_dicts_meet_their_first_unknown_name_in_pythons_order() -> None:
    with pytest.raises(UnsafeExpression, match="'x'"):
        value("{1: x, y: 2}")
