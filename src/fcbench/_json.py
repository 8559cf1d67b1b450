"""`json.loads` for str input without its Python-level wrapping.

Result files and FC arguments mean tens of thousands of small `json.loads` calls per
evaluation, and for short texts the wrapping (whitespace regexes, type checks, decoder
dispatch) costs as much as the parsing. `loads` calls the C scanner `json.loads` uses; any
input it does not settle (bytes, a BOM, damage) goes to `json.loads` itself, which then
raises its usual error.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

_SCAN: Callable[[str, int], tuple[Any, int]] = json.JSONDecoder().scan_once  # type: ignore[attr-defined]
_SPACE = " \t\n\r"  # JSON whitespace, what json.loads skips around the value


class RawJSON(str):
    """A value that is already JSON text (e.g. a case's prompt, serialised once and reused
    for every model that fails the case); writers put it in as is."""

    __slots__ = ()


def loads(text: str | bytes | bytearray) -> Any:
    """Exactly `json.loads(text)`: the same value, or the same exception."""
    if type(text) is str:
        stripped = text.strip(_SPACE)
        try:
            value, end = _SCAN(stripped, 0)
        except (StopIteration, ValueError):
            pass
        else:
            if end == len(stripped):
                return value
    return json.loads(text)
