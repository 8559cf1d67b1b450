"""A loopback HTTP server for the bounded-request tests (`envs.http_guard`): each request is
recorded (its request line's target, its headers) and answered by a function of the test's
own, so a test states what the server does and then reads what it received.

Also the answers the hostile-server tests share: a redirect, a JSON body, an endless chunked
body generated lazily (counting what it managed to send), a body dripped a byte at a time.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Answer = Callable[[BaseHTTPRequestHandler], None]


class Server:
    """A ThreadingHTTPServer on 127.0.0.1 answering every GET with `answer(handler)`; a
    context manager. `seen` holds (request target, lower-cased headers) per request."""

    def __init__(self, answer: Answer) -> None:
        self.answer = answer
        self.seen: list[tuple[str, dict[str, str]]] = []
        self.sent = 0
        """Body bytes the endless answers managed to send."""
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:
                server.seen.append((self.path, {k.lower(): v for k, v in self.headers.items()}))
                # the client hanging up is what the bounded reads do
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    server.answer(self)
                self.close_connection = True

            def end_headers(self) -> None:
                self.send_header("Connection", "close")  # one request per connection
                super().end_headers()

            def log_message(self, *args: Any) -> None:
                return None

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.port = self._server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    def __enter__(self) -> Server:
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def targets(self) -> list[str]:
        return [target for target, _ in self.seen]


def send_json(handler: BaseHTTPRequestHandler, body: Any, status: int = 200) -> None:
    payload = json.dumps(body).encode()
    handler.send_response(status)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(payload)))
    handler.end_headers()
    handler.wfile.write(payload)


def redirect(handler: BaseHTTPRequestHandler, location: str, status: int = 302) -> None:
    handler.send_response(status)
    handler.send_header("Location", location)
    handler.send_header("Content-Length", "0")
    handler.end_headers()


def endless_chunks(server: Server, total: int = 1 << 30, piece: int = 1 << 16) -> Answer:
    """An answer sending `total` bytes chunked, with no length, each chunk made when sent
    (nothing near `total` is ever held); `server.sent` counts what got out."""
    chunk = b"a" * piece

    def answer(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Transfer-Encoding", "chunked")
        handler.end_headers()
        for _ in range(total // piece):
            handler.wfile.write(b"%x\r\n%s\r\n" % (piece, chunk))
            server.sent += piece
        handler.wfile.write(b"0\r\n\r\n")

    return answer


def drip(every: float = 0.3, lasting: float = 15.0) -> Answer:
    """An answer announcing 1,000 bytes and sending one every `every` s, for `lasting` s at
    most (so that a test whose deadline fails still ends)."""

    def answer(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(200)
        handler.send_header("Content-Length", "1000")
        handler.end_headers()
        handler.wfile.flush()
        ends = time.monotonic() + lasting
        while time.monotonic() < ends:
            handler.wfile.write(b" ")
            handler.wfile.flush()
            time.sleep(every)

    return answer
