"""Failed web tools (`envs.web_search.failure`): which error dicts are failures, and what
the services and the environment do with them."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from fake_web import FakeWeb

from fcbench.envs.web_search import create, use
from fcbench.envs.web_search.api import WebSearchAPI
from fcbench.envs.web_search.failure import ToolFailure, failure_reason, is_transient
from fcbench.envs.web_search.pages import PageFetcher
from fcbench.envs.web_search.providers import NO_RESULTS_ERROR, SerpApiProvider


@pytest.fixture(scope="module")
def web() -> Iterator[FakeWeb]:
    server = FakeWeb()
    yield server
    server.close()


def closed_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}"


def serpapi(endpoint: str, **options: object) -> SerpApiProvider:
    return SerpApiProvider("secret-key", endpoint=endpoint, sleep=lambda s: None,
                           jitter=lambda a, b: b, **options)  # type: ignore[arg-type]


def test_provider_failures_keep_the_official_shape_and_carry_a_reason(web: FakeWeb) -> None:
    pytest.importorskip("requests")
    cases = {
        "bad key": "SerpAPI error: Invalid API key. Your API key should be here: ...",
        "run out": "SerpAPI error: Your account has run out of searches.",
        "html": "SerpAPI JSONDecodeError",
    }
    for query, reason in cases.items():
        answer = serpapi(web.base).search(query, 10, "wt-wt")
        assert isinstance(answer, ToolFailure) and answer.reason == reason, query
        assert list(answer) == ["error"]
    quota = serpapi(web.base, max_wait=1).search("busy 9 q", 10, "wt-wt")
    assert isinstance(quota, ToolFailure) and quota.reason == "SerpAPI rate limit (429)"
    down = serpapi(closed_url()).search("tea", 10, "wt-wt")
    assert isinstance(down, ToolFailure) and down.reason == "SerpAPI ConnectionError"
    assert "secret-key" not in down.reason  # the reason never holds the message's URL
    nothing = serpapi(web.base).search("nothing", 10, "wt-wt")
    assert nothing == {"error": NO_RESULTS_ERROR} and not isinstance(nothing, ToolFailure)


def test_page_failures_are_the_networks_answers_are_the_sites(web: FakeWeb) -> None:
    pytest.importorskip("requests")
    fetcher = PageFetcher(timeout=0.3, allow_private=True)  # the test's pages are on loopback
    for path, reason in (("/boom", "page fetch HTTP 500"), ("/slow", "page fetch ReadTimeout")):
        answer = fetcher.fetch(web.url(path), "raw")
        assert isinstance(answer, ToolFailure) and answer.reason == reason
    refused = fetcher.fetch(closed_url() + "/x", "raw")
    assert isinstance(refused, ToolFailure) and refused.reason == "page fetch ConnectionError"
    for answer in (fetcher.fetch(web.url("/missing"), "raw"),  # 404: the model's URL
                   fetcher.fetch(web.url("/page"), "pdf")):  # the official refusal
        assert "error" in answer and not isinstance(answer, ToolFailure)


def test_transient_means_network_timeout_429_or_5xx() -> None:
    class Response:
        def __init__(self, status: int) -> None:
            self.status_code = status

    class HTTPError(OSError):
        def __init__(self, status: int) -> None:
            self.response = Response(status)

    class InvalidURL(OSError):
        pass

    assert is_transient(HTTPError(503)) and is_transient(HTTPError(429))
    assert not is_transient(HTTPError(404)) and not is_transient(InvalidURL())
    assert is_transient(TimeoutError()) and is_transient(ConnectionRefusedError())
    assert not is_transient(ValueError("Unsupported mode: pdf"))
    assert failure_reason("x", HTTPError(503)) == "x HTTP 503"


def test_a_failure_is_counted_not_recorded_and_asked_again(tmp_path: Path) -> None:
    services = create("serpapi", tmp_path / "record", api_key="k")
    answers: list[object] = [ToolFailure("down", "SerpAPI ConnectionError"),
                             [{"title": "T", "link": "L", "snippet": "S"}]]
    services.provider.search = lambda k, m, r: answers.pop(0)  # type: ignore[union-attr, method-assign]
    with use(services):
        first, second = WebSearchAPI(), WebSearchAPI()
    assert first.search_engine_query("tea") == {"error": "down"}
    assert first._tool_failures == ["SerpAPI ConnectionError"]
    assert services.describe()["comparable"] is False
    assert services.describe()["failures"] == {"SerpAPI ConnectionError": 1}
    index = tmp_path / "record" / "index.jsonl"
    assert not index.exists() or "search_engine_query" not in index.read_text()
    assert second.search_engine_query("tea") == [{"title": "T", "href": "L", "body": "S"}]
    assert second._tool_failures == [] and not answers  # asked live again, then recorded
    assert [json.loads(line)["function"] for line in index.read_text().splitlines()] == [
        "search_engine_query"]
    assert services.describe()["counts"]["live"] == 2
