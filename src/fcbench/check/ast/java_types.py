"""Java parameter values: the official regex-driven conversion of source text to Python values.

Call contract (as the official AST checker uses it), for a Java parameter whose doc type is T:

1. `JAVA_TYPE_TO_PYTHON[T]` is the Python type the converted value is type-checked against;
   a T missing from the table is a crash in the official (KeyError), before any conversion.
2. A value that is not a `str` fails `type_error:java` without conversion.
3. When T is in `NESTED_CONVERSION_TYPES` (`Array`, `ArrayList`, `array`), the element type is
   the doc's `items.type` (the official crashes when it is absent or not in the table) and the
   call is `convert_java_value(v, T, items_type)`, the nested type check using
   `JAVA_TYPE_TO_PYTHON[items_type]`; otherwise the call is `convert_java_value(v, T)`.

The result is the converted value, or the input string unchanged when the text does not match
the pattern for T (which then normally fails the type check). Errors raised, like the official:

* `ValueError` for a type (or element type) outside the table, and for `array`, which is in the
  checker's nested list but not in the Java table (so the checker crashes on it first);
* `NotImplementedError` for `Set`, `Hashtable`, `Queue` and `Stack` (absent from the data).

Quirks kept: `long` needs an `L` suffix and `float` an `f` suffix; the `char` pattern can never
match, so char values stay as written; `String` elements of an `Array` keep their double quotes;
`ArrayList` elements typed `char`/`String` lose their first and last character, whatever those
are; `$` in the patterns also matches before a final newline, so `"12\\n"` is an integer.
"""

from __future__ import annotations

import re
from typing import Any

JAVA_TYPE_TO_PYTHON: dict[str, type] = {
    "byte": int,
    "short": int,
    "integer": int,
    "float": float,
    "double": float,
    "long": int,
    "boolean": bool,
    "char": str,
    "Array": list,
    "ArrayList": list,
    "Set": set,
    "HashMap": dict,
    "Hashtable": dict,
    "Queue": list,
    "Stack": list,
    "String": str,
    "any": str,
}
"""Doc type -> Python type used by the type check after conversion."""

NESTED_CONVERSION_TYPES = frozenset({"Array", "ArrayList", "array"})
"""Doc types for which the checker passes the doc's `items.type` as element type."""

# Every pattern is used with re.match, whose `$` also accepts a single trailing newline.
_WHOLE_NUMBER = re.compile(r"^-?\d+$")
_LONG = re.compile(r"^-?\d+[lL]$")
_LONG_SUFFIX = re.compile(r"[lL]$")
_DECIMAL = r"-?\d+(\.\d+)?([eE][+-]?\d+)?"
_FLOAT = re.compile(rf"^{_DECIMAL}[fF]$")
_FLOAT_SUFFIX = re.compile(r"[fF]$")
_DOUBLE = re.compile(rf"^{_DECIMAL}$")

_ARRAY = re.compile(r"new\s+\w+\[\]\s*\{(.*?)\}")
_ARRAYLIST_AS_LIST = re.compile(r"new\s+ArrayList<\w*>\(Arrays\.asList\((.+?)\)\)")
_ARRAYLIST_ADDS = re.compile(r"new\s+ArrayList<\w*>\(\)\s*\{\{\s*(.+?)\s*\}\}", re.DOTALL)
_ADD_CALL = re.compile(r"add\((.+?)\)")
_ARRAYLIST_EMPTY = re.compile(r"new\s+ArrayList<\w*>\(\)")
_HASHMAP_PUTS = re.compile(r"new\s+HashMap<.*?>\s*\(\)\s*\{\s*\{?\s*(.*?)\s*\}?\s*\}", re.DOTALL)
_PUT_CALL = re.compile(r"put\(\"(.*?)\",\s*(.*?)\)")
_HASHMAP_EMPTY = re.compile(r"new\s+HashMap<.*?>\s*\(\)")

_UNCONVERTED = frozenset({"Set", "Hashtable", "Queue", "Stack"})


def convert_java_value(value: str, java_type: str, element_type: str | None = None) -> Any:
    """Convert Java source text by doc type; unmatched text is returned as it is."""
    if java_type not in JAVA_TYPE_TO_PYTHON:
        raise ValueError(f"Unsupported type: {java_type}")
    if java_type in ("byte", "short", "integer"):
        return int(value) if _WHOLE_NUMBER.match(value) else value
    if java_type == "long":
        return int(_LONG_SUFFIX.sub("", value)) if _LONG.match(value) else value
    if java_type == "float":
        return float(_FLOAT_SUFFIX.sub("", value)) if _FLOAT.match(value) else value
    if java_type == "double":
        return float(value) if _DOUBLE.match(value) else value
    if java_type == "boolean":
        return value == "true" if value in ("true", "false") else value
    if java_type == "char":
        # The official's char pattern puts `$` before the closing quote, so it never matches
        # and the text is returned unchanged either way.
        return value
    if java_type == "Array":
        return _array(value, element_type)
    if java_type == "ArrayList":
        return _arraylist(value, element_type)
    if java_type == "HashMap":
        return _hashmap(value)
    if java_type in _UNCONVERTED:
        raise NotImplementedError(f"{java_type} conversion is not implemented")
    return value  # String and any


def _array(text: str, element_type: str | None) -> Any:
    """`new T[]{a, b}` anywhere in the text; a String element keeps its quotes."""
    found = _ARRAY.search(text)
    if found is None:
        return text
    items = (item.strip() for item in found.group(1).split(","))
    return [_element(item, element_type) for item in items if item]


def _arraylist(text: str, element_type: str | None) -> Any:
    """`Arrays.asList(...)`, double-brace `add(...)` calls, or an empty `new ArrayList<>()`."""
    as_list = _ARRAYLIST_AS_LIST.search(text)
    if as_list is not None:
        items = [item.strip() for item in as_list.group(1).split(",")]
        return [_arraylist_element(item, element_type) for item in items]
    adds = _ARRAYLIST_ADDS.search(text)
    if adds is not None:
        items = [item.strip() for item in _ADD_CALL.findall(adds.group(1))]
        return [_arraylist_element(item, element_type) for item in items]
    if _ARRAYLIST_EMPTY.search(text) is not None:
        return []
    return text


def _arraylist_element(item: str, element_type: str | None) -> Any:
    """ArrayList elements of char/String type are cut blindly, assuming they are quoted."""
    if element_type in ("char", "String"):
        return item[1:-1]
    return _element(item, element_type)


def _element(item: str, element_type: str | None) -> Any:
    """Convert one collection element by its type, or by guessing when no type is known."""
    if element_type:
        return convert_java_value(item, element_type)
    return _guess_literal(item)


def _hashmap(text: str) -> Any:
    """`new HashMap<..>() {{ put("k", v); }}` -> dict; values are guessed literals."""
    body = _HASHMAP_PUTS.search(text)
    if body is not None:
        puts = body.group(1)
        if not puts.strip():
            return {}
        return {key: _guess_literal(raw.strip()) for key, raw in _PUT_CALL.findall(puts)}
    if _HASHMAP_EMPTY.search(text) is not None:
        return {}
    return text


def _guess_literal(text: str) -> Any:
    """Untyped literal: boolean, quoted string, L-long, f-float, Python int/float, else text."""
    if text == "true":
        return True
    if text == "false":
        return False
    if text.startswith('"') and text.endswith('"'):
        return text[1:-1]
    if _LONG.match(text):
        return int(text[:-1])
    if _FLOAT.match(text):
        return float(_FLOAT_SUFFIX.sub("", text))
    for number_type in (int, float):
        try:
            return number_type(text)
        except ValueError:
            pass
    return text
