"""The filler data that long-context multi-turn cases add to the environments.

The official backends pad their state with large constant tables (file text, filler file
names, watch lists, credit cards, ...). fcbench never retypes that data: the data layer
extracts it from the official source at fetch time into `constants.json` under the key
`"long_context"`, and this module serves it from there, read once per process.

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
_CACHE: dict[str, Any] | None = None


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


def _load() -> dict[str, Any]:
    """Read the tables from the fetched release once; later calls reuse them."""
    global _CACHE
    with _LOCK:
        if _CACHE is None:
            from fcbench.dataset.fetch import load_constants

            raw = load_constants()["long_context"]
            _CACHE = {name: _decode(item) for name, item in raw.items() if not name.startswith("_")}
        return _CACHE


def value(name: str) -> Any:
    """The named filler table (KeyError when the release has no such table)."""
    return _load()[name]


def names() -> list[str]:
    """Every table name available in the fetched release."""
    return sorted(_load())


def __getattr__(name: str) -> Any:
    """Module attributes resolve lazily so importing this module needs no fetched data."""
    if name.startswith("__"):
        raise AttributeError(name)
    try:
        return value(name)
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
