"""Tagged JSON for values crossing the sandbox boundary (worker -> parent).

Results must keep their Python types (the checker compares `type()`s and `==`): tuples stay
tuples, dict keys keep their types, big integers survive (decimal text of more than 4300
digits is refused by Python, so integers travel in hex), and a `rest` response keeps its
status and body. Plain JSON cannot say all that, and pickles would let the worker make the
parent build arbitrary objects; these few tags can only build plain values.
"""

from __future__ import annotations

import math
from typing import Any

from fcbench.envs.exec_functions.backends import HttpResponse

MAX_DEPTH = 200


class WireError(ValueError):
    """A value that cannot cross (too deep, or an unknown tag)."""


def encode(value: Any, depth: int = 0) -> Any:
    """A JSON-ready form of `value`."""
    if depth > MAX_DEPTH:
        raise WireError("result nested too deeply")
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return value if abs(value) < 2**53 else {"$int": hex(value)}
    if isinstance(value, float):
        return value if math.isfinite(value) else {"$float": repr(value)}
    if isinstance(value, list):
        return [encode(v, depth + 1) for v in value]
    if isinstance(value, tuple):
        return {"$tuple": [encode(v, depth + 1) for v in value]}
    if isinstance(value, dict):
        return {"$dict": [[encode(k, depth + 1), encode(v, depth + 1)] for k, v in value.items()]}
    return _encode_other(value, depth)


def _encode_other(value: Any, depth: int) -> Any:
    if isinstance(value, complex):
        return {"$complex": [encode(value.real), encode(value.imag)]}
    if isinstance(value, (set, frozenset)):
        return {"$set": [encode(v, depth + 1) for v in value]}
    if isinstance(value, HttpResponse):
        return {"$response": [value.status_code, value.text]}
    if isinstance(value, bytes):
        return {"$bytes": value.hex()}
    return {"$repr": repr(value)[:10_000]}


def decode(data: Any) -> Any:
    """The value `encode` described."""
    if isinstance(data, list):
        return [decode(v) for v in data]
    if not isinstance(data, dict):
        return data
    if len(data) != 1:
        raise WireError("malformed tagged value")
    tag, body = next(iter(data.items()))
    return _decode_tag(tag, body)


def _decode_tag(tag: str, body: Any) -> Any:
    if tag == "$int":
        return int(body, 16)
    if tag == "$float":
        return float(body)
    if tag == "$tuple":
        return tuple(decode(v) for v in body)
    if tag == "$dict":
        return {_hashable(decode(k)): decode(v) for k, v in body}
    if tag == "$complex":
        return complex(decode(body[0]), decode(body[1]))
    if tag == "$set":
        return {_hashable(decode(v)) for v in body}
    if tag == "$response":
        return HttpResponse(int(body[0]), str(body[1]))
    if tag == "$bytes":
        return bytes.fromhex(body)
    if tag == "$repr":
        return str(body)
    raise WireError(f"unknown tag {tag!r}")


def _hashable(key: Any) -> Any:
    if isinstance(key, (list, dict, set)):
        raise WireError("unhashable key")
    return key
