"""Search providers: SerpAPI's retries (bounded), errors and result fields; the keyless one."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, ClassVar

import pytest
from fake_web import FakeWeb

from fcbench.envs.web_search.providers import NO_RESULTS_ERROR, DdgsProvider, SerpApiProvider


@pytest.fixture(scope="module")
def web() -> Iterator[FakeWeb]:
    server = FakeWeb()
    yield server
    server.close()


class Clock:
    """Stands for `time.sleep`: records the waits instead of waiting."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


def serpapi(web: FakeWeb, clock: Clock, **options: Any) -> SerpApiProvider:
    return SerpApiProvider("key", endpoint=web.base, sleep=clock, jitter=lambda a, b: b, **options)


def test_results_keep_only_the_fields_the_environment_reads(web: FakeWeb) -> None:
    results = serpapi(web, Clock()).search("tea", 10, "wt-wt")
    assert len(results) == 12  # all of them: the environment takes max_results
    assert results[0] == {"title": "tea result 0", "link": "https://example.org/0",
                          "snippet": "About tea, number 0."}


def test_429_is_retried_with_the_official_backoff(web: FakeWeb) -> None:
    web.reset()
    clock = Clock()
    results = serpapi(web, clock).search("busy 4 a", 10, "wt-wt")
    assert isinstance(results, list) and web.requests["busy 4 a"] == 5
    assert clock.waits == [4.0, 8.0, 16.0, 32.0]  # backoff + jitter(0, backoff), jitter = max


def test_the_backoff_is_capped_and_the_total_wait_bounded(web: FakeWeb) -> None:
    web.reset()
    clock = Clock()
    answer = serpapi(web, clock, max_wait=1000).search("busy 99 b", 10, "wt-wt")
    assert clock.waits == [4.0, 8.0, 16.0, 32.0, 64.0, 128.0, 240.0, 240.0, 240.0]
    assert sum(clock.waits) <= 1000
    assert list(answer) == ["error"]
    assert answer["error"].startswith("SerpAPI kept answering 429 (rate limit) for 972 s")
    assert "429 Too Many Requests: slow down" in answer["error"]


def test_a_raised_429_is_retried_and_other_errors_are_not() -> None:
    calls: list[str] = []

    class Response:
        text = '{"organic_results": []}'

    def get(url: str, params: dict[str, Any], timeout: float) -> Any:
        calls.append(url)
        if len(calls) == 1:
            raise OSError("429 Client Error: Too Many Requests for url: ...")
        if len(calls) == 2:
            return Response()
        raise OSError("Connection reset by peer")

    provider = SerpApiProvider("key", get=get, sleep=Clock())
    assert provider.search("q", 10, "wt-wt") == []
    assert provider.search("q", 10, "wt-wt") == {"error": "Connection reset by peer"}
    assert calls[0] == "https://serpapi.com/search"


def test_payload_errors_become_the_official_error_dicts(web: FakeWeb) -> None:
    provider = serpapi(web, Clock())
    assert provider.search("nothing", 10, "wt-wt") == {"error": NO_RESULTS_ERROR}
    assert provider.search("bad key", 10, "wt-wt") == {"error": NO_RESULTS_ERROR}
    assert provider.search("html", 10, "wt-wt") == {
        "error": "Expecting value: line 1 column 1 (char 0)"
    }


def test_check_names_what_is_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SERPAPI_API_KEY", raising=False)
    assert "SERPAPI_API_KEY" in (SerpApiProvider().check() or "")
    monkeypatch.setenv("SERPAPI_API_KEY", "from-env")
    assert SerpApiProvider().api_key == "from-env" and SerpApiProvider().check() is None
    assert DdgsProvider().check() is None  # the web extra is installed for the tests


class FakeDdgs:
    """Stands for `ddgs.DDGS`: returns canned results, records what it was asked."""

    asked: ClassVar[list[dict[str, Any]]] = []

    def __init__(self, timeout: int) -> None:
        self.timeout = timeout

    def text(self, query: str, **options: Any) -> list[dict[str, str]]:
        FakeDdgs.asked.append({"query": query, **options})
        if query == "fail":
            raise RuntimeError("No results found.")
        return [{"title": f"{query} {i}", "href": f"https://d/{i}", "body": "b", "extra": "x"}
                for i in range(options["max_results"])]


def test_ddgs_results_get_the_serpapi_field_names() -> None:
    provider = DdgsProvider(client=FakeDdgs)
    results = provider.search("tea", 3, "de-de")
    assert len(results) == 10  # at least ten are asked for; the environment slices
    assert results[0] == {"title": "tea 0", "link": "https://d/0", "snippet": "b"}
    assert FakeDdgs.asked[-1] == {"query": "tea", "region": "de-de", "max_results": 10,
                                  "backend": "duckduckgo"}
    assert len(provider.search("tea", 25, "wt-wt")) == 25
    assert provider.search("fail", 10, "wt-wt") == {"error": "No results found."}
