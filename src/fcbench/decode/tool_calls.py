"""FC-mode decoding: the tool calls an API returned -> calls.

An FC result file stores a list of `{function_name: arguments}` items; the arguments are the
JSON string the API sent (`json_string`, OpenAI-style) or an already-parsed object (`object`,
Gemini-style). When the model answered with text instead of calls, the result is that text.
The official handlers decode these differently, and a text answer fails in different ways
under each encoding; both are reproduced here.
"""

from __future__ import annotations

from enum import Enum
from typing import Any

from fcbench import _json as fast_json
from fcbench.core.model import Call
from fcbench.decode.calls import calls_from_decoded
from fcbench.decode.errors import DecodeError


class ArgsEncoding(str, Enum):
    JSON_STRING = "json_string"
    OBJECT = "object"


def decode_tool_calls(result: Any, encoding: ArgsEncoding = ArgsEncoding.JSON_STRING) -> list[Call]:
    """Decode an FC result; raises DecodeError as the official FC handlers would fail."""
    try:
        decoded = _decode(result, encoding)
    except DecodeError:
        raise
    except (Exception, RecursionError) as exc:
        raise DecodeError(str(exc)) from None  # checkers add the official prefix
    return calls_from_decoded(decoded)


def _decode(result: Any, encoding: ArgsEncoding) -> Any:
    if encoding is ArgsEncoding.OBJECT:
        # Object-style handlers pass the result through, wrapping a lone value in a list.
        return result if type(result) is list else [result]
    if isinstance(result, (str, list, tuple, dict)):
        return [_json_string_item(item) for item in result]
    raise DecodeError(f"'{type(result).__name__}' object is not iterable")


def _json_string_item(item: Any) -> dict[str, Any]:
    """`{name: "<json args>"}` -> `{name: args}`, failing where the official handler raises.

    The official handler takes the item's first key and json-decodes its value; a text answer
    is iterated character by character, so its first character fails here (no `.keys()`).
    """
    if not isinstance(item, dict):
        raise DecodeError(f"'{type(item).__name__}' object has no attribute 'keys'")
    if not item:
        raise DecodeError("list index out of range")
    name = next(iter(item))
    arguments = item[name]
    if not isinstance(arguments, (str, bytes, bytearray)):
        raise DecodeError(
            f"the JSON object must be str, bytes or bytearray, not {type(arguments).__name__}"
        )
    return {name: fast_json.loads(arguments)}
