"""The shape rule every decoder's output must pass before it reaches a checker.

The official evaluator accepts a decoded output only when it is a list whose items are
single-key dicts mapping a function name to a dict of arguments (`[]` included). Decoders
that can produce other shapes (FC results, JSON text) run their output through here.
"""

from __future__ import annotations

from typing import Any

from fcbench.core.model import Call
from fcbench.decode.errors import WRONG_OUTPUT_FORMAT, DecodeError


def is_call_format(decoded: Any) -> bool:
    """True when `decoded` is `[{name: {param: value}}, ...]` (the empty list included)."""
    if type(decoded) is not list:
        return False
    for item in decoded:
        if type(item) is not dict or len(item) != 1:
            return False
        if type(next(iter(item.values()))) is not dict:
            return False
    return True


def calls_from_decoded(decoded: Any) -> list[Call]:
    """Turn the official decoded form into `Call`s, or fail as `decoder_wrong_output_format`."""
    if not is_call_format(decoded):
        raise DecodeError(
            "Did not output in the specified format.", WRONG_OUTPUT_FORMAT, decoded=decoded
        )
    return [Call(name, args) for item in decoded for name, args in item.items()]


def calls_as_decoded(calls: list[Call]) -> list[dict[str, Any]]:
    """The official decoded form of a list of calls, for score files and messages."""
    return [call.as_official() for call in calls]
