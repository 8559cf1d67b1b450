"""Search providers: who answers `search_engine_query`.

A provider turns (keywords, max_results, region) into the search engine's organic results,
each a dict in SerpAPI's field names (`title`, `link`, `snippet`; a field the engine did not
give is absent), or into an error dict `{"error": message}`. The environment then applies
the official conversion (first `max_results` items, `href`/`body` names, snippets dropped in
no-snippet mode), the same for every provider, so records made through any provider replay
alike.

* `serpapi`: the official provider, DuckDuckGo through SerpAPI (`SERPAPI_API_KEY`): the
  only one whose answers are comparable with the leaderboard. HTTP 429 (raised, or in the
  payload) is retried as upstream does (jittered exponential backoff from 2 s, doubling,
  capped at 120 s), but only until `max_wait` seconds have been spent waiting, where
  upstream waits forever; then the call answers an error dict saying so.
* `ddgs`: keyless, through the `ddgs` package (its DuckDuckGo backend by default). Results
  differ from SerpAPI's: fine for trying a model out, not for comparing with the leaderboard.
"""

from __future__ import annotations

import json
import os
import random
import time
from collections.abc import Callable
from typing import Any, Protocol

from fcbench import redact
from fcbench.envs.web_search.extra import missing
from fcbench.envs.web_search.failure import ToolFailure, failure_reason, is_transient

__all__ = [
    "NO_RESULTS_ERROR",
    "DdgsProvider",
    "SearchAnswer",
    "SearchProvider",
    "SerpApiProvider",
]

SearchAnswer = Any
"""A list of result dicts (SerpAPI field names), or an error dict."""

NO_RESULTS_ERROR = "Failed to retrieve the search results from server. Please try again later."
"""The official error when an answer has no organic results."""

RESULT_FIELDS = ("title", "link", "snippet")

_log = redact.guarded_logger("fcbench.web")  # the logger record.py, services.py use


class SearchProvider(Protocol):
    name: str

    def search(self, keywords: Any, max_results: Any, region: Any) -> SearchAnswer: ...

    def check(self) -> str | None:
        """Why the provider cannot answer here (no key, a missing package), or None."""
        ...


def slim(item: Any) -> Any:
    """Only the fields the environment reads (SerpAPI sends a dozen more per result)."""
    if not isinstance(item, dict):
        return item
    return {key: item[key] for key in RESULT_FIELDS if key in item}


class SerpApiProvider:
    """DuckDuckGo results through SerpAPI, the official way (see the module docstring)."""

    name = "serpapi"
    ENDPOINT = "https://serpapi.com"

    def __init__(
        self,
        api_key: str | None = None,
        *,
        endpoint: str | None = None,
        timeout: float = 60.0,
        max_wait: float = 600.0,
        sleep: Callable[[float], None] = time.sleep,
        jitter: Callable[[float, float], float] = random.uniform,
        get: Callable[..., Any] | None = None,
    ) -> None:
        """`api_key` defaults to `$SERPAPI_API_KEY`; `endpoint`, `sleep`, `jitter` and `get`
        (`requests.get`'s signature) exist for tests and proxies."""
        self.api_key = api_key if api_key is not None else os.environ.get("SERPAPI_API_KEY")
        redact.add_secret(self.api_key)  # a key passed in is masked like the variable's
        self.endpoint = (endpoint or self.ENDPOINT).rstrip("/")
        self.timeout = timeout
        self.max_wait = max_wait
        self._sleep = sleep
        self._jitter = jitter
        self._get = get

    def check(self) -> str | None:
        if not self.api_key:
            return "the serpapi search provider needs an API key: set SERPAPI_API_KEY"
        return missing("the serpapi search provider", "requests") if self._get is None else None

    def search(self, keywords: Any, max_results: Any, region: Any) -> SearchAnswer:
        """The organic results, or the error dict upstream would give (never raises)."""
        params = {"engine": "duckduckgo", "q": keywords, "kl": region,
                  "api_key": self.api_key, "output": "json", "source": "python"}
        backoff, waited = 2.0, 0.0
        while True:
            try:
                payload = self._request(params)
            except Exception as exc:  # its text names the URL, `api_key=` included
                problem = redact.text(str(exc))
                if "429" not in problem:
                    _log.warning("SerpAPI error (not retried): %s", problem)
                    return ToolFailure(problem, failure_reason("SerpAPI", exc))
            else:
                if not ("error" in payload and "429" in str(payload["error"])):
                    break
                problem = redact.text(str(payload["error"]))
            wait = backoff + self._jitter(0, backoff)
            if waited + wait > self.max_wait:
                return ToolFailure(f"SerpAPI kept answering 429 (rate limit) for {waited:.0f} s; "
                                   f"giving up: {problem}", "SerpAPI rate limit (429)")
            _log.warning("SerpAPI answered 429 (rate limit or searches used up); "
                         "retrying in %.1f s", wait)
            self._sleep(wait)
            waited += wait
            backoff = min(backoff * 2, 120.0)
        if "organic_results" not in payload:
            error = payload.get("error")
            if error and not _no_results(str(error)):  # the key, the quota, the service
                return ToolFailure(NO_RESULTS_ERROR, f"SerpAPI error: {str(error)[:80]}")
            return {"error": NO_RESULTS_ERROR}
        results = payload["organic_results"]
        if not isinstance(results, list):  # never seen; upstream would fail slicing it
            return {"error": NO_RESULTS_ERROR}
        return [slim(item) for item in results]

    def _request(self, params: dict[str, Any]) -> dict[str, Any]:
        """One GET of the search endpoint, as the official client makes it (no status check:
        SerpAPI puts its errors in the JSON body)."""
        get = self._get
        if get is None:
            import requests

            get = requests.get
        response = get(f"{self.endpoint}/search", params, timeout=self.timeout)
        return dict(json.loads(response.text))


class DdgsProvider:
    """Keyless search through the `ddgs` package (see the module docstring)."""

    name = "ddgs"

    def __init__(
        self,
        backend: str = "duckduckgo",
        timeout: int = 20,
        client: Callable[..., Any] | None = None,
    ) -> None:
        """`client` builds the search object (`ddgs.DDGS` by default; tests pass a fake)."""
        self.backend = backend
        self.timeout = timeout
        self._client = client

    def check(self) -> str | None:
        return missing("the ddgs search provider", "ddgs") if self._client is None else None

    def search(self, keywords: Any, max_results: Any, region: Any) -> SearchAnswer:
        count = max_results if type(max_results) is int and max_results > 10 else 10
        try:
            client = self._client
            if client is None:
                from ddgs import DDGS

                client = DDGS
            found = client(timeout=self.timeout).text(
                str(keywords), region=str(region), max_results=count, backend=self.backend
            )
        except Exception as exc:  # ddgs raises for no results, rate limits and timeouts
            message = redact.text(str(exc)) or NO_RESULTS_ERROR
            if is_transient(exc):
                return ToolFailure(message, failure_reason("ddgs", exc))
            return {"error": message}
        return [_from_ddgs(item) for item in found]


def _no_results(error: str) -> bool:
    """SerpAPI's error for a search that found nothing: an answer, not a failure."""
    return "hasn't returned any results" in error or "no results" in error.lower()


def _from_ddgs(item: Any) -> Any:
    """A ddgs result (`title`, `href`, `body`) in SerpAPI's field names."""
    if not isinstance(item, dict):
        return item
    names = {"title": "title", "href": "link", "body": "snippet"}
    return {names[key]: value for key, value in item.items() if key in names}
