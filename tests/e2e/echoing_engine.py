"""A served engine that gives everything away: a stand-in for `--serve-cmd` in the leak tests.

`python echoing_engine.py --port N [--api-key X] [--hf-token=Y]` logs, as vLLM and llama.cpp
servers do, its command line and the key-like variables it was given (on stdout and stderr),
then serves an OpenAI-compatible API on 127.0.0.1:N that prints every request's path,
headers and body, and answers every other chat request with HTTP 400 whose error message
echoes that request whole (path with its query, `Authorization` header, body), as some
servers do; the others get a tool call of the first tool.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

SHOWN_VARIABLES = ("HF_TOKEN", "VLLM_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL")


def settings() -> None:
    """What an engine prints at start-up."""
    print("engine args:", " ".join(sys.argv[1:]), flush=True)
    for name in SHOWN_VARIABLES:
        print(f"engine env {name}={os.environ.get(name, '')}", file=sys.stderr, flush=True)


class Handler(BaseHTTPRequestHandler):
    counter = itertools.count()
    model = "m"

    def do_GET(self) -> None:
        self.show("")
        self.reply(200, {"object": "list", "data": [{"id": self.model, "object": "model"}]})

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode()
        self.show(body)
        if next(self.counter) % 2 == 0:
            echo = f"bad request {self.path} {dict(self.headers.items())} {body}"
            self.reply(400, {"error": {"message": echo, "type": "invalid_request_error"}})
            return
        request = json.loads(body)
        tools = request.get("tools") or []
        message: dict[str, Any] = {"role": "assistant", "content": "[f(a=1)]"}
        if tools:
            name = tools[0]["function"]["name"]
            message = {"role": "assistant", "content": None, "tool_calls": [{
                "id": "call_0", "type": "function",
                "function": {"name": name, "arguments": '{"a": 1}'}}]}
        self.reply(200, {"id": "x", "object": "chat.completion", "model": self.model,
                         "choices": [{"index": 0, "message": message,
                                      "finish_reason": "stop"}],
                         "usage": {"prompt_tokens": 1, "completion_tokens": 1,
                                   "total_tokens": 2}})

    def show(self, body: str) -> None:
        print(f"engine got {self.command} {self.path} "
              f"authorization={self.headers.get('Authorization')} body={body[:200]}", flush=True)

    def reply(self, status: int, document: Any) -> None:
        data = json.dumps(document).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: Any) -> None:
        return None


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--model", default="m")
    parser.add_argument("--api-key", default=None)
    parser.add_argument("--hf-token", default=None)
    args = parser.parse_args()
    settings()
    Handler.model = args.model
    ThreadingHTTPServer(("127.0.0.1", args.port), Handler).serve_forever()


if __name__ == "__main__":
    main()
