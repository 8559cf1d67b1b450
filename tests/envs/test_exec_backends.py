"""The live web-service backend on the wire, against a loopback server that records what it
receives: keys go in only when a request is sent (tokens and the dataset's placeholders, in
URL, query and headers), recordings keep the stand-ins, routes send requests elsewhere, a
REST request naming a key placeholder needs that key."""

from __future__ import annotations

import json
import threading
import time
import urllib.parse
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from fcbench.envs.exec_functions import services as s
from fcbench.envs.exec_functions.backends import (
    KEY_HOSTS,
    KEY_VARIABLES,
    ROUTES_VARIABLE,
    HttpRequest,
    HttpResponse,
    LiveServices,
    MissingKey,
    ServiceUnavailable,
    key_named_in,
    key_token,
    keys_for,
    placeholders,
    routed,
)


class Recorder:
    """A loopback server answering `{"ok": true}` and keeping each request's path and
    headers."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, dict[str, str]]] = []
        recorder = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                recorder.seen.append((self.path, {k.lower(): v for k, v in self.headers.items()}))
                body = b'{"ok": true}'
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                return None

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def recorder() -> Iterator[Recorder]:
    server = Recorder()
    yield server
    server.close()


RAPID_HOST = "https://covid-193.p.rapidapi.com"
EXCHANGE_HOST = "https://v6.exchangerate-api.com"


def test_placeholders_are_replaced_only_when_sent(recorder: Recorder, tmp_path: Path) -> None:
    environ = {"RAPID_API_KEY": "R-KEY", "EXCHANGERATE_API_KEY": "X-KEY",
               ROUTES_VARIABLE: json.dumps({RAPID_HOST: recorder.url + "/r",
                                            EXCHANGE_HOST: recorder.url + "/x"})}
    live = LiveServices(tmp_path, environ)
    response = s.requests_get(
        live, url=f"{EXCHANGE_HOST}/v6/YOUR-EXCHANGERATE-API-KEY/latest/EUR",
        params={"token": "${EXCHANGERATE_API_KEY}"},
    )
    assert response.json() == {"ok": True}
    s.requests_get(live, url=f"{RAPID_HOST}/statistics",
                   headers={"X-RapidAPI-Key": "RAPID-API-KEY", "X-RapidAPI-Host": "h"})
    (path, _), (_, headers) = recorder.seen
    assert path == "/x/v6/X-KEY/latest/EUR?token=X-KEY"  # routed, keys substituted
    assert headers["x-rapidapi-key"] == "R-KEY"  # the 2024 spelling, too
    recorded = [json.loads(p.read_text()) for p in tmp_path.glob("*.json")]
    assert f"{EXCHANGE_HOST}/v6/YOUR-EXCHANGERATE-API-KEY/latest/EUR" in [
        r["request"]["url"] for r in recorded]
    assert "R-KEY" not in json.dumps(recorded) and "X-KEY" not in json.dumps(recorded)


EVERY_PLACEHOLDER = [form for variable in KEY_VARIABLES
                     for form in (key_token(variable), *placeholders(variable))]


def test_a_host_the_model_chose_gets_no_key(recorder: Recorder) -> None:
    """A crafted `rest` answer naming a loopback host with every placeholder form, in the
    URL, the query and the headers: the placeholders arrive as they are, never a key."""
    environ = {variable: f"secret-{variable.lower()}-value" for variable in KEY_VARIABLES}
    forms = EVERY_PLACEHOLDER
    s.requests_get(LiveServices(None, environ), url=f"{recorder.url}/x/{forms[0]}?k={forms[1]}",
                   params={f"p{i}": form for i, form in enumerate(forms)},
                   headers={f"X-Leak-{i}": form for i, form in enumerate(forms)})
    ((path, headers),) = recorder.seen
    received = urllib.parse.unquote(path) + json.dumps(headers)
    assert not any(key in received for key in environ.values())
    assert all(form in received for form in forms)  # sent as the model wrote them


@pytest.mark.parametrize("url", [
    "https://geocode.maps.co.example.test/x", "https://example.test/geocode.maps.co/x",
    "https://geocode.maps.co@127.0.0.1/x", "https://u:p@geocode.maps.co/x",
    "https://geocode.maps.co:8443/x", "https://geocode.maps.co:bad/x", "geocode.maps.co/x",
])
def test_look_alike_hosts_get_no_key(url: str) -> None:
    assert keys_for(url) == ()


def test_known_hosts_get_their_key_only() -> None:
    assert keys_for("https://GEOCODE.maps.co/search?q=1") == ("GEOCODE_API_KEY",)
    assert keys_for("http://www.omdbapi.com/?t=x") == ("OMDB_API_KEY",)  # as the data asks it
    assert keys_for("https://covid-193.p.rapidapi.com/statistics") == ("RAPID_API_KEY",)


def test_a_key_goes_only_to_its_own_api(recorder: Recorder) -> None:
    """On a known host, only that API's key is filled in: the others' placeholders stay."""
    environ = {variable: f"secret-{variable.lower()}-value" for variable in KEY_VARIABLES}
    environ[ROUTES_VARIABLE] = json.dumps({"https://geocode.maps.co": recorder.url})
    s.requests_get(LiveServices(None, environ), url="https://geocode.maps.co/search",
                   params={"api_key": "YOUR-GEOCODE-API-KEY", "other": "YOUR-OMDB-API-KEY"},
                   headers={"X-RapidAPI-Key": "YOUR-RAPID-API-KEY"})
    ((path, headers),) = recorder.seen
    assert path == "/search?api_key=secret-geocode_api_key-value&other=YOUR-OMDB-API-KEY"
    assert headers["x-rapidapi-key"] == "YOUR-RAPID-API-KEY"


def test_key_hosts_are_those_of_the_release(fetched_home: Path) -> None:
    """`KEY_HOSTS` is what the release's web-service functions and REST requests send each
    key to: no request needing a key goes elsewhere, and no listed host is unused."""
    from fcbench.check.exec_preflight import planned_request
    from fcbench.dataset.exec_probes import executable_probes, rest_probes

    used: dict[str, set[str]] = {variable: set() for variable in KEY_VARIABLES}
    for probe in executable_probes() + rest_probes():
        request = planned_request(probe.call)
        if request is not None and request.needs_key:
            used[request.needs_key].add(urllib.parse.urlsplit(request.url).hostname or "")
    assert used == {variable: set(hosts) for variable, hosts in KEY_HOSTS.items()}
    assert {v for v in KEY_VARIABLES if keys_for(f"https://{sorted(KEY_HOSTS[v])[0]}/x")} == set(
        KEY_VARIABLES)


def test_a_request_naming_a_placeholder_needs_its_key(recorder: Recorder) -> None:
    routes = {ROUTES_VARIABLE: json.dumps({"https://api.example.test": recorder.url})}
    live = LiveServices(None, routes)
    with pytest.raises(MissingKey, match="RAPID_API_KEY is not set") as missing:
        s.requests_get(live, url="https://api.example.test/x",
                       headers={"X-RapidAPI-Key": "YOUR-RAPID-API-KEY"})
    assert missing.value.variable == "RAPID_API_KEY" and recorder.seen == []
    s.requests_get(live, url="https://api.example.test/free")  # no placeholder: no key needed
    assert [p for p, _ in recorder.seen] == ["/free"]


def test_key_detection_and_placeholder_spellings() -> None:
    assert placeholders("GEOCODE_API_KEY") == ("YOUR-GEOCODE-API-KEY", "GEOCODE-API-KEY")
    assert key_named_in(["https://x/?api_key=YOUR-GEOCODE-API-KEY"]) == "GEOCODE_API_KEY"
    assert key_named_in(["${OMDB_API_KEY}"]) == "OMDB_API_KEY"
    assert key_named_in(["RAPID-API-KEY"]) == "RAPID_API_KEY"
    assert key_named_in(["nothing here", "api_key"]) is None


def test_routes_pick_the_longest_prefix_and_reject_bad_json() -> None:
    env = {ROUTES_VARIABLE: json.dumps({"https://a.test": "http://l/a",
                                        "https://a.test/deep": "http://l/deep"})}
    assert routed("https://a.test/deep/x", env) == "http://l/deep/x"
    assert routed("https://a.test/x", env) == "http://l/a/x"
    assert routed("https://b.test/x", env) == "https://b.test/x"
    assert routed("https://b.test/x", {}) == "https://b.test/x"
    with pytest.raises(ServiceUnavailable, match="not a JSON object"):
        routed("https://a.test", {ROUTES_VARIABLE: "{nope"})
    with pytest.raises(ServiceUnavailable, match="must map"):
        routed("https://a.test", {ROUTES_VARIABLE: '{"https://a.test": 1}'})


def test_routed_geocoding_skips_the_rate_limit_pause(recorder: Recorder) -> None:
    environ = {"GEOCODE_API_KEY": "g",
               ROUTES_VARIABLE: json.dumps({"https://geocode.maps.co": recorder.url})}
    started = time.perf_counter()
    with pytest.raises(KeyError):  # the recorder's {"ok": true} has no coordinates
        s.get_coordinates_from_city(LiveServices(None, environ), "Paris")
    assert time.perf_counter() - started < 1.5  # the 2 s pause protects the real service only
    assert recorder.seen[0][0].startswith("/search?q=Paris&api_key=g")


def test_unreachable_is_unavailable_not_failed() -> None:
    environ = {ROUTES_VARIABLE: json.dumps({"https://api.open-meteo.com": "http://127.0.0.1:9"})}
    with pytest.raises(ServiceUnavailable, match=r"open-meteo\.com"):
        s.get_weather_data(LiveServices(None, environ), (1.0, 2.0))


class Refusing:
    """A live-named backend whose every answer is a refused key."""

    name = "live"

    def __init__(self, status: int) -> None:
        self.status = status
        self.asked = 0

    def get(self, request: HttpRequest) -> HttpResponse:
        self.asked += 1
        return HttpResponse(self.status, '{"message": "You are not subscribed to this API."}')


def test_amazon_does_not_retry_a_refused_key() -> None:
    refused = Refusing(403)
    assert s.get_rating_by_amazon_ASIN(refused, "B0") is None and refused.asked == 1


def test_amazon_retries_a_missing_field(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(s.time, "sleep", lambda seconds: None)
    flaky = Refusing(200)
    assert s.get_price_by_amazon_ASIN(flaky, "B0") is None and flaky.asked == 5


@pytest.mark.parametrize(("kind", "words"), [("endless", "larger than the 1,000,000-byte cap"),
                                             ("drip", "no complete answer within 1.5 s")])
def test_a_live_answer_is_read_under_a_cap_and_a_deadline(
    kind: str, words: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A `rest` call's URL is the model's: an endless or dripping answer ends as the
    service being unavailable (one line), not as the memory filling (issue 30)."""
    from fcbench.envs.exec_functions import backends
    from fcbench.envs.exec_functions.backends import HttpRequest, ServiceUnavailable
    from hostile.endpoints import HostileEndpoint

    monkeypatch.setattr(backends, "LIVE_MAX_BYTES", 1_000_000, raising=False)
    monkeypatch.setattr(backends, "LIVE_TIMEOUT", 1.5)
    with HostileEndpoint(drip_every=0.2, drip_for=20.0) as server:
        started = time.monotonic()
        with pytest.raises(ServiceUnavailable) as caught:
            LiveServices(None, {}).get(HttpRequest.get(server.url(f"models-{kind}") + "/x"))
    assert words in str(caught.value) and "\n" not in str(caught.value)
    assert time.monotonic() - started < 10
