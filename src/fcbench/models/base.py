"""The contract between the runner and a model: one chat step.

A backend answers one `ChatRequest` (the conversation so far, and in FC mode the tools) with
one `Reply` (the assistant's answer in the official stored form, the message to put back into
the history, token counts, latency). Single-turn generation is one step per case; the
multi-turn and agentic loops call the same `step` once per model turn, so every backend runs
every category.

The conversation is kept in the OpenAI Chat Completions layout (`system`, `user`,
`assistant` with `tool_calls`, `tool` with `tool_call_id`), which each backend translates into
its own API's. Keys starting with `_` in a message are fcbench's annotations for the backend
that wrote them (e.g. `_native`: the vendor's own form of an assistant message, sent back as
is); every backend drops them before sending.

A backend makes one attempt per `step`. It signals a failure worth retrying (rate limit,
server error, timeout, dropped connection, unreadable body) with `TransientError`, and one
that will not go away by asking again (context too long, bad request) with `PermanentError`
(`final` when it never will: `models.limits.context_overflow`); the runner owns retries,
backoff and rate limits, so every backend gets the same policy.
"""

from __future__ import annotations

import marshal
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

from fcbench.core.model import TestCase

DEFAULT_TEMPERATURE = 0.001
"""The official default since August 2024 (spec §8.6)."""

OSS_MAX_TOKENS = 4096
"""The official local-inference handlers' cap on new tokens (`base_oss_handler`: min(4096,
context - prompt - 2)); the OpenAI, Gemini and most API handlers send none."""

Mode = Literal["fc", "prompt"]
MODES: tuple[Mode, ...] = ("fc", "prompt")
FcArgs = Literal["json_string", "object"]


def plain_copy(value: Any) -> Any:
    """A deep copy of plain JSON data (several times faster than `copy.deepcopy`)."""
    return marshal.loads(marshal.dumps(value))


def public_fields(message: dict[str, Any]) -> dict[str, Any]:
    """A message without fcbench's `_` annotations: what an API may be sent."""
    return {k: v for k, v in message.items() if not k.startswith("_")}


@dataclass(frozen=True)
class Sampling:
    """Sampling parameters sent with every request (None = not sent)."""

    temperature: float | None = DEFAULT_TEMPERATURE
    top_p: float | None = None
    max_tokens: int | None = None
    extra_body: dict[str, Any] = field(default_factory=dict)
    seed: int | None = None
    """`--model-seed`: the generation seed (upstream PR #1304's `seed`), for backends that
    take one (OpenAI-compatible chat and completions bodies, Gemini's config, a local
    model's sampling); the Anthropic Messages API has none and does not get it."""

    def body_fields(self) -> dict[str, Any]:
        """The request-body fields: the parameters set, then `extra_body` merged over them."""
        fields: dict[str, Any] = {}
        for key in ("temperature", "top_p", "max_tokens", "seed"):
            value = getattr(self, key)
            if value is not None:
                fields[key] = value
        fields.update(self.extra_body)
        return fields

    def describe(self) -> dict[str, Any]:
        """The settings for model.json and the response cache's key; the seed only when set,
        so runs without one describe (and key their cache) as before it existed."""
        described: dict[str, Any] = {
            "temperature": self.temperature,
            "top_p": self.top_p,
            "max_tokens": self.max_tokens,
            "extra_body": self.extra_body,
        }
        if self.seed is not None:
            described["seed"] = self.seed
        return described


@dataclass(frozen=True)
class StepContext:
    """Where a request stands: the case, the turn and the step within the turn.

    Real models never see it; backends that answer from data (the ground truth, scripted
    test models) read it.
    """

    case: TestCase | None = None
    turn: int = 0
    step: int = 0


@dataclass(frozen=True)
class ChatRequest:
    """One step's request: the messages so far and, in FC mode, the tools."""

    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]] | None = None
    """Function docs converted to OpenAI tools (FC mode, and for backends with their own
    `TurnLayout`), None in prompt mode."""
    mode: Mode = "fc"
    functions: list[dict[str, Any]] | None = None
    """The function docs as the benchmark states them (with the language hints), for
    backends that render prompts themselves."""
    context: StepContext = field(default_factory=StepContext)


@dataclass
class Reply:
    """One assistant answer.

    `result` is the official stored form: the text (prompt mode, or FC without a call) or
    `[{function_name: arguments}]` (FC; arguments as a JSON string, or an object for
    backends whose `fc_args` is "object"). `message` is the assistant message for the
    history (OpenAI layout, `_native` annotations allowed); None means "built from the
    text". `extras` are further fields for the result line (e.g. `raw_text` when a text
    parser produced the calls).
    """

    result: Any
    message: dict[str, Any] | None = None
    tool_call_ids: list[str] = field(default_factory=list)
    input_tokens: int | None = None
    output_tokens: int | None = None
    latency: float = 0.0
    finish_reason: str | None = None
    endpoint: str | None = None
    reasoning: str = ""
    extras: dict[str, Any] = field(default_factory=dict)

    def history_message(self) -> dict[str, Any]:
        """The assistant message to append to the conversation."""
        if self.message is not None:
            return self.message
        content = self.result if isinstance(self.result, str) else str(self.result)
        return {"role": "assistant", "content": content}


@dataclass
class Response:
    """What a case's result line holds: a single step's reply, or a whole conversation's
    (lists of turns and steps in `result` and in the per-step fields of `extras`)."""

    result: Any
    input_tokens: int | None = None
    output_tokens: int | None = None
    latency: float = 0.0
    finish_reason: str | None = None
    endpoint: str | None = None
    extras: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def of(cls, reply: Reply) -> Response:
        """A single-turn case's response: the reply, its reasoning kept as the official
        `reasoning_content` field."""
        extras = dict(reply.extras)
        if reply.reasoning:
            extras.setdefault("reasoning_content", reply.reasoning)
        return cls(reply.result, reply.input_tokens, reply.output_tokens, reply.latency,
                   reply.finish_reason, reply.endpoint, extras)


class BackendError(Exception):
    """A failed attempt; `status` is the HTTP status when there was one, `endpoint` the
    endpoint that failed when the backend has several (the runner watches each one's health,
    `runner.health`)."""

    endpoint: str | None = None

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class TransientError(BackendError):
    """Worth retrying; `retry_after` is the server's requested wait in seconds, if any."""

    def __init__(
        self, message: str, status: int | None = None, retry_after: float | None = None
    ) -> None:
        super().__init__(message, status)
        self.retry_after = retry_after


class PermanentError(BackendError):
    """Asking again will not help; recorded on the case. `final`: the answer belongs to the
    case itself (its prompt does not fit the model's context, the model's template refuses
    it), so a resume does not ask it again either (`--retry-permanent` does); otherwise (a
    400 of a server set up wrongly, a refused key) the next run asks it again."""

    def __init__(self, message: str, status: int | None = None, *, final: bool = False) -> None:
        super().__init__(message, status)
        self.final = final


class PreflightError(Exception):
    """A backend that cannot work as configured, found before the first case: one line naming
    the endpoint, the model and the cause. `kind` is what failed: `unreachable`, `auth`,
    `path`, `model` or `server`."""

    def __init__(self, message: str, kind: str = "server") -> None:
        super().__init__(message)
        self.kind = kind


@runtime_checkable
class SupportsPreflight(Protocol):
    """A backend that can check, cheaply, that it will be able to answer: each endpoint
    reachable, the key accepted, the model known. Optional: backends without it are not
    checked. It uses its own connections and closes them (it runs in its own event loop)."""

    async def preflight(self) -> None:
        """Raise PreflightError with the cause, or return when every endpoint is usable."""
        ...


@runtime_checkable
class TurnLayout(Protocol):
    """A backend that lays the conversation out its own way (the official open-model
    handlers): the runner asks it for the turns a case starts with and for the messages that
    feed a step's execution results back, instead of using the mode's defaults. Its replies'
    `message` is already the family's assistant message, and its `output_encoding` is how
    its results decode (the family's own `decode_execute`)."""

    output_encoding: Any
    """The `decode.encoding.Encoding` of its results."""

    def turns(
        self, case: TestCase, prompted: Callable[[], list[dict[str, Any]]]
    ) -> list[list[dict[str, Any]]]:
        """Every turn's messages before the first step, given the case and a maker of its
        first turn with the benchmark's system prompt (`prompted()`, built on demand)."""
        ...

    def result_messages(
        self, reply: Reply, calls: list[str], results: list[str]
    ) -> list[dict[str, Any]]:
        """The messages appended after a step whose `calls` returned `results`."""
        ...


def unwrapped(backend: object) -> object:
    """The backend a wrapper (the response cache) stands in front of, else `backend`: what
    it offers besides `step` (preflight, its own layout) is the wrapped backend's. Checked
    on the wrapped object itself because protocol checks from Python 3.12 on look attributes
    up statically, past any forwarding `__getattr__`."""
    return getattr(backend, "inner", backend)


def layout_of(backend: object) -> TurnLayout | None:
    """The backend's own conversation layout, or None for the mode's default one."""
    target = unwrapped(backend)
    return target if isinstance(target, TurnLayout) else None


@runtime_checkable
class Backend(Protocol):
    """A model: one chat step at a time."""

    name: str
    """A short label for manifests and progress lines."""

    fc_args: FcArgs
    """How FC results store arguments: JSON strings (most APIs) or objects (Gemini)."""

    async def step(self, request: ChatRequest) -> Reply:
        """One attempt at answering the conversation in `request`."""
        ...

    def describe(self) -> dict[str, Any]:
        """Endpoint and sampling settings, for the run manifest."""
        ...

    async def aclose(self) -> None:
        """Release connections."""
        ...
