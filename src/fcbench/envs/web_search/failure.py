"""A web tool that failed: the model reads the official error dict, the run knows better.

A search provider that cannot be reached, answers an HTTP error, times out or runs out of
quota, or a page that cannot be fetched for a network reason (a timeout, a refused
connection, HTTP 429 or 5xx), says nothing about the model; the official environment hands
the model an error dict all the same, and so does fcbench (same shape, same text). But such an
answer is a `ToolFailure`: a dict the model reads like any other, which also carries a short
`reason` for the run (`SerpAPI HTTP 503`, `page fetch ConnectTimeout`). The services never
record it as an answer to replay, the environment instance remembers it, and the runner
records the case as errored, to be asked again (`runner.conversation`).

What is an answer, not a failure: a search with no results, a page the site answers 4xx for
(the model chose the URL: another run gets the same 404), a mode the official class rejects.
The reason is built from an exception's type and an HTTP status only, never its text, which
may hold a URL with a key.
"""

from __future__ import annotations

from typing import Any

__all__ = ["ToolFailure", "failure_reason", "http_status", "is_transient"]

FAILURES_ATTRIBUTE = "_tool_failures"
"""Where an environment instance keeps the reasons of its failed calls (private: not part of
the state the checkers compare)."""


class ToolFailure(dict[str, Any]):
    """`{"error": message}` for the model, with the run's `reason`."""

    def __init__(self, message: str, reason: str) -> None:
        super().__init__(error=message)
        self.reason = reason


def http_status(exc: BaseException) -> int | None:
    """The HTTP status an exception of an HTTP client carries (`requests`' `response`)."""
    status = getattr(getattr(exc, "response", None), "status_code", None)
    return status if isinstance(status, int) else None


def failure_reason(who: str, exc: BaseException) -> str:
    """`<who> HTTP <status>` or `<who> <exception type>`: no message text (see module)."""
    status = http_status(exc)
    return f"{who} HTTP {status}" if status is not None else f"{who} {type(exc).__name__}"


def is_transient(exc: BaseException) -> bool:
    """Whether a failed fetch says nothing of the page: a network error, a timeout, or a
    status the site would not give next time (429, 5xx)."""
    status = http_status(exc)
    if status is not None:
        return status == 429 or status >= 500
    if isinstance(exc, (ConnectionError, TimeoutError)):
        return True
    names = [cls.__name__ for cls in type(exc).__mro__]
    return any(word in name for name in names for word in TRANSIENT_NAMES)


TRANSIENT_NAMES = ("ConnectionError", "Timeout", "Ratelimit", "RateLimit", "ProtocolError",
                   "ChunkedEncodingError")
"""Exception class names (requests', urllib3's, ddgs') of failures of the network or the
service; an invalid URL or schema, too many redirects, or a decoding error are answers."""
