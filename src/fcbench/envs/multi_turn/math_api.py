"""MathAPI: the stateless calculator some multi-turn cases use.

It holds no state (the official runner never loads a scenario into it), so only its
return values matter. Those are compared as rendered text, which makes the *types* of the
results observable: `logarithm` answers with an `mpmath.mpf` and `square_root` with a
`decimal.Decimal`; neither is JSON-serialisable, so the runner falls back to `str()` of the
dict and the model sees e.g. `{'result': mpf('1.30103')}`. Both are reproduced.

Error handling is deliberately uneven, as in the official backend: some functions turn a
`TypeError` into an error dict, others validate up front, and a few let odd inputs raise.
"""

from __future__ import annotations

import importlib
import math
import sys
import threading
from decimal import Context, Decimal, InvalidOperation
from typing import Any

from fcbench.envs.budget import MAX_PRECISION_DIGITS, MAX_RESULT_DIGITS, BudgetExceeded

_TO_METRES: dict[str, float] = {
    "km": 1000,
    "m": 1,
    "cm": 0.01,
    "mm": 0.001,
    "um": 1e-6,
    "nm": 1e-9,
}
_FROM_METRES: dict[str, float] = {unit: 1 / factor for unit, factor in _TO_METRES.items()}

# Factor per "<from>_to_<to>" pair; temperatures also shift by 32 (see imperial_si_conversion).
_IMPERIAL_FACTORS: dict[str, float] = {
    "cm_to_in": 0.393701,
    "in_to_cm": 2.54,
    "m_to_ft": 3.28084,
    "ft_to_m": 0.3048,
    "m_to_yd": 1.09361,
    "yd_to_m": 0.9144,
    "km_to_miles": 0.621371,
    "miles_to_km": 1.60934,
    "kg_to_lb": 2.20462,
    "lb_to_kg": 0.453592,
    "celsius_to_fahrenheit": 1.8,
    "fahrenheit_to_celsius": 5 / 9,
}

_NUMBERS_EXPECTED = "All elements in the list must be numbers"
_BOTH_NUMBERS = "Both inputs must be numbers"


class MathAPI:
    """Arithmetic, statistics and unit conversions; every answer is `{"result": ...}`."""

    def _load_scenario(
        self, scenario: dict[str, Any], long_context: bool = False, release: str | None = None
    ) -> None:
        """Nothing to load: the backend is stateless (kept for the common contract)."""

    def logarithm(self, value: float, base: float, precision: int) -> dict[str, Any]:
        """log(value)/log(base) computed by mpmath with `precision` decimal digits.

        [quirk] Like the official, this sets mpmath's *global* working precision and leaves
        it set: the `mpf` result prints with the digits of the precision current when it is
        rendered, which the runner does right after the call.
        """
        # Imported on first use (untyped; only this function needs it).
        mpmath: Any = importlib.import_module("mpmath")
        _check_precision("logarithm", precision)
        # The working precision is process-wide: calls of concurrent cases (worker threads
        # during generation) take turns, and the result is printed before the next one.
        with _MPMATH_TURN:
            try:
                mpmath.mp.dps = precision
                return {"result": _Printed(mpmath.log(value) / mpmath.log(base))}
            except Exception as error:
                return {"error": str(error)}

    def mean(self, numbers: list[float]) -> dict[str, Any]:
        """Arithmetic mean of a non-empty list."""
        if not numbers:
            return {"error": "Cannot calculate mean of an empty list"}
        try:
            return {"result": sum(numbers) / len(numbers)}
        except TypeError:
            return {"error": _NUMBERS_EXPECTED}

    def standard_deviation(self, numbers: list[float]) -> dict[str, Any]:
        """Population standard deviation (divides by n, not n - 1)."""
        if not numbers:
            return {"error": "Cannot calculate standard deviation of an empty list"}
        try:
            centre = sum(numbers) / len(numbers)
            spread = sum((item - centre) ** 2 for item in numbers) / len(numbers)
            return {"result": math.sqrt(spread)}
        except TypeError:
            return {"error": _NUMBERS_EXPECTED}

    def si_unit_conversion(self, value: float, unit_in: str, unit_out: str) -> dict[str, Any]:
        """Convert between metric length units via metres."""
        if not isinstance(value, (int, float)):
            return {"error": "Value must be a number"}
        if unit_in not in _TO_METRES or unit_out not in _FROM_METRES:
            return {"error": f"Conversion from '{unit_in}' to '{unit_out}' is not supported"}
        try:
            return {"result": value * _TO_METRES[unit_in] * _FROM_METRES[unit_out]}
        except OverflowError:
            return {"error": "Conversion resulted in a value too large to represent"}

    def imperial_si_conversion(self, value: float, unit_in: str, unit_out: str) -> dict[str, Any]:
        """Convert between an imperial and a metric unit (or Celsius/Fahrenheit)."""
        if not isinstance(value, (int, float)):
            return {"error": "Value must be a number"}
        if unit_in == unit_out:
            return {"result": value}
        key = f"{unit_in}_to_{unit_out}"
        if key not in _IMPERIAL_FACTORS:
            return {"error": f"Conversion from '{unit_in}' to '{unit_out}' is not supported"}
        factor = _IMPERIAL_FACTORS[key]
        try:
            if unit_in == "celsius" and unit_out == "fahrenheit":
                converted = value * factor + 32
            elif unit_in == "fahrenheit" and unit_out == "celsius":
                converted = (value - 32) * factor
            else:
                converted = value * factor
            return {"result": converted}
        except OverflowError:
            return {"error": "Conversion resulted in a value too large to represent"}

    def add(self, a: float, b: float) -> dict[str, Any]:
        """a + b (any operands Python can add, e.g. two strings, are accepted)."""
        try:
            return {"result": a + b}
        except TypeError:
            return {"error": _BOTH_NUMBERS}

    def subtract(self, a: float, b: float) -> dict[str, Any]:
        """a - b."""
        try:
            return {"result": a - b}
        except TypeError:
            return {"error": _BOTH_NUMBERS}

    def multiply(self, a: float, b: float) -> dict[str, Any]:
        """a * b, for real numbers only (checked up front, unlike add)."""
        if not isinstance(a, (int, float)) or not isinstance(b, (int, float)):
            return {"error": _BOTH_NUMBERS}
        return {"result": a * b}

    def divide(self, a: float, b: float) -> dict[str, Any]:
        """a / b, refusing a zero divisor."""
        try:
            if b == 0:
                return {"error": "Cannot divide by zero"}
            return {"result": a / b}
        except TypeError:
            return {"error": _BOTH_NUMBERS}

    def power(self, base: float, exponent: float) -> dict[str, Any]:
        """base ** exponent (a negative base with a fractional exponent gives a complex).

        An integer result too long to print is refused before it is computed, with the error
        printing it would raise (what the official result is), or over `MAX_RESULT_DIGITS`
        when Python's printing limit is off.
        """
        _check_integer_power(base, exponent)
        try:
            return {"result": base**exponent}
        except TypeError:
            return {"error": _BOTH_NUMBERS}

    def square_root(self, number: float, precision: int) -> dict[str, Any]:
        """Square root as a `Decimal` with `precision` significant digits.

        The official sets the thread's global decimal precision; a private context gives
        the same digits and the same errors without touching other Decimal users.
        """
        _check_precision("square_root", precision)
        try:
            if number < 0:
                return {"error": "Cannot calculate square root of a negative number"}
            context = Context()
            # Assigned, not passed to Context(): None must fail as the official's assignment does.
            context.prec = precision
            return {"result": Decimal(number).sqrt(context=context)}
        except (TypeError, InvalidOperation):
            return {
                "error": "Input must be a number or computation resulted in an invalid operation"
            }

    def absolute_value(self, number: float) -> dict[str, Any]:
        """|number|."""
        try:
            return {"result": abs(number)}
        except TypeError:
            return {"error": "Input must be a number"}

    def round_number(self, number: float, decimal_places: int = 0) -> dict[str, Any]:
        """Python's round (half to even; a float stays a float even with 0 places).

        An integer rounded to more places left of the point than it has digits is 0, which is
        returned without computing `10 ** places` (Python would, for minutes).
        """
        if _rounds_to_zero(number, decimal_places):
            return {"result": 0}
        try:
            return {"result": round(number, decimal_places)}
        except TypeError:
            return {"error": "First input must be a number, second input must be an integer"}

    def percentage(self, part: float, whole: float) -> dict[str, Any]:
        """part / whole * 100, refusing a zero whole."""
        try:
            if whole == 0:
                return {"error": "Whole value cannot be zero"}
            return {"result": (part / whole) * 100}
        except TypeError:
            return {"error": _BOTH_NUMBERS}

    def min_value(self, numbers: list[float]) -> dict[str, Any]:
        """Smallest element of a non-empty list."""
        if not numbers:
            return {"error": "Cannot find minimum of an empty list"}
        try:
            return {"result": min(numbers)}
        except TypeError:
            return {"error": _NUMBERS_EXPECTED}

    def max_value(self, numbers: list[float]) -> dict[str, Any]:
        """Largest element of a non-empty list."""
        if not numbers:
            return {"error": "Cannot find maximum of an empty list"}
        try:
            return {"result": max(numbers)}
        except TypeError:
            return {"error": _NUMBERS_EXPECTED}

    def sum_values(self, numbers: list[float]) -> dict[str, Any]:
        """Sum of a non-empty list."""
        if not numbers:
            return {"error": "Cannot calculate sum of an empty list"}
        try:
            return {"result": sum(numbers)}
        except TypeError:
            return {"error": _NUMBERS_EXPECTED}


_MPMATH_TURN = threading.Lock()


class _Printed:
    """An `mpf` result with its text fixed when computed: it prints (`repr`, which the dict's
    `str` uses) as the mpf did at the precision of its own call, whatever another case's call
    sets the global precision to before the result is rendered."""

    def __init__(self, value: Any) -> None:
        self.value = value
        self.text = repr(value)

    def __repr__(self) -> str:
        return self.text

    def __str__(self) -> str:
        return str(self.value)


def _check_precision(function: str, precision: Any) -> None:
    """Refuse a digit count whose computation would take minutes and gigabytes (an over-size
    `int` only: other values fail inside the call as they do upstream)."""
    if type(precision) is int and precision > MAX_PRECISION_DIGITS:
        raise BudgetExceeded(
            f"{function}: precision {precision} is over the limit of {MAX_PRECISION_DIGITS} "
            "digits"
        )


def _check_integer_power(base: Any, exponent: Any) -> None:
    """Raise, without computing it, when `base ** exponent` is an integer too long to print."""
    if type(base) not in (int, bool) or type(exponent) not in (int, bool) or exponent <= 0:
        return
    if abs(base) <= 1:
        return
    # within a few digits of the true count (an exponent past float range: more than any)
    scale = math.log10(abs(base))
    digits = math.inf if exponent.bit_length() > 1000 else exponent * scale
    printable = sys.get_int_max_str_digits()
    if printable and digits > printable + 2:
        str(10**printable)  # raises the ValueError printing the result would raise
    if digits > MAX_RESULT_DIGITS + 2:
        raise BudgetExceeded(
            f"power: the result would have about {int(digits)} digits, over the limit of "
            f"{MAX_RESULT_DIGITS}"
        )


def _rounds_to_zero(number: Any, places: Any) -> bool:
    """Whether `round(number, places)` is an integer 0 because 10**-places > 2 * |number|."""
    if not isinstance(number, int) or type(places) not in (int, bool) or places >= 0:
        return False
    digits_bound: int = abs(number).bit_length() // 3 + 1  # at least its decimal digits
    return bool(-places > digits_bound + 1)
