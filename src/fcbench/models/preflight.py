"""Preflight checks: one cheap request per endpoint before the first case is asked.

A run that cannot succeed should say so at once, in one line that names the endpoint, the
model and the cause, instead of failing every case after its retries. Each backend's
`preflight` asks its API what costs nothing (the model list, or one model's description),
and only when that is not conclusive one minimal chat request (one token):

* nothing answers: connection refused, DNS, TLS, timeout (`unreachable`);
* the key is refused: HTTP 401/403 (`auth`);
* the path is wrong: HTTP 404 from the chat endpoint, with a hint about `/v1` (`path`);
* the model is unknown: not among the names the server lists, and a chat request with it
  fails; the message lists what the server offers (`model`);
* the server errs: HTTP 5xx after a couple of tries (`server`);
* the reply is past the reply cap (`--max-reply-mb`): `reply`; not complete within the
  deadline (`--timeout`, at most CHAT_TIMEOUT): `unreachable`. Every preflight request is
  read like a chat reply (`models.limits`): a listing that never ends is cut off, never kept.

A rate limit (429) means the endpoint works: preflight passes and the runner's retries deal
with it. A request the server refuses as malformed (400/422: some models reject
`max_tokens`) is not conclusive either and passes.
"""

from __future__ import annotations

import asyncio
import json
import socket
import ssl
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from fcbench.models.base import PreflightError
from fcbench.models.limits import ReplyTooLarge, find_in_chain

LIST_TIMEOUT = 10.0
"""Seconds for a listing request (connection included)."""
CHAT_TIMEOUT = 60.0
"""Seconds for the one-token chat request (a large model's first token can take a while)."""
GRACE = 0.5
"""Seconds past a preflight request's deadline before `bounded` cuts it off: the SDK's own
timeout (per read, as long as the deadline when `--timeout` is short) fires first and names
its cause (a TLS handshake a plain server never answers, say)."""
SERVER_TRIES = 3
INCONCLUSIVE = frozenset({400, 405, 422, 429})
SHOWN_NAMES = 10


@dataclass(frozen=True)
class Answer:
    """What one request got: the HTTP status and the body (or the server's error text)."""

    status: int
    text: str

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300


def connection_cause(exc: BaseException) -> str:
    """The root cause of a failed connection, in words: connection refused, DNS lookup
    failed, TLS error, timed out (else the innermost message)."""
    seen: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and current not in seen:
        seen.append(current)
        current = current.__cause__ or current.__context__
    for item in reversed(seen):
        if isinstance(item, ConnectionRefusedError):
            return "connection refused"
        if isinstance(item, socket.gaierror):
            return f"DNS lookup failed ({item.strerror or item})"
        if isinstance(item, ssl.SSLError):
            return f"TLS error ({getattr(item, 'reason', None) or item})"
        if isinstance(item, (TimeoutError, socket.timeout)) or "Timeout" in type(item).__name__:
            return "timed out"
        if isinstance(item, ConnectionResetError):
            return "connection reset"
    innermost = seen[-1]
    return str(innermost) or type(innermost).__name__


def is_transport_error(exc: BaseException) -> bool:
    """A failure to talk to the server at all (an SDK that lets its HTTP library's errors
    through: `TransportError`/`RequestError` of httpx or its successor, or an OSError); a
    reply past fcbench's cap never gets here (`bounded` made it a PreflightError)."""
    names = {cls.__name__ for cls in type(exc).__mro__}
    return isinstance(exc, OSError) or bool(names & {"TransportError", "RequestError"})


def error_text(body: Any, fallback: str) -> str:
    """The message of an API error body (`{"error": {"message": ...}}` and variants)."""
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and isinstance(inner.get("message"), str):
            return " ".join(str(inner["message"]).split())[:300]
        if isinstance(body.get("detail"), str):
            return str(body["detail"])[:300]
        if isinstance(body.get("message"), str):
            return str(body["message"])[:300]
    return " ".join(fallback.split())[:300]


def listed_names(text: str) -> list[str]:
    """Model names from a listing body: OpenAI/Anthropic `data[].id`, Gemini `models[].name`."""
    try:
        body = json.loads(text)
    except ValueError:
        return []
    if not isinstance(body, dict):
        return []
    items = body.get("data") if isinstance(body.get("data"), list) else body.get("models")
    names = []
    for item in items if isinstance(items, list) else []:
        if isinstance(item, dict):
            name = item.get("id") or item.get("name")
            if isinstance(name, str):
                names.append(name.removeprefix("models/"))
    return names


def offered(names: Sequence[str]) -> str:
    shown = ", ".join(names[:SHOWN_NAMES])
    more = len(names) - SHOWN_NAMES
    return shown + (f" and {more} more" if more > 0 else "")


async def with_server_retries(ask: Callable[[], Awaitable[Answer]]) -> Answer:
    """`ask` again (a second apart) while the server answers 5xx, up to SERVER_TRIES."""
    answer = await ask()
    for _ in range(SERVER_TRIES - 1):
        if answer.status < 500:
            break
        await asyncio.sleep(1.0)
        answer = await ask()
    return answer


def refused(answer: Answer, url: str, model: str) -> PreflightError | None:
    """The error for an answer that settles the check badly (None: not settled by it)."""
    key_refused = answer.status == 400 and "api key" in answer.text.lower()  # Gemini's way
    if answer.status in (401, 403) or key_refused:
        return PreflightError(
            f"{url} refused the API key (HTTP {answer.status}: {answer.text}) for model {model}",
            "auth",
        )
    if answer.status >= 500:
        return PreflightError(
            f"{url} answers HTTP {answer.status} for model {model}: {answer.text}", "server"
        )
    return None


def path_hint(url: str, endpoint: str, api_path: str = "/v1") -> str:
    """Why a 404 from the chat endpoint probably happened."""
    if not url.rstrip("/").endswith(api_path):
        return (f"the base URL may lack its API path: most servers (vLLM, SGLang, Ollama, "
                f"llama.cpp, hosted APIs) serve under {api_path}; try "
                f"{url.rstrip('/')}{api_path}")
    return f"does this server serve {endpoint}?"


async def bounded(request: Awaitable[Any], url: str, model: str,
                  deadline: float = CHAT_TIMEOUT) -> Any:
    """The value of a preflight request within `deadline` seconds in all (an SDK's timeout
    is per read: a dripping server is cut off here); a reply past the reply cap, however the
    SDK wrapped it, is a one-line PreflightError naming the URL."""
    try:
        return await asyncio.wait_for(request, deadline + GRACE)
    except asyncio.TimeoutError:
        raise PreflightError(f"cannot reach {url} (model {model}): no complete answer within "
                             f"{deadline:g} s (--timeout)", "unreachable") from None
    except Exception as exc:
        failure = oversized(exc, url, model)
        if failure is not None:
            raise failure from None
        raise


def oversized(exc: BaseException, url: str, model: str) -> PreflightError | None:
    """The PreflightError of a reply past the cap, when `exc` is (or wraps) one."""
    cause = find_in_chain(exc, ReplyTooLarge)
    if cause is None:
        return None
    return PreflightError(f"{url} (model {model}) answered the pre-run check with a {cause}",
                          "reply")


async def sdk_answer(request: Awaitable[Any], url: str, model: str, sdk: Any,
                     deadline: float = CHAT_TIMEOUT) -> Answer:
    """What a request through an SDK generated like OpenAI's and Anthropic's got (they share
    `APIStatusError` and `APIConnectionError`); PreflightError when nothing answers at all,
    or the answer is too large or too slow (`bounded`)."""
    try:
        return Answer(200, str(await bounded(request, url, model, deadline)))
    except sdk.APIStatusError as exc:
        return Answer(exc.status_code, error_text(exc.body, str(exc)))
    except sdk.APIConnectionError as exc:  # timeouts included
        raise unreachable(url, model, exc) from None


def unreachable(url: str, model: str, exc: BaseException) -> PreflightError:
    return PreflightError(f"cannot reach {url} (model {model}): {connection_cause(exc)}",
                          "unreachable")


async def check_chat_endpoint(
    url: str,
    model: str,
    listing: Answer,
    chat: Callable[[], Awaitable[Answer]],
    endpoint: str,
) -> None:
    """The decision for an OpenAI-style API given its model listing: pass when the listing
    names the model (or names nothing); otherwise one minimal chat request decides."""
    names = listed_names(listing.text) if listing.ok else []
    if listing.ok and (not names or model in names):
        return
    failure = refused(listing, url, model)
    if failure is not None:
        raise failure
    if listing.status == 429:
        return
    answer = await with_server_retries(chat)
    failure = refused(answer, url, model)
    if failure is not None:
        raise failure
    if answer.ok or answer.status in INCONCLUSIVE:
        return
    if names:
        raise PreflightError(
            f"model {model!r} is not served at {url} (HTTP {answer.status}: {answer.text}); "
            f"it serves: {offered(names)}", "model",
        )
    if answer.status == 404 and "model" in answer.text.lower() and listing.status != 404:
        raise PreflightError(f"{url} does not know model {model!r} ({answer.text})", "model")
    if answer.status == 404:
        raise PreflightError(
            f"{url}{endpoint} answered HTTP 404 for model {model}: {path_hint(url, endpoint)}",
            "path",
        )
    raise PreflightError(
        f"{url}{endpoint} answered HTTP {answer.status} for model {model}: {answer.text}"
    )


async def every_endpoint(urls: Sequence[str], check: Callable[[str], Awaitable[None]]) -> None:
    """Check every endpoint at once; the first failure (in the order given) is raised."""
    results = await asyncio.gather(*(check(u) for u in urls), return_exceptions=True)
    for result in results:
        if isinstance(result, BaseException):
            raise result


async def check_described_model(
    url: str,
    model: str,
    described: Answer,
    listing: Callable[[], Awaitable[Answer]],
    hint: str,
) -> None:
    """The decision for an API that describes one model by name (Anthropic, Gemini): found
    passes; not found is an unknown model when the listing answers (its names are shown),
    else a wrong path (`hint` says what to try)."""
    failure = refused(described, url, model)
    if failure is not None:
        raise failure
    if described.ok or described.status in INCONCLUSIVE:
        return
    if described.status != 404:
        raise PreflightError(f"{url} answered HTTP {described.status} for model {model}: "
                             f"{described.text}")
    names = await listing()
    failure = refused(names, url, model)
    if failure is not None:
        raise failure
    if names.ok:
        found = listed_names(names.text)
        offer = f"; it offers: {offered(found)}" if found else ""
        raise PreflightError(f"model {model!r} is not known at {url} ({described.text}){offer}",
                             "model")
    raise PreflightError(f"{url} answered HTTP 404 for model {model}: {hint}", "path")
