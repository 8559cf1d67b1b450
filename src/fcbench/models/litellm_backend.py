"""LiteLLM (`--backend litellm`, `--model litellm/<provider>/<model>`): the hosted APIs with
their own authentication (Bedrock, Vertex, Azure OpenAI, Cohere, ...) through LiteLLM's async
completion, which reads each provider's credentials itself (AWS_*, GOOGLE_APPLICATION_CREDENTIALS,
AZURE_API_KEY / AZURE_API_BASE, ...).

Everything but the transport is the OpenAI path's (`OpenAICompatBackend`): the same body
(messages, tools, `max_tokens` rule, sampling and `--extra-body`), the same reading of the
reply (tool calls, text parsers, reasoning), the response cache, retries by the runner
(LiteLLM's own are off). Only `_send` differs: the body goes to `litellm.acompletion`, and its
`ModelResponse` comes back as the Chat Completions JSON the OpenAI path reads, with LiteLLM's
cost figure for the request (`usage.cost`, dollars, from its bundled price table) when it has
one, kept per case as `cost` in the result line.

Trust: LiteLLM is an opt-in extra pinned to one vetted release (its PyPI releases 1.82.7 and
1.82.8 carried a credential stealer; see pyproject.toml). It must not talk to anyone but the
provider: before its import the remote price-table fetch is switched off
(`LITELLM_LOCAL_MODEL_COST_MAP=True`) and so is its loading of a `.env` file from the working
folder (`LITELLM_MODE=PRODUCTION`), unless the user set those variables; its telemetry flag is
cleared; its loggers mask secrets. Its errors subclass the `openai` ones, so the OpenAI
path's `classify` maps them.
"""

from __future__ import annotations

import json
import os
import time
from typing import TYPE_CHECKING, Any

from fcbench import redact
from fcbench.models.base import BackendError, Mode, PreflightError, Reply, TransientError
from fcbench.models.exchange import RawReply
from fcbench.models.limits import DEFAULT_CONCURRENCY, DEFAULT_MAX_REPLY_BYTES, DEFAULT_TIMEOUT
from fcbench.models.openai_compat import OpenAICompatBackend, Sampling, classify, local_max_tokens

if TYPE_CHECKING:
    from fcbench.models.registry import BackendOptions

QUIET_ENVIRONMENT = {"LITELLM_LOCAL_MODEL_COST_MAP": "True", "LITELLM_MODE": "PRODUCTION"}
"""Set (unless already set) before LiteLLM is imported: no price table fetched from GitHub at
import, no `.env` file read into the process's environment."""
LOGGERS = ("LiteLLM", "LiteLLM Router", "LiteLLM Proxy")
"""LiteLLM's loggers: each gets the masking filter (`redact.guarded_logger`), since its
messages name URLs and, at debug level, request headers."""
DEFAULT_ENDPOINT = "litellm"
"""The endpoint's name when LiteLLM picks the provider's URL itself (health, the cache)."""


def load_litellm() -> Any:
    """LiteLLM, imported quietly (QUIET_ENVIRONMENT; telemetry off); ImportError when the
    extra is not installed."""
    for name, value in QUIET_ENVIRONMENT.items():
        os.environ.setdefault(name, value)
    import litellm

    for name in LOGGERS:
        redact.guarded_logger(name)
    litellm.telemetry = False
    litellm.suppress_debug_info = True
    return litellm


class LiteLLMBackend(OpenAICompatBackend):
    """One model through LiteLLM; `api_base` (optional) overrides the provider's URL."""

    def __init__(
        self,
        model: str,
        api_base: str | None = None,
        *,
        api_key: str | None = None,
        sampling: Sampling | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        output_format: str | None = None,
        concurrency: int = DEFAULT_CONCURRENCY,
        max_reply_bytes: int = DEFAULT_MAX_REPLY_BYTES,
        default_max_tokens: int | None = None,
        provider: str | None = "litellm",
    ) -> None:
        super().__init__(model, [api_base or DEFAULT_ENDPOINT], api_key=api_key,
                         sampling=sampling, timeout=timeout, output_format=output_format,
                         concurrency=concurrency, max_reply_bytes=max_reply_bytes,
                         default_max_tokens=default_max_tokens, provider=provider)
        self.api_base = api_base
        self.given_key = api_key
        """The key to pass (None: LiteLLM reads the provider's own variables)."""

    def describe(self) -> dict[str, Any]:
        import importlib.metadata

        described = super().describe()
        described["backend"] = "litellm"
        described["litellm_version"] = importlib.metadata.version("litellm")
        return described

    def _connection(self) -> dict[str, Any]:
        """What LiteLLM is told besides the body: where, which key, no retries of its own,
        the whole request's deadline."""
        given: dict[str, Any] = {"timeout": self.timeout, "num_retries": 0, "max_retries": 0}
        if self.api_base:
            given["api_base"] = self.api_base
        if self.given_key:
            given["api_key"] = self.given_key
        return given

    async def _send(self, path: str, body: dict[str, Any]) -> RawReply:
        """One `litellm.acompletion` of the OpenAI path's body; the reply as Chat Completions
        JSON (with `usage.cost` when LiteLLM prices it)."""
        from fcbench.models.limits import within_deadline

        litellm = load_litellm()
        endpoint = self.base_urls[0]
        self._in_flight[0] += 1
        start = time.perf_counter()
        try:
            response = await within_deadline(
                litellm.acompletion(**body, **self._connection()), self.timeout, endpoint)
        except Exception as exc:
            failure = classify(exc, endpoint)
            if isinstance(failure, BackendError):
                failure.endpoint = endpoint
            raise failure from exc
        finally:
            self._in_flight[0] -= 1
        latency = time.perf_counter() - start
        text = json.dumps(chat_completion(response, _cost(litellm, response)), default=str)
        if len(text.encode("utf-8")) > self.max_reply_bytes:
            raise TransientError(f"a reply of {len(text)} characters from {endpoint} is past "
                                 "the reply cap (--max-reply-mb)")
        return RawReply(text, latency, endpoint, json.loads(text))

    def parse(self, body: dict[str, Any], mode: Mode, latency: float, url: str) -> Reply:
        """The OpenAI path's reading; LiteLLM's cost of the request kept as `cost`."""
        reply = super().parse(body, mode, latency, url)
        cost = (body.get("usage") or {}).get("cost")
        if isinstance(cost, (int, float)):
            reply.extras["cost"] = float(cost)
        return reply

    async def preflight(self) -> None:
        """One one-token completion through LiteLLM: the key taken, the model known, the
        endpoint reachable (LiteLLM lists no models for most providers)."""
        import openai

        from fcbench.models.preflight import (
            CHAT_TIMEOUT,
            INCONCLUSIVE,
            refused,
            sdk_answer,
            with_server_retries,
        )

        litellm = load_litellm()
        where = self.api_base or f"LiteLLM ({self.model})"
        deadline = min(self.timeout, CHAT_TIMEOUT)
        ping = {"model": self.model, "messages": [{"role": "user", "content": "ping"}],
                "max_tokens": 1, **self._connection(), "timeout": deadline}
        try:
            answer = await with_server_retries(lambda: sdk_answer(
                litellm.acompletion(**ping), where, self.model, openai, deadline))
        except PreflightError:
            raise
        except Exception as exc:  # LiteLLM's own refusals: no credentials, unknown provider
            message = redact.text(" ".join(str(exc).split()))[:300]
            raise PreflightError(f"LiteLLM cannot ask {self.model}: {message}", "auth") from None
        failure = refused(answer, where, self.model)
        if failure is not None:
            raise failure
        if not (answer.ok or answer.status in INCONCLUSIVE):
            raise PreflightError(f"{where} answered HTTP {answer.status} for model "
                                 f"{self.model}: {answer.text}", "model")


def chat_completion(response: Any, cost: float | None) -> dict[str, Any]:
    """LiteLLM's `ModelResponse` as the Chat Completions body the OpenAI path reads: its
    message cut to the fields an API takes back in the history (None-valued extras and
    LiteLLM's `provider_specific_fields` dropped), `usage.cost` added when priced."""
    body: dict[str, Any] = response.model_dump() if hasattr(response, "model_dump") else {}
    for choice in body.get("choices") or []:
        message = choice.get("message") if isinstance(choice, dict) else None
        if isinstance(message, dict):
            choice["message"] = {k: v for k, v in message.items()
                                 if k == "content" or (v is not None
                                                       and k != "provider_specific_fields")}
            for call in choice["message"].get("tool_calls") or []:
                if isinstance(call, dict):
                    call.pop("provider_specific_fields", None)
    if cost is not None and isinstance(body.get("usage"), dict):
        body["usage"]["cost"] = cost
    return body


def _cost(litellm: Any, response: Any) -> float | None:
    """LiteLLM's price of one response in dollars (None: not in its table)."""
    hidden = getattr(response, "_hidden_params", None) or {}
    cost = hidden.get("response_cost") if isinstance(hidden, dict) else None
    if isinstance(cost, (int, float)):
        return float(cost)
    try:
        value = litellm.completion_cost(completion_response=response)
    except Exception:  # an unknown model: no figure, not an error
        return None
    return float(value) if isinstance(value, (int, float)) and value > 0 else None


def from_options(options: BackendOptions) -> LiteLLMBackend:
    """The registry's factory: `--base-url` (one) is LiteLLM's `api_base`; the key from
    `--api-key-env` when named, else LiteLLM reads the provider's own variables."""
    from fcbench.models.registry import BackendSetupError
    from fcbench.models.urls import check_base_url

    try:
        load_litellm()
    except ImportError:
        raise BackendSetupError(
            "--backend litellm needs LiteLLM: pip install 'fcbench[litellm]'") from None
    if len(options.base_urls) > 1:
        raise BackendSetupError("--backend litellm takes one --base-url (LiteLLM's api_base)")
    if options.tool_call_format and options.mode != "fc":
        raise BackendSetupError(
            "--tool-call-format applies to FC mode (tool calls written as text)")
    base = check_base_url(options.base_urls[0], "--base-url") if options.base_urls else None
    return LiteLLMBackend(
        options.model, base, api_key=options.api_key, sampling=options.sampling,
        timeout=options.timeout, output_format=options.tool_call_format,
        concurrency=options.concurrency, max_reply_bytes=options.max_reply_bytes,
        default_max_tokens=local_max_tokens([base] if base else []),
        provider=options.provider or "litellm",
    )
