"""A loopback web for the web-search tests: pages and a fake SerpAPI on 127.0.0.1.

`FakeWeb()` serves on a free port in a daemon thread and shuts itself down after
`lifetime` seconds at the latest (tests stop it sooner with `close()`). Nothing leaves the
machine.

Pages (`/page`, `/redirect`, `/missing`, `/boom`, `/latin1`, `/nocharset`, `/gzip`, `/br`,
`/slow`, `/headers`) cover the fetch modes and the failure paths. `/search` answers like
SerpAPI's DuckDuckGo engine, chosen by the query `q`:

* `tea` (or anything else): 12 organic results with the extra fields SerpAPI sends;
* `no snippet`: the second result has no snippet;
* `nothing`: no organic results;
* `bad key`: HTTP 401 with an error payload;
* `busy <n> ...`: an error payload containing 429 for the first n requests of that query,
  then the results;
* `html`: a page that is not JSON;
* `run out`: HTTP 429 whose payload does not contain "429" (not retried upstream).
"""

from __future__ import annotations

import contextlib
import gzip
import json
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlparse

PAGE = """<!DOCTYPE html>
<html><head><title>Tea &amp; more</title>
<style>body { color: red; }</style>
<script>var hidden = "do not show";</script>
</head><body>
<h1>Da Hong Pao</h1>
<p>The most expensive tea comes from <a href="/china">China</a> &mdash; caf&eacute; prices.</p>
<ul><li>First</li><li>Second &lt;item&gt;</li></ul>
<script type="text/javascript">console.log("nope")</script>
<p>   Zhang   Yiming   </p>
</body></html>
"""


def organic(query: str, count: int = 12) -> list[dict[str, Any]]:
    return [
        {
            "position": i + 1,
            "title": f"{query} result {i}",
            "link": f"https://example.org/{i}",
            "snippet": f"About {query}, number {i}.",
            "favicon": "https://example.org/favicon.ico",
        }
        for i in range(count)
    ]


class FakeWeb:
    """The loopback server; `requests` counts the SerpAPI requests per query."""

    def __init__(self, lifetime: float = 300.0) -> None:
        self.requests: Counter[str] = Counter()
        self.params: list[dict[str, str]] = []
        self.lock = threading.Lock()
        self._closed = False
        handler = type("Handler", (_Handler,), {"web": self})
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.server.daemon_threads = True
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self._thread.start()
        self._timer = threading.Timer(lifetime, self.close)
        self._timer.daemon = True
        self._timer.start()

    def url(self, path: str) -> str:
        return self.base + path

    def reset(self) -> None:
        with self.lock:
            self.requests.clear()
            self.params.clear()

    def close(self) -> None:
        """Stop serving (again is harmless)."""
        self._timer.cancel()
        with self.lock:
            if self._closed:
                return
            self._closed = True
        self.server.shutdown()
        self.server.server_close()

    def count(self, query: str) -> int:
        """This request's number for the query (1 for the first)."""
        with self.lock:
            self.requests[query] += 1
            return self.requests[query]


class _Handler(BaseHTTPRequestHandler):
    web: FakeWeb

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        return

    def do_GET(self) -> None:
        parsed = urlparse(self.path)
        if parsed.path == "/search":
            self._search({k: v[0] for k, v in parse_qs(parsed.query).items()})
            return
        route = getattr(self, "_page_" + parsed.path.strip("/"), None)
        if route is None:
            self._send(404, b"<h1>Not here</h1>", "text/html")
        else:
            route()

    def _send(self, status: int, body: bytes, kind: str, **headers: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        for key, value in headers.items():
            self.send_header(key.replace("_", "-"), value)
        self.end_headers()
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            self.wfile.write(body)  # fails when the client gave up (the timeout test)

    # ---------------------------------------------------------------- pages

    def _page_page(self) -> None:
        self._send(200, PAGE.encode(), "text/html; charset=utf-8")

    def _page_redirect(self) -> None:
        self.send_response(302)
        self.send_header("Location", "/page")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def _page_boom(self) -> None:
        self._send(500, b"oops", "text/plain")

    def _page_latin1(self) -> None:
        self._send(200, "<p>Café crème</p>".encode("latin-1"), "text/html; charset=iso-8859-1")

    def _page_nocharset(self) -> None:
        self._send(200, "<p>naïve – “quoted”</p>".encode(), "text/html")

    def _page_gzip(self) -> None:
        body = gzip.compress(PAGE.encode())
        self._send(200, body, "text/html; charset=utf-8", Content_Encoding="gzip")

    def _page_br(self) -> None:
        import brotli

        body = brotli.compress(PAGE.encode())
        self._send(200, body, "text/html; charset=utf-8", Content_Encoding="br")

    def _page_slow(self) -> None:
        time.sleep(1.5)
        self._send(200, b"<p>late</p>", "text/html")

    def _page_headers(self) -> None:
        body = json.dumps(dict(self.headers.items())).encode()
        self._send(200, body, "application/json")

    # ---------------------------------------------------------------- fake SerpAPI

    def _search(self, params: dict[str, str]) -> None:
        with self.web.lock:
            self.web.params.append(params)
        query = params.get("q", "")
        number = self.web.count(query)
        words = query.split()
        if words[:1] == ["busy"] and number <= int(words[1]):
            self._json(200, {"error": "429 Too Many Requests: slow down"})
            return
        if query == "nothing":
            self._json(200, {"search_metadata": {"status": "Success"}})
        elif query == "bad key":
            self._json(401, {"error": "Invalid API key. Your API key should be here: ..."})
        elif query == "run out":
            self._json(429, {"error": "Your account has run out of searches."})
        elif query == "html":
            self._send(200, b"<html>maintenance</html>", "text/html")
        elif query == "no snippet":
            results = organic(query, 3)
            del results[1]["snippet"]
            self._json(200, {"organic_results": results})
        else:
            self._json(200, {"search_metadata": {"status": "Success"},
                             "organic_results": organic(query)})

    def _json(self, status: int, payload: Any) -> None:
        self._send(status, json.dumps(payload).encode(), "application/json")
