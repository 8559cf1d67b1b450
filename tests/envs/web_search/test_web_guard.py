"""Page fetches are bounded (`envs.http_guard`): internal addresses refused on every hop,
a size cap on the body as sent and once decoded, a deadline for the whole fetch. Each
hostile page ends in bounded time and memory with the tool's error text."""

from __future__ import annotations

import time
import tracemalloc
from collections.abc import Iterator

import pytest
from fake_web import FakeWeb

from fcbench.envs import http_guard as guard
from fcbench.envs.web_search import create, use
from fcbench.envs.web_search.api import WebSearchAPI
from fcbench.envs.web_search.pages import MAX_PAGE_BYTES, PageFetcher
from hostile.pages import PAGES, REFUSED_URLS, brotli_bomb, gzip_bomb

SECONDS = 10.0
MEMORY = 500 * 2**20


@pytest.fixture(scope="module")
def web() -> Iterator[FakeWeb]:
    gzip_bomb(), brotli_bomb()  # built before any timing
    server = FakeWeb()
    yield server
    server.close()


@pytest.fixture
def loopback_is_public(monkeypatch: pytest.MonkeyPatch) -> None:
    """The test server, asked by its literal address 127.0.0.1, passes as a public host;
    every other host (`localhost` included) goes through the real policy: so a page on it
    can redirect to a truly internal one."""
    real = guard.Fetch.checked_address

    def checked_address(self: guard.Fetch, host: str, port: int) -> str:
        return host if host == "127.0.0.1" else real(self, host, port)

    monkeypatch.setattr(guard.Fetch, "checked_address", checked_address)


def measured(fetcher: PageFetcher, url: str, mode: str = "raw") -> tuple[dict[str, str], float,
                                                                         int]:
    """(the tool's answer, seconds, peak bytes allocated in Python meanwhile)."""
    tracemalloc.start()
    start = time.perf_counter()
    try:
        answer = fetcher.fetch(url, mode)
    finally:
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    return answer, time.perf_counter() - start, peak


@pytest.mark.parametrize("url", REFUSED_URLS)
def test_internal_addresses_are_refused_by_default(url: str) -> None:
    answer = PageFetcher(deadline=5).fetch(url, "raw")
    assert answer["error"].startswith(f"An error occurred while fetching {url}: refused: ")
    assert "--web-allow-private" in answer["error"] and "\n" not in answer["error"]


def test_the_flag_lets_a_local_mirror_be_read(web: FakeWeb) -> None:
    assert "content" in PageFetcher(allow_private=True).fetch(web.url("/page"), "raw")
    assert "refused" in PageFetcher().fetch(web.url("/page"), "raw")["error"]


@pytest.mark.usefixtures("loopback_is_public")
@pytest.mark.parametrize("path", ["/to-localhost", "/to-metadata", "/to-private"])
def test_a_redirect_to_an_internal_host_is_refused(web: FakeWeb, path: str) -> None:
    """The first hop passes; the hop it redirects to is checked like the first and refused
    (before: `localhost/secret` was fetched and handed to the model and the web record)."""
    answer = PageFetcher().fetch(web.url(path), "raw")
    assert "refused: " in answer["error"], answer
    assert "secret" not in answer["error"]
    assert PageFetcher().fetch(web.url("/redirect"), "raw")["content"].startswith("<!DOCTYPE")


def test_the_flag_follows_redirects_anywhere(web: FakeWeb) -> None:
    answer = PageFetcher(allow_private=True).fetch(web.url("/to-localhost"), "raw")
    assert answer == {"content": "<p>internal secret</p>"}


def test_endless_redirects_stop_as_requests_stops_them(web: FakeWeb) -> None:
    answer = PageFetcher(allow_private=True).fetch(web.url("/loop"), "raw")
    assert answer["error"].endswith(": Exceeded 30 redirects.")


@pytest.mark.parametrize("path", sorted(set(PAGES) - {"/to-localhost", "/to-metadata",
                                                     "/to-private", "/loop"}))
def test_hostile_pages_end_in_bounded_time_and_memory(web: FakeWeb, path: str) -> None:
    """The page that never ends meets a 1 s deadline (it would sit out any deadline); the
    others must hit their cap well within 3 s."""
    deadline = 1 if path == "/drip" else 3
    fetcher = PageFetcher(allow_private=True, deadline=deadline)
    answer, seconds, peak = measured(fetcher, web.url(path), "markdown")
    print(f"{path}: {seconds:.2f} s, {peak / 2**20:.0f} MiB peak, {answer['error']}")
    words = f"took longer than {deadline} s" if path == "/drip" else f"{MAX_PAGE_BYTES:,}-byte cap"
    assert words in answer["error"] and "\n" not in answer["error"]
    assert seconds <= SECONDS and peak <= MEMORY


def test_the_deadline_is_the_whole_fetch_not_each_read(web: FakeWeb) -> None:
    """A byte every 5 s never trips the 20 s read timeout; the 1.5 s deadline ends it (after
    the first byte, before the second)."""
    answer, seconds, _ = measured(PageFetcher(allow_private=True, deadline=1.5),
                                  web.url("/drip"))
    assert "took longer than 1.5 s" in answer["error"] and 1.4 <= seconds <= 4.5


def test_a_late_watchdog_still_reports_the_deadline(
    web: FakeWeb, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A loaded machine, made certain: the watchdog's thread runs 2 s late, so the read's own
    timeout (the time left, 1.5 s) ends the fetch first; once this said "Read timed out"."""
    on_time = guard.Fetch._expire

    def late(self: guard.Fetch) -> None:
        time.sleep(2.0)
        on_time(self)

    monkeypatch.setattr(guard.Fetch, "_expire", late)
    answer, seconds, _ = measured(PageFetcher(allow_private=True, deadline=1.5),
                                  web.url("/drip"))
    assert "took longer than 1.5 s" in answer["error"], answer
    assert 1.4 <= seconds <= 4.5


def test_a_refusal_reaches_the_model_and_the_record_as_the_tools_error(
    web: FakeWeb, tmp_path: object, loopback_is_public: None
) -> None:
    services = create("serpapi", api_key="k", endpoint=web.base)
    with use(services):
        answer = WebSearchAPI().fetch_url_content(web.url("/to-metadata"))
    assert answer["error"].startswith(
        f"An error occurred while fetching {web.url('/to-metadata')}: refused: 169.254.169.254 "
        "a link-local address")
