"""The filler data that long-context multi-turn cases add to the environments.

The official backends pad their state with large constant tables (file text, filler file
names, watch lists, credit cards, ...). fcbench never retypes that data: the data layer
extracts it from the official source at fetch time into `constants.json` under the key
`"long_context"`, and this module serves it from there, read once per process and release
(an environment is told its case's release by `_load_scenario(..., release=...)`).

Values are shared, like the official module-level constants: an environment that stores a
table in its own state must copy it if it will mutate it (the official code decides, case
by case, whether it copies; the environments reproduce that choice).

Access by `value("NAME")`, or as a module attribute (`long_context.FILES_TAIL_USED`).
"""

from __future__ import annotations

import threading
from typing import Any

from fcbench.dataset.literals import ELLIPSIS_JSON

_LOCK = threading.Lock()
_CACHE: dict[str, dict[str, Any]] = {}


def _decode(node: Any) -> Any:
    """Turn the JSON stand-in for a Python `...` back into `Ellipsis`, recursively.

    JSON cannot hold `Ellipsis`, but the official watch-list filler ends with one and it is
    visible (as the text `Ellipsis`) in outputs that list the watch list.
    """
    if isinstance(node, dict):
        if node == ELLIPSIS_JSON:
            return ...
        return {key: _decode(item) for key, item in node.items()}
    if isinstance(node, list):
        return [_decode(item) for item in node]
    return node


def raw_tables(release: str | None = None) -> dict[str, Any]:
    """A freshly parsed copy of a release's tables, as stored (`Ellipsis` still in its JSON
    stand-in): for environments that keep their own copy, e.g. to share and mutate it."""
    from fcbench.dataset.fetch import DEFAULT_RELEASE, load_constants

    tables: dict[str, Any] = load_constants(release or DEFAULT_RELEASE)["long_context"]
    return tables


def tables(release: str | None = None) -> dict[str, Any]:
    """A release's tables (default: the newest known), decoded, read once per process."""
    from fcbench.dataset.fetch import DEFAULT_RELEASE

    key = release or DEFAULT_RELEASE
    with _LOCK:
        if key not in _CACHE:
            raw = raw_tables(key)
            _CACHE[key] = {n: _decode(v) for n, v in raw.items() if not n.startswith("_")}
        return _CACHE[key]


def value(name: str, release: str | None = None) -> Any:
    """The named filler table (KeyError when the release has no such table)."""
    return tables(release)[name]


def names(release: str | None = None) -> list[str]:
    """Every table name available in the fetched release."""
    return sorted(tables(release))


def __getattr__(name: str) -> Any:
    """Module attributes resolve lazily so importing this module needs no fetched data."""
    if name.startswith("__"):
        raise AttributeError(name)
    try:
        return value(name)
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
