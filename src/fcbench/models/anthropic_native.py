"""Anthropic's Messages API through the official `anthropic` SDK (optional extra).

The request follows the official Claude handler: the system message moves to the `system`
field (as one text block), consecutive user messages are joined with a blank line, message
contents become text blocks, and in FC mode the tools use Anthropic's shape (`input_schema`,
and a `response` schema folded into the description). `max_tokens` is required by the API
(default 8192 here; `--max-tokens` sets it). Stored results: tool calls as
`[{name: json(input)}]`, else the list of text blocks' texts (FC, like the official handler);
the first text block in prompt mode.

As with the OpenAI-compatible backend, the SDK's retries are off (the runner retries) and the
body is parsed from the raw response.
"""

from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING, Any

from fcbench.dataset.model import TestCase
from fcbench.models.base import ChatRequest, Mode, PermanentError, Response, TransientError
from fcbench.models.openai_compat import RETRYABLE_STATUS, retry_after
from fcbench.models.prompts import build_request
from fcbench.models.sdk_backend import SDKBackend

if TYPE_CHECKING:
    from anthropic import AsyncAnthropic

DEFAULT_MAX_TOKENS = 8192


def anthropic_tools(tools: list[dict[str, Any]] | None) -> list[dict[str, Any]]:
    """OpenAI-shaped tools -> Anthropic's: `parameters` becomes `input_schema`."""
    out = []
    for tool in tools or []:
        item = dict(tool["function"])
        if "response" in item:
            note = f" The response field has the following schema: {json.dumps(item['response'])}"
            item["description"] = str(item.get("description", "")) + note
            del item["response"]
        item["input_schema"] = item.pop("parameters")
        out.append(item)
    return out


def anthropic_messages(
    messages: list[dict[str, Any]],
) -> tuple[list[dict[str, Any]] | None, list[dict[str, Any]]]:
    """(system blocks or None, messages): system moved out, user runs joined, text blocks."""
    rest = [dict(m) for m in messages]
    system = None
    for i, message in enumerate(rest):
        if message.get("role") == "system":
            system = [{"type": "text", "text": rest.pop(i)["content"]}]
            break
    joined: list[dict[str, Any]] = []
    for message in rest:
        if message.get("role") == "user" and joined and joined[-1].get("role") == "user":
            joined[-1]["content"] += "\n\n" + message["content"]
        else:
            joined.append(message)
    for message in joined:
        message["content"] = [{"type": "text", "text": message["content"]}]
    return system, joined


class AnthropicBackend(SDKBackend["AsyncAnthropic"]):
    """A Claude model over the Messages API."""

    backend_name = "anthropic"
    default_endpoint = "https://api.anthropic.com"

    def _make_client(self, base_url: str) -> AsyncAnthropic:
        from anthropic import AsyncAnthropic

        return AsyncAnthropic(
            base_url=base_url or None, api_key=self.api_key, max_retries=0, timeout=self.timeout
        )

    async def _close_client(self, client: AsyncAnthropic) -> None:
        await client.close()

    def body(self, request: ChatRequest) -> dict[str, Any]:
        """The Messages API request body."""
        system, messages = anthropic_messages(request.messages)
        fields = self.sampling.body_fields()
        body: dict[str, Any] = {
            "model": self.model,
            "max_tokens": fields.pop("max_tokens", DEFAULT_MAX_TOKENS),
            "messages": messages,
        }
        if request.tools is not None:
            body["tools"] = anthropic_tools(request.tools)
        if system is not None:
            body["system"] = system
        body.update(fields)
        return body

    async def respond(self, case: TestCase, mode: Mode) -> Response:
        body = self.body(build_request(case, mode, self.texts))
        if mode == "fc" and "tools" not in body:
            body["tools"] = []  # the official handler always sends the list
        client, url = self._client()
        start = time.perf_counter()
        try:
            content = await client.post("/v1/messages", body=body, cast_to=str)
        except Exception as exc:
            raise classify(exc) from exc
        latency = time.perf_counter() - start
        try:
            answer = json.loads(content)
            blocks = answer["content"]
        except (ValueError, KeyError, TypeError):
            raise TransientError("malformed response body") from None
        return parse(answer, blocks, mode, latency, url)


def parse(
    answer: dict[str, Any], blocks: list[Any], mode: Mode, latency: float, url: str
) -> Response:
    """Tool uses as `[{name: json(input)}]`, else texts (a list in FC mode, the first in prompt)."""
    texts = [b.get("text", "") for b in blocks if isinstance(b, dict) and b.get("type") == "text"]
    calls = [
        {str(b.get("name")): json.dumps(b.get("input", {}))}
        for b in blocks
        if isinstance(b, dict) and b.get("type") == "tool_use"
    ]
    if mode == "fc":
        result: Any = calls or texts
    elif blocks and isinstance(blocks[0], dict) and "text" in blocks[0]:
        result = blocks[0]["text"]
    else:
        raise TransientError("the response has no text block")
    usage = answer.get("usage") or {}
    return Response(
        result=result,
        input_tokens=usage.get("input_tokens"),
        output_tokens=usage.get("output_tokens"),
        latency=latency,
        finish_reason=answer.get("stop_reason"),
        endpoint=url,
    )


def classify(exc: Exception) -> Exception:
    """Map an `anthropic` exception to TransientError / PermanentError."""
    import anthropic

    if isinstance(exc, anthropic.APITimeoutError):
        return TransientError("request timed out")
    if isinstance(exc, anthropic.APIConnectionError):
        return TransientError(f"connection failed: {exc}")
    if isinstance(exc, anthropic.APIStatusError):
        status = exc.status_code
        message = f"HTTP {status}: {str(exc)[:500]}"
        if status in RETRYABLE_STATUS or status >= 500 or status == 529:
            return TransientError(message, status, retry_after(exc.response.headers))
        return PermanentError(message, status)
    return TransientError(f"{type(exc).__name__}: {exc}")
