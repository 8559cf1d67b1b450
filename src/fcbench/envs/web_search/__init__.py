"""The web-search environment of the agentic categories, and where its answers come from.

`WebSearchAPI` (in `api`) is the official class's behaviour; `WebServices` (in `services`)
says which search provider answers (`serpapi`, the official; `ddgs`, keyless; `replay`, from
a record), fetches pages, and records every answer so a run can be replayed offline. A run
sets its services with `configure(create(provider, record_dir))` or `with use(...)`, checks
them with `.check()`, and shows `.describe()` in its headers.

`WEB_CLASSES` maps the official class name to its implementation, in the form of
`fcbench.envs.multi_turn.CLASSES`, for the scenario set to include. Importing this package
does not import `requests`, `html2text`, `bs4` or `ddgs` (the `web` extra).
"""

from __future__ import annotations

from fcbench.envs.web_search.services import (
    COMPARABLE_PROVIDER,
    DEFAULT_PROVIDER,
    PROVIDERS,
    WebSearchError,
    WebServices,
    configure,
    create,
    current,
    use,
)

WEB_CLASSES: dict[str, str] = {"WebSearchAPI": "fcbench.envs.web_search.api:WebSearchAPI"}

__all__ = [
    "COMPARABLE_PROVIDER",
    "DEFAULT_PROVIDER",
    "PROVIDERS",
    "WEB_CLASSES",
    "WebSearchError",
    "WebServices",
    "configure",
    "create",
    "current",
    "use",
]
