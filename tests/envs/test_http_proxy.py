"""Behind a proxy (`HTTP_PROXY`, `HTTPS_PROXY`), page fetches and live exec requests check a
name before the proxy is asked (issue 31 item 5): the proxy resolves names where this host
cannot look, so a name that does not resolve here (`metadata.google.internal`, a redirect to
`internal.corp`) or resolves to an internal address is refused, with the reason naming the
opt-in. The proxy is a loopback fake that records what it was asked; names resolve through
a test resolver (`http_guard.resolve`), so no look-up leaves the process."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler

import pytest
from loopback_http import Server, drip, redirect, send_json

from fcbench.envs import http_guard
from fcbench.envs.exec_functions import services as s
from fcbench.envs.exec_functions.backends import (
    ALLOW_PRIVATE_VARIABLE,
    ROUTES_VARIABLE,
    LiveServices,
    RequestRefused,
)
from fcbench.envs.web_search.pages import PageFetcher

NAMES = {"public.example": ["93.184.216.34"], "intranet.example": ["10.0.0.5"]}
"""What the test resolver knows; every other name (but loopback's) does not resolve."""
METADATA = "http://metadata.google.internal/computeMetadata/v1/"


def answer_as_proxy(handler: BaseHTTPRequestHandler) -> None:
    """The proxy's answers, by the absolute URL it is asked for."""
    url = handler.path
    if "/start" in url or "/tz/" in url:
        redirect(handler, "http://internal.corp/secret")
    elif url.endswith("/drip"):
        drip()(handler)
    else:
        body = f"from the proxy: {url}".encode()
        handler.send_response(200)
        handler.send_header("Content-Type", "text/html; charset=utf-8")
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body)


@pytest.fixture
def resolver(monkeypatch: pytest.MonkeyPatch) -> None:
    real = http_guard.resolve

    def resolve(host: str, port: int) -> list[str]:
        if host in NAMES:
            return NAMES[host]
        if host in ("127.0.0.1", "localhost"):
            return real(host, port)
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    monkeypatch.setattr(http_guard, "resolve", resolve)


@pytest.fixture
def proxy(monkeypatch: pytest.MonkeyPatch, resolver: None) -> Iterator[Server]:
    with Server(answer_as_proxy) as server:
        for name in ("http_proxy", "https_proxy", "all_proxy", "no_proxy", "NO_PROXY",
                     "ALL_PROXY"):
            monkeypatch.delenv(name, raising=False)
        monkeypatch.setenv("HTTP_PROXY", server.url)
        monkeypatch.setenv("HTTPS_PROXY", server.url)
        yield server


def test_a_public_name_goes_through_the_proxy(proxy: Server) -> None:
    """The set-up works: a name that resolves to a public address is asked of the proxy."""
    answer = PageFetcher(deadline=5).fetch("http://public.example/page", "raw")
    assert answer == {"content": "from the proxy: http://public.example/page"}
    assert proxy.targets() == ["http://public.example/page"]


def test_a_page_on_a_name_that_does_not_resolve_here_is_refused(proxy: Server) -> None:
    """Before: the proxy was asked for the metadata service and its answer shown."""
    answer = PageFetcher(deadline=5).fetch(METADATA, "raw")
    assert answer["error"].startswith(
        f"An error occurred while fetching {METADATA}: refused: metadata.google.internal does "
        "not resolve here")
    assert "--web-allow-private" in answer["error"] and "\n" not in answer["error"]
    assert proxy.seen == []


def test_a_page_on_a_name_resolving_to_a_private_address_is_refused(proxy: Server) -> None:
    answer = PageFetcher(deadline=5).fetch("http://intranet.example/", "raw")
    assert "intranet.example resolves to 10.0.0.5, a private address" in answer["error"]
    assert proxy.seen == []


def test_a_redirect_to_a_name_that_does_not_resolve_here_is_refused(proxy: Server) -> None:
    answer = PageFetcher(deadline=5).fetch("http://public.example/start", "raw")
    assert "refused: internal.corp does not resolve here" in answer["error"], answer
    assert proxy.targets() == ["http://public.example/start"]


def test_the_opt_in_lets_the_proxy_resolve(proxy: Server) -> None:
    answer = PageFetcher(deadline=5, allow_private=True).fetch(METADATA, "raw")
    assert answer == {"content": f"from the proxy: {METADATA}"}


def test_without_a_proxy_an_unresolvable_name_fails_as_usual(resolver: None,
                                                             monkeypatch: pytest.MonkeyPatch
                                                             ) -> None:
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "ALL_PROXY",
                 "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    error = PageFetcher(deadline=5).fetch(METADATA, "raw")["error"]
    assert "refused" not in error and "NameResolutionError" in error, error


def test_the_deadline_holds_through_the_proxy(proxy: Server) -> None:
    """The sockets to the proxy are the watchdog's too: a body dripped through it ends."""
    started = time.perf_counter()
    answer = PageFetcher(deadline=2).fetch("http://public.example/drip", "raw")
    assert "took longer than 2 s in all" in answer["error"], answer
    assert time.perf_counter() - started < 6


def test_live_exec_refuses_a_name_that_does_not_resolve_here(proxy: Server) -> None:
    with pytest.raises(RequestRefused) as refused:
        s.requests_get(LiveServices(None, {}), url=METADATA)
    message = str(refused.value)
    assert "refused: metadata.google.internal does not resolve here" in message
    assert ALLOW_PRIVATE_VARIABLE in message
    assert proxy.seen == []


def test_live_exec_refuses_a_routed_apis_redirect_to_an_internal_name(proxy: Server) -> None:
    """The route's target (the operator's) is asked through the proxy; its redirect to
    `internal.corp` is not."""
    environ = {"RAPID_API_KEY": "k", ROUTES_VARIABLE: json.dumps(
        {"https://timezone-by-location.p.rapidapi.com": "http://public.example/tz"})}
    with pytest.raises(RequestRefused, match=r"internal\.corp does not resolve here"):
        s.get_time_zone_by_coord(LiveServices(None, environ), 2.35, 48.85)
    (asked,) = proxy.targets()
    assert asked.startswith("http://public.example/tz/timezone?")


def test_a_loopback_mirror_is_asked_directly_not_through_the_proxy(proxy: Server) -> None:
    """An allowed local address (a routed stand-in, `--web-allow-private`) is this host's:
    the proxy's loopback is another machine's, so it is never asked for it."""
    with Server(lambda handler: send_json(handler, {"Zones": [{"TimezoneId": "Z"}]})) as api:
        environ = {"RAPID_API_KEY": "k", ROUTES_VARIABLE: json.dumps(
            {"https://timezone-by-location.p.rapidapi.com": api.url})}
        assert s.get_time_zone_by_coord(LiveServices(None, environ), 2.35, 48.85) == "Z"
        page = PageFetcher(deadline=5, allow_private=True).fetch(f"{api.url}/page", "raw")
        assert "TimezoneId" in page["content"]
        local = api.url.replace("127.0.0.1", "localhost")
        assert "TimezoneId" in PageFetcher(allow_private=True).fetch(local, "raw")["content"]
    assert len(api.seen) == 3 and proxy.seen == []
