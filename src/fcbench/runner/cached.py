"""Model replies answered from the response cache: kept as received, read every time.

The cache keeps answers, not interpretations. A backend that offers `use_raw_store` (every
backend fcbench ships: OpenAI-compatible chat and completions, Anthropic, Gemini, local
transformers models; `models.exchange`) hands the wrapper each request as it is about to
send it (the exact body, or an SDK call's arguments, or a local model's rendered prompt and
sampling) and gets back the reply as received (the body, the SDK object's JSON, the
generated text and token counts), from the cache or from the model; the backend then reads
it (tool calls, `--tool-call-format`, a `--prompt-format` family's decoder, the corrections
profile), on a hit as on a miss. A run with another reading (a profile, a parser, a fixed
fcbench) is served the same replies and reads them its own way; the server is asked once
per distinct request. Such a key is the sha256 of the request as sent, the backend kind and
the endpoint identity (below); the API key is never part of it (no request body holds it:
the client sends it as a header).

A backend without `use_raw_store` (a plugin's, a Python function's) is cached around its
`step`, as before: its key is the sha256 of its settings as the run manifest records them
(sampling, output format, ...; not the timeout or a local model's batch size), the endpoint
identity, the endpoint model name, the mode, the messages (fcbench's `_native` annotations
included), the tools and the function docs, and the reply kept is its `Reply`.

The cache belongs to a server (`CacheSettings.scope`, `--cache-scope`): two servers may serve
different weights, quantizations or checkpoints under one model name, so by default
(`endpoint`) the key holds the endpoint identity, the sorted set of the run's base URLs
(replicas of one model) without credentials, query or fragment (`endpoint_identity`); a
server fcbench starts itself (`--serve`, `--serve-cmd`) is identified by its command with
the port it happened to get left out, so that its runs share entries. `model` declares
endpoints interchangeable: the key leaves them out, and every run asked with that scope
shares entries whatever its endpoints (entries of `endpoint` runs are not among them).

A repeat of a run (`--repeats N`) has its index in every key it makes: repeat 3 resumed
takes its own earlier replies, never repeat 2's (whose request may be byte-identical when
the backend takes no seed).

Only successful replies are stored: an error (raised by the backend) goes to the runner as
before, so it is asked again next time. A repeated run, or the rerun of a crashed one, takes
every step it has seen from the cache; a multi-turn case replays its earlier steps for free,
since the environments answer the same calls with the same results.

When the cache is used (`CacheSettings.policy`):

* `auto` (default): for backends built by name from the registry, except the ground truth,
  and only when decoding is greedy: an effective temperature at most `GREEDY_TEMPERATURE`
  (sampling at a higher temperature asks for fresh draws, which a cache would not give);
* `always`: whatever the backend and temperature (except the ground truth, which answers
  from the case in the request's context, not from the messages);
* `off` (`--no-cache`): never.

The default is `$FCBENCH_CACHE` when set (e.g. `off` on a machine that should never cache),
else `auto`; the cache file lives in `--cache-dir`, else `$FCBENCH_CACHE_DIR`, else
`$FCBENCH_HOME/cache`.
"""

from __future__ import annotations

import contextvars
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit, urlunsplit

from fcbench import redact
from fcbench.models.base import Backend, BackendError, ChatRequest, Reply, Sampling
from fcbench.models.exchange import Ask, KeepsRaw, RawReply
from fcbench.runner.cache import (
    ResponseCache,
    default_cache_dir,
    masked,
    reply_from_json,
    reply_to_json,
)

__all__ = [
    "CACHE_POLICIES",
    "CACHE_SCOPES",
    "GREEDY_TEMPERATURE",
    "CacheCounts",
    "CachePolicy",
    "CacheScope",
    "CacheSettings",
    "CachedBackend",
    "cache_policy",
    "describe_counts",
    "endpoint_identity",
    "raw_key",
    "request_key",
    "with_cache",
]

CachePolicy = Literal["auto", "always", "off"]
"""When replies are cached (`--cache`); called a policy, not a mode: "mode" is fc/prompt."""
CACHE_POLICIES: tuple[CachePolicy, ...] = ("auto", "always", "off")
CacheScope = Literal["endpoint", "model"]
CACHE_SCOPES: tuple[CacheScope, ...] = ("endpoint", "model")
DEFAULT_SCOPE: CacheScope = "endpoint"
GREEDY_TEMPERATURE = 0.01
"""At or below this temperature decoding counts as greedy: the official default (0.001) is
meant as "as deterministic as the API allows", and the local transformers backend decodes
greedily below 0.01."""
KEY_FORMAT = 1
"""Bump when what goes into a key changes, so that old entries are no longer matched."""
RAW_KEY_FORMAT = "raw-1"
"""The same for the keys of replies kept as received (never equal to a `KEY_FORMAT`)."""
_NOT_IN_KEY = frozenset({"endpoints", "timeout", "batch_size"})
"""Settings that change how a reply is fetched, not what it says (the endpoints enter the
key as their identity, by scope)."""
_NEVER_AUTO = frozenset({"callable"})
_STEP_KEYS: contextvars.ContextVar[list[tuple[str, bool]] | None] = contextvars.ContextVar(
    "fcbench_cache_step_keys", default=None)
"""The kept replies the step running in this task was given: (key, stored by this step)."""


@dataclass(frozen=True)
class CacheSettings:
    """The run's cache section (`--cache`, `--cache-dir`, `--cache-scope`), used whole by
    `with_cache`."""

    policy: CachePolicy | None = None
    """None: `$FCBENCH_CACHE`, else auto (`cache_policy`)."""
    folder: Path | None = None
    """Where the cache file lives (default: `default_cache_dir()`)."""
    scope: CacheScope = DEFAULT_SCOPE
    """`endpoint`: entries belong to the run's endpoints; `model`: endpoints declared
    interchangeable (see the module docstring)."""


@dataclass
class CacheCounts:
    """What the cache did in one run (the run summary's `cache` entry)."""

    path: str = ""
    active: bool = True
    reason: str = ""
    hits: int = 0
    misses: int = 0
    stored: int = 0
    unsaved: int = 0
    """Replies not stored: not JSON-exact, or the write failed (another process held the
    file past the busy timeout, disk full)."""
    dropped: int = 0
    """Entries of an older cache format dropped when the file was opened."""

    def summary(self) -> dict[str, Any]:
        if not self.active:
            return {"used": False, "reason": self.reason}
        asked = self.hits + self.misses
        found = {
            "used": True, "path": self.path, "hits": self.hits, "misses": self.misses,
            "stored": self.stored, "unsaved": self.unsaved,
            "hit_rate": round(self.hits / asked, 4) if asked else None,
        }
        if self.dropped:
            found["dropped"] = self.dropped
        return found



def describe_counts(summary: dict[str, Any]) -> str:
    """The printed form of a run summary's `cache` entry (`CacheCounts.summary()`)."""
    if not summary.get("used"):
        return f"cache not used: {summary.get('reason', '')}"
    hits, misses = int(summary.get("hits", 0)), int(summary.get("misses", 0))
    rate = f" ({100 * hits / (hits + misses):.1f}% hit rate)" if hits + misses else ""
    unsaved = f", {summary['unsaved']} not saved" if summary.get("unsaved") else ""
    dropped = (f"; {summary['dropped']} entries of an older cache format (replies as read, "
               "not as received) dropped") if summary.get("dropped") else ""
    return (f"cache: {hits} hit(s), {misses} miss(es){rate}, {summary.get('stored', 0)} "
            f"stored{unsaved} ({summary.get('path', '')}){dropped}")


def cache_policy(asked: str | None) -> CachePolicy:
    """The policy asked for, else `$FCBENCH_CACHE`, else auto (CacheError if none of those)."""
    import os

    from fcbench.runner.cache import CacheError

    policy = asked if asked is not None else os.environ.get("FCBENCH_CACHE") or "auto"
    for known in CACHE_POLICIES:
        if policy == known:
            return known
    raise CacheError(
        f"the cache policy must be one of {', '.join(CACHE_POLICIES)}, not {policy!r}")


def request_key(identity: dict[str, Any], request: ChatRequest) -> str | None:
    """The sha256 of everything that decides the reply; None if the request is not JSON."""
    from fcbench.dataset.fetch import sha256_hex

    payload = {
        "format": KEY_FORMAT, "backend": identity, "mode": request.mode,
        "messages": request.messages, "tools": request.tools, "functions": request.functions,
    }
    try:
        text = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError):
        return None
    return sha256_hex(text.encode("utf-8", "surrogatepass"))


def raw_key(identity: dict[str, Any], request: dict[str, Any]) -> str | None:
    """The sha256 of a request as sent (`models.exchange`) and the endpoint's identity
    (`raw_identity`); None if the request is not JSON."""
    from fcbench.dataset.fetch import sha256_hex

    payload = {"format": RAW_KEY_FORMAT, "backend": identity, "request": request}
    try:
        text = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"),
                          allow_nan=False, default=_bytes_in_key)
    except (TypeError, ValueError):
        return None
    return sha256_hex(text.encode("utf-8", "surrogatepass"))


def _bytes_in_key(value: object) -> object:
    """Bytes in a request (a Gemini thought signature sent back in the history) enter the
    key as their base64; anything else that is not JSON makes the request uncacheable."""
    if isinstance(value, bytes):
        import base64

        return {"bytes": base64.b64encode(value).decode("ascii")}
    raise TypeError(type(value).__name__)


def raw_identity(
    backend: Backend, scope: CacheScope = DEFAULT_SCOPE, endpoints: Sequence[str] | None = None
) -> dict[str, Any]:
    """What a kept reply belongs to besides its request: the backend kind (which API the
    request went to), the provider a `provider/model` name named, and in `endpoint` scope the
    endpoint identity. Nothing that only changes the reading (an output format, a prompt
    format's parser) is in it."""
    described = backend.describe()
    identity: dict[str, Any] = {"backend": described.get("backend", type(backend).__name__)}
    if described.get("provider"):  # `provider/model`: one provider's replies, in any scope
        identity["provider"] = described["provider"]
    if scope == "endpoint":
        urls = endpoints if endpoints is not None else described.get("endpoints") or []
        identity["endpoint_identity"] = endpoint_identity([str(url) for url in urls])
    return identity


def backend_identity(
    backend: Backend,
    model: str,
    scope: CacheScope = DEFAULT_SCOPE,
    endpoints: Sequence[str] | None = None,
) -> dict[str, Any]:
    """The backend's settings that decide replies (its manifest entry, minus transport), with
    the endpoint identity in `endpoint` scope (`endpoints`, default: those it describes)."""
    described = backend.describe()
    identity = {k: v for k, v in described.items() if k not in _NOT_IN_KEY}
    identity["model"] = model
    if scope == "endpoint":
        urls = endpoints if endpoints is not None else described.get("endpoints") or []
        identity["endpoint_identity"] = endpoint_identity([str(url) for url in urls])
    return identity


def endpoint_identity(urls: Sequence[str]) -> list[str]:
    """The sorted set of the endpoints, each without credentials, query or fragment (which
    hold keys, never part of a key) and without a trailing slash; host names lower-cased."""
    return sorted({_bare(url) for url in urls})


def _bare(url: str) -> str:
    parts = urlsplit(url)
    if not parts.scheme or not parts.netloc:
        return url  # not a URL: a local model's path, a function's name
    host = (parts.hostname or "").lower()
    if ":" in host:
        host = f"[{host}]"  # an IPv6 literal
    try:
        port = parts.port
    except ValueError:
        port = None
    netloc = host if port is None else f"{host}:{port}"
    return urlunsplit((parts.scheme.lower(), netloc, parts.path.rstrip("/"), "", ""))


class CachedBackend:
    """`inner`, with replies kept in and served from a `ResponseCache`: as received, when
    the backend keeps them so (`KeepsRaw`: it calls `exchange`), else as its `Reply`."""

    def __init__(self, inner: Backend, cache: ResponseCache | None, model: str,
                 reason: str = "", scope: CacheScope = DEFAULT_SCOPE,
                 endpoints: Sequence[str] | None = None, repeat: int | None = None) -> None:
        self.inner = inner
        self.name = inner.name
        self.fc_args = inner.fc_args
        self.cache = cache
        self.model = model
        self.identity = backend_identity(inner, model, scope, endpoints)
        self.raw_identity = raw_identity(inner, scope, endpoints)
        if repeat is not None:  # `--repeats`: one repeat is never answered from another
            self.identity["repeat"] = self.raw_identity["repeat"] = repeat
        self.kind = str(self.identity.get("backend", type(inner).__name__))
        self.counts = CacheCounts(str(cache.path) if cache else "", cache is not None, reason,
                                  dropped=cache.dropped if cache else 0)
        self.keeps_raw = cache is not None and isinstance(inner, KeepsRaw)
        if self.keeps_raw:
            inner.use_raw_store(self)  # type: ignore[attr-defined]

    async def step(self, request: ChatRequest) -> Reply:
        if self.cache is None:
            return await self.inner.step(request)
        if self.keeps_raw:
            return await self._read_step(request)
        key = request_key(self.identity, request)
        if key is not None:
            found = self._stored_reply(key)
            if found is not None:
                self.counts.hits += 1
                return found
        self.counts.misses += 1
        reply = await self.inner.step(request)  # a failure propagates: errors are not cached
        self._store(key, reply_to_json(reply) if key is not None else None)
        return reply

    async def _read_step(self, request: ChatRequest) -> Reply:
        """The backend's step, its replies passing through `exchange`. A step that ends in
        an error after its reply came (the reading found a malformed tool call, a family's
        handler could not read the completion) leaves that reply unkept: errors are never
        cached, so a retry or a rerun asks the model again."""
        used: list[tuple[str, bool]] = []
        token = _STEP_KEYS.set(used)
        try:
            return await self.inner.step(request)
        except BackendError:
            self._forget(used)
            raise
        finally:
            _STEP_KEYS.reset(token)

    def _forget(self, used: list[tuple[str, bool]]) -> None:
        assert self.cache is not None
        for key, stored_now in used:
            if self.cache.delete(key) and stored_now:
                self.counts.stored -= 1

    async def exchange(self, request: dict[str, Any], ask: Ask) -> RawReply:
        """The reply kept for `request` (the backend's `RawStore`), else `ask()`'s, kept with
        its secrets masked. Both come back in the kept form, so the backend reads the same
        text on a hit as on the miss that stored it."""
        assert self.cache is not None
        key = raw_key(self.raw_identity, request)
        used = _STEP_KEYS.get()
        if key is not None:
            found = self._stored_raw(key)
            if found is not None:
                self.counts.hits += 1
                if used is not None:
                    used.append((key, False))
                return found
        self.counts.misses += 1
        raw = await ask()  # a failure propagates: errors are not cached
        body = masked(raw.body)
        record = {"form": "raw", "body": body, "latency": raw.latency,
                  "endpoint": redact.text(raw.endpoint) if raw.endpoint else raw.endpoint}
        if self._store(key, _json_or_none(record) if key is not None else None) and (
                used is not None and key is not None):
            used.append((key, True))
        return raw if body == raw.body else RawReply(body, raw.latency, raw.endpoint)

    def kept(self, request: dict[str, Any]) -> bool:
        """Whether a reply to `request` is kept (`--batch` submits only what is not)."""
        key = raw_key(self.raw_identity, request) if self.cache is not None else None
        return key is not None and self._stored_raw(key) is not None

    def _stored_raw(self, key: str) -> RawReply | None:
        """A kept reply as received; anything else under the key (a damaged row) is a miss."""
        assert self.cache is not None
        text = self.cache.get(key)
        try:
            record = json.loads(text) if text is not None else None
            if not isinstance(record, dict) or record.get("form") != "raw":
                return None
            body, latency, endpoint = record["body"], record["latency"], record["endpoint"]
        except (ValueError, KeyError):
            return None
        if not isinstance(body, str) or not isinstance(latency, (int, float)):
            return None
        return RawReply(body, float(latency), endpoint if isinstance(endpoint, str) else None)

    def _stored_reply(self, key: str) -> Reply | None:
        assert self.cache is not None
        text = self.cache.get(key)
        try:
            return reply_from_json(text) if text is not None else None
        except (ValueError, TypeError):
            return None

    def _store(self, key: str | None, text: str | None) -> bool:
        """Keep `text` under `key`; whether it was (else counted unsaved)."""
        assert self.cache is not None
        if key is not None and text is not None and self.cache.put(
            key, self.kind, self.model, text
        ):
            self.counts.stored += 1
            return True
        self.counts.unsaved += 1
        return False

    def describe(self) -> dict[str, Any]:
        return self.inner.describe()

    def __getattr__(self, name: str) -> Any:
        """Whatever else the backend offers (its preflight, its own conversation layout, its
        run name) is the wrapped backend's: the cache changes only where replies come from.
        (`models.base.unwrapped` is what the runner's protocol checks use.)"""
        if name == "inner":  # not set yet (copying, unpickling)
            raise AttributeError(name)
        return getattr(self.inner, name)

    def run_summary(self) -> dict[str, Any]:
        """Merged into the run's summary (model.json run log, the printed line)."""
        return {"cache": self.counts.summary()}

    async def aclose(self) -> None:
        try:
            await self.inner.aclose()
        finally:
            if self.keeps_raw:
                self.inner.use_raw_store(None)  # type: ignore[attr-defined]
            if self.cache is not None:
                self.cache.close()


def _json_or_none(record: dict[str, Any]) -> str | None:
    try:
        return json.dumps(record, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError):
        return None


def with_cache(
    backend: Backend,
    model: str,
    settings: CacheSettings,
    *,
    sampling: Sampling | None,
    from_registry: bool,
    endpoints: Sequence[str] | None = None,
    repeat: int | None = None,
) -> Backend:
    """The backend the run uses: wrapped (see the module docstring for when the cache is
    used; a bypassed cache still reports why), or itself with policy `off` and for the
    ground truth. `endpoints` stand for the backend's own in the key (a started server's
    command); `repeat` (`--repeats`: the repeat's index) enters every key, so a repeat is
    answered from its own earlier replies (a resume) and never from another repeat's.

    CacheError when the cache is wanted but its file cannot be opened (or the policy is
    unknown)."""
    policy = cache_policy(settings.policy)
    if policy == "off":
        return backend
    if backend.describe().get("backend") == "ground-truth":
        return backend  # it answers from the case in the request's context, not in the key
    reason = "" if policy == "always" else _auto_bypass(backend, sampling, from_registry)
    if reason:
        return CachedBackend(backend, None, model, reason)
    cache = ResponseCache(settings.folder or default_cache_dir())
    return CachedBackend(backend, cache, model, scope=settings.scope, endpoints=endpoints,
                         repeat=repeat)


def _auto_bypass(backend: Backend, sampling: Sampling | None, from_registry: bool) -> str:
    """Why `auto` leaves the cache out, or ""."""
    kind = str(backend.describe().get("backend", ""))
    if not from_registry or kind in _NEVER_AUTO:
        return (f"the {kind or 'given'} backend is not cached by default "
                "(--cache always to cache it)")
    temperature = effective_temperature(sampling or Sampling(None))
    if temperature is None or temperature > GREEDY_TEMPERATURE:
        shown = "the server's default" if temperature is None else str(temperature)
        return (f"temperature {shown} samples fresh answers (> {GREEDY_TEMPERATURE}); "
                "--cache always to cache them anyway")
    return ""


def effective_temperature(sampling: Sampling) -> float | None:
    """The temperature requests carry (`extra_body` overrides the flag), None when unsent."""
    value = sampling.body_fields().get("temperature")
    return float(value) if isinstance(value, (int, float)) else None

