"""Fetching a page for `fetch_url_content`, the way the official environment does.

What a model reads must be what it would read under the official tool, so the request and
the conversions are the official ones: a GET with browser-like headers, a 20 s timeout,
redirects followed, HTTP errors raised; then the page's text as decoded by `requests`, turned
into markdown by `html2text` (default settings), or into visible text by BeautifulSoup's
`html.parser` with `<script>` and `<style>` removed, one line per text piece, stripped. Every
failure, an unsupported mode included (checked after the page was fetched, as upstream),
becomes `{"error": "An error occurred while fetching <url>: <message>"}`.

`requests`, `html2text` and `beautifulsoup4` come with the `web` extra and are imported on
first use, so the environment class imports without them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fcbench import redact
from fcbench.envs.web_search.extra import missing
from fcbench.envs.web_search.failure import ToolFailure, failure_reason, is_transient

__all__ = ["BROWSER_HEADERS", "MODES", "PageFetcher", "convert_page"]

MODES = ("raw", "markdown", "truncate")
TIMEOUT = 20.0

BROWSER_HEADERS: dict[str, str] = {
    "User-Agent": (
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
        "Chrome/112.0.0.0 Safari/537.36"
    ),
    "Accept": (
        "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,"
        "image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7"
    ),
    "Accept-Language": "en-US,en;q=0.9",
    "Accept-Encoding": "gzip, deflate, br",
    "Connection": "keep-alive",
    "Upgrade-Insecure-Requests": "1",
    "Referer": "https://www.google.com/",
    "Sec-Fetch-Site": "same-origin",
    "Sec-Fetch-Mode": "navigate",
    "Sec-Fetch-User": "?1",
    "Sec-Fetch-Dest": "document",
}
"""The official request headers (sites answer a bare client with 403 more often)."""

Getter = Callable[..., Any]
"""`requests.get`'s signature; tests may pass another."""


class PageFetcher:
    """Fetches and converts pages; safe to share between threads (no session state)."""

    name = "http"

    def __init__(self, timeout: float = TIMEOUT, get: Getter | None = None) -> None:
        self.timeout = timeout
        self._get = get

    def check(self) -> str | None:
        """Why pages cannot be fetched here (a missing extra), or None."""
        client = ("requests",) if self._get is None else ()
        return missing("fetching pages", *client, "html2text", "bs4")

    def fetch(self, url: Any, mode: Any) -> dict[str, Any]:
        """`{"content": text}` or the official error dict; never raises."""
        try:
            get = self._get
            if get is None:
                import requests

                get = requests.get
            response = get(url, headers=BROWSER_HEADERS, timeout=self.timeout,
                           allow_redirects=True)
            response.raise_for_status()
            return {"content": convert_page(response.text, mode)}
        except Exception as exc:
            message = f"An error occurred while fetching {url}: {redact.text(str(exc))}"
            if is_transient(exc):  # the network's doing, not the page's: asked again
                return ToolFailure(message, failure_reason("page fetch", exc))
            return {"error": message}


def convert_page(html: str, mode: Any) -> str:
    """A page's text in one of the official modes (ValueError for any other mode)."""
    if mode == "raw":
        return html
    if mode == "markdown":
        import html2text

        text: str = html2text.HTML2Text().handle(html)
        return text
    if mode == "truncate":
        from bs4 import BeautifulSoup

        soup = BeautifulSoup(html, "html.parser")
        for element in soup(["script", "style"]):
            element.extract()
        visible: str = soup.get_text(separator="\n", strip=True)
        return visible
    raise ValueError(f"Unsupported mode: {mode}")
