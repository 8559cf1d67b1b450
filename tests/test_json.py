"""fcbench._json.loads: the same value or the same exception as json.loads."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from fcbench import _json as fast_json

_JSON_PIECES = [
    '{"a": 1}',
    "[1, 2]",
    '"x"',
    "1e5",
    "NaN",
    "-Infinity",
    " ",
    "\n",
    "\t",
    "\r",
    "\ufeff",
    "{",
    "}",
    "]",
    ",",
    ":",
    "true",
    "null",
    '"\\u00e9"',
    '"\\ud800"',
    "01",
    "1.",
    "\x00",
    "\u2028",
    "\xa0",
    '"a\nb"',
]


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(_JSON_PIECES) | st.text(max_size=4), max_size=6).map("".join))
def test_loads_is_exactly_json_loads(text: str) -> None:
    def outcome(loads: Any) -> Any:
        try:
            return ("value", repr(loads(text)))
        except (ValueError, RecursionError) as exc:
            return ("error", type(exc).__name__, str(exc))

    assert outcome(fast_json.loads) == outcome(json.loads)
