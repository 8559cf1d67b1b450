"""Provider batch APIs (`--batch`): one request per line, answered within a day at half price.

A batch API takes many requests at once and answers them later. fcbench sends it exactly the
request bodies its live backend would send (`runner.batch` captures them from the backend's
own `step`, at the raw exchange, `models.exchange`), so a batched case is asked what a live
one is; the replies come back as the same response bodies and are read by the same backend.
What differs per provider (how a batch is submitted, asked after and read back) is one
module each, named here by the live backend kind it serves (`describe()["backend"]`):
adding one = a module with a `from_backend(backend) -> BatchAPI` factory + one line in
`BATCH_APIS`.

Gemini's batch mode goes through its SDK (`client.batches`, inline requests), since the live
Gemini backend's requests are SDK call arguments too (`models/batch_google.py`).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

__all__ = [
    "BATCH_APIS",
    "BATCH_PRICE",
    "BatchAPI",
    "BatchItem",
    "BatchLine",
    "BatchStatus",
    "BatchUnsupported",
    "for_backend",
]

BATCH_PRICE = 0.5
"""What a batched request costs, as a fraction of the live price (OpenAI and Anthropic both
charge half; Gemini's batch mode too)."""


class BatchUnsupported(ValueError):
    """`--batch` cannot be used with this backend (the message says why, in one line)."""


@dataclass(frozen=True)
class BatchLine:
    """One request of a batch: `request` is what the live backend hands its raw store
    (`{"path": ..., "body": ...}`), `custom_id` the provider's handle on it."""

    custom_id: str
    request: dict[str, Any]


@dataclass(frozen=True)
class BatchStatus:
    """A batch as the provider reports it."""

    state: str
    """The provider's word for it (in_progress, completed, ended, expired, ...)."""
    ended: bool
    """Nothing more will happen to it: its results (if any) can be read."""
    total: int = 0
    completed: int = 0
    """Requests the provider is done with, answered or failed."""
    failed: int = 0


@dataclass(frozen=True)
class BatchItem:
    """One request's outcome: the response body as received (`body`, its JSON `decoded`),
    or why there is none (`error`)."""

    body: str | None = None
    decoded: Any = field(default=None, compare=False, repr=False)
    error: str | None = None


class BatchAPI(Protocol):
    """A provider's batch endpoint. Failures are `models.base` Transient/PermanentErrors."""

    name: str
    max_requests: int
    """Lines per batch the provider takes."""
    max_bytes: int
    """Bytes per batch the provider takes (the input file, or the request body)."""

    can_find: bool
    """Whether `find` can tell a submission that never arrived (else it always says None)."""

    async def submit(self, lines: list[BatchLine], token: str) -> str:
        """Create a batch of `lines`, tagged with `token` where the provider keeps tags;
        its id."""
        ...

    async def find(self, token: str) -> str | None:
        """The id of the batch submitted with `token` (a submission whose answer was lost),
        None when there is none (or the provider cannot tell: `can_find` False)."""
        ...

    async def status(self, batch_id: str) -> BatchStatus:
        ...

    async def results(self, batch_id: str) -> dict[str, BatchItem]:
        """Each answered line's outcome by custom id (an ended batch)."""
        ...

    async def aclose(self) -> None:
        ...


BATCH_APIS: dict[str, str] = {
    "openai-compatible": "fcbench.models.batch_openai:from_backend",
    "anthropic": "fcbench.models.batch_anthropic:from_backend",
    "google": "fcbench.models.batch_google:from_backend",
}
"""Live backend kind -> `module:factory` of its batch API."""

_REFUSED: dict[str, str] = {}
"""Backend kind -> why `--batch` refuses it (one line), for kinds with a reason to give."""


def for_backend(backend: object) -> BatchAPI:
    """The batch API for a live backend (the unwrapped one), else BatchUnsupported."""
    describe = getattr(backend, "describe", None)
    kind = str(describe().get("backend", "")) if callable(describe) else ""
    if kind in _REFUSED:
        raise BatchUnsupported(_REFUSED[kind])
    target = BATCH_APIS.get(kind)
    if target is None:
        offered = ", ".join(sorted(BATCH_APIS))
        raise BatchUnsupported(f"--batch: the {kind or 'given'} backend has no batch API "
                               f"(offered for: {offered})")
    module, _, attribute = target.partition(":")
    factory: Callable[[Any], BatchAPI] = getattr(importlib.import_module(module), attribute)
    return factory(backend)
