"""The contract between the runner and a model: one case in, one `Response` out.

A backend makes one attempt per `respond` call. It signals a failure worth retrying (rate
limit, server error, timeout, dropped connection, unreadable body) with `TransientError`, and a
failure that will not go away by asking again (context too long, bad request) with
`PermanentError`; the runner owns retries, backoff and rate limits, so every backend (and the
multi-turn loop, which calls a backend once per step) gets the same policy.
"""

from __future__ import annotations

import marshal
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

from fcbench.dataset.model import TestCase

Mode = Literal["fc", "prompt"]


def plain_copy(value: Any) -> Any:
    """A deep copy of plain JSON data (several times faster than `copy.deepcopy`)."""
    return marshal.loads(marshal.dumps(value))
MODES: tuple[Mode, ...] = ("fc", "prompt")


@dataclass(frozen=True)
class ChatRequest:
    """The messages (and, in FC mode, the tools) of one Chat Completions call."""

    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]] | None = None


@dataclass
class Response:
    """What the model answered for one case, in the official stored form.

    `result` is the text (prompt mode, or FC without a tool call) or a list of
    `{function_name: arguments_json}` (FC). `extras` are further fields for the result line
    (e.g. `reasoning_content`, `raw_text` when a client-side parser produced the calls).
    """

    result: Any
    input_tokens: int | None = None
    output_tokens: int | None = None
    latency: float = 0.0
    finish_reason: str | None = None
    endpoint: str | None = None
    extras: dict[str, Any] = field(default_factory=dict)


class BackendError(Exception):
    """A failed attempt; `status` is the HTTP status when there was one."""

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
    """Asking again will not help; recorded on the case (resume asks again)."""


@runtime_checkable
class Backend(Protocol):
    """A model that answers single-turn cases."""

    name: str
    """A short label for manifests and progress lines."""

    async def respond(self, case: TestCase, mode: Mode) -> Response:
        """One attempt at answering `case` in `mode`."""
        ...

    def describe(self) -> dict[str, Any]:
        """Endpoint and sampling settings, for the run manifest."""
        ...

    async def aclose(self) -> None:
        """Release connections."""
        ...
