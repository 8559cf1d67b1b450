"""The raw exchange: where a backend's request meets its reply, before any reading of it.

Every backend does three things per step: it builds the request it sends (a JSON body, an
SDK call's arguments as plain data, a local model's prompt), gets the reply as received (the
response body, an SDK's response object as JSON, a local model's generated text and token
counts) and reads it (tool calls, a text tool-call parser, a family's decoder, the
corrections profile). Only the middle step costs a model call, and only its outcome is a
fact about the model: the reading is fcbench's, and changes with a flag or a fix.

So the response cache (`runner.cached`) sits in the middle, inside each backend: a backend
that offers `use_raw_store` sends every request through `exchanged`, which asks the store
(the cache) for the reply to that exact request, and asks the model only when the store has
none. The reading then runs on what came back, on a hit as on a miss, so a cached reply is
read with the run's own settings. The models layer does not know the runner: the store is a
protocol, handed in by the runner.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

__all__ = ["Ask", "KeepsRaw", "RawReply", "RawStore", "exchanged"]


@dataclass(frozen=True)
class RawReply:
    """A reply as received: `body` is its text (a response body, an SDK object's JSON, a
    local model's output record as JSON), unread."""

    body: str
    latency: float = 0.0
    endpoint: str | None = None
    decoded: Any = field(default=None, compare=False, repr=False)
    """The body already parsed by the asker (JSON), when it had to parse it to check it: saves
    parsing it twice on a miss. None: parse `body`."""


Ask = Callable[[], Awaitable[RawReply]]
"""Sends the request and returns the reply as received; a failure raises (never stored)."""


class RawStore(Protocol):
    """Keeps replies as received, by the request as sent (the response cache)."""

    async def exchange(self, request: dict[str, Any], ask: Ask) -> RawReply:
        """The kept reply to `request`, else `ask()`'s (then kept). What comes back is what
        the backend reads, on a hit as on a miss (the kept form: secrets masked)."""
        ...


@runtime_checkable
class KeepsRaw(Protocol):
    """A backend whose replies can be kept as received (see the module docstring)."""

    def use_raw_store(self, store: RawStore | None) -> None:
        """Send every request through `store` from now on (None: straight to the model)."""
        ...


async def exchanged(store: RawStore | None, request: dict[str, Any], ask: Ask) -> RawReply:
    """The reply to `request` (plain JSON data: what is sent, without credentials): from
    `store` when there is one, else asked."""
    if store is None:
        return await ask()
    return await store.exchange(request, ask)
