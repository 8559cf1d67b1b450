"""Anthropic's Messages API through the official `anthropic` SDK (optional extra).

The request follows the official Claude handler: the system message moves to the `system`
field (as one text block), consecutive user messages are joined with a blank line, message
contents become text blocks, and in FC mode the tools use Anthropic's shape (`input_schema`,
and a `response` schema folded into the description). In a conversation the assistant's
content blocks go back as the API returned them and tool results as one user message of
`tool_result` blocks; multi-turn requests carry the official prompt-cache breakpoints.
`max_tokens` is required by the API (default 8192 here; `--max-tokens` sets it). Stored
results: tool calls as `[{name: json(input)}]`, else the list of text blocks' texts (FC, like
the official handler); the first text block in prompt mode.

As with the OpenAI-compatible backend, the SDK's retries are off (the runner retries) and the
body is parsed from the raw response.
"""

from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING, Any

from fcbench.models.base import ChatRequest, Mode, PermanentError, Reply, TransientError
from fcbench.models.exchange import RawReply, exchanged
from fcbench.models.limits import capped_client_args, context_overflow, within_deadline
from fcbench.models.openai_compat import RETRYABLE_STATUS, retry_after
from fcbench.models.sdk_backend import SDKBackend, sdk_from_options

if TYPE_CHECKING:
    from anthropic import AsyncAnthropic

    from fcbench.models.registry import BackendOptions

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
    """(system blocks or None, messages) in the official Claude handler's layout.

    The first system message moves out; consecutive user messages are joined with a blank
    line; user texts become text blocks; an assistant turn goes back as the content blocks
    the API returned (`_native`), or as its text; each run of `tool` messages becomes one user
    message of `tool_result` blocks answering the tool uses by id.
    """
    system = None
    out: list[dict[str, Any]] = []
    pending: dict[str, Any] | None = None  # the user message being joined
    for message in messages:
        role = message.get("role")
        if role == "system" and system is None:
            system = [{"type": "text", "text": message.get("content")}]
            continue
        if role == "tool":
            block = {"type": "tool_result", "content": message.get("content"),
                     "tool_use_id": message.get("tool_call_id")}
            if out and out[-1].get("_results"):
                out[-1]["content"].append(block)
            else:
                out.append({"role": "user", "content": [block], "_results": True})
            pending = None
            continue
        if role == "user":
            text = str(message.get("content", ""))
            if pending is not None:
                pending["content"][0]["text"] += "\n\n" + text
                continue
            pending = {"role": "user", "content": [{"type": "text", "text": text}]}
            out.append(pending)
            continue
        pending = None
        out.append(_assistant(message))
    return system, [{k: v for k, v in m.items() if k != "_results"} for m in out]


def _assistant(message: dict[str, Any]) -> dict[str, Any]:
    native = message.get("_native")
    if native is not None:
        return {"role": "assistant", "content": native}
    return {"role": "assistant", "content": message.get("content")}


def is_multi_turn(request: ChatRequest) -> bool:
    """Whether the request belongs to a multi-turn conversation (upstream caches those)."""
    case = request.context.case
    return case is not None and "involved_classes" in case.extras


class AnthropicBackend(SDKBackend["AsyncAnthropic"]):
    """A Claude model over the Messages API."""

    backend_name = "anthropic"
    default_endpoint = "https://api.anthropic.com"

    def _make_client(self, base_url: str) -> AsyncAnthropic:
        from anthropic import AsyncAnthropic, DefaultAsyncHttpxClient

        return AsyncAnthropic(
            base_url=base_url or None, api_key=self.api_key, max_retries=0, timeout=self.timeout,
            http_client=DefaultAsyncHttpxClient(**capped_client_args(self.max_reply_bytes)),
        )

    async def _close_client(self, client: AsyncAnthropic) -> None:
        await client.close()

    def body(self, request: ChatRequest) -> dict[str, Any]:
        """The Messages API request body (FC mode always sends the tool list, as upstream;
        multi-turn conversations mark the official prompt-cache breakpoints)."""
        system, messages = anthropic_messages(request.messages)
        fields = self.sampling.body_fields()
        fields.pop("seed", None)  # the Messages API takes no seed (it rejects unknown fields)
        body: dict[str, Any] = {
            "model": self.model,
            "max_tokens": fields.pop("max_tokens", DEFAULT_MAX_TOKENS),
            "messages": messages,
        }
        if request.mode == "fc":
            body["tools"] = anthropic_tools(request.tools)
        if system is not None:
            body["system"] = system
        if is_multi_turn(request):
            _mark_cache(body)
        body.update(fields)
        return body

    async def step(self, request: ChatRequest) -> Reply:
        """One Messages API call (or the reply kept for this body), read."""
        body = self.body(request)
        raw = await exchanged(self.raw_store, {"path": "/v1/messages", "body": body},
                              lambda: self._send(body))
        answer = raw.decoded if raw.decoded is not None else _checked(raw.body)
        return parse(answer, answer["content"], request.mode, raw.latency, raw.endpoint or "")

    async def _send(self, body: dict[str, Any]) -> RawReply:
        """One POST; the body as received, checked (a malformed one is never kept)."""
        client, url = self._client()
        start = time.perf_counter()
        try:
            content = await within_deadline(
                client.post("/v1/messages", body=body, cast_to=str), self.timeout, url)
        except Exception as exc:
            raise classify(exc) from exc
        latency = time.perf_counter() - start
        text = str(content)
        return RawReply(text, latency, url, _checked(text))

    async def preflight(self) -> None:
        """Every endpoint reachable, the key taken, the model known (`models.preflight`):
        `GET /v1/models/{model}`, and the model list when that is not found."""
        from fcbench.models.preflight import every_endpoint

        await every_endpoint(self.base_urls, self._preflight_endpoint)

    async def _preflight_endpoint(self, url: str) -> None:
        from anthropic import AsyncAnthropic, DefaultAsyncHttpxClient

        from fcbench.models.preflight import (
            CHAT_TIMEOUT,
            LIST_TIMEOUT,
            check_described_model,
            with_server_retries,
        )

        shown = url or self.default_endpoint
        # capped like the run's clients: an endless model list is an error, not a MemoryError
        client = AsyncAnthropic(base_url=url or None, api_key=self.api_key, max_retries=0,
                                timeout=min(self.timeout, LIST_TIMEOUT),
                                http_client=DefaultAsyncHttpxClient(
                                    **capped_client_args(self.max_reply_bytes)))
        deadline = min(self.timeout, CHAT_TIMEOUT)
        hint = ("the Anthropic base URL has no /v1 (the SDK adds /v1/messages): try "
                f"{shown.rstrip('/').removesuffix('/v1')}"
                if shown.rstrip("/").endswith("/v1") else "is this the Anthropic Messages API?")
        try:
            described = await with_server_retries(lambda: _answer(
                client.get(f"/v1/models/{self.model}", cast_to=str), shown, self.model,
                deadline))
            await check_described_model(shown, self.model, described, lambda: _answer(
                client.get("/v1/models", cast_to=str), shown, self.model, deadline), hint)
        finally:
            await client.close()


async def _answer(request: Any, url: str, model: str, deadline: float) -> Any:
    """A preflight request's `Answer` (`models.preflight.sdk_answer` over `anthropic`), read
    under the reply cap and within `deadline` seconds."""
    import anthropic

    from fcbench.models.preflight import sdk_answer

    return await sdk_answer(request, url, model, anthropic, deadline)


def _checked(content: str) -> dict[str, Any]:
    """A Messages API response body parsed, its `content` a list (else TransientError)."""
    try:
        answer = json.loads(content)
        blocks = answer["content"]
    except (ValueError, KeyError, TypeError):
        raise TransientError("malformed response body") from None
    if not isinstance(blocks, list):
        raise TransientError("malformed response body (content is not a list)")
    return dict(answer)


def _mark_cache(body: dict[str, Any]) -> None:
    """Upstream's cache breakpoints for multi-turn cases: the system prompt, the last tool,
    and the first block of the last two user messages."""
    ephemeral = {"type": "ephemeral"}
    if body.get("system"):
        body["system"][0]["cache_control"] = ephemeral
    if body.get("tools"):
        body["tools"][-1]["cache_control"] = ephemeral
    users = [m for m in body["messages"] if m.get("role") == "user"]
    for message in users[-2:]:
        if isinstance(message.get("content"), list) and message["content"]:
            message["content"][0]["cache_control"] = ephemeral


def parse(
    answer: dict[str, Any], blocks: list[Any], mode: Mode, latency: float, url: str
) -> Reply:
    """Tool uses as `[{name: json(input)}]`, else texts (a list in FC mode, the first in prompt);
    the blocks themselves go back into the history."""
    texts = [b.get("text", "") for b in blocks if isinstance(b, dict) and b.get("type") == "text"]
    uses = [b for b in blocks if isinstance(b, dict) and b.get("type") == "tool_use"]
    calls = [{str(b.get("name")): json.dumps(b.get("input", {}))} for b in uses]
    if mode == "fc":
        result: Any = calls or texts
        message = {
            "role": "assistant",
            "content": "".join(texts) or None,
            "tool_calls": [_tool_call(b) for b in uses] or None,
            "_native": blocks,
        }
    elif blocks and isinstance(blocks[0], dict) and "text" in blocks[0]:
        result = blocks[0]["text"]
        message = {"role": "assistant", "content": result}
    else:
        raise TransientError("the response has no text block")
    usage = answer.get("usage") or {}
    return Reply(
        result=result,
        message=message,
        tool_call_ids=[str(b.get("id")) for b in uses] if mode == "fc" else [],
        input_tokens=usage.get("input_tokens"),
        output_tokens=usage.get("output_tokens"),
        latency=latency,
        finish_reason=answer.get("stop_reason"),
        endpoint=url,
    )


def _tool_call(block: dict[str, Any]) -> dict[str, Any]:
    return {"id": str(block.get("id")), "type": "function",
            "function": {"name": str(block.get("name")),
                         "arguments": json.dumps(block.get("input", {}))}}


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
        return PermanentError(message, status, final=context_overflow(message))
    if isinstance(exc, (TransientError, PermanentError)):  # ours (models.limits)
        return exc
    return TransientError(f"{type(exc).__name__}: {exc}")


def from_options(options: BackendOptions) -> SDKBackend[Any]:
    return sdk_from_options(AnthropicBackend, options)
