"""Fetching a page for `fetch_url_content`, the way the official environment does.

What a model reads must be what it would read under the official tool, so the request and
the conversions are the official ones: a GET with browser-like headers, a 20 s timeout,
redirects followed, HTTP errors raised; then the page's text as decoded by `requests`, turned
into markdown by `html2text` (default settings), or into visible text by BeautifulSoup's
`html.parser` with `<script>` and `<style>` removed, one line per text piece, stripped. Every
failure, an unsupported mode included (checked after the page was fetched, as upstream),
becomes `{"error": "An error occurred while fetching <url>: <message>"}`.

Unlike the official tool, a fetch is bounded (`envs.http_guard`): a model may ask for any URL, so
pages on loopback, private, link-local or metadata addresses are refused (unless
`allow_private`), on every redirect hop and by the address connected to; a body over
`MAX_PAGE_BYTES` (as sent or once decoded) and a fetch over `DEADLINE` seconds in all are
refused too. A refusal is the tool's usual error text, so the model reads why.

`requests`, `html2text` and `beautifulsoup4` come with the `web` extra and are imported on
first use, so the environment class imports without them.
"""

from __future__ import annotations

from typing import Any

from fcbench import redact
from fcbench.envs import http_guard
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

MAX_PAGE_BYTES = 10_000_000
"""The cap on a page's body, as sent and once decoded (gzip, deflate, br): a page past it is
an error, never read to its end (a 1 GiB page, or 1 MB of gzip that inflates to 1 GiB)."""
DEADLINE = 60.0
"""Seconds for a whole fetch, redirects and body included (the 20 s `TIMEOUT` is per read,
which a server sending one byte every few seconds never trips)."""
MAX_REDIRECTS = 30
"""As `requests` allows; each hop is followed here, by hand, and checked like the first."""


class PageFetcher:
    """Fetches and converts pages under a host policy, a size cap and a deadline; safe to
    share between threads (each fetch has its own session and connections).

    `allow_private` lets pages on loopback, private, link-local and other non-global
    addresses be fetched (`--web-allow-private`: a local mirror, the tests' servers); by
    default they are refused, on every hop, by the address actually connected to.
    """

    name = "http"

    def __init__(
        self,
        timeout: float = TIMEOUT,
        *,
        allow_private: bool = False,
        deadline: float = DEADLINE,
        max_bytes: int = MAX_PAGE_BYTES,
    ) -> None:
        self.timeout = timeout
        self.allow_private = allow_private
        self.deadline = deadline
        self.max_bytes = max_bytes

    def check(self) -> str | None:
        """Why pages cannot be fetched here (a missing extra), or None."""
        return missing("fetching pages", "requests", "html2text", "bs4")

    def fetch(self, url: Any, mode: Any) -> dict[str, Any]:
        """`{"content": text}` or the official error dict; never raises."""
        try:
            return {"content": convert_page(self.page_text(url), mode)}
        except Exception as exc:
            message = f"An error occurred while fetching {url}: {redact.text(str(exc))}"
            if is_transient(exc):  # the network's doing, not the page's: asked again
                return ToolFailure(message, failure_reason("page fetch", exc))
            return {"error": message}

    def page_text(self, url: str) -> str:
        """The page's text as `requests` decodes it, after the redirects (each checked)."""
        policy = http_guard.Policy(allow_private=self.allow_private)
        with http_guard.Fetch(policy, self.deadline) as fetch:
            response = fetch.get_following_redirects(url, BROWSER_HEADERS, self.timeout,
                                                     MAX_REDIRECTS)
            response.raise_for_status()
            return fetch.text(response, self.max_bytes)


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
