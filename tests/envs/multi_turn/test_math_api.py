"""MathAPI: results, error dicts, and the non-JSON result types the model sees as text."""

from __future__ import annotations

import importlib
import json
import math
import sys
import time
from decimal import Decimal
from typing import Any

import pytest

from fcbench.envs.budget import MAX_PRECISION_DIGITS, BudgetExceeded
from fcbench.envs.multi_turn import load_class
from fcbench.envs.multi_turn.math_api import MathAPI


def _rendered(result: dict[str, Any]) -> str:
    """How the runner shows a dict result: JSON, else `str()`."""
    try:
        return json.dumps(result)
    except TypeError:
        return str(result)


def test_stateless() -> None:
    assert load_class("MathAPI") is MathAPI
    api = MathAPI()
    api._load_scenario({"anything": 1})
    assert [k for k in vars(api) if not k.startswith("_")] == []


def test_logarithm_is_mpmath() -> None:
    pytest.importorskip("mpmath")
    api = MathAPI()
    assert _rendered(api.logarithm(630.0, 10, 5)) == "{'result': mpf('2.7993393')}"
    assert _rendered(api.logarithm(20, 10, 2)) == "{'result': mpf('1.3027')}"
    # [quirk] the precision is global and left set; the runner prints each result right
    # after its call, so a result keeps the digits of its own call's precision
    kept = api.logarithm(20, 10, 2)
    api.logarithm(2, 10, 5)
    assert importlib.import_module("mpmath").mp.dps == 5
    assert _rendered(kept) == "{'result': mpf('1.3027')}"
    assert _rendered(api.logarithm(0, 10, 5)) == "{'result': mpf('-inf')}"
    assert _rendered(api.logarithm(-1, 10, 5)) == "{'result': mpc(real='0.0', imag='1.3643761')}"
    assert api.logarithm(8, 1, 5) == {"error": ""}  # division by log(1) == 0


def test_square_root_is_decimal() -> None:
    api = MathAPI()
    assert api.square_root(10, 5) == {"result": Decimal("3.1623")}
    assert _rendered(api.square_root(16.0, 3)) == "{'result': Decimal('4')}"
    assert api.square_root(-1, 3) == {"error": "Cannot calculate square root of a negative number"}
    invalid = {"error": "Input must be a number or computation resulted in an invalid operation"}
    assert api.square_root("x", 3) == invalid  # type: ignore[arg-type]
    assert api.square_root(2, 2.5) == invalid  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="valid range for prec"):
        api.square_root(2, 0)


def test_statistics() -> None:
    api = MathAPI()
    assert api.mean([1, 2, 3, 4]) == {"result": 2.5}
    assert api.mean([]) == {"error": "Cannot calculate mean of an empty list"}
    assert api.mean(["a"]) == {"error": "All elements in the list must be numbers"}  # type: ignore[list-item]
    assert api.standard_deviation([2, 4, 4, 4, 5, 5, 7, 9]) == {"result": 2.0}
    assert api.standard_deviation([]) == {
        "error": "Cannot calculate standard deviation of an empty list"
    }
    assert api.min_value([3, 1, 2]) == {"result": 1}
    assert api.max_value([3, 1, 2]) == {"result": 3}
    assert api.sum_values([1.5, 2]) == {"result": 3.5}
    assert api.min_value([]) == {"error": "Cannot find minimum of an empty list"}
    assert api.max_value([]) == {"error": "Cannot find maximum of an empty list"}
    assert api.sum_values([]) == {"error": "Cannot calculate sum of an empty list"}
    assert api.max_value([1, "a"]) == {"error": "All elements in the list must be numbers"}  # type: ignore[list-item]


def test_arithmetic() -> None:
    api = MathAPI()
    assert api.add(1, 2) == {"result": 3}
    assert api.add("a", "b") == {"result": "ab"}  # type: ignore[arg-type]
    assert api.add(1, "b") == {"error": "Both inputs must be numbers"}  # type: ignore[arg-type]
    assert api.subtract(5, 7.5) == {"result": -2.5}
    assert api.multiply(3, 4) == {"result": 12}
    assert api.multiply("a", 3) == {"error": "Both inputs must be numbers"}  # type: ignore[arg-type]
    assert api.divide(1, 4) == {"result": 0.25}
    assert api.divide(1, 0) == {"error": "Cannot divide by zero"}
    assert api.power(2, 10) == {"result": 1024}
    assert isinstance(api.power(-8, 1 / 3)["result"], complex)
    assert api.absolute_value(-3.5) == {"result": 3.5}
    assert api.absolute_value("x") == {"error": "Input must be a number"}  # type: ignore[arg-type]
    assert api.round_number(2.5) == {"result": 2.0}
    assert api.round_number(3.14159, 2) == {"result": 3.14}
    assert api.round_number(1.5, 1.0) == {  # type: ignore[arg-type]
        "error": "First input must be a number, second input must be an integer"
    }
    assert api.percentage(1, 8) == {"result": 12.5}
    assert api.percentage(1, 0) == {"error": "Whole value cannot be zero"}


def test_unit_conversions() -> None:
    api = MathAPI()
    assert api.si_unit_conversion(2, "km", "m") == {"result": 2000.0}
    assert api.si_unit_conversion(5, "cm", "mm")["result"] == pytest.approx(50)
    assert api.si_unit_conversion("5", "km", "m") == {"error": "Value must be a number"}  # type: ignore[arg-type]
    assert api.si_unit_conversion(1, "km", "mi") == {
        "error": "Conversion from 'km' to 'mi' is not supported"
    }
    assert api.imperial_si_conversion(3, "ft", "ft") == {"result": 3}
    assert api.imperial_si_conversion(100, "celsius", "fahrenheit") == {"result": 212.0}
    f_to_c = api.imperial_si_conversion(212, "fahrenheit", "celsius")["result"]
    assert math.isclose(f_to_c, 100)
    assert api.imperial_si_conversion(10, "miles", "km") == {"result": 16.0934}
    assert api.imperial_si_conversion(1, "kg", "oz") == {
        "error": "Conversion from 'kg' to 'oz' is not supported"
    }
    assert api.imperial_si_conversion(None, "kg", "lb") == {"error": "Value must be a number"}  # type: ignore[arg-type]


def test_square_root_without_precision_fails_like_the_official() -> None:
    invalid = {"error": "Input must be a number or computation resulted in an invalid operation"}
    assert MathAPI().square_root(3, None) == invalid  # type: ignore[arg-type]


def test_precision_past_the_budget_is_refused_before_computing() -> None:
    api = MathAPI()
    with pytest.raises(BudgetExceeded, match="precision 999999999 is over the limit"):
        api.square_root(2, 999999999)
    with pytest.raises(BudgetExceeded, match="logarithm: precision"):
        api.logarithm(10, 2, 999999999)
    assert len(str(api.square_root(2, MAX_PRECISION_DIGITS)["result"])) == MAX_PRECISION_DIGITS + 1


def test_an_integer_power_too_long_to_print_fails_as_printing_it_would() -> None:
    api = MathAPI()
    limit = sys.get_int_max_str_digits()
    with pytest.raises(ValueError) as printing:
        str(10**limit)
    with pytest.raises(ValueError) as refused:
        api.power(2, 999999999)
    assert str(refused.value) == str(printing.value)
    assert api.power(10, limit - 1) == {"result": 10 ** (limit - 1)}  # near the limit: computed
    assert api.power(-1, 10**4000) == {"result": 1}
    assert api.power(2, -5) == {"result": 2**-5}


def test_an_integer_rounded_past_all_its_digits_is_zero_without_computing() -> None:
    api = MathAPI()
    for number in (0, 5, 15, 499, 500, 1500, -2501, True, 10**30):
        for places in range(-35, 3):
            assert api.round_number(number, places) == {"result": round(number, places)}
    started = time.monotonic()
    assert api.round_number(-(10**4000), -(10**9)) == {"result": 0}  # Python: 10**(10**9)
    assert time.monotonic() - started < 5  # the computation it avoids would not end
