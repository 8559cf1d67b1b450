"""Gemini through the official `google-genai` SDK (optional extra).

The request follows the official Gemini handler: the first system message moves to the
config's `system_instruction`, `assistant` turns become `model` turns, each message is one
`Content` with one text part, the config asks for the thoughts (`include_thoughts`) and turns
the SDK's automatic function calling off, and in FC mode the docs become one `Tool` of
`function_declarations` in Gemini's schema dialect (`gemini_declarations`: no `default`,
`optional`, `required`, `maximum`, `minItems`, `maxItems` or `additionalProperties` in a
parameter, enums on strings only, no `format` on strings: each moved into the description;
the `response` schema folded into the function's description).

Stored results, as the official handler stores them: in FC mode the calls as
`[{name: args_object}]` (the arguments stay an object, so the model folder says
`fc_args: object`), else the list of the non-thought texts; in prompt mode the text. Thoughts
go to `reasoning_content`.

Sampling: `temperature`, `top_p` and `max_tokens` (sent as `max_output_tokens`); `extra_body`
is merged into the SDK's config (snake_case fields, e.g. `{"top_k": 1}`). The SDK's retries are
off (the runner retries).
"""

from __future__ import annotations

import contextlib
import json
import time
from typing import TYPE_CHECKING, Any

from fcbench.models.base import (
    ChatRequest,
    FcArgs,
    Mode,
    PermanentError,
    Reply,
    TransientError,
    plain_copy,
)
from fcbench.models.exchange import RawReply, exchanged
from fcbench.models.limits import capped_client_args, context_overflow, within_deadline
from fcbench.models.openai_compat import RETRYABLE_STATUS, retry_after
from fcbench.models.sdk_backend import SDKBackend, sdk_from_options

if TYPE_CHECKING:
    from google.genai import Client

    from fcbench.models.registry import BackendOptions

NO_RESPONSE = "The model did not return any response."
"""The official prompt-mode result when a response has no candidate or no part."""

_MOVED = {
    "default": "Default is",
    "optional": "Optional",
    "required": "Required",
    "maximum": "Maximum value",
    "minItems": "Minimum number of items",
    "maxItems": "Maximum number of items",
    "additionalProperties": "Additional properties",
}
"""Parameter fields Gemini's schema lacks -> the words they are moved into the description as."""


def gemini_declarations(tools: list[dict[str, Any]] | None) -> list[dict[str, Any]]:
    """OpenAI-shaped tools (already type-converted) -> Gemini function declarations."""
    out: list[dict[str, Any]] = []
    for tool in plain_copy(tools or []):
        item: dict[str, Any] = tool["function"]
        params = item.get("parameters") or {}
        params.pop("optional", None)
        for schema in (params.get("properties") or {}).values():
            if isinstance(schema, dict):
                _gemini_param(schema)
        if "response" in item:
            note = json.dumps(item.pop("response"))
            item["description"] = (
                str(item.get("description", ""))
                + f" The response field has the following schema: {note}"
            )
        out.append(item)
    return out


def _gemini_param(schema: dict[str, Any]) -> None:
    schema.setdefault("description", "")
    for key, words in _MOVED.items():
        if key in schema:
            schema["description"] += f" {words}: {schema.pop(key)!s}."
    if "enum" in schema and schema.get("type") != "string":
        schema["description"] += f" Enum values: {schema.pop('enum')!s}."
    if "format" in schema and schema.get("type") == "string":
        schema["description"] += f" Format: {schema.pop('format')!s}."


def gemini_contents(
    messages: list[dict[str, Any]],
) -> tuple[str | None, list[dict[str, Any]]]:
    """(system instruction or None, contents) in the official Gemini handler's layout.

    The first system message moves out; each message becomes one `Content` with one text
    part (`assistant` as `model`); an assistant turn with calls goes back as the content the
    API returned (`_native`); each run of `tool` messages becomes one user content of
    `function_response` parts, `{"result": <output>}` under the called function's name.
    """
    system = None
    contents: list[dict[str, Any]] = []
    names: dict[str, str] = {}  # tool-call id -> function name
    results: list[dict[str, Any]] | None = None
    for message in messages:
        role = message.get("role")
        if role == "system" and system is None:
            system = message.get("content")
            continue
        if role == "tool":
            name = names.get(str(message.get("tool_call_id")), "")
            part = {"function_response": {"name": name,
                                          "response": {"result": message.get("content")}}}
            if results is None:
                results = []
                contents.append({"role": "user", "parts": results})
            results.append(part)
            continue
        results = None
        if role == "assistant":
            for call in message.get("tool_calls") or []:
                names[str(call.get("id"))] = str(call.get("function", {}).get("name"))
            if message.get("_native") is not None:
                contents.append(message["_native"])
                continue
        contents.append({
            "role": "model" if role == "assistant" else role,
            "parts": [{"text": message.get("content")}],
        })
    return system, contents


class GoogleBackend(SDKBackend["Client"]):
    """A Gemini model over the Gemini API (`models/{model}:generateContent`)."""

    backend_name = "google"
    default_endpoint = "https://generativelanguage.googleapis.com"
    fc_args: FcArgs = "object"
    """FC results keep the arguments as objects (model.json's `fc_args`)."""

    def _make_client(self, base_url: str) -> Client:
        from google import genai
        from google.genai import types

        options = types.HttpOptions(
            base_url=base_url or None, timeout=max(1, int(self.timeout * 1000)),
            async_client_args=self._client_args(),
        )
        return genai.Client(api_key=self.api_key, vertexai=False, http_options=options)

    def _client_args(self) -> dict[str, Any]:
        """The SDK's httpx client with the reply-size cap's hook (`models.limits`). A
        transport of our own is given too: the SDK talks through aiohttp instead whenever
        aiohttp is installed (another package's dependency is enough) unless the caller
        passes a transport, and through aiohttp only the deadline would bound a reply. The
        transport is of the HTTP library the SDK runs on (httpx2, else httpx): the SDK picks
        its client class from the transport given."""
        import importlib
        import importlib.util

        library = "httpx2" if importlib.util.find_spec("httpx2") is not None else "httpx"
        transport = importlib.import_module(library).AsyncHTTPTransport()
        return {**capped_client_args(self.max_reply_bytes), "transport": transport}

    async def _close_client(self, client: Client) -> None:
        with contextlib.suppress(Exception):  # closing is best effort
            await client.aio.aclose()

    def request(self, chat: ChatRequest) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        """(contents, config) as plain data, in the SDK's field names."""
        mode = chat.mode
        system, contents = gemini_contents(chat.messages)
        config: dict[str, Any] = {}
        if self.sampling.temperature is not None:
            config["temperature"] = self.sampling.temperature
        if self.sampling.top_p is not None:
            config["top_p"] = self.sampling.top_p
        if self.sampling.max_tokens is not None:
            config["max_output_tokens"] = self.sampling.max_tokens
        if self.sampling.seed is not None:
            config["seed"] = self.sampling.seed
        if mode == "fc":
            config["automatic_function_calling"] = {"disable": True}
        config["thinking_config"] = {"include_thoughts": True}
        if system is not None:
            config["system_instruction"] = system
        declarations = gemini_declarations(chat.tools)
        if mode == "fc" and declarations:
            config["tools"] = [{"function_declarations": declarations}]
        config.update(plain_copy(self.sampling.extra_body))
        return contents, config

    async def step(self, request: ChatRequest) -> Reply:
        """One generate_content call (or the response kept for these arguments), read."""
        contents, config = self.request(request)
        raw = await exchanged(
            self.raw_store, {"model": self.model, "contents": contents, "config": config},
            lambda: self._send(contents, config))
        answer = raw.decoded if raw.decoded is not None else _response(raw.body)
        return parse(answer, request.mode, raw.latency, raw.endpoint or "")

    async def _send(self, contents: list[dict[str, Any]], config: dict[str, Any]) -> RawReply:
        """One call; the SDK's response object as its JSON (`model_dump_json`)."""
        from google.genai import types

        try:
            typed = types.GenerateContentConfig.model_validate(config)
            typed_contents = [types.Content.model_validate(c) for c in contents]
        except ValueError as exc:  # pydantic's ValidationError: the API would refuse it too
            raise PermanentError(f"invalid request for the Gemini SDK: {exc}"[:1000]) from None
        client, url = self._client()
        start = time.perf_counter()
        try:
            answer = await within_deadline(client.aio.models.generate_content(
                model=self.model, contents=typed_contents, config=typed
            ), self.timeout, url or self.default_endpoint)
        except Exception as exc:
            raise classify(exc) from exc
        latency = time.perf_counter() - start
        return RawReply(answer.model_dump_json(exclude_none=True), latency, url,
                        answer.model_dump(exclude_none=True))

    async def preflight(self) -> None:
        """Every endpoint reachable, the key taken, the model known (`models.preflight`):
        the model's description, and the model list when it is not found."""
        from fcbench.models.preflight import every_endpoint

        await every_endpoint(self.base_urls, self._preflight_endpoint)

    async def _preflight_endpoint(self, url: str) -> None:
        from fcbench.models.preflight import (
            CHAT_TIMEOUT,
            check_described_model,
            with_server_retries,
        )

        shown = url or self.default_endpoint
        client = self._make_client(url)  # capped like a chat reply (`_client_args`)
        deadline = min(self.timeout, CHAT_TIMEOUT)

        async def describe() -> Any:
            await client.aio.models.get(model=self.model)
            return "{}"

        async def names() -> Any:
            pager = await client.aio.models.list()
            return json.dumps({"models": [{"name": m.name} for m in pager.page]})

        try:
            described = await with_server_retries(
                lambda: _answer(describe(), shown, self.model, deadline))
            await check_described_model(shown, self.model, described,
                                        lambda: _answer(names(), shown, self.model, deadline),
                                        "is this the Gemini API's host?")
        finally:
            await self._close_client(client)


async def _answer(request: Any, url: str, model: str, deadline: float) -> Any:
    """A preflight request's `Answer`; PreflightError when nothing answers at all, or the
    answer is past the reply cap or the deadline (`models.preflight.bounded`)."""
    from google.genai import errors

    from fcbench.models.preflight import Answer, bounded, is_transport_error, unreachable

    try:
        return Answer(200, await bounded(request, url, model, deadline))
    except errors.APIError as exc:
        return Answer(int(exc.code or 0), " ".join(str(exc.message or exc).split())[:300])
    except Exception as exc:  # the SDK lets its HTTP library's errors through
        if not is_transport_error(exc):
            raise
        raise unreachable(url, model, exc) from None


def _response(body: str) -> dict[str, Any]:
    """A kept response (the SDK object's JSON) as `parse` reads it: rebuilt by the SDK, so
    its fields (bytes, enums) are what a fresh response's dump gives."""
    from google.genai import types

    try:
        answer = types.GenerateContentResponse.model_validate_json(body)
    except ValueError:
        raise TransientError("malformed kept response (not a GenerateContentResponse)") from None
    return dict(answer.model_dump(exclude_none=True))


def parse(answer: dict[str, Any], mode: Mode, latency: float, url: str) -> Reply:
    """A GenerateContentResponse (as a dict, SDK field names) in the official stored form;
    in FC mode the candidate's content goes back into the history as returned."""
    candidates = answer.get("candidates") or []
    first = candidates[0] if candidates and isinstance(candidates[0], dict) else {}
    parts = [p for p in (first.get("content") or {}).get("parts") or [] if isinstance(p, dict)]
    calls: list[dict[str, Any]] = []
    texts: list[Any] = []
    thoughts: list[Any] = []
    for part in parts:
        call = part.get("function_call") or {}
        if call.get("name"):
            calls.append({call["name"]: dict(call.get("args") or {})})
        elif part.get("thought"):
            thoughts.append(part.get("text"))
        else:
            texts.append(part.get("text"))
    result: Any
    if mode == "fc":
        result = calls or texts
    elif parts:
        result = texts[-1] if texts else ""
    else:
        result = NO_RESPONSE
    usage = answer.get("usage_metadata") or {}
    reason = first.get("finish_reason")
    response = Reply(
        result=result,
        message=_history(first, calls, texts, result, mode),
        tool_call_ids=[f"call_{i}" for i in range(len(calls))] if mode == "fc" else [],
        input_tokens=usage.get("prompt_token_count"),
        output_tokens=usage.get("candidates_token_count"),
        latency=latency,
        finish_reason=getattr(reason, "value", reason),
        endpoint=url,
    )
    reasoning = (
        "\n".join(str(t) for t in thoughts if t)
        if mode == "fc"
        else (str(thoughts[-1]) if thoughts and thoughts[-1] else "")
    )
    response.reasoning = reasoning
    return response


def _history(
    candidate: dict[str, Any], calls: list[dict[str, Any]], texts: list[Any], result: Any,
    mode: Mode,
) -> dict[str, Any]:
    """The assistant message: in FC mode the content as returned (or the official stand-in
    when there is none) with its calls named by position; in prompt mode the text."""
    if mode != "fc":
        return {"role": "assistant", "content": result}
    native = candidate.get("content") or {}
    if not native.get("parts"):
        native = {"role": "model", "parts": [{"text": NO_RESPONSE}]}
    tool_calls = [
        {"id": f"call_{i}", "type": "function",
         "function": {"name": name, "arguments": json.dumps(args)}}
        for i, call in enumerate(calls) for name, args in call.items()
    ]
    text = "".join(str(t) for t in texts if t)
    return {"role": "assistant", "content": text or None, "tool_calls": tool_calls or None,
            "_native": native}


def classify(exc: Exception) -> Exception:
    """Map a `google-genai` (or transport) exception to TransientError / PermanentError."""
    from google.genai import errors

    if isinstance(exc, errors.APIError):
        status = int(exc.code or 0)
        message = f"HTTP {status}: {str(exc.message or exc)[:500]}"
        if status in RETRYABLE_STATUS or status >= 500 or status == 0:
            headers = getattr(exc.response, "headers", None)
            return TransientError(message, status or None, retry_after(headers))
        return PermanentError(message, status, final=context_overflow(message))
    if isinstance(exc, (TransientError, PermanentError)):
        return exc
    return TransientError(f"{type(exc).__name__}: {exc}")


def from_options(options: BackendOptions) -> SDKBackend[Any]:
    return sdk_from_options(GoogleBackend, options)
