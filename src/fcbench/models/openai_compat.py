"""Any OpenAI-compatible Chat Completions endpoint, through the official `openai` client.

FC mode sends the converted docs as `tools` and stores the tool calls as
`[{name: arguments_json}]` (the text when there are none); prompt mode sends the benchmark's
system prompt and stores the text. Several base URLs (replicas of one model) share the load:
each attempt goes to the endpoint with the fewest requests in flight, ties taken in turn; one
the runner found down (`runner.health`) is set aside a while, the others carry on.

`max_tokens`: what `--max-tokens` says; without it, a server on this machine (llama-server,
vLLM, SGLang, `--serve`) is asked for at most `OSS_MAX_TOKENS` (4096), the cap of the official
local-inference handlers that drive such models (a small model that rambles otherwise writes
until its context is full: 7,265 tokens, ten minutes on a CPU); a remote API gets none, as
the official OpenAI handlers send none (reasoning models need more, some refuse the field).

Each base URL gets one client per `CLIENT_SHARE` requests in flight: the HTTP connection pool
scans its connections on every request, so several small pools beat one large one.

The client's own retries are switched off (`max_retries=0`): the runner retries, so the
policy, the counters and Retry-After handling are the same for every backend. The body is
parsed here from the raw HTTP response, which is faster than building the SDK's models and
lets a malformed body count as a transient failure instead of a crash.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from email.utils import parsedate_to_datetime
from typing import TYPE_CHECKING, Any

from fcbench.models.base import (
    DEFAULT_TEMPERATURE,
    OSS_MAX_TOKENS,
    BackendError,
    ChatRequest,
    FcArgs,
    Mode,
    PermanentError,
    Reply,
    Sampling,
    TransientError,
    public_fields,
)

__all__ = ["DEFAULT_TEMPERATURE", "OpenAICompatBackend", "Sampling", "classify", "retry_after"]
from fcbench import corrections
from fcbench.decode.tool_call_formats import as_tool_calls, parse_text_calls
from fcbench.models.exchange import RawReply, RawStore, exchanged
from fcbench.models.limits import (
    DEFAULT_CONCURRENCY,
    DEFAULT_MAX_REPLY_BYTES,
    DEFAULT_TIMEOUT,
    capped_client_args,
    context_overflow,
    over_budget,
    within_deadline,
)

if TYPE_CHECKING:
    from openai import AsyncOpenAI

    from fcbench.models.registry import BackendOptions

RETRYABLE_STATUS = frozenset({408, 409, 425, 429})
TIMEOUT_HINT = ("raise --timeout if the server is slow; lower --max-tokens if the model writes "
                "on and on")
"""Said with every timeout: the two flags that change the outcome."""
ERROR_TEXT_LIMIT = 8000
"""An error body is kept up to this many characters (its middle elided beyond): a server's
validation error puts the failing field at the end."""
CLIENT_SHARE = 16
"""Requests in flight per client (connection pool) before another client is added."""


class OpenAICompatBackend:
    """One model behind one or more OpenAI-compatible base URLs."""

    fc_args: FcArgs = "json_string"
    raw_store: RawStore | None = None
    """Where replies are kept as received (the response cache), None: always asked."""

    def __init__(
        self,
        model: str,
        base_urls: Sequence[str],
        *,
        api_key: str | None = None,
        sampling: Sampling | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        output_format: str | None = None,
        concurrency: int = DEFAULT_CONCURRENCY,
        max_reply_bytes: int = DEFAULT_MAX_REPLY_BYTES,
        default_max_tokens: int | None = None,
        provider: str | None = None,
    ) -> None:
        """`default_max_tokens`: sent when the sampling sets no `max_tokens`
        (`local_max_tokens`)."""
        if not base_urls:
            raise ValueError("at least one base URL is needed")
        self.name = model
        self.model = model
        self.base_urls = list(base_urls)
        self.api_key = api_key or "EMPTY"
        self.sampling = sampling or Sampling()
        self.timeout = timeout
        self.output_format = output_format
        self.concurrency = concurrency
        self.max_reply_bytes = max_reply_bytes
        self.default_max_tokens = default_max_tokens
        self.provider = provider
        """The provider named by `provider/model` (`models.providers`), None otherwise."""
        self._clients: list[list[AsyncOpenAI]] | None = None
        self._in_flight = [0] * len(self.base_urls)
        self._aside = [0.0] * len(self.base_urls)
        """Per endpoint: `time.monotonic()` until which it is set aside (`set_aside`)."""
        self._turn = 0
        self._calls = 0

    def describe(self) -> dict[str, Any]:
        return {
            "backend": "openai-compatible",
            "endpoints": self.base_urls,
            "sampling": self.sampling.describe(),
            "timeout": self.timeout,
            "output_format": self.output_format,
            "default_max_tokens": self.default_max_tokens,
            **({"provider": self.provider} if self.provider else {}),
        }

    def use_raw_store(self, store: RawStore | None) -> None:
        """Keep replies (response bodies) in `store`, by path and body sent
        (`models.exchange`); the reading (`parse`) runs on every reply, kept or fresh."""
        self.raw_store = store

    def _client(self, index: int) -> AsyncOpenAI:
        """A client of endpoint `index`, the endpoint's clients taken in turn."""
        if self._clients is None:
            from openai import AsyncOpenAI, DefaultAsyncHttpxClient

            per_url = max(1, -(-self.concurrency // (CLIENT_SHARE * len(self.base_urls))))
            self._clients = [
                [
                    AsyncOpenAI(
                        base_url=url, api_key=self.api_key, max_retries=0, timeout=self.timeout,
                        http_client=DefaultAsyncHttpxClient(
                            **capped_client_args(self.max_reply_bytes)),
                    )
                    for _ in range(per_url)
                ]
                for url in self.base_urls
            ]
        self._calls += 1
        pool = self._clients[index]
        return pool[self._calls % len(pool)]

    def _pick(self) -> int:
        """The least-loaded endpoint not set aside; among equals, the next one in turn."""
        n = len(self.base_urls)
        start = self._turn
        self._turn = (self._turn + 1) % n
        now = time.monotonic()
        usable = [i for i in range(n) if self._aside[i] <= now] or list(range(n))
        return min(usable, key=lambda i: (self._in_flight[i], (i - start) % n))

    @property
    def endpoints(self) -> list[str]:
        """The base URLs, each one's health watched by the runner (`runner.health`)."""
        return list(self.base_urls)

    def set_aside(self, endpoint: str, seconds: float) -> None:
        """Send no request to `endpoint` for `seconds` (the runner found it down while
        another answers); then one request tries it again. With every endpoint set aside,
        all are used."""
        if endpoint in self.base_urls:
            self._aside[self.base_urls.index(endpoint)] = time.monotonic() + seconds

    async def step(self, request: ChatRequest) -> Reply:
        """One Chat Completions call."""
        body, latency, url = await self.complete(request)
        return self.parse(body, request.mode, latency, url)

    async def complete(self, request: ChatRequest) -> tuple[dict[str, Any], float, str]:
        """Send one request; (parsed JSON body, latency in s, endpoint)."""
        messages = [public_fields(m) for m in request.messages]
        body: dict[str, Any] = {"model": self.model, "messages": messages}
        if request.tools:
            body["tools"] = request.tools
        if self.default_max_tokens is not None:
            body["max_tokens"] = self.default_max_tokens
        body.update(self.sampling.body_fields())
        return await self.post("/chat/completions", body)

    async def post(self, path: str, body: dict[str, Any]) -> tuple[dict[str, Any], float, str]:
        """POST `body` to `path` of the least-loaded endpoint (or take the reply kept for
        this path and body); (parsed JSON body with `choices`, latency in s, endpoint).
        Failures are Transient/PermanentError."""
        raw = await exchanged(self.raw_store, {"path": path, "body": body},
                              lambda: self._send(path, body))
        answer = raw.decoded if raw.decoded is not None else _checked(raw.body)
        return answer, raw.latency, raw.endpoint or ""

    async def _send(self, path: str, body: dict[str, Any]) -> RawReply:
        """One POST; the body as received, checked to be a JSON object with `choices` (a
        malformed body is a TransientError, never kept)."""
        index = self._pick()
        self._in_flight[index] += 1
        start = time.perf_counter()
        try:
            # The client's generic POST (its documented way to send any body): the body is
            # already plain JSON, so the SDK's per-field request transform is not needed.
            # `timeout` is the whole request's deadline (the SDK's is per read)
            content = await within_deadline(
                self._client(index).post(path, body=body, cast_to=str), self.timeout,
                self.base_urls[index])
        except Exception as exc:
            failure = classify(exc, self.base_urls[index])
            if isinstance(failure, BackendError):
                failure.endpoint = self.base_urls[index]
            raise failure from exc
        finally:
            self._in_flight[index] -= 1
        latency = time.perf_counter() - start
        text = str(content)
        return RawReply(text, latency, self.base_urls[index], _checked(text))

    def parse(self, body: dict[str, Any], mode: Mode, latency: float, url: str) -> Reply:
        """The official stored form of a response body; the message as the server sent it
        goes back into the history, its tool calls answered by id."""
        try:
            choice = body["choices"][0]
            message = choice["message"]
        except (KeyError, IndexError, TypeError):
            raise TransientError("malformed response body (no message)") from None
        if not isinstance(message, dict):
            raise TransientError("malformed response body (no message)")
        usage = body.get("usage") or {}
        calls = message.get("tool_calls") if mode == "fc" else None
        response = Reply(
            result=self._result(message, mode),
            message=dict(message),
            tool_call_ids=[str(c.get("id")) for c in calls] if isinstance(calls, list) else [],
            input_tokens=usage.get("prompt_tokens"),
            output_tokens=usage.get("completion_tokens"),
            latency=latency,
            finish_reason=choice.get("finish_reason"),
            endpoint=url,
        )
        reasoning = message.get("reasoning_content") or message.get("reasoning")
        if reasoning:
            response.reasoning = str(reasoning)
        text = message.get("content")
        no_calls = isinstance(response.result, str) or response.result == []
        if self.output_format and mode == "fc" and no_calls and isinstance(text, str):
            # no server-side calls (servers send `tool_calls: []` or none): parse the text
            refused = over_budget(text)
            if refused is not None:
                response.extras["over_budget"] = refused
            parsed = None if refused is not None else parse_text_calls(self.output_format, text)
            if parsed is not None:
                response.extras["raw_text"] = text
                response.result = parsed
                response.message, response.tool_call_ids = as_tool_calls(parsed)
        return response

    @staticmethod
    def _result(message: dict[str, Any], mode: Mode) -> Any:
        """FC: tool calls as `[{name: args}]` when the list is there (even empty: upstream's
        handler keeps it), else text; an empty list is text under the corrections profile."""
        calls = message.get("tool_calls")
        if calls == [] and corrections.enabled(corrections.EMPTY_TOOL_CALLS.id):
            return message.get("content")  # #1316/#1328/#1348/#1351: the text reply
        if mode == "fc" and isinstance(calls, list):
            try:
                return [{c["function"]["name"]: c["function"]["arguments"]} for c in calls]
            except (KeyError, TypeError):
                raise TransientError("malformed tool call in the response body") from None
        return message.get("content")

    async def aclose(self) -> None:
        for pool in self._clients or []:
            for client in pool:
                await client.close()
        self._clients = None

    async def preflight(self) -> None:
        """Every endpoint reachable, the key taken, the model served (`models.preflight`):
        the model list, and a one-token chat request only when the list does not settle it."""
        from fcbench.models.preflight import every_endpoint

        await every_endpoint(self.base_urls, self._preflight_endpoint)

    async def _preflight_endpoint(self, url: str) -> None:
        """The listing and the ping are read under the reply cap and within the deadline
        (`--max-reply-mb`, `--timeout`), as chat replies are."""
        from openai import AsyncOpenAI, DefaultAsyncHttpxClient

        from fcbench.models.preflight import (
            CHAT_TIMEOUT,
            LIST_TIMEOUT,
            check_chat_endpoint,
            with_server_retries,
        )

        # capped like the run's clients: an endless model list is an error, not a MemoryError
        client = AsyncOpenAI(base_url=url, api_key=self.api_key, max_retries=0,
                             timeout=min(self.timeout, LIST_TIMEOUT),
                             http_client=DefaultAsyncHttpxClient(
                                 **capped_client_args(self.max_reply_bytes)))
        ping = {"model": self.model, "messages": [{"role": "user", "content": "ping"}],
                "max_tokens": 1}
        deadline = min(self.timeout, CHAT_TIMEOUT)
        try:
            listing = await with_server_retries(lambda: _answer(
                client.get("/models", cast_to=str), url, self.model, deadline))
            await check_chat_endpoint(url, self.model, listing, lambda: _answer(
                client.post("/chat/completions", body=ping, cast_to=str,
                            options={"timeout": deadline}),
                url, self.model, deadline), "/chat/completions")
        finally:
            await client.close()


def _checked(content: str) -> dict[str, Any]:
    """A response body parsed: a JSON object with `choices` (else TransientError)."""
    try:
        answer = json.loads(content)
    except ValueError:
        raise TransientError("malformed response body (not JSON)") from None
    if not isinstance(answer, dict) or not answer.get("choices"):
        raise TransientError("malformed response body (no choices)")
    return answer


async def _answer(request: Any, url: str, model: str, deadline: float) -> Any:
    """A preflight request's `Answer` (`models.preflight.sdk_answer` over `openai`)."""
    import openai

    from fcbench.models.preflight import sdk_answer

    return await sdk_answer(request, url, model, openai, deadline)


def classify(exc: Exception, url: str | None = None) -> Exception:
    """Map an `openai` exception to TransientError / PermanentError (others pass through);
    connection failures name the endpoint (`url`) and the root cause."""
    import openai

    from fcbench.models.preflight import connection_cause

    where = f" to {url}" if url else ""
    if isinstance(exc, openai.APITimeoutError):
        return TransientError(f"request{where} timed out ({TIMEOUT_HINT})")
    if isinstance(exc, openai.APIConnectionError):
        return TransientError(f"connection failed{where}: {connection_cause(exc)}")
    if isinstance(exc, openai.APIStatusError):
        status = exc.status_code
        message = f"HTTP {status}: {_error_text(exc)}"
        if context_overflow(message) and status not in RETRYABLE_STATUS:
            return PermanentError(message, status, final=True)  # llama.cpp may say it with 500
        if status in RETRYABLE_STATUS or status >= 500:
            return TransientError(message, status, retry_after(exc.response.headers))
        return PermanentError(message, status)
    if isinstance(exc, (TransientError, PermanentError)):
        return exc
    return TransientError(f"{type(exc).__name__}: {exc}")


def _error_text(exc: Exception) -> str:
    """The server's error message, whole up to `ERROR_TEXT_LIMIT` (then start and end)."""
    body = getattr(exc, "body", None)
    text = body["message"] if isinstance(body, dict) and isinstance(
        body.get("message"), str) else str(exc)
    if len(text) <= ERROR_TEXT_LIMIT:
        return str(text)
    half = ERROR_TEXT_LIMIT // 2
    return f"{text[:half]} ... {text[-half:]}"


def retry_after(headers: Any) -> float | None:
    """Seconds the server asks us to wait: `retry-after-ms`, `retry-after` (s or HTTP date)."""
    try:
        ms = headers.get("retry-after-ms")
        if ms is not None:
            return max(0.0, float(ms) / 1000)
        value = headers.get("retry-after")
    except (AttributeError, ValueError):
        return None
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def local_max_tokens(urls: Sequence[str]) -> int | None:
    """The `max_tokens` sent by default: the local handlers' cap when every endpoint is on
    this machine, none for remote APIs (the official OpenAI handlers send none)."""
    from fcbench.models.keys import is_loopback

    return OSS_MAX_TOKENS if urls and all(is_loopback(u) for u in urls) else None


def from_options(options: BackendOptions) -> OpenAICompatBackend:
    """The registry's factory: base URLs from the options or `$OPENAI_BASE_URL`."""
    from fcbench.models.keys import missing_key
    from fcbench.models.registry import BackendSetupError
    from fcbench.models.urls import endpoint_urls

    urls = endpoint_urls(options.base_urls)
    if not urls:
        raise BackendSetupError("no endpoint: pass --base-url URL (or set OPENAI_BASE_URL)")
    if options.tool_call_format and options.mode != "fc":
        raise BackendSetupError(
            "--tool-call-format applies to FC mode (tool calls written as text)")
    missing = missing_key(options.api_key, options.key_variable, urls)
    if missing:
        raise BackendSetupError(missing)
    return OpenAICompatBackend(
        options.model, urls, api_key=options.api_key, sampling=options.sampling,
        timeout=options.timeout, output_format=options.tool_call_format,
        concurrency=options.concurrency, max_reply_bytes=options.max_reply_bytes,
        default_max_tokens=local_max_tokens(urls), provider=options.provider,
    )
