"""The executable categories' function library against independent reference values.

References are hand-computed or come from `math`, `statistics` and `fractions` (never from
the code under test); exact-result functions are compared with `==`, floating ones with a
tight relative tolerance where the reference is computed differently.
"""

from __future__ import annotations

import json
import math
import statistics
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from fcbench.envs import exec_functions as lib
from fcbench.envs.exec_functions import distractors as d
from fcbench.envs.exec_functions import maths as m
from fcbench.envs.exec_functions import services as s
from fcbench.envs.exec_functions.backends import (
    HttpRequest,
    HttpResponse,
    LiveServices,
    OfflineServices,
    ReplayServices,
    ServiceUnavailable,
    make_backend,
)
from fcbench.envs.exec_functions.lambdas import LambdaError, compile_lambda

close = pytest.approx


# --------------------------------------------------------------------------- geometry, algebra


def test_triangle_circle_distance_polygon() -> None:
    assert m.calculate_triangle_area(10, 5) == 25.0
    assert m.calculate_triangle_area(3, 3) == 4.5
    assert m.geometry_area_circle(5) == math.pi * 25
    assert m.get_distance([3, 4], [0, 0]) == 5.0
    assert m.get_distance((1, 1), (4, 5)) == 5.0
    assert m.get_distance([0, 0], [1, 1]) == close(math.dist([0, 0], [1, 1]))
    assert m.polygon_area([[0, 0], [4, 0], [4, 3]]) == 6.0
    assert m.polygon_area([[1, 1], [3, 1], [3, 4], [1, 4]]) == 6.0
    with pytest.raises(ValueError):
        m.polygon_area([[0, 0], [1, 1]])


def test_polygon_area_appends_first_vertex_like_the_original() -> None:
    vertices = [[0, 0], [2, 0], [0, 2]]
    m.polygon_area(vertices)
    assert vertices[-1] == [0, 0] and len(vertices) == 4


def test_quadratic_roots_real_and_complex() -> None:
    assert m.quadratic_roots(1, -3, 2) == [2.0, 1.0]
    assert m.quadratic_roots(1, 2, 1) == [-1.0, -1.0]
    assert m.quadratic_roots(1, 2, 5) == [
        {"real": -1.0, "imaginary": 2.0},
        {"real": -1.0, "imaginary": -2.0},
    ]


def test_factorial_gcd_lcm_primes() -> None:
    for n in (0, 1, 5, 10, 20, 50):
        assert m.math_factorial(n) == math.factorial(n)
    assert m.math_factorial(-3) == 1
    for a, b in ((48, 36), (17, 5), (100, 75), (0, 9)):
        assert m.math_gcd(a, b) == math.gcd(a, b)
        if a and b:
            assert m.math_lcm(a, b) == float(a * b // math.gcd(a, b))
            assert type(m.math_lcm(a, b)) is float
    assert m.get_prime_factors(100) == [2, 2, 5, 5]
    assert m.get_prime_factors(97) == [97]
    assert m.get_prime_factors(360) == [2, 2, 2, 3, 3, 5]
    assert m.get_prime_factors(1) == []


def test_binary_numbers() -> None:
    assert m.add_binary_numbers("1010", "1011") == "10101"
    assert m.add_binary_numbers("0", "0") == "0"
    assert int(m.add_binary_numbers("111", "1"), 2) == 8


def test_matrix_product() -> None:
    a = [[1, 2], [3, 4]]
    b = [[5, 6], [7, 8]]
    assert m.mat_mul(a, b) == [[19, 22], [43, 50]]
    assert m.mat_mul([[1, 2, 3]], [[1], [2], [3]]) == [[14]]


# --------------------------------------------------------------------------- statistics


def test_mean_and_population_standard_deviation() -> None:
    data = [2, 4, 4, 4, 5, 5, 7, 9]
    assert m.calculate_mean(data) == statistics.fmean(data) == 5.0
    assert m.calculate_standard_deviation(data) == close(statistics.pstdev(data)) == 2.0
    other = [1.5, 2.25, 3.0, 10.0]
    assert m.calculate_mean(other) == close(statistics.fmean(other))
    assert m.calculate_standard_deviation(other) == close(statistics.pstdev(other))


def test_binomial_probability_and_permutations() -> None:
    exact = math.comb(20, 5) * Fraction(6, 10) ** 5 * Fraction(4, 10) ** 15
    assert m.calc_binomial_probability(20, 5, 0.6) == close(float(exact), rel=1e-12)
    assert m.calc_binomial_probability(30, 15, 0.5) == close(math.comb(30, 15) / 2**30)
    assert m.calculate_permutations(10, 3) == float(math.perm(10, 3)) == 720.0


def test_cosine_similarity() -> None:
    a, b = [1, 2, 3], [4, 5, 6]
    reference = 32 / (math.sqrt(14) * math.sqrt(77))
    assert m.calculate_cosine_similarity(a, b) == close(reference, rel=1e-12)
    assert m.calculate_cosine_similarity([1, 0], [0, 1]) == 0.0


def test_linear_regression_and_max_points() -> None:
    x, y = [1, 2, 3, 4, 5], [2, 4, 5, 4, 5]
    fit = statistics.linear_regression(x, y)
    assert m.linear_regression(x, y, 6) == close(fit.slope * 6 + fit.intercept)
    assert m.maxPoints([[1, 1], [2, 2], [3, 3]]) == 3
    assert m.maxPoints([[1, 1], [3, 2], [5, 3], [4, 1], [2, 3], [1, 4]]) == 4
    assert m.maxPoints([[0, 0], [0, 5], [0, 9], [1, 1]]) == 3
    assert m.maxPoints([[7, 7]]) == 1


def test_fibonacci() -> None:
    assert m.get_fibonacci_sequence(10) == [0, 1, 1, 2, 3, 5, 8, 13, 21, 34]
    assert m.get_fibonacci_sequence(1) == [0, 1]  # never fewer than two, as the original
    assert m.get_fibonacci_number(1) == 0
    assert m.get_fibonacci_number(2) == 1
    assert m.get_fibonacci_number(10) == 34
    assert m.get_fibonacci_number(0) == "Input should be a positive integer."


def test_sort_array() -> None:
    assert m.sort_array([3, 1, 2]) == [1, 2, 3]
    assert m.sort_array([3, 1, 2], reverse=True) == [3, 2, 1]


# --------------------------------------------------------------------------- physics, finance


def test_kinematics_and_density() -> None:
    assert m.calculate_final_velocity(10, 2, 5) == 20
    assert m.calculate_displacement(10, 2, 5) == 75.0
    assert type(m.calculate_displacement(0, 0, 1)) is float
    assert m.calculate_electrostatic_potential_energy(5, 10) == 50
    assert m.calculate_density(10, 2) == 5.0


def test_mortgage_and_future_value() -> None:
    r, n = 0.05 / 12, 30 * 12
    reference = 200000 * r / (1 - (1 + r) ** -n)
    assert m.mortgage_calculator(200000, 0.05, 30) == close(reference, rel=1e-12)
    assert m.mortgage_calculator(200000, 0.05, 30) == close(1073.64, abs=0.01)
    assert m.calculate_future_value(1000, 0.05, 10) == close(1628.894626777442)


def test_investment_value() -> None:
    nominal = 1000.0
    for _ in range(3):
        nominal = nominal * 1.1 + 100
    assert m.calculate_investment_value(1000, 100, 3, 0.1, [0.0], False) == close(nominal)
    # real value, hand-computed: year 1: 1000*(1.1-0.02)+100*0.98 = 1178; year 2 uses 0.03
    expected = 1178 * (1.1 - 0.03) + 100 * 0.97
    assert m.calculate_investment_value(1000, 100, 2, 0.1, [0.02, 0.03]) == close(expected)
    with pytest.raises(IndexError):
        m.calculate_investment_value(1000, 100, 3, 0.1, [0.02])


def test_nutrition_booking_and_orders() -> None:
    needs = m.calculate_nutritional_needs(70, 175, 30, "male", 3, "maintain")
    bmr = 88.362 + 13.397 * 70 + 4.799 * 175 - 5.677 * 30
    assert needs["calories"] == close(bmr * 1.55)
    assert needs["proteins_g"] == close(bmr * 1.55 * 0.3 / 4)
    assert m.calculate_nutritional_needs(60, 160, 25, "female", 1, "lose")["calories"] == close(
        (447.593 + 9.247 * 60 + 3.098 * 160 - 4.330 * 25) * 1.2 - 500
    )
    booking = m.book_room("deluxe", 1000, "08-11-2024", "08-15-2024", "123")
    assert booking == {
        "customer_id": "123",
        "room_number": "deluxe",
        "check_in_date": "08-11-2024",
        "check_out_date": "08-15-2024",
        "total_price": 1000,
    }
    assert m.book_room("king", 100, "a", "b", "c", "DISCOUNT10")["total_price"] == close(90.0)
    assert m.order_food(["a", "b"], [2, 3], [1.5, 2.0]) == 9.0


# --------------------------------------------------------------------------- derivative / lambdas


def test_estimate_derivative_matches_the_forward_difference() -> None:
    h = 0.0000000001
    expected = ((5 + h) ** 2 - 5**2) / h
    assert m.estimate_derivative("lambda x: x**2", 5) == expected
    assert m.estimate_derivative("lambda x: 3*x**2 + 2*x - 1", 2) == close(14, rel=1e-4)
    assert m.estimate_derivative("lambda t: math.sin(t)", 0) == close(1.0, rel=1e-4)


def test_derivative_of_non_lambda_text_fails_like_the_original() -> None:
    with pytest.raises(TypeError, match="not callable"):
        m.estimate_derivative("x**2", 5)
    with pytest.raises(TypeError):
        m.estimate_derivative(42, 5)


@pytest.mark.parametrize(
    "text",
    [
        "__import__('os').system('true')",
        "lambda x: x.__class__",
        "lambda x: open('/etc/passwd')",
        "lambda x: [y for y in range(3)]",
        "lambda x: os.getcwd()",
        "lambda *a: 1",
    ],
)
def test_lambda_text_never_runs_code(text: str) -> None:
    with pytest.raises((LambdaError, NameError)):
        compile_lambda(text, {"x": 1})(1)


# --------------------------------------------------------------------------- doc-only functions


def test_doc_only_functions() -> None:
    assert d.convert_binary_to_decimal("1010") == 10
    assert d.convert_decimal_to_hex(255) == "ff"
    assert d.convert_temperature(100, "Celsius", "Fahrenheit") == 212
    assert d.convert_temperature(32, "Fahrenheit", "Celsius") == 0
    assert d.convert_coordinates([(1, 2), (3, 4)]) == [[1, 2], [3, 4]]
    assert d.apply_discount(200, 10) == 180
    assert d.calculate_total([1, 2], [3.0, 4.0]) == 11.0
    assert d.calculate_total_price(100, 3, 50) == 250
    assert d.compound_interest(1000, 0.05, 1, 2) == close(102.5)
    assert d.inflation_adjustment(100, 0.1, 2) == close(121.0)
    assert d.adjust_for_inflation(121, [0.1, 0.1]) == close(100.0)
    assert d.calculate_slope([1, 2, 3], [2, 4, 6]) == 2.0
    assert d.calculate_intercept([1, 2, 3], [3, 5, 7], 2) == 1.0
    assert d.predict_value(2, 1, 3) == 7
    assert d.calculate_interest_rate(1000, 0.05, 2) == 100.0
    assert d.validate_polygon([[0, 0], [1, 0], [0, 1]]) is True
    assert d.validate_polygon([[0, 0], [1, 1], [2, 2]]) is False
    assert 1 <= d.generate_random_number(1, 3) <= 3
    assert "123" in d.confirm_booking("123", "101", 99.0)
    bmr = d.calculate_basal_metabolic_rate(70, 175, 30, "male")
    assert d.calculate_daily_energy_expenditure(bmr, 2) == close(bmr * 1.375)


def test_every_documented_function_is_implemented() -> None:
    """Every name the exec datasets' docs offer is in the library; the official allow-list
    is exactly upstream's (51 ground-truth functions) plus requests.get."""
    documented = {
        *m.PURE_FUNCTIONS,
        *s.SERVICE_FUNCTIONS,
        *d.DISTRACTOR_FUNCTIONS,
        *s.DOC_ONLY_SERVICES,
    }
    assert len(documented) == 72
    assert documented | {"requests.get"} == lib.ALL_NAMES
    assert len(lib.OFFICIAL_NAMES) == 52
    assert not set(d.DISTRACTOR_FUNCTIONS) & lib.OFFICIAL_NAMES


# --------------------------------------------------------------------------- services, backends


class FakeBackend:
    """Answers from a dict keyed by URL; remembers what it was asked."""

    name = "fake"

    def __init__(self, answers: dict[str, tuple[int, Any]]) -> None:
        self.answers = answers
        self.asked: list[HttpRequest] = []

    def get(self, request: HttpRequest) -> HttpResponse:
        self.asked.append(request)
        status, body = self.answers[request.url]
        return HttpResponse(status, body if isinstance(body, str) else json.dumps(body))


def test_service_functions_read_the_official_fields() -> None:
    backend = FakeBackend(
        {
            "https://api.open-meteo.com/v1/forecast": (200, {"current": {"temperature_2m": 61.3}}),
            "http://ip-api.com/json/8.8.8.8": (200, {"lat": 39.03, "lon": -77.5, "zip": "20149"}),
            "http://ip-api.com/json/bad": (200, {"status": "fail", "message": "invalid query"}),
            "https://covid-193.p.rapidapi.com/statistics": (
                200,
                {"response": [{"deaths": {"total": 7}, "cases": {"active": 3}}]},
            ),
            "https://date.nager.at/api/v3/publicholidays/2024/FR": (200, [{"date": "2024-01-01"}]),
            "http://ziptasticapi.com/94704": (200, {"city": "BERKELEY"}),
        }
    )
    assert s.get_weather_data(backend, (37.8, -122.3)) == 61.3
    assert s.get_coordinate_by_ip_address(backend, "8.8.8.8") == (39.03, -77.5)
    assert s.get_zipcode_by_ip_address(backend, "8.8.8.8") == "20149"
    assert s.get_zipcode_by_ip_address(backend, "bad") == "invalid query"
    assert s.get_covid_death_by_country(backend, "Italy") == 7
    assert s.get_active_covid_case_by_country(backend, "Italy") == 3
    assert s.retrieve_holiday_by_year(backend, "2024", "FR") == [{"date": "2024-01-01"}]
    assert s.retrieve_city_based_on_zipcode(backend, "94704") == "BERKELEY"
    weather = backend.asked[0]
    assert dict(weather.params)["temperature_unit"] == "fahrenheit"


def test_service_argument_errors_come_before_the_request() -> None:
    with pytest.raises(ValueError):
        s.get_weather_data(OfflineServices(), (1, 2, 3))
    with pytest.raises(ServiceUnavailable):
        s.get_weather_data(OfflineServices(), (1, 2))


def test_rest_get_validates_like_requests() -> None:
    backend = FakeBackend({"https://example.org/x": (200, {"a": 1})})
    response = s.requests_get(backend, url="https://example.org/x", params={"q": 1}, timeout=5)
    assert response.status_code == 200 and response.json() == {"a": 1}
    with pytest.raises(ValueError):
        s.requests_get(backend, url="example.org")
    with pytest.raises(TypeError):
        s.requests_get(backend, url="https://example.org/x", bogus=1)


def test_replay_store_round_trip_and_keys_stay_out(tmp_path: Path) -> None:
    request = HttpRequest.get(
        "https://geocode.maps.co/search",
        {"q": "Paris", "api_key": "${GEOCODE_API_KEY}"},
        {"X-RapidAPI-Key": "secret"},
        "geocode",
    )
    store = ReplayServices(tmp_path)
    with pytest.raises(ServiceUnavailable, match="no recorded response"):
        store.get(request)
    store.record(request, HttpResponse(200, '[{"lat": "48.8", "lon": "2.3"}]'))
    assert store.get(request).json() == [{"lat": "48.8", "lon": "2.3"}]
    assert s.get_coordinates_from_city(store, "Paris") == ("48.8", "2.3")
    assert "secret" not in "".join(p.read_text() for p in tmp_path.iterdir())


def test_live_backend_without_key_is_unavailable_not_failed() -> None:
    live = LiveServices(environ={})
    with pytest.raises(ServiceUnavailable, match="OMDB_API_KEY"):
        s.get_movie_rating(live, "Inception")


def test_make_backend() -> None:
    assert make_backend("offline").name == "offline"
    with pytest.raises(ValueError):
        make_backend("replay")
    with pytest.raises(ValueError):
        make_backend("nope")


def test_call_dispatch() -> None:
    assert lib.call("math_gcd", [], {"a": 12, "b": 18}, OfflineServices()) == 6
    with pytest.raises(NameError):
        lib.call("os.system", ["true"], {}, OfflineServices())
    assert lib.needs_service("get_weather_data") and not lib.needs_service("math_gcd")
