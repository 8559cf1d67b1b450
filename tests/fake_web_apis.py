"""A loopback HTTP server standing in for every web API of the executable categories.

Tests point fcbench's live exec backend at it with `FCBENCH_EXEC_ROUTES` (`routes()`), so
nothing leaves 127.0.0.1. Each service answers in the shape its real counterpart does (the
fields fcbench's functions read) with values derived deterministically from the request, so
that the same request always gets the same answer and different requests usually different
ones. `known` answers win: seeded from the release's sanity-check probes (their recorded
answers, so the official sanity comparison passes) and from the `rest` reference requests
(the stored sample responses). Keys are checked: a RapidAPI, geocode, exchange-rate or OMDb
request without the test key gets the service's 401/403. `failing` hosts answer 500.
"""

from __future__ import annotations

import hashlib
import json
import threading
import urllib.parse
from collections.abc import Callable, Iterable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

KEYS = {
    "RAPID_API_KEY": "test-rapid-key",
    "GEOCODE_API_KEY": "test-geocode-key",
    "EXCHANGERATE_API_KEY": "test-exchange-key",
    "OMDB_API_KEY": "test-omdb-key",
}
HOSTS = (
    "api.open-meteo.com", "geocode.maps.co", "v6.exchangerate-api.com",
    "mashape-community-urban-dictionary.p.rapidapi.com", "ip-api.com", "covid-193.p.rapidapi.com",
    "real-time-amazon-data.p.rapidapi.com", "yahoo-finance15.p.rapidapi.com", "ziptasticapi.com",
    "date.nager.at", "timezone-by-location.p.rapidapi.com", "www.omdbapi.com",
)
_KEY_PARAMS = ("api_key", "apikey")
CURRENCIES = ("USD", "EUR", "JPY", "GBP", "CNY", "CAD", "AUD", "INR", "CHF", "MXN", "BRL", "KRW",
              "SEK", "NZD", "SGD", "HKD", "RUB", "ZAR")
Signature = tuple[str, str, frozenset[tuple[str, str]]]


def signature(url: str, params: Iterable[tuple[str, str]] = ()) -> Signature:
    """A request's identity with keys (values, tokens, placeholders) taken out."""
    parsed = urllib.parse.urlsplit(url)
    query = [*urllib.parse.parse_qsl(parsed.query), *params]
    path = parsed.path
    for variable, value in KEYS.items():
        dashed = variable.replace("_", "-")
        for stand_in in ("${" + variable + "}", f"YOUR-{dashed}", dashed, value):
            path = path.replace(stand_in, "KEY")
    kept = frozenset((k, v) for k, v in query if k not in _KEY_PARAMS)
    return (parsed.hostname or "", path, kept)


def _number(seed: str, low: float, high: float, digits: int = 2) -> float:
    fraction = int(hashlib.sha256(seed.encode()).hexdigest()[:8], 16) / 0xFFFFFFFF
    return round(low + (high - low) * fraction, digits)


def _private(ip: str) -> str | None:
    if ip.startswith(("10.", "192.168.")) or any(ip.startswith(f"172.{n}.") for n in range(16, 32)):
        return "private range"
    if ip.startswith(("192.0.2.", "203.0.113.")):
        return "reserved range"
    return None


class _Services:
    """The answers: (status, JSON body) for a request."""

    def __init__(self, known: dict[Signature, Any], failing: frozenset[str]) -> None:
        self.known = known
        self.failing = failing

    def answer(self, host: str, path: str, query: dict[str, str], headers: dict[str, str],
               sig: Signature) -> tuple[int, Any]:
        if host in self.failing:
            return 500, {"message": "service down"}
        refusal = self._key_refusal(host, path, query, headers)
        if refusal is not None:
            return refusal
        if sig in self.known:
            return 200, self.known[sig]
        handler = getattr(self, "_" + host.replace(".", "_").replace("-", "_"), None)
        if handler is None:
            return 404, {"message": f"no such service {host}"}
        return 200, handler(path, query, "|".join(map(str, sorted(sig[2]))) + path)

    def _key_refusal(self, host: str, path: str, query: dict[str, str],
                     headers: dict[str, str]) -> tuple[int, Any] | None:
        if host.endswith("rapidapi.com") and headers.get("x-rapidapi-key") != KEYS["RAPID_API_KEY"]:
            return 403, {"message": "You are not subscribed to this API."}
        if host == "geocode.maps.co" and query.get("api_key") != KEYS["GEOCODE_API_KEY"]:
            return 401, {"error": "invalid api key"}
        if host == "v6.exchangerate-api.com" and KEYS["EXCHANGERATE_API_KEY"] not in path:
            return 403, {"result": "error", "error-type": "invalid-key"}
        if host == "www.omdbapi.com" and query.get("apikey") != KEYS["OMDB_API_KEY"]:
            return 401, {"Response": "False", "Error": "Invalid API key!"}
        return None

    # one method per host: the fields fcbench's functions (and the rest samples) read

    def _api_open_meteo_com(self, path: str, q: dict[str, str], seed: str) -> Any:
        return {"latitude": q.get("latitude"), "longitude": q.get("longitude"),
                "current": {"temperature_2m": _number(seed, -20, 100, 1)}}

    def _geocode_maps_co(self, path: str, q: dict[str, str], seed: str) -> Any:
        lat, lon = str(_number(seed, -80, 80, 6)), str(_number(seed + "x", -170, 170, 6))
        if path.startswith("/reverse"):
            return {"lat": q.get("lat"), "lon": q.get("lon"), "display_name": "Somewhere"}
        return [{"lat": lat, "lon": lon, "display_name": q.get("q", "")}]

    def _v6_exchangerate_api_com(self, path: str, q: dict[str, str], seed: str) -> Any:
        rates = {c: _number(seed + c, 0.01, 200, 4) for c in CURRENCIES}
        return {"result": "success", "base_code": path.rsplit("/", 1)[-1],
                "conversion_rates": rates}

    def _mashape_community_urban_dictionary_p_rapidapi_com(self, path: str, q: dict[str, str],
                                                          seed: str) -> Any:
        return {"list": [{"definition": f"what {q.get('term')} means ({seed[:6]})",
                          "word": q.get("term")}]}

    def _ip_api_com(self, path: str, q: dict[str, str], seed: str) -> Any:
        ip = path.removeprefix("/json").strip("/")
        message = _private(ip)
        if message:
            return {"status": "fail", "message": message, "query": ip}
        return {"status": "success", "lat": _number(seed, -80, 80), "lon": _number(seed, 0, 90),
                "zip": str(int(_number(seed, 10000, 99999, 0))), "query": ip}

    def _covid_193_p_rapidapi_com(self, path: str, q: dict[str, str], seed: str) -> Any:
        return {"response": [{"country": q.get("country"),
                              "cases": {"active": int(_number(seed, 1000, 10**6, 0))},
                              "deaths": {"total": int(_number(seed + "d", 100, 10**5, 0))}}]}

    def _real_time_amazon_data_p_rapidapi_com(self, path: str, q: dict[str, str],
                                              seed: str) -> Any:
        return {"data": {"asin": q.get("asin"),
                         "product_star_rating": str(_number(seed, 1, 5, 1)),
                         "product_price": f"${_number(seed, 1, 999)}",
                         "product_title": f"Product {q.get('asin')}"}}

    def _yahoo_finance15_p_rapidapi_com(self, path: str, q: dict[str, str], seed: str) -> Any:
        if path.endswith("/search"):
            return {"body": [{"symbol": q.get("search"), "name": f"{q.get('search')} Corp."}]}
        if path.endswith("/quotes"):
            return {"body": [{"symbol": q.get("ticker"),
                              "regularMarketPrice": _number(seed, 1, 900)}]}
        return {"body": {str(1690000000 + 86400 * i): {"open": _number(seed + str(i), 1, 900)}
                         for i in range(12)}}

    def _ziptasticapi_com(self, path: str, q: dict[str, str], seed: str) -> Any:
        return {"country": "US", "state": "ZZ", "city": f"CITY {path.strip('/')}"}

    def _date_nager_at(self, path: str, q: dict[str, str], seed: str) -> Any:
        parts = path.strip("/").split("/")
        if "LongWeekend" in parts:
            return [{"startDate": f"{parts[-2]}-05-01", "endDate": f"{parts[-2]}-05-03",
                     "dayCount": 3, "needBridgeDay": False}]
        return [{"date": f"{parts[-2]}-01-01", "localName": "New Year", "name": "New Year's Day",
                 "countryCode": parts[-1]}]

    def _timezone_by_location_p_rapidapi_com(self, path: str, q: dict[str, str],
                                             seed: str) -> Any:
        return {"Zones": [{"TimezoneId": f"Zone/{seed[:5]}", "CountryAlpha2": "ZZ"}],
                "Safezone": _number(seed, 0, 2)}

    def _www_omdbapi_com(self, path: str, q: dict[str, str], seed: str) -> Any:
        return {"Title": q.get("t"), "Rated": "PG", "Director": f"Director of {q.get('t')}",
                "Genre": "Drama", "Response": "True"}


class FakeWebApis:
    """The server; use as a context manager. `requests` counts what it answered."""

    def __init__(self, known: dict[Signature, Any] | None = None,
                 failing: Iterable[str] = ()) -> None:
        self.services = _Services(dict(known or {}), frozenset(failing))
        self.requests = 0
        self.seen: list[str] = []
        self._server: ThreadingHTTPServer | None = None
        self._lock = threading.Lock()

    @property
    def base_url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def routes(self) -> dict[str, str]:
        """`FCBENCH_EXEC_ROUTES`: every host, over http and https, to this server."""
        return {f"{scheme}://{host}": f"{self.base_url}/{host}"
                for host in HOSTS for scheme in ("http", "https")}

    def __enter__(self) -> FakeWebApis:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                fake._handle(self)

            def log_message(self, *args: Any) -> None:
                return None

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def _handle(self, request: BaseHTTPRequestHandler) -> None:
        parsed = urllib.parse.urlsplit(request.path)
        host, _, rest = parsed.path.lstrip("/").partition("/")
        path = "/" + rest
        query = dict(urllib.parse.parse_qsl(parsed.query))
        headers = {k.lower(): v for k, v in request.headers.items()}
        sig = signature(f"http://{host}{path}?{parsed.query}")
        with self._lock:
            self.requests += 1
            self.seen.append(f"{host}{path}")
        status, body = self.services.answer(host, path, query, headers, sig)
        payload = json.dumps(body).encode()
        request.send_response(status)
        request.send_header("Content-Type", "application/json")
        request.send_header("Content-Length", str(len(payload)))
        request.end_headers()
        request.wfile.write(payload)


# --------------------------------------------------------------------------- known answers


def _merge(old: Any, new: Any) -> Any:
    """Two answers to the same request (e.g. rating and price of one product) as one body."""
    if isinstance(old, dict) and isinstance(new, dict):
        return {**old, **{k: _merge(old[k], v) if k in old else v for k, v in new.items()}}
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        return [_merge(a, b) for a, b in zip(old, new, strict=True)]
    return new


def _body_for(function: str, kwargs: dict[str, Any], value: Any) -> Any:
    """The response body that makes `function` return `value` (inverse of fcbench's
    service functions, for the sanity-check probes' recorded answers)."""
    if function in ("get_coordinate_by_ip_address", "get_zipcode_by_ip_address"):
        return {"status": "fail", "message": value}
    if function == "convert_currency":
        return {"result": "success",
                "conversion_rates": {kwargs["to_currency"]: value / kwargs["amount"]}}
    amazon = {"get_rating_by_amazon_ASIN": "product_star_rating",
              "get_price_by_amazon_ASIN": "product_price",
              "get_product_name_by_amazon_ASIN": "product_title"}
    if function in amazon:
        return {"data": {amazon[function]: value}}
    bodies: dict[str, Callable[[Any], Any]] = {
        "get_weather_data": lambda v: {"current": {"temperature_2m": v}},
        "get_coordinates_from_city": lambda v: [{"lat": v[0], "lon": v[1]}],
        "find_term_on_urban_dictionary": lambda v: {"list": [{"definition": v}]},
        "get_covid_death_by_country": lambda v: {"response": [{"deaths": {"total": v}}]},
        "get_active_covid_case_by_country": lambda v: {"response": [{"cases": {"active": v}}]},
        "get_company_name_by_stock_name": lambda v: {"body": [{"name": v}]},
        "get_stock_price_by_stock_name": lambda v: {"body": [{"regularMarketPrice": v}]},
        "get_stock_history": lambda v: {"body": v},
        "retrieve_city_based_on_zipcode": lambda v: {"city": v},
        "retrieve_holiday_by_year": lambda v: v,
        "get_time_zone_by_coord": lambda v: {"Zones": [{"TimezoneId": v}]},
        "get_movie_rating": lambda v: {"Rated": v},
        "get_movie_director": lambda v: {"Director": v},
    }
    return bodies[function](value)


def known_answers(release: str = "2026.3.23") -> dict[Signature, Any]:
    """Answers for the release's sanity-check probes and `rest` reference requests."""
    from fcbench.check.exec_preflight import planned_request
    from fcbench.check.exec_sandbox import parse_call
    from fcbench.dataset.exec_probes import executable_probes
    from fcbench.dataset.load import load_category
    from fcbench.envs.exec_functions import ALL_NAMES

    known: dict[Signature, Any] = {}

    def add(request: Any, body: Any) -> None:
        sig = signature(request.url, request.params)
        known[sig] = _merge(known[sig], body) if sig in known else body

    for case in load_category("rest", release):  # first: a probe's fields go on top
        request = planned_request(case.extras["reference_call"])
        assert request is not None
        add(request, json.loads(case.possible_answer))
    for probe in executable_probes(release):
        request = planned_request(probe.call)
        assert request is not None, probe.call
        parsed = parse_call(probe.call, ALL_NAMES)
        add(request, _body_for(parsed.name, parsed.kwargs, probe.expected))
    return known
