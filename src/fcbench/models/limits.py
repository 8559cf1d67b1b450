"""Bounds on a model endpoint's replies: a deadline for the whole request, a cap on its size.

Why: the SDKs' `timeout` bounds each read, not the request, so a server that sends one byte
every few seconds holds a case for ever, and one that streams without end (or sends a small
gzip body that inflates to gigabytes) fills the memory. Every endpoint backend therefore

* awaits its request through `within_deadline` (`--timeout`: seconds for the whole request,
  reply included), and
* builds its SDK client with `capped_client_args` (`--max-reply-mb`), whose response hook
  counts the bytes of the body as they arrive, and again once decoded, and stops reading past
  the cap.

Both failures are `TransientError`s, so they go through the runner's one retry policy
(`runner.retry`) and end, when attempts run out, as a recorded error on the case: the
oversized body itself is never kept.

A reply within the cap may still be longer than what a parser reads at generation
(`decode.budget.MAX_REPLY_CHARS`, 8 times the decoding budget): no text parser or family
handler reads such a reply (`over_budget`). It is kept as it came, with the reason in the
result line's `over_budget` field, so scoring records the case as decoding does
(`ast_decoder:decoder_failed`, the budget named): a parser reading only a prefix would score
calls the model never finished.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Iterator
from typing import Any, TypeVar

from fcbench.decode.budget import OverBudget, check_reply
from fcbench.models.base import TransientError

__all__ = [
    "DEFAULT_CONCURRENCY",
    "DEFAULT_MAX_REPLY_BYTES",
    "DEFAULT_TIMEOUT",
    "ReplyTooLarge",
    "capped_client_args",
    "context_overflow",
    "megabytes",
    "over_budget",
    "within_deadline",
]

DEFAULT_MAX_REPLY_BYTES = 10_000_000
"""10 MB: a thousand times a long reply; the default of `--max-reply-mb`."""
DEFAULT_TIMEOUT = 300.0
"""Seconds for one whole request, the reply read to its end: the default of `--timeout`
and of every endpoint backend built without one."""
DEFAULT_CONCURRENCY = 8
"""Requests in flight: the default of `--concurrency`, of a backend's connection pool and of
the scheduler's workers."""

T = TypeVar("T")


class ReplyTooLarge(TransientError):
    """A reply body (as sent, or once decoded) past the cap; retried like a dropped reply."""


class ReplyOverdue(TransientError):
    """No complete reply within the request's deadline."""


def megabytes(value: float) -> int:
    """`--max-reply-mb` in bytes (the flag is in MB: the unit people think of replies in)."""
    return int(value * 1_000_000)


async def within_deadline(request: Awaitable[T], seconds: float, where: str = "") -> T:
    """The request's value, or ReplyOverdue once `seconds` have passed in all (the request is
    cancelled, so its connection and partial body are released); a ReplyTooLarge an SDK
    wrapped in its own connection error comes out as itself."""
    try:
        return await asyncio.wait_for(request, seconds)
    except asyncio.TimeoutError:
        target = f" from {where}" if where else ""
        raise ReplyOverdue(f"no complete reply{target} within {seconds:g} s "
                           "(--timeout: the deadline of the whole request)") from None
    except Exception as exc:  # an SDK may wrap what the size cap raised: say the cause
        cause = find_in_chain(exc, ReplyTooLarge)
        if cause is not None and cause is not exc:
            raise cause from None
        raise


def over_budget(text: str) -> str | None:
    """Why no parser may read this reply's text (`decode.budget.check_reply`), or None.

    Checked before any text parser or family handler runs at generation: their work is then
    bounded whatever the reply cap (`--max-reply-mb`, 10 MB), and the verdict is the one
    decoding the whole reply gives (over budget). A reply between the decoding budget and
    this bound is read as the official handlers read it: its answer, reasoning stripped, is
    what decoding then judges."""
    try:
        check_reply(text)
    except OverBudget as exc:
        return str(exc)
    return None


def capped_client_args(max_bytes: int) -> dict[str, Any]:
    """Keyword arguments for an `httpx`/`httpx2` `AsyncClient` (an SDK's default client class)
    whose responses stop being read past `max_bytes`, raw or decoded."""

    async def on_response(response: Any) -> None:
        cap_response(response, max_bytes)

    return {"event_hooks": {"response": [on_response]}}


def cap_response(response: Any, max_bytes: int) -> None:
    """Refuse a response announcing more than `max_bytes`, and wrap its content decoder so
    that reading the body stops past the cap (the decoder sees every raw chunk and yields
    every decoded piece, so one wrapper bounds both)."""
    declared = response.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > max_bytes:
        raise too_large(max_bytes, f"it announces {int(declared):,} bytes")
    original = getattr(response, "_get_content_decoder", None)
    if original is None:  # an HTTP client this module does not know: nothing to wrap
        return
    response._decoder = _CappedDecoder(original(), max_bytes)


def too_large(max_bytes: int, detail: str) -> ReplyTooLarge:
    return ReplyTooLarge(f"reply larger than the {max_bytes:,}-byte cap ({detail}; "
                         "--max-reply-mb); not kept")


class _CappedDecoder:
    """An HTTP client's content decoder that counts what passes through it."""

    def __init__(self, inner: Any, max_bytes: int) -> None:
        self.inner = inner
        self.max_bytes = max_bytes
        self.raw = 0
        self.decoded = 0

    def decode(self, data: bytes) -> bytes | Iterator[bytes]:
        self.raw += len(data)
        if self.raw > self.max_bytes:
            raise too_large(self.max_bytes, f"more than {self.max_bytes:,} bytes received")
        return self._passed(self.inner.decode(data))

    def flush(self) -> bytes | Iterator[bytes]:
        return self._passed(self.inner.flush())

    def _passed(self, out: bytes | Iterator[bytes]) -> bytes | Iterator[bytes]:
        """httpx's decoders return bytes, httpx2's yield bounded pieces: count either,
        in the form the client expects."""
        if isinstance(out, bytes):
            self._count(out)
            return out
        return self._counted(out)

    def _counted(self, pieces: Iterator[bytes]) -> Iterator[bytes]:
        for piece in pieces:
            self._count(piece)
            yield piece

    def _count(self, piece: bytes) -> None:
        self.decoded += len(piece)
        if self.decoded > self.max_bytes:
            raise too_large(self.max_bytes, f"more than {self.max_bytes:,} bytes once decoded")


def find_in_chain(exc: BaseException, kind: type[BaseException]) -> BaseException | None:
    """`exc` or the first of its causes/contexts that is a `kind` (an SDK may wrap what a
    response hook raised)."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, kind):
            return current
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return None



_CONTEXT_OVERFLOW = re.compile("|".join((
    r"maximum context length",  # OpenAI, vLLM: "This model's maximum context length is 8192
    #                             tokens. However, you requested 8215 tokens (...)"
    r"context_length_exceeded",  # OpenAI's error code
    r"longer than the model'?s context length",  # SGLang: "The input (9000 tokens) is longer
    #                                              than the model's context length (8192 tokens)."
    r"exceeds? (?:the )?available context size",  # llama.cpp: "the request exceeds the
    #                                               available context size, try increasing it"
    r"exceed_context_size_error",  # llama.cpp's error type
    r"context size has been exceeded",  # llama.cpp (an HTTP 500 in some versions)
    r"is too long and exceeds limit of",  # older vLLM: "Input prompt (9000 tokens) is too long
    #                                       and exceeds limit of 8192"
    r"longer than the maximum model length",  # vLLM: "The decoder prompt (length 9000) is
    #                                           longer than the maximum model length of 8192"
    r"prompt is too long: \d+ tokens",  # Anthropic: "prompt is too long: 215000 tokens > 200000"
    r"input token count.{0,40}exceeds the maximum number of tokens",  # Gemini
    r"leaves no room in the context",  # fcbench's own measure (`--backend hf`)
)), re.IGNORECASE)


def context_overflow(text: str) -> bool:
    """Whether an error says the request does not fit the model's context, in the wording of
    any server fcbench knows (each says it differently, with HTTP 400 or 500). Such an answer
    is final: the same case asks for the same tokens every time (`PermanentError.final`)."""
    return _CONTEXT_OVERFLOW.search(text) is not None
