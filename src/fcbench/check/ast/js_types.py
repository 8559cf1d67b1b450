"""JavaScript parameter values: the official regex-driven conversion of source text to values.

Call contract (as the official AST checker uses it), for a JavaScript parameter of doc type T:

1. `JS_TYPE_TO_PYTHON[T]` is the Python type the converted value is type-checked against; a T
   missing from the table is a crash in the official (KeyError), before any conversion.
2. A value that is not a `str` fails `type_error:js` without conversion.
3. When T is `array` (the only JS type among the checker's nested types `Array`, `ArrayList`,
   `array`), the element type is the doc's `items.type` (the official crashes when it is absent
   or not in the table), the call is `convert_js_value(v, "array", items_type)` and the nested
   type check uses `JS_TYPE_TO_PYTHON[items_type]`; otherwise `convert_js_value(v, T)`.

The result is the converted value, or the text when it does not fit T. `ValueError` is raised
for a type outside the table and, as in the official, by `Bigint` text such as `"12n\\n"`
(the pattern accepts the final newline but the number does not parse). Errors inside array
conversion, including an element type outside the table, are swallowed: the stripped text is
returned instead.

Quirks kept: no exponent in floats; arrays and objects are split on every comma with no regard
to nesting or quotes; a pattern `$` also matches before a final newline; objects spanning
several lines do not match and stay text.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from typing import Any

from fcbench.decode.spans import Occurrences, grid_end

JS_TYPE_TO_PYTHON: dict[str, type] = {
    "String": str,
    "integer": int,
    "float": float,
    "Bigint": int,
    "Boolean": bool,
    "dict": dict,
    "array": list,
    "any": str,
}
"""Doc type -> Python type used by the type check after conversion."""

_INTEGER = re.compile(r"^-?\d+$")
_FLOAT = re.compile(r"^-?\d+(\.\d+)?$")
_BIGINT = re.compile(r"^-?\d+n$")

_BRACKETED = re.compile(r"\[(.*?)\]")
# `[..]` (group 1) or `new Array(..)` (group 2); anchored at the start only.
_ARRAY_1D = re.compile(r"\[(.*?)\]|\bnew\s+Array\((.*?)\)")
_OBJECT = re.compile(r"\{(.*?)\}")
# The official member pattern, `([^:]+):\s*(.*?)(?:,\s*(?=[^,]+:)|$)` (findall), rescans the
# rest of the text from every start (60,000 characters without a colon: 96 s); `_members`
# returns its pairs in one pass (tests/check/ast/test_js_types.py keeps it as the oracle).
_SPACES = re.compile(r"\s*")  # anchored, no alternatives: linear


def convert_js_value(value: str, js_type: str, element_type: str | None = None) -> Any:
    """Convert JavaScript source text by doc type; unmatched text is returned as it is."""
    if js_type not in JS_TYPE_TO_PYTHON:
        raise ValueError(f"Unsupported type: {js_type}")
    if js_type == "String":
        return _unquote_once(value)
    if js_type == "integer":
        return int(value) if _INTEGER.match(value) else value
    if js_type == "float":
        return float(value) if _FLOAT.match(value) else value
    if js_type == "Bigint":
        return int(value[:-1]) if _BIGINT.match(value) else value
    if js_type == "Boolean":
        return value == "true" if value in ("true", "false") else value
    if js_type == "array":
        return _array(value.strip(), element_type)
    if js_type == "dict":
        return _object(value.strip())
    return value  # any


def _unquote_once(text: str) -> str:
    """Drop one pair of outer quotes when both ends carry the same quote character."""
    if (text.startswith('"') and text.endswith('"')) or (
        text.startswith("'") and text.endswith("'")
    ):
        return text[1:-1]
    return text


def _array(code: str, element_type: str | None) -> Any:
    """Array text -> list; on any failure inside, the (stripped) text itself."""
    try:
        grid = grid_end(code)  # a list of bracketed lists, or `new Array([..], [..])`
        if grid is not None:
            return _rows(code[:grid])
        flat = _ARRAY_1D.match(code)
        if flat is None:
            return code
        inner = flat.group(1) if flat.group(1) is not None else flat.group(2)
        inner = (inner or "").strip()
        items = inner.split(",") if inner else []
        return [_array_element(item.strip(), element_type) for item in items]
    except Exception:
        return code


def _rows(grid: str) -> list[list[Any]]:
    """Each `[...]` run becomes a row of guessed literals; the element type is not used."""
    rows: list[list[Any]] = []
    for index, row in enumerate(_BRACKETED.findall(grid)):
        row = row.strip()
        if index == 0 and row.startswith("["):
            # The lazy `[..]` search starts at the outer bracket, so the first row carries it.
            row = row[1:]
        rows.append([_guess_literal(item) for item in row.split(",")])
    return rows


def _array_element(item: str, element_type: str | None) -> Any:
    """Typed elements go through the converter (quoted ones with a String hint); else guessed."""
    if not element_type:
        return _guess_literal(item)
    if item.startswith(("'", '"')):
        return convert_js_value(item, element_type, "String")
    return convert_js_value(item, element_type)


def _object(code: str) -> Any:
    """Object text -> dict of guessed values (arrays and objects recurse), else the text."""
    if code == "{}":
        return {}
    found = _OBJECT.match(code)
    if found is None:
        return code
    try:
        return {
            key.strip().strip("'\""): _object_value(raw.strip())
            for key, raw in _members(found.group(1))
        }
    except Exception:
        return code


def _object_value(raw: str) -> Any:
    """An object member's value: nested array/object text recurses, other text is guessed."""
    if raw.startswith("[") and raw.endswith("]"):
        return _array(raw, None)
    if raw.startswith("{") and raw.endswith("}"):
        return _object(raw)
    return _guess_literal(raw.strip("'\""))


def _guess_literal(text: str) -> Any:
    """Untyped literal: boolean, quoted string, Python int/float, else the text."""
    text = text.strip()
    if text == "true":
        return True
    if text == "false":
        return False
    if (text.startswith('"') and text.endswith('"')) or (
        text.startswith("'") and text.endswith("'")
    ):
        return text[1:-1]
    for number_type in (int, float):
        try:
            return number_type(text)
        except ValueError:
            pass
    return text


def _members(body: str) -> list[tuple[str, str]]:
    """The official member pattern's findall over an object's body (one line: the body pattern
    has no DOTALL): `key: value` pairs, a value ending at a comma whose next member holds a
    colon, or at the end.

    The key runs from a start to the next colon (a start on a colon fails and retries one
    further). The value, after spaces, ends lazily at the first comma that ends a value
    (settled once per comma: from the character after it, a colon comes after one character
    and before the next comma); the match then ends after the spaces following that comma,
    or one space earlier when the look-ahead only holds from there.
    """
    colons, commas = Occurrences(body, ":"), Occurrences(body, ",")
    value_ends = [comma for comma in commas.at if _ends_value(colons, commas, comma)]
    members: list[tuple[str, str]] = []
    position = 0
    while (colon := colons.next(position)) >= 0:
        if colon == position:
            position += 1
            continue
        value = _skip_spaces(body, colon + 1)
        index = bisect_left(value_ends, value)
        if index == len(value_ends):
            members.append((body[position:colon], body[value:]))
            return members
        comma = value_ends[index]
        members.append((body[position:colon], body[value:comma]))
        position = _skip_spaces(body, comma + 1)
        if not _member_follows(colons, commas, position):
            position -= 1  # a space given back: the colon at `position` then counts
    return members


def _ends_value(colons: Occurrences, commas: Occurrences, comma: int) -> bool:
    """Whether `,\\s*(?=[^,]+:)` matches at `comma`: after the comma and any of the spaces
    that follow, a member holding a colon."""
    return _member_follows(colons, commas, comma + 1)


def _member_follows(colons: Occurrences, commas: Occurrences, position: int) -> bool:
    """Whether `[^,]+:` matches at `position`: a colon after its first character, before the
    next comma."""
    colon, comma = colons.next(position + 1), commas.next(position)
    return colon >= 0 and (comma < 0 or colon < comma)


def _skip_spaces(text: str, position: int) -> int:
    match = _SPACES.match(text, position)
    return match.end() if match else position
