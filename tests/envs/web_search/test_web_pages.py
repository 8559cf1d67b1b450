"""Page fetching: browser headers, modes, redirects, timeouts, failures as error dicts."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from fake_web import FakeWeb

from fcbench.envs.web_search.pages import BROWSER_HEADERS, PageFetcher, convert_page


@pytest.fixture(scope="module")
def web() -> Iterator[FakeWeb]:
    server = FakeWeb()
    yield server
    server.close()


def test_requests_carry_the_browser_headers(web: FakeWeb) -> None:
    sent = json.loads(PageFetcher(allow_private=True).fetch(web.url("/headers"), "raw")["content"])
    for name, value in BROWSER_HEADERS.items():
        assert sent[name] == value


def test_the_three_modes(web: FakeWeb) -> None:
    fetcher = PageFetcher(allow_private=True)
    raw = fetcher.fetch(web.url("/page"), "raw")["content"]
    assert raw.startswith("<!DOCTYPE html>") and "<script>" in raw
    markdown = fetcher.fetch(web.url("/page"), "markdown")["content"]
    assert markdown.startswith("# Da Hong Pao\n") and "[China](/china)" in markdown
    text = fetcher.fetch(web.url("/gzip"), "truncate")["content"]
    assert text.splitlines()[:3] == ["Tea & more", "Da Hong Pao",
                                     "The most expensive tea comes from"]
    assert "hidden" not in text and "color" not in text and "console" not in text
    assert fetcher.fetch(web.url("/br"), "truncate")["content"] == text  # brotli decoded
    assert fetcher.fetch(web.url("/redirect"), "raw")["content"] == raw


def test_failures_are_error_dicts(web: FakeWeb) -> None:
    fetcher = PageFetcher(timeout=0.3, allow_private=True)
    url = web.url("/missing")
    assert fetcher.fetch(url, "raw") == {
        "error": f"An error occurred while fetching {url}: 404 Client Error: Not Found for "
                 f"url: {url}"
    }
    assert "500 Server Error" in fetcher.fetch(web.url("/boom"), "raw")["error"]
    assert "timed out" in fetcher.fetch(web.url("/slow"), "raw")["error"]
    unsupported = fetcher.fetch(web.url("/page"), "pdf")
    assert unsupported == {"error": f"An error occurred while fetching {web.url('/page')}: "
                                    "Unsupported mode: pdf"}


def test_unknown_modes_are_refused() -> None:
    with pytest.raises(ValueError, match="Unsupported mode: None"):
        convert_page("<p>x</p>", None)
    assert convert_page("<p>x</p>", "truncate") == "x"


def test_check_is_quiet_with_the_extra_installed() -> None:
    assert PageFetcher(allow_private=True).check() is None
