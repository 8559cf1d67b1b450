"""`WebSearchAPI`: the web-search environment of the agentic categories (spec §7.1).

fcbench's own implementation of the official class, with its contract (see
`fcbench.envs.multi_turn`): a no-argument constructor, `_load_scenario(config,
long_context=False)` taking the case's `{"show_snippet": bool}`, and the two official
methods with their parameter names, defaults, output shapes and errors:

* `search_engine_query(keywords, max_results=10, region="wt-wt")` -> a list of
  `{"title", "href", "body"}` (no `body` in no-snippet mode), the first `max_results` of the
  engine's organic results, or an error dict. As upstream, the slice and the field reads
  happen after the search, so a `max_results` that cannot slice, or a result without a
  field, raises (`TypeError`, `KeyError('snippet')`), which the executor turns into an
  "Error during execution" result.
* `fetch_url_content(url, mode="raw")` -> `{"content": text}` or an error dict; a URL not
  starting with http:// or https:// raises `ValueError("Invalid URL: ...")` before anything
  is fetched.

Where answers come from (provider, fetcher, record or replay) is not the class's business:
it takes the run's `WebServices` (`services.current()`) when created. Its only compared state
is `show_snippet`, as upstream; the services are private.
"""

from __future__ import annotations

import copy
from typing import Any

from fcbench.envs.web_search.failure import ToolFailure
from fcbench.envs.web_search.services import WebServices, current

__all__ = ["WebSearchAPI"]


class WebSearchAPI:
    """Search the web and read pages (the official class's behaviour, pluggable services)."""

    performs_io = True
    """Its calls fetch pages or compute embeddings: the loop runs them in a thread."""

    def __init__(self) -> None:
        self.show_snippet = True
        self._services: WebServices = current()
        self._tool_failures: list[str] = []
        """Reasons of this case's calls that failed (`failure.ToolFailure`): the runner
        records the case as errored, to be asked again."""

    def _load_scenario(self, initial_config: dict[str, Any], long_context: bool = False) -> None:
        """`initial_config` is the case's `{"show_snippet": bool}` (long context plays no
        part: the parameter is the contract's)."""
        self.show_snippet = initial_config["show_snippet"]

    def __deepcopy__(self, memo: dict[int, Any]) -> WebSearchAPI:
        """State snapshots copy the instance: the copy shares the run's services (locks and
        records are not copied)."""
        clone = WebSearchAPI.__new__(WebSearchAPI)
        for name, value in vars(self).items():
            setattr(clone, name, value if name == "_services" else copy.deepcopy(value, memo))
        return clone

    def search_engine_query(
        self, keywords: str, max_results: int | None = 10, region: str | None = "wt-wt"
    ) -> list[dict[str, Any]] | dict[str, Any]:
        """Search the engine for the keywords in a region (`wt-wt`: no region)."""
        answer = self._services.search(keywords, max_results, region)
        if isinstance(answer, dict):
            return self._noted(answer)  # an error
        results = []
        for result in answer[:max_results]:
            if self.show_snippet:
                results.append(
                    {"title": result["title"], "href": result["link"], "body": result["snippet"]}
                )
            else:
                results.append({"title": result["title"], "href": result["link"]})
        return results

    def fetch_url_content(self, url: str, mode: str = "raw") -> dict[str, Any]:
        """A page's content: `raw` HTML, `markdown`, or `truncate` (visible text only)."""
        if not url.startswith(("http://", "https://")):
            raise ValueError(f"Invalid URL: {url}")
        return self._noted(self._services.fetch(url, mode))

    def _noted(self, answer: dict[str, Any]) -> dict[str, Any]:
        if isinstance(answer, ToolFailure):
            self._tool_failures.append(answer.reason)
        return answer
