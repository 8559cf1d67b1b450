"""The web-service functions of the executable categories, and the `rest` category's GET.

Each function takes the `ServiceBackend` first, then the arguments the model (or ground truth)
gave. It builds the same request the 2024-era function sent and reads the same fields from
the answer, with the same fallbacks (a message string, or the whole JSON body, when the
expected field is missing). Argument errors that happen before the request (unpacking
`coordinates`, say) raise before the backend is asked, so an offline run still reports them.

Keys and environment variables, per function (live backend only):

* no key: get_weather_data (api.open-meteo.com), get_coordinate_by_ip_address and
  get_zipcode_by_ip_address (ip-api.com), retrieve_city_based_on_zipcode (ziptasticapi.com),
  retrieve_holiday_by_year (date.nager.at);
* GEOCODE_API_KEY: get_coordinates_from_city (geocode.maps.co);
* EXCHANGERATE_API_KEY: convert_currency (v6.exchangerate-api.com);
* OMDB_API_KEY: get_movie_rating, get_movie_director (and the doc-only get_movie_genre,
  get_director_by_movie_name) (omdbapi.com);
* RAPID_API_KEY (RapidAPI): find_term_on_urban_dictionary (Urban Dictionary),
  get_covid_death_by_country and get_active_covid_case_by_country (covid-193),
  get_rating/price/product_name_by_amazon_ASIN (real-time-amazon-data),
  get_company_name_by_stock_name, get_stock_price_by_stock_name and get_stock_history
  (yahoo-finance15), get_time_zone_by_coord (timezone-by-location);
* `requests.get` (`rest`): whatever URL the model asks for; a key placeholder the model
  copied from the question (`YOUR-RAPID-API-KEY`, `YOUR-GEOCODE-API-KEY`, ... in the URL,
  query or headers) makes the request need that key, which replaces it when it is sent.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from typing import Any

from fcbench.envs.exec_functions.backends import (
    HttpRequest,
    HttpResponse,
    ServiceBackend,
    key_named_in,
    key_token,
)

RAPID = "RAPID_API_KEY"


def _rapid(
    backend: ServiceBackend, url: str, host: str, params: dict[str, Any], service: str
) -> HttpResponse:
    headers = {"X-RapidAPI-Key": key_token(RAPID), "X-RapidAPI-Host": host}
    return backend.get(HttpRequest.get(url, params, headers, service, RAPID))


def _status_message(response: HttpResponse) -> str:
    return f"Failed to fetch data with status code: {response.status_code}"


def _field_or_body(response: HttpResponse, read: Callable[[Any], Any]) -> Any:
    """`read(body)`, or the whole body when that fails (the original's bare `except`)."""
    try:
        return read(response.json())
    except Exception:
        return response.json()


def get_weather_data(backend: ServiceBackend, coordinates: Any) -> Any:
    lat, long = coordinates
    params = {
        "latitude": lat,
        "longitude": long,
        "current": "temperature_2m",
        "temperature_unit": "fahrenheit",
    }
    response = backend.get(
        HttpRequest.get("https://api.open-meteo.com/v1/forecast", params, service="open-meteo")
    )
    if response.status_code != 200:
        return _status_message(response)
    return response.json()["current"]["temperature_2m"]


def get_coordinates_from_city(backend: ServiceBackend, city_name: Any) -> Any:
    params = {"q": city_name, "api_key": key_token("GEOCODE_API_KEY")}
    request = HttpRequest.get(
        "https://geocode.maps.co/search",
        params,
        service="geocode.maps.co",
        needs_key="GEOCODE_API_KEY",
    )
    response = backend.get(request)
    if response.status_code != 200:
        return _status_message(response)
    data = response.json()
    if not data:
        return "No data found for the given city name."
    return data[0]["lat"], data[0]["lon"]


def convert_currency(
    backend: ServiceBackend, amount: Any, from_currency: Any, to_currency: Any
) -> Any:
    token = key_token("EXCHANGERATE_API_KEY")
    url = f"https://v6.exchangerate-api.com/v6/{token}/latest/{from_currency}"
    response = backend.get(
        HttpRequest.get(url, service="exchangerate-api", needs_key="EXCHANGERATE_API_KEY")
    )
    if response.status_code != 200:
        return _status_message(response)
    rates = response.json().get("conversion_rates", {})
    if to_currency not in rates:
        return "Target currency code not found."
    return amount * rates[to_currency]


def find_term_on_urban_dictionary(backend: ServiceBackend, term: Any) -> Any:
    response = _rapid(
        backend,
        "https://mashape-community-urban-dictionary.p.rapidapi.com/define",
        "mashape-community-urban-dictionary.p.rapidapi.com",
        {"term": term},
        "Urban Dictionary",
    )
    return response.json()["list"][0]["definition"]


def _ip_api(backend: ServiceBackend, ip_address: Any) -> HttpResponse:
    return backend.get(HttpRequest.get(f"http://ip-api.com/json/{ip_address}", service="ip-api"))


def get_coordinate_by_ip_address(backend: ServiceBackend, ip_address: Any) -> Any:
    response = _ip_api(backend, ip_address)
    try:
        body = response.json()
        return body["lat"], body["lon"]
    except Exception:
        return response.json()["message"]


def get_zipcode_by_ip_address(backend: ServiceBackend, ip_address: Any) -> Any:
    response = _ip_api(backend, ip_address)
    try:
        return response.json()["zip"]
    except Exception:
        return response.json()["message"]


def _covid(backend: ServiceBackend, country: Any) -> HttpResponse:
    return _rapid(
        backend,
        "https://covid-193.p.rapidapi.com/statistics",
        "covid-193.p.rapidapi.com",
        {"country": country},
        "COVID-19 statistics",
    )


def get_covid_death_by_country(backend: ServiceBackend, country: Any) -> Any:
    response = _covid(backend, country)
    return _field_or_body(response, lambda body: body["response"][0]["deaths"]["total"])


def get_active_covid_case_by_country(backend: ServiceBackend, country: Any) -> Any:
    response = _covid(backend, country)
    return _field_or_body(response, lambda body: body["response"][0]["cases"]["active"])


def _amazon(backend: ServiceBackend, asin: Any, field: str) -> Any:
    """Up to five tries while the field is missing (1, 2, 4, 8, 16 s apart when live), then
    None, as the original retried the flaky service. A refused key (401, 403) is not tried
    again: the answer would be the same None, 31 seconds later."""
    for attempt in range(5):
        response = _rapid(
            backend,
            "https://real-time-amazon-data.p.rapidapi.com/product-details",
            "real-time-amazon-data.p.rapidapi.com",
            {"asin": asin, "country": "US"},
            "Amazon product data",
        )
        try:
            return response.json()["data"][field]
        except KeyError:
            if response.status_code in (401, 403):
                break
            if backend.name == "live":
                time.sleep(2**attempt)
    return None


def get_rating_by_amazon_ASIN(backend: ServiceBackend, ASIN: Any) -> Any:
    return _amazon(backend, ASIN, "product_star_rating")


def get_price_by_amazon_ASIN(backend: ServiceBackend, ASIN: Any) -> Any:
    return _amazon(backend, ASIN, "product_price")


def get_product_name_by_amazon_ASIN(backend: ServiceBackend, ASIN: Any) -> Any:
    return _amazon(backend, ASIN, "product_title")


_YAHOO_HOST = "yahoo-finance15.p.rapidapi.com"


def get_company_name_by_stock_name(backend: ServiceBackend, stock_name: Any) -> Any:
    response = _rapid(
        backend,
        f"https://{_YAHOO_HOST}/api/v1/markets/search",
        _YAHOO_HOST,
        {"search": stock_name},
        "Yahoo Finance",
    )
    return _field_or_body(response, lambda body: body["body"][0]["name"])


def get_stock_price_by_stock_name(backend: ServiceBackend, stock_name: Any) -> Any:
    response = _rapid(
        backend,
        f"https://{_YAHOO_HOST}/api/v1/markets/stock/quotes",
        _YAHOO_HOST,
        {"ticker": stock_name},
        "Yahoo Finance",
    )
    return _field_or_body(response, lambda body: float(body["body"][0]["regularMarketPrice"]))


def get_stock_history(
    backend: ServiceBackend, stock_name: Any, interval: Any, diffandsplits: Any = "true"
) -> Any:
    params = {"symbol": stock_name, "interval": interval, "diffandsplits": diffandsplits}
    response = _rapid(
        backend,
        f"https://{_YAHOO_HOST}/api/v1/markets/stock/history",
        _YAHOO_HOST,
        params,
        "Yahoo Finance",
    )

    def last_ten(body: Any) -> Any:
        data = body["body"]
        return {key: data[key] for key in list(data)[-10:]}

    return _field_or_body(response, last_ten)


def retrieve_city_based_on_zipcode(backend: ServiceBackend, zipcode: Any) -> Any:
    response = backend.get(
        HttpRequest.get(f"http://ziptasticapi.com/{zipcode}", service="ziptastic")
    )
    return _field_or_body(response, lambda body: body["city"])


def retrieve_holiday_by_year(backend: ServiceBackend, year: Any, country: Any) -> Any:
    url = f"https://date.nager.at/api/v3/publicholidays/{year}/{country}"
    return backend.get(HttpRequest.get(url, service="date.nager.at")).json()


def get_time_zone_by_coord(backend: ServiceBackend, long: Any, lat: Any) -> Any:
    response = _rapid(
        backend,
        "https://timezone-by-location.p.rapidapi.com/timezone",
        "timezone-by-location.p.rapidapi.com",
        {"lat": lat, "lon": long, "c": "1", "s": "0"},
        "timezone-by-location",
    )
    return _field_or_body(response, lambda body: body["Zones"][0]["TimezoneId"])


def _omdb(backend: ServiceBackend, movie_name: Any) -> Any:
    params = {"t": movie_name, "apikey": key_token("OMDB_API_KEY")}
    request = HttpRequest.get(
        "https://www.omdbapi.com/", params, service="OMDb", needs_key="OMDB_API_KEY"
    )
    return backend.get(request).json()


def get_movie_rating(backend: ServiceBackend, movie_name: Any) -> Any:
    return _omdb(backend, movie_name)["Rated"]


def get_movie_director(backend: ServiceBackend, movie_name: Any) -> Any:
    return _omdb(backend, movie_name)["Director"]


def get_movie_genre(backend: ServiceBackend, movie_name: Any) -> Any:
    """Doc-only (no official implementation): the OMDb "Genre" field."""
    return _omdb(backend, movie_name)["Genre"]


def get_director_by_movie_name(backend: ServiceBackend, movie_name: Any) -> Any:
    """Doc-only (no official implementation): the OMDb "Director" field."""
    return _omdb(backend, movie_name)["Director"]


_REQUESTS_OPTIONS = frozenset(
    {
        "timeout",
        "allow_redirects",
        "auth",
        "cert",
        "cookies",
        "proxies",
        "stream",
        "verify",
        "data",
        "json",
        "files",
        "hooks",
    }
)


def requests_get(
    backend: ServiceBackend,
    url: Any = None,
    params: Any = None,
    headers: Any = None,
    **options: Any,
) -> HttpResponse:
    """`requests.get` for the `rest` category: only the URL, query and headers matter; the
    other options `requests` accepts are accepted and ignored; unknown ones raise as there."""
    unknown = sorted(set(options) - _REQUESTS_OPTIONS)
    if unknown:
        raise TypeError(f"request() got an unexpected keyword argument '{unknown[0]}'")
    if not isinstance(url, str) or not url.lower().startswith(("http://", "https://")):
        raise ValueError(f"Invalid URL {url!r}: No scheme supplied.")
    if params is not None and not isinstance(params, dict):
        raise TypeError("params must be a dict")
    if headers is not None and not isinstance(headers, dict):
        raise TypeError("headers must be a dict")
    request = HttpRequest.get(url, params, headers, service=_host(url))
    needs = key_named_in([request.url, *(v for _, v in request.params + request.headers)])
    return backend.get(dataclasses.replace(request, needs_key=needs) if needs else request)


def _host(url: str) -> str:
    return url.split("://", 1)[1].split("/", 1)[0]


SERVICE_FUNCTIONS: dict[str, Callable[..., Any]] = {
    f.__name__: f
    for f in (
        get_weather_data,
        get_coordinates_from_city,
        convert_currency,
        find_term_on_urban_dictionary,
        get_coordinate_by_ip_address,
        get_zipcode_by_ip_address,
        get_covid_death_by_country,
        get_active_covid_case_by_country,
        get_rating_by_amazon_ASIN,
        get_price_by_amazon_ASIN,
        get_product_name_by_amazon_ASIN,
        get_company_name_by_stock_name,
        get_stock_price_by_stock_name,
        get_stock_history,
        retrieve_city_based_on_zipcode,
        retrieve_holiday_by_year,
        get_time_zone_by_coord,
        get_movie_rating,
        get_movie_director,
    )
}
"""The official library's web-service functions."""

DOC_ONLY_SERVICES: dict[str, Callable[..., Any]] = {
    "get_movie_genre": get_movie_genre,
    "get_director_by_movie_name": get_director_by_movie_name,
}
