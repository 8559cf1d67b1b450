"""Live exec requests are bounded as page fetches are (`envs.http_guard`, issue 31 item 4):
a redirect is followed by hand and checked, the RapidAPI key header is dropped when it leaves
its host, loopback and private targets a model (or a redirect) names are refused unless
routed or opted in, and a body's size and the whole request's time are capped. Servers on
127.0.0.1 stand in for the APIs (routed there with `FCBENCH_EXEC_ROUTES`)."""

from __future__ import annotations

import json
import re
import time
import tracemalloc
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from loopback_http import Answer, Server, drip, endless_chunks, redirect, send_json

from fcbench.check.exec_runner import ExecRunner, limits_for
from fcbench.envs.exec_functions import services as s
from fcbench.envs.exec_functions.backends import (
    ALLOW_PRIVATE_VARIABLE,
    MAX_RESPONSE_BYTES,
    ROUTES_VARIABLE,
    LiveServices,
    RequestRefused,
    ServiceUnavailable,
)
from hostile.pages import REFUSED_URLS, gzip_bomb

KEY = "rapid-key-31"
TZ_HOST = "https://timezone-by-location.p.rapidapi.com"
ZONE = {"Zones": [{"TimezoneId": "Europe/Paris"}]}


@pytest.fixture
def target() -> Iterator[Server]:
    """Where redirects lead: answers a time zone, and keeps the headers it received."""
    with Server(lambda handler: send_json(handler, ZONE)) as server:
        yield server


def routed_to(api: Server, **extra: str) -> dict[str, str]:
    """The live backend's environment: the key, and timezone-by-location routed to `api`."""
    return {"RAPID_API_KEY": KEY, ROUTES_VARIABLE: json.dumps({TZ_HOST: api.url + "/tz"}),
            **extra}


def redirecting_to(location: str) -> Server:
    """A routed API that sends `/tz/timezone` to `location` and answers anything else."""

    def answer(handler: BaseHTTPRequestHandler) -> None:
        if handler.path.startswith("/tz/timezone"):
            redirect(handler, location)
        else:
            send_json(handler, ZONE)

    return Server(answer)


def test_the_key_header_does_not_follow_a_redirect_to_another_host(target: Server) -> None:
    """The issue's case: the API redirects to `localhost`. With private targets allowed (so
    that the redirect is followed at all), the target gets the request without the key."""
    with redirecting_to(f"http://localhost:{target.port}/landing") as api:
        live = LiveServices(None, routed_to(api, **{ALLOW_PRIVATE_VARIABLE: "1"}))
        assert s.get_time_zone_by_coord(live, 2.35, 48.85) == "Europe/Paris"
    ((_, first),) = api.seen
    ((landing, received),) = target.seen
    assert first["x-rapidapi-key"] == KEY  # the API's own host got it
    assert landing == "/landing"
    assert "x-rapidapi-key" not in received and KEY not in json.dumps(received)
    assert received["x-rapidapi-host"] == "timezone-by-location.p.rapidapi.com"  # not a secret


def test_the_key_header_stays_on_a_redirect_within_its_host() -> None:
    """A redirect on the same host and port keeps the key (only leaving the origin drops
    it), so the APIs' own redirects keep working."""
    with redirecting_to("/tz/elsewhere") as api:
        live = LiveServices(None, routed_to(api))
        assert s.get_time_zone_by_coord(live, 2.35, 48.85) == "Europe/Paris"
    assert [h["x-rapidapi-key"] for _, h in api.seen] == [KEY, KEY]
    assert api.targets()[1] == "/tz/elsewhere"


def test_a_redirect_to_loopback_is_refused_by_default(target: Server) -> None:
    """The route's own target is the operator's choice; where it redirects is checked like
    a model's URL: `localhost` is refused, and nothing reaches it."""
    with redirecting_to(f"http://localhost:{target.port}/landing") as api, \
            pytest.raises(RequestRefused) as refused:
        s.get_time_zone_by_coord(LiveServices(None, routed_to(api)), 2.35, 48.85)
    message = str(refused.value)
    assert "refused: localhost resolves to" in message and "a loopback address" in message
    assert ALLOW_PRIVATE_VARIABLE in message and "\n" not in message
    assert len(api.seen) == 1 and target.seen == []


@pytest.mark.parametrize("url", REFUSED_URLS)
def test_a_model_chosen_internal_url_is_refused(url: str) -> None:
    with pytest.raises(RequestRefused, match=r"^GET .*: refused: "):
        s.requests_get(LiveServices(None, {}), url=url)


def test_a_model_chosen_loopback_server_gets_nothing(target: Server) -> None:
    with pytest.raises(RequestRefused, match="a loopback address"):
        s.requests_get(LiveServices(None, {}), url=f"{target.url}/admin")
    assert target.seen == []
    opted_in = LiveServices(None, {ALLOW_PRIVATE_VARIABLE: "1"})
    assert s.requests_get(opted_in, url=f"{target.url}/admin").json() == ZONE


def test_the_sandbox_worker_fails_a_refused_call_and_passes_the_opt_in(
    target: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Through the checker's worker process: a refused request is the call's error (the
    case fails, it is not skipped); the opt-in variable reaches the worker."""
    call = f"requests.get(url='{target.url}/x')"
    runner = ExecRunner("live", None, limits_for("live"))
    try:
        (outcome,) = runner.run([call])
    finally:
        runner.close()
    assert outcome.kind == "error" and "RequestRefused" in outcome.message, outcome
    assert target.seen == []
    monkeypatch.setenv(ALLOW_PRIVATE_VARIABLE, "1")
    runner = ExecRunner("live", None, limits_for("live"))
    try:
        (outcome,) = runner.run([call])
    finally:
        runner.close()
    assert outcome.kind == "ok", outcome
    assert target.targets() == ["/x"]


def test_a_1_gib_chunked_body_is_cut_at_the_cap_in_bounded_memory() -> None:
    """Before: read whole (about 1 GB, then MemoryError in the worker). Now the read stops
    past `MAX_RESPONSE_BYTES`; the server gets to send little more than that."""
    api = Server(lambda handler: None)
    api.answer = endless_chunks(api)
    with api:
        live = LiveServices(None, routed_to(api))
        tracemalloc.start()
        started = time.perf_counter()
        try:
            with pytest.raises(RequestRefused, match="larger than the 10,000,000-byte cap"):
                s.get_time_zone_by_coord(live, 2.35, 48.85)
        finally:
            _, peak = tracemalloc.get_traced_memory()
            tracemalloc.stop()
        seconds = time.perf_counter() - started
        time.sleep(0.2)  # the server notices the hang-up
    assert peak < 4 * MAX_RESPONSE_BYTES, f"{peak:,} bytes"
    assert seconds < 10, seconds
    assert api.sent < 8 * MAX_RESPONSE_BYTES, f"{api.sent:,} bytes sent"


def test_a_dripping_body_ends_by_the_deadline() -> None:
    """One byte every 0.3 s never trips the 20 s per-read timeout (before: 90 s a case, the
    sandbox's wall clock); the whole request's deadline ends it, as unavailable (the
    network's doing, like a timeout)."""
    with Server(drip()) as api:
        live = LiveServices(None, routed_to(api), deadline=2.0)
        started = time.perf_counter()
        with pytest.raises(ServiceUnavailable, match="took longer than 2 s in all"):
            s.get_time_zone_by_coord(live, 2.35, 48.85)
        seconds = time.perf_counter() - started
    assert seconds < 6, seconds


def gzip_bomb_answer(handler: BaseHTTPRequestHandler) -> None:
    body = gzip_bomb()  # about 1 MB on the wire, 1 GiB once decoded
    handler.send_response(200)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Encoding", "gzip")
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)


def announced_gib(handler: BaseHTTPRequestHandler) -> None:
    handler.send_response(200)
    handler.send_header("Content-Length", str(1 << 30))
    handler.end_headers()
    handler.wfile.write(b"{")


@pytest.mark.parametrize(("answer", "detail"), [
    (gzip_bomb_answer, "more than 10,000,000 bytes"),
    (announced_gib, "it announces 1,073,741,824 bytes"),
])
def test_the_cap_holds_once_decoded_and_as_announced(answer: Answer, detail: str) -> None:
    with Server(answer) as api:
        live = LiveServices(None, routed_to(api))
        tracemalloc.start()
        try:
            with pytest.raises(RequestRefused, match=detail):
                s.get_time_zone_by_coord(live, 2.35, 48.85)
        finally:
            _, peak = tracemalloc.get_traced_memory()
            tracemalloc.stop()
    assert peak < 4 * MAX_RESPONSE_BYTES, f"{peak:,} bytes"


ORIGINS = ("a", "a-localhost", "b")
"""Where a hop can go: server A by 127.0.0.1, server A by `localhost` (another host name,
same socket), server B."""


class Chain:
    """Two servers that redirect along `hops` (a list of ORIGINS), hop n at `/hop/n`."""

    def __init__(self) -> None:
        self.hops: list[str] = []
        self.a = Server(self.answer)
        self.b = Server(self.answer)

    def answer(self, handler: BaseHTTPRequestHandler) -> None:
        hop = hop_of(handler.path)
        if hop + 1 < len(self.hops):
            redirect(handler, f"{self.base(self.hops[hop + 1])}/hop/{hop + 1}")
        else:
            send_json(handler, ZONE)

    def base(self, origin: str) -> str:
        server = self.b if origin == "b" else self.a
        return server.url.replace("127.0.0.1", "localhost") if origin == "a-localhost" \
            else server.url

    def received(self) -> list[dict[str, str]]:
        """The headers of each hop, in hop order."""
        seen = sorted(self.a.seen + self.b.seen, key=lambda item: hop_of(item[0]))
        return [headers for _, headers in seen]


def hop_of(path: str) -> int:
    return int(re.search(r"/hop/(\d+)", path).group(1))  # type: ignore[union-attr]


@pytest.fixture(scope="module")
def chain() -> Iterator[Chain]:
    servers = Chain()
    with servers.a, servers.b:
        yield servers


@settings(max_examples=40)
@given(hops=st.lists(st.sampled_from(ORIGINS), min_size=1, max_size=6))
def test_the_key_reaches_only_the_hops_before_the_first_change_of_origin(
    chain: Chain, hops: list[str]
) -> None:
    """Any redirect chain among two servers and two names for one of them (back to the
    first origin after leaving it included): the key header is on every hop up to the first
    that changes origin, and on none after (once dropped, it stays dropped)."""
    chain.hops = hops
    chain.a.seen.clear()
    chain.b.seen.clear()
    environ = {"RAPID_API_KEY": KEY, ALLOW_PRIVATE_VARIABLE: "1",
               ROUTES_VARIABLE: json.dumps({TZ_HOST: f"{chain.base(hops[0])}/hop/0"})}
    assert s.get_time_zone_by_coord(LiveServices(None, environ), 2.35, 48.85) == "Europe/Paris"
    kept = 1
    while kept < len(hops) and hops[kept] == hops[0]:
        kept += 1
    assert [h.get("x-rapidapi-key") for h in chain.received()] == \
        [KEY] * kept + [None] * (len(hops) - kept)


def test_without_requests_a_live_run_is_refused_in_one_line(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Live requests go through `requests` (the `web` extra): without it a live run stops
    before it starts, and a backend used anyway makes its calls unavailable, not failed."""
    import importlib.util

    from fcbench.check.registry import JudgeSettings

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "requests" else real(name, *a))
    with pytest.raises(ValueError, match=r"^--exec-backend live needs 'requests': pip install"):
        JudgeSettings("v4", exec_backend="live").validate()
    JudgeSettings("v4", exec_backend="offline").validate()
    with pytest.raises(ServiceUnavailable, match="needs 'requests'"):
        s.requests_get(LiveServices(None, {}), url="https://example.org/")


def test_an_invalid_header_fails_the_call_without_quoting_the_key(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A `rest` header the model broke (a line break after the placeholder): `requests`
    refuses it as `requests.get` would, and its message, which quotes the value with the
    key filled in, reaches the call's error masked."""
    import requests

    monkeypatch.setenv("RAPID_API_KEY", KEY)
    with Server(lambda handler: send_json(handler, ZONE)) as api:
        live = LiveServices(None, routed_to(api))
        with pytest.raises(requests.exceptions.InvalidHeader) as bad:
            s.requests_get(live, url=f"{TZ_HOST}/timezone",
                           headers={"X-RapidAPI-Key": "YOUR-RAPID-API-KEY\n"})
    assert KEY not in str(bad.value) and "***" in str(bad.value)
    assert api.seen == []
