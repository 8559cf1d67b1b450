"""The pure functions of the executable categories (maths, statistics, geometry, finance...).

Scores compare a model call's result with the ground truth's result by `==` for most cases,
so each function here computes its value with the same arithmetic, in the same order, as the
function the 2024-era evaluator shipped: a float where that one divided (`math_lcm` returns
`6.0`, not `6`), integer loops where it looped, and its quirks kept (`get_prime_factors`
divides with `/`, so large inputs drift like the original; `polygon_area` appends the first
vertex to the caller's list). Bad arguments raise, which the checker records as an
execution error, as the original's exceptions were.
"""

from __future__ import annotations

import math
from typing import Any

from fcbench.envs.exec_functions.lambdas import compile_lambda

Number = Any
"""Numbers as models send them: int or float (sometimes something else, which then raises)."""


def calculate_triangle_area(base: Number, height: Number) -> Number:
    """Half base times height."""
    return base * height / 2


def get_distance(pointA: Any, pointB: Any) -> Number:
    """Euclidean distance of two 2-D points, via `** 0.5` like the original."""
    dx = pointA[0] - pointB[0]
    dy = pointA[1] - pointB[1]
    return (dx**2 + dy**2) ** 0.5


def math_factorial(n: int) -> int:
    """n! by an integer loop (0 and negative n give 1, a float n raises in range())."""
    product = 1
    for factor in range(1, n + 1):
        product *= factor
    return product


def quadratic_roots(a: Number, b: Number, c: Number) -> list[Any]:
    """Both roots; complex roots as {"real", "imaginary"} dicts, the `+` root first."""
    discriminant = b**2 - 4 * a * c
    if discriminant >= 0:
        return [(-b + discriminant**0.5) / (2 * a), (-b - discriminant**0.5) / (2 * a)]
    real = -b / (2 * a)
    imaginary = (abs(discriminant) ** 0.5) / (2 * a)
    return [{"real": real, "imaginary": imaginary}, {"real": real, "imaginary": -imaginary}]


def geometry_area_circle(radius: Number) -> Number:
    """pi r squared."""
    return math.pi * radius**2


def get_prime_factors(number: Number) -> list[int]:
    """Trial division with true division (`/`), as the original did: the number turns into a
    float after the first factor, which is what makes its results for big inputs."""
    factors: list[int] = []
    divisor = 2
    while number > 1:
        while number % divisor == 0:
            factors.append(divisor)
            number = number / divisor
        divisor += 1
    return factors


def math_gcd(a: Number, b: Number) -> Number:
    """Euclid's algorithm with `%` (so floats and negatives behave like the original)."""
    while b != 0:
        a, b = b, a % b
    return a


def math_lcm(a: Number, b: Number) -> Number:
    """a*b / gcd: a float, as the original returned."""
    return a * b / math_gcd(a, b)


def calculate_final_velocity(
    initial_velocity: Number, acceleration: Number, time: Number
) -> Number:
    """v = u + a t."""
    return initial_velocity + acceleration * time


def calculate_displacement(initial_velocity: Number, acceleration: Number, time: Number) -> Number:
    """s = u t + 0.5 a t squared (0.5 first, so the result is a float)."""
    return initial_velocity * time + 0.5 * acceleration * time**2


def calculate_electrostatic_potential_energy(charge: Number, voltage: Number) -> Number:
    """U = q V."""
    return charge * voltage


def calculate_density(mass: Number, volume: Number) -> Number:
    """mass / volume."""
    return mass / volume


def mat_mul(matA: Any, matB: Any) -> list[list[Any]]:
    """Schoolbook product, accumulating from integer 0 as the original did."""
    rows, cols, inner = len(matA), len(matB[0]), len(matB)
    product: list[list[Any]] = [[0] * cols for _ in range(rows)]
    for i in range(rows):
        for j in range(cols):
            for k in range(inner):
                product[i][j] += matA[i][k] * matB[k][j]
    return product


def calculate_mean(numbers: Any) -> Number:
    """sum / len."""
    return sum(numbers) / len(numbers)


def calculate_standard_deviation(numbers: Any) -> Number:
    """Population standard deviation, summed in input order, square root by `** 0.5`."""
    mean = calculate_mean(numbers)
    squares = sum((value - mean) ** 2 for value in numbers)
    return (squares / len(numbers)) ** 0.5


def calc_binomial_probability(n: int, k: int, p: Number) -> Number:
    """C(n, k) p^k (1-p)^(n-k), with the binomial coefficient as a float division first."""
    coefficient = math_factorial(n) / (math_factorial(k) * math_factorial(n - k))
    return coefficient * (p**k * (1 - p) ** (n - k))


def calculate_permutations(n: int, k: int) -> Number:
    """n! / (n-k)! as a float."""
    return math_factorial(n) / math_factorial(n - k)


def get_fibonacci_sequence(n: int) -> list[int]:
    """The first n Fibonacci numbers, but never fewer than two ([0, 1] for n <= 2)."""
    sequence = [0, 1]
    for _ in range(2, n):
        sequence.append(sequence[-1] + sequence[-2])
    return sequence


def get_fibonacci_number(n: int) -> Any:
    """The n-th Fibonacci number counting F(1) = 0; a message string for n <= 0."""
    if n <= 0:
        return "Input should be a positive integer."
    if n == 1:
        return 0
    previous, current = 0, 1
    for _ in range(2, n):
        previous, current = current, previous + current
    return current


def estimate_derivative(function: Any, x: Number) -> Number:
    """Forward difference with h = 1e-10 on a `lambda` given as text.

    The original `eval`ed the text; here it is parsed and interpreted with arithmetic only
    (see `lambdas`), giving the same floats for every lambda the original could run.
    """
    func = compile_lambda(function, {"x": x, "function": function})
    h = 0.0000000001
    return (func(x + h) - func(x)) / h


def calculate_cosine_similarity(vectorA: Any, vectorB: Any) -> Number:
    """dot / (|A| |B|), the magnitudes by `** 0.5`, over vectorA's length."""
    size = len(vectorA)
    dot = sum(vectorA[i] * vectorB[i] for i in range(size))
    norm_a = sum(vectorA[i] ** 2 for i in range(size)) ** 0.5
    norm_b = sum(vectorB[i] ** 2 for i in range(len(vectorB))) ** 0.5
    return dot / (norm_a * norm_b)


def mortgage_calculator(loan_amount: Number, interest_rate: Number, loan_period: Number) -> Number:
    """Monthly payment of an annuity loan (rate as a fraction per year)."""
    monthly_rate = interest_rate / 12
    payments = loan_period * 12
    growth = (1 + monthly_rate) ** payments
    return loan_amount * monthly_rate * growth / ((1 + monthly_rate) ** payments - 1)


def calculate_future_value(present_value: Number, interest_rate: Number, periods: Number) -> Number:
    """PV (1 + r)^n with r as a fraction (the 2024-era version; an earlier one divided by 100)."""
    return present_value * (1 + interest_rate) ** periods


def sort_array(array: Any, reverse: bool = False) -> list[Any]:
    """sorted()."""
    return sorted(array, reverse=reverse)


def linear_regression(x: Any, y: Any, point: Number) -> Number:
    """Least-squares line through (x, y), evaluated at `point`."""
    n = len(x)
    sum_x, sum_y = sum(x), sum(y)
    sum_xx = sum(value**2 for value in x)
    sum_xy = sum(x[i] * y[i] for i in range(n))
    slope = (n * sum_xy - sum_x * sum_y) / (n * sum_xx - sum_x**2)
    intercept = (sum_y - slope * sum_x) / n
    return slope * point + intercept


def add_binary_numbers(a: str, b: str) -> str:
    """Sum of two base-2 strings: `bin()` minus its first two characters (so a negative sum
    keeps the original's odd "b101" form)."""
    return bin(int(a, 2) + int(b, 2))[2:]


def maxPoints(points: Any) -> int:
    """Most points on one line: slopes counted from each point to the later ones.

    Like the original, slopes are float ratios (vertical lines under the key "inf") and a
    lone or empty point list gives 1.
    """
    if len(points) < 2:
        return 1
    best = 1
    for i, (x0, y0) in enumerate(_pairs(points)):
        counts: dict[Any, int] = {}
        for x1, y1 in _pairs(points[i + 1 :]):
            dy, dx = y1 - y0, x1 - x0
            key = dy / dx if dx != 0 else "inf"
            counts[key] = counts.get(key, 0) + 1
        best = max([best, *counts.values()])
    return best + 1


def _pairs(points: Any) -> list[tuple[Any, Any]]:
    return [(p[0], p[1]) for p in points]


def calculate_investment_value(
    initial_investment: Number,
    annual_contribution: Number,
    years: int,
    annual_return: Number,
    inflation_rate: Any,
    adjust_for_inflation: bool = True,
) -> Number:
    """Value after `years` of returns and contributions, optionally in real terms.

    The real value uses that year's inflation rate (so too short a list raises IndexError,
    as in the original) and discounts the contribution by the same rate.
    """
    nominal = initial_investment
    real = initial_investment
    for year in range(1, years + 1):
        nominal = nominal * (1 + annual_return) + annual_contribution
        if not adjust_for_inflation:
            real = nominal
            continue
        rates = inflation_rate
        keep = 1 - rates[year - 1] if year <= len(rates) else 1 - rates[-1]
        real = real * (1 + annual_return - rates[year - 1]) + annual_contribution * keep
    return real if adjust_for_inflation else nominal


_ACTIVITY = [1.2, 1.375, 1.55, 1.725, 1.9]


def calculate_nutritional_needs(
    weight: Number, height: Number, age: Number, gender: Any, activity_level: int, goal: Any
) -> dict[str, Number]:
    """Harris-Benedict BMR x activity factor, +-500 kcal for the goal, then a 30/25/45 split."""
    if gender == "male":
        bmr = 88.362 + (13.397 * weight) + (4.799 * height) - (5.677 * age)
    else:
        bmr = 447.593 + (9.247 * weight) + (3.098 * height) - (4.330 * age)
    calories = bmr * _ACTIVITY[activity_level - 1]
    if goal == "lose":
        calories -= 500
    elif goal == "gain":
        calories += 500
    return {
        "calories": calories,
        "proteins_g": (calories * 0.30) / 4,
        "fats_g": (calories * 0.25) / 9,
        "carbohydrates_g": (calories * 0.45) / 4,
    }


def book_room(
    room_type: Any,
    price: Number,
    check_in_date: Any,
    check_out_date: Any,
    customer_id: Any,
    discount_code: Any = None,
) -> dict[str, Any]:
    """A booking record; "DISCOUNT10" takes 10% off (`price` is required although the
    dataset's doc omits it, exactly as in the original)."""
    if discount_code and discount_code == "DISCOUNT10":
        price *= 0.9
    return {
        "customer_id": customer_id,
        "room_number": room_type,
        "check_in_date": check_in_date,
        "check_out_date": check_out_date,
        "total_price": price,
    }


def order_food(item: Any, quantity: Any, price: Any) -> Number:
    """Sum of quantity x price over the items (item count decides the length)."""
    return sum([quantity[i] * price[i] for i in range(len(item))])


def polygon_area(vertices: Any) -> Number:
    """Shoelace formula; the caller's vertex list gets its first vertex appended (original
    side effect, harmless here since every call gets fresh arguments)."""
    n = len(vertices)
    if n < 3:
        raise ValueError("A polygon must have at least 3 vertices.")
    vertices.append(vertices[0])
    twice_area: Number = 0
    for i in range(n):
        twice_area += vertices[i][0] * vertices[i + 1][1] - vertices[i + 1][0] * vertices[i][1]
    return abs(twice_area) / 2.0


PURE_FUNCTIONS = {
    f.__name__: f
    for f in (
        calculate_triangle_area,
        get_distance,
        math_factorial,
        quadratic_roots,
        geometry_area_circle,
        get_prime_factors,
        math_gcd,
        math_lcm,
        calculate_final_velocity,
        calculate_displacement,
        calculate_electrostatic_potential_energy,
        calculate_density,
        mat_mul,
        calculate_mean,
        calculate_standard_deviation,
        calc_binomial_probability,
        calculate_permutations,
        get_fibonacci_sequence,
        get_fibonacci_number,
        estimate_derivative,
        calculate_cosine_similarity,
        mortgage_calculator,
        calculate_future_value,
        sort_array,
        linear_regression,
        add_binary_numbers,
        maxPoints,
        calculate_investment_value,
        calculate_nutritional_needs,
        book_room,
        order_food,
        polygon_area,
    )
}
"""The official library's pure functions, by name."""
