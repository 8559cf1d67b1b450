"""The web services a run's `WebSearchAPI` instances use: search provider, page fetcher, record.

Why an object set per run rather than constructor arguments: the environment contract is a
no-argument constructor (the runner and the checkers create every class the same way), yet a
run decides which provider answers, whether answers are recorded, or whether a record is
replayed. So the run sets a `WebServices` once, `configure(services)` (process-wide) or
`with use(services):` (this thread or task and what it starts, e.g. `asyncio.to_thread`), and
each `WebSearchAPI` takes the current one when it is created. Without either, the services
of `DEFAULT_PROVIDER` are used (created on first use, no network until a call).

Modes, from `create(provider, record_dir)`:

* live (`serpapi` or `ddgs`, no record): every call asks the provider or the site;
* record (`serpapi` or `ddgs` with a record folder): every answer is recorded; a request
  already in the record is answered from it (the first answer stays the answer), so a run
  and its replay see exactly the same, and paid searches are not repeated;
* replay (`replay` with a record folder): answers come only from the record; a request it
  does not hold gets the official error-dict shape with a message saying so.
"""

from __future__ import annotations

import contextlib
import contextvars
import logging
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fcbench.envs.web_search.failure import ToolFailure
from fcbench.envs.web_search.pages import PageFetcher
from fcbench.envs.web_search.providers import (
    DdgsProvider,
    SearchAnswer,
    SearchProvider,
    SerpApiProvider,
)
from fcbench.envs.web_search.record import RequestKey, WebRecord, request_key

__all__ = [
    "COMPARABLE_PROVIDER",
    "DEFAULT_PROVIDER",
    "KEY_VARIABLES",
    "PROVIDERS",
    "WebSearchError",
    "WebServices",
    "configure",
    "create",
    "current",
    "use",
]

PROVIDERS = ("serpapi", "ddgs", "replay")
KEY_VARIABLES = {"serpapi": "SERPAPI_API_KEY"}
"""The providers that need an API key, and the variable it is read from."""
DEFAULT_PROVIDER = "serpapi"
COMPARABLE_PROVIDER = "serpapi"
"""The official provider: only its answers make scores comparable with the leaderboard."""

COUNTS = ("live", "from_record", "missing", "unrecorded", "failed")
"""What `describe` counts: answers asked live, served from the record, missing from it
(replay), live answers the record could not store (a full or read-only disk), and live calls
that failed (`failure.ToolFailure`: never recorded, counted by reason too)."""

SEARCH = "search_engine_query"
FETCH = "fetch_url_content"

_log = logging.getLogger("fcbench.web")


class WebSearchError(ValueError):
    """A provider name, option or record folder that cannot be used (one-line message)."""


@dataclass
class WebServices:
    """Where a run's searches and pages come from, and where they are recorded."""

    provider: SearchProvider | None
    fetcher: PageFetcher | None
    record: WebRecord | None = None
    counts: Counter[str] = field(default_factory=Counter)
    failures: Counter[str] = field(default_factory=Counter)
    """Failed live calls by reason."""
    _guard: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _pending: dict[str, threading.Lock] = field(default_factory=dict, repr=False)

    @property
    def mode(self) -> str:
        if self.provider is None:
            return "replay"
        return "record" if self.record is not None else "live"

    @property
    def provider_name(self) -> str:
        return self.provider.name if self.provider is not None else "replay"

    # ------------------------------------------------------------------ the two services

    def search(self, keywords: Any, max_results: Any, region: Any) -> SearchAnswer:
        """Organic results (SerpAPI field names) or an error dict, for the environment."""
        key = request_key(SEARCH, {"keywords": keywords, "max_results": max_results,
                                   "region": region})
        return self._answer(
            key, lambda p: p.search(keywords, max_results, region),
            lambda root: f"No recorded answer for this search in the web record {root} "
                         "(replay); search results cannot be fetched in replay.",
        )

    def fetch(self, url: Any, mode: Any) -> dict[str, Any]:
        """`{"content": ...}` or the official error dict."""
        key = request_key(FETCH, {"url": url, "mode": mode})
        answer: dict[str, Any] = self._answer(
            key, lambda _: self._live_fetch(url, mode),
            lambda root: f"An error occurred while fetching {url}: the page is not in the web "
                         f"record {root} (replay); pages cannot be fetched in replay.",
        )
        return answer

    def _live_fetch(self, url: Any, mode: Any) -> dict[str, Any]:
        assert self.fetcher is not None
        return self.fetcher.fetch(url, mode)

    def _answer(
        self,
        key: RequestKey,
        live: Callable[[SearchProvider], Any],
        miss: Callable[[Path | str], str],
    ) -> Any:
        """From the record when it holds the request; else live (and recorded), or in
        replay the error dict `miss` words for the record folder."""
        if self.provider is None:  # replay
            found, answer = self._recorded(key)
            if found:
                return answer
            self._count("missing")
            root = self.record.root if self.record is not None else "(none)"
            return {"error": miss(root)}
        if self.record is None:
            self._count("live")
            return self._failed_or(live(self.provider))
        with self._pending_lock(key):  # one live request per key at a time
            found, answer = self._recorded(key)
            if found:
                return answer
            self._count("live")
            answer = self._failed_or(live(self.provider))
            if isinstance(answer, ToolFailure):
                return answer  # not an answer to replay: the next run asks again
            try:
                self.record.put(key, answer, self.provider.name)
            except OSError as exc:  # the model still gets its answer; the run says so
                self._count("unrecorded")
                _log.error("web record %s: cannot record an answer (%s)", self.record.root, exc)
            return answer

    def _failed_or(self, answer: Any) -> Any:
        """The answer; a failure is counted by reason on the way."""
        if isinstance(answer, ToolFailure):
            with self._guard:
                self.counts["failed"] += 1
                self.failures[answer.reason] += 1
        return answer

    def _recorded(self, key: RequestKey) -> tuple[bool, Any]:
        if self.record is None:
            return False, None
        found, answer = self.record.get(key)
        if found:
            self._count("from_record")
        return found, answer

    def _count(self, what: str) -> None:
        with self._guard:
            self.counts[what] += 1

    @contextlib.contextmanager
    def _pending_lock(self, key: RequestKey) -> Iterator[None]:
        with self._guard:
            lock = self._pending.setdefault(key.text, threading.Lock())
        with lock:
            yield

    # ------------------------------------------------------------------ for the run

    def check(self) -> None:
        """Raise WebSearchError if a call could not be answered (no key, a missing extra);
        a run calls this before its first case, so that it fails at once, not case by case."""
        problems = [self.provider.check() if self.provider is not None else None,
                    self.fetcher.check() if self.fetcher is not None else None]
        problem = next((p for p in problems if p), None)
        if problem:
            raise WebSearchError(problem)

    def describe(self) -> dict[str, Any]:
        """Who answered, for result and score headers and the table.

        `comparable` is true only when every answer came from SerpAPI (live, or replayed
        from a record made with it, with no request missing from it) and no call failed
        (the cases that met a failure are errored, asked again by the next run, which is
        comparable once none fails).
        """
        recorded = self.record.providers() if self.record is not None else {}
        only_serpapi = set(recorded) <= {COMPARABLE_PROVIDER}
        if self.provider is None:
            comparable = bool(recorded) and only_serpapi and not self.counts["missing"]
        else:
            comparable = self.provider.name == COMPARABLE_PROVIDER and only_serpapi
        return {
            "provider": self.provider_name,
            "mode": self.mode,
            "record_dir": str(self.record.root) if self.record is not None else None,
            "recorded_providers": recorded,
            "comparable": comparable and not self.counts["failed"],
            "counts": {k: self.counts[k] for k in COUNTS},
            "failures": dict(self.failures.most_common()),
        }


def create(
    provider: str = DEFAULT_PROVIDER,
    record_dir: Path | str | None = None,
    *,
    allow_private: bool = False,
    **options: Any,
) -> WebServices:
    """The services for a provider name (`serpapi`, `ddgs`, `replay`), optionally recording.

    `allow_private` lets pages on loopback and private addresses be fetched (`pages`: refused
    by default). `options` go to the provider (e.g. `api_key`, `max_wait` for serpapi; `backend` for
    ddgs). Raises WebSearchError for an unknown name or an unusable record folder; does not
    check keys or packages (see `WebServices.check`).
    """
    from fcbench.envs.web_search.record import RecordError

    if provider not in PROVIDERS:
        raise WebSearchError(
            f"unknown web search provider {provider!r}; choose one of {', '.join(PROVIDERS)}"
        )
    try:
        if provider == "replay":
            if record_dir is None:
                raise WebSearchError("the replay provider needs a web record folder")
            return WebServices(None, None, WebRecord(record_dir, create=False))
        record = WebRecord(record_dir) if record_dir is not None else None
    except RecordError as exc:
        raise WebSearchError(str(exc)) from None
    chosen: SearchProvider = (
        SerpApiProvider(**options) if provider == "serpapi" else DdgsProvider(**options)
    )
    return WebServices(chosen, PageFetcher(allow_private=allow_private), record)


_configured: WebServices | None = None
_override: contextvars.ContextVar[WebServices | None] = contextvars.ContextVar(
    "fcbench_web_services", default=None
)
_default_lock = threading.Lock()


def configure(services: WebServices | None) -> None:
    """Set the process-wide services (None: back to the default provider)."""
    global _configured
    _configured = services


@contextlib.contextmanager
def use(services: WebServices) -> Iterator[WebServices]:
    """Use these services in this context only (a thread, a task, a test)."""
    token = _override.set(services)
    try:
        yield services
    finally:
        _override.reset(token)


def current() -> WebServices:
    """The services a new `WebSearchAPI` gets: `use`'s, else `configure`'s, else the default."""
    global _configured
    services = _override.get() or _configured
    if services is None:
        with _default_lock:
            if _configured is None:
                _configured = create(DEFAULT_PROVIDER)
            services = _configured
    return services
