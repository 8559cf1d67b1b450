"""`json.loads` for str input without its Python-level wrapping.

Result files and FC arguments mean tens of thousands of small `json.loads` calls per
evaluation, and for short texts the wrapping (whitespace regexes, type checks, decoder
dispatch) costs as much as the parsing. `loads` calls the C scanner `json.loads` uses; any
input it does not settle (bytes, a BOM, damage) goes to `json.loads` itself, which then
raises its usual error.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
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


# -- Writing any value -----------------------------------------------------------------------

_INDENT_LIMIT = 64
"""Nesting levels indented in full by `dumps_total`; deeper levels are written on one line
(so a 10,000-level state does not become 50 MB of leading spaces)."""


def dumps_total(value: Any, *, indent: int | None = None, sort_keys: bool = False,
                separators: tuple[str, str] | None = None) -> str:
    """`json.dumps(value, ensure_ascii=False, indent=..., sort_keys=..., separators=...)`, or,
    where that raises, the same kind of text written by a walk that never raises.

    Why: environment states and answers hold what no JSON writer expects (int keys beside
    str keys, which `sort_keys` cannot order; sets; integers past Python's 4,300-digit
    str() limit; nesting deeper than the recursion limit; objects whose `__str__` raises),
    and one such value must not cost a report or a score file. The walk: keys ordered by
    kind then value when asked (numbers numerically, the rest by text), sets as sorted
    lists, big integers printed in full, NaN/Infinity as `json.dumps` writes them, other
    objects as their `str()` (or `<type object>`), a container inside itself as
    `"[circular]"`. It keeps its own stack, so depth costs no recursion.
    """
    try:
        return json.dumps(value, ensure_ascii=False, indent=indent, sort_keys=sort_keys,
                          separators=separators)
    except (TypeError, ValueError, RecursionError, MemoryError):
        pass
    if separators is None:  # json.dumps's defaults
        separators = (",", ": ") if indent is not None else (", ", ": ")
    return _Walk(indent, sort_keys, separators).text(value)


def safe_str(value: Any) -> str:
    """`str(value)`, for any value: big integers in full, an object whose `__str__` raises
    as `<type object>`."""
    if isinstance(value, int) and not isinstance(value, bool):
        return _int_text(value)
    try:
        return str(value)
    except Exception:
        return f"<{type(value).__name__} object>"


def _int_text(number: int) -> str:
    try:
        return int.__repr__(number)
    except ValueError:  # past sys.get_int_max_str_digits(): Decimal has no such limit
        from decimal import Decimal

        return str(Decimal(number))


def _scalar_text(value: Any) -> str:
    """A leaf as JSON text (never a container)."""
    if value is None or value is True or value is False:
        return {None: "null", True: "true", False: "false"}[value]
    if isinstance(value, str):
        return json.encoder.encode_basestring(value)
    if isinstance(value, int):
        return _int_text(value)
    if isinstance(value, float):
        return _float_text(value)
    return json.encoder.encode_basestring(safe_str(value))


def _float_text(number: float) -> str:
    if number != number:
        return "NaN"
    if number in (float("inf"), float("-inf")):
        return "Infinity" if number > 0 else "-Infinity"
    return float.__repr__(number)


def _key_text(key: Any) -> str:
    """A key as `json.dumps` turns it into a string (other kinds: their `str()`)."""
    if isinstance(key, str):
        return key
    if key is None or isinstance(key, (bool, int, float)):
        return _scalar_text(key)
    return safe_str(key)


def _order(item: Any) -> tuple[int, Any]:
    """A total order over mixed items: numbers numerically, then everything else by text."""
    if isinstance(item, (int, float)) and not isinstance(item, bool) and item == item:
        return (0, item)
    return (1, _key_text(item))


_Frame = tuple[Iterator[tuple[Any, Any]], str, int, list[int]]
"""An open container: its (key, value) items, its closing bracket, its id, [items written]."""


class _Walk:
    """The never-raising writer behind `dumps_total` (iterative: an explicit stack)."""

    def __init__(self, indent: int | None, sort_keys: bool, separators: tuple[str, str]
                 ) -> None:
        self.indent = indent
        self.sort_keys = sort_keys
        self.item_separator, self.key_separator = separators
        self.parts: list[str] = []
        self.open: set[int] = set()

    def text(self, value: Any) -> str:
        stack: list[_Frame] = []
        self._enter(value, stack)
        while stack:
            items, closer, ident, count = stack[-1]
            item = next(items, None)
            if item is None:
                stack.pop()
                self.open.discard(ident)
                self.parts.append((self._newline(len(stack)) if count[0] else "") + closer)
                continue
            self.parts.append(self.item_separator if count[0] else "")
            self.parts.append(self._newline(len(stack)))
            count[0] += 1
            key, child = item
            if key is not _NO_KEY:
                self.parts.append(json.encoder.encode_basestring(_key_text(key))
                                  + self.key_separator)
            self._enter(child, stack)
        return "".join(self.parts)

    def _newline(self, depth: int) -> str:
        if self.indent is None or depth > _INDENT_LIMIT:
            return ""
        return "\n" + " " * (self.indent * depth)

    def _enter(self, value: Any, stack: list[_Frame]) -> None:
        items = self._items(value)
        if items is None:
            self.parts.append(_scalar_text(value))
            return
        if id(value) in self.open:
            self.parts.append('"[circular]"')
            return
        self.open.add(id(value))
        opener, closer = ("{", "}") if isinstance(value, (dict, Mapping)) else ("[", "]")
        self.parts.append(opener)
        stack.append((items, closer, id(value), [0]))

    def _items(self, value: Any) -> Iterator[tuple[Any, Any]] | None:
        if type(value) in _SCALARS:  # the usual leaf, decided without an ABC check
            return None
        if isinstance(value, (list, tuple)):
            return ((_NO_KEY, item) for item in value)
        if isinstance(value, (dict, Mapping)):
            keys = list(value)
            if self.sort_keys:
                keys.sort(key=_order)
            return ((key, value[key]) for key in keys)
        if isinstance(value, (set, frozenset)):
            return ((_NO_KEY, item) for item in sorted(value, key=_order))
        return None


_NO_KEY = object()
_SCALARS = frozenset({str, int, float, bool, type(None)})
