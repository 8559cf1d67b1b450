"""A local OpenAI-compatible Chat Completions server for tests and benchmarks (127.0.0.1 only).

A bare asyncio HTTP/1.1 server (keep-alive, Content-Length bodies) running in a background
thread. It answers `POST .../chat/completions` (and `.../completions`, `.../messages`: the same
answer in those APIs' shapes) with whatever its responder returns, and can
inject faults decided per request: HTTP 429 with Retry-After, 500/503, a stall beyond the
client's timeout, a dropped connection, malformed bodies, any error answer (`error STATUS
BODY`, e.g. a server's context-length 400 in its own words). `GET .../models` lists `models`
(and `GET .../models/<name>` describes one), as preflight checks ask; with `api_key` every
request without that key (Bearer, `x-api-key` or `x-goog-api-key`) gets HTTP 401; with
`prefix` every path outside it gets HTTP 404 (a base URL without `/v1`); with
`strict_models` a chat request for a model not listed gets HTTP 404, as vLLM answers.

`CorpusResponder` answers with recorded real model outputs: it finds the case by the request's
last user message (and the function names, to tell apart cases that share a question).

Run as a script it serves a constant tool call, for the generation benchmark:
`python tests/fake_openai.py [--port N]` prints the base URL and serves until killed.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import threading
import zlib
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

Message = dict[str, Any]
Responder = Callable[[dict[str, Any]], Message]
FaultPlan = Callable[[dict[str, Any], int], "str | None"]

FAULTS = ("429", "500", "503", "stall", "drop", "malformed", "nochoices")


def constant_responder(request: dict[str, Any]) -> Message:
    """A tool call of the first tool (or a short text without tools)."""
    tools = request.get("tools") or []
    if tools:
        name = tools[0]["function"]["name"]
        return {"tool_calls": [_tool_call(name, '{"a": 1}', 0)]}
    return {"content": "[f(a=1)]"}


def _tool_call(name: str, arguments: Any, index: int) -> dict[str, Any]:
    if not isinstance(arguments, str):
        arguments = json.dumps(arguments)
    return {
        "id": f"call_{index}",
        "type": "function",
        "function": {"name": name, "arguments": arguments},
    }


def request_key(request: dict[str, Any]) -> str:
    """A stable identity of a request (its messages), for per-case fault counting."""
    return json.dumps(request.get("messages"), sort_keys=True)


def deterministic_faults(rate: float = 0.5, max_failures: int = 2) -> FaultPlan:
    """Per request: fail its first 1..max_failures attempts with a fault picked by its hash."""

    def plan(request: dict[str, Any], attempt: int) -> str | None:
        digest = zlib.crc32(request_key(request).encode())
        if (digest % 1000) / 1000 >= rate:
            return None
        failures = 1 + (digest >> 10) % max_failures
        if attempt > failures:
            return None
        return FAULTS[(digest >> 4 + attempt) % len(FAULTS)]

    return plan


class FakeOpenAI:
    """The server; use as a context manager, `base_url` is ready on entry."""

    def __init__(
        self,
        responder: Responder = constant_responder,
        faults: FaultPlan | None = None,
        *,
        stall_seconds: float = 5.0,
        retry_after: str = "0.05",
        delay: float = 0.0,
        port: int = 0,
        models: Sequence[str] | None = None,
        api_key: str | None = None,
        prefix: str | None = None,
        strict_models: bool = False,
        chat_view: bool = False,
        hold_after: int | None = None,
    ) -> None:
        """`chat_view`: show Anthropic requests to the responder in Chat Completions shape.
        `hold_after`: answer that many model requests, then hold every later one unanswered
        (until the server stops or `hold_after` is raised or set to None): a test that kills
        its client once `holding` is set knows the client is mid-run, after exactly that
        many answers, however slow the machine."""
        self.responder = responder
        self.chat_view = chat_view
        self.faults = faults
        self.stall_seconds = stall_seconds
        self.retry_after = retry_after
        self.delay = delay
        self.port = port
        self.models = models
        self.api_key = api_key
        self.prefix = prefix
        self.strict_models = strict_models
        """Answer 404 to a chat request for a model not in `models` (as vLLM does)."""
        self.hold_after = hold_after
        self.holding = threading.Event()
        """Set when a request is first held (see `hold_after`)."""
        self.requests = 0
        """POST requests answered (model calls)."""
        self.gets = 0
        """GET requests answered (model listings)."""
        self.injected: dict[str, int] = defaultdict(int)
        self._attempts: dict[str, int] = defaultdict(int)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._server: asyncio.base_events.Server | None = None
        self._ids = itertools.count()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def __enter__(self) -> FakeOpenAI:
        ready = threading.Event()
        self._loop = asyncio.new_event_loop()

        def serve() -> None:
            assert self._loop is not None
            asyncio.set_event_loop(self._loop)
            self._server = self._loop.run_until_complete(
                asyncio.start_server(self._handle, "127.0.0.1", self.port, backlog=1024)
            )
            self.port = self._server.sockets[0].getsockname()[1]
            ready.set()
            self._loop.run_forever()

        self._thread = threading.Thread(target=serve, daemon=True)
        self._thread.start()
        ready.wait(10)
        return self

    def __exit__(self, *exc: object) -> None:
        loop = self._loop
        if loop is None:
            return

        async def shutdown() -> None:
            if self._server is not None:
                self._server.close()
            for task in asyncio.all_tasks():
                if task is not asyncio.current_task():
                    task.cancel()

        asyncio.run_coroutine_threadsafe(shutdown(), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        if self._thread is not None:
            self._thread.join(10)

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                lines = head.decode("latin-1").split("\r\n")
                headers = {
                    k.strip().lower(): v.strip()
                    for k, v in (line.split(":", 1) for line in lines[1:] if ":" in line)
                }
                length = int(headers.get("content-length", "0"))
                body = await reader.readexactly(length) if length else b""
                method, _, rest = lines[0].partition(" ")
                path = rest.split(" ")[0]
                refusal = self._refusal(headers, path)
                if refusal is not None:
                    if method != "GET":
                        self.requests += 1
                    writer.write(refusal)
                    await writer.drain()
                elif method == "GET":
                    self.gets += 1
                    writer.write(self._get(path))
                    await writer.drain()
                elif not await self._reply(body, writer, path):
                    return
        except (asyncio.IncompleteReadError, ConnectionError, asyncio.LimitOverrunError):
            pass
        except asyncio.CancelledError:  # server shutdown: end quietly
            writer.transport.abort()
            return
        finally:
            writer.close()

    def _refusal(self, headers: dict[str, str], path: str) -> bytes | None:
        """401 without the key, 404 outside the prefix; None when the request may go on."""
        if self.api_key is not None:
            sent = {headers.get("authorization", "").removeprefix("Bearer "),
                    headers.get("x-api-key", ""), headers.get("x-goog-api-key", "")}
            if self.api_key not in sent:
                error = {"error": {"message": "Incorrect API key provided", "code": 401,
                                   "type": "invalid_request_error"}}
                return _http(401, json.dumps(error).encode())
        if self.prefix is not None and not path.startswith(self.prefix):
            return _http(404, b'{"detail": "Not Found"}')
        return None

    def _get(self, path: str) -> bytes:
        """A model listing (`.../models`) or one model (`.../models/<name>`)."""
        name = path.split("?")[0].partition("/models/")[2]
        if not name:
            listed = [{"id": m, "object": "model", "name": f"models/{m}"}
                      for m in self.models or []]
            return _http(200, json.dumps({"object": "list", "data": listed,
                                          "models": listed}).encode())
        if self.models is not None and name not in self.models:
            error = {"error": {"message": f"model {name} not found", "code": 404,
                               "status": "NOT_FOUND"}}
            return _http(404, json.dumps(error).encode())
        return _http(200, json.dumps({"id": name, "type": "model", "name": f"models/{name}",
                                      "display_name": name}).encode())

    async def _reply(self, body: bytes, writer: asyncio.StreamWriter, path: str = "") -> bool:
        """Answer one request; False when the connection must end (faults)."""
        self.requests += 1
        if self.hold_after is not None and self.requests > self.hold_after:
            await self._hold()
        request = json.loads(body)
        fault = None
        if self.faults is not None:
            key = request_key(request)
            self._attempts[key] += 1
            fault = self.faults(request, self._attempts[key])
        if fault is not None:
            self.injected[fault] += 1
            return await self._fault(fault, writer)
        if self.strict_models and request.get("model") not in (self.models or []):
            error = {"error": {"message": f"The model `{request.get('model')}` does not exist.",
                               "type": "NotFoundError", "code": 404}}
            writer.write(_http(404, json.dumps(error).encode()))
            await writer.drain()
            return True
        if self.delay:
            await asyncio.sleep(self.delay)
        if path.endswith("/v1/messages"):
            message = self.responder(anthropic_as_chat(request) if self.chat_view else request)
            answer = _anthropic_message(request, message)
        elif path.endswith("/completions") and not path.endswith("/chat/completions"):
            answer = _text_completion(request, self.responder(request))
        else:
            answer = self._completion(request, self.responder(request))
        status, payload = 200, json.dumps(answer).encode()
        writer.write(_http(status, payload))
        await writer.drain()
        return True

    async def _hold(self) -> None:
        """Keep a request unanswered while holding is on (checked every 10 ms)."""
        self.holding.set()
        while self.hold_after is not None and self.requests > self.hold_after:
            await asyncio.sleep(0.01)

    async def _fault(self, fault: str, writer: asyncio.StreamWriter) -> bool:
        if fault == "drop":
            writer.transport.abort()
            return False
        if fault == "stall":
            await asyncio.sleep(self.stall_seconds)
            writer.transport.abort()
            return False
        if fault.startswith("error "):  # "error STATUS BODY": a server's own error answer
            _, status, body = fault.split(" ", 2)
            writer.write(_http(int(status), body.encode()))
        elif fault in ("429", "500", "503"):
            error = json.dumps({"error": {"message": f"injected {fault}", "type": "x"}}).encode()
            extra = {"Retry-After": self.retry_after} if fault == "429" else {}
            writer.write(_http(int(fault), error, extra))
        elif fault == "malformed":
            writer.write(_http(200, b'{"id": "x", "choices": [{"mess'))
        elif fault == "nochoices":
            writer.write(_http(200, b'{"object": "chat.completion", "choices": []}'))
        await writer.drain()
        return True

    def _completion(self, request: dict[str, Any], message: Message) -> dict[str, Any]:
        calls = message.get("tool_calls")
        prompt_tokens = sum(len(str(m.get("content", ""))) for m in request.get("messages", []))
        return {
            "id": f"chatcmpl-{next(self._ids)}",
            "object": "chat.completion",
            "created": 0,
            "model": request.get("model", "fake"),
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": message.get("content"), **message},
                    "finish_reason": "tool_calls" if calls else "stop",
                }
            ],
            "usage": {
                "prompt_tokens": prompt_tokens // 4,
                "completion_tokens": 7,
                "total_tokens": prompt_tokens // 4 + 7,
            },
        }


def _text_completion(request: dict[str, Any], message: Message) -> dict[str, Any]:
    """The answer's `content` as a `/v1/completions` response (one text choice)."""
    prompt = str(request.get("prompt", ""))
    return {
        "id": "cmpl-1", "object": "text_completion", "created": 0,
        "model": request.get("model", "fake"),
        "choices": [{"index": 0, "text": message.get("content") or "", "logprobs": None,
                     "finish_reason": "stop"}],
        "usage": {"prompt_tokens": len(prompt) // 4, "completion_tokens": 7,
                  "total_tokens": len(prompt) // 4 + 7},
    }


def anthropic_as_chat(request: dict[str, Any]) -> dict[str, Any]:
    """A Messages API request seen as a Chat Completions one: the system field first, text
    blocks joined, tool uses as `tool_calls`, tool results as `tool` messages."""
    messages: list[dict[str, Any]] = []
    if request.get("system"):
        messages.append({"role": "system", "content": _text(request["system"])})
    for message in request.get("messages", []):
        blocks = message["content"]
        if isinstance(blocks, str):
            messages.append({"role": message["role"], "content": blocks})
            continue
        results = [b for b in blocks if b.get("type") == "tool_result"]
        messages += [{"role": "tool", "content": b["content"], "tool_call_id": b["tool_use_id"]}
                     for b in results]
        uses = [b for b in blocks if b.get("type") == "tool_use"]
        texts = [b for b in blocks if b.get("type") == "text"]
        if texts or uses:
            chat: dict[str, Any] = {"role": message["role"], "content": _text(texts) or None}
            if uses:
                chat["tool_calls"] = [_tool_call(b["name"], b["input"], 0) | {"id": b["id"]}
                                      for b in uses]
            messages.append(chat)
    tools = [{"type": "function", "function": {"name": t["name"], "parameters": t["input_schema"]}}
             for t in request.get("tools", [])]
    return {"messages": messages, **({"tools": tools} if "tools" in request else {})}


def _anthropic_message(request: dict[str, Any], message: Message) -> dict[str, Any]:
    """The same answer in the shape of Anthropic's Messages API."""
    blocks: list[dict[str, Any]] = []
    if message.get("content"):
        blocks.append({"type": "text", "text": message["content"]})
    for call in message.get("tool_calls") or []:
        function = call["function"]
        blocks.append({"type": "tool_use", "id": call["id"], "name": function["name"],
                       "input": json.loads(function["arguments"])})
    return {
        "id": "msg_1", "type": "message", "role": "assistant", "model": request.get("model"),
        "content": blocks, "stop_reason": "tool_use" if message.get("tool_calls") else "end_turn",
        "usage": {"input_tokens": 10, "output_tokens": 7},
    }


_REASONS = {200: "OK", 401: "Unauthorized", 404: "Not Found", 429: "Too Many Requests",
            500: "Internal Server Error", 503: "Unavailable"}


def _http(status: int, payload: bytes, headers: dict[str, str] | None = None) -> bytes:
    lines = [
        f"HTTP/1.1 {status} {_REASONS.get(status, 'Error')}",
        "Content-Type: application/json",
        f"Content-Length: {len(payload)}",
        "Connection: keep-alive",
    ]
    lines += [f"{k}: {v}" for k, v in (headers or {}).items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + payload


class CorpusResponder:
    """Answers with one recorded model's outputs (`../shared/corpus/<release>/<model>`)."""

    def __init__(self, model_dir: Path, category_names: list[str]) -> None:
        from fcbench.dataset.load import load_category

        self.recorded: dict[str, Any] = {}
        self.index: dict[str, list[tuple[str, set[str]]]] = defaultdict(list)
        for name in category_names:
            for line in (model_dir / f"BFCL_v4_{name}_result.json").read_text().splitlines():
                entry = json.loads(line)
                self.recorded[entry["id"]] = entry["result"]
            for case in load_category(name):
                names = {str(f["name"]) for f in case.functions}
                keys = {_last_user(case.question[0]), _joined_last_users(case.question[0])}
                for key in keys:
                    self.index[key].append((case.id, names))
        self.asked: dict[str, int] = defaultdict(int)

    def case_id(self, request: dict[str, Any]) -> str:
        candidates = self.index[_last_user(request["messages"])]
        if len(candidates) > 1:
            sent = _sent_text(request)

            def sent_all(names: set[str]) -> bool:
                return all(
                    f'"name": "{n}"' in sent or f'"name": "{n.replace(".", "_")}"' in sent
                    for n in names
                )

            matching = [c for c in candidates if sent_all(c[1])]
            candidates = sorted(matching, key=lambda c: -len(c[1])) or candidates
        return candidates[0][0]

    def __call__(self, request: dict[str, Any]) -> Message:
        case_id = self.case_id(request)
        self.asked[case_id] += 1
        result = self.recorded[case_id]
        if isinstance(result, list):
            calls = [
                _tool_call(name, args, i)
                for i, item in enumerate(result)
                for name, args in item.items()
            ]
            return {"content": None, "tool_calls": calls}
        return {"content": result}


def _text(content: Any) -> str:
    """A message's text: a string, or (Anthropic) the texts of its blocks."""
    if isinstance(content, list):
        return "\n\n".join(str(b.get("text", "")) for b in content if isinstance(b, dict))
    return str(content)


def _last_user(messages: list[dict[str, Any]]) -> str:
    users = [m for m in messages if m.get("role") == "user"]
    return _text(users[-1].get("content", "")) if users else ""


def _joined_last_users(messages: list[dict[str, Any]]) -> str:
    """The trailing run of user messages joined as Anthropic requests carry them."""
    run: list[str] = []
    for message in messages:
        run = [*run, _text(message.get("content"))] if message.get("role") == "user" else []
    return "\n\n".join(run)


def _sent_text(request: dict[str, Any]) -> str:
    tools = json.dumps(request.get("tools") or [])
    system = " ".join(_text(m.get("content")) for m in request["messages"] if m["role"] == "system")
    return tools + system + _text(request.get("system") or "")


def main() -> None:  # pragma: no cover - a child process of benchmarks and serve tests
    """Serve until killed; `--start-after S` waits before listening (an engine loading)."""
    import argparse
    import time

    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--model", action="append", default=None, help="a model it lists")
    parser.add_argument("--start-after", type=float, default=0.0)
    parser.add_argument("--delay", type=float, default=0.0, help="seconds per answer")
    parser.add_argument("--hold-after", type=int, default=None,
                        help="answer N model requests, then hold every later one")
    args = parser.parse_args()
    time.sleep(args.start_after)
    with FakeOpenAI(port=args.port, models=args.model, prefix="/v1", delay=args.delay,
                    strict_models=args.model is not None,
                    hold_after=args.hold_after) as server:
        print(server.base_url, flush=True)
        while True:
            time.sleep(3600)


if __name__ == "__main__":  # pragma: no cover
    main()
