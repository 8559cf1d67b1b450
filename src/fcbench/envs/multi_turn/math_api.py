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
from decimal import Context, Decimal, InvalidOperation
from typing import Any

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

        try:
            mpmath.mp.dps = precision
            return {"result": mpmath.log(value) / mpmath.log(base)}
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
        """base ** exponent (a negative base with a fractional exponent gives a complex)."""
        try:
            return {"result": base**exponent}
        except TypeError:
            return {"error": _BOTH_NUMBERS}

    def square_root(self, number: float, precision: int) -> dict[str, Any]:
        """Square root as a `Decimal` with `precision` significant digits.

        The official sets the thread's global decimal precision; a private context gives
        the same digits and the same errors without touching other Decimal users.
        """
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
        """Python's round (half to even; a float stays a float even with 0 places)."""
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
