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
from bisect import bisect_left
from typing import Any

from fcbench.decode.spans import Occurrences

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

# The official collection patterns are searched lazily (`(.*?)`, `(.+?)`) and rescan the rest
# of the text from every start that fails (1,000 repeats of `new ArrayList<>() {{` took 4.5 s,
# 2,000 took 23 s). The finders below return the same groups in one pass over sorted
# positions; tests/check/ast/test_java_types.py keeps the official patterns as oracles:
#   new\s+\w+\[\]\s*\{(.*?)\}                                        (Array)
#   new\s+ArrayList<\w*>\(Arrays\.asList\((.+?)\)\)                   (ArrayList)
#   new\s+ArrayList<\w*>\(\)\s*\{\{\s*(.+?)\s*\}\}  DOTALL, then add\((.+?)\)
#   new\s+HashMap<.*?>\s*\(\)\s*\{\s*\{?\s*(.*?)\s*\}?\s*\}  DOTALL, then put\(\"(.*?)\",\s*(.*?)\)
#   new\s+HashMap<.*?>\s*\(\)                                      (empty HashMap)
_ARRAY_HEAD = re.compile(r"new\s+\w+\[\]\s*\{")
_ARRAYLIST_HEAD = re.compile(r"new\s+ArrayList<\w*>\(")
_AS_LIST = "Arrays.asList("
_DOUBLE_BRACE = re.compile(r"\)\s*\{\{")  # right after an ArrayList head
_ARRAYLIST_EMPTY = re.compile(r"new\s+ArrayList<\w*>\(\)")  # no lazy part: linear
_HASHMAP_HEAD = re.compile(r"new\s+HashMap<")
_HASHMAP_TYPES_END = re.compile(r">\s*\(\)")
_HASHMAP_BODY_START = re.compile(r">\s*\(\)\s*\{")
_SPACES = re.compile(r"\s*")  # anchored, no alternatives: linear

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
    body = _array_body(text)
    if body is None:
        return text
    items = (item.strip() for item in body.split(","))
    return [_element(item, element_type) for item in items if item]


def _arraylist(text: str, element_type: str | None) -> Any:
    """`Arrays.asList(...)`, double-brace `add(...)` calls, or an empty `new ArrayList<>()`."""
    as_list = _as_list_body(text)
    if as_list is not None:
        items = [item.strip() for item in as_list.split(",")]
        return [_arraylist_element(item, element_type) for item in items]
    adds = _double_brace_body(text)
    if adds is not None:
        items = [item.strip() for item in _calls(adds, "add(")]
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
    puts = _hashmap_body(text)
    if puts is not None:
        if not puts.strip():
            return {}
        return {key: _guess_literal(raw.strip()) for key, raw in _puts(puts)}
    if _empty_hashmap(text):
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


def _on_one_line(newlines: Occurrences, start: int, end: int) -> bool:
    """No newline in text[start:end] (a `.` without DOTALL cannot cross one)."""
    newline = newlines.next(start)
    return newline < 0 or newline >= end


def _skip_spaces(text: str, position: int) -> int:
    match = _SPACES.match(text, position)
    return match.end() if match else position


def _spaces_before(text: str, position: int) -> int:
    """Where the run of whitespace that ends at `position` starts."""
    while position > 0 and text[position - 1].isspace():
        position -= 1
    return position


def _array_body(text: str) -> str | None:
    """Group 1 of the official Array pattern's search: from the first head whose `{` is
    closed on the same line, to that `}`."""
    closes, newlines = Occurrences(text, "}"), Occurrences(text, "\n")
    for head in _ARRAY_HEAD.finditer(text):
        close = closes.next(head.end())
        if close >= 0 and _on_one_line(newlines, head.end(), close):
            return text[head.end():close]
    return None


def _as_list_body(text: str) -> str | None:
    """Group 1 of the official `Arrays.asList` pattern's search: at least one character, up
    to the first `))` on the same line."""
    closes, newlines = Occurrences(text, "))"), Occurrences(text, "\n")
    for head in _ARRAYLIST_HEAD.finditer(text):
        if not text.startswith(_AS_LIST, head.end()):
            continue
        start = head.end() + len(_AS_LIST)
        close = closes.next(start + 1)
        if close >= 0 and _on_one_line(newlines, start, close):
            return text[start:close]
    return None


def _double_brace_body(text: str) -> str | None:
    """Group 1 of the official double-brace pattern's search (DOTALL): after the spaces that
    follow `{{`, at least one character, up to the spaces before the first `}}` past it.

    When no `}}` follows that first character, the pattern gives back one space of the
    leading ones (when the text there is `}}`) and the group is that space."""
    closes = Occurrences(text, "}}")
    for head in _ARRAYLIST_HEAD.finditer(text):
        braces = _DOUBLE_BRACE.match(text, head.end())
        if braces is None:
            continue
        start = _skip_spaces(text, braces.end())
        close = closes.next(start + 1)
        if close >= 0:
            return text[start:max(start + 1, _spaces_before(text, close))]
        if start > braces.end() and text.startswith("}}", start):
            return text[start - 1:start]
    return None


def _calls(text: str, opening: str) -> list[str]:
    """What the official `opening(.+?)\\)` findall returns (no DOTALL): at least one
    character, up to the first `)` on the same line; a failed start retries one further."""
    closes, newlines = Occurrences(text, ")"), Occurrences(text, "\n")
    found: list[str] = []
    position = 0
    while (opened := text.find(opening, position)) >= 0:
        start = opened + len(opening)
        close = closes.next(start + 1)
        if close >= 0 and _on_one_line(newlines, start, close):
            found.append(text[start:close])
            position = close + 1
        else:
            position = opened + 1
    return found


def _hashmap_body(text: str) -> str | None:
    """Group 1 of the official HashMap pattern's search (DOTALL).

    `<.*?>` stops at the first `>` followed by `() {`; after that brace, spaces, one
    optional `{` and spaces are taken, and the group runs lazily to the spaces before the
    next `}` (the optional `}` and the spaces around it then match empty). Only the first
    head counts: when it has no such `>`, or no `}` after that brace, no later head has."""
    head = _HASHMAP_HEAD.search(text)
    body = _HASHMAP_BODY_START.search(text, head.end()) if head else None
    if body is None:
        return None
    start = _skip_spaces(text, body.end())
    if text.startswith("{", start):
        start = _skip_spaces(text, start + 1)
    close = text.find("}", start)
    if close < 0:
        return None
    return text[start:max(start, _spaces_before(text, close))]


def _empty_hashmap(text: str) -> bool:
    """Whether the official empty-HashMap pattern is found (no DOTALL: the `<...>` part stays
    on one line)."""
    ends = [found.start() for found in _HASHMAP_TYPES_END.finditer(text)]
    newlines = Occurrences(text, "\n")
    for head in _HASHMAP_HEAD.finditer(text):
        index = bisect_left(ends, head.end())
        if index < len(ends) and _on_one_line(newlines, head.end(), ends[index]):
            return True
    return False


def _puts(text: str) -> list[tuple[str, str]]:
    """What the official `put\\(\"(.*?)\",\\s*(.*?)\\)` findall returns (no DOTALL).

    After a `",` the spaces are skipped (newlines included) and the value runs to the next
    `)` if no newline comes first; whether that works depends on the `",` alone, so each is
    settled once, and a key runs to the first settled `",` on its line."""
    closes, newlines = Occurrences(text, ")"), Occurrences(text, "\n")
    settled: list[int] = []
    value_at: dict[int, tuple[int, int]] = {}
    for comma in Occurrences(text, '",').at:
        value = _skip_spaces(text, comma + 2)
        close = closes.next(value)
        if close >= 0 and _on_one_line(newlines, value, close):
            settled.append(comma)
            value_at[comma] = (value, close)
    found: list[tuple[str, str]] = []
    position = 0
    while (opened := text.find('put("', position)) >= 0:
        start = opened + 5
        index = bisect_left(settled, start)
        if index < len(settled) and _on_one_line(newlines, start, settled[index]):
            value, close = value_at[settled[index]]
            found.append((text[start:settled[index]], text[value:close]))
            position = close + 1
        else:
            position = opened + 1
    return found
