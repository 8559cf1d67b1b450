"""A plain Python function as the model.

    def model(messages: list[dict], tools: list[dict] | None) -> str | dict: ...

The function gets the conversation so far (OpenAI Chat Completions layout) and, in FC mode,
the tools; it answers with the assistant's text (a `str`) or an OpenAI-style assistant
message (a `dict` with `content` and/or `tool_calls`, each call
`{"id"?, "function": {"name", "arguments"}}`, arguments as a JSON string or an object). An
`async def` function is awaited; a plain one runs in a worker thread, so cases in flight still
overlap. Raising `TransientError` asks the runner to retry; any other exception fails the
case with its message.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import time
from collections.abc import Awaitable, Callable
from typing import Any

from fcbench.models.base import (
    BackendError,
    ChatRequest,
    FcArgs,
    Mode,
    PermanentError,
    Reply,
    public_fields,
)

ModelFunction = Callable[
    [list[dict[str, Any]], list[dict[str, Any]] | None],
    "str | dict[str, Any] | Awaitable[str | dict[str, Any]]",
]


class CallableBackend:
    """Wraps `fn(messages, tools) -> str | dict` as a backend."""

    fc_args: FcArgs = "json_string"

    def __init__(self, fn: ModelFunction, name: str | None = None) -> None:
        self.fn = fn
        self.name: str = name or str(getattr(fn, "__name__", "callable"))

    def describe(self) -> dict[str, Any]:
        target = f"{getattr(self.fn, '__module__', '?')}.{getattr(self.fn, '__qualname__', '?')}"
        return {"backend": "callable", "endpoints": [target], "sampling": {}}

    async def step(self, request: ChatRequest) -> Reply:
        messages = [public_fields(m) for m in request.messages]
        start = time.perf_counter()
        try:
            if inspect.iscoroutinefunction(self.fn):
                answer = await self.fn(messages, request.tools)
            else:
                answer = await asyncio.to_thread(self.fn, messages, request.tools)
            if inspect.isawaitable(answer):
                answer = await answer
        except BackendError:
            raise
        except Exception as exc:  # the user's code: its failure is this case's failure
            raise PermanentError(f"the model function raised {type(exc).__name__}: {exc}") from exc
        reply = reply_of(answer, request.mode)
        reply.latency = time.perf_counter() - start
        return reply

    async def aclose(self) -> None:
        return None


def reply_of(answer: Any, mode: Mode) -> Reply:
    """The stored form of a function's answer (text, or an assistant message)."""
    if isinstance(answer, str):
        return Reply(result=answer, message={"role": "assistant", "content": answer})
    if not isinstance(answer, dict):
        raise PermanentError(
            f"the model function must return a str or a dict, not {type(answer).__name__}"
        )
    content = answer.get("content")
    calls = answer.get("tool_calls") or []
    if mode != "fc" or not calls:
        text = content if isinstance(content, str) else ""
        return Reply(result=text, message={"role": "assistant", "content": text})
    stored: list[dict[str, Any]] = []
    tool_calls: list[dict[str, Any]] = []
    for index, call in enumerate(calls):
        function = call.get("function", call) if isinstance(call, dict) else None
        if not isinstance(function, dict) or not isinstance(function.get("name"), str):
            raise PermanentError(f"tool call {index} has no function name: {call!r}"[:500])
        arguments = function.get("arguments", {})
        if not isinstance(arguments, str):
            arguments = json.dumps(arguments, ensure_ascii=False)
        call_id = str(call.get("id") or f"call_{index}")
        stored.append({function["name"]: arguments})
        tool_calls.append({"id": call_id, "type": "function",
                           "function": {"name": function["name"], "arguments": arguments}})
    message = {"role": "assistant", "content": content, "tool_calls": tool_calls}
    return Reply(result=stored, message=message, tool_call_ids=[c["id"] for c in tool_calls])
