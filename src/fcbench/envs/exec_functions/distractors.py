"""Functions that the executable categories' docs offer but no ground truth calls.

The `exec_multiple` and `exec_parallel_multiple` cases list extra functions next to the right
one. The 2024-era evaluator had no implementation for them, so a model that called one got
`executable_checker:execution_error` (a NameError). fcbench implements them from their docs
for completeness (`fcbench.envs.exec_functions.call` can run them), but the checker keeps the
official behaviour: they are not in `OFFICIAL_NAMES`, so calling one in a scored case is an
execution error, as it was. Semantics follow each doc's description.
"""

from __future__ import annotations

import random
from typing import Any

Number = Any


def adjust_for_inflation(investment_value: Number, inflation_rates: Any) -> Number:
    """Deflate the value by each year's rate (fractions) in turn."""
    value = investment_value
    for rate in inflation_rates:
        value = value / (1 + rate)
    return value


def apply_discount(total: Number, discount: Number) -> Number:
    """Take `discount` percent off."""
    return total * (1 - discount / 100)


def calculate_basal_metabolic_rate(
    weight: Number, height: Number, age: Number, gender: Any
) -> Number:
    """Harris-Benedict BMR (male formula for "male", female formula otherwise)."""
    if gender == "male":
        return 88.362 + 13.397 * weight + 4.799 * height - 5.677 * age
    return 447.593 + 9.247 * weight + 3.098 * height - 4.330 * age


def calculate_daily_energy_expenditure(basal_metabolic_rate: Number, activity_level: Any) -> Number:
    """BMR times the activity factor of level 1..5."""
    factors = [1.2, 1.375, 1.55, 1.725, 1.9]
    return basal_metabolic_rate * factors[int(activity_level) - 1]


def calculate_slope(x: Any, y: Any) -> Number:
    """Least-squares slope."""
    n = len(x)
    sum_x, sum_y = sum(x), sum(y)
    sum_xy = sum(x[i] * y[i] for i in range(n))
    sum_xx = sum(v**2 for v in x)
    return (n * sum_xy - sum_x * sum_y) / (n * sum_xx - sum_x**2)


def calculate_intercept(x: Any, y: Any, slope: Number) -> Number:
    """Intercept of the line with the given slope through the points' centroid."""
    return (sum(y) - slope * sum(x)) / len(x)


def predict_value(slope: Number, intercept: Number, x: Number) -> Number:
    """y = slope x + intercept."""
    return slope * x + intercept


def calculate_interest_rate(principal: Number, rate: Number, time: Number) -> Number:
    """Simple interest earned: principal x rate x time."""
    return principal * rate * time


def calculate_total(quantities: Any, prices: Any) -> Number:
    """Sum of quantity x price."""
    return sum(q * p for q, p in zip(quantities, prices, strict=True))


def calculate_total_price(room_price: Number, nights: int, discount: Number = 0) -> Number:
    """Nights x price, minus a discount amount."""
    return room_price * nights - discount


def compound_interest(principal: Number, rate: Number, times_compounded: int, years: int) -> Number:
    """Interest earned with compounding `times_compounded` times a year."""
    amount = principal * (1 + rate / times_compounded) ** (times_compounded * years)
    return amount - principal


def confirm_booking(customer_id: Any, room_number: Any, total_price: Number) -> str:
    """A confirmation message."""
    return f"Booking confirmed for customer {customer_id}: room {room_number}, total {total_price}."


def convert_binary_to_decimal(binary: str) -> int:
    """int(binary, 2)."""
    return int(binary, 2)


def convert_coordinates(coordinates: Any) -> list[list[Any]]:
    """Tuples to lists."""
    return [list(point) for point in coordinates]


def convert_decimal_to_hex(decimal: int) -> str:
    """Hexadecimal digits without prefix."""
    return format(decimal, "x")


def convert_temperature(temperature: Number, unit_from: str, unit_to: str) -> Number:
    """Celsius <-> Fahrenheit (same unit: unchanged)."""
    source, target = unit_from.lower(), unit_to.lower()
    if source == target:
        return temperature
    if source.startswith("c") and target.startswith("f"):
        return temperature * 9 / 5 + 32
    if source.startswith("f") and target.startswith("c"):
        return (temperature - 32) * 5 / 9
    raise ValueError(f"cannot convert from {unit_from} to {unit_to}")


def generate_random_number(min: int, max: int) -> int:
    """A random integer in [min, max]."""
    return random.randint(min, max)


def inflation_adjustment(amount: Number, inflation_rate: Number, years: int) -> Number:
    """The amount grown by `inflation_rate` (a fraction) per year."""
    return amount * (1 + inflation_rate) ** years


def validate_polygon(vertices: Any) -> bool:
    """At least three vertices, not all on one line."""
    if len(vertices) < 3:
        return False
    (x0, y0), (x1, y1) = vertices[0][:2], vertices[1][:2]
    return any((x1 - x0) * (v[1] - y0) != (y1 - y0) * (v[0] - x0) for v in vertices[2:])


DISTRACTOR_FUNCTIONS = {
    f.__name__: f
    for f in (
        adjust_for_inflation,
        apply_discount,
        calculate_basal_metabolic_rate,
        calculate_daily_energy_expenditure,
        calculate_slope,
        calculate_intercept,
        predict_value,
        calculate_interest_rate,
        calculate_total,
        calculate_total_price,
        compound_interest,
        confirm_booking,
        convert_binary_to_decimal,
        convert_coordinates,
        convert_decimal_to_hex,
        convert_temperature,
        generate_random_number,
        inflation_adjustment,
        validate_polygon,
    )
}
