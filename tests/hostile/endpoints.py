"""A hostile model endpoint on 127.0.0.1: replies that never end, drip, or are huge.

`HostileEndpoint()` serves in daemon threads; the first path segment picks the behaviour
(the base URL is `server.url(kind)`), the rest is the API path (`/chat/completions`, ...):

* `fine`: a small Chat Completions answer (also for `GET /models`, which preflight asks);
* `drip`: headers, then one byte of a never-finished body every `drip_every` seconds, for
  `drip_for` seconds (then the connection closes: a client without a deadline fails late
  instead of hanging a test run);
* `endless`: a chunked body of 64 KiB chunks, written until the client goes away;
* `huge`: a well-formed answer of `huge_bytes` (Content-Length announced);
* `huge-unannounced`: the same without Content-Length (HTTP/1.0 style: until close);
* `bomb`: `Content-Encoding: gzip`, a body that inflates to `bomb_bytes`;
* `once-KIND` (e.g. `once-drip`): the first request is answered as KIND, every later one as
  `fine`, so that one case of a run meets the hostile reply and the others do not;
* `models-KIND` (e.g. `models-endless`): every GET (the model list or one model's
  description, which preflight asks) is answered as KIND, every POST as `fine`.

`KINDS` lists the hostile ones (for tests and `benchmarks/bench_hostile.py`). Every writer
stops when the client disconnects; `close()` stops the server.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from hostile.pages import gzip_bomb

KINDS = ("drip", "endless", "huge", "huge-unannounced", "bomb")

ANSWER = {"id": "x", "object": "chat.completion", "model": "m",
          "choices": [{"index": 0, "finish_reason": "stop",
                       "message": {"role": "assistant", "content": "[f(a=1)]"}}],
          "usage": {"prompt_tokens": 1, "completion_tokens": 1}}


class HostileEndpoint:
    """The server; `sent` counts body bytes written per kind."""

    def __init__(self, drip_every: float = 2.0, huge_bytes: int = 50_000_000,
                 bomb_bytes: int = 1 << 30, drip_for: float = 30.0) -> None:
        self.drip_every = drip_every
        self.drip_for = drip_for
        self.huge_bytes = huge_bytes
        self.bomb = gzip_bomb(bomb_bytes)
        answer = json.loads(json.dumps(ANSWER))
        answer["choices"][0]["message"]["content"] = "x" * huge_bytes
        self.huge = json.dumps(answer).encode()
        self.sent: dict[str, int] = {}
        self.met: set[str] = set()
        self.lock = threading.Lock()
        self.stop = threading.Event()
        handler = type("Handler", (_Handler,), {"endpoint": self})
        self.server = _QuietServer(("127.0.0.1", 0), handler)
        self.server.daemon_threads = True
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def url(self, kind: str) -> str:
        return f"{self.base}/{kind}"

    def close(self) -> None:
        self.stop.set()
        self.server.shutdown()
        self.server.server_close()

    def __enter__(self) -> HostileEndpoint:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class _QuietServer(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        return  # clients hang up on purpose here


class _Handler(BaseHTTPRequestHandler):
    endpoint: HostileEndpoint
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        return

    def do_GET(self) -> None:
        asked = self.path.strip("/").split("/")[0]
        if asked.startswith("models-"):  # a hostile model list named by the path
            with contextlib.suppress(BrokenPipeError, ConnectionResetError, TimeoutError):
                kind = asked.removeprefix("models-")
                getattr(self, "_" + kind.replace("-", "_"), self._fine)()
            return
        self._answer(json.dumps({"object": "list", "data": [{"id": "m"}]}).encode())

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        self.rfile.read(length)
        kind = self._kind(self.path.strip("/").split("/")[0])
        with contextlib.suppress(BrokenPipeError, ConnectionResetError, TimeoutError):
            getattr(self, "_" + kind.replace("-", "_"), self._fine)()

    def _kind(self, asked: str) -> str:
        """The behaviour for this request: `once-KIND` is KIND the first time only."""
        if not asked.startswith("once-"):
            return asked
        with self.endpoint.lock:
            first = asked not in self.endpoint.met
            self.endpoint.met.add(asked)
        return asked.removeprefix("once-") if first else "fine"

    def _answer(self, body: bytes, **headers: str) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for name, value in headers.items():
            self.send_header(name.replace("_", "-"), value)
        self.end_headers()
        self.wfile.write(body)

    def _count(self, kind: str, n: int) -> None:
        self.endpoint.sent[kind] = self.endpoint.sent.get(kind, 0) + n

    def _fine(self) -> None:
        self._answer(json.dumps(ANSWER).encode())

    def _drip(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", "1000000")
        self.end_headers()
        end = time.monotonic() + self.endpoint.drip_for
        while not self.endpoint.stop.is_set() and time.monotonic() < end:
            self.wfile.write(b" ")
            self.wfile.flush()
            self._count("drip", 1)
            time.sleep(self.endpoint.drip_every)

    def _endless(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        chunk = b"%x\r\n%s\r\n" % (1 << 16, b" " * (1 << 16))
        while not self.endpoint.stop.is_set():
            self.wfile.write(chunk)
            self._count("endless", 1 << 16)

    def _huge(self) -> None:
        self._answer(self.endpoint.huge)
        self._count("huge", self.endpoint.huge_bytes)

    def _huge_unannounced(self) -> None:
        body = self.endpoint.huge
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        for start in range(0, len(body), 1 << 20):
            self.wfile.write(body[start:start + (1 << 20)])
            self._count("huge-unannounced", 1 << 20)

    def _bomb(self) -> None:
        self._answer(self.endpoint.bomb, Content_Encoding="gzip")
        self._count("bomb", len(self.endpoint.bomb))
