"""A local server speaking the Gemini REST API (`POST .../models/{model}:generateContent`).

The same asyncio server as `FakeOpenAI` (127.0.0.1 only, faults included); each request is
shown to the responder in Chat Completions shape (`messages`, `tools`), so `CorpusResponder`
replays recorded outputs here too, and the answer comes back as a `GenerateContentResponse`.
Every request body received is kept in `bodies` (with its path).
"""

from __future__ import annotations

import json
from typing import Any

from fake_openai import FakeOpenAI, _http


def as_chat(request: dict[str, Any]) -> dict[str, Any]:
    """A Gemini request body seen as a Chat Completions request."""
    messages: list[dict[str, Any]] = []
    system = request.get("systemInstruction")
    if system:
        text = "".join(str(p.get("text", "")) for p in system.get("parts", []))
        messages.append({"role": "system", "content": text})
    for content in request.get("contents", []):
        role = "assistant" if content.get("role") == "model" else content.get("role", "user")
        parts = content.get("parts", [])
        for part in parts:
            if "functionResponse" in part:  # a tool result, answering a call by name
                response = part["functionResponse"]
                messages.append({"role": "tool", "name": response.get("name"),
                                 "content": response.get("response", {}).get("result")})
        calls = [p["functionCall"] for p in parts if "functionCall" in p]
        texts = [p for p in parts if "functionCall" not in p and "functionResponse" not in p]
        if not texts and not calls:
            continue
        message: dict[str, Any] = {"role": role,
                                   "content": "".join(str(p.get("text", "")) for p in texts)}
        if calls:
            message["tool_calls"] = [
                {"id": f"g{i}", "type": "function",
                 "function": {"name": c["name"], "arguments": json.dumps(c.get("args", {}))}}
                for i, c in enumerate(calls)
            ]
        messages.append(message)
    tools = [
        {"type": "function", "function": declaration}
        for tool in request.get("tools", [])
        for declaration in tool.get("functionDeclarations", [])
    ]
    return {"messages": messages, "tools": tools}


def gemini_answer(message: dict[str, Any]) -> dict[str, Any]:
    """A Chat Completions message -> a GenerateContentResponse body."""
    parts: list[dict[str, Any]] = []
    if message.get("content"):
        parts.append({"text": message["content"]})
    for call in message.get("tool_calls") or []:
        function = call["function"]
        args = function["arguments"]
        parts.append({"functionCall": {
            "name": function["name"], "args": json.loads(args) if isinstance(args, str) else args,
        }})
    return {
        "candidates": [{
            "content": {"role": "model", "parts": parts},
            "finishReason": "STOP",
            "index": 0,
        }],
        "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 7,
                          "totalTokenCount": 17},
        "modelVersion": "fake",
    }


class FakeGemini(FakeOpenAI):
    """`base_url` for the SDK is `http://127.0.0.1:PORT` (no path)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.bodies: list[tuple[str, dict[str, Any]]] = []

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def _reply(self, body: bytes, writer: Any, path: str = "") -> bool:
        request = json.loads(body)
        self.bodies.append((path, request))
        chat = as_chat(request)
        self.requests += 1
        fault = None
        if self.faults is not None:
            key = json.dumps(chat["messages"], sort_keys=True)
            self._attempts[key] += 1
            fault = self.faults(chat, self._attempts[key])
        if fault is not None:
            self.injected[fault] += 1
            return await self._fault(fault, writer)
        if not path.endswith(":generateContent"):
            writer.write(_http(404, b'{"error": {"code": 404, "message": "not found"}}'))
        else:
            answer = gemini_answer(self.responder(chat))
            writer.write(_http(200, json.dumps(answer).encode()))
        await writer.drain()
        return True
