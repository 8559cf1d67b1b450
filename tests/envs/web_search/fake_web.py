"""A loopback web for the web-search tests: pages and a fake SerpAPI on 127.0.0.1.

`FakeWeb()` serves on a free port in a daemon thread and shuts itself down after
`lifetime` seconds at the latest (tests stop it sooner with `close()`). Nothing leaves the
machine.

Pages (`/page`, `/redirect`, `/missing`, `/boom`, `/latin1`, `/nocharset`, `/gzip`, `/br`,
`/slow`, `/headers`, `/secret`) cover the fetch modes and the failure paths; the hostile
ones are listed in `hostile.pages.PAGES`. `/search` answers like
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

from hostile.pages import brotli_bomb, gzip_bomb

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
        self.sent = 0
        """Bytes of hostile pages written (to show a fetch stopped reading)."""
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
        route = getattr(self, "_page_" + parsed.path.strip("/").replace("-", "_"), None)
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

    def _page_secret(self) -> None:
        self._send(200, b"<p>internal secret</p>", "text/html")

    # ---------------------------------------------------------------- hostile pages
    # (hostile.pages.PAGES lists them; each writer stops when the client goes away)

    def _stream(self, size: int, chunked: bool) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        if chunked:
            self.send_header("Connection", "close")
        else:
            self.send_header("Content-Length", str(size))
        self.end_headers()
        piece = b"<p>" + b"a" * ((1 << 16) - 7) + b"</p>"
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            for _ in range(size // len(piece)):
                self.wfile.write(piece)
                with self.web.lock:
                    self.web.sent += len(piece)

    def _page_huge(self) -> None:
        self._stream(1 << 30, chunked=False)

    def _page_huge_chunked(self) -> None:
        self._stream(1 << 30, chunked=True)

    def _page_gzip_bomb(self) -> None:
        self._send(200, gzip_bomb(), "text/html", Content_Encoding="gzip")

    def _page_br_bomb(self) -> None:
        self._send(200, brotli_bomb(), "text/html", Content_Encoding="br")

    def _page_drip(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", "1000")
        self.end_headers()
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            for _ in range(6):  # 30 s at most: a client without a deadline fails late
                self.wfile.write(b"a")
                self.wfile.flush()
                time.sleep(5)

    def _redirect(self, location: str) -> None:
        self.send_response(302)
        self.send_header("Location", location)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def _page_to_localhost(self) -> None:
        self._redirect(f"http://localhost:{self.server.server_address[1]}/secret")

    def _page_to_metadata(self) -> None:
        self._redirect("http://169.254.169.254/latest/meta-data/")

    def _page_to_private(self) -> None:
        self._redirect("//10.0.0.1/")

    def _page_loop(self) -> None:
        self._redirect("/loop")

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
